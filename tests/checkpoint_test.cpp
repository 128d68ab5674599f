// Shared checkpoint code (src/specs/checkpoint.cpp): tensor_group, find_checkpoint,
// read_checkpoint.
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "checkpoint_files.h"
#include "napkin/specs/checkpoint.h"

using napkin::specs::find_checkpoint;
using napkin::specs::read_checkpoint;
using napkin::specs::tensor_group;
using napkin::test::input_error;
using napkin::test::TempDir;
using napkin::test::write_file;
using napkin::test::write_safetensors;

namespace {
struct Case {
  const char* name;
  const char* group;
};

void check_groups(std::initializer_list<Case> cases) {
  for (const Case& c : cases) {
    CAPTURE(c.name);
    CHECK(tensor_group(c.name) == c.group);
  }
}
}  // namespace

TEST_CASE("tensor_group sorts Llama, Mistral, Qwen and Gemma safetensors names",
          "[checkpoint][specs]") {
  check_groups({
      {"model.embed_tokens.weight", "embedding"},
      {"model.layers.0.self_attn.q_proj.weight", "attention"},
      {"model.layers.0.self_attn.k_proj.bias", "attention"},
      {"model.layers.0.self_attn.o_proj.weight", "attention"},
      {"model.layers.0.self_attn.q_norm.weight", "norm"},  // Qwen3
      {"model.layers.0.mlp.gate_proj.weight", "mlp"},
      {"model.layers.0.mlp.up_proj.weight", "mlp"},
      {"model.layers.0.mlp.down_proj.weight", "mlp"},
      {"model.layers.0.input_layernorm.weight", "norm"},
      {"model.layers.0.post_attention_layernorm.weight", "norm"},
      {"model.layers.0.pre_feedforward_layernorm.weight", "norm"},  // Gemma 2
      {"model.norm.weight", "norm"},
      {"lm_head.weight", "head"},
      {"model.layers.0.self_attn.rotary_emb.inv_freq", "other"},  // a buffer
      {"model.layers.0.self_attn.qkv_proj.weight", "attention"},  // Phi-3
      {"model.layers.0.mlp.gate_up_proj.weight", "mlp"},          // Phi-3
  });
}

TEST_CASE("tensor_group sorts Mixtral, Qwen-MoE and DeepSeek safetensors names",
          "[checkpoint][specs]") {
  check_groups({
      {"model.layers.0.block_sparse_moe.gate.weight", "router"},
      {"model.layers.0.block_sparse_moe.experts.7.w1.weight", "experts"},
      {"model.layers.0.block_sparse_moe.experts.7.w2.weight", "experts"},
      {"model.layers.0.mlp.gate.weight", "router"},
      {"model.layers.0.mlp.experts.12.gate_proj.weight", "experts"},
      {"model.layers.0.mlp.shared_expert.up_proj.weight", "experts"},
      {"model.layers.0.mlp.shared_experts.down_proj.weight", "experts"},
      {"model.layers.0.mlp.shared_expert_gate.weight", "router"},
      {"model.layers.3.mlp.gate.e_score_correction_bias", "router"},
      {"model.layers.0.self_attn.kv_a_proj_with_mqa.weight", "attention"},
      {"model.layers.0.self_attn.kv_a_layernorm.weight", "norm"},
      {"model.layers.0.self_attn.kv_b_proj.weight", "attention"},
      {"model.layers.0.self_attn.q_a_proj.weight", "attention"},
      {"model.layers.0.self_attn.q_a_layernorm.weight", "norm"},
      {"model.layers.0.self_attn.q_b_proj.weight", "attention"},
      {"model.layers.0.mlp.experts.gate_up_proj", "experts"},  // packed experts (GPT-OSS)
      {"model.layers.0.mlp.router.weight", "router"},
  });
}

