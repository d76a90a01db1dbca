# ---- What heads do: four scores per head, each a mean attention weight, then the induction demo ----
prompt = "And the LORD spake unto Moses, saying, Speak unto the children of Israel, and say unto them, When a man shall vow a vow unto the LORD, he shall not break his word."  # page setting: prompt
T = 30  # page setting: length
seed = 0  # page setting: seed
layer = -1  # page setting: layer
head = -1  # page setting: head

model, tokenizer = GPT2("model.safetensors"), Tokenizer("vocab.json", "merges.txt")
ids = tokenizer.encode(prompt) or tokenizer.encode(
    "And the LORD spake unto Moses, saying, Speak unto the children of Israel, and say unto them, "
    "When a man shall vow a vow unto the LORD, he shall not break his word.")  # an empty box: the page reads this
ids = ids[-model.context_length:]
T = max(2, min(T, model.context_length // 2))  # the sequence is 2T tokens: it must fit the context
# The page's random tokens: learned tokens only (not the 256 single bytes, not the last id).
low, high = (256, model.vocab_size - 1) if model.vocab_size > 300 else (0, model.vocab_size)
SAMPLES = 4  # random sequences per score, seeds seed … seed + 3, averaged

with torch.no_grad():
    # Ordinary text: from each position i ≥ 1, the weight on i − 1 (previous token) and on 0 (first token).
    A = torch.stack(model.forward(ids)[1])       # [layers, heads, n, n]
    i = torch.arange(1, len(ids))
    previous_token = A[:, :, i, i - 1].mean(-1)  # [layers, heads]
    first_token = A[:, :, i, 0].mean(-1)
    # Random tokens repeated once: from each position i of the second copy (T of them, i = T … 2T − 1),
    # the weight on i − T + 1, the token that followed its first occurrence (induction), and on i − T,
    # that occurrence itself (duplicate token). Exactly T rows: A.diagonal(offset=-(T - 1)) would also take
    # A[T - 1, 0], the last token of the first copy looking at the first token, often a head's sink.
    induction, duplicate_token = torch.zeros_like(previous_token), torch.zeros_like(previous_token)
    i = torch.arange(T, 2 * T)
    for s in range(SAMPLES):
        A = torch.stack(model.forward(repeated_random_tokens(T, low, high, seed + s))[1])  # [layers, heads, 2T, 2T]
        induction += A[:, :, i, i - T + 1].mean(-1) / SAMPLES
        duplicate_token += A[:, :, i, i - T].mean(-1) / SAMPLES
print("previous-token:", previous_token)
print("first-token:", first_token)
print("induction:", induction)
print("duplicate-token:", duplicate_token)

# The induction demo: one head's weights on one repeated sequence (seed), and the loss on every token.
if layer < 0 or head < 0:  # the page's default: the strongest induction head (the first of equals)
    layer, head = divmod(int(induction.flatten().argmax()), model.n_head)
layer, head = min(layer, model.n_layer - 1), min(head, model.n_head - 1)
repeated = repeated_random_tokens(T, low, high, seed)
with torch.no_grad():
    logits, attention, _ = model.forward(repeated)
losses = F.cross_entropy(logits[:-1], torch.tensor(repeated[1:]), reduction="none")  # losses[t]: predicting token t + 1
print("demo head:", [layer, head])
print("stripe:", attention[layer][head])         # [2T, 2T]: an induction head's stripe sits T − 1 left of the diagonal
print("losses:", losses)
print("first copy, second copy (mean loss):", [float(losses[:T - 1].mean()), float(losses[T:].mean())])
