// The SGLang flags of memory and serve. See engine_sglang_flags.h.
#include "engine_sglang_flags.h"

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"
#include "napkin/report/human_units.h"

namespace napkin::cli {

namespace {
constexpr DimRt kCount = dim_rt<Count::dim>();
constexpr const char* kSglangFlags[] = {"--mem-fraction-static", "--chunked-prefill-size", "--cuda-graph-max-bs",
                                        "--page-size", "--max-total-tokens", "--sglang-version"};
}  // namespace

void add_sglang_flags(CommandApp* sub, NumericFlags& nf, SglangFlags& f) {
  // SGLang's names and defaults: python/sglang/srt/server_args.py (ServerArgs).
  f.fraction = nf.add(sub, "--mem-fraction-static", "mem_fraction_static", kCount, Constraint::positive,
                      "With --engine sglang: the fraction of the free GPU memory SGLang keeps for weights and the KV "
                      "pool (default: the release's rule for the GPU and TP)",
                      "RATIO");
  f.chunk = nf.add(sub, "--chunked-prefill-size", "chunked_prefill_size", kCount, Constraint::positive_integer,
                   "With --engine sglang: tokens of one prefill chunk (default as SGLang picks: 2048 below 35 GiB, "
                   "4096 below 60 GiB, 8192 below 160 GiB, else 16384); sets the default fraction from v0.5.3",
                   "COUNT");
  f.graph_bs = nf.add(sub, "--cuda-graph-max-bs", "cuda_graph_max_bs", kCount, Constraint::positive_integer,
                      "With --engine sglang: the largest decode batch captured in a CUDA graph (default as SGLang "
                      "picks for the GPU and TP); sets the default fraction from v0.5.3",
                      "COUNT");
  f.page_size = nf.add(sub, "--page-size", "page_size", kCount, Constraint::positive_integer,
                       "With --engine sglang: tokens per KV page; the pool is rounded down to whole pages (default 1)",
                       "COUNT", 1.0);
  f.max_total_tokens = nf.add(sub, "--max-total-tokens", "max_total_tokens", kCount, Constraint::positive_integer,
                              "With --engine sglang: a cap on the KV pool's tokens", "COUNT");
  sub->add_option("--sglang-version", f.version,
                  "With --engine sglang: the release whose default mem_fraction_static is used (default 0.5.8): "
                  "up to 0.4.6 a fraction by TP, 0.4.7–0.5.2 a reserve by GPU memory, 0.5.3 on a reserve from the "
                  "prefill chunk and CUDA graphs")
      ->type_name("X.Y.Z");
  for (const char* name : kSglangFlags) sub->get_option(name)->group("SGLang");
}

void check_sglang_flags(CommandApp* sub, bool sglang) {
  if (sglang) return;
  for (const char* name : kSglangFlags)
    if (const CLI::Option* o = sub->get_option_no_throw(name); o != nullptr && o->count() > 0)
      throw InputError(name, o->as<std::string>(), "--engine sglang with it (an SGLang setting)");
}

SglangInput sglang_input(const SglangFlags& f, const Point& p, Bytes gpu_memory, const specs::HardwareSpec* hw) {
  SglangInput in;
  in.gpu_memory = gpu_memory;
  // SGLang computes its default from nvidia-smi's total (get_device_memory_capacity); without
  // --hw only the capacity is known, and stands for both.
  in.device_memory = hw != nullptr && hw->memory > Bytes{} ? hw->memory : gpu_memory;
  in.links = hw != nullptr && !hw->interconnect_bidirectional ? SglangLinks::pcie : SglangLinks::nvlink;
  if (const auto fr = p.maybe<Count>(f.fraction)) in.mem_fraction_static = fr->in(units::one);
  in.heuristic = sglang_heuristic(f.version);
  in.version = f.version;
  in.chunked_prefill_size = p.maybe<Count>(f.chunk);
  in.cuda_graph_max_bs = p.maybe<Count>(f.graph_bs);
  in.page_size = p.get<Count>(f.page_size);
  in.max_total_tokens = p.maybe<Count>(f.max_total_tokens);
  return in;
}

std::string sglang_failure(const SglangBudget& b) {
  const SglangFit fit = sglang_fit(b);
  if (fit == SglangFit::fits) return "";
  constexpr DimRt by = dim_rt<Bytes::dim>();
  const auto bytes = [&](Bytes q) { return report::compact(q.in_base_units(), by); };
  if (fit == SglangFit::no_cache_memory)
    return "does not fit: SGLang stops at start-up (\"Not enough memory. Please try to increase "
           "--mem-fraction-static\"): its static share " +
           bytes(b.static_budget) + " (" + format_plain_number(b.mem_fraction_static) + " of " + bytes(b.available) +
           " free) leaves no KV pool beside weights " + bytes(b.weights) +
           "; raise --mem-fraction-static or --tp, or quantize the weights";
  return "does not fit: the KV pool holds " + format_plain_number(static_cast<double>(b.kv_pool_tokens)) +
         " tokens, fewer than one request of the context (SGLang starts but caps a request at the pool's size); "
         "lower the context, raise --mem-fraction-static, or raise --tp (each GPU then holds its share of the "
         "weights and of every layer's KV heads)";
}

}  // namespace napkin::cli
