#!/usr/bin/env python3
"""Writes the seed inputs of the fuzz harnesses into fuzz/seeds/<harness>/ (not committed:
scripts/fuzz merges them into fuzz/corpus/<harness>/, which is). Sources: the model and
hardware presets, the examples' flag values, synthetic safetensors and GGUF headers built
like tests/checkpoint_files.h builds them, and Hugging Face cache trees as huggingface_hub
leaves them, with the ways they break (a link to a blob that is gone, a loop, a bad ref)."""
import json, os, pathlib, struct, sys

root = pathlib.Path(__file__).resolve().parent.parent
out = root / "fuzz" / "seeds"

def put(h, name, data):
    d = out / h
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data if isinstance(data, bytes) else data.encode())

# quantity: byte 0 = dimension index, byte 1 = plain scale index (see fuzz_quantity.cpp).
quantities = [
    (0, "4096"), (0, "8k"), (0, "8Ki"), (1, "1e18"), (1, "2.5PFLOP"), (2, "989TFLOP/s"),
    (3, "80GiB"), (3, "16GB"), (3, "228KiB"), (4, "3.35TB/s"), (5, "10FLOP/B"), (6, "2.5h"),
    (6, "5us"), (6, "10 ms"), (6, "3min"), (6, "1d"), (7, "10kWh"), (7, "3.6MJ"), (8, "1kW"),
    (8, "409.6kW"), (9, "15T"), (9, "8192"), (10, "8B"), (10, "70e9"), (11, "1pJ/FLOP"),
    (12, "0.12USD/kWh"), (13, "400gCO2e/kWh"), (13, "0.4kgCO2e/kWh"), (14, "12"), (15, "2"),
    (3, "-1GiB"), (6, "1µs"), (2, "1e400FLOP/s"), (0, "nan"), (3, "0x10"),
]
for i, (d, t) in enumerate(quantities):
    put("quantity", f"seed{i:02}", bytes([d, 1 if d == 12 else 0]) + t.encode())

# sweep: byte 0 = dimension, byte 1 = constraint (+6: per-kWh scale) (see fuzz_sweep.cpp).
sweeps = [
    (0, 3, "1..64:x2"), (0, 3, "1024..3072:+1024"), (0, 1, "1024,2048"), (1, 1, "1GiB..8GiB:x2"),
    (0, 0, "1..1000:x10"), (0, 4, "1790..1796"), (1, 1, "1Ki,8Ki,128Ki"), (2, 1, "1s..1h:x60"),
    (0, 5, "1.0..1.5:+0.1"), (7, 7, "0.1..0.3:+0.05"), (0, 2, "0..10:+2.5"), (0, 3, "8"),
    (0, 0, "-4"), (0, 1, "1..2:*1.5"), (3, 1, "100TFLOP/s..1PFLOP/s:x2"),
]
for i, (d, c, t) in enumerate(sweeps):
    put("sweep", f"seed{i:02}", bytes([d, c]) + t.encode())

# model_json: the preset configs and a napkin model JSON per family of docs/model-spec.md.
for p in sorted((root / "data/presets/models").glob("*.json")):
    cfg = json.loads(p.read_text())["config"]
    put("model_json", p.stem, json.dumps(cfg, indent=1))
put("model_json", "napkin-tiny", json.dumps({
    "napkin_model": 1, "name": "tiny", "hidden": 64, "layers": 2, "heads": 4, "kv_heads": 2,
    "vocab": 1000, "ffn": 256, "positions": "learned", "max_context": 128, "norm": "layernorm",
    "bias": {"qkv": True, "o": True, "mlp": True}}))
put("model_json", "napkin-moe-mla", json.dumps({
    "napkin_model": 1, "name": "moe", "hidden": 128, "layers": 4, "heads": 4, "vocab": 500,
    "ffn": 512, "attention": "mla",
    "mla": {"q_lora_rank": 32, "kv_lora_rank": 16, "qk_rope_head_dim": 8, "qk_nope_head_dim": 16,
            "v_head_dim": 16},
    "moe": {"experts": 8, "experts_per_token": 2, "shared_experts": 1, "first_k_dense": 1,
            "expert_ffn": 64, "router_bias": True}}))

