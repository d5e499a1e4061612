"""msnpureport's ``hisi_logs/device_info.txt``: the devices the driver probed, and each one's state.

``msnpureport`` (and ``msnpureport report``) exports the device logs to a folder whose
``hisi_logs/device_info.txt`` "records the device information" (hicann/driver, docs/zh/
msnpureport/export-device-logs-and-files/export-device-logs-and-files-at-one-time.md). Its black
box dump writes it (hicann/driver, src/ascend_hal/bbox/bbox_tools/dump_tool/dump_lib/
bbox_dump_exception.c, ``bbox_save_devices_info``)::

    base info:
    ==================================================
    device num:\t\t0x1          (drvGetDevNum: the logical devices)
    probe num:\t\t0x1           (halGetDevProbeList: the physical devices probed)
    online num:\t\t0x1
    offline num:\t\t0x0

    devices info:
    ==================================================
    dir                phy-id    logic-id    status
    device-0           0         0           os running

The counts are hexadecimal (``0x%x``: ``0x10`` is 16). A row's status is one of
``bbox_get_devices_status_des``'s words (bbox_dump_exception.h), set by
``bbox_online_device_state`` and ``bbox_offline_device_state``:

- ``os running``: the device's OS runs (counted online);
- ``heartbeat lost``: it booted, then the host lost its communication (DRV_STATUS_COMMUNICATION_LOST
  after the boot finished): still counted online, but its OS no longer answers, and the dump
  saves its heartbeat-lost event (and, asked for, its vmcore);
- ``boot failed``: counted offline: its OS did not finish booting, or a device probed that the
  driver never made a logical device of (the Ascend 950 writer names its folder
  ``device-offline-N`` and may give it no logic id, -1: dump_impl/product/bbox_dump_david.c);
- ``unknown``: its state was not read.

Older versions align the columns differently (``dir        phy-id``); the words are the same.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from advisor.parsers import ParseError, ParseWarning, numbered_lines

# the counts' first two lines, the rows' heading, or a row with one of the states the tool writes
# (each line's words found wherever they stand: a quote's "> " or an indent before them)
SIGNATURE = (
    r"\bdevice num:[ \t]*(?:0x)?[0-9a-fA-F]{1,8}[ \t]*\r?\n[^\n]{0,40}?\bprobe num:"
    r"|\bdir[ \t]+phy-id[ \t]+logic-id[ \t]+status\b"
    r"|\bdevice-(?:offline-)?\d{1,4}[ \t]+\d{1,4}[ \t]+-?\d{1,4}[ \t]+"
    r"(?:os running|heartbeat lost|boot failed)\b"
)
_COUNT_RE = re.compile(
    r"\b(?P<what>device|probe|online|offline) num:[ \t]*(?P<n>0x[0-9a-fA-F]{1,8}|\d{1,8})\b"
)
_HEAD_RE = re.compile(r"\bdir[ \t]+phy-id[ \t]+logic-id[ \t]+status\b")
# (each field bounded and the status read from what follows: one pass over the line)
_ROW_RE = re.compile(
    r"\b(?P<dir>device-(?:offline-)?\d{1,4})[ \t]+(?P<phy>\d{1,4})[ \t]+(?P<logic>-?\d{1,4})"
    r"(?:[ \t]+(?P<status>[a-z][a-z ]{0,40}))?"
)

RUNNING = "os running"
"""The state of a device whose OS runs."""
DOWN_STATES = ("heartbeat lost", "boot failed")
"""States of a device whose OS does not answer: one its job cannot use."""
STATES = (RUNNING, *DOWN_STATES, "unknown")
"""Every state bbox_dump_exception.h names for a row it writes (``no device`` rows are left out)."""


@dataclass(kw_only=True)
class DeviceRow:
    line: int
    folder: str
    """The row's ``dir``: ``device-0``, ``device-offline-3``."""
    phy_id: int
    logic_id: int | None
    """None where the tool wrote -1: no logical device was made of it."""
    status: str
    """As written: one of ``STATES``, another word, or "" where the copy ends before it."""
    cut: bool = False
    """The copy ends inside the status: what it was is not known."""


@dataclass(kw_only=True)
class DeviceInfo:
    """One ``device_info.txt``: its counts (None where the copy has none) and its rows."""

    line: int
    counts: dict[str, int] = field(default_factory=dict)
    """``device``, ``probe``, ``online``, ``offline``: the numbers the file heads with."""
    count_lines: dict[str, int] = field(default_factory=dict)
    rows: list[DeviceRow] = field(default_factory=list)
    headed: bool = False
    """The rows' heading (``dir phy-id logic-id status``) is in the copy."""


def _number(said: str) -> int:
    return int(said, 16) if said.lower().startswith("0x") else int(said)


