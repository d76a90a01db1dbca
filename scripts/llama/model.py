"""A Llama-family decoder written out by hand in PyTorch 1.13, as Hugging Face's transformers computes
LlamaForCausalLM, Qwen2ForCausalLM and MistralForCausalLM (Debian has no `transformers` package).

It is attnlab's reference for its C++ core (tests/fixtures/make_llama_fixtures.py runs it in float64)
and the model scripts/llama/train.py trains (float32). One forward, top to bottom:

    x = embed_tokens[ids]                                                   [T, d]
    for each layer:
        h = input_layernorm(x)                                              RMSNorm
        q = q_proj(h), k = k_proj(h), v = v_proj(h)                         [T, H·hd], [T, Hkv·hd] ×2
        q, k = rope(q, positions), rope(k, positions)                       HF's rotate_half pairing
        head h reads key/value head h // (H / Hkv)                          grouped-query attention
        x = x + o_proj(softmax(q·kᵀ/√hd + causal (and window) mask)·v)
        x = x + down_proj(silu(gate_proj(h2)) * up_proj(h2)),  h2 = post_attention_layernorm(x)
    logits = lm_head(norm(x))                                               tied to embed_tokens or not

Names are Hugging Face's (`model.layers.0.self_attn.q_proj.weight`, nn.Linear's [out, in] layout);
the hook points are TransformerLens's (`blocks.0.attn.hook_rot_q`).

RoPE pairing. Hugging Face rotates dimension i of a head together with dimension i + hd/2
(rotate_half). Meta's original Llama code rotates adjacent dimensions (2i, 2i+1) as complex numbers.
HF's conversion script permutes the rows of q_proj and k_proj so that both compute the same scores:
within each head, output row 2i moves to row i and row 2i+1 to row i + hd/2.
"""

import math
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F


@dataclass
class LlamaConfig:
    """The fields of a Hugging Face config.json that decide the forward."""
    model_type: str = "llama"                 # llama | qwen2 | mistral
    vocab_size: int = 0
    hidden_size: int = 0                      # d
    intermediate_size: int = 0                # the SwiGLU hidden width
    num_hidden_layers: int = 0
    num_attention_heads: int = 0              # H
    num_key_value_heads: int = 0              # Hkv, dividing H (1: multi-query; H: multi-head)
    head_dim: int = 0                         # hd (0: d / H)
    rms_norm_eps: float = 1e-6
    rope_theta: float = 10000.0
    rope_scaling: dict = field(default_factory=dict)  # {"rope_type": "llama3", "factor": …} or empty
    max_position_embeddings: int = 2048
    tie_word_embeddings: bool = False
    attention_bias: bool = False              # biases on q, k, v (Qwen2: always) and o (Llama only)
    mlp_bias: bool = False
    sliding_window: int = 0                   # 0: every earlier key; w: the last w keys (the query's own included)
    window_layers: list = field(default_factory=list)  # the layers the window applies to (all when sliding_window)

    @property
    def hd(self):
        return self.head_dim or self.hidden_size // self.num_attention_heads

    @staticmethod
    def from_hf(c):
        """A config.json dict → LlamaConfig, reading each family's fields as transformers does."""
        kind = c["model_type"]
        L = c["num_hidden_layers"]
        cfg = LlamaConfig(
            model_type=kind, vocab_size=c["vocab_size"], hidden_size=c["hidden_size"],
            intermediate_size=c["intermediate_size"], num_hidden_layers=L,
            num_attention_heads=c["num_attention_heads"],
            num_key_value_heads=c.get("num_key_value_heads") or c["num_attention_heads"],
            head_dim=c.get("head_dim") or 0, rms_norm_eps=c.get("rms_norm_eps", 1e-6),
            rope_theta=c.get("rope_theta", 10000.0), rope_scaling=c.get("rope_scaling") or {},
            max_position_embeddings=c.get("max_position_embeddings", 2048),
            tie_word_embeddings=c.get("tie_word_embeddings", False),
            attention_bias=c.get("attention_bias", False), mlp_bias=c.get("mlp_bias", False))
        if kind == "qwen2":
            cfg.attention_bias = True  # Qwen2Attention: q, k, v with bias, o_proj without
            if c.get("use_sliding_window") and c.get("sliding_window"):
                cfg.sliding_window = c["sliding_window"]
                cfg.window_layers = list(range(c.get("max_window_layers", L), L))
        elif kind == "mistral" and c.get("sliding_window"):
            cfg.sliding_window = c["sliding_window"]
            cfg.window_layers = list(range(L))
        return cfg

    def layer_window(self, layer):
        return self.sliding_window if layer in self.window_layers else 0


