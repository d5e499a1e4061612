"""The CUDA samples' bandwidthTest (NVIDIA/cuda-samples, Samples/1_Utilities/bandwidthTest): copy
bandwidth between host and one GPU, and inside the GPU.

What it prints (bandwidthTest.cu, printResultsReadable): ``[CUDA Bandwidth Test] - Starting...``,
``Running on...``, `` Device 0: NAME``, `` Quick Mode`` (or Range / Shmoo), then a block a copy
kind: `` Host to Device Bandwidth, 1 Device(s)``, `` PINNED Memory Transfers`` (or ``PAGEABLE``;
none for Device to Device in some releases), ``   Transfer Size (Bytes)\tBandwidth(MB/s)`` (older
samples; newer ones print ``GB/s``) and a row a transfer size, ``   33554432\t\t\t3783.4``; last
``Result = PASS`` (or ``FAIL``). Its MB/s is bytes over 2^20 a second in the older samples
(``bandwidthInMBs = (1 << 10) * memSize * iterations / (ms * (1 << 20))``, a KiB a millisecond
times 1000/1024 -- within a few per cent of 10^6 bytes), its GB/s 10^9 bytes a second.

A file may hold several runs (one host's, then another's, pasted one after the other with their
shell prompts): each banner, or a ``Device N:`` line after a run's copies where the banner was
lost, starts a run of its own, so each copy is said with the GPU it ran on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from advisor.parsers import ParseError, ParseWarning, numbered_lines

SIGNATURE = (
    r"^[ \t]*\[?CUDA Bandwidth Test\] - Starting"
    r"|^ ?(?:Host to Device|Device to Host|Device to Device) Bandwidth, \d+ Device\(s\)"
    r"|^bandwidthTest-(?:H2D|D2H|D2D)(?:-\w+)?, Bandwidth = "
)
"""Its banner (a copy may lose the opening bracket), a copy kind's heading, or a --csv line."""

_BANNER_RE = re.compile(r"^\s*\[?CUDA Bandwidth Test\] - Starting")
_DEVICE_RE = re.compile(r"^\s*Device (?P<index>\d+): (?P<name>\S.*)$")
_KIND_RE = re.compile(
    r"^\s*(?P<kind>Host to Device|Device to Host|Device to Device) Bandwidth, (?P<n>\d+) Device"
)
_MODE_RE = re.compile(r"^\s*(?P<mode>PINNED|PAGEABLE) Memory Transfers")
# (not anchored: with --wc the "Write-Combined Memory Writes are Enabled" line has no newline and
# the header follows it on the same line)
_HEAD_RE = re.compile(r"Transfer Size \(Bytes\)\s+Bandwidth\((?P<unit>[MG]B/s)\)")
# --csv (printResultsCSV): "bandwidthTest-H2D-Pinned, Bandwidth = 12.4 GB/s, Time = 0.00081 s,
# Size = 10000000 bytes, NumDevsUsed = 1", a line a size (a device-to-device copy names no memory
# mode: "bandwidthTest-D2D, Bandwidth = 772.0 GB/s, ...")
_CSV_RE = re.compile(
    r"^bandwidthTest-(?P<kind>H2D|D2H|D2D)(?:-(?P<mode>\w+))?, Bandwidth = (?P<value>[\d.]+) "
    r"(?P<unit>[MG]B/s), Time = [\d.eE+-]+ s, Size = (?P<bytes>\d+) bytes(?:, NumDevsUsed = "
    r"(?P<devs>\d+))?"
)
_CSV_KIND = {"H2D": "Host to Device", "D2H": "Device to Host", "D2D": "Device to Device"}
# its failure before any copy (bandwidthTest.cu runTest): "!!!!!No devices found!!!!!"
_NO_DEVICE_RE = re.compile(r"!+\s*No devices found\s*!+")
# its stop on a CUDA error before any copy (bandwidthTest.cu runTest: a device whose
# cudaGetDeviceProperties fails prints "cudaGetDeviceProperties returned %d\n-> %s\n" with
# cudaGetErrorString's words, then checkCudaErrors(cudaSetDevice(currentDevice)) and
# exit(EXIT_FAILURE); helper_cuda.h's check() prints "CUDA error at %s:%d code=%d(%s) \"%s\""
# for a failed call of the sample's own file and exits): the error's line, the run stopped there
_STOPPED_RE = re.compile(
    r"^\s*(?:cudaGetDeviceProperties returned -?\d{1,6}\b"
    r"|CUDA error at bandwidthTest\.cu:\d{1,6} code=-?\d{1,6}\b)"
)
_ROW_RE = re.compile(r"^\s*(?P<bytes>\d+)\s+(?P<value>\d+(?:\.\d+)?)\s*$")
_RESULT_RE = re.compile(r"^\s*Result = (?P<result>PASS|FAIL|WAIVED)\b")
_MODE_NAMES = {"Quick Mode", "Range Mode", "Shmoo Mode"}

KIND_SHORT = {"Host to Device": "H2D", "Device to Host": "D2H", "Device to Device": "D2D"}


