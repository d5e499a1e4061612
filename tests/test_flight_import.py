"""Flight-recorder dumps users already have, read by ``advisor import`` and compared.

Samples: ``tests/data/flight/gloo-2.13-*`` are real gloo dumps of torch 2.13 (captured by
``tests/data/flight/capture.py``, see SOURCES.md). The nccl and torch_npu variants are the same
buffers rewritten into those formats' fields (torch ``FlightRecorder.hpp`` version 2.10 with
``pg_config`` per group; torch_npu ``TraceUtils.h`` version 2.4 with an empty ``profiling_name``,
the op left to the first stack frame as torch_npu's analyzer reads it): no public thread
carries a dump file.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
from pathlib import Path
from typing import Any

import pytest

from advisor.flight.analyze import analyze
from advisor.flight.load import Dump, DumpError, parse_bytes, read_dir
from tests.conftest import run_advisor

DATA = Path(__file__).parent / "data" / "flight"


def _load(name: str) -> list[dict[str, Any]]:
    return [pickle.loads(p.read_bytes()) for p in sorted((DATA / name / "dumps").glob("fr_rank_*"))]


def _nccl(doc: dict[str, Any], world: int) -> dict[str, Any]:
    doc = json.loads(json.dumps(doc))
    doc["pg_config"] = {"0": {"name": "0", "desc": "default_pg", "ranks": str(list(range(world)))}}
    for e in doc["entries"]:
        e["profiling_name"] = "nccl:" + e["profiling_name"].split(":", 1)[-1]
        e["state"] = "completed" if e["retired"] else "started"
        e["process_group"] = ["0", "default_pg"]
    return doc


def _npu(doc: dict[str, Any]) -> dict[str, Any]:
    doc = json.loads(json.dumps(doc))
    doc["version"] = "2.4"
    doc["pg_config"] = {"0": {"name": "0", "desc": "default_pg", "ranks": "[0, 1, 2, 3]"}}
    doc.pop("comm_lib_version", None)
    for e in doc["entries"]:
        e["profiling_name"] = ""  # torch_npu names no plain HCCL collective
        e["state"] = "completed" if e["retired"] else "scheduled"
    return doc


def _write(folder: Path, prefix: str, docs: list[dict[str, Any]], as_json: bool = False) -> Path:
    folder.mkdir(parents=True)
    for rank, doc in enumerate(docs):
        if as_json:
            (folder / f"{prefix}{rank}.json").write_text(json.dumps(doc))
        else:
            (folder / f"{prefix}{rank}").write_bytes(pickle.dumps(doc, protocol=2))
    return folder


def _import(tmp_path: Path, *paths: Path):
    return run_advisor([str(p) for p in paths], tmp_path / "out", command="import")


def test_import_of_the_advisors_own_dumps_names_rank_node_and_op(tmp_path: Path) -> None:
    folder = shutil.copytree(DATA / "gloo-2.13-op", tmp_path / "job")
    res = _import(tmp_path, folder)
    # the dumps show ranks in different collectives: a critical finding, exit 1 (NOT READY)
    assert res.returncode == 1, res.stdout + res.stderr
    assert "read       " in res.stdout and "(flight_recorder)" in res.stdout
    assert "flight-mismatch" in res.stdout, res.stdout
    run_dir = Path(res.stdout.split(" into ")[1].split()[0])
    facts = json.loads((run_dir / "facts.json").read_text())
    (fl,) = facts["evidence"]["flight"]
    first = fl["culprits"][0]
    assert (first["rank"], first["pattern"]) == (2, "mismatch"), fl["summary"]
    assert first["node_name"] == "node1" and first["host"] == "capture-host"
    assert "issued broadcast" in first["detail"] and "all_reduce #3" in first["detail"]
    assert fl["analyzer"] == "advisor" and "KeyError" in fl["analyzer_note"]
    report = (run_dir / "report.html").read_text()
    assert 'id="sec-flight-import"' in report and "issued broadcast" in report


def test_nccl_dumps_take_torchs_analyzer_and_agree(tmp_path: Path) -> None:
    docs = [_nccl(d, 4) for d in _load("gloo-2.13-op")]
    dumps, problems = read_dir(_write(tmp_path / "nccl", "nccl_trace_rank_", docs))
    assert not problems and [d.rank for d in dumps] == [0, 1, 2, 3]
    from advisor.flight.examine import examine

    fl = examine(dumps, source="nccl")
    assert fl.backend == "nccl" and fl.culprits[0].rank == 2
    assert fl.analyzer == "torch", fl.analyzer_note
    assert "all_reduce #3" in fl.analyzer_note or "#3" in fl.analyzer_note


def test_json_dumps_read_as_pickles_are(tmp_path: Path) -> None:
    docs = [_nccl(d, 4) for d in _load("gloo-2.13-hang")]
    dumps, problems = read_dir(_write(tmp_path / "json", "nccl_trace_rank_", docs, as_json=True))
    assert not problems and len(dumps) == 4
    fl = analyze(dumps, source="json", world=range(4))
    assert (fl.culprits[0].rank, fl.culprits[0].pattern) == (1, "never_entered")
    assert fl.groups[0].seq == 2 and fl.groups[0].op == "all_reduce"


def test_torch_npu_dumps_name_the_op_from_the_stack(tmp_path: Path) -> None:
    docs = [_npu(d) for d in _load("gloo-2.13-op")]
    dumps, _ = read_dir(_write(tmp_path / "npu", "hccl_trace_rank_", docs))
    fl = analyze(dumps, source="npu", world=range(4))
    first = fl.culprits[0]
    assert (
        first.rank == 2 and "issued broadcast" in first.detail and "all_reduce #3" in first.detail
    )


def test_a_rank_that_never_finished_with_every_member_in_is_not_completed() -> None:
    docs = [_nccl(d, 4) for d in _load("gloo-2.13-op")]
    docs = [d for d in docs]
    for doc in docs:  # everyone issued all_reduce #3 alike; rank 3 never finished it
        for e in doc["entries"]:
            if e["collective_seq_id"] == 3:
                e["profiling_name"], e["input_sizes"] = "nccl:all_reduce", [[16]]
                e["state"] = "started" if doc is docs[3] else "completed"
    dumps = [
        Dump(path=f"r{r}", rank=r, version="2.10", entries=[e for e in d["entries"] if
             e["collective_seq_id"] <= 3], pg_config=d["pg_config"])
        for r, d in enumerate(docs)
    ]  # fmt: skip
    fl = analyze(dumps, source="t", world=range(4))
    assert [(c.rank, c.pattern) for c in fl.culprits] == [(3, "not_completed")], fl.summary


def test_a_ring_buffer_that_forgot_its_oldest_entries_is_aligned() -> None:
    docs = [_nccl(d, 4) for d in _load("gloo-2.13-hang")]
    docs[0]["entries"] = docs[0]["entries"][1:]  # rank 0 no longer holds #1
    dumps = [Dump(path="x", rank=r, version="2.10", entries=d["entries"], pg_config=d["pg_config"])
             for r, d in enumerate(docs)]  # fmt: skip
    fl = analyze(dumps, source="t", world=range(4))
    assert fl.culprits[0].rank == 1 and fl.groups[0].seq == 2


def test_membership_that_differs_in_pg_config_is_named() -> None:
    docs = [_nccl(d, 4) for d in _load("gloo-2.13-op")]
    docs[1]["pg_config"]["7"] = {"name": "7", "desc": "tp", "ranks": "[0, 1, 3]"}
    for r in (0, 2):
        docs[r]["pg_config"]["7"] = {"name": "7", "desc": "tp", "ranks": "[0, 1, 2]"}
    dumps = [Dump(path="x", rank=r, version="2.10", entries=d["entries"], pg_config=d["pg_config"])
             for r, d in enumerate(docs)]  # fmt: skip
    fl = analyze(dumps, source="t", world=range(4))
    assert (fl.culprits[0].rank, fl.culprits[0].pattern) == (1, "membership"), fl.summary
    assert "0, 1, 3" in fl.culprits[0].detail


def test_a_pickle_that_names_code_is_refused_not_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"

    class Evil:
        def __reduce__(self) -> tuple[Any, ...]:
            return (os.system, (f"touch {marker}",))

    payload = pickle.dumps({"version": "2.10", "entries": [], "x": Evil()}, protocol=2)
    with pytest.raises(DumpError, match="refused rather than run"):
        parse_bytes(payload)
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "nccl_trace_rank_0").write_bytes(payload)
    res = _import(tmp_path, folder)
    assert not marker.exists()
    assert "unreadable" in res.stdout and "refused rather than run" in res.stdout, res.stdout


def test_recorder_variables_follow_the_torch_version() -> None:
    """torch 2.8 renamed the recorder's variables (FlightRecorder.hpp reads TORCH_FR_* first and
    warns on the NCCL-named ones); torch_npu keeps its TORCH_HCCL_* names."""
    from advisor.flight.settings import recorder_env

    assert recorder_env("nccl", 100, "/d/p", torch_version="2.13.0") == {
        "TORCH_FR_BUFFER_SIZE": "100",
        "TORCH_NCCL_DUMP_ON_TIMEOUT": "1",
        "TORCH_FR_DUMP_TEMP_FILE": "/d/p",
    }
    assert recorder_env("nccl", 100, "/d/p", torch_version="2.6.0") == {
        "TORCH_NCCL_TRACE_BUFFER_SIZE": "100",
        "TORCH_NCCL_DUMP_ON_TIMEOUT": "1",
        "TORCH_NCCL_DEBUG_INFO_TEMP_FILE": "/d/p",
    }
    assert recorder_env("gloo", 5, torch_version="2.7.1") == {"TORCH_NCCL_TRACE_BUFFER_SIZE": "5"}
    assert (
        recorder_env("hccl", 5, "/d/h", torch_version="2.13.0")["TORCH_HCCL_DEBUG_INFO_TEMP_FILE"]
        == "/d/h"
    )
