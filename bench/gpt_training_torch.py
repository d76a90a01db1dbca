"""PyTorch 1.13 (Debian's python3-torch) training the same GPT as bench/gpt_training_native.cpp: vocab 4096,
context 128, d_model 192, 4 heads, 4 layers, tied output, batches of 16×128 random tokens, AdamW
(betas 0.9/0.95, weight decay 0.1 on matrices), clipping at 1.0. A plain nanoGPT-style model (PyTorch
1.13 has no fused attention). Usage: /usr/bin/python3 bench/gpt_training_torch.py <threads> <steps>
Prints JSON: {"stepMs": [...], "threads": n}."""
import json
import math
import sys
import time

import torch
import torch.nn.functional as F

V, C, D, H, L, B = 4096, 128, 192, 4, 4, 16


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1, self.ln_2 = torch.nn.LayerNorm(D), torch.nn.LayerNorm(D)
        self.c_attn, self.attn_proj = torch.nn.Linear(D, 3 * D), torch.nn.Linear(D, D)
        self.c_fc, self.mlp_proj = torch.nn.Linear(D, 4 * D), torch.nn.Linear(4 * D, D)
        self.register_buffer("mask", torch.tril(torch.ones(C, C)).view(1, 1, C, C))

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(D, dim=2)
        q, k, v = (z.view(b, t, H, D // H).transpose(1, 2) for z in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(D // H)
        scores = scores.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf"))
        y = (F.softmax(scores, dim=-1) @ v).transpose(1, 2).contiguous().view(b, t, D)
        x = x + self.attn_proj(y)
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class GPT(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.wte, self.wpe = torch.nn.Embedding(V, D), torch.nn.Embedding(C, D)
        self.blocks = torch.nn.ModuleList(Block() for _ in range(L))
        self.ln_f = torch.nn.LayerNorm(D)

    def forward(self, ids, targets):
        x = self.wte(ids) + self.wpe(torch.arange(ids.shape[1]))
        for block in self.blocks:
            x = block(x)
        logits = self.ln_f(x) @ self.wte.weight.T
        return F.cross_entropy(logits.view(-1, V), targets.view(-1), ignore_index=-1)


def main():
    threads, steps = int(sys.argv[1]), int(sys.argv[2])
    torch.set_num_threads(threads)
    torch.manual_seed(1)
    model = GPT()
    decay = [p for p in model.parameters() if p.dim() == 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                                  lr=1e-3, betas=(0.9, 0.95))
    step_ms = []
    for _ in range(steps):
        ids, targets = torch.randint(0, V, (B, C)), torch.randint(0, V, (B, C))
        start = time.perf_counter()
        optimizer.zero_grad()
        loss = model(ids, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        step_ms.append((time.perf_counter() - start) * 1000)
    print(json.dumps({"stepMs": step_ms, "threads": threads, "parameters": sum(p.numel() for p in model.parameters())}))


if __name__ == "__main__":
    main()
