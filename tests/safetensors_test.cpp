// safetensors header reading (src/specs/safetensors.cpp): synthetic files written by the tests.
#include <limits>

#include <catch2/catch.hpp>

#include "checkpoint_files.h"
#include "napkin/specs/checkpoint.h"

using napkin::specs::Checkpoint;
using napkin::specs::read_checkpoint;
using napkin::specs::read_safetensors;
using napkin::test::Bytes;
using napkin::test::input_error;
using napkin::test::TempDir;
using napkin::test::write_file;
using napkin::test::write_safetensors;

namespace {

// Five tensors of four dtypes, 24 elements in 54 data bytes, plus __metadata__.
constexpr std::string_view kMixedHeader = R"({
  "__metadata__": {"format": "pt"},
  "model.embed_tokens.weight": {"dtype": "BF16", "shape": [2, 3], "data_offsets": [0, 12]},
  "model.norm.weight": {"dtype": "F32", "shape": [4], "data_offsets": [12, 28]},
  "step": {"dtype": "I64", "shape": [], "data_offsets": [28, 36]},
  "lm_head.weight": {"dtype": "F8_E4M3", "shape": [8], "data_offsets": [36, 44]},
  "model.layers.0.mlp.up_proj.weight": {"dtype": "BF16", "shape": [5], "data_offsets": [44, 54]}
})";

std::string one_tensor(std::string_view dtype, std::string_view shape, std::string_view offsets) {
  return R"({"w": {"dtype": ")" + std::string(dtype) + R"(", "shape": )" + std::string(shape) +
         R"(, "data_offsets": )" + std::string(offsets) + "}}";
}

// A two-shard checkpoint: a (BF16 4x2) and b (F32 4) in shard 1, c (BF16 16) in shard 2;
// 28 elements, 64 bytes.
void write_sharded(const TempDir& dir, std::string_view total_size = "64",
                   std::string_view extra_map = "") {
  write_safetensors(dir / "model-00001-of-00002.safetensors", R"({
    "__metadata__": {"format": "pt"},
    "a": {"dtype": "BF16", "shape": [4, 2], "data_offsets": [0, 16]},
    "b": {"dtype": "F32", "shape": [4], "data_offsets": [16, 32]}})",
                    32);
  write_safetensors(dir / "model-00002-of-00002.safetensors",
                    R"({"c": {"dtype": "BF16", "shape": [16], "data_offsets": [0, 32]}})", 32);
  write_file(dir / "model.safetensors.index.json",
             R"({"metadata": {"total_size": )" + std::string(total_size) + R"(},
                 "weight_map": {"a": "model-00001-of-00002.safetensors",
                                "b": "model-00001-of-00002.safetensors",
                                "c": "model-00002-of-00002.safetensors")" +
                 std::string(extra_map) + "}}");
}

}  // namespace

TEST_CASE("a safetensors file with BF16, F32, I64 and F8_E4M3 tensors holds 24 elements in 54 B",
          "[checkpoint][specs]") {
  TempDir dir;
  const auto path = dir / "model.safetensors";
  write_safetensors(path, kMixedHeader, 54);
  const Checkpoint c = read_safetensors(path);

  CHECK(c.format == "safetensors");
  CHECK(c.files == std::vector<std::filesystem::path>{path});
  REQUIRE(c.tensors.size() == 5);
  // In data-offset order, not the header's (sorted) key order.
  CHECK(c.tensors[0].name == "model.embed_tokens.weight");
  CHECK(c.tensors[0].dtype == "BF16");
  CHECK(c.tensors[0].shape == std::vector<std::uint64_t>{2, 3});
  CHECK(c.tensors[0].elements == 6);
  CHECK(c.tensors[0].bytes == 12);
  CHECK(c.tensors[1].name == "model.norm.weight");
  CHECK(c.tensors[2].name == "step");
  CHECK(c.tensors[2].shape.empty());
  CHECK(c.tensors[2].elements == 1);  // a scalar
  CHECK(c.tensors[2].bytes == 8);
  CHECK(c.tensors[3].name == "lm_head.weight");
  CHECK(c.tensors[4].name == "model.layers.0.mlp.up_proj.weight");

  CHECK(c.total_elements == 24);
  CHECK(c.total_bytes == 54);
  CHECK(c.bits_per_weight() == 18.0);
  REQUIRE(c.dtypes.size() == 4);
  CHECK(c.dtypes[0].dtype == "BF16");
  CHECK(c.dtypes[0].tensors == 2);
  CHECK(c.dtypes[0].elements == 11);
  CHECK(c.dtypes[0].bytes == 22);
  CHECK(c.dtypes[0].bits_per_weight() == 16.0);
  CHECK(c.dtypes[1].dtype == "F32");
  CHECK(c.dtypes[1].bits_per_weight() == 32.0);
  CHECK(c.dtypes[2].dtype == "F8_E4M3");  // 8 B, tied with I64 and first by name
  CHECK(c.dtypes[2].bits_per_weight() == 8.0);
  CHECK(c.dtypes[3].dtype == "I64");
  CHECK(c.dtypes[3].bits_per_weight() == 64.0);

  REQUIRE(c.metadata.count("format") == 1);
  CHECK(c.metadata.at("format").text == "pt");
  CHECK(c.metadata.at("format").type == "string");
  CHECK(c.warnings.empty());
}

