# A mask on your sentence, with the page's random (untrained) layer. X and the layer's weights are in
# attnlab-masking.safetensors (the link under this code): save it beside this program.
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
mask_kind = "causal"  # page setting: mask
real_tokens = 6  # page setting: valid

page = load_safetensors("attnlab-masking.safetensors")
x = page.pop("x")  # (seq, 16)
attn = nn.MultiheadAttention(16, num_heads=1)
attn.load_state_dict(page)
attn.eval()

# ---- The lesson: the mask as the page draws it, 1 (True) = may attend ----
n = x.shape[0]
if mask_kind == "causal":  # token i may see tokens 0…i
    may_attend = torch.tril(torch.ones(n, n, dtype=torch.bool))
elif mask_kind == "padding":  # the keys after the first real_tokens are filler
    may_attend = (torch.arange(n) < real_tokens).expand(n, n)
else:
    may_attend = torch.ones(n, n, dtype=torch.bool)

with torch.no_grad():
    # nn.MultiheadAttention's bool attn_mask means the opposite, True = blocked, hence ~may_attend.
    # (A float mask such as torch.tril(torch.ones(n, n)) would be ADDED to the scores: no masking at all.)
    output, weights = attn(x, x, x, attn_mask=~may_attend)
# A row whose keys are all blocked: the softmax of nothing but −∞ is NaN in PyTorch; the page gives 0.
weights = weights.nan_to_num(0.0)

print("mask:", may_attend.int())
print("weights:", weights)
