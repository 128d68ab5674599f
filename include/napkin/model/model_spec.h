// ModelSpec: the architecture facts of a transformer that every calculator reads. Readers of
// Hugging Face config.json (src/specs/hf_config.cpp), napkin's own model JSON
// (src/specs/napkin_json.cpp, docs/model-spec.md) and the bundled presets all produce this one
// struct; calculators never see JSON.
//
// Sizes are exact integers (std::int64_t): parameter counts of real models reach 10^12 and are
// compared to the checkpoint's own tensor counts to the parameter.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace napkin::specs {

struct TensorTable;  // napkin/model/tensor_table.h

enum class FfnKind { plain, gated };                 // D→F→D, or SwiGLU/GeGLU (gate, up, down)
enum class PositionKind { rotary, learned, none };   // RoPE/ALiBi-style (no weights) or a table
enum class NormKind { layernorm, rmsnorm };          // LayerNorm (weight + bias) or RMSNorm (weight)
enum class AttentionKind { mha, gqa, mqa, mla };     // by KV heads; MLA = DeepSeek latent attention
// What one layer attends over: every earlier token, a sliding window, its own chunk (Llama 4's
// local layers), or nothing (a state-space or MLP-only layer: no KV cache).
enum class LayerAttention : std::uint8_t { full, sliding, chunked, none };

/// Multi-head latent attention (DeepSeek-V2 §2.1): queries optionally through a rank-q_lora
/// bottleneck, keys and values through a shared rank-kv_lora latent plus a decoupled RoPE key.
struct MlaSpec {
  std::int64_t q_lora_rank = 0;  // 0: queries projected directly from D (DeepSeek-V2-Lite)
  std::int64_t kv_lora_rank = 0;
  std::int64_t qk_rope_head_dim = 0;
  std::int64_t qk_nope_head_dim = 0;
  std::int64_t v_head_dim = 0;
  bool operator==(const MlaSpec&) const = default;  // serve.cpp memoizes on it
};

/// Mixture of experts. Zero experts means a dense model.
struct MoeSpec {
  std::int64_t n_experts = 0;          // routed experts per MoE layer
  std::int64_t experts_per_token = 0;  // top-k
  std::int64_t n_shared_experts = 0;   // DeepSeek: always-on experts of width expert_ffn each
  std::int64_t shared_ffn = 0;         // Qwen-MoE: one shared expert of this width (0: none)
  bool shared_expert_gate = false;     // Qwen-MoE: a D→1 sigmoid gate on the shared expert
  std::int64_t first_k_dense = 0;      // DeepSeek first_k_dense_replace: leading dense layers
  std::int64_t layer_freq = 1;         // MoE on every layer_freq-th layer after the dense ones
  std::int64_t expert_ffn = 0;         // width of one routed expert
  bool router_bias = false;            // DeepSeek-V3 e_score_correction_bias, gpt-oss router bias (E per MoE layer)
  bool expert_bias = false;            // gpt-oss: biases on every expert's gate/up (2F) and down (D) projections
  bool is_moe() const { return n_experts > 0; }
  bool operator==(const MoeSpec&) const = default;  // serve.cpp memoizes on it
};

// State-space (Mamba) layers: what mixes tokens in a layer (attention, a Mamba mixer, or nothing:
// Nemotron-H's MLP-only blocks) and which feed-forward block follows it (Nemotron-H's Mamba and
// attention blocks have none).
enum class LayerMixer : std::uint8_t { attention, mamba, none, recurrent };
enum class LayerFfn : std::uint8_t { dense, moe, none };

