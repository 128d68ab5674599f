// GGUF header reading (src/specs/gguf.cpp): synthetic files written by the tests.
#include <algorithm>
#include <functional>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "checkpoint_files.h"
#include "napkin/specs/checkpoint.h"

using napkin::specs::Checkpoint;
using napkin::specs::gguf_model_facts;
using napkin::specs::read_checkpoint;
using napkin::specs::read_gguf;
using napkin::test::Bytes;
using napkin::test::input_error;
using napkin::test::TempDir;
using napkin::test::write_file;
using napkin::test::GgufBuilder;
using namespace napkin::test::gguf_types;

namespace {

// A small llama-shaped v3 file: metadata of every scalar type, a string array, a float array, a
// nested array, and seven tensors of F16, F32, Q4_0, Q4_K, Q6_K, Q8_0 and IQ4_XS.
GgufBuilder llama_file() {
  GgufBuilder g;
  g.kv("general.architecture", STRING).str("llama");
  g.kv("general.alignment", U32).u32(32);
  g.kv("llama.block_count", U32).u32(2);
  g.kv("llama.embedding_length", U32).u32(256);
  g.kv("llama.feed_forward_length", U64).u64(512);
  g.kv("llama.context_length", U32).u32(4096);
  g.kv("llama.attention.head_count", U32).u32(4);
  g.kv("llama.attention.head_count_kv", U32).u32(2);
  g.kv("llama.rope.freq_base", F32V).f32(10000.0f);
  g.kv("test.u8", U8).u8(7);
  g.kv("test.i8", I8).u8(0xfd);  // -3
  g.kv("test.u16", U16).u16(500);
  g.kv("test.i16", I16).u16(0xfe0c);  // -500
  g.kv("test.i32", I32).u32(0xfffffff9);  // -7
  g.kv("test.i64", I64).u64(0xfffffffffffffffbull);  // -5
  g.kv("test.u64", U64).u64(1ull << 40);
  g.kv("test.f64", F64V).f64(0.5);
  g.kv("test.flag", BOOL).u8(1);
  auto& tokens = g.kv("tokenizer.ggml.tokens", ARRAY).u32(STRING).u64(10);
  for (const char* t : {"<unk>", "<s>", "</s>", "a", "b", "c", "d", "e", "f", "g"}) tokens.str(t);
  auto& scores = g.kv("tokenizer.ggml.scores", ARRAY).u32(F32V).u64(10).f32(0.0f).f32(0.5f).f32(-1.0f);
  for (int i = 3; i < 10; ++i) scores.f32(0.0f);  // one per token
  g.kv("test.nested", ARRAY).u32(ARRAY).u64(2).u32(U8).u64(2).u8(1).u8(2).u32(U8).u64(2).u8(3).u8(4);

  g.tensor("token_embd.weight", {256, 10}, F16, 5120);             // 2560 × 2 B
  g.tensor("blk.0.attn_q.weight", {256, 256}, Q4_K, 36864);        // 256 blocks × 144 B
  g.tensor("blk.0.attn_k.weight", {256, 128}, Q8_0, 34816);        // 1024 blocks × 34 B
  g.tensor("blk.0.ffn_up.weight", {256, 512}, Q4_0, 73728);        // 4096 blocks × 18 B
  g.tensor("blk.0.ffn_gate.weight", {256, 512}, IQ4_XS, 69632);    // 512 blocks × 136 B
  g.tensor("blk.0.ffn_down.weight", {512, 256}, Q6_K, 107520);     // 512 blocks × 210 B
  g.tensor("output_norm.weight", {256}, F32, 1024);
  return g;
}

// A file header with no key-values and one tensor info.
std::string one_tensor(std::initializer_list<std::uint64_t> dims, std::uint32_t type,
                       std::uint64_t offset, std::size_t data_bytes) {
  Bytes b;
  b.raw("GGUF").u32(3).u64(1).u64(0).str("w").u32(static_cast<std::uint32_t>(dims.size()));
  for (const std::uint64_t d : dims) b.u64(d);
  b.u32(type).u64(offset);
  b.zeros((32 - b.size() % 32) % 32).zeros(data_bytes);
  return b.data;
}

}  // namespace

