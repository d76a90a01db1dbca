"""Trains attnlab-kjv-llama: a Llama-architecture model (grouped-query attention, RoPE, RMSNorm, SwiGLU,
no position embedding) on the King James text attnlab-kjv was trained on, with its tokenizer and its
parameter and token budgets.

    /usr/bin/python3 scripts/llama/train.py --config web/models/kjv-llama/training-config.json \
        --tokens build/kjv-tokens --out web/models/kjv-llama [--resume] [--stop-after STEP]

scripts/train-llama.sh makes the token streams (cpp/train/kjv_tokens.cpp) and runs this. Writes, in
OUT: config.json, model.safetensors (F16, the evaluation with the lowest held-out loss) and
tokenizer.json as Hugging Face saves a LlamaForCausalLM, and training-log.jsonl (the setup, every step,
every evaluation, every stop and resume, the summary). Every evaluation saves checkpoint.pt (weights,
AdamW state, the step), as does a stop — --stop-after STEP (after STEP steps), SIGTERM or SIGINT (once
the step under way is done): --resume continues from it and computes what the uninterrupted run would,
because each step's data and dropout come from its step number alone, never from a running RNG.
tests/js/llama-training.test.js reruns the first steps and compares them with the committed log.
"""

import argparse
import json
import math
import os
import signal
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checkpoint  # noqa: E402
import model  # noqa: E402


def read_ids(path):
    return np.fromfile(path, dtype="<u2").astype(np.int64)


def hf_config(run):
    """The run's model as a Hugging Face LlamaForCausalLM config.json."""
    m = run["model"]
    return {
        "architectures": ["LlamaForCausalLM"], "model_type": "llama",
        "vocab_size": run["tokenizer"]["vocab_size"], "hidden_size": m["hidden_size"],
        "intermediate_size": m["intermediate_size"], "num_hidden_layers": m["num_hidden_layers"],
        "num_attention_heads": m["num_attention_heads"], "num_key_value_heads": m["num_key_value_heads"],
        "head_dim": m["hidden_size"] // m["num_attention_heads"], "max_position_embeddings": m["context_length"],
        "rms_norm_eps": m["rms_norm_eps"], "rope_theta": m["rope_theta"], "rope_scaling": None,
        "tie_word_embeddings": True, "attention_bias": False, "mlp_bias": False, "hidden_act": "silu",
        "bos_token_id": None, "eos_token_id": run["tokenizer"]["vocab_size"] - 1, "torch_dtype": "float16",
    }


def lr_at(step, t):
    """Linear warm-up, cosine to min_lr at schedule_steps, then min_lr (attnlab-kjv's schedule)."""
    if step < t["warmup_steps"]:
        return t["max_lr"] * (step + 1) / t["warmup_steps"]
    if step >= t["schedule_steps"]:
        return t["min_lr"]
    progress = (step - t["warmup_steps"]) / (t["schedule_steps"] - t["warmup_steps"])
    return t["min_lr"] + 0.5 * (1 + math.cos(math.pi * progress)) * (t["max_lr"] - t["min_lr"])


def repeat_fraction_at(step, t):
    """The share of windows that are one passage read over and over (as attnlab-kjv's run)."""
    progress = min(1.0, step / max(1, t["schedule_steps"] - 1))
    if progress <= t["repeat_decay_start"]:
        return t["repeat_fraction"]
    s = (progress - t["repeat_decay_start"]) / (1 - t["repeat_decay_start"])
    return t["repeat_fraction"] + s * (t["repeat_fraction_final"] - t["repeat_fraction"])


def batch_at(step, train, T, V, t):
    """Step `step`'s windows [batch, T + 1], from an RNG seeded by (data_seed, step) alone. A window is
    T + 1 consecutive training tokens, or (with the repeat share) a passage of 8–64 tokens read again
    and again, half of them random learned tokens: what lets induction heads form early."""
    rng = np.random.default_rng([t["data_seed"], step])
    share = repeat_fraction_at(step, t)
    windows = np.empty((t["batch"], T + 1), dtype=np.int64)
    for row in range(t["batch"]):
        if rng.random() < share:
            length = int(rng.integers(t["repeat_min_tokens"], t["repeat_max_tokens"] + 1))
            if rng.random() < t["repeat_random_fraction"]:
                passage = rng.integers(256, V - 1, size=length)   # learned tokens, not bytes or <|endoftext|>
            else:
                start = int(rng.integers(0, len(train) - length))
                passage = train[start:start + length]
            windows[row] = np.resize(passage, T + 1)
        else:
            start = int(rng.integers(0, len(train) - T))
            windows[row] = train[start:start + T + 1]
    return torch.from_numpy(windows)