TEST_CASE("tensor_group sorts GPT-2, GPT-NeoX, OPT, Falcon and BERT safetensors names",
          "[checkpoint][specs]") {
  check_groups({
      {"wte.weight", "embedding"},
      {"wpe.weight", "embedding"},
      {"h.0.ln_1.weight", "norm"},
      {"h.0.attn.c_attn.weight", "attention"},
      {"h.0.attn.c_proj.bias", "attention"},
      {"h.0.attn.bias", "other"},  // GPT-2's causal mask buffer
      {"h.0.mlp.c_fc.weight", "mlp"},
      {"h.0.mlp.c_proj.weight", "mlp"},
      {"ln_f.bias", "norm"},
      {"gpt_neox.embed_in.weight", "embedding"},
      {"gpt_neox.layers.0.attention.query_key_value.weight", "attention"},
      {"gpt_neox.layers.0.attention.dense.bias", "attention"},
      {"gpt_neox.layers.0.attention.bias", "other"},
      {"gpt_neox.layers.0.attention.masked_bias", "other"},
      {"gpt_neox.layers.0.mlp.dense_h_to_4h.weight", "mlp"},
      {"gpt_neox.final_layer_norm.weight", "norm"},
      {"embed_out.weight", "head"},
      {"model.decoder.embed_positions.weight", "embedding"},
      {"model.decoder.layers.0.self_attn_layer_norm.weight", "norm"},
      {"model.decoder.layers.0.fc1.weight", "mlp"},
      {"model.decoder.project_in.weight", "other"},
      {"transformer.word_embeddings.weight", "embedding"},
      {"transformer.h.0.self_attention.query_key_value.weight", "attention"},
      {"transformer.h.0.ln_attn.weight", "norm"},
      {"bert.embeddings.word_embeddings.weight", "embedding"},
      {"bert.embeddings.token_type_embeddings.weight", "embedding"},
      {"bert.embeddings.LayerNorm.weight", "norm"},
      {"bert.embeddings.position_ids", "other"},
      {"bert.encoder.layer.0.attention.self.query.weight", "attention"},
      {"bert.encoder.layer.0.attention.output.dense.weight", "attention"},
      {"bert.encoder.layer.0.attention.output.LayerNorm.bias", "norm"},
      {"bert.encoder.layer.0.intermediate.dense.weight", "mlp"},
      {"bert.encoder.layer.0.output.dense.weight", "mlp"},
      {"bert.pooler.dense.weight", "other"},
      {"cls.predictions.transform.dense.weight", "head"},
      {"layers.0.attention.wq.weight", "attention"},  // Meta's consolidated files
      {"layers.0.feed_forward.w1.weight", "mlp"},
      {"output.weight", "head"},
      {"tok_embeddings.weight", "embedding"},
  });
}

TEST_CASE("tensor_group sorts llama.cpp gguf tensor names", "[checkpoint][specs]") {
  check_groups({
      {"token_embd.weight", "embedding"},
      {"position_embd.weight", "embedding"},
      {"blk.0.attn_norm.weight", "norm"},
      {"blk.0.attn_q.weight", "attention"},
      {"blk.0.attn_k.weight", "attention"},
      {"blk.0.attn_v.weight", "attention"},
      {"blk.0.attn_output.weight", "attention"},
      {"blk.0.attn_qkv.weight", "attention"},
      {"blk.0.attn_kv_a_mqa.weight", "attention"},
      {"blk.0.attn_kv_a_norm.weight", "norm"},
      {"blk.0.attn_q_norm.weight", "norm"},
      {"blk.0.ffn_norm.weight", "norm"},
      {"blk.0.ffn_gate.weight", "mlp"},
      {"blk.0.ffn_up.weight", "mlp"},
      {"blk.0.ffn_down.weight", "mlp"},
      {"blk.0.ffn_gate_inp.weight", "router"},
      {"blk.0.ffn_gate_inp_shexp.weight", "router"},
      {"blk.0.exp_probs_b.bias", "router"},
      {"blk.0.ffn_gate_exps.weight", "experts"},
      {"blk.0.ffn_down_exps.weight", "experts"},
      {"blk.0.ffn_up_shexp.weight", "experts"},
      {"output_norm.weight", "norm"},
      {"output.weight", "head"},
      {"rope_freqs.weight", "other"},
  });
}

