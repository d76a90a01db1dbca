# Why the scores are divided by √d_k, on the page's random draws: one query against 5 keys, 200 times.
# The draws are in attnlab-scaling.safetensors (the link under this code): save it beside this program.
import json
import math

import torch

torch.set_printoptions(precision=6, sci_mode=False)

# ---- Setup: the page's settings and draws ----
scale_choice = "sqrt"  # page setting: scale
custom_divisor = 10  # page setting: custom


def load_safetensors(path):
    """The float32 tensors of a .safetensors file: 8 bytes of header length, a JSON header, the data."""
    with open(path, "rb") as f:
        header = json.loads(f.read(int.from_bytes(f.read(8), "little")))
        data = f.read()
    return {name: torch.frombuffer(bytearray(data[begin:end]), dtype=torch.float32).reshape(t["shape"])
            for name, t in header.items() if name != "__metadata__" for begin, end in [t["data_offsets"]]}


page = load_safetensors("attnlab-scaling.safetensors")
q, k = page["q"], page["k"]  # (200, 1, d_k) queries and (200, 5, d_k) keys, entries N(0, 1)
d_k = q.shape[-1]

# ---- The lesson ----
# q·k sums d_k products of variance 1, so its spread (standard deviation) grows like √d_k;
# multiplying by 1/√d_k brings it back to about 1 whatever d_k is.
scale = {"sqrt": 1 / math.sqrt(d_k), "none": 1.0, "custom": 1 / custom_divisor}[scale_choice]
scores = (q @ k.transpose(-2, -1)) * scale  # (200, 1, 5): what the softmax receives
weights = scores.softmax(dim=-1)
largest = weights.amax(dim=-1).flatten()  # each draw's biggest weight: near 1 means one key takes it all

print("weights (this draw):", weights[0])
print("largest weight (this draw):", largest[0].item())
print("spread of the scores:", scores.std().item())
print("largest weight, mean over draws:", largest.mean().item())
print("largest weight, standard deviation:", largest.std().item())