def o_proj_has_bias(cfg):
    return cfg.attention_bias and cfg.model_type != "qwen2"


def tensor_shapes(cfg):
    """Every tensor of a checkpoint, Hugging Face's name → shape, in the order a model lists them."""
    d, hd, H, Hkv, m = cfg.hidden_size, cfg.hd, cfg.num_attention_heads, cfg.num_key_value_heads, cfg.intermediate_size
    shapes = {"model.embed_tokens.weight": (cfg.vocab_size, d)}
    for l in range(cfg.num_hidden_layers):
        p = f"model.layers.{l}."
        shapes[p + "input_layernorm.weight"] = (d,)
        for name, rows in (("q_proj", H * hd), ("k_proj", Hkv * hd), ("v_proj", Hkv * hd)):
            shapes[p + f"self_attn.{name}.weight"] = (rows, d)
            if cfg.attention_bias:
                shapes[p + f"self_attn.{name}.bias"] = (rows,)
        shapes[p + "self_attn.o_proj.weight"] = (d, H * hd)
        if o_proj_has_bias(cfg):
            shapes[p + "self_attn.o_proj.bias"] = (d,)
        shapes[p + "post_attention_layernorm.weight"] = (d,)
        for name, shape in (("gate_proj", (m, d)), ("up_proj", (m, d)), ("down_proj", (d, m))):
            shapes[p + f"mlp.{name}.weight"] = shape
            if cfg.mlp_bias:
                shapes[p + f"mlp.{name}.bias"] = (shape[0],)
    shapes["model.norm.weight"] = (d,)
    if not cfg.tie_word_embeddings:
        shapes["lm_head.weight"] = (cfg.vocab_size, d)
    return shapes


# ---- the pieces ----

def rms_norm(x, weight, eps, hook=None, name=None):
    # x [..., d] → weight ⊙ x / √(mean(x²) + eps), the mean taken in float32 at least, as HF's LlamaRMSNorm;
    # hooks <name>.hook_scale [..., 1] and <name>.hook_normalized (before the weight, as TransformerLens's RMSNorm)
    dtype = x.dtype
    xf = x.to(torch.float64 if dtype == torch.float64 else torch.float32)
    scale = (xf.pow(2).mean(-1, keepdim=True) + eps).sqrt()
    if hook is not None:  # through the hooks, which may replace either point
        scale = hook(name + ".hook_scale", scale.to(dtype)).to(xf.dtype)
        return weight * hook(name + ".hook_normalized", (xf / scale).to(dtype))
    xf = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return weight * xf.to(dtype)


def rope_inv_freq(cfg, dtype=torch.float64):
    # [hd/2]: how fast pair i turns, theta^(−2i/hd), with Llama 3's long-context rescaling if configured
    hd = cfg.hd
    inv_freq = 1.0 / (cfg.rope_theta ** (torch.arange(0, hd, 2, dtype=torch.float64) / hd))
    s = cfg.rope_scaling
    if s and s.get("rope_type", s.get("type")) == "llama3":
        factor, low, high = s["factor"], s["low_freq_factor"], s["high_freq_factor"]
        old = s["original_max_position_embeddings"]
        wavelen = 2 * math.pi / inv_freq
        scaled = torch.where(wavelen > old / low, inv_freq / factor, inv_freq)  # long waves: slowed by factor
        smooth = (old / wavelen - low) / (high - low)
        blended = (1 - smooth) * scaled / factor + smooth * scaled             # between: a blend
        medium = (wavelen >= old / high) & (wavelen <= old / low)
        inv_freq = torch.where(medium, blended, scaled)
    return inv_freq.to(dtype)


