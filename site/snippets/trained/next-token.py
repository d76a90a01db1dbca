# ---- The next token: the model's distribution after the prompt, reshaped, and one seeded draw ----
prompt = "Thou shalt love thy neighbour as"  # page setting: prompt
temperature = 1  # page setting: temperature
top_k = 0  # page setting: topK
top_p = 1  # page setting: topP
repetition_penalty = 1  # page setting: penalty
seed = 0  # page setting: seed

model, tokenizer = GPT2("model.safetensors"), Tokenizer("vocab.json", "merges.txt")
ids = tokenizer.encode(prompt) or tokenizer.encode("In the beginning")  # an empty box: the page reads this
ids = ids[-model.context_length:]                                         # at most the context, the last tokens
with torch.no_grad():
    logits = model.forward(ids)[0][-1]        # [V]: the scores for the token after the last one
print("prompt ids:", ids)
print("probabilities:", logits.softmax(-1))   # temperature 1, nothing cut: the left chart

# Reshape as the page (and Hugging Face's generate) does, in this order.
z = logits.clone()
if repetition_penalty != 1:  # every token already in the prompt: logit / penalty (× penalty if negative)
    seen = torch.tensor(sorted(set(ids)))
    z[seen] = torch.where(z[seen] < 0, z[seen] * repetition_penalty, z[seen] / repetition_penalty)
if temperature == 0:  # greedy: all the probability on the top token
    probs = torch.zeros_like(z)
    probs[z.argmax()] = 1
else:
    p = torch.exp((z.double() - z.max()) / temperature)  # softmax(z / T) before normalising, in float64
    p_sorted, order = torch.sort(p, descending=True, stable=True)  # ties: the smaller id first
    keep = min(int((p > 0).sum()), top_k or len(p))                 # top-k (0 = off)
    reached = torch.nonzero(torch.cumsum(p_sorted[:keep] / p.sum(), 0) >= top_p - 1e-6)
    keep = int(reached[0]) + 1 if len(reached) else keep            # top-p: the fewest tokens whose mass reaches p
    probs = torch.zeros_like(p)
    probs[order[:keep]] = p_sorted[:keep] / p_sorted[:keep].sum()   # what is left, renormalised
    probs = probs.float()
print("reshaped probabilities:", probs)       # the right chart
print("can still be drawn:", int((probs > 0).sum()))
# The page draws with its own seeded generator (draw, in the model part), so this seed picks the
# page's token; torch.multinomial(probs, 1) draws from the same distribution with torch's generator.
token = draw(probs, seed)
print("drawn token:", token)
print("# which reads", repr(tokenizer.decode([token])))
