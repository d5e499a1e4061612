"""The CUDA samples' deviceQuery (NVIDIA/cuda-samples, Samples/1_Utilities/deviceQuery): the
CUDA devices the runtime sees, each with its properties, and which of them can reach another by
peer access.

What it prints (deviceQuery.cpp, main): ``NAME Starting...``, `` CUDA Device Query (Runtime API)
version (CUDART static linking)``, ``Detected N CUDA Capable device(s)`` (or "There are no
available device(s) that support CUDA"), then a block a device: ``Device N: "NAME"``, ``  CUDA
Driver Version / Runtime Version          D.d / R.r``, ``  CUDA Capability Major/Minor version
number:    M.m``, ``  Total amount of global memory:                 %.0f MBytes (%llu bytes)``
... ``  Device PCI Domain ID / Bus ID / location ID:   %d / %d / %d`` (decimal); with two devices
or more of compute capability 2.0 or later, a ``> Peer access from NAME (GPUi) -> NAME (GPUj) :
Yes`` (or ``No``, cudaDeviceCanAccessPeer's answer) line for each ordered pair; last the summary
``deviceQuery, CUDA Driver = CUDART, CUDA Driver Version = D.d, CUDA Runtime Version = R.r,
NumDevs = N`` (older samples add ``, Device0 = NAME`` a device) and ``Result = PASS``. Its one
failure, cudaGetDeviceCount's error ("cudaGetDeviceCount returned 999" over "-> unknown error",
then "Result = FAIL"), prints none of the lines above and is the log reader's
(``logs._CUDA_COUNT_RE``).

helper_cuda.h's _ConvertSMVer2Cores prints "MapSMtoCores for SM M.m is undefined.  Default to use
N Cores/SM" for a compute capability newer than the sample's table: only its "CUDA Cores" figure
is a guess, nothing of the device is wrong.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from advisor.parsers import numbered_lines

SIGNATURE = (
    r"^[ \t]*CUDA Driver Version / Runtime Version[ \t]{1,80}\d{1,3}\.\d{1,3} / \d{1,3}\.\d{1,3}"
    r"|^[ \t]*deviceQuery, CUDA Driver = CUDART, "
)
"""A device block's version line, or its summary line: what only deviceQuery prints (its banner
alone is also what its cudaGetDeviceCount failure prints, a log's to read)."""

_BANNER_RE = re.compile(r"CUDA Device Query \(Runtime API\) version")
_COUNT_RE = re.compile(r"^\s*Detected (?P<n>\d{1,4}) CUDA Capable device\(s\)")
_NONE_RE = re.compile(r"^\s*There are no available device\(s\) that support CUDA")
_DEVICE_RE = re.compile(r"^\s*Device (?P<index>\d{1,4}): \"(?P<name>[^\"\n]{1,200})\"\s*$")
_VERSIONS_RE = re.compile(
    r"^\s*CUDA Driver Version / Runtime Version\s{1,80}(?P<driver>\d{1,3}\.\d{1,3}) / "
    r"(?P<runtime>\d{1,3}\.\d{1,3})"
)
_CAPABILITY_RE = re.compile(
    r"^\s*CUDA Capability Major/Minor version number:\s{1,80}(?P<cc>\d{1,2}\.\d{1,2})"
)
_MEMORY_RE = re.compile(
    r"^\s*Total amount of global memory:\s{1,80}(?P<mbytes>\d{1,9}) MBytes"
    r"(?: \((?P<bytes>\d{1,20}) bytes\))?"
)
_PCI_RE = re.compile(
    r"^\s*Device PCI Domain ID / Bus ID / location ID:\s{1,80}(?P<domain>\d{1,6}) / "
    r"(?P<bus>\d{1,4}) / (?P<location>\d{1,4})"
)
_CORES_DEFAULT_RE = re.compile(r"MapSMtoCores for SM (?P<sm>\d{1,2}\.\d{1,2}) is undefined")
_ACCESS_RE = re.compile(
    r"^\s*> Peer access from (?P<a_name>[^\n]{1,200}?) \(GPU(?P<a>\d{1,4})\) -> "
    r"(?P<b_name>[^\n]{1,200}?) \(GPU(?P<b>\d{1,4})\) : (?P<ok>Yes|No)\s*$"
)
_SUMMARY_RE = re.compile(
    r"^\s*deviceQuery, CUDA Driver = CUDART, CUDA Driver Version = (?P<driver>\d{1,3}\.\d{1,3}), "
    r"CUDA Runtime Version = (?P<runtime>\d{1,3}\.\d{1,3}), NumDevs = (?P<n>\d{1,4})"
)
_RESULT_RE = re.compile(r"^\s*Result = (?P<result>PASS|FAIL|WAIVED)\b")