TEST_CASE("a safetensors F4 tensor packs two elements per byte and must fill whole bytes",
          "[checkpoint][specs]") {
  TempDir dir;
  const auto path = dir / "model.safetensors";
  SECTION("4 elements of F4 take 2 B") {
    write_safetensors(path, one_tensor("F4", "[4]", "[0, 2]"), 2);
    const Checkpoint c = read_safetensors(path);
    CHECK(c.total_elements == 4);
    CHECK(c.total_bytes == 2);
    CHECK(c.dtypes.at(0).bits_per_weight() == 4.0);
  }
  SECTION("3 elements of F4 are rejected") {
    write_safetensors(path, one_tensor("F4", "[3]", "[0, 2]"), 2);
    CHECK(input_error([&] { read_safetensors(path); }) ==
          "model.safetensors: tensor 'w': shape [3] of F4 (4 bits each) does not fill whole bytes");
  }
}

TEST_CASE("a sharded safetensors checkpoint is read through model.safetensors.index.json",
          "[checkpoint][specs]") {
  TempDir dir;
  write_sharded(dir);
  const auto check = [&](const Checkpoint& c) {
    CHECK(c.format == "safetensors");
    CHECK(c.files == std::vector<std::filesystem::path>{
                         dir / "model.safetensors.index.json",
                         dir / "model-00001-of-00002.safetensors",
                         dir / "model-00002-of-00002.safetensors"});
    REQUIRE(c.tensors.size() == 3);
    CHECK(c.tensors[0].name == "a");
    CHECK(c.tensors[1].name == "b");
    CHECK(c.tensors[2].name == "c");
    CHECK(c.total_elements == 28);
    CHECK(c.total_bytes == 64);
    REQUIRE(c.index_total_size.has_value());
    CHECK(*c.index_total_size == 64);
    REQUIRE(c.dtypes.size() == 2);
    CHECK(c.dtypes[0].dtype == "BF16");
    CHECK(c.dtypes[0].elements == 24);
    CHECK(c.dtypes[0].bytes == 48);
    CHECK(c.dtypes[1].dtype == "F32");
    CHECK(c.metadata.at("format").text == "pt");
    CHECK(c.warnings.empty());
  };
  SECTION("the index file") { check(read_safetensors(dir / "model.safetensors.index.json")); }
  SECTION("the directory") { check(read_safetensors(dir.path())); }
  SECTION("the directory through read_checkpoint") { check(read_checkpoint(dir.path())); }
}

TEST_CASE("a safetensors index total_size that differs from the shards' bytes gives a warning",
          "[checkpoint][specs]") {
  TempDir dir;
  write_sharded(dir, "100");
  const Checkpoint c = read_safetensors(dir / "model.safetensors.index.json");
  CHECK(c.total_bytes == 64);
  CHECK(c.warnings == std::vector<std::string>{"model.safetensors.index.json: metadata.total_size "
                                               "is 100 B, but the shards' tensors hold 64 B"});
}

TEST_CASE("a safetensors index whose shard lacks a tensor, or is missing, is rejected",
          "[checkpoint][specs]") {
  TempDir dir;
  SECTION("a tensor the shard does not list") {
    write_sharded(dir, "64", R"(, "d": "model-00001-of-00002.safetensors")");
    CHECK(input_error([&] { read_safetensors(dir / "model.safetensors.index.json"); }) ==
          "model.safetensors.index.json: weight_map puts 'd' in model-00001-of-00002.safetensors, "
          "whose header does not list it");
  }
  SECTION("a missing shard") {
    write_sharded(dir);
    std::filesystem::remove(dir / "model-00002-of-00002.safetensors");
    CHECK(input_error([&] { read_safetensors(dir / "model.safetensors.index.json"); }) ==
          "model-00002-of-00002.safetensors: no such file or directory");
  }
  SECTION("a shard outside the index's directory") {
    write_sharded(dir, "64", R"(, "d": "../elsewhere.safetensors")");
    CHECK(input_error([&] { read_safetensors(dir / "model.safetensors.index.json"); }) ==
          "model.safetensors.index.json: weight_map 'd' names '../elsewhere.safetensors', which "
          "is not a file beside the index");
  }
  SECTION("a hostile shard is named in the message") {
    write_sharded(dir);
    write_file(dir / "model-00002-of-00002.safetensors", Bytes{}.u64(1u << 20).raw("{}").data);
    CHECK(input_error([&] { read_safetensors(dir / "model.safetensors.index.json"); }) ==
          "model-00002-of-00002.safetensors: header length 1048576 exceeds the file size (10 B)");
  }
}