# hardware: the presets.
for p in sorted((root / "data/presets/hardware").glob("*.json")):
    put("hardware", p.stem, p.read_bytes())

# safetensors: length, JSON header, data.
def st(header, data_bytes):
    h = json.dumps(header, separators=(",", ":")).encode()
    return struct.pack("<Q", len(h)) + h + bytes(data_bytes)
put("safetensors", "tiny", st({
    "__metadata__": {"format": "pt"},
    "model.embed_tokens.weight": {"dtype": "BF16", "shape": [4, 2], "data_offsets": [0, 16]},
    "model.layers.0.self_attn.q_proj.weight": {"dtype": "F32", "shape": [2, 2], "data_offsets": [16, 32]},
    "model.norm.weight": {"dtype": "F16", "shape": [2], "data_offsets": [32, 36]},
    "lm_head.weight": {"dtype": "F8_E4M3", "shape": [4, 2], "data_offsets": [36, 44]}}, 44))
put("safetensors", "subbyte", st({
    "a": {"dtype": "F4", "shape": [4], "data_offsets": [0, 2]},
    "b": {"dtype": "F6_E2M3", "shape": [4], "data_offsets": [2, 5]},
    "empty": {"dtype": "I64", "shape": [0, 3], "data_offsets": [5, 5]},
    "scalar": {"dtype": "BOOL", "shape": [], "data_offsets": [5, 6]}}, 6))
put("safetensors", "empty", st({}, 0))

# gguf: magic, version, tensor_count, kv_count, kvs, tensor infos, padding, data.
def s(x): return struct.pack("<Q", len(x)) + x.encode()
def kv(key, t, payload): return s(key) + struct.pack("<I", t) + payload
def gguf(kvs, tensors, version=3):
    body = b"".join(kvs)
    infos, off = b"", 0
    for name, dims, t, nbytes in tensors:
        infos += s(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
        infos += struct.pack("<IQ", t, off)
        off += (nbytes + 31) // 32 * 32
    b = b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(kvs)) + body + infos
    b += bytes((32 - len(b) % 32) % 32)
    return b + bytes(off)
U8, I8, U16, I16, U32, I32, F32V, BOOL, STRING, ARRAY, U64, I64, F64V = range(13)
def arr(t, items, fmt=None):
    p = struct.pack("<IQ", t, len(items))
    return p + b"".join(s(i) if t == STRING else struct.pack(fmt, i) for i in items)
put("gguf", "llama", gguf([
    kv("general.architecture", STRING, s("llama")),
    kv("general.alignment", U32, struct.pack("<I", 32)),
    kv("llama.block_count", U32, struct.pack("<I", 2)),
    kv("llama.embedding_length", U64, struct.pack("<Q", 64)),
    kv("llama.attention.head_count", U32, struct.pack("<I", 4)),
    kv("llama.rope.freq_base", F32V, struct.pack("<f", 10000.0)),
    kv("general.some_double", F64V, struct.pack("<d", 0.5)),
    kv("general.flag", BOOL, b"\x01"),
    kv("general.small", I8, b"\xff"),
    kv("general.short", I16, struct.pack("<h", -2)),
    kv("general.ushort", U16, struct.pack("<H", 2)),
    kv("general.int", I32, struct.pack("<i", -3)),
    kv("general.long", I64, struct.pack("<q", -4)),
    kv("general.byte", U8, b"\x07"),
    kv("tokenizer.ggml.tokens", ARRAY, arr(STRING, ["<unk>", "<s>", "</s>", "a", "b", "c"])),
    kv("tokenizer.ggml.scores", ARRAY, arr(F32V, [0.0] * 6, "<f")),
    kv("llama.nested", ARRAY, struct.pack("<IQ", ARRAY, 1) + arr(U8, [1, 2], "<B")),
    kv("split.count", U16, struct.pack("<H", 2)),
], [("token_embd.weight", [64, 6], 1, 64 * 6 * 2), ("blk.0.attn_q.weight", [64, 64], 2, 64 * 2 * 18),
    ("blk.0.ffn_down.weight", [256, 2], 12, 2 * 144), ("output_norm.weight", [64], 0, 256),
    ("blk.0.ffn_gate_inp.weight", [64, 4], 8, 4 * 2 * 34)]))
