"""NVIDIA's nvbandwidth (github.com/NVIDIA/nvbandwidth): copy bandwidth between host and GPUs and
between GPUs, one matrix per test.

What it prints (its output.cpp and inline_common.h, v0.4-v0.8): ``nvbandwidth Version: v0.7``,
``CUDA Runtime Version: 12040``, ``Driver Version: 550.127.08``, ``Device 0: NAME (bus id)``
(a multi-node build: ``Process 0 (HOST): device 0: NAME (bus id)``), then per test ``Running
TEST.``, the matrix's title (``memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)``), a row of
column labels, a row per device (each cell a figure or ``N/A``, ``setw(10)``, two decimals), a
blank line and ``SUM TEST FIGURE``. A test that cannot run is
``Waived`` (``Waiving TEST.`` in v0.2). One whose copy wrote wrong data prints the check
kernel's ``Invalid value when checking the pattern at ADDR`` and ``Current offset ...``
(kernels.cu), then its ``ASSERT in expression h_errorFlag == 0 ...`` (error_handling.h) or the
process aborts; a CUDA call that failed prints ``[CUDA_ERROR_...] ... in expression ...``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from advisor.parsers import ParseWarning, numbered_lines

_VERSION_RE = re.compile(r"^nvbandwidth Version: (\S+)")
_RUNTIME_RE = re.compile(r"^CUDA Runtime Version: (\S+)")
_DRIVER_RE = re.compile(r"^Driver Version: (\S+)")
# "Device 0: NVIDIA A100-SXM4-80GB (00000000:34:00)"; before v0.7 the name alone
_DEVICE_RE = re.compile(
    r"^Device (\d+): (.+?)(?: \(([0-9A-Fa-f]+:[0-9A-Fa-f]+:[0-9A-Fa-f]+)\))?\s*$"
)
# a multi-node build (MULTINODE, one MPI process a GPU) prints each process's host and the GPU it
# took instead: "Process 0 (nvbandwidth-test-worker-0): device 0: HGX GB200 (00000008:01:00)"
# (NVIDIA/nvbandwidth output.cpp printGPUsMultinode, v0.8: "Process " << getPaddedProcessId(i)
# << " (" << hostname << "): device " << localDeviceId << ": " << deviceName, the name
# getDeviceDisplayInfo's; the process id space-padded to the widest one, common.h
# getPaddedProcessId); the name and bus id are split after the match
_PROCESS_RE = re.compile(r"^Process +(\d+) \(([^()\s]+)\): device (\d+): (.*)$")
# (getDeviceDisplayInfo: the PCI domain, bus and device as %08x:%02x:%02x)
_BUS_ID_RE = re.compile(r"[0-9A-Fa-f]{1,8}:[0-9A-Fa-f]{1,2}:[0-9A-Fa-f]{1,2}")
# (a reply may quote the Running lines alone with Markdown's "> ", the matrices under them as
# printed: "> Running host_to_device_memcpy_sm." over "memcpy SM CPU(row) -> GPU(column) ...")
_RUNNING_RE = re.compile(r"^(?:> ?)?Running (\w+)\.\s*$")
_WAIVED_RE = re.compile(r"^Waiv(?:ing|ed)\b:?\s*(\w*)")
# every title testcases_ce.cpp / testcases_sm.cpp pass to addTestcaseResults
# (v0.5 on adds "Device to Device Latency SM GPU(row) <-> GPU(column) (ns)")
_TITLE_RE = re.compile(
    r"^\s*(memcpy|memory latency|Device to Device Latency)\b[^\n]*\((GB/s|ns)\)\s*$"
)
# (its --perfFormatter prints the total as "&&&& PERF device_to_device_memcpy_read_ce 778.85
# +GB/s": the SUM under the perf formatter's prefix)
_SUM_RE = re.compile(r"^(?:SUM|&&&& PERF) (\w+) ([0-9.]+)(?: \+GB/s)?\s*$")
_CELL = r"(?:[0-9]+(?:\.[0-9]+)?|N/A)"
_ROW_RE = re.compile(rf"^\s*(\S+)((?:\s+{_CELL})+)\s*$")
_LABELS_RE = re.compile(r"^\s*(?:\S+\s+)*\S+\s*$")
# the failures a test prints instead of its matrix (kernels.cu, error_handling.h)
_FAILURE_RE = re.compile(
    r"^\s*(?P<what>Invalid value when checking the pattern at .*"
    r"|ASSERT in expression .*"
    # (v0.1-v0.4 print the CUDA error without its expression: "[CUDA_ERROR_ILLEGAL_ADDRESS] an
    # illegal memory access was encountered")
    r"|\[(?:CUDA_ERROR_\w+|cuda\w+)\] .*"
    r"|NVML_ERROR: .*"
    r"|Error: .*"
    r"|Aborted(?: \(core dumped\))?|Segmentation fault(?: \(core dumped\))?)\s*$"
)
_ASSERT_RE = re.compile(r"^ASSERT in expression (.+?) in .*\(\)\s*:\s*(\S+:\d+)\s*$")
# a terminal's wrap of the assert's function signature over lines: "ASSERT in expression
# h_errorFlag == 0 in void memcmpPatternHelper" / "(CUstream, ...," / "... )() :" /
# "/root/nvbandwidth-main/memcpy.cpp:165" (error_handling.h prints the signature and __FILE__:
# __LINE__ on one line); the lines after it are joined until the file and line end one
_ASSERT_END_RE = re.compile(r":\d+$")
ASSERT_WRAP_LINES = 4
"""How many lines a wrapped assert is joined over at most."""
# a CUDA call that failed (error_handling.h CUDA_ASSERT / CU_ASSERT: "[" << the error's name <<
# "] " << its string << " in expression " << #x << " in " << __PRETTY_FUNCTION__ << "() : " <<
# __FILE__ << ":" << __LINE__): the error's name and words and the expression are kept, the
# function's signature and the build's own directory left out, as for an assert
_CUDA_ERROR_HEAD_RE = re.compile(r"^\[(?:CUDA_ERROR_\w+|cuda\w+)\] ")
_OFFSET_RE = re.compile(r"^\s*Current offset\s*(?::\s*(\d+)|\[\s*(\d+)\s*/\s*(\d+)\s*\])")
_DOTS_RE = re.compile(r"^\s*(?:\.{3,}|…+)\s*$")

SIGNATURE = (
    r"^nvbandwidth Version: \S"
    r"|^memcpy (?:CE|SM) (?:CPU|GPU)\((?:row|column)s?\) (?:->|<-|<->) (?:CPU|GPU)\("
    r"|^SUM \w+_(?:ce|sm) [0-9.]+\s*$"
    # its check kernel's own words (kernels.cu: printf(" Invalid value when checking the pattern
    # at %p\n", ...)): a copy that kept only a failed test's lines
    r"|^[ \t]*Invalid value when checking the pattern at 0x[0-9A-Fa-f]+[ \t]*$"
    # its list of test cases (-l / --list) without the version line above it
    r"|^Index, Name:[ \t]*\r?\n[ \t]*Description[ \t]*\r?\n={10,40}[ \t]*$"
)
"""Its version line, a matrix's title, a test's SUM line, its pattern check's failure, or its
list of test cases: a copy that kept any of them."""

# nvbandwidth -l / --list: its test cases and nothing run (output.cpp Output::listTestcases:
# "Index, Name:\n\tDescription\n", a row of 23 "=", then per test i << ", " << testKey() <<
# ":\n" and its description; the tool returns before it touches a GPU, so nothing is measured)
_LIST_HEAD_RE = re.compile(
    r"^Index, Name:[ \t]*\r?\n[ \t]*Description[ \t]*\r?\n={10,40}[ \t]*$", re.M
)
_LIST_CASE_RE = re.compile(r"^(\d{1,3}), ([a-z][a-z0-9_]{0,80}):[ \t]*$", re.M)


def list_testcases(text: str) -> tuple[int, list[str]] | None:
    """nvbandwidth's list of test cases (its ``-l``): the line of its ``Index, Name:`` heading and
    the test cases' names in the order listed, or None where the text holds no such list."""
    if not (head := _LIST_HEAD_RE.search(text)):
        return None
    names = [m.group(2) for m in _LIST_CASE_RE.finditer(text, head.end())]
    return text.count("\n", 0, head.start()) + 1, names


