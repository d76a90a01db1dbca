# ---- FlashAttention, block by block: one head's keys a block at a time, with the online softmax ----
prompt = "And God said, Let there be light: and there was light. And God saw the light, that it was good."  # page setting: prompt
layer = 0  # page setting: layer
head = 0  # page setting: head
block = 4  # page setting: block

llama, tokenizer = Llama("kjv-llama"), Tokenizer("vocab.json", "merges.txt")
ids = (tokenizer.encode(prompt) or tokenizer.encode("And God said, Let there be light: and there was light. And God saw the light, that it was good."))[-32:]
t, hd = len(ids), llama.d_head
layer, head = min(layer, llama.n_layer - 1), min(head, llama.n_head - 1)
kv_head = head // (llama.n_head // llama.n_kv_head)  # grouped-query attention: the key/value head this query head reads

with torch.no_grad():
    _, cache = llama.run(ids)
    q = cache[f"blocks.{layer}.attn.hook_rot_q"][:, head]     # [t, hd], turned by RoPE
    k = cache[f"blocks.{layer}.attn.hook_rot_k"][:, kv_head]  # [t, hd], turned by RoPE
    v = cache[f"blocks.{layer}.attn.hook_v"][:, kv_head]      # [t, hd]
    print("# query head", head, "of layer", layer, "reads key/value head", kv_head, "; keys in blocks of", block)
    causal = torch.ones(t, t, dtype=torch.bool).tril()
    scores = (q @ k.T / math.sqrt(hd)).masked_fill(~causal, float("-inf"))  # [t, t]: made here to slice; FlashAttention makes one block at a time

    # The online softmax: per query row a running maximum m, a running sum l and an unnormalised output a.
    m = torch.full((t,), float("-inf"))
    l = torch.zeros(t)
    a = torch.zeros(t, hd)
    for b, k0 in enumerate(range(0, t, block), start=1):
        s = scores[:, k0:k0 + block]                        # [t, block]: this block's scores
        m_new = torch.maximum(m, s.max(dim=1).values)
        rescale = torch.exp(m - m_new)                      # exp(m_old − m_new): 0 on the first block, 1 where m did not move
        p = torch.exp(s - m_new[:, None])
        l = rescale * l + p.sum(dim=1)
        a = rescale[:, None] * a + p @ v[k0:k0 + block]
        m = m_new
        print(f"block {b} max:", m)
        print(f"block {b} sum:", l)
        print(f"block {b} rescale:", rescale)
        print(f"block {b} partial output (first 3 numbers of each row):", (a / l[:, None])[:, :3])

    # After the last block: softmax attention's output, up to float32 rounding.
    full = F.softmax(scores, dim=-1) @ v
    print("largest difference from softmax attention:", float((a / l[:, None] - full).abs().max()))

# Memory for one head in float32 (4 bytes): the n×n scores; FlashAttention's one tile of scores (attnlab's core
# uses 128 queries × 256 keys) and m and l for each row; Q, K, V and the output, which both need.
for n in (1024, 32768, 131072):
    print(f"memory in bytes at {n} tokens, scores, tile m l, q k v output:", 4 * n * n, 4 * (min(128, n) * min(256, n) + 2 * n), 4 * 4 * n * hd)
