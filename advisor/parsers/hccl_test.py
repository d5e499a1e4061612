"""CANN hccl_test logs: ``data_size(Bytes) | aveg_time(us) | alg_bandwidth(GB/s) | check_result``.

hccl_test prints no bus bandwidth. Its ``alg_bandwidth`` is ``data_size / time`` for every op
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

BINARY_RE = re.compile(r"\b(" + "|".join(sorted(BINARIES, key=len, reverse=True)) + r")v?_test\b")
_NP_RE = re.compile(r"\bmpirun\b.*?\s-(?:n|np)\s+(\d+)")
_DTYPE_RE = re.compile(r"_test\b.*?\s-d\s+(\w+)")
_NPUS_RE = re.compile(r"_test\b.*?\s-p\s+(\d+)")
_HEADER_RE = re.compile(r"data_size\(Bytes\):?\s*\|\s*aveg?_time\(us\):?\s*\|\s*alg_bandwidth")
_ROW_RE = re.compile(
    r"^(\d+)\s*\|\s*([0-9.eE+-]+)\s*\|\s*([0-9.eE+-]+|inf|nan)\s*\|\s*(success|failed|NULL)\s*$"
)
_FAILED_RANK_RE = re.compile(r"^rank id (\d+), check result failed, (\d+)\s*\|")


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
    rows: list[Row]
    complete: bool
    """False when the log stops before the size range given by ``-e`` was reached."""
    warnings: list[ParseWarning] = field(default_factory=list)


def parse(text: str, *, op: str | None = None, ranks: int | None = None) -> HcclTestLog:
    """Parse an hccl_test log; ``op``/``ranks`` override what the command line in the log says."""
    lines = numbered_lines(text)
    command_op: str | None = None
    command_ranks: int | None = None
    dtype = "float32"
    npus: int | None = None
    max_bytes: int | None = None
    header_line = 0
    rows: list[Row] = []
    warnings: list[ParseWarning] = []
    failed: dict[int, list[int]] = {}
    for no, line, _ in lines:
        stripped = line.strip()
        m = BINARY_RE.search(stripped)
        if m and command_op is None:
            command_op = BINARIES[m.group(1)]
            if n := _NP_RE.search(stripped):
                command_ranks = int(n.group(1))
            if d := _DTYPE_RE.search(stripped):
                dtype = DTYPES.get(d.group(1).lower(), d.group(1))
            if p := _NPUS_RE.search(stripped):
                npus = int(p.group(1))
        if mb := re.search(r"maxbytes is (\d+)", stripped):
            max_bytes = int(mb.group(1))
        if _HEADER_RE.search(stripped):
            header_line = header_line or no
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
                + ("operation" if final_op == "unknown" else "rank count (mpirun -n)")
                + "; pass them explicitly",
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
