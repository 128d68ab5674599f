// llama-quantize's per-tensor types (src/model/gguf_quant.cpp) against counts derived by hand from
// llama.cpp's rules and against published GGUF sizes.
//
// Published sizes and their tolerances:
// - llama.cpp tools/quantize/README.md (commit 311c2c9f0ebd6e08f5b20e8827c654cebb7a41d6), table
//   "meta-llama/Llama-3.1-8B": bits/weight to 4 decimals and size in GiB. llama-bench prints them
//   from the tensors alone (llama_model_size / llama_model_n_params: no metadata), so the bits per
//   weight must agree to the printed digit: within 0.00006 (half the last digit, plus Llama 3.1's
//   64-float rope_freqs tensor, which napkin does not count: 2e-6 bits per weight).
// - Hugging Face model cards' "Size" columns (decimal GB to 2 decimals) are file sizes: tensor data
//   plus the GGUF header and metadata (the vocabulary's strings and scores: about 1 MB for a
//   32,000-token vocabulary, under 10 MB for Llama 3's 128,256 tokens and merges) and alignment
//   padding (under 32 B per tensor). So napkin's bytes must lie within [published − 5 MB − 10 MB,
//   published + 5 MB]: 5 MB of rounding either way, up to 10 MB of metadata below.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "napkin/ground/error.h"
#include "napkin/model/gguf_quant.h"
#include "napkin/model/params.h"
#include "napkin/specs/presets.h"
#include "real_configs.h"
#include "napkin/model/gguf_layout.h"
#include "napkin/model/tensor_table.h"
#include "run_napkin.h"

using namespace napkin;
using F = GgufFileType;

namespace {

GgufQuantMix mix(const char* preset, F t, std::optional<bool> imatrix = std::nullopt) {
  return gguf_quant_mix(specs::load_model_preset(preset), t, imatrix);
}

const GgufTypeTotal* type_of(const GgufQuantMix& m, std::string_view type) {
  for (const auto& t : m.types)
    if (t.type == type) return &t;
  return nullptr;
}

std::int64_t count(const GgufQuantMix& m, std::string_view type) {
  const GgufTypeTotal* t = type_of(m, type);
  return t ? t->tensors : 0;
}

std::string_view type_of_tensor(const GgufQuantMix& m, std::string_view name) {
  for (const auto& t : m.tensors)
    if (t.name == name) return t.type;
  return "(none)";
}

// Within [published − 15 MB, published + 5 MB] (see the header).
void check_file_size(const GgufQuantMix& m, double published_gb) {
  const double ours = static_cast<double>(m.bytes);
  CAPTURE(gguf_file_type_name(m.file_type), ours / 1e9, published_gb);
  CHECK(ours >= published_gb * 1e9 - 15e6);
  CHECK(ours <= published_gb * 1e9 + 5e6);
}

}  // namespace

