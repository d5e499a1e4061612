"""nccl-tests logs (``all_reduce_perf`` and every other ``*_perf`` binary).

Handles single- and multi-node runs, the out-of-place and in-place column groups in the order
the header's label line gives them (mscclpp-test prints in-place first), headers without the
``type``/``redop``/``root`` columns, the ``#wrong`` column (and the ``error`` column of releases
before 2.10), ``N/A`` cells, NCCL INFO lines printed inside the table, lines tagged by an MPI
launcher (``[1,0]<stdout>:``), logs cut before the ``# Avg bus bandwidth`` footer (``complete`` is
then False) or inside a row (its first column group only), several runs in one log (a size that
goes back down starts another run's rows), rows pasted without their header (read by
nccl-tests' own layout when their cells name it), and logs whose ``#`` marks were lost in the
copy (a markdown paste): header, device and table lines are read without them.

mscclpp-test (microsoft/mscclpp ``test/mscclpp-test/common.cc``, ``BaseTestEngine::runTest`` and
``run``) prints one column group per row: in-place, or, for a test that does not run in place,
blanks where the in-place group would be and then the out-of-place group; its run ends with
``# Out of bounds values : N OK|FAILED`` and ``#``, with no ``# Avg bus bandwidth`` footer.
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
from dataclasses import dataclass, field
from typing import Any

from advisor.parsers import (
    BUS_FACTOR_OPS,
    ParseError,
    ParseWarning,
    busbw_factor,
    numbered_lines,
    without_one_pdsh_host,
)

DTYPES = {
    "float": "float32",
    "half": "float16",
    "bfloat16": "bfloat16",
    "double": "float64",
    "int8": "int8",
    "uint8": "uint8",
    "int32": "int32",
    "uint32": "uint32",
    "int64": "int64",
    "uint64": "uint64",
    "int": "int32",
    "f8e4m3": "float8_e4m3fn",
    "f8e5m2": "float8_e5m2",
}
"""nccl-tests type names → torch dtype names (the live benchmark's names)."""

ELEMENT_BYTES = {
    "float32": 4,
    "float16": 2,
    "bfloat16": 2,
    "float64": 8,
    "int8": 1,
    "uint8": 1,
    "int32": 4,
    "uint32": 4,
    "int64": 8,
    "uint64": 8,
    "float8_e4m3fn": 1,
    "float8_e5m2": 1,
}
"""Bytes per element of each dtype a row names: ``size`` against ``count`` tells the op apart."""

BINARIES = {
    "all_reduce": "all_reduce",
    "all_gather": "all_gather",
    "reduce_scatter": "reduce_scatter",
    "alltoall": "all_to_all",
    "broadcast": "broadcast",
    "reduce": "reduce",
    "sendrecv": "send_recv",
    "gather": "gather",
    "scatter": "scatter",
    "hypercube": "hypercube",
}
"""``<name>_perf`` binary → operation name used in facts."""

REDOPS = ("sum", "prod", "max", "min", "avg", "mulsum", "none")
"""``redop`` cells: nccl-tests' ``test_opnames`` (src/common.cu) and ``none`` for operations that do
not reduce."""

ROW_SIGNATURE = (
    r"[ \t]*\d+[ \t]+\d+[ \t]+(?:"
    + "|".join(DTYPES)
    + r")[ \t]+(?:(?:"
    + "|".join(REDOPS)
    + r")[ \t]+)?-?\d"
)
"""The start of a result row in nccl-tests' layout (size, count, type, [redop]), then a number:
what a log pasted without its header still shows (``re.M``; a launcher tag may come first)."""
_BARE_ROW_RE = re.compile("^" + ROW_SIGNATURE)
_INT_RE = re.compile(r"-?\d+")
_GLUED_RE = re.compile(r"NCCL (?:INFO|WARN)")
# (linear time on a long run: a match starts where its run starts, not at each character of a long
# one)
_FAILURE_IN_ROW_RE = re.compile(r"(?:(?<![\w.-])[\w.-]+: )?Test (?:CUDA|NCCL) failure ")
# a row's leading cells alone (size, count, type, [redop], [root]): nccl-tests prints them before
# it times the size (src/common.cu, TimeTest), so a run that failed in that size ends its row there
_ROW_HEAD_RE = re.compile(
    r"^\s*(?P<size>\d+)\s+(?P<count>\d+)\s+(?:"
    + "|".join(DTYPES)
    + r")(?:\s+(?:"
    + "|".join(REDOPS)
    + r"))?(?:\s+-?\d+)?\s*$"
)
# what a run prints as it fails: nccl-tests' CUDACHECK "HOST: Test CUDA failure FILE:LINE '...'",
# NCCLCHECK "Test NCCL failure ...", TESTCHECK " .. HOST pid PID: Test failure FILE:LINE"
# (src/common.h), the first releases' bare "Cuda failure ..." / "NCCL failure ..." (see
# _CHECK_FAILURE_RE), or NCCL's own WARN line
_RUN_FAILED_RE = re.compile(
    r"\bTest (?:CUDA |NCCL )?failure \S+:\d+|^(?:[\w.-]{1,63}: )?(?:Cuda|NCCL) failure \S+:\d+ '| NCCL WARN "
)
# nccl-tests' TESTCHECK (src/common.h): printf(" .. %s pid %d: Test failure %s:%d\n", hostname,
# getpid(), __FILE__, __LINE__), printed by each function the failure returns through (older
# releases: " .. HOST: Test failure FILE:LINE")
_TEST_FAILURE_RE = re.compile(
    r"^\s*(?:\.\.\s*)?(?:(?:(?P<host>[\w.-]+)\s+)?pid\s+(?P<pid>\d+):\s+|(?P<host2>[\w.-]+):\s+)?"
    r"Test failure (?P<where>\S+:\d+)"
)
# Open MPI's (mpirun) or PRRTE's (prterun) word that a process exited non-zero, its "Exit code: N"
# on that line or a few under it
_LAUNCHER_EXIT_RE = re.compile(
    r"\b(?P<launcher>mpirun|prterun|mpiexec) (?:detected|noticed) that one or more processes "
    r"exited with non-zero status"
)
_EXIT_CODE_RE = re.compile(r"\bExit code:\s*(?P<code>-?\d+)")
# nccl-tests' CUDACHECK (src/common.h): printf("%s: Test CUDA failure %s:%d '%s'\n", hostname,
# __FILE__, __LINE__, cudaGetErrorString(err)); NCCLCHECK the same with "Test NCCL failure" (a
# markdown paste may lose the quotes: "HOST: Test CUDA failure common.cu:1030 invalid device
# ordinal", nccl-tests issue #323). The first releases (from the initial commit b188a15, 2017-08,
# until cbe7f65 "Resync all tests with test code from NCCL 2.4", 2019-03) print no host and no
# "Test": their src/common.h has CUDACHECK printf("Cuda failure %s:%d '%s'\n", __FILE__,
# __LINE__, cudaGetErrorString(e)) and NCCLCHECK printf("NCCL failure %s:%d '%s'\n", ...,
# ncclGetErrorString(r)), then exit(EXIT_FAILURE) (nccl-tests issue #5: "NCCL failure
# all_reduce.cu:95 'unhandled cuda error'" under the table's header)
_CHECK_FAILURE_RE = re.compile(
    r"^(?:(?P<host>[\w.-]+): )?(?:Test (?P<kind>CUDA|NCCL)|(?P<old>Cuda|NCCL)) failure "
    r"(?P<where>\S+:\d+) (?P<what>\S.*)"
)
LAUNCHER_EXIT_LINES = 6
"""How far under the launcher's word its ``Exit code: N`` may stand."""

# nccl-tests' build (src/Makefile: "Compiling  all_reduce.cu  > .../all_reduce.o", "Linking  ...
# > .../all_reduce_perf") names every binary it builds, none of them the run's
_BUILD_RE = re.compile(r"\s*(?:Compiling|Linking)\s+\S+\s+>\s")
_BANNER_RE = re.compile(r"^\s*={2,}\s*([A-Za-z][A-Za-z ]*?)\s*={2,}\s*$")
_ANY_BANNER_RE = re.compile(r"^\s*={2,}\s*\S.*?={2,}\s*$")
"""A wrapper's banner of any words ("====== 2-node ======"): rows after it are another run's."""
_BANNER_NAMES = {
    "allreduce": "all_reduce",
    "allgather": "all_gather",
    "reducescatter": "reduce_scatter",
    "alltoall": "alltoall",
    "broadcast": "broadcast",
    "reduce": "reduce",
    "sendrecv": "sendrecv",
    "gather": "gather",
    "scatter": "scatter",
    "hypercube": "hypercube",
}
"""A test's name in a wrapper's banner, spaces dropped → its ``BINARIES`` key."""
BINARY_RE = re.compile(r"\b(" + "|".join(sorted(BINARIES, key=len, reverse=True)) + r")_perf")
# nccl-tests: "#  size  count  type  redop  root  time ..."; mscclpp-test: "#  size  count  time ...";
# the header, device and request lines are also read without their "#" (a paste that lost them)
_HEADER_RE = re.compile(r"^#?\s*size\s+count\s+(?:type|time)\b")
# the line above the header naming each column group: "#   out-of-place   in-place"
_GROUPS_RE = re.compile(r"\b(out-of-place|in-place)\b")
# the same line without its "#": nothing but the group names
_BARE_GROUPS_RE = re.compile(r"^(?:(?:out-of-place|in-place)\s*)+$")
# mscclpp-test's device lines have no "Group N"
_INFO_HOST_RE = re.compile(r"^([\w.-]+) ?:\d+:\d+ \[\d+\] NCCL INFO ")
_RANK_START_RE = re.compile(r"^#\s*Rank\s+\d+\s")
_RANK_PID_RE = re.compile(r"\bPid\s+(\d+)\s")
# (a copy may lack the host, "#  Rank  0 Group  0 Pid 221599 device  0 [0000:8f:00] NVIDIA
# B200": the rank listed, its host not named)
_DEVICE_RE = re.compile(
    r"^#?\s*Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?(?:Pid\s+\d+\s+)?(?:on\s+(\S+)\s+)?device\s+(\d+)"
)
_RANK_HOST_RE = re.compile(
    r"^#?\s*Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?(?:Pid\s+\d+\s+)?on\s+(\S+)\s+\S"
)
# the rank line's GPU after its bus id: "device  0 [0x01] NVIDIA GeForce RTX 4090"
_DEVICE_MODEL_RE = re.compile(r"\bdevice\s+\d+\s+\[[^\]\n]*\]\s+(?P<model>\S[^\n]*)")
# nccl-tests' own header (src/common.cu, writeDeviceReport): "# nccl-tests version 2.17.6
# nccl-headers=22602 nccl-library=22602", the library's NCCL_VERSION_CODE
_TESTS_VERSION_RE = re.compile(
    r"nccl-tests version \S+ nccl-headers=\d+ nccl-library=(?P<code>\d+)"
)


def nccl_version_of_code(code: int) -> str:
    """NCCL's version from its NCCL_VERSION_CODE (nccl.h's NCCL_VERSION(X,Y,Z): X*1000+Y*100+Z
    up to 2.8, X*10000+Y*100+Z from 2.9 on)."""
    if code >= 10000:
        return f"{code // 10000}.{code // 100 % 100}.{code % 100}"
    return f"{code // 1000}.{code // 100 % 10}.{code % 100}"


# (older releases print it bare, "NCCL version 2.4.8+cuda10.1", at the line's start)
_INFO_VERSION_RE = re.compile(r"(?:\bNCCL INFO |^)NCCL version (?P<v>\d+\.\d+\.\d+\S*)")
# (copies that lost the "#" of the footer lines print them bare)
_BOLD_CELL_RE = re.compile(r"\*\*([^*\s]+)\*\*")
_AVG_RE = re.compile(r"^#?\s*Avg bus bandwidth\s*:\s*([0-9.eE+-]+|N/A)")
# nccl-tests 2.17+ ends a run with "# Collective test concluded: all_reduce_perf", printed right
# after "# Avg bus bandwidth" and "#" (src/common.cu writeResultFooter)
_CONCLUDED_RE = re.compile(r"^#?\s*Collective test concluded\b")
# Open MPI (orte/prrte/pmix show_help.c) folds repeated help messages of its processes into
# "8 more processes have sent help message help-mtl-ofi.txt / OFI call fail" ("1 more process
# has sent ..."), printed by mpirun whenever it flushes them: between two rows of the table.
_MPI_HELP_RE = re.compile(r"\d+ more process(?:es have| has) sent help message ")
_VALIDATION_RE = re.compile(r"\bvalidation:\s*(\d+)")
_OOB_RE = re.compile(r"^#?\s*Out of bounds values\s*:\s*(\d+)\s+(OK|FAILED)")
_NRANKS_RE = re.compile(r"\bnranks (\d+)\b")
_INFO_RANK_RE = re.compile(r"\brank (\d+) nranks \d+\b")
"""NCCL's ``comm 0x.. rank R nranks N cudaDev D ... Init COMPLETE`` line: which rank a host holds."""
_INNER_MPI_TAG_RE = re.compile(r"\[\d+,\d+\]<std(?:out|err)>:")
# mpirun's own -n/-np, before the binary: the test's "-n 100" after it is its iteration count
_NP_RE = re.compile(r"\bmpirun\b(?:(?!\S*_perf\w*\b).)*?\s-(?:n|np)\s+(\d+)")
# The run's own request, printed first by every nccl-tests binary (src/common.cu):
# "# nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 ..."
# (mscclpp-test prints it without "nThread .. nGpus ..").
# Older releases (rccl-tests too) print "# nThreads: 1 nGpus: 4 nRanks: 1 minBytes: 8 maxBytes:
# 134217728 step: 2(factor) ...": the same fields with colons.
# A wrapper's fork prints "# nGpus(perProc) 1 minBytes 1 maxBytes 1073741824 step: 2(factor) ...".
# A markdown paste that lost the "#" may keep the backtick that opened an inline-code span before
# it ("`nThread 1 nGpus 2 minBytes 8 ...", nccl-tests issue #323): the header all the same.
_REDUCED_RE = re.compile(r"^#\s*Reducing maxBytes to (\d+) due to memory limitation")
"""nccl-tests' note that the device memory holds less than the ``maxBytes`` asked."""
_PARAMS_RE = re.compile(
    r"^`?#?\s*(?:nThreads?:?\s+(?P<nthread>\d+)\s+nGpus:?\s+(?P<ngpus>\d+)\s+"
    r"(?:nRanks:?\s+\d+\s+)?|nGpus\(perProc\)\s+\d+\s+)?minBytes:?\s+(\d+)\s+maxBytes:?\s+(\d+)"
    r"\s+step:\s*(\d+)\((factor|bytes)\)"
)
_ALGO_RE = re.compile(r"NCCL_ALGO(?: set by environment to |=)([A-Za-z,:;_]+)")


@dataclass(kw_only=True)
class Timing:
    """One column group (out-of-place or in-place) of a row."""

    time_us: float
    """Mean time per iteration as printed (nccl-tests prints the mean, not a percentile)."""
    algbw_gbytes_s: float
    busbw_gbytes_s: float
    wrong: int | None
    """``#wrong`` count; None when the run did not check (``N/A``) or printed a max error."""
    max_error: float | None = None
    """The ``error`` column of releases before 2.10 (largest deviation), when present."""


@dataclass(kw_only=True)
class Row:
    line: int
    size_bytes: int
    count: int
    dtype: str
    """torch dtype name (``float32``), or the tool's own name when unknown."""
    redop: str
    root: int | None
    out_of_place: Timing | None
    in_place: Timing | None


@dataclass(kw_only=True)
class Table:
    """One results table (one header line and the rows under it)."""

    op: str
    """Operation in facts naming (``all_reduce``); ``unknown`` when the log never names it."""
    op_from_columns: str | None = None
    """The op the rows' own cells imply (``op_from_columns``), kept for a log that never names
    its binary; None when they do not tell it."""
    header_line: int
    """Line of its ``#  size  count ...`` header; of its first row when it has none."""
    headerless: bool = False
    """True for rows pasted without their header: columns read by nccl-tests' own layout."""
    checks_left_out: bool = False
    """True for a header whose column groups hold only ``time algbw busbw``: the copy left out
    the ``#wrong``/``error`` column nccl-tests prints in each group, so no row's check is known
    (the ``# Out of bounds values`` footer still is)."""
    validated: bool | None = None
    """The header line's ``validation: N`` (``-c``): False where the run checked no data (its
    footer's out-of-bounds count then says nothing); None where the header does not say."""
    mscclpp: bool = False
    """True for mscclpp-test's layout (a header with no ``type`` column): each row holds one
    column group, and ``# Out of bounds values`` ends the run (it prints no average footer)."""
    rows: list[Row] = field(default_factory=list)
    avg_busbw_gbytes_s: float | None = None
    """The footer's ``# Avg bus bandwidth`` (GB/s); None when the log was cut before it."""
    out_of_bounds: int | None = None
    footer_failed: bool = False
    """True when the footer said FAILED: its out-of-bounds count (wrong values) or its average
    against NCCL_TESTS_MIN_BW (src/util.cu writeResultFooter)."""
    complete: bool = False
    """True when the footer was seen: the run finished every size it was asked for."""
    footer_left_out: bool = False
    """True when the run's last line (``# Collective test concluded``) follows its rows but the
    ``# Avg bus bandwidth`` line before it is not in the copy."""
    min_bytes: int | None = None
    """``minBytes`` of the run's header line (None when the log lost it)."""
    max_bytes: int | None = None
    """``maxBytes`` of the run's header line: the largest size the run was asked for (or the
    smaller one it kept, when it said it reduced it for memory)."""
    max_bytes_asked: int | None = None
    """The header's ``maxBytes`` when the run reduced it (``# Reducing maxBytes to N due to
    memory limitation``); None when it ran what it was asked."""
    step_factor: int | None = None
    """``step: N(factor)``: each size is N times the one before."""
    step_bytes: int | None = None
    """``step: N(bytes)``: each size is N bytes more than the one before."""
    run_ranks: int | None = None
    """The ranks its own run listed (``# Rank N ... on HOST`` lines after its ``# nThread``
    line); None when the run listed none before its table."""
    run_hosts: list[str] = field(default_factory=list)
    """The hosts of those rank lines, in rank order."""
    run_unlisted: bool = False
    """A run that stopped before its table having listed no rank (its ``# Using devices`` list
    empty: the device it asked for failed), another run after it: the ranks, hosts and GPUs the
    log lists are that other run's, not this one's."""
    stopped_in: int | None = None
    """The size (bytes) whose row holds only its leading cells (size, count, type, redop, root)
    with nccl-tests' or NCCL's failure on the next line: nccl-tests prints those cells before it
    times the size (src/common.cu, TimeTest: the line's preamble, then TESTCHECK(BenchTime(...))
    for each column group), so a failure in that size ends the row there."""
    stopped_line: int = 0
    """The line of that row's leading cells."""
    failed_on: list[str] = field(default_factory=list)
    """nccl-tests' own ``.. HOST pid PID: Test failure FILE:LINE`` lines of this run (its
    TESTCHECK, src/common.h, printed by each function the failure returns through), a process
    each: ``node-a (pid 1871349): common.cu:1454``."""
    failed_line: int = 0
    """The first of those lines."""
    check_failed: list[str] = field(default_factory=list)
    """nccl-tests' CUDACHECK / NCCLCHECK lines of this run (``HOST: Test CUDA failure FILE:LINE
    'ERROR'``): the call that failed and its error, the cause the TESTCHECK lines return with
    (``nvidiatools-29-workload: CUDA common.cu:1030 'invalid device ordinal' (line 44)``)."""
    launcher_exit: str | None = None
    """The launcher's account of the processes' exit after them (``prterun: a process exited
    non-zero, exit code 7 (line 12)``)."""

    def failure(self) -> str:
        """The run's own failure lines in words ("" where it printed none)."""
        parts = []
        if self.stopped_in is not None:
            parts.append(
                f"it stopped in its {self.stopped_in} B size (line {self.stopped_line}: the "
                "row's leading cells, no timing)"
            )
        if self.check_failed:
            parts.append("its call failed: " + "; ".join(self.check_failed))
        if self.failed_on:
            parts.append(
                f"nccl-tests' 'Test failure' (line {self.failed_line}) on "
                + "; ".join(self.failed_on)
            )
        if self.launcher_exit:
            parts.append(self.launcher_exit)
        return "; ".join(parts)

    def sizes_asked(self) -> int | None:
        """How many sizes the header asked for (None without a readable header)."""
        lo, hi = self.min_bytes, self.max_bytes
        if lo is None or hi is None or hi < lo:
            return None
        if self.step_bytes:
            return (hi - lo) // self.step_bytes + 1
        if self.step_factor and self.step_factor > 1 and lo > 0:
            n, size = 1, lo
            while size * self.step_factor <= hi:
                size *= self.step_factor
                n += 1
            return n
        return 1 if lo == hi else None

    def progress(self) -> str:
        """How far the table got against what its header asked, in words."""
        done = len({r.size_bytes for r in self.rows})
        asked = self.sizes_asked()
        last = f"last {self.rows[-1].size_bytes} B of " if self.rows else ""
        failed = f"; {failure}" if (failure := self.failure()) else ""
        if self.max_bytes is None or asked is None:
            return f"{done} size(s); the log has no header line naming the sizes asked{failed}"
        kept = (
            f"the {self.max_bytes} B maxBytes the run kept (it reduced the {self.max_bytes_asked}"
            " B asked, for memory)"
            if self.max_bytes_asked is not None
            else f"the {self.max_bytes} B maxBytes asked"
        )
        return f"{done} of {asked} sizes ({last}{kept}, from {self.min_bytes} B){failed}"


@dataclass(kw_only=True)
class NcclTestsLog:
    tables: list[Table]
    ranks: int | None
    """Ranks in the run: the highest rank index of the ``# Rank N ... device`` lines plus one
    (a log cut before most of them still names its last rank), else NCCL's ``nranks`` or
    mpirun's ``-np``; None when the log names none."""
    hosts: list[str]
    algorithm: str
    """NCCL_ALGO in effect when the log shows it, else ``default``."""
    warnings: list[ParseWarning] = field(default_factory=list)
    ranks_listed: bool = False
    """The file holds the whole ``# Using devices`` list: ranks 0 to N-1 each once, at least
    the ``nThread x nGpus`` one process lists, and a line after the last of them (the list ended
    inside the file, it was not cut)."""
    debug_hosts: list[str] = field(default_factory=list)
    """Hosts NCCL's own debug lines in the log name (``host:pid:tid [dev] NCCL INFO``), in order."""
    hosts_complete: bool = False
    """``hosts`` are those of every rank: the ``# Rank N ... on HOST`` lines of ranks 0 to N-1, or,
    in a log without them, NCCL's ``rank R nranks N`` debug line of each rank (a log holding only
    some ranks' lines, or the tail of the list, names only some of the hosts)."""
    gpu_models: dict[int, str] = field(default_factory=dict)
    """Rank → the GPU its ``# Rank N ... device D [bus] MODEL`` line names."""
    nccl_version: str | None = None
    """What NCCL's own ``NCCL INFO NCCL version X`` line says (NCCL_DEBUG=INFO)."""
    shared_gpus: list[dict[str, Any]] = field(default_factory=list)
    """Each GPU that two or more ranks of one device list were put on: ``host``, ``device``,
    ``bus``, ``ranks`` and ``lines`` of their ``# Rank N ... on HOST device D [BUS]`` lines."""
    solo_hosts: list[str] = field(default_factory=list)
    """Hosts of processes that each printed their own ``# nThread`` header and their own
    ``Rank 0`` line: each ran alone, so none measured a link between them (nccl-tests needs
    ``make MPI=1`` to run one test across processes, README "Build"); empty otherwise."""


_GROUP_ORDER = ("out_of_place", "in_place")
"""nccl-tests' column groups, left to right, when no label line above the header says."""


# a rank line's host, CUDA device and the bus id nccl-tests prints for it (src/common.cu,
# "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s": the PCI domain, bus and
# device of cudaGetDeviceProperties; older releases "[0x%02x]", the bus alone)
_RANK_BUS_RE = re.compile(
    r"^#?\s*Rank\s+(?P<rank>\d+)\s+(?:Group\s+\d+\s+)?(?:Pid\s+\d+\s+)?on\s+(?P<host>\S+)\s+"
    r"device\s+(?P<dev>\d+)\s+\[(?P<bus>[0-9A-Fa-fx:.]{1,20})\]"
)


def _shared_gpus(lines: list[tuple[int, str, int | None]]) -> list[dict[str, Any]]:
    """GPUs two or more ranks of one device list stand on: one host and one full PCI id (it
    names one GPU of a host, whatever CUDA_VISIBLE_DEVICES numbers it), or, where the older
    form printed the bus number alone, one host, bus and CUDA device number. Ranks of separate lists
    (each process's own Rank 0, a second run) are not compared: the solo-run reading says those."""
    found: list[dict[str, Any]] = []
    listing: dict[tuple[str, str], dict[int, int]] = {}  # (host, bus) -> rank -> its line
    devices: dict[tuple[str, str], str] = {}

    def close() -> None:
        for key, ranks in listing.items():
            if len(ranks) > 1:
                found.append(
                    {
                        "host": key[0],
                        "bus": key[1].split(" ", 1)[0],
                        "device": devices[key],
                        "ranks": sorted(ranks),
                        "lines": sorted(ranks.values()),
                    }
                )
        listing.clear()

    for no, line, _ in lines:
        stripped = line.strip()
        if not stripped.startswith("#") or "Rank" not in stripped:
            if stripped.strip("# "):
                close()  # a line other than a rank line or a bare "#": the list has ended
            continue
        m = _RANK_BUS_RE.match(stripped)
        if m is None:
            continue
        bus = m.group("bus").lower()
        # a full PCI id (domain:bus:device[.function]) names one GPU of a host; the older
        # "[0x%02x]" is the bus number alone, the same on every GPU where each sits in its own
        # PCI domain on bus 00 (Azure ND VMs print "[0x00]" for devices 0-7): there only the
        # same CUDA device number with the same bus is one GPU
        key = (m.group("host"), bus if ":" in bus else f"{bus} device {m.group('dev')}")
        rank = int(m.group("rank"))
        if rank == 0 and any(0 in r for r in listing.values()):
            close()  # a second Rank 0: another process's (or run's) list
        listing.setdefault(key, {}).setdefault(rank, no)
        devices.setdefault(key, m.group("dev"))
    close()
    return found


def _num(token: str) -> float | None:
    """A figure as printed; None for "N/A" or what is no number (a copy's "..." or "-")."""
    if token.upper() == "N/A":
        return None
    try:
        return float(token)
    except ValueError:
        return None


def _timing(tokens: list[str], wrong_name: str) -> Timing | None:
    time_us, algbw, busbw = (_num(t) for t in tokens[:3])
    if time_us is None or algbw is None or busbw is None:
        return None
    cell = tokens[3]
    wrong: int | None = None
    max_error: float | None = None
    if cell.upper() != "N/A":
        if wrong_name == "#wrong":
            # nccl-tests prints the count with "%6g" (src/common.cu writeBenchmarkLineBody): a
            # million wrong elements reads "1.27768e+06", six digits kept
            wrong = int(cell) if cell.isdigit() else int(float(cell))
        else:
            max_error = float(cell)
    return Timing(
        time_us=time_us,
        algbw_gbytes_s=algbw,
        busbw_gbytes_s=busbw,
        wrong=wrong,
        max_error=max_error,
    )


def parse(text: str, *, op: str | None = None) -> NcclTestsLog:
    """Parse an nccl-tests log. ``op`` overrides the operation when the log does not name it.

    Raises ParseError when no results table is found, or a table header has no readable row.
    """
    pdsh_host, text = without_one_pdsh_host(text)
    lines = numbered_lines(text)
    raw_lines = text.splitlines()
    warnings: list[ParseWarning] = []
    if "NCCL " in text:
        lines = _rejoin_split_rows(lines, raw_lines, warnings)
    # Where the log names its binary (command line, "# Collective test starting: x_perf"), so
    # each table takes the name of its own run when a file holds several.
    mentions = [
        (no, BINARIES[m.group(1)], line.lstrip().startswith("#"))
        for no, line, _ in lines
        if (m := BINARY_RE.search(line)) and not _BUILD_RE.match(line)
    ] + [
        # a wrapper's banner before each run ("======= Hypercube =======", "== All Reduce ==")
        (no, BINARIES[name], False)
        for no, line, _ in lines
        if "==" in line
        and (b := _BANNER_RE.match(line))
        and (name := _BANNER_NAMES.get(b.group(1).lower().replace(" ", "")))
    ]
    mentions.sort()
    # the sizes a command line asks ("all_gather_perf -b 8 -e 1G -f 2"), by its line
    commands = {
        no: command_sizes
        for no, line, _ in lines
        if "_perf" in line and (command_sizes := _sizes_in_command(line)) is not None
    }
    tables: list[Table] = []
    devices: dict[int, str] = {}
    gpu_models: dict[int, str] = {}
    nccl_version: str | None = None
    last_device_line = 0
    last_rank_line = 0
    info_hosts: dict[str, None] = {}  # from NCCL's "host:pid:tid [dev] NCCL INFO" prefix, in order
    info_ranks: dict[int, str] = {}  # rank -> host, from NCCL's "rank R nranks N" debug lines
    nranks: int | None = None
    algorithm = "default"
    columns: list[str] = []
    header_ends: list[int] | None = None
    order = _GROUP_ORDER
    current: Table | None = None
    params: re.Match[str] | None = None
    reduced: int | None = None  # "# Reducing maxBytes to N ..." under the current run
    params_line = 0
    seen_params = False
    previous = ""
    last_no = max((no for no, line, _ in lines if line.strip()), default=0)
    min_ranks = 0
    header_ranks = 0  # the last header's nThread x nGpus
    listed_min = 0  # the most of those among the headers that listed their ranks
    unstarted: list[Table] = []  # runs whose header line came and no table, before another run
    orphan_footer: dict[bool, tuple[int, str]] = {}  # average (True) and out-of-bounds lines
    # footers with no header line and no table above them: (line, average?, value)
    bare_footers: list[tuple[int, bool, str]] = []
    unreadable_rows: list[int] = []  # lines of rows that could not be read, in order
    rank0_hosts: list[tuple[int, str]] = []  # each "# Rank 0 ... on HOST" line and its host
    rank0_pids: dict[int, str] = {}  # the pid each of those lines names, by line
    max_rank = -1  # the highest "# Rank N" line
    launched: int | None = None  # the last mpirun's -np whose processes printed their ranks
    launch_rank0 = 0  # rank0_hosts before that mpirun's command line
    # a later mpirun line, until a rank line follows it (one that printed nothing is no launch
    # of the processes seen)
    pending_launch: tuple[int, int] | None = None
    next_run_notes: list[ParseWarning] = []  # "stopped before its table, then another run"
    # headers repeated word for word before any rank line: processes started side by side, each
    # printing its own (nccl-tests issue #213: two hosts' headers, then one device list)
    twin_headers: list[int] = []
    # a second "Rank 0" in one device list (another pid or host): processes that each listed
    # their own, their headers interleaved or lost (an MPI run lists each rank once, from rank 0
    # to N-1)
    rank0_repeated = False
    last_plain_line = 0  # the last line that is no comment ("#...") of nccl-tests
    run_devices: dict[int, str] = {}  # the rank lines of the run the next table belongs to

    def own_run(table: Table) -> None:
        if run_devices:
            table.run_ranks = max(run_devices) + 1
            table.run_hosts = list(
                dict.fromkeys(run_devices[r] for r in sorted(run_devices) if run_devices[r])
            )
            run_devices.clear()

    test_failures: list[tuple[int, str | None, str | None, str]] = []  # TESTCHECK's lines
    versioned_lines: list[int] = []  # the lines of nccl-tests' own "# nccl-tests version" header
    checks: list[tuple[int, str]] = []  # CUDACHECK's / NCCLCHECK's lines, in words
    next_text: dict[int, str] = {}  # each line's next line that is not blank
    following = ""
    for no, line, _ in reversed(lines):
        next_text[no] = following
        following = line.strip() or following
    for no, line, _rank in lines:
        stripped = line.strip()
        above, previous = previous, stripped or previous
        m_par = _PARAMS_RE.match(stripped)
        if stripped and m_par is None and not stripped.startswith("#"):
            last_plain_line = no
        if " failure " in stripped and (m_ck := _CHECK_FAILURE_RE.match(stripped)):
            checks.append(
                (
                    no,
                    f"{ck_host + ': ' if (ck_host := m_ck['host'] or pdsh_host) else ''}"
                    f"{(m_ck['kind'] or m_ck['old']).upper()} "
                    f"{m_ck['where']} '{m_ck['what'].strip().strip(chr(39))}' (line {no})"
                    + _ordinal_cause(m_ck["what"], params),
                )
            )
        if "nccl-tests version " in stripped:
            versioned_lines.append(no)
        if "Test failure" in stripped and (m_tf := _TEST_FAILURE_RE.match(stripped)):
            test_failures.append(
                (no, m_tf.group("host") or m_tf.group("host2"), m_tf.group("pid"), m_tf["where"])
            )
            continue
        if m_par:
            if m_par.group("ngpus"):
                # each process lists its nThread x nGpus ranks: a list shorter than that is cut
                header_ranks = int(m_par.group("nthread")) * int(m_par.group("ngpus"))
                min_ranks = max(min_ranks, header_ranks)
            if (
                params is not None
                and m_par.group(0) == params.group(0)
                and max(last_rank_line, last_plain_line) < params_line
                and (not twin_headers or twin_headers[-1] == params_line)
            ):
                twin_headers[:] = [*(twin_headers or [params_line]), no]
            if params is not None and True in orphan_footer:
                # the run before finished (its footer is there) with its rows left out of the copy
                warnings.append(_rows_left_out_note(orphan_footer[True][0]))
            elif params is not None:
                # a run that stopped before its table, then another run
                no_table = ParseWarning(
                    line=params_line, message=_no_table(params, reduced, next_run=no)
                )
                warnings.append(no_table)
                next_run_notes.append(no_table)
            if params is not None and not tables:
                # no run has a table yet: what each asked is evidence (sizes, ranks, hosts)
                unstarted.append(Table(op=op or "unknown", header_line=params_line))
                _asked(unstarted[-1], params, reduced)
                if run_devices:
                    own_run(unstarted[-1])
                else:
                    unstarted[-1].run_unlisted = True
                _footer_only(unstarted[-1], orphan_footer)
            orphan_footer.clear()
            # a new run: the table before it is over
            params, params_line, seen_params, current = m_par, no, True, None
            reduced = None
            run_devices.clear()
            continue
        if params is not None and (m_red := _REDUCED_RE.match(stripped)):
            reduced = int(m_red.group(1))
            continue
        if stripped.startswith("#") and _RANK_START_RE.match(stripped):
            last_rank_line = no  # also a rank line the copy cut before its device
        m_dev = _DEVICE_RE.match(stripped)
        if m_dev is None and stripped.startswith("#") and (m_cut := _RANK_HOST_RE.match(stripped)):
            # a rank line the copy cut after its host ("#  Rank 15 Group  0 Pid  58433 on
            # gpu48 dev"): the rank and its host are said, its device is not
            max_rank = max(max_rank, int(m_cut.group(1)))
            devices.setdefault(int(m_cut.group(1)), m_cut.group(2))
            run_devices.setdefault(int(m_cut.group(1)), m_cut.group(2))
            continue
        if m_dev:
            host = m_dev.group(2) or ""  # ("": a line without its host)
            if m_dev.group(1) == "0":
                if pending_launch is not None:
                    (launched, launch_rank0), pending_launch = pending_launch, None
                pm = _RANK_PID_RE.search(stripped)
                if 0 in run_devices and (
                    (pm is not None and pm.group(1) not in rank0_pids.values())
                    or (host and run_devices[0] and host != run_devices[0])
                ):
                    rank0_repeated = True
                # (each process's rank 0 without a host: hosts told apart by their place only)
                rank0_hosts.append(
                    (no, host or f"a host the copy does not name (#{len(rank0_hosts) + 1})")
                )
                if pm is not None:
                    rank0_pids[no] = pm.group(1)
            max_rank = max(max_rank, int(m_dev.group(1)))
            listed_min = max(listed_min, header_ranks)  # (the header these ranks are under)
            devices[int(m_dev.group(1))] = host
            run_devices[int(m_dev.group(1))] = host
            if m_model := _DEVICE_MODEL_RE.search(stripped):
                gpu_models[int(m_dev.group(1))] = m_model.group("model").rstrip()
            last_device_line = no
            continue
        if nccl_version is None and "NCCL version" in stripped:
            if m_ver := _INFO_VERSION_RE.search(stripped):
                nccl_version = m_ver.group("v")
        if nccl_version is None and "nccl-library=" in stripped:
            if m_code := _TESTS_VERSION_RE.search(stripped):
                nccl_version = nccl_version_of_code(int(m_code.group("code")))
        if " NCCL INFO " in stripped and (m_info := _INFO_HOST_RE.match(stripped)):
            info_hosts.setdefault(m_info.group(1), None)  # its "nranks N" is read below
            if m_rank := _INFO_RANK_RE.search(stripped):
                info_ranks[int(m_rank.group(1))] = m_info.group(1)
        if m_np := _NP_RE.search(stripped):
            # (a transcript of several launches: the last one's processes are what follows)
            if launched is None:
                launched = int(m_np.group(1))
            else:
                pending_launch = (int(m_np.group(1)), len(rank0_hosts))
        if m_np and nranks is None:
            nranks = int(m_np.group(1))
        m_nr = _NRANKS_RE.search(stripped)
        if m_nr:
            nranks = max(nranks or 0, int(m_nr.group(1)))
        m_algo = _ALGO_RE.search(stripped)
        if m_algo:
            algorithm = m_algo.group(1).lower()
        if _HEADER_RE.match(stripped):
            columns = stripped.lstrip("#").split()
            header_ends = _ends(raw_lines[no - 1], len(columns))
            checks_left_out = _checks_left_out(columns)
            if checks_left_out:
                # each group's check cell is read as N/A; the header's positions no longer
                # match its columns
                time_at = columns.index("time")
                columns = columns[:time_at] + ["time", "algbw", "busbw", "#wrong"] * (
                    (len(columns) - time_at) // 3
                )
                header_ends = None
                warnings.append(
                    ParseWarning(
                        line=no,
                        message="the header's column groups hold only time, algbw and busbw: "
                        "the copy left out each group's #wrong/error column, so no size's data "
                        "check is known",
                        skipped=False,
                    )
                )
            # the group labels above the header give their order (mscclpp-test: in-place first)
            labelled = above.startswith("#") or _BARE_GROUPS_RE.match(above)
            labels = _GROUPS_RE.findall(above) if labelled else []
            named = tuple(x.replace("-", "_") for x in labels)
            order = named if sorted(named) == sorted(_GROUP_ORDER) else _GROUP_ORDER
            current = Table(
                op=op or "unknown",
                header_line=no,
                mscclpp="type" not in columns,
                checks_left_out=checks_left_out,
                validated=(
                    (v.group(1) != "0")
                    if params is not None and (v := _VALIDATION_RE.search(params.string))
                    else None
                ),
            )
            own_run(current)
            if params is not None:
                _asked(current, params, reduced)
                params = None
            tables.append(current)
            continue
        if (
            current is not None
            and current.headerless
            and current.rows
            and "==" in stripped
            and _ANY_BANNER_RE.match(stripped)
        ):
            # rows pasted without their headers under a banner each ("====== 4-node ======",
            # a grep of several runs' largest sizes): the rows after it are the next run's
            current = None
            continue
        if (head := _ROW_HEAD_RE.match(stripped)) and _RUN_FAILED_RE.search(next_text[no]):
            # a row's leading cells, then the run's failure: the size the run stopped in
            if current is None or current.complete:
                current = Table(op=op or "unknown", header_line=no, headerless=True)
                if params is not None:
                    _asked(current, params, reduced)
                    params = None
                tables.append(current)
            current.stopped_in, current.stopped_line = int(head.group("size")), no
            continue
        if (current is None or current.complete) and _BARE_ROW_RE.match(stripped):
            bare = _bare_columns(stripped.split())
            if bare is None:
                warnings.append(ParseWarning(line=no, message=_unreadable(stripped)))
                unreadable_rows.append(no)
                continue
            if current is None or current.complete or bare != columns:
                columns, order, header_ends = bare, _GROUP_ORDER, None
                current = Table(op=op or "unknown", header_line=no, headerless=True)
                if params is not None:
                    _asked(current, params, reduced)
                    params = None
                tables.append(current)
        if current is None:
            if params is not None and (
                m_foot := _AVG_RE.match(stripped) or _OOB_RE.match(stripped)
            ):
                # the run's footer under its header line with no table between: the copy left the
                # rows out ("# ... (truncated NCCL output for brevity) ...")
                orphan_footer[m_foot.re is _AVG_RE] = (no, m_foot.group(1))
            elif (
                params is None
                and not tables
                and (m_foot := _AVG_RE.match(stripped) or _OOB_RE.match(stripped))
            ):
                bare_footers.append((no, m_foot.re is _AVG_RE, m_foot.group(1)))
            continue
        m_avg = _AVG_RE.match(stripped)
        if m_avg:
            current.avg_busbw_gbytes_s = _num(m_avg.group(1))
            current.complete = True
            current.footer_failed |= stripped.endswith("FAILED")
            continue
        if not current.complete and current.rows and _CONCLUDED_RE.match(stripped):
            # the run's last line (nccl-tests prints it right after the average): the run ended;
            # the copy left the average out
            current.complete = current.footer_left_out = True
            continue
        m_oob = _OOB_RE.match(stripped)
        if m_oob:
            current.out_of_bounds = int(m_oob.group(1))
            current.footer_failed |= m_oob.group(2) == "FAILED"
            # mscclpp-test's last line of a run (nccl-tests prints its footer after it)
            current.complete = current.mscclpp
            continue
        if not stripped or not stripped[0].isdigit() or current.complete:
            continue  # units row, NCCL INFO lines, blank lines between rows, text after a footer
        if _DEBUG_LINE_RE.match(stripped):
            continue  # NCCL's line from a host whose name starts with a digit (a container id)
        if _MPI_HELP_RE.match(stripped):
            continue  # mpirun's own output printed between two rows, not a row
        if "]<std" in stripped:
            # Open MPI's --tag-output tag printed again inside a row (each write of the row)
            stripped = _INNER_MPI_TAG_RE.sub(" ", stripped)
        if "**" in stripped:
            # a blog's Markdown emphasis typed into a cell of its code block ("**514.40**"):
            # the figure is the cell; said, as the file is not as nccl-tests printed it
            stripped = _BOLD_CELL_RE.sub(r"\1", stripped)
            warnings.append(
                ParseWarning(
                    line=no,
                    message="a cell wrapped in Markdown '**' (emphasis added to the copy): read "
                    "as its number",
                    skipped=False,
                )
            )
        tokens = stripped.split()
        first_time = columns.index("time") if "time" in columns else 0
        if current.checks_left_out and first_time:
            timing = tokens[first_time:]
            tokens = tokens[:first_time] + [
                cell for g in range(0, len(timing), 3) for cell in (*timing[g : g + 3], "N/A")
            ]
        # releases before 2.10 leave the redop cell blank for operations that do not reduce
        # (alltoall, sendrecv; _row puts "none" there): such a row is one cell short of its
        # header, and its last row is whole, not cut before its last check cell
        redop_at = columns.index("redop") if "redop" in columns[:first_time] else -1
        blank = int(0 <= redop_at < len(tokens) and tokens[redop_at] not in REDOPS)
        extra = (len(tokens) + blank - first_time) % 4 if first_time else 0
        if no == last_no and extra and first_time + 1 < len(tokens) + blank < len(columns):
            # the copy ends inside the row: a group cut before its #wrong cell is read without
            # it, a group cut earlier is left out
            if extra == 3 and not _cut_cell(tokens[-1], tokens[first_time + 2]):
                tokens.append("N/A")
                what = "its #wrong is unknown"
            else:
                # (a group cut before its busbw, or inside its busbw's number: "0." of "0.26")
                what = "the cells of its last column group that it holds are left out" + (
                    f" (its busbw cut at {tokens[-1]!r})" if extra == 3 else ""
                )
                tokens = tokens[: len(tokens) - extra]
            warnings.append(ParseWarning(line=no, message=f"the log ends inside this row: {what}"))
        try:
            row, start, present = _row(
                no, tokens, columns, order, _ends(raw_lines[no - 1], len(tokens)), header_ends
            )
        except (ValueError, IndexError) as e:
            warnings.append(ParseWarning(line=no, message=_unreadable(stripped, str(e))))
            unreadable_rows.append(no)
            continue
        current.rows.append(row)
        groups = (len(columns) - columns.index("time")) // 4
        if present < groups and not (current.mscclpp and present == 1):
            held = order[start : start + present]
            missing = order[:start] + order[start + present : groups]
            warnings.append(
                ParseWarning(
                    line=no,
                    message=f"row has only its {_labels(held)} columns, not its "
                    f"{_labels(missing)} ones: "
                    + ("the line ends there" if start == 0 else "the cells under them are blank"),
                )
            )
    # processes that each printed their own header and rank 0 ran one test each, alone
    # mpirun started N processes and each listed only its own devices from Rank 0 (no rank
    # beyond one process's nThread x nGpus): N one-process runs, not one run over N processes
    # (a real run, or a sweep of them, lists ranks past the first process's)
    # (a log without mpirun's command line shows it by its headers alone: two or more, each
    # with its own Rank 0 on another host)
    launch_hosts = rank0_hosts[launch_rank0:]
    by_launch = (
        # (a copy cut inside the list holds fewer lines than mpirun started)
        (launched is not None and 1 < len(launch_hosts) <= launched)
        # without it, processes started side by side show it by a header that comes
        # before the table of the header above it; runs one after another each print
        # their table first
        or (launched is None and len(rank0_hosts) > 1 and bool(next_run_notes))
    ) and (
        len({h for _, h in launch_hosts}) > 1
        # (on one host: as many processes as lines, each its own pid, mpirun's -N 2)
        or (
            launched is not None
            and all(no in rank0_pids for no, _ in launch_hosts)
            and len({rank0_pids[no] for no, _ in launch_hosts}) == len(launch_hosts)
        )
    )
    # (a Rank 0 listed twice in one list needs nothing else: their headers lost or interleaved)
    solo = (
        [h for _, h in launch_hosts]
        if 0 <= max_rank < max(min_ranks, 1) and (by_launch or rank0_repeated)
        else []
    )
    asked_only = False
    if not tables and params is not None:
        # the header line came, the table never did: the run hung or died before its first size,
        # or the copy ends there; what it asked (sizes, ranks and their hosts) is still evidence
        asked = Table(op=op or "unknown", header_line=params_line)
        _asked(asked, params, reduced)
        if True in orphan_footer:
            # the run finished (its footer is there) and its rows were left out of the copy
            _footer_only(asked, orphan_footer)
            warnings.append(_rows_left_out_note(orphan_footer[True][0]))
        elif stops := [
            no
            for no in [*(f[0] for f in test_failures), *(c[0] for c in checks)]
            if no > params_line
        ]:
            # the run's own failure lines follow its header line (CUDACHECK / NCCLCHECK /
            # TESTCHECK, src/common.h): it stopped there, before its first size, and the copy
            # holds the whole of it; nothing is left unread
            warnings.append(
                ParseWarning(
                    line=params_line,
                    message="the run stopped before its first size: "
                    f"{_no_table_progress(params, reduced)}; its failure follows its header line "
                    f"(line {min(stops)})",
                    skipped=False,
                )
            )
        else:
            warnings.append(ParseWarning(line=params_line, message=_no_table(params, reduced)))
        tables, asked_only, params = [*unstarted, asked], True, None
    if not tables and solo:
        # no header line and no table, only the processes' lists: each its own Rank 0 is the
        # whole evidence (nccl-tests issue #254: sixteen processes, each "Rank 0 ... device 0")
        tables, asked_only = [Table(op=op or "unknown", header_line=launch_hosts[0][0])], True
    if not tables and any(avg for _, avg, _ in bare_footers):
        # a user's paste of each run's command and footer alone, their "#" lost ("Out of bounds
        # values : 0 OK" / "Avg bus bandwidth : 481"): a run each, finished, its figure the
        # footer's
        tables, asked_only = _bare_footer_runs(bare_footers, commands, op, lines), True
        warnings += [
            ParseWarning(
                line=t.header_line,
                message="the run's footer alone (its header line and results table are not in "
                "the copy): "
                + (
                    f"average bus bandwidth {t.avg_busbw_gbytes_s} GB/s"
                    if t.avg_busbw_gbytes_s is not None
                    else "its average is not a figure in the copy"
                )
                + (
                    f", {t.out_of_bounds} value(s) out of bounds"
                    if t.out_of_bounds is not None
                    else ""
                ),
            )
            for t in tables
        ]
    if not tables:
        if warnings:
            # rows were there, none could be read: say where
            first = warnings[0]
            raise ParseError(f"no readable result row; {first.message}", line=first.line)
        raise ParseError("no nccl-tests results table (no '#  size  count  type ...' header)")
    if params is not None and any(no > params_line for no, *_ in test_failures):
        # the last run stopped before its table and its failure lines follow its header (a
        # second mpirun that failed in its set-up, nccl-tests issue #323): a run of its own, the
        # failures its, not the table above's
        failed = Table(op=op or "unknown", header_line=params_line)
        _asked(failed, params, reduced)
        own_run(failed)
        tables.append(failed)
    elif params is not None:
        warnings.append(ParseWarning(line=params_line, message=_no_table(params, reduced)))
    # (only where the one list is itself cut, shorter than one process's nThread x nGpus, and
    # the file shows a launch over several hosts: a run that died between "# Using devices" and
    # its list, its reason on stderr, then the next run's whole list, is two runs one after the
    # other, nccl-tests src/common.cu)
    twins = (
        not solo
        and len(twin_headers) > 1
        and launched in (None, len(twin_headers))
        and 0 <= max_rank < min_ranks - 1
        and _REMOTE_LAUNCH_RE.search(text) is not None
    )
    if twins:
        # the same header from each process before any device list, then at most one process's
        # ranks: each process ran the test alone (hosts the copy never lists stay unnamed)
        listed = [h for _, h in rank0_hosts]
        solo = [
            listed[i] if i < len(listed) else "a host it does not list"
            for i in range(len(twin_headers))
        ]
        launch_hosts = [(no, h) for no, h in zip(twin_headers, solo, strict=True)]
    if solo:
        # the headers one after another are processes starting side by side, not runs that
        # stopped before their tables
        warnings = [w for w in warnings if w not in next_run_notes]
        warnings.append(
            ParseWarning(
                line=launch_hosts[1][0],
                message=(
                    f"{len(solo)} processes each printed the same header (lines "
                    f"{', '.join(map(str, twin_headers))}) before any device list"
                    if twins
                    else f"{len(solo)} processes each printed their own "
                    + ("header and 'Rank 0'" if by_launch else "'Rank 0' in one device list")
                    + " (on "
                    f"{', '.join(dict.fromkeys(solo))}"
                    + (
                        f"; {launched} started, the copy holds {len(solo)} lists"
                        if launched is not None and launched > len(solo)
                        else ""
                    )
                    + ")"
                )
                + ": each ran the test alone, "
                + ("none across hosts" if len(set(solo)) > 1 else "none between them")
                + " (nccl-tests runs one test over several processes only when built with make "
                "MPI=1)",
                skipped=False,
            )
        )
    footers = sum(1 for _, text, _ in lines if _AVG_RE.match(text.strip()))
    if solo and footers >= len(solo) and sum(1 for t in tables if t.rows) > 1:
        # each one-process run printed its footer: every run finished, their rows interleaved
        # under the headers they printed side by side (no table of theirs was cut short)
        tables = [t for t in tables if t.rows]
        for t in tables:
            t.complete = True
        warnings.append(
            ParseWarning(
                line=tables[0].header_line,
                message=f"the {len(solo)} one-process runs' rows are interleaved under their "
                f"headers; each finished ({footers} '# Avg bus bandwidth' footers)",
                skipped=False,
            )
        )
    tables = [part for t in tables for part in _split_restarts(t, warnings)]
    for t in tables:
        _time_unit(t, warnings)
    if test_failures:
        launcher = _launcher_exit(lines, after=test_failures[-1][0])
        tables = _attach_failures(tables, test_failures, launcher, op, checks, versioned_lines)
    if op is None:
        _name_tables(tables, mentions)
        for t in tables:
            if t.op == "unknown" and t.failed_on and not t.rows:
                # (a failed run whose header is not in the copy: the binary named above it)
                if binaries := [o for no, o, _ in mentions if no < t.header_line]:
                    t.op = binaries[-1]
    # a table whose "# nThread ... minBytes" line is not in the log: the sizes its command asked
    bounds = [0, *(t.header_line for t in tables)]
    for i, t in enumerate(tables):
        if t.max_bytes is None:
            by_command = [a for no, a in commands.items() if bounds[i] < no < t.header_line]
            if by_command:
                t.min_bytes, t.max_bytes, t.step_factor, t.step_bytes = by_command[-1]
    repeats: list[Table] = []  # headers another process printed again, with no row of their own
    numbers = [no for no, _, _ in lines]  # (the lines between two headers, by bisection)
    for index, t in enumerate(tables):
        if t.headerless and t.rows:
            warnings.append(
                ParseWarning(
                    line=t.header_line,
                    message="rows with no '#  size  count  type ...' header above them: read by "
                    "nccl-tests' own layout (size count type [redop] [root], then out-of-place "
                    "and in-place time algbw busbw, then #wrong or error)",
                    # (a note, not a line left unread: a row is taken only where its cells
                    # fit that layout, size count type [redop] [root] and the two column
                    # groups, 11 or 13 cells; src/common.cu's row printf)
                    skipped=False,
                )
            )
        if t.rows and t.complete and t.failed_on:
            # (given it by _attach_failures: the lines under its FAILED footer)
            warnings.append(
                ParseWarning(
                    line=t.failed_line,
                    message=f"the run's own failure return: {t.failure()}, under its footer "
                    "that said FAILED; nccl-tests (2.17.3 on) returns testNumResults from run() "
                    "after such a footer and main()'s TESTCHECK prints these lines "
                    "(src/common.cu)",
                    skipped=False,
                )
            )
        if not t.rows and (t.stopped_in is not None or t.header_line == t.failed_line):
            warnings.append(_failed_note(t, tables[index - 1] if index else None))
            continue
        if not t.rows:
            if asked_only:
                continue
            nxt = tables[index + 1] if index + 1 < len(tables) else None
            if (
                nxt is not None
                and nxt.rows
                and nxt.op in (t.op, "unknown")
                and nxt.max_bytes in (None, t.max_bytes)
                and all(
                    # (and the other process's NCCL INFO lines, printed between the two)
                    _UNITS_ROW_RE.match(a) or a.lstrip().startswith("#") or " NCCL INFO " in a
                    for _, a, _ in lines[
                        bisect.bisect_right(numbers, t.header_line) : bisect.bisect_left(
                            numbers, nxt.header_line
                        )
                    ]
                    if a.strip()
                )
            ):
                # processes started together print their headers one after the other, then
                # their rows interleaved: this header's rows are among the next one's (whose
                # "# nThread ..." line this one took)
                repeats.append(t)
                if nxt.op == "unknown":
                    nxt.op = t.op  # (the binary named above the first header is both's)
                if nxt.max_bytes is None:
                    nxt.min_bytes, nxt.max_bytes = t.min_bytes, t.max_bytes
                    nxt.step_factor, nxt.step_bytes = t.step_factor, t.step_bytes
                warnings.append(
                    ParseWarning(
                        line=nxt.header_line,
                        message="another process's copy of this table's header stands above it "
                        f"(line {t.header_line}): the rows below are the processes' interleaved, "
                        "each size once per process",
                        skipped=False,
                    )
                )
                continue
            if any(other.rows for other in tables):
                # one run of several stopped before its first size (its failure follows the
                # header); the others' rows are read
                warnings.append(
                    ParseWarning(
                        line=t.header_line,
                        message=f"no result row follows this header: {t.progress()} (the run "
                        "stopped before its first size)",
                    )
                )
                continue
            cut = [n for n in unreadable_rows if n > t.header_line]
            if t.max_bytes is not None and cut:
                # its only row was cut by the failure printed into it ("node0: Test CUDA failure
                # ..."): the run died in its first size; what it asked is still evidence
                warnings.append(
                    ParseWarning(
                        line=cut[0],
                        message=f"the run stopped in its first size: {t.progress()}",
                    )
                )
                continue
            after = [line for no, line, _ in lines if no > t.header_line and line.strip()]
            # only header lines follow (units, labels, another process's copy of the header)
            only_headers = all(_UNITS_ROW_RE.match(a) or a.lstrip().startswith("#") for a in after)
            if only_headers and t.max_bytes is None and index > 0 and not tables[index - 1].rows:
                repeats.append(t)
                continue
            if t.max_bytes is not None and only_headers:
                # the log ends with the table's header (its units line at most): the run
                # stopped before its first size, or the copy was cut there
                warnings.append(
                    ParseWarning(
                        line=t.header_line,
                        message=f"the log ends with the table's header, before its first size: "
                        f"{t.progress()} (the run stopped there, or the copy was cut)",
                    )
                )
                continue
            rows_after = [
                a for a in after if a.strip()[:1].isdigit() and not _DEBUG_LINE_RE.match(a.strip())
            ]
            if t.max_bytes is not None and not rows_after:
                # no line after the header is a row: the run failed before its first size
                # (nccl-tests' "Test NCCL failure ..." and NCCL's WARN lines follow it)
                warnings.append(
                    ParseWarning(
                        line=t.header_line,
                        message=f"no result row follows the table's header: {t.progress()} "
                        "(the run stopped before its first size; what it printed after the "
                        "header is read as a log)",
                    )
                )
                continue
            raise ParseError(
                f"results table has no readable row ({t.progress()})", line=t.header_line
            )
        if t.footer_left_out:
            warnings.append(
                ParseWarning(
                    line=t.rows[-1].line,
                    message="the run concluded ('# Collective test concluded') but its "
                    "'# Avg bus bandwidth' line is not in the copy: the average is taken from "
                    "the rows",
                )
            )
        if t.complete and t.max_bytes is None and not seen_params:
            # a tail of the run: rows and footer are right, what it asked (sizes, the full
            # list of ranks and their hosts) went with the lines before
            warnings.append(
                ParseWarning(
                    line=t.header_line,
                    message="no '# nThread ... minBytes ... maxBytes' header line before this "
                    "table: the log starts after it, so the sizes asked are unknown and the "
                    "ranks and hosts are only those its remaining lines name",
                    # every line of the file was read; the lines before it are not in the file
                    skipped=False,
                )
            )
        if not t.complete:
            end = (
                "'# Out of bounds values' line that ends an mscclpp-test run:"
                if t.mscclpp
                else "'# Avg bus bandwidth' footer:"
            )
            last = t.rows[-1].size_bytes
            # (a maxBytes reduced for memory is off the sizes' grid: the count tells it)
            reached = t.max_bytes is not None and (
                last >= t.max_bytes or len({r.size_bytes for r in t.rows}) == t.sizes_asked()
            )
            warnings.append(
                ParseWarning(
                    line=t.rows[-1].line,
                    message=f"log ends before the {end} "
                    + (
                        f"its rows reach the last size asked ({last} B), the lines after them "
                        "are not in the log"
                        if reached
                        else f"the run was cut short after {last} bytes: {t.progress()}"
                        if t.max_bytes is not None
                        # with no header, the sizes asked are unknown: the run may have stopped
                        # there, or finished and the copy left its footer out
                        else f"the run stopped, or the copy was cut, after {last} bytes: "
                        f"{t.progress()}"
                    )
                    + (
                        # (the lines after its last row are another run's: its own stop is not
                        # in the copy, no failure of it either)
                        f"; no failure of it follows its rows: the next run's header line (line "
                        f"{after_it[0].header_line}) does"
                        if not t.failure()
                        and (after_it := [o for o in tables if o.header_line > t.rows[-1].line])
                        else ""
                    ),
                )
            )
    dropped = {id(t) for t in repeats}  # (by identity: a list's "in" compares every field)
    tables = [t for t in tables if id(t) not in dropped]
    for t in tables:
        if left_out := _rows_left_out(t):
            warnings.append(ParseWarning(line=t.rows[0].line, message=left_out))
        if t.checks_left_out and t.out_of_bounds is not None:
            # (the footer's count still checks the whole run, where the run checked its data:
            # said with the missing columns)
            for w in warnings:
                if w.line == t.header_line and "#wrong/error column" in w.message:
                    w.message += (
                        "; its header's validation: 0 says the run checked no data (the "
                        "footer's count says nothing)"
                        if t.validated is False
                        else f"; the footer's out-of-bounds count, {t.out_of_bounds}, still "
                        "checks the run as a whole"
                    )
    # "# Rank 71 ..." alone (the tail of a 72-rank run) means at least 72 ranks, not 1
    # (and a header's nThread x nGpus is one process's ranks: a list cut short of it, "# Rank 0"
    # alone under "nGpus 4", is at least those four)
    ranks: int | None = max((max(devices) + 1 if devices else 0), nranks or 0, listed_min) or None
    if solo:
        # (each process's run is over its own ranks alone, whatever mpirun's -np)
        ranks = max(devices) + 1 if devices else 1
    for t in tables:
        if t.op == "unknown":
            t.op_from_columns = op_from_columns(t, ranks)
    return NcclTestsLog(
        tables=tables,
        ranks=ranks,
        # the "# Rank N ... on HOST" lines name the hosts; a copy without them may still hold
        # NCCL's own debug lines, whose prefix is the host of the process that printed them
        # in rank order (the host of rank 0 first: node 0 of the shape), else as first printed
        hosts=list(dict.fromkeys(devices[r] for r in sorted(devices) if devices[r]) or info_hosts),
        debug_hosts=list(info_hosts),
        hosts_complete=ranks is not None
        and (
            sorted(devices) == list(range(ranks))
            or (not devices and sorted(info_ranks) == list(range(ranks)))
        ),
        algorithm=algorithm,
        warnings=sorted(warnings, key=lambda w: w.line),
        gpu_models=gpu_models,
        nccl_version=nccl_version,
        solo_hosts=solo,
        shared_gpus=_shared_gpus(lines),
        ranks_listed=bool(devices)
        and len(devices) >= min_ranks
        and sorted(devices) == list(range(len(devices)))
        and bool(lines)
        and lines[-1][0] > last_device_line
        and last_rank_line <= last_device_line,
    )


def _rows_left_out(table: Table) -> str | None:
    """A finished table whose rows skip sizes its header asked (a copy that kept only the large
    sizes, the rows between left out): what is missing, in words; None when none is. Sizes are
    compared by the header's factor, with room for the rounding each op applies to a size."""
    if table.max_bytes is not None and (
        beyond := sorted({r.size_bytes for r in table.rows if r.size_bytes > table.max_bytes})
    ):
        # nccl-tests never measures past maxBytes (common.cu's size loop stops at it): rows above
        # it are of another run than the header, or the copy was edited
        shown = ", ".join(map(str, beyond[:4])) + (" ..." if len(beyond) > 4 else "")
        return (
            f"{len(beyond)} row(s) above the {table.max_bytes} B maxBytes its header asked "
            f"({shown} B): the header and the table are not of one run (a header from another "
            "run, or the copy was edited), so the sizes asked are not compared with the rows"
        )
    factor = table.step_factor
    asked = table.sizes_asked()
    if not table.complete or not table.rows or not factor or factor < 2 or asked is None:
        return None
    if table.min_bytes is None or len({r.size_bytes for r in table.rows}) >= asked:
        return None
    sizes = [r.size_bytes for r in table.rows]
    start_missing = sizes[0] > table.min_bytes * factor
    gaps = [(a, b) for a, b in itertools.pairwise(sizes) if a > 0 and b > a * factor * 1.5]
    if not start_missing and not gaps:
        return None
    where = (
        f"below {sizes[0]} B (from the {table.min_bytes} B minBytes asked)" if start_missing else ""
    )
    if gaps:
        where += ("; " if where else "") + ", ".join(f"between {a} and {b} B" for a, b in gaps)
    return (
        f"the table holds {len({*sizes})} of the {asked} sizes its header asked: the rows "
        f"{where} are not in the log (left out of the copy); its footer's average is over all "
        "of them"
    )


MS_RATIO = (500.0, 2000.0)
"""How far size / time (time read as µs) may stand above algbw and still mean the time column is in
milliseconds: nccl-tests defines algbw = size / time (doc/PERFORMANCE.md), so the printed algbw
tells the unit of the printed time; 1000 when it is ms."""


def _time_unit(table: Table, warnings: list[ParseWarning]) -> None:
    """Times in ms (early nccl-tests releases, no units row) become µs, said in a warning, when
    every row whose algbw is large enough to tell says so."""
    ratios = [
        (row.size_bytes / t.time_us / 1e3) / t.algbw_gbytes_s
        for row in table.rows
        for t in (row.out_of_place, row.in_place)
        if t is not None and t.time_us > 0 and t.algbw_gbytes_s >= 0.1
    ]
    if not ratios or not all(MS_RATIO[0] <= r <= MS_RATIO[1] for r in ratios):
        return
    for row in table.rows:
        for t in (row.out_of_place, row.in_place):
            if t is not None:
                t.time_us *= 1000.0
    warnings.append(
        ParseWarning(
            line=table.header_line,
            message="times read as milliseconds: algbw = size / time holds for this table's rows "
            "only in ms (an early nccl-tests release without a units row)",
            skipped=False,
        )
    )


def _split_restarts(table: Table, warnings: list[ParseWarning]) -> list[Table]:
    """The table, or the two runs it holds when its sizes go back down once (a second run's rows
    with no header of their own). nccl-tests prints each run's sizes rising from ``minBytes``,
    so a size below the one before starts another run's rows; when they go down more than once
    the runs are interleaved and no row can be told apart from the other run's: the table stays
    whole and the restart is reported."""
    rows = table.rows
    drops = [i for i in range(1, len(rows)) if rows[i].size_bytes < rows[i - 1].size_bytes]
    if not drops:
        return [table]
    at = rows[drops[0]]
    said = f"sizes go back down to {at.size_bytes} B after {rows[drops[0] - 1].size_bytes} B: "
    if len(drops) > 1:
        again = ", ".join(str(rows[i].line) for i in drops[1:])
        warnings.append(
            ParseWarning(
                line=at.line,
                message=said + "another run's rows start here, interleaved with the first's "
                f"(sizes go back down again at line(s) {again}); they are read as one table, "
                "so a size may have two rows",
            )
        )
        return [table]
    second = Table(
        op=table.op,
        header_line=at.line,
        headerless=True,
        rows=rows[drops[0] :],
        avg_busbw_gbytes_s=table.avg_busbw_gbytes_s,
        out_of_bounds=table.out_of_bounds,
        complete=table.complete,
    )
    table.rows = rows[: drops[0]]
    table.avg_busbw_gbytes_s, table.out_of_bounds, table.complete = None, None, False
    warnings.append(
        ParseWarning(
            line=at.line,
            message=said + "a second run's rows start here with no header of their own; "
            "read as a table of their own",
        )
    )
    return [table, second]


_SIZE_FLAG_RE = re.compile(
    r"(?:^|\s)(?:-([befi])\s*|--(minbytes|maxbytes|stepfactor|stepbytes)[=\s]\s*)"
    r"(\d+(?:\.\d+)?)([KkMmGg]?)(?=\s|$)"
)
_FLAG_NAMES = {"minbytes": "b", "maxbytes": "e", "stepfactor": "f", "stepbytes": "i"}
_SIZE_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}


