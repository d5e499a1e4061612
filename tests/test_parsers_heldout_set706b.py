"""Outputs of round TTTT's held-out evaluation (sets 706 and 707, network and node tool outputs
on GPU clusters) that the advisor read wrong or in part before this change
(tests/data/evidence_heldout_80, sources in tests/data/SOURCES.md): UCCL's glog FATAL lines, a
failed CHECK that aborts the process, were not read: one with the year in glog's prefix
("F20250825 ...") left the log unreadable, one beside Open MPI's abort report was not named."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_80"

ROCE = "uccl_h100_glog_ncclIbRoceGetVersionNum_invalid_argument_check_failed_mlx5_0_uccl301_cut.log"
BIND = "uccl_net_plugin_glog_check_failed_bind_error_binding_sigabrt_two_hosts_uccl172_cut.log"

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def test_a_glog_fatal_check_with_the_year_is_a_failure_naming_the_hca() -> None:
    ev = _load(ROCE)
    assert ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-glog-fatal", "critical")]
    (item,) = heldout.items(outcome, "evidence-glog-fatal")
    assert "line 5)" in item
    assert "Check failed: ncclIbRoceGetVersionNum(" in item
    assert (
        "after line 4:" in item
        and "read failed in ncclIbRoceGetVersionNum: Invalid argument" in item
    )
    assert "HCA mlx5_0:1 (UCCL_IB_HCA, line 2)" in item


def test_another_hca_is_named_as_its_log_says(tmp_path: Path) -> None:
    ev = _write(tmp_path, _text(ROCE).replace("mlx5_0:1", "mlx5_3:2"))
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-glog-fatal")
    assert "HCA mlx5_3:2 (UCCL_IB_HCA, line 2)" in item and "mlx5_0" not in item


def test_the_same_log_without_its_fatal_line_is_no_failure(tmp_path: Path) -> None:
    # (the warning alone, glog's W level: the program went on; its three first lines kept)
    healthy = "\n".join(_text(ROCE).splitlines()[:4]) + "\n"
    ev = _write(tmp_path, healthy)
    level, outcome = heldout.imported(ev)
    assert level != "NOT READY"
    assert not [f for f in outcome.findings if f.rule_id == "evidence-glog-fatal"]


def test_a_bind_check_failure_beside_open_mpis_abort_is_named_too() -> None:
    ev = _load(BIND)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-glog-fatal")
    assert "util.h:139] Check failed: bind(*listen_fd" in item and "ERROR: binding" in item
    assert "line 8)" in item
    # the abort of process 1159290 on n232-194-226 is still named (line 10)
    (abort,) = heldout.items(outcome, "evidence-launcher-exit")
    assert "[n232-194-226:1159290]" in abort and "line 10)" in abort


def test_a_glog_fatal_without_the_year_alone_is_read_the_same(tmp_path: Path) -> None:
    text = "\n".join(
        [
            "I0721 02:48:28.800000 1159892 main.cc:10] starting",
            "F0721 02:48:28.834262 1159892 util.h:139] Check failed: bind(fd) >= 0 ERROR: binding",
            "*** Check failure stack trace: ***",
        ]
    )
    level, outcome = heldout.imported(_write(tmp_path, text + "\n"))
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-glog-fatal")
    assert "line 2)" in item and "HCA" not in item
