# Watch induction heads form, in PyTorch: the page's attention-only model from the page's own starting
# weights, trained on the page's first `steps` batches with Adam, then every head's previous-token and
# induction scores on the page's held-out examples: the page's first evaluation after step 0 (its readout,
# its charts' first point after the untrained one) is at that step. Weights, batches and held-out examples are in
# attnlab-induction-heads.safetensors (the link under this code): save it beside this program.
import json
import math

import torch
import torch.nn.functional as F
from torch import nn

torch.set_printoptions(precision=6, sci_mode=False, linewidth=120, threshold=100_000)


def load_safetensors(path):
    """The float32 tensors of a .safetensors file: 8 bytes of header length, a JSON header, the data."""
    with open(path, "rb") as f:
        header = json.loads(f.read(int.from_bytes(f.read(8), "little")))
        data = f.read()
    return {name: torch.frombuffer(bytearray(data[begin:end]), dtype=torch.float32).reshape(t["shape"])
            for name, t in header.items() if name != "__metadata__" for begin, end in [t["data_offsets"]]}


# ---- Setup: the page's choices, starting weights, batches and held-out examples ----
layers = 2  # page setting: layers
positions = True  # page setting: positions
lr = 0.005  # page setting: lr
steps = 25  # page setting: steps

page = load_safetensors("attnlab-induction-heads.safetensors")
tokens, targets = page.pop("batch_tokens").long(), page.pop("batch_targets").long()  # `steps` batches of 16, in order
test_tokens, test_targets = page.pop("held_out_tokens").long(), page.pop("held_out_targets").long()
vocab, d = page["embedding.weight"].shape
H = 1  # page setting: heads
dh = d // H


class AttentionOnly(nn.Module):
    """Letters → embedding (+ learned positions) → `layers` blocks x + attention(LayerNorm(x)), causal, no
    MLP → LayerNorm → Linear: a next-letter prediction at every position."""

    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(vocab, d)
        if positions:
            self.positions = nn.Embedding(page["positions.weight"].shape[0], d)
        self.layers = nn.ModuleList(nn.ModuleDict({
            "self_attn": nn.ModuleDict({p: nn.Linear(d, d) for p in ("q_proj", "k_proj", "v_proj", "out_proj")}),
            "norm1": nn.LayerNorm(d)}) for _ in range(layers))
        self.norm, self.head = nn.LayerNorm(d), nn.Linear(d, vocab)

    def forward(self, ids):  # ids [n] → logits [n, vocab], attention [layers][H, n, n]
        n = len(ids)
        x = self.embedding(ids) + (self.positions(torch.arange(n)) if positions else 0)   # [n, d]
        patterns = []
        for layer in self.layers:
            a, attn = layer["norm1"](x), layer["self_attn"]
            q, k, v = (attn[p](a).view(n, H, dh).transpose(0, 1) for p in ("q_proj", "k_proj", "v_proj"))  # [H, n, dh]
            scores = (q @ k.transpose(1, 2) / math.sqrt(dh)).masked_fill(~torch.ones(n, n, dtype=torch.bool).tril(), float("-inf"))
            pattern = scores.softmax(dim=-1)                                                   # [H, n, n]
            x = x + attn["out_proj"]((pattern @ v).transpose(0, 1).reshape(n, d))
            patterns.append(pattern)
        return self.head(self.norm(x)), patterns


model = AttentionOnly()
model.load_state_dict(page)

# ---- Training: each step, the batch's mean loss (each example's mean cross-entropy over the second copy's
# letters; targets of -100 score nothing), backward, one Adam step ----
optimizer = torch.optim.Adam(model.parameters(), lr=lr)
losses = []
for step in range(steps):
    batch = range(16 * step, 16 * step + 16)
    optimizer.zero_grad()
    loss = sum(F.cross_entropy(model(tokens[i])[0], targets[i], ignore_index=-100) for i in batch) / 16
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
print(f"training loss of steps 1 to {steps}:", losses)

# ---- The scores on the held-out examples: a segment of length L starts at P = N − 2L (its first target is
# at N − L); previous-token = mean weight from t to t − 1 over the second copy; induction = mean weight from
# the second copy's s_i to the first copy's s_{i+1} ----
with torch.no_grad():
    previous, induction, held_out_loss = torch.zeros(layers, H), torch.zeros(layers, H), 0.0
    for ids, target in zip(test_tokens, test_targets):
        N = len(ids)
        L = N - int(torch.nonzero(target != -100)[0])
        P = N - 2 * L
        logits, patterns = model(ids)
        held_out_loss += F.cross_entropy(logits, target, ignore_index=-100).item() / len(test_tokens)
        second = torch.arange(N - L, N)
        i = torch.arange(1, L)
        for layer, A in enumerate(patterns):  # A [H, N, N]
            previous[layer] += A[:, second, second - 1].mean(-1) / len(test_tokens)
            induction[layer] += A[:, P + L + i - 1, P + i].mean(-1) / len(test_tokens)
print(f"held-out loss after {steps} steps:", held_out_loss)
print("previous-token score of each head (layer, head):", previous)
print("induction score of each head (layer, head):", induction)