TEST_CASE("Q4_K_M on Llama 3 8B: Q6_K on the output and on half of attn_v and ffn_down (use_more_bits), Q4_K elsewhere",
          "[gguf_quant]") {
  const GgufQuantMix m = mix("llama-3-8b", F::q4_k_m);
  // use_more_bits(i, 32): i < 4, i >= 28, or (i − 4) % 3 == 2 (6, 9, ..., 27): 16 of 32 layers.
  // Q4_K: token_embd + attn_q/k/output (96) + ffn_gate/up (64) + 16 attn_v + 16 ffn_down = 193.
  REQUIRE(m.types.size() == 3);
  CHECK(type_of(m, "Q4_K")->tensors == 193);
  CHECK(type_of(m, "Q4_K")->elements == 6'498'025'472);
  CHECK(type_of(m, "Q4_K")->bytes == 6'498'025'472 / 256 * 144);
  CHECK(type_of(m, "Q6_K")->tensors == 33);  // output + 16 attn_v + 16 ffn_down
  CHECK(type_of(m, "Q6_K")->bytes == 1'531'969'536 / 256 * 210);
  CHECK(type_of(m, "F32")->tensors == 65);  // 2 norms per layer + output_norm
  CHECK(m.bytes == 6'498'025'472 / 256 * 144 + 1'531'969'536 / 256 * 210 + 266'240 * 4);
  CHECK(m.bytes == 4'912'898'048);
  CHECK(m.fallbacks == 0);
  CHECK(type_of_tensor(m, "blk.3.attn_v.weight") == "Q6_K");
  CHECK(type_of_tensor(m, "blk.4.attn_v.weight") == "Q4_K");
  CHECK(type_of_tensor(m, "blk.6.ffn_down.weight") == "Q6_K");
  CHECK(type_of_tensor(m, "blk.28.ffn_down.weight") == "Q6_K");
  CHECK(type_of_tensor(m, "token_embd.weight") == "Q4_K");
  CHECK(type_of_tensor(m, "output.weight") == "Q6_K");
  CHECK(m.detail() == "Q4_K 193 tensors 3.66 GB, Q6_K 33 tensors 1.26 GB, F32 65 tensors 1.06 MB");
}

TEST_CASE("Every tensor's elements add up to napkin's own parameter count", "[gguf_quant]") {
  for (const char* p : {"llama-2-7b", "llama-3-8b", "llama-3.1-70b", "mistral-7b", "mixtral-8x7b", "qwen2.5-7b",
                        "qwen2-72b", "qwen3-8b", "qwen3-30b-a3b", "qwen1.5-moe-a2.7b", "gemma-2-9b", "gemma-3-1b"}) {
    CAPTURE(p);
    const specs::ModelSpec spec = specs::load_model_preset(p);
    CHECK(gguf_quant_mix(spec, F::q4_k_m).elements == count_params(spec).total);
  }
}

TEST_CASE("llama.cpp's Llama-3.1-8B table: bits per weight to the printed digit, every row", "[gguf_quant]") {
  // tools/quantize/README.md (commit 311c2c9f), "meta-llama/Llama-3.1-8B": bits/weight. The types
  // llama-quantize makes only with an importance matrix were made with one; IQ4_XS and IQ4_NL
  // (whose mix an importance matrix changes) match without: napkin's default (gguf_quant.h).
  struct Row {
    F type;
    double bpw;
  };
  for (const Row r : {Row{F::iq1_s, 2.0042},  Row{F::iq1_m, 2.1460},  Row{F::iq2_xxs, 2.3824}, Row{F::iq2_xs, 2.5882},
                      Row{F::iq2_s, 2.7403},  Row{F::iq2_m, 2.9294},  Row{F::iq3_xxs, 3.2548}, Row{F::iq3_xs, 3.4977},
                      Row{F::iq3_s, 3.6606},  Row{F::iq3_m, 3.7628},  Row{F::iq4_xs, 4.4597},  Row{F::iq4_nl, 4.6818},
                      Row{F::q2_k_s, 2.9697}, Row{F::q2_k, 3.1593},   Row{F::q3_k_s, 3.6429},  Row{F::q3_k_l, 4.2979},
                      Row{F::q4_k_s, 4.6672}, Row{F::q4_k_m, 4.8944}, Row{F::q5_k_s, 5.5704},  Row{F::q5_k_m, 5.7036},
                      Row{F::q6_k, 6.5633},   Row{F::q8_0, 8.5008},   Row{F::f16, 16.0005}}) {
    const GgufQuantMix m = mix("llama-3.1-8b", r.type);
    CAPTURE(gguf_file_type_name(r.type), m.bits_per_weight(), r.bpw, m.detail());
    CHECK(std::abs(m.bits_per_weight() - r.bpw) <= 0.00006);
  }
}

TEST_CASE("Published GGUF file sizes: Llama 2 7B, Mistral 7B (TheBloke), Llama 3 8B and 3.1 70B (llama.cpp)",
          "[gguf_quant]") {
  // TheBloke/Llama-2-7B-Chat-GGUF README "Provided files" (Llama 2 7B's shapes): Q4_K_M 4.08 GB,
  // Q5_K_M 4.78 GB, Q6_K 5.53 GB, Q8_0 7.16 GB; TheBloke/Luna-AI-Llama2-Uncensored-GGUF (a Llama 2
  // 7B fine-tune, same shapes): Q4_0 3.83 GB, Q4_K_S 3.86 GB, Q5_0 4.65 GB, Q5_K_S 4.65 GB.
  check_file_size(mix("llama-2-7b", F::q4_k_m), 4.08);
  check_file_size(mix("llama-2-7b", F::q5_k_m), 4.78);
  check_file_size(mix("llama-2-7b", F::q6_k), 5.53);
  check_file_size(mix("llama-2-7b", F::q8_0), 7.16);
  check_file_size(mix("llama-2-7b", F::q4_0), 3.83);
  check_file_size(mix("llama-2-7b", F::q4_k_s), 3.86);
  check_file_size(mix("llama-2-7b", F::q5_0), 4.65);
  // TheBloke/Mistral-7B-Instruct-v0.1-GGUF README "Provided files" (Mistral 7B v0.1's shapes).
  check_file_size(mix("mistral-7b", F::q4_0), 4.11);
  check_file_size(mix("mistral-7b", F::q4_k_s), 4.14);
  check_file_size(mix("mistral-7b", F::q4_k_m), 4.37);
  check_file_size(mix("mistral-7b", F::q5_0), 5.00);
  check_file_size(mix("mistral-7b", F::q5_k_m), 5.13);
  check_file_size(mix("mistral-7b", F::q6_k), 5.94);
  check_file_size(mix("mistral-7b", F::q8_0), 7.70);
  // llama.cpp tools/quantize/quantize.cpp QUANT_OPTIONS, "@ Llama-3-8B" (GiB, 2 decimals; tensor
  // bytes as llama-quantize reports them): Q4_K_M 4.58G, Q5_K_M 5.33G, Q6_K 6.14G.
  // (Its Q4_K_S "4.37G" and Q8_0 "7.96G" are older than the README's table, which gives 4.36 and
  // 7.95 GiB for the same shapes, as napkin does: those two are checked there.)
  for (const auto& [t, gib] : {std::pair{F::q4_k_m, 4.58}, std::pair{F::q5_k_m, 5.33}, std::pair{F::q6_k, 6.14},
                               std::pair{F::q5_k_s, 5.21}}) {
    const GgufQuantMix m = mix("llama-3-8b", t);
    CAPTURE(gguf_file_type_name(t), static_cast<double>(m.bytes) / 1073741824.0, gib);
    CHECK(std::abs(static_cast<double>(m.bytes) / 1073741824.0 - gib) <= 0.005);
  }
}

TEST_CASE("Published GGUF file sizes: Llama 3.1 70B Instruct (bartowski, importance matrix), 18 types",
          "[gguf_quant]") {
  // bartowski/Meta-Llama-3.1-70B-Instruct-GGUF README, "Download a file" table (File Size, decimal
  // GB). bartowski quantizes every type with an importance matrix (the README credits its
  // calibration set). Its _L/_XL files override the embedding and output types by hand
  // (--token-embedding-type/--output-tensor-type) and are not llama-quantize mixes: not checked.
  // (tools/quantize/README.md's "Memory/Disk Requirements" gives 43.1 GB for this model at Q4_K_M;
  // the 42.52 GB file, and napkin's 42.51 GB of tensors, disagree with it by 0.6 GB, more than
  // metadata can explain: not used.)
  for (const auto& [t, gb] :
       {std::pair{F::q8_0, 74.98}, std::pair{F::q6_k, 57.89}, std::pair{F::q5_k_m, 49.95}, std::pair{F::q5_k_s, 48.66},
        std::pair{F::q4_k_m, 42.52}, std::pair{F::q4_k_s, 40.35}, std::pair{F::iq4_xs, 37.90}, std::pair{F::q3_k_l, 37.14},
        std::pair{F::q3_k_m, 34.27}, std::pair{F::iq3_m, 31.94}, std::pair{F::q3_k_s, 30.91}, std::pair{F::iq3_xs, 29.31},
        std::pair{F::q2_k, 26.38}, std::pair{F::iq2_m, 24.12}, std::pair{F::iq2_s, 22.24}, std::pair{F::iq2_xs, 21.14},
        std::pair{F::iq2_xxs, 19.10}, std::pair{F::iq1_m, 16.75}})
    check_file_size(mix("llama-3.1-70b", t, true), gb);
}

TEST_CASE("Q2_K gives attn_v Q4_K when 4 or more heads share a KV head (GQA), Q3_K otherwise", "[gguf_quant]") {
  // Llama 2 7B: 32 heads, 32 KV heads (n_gqa 1); Llama 3 8B: 32 and 8 (n_gqa 4).
  CHECK(type_of_tensor(mix("llama-2-7b", F::q2_k), "blk.0.attn_v.weight") == "Q3_K");
  CHECK(type_of_tensor(mix("llama-3-8b", F::q2_k), "blk.0.attn_v.weight") == "Q4_K");
  // Q2_K's ffn_down is Q3_K and attn_output Q3_K (not 8-expert), token_embd stays Q2_K.
  const GgufQuantMix m = mix("llama-2-7b", F::q2_k);
  CHECK(type_of_tensor(m, "blk.9.ffn_down.weight") == "Q3_K");
  CHECK(type_of_tensor(m, "blk.9.attn_output.weight") == "Q3_K");
  CHECK(type_of_tensor(m, "token_embd.weight") == "Q2_K");
  CHECK(count(m, "Q3_K") == 3 * 32);
  CHECK(count(m, "Q2_K") == 1 + 4 * 32);  // token_embd, attn_q/k, ffn_gate/up
}

TEST_CASE("A 70B model's attn_v gets Q5_K where the mix says Q4_K (LLM_TYPE_70B)", "[gguf_quant]") {
  const GgufQuantMix m = mix("llama-3.1-70b", F::q4_k_m);
  // use_more_bits(i, 80): i < 10, i >= 70, or (i − 10) % 3 == 2 (12, ..., 69): 40 of 80 layers.
  CHECK(count(m, "Q6_K") == 1 + 40 + 40);  // output, attn_v, ffn_down
  CHECK(count(m, "Q5_K") == 40);           // the other attn_v
  CHECK(count(m, "Q4_K") == 1 + 240 + 160 + 40);
  CHECK(count(m, "F32") == 161);
  CHECK(type_of_tensor(m, "blk.10.attn_v.weight") == "Q5_K");
  CHECK(type_of_tensor(m, "blk.12.attn_v.weight") == "Q6_K");
}

TEST_CASE("Rows that do not fill a 256-element block fall back: Qwen2 72B's ffn_down (29568) to Q5_0 and Q8_0",
          "[gguf_quant]") {
  const GgufQuantMix m = mix("qwen2-72b", F::q4_k_m);
  CHECK(m.fallbacks == 80);
  CHECK(type_of_tensor(m, "blk.0.ffn_down.weight") == "Q8_0");   // Q6_K → Q8_0
  CHECK(type_of_tensor(m, "blk.10.ffn_down.weight") == "Q5_0");  // Q4_K → Q5_0
  CHECK(count(m, "Q8_0") == 40);
  CHECK(count(m, "Q5_0") == 40);
  CHECK(count(m, "Q5_K") == 40);             // attn_v of a 70B-type Qwen2 (80 layers)
  CHECK(count(m, "Q6_K") == 41);             // output + 40 attn_v
  CHECK(count(m, "Q4_K") == 1 + 240 + 160);  // token_embd, attn_q/k/output, ffn_gate/up
  CHECK(count(m, "F32") == 161 + 240);       // norms, and the q/k/v biases
}

TEST_CASE("Gemma 3 1B: tied embeddings take the output's type, a 1152-wide row Q8_0/Q5_0", "[gguf_quant]") {
  const GgufQuantMix m = mix("gemma-3-1b", F::q4_k_m);
  // D = 1152 is not a multiple of 256: the tied token_embd goes to Q8_0 (output branch), attn_q/k/v
  // and ffn_gate/up fall back (Q4_K → Q5_0, Q6_K → Q8_0); attn_output (1024) and ffn_down (6912) keep
  // the mix. use_more_bits(i, 26): 13 of 26 layers.
  CHECK(type_of_tensor(m, "token_embd.weight") == "Q8_0");
  CHECK(type_of_tensor(m, "output.weight") == "(none)");
  CHECK(count(m, "Q8_0") == 1 + 13);
  CHECK(count(m, "Q5_0") == 13 + 52 + 52);
  CHECK(count(m, "Q4_K") == 26 + 13);
  CHECK(count(m, "Q6_K") == 13);
  CHECK(count(m, "F32") == 4 * 26 + 1 + 2 * 26);  // 4 norms per layer, output_norm, q/k norms
  CHECK(m.fallbacks == 13 + 13 + 52 + 52);
}

TEST_CASE("Gemma 2 9B: the tied token_embd is Q6_K under Q4_K_M, and there is no output tensor", "[gguf_quant]") {
  const GgufQuantMix m = mix("gemma-2-9b", F::q4_k_m);
  // use_more_bits(i, 42): i < 5, i >= 36, (i − 5) % 3 == 2: 21 of 42 layers.
  CHECK(type_of_tensor(m, "token_embd.weight") == "Q6_K");
  CHECK(count(m, "Q6_K") == 1 + 21 + 21);
  CHECK(count(m, "Q4_K") == 126 + 84 + 21 + 21);
  CHECK(count(m, "F32") == 4 * 42 + 1);
}

TEST_CASE("Mixtral 8x7B (8 experts): attn_v and attn_k Q8_0, attn_output Q5_K, the router F32", "[gguf_quant]") {
  const GgufQuantMix m = mix("mixtral-8x7b", F::q4_k_m);
  CHECK(type_of_tensor(m, "blk.5.attn_v.weight") == "Q8_0");
  CHECK(type_of_tensor(m, "blk.5.attn_k.weight") == "Q8_0");
  CHECK(type_of_tensor(m, "blk.5.attn_output.weight") == "Q5_K");
  CHECK(type_of_tensor(m, "blk.5.ffn_gate_inp.weight") == "F32");
  CHECK(type_of_tensor(m, "blk.3.ffn_down_exps.weight") == "Q6_K");  // layer from the name: use_more_bits(3, 32)
  CHECK(type_of_tensor(m, "blk.4.ffn_down_exps.weight") == "Q4_K");
  CHECK(count(m, "Q8_0") == 64);
  CHECK(count(m, "Q5_K") == 32);
  CHECK(count(m, "Q4_K") == 1 + 32 + 64 + 16);
  CHECK(count(m, "Q6_K") == 1 + 16);
  CHECK(count(m, "F32") == 65 + 32);
}

TEST_CASE("MXFP4_MOE: the experts in MXFP4, every other matrix Q8_0", "[gguf_quant]") {
  const GgufQuantMix m = mix("qwen3-30b-a3b", F::mxfp4_moe);
  CHECK(type_of_tensor(m, "blk.0.ffn_up_exps.weight") == "MXFP4");
  CHECK(type_of_tensor(m, "blk.0.attn_q.weight") == "Q8_0");
  CHECK(type_of_tensor(m, "output.weight") == "Q8_0");
  CHECK(count(m, "MXFP4") == 3 * 48);
}

TEST_CASE("An importance matrix changes the IQ4_XS mix; the 2-bit types need one", "[gguf_quant]") {
  // Without one, IQ4_XS gives the first eighth of ffn_down Q5_K; with one it keeps IQ4_XS.
  CHECK(type_of_tensor(mix("llama-3-8b", F::iq4_xs, false), "blk.0.ffn_down.weight") == "Q5_K");
  CHECK(type_of_tensor(mix("llama-3-8b", F::iq4_xs, true), "blk.0.ffn_down.weight") == "IQ4_XS");
  CHECK_THROWS_WITH(mix("llama-3-8b", F::iq2_xxs, false), Catch::Contains("needs an importance matrix"));
  CHECK(mix("llama-3-8b", F::iq2_xxs).imatrix);
  CHECK_FALSE(mix("llama-3-8b", F::iq4_xs).imatrix);  // llama-quantize's default: none
  CHECK(gguf_imatrix_changes_mix(F::iq4_xs));
  CHECK_FALSE(gguf_imatrix_changes_mix(F::q4_k_m));
}

TEST_CASE("GGUF type names: llama-quantize's, case-insensitive, with its q4_k/q5_k/q3_k aliases", "[gguf_quant]") {
  CHECK(gguf_file_type("Q4_K_M") == F::q4_k_m);
  CHECK(gguf_file_type("q4_k") == F::q4_k_m);
  CHECK(gguf_file_type("q3_k") == F::q3_k_m);
  CHECK(gguf_file_type("iq4_xs") == F::iq4_xs);
  CHECK(gguf_file_type("mxfp4") == F::mxfp4_moe);
  CHECK_FALSE(gguf_file_type("bf16"));  // napkin's own dtype
  CHECK_FALSE(gguf_file_type("q4_k_l"));
  CHECK(gguf_file_type_name(F::iq2_xxs) == "IQ2_XXS");
}

TEST_CASE("Models llama.cpp has no architecture for, encoders and bare counts are refused by name", "[gguf_quant]") {
  CHECK_THROWS_WITH(mix("opt-1.3b", F::q4_k_m), Catch::Contains("llama.cpp has no OPT architecture"));
  CHECK_THROWS_WITH(mix("bert-base-uncased", F::q4_k_m), Catch::Contains("BERT is an encoder"));
  CHECK_THROWS_WITH(gguf_quant_mix(napkin_test::real_config("t5-small"), F::q4_k_m),
                    Catch::Contains("T5 is an encoder-decoder"));
  CHECK_THROWS_WITH(gguf_quant_mix(napkin_test::real_config("minimax-m1-80k"), F::q8_0),
                    Catch::Contains("llama.cpp has no MiniMax-M1 architecture"));
  CHECK_THROWS_WITH(mix("opt-1.3b", F::q4_k_m), Catch::Contains("--weights-dtype"));
  CHECK_THROWS_AS(gguf_quant_mix(specs::bare_model(7'000'000'000), F::q4_k_m), InputError);
}

TEST_CASE("The architecture table gives the spec's llama-like layout, tensor by tensor, for every file type",
          "[gguf_quant]") {
  // Before issue 29 the covered layouts (llama, mistral, mixtral, qwen2, qwen2_moe, qwen3,
  // qwen3_moe, gemma2, gemma3_text) were built from the spec's fields; a spec without its table
  // (napkin model JSON) still is. The table's tensors, renamed, must give the same GGUF.
  for (const char* p : {"llama-2-7b", "llama-3.1-8b", "llama-3.1-70b", "mistral-7b", "mixtral-8x7b", "qwen2.5-7b",
                        "qwen2-72b", "qwen3-8b", "qwen3-30b-a3b", "qwen1.5-moe-a2.7b", "gemma-2-9b", "gemma-3-1b"}) {
    specs::ModelSpec with = specs::load_model_preset(p);
    REQUIRE(with.tensors);
    specs::ModelSpec without = with;
    without.tensors = nullptr;
    for (int i = 0; i <= static_cast<int>(F::mxfp4_moe); ++i) {
      const F t = static_cast<F>(i);
      if (t == F::tq1_0 || t == F::tq2_0) continue;  // ternary: no fallback for odd rows in some presets
      for (bool im : {false, true}) {
        if (gguf_needs_imatrix(t) && !im) continue;
        CAPTURE(p, gguf_file_type_name(t), im);
        std::optional<GgufQuantMix> a, b;
        try {
          a = gguf_quant_mix(with, t, im);
        } catch (const InputError&) {
        }
        try {
          b = gguf_quant_mix(without, t, im);
        } catch (const InputError&) {
        }
        REQUIRE(a.has_value() == b.has_value());
        if (!a) continue;
        REQUIRE(a->tensors.size() == b->tensors.size());
        CHECK(a->bytes == b->bytes);
        for (std::size_t k = 0; k < a->tensors.size(); ++k) {
          CHECK(a->tensors[k].name == b->tensors[k].name);
          CHECK(a->tensors[k].type == b->tensors[k].type);
          CHECK(a->tensors[k].bytes == b->tensors[k].bytes);
        }
      }
    }
  }
}

TEST_CASE("Every real config of a family llama.cpp supports converts: each tensor named, every parameter kept",
          "[gguf_quant]") {
  // tests/real-configs: the GGUF holds the checkpoint's language model, less its vision/audio tower
  // (a separate mmproj file), its multi-token-prediction layers (the converters skip them) and
  // Apertus' xIELU scalars (GGUF metadata).
  int converted = 0;
  for (const char* name :
       {"apertus-8b", "aya-expanse-8b", "baichuan-7b", "bloom-176b", "chatglm2-6b", "command-a-03-2025",
        "dbrx-instruct", "deepseek-moe-16b-base", "deepseek-v2-lite", "deepseek-v3", "dots.llm1.inst",
        "ernie-4.5-0.3b-pt", "ernie-4.5-21b-a3b", "exaone-3.5-7.8b-instruct", "exaone-4.0-32b", "falcon-180B-chat",
        "falcon-40b", "falcon-h1-7b-instruct", "falcon-mamba-7b", "gemma-3-12b-it", "gemma-3-4b-it",
        "glm-4-9b-chat", "glm-4.1v-9b-thinking", "glm-4.5", "glm-4.5-air", "glm-4.5v", "glm-4.7-flash", "gpt-j-6b",
        "gpt-oss-20b", "granite-3.1-1b-a400m-instruct", "granite-3.3-8b-instruct", "granite-4.0-h-small",
        "hunyuan-7b-instruct", "hunyuan-a13b-instruct", "internlm2_5-7b-chat", "jamba-v0.1", "kimi-k2-instruct",
        "kimi-linear-48b-a3b-instruct", "kimi-vl-a3b-instruct", "lfm2-1.2b", "lfm2-8b-a1b", "ling-mini-2.0",
        "llama-3_1-nemotron-ultra-253b-v1", "llama-3_3-nemotron-super-49b-v1", "llama-4-maverick-17b-128e-instruct",
        "llama-4-scout-17b-16e-instruct", "llava-1.5-7b-hf", "mamba-130m-hf", "mamba-2.8b-hf",
        "mamba-codestral-7b-v0.1", "mimo-7b-base", "minicpm3-4b", "minicpm4-8b", "minimax-m2",
        "ministral-3-8b-instruct-2512", "minitron-4b-base", "mpt-7b-instruct", "nemotron-h-8b-base-8k",
        "nvidia-nemotron-3-nano-30b-a3b", "nvidia-nemotron-nano-9b-v2", "olmo-2-1124-13b", "olmo-3-7b", "olmo-7b",
        "olmoe-1b-7b-0924", "phi-2", "phi-3-mini-4k-instruct", "phi-3.5-moe-instruct", "phi-4", "qwen-7b",
        "qwen1.5-moe-a2.7b", "qwen2-vl-7b-instruct", "qwen3-235b-a22b", "qwen3-next-80b-a3b-instruct",
        "qwen3-vl-30b-a3b-instruct", "qwen3.5-35b-a3b", "qwen3.5-27b", "seed-oss-36b-instruct", "smollm3-3b",
        "stablelm-2-1_6b", "starcoder2-15b", "starcoder2-3b", "trinity-mini", "wizardcoder-15b-v1.0"}) {
    CAPTURE(name);
    const specs::ModelSpec m = napkin_test::real_config(name);
    REQUIRE(m.tensors);
    CHECK(gguf_family_supported(m.tensors->family));
    // Q4_K_M (its fallbacks reach F16 for any row); gpt-oss's MXFP4 experts only to MXFP4_MOE.
    const GgufQuantMix q = gguf_quant_mix(m, m.quant_method == "mxfp4" ? F::mxfp4_moe : F::q4_k_m);
    const ParamCount c = count_params(m);
    std::int64_t dropped = 0;
    if (m.tensors->family == "apertus") dropped = 2 * m.layers;  // mlp.act_fn.alpha_n, alpha_p
    CHECK(q.elements == c.total - c.group(ParamGroup::vision) - dropped);
    for (const auto& t : q.tensors) {
      CAPTURE(t.name);
      CHECK((t.name.starts_with("blk.") || t.name.starts_with("token_embd") || t.name.starts_with("output") ||
             t.name.starts_with("position_embd") || t.name.starts_with("token_embd_norm")));
    }
    ++converted;
  }
  CHECK(converted == 83);
}

TEST_CASE("memory and serve --weights-dtype q4_k_m hold and read llama-quantize's bytes", "[gguf_quant][cli]") {
  const GgufQuantMix m8 = mix("llama-3-8b", F::q4_k_m);
  const std::string bytes = std::to_string(m8.bytes);
  // llama.cpp keeps token_embd in host memory: its GPU model buffer is the rest (CUDA0 model buffer).
  std::int64_t embd = 0;
  for (const GgufTensor& t : m8.tensors)
    if (t.name == "token_embd.weight") embd = t.bytes;
  REQUIRE(embd > 0);
  const auto gpu = napkin_test::run_napkin("memory llama-3-8b --weights-dtype Q4_K_M --engine llama.cpp --value weights");
  CHECK(gpu.out == std::to_string(m8.bytes - embd) + "\n");
  for (const char* args : {"memory llama-3-8b --weights-dtype q4_k_m --value weights",
                           "serve llama-3-8b --hw rtx-4090 --weights-dtype q4_k_m --value weights",
                           "serve llama-3-8b --hw rtx-4090 --weights-dtype q4_k --value weights"}) {
    CAPTURE(args);
    const auto r = napkin_test::run_napkin(args);
    CHECK(r.code == 0);
    CHECK(r.out == bytes + "\n");
  }
  // The bytes read per decoded token follow: Q8_0 reads more than Q4_K_M.
  const auto q4 = napkin_test::run_napkin("serve llama-3-8b --hw rtx-4090 --weights-dtype q4_k_m --value tokens_per_second");
  const auto q8 = napkin_test::run_napkin("serve llama-3-8b --hw rtx-4090 --weights-dtype q8_0 --value tokens_per_second");
  REQUIRE(q4.code == 0);
  REQUIRE(q8.code == 0);
  CHECK(std::stod(q4.out) > 1.5 * std::stod(q8.out));
}

TEST_CASE("Published GGUF file sizes beyond the Llama layout: Phi-4, Gemma 3 12B, gpt-oss-20b", "[gguf_quant]") {
  // bartowski/phi-4-GGUF README "Download a file" table (llama.cpp b4456, importance matrix; decimal
  // GB). Phi-4 is Phi3ForCausalLM: fused attn_qkv and gate_up (ffn_up of 2F rows).
  const specs::ModelSpec phi4 = specs::load_model_preset("phi-4");
  for (const auto& [t, gb] : {std::pair{F::q8_0, 15.58}, std::pair{F::q6_k, 12.03}, std::pair{F::q5_k_s, 10.15},
                              std::pair{F::q4_1, 9.27}, std::pair{F::q4_0, 8.41}})
    check_file_size(gguf_quant_mix(phi4, t, true), gb);
  // Where that b4456 file and llama.cpp 007dbbf part: since the tensor_category rewrite,
  // llama-quant.cpp's category_is_attn_v counts attn_qkv as attn_v, so the attn_v branch (taken
  // first) gives it Q6_K on use_more_bits layers only under Q5_K_M (b4456: Q6_K on all 40), Q6_K/Q4_K
  // by use_more_bits under Q4_K_M (b4456: Q5_K on all 40), Q5_K on the first 4 under Q4_K_S
  // (b4456: Q4_K), and Q5_K under IQ4_NL with n_gqa 4 (b4456: IQ4_NL). The published Q5_K_M 10.60 GB
  // is napkin's 10.50 GB plus half the qkv rows at Q6_K − Q5_K, and so on:
  const std::int64_t qkv = 40LL * 5120 * (5120 + 2 * 1280);
  CHECK(gguf_quant_mix(phi4, F::q4_k_m, true).bytes - qkv / 2 / 256 * (210 - 176) + qkv / 2 / 256 * (176 - 144) ==
        Approx(9.05e9).margin(15e6));
  CHECK(gguf_quant_mix(phi4, F::q5_k_m, true).bytes + qkv / 2 / 256 * (210 - 176) ==
        Approx(10.60e9).margin(15e6));
  CHECK(gguf_quant_mix(phi4, F::q4_k_s, true).bytes - 4 * (qkv / 40) / 256 * (176 - 144) ==
        Approx(8.44e9).margin(15e6));
  // stduhpf/google-gemma-3-12b-it-qat-q4_0-gguf-small README, its size table quoting
  // bartowski/google_gemma-3-12b-it-GGUF (importance matrix): Q4_0 6.91 GB (first eighth of
  // ffn_down Q4_1), Q5_K_S 8.23 GB, IQ3_XS 5.21 GB. Tied token_embd (262,144 × 3840) at Q6_K.
  const specs::ModelSpec g12 = specs::load_model_preset("gemma-3-12b");
  check_file_size(gguf_quant_mix(g12, F::q4_0, true), 6.91);
  check_file_size(gguf_quant_mix(g12, F::q5_k_s, true), 8.23);
  check_file_size(gguf_quant_mix(g12, F::iq3_xs, true), 5.21);
  // bartowski/openai_gpt-oss-20b-GGUF README: gpt-oss-20b-MXFP4.gguf 12.1 GB (MXFP4_MOE: the
  // experts as the checkpoint stores them, every other matrix Q8_0). One decimal: within 50 MB.
  CHECK(static_cast<double>(mix("gpt-oss-20b", F::mxfp4_moe).bytes) == Approx(12.1e9).margin(50e6));
}

TEST_CASE("Fused attn_qkv takes attn_v's rules (GPT-NeoX, Phi-3, Falcon); Falcon's own output and ffn_down rules",
          "[gguf_quant]") {
  // Pythia 1.4B: 24 layers of attention.query_key_value → blk.N.attn_qkv (3D rows of D): under
  // Q4_K_M, Q6_K on use_more_bits(i, 24): i < 3, i >= 21, (i − 3) % 3 == 2: 12 layers.
  const GgufQuantMix py = mix("pythia-1.4b", F::q4_k_m);
  CHECK(type_of_tensor(py, "blk.0.attn_qkv.weight") == "Q6_K");
  CHECK(type_of_tensor(py, "blk.3.attn_qkv.weight") == "Q4_K");
  CHECK(type_of_tensor(py, "blk.5.attn_qkv.weight") == "Q6_K");
  CHECK(type_of_tensor(py, "blk.0.attn_qkv.bias") == "F32");
  CHECK(type_of_tensor(py, "output.weight") == "Q6_K");     // embed_out, untied
  CHECK(type_of_tensor(py, "token_embd.weight") == "Q4_K");
  CHECK(count(py, "Q6_K") == 1 + 12 + 12);                   // output, attn_qkv, ffn_down
  // Phi-3 mini: qkv_proj → attn_qkv, gate_up_proj → one ffn_up of 2 × 8192 rows.
  const GgufQuantMix phi = mix("phi-3-mini", F::q4_k_m);
  CHECK(type_of_tensor(phi, "blk.0.attn_qkv.weight") == "Q6_K");
  CHECK(type_of_tensor(phi, "blk.0.ffn_up.weight") == "Q4_K");
  CHECK(type_of_tensor(phi, "blk.0.ffn_gate.weight") == "(none)");
  // Falcon 7B: the tied token_embd takes the output's rule, always Q8_0 for LLM_ARCH_FALCON; its
  // ffn_down under Q4_K_M: Q6_K below n/16, Q5_K on use_more_bits, else Q4_K (32 layers).
  const GgufQuantMix fa = mix("falcon-7b", F::q4_k_m);
  CHECK(type_of_tensor(fa, "token_embd.weight") == "Q8_0");
  CHECK(type_of_tensor(fa, "blk.0.ffn_down.weight") == "Q6_K");
  CHECK(type_of_tensor(fa, "blk.2.ffn_down.weight") == "Q5_K");
  CHECK(type_of_tensor(fa, "blk.4.ffn_down.weight") == "Q4_K");
  CHECK(type_of_tensor(fa, "blk.6.ffn_down.weight") == "Q5_K");
}

TEST_CASE("DeepSeek MLA: kv_b split into attn_k_b and attn_v_b, MQA head count, shared experts, GGUF names",
          "[gguf_quant]") {
  const GgufQuantMix m = mix("deepseek-v2-lite", F::q4_k_m);
  // conversion/deepseek.py: attn_k_b ne = [128 (nope), 512 (kv_lora), 16 heads] → rows of 128 fall
  // back (Q4_K → Q5_0); attn_v_b ne = [512, 128, 16] keeps Q4_K.
  CHECK(type_of_tensor(m, "blk.0.attn_k_b.weight") == "Q5_0");
  CHECK(type_of_tensor(m, "blk.0.attn_v_b.weight") == "Q4_K");
  CHECK(type_of_tensor(m, "blk.0.attn_kv_b.weight") == "(none)");
  CHECK(type_of_tensor(m, "blk.0.attn_kv_a_mqa.weight") == "Q4_K");
  // ffn_down rows of 10944 (dense layer 0) and 1408 (experts) are not multiples of 256: Q6_K → Q8_0
  // on use_more_bits layers (by the name's layer), Q4_K → Q5_0 elsewhere; the shared experts' 2816 fit.
  CHECK(type_of_tensor(m, "blk.0.ffn_down.weight") == "Q8_0");
  CHECK(type_of_tensor(m, "blk.1.ffn_down_exps.weight") == "Q8_0");
  CHECK(type_of_tensor(m, "blk.4.ffn_down_exps.weight") == "Q5_0");
  CHECK(type_of_tensor(m, "blk.1.ffn_down_shexp.weight") == "Q6_K");
  CHECK(type_of_tensor(m, "blk.1.ffn_gate_inp.weight") == "F32");
  // MXFP4_MOE takes every 3-D tensor to MXFP4 (tensor->ne[2] > 1): the experts, and MLA's k_b/v_b.
  const GgufQuantMix x = mix("deepseek-v2-lite", F::mxfp4_moe);
  CHECK(type_of_tensor(x, "blk.1.ffn_up_exps.weight") == "MXFP4");
  CHECK(type_of_tensor(x, "blk.1.attn_v_b.weight") == "MXFP4");
  CHECK(type_of_tensor(x, "blk.1.ffn_up_shexp.weight") == "Q8_0");
  // Every tensor carries its GGUF name: token_embd, output, output_norm, or blk.N.
  for (const auto& t : m.tensors)
    CHECK((t.name.starts_with("blk.") || t.name == "token_embd.weight" || t.name == "output.weight" ||
           t.name == "output_norm.weight"));
}

TEST_CASE("gpt-oss keeps its MXFP4 experts: MXFP4_MOE only, others refused as llama-quantize refuses to requantize",
          "[gguf_quant]") {
  CHECK(type_of_tensor(mix("gpt-oss-20b", F::mxfp4_moe), "blk.0.ffn_gate_exps.weight") == "MXFP4");
  CHECK(type_of_tensor(mix("gpt-oss-20b", F::mxfp4_moe), "blk.0.attn_sinks.weight") == "F32");
  CHECK_THROWS_WITH(mix("gpt-oss-20b", F::q4_k_m), Catch::Contains("--allow-requantize"));
  // A 16-bit checkpoint of it (no quantization_config) converts: the 2880-wide expert rows fall
  // back from Q4_K to Q5_0 and from Q6_K to Q8_0.
  specs::ModelSpec bf16 = specs::load_model_preset("gpt-oss-20b");
  bf16.quant_method.clear();
  const GgufQuantMix q = gguf_quant_mix(bf16, F::q4_k_m);
  CHECK(type_of_tensor(q, "blk.0.ffn_gate_exps.weight") == "Q5_0");
  CHECK(type_of_tensor(q, "blk.0.ffn_down_exps.weight") == "Q8_0");
}

TEST_CASE("State-space mixers: ssm_a, ssm_d and ssm_conv1d stay F32, ssm_in/ssm_x/ssm_out are quantized",
          "[gguf_quant]") {
  const GgufQuantMix m = gguf_quant_mix(napkin_test::real_config("mamba-2.8b-hf"), F::q4_k_m);
  CHECK(type_of_tensor(m, "blk.0.ssm_a") == "F32");
  CHECK(type_of_tensor(m, "blk.0.ssm_d") == "F32");
  CHECK(type_of_tensor(m, "blk.0.ssm_conv1d.weight") == "F32");
  CHECK(type_of_tensor(m, "blk.0.ssm_in.weight") == "Q4_K");
  CHECK(type_of_tensor(m, "blk.0.ssm_out.weight") == "Q4_K");
  CHECK(type_of_tensor(m, "blk.0.ssm_x.weight") == "Q4_K");
  // dt_rank 160: not a multiple of 256 (Q4_K → Q5_0, 160 = 5 × 32).
  CHECK(type_of_tensor(m, "blk.0.ssm_dt.weight") == "Q5_0");
}
