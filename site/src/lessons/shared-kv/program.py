# ---- Shared keys and values: who reads which key/value head, the cache it saves, what sharing costs ----
prompt = "And God said, Let there be light: and there was light."  # page setting: prompt
layer = 0  # page setting: layer
mine = {"layers": 32, "heads": 32, "kv_heads": 8, "head_dim": 128, "bytes": 2, "tokens": 8192}  # page setting: mine

llama, tokenizer = Llama("kjv-llama"), Tokenizer("vocab.json", "merges.txt")  # both models read this vocabulary
ids = (tokenizer.encode(prompt) or tokenizer.encode("And God said, Let there be light: and there was light."))[-32:]  # the page shows 32 at most
H, Hkv = llama.n_head, llama.n_kv_head
with torch.no_grad():
    _, cache = llama.run(ids)
print("key/value head of each query head:", [h // (H // Hkv) for h in range(H)])
print(f"pattern, layer {layer}, query head × query × key:", cache[f"blocks.{layer}.attn.hook_pattern"])


# The KV cache: per token, a key and a value of head_dim numbers for every key/value head of every layer.
def kv_bytes_per_token(layers, kv_heads, head_dim, bytes_per_number=2):  # 2 bytes: bf16
    return 2 * layers * kv_heads * head_dim * bytes_per_number


CONFIGS = {  # from each model's config.json on huggingface.co: layers, query heads, key/value heads, head dim, context
    "Llama 3 8B": (32, 32, 8, 128, 8192),      # meta-llama/Meta-Llama-3-8B
    "Llama 2 70B": (80, 64, 8, 128, 4096),     # meta-llama/Llama-2-70b-hf
    "Qwen2.5-7B": (28, 28, 4, 128, 131072),    # Qwen/Qwen2.5-7B
    "SmolLM2-135M": (30, 9, 3, 64, 8192),      # HuggingFaceTB/SmolLM2-135M
}
for name, (layers, heads, kv_heads, head_dim, context) in CONFIGS.items():
    shared, full = kv_bytes_per_token(layers, kv_heads, head_dim), kv_bytes_per_token(layers, heads, head_dim)
    print(f"{name}, bytes per token, full context, with multi-head per token and full context:", shared, shared * context, full, full * context)
shared = kv_bytes_per_token(mine["layers"], mine["kv_heads"], mine["head_dim"], mine["bytes"])
full = kv_bytes_per_token(mine["layers"], mine["heads"], mine["head_dim"], mine["bytes"])
print("your numbers, bytes per token, for the tokens, with multi-head per token and for the tokens:",
      shared, shared * mine["tokens"], full, full * mine["tokens"])

# What sharing costs: attnlab-kjv's key/value heads mean-pooled into groups of neighbouring heads. c_attn's
# columns are q | k | v, each H heads of d_head; a projection is linear, so averaging a group's weights and
# biases gives each head of the group the mean of their keys (and values).
gpt = GPT2("model.safetensors")
with open("heldout.txt", encoding="utf-8") as f:  # Genesis 20, Psalm 22 and John 3: chapters held out of its training text
    held_out = tokenizer.encode(f.read())
T, d, G = gpt.context_length, gpt.d_model, gpt.n_head
windows = [held_out[s:s + T] for s in range(0, len(held_out) - 1, T - 1)]  # sharing their edge token
trained = dict(gpt.w)
losses = []
for groups in (G, 2, 1):
    gpt.w = dict(trained)
    for l in range(gpt.n_layer):
        for part in ("weight", "bias"):
            w = trained[f"h.{l}.attn.c_attn.{part}"].clone()                       # [d, 3d] and [3d]
            kv = w[..., d:].reshape(*w.shape[:-1], 2, groups, G // groups, d // G)  # k and v, group, head in group, d_head
            w[..., d:] = kv.mean(dim=-2, keepdim=True).expand_as(kv).reshape(*w.shape[:-1], 2 * d)
            gpt.w[f"h.{l}.attn.c_attn.{part}"] = w
    total, count = 0.0, 0
    with torch.no_grad():
        for window in windows:
            logits, _, _ = gpt.forward(window)
            total += F.cross_entropy(logits[:-1], torch.tensor(window[1:]), reduction="sum").item()
            count += len(window) - 1
    losses.append(total / count)
print(f"held-out loss with {G}, 2 and 1 key/value heads per layer:", losses)