put("gguf", "v2-empty", gguf([], [], version=2))
put("gguf", "minimal", gguf([kv("general.architecture", STRING, s("qwen2"))],
                            [("output.weight", [32, 1], 39, 17)]))
# hf_cache: the model argument, then one cache entry a line (see fuzz_hf_cache.cpp).
H1, H2, H3 = "a" * 40, "abcdef0123456789abcdef0123456789abcdef01", "abcdef9999999999999999999999999999999999"
def repo(folder="models--acme--m", h=H1, files=(("config.json", "cfg", "@config"),), ref="main"):
    lines = [f"f {folder}/refs/{ref} {h}", f"d {folder}/snapshots/{h}"]
    for name, blob, content in files:
        if content is not None:
            lines.append(f"f {folder}/blobs/{blob} {content}")
        lines.append(f"l {folder}/snapshots/{h}/{name} ../../blobs/{blob}")
    return lines
hf_seeds = {
    "plain": ["acme/m"] + repo(),
    "weights": ["acme/m"] + repo(files=(("config.json", "cfg", "@config"), ("model.safetensors", "w", "@sa"))),
    "index": ["acme/m"] + repo(files=(("config.json", "cfg", "@config"), ("model.safetensors.index.json", "i", "@index"),
                                     ("a.safetensors", "wa", "@sa"), ("b.safetensors", "wb", "@sb"))),
    "gguf": ["acme/m"] + repo(files=(("model-Q4_K_M.gguf", "g", "@gguf"),)),
    "dangling-config": ["acme/m"] + repo(files=(("config.json", "cfg", None),)),
    "dangling-weights": ["acme/m"] + repo(files=(("config.json", "cfg", "@config"), ("model.safetensors", "w", None))),
    "dangling-shards": ["acme/m"] + repo(files=(("config.json", "cfg", "@config"),
                                                ("model.safetensors.index.json", "i", "@index"),
                                                ("a.safetensors", "wa", None), ("b.safetensors", "wb", None))),
    "dangling-index": ["acme/m"] + repo(files=(("model.safetensors.index.json", "i", None),)),
    "dangling-gguf": ["acme/m"] + repo(files=(("x.gguf", "g", None),)),
    "dangling-ref": ["acme/m", "d models--acme--m/refs", "l models--acme--m/refs/main ../../blobs/gone"],
    "dangling-snapshot": ["acme/m", f"f models--acme--m/refs/main {H1}", "d models--acme--m/snapshots",
                          f"l models--acme--m/snapshots/{H1} ../gone"],
    "dangling-folder": ["acme/m", "l models--acme--m gone"],
    "loop": ["acme/m"] + repo(files=()) + [f"l models--acme--m/snapshots/{H1}/config.json config.json"],
    "loop-pair": ["acme/m"] + repo(files=()) + [f"l models--acme--m/snapshots/{H1}/config.json x",
                                                f"l models--acme--m/snapshots/{H1}/x config.json"],
    "dir-link": ["acme/m"] + repo() + [f"l models--acme--m/snapshots/{H1}/sub ."],
    "ref-newline": ["acme/m", f"f models--acme--m/refs/main {H1}\\n", f"d models--acme--m/snapshots/{H1}",
                    f"f models--acme--m/snapshots/{H1}/config.json @config"],
    "ref-bad": ["acme/m", "f models--acme--m/refs/main not-a-hash"],
    "ref-dir": ["acme/m", "d models--acme--m/refs/main"],
    "snapshot-file": ["acme/m", f"f models--acme--m/refs/main {H1}", f"f models--acme--m/snapshots/{H1} x"],
    "trailing-slash": ["acme/m/"] + repo(),
    "url": ["https://huggingface.co/acme/m"] + repo(),
    "url-hf": ["hf.co/acme/m"] + repo(),
    "url-tree": ["huggingface.co/acme/m/tree/v1"] + repo(ref="v1"),
    "url-tree-pr": ["https://huggingface.co/acme/m/tree/refs%2Fpr%2F1"] + repo(ref="refs/pr/1"),
    "url-dataset": ["https://huggingface.co/datasets/acme/m"],
    "url-blob": ["https://huggingface.co/acme/m/blob/main/config.json"],
    "url-one-part": ["https://hf.co/gpt2"],
    "case": ["ACME/M"] + repo(),
    "case-two": ["ACME/M"] + repo() + repo(folder="models--Acme--M", h=H2),
    "full-hash": [f"acme/m@{H2}"] + repo(h=H2),
    "full-hash-upper": [f"acme/m@{H2.upper()}"] + repo(h=H2),
    "short-hash": ["acme/m@abcdef0"] + repo(h=H2) + repo(h=H3, ref="v1"),
    "short-hash-ambiguous": ["acme/m@abcdef"] + repo(h=H2) + repo(h=H3, ref="v1"),
    "ref-case": ["acme/m@Main"] + repo(),
    "revision-missing": ["acme/m@v9"] + repo(),
    "directory-arg": [f"models--acme--m/snapshots/{H1}"] + repo(),
    "config-arg": [f"models--acme--m/snapshots/{H1}/config.json"] + repo(),
    "preset": ["meta-llama/Llama-3.1-8B"],
    "preset-url": ["https://huggingface.co/meta-llama/Llama-3.1-8B/tree/main"],
    "escapes": ["acme/m"] + repo(files=(("config.json", "cfg", "{\\x22model_type\\x22:\\t1}"),)),
}
for name, lines in hf_seeds.items():
    put("hf_cache", name, "\n".join(lines) + "\n")

