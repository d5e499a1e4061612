"""Format detection and conversion of ``advisor.evidence.load`` (in process, no subprocess)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from advisor.errors import ConfigError
from advisor.evidence.load import detect, load_file, load_paths
from tests.conftest import DATA

SAMPLES = DATA / "evidence"


@pytest.mark.parametrize(
    ("name", "formats"),
    [
        ("nccl_all_reduce_2x8_mpi.log", ["nccl_tests"]),
        ("hccl_test_all_reduce_2x8.log", ["hccl_test"]),
        ("npu_smi_info_910b_wide.txt", ["npu_smi_info"]),
        ("npu_smi_topo_910b.txt", ["npu_smi_topo"]),
        ("nvidia_smi_topo.txt", ["nvidia_smi_topo"]),
        ("hccn_npu_info_before.txt", ["hccn_tool"]),
        ("hccn.conf", ["hccn_conf"]),
        ("rank_table_v12.json", ["rank_table"]),
        ("watchdog_nccl_allreduce.log", ["log"]),
        ("unknown_notes.txt", []),
    ],
)
def test_detect(name: str, formats: list[str]) -> None:
    assert detect((SAMPLES / name).read_text()) == formats


def test_a_file_holding_several_formats_reads_each(tmp_path: Path) -> None:
    mixed = tmp_path / "npu_info_before.txt"
    mixed.write_text(
        (SAMPLES / "npu_smi_info_910b_wide.txt").read_text()
        + "\n"
        + (SAMPLES / "hccn_npu_info_before.txt").read_text()
    )
    facts = load_file(mixed)
    (report,) = facts.files
    assert (report.status, report.formats) == ("read", ["npu_smi_info", "hccn_tool"])
    assert len(facts.npu_chips) == 4
    assert len(facts.npu_ports) == 4


def test_one_failing_format_beside_a_good_one_is_partial(tmp_path: Path) -> None:
    mixed = tmp_path / "collected.txt"
    mixed.write_text("link status: UP\n| NPU   Name                | Health        |\n")
    (report,) = load_file(mixed).files
    assert report.status == "partial"
    assert report.formats == ["hccn_tool"]
    assert any(
        "npu_smi_info: npu-smi info table has no readable chip" in m.message
        for m in report.messages
    )


def test_a_file_named_after_its_binary_names_the_op(tmp_path: Path) -> None:
    shutil.copy(SAMPLES / "nccl_all_reduce_2x8_mpi.log", tmp_path / "all_reduce_perf.log")
    shutil.copy(SAMPLES / "hccl_test_all_gather_nocmd.log", tmp_path / "all_gather_test.log")
    facts = load_paths([tmp_path])
    assert sorted(b["op"] for b in facts.benchmarks) == ["all_gather", "all_reduce"]


def test_invalid_utf8_is_read_with_a_line_message(tmp_path: Path) -> None:
    path = tmp_path / "link.txt"
    path.write_bytes(b"# collected\nlink status: UP\nnote: caf\xe9\n")
    facts = load_file(path)
    (report,) = facts.files
    assert report.status == "partial"
    assert [(m.line, m.message) for m in report.messages] == [
        (3, "invalid UTF-8 byte; undecodable bytes were replaced")
    ]
    assert facts.npu_ports[0]["link"] == "UP"


def test_missing_path_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_paths([tmp_path / "nope"])
