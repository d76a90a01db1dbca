# ---- Patching: put one activation of the clean run into the corrupted run and see how much comes back ----
clean_prompt = "And Abner saw Aaron. And Abner saw"  # page setting: clean
corrupted_prompt = "And Abner met Aaron. And Abner saw"  # page setting: corrupted
target = " Aaron"  # page setting: target
baseline = " Abner"  # page setting: baseline
sender = [-1, -1]  # page setting: sender

model, tokenizer = GPT2("model.safetensors"), Tokenizer("vocab.json", "merges.txt")
clean = tokenizer.encode(clean_prompt) or tokenizer.encode("And Abner saw Aaron. And Abner saw")  # an empty box: the preset
corrupted = tokenizer.encode(corrupted_prompt) or tokenizer.encode("And Abner met Aaron. And Abner saw")
assert len(clean) == len(corrupted), f"the prompts are {len(clean)} and {len(corrupted)} tokens: patching needs the same length"
(target_id,), (baseline_id,) = tokenizer.encode(target), tokenizer.encode(baseline)
t, d, L, H = len(clean), model.d_model, model.n_layer, model.n_head
dh = d // H


def run(ids, patch={}):
    """The forward pass with TransformerLens's hook points: each activation is kept in the cache, after
    patch[name](activation) has replaced it if the name is in patch. → (logits [t, V], cache)."""
    cache = {}

    def hook(name, value):
        cache[name] = patch[name](value) if name in patch else value
        return cache[name]

    x = model.w["wte.weight"][ids] + model.w["wpe.weight"][:t]                        # [t, d]
    for l in range(L):
        x = hook(f"blocks.{l}.hook_resid_pre", x)
        qkv = model.linear(model.layer_norm(x, f"h.{l}.ln_1"), f"h.{l}.attn.c_attn")  # [t, 3d]
        q, k, v = (hook(f"blocks.{l}.attn.hook_{n}", m.view(t, H, dh)) for n, m in zip("qkv", qkv.split(d, dim=-1)))
        scores = torch.einsum("qhc,khc->hqk", q, k) / math.sqrt(dh)                     # [H, t, t]
        pattern = scores.masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(), float("-inf")).softmax(dim=-1)
        z = hook(f"blocks.{l}.attn.hook_z", torch.einsum("hqk,khc->qhc", pattern, v))  # [t, H, d_head]
        x = x + model.linear(z.reshape(t, d), f"h.{l}.attn.c_proj")
        m = F.gelu(model.linear(model.layer_norm(x, f"h.{l}.ln_2"), f"h.{l}.mlp.c_fc"), approximate="tanh")
        x = x + model.linear(m, f"h.{l}.mlp.c_proj")                                   # [t, d]
    return model.layer_norm(x, "ln_f") @ model.w["wte.weight"].T, cache                # [t, V]


def logit_difference(logits):  # at the last position: how much more the target is favoured than the baseline
    return float(logits[-1, target_id] - logits[-1, baseline_id])


def put(name, source, position=None, head=None):
    """A patch: the activation with source's values at one position (all when None) and one head (all when None)."""
    def patched(value):
        value = value.clone()
        rows = slice(None) if position is None else position
        if head is None:
            value[rows] = source[name][rows]
        else:
            value[rows, head] = source[name][rows, head]
        return value
    return patched


