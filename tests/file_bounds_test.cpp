// Hostile model files in bounded time and memory (napkin/specs/files.h): FIFOs, devices and
// symbolic-link loops are named as what they are and never block; JSON is capped at 64 MiB and
// refused by size before it is read; weights given where JSON is expected are named from their
// first bytes; safetensors files are read to the end of their header only. The big and special
// files are made here at run time (a FIFO, a 70 MiB sparse file, a 1 GiB sparse checkpoint).
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "checkpoint_files.h"
#include "napkin/specs/checkpoint.h"
#include "napkin/specs/files.h"
#include "napkin/specs/hf_config.h"
#include "run_napkin.h"

namespace fs = std::filesystem;
using napkin::specs::FileKind;
using napkin::specs::file_status;
using napkin::test::Bytes;
using napkin::test::input_error;
using napkin::test::TempDir;
using napkin::test::write_file;
using napkin::test::write_safetensors;
using napkin_test::run_napkin;

namespace {

void make_fifo(const fs::path& p) { REQUIRE(::mkfifo(p.c_str(), 0600) == 0); }

// A file of `size` bytes that starts with `head` and holds no blocks after it.
void make_sparse(const fs::path& p, std::string_view head, std::uint64_t size) {
  write_file(p, head);
  fs::resize_file(p, size);
}

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

}  // namespace

