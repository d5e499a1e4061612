"""One node's agent: torchrun itself, with its ranks forked from a server that imported torch.

``python -m advisor.launch.agent <torchrun options> --spec <job spec>`` runs
``torch.distributed.run.main`` (torchrun's options, rendezvous and elastic agent, unchanged) with
``<torchrun options> --start-method=forkserver --run-path <this node's advisor/launch/rank.py>
--spec <job spec>``, after one setting: multiprocessing's fork server imports torch and the
worker's modules once, and forks each rank from there. torchrun's ``--run-path`` makes the rank a
function of the agent (``runpy.run_path`` of the rank script, which runs the worker), started
with ``--start-method``; without the preload every forked rank would import torch again itself.

Why: a rank started as a new interpreter spends about 2 s of CPU importing torch before it does
anything, 32 s for the 16 ranks of an emulated 2x8 job on a 2-core host; forked, a rank starts in
a fraction of a second. The fork server is a fresh process (multiprocessing starts it with exec),
so the ranks inherit none of the agent's threads or sockets (its rendezvous store).

``launcher.rank_start=auto`` starts ranks this way only for CPU jobs of at least
``launch.commands.FORK_MIN_RANKS_PER_NODE`` ranks a node: fewer gain little, and whether
torch_npu and CUDA tolerate a fork after ``import torch`` loaded their device extension has not
been checked on a device, so device jobs keep torchrun's default, one new interpreter per rank.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from multiprocessing import forkserver
from pathlib import Path

PRELOAD = (
    "torch",
    "torch.distributed",
    "torch.distributed.run",
    "torch.distributed.elastic.multiprocessing",
    "advisor.worker",
)
"""Imported once by the fork server, before it forks the ranks."""


NPROC_OPTION = "--nproc-per-node="
"""How ``launch.commands.torchrun_args`` passes the ranks per node."""

RANK_SCRIPT = str(Path(__file__).resolve().parent / "rank.py")
"""The rank entry point as a file (``advisor.launch.rank``: the worker), on this node."""


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if "--spec" not in args:
        raise SystemExit(
            "usage: python -m advisor.launch.agent <torchrun options> --spec <job spec>"
        )
    at = args.index("--spec")
    per_node = next((a.split("=", 1)[1] for a in args[:at] if a.startswith(NPROC_OPTION)), "1")
    if "OMP_NUM_THREADS" not in os.environ and per_node.isdigit() and int(per_node) > 1:
        # torchrun's own rule (run.config_from_args), set before the server starts: the ranks
        # take their environment from it, not from the agent
        os.environ["OMP_NUM_THREADS"] = "1"
    multiprocessing.set_forkserver_preload(list(PRELOAD))
    # started now, the server imports torch while the agent imports it too (two cores, two
    # imports at once), not after it
    forkserver.ensure_running()
    from torch.distributed.run import main as torchrun

    torchrun([*args[:at], "--start-method=forkserver", "--run-path", RANK_SCRIPT, *args[at:]])


if __name__ == "__main__":
    main()