def parse(text: str) -> list[DeviceInfo]:
    """Each ``device_info.txt`` in ``text`` (a new one at each ``device num:``, as several hosts'
    files printed one after another); ParseError when none is there."""
    files: list[DeviceInfo] = []
    lines = numbered_lines(text)
    last = max((no for no, line, _ in lines if line.strip()), default=0)
    for no, line, _ in lines:
        if "num:" in line and (c := _COUNT_RE.search(line)):
            what = c.group("what")
            if not files or what == "device" or what in files[-1].counts or files[-1].rows:
                files.append(DeviceInfo(line=no))
            files[-1].counts[what] = _number(c.group("n"))
            files[-1].count_lines[what] = no
        elif "phy-id" in line and _HEAD_RE.search(line):
            if not files or files[-1].headed:
                files.append(DeviceInfo(line=no))
            files[-1].headed = True
        elif "device-" in line and (r := _ROW_RE.search(line)):
            if not files:
                files.append(DeviceInfo(line=no))
            status = (r.group("status") or "").strip()
            # a status that stops short of the tool's word on the copy's last line: cut there
            cut = no == last and status not in STATES and any(s.startswith(status) for s in STATES)
            logic = int(r.group("logic"))
            files[-1].rows.append(
                DeviceRow(
                    line=no,
                    folder=r.group("dir"),
                    phy_id=int(r.group("phy")),
                    logic_id=logic if logic >= 0 else None,
                    status=status,
                    cut=cut,
                )
            )
    files = [f for f in files if f.rows or len(f.counts) >= 2]
    if not files:
        raise ParseError("no msnpureport device_info.txt counts or device rows")
    return files


_MEANINGS = {
    "boot failed": "offline: its OS did not finish booting (or the driver made no device of it)",
    "heartbeat lost": "its OS booted, then stopped answering the host (heartbeat lost; the tool "
    "still counts it online)",
    "unknown": "msnpureport could not read its state",
}


def trouble_of(row: DeviceRow) -> str | None:
    """Why ``row``'s device is not known to be usable, or None: its OS runs, or the copy cut its
    status off (then nothing is known to judge)."""
    if row.cut or not row.status or row.status == RUNNING:
        return None
    # (a word the tool's source does not write: not read as running)
    return _MEANINGS.get(row.status, f"a state msnpureport does not write ({row.status!r})")


def row_said(row: DeviceRow) -> str:
    """A row as the note says it: ``device-0 (phy-id 0, logic-id 0)``."""
    logic = f"logic-id {row.logic_id}" if row.logic_id is not None else "no logic id (-1)"
    return f"{row.folder} (phy-id {row.phy_id}, {logic})"


def notes_of(info: DeviceInfo) -> list[ParseWarning]:
    """What the file says that is not a fault: its counts, the devices whose OS runs, and what
    the copy leaves out (rows it cut, or none of them)."""
    notes: list[ParseWarning] = []
    counts = info.counts
    if counts:
        said = ", ".join(
            f"{what} num {counts[what]}" for what in ("device", "probe", "online", "offline")
            if what in counts
        )  # fmt: skip
        notes.append(
            ParseWarning(
                line=min(info.count_lines.values()),
                message=f"msnpureport device_info.txt: {said}"
                + (
                    # (the rows say which: a copy without them leaves it open)
                    " (online counts a device whose heartbeat was lost too: only its row says "
                    "whether its OS runs)"
                    if counts.get("online", 0) > len(info.rows)
                    else ""
                ),
                skipped=False,
            )
        )
    running = [r for r in info.rows if r.status == RUNNING]
    if running:
        shown = ", ".join(row_said(r) for r in running[:16])
        notes.append(
            ParseWarning(
                line=running[0].line,
                message=f"msnpureport device_info.txt: {len(running)} device(s) with their OS "
                f"running: {shown}{' ...' if len(running) > 16 else ''}",
                skipped=False,
            )
        )
    for r in info.rows:
        if r.cut or not r.status:
            notes.append(
                ParseWarning(
                    line=r.line,
                    message=f"msnpureport device_info.txt: {row_said(r)}'s status is cut off "
                    f"{f'({r.status!r})' if r.status else '(not in the copy)'}: its state is "
                    "not known",
                    skipped=False,
                )
            )
    probed = counts.get("probe")
    if probed is not None and len(info.rows) < probed:
        notes.append(
            ParseWarning(
                line=info.rows[-1].line if info.rows else info.line,
                message="msnpureport device_info.txt: "
                + (f"rows for {len(info.rows)} of the" if info.rows else "no row of the")
                + f" {probed} device(s) probed in the copy: the others' state is not known "
                "from their rows",
                skipped=False,
            )
        )
    return notes