def _sizes_in_command(line: str) -> tuple[int, int, int | None, int | None] | None:
    """``(min_bytes, max_bytes, step_factor, step_bytes)`` a ``*_perf`` command line asks, or
    None when it names neither ``-b`` nor ``-e``. nccl-tests (src/common.cu): ``-b``/``--minbytes``
    and ``-e``/``--maxbytes`` take a size with an optional K, M or G (powers of 1024), both 32M
    by default; ``-f`` the step factor (default 1), ``-i`` the step in bytes (default 1M), the
    factor used when it is above 1."""
    args = line[line.index("_perf") :]
    flags = {
        (m.group(1) or _FLAG_NAMES[m.group(2)]): float(m.group(3)) * _SIZE_UNITS[m.group(4).lower()]
        for m in _SIZE_FLAG_RE.finditer(args)
    }
    if "b" not in flags and "e" not in flags:
        return None
    factor = int(flags.get("f", 1))
    return (
        int(flags.get("b", 32 * 1024**2)),
        int(flags.get("e", 32 * 1024**2)),
        factor if factor > 1 else None,
        None if factor > 1 else int(flags.get("i", 1024**2)),
    )


_UNITS_ROW_RE = re.compile(r"^\s*#\s*\(B\)\s+\(elements\)")
"""The units line under a results table's header ("#  (B)  (elements)  ...")."""


