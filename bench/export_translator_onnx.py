"""Exports attnlab's trained translator (web/models/translator/) to ONNX for bench/translator.mjs: the
same weights in PyTorch's own nn.Transformer (the model of tests/fixtures/make_seq2seq_fixtures.py),
as two graphs onnxruntime-web runs:
  encoder: src ids int64 [1, m] → memory [1, m, d]
  decoder: tgt ids int64 [1, n], memory [1, m, d], causal mask [n, n] (0 / −inf) → logits of the last
           position [1, V]: a greedy step without a key/value cache, the whole target again each step
It first checks that PyTorch translates the held-out sentences as web/models/translator/heldout.json says.
  /usr/bin/python3 bench/export_translator_onnx.py OUT_DIR
"""
import json
import os
import struct
import sys

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))
from make_seq2seq_fixtures import Seq2Seq  # noqa: E402

MODEL = os.path.join(ROOT, "web", "models", "translator")


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        assert info["dtype"] == "F32", name
        begin, end = info["data_offsets"]
        array = np.frombuffer(data[8 + length + begin:8 + length + end], dtype="<f4").reshape(info["shape"])
        tensors[name] = torch.from_numpy(array.copy())
    return tensors


class Encoder(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, src):
        return self.model.transformer.encoder(self.model.embed(self.model.src_tok_emb, src))


class Decoder(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, tgt, memory, mask):
        out = self.model.transformer.decoder(self.model.embed(self.model.tgt_tok_emb, tgt), memory, tgt_mask=mask)
        return self.model.generator(out[:, -1])


def main(out_dir):
    vocab = json.load(open(os.path.join(MODEL, "vocab.json")))
    c = vocab["config"]
    model = Seq2Seq(dict(source_vocab_size=len(vocab["source"]), target_vocab_size=len(vocab["target"]),
                         max_len=c["max_len"], d_model=c["d_model"], num_heads=c["num_heads"],
                         num_encoder_layers=c["num_encoder_layers"], num_decoder_layers=c["num_decoder_layers"],
                         d_ff=c["dim_feedforward"], norm_first=c["norm_first"]))
    model.load_state_dict(read_safetensors(os.path.join(MODEL, "model.safetensors")))
    model.eval()
    encoder, decoder = Encoder(model), Decoder(model)
    source_ids = {w: i for i, w in enumerate(vocab["source"])}
    with torch.no_grad():
        for pair in json.load(open(os.path.join(MODEL, "heldout.json")))[:10]:
            src = torch.tensor([[source_ids[w] for w in pair["english"].split()]])
            memory, tokens = encoder(src), [vocab["bos_id"]]
            while len(tokens) < c["max_len"]:
                n = len(tokens)
                mask = torch.triu(torch.full((n, n), float("-inf")), diagonal=1)
                best = int(decoder(torch.tensor([tokens]), memory, mask).argmax())
                if best == vocab["eos_id"]:
                    break
                tokens.append(best)
            assert " ".join(vocab["target"][t] for t in tokens[1:]) == pair["french"], pair
    # Exported with gradients on: in evaluation mode without them, torch 1.13 runs the encoder layers'
    # fused fast path (aten::_transformer_encoder_layer_fwd), which has no ONNX export.
    src = torch.tensor([[3, 4, 5]])
    memory = encoder(src).detach()
    mask = torch.triu(torch.full((2, 2), float("-inf")), diagonal=1)
    os.makedirs(out_dir, exist_ok=True)
    torch.onnx.export(encoder, (src,), os.path.join(out_dir, "translator-encoder.onnx"), opset_version=14,
                      input_names=["src"], output_names=["memory"], dynamic_axes={"src": {1: "m"}, "memory": {1: "m"}})
    torch.onnx.export(decoder, (torch.tensor([[1, 5]]), memory, mask), os.path.join(out_dir, "translator-decoder.onnx"),
                      opset_version=14, input_names=["tgt", "memory", "mask"], output_names=["logits"],
                      dynamic_axes={"tgt": {1: "n"}, "memory": {1: "m"}, "mask": {0: "n", 1: "n"}})


if __name__ == "__main__":
    main(sys.argv[1])
