#!/usr/bin/env python3
"""Re-derive every checkpoint total in this folder from the config dims; asserts exact byte matches."""
def gptoss(L, E, H=2880, I=2880, V=201088, nh=64, kv=8, hd=64):
    bf16_l = (H*nh*hd + nh*hd) + 2*(H*kv*hd + kv*hd) + (nh*hd*H + H) + nh + (E*H + E) + 2*H + (E*2*I + E*H)
    bf16 = L*bf16_l + 2*V*H + H
    fp4 = L*(E*H*2*I + E*I*H)
    return bf16*2 + fp4//2 + fp4//32, bf16 + fp4
b, p = gptoss(24, 32); assert b == 13761264768; print("gpt-oss-20b", p)
b, p = gptoss(36, 128); assert b == 65248815744; print("gpt-oss-120b", p)

def falcon(H, L, nh, nkv, V, hd=64):
    pl = H*(nh+2*nkv)*hd + H*H + 2*H*4*H + 4*H
    return L*pl + 2*V*H + 2*H, V*H
t, e = falcon(8192, 60, 128, 8, 65024); assert 2*t == 83671941120; print("falcon-40b stored", t, "unique", t-e)
t, e = falcon(14848, 80, 232, 8, 65024); assert 2*t == 359045130240; print("falcon-180B stored", t, "unique", t-e)

H, L, E, I, V = 1024, 24, 32, 512, 49155
t = L*(H*1024*2 + H*512*2 + E*2*I*H + E*I*H + E*H + 2*H) + V*H + H
assert 4*t == 5338513408; print("granite-3.1-1b-a400m", t)

H, L, I, V = 5376, 62, 21504, 262208
text = L*(H*4096 + 2*H*2048 + 4096*H + 256 + 3*H*I + 4*H) + V*H + H
vh, vl, vi = 1152, 27, 4304
vision = vh*3*14*14 + vh + 4096*vh + vl*(4*(vh*vh+vh) + 2*vh*vi + vi + vh + 4*vh) + 2*vh
proj = vh*H + vh
assert 2*(text+vision+proj) == 54864813280; print("medgemma-27b", text+vision+proj, "text", text)

H, L, V = 14336, 70, 250880
t = L*(3*H*H+3*H + H*H+H + 4*H*H+4*H + 4*H*H+H + 4*H) + V*H + 4*H
assert 2*t == 352494542848; print("bloom-176b", t)

H, L, V, I = 5120, 40, 131072, 32768
t = L*(H*4096 + 2*H*1024 + 4096*H + 3*H*I + 2*H) + 2*V*H + H
assert 2*t == 47144806400; print("devstral-small-2507", t)

H, L, V = 4096, 32, 50432
p = L*(3*H*H+3*H + H*H+H + 4*H*H+4*H + 4*H*H+H + 4*H) + 2*V*H + 2*H
buffers = L*(2048*2048//8 + 2 + 64*2)
assert 2*p + buffers == 13731385408; print("redpajama-incite-7b", p)
print("all totals reproduced exactly")
