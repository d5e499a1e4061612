"""Re-capture the gloo flight-recorder samples of this folder (run from the repository root).

``python tests/data/flight/capture.py``: runs two scenarios of ``tests/flight_job.py`` through
torchrun with torch's flight recorder on (4 gloo ranks), then scrubs what names the capturing
machine (source paths in the stack frames, the host name in the side notes) and writes, per
scenario, ``<name>/dumps/fr_rank_<r>`` (torch's pickle) and ``<name>/ranks/<r>.json`` (the
advisor's side notes). See ../SOURCES.md.
"""

from __future__ import annotations

import json
import pickle
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent.parent))

from tests.test_flight import run_job  # noqa: E402

SCENARIOS = {
    "gloo-2.13-op": ("op", 2, 3, "all_reduce"),
    "gloo-2.13-hang": ("hang", 1, 2, "all_reduce"),
    # tests/test_flight.py's held-out scenarios (other ranks, positions and ops), read from here
    # so the suite runs only the first five live
    "gloo-2.13-held-skip-0-3-all_gather": ("skip", 0, 3, "all_gather"),
    "gloo-2.13-held-op-1-2-broadcast": ("op", 1, 2, "broadcast"),
    "gloo-2.13-held-size-2-3-all_gather": ("size", 2, 3, "all_gather"),
    "gloo-2.13-held-hang-3-1-broadcast": ("hang", 3, 1, "broadcast"),
    "gloo-2.13-held-subgroup-0-2-all_gather": ("subgroup", 0, 2, "all_gather"),
}


def scrub(dump: dict) -> dict:
    for e in dump.get("entries", []):
        for f in e.get("frames", []):
            f["filename"] = Path(str(f.get("filename", ""))).name
    return dump


def main() -> None:
    only = set(sys.argv[1:])  # names to re-capture; all without
    for name, (kind, culprit, at, op) in SCENARIOS.items():
        if only and name not in only:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            dumps = run_job(Path(tmp), kind, culprit, at, op)
            out = HERE / name
            shutil.rmtree(out, ignore_errors=True)
            (out / "dumps").mkdir(parents=True)
            (out / "ranks").mkdir()
            for p in sorted(dumps.glob("fr_rank_*")):
                doc = scrub(pickle.loads(p.read_bytes()))
                (out / "dumps" / p.name).write_bytes(pickle.dumps(doc, protocol=2))
            for p in sorted((dumps.parent / "ranks").glob("*.json")):
                side = json.loads(p.read_text())
                side["where"] = [side["where"][0], "capture-host"]
                side.pop("pid", None)
                (out / "ranks" / p.name).write_text(json.dumps(side, indent=1) + "\n")


if __name__ == "__main__":
    main()
