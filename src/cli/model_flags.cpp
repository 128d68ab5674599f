#include "model_flags.h"

#include <algorithm>
#include <cstdint>

#include "napkin/ground/error.h"
#include "napkin/specs/hf_config.h"

namespace napkin::cli {

namespace {

constexpr const char* kGroup = "Made-up model";

double N(std::int64_t v) { return static_cast<double>(v); }

}  // namespace

void MadeUpModelFlags::add(CommandApp* sub, NumericFlags& nf, std::optional<std::size_t> layers,
                           std::optional<std::size_t> vocab) {
  const auto count = [&](const char* flag, const char* name, const char* help) {
    const std::size_t i = nf.add(sub, flag, name, dim_rt<Count::dim>(), Constraint::positive_integer, help, "COUNT");
    sub->get_option(flag)->group(kGroup);
    return i;
  };
  layers_ = layers ? *layers
                   : count("--layers", "layers",
                           "A made-up decoder instead of MODEL: its layers L (with --hidden, --heads, --ffn, --vocab; "
                           "Llama's conventions, each stated under Assumptions)");
  hidden_ = count("--hidden", "hidden", "Made-up decoder: hidden size D");
  heads_ = count("--heads", "heads", "Made-up decoder: attention (query) heads H");
  kv_heads_ = count("--kv-heads", "kv_heads", "Made-up decoder: key/value heads H_kv, a divisor of H (default H: "
                                             "multi-head attention; 1: multi-query)");
  head_dim_ = count("--head-dim", "head_dim", "Made-up decoder: head dimension d_head (default D/H, refused when that is "
                                             "not an integer)");
  ffn_ = count("--ffn", "ffn", "Made-up decoder: MLP width F (with --moe-experts: each expert's width)");
  vocab_ = vocab ? *vocab : count("--vocab", "vocab", "Made-up decoder: vocabulary size V");
  sub->add_flag("--tied", tied_, "Made-up decoder: the LM head shares the embedding matrix (default untied)")
      ->group(kGroup);
  sub->add_flag("--no-gated", no_gated_, "Made-up decoder: a plain 2-matrix MLP (up, GELU-style activation, down) "
                                         "instead of gated SwiGLU (gate, up, down)")
      ->group(kGroup);
  moe_experts_ = count("--moe-experts", "moe_experts", "Made-up decoder: every layer a mixture of E routed experts "
                                                       "(default dense; no shared expert)");
  moe_top_k_ = count("--moe-top-k", "moe_top_k", "Made-up decoder: experts per token k, 1 to E (with --moe-experts)");
  moe_ffn_ = count("--moe-ffn", "moe_ffn", "Made-up decoder: width of one expert, instead of --ffn (with --moe-experts)");
  sub_ = sub;
}

std::string MadeUpModelFlags::first_given(std::initializer_list<std::string_view> except) const {
  // In the order of the help: what a message names first.
  for (const char* flag : {"--layers", "--hidden", "--heads", "--kv-heads", "--head-dim", "--ffn", "--vocab", "--tied",
                           "--no-gated", "--moe-experts", "--moe-top-k", "--moe-ffn"}) {
    if (std::find(except.begin(), except.end(), std::string_view(flag)) != except.end()) continue;
    if (sub_ != nullptr && sub_->get_option(flag)->count() > 0) return flag;
  }
  return "";
}

std::string MadeUpModelFlags::select(const NumericFlags& nf, const std::string& model, const std::string& as,
                                     std::initializer_list<std::string_view> except, const std::string& other) const {
  std::string flag = first_given(except);
  if (flag.empty()) return flag;
  if (!model.empty()) refuse_with(nf, flag, "MODEL '" + model + "'");
  if (!other.empty()) refuse_with(nf, flag, other);
  check(as);
  return flag;
}

std::string MadeUpModelFlags::shown(const NumericFlags& nf, std::string_view flag) const {
  if (flag == "--tied" || flag == "--no-gated") return std::string(flag);
  for (const NumericFlag& f : nf.flags())
    if (f.flag == flag) return f.flag + " " + f.raw;
  return std::string(flag);
}

void MadeUpModelFlags::refuse_with(const NumericFlags& nf, std::string_view flag, const std::string& other) const {
  const std::string s = shown(nf, flag);
  const auto space = s.find(' ');
  const std::string value = space == std::string::npos ? "(given)" : s.substr(space + 1);
  throw InputError(std::string(flag), value,
                   "either " + other + " or a made-up decoder's flags, not both (the flags describe a model of their own)");
}

void MadeUpModelFlags::check(const std::string& as) const {
  if (!as.empty())
    throw InputError("--as", as, "MODEL with it (it reads a config.json by analogy; a made-up decoder states its layout "
                                 "by flags)");
}

specs::DecoderShape MadeUpModelFlags::shape_at(const Point& p) const {
  const auto v = [&p](std::size_t i) -> std::int64_t { return p.has(i) ? static_cast<std::int64_t>(p[i]) : 0; };
  specs::DecoderShape s;
  s.layers = v(layers_);
  s.hidden = v(hidden_);
  s.heads = v(heads_);
  s.kv_heads = v(kv_heads_);
  s.head_dim = v(head_dim_);
  s.ffn = v(ffn_);
  s.vocab = v(vocab_);
  s.tied = tied_;
  s.gated = !no_gated_;
  s.moe_experts = v(moe_experts_);
  s.moe_top_k = v(moe_top_k_);
  s.moe_ffn = v(moe_ffn_);
  return s;
}

bool MadeUpModelFlags::build(const Point& p, specs::ModelSpec& spec) {
  const specs::DecoderShape s = shape_at(p);
  if (built_ && *built_ == s) return false;
  spec = specs::made_up_decoder(s);
  built_ = s;
  return true;
}

void MadeUpModelFlags::describe(const NumericFlags& nf, const Point& p, ResultSet& rs) const {
  const specs::DecoderShape s = shape_at(p);
  const std::int64_t kv = s.kv_heads != 0 ? s.kv_heads : s.heads;
  // A swept size is a column of the sweep: the row names its value.
  for (std::size_t i : {layers_, hidden_, heads_, kv_heads_, head_dim_, ffn_, vocab_, moe_experts_, moe_top_k_, moe_ffn_}) {
    const NumericFlag& f = nf.flags()[i];
    if (f.given && f.axis.size() > 1 && rs.find_input(f.name) == nullptr) rs.input(f.name, value(p[i]));
  }
  if (kv == s.heads)
    rs.assume("made_up_attention",
              text("made-up decoder: {} key/value heads, one per query head (multi-head attention)", N(kv)));
  else if (kv == 1)
    rs.assume("made_up_attention",
              text("made-up decoder: 1 key/value head shared by the {} query heads (multi-query attention)", N(s.heads)));
  else
    rs.assume("made_up_attention", text("made-up decoder: {} key/value heads, each shared by {} query heads "
                                        "(grouped-query attention)",
                                        N(kv), N(s.heads / kv)));
  if (s.head_dim == 0)
    rs.assume("made_up_head_dim",
              text("made-up decoder: d_head = D / H = {} / {} = {}", N(s.hidden), N(s.heads), N(s.hidden / s.heads)));
  else
    rs.assume("made_up_head_dim", text("made-up decoder: d_head = {} as given (H · d_head = {}; D = {})", N(s.head_dim),
                                       N(s.heads * s.head_dim), N(s.hidden)));
  if (s.tied)
    rs.assume("made_up_embeddings", text("made-up decoder: tied embeddings: the LM head is the embedding matrix"));
  else
    rs.assume("made_up_embeddings", text("made-up decoder: untied embeddings: the LM head is its own V × D matrix"));
  if (s.gated)
    rs.assume("made_up_mlp", text("made-up decoder: gated SwiGLU MLP, 3 matrices (gate and up D → F, down F → D)"));
  else
    rs.assume("made_up_mlp", text("made-up decoder: plain MLP, 2 matrices (up D → F, a GELU-style activation, down "
                                  "F → D)"));
  if (s.is_moe())
    rs.assume("made_up_moe", text("made-up decoder: every layer a mixture of {} experts of width {}, {} per token, "
                                  "routed by a D × E linear without bias; no shared expert",
                                  N(s.moe_experts), N(s.moe_ffn != 0 ? s.moe_ffn : s.ffn), N(s.moe_top_k)));
  else
    rs.assume("made_up_moe", text("made-up decoder: dense, one MLP in every layer"));
  rs.assume("made_up_norms", text("made-up decoder: RMSNorm (a weight, no bias) before attention and the MLP, and at "
                                  "the end"));
  rs.assume("made_up_layout", text("made-up decoder: no bias in any linear layer; rotary positions (no position "
                                   "weights)"));
  if (rs.command != "params" && rs.command != "flops train")
    rs.assume("made_up_context", text("made-up decoder: no trained context length (no context is refused or warned "
                                      "about as too long)"));
}

void add_as_option(CommandApp* sub, std::string& as, bool& text_only) {
  sub->add_flag("--text-only", text_only,
                "Count the language model only: drop the vision (or audio) tower and projector a multimodal "
                "checkpoint ships (counted by default)")
      ->group("Model");
  // The families' list is built only where the option is (help, or --as typed).
  sub->add_option("--as", as,
                  sub->adds("--as") ? "Read a config.json whose model_type napkin does not know by analogy with "
                                      "FAMILY (" + specs::family_names() +
                                          "); the count is then not exact, and every run says so on stderr"
                                    : std::string())
      ->type_name("FAMILY")
      ->group("Model");
}

}  // namespace napkin::cli
