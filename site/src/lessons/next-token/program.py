# ---- The next token: the model's distribution after the prompt, reshaped, and one seeded draw ----
prompt = "Thou shalt love thy neighbour as"  # page setting: prompt
temperature = 1  # page setting: temperature
top_k = 0  # page setting: topK
top_p = 1  # page setting: topP
repetition_penalty = 1  # page setting: penalty
seed = 0  # page setting: seed
SHOWN = 10  # the page's charts show the 10 most likely tokens


def percent(p):
    """A probability as the page writes it: one decimal from 0.1% up, two significant digits below."""
    return "0%" if p == 0 else f"{100 * p:.1f}%" if p >= 0.001 else f"{float(f'{100 * p:.2g}'):g}%"


def chart(title, probs, ids, chosen=None):
    """The page's bar chart as lines: each token as the page labels it, and its probability."""
    print(title)
    for i in ids:
        print(f"  {tokenizer.label(i):<14} {percent(probs[i].item()):>7}" + ("  (chosen)" if i == chosen else ""))


def most_likely(probs, k):
    """The k most likely ids, ties broken by the smaller id, as the page orders its bars."""
    return sorted(range(len(probs)), key=lambda i: (-probs[i].item(), i))[:k]


model, tokenizer = GPT2("model.safetensors"), Tokenizer("vocab.json", "merges.txt")
ids = tokenizer.encode(prompt) or tokenizer.encode("In the beginning")  # an empty box: the page reads this
ids = ids[-model.context_length:]                                         # at most the context, the last tokens
with torch.no_grad():
    logits = model.forward(ids)[0][-1]        # [V]: the scores for the token after the last one
print("prompt ids:", ids)
plain = distribution(logits)                  # temperature 1: logits.softmax(-1)
chart(f"The model's distribution (temperature 1, nothing cut): the {SHOWN} most likely tokens", plain, most_likely(plain, SHOWN))

# Reshape as the page does: the repetition penalty, temperature, top-k, then top-p (distribution, in
# the model part above, step by step; Hugging Face's generate applies them in the same order).
probs = distribution(logits, ids, temperature, top_k, top_p, repetition_penalty)
# The page draws with its own seeded generator (draw, in the model part), so this seed picks the
# page's token; torch.multinomial(probs, 1) draws from the same distribution with torch's generator.
token = draw(probs, seed)
shaped = [i for i in most_likely(probs, SHOWN) if probs[i] > 0]
chart("After the penalty, temperature, top-k and top-p: the distribution the draw uses",
      probs, shaped + ([token] if token not in shaped else []), chosen=token)  # a rare draw gets its bar too
print("can still be drawn:", int((probs > 0).sum()), "of", len(probs))
print("drawn token:", token)
print(f"# Seed {seed} draws {tokenizer.label(token)!r}: {percent(probs[token].item())} after reshaping, "
      f"{percent(plain[token].item())} before")
