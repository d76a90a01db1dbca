# ---- Sliding windows and attention sinks: one long passage through four KV caches ----
length = 384  # page setting: length
sinks = 4  # page setting: sinks
window = 64  # page setting: window
# The page's passage (held-out King James chapters: Judges 9, 1 Samuel 4, …), whole lines covering `length` tokens.
passage = "And Abimelech the son of Jerubbaal went to Shechem unto his mother's brethren, and communed with them, and with all the family of the house of his mother's father, saying,\nSpeak, I pray you, in the ears of all the men of Shechem, Whether is better for you, either that all the sons of Jerubbaal, which are threescore and ten persons, reign over you, or that one reign over you? remember also that I am your bone and your flesh.\nAnd his mother's brethren spake of him in the ears of all the men of Shechem all these words: and their hearts inclined to follow Abimelech; for they said, He is our brother.\nAnd they gave him threescore and ten pieces of silver out of the house of Baalberith, wherewith Abimelech hired vain and light persons, which followed him.\nAnd he went unto his father's house at Ophrah, and slew his brethren the sons of Jerubbaal, being threescore and ten persons, upon one stone: notwithstanding yet Jotham the youngest son of Jerubbaal was left; for he hid himself.\nAnd all the men of Shechem gathered together, and all the house of Millo, and went, and made Abimelech king, by the plain of the pillar that was in Shechem.\nAnd when they told it to Jotham, he went and stood in the top of mount Gerizim, and lifted up his voice, and cried, and said unto them, Hearken unto me, ye men of Shechem, that God may hearken unto you.\nThe trees went forth on a time to anoint a king over them; and they said unto the olive tree, Reign thou over us.\nBut the olive tree said unto them, Should I leave my fatness, wherewith by me they honour God and man, and go to be promoted over the trees?\n"  # page setting: passage

llama, tokenizer = Llama("kjv-llama"), Tokenizer("vocab.json", "merges.txt")  # attnlab-kjv's vocabulary: both models'
ids = tokenizer.encode(passage)[:length]            # the caches read ids[0 … n−2] and predict ids[1 … n−1]
n, L, H, Hkv, hd = len(ids), llama.n_layer, llama.n_head, llama.n_kv_head, llama.d_head
group, context = H // Hkv, llama.context_length
bytes_per_token = 2 * L * Hkv * hd * 4                # keys and values, every layer, float32
targets = torch.tensor(ids[1:])


def losses_of(logits):  # [n−1, V] → each target's −log p
    return F.cross_entropy(logits, targets, reduction="none")


# (a) The full cache, emptied when it holds the 256 tokens the model was trained on: each stretch of 256 read from
# scratch, RoPE at positions 0 … 255 within it. Its first-token attention: column 0 of each stretch's pattern.
rows, first_full, counted = [], torch.zeros(L, H), 0
for start in range(0, n - 1, context):
    chunk = ids[start:min(start + context, n - 1)]
    logits, cache = llama.run(chunk)
    rows.append(logits)
    for l in range(L):
        first_full[l] += cache[f"blocks.{l}.attn.hook_pattern"][:, 1:, 0].sum(-1)   # queries 1 … with a key before them
    counted += len(chunk) - 1
loss_full, first_full = losses_of(torch.cat(rows)), first_full / counted
bytes_full = (n - 1 - (n - 2) // context * context) * bytes_per_token


# (b), (c) StreamingLLM's cache: the first `s` tokens for ever and the last `w` (the new one included). Keys are stored
# before RoPE and turned at every step to their positions within the cache, 0 … kept−1, the new query at kept−1.
def streaming(s, w):
    keys, values, kept = [torch.zeros(0, Hkv, hd) for _ in range(L)], [torch.zeros(0, Hkv, hd) for _ in range(L)], []
    logits, first, counted = [], torch.zeros(L, H), 0
    for t in range(n - 1):
        kept.append(t)
        evict = len(kept) > s + w                     # the oldest token that is neither a sink nor in the window goes
        if evict:
            del kept[s]
        positions = torch.arange(len(kept))
        x = llama.w["model.embed_tokens.weight"][[ids[t]]]                                # [1, d]
        for l in range(L):
            p = f"model.layers.{l}."
            h = llama.rms_norm(x, p + "input_layernorm")
            q = llama.linear(h, p + "self_attn.q_proj").view(1, H, hd)
            keys[l] = torch.cat([keys[l], llama.linear(h, p + "self_attn.k_proj").view(1, Hkv, hd)])
            values[l] = torch.cat([values[l], llama.linear(h, p + "self_attn.v_proj").view(1, Hkv, hd)])
            if evict:
                keys[l], values[l] = (torch.cat([m[:s], m[s + 1:]]) for m in (keys[l], values[l]))
            rot_k = llama.rotate(keys[l].transpose(0, 1), positions).repeat_interleave(group, dim=0)   # [H, kept, hd]
            rot_q = llama.rotate(q.transpose(0, 1), positions[-1:])                                   # [H, 1, hd]
            pattern = (rot_q @ rot_k.transpose(1, 2) / math.sqrt(hd)).softmax(dim=-1)                  # [H, 1, kept]
            z = pattern @ values[l].transpose(0, 1).repeat_interleave(group, dim=0)                     # [H, 1, hd]
            x = x + llama.linear(z.transpose(0, 1).reshape(1, H * hd), p + "self_attn.o_proj")
            x = x + llama.mlp(llama.rms_norm(x, p + "post_attention_layernorm"), l)
            if len(kept) > 1:
                first[l] += pattern[:, 0, 0]
        counted += len(kept) > 1
        logits.append(llama.rms_norm(x, "model.norm") @ llama.unembed.T)
    return losses_of(torch.cat(logits)), first / counted, len(kept) * bytes_per_token


loss_window, first_window, bytes_window = streaming(0, window)
loss_sinks, first_sinks, bytes_sinks = streaming(sinks, window)

# (d) Mistral's sliding-window mask over the whole text, RoPE at the text's positions: each token sees the last w.
loss_mask = losses_of(llama.run(ids[:-1], window=window)[0])
bytes_mask = (n - 1) * bytes_per_token                # the page's session keeps every token (only the last w are read)

caches = {"full": loss_full, "window": loss_window, "sinks": loss_sinks, "mask": loss_mask}
print("mean loss, full window sinks mask:", " ".join(f"{c.mean().item():.6f}" for c in caches.values()))
after = slice(min(window, n - 1), n - 1)              # the targets after the window first dropped the first token
print("mean loss after eviction, full window sinks mask:", " ".join(f"{c[after].mean().item():.6f}" for c in caches.values()))
print("window and mask, largest difference:", f"{(loss_window - loss_mask).abs().max().item():.6f}")
for name, c in caches.items():
    print(f"loss per token, {name}:", " ".join(f"{v:.6f}" for v in c.tolist()))
for name, first in {"full": first_full, "window": first_window, "sinks": first_sinks}.items():
    print(f"attention on the first slot, {name}, layer × head:", " ".join(f"{v:.6f}" for v in first.flatten().tolist()))
print("cache bytes at the end, full window sinks mask:", bytes_full, bytes_window, bytes_sinks, bytes_mask)