_REMOTE_LAUNCH_RE = re.compile(
    r"Permanently added .* to the list of known hosts"
    r"|(?:^\S*|[#$>]\s*)\b(?:mpirun|mpiexec|srun|pdsh)\b",
    re.M,
)
"""ssh's first-contact warning (mpirun starting its daemons on other hosts) or a launcher's
command line: processes were started on several hosts."""


def _no_table_progress(params: re.Match[str], reduced: int | None = None) -> str:
    """The sizes a run asked for, none of them done (its header line's)."""
    asked = Table(op="unknown", header_line=0)
    _asked(asked, params, reduced)
    return asked.progress()


def _no_table(
    params: re.Match[str], reduced: int | None = None, next_run: int | None = None
) -> str:
    """What a log whose header line came and whose table never did says: the run hung or died
    before its first size, or the copy ends there (or, ``next_run``, another run's header line
    came first); ``reduced``: the maxBytes the run said it kept for memory."""
    progress = _no_table_progress(params, reduced)
    if next_run is not None:
        return (
            f"the run stopped before its first size: {progress}; the next run's header "
            f"line (line {next_run}) comes before any results table of this one"
        )
    return (
        f"the log ends before its first size: {progress}; no results table "
        "follows its header line (the run stopped there, or the copy was cut)"
    )


