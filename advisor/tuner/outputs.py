"""The tuner-plugin table of a run, written beside recommended.env when the bench found one.

NCCL only: the bands whose winner is one of the library's own settings (a native variant fixing
NCCL_ALGO / NCCL_PROTO for all_reduce) become ``nccl_tuner.conf`` lines, each after a comment
with the measurement behind it, for the cluster's node and rank counts. No HCCL file is written:
the open HCCL tuner plugin chooses engine/executor/template, and no source maps an
``HCCL_ALGO`` level-1 algorithm onto those (the table stays in the report).
"""

from __future__ import annotations

from pathlib import Path

from advisor.facts import Facts
from advisor.tuner.formats import NCCL_OP_OF, check, nccl_choice, nccl_conf

NCCL_TUNER_FILE = "nccl_tuner.conf"


def nccl_lines(facts: Facts) -> list[tuple[str, int, int, str, str, str]]:
    bench = facts.stages.get("bench")
    data = getattr(bench, "data", None)
    if data is None or facts.cluster.backend != "nccl":
        return []
    out = []
    for band in data.bands:
        if not band.native or band.op not in NCCL_OP_OF:
            continue
        variant = band.choice[len("native[") : -1]
        choice = nccl_choice(data.variants.get(variant, {}))
        if choice is None:
            continue
        sizes = ", ".join(str(b) for b in band.measured_bytes)
        why = (
            f"{band.choice}: {band.gain:.2f}x the default's median time at {sizes} B "
            f"(at least {band.gain_low:.2f}x across the p10/p90 spreads)"
        )
        out.append((NCCL_OP_OF[band.op], band.min_bytes, band.max_bytes, *choice, why))
    return out


def write(facts: Facts, run_dir: Path) -> list[Path]:
    """``nccl_tuner.conf`` in ``run_dir`` when the run measured a per-size table (checked as the
    plugin reads it before it is written); the paths written."""
    lines = nccl_lines(facts)
    if not lines:
        return []
    text = nccl_conf(
        lines,
        nodes=facts.cluster.nodes,
        ranks=facts.cluster.world_size,
        header=(
            f"Per-size algorithm table measured by the advisor, run {facts.run.run_id}, for "
            f"{facts.cluster.nodes} node(s) x {facts.cluster.devices_per_node}.\n"
            "Load it with NCCL's example tuner plugin (plugins/tuner/example in the NCCL sources):\n"
            "NCCL_TUNER_PLUGIN=<path of libnccl-tuner-example.so> "
            f"NCCL_TUNER_CONFIG_FILE=<this file>"
        ),
    )
    problems = check(text, NCCL_TUNER_FILE).errors
    assert not problems, f"the advisor wrote a tuner table its plugin misreads: {problems}"
    path = run_dir / NCCL_TUNER_FILE
    path.write_text(text, encoding="utf-8")
    return [path]
