// Encoder-decoder families (T5, Flan-T5): the counts of the real checkpoints, the KV cache of the
// decoder's self- and cross-attention by hand, and the commands that refuse an encoder-decoder.
// tests/real-configs/<model>/SOURCE.md says where each config and each total come from.
//
// The count (modeling_t5.py T5ForConditionalGeneration), D = d_model, H = num_heads, d = d_kv,
// F = d_ff, B = relative_attention_num_buckets, MLP = 3·D·F gated ("gated-gelu"), 2·D·F ("relu"):
//   shared embedding V·D (encoder.embed_tokens and decoder.embed_tokens alias it: counted once)
//   + L_enc·(4·D·H·d + MLP + 2·D) + B·H + D          encoder, its relative bias and final norm
//   + L_dec·(8·D·H·d + MLP + 3·D) + B·H + D          decoder (self- and cross-attention)
//   + V·D when tie_word_embeddings is false          lm_head
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "napkin/ground/error.h"
#include "napkin/memory/ledgers.h"
#include "napkin/model/flops.h"
#include "napkin/model/params.h"
#include "napkin/plans/serve.h"
#include "napkin/specs/hf_config.h"
#include "real_configs.h"
#include "napkin/plans/train.h"

using namespace napkin;
using namespace napkin::units;
using napkin_test::kv_32k;

TEST_CASE("flan-t5-small: 8+8 gated layers of 6 heads × 64, untied head, give the checkpoint's 76,961,152",
          "[families]") {
  // 76,961,152: the parameters of google/flan-t5-small as loaded by transformers and counted
  // (sum of numel over model.parameters(), tied aliases once), SOURCE.md. By hand:
  // 32128·512 = 16,449,536 (shared) + 8·(4·512·384 + 3·512·1024 + 2·512) + 32·6 + 512 = 18,883,264
  // + 8·(8·512·384 + 3·512·1024 + 3·512) + 32·6 + 512 = 25,178,816 + 16,449,536 (lm_head).
  const auto m = napkin_test::real_config("flan-t5-small");
  CHECK(m.family == "t5");
  CHECK(m.encoder_decoder);
  CHECK(m.layers == 8);
  CHECK(m.decoder_layers == 8);
  CHECK(m.head_dim * m.heads == 384);  // inner width H·d_kv, not d_model
  const ParamCount c = count_params(m);
  CHECK(c.total == 16449536 + 18883264 + 25178816 + 16449536);
  CHECK(c.total == 76961152);
  CHECK(c.group(ParamGroup::head) == 16449536);
  // Decoder layers, 2 streams (self over the decoder's tokens, cross over the encoder's), 32768
  // tokens each, 2 (K, V) · 6 heads · 64 · 2 B.
  CHECK(kv_32k(m) == 8.0 * 2 * 32768 * (2 * 6 * 64 * 2));
}

TEST_CASE("flan-t5-base: 12+12 gated layers give the checkpoint's 247,577,856", "[families]") {
  const auto m = napkin_test::real_config("flan-t5-base");
  CHECK(count_params(m).total == 247577856);
  CHECK(kv_32k(m) == 12.0 * 2 * 32768 * (2 * 12 * 64 * 2));
}

TEST_CASE("flan-t5-large: 24+24 gated layers of width 2816 give the checkpoint's 783,150,080", "[families]") {
  const auto m = napkin_test::real_config("flan-t5-large");
  CHECK(count_params(m).total == 783150080);
}

TEST_CASE("flan-t5-xl: 24+24 gated layers of 32 heads give the checkpoint's 2,849,757,184", "[families]") {
  // 32128·2048 = 65,798,144 twice (shared, lm_head) + 24·(4·2048·2048 + 3·2048·5120 + 2·2048)
  // + 32·32 + 2048 + 24·(8·2048·2048 + 3·2048·5120 + 3·2048) + 32·32 + 2048.
  const auto m = napkin_test::real_config("flan-t5-xl");
  const ParamCount c = count_params(m);
  CHECK(c.total == 2 * 65798144LL + (24LL * (4 * 2048 * 2048 + 3 * 2048 * 5120 + 2 * 2048) + 32 * 32 + 2048) +
                       (24LL * (8 * 2048 * 2048 + 3 * 2048 * 5120 + 3 * 2048) + 32 * 32 + 2048));
  CHECK(c.total == 2849757184);
  // 24 decoder layers · (32768 + 32768) tokens · 2 · 32 · 64 · 2 B = 12 GiB.
  CHECK(kv_32k(m) == 24.0 * 65536 * 8192);
  CHECK(kv_32k(m) == 12.0 * 1024 * 1024 * 1024);
  CHECK(kv_bytes_per_token(m, Dtype::bf16).in(byte) == 24.0 * 8192);
}

TEST_CASE("flan-t5-xxl: 24+24 gated layers of 64 heads give the checkpoint's 11,135,332,352", "[families]") {
  const auto m = napkin_test::real_config("flan-t5-xxl");
  CHECK(count_params(m).total == 11135332352);
  CHECK(kv_32k(m) == 24.0 * 65536 * (2 * 64 * 64 * 2));
}

