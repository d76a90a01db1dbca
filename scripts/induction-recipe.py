"""Search for a training recipe in which induction heads form (lesson 5, "Watch induction heads form").

Run from the repository root with Debian's python3 (python3-torch), one thread:

    /usr/bin/python3 scripts/induction-recipe.py > scripts/induction-recipe.log   # about 8 minutes
    /usr/bin/python3 scripts/induction-recipe.py --only lr=0.01,layers=1 --steps 900 # one variation, 3 seeds

The default run trains, for seeds 0, 1, 2: the recipe (2 layers of 1 head) for 1500 steps, the same
with 2 heads per layer (the first setting tried: slower, and with attnlab's initial weights 2 seeds in
10 grew a circuit with no single induction head), the recipe with 1 layer for 4500 steps, the recipe without the
positional embedding for 1500 steps, and the recipe with the two copies placed anywhere in the
sequence (not at its end) for 1500 steps.

Why the copies end the sequence: a fixed segment length lets one layer solve the task with a head at
a fixed offset; varying L (4 … 12) stops that. With the copies placed anywhere, an induction head
formed by step 1500 for 1 seed of 3 (with 2 heads per layer, none of 3; nor for seed 0 after 4000
steps at lr 1e-2); at the end, the position gives a little
away about L (the first position of the second copy is N − L), which one layer uses for an induction
score of about 0.2–0.35 at a loss that stays near ln 9. Each run logs the held-out loss and every head's scores
every 50 steps, then a RESULT line.

The model mirrors attnlab's CausalTransformer (cpp/src/training/models.cpp) with d_ff = 0: token
embedding N(0, 1) + learned positions N(0, 1) → pre-norm attention-only blocks x + attn(LN(x)), causal
(q, k, v, out projections each a Linear with PyTorch's default U(±1/√d) weights and biases) → final
LayerNorm → Linear to the vocabulary; torch.optim.Adam with its defaults but the learning rate.

Data (attnlab's Task 'repeat', cpp/src/training/tasks.cpp): the vocabulary is <pad> (id 0, never
drawn) and S symbols (the letters a … z, ids 1 … S), V = S + 1; each example has N tokens drawn uniformly
from the S symbols; a segment length L is drawn per example from [Lmin, Lmax]; tokens P … P+L−1 (P = N − 2L)
are the segment S and P+L … N−1 repeat it. Only the second copy's positions P+L+i (i = 0 … L−2), which
predict S[i+1], carry a target. Because L varies, a head at a fixed offset cannot solve the task: a
model without an induction head can at best spread its guess over the possible offsets.

Scores per head, on a fixed held-out batch (the same definitions as cpp/src/training/induction_scores.cpp):
  previous-token = mean attention from position t to t − 1 over the second copy's positions;
  induction      = mean attention from S'[i] (position P+L+i) to S[i+1] (position P+i+1), i = 0 … L−2.
The phase change is the first evaluation step at which some head's induction score exceeds 0.5.
"""

import argparse
import math
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)


def uniform_linear(d_in, d_out):
    """nn.Linear with attnlab's init: weight and bias U(±1/√d_in) (PyTorch's default, spelled out)."""
    lin = nn.Linear(d_in, d_out)
    bound = 1 / math.sqrt(d_in)
    nn.init.uniform_(lin.weight, -bound, bound)
    nn.init.uniform_(lin.bias, -bound, bound)
    return lin


