#!/usr/bin/env python3
"""Kimi-VL-A3B-Instruct: the sum of the checkpoint's parameters from config.json (tensors.md).
No checkpoint total was found (SOURCE.md): this prints the computed count only."""
import json, os
HERE = os.path.dirname(os.path.abspath(__file__))
c = json.load(open(os.path.join(HERE, "config.json")))
t, v = c["text_config"], c["vision_config"]
H, L, V, I, Fe = t["hidden_size"], t["num_hidden_layers"], t["vocab_size"], t["intermediate_size"], t["moe_intermediate_size"]
nh, E, S, k0 = t["num_attention_heads"], t["n_routed_experts"], t["n_shared_experts"], t["first_k_dense_replace"]
rope, nope, vd, kvr = t["qk_rope_head_dim"], t["qk_nope_head_dim"], t["v_head_dim"], t["kv_lora_rank"]
assert t["q_lora_rank"] is None and t["moe_layer_freq"] == 1 and not t["tie_word_embeddings"]
attn = nh*(nope+rope)*H + (kvr+rope)*H + kvr + nh*(nope+vd)*kvr + H*nh*vd
moe = E*3*H*Fe + 3*H*Fe*S + E*H + E          # experts, shared experts, gate.weight, gate.e_score_correction_bias
text = 2*V*H + H + L*(attn + 2*H) + k0*3*H*I + (L-k0)*moe
vh, vi, VL, P = v["hidden_size"], v["intermediate_size"], v["num_hidden_layers"], v["patch_size"]
PH, PW = v["init_pos_emb_height"], v["init_pos_emb_width"]
mk = v["merge_kernel_size"][0]*v["merge_kernel_size"][1]
tower = vh*3*P*P + vh + PH*PW*vh + VL*(4*vh + 3*vh*vh + 3*vh + vh*vh + vh + vi*vh + vi + vh*vi + vh) + 2*vh
m = vh*mk
proj = 2*vh + m*m + m + H*m + H
print(f"text {text:,}  tower {tower:,}  projector {proj:,}  total {text+tower+proj:,}")
print("truth: none found (config and tensor names only); rotary_emb.inv_freq buffers stored in the checkpoint are not parameters")