@dataclass(kw_only=True)
class Device:
    index: int
    name: str
    line: int
    """Its ``Device N: "NAME"`` line."""
    capability: str | None = None
    """Compute capability as printed (``6.1``)."""
    memory_mbytes: int | None = None
    """Global memory in MiB (deviceQuery divides the bytes by 1048576 and calls it MBytes)."""
    memory_bytes: int | None = None
    pci: str | None = None
    """``domain / bus / location`` as printed (decimal numbers)."""
    cores_default: bool = False
    """The sample's core table lacks its compute capability: the "CUDA Cores" figure a guess."""


@dataclass(kw_only=True)
class Run:
    line: int = 1
    """The banner's line (the first line read where the copy has none)."""
    count: int | None = None
    """"Detected N CUDA Capable device(s)" (0 where it saw none), else the summary's NumDevs."""
    no_devices_line: int = 0
    """The "There are no available device(s) that support CUDA" line's, or 0."""
    devices: list[Device] = field(default_factory=list)
    driver: str | None = None
    runtime: str | None = None
    access: dict[int, dict[int, bool]] = field(default_factory=dict)
    """GPU → peer → cudaDeviceCanAccessPeer's answer ("Yes" / "No")."""
    access_line: int = 0
    summary_line: int = 0
    result: str | None = None
    """PASS, FAIL or WAIVED; None where the copy ends before it."""
    result_line: int = 0


def parse(text: str) -> Run:
    """One deviceQuery output: its devices, versions, peer-access answers and result."""
    run = Run()
    banner = False
    current: Device | None = None
    first = 0
    for no, line, _ in numbered_lines(text):
        if not line.strip():
            continue
        first = first or no
        if not banner and _BANNER_RE.search(line):
            run.line, banner = no, True
        elif m := _COUNT_RE.match(line):
            run.count = int(m.group("n"))
        elif _NONE_RE.match(line):
            run.count, run.no_devices_line = 0, no
        elif m := _DEVICE_RE.match(line):
            current = Device(index=int(m.group("index")), name=m.group("name").strip(), line=no)
            run.devices.append(current)
        elif m := _VERSIONS_RE.match(line):
            run.driver, run.runtime = m.group("driver"), m.group("runtime")
        elif current is not None and (m := _CAPABILITY_RE.match(line)):
            current.capability = m.group("cc")
        elif current is not None and (m := _MEMORY_RE.match(line)):
            current.memory_mbytes = int(m.group("mbytes"))
            current.memory_bytes = int(m.group("bytes")) if m.group("bytes") else None
        elif current is not None and (m := _PCI_RE.match(line)):
            current.pci = f"{m.group('domain')} / {m.group('bus')} / {m.group('location')}"
        elif current is not None and _CORES_DEFAULT_RE.search(line):
            current.cores_default = True
        elif m := _ACCESS_RE.match(line):
            run.access_line = run.access_line or no
            run.access.setdefault(int(m.group("a")), {})[int(m.group("b"))] = m.group("ok") == "Yes"
        elif m := _SUMMARY_RE.match(line):
            run.summary_line = no
            # (the summary prints the versions the last device block did: the same figures)
            run.driver = run.driver or m.group("driver")
            run.runtime = run.runtime or m.group("runtime")
            if run.count is None:
                run.count = int(m.group("n"))
        elif m := _RESULT_RE.match(line):
            run.result, run.result_line = m.group("result"), no
    if not banner:
        run.line = first or 1
    return run
