"""``numactl -H`` (``--hardware``): the host's NUMA nodes, each's CPUs and memory, and the
distance table between them.

numactl prints ``available: 8 nodes (0-7)``, then per node ``node 0 cpus: 0 1 2 ...``, ``node 0
size: 63540 MB`` and ``node 0 free: 49689 MB``, then ``node distances:`` over a table whose rows
read ``  0:  10  21``; a node's distance to itself is 10, and the firmware's table (ACPI SLIT)
gives 255 for a node that cannot be reached. What matters for a job is which CPUs and memory sit
near each GPU and NIC; this output alone names no device, so that is said, not judged. A node
whose CPUs have no memory of their own (``size: 0 MB``, ``memoryless``) is judged: each
allocation of those CPUs crosses to another node.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from advisor.parsers import ParseError

SIGNATURE = (
    r"^[ \t]*available:[ \t]*\d+[ \t]+nodes?[ \t]*\("
    r"|^[ \t]*node(?:[ \t]+\d+){2,}[ \t]*\r?\n[ \t]*\d+:(?:[ \t]+\d+){2,}"
)
_AVAILABLE_RE = re.compile(r"^\s*available:\s*(?P<n>\d+)\s+nodes?")
_CPUS_RE = re.compile(r"^\s*node (?P<node>\d+) cpus:(?P<cpus>[\d ]*)$")
_SIZE_RE = re.compile(r"^\s*node (?P<node>\d+) (?P<what>size|free): (?P<mb>\d+) MB")
_DIST_HEAD_RE = re.compile(r"^\s*node((?:\s+\d+)+)\s*$")
_DIST_ROW_RE = re.compile(r"^\s*(?P<node>\d+):(?P<row>(?:\s+\d+)+)\s*$")


@dataclass(kw_only=True)
class NumaNodes:
    line: int
    available: int | None = None
    cpus: dict[int, int] = field(default_factory=dict)
    """Node → how many CPUs it has (0: a node of memory only)."""
    size_mb: dict[int, int] = field(default_factory=dict)
    free_mb: dict[int, int] = field(default_factory=dict)
    size_line: dict[int, int] = field(default_factory=dict)
    """Node → the line of its ``size:``."""
    distances: dict[int, list[int]] = field(default_factory=dict)
    table_nodes: int = 0
    """How many nodes the distance table's heading names."""


def parse(text: str) -> NumaNodes:
    """The nodes and distances in ``text``; ParseError when neither is there."""
    nodes = NumaNodes(line=0)
    # (the distance rows' "  0:" would be taken for srun's task label by numbered_lines)
    for no, line in enumerate(text.splitlines(), 1):
        if m := _AVAILABLE_RE.match(line):
            nodes.available, nodes.line = int(m.group("n")), nodes.line or no
        elif m := _CPUS_RE.match(line):
            nodes.cpus[int(m.group("node"))] = len(m.group("cpus").split())
            nodes.line = nodes.line or no
        elif m := _SIZE_RE.match(line):
            target = nodes.size_mb if m.group("what") == "size" else nodes.free_mb
            target[int(m.group("node"))] = int(m.group("mb"))
            if m.group("what") == "size":
                nodes.size_line[int(m.group("node"))] = no
        elif m := _DIST_HEAD_RE.match(line):
            nodes.table_nodes = len(m.group(1).split())
        elif m := _DIST_ROW_RE.match(line):
            nodes.distances[int(m.group("node"))] = [int(v) for v in m.group("row").split()]
            nodes.line = nodes.line or no
    if nodes.available is None and not nodes.cpus and not nodes.distances:
        raise ParseError("no numactl -H line ('available: N nodes', 'node N cpus:')")
    return nodes


def memoryless(nodes: NumaNodes) -> list[int]:
    """The nodes with CPUs and ``size: 0 MB``: their CPUs have no local memory, every
    allocation of theirs comes from another node (Linux Documentation/mm/numa.rst: "CPUs
    attached to memoryless nodes would always incur the fallback path overhead"). None where
    no node has memory (a copy without the sizes' figures says nothing of it)."""
    if not any(nodes.size_mb.values()):
        return []
    return sorted(n for n, size in nodes.size_mb.items() if size == 0 and nodes.cpus.get(n, 0) > 0)