TEST_CASE("a .gguf v3 file with quantized tensors is counted per ggml type from its header",
          "[checkpoint][specs]") {
  TempDir dir;
  const auto path = dir / "model.gguf";
  write_file(path, llama_file().build());
  const Checkpoint c = read_gguf(path);

  CHECK(c.format == "gguf");
  CHECK(c.files == std::vector<std::filesystem::path>{path});
  REQUIRE(c.tensors.size() == 7);
  CHECK(c.tensors[0].name == "token_embd.weight");
  CHECK(c.tensors[0].dtype == "F16");
  CHECK(c.tensors[0].shape == std::vector<std::uint64_t>{256, 10});
  CHECK(c.tensors[0].elements == 2560);
  CHECK(c.tensors[0].bytes == 5120);
  CHECK(c.tensors[1].dtype == "Q4_K");
  CHECK(c.tensors[1].bytes == 36864);
  CHECK(c.tensors[5].dtype == "Q6_K");
  CHECK(c.tensors[5].bytes == 107520);

  CHECK(c.total_elements == 2560 + 65536 + 32768 + 131072 + 131072 + 131072 + 256);
  CHECK(c.total_bytes == 5120 + 36864 + 34816 + 73728 + 69632 + 107520 + 1024);
  REQUIRE(c.dtypes.size() == 7);
  const auto row = [&](std::string_view name) {
    for (const auto& d : c.dtypes)
      if (d.dtype == name) return d;
    FAIL("no row for " << name);
    return napkin::specs::DtypeTotal{};
  };
  CHECK(c.dtypes[0].dtype == "Q6_K");  // most bytes first
  CHECK(row("Q6_K").bits_per_weight() == 6.5625);
  CHECK(row("Q4_K").bits_per_weight() == 4.5);
  CHECK(row("Q4_0").bits_per_weight() == 4.5);
  CHECK(row("Q8_0").bits_per_weight() == 8.5);
  CHECK(row("IQ4_XS").bits_per_weight() == 4.25);
  CHECK(row("F16").bits_per_weight() == 16.0);
  CHECK(row("F32").bits_per_weight() == 32.0);
  CHECK(row("Q4_0").elements == 131072);
  CHECK(row("Q4_0").bytes == 73728);
  CHECK(c.warnings.empty());
}

TEST_CASE("a .gguf file's metadata of every value type is summarised as text",
          "[checkpoint][specs]") {
  TempDir dir;
  const auto path = dir / "model.gguf";
  write_file(path, llama_file().build());
  const auto& m = read_gguf(path).metadata;
  const auto text = [&](const std::string& key) { return m.at(key).text; };
  CHECK(text("general.architecture") == "llama");
  CHECK(m.at("general.architecture").type == "string");
  CHECK(text("llama.block_count") == "2");
  CHECK(m.at("llama.block_count").type == "u32");
  CHECK(text("llama.rope.freq_base") == "10000");
  CHECK(text("test.u8") == "7");
  CHECK(text("test.i8") == "-3");
  CHECK(text("test.u16") == "500");
  CHECK(text("test.i16") == "-500");
  CHECK(text("test.i32") == "-7");
  CHECK(text("test.i64") == "-5");
  CHECK(text("test.u64") == "1099511627776");
  CHECK(text("test.f64") == "0.5");
  CHECK(text("test.flag") == "true");
  CHECK(m.at("test.flag").type == "bool");
  CHECK(text("tokenizer.ggml.tokens") == "[\"<unk>\", \"<s>\", \"</s>\", \"a\", … 10 items]");
  CHECK(m.at("tokenizer.ggml.tokens").type == "array[string]");
  CHECK(m.at("tokenizer.ggml.tokens").array_length == 10);
  CHECK(text("tokenizer.ggml.scores") == "[0, 0.5, -1, 0, … 10 items]");
  CHECK(text("test.nested") == "[[1, 2], [3, 4]]");
  CHECK(m.at("test.nested").type == "array[array]");
}

TEST_CASE("gguf_model_facts reads the llama.* hyperparameters and the vocabulary size",
          "[checkpoint][specs]") {
  TempDir dir;
  const auto path = dir / "model.gguf";
  write_file(path, llama_file().build());
  const auto f = gguf_model_facts(read_gguf(path));
  CHECK(f.architecture == "llama");
  CHECK(f.block_count == 2u);
  CHECK(f.embedding_length == 256u);
  CHECK(f.feed_forward_length == 512u);  // stored as u64
  CHECK(f.context_length == 4096u);
  CHECK(f.head_count == 4u);
  CHECK(f.head_count_kv == 2u);
  CHECK(f.vocab_size == 10u);  // length of tokenizer.ggml.tokens
  CHECK_FALSE(f.key_length.has_value());
  CHECK_FALSE(f.expert_count.has_value());
}

