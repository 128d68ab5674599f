// Online softmax (course notes 7.8): one row of scores processed block by block with a running
// maximum and sum, checked against the two-pass softmax; the per-block table and its explanation.
#include "napkin/kernel/gpu_kernel.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"

namespace napkin {

using namespace units;

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A plain number in full (strtod would accept "inf", "nan" and hex; we do not).
bool parse_plain(std::string_view s, double& v) {
  if (s.empty()) return false;
  for (char c : s)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'))
      return false;
  if (!std::isdigit(static_cast<unsigned char>(s.front())) && s.front() != '.') return false;
  const std::string str(s);
  char* end = nullptr;
  v = std::strtod(str.c_str(), &end);
  return end == str.c_str() + str.size() && std::isfinite(v);
}

// One token: [sign] (number | e | inf | ln NUMBER | ln(NUMBER) | ln(e)).
double parse_token(std::string_view raw, std::string_view field, bool allow_neg_inf) {
  const std::string_view expected =
      allow_neg_inf ? "numbers such as 1.5, e, ln2, ln(3) or -inf (masked), separated by commas"
                    : "finite numbers such as 1.5, e, ln2 or ln(3), separated by commas";
  std::string_view s = trim(raw);
  double sign = 1;
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
    sign = s.front() == '-' ? -1 : 1;
    s.remove_prefix(1);
  }
  double v = 0;
  if (s == "e") {
    v = std::exp(1.0);
  } else if (s == "inf") {
    if (sign > 0 || !allow_neg_inf) throw InputError(std::string(field), std::string(trim(raw)), std::string(expected));
    return kNegInf;
  } else if (s.substr(0, 2) == "ln") {
    std::string_view arg = s.substr(2);
    if (arg.size() >= 2 && arg.front() == '(' && arg.back() == ')') arg = trim(arg.substr(1, arg.size() - 2));
    double x = 0;
    if (arg == "e")
      x = std::exp(1.0);
    else if (!parse_plain(arg, x))
      throw InputError(std::string(field), std::string(trim(raw)), std::string(expected));
    if (!(x > 0))
      throw InputError(std::string(field), std::string(trim(raw)), "ln of a positive number (write -inf for a masked score)");
    v = std::log(x);
  } else if (!parse_plain(s, v)) {
    throw InputError(std::string(field), std::string(trim(raw)), std::string(expected));
  }
  return sign * v;
}

std::vector<double> parse_list(std::string_view text, std::string_view field, bool allow_neg_inf) {
  std::vector<double> out;
  std::size_t pos = 0;
  while (true) {
    const auto comma = text.find(',', pos);
    out.push_back(parse_token(text.substr(pos, comma == std::string_view::npos ? text.npos : comma - pos), field,
                              allow_neg_inf));
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return out;
}

}  // namespace

std::vector<double> parse_score_list(std::string_view text, std::string_view field) {
  return parse_list(text, field, true);
}

std::vector<std::vector<double>> parse_value_rows(std::string_view text, std::string_view field) {
  std::vector<std::vector<double>> rows;
  if (text.find(';') == std::string_view::npos) {
    for (double v : parse_list(text, field, false)) rows.push_back({v});
    return rows;
  }
  std::size_t pos = 0;
  while (true) {
    const auto semi = text.find(';', pos);
    rows.push_back(parse_list(text.substr(pos, semi == std::string_view::npos ? text.npos : semi - pos), field, false));
    if (rows.back().size() != rows.front().size())
      throw InputError(std::string(field), std::string(text),
                       "rows of equal length (row 1 has " + std::to_string(rows.front().size()) + " numbers, row " +
                           std::to_string(rows.size()) + " has " + std::to_string(rows.back().size()) + ")");
    if (semi == std::string_view::npos) break;
    pos = semi + 1;
  }
  return rows;
}

