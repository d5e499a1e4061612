"""The tuner-plugin table of a run, written beside recommended.env when the bench found one.

NCCL: the bands whose winner is one of the library's own settings (a native variant fixing
NCCL_ALGO / NCCL_PROTO for all_reduce) become ``nccl_tuner.conf`` lines, each after a comment
with the measurement behind it, for the cluster's node and rank counts. HCCL: the bands won by
``HCCL_ALGO=level0:NA;level1:NHR`` become ``hccl_tuner_config.json`` rules (engine aicpu,
executor sole, template nhr: the cost-model selector's name for it); ring, H-D_R and NB have no
counterpart there and are listed in the file's ``advisor`` notes instead.
"""

from __future__ import annotations

from pathlib import Path

from advisor.facts import Facts
from advisor.tuner.formats import (
    HCCL_OP_OF,
    NCCL_OP_OF,
    check,
    hccl_choice,
    hccl_json,
    nccl_choice,
    nccl_conf,
)

NCCL_TUNER_FILE = "nccl_tuner.conf"
HCCL_TUNER_FILE = "hccl_tuner_config.json"


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


def hccl_rules(
    facts: Facts,
) -> tuple[list[tuple[str, int, int, tuple[str, str, str], str]], list[str]]:
    bench = facts.stages.get("bench")
    data = getattr(bench, "data", None)
    if data is None or facts.cluster.backend != "hccl":
        return [], []
    rules, skipped = [], []
    for band in data.bands:
        if not band.native or band.op not in HCCL_OP_OF:
            continue
        variant = band.choice[len("native[") : -1]
        env = data.variants.get(variant, {})
        choice = hccl_choice(env)
        if choice is None:
            skipped.append(
                f"{band.op} {band.min_bytes}-{band.max_bytes} B: {band.choice} "
                f"({env.get('HCCL_ALGO', env)}) has no engine/executor/template in the tuner's "
                "cost model (only level-1 NHR does): keep it as HCCL_ALGO, or leave it"
            )
            continue
        sizes = ", ".join(str(b) for b in band.measured_bytes)
        why = (
            f"{band.choice}: {band.gain:.2f}x the default's median time at {sizes} B "
            f"(at least {band.gain_low:.2f}x across the p10/p90 spreads)"
        )
        rules.append((HCCL_OP_OF[band.op], band.min_bytes, band.max_bytes, choice, why))
    return rules, skipped


def write(facts: Facts, run_dir: Path) -> list[Path]:
    """``nccl_tuner.conf`` in ``run_dir`` when the run measured a per-size table (checked as the
    plugin reads it before it is written); the paths written."""
    written = []
    rules, skipped = hccl_rules(facts)
    if rules:
        text = hccl_json(
            rules,
            ranks=facts.cluster.world_size,
            notes=[
                f"Per-size table measured by the advisor, run {facts.run.run_id}.",
                "Read by the HCCL tuner plugin (examples/06_tuner_plugin of the open HCCL "
                "sources): HCCL_TUNER_PLUGIN=<its .so>, HCCL_TUNER_CONFIG_FILE=<this file>; the "
                "plugin feeds the cost-model selector (HCCL_USE_NEW_SELECTOR=1).",
                *skipped,
            ],
        )
        assert not check(text, HCCL_TUNER_FILE).errors, "the advisor wrote a table HCCL refuses"
        (run_dir / HCCL_TUNER_FILE).write_text(text, encoding="utf-8")
        written.append(run_dir / HCCL_TUNER_FILE)
    lines = nccl_lines(facts)
    if not lines:
        return written
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
    return [*written, path]
