# Watch it learn, the translation task, in PyTorch: the page's encoder–decoder (PyTorch's translation
# tutorial model around nn.Transformer) from the page's own starting weights, trained on the page's first
# 10 batches of 32 sentence pairs with AdamW and its learning-rate schedule. Weights, sentence pairs and
# the watched sentence are in attnlab-watch-it-learn.safetensors (the link under this code): save it
# beside this program.
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


# ---- Setup: the trainer's schedule, and the page's starting weights and pairs (for the page's seed) ----
max_lr, min_lr, warmup_steps, total_steps = 1e-3, 1e-4, 200, 3000  # linear warm-up, then a cosine to min_lr
PAD, MAX_LEN = 0, 16  # the padding id (never a word), the longest sentence plus the start and end tokens

page = load_safetensors("attnlab-watch-it-learn.safetensors")
# Each row one sentence pair, padded with PAD: the English ids, what the decoder reads (<s> first) and
# what each decoder position must predict (</s> last). 10 batches of 32, in order.
source, target, gold = (page.pop(k).long() for k in ("batch_source", "batch_target", "batch_targets"))
watched_source, watched_target = page.pop("watched_source").long(), page.pop("watched_target").long()
vocab_en, d = page["src_tok_emb.weight"].shape
vocab_fr = page["tgt_tok_emb.weight"].shape[0]


def sinusoidal(n, d):
    """pe[p, 2i] = sin(p / 10000^(2i/d)), pe[p, 2i+1] = cos(…): computed in float64, kept in float32."""
    angle = torch.arange(n, dtype=torch.float64)[:, None] / 10000 ** (torch.arange(0, d, 2, dtype=torch.float64) / d)
    return torch.stack([angle.sin(), angle.cos()], dim=-1).reshape(n, d).float()


class Translator(nn.Module):
    """Token embeddings · √d_model + sinusoidal positions → nn.Transformer (2 + 2 post-norm layers, 4 heads,
    ReLU feed-forward of 256, no dropout: the page's trainer has none) → Linear over the French words."""

    def __init__(self):
        super().__init__()
        self.src_tok_emb, self.tgt_tok_emb = nn.Embedding(vocab_en, d), nn.Embedding(vocab_fr, d)
        self.transformer = nn.Transformer(d, 4, 2, 2, 256, dropout=0.0, batch_first=True)
        self.generator = nn.Linear(d, vocab_fr)
        self.register_buffer("pe", sinusoidal(MAX_LEN, d), persistent=False)

    def embed(self, table, ids):
        return table(ids) * math.sqrt(d) + self.pe[: ids.shape[1]]

    def forward(self, src, tgt):
        causal = self.transformer.generate_square_subsequent_mask(tgt.shape[1])  # no position sees a later one
        out = self.transformer(self.embed(self.src_tok_emb, src), self.embed(self.tgt_tok_emb, tgt), tgt_mask=causal,
                               src_key_padding_mask=src == PAD, tgt_key_padding_mask=tgt == PAD,
                               memory_key_padding_mask=src == PAD)
        return self.generator(out)

    def cross_attention(self, src, tgt):
        """One pair (no padding) → every decoder layer's cross-attention, (layer, head, French query, English
        key): the decoder written out (post-norm) to keep the weights nn.Transformer does not return."""
        memory = self.transformer.encoder(self.embed(self.src_tok_emb, src))
        x, causal = self.embed(self.tgt_tok_emb, tgt), self.transformer.generate_square_subsequent_mask(tgt.shape[1])
        maps = []
        for layer in self.transformer.decoder.layers:
            x = layer.norm1(x + layer.self_attn(x, x, x, attn_mask=causal)[0])
            attended, weights = layer.multihead_attn(x, memory, memory, average_attn_weights=False)
            x = layer.norm2(x + attended)
            x = layer.norm3(x + layer.linear2(F.relu(layer.linear1(x))))
            maps.append(weights[0])
        return torch.stack(maps)


model = Translator()
model.load_state_dict(page)


def learning_rate(step):  # step from 0
    if step < warmup_steps:
        return max_lr * (step + 1) / warmup_steps
    progress = min(1.0, (step - warmup_steps) / max(1, total_steps - warmup_steps))
    return min_lr + 0.5 * (max_lr - min_lr) * (1 + math.cos(math.pi * progress))


# ---- The lesson: each step, the batch's loss (the mean cross-entropy over all its French tokens, padding
# ignored), backward, one AdamW step (weight decay on the matrices only) at the schedule's learning rate ----
matrices = [p for p in model.parameters() if p.dim() == 2]
others = [p for p in model.parameters() if p.dim() != 2]
optimizer = torch.optim.AdamW([{"params": matrices, "weight_decay": 0.01}, {"params": others, "weight_decay": 0.0}],
                              lr=max_lr, betas=(0.9, 0.98), eps=1e-9)
losses = []
for step in range(10):
    batch = slice(32 * step, 32 * step + 32)
    for group in optimizer.param_groups:
        group["lr"] = learning_rate(step)
    optimizer.zero_grad()
    logits = model(source[batch], target[batch])
    loss = F.cross_entropy(logits.reshape(-1, vocab_fr), gold[batch].reshape(-1), ignore_index=PAD)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
with torch.no_grad():
    maps = model.cross_attention(watched_source, watched_target)

print("training loss of steps 1 to 10:", losses)
print("cross-attention on the watched sentence after 10 steps (layer, head, French, English):", maps)
