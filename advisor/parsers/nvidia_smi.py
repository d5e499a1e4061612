"""``nvidia-smi topo -m``: the GPU/NIC link matrix (X, NV#, PIX, PXB, PHB, NODE, SYS)."""

from __future__ import annotations

from advisor.parsers.npu_smi import Topology, parse_matrix

__all__ = ["Topology", "parse_topo"]


def parse_topo(text: str) -> Topology:
    """Parse ``nvidia-smi topo -m``; NIC rows are kept (a GPU's path to its NIC matters)."""
    return parse_matrix(text, prefixes=("GPU", "NIC"), tool="nvidia-smi")