# engines: byte 0 picks the model ('a'..'l': kPresets of fuzz_engines.cpp, 'm': the JSON at the
# end), then one --flag=value per line, as memory and serve take them.
engine_models = "abcdefghijkl"  # llama-3.1-8b gemma-2-2b llama-4-scout mixtral-8x7b qwen3-0.6b gpt2
                                # deepseek-v2-lite phi-3-mini gemma-3-1b gpt-oss-20b opt-1.3b bert
hf_yarn = {"model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"], "hidden_size": 64,
           "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
           "intermediate_size": 128, "vocab_size": 256, "max_position_embeddings": 4096,
           "rope_scaling": {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 2048},
           "model_max_length": 32768, "sliding_window": 1024, "use_sliding_window": True}
hf_linear = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 64,
             "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 1,
             "intermediate_size": 128, "vocab_size": 300, "max_position_embeddings": 2048,
             "rope_scaling": {"rope_type": "linear", "factor": 2.5}}
napkin_kinds = {"napkin_model": 1, "name": "kinds", "hidden": 128, "layers": 6, "heads": 8,
                "kv_heads": 2, "vocab": 1000, "ffn": 256, "max_context": 8192,
                "sliding_window": 512, "attention_chunk": 1024,
                "layer_attention": ["full", "sliding", "sliding", "none", "sliding", "full"],
                "rope_scaling": {"rope_type": "llama3", "factor": 8.0}}
napkin_chunked_moe = {"napkin_model": 1, "name": "chunked", "hidden": 96, "layers": 4, "heads": 6,
                      "kv_heads": 3, "head_dim": 32, "vocab": 512, "ffn": 192, "max_context": 0,
                      "attention_chunk": 256, "layer_attention": ["chunked", "chunked", "chunked", "full"],
                      "moe": {"experts": 4, "experts_per_token": 2, "expert_ffn": 64, "first_k_dense": 1}}
