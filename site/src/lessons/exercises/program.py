# The exercises' answers, worked in PyTorch on the page's numbers. The page's X (two decimals, exactly
# as printed on the page) is in attnlab-exercises.safetensors (the link under this code): save it beside this program.
import json
import math

import torch

torch.set_printoptions(precision=6, sci_mode=False, linewidth=120, threshold=100_000)


def load_safetensors(path):
    """The float32 tensors of a .safetensors file: 8 bytes of header length, a JSON header, the data."""
    with open(path, "rb") as f:
        header = json.loads(f.read(int.from_bytes(f.read(8), "little")))
        data = f.read()
    return {name: torch.frombuffer(bytearray(data[begin:end]), dtype=torch.float32).reshape(t["shape"])
            for name, t in header.items() if name != "__metadata__" for begin, end in [t["data_offsets"]]}


def attention(q, k, v, may_attend=None):
    """softmax(QKᵀ/√d_k)V; may_attend: True where a query may look at a key."""
    scores = q @ k.T
    scaled = scores / math.sqrt(q.shape[-1])
    if may_attend is not None:
        scaled = scaled.masked_fill(~may_attend, float("-inf"))
    weights = scaled.softmax(dim=-1)
    return weights @ v, weights, scores


# ---- Setup: "the cat sat on the mat", one row of X per token; Q = K = V = X ----
x = load_safetensors("attnlab-exercises.safetensors")["x"]  # (6, 8)
n = x.shape[0]
output, weights, scores = attention(x, x, x)

print("X:", x)
# 1. Which key gets the most weight in row 2 (the query "sat")? ("the" is two keys with equal weight.)
print("weights of row 2:", weights[2])
print("most weight in row 2 goes to key:", weights[2].argmax().item())
# 2. The raw score q_1 · k_2, before scaling.
print("score[1][2]:", scores[1, 2].item())
# 3. The causal mask (torch.tril) makes every weight above the diagonal exactly 0.
causal_weights = attention(x, x, x, torch.tril(torch.ones(n, n, dtype=torch.bool)))[1]
print("weights with the causal mask:", causal_weights)
# 4. Q (4, 8), K and V (6, 8): one output row per query, as wide as V.
print("output shape:", list(attention(torch.randn(4, 8), torch.randn(6, 8), torch.randn(6, 8))[0].shape))
# 5. Every row of the weights adds up to 1.
print("row sums:", weights.sum(dim=-1))
