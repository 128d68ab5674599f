// See weight_storage.h.
#include "weight_storage.h"

#include <fmt/format.h>

#include <cctype>

#include "napkin/ground/error.h"
#include "napkin/model/gguf_quant.h"
#include "napkin/model/params.h"
#include "napkin/specs/checkpoint.h"
#include "napkin/specs/files.h"
#include "napkin/specs/hf_cache.h"
#include "model_arg.h"
#include "safe_output.h"

namespace napkin::cli {

namespace {

// The checkpoint MODEL names beside its config: a model directory, or a checkpoint file.
// A repository id is its snapshot in the Hugging Face cache, when one is there.
std::optional<specs::StoredWeights> checkpoint_in(const std::string& model_arg) {
  const specs::FileStatus status = specs::file_status(model_arg);
  if (status.kind == specs::FileKind::directory ||
      (status.kind == specs::FileKind::regular && is_checkpoint_path(model_arg)))
    return specs::stored_weights(model_arg);
  if (status.kind == specs::FileKind::missing)
    if (const auto ref = specs::parse_repo_id(model_arg))
      if (const auto found = specs::find_in_hub_cache(*ref, specs::HubEnv::from_environment()); found.snapshot)
        return specs::stored_weights(*found.snapshot);
  return std::nullopt;
}

}  // namespace

namespace {
bool is_nvfp4(const std::string& text) {
  std::string t(text);
  for (char& ch : t) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return t == "nvfp4";
}
}  // namespace

Dtype parse_weights_dtype(const std::string& text) {
  if (is_gguf_weights(text)) return Dtype::bf16;
  if (is_nvfp4(text)) return Dtype::fp4;
  try {
    return parse_dtype(text, "--weights-dtype");
  } catch (const InputError& e) {
    throw InputError("--weights-dtype", text,
                     e.expected() + ", nvfp4, or a llama.cpp GGUF type: " + gguf_file_type_names());
  }
}

bool is_gguf_weights(const std::string& text) { return gguf_file_type(text).has_value(); }

void refuse_gguf_weights(const std::string& text, std::string_view what) {
  if (is_gguf_weights(text))
    throw InputError("--weights-dtype", text,
                     fmt::format("MODEL (a preset or config.json) with a GGUF type: llama-quantize's per-tensor types "
                                 "need the model's tensors, which {} does not name",
                                 what));
}

namespace {

// --weights-dtype as a llama-quantize file type: the bytes of the GGUF it would write.
WeightStorage gguf_storage(CommandApp* sub, const std::string& weights_dtype, const specs::ModelSpec& m,
                           const NumericFlag& group) {
  const GgufFileType t = *gguf_file_type(weights_dtype);
  const std::string expected = "no {} with --weights-dtype " + weights_dtype +
                               " (a GGUF type: llama-quantize's blocks carry their own scales, and it quantizes "
                               "what llama.cpp's rules say)";
  if (!group.raw.empty()) throw InputError("--group-size", group.raw, fmt::format(fmt::runtime(expected), "--group-size"));
  for (const char* flag : {"--zero-points", "--quantize-all"})
    if (const CLI::Option* o = sub->get_option_no_throw(flag); o != nullptr && o->count() > 0)
      throw InputError(flag, "(given)", fmt::format(fmt::runtime(expected), flag));
  const GgufQuantMix mix = gguf_quant_mix(m, t);
  WeightStorage w;
  w.dtype = Dtype::bf16;  // the matmuls dequantize to 16 bits
  w.stored = static_cast<double>(mix.bytes) * units::byte;
  const char* imatrix = mix.imatrix                     ? " with an importance matrix, which this type needs"
                        : gguf_imatrix_changes_mix(t) ? " without an importance matrix, its default"
                                                      : "";
  w.stored_source = fmt::format("llama.cpp {} (llama-quantize's per-tensor types{}; llama.cpp {}; GGUF metadata "
                                "not counted)",
                                gguf_file_type_name(t), imatrix, kLlamaCppQuantCommit.substr(0, 12));
  w.stored_detail = mix.detail();
  w.gguf_tensors.reserve(mix.tensors.size());
  for (const GgufTensor& t : mix.tensors) w.gguf_tensors.emplace_back(t.name, static_cast<double>(t.bytes));
  return w;
}

}  // namespace

WeightStorage weight_storage(CommandApp* sub, const std::string& weights_dtype, const std::string& model_arg,
                             const specs::ModelSpec& m, NumericFlag& group) {
  WeightStorage w;
  if (sub->get_option("--weights-dtype")->count() > 0 && is_gguf_weights(weights_dtype))
    return gguf_storage(sub, weights_dtype, m, group);
  w.dtype = parse_weights_dtype(weights_dtype);
  if (sub->get_option("--weights-dtype")->count() > 0 && is_nvfp4(weights_dtype)) {
    // NVFP4: E2M1 values with one FP8 E4M3 scale per 16 (NVIDIA's Blackwell format; the two fp32
    // per-tensor scales are not counted). --group-size may change the block; --zero-points has no
    // meaning for it.
    if (const CLI::Option* o = sub->get_option_no_throw("--zero-points"); o != nullptr && o->count() > 0)
      throw InputError("--zero-points", "(given)", "no --zero-points with --weights-dtype nvfp4 (scales only)");
    w.scale_dtype = Dtype::fp8;
    if (group.raw.empty()) group.fallback = 16.0;
    return w;
  }
  if (sub->get_option("--weights-dtype")->count() > 0) return w;
  // A bf16 or fp32 checkpoint is served in bf16, as without one; a quantized one as it is stored.
  // A GGUF's tensors are what llama.cpp loads: always their bytes, whatever their types.
  if (const auto stored = checkpoint_in(model_arg);
      stored && (stored->quantized || !m.quant_method.empty() || stored->format == "gguf")) {
    specs::check_stored_bits(*stored, count_params(m).total, model_arg);
    w.stored = static_cast<double>(stored->bytes) * units::byte;
    w.stored_source = model_arg;
    w.stored_detail = stored->detail;
    w.stored_fp8 = stored->main_dtype.starts_with("F8_");
    return w;
  }
  if (m.quant_method.empty()) return w;
  if (m.quant_dtype.empty()) {
    print_warning(m.quant_note + " (quantization_config): the weights are counted in bf16; give --weights-dtype "
                                 "for their storage");
    return w;
  }
  w.dtype = parse_dtype(m.quant_dtype, "quantization_config");
  w.scale_dtype = parse_dtype(m.quant_scale_dtype, "quantization_config");
  if (group.raw.empty()) {
    group.fallback = static_cast<double>(m.quant_group);
    w.zero_points = m.quant_zero_points;
  }
  w.experts_only = m.quant_experts_only;
  w.declared = true;
  return w;
}

void assume_declared_quantization(const specs::ModelSpec& m, ResultSet& rs) {
  rs.assume("declared_quantization", text("weights stored as the checkpoint's quantization_config declares: {}",
                                          std::string_view(m.quant_note)));
}

}  // namespace napkin::cli