@dataclass(kw_only=True)
class Matrix:
    """One test's matrix as printed."""

    line: int
    title: str
    unit: str
    """``GB/s`` (bandwidth) or ``ns`` (the latency tests)."""
    test: str | None = None
    """The test's name: its ``Running`` line above, or its ``SUM`` line below."""
    columns: list[str] = field(default_factory=list)
    rows: dict[str, dict[str, float | None]] = field(default_factory=dict)
    """Row label → column label → figure; None for ``N/A`` (a pair it does not measure)."""
    sum: float | None = None
    """The ``SUM`` line's figure; None where the copy ends before it."""

    def figures(self) -> list[tuple[str, str, float]]:
        """Each pair's figure (row label, column label, value). A device paired with itself is
        no pair where both axes are GPUs (a device-to-device matrix prints N/A or 0.00 there);
        a host-to-device matrix's ``0``/``0`` is CPU 0 and GPU 0, and the local copy's one row
        is the GPU's own: a one-GPU run's only figures (the title names the axes:
        ``memcpy CE CPU(row) -> GPU(column)``, ``memcpy local GPU(column)``)."""
        both_gpus = "GPU(row)" in self.title and "GPU(column)" in self.title
        return [
            (r, c, v)
            for r, row in self.rows.items()
            for c, v in row.items()
            if v is not None and not (both_gpus and r == c)
        ]


