"""Side by side: the advisor's flight-recorder comparison and torch's analyzer, against the truth.

Runs every scenario of ``tests/test_flight.py`` (the set and the held-out set: a rank skips a
collective, issues another op, sends another size, hangs in compute, builds its subgroup with
other members; 4 gloo ranks started by torchrun), then asks each analyzer who is to blame:

- the advisor, on the dumps as written (with its rank notes);
- torch's analyzer (``torch.distributed.flight_recorder``, what ``torchfrtrace`` runs) on the
  same dumps, and on them rewritten into the nccl dump format it reads.

    python tests/perf/flight_side_by_side.py [--record]

``--record`` appends the table to tests/perf/RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from advisor.flight import torch_analyzer  # noqa: E402
from advisor.flight.examine import examine_dir  # noqa: E402
from advisor.flight.load import read_dir  # noqa: E402
from tests.test_flight import HELD_OUT, SCENARIOS, WORLD, as_nccl, run_job  # noqa: E402


def _torch(verdict: torch_analyzer.TorchVerdict) -> str:
    if not verdict.ran:
        return f"stops: {verdict.error.split(':')[0]}"
    if not verdict.failing:
        return "passes every collective"
    f = verdict.failing[0]
    named = sorted(set(f["missing_ranks"]) | set(f["mismatched_ranks"]))
    return f"#{f['seq']} {f['op'].split(':')[-1]}, ranks {named}"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--record", action="store_true")
    ns = parser.parse_args()
    rows = []
    agree = right = 0
    t0 = time.monotonic()
    for held_out, scenarios in ((False, SCENARIOS), (True, HELD_OUT)):
        for kind, culprit, at, op in scenarios:
            with tempfile.TemporaryDirectory() as tmp:
                dump_dir = run_job(Path(tmp), kind, culprit, at, op)
                facts = examine_dir(dump_dir, source=kind, world=range(WORLD))
                dumps, _ = read_dir(dump_dir)
                raw = _torch(torch_analyzer.run(dumps))
                nccl_verdict = torch_analyzer.run(as_nccl(dumps))
                nccl = _torch(nccl_verdict)
            first = facts.culprits[0] if facts.culprits else None
            ok = first is not None and first.rank == culprit
            right += ok
            named = (
                set(nccl_verdict.failing[0]["missing_ranks"])
                | set(nccl_verdict.failing[0]["mismatched_ranks"])
                if nccl_verdict.ran and nccl_verdict.failing
                else set()
            )
            agree += culprit in named
            group = next((g for g in facts.groups if g.seq is not None), None)
            ours = (
                f"rank {first.rank} ({first.pattern.replace('_', ' ')}) on {first.node_name}"
                + (f", #{group.seq} {group.op}" if group else "")
                if first
                else "nobody"
            )
            rows.append(
                f"| {'held-out ' if held_out else ''}{kind} (rank {culprit}, {op} #{at}) | "
                f"{ours}{'' if ok else ' **wrong**'} | {raw} | {nccl} |"
            )
    total = len(SCENARIOS) + len(HELD_OUT)
    text = "\n".join(
        [
            "| scenario (truth) | advisor | torch analyzer, gloo dumps | torch analyzer, nccl format |",
            "|---|---|---|---|",
            *rows,
            "",
            f"Advisor names the misbehaving rank first in {right}/{total}; torch's analyzer (nccl "
            f"format) names it among its ranks in {agree}/{total}; {time.monotonic() - t0:.0f} s.",
        ]
    )
    print(text)
    if ns.record:
        now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        with open(REPO / "tests" / "perf" / "RESULTS.md", "a", encoding="utf-8") as f:
            f.write(
                f"\n## flight recorder side by side (issue 15): {now}\n"
                "Command: `python tests/perf/flight_side_by_side.py --record`  \n"
                f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python "
                f"{platform.python_version()}\n\n{text}\n"
            )
    return 0 if right == total else 1


if __name__ == "__main__":
    raise SystemExit(main())