/// A selective state-space mixer. Mamba-1 (Gu & Dao 2023; transformers modeling_mamba.py
/// MambaMixer, modeling_jamba.py JambaMambaMixer): in_proj D→2·E (E = d_inner), depthwise conv1d
/// over E channels, x_proj E→(R + 2N), dt_proj R→E with bias, A_log [E, N], D [E], out_proj E→D.
/// Mamba-2 (Dao & Gu 2024; modeling_nemotron_h.py NemotronHMamba2Mixer): in_proj
/// D→(2·E + 2·G·N + H), conv1d over E + 2·G·N channels, dt_bias, A_log and D [H], a gated RMSNorm
/// [E], out_proj E→D. The recurrent state per sequence is the conv window, channels·(K − 1), plus
/// E·N (Mamba-1: E × N; Mamba-2: H × head_dim × N, the same product).
struct MambaSpec {
  int version = 0;               // 0: no Mamba layers; 1 or 2
  std::int64_t d_inner = 0;      // E (intermediate_size, expand·D; Mamba-2: heads·head_dim)
  std::int64_t d_state = 0;      // N
  std::int64_t conv_kernel = 0;  // K
  std::int64_t dt_rank = 0;      // R (Mamba-1)
  std::int64_t groups = 0;       // G (Mamba-2 n_groups)
  std::int64_t heads = 0;        // H_ssm (Mamba-2)
  bool proj_bias = false;        // biases on in_proj and out_proj
  bool conv_bias = true;         // bias on conv1d
  bool inner_norms = false;      // Jamba: RMSNorm weights over dt (R), B (N) and C (N)
  bool ssm_state_fp32 = false;   // config.json mamba_ssm_cache_dtype "float32"
  /// Channels the depthwise convolution runs over (and keeps K − 1 inputs of).
  std::int64_t conv_channels() const { return version == 2 ? d_inner + 2 * groups * d_state : d_inner; }
  bool operator==(const MambaSpec&) const = default;  // serve.cpp memoizes on it
};

/// A token mixer that keeps a fixed-size state per sequence in place of a KV cache, as an
/// architecture table describes it (LayerMixer::recurrent): linear attention (Qwen3-Next's Gated
/// DeltaNet, Kimi's delta attention, MiniMax's lightning attention), a Mamba-2 mixer inside a
/// table, or a short convolution (LFM2). Per layer and sequence it keeps the last K − 1 inputs of
/// a causal convolution over conv_channels channels (at the activations' 16 bits, as vLLM's
/// conv state) and a state of `state` elements. Tensor parallelism splits all of it by head:
/// tp must divide tp_unit.
struct RecurrentSpec {
  std::string kind;                // what the layer is, for the reports: "Gated DeltaNet"
  std::int64_t conv_channels = 0;  // channels of the causal convolution (0: none)
  std::int64_t conv_kernel = 0;    // K
  std::int64_t state = 0;          // elements of the recurrent state per sequence (0: none)
  bool state_fp32 = false;         // the state kept in fp32 (config mamba_ssm_cache_dtype), else 16-bit
  std::int64_t proj_width = 0;     // the widest projection output of the mixer (activations)
  std::int64_t tp_unit = 1;        // heads (or groups) tensor parallelism splits the mixer by
  bool operator==(const RecurrentSpec&) const = default;  // serve.cpp memoizes on it
};

/// DeepSeek Sparse Attention's lightning indexer (DeepSeek-V3.2, GLM-5): per layer it keeps one
/// index_head_dim key per token beside the MLA cache, in fp8 with one fp32 scale per 128
/// elements (DeepSeek-V3.2-Exp inference/model.py Indexer: k_cache float8_e4m3fn,
/// k_scale_cache fp32 per block_size 128), and each query attends to its top_k keys only.
struct IndexerSpec {
  std::int64_t heads = 0;     // index_n_heads (0: no indexer)
  std::int64_t head_dim = 0;  // index_head_dim
  std::int64_t top_k = 0;     // index_topk
  bool operator==(const IndexerSpec&) const = default;
};

struct ModelSpec {
  // Identity.
  std::string name;        // "llama-3.1-8b", or the file it came from
  std::string repo;        // Hugging Face repository id, when known
  std::string model_type;  // config.json model_type ("llama", "gpt2", ...), or the guess
  std::string family;      // the conventions applied ("llama", "gpt2", "opt", ...)

  // Shapes.
  std::int64_t hidden = 0;    // D
  std::int64_t layers = 0;    // L
  std::int64_t heads = 0;     // H (query heads)
  std::int64_t kv_heads = 0;  // H_kv
  std::int64_t head_dim = 0;  // d_head (not always D/H: Gemma 2 uses 256)
  std::int64_t ffn = 0;       // F of the dense MLP
  FfnKind ffn_kind = FfnKind::gated;
  std::int64_t vocab = 0;  // V
  bool tied_embeddings = false;
  AttentionKind attention = AttentionKind::mha;
  MlaSpec mla;
  MoeSpec moe;