@dataclass(kw_only=True)
class Failure:
    """A test that stopped instead of printing its matrix."""

    line: int
    test: str | None
    message: str
    """What it printed, its lines joined (the pattern check, the assert, the abort)."""
    offset: str | None = None
    """Where the pattern check found the wrong value, as printed."""


@dataclass(kw_only=True)
class Run:
    line: int
    version: str | None = None
    cuda_runtime: str | None = None
    driver: str | None = None
    devices: list[dict[str, str | int | None]] = field(default_factory=list)
    """``{index, name, bus_id}`` as printed (``bus_id`` None before v0.7); a multi-node run's
    also ``{process, host, line}``: the MPI process that took the GPU, its host (``index`` is the
    GPU's on that host) and the line."""
    matrices: list[Matrix] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    waived: list[str] = field(default_factory=list)
    waived_unnamed: list[int] = field(default_factory=list)
    """Lines of ``Waived: `` with no test named (v0.8 prints the status and an empty message,
    nvbandwidth.cpp runTestcase: ``addTestcase(test->testKey(), NVB_WAIVED)`` when the test's
    filter() fails, output.cpp prints ``status << ": " << msg``): a test skipped, not failed
    (one that needs peer-accessible GPU pairs, multicast or several nodes)."""
    running: str | None = None
    """The test the copy ends in, neither its matrix nor a failure printed."""


