"""Shared by scripts/fit-efficiency and scripts/validate-serving: the published measurements in
data/serving/measurements.csv, and napkin serve run on each of them.

A row is one number someone published (its source and notes are in the file). Its `kind` says what
was measured and how napkin's results compare with it:
  decode      tokens/s of one sequence while generating  <-> B / expected_decode_time_per_token / B
  throughput  output tokens/s of B sequences of P + G     <-> B·G / expected_latency (a benchmark's
              tokens, prefill included: a static batch)
  prefill     prompt tokens/s (llama-bench ppN)          <-> B·P / expected_prefill_time
  ttft        time to first token                        <-> expected_prefill_time
"""
import csv
import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = os.path.join(ROOT, "data", "serving", "measurements.csv")

# The efficiency profile (napkin's --engine) each publisher's engine is compared with. vLLM and
# SGLang share the vllm profile (both CUDA-graph decoders with paged attention); the compiled
# single-model engines (gpt-fast, TensorRT-LLM, MLC-LLM, ExLlamaV2) the none profile.
PROFILE_ENGINE = {
    "llama.cpp": "llama.cpp",
    "vllm": "vllm",
    "sglang": "vllm",
    "gpt-fast": "none",
    "tensorrt-llm": "none",
    "mlc-llm": "none",
    "exllamav2": "none",
}


def load_rows(path=TABLE):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def flagged(row):
    """A row its collector flagged as anomalous (notes say why): compared, but not fitted on."""
    return "ANOMALOUS" in row["notes"]


def excluded(row):
    """Why a row is left out of the comparison (None when it is compared)."""
    if row["engine"] not in PROFILE_ENGINE:
        return f"engine {row['engine']} has no efficiency profile (eager frameworks are not modelled)"
    if row["kind"] != "decode" and not (row["prompt"] and row["generate"]):
        return "prompt and output lengths not published"
    if row["engine"] == "llama.cpp" and int(row["gpus"] or 1) > 1:
        return "llama.cpp across several GPUs splits layers (pipeline), which serve does not model"
    return None


# A batch-1 decode step barely depends on the context at these lengths: where a source does not
# give its lengths, a 1-token prompt and 256 generated tokens are assumed (said in the table).
DEFAULT_DECODE_PROMPT, DEFAULT_DECODE_GENERATE = "1", "256"


def lengths(row):
    return (row["prompt"] or DEFAULT_DECODE_PROMPT, row["generate"] or DEFAULT_DECODE_GENERATE)


def napkin_args(row, extra=()):
    engine = PROFILE_ENGINE[row["engine"]]
    prompt, generate = lengths(row)
    args = ["serve", row["model"], "--hw", row["hardware"], "--weights-dtype", row["weights_dtype"],
            "--batch", row["batch"], "--prompt", prompt, "--generate", generate]
    if row["kv_dtype"]:
        args += ["--kv-dtype", row["kv_dtype"]]
    if int(row["gpus"] or 1) > 1:
        args += ["--tp", row["gpus"]]
    if engine != "none":
        args += ["--engine", engine]
    if row["cuda_graphs"] == "yes" and engine != "llama.cpp":
        args += ["--cuda-graphs"]
    return args + list(extra)


def _per_pass(row):
    """How the row's published quantity relates to a time per pass t: (True, n) when it is a rate
    of n tokens per pass (tokens/s = n / t), (False, k) when it is a time in units of k seconds."""
    b, (p, g) = float(row["batch"]), (float(x) for x in lengths(row))
    kind, unit = row["kind"], row["unit"]
    if kind in ("decode", "throughput", "prefill"):
        assert unit == "tokens/s", row["id"]
        return True, {"decode": 1.0, "throughput": b * g, "prefill": b * p}[kind]
    if kind == "ttft":
        return False, 1e-3 if unit == "ms" else 1.0
    raise ValueError(f"{row['id']}: unknown kind {kind}")


def measured_seconds(row):
    """The measurement as a time per pass (decode step, or the prefill), in seconds."""
    rate, n = _per_pass(row)
    v = float(row["measured"])
    return n / v if rate else v * n


def published(row, seconds):
    """A time per pass as the row's quantity is published (tokens/s, or ms or s): the inverse of
    measured_seconds."""
    rate, n = _per_pass(row)
    return n / seconds if rate else seconds / n


def phase_key(row):
    """The napkin result the row's time compares with."""
    return {"decode": "decode_time_per_token", "throughput": "latency"}.get(row["kind"], "prefill_time")


def run_napkin(napkin, args, fmt="--json"):
    p = subprocess.run([napkin] + args + [fmt], capture_output=True, text=True)
    if p.returncode not in (0, 1) or not p.stdout:
        raise RuntimeError(f"napkin {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
    return p.stdout


def result(doc, key):
    return doc["results"][key]["value"]


def layers(model):
    """num_hidden_layers of a bundled model preset."""
    with open(os.path.join(ROOT, "data", "presets", "models", model + ".json")) as f:
        text = f.read()
    i = text.index('"num_hidden_layers"')
    return int(text[i:].split(":", 1)[1].split(",", 1)[0].strip())


def percentile(values, q):
    """The q-quantile (0..1) by linear interpolation between order statistics."""
    s = sorted(values)
    if not s:
        return float("nan")
    x = q * (len(s) - 1)
    i = int(x)
    return s[i] if i + 1 >= len(s) else s[i] + (x - i) * (s[i + 1] - s[i])
