# The model the page runs, in plain PyTorch: attnlab-kjv (or any GPT-2-format model) read from its three
# files, model.safetensors, vocab.json and merges.txt (the links under this code), saved beside this program.
# It reads as nanoGPT's model.py does: forward from top to bottom, shapes in the comments (t tokens,
# d = d_model, H heads of d_head = d / H numbers each, V tokens in the vocabulary).
import json
import math
import unicodedata

import torch
import torch.nn.functional as F

torch.set_printoptions(precision=6, sci_mode=False, threshold=1_000_000, linewidth=120)
DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


def load_safetensors(path):
    """A .safetensors file: 8 bytes (little-endian) giving the header's length, a JSON header of
    name → dtype, shape and byte range, then the raw data. → (tensors as float32, the header's metadata)."""
    with open(path, "rb") as f:
        header = json.loads(f.read(int.from_bytes(f.read(8), "little")))
        data = f.read()
    tensors = {}
    for name, t in header.items():
        if name != "__metadata__" and t["dtype"] in DTYPES:  # (an old file's bool attn.bias masks are skipped)
            begin, end = t["data_offsets"]
            raw = torch.frombuffer(bytearray(data[begin:end]), dtype=DTYPES[t["dtype"]])
            # (attnlab-kjv is stored in float16: computed in float32, as the page does)
            tensors[name.removeprefix("transformer.")] = raw.reshape(t["shape"]).float()
    return tensors, header.get("__metadata__", {})


