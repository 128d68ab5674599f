#include "engine_flags.h"

#include "check_failure.h"
#include "napkin/ground/error.h"

namespace napkin::cli {

void add_engine_option(CommandApp* sub, std::string& engine) {
  sub->add_option("--engine", engine, "Whose allocation the ledger follows: none (default, engine-neutral), "
                                      "llama.cpp, vllm, sglang")
      ->type_name("none|llama.cpp|vllm|sglang")
      ->group("Engine");
}

Engine parse_engine(const std::string& text) {
  if (text.empty() || text == "none") return Engine::none;
  if (text == "llama.cpp" || text == "llamacpp" || text == "llama-cpp") return Engine::llamacpp;
  if (text == "vllm") return Engine::vllm;
  if (text == "sglang") return Engine::sglang;
  throw InputError("--engine", text, "none, llama.cpp, vllm or sglang");
}

void add_llamacpp_flags(CommandApp* sub, NumericFlags& nf, LlamaCppFlags& f, bool add_flash_attention) {
  const DimRt count = dim_rt<Count::dim>();
  sub->add_option("--v-dtype", f.v_dtype, "llama.cpp V cache type (-ctv; default: --kv-dtype's): f16, bf16, f32, "
                                          "q8_0, q4_0, q4_1, q5_0, q5_1, iq4_nl")
      ->type_name("TYPE")
      ->group("Engine");
  f.ubatch = nf.add(sub, "--ubatch", "ubatch", count, Constraint::positive_integer,
                    "llama.cpp physical batch (-ub) the compute buffer is reserved for (default 512)", "COUNT", 512.0);
  f.parallel = nf.add(sub, "--parallel", "parallel", count, Constraint::positive_integer,
                      "llama.cpp slots (-np): --context is their total, one cache stream per slot (default 1)",
                      "COUNT", 1.0);
  sub->get_option("--ubatch")->group("Engine");
  sub->get_option("--parallel")->group("Engine");
  sub->add_flag("--swa-full", f.swa_full, "llama.cpp --swa-full: sliding-window layers cache the whole context")
      ->group("Engine");
  sub->add_flag("--kv-unified", f.kv_unified,
                "llama.cpp --kv-unified: the --parallel slots share one cache of --context cells (each may use all)")
      ->group("Engine");
  if (add_flash_attention)
    sub->add_flag("--flash-attention", f.flash_attention, "llama.cpp -fa on (the default)")->group("Engine");
  sub->add_flag("--no-flash-attention", f.no_flash_attention,
                "llama.cpp -fa off: the attention scores are materialised in the compute buffer")
      ->group("Engine");
}

void check_engine_flags(CommandApp* sub, Engine engine, std::initializer_list<const char*> not_with_llamacpp) {
  const auto given = [&](const char* flag) { return sub->get_option(flag)->count() > 0; };
  if (engine != Engine::llamacpp) {
    for (const char* flag :
         {"--v-dtype", "--ubatch", "--parallel", "--swa-full", "--kv-unified", "--no-flash-attention"})
      if (given(flag)) throw InputError(flag, "(given)", "--engine llama.cpp with it (a llama.cpp setting)");
    return;
  }
  for (const char* flag : not_with_llamacpp)
    if (given(flag))
      throw InputError(flag, "(with --engine llama.cpp)",
                       "the llama.cpp flags instead (--context is -c, --parallel -np, --ubatch -ub; one GPU)");
  if (given("--flash-attention") && given("--no-flash-attention"))
    throw InputError("--no-flash-attention", "(with --flash-attention)", "one of them");
}

void fill_llamacpp_input(CommandApp* sub, const std::string& kv_dtype, const LlamaCppFlags& f, LlamaCppInput& in) {
  in.type_k = sub->get_option("--kv-dtype")->count() > 0 ? parse_cache_type(kv_dtype, "--kv-dtype") : CacheType::f16;
  in.type_v = f.v_dtype.empty() ? in.type_k : parse_cache_type(f.v_dtype, "--v-dtype");
  in.flash_attention = !f.no_flash_attention;
  in.swa_full = f.swa_full;
  in.kv_unified = f.kv_unified;
  if (!in.flash_attention && cache_type_block(in.type_v) > 1)
    throw InputError(f.v_dtype.empty() ? "--kv-dtype" : "--v-dtype", std::string(cache_type_name(in.type_v)),
                     "f16, bf16 or f32 with --no-flash-attention (llama.cpp: V cache quantization requires flash_attn)");
}

std::string llamacpp_failure(const ResultSet& rs) {
  const Item* f = rs.find("fits");
  if (f == nullptr || f->value.flag) return "";
  return "does not fit: llama.cpp fails to allocate its buffers with every layer on the GPU (-ngl 99; the model "
         "does not load): " + fit_failure(rs) + "; lower --context or --parallel, or quantize the weights or the KV cache";
}

Dtype kv_read_dtype(CacheType k, CacheType v) {
  const auto of = [](CacheType t) {
    switch (t) {
      case CacheType::f32: return Dtype::fp32;
      case CacheType::f16: return Dtype::fp16;
      case CacheType::bf16: return Dtype::bf16;
      case CacheType::q8_0: return Dtype::int8;
      default: return Dtype::int4;
    }
  };
  return dtype_bits(of(k)) >= dtype_bits(of(v)) ? of(k) : of(v);
}

void llamacpp_ledger(LlamaCppInput li, const specs::ModelSpec& m, InferenceMemoryInput weights, ResultSet& rs,
                     bool serve) {
  weights.batch = 1.0 * units::one;
  weights.context = 1.0 * units::one;
  weights.tp = weights.pp = 1.0 * units::one;
  weights.capacity.reset();
  li.weights = inference_memory(m, weights).weights;
  if (weights.stored_weights) {
    li.weights_symbolic = "the tensors' stored bytes";
    li.weights_detail = weights.stored_detail;
    li.weights_source = rs.keep("weights as stored in " + std::string(weights.stored_source) + ": " +
                                std::string(weights.stored_detail) + ", every tensor on the GPU (-ngl 99)");
  } else {
    li.weights_symbolic = "P · bits/8 (napkin memory's weights row)";
    li.weights_detail = rs.keep(std::string(dtype_name(weights.weights_dtype)) + " weights");
    li.weights_source = rs.keep("weights stored in " + std::string(dtype_name(weights.weights_dtype)) +
                                " (napkin's weights row), every tensor on the GPU (-ngl 99)");
  }
  if (serve)
    llamacpp_serve_ledger(m, li, rs);
  else
    llamacpp_memory(m, li, rs);
}

}  // namespace napkin::cli