@torch.no_grad()
def heldout_loss(cfg, state, heldout, T, batch=16):
    """Mean cross-entropy over the held-out stream cut into windows of T + 1 tokens, stride T (each
    held-out token after the first scored once), as train_kjv scores attnlab-kjv."""
    starts = list(range(0, len(heldout) - T, T))
    total, count = 0.0, 0
    for i in range(0, len(starts), batch):
        w = torch.from_numpy(np.stack([heldout[s:s + T + 1] for s in starts[i:i + batch]]))
        logits = model.forward(cfg, state, w[:, :-1])
        total += F.cross_entropy(logits.reshape(-1, logits.shape[-1]), w[:, 1:].reshape(-1), reduction="sum").item()
        count += w[:, 1:].numel()
    return total / count


@torch.no_grad()
def head_scores(cfg, state, heldout, V, T):
    """Per head (layer-major): previous-token (weight i → i−1) and first-token (weight on position 0)
    on the first held-out window; induction (weight i → i−R+1 on R = 50 random learned tokens repeated
    once) and duplicate-token (i → i−R), the definitions in docs/models.md."""
    hooks = {}
    model.forward(cfg, state, torch.from_numpy(heldout[:T]), hooks=hooks)
    R = 50
    rng = np.random.default_rng(12345)
    seq = rng.integers(256, V - 1, size=R)
    rep_hooks = {}
    model.forward(cfg, state, torch.from_numpy(np.concatenate([seq, seq])), hooks=rep_hooks)
    scores = {"previous_token": [], "first_token": [], "induction": [], "duplicate_token": []}
    for l in range(cfg.num_hidden_layers):
        p = hooks[f"blocks.{l}.attn.hook_pattern"]          # [H, T, T]
        r = rep_hooks[f"blocks.{l}.attn.hook_pattern"]      # [H, 2R, 2R]
        i = torch.arange(R, 2 * R)
        for h in range(cfg.num_attention_heads):
            scores["previous_token"].append(round(p[h, torch.arange(1, T), torch.arange(0, T - 1)].mean().item(), 4))
            scores["first_token"].append(round(p[h, 1:, 0].mean().item(), 4))
            scores["induction"].append(round(r[h, i, i - R + 1].mean().item(), 4))
            scores["duplicate_token"].append(round(r[h, i, i - R].mean().item(), 4))
    return scores


