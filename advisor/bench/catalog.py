"""What the benchmark can run, by name: read by the configuration, which imports no torch.

The algorithms themselves (``advisor.bench.algorithms``) are rank code and import torch; their
names and the hierarchical algorithm's chunking arithmetic live here so that ``advisor --help``,
``rules`` and usage errors never pay for torch.
"""

from __future__ import annotations

ALGORITHM_NAMES = ("native", "ring", "halving_doubling", "tree", "hierarchical")
"""all_reduce algorithms: the backend's own (native) and the project's (advisor.bench.algorithms)."""

DEFAULT_PIPELINE_CHUNK_BYTES = 8 * 2**20
"""Hierarchical all-reduce splits the tensor into chunks of about this size so the intra-node
phases of one chunk run while another chunk crosses the inter-node link (larger chunks pay the
per-step latency fewer times; at least two chunks are used so something always overlaps)."""
MIN_PIPELINE_CHUNKS = 2
MAX_PIPELINE_CHUNKS = 64


def pipeline_chunks(numel: int, element_bytes: int, ranks_per_node: int, chunk_bytes: int) -> int:
    """Chunks the hierarchical all-reduce cuts a tensor of ``numel`` elements into."""
    units = -(-numel // ranks_per_node)
    per_chunk = max(1, chunk_bytes // (element_bytes * ranks_per_node))
    wanted = max(MIN_PIPELINE_CHUNKS, -(-units // per_chunk))
    return max(1, min(units, MAX_PIPELINE_CHUNKS, wanted))
