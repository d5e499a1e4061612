"""CANN hccl_test logs: ``data_size(Bytes) | aveg_time(us) | alg_bandwidth(GB/s) | check_result``.

The time column is ``aveg_time(us)`` in the hccl_test sources (``hccl_opbase_rootinfo_base.h``);
saved tables with ``avg_time(us)`` exist too, so both are read. The data type comes only from
``-d`` on the command line in the log: without it the dtype is ``unknown``, never assumed.
A run that stops at communicator init (an ``HCCLCHECK`` failure before the table, or an
``HcclCommInitRootInfo`` error) is read as :class:`InitFailure`, its return code named from the
``HcclResult`` enum.

hccl_test prints no bus bandwidth. Its ``alg_bandwidth`` is ``data_size / time`` in decimal GB/s
(``B_US_TO_GB_S = 1.0E6 / 1.0E9``, oam-tools ``hccl_opbase_rootinfo_base.h``; the execution.md
example table's figures read as GiB/s, its data not the source's formula) for every op
(all_gather and all_to_all divide the ``-b`` size over the ranks, then multiply back), which is
nccl-tests' algbw convention, so busbw = algbw x the nccl-tests factor of the op and rank count.
Both come from the arguments when given, else from the command line in the log
(``mpirun -n 16 ./bin/all_reduce_test -b 8K ...``); without them busbw is left empty, never guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from advisor.parsers import ParseError, ParseWarning, busbw_factor, numbered_lines

BINARIES = {
    "all_reduce": "all_reduce",
    "all_gather": "all_gather",
    "allgather": "all_gather",
    "reduce_scatter": "reduce_scatter",
    "alltoall": "all_to_all",
    "all_to_all": "all_to_all",
    "broadcast": "broadcast",
    "reduce": "reduce",
    "scatter": "scatter",
}
"""``<name>_test`` binary (and ``alltoallv``/``allgatherv`` forms) → operation name in facts."""

DTYPES = {
    "fp32": "float32",
    "fp16": "float16",
    "bfp16": "bfloat16",
    "bf16": "bfloat16",
    "fp64": "float64",
    "int8": "int8",
    "uint8": "uint8",
    "int16": "int16",
    "uint16": "uint16",
    "int32": "int32",
    "uint32": "uint32",
    "int64": "int64",
    "uint64": "uint64",
}

UNKNOWN_DTYPE = "unknown"
"""dtype of a log whose command line (``-d``) is not in it."""

BINARY_RE = re.compile(r"\b(" + "|".join(sorted(BINARIES, key=len, reverse=True)) + r")v?_test\b")
_NP_RE = re.compile(r"\bmpirun\b.*?\s-(?:n|np)\s+(\d+)")
_DTYPE_RE = re.compile(r"_test\b.*?\s-d\s+(\w+)")
_NPUS_RE = re.compile(r"_test\b.*?\s-p\s+(\d+)")
_HEADER_RE = re.compile(
    r"data_size\(Bytes\):?\s*\|\s*av(?:e?g|e)_time\(us\):?\s*\|\s*alg_bandwidth"
)
_ROW_RE = re.compile(
    r"^(\d+)\s*\|\s*([0-9.eE+-]+)\s*\|\s*([0-9.eE+-]+|inf|nan)\s*\|\s*(success|failed|NULL)\s*$"
)
_FAILED_RANK_RE = re.compile(r"^rank id (\d+), check result failed, (\d+)\s*\|")
# what a copy may put before each line of the table, as before its header: a grep's file and
# line ("hccl_test.log:5:"), or a collector's time stamp ("2026-05-11 10:02:04 ")
_LINE_PREFIX_RE = re.compile(
    r"^(?:[^\s:]{1,200}:\d+:|\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?[ \t]+)"
)


@dataclass(kw_only=True)
class Row:
    line: int
    size_bytes: int
    time_us: float
    """Mean time per iteration as printed."""
    algbw_gbytes_s: float
    busbw_gbytes_s: float | None
    """algbw x busbw_factor(op, ranks); None when op or ranks are unknown."""
    check: str
    """success, failed, or NULL (check disabled, e.g. ``-c 0`` or an overflowing dtype)."""
    failed_ranks: list[int] = field(default_factory=list)
    """Ranks that printed ``rank id N, check result failed`` for this size."""


@dataclass(kw_only=True)
class HcclTestLog:
    op: str
    """Operation in facts naming; ``unknown`` when neither the caller nor the log names it."""
    ranks: int | None
    npus_per_node: int | None
    dtype: str
    """From ``-d`` on the log's command line (float32, bfloat16 ...); ``unknown`` without it."""
    rows: list[Row]
    complete: bool
    """False when the log stops before the size range given by ``-e`` was reached."""
    warnings: list[ParseWarning] = field(default_factory=list)


