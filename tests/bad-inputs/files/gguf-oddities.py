#!/usr/bin/env python3
"""Writes the gguf-*.gguf files of the bad-input corpus (issue 35, h35-small): a llama GGUF's
metadata (2 layers, D 64, 4 heads, 2 KV heads, F 128, 32 tokens) with one value made odd in
each, around one F16 tensor (token_embd.weight, 64 x 32): `napkin params` reads its tensors.
Usage: gguf-oddities.py [DIR] (default: this file's directory)."""
import os
import struct
import sys

U32, I32, F32, STRING, ARRAY = 4, 5, 6, 8, 9
F16 = 1


def s(text):
    b = text if isinstance(text, bytes) else text.encode()
    return struct.pack('<Q', len(b)) + b


def kv(key, typ, payload):
    return s(key) + struct.pack('<I', typ) + payload


def u32(v):
    return struct.pack('<I', v)


def i32(v):
    return struct.pack('<i', v)


def tokens(n):
    return struct.pack('<IQ', STRING, n) + b''.join(s('t%d' % i) for i in range(n))


def base():
    return {
        'general.architecture': (STRING, s('llama')),
        'llama.block_count': (U32, u32(2)),
        'llama.embedding_length': (U32, u32(64)),
        'llama.feed_forward_length': (U32, u32(128)),
        'llama.context_length': (U32, u32(8192)),
        'llama.attention.head_count': (U32, u32(4)),
        'llama.attention.head_count_kv': (U32, u32(2)),
        'tokenizer.ggml.tokens': (ARRAY, tokens(32)),
    }


def tensors():
    return [('token_embd.weight', (64, 32), F16, 4096)]


def build(meta):
    infos, offset = b'', 0
    ts = tensors()
    for name, dims, typ, size in ts:
        infos += s(name) + struct.pack('<I', len(dims)) + b''.join(struct.pack('<Q', d) for d in dims)
        infos += struct.pack('<IQ', typ, offset)
        offset += (size + 31) // 32 * 32
    kvs = b''.join(kv(k, t, p) for k, (t, p) in meta.items())
    out = b'GGUF' + struct.pack('<IQQ', 3, len(ts), len(meta)) + kvs + infos
    out += b'\0' * ((32 - len(out) % 32) % 32)
    return out + b'\0' * offset


def variant(**changes):
    m = base()
    for k, v in changes.items():
        key = k.replace('__', '.')
        if v is None:
            del m[key]
        else:
            m[key] = v
    return m


FILES = {
    'gguf-context-0.gguf': variant(llama__context_length=(U32, u32(0))),
    'gguf-string-block-count.gguf': variant(llama__block_count=(STRING, s('2'))),
    'gguf-float-heads.gguf': variant(llama__attention__head_count=(F32, struct.pack('<f', 4.0))),
    'gguf-negative-kv-heads.gguf': variant(llama__attention__head_count_kv=(I32, i32(-2))),
    'gguf-kv-heads-above-heads.gguf': variant(llama__attention__head_count_kv=(U32, u32(8))),
    'gguf-ffn-array-3.gguf': variant(llama__feed_forward_length=(ARRAY, struct.pack('<IQ', U32, 3) + u32(128) * 3)),
    'gguf-arch-without-keys.gguf': {('qwen2' + k[5:] if k.startswith('llama.') else k): v for k, v in base().items()},
    'gguf-arch-not-utf8.gguf': variant(general__architecture=(STRING, s(b'll\xffma'))),
    'gguf-scores-short.gguf': variant(tokenizer__ggml__scores=(ARRAY, struct.pack('<IQ', F32, 3) + b'\0' * 12)),
    'gguf-file-type-string.gguf': variant(general__file_type=(STRING, s('Q8_0'))),
    'gguf-bos-past-tokens.gguf': variant(tokenizer__ggml__bos_token_id=(U32, u32(32))),
    'gguf-alignment-4.gguf': variant(general__alignment=(U32, u32(4))),
}

if __name__ == '__main__':
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for name, meta in FILES.items():
        with open(os.path.join(out, name), 'wb') as f:
            f.write(build(meta))
