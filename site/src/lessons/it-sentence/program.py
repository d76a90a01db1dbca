# The trained "it" model, rebuilt in PyTorch from its own weights: what it predicts for the page's
# sentence and where each head looks from "it". The weights are attnlab-it-model.safetensors (the link
# under this code): save it beside this program.
import json

import torch
from torch import nn

torch.set_printoptions(precision=6, sci_mode=False, linewidth=120, threshold=100_000)

# ---- Setup: the page's sentence, as the model's token ids ----
words = ["the", "animal", "didn't", "cross", "the", "street", "because", "it", "was", "too", "tired"]  # page setting: words
token_ids = [0, 16, 1, 2, 0, 36, 3, 4, 5, 6, 52]  # page setting: tokenIds
it_position = 7  # page setting: itPosition

with open("attnlab-it-model.safetensors", "rb") as f:  # 8 bytes of header length, a JSON header, the data
    header = json.loads(f.read(int.from_bytes(f.read(8), "little")))
    data = f.read()
config = {key: int(value) for key, value in header.pop("__metadata__").items() if value.isdigit()}
weights = {name: torch.frombuffer(bytearray(data[begin:end]), dtype=torch.float32).reshape(t["shape"])
           for name, t in header.items() for begin, end in [t["data_offsets"]]}

# The model: token embedding + learned positions → 2 pre-norm encoder layers (GELU, no dropout, no mask:
# every word sees every word) → LayerNorm → a Linear to the vocabulary, read at the position of "it".
d, vocab = config["d_model"], config["vocab_size"]
embedding, positions = nn.Embedding(vocab, d), nn.Embedding(config["max_len"], d)
layers = nn.ModuleList(nn.TransformerEncoderLayer(d, config["num_heads"], config["d_ff"], dropout=0.0, activation="gelu",
                                                  norm_first=True) for _ in range(config["num_layers"]))
norm, head = nn.LayerNorm(d), nn.Linear(d, vocab)
for i, layer in enumerate(layers):  # nn.MultiheadAttention keeps W_q, W_k, W_v stacked in one in_proj
    for part in ("weight", "bias"):
        weights[f"layers.{i}.self_attn.in_proj_{part}"] = torch.cat(
            [weights.pop(f"layers.{i}.self_attn.{p}_proj.{part}") for p in "qkv"])
nn.ModuleDict({"embedding": embedding, "positions": positions, "layers": layers, "norm": norm, "head": head}).load_state_dict(weights)

# ---- The lesson: run it, keeping every head's weights ----
with torch.no_grad():
    h = embedding(torch.tensor(token_ids)) + positions(torch.arange(len(token_ids)))  # (n, d)
    from_it = []
    for layer in layers:  # each layer written out (pre-norm), to keep its attention weights
        a = layer.norm1(h)
        attended, pattern = layer.self_attn(a, a, a, average_attn_weights=False)  # pattern: (heads, n, n)
        h = h + attended
        h = h + layer.linear2(nn.functional.gelu(layer.linear1(layer.norm2(h))))
        from_it.append(pattern[:, it_position])  # each head's weights from "it": (heads, n)
    probabilities = head(norm(h[it_position])).softmax(dim=-1)

print("sentence:", " ".join(words))
predicted = probabilities.argmax().item()  # a token id: the word "it" stands for, if the model is right
print("prediction:", predicted, f"({words[token_ids.index(predicted)]})" if predicted in token_ids else "")
print("its probability:", probabilities[predicted].item())
for layer_index, heads in enumerate(from_it):
    print(f"layer {layer_index}, weights from it (one row per head):", heads)
