"""Fault injection for testing the advisor itself (and drills): make a chosen rank misbehave.

Faults are config (``faults: [{stage: smoke, rank: 1, kind: hang}]``) applied by the worker when
the rank begins a matching step, so every stage can be tested against dead, hung, failing and
slow ranks on real jobs, without mocking anything.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from advisor.errors import ConfigError

COLLECTIVE_FAULTS = ("skip", "wrong_op", "wrong_size")
"""Faults that change the rank's next collective (through ``advisor.comm``): skip it, issue a
barrier in its place, or send half its elements: the code-path bugs the flight recorder finds."""
GROUP_FAULTS = ("subgroup",)
"""The rank's next ``new_group`` asks for other members (one swapped for a rank outside)."""
FAULT_KINDS = ("exit", "hang", "raise", "slow", *COLLECTIVE_FAULTS, *GROUP_FAULTS)


@dataclass(kw_only=True)
class FaultConfig:
    stage: str
    """Stage in which the fault fires."""
    rank: int
    """Global rank that misbehaves."""
    kind: str = "exit"
    """exit: the process exits (code 13) without a word; hang: sleeps forever; raise: raises an
    error; slow: sleeps ``seconds`` then carries on (a straggler); skip, wrong_op, wrong_size:
    its next collective is skipped, replaced by a barrier, or sent with half its elements;
    subgroup: its next new_group asks for other members."""
    step: str = ""
    """Fires when the rank starts the first step whose name starts with this ('' = first step)."""
    seconds: float = 5.0
    """Delay for ``slow``."""

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ConfigError(
                f"faults[].kind={self.kind!r} is not one of {', '.join(FAULT_KINDS)}."
            )


EXIT_CODE = 13


_pending = {"collective": "", "group": False}


def take_collective_fault() -> str:
    """The collective fault armed for this rank's next collective ('' for none), disarmed."""
    kind, _pending["collective"] = _pending["collective"], ""
    return str(kind)


def take_group_fault() -> bool:
    armed, _pending["group"] = _pending["group"], False
    return bool(armed)


def apply(fault: FaultConfig) -> None:
    if fault.kind in COLLECTIVE_FAULTS:
        _pending["collective"] = fault.kind
        return
    if fault.kind in GROUP_FAULTS:
        _pending["group"] = True
        return
    if fault.kind == "exit":
        os._exit(EXIT_CODE)  # no cleanup, no last record: like a rank killed mid-stage
    if fault.kind == "hang":
        while True:
            time.sleep(3600)
    if fault.kind == "raise":
        raise RuntimeError(f"injected fault on rank {fault.rank} at step {fault.step!r}")
    time.sleep(fault.seconds)
