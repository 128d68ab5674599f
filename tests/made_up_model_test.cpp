// A made-up decoder by flags (issue 16 item 3): --layers --hidden --heads --kv-heads --head-dim
// --ffn --vocab --tied --no-gated --moe-experts --moe-top-k --moe-ffn wherever a MODEL is taken.
// The library function (specs::made_up_decoder) against checkpoint counts and a hand count; the
// real binary against the presets it reproduces, command by command; and the refusals.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "napkin/ground/error.h"
#include "napkin/model/params.h"
#include "napkin/specs/made_up.h"
#include "napkin/specs/presets.h"
#include "run_napkin.h"

namespace {

using napkin::specs::DecoderShape;
using napkin_test::run_napkin;
using napkin_test::run_shell;
using json = nlohmann::json;

// Llama-3.1-8B by flags.
const std::string kLlama8b = "--layers 32 --hidden 4096 --heads 32 --kv-heads 8 --ffn 14336 --vocab 128256";
// Mixtral-8x7B by flags: every layer 8 experts of width 14336, 2 per token.
const std::string kMixtral =
    "--layers 32 --hidden 4096 --heads 32 --kv-heads 8 --ffn 14336 --vocab 32000 --moe-experts 8 --moe-top-k 2";

json run_json(const std::string& args, int want_code = 0) {
  const auto r = run_shell(std::string(NAPKIN_BINARY) + " " + args + " --json 2>/dev/null");
  INFO(args);
  REQUIRE(r.code == want_code);
  return json::parse(r.out);
}

// The assumption keys of a result, without the made-up decoder's own lines (flops train's
// head_term among them: its advice, --vocab with --d-model, means other things beside --hidden).
std::vector<std::string> other_assumptions(const json& j) {
  std::vector<std::string> keys;
  for (const auto& a : j.at("assumptions")) {
    const std::string k = a.at("key").get<std::string>();
    if (k.rfind("made_up_", 0) != 0 && k != "head_term") keys.push_back(k);
  }
  return keys;
}

// The same command on a preset and on the made-up decoder of its shapes: every result (value,
// unit, formula), every input but the model's name (and params' family and repository), and every
// assumption but the made-up decoder's own lines are the same.
void check_same_as_preset(const std::string& command, const std::string& preset, const std::string& flags,
                          const std::string& rest) {
  INFO(command << " " << preset << " vs " << flags << " " << rest);
  json a = run_json(command + " " + preset + " " + rest);
  json b = run_json(command + " " + flags + " " + rest);
  CHECK(a.at("results") == b.at("results"));
  if (b.at("inputs").contains("model"))  // the engines' ledgers do not echo it
    CHECK(b.at("inputs").at("model").get<std::string>().rfind("decoder(", 0) == 0);
  for (json* j : {&a, &b})
    for (const char* k : {"model", "family", "repo"}) j->at("inputs").erase(k);
  CHECK(a.at("inputs") == b.at("inputs"));
  CHECK(other_assumptions(a) == other_assumptions(b));
  CHECK(b.at("assumptions").size() > a.at("assumptions").size());  // the made-up decoder's lines
}

}  // namespace

TEST_CASE("a made-up decoder of Llama-3.1-8B's shapes counts its checkpoint's 8,030,261,248 params",
          "[made-up][specs]") {
  DecoderShape s;
  s.layers = 32;
  s.hidden = 4096;
  s.heads = 32;
  s.kv_heads = 8;
  s.ffn = 14336;
  s.vocab = 128256;
  const auto m = napkin::specs::made_up_decoder(s);
  CHECK(m.name == "decoder(L=32, D=4096, H=32, H_kv=8, F=14336, V=128256)");
  CHECK(m.head_dim == 128);
  const auto c = napkin::count_params(m);
  CHECK(c.total == 8030261248);
  CHECK(c.total == napkin::count_params(napkin::specs::load_model_preset("llama-3.1-8b")).total);
}

TEST_CASE("a small made-up MoE decoder counts as by hand: 243,008 params, 144,704 active", "[made-up][specs]") {
  // L=2, D=64, H=4 (d_head 16), V=100, 4 experts of width 128, 2 per token, untied:
  //   attention 4·64·64 = 16,384; experts 4·3·64·128 = 98,304; router 64·4 = 256; norms 2·64
  //   = 128: 115,072 a layer, 230,144 for two; embedding and head 2·100·64 = 12,800; final norm
  //   64. Total 243,008. Active: the 2 of 4 experts a token skips in each layer, 2·2·3·64·128 =
  //   98,304 fewer: 144,704.
  DecoderShape s;
  s.layers = 2;
  s.hidden = 64;
  s.heads = 4;
  s.vocab = 100;
  s.moe_experts = 4;
  s.moe_top_k = 2;
  s.moe_ffn = 128;
  const auto c = napkin::count_params(napkin::specs::made_up_decoder(s));
  CHECK(c.total == 243008);
  CHECK(c.active == 144704);
  CHECK(napkin::specs::decoder_name(s) == "decoder(L=2, D=64, H=4, H_kv=4, V=100, E=4, k=2, F_e=128)");
}

