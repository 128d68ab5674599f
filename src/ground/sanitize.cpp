#include "napkin/ground/sanitize.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

namespace napkin {

namespace {

bool continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// The last byte index at or before `i` where a UTF-8 sequence may start.
std::size_t back_to_boundary(std::string_view s, std::size_t i) {
  for (int k = 0; k < 3 && i > 0 && i < s.size() && continuation(static_cast<unsigned char>(s[i])); ++k) --i;
  return i;
}

std::size_t forward_to_boundary(std::string_view s, std::size_t i) {
  for (int k = 0; k < 3 && i < s.size() && continuation(static_cast<unsigned char>(s[i])); ++k) ++i;
  return i;
}

}  // namespace

bool terminal_control(char32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069) || cp == 0x061C || cp == 0x200E || cp == 0x200F;
}

std::size_t utf8_sequence(std::string_view s, std::size_t i, char32_t* cp) {
  if (i >= s.size()) return 0;
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  std::size_t n = 0;
  char32_t v = 0;
  char32_t min = 0;
  if (c < 0x80) {
    if (cp) *cp = c;
    return 1;
  } else if (c >= 0xC2 && c <= 0xDF) {
    n = 2, v = c & 0x1F, min = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3, v = c & 0x0F, min = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4, v = c & 0x07, min = 0x10000;
  } else {
    return 0;  // a continuation byte, C0/C1 (overlong two-byte), or F5..FF
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if (!continuation(b(k))) return 0;
    v = (v << 6) | (b(k) & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  if (cp) *cp = v;
  return n;
}

void append_visible(std::string& out, std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    if (c < 0x80) {
      switch (c) {
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default: fmt::format_to(std::back_inserter(out), "\\x{:02x}", c);
      }
      ++i;
      continue;
    }
    char32_t cp = 0;
    const std::size_t n = utf8_sequence(s, i, &cp);
    if (n == 0) {
      fmt::format_to(std::back_inserter(out), "\\x{:02x}", c);
      ++i;
    } else if (terminal_control(cp)) {
      fmt::format_to(std::back_inserter(out), "\\u{:04x}", static_cast<unsigned>(cp));
      i += n;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
}

std::string visible(std::string_view s) {
  std::string out;
  append_visible(out, s);
  return out;
}

std::string echo(std::string_view s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) return visible(s);
  const std::size_t tail_bytes = max_bytes >= 80 ? 40 : 0;
  const std::size_t head_end = back_to_boundary(s, max_bytes - tail_bytes);
  const std::size_t tail_start = forward_to_boundary(s, s.size() - tail_bytes);
  std::string out;
  append_visible(out, s.substr(0, head_end));
  fmt::format_to(std::back_inserter(out), "…({} bytes)…", s.size());
  append_visible(out, s.substr(tail_start));
  return out;
}

std::string sanitize_message(std::string_view line) {
  std::string out;
  std::size_t i = 0;
  while (i < line.size()) {
    if (out.size() > kMaxMessageBytes) {
      out.resize(back_to_boundary(out, kMaxMessageBytes));
      fmt::format_to(std::back_inserter(out), "…({} bytes)", line.size());
      return out;
    }
    if (line[i] == ' ') {
      out += ' ';
      ++i;
      continue;
    }
    const std::size_t end = std::min(line.find(' ', i), line.size());
    const std::string_view run = line.substr(i, end - i);
    if (run.size() > kMaxEchoBytes) {
      // The quotes and punctuation around an echo stay whole: "'…(N bytes)…':", N the value's.
      const std::size_t lead = std::min<std::size_t>(run.find_first_not_of("'\"(["), 2);
      const std::size_t trail = std::min<std::size_t>(run.size() - 1 - run.find_last_not_of("'\":,;)]"), 3);
      out += run.substr(0, lead);
      out += echo(run.substr(lead, run.size() - lead - trail));
      out += run.substr(run.size() - trail);
    } else {
      append_visible(out, run);
    }
    i = end;
  }
  if (out.size() > kMaxMessageBytes) {
    out.resize(back_to_boundary(out, kMaxMessageBytes));
    fmt::format_to(std::back_inserter(out), "…({} bytes)", line.size());
  }
  return out;
}

bool csv_formula_like(std::string_view cell) {
  if (cell.empty()) return false;
  switch (cell.front()) {
    case '=':
    case '@':
    case '\t':
    case '\r': return true;
    case '+':
    case '-': return cell.size() > 1;  // a lone "-" (not available) is no formula
    default: return false;
  }
}

}  // namespace napkin