def rope_cos_sin(cfg, positions, dtype):
    # positions [T] → cos, sin [T, hd], each angle written twice (dimension i and i + hd/2 share it)
    # (HF computes the angles in float32; the float64 reference computes them in float64)
    angle_dtype = torch.float64 if dtype == torch.float64 else torch.float32
    angles = positions.to(angle_dtype)[:, None] * rope_inv_freq(cfg, angle_dtype)[None, :]
    angles = torch.cat([angles, angles], dim=-1)
    return angles.cos().to(dtype), angles.sin().to(dtype)


def rotate_half(x):
    # [..., hd] → [−x2, x1] with x1, x2 the two halves: the pairing of dimension i with i + hd/2
    half = x.shape[-1] // 2
    return torch.cat([-x[..., half:], x[..., :half]], dim=-1)


def apply_rope(x, cos, sin):
    # x [heads, T, hd], cos/sin [T, hd] → each pair (i, i + hd/2) turned by its position's angle
    return x * cos + rotate_half(x) * sin


def attention_mask(T_q, T_k, window=0, offset=None, device=None):
    # [T_q, T_k] of bool, True = may attend: key j ≤ query i (the query's position is offset + i, the
    # cache holding the T_k − T_q keys before it), and with a window, i − j < window
    offset = T_k - T_q if offset is None else offset
    i = torch.arange(T_q, device=device)[:, None] + offset
    j = torch.arange(T_k, device=device)[None, :]
    allowed = j <= i
    if window:
        allowed = allowed & (i - j < window)
    return allowed


def linear(x, state, name, has_bias):
    return F.linear(x, state[name + ".weight"], state.get(name + ".bias") if has_bias else None)


# ---- the forward ----