TEST_CASE("a .gguf v2 file reads like v3, and read_checkpoint finds GGUF by its magic",
          "[checkpoint][specs]") {
  TempDir dir;
  const auto path = dir / "weights.bin";
  write_file(path, llama_file().build(2));
  const Checkpoint c = read_checkpoint(path);
  CHECK(c.format == "gguf");
  CHECK(c.tensors.size() == 7);
}

TEST_CASE("a directory holding one .gguf file is read through read_checkpoint",
          "[checkpoint][specs]") {
  TempDir dir;
  write_file(dir / "model-Q4_K_M.gguf", llama_file().build());
  CHECK(read_checkpoint(dir.path()).tensors.size() == 7);
}

TEST_CASE("ggml block sizes give the bytes of every .gguf type for 256 elements",
          "[checkpoint][specs]") {
  // {ggml type id, name, bytes of 256 elements}: 256 / block elements × block bytes
  // (ggml.c type_traits).
  struct Row {
    std::uint32_t id;
    const char* name;
    std::uint64_t bytes;
  };
  const Row rows[] = {
      {0, "F32", 1024},     {1, "F16", 512},      {2, "Q4_0", 144},      {3, "Q4_1", 160},
      {6, "Q5_0", 176},     {7, "Q5_1", 192},     {8, "Q8_0", 272},      {9, "Q8_1", 288},
      {10, "Q2_K", 84},     {11, "Q3_K", 110},    {12, "Q4_K", 144},     {13, "Q5_K", 176},
      {14, "Q6_K", 210},    {15, "Q8_K", 292},    {16, "IQ2_XXS", 66},   {17, "IQ2_XS", 74},
      {18, "IQ3_XXS", 98},  {19, "IQ1_S", 50},    {20, "IQ4_NL", 144},   {21, "IQ3_S", 110},
      {22, "IQ2_S", 82},    {23, "IQ4_XS", 136},  {24, "I8", 256},       {25, "I16", 512},
      {26, "I32", 1024},    {27, "I64", 2048},    {28, "F64", 2048},     {29, "IQ1_M", 56},
      {30, "BF16", 512},    {34, "TQ1_0", 54},    {35, "TQ2_0", 66},     {39, "MXFP4", 136},
  };
  for (const Row& r : rows) {
    CAPTURE(r.name);
    TempDir dir;
    const auto path = dir / "t.gguf";
    write_file(path, one_tensor({256}, r.id, 0, r.bytes));
    const Checkpoint c = read_gguf(path);
    REQUIRE(c.tensors.size() == 1);
    CHECK(c.tensors[0].dtype == r.name);
    CHECK(c.tensors[0].bytes == r.bytes);
    CHECK(c.dtypes.at(0).bits_per_weight() == 8.0 * static_cast<double>(r.bytes) / 256.0);
  }
}

TEST_CASE("a .gguf file that is one part of a split says so in a warning", "[checkpoint][specs]") {
  TempDir dir;
  const auto path = dir / "model-00001-of-00003.gguf";
  GgufBuilder g;
  g.kv("split.count", U16).u16(3);
  g.tensor("token_embd.weight", {32}, F32, 128);
  write_file(path, g.build());
  CHECK(read_gguf(path).warnings ==
        std::vector<std::string>{"model-00001-of-00003.gguf: one file of a GGUF split into 3; "
                                 "only its tensors are counted"});
}