TEST_CASE("a directory with two safetensors files and no index is ambiguous",
          "[checkpoint][specs]") {
  TempDir dir;
  write_safetensors(dir / "a.safetensors", one_tensor("F32", "[1]", "[0, 4]"), 4);
  write_safetensors(dir / "b.safetensors", one_tensor("F32", "[1]", "[0, 4]"), 4);
  CHECK(input_error([&] { read_safetensors(dir.path()); }) ==
        dir.path().string() +
            ": 2 .safetensors files and no *.safetensors.index.json; name one file");
}

TEST_CASE("a safetensors header length past the end of the file is rejected without reading it",
          "[checkpoint][specs]") {
  TempDir dir;
  const auto path = dir / "model.safetensors";
  write_file(path, Bytes{}.u64(std::numeric_limits<std::int64_t>::max()).raw("{}").zeros(10).data);
  CHECK(input_error([&] { read_safetensors(path); }) ==
        "model.safetensors: header length 9223372036854775807 exceeds the file size (20 B)");
}

TEST_CASE("a safetensors header length over 100 MB is rejected even when the file is larger",
          "[checkpoint][specs]") {
  TempDir dir;
  const auto path = dir / "model.safetensors";
  write_file(path, Bytes{}.u64(200'000'000).raw("{}").data);
  std::filesystem::resize_file(path, 200'000'100);  // sparse: nothing is written
  CHECK(input_error([&] { read_safetensors(path); }) ==
        "model.safetensors: header length 200000000 exceeds safetensors' limit of 100000000 B");
}

TEST_CASE("a truncated safetensors file is rejected", "[checkpoint][specs]") {
  TempDir dir;
  const auto path = dir / "model.safetensors";
  SECTION("shorter than the length field") {
    write_file(path, std::string_view("\x10\0\0\0\0", 5));
    CHECK(input_error([&] { read_safetensors(path); }) ==
          "model.safetensors: file is 5 B, too short for the 8-byte header length");
  }
  SECTION("cut inside the header") {
    const std::string header = one_tensor("F32", "[4]", "[0, 16]");
    write_file(path, Bytes{}.u64(header.size()).raw(header.substr(0, 20)).data);
    CHECK(input_error([&] { read_safetensors(path); }) ==
          "model.safetensors: header length " + std::to_string(header.size()) +
              " exceeds the file size (28 B)");
  }
  SECTION("cut inside the data") {
    write_safetensors(path, one_tensor("F32", "[4]", "[0, 16]"), 8);
    CHECK(input_error([&] { read_safetensors(path); }) ==
          "model.safetensors: tensor 'w': data_offsets [0, 16] end past the data section (8 B)");
  }
}

TEST_CASE("safetensors data_offsets past the end, overlapping or of the wrong size are rejected",
          "[checkpoint][specs]") {
  TempDir dir;
  const auto path = dir / "model.safetensors";
  SECTION("past the end") {
    write_safetensors(path, one_tensor("F32", "[4]", "[100, 116]"), 16);
    CHECK(input_error([&] { read_safetensors(path); }) ==
          "model.safetensors: tensor 'w': data_offsets [100, 116] end past the data section (16 B)");
  }
  SECTION("overlapping") {
    write_safetensors(path, R"({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]},
                               "b": {"dtype": "F32", "shape": [4], "data_offsets": [8, 24]}})",
                      24);
    CHECK(input_error([&] { read_safetensors(path); }) ==
          "model.safetensors: tensors 'a' [0, 16] and 'b' [8, 24] overlap");
  }
  SECTION("empty tensors share offsets freely") {
    write_safetensors(path, R"({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]},
                               "e": {"dtype": "F32", "shape": [0, 5], "data_offsets": [8, 8]}})",
                      16);
    CHECK(read_safetensors(path).total_elements == 4);
  }
  SECTION("a size that disagrees with dtype and shape") {
    write_safetensors(path, one_tensor("F32", "[4]", "[0, 8]"), 8);
    CHECK(input_error([&] { read_safetensors(path); }) ==
          "model.safetensors: tensor 'w': data_offsets [0, 8] hold 8 B, but shape [4] of F32 "
          "takes 16 B");
  }
  SECTION("begin after end") {
    write_safetensors(path, one_tensor("F32", "[0]", "[8, 0]"), 8);
    CHECK(input_error([&] { read_safetensors(path); }) ==
          "model.safetensors: tensor 'w': data_offsets is not [begin, end] with 0 <= begin <= end");
  }
}

