"""``ethtool -S <iface>``: a NIC driver's counters, read for the ones that count losses.

ethtool prints ``NIC statistics:`` and then one ``     name: value`` line a counter, in the
driver's own names (mlx5_core: ``rx_packets``, ``rx_out_of_buffer``, ``rx_discards_phy``,
``rx_crc_errors_phy``, ``link_down_events_phy`` ...; the kernel's mlx5 counters documentation
names what each counts). The counters only grow from the driver's start, so one output says
what was lost since then, not when; a note says which loss counters are not 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from advisor.parsers import ParseError, numbered_lines

SIGNATURE = r"^[ \t]*NIC statistics:[ \t]*\n[ \t]+[\w.\[\]-]+: -?\d+[ \t]*$"
_COUNTER_RE = re.compile(r"^\s+(?P<name>[\w.\[\]-]+(?:: [\w.\[\]-]+)?): (?P<value>-?\d+)\s*$")
"""A counter line, per queue too (be2net's "rxq0: rx_drops_no_frags: 3885606854")."""
_LOSS_WORDS = frozenset(
    {"err", "errs", "error", "errors", "drop", "drops", "dropped", "discard", "discards",
     "discarded", "crc", "timeout", "timeouts", "lost", "symbol", "undersize", "oversize",
     "fragments", "jabber", "jabbers", "aborted", "overflow", "overflows", "stall", "stalls"}
)  # fmt: skip
"""The words of a counter's name (split at ``_``, ``.``, ``:`` and spaces) that say it counts
something lost or refused, as mlx5 and other drivers name them; ``rx_xdp_drop`` of a program's
own XDP verdicts is one of them only by name."""
_LOSS_PHRASES = ("out_of_buffer", "out_of_range", "link_down")


@dataclass(kw_only=True)
class NicStats:
    line: int
    counters: dict[str, int] = field(default_factory=dict)
    losses: dict[str, int] = field(default_factory=dict)
    """The loss counters that are not 0."""


def _is_loss(name: str) -> bool:
    words = re.split(r"[_.:\s\[\]]+", name.lower())
    return bool(_LOSS_WORDS.intersection(words)) or any(p in name.lower() for p in _LOSS_PHRASES)


def parse(text: str) -> list[NicStats]:
    """Each ``NIC statistics:`` block; ParseError when none has a counter."""
    blocks: list[NicStats] = []
    for no, line, _ in numbered_lines(text):
        if line.strip() == "NIC statistics:":
            blocks.append(NicStats(line=no))
            continue
        if blocks and (m := _COUNTER_RE.match(line)):
            value = int(m.group("value"))
            blocks[-1].counters[m.group("name")] = value
            if value and _is_loss(m.group("name")):
                blocks[-1].losses[m.group("name")] = value
    blocks = [b for b in blocks if b.counters]
    if not blocks:
        raise ParseError("no 'NIC statistics:' block with counters")
    return blocks