def forward(cfg, state, ids, hooks=None, positions=None, dropout=0.0, ablate=(), patches=None):
    """ids [T] (one sequence) or [B, T] → logits [T, V] or [B, T, V].

    state: Hugging Face's tensor names → tensors (any one dtype). hooks: a dict that receives every
    TransformerLens hook point of the first sequence (shapes as TransformerLens for one sequence:
    hook_q [T, H, hd], hook_k/hook_v [T, Hkv, hd], hook_pattern [H, T, T]). positions: the RoPE
    positions [T] (default 0 … T−1). dropout: training's dropout on the attention weights and on each
    residual branch. ablate: (layer, head) pairs whose output (hook_z) is set to zero. patches:
    TransformerLens's hook functions for one sequence, a hook name → fn(value) returning the value the
    forward goes on with (value in the shape `hooks` gives, a copy)."""
    single = ids.dim() == 1
    ids = ids[None] if single else ids
    B, T = ids.shape
    d, H, Hkv, hd = cfg.hidden_size, cfg.num_attention_heads, cfg.num_key_value_heads, cfg.hd
    group = H // Hkv
    dtype = state["model.embed_tokens.weight"].dtype
    assert patches is None or B == 1, "patches are for one sequence"

    def hook(name, value):  # value [B, …] → the value the forward goes on with
        if patches is not None and name in patches:
            value = patches[name](value[0].clone())[None]
        if hooks is not None:
            hooks[name] = value[0].detach().clone()
        return value
    hooked = hooks is not None or patches is not None
    drop = (lambda t: F.dropout(t, dropout, training=True)) if dropout else (lambda t: t)
    positions = torch.arange(T) if positions is None else positions
    cos, sin = rope_cos_sin(cfg, positions, dtype)

    x = state["model.embed_tokens.weight"][ids]                                  # [B, T, d]
    x = hook("hook_embed", x)
    for l in range(cfg.num_hidden_layers):
        p, b = f"model.layers.{l}.", f"blocks.{l}."
        x = hook(b + "hook_resid_pre", x)
        h = rms_norm(x, state[p + "input_layernorm.weight"], cfg.rms_norm_eps, hook if hooked else None, b + "ln1")
        q = linear(h, state, p + "self_attn.q_proj", cfg.attention_bias).view(B, T, H, hd)    # [B, T, H, hd]
        k = linear(h, state, p + "self_attn.k_proj", cfg.attention_bias).view(B, T, Hkv, hd)  # [B, T, Hkv, hd]
        v = linear(h, state, p + "self_attn.v_proj", cfg.attention_bias).view(B, T, Hkv, hd)
        q, k, v = hook(b + "attn.hook_q", q), hook(b + "attn.hook_k", k), hook(b + "attn.hook_v", v)
        q = apply_rope(q.transpose(1, 2), cos, sin)                              # [B, H, T, hd]
        k = apply_rope(k.transpose(1, 2), cos, sin)                              # [B, Hkv, T, hd]
        q = hook(b + "attn.hook_rot_q", q.transpose(1, 2)).transpose(1, 2)
        k = hook(b + "attn.hook_rot_k", k.transpose(1, 2)).transpose(1, 2)
        k = k.repeat_interleave(group, dim=1)                                    # query head h reads kv head h // group
        vh = v.transpose(1, 2).repeat_interleave(group, dim=1)                   # [B, H, T, hd]
        scores = q @ k.transpose(-1, -2) / math.sqrt(hd)                         # [B, H, T, T]
        allowed = attention_mask(T, T, cfg.layer_window(l))
        scores = scores.masked_fill(~allowed, float("-inf"))
        scores = hook(b + "attn.hook_attn_scores", scores)
        pattern = torch.softmax(scores, dim=-1)
        pattern = hook(b + "attn.hook_pattern", pattern)
        z = (drop(pattern) @ vh).transpose(1, 2)                                 # [B, T, H, hd]
        for layer, head in ablate:
            if layer == l:
                z = z.clone()
                z[:, :, head] = 0
        z = hook(b + "attn.hook_z", z)
        attn_out = linear(z.reshape(B, T, H * hd), state, p + "self_attn.o_proj", o_proj_has_bias(cfg))
        attn_out = hook(b + "hook_attn_out", attn_out)
        x = x + drop(attn_out)
        x = hook(b + "hook_resid_mid", x)
        h = rms_norm(x, state[p + "post_attention_layernorm.weight"], cfg.rms_norm_eps, hook if hooked else None, b + "ln2")
        gate = linear(h, state, p + "mlp.gate_proj", cfg.mlp_bias)               # [B, T, m]
        up = linear(h, state, p + "mlp.up_proj", cfg.mlp_bias)
        gate, up = hook(b + "mlp.hook_pre", gate), hook(b + "mlp.hook_pre_linear", up)
        act = F.silu(gate) * up
        act = hook(b + "mlp.hook_post", act)
        mlp_out = linear(act, state, p + "mlp.down_proj", cfg.mlp_bias)          # [B, T, d]
        mlp_out = hook(b + "hook_mlp_out", mlp_out)
        x = x + drop(mlp_out)
        x = hook(b + "hook_resid_post", x)
    x = rms_norm(x, state["model.norm.weight"], cfg.rms_norm_eps, hook if hooked else None, "ln_final")
    unembed = state["model.embed_tokens.weight" if cfg.tie_word_embeddings else "lm_head.weight"]
    logits = x @ unembed.T                                                       # [B, T, V]
    return logits[0] if single else logits


