# ---- The induction circuit: composition and copying from the weights, then a knock-out ----
T = 30  # page setting: length
seed = 0  # page setting: seed
mode = "zero"  # page setting: mode

model = GPT2("model.safetensors")
T = max(2, min(T, model.context_length // 2))
low, high = (256, model.vocab_size - 1) if model.vocab_size > 300 else (0, model.vocab_size)
SAMPLES = 4  # random sequences per score, seeds seed … seed + 3, averaged
L, H, d = model.n_layer, model.n_head, model.d_model
dh = d // H

with torch.no_grad():
    def scores(knock_out=()):
        """Each head's previous-token score (weight on i − 1 from every i ≥ 1) and induction score (weight
        from each token of the second copy on the token after its first occurrence): [L, H] each."""
        previous, induction = torch.zeros(L, H, dtype=torch.float64), torch.zeros(L, H, dtype=torch.float64)
        i, j = torch.arange(1, 2 * T), torch.arange(T, 2 * T)
        for s in range(SAMPLES):
            A = torch.stack(model.forward(repeated_random_tokens(T, low, high, seed + s), knock_out=knock_out,
                                          knock_out_with=mode)[1]).double()  # [L, H, 2T, 2T]
            previous += A[:, :, i, i - 1].mean(-1) / SAMPLES
            induction += A[:, :, j, j - T + 1].mean(-1) / SAMPLES
        return previous, induction

    previous, induction = scores()
    ranked = sorted(range(H), key=lambda h: -previous[0, h])  # layer-0 heads, best previous-token head first
    prev, second = (0, ranked[0]), (0, ranked[1])
    later = [(l, h) for l in range(1, L) for h in range(H)]
    ind = max(later, key=lambda lh: induction[lh])
    print("previous-token scores:", previous)
    print("induction scores:", induction)
    print("circuit (previous-token head, runner-up, induction head):", [*prev, *second, *ind])

    # Each head's QK = W_Q W_Kᵀ and OV = W_V W_O (d × d, row vectors: x @ W), from c_attn's and c_proj's columns;
    # with fold, the block's ln_1 weight folded into the rows of W_Q, W_K, W_V, which are then centred over d (a
    # LayerNorm's output has mean 0); with centre_writing, W_O centred over d: TransformerLens's processing.
    def circuits(fold=False, centre_writing=False):
        QK, OV = {}, {}
        for l in range(L):
            W = model.w[f"h.{l}.attn.c_attn.weight"].double()  # [d, 3d]: Q, K, V side by side
            W_out = model.w[f"h.{l}.attn.c_proj.weight"].double()  # [d, d]
            ln = model.w[f"h.{l}.ln_1.weight"].double()[:, None]  # [d, 1]
            for h in range(H):
                cols = slice(h * dh, (h + 1) * dh)
                W_Q, W_K, W_V, W_O = W[:, :d][:, cols], W[:, d:2 * d][:, cols], W[:, 2 * d:][:, cols], W_out[cols]
                if fold:
                    W_Q, W_K, W_V = (ln * M - (ln * M).mean(0) for M in (W_Q, W_K, W_V))
                if centre_writing:
                    W_O = W_O - W_O.mean(1, keepdim=True)
                QK[l, h], OV[l, h] = W_Q @ W_K.T, W_V @ W_O
        return QK, OV

    QK, OV = circuits()

    def composition(A, B):  # ‖A B‖ / (‖A‖ ‖B‖), Frobenius norms
        return float(torch.linalg.norm(A @ B) / (torch.linalg.norm(A) * torch.linalg.norm(B)))

    # K-composition: what head a writes (OV_a) read by head b's keys (QK_bᵀ), every a before b.
    k_comp = {(a, b): composition(OV[a], QK[b].T) for a in OV for b in QK if b[0] > a[0]}
    print("K-composition, layer-0 heads to later heads:", [k_comp[(0, a), b] for a in range(H) for b in later])
    print("K-composition, previous-token head to induction head:", k_comp[prev, ind])
    best = max(k_comp, key=k_comp.get)
    print("largest K-composition (from layer, head, to layer, head, score):", [*best[0], *best[1], k_comp[best]])
    # The baseline: random factors of the same shapes (uniform in [-1, 1]); torch's draws, not the page's.
    g = torch.Generator().manual_seed(seed)
    factor = lambda *shape: torch.rand(*shape, generator=g, dtype=torch.float64) * 2 - 1
    print("random baseline (torch's own 200 draws):",
          sum(composition(factor(d, dh) @ factor(dh, d), factor(d, dh) @ factor(dh, d)) for _ in range(200)) / 200)

    # Copying: the eigenvalues of the full OV circuit W_E OV W_Eᵀ [V × V] are, but for zeros, those of
    # OV W_Eᵀ W_E [d × d]; Σλ / Σ|λ| is 1 for a head that writes the token it attends to.
    def copying_scores(OV, fold=False, centre_writing=False, centre_unembed=False):
        W_E = model.w["wte.weight"].double()  # [V, d]
        W_U = W_E.T                            # [d, V], tied
        if fold:  # ln_f's weight into W_U, which then reads a mean-0 input: centred over d
            W_U = model.w["ln_f.weight"].double()[:, None] * W_U
            W_U = W_U - W_U.mean(0)
        if centre_writing:
            W_E = W_E - W_E.mean(1, keepdim=True)
        if centre_unembed:  # every logit shifted by the same amount: softmax ignores it, the eigenvalues do not
            W_U = W_U - W_U.mean(1, keepdim=True)
        copying = torch.zeros(L, H, dtype=torch.float64)
        for (l, h), M in OV.items():
            lam = torch.linalg.eigvals(M @ W_U @ W_E)
            copying[l, h] = lam.sum().real / lam.abs().sum()
        return copying

    copying = copying_scores(OV)
    print("copying scores:", copying)

    # The same two readings under TransformerLens's processing, step by step (the page's table): raw, LayerNorms
    # folded, writing weights centred too, the unembedding centred too (which no composition reads).
    steps = [(False, False, False), (True, False, False), (True, True, False), (True, True, True)]
    print("K-composition, previous-token head to induction head, under each processing:",
          [composition(OV_p[prev], QK_p[ind].T) for f, c, _ in steps for QK_p, OV_p in [circuits(f, c)]])
    print("induction head's copying score, under each processing:",
          [float(copying_scores(circuits(f, c)[1], f, c, u)[ind]) for f, c, u in steps])

    # Knock the previous-token head out, then it and the runner-up: the induction head's score.
    print("induction score (intact, previous-token head out, both out):",
          [induction[ind], scores([prev])[1][ind], scores([prev, second])[1][ind]])