TEST_CASE("t5-small: relu MLP and the class default tied head give the checkpoint's 60,506,624", "[families]") {
  // The original config omits num_decoder_layers (= num_layers), feed_forward_proj ("relu") and
  // tie_word_embeddings (true): the head is the shared embedding, counted once.
  // 32128·512 + 6·(4·512·512 + 2·512·2048 + 2·512) + 32·8 + 512 + 6·(8·512·512 + 2·512·2048 + 3·512) + 32·8 + 512.
  const auto m = napkin_test::real_config("t5-small");
  CHECK(m.tied_embeddings);
  CHECK(m.decoder_layers == 6);
  CHECK(m.ffn_kind == specs::FfnKind::plain);
  const ParamCount c = count_params(m);
  CHECK(c.group(ParamGroup::head) == 0);
  CHECK(c.total == 32128LL * 512 + (6LL * (4 * 512 * 512 + 2 * 512 * 2048 + 2 * 512) + 32 * 8 + 512) +
                       (6LL * (8 * 512 * 512 + 2 * 512 * 2048 + 3 * 512) + 32 * 8 + 512));
  CHECK(c.total == 60506624);
  CHECK(kv_32k(m) == 6.0 * 2 * 32768 * (2 * 8 * 64 * 2));
}

TEST_CASE("t5-base: 12+12 relu layers, tied head, give the checkpoint's 222,903,552", "[families]") {
  const auto m = napkin_test::real_config("t5-base");
  CHECK(count_params(m).total == 222903552);
}

TEST_CASE("An encoder-decoder's params rows show each stack with its formula", "[families]") {
  const auto m = napkin_test::real_config("flan-t5-small");
  ResultSet rs;
  count_params(m, rs);
  REQUIRE(rs.find("encoder_params") != nullptr);
  REQUIRE(rs.find("decoder_params") != nullptr);
  CHECK(rs.find("encoder_params")->value.num == 18883264.0);
  CHECK(rs.find("decoder_params")->value.num == 25178816.0);
  CHECK(rs.find("encoder_layer_params")->value.num == 2360320.0);
  CHECK(rs.find("decoder_layer_params")->value.num == 3147264.0);
  CHECK(rs.find("dense_layer_params") == nullptr);  // no decoder-only rows
  // Read by data/architectures/t5.json: its tensors (the decoder's blocks after the encoder's)
  // give the formulas' count, group by group and block by block.
  REQUIRE(m.tensors != nullptr);
  CHECK(formulas_reproduce_tensors(m));
  CHECK(count_params(m).dense_layers == 16);
}

TEST_CASE("The inference ledger of an encoder-decoder holds all weights and the decoder's two KV streams",
          "[families]") {
  const auto m = napkin_test::real_config("flan-t5-xl");
  InferenceMemoryInput in;
  in.batch = 2.0 * one;
  in.context = 32768.0 * one;
  const InferenceMemory r = inference_memory(m, in);
  CHECK(r.weights.in(byte) == 2849757184.0 * 2);
  CHECK(r.kv_cache.in(byte) == 2 * 24.0 * 65536 * 8192);
  // TP and PP over the two stacks are not modelled: refused by name.
  in.tp = 2.0 * one;
  CHECK_THROWS_WITH(inference_memory(m, in), Catch::Contains("--tp: '2': expected 1 for the encoder-decoder"));
}

TEST_CASE("Commands that count a decoder-only model refuse an encoder-decoder, naming it and what works",
          "[families]") {
  const auto m = napkin_test::real_config("flan-t5-small");
  // "COMMAND: MODEL '...' is an encoder-decoder (t5), which COMMAND does not model (...); expected a
  // decoder-only model, or for an encoder-decoder napkin params and napkin memory (inference)"
  auto refusal = [](auto&& run) -> std::string {
    try {
      run();
    } catch (const InputError& e) {
      return e.what();
    }
    return "(not refused)";
  };
  const std::string tail = "is an encoder-decoder (t5), which ";
  const std::string works = "napkin params and napkin memory (inference)";
  for (const auto& [command, message] :
       {std::pair<std::string, std::string>{"serve", refusal([&] { serve(m, ServeInput{}); })},
        {"train", refusal([&] { train(m, TrainInput{}); })},
        {"flops train",
         refusal([&] {
           ResultSet rs;
           training_flops(m, std::nullopt, TrainingFlopsInput{}, rs);
         })},
        {"memory --train", refusal([&] { training_memory(m, TrainingMemoryInput{}); })},
        {"memory --min-gpus", refusal([&] {
           InferenceMemoryInput in;
           in.capacity = 80e9 * byte;
           min_gpus_inference(m, in, LayoutSearch{});
         })}}) {
    INFO(message);
    CHECK(message.starts_with(command + ": MODEL '"));
    CHECK(message.find(tail + command + " does not model") != std::string::npos);
    CHECK(message.find(works) != std::string::npos);
  }
}

TEST_CASE("The t5 reader refuses a feed_forward_proj transformers refuses, and --as t5 reads by analogy",
          "[families]") {
  nlohmann::json j = {{"model_type", "t5"},  {"d_model", 64},  {"num_layers", 2},   {"num_heads", 2},
                      {"d_kv", 32},          {"d_ff", 128},    {"vocab_size", 100}, {"feed_forward_proj", "gelu-gated"}};
  CHECK_THROWS_AS(specs::from_hf_config(j, "c.json"), InputError);
  j["feed_forward_proj"] = "gated-silu";
  CHECK(specs::from_hf_config(j, "c.json").ffn_kind == specs::FfnKind::gated);
  // An unknown model_type with T5's fields and is_encoder_decoder: refused with --as llama (it
  // would count a decoder only), read with --as t5 and said to be by analogy.
  j["model_type"] = "my_t5";
  j["is_encoder_decoder"] = true;
  CHECK_THROWS_WITH(specs::from_hf_config(j, "c.json", "llama"), Catch::Contains("an encoder-decoder key"));
  const auto m = specs::from_hf_config(j, "c.json", "t5");
  CHECK(m.encoder_decoder);
  CHECK(!m.analogy.empty());
}