TEST_CASE("a .gguf file with a bad magic or version is rejected", "[checkpoint][specs]") {
  TempDir dir;
  const auto path = dir / "model.gguf";
  SECTION("bad magic") {
    write_file(path, Bytes{}.raw("GGML").u32(3).u64(0).u64(0).data);
    CHECK(input_error([&] { read_gguf(path); }) == "model.gguf: magic is 'GGML'; expected 'GGUF'");
  }
  SECTION("binary magic is escaped") {
    write_file(path, Bytes{}.u32(0x00ff0a01).u32(3).data);
    CHECK(input_error([&] { read_gguf(path); }) ==
          "model.gguf: magic is '\\x01\\x0a\\xff\\x00'; expected 'GGUF'");
  }
  SECTION("shorter than the magic") {
    write_file(path, "GG");
    CHECK(input_error([&] { read_gguf(path); }) ==
          "model.gguf: file ends inside the magic (at byte 0: needs 4 B, 2 B left)");
  }
  SECTION("version 1") {
    write_file(path, Bytes{}.raw("GGUF").u32(1).u64(0).u64(0).data);
    CHECK(input_error([&] { read_gguf(path); }) ==
          "model.gguf: version 1 is not supported; expected 2 or 3");
  }
  SECTION("big-endian version 3") {
    write_file(path, Bytes{}.raw("GGUF").u32(0x03000000).u64(0).u64(0).data);
    CHECK(input_error([&] { read_gguf(path); }) ==
          "model.gguf: version 50331648 is not supported (a big-endian file?); expected 2 or 3");
  }
}

TEST_CASE("a .gguf file cut inside a key-value names the key and the byte", "[checkpoint][specs]") {
  TempDir dir;
  const auto path = dir / "model.gguf";
  // 24 B header, 8 B key length, 17 B key, 4 B type: the value starts at byte 53.
  write_file(path, Bytes{}.raw("GGUF").u32(3).u64(0).u64(1).str("llama.block_count").u32(U32)
                       .u16(2).data);
  CHECK(input_error([&] { read_gguf(path); }) ==
        "model.gguf: file ends inside kv[0] ('llama.block_count') value (at byte 53: needs 4 B, "
        "2 B left)");
}

TEST_CASE("a .gguf string length past the end of the file is rejected before allocating",
          "[checkpoint][specs]") {
  TempDir dir;
  const auto path = dir / "model.gguf";
  SECTION("a key") {
    write_file(path, Bytes{}.raw("GGUF").u32(3).u64(0).u64(1).u64(1000000).raw("abc").zeros(20)
                         .data);
    CHECK(input_error([&] { read_gguf(path); }) ==
          "model.gguf: kv[0] key length 1000000 exceeds the 23 B left in the file");
  }
  SECTION("a string value") {
    write_file(path, Bytes{}.raw("GGUF").u32(3).u64(0).u64(1).str("general.name").u32(STRING)
                         .u64(1ull << 62).zeros(4).data);
    CHECK(input_error([&] { read_gguf(path); }) ==
          "model.gguf: kv[0] ('general.name') value length 4611686018427387904 exceeds the 4 B "
          "left in the file");
  }
  SECTION("a key longer than GGUF allows") {
    write_file(path, Bytes{}.raw("GGUF").u32(3).u64(0).u64(1).u64(70000).zeros(70100).data);
    CHECK(input_error([&] { read_gguf(path); }) ==
          "model.gguf: kv[0] key length 70000 exceeds GGUF's limit of 65535 B");
  }
}

TEST_CASE("absurd .gguf tensor, key-value and array counts are rejected before allocating",
          "[checkpoint][specs]") {
  TempDir dir;
  const auto path = dir / "model.gguf";
  SECTION("tensor_count") {
    write_file(path, Bytes{}.raw("GGUF").u32(3).u64(1ull << 40).u64(0).zeros(100).data);
    CHECK(input_error([&] { read_gguf(path); }) ==
          "model.gguf: tensor_count 1099511627776 exceeds what the 100 B left in the file can "
          "hold (24 B per tensor info at least)");
  }
  SECTION("kv_count") {
    write_file(path, Bytes{}.raw("GGUF").u32(3).u64(0).u64(1ull << 50).zeros(100).data);
    CHECK(input_error([&] { read_gguf(path); }) ==
          "model.gguf: kv_count 1125899906842624 exceeds what the 100 B left in the file can hold "
          "(13 B per key-value at least)");
  }
  SECTION("an array of strings") {
    write_file(path, Bytes{}.raw("GGUF").u32(3).u64(0).u64(1).str("tokenizer.ggml.tokens")
                         .u32(ARRAY).u32(STRING).u64(1ull << 40).zeros(64).data);
    CHECK(input_error([&] { read_gguf(path); }) ==
          "model.gguf: kv[0] ('tokenizer.ggml.tokens') value count 1099511627776 exceeds what the "
          "64 B left in the file can hold (8 B per string)");
  }
  SECTION("arrays nested nine deep") {
    Bytes b;
    b.raw("GGUF").u32(3).u64(0).u64(1).str("x").u32(ARRAY);
    for (int i = 0; i < 8; ++i) b.u32(ARRAY).u64(1);
    b.zeros(100);
    write_file(path, b.data);
    CHECK(input_error([&] { read_gguf(path); }) ==
          "model.gguf: kv[0] ('x') value[0][0][0][0][0][0][0][0] nests arrays deeper than 8 "
          "levels");
  }
}