TEST_CASE("a safetensors header that is not a JSON object is rejected", "[checkpoint][specs]") {
  TempDir dir;
  const auto path = dir / "model.safetensors";
  SECTION("not JSON") {
    write_safetensors(path, "{\"w\": nope}", 0);
    CHECK(input_error([&] { read_safetensors(path); }) ==
          "model.safetensors: header is not JSON (syntax error at byte 8)");
  }
  SECTION("a JSON array") {
    write_safetensors(path, "[1, 2]", 0);
    CHECK(input_error([&] { read_safetensors(path); }) ==
          "model.safetensors: header is a JSON array; expected an object");
  }
  SECTION("nested a thousand levels deep") {
    write_safetensors(path, "{\"w\": " + std::string(1000, '[') + std::string(1000, ']') + "}", 0);
    CHECK(input_error([&] { read_safetensors(path); }) ==
          "model.safetensors: header nests JSON deeper than 16 levels");
  }
  SECTION("a tensor entry that is not an object") {
    write_safetensors(path, R"({"w": 3})", 0);
    CHECK(input_error([&] { read_safetensors(path); }) ==
          "model.safetensors: tensor 'w': is a JSON number; expected an object with dtype, shape "
          "and data_offsets");
  }
  SECTION("__metadata__ with a non-string value") {
    write_safetensors(path, R"({"__metadata__": {"format": 1}})", 0);
    CHECK(input_error([&] { read_safetensors(path); }) ==
          "model.safetensors: __metadata__ 'format' is a JSON number; expected a string");
  }
}

TEST_CASE("a safetensors tensor with an unknown dtype or a bad shape is rejected",
          "[checkpoint][specs]") {
  TempDir dir;
  const auto path = dir / "model.safetensors";
  SECTION("unknown dtype") {
    write_safetensors(path, one_tensor("F12", "[1]", "[0, 4]"), 4);
    CHECK(input_error([&] { read_safetensors(path); }) ==
          "model.safetensors: tensor 'w': dtype 'F12' is not a safetensors dtype (BOOL, F4, "
          "F6_E2M3, F6_E3M2, U8, I8, F8_E5M2, F8_E4M3, F8_E8M0, I16, U16, F16, BF16, I32, U32, "
          "F32, C64, F64, I64, U64)");
  }
  SECTION("negative dimension") {
    write_safetensors(path, one_tensor("F32", "[-1]", "[0, 4]"), 4);
    CHECK(input_error([&] { read_safetensors(path); }) ==
          "model.safetensors: tensor 'w': shape is not an array of non-negative integers");
  }
  SECTION("missing data_offsets") {
    write_safetensors(path, R"({"w": {"dtype": "F32", "shape": [1]}})", 4);
    CHECK(input_error([&] { read_safetensors(path); }) ==
          "model.safetensors: tensor 'w': has no data_offsets");
  }
  SECTION("an element count that overflows 64 bits") {
    write_safetensors(path, one_tensor("F32", "[4294967296, 4294967296]", "[0, 0]"), 0);
    CHECK(input_error([&] { read_safetensors(path); }) ==
          "model.safetensors: tensor 'w': shape [4294967296, 4294967296] has more elements than "
          "64 bits count");
  }
  SECTION("a byte count that overflows 64 bits") {
    write_safetensors(path, one_tensor("F64", "[4611686018427387904]", "[0, 0]"), 0);
    CHECK(input_error([&] { read_safetensors(path); }) ==
          "model.safetensors: tensor 'w': shape [4611686018427387904] of F64 takes more bytes "
          "than 64 bits count");
  }
}

namespace {

// A header of `n` one-element F16 tensors named like a MoE checkpoint's experts, packed in order.
std::string many_tensors_header(std::size_t n) {
  std::string h = "{\"__metadata__\": {\"format\": \"pt\"}";
  h.reserve(n * 110);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t layer = i / 1024, expert = i % 1024;
    h += ",\"model.layers." + std::to_string(layer) + ".mlp.experts." + std::to_string(expert) +
         ".down_proj.weight\":{\"dtype\":\"F16\",\"shape\":[1],\"data_offsets\":[" + std::to_string(2 * i) + "," +
         std::to_string(2 * i + 2) + "]}";
  }
  h += "}";
  return h;
}

}  // namespace

