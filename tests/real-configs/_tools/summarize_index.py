#!/usr/bin/env python3
"""Print metadata and distinct tensor-name patterns (layer index -> N) with counts."""
import json, re, sys, collections
d = json.load(open(sys.argv[1]))
print("metadata:", json.dumps(d.get("metadata")))
keys = list(d["weight_map"].keys())
print("tensor entries:", len(keys))
pats = collections.Counter(re.sub(r'\.\d+\.', '.N.', k) for k in keys)
for k in sorted(pats): print(f"{pats[k]:6d}  {k}")