TEST_CASE("a .gguf key-value of an unknown type, a repeated key or a bad alignment is rejected",
          "[checkpoint][specs]") {
  TempDir dir;
  const auto path = dir / "model.gguf";
  SECTION("value type 13") {
    write_file(path, Bytes{}.raw("GGUF").u32(3).u64(0).u64(1).str("x").u32(13).zeros(8).data);
    CHECK(input_error([&] { read_gguf(path); }) ==
          "model.gguf: kv[0] ('x') type is 13; expected a GGUF value type 0-12");
  }
  SECTION("a repeated key") {
    write_file(path, Bytes{}.raw("GGUF").u32(3).u64(0).u64(2).str("a").u32(U8).u8(1).str("a")
                         .u32(U8).u8(2).data);
    CHECK(input_error([&] { read_gguf(path); }) == "model.gguf: kv[1]: key 'a' appears twice");
  }
  SECTION("alignment 48") {
    write_file(path, Bytes{}.raw("GGUF").u32(3).u64(0).u64(1).str("general.alignment").u32(U32)
                         .u32(48).data);
    CHECK(input_error([&] { read_gguf(path); }) ==
          "model.gguf: general.alignment is 48; expected a power of two");
  }
}

TEST_CASE("a .gguf tensor info with an unknown type, too many dims or a bad shape is rejected",
          "[checkpoint][specs]") {
  TempDir dir;
  const auto path = dir / "model.gguf";
  SECTION("ggml type 99") {
    write_file(path, one_tensor({32}, 99, 0, 128));
    CHECK(input_error([&] { read_gguf(path); }) ==
          "model.gguf: tensor 'w': ggml type 99 is not one napkin knows (0-3, 6-39)");
  }
  SECTION("ggml type 4, removed from ggml") {
    write_file(path, one_tensor({32}, 4, 0, 128));
    CHECK(input_error([&] { read_gguf(path); }) ==
          "model.gguf: tensor 'w': ggml type 4 is not one napkin knows (0-3, 6-39)");
  }
  SECTION("five dimensions") {
    write_file(path, one_tensor({1, 1, 1, 1, 1}, F32, 0, 32));
    CHECK(input_error([&] { read_gguf(path); }) ==
          "model.gguf: tensor 'w': n_dims 5 exceeds ggml's limit of 4 (GGML_MAX_DIMS)");
  }
  SECTION("a negative dimension") {
    write_file(path, one_tensor({~0ull}, F32, 0, 32));
    CHECK(input_error([&] { read_gguf(path); }) ==
          "model.gguf: tensor 'w': dimension 0 is -1; expected a size >= 0");
  }
  SECTION("an element count that overflows 64 bits") {
    write_file(path, one_tensor({1ull << 32, 1ull << 32}, F32, 0, 32));
    CHECK(input_error([&] { read_gguf(path); }) ==
          "model.gguf: tensor 'w': shape [4294967296, 4294967296] has more elements than 64 bits "
          "count");
  }
  SECTION("a row that is not whole blocks") {
    write_file(path, one_tensor({33, 2}, Q4_0, 0, 64));
    CHECK(input_error([&] { read_gguf(path); }) ==
          "model.gguf: tensor 'w': first dimension 33 is not a multiple of the Q4_0 block size 32");
  }
  SECTION("cut inside the tensor info") {
    std::string bytes = one_tensor({32}, F32, 0, 0);
    bytes.resize(24 + 9 + 4 + 8 + 3);  // header, name, n_dims, dim, 3 B of the type
    write_file(path, bytes);
    CHECK(input_error([&] { read_gguf(path); }) ==
          "model.gguf: file ends inside tensor 'w' type (at byte 45: needs 4 B, 3 B left)");
  }
}