with torch.no_grad():
    clean_logits, clean_cache = run(clean)
    corrupted_logits, corrupted_cache = run(corrupted)
    clean_diff, corrupted_diff = logit_difference(clean_logits), logit_difference(corrupted_logits)
    print("logit difference, clean and corrupted:", clean_diff, corrupted_diff)

    def restored(patch):  # 0: as the corrupted run, 1: as the clean run
        return (logit_difference(run(corrupted, patch)[0]) - corrupted_diff) / (clean_diff - corrupted_diff)

    # Denoising: the corrupted run with one clean activation put back.
    resid = torch.tensor([[restored({f"blocks.{l}.hook_resid_pre": put(f"blocks.{l}.hook_resid_pre", clean_cache, position=j)})
                           for j in range(t)] for l in range(L)])
    print("resid_pre patched, layer × position:", resid)
    heads = torch.tensor([[restored({f"blocks.{l}.attn.hook_z": put(f"blocks.{l}.attn.hook_z", clean_cache, head=h)})
                           for h in range(H)] for l in range(L)])
    print("z patched, layer × head:", heads)

    # Attribution patching (Nanda 2023; Syed et al. 2023): the same two grids estimated from one forward and one
    # backward of the corrupted run. Each hook point adds a zero that requires grad, so the run is unchanged and
    # backward() leaves ∂(logit difference)/∂activation in that zero's .grad; a cell's estimate is
    # (clean − corrupted activation) · gradient summed over the entries it patches, divided by the gap as above.
    gradients = {}

    def gradient_at(name):
        def add_zero(value):
            gradients[name] = torch.zeros_like(value, requires_grad=True)
            return value + gradients[name]
        return add_zero

    with torch.enable_grad():
        logits, _ = run(corrupted, {f"blocks.{l}.{n}": gradient_at(f"blocks.{l}.{n}") for l in range(L) for n in ("hook_resid_pre", "attn.hook_z")})
        (logits[-1, target_id] - logits[-1, baseline_id]).backward()

    def estimate(name):  # same shape as the activation: [t, d] or [t, H, d_head]
        return (clean_cache[name] - corrupted_cache[name]) * gradients[name].grad / (clean_diff - corrupted_diff)
    resid_estimate = torch.stack([estimate(f"blocks.{l}.hook_resid_pre").sum(-1) for l in range(L)])     # [L, t]
    heads_estimate = torch.stack([estimate(f"blocks.{l}.attn.hook_z").sum((0, 2)) for l in range(L)])    # [L, H]
    print("resid_pre estimated, layer × position:", resid_estimate)
    print("z estimated, layer × head:", heads_estimate)

    # Path patching (Wang et al., 2022): the clean run with the sender's z from the corrupted run and every
    # other head frozen at its clean z, so the change reaches a receiver only straight from the sender; keep
    # the receiver's q, k or v from that run, then rerun clean with only that input replaced.
    if min(sender) < 0:  # −1: the strongest head of the grid above, among the layers that have a later one
        best = int(heads[:L - 1].flatten().argmax())
        sender = [best // H, best % H]
    sl, sh = min(sender[0], L - 2), min(sender[1], H - 1)
    print("sender:", sl, sh)
    frozen = {f"blocks.{l}.attn.hook_z": put(f"blocks.{l}.attn.hook_z", clean_cache) for l in range(sl, L)}
    frozen[f"blocks.{sl}.attn.hook_z"] = lambda z: torch.cat([clean_cache[f"blocks.{sl}.attn.hook_z"][:, :sh],
                                                                 corrupted_cache[f"blocks.{sl}.attn.hook_z"][:, sh:sh + 1],
                                                                 clean_cache[f"blocks.{sl}.attn.hook_z"][:, sh + 1:]], dim=1)
    _, reached = run(clean, frozen)
    path = torch.tensor([[(logit_difference(run(clean, {f"blocks.{l}.attn.hook_{i}": put(f"blocks.{l}.attn.hook_{i}", reached, head=h)})[0])
                           - clean_diff) / (clean_diff - corrupted_diff) for i in "qkv"]
                         for l in range(sl + 1, L) for h in range(H)])
    print("path patched, receiver (later layers' heads) × q, k, v:", path)

    # Taking away instead of putting back: the clean run with the sender's corrupted z on every path, then
    # with the next head of the grid above (the one that restores most after the sender) corrupted as well.
    def taken_away(heads_out):
        patch = {}
        for l, h in heads_out:
            before = patch.get(f"blocks.{l}.attn.hook_z", lambda z: z)
            patch[f"blocks.{l}.attn.hook_z"] = (lambda z, before=before, l=l, h=h:
                                                put(f"blocks.{l}.attn.hook_z", corrupted_cache, head=h)(before(z)))
        return (logit_difference(run(clean, patch)[0]) - clean_diff) / (clean_diff - corrupted_diff)
    ranked = [(i // H, i % H) for i in heads.flatten().argsort(descending=True, stable=True).tolist()]
    second = next(lh for lh in ranked if lh != (sl, sh))
    print("second head:", *second)
    print("taken away, the sender then it and the second head:", taken_away([(sl, sh)]), taken_away([(sl, sh), second]))
