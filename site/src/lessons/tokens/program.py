# ---- Tokens: the page's text → pieces → merges → ids → the embedding rows they pick ----
text = "In the beginning God created the heaven and the earth."  # page setting: text
piece_index = 1  # page setting: piece
merges_applied = 99  # page setting: step

model, tokenizer = GPT2("model.safetensors"), Tokenizer("vocab.json", "merges.txt")
cut = pieces(text)                             # GPT-2's rule: a word with its leading space, a number, …
ids = tokenizer.encode(text)
print("pieces:", len(cut))
print("# the pieces:", cut)
print("ids:", ids)

# Replay one piece's merges: its UTF-8 bytes (one token each), then one learned merge at a time.
if cut:
    steps = tokenizer.merge_steps(cut[min(piece_index, len(cut) - 1)])
    at = min(merges_applied, len(steps) - 1)
    print("merge ranks:", [rank for rank, _ in steps[1:]])  # rank r: r merges were learned before it
    print("tokens at this step:", [tokenizer.ids[t] for t in steps[at][1]])

# Each id picks one row of wte; the first layer receives x_t = wte[id_t] + wpe[t].
wte, wpe = model.w["wte.weight"], model.w["wpe.weight"]  # [V, d], [context, d]
if ids:
    print("embedding rows:", wte[ids[:24]])               # the rows the page draws (its first 24 tokens)
x = wte[ids] + wpe[:len(ids)]                             # [t, d]: what layer 0 reads
