# ---- Every head at once: the prompt's attention in every layer and head ----
prompt = "And God said, Let there be light: and there was light. And God saw the light, that it was good."  # page setting: prompt
layer = 0  # page setting: layer
head = 0  # page setting: head

model, tokenizer = GPT2("model.safetensors"), Tokenizer("vocab.json", "merges.txt")
ids = tokenizer.encode(prompt) or tokenizer.encode(
    "And God said, Let there be light: and there was light. And God saw the light, that it was good.")  # an empty box: the page reads this
ids = ids[-model.context_length:]
with torch.no_grad():
    _, attention, _ = model.forward(ids)
weights = torch.stack(attention)                   # [layers, heads, n, n]: row i = query i's weights over keys 0 … i
print("every head:", weights)

# The chosen head, and what its rows do: where each row's largest weight is, from position 1 on.
layer, head = min(layer, model.n_layer - 1), min(head, model.n_head - 1)
A = weights[layer, head]
print("chosen head:", A)
n = len(ids)
best = [int(A[i, :i + 1].argmax()) for i in range(1, n)]  # ties: the first position, as the page
share = lambda count: 100 * count / max(1, n - 1)
print("largest weight on the previous token, the first, itself (% of rows):",  # the previous token first, when it is both
      [share(sum(b == i - 1 for i, b in enumerate(best, 1))), share(sum(b == 0 and i > 1 for i, b in enumerate(best, 1))),
       share(sum(b == i for i, b in enumerate(best, 1)))])
