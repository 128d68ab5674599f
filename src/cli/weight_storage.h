// How a MODEL's weights are stored, for memory and serve: --weights-dtype (a napkin dtype or a
// llama.cpp GGUF type), a quantized checkpoint's own bytes, or the config's quantization_config.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "napkin/ground/dtype.h"
#include "napkin/ground/result.h"
#include "napkin/ground/units.h"
#include "napkin/model/model_spec.h"
#include "command_app.h"
#include "sweep.h"

namespace napkin::cli {

/// How a MODEL's weights are stored, for memory and serve: --weights-dtype when given, else the
/// checkpoint's declared quantization (quantization_config: its dtype, scale type and zero
/// points; its group becomes --group-size's default), else bf16. A declared method napkin does
/// not model prints a warning and stays bf16.
struct WeightStorage {
  Dtype dtype = Dtype::bf16;
  Dtype scale_dtype = Dtype::fp16;
  bool zero_points = false;
  bool declared = false;      // read from quantization_config
  bool experts_only = false;  // only the routed experts' matrices are quantized (MXFP4)
  // A quantized checkpoint in MODEL (a directory, or a checkpoint file with config.json beside
  // it): the bytes its tensors take, which replace the dtype arithmetic.
  std::optional<Bytes> stored;
  std::string stored_source, stored_detail;  // MODEL, and the dtypes read
  bool stored_fp8 = false;                   // the checkpoint's largest storage type is FP8
  // A GGUF type: each tensor's GGUF name and bytes, for llama.cpp's placement of layers.
  std::vector<std::pair<std::string, double>> gguf_tensors;
};
/// --weights-dtype when given (a GGUF type: the bytes llama-quantize would write for m, its types
/// per tensor as llama.cpp assigns them; --group-size, --zero-points and --quantize-all are refused
/// with it); else a quantized checkpoint's own bytes (specs::stored_weights of
/// MODEL: tensors below 16 bits, or any checkpoint of a config that declares quantization); else
/// the config's quantization_config; else bf16.
WeightStorage weight_storage(CommandApp* sub, const std::string& weights_dtype, const std::string& model_arg,
                             const specs::ModelSpec& m, NumericFlag& group);
/// --weights-dtype's value as a napkin dtype; a llama.cpp GGUF type (q4_k_m, iq4_xs, ...; see
/// gguf_quant.h) reads as bf16 here (the weights are then its stored bytes, weight_storage). Else
/// InputError naming --weights-dtype with both lists.
Dtype parse_weights_dtype(const std::string& text);
/// True when --weights-dtype names a llama.cpp GGUF type.
bool is_gguf_weights(const std::string& text);
/// A GGUF --weights-dtype where no architecture is known (--params, the made-up decoder): refused,
/// naming --weights-dtype (`what` says what was given instead of MODEL).
void refuse_gguf_weights(const std::string& text, std::string_view what);
/// The assumption naming a declared quantization (key declared_quantization).
void assume_declared_quantization(const specs::ModelSpec& m, ResultSet& rs);

}  // namespace napkin::cli