napkin_learned = {"napkin_model": 1, "name": "learned", "hidden": 64, "layers": 2, "heads": 4, "vocab": 500,
                  "ffn": 256, "ffn_kind": "plain", "positions": "learned", "max_context": 1024,
                  "position_offset": 2, "norm": "layernorm"}
engine_seeds = {
    "llama-vllm-h100": ("a", ["--context=8Ki", "--gpu-memory=79.19GiB"]),
    "llama-llamacpp-q8": ("a", ["--context=32Ki", "--kv-dtype=q8_0", "--gpu-memory=24GiB", "--parallel=4",
                                "--ubatch=256"]),
    "llama-vllm-short": ("a", ["--context=128Ki", "--gpu-memory=8GiB", "--gpu-memory-utilization=0.95"]),
    "gemma2-sliding": ("b", ["--context=8192", "--swa-full", "--parallel=2", "--gpu-memory=16GiB"]),
    "gemma2-window": ("b", ["--context=8Ki", "--ubatch=4096", "--max-num-batched-tokens=16384"]),
    "scout-chunked-tp": ("c", ["--context=128Ki", "--tp=4", "--gpu-memory=80GiB", "--weights-dtype=fp8"]),
    "mixtral-a100": ("d", ["--weights-dtype=int4", "--device=NVIDIA A100-SXM4-80GB", "--gpu-memory=79.15GiB",
                           "--context=32768"]),
    "qwen3-serve": ("e", ["--serve", "--prompt=7Ki", "--generate=1Ki", "--batch=8", "--block-size=32",
                          "--max-num-seqs=64"]),
    "gpt2-learned": ("f", ["--context=2048", "--no-flash-attention", "--kv-dtype=f32"]),
    "gpt2-quantized-v": ("f", ["--context=1024", "--no-flash-attention", "--v-dtype=q4_0"]),
    "deepseek-mla": ("g", ["--context=32Ki", "--kv-dtype=fp8", "--tp=2"]),
    "phi3-longrope": ("h", ["--context=4096", "--gpu-memory-utilization=0.5", "--block-size=128"]),
    "gemma3-serve": ("i", ["--serve", "--parallel=4", "--ubatch=1024", "--v-dtype=q4_0", "--kv-dtype=q8_0"]),
    "gpt-oss-fp4": ("j", ["--weights-dtype=fp4", "--context=128Ki", "--gpu-memory=80GB"]),
    "opt-metal": ("k", ["--metal", "--cuda-context=0", "--context=2048", "--gpu-memory=32GiB"]),
    "bert": ("l", ["--context=512"]),
    "bad-block": ("a", ["--block-size=7", "--max-num-seqs=4096", "--max-num-batched-tokens=2048"]),
    "bad-utilization": ("a", ["--gpu-memory-utilization=1.5", "--parallel=300"]),
    "list-refused": ("a", ["--context=1Ki,2Ki"]),
    "hf-yarn": ("m", ["--context=16Ki", "--parallel=3"], hf_yarn),
    "hf-linear": ("m", ["--serve", "--prompt=4096", "--generate=1024", "--block-size=1"], hf_linear),
    "napkin-kinds": ("m", ["--context=64Ki", "--ubatch=64"], napkin_kinds),
    "napkin-chunked-moe": ("m", ["--context=1000", "--kv-dtype=iq4_nl"], napkin_chunked_moe),
    "napkin-learned": ("m", ["--context=4096", "--tp=2"], napkin_learned),
}
for name, (model, flags, *cfg) in engine_seeds.items():
    body = model + "\n" + "".join(f + "\n" for f in flags)
    if cfg:
        body += json.dumps(cfg[0]) + "\n"
    put("engines", name, body)

print(f"seeds written to {out}")