  // Positions and context.
  PositionKind positions = PositionKind::rotary;
  std::int64_t position_table = 0;   // rows of the learned position table (incl. offset)
  std::int64_t position_offset = 0;  // OPT keeps 2 extra rows
  std::int64_t max_context = 0;      // max_position_embeddings / n_positions
  // rope_scaling (transformers v5: rope_parameters) as the config states it: rope_type empty when
  // it has none; the factor (1 when absent) and original_max_position_embeddings (0 when absent).
  // vLLM derives its longest max_model_len from them (napkin/engines/vllm.h).
  std::string rope_type;
  double rope_factor = 1.0;
  std::int64_t rope_original_context = 0;
  std::int64_t model_max_length = 0;  // config.json's model_max_length (Command-R), 0 when absent
  std::int64_t sliding_window = 0;   // 0: full attention everywhere
  std::int64_t sliding_every = 0;    // 0: every layer; 2: every other layer (Gemma 2)

  // Biases and norms.
  bool qkv_bias = false;
  bool o_bias = false;
  bool mlp_bias = false;
  bool lm_head_bias = false;
  NormKind norm = NormKind::rmsnorm;
  int norms_per_layer = 2;   // pre-attention and pre-MLP; Gemma 2 adds two post-norms
  bool qk_norm = false;      // Qwen3: RMSNorm over each head's q and k (d_head weights each)
  // Cohere use_qk_norm, StableLM qk_layernorm: q and k normalized per head with a weight of their
  // own for every head, no bias: [H, d_head] for q and [H_kv, d_head] for k (modeling_cohere.py
  // CohereLayerNorm over (heads, head_dim); modeling_stablelm.py StableLmLayerNormPerHead).
  bool qk_norm_per_head = false;
  // LayerNorm with a bias (false: Cohere's CohereLayerNorm keeps a weight only). RMSNorm ignores it.
  bool norm_bias = true;
  // OLMo-2, OLMoE: q_norm over the whole projection (H·d_head weights) and k_norm over H_kv·d_head,
  // not one d_head vector shared by the heads (modeling_olmo2.py Olmo2Attention).
  bool qk_norm_full_width = false;
  bool final_norm = true;

  // Extras of some families.
  std::int64_t embed_proj_dim = 0;  // OPT word_embed_proj_dim when it differs from D
  bool encoder_only = false;        // BERT
  std::int64_t type_vocab = 0;      // BERT token type embeddings
  bool pooler = false;              // BERT pooler (D×D + D)
  bool embedding_norm = false;      // BERT LayerNorm over the summed embeddings
  std::int64_t mtp_layers = 0;      // DeepSeek-V3 num_nextn_predict_layers (not counted)
  // Encoder-decoder (T5): `layers` counts the encoder's blocks (self-attention + MLP, 2 norms),
  // decoder_layers the decoder's (self-attention + cross-attention + MLP, 3 norms); each stack
  // has its own final norm and one relative_attention_bias table (buckets × heads) in its first
  // block (modeling_t5.py T5Stack, T5Block(has_relative_attention_bias=bool(i == 0))).
  bool encoder_decoder = false;
  std::int64_t decoder_layers = 0;
  std::int64_t relative_attention_buckets = 0;

  // Dropout probabilities of training (attention probabilities; hidden/residual outputs), as the
  // config states them or its family's class default; 0 when neither gives one.
  double attention_dropout = 0.0;
  double hidden_dropout = 0.0;
  std::string stored_dtype;  // torch_dtype as written ("bfloat16"), empty when unknown

  // A model known only by its parameter count (`--params P`): every shape above is 0, and the
  // ledgers hold the weights and model states of these parameters, split evenly over the GPUs.
  // Anything that needs an architecture (KV cache, activations, LoRA, experts) is refused.
  std::int64_t bare_params = 0;
  bool count_only() const { return bare_params > 0; }

  // The checkpoint's declared quantization (config.json quantization_config), as memory and
  // serve apply it unless --weights-dtype is given. quant_method empty: none declared.
  // quant_dtype is a dtype name ("int4", "fp8", "nf4", "int8"); empty when the method is not
  // modelled (quant_note says why).
  std::string quant_method;
  std::string quant_dtype;
  std::int64_t quant_group = 0;        // weights per scale (0: none)
  bool quant_zero_points = false;      // one zero point per group too
  std::string quant_scale_dtype = "fp16";
  std::string quant_note;              // how the declaration was read, one line
  bool quant_experts_only = false;     // only the routed experts' weight matrices (MXFP4)

  /// Non-empty when the config was read by analogy with another family (--as): every command
  /// prints it as a warning, since the count is not exact.
  std::string analogy;
  /// Non-empty when the layout was counted from its modeling file but no checkpoint total has yet
  /// been found to check it against: every command prints it as a warning.
  std::string unverified;

  /// What the reader had to guess or chose by convention, one line each (shown as assumptions).
  std::vector<std::string> notes;

