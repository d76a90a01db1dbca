# Self-attention on your sentence, with the page's random (untrained) layer. X and the layer's weights
# are in attnlab-self-attention.safetensors (the link under this code): save it beside this program.
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


# ---- Setup: the page's X (one row per token) and its layer's weights ----
page = load_safetensors("attnlab-self-attention.safetensors")
x = page.pop("x")  # (seq, 16)
attn = nn.MultiheadAttention(16, num_heads=1)
attn.load_state_dict(page)  # in_proj_weight (48, 16): W_q, W_k, W_v stacked; out_proj: W_o
attn.eval()

# ---- The lesson: queries, keys and values all come from the same X ----
with torch.no_grad():
    output, weights = attn(x, x, x)  # one sentence, no batch dimension: weights (seq, seq)

print("weights:", weights)  # row i: how much token i attends to each token; every row sums to 1
