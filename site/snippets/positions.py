# Positions: the sinusoidal table the page draws, and attention ignoring word order until
# positions are added. The page's X and layer for your sentence are in attnlab-positions.safetensors
# (the link under this code): save it beside this program.
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


# ---- The lesson, part 1: PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(p / 10000^(2i/d)) ----
positions = 50  # page setting: positions
dims = 128  # page setting: dims


def sinusoidal(n, d):
    """(n, d): computed in float64, then stored as float32 (as the page does)."""
    position = torch.arange(n, dtype=torch.float64).unsqueeze(1)  # (n, 1)
    omega = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)  # pair i turns ω_i radians per position
    pe = torch.zeros(n, d, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(position * omega)
    pe[:, 1::2] = torch.cos(position * omega)
    return pe.float()


pe = sinusoidal(positions, dims)
wavelength = 2 * math.pi / 10000.0 ** (-torch.arange(0, dims, 2, dtype=torch.float64) / dims)
print("PE:", pe)
print("wavelength of pair 0 and of the last pair:", [wavelength[0].item(), wavelength[-1].item()])

# ---- Part 2: reversing the words only reverses the weights, until positions are added ----
page = load_safetensors("attnlab-positions.safetensors")
x = page.pop("x")  # (seq, 16): each word's row, the same wherever the word stands
attn = nn.MultiheadAttention(16, num_heads=1)
attn.load_state_dict(page)
attn.eval()
with torch.no_grad():
    original = attn(x, x, x)[1]
    reversed_x = x.flip(0)  # the words in reverse order
    reversed_weights = attn(reversed_x, reversed_x, reversed_x)[1]
    with_positions = reversed_x + sinusoidal(x.shape[0], 16)
    positioned_weights = attn(with_positions, with_positions, with_positions)[1]

print("weights, original order:", original)
print("weights, reversed order:", reversed_weights)
print("largest difference from the reversed original:", (reversed_weights - original.flip(0).flip(1)).abs().max().item())
print("weights, reversed order with positions:", positioned_weights)