OnlineSoftmax online_softmax(const OnlineSoftmaxInput& in) {
  const std::size_t n = in.scores.size();
  if (n == 0) throw InputError("scores", "", "at least one score");
  for (double s : in.scores)
    if (std::isnan(s) || s == std::numeric_limits<double>::infinity())
      throw InputError("scores", format_plain_number(s), "finite scores or -inf (a masked position)");
  if (in.values.size() != n)
    throw InputError("values", std::to_string(in.values.size()) + " values",
                     "one value (or one row) per score: " + std::to_string(n));
  const std::size_t d = in.values.front().size();
  for (const auto& row : in.values) {
    if (row.size() != d || d == 0) throw InputError("values", std::to_string(row.size()) + " numbers in a row",
                                                    "rows of equal, non-zero length");
    for (double v : row)
      if (!std::isfinite(v)) throw InputError("values", format_plain_number(v), "finite values");
  }
  double total = 0;
  for (double b : in.blocks) {
    if (!std::isfinite(b) || b < 1 || std::floor(b) != b)
      throw InputError("blocks", format_plain_number(b), "block sizes that are positive integers");
    total += b;
  }
  if (total != static_cast<double>(n))
    throw InputError("blocks", "sum " + format_plain_number(total),
                     "block sizes summing to the number of scores, " + std::to_string(n));

  OnlineSoftmax r;
  // Notes 7.8. The running state starts at m = −∞, ℓ = 0, u = 0. A score of −∞ contributes
  // exp(−∞) = 0 and is skipped rather than evaluated as −∞ − m'. While m = −∞ (every score so
  // far is −∞) there are no old terms: ℓ = 0 and u = 0 have nothing to rescale, so no factor is
  // computed (no exp(−∞ − m'), no −∞ − (−∞)) and the step records none.
  double m = kNegInf, l = 0;
  std::vector<double> u(d, 0.0);
  std::size_t pos = 0;
  for (double bsize : in.blocks) {
    const auto size = static_cast<std::size_t>(bsize);
    SoftmaxStep st;
    st.size = bsize;
    double mb = kNegInf;
    for (std::size_t j = pos; j < pos + size; ++j) mb = std::max(mb, in.scores[j]);
    st.first = pos;
    st.masked = mb == kNegInf;
    const double m_new = std::max(m, mb);
    if (m != kNegInf) {  // old terms exist: rescale them (m_new ≥ m is finite)
      const double alpha = std::exp(m - m_new);
      l *= alpha;
      for (double& x : u) x *= alpha;
      st.rescale = alpha;
    }
    st.weights.assign(size, 0.0);
    if (m_new != kNegInf) {
      for (std::size_t j = pos; j < pos + size; ++j) {
        if (in.scores[j] == kNegInf) continue;
        const double p = std::exp(in.scores[j] - m_new);
        st.weights[j - pos] = p;
        l += p;
        for (std::size_t c = 0; c < d; ++c) u[c] += p * in.values[j][c];
      }
    }
    m = m_new;
    st.m = m;
    st.l = l;
    st.u = u;
    r.trace.push_back(std::move(st));
    pos += size;
  }

  // Reference: the full-row softmax, P_j = exp(s_j − max s) / Σ exp(s − max s).
  double smax = kNegInf;
  for (double s : in.scores) smax = std::max(smax, s);
  r.row_masked = smax == kNegInf;
  r.weights.assign(n, 0.0);
  if (r.row_masked) return r;
  double z = 0;
  r.max_score = smax;
  for (std::size_t j = 0; j < n; ++j) {
    r.weights[j] = in.scores[j] == kNegInf ? 0.0 : std::exp(in.scores[j] - smax);
    z += r.weights[j];
  }
  r.reference.assign(d, 0.0);
  for (std::size_t j = 0; j < n; ++j) {
    r.weights[j] /= z;
    r.normaliser = z;
    for (std::size_t c = 0; c < d; ++c) r.reference[c] += r.weights[j] * in.values[j][c];
  }
  r.output.resize(d);
  for (std::size_t c = 0; c < d; ++c) {
    r.output[c] = u[c] / l;
    r.max_abs_difference = std::max(r.max_abs_difference, std::fabs(r.output[c] - r.reference[c]));
  }
  return r;
}

