// Assumption key -> the flag that changes it. The core emits keys; this table is the one place
// that knows flag names. tests/cli_test.cpp checks that every key a command emits is listed.
#include <array>
#include <stdexcept>
#include <string>

#include "assumption_flags.h"

namespace napkin::cli {

namespace {
struct KeyFlag {
  std::string_view key;
  std::string_view flag;
};
// An empty flag marks an assumption no flag changes (a modelling convention, stated so the
// reader knows it is there).
constexpr KeyFlag kKeyFlags[] = {
    {"fma_counting", "--fma-as-one"},
    {"ffn_gated", "--gated"},
    {"ffn_activation", ""},
    {"tokens", "--tokens"},
    {"causal_skip", "--causal-skip"},
    {"d_kv", "--d-kv"},
    {"attention_extras", ""},
    {"layers", "--layers"},
    {"backward_factor", "--backward-factor"},
    {"params", "--params"},
    {"params_count", "--params-count"},
    {"attention_term", "--seq"},
    {"head_term", "--vocab"},
    {"recompute", "--recompute"},
    {"training_extras", ""},
    {"peak", "--peak"},
    {"bandwidth", "--bandwidth"},
    {"roofline_model", ""},
    {"ops_per_element", "--ops-per-element"},
    {"dtype", "--dtype"},
    {"launch_overhead", "--launch-overhead"},
    // serve's expected figures (napkin/plans/serve_expected.h)
    {"efficiency", "--engine/--hw"},
    {"efficiency_bandwidth", "--efficiency-bandwidth"},
    {"efficiency_compute", "--efficiency-compute"},
    {"prefill_half_tokens", "--prefill-half-tokens"},
    {"token_overhead", "--token-overhead"},
    {"efficiency_launch", "--cuda-graphs"},
    // roofline --op matmul, ffn, attention (flops ffn: ffn_batch_seq)
    {"flop_counting", ""},
    {"min_traffic", ""},
    {"matmul_batch", "--batch"},
    {"ffn_batch_seq", "--batch/--seq"},
    {"attention_core", ""},
    {"throughput", "--throughput"},
    {"power", "--power"},
    {"energy_per_flop", "--energy-per-flop"},
    {"pue", "--pue"},
    {"price_per_kwh", "--price-per-kwh"},
    {"carbon_intensity", "--carbon-intensity"},
    // params, presets: conventions of the count; MODEL itself is the only input.
    {"tied_embeddings", ""},
    {"embedding_params", ""},
    {"active_params", ""},
    {"positions", ""},
    {"mtp_layers", ""},
    {"encoder_heads", ""},
    {"buffers", ""},
    {"model_config", ""},
    {"tensor_table", ""},
    {"tower", "--text-only"},
    {"unknown_family", ""},
    {"presets_source", ""},
    {"systems_source", ""},
    {"config_crosscheck", ""},
    {"headers_only", ""},
    // a made-up decoder by flags (src/cli/model_flags.cpp)
    {"made_up_attention", "--kv-heads"},
    {"made_up_head_dim", "--head-dim"},
    {"made_up_embeddings", "--tied"},
    {"made_up_mlp", "--no-gated"},
    {"made_up_moe", "--moe-experts"},
    {"made_up_norms", ""},
    {"made_up_layout", ""},
    {"made_up_context", ""},
    {"made_up_head_term", "--params-count"},
    // memory ledgers
    {"precision", "--precision"},
    {"optimizer", "--optimizer"},
    {"zero_stage", "--zero"},
    {"weights_dtype", "--weights-dtype"},
    {"declared_quantization", "--weights-dtype"},
    {"group_size", "--group-size"},
    {"unquantized", "--quantize-all"},
    {"kv_dtype", "--kv-dtype"},
    {"kv_layout", ""},
    {"sliding_window", ""},
    {"attention_chunk", ""},  // Llama 4: chunked layers keep at most one chunk of keys
    {"ssm_state", ""},
    {"activation_model", "--activation-accounting"},
    {"loss", "--loss"},
    {"distribute_saved", "--distribute-saved-activations"},
    {"flash_attention", "--attention"},
    {"prefill_chunk", "--prefill-chunk"},
    {"cuda_context", "--cuda-context"},
    {"fragmentation", "--fragmentation"},
    {"tp", "--tp"},
    {"bare_params", "--params"},
    {"batch_context", "--batch/--context"},
    {"pipeline_schedule", "--pp"},
    {"recompute_layers", "--recompute-layers"},
    {"cp", "--cp"},
    {"solver", "--max/--min-gpus"},
    {"lora", "--lora-rank/--lora-targets"},
    {"qlora", "--qlora"},
    {"offload", "--offload-optimizer"},
    {"zero_accounting", "--zero-accounting"},
    {"host_buffer", ""},
    {"zero_init", ""},
    {"gpus_per_node", "--gpus-per-node"},
    {"zero3_gather", "--zero"},
    {"fsdp_buffers", "--zero"},
    {"ep", "--ep"},
    {"etp", "--etp"},
    {"stage_split", "--first-stage-layers/--last-stage-layers"},
    {"dropout", "--dropout"},
    {"hardware_source", ""},
    {"hardware", "--hw"},
    {"activation_shape", ""},
    // kernel arithmetic
    {"warp_size", "--warp-size"},
    {"grid_mapping", ""},
    {"blocks_per_sm", "--blocks-per-sm"},
    {"sms", "--sms"},
    {"wave_model", ""},
    {"tiling_model", ""},
    {"smem_per_sm", "--smem-per-sm"},
    {"sram", "--sram"},
    {"batch_heads", "--batch/--heads"},
    {"flash_io_model", ""},
    {"backward", "--backward"},
    {"online_softmax", ""},
    {"blocks", "--blocks"},
    // train
    {"flops_formula", "--flops-formula"},
    {"vocab_padding", "--vocab"},
    {"megatron_shape", ""},
    {"recompute_flops", "--recompute"},
    {"layout", "--gpus/--tp/--pp/--dp"},
    {"seq", "--seq/--micro-batch"},
    {"utilization", "--mfu/--achieved"},
    // train's step model (napkin/plans/train_step.h)
    {"step_model", "--hw/--micro-batch/--seq"},
    {"step_efficiency", "--hw"},
    {"step_links", "--system/--intra-node-bandwidth/--inter-node-bandwidth"},
    {"step_overlap", "--tp-comm-overlap/--dp-comm-overlap"},
    {"global_batch", "--global-batch"},
    {"step_leaves_out", ""},
    {"implied_rate", "--tokens-per-second/--gpu-hours/--time"},
    {"price_per_gpu_hour", "--price-per-gpu-hour"},
    {"train_overheads", ""},
    // serve
    {"serve_shape", "--batch/--prompt/--generate"},
    {"serving_rate", "--batch/--prompt/--generate"},
    {"gpu_power", "--power/--pue"},
    {"compute_dtype", "--compute-dtype"},
    {"cuda_graphs", "--cuda-graphs"},
    {"graph_overhead", "--graph-overhead"},
    {"kernel_count", ""},
    {"op_counting", ""},
    {"attention_kernel", ""},
    {"mla_attention", ""},
    {"moe_routing", ""},
    {"prefill_pass", ""},
    {"link_bandwidth", "--link-bandwidth"},
    {"memory_ledger", ""},
    {"serve_extras", ""},
    // --engine llama.cpp (src/engines/llamacpp.cpp)
    {"llamacpp_engine", "--engine"},
    {"llamacpp_context", "--context/--parallel"},
    {"llamacpp_v_dtype", "--v-dtype"},
    {"llamacpp_swa", "--swa-full"},
    {"llamacpp_ubatch", "--ubatch"},
    {"llamacpp_flash_attention", "--no-flash-attention"},
    {"llamacpp_compute_model", ""},
    {"llamacpp_not_counted", ""},
    {"llamacpp_runtime_reserve", ""},  // serve: no --cuda-context there
    {"llamacpp_kv_reads", "--kv-dtype/--v-dtype"},
    // llama.cpp with layers in host memory (src/engines/llamacpp_offload.cpp)
    {"llamacpp_offload_speed", "--host-bandwidth"},
    {"llamacpp_n_cpu_moe", "--n-cpu-moe"},
    {"llamacpp_op_offload", "--n-gpu-layers"},
    {"gpu_total", "--gpu-memory"},
    // --engine vllm (napkin/engines/vllm.h)
    {"vllm_version", "--engine"},
    {"gpu_memory_utilization", "--gpu-memory-utilization"},
    {"vllm_total_memory", "--gpu-memory"},
    {"vllm_activation", "--max-num-batched-tokens"},
    {"vllm_non_torch", "--tp"},
    {"block_size", "--block-size"},
    {"vllm_kv_groups", ""},
    {"max_num_seqs", "--max-num-seqs"},
    // --engine sglang (napkin/engines/sglang.h)
    {"sglang_version", "--sglang-version"},
    {"mem_fraction_static", "--mem-fraction-static"},
    {"sglang_total_memory", "--gpu-memory"},
    {"sglang_startup", "--tp"},
    {"sglang_load_extras", ""},
    {"sglang_kv_cell", "--kv-dtype"},
    {"sglang_defaults", "--chunked-prefill-size/--cuda-graph-max-bs"},
};
}  // namespace

std::string_view flag_for_assumption(std::string_view key) {
  for (const auto& kf : kKeyFlags)
    if (kf.key == key) return kf.flag;
  throw std::out_of_range("assumption key without a flag entry: " + std::string(key));
}

std::vector<std::string_view> assumption_keys() {
  std::vector<std::string_view> keys;
  for (const auto& kf : kKeyFlags) keys.push_back(kf.key);
  return keys;
}

}  // namespace napkin::cli