def parse(text: str, *, op: str | None = None, ranks: int | None = None) -> HcclTestLog:
    """Parse an hccl_test log; ``op``/``ranks`` override what the command line in the log says."""
    lines = numbered_lines(text)
    command_op: str | None = None
    command_ranks: int | None = None
    dtype = UNKNOWN_DTYPE
    npus: int | None = None
    max_bytes: int | None = None
    header_line = 0
    rows: list[Row] = []
    warnings: list[ParseWarning] = []
    failed: dict[int, list[int]] = {}
    continued = ""  # a command line split with trailing backslashes, joined back
    prefixed = False  # the header stood behind a grep's file and line, or a time stamp
    for no, line, _ in lines:
        stripped = line.strip()
        if prefixed and (pre := _LINE_PREFIX_RE.match(stripped)):
            stripped = stripped[pre.end() :].strip()
        if stripped.endswith("\\") and not header_line:
            continued += stripped[:-1] + " "
            continue
        command = continued + stripped
        continued = ""
        m = BINARY_RE.search(command)
        if m and command_op is None:
            command_op = BINARIES[m.group(1)]
            if n := _NP_RE.search(command):
                command_ranks = int(n.group(1))
            if d := _DTYPE_RE.search(command):
                dtype = DTYPES.get(d.group(1).lower(), d.group(1))
            if p := _NPUS_RE.search(command):
                npus = int(p.group(1))
        if mb := re.search(r"maxbytes is (\d+)", stripped):
            max_bytes = int(mb.group(1))
        if h := _HEADER_RE.search(stripped):
            header_line = header_line or no
            prefixed = prefixed or (
                h.start() > 0 and (pre := _LINE_PREFIX_RE.match(stripped)) is not None
                and not stripped[pre.end() : h.start()].strip()
            )  # fmt: skip
            continue
        if fr := _FAILED_RANK_RE.match(stripped):
            failed.setdefault(int(fr.group(2)), []).append(int(fr.group(1)))
            continue
        if not header_line or not stripped or not stripped[0].isdigit():
            continue
        row = _ROW_RE.match(stripped)
        if row is None:
            warnings.append(ParseWarning(line=no, message="unreadable hccl_test row"))
            continue
        rows.append(
            Row(
                line=no,
                size_bytes=int(row.group(1)),
                time_us=float(row.group(2)),
                algbw_gbytes_s=float(row.group(3)),
                busbw_gbytes_s=None,
                check=row.group(4),
            )
        )
    if not header_line:
        failure = read_init_failure(text)
        if failure is not None:
            raise HcclTestInitError(failure)
        raise ParseError("no hccl_test results header ('data_size(Bytes): | aveg_time(us): ...')")
    if not rows:
        raise ParseError("hccl_test results header has no readable row", line=header_line)
    final_op = op or command_op or "unknown"
    final_ranks = ranks or command_ranks
    factor: float | None = None
    if final_op == "unknown" or final_ranks is None:
        warnings.append(
            ParseWarning(
                line=header_line,
                message="bus bandwidth not computed: the log names no "
                + (
                    "operation (save it with its command line, or name the file after the "
                    "binary, e.g. all_reduce_test.log)"
                    if final_op == "unknown"
                    else "rank count (save it with its mpirun -n command line)"
                )
                + "; algorithm bandwidth is kept",
                skipped=False,
            )
        )
    else:
        factor = busbw_factor(final_op, final_ranks)
    for r in rows:
        if factor is not None:
            r.busbw_gbytes_s = r.algbw_gbytes_s * factor
        r.failed_ranks = sorted(failed.get(r.size_bytes, []))
    complete = max_bytes is None or rows[-1].size_bytes >= max_bytes
    if not complete:
        warnings.append(
            ParseWarning(
                line=rows[-1].line,
                message=f"log ends at {rows[-1].size_bytes} bytes before maxbytes {max_bytes}: "
                "the run was cut short",
            )
        )
    return HcclTestLog(
        op=final_op,
        ranks=final_ranks,
        npus_per_node=npus,
        dtype=dtype,
        rows=rows,
        complete=complete,
        warnings=warnings,
    )