def parse(text: str) -> tuple[Run, list[ParseWarning]]:
    """Read one nvbandwidth output: its header, each test's matrix and SUM, each failure."""
    run = Run(line=1)
    notes: list[ParseWarning] = []
    test: str | None = None  # the test the last Running line started
    matrix: Matrix | None = None
    failure: Failure | None = None
    wrapped: list[str] = []  # an assert's lines so far, its file and line not yet read
    for no, line, _ in numbered_lines(text):
        stripped = line.strip()
        if wrapped and failure is not None and stripped:
            wrapped.append(stripped)
            joined = " ".join(wrapped)
            if a := _ASSERT_RE.match(joined):
                assert_at = failure.message.rfind("; ASSERT in expression ")
                failure.message = (
                    failure.message[: assert_at if assert_at >= 0 else 0]
                    + ("; " if assert_at > 0 else "")
                    + f"ASSERT in expression {a.group(1)} ({a.group(2).rsplit('/', 1)[-1]})"
                )
                wrapped = []
                continue
            if len(wrapped) <= ASSERT_WRAP_LINES and not _ASSERT_END_RE.search(stripped):
                continue
            wrapped = []
        if m := _VERSION_RE.match(line):
            run.version = m.group(1)
        elif m := _RUNTIME_RE.match(line):
            run.cuda_runtime = m.group(1)
        elif m := _DRIVER_RE.match(line):
            run.driver = m.group(1)
        elif m := _DEVICE_RE.match(line):
            run.devices.append({"index": int(m.group(1)), "name": m.group(2), "bus_id": m.group(3)})
        elif m := _PROCESS_RE.match(line):
            name, _, bus = m.group(4).strip().rpartition(" (")
            has_bus = bus.endswith(")") and _BUS_ID_RE.fullmatch(bus[:-1]) is not None
            run.devices.append(
                {
                    "index": int(m.group(3)),
                    "name": name if has_bus else m.group(4).strip(),
                    "bus_id": bus[:-1] if has_bus else None,
                    "process": int(m.group(1)),
                    "host": m.group(2),
                    "line": no,
                }
            )
        elif m := _RUNNING_RE.match(line):
            test, matrix, failure = m.group(1), None, None
        elif m := _WAIVED_RE.match(line):
            if m.group(1) or test:
                run.waived.append(m.group(1) or test or "")
            else:
                run.waived_unnamed.append(no)
            test = matrix = failure = None
        elif m := _TITLE_RE.match(line):
            matrix = Matrix(line=no, title=stripped, unit=m.group(2), test=test)
            run.matrices.append(matrix)
        elif m := _SUM_RE.match(line):
            if matrix is not None:
                matrix.sum = float(m.group(2))
                matrix.test = matrix.test or m.group(1)
            test = matrix = None
        elif m := _FAILURE_RE.match(line):
            what = m.group("what")
            if a := _ASSERT_RE.match(what):
                # the expression and where, without the function's signature and the build's
                # own directory
                what = f"ASSERT in expression {a.group(1)} ({a.group(2).rsplit('/', 1)[-1]})"
            elif what.startswith("ASSERT in expression ") and not _ASSERT_END_RE.search(what):
                wrapped = [what]
            elif _CUDA_ERROR_HEAD_RE.match(what):
                what = _cuda_error_said(what)
            if failure is None:
                failure = Failure(line=no, test=test, message=what)
                run.failures.append(failure)
            else:
                failure.message += f"; {what}"
            matrix = None
        elif m := _OFFSET_RE.match(line):
            if failure is not None:
                failure.offset = m.group(1) or f"{m.group(2)} of {m.group(3)}"
        elif _DOTS_RE.match(line):
            notes.append(
                ParseWarning(
                    line=no,
                    message="a '...' the copy put in place of lines it left out: what they "
                    "held is unknown",
                    skipped=False,
                )
            )
        elif matrix is not None and stripped:
            _matrix_line(matrix, no, line, notes)
    for unsummed in (mat for mat in run.matrices if mat.sum is None):
        notes.append(
            ParseWarning(
                line=unsummed.line,
                message=f"the matrix '{unsummed.title}' has no SUM line under it: the copy may "
                f"have lost rows ({len(unsummed.rows)} read)",
                skipped=False,
            )
        )
    if test is not None and (not run.matrices or run.matrices[-1].test != test):
        if not any(f.test == test for f in run.failures):
            run.running = test
    placed = [d for d in run.devices if d.get("process") is not None]
    if len({d["process"] for d in placed}) == 1 and len(placed) < len(run.devices):
        # one process that lists its GPUs as "Device N:" lines (v0.8 prints "Process 0 (HOST):
        # device 0: ..." in a single-process run too): its GPUs are those lines, not one a process
        run.devices = [d for d in run.devices if d.get("process") is None]
    return run, notes


def _cuda_error_said(what: str) -> str:
    """A CUDA_ASSERT's line as its error, its words and its expression, with the file's name and
    line (``[cudaErrorX] words in expression f() (kernels.cu:406)``); as printed where it does
    not end in the function, file and line (a copy cut inside it)."""
    head, sep, rest = what.partition(" in expression ")
    signature, at, where = rest.rpartition("() : ")
    if not sep or not at or _ASSERT_END_RE.search(where) is None or " " in where.strip():
        return what
    expression = signature.partition(" in ")[0]
    return f"{head} in expression {expression} ({where.strip().rsplit('/', 1)[-1]})"


def _matrix_line(matrix: Matrix, no: int, line: str, notes: list[ParseWarning]) -> None:
    """A matrix's label row or one of its rows; anything else is said, never guessed."""
    if not matrix.columns and _LABELS_RE.match(line) and not _ROW_RE.match(line):
        matrix.columns = line.split()
        return
    if not matrix.columns and (m := _ROW_RE.match(line)) and m.group(1).isdigit():
        # the label row is all digits too: the first such line is it
        matrix.columns = line.split()
        return
    if (m := _ROW_RE.match(line)) is None:
        notes.append(ParseWarning(line=no, message=f"not a row of '{matrix.title}': {line[:80]}"))
        return
    cells = m.group(2).split()
    if len(cells) != len(matrix.columns):
        notes.append(
            ParseWarning(
                line=no,
                message=f"row {m.group(1)} of '{matrix.title}' has {len(cells)} figures for "
                f"{len(matrix.columns)} columns: not read",
            )
        )
        return
    matrix.rows[m.group(1)] = {
        col: None if cell == "N/A" else float(cell)
        for col, cell in zip(matrix.columns, cells, strict=True)
    }