TEST_CASE("file_status says what a path is: file, directory, FIFO, device, socket, link loop, nothing",
          "[files][specs]") {
  TempDir dir;
  write_file(dir / "a.json", "{}");
  CHECK(file_status(dir / "a.json").kind == FileKind::regular);
  CHECK(file_status(dir / "a.json").size == 2);
  CHECK(file_status(dir.path()).kind == FileKind::directory);
  CHECK(file_status(dir / "missing").kind == FileKind::missing);
  CHECK(file_status(dir / "a.json" / "under-a-file").kind == FileKind::missing);  // ENOTDIR

  make_fifo(dir / "fifo");
  CHECK(file_status(dir / "fifo").kind == FileKind::fifo);
  CHECK(describe(file_status(dir / "fifo")) == "a FIFO, not a file");

  CHECK(file_status("/dev/zero").kind == FileKind::character_device);
  CHECK(describe(file_status("/dev/zero")) == "a character device, not a file");

  fs::create_symlink("loop-b", dir / "loop-a");
  fs::create_symlink("loop-a", dir / "loop-b");
  CHECK(file_status(dir / "loop-a").kind == FileKind::symlink_loop);
  CHECK(describe(file_status(dir / "loop-a")) == "too many levels of symbolic links");

  const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(s >= 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string sock = (dir / "sock").string();
  if (sock.size() < sizeof addr.sun_path) {
    sock.copy(addr.sun_path, sock.size());
    REQUIRE(::bind(s, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0);
    CHECK(describe(file_status(dir / "sock")) == "a socket, not a file");
  }
  ::close(s);
}

TEST_CASE("sniff_weights names weights by their first bytes and leaves JSON alone", "[files][specs]") {
  using napkin::specs::sniff_weights;
  CHECK(sniff_weights(std::string_view("PK\x03\x04\x00\x00", 6), 1000) == "a PyTorch weights file");
  CHECK(sniff_weights(std::string_view("\x80\x02}q\x00.", 6), 6) == "a PyTorch weights file");
  CHECK(sniff_weights("GGUF\x03\x00\x00\x00", 1000) == "a GGUF weights file");
  CHECK(sniff_weights(Bytes{}.u64(2).raw("{}").data, 10) == "a safetensors weights file");
  CHECK(sniff_weights(Bytes{}.u64(200).raw("{}").data, 10).empty());  // length past the file
  CHECK(sniff_weights("\x93NUMPY\x01\x00", 100) == "a NumPy array file");
  CHECK(sniff_weights(std::string_view("\x89HDF\r\n\x1a\n", 8), 100) == "an HDF5 file");
  CHECK(sniff_weights(R"({"hidden_size": 4096})", 21).empty());
  CHECK(sniff_weights("  {\"a\": 1}", 10).empty());
  CHECK(sniff_weights("", 0).empty());
}

TEST_CASE("binary_size_text writes sizes for messages", "[files][specs]") {
  using napkin::specs::binary_size_text;
  CHECK(binary_size_text(0) == "0 B");
  CHECK(binary_size_text(1023) == "1023 B");
  CHECK(binary_size_text(64ull << 20) == "64 MiB");
  CHECK(binary_size_text(70ull << 20) == "70 MiB");
  CHECK(binary_size_text(3435973837ull) == "3.2 GiB");
  CHECK(binary_size_text(UINT64_MAX) == "16 EiB");
}

TEST_CASE("read_json_text reads a JSON file once and refuses FIFOs, devices, weights and oversize files",
          "[files][specs]") {
  using napkin::specs::read_json_text;
  TempDir dir;
  SECTION("a config.json comes back byte for byte") {
    const std::string text = R"({"hidden_size": 4096, "name": ")" + std::string(100000, 'x') + "\"}";
    write_file(dir / "config.json", text);
    CHECK(read_json_text(dir / "config.json", "config.json", "a config JSON") == text);
    write_file(dir / "tiny.json", "1");
    CHECK(read_json_text(dir / "tiny.json", "tiny.json", "a config JSON") == "1");
    write_file(dir / "empty.json", "");
    CHECK(read_json_text(dir / "empty.json", "empty.json", "a config JSON").empty());
  }
  SECTION("a FIFO is named and not opened for a blocking read") {
    make_fifo(dir / "config.json");
    CHECK(input_error([&] { read_json_text(dir / "config.json", "config.json", "a config JSON"); }) ==
          "config.json: a FIFO, not a file");
  }
  SECTION("/dev/zero is a character device") {
    CHECK(input_error([&] { read_json_text("/dev/zero", "/dev/zero", "a config JSON"); }) ==
          "/dev/zero: a character device, not a file");
  }
  SECTION("a directory and a missing file") {
    CHECK(input_error([&] { read_json_text(dir.path(), "d", "a config JSON"); }) == "d: a directory, not a file");
    CHECK(input_error([&] { read_json_text(dir / "nope.json", "nope.json", "a config JSON"); }) ==
          "nope.json: no such file or directory");
  }
  SECTION("a 70 MiB file is refused by its size, before it is read") {
    make_sparse(dir / "config.json", "{", 70ull << 20);
    CHECK(input_error([&] { read_json_text(dir / "config.json", "config.json", "a config JSON"); }) ==
          "config.json: 70 MiB; expected a config JSON of at most 64 MiB");
  }
  SECTION("a 3.2 GiB file too") {
    make_sparse(dir / "config.json", " ", 3435973837ull);
    CHECK(input_error([&] { read_json_text(dir / "config.json", "config.json", "a config JSON"); }) ==
          "config.json: 3.2 GiB; expected a config JSON of at most 64 MiB");
  }
  SECTION("PyTorch weights are named whatever their size") {
    make_sparse(dir / "pytorch_model.bin", "PK\x03\x04", 100ull << 20);
    CHECK(input_error([&] {
            read_json_text(dir / "pytorch_model.bin", "pytorch_model.bin", "a config JSON",
                           "give the model directory or its config.json");
          }) == "pytorch_model.bin is a PyTorch weights file, not a config JSON; give the model directory or its "
                "config.json");
  }
  SECTION("a safetensors file under the name config.json") {
    write_safetensors(dir / "config.json", R"({"w": {"dtype": "F16", "shape": [1], "data_offsets": [0, 2]}})", 2);
    CHECK(input_error([&] { read_json_text(dir / "config.json", "config.json", "a config JSON"); }) ==
          "config.json is a safetensors weights file, not a config JSON");
  }
}

TEST_CASE("the checkpoint readers name a FIFO, a device and a link loop, and do not block", "[files][checkpoint]") {
  TempDir dir;
  make_fifo(dir / "model.safetensors");
  CHECK(input_error([&] { napkin::specs::read_safetensors(dir / "model.safetensors"); }) ==
        "model.safetensors: a FIFO, not a file");
  CHECK(input_error([&] { napkin::specs::read_checkpoint(dir / "model.safetensors"); }) ==
        "model.safetensors: a FIFO, not a file");
  make_fifo(dir / "model.gguf");
  CHECK(input_error([&] { napkin::specs::read_gguf(dir / "model.gguf"); }) == "model.gguf: a FIFO, not a file");
  CHECK(input_error([&] { napkin::specs::read_gguf("/dev/zero"); }) == "zero: a character device, not a file");
  fs::create_symlink("x.safetensors", dir / "x.safetensors.tmp");
  fs::rename(dir / "x.safetensors.tmp", dir / "x.safetensors");  // x.safetensors -> itself
  CHECK(input_error([&] { napkin::specs::read_safetensors(dir / "x.safetensors"); }) ==
        "x.safetensors: too many levels of symbolic links");
}

TEST_CASE("a 1 GiB safetensors checkpoint is read to the end of its header only", "[files][checkpoint]") {
  TempDir dir;
  const std::string header = R"({"w": {"dtype": "BF16", "shape": [536870912], "data_offsets": [0, 1073741824]}})";
  make_sparse(dir / "model.safetensors", Bytes{}.u64(header.size()).raw(header).data, 8 + header.size() + (1ull << 30));
  const auto c = napkin::specs::read_safetensors(dir / "model.safetensors");
  CHECK(c.total_elements == 536870912);
  CHECK(c.total_bytes == 1ull << 30);
}

TEST_CASE("read_json_file names the file by the path given and says what a hardware JSON is",
          "[files][specs]") {
  TempDir dir;
  make_fifo(dir / "h.json");
  CHECK(input_error([&] { napkin::specs::read_json_file((dir / "h.json").string(), "a hardware JSON", ""); }) ==
        (dir / "h.json").string() + ": a FIFO, not a file");
  write_file(dir / "gpu.bin", "PK\x03\x04");
  CHECK(input_error([&] { napkin::specs::read_json_file((dir / "gpu.bin").string(), "a hardware JSON", ""); }) ==
        (dir / "gpu.bin").string() + " is a PyTorch weights file, not a hardware JSON");
}

TEST_CASE("params MODEL: a FIFO, /dev/zero, a link loop, weights and a 70 MiB config are exit 2 at once",
          "[files][cli]") {
  TempDir dir;
  const std::string expected =
      "; expected a preset name (napkin presets models), a config.json, a model directory or napkin model JSON\n";
  SECTION("a FIFO") {
    make_fifo(dir / "fifo");
    const auto r = run_napkin("params " + quoted(dir / "fifo"));
    CHECK(r.code == 2);
    CHECK(r.out == "napkin: error: " + (dir / "fifo").string() + ": a FIFO, not a file" + expected);
  }
  SECTION("/dev/zero") {
    const auto r = run_napkin("params /dev/zero");
    CHECK(r.code == 2);
    CHECK(r.out == "napkin: error: /dev/zero: a character device, not a file" + expected);
  }
  SECTION("a symbolic-link loop") {
    fs::create_symlink("b", dir / "a");
    fs::create_symlink("a", dir / "b");
    const auto r = run_napkin("params " + quoted(dir / "a"));
    CHECK(r.code == 2);
    CHECK(r.out == "napkin: error: " + (dir / "a").string() + ": too many levels of symbolic links" + expected);
  }
  SECTION("a model directory whose config.json is a FIFO") {
    make_fifo(dir / "config.json");
    const auto r = run_napkin("params " + quoted(dir.path()));
    CHECK(r.code == 2);
    CHECK(r.out == "napkin: error: " + (dir / "config.json").string() +
                       ": a FIFO, not a file; expected a config JSON\n");
  }
  SECTION("a 70 MiB config.json") {
    make_sparse(dir / "config.json", "{", 70ull << 20);
    const auto r = run_napkin("params " + quoted(dir.path()));
    CHECK(r.code == 2);
    CHECK(r.out == "napkin: error: " + (dir / "config.json").string() +
                       ": 70 MiB; expected a config JSON of at most 64 MiB\n");
  }
  SECTION("a 200 MiB pytorch_model.bin given as MODEL") {
    make_sparse(dir / "pytorch_model.bin", "PK\x03\x04", 200ull << 20);
    const auto r = run_napkin("params " + quoted(dir / "pytorch_model.bin"));
    CHECK(r.code == 2);
    CHECK(r.out == "napkin: error: " + (dir / "pytorch_model.bin").string() +
                       " is a PyTorch weights file, not a config JSON; give the model directory or its config.json\n");
  }
  SECTION("a safetensors file under another name is read as the checkpoint it is") {
    write_safetensors(dir / "weights.bin", R"({"w": {"dtype": "F16", "shape": [3], "data_offsets": [0, 6]}})", 6);
    const auto r = run_napkin("params " + quoted(dir / "weights.bin") + " --csv");
    CHECK(r.code == 0);
    CHECK(r.out.find(",safetensors,3,3,") != std::string::npos);
  }
}