TEST_CASE("a made-up decoder's defaults are Llama's, and each flag changes its part of the count", "[made-up][specs]") {
  DecoderShape s;
  s.layers = 2;
  s.hidden = 64;
  s.heads = 4;
  s.ffn = 256;
  s.vocab = 100;
  // 2·100·64 (untied) + 2·(4·64·64 + 3·64·256 + 2·64) + 64: the napkin model JSON of the same
  // fields counts this (tests/cmd_params_test.cpp).
  const std::int64_t base = 2 * 100 * 64 + 2 * (4 * 64 * 64 + 3 * 64 * 256 + 2 * 64) + 64;
  CHECK(napkin::count_params(napkin::specs::made_up_decoder(s)).total == base);
  SECTION("--tied drops the head's V·D") {
    s.tied = true;
    CHECK(napkin::count_params(napkin::specs::made_up_decoder(s)).total == base - 100 * 64);
  }
  SECTION("--no-gated drops the gate's D·F in every layer") {
    s.gated = false;
    CHECK(napkin::count_params(napkin::specs::made_up_decoder(s)).total == base - 2 * 64 * 256);
  }
  SECTION("--kv-heads 1 keeps one d_head-wide K and V instead of four") {
    s.kv_heads = 1;
    CHECK(napkin::count_params(napkin::specs::made_up_decoder(s)).total == base - 2 * 2 * 64 * 3 * 16);
  }
  SECTION("--head-dim 32 doubles the width of every projection") {
    s.head_dim = 32;
    CHECK(napkin::count_params(napkin::specs::made_up_decoder(s)).total == base + 2 * 4 * 64 * 64);
  }
}

