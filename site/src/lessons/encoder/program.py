# One encoder layer, as the page runs it: attention, add & norm, feed-forward (GELU), add & norm.
# The page's X (your sentence with sinusoidal positions) and the layer's weights are in
# attnlab-encoder.safetensors (the link under this code): save it beside this program.
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


class RMSNorm(nn.Module):
    """x / √(mean(x²) + eps) · weight: LayerNorm without the mean and the bias (nn.RMSNorm from PyTorch 2.4)."""

    def __init__(self, d, eps=1e-5):
        super().__init__()
        self.weight, self.eps = nn.Parameter(torch.ones(d)), eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


# ---- Setup: the page's settings, X and weights ----
norm = "layernorm"  # page setting: norm
norm_first = False  # page setting: normFirst

page = load_safetensors("attnlab-encoder.safetensors")
x = page.pop("x")  # (seq, 64)
# The page's layer: GELU and no dropout (PyTorch's defaults are ReLU and dropout 0.1).
layer = nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=256, dropout=0.0, activation="gelu",
                                   norm_first=norm_first, batch_first=True)
if norm == "rmsnorm":
    layer.norm1, layer.norm2 = RMSNorm(64), RMSNorm(64)
layer.load_state_dict(page)
layer.eval()

# ---- The lesson: post-norm: h = Norm(x + MHA(x)), y = Norm(h + FFN(h)); pre-norm: h = x + MHA(Norm(x)), y = h + FFN(Norm(h)) ----
with torch.no_grad():
    y = layer(x)  # one sentence, no batch dimension: (seq, 64)


def count(*modules):
    return sum(p.numel() for m in modules for p in m.parameters())


print("output:", y)
print("parameters (attention, feed-forward, norms, total):",
      [count(layer.self_attn), count(layer.linear1, layer.linear2), count(layer.norm1, layer.norm2), count(layer)])
