# ---- Generation with a KV cache: the prompt once, then one token at a time, each step reusing the
# keys and values of every earlier token ----
prompt = "And it came to pass"  # page setting: prompt
new_tokens = 3  # page setting: steps
repetition_penalty = 1.2  # page setting: penalty
seed = 0  # page setting: seed
layer = 0  # page setting: layer
head = 0  # page setting: head

model, tokenizer = GPT2("model.safetensors"), Tokenizer("vocab.json", "merges.txt")
layer, head = min(layer, model.n_layer - 1), min(head, model.n_head - 1)
ids = tokenizer.encode(prompt) or tokenizer.encode("And it came to pass")  # an empty box: the page reads this
ids = ids[-model.context_length:]


tokens = list(ids)
with torch.no_grad():
    logits, attention, cache = model.forward(ids)    # the prompt: every layer's K and V, [H, t, d_head] each
    for step in range(min(new_tokens, model.context_length - len(ids))):
        # The page's settings: the penalty, temperature 0.8, top-k 40 (model.generate(..., do_sample=True,
        # temperature=0.8, top_k=40, repetition_penalty=…) in Hugging Face's words), and the page's seeded
        # draw (draw, in the model part); torch.multinomial(probs, 1) would draw from the same distribution.
        probs = distribution(logits[-1], tokens, temperature=0.8, top_k=40, repetition_penalty=repetition_penalty)
        token = draw(probs, seed * 1000 + step)
        tokens.append(token)
        # Only the new token goes through the model: its query attends over the cached keys and its own.
        logits, attention, cache = model.forward([token], past=cache)
print("tokens:", tokens)
print("# the text:", repr(tokenizer.decode(tokens)))
K, V = cache[layer]                                  # [H, n, d_head] each: one row per token so far
print("attention:", attention[layer][head][-1])      # the newest query's weights over all n cached keys
print("K cache:", K[head])
print("V cache:", V[head])

# The work of the last step, in multiply-adds (n tokens so far, L layers, d = d_model, V tokens): each row
# through the projections costs 12·d² (c_attn 3d², c_proj d², the MLP 8d²), its attention 2·d per key it
# sees, and the output layer V·d for the last row. With the cache only the new row is computed; without
# it all n rows are, their keys 1 + 2 + … + n.
n, L, d, V = len(tokens), model.n_layer, model.d_model, model.vocab_size
print("multiply-adds for the last token, with the cache and without:",
      [L * (12 * d * d + 2 * n * d) + V * d, L * (n * 12 * d * d + d * n * (n + 1)) + V * d])
