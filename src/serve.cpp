#include "napkin/serve.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>

#include "napkin/check.h"
#include "napkin/error.h"
#include "napkin/parallel.h"
#include "napkin/params.h"

namespace napkin {

using namespace units;

namespace {

// Activations move in bf16 between kernels; logits are written in fp32 (as memory.cpp's ledger
// counts them).
constexpr double kActBytes = 2.0;
constexpr double kLogitBytes = 4.0;

// Operation counts per element of the small kernels (a counting convention, stated as the
// "kernel_count" assumption):
//   fused residual add + RMSNorm: add, square, sum, normalise, scale by the weight = 5
//   RoPE: (x1·cos − x2·sin, x1·sin + x2·cos) = 4 multiplies + 2 adds per pair = 3 per element
//   SiLU(g)·u = g / (1 + exp(−g)) · u: negate, exp, add, divide, multiply = 5
//   GELU (tanh form): 9, as roofline.cpp counts it
constexpr double kNormFlop = 5.0;
constexpr double kRopeFlop = 3.0;
constexpr double kSiluMulFlop = 5.0;
constexpr double kGeluFlop = 9.0;

// Bytes one fused residual-add + norm moves per element: reads the input and the residual,
// writes the new residual and the normalised output.
constexpr double kNormAccesses = 4.0;


// Query-key pairs of a causal prompt of p tokens when each query sees at most w keys:
// Σ_{i=1..p} min(i, w).
double causal_pairs(double p, double w) {
  if (w >= p) return p * (p + 1.0) / 2.0;
  return w * (w + 1.0) / 2.0 + (p - w) * w;
}

// Query-key pairs of causal attention within chunks of c tokens (Llama 4's local layers: a token
// attends to the keys of its own chunk only) over p tokens.
double chunked_pairs(double p, double c) {
  const double whole = std::floor(p / c), rest = p - whole * c;
  return whole * c * (c + 1.0) / 2.0 + rest * (rest + 1.0) / 2.0;
}

struct Setup {
  const specs::ModelSpec& m;
  const ServeInput& in;
  ParamCount c;
  StageShard st;
  double t = 1;          // TP degree
  double wb = 2;         // bytes per quantized weight, scales included
  double kept_b = 2;     // bytes per weight kept unquantized (norms, embedding, head)
  double expert_wb = 2;  // bytes per routed-expert weight (wb, unless only the experts are quantized)
  double heads_t = 0;    // query heads per GPU
  double kv_heads_t = 0; // KV heads per GPU
  double kv_token_layer = 0;  // KV bytes per token per layer per GPU
};

struct Pass {
  bool prefill = false;
  double seqs = 0;         // B
  double tokens = 0;       // tokens through the layers (B·P, or B)
  double head_tokens = 0;  // positions whose logits are computed (B)
  double ctx = 0;          // prefill: prompt length; decode: keys per sequence
};

class PhaseBuilder {
 public:
  PhaseBuilder(const ServeInput& in, Seconds per_kernel) : in_(in), per_kernel_(per_kernel) {
    phase_.ops.reserve(kOps);  // a pass's ops (~20) without regrowing the vectors
    sums_.reserve(kOps);
  }

  void add(std::string_view name, double kernels, double flops, double bytes, double weight_bytes = 0.0,
           double kv_bytes = 0.0, double comm_bytes = 0.0, bool matmul = false) {
    // Every layer adds its ops in the same order, so the op after the last one found is almost
    // always the one wanted: look there first, then scan (names are unique in a phase).
    auto& ops = phase_.ops;
    std::size_t at = ops.size();
    if (next_ < ops.size() && ops[next_].name == name) {
      at = next_;
    } else {
      for (std::size_t i = 0; i < ops.size(); ++i)
        if (ops[i].name == name) {
          at = i;
          break;
        }
    }
    if (at == ops.size()) {
      ops.push_back(OpCost{});
      ops.back().name = name;
    }
    next_ = at + 1;
    OpDelta d;
    d.op = at;
    d.matmul = matmul;
    const Seconds compute = flops * flop / in_.peak;
    const Seconds memory = bytes * byte / in_.bandwidth;
    Seconds comm{};
    if (comm_bytes > 0.0) {
      // Ring all-reduce: each GPU sends and receives 2(t−1)/t of the payload (reduce-scatter,
      // then all-gather), at the per-direction link bandwidth.
      const double t = in_.tp.in(one);
      comm = 2.0 * (t - 1.0) / t * comm_bytes * byte / *in_.link_bandwidth;
    }
    const Seconds roof = std::max({compute, memory, comm});
    const Seconds launch = kernels * per_kernel_;
    d.v.p = {Pair{1.0, kernels},
             Pair{(flops * flop).in_base_units(), (bytes * byte).in_base_units()},
             Pair{(weight_bytes * byte).in_base_units(), (kv_bytes * byte).in_base_units()},
             Pair{(comm_bytes * byte).in_base_units(), compute.in_base_units()},
             Pair{memory.in_base_units(), comm.in_base_units()},
             Pair{launch.in_base_units(), roof.in_base_units()},
             Pair{std::max(roof, launch).in_base_units(), 0.0}};
    if (recording_ != nullptr) recording_->push_back(d);
    apply(d);
  }

  // An op's sums in base units, in OpCost's order (count, kernels, flops, bytes, weight_bytes,
  // kv_bytes, comm_bytes, compute, memory, comm, launch, roof, time), one padding slot: kept as
  // seven pairs so that adding a layer's op is seven vector adds (GCC's vector extension: each
  // lane is an IEEE double add, the same result as the scalar one).
  using Pair = double __attribute__((vector_size(16)));
  struct Sums {
    std::array<Pair, 7> p{};
    double operator[](std::size_t i) const { return p[i / 2][i % 2]; }
  };
  /// What one add() adds to its op, kept so that a layer identical to one already built (same
  /// kind, same pass) adds the very same numbers in the same order without computing them.
  struct OpDelta {
    std::size_t op = 0;
    bool matmul = false;
    Sums v{};
  };
  /// Records every add() into `into` until record(nullptr).
  void record(std::vector<OpDelta>* into) { recording_ = into; }
  /// Adds a recorded layer again: the sums are those its add() calls give, bit for bit.
  void replay(const std::vector<OpDelta>& deltas) {
    for (const OpDelta& d : deltas) apply(d);
  }

  PhaseCost done() {
    PhaseCost& p = phase_;
    for (std::size_t i = 0; i < p.ops.size(); ++i) {
      OpCost& o = p.ops[i];
      const Sums& v = sums_[i];
      o.count = v[0];
      o.kernels = v[1];
      o.flops = Flops::from_base(v[2]);
      o.bytes = Bytes::from_base(v[3]);
      o.weight_bytes = Bytes::from_base(v[4]);
      o.kv_bytes = Bytes::from_base(v[5]);
      o.comm_bytes = Bytes::from_base(v[6]);
      o.compute = Seconds::from_base(v[7]);
      o.memory = Seconds::from_base(v[8]);
      o.comm = Seconds::from_base(v[9]);
      o.launch = Seconds::from_base(v[10]);
      o.roof = Seconds::from_base(v[11]);
      o.time = Seconds::from_base(v[12]);
    }
    for (const OpCost& o : p.ops) {
      p.flops += o.flops;
      p.bytes += o.bytes;
      p.weight_bytes += o.weight_bytes;
      p.kv_bytes += o.kv_bytes;
      p.comm_bytes += o.comm_bytes;
      p.compute += o.compute;
      p.memory += o.memory;
      p.comm += o.comm;
      p.launch += o.launch;
      p.roof += o.roof;
      p.time += o.time;
      p.kernels += o.kernels;
      if (o.matmul) {
        p.matmul_flops += o.flops;
        p.matmul_bytes += o.bytes;
      }
    }
    return std::move(phase_);
  }