def _footer_only(table: Table, footer: dict[bool, tuple[int, str]]) -> None:
    """A run whose footer (average, and out-of-bounds count) came under its header line with no
    table between: finished, its figures the footer's."""
    if True not in footer:
        return
    table.avg_busbw_gbytes_s, table.complete = _num(footer[True][1]), True
    if False in footer:
        table.out_of_bounds = int(footer[False][1])


# srun's task count (its man page: -n/--ntasks, or -N/--nodes with --ntasks-per-node)
_SRUN_TASKS_RE = re.compile(r"\bsrun\b[^\n]{0,400}?\s(?:-n|--ntasks)[= ]?(\d+)\b")
_SRUN_NODES_RE = re.compile(r"\bsrun\b[^\n]{0,400}?\s(?:-N|--nodes)[= ]?(\d+)\b")
_PER_NODE_RE = re.compile(r"\s--ntasks-per-node[= ](\d+)\b")


def _launched_ranks(line: str) -> int | None:
    """The ranks a launcher's line asks: mpirun's -np, srun's -n or its nodes times its tasks a
    node; None where the line names no count this reads."""
    if m := _NP_RE.search(line):
        return int(m.group(1))
    if m := _SRUN_TASKS_RE.search(line):
        return int(m.group(1))
    if (n := _SRUN_NODES_RE.search(line)) and (k := _PER_NODE_RE.search(line)):
        return int(n.group(1)) * int(k.group(1))
    return None


