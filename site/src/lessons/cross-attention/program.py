# Cross-attention in the trained English → French translator, rebuilt in PyTorch from its own files:
# your sentence translated, and where each French word looks in the English. The weights and the
# vocabularies are attnlab-translator.safetensors and attnlab-translator-vocab.json (the links under
# this code): save them beside this program.
import json
import math
import re

import torch
from torch import nn

torch.set_printoptions(precision=6, sci_mode=False, linewidth=120, threshold=100_000)

# ---- Setup: the page's sentence and decoding, the model and its vocabularies ----
sentence = "the small cat sees the red car"  # page setting: sentence
beam_width = 1  # page setting: beam

vocab = json.load(open("attnlab-translator-vocab.json"))
c = vocab["config"]  # post-norm nn.Transformer, ReLU, as PyTorch's translation tutorial builds it
with open("attnlab-translator.safetensors", "rb") as f:  # 8 bytes of header length, a JSON header, the data
    header = json.loads(f.read(int.from_bytes(f.read(8), "little")))
    data = f.read()
weights = {name: torch.frombuffer(bytearray(data[begin:end]), dtype=torch.float32).reshape(t["shape"])
           for name, t in header.items() if name != "__metadata__" for begin, end in [t["data_offsets"]]}

d = c["d_model"]
src_tok_emb, tgt_tok_emb = nn.Embedding(len(vocab["source"]), d), nn.Embedding(len(vocab["target"]), d)
transformer = nn.Transformer(d, c["num_heads"], c["num_encoder_layers"], c["num_decoder_layers"], c["dim_feedforward"],
                             dropout=0.0, activation=c["activation"], norm_first=c["norm_first"], batch_first=True)
generator = nn.Linear(d, len(vocab["target"]))
model = nn.ModuleDict({"src_tok_emb": src_tok_emb, "tgt_tok_emb": tgt_tok_emb, "transformer": transformer, "generator": generator})
model.load_state_dict(weights)
model.eval()

# Token embeddings × √d_model plus sinusoidal positions (computed in float64, stored float32).
position = torch.arange(c["max_len"], dtype=torch.float64).unsqueeze(1)
omega = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
pe = torch.zeros(c["max_len"], d, dtype=torch.float64)
pe[:, 0::2], pe[:, 1::2] = torch.sin(position * omega), torch.cos(position * omega)
pe = pe.float()


def embed(table, ids):
    return table(torch.tensor(ids)) * math.sqrt(d) + pe[: len(ids)]


# The English words as the page reads them: lower case, letters, digits and apostrophes; an unknown word is <unk>.
words = re.findall(r"(?:[^\W_]|')+", sentence.lower())[: c["max_len"]]
source_ids = [vocab["source"].index(w) if w in vocab["source"] else vocab["unk_id"] for w in words]


# ---- The lesson: the decoder's cross-attention, queries from the French, keys and values from the English ----
def decoder(tokens, memory):
    """French so far → log-probabilities of the next word, and each layer's cross-attention (heads, len(tokens), English words)."""
    y = embed(tgt_tok_emb, tokens)
    blocked = torch.ones(len(tokens), len(tokens), dtype=torch.bool).triu(1)  # no French word sees a later one
    cross = []
    for layer in transformer.decoder.layers:  # each post-norm layer written out, to keep its cross-attention
        y = layer.norm1(y + layer.self_attn(y, y, y, attn_mask=blocked)[0])
        attended, pattern = layer.multihead_attn(y, memory, memory, average_attn_weights=False)
        y = layer.norm2(y + attended)
        y = layer.norm3(y + layer.linear2(torch.relu(layer.linear1(y))))
        cross.append(pattern)
    return generator(transformer.decoder.norm(y[-1])).log_softmax(dim=-1), cross


with torch.no_grad():
    memory = transformer.encoder(embed(src_tok_emb, source_ids))  # the English, encoded: (words, d)
    # Beam search (1 = greedy): keep the beam_width best French beginnings by log-probability; stop when the
    # best finished translation beats every unfinished one.
    alive, finished = [([vocab["bos_id"]], 0.0)], []
    for _ in range(c["max_len"] - 1):
        candidates = []
        for parent, (tokens, score) in enumerate(alive):
            log_probs = decoder(tokens, memory)[0]
            candidates += [(score + log_probs[t].item(), parent, t) for t in range(len(log_probs))]
        candidates.sort(key=lambda candidate: -candidate[0])
        alive_next = []
        for score, parent, t in candidates[:beam_width]:
            tokens = alive[parent][0]
            (finished if t == vocab["eos_id"] else alive_next).append((tokens if t == vocab["eos_id"] else tokens + [t], score))
        alive = alive_next
        if finished and max(s for _, s in finished) >= max((s for _, s in alive), default=-math.inf):
            break
    tokens, log_probability = max(finished or alive, key=lambda hypothesis: hypothesis[1])
    cross = decoder(tokens, memory)[1]  # the chosen translation's cross-attention, row by row as it was written

print("English:", " ".join(words))
print("French:", " ".join(vocab["target"][t] for t in tokens[1:]))
print("log-probability:", log_probability)
for layer_index, heads in enumerate(cross):
    print(f"cross-attention, layer {layer_index} (head, French word, English word):", heads)
