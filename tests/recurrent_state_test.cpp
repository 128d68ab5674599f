// Recurrent-state layers and sparse-attention indexers described by architecture tables (issue
// 28): the memory ledger keeps a fixed state per sequence for each linear-attention, Mamba-2 or
// short-convolution layer instead of a KV cache, split over TP by head, and DeepSeek Sparse
// Attention's indexer key beside the MLA cache. The figures are vLLM's own state shapes
// (vllm/model_executor/layers/mamba/mamba_utils.py MambaStateShapeCalculator:
// gated_delta_net_state_shape, kda_state_shape, linear_attention_state_shape,
// short_conv_state_shape, mamba2_state_shape) and dtypes (MambaStateDtypeCalculator:
// kda_state_dtype keeps the recurrent state in fp32).
#include <catch2/catch.hpp>

#include <string>

#include "napkin/ground/error.h"
#include "napkin/memory/ledgers.h"
#include "napkin/model/parallel.h"
#include "napkin/model/params.h"
#include "napkin/specs/hf_config.h"
#include "run_napkin.h"

using namespace napkin;
using namespace napkin::units;
using napkin_test::run_napkin;

namespace {

specs::ModelSpec real(const std::string& folder) {
  return specs::read_hf_config(std::string(NAPKIN_SOURCE_DIR) + "/tests/real-configs/" + folder + "/config.json");
}

InferenceMemory at(const specs::ModelSpec& m, double batch, double context, double tp = 1.0) {
  InferenceMemoryInput in;
  in.batch = batch * one;
  in.context = context * one;
  in.tp = tp * one;
  return inference_memory(m, in);
}

}  // namespace

TEST_CASE("a Gated DeltaNet layer keeps vLLM's conv and temporal state per sequence, split over TP",
          "[recurrent]") {
  // Qwen3-Next-80B-A3B: 16 key heads, 32 value heads of 128, conv kernel 4. vLLM:
  // conv (2·16·128 + 32·128 = 8192 channels) × 3 + temporal 32 × 128 × 128 = 548,864 elements,
  // 1,097,728 B in bf16 per layer (the same figure a public walk-through of vLLM's Qwen3.5
  // support prints for that default shape). 36 of its 48 layers are linear attention.
  const auto m = real("qwen3-next-80b-a3b-instruct");
  CHECK(m.recurrent_layers() == 36);
  CHECK(m.recurrent.kind == "Gated DeltaNet");
  CHECK(recurrent_state_per_layer(m).in(byte) == 1097728.0);
  const InferenceMemory one_gpu = at(m, 4, 8192);
  CHECK(one_gpu.ssm_state.in(byte) == 4.0 * 36.0 * 1097728.0);
  // The 12 full-attention layers alone cache K and V: 2 · 12 · 2 · 256 · 8192 · 4 · 2 B.
  CHECK(one_gpu.kv_cache.in(byte) == 2.0 * 12 * 2 * 256 * 8192 * 4 * 2);
  // TP 2 halves the state (heads split) and the KV heads.
  CHECK(at(m, 4, 8192, 2).ssm_state.in(byte) == 2.0 * 36.0 * 1097728.0);
  // The state does not grow with the context.
  CHECK(at(m, 4, 65536).ssm_state.in(byte) == one_gpu.ssm_state.in(byte));
}

TEST_CASE("Kimi Delta Attention keeps three short-convolution windows and an fp32 state", "[recurrent]") {
  // Kimi-Linear-48B-A3B: 32 KDA heads of 128, short conv kernel 4; vLLM kda_state_shape:
  // q, k, v convs of 4096 channels × 3, recurrent 32 × 128 × 128 in float32.
  const auto m = real("kimi-linear-48b-a3b-instruct");
  CHECK(m.recurrent.state_fp32);
  CHECK(recurrent_state_per_layer(m).in(byte) == 3.0 * 4096 * 3 * 2 + 32.0 * 128 * 128 * 4);
  CHECK(m.recurrent_layers() == 20);
}

TEST_CASE("lightning attention keeps a head_dim × head_dim state per head and no convolution", "[recurrent]") {
  // MiniMax-M1: 64 heads of 128 (vLLM linear_attention_state_shape), 16-bit; 70 of 80 layers.
  const auto m = real("minimax-m1-80k");
  CHECK(recurrent_state_per_layer(m).in(byte) == 64.0 * 128 * 128 * 2);
  CHECK(m.recurrent_layers() == 70);
}

TEST_CASE("a short-convolution layer keeps K - 1 inputs of the hidden width", "[recurrent]") {
  // LFM2-1.2B: conv_L_cache 3 over hidden 2048 (vLLM short_conv_state_shape), 10 conv layers.
  const auto m = real("lfm2-1.2b");
  CHECK(recurrent_state_per_layer(m).in(byte) == 2.0 * 2048 * 2);
  CHECK(m.recurrent_layers() == 10);
}

