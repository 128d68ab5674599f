"""FLOPs per token the way each published training run counts them (used by scripts/validate-training).

A source's MFU (or TFLOP/s per GPU) is its tokens/s times its own FLOPs per token, over the peak it
divides by. To compare napkin's throughput with that figure, napkin's tokens/s is put through the
same count. Each `mfu_convention` code of data/training/runs.csv has one function below; the
formulas, and where each comes from, are in data/training/README.md ("How each source counts FLOPs").

An architecture is a dict (see `arch_from_config` and `arch_from_flags`):
  layers l, hidden h, heads a, kv_heads g, head_dim d (q = a*d), ffn f (dense MLP width), vocab V,
  gated (3-matrix MLP), tied, params (total, when known exactly), and for MoE: experts E, top_k k,
  moe_ffn, shared_ffn, dense_layers (leading dense layers); for MLA: q_lora, kv_lora, qk_nope,
  qk_rope, v_head; mtp (multi-token-prediction layers counted by the source).
"""
import json
import math
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Dense peak FLOP/s each source divides by (data/training/README.md, "Peak FLOP/s"): per napkin
# hardware preset, for bf16/fp16 and for fp8. GB200 is the DGX Cloud README's 2.45 PFLOP/s (napkin's
# preset has 2.5).
PEAKS = {
    "a100-sxm-80gb": (312e12, None),
    "a100-sxm-40gb": (312e12, None),
    "h100-sxm": (989e12, 1979e12),
    "h800-sxm": (989e12, 1979e12),
    "b200": (2250e12, 4500e12),
    "gb200": (2450e12, 4900e12),
    "tpu-v4": (275e12, None),
    "tpu-v3": (123e12, None),
}


def peak(hw, fp8):
    bf16, f8 = PEAKS[hw]
    return f8 if fp8 and f8 else bf16


# ---------------------------------------------------------------- architectures


def _first(c, *keys, default=None):
    for k in keys:
        if c.get(k) is not None:
            return c[k]
    return default