class Block(nn.Module):
    """x + attn(LN(x)), causal, heads of d/H."""

    def __init__(self, d, heads):
        super().__init__()
        self.d, self.heads = d, heads
        self.norm = nn.LayerNorm(d)
        self.q, self.k, self.v, self.o = (uniform_linear(d, d) for _ in range(4))

    def forward(self, x):
        # x [B, n, d] → ([B, n, d], attention [B, H, n, n])
        b, n, d = x.shape
        h = self.norm(x)
        split = lambda t: t.view(b, n, self.heads, d // self.heads).transpose(1, 2)
        q, k, v = split(self.q(h)), split(self.k(h)), split(self.v(h))
        scores = q @ k.transpose(-1, -2) / math.sqrt(d // self.heads)
        causal = torch.ones(n, n, dtype=torch.bool).tril()
        att = scores.masked_fill(~causal, -math.inf).softmax(-1)
        return x + self.o((att @ v).transpose(1, 2).reshape(b, n, d)), att


class AttentionOnly(nn.Module):
    def __init__(self, vocab, n, d, heads, layers, positions=True):
        super().__init__()
        self.embedding = nn.Embedding(vocab, d)  # N(0, 1), as attnlab's Embedding
        self.positions = nn.Embedding(n, d) if positions else None
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.norm = nn.LayerNorm(d)
        self.head = uniform_linear(d, vocab)

    def forward(self, ids):
        # ids [B, n] → logits [B, n, vocab], attention per layer [B, H, n, n]
        x = self.embedding(ids)
        if self.positions is not None:
            x = x + self.positions(torch.arange(ids.shape[1]))
        atts = []
        for block in self.blocks:
            x, att = block(x)
            atts.append(att)
        return self.head(self.norm(x)), atts


def repeat_batch(gen, batch, vocab, n, lmin, lmax, anywhere=False):
    """ids [B, n], targets [B, n] (-100 where no loss), first-copy starts [B], segment lengths [B].
    The two copies end the sequence (P = n − 2L) or, `anywhere`, start at P drawn from 0 … n − 2L."""
    ids = torch.randint(1, vocab, (batch, n), generator=gen)  # id 0 is <pad>, never drawn
    targets = torch.full((batch, n), -100)
    lengths = torch.randint(lmin, lmax + 1, (batch,), generator=gen)
    starts = torch.zeros(batch, dtype=torch.long)
    for b in range(batch):
        seg = int(lengths[b])
        p = int(torch.randint(0, n - 2 * seg + 1, (), generator=gen)) if anywhere else n - 2 * seg
        starts[b] = p
        ids[b, p + seg:p + 2 * seg] = ids[b, p:p + seg]
        for i in range(seg - 1):
            targets[b, p + seg + i] = ids[b, p + i + 1]
    return ids, targets, starts, lengths


def head_scores(atts, starts, lengths):
    """Per head (layer-major): (previous-token score, induction score), averaged over the batch."""
    prev, ind = [], []
    for att in atts:
        for h in range(att.shape[1]):
            p_sum = i_sum = 0.0
            for b in range(att.shape[0]):
                seg, p = int(lengths[b]), int(starts[b])
                rows = torch.arange(p + seg, p + 2 * seg)
                p_sum += att[b, h, rows, rows - 1].mean().item()
                i_rows = torch.arange(p + seg, p + 2 * seg - 1)
                i_sum += att[b, h, i_rows, i_rows - seg + 1].mean().item()
            prev.append(p_sum / att.shape[0])
            ind.append(i_sum / att.shape[0])
    return prev, ind


def run(cfg, seed, steps, log, every=50):
    """Trains one configuration; returns (phase-change step or None, final held-out loss, best induction)."""
    torch.manual_seed(seed)
    model = AttentionOnly(cfg["V"], cfg["N"], cfg["d"], cfg["H"], cfg["layers"], cfg.get("positions", True))
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    gen = torch.Generator().manual_seed(1000 + seed)
    anywhere = bool(cfg.get("anywhere", 0))
    held = repeat_batch(torch.Generator().manual_seed(7), 128, cfg["V"], cfg["N"], cfg["Lmin"], cfg["Lmax"], anywhere)
    phase, t0 = None, time.time()
    for step in range(steps + 1):
        if step % every == 0:
            with torch.no_grad():
                logits, atts = model(held[0])
                loss = F.cross_entropy(logits.reshape(-1, cfg["V"]), held[1].reshape(-1)).item()
                prev, ind = head_scores(atts, held[2], held[3])
            if phase is None and max(ind) > 0.5:
                phase = step
            print(f"  step {step:5d} loss {loss:.3f} prev {' '.join(f'{s:.2f}' for s in prev)} "
                  f"ind {' '.join(f'{s:.2f}' for s in ind)} {time.time() - t0:.1f}s", file=log, flush=True)
        if step == steps:
            break
        ids, targets, _, _ = repeat_batch(gen, cfg["B"], cfg["V"], cfg["N"], cfg["Lmin"], cfg["Lmax"], anywhere)
        logits, _ = model(ids)
        train_loss = F.cross_entropy(logits.reshape(-1, cfg["V"]), targets.reshape(-1))
        opt.zero_grad()
        train_loss.backward()
        opt.step()
    return phase, loss, max(ind)


def describe(cfg):
    return " ".join(f"{k}={v}" for k, v in cfg.items())


# Vocabulary <pad> + 26 letters, sequences of 32 with segments of 4 … 12 (9 possible offsets: a model that hedges over
# them scores about ln 9 ≈ 2.2 on the repeated part), d_model 32 with 1 head per layer (a previous-token
# head in layer 0, an induction head in layer 1), batches of 16.
RECIPE = dict(V=27, N=32, Lmin=4, Lmax=12, d=32, H=1, layers=2, B=16, lr=5e-3)

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--seeds", type=int, default=3, help="seeds 0 … seeds − 1")
    parser.add_argument("--only", help="k=v,... overrides of the recipe, one run per seed (for exploring)")
    args = parser.parse_args()
    log = sys.stdout
    configs = []
    if args.only:
        cfg = dict(RECIPE)
        for kv in args.only.split(","):
            k, v = kv.split("=")
            cfg[k] = type(RECIPE.get(k, 1.0))(float(v)) if k != "positions" else v == "1"
        configs.append((cfg, args.steps))
    else:
        configs.append((RECIPE, args.steps))
        configs.append((dict(RECIPE, H=2), args.steps))
        configs.append((dict(RECIPE, layers=1), 3 * args.steps))
        configs.append((dict(RECIPE, positions=False), args.steps))
        configs.append((dict(RECIPE, anywhere=1), args.steps))
    for cfg, steps in configs:
        for seed in range(args.seeds):
            print(f"{describe(cfg)} seed={seed} steps={steps}", file=log, flush=True)
            phase, loss, ind = run(cfg, seed, steps, log)
            print(f"RESULT {describe(cfg)} seed={seed}: phase change at {phase}, final loss {loss:.3f}, "
                  f"best induction {ind:.2f}", file=log, flush=True)
