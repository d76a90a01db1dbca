# Positions: the sinusoidal table the page draws, attention ignoring word order until positions are
# added, and the four encodings compared. The page's X and layer for your sentence, and the seeded parts
# of the four encodings, are in attnlab-positions.safetensors (the link under this code): save it beside
# this program.
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


pe = sinusoidal(positions, dims)  # the page's heatmap: positions × dims
print("PE shape:", tuple(pe.shape))
curves = [d for d in (0, 1, 4, 8) if d < dims]
print(f"PE at dimensions {', '.join(map(str, curves))}, one row per position (the curves):", pe[:, curves])

# Pair i (dimensions 2i and 2i+1) turns ω_i = 1/10000^(2i/d) radians per position: it repeats every 2π/ω_i.
wavelength = 2 * math.pi / 10000.0 ** (-torch.arange(0, dims, 2, dtype=torch.float64) / dims)
print("wavelength of each pair, in positions:", wavelength)
last = len(wavelength) - 1
print(f"# pair 0 repeats every {wavelength[0]:.1f} positions and goes round {positions / wavelength[0]:.2f} times over the "
      f"{positions} positions shown; pair {last} repeats every {wavelength[last]:,.0f} positions and turns "
      f"{positions / wavelength[last]:.2f} of a circle")

# ---- Part 2: reversing the words only reverses the weights, until positions are added ----
page = load_safetensors("attnlab-positions.safetensors")
x = page.pop("x")  # (seq, 16): each word's row, the same wherever the word stands
learned, rope_content = page.pop("learned"), page.pop("rope_content")  # for part 3
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

# ---- Part 3: four ways to add position, by the score between position 0 and position k ----
K = learned.shape[0]  # distances 0 … K−1
d = 16


def rope(v, n, base=10000.0):
    """v at positions 0 … n−1, each column pair (2i, 2i+1) rotated by p·base^(−2i/d): the interleaved
    pairs of Meta's original RoPE (Hugging Face's rotate_half pairs i with i + d/2 instead)."""
    theta = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)  # (d/2,)
    angle = torch.arange(n, dtype=torch.float64).unsqueeze(1) * theta  # (n, d/2)
    a, b = v[0::2].double(), v[1::2].double()
    out = torch.empty(n, d, dtype=torch.float64)
    out[:, 0::2], out[:, 1::2] = a * torch.cos(angle) - b * torch.sin(angle), a * torch.sin(angle) + b * torch.cos(angle)
    return out


slope = (2.0 ** (-8 / 8)) ** (4 + 1)  # ALiBi's slope for head h of 8 is (2^(−8/8))^(h+1); the page draws head 4's
table = sinusoidal(K, d).double()
turned = rope(rope_content.flatten(), K)
print("sinusoidal (added to X):", table @ table[0] * 2 / d)          # |PE_p|² = d/2: position 0 with itself scores 1
print("learned table (random init):", learned.double() @ learned[0].double() / d)  # N(0, 1) rows: |row|² ≈ d
print("RoPE (rotates q and k):", turned @ turned[0] / rope_content.double().pow(2).sum())  # depends on k only
print(f"ALiBi bias (slope 1/{round(1 / slope)}):", 0.0 - slope * torch.arange(K, dtype=torch.float64))  # added to the score
