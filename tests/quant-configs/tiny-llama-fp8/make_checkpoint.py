#!/usr/bin/env python3
"""Writes model.safetensors beside this script: a synthetic block-FP8 checkpoint of the tiny Llama
in config.json, laid out as DeepSeek-V3's and Qwen3's FP8 checkpoints are (each linear weight as
F8_E4M3 with an F32 weight_scale_inv per 128x128 block; embeddings, head and norms BF16). The
data bytes are zeros: napkin reads headers only, but the reader checks that the data is there.
Rerun after editing config.json; tests/quantization_test.cpp states the bytes it expects."""
import json, math, os, struct

here = os.path.dirname(os.path.abspath(__file__))
cfg = json.load(open(os.path.join(here, "config.json")))
D, F, V = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
H, Hkv = cfg["num_attention_heads"], cfg["num_key_value_heads"]
dh = cfg.get("head_dim", D // H)
block = cfg["quantization_config"]["weight_block_size"]
size = {"BF16": 2, "F8_E4M3": 1, "F32": 4}
tensors = []  # (name, dtype, shape)

def linear(name, out_f, in_f):
    tensors.append((name + ".weight", "F8_E4M3", [out_f, in_f]))
    tensors.append((name + ".weight_scale_inv", "F32", [math.ceil(out_f / block[0]), math.ceil(in_f / block[1])]))

tensors.append(("model.embed_tokens.weight", "BF16", [V, D]))
for i in range(cfg["num_hidden_layers"]):
    p = f"model.layers.{i}."
    tensors.append((p + "input_layernorm.weight", "BF16", [D]))
    linear(p + "self_attn.q_proj", H * dh, D)
    linear(p + "self_attn.k_proj", Hkv * dh, D)
    linear(p + "self_attn.v_proj", Hkv * dh, D)
    linear(p + "self_attn.o_proj", D, H * dh)
    tensors.append((p + "post_attention_layernorm.weight", "BF16", [D]))
    linear(p + "mlp.gate_proj", F, D)
    linear(p + "mlp.up_proj", F, D)
    linear(p + "mlp.down_proj", D, F)
tensors.append(("model.norm.weight", "BF16", [D]))
tensors.append(("lm_head.weight", "BF16", [V, D]))

header, offset = {}, 0
for name, dtype, shape in tensors:
    n = size[dtype] * math.prod(shape)
    header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + n]}
    offset += n
text = json.dumps(header, separators=(",", ":")).encode()
text += b" " * (-len(text) % 8)
with open(os.path.join(here, "model.safetensors"), "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text + bytes(offset))
print(offset, "B of tensor data")