TEST_CASE("find_checkpoint picks the index, else the one safetensors or gguf file",
          "[checkpoint][specs]") {
  TempDir dir;
  CHECK_FALSE(find_checkpoint(dir.path()).has_value());
  CHECK(input_error([&] { read_checkpoint(dir.path()); }) ==
        dir.path().string() + ": holds no *.safetensors.index.json, .safetensors or .gguf file");
  write_file(dir / "config.json", "{}");
  write_file(dir / "model.gguf", "GGUF");
  CHECK(find_checkpoint(dir.path()) == dir / "model.gguf");
  write_safetensors(dir / "model.safetensors", "{}", 0);
  CHECK(find_checkpoint(dir.path()) == dir / "model.safetensors");
  write_file(dir / "model.safetensors.index.json", "{}");
  CHECK(find_checkpoint(dir.path()) == dir / "model.safetensors.index.json");
}

TEST_CASE("read_checkpoint refuses a checkpoint without weights rather than count 0 at 0/0 bits",
          "[checkpoint][specs]") {
  TempDir dir;
  SECTION("an empty safetensors header") {
    write_safetensors(dir / "model.safetensors", "{}", 0);
    CHECK(input_error([&] { read_checkpoint(dir / "model.safetensors"); }) ==
          "model.safetensors: no tensors; expected a checkpoint with weights");
  }
  SECTION("a header of __metadata__ alone") {
    write_safetensors(dir / "model.safetensors", R"({"__metadata__": {"format": "pt"}})", 0);
    CHECK(input_error([&] { read_checkpoint(dir / "model.safetensors"); }) ==
          "model.safetensors: no tensors; expected a checkpoint with weights");
  }
  SECTION("only empty tensors") {
    write_safetensors(dir / "model.safetensors",
                      R"({"a": {"dtype": "F16", "shape": [0, 8], "data_offsets": [0, 0]},
                          "b": {"dtype": "F32", "shape": [0], "data_offsets": [0, 0]}})",
                      0);
    CHECK(input_error([&] { read_checkpoint(dir / "model.safetensors"); }) ==
          "model.safetensors: 2 tensor(s), all empty (0 elements); expected a checkpoint with weights");
  }
  SECTION("a GGUF file without tensors (a vocab-only file)") {
    napkin::test::GgufBuilder g;
    g.kv("general.architecture", napkin::test::gguf_types::STRING).str("llama");
    write_file(dir / "vocab.gguf", g.build());
    CHECK(input_error([&] { read_checkpoint(dir / "vocab.gguf"); }) ==
          "vocab.gguf: no tensors; expected a checkpoint with weights");
  }
}

TEST_CASE("tensor_group splits GPT-2's 124,439,808 parameters into embedding, attention, mlp "
          "and norm",
          "[checkpoint][specs]") {
  // GPT-2 small (openai-community/gpt2): D = 768, 12 layers, V = 50257, 1024 positions; the
  // tensor names and shapes of its safetensors file, Conv1D weights stored [in, out].
  struct Tensor {
    std::string name;
    std::uint64_t elements;
  };
  std::vector<Tensor> tensors = {{"wte.weight", 50257ull * 768},
                                 {"wpe.weight", 1024ull * 768},
                                 {"ln_f.weight", 768},
                                 {"ln_f.bias", 768}};
  for (int l = 0; l < 12; ++l) {
    const std::string h = "h." + std::to_string(l) + ".";
    for (const Tensor& t : std::initializer_list<Tensor>{
             {"ln_1.weight", 768}, {"ln_1.bias", 768}, {"attn.c_attn.weight", 768ull * 2304},
             {"attn.c_attn.bias", 2304}, {"attn.c_proj.weight", 768ull * 768},
             {"attn.c_proj.bias", 768}, {"ln_2.weight", 768}, {"ln_2.bias", 768},
             {"mlp.c_fc.weight", 768ull * 3072}, {"mlp.c_fc.bias", 3072},
             {"mlp.c_proj.weight", 3072ull * 768}, {"mlp.c_proj.bias", 768}})
      tensors.push_back({h + t.name, t.elements});
  }
  std::map<std::string, std::uint64_t> groups;
  std::uint64_t total = 0;
  for (const Tensor& t : tensors) {
    groups[std::string(tensor_group(t.name))] += t.elements;
    total += t.elements;
  }
  CHECK(total == 124'439'808);
  CHECK(groups == std::map<std::string, std::uint64_t>{{"embedding", 39'383'808},
                                                       {"attention", 28'348'416},
                                                       {"mlp", 56'669'184},
                                                       {"norm", 38'400}});
}
