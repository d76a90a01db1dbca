# Watch it learn, in PyTorch: the page's toy task model from the page's own starting weights, trained on
# the page's first 10 batches with Adam. Weights, batches and the watched example are in
# attnlab-watch-it-learn.safetensors (the link under this code): save it beside this program.
import json

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


# ---- Setup: the page's task, learning rate, starting weights and batches ----
task = "sort"  # page setting: task
lr = 0.003  # page setting: lr

page = load_safetensors("attnlab-watch-it-learn.safetensors")
tokens, targets = page.pop("batch_tokens").long(), page.pop("batch_targets").long()  # 10 batches of 16, in order
watched = page.pop("watched_tokens").long()[0]  # the held-out example whose attention the page shows
for prefix in ("layers.0.self_attn", "attention"):  # nn.MultiheadAttention keeps W_q, W_k, W_v stacked
    if f"{prefix}.q_proj.weight" in page:
        for part in ("weight", "bias"):
            page[f"{prefix}.in_proj_{part}"] = torch.cat([page.pop(f"{prefix}.{p}_proj.{part}") for p in "qkv"])
vocab, d = page["embedding.weight"].shape


class TinyTransformer(nn.Module):
    """copy, reverse, sort: embedding + learned positions → one pre-norm encoder layer (GELU, no dropout),
    causal → LayerNorm → Linear: a next-token prediction at every position."""

    def __init__(self):
        super().__init__()
        self.embedding, self.positions = nn.Embedding(vocab, d), nn.Embedding(page["positions.weight"].shape[0], d)
        self.layers = nn.ModuleList([nn.TransformerEncoderLayer(d, 2, 64, dropout=0.0, activation="gelu", norm_first=True)])
        self.norm, self.head = nn.LayerNorm(d), nn.Linear(d, vocab)

    def forward(self, ids):
        n = len(ids)
        h = self.embedding(ids) + self.positions(torch.arange(n))
        blocked = torch.ones(n, n, dtype=torch.bool).triu(1)  # no position sees a later one
        patterns = []
        for layer in self.layers:  # written out (pre-norm) to keep the attention weights
            a = layer.norm1(h)
            attended, pattern = layer.self_attn(a, a, a, attn_mask=blocked, average_attn_weights=False)
            h = h + attended
            h = h + layer.linear2(F.gelu(layer.linear1(layer.norm2(h))))
            patterns.append(pattern)
        return self.head(self.norm(h)), patterns


class AttentionClassifier(nn.Module):
    """coreference, sentiment: x = LayerNorm(embedding + attention(embedding)); its mean over the words → Linear."""

    def __init__(self):
        super().__init__()
        self.embedding, self.attention = nn.Embedding(vocab, d), nn.MultiheadAttention(d, 2)
        self.norm, self.classifier = nn.LayerNorm(d), nn.Linear(d, page["classifier.weight"].shape[0])

    def forward(self, ids):
        e = self.embedding(ids)
        attended, pattern = self.attention(e, e, e, average_attn_weights=False)
        return self.classifier(self.norm(e + attended).mean(dim=0, keepdim=True)), [pattern]


model = TinyTransformer() if task in ("copy", "reverse", "sort") else AttentionClassifier()
model.load_state_dict(page)

# ---- The lesson: each step, the batch's mean loss (each example's mean cross-entropy over the positions it
# scores, targets of -100 score nothing), backward, one Adam step ----
optimizer = torch.optim.Adam(model.parameters(), lr=lr)
losses = []
for step in range(10):
    batch = range(16 * step, 16 * step + 16)
    optimizer.zero_grad()
    loss = sum(F.cross_entropy(model(tokens[i])[0], targets[i], ignore_index=-100) for i in batch) / 16
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
with torch.no_grad():
    patterns = model(watched)[1]

print("training loss of steps 1 to 10:", losses)
print("attention on the watched example after 10 steps (head, query, key):", patterns[0])
