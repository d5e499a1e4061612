"""Facts read back are validated against the stage types: a renamed or mistyped field is an error
naming the file and the field's path, while a facts.json written before the types kept their
instances (and the synthetic fixtures) still loads into the typed model, in the same JSON shape."""

from __future__ import annotations

import copy
import json
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from advisor import cli, stages
from advisor.bench.collectives import BenchFacts, BenchResult
from advisor.errors import ConfigError
from advisor.evidence.load import EvidenceFacts
from advisor.facts import ClusterFacts, Facts
from advisor.probes.connectivity import ConnectivityFacts
from advisor.smoke import SmokeFacts
from tests.conftest import DATA
from tests.rules_facts import healthy

BENCH = ("stages", "bench", "data")
BEFORE_TYPED_2X2_STAGES = [
    "preflight",
    "smoke",
    "connectivity",
    "timeouts",
    "subgroups",
    "topology",
    "bench",
]


def launch_keys(stage_names: list[str]) -> set[tuple[str, ...]]:
    """The launch records added with the one-job launcher: the run's launches, and which launch
    ran each stage (empty in a file written before)."""
    return {("launches",), *(("stages", name, "launch") for name in stage_names)}


def flight_keys(stage_names: list[str]) -> set[tuple[str, ...]]:
    """Each stage's flight-recorder analysis (None: the stage did not fail, or ran before)."""
    return {("stages", name, "flight") for name in stage_names}


LOAD_FIELDS = ("load", "load_choices", "load_matrix_size", "load_period_ms", "load_max_slowdown")

BEFORE_TYPED = {
    # a live emulated 2x2 run: the typed model adds the fields that say where figures came from
    "facts_before_typed_2x2.json": {
        ("cluster", "imported"),
        (*BENCH, "imported"),
        (*BENCH, "sources"),
        *launch_keys(BEFORE_TYPED_2X2_STAGES),
        *flight_keys(BEFORE_TYPED_2X2_STAGES),
        (*BENCH, "bands"),
        ("environment", "tuner_configs"),
        # collectives under a compute load (empty: no load was asked for)
        *((*BENCH, name) for name in LOAD_FIELDS),
        ("run", "interrupted"),
        ("cluster", "shape_source"),
    },
    # `advisor import` of benchmark tables: its cluster had no chip; its bench data was a partial
    # mapping, now a BenchFacts with every default, its rows BenchResult rows (the figures a
    # table lacks are None)
    "facts_before_typed_import.json": {
        ("cluster", "chip"),
        *((*BENCH, f.name) for f in fields(BenchFacts) if f.name not in ("results", "avg_busbw_gbps", "imported", "sources")),
        *((*BENCH, "results", name) for name in ("variant", "link", "time_us_p10", "time_us_p90")),
        *launch_keys(["bench"]),
        *flight_keys(["bench"]),
        # imported flight-recorder dumps and the ranks' failure timeline
        ("evidence", "flight"),
        ("evidence", "timelines"),
        ("environment", "tuner_configs"),
        ("run", "interrupted"),
        # where the files came from, and the cluster shapes they state
        ("cluster", "shape_source"),
        ("evidence", "hosts"),
        ("evidence", "shapes"),
        # the hosts NCCL's debug prefixes name, per log
        ("evidence", "log_hosts"),
        # nvidia-smi nvlink -s / -e per GPU
        ("evidence", "nvlinks"),
        # nvidia-smi's status table per GPU
        ("evidence", "gpus"),
        # ibstat / ibv_devinfo / ibstatus / ibdev2netdev ports, nvidia-smi topo -p2p matrices
        ("evidence", "hca_ports"),
        ("evidence", "p2p"),
        # dcgmi diag tables
        ("evidence", "dcgm_diags"),
        # dcgmi nvlink --link-status per GPU or NvSwitch; nvbandwidth and p2pBandwidthLatencyTest
        ("evidence", "nvlink_states"),
        ("evidence", "gpu_copy"),
        # Ascend packages' version.info, and the driver/firmware pairs their ranges leave out
        ("evidence", "packages"),
        ("evidence", "package_mismatches"),
        # the parts of one host's stack another leaves out (CANN and driver, torch-npu and torch)
        ("evidence", "package_stack"),
        # and where one host's CANN contradicts itself (latest's links, its version.cfg)
        ("evidence", "package_conflicts"),
        # chips an npu-smi process table names where no chip row shows them
        ("evidence", "npu_process_chips"),
        # nvidia-smi -L's GPUs split into MIG devices
        ("evidence", "mig_gpus"),
    },
}  # fmt: skip
"""facts.json files written by the advisor before StageFacts.data held typed summaries (see
tests/data/SOURCES.md), with the keys the typed model adds (at their defaults) to each."""