def log_line(log, record):
    log.write(json.dumps(record) + "\n")
    log.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    ap.add_argument("--tokens", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--stop-after", type=int, default=-1)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    args = ap.parse_args()
    torch.set_num_threads(args.threads)

    run = json.load(open(args.config))
    t, m = run["training"], run["model"]
    train, heldout = read_ids(f"{args.tokens}/train.u16"), read_ids(f"{args.tokens}/heldout.u16")
    V, T = run["tokenizer"]["vocab_size"], m["context_length"]
    config = hf_config(run)
    cfg = model.LlamaConfig.from_hf(config)

    state = model.init_state(cfg, t["init_seed"])
    params = {name: torch.nn.Parameter(v) for name, v in state.items()}
    decay = [p for n, p in params.items() if p.dim() == 2]
    no_decay = [p for n, p in params.items() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": t["weight_decay"]},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=t["max_lr"], betas=(t["beta1"], t["beta2"]), eps=1e-8)
    ckpt_path, log_path = f"{args.out}/checkpoint.pt", f"{args.out}/training-log.jsonl"
    start, best = 0, {"loss": float("inf"), "step": -1}
    if args.resume:
        ck = torch.load(ckpt_path)
        with torch.no_grad():
            for n, p in params.items():
                p.copy_(ck["params"][n])
        opt.load_state_dict(ck["optimizer"])
        start, best = ck["step"], ck["best"]
        # The log is cut back to the checkpoint's step, then says where the run stopped and resumed.
        kept, last_step = [], -1
        for line in open(log_path):
            r = json.loads(line)
            if r["type"] == "step":
                last_step = r["step"]
            if r["type"] == "step" and r["step"] >= start:
                continue
            if r["type"] == "eval" and r["step"] > start:
                continue
            kept.append(line)
        with open(log_path, "w") as f:
            f.writelines(kept)
        log = open(log_path, "a")
        log_line(log, {"type": "resume", "from_step": start, "last_logged_step": last_step,
                       "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "threads": args.threads})
    else:
        os.makedirs(args.out, exist_ok=True)
        log = open(log_path, "w")
        n_params = sum(p.numel() for p in params.values())
        log_line(log, {"type": "setup", "config": run, "hf_config": config, "parameters": n_params,
                       "train_tokens": int(len(train)), "heldout_tokens": int(len(heldout)),
                       "torch": torch.__version__, "threads": args.threads,
                       "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
        vocab = json.load(open(run["tokenizer"]["vocab_json"]))
        merges = open(run["tokenizer"]["merges_txt"]).read()
        with open(f"{args.out}/tokenizer.json", "w") as f:
            json.dump(checkpoint.gpt2_files_to_tokenizer_json(vocab, merges), f, ensure_ascii=False)

    def evaluate(step):
        nonlocal best
        state_now = {n: p.detach() for n, p in params.items()}
        loss_T = heldout_loss(cfg, state_now, heldout, T)
        loss_128 = heldout_loss(cfg, state_now, heldout, 128)
        scores = head_scores(cfg, state_now, heldout, V, T)
        record = {"type": "eval", "step": step, "heldout_loss": round(loss_T, 5), "heldout_loss_128": round(loss_128, 5),
                  "heads": scores}
        if loss_T < best["loss"]:
            best = {"loss": loss_T, "step": step}
            checkpoint.write_checkpoint(args.out, config, state_now, dtype="F16")
        record["best_step"] = best["step"]
        log_line(log, record)
        save(step)

    def save(step):  # the model and optimizer after `step` steps: what --resume continues from
        state_now = {n: p.detach() for n, p in params.items()}
        torch.save({"params": state_now, "optimizer": opt.state_dict(), "step": step, "best": best}, ckpt_path + ".tmp")
        os.replace(ckpt_path + ".tmp", ckpt_path)

    # SIGTERM or SIGINT (a session ending, Ctrl-C): the step under way finishes, the checkpoint is saved
    # at the next step's number, the log says so, and the run ends; --resume goes on from exactly there.
    stop = {"signal": None}

    def request_stop(signum, frame):
        stop["signal"] = signal.Signals(signum).name
    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)

    began = time.time()
    for step in range(start, t["steps"]):
        if step % t["eval_every"] == 0 and not (args.resume and step == start):
            evaluate(step)  # the model after `step` steps, saved as the checkpoint a resume starts from
        if stop["signal"] or step == args.stop_after:
            save(step)
            log_line(log, {"type": "stop", "at_step": step, "reason": stop["signal"] or "--stop-after",
                           "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
            return
        lr = lr_at(step, t)
        for g in opt.param_groups:
            g["lr"] = lr
        windows = batch_at(step, train, T, V, t)
        torch.manual_seed(t["dropout_seed"] * 1_000_003 + step)
        tick = time.time()
        logits = model.forward(cfg, params, windows[:, :-1], dropout=t["dropout"])
        loss = F.cross_entropy(logits.reshape(-1, V), windows[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(list(params.values()), t["clip_norm"])
        opt.step()
        log_line(log, {"type": "step", "step": step, "loss": round(loss.item(), 5), "lr": lr,
                       "grad_norm": round(norm.item(), 4), "seconds": round(time.time() - tick, 3)})
    evaluate(t["steps"])
    log_line(log, {"type": "summary", "steps": t["steps"], "best": best, "hours_this_session": round((time.time() - began) / 3600, 2)})


if __name__ == "__main__":
    main()