def _bare_footer_runs(
    footers: list[tuple[int, bool, str]],
    commands: dict[int, tuple[int, int, int | None, int | None]],
    op: str | None,
    lines: list[tuple[int, str, int | None]],
) -> list[Table]:
    """A finished run for each average footer with no header or table above it. Each run is the
    footers under one ``*_perf`` command (to the next): its average and its out-of-bounds line in
    either order (a paste may put the average first), the command's sizes, and the ranks its
    launcher's ``-np`` asked between the command before and this one."""
    starts = sorted(commands)
    blocks: dict[int, list[tuple[int, bool, str]]] = {}
    for footer in footers:
        block = max((c for c in starts if c < footer[0]), default=0)
        blocks.setdefault(block, []).append(footer)
    runs: list[Table] = []
    for block, found in blocks.items():
        averages = [f for f in found if f[1]]
        checks = [f for f in found if not f[1]]
        previous = max((c for c in starts if c < block), default=0)
        np_ranks = next(
            (
                ranks
                for no, line, _ in reversed(lines)
                if previous < no <= block and (ranks := _launched_ranks(line)) is not None
            ),
            None,
        )
        for no, _, value in averages:
            table = Table(op=op or "unknown", header_line=no, complete=True)
            table.avg_busbw_gbytes_s = _num(value)
            # (its own check: the out-of-bounds line nearest to it in the block, one a run)
            if checks:
                nearest = min(checks, key=lambda c: abs(c[0] - no))
                checks.remove(nearest)
                table.out_of_bounds = int(nearest[2])
            if block:
                table.min_bytes, table.max_bytes, table.step_factor, table.step_bytes = commands[
                    block
                ]
            table.run_ranks = np_ranks
            # (its launcher's line names no count this reads: its ranks are not the file's)
            table.run_unlisted = np_ranks is None
            runs.append(table)
    return runs


