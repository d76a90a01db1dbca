# ---- The logit lens: the residual stream read out early, with the final LayerNorm and the unembedding ----
prompt = "Thou shalt love thy neighbour as"  # page setting: prompt
position = -1  # page setting: position
target = ""  # page setting: target

model, tokenizer = GPT2("model.safetensors"), Tokenizer("vocab.json", "merges.txt")
ids = (tokenizer.encode(prompt) or tokenizer.encode("Thou shalt love thy neighbour as"))[-model.context_length:]
t = len(ids)
position = t - 1 if position < 0 else min(position, t - 1)  # −1: the last token, as on the page


def read_out(x):
    """x [t, d] → probabilities [t, V]: ln_f with each row's own mean and variance, then x @ wteᵀ."""
    return (model.layer_norm(x, "ln_f") @ model.w["wte.weight"].T).softmax(dim=-1)


with torch.no_grad():
    # The forward pass, keeping the stream at every point: before each block (resid_pre), after its
    # attention (resid_mid), and after the last block (resid_post).
    x = model.w["wte.weight"][ids] + model.w["wpe.weight"][:t]                   # [t, d]
    points = []
    for layer in range(model.n_layer):
        points.append((f"{layer} resid_pre", x))
        x = x + model.attention(model.layer_norm(x, f"h.{layer}.ln_1"), layer)[0]
        points.append((f"{layer} resid_mid", x))
        m = F.gelu(model.linear(model.layer_norm(x, f"h.{layer}.ln_2"), f"h.{layer}.mlp.c_fc"), approximate="tanh")
        x = x + model.linear(m, f"h.{layer}.mlp.c_proj")
    points.append((f"{model.n_layer - 1} resid_post", x))
    lens = {name: read_out(stream) for name, stream in points}                  # each [t, V]

    # The grid: the token each point favours at each position (its id, and on a "#" line its text).
    for name, probs in lens.items():
        favoured = probs.argmax(dim=-1).tolist()
        print(f"{name} favourites:", favoured)
        print(f"# {name} reads:", " | ".join(tokenizer.decode([i]) for i in favoured))

    # One token at the chosen position, point by point: its probability and rank (1 = the favourite).
    # An empty target follows the model's own prediction there (the last point's favourite).
    favourite = int(lens[points[-1][0]][position].argmax())
    followed = tokenizer.encode(target) if target else [favourite]
    assert len(followed) == 1, f"{target!r} is {len(followed)} tokens: {[tokenizer.decode([i]) for i in followed]}"
    for name, probs in lens.items():
        p = probs[position]
        print(f"{name} probability:", float(p[followed[0]]))
        print(f"{name} rank:", 1 + int((p > p[followed[0]]).sum()))
