# ---- Direct logit attribution: one position's residual stream as a sum of parts, each read out ----
prompt = "Thou shalt love thy neighbour as"  # page setting: prompt
target = " thyself"  # page setting: target
baseline = " himself"  # page setting: baseline
position = -1  # page setting: position

model, tokenizer = GPT2("model.safetensors"), Tokenizer("vocab.json", "merges.txt")
ids = (tokenizer.encode(prompt) or tokenizer.encode("Thou shalt love thy neighbour as"))[-model.context_length:]
one_token = {}
for word in (target, baseline):
    pieces_of_word = tokenizer.encode(word)
    assert len(pieces_of_word) == 1, f"{word!r} is {len(pieces_of_word)} tokens: {[tokenizer.decode([i]) for i in pieces_of_word]}"
    one_token[word] = pieces_of_word[0]
t, d, H = len(ids), model.d_model, model.n_head
position = t - 1 if position < 0 else min(position, t - 1)  # −1: the last token, as on the page

with torch.no_grad():
    # The forward pass written out so that every part's addition to the residual stream is kept, at the
    # chosen position: x = embed + pos_embed + Σ layers (Σ heads + b_O + mlp_out).
    embed, pos_embed = model.w["wte.weight"][ids], model.w["wpe.weight"][:t]   # [t, d] each
    x = embed + pos_embed
    parts = [("embed", embed[position]), ("pos_embed", pos_embed[position])]  # (label, [d]) in model order
    for layer in range(model.n_layer):
        name = f"h.{layer}.attn"
        q, k, v = model.linear(model.layer_norm(x, f"h.{layer}.ln_1"), f"{name}.c_attn").split(d, dim=-1)
        q, k, v = (m.view(t, H, d // H).transpose(0, 1) for m in (q, k, v))   # [H, t, d_head]
        scores = (q @ k.transpose(1, 2) / math.sqrt(d // H)).masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(), float("-inf"))
        z = scores.softmax(dim=-1) @ v                                          # [H, t, d_head]
        W_O = model.w[f"{name}.c_proj.weight"].view(H, d // H, d)               # c_proj's rows, one block per head
        per_head = torch.einsum("htc,hcd->htd", z, W_O)                         # [H, t, d]: Σ_h = c_proj without its bias
        parts += [(f"L{layer}H{h}", per_head[h, position]) for h in range(H)]
        parts.append((f"L{layer} b_O", model.w[f"{name}.c_proj.bias"]))
        x = x + per_head.sum(0) + model.w[f"{name}.c_proj.bias"]
        mlp_out = model.linear(F.gelu(model.linear(model.layer_norm(x, f"h.{layer}.ln_2"), f"h.{layer}.mlp.c_fc"),
                                      approximate="tanh"), f"h.{layer}.mlp.c_proj")
        parts.append((f"L{layer} mlp_out", mlp_out[position]))
        x = x + mlp_out

    # ln_final divides the whole stream by one number, its scale at this position: frozen at this run's
    # value, the layer norm is linear, so each part is centred, divided by that scale, times ln_f's weight,
    # and read along the unembedding's difference wte[target] − wte[baseline].
    final = x[position]
    scale = ((final - final.mean()).pow(2).mean() + 1e-5).sqrt()
    direction = model.w["wte.weight"][one_token[target]] - model.w["wte.weight"][one_token[baseline]]  # [d]
    terms = [(label, float((p - p.mean()) / scale * model.w["ln_f.weight"] @ direction)) for label, p in parts]
    terms.append(("ln_final.b", float(model.w["ln_f.bias"] @ direction)))
    for label, value in terms:
        print(f"{label}:", value)
    print("sum:", sum(value for _, value in terms))
    logits = model.forward(ids)[0][position]
    print("logit difference:", float(logits[one_token[target]] - logits[one_token[baseline]]))
