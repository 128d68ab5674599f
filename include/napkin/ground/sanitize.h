// Text echoed from input (flags, paths, tensor names, config strings), made safe for where it
// goes. One set of rules for every output:
//   - a terminal line (messages, tables): control characters as visible escapes (\n, \t, \x1b),
//     C1 controls, line separators and bidirectional overrides as \u{...}, bytes that are not
//     UTF-8 as \xNN; long text capped, keeping its start and end around "…(N bytes)…"
//   - a JSON string: valid UTF-8 (a byte that is not UTF-8 becomes U+FFFD), controls escaped
//   - a CSV text cell: a cell beginning with = + - @ tab or CR, which a spreadsheet reads as a
//     formula, starts with a single quote (the OWASP CSV-injection rule); numbers are not text,
//     and a lone "-" (not available) is no formula
// Pure: no I/O.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace napkin {

/// At most this many bytes of one echoed piece of text in a message.
inline constexpr std::size_t kMaxEchoBytes = 200;
/// At most this many bytes of one message line (the longest napkin writes itself is ~700).
inline constexpr std::size_t kMaxMessageBytes = 2000;

/// Length of the valid UTF-8 sequence that starts at s[i] (1 to 4), or 0 when the bytes there
/// are not UTF-8 (a stray continuation byte, an overlong form, a surrogate, past U+10FFFF, or
/// cut short). Sets `cp` to the code point when valid.
std::size_t utf8_sequence(std::string_view s, std::size_t i, char32_t* cp = nullptr);

/// A code point beyond ASCII that a terminal acts on or that reorders what it shows: C1 controls
/// (U+0080..U+009F; U+009B is a CSI), line and paragraph separators, bidirectional marks,
/// embeddings, overrides and isolates ("Trojan Source").
bool terminal_control(char32_t cp);

/// Appends `s` with every character a terminal would act on made visible (see above); text
/// without such characters is appended unchanged.
void append_visible(std::string& out, std::string_view s);
std::string visible(std::string_view s);

/// visible(s), capped at `max_bytes` (before escaping): a longer text keeps its start and its
/// last bytes around "…(N bytes)…", N the whole text's length.
std::string echo(std::string_view s, std::size_t max_bytes = kMaxEchoBytes);

/// One message line (an error or warning): visible, every run without spaces capped at
/// kMaxEchoBytes (a 90 MB tensor name or flag value), the whole line at kMaxMessageBytes.
std::string sanitize_message(std::string_view line);

/// True when a CSV text cell would be read as a formula by a spreadsheet: it begins with
/// = + - @, a tab or a carriage return (a lone "-" or "+" is no formula and stays as it is).
bool csv_formula_like(std::string_view cell);

}  // namespace napkin