def _launcher_exit(lines: list[tuple[int, str, int | None]], after: int) -> str | None:
    """The launcher's word after line ``after`` that a process exited non-zero, with its exit
    code, in words."""
    for index, (no, line, _) in enumerate(lines):
        if no > after and "non-zero status" in line and (m := _LAUNCHER_EXIT_RE.search(line)):
            for at, later, _ in lines[index : index + LAUNCHER_EXIT_LINES + 1]:
                if code := _EXIT_CODE_RE.search(later):
                    return (
                        f"{m.group('launcher')}: a process exited non-zero, exit code "
                        f"{code.group('code')} (line {at})"
                    )
            return f"{m.group('launcher')}: a process exited non-zero (line {no})"
    return None


def _ordinal_cause(what: str, params: re.Match[str] | None) -> str:
    """Why a CUDA call answered ``invalid device ordinal``, where the run's header says: each
    process sets GPUs localRank x nThread x nGpus + i (nccl-tests src/common.cu, run(): ``gpus[i]
    = (gpu0 != -1 ? gpu0 : localRank*nThreads*nGpus) + i``, then cudaSetDevice on each), so a
    process asked for more GPUs (``-g``, ``-t``, or processes a host) than its host shows it."""
    if "invalid device ordinal" not in what or params is None or not params.group("ngpus"):
        return ""
    per_process = int(params.group("nthread")) * int(params.group("ngpus"))
    return (
        f": a GPU index the process does not have (its header asks nThread x nGpus = "
        f"{per_process} GPU(s) a process, from localRank x {per_process})"
    )