def streaming_forward(cfg, state, ids, sinks, window):
    """StreamingLLM (Xiao et al. 2023): ids [N] read one token at a time through a cache that keeps the
    first `sinks` tokens and the last `window` tokens (the current one included) → logits [N, V].

    Keys are cached before rotation, and RoPE uses positions within the cache: the cache's i-th entry
    has position i, the current query the last one. With sinks = 0 this is a plain window cache."""
    L, Hkv, hd = cfg.num_hidden_layers, cfg.num_key_value_heads, cfg.hd
    group = cfg.num_attention_heads // Hkv
    dtype = state["model.embed_tokens.weight"].dtype
    cache = [([], [], []) for _ in range(L)]   # per layer: token indices, keys before rotation, values
    logits = []
    for t in range(len(ids)):
        x = state["model.embed_tokens.weight"][ids[t]][None]                     # [1, d]
        for l in range(L):
            p = f"model.layers.{l}."
            index, keys, values = cache[l]
            h = rms_norm(x, state[p + "input_layernorm.weight"], cfg.rms_norm_eps)
            q = linear(h, state, p + "self_attn.q_proj", cfg.attention_bias).view(-1, hd)      # [H, hd]
            k = linear(h, state, p + "self_attn.k_proj", cfg.attention_bias).view(Hkv, hd)
            v = linear(h, state, p + "self_attn.v_proj", cfg.attention_bias).view(Hkv, hd)
            index.append(t), keys.append(k), values.append(v)
            keep = [i for i, s in enumerate(index) if s < sinks or s > t - window]   # evict the middle
            cache[l] = (index, keys, values) = ([index[i] for i in keep], [keys[i] for i in keep], [values[i] for i in keep])
            n = len(index)
            cos, sin = rope_cos_sin(cfg, torch.arange(n), dtype)
            K = apply_rope(torch.stack(keys, dim=1), cos, sin)                   # [Hkv, n, hd] at cache positions
            Q = apply_rope(q[:, None, :], cos[-1:], sin[-1:])                    # [H, 1, hd] at position n − 1
            K = K.repeat_interleave(group, dim=0)
            V = torch.stack(values, dim=1).repeat_interleave(group, dim=0)
            weights = torch.softmax(Q @ K.transpose(-1, -2) / math.sqrt(hd), dim=-1)
            z = (weights @ V).transpose(0, 1).reshape(1, -1)                     # [1, H·hd]
            x = x + linear(z, state, p + "self_attn.o_proj", o_proj_has_bias(cfg))
            h = rms_norm(x, state[p + "post_attention_layernorm.weight"], cfg.rms_norm_eps)
            act = F.silu(linear(h, state, p + "mlp.gate_proj", cfg.mlp_bias)) * linear(h, state, p + "mlp.up_proj", cfg.mlp_bias)
            x = x + linear(act, state, p + "mlp.down_proj", cfg.mlp_bias)
        x = rms_norm(x, state["model.norm.weight"], cfg.rms_norm_eps)
        unembed = state["model.embed_tokens.weight" if cfg.tie_word_embeddings else "lm_head.weight"]
        logits.append((x @ unembed.T)[0])
    return torch.stack(logits)


def init_state(cfg, seed, dtype=torch.float32):
    """Hugging Face's initialisation (normal(0, 0.02) for every matrix, norms 1, biases 0), with the two
    projections that write into the residual stream (o_proj, down_proj) scaled by 1/√(2L) as GPT-2 does."""
    g = torch.Generator().manual_seed(seed)
    state = {}
    for name, shape in tensor_shapes(cfg).items():
        if name.endswith("norm.weight"):
            state[name] = torch.ones(shape, dtype=dtype)
        elif name.endswith(".bias"):
            state[name] = torch.zeros(shape, dtype=dtype)
        else:
            std = 0.02 / math.sqrt(2 * cfg.num_hidden_layers) if name.endswith(("o_proj.weight", "down_proj.weight")) else 0.02
            state[name] = torch.normal(0.0, std, shape, generator=g).to(dtype)
    return state