class GPT2:
    """GPT-2's architecture with the weights of a .safetensors file in Hugging Face GPT-2's names.
    GPT-2 stores its linear layers as Conv1D, weight [in × out]: y = x @ W + b (nn.Linear would be x @ W.T)."""

    def __init__(self, path="model.safetensors", n_head=None):
        self.w, metadata = load_safetensors(path)  # names as GPT2Model's ("transformer.h.0…" read as "h.0…")
        self.n_head = n_head or int(metadata["n_head"])  # not in the shapes: attnlab writes it in the file; GPT-2 small: 12
        self.n_layer = 1 + max(int(name.split(".")[1]) for name in self.w if name.startswith("h."))
        self.vocab_size, self.d_model = self.w["wte.weight"].shape
        self.context_length = self.w["wpe.weight"].shape[0]

    def layer_norm(self, x, name):  # x [t, d], normalised per row, eps 1e-5 as GPT-2
        return F.layer_norm(x, (self.d_model,), self.w[name + ".weight"], self.w[name + ".bias"], eps=1e-5)

    def linear(self, x, name):  # Conv1D: x [t, in] @ W [in × out] + b [out]
        return x @ self.w[name + ".weight"] + self.w[name + ".bias"]

    def attention(self, x, layer, past=None, knock_out=(), knock_out_with="zero"):
        """x [t, d] (after ln_1) → out [t, d], weights [H, t, t_all], cache (K, V) each [H, t_all, d_head].
        past: this layer's (K, V) of the earlier tokens (the KV cache); knock_out: heads whose output is
        replaced by 0 or by its mean over the positions, before c_proj."""
        t, d, H = x.shape[0], self.d_model, self.n_head
        q, k, v = self.linear(x, f"h.{layer}.attn.c_attn").split(d, dim=-1)   # [t, d] each
        q, k, v = (m.view(t, H, d // H).transpose(0, 1) for m in (q, k, v))  # [H, t, d_head] each
        if past is not None:  # the cached keys and values of the earlier tokens come first
            k, v = torch.cat([past[0], k], dim=1), torch.cat([past[1], v], dim=1)  # [H, t_all, d_head]
        t_all = k.shape[1]
        scores = q @ k.transpose(1, 2) / math.sqrt(d // H)                      # [H, t, t_all]
        may_attend = torch.ones(t, t_all, dtype=torch.bool).tril(diagonal=t_all - t)  # causal: no later key
        weights = scores.masked_fill(~may_attend, float("-inf")).softmax(dim=-1)  # [H, t, t_all]
        heads = weights @ v                                                      # [H, t, d_head]
        for h in knock_out:
            heads[h] = 0 if knock_out_with == "zero" else heads[h].mean(dim=0, keepdim=True)
        out = self.linear(heads.transpose(0, 1).reshape(t, d), f"h.{layer}.attn.c_proj")  # [t, d]
        return out, weights, (k, v)

    def forward(self, ids, past=None, knock_out=(), knock_out_with="zero"):
        """ids: t token ids (following the `past` tokens, if given) → logits [t, V], attention (one
        [H, t, t_all] per layer), cache (one (K, V) per layer). knock_out: (layer, head) pairs."""
        start = 0 if past is None else past[0][0].shape[1]
        x = self.w["wte.weight"][ids] + self.w["wpe.weight"][start:start + len(ids)]  # [t, d]
        attention, cache = [], []
        for layer in range(self.n_layer):
            heads_out = [h for (l, h) in knock_out if l == layer]
            a, weights, kv = self.attention(self.layer_norm(x, f"h.{layer}.ln_1"), layer,
                                            None if past is None else past[layer], heads_out, knock_out_with)
            x = x + a                                                             # [t, d]
            m = F.gelu(self.linear(self.layer_norm(x, f"h.{layer}.ln_2"), f"h.{layer}.mlp.c_fc"), approximate="tanh")
            x = x + self.linear(m, f"h.{layer}.mlp.c_proj")                       # [t, 4d] inside, [t, d] out
            attention.append(weights)
            cache.append(kv)
        logits = self.layer_norm(x, "ln_f") @ self.w["wte.weight"].T              # [t, V]: lm_head is wte (tied)
        return logits, attention, cache


# ---- The tokenizer: GPT-2's byte-level BPE, from vocab.json and merges.txt ----
WHITE_SPACE = "\t\n\x0b\x0c\r \x85"  # and every character of category Zs, Zl, Zp (Unicode's White_Space)


def char_class(c):
    kind = unicodedata.category(c)
    if kind[0] == "L":
        return "letter"
    if kind[0] == "N":
        return "number"
    return "space" if c in WHITE_SPACE or kind in ("Zs", "Zl", "Zp") else "other"


def pieces(text):
    """GPT-2's rule, 's|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+,
    written out (Python's re has no \\p{L}): the text as words with their leading space, numbers, runs of
    punctuation and runs of spaces."""
    out, i = [], 0
    while i < len(text):
        contraction = next((c for c in ("'s", "'t", "'re", "'ve", "'m", "'ll", "'d") if text.startswith(c, i)), None)
        j = i + (1 if text[i] == " " and i + 1 < len(text) and char_class(text[i + 1]) != "space" else 0)
        kind = char_class(text[j])
        end = j
        while end < len(text) and char_class(text[end]) == kind:
            end += 1
        if contraction:
            end = i + len(contraction)
        elif kind == "space" and end < len(text) and end - i > 1:
            end -= 1  # \s+(?!\S): a run of spaces before a word leaves its last space to the word
        out.append(text[i:end])
        i = end
    return out


class Tokenizer:
    def __init__(self, vocab="vocab.json", merges="merges.txt"):
        with open(vocab, encoding="utf-8") as f:
            self.ids = json.load(f)                     # GPT-2's spelling of a token → its id
        with open(merges, encoding="utf-8") as f:
            lines = [line.split() for line in f.read().split("\n") if line.strip() and not line.startswith("#version")]
        self.rank = {tuple(pair): r for r, pair in enumerate(lines)}  # (left, right) → when it was learned
        self.spelled = {i: s for s, i in self.ids.items()}
        # GPT-2 spells each byte as a printable character: '!'…'~', '¡'…'¬', '®'…'ÿ' as themselves, the
        # other 68 bytes (space, controls…) as U+0100, U+0101, … in order; so " cat" is spelled "Ġcat".
        printable = [b for b in range(256) if 33 <= b <= 126 or 161 <= b <= 172 or b >= 174]
        others = [b for b in range(256) if b not in printable]
        self.byte_char = {b: chr(b) for b in printable} | {b: chr(256 + n) for n, b in enumerate(others)}
        self.char_byte = {c: b for b, c in self.byte_char.items()}

    def merge_steps(self, piece):
        """A piece's bytes, then after each merge the tokens: the lowest-ranked adjacent pair that is a
        merge joins everywhere it occurs, until none is. → [(rank or None, tokens)] from the bytes on."""
        word = [self.byte_char[b] for b in piece.encode("utf-8")]
        steps = [(None, list(word))]
        while len(word) > 1:
            pair = min(zip(word, word[1:]), key=lambda p: self.rank.get(p, math.inf))
            if pair not in self.rank:
                break
            merged, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
                    merged.append(word[i] + word[i + 1])
                    i += 2
                else:
                    merged.append(word[i])
                    i += 1
            word = merged
            steps.append((self.rank[pair], list(word)))
        return steps

    def encode(self, text):
        return [self.ids[token] for piece in pieces(text) for token in self.merge_steps(piece)[-1][1]]

    def decode(self, ids):
        return bytes(self.char_byte[c] for i in ids for c in self.spelled[i]).decode("utf-8", errors="replace")

    def label(self, i):
        """Token i as the pages write it: · for a space, ↵ for a line break, and a token that is only part
        of a character as its bytes in hex, ⟨c3⟩."""
        raw = bytes(self.char_byte[c] for c in self.spelled[i])
        try:
            return raw.decode("utf-8").replace(" ", "·").replace("\n", "↵")
        except UnicodeDecodeError:
            return "⟨" + " ".join(f"{b:02x}" for b in raw) + "⟩"


# ---- The next-token distribution the page draws from (Hugging Face's generate reshapes in this order) ----
def distribution(logits, context=(), temperature=1.0, top_k=0, top_p=1.0, repetition_penalty=1.0):
    """logits [V] → probabilities [V]. context: the token ids so far, for the repetition penalty."""
    z = logits.clone()
    if repetition_penalty != 1 and len(context):  # a token already seen: logit / penalty (× penalty if negative)
        seen = torch.tensor(sorted(set(context)))
        z[seen] = torch.where(z[seen] < 0, z[seen] * repetition_penalty, z[seen] / repetition_penalty)
    if temperature == 0:  # greedy: all the probability on the top token
        return F.one_hot(z.argmax(), len(z)).float()
    p = torch.exp((z.double() - z.max()) / temperature)            # softmax(z / T) before normalising, in float64
    p_sorted, order = torch.sort(p, descending=True, stable=True)  # ties: the smaller id first
    keep = min(int((p > 0).sum()), top_k or len(p))                 # top-k (0 = off)
    if top_p < 1:  # top-p: the fewest tokens whose probabilities reach p (1e-6: p arrives as float32)
        reached = torch.nonzero(torch.cumsum(p_sorted[:keep] / p.sum(), 0) >= top_p - 1e-6)
        keep = int(reached[0]) + 1 if len(reached) else keep
    probs = torch.zeros_like(p)
    probs[order[:keep]] = p_sorted[:keep] / p_sorted[:keep].sum()   # what is left, renormalised
    return probs.float()


# ---- attnlab's seeded random numbers (PCG32), so the page's seed gives the page's draws here too ----
def pcg32(seed, stream=54):
    """The page's generator: PCG32 (O'Neill 2014) seeded as pcg32_srandom_r(seed, stream); yields 32-bit numbers."""
    state, inc, mask = 0, (stream << 1) | 1, (1 << 64) - 1

    def step():
        nonlocal state
        old, state = state, (state * 6364136223846793005 + inc) & mask
        xorshifted, rotation = (((old >> 18) ^ old) >> 27) & 0xFFFFFFFF, old >> 59
        return ((xorshifted >> rotation) | (xorshifted << ((32 - rotation) & 31))) & 0xFFFFFFFF

    step()
    state = (state + seed) & mask
    step()
    while True:
        yield step()


def repeated_random_tokens(T, low, high, seed):
    """T random ids in [low, high), then the same T again: the page's sequence for this seed."""
    numbers = pcg32(seed)
    ids = [low + next(numbers) % (high - low) for _ in range(T)]
    return ids + ids


def draw(probs, seed):
    """One token from probs [V] as the page draws it: u uniform in [0, 1) from the seed (53 random bits),
    then the first id (in id order) whose running total of probability passes u."""
    numbers = pcg32(seed)
    u = ((next(numbers) >> 5) * 67108864 + (next(numbers) >> 6)) / 2**53
    kept = torch.nonzero(probs > 0).flatten()
    total = torch.cumsum(probs[kept].double(), dim=0)
    return int(kept[min(int(torch.searchsorted(total, torch.tensor(u, dtype=torch.float64), right=True)), len(kept) - 1)])