namespace {

constexpr std::size_t kShownTerms = 8;       // terms of a sum written out per explain line
constexpr std::size_t kShownComponents = 4;  // numbers of a value row written out

// One explain line of any length. A block's sums can have more terms than a Text holds
// (kMaxOperands), so the line builds its pattern here, keeps it in the ResultSet and appends
// its operands to the ResultSet's pool. The numbers stay operands: the renderer formats them
// (its digits apply), only the words are fixed text.
class Line {
 public:
  Line& lit(std::string_view s) {  // words; never "{}"
    pattern_ += s;
    return *this;
  }
  Line& num(double v) {  // a number; −∞ as the symbol
    if (v == kNegInf) return lit("−∞");
    pattern_ += "{}";
    ops_.push_back(op(v));
    return *this;
  }
  Line& term(double v) {  // a number after − or ·: a negative one in parentheses
    if (v < 0 && v != kNegInf) return lit("(").num(v).lit(")");
    return num(v);
  }
  Line& word(std::string_view s) {  // text from the input (a score as typed); outlives the ResultSet's use
    pattern_ += "{}";
    ops_.push_back(op(s));
    return *this;
  }
  // (a, b, …): a value row, at most kShownComponents numbers; a single number bare.
  Line& row(const std::vector<double>& v) {
    if (v.size() == 1) return term(v.front());
    lit("(");
    for (std::size_t c = 0; c < v.size() && c < kShownComponents; ++c) (c ? lit(", ") : *this).num(v[c]);
    return lit(v.size() > kShownComponents ? ", …)" : ")");
  }
  void note(ResultSet& rs) {
    if (!rs.details) return;
    if (ops_.size() > std::numeric_limits<std::uint8_t>::max())
      throw std::logic_error("online softmax explain line with too many numbers");
    const TextRef r{rs.keep(std::move(pattern_)), static_cast<std::uint32_t>(rs.operands.size()),
                    static_cast<std::uint8_t>(ops_.size())};
    rs.operands.insert(rs.operands.end(), ops_.begin(), ops_.end());
    rs.notes.push_back(r);
  }