  // Per-layer attention when the config lists it (layer_types, Gemma 3's sliding_window_pattern,
  // Llama 4's chunked layers): one kind per layer. Empty: every layer slides when
  // sliding_window > 0, or every sliding_every-th one, else every layer is full.
  std::vector<LayerAttention> layer_kinds;
  std::int64_t attention_chunk = 0;  // Llama 4 attention_chunk_size: keys of a chunked layer's own chunk
  // gpt-oss: a learned attention-sink logit per query head and layer (self_attn.sinks).
  bool attention_sinks = false;

  /// The attention of `layer`: as layer_kinds says when the config lists the layers, else sliding
  /// on every layer when sliding_window > 0, or with sliding_every > 1 on every sliding_every-th
  /// one from layer 0 (Gemma 2 windows the even layers). A sliding layer without a window, or a
  /// chunked one without a chunk size, is full.
  LayerAttention layer_attention(std::int64_t layer) const {
    LayerAttention k = LayerAttention::full;
    if (!layer_kinds.empty()) {
      if (layer >= 0 && static_cast<std::size_t>(layer) < layer_kinds.size())
        k = layer_kinds[static_cast<std::size_t>(layer)];
    } else if (sliding_window > 0 && (sliding_every <= 1 || layer % sliding_every == 0)) {
      k = LayerAttention::sliding;
    }
    if ((k == LayerAttention::sliding && sliding_window <= 0) || (k == LayerAttention::chunked && attention_chunk <= 0))
      return LayerAttention::full;
    return k;
  }

  /// Keys `layer` keeps in its KV cache with `context` tokens in the sequence: all of them on a
  /// full layer, at most the window (sliding) or the chunk (chunked: a token attends to the keys
  /// of its own chunk only), none on a layer without attention.
  double kept_keys(std::int64_t layer, double context) const {
    switch (layer_attention(layer)) {
      case LayerAttention::full: return context;
      case LayerAttention::sliding: return context < static_cast<double>(sliding_window) ? context : static_cast<double>(sliding_window);
      case LayerAttention::chunked: return context < static_cast<double>(attention_chunk) ? context : static_cast<double>(attention_chunk);
      case LayerAttention::none: return 0.0;
    }
    return context;
  }

  /// Layers of `kind` (layer_attention) among all layers.
  std::int64_t layers_of(LayerAttention kind) const {
    // Every layer full (no list, no window): no loop (a sweep asks this for every row).
    if (layer_kinds.empty() && sliding_window <= 0)
      return kind == LayerAttention::full ? std::max<std::int64_t>(layers, 0) : 0;
    std::int64_t n = 0;
    for (std::int64_t l = 0; l < layers; ++l) n += layer_attention(l) == kind ? 1 : 0;
    return n;
  }

  bool is_moe_layer(std::int64_t layer) const {
    if (!moe.is_moe() || layer < moe.first_k_dense) return false;
    const std::int64_t freq = moe.layer_freq > 0 ? moe.layer_freq : 1;
    return (layer - moe.first_k_dense) % freq == 0;
  }

  // State-space (Mamba) layers
  MambaSpec mamba;
  std::vector<LayerMixer> layer_mixers;  // one per layer; empty: attention in every layer
  std::vector<LayerFfn> layer_ffns;      // one per layer; empty: MoE where is_moe_layer, else dense
  LayerMixer layer_mixer(std::int64_t layer) const {
    if (layer >= 0 && static_cast<std::size_t>(layer) < layer_mixers.size())
      return layer_mixers[static_cast<std::size_t>(layer)];
    return LayerMixer::attention;
  }
  LayerFfn layer_ffn(std::int64_t layer) const {
    if (layer >= 0 && static_cast<std::size_t>(layer) < layer_ffns.size()) return layer_ffns[static_cast<std::size_t>(layer)];
    return is_moe_layer(layer) ? LayerFfn::moe : LayerFfn::dense;
  }
  /// Layers in [first, first + count) whose mixer is `kind`.
  std::int64_t layers_with(LayerMixer kind, std::int64_t first, std::int64_t count) const {
    if (layer_mixers.empty()) return 0;  // attention in every layer: no loop (a sweep asks this for every row)
    std::int64_t n = 0;
    for (std::int64_t l = first; l < first + count; ++l) n += layer_mixer(l) == kind ? 1 : 0;
    return n;
  }
  std::int64_t mamba_layers() const { return layers_with(LayerMixer::mamba, 0, layers); }
  bool has_mamba() const { return mamba_layers() > 0; }
  RecurrentSpec recurrent;  // the LayerMixer::recurrent layers' mixer
  std::int64_t recurrent_layers() const { return layers_with(LayerMixer::recurrent, 0, layers); }
  bool has_recurrent() const { return recurrent_layers() > 0; }
  /// Layers that keep a state per sequence (Mamba or recurrent) in [first, first + count).
  std::int64_t state_layers(std::int64_t first, std::int64_t count) const {
    return layers_with(LayerMixer::mamba, first, count) + layers_with(LayerMixer::recurrent, first, count);
  }
  bool has_state_layers() const { return state_layers(0, layers) > 0; }
  IndexerSpec indexer;  // DeepSeek Sparse Attention (every attention layer), heads 0: none

