# Attention on a batch, as the tutorials write it: two sentences (the shorter padded), the heads as a
# dimension of their own. The page's x, padding mask and layer are in attnlab-shapes.safetensors (the
# link under this code): save it beside this program.
import json
import math

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


# ---- Setup: the page's settings, batch and layer ----
num_heads = 2  # page setting: heads
causal = True  # page setting: causal

page = load_safetensors("attnlab-shapes.safetensors")
x = page.pop("x")  # (batch, seq, d_model)
pad = page.pop("key_padding_mask").bool()  # (batch, seq), True = padding (PyTorch's convention)
mha = nn.MultiheadAttention(x.shape[-1], num_heads, batch_first=True)
mha.load_state_dict(page)
mha.eval()

# ---- The lesson: every shape, step by step ----
batch, seq, d_model = x.shape
d_k = d_model // num_heads
with torch.no_grad():
    qkv = x @ mha.in_proj_weight.T + mha.in_proj_bias    # (batch, seq, 3·d_model): q | k | v per token
    qkv = qkv.reshape(batch, seq, 3, num_heads, d_k)     # reshape: the same numbers, read with new dimensions
    q, k, v = qkv.permute(2, 0, 3, 1, 4)                 # permute moves them: 3 × (batch, heads, seq, d_k)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)    # (batch, heads, seq, seq)
    if causal:  # (seq, seq) viewed as (1, 1, seq, seq): the same triangle for every sentence and head
        may_attend = torch.tril(torch.ones(seq, seq, dtype=torch.bool)).view(1, 1, seq, seq)
        scores = scores.masked_fill(~may_attend, float("-inf"))
    scores = scores.masked_fill(pad.view(batch, 1, 1, seq), float("-inf"))  # padded keys, for every head and query
    weights = scores.softmax(dim=-1)                     # (batch, heads, seq, seq)
    heads = weights @ v                                  # (batch, heads, seq, d_k)
    out = heads.transpose(1, 2).reshape(batch, seq, d_model)  # the heads side by side again
    output = mha.out_proj(out)                           # (batch, seq, d_model)

    # The same layer in one call (its bool attn_mask: True = blocked).
    blocked = torch.ones(seq, seq, dtype=torch.bool).triu(1) if causal else None
    one_call, one_call_weights = mha(x, x, x, key_padding_mask=pad, attn_mask=blocked, average_attn_weights=False)

print("qkv reshaped:", list(qkv.shape))
print("q:", list(q.shape))
print("scores:", list(scores.shape))
print("output:", list(output.shape))
print("weights:", weights)
print("weights in one call:", one_call_weights)
print("largest difference of the outputs:", (one_call - output).abs().max().item())