 private:
  std::string pattern_;
  std::vector<Operand> ops_;
};

// The scores as typed (ln2, ln(3), -inf), one view per score into in.scores_text; empty when
// there is no text (a caller of the library) or it does not split into one token per score.
std::vector<std::string_view> score_tokens(const OnlineSoftmaxInput& in) {
  std::vector<std::string_view> t;
  const std::string_view text = in.scores_text;
  std::size_t pos = 0;
  while (!text.empty()) {
    const auto comma = text.find(',', pos);
    t.push_back(trim(text.substr(pos, comma == std::string_view::npos ? text.npos : comma - pos)));
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  if (t.size() != in.scores.size()) t.clear();
  return t;
}

// " + … (N in the block)" after the first kShownTerms terms of a block's sum of n.
void more_terms(Line& l, std::size_t n) {
  if (n > kShownTerms) l.lit(" + … (").num(static_cast<double>(n)).lit(" in the block)");
}

// Notes 7.8's worked example as napkin writes it for any input: per block the new max m', the
// rescale factor exp(m − m') of the old terms, ℓ' and u' with every number substituted, then
// the output u/ℓ. Explain-only notes, one line each.
void explain_blocks(const OnlineSoftmaxInput& in, const OnlineSoftmax& r, ResultSet& out) {
  if (!out.details) return;
  const std::vector<std::string_view> tokens = score_tokens(in);
  const std::size_t d = in.values.front().size();
  Line().lit("block by block, from m = −∞, ℓ = 0, u = 0:").note(out);
  double m = kNegInf, l = 0;
  std::vector<double> u(d, 0.0);
  for (std::size_t b = 0; b < r.trace.size(); ++b) {
    const SoftmaxStep& st = r.trace[b];
    const std::size_t first = st.first, size = st.weights.size();
    const std::size_t shown = std::min(size, kShownTerms);

    Line head;
    head.lit("block ").num(static_cast<double>(b + 1)).lit(size == 1 ? " (score " : " (scores ");
    head.num(static_cast<double>(first + 1));
    if (size > 1) head.lit("–").num(static_cast<double>(first + size));
    head.lit(": ");
    for (std::size_t j = first; j < first + shown; ++j) {
      if (j > first) head.lit(", ");
      if (!tokens.empty())
        head.word(tokens[j]);
      else
        head.num(in.scores[j]);
    }
    head.lit(size > kShownTerms ? ", …)" : ")").note(out);

    Line mx;
    mx.lit("  m' = max(").num(m);
    for (std::size_t j = first; j < first + shown; ++j) mx.lit(", ").num(in.scores[j]);
    if (size > kShownTerms) mx.lit(", … (").num(static_cast<double>(size)).lit(" in the block)");
    mx.lit(") = ").num(st.m).note(out);

    if (st.m == kNegInf) {
      Line().lit("  every score so far is −∞: no term to add, nothing to rescale; ℓ' = 0, u' = 0 "
                 "(−∞ − (−∞) is never evaluated)").note(out);
      continue;
    }
    if (st.rescale) {
      Line().lit("  rescale the old terms by exp(m − m') = exp(").num(m).lit(" − ").term(st.m).lit(") = ")
          .num(*st.rescale).note(out);
    } else {
      Line().lit(b == 0 ? "  rescale: none, no old terms (first block: ℓ = 0, u = 0)"
                        : "  rescale: none, no old terms (every earlier score is −∞: ℓ = 0, u = 0)").note(out);
    }

    // ℓ' = ℓ·α + Σ exp(s − m') = (the terms' values) = ℓ'
    const std::size_t terms = size + (st.rescale ? 1 : 0);
    Line ll;
    ll.lit("  ℓ' = ");
    if (st.rescale) ll.num(l).lit(" · ").term(*st.rescale).lit(" + ");
    for (std::size_t j = first; j < first + shown; ++j) {
      if (j > first) ll.lit(" + ");
      if (in.scores[j] == kNegInf)
        ll.lit("exp(−∞)");
      else
        ll.lit("exp(").num(in.scores[j]).lit(" − ").term(st.m).lit(")");
    }
    more_terms(ll, size);
    if (terms > 1) {
      ll.lit(" = ");
      if (st.rescale) ll.num(l * *st.rescale).lit(" + ");
      for (std::size_t k = 0; k < shown; ++k) (k ? ll.lit(" + ") : ll).num(st.weights[k]);
      if (size > kShownTerms) ll.lit(" + …");
    }
    ll.lit(" = ").num(st.l).note(out);

    // u' = u·α + Σ exp(s − m')·v = (the terms' values, for one number per score) = u'
    Line uu;
    uu.lit("  u' = ");
    if (st.rescale) uu.row(u).lit(" · ").term(*st.rescale).lit(" + ");
    for (std::size_t k = 0; k < shown; ++k) (k ? uu.lit(" + ") : uu).num(st.weights[k]).lit(" · ").row(in.values[first + k]);
    more_terms(uu, size);
    if (terms > 1 && d == 1) {
      uu.lit(" = ");
      if (st.rescale) uu.term(u.front() * *st.rescale).lit(" + ");
      for (std::size_t k = 0; k < shown; ++k) (k ? uu.lit(" + ") : uu).term(st.weights[k] * in.values[first + k].front());
      if (size > kShownTerms) uu.lit(" + …");
    }
    uu.lit(" = ").row(st.u).note(out);
    m = st.m;
    l = st.l;
    u = st.u;
  }
  if (r.row_masked) {
    Line().lit("output: ℓ = 0 after the last block, every score is −∞: no softmax (reported as masked)").note(out);
    return;
  }
  Line().lit("output u / ℓ = ").row(u).lit(" / ").num(l).lit(" = ").row(r.output).lit("; the full-row softmax gives ")
      .row(r.reference).note(out);
}

}  // namespace

void online_softmax(const OnlineSoftmaxInput& in, ResultSet& out) {
  const OnlineSoftmax r = online_softmax(in);
  const std::size_t d = in.values.front().size();
  out.command = "kernel online-softmax";
  if (!in.scores_text.empty()) out.input("scores", verdict(in.scores_text));
  if (!in.values_text.empty()) out.input("values", verdict(in.values_text));
  out.input("blocks", out.list(in.blocks));
  out.input("n", value(static_cast<double>(in.scores.size())));
  out.input("d", value(static_cast<double>(d)));

  auto vec = [&](const std::vector<double>& v) { return d == 1 ? value(v.front()) : out.list(v); };
  const SoftmaxStep& last = r.trace.back();
  if (r.row_masked) {
    out.item("output", "online output", verdict("masked"), "u / ℓ with ℓ = 0",
             text("no score contributes in {} blocks (every score is −∞): reported as masked, not NaN",
                  static_cast<double>(r.trace.size())));
    out.item("reference_output", "full-row softmax output", verdict("masked"), "Σ_j w_j · v_j",
             text("every score is −∞: the softmax has no term"));
  } else {
    if (d == 1)
      out.item("output", "online output", vec(r.output), "u / ℓ", text("{} / {}", last.u.front(), last.l));
    else
      out.item("output", "online output", vec(r.output), "u / ℓ", text("u / {}", last.l));
    out.item("reference_output", "full-row softmax output", vec(r.reference), "Σ_j w_j · v_j",
             text("weights · V over {} scores", static_cast<double>(in.scores.size())));
    out.item("max_abs_difference", "largest |online − reference|", value(r.max_abs_difference),
             "max |u/ℓ − softmax(s)·V|", text("{}", r.max_abs_difference));
    out.item("weights", "softmax weights", out.list(r.weights), "w_j = exp(s_j − max s) / Σ exp(s − max s)",
             text("exp(s_j − {}) / {}", r.max_score, r.normaliser));
  }
  out.item("final_l", "final ℓ", value(last.l), "ℓ after the last block", text("{}", last.l));

  Series& t = out.add_series("trace", "Trace (state after each block; rescale none: no old terms to rescale)",
                             {"block", "size", "m", "rescale", "l", "u"});
  for (std::size_t i = 0; i < r.trace.size(); ++i) {
    const SoftmaxStep& st = r.trace[i];
    t.cells.push_back(value(static_cast<double>(i + 1)));
    t.cells.push_back(value(st.size));
    t.cells.push_back(st.m == kNegInf ? verdict("-inf") : value(st.m));
    t.cells.push_back(st.rescale ? value(*st.rescale) : no_value());  // none: no old terms
    t.cells.push_back(value(st.l));
    t.cells.push_back(d == 1 ? value(st.u.front()) : out.list(st.u));
  }

  out.assume("online_softmax", text("start m = −∞, ℓ = 0, u = 0; rescale the old ℓ and u by exp(m − m') when the "
                                    "max grows (notes 7.8)"));
  if (in.blocks.size() == in.scores.size())
    out.assume("blocks", text("one score per block ({} blocks)", static_cast<double>(in.blocks.size())));
  else
    out.assume("blocks", text("{} blocks", static_cast<double>(in.blocks.size())));
  out.note(text("m' = max(m, max s_b); ℓ' = ℓ·exp(m − m') + Σ_b exp(s − m'); u' = u·exp(m − m') + Σ_b exp(s − m')·v"));
  explain_blocks(in, r, out);
  out.note(text("forgetting the rescale exp(m − m') when the max changes gives a wrong result"));
  out.note(text("a −∞ score contributes exp(−∞) = 0; while every score so far is −∞ the state stays (−∞, 0, 0) "
                "and −∞ − (−∞) is never evaluated"));
  bool any_masked_block = false;
  for (const auto& st : r.trace) any_masked_block = any_masked_block || st.masked;
  if (any_masked_block) out.note(text("a fully masked block leaves the state unchanged"));
  if (r.row_masked)
    out.warn(text("every score is -inf: the row has no softmax; kernels usually write 0 for it (--scores)"));
}

}  // namespace napkin