def _load(name: str) -> dict[str, Any]:
    return json.loads((DATA / name).read_text())


def _missing_keys(old: Any, new: Any, at: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    """Paths of keys ``new`` has that ``old`` lacks (lists compared item by item)."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = {(*at, k) for k in new if k not in old}
        for k in old.keys() & new.keys():
            out |= _missing_keys(old[k], new[k], (*at, k))
        return out
    if isinstance(old, list) and isinstance(new, list):
        return {p for o, n in zip(old, new, strict=False) for p in _missing_keys(o, n, at)}
    return set()


def test_a_renamed_field_is_an_error_naming_the_file_and_its_path(tmp_path: Path) -> None:
    d = _load("facts_2x8.json")
    renamed = copy.deepcopy(d)
    row = renamed["stages"]["bench"]["data"]["results"][3]
    row["size_bytes"] = row.pop("bytes")  # a required field
    conn = renamed["stages"]["connectivity"]["data"]
    conn["mtu_mismatched"] = conn.pop("mtu_mismatch")  # a field with a default: never silent
    renamed["cluster"]["device_per_node"] = renamed["cluster"].pop("devices_per_node")
    path = tmp_path / "facts.json"
    path.write_text(json.dumps(renamed))
    with pytest.raises(ConfigError) as e:
        Facts.read(path)
    lines = str(e.value).splitlines()
    assert f"{path}: stages.bench.data.results.3.bytes: missing (a required field)" in lines
    assert (
        f"{path}: stages.bench.data.results.3.size_bytes: unknown field (renamed, or misspelt?)"
        in lines
    )
    assert (
        f"{path}: stages.connectivity.data.mtu_mismatched: unknown field (renamed, or misspelt?)"
        in lines
    )
    assert f"{path}: cluster.devices_per_node: missing (a required field)" in lines
    assert lines[-1].startswith("Fix: ") and "advisor report RUN_DIR" in lines[-1]
    # the untouched fixture loads, so it is the renames the error is about
    assert isinstance(Facts.from_dict(d).summary("bench"), BenchFacts)


def test_a_value_of_the_wrong_type_is_named_with_the_value() -> None:
    d = _load("facts_2x8.json")
    d["stages"]["bench"]["data"]["results"][3]["bytes"] = "1 MiB"
    with pytest.raises(ConfigError) as e:
        Facts.from_dict(d, source="facts.json")
    assert str(e.value).startswith(
        "facts.json: stages.bench.data.results.3.bytes: Input should be a valid integer"
    )
    assert "(got '1 MiB')" in str(e.value)


def test_every_problem_is_listed_up_to_a_limit() -> None:
    d = _load("facts_4x8.json")
    for pair in d["stages"]["connectivity"]["data"]["pairs"]:
        pair["latency"] = pair.pop("latency_us")
    with pytest.raises(ConfigError) as e:
        Facts.from_dict(d, source="facts.json")
    lines = str(e.value).splitlines()
    assert len(lines) == 20 + 2  # the first problems, how many more, the fix
    assert lines[-2].startswith("... and ") and lines[-2].endswith(" more")


@pytest.mark.parametrize(("name", "added"), BEFORE_TYPED.items())
def test_a_facts_json_from_before_the_types_loads_and_keeps_its_shape(
    name: str, added: set[tuple[str, ...]]
) -> None:
    old = _load(name)
    facts = Facts.read(DATA / name)
    assert isinstance(facts.cluster, ClusterFacts)
    for stage_name, sf in facts.stages.items():
        assert isinstance(sf.data, stages.get(stage_name).facts_type), stage_name
    again = json.loads(facts.to_json())
    assert _missing_keys(again, old) == set(), "a field of the file was dropped"
    assert _missing_keys(old, again) == added
    assert Facts.from_dict(again) == facts


def test_the_live_run_from_before_the_types_reads_as_typed_summaries() -> None:
    facts = Facts.read(DATA / "facts_before_typed_2x2.json")
    smoke: SmokeFacts = facts.summary("smoke")
    assert smoke.ranks_initialised == facts.cluster.world_size == 4
    conn: ConnectivityFacts = facts.summary("connectivity")
    assert {p.link for p in conn.pairs} <= {"intra", "inter"}
    assert facts.evidence is None  # nothing imported: facts.json says {}
    assert facts.to_dict()["evidence"] == {}


def test_an_import_from_before_the_types_keeps_its_imported_rows() -> None:
    facts = Facts.read(DATA / "facts_before_typed_import.json")
    assert facts.cluster.imported and facts.cluster.devices_per_node == 8
    bench: BenchFacts = facts.summary("bench")
    assert bench.imported and bench.sources
    assert all(isinstance(r, BenchResult) for r in bench.results)
    # an imported table gives one time per size: the percentiles are unknown, not zero
    assert {r.time_us_p10 for r in bench.results} == {None}
    assert isinstance(facts.evidence, EvidenceFacts) and facts.evidence.benchmarks


def test_a_stage_without_a_summary_reads_as_none_and_writes_as_before() -> None:
    d = _load("facts_2x8.json")
    d["stages"]["smoke"]["data"] = {}
    d["stages"]["future"] = dict(d["stages"]["smoke"], name="future", data={"x": [1, 2]})
    facts = Facts.from_dict(d)
    assert facts.summary("smoke") is None
    assert facts.summary("future") == {"x": [1, 2]}  # a stage this version does not know
    assert facts.to_dict()["stages"]["smoke"]["data"] == {}


def test_every_synthetic_fixture_fits_the_types() -> None:
    """The report, compare and rule tests build on these; each test loads them through
    Facts.from_dict too, so a fixture that drifts from the types fails there as well."""
    for name in ("facts_2x8.json", "facts_4x8.json"):
        Facts.from_dict(_load(name), source=name)
    for backend in ("hccl", "nccl", "gloo"):
        Facts.from_dict(healthy(backend)[0], source=f"rules_facts.healthy({backend})")


def test_a_file_that_is_not_json_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "facts.json"
    path.write_text('{"run": ')
    with pytest.raises(ConfigError, match=r"facts.json: not JSON .*advisor report RUN_DIR"):
        Facts.read(path)


def test_compare_on_a_facts_json_that_does_not_validate_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "a" / "facts.json"
    bad = tmp_path / "b" / "facts.json"
    for path in (good, bad):
        path.parent.mkdir()
    d = _load("facts_4x8.json")
    good.write_text(json.dumps(d))
    d["stages"]["timeouts"]["data"]["init_s"]["maximum"] = d["stages"]["timeouts"]["data"][
        "init_s"
    ].pop("max")
    bad.write_text(json.dumps(d))
    assert cli.main(["compare", str(good.parent), str(bad.parent)]) == 2
    err = capsys.readouterr().err
    assert "stages.timeouts.data.init_s.max: missing" in err
    assert "Traceback" not in err
