"""Outputs of round TTTT's held-out evaluation (set 703, Ascend tool outputs) that the advisor
read wrong or in part before this change (tests/data/evidence_heldout_80, sources in
tests/data/SOURCES.md): a site's ACL host-to-device copy probe (key=value lines, a GB/s figure a
device and the aggregates) was no format the advisor knew; and HCCP's failed TLS handshake ("SSL
routines:ssl3_get_record:wrong version number, The possible cause is that the TLS switch is
inconsistent", the Ascend case library's case 9514) was quoted as an unknown program's error line,
a warning, where the NPUs' links cannot be set up: NOT READY, with the TLS switches to compare."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_80"

ACL_COPY = "acl_copy_h2d_910b3_8dev_24gbps_each_aggregate_194gbps_vllmhust_devhub.txt"
HCCP_TLS = "hccp_ssl_wrong_version_number_tls_switch_inconsistent_hiascend_case9514_cut.log"

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


# --- the ACL copy probe's key=value lines -----------------------------------------------------


def test_the_acl_copy_probe_is_read_with_its_figures_and_not_judged() -> None:
    ev = _load(ACL_COPY)
    assert ev.files[0].formats == ["ascend_notes"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    ((line, note),) = _said(ev)
    assert line == 2  # the first device's line
    for said in (
        "ACL copy probe h2d (host to device), 512 MiB a device, 20 iterations, "
        "devices 0,1,2,3,4,5,6,7 (line 1)",
        "8 device(s), 24.20-24.43 GB/s each (lowest device 1, line 3; highest device 0, line 2)"
        " (lines 2-9)",
        "aggregate 194.77 GB/s summed (line 10)",
        "193.57 GB/s by wall clock (line 11)",
        "not judged",
    ):
        assert said in note, said


def test_another_node_slow_device_and_mode_are_said_as_printed(tmp_path: Path) -> None:
    # another run: four devices, device 6 at a third of the others, a mode the probe's results
    # do not name (shown as printed), no head line's size in MiB
    text = (
        "mode=d2h bytes_per_device=1000000 iters=5 devices=4,5,6,7\n"
        "per_device device=4 seconds=0.10 bandwidth_GBps=21.50\n"
        "per_device device=5 seconds=0.10 bandwidth_GBps=21.70\n"
        "per_device device=6 seconds=0.30 bandwidth_GBps=7.10\n"
        "per_device device=7 seconds=0.10 bandwidth_GBps=21.60\n"
        "aggregate_sum_GBps=71.90\n"
    )
    ev = _write(tmp_path, text)
    assert ev.files[0].status == "read"
    ((line, note),) = _said(ev)
    assert line == 2
    assert "d2h, 1000000 bytes a device, 5 iterations, devices 4,5,6,7 (line 1)" in note
    assert "(host to device)" not in note
    assert "4 device(s), 7.10-21.70 GB/s each (lowest device 6, line 4; highest device 5" in note
    assert "aggregate 71.90 GB/s summed (line 6)" in note and "wall clock" not in note
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []


def test_the_probes_head_line_alone_is_no_reading(tmp_path: Path) -> None:
    # its head without a device's figure says nothing measured: not a note of figures
    ev = _write(tmp_path, _text(ACL_COPY).splitlines()[0] + "\n")
    assert not any("GB/s" in m for _, m in _said(ev))


# --- HCCP's failed TLS handshake ----------------------------------------------------------------


def test_hccp_tls_handshake_failure_is_not_ready_with_the_tls_switch_to_compare() -> None:
    ev = _load(HCCP_TLS)
    assert ev.files[0].status == "read"
    (failure,) = ev.failures
    assert failure["kind"] == "hccp_tls_failure" and failure["line"] == 1
    assert failure["exception_type"] == "ssl3_get_record:wrong version number"
    assert failure["code_name"] == "TLS switch inconsistent"
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-hccp-tls-handshake", "critical")]
    (item,) = heldout.items(outcome, "evidence-hccp-tls-handshake")
    assert "SSL ssl3_get_record:wrong version number (TLS switch inconsistent)" in item
    assert "line 1)" in item
    advice = " ".join(r.why for r in outcome.advice if r.rule_id == "evidence-hccp-tls-handshake")
    assert "hccn_tool -i $i" in advice and "-tls -g" in advice and "-tls -s" in advice


def test_a_real_plog_prefix_names_the_process_and_each_process_is_one_failure(
    tmp_path: Path,
) -> None:
    # the line as HCCP's plog prefix writes it (pid and program, time, file), for two processes,
    # the first one twice (its next peer): two failures, each process's first line
    said = _text(HCCP_TLS).split("err msg ", 1)[1].rstrip("\n")
    text = (
        "[INFO] HCCL(2988,python3):2025-10-24-15:39:20.100.000 [init.cc:10] start\n"
        f"[ERROR] HCCP(3011,hccp_service.bin):2025-10-24-15:39:26.133.826 [rs_ssl.c:900]tid:3011,"
        f"rs_ssl_connect(900) : err msg {said}\n"
        f"[ERROR] HCCP(3011,hccp_service.bin):2025-10-24-15:39:27.133.826 [rs_ssl.c:900]tid:3011,"
        f"rs_ssl_connect(900) : err msg {said}\n"
        f"[ERROR] HCCP(3120,hccp_service.bin):2025-10-24-15:39:28.133.826 [rs_ssl.c:900]tid:3120,"
        f"rs_ssl_connect(900) : err msg {said}\n"
    )
    ev = _write(tmp_path, text)
    tls = [f for f in ev.failures if f["kind"] == "hccp_tls_failure"]
    assert [(f["pid"], f["line"]) for f in tls] == [(3011, 2), (3120, 4)]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    items = heldout.items(outcome, "evidence-hccp-tls-handshake")
    assert any("(pid 3011)" in i and "line 2)" in i for i in items)


def test_an_ssl_line_without_hccps_cause_is_still_the_handshake_not_the_switch(
    tmp_path: Path,
) -> None:
    # another SSL reason and no "TLS switch" words: the handshake failed, no cause invented
    text = (
        "[ERROR] HCCP(77,hccp_service.bin):2025-01-01-00:00:00.000.000 [rs_ssl.c:1]tid:77,"
        "rs_ssl_connect(1) : err msg error:**SSL routines:tls_process_server_certificate:"
        "certificate verify failed\n"
    )
    ev = _write(tmp_path, text)
    (failure,) = [f for f in ev.failures if f["kind"] == "hccp_tls_failure"]
    assert failure["exception_type"] == "tls_process_server_certificate:certificate verify failed"
    assert failure["code_name"] is None
    _, outcome = heldout.imported(ev)
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-hccp-tls-handshake"]
    assert "TLS switch differs" not in finding.message


def test_an_hccp_run_log_without_ssl_errors_stays_ready(tmp_path: Path) -> None:
    # the healthy twin: HCCP's own record of its TLS switch (rs_ssl_init), no SSL failure
    text = (
        "[INFO] HCCP(2988,hccp_service.bin):2025-10-24-15:39:26.133.826 [rs_ssl.c:1529]tid:2988,"
        "rs_ssl_init(1529) : TLS SWITCH (0)\n"
    )
    ev = _write(tmp_path, text)
    assert not [f for f in ev.failures if f["kind"] == "hccp_tls_failure"]
    level, _ = heldout.imported(ev)
    assert level == "READY"