# HcclResult, hicann/hcomm include/hccl/hccl_types.h (the enum HCCL APIs return): value → (name,
# the header's comment for it).
HCCL_RESULTS: dict[int, tuple[str, str]] = {
    0: ("HCCL_SUCCESS", "success"),
    1: ("HCCL_E_PARA", "parameter error"),
    2: ("HCCL_E_PTR", "empty pointer"),
    3: ("HCCL_E_MEMORY", "memory error"),
    4: ("HCCL_E_INTERNAL", "internal error"),
    5: ("HCCL_E_NOT_SUPPORT", "feature not supported"),
    6: ("HCCL_E_NOT_FOUND", "specific resource not found"),
    7: ("HCCL_E_UNAVAIL", "resource unavailable"),
    8: ("HCCL_E_SYSCALL", "system interface call error"),
    9: ("HCCL_E_TIMEOUT", "timeout"),
    10: ("HCCL_E_OPEN_FILE_FAILURE", "open file failure"),
    11: ("HCCL_E_TCP_CONNECT", "TCP connect failure"),
    12: ("HCCL_E_ROCE_CONNECT", "RoCE connect failure"),
    13: ("HCCL_E_TCP_TRANSFER", "TCP transfer failure"),
    14: ("HCCL_E_ROCE_TRANSFER", "RoCE transfer failure"),
    15: ("HCCL_E_RUNTIME", "runtime API call failure"),
    16: ("HCCL_E_DRV", "driver API call failure"),
    17: ("HCCL_E_PROFILING", "profiling API call failure"),
    18: ("HCCL_E_CCE", "CCE API call failure"),
    19: ("HCCL_E_NETWORK", "network API call failure"),
    20: ("HCCL_E_AGAIN", "try again"),
    21: ("HCCL_E_REMOTE", "error CQE (remote side)"),
    22: ("HCCL_E_SUSPENDING", "communicator suspending"),
    23: ("HCCL_E_OPRETRY_FAIL", "operator retry constraint"),
    24: ("HCCL_E_OOM", "out of memory"),
    1041: ("HCCL_E_IN_STATUS", "the error information is in the status"),
}

# HCCL log lines print ``errNo[0x...]``: hicann/hcomm src/pub_inc/log.h builds it as
# (module 5 = HCCL) << 24 | sub-module << 16 | HcclResult.
_HCCL_MODULE_ID = 5

