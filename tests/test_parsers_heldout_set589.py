"""Outputs of round AAAA's held-out set 589 that the advisor read as no format at all before this
change (tests/data/evidence_heldout_63, sources in tests/data/SOURCES.md): msnpureport's exported
``hisi_logs/device_info.txt``, the devices the driver probed and each one's state. Its writer is
the driver's black box dump (hicann/driver, bbox_dump_exception.c ``bbox_save_devices_info``):
hexadecimal counts, then a row a device whose status is ``os running``, ``heartbeat lost``,
``boot failed`` (offline; ``device-offline-N`` on Ascend 950) or ``unknown``."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest

from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.parsers import ParseError, msnpureport
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_63"

ONE_RUNNING = "msnpureport_hisi_logs_device_info_txt_1_device_os_running_tabs_oamtools_ut.txt"

_HEAD = "dir                phy-id    logic-id    status\n"


def _counts(device: int, probe: int, online: int, offline: int) -> str:
    """device_info.txt's head as bbox_save_devices_info prints it (0x%x, two tabs)."""
    return (
        "base info:\n" + "=" * 50 + "\n"
        f"device num:\t\t{device:#x}\nprobe num:\t\t{probe:#x}\n"
        f"online num:\t\t{online:#x}\noffline num:\t\t{offline:#x}\n\n"
        "devices info:\n" + "=" * 50 + "\n"
    )


def _row(folder: str, phy: int, logic: int, status: str) -> str:
    """A row as bbox_format_devices_info prints it ("%-2d" columns)."""
    return f"{folder:<19}{phy:<10}{logic:<12}{status}\n"


_write = partial(heldout.load_copy, name="device_info.txt")


def _states(ev: EvidenceFacts) -> list[tuple[str, int, int | None]]:
    return [(f["code"], f["line"], f["device"]) for f in ev.failures]


def test_one_device_probed_online_and_running_is_ready() -> None:
    ev = load_paths([HELDOUT / ONE_RUNNING])
    assert ev.files[0].formats == ["msnpureport_devices"]
    assert ev.files[0].status == "read"
    assert ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert [f.rule_id for f in outcome.findings if f.severity != "info"] == []
    counts, running = heldout.said(ev)
    assert counts == (
        "msnpureport_devices: msnpureport device_info.txt: device num 1, probe num 1, "
        "online num 1, offline num 0"
    )
    assert [m.line for m in ev.files[0].messages] == [3, 11]
    assert running.endswith("1 device(s) with their OS running: device-0 (phy-id 0, logic-id 0)")
    # (every device has its row: nothing is said cut, offline or unknown)
    assert not any(
        w in m for m in heldout.said(ev) for w in ("cut", "offline:", "not known", "lost")
    )


def test_an_offline_and_a_heartbeat_lost_device_are_not_ready(tmp_path: Path) -> None:
    # Ascend 950's writer: 17 probed, 16 logical (0x10), the 17th offline with no logic id
    rows = "".join(
        _row(f"device-{i}", i, i, "heartbeat lost" if i == 5 else "os running") for i in range(16)
    )
    ev = _write(
        tmp_path,
        _counts(16, 17, 16, 1) + _HEAD + rows + _row("device-offline-16", 16, -1, "boot failed"),
    )
    assert ev.files[0].formats == ["msnpureport_devices"]
    assert _states(ev) == [("heartbeat lost", 16, 5), ("boot failed", 27, None)]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (down,) = [f for f in outcome.findings if f.severity != "info"]
    assert (down.rule_id, down.severity) == ("evidence-npu-device-down", "critical")
    lost, failed = (str(i) for i in down.items)
    assert lost.startswith("device-5 (phy-id 5, logic-id 5): its OS booted, then stopped")
    assert failed.startswith("device-offline-16 (phy-id 16, no logic id (-1)): offline")
    assert "device num 16, probe num 17, online num 16, offline num 1" in heldout.said(ev)[0]
    assert "15 device(s) with their OS running" in heldout.said(ev)[1]


def test_the_offline_count_alone_says_devices_are_down(tmp_path: Path) -> None:
    # (a copy of the head alone: the rows are not there to name them)
    ev = _write(tmp_path, _counts(8, 8, 6, 2))
    assert _states(ev) == [("offline", 6, None)]
    assert "2 device(s) offline" in ev.failures[0]["exception_type"]
    assert heldout.imported(ev)[0] == "NOT READY"
    said = heldout.said(ev)
    assert any("no row of the 8 device(s) probed in the copy" in m for m in said)
    # the online count takes in heartbeat-lost devices: without their rows that stays open
    assert "only its row says whether its OS runs" in said[0]


def test_an_unknown_state_is_a_warning_and_a_cut_status_is_not_judged(tmp_path: Path) -> None:
    text = (
        _counts(3, 3, 2, 0)
        + _HEAD
        + _row("device-0", 0, 0, "unknown")
        + _row("device-1", 1, 1, "os running")
        + "device-2           2         2           os runn"
    )
    ev = _write(tmp_path, text)
    assert _states(ev) == [("unknown", 11, 0)]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert [f.rule_id for f in outcome.findings if f.severity != "info"] == [
        "evidence-npu-device-state-unknown"
    ]
    assert any(
        "device-2 (phy-id 2, logic-id 2)'s status is cut off ('os runn')" in m
        for m in heldout.said(ev)
    )


def test_no_device_probed_is_a_warning(tmp_path: Path) -> None:
    ev = _write(tmp_path, _counts(0, 0, 0, 0) + _HEAD)
    assert _states(ev) == [("none", 4, None)]
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"


@pytest.mark.parametrize(
    "copy",
    [
        # a Markdown quote, the command's prompt above it, the older column layout
        lambda text: (
            "$ cat hisi_logs/device_info.txt\n"
            + "".join(f"> {line}\n" for line in text.splitlines())
        ),
        # indented as a document's code block, with Windows line ends
        lambda text: "".join(f"    {line}\r\n" for line in text.splitlines()),
    ],
    ids=["quoted", "indented-crlf"],
)
def test_a_quoted_or_indented_copy_reads_alike(tmp_path: Path, copy: Callable[[str], str]) -> None:
    text = (HELDOUT / ONE_RUNNING).read_text().replace("os running", "boot failed")
    ev = _write(tmp_path, copy(text))
    assert ev.files[0].formats == ["msnpureport_devices"]
    assert [f["code"] for f in ev.failures] == ["boot failed"]
    assert ev.failures[0]["device"] == 0


def test_rows_alone_read_and_long_lines_take_linear_time() -> None:
    (info,) = msnpureport.parse(_row("device-3", 3, 3, "heartbeat lost"))
    assert (info.counts, [(r.folder, r.status) for r in info.rows]) == (
        {},
        [("device-3", "heartbeat lost")],
    )
    with pytest.raises(ParseError):
        msnpureport.parse("device num: 8 ranks\n")
    signature = re.compile(msnpureport.SIGNATURE, re.M)
    for line in ("device-1 " * 40_000, "device num: " + " " * 300_000, "dir " * 80_000):
        started = time.perf_counter()
        assert signature.search(line) is None
        with pytest.raises(ParseError):
            msnpureport.parse(line)
        assert time.perf_counter() - started < 2.0