 private:
  const ServeInput& in_;
  Seconds per_kernel_;
  std::size_t next_ = 0;  // where add looks first
  PhaseCost phase_;
  std::vector<OpDelta>* recording_ = nullptr;

  static constexpr std::size_t kOps = 32;
  std::vector<Sums> sums_;  // one per op of phase_

  void apply(const OpDelta& d) {
    if (d.op == sums_.size()) sums_.emplace_back();
    phase_.ops[d.op].matmul = d.matmul;
    Sums& to = sums_[d.op];
    for (std::size_t i = 0; i < to.p.size(); ++i) to.p[i] += d.v.p[i];
  }
};

// A linear layer of W weights (per GPU) on n tokens: 2·n·W FLOP; reads the weights and the
// inputs, writes the outputs.
void linear(PhaseBuilder& b, std::string_view name, double kernels, double n, double w, double bytes_per_w,
            double in_width, double out_width) {
  const double wbytes = w * bytes_per_w;
  b.add(name, kernels, 2.0 * n * w, wbytes + n * (in_width + out_width) * kActBytes, wbytes, 0.0, 0.0, true);
}

// One norm over D for n tokens: its weight (and bias: a LayerNorm with norm_bias) is read once.
// OLMo's LayerNorms have no weights (norms_per_layer 0 with a layer norm still applied).
void norm(PhaseBuilder& b, const Setup& s, std::string_view name, double n, bool has_weights = true) {
  const double d = static_cast<double>(s.m.hidden);
  const double per_feature = s.m.norm == specs::NormKind::layernorm && s.m.norm_bias ? 2.0 : 1.0;
  const double w = has_weights ? per_feature * d * s.kept_b : 0.0;
  b.add(name, 1, kNormFlop * n * d, kNormAccesses * n * d * kActBytes + w, w);
}

void attention(PhaseBuilder& b, const Setup& s, const Pass& p, specs::LayerAttention kind) {
  const auto& m = s.m;
  // Keys a query may see: the window on a sliding layer, the chunk on a chunked one (an upper
  // bound in decode: a token sees the keys of its own chunk so far).
  const double w = kind == specs::LayerAttention::sliding   ? static_cast<double>(m.sliding_window)
                   : kind == specs::LayerAttention::chunked ? static_cast<double>(m.attention_chunk)
                                                            : std::numeric_limits<double>::infinity();
  const double h = s.heads_t, n = p.tokens, kvtl = s.kv_token_layer;
  const bool mla = m.attention == specs::AttentionKind::mla;
  // Widths of the query-key product and of the values. MLA prefill decompresses K and V per
  // head; MLA decode attends over the latent with the up-projections absorbed into q and o
  // (DeepSeek-V2 §2.1.2), so its "heads" share one (d_c + d_rope)-wide key and d_c-wide value.
  double dqk = static_cast<double>(m.head_dim), dv = dqk;
  if (mla && p.prefill) {
    dqk = static_cast<double>(m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim);
    dv = static_cast<double>(m.mla.v_head_dim);
  } else if (mla) {
    dqk = static_cast<double>(m.mla.kv_lora_rank + m.mla.qk_rope_head_dim);
    dv = static_cast<double>(m.mla.kv_lora_rank);
  }
  if (p.prefill) {
    const double pairs =
        kind == specs::LayerAttention::chunked ? chunked_pairs(p.ctx, w) : causal_pairs(p.ctx, w);
    const double flops = p.seqs * pairs * h * 2.0 * (dqk + dv);
    // Q and O once; K and V written to the cache and read once (kept on chip across query
    // blocks, the FlashAttention assumption). MLA prefill also reads its decompressed K and V.
    double bytes = n * h * (dqk + dv) * kActBytes + 2.0 * n * kvtl;
    if (mla) bytes += n * h * (dqk + dv) * kActBytes;
    b.add("attention", 1, flops, bytes, 0.0, 2.0 * n * kvtl);
  } else {
    const double keys = std::min(p.ctx, w);
    const double flops = p.seqs * keys * h * 2.0 * (dqk + dv);
    const double kv_read = p.seqs * keys * kvtl;
    b.add("attention", 1, flops, kv_read + p.seqs * kvtl + p.seqs * h * (dqk + dv) * kActBytes, 0.0,
          kv_read + p.seqs * kvtl);
  }
}

// gate_up, activation and down of an MLP of width f_total (split over TP) for `assignments`
// token rows; `copies` is how many such MLPs' weights are read (the touched experts; 1 for a
// dense MLP).
void mlp(PhaseBuilder& b, const Setup& s, double assignments, double f_total, double copies, double wb,
         std::string_view gate_up, std::string_view act, std::string_view down) {
  const auto& m = s.m;
  const double d = static_cast<double>(m.hidden), t = s.t;
  const bool gated = m.ffn_kind == specs::FfnKind::gated;
  const double mats = gated ? 2.0 : 1.0;
  const double up_w = (mats * d * f_total + (m.mlp_bias ? mats * f_total : 0.0)) / t;
  const double down_w = (f_total * d + (m.mlp_bias ? d : 0.0)) / t;
  const double f = f_total / t;
  const double n = assignments;
  b.add(gate_up, 1, 2.0 * n * up_w, copies * up_w * wb + n * (d + mats * f) * kActBytes, copies * up_w * wb, 0.0,
        0.0, true);
  const double el = n * f;
  if (gated)
    b.add(act, 1, kSiluMulFlop * el, 3.0 * el * kActBytes);
  else
    b.add(act, 1, kGeluFlop * el, 2.0 * el * kActBytes);
  b.add(down, 1, 2.0 * n * down_w, copies * down_w * wb + n * (f + d) * kActBytes, copies * down_w * wb, 0.0, 0.0,
        true);
}

void all_reduce(PhaseBuilder& b, const Setup& s, const Pass& p) {
  if (s.t <= 1.0) return;
  b.add("all_reduce", 1, 0.0, 0.0, 0.0, 0.0, p.tokens * static_cast<double>(s.m.hidden) * kActBytes);
}

void layer(PhaseBuilder& b, const Setup& s, const Pass& p, std::int64_t l, double& touched) {
  const auto& m = s.m;
  const bool moe = m.is_moe_layer(l);
  const LayerParams& lp = moe ? s.c.moe_layer : s.c.dense_layer;
  const double d = static_cast<double>(m.hidden), n = p.tokens, t = s.t, h = s.heads_t;
  const bool mla = m.attention == specs::AttentionKind::mla;
  const double dv = mla ? static_cast<double>(m.mla.v_head_dim) : static_cast<double>(m.head_dim);
  const double o_params = static_cast<double>(m.heads) * dv * d + (m.o_bias ? d : 0.0);
  const double qkv_params = static_cast<double>(lp.attention) - o_params;

  // Norms a layer applies: norms_per_layer (1 for a parallel block: GPT-J, Cohere, Falcon-7B; 4
  // with Gemma 2's post-norms), or two without weights (OLMo's non-parametric LayerNorm).
  const bool norm_weights = m.norms_per_layer > 0;
  const int norms = norm_weights ? m.norms_per_layer : 2;
  norm(b, s, "attn_norm", n, norm_weights);
  if (mla) {
    // q_a_proj, q_a_layernorm, q_b_proj (or q_proj), kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj.
    const double kernels = m.mla.q_lora_rank > 0 ? 6.0 : 4.0;
    const double out = h * static_cast<double>(m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim) +
                       static_cast<double>(m.mla.kv_lora_rank + m.mla.qk_rope_head_dim);
    linear(b, "qkv_proj", kernels, n, qkv_params / t, s.wb, d, out);
  } else {
    const double out = (h + 2.0 * s.kv_heads_t) * static_cast<double>(m.head_dim);
    linear(b, "qkv_proj", 1, n, qkv_params / t, s.wb, d, out);
  }
  if (m.qk_norm || m.qk_norm_per_head) {
    // Weights: one d_head vector each for q and k (Qwen3, Gemma 3), or one per head (Cohere,
    // StableLM) or over the whole projections (OLMo-2): (H + H_kv)·d_head, split by TP.
    const double el = n * (h + s.kv_heads_t) * static_cast<double>(m.head_dim);
    const double width = m.qk_norm_per_head || m.qk_norm_full_width ? h + s.kv_heads_t : 2.0;
    const double w = width * static_cast<double>(m.head_dim) * s.kept_b;
    b.add("qk_norm", 1, 4.0 * el, 2.0 * el * kActBytes + w, w);
  }
  if (m.positions == specs::PositionKind::rotary) {
    const double el = mla ? n * (h + 1.0) * static_cast<double>(m.mla.qk_rope_head_dim)
                          : n * (h + s.kv_heads_t) * static_cast<double>(m.head_dim);
    b.add("rope", 1, kRopeFlop * el, 2.0 * el * kActBytes);
  }
  attention(b, s, p, m.layer_attention(l));
  linear(b, "o_proj", 1, n, o_params / t, s.wb, h * dv, d);
  all_reduce(b, s, p);
  for (int i = 2; i < norms; ++i) norm(b, s, "post_norm", n, norm_weights);
  if (norms >= 2) norm(b, s, "mlp_norm", n, norm_weights);
  if (!moe) {
    mlp(b, s, n, static_cast<double>(m.ffn), 1.0, s.wb, "gate_up", "act", "down");
  } else {
    const double e = static_cast<double>(m.moe.n_experts), k = static_cast<double>(m.moe.experts_per_token);
    touched = expected_experts_touched(e, k, n);
    const double router_w = static_cast<double>(lp.router);
    // Router GEMM and the top-k softmax; the router is replicated on every TP rank.
    b.add("router", 2, 2.0 * n * d * e, router_w * s.wb + n * d * kActBytes + n * e * kLogitBytes,
          router_w * s.wb, 0.0, 0.0, true);
    // Every expert is split over TP, so each rank reads 1/t of each touched expert.
    mlp(b, s, n * k, static_cast<double>(m.moe.expert_ffn), touched, s.expert_wb, "experts_gate_up",
        "experts_act", "experts_down");
    // Token permutation to the experts and the weighted combine of the k outputs.
    b.add("moe_combine", 2, 2.0 * n * k * d, 2.0 * (n * d + n * k * d) * kActBytes);
    const double shared =
        static_cast<double>(m.moe.n_shared_experts * m.moe.expert_ffn + m.moe.shared_ffn);
    if (shared > 0.0) mlp(b, s, n, shared, 1.0, s.wb, "shared_gate_up", "shared_act", "shared_down");
  }
  all_reduce(b, s, p);
}

PhaseCost pass_cost(const Setup& s, const Pass& p, Seconds per_kernel, double& touched) {
  const auto& m = s.m;
  PhaseBuilder b(s.in, per_kernel);
  const double d = static_cast<double>(m.hidden);
  const double ew = static_cast<double>(m.embed_proj_dim > 0 ? m.embed_proj_dim : m.hidden);
  // Only the rows of the tokens in the pass are read from the embedding table.
  b.add("embedding", 1, 0.0, p.tokens * (ew * s.kept_b + d * kActBytes), p.tokens * ew * s.kept_b);
  // layer() depends on l only through is_moe_layer(l) and layer_attention(l): each kind of layer
  // is built once per pass and replayed for the other layers of its kind (same sums, bit for bit).
  struct Kind {
    bool moe;
    specs::LayerAttention attention;
    double touched;
    std::vector<PhaseBuilder::OpDelta> deltas;
  };
  thread_local std::vector<Kind> kinds;  // kept between passes for their capacity
  std::size_t n_kinds = 0;
  for (std::int64_t l = 0; l < m.layers; ++l) {
    const bool moe = m.is_moe_layer(l);
    const specs::LayerAttention attention = m.layer_attention(l);
    std::size_t k = 0;
    while (k < n_kinds && !(kinds[k].moe == moe && kinds[k].attention == attention)) ++k;
    if (k < n_kinds) {
      b.replay(kinds[k].deltas);
      if (moe) touched = kinds[k].touched;
      continue;
    }
    if (kinds.size() == n_kinds) kinds.emplace_back();
    Kind& kind = kinds[n_kinds++];
    kind.moe = moe;
    kind.attention = attention;
    kind.deltas.clear();
    b.record(&kind.deltas);
    layer(b, s, p, l, touched);
    b.record(nullptr);
    kind.touched = touched;
  }
  if (m.final_norm) norm(b, s, "final_norm", p.tokens);
  const double v = static_cast<double>(m.vocab);
  const double head_w = (v * ew + (m.lm_head_bias ? v : 0.0)) / s.t;
  b.add("lm_head", 1, 2.0 * p.head_tokens * head_w,
        head_w * s.kept_b + p.head_tokens * (ew * kActBytes + v / s.t * kLogitBytes), head_w * s.kept_b, 0.0, 0.0,
        true);
  return b.done();
}

// count_params(m) of the last model serve saw: a sweep evaluates one model many times (exact
// equality of the whole spec, so the count is the one count_params gives).
// Its stage split is kept with it for the memory ledger (InferenceMemoryInput::stage_cache).
struct ModelMemo {
  specs::ModelSpec m;
  ParamCount c;
  InferenceMemoryInput::StageCache stages;
};
ModelMemo& model_memo(const specs::ModelSpec& m) {
  thread_local std::optional<ModelMemo> memo;
  if (!memo || !(memo->m == m)) {
    ParamCount c = count_params(m);  // may throw: nothing is kept then
    memo = ModelMemo{m, c, {}};
  }
  return *memo;
}
const ParamCount& model_counts(const specs::ModelSpec& m) { return model_memo(m).c; }

Setup make_setup(const specs::ModelSpec& m, const ServeInput& in) {
  Setup s{m, in, model_counts(m), {}};
  const std::vector<StageShard> stages = shard_stages(m, s.c, in.tp, 1.0 * one);
  s.st = stages.front();
  s.t = in.tp.in(one);
  const double bits = dtype_bits(in.weights_dtype);
  const double group = in.group_size.in(one);
  const double per_group = dtype_bits(in.scale_dtype) / 8.0 + (in.zero_points ? bits / 8.0 : 0.0);  // memory.h
  s.wb = bits / 8.0 + (group > 0.0 ? per_group / group : 0.0);
  const bool keep = !in.quantize_all && bits < 16.0;
  s.kept_b = keep ? 2.0 : s.wb;
  s.expert_wb = s.wb;
  if (in.stored_weights) {
    // The checkpoint's bytes, read at their mean width: stored bytes / parameters for every weight.
    s.wb = s.kept_b = s.expert_wb = in.stored_weights->in(byte) / static_cast<double>(s.c.total);
  } else if (keep && in.experts_only) {
    s.wb = 2.0;  // attention, router and any dense MLP stay bf16; only the experts are quantized
  }
  s.heads_t = static_cast<double>(m.heads) / s.t;
  s.kv_heads_t = s.st.kv_heads;
  s.kv_token_layer = kv_bytes_per_token_per_layer(m, in.kv_dtype, s.kv_heads_t).in(byte);
  return s;
}

Pass decode_pass(double batch, double ctx) {
  return Pass{false, batch, batch, batch, ctx};
}

void check(const specs::ModelSpec& m, const ServeInput& in) {
  specs::refuse_encoder_decoder(m, "serve");
  specs::refuse_mamba_layers(m, "serve's per-op cost model has no Mamba mixer (selective scan, convolution, "
                                "state reads)");
  if (m.encoder_only)
    throw InputError("serve: MODEL '" + m.name + "': expected a decoder model (an encoder-only model does not "
                     "generate tokens)");
  require_positive_integer(in.batch, "batch");
  require_positive_integer(in.prompt, "prompt");
  require_positive_integer(in.generate, "generate");
  require_positive_integer(in.tp, "tp");
  require_positive(in.peak, "peak");
  require_positive(in.bandwidth, "bandwidth");
  require_non_negative(in.launch_overhead, "launch_overhead");
  require_non_negative(in.graph_overhead, "graph_overhead");
  if (in.group_size.in(one) != 0.0) require_positive_integer(in.group_size, "group_size");
}

// After shard_stages has checked the TP degree against the heads (the error memory gives).
void check_link(const ServeInput& in) {
  if (in.tp.in(one) > 1.0) {
    if (!in.link_bandwidth)
      throw InputError("--link-bandwidth", "(missing)",
                       "the per-direction GPU-to-GPU bandwidth for --tp > 1, e.g. 450GB/s (or --hw)");
    require_positive(*in.link_bandwidth, "link_bandwidth");
  }
}

}  // namespace

std::string_view to_string(Bound b) {
  switch (b) {
    case Bound::compute: return "compute";
    case Bound::memory: return "memory";
    case Bound::overhead: return "overhead";
    case Bound::communication: return "communication";
  }
  return "";
}

namespace {
Bound bound_of(Seconds compute, Seconds memory, Seconds comm, Seconds launch) {
  Bound b = compute >= memory ? Bound::compute : Bound::memory;
  Seconds top = std::max(compute, memory);
  if (comm > top) {
    b = Bound::communication;
    top = comm;
  }
  if (launch > top) b = Bound::overhead;
  return b;
}
}  // namespace

Bound OpCost::bound() const { return bound_of(compute, memory, comm, launch); }
Intensity OpCost::intensity() const { return bytes.in(byte) > 0.0 ? flops / bytes : 0.0 * flop_per_byte; }
Bound PhaseCost::bound() const { return bound_of(compute, memory, comm, launch); }

Seconds Serve::latency() const {
  return prefill.time + decode_steps * decode.time;
}

double expected_experts_touched(double experts, double top_k, double tokens) {
  if (experts <= 0.0) return 0.0;
  return experts * (1.0 - std::pow(1.0 - top_k / experts, tokens));
}

InferenceMemoryInput serve_memory_input(const ServeInput& in) {
  InferenceMemoryInput mi;
  mi.weights_dtype = in.weights_dtype;
  mi.group_size = in.group_size;
  mi.scale_dtype = in.scale_dtype;
  mi.zero_points = in.zero_points;
  mi.quantize_all = in.quantize_all;
  mi.experts_only = in.experts_only;
  mi.stored_weights = in.stored_weights;
  mi.stored_source = in.stored_source;
  mi.stored_detail = in.stored_detail;
  mi.kv_dtype = in.kv_dtype;
  mi.batch = in.batch;
  mi.context = in.prompt + in.generate;
  mi.tp = in.tp;
  mi.capacity = in.capacity;
  return mi;
}

namespace {

// A graph replay costs one launch from the CPU per step.
void add_graph_launch(PhaseCost& c, Seconds eager) {
  OpCost o;
  o.name = "graph_launch";
  o.count = 1;
  o.kernels = 1;
  o.launch = eager;
  o.time = eager;
  c.ops.push_back(o);
  c.launch += eager;
  c.time += eager;
  c.kernels += 1;
}

// The prefill pass, the decode step at the mean context as launched, and the same step launched
// the other way (with or without CUDA graphs); the graphed one pays its graph launch.
void phases(const Setup& s, const ServeInput& in, Serve& r) {
  const double b = in.batch.in(one), p = in.prompt.in(one);
  const Seconds eager = in.launch_overhead;
  const Seconds graphed = in.graph_overhead;
  r.prefill = pass_cost(s, Pass{true, b, b * p, b, p}, eager, r.touched_experts_prefill);
  double touched = 0.0;
  r.decode = pass_cost(s, decode_pass(b, r.decode_context), in.cuda_graphs ? graphed : eager,
                       r.touched_experts_decode);
  r.decode_alternative = pass_cost(s, decode_pass(b, r.decode_context), in.cuda_graphs ? eager : graphed, touched);
  if (in.cuda_graphs)
    add_graph_launch(r.decode, eager);
  else
    add_graph_launch(*r.decode_alternative, eager);
}

// The batch at which the decode step's intensity ΣC/ΣQ reaches the ridge R/BW. ΣC grows as B;
// ΣQ as W + B·(KV + activations) for a dense model (the experts touched grow with B too, up to
// all of them), so the intensity rises with B towards the per-sequence ratio; when that limit
// is below the ridge, decode never turns compute-bound at this context.
std::optional<std::int64_t> crossing(const Setup& s, double context, bool matmul_only, Intensity& limit) {
  const double ridge = (s.in.peak / s.in.bandwidth).in(flop_per_byte);
  auto intensity_at = [&](double batch) {
    double ignored = 0.0;
    const PhaseCost c = pass_cost(s, decode_pass(batch, context), s.in.launch_overhead, ignored);
    return matmul_only ? (c.matmul_flops / c.matmul_bytes).in(flop_per_byte) : c.intensity().in(flop_per_byte);
  };
  limit = intensity_at(1e12) * flop_per_byte;
  if (limit.in(flop_per_byte) < ridge) return std::nullopt;
  double lo = 0.0, hi = 1.0;  // intensity(lo) < ridge ≤ intensity(hi); lo = 0 stands for "below 1"
  while (intensity_at(hi) < ridge && hi < 1e12) {
    lo = hi;
    hi *= 2.0;
  }
  while (hi - lo > 1.0) {
    const double mid = std::floor((lo + hi) / 2.0);
    if (intensity_at(mid) >= ridge)
      hi = mid;
    else
      lo = mid;
  }
  return static_cast<std::int64_t>(hi);
}

// The crossings do not depend on the batch, and each takes ~20 passes: a sweep reuses them
// when the model and every other input are the same (exact equality, so the numbers are those
// a fresh search gives). The prompt and the generated length enter only through the decode
// context, so a sweep over --prompt keeps one entry per context.
struct Crossings {
  std::optional<std::int64_t> compute_bound_batch, matmul_compute_bound_batch;
  Intensity decode_limit_intensity{}, matmul_limit_intensity{};
};
struct CrossingMemo {
  specs::ModelSpec m;
  ServeInput in;  // batch, prompt and generate zeroed
  std::unordered_map<double, Crossings> by_context;
  std::unordered_map<double, std::int64_t> max_batch;  // by the memory ledger's context, P + G
};

// This thread's memo, emptied when the model or an input other than the batch, the prompt, the
// generated length and the expected figures' coefficients changes, or when it reaches its bound.
CrossingMemo& crossing_memo(const specs::ModelSpec& m, const ServeInput& in) {
  thread_local std::optional<CrossingMemo> memo;
  ServeInput key = in;
  key.batch = key.prompt = key.generate = 0.0 * one;
  key.efficiency.reset();  // the expected figures change neither the crossings nor the fit
  key.efficiency_source = {};
  if (!memo || !(memo->in == key) || !(memo->m == m)) memo = CrossingMemo{m, key, {}, {}};
  constexpr std::size_t kMaxContexts = 1 << 16;  // a bound on the memo, not on the sweep
  if (memo->by_context.size() >= kMaxContexts || memo->max_batch.size() >= kMaxContexts) {
    memo->by_context.clear();
    memo->max_batch.clear();
  }
  return *memo;
}

// The compute-bound batches of the whole step and of its weight matmuls at the decode context,
// searched once per context.
void crossings(const Setup& s, CrossingMemo& memo, Serve& r) {
  const auto [it, fresh] = memo.by_context.try_emplace(r.decode_context);
  Crossings& x = it->second;
  if (fresh) {
    try {
      x.compute_bound_batch = crossing(s, r.decode_context, false, x.decode_limit_intensity);
      x.matmul_compute_bound_batch = crossing(s, r.decode_context, true, x.matmul_limit_intensity);
    } catch (...) {
      memo.by_context.erase(it);
      throw;
    }
  }
  r.compute_bound_batch = x.compute_bound_batch;
  r.matmul_compute_bound_batch = x.matmul_compute_bound_batch;
  r.decode_limit_intensity = x.decode_limit_intensity;
  r.matmul_limit_intensity = x.matmul_limit_intensity;
}

// The inference ledger at context P + G and, with a capacity, the largest batch that fits.
void serve_memory(const specs::ModelSpec& m, const ServeInput& in, CrossingMemo& memo, Serve& r) {
  InferenceMemoryInput mi = serve_memory_input(in);
  ModelMemo& mm = model_memo(m);
  mi.counts = &mm.c;
  mi.stage_cache = &mm.stages;
  r.memory = inference_memory(m, mi);
  if (in.capacity) {
    // The largest batch that fits does not depend on the batch (the solver sets it): one solve
    // per context, kept with the crossings.
    const double context = mi.context.in(one);
    auto found = memo.max_batch.find(context);
    if (found == memo.max_batch.end())
      found = memo.max_batch.emplace(context, solve_inference(m, mi, SolveFor::max_batch)).first;
    r.max_batch = found->second;
  }
}

}  // namespace

Serve serve(const specs::ModelSpec& m, const ServeInput& in) {
  check(m, in);
  const Setup s = make_setup(m, in);
  check_link(in);
  Serve r;
  const double b = in.batch.in(one), p = in.prompt.in(one), g = in.generate.in(one);
  r.decode_context = p + g / 2.0;
  r.decode_steps = g - 1.0;
  phases(s, in, r);
  CrossingMemo& memo = crossing_memo(m, in);
  crossings(s, memo, r);
  if (in.efficiency) {
    r.expected_prefill = expected_phase(r.prefill, *in.efficiency, b * p, in.peak, in.bandwidth);
    r.expected_decode = expected_phase(r.decode, *in.efficiency, 0.0, in.peak, in.bandwidth);
  }
  serve_memory(m, in, memo, r);
  return r;
}

}  // namespace napkin

