# ---- Knock heads out: their output (before c_proj) set to 0 or to its mean over the positions ----
prompt = "Now the serpent was more subtil than any beast of the field. And the serpent said unto the woman, Ye shall not surely die: for God doth know that in the day ye eat thereof, then your eyes shall be opened. And the"  # page setting: prompt
knock_out = []  # page setting: heads
mode = "zero"  # page setting: mode
T = 30  # page setting: length
seed = 0  # page setting: seed

model, tokenizer = GPT2("model.safetensors"), Tokenizer("vocab.json", "merges.txt")
knock_out = [(l, h) for l, h in knock_out if l < model.n_layer and h < model.n_head]  # (layer, head); others ignored, as on the page
ids = tokenizer.encode(prompt) or tokenizer.encode(
    "Now the serpent was more subtil than any beast of the field. And the serpent said unto the woman, Ye shall not surely die: "
    "for God doth know that in the day ye eat thereof, then your eyes shall be opened. And the")  # an empty box: the page reads this
ids = ids[-model.context_length:]
T = max(2, min(T, model.context_length // 2))
low, high = (256, model.vocab_size - 1) if model.vocab_size > 300 else (0, model.vocab_size)

with torch.no_grad():
    # Every head's induction score (the previous lesson's): on 4 random sequences repeated once, the mean
    # weight from each token of the second copy to the one after its first occurrence.
    induction, i = torch.zeros(model.n_layer, model.n_head), torch.arange(T, 2 * T)
    for s in range(4):
        A = torch.stack(model.forward(repeated_random_tokens(T, low, high, seed + s))[1])  # [layers, heads, 2T, 2T]
        induction += A[:, :, i, i - T + 1].mean(-1) / 4
    print("induction scores:", induction)

    # The next token with every head, and with the chosen heads knocked out.
    before = distribution(model.forward(ids)[0][-1])                                         # [V], temperature 1
    after = distribution(model.forward(ids, knock_out=knock_out, knock_out_with=mode)[0][-1]) if knock_out else before
    print("all heads:", before)
    print("knocked out:", after)
    p, q = before.double(), after.double()
    print("KL:", float((p * (p / q.clamp(min=1e-30)).log()).where(p > 0, torch.zeros(1, dtype=torch.float64)).sum()))  # in nats

    def copy_losses(heads):
        """The mean loss predicting the first copy of the seed's repeated tokens, and the second."""
        repeated = repeated_random_tokens(T, low, high, seed)
        logits = model.forward(repeated, knock_out=heads, knock_out_with=mode)[0]
        losses = F.cross_entropy(logits[:-1], torch.tensor(repeated[1:]), reduction="none")
        return [float(losses[:T - 1].mean()), float(losses[T:].mean())]

    print("all heads, first copy and second:", copy_losses([]))
    if knock_out:
        print("knocked out, first copy and second:", copy_losses(knock_out))
    # One head is rarely enough: knock out the induction heads (score ≥ 0.3) one more at a time, best first.
    ranked = sorted(((l, h) for l in range(model.n_layer) for h in range(model.n_head) if induction[l, h] >= 0.3),
                    key=lambda lh: -induction[lh])
    print("induction heads, best first:", ranked)
    print("second copy, the first k knocked out (k = 0, 1, …):", [copy_losses(ranked[:k])[1] for k in range(len(ranked) + 1)])
