"""``lscpu``: the host's CPUs, how they split into sockets, cores and threads, and which CPUs
each NUMA node holds.

util-linux's lscpu (sys-utils/lscpu.c, print_summary) prints one ``Field:  value`` row a line:
``Architecture:``, ``CPU(s):``, ``On-line CPU(s) list:`` (and ``Off-line CPU(s) list:`` where
some are offline), ``Thread(s) per core:``, ``Core(s) per socket:`` (``Core(s) per cluster:``
where the firmware names clusters), ``Socket(s):`` (``CPU socket(s):`` in its first releases),
``NUMA node(s):``, ``Model name:`` or ``Model:``, and one ``NUMA node<N> CPU(s):`` row per
node; releases from 2.37 indent the rows under ``Model name:`` and group the caches under
``Caches (sum of all):``. A document may keep the rows inside a reStructuredText table (its
``====   ====`` and ``----   ----`` borders): the borders are not rows and are skipped.

A copy may hold the tree layout's ``NUMA:`` section alone (its ``NUMA node(s):`` row and the
per-node rows under it, no ``Architecture:`` head): it is read as that. A node row with no CPU
list (``NUMA node1 CPU(s):`` and nothing after it) is a node with memory and no CPUs: on an NVIDIA
Grace Hopper, the GPU's memory is such a node (hwloc 39fae7e, "linux: don't hide the NVIDIA GPU
node on non-POWER platforms": "a single CPU node (and 1 single GPU node per GPU slice)").

Nothing in it is a fault on its own: it is said (a note), not judged; an offline CPU is named.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# "Architecture:" then, within a few rows (a table border may sit between), lscpu's CPU count;
# hostnamectl's "Architecture: x86-64" has no "CPU(s):" row, virsh nodeinfo no "Architecture:"
SIGNATURE = (
    r"^[ \t]*Architecture:[ \t]+\S[^\n]{0,200}\n(?:[^\n]{0,200}\n){0,8}?"
    r"[ \t]*CPU\(s\):[ \t]+\d+[ \t]*\r?$"
    # (or the same through pdsh, "gpu-node01: " before each row: read per host)
    r"|^[A-Za-z0-9][\w.-]{0,62}: [ \t]*Architecture:[ \t]+\S[^\n]{0,200}\n"
    r"(?:[^\n]{0,200}\n){0,8}?[A-Za-z0-9][\w.-]{0,62}: [ \t]*CPU\(s\):[ \t]+\d+[ \t]*\r?$"
)
_ROW_RE = re.compile(
    r"^[ \t]*(?P<key>[A-Za-z][\w() .,/-]{0,60}?):[ \t]+(?P<value>\S[^\n]{0,300}?)\s*$"
)
# a section's head with no value of its own, its rows indented under it, as the tree layout of
# current util-linux prints "Virtualization features:", "Caches (sum of all):", "NUMA:",
# "Vulnerabilities:" (tests/data/review64/lscpu_tree_layout_x86_2s_numa_sections.txt); the
# output goes on under it, so it is skipped, not taken for the output's end
_SECTION_RE = re.compile(r"^[ \t]*[A-Z][\w() .,/-]{0,60}:[ \t]*\r?$")
_NODE_ROW_RE = re.compile(r"^NUMA node(?P<node>\d{1,5}) CPU\(s\)$")
# a node row with no CPU list: lscpu prints the node's (empty) cpumask list as nothing
_EMPTY_NODE_ROW_RE = re.compile(r"^[ \t]*NUMA node(?P<node>\d{1,5}) CPU\(s\):[ \t]*\r?$")
# the tree layout's NUMA section on its own: "NUMA:" and, indented under it, "NUMA node(s):"
NUMA_SECTION_SIGNATURE = r"^[ \t]*NUMA:[ \t]*\r?\n[ \t]+NUMA node\(s\):[ \t]+\d{1,5}[ \t]*\r?$"
_NUMA_HEAD_RE = re.compile(r"^[ \t]*NUMA:[ \t]*\r?$")
# a reStructuredText table's border: runs of "=" or "-" split by blanks, nothing else
_BORDER_RE = re.compile(r"^[ \t]*[=-]{3,}(?:[ \t]+[=-]{3,}){0,20}[ \t]*$")


@dataclass(kw_only=True)
class Lscpu:
    line: int
    """The ``Architecture:`` row's line (or, in a copy of the ``NUMA:`` section alone, its
    head's)."""
    fields: dict[str, str] = field(default_factory=dict)
    """Each row's field (without its colon) → its value, as printed."""
    field_lines: dict[str, int] = field(default_factory=dict)
    nodes: dict[int, str] = field(default_factory=dict)
    """NUMA node → its CPU list as printed (``0-39``)."""
    node_lines: dict[int, int] = field(default_factory=dict)
    numa_only: bool = False
    """The copy is the ``NUMA:`` section alone: no ``Architecture:`` row, no CPU count."""
    borders: int = 0
    """How many table-border lines were skipped."""

    def number(self, *keys: str) -> int | None:
        """The first of ``keys`` whose value is a whole number."""
        for key in keys:
            value = self.fields.get(key, "")
            if value.isdigit():
                return int(value)
        return None


def parse(text: str) -> Lscpu | None:
    """lscpu's rows from its ``Architecture:`` row on (or from the ``NUMA:`` section's head where
    there is no such row); None where there is neither."""
    found: Lscpu | None = None
    numa_only = re.search(r"^[ \t]*Architecture:", text, re.M) is None
    for no, line in enumerate(text.splitlines(), 1):
        if found is None:
            if numa_only and _NUMA_HEAD_RE.match(line):
                found = Lscpu(line=no, numa_only=True)
            elif (m := _ROW_RE.match(line)) and m.group("key") == "Architecture":
                found = Lscpu(line=no)
                found.fields["Architecture"], found.field_lines["Architecture"] = (
                    m.group("value"),
                    no,
                )
            continue
        if _BORDER_RE.match(line):
            found.borders += 1
            continue
        m = _ROW_RE.match(line)
        if m is None and (empty := _EMPTY_NODE_ROW_RE.match(line)):
            found.nodes[int(empty.group("node"))] = ""
            found.node_lines[int(empty.group("node"))] = no
            continue
        if m is None:
            if _SECTION_RE.match(line):
                continue  # a section's head: its rows follow
            if line.strip():
                break  # the output ends where a line is neither a row nor a border
            continue
        key, value = m.group("key").strip(), m.group("value")
        if key == "Architecture":
            break  # a second host's lscpu: one output is read
        if node := _NODE_ROW_RE.match(key):
            found.nodes[int(node.group("node"))] = value
            found.node_lines[int(node.group("node"))] = no
            continue
        found.fields.setdefault(key, value)
        found.field_lines.setdefault(key, no)
    return found