TEST_CASE("a .gguf tensor past the end of the file, misaligned or overlapping is rejected",
          "[checkpoint][specs]") {
  TempDir dir;
  const auto path = dir / "model.gguf";
  SECTION("data past the end: a truncated file") {
    // Q8_0 × 64 = 2 blocks of 34 B; the infos end at byte 57, the data section starts at 64.
    write_file(path, one_tensor({64}, Q8_0, 0, 34));
    CHECK(input_error([&] { read_gguf(path); }) ==
          "model.gguf: tensor 'w': 68 B at offset 0 end past the data section (34 B from byte "
          "64); the file is truncated or the offset is wrong");
  }
  SECTION("an offset off the alignment") {
    write_file(path, one_tensor({8}, F32, 4, 64));
    CHECK(input_error([&] { read_gguf(path); }) ==
          "model.gguf: tensor 'w': offset 4 is not a multiple of the alignment 32");
  }
  SECTION("overlapping tensors") {
    Bytes b;
    b.raw("GGUF").u32(3).u64(2).u64(0);
    b.str("a").u32(1).u64(16).u32(F32).u64(0);   // 64 B at 0
    b.str("b").u32(1).u64(8).u32(F32).u64(32);   // 32 B at 32
    b.zeros((32 - b.size() % 32) % 32).zeros(96);
    write_file(path, b.data);
    CHECK(input_error([&] { read_gguf(path); }) ==
          "model.gguf: tensors 'a' (offset 0, 64 B) and 'b' (offset 32) overlap");
  }
  SECTION("a repeated tensor name") {
    Bytes b;
    b.raw("GGUF").u32(3).u64(2).u64(0);
    b.str("a").u32(1).u64(8).u32(F32).u64(0);
    b.str("a").u32(1).u64(8).u32(F32).u64(32);
    b.zeros((32 - b.size() % 32) % 32).zeros(64);
    write_file(path, b.data);
    CHECK(input_error([&] { read_gguf(path); }) == "model.gguf: tensor 'a' appears twice");
  }
}

TEST_CASE("a GGUF file whose expert_used_count is above expert_count, or 0, is rejected naming both keys",
          "[checkpoint][specs]") {
  TempDir dir;
  const auto path = dir / "moe.gguf";
  const auto file = [](std::uint32_t experts, std::uint32_t used) {
    GgufBuilder g;
    g.kv("general.architecture", STRING).str("qwen2moe");
    g.kv("qwen2moe.expert_count", U32).u32(experts);
    g.kv("qwen2moe.expert_used_count", U32).u32(used);
    g.tensor("blk.0.ffn_up_exps.weight", {32, 4, 8}, F16, 32 * 4 * 8 * 2);
    return g.build();
  };
  write_file(path, file(8, 9));
  CHECK(input_error([&] { read_gguf(path); }) ==
        "moe.gguf: qwen2moe.expert_used_count is 9, more than qwen2moe.expert_count 8; expected at most as many "
        "experts per token as there are");
  write_file(path, file(8, 0));
  CHECK(input_error([&] { read_gguf(path); }) ==
        "moe.gguf: qwen2moe.expert_used_count is 0 with qwen2moe.expert_count 8; expected at least one expert per "
        "token");
  write_file(path, file(8, 8));
  CHECK(read_gguf(path).total_elements == 32 * 4 * 8);
}

// ---- issue 35: metadata values that passed silently -------------------------------------------
// Before (main at 7c75241) read_gguf, and with it `napkin params FILE.gguf`, took each of these
// files without a word: gguf_model_facts skipped a value of the wrong type, and nothing compared
// an array with block_count or the tokenizer's arrays with each other.

