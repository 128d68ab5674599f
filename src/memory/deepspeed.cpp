// DeepSpeed's ZeRO-2/3 model-states estimator and host memory per node. See
// napkin/memory/deepspeed.h for the sources.
#include "napkin/memory/deepspeed.h"

#include <algorithm>
#include <string>

#include "napkin/ground/error.h"

namespace napkin {

using namespace units;

namespace {

Bytes bytes_of(double n) { return n * byte; }

// Python's int() of a non-negative float: truncation, as DeepSpeed applies to int(18 * P / N).
double py_int(double x) { return static_cast<double>(static_cast<std::int64_t>(x)); }

}  // namespace

DeepSpeedMemory deepspeed_memory(const DeepSpeedInput& in) {
  if (in.zero_stage != 2 && in.zero_stage != 3)
    throw InputError("--zero", std::to_string(in.zero_stage),
                     "2 or 3 with --zero-accounting deepspeed (DeepSpeed's estimator covers ZeRO-2 and ZeRO-3)");
  if (in.offload_params && in.zero_stage != 3)
    throw InputError("--offload-params", "(with --zero " + std::to_string(in.zero_stage) + ")",
                     "--zero 3 (parameter offload partitions the weights)");
  if (in.total_params <= 0) throw InputError("total_params", std::to_string(in.total_params), "a positive count");
  if (in.gpus_per_node <= 0 || in.nodes <= 0)
    throw InputError("--gpus-per-node", std::to_string(in.gpus_per_node), "a positive number of GPUs per node");
  const double p = static_cast<double>(in.total_params), largest = static_cast<double>(in.largest_layer_params);
  const double g = static_cast<double>(in.gpus_per_node), nodes = static_cast<double>(in.nodes);
  const double n = g * nodes, k = in.buffer_factor;
  DeepSpeedMemory r;
  if (in.zero_stage == 2) {
    // stage_1_and_2.py, estimate_zero2_model_states_mem_needs.
    r.weights = bytes_of(2.0 * p);
    if (in.offload_optimizer) {
      r.cpu_per_node = bytes_of(py_int(p * std::max(4.0 * n, 16.0) * k));
    } else {
      r.sharded_states = bytes_of(py_int(18.0 * p / n));
      r.cpu_per_node = bytes_of(py_int(p * 4.0 * g * k));
    }
  } else {
    // stage3.py, estimate_zero3_model_states_mem_needs; gpus_factor = 1 / num_nodes.
    r.gathered_params = bytes_of(4.0 * largest);
    const double f = 1.0 / nodes;
    if (in.offload_params) {
      r.cpu_per_node = bytes_of(py_int(p * (in.zero_init ? 18.0 * f : std::max(4.0 * g, 18.0 * f)) * k));
    } else if (in.offload_optimizer) {
      r.sharded_states = bytes_of(py_int(2.0 * p / n));
      r.cpu_per_node = bytes_of(py_int(p * (in.zero_init ? 16.0 * f : std::max(4.0 * g, 16.0 * f)) * k));
    } else {
      r.sharded_states = bytes_of(py_int(18.0 * p / n));
      r.cpu_per_node = bytes_of(py_int((in.zero_init ? largest : p) * 4.0 * g * k));
    }
  }
  r.per_gpu = r.weights + r.sharded_states + r.gathered_params;
  return r;
}

void deepspeed_memory(const DeepSpeedInput& in, ResultSet& out) {
  const DeepSpeedMemory r = deepspeed_memory(in);
  const double n = static_cast<double>(in.gpus_per_node * in.nodes), g = static_cast<double>(in.gpus_per_node);
  const double nodes = static_cast<double>(in.nodes);
  const Params p = static_cast<double>(in.total_params) * param;
  const Params largest = static_cast<double>(in.largest_layer_params) * param;
  out.input("zero_accounting", verdict("deepspeed"));
  out.input("gpus_per_node", value(g));
  out.input("nodes", value(nodes));
  if (in.zero_stage == 2) {
    out.item("weights", "16-bit weights (replicated)", value(r.weights), "2 B · P", text("2 B · {}", p));
    if (!in.offload_optimizer)
      out.item("sharded_states", "gradients, master weights, optimizer states (ZeRO-2 shard)", value(r.sharded_states),
               "int(18 B · P / N)", text("int(18 B · {} / {})", p, n));
  } else {
    out.item("gathered_params", "ZeRO-3 gathered largest layer", value(r.gathered_params),
             "largest_layer_memory = 4 B · largest layer", text("4 B · {}", largest));
    if (in.offload_optimizer && !in.offload_params)
      out.item("sharded_states", "16-bit weights (ZeRO-3 shard)", value(r.sharded_states), "int(2 B · P / N)",
               text("int(2 B · {} / {})", p, n));
    else if (!in.offload_optimizer)
      out.item("sharded_states", "weights, gradients, master weights, optimizer states (ZeRO-3 shard)",
               value(r.sharded_states), "int(18 B · P / N)", text("int(18 B · {} / {})", p, n));
  }
  // The sum names the rows shown above it, and only those.
  if (in.zero_stage == 2 && out.find("sharded_states") == nullptr)
    out.item("per_gpu", "per GPU (model states)", value(r.per_gpu), "sum of the rows above", text("{}", r.weights))
        .is_total = true;
  else if (in.zero_stage == 2)
    out.item("per_gpu", "per GPU (model states)", value(r.per_gpu), "sum of the rows above",
             text("{} + {}", r.weights, r.sharded_states))
        .is_total = true;
  else if (out.find("sharded_states") == nullptr)
    out.item("per_gpu", "per GPU (model states)", value(r.per_gpu), "sum of the rows above",
             text("{}", r.gathered_params))
        .is_total = true;
  else
    out.item("per_gpu", "per GPU (model states)", value(r.per_gpu), "sum of the rows above",
             text("{} + {}", r.gathered_params, r.sharded_states))
        .is_total = true;
  out.item("total", "all GPUs", value(n * r.per_gpu), "per GPU · N", text("{} · {}", r.per_gpu, n));
  const double k = in.buffer_factor;
  if (in.zero_stage == 2 && in.offload_optimizer)
    out.item("cpu_memory_per_node", "host memory per node", value(r.cpu_per_node), "P · max(4 B · N, 16 B) · 1.5",
             text("{} · max(4 B · {}, 16 B) · {}", p, n, k));
  else if (in.zero_stage == 2)
    out.item("cpu_memory_per_node", "host memory per node (fp32 model load)", value(r.cpu_per_node),
             "P · 4 B · G · 1.5", text("{} · 4 B · {} · {}", p, g, k));
  else if (in.offload_optimizer || in.offload_params)
    out.item("cpu_memory_per_node", "host memory per node", value(r.cpu_per_node),
             in.offload_params ? "P · 18 B / nodes · 1.5" : "P · 16 B / nodes · 1.5",
             text("{} · {} B / {} · {}", p, in.offload_params ? 18.0 : 16.0, nodes, k));
  else
    out.item("cpu_memory_per_node", "host memory per node (zero.Init load)", value(r.cpu_per_node),
             "largest layer · 4 B · G · 1.5", text("{} · 4 B · {} · {}", largest, g, k));
  out.item("cpu_memory", "host memory per GPU rank", value(r.cpu_per_node / g), "cpu_memory_per_node / G",
           text("{} / {}", r.cpu_per_node, g));
  out.assume("zero_accounting",
             text("DeepSpeed's estimator (estimate_zero{}_model_states_mem_needs): model states only, mixed precision "
                  "with Adam; activations, buffers and the CUDA context not counted (--zero-accounting paper for "
                  "napkin's ledger)",
                  static_cast<double>(in.zero_stage)));
  out.assume("host_buffer", text("host memory × {} (DeepSpeed's additional_buffer_factor), per node", k));
  out.assume("gpus_per_node", text("{} GPU(s) per node, {} node(s): N = {} GPUs", g, nodes, n));
  if (in.zero_stage == 3)
    out.assume("zero_init", text("deepspeed.zero.Init on (DeepSpeed's default): the model is built partitioned"));
}

void cpu_memory_per_node(Bytes cpu_memory, std::int64_t gpus_per_node, std::int64_t gpus, ResultSet& out) {
  const double ranks = static_cast<double>(std::min(gpus_per_node, gpus));
  out.item("cpu_memory_per_node", "CPU memory per node (offloaded)", value(ranks * cpu_memory),
           "cpu_memory · GPUs on the node", text("{} · {}", cpu_memory, ranks));
  out.assume("gpus_per_node", text("{} GPU rank(s) on a node (min(--gpus-per-node, GPUs)); each rank's share of "
                                   "host memory as cpu_memory counts it",
                                   ranks));
}

}  // namespace napkin
