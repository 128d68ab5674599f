// Renderers: one ResultSet (or a stream of them, for a sweep) in, text out. Renderers format
// values and never compute them. Each writes through a buffer to a FILE* and keeps no more
// than a bounded window of rows, so a sweep of any length streams in constant memory.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "napkin/ground/result.h"

namespace napkin::report {

/// jsonl_compact: --jsonl --compact, a header line, then each row's values alone
/// (docs/output.schema.json).
enum class Format { table, json, jsonl, csv, explain, value, jsonl_compact };

/// The version of the --json/--jsonl shape that docs/output.schema.json describes, written first
/// in every object as "schema_version". An integer that grows only when a change would break a
/// reader of the previous version (a key renamed or removed, a value's type or unit changed);
/// additions (commands, inputs, result keys, series, notes) keep it.
inline constexpr int kJsonSchemaVersion = 1;

struct RenderOptions {
  Format format = Format::table;
  bool sweep = false;                     // more than one result set will follow
  std::vector<std::string> swept;         // names of the swept inputs, in sweep order
  // A ranked list (plan train): the table shows only these results (JSON and CSV keep them all),
  // and every row's notes, not the first row's only.
  std::vector<std::string> only_items;
  bool every_rows_notes = false;
  // A comparison of configurations (models, GPUs): the union of the inputs and results every
  // row may have, in first-seen order, so that no row's result is dropped (table, CSV); and
  // whether the table shows them side by side (keys as rows, one column per configuration).
  std::vector<std::string> inputs, items;
  bool compare = false;
  // Format::value (--value KEY): the one result printed, bare, one line per row.
  std::string value_key;
  // The table's fit verdict in colour (the CLI sets it for a terminal without NO_COLOR).
  bool colour = false;
};

class Renderer {
 public:
  explicit Renderer(std::FILE* out) : out_(out) {}
  virtual ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  virtual void row(const ResultSet& rs) = 0;
  /// Ends the output (closing bracket, buffered table rows) and flushes.
  virtual void finish() = 0;

 protected:
  void maybe_flush() {
    if (buf_.size() >= kFlushAt) flush();
  }
  void flush();
  std::string buf_;
  std::FILE* out_;
  static constexpr std::size_t kFlushAt = 1 << 16;
};

std::unique_ptr<Renderer> make_renderer(const RenderOptions& opt, std::FILE* out);

// The pieces, for tests and for renderers that compose them.
std::unique_ptr<Renderer> make_table_renderer(const RenderOptions& opt, std::FILE* out);
std::unique_ptr<Renderer> make_json_renderer(const RenderOptions& opt, std::FILE* out);
std::unique_ptr<Renderer> make_csv_renderer(const RenderOptions& opt, std::FILE* out);
std::unique_ptr<Renderer> make_explain_renderer(const RenderOptions& opt, std::FILE* out);
/// --value KEY: each row's value of KEY alone on a line, in base units as JSON writes it
/// (137438953472, 0.125), a verdict as its text, yes/no as true/false, no answer as null.
std::unique_ptr<Renderer> make_value_renderer(const RenderOptions& opt, std::FILE* out);

/// Renders one ResultSet to a string (tests, benchmarks).
std::string render_to_string(const ResultSet& rs, Format f);

/// The ResultSet's series as aligned tables, each under its label (table and explain).
void append_series_tables(std::string& out, const ResultSet& rs);

/// JSON string escaping (quotes included).
void append_json_string(std::string& out, std::string_view s);

}  // namespace napkin::report
