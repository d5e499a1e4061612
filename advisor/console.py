"""What the CLI prints while it works. The last line of a run always names the report."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape

if TYPE_CHECKING:
    from pathlib import Path

    from advisor.cluster import Cluster
    from advisor.facts import StageFacts
    from advisor.stages import Stage

# (no emoji codes: a bus id's ":AB:" or ":CD:" would print as one)
out = Console(highlight=False, soft_wrap=True, emoji=False)
err = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)

_STATUS_STYLE = {
    "ok": "green",
    "failed": "red",
    "timeout": "red",
    "error": "red",
    "skipped": "yellow",
}


def banner(cluster: Cluster, profile: str, run_dir: Path) -> None:
    out.print(
        f"[bold]advisor[/bold] cluster {cluster.name} ({cluster.shape}, {cluster.world_size} ranks, "
        f"{cluster.declared_device}/{cluster.backend}) profile {profile}"
    )
    if cluster.emulated:
        out.print(
            f"[bold yellow]EMULATED[/bold yellow]: {cluster.nodes} nodes x "
            f"{cluster.devices_per_node} {cluster.declared_device} ranks run on this host's CPUs "
            "with gloo; every figure below is emulated, not the real cluster's."
        )
    out.print(f"run directory: {escape(str(run_dir))}")


def stage_start(index: int, total: int, stage: Stage) -> None:
    out.print(f"[{index + 1}/{total}] {stage.name}: {stage.description} ...")


def stage_end(sf: StageFacts) -> None:
    style = _STATUS_STYLE.get(sf.status, "white")
    line = f"      [{style}]{sf.status}[/{style}] in {sf.duration_s:.1f} s"
    if sf.reason:
        line += f" — {escape(sf.reason)}"
    out.print(line)


def progress(text: str) -> None:
    """A running stage's own progress line (the soak's elapsed time and figures)."""
    out.print(f"      {escape(text)}")


def error(message: str) -> None:
    err.print(f"[bold red]error:[/bold red] {escape(message)}")


def plain(message: str) -> None:
    print(message, file=sys.stdout, flush=True)