// ---- the serve command's result ---------------------------------------------------------------

namespace napkin {

using namespace units;

namespace {

void op_series(ResultSet& out, std::string_view key, std::string_view label, const PhaseCost& c) {
  Series& se = out.add_series(key, label, {"op", "count", "kernels", "flops", "bytes", "intensity", "bound", "time",
                                           "share"});
  for (const OpCost& o : c.ops) {
    se.cells.push_back(verdict(o.name));
    se.cells.push_back(value(o.count));
    se.cells.push_back(value(o.kernels));
    se.cells.push_back(value(o.flops));
    se.cells.push_back(value(o.bytes));
    se.cells.push_back(value(o.intensity()));
    se.cells.push_back(verdict(to_string(o.bound())));
    se.cells.push_back(value(o.time));
    se.cells.push_back(value(c.time.in(second) > 0.0 ? o.time / c.time : 0.0));
  }
}

void phase_items(ResultSet& out, const ServeInput& in, const PhaseCost& c, std::string_view time_key,
                 std::string_view time_label, std::string_view bound_key, std::string_view bound_label) {
  const bool tp = in.tp.in(one) > 1.0;
  if (tp)
    out.item(time_key, time_label, value(c.time), "Σ_ops max(C/R, Q/BW, link, n_k·t_k)",
             text("{} kernels: {} / {} = {}, {} / {} = {}, link {}, launch {}", c.kernels, c.flops, in.peak,
                  c.compute, c.bytes, in.bandwidth, c.memory, c.comm, c.launch));
  else
    out.item(time_key, time_label, value(c.time), "Σ_ops max(C/R, Q/BW, n_k·t_k)",
             text("{} kernels: {} / {} = {}, {} / {} = {}, launch {}", c.kernels, c.flops, in.peak, c.compute,
                  c.bytes, in.bandwidth, c.memory, c.launch));
  if (tp)
    out.item(bound_key, bound_label, verdict(to_string(c.bound())), "largest of ΣC/R, ΣQ/BW, Σ link, n_k·t_k",
             text("max({}, {}, {}, {})", c.compute, c.memory, c.comm, c.launch));
  else
    out.item(bound_key, bound_label, verdict(to_string(c.bound())), "largest of ΣC/R, ΣQ/BW, n_k·t_k",
             text("max({}, {}, {})", c.compute, c.memory, c.launch));
}

// The expected figures beside the bound (serve_expected.h), or null values saying why there are
// none (in.efficiency_source.profile: no profile for this engine and hardware).
void expected_items(ResultSet& out, const ServeInput& in, const Serve& r) {
  const ServeInput::EfficiencySource& src = in.efficiency_source;
  if (!in.efficiency) {
    if (src.profile.empty()) return;
    const Value none = no_value("no profile");
    constexpr std::string_view why = "no efficiency profile: the bound only";
    out.item("expected_prefill_time", "expected time to first token", none, why, text(""));
    out.item("expected_decode_time_per_token", "expected time per output token", none, why, text(""));
    out.item("expected_tokens_per_second", "expected decode throughput", none, why, text(""));
    out.item("expected_latency", "expected request latency", none, why, text(""));
    out.remark(text("{}", src.profile));
    return;
  }
  const Efficiency& e = *in.efficiency;
  const bool tp = in.tp.in(one) > 1.0;
  auto phase = [&](std::string_view key, std::string_view label, const ExpectedPhase& x) {
    const bool prefill = x.tokens > 0.0;
    const std::string_view formula = prefill ? "Σ_ops max(C/(η_c·n/(n + n½)·R), Q/(η_bw·BW), link) + t_pass"
                                             : "Σ_ops max(C/(η_c·R), Q/(η_bw·BW), link) + t_pass";
    if (prefill && tp)
      out.item(key, label, value(x.time), formula,
               text("η = {} · {}/({} + {}) = {}: compute {}, memory {}, link {}, + {}", e.compute, x.tokens, x.tokens,
                    e.prefill_half, x.compute_efficiency, x.compute, x.memory, x.comm, e.pass_overhead));
    else if (prefill)
      out.item(key, label, value(x.time), formula,
               text("η = {} · {}/({} + {}) = {}: compute {}, memory {}, + {}", e.compute, x.tokens, x.tokens,
                    e.prefill_half, x.compute_efficiency, x.compute, x.memory, e.pass_overhead));
    else if (tp)
      out.item(key, label, value(x.time), formula,
               text("compute {} at η_c = {}, memory {} at η_bw = {}, link {}, + {}", x.compute, e.compute, x.memory,
                    e.bandwidth, x.comm, e.pass_overhead));
    else
      out.item(key, label, value(x.time), formula,
               text("compute {} at η_c = {}, memory {} at η_bw = {}, + {}", x.compute, e.compute, x.memory,
                    e.bandwidth, e.pass_overhead));
  };
  const ExpectedPhase& pf = *r.expected_prefill;
  const ExpectedPhase& dc = *r.expected_decode;
  phase("expected_prefill_time", "expected time to first token", pf);
  phase("expected_decode_time_per_token", "expected time per output token", dc);
  out.item("expected_tokens_per_second", "expected decode throughput", value((in.batch.in(one) * token) / dc.time),
           "B / t_decode_expected", text("{} / {} (bound {})", in.batch, dc.time, (in.batch.in(one) * token) / r.decode.time));
  out.item("expected_latency", "expected request latency", value(pf.time + r.decode_steps * dc.time),
           "t_prefill + (G − 1) · t_decode, expected", text("{} + {} · {}", pf.time, r.decode_steps, dc.time));
}

// The assumptions behind the expected figures, after the bound's.
void expected_assumptions(ResultSet& out, const ServeInput& in) {
  if (!in.efficiency) return;
  const Efficiency& e = *in.efficiency;
  const ServeInput::EfficiencySource& src = in.efficiency_source;
  out.assume("efficiency", text("expected_*: the bound's ops at η_bw = {} of the bandwidth, η_c = {} of the peak "
                                "(a prefill of n tokens at η_c · n/(n + n½), n½ = {}), {} per pass for the launch "
                                "floor: {}",
                                e.bandwidth, e.compute, e.prefill_half, e.pass_overhead, src.profile));
  if (!src.bandwidth.empty()) out.assume("efficiency_bandwidth", text("{}", src.bandwidth));
  if (!src.compute.empty()) out.assume("efficiency_compute", text("{}", src.compute));
  if (!src.prefill_half.empty()) out.assume("prefill_half_tokens", text("{}", src.prefill_half));
  if (!src.pass_overhead.empty()) out.assume("token_overhead", text("{}", src.pass_overhead));
  if (in.cuda_graphs)
    out.assume("efficiency_launch", text("--cuda-graphs changes the bound only: t_pass is the engine's cost per pass "
                                         "as its measurements ran (with or without graphs, as that engine does)"));
}

const OpCost* find_op(const PhaseCost& c, std::string_view name) {
  for (const auto& o : c.ops)
    if (o.name == name) return &o;
  return nullptr;
}

// The numbers the serve result itemizes, all computed before its first row; each step below adds
// one part of the result from them, in the order the renderers print it.
struct ServeReport {
  const specs::ModelSpec& m;
  const ServeInput& in;
  Serve r;
  bool tp = false, moe = false, mla = false;
  Count batch{}, ctx{}, context{};  // B; the decode step's mean context P + G/2; the ledger's P + G
  Intensity ridge{};