def _attach_failures(
    tables: list[Table],
    failures: list[tuple[int, str | None, str | None, str]],
    launcher: str | None,
    op: str | None,
    checks: list[tuple[int, str]] | None = None,
    versioned_lines: list[int] | None = None,
) -> list[Table]:
    """nccl-tests' TESTCHECK lines (and the launcher's exit after them) given to the run they
    ended: the last run above them that did not finish, or, after a finished run's footer (or
    above every run), another run whose header and rows the copy does not hold. nccl-tests
    prints a run's footer only once every rank's thread returned success (src/common.cu, run():
    TESTCHECK on each thread's result, then "# Out of bounds values" and "# Avg bus
    bandwidth"). The one exception: from 2.17.3 on, run() returns testNumResults after a footer
    that said FAILED (``if (errors[0] || bw[0] < check_avg_bw*(0.9)) return testNumResults``)
    and main()'s TESTCHECK(result) prints " .. HOST pid PID: Test failure common.cu:LINE" under
    that footer: the run's own failure return. Releases before it exit(EXIT_FAILURE) there with
    no such line, so only a run whose header prints "# nccl-tests version" (2.17.4 on) is given
    the lines after its FAILED footer."""
    # the failures under each table (those above every table: a copy that starts inside a run
    # it does not show, given to none)
    under: dict[int, list[tuple[int, str | None, str | None, str]]] = {}
    for failure in failures:
        above = [i for i, t in enumerate(tables) if t.header_line < failure[0]]
        if above:
            under.setdefault(above[-1], []).append(failure)
    added: list[Table] = []
    for at, theirs in under.items():
        owner = tables[at]
        upper = tables[at + 1].header_line if at + 1 < len(tables) else theirs[0][0]
        own_return = owner.footer_failed and any(
            # (its version line: above its header, after the table before it)
            (tables[at - 1].header_line if at else 0) < no < upper
            for no in versioned_lines or []
        )
        if owner.complete and not own_return:
            owner = Table(op=op or "unknown", header_line=theirs[0][0])
            added.append(owner)
        by_process: dict[tuple[str | None, str | None], list[str]] = {}
        for _, host, pid, where in theirs:
            by_process.setdefault((host, pid), []).append(where)
        owner.failed_on = [
            (host or "a process the copy does not name")
            + (f" (pid {pid})" if pid else "")
            + f": {', '.join(wheres)}"
            for (host, pid), wheres in by_process.items()
        ]
        owner.failed_line = theirs[0][0]
        # the CUDACHECK / NCCLCHECK lines above its first TESTCHECK, under the same table: the
        # call whose error the TESTCHECK lines return with
        owner.check_failed = [
            words
            for no, words in checks or []
            if no < theirs[0][0]
            and [i for i, t in enumerate(tables) if t.header_line < no][-1:] == [at]
        ]
        if launcher is not None and at == max(under):
            owner.launcher_exit = launcher  # (the launcher's word after the last failures)
    return sorted([*tables, *added], key=lambda t: t.header_line)


def _failed_note(t: Table, before: Table | None) -> ParseWarning:
    """What a run that failed before any size's timing says: the size it stopped in, or its
    failure after another run's footer."""
    if t.stopped_in is not None:
        return ParseWarning(
            line=t.stopped_line,
            message=f"the run stopped in its {t.stopped_in} B size: its row holds only its "
            "leading cells (nccl-tests prints size, count, type, redop and root before it times "
            "the size, src/common.cu), the failure after them ended the run"
            + "".join(f"; {part}" for part in t.failure().split("; ")[1:]),
            skipped=False,
        )
    return ParseWarning(
        line=t.failed_line,
        message=f"a run failed: {t.failure()}; "
        + (
            f"it comes after the footer of the run above (line {before.header_line}), and "
            "nccl-tests prints a run's footer only once every rank returned success "
            "(src/common.cu), so it is another run's"
            if before is not None and before.complete
            else "no size of it was timed"
        )
        + ", its header and rows not in the copy",
        skipped=False,
    )


def _rows_left_out_note(line: int) -> ParseWarning:
    return ParseWarning(
        line=line,
        message="the run's footer follows its header line with no results table between: the "
        "copy left the rows out, so no size's bandwidth is in the log (the footer's average is "
        "over sizes not shown)",
    )


def _labels(groups: tuple[str, ...]) -> str:
    return " and ".join(g.replace("_", "-") for g in groups)


def _unreadable(stripped: str, why: str = "") -> str:
    if failed := _FAILURE_IN_ROW_RE.search(stripped):
        return (
            "unreadable nccl-tests row: the test's failure is printed into it "
            f"({stripped[failed.start() : failed.start() + 60]!r}...)"
        )
    if glued := _GLUED_RE.search(stripped):
        return (
            "unreadable nccl-tests row: it is cut off by an NCCL log line printed into it "
            f"({stripped[glued.start() : glued.start() + 40]!r}...)"
        )
    return f"unreadable nccl-tests row ({why or 'its cells are not in nccl-tests layout'})"


def _bare_columns(tokens: list[str]) -> list[str] | None:
    """Columns of a row with no header above it, when its cells give nccl-tests' layout
    unambiguously: size, count, a type name, an optional redop name, an optional integer root,
    then one or two groups of time, algbw, busbw and #wrong (an integer or N/A) or error (the
    float of releases before 2.10). None when they do not."""
    if len(tokens) < 7 or tokens[2] not in DTYPES:
        return None
    prefix = ["size", "count", "type"]
    if tokens[3] in REDOPS:
        prefix.append("redop")
    rest = len(tokens) - len(prefix)
    if rest % 4 == 1 and _INT_RE.fullmatch(tokens[len(prefix)]):
        prefix.append("root")
        rest -= 1
    if rest not in (4, 8):
        return None
    cell = tokens[len(prefix) + 3]
    wrong = "#wrong" if _INT_RE.fullmatch(cell) or cell.upper() == "N/A" else "error"
    return [*prefix, *(["time", "algbw", "busbw", wrong] * 2)]


def _asked(table: Table, params: re.Match[str], reduced: int | None = None) -> None:
    table.min_bytes, table.max_bytes = int(params.group(3)), int(params.group(4))
    if reduced is not None and reduced < table.max_bytes:
        # nccl-tests (src/common.cu) lowers maxBytes to what the device memory holds and says
        # so under the run's device list (recent releases lower minBytes with it when it is
        # larger; a minBytes above the kept maxBytes runs that one size either way)
        table.max_bytes_asked, table.max_bytes = table.max_bytes, reduced
        table.min_bytes = min(table.min_bytes, reduced)
    step = int(params.group(5))
    if params.group(6) == "factor":
        table.step_factor = step
    else:
        table.step_bytes = step


# An NCCL debug line printed into a row: "   8   2   float   sum   -1nid001049:658566:658566 [0]
# NCCL INFO AllReduce: 8 Bytes ..." (NCCL_DEBUG_SUBSYS=COLL writes a line per call, from each
# rank's thread, while rank 0 prints its row piece by piece)
# (linear time on a long run: a match starts where its run starts, not at each character of a long
# one)
_DEBUG_TAIL_RE = re.compile(
    r"(?:\[\d+\] )?(?<![\w.-])[\w.-]+ ?:\d+:\d+ \[\d+\] NCCL (?:INFO|WARN) "
)
_DEBUG_LINE_RE = re.compile(r"^\s*(?:\[\d+\] )?[\w.-]+ ?:\d+:\d+ \[\d+\] NCCL ")
_ROW_PIECE_RE = re.compile(r"^\s*\d+\s+\d+\s+[a-z]\w*(?:\s+[a-z]\w*)?\s+-?\d+\s*$")
"""The cells before a row's first column group: size, count, type, [redop], root."""
_GROUP_PIECE_RE = re.compile(r"^\s*[\d.]+\s+[\d.]+\s+[\d.]+\s+(?:\d+|N/A|[\d.]+e[+-]\d+)\s*$")
"""One column group: time, algbw, busbw, #wrong (or the ``error`` of releases before 2.10)."""


def _split_glued(line: str) -> tuple[str, str]:
    """A row piece and the NCCL debug line glued after it; ``(line, "")`` when none is. The host
    name may start with a digit, so each cut inside the glued name is tried, leftmost first."""
    m = _DEBUG_TAIL_RE.search(line)
    if m is None or m.start() == 0 or not line[: m.start()].strip():
        return line, ""
    host_end = line.index(":", m.start())
    for cut in range(m.start(), host_end):
        head = line[:cut]
        if _ROW_PIECE_RE.match(head) or _GROUP_PIECE_RE.match(head):
            return head, line[cut:]
    return line, ""


def _rejoin_split_rows(
    lines: list[tuple[int, str, int | None]], raw_lines: list[str], warnings: list[ParseWarning]
) -> list[tuple[int, str, int | None]]:
    """Rows NCCL's own debug lines were printed into, put back together: a row's first cells
    cut by a glued NCCL line, then its column groups each at the head of a later line (the
    debug lines between them are kept as lines of their own). A row whose groups never come
    stays as it was (reported unreadable where it stands)."""
    out: list[tuple[int, str, int | None]] = []
    pending: tuple[int, list[str]] | None = None  # the row's index in out, its pieces so far
    joined: list[int] = []

    def close() -> None:
        nonlocal pending
        if pending is not None and len(pending[1]) > 1:
            index, pieces = pending
            no, _, rank = out[index]
            row = "   ".join(piece.rstrip() for piece in pieces)
            out[index] = (no, row, rank)
            raw_lines[no - 1] = row
            joined.append(no)
        pending = None

    for no, line, rank in lines:
        head, tail = _split_glued(line)
        if pending is not None and _GROUP_PIECE_RE.match(head):
            pending[1].append(head)
            if tail:
                out.append((no, tail, rank))
            else:
                close()  # the row's last group ends its line
            continue
        if pending is not None and _DEBUG_LINE_RE.match(line):
            out.append((no, line, rank))  # more debug lines between two pieces of the row
            continue
        close()
        if tail and _ROW_PIECE_RE.match(head):
            out.append((no, line, rank))  # as it stands until its groups come
            out.append((no, tail, rank))
            pending = (len(out) - 2, [head])
            continue
        out.append((no, line, rank))
    close()
    if joined:
        warnings.append(
            ParseWarning(
                line=joined[0],
                message=f"{len(joined)} row(s) NCCL's debug lines were printed into (lines "
                f"{joined[0]}-{joined[-1]}) read from their pieces",
                skipped=False,
            )
        )
    return out


def unchecked(timing: Timing | None) -> bool:
    """A column group printed ``N/A`` where the ``#wrong`` (or ``error``) count goes."""
    return timing is not None and timing.wrong is None and timing.max_error is None


