"""Tuner-plugin configs checked as their plugins read them (``advisor tuner validate``).

Samples: ``tests/data/tuner/nccl_tuner.conf`` and ``hccl_tuner_config.json`` are the plugins'
own example files (NVIDIA/nccl ``plugins/tuner/example/nccl_tuner.conf``, hicann/hccl
``examples/06_tuner_plugin/hccl_tuner_config.json``); the failure cases are the plugins' own
(their test files' invalid configs) and what their parsers do silently.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from advisor.tuner.formats import check
from tests.conftest import run_advisor

DATA = Path(__file__).parent / "data" / "tuner"


def _problems(text: str, **kw: Any) -> list[tuple[str, str, str]]:
    return [(p.severity, p.where, p.field) for p in check(text, "f", **kw).problems]


def test_the_plugins_own_examples_are_read_whole() -> None:
    nccl = check((DATA / "nccl_tuner.conf").read_text(), "nccl_tuner.conf")
    assert nccl.format == "nccl" and len(nccl.rules) == 9 and not nccl.errors
    assert nccl.rules[0].op == "allreduce" and nccl.rules[0].choice == "tree/simple"
    assert nccl.rules[5].extra == {"numPipeOps": -1, "regBuff": -1}  # 8 fields: both optional
    hccl = check((DATA / "hccl_tuner_config.json").read_text(), "hccl_tuner_config.json")
    assert hccl.format == "hccl" and len(hccl.rules) == 3 and not hccl.problems
    assert hccl.rules[1].choice == "aicpu/sole/meshoneshot" and hccl.rules[1].max_bytes == 2**32 - 1


@pytest.mark.parametrize(
    ("line", "field", "words"),
    [
        ("allrduce,0,100,ring,simple,2,1,-1", "collective_type", "silently reads it as allreduce"),
        ("allreduce,0,100,Ring,simple,2,1,-1", "algorithm", "silently reads it as ring"),
        ("allreduce,0,100,ring,LL,2,1,-1", "protocol", "silently reads it as simple"),
        ("allreduce,500,100,ring,simple,2,1,-1", "min_bytes", "never matches"),
        ("allreduce,-1,100,ring,simple,2,1,-1", "min_bytes", "reads it as 2^64-1"),
        ("allreduce,0,1M,ring,simple,2,1,-1", "max_bytes", "reads it as 0"),
        ("allreduce,0,100,ring,simple,2,1", "nRanks", "skips this line without a word"),
        ("allreduce,0,,ring,simple,2,1,-1", "max_bytes", "every later field moves"),
        ("allreduce,0,100,ring,simple,2,1,-1 # small", "nRanks", "part of the last field"),
        ("allreduce,0,100,ring,simple,2,1,-1,-1,2", "regBuff", "0, 1 or -1"),
        ("allreduce,0,100,ring,simple,2,0,-1", "nNodes", "which no communicator has"),
        ("allreduce,0,100,ring,simple,2,1,-1" + " " * 260, "line", "255 at a time"),
    ],
)
def test_nccl_lines_the_plugin_misreads_are_refused_with_line_and_field(
    line: str, field: str, words: str
) -> None:
    checked = check(f"# header\n{line}\n", "nccl_tuner.conf")
    (problem,) = [p for p in checked.errors]
    assert (problem.where, problem.field) == ("line 2", field), problem
    assert words in problem.message, problem.message
    assert not checked.rules


def test_nccl_unreachable_and_overlapping_rules_and_rules_for_another_job() -> None:
    text = (
        "allreduce,0,1048576,ring,simple,2,-1,-1\n"
        "allreduce,1024,4096,tree,simple,2,-1,-1\n"  # inside the first: never reached
        "allreduce,1048000,8388608,tree,ll,2,-1,-1\n"  # overlaps the first at its top
        "broadcast,0,65536,tree,simple,2,4,-1\n"  # for 4 nodes
        "  # an indented note\n"
    )
    got = _problems(text, nodes=2)
    assert ("warning", "line 2", "min_bytes") in got
    assert ("warning", "line 3", "min_bytes") in got
    assert ("warning", "line 4", "nNodes") in got
    assert ("warning", "line 5", "line") in got
    messages = [p.message for p in check(text, "f").problems]
    assert any("unreachable: the rule at line 1" in m for m in messages)
    assert any("overlaps the rule at line 1 for 1048000–1048576 bytes" in m for m in messages)


def _hccl(rule: dict[str, Any], op: str = "allreduce", **top: Any) -> str:
    doc = {"version": 1, "op_types": {op: {"rules": [rule]}}, **top}
    return json.dumps(doc)


_GOOD = {
    "match": {"min_ranks": 0, "max_ranks": 16, "min_bytes": 0, "max_bytes": 65536},
    "engine": "aicpu",
    "executor": "sole",
    "template": "nhr",
    "cost": 0.0,
}


def _with(**changes: Any) -> dict[str, Any]:
    rule = json.loads(json.dumps(_GOOD))
    for key, value in changes.items():
        target = rule["match"] if key.startswith("m_") else rule
        name = key.removeprefix("m_")
        if value is None:
            target.pop(name)
        else:
            target[name] = value
    return rule


@pytest.mark.parametrize(
    ("text", "where", "field", "words"),
    [
        (_hccl(_with(engine=None)), "op_types.allreduce.rules[0]", "engine", "missing engine"),
        (_hccl(_with(engine="ai-cpu")), "op_types.allreduce.rules[0]", "engine", "unknown engine"),
        (_hccl(_with(executor="strictordered")), "op_types.allreduce.rules[0]", "executor", "unknown executor"),
        (_hccl(_with(m_min_bytes=4096, m_max_bytes=1024)), "op_types.allreduce.rules[0].match", "min_bytes", "4096 > max_bytes 1024"),
        (_hccl(_with(m_min_ranks=16, m_max_ranks=8)), "op_types.allreduce.rules[0].match", "min_ranks", "> max_ranks"),
        (_hccl(_with(m_max_bytes=-1)), "op_types.allreduce.rules[0].match", "max_bytes", "no -1 for 'any'"),
        (_hccl(_with(m_max_ranks=None)), "op_types.allreduce.rules[0].match", "max_ranks", "missing max_ranks"),
        (_hccl(_with(match=None, mtach=_GOOD["match"])), "op_types.allreduce.rules[0]", "match", "missing match"),
        (_hccl(_with(cost="0")), "op_types.allreduce.rules[0]", "cost", "missing cost"),
        (_hccl(_GOOD, op="reducescatter"), "op_types.reducescatter", "op_type", "has an underscore"),
        (_hccl(_GOOD, version=2), "file", "version", "version must be 1"),
        ('{"version": 1, "op_types": {"allreduce": {"rules": []}}}', "op_types.allreduce", "rules", "non-empty"),
        ('{"version": 1, "op_types": {', "line 1", "json", "not JSON"),
    ],
)  # fmt: skip
def test_hccl_schema_errors_the_plugin_stands_aside_for(
    text: str, where: str, field: str, words: str
) -> None:
    checked = check(text, "hccl_tuner_config.json")
    found = [p for p in checked.errors if (p.where, p.field) == (where, field)]
    assert found, [(p.where, p.field, p.message) for p in checked.problems]
    assert words in found[0].message, found[0].message


def test_hccl_warnings_for_what_the_plugin_skips_or_never_matches() -> None:
    text = _hccl(
        _with(args={"x": 1}, priority=3, m_data_type="float8", template="meshconcurnhrnhr")
    )
    got = {(p.severity, p.field) for p in check(text, "f").problems}
    assert got == {("warning", "priority"), ("warning", "data_type"), ("warning", "template")}
    assert check(text, "f").rules  # legal: read, and said what it will not do


def test_cli_names_file_rule_and_field_and_exits_2_on_errors(tmp_path: Path) -> None:
    bad = tmp_path / "hccl_tuner_config.json"
    bad.write_text(_hccl(_with(m_min_bytes=4096, m_max_bytes=1024)))
    res = run_advisor(["validate", str(bad), str(DATA / "nccl_tuner.conf")], command="tuner")
    assert res.returncode == 2, res.stdout + res.stderr
    assert f"refused {bad}: hccl tuner config" in res.stdout
    assert (
        f"{bad}: op_types.allreduce.rules[0].match: min_bytes: min_bytes 4096 > max_bytes 1024"
        in res.stdout
    )
    assert (
        "ok " in res.stdout and "nccl_tuner.conf: nccl tuner config, 9 rule(s) read" in res.stdout
    )
    ok = run_advisor(["validate", str(DATA / "hccl_tuner_config.json")], command="tuner")
    assert ok.returncode == 0, ok.stdout


def _row(op: str, algorithm: str, size: int, p50: float, spread: float = 0.05) -> Any:
    from advisor.bench.collectives import BenchResult

    return BenchResult(
        op=op, dtype="fp32", algorithm=algorithm, in_place=True, bytes=size, count=size // 4,
        time_us_p50=p50, time_us_p10=p50 * (1 - spread), time_us_p90=p50 * (1 + spread),
        algbw_gbps=1.0, busbw_gbps=1.0, wrong=0,
    )  # fmt: skip


def test_bands_keep_only_wins_beyond_the_noise_and_merge_neighbours() -> None:
    from advisor.tuner.bands import bands

    sizes = [1024, 4096, 16384, 65536, 262144, 1048576]
    rows = []
    for s in sizes:
        rows.append(_row("all_reduce", "native", s, 100.0))
        # LL wins small sizes clearly; at 16 KiB it wins inside the noise (no band)
        ll = {1024: 50.0, 4096: 60.0, 16384: 97.0}.get(s, 150.0)
        rows.append(_row("all_reduce", "native[nccl-Ring-LL]", s, ll))
        simple = {262144: 70.0, 1048576: 60.0}.get(s, 180.0)
        rows.append(_row("all_reduce", "native[nccl-Ring-Simple]", s, simple))
    got = bands(rows)
    assert [(b.choice, b.measured_bytes) for b in got] == [
        ("native[nccl-Ring-LL]", [1024, 4096]),
        ("native[nccl-Ring-Simple]", [262144, 1048576]),
    ]
    low, high = got
    assert low.min_bytes == 0 and low.max_bytes == 8192  # half-way (geometric) to 16 KiB
    assert high.min_bytes == 131073 and high.max_bytes == 2**64 - 1
    assert round(low.gain, 2) == 1.67 and low.gain_low < low.gain
    assert low.native and high.native


def test_the_nccl_table_written_for_a_run_reads_clean_and_says_why(tmp_path: Path) -> None:
    from advisor.facts import Facts
    from advisor.tuner import outputs

    facts = Facts.read(Path(__file__).parent / "data" / "facts_2x8.json")
    facts.cluster.backend, facts.cluster.emulated = "nccl", False
    bench = facts.stages["bench"].data
    bench.variants = {"nccl-Tree-LL": {"NCCL_ALGO": "allreduce:tree", "NCCL_PROTO": "allreduce:ll"}}
    bench.results = [
        r
        for s in (1024, 4096, 1048576)
        for r in (
            _row("all_reduce", "native", s, 100.0),
            _row("all_reduce", "native[nccl-Tree-LL]", s, 40.0 if s < 10000 else 300.0),
        )
    ]
    from advisor.tuner.bands import bands

    bench.bands = bands(bench.results)
    (path,) = outputs.write(facts, tmp_path)
    text = path.read_text()
    checked = check(text, str(path), nodes=facts.cluster.nodes, ranks=facts.cluster.world_size)
    assert not checked.errors and len(checked.rules) == 1, checked.problems
    assert checked.rules[0].choice == "tree/ll" and checked.rules[0].max_bytes == 65536
    assert (
        f"allreduce,0,65536,tree,ll,0,{facts.cluster.nodes},{facts.cluster.world_size},-1,-1"
        in text
    )
    assert "# native[nccl-Tree-LL]: 2.50x the default's median time at 1024, 4096 B" in text


def test_a_run_checks_the_tuner_config_its_jobs_name(tmp_path: Path) -> None:
    from tests.conftest import only_stages

    bad = tmp_path / "nccl_tuner.conf"
    bad.write_text("allreduce,0,65536,Tree,simple,0,-1,-1\nallreduce,0,4096,ring,ll,0,-1,-1\n")
    res = run_advisor(
        [*only_stages("preflight"), f"+env.NCCL_TUNER_CONFIG_FILE={bad}"], tmp_path / "run"
    )
    (entry,) = res.facts["environment"]["tuner_configs"]
    assert entry["path"] == str(bad) and entry["format"] == "nccl"
    assert entry["errors"] == [
        "line 1: algorithm: unknown algorithm 'Tree' (names are exact and lower case: tree, ring, "
        "collnet_direct, collnet_chain, nvls, nvls_tree, pat): the plugin silently reads it as ring"
    ]
    findings = json.loads((res.run_dir / "findings.json").read_text())["findings"]
    misread = next(f for f in findings if f["rule_id"] == "tuner-config-misread")
    assert f"NCCL_TUNER_CONFIG_FILE={bad}: 1 error(s)" in misread["message"]
    assert res.returncode == 1  # a critical finding: not ready


def test_algo_auto_reduces_each_bucket_with_the_algorithm_its_size_band_names(
    tmp_path: Path,
) -> None:
    import subprocess
    import sys

    out = tmp_path / "auto.json"
    job = Path(__file__).with_name("auto_hook_job.py")
    subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2",
         str(job), str(out)],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    got = json.loads(out.read_text())
    # the 512x512 layer's bucket (1 MiB and more) went to tree, the small layers' to ring
    assert got["used"]["tree"] and min(got["used"]["tree"]) > 65536, got
    assert got["used"]["ring"] and max(got["used"]["ring"]) <= 65536, got
    assert got["max_abs_diff"] < 1e-4, got  # the same gradients as DDP's own all_reduce


def test_algo_auto_is_a_sweep_option() -> None:
    from advisor.sweep.config import SweepConfig

    SweepConfig(comms=["fp32", "algo:auto"])
    with pytest.raises(Exception, match="or auto"):
        SweepConfig(comms=["algo:fastest"])


def test_the_hccl_table_holds_the_nhr_bands_and_names_the_rest(tmp_path: Path) -> None:
    from advisor.facts import Facts
    from advisor.tuner import outputs
    from advisor.tuner.bands import bands

    facts = Facts.read(Path(__file__).parent / "data" / "facts_2x8.json")
    facts.cluster.backend, facts.cluster.emulated = "hccl", False
    bench = facts.stages["bench"].data
    bench.variants = {
        "hccl-NHR": {"HCCL_ALGO": "level0:NA;level1:NHR"},
        "hccl-ring": {"HCCL_ALGO": "level0:NA;level1:ring"},
    }
    bench.results = [
        r
        for s in (1024, 4096, 4194304, 16777216)
        for r in (
            _row("all_reduce", "native", s, 100.0),
            _row("all_reduce", "native[hccl-NHR]", s, 50.0 if s < 10000 else 300.0),
            _row("all_reduce", "native[hccl-ring]", s, 300.0 if s < 10000 else 40.0),
        )
    ]
    bench.bands = bands(bench.results)
    paths = outputs.write(facts, tmp_path)
    assert [p.name for p in paths] == ["hccl_tuner_config.json"]
    text = paths[0].read_text()
    checked = check(text, "hccl_tuner_config.json", ranks=facts.cluster.world_size)
    assert not checked.problems, checked.problems
    (rule,) = checked.rules
    assert (rule.op, rule.choice, rule.min_bytes) == ("allreduce", "aicpu/sole/nhr", 0)
    assert rule.min_ranks == rule.max_ranks == facts.cluster.world_size
    notes = json.loads(text)["advisor"]["notes"]
    assert any("native[hccl-ring]" in n and "no engine/executor/template" in n for n in notes)
