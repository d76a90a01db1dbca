"""The copy task's model in PyTorch, for bench/training.mjs: the same architecture as attnlab's
CausalTransformer (token embedding + learned positions, one pre-norm nn.TransformerEncoderLayer with
GELU and no dropout under a causal mask, LayerNorm, Linear to the vocabulary; d_model 32, 2 heads,
d_ff 64), Adam lr 3e-3, batch 16, one thread. The batches are attnlab's own copy examples (passed in
as JSON on stdin), so both train on the same data. Prints JSON: { stepMs: [...] }.

Run by bench/training.mjs with Debian's /usr/bin/python3 (python3-torch).
"""

import json
import sys
import time

import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(3)


class CausalTransformer(nn.Module):
    def __init__(self, vocab, max_len, d_model=32, heads=2, d_ff=64):
        super().__init__()
        self.embedding = nn.Embedding(vocab, d_model)
        self.positions = nn.Embedding(max_len, d_model)
        self.layer = nn.TransformerEncoderLayer(d_model, heads, d_ff, dropout=0.0, activation="gelu",
                                                batch_first=True, norm_first=True)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab)
        self.register_buffer("mask", torch.triu(torch.ones(max_len, max_len, dtype=torch.bool), 1))

    def forward(self, tokens):
        n = tokens.shape[1]
        h = self.embedding(tokens) + self.positions(torch.arange(n))
        h = self.layer(h, src_mask=self.mask[:n, :n])
        return self.head(self.norm(h))


def main():
    data = json.load(sys.stdin)
    tokens = torch.tensor(data["tokens"])    # [steps·16, 12]
    targets = torch.tensor(data["targets"])  # [steps·16, 12], -100 = no loss
    model = CausalTransformer(data["vocab"], tokens.shape[1])
    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss(ignore_index=-100)
    step_ms = []
    for s in range(tokens.shape[0] // 16):
        x, y = tokens[s * 16:(s + 1) * 16], targets[s * 16:(s + 1) * 16]
        start = time.perf_counter()
        optimizer.zero_grad()
        logits = model(x)
        loss = loss_fn(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
        loss.backward()
        optimizer.step()
        step_ms.append((time.perf_counter() - start) * 1000)
    print(json.dumps({"stepMs": step_ms, "lastLoss": loss.item(),
                      "parameters": sum(p.numel() for p in model.parameters())}))


if __name__ == "__main__":
    main()