def arch_from_config(c, total_params=None):
    """An architecture from a Hugging Face-style config.json (the napkin presets hold one)."""
    h = _first(c, "hidden_size", "n_embd", "n_embed", "d_model")
    l = _first(c, "num_hidden_layers", "n_layer", "n_layers")
    a = _first(c, "num_attention_heads", "n_head", "n_heads")
    g = _first(c, "num_key_value_heads", default=a)
    d = _first(c, "head_dim", default=h // a)
    mt = c.get("model_type", "")
    gated = mt not in ("gpt2", "bloom", "mpt", "falcon", "gpt_neox")
    if mt == "mpt":
        f = c.get("expansion_ratio", 4) * h
    else:
        f = _first(c, "intermediate_size", "n_inner", default=4 * h)
    tied = bool(c.get("tie_word_embeddings", mt in ("gpt2", "bloom", "mpt")))
    arch = dict(layers=l, hidden=h, heads=a, kv_heads=g, head_dim=d, ffn=f, vocab=c["vocab_size"],
                gated=gated, tied=tied, params=total_params, experts=0, top_k=0, moe_ffn=0,
                shared_ffn=0, dense_layers=l, mtp=0, mla=None, act=c.get("hidden_act", "gelu"))
    experts = _first(c, "num_experts", "n_routed_experts", "num_local_experts", default=0)
    if experts:
        arch.update(experts=experts, top_k=_first(c, "num_experts_per_tok", "experts_per_token"),
                    moe_ffn=_first(c, "moe_intermediate_size", default=f),
                    shared_ffn=(c.get("n_shared_experts") or 0) * (c.get("moe_intermediate_size") or 0),
                    dense_layers=c.get("first_k_dense_replace", 0) + len(c.get("mlp_only_layers") or []))
    if c.get("kv_lora_rank"):
        arch["mla"] = dict(q_lora=c.get("q_lora_rank"), kv_lora=c["kv_lora_rank"], qk_nope=c["qk_nope_head_dim"],
                           qk_rope=c["qk_rope_head_dim"], v_head=c["v_head_dim"])
    return arch


def model_arch(spec):
    """The architecture of a runs.csv `napkin_model`: a preset name or a config.json path."""
    if spec.endswith(".json"):
        with open(os.path.join(ROOT, spec)) as f:
            return arch_from_config(json.load(f))
    with open(os.path.join(ROOT, "data", "presets", "models", spec + ".json")) as f:
        doc = json.load(f)
    return arch_from_config(doc["config"], (doc.get("total_params") or {}).get("value"))


def arch_from_flags(flags):
    """An architecture from napkin's made-up decoder flags (data/training/architectures.csv)."""
    words = flags.split()
    val = {}
    i = 0
    while i < len(words):
        w = words[i]
        if w in ("--tied", "--no-gated"):
            val[w] = True
            i += 1
        else:
            val[w] = int(words[i + 1])
            i += 2
    h, a = val["--hidden"], val["--heads"]
    l = val["--layers"]
    e = val.get("--moe-experts", 0)
    return dict(layers=l, hidden=h, heads=a, kv_heads=val.get("--kv-heads", a),
                head_dim=val.get("--head-dim", h // a), ffn=val.get("--ffn", 0), vocab=val["--vocab"],
                gated="--no-gated" not in val, tied="--tied" in val, params=None, experts=e,
                top_k=val.get("--moe-top-k", 0), moe_ffn=val.get("--moe-ffn", val.get("--ffn", 0)) if e else 0,
                shared_ffn=0, dense_layers=0 if e else l, mtp=0, mla=None, act="silu")


def apply_overrides(arch, text):
    """`key=value ...` from architectures.csv's counted_as column: what the source's FLOP count uses
    where it differs from the model napkin loads (a padded vocabulary, the MTP layer)."""
    out = dict(arch)
    for item in text.split():
        k, v = item.split("=")
        out[k] = v == "yes" if v in ("yes", "no") else int(v)
    return out


def param_count(arch):
    """All parameters (embeddings included): attention, MLP/experts, norms, embedding and head.
    Biases are left out (the decoders here have none, or they are below 0.1%)."""
    if arch.get("params"):
        return float(arch["params"])
    h, a, g, d, l = arch["hidden"], arch["heads"], arch["kv_heads"], arch["head_dim"], arch["layers"]
    attn = h * a * d * 2 + h * g * d * 2
    m = 3 if arch["gated"] else 2
    dense_mlp = m * h * arch["ffn"]
    moe_mlp = m * h * arch["moe_ffn"] * arch["experts"] + m * h * arch["shared_ffn"] + h * arch["experts"]
    n_moe = l - arch["dense_layers"]
    body = l * (attn + 2 * h) + arch["dense_layers"] * dense_mlp + n_moe * moe_mlp + h
    emb = arch["vocab"] * h * (1 if arch["tied"] else 2)
    return float(body + emb)


def embedding_params(arch):
    """The input embedding table (what torchtitan's exclude_embedding subtracts)."""
    return float(arch["vocab"] * arch["hidden"])


def padded_vocab(v, tp, divisible_by=128):
    """Megatron's --make-vocab-size-divisible-by 128, times the tensor-parallel size."""
    m = divisible_by * max(1, tp)
    return int(math.ceil(v / m) * m)


def _mlp_active(arch, per_matrix):
    """Per-token MLP width summed over the layers: dense layers' ffn, MoE layers' top_k experts and
    shared experts; each width is multiplied by per_matrix(gated) (the matrices counted)."""
    l, nd = arch["layers"], arch["dense_layers"]
    m = per_matrix(arch)
    total = nd * arch["ffn"] * m
    if arch["experts"]:
        total += (l - nd) * (arch["moe_ffn"] * arch["top_k"] + arch["shared_ffn"]) * m
    return total


# ---------------------------------------------------------------- conventions: FLOPs per token


def megatron_eq3(arch, s, tp=1):
    """Narayanan et al. 2021 Eq. 3 per token: 96*l*h^2*(1 + s/(6h) + V/(16*l*h)) (4 passes: the
    activation-recompute forward is counted; full attention; logits)."""
    l, h, v = arch["layers"], arch["hidden"], arch["vocab"]
    return 96 * l * h * h * (1 + s / (6 * h) + v / (16 * l * h))


def hfu_4x(arch, s, tp=1):
    """BLOOM's Megatron-DeepSpeed 'TFLOPs': the same count as Eq. 3 (the 4*2 coefficient)."""
    return megatron_eq3(arch, s, tp)


def korthikanti_mfu(arch, s, tp=1):
    """Korthikanti et al. 2022 model FLOPs per token: 72*l*h^2*(1 + s/(6h) + V/(12*l*h))."""
    l, h, v = arch["layers"], arch["hidden"], arch["vocab"]
    return 72 * l * h * h * (1 + s / (6 * h) + v / (12 * l * h))


def mcore_2024(arch, s, tp=1):
    """Megatron-LM num_floating_point_operations @f2e5db4 per token:
    12*l*h^2*((1 + g/a + s/h)*q/h + f/h*k*(3/2 if SwiGLU) + V_padded/(2*l*h))."""
    l, h, a, g = arch["layers"], arch["hidden"], arch["heads"], arch["kv_heads"]
    q = a * arch["head_dim"]
    k = arch["top_k"] if arch["experts"] else 1
    f = arch["moe_ffn"] if arch["experts"] else arch["ffn"]
    glu = 1.5 if arch["gated"] else 1.0
    v = padded_vocab(arch["vocab"], tp)
    return 12 * l * h * h * ((1 + g / a + s / h) * q / h + f / h * k * glu + v / (2 * l * h))


def _nemo(arch, s, attn_factor):
    """NeMo's per-token count (flops_formulas.py; the dgxc READMEs print it):
    12*l*h^2*(1 + g/a + attn_factor*s/h) + (18 gated / 12 plain)*h*sum(ffn) + 6*V*h, where
    sum(ffn) is the widths a token passes through (top-k experts for MoE)."""
    if arch["mla"]:
        return _nemo_deepseek(arch, s)
    l, h, a, g = arch["layers"], arch["hidden"], arch["heads"], arch["kv_heads"]
    attn = 12 * l * h * h * (1 + g / a + attn_factor * s / h)
    mlp = 6 * h * _mlp_active(arch, lambda x: 3 if x["gated"] else 2)
    return attn + mlp + 6 * arch["vocab"] * h


def _nemo_deepseek(arch, s):
    """NeMo flops_formulas.deepseekv3 (added 2025-04-22, e1335c8): causal halves on both attention
    matmuls, MLA projections as parameters, dense/MoE/shared MLPs, and the MTP layers (attention,
    projections, an MoE MLP, a second logit and the 2h*h combining projection each)."""
    m, l, h, a = arch["mla"], arch["layers"], arch["hidden"], arch["heads"]
    mtp = arch["mtp"]
    qk = m["qk_nope"] + m["qk_rope"]
    attn_core = 6 * (0.5 * qk * a * s + 0.5 * m["v_head"] * a * s)
    mla = h * m["q_lora"] + m["q_lora"] * qk * a + h * m["qk_rope"] + h * m["kv_lora"] \
        + m["kv_lora"] * (m["qk_nope"] + m["v_head"]) * a + m["v_head"] * a * h
    expert = 3 * h * (arch["moe_ffn"] * arch["top_k"] + arch["shared_ffn"])
    ffn = arch["dense_layers"] * 3 * h * arch["ffn"] + (l - arch["dense_layers"] + mtp) * expert
    vocab = 6 * arch["vocab"] * h * (1 + mtp) + 6 * 2 * h * h * mtp
    return attn_core * (l + mtp) + 6 * (mla * (l + mtp) + ffn) + vocab


def nemo_fullattn(arch, s, tp=1):
    """NeMo <= 25.07 / dgxc <= v25.05 for standard attention: the s/h term counted in full."""
    return _nemo(arch, s, 1.0)


def nemo_causal(arch, s, tp=1):
    """NeMo's count with the causal half on the s/h term (dgxc Grok-1 README's Notes) and NeMo's
    deepseekv3 formula."""
    return _nemo(arch, s, 0.5)


def bridge_causal(arch, s, tp=1):
    """Megatron-Bridge flop_utils.py transformer_flops per token: 12*l*h^2*(1 + g/a + s/(2h))*q/h
    (MHA/GQA) or the MLA terms, MLP 12*h*sum(ffn)*(3/2 only for SwiGLU with silu), logits
    6*h*V_padded (divisible by 128*TP), and the MTP layers when counted."""
    l, h, a, g = arch["layers"], arch["hidden"], arch["heads"], arch["kv_heads"]
    mtp = arch["mtp"]
    n = l + mtp
    if arch["mla"]:
        m = arch["mla"]
        qk = m["qk_nope"] + m["qk_rope"]
        q_term = m["q_lora"] * (h + a * qk + 1) if m["q_lora"] else h * a * qk
        attn = 6 * n * (q_term + m["kv_lora"] * (h + a * (m["qk_nope"] + m["v_head"]) + 1) + h * m["qk_rope"]
                        + a * m["v_head"] * h + s * a * qk / 2 + s * a * m["v_head"] / 2)
    else:
        q = a * arch["head_dim"]
        attn = 12 * n * h * h * (1 + g / a + s / h / 2) * q / h
    glu = 1.5 if arch["gated"] and arch.get("glu_counted", True) else 1.0
    mlp = 12 * h * _mlp_active(arch, lambda x: glu)
    if mtp:  # MTP layers repeat the last layer's MLP (MoE here) and add norms and the eh projection
        mlp += 12 * h * mtp * (arch["moe_ffn"] * arch["top_k"] + arch["shared_ffn"]) * glu
        attn += 6 * mtp * (3 * h + 2 * h * h)
    return mlp + attn + 6 * h * padded_vocab(arch["vocab"], tp) * (mtp + 1)


def _six_n_attention(n, arch, s):
    """6N + 12*L*H*Q*T (PaLM Appendix B; torchtitan's get_num_flop_per_token with Q = dim // heads)."""
    return 6 * n + 12 * arch["layers"] * arch["heads"] * (arch["hidden"] // arch["heads"]) * s


def torchtitan(arch, s, tp=1):
    """torchtitan since 2024-05-01 (0c6ca903f 'exclude embedding in MFU computation'):
    6*(N - input embedding) + 12*l*heads*head_dim*s."""
    return _six_n_attention(param_count(arch) - embedding_params(arch), arch, s)


def torchtitan_allparams(arch, s, tp=1):
    """torchtitan before 2024-05-01 (docs/performance.md's April-2024 A100 tables): 6*N (all
    parameters) + 12*l*heads*head_dim*s."""
    return _six_n_attention(param_count(arch), arch, s)


def mosaic(arch, s, tp=1):
    """LLM Foundry: (3*2*N*s + 3*l*2*2*d*s^2)/s = 6N + 12*l*d*s, N all parameters."""
    return 6 * param_count(arch) + 12 * arch["layers"] * arch["hidden"] * s


def palm(arch, s, tp=1):
    """PaLM Appendix B: 6N + 12*L*H*Q*T (full attention, no rematerialization)."""
    return 6 * param_count(arch) + 12 * arch["layers"] * arch["heads"] * arch["head_dim"] * s


def llama3(arch, s, tp=1):
    """Llama 3 Table 4's 'BF16 MFU' (TFLOPs/GPU / 989): the paper names its metric after PaLM's MFU
    but prints no formula; counted here as PaLM's 6N + 12*L*H*Q*T (an assumption, said in the
    table)."""
    return palm(arch, s, tp)


CONVENTIONS = {
    "megatron-eq3": megatron_eq3,
    "hfu-4x": hfu_4x,
    "korthikanti-mfu": korthikanti_mfu,
    "mcore-2024": mcore_2024,
    "nemo-fullattn": nemo_fullattn,
    "nemo-causal": nemo_causal,
    "bridge-causal": bridge_causal,
    "torchtitan": torchtitan,
    "torchtitan-allparams": torchtitan_allparams,
    "mosaic": mosaic,
    "palm": palm,
    "llama3": llama3,
}

# Conventions whose count is an assumption rather than the source's printed formula.
ASSUMED = {"llama3"}


def convention_code(text):
    """The code at the start of a runs.csv mfu_convention cell, or None when the source's count is
    not one of the codes (unspecified, none)."""
    head = text.split(":", 1)[0].strip().split(" ")[0]
    return head if head in CONVENTIONS else None
