// napkin as a library: load a model and a GPU the way the CLI's MODEL and --hw do, print the
// inference memory ledger (what `napkin memory llama-3.1-8b --hw h100-sxm --context 8Ki` shows)
// and the roofline of a matmul at the GPU's bf16 peak: a 4096×4096×4096 product (compute-bound)
// and the same weights against one token (a decode step's matrix-vector product, memory-bound).
// Usage: napkin_library_example [MODEL [HARDWARE]]   (default llama-3.1-8b h100-sxm)
#include <napkin/ground/error.h>
#include <napkin/memory/ledgers.h>
#include <napkin/model/flops.h>
#include <napkin/plans/roofline.h>
#include <napkin/report/human_units.h>
#include <napkin/specs/load.h>

#include <cstdio>
#include <string>

namespace {

using namespace napkin;

// `s` right-aligned in `width` characters (UTF-8: "µs" is two characters, three bytes).
std::string pad_left(const std::string& s, std::size_t width) {
  std::size_t chars = 0;
  for (const char c : s) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return std::string(width > chars ? width - chars : 0, ' ') + s;
}

// Every result of `rs`, one per line: key, value with its unit, the formula and its numbers.
void print_items(const ResultSet& rs) {
  for (const Item& item : rs.items) {
    const std::string symbolic(item.symbolic);
    std::printf("  %-16.*s %s  %s%s%s\n", static_cast<int>(item.key.size()), item.key.data(),
                pad_left(report::human_value(rs, item.value), 28).c_str(), symbolic.c_str(),
                symbolic.empty() ? "" : " = ", report::expand(rs, item.substituted).c_str());
  }
}

// A bf16 [m,k] @ [k,n] product: 2·m·k·n FLOP against A and B read and C written once.
void matmul_roofline(const specs::HardwareSpec& gpu, double m, double k, double n) {
  RooflineInput in;
  in.peak = *gpu.peak(Dtype::bf16);
  in.bandwidth = gpu.bandwidth;
  in.flops = matmul_flops(MatmulInput{m * units::one, k * units::one, n * units::one});
  in.bytes = (m * k + k * n + m * n) * dtype_bits(Dtype::bf16) / 8 * units::byte;
  ResultSet rs;
  roofline(in, rs);
  const Roofline r = roofline(in);
  std::printf("\nroofline of a bf16 matmul [%g,%g] @ [%g,%g]: %s-bound\n", m, k, k, n,
              r.compute_bound ? "compute" : "memory");
  print_items(rs);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string model_arg = argc > 1 ? argv[1] : "llama-3.1-8b";
  const std::string hw_arg = argc > 2 ? argv[2] : "h100-sxm";
  try {
    const specs::ModelSpec model = specs::load_model(model_arg);
    for (const std::string& w : specs::model_warnings(model)) std::printf("warning: %s\n", w.c_str());
    const specs::HardwareSpec gpu = specs::load_hardware(hw_arg);

    InferenceMemoryInput in;  // bf16 weights and KV cache, 1 GPU
    in.batch = 1.0 * units::one;
    in.context = 8192.0 * units::one;
    in.capacity = gpu.memory;
    ResultSet ledger;
    inference_memory(model, in, ledger);
    std::printf("inference memory of %s on one %s, batch 1, context 8192, bf16\n", model.name.c_str(),
                gpu.full_name.c_str());
    print_items(ledger);

    matmul_roofline(gpu, 4096, 4096, 4096);
    matmul_roofline(gpu, 1, 4096, 4096);
  } catch (const InputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}
