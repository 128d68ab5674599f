#include "napkin/report/render.h"

#include <cstdio>
#include <stdexcept>

namespace napkin::report {

Renderer::~Renderer() = default;

void Renderer::flush() {
  if (!buf_.empty()) {
    std::fwrite(buf_.data(), 1, buf_.size(), out_);
    buf_.clear();
  }
}

std::unique_ptr<Renderer> make_renderer(const RenderOptions& opt, std::FILE* out) {
  switch (opt.format) {
    case Format::table: return make_table_renderer(opt, out);
    case Format::json:
    case Format::jsonl: return make_json_renderer(opt, out);
    case Format::csv: return make_csv_renderer(opt, out);
    case Format::explain: return make_explain_renderer(opt, out);
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

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          static constexpr char kHex[] = "0123456789abcdef";
          out += "\\u00";
          out += kHex[(c >> 4) & 0xf];
          out += kHex[c & 0xf];
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

}  // namespace napkin::report
