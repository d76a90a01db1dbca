# ---- Rotary positions: each pair of a head's numbers turned by an angle that grows with the position ----
prompt = "In the beginning God created the heaven and the earth."  # page setting: prompt
position = 8  # page setting: position
layer = 0  # page setting: layer
head = 0  # page setting: head
offset = 100  # page setting: offset
theta = 10000  # page setting: theta

llama, gpt, tokenizer = Llama("kjv-llama"), GPT2("model.safetensors"), Tokenizer("vocab.json", "merges.txt")
ids = (tokenizer.encode(prompt) or tokenizer.encode("In the beginning God created the heaven and the earth."))[-64:]
t, hd, half = len(ids), llama.d_head, llama.d_head // 2
position, layer, head = min(position, t - 1), min(layer, llama.n_layer - 1), min(head, llama.n_head - 1)
# The held-out text's first verses (Judges 9, which training never saw; the page reads four passages of 1,025 tokens of it).
passage = "And Abimelech the son of Jerubbaal went to Shechem unto his mother's brethren, and communed with them, and with all the family of the house of his mother's father, saying,\nSpeak, I pray you, in the ears of all the men of Shechem, Whether is better for you, either that all the sons of Jerubbaal, which are threescore and ten persons, reign over you, or that one reign over you? remember also that I am your bone and your flesh.\nAnd his mother's brethren spake of him in the ears of all the men of Shechem all these words: and their hearts inclined to follow Abimelech; for they said, He is our brother.\nAnd they gave him threescore and ten pieces of silver out of the house of Baalberith, wherewith Abimelech hired vain and light persons, which followed him.\nAnd he went unto his father's house at Ophrah, and slew his brethren the sons of Jerubbaal, being threescore and ten persons, upon one stone: notwithstanding yet Jotham the youngest son of Jerubbaal was left; for he hid himself.\nAnd all the men of Shechem gathered together, and all the house of Millo, and went, and made Abimelech king, by the plain of the pillar that was in Shechem.\nAnd when they told it to Jotham, he went and stood in the top of mount Gerizim, and lifted up his voice, and cried, and said unto them, Hearken unto me, ye men of Shechem, that God may hearken unto you.\nThe trees went forth on a time to anoint a king over them; and they said unto the olive tree, Reign thou over us.\nBut the olive tree said unto them, Should I leave my fatness, wherewith by me they honour God and man, and go to be promoted over the trees?\n"  # page setting: passage


def rotate_pairs(x, p, inv_freq):  # x [hd]: pair (x_i, x_(i+hd/2)) turned by p·inv_freq[i], written out pair by pair
    angle = p * inv_freq.double()
    x1, x2 = x[:half].double(), x[half:].double()
    return torch.cat([x1 * angle.cos() - x2 * angle.sin(), x2 * angle.cos() + x1 * angle.sin()])


def gpt_first_scores(ids, start):  # attnlab-kjv's layer-0 scores [H, t, t] with the tokens at positions start …
    n, d, H = len(ids), gpt.d_model, gpt.n_head
    x = gpt.w["wte.weight"][ids] + gpt.w["wpe.weight"][start:start + n]
    q, k, _ = gpt.linear(gpt.layer_norm(x, "h.0.ln_1"), "h.0.attn.c_attn").split(d, dim=-1)
    q, k = (m.view(n, H, d // H).transpose(0, 1) for m in (q, k))
    return q @ k.transpose(1, 2) / math.sqrt(d // H)


def largest_difference(a, b):  # over the scores a query may see (the masked ones are −inf in both)
    seen = torch.isfinite(a)
    return float((a[seen] - b[seen]).abs().max())


with torch.no_grad():
    inv_freq = llama.inv_freq()
    print("inv_freq:", inv_freq)
    _, cache = llama.run(ids)
    q = cache[f"blocks.{layer}.attn.hook_q"][position, head]                    # [hd], before the turn
    print("#", "position", position, "is", repr(tokenizer.decode([ids[position]])))
    print("query before the turn:", q)
    mine = rotate_pairs(q, position, inv_freq)
    print("turned here:", mine)
    print("hook_rot_q:", cache[f"blocks.{layer}.attn.hook_rot_q"][position, head])
    print("# largest difference, turned here and hook_rot_q:", float((mine - cache[f"blocks.{layer}.attn.hook_rot_q"][position, head]).abs().max()))

    # The whole prompt at positions offset … offset + t − 1: every score of every layer and head as it was.
    _, moved = llama.run(ids, positions=torch.arange(offset, offset + t))
    names = [f"blocks.{l}.attn.hook_attn_scores" for l in range(llama.n_layer)]
    print("# attnlab-kjv-llama, largest difference of any score when shifted:", max(largest_difference(cache[n], moved[n]) for n in names))
    print("llama layer 0 score, last query on first key, at 0 and shifted:", float(cache[names[0]][head, t - 1, 0]), float(moved[names[0]][head, t - 1, 0]))

    # attnlab-kjv: the prompt alone, and after `offset` other tokens (the held-out text's first), in its first layer.
    if offset + t <= gpt.context_length:
        alone = gpt_first_scores(ids, 0)
        after = gpt_first_scores(tokenizer.encode(passage)[:offset] + ids, 0)[:, offset:, offset:]
        mask = torch.ones(t, t, dtype=torch.bool).tril()
        print("gpt largest difference of a layer-0 score when shifted:", largest_difference(alone.masked_fill(~mask, float("-inf")), after))
        gh = min(head, gpt.n_head - 1)
        print("gpt layer 0 score, last query on first key, alone and shifted:", float(alone[gh, t - 1, 0]), float(after[gh, t - 1, 0]))
    else:
        print("# attnlab-kjv has no position", offset + t - 1, "(it learned", gpt.context_length, "position vectors)")

    # How fast each pair turns at the chosen theta: wavelength 2π/ω_i tokens (the angles only, not the model).
    omega = theta ** -(torch.arange(0, hd, 2, dtype=torch.float64) / hd)
    print("wavelengths at theta:", 2 * math.pi / omega)

    # The loss of each next token along the held-out verses, at positions 0 … (past 256, the trained length).
    held = tokenizer.encode(passage)
    logits, _ = llama.run(held)
    losses = F.cross_entropy(logits[:-1].double(), torch.tensor(held[1:]), reduction="none")
    print("loss per position:", losses)
