# Attention one step at a time, on the page's numbers. The page's X and weights are in
# attnlab-step-by-step.safetensors (the link under this code): save it beside this program.
import json
import math

import torch

torch.set_printoptions(precision=6, sci_mode=False)

# ---- Setup: the page's settings, X (one row per token) and W_q, W_k, W_v (one head, no bias) ----
causal = False  # page setting: causal
your_qkv_edits = []  # page setting: qkvEdits


def load_safetensors(path):
    """The float32 tensors of a .safetensors file: 8 bytes of header length, a JSON header, the data."""
    with open(path, "rb") as f:
        header = json.loads(f.read(int.from_bytes(f.read(8), "little")))
        data = f.read()
    return {name: torch.frombuffer(bytearray(data[begin:end]), dtype=torch.float32).reshape(t["shape"])
            for name, t in header.items() if name != "__metadata__" for begin, end in [t["data_offsets"]]}


page = load_safetensors("attnlab-step-by-step.safetensors")
x, W_q, W_k, W_v = page["x"], page["W_q"], page["W_k"], page["W_v"]  # (seq, 8) and three (8, 8)

# ---- The lesson ----
# 1. Project: as nn.Linear does, y = x Wᵀ (a weight is stored [out × in]).
q, k, v = x @ W_q.T, x @ W_k.T, x @ W_v.T
for name, row, col, value in your_qkv_edits:  # the numbers you typed into Q, K or V on the page
    {"Q": q, "K": k, "V": v}[name][row, col] = value
# 2. Compare every query with every key.
scores = q @ k.T
# 3. Scale by 1/√d_k, so the scores' spread does not grow with d_k.
scaled = scores / math.sqrt(q.shape[-1])
# 4. Mask: a blocked score becomes −∞, so its weight will be 0 (causal: no token sees a later one).
n = x.shape[0]
may_attend = torch.tril(torch.ones(n, n, dtype=torch.bool)) if causal else torch.ones(n, n, dtype=torch.bool)
masked = scaled.masked_fill(~may_attend, float("-inf"))
# 5. Softmax: every row becomes weights that sum to 1.
weights = masked.softmax(dim=-1)
# 6. Mix the values with those weights.
output = weights @ v

print("Q:", q)
print("K:", k)
print("V:", v)
print("scores:", scores)
print("scaled scores:", scaled)
print("masked scores:", masked)
print("weights:", weights)
print("output:", output)