namespace {

// One key-value: its key, and what writes it (an empty writer drops the key).
using Kv = std::pair<std::string, std::function<void(GgufBuilder&)>>;

// `key` of GGUF type `type`, its value written by `value`.
Kv kv(const std::string& key, std::uint32_t type, std::function<void(Bytes&)> value) {
  return {key, [=](GgufBuilder& g) { value(g.kv(key, type)); }};
}
Kv u32_kv(const std::string& key, std::uint32_t v) {
  return kv(key, U32, [v](Bytes& b) { b.u32(v); });
}
Kv str_kv(const std::string& key, const std::string& v) {
  return kv(key, STRING, [v](Bytes& b) { b.str(v); });
}

// A llama GGUF's metadata (2 layers, D 64, F 128, 4 heads, 2 KV heads, 8 tokens) around one F32
// tensor; `changes` replaces a key's writer (an empty one drops the key) or adds a key.
std::string llama_with(const std::vector<Kv>& changes) {
  const std::vector<Kv> base = {
      str_kv("general.architecture", "llama"),
      u32_kv("llama.block_count", 2),
      u32_kv("llama.embedding_length", 64),
      u32_kv("llama.feed_forward_length", 128),
      u32_kv("llama.context_length", 8192),
      u32_kv("llama.attention.head_count", 4),
      u32_kv("llama.attention.head_count_kv", 2),
      kv("tokenizer.ggml.tokens", ARRAY,
         [](Bytes& b) {
           b.u32(STRING).u64(8);
           for (const char* t : {"a", "b", "c", "d", "e", "f", "g", "h"}) b.str(t);
         }),
  };
  const auto find = [](const std::vector<Kv>& in, const std::string& key) {
    return std::find_if(in.begin(), in.end(), [&](const Kv& k) { return k.first == key; });
  };
  GgufBuilder g;
  for (const Kv& b : base) {
    const auto c = find(changes, b.first);
    if (c == changes.end()) b.second(g);
    else if (c->second) c->second(g);
  }
  for (const Kv& c : changes)
    if (find(base, c.first) == base.end() && c.second) c.second(g);
  g.tensor("token_embd.weight", {32}, F32, 128);
  return g.build();
}

// The message read_gguf throws for the file, or "" when it reads it.
std::string read_error(const std::vector<Kv>& changes) {
  TempDir dir;
  const auto path = dir / "model.gguf";
  write_file(path, llama_with(changes));
  return input_error([&] { read_gguf(path); });
}

}  // namespace

TEST_CASE("a GGUF hyperparameter of a non-integer type, negative, or 0 where a model needs 1 is refused",
          "[checkpoint][specs]") {
  CHECK(read_error({}).empty());
  CHECK(read_error({u32_kv("llama.context_length", 0)}) ==
        "model.gguf: llama.context_length is 0; expected at least 1");
  CHECK(read_error({str_kv("llama.block_count", "2")}) ==
        "model.gguf: llama.block_count is '2' (string); expected a non-negative integer");
  CHECK(read_error({kv("llama.attention.head_count", F32V, [](Bytes& b) { b.f32(4.0f); })}) ==
        "model.gguf: llama.attention.head_count is '4' (f32); expected a non-negative integer");
  CHECK(read_error({kv("llama.attention.head_count_kv", I32, [](Bytes& b) { b.u32(0xfffffffe); })}) ==
        "model.gguf: llama.attention.head_count_kv is '-2' (i32); expected a non-negative integer");
  CHECK(read_error({str_kv("llama.expert_count", "8")}) ==
        "model.gguf: llama.expert_count is '8' (string); expected a non-negative integer");
  CHECK(read_error({kv("llama.rope.dimension_count", F64V, [](Bytes& b) { b.f64(16.0); })}) ==
        "model.gguf: llama.rope.dimension_count is '16' (f64); expected a non-negative integer");
  CHECK(read_error({kv("llama.embedding_length", BOOL, [](Bytes& b) { b.u8(1); })}) ==
        "model.gguf: llama.embedding_length is 'true' (bool); expected a non-negative integer");
  // Any integer width holds the same number; an SSM's 0 heads (mamba) stays legal.
  CHECK(read_error({kv("llama.context_length", U64, [](Bytes& b) { b.u64(8192); }),
                    kv("llama.attention.head_count", I32, [](Bytes& b) { b.u32(0); }),
                    kv("llama.attention.head_count_kv", U8, [](Bytes& b) { b.u8(0); })})
            .empty());
}

