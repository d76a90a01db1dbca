# ---- Today's attention: attnlab-kjv-llama, a Llama-family model, read from a Hugging Face folder ----
# The folder kjv-llama/ beside this program holds config.json, model.safetensors and tokenizer.json (the
# links under this code). It reads as LlamaForCausalLM computes (Llama 3, Qwen2.5, Mistral and SmolLM2 differ
# from it only in their config): the forward from top to bottom, shapes in the comments (t tokens, d = d_model,
# H query heads and Hkv key/value heads of hd numbers each, V tokens in the vocabulary). Its tokenizer.json holds
# attnlab-kjv's vocabulary and merges, so the Tokenizer above reads text for both models.


class Llama:
    """A Llama-family decoder with the weights of a Hugging Face folder, in Hugging Face's tensor names
    (model.layers.0.self_attn.q_proj.weight …). Its linear layers are nn.Linear: weight [out, in], y = x @ W.T."""

    def __init__(self, folder="kjv-llama"):
        with open(f"{folder}/config.json", encoding="utf-8") as f:
            self.config = json.load(f)
        self.w, _ = load_safetensors(f"{folder}/model.safetensors")          # float16 on disk, float32 here
        c = self.config
        self.n_layer, self.n_head = c["num_hidden_layers"], c["num_attention_heads"]
        self.n_kv_head = c.get("num_key_value_heads") or self.n_head             # 1: multi-query; n_head: multi-head
        self.d_model, self.vocab_size = c["hidden_size"], c["vocab_size"]
        self.d_head = c.get("head_dim") or self.d_model // self.n_head
        self.context_length = c["max_position_embeddings"]                       # the longest text it was trained on
        self.rope_theta, self.eps = c.get("rope_theta", 10000.0), c.get("rms_norm_eps", 1e-6)
        self.unembed = self.w["model.embed_tokens.weight" if c.get("tie_word_embeddings") else "lm_head.weight"]

    def rms_norm(self, x, name):  # x [t, d] → weight ⊙ x / √(mean(x²) + eps): no mean removed, no bias
        return self.w[name + ".weight"] * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

    def linear(self, x, name):  # nn.Linear: x [t, in] @ W.T [in, out] (+ b, where the config has biases: Qwen2's q, k, v)
        bias = self.w.get(name + ".bias")
        return x @ self.w[name + ".weight"].T + (0 if bias is None else bias)

    def inv_freq(self):  # [hd/2]: how fast pair i turns, theta^(−2i/hd) radians per position
        return self.rope_theta ** -(torch.arange(0, self.d_head, 2, dtype=torch.float32) / self.d_head)

    def rotate(self, x, positions):
        """RoPE as Hugging Face applies it: x [heads, t, hd]; dimension i is paired with i + hd/2 (rotate_half), and
        the pair (x_i, x_{i+hd/2}) at position p turned by the angle p · inv_freq[i]. (Meta's original code pairs
        neighbours 2i, 2i+1; converted checkpoints have q_proj's and k_proj's rows permuted to match.)"""
        angles = positions.float()[:, None] * self.inv_freq()[None, :]        # [t, hd/2]
        cos, sin = angles.cos().repeat(1, 2), angles.sin().repeat(1, 2)         # [t, hd]: each angle for both halves
        half = self.d_head // 2
        rotated_half = torch.cat([-x[..., half:], x[..., :half]], dim=-1)      # (x1, x2) → (−x2, x1)
        return x * cos + rotated_half * sin

    def mlp(self, x, layer):  # SwiGLU: x [t, d] → down(silu(gate(x)) ⊙ up(x)) [t, d], through a hidden [t, m]
        p = f"model.layers.{layer}.mlp."
        return self.linear(F.silu(self.linear(x, p + "gate_proj")) * self.linear(x, p + "up_proj"), p + "down_proj")

    def run(self, ids, positions=None, window=0):
        """ids: t token ids → (logits [t, V], cache). positions: RoPE's position of each token (default 0 … t−1);
        window: if w > 0, each token sees only the last w tokens, itself included (Mistral's sliding window).
        cache: every activation by TransformerLens's hook names (blocks.0.attn.hook_rot_q …)."""
        t, H, Hkv, hd = len(ids), self.n_head, self.n_kv_head, self.d_head
        positions = torch.arange(t) if positions is None else torch.as_tensor(positions)
        cache = {}
        x = self.w["model.embed_tokens.weight"][ids]                                       # [t, d]: no position added
        for l in range(self.n_layer):
            p, b = f"model.layers.{l}.", f"blocks.{l}."
            cache[b + "hook_resid_pre"] = x
            h = self.rms_norm(x, p + "input_layernorm")
            q = self.linear(h, p + "self_attn.q_proj").view(t, H, hd)                      # [t, H, hd]
            k = self.linear(h, p + "self_attn.k_proj").view(t, Hkv, hd)                    # [t, Hkv, hd]
            v = self.linear(h, p + "self_attn.v_proj").view(t, Hkv, hd)
            rot_q = self.rotate(q.transpose(0, 1), positions)                                # [H, t, hd]
            rot_k = self.rotate(k.transpose(0, 1), positions)                                # [Hkv, t, hd]
            group = H // Hkv                                # grouped-query attention: query head h reads kv head h // group
            scores = rot_q @ rot_k.repeat_interleave(group, dim=0).transpose(1, 2) / math.sqrt(hd)  # [H, t, t]
            i, j = torch.arange(t)[:, None], torch.arange(t)[None, :]
            may_attend = (j <= i) & ((i - j < window) if window else True)                  # causal (and the window)
            scores = scores.masked_fill(~may_attend, float("-inf"))
            pattern = scores.softmax(dim=-1)                                                 # [H, t, t]
            z = (pattern @ v.transpose(0, 1).repeat_interleave(group, dim=0)).transpose(0, 1)  # [t, H, hd]
            attn_out = self.linear(z.reshape(t, H * hd), p + "self_attn.o_proj")            # [t, d]
            x = x + attn_out
            mlp_out = self.mlp(self.rms_norm(x, p + "post_attention_layernorm"), l)
            x = x + mlp_out
            cache.update({b + "attn.hook_q": q, b + "attn.hook_k": k, b + "attn.hook_v": v,
                          b + "attn.hook_rot_q": rot_q.transpose(0, 1), b + "attn.hook_rot_k": rot_k.transpose(0, 1),
                          b + "attn.hook_attn_scores": scores, b + "attn.hook_pattern": pattern, b + "attn.hook_z": z,
                          b + "hook_attn_out": attn_out, b + "hook_mlp_out": mlp_out, b + "hook_resid_post": x})
        return self.rms_norm(x, "model.norm") @ self.unembed.T, cache                                                   # [t, V]
