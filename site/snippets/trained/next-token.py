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
print("probabilities:", distribution(logits))  # the left chart: temperature 1, logits.softmax(-1)

# Reshape as the page does: the repetition penalty, temperature, top-k, then top-p (distribution, in
# the model part above, step by step; Hugging Face's generate applies them in the same order).
probs = distribution(logits, ids, temperature, top_k, top_p, repetition_penalty)
print("reshaped probabilities:", probs)       # the right chart
print("can still be drawn:", int((probs > 0).sum()))
# The page draws with its own seeded generator (draw, in the model part), so this seed picks the
# page's token; torch.multinomial(probs, 1) draws from the same distribution with torch's generator.
token = draw(probs, seed)
print("drawn token:", token)
print("# which reads", repr(tokenizer.decode([token])))