TEST_CASE("a made-up decoder refuses shapes it cannot build, naming the flag", "[made-up][specs]") {
  DecoderShape s;
  s.layers = 32;
  s.hidden = 4096;
  s.heads = 48;
  s.ffn = 14336;
  s.vocab = 128256;
  const auto message = [&s] {
    try {
      (void)napkin::specs::made_up_decoder(s);
    } catch (const napkin::InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  CHECK(message() == "--heads: '48': expected a divisor of --hidden 4096 (d_head = D / H must be an integer), or "
                     "--head-dim with it");
  s.head_dim = 128;  // H · d_head need not be D
  CHECK(message() == "(no error)");
  s.kv_heads = 5;
  CHECK(message() == "--kv-heads: '5': expected a divisor of --heads 48 (each key/value head serves H / H_kv query "
                     "heads)");
  s.kv_heads = 0;
  s.moe_experts = 2;
  s.moe_top_k = 3;
  CHECK(message() == "--moe-top-k: '3': expected between 1 and --moe-experts 2");
  s.moe_top_k = 0;
  CHECK(message().starts_with("--moe-top-k: '(missing)': expected the experts each token is routed to"));
  s.moe_experts = 0;
  s.moe_top_k = 2;
  CHECK(message() == "--moe-top-k: '2': expected --moe-experts with it (the routed experts it picks from)");
  s.moe_top_k = 0;
  s.ffn = 0;
  CHECK(message().starts_with("--ffn: '(missing)': expected the MLP width F"));
  s.ffn = 14336;
  s.layers = 100000;
  CHECK(message() == "--layers: '100000': expected a number of layers L from 1 to 65536");
}

TEST_CASE("params of the made-up Llama-3.1-8B is 8,030,261,248", "[made-up][cli]") {
  const json j = run_json("params " + kLlama8b);
  CHECK(j["results"]["total_params"]["value"] == 8030261248.0);
  CHECK(j["inputs"]["model"] == "decoder(L=32, D=4096, H=32, H_kv=8, F=14336, V=128256)");
  const auto r = run_napkin("params " + kLlama8b);
  REQUIRE(r.code == 0);
  // Each default is an assumption naming the flag that changes it.
  CHECK(r.out.find("made-up decoder: 8 key/value heads, each shared by 4 query heads (grouped-query attention)") !=
        std::string::npos);
  CHECK(r.out.find("made-up decoder: d_head = D / H = 4096 / 32 = 128") != std::string::npos);
  for (const char* flag : {"--kv-heads", "--head-dim", "--tied", "--no-gated", "--moe-experts"})
    CHECK(r.out.find(std::string("  ") + flag + "\n") != std::string::npos);
}

TEST_CASE("memory of the made-up Llama-3.1-8B holds 131,072 B of KV cache per token", "[made-up][cli]") {
  // 2 (K and V) · 32 layers · 8 KV heads · 128 d_head · 2 B (bf16)
  const json j = run_json("memory " + kLlama8b + " --context 1 --batch 1");
  CHECK(j["results"]["kv_cache"]["value"] == 131072.0);
  CHECK(j["results"]["kv_cache"]["unit"] == "B");
}

TEST_CASE("the made-up decoder of a preset's shapes gives the preset's numbers in every command", "[made-up][cli]") {
  check_same_as_preset("params", "llama-3.1-8b", kLlama8b, "");
  check_same_as_preset("params", "mixtral-8x7b", kMixtral, "");
  check_same_as_preset("memory", "llama-3.1-8b", kLlama8b, "--context 8192");
  check_same_as_preset("memory", "llama-3.1-8b", kLlama8b, "--context 32Ki --batch 4 --tp 2 --hw h100-sxm");
  check_same_as_preset("memory", "mixtral-8x7b", kMixtral, "--context 8192 --weights-dtype int4 --group-size 128");
  check_same_as_preset("memory", "llama-3.1-8b", kLlama8b, "--train --seq 4096 --zero 3 --dp 8 --recompute selective");
  check_same_as_preset("memory", "mixtral-8x7b", kMixtral, "--train --zero 1 --dp 8 --ep 8 --seq 4096");
  check_same_as_preset("memory", "llama-3.1-8b", kLlama8b, "--hw h100-sxm --max batch --context 8192");
  check_same_as_preset("memory", "llama-3.1-8b", kLlama8b, "--engine llama.cpp --context 8192 --kv-dtype q8_0");
  // vLLM's weights add the rotary cos/sin cache of max_position_embeddings rows, which a made-up
  // decoder does not state: the preset holds 131072 · 128 · 2 B = 32 MiB more, and nothing else
  // but what the pool loses to it differs (below).
  check_same_as_preset("serve", "llama-3.1-8b", kLlama8b, "--hw h100-sxm");
  check_same_as_preset("serve", "mixtral-8x7b", kMixtral, "--hw h100-sxm --tp 2 --batch 8");
  check_same_as_preset("serve", "llama-3.1-8b", kLlama8b, "--hw h100-sxm --engine llama.cpp --kv-dtype q8_0 --weights-dtype int4");
  check_same_as_preset("train", "llama-3.1-8b", kLlama8b, "--tokens 1T --hw h100-sxm --gpus 8 --zero 1");
  check_same_as_preset("train", "llama-3.1-8b", kLlama8b,
                       "--tokens 1T --hw h100-sxm --gpus 64 --tp 8 --flops-formula megatron --recompute full");
  check_same_as_preset("flops train", "llama-3.1-8b", kLlama8b, "--tokens 15T");
  check_same_as_preset("flops train", "mixtral-8x7b", kMixtral, "--tokens 1T --params-count total");
}

TEST_CASE("flops train --seq with a made-up decoder adds attention's T² term with its L and D", "[made-up][cli]") {
  const json a = run_json("flops train llama-3.1-8b --tokens 1T --layers 32 --seq 8Ki --d-model 4096");
  const json b = run_json("flops train " + kLlama8b + " --tokens 1T --seq 8Ki");
  CHECK(a["results"] == b["results"]);
}

TEST_CASE("made-up sizes take lists and ranges: one row per value, each naming it", "[made-up][cli]") {
  const json j = run_json("params --layers 32,40 --hidden 4096 --heads 32 --kv-heads 8 --ffn 14336 --vocab 128256");
  REQUIRE(j.is_array());
  REQUIRE(j.size() == 2);
  CHECK(j[0]["inputs"]["layers"] == 32.0);
  CHECK(j[1]["inputs"]["layers"] == 40.0);
  // 8 more layers of 4·4096·4096·… : attention 41,943,040 + MLP 176,160,768 + norms 8,192 each.
  CHECK(j[1]["results"]["total_params"]["value"].get<double>() - j[0]["results"]["total_params"]["value"].get<double>() ==
        8.0 * 218112000.0);
  const json r = run_json("memory --layers 32 --hidden 4096 --heads 32 --kv-heads 1..8:x2 --ffn 14336 --vocab 128256 "
                          "--context 1");
  REQUIRE(r.size() == 4);
  CHECK(r[3]["inputs"]["kv_heads"] == 8.0);
  CHECK(r[0]["results"]["kv_cache"]["value"] == 131072.0 / 8);
  CHECK(r[3]["results"]["kv_cache"]["value"] == 131072.0);
}

TEST_CASE("a model comes from exactly one place: MODEL, the made-up decoder's flags or --params", "[made-up][cli]") {
  const auto refused = [](const std::string& args, const std::string& message) {
    const auto r = run_napkin(args);
    INFO(args);
    CHECK(r.code == 2);
    CHECK(r.out == "napkin: error: " + message + "\n");
  };
  refused("params llama-3.1-8b --layers 32",
          "--layers: '32': expected either MODEL 'llama-3.1-8b' or a made-up decoder's flags, not both (the flags "
          "describe a model of their own)");
  refused("memory llama-3.1-8b --tied",
          "--tied: expected either MODEL 'llama-3.1-8b' or a made-up decoder's flags, not both (the flags "
          "describe a model of their own)");
  refused("memory --params 8B --hidden 4096",
          "--hidden: '4096': expected either --params 8B or a made-up decoder's flags, not both (the flags describe a "
          "model of their own)");
  refused("params", "params: give MODEL (a preset, config.json, model directory or checkpoint) or a made-up decoder "
                    "(--layers --hidden --heads --ffn --vocab)");
  refused("serve --hw h100-sxm",
          "serve: give MODEL (a preset, config.json or model directory) or a made-up decoder (--layers --hidden "
          "--heads --ffn --vocab)");
  refused("params " + kLlama8b + " --as llama",
          "--as: 'llama': expected MODEL with it (it reads a config.json by analogy; a made-up decoder states its "
          "layout by flags)");
  refused("params --layers 32 --hidden 4096 --heads 32 --vocab 128256",
          "--ffn: '(missing)': expected the MLP width F, e.g. --ffn 14336 (a made-up decoder needs --layers, --hidden, "
          "--heads, --ffn and --vocab)");
  refused("params --layers 0 --hidden 4096 --heads 32 --ffn 14336 --vocab 128256",
          "--layers: '0': expected a positive integer");
  refused("params --layers 32 --hidden 4096 --heads 48 --ffn 14336 --vocab 128256",
          "--heads: '48': expected a divisor of --hidden 4096 (d_head = D / H must be an integer), or --head-dim with "
          "it");
  refused("flops train " + kLlama8b + " --tokens 1T --d-model 4096",
          "--d-model: '4096': expected no --d-model with --hidden (the made-up decoder's width D is --hidden; --seq adds "
          "attention's T² term with its L and D)");
  refused("flops train --params 8B --tokens 1T --heads 32",
          "--heads: '32': expected --hidden with it (flops train's made-up decoder is selected by --hidden; without it "
          "--layers and --vocab add the attention and head terms to --params or MODEL)");
}

TEST_CASE("flops train and train keep --layers and --vocab's meaning without a made-up decoder", "[made-up][cli]") {
  // flops train: the attention and head terms beside --params; train: megatron's V beside MODEL.
  const json f = run_json("flops train --params 8B --tokens 1T --layers 32 --seq 8Ki --d-model 4096 --vocab 128256");
  CHECK(f["inputs"]["layers"] == 32.0);
  CHECK(f["inputs"]["vocab"] == 128256.0);
  const json t = run_json("train llama-3.1-8b --tokens 1T --hw h100-sxm --gpus 8 --flops-formula megatron --vocab 128000");
  const json u = run_json("train llama-3.1-8b --tokens 1T --hw h100-sxm --gpus 8 --flops-formula megatron");
  CHECK(t["results"]["training_flops"]["value"] != u["results"]["training_flops"]["value"]);
}

TEST_CASE("under vLLM a made-up decoder differs from its preset by the rotary cache alone (no max position)",
          "[made-up][cli]") {
  const json a = run_json("memory llama-3.1-8b --engine vllm --hw h100-sxm --context 8192");
  const json b = run_json("memory " + kLlama8b + " --engine vllm --hw h100-sxm --context 8192");
  const double rope = 131072.0 * 128.0 * 2.0;
  CHECK(a["results"]["weights"]["value"].get<double>() - b["results"]["weights"]["value"].get<double>() == rope);
  CHECK(b["results"]["kv_pool"]["value"].get<double>() - a["results"]["kv_pool"]["value"].get<double>() ==
        Approx(rope).epsilon(1e-9));
  CHECK(a["results"]["activation_peak"] == b["results"]["activation_peak"]);
}
