# Multi-head attention on your sentence, with the page's random (untrained) layer. X and the layer's
# weights are in attnlab-multi-head.safetensors (the link under this code): save it beside this program.
import json

import torch
from torch import nn

torch.set_printoptions(precision=6, sci_mode=False, linewidth=120, threshold=100_000)


def load_safetensors(path):
    """The float32 tensors of a .safetensors file: 8 bytes of header length, a JSON header, the data."""
    with open(path, "rb") as f:
        header = json.loads(f.read(int.from_bytes(f.read(8), "little")))
        data = f.read()
    return {name: torch.frombuffer(bytearray(data[begin:end]), dtype=torch.float32).reshape(t["shape"])
            for name, t in header.items() if name != "__metadata__" for begin, end in [t["data_offsets"]]}


# ---- Setup: the page's settings, X (one row per token) and its layer's weights ----
d_model = 32  # page setting: dModel
num_heads = 4  # page setting: heads
causal = False  # page setting: causal

page = load_safetensors("attnlab-multi-head.safetensors")
x = page.pop("x")  # (seq, d_model)
mha = nn.MultiheadAttention(d_model, num_heads)  # num_heads must divide d_model: d_k = d_model / num_heads
mha.load_state_dict(page)
mha.eval()

# ---- The lesson: every head attends on its own d_k columns ----
n = x.shape[0]
# A bool attn_mask is True where a query may NOT look (a float mask would be added to the scores instead).
blocked = torch.ones(n, n, dtype=torch.bool).triu(1) if causal else None  # causal: no token sees a later one
with torch.no_grad():
    output, weights = mha(x, x, x, attn_mask=blocked, average_attn_weights=False)  # weights (heads, seq, seq)

print("weights per head:", weights)
print("average over heads:", weights.mean(dim=0))  # what PyTorch returns by default