  // Per-layer KV shapes where layers differ (Gemma 4's full layers of global_head_dim with their
  // own KV head count, Nemotron-NAS's KV heads per block), and KV-shared layers (Gemma 3n/4: the
  // last num_kv_shared_layers read an earlier layer's cache and keep none of their own). Empty:
  // every attending layer caches kv_heads × head_dim.
  std::vector<std::int64_t> layer_kv_heads, layer_head_dims;
  std::vector<bool> layer_kv_shared;
  bool has_layer_kv() const {
    return !layer_kv_heads.empty() || !layer_head_dims.empty() || !layer_kv_shared.empty();
  }
  std::int64_t kv_heads_of(std::int64_t l) const { return per_layer(layer_kv_heads, l, kv_heads); }
  std::int64_t head_dim_of(std::int64_t l) const { return per_layer(layer_head_dims, l, head_dim); }
  bool kv_shared(std::int64_t l) const { return per_layer(layer_kv_shared, l, false); }
  /// K and V elements layer `l` caches per token: 0 without attention or with a shared cache.
  std::int64_t kv_width(std::int64_t l) const {
    if (layer_attention(l) == LayerAttention::none || kv_shared(l)) return 0;
    return 2 * kv_heads_of(l) * head_dim_of(l);
  }

  /// The tensors of the checkpoint, when the family is an architecture table
  /// (data/architectures/*.json): parameter counts are then its sums, tensor by tensor. Shared:
  /// copies of a spec (sweeps) point at one table.
  std::shared_ptr<const TensorTable> tensors;
  /// A vision (or audio) tower and its projector, as the checkpoint stores them: counted in the
  /// vision group, outside the active parameters (--text-only drops it).
  std::shared_ptr<const TensorTable> tower;
  /// Non-empty when the checkpoint ships a tower napkin cannot count (its table refused the
  /// config): every count refuses with this reason unless --text-only drops the tower.
  std::string tower_refusal;
  /// Non-empty when the ledgers cannot size this model (a layer kind whose state or FLOPs napkin
  /// does not model yet): every command but params refuses it with this reason.
  std::string ledger_refusal;

  bool operator==(const ModelSpec&) const = default;  // serve.cpp memoizes on it

 private:
  // `list[l]`, or `fallback` where the list gives no entry for layer l.
  template <class T>
  static T per_layer(const std::vector<T>& list, std::int64_t l, T fallback) {
    return l >= 0 && static_cast<std::size_t>(l) < list.size() ? static_cast<T>(list[static_cast<std::size_t>(l)])
                                                               : fallback;
  }
};

/// The model of a bare parameter count (count_only()); `params` must be positive.
ModelSpec bare_model(std::int64_t params);

/// Throws InputError when `m` is an encoder-decoder (T5): `command` (e.g. "serve") models a
/// decoder-only model and would give a wrong answer; the message names the model and what napkin
/// supports for encoder-decoders (params, memory without --train).
void refuse_encoder_decoder(const ModelSpec& m, std::string_view command);

/// Refuses (InputError, one line naming the model) a model with Mamba layers in a calculation
/// that models attention layers only: `what` names the calculation and what it lacks.
void refuse_mamba_layers(const ModelSpec& m, std::string_view what);

/// Refuses (InputError, one line naming the model and its layers' kind) a model with
/// recurrent-state layers (RecurrentSpec) or a sparse-attention indexer (IndexerSpec) in a
/// calculation that models dense attention and MLP layers only: `what` names the calculation.
void refuse_unmodelled_layers(const ModelSpec& m, std::string_view what);

std::string_view to_string(FfnKind k);
std::string_view to_string(PositionKind k);
std::string_view to_string(NormKind k);
std::string_view to_string(AttentionKind k);
std::string_view to_string(LayerAttention k);

}  // namespace napkin::specs
