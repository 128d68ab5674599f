// Families described as data: the architecture tables of data/architectures/*.json (the format
// and how to add one: docs/adding-a-family.md). Each table names the model types and classes it
// reads, its variables over the config's keys, its tensors with shapes as expressions, and the
// ModelSpec fields the ledgers read. Internal to the specs layer; hf_config.cpp reads every model
// type with its table.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "json_fields.h"
#include "napkin/model/model_spec.h"

namespace napkin::specs::arch {

struct Table;  // one parsed data/architectures/<family>.json

/// The table that reads `model_type`, or the one whose architectures list `cls`; nullptr if none.
const Table* table_by_model_type(std::string_view model_type);
const Table* table_by_class(std::string_view cls);
/// The table's family name and the model type its class `cls` implements.
std::string_view table_name(const Table& t);
/// False for a table marked "verified": false (no checkpoint total has confirmed it yet).
bool table_verified(const Table& t);
/// The model_type a multimodal config's text_config takes when it names none, as the tower
/// table of the top-level model_type states it ("text_model_type"); empty when it states none.
std::string_view tower_text_model_type(std::string_view top_model_type);
std::string model_type_of_class(const Table& t, std::string_view cls);
/// Whether an expression of `t` names config key `key` (its variables, tensors, spec, defaults).
bool table_reads(const Table& t, std::string_view key);
/// Every model type the tables read, in file order.
std::vector<std::string> table_model_types();

/// Reads the config `f` (the language model's fields) with table `t`: the spec the ledgers read
/// and its tensor table. Every key the table's expressions name is marked looked at in `f`.
/// InputError naming the file, the key or the variable when a value is missing or out of range.
ModelSpec read_with_table(const Table& t, const JsonFields& f, const std::string& model_type);

/// The tower table ("kind": "tower") of a top-level model_type (qwen2_5_vl, llava, ...), nullptr
/// if none; and its tensors over the top-level config `top` (vision_config, projector sizes).
const Table* tower_by_model_type(std::string_view model_type);
std::shared_ptr<const TensorTable> read_tower(const Table& t, const JsonFields& top);


}  // namespace napkin::specs::arch
