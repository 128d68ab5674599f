#include "napkin/report/render.h"

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "napkin/ground/sanitize.h"
#include "napkin/report/checked_output.h"
#include "napkin/report/human_units.h"

namespace napkin::report {

namespace {

std::string output_message(int err) {
  std::string m = "cannot write the output: ";
  // main keeps a closed fd 1 occupied by /dev/null opened read-only, so writes to it fail so.
  if (err == EBADF) m += "stdout is closed (";
  m += std::strerror(err);
  if (err == EBADF) m += ")";
  return m;
}

int error_or_eio() { return errno != 0 ? errno : EIO; }

}  // namespace

OutputError::OutputError(int err) : std::runtime_error(output_message(err)), err_(err) {}

void flush_checked(std::FILE* f) {
  errno = 0;
  if (std::fflush(f) != 0 || std::ferror(f)) throw OutputError(error_or_eio());
}

void write_checked(std::FILE* f, std::string_view s) {
  errno = 0;
  if (!s.empty() && std::fwrite(s.data(), 1, s.size(), f) != s.size()) throw OutputError(error_or_eio());
  flush_checked(f);
}

Renderer::~Renderer() = default;

// Every renderer writes through here, in chunks of kFlushAt bytes: a failed write stops the
// run at the next chunk (OutputError), not after the whole sweep.
void Renderer::flush() {
  write_checked(out_, buf_);
  buf_.clear();
}

namespace {

class ValueRenderer final : public Renderer {
 public:
  ValueRenderer(const RenderOptions& opt, std::FILE* out) : Renderer(out), key_(opt.value_key) {}
  void row(const ResultSet& rs) override {
    const Item* it = rs.find(key_);
    if (it == nullptr) {
      buf_ += "null";
    } else {
      const Value& v = it->value;
      switch (v.kind) {
        case Value::Kind::number: append_number(buf_, v.num); break;
        case Value::Kind::text: append_visible(buf_, v.str); break;
        case Value::Kind::boolean: buf_ += v.flag ? "true" : "false"; break;
        case Value::Kind::none: buf_ += "null"; break;
        case Value::Kind::list:
          for (std::uint32_t i = 0; i < v.count; ++i) {
            if (i) buf_ += ' ';
            append_number(buf_, rs.numbers[v.first + i]);
          }
          break;
      }
    }
    buf_ += '\n';
    maybe_flush();
  }
  void finish() override { flush(); }

 private:
  std::string key_;
};

}  // namespace

std::unique_ptr<Renderer> make_value_renderer(const RenderOptions& opt, std::FILE* out) {
  return std::make_unique<ValueRenderer>(opt, out);
}

std::unique_ptr<Renderer> make_renderer(const RenderOptions& opt, std::FILE* out) {
  switch (opt.format) {
    case Format::table: return make_table_renderer(opt, out);
    case Format::json:
    case Format::jsonl:
    case Format::jsonl_compact: return make_json_renderer(opt, out);
    case Format::csv: return make_csv_renderer(opt, out);
    case Format::explain: return make_explain_renderer(opt, out);
    case Format::value: return make_value_renderer(opt, out);
  }
  throw std::logic_error("unknown format");
}

std::string render_to_string(const ResultSet& rs, Format f) {
  std::FILE* tmp = std::tmpfile();
  if (tmp == nullptr) throw std::runtime_error("tmpfile failed");
  {
    RenderOptions opt;
    opt.format = f;
    auto r = make_renderer(opt, tmp);
    r->row(rs);
    r->finish();
  }
  std::string s;
  std::rewind(tmp);
  char chunk[4096];
  std::size_t n;
  while ((n = std::fread(chunk, 1, sizeof chunk, tmp)) > 0) s.append(chunk, n);
  std::fclose(tmp);
  return s;
}

namespace {
// The bytes a JSON string holds as they are: printable ASCII but '"' and '\\'.
constexpr std::array<bool, 256> kPlainJson = [] {
  std::array<bool, 256> t{};
  for (int c = 0x20; c < 0x7f; ++c) t[static_cast<std::size_t>(c)] = c != '"' && c != '\\';
  return t;
}();
}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  // Valid UTF-8 out whatever comes in (a path's bytes, a tensor name): a byte that does not
  // start a UTF-8 sequence becomes U+FFFD, the replacement character; every character a
  // terminal acts on is a \u escape (sanitize.h).
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    // A run of printable ASCII but '"' and '\\' goes out as it is, in one append.
    std::size_t plain = i;
    while (plain < s.size() && kPlainJson[static_cast<unsigned char>(s[plain])]) ++plain;
    if (plain > i) {
      out.append(s.data() + i, plain - i);
      i = plain;
      continue;
    }
    const char c = s[i];
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          out += "\\u00";
          out += kHex[(c >> 4) & 0xf];
          out += kHex[c & 0xf];
        } else if (static_cast<unsigned char>(c) >= 0x80) {
          char32_t cp = 0;
          const std::size_t n = utf8_sequence(s, i, &cp);
          if (n == 0) {
            out += "\\ufffd";
            ++i;
          } else if (terminal_control(cp)) {  // C1 controls, bidi overrides: escaped, not lost
            out += "\\u";
            for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(cp >> shift) & 0xf];
            i += n;
          } else {
            out.append(s.substr(i, n));
            i += n;
          }
          continue;
        } else {
          out += c;
        }
    }
    ++i;
  }
  out += '"';
}

}  // namespace napkin::report