TEST_CASE("a Mamba-2 layer of a table keeps its conv window and state; TP must divide its groups", "[recurrent]") {
  // Granite-4.0-H-Small: d_inner 2·4096 = 8192, 1 group, state 128, conv 4: conv (8192 + 2·128)
  // × 3 + 8192 · 128 elements at 2 B.
  const auto m = real("granite-4.0-h-small");
  CHECK(recurrent_state_per_layer(m).in(byte) == ((8192.0 + 256) * 3 + 8192.0 * 128) * 2);
  // vLLM replicates a single group over TP ranks (extra_groups_for_head_shards), which napkin
  // does not model: TP 2 is refused, not sized wrong.
  CHECK_THROWS_WITH(at(m, 1, 8192, 2), Catch::Contains("a divisor of 1, the heads (or groups) TP splits"));
}

TEST_CASE("DeepSeek Sparse Attention caches the indexer's fp8 key beside the MLA latent", "[recurrent]") {
  // DeepSeek-V3.2: per token and layer (512 + 64) · 2 B of MLA latent plus 128 fp8 bytes and one
  // fp32 scale (DeepSeek-V3.2-Exp inference/model.py Indexer), 61 layers.
  const auto m = real("deepseek-v3.2");
  CHECK(indexer_bytes_per_token_per_layer(m).in(byte) == 132.0);
  CHECK(kv_bytes_per_token(m, Dtype::bf16).in(byte) == 61.0 * (576 * 2 + 132));
  CHECK(at(m, 2, 4096).kv_cache.in(byte) == 2.0 * 4096 * 61 * (576 * 2 + 132));
}

TEST_CASE("commands without a recurrent or sparse-attention model refuse it by name", "[recurrent]") {
  const std::string dir = std::string(NAPKIN_SOURCE_DIR) + "/tests/real-configs/";
  const auto serve = run_napkin("serve " + dir + "qwen3.5-27b/config.json --hw h100-sxm");
  CHECK(serve.code == 2);
  CHECK(serve.out.find("48 Gated DeltaNet layers (a recurrent state per sequence): serve's per-op cost model") !=
        std::string::npos);
  const auto train = run_napkin("train " + dir + "glm-5/config.json --hw h100-sxm --gpus 64 --tokens 1T");
  CHECK(train.code == 2);
  CHECK(train.out.find("DeepSeek Sparse Attention (an indexer of 32 heads") != std::string::npos);
  const auto vllm = run_napkin("memory " + dir + "lfm2-1.2b/config.json --engine vllm --hw h100-sxm");
  CHECK(vllm.code == 2);
  CHECK(vllm.out.find("10 short convolution layers") != std::string::npos);
  // memory and flops size them.
  CHECK(run_napkin("memory " + dir + "qwen3.5-27b/config.json --context 8192").code == 0);
  CHECK(run_napkin("flops train " + dir + "deepseek-v3.2/config.json --tokens 1T").code == 0);
}

TEST_CASE("per-layer KV shapes: Gemma 4's full layers of global_head_dim and its KV-shared layers", "[recurrent]") {
  // Gemma-4-31B: 50 sliding layers of 16 KV heads × 256 and 10 full layers of
  // num_global_key_value_heads 4 × global_head_dim 512 (transformers modeling_gemma4.py), K and
  // V both cached: (50·16·256 + 10·4·512) · 2 · 2 B = 901,120 B per token before the windows.
  const auto m = real("gemma-4-31b-it");
  CHECK(kv_bytes_per_token(m, Dtype::bf16).in(byte) == (50.0 * 16 * 256 + 10.0 * 4 * 512) * 2 * 2);
  // At 32768 tokens the sliding layers keep their 1024-token window, the full layers everything.
  CHECK(at(m, 1, 32768).kv_cache.in(byte) == (50.0 * 16 * 256 * 2 * 1024 + 10.0 * 4 * 512 * 2 * 32768) * 2);
  CHECK(at(m, 1, 32768, 2).kv_cache.in(byte) == at(m, 1, 32768).kv_cache.in(byte) / 2);
  // TP 8 would replicate the full layers' 4 KV heads: refused, not sized wrong.
  CHECK_THROWS_WITH(at(m, 1, 8192, 8), Catch::Contains("KV heads"));
  // Gemma-4-E4B: the last 18 of 42 layers read an earlier layer's cache and keep none.
  const auto e4b = real("gemma-4-e4b-it");
  int own = 0;
  for (std::int64_t l = 0; l < e4b.layers; ++l) own += e4b.kv_width(l) > 0 ? 1 : 0;
  CHECK(own == 24);
  const auto serve = run_napkin("serve " + std::string(NAPKIN_SOURCE_DIR) +
                                "/tests/real-configs/gemma-4-31b-it/config.json --hw h100-sxm");
  CHECK(serve.code == 2);
  CHECK(serve.out.find("layers of different KV shapes or KV-shared layers") != std::string::npos);
}

TEST_CASE("per-layer KV heads: Nemotron-NAS blocks without attention keep no cache", "[recurrent]") {
  // Llama-3.3-Nemotron-Super-49B: 49 of its 80 blocks attend, each with 64 / 8 = 8 KV heads of 128.
  const auto m = real("llama-3_3-nemotron-super-49b-v1");
  CHECK(kv_bytes_per_token(m, Dtype::bf16).in(byte) == 49.0 * 2 * 8 * 128 * 2);
}
