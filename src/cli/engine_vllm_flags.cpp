// The vLLM flags of memory and serve. See engine_vllm_flags.h.
#include "engine_vllm_flags.h"

#include <algorithm>
#include <cmath>

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"
#include "napkin/report/human_units.h"

namespace napkin::cli {

namespace {
constexpr DimRt kCount = dim_rt<Count::dim>();
constexpr const char* kVllmFlags[] = {"--gpu-memory-utilization", "--max-num-batched-tokens", "--max-num-seqs",
                                      "--block-size", "--vllm-version", "--enforce-eager"};
}  // namespace

void add_vllm_flags(CommandApp* sub, NumericFlags& nf, VllmFlags& f) {
  // vLLM's names and defaults: vllm/engine/arg_utils.py (EngineArgs), vllm/config CacheConfig.
  f.utilization = nf.add(sub, "--gpu-memory-utilization", "gpu_memory_utilization", kCount, Constraint::positive,
                         "With --engine vllm: the fraction of the GPU's memory vLLM takes (default 0.9; 0.92 from "
                         "v0.21)", "RATIO");
  sub->add_option("--vllm-version", f.version,
                  "With --engine vllm: the release whose start-up profiling the budget follows, 0.8.0 to 0.21.x "
                  "(default " + kVllmDefaultVersion.text() + ", the newest checked against start-up logs)")
      ->type_name("X.Y.Z");
  sub->add_flag("--enforce-eager", f.enforce_eager,
                "With --engine vllm (v0.21 on): no CUDA graphs, so none are deducted before the KV pool is sized");
  f.batched_tokens = nf.add(sub, "--max-num-batched-tokens", "max_num_batched_tokens", kCount,
                            Constraint::positive_integer,
                            "With --engine vllm: tokens of one forward pass, the profiling batch (default as vLLM "
                            "picks: 8192 on GPUs of 70 GiB or more except A100s, else 2048)", "COUNT");
  f.seqs = nf.add(sub, "--max-num-seqs", "max_num_seqs", kCount, Constraint::positive_integer,
                  "With --engine vllm: sequences per step, the sampler warm-up rows (default as vLLM picks: 1024 on "
                  "GPUs of 70 GiB or more except A100s, else 256, at most --max-num-batched-tokens)", "COUNT");
  f.block_size = nf.add(sub, "--block-size", "block_size", kCount, Constraint::positive_integer,
                        "With --engine vllm: tokens per KV block, one of 1, 8, 16, 32, 64, 128 (default 16)", "COUNT", 16.0);
  for (const char* name : kVllmFlags) sub->get_option(name)->group("vLLM");
}

void check_vllm_flags(CommandApp* sub, bool vllm) {
  if (vllm) return;
  for (const char* name : kVllmFlags)
    if (const CLI::Option* o = sub->get_option_no_throw(name); o != nullptr && o->count() > 0)
      throw InputError(name, o->as<std::string>(), "--engine vllm with it (a vLLM setting)");
}

VllmInput vllm_input(const VllmFlags& f, const Point& p, Bytes gpu_memory, std::string_view device) {
  VllmInput in;
  if (!f.version.empty()) in.version = parse_vllm_version(f.version);
  // Before v0.21 the CUDA graphs are captured after the pool is sized: eager mode changes nothing.
  if (f.enforce_eager && in.version < VllmVersion{0, 21, 0})
    throw InputError("--enforce-eager", "(with vLLM " + in.version.text() + ")",
                     "--vllm-version 0.21 or later with it (earlier releases capture CUDA graphs after sizing the KV "
                     "pool, so eager mode leaves the pool as it is)");
  in.enforce_eager = f.enforce_eager;
  in.arch = vllm_gpu_arch(device);
  const VllmBatchDefaults d = vllm_batch_defaults(gpu_memory, device, in.version);
  in.gpu_memory = gpu_memory;
  in.gpu_memory_utilization =
      p.maybe<Count>(f.utilization).value_or(vllm_default_gpu_memory_utilization(in.version) * units::one).in(units::one);
  in.max_num_batched_tokens = p.maybe<Count>(f.batched_tokens).value_or(d.max_num_batched_tokens * units::one);
  // vllm/engine/arg_utils.py _set_default_args: an unset max_num_seqs is min(the default,
  // max_num_batched_tokens), so a small token budget alone never trips the check below.
  in.max_num_seqs = p.maybe<Count>(f.seqs).value_or(
      std::min(d.max_num_seqs, in.max_num_batched_tokens.in(units::one)) * units::one);
  in.block_size = p.get<Count>(f.block_size);
  return in;
}

std::string vllm_failure(const VllmBudget& bud) {
  const VllmFit fit = vllm_fit(bud);
  if (fit == VllmFit::fits) return "";
  constexpr DimRt b = dim_rt<Bytes::dim>();
  const auto bytes = [&](Bytes q) { return report::compact(q.in_base_units(), b); };
  if (fit == VllmFit::no_cache_memory)
    return "does not fit: no available memory for the cache blocks (vLLM refuses to start): vLLM's share " +
           bytes(bud.budget) + " is " + bytes(bud.shortfall) + " short of weights " + bytes(bud.weights) +
           " + activation peak " + bytes(bud.activation_peak) + " + non-torch " + bytes(bud.non_torch) +
           "; raise --gpu-memory-utilization or --tp, or lower --max-num-batched-tokens or --max-num-seqs";
  if (fit == VllmFit::too_few_requests)
    return "does not fit: the pool holds " + format_plain_number(std::floor(bud.max_concurrency * 100.0) / 100.0) +
           " requests of the context at once, fewer than the " + format_plain_number(bud.users) +
           " asked for (--users, --batch) (" +
           format_plain_number(static_cast<double>(bud.kv_blocks)) + " KV blocks, " +
           format_plain_number(static_cast<double>(bud.blocks_per_request)) +
           " per request); raise --tp or --gpu-memory-utilization, or find the fewest GPUs with --min-gpus";
  return "does not fit: one request of the context needs " + format_plain_number(static_cast<double>(bud.blocks_per_request)) +
         " KV blocks, more than the pool's " + format_plain_number(static_cast<double>(bud.kv_blocks)) + " (" +
         format_plain_number(static_cast<double>(bud.kv_pool_tokens)) +
         " tokens; vLLM refuses a max_model_len it cannot hold); lower the context, raise --gpu-memory-utilization, "
         "or raise --tp (each GPU then holds its share of the weights and of every layer's KV heads)";
}

}  // namespace napkin::cli
