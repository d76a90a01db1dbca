# ---- Your own model: what the page reports when it loads a checkpoint, and how to write one ----
# 1. Read a GPT-2-format checkpoint (yours, or attnlab-kjv's) with the model part's reader, as the page does.
model, tokenizer = GPT2("model.safetensors"), Tokenizer("vocab.json", "merges.txt")
parameters = sum(t.numel() for t in model.w.values())
print("layers, heads, d_model, context, vocabulary:", [model.n_layer, model.n_head, model.d_model, model.context_length, model.vocab_size])
print("parameters:", parameters)
print("memory as float32 (MiB):", 4 * parameters / 2**20)  # what the page's memory budget must hold


# 2. Write a model the page can load: float32 tensors in GPT-2's names and layout ([in × out] for the
# linear layers), n_head in the metadata. From nanoGPT, say: its state_dict without "transformer.", its
# attn.c_attn, attn.c_proj, mlp.c_fc and mlp.c_proj weights transposed (nn.Linear keeps [out × in]).
def save_safetensors(tensors, path, metadata):
    header, offset = {"__metadata__": metadata}, 0
    for name, t in tensors.items():
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + 4 * t.numel()]}
        offset += 4 * t.numel()
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)  # the data starts on a multiple of 8 bytes
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little") + text)
        for t in tensors.values():
            f.write(t.contiguous().float().numpy().tobytes())


save_safetensors(model.w, "my-model.safetensors", {"format": "pt", "n_head": str(model.n_head)})
mine = GPT2("my-model.safetensors")
ids = tokenizer.encode("In the beginning God created the heaven and the earth.")
with torch.no_grad():
    print("largest logit change after writing and reading back:", float((mine.forward(ids)[0] - model.forward(ids)[0]).abs().max()))

# 3. GPT-2 small from Hugging Face. This part needs the transformers package (pip install transformers),
# which Debian's python3-torch does not have: without it, it is skipped. Its file has no n_head in it: type
# 12 in the page's Heads field.
try:
    from transformers import GPT2LMHeadModel, GPT2TokenizerFast
except ImportError:
    print("# transformers is not installed: the Hugging Face part is skipped")
else:
    GPT2LMHeadModel.from_pretrained("gpt2").save_pretrained("gpt2-small", safe_serialization=True)  # gpt2-small/model.safetensors
    GPT2TokenizerFast.from_pretrained("gpt2").save_pretrained("gpt2-small")  # gpt2-small/vocab.json and merges.txt