_INIT_FAILURE_RES = (
    # hccl_test's HCCLCHECK (hccl_test_common.h): "hccl interface return errreturn err
    # <file>:<line>, retcode: <n>" (the doubled word is in the source)
    re.compile(
        r"hccl interface return err(?:return err)?\s+(?P<where>[^\s:]+:\d+),\s*retcode:\s*(?P<code>-?\d+)"
    ),
    # torch_npu: "HCCL function error: hcclCommInitRootInfoConfig(...), error code is 15"
    re.compile(r"(?P<call>hcclCommInit\w*)\(.*?\),\s*error code is\s*(?P<code>-?\d+)", re.I),
    # "HcclCommInitRootInfo fail, error:2" / "HcclCommInitRootInfo failed: 7": the number must
    # follow an error keyword or the colon, so "failed for global_rank=3" is not read as a code
    re.compile(
        r"(?P<call>HcclCommInit\w*)\s+fail(?:ed)?\b"
        r"(?:[^\n]*?\b(?:error(?:\s+code)?(?:\s+is)?|ret(?:code)?)\s*[:=]?\s*|\s*[:=]\s*)"
        r"(?P<code>-?\d+)\b",
        re.I,
    ),
    # HCCL's own log: "errNo[0x0000000005000002]HcclCommInitRootInfo failed."
    re.compile(r"errNo\[0x(?P<hex>[0-9a-fA-F]+)\]\s*(?:\[[^\]]*\]\s*)*(?P<call>HcclCommInit\w*)"),
    # hccl_test's ACLCHECK on an acl call (its device set-up): "acl interface return err
    # ./common/src/hccl_test_common.cc:861, retcode: 100000." then "This is an error in
    # device_init." (the code an aclError: acl_base.h's return codes)
    re.compile(
        r"(?P<acl>acl) interface return err(?:return err)?\s+(?P<where>[^\s:]+:\d+),\s*"
        r"retcode:\s*(?P<code>-?\d+)"
    ),
)
_STAGE_RE = re.compile(r"^\s*This is an error in (\w+)\.?\s*$")
"""hccl_test's line under a failed check naming the step it was in (``device_init``)."""
ACL_BASE_ERRORS: dict[int, tuple[str, str]] = {
    100000: ("ACL_ERROR_INVALID_PARAM", "parameter check failed"),
    100001: ("ACL_ERROR_UNINITIALIZE", "not initialized: aclInit was not called first"),
    100002: ("ACL_ERROR_REPEAT_INITIALIZE", "initialized or loaded twice"),
    107001: ("ACL_ERROR_RT_INVALID_DEVICEID", "no such device id"),
    207004: ("ACL_ERROR_RT_NO_DEVICE", "no device"),
    507033: ("ACL_ERROR_RT_DEV_SETUP_ERROR", "the device could not be set up"),
    # (acl_base.h's 5000xx, as Ascend/torchair third_party/ascend/include/ascendcl/external/acl/
    # acl_base.h has them: a failure inside CANN, by the module it came from; CANN's acl return
    # code list gives no cause for them but the module's own log)
    500000: ("ACL_ERROR_INTERNAL_ERROR", "an unknown internal error"),
    500001: ("ACL_ERROR_FAILURE", "an internal error"),
    500002: ("ACL_ERROR_GE_FAILURE", "an error of GE, the graph engine"),
    500003: ("ACL_ERROR_RT_FAILURE", "an error of the runtime"),
    500004: ("ACL_ERROR_DRV_FAILURE", "an error of the driver"),
    500005: ("ACL_ERROR_PROFILING_FAILURE", "an error of profiling"),
}
"""acl return codes an hccl_test device set-up answers with, or an acl call's caller reports
(acl_base.h, rt_error_codes.h; CANN's acl return code list: 1xxxxx a parameter or a step the
caller owes, 5xxxxx the device's or CANN's own)."""


