#!/usr/bin/env python3
"""MiMo-7B-Base: the checkpoint's parameters from config.json (tensors.md). No checkpoint total was found."""
import json, os
c = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "config.json")))
D, L, H, KV, F, V = (c[k] for k in ("hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
                                     "intermediate_size", "vocab_size"))
d = D // H
layer = (H*d*D + H*d) + 2*(KV*d*D + KV*d) + D*H*d + 3*D*F + 2*D      # q/k/v with biases, o, gated MLP, 2 norms
model = V*D + L*layer + D + (0 if c["tie_word_embeddings"] else V*D)
mtp = c["num_nextn_predict_layers"] * (layer + D*2*D + 3*D)        # + input_proj, token/hidden/final norms
print(f"model {model:,}  mtp {mtp:,}  stored {model+mtp:,}  (truth: none found; the Hub page shows 7.83B)")