def op_from_columns(table: Table, ranks: int | None) -> str | None:
    """The op a table's cells imply, for a log that never names its binary; None when they do
    not tell it apart.

    From nccl-tests' sources (``src/*.cu``, 2.19; ``src/common.cu`` prints ``size`` as the larger
    of the bytes sent and received and ``count`` as the op's own count parameter): ``redop`` is
    ``none`` for the ops that do not reduce (all_gather, alltoall, broadcast, gather, scatter,
    and sendrecv before 2.10, whose cell was blank); ``root`` is -1 except for the rooted ops
    (broadcast, reduce, gather, scatter: the root, 0 unless ``-r``); ``size`` is ``count``
    elements for all_reduce, broadcast, reduce and sendrecv, and ``nranks x count`` for
    all_gather, reduce_scatter, alltoall, gather and scatter; alltoall and sendrecv set
    ``reportErrors`` only for the out-of-place run, so their in-place ``#wrong`` is ``N/A``. A
    run with validation off (``-c 0``) prints ``N/A`` in both groups: all_reduce and sendrecv are
    then told apart by busbw against algbw (``2(n-1)/n`` and 1) when n > 2 (with n unknown, a
    factor well above 1 is all_reduce's), all_gather and alltoall are not. hypercube_perf prints all_gather's columns and reads as all_gather.
    On one rank alltoall's and all_gather's size is their count too; their bus factor (n-1)/n
    is 0 there (busbw 0 against the algbw of local copies) where sendrecv's is 1.
    """
    rows = [
        r
        for r in table.rows
        if r.count > 0 and r.root is not None and r.dtype in ELEMENT_BYTES and not table.mscclpp
    ]
    if not rows:
        return _op_without_root(table, ranks)
    reduces = {r.redop != "none" for r in rows}  # "-o all" prints one row per reduction
    rooted = {r.root is not None and r.root >= 0 for r in rows}
    ratios = {r.size_bytes / (r.count * ELEMENT_BYTES[r.dtype]) for r in rows}
    if len(reduces) != 1 or len(rooted) != 1 or len(ratios) != 1:
        return None
    ((reducing,), (root_op,), (ratio,)) = (reduces, rooted, ratios)
    if ratio < 1 or ratio != int(ratio) or (ranks is not None and ratio not in (1, ranks)):
        return None
    spread = ratio > 1
    # in-place unchecked where the out-of-place group was checked: alltoall, sendrecv
    # (a row whose in-place group a cut copy left out tells nothing of it)
    placed = [r for r in rows if r.in_place is not None]
    in_place_unchecked = (
        bool(placed)
        and all(unchecked(r.in_place) for r in placed)
        and any(r.out_of_place is not None and not unchecked(r.out_of_place) for r in rows)
    )
    in_place_checked = any(r.in_place is not None and not unchecked(r.in_place) for r in rows)
    if root_op:
        if spread:
            return None  # gather or scatter: the same columns
        return "reduce" if reducing else "broadcast"
    if spread:
        if reducing:
            return "reduce_scatter"
        if in_place_unchecked:
            return "all_to_all"
        return "all_gather" if in_place_checked else None
    # one rank: alltoall and all_gather move nothing between devices (their bus factor
    # (n-1)/n is 0, busbw 0 against an algbw of local copies) and their size is n x count =
    # count, the columns of sendrecv (factor 1) and broadcast without a root
    one_rank = (factor := _bus_factor(rows)) is not None and factor < CELL_ROUNDING
    if in_place_unchecked:
        if factor is None and ranks == 1 and not reducing:
            return None  # (on one rank, rows too small to show a factor: either of the two)
        return "all_to_all" if one_rank and not reducing else "send_recv"
    if not reducing:
        return "all_gather" if one_rank and in_place_checked else None
    if in_place_checked:
        return "all_reduce"
    # validation off: the bus bandwidth factor
    if factor is None:
        return None
    if ranks is None:
        # sendrecv's busbw is its algbw: a factor that is 2(n-1)/n for some n > 2 is all_reduce's
        return "all_reduce" if _all_reduce_ranks(factor) is not None else None
    if ranks <= 2:
        return None
    if abs(factor - 2 * (ranks - 1) / ranks) < 0.05:
        return "all_reduce"
    return "send_recv" if abs(factor - 1) < 0.05 else None


def _bus_factor(rows: list[Row]) -> float | None:
    """The median busbw / algbw of the rows' column groups large enough to print both well
    (algbw of 1 GB/s or more: the cells have two decimals); None when no group is."""
    factors = sorted(
        t.busbw_gbytes_s / t.algbw_gbytes_s
        for r in rows
        for t in (r.out_of_place, r.in_place)
        if t is not None and t.algbw_gbytes_s >= 1.0
    )
    return factors[len(factors) // 2] if factors else None


def _op_without_root(table: Table, ranks: int | None) -> str | None:
    """A table of releases without the ``root`` column: all_reduce, on rows that reduce with
    ``size`` ``count`` elements; reduce_scatter, on rows that reduce with ``size`` n x ``count``
    elements (n the ranks) and its bus factor (n-1)/n.

    From nccl-tests' sources before the root column (the 2019 resync cbe7f65 to the 2.13 resync
    51af557, each test's ``print_line_header``; the 2017 first release the same with ``op`` for
    ``redop``): the ops that print a redop cell and no root are all_reduce, reduce_scatter and
    alltoall (its cell blank: read as ``none``); reduce prints its root, broadcast a root and no
    redop, all_gather and sendrecv neither. ``count`` is the op's ``paramcount`` and ``size`` the
    larger of the bytes sent and received (common.cu ``setupArgs``): ``count`` elements for
    all_reduce, n x ``count`` for reduce_scatter (``paramcount = count/nranks``). Rows that
    reduce with ``size`` ``count`` elements are so all_reduce's, or a one-rank reduce_scatter's,
    whose busbw (factor 0) a busbw above 0 rules out."""
    rows = [r for r in table.rows if r.count > 0 and r.dtype in ELEMENT_BYTES]
    if table.mscclpp or not rows or any(r.redop == "none" for r in rows):
        return None
    ratios = {r.size_bytes / (r.count * ELEMENT_BYTES[r.dtype]) for r in rows}
    if len(ratios) == 1 and (ratio := ratios.pop()) > 1:
        spread = int(ratio)
        if spread != ratio or ranks not in (None, spread):
            return None
        factor = _bus_factor(rows)
        near = factor is not None and abs(factor - (spread - 1) / spread) < 0.03
        return "reduce_scatter" if near else None
    if any(r.size_bytes != r.count * ELEMENT_BYTES[r.dtype] for r in rows):
        return None
    if ranks == 1:
        return None  # all_reduce or a one-rank reduce_scatter: the same cells
    factor = _bus_factor(rows)
    if factor is not None:
        # 2(n-1)/n: 1 on two ranks, below 2 on any; a factor outside is no all_reduce's
        fits = (n := _all_reduce_ranks(factor)) is not None and ranks in (None, n)
        two = abs(factor - 1) < 0.05 and ranks in (None, 2)
        return "all_reduce" if fits or two else None
    # rows too small for a factor (algbw under 1 GB/s): a busbw above 0 is more than one rank's
    moved = any(
        t is not None and t.busbw_gbytes_s > 0 for r in rows for t in (r.out_of_place, r.in_place)
    )
    return "all_reduce" if ranks is not None or moved else None


def _all_reduce_ranks(factor: float | None) -> int | None:
    """The n > 2 whose all_reduce bus factor 2(n-1)/n the busbw / algbw ``factor`` is (within
    the cells' rounding); None when it is no such factor (1 is sendrecv's, reduce's, broadcast's
    and a 2-rank all_reduce's; 2 and above is no all_reduce's)."""
    if factor is None or factor < 1.2 or factor >= 2:
        return None  # 1.2 is 2(n-1)/n for n = 2.5: below it n is 2
    n = round(2 / (2 - factor))  # factor = 2(n-1)/n
    return n if abs(2 * (n - 1) / n - factor) <= 0.03 else None


CELL_ROUNDING = 0.005
"""Half the last digit of a bandwidth cell (two decimals)."""


def ranks_from_bus_factor(table: Table) -> tuple[int, float] | None:
    """The rank count n whose bus factor ``table``'s op gives its busbw / algbw, and that ratio;
    None when the op has no such factor or more than one n fits the ratio within the cells'
    rounding. Read from the column group with the largest algbw (its cells round least)."""
    # busbw_factor (nccl-tests' doc/PERFORMANCE.md) is scale x (n-1)/n for the ops it grows with
    # n; the rooted ops' and sendrecv's is 1 whatever n, which names none
    if table.op not in BUS_FACTOR_OPS or busbw_factor(table.op, 2) == busbw_factor(table.op, 4):
        return None
    scale = round(busbw_factor(table.op, 10**9))
    groups = [
        t
        for r in table.rows
        for t in (r.out_of_place, r.in_place)
        if t is not None and t.algbw_gbytes_s > 0 and t.busbw_gbytes_s > 0
    ]
    if not groups:
        return None
    best = max(groups, key=lambda t: t.algbw_gbytes_s)
    ratio = best.busbw_gbytes_s / best.algbw_gbytes_s
    err = ratio * (CELL_ROUNDING / best.busbw_gbytes_s + CELL_ROUNDING / best.algbw_gbytes_s)
    low, high = (ratio - err) / scale, (ratio + err) / scale  # (n-1)/n = 1 - 1/n
    if high >= 1 or low <= 0:
        return None
    fits = range(math.ceil(1 / (1 - low)), math.floor(1 / (1 - high)) + 1)
    return (fits[0], ratio) if len(fits) == 1 and fits[0] >= 2 else None


def _name_tables(tables: list[Table], mentions: list[tuple[int, str, bool]]) -> None:
    """Each table's op: the last binary named since the previous table, else the first one
    named before the next table (a log that names it only in its closing line)."""
    bounds = [0, *(t.header_line for t in tables), 1 << 62]
    for i, table in enumerate(tables):
        before = [o for no, o, _ in mentions if bounds[i] < no < table.header_line]
        # after it, only the binary's own '#' lines: a command line there starts the next run
        after = [o for no, o, ours in mentions if table.header_line < no < bounds[i + 2] and ours]
        if before or after:
            table.op = before[-1] if before else after[0]


def _checks_left_out(columns: list[str]) -> bool:
    """Whether a header's column groups are ``time algbw busbw`` with no check column after
    each (nccl-tests prints ``#wrong`` or ``error`` there in every release)."""
    if "time" not in columns:
        return False
    groups = columns[columns.index("time") :]
    return len(groups) % 3 == 0 and groups == ["time", "algbw", "busbw"] * (len(groups) // 3)


def _ends(raw: str, count: int) -> list[int]:
    """Where each of the last ``count`` cells of ``raw`` ends (a character offset): the columns
    of a header or row line, after any launcher tag. nccl-tests and mscclpp-test right-align
    every cell under its header name."""
    return [m.end() for m in re.finditer(r"\S+", raw)][-count:]


def _cut_cell(cell: str, same_kind: str) -> bool:
    """A row's last cell where the copy ends cut inside its number: it ends at the decimal point
    (``0.``), or has fewer decimals than the same column of the row's first group (nccl-tests
    prints each with a fixed count: ``%6.2f``)."""
    if cell.endswith("."):
        return True
    decimals = len(cell.partition(".")[2]) if "." in cell else 0
    expected = len(same_kind.partition(".")[2]) if "." in same_kind else 0
    return cell.replace(".", "", 1).isdigit() and decimals < expected


def _first_group(first_time: int, row_ends: list[int], header_ends: list[int] | None) -> int:
    """Which column group the first timing cell of a row holding fewer groups than its header
    sits under: the group whose ``time`` name it ends under (mscclpp-test leaves blanks where a
    group it did not run would be), when the row's leading cells line up with the header's;
    else the first (a line cut short)."""
    if header_ends is None or len(header_ends) <= first_time or len(row_ends) <= first_time:
        return 0
    if abs(row_ends[first_time - 1] - header_ends[first_time - 1]) > 1:
        return 0  # re-indented in the copy: positions say nothing
    time_ends = header_ends[first_time::4]
    for g, end in enumerate(time_ends):
        if abs(row_ends[first_time] - end) <= 1:
            return g
    return 0


def _row(
    no: int,
    tokens: list[str],
    columns: list[str],
    order: tuple[str, ...],
    row_ends: list[int],
    header_ends: list[int] | None,
) -> tuple[Row, int, int]:
    """The row, the first column group it holds and how many it holds (fewer than the header's
    when the line was cut after its first group, or for mscclpp-test's one group a row)."""
    try:
        first_time = columns.index("time")
    except ValueError as e:
        raise ValueError("header has no 'time' column") from e
    prefix = columns[:first_time]
    groups = (len(columns) - first_time) // 4
    if groups > len(order):
        raise ValueError(f"header has {groups} column groups; nccl-tests prints at most 2")
    if "redop" in prefix and len(tokens) > (i := prefix.index("redop")) and tokens[i] not in REDOPS:
        # releases before 2.10 leave the redop cell blank for operations that do not reduce
        # (alltoall, sendrecv): a number stands there, the next column's
        tokens = [*tokens[:i], "none", *tokens[i:]]
        row_ends = [
            *row_ends[:i],
            header_ends[i] if header_ends else row_ends[i - 1],
            *row_ends[i:],
        ]
    present = (len(tokens) - len(prefix)) // 4
    if len(tokens) != len(prefix) + 4 * present or not 0 < present <= groups:
        raise ValueError(f"{len(tokens)} columns, header has {len(prefix) + 4 * groups}")
    start = 0
    if present < groups:
        start = min(_first_group(first_time, row_ends, header_ends), groups - present)
    cells = dict(zip(prefix, tokens, strict=False))
    wrong_name = columns[first_time + 3]
    rest = tokens[len(prefix) :]
    timings = {
        order[start + g]: _timing(rest[4 * g : 4 * g + 4], wrong_name) for g in range(present)
    }
    root = cells.get("root")
    # mscclpp-test prints no type column: the dtype is not in the log
    dtype = cells.get("type", "unknown")
    row = Row(
        line=no,
        size_bytes=int(cells["size"]),
        count=int(cells["count"]),
        dtype=DTYPES.get(dtype, dtype),
        redop=cells.get("redop", "none"),
        root=int(root) if root not in (None, "-") else None,
        out_of_place=timings.get("out_of_place"),
        in_place=timings.get("in_place"),
    )
    return row, start, present
