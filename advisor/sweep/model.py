"""The built-in workload: a GPT-style transformer language model in plain torch.

Nothing is downloaded: every rank generates its own token batches from a seeded generator
(seed, rank, step), so a trial is reproducible and two trials over the same steps see the same
data, which is what lets the sweep compare a precision's loss against the fp32 run.

The tokens follow a noisy fixed rule (most next tokens are an affine function of the previous
one), so the loss really falls as the model learns and a precision that breaks training shows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from advisor.errors import ConfigError

if TYPE_CHECKING:
    import torch


@dataclass(frozen=True, kw_only=True)
class ModelShape:
    """Size of the transformer."""

    layers: int
    hidden: int
    heads: int
    seq_len: int
    vocab: int
    tie_embeddings: bool = True
    """Share the token embedding with the output head (GPT-2 does); untied doubles the
    embedding's gradient without adding compute to speak of."""

    def __post_init__(self) -> None:
        for key in ("layers", "hidden", "heads", "seq_len", "vocab"):
            if getattr(self, key) < 1:
                raise ConfigError(f"stages.sweep.model.{key} must be at least 1.")
        if self.hidden % self.heads:
            raise ConfigError(
                f"stages.sweep.model.hidden={self.hidden} is not a multiple of "
                f"heads={self.heads}: pick heads that divide hidden."
            )

    @property
    def params(self) -> int:
        """Parameter count (what DDP all-reduces each step)."""
        h = self.hidden
        per_layer = 12 * h * h + 13 * h
        embed = self.vocab * h * (1 if self.tie_embeddings else 2) + self.seq_len * h
        return self.layers * per_layer + embed + 2 * h


PRESETS: dict[str, ModelShape] = {
    # CPU tests: a step takes milliseconds on one core.
    "tiny": ModelShape(layers=2, hidden=64, heads=4, seq_len=32, vocab=512),
    "small": ModelShape(layers=4, hidden=256, heads=4, seq_len=128, vocab=8192),
    # GPT-2 small's shape: a realistic single-device workload on an NPU or GPU.
    "gpt2": ModelShape(layers=12, hidden=768, heads=12, seq_len=1024, vocab=50304),
    # A 1.3B-class shape for accelerator clusters.
    "realistic": ModelShape(layers=24, hidden=2048, heads=16, seq_len=2048, vocab=50304),
    # Gradients large against compute, as in LLM training where the communication of a step is
    # comparable to its compute: a big untied vocabulary and one thin layer.
    "comm_heavy": ModelShape(
        layers=1, hidden=256, heads=4, seq_len=16, vocab=32768, tie_embeddings=False
    ),
}


def shape_for(
    preset: str,
    *,
    layers: int = 0,
    hidden: int = 0,
    heads: int = 0,
    seq_len: int = 0,
    vocab: int = 0,
) -> ModelShape:
    """A preset's shape with any non-zero field overriding it."""
    if preset not in PRESETS:
        raise ConfigError(
            f"stages.sweep.model.preset={preset!r} is not one of {', '.join(PRESETS)}."
        )
    base = PRESETS[preset]
    return ModelShape(
        layers=layers or base.layers,
        hidden=hidden or base.hidden,
        heads=heads or base.heads,
        seq_len=seq_len or base.seq_len,
        vocab=vocab or base.vocab,
        tie_embeddings=base.tie_embeddings,
    )


def build(shape: ModelShape, *, seed: int) -> torch.nn.Module:
    """The model with identical weights on every rank (DDP also broadcasts rank 0's)."""
    import torch
    from torch import nn
    from torch.nn import functional as F

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            h = shape.hidden
            self.ln1 = nn.LayerNorm(h)
            self.qkv = nn.Linear(h, 3 * h)
            self.proj = nn.Linear(h, h)
            self.ln2 = nn.LayerNorm(h)
            self.fc = nn.Linear(h, 4 * h)
            self.out = nn.Linear(4 * h, h)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            b, t, h = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(h, dim=2)
            heads = shape.heads
            q, k, v = (y.view(b, t, heads, h // heads).transpose(1, 2) for y in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(y.transpose(1, 2).reshape(b, t, h))
            return x + self.out(F.gelu(self.fc(self.ln2(x))))

    class GPT(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.tok = nn.Embedding(shape.vocab, shape.hidden)
            self.pos = nn.Embedding(shape.seq_len, shape.hidden)
            self.blocks = nn.ModuleList(Block() for _ in range(shape.layers))
            self.ln = nn.LayerNorm(shape.hidden)
            self.head = nn.Linear(shape.hidden, shape.vocab, bias=False)
            if shape.tie_embeddings:
                self.head.weight = self.tok.weight

        def forward(self, idx: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
            pos = torch.arange(idx.shape[1], device=idx.device)
            x = self.tok(idx) + self.pos(pos)
            for block in self.blocks:
                x = block(x)
            logits = self.head(self.ln(x))
            return F.cross_entropy(logits.float().reshape(-1, shape.vocab), targets.reshape(-1))

    torch.manual_seed(seed)
    model = GPT()
    for name, p in model.named_parameters():
        if name.endswith("weight") and p.dim() == 2:
            nn.init.normal_(p, std=0.02 / (math.sqrt(2 * shape.layers) if "out" in name else 1))
    return model


def batch(
    shape: ModelShape, batch_size: int, *, seed: int, rank: int, step: int, device: torch.device
) -> tuple[torch.Tensor, torch.Tensor]:
    """Inputs and next-token targets for one rank's step, the same for the same (seed, rank, step).

    Each next token is ``(31 * previous + 7) mod vocab`` nine times in ten, else random: a rule
    the model can learn, with noise so the loss does not reach zero.
    """
    import torch

    gen = torch.Generator().manual_seed(seed * 1_000_003 + rank * 10_007 + step)
    n = shape.seq_len + 1
    noise = torch.randint(0, shape.vocab, (batch_size, n), generator=gen)
    keep = torch.rand((batch_size, n), generator=gen) < 0.9
    tokens = torch.empty((batch_size, n), dtype=torch.long)
    tokens[:, 0] = noise[:, 0]
    for t in range(1, n):
        rule = (tokens[:, t - 1] * 31 + 7) % shape.vocab
        tokens[:, t] = torch.where(keep[:, t], rule, noise[:, t])
    tokens = tokens.to(device)
    return tokens[:, :-1], tokens[:, 1:]