TEST_CASE("GGUF head counts: more KV heads than heads, or a per-layer array of another length, is refused",
          "[checkpoint][specs]") {
  CHECK(read_error({u32_kv("llama.attention.head_count_kv", 8)}) ==
        "model.gguf: llama.attention.head_count_kv is 8, more than llama.attention.head_count 4; expected at most as "
        "many KV heads as query heads");
  CHECK(read_error({kv("llama.feed_forward_length", ARRAY,
                       [](Bytes& b) { b.u32(U32).u64(3).u32(128).u32(128).u32(128); })}) ==
        "model.gguf: llama.feed_forward_length has 3 entries for 2 layers (llama.block_count); expected one per layer");
  CHECK(read_error({kv("llama.attention.head_count", ARRAY, [](Bytes& b) { b.u32(F32V).u64(2).f32(4).f32(4); })}) ==
        "model.gguf: llama.attention.head_count is an array[f32]; expected one integer, or an array of integers (one "
        "per layer)");
  CHECK(read_error({kv("llama.block_count", ARRAY, [](Bytes& b) { b.u32(U32).u64(2).u32(1).u32(1); })}) ==
        "model.gguf: llama.block_count is an array[u32]; expected one integer");
  // One entry per layer is what llama.cpp reads (get_key_or_arr).
  CHECK(read_error({kv("llama.attention.head_count_kv", ARRAY, [](Bytes& b) { b.u32(I32).u64(2).u32(2).u32(1); })})
            .empty());
}

TEST_CASE("a GGUF general.architecture that is no string, not UTF-8, or without its keys is refused",
          "[checkpoint][specs]") {
  CHECK(read_error({u32_kv("general.architecture", 7)}) ==
        "model.gguf: general.architecture is '7' (u32); expected a string such as 'llama'");
  CHECK(read_error({str_kv("general.architecture", "ll\xff" "ma")}) ==
        "model.gguf: general.architecture is 'll\\xffma', which is not UTF-8; expected a UTF-8 string");
  CHECK(read_error({str_kv("general.architecture", "qwen2")}) ==
        "model.gguf: general.architecture is 'qwen2' but no 'qwen2.' key is present; expected the architecture's "
        "hyperparameters (qwen2.block_count, qwen2.embedding_length, ...)");
  // A LoRA adapter states the architecture it adapts and none of its hyperparameters.
  CHECK(read_error({str_kv("general.architecture", "qwen2"), str_kv("general.type", "adapter")}).empty());
  CHECK(read_error({kv("test.a\xff", U8, [](Bytes& b) { b.u8(1); })}) ==
        "model.gguf: key 'test.a\\xff' is not UTF-8; expected a UTF-8 key");
}

TEST_CASE("GGUF tokenizer arrays of another type or length, and token ids past the vocabulary, are refused",
          "[checkpoint][specs]") {
  CHECK(read_error({kv("tokenizer.ggml.tokens", ARRAY, [](Bytes& b) { b.u32(U32).u64(2).u32(1).u32(2); })}) ==
        "model.gguf: tokenizer.ggml.tokens is array[u32]; expected an array of strings (one per token)");
  CHECK(read_error({kv("tokenizer.ggml.scores", ARRAY, [](Bytes& b) { b.u32(F32V).u64(3).f32(0).f32(0).f32(0); })}) ==
        "model.gguf: tokenizer.ggml.scores has 3 entries for the 8 of tokenizer.ggml.tokens; expected one per token");
  CHECK(read_error({kv("tokenizer.ggml.token_type", ARRAY, [](Bytes& b) { b.u32(U32).u64(1).u32(1); })}) ==
        "model.gguf: tokenizer.ggml.token_type is array[u32]; expected an array of i32 (one per token)");
  CHECK(read_error({u32_kv("tokenizer.ggml.bos_token_id", 8)}) ==
        "model.gguf: tokenizer.ggml.bos_token_id is 8, past the 8 tokens of tokenizer.ggml.tokens; expected a token "
        "id below 8");
  CHECK(read_error({str_kv("tokenizer.ggml.eos_token_id", "</s>")}) ==
        "model.gguf: tokenizer.ggml.eos_token_id is '</s>' (string); expected a token id (u32)");
  CHECK(read_error({u32_kv("tokenizer.ggml.eos_token_id", 7)}).empty());
}

TEST_CASE("a GGUF general.file_type that is no integer, or an alignment below 8, is refused", "[checkpoint][specs]") {
  CHECK(read_error({str_kv("general.file_type", "Q8_0")}) ==
        "model.gguf: general.file_type is 'Q8_0' (string); expected an integer (u32)");
  CHECK(read_error({u32_kv("general.alignment", 4)}) == "model.gguf: general.alignment is 4; expected a multiple of 8");
  CHECK(read_error({u32_kv("general.alignment", 0)}) == "model.gguf: general.alignment is 0; expected a power of two");
  CHECK(read_error({u32_kv("general.file_type", 7)}).empty());
}