@dataclass(kw_only=True)
class InitFailure:
    """A run that stopped while creating its communicator, before any result row."""

    line: int
    """1-based line of the failure in the log."""
    call: str
    """The failing call as printed (``HcclCommInitRootInfo``), or where hccl_test's HCCLCHECK
    stopped (``hccl_opbase_rootinfo_base.cc:130``)."""
    code: int
    name: str
    """HcclResult name (``HCCL_E_UNAVAIL``), or ``unknown`` for a value the enum does not have."""
    meaning: str
    stage: str = "communicator init"
    """Where the run stopped: ``communicator init``, or the step hccl_test names under its
    check (``device_init``: setting its device up, before any communicator)."""
    acl: bool = False
    """The failed call is an acl one (its code an aclError), not HCCL's (an HcclResult)."""
    same_lines: list[int] = field(default_factory=list)
    """The lines below it that print the same failure again (the run's other processes)."""

    def describe(self) -> str:
        return f"{self.call} returned {self.code} = {self.name} ({self.meaning})"


def decode_result(code: int) -> tuple[str, str]:
    """(name, meaning) of an HcclResult value; ``unknown`` for values outside the enum."""
    return HCCL_RESULTS.get(code, ("unknown", "not an HcclResult value"))


def read_init_failure(text: str) -> InitFailure | None:
    """The first communicator-init failure in ``text`` before any results header, or None."""
    numbered = list(numbered_lines(text))
    for at, (no, line, _) in enumerate(numbered):
        if _HEADER_RE.search(line):
            return None
        for pattern in _INIT_FAILURE_RES:
            m = pattern.search(line)
            if m is None:
                continue
            groups = m.groupdict()
            if groups.get("hex"):
                value = int(groups["hex"], 16)
                if (value >> 24) & 0xFF != _HCCL_MODULE_ID:
                    continue  # not an HCCL error number: its low bits are not an HcclResult
                code = value & 0xFFFF
            else:
                code = int(groups["code"])
            if groups.get("acl"):
                name, meaning = ACL_BASE_ERRORS.get(
                    code, ("unknown", "see CANN's acl return codes")
                )
                call = f"hccl_test ACLCHECK at {groups['where']}"
            else:
                name, meaning = decode_result(code)
                call = groups.get("call") or f"hccl_test HCCLCHECK at {groups['where']}"
            failure = InitFailure(
                line=no,
                call=call,
                code=code,
                name=name,
                meaning=meaning,
                acl=bool(groups.get("acl")),
            )
            # each process of the run prints its own check: the same check again is another
            # rank's (hccl_test runs one process a rank under mpirun), however that rank spaced
            # it: the HCCL guide's three ranks print "retcode: 11", "retcode:11", "retcode: 11"
            # over one "This is an error in init_hcclComm." (www.hiascend.com/document/detail/
            # zh/CANNCommunityEdition/81RC1beta1/hccl/hcclug/hcclug_000060.html)
            failure.same_lines = [
                n for n, other, _ in numbered[at + 1 :] if _same_check(pattern, groups, line, other)
            ]
            # (the ranks' checks printed one under another: the step's line stands under the
            # last of them)
            below = at + 1
            while below < len(numbered) and numbered[below][0] in failure.same_lines:
                below += 1
            if below < len(numbered) and (stage := _STAGE_RE.match(numbered[below][1])):
                failure.stage = stage.group(1)
            elif groups.get("where"):
                # (hccl_test's check names its file and line only: which call it guarded, and
                # so the step, is not said)
                failure.stage = "a call hccl_test names by its source line only"
            return failure
    return None


def _same_check(
    pattern: re.Pattern[str], groups: dict[str, str | None], line: str, other: str
) -> bool:
    """``other`` prints the same failure as ``line``: the same text, or hccl_test's check of the
    same source line and code in other spacing."""
    if other.strip() == line.strip():
        return True
    if not groups.get("where"):
        return False
    again = pattern.search(other)
    return again is not None and again.groupdict() == groups


class HcclTestInitError(ParseError):
    """The log holds no result table because the run failed creating its communicator."""

    def __init__(self, failure: InitFailure) -> None:
        super().__init__(
            f"the run stopped at {failure.stage}, before any result table: {failure.describe()}",
            line=failure.line,
        )
        self.failure = failure