  ServeReport(const specs::ModelSpec& model, const ServeInput& i);

  void inputs(ResultSet& out) const;
  void speed_items(ResultSet& out) const;
  void decode_items(ResultSet& out) const;
  void crossing_items(ResultSet& out) const;
  void launch_items(ResultSet& out) const;
  void memory_items(ResultSet& out) const;
  void notes(ResultSet& out) const;
  void dtype_assumptions(ResultSet& out) const;
  void roofline_assumptions(ResultSet& out) const;
  void kernel_assumptions(ResultSet& out) const;
  void run_assumptions(ResultSet& out) const;
};

ServeReport::ServeReport(const specs::ModelSpec& model, const ServeInput& i) : m(model), in(i), r(serve(model, i)) {
  tp = in.tp.in(one) > 1.0;
  moe = m.moe.is_moe();
  mla = m.attention == specs::AttentionKind::mla;
  batch = in.batch;
  ctx = r.decode_context * one;
  context = in.prompt + in.generate;
  ridge = in.peak / in.bandwidth;
}

// The command's inputs: the model, the dtypes, the shape of the run, the hardware and launch
// figures, and the efficiency coefficients when there are expected figures.
void ServeReport::inputs(ResultSet& out) const {
  out.command = "serve";
  out.input("model", verdict(m.name));
  out.input("weights_dtype", verdict(in.stored_weights ? std::string_view("as stored") : dtype_name(in.weights_dtype)));
  out.input("kv_dtype", verdict(dtype_name(in.kv_dtype)));
  out.input("compute_dtype", verdict(dtype_name(in.compute_dtype)));
  out.input("batch", value(in.batch));
  out.input("prompt", value(in.prompt));
  out.input("generate", value(in.generate));
  out.input("tp", value(in.tp));
  out.input("peak", value(in.peak));
  out.input("bandwidth", value(in.bandwidth));
  if (tp) out.input("link_bandwidth", value(*in.link_bandwidth));
  out.input("launch_overhead", value(in.launch_overhead));
  out.input("cuda_graphs", boolean(in.cuda_graphs));
  if (in.efficiency) {
    out.input("efficiency_bandwidth", value(in.efficiency->bandwidth));
    out.input("efficiency_compute", value(in.efficiency->compute));
    out.input("prefill_half_tokens", value(in.efficiency->prefill_half));
    out.input("token_overhead", value(in.efficiency->pass_overhead));
  }
}

// Prefill and decode times with their bounds, the decode throughput and the request latency,
// then the expected figures beside them.
void ServeReport::speed_items(ResultSet& out) const {
  phase_items(out, in, r.prefill, "prefill_time", "prefill (time to first token)", "prefill_bound", "prefill bound");
  phase_items(out, in, r.decode, "decode_time_per_token", "decode step (time per output token)", "decode_bound",
              "decode bound");
  out.item("tokens_per_second", "decode throughput, all sequences", value((batch.in(one) * token) / r.decode.time),
           "B / t_decode", text("{} / {}", batch, r.decode.time));
  out.item("tokens_per_second_per_sequence", "decode speed of one sequence", value((1.0 * token) / r.decode.time),
           "1 / t_decode", text("1 / {}", r.decode.time));
  out.item("latency", "request latency", value(r.latency()), "t_prefill + (G − 1) · t_decode",
           text("{} + {} · {}", r.prefill.time, r.decode_steps, r.decode.time));
  expected_items(out, in, r);
}

// What a decode step reads (weights, KV cache) and its intensity against the ridge.
void ServeReport::decode_items(ResultSet& out) const {
  out.item("decode_weight_bytes", "weights read per decode step", value(r.decode.weight_bytes),
           "Σ weights of the step's kernels", text("{} of the {} stored (embedding: the batch's rows only)",
                                                   r.decode.weight_bytes, r.memory.weights));
  out.item("decode_kv_bytes", "KV cache read and written per step", value(r.decode.kv_bytes),
           "Σ_layers B · (min(ctx, W) + 1) · KV/token/layer", text("{} sequence(s) at mean context {}", batch, ctx));
  out.item("decode_intensity", "decode intensity", value(r.decode.intensity()), "ΣC / ΣQ",
           text("{} / {}", r.decode.flops, r.decode.bytes));
  out.item("ridge_intensity", "ridge point", value(ridge), "I* = R_peak / BW", text("{} / {}", in.peak, in.bandwidth));
}

// The batches at which the decode step, and its weight matmuls alone, turn compute-bound (or never).
void ServeReport::crossing_items(ResultSet& out) const {
  if (r.compute_bound_batch)
    out.item("compute_bound_batch", "decode turns compute-bound at batch", value(static_cast<double>(*r.compute_bound_batch)),
             "min B with ΣC(B) / ΣQ(B) ≥ I*",
             text("at context {}: ΣC/ΣQ rises with B towards {}, reaching {} at B = {}", ctx, r.decode_limit_intensity,
                  ridge, static_cast<double>(*r.compute_bound_batch)));
  else
    out.item("compute_bound_batch", "decode turns compute-bound at batch", no_value("never"),
             "ΣC(B) / ΣQ(B) < I* for every B",
             text("at context {}: ΣC/ΣQ → {} as B → ∞ (KV reads grow with B like the FLOP), below {}", ctx,
                  r.decode_limit_intensity, ridge));
  if (r.matmul_compute_bound_batch)
    out.item("matmul_compute_bound_batch", "weight matmuls turn compute-bound at batch",
             value(static_cast<double>(*r.matmul_compute_bound_batch)), "min B with ΣC_mm(B) / ΣQ_mm(B) ≥ I*",
             text("the weight GEMMs alone (their weights and activations): → {} as B → ∞, reaching {} at B = {}",
                  r.matmul_limit_intensity, ridge, static_cast<double>(*r.matmul_compute_bound_batch)));
  else
    out.item("matmul_compute_bound_batch", "weight matmuls turn compute-bound at batch", no_value("never"),
             "ΣC_mm(B) / ΣQ_mm(B) < I* for every B",
             text("the weight GEMMs alone: → {} as B → ∞, below {}", r.matmul_limit_intensity, ridge));
}

// The decode time lost to launches, the step in the other launch mode, and the all-reduce under TP.
void ServeReport::launch_items(ResultSet& out) const {
  out.item("decode_launch_time", "decode time lost to launch overhead", value(r.decode.time - r.decode.roof),
           "Σ_ops max(0, n_k·t_k − roofline time)", text("{} − {}", r.decode.time, r.decode.roof));
  if (in.cuda_graphs)
    out.item("decode_time_eager", "decode step without CUDA graphs", value(r.decode_alternative->time),
             "as decode, t_k = t_launch", text("{} kernels · {} floor", r.decode_alternative->kernels, in.launch_overhead));
  else
    out.item("decode_time_cuda_graphs", "decode step with --cuda-graphs", value(r.decode_alternative->time),
             "as decode, t_k = t_graph, + one graph launch",
             text("{} kernels · {} floor + {}", r.decode_alternative->kernels - 1.0, in.graph_overhead,
                  in.launch_overhead));
  if (tp) {
    if (const OpCost* ar = find_op(r.decode, "all_reduce"))
      out.item("decode_all_reduce_time", "decode all-reduce time", value(ar->time),
               "2 · L · max(2(t−1)/t · B·D·2 B / BW_link, t_k)",
               text("{} · max(2 · ({} − 1)/{} · {} / {}, {})", ar->count, in.tp, in.tp, ar->comm_bytes / ar->count,
                    *in.link_bandwidth, in.cuda_graphs ? in.graph_overhead : in.launch_overhead));
  }
}

// The ledger, as napkin memory computes it at the final context, and whether it fits.
void ServeReport::memory_items(ResultSet& out) const {
  const InferenceMemory& mem = r.memory;
  out.item("weights", "weights", value(mem.weights), "napkin memory ledger", text(""));
  out.item("kv_cache", "KV cache", value(mem.kv_cache), "napkin memory ledger",
           text("{} sequence(s) · {} tokens", batch, context));
  out.item("activations", "activations (transient)", value(mem.activations), "napkin memory ledger", text(""));
  out.item("runtime_reserve", "runtime reserve", value(mem.runtime_reserve), "napkin memory ledger", text(""));
  out.item("per_gpu", "per GPU", value(mem.per_gpu()), "sum of the rows above",
           text("{} + {} + {} + {}", mem.weights, mem.kv_cache, mem.activations, mem.runtime_reserve))
      .is_total = true;
  if (in.capacity) {
    fit_items(mem.per_gpu(), *in.capacity, out);
    out.item("max_batch", "largest batch that fits", value(static_cast<double>(*r.max_batch)),
             "napkin memory --max batch", text("at context {}", context));
  }
}

// The notes --explain shows: what bounds a decode step and when it turns compute-bound.
void ServeReport::notes(ResultSet& out) const {
  out.note(text("decode reads {} of weights per step: {} / {} = {}, the memory floor of a step at any batch",
                r.decode.weight_bytes, r.decode.weight_bytes, in.bandwidth, r.decode.weight_bytes / in.bandwidth));
  out.note(text("the KV cache adds {} per step ({} / {} = {}), growing with batch and context", r.decode.kv_bytes,
                r.decode.kv_bytes, in.bandwidth, r.decode.kv_bytes / in.bandwidth));
  out.note(text("{} kernels per step at {} each: {} of launch time; a kernel shorter than that takes its launch time, "
                "so small steps are overhead-bound (notes 7.2)",
                r.decode.kernels, in.cuda_graphs ? in.graph_overhead : in.launch_overhead, r.decode.launch));
  out.note(text("a step turns compute-bound when ΣC/ΣQ ≥ I* = {}; at batch {} it is {}", ridge, batch,
                r.decode.intensity()));
  if (r.compute_bound_batch && r.max_batch && *r.compute_bound_batch > *r.max_batch)
    out.note(text("decode turns compute-bound at batch {}, but the GPU memory holds at most {} sequences of {} tokens",
                  static_cast<double>(*r.compute_bound_batch), static_cast<double>(*r.max_batch), context));
}

// The run's shape and how the weights, the KV cache and the matmuls are stored and computed.
void ServeReport::dtype_assumptions(ResultSet& out) const {
  out.assume("serve_shape", text("{} sequence(s): {}-token prompt, {} generated tokens; prefill gives the first token, "
                                 "{} decode steps at the mean context P + G/2 = {}",
                                 batch, in.prompt, in.generate, r.decode_steps, ctx));
  if (in.stored_weights) {
    out.assume("weights_dtype", text("weights as stored in {}: {} ({}), read at their mean width (stored bytes / "
                                     "parameters)", in.stored_source, *in.stored_weights, in.stored_detail));
  } else {
    out.assume("weights_dtype", text("weights stored and read in {} ({} bits per parameter)",
                                     dtype_name(in.weights_dtype), dtype_bits(in.weights_dtype)));
    if (!in.quantize_all && dtype_bits(in.weights_dtype) < 16)
      out.assume("unquantized", text(in.experts_only ? "only the routed experts' weight matrices quantized; attention, "
                                                       "router, embeddings, LM head and norms kept in bf16"
                                                     : "embeddings, LM head and norms kept in bf16"));
    if (in.group_size.in(one) > 0.0)
      out.assume("group_size", text("one {} scale{} per group of {} weights, read with them",
                                    dtype_name(in.scale_dtype),
                                    in.zero_points ? " and zero point (at the weights' width)" : "", in.group_size));
  }
  out.assume("kv_dtype", text("KV cache stored in {} ({} per element)", dtype_name(in.kv_dtype), dtype_size(in.kv_dtype)));
  out.assume("compute_dtype", text("matmuls run at the dense {} peak (lower-precision weights dequantized in the kernel)",
                                   dtype_name(in.compute_dtype)));
}

// The roofline each kernel runs on: peak, bandwidth, the launch floor and CUDA graphs.
void ServeReport::roofline_assumptions(ResultSet& out) const {
  out.assume("peak", text("{} is the peak compute rate (dense)", in.peak));
  out.assume("bandwidth", text("{} memory bandwidth for weights, KV cache and activations", in.bandwidth));
  out.assume("roofline_model", text("each kernel takes max(C/R, Q/BW): compute and memory overlap perfectly; caches, "
                                    "latency, occupancy and wave quantization ignored"));
  out.assume("launch_overhead", text("{} per kernel launch, not hidden: a kernel takes at least that long (the CPU does "
                                     "not run ahead); {} kernels in prefill, {} in a decode step",
                                     in.launch_overhead, r.prefill.kernels, r.decode.kernels));
  if (in.cuda_graphs) {
    out.assume("cuda_graphs", text("decode replayed from a CUDA graph: one {} launch per step, then {} per kernel; "
                                   "prefill launched eagerly", in.launch_overhead, in.graph_overhead));
    out.assume("graph_overhead", text("{} per kernel inside a CUDA graph (a round figure, not a measurement)",
                                      in.graph_overhead));
  } else {
    out.assume("cuda_graphs", text("decode launched kernel by kernel (no CUDA graphs)"));
  }
}

// How the ops are counted: kernels per layer, FLOP per element, attention, and the model's
// MLA, windowed, chunked and MoE layers.
void ServeReport::kernel_assumptions(ResultSet& out) const {
  const std::string_view qkv_kernels = !mla ? "fused QKV" : m.mla.q_lora_rank > 0 ? "MLA projections and norms 6"
                                                                                   : "MLA projections and norm 4";
  const bool shared = m.moe.n_shared_experts > 0 || m.moe.shared_ffn > 0;
  if (moe)
    out.assume("kernel_count",
               text("kernels per layer: norm + residual, {}, RoPE, attention, O, norm + residual, then dense layers "
                    "gate/up, activation, down; MoE layers router 2, experts 3 (grouped GEMMs), permute/combine 2{}{}",
                    qkv_kernels, shared ? ", shared expert 3" : "", tp ? "; 2 all-reduces" : ""));
  else
    out.assume("kernel_count",
               text("kernels per layer: norm + residual, {}, RoPE, attention, O, norm + residual, fused gate/up, "
                    "activation, down (vLLM-style fusion){}", qkv_kernels, tp ? "; 2 all-reduces" : ""));
  out.assume("op_counting", text("FLOP per element: norm + residual 5, RoPE 3, SiLU·mul 5, GELU 9; softmax, scaling and "
                                 "masking not counted; activations move in bf16, logits in fp32"));
  out.assume("attention_kernel", text("one fused FlashAttention-style kernel: scores stay on chip, K/V read once; "
                                      "causal prefill computes P(P+1)/2 query-key pairs per sequence"));
  if (mla)
    out.assume("mla_attention", text("MLA: prefill decompresses K and V per head; decode attends over the cached latent "
                                     "with the up-projections absorbed (DeepSeek-V2 §2.1.2)"));
  if (m.layers_of(specs::LayerAttention::sliding) > 0)
    out.assume("sliding_window", text("windowed layers attend to at most {} keys", static_cast<double>(m.sliding_window)));
  if (m.layers_of(specs::LayerAttention::chunked) > 0)
    out.assume("attention_chunk", text("{} chunked layers attend within chunks of {} tokens (in decode, at most {} keys: "
                                       "an upper bound)",
                                       static_cast<double>(m.layers_of(specs::LayerAttention::chunked)),
                                       static_cast<double>(m.attention_chunk), static_cast<double>(m.attention_chunk)));
  if (moe)
    out.assume("moe_routing", text("uniform, independent routing: n tokens touch E·(1 − (1 − k/E)^n) of a layer's {} "
                                   "experts, {} in a decode step, {} in prefill; each touched expert read once",
                                   static_cast<double>(m.moe.n_experts), r.touched_experts_decode,
                                   r.touched_experts_prefill));
}

// The prefill pass, tensor parallelism, the memory ledger's settings and what is not counted.
void ServeReport::run_assumptions(ResultSet& out) const {
  out.assume("prefill_pass", text("the {} prompt tokens run as one forward pass (weights read once); logits only for "
                                  "the last position of each prompt", batch.in(one) * in.prompt));
  if (tp) {
    out.assume("tp", text("TP {}: heads, MLP columns and vocabulary split Megatron-style; 2 ring all-reduces of "
                          "tokens·D·2 B per layer; collective latency beyond the kernel launch not modelled", in.tp));
    out.assume("link_bandwidth", text("{} per direction between GPUs", *in.link_bandwidth));
  }
  out.assume("memory_ledger", text("weights … per_gpu: napkin memory's inference ledger at context {} (512 MiB CUDA "
                                   "context, 5% fragmentation, 2048-token prefill chunk; napkin memory MODEL --context "
                                   "{} for the details)", context, context));
  out.assume("serve_extras", text("not counted: sampling, detokenization, the scheduler's CPU time, host-device copies, "
                                  "speculative decoding; no pipeline parallelism"));
}

}  // namespace

void serve(const specs::ModelSpec& m, const ServeInput& in, bool per_op, ResultSet& out) {
  const ServeReport t(m, in);
  t.inputs(out);
  t.speed_items(out);
  t.decode_items(out);
  t.crossing_items(out);
  t.launch_items(out);
  t.memory_items(out);
  t.notes(out);
  if (per_op) {
    op_series(out, "prefill_ops", "Prefill ops (per GPU, summed over layers)", t.r.prefill);
    op_series(out, "decode_ops", "Decode ops (one step, per GPU, summed over layers)", t.r.decode);
  }
  t.dtype_assumptions(out);
  t.roofline_assumptions(out);
  t.kernel_assumptions(out);
  t.run_assumptions(out);
  expected_assumptions(out, in);
}

}  // namespace napkin