TEST_CASE("a safetensors header of 200,000 tensors parses and counts every one", "[checkpoint][specs]") {
  // The depth-limiting parse used to rescan the parent object each time a tensor's object ended:
  // quadratic, minutes at this size. Now linear (bench/core_bench.cpp, BM_SafetensorsHeader).
  constexpr std::size_t kTensors = 200000;
  const std::string header = many_tensors_header(kTensors);
  const Checkpoint c = napkin::specs::parse_safetensors_header(header, 2 * kTensors, "model.safetensors");
  CHECK(c.tensors.size() == kTensors);
  CHECK(c.total_elements == kTensors);
  CHECK(c.total_bytes == 2 * kTensors);
  CHECK(c.tensors.front().name == "model.layers.0.mlp.experts.0.down_proj.weight");
  CHECK(c.tensors.back().name == "model.layers.195.mlp.experts.319.down_proj.weight");
  CHECK(c.metadata.at("format").text == "pt");
}

// (20,000 entries: the ASan build runs the unoptimised parser; 200,000 above covers the scale.)
TEST_CASE("a safetensors index of 20,000 weight_map entries and its shard parse", "[checkpoint][specs]") {
  constexpr std::size_t kTensors = 20000;
  TempDir dir;
  write_safetensors(dir / "model-00001-of-00001.safetensors", many_tensors_header(kTensors), 2 * kTensors);
  std::string index = R"({"metadata": {"total_size": )" + std::to_string(2 * kTensors) + R"(}, "weight_map": {)";
  for (std::size_t i = 0; i < kTensors; ++i) {
    if (i > 0) index += ",";
    index += "\"model.layers." + std::to_string(i / 1024) + ".mlp.experts." + std::to_string(i % 1024) +
             ".down_proj.weight\":\"model-00001-of-00001.safetensors\"";
  }
  index += "}}";
  write_file(dir / "model.safetensors.index.json", index);
  const Checkpoint c = read_safetensors(dir / "model.safetensors.index.json");
  CHECK(c.tensors.size() == kTensors);
  CHECK(c.warnings.empty());
}

TEST_CASE("a safetensors header that names a tensor twice, or __metadata__ twice, is rejected",
          "[checkpoint][specs]") {
  TempDir dir;
  const auto path = dir / "model.safetensors";
  SECTION("a tensor twice") {
    write_safetensors(path, R"({"w": {"dtype": "F16", "shape": [1], "data_offsets": [0, 2]},
                               "v": {"dtype": "F16", "shape": [1], "data_offsets": [2, 4]},
                               "w": {"dtype": "F16", "shape": [1], "data_offsets": [4, 6]}})",
                      6);
    CHECK(input_error([&] { read_safetensors(path); }) == "model.safetensors: tensor 'w' appears twice in the header");
  }
  SECTION("__metadata__ twice") {
    write_safetensors(path, R"({"__metadata__": {}, "w": {"dtype": "F16", "shape": [1], "data_offsets": [0, 2]},
                               "__metadata__": {}})",
                      2);
    CHECK(input_error([&] { read_safetensors(path); }) == "model.safetensors: __metadata__ appears twice");
  }
  SECTION("16 levels of nesting are read; 17 are not") {
    const auto nested = [](int levels) {  // the header object is level 1
      return "{\"__metadata__\": {}, \"x\": " + std::string(static_cast<std::size_t>(levels - 1), '[') +
             std::string(static_cast<std::size_t>(levels - 1), ']') + "}";
    };
    write_safetensors(path, nested(16), 0);
    CHECK(input_error([&] { read_safetensors(path); }) ==
          "model.safetensors: tensor 'x': is a JSON array; expected an object with dtype, shape and data_offsets");
    write_safetensors(path, nested(17), 0);
    CHECK(input_error([&] { read_safetensors(path); }) == "model.safetensors: header nests JSON deeper than 16 levels");
  }
  SECTION("a number beyond a double") {
    write_safetensors(path, R"({"w": {"dtype": "F16", "shape": [1e999], "data_offsets": [0, 2]}})", 2);
    CHECK(input_error([&] { read_safetensors(path); }) ==
          "model.safetensors: header holds a number out of range (beyond 1.8e308); expected JSON numbers a double "
          "holds");
  }
}
