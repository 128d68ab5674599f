#!/usr/bin/env python3
"""LlavaForConditionalGeneration / LlavaNextForConditionalGeneration tensor sum from config.json.
transformers models/llava/modeling_llava.py (LlavaMultiModalProjector: linear_1 [text H, vision H] + bias,
linear_2 [H, H] + bias), models/llava_next/modeling_llava_next.py (+ image_newline [H]),
models/clip/modeling_clip.py (CLIPVisionModel: embeddings{class_embedding, patch_embedding (no bias),
position_embedding}, pre_layrnorm, encoder.layers[*]{self_attn q/k/v/out (+bias), layer_norm1/2, mlp fc1/fc2}, post_layernorm).
The short Hub text_config relies on LlamaConfig / MistralConfig defaults (hidden 4096, 32 layers, 32 heads,
intermediate 11008 (llama) / 14336 (mistral), kv = heads (llama) / 8 (mistral))."""
import json, os
HERE = os.path.dirname(os.path.abspath(__file__))
TRUTH = {"llava-1.5-7b-hf": 7063427072, "llava-v1.6-mistral-7b-hf": 7566747648}[os.path.basename(HERE)]  # llava-next: composed from checked parts (SOURCE.md)
c = json.load(open(os.path.join(HERE, "config.json")))
t, v = c["text_config"], c["vision_config"]
mt = t.get("model_type", "llama")
D = {"llama": dict(hidden_size=4096, num_hidden_layers=32, num_attention_heads=32, intermediate_size=11008, vocab_size=32000),
     "mistral": dict(hidden_size=4096, num_hidden_layers=32, num_attention_heads=32, intermediate_size=14336, vocab_size=32000,
                     num_key_value_heads=8)}[mt]
g = lambda k: t.get(k, D.get(k))
H, L, nh, I, V = g("hidden_size"), g("num_hidden_layers"), g("num_attention_heads"), g("intermediate_size"), g("vocab_size")
kv = t.get("num_key_value_heads", D.get("num_key_value_heads", nh)); hd = t.get("head_dim") or H // nh
tied = c.get("tie_word_embeddings", False)
text = L*(H*nh*hd + 2*H*kv*hd + nh*hd*H + 3*H*I + 2*H) + V*H + H + (0 if tied else V*H)
vh, vl, vi, p, img = v["hidden_size"], v["num_hidden_layers"], v["intermediate_size"], v["patch_size"], v["image_size"]
npos = (img // p)**2 + 1
vision = vh + 3*p*p*vh + npos*vh + 2*vh + vl*(4*(vh*vh + vh) + (vh*vi + vi) + (vi*vh + vh) + 4*vh) + 2*vh
proj = (vh*H + H) + (H*H + H)
newline = H if c.get("model_type") == "llava_next" else 0
total = text + vision + proj + newline
print(f"text {text:,}  vision {vision:,}  projector {proj:,}  image_newline {newline}")
if TRUTH is None: print(f"computed {total}  truth: none found (config only)")
else: print(f"computed {total}  truth {TRUTH}  ->", "EXACT" if total == TRUTH else f"DIFF {total-TRUTH:+,}")
