// serve()'s numbers: the per-op cost of a prefill pass and a decode step, the crossings, the memory
// ledger. serve_report.cpp turns them into the command's items.
#include "napkin/plans/serve.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"
#include "napkin/model/parallel.h"
#include "napkin/model/params.h"

namespace napkin {

using namespace units;

namespace {

// Activations move in bf16 between kernels; logits are written in fp32 (as states_weights_kv.cpp's ledger
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
  const double per_group = dtype_bits(in.scale_dtype) / 8.0 + (in.zero_points ? bits / 8.0 : 0.0);  // memory/ledgers.h
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
  specs::refuse_unmodelled_layers(m, "serve's per-op cost model has dense attention and MLP layers only");
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

PhaseCost training_forward_pass(const specs::ModelSpec& m, const ServeInput& given) {
  check(m, given);
  ServeInput in = given;  // the ops' link time is not read: any positive link fills it
  if (!in.link_bandwidth) in.link_bandwidth = 1.0 * GB_per_s;
  const Setup s = make_setup(m, in);
  const double b = in.batch.in(one), p = in.prompt.in(one);
  double touched = 0.0;
  return pass_cost(s, Pass{true, b, b * p, b * p, p}, in.launch_overhead, touched);
}

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
