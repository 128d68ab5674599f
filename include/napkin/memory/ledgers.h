// Memory ledgers (course notes 7.4): memory is a sum of named items, each with the assumption
// it rests on. This file holds the pieces the inference and training ledgers are built from:
//   - model states for training: weights, gradients, FP32 master weights, optimizer states,
//     from a precision recipe and an optimizer, sharded by ZeRO stage over data parallelism;
//   - inference weights, with quantization overhead (per-group scales and zero points) and
//     the parameters kept unquantized;
//   - the KV cache of a model spec (MHA/GQA/MQA, MLA's compressed latent, sliding windows);
//   - activations saved for backward per layer, tensor by tensor (Korthikanti et al. 2022's
//     inventory and what today's kernels keep), under each recomputation policy, and the loss.
// All byte counts are exact where the inputs are integers (below 2^53).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "napkin/ground/dtype.h"
#include "napkin/ground/result.h"
#include "napkin/ground/units.h"
#include "napkin/model/flops.h"
#include "napkin/model/model_spec.h"
#include "napkin/model/parallel.h"

namespace napkin {

// ---- training model states ------------------------------------------------------------------

enum class Precision { mixed, fp32, bf16 };
enum class Optimizer { adamw, adam_8bit, sgd, sgd_momentum, adafactor };

std::string_view to_string(Precision p);
std::string_view to_string(Optimizer o);
/// "mixed", "fp32", "bf16" / "adamw", "adam", "adam-8bit", "sgd", "sgd-momentum", "adafactor".
/// Throw InputError naming `field` for anything else.
Precision parse_precision(std::string_view text, std::string_view field);
Optimizer parse_optimizer(std::string_view text, std::string_view field);

/// Bytes per trainable parameter of each model state.
struct StateBytes {
  BytesPerParam weights{}, gradients{}, master_weights{}, optimizer_states{};
  BytesPerParam total() const { return weights + gradients + master_weights + optimizer_states; }
};

struct ModelStatesInput {
  Params params{};                        // trainable parameters
  Precision precision = Precision::mixed;
  std::optional<Dtype> grad_dtype{};      // overrides the recipe's gradient type
  std::optional<bool> master_weights{};   // overrides the recipe (mixed: yes, else no)
  Optimizer optimizer = Optimizer::adamw;
  int zero_stage = 0;                     // 0-3 (FSDP full sharding = 3)
  Count dp = 1.0 * units::one;            // data-parallel degree the states are sharded over
};

/// The recipe: mixed = bf16 weights (2) + bf16 gradients (2) + fp32 master (4) + Adam's two fp32
/// moments (8) = 16 B/param (notes 7.4; Rajbhandari et al. 2020, ZeRO, §3.1: 2Ψ + 2Ψ + KΨ with
/// K = 12). fp32: 4 + 4 + 0 + 8. bf16 (pure): 2 + 2 + 0 + Adam moments in bf16 (4).
StateBytes state_bytes(const ModelStatesInput& in);

/// Per-GPU model states. ZeRO-1 shards optimizer states and master weights over dp, ZeRO-2
/// adds gradients, ZeRO-3 adds the weights (ZeRO paper, figure 1).
struct ModelStates {
  Bytes weights{}, gradients{}, master_weights{}, optimizer_states{};
  Bytes total() const { return weights + gradients + master_weights + optimizer_states; }
};
ModelStates model_states(const ModelStatesInput& in);
/// Appends the four ledger rows (keys weights, gradients, master_weights, optimizer_states)
/// and their assumptions.
void model_states(const ModelStatesInput& in, ResultSet& out);

/// The fit verdict and headroom rows (`fits`, `headroom`) of a per-GPU ledger.
void fit_items(Bytes per_gpu, Bytes capacity, ResultSet& out);

// ---- inference weights ----------------------------------------------------------------------

struct WeightsInput {
  Params params{};                     // all parameters stored
  Dtype dtype = Dtype::bf16;
  Params unquantized{};                // parameters kept in `unquantized_dtype` (embeddings, head, norms)
  Dtype unquantized_dtype = Dtype::bf16;
  Count group_size{};                  // quantization group; 0: no per-group scales
  Dtype scale_dtype = Dtype::fp16;     // one scale per group
  bool zero_points = false;            // one zero point per group, at the weights' width (packed, as AWQ/GPTQ qzeros)
};

struct Weights {
  Bytes quantized{};     // the (params − unquantized) at dtype's bits
  Bytes scales{};        // per-group scales and zero points
  Bytes unquantized{};   // the parameters kept in unquantized_dtype
  Bytes total() const { return quantized + scales + unquantized; }
};

/// P × bits / 8 (notes 7.4: 8e9 at bf16 = 16e9 B ≈ 14.90 GiB), plus per-group scale overhead
/// ceil(P_q / group) × (scale + zero point bytes) and the unquantized part.
Weights inference_weights(const WeightsInput& in);
void inference_weights(const WeightsInput& in, ResultSet& out);

// ---- KV cache -------------------------------------------------------------------------------

/// Bytes one layer caches per token: 2 · H_kv · d_head · bytes (MHA/GQA/MQA), or
/// (kv_lora_rank + qk_rope_head_dim) · bytes for MLA (DeepSeek-V2 paper, §2.1.2: the compressed
/// latent c_KV plus the decoupled RoPE key).
Bytes kv_bytes_per_token_per_layer(const specs::ModelSpec& m, Dtype kv_dtype);
/// One layer, one token, on a GPU holding `kv_heads` of the KV heads (TP shards them; MLA's
/// latent is whole on every GPU).
Bytes kv_bytes_per_token_per_layer(const specs::ModelSpec& m, Dtype kv_dtype, double kv_heads);
/// All layers with attention, one token, no window cap (the figure users quote: 128 KiB for
/// Llama-3.1-8B).
Bytes kv_bytes_per_token(const specs::ModelSpec& m, Dtype kv_dtype);
/// Layers that attend (and cache K and V): all but those of kind LayerAttention::none.
std::int64_t attention_layers(const specs::ModelSpec& m);

/// The recurrent state one sequence keeps in one Mamba layer (ssm_state row): the convolution
/// window, conv_channels · (K − 1), plus the SSM state d_inner · N (Mamba-2: H · head_dim · N, the
/// same product), at 2 B (the model's 16-bit dtype: vLLM's mamba_cache_dtype and
/// mamba_ssm_cache_dtype "auto"), the SSM state at 4 B when config.json's mamba_ssm_cache_dtype
/// says float32.
Bytes ssm_state_per_layer(const specs::ModelSpec& m);
/// The state one sequence keeps in one recurrent layer (RecurrentSpec) on one of `tp` GPUs: the
/// convolution window, conv_channels · (K − 1) at 2 B, plus the state's elements at 2 B (4 B when
/// state_fp32), split by head over TP.
Bytes recurrent_state_per_layer(const specs::ModelSpec& m, double tp = 1.0);
/// DeepSeek Sparse Attention's indexer key per token and layer (IndexerSpec): index_head_dim fp8
/// bytes and one fp32 scale per 128 of them, whatever the KV cache's dtype. Zero without one.
Bytes indexer_bytes_per_token_per_layer(const specs::ModelSpec& m);

struct KvCacheInput {
  Count batch = 1.0 * units::one;
  Count context{};  // tokens per sequence
  Dtype kv_dtype = Dtype::bf16;
};
/// Layers with a sliding window keep at most `sliding_window` tokens.
Bytes kv_cache(const specs::ModelSpec& m, const KvCacheInput& in);
void kv_cache(const specs::ModelSpec& m, const KvCacheInput& in, ResultSet& out);

// ---- activations saved for backward -----------------------------------------------------------

/// How a layer's saved tensors are counted.
///   korthikanti: Korthikanti et al. 2022's inventory (§4.1, table 2) for their GPT layer and its
///     analogue for others: norm inputs and outputs, Q, K, V, the attention output and the MLP
///     intermediates at 2 B, 1-byte dropout masks, and the scores of eager attention; Q and the
///     attention output at width h. It reproduces their 34·s·b·h + 5·a·s²·b to the byte.
///   tensors: the same inventory tensor by tensor at the layer's real widths, plus what the
///     kernels keep beside it: the norms' per-token fp32 statistics (RMSNorm's 1/rms, LayerNorm's
///     mean and 1/σ), fused attention's fp32 log-sum-exp per head, Q and the attention output at
///     H·d_head, MLA's latents, MoE's router probabilities and dispatched token copies.
/// The training ledger picks korthikanti for the GPT layer it was written for (LayerNorm, plain
/// MLP, multi-head attention, no experts) and tensors for every other layer, unless told.
enum class ActivationAccounting { korthikanti, tensors };
std::string_view to_string(ActivationAccounting a);
/// "korthikanti" or "tensors"; InputError naming `field` otherwise.
ActivationAccounting parse_activation_accounting(std::string_view text, std::string_view field);

struct ActivationInput {
  Count seq{};          // s, sequence length
  Count micro_batch{};  // b
  Count hidden{};       // h
  Count heads{};        // a
  Count tp = 1.0 * units::one;  // t, tensor-parallel degree
  bool sequence_parallel = false;
  Recompute recompute = Recompute::none;
  bool flash_attention = false;  // the attention scores are never stored: drops the a·s/h term
  // The layer's shape beyond Korthikanti's GPT layer; 0/defaults reproduce the paper's 34.
  Count kv_width{};      // K and V width, H_kv · d_head (0: h, multi-head attention)
  Count ffn_width{};     // MLP intermediate per token, k experts' worth for MoE (0: 4h)
  bool gated = false;    // gated MLP (SwiGLU): gate and up outputs and their product are kept
  bool dropout = true;   // dropout after attention and MLP (hidden dropout): two 1-byte masks
  bool attention_dropout = true;  // dropout on the attention probabilities: mask and output
  ActivationAccounting accounting = ActivationAccounting::korthikanti;
  // ---- what the tensors accounting reads (korthikanti ignores them)
  Count q_width{};       // Q and attention-output width, H · d_head (0: h)
  Count v_width{};       // V width when it differs from K's (MLA: H · v_head_dim; 0: kv_width)
  bool rmsnorm = false;  // norm statistics: RMSNorm keeps one fp32 per token, LayerNorm two
  Count latent_width{};  // MLA: q_lora_rank + kv_lora_rank + qk_rope_head_dim, the latents kept
  Count moe_topk{};      // MoE: routed experts per token (0: a dense layer)
  Count moe_experts{};   // MoE: routed experts the router scores (its fp32 probabilities are kept)
  // Megatron-LM --distribute-saved-activations: a fully recomputed layer's input split over the
  // TP ranks (all-gathered again before the rerun). Not with sequence parallelism, where the
  // input is split already (Megatron-LM turns the option off under it).
  bool distribute_saved = false;
};

/// The per-layer coefficient c in s·b·h·c bytes, split by where it lives.
struct ActivationTerms {
  double outside = 0;  // replicated over TP unless sequence parallel: norm inputs, block inputs, dropout masks
  double inside = 0;   // split over TP: Q, K, V, out-projection input, MLP intermediates
  double scores = 0;   // a·s/h multiple: softmax output (+ dropout mask and output)
  double whole = 0;    // never split (op-sac: the down projection's partial sums under TP)
};
/// The coefficients of the tensors in.recompute keeps (saved_tensors), summed by split.
ActivationTerms activation_terms(const ActivationInput& in);

/// Where a saved tensor lives under tensor parallelism.
enum class TensorSplit {
  sequence,  // replicated over TP, split by sequence parallelism (or --distribute-saved-activations)
  tensor,    // split over TP (heads, MLP columns)
  whole,     // a full-width copy on every TP rank
};

/// One tensor a layer keeps for backward: bytes per token before any split (scores: bytes per
/// token of all a·s probabilities), its split, and what keeps it.
struct SavedTensor {
  std::string_view key;     // "q", "mlp_up", ...
  std::string_view what;    // one line: what the tensor is and which op keeps it
  double bytes_per_token = 0;
  TensorSplit split = TensorSplit::sequence;
  bool scores = false;      // an a·s/h term (eager attention's probabilities)
};

/// The tensors one layer keeps for backward under in.recompute, in forward order:
///   none       every tensor of the inventory (fused attention: no scores);
///   selective  all but the attention scores (Korthikanti §5: core attention recomputed);
///   full       the layer input only, 2·s·b·h (÷ t under sequence parallelism or distributed);
///   op_sac     torchtitan's per-op policy: the layer input (the checkpoint's argument) and the
///              outputs of the saved ops: matmuls 1, 3, 5, 7 of q, k, v, o, gate/fc1, up, down
///              (every other one), fused attention (output and log-sum-exp) and, under TP with
///              sequence parallelism, the reduce-scatters after the o and down projections.
std::vector<SavedTensor> saved_tensors(const ActivationInput& in);

/// Activations one transformer layer keeps for backward, in bytes, the sum of saved_tensors:
/// s·b·(Σ sequence / t_SP + Σ tensor / t + Σ whole). Under the korthikanti accounting for a GPT
/// layer (MHA, 4h MLP, dropout), Korthikanti et al. 2022, §4.1 and table 2:
///   no parallelism        s·b·h·(34 + 5·a·s/h)
///   tensor parallel        s·b·h·(10 + 24/t + 5·a·s/(h·t))
///   + sequence parallel    s·b·h·(34/t + 5·a·s/(h·t))
///   selective recompute (or FlashAttention) drops the a·s/h term; full recompute keeps
///   only the layer input, 2·s·b·h, split over t under sequence parallelism.
/// The same inventory for other layer shapes: outside = 2·2h (norm inputs) + 2h + 2h (attention
/// and MLP inputs) + 2h (dropout masks); inside = 2h (Q) + 2·2·h_kv (K, V) + 2h (out-projection
/// input) + 4f (GeLU input and output; gated: 6f, the gate and up outputs and their product);
/// scores = 5 with dropout (softmax output, mask, dropout output), 2 without.
Bytes activations_per_layer(const ActivationInput& in);
void activations_per_layer(const ActivationInput& in, ResultSet& out);
/// --explain's table of the saved tensors: one note per tensor, bytes per layer on one GPU.
void saved_tensor_notes(const ActivationInput& in, ResultSet& out);

/// The forward FLOP op_sac reruns per token per layer: the even-numbered matmuls, k and o
/// (2·h·h_kv + 2·h_q·h) and up (gated, 2·h·f) or fc2 (plain, 2·f·h).
double op_sac_rerun_flop_per_token(const ActivationInput& in);

// ---- logits and loss at the last pipeline stage ------------------------------------------------

/// The cross-entropy at the end of the forward pass, per token and per vocabulary entry a GPU
/// holds (V/t: the logits are vocab-parallel under TP):
///   full     PyTorch's cross_entropy on fp32-upcast logits (torchtitan, Hugging Face): at the
///            loss backward the fp32 log-probabilities it saved, their gradient from nll_loss and
///            the gradient of the upcast logits are alive together, 12 B;
///   fused    a vocab-parallel cross entropy that keeps one fp32 softmax and writes the gradient
///            into it (Megatron-LM's _VocabParallelCrossEntropy), beside the 16-bit logits, 6 B;
///   chunked  the head and loss one chunk of the tokens at a time (torchtitan's
///            ChunkedLossWrapper, 8 chunks): one chunk at full's 12 B, plus an fp32 gradient
///            buffer of the head input, 4·h per token.
enum class LossKind { full, fused, chunked };
std::string_view to_string(LossKind k);
/// "full", "fused" or "chunked"; InputError naming `field` otherwise.
LossKind parse_loss(std::string_view text, std::string_view field);
constexpr double kLossChunks = 8.0;  // torchtitan ChunkedLossWrapper.Config.num_chunks default

// ---- the inference ledger of a model ----------------------------------------------------------

struct InferenceMemoryInput {
  Dtype weights_dtype = Dtype::bf16;
  Count group_size{};                   // 0: no per-group scales
  Dtype scale_dtype = Dtype::fp16;
  bool zero_points = false;
  bool quantize_all = false;            // quantize embeddings, head and norms too
  // Only the routed experts' weight matrices are quantized (MXFP4, as gpt-oss stores them):
  // attention, router, embeddings, head, norms and every bias (the experts' too) stay at 2 B.
  // Ignored under quantize_all.
  bool experts_only = false;
  // The bytes a checkpoint's tensors take as stored (its headers, or its index's total_size):
  // when set, the weights row is these bytes, each GPU holding its share in proportion to its
  // parameters, and the dtype arithmetic above is not used. stored_source describes them
  // ("<dir>: F8_E4M3 …") for the assumption row and must outlive the ResultSet.
  std::optional<Bytes> stored_weights{};
  std::string_view stored_source{};
  std::string_view stored_detail{};  // the storage types read ("F8_E4M3 9216 B, BF16 8384 B")
  Dtype kv_dtype = Dtype::bf16;
  Count batch = 1.0 * units::one;
  Count context{};                      // tokens per sequence (prompt + generated)
  Count tp = 1.0 * units::one, pp = 1.0 * units::one;
  Count prefill_chunk = 2048.0 * units::one;  // tokens processed together in a forward pass
  Bytes cuda_context = 512.0 * units::MiB;    // per GPU: CUDA context, cuBLAS workspace, kernels
  double fragmentation = 0.05;                // allocator slack, fraction of the rows above
  std::optional<Bytes> capacity{};            // GPU memory, for the fit verdict
  // count_params(m), computed once by a caller that evaluates the same model many times (a
  // sweep); nullptr: counted on each call. Must be the count of the model passed.
  const ParamCount* counts = nullptr;
  // With `counts`: where inference_memory keeps shard_stages(m, *counts, tp, pp) between calls
  // (it depends on the model and the layout only); the caller empties it (reset()) when the
  // model changes. nullptr: split on each call.
  struct StageCache {
    bool valid = false;
    double tp = 0, pp = 0;
    std::vector<StageShard> stages;
    void reset() { valid = false; }
  };
  StageCache* stage_cache = nullptr;
};

/// Per GPU (the most loaded pipeline stage), plus the total over all GPUs.
struct InferenceMemory {
  Bytes weights{}, kv_cache{}, activations{}, runtime_reserve{};
  Bytes ssm_state{};  // Mamba and recurrent layers' state (conv window + SSM or linear-attention state), 0 without them
  Bytes per_gpu() const { return weights + kv_cache + ssm_state + activations + runtime_reserve; }
  Bytes total{};
  std::optional<bool> fits{};
};

/// Weights (at weights_dtype, embeddings/head/norms kept in bf16 unless quantize_all, plus
/// group scales), KV cache of the stage's layers and KV heads, the transient activations of one
/// prefill chunk (hidden states and the MLP intermediate at 2 B, plus fp32 logits of the last
/// position per sequence) and a runtime reserve (CUDA context + fragmentation).
InferenceMemory inference_memory(const specs::ModelSpec& m, const InferenceMemoryInput& in);
void inference_memory(const specs::ModelSpec& m, const InferenceMemoryInput& in, ResultSet& out);

// ---- the solver -------------------------------------------------------------------------------

enum class SolveFor { max_batch, max_context, min_gpus };

/// A parallel layout: tensor-parallel degree, pipeline stages, data-parallel ranks.
struct Layout {
  std::int64_t tp = 1, pp = 1, dp = 1;
  std::int64_t gpus() const { return tp * pp * dp; }
};

/// What the fewest-GPUs search may vary. A dimension given here is fixed; the others are searched:
/// TP over the degrees the model accepts (divisors of the heads compatible with the KV heads) up
/// to max_tp, the GPUs of one node (TP's all-reduces need the node's NVLink); PP from 1 to the
/// layers; DP (training under ZeRO ≥ 1 only, in multiples of ep) up to max_dp.
struct LayoutSearch {
  std::optional<std::int64_t> tp{}, pp{}, dp{};
  std::int64_t max_tp = 8;
  std::int64_t max_dp = std::int64_t{1} << 20;
};

/// The TP degrees the model accepts, ascending, up to max_tp: divisors of the attention heads
/// that divide the KV heads or are multiples of them (a bare parameter count: any degree).
std::vector<std::int64_t> tp_degrees(const specs::ModelSpec& m, std::int64_t max_tp);

/// The fewest-GPUs order: fewer GPUs, then fewer pipeline stages, then the lower TP degree.
bool fewer_gpus_first(const Layout& a, const Layout& b);

/// What a search of `s` walked, for its answer's text: "tp ≤ 8 (a node, --gpus-per-node), pp ≤ 80
/// (the layers)" (a given degree as "tp 8 (given)"), with the dp limit when dp was searched.
std::string layout_search_limits(const specs::ModelSpec& m, const LayoutSearch& s, bool dp_searched);

/// The result of the fewest-GPUs search: the layout (nullopt when nothing fits within the
/// limits) and the layout with the smallest per-GPU ledger (shown when nothing fits).
struct LayoutAnswer {
  std::optional<Layout> fewest{};
  Layout closest{};
  std::int64_t tried = 0;  // layouts evaluated
};

/// Exhaustive within the limits: no layout with fewer GPUs fits. Ties go to fewer pipeline
/// stages, then to the lower TP degree. Precondition: in.capacity is set.
LayoutAnswer min_gpus_inference(const specs::ModelSpec& m, const InferenceMemoryInput& in, const LayoutSearch& search);

/// The largest batch (at in.context) or context (at in.batch) whose per-GPU ledger fits
/// in.capacity. Exact to one step: at the answer it fits, one step more (batch + 1, context + 1)
/// does not. 0 when even 1 does not fit. The context is searched up to the model's maximum
/// context, which is the answer when it fits. `what` is max_batch or max_context (min_gpus:
/// min_gpus_inference). Precondition: in.capacity is set (InputError naming --gpu-memory).
std::int64_t solve_inference(const specs::ModelSpec& m, const InferenceMemoryInput& in, SolveFor what);

/// The ledger at the solver's answer (at batch or context 1, or at the closest layout, when
/// nothing fits), then the answer as an item: max_batch, max_context, or min_gpus with tp, pp
/// and dp. An answer that does not exist is a `none` value (JSON null), never 0.
void solve_inference(const specs::ModelSpec& m, const InferenceMemoryInput& in, SolveFor what, ResultSet& out,
                     const LayoutSearch& search = {});

// ---- the training ledger of a model -----------------------------------------------------------

struct TrainingMemoryInput {
  ModelStatesInput states{};     // precision, optimizer, ZeRO stage, dp; params come from the model
  Count micro_batch = 1.0 * units::one;
  Count seq{};
  Count tp = 1.0 * units::one, pp = 1.0 * units::one;
  // Expert parallelism: routed experts split over ep ranks. Without etp and cp they are taken
  // from the data-parallel ranks (ep divides dp), so expert model states shard over dp / ep under
  // ZeRO; the general rule is etp's, below.
  Count ep = 1.0 * units::one;
  // Expert tensor parallelism (Megatron-Core --expert-tensor-parallel-size): each routed expert's
  // matrices split over etp ranks. nullopt: tp (Megatron's default), the layout above. Given, the
  // ep · etp expert ranks are laid over the tp · cp · dp ranks of a pipeline stage (ep · etp
  // divides tp · cp · dp) and the routed experts' states shard over the expert data-parallel
  // size tp · cp · dp / (ep · etp) under ZeRO (NVIDIA/Megatron-LM d98e8a6,
  // megatron/core/parallel_state.py initialize_model_parallel, lines 870-896). With etp = tp and
  // cp = 1 that is dp / ep, as above.
  std::optional<Count> etp{};
  // Uneven pipeline stages (Megatron-LM --decoder-first-pipeline-num-layers and
  // --decoder-last-pipeline-num-layers): the first and last stages' layers, the rest split evenly
  // over the stages between (napkin/model/parallel.h, stage_layer_counts). nullopt: balanced.
  std::optional<Count> first_stage_layers{}, last_stage_layers{};
  // Dropout probability of the attention probabilities and the residual branches. nullopt: the
  // model's own (specs::ModelSpec::attention_dropout / hidden_dropout, 0 when its config has none).
  // Any p > 0 keeps Korthikanti's 1-byte masks and dropout outputs; p = 0 keeps none.
  std::optional<double> dropout{};
  bool sequence_parallel = false;
  Recompute recompute = Recompute::none;
  // Fused attention (FlashAttention, cuDNN/SDPA): the a·s/h scores are never stored. false is
  // eager attention, Korthikanti's 2022 layer, which stores softmax output (and dropout mask).
  bool flash_attention = true;
  Bytes cuda_context = 512.0 * units::MiB;
  double fragmentation = 0.05;
  std::optional<Bytes> capacity{};
  // Fine-tuning with low-rank adapters (Hu et al. 2021, "LoRA"): the base weights are frozen
  // (no gradients, no optimizer states); each target matrix W (d_out × d_in) gets r·(d_in + d_out)
  // trainable parameters. 0: full training.
  Count lora_rank{};
  bool lora_all_linear = false;  // targets: q, k, v, o (default) or every linear layer
  bool qlora = false;            // frozen base in NF4 with double-quantized scales (Dettmers et al. 2023)
  // ZeRO-Offload (Ren et al. 2021, §4.1): fp32 master weights, optimizer states and the gradients
  // live in CPU memory and the update runs there; the GPU keeps the 16-bit weights.
  bool offload_optimizer = false;
  // ZeRO-Infinity parameter offload (ZeRO-3 only; implies offload_optimizer): the 16-bit weights
  // live in CPU memory too and each GPU holds only the gathered working set.
  bool offload_params = false;
  const ParamCount* counts = nullptr;  // as InferenceMemoryInput::counts
  // shard_stages of this model and layout (tp, pp, ep, etp, the stage flags), kept by a caller that
  // evaluates many layouts (the training planner); nullptr: split on each call.
  const std::vector<StageShard>* stages = nullptr;
  // ---- pipeline schedule, partial recomputation, context parallelism
  // Interleaved 1F1B (Narayanan et al. 2021, §2.2.2): each pipeline stage holds M model chunks of
  // L_stage / M layers. 1: the plain 1F1B schedule. M > 1 needs pp ≥ 2 and M dividing every
  // stage's layers (Megatron-LM asserts the same).
  Count virtual_stages = 1.0 * units::one;
  // Megatron's --recompute-method block --recompute-num-layers K: K layers of each stage fully
  // recomputed (only their input kept), the others as `recompute` says. 0: none. Needs recompute
  // none or selective.
  Count recompute_layers{};
  // Context parallelism (Megatron-LM --context-parallel-size): every sequence split over cp GPUs
  // (2·cp chunks, load-balanced for causal masks), so each GPU keeps activations of s / cp tokens;
  // the distributed optimizer shards over dp · cp ranks (the routed experts' over the expert
  // data-parallel size, etp above). Needs fused attention, s divisible by 2·cp.
  Count cp = 1.0 * units::one;
  // ---- how the layers' and the loss's tensors are counted
  // nullopt: korthikanti for Korthikanti's GPT layer (LayerNorm, plain MLP, MHA, no experts),
  // tensors for every other layer (ActivationAccounting).
  std::optional<ActivationAccounting> accounting{};
  LossKind loss = LossKind::full;
  // Megatron-LM --distribute-saved-activations: fully recomputed layers' inputs split over TP
  // (needs TP ≥ 2 without sequence parallelism, and --recompute full or --recompute-layers).
  bool distribute_saved_activations = false;
};

/// shard_stages' options of a training ledger's layout (tp, pp, ep, etp, the stage flags).
ShardLayout training_shard_layout(const TrainingMemoryInput& in);

/// Trainable LoRA parameters of the whole model (all layers, no sharding).
std::int64_t lora_params(const specs::ModelSpec& m, std::int64_t rank, bool all_linear);

struct TrainingMemory {
  Bytes weights{}, gradients{}, master_weights{}, optimizer_states{}, activations{}, runtime_reserve{};
  // ZeRO-3: the largest module's parameters and gradients gathered in full for compute,
  // 4 B × its parameters (DeepSpeed's estimate_zero3_model_states_mem_needs, "largest_layer_memory").
  Bytes gathered_params{};
  // ZeRO-3 without offload, as FSDP2 runs it with one unit per transformer layer (torchtitan's
  // apply_fsdp): the 16-bit parameters of the layer in flight and of the one prefetched, the
  // layer's unsharded gradients, and their reduce-scatter input in the reduce dtype (fp32 under
  // mixed precision, torchtitan's mixed_precision_reduce default). gathered_params is then 0;
  // with offload, DeepSpeed's gathered working set above is used instead.
  Bytes unsharded_params{}, unsharded_grads{}, reduce_scatter{};
  Bytes fsdp_buffers() const { return unsharded_params + unsharded_grads + reduce_scatter; }
  Bytes cpu_memory{};  // host memory per GPU rank for offloaded states (not in per_gpu)
  // The last stage's loss buffers and head inputs at the loss's peak (LossKind), 0 elsewhere.
  Bytes logits{};
  // What the backward of one recomputed layer holds on top of what it kept: the tensors the
  // rerun rebuilds (the policy's inventory minus the kept ones). Alive after the loss's buffers
  // are freed, so per_gpu counts the larger of the two.
  Bytes recompute_transient{};
  Bytes peak_transient() const { return logits > recompute_transient ? logits : recompute_transient; }
  Bytes per_gpu() const {
    return weights + gradients + master_weights + optimizer_states + gathered_params + fsdp_buffers() + activations +
           peak_transient() + runtime_reserve;
  }
  Bytes total{};
  std::optional<bool> fits{};
  std::int64_t stage = 0;  // the pipeline stage shown (the most loaded)
  // The stage's output tensors of the micro-batches in flight, 2 B·s·b·h (÷ t under sequence
  // parallelism) each: autograd would keep them, Megatron-LM frees their data once sent
  // (deallocate_output_tensor), so they are shown and not in per_gpu. 0 without pipelining.
  Bytes pipeline_buffers{};
};

/// Per pipeline stage: model states of the stage's per-GPU parameters (ZeRO over dp), plus
/// activations of its layers (saved_tensors per layer) for the micro-batches in flight under 1F1B
/// (stage i of p holds p − i), plus the larger of the loss's buffers on the last stage and one
/// recomputed layer's transient; the most loaded stage is shown and the total is every stage's
/// ledger × tp × dp.
TrainingMemory training_memory(const specs::ModelSpec& m, const TrainingMemoryInput& in);
void training_memory(const specs::ModelSpec& m, const TrainingMemoryInput& in, ResultSet& out);

/// The forward FLOP --recompute op-sac reruns: tokens · L · op_sac_rerun_flop_per_token of the
/// model's layer (InputError where op-sac is not modelled: MLA, experts, eager attention).
Flops op_sac_recompute_flops(const specs::ModelSpec& m, const TrainingMemoryInput& in, Tokens tokens);

/// The share of the model's layers that --recompute-layers K recomputes in full: Σ over the pp
/// stages of min(K, L_stage), over L. 0 when K is 0; 1 under recompute full. What train scales
/// full recomputation's extra FLOP by (the rest as in.recompute says): see partial_recompute().
double recompute_layers_fraction(const specs::ModelSpec& m, const TrainingMemoryInput& in);

enum class TrainSolveFor { max_micro_batch, max_seq, min_gpus };

/// The largest micro-batch (at in.seq) or sequence length (at in.micro_batch, up to the model's
/// maximum context) whose per-GPU training ledger fits in.capacity. Exact to one step, as
/// solve_inference; 0 when even 1 does not fit. Precondition: in.capacity is set.
std::int64_t solve_training(const specs::ModelSpec& m, const TrainingMemoryInput& in, TrainSolveFor what);
/// The fewest GPUs for training: TP × PP, and under ZeRO ≥ 1 the data-parallel degree that shards
/// the states (searched in multiples of in.ep; without ZeRO dp stays as given, it does not shrink
/// the ledger). As min_gpus_inference.
LayoutAnswer min_gpus_training(const specs::ModelSpec& m, const TrainingMemoryInput& in, const LayoutSearch& search);
void solve_training(const specs::ModelSpec& m, const TrainingMemoryInput& in, TrainSolveFor what, ResultSet& out,
                    const LayoutSearch& search = {});

}  // namespace napkin