@dataclass(kw_only=True)
class Copy:
    """One copy kind's block: its rows of transfer size and bandwidth."""

    line: int
    kind: str
    """Host to Device, Device to Host or Device to Device."""
    memory: str | None
    """PINNED or PAGEABLE host memory; None where the block does not say (Device to Device)."""
    unit: str = ""
    rows: list[tuple[int, float]] = field(default_factory=list)
    """(transfer size in bytes, bandwidth in ``unit``) as printed."""
    devices: int = 1
    """How many GPUs the block ran on: with --device=all its figures are their sum."""

    def best_gbytes_s(self, min_bytes: int = 0) -> float | None:
        """The highest bandwidth of the block in GB/s (an older sample's MB/s over 1000), of
        the transfers of at least ``min_bytes``; None where none is that large."""
        sized = [v for size, v in self.rows if size >= min_bytes]
        if not sized:
            return None
        best = max(sized)
        return round(best / 1000 if self.unit == "MB/s" else best, 2)


@dataclass(kw_only=True)
class Run:
    line: int
    devices: list[dict[str, object]] = field(default_factory=list)
    mode: str | None = None
    copies: list[Copy] = field(default_factory=list)
    result: str | None = None
    """PASS, FAIL or WAIVED; None where the copy ends before it."""
    no_devices: int | None = None
    """The line of its "No devices found" (it ran no copy), or None."""
    stopped: int | None = None
    """The line of the CUDA error it stopped on before its copies ("cudaGetDeviceProperties
    returned 802", "CUDA error at bandwidthTest.cu:256 code=802(...)"), or None."""


def parse(text: str) -> tuple[list[Run], list[ParseWarning]]:
    """bandwidthTest's runs, each with its devices and copy blocks; raises ParseError where no
    block has a row."""
    runs: list[Run] = []
    warnings: list[ParseWarning] = []
    run = Run(line=0)
    current: Copy | None = None
    csv: dict[tuple[str, str], Copy] = {}
    for no, line, _ in numbered_lines(text):
        s = line.strip()
        if not s:
            continue
        device = _DEVICE_RE.match(line)
        if (run.devices or run.copies or run.no_devices is not None) and (
            (device is not None and run.copies) or _BANNER_RE.match(line)
        ):
            runs.append(run)
            run, current, csv = Run(line=0), None, {}
        run.line = run.line or no
        if s.startswith("bandwidthTest-") and (cm := _CSV_RE.match(s)):
            key = (cm.group("kind"), cm.group("mode") or "")
            if key not in csv:
                csv[key] = Copy(
                    line=no,
                    kind=_CSV_KIND[cm.group("kind")],
                    memory=None
                    if cm.group("kind") == "D2D"
                    else ((cm.group("mode") or "").upper() or None),
                    unit=cm.group("unit"),
                    devices=int(cm.group("devs") or 1),
                )
                run.copies.append(csv[key])
            csv[key].rows.append((int(cm.group("bytes")), float(cm.group("value"))))
            continue
        if "No devices found" in line and _NO_DEVICE_RE.search(line):
            run.no_devices = no
            continue
        if not run.copies and run.stopped is None and _STOPPED_RE.match(line):
            run.stopped = no
            continue
        if m := _KIND_RE.match(line):
            current = Copy(line=no, kind=m.group("kind"), memory=None, devices=int(m.group("n")))
            run.copies.append(current)
        elif current is not None and (m := _MODE_RE.match(line)):
            current.memory = m.group("mode")
        elif current is not None and (m := _HEAD_RE.search(line)):
            current.unit = m.group("unit")
        elif current is not None and current.unit and (m := _ROW_RE.match(line)):
            current.rows.append((int(m.group("bytes")), float(m.group("value"))))
        elif m := _RESULT_RE.match(line):
            run.result = m.group("result")
        elif s in _MODE_NAMES:
            run.mode = s
        elif current is None and device is not None:
            run.devices.append(
                {"index": int(device.group("index")), "name": device.group("name").rstrip()}
            )
    runs.append(run)
    if not any(c.rows for r in runs for c in r.copies) and all(
        r.no_devices is None and r.stopped is None for r in runs
    ):
        raise ParseError("bandwidthTest: no copy block with a transfer size and its bandwidth")
    for r in runs:
        for c in r.copies:
            if not c.rows:
                warnings.append(
                    ParseWarning(
                        line=c.line,
                        message=f"bandwidthTest: the {c.kind} block has no figure (the copy "
                        "ends there): its bandwidth is unknown",
                    )
                )
        r.copies = [c for c in r.copies if c.rows]
        if not r.copies and r.no_devices is None and r.stopped is None and r.devices:
            named = ", ".join(f"GPU {d['index']} {d['name']}" for d in r.devices)
            warnings.append(
                ParseWarning(
                    line=r.line,
                    message=f"bandwidthTest: the run on {named} ends before its first copy: "
                    "its bandwidth is unknown",
                )
            )
    return [
        r for r in runs if r.copies or r.no_devices is not None or r.stopped is not None
    ], warnings
