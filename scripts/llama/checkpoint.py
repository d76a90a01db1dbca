"""Hugging Face's checkpoint folder, read and written with the standard library, NumPy and torch (no
`safetensors` or `transformers` package in Debian): config.json, model.safetensors (or shards named by
model.safetensors.index.json) and tokenizer.json.

A .safetensors file: 8 bytes of little-endian header length, a JSON header (per tensor its dtype,
shape and data_offsets into the data that follows; an optional "__metadata__" of strings), then the
raw little-endian data."""

import json
import struct

import numpy as np
import torch

DTYPE_SIZES = {"F32": 4, "F16": 2, "BF16": 2, "F64": 8}


def tensor_bytes(t, dtype):
    """A tensor → its little-endian bytes in `dtype` (F32, F16, BF16 rounded to nearest even, F64)."""
    t = t.detach().contiguous()
    if dtype == "BF16":
        return t.to(torch.bfloat16).view(torch.int16).numpy().astype("<i2").tobytes()
    return t.numpy().astype({"F32": "<f4", "F16": "<f2", "F64": "<f8"}[dtype]).tobytes()


def safetensors_bytes(tensors, dtype="F32", metadata=None):
    """name → tensor (in this order) → the bytes of one .safetensors file, every tensor in `dtype`."""
    header, blobs, offset = {}, [], 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, t in tensors.items():
        blob = tensor_bytes(t, dtype)
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)   # the data starts 8-byte aligned, as the Rust writer does
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def read_safetensors(data):
    """The bytes of a .safetensors file → name → float64 tensor (F32, F16, BF16 or F64 stored)."""
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    header.pop("__metadata__", None)
    out = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        raw = data[8 + n + begin:8 + n + end]
        if info["dtype"] == "BF16":
            array = (np.frombuffer(raw, "<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            array = np.frombuffer(raw, {"F32": "<f4", "F16": "<f2", "F64": "<f8"}[info["dtype"]])
        out[name] = torch.from_numpy(array.astype(np.float64).reshape(info["shape"]))
    return out


def write_checkpoint(folder, config, tensors, dtype="F32", shards=1):
    """config.json and the weights as Hugging Face's save_pretrained writes them: one model.safetensors,
    or `shards` files model-0000i-of-0000n.safetensors with model.safetensors.index.json."""
    with open(f"{folder}/config.json", "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    names = list(tensors)
    if shards == 1:
        with open(f"{folder}/model.safetensors", "wb") as f:
            f.write(safetensors_bytes(tensors, dtype, {"format": "pt"}))
        return
    weight_map, total = {}, 0
    per_shard = -(-len(names) // shards)
    for s in range(shards):
        part = {name: tensors[name] for name in names[s * per_shard:(s + 1) * per_shard]}
        file = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        with open(f"{folder}/{file}", "wb") as f:
            f.write(safetensors_bytes(part, dtype, {"format": "pt"}))
        for name, t in part.items():
            weight_map[name] = file
            total += t.numel() * DTYPE_SIZES[dtype]
    with open(f"{folder}/model.safetensors.index.json", "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=2)
        f.write("\n")


def read_checkpoint(folder):
    """A folder written as above → (config dict, name → float64 tensor)."""
    import os
    with open(f"{folder}/config.json") as f:
        config = json.load(f)
    files = ["model.safetensors"]
    if os.path.exists(f"{folder}/model.safetensors.index.json"):
        with open(f"{folder}/model.safetensors.index.json") as f:
            files = sorted(set(json.load(f)["weight_map"].values()))
    tensors = {}
    for file in files:
        with open(f"{folder}/{file}", "rb") as f:
            tensors.update(read_safetensors(f.read()))
    return config, tensors


def byte_level_alphabet():
    """GPT-2's printable stand-ins for the 256 bytes (byte → character), as tokenizer.json spells tokens."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    chars, extra = {}, 0
    for b in range(256):
        if b in printable:
            chars[b] = chr(b)
        else:
            chars[b] = chr(256 + extra)
            extra += 1
    return chars


def gpt2_files_to_tokenizer_json(vocab, merges_text, special=("<|endoftext|>",)):
    """GPT-2's vocab.json (dict) and merges.txt (text) → the tokenizer.json Hugging Face's tokenizers
    library writes for the same byte-level BPE (ByteLevel pre-tokenizer with GPT-2's regex, ByteLevel
    decoder, the special tokens as added tokens)."""
    merges = [line for line in merges_text.split("\n") if line and not line.startswith("#version")]
    added = [{"id": vocab[token], "content": token, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for token in special if token in vocab]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": merges},
    }
