"""``npu-smi info`` (the device table) and ``npu-smi info -t topo`` (the link matrix).

The table has two rows per chip between ``+===+`` rules; its layout differs by driver and chip:
narrow (910A, ``Chip``), wide (910B, ``Chip | Bus-Id | AICore(%) Memory-Usage(MB) HBM-Usage(MB)``),
``Chip Phy-ID`` (Atlas A3, two chips per NPU) and ``Chip Device`` without HBM (310P). Columns are
found by their header names, so each layout reads the same way. A chip whose second row was cut
off is read from its first row (power, temperature, health) with a warning. A fragment of the table
without its header rows (a paste that starts at some NPU) is read when its chip rows have the
two-row shape only this table prints (``| npu name | health | power temp ...`` over
``| chip | bus id | ...``); its columns are then taken in the order every layout shares.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field

from advisor.parsers import PDSH_HOST, ParseError, ParseWarning, numbered_lines

RETYPED_HEALTH = ("0K",)
"""Health values npu-smi never prints but pasted outputs carry: ``OK`` retyped with a digit zero
(vllm-ascend issue #1141 pastes four chips so). npu-smi reports five health states: OK, Warning,
Alarm, Critical, UNKNOWN (npu-smi command reference, "Querying the Health Status of All Chips");
such a value is kept as written, reported with its line and judged neither way."""

_VERSION_RE = re.compile(r"npu-smi\s+(\S+)\s+Version:\s*(\S+)")
# (linear time on a long run: a match starts where its run starts, not at each character of a long
# one)
_PAIR_RE = re.compile(r"(?<!\d)(\d+)\s*/\s*(\d+)")
_BUS_ID_RE = re.compile(r"[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]")

FRAGMENT_SIGNATURE = (
    r"^[ \t]*\|[ \t]*\d+[ \t]+[^|\s][^|\n]*\|[ \t]*[^|\s]+[ \t]*\|[^|\n]*\|[ \t]*\r?\n"
    r"[ \t]*\|[ \t]*\d+(?:[ \t]+\d+)?[ \t]*\|[ \t]*" + _BUS_ID_RE.pattern + r"[ \t]*\|"
)
"""A chip's two rows (``| 1  910B2 | OK | 99.0 36 ... |`` over ``| 0 | 0000:C2:00.0 | ...``), the
shape by which a table pasted without its header is still known (multi-line mode)."""
_FRAGMENT_RE = re.compile(FRAGMENT_SIGNATURE, re.M)

_LIMITER_RE = re.compile(
    r"Registered as Global Manager #\d{1,6} \(PID: \d{1,10}\)\. Compute limit: (?P<compute>\d{1,6}),"
    r" Memory limit: (?P<memory_mb>\d{1,9})"
)
"""HAMi-core's Ascend limiter (hami-vnpu-core's ``libvnpu.so``, preloaded in a soft-sliced vNPU
container) logging its quota as it starts, before npu-smi's own output: ``[INFO
limiter::manager] [Manager] Registered as Global Manager #0 (PID: 10). Compute limit: 1, Memory
limit: 8192, FixedShare: false``. The memory limit is the Pod's ``huawei.com/Ascend310P-memory``
in MiB, and ``libvnpu.so`` rewrites the device query to it, so npu-smi inside shows the slice
(0 / 8192 MB), not the card (Project-HAMi/website, blog/volcano-ascend-vnpu-soft-slicing: "a
device query inside the container reports only 8192 MiB", "libvnpu.so had rewritten the device
query to the container's quota ... NPU_MEM_QUOTA=8192")."""

_ROW_HOST = rf"(?P<host>{PDSH_HOST}):[ \t]+"
"""pdsh's host before each line of a node's output (dshbak(1): "the leading node: is stripped";
``pdsh -w node[01-02] "npu-smi info | grep 0000"``), a name or, where the targets were given as
addresses (``pdsh -w 10.0.0.[11-12]``), an address."""
_ROW_HOST_RE = re.compile(rf"^{_ROW_HOST}(?=\|)")
SECOND_ROW_SIGNATURE = (
    r"^[ \t]*(?:"
    + _ROW_HOST.replace("?P<host>", "?:")
    + r")?\|[ \t]*\d+(?:[ \t]+\d+)?[ \t]*\|[ \t]*"
    + _BUS_ID_RE.pattern
    + r"[ \t]*\|"
    r"[ \t]*(?:\d+(?:\.\d+)?|NA|-)[ \t]+\d+[ \t]*/[ \t]*\d+"
)
"""A chip's second row alone (``| 0   0 | 0000:81:00.0 | 0   0 / 8192 |``: chip ids, a PCI bus id,
the AI cores' figure then a used / total pair), as ``npu-smi info | grep 0000`` keeps it, pdsh's
host before it where run on several (``_ROW_HOST``): no other tool prints a bare bus id between
ids and a usage pair (multi-line mode)."""
_SECOND_ROW_RE = re.compile(SECOND_ROW_SIGNATURE, re.M)


@dataclass(kw_only=True)
class NpuChip:
    """One chip of ``npu-smi info`` (an NPU card holds one or two chips)."""

    npu: int
    chip: int | None
    """Chip index on its NPU; None when the chip's second row was cut off."""
    name: str
    """Chip name as printed (910B3, 310P3, Ascend910, 910A ...)."""
    health: str
    """OK, Warning, Alarm, Critical ... as printed."""
    bus_id: str
    """Empty when the chip's second row was cut off."""
    line: int
    phy_id: int | None = None
    device: int | None = None
    """Logical device id (310P ``Chip Device`` layout)."""
    power_w: float | None = None
    temp_c: float | None = None
    aicore_pct: float | None = None
    npu_util_pct: float | None = None
    """npu-smi 25.7's ``NPU Util(%)`` (Ascend 950), in the place older layouts print
    ``AICore(%)``: a different figure, so kept apart."""
    memory_used_mb: int | None = None
    memory_total_mb: int | None = None
    hbm_used_mb: int | None = None
    hbm_total_mb: int | None = None
    hugepages_used: int | None = None
    hugepages_total: int | None = None
    """``Hugepages-Usage(page)``, the first row's last column in every layout (used / total
    pages): 0 / 0 on an idle chip, taken as a process allocates its device memory in them."""


@dataclass(kw_only=True)
class NpuProcess:
    npu: int
    chip: int | None
    """None for a chip with no index (an Ascend 950 NPU's one chip, "-")."""
    pid: int
    name: str
    memory_mb: int | None
    line: int = 0


@dataclass(kw_only=True)
class NpuChipRowAlone:
    """A chip's second row kept alone (``npu-smi info | grep 0000``): its figures, with no NPU
    id, name or health (those are in the first row). The chip index is the chip's place on its
    NPU (0 on every one-chip NPU), so the bus id is what names the chip."""

    line: int
    bus_id: str
    chip: int
    host: str | None = None
    """The node pdsh named before the row (``_ROW_HOST``); None where no host leads it."""
    phy_id: int | None = None
    device: int | None = None
    """Logical device id (310P ``Chip Device`` layout)."""
    aicore_pct: float | None = None
    memory_used_mb: int | None = None
    """A 310P's device memory (``Chip Device`` layout), a 910's control CPU's DDR beside its
    HBM; None where the row's one pair could be either column."""
    memory_total_mb: int | None = None
    hbm_used_mb: int | None = None
    hbm_total_mb: int | None = None


@dataclass(kw_only=True)
class NpuSmiInfo:
    version: str
    chips: list[NpuChip]
    processes: list[NpuProcess] = field(default_factory=list)
    warnings: list[ParseWarning] = field(default_factory=list)
    rows_alone: list[NpuChipRowAlone] = field(default_factory=list)
    """Chips' second rows of a copy that kept no first row: their figures, no chip's health."""

    @property
    def unhealthy(self) -> list[NpuChip]:
        return [
            c for c in self.chips if c.health.upper() != "OK" and c.health not in RETYPED_HEALTH
        ]


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _float(token: str) -> float | None:
    try:
        return float(token)
    except ValueError:
        return None  # "NA" or "-" for chips that do not report the value


def parse_info(text: str) -> NpuSmiInfo:
    """Parse the ``npu-smi info`` table; raises ParseError when it holds no readable chip."""
    lines = numbered_lines(text)
    version = ""
    header_line = 0
    second_header: list[str] = []
    chips: list[NpuChip] = []
    processes: list[NpuProcess] = []
    warnings: list[ParseWarning] = []
    in_processes = False
    id_name = False
    pending: tuple[int, list[str]] | None = None
    headless = not _has_header(lines)
    fragment = _FRAGMENT_RE.search(text) if headless else None
    if headless and fragment is None and _SECOND_ROW_RE.search(text):
        # chips' second rows and no first row (a grep's copy): what they say, no chip made up
        said, rows = _second_rows_alone(lines, text.splitlines())
        return NpuSmiInfo(version=_version(lines), chips=[], warnings=said, rows_alone=rows)
    if fragment is not None:
        # no header rows: the first chip row stands in for the header's place
        header_line = text.count("\n", 0, fragment.start()) + 1
        warnings.append(
            ParseWarning(
                line=header_line,
                message="npu-smi info rows without the table's header (a fragment): columns "
                "taken in the order all layouts share (Power(W) Temp(C); Chip, Bus-Id, AICore(%), "
                "then Memory-Usage(MB) and HBM-Usage(MB) when both are given)",
                skipped=False,
            )
        )

    def flush_top_only(cut_at: tuple[int, int] | None = None) -> None:
        """The pending chip from its first row alone; ``cut_at``: (line, chip index) of a second
        row the copy cut after its chip index."""
        nonlocal pending
        if pending is None:
            return
        top_no, top = pending
        pending = None
        try:
            chip = _chip_top(top_no, top)
        except (ValueError, IndexError) as e:
            warnings.append(ParseWarning(line=top_no, message=f"unreadable chip row ({e})"))
            return
        chips.append(chip)
        if cut_at is not None:
            chip.chip = cut_at[1]
            warnings.append(
                ParseWarning(
                    line=cut_at[0],
                    message=f"NPU {chip.npu} chip {chip.chip}'s second row is cut off after its "
                    "chip index: its bus id and usage are unknown",
                )
            )
            return
        warnings.append(
            ParseWarning(
                line=top_no,
                message=f"NPU {chip.npu}'s second row is missing (cut off): read from its first "
                "row only (chip, bus id and usage unknown)"
                if top[2]
                else f"NPU {chip.npu}'s rows are cut off after its health: read that far "
                "(power, temperature, chip, bus id and usage unknown)",
            )
        )

    for no, line, _ in lines:
        s = line.strip()
        if m := _VERSION_RE.search(s):
            version = m.group(2)
            continue
        if not s.startswith("|"):
            if s.startswith("+"):
                flush_top_only()
            continue
        cells = _cells(s)
        if _id_name_header(cells):
            # npu-smi 25.7's layout (Ascend 950): "| NPU ID | Name | Health | ...", no chip column
            header_line, in_processes, id_name = no, False, True
            continue
        if (
            id_name
            and len(cells) >= 4
            and not in_processes
            and not any(c.startswith("Process id") for c in cells)
        ):
            # its NPU id and name cells read as the older layouts' one "NPU   Name" cell
            cells = [f"{cells[0]} {cells[1]}".strip(), *cells[2:]]
            if (
                pending is not None
                and not cells[0]
                and (_BUS_ID_RE.fullmatch(cells[1]) or cells[1] == "NA")
            ):
                # the second row: no chip index printed (Ascend 950's "NA" where a card has no
                # bus id to show)
                cells[0] = "-"
        first = cells[0].split()
        if first[:2] == ["NPU", "Name"]:
            header_line, in_processes = no, False
            continue
        if first and first[0] == "Chip" and header_line and not in_processes and len(cells) >= 3:
            second_header = first + cells[1].split() + cells[2].split()
            continue
        if id_name and not first and len(cells) >= 3 and cells[1] == "Bus-Id":
            # 25.7's second header row: no chip column, then Bus-Id and the usage names
            second_header = ["-", *cells[1].split(), *cells[2].split()]
            continue
        if len(cells) > 1 and cells[1].startswith("Process id"):
            in_processes = True
            header_line = header_line or no  # a copy of the process table alone
            continue
        if fragment is not None and no < header_line and len(cells) >= 3 and _is_bottom(cells):
            # a fragment that starts at a chip's second row: said, not dropped unseen
            warnings.append(
                ParseWarning(
                    line=no,
                    message=f"a chip's second row (ids {cells[0]}, bus id {cells[1]}, usage "
                    f"{' '.join(cells[2].split())}) before the first whole chip: its first row "
                    "(NPU, name, health) is not in the copy; skipped",
                )
            )
            continue
        if not header_line or no < header_line:
            continue
        if in_processes:
            if len(cells) >= 4 and cells[0].split() and cells[0].split()[0].isdigit():
                ids = cells[0].split()
                try:
                    processes.append(
                        NpuProcess(
                            npu=int(ids[0]),
                            chip=int(ids[1]) if len(ids) > 1 else 0,
                            pid=int(cells[1]),
                            name=cells[2],
                            memory_mb=int(cells[3]) if cells[3].isdigit() else None,
                            line=no,
                        )
                    )
                except ValueError:
                    warnings.append(ParseWarning(line=no, message="unreadable process row"))
            continue
        if len(cells) == 2 and not s.endswith("|") and _is_top([*cells, ""]):
            # the copy ends inside a chip's first row, after its health: read that far
            flush_top_only()
            pending = (no, [*cells, ""])
            continue
        if (
            pending is not None
            and len(cells) < 3
            and not s.endswith("|")
            and first
            and first[0].isdigit()
            and len(first) == 1
        ):
            # the copy ends inside the chip's second row, its chip index read ("| 0   | 00"):
            # the chip is known, its bus id and usage are not
            flush_top_only((no, int(first[0])))
            continue
        if len(cells) < 3 or not first or not (first[0].isdigit() or first == ["-"]):
            continue
        if pending is not None and _is_top(cells):
            flush_top_only()  # a new chip's first row: the pending one lost its second row
        if pending is None:
            if _is_bottom(cells):
                warnings.append(
                    ParseWarning(line=no, message="chip's second row without its first: skipped")
                )
                continue
            pending = (no, cells)
            continue
        top_no, top = pending
        pending = None
        try:
            chip = _chip(top_no, top, cells, second_header)
        except (ValueError, IndexError) as e:
            warnings.append(ParseWarning(line=top_no, message=f"unreadable chip rows ({e})"))
            continue
        chips.append(chip)
        if not line.rstrip().endswith("|"):
            # the copy ends inside the second row: the figures after the cut are unknown
            warnings.append(
                ParseWarning(
                    line=no,
                    message=f"NPU {chip.npu} chip {chip.chip}'s second row is cut off: the "
                    "usage figures after the cut are unknown",
                )
            )
        if chip.health in RETYPED_HEALTH:
            warnings.append(
                ParseWarning(
                    line=top_no,
                    message=f"NPU {chip.npu} chip {chip.chip} health {chip.health!r} is not a "
                    "value npu-smi prints (OK typed with a digit zero?): kept as written, not "
                    "judged healthy or unhealthy",
                )
            )
    flush_top_only()  # the table ends inside a chip's rows
    # the author's "..." just above a headerless fragment's first row: the copy says itself that
    # it is an excerpt (the banner and header rows left out), every row in it whole
    head_elided = 0
    if fragment is not None:
        above = [(no, t.strip()) for no, t, _ in lines if no < header_line and t.strip()]
        if above and not above[-1][1].strip(".… "):
            head_elided = above[-1][0]
            warnings.append(
                ParseWarning(
                    line=head_elided,
                    message="the copy left the table's head out here ('...'): npu-smi's banner "
                    "and header rows are not in it; the chip rows after it are read by their shape",
                    skipped=False,
                )
            )
    tail = list(itertools.islice(((no, t.strip()) for no, t, _ in reversed(lines) if t.strip()), 2))
    tail = tail[::-1] or [(0, "")]
    # a copy that says it left the rest out ("...") after a row ends there too
    elided = len(tail) > 1 and not tail[-1][1].strip(".… ")
    last = tail[-2] if elided else tail[-1]
    if (
        (chips or processes)
        and last[1].startswith("|")
        and not any(w.line == last[0] for w in warnings)
    ):
        # npu-smi closes each chip's rows and its process table with a border: a copy that ends
        # on a row was cut there
        what = "process table" if in_processes else "chip table"
        after = "processes after this row" if in_processes else f"chips after NPU {chips[-1].npu}"
        how = "the copy left the rest out ('...')" if elided else "cut off"
        # an excerpt its author marked as one ("..." for the head) whose last row is whole: every
        # line was read, what it leaves out is said as a note (the file is read, not partial)
        excerpt = bool(head_elided) and last[1].endswith("|") and pending is None
        if excerpt and not elided:
            how = f"an excerpt: its head left out at line {head_elided}"
        warnings.append(
            ParseWarning(
                line=last[0],
                message=f"the {what} ends without its closing border ({how}): {after} are unknown",
                skipped=not excerpt,
            )
        )
    table_rows = [(no, t.strip()) for no, t, _ in lines if t.strip()[:1] in ("+", "|")]
    if chips and table_rows and not in_processes:
        border_no, border = table_rows[-1]
        # (a chip's block closes with "+===...+"; a dashed border opens the process table)
        if border.startswith("+") and not border.endswith("+") and set(border) == {"+", "="}:
            # the table's last line is a border cut short (a copy that stopped inside it, the
            # rest of the output left out): chips after it, if any, are unknown
            warnings.append(
                ParseWarning(
                    line=border_no,
                    message=f"the chip table ends in a border cut short: chips after NPU "
                    f"{chips[-1].npu} are unknown",
                )
            )
    for no, t, _ in lines:
        # a copy that left rows out inside the table ("..." between two chips' blocks): the
        # chips (or processes) it stands for are not in the file; one after the last row is
        # said above
        if header_line < no < tail[-1][0] and t.strip() and not t.strip().strip(".… "):
            warnings.append(
                ParseWarning(
                    line=no,
                    message="the copy left rows out here ('...'): the chips or processes "
                    "between the rows around it are unknown",
                )
            )
    if not header_line:
        raise ParseError("no npu-smi info table (no '| NPU   Name | Health ...' header)")
    if not chips and processes:
        # the process table copied without the chips above it: who holds which NPU, no health
        on = sorted({(p.npu, p.chip) for p in processes})
        warnings.append(
            ParseWarning(
                line=header_line,
                message=f"npu-smi info's process table without its chip rows: "
                f"{len(processes)} process(es) on "
                + ", ".join(f"NPU {npu} chip {chip}" for npu, chip in on)
                + " ("
                + ", ".join(
                    f"{p.name} {p.pid}" + (f" {p.memory_mb} MB" if p.memory_mb is not None else "")
                    for p in processes
                )
                + "); no chip's health in it",
                skipped=False,
            )
        )
    elif not chips and version:
        # the copy ends at the table's header (a paste cut short): the version is all it says
        warnings.append(
            ParseWarning(
                line=header_line,
                message=f"npu-smi info (npu-smi {version}) ends after its header: no chip row "
                "in the copy, so no chip's health, power or memory is known",
                skipped=True,
            )
        )
    elif not chips:
        raise ParseError("npu-smi info table has no readable chip", line=header_line)
    if (limiter := _LIMITER_RE.search(text)) is not None and chips:
        limit_mb = int(limiter.group("memory_mb"))
        sliced = [c for c in chips if c.memory_total_mb == limit_mb]
        warnings.append(
            ParseWarning(
                line=text.count("\n", 0, limiter.start()) + 1,
                message=f"HAMi-core's vNPU limiter (libvnpu.so) runs in this container: memory "
                f"limit {limit_mb} MB, compute limit {limiter.group('compute')}; npu-smi shows "
                "the container's soft-sliced vNPU, not the whole card"
                + (
                    " ("
                    + ", ".join(
                        f"NPU {c.npu} chip {c.chip}: {c.memory_used_mb} / {c.memory_total_mb} MB, "
                        "the slice's limit"
                        for c in sliced
                    )
                    + ")"
                    if sliced
                    else ""
                ),
                skipped=False,
            )
        )
    shown = {(c.npu, c.chip) for c in chips}
    for p in processes:
        if (p.npu, None) in shown and p.chip == 0:
            # a chip with no index (Ascend 950's rows, "-" for the chip) and a process row that
            # names the NPU alone: that NPU's one chip
            p.chip = None
        if (p.npu, p.chip) not in shown:
            # a copy that left chip rows out ('...') kept this process: the NPU is there and
            # busy, its health is not in the copy
            warnings.append(
                ParseWarning(
                    line=p.line,
                    message=f"a process on NPU {p.npu} chip {p.chip} ({p.name} {p.pid}"
                    + (f", {p.memory_mb} MB" if p.memory_mb is not None else "")
                    + "), whose chip row is not in the copy: its health is unknown",
                    skipped=False,
                )
            )
    return NpuSmiInfo(version=version, chips=chips, processes=processes, warnings=warnings)


def _version(lines: list[tuple[int, str, int | None]]) -> str:
    return next((m.group(2) for _, t, _ in lines if (m := _VERSION_RE.search(t))), "")


def _second_rows_alone(
    lines: list[tuple[int, str, int | None]], as_written: list[str]
) -> tuple[list[ParseWarning], list[NpuChipRowAlone]]:
    """Each chip second row of a copy that kept no first row (``npu-smi info | grep -E
    "0000|..."`` keeps the rows with a bus id): its figures as far as the row's shape names them,
    said and kept. The NPU id, name and health are in the first row only, so no chip's health is
    read; its memory figures are the chip's own and are judged as a whole table's are."""
    said = []
    rows: list[NpuChipRowAlone] = []
    for no, line, _ in lines:
        s = line.strip()
        if (kept := _ROW_HOST_RE.match(s)) is not None:
            s = s[kept.end() :]
        if not s.startswith("|") or not _SECOND_ROW_RE.match(s):
            continue
        # numbered_lines takes an address's "10.0.0.12: " off as pdsh's prefix (PDSH_PREFIX_RE)
        # and keeps a name's: the host is read from the line as written (a row's only)
        host = _ROW_HOST_RE.match(as_written[no - 1].strip())
        cells = _cells(s)
        ids = cells[0].split()
        usage = cells[2].split()
        pairs = _PAIR_RE.findall(cells[2])
        # the layouts' second headers (module docstring): "Chip Device" (310P, one pair:
        # Memory-Usage, no HBM column), "Chip Phy-ID" (Atlas A3, Memory then HBM), "Chip" (910A,
        # 910B: Memory then HBM); one id and one pair could be either usage column
        row = NpuChipRowAlone(
            line=no, bus_id=cells[1], chip=int(ids[0]), host=host.group("host") if host else None
        )
        on = f" on {row.host}" if row.host else ""
        # (the chip index is its place on its NPU: "chip 0" on every one-chip NPU, so the note
        # names the chip by its bus id and the index as an index of an NPU not named)
        if len(ids) > 1:
            kind = "device" if len(pairs) == 1 else "phy-id"
            names = f"the chip at bus id {cells[1]}{on} (chip {ids[0]} {kind} {ids[1]} of its NPU)"
            if kind == "device":
                row.device = int(ids[1])
            else:
                row.phy_id = int(ids[1])
        else:
            names = f"the chip at bus id {cells[1]}{on} (chip {ids[0]} of its NPU)"
        if len(pairs) == 2:
            figures = (
                f"memory {pairs[0][0]} / {pairs[0][1]} MB, HBM {pairs[1][0]} / {pairs[1][1]} MB"
            )
            row.memory_used_mb, row.memory_total_mb = int(pairs[0][0]), int(pairs[0][1])
            row.hbm_used_mb, row.hbm_total_mb = int(pairs[1][0]), int(pairs[1][1])
        elif len(ids) > 1:
            figures = f"memory {pairs[0][0]} / {pairs[0][1]} MB"
            row.memory_used_mb, row.memory_total_mb = int(pairs[0][0]), int(pairs[0][1])
        else:
            figures = f"usage {pairs[0][0]} / {pairs[0][1]} MB (memory or HBM: no header says)"
        aicore = f"AICore {usage[0]} %" if usage[0] not in ("NA", "-") else "AICore NA"
        if usage[0] not in ("NA", "-"):
            row.aicore_pct = float(usage[0])
        rows.append(row)
        said.append(
            ParseWarning(
                line=no,
                message=f"npu-smi info chip row without its first row (a filtered copy, as "
                f"'npu-smi info | grep' keeps it): {names}, {aicore}, {figures}; the NPU id, "
                "name and health are not in the copy, so its health is not judged (its memory "
                "is)",
                skipped=False,
            )
        )
    return said, rows


def _has_header(lines: list[tuple[int, str, int | None]]) -> bool:
    return any(
        _cells(line.strip())[0].split()[:2] == ["NPU", "Name"]
        or _id_name_header(_cells(line.strip()))
        for _, line, _ in lines
    )


def _id_name_header(cells: list[str]) -> bool:
    return len(cells) > 2 and cells[0].strip() == "NPU ID" and cells[1].strip() == "Name"


def _is_top(cells: list[str]) -> bool:
    """A chip's first row: its first cell is the NPU id then the chip name (``1  910B2``)."""
    first = cells[0].split()
    return (
        len(first) >= 2
        and first[0].isdigit()
        and not first[1].isdigit()
        and _BUS_ID_RE.fullmatch(cells[1]) is None
    )


def _is_bottom(cells: list[str]) -> bool:
    """A chip's second row: ids only in the first cell, a PCI bus id in the second."""
    return all(t.isdigit() for t in cells[0].split()) and _BUS_ID_RE.fullmatch(cells[1]) is not None


def _chip_top(top_no: int, top: list[str]) -> NpuChip:
    """A chip from its first row alone (its second row was cut off)."""
    npu_name = top[0].split()
    power_temp = top[2].split()
    pages = _PAIR_RE.findall(top[2])  # (Power(W) Temp(C) Hugepages-Usage(page): one pair)
    return NpuChip(
        npu=int(npu_name[0]),
        name=" ".join(npu_name[1:]),
        health=top[1],
        chip=None,
        bus_id="",
        line=top_no,
        power_w=_float(power_temp[0]) if power_temp else None,
        temp_c=_float(power_temp[1]) if len(power_temp) > 1 else None,
        hugepages_used=int(pages[0][0]) if len(pages) == 1 else None,
        hugepages_total=int(pages[0][1]) if len(pages) == 1 else None,
    )


def _chip(top_no: int, top: list[str], bottom: list[str], header: list[str]) -> NpuChip:
    ids = [] if bottom[0] == "-" else bottom[0].split()  # "-": a layout with no chip index
    second_id = header[1] if len(header) > 1 and header[1] in ("Phy-ID", "Device") else ""
    usage = bottom[2]
    pairs = [(int(a), int(b)) for a, b in _PAIR_RE.findall(usage)]
    aicore = usage.split()[0] if usage.split() else ""
    chip = _chip_top(top_no, top)
    chip.chip = int(ids[0]) if ids else None
    chip.bus_id = bottom[1]
    if "Util(%)" in header:
        chip.npu_util_pct = _float(aicore)
    else:
        chip.aicore_pct = _float(aicore)
    if second_id and len(ids) > 1:
        setattr(chip, "phy_id" if second_id == "Phy-ID" else "device", int(ids[1]))
    if not header:
        # a fragment without its header: two pairs are Memory-Usage then HBM-Usage in every layout
        # that prints both (910A, 910B, Atlas A3); one pair could be either and is left unread,
        # except on a 310P card with two ids a chip: its "Chip Device" layout (Atlas 300I Duo)
        # has no HBM column, so its one pair is Memory-Usage and its second id the Device
        if len(pairs) == 2:
            (chip.memory_used_mb, chip.memory_total_mb), (chip.hbm_used_mb, chip.hbm_total_mb) = (
                pairs
            )
        elif chip.name.startswith("310P") and len(ids) > 1:
            chip.device = int(ids[1])
            if len(pairs) == 1:
                chip.memory_used_mb, chip.memory_total_mb = pairs[0]
        return chip
    has_memory = "Memory-Usage(MB)" in header
    has_hbm = "HBM-Usage(MB)" in header
    if has_memory and pairs:
        chip.memory_used_mb, chip.memory_total_mb = pairs[0]
    if has_hbm:
        hbm = pairs[1] if has_memory and len(pairs) > 1 else (pairs[0] if not has_memory else None)
        if hbm:
            chip.hbm_used_mb, chip.hbm_total_mb = hbm
    return chip


@dataclass(kw_only=True)
class Topology:
    """A link matrix: ``links[a][b]`` is the connection type printed between devices a and b."""

    devices: list[str]
    links: dict[str, dict[str, str]]
    cpu_affinity: dict[str, str] = field(default_factory=dict)
    numa_affinity: dict[str, str] = field(default_factory=dict)
    """``NUMA Affinity`` per device (the NUMA node(s) local to it; ``N/A`` when the tool cannot
    tell)."""
    legend: dict[str, str] = field(default_factory=dict)
    row_lines: dict[str, int] = field(default_factory=dict)
    """The line each device's row is printed on (a finding names the row's own line)."""
    columns: list[str] = field(default_factory=list)
    """The header's device names (a copy may hold fewer rows than it has columns)."""
    warnings: list[ParseWarning] = field(default_factory=list)
    """Rows read with a doubt (link cells missing before the affinity, an affinity missing)."""

    def kinds(self) -> set[str]:
        return {v for row in self.links.values() for k, v in row.items() if v != "X"}


_AFFINITY_WORDS = ("CPU", "NUMA", "GPU")
"""First words of the affinity columns after the device names (``CPU Affinity``, ``NUMA
Affinity``, ``GPU NUMA ID``): a header row, never a link cell."""

_CPU_LIST_RE = re.compile(r"^\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*$")
"""A ``CPU Affinity`` value (``144-191``, ``0-23,48-71``): never a link kind, which is letters."""
_NO_AFFINITY = ("N/A", "NA")
"""What a tool prints in an affinity cell it has no value for."""


def parse_matrix(text: str, *, prefixes: tuple[str, ...], tool: str) -> Topology:
    """Shared by ``npu-smi info -t topo`` and ``nvidia-smi topo -m``: a header row of device names,
    one row per device, optional affinity columns and a ``Legend:`` block.

    The matrix is found by content wherever it sits (after other output, header at column 0 or
    indented, devices not starting at 0): a header is a line of device names (then affinity
    labels), a row is a device name followed by a link cell."""
    lines = numbered_lines(text)
    head_no = 0
    columns: list[str] = []
    devices: list[str] = []
    links: dict[str, dict[str, str]] = {}
    row_lines: dict[str, int] = {}
    affinity: dict[str, str] = {}
    numa: dict[str, str] = {}
    has_numa = False
    legend: dict[str, str] = {}
    warnings: list[ParseWarning] = []
    has_affinity = False
    in_legend = False
    device_re = re.compile(r"^(?:" + "|".join(re.escape(p) for p in prefixes) + r")\d+$")
    last_no = max((no for no, line, _ in lines if line.strip()), default=0)

    def cut_name(token: str) -> bool:
        # the start of a device name a copy cut ("Phy" of "Phy-ID1")
        return any(p.startswith(token) for p in prefixes)

    header_cut = False
    for no, line, _ in lines:
        tokens = line.split()
        if not tokens:
            continue
        if tokens[0].rstrip(":") == "Legend":
            in_legend = True
            continue
        if in_legend:
            if m := re.match(r"^\s*(\S+)\s+=\s+(.*)$", line):
                legend[m.group(1)] = m.group(2).strip()
            elif legend:
                in_legend = False  # the legend ended: other output follows
            continue
        if not device_re.match(tokens[0]):
            continue
        is_header = (
            len(tokens) == 1 or bool(device_re.match(tokens[1])) or (tokens[1] in _AFFINITY_WORDS)
        )
        if not is_header and no == last_no and not head_no:
            # the text ends inside the header ("Phy-ID0    Phy"): its names, the last one cut
            is_header = header_cut = all(device_re.match(t) for t in tokens[1:-1]) and cut_name(
                tokens[-1]
            )
        if is_header:
            if not head_no:
                head_no = no
                columns = [t for t in tokens if device_re.match(t)]
                has_affinity = "CPU" in tokens
                # (CPU Affinity then NUMA Affinity: the NUMA node is the cell after the CPU list)
                has_numa = has_affinity and "NUMA" in tokens[tokens.index("CPU") :]
            continue
        if not head_no or (devices and tokens[0] in links):
            continue  # a row before any header, or a second matrix: not this one
        name = tokens[0]
        cells = tokens[1:]
        row_lines[name] = no
        # a row that ends in a CPU list within the device columns is short of a link cell
        if has_affinity and 1 < len(cells) <= len(columns) and _CPU_LIST_RE.match(cells[-1]):
            devices.append(name)
            affinity[name] = cells[-1]
            links[name] = dict(zip(columns, cells[:-1], strict=False))
            warnings.append(ParseWarning(line=no, message=_short_row(name, cells, columns)))
            continue
        if len(cells) < len(columns):
            raise ParseError(
                f"{tool} row {name} has {len(cells)} cells for {len(columns)} devices", line=no
            )
        devices.append(name)
        links[name] = dict(zip(columns, cells[: len(columns)], strict=True))
        extra = cells[len(columns) :]
        if extra and (_CPU_LIST_RE.match(extra[0]) or extra[0] in _NO_AFFINITY):
            affinity[name] = extra[0]
            if (
                has_numa
                and len(extra) > 1
                and (_CPU_LIST_RE.match(extra[1]) or extra[1] in _NO_AFFINITY)
            ):
                numa[name] = extra[1]
        elif extra:
            # text after the links that is no CPU list (a note the user wrote beside the row,
            # "← SIO between the two dies"): not an affinity, and not read
            warnings.append(
                ParseWarning(
                    line=no,
                    message=f"row {name}: text after its links is no CPU affinity "
                    f"({' '.join(extra)[:60]!r}): not read",
                    skipped=False,
                )
            )
        elif has_affinity:
            warnings.append(ParseWarning(line=no, message=f"row {name} has no CPU Affinity value"))
    if not head_no:
        raise ParseError(f"no {tool} topology matrix (no header row of device names)")
    if not devices and (header_cut or head_no == last_no):
        raise ParseError(
            f"the copy ends inside the {tool} topology matrix's header: no device row, so no "
            "link is known",
            line=head_no,
        )
    if not devices:
        raise ParseError(f"{tool} topology matrix has no device row", line=head_no)
    return Topology(
        devices=devices,
        links=links,
        cpu_affinity=affinity,
        numa_affinity=numa,
        legend=legend,
        row_lines=row_lines,
        columns=columns,
        warnings=warnings,
    )


def _short_row(name: str, cells: list[str], columns: list[str]) -> str:
    """Why a row short of link cells, ending in a CPU list, was read as it was."""
    link_cells = cells[:-1]
    missing = columns[len(link_cells) :]
    note = (
        f"row {name} has {len(link_cells)} link cells for {len(columns)} devices, then CPU "
        f"affinity {cells[-1]}: cells read in column order from {columns[0]}, no link read "
        f"to {', '.join(missing)}"
    )
    own = columns.index(name) if name in columns else -1
    if "X" in link_cells and link_cells.index("X") != own:
        note += f" (its X falls under {columns[link_cells.index('X')]}: the cells may be shifted)"
    return note


def parse_topo(text: str) -> Topology:
    """Parse ``npu-smi info -t topo``: HCCS, PIX, PXB, PHB, SYS between NPUs; SIO (the two dies of
    one Atlas A3 NPU) and HCCS_SW (HCCS through a switch) on A3; UB on Atlas 350 (950) cards,
    whose legend has no HCCS (npu-smi command reference, "Querying the Topology of Multiple
    NPUs"; CANN ``aclrtGetDevicesTopo`` lists the same link kinds). Kinds are kept as printed."""
    return parse_matrix(text, prefixes=("NPU", "Phy-ID"), tool="npu-smi")


# ``npu-smi info -t TYPE -i N [-c CHIP]``: one "Key   : value" per line, the key padded to a
# column, a value that goes on over lines under an empty key ("               : node type=...").
# ``-t health`` answers "Health Status", "Error Code" and "Error Information" (the chip's alarm
# codes and their texts); ``-t usages``, ``-t board``, ``-t memory`` ... answer figures with no
# health in them. The form is that of npu-smi's outputs the MindCluster fault-diagnosis test data
# keeps (Ascend/mind-cluster, ascend-faultdiag, kg_parse/npu_info_after.txt).
SETTING_QUERIES = {
    # Ascend 950's npu-smi reference (hicann/driver, docs/en/Ascend_950_npu-smi), each answer a
    # setting or a clock, no health in it: "Querying the System Time of a Device" (``-t sys-time
    # -i N``: "System Time(local)", the chip's time in the host's local time zone), "Querying the
    # Certificate Expiration Threshold" (``-t tls-cert-period -i N``: "Certificate validity
    # period", the TLS certificate's expiry-alarm threshold, "90 days" in its example) and
    # "Querying the Log Dumping Configuration" (``-t sys-log-info``: the syslog dump's
    # persistence mode "recover mode" disable or enable, its capacity level "gear" and its path)
    "System Time(local)": "sys-time",
    "Certificate validity period": "tls-cert-period",
    "Current syslog dump config recover mode": "sys-log-info",
}
"""The first key of each settings answer, and the ``-t`` type it answers (an answer copied
without its command line is known by it)."""
_QUERY_KEYS = (
    "Health Status",
    "NPU ID",
    "Chip ID",
    "Chip Count",
    "Aicore Usage Rate(%)",
    "HBM Capacity(MB)",
    "Chip Name",
    # -t current-fault-event (Ascend 950's npu-smi reference): the count, then each event
    "Fault Event Count",
    # -t sensors (Ascend 950): the SoC's, its NPU die's and its HBM's temperatures
    "Soc Max Temperature (C)",
    "NDIE Temperature (C)",
    # -t hccs: the HCCS links' health and their counters, a figure a link in brackets
    "hccs health status",
    # -t ecc-enable (Ascend 950's npu-smi reference, "Querying the ECC Enabling Status of a
    # Device"): whether the on-chip memory's ECC is on, True or False, True its default; npu-smi's
    # show_ascend_card_ecc_enable (hicann driver source) prints "ECC-Enable Status" on the
    # 310/310B and "DDR ECC-Enable Status" on other chips but the 910B/910_93/950 first
    "HBM ECC-Enable Status",
    "DDR ECC-Enable Status",
    "ECC-Enable Status",
    # -t key-manage (Ascend 950's npu-smi reference, "Querying the Service Status of the KMSAgent
    # Process"): the key-management process's service, auto startup Enable or Disable and running
    # status Running or Stop, Disable and Stop its defaults; no NPU named
    "service auto startup",
    "service running status",
    # -t sys-time, -t tls-cert-period, -t sys-log-info: settings (SETTING_QUERIES)
    *SETTING_QUERIES,
)
"""Keys only npu-smi's answers print ("Board ID" is left out: nvidia-smi -q prints one too): an
answer holds one of them, and a line of one, padded to npu-smi's column, marks the format."""
_ANSWER_HEADS = ("Health Status", "NPU ID", "Fault Event Count", "hccs health status")
"""Keys an answer prints once, first: seen again, they start the next answer."""
_BLOCK_HEADS = ("Chip ID", "Health")
"""Keys a chip's block of one NPU's answer prints once (Atlas 200I A2's ``-t health``: ``Chip
ID : 0`` / ``Health : OK``, then the MCU's ``Health : OK`` / ``Chip Name : MCU``): seen again,
the next chip's block starts."""
QUERY_SIGNATURE = (
    r"^[ \t]*(?:" + "|".join(map(re.escape, _QUERY_KEYS)) + r")[ \t]{2,}:[ \t]*\S"
    # a query's command line with an answer of "Key : value" lines right under it (Ascend
    # 950's "-t sio-info" answers "TX Error Count : 0" with one blank before the colon)
    r"|npu-smi[ \t]+info[ \t]+-t[ \t]+(?!topo\b)[\w-]+[^\n]*\n[ \t]*[A-Za-z][\w ().%/-]{0,60}[ \t]:[ \t]*\S"
    # -t proc-mem's process row copied alone (its NPU ID and Chip Count lines left out)
    r"|^[ \t]*Process id:[ \t]*\d+[ \t]+Process name:[ \t]*\S+[ \t]+Process memory\(MB\):[ \t]*\d+"
    # an answer copied with its padding squeezed to one blank ("NPU ID : 2" over "Product Name :
    # IT21PDDA011", a forum's copy of -t board): its first key over the next only npu-smi prints
    r"|^[ \t]*NPU ID[ \t]+:[ \t]*\d+[ \t]*\r?\n[ \t]*(?:Product Name|Chip ID)[ \t]+:[ \t]*\S"
    # -t sys-log-info pads its longest key with one blank only ("Current syslog dump config
    # recover mode : disable"): its keys are npu-smi's own, so one blank is enough
    r"|^[ \t]*Current syslog dump config (?:recover mode|gear|path)[ \t]+:[ \t]*\S"
)
# the key padded to npu-smi's column: at least one blank before the colon ("Usage: npu-smi ..."
# and "Version=..." lines of a collection file are not answers)
# (a copy that lost the padding of one key keeps its colon right after it, "Error Information:
# node type=LPM, ...": npu-smi's own keys are read so all the same)
_QUERY_KEY_RE = re.compile(
    r"^[ \t]*([A-Za-z][\w ().%/-]*?)(?:[ \t]+|(?<=Error Information)|(?<=Error Code)):[ \t]*(.*?)[ \t]*$"
)
_QUERY_MORE_RE = re.compile(r"^[ \t]{8,}:[ \t]*(\S.*?)[ \t]*$")
# the rest of a long value wrapped onto an indented line with no colon of its own (an Error
# Information's "                   event state=The function of obtaining the current is abnormal")
_QUERY_WRAPPED_RE = re.compile(r"^[ \t]{8,}([a-z][\w ]*=\S.*?)[ \t]*$")
_QUERY_CMD_RE = re.compile(r"npu-smi\s+info\b(?P<args>[^\n]*?-t\s+(?P<type>\w[\w-]*)[^\n]*)")
_QUERY_ARG_RE = re.compile(r"-([ic])\s+(\d+)")


@dataclass(kw_only=True)
class NpuQuery:
    """One answer of ``npu-smi info -t TYPE``: its fields in order, values of a continued key
    kept line by line."""

    type: str
    """The ``-t`` type from its command line ('' when the output was saved without it)."""
    npu: int | None
    chip: int | None
    line: int
    fields: dict[str, list[str]] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    """The line each key is first printed on (a finding names the counter's own line)."""

    @property
    def health(self) -> str | None:
        # "Health Status" (910 series), "Health" (Ascend 950's -t health answer)
        values = self.fields.get("Health Status") or self.fields.get("Health")
        return values[0] if values else None


def parse_query(text: str) -> list[NpuQuery]:
    """Every ``npu-smi info -t TYPE`` answer in ``text`` (a collection file holds several, each
    after its command line). The NPU and chip come from the command's ``-i``/``-c`` or the
    answer's own ``NPU ID``/``Chip ID``; None when neither says."""
    answers: list[NpuQuery] = []
    current: NpuQuery | None = None
    asked: tuple[str, int | None, int | None] | None = None
    key = ""
    for no, line, _ in numbered_lines(text):
        if cmd := _QUERY_CMD_RE.search(line):
            args = dict(_QUERY_ARG_RE.findall(cmd.group("args")))
            asked = (
                cmd.group("type"),
                int(args["i"]) if "i" in args else None,
                int(args["c"]) if "c" in args else None,
            )
            current = None
            continue
        if not line.strip():
            continue
        if current is not None and key and (more := _QUERY_MORE_RE.match(line)):
            current.fields[key].append(more.group(1))
            continue
        if current is not None and key and (wrapped := _QUERY_WRAPPED_RE.match(line)):
            values = current.fields[key]
            values[-1] = f"{values[-1]} {wrapped.group(1)}".strip()
            continue
        if (
            current is not None
            and "hccs health status" in current.fields
            and (line.strip().lower() == "hccs lane detail info")
        ):
            # -t hccs on driver 25.x: a heading over its "lane N : value" lines, which are the
            # same answer's (zstack-utility's npu-smi samples captured on a 910B, driver
            # 25.3.rc1, test_gpu_vendors.py)
            key = ""
            continue
        m = _QUERY_KEY_RE.match(line)
        if m is None:
            current, asked, key = None, None, ""  # another output starts
            continue
        key, value = m.group(1).strip(), m.group(2)
        if current is not None and key in _ANSWER_HEADS and key in current.fields:
            # a loop's next answer printed without its command line (blank lines alone do not
            # part answers: one answer has blank lines of its own)
            current, asked = None, None
        elif current is not None and key in _BLOCK_HEADS and key in current.fields:
            # -t health of an NPU with several chips: a block a chip (the MCU's last, named by
            # its "Chip Name"), each its own answer of the same NPU
            current = NpuQuery(type=current.type, npu=current.npu, chip=None, line=no)
            answers.append(current)
        if current is None:
            kind, npu, chip = asked or (SETTING_QUERIES.get(key, ""), None, None)
            current = NpuQuery(type=kind, npu=npu, chip=chip, line=no)
            answers.append(current)
        current.fields.setdefault(key, []).append(value)
        current.lines.setdefault(key, no)
        if key == "NPU ID" and current.npu is None and value.isdigit():
            current.npu = int(value)
        elif key == "Chip ID" and current.chip is None and value.isdigit():
            current.chip = int(value)
    # (an answer under its own command line is one whatever its keys: "-t sio-info"'s
    # "TX Error Count", "-t cpu-num-cfg"'s "Current AI CPU number")
    answers = [a for a in answers if a.type or any(k in a.fields for k in _QUERY_KEYS)]
    if not answers and not _PROC_ROW_RE.search(text):  # (a proc-mem row alone is read by its own)
        raise ParseError("no 'npu-smi info -t' answer (Health Status, NPU ID, Chip ID ... : value)")
    return answers


_PROC_ROW_RE = re.compile(r"Process id:\s*\d+\s+Process name:")


# ``npu-smi info watch [-i N [-c C]]``: a header of column names ("NpuID(Idx)  ChipId(Idx)
# Pwr(W)  Temp(C)  AI Core(%) ..."; Ascend 950 adds "NPU Util(%)  AI Cube(%)") and a row of
# figures each sample (every second)
WATCH_SIGNATURE = r"^[ \t]*NpuID\(Idx\)[ \t]+(?:ChipId\(Idx\)[ \t]+)?Pwr\(W\)[ \t]+Temp\(C\)"
_WATCH_HEAD_RE = re.compile(WATCH_SIGNATURE)
_WATCH_MISSING = ("NA", "N/A", "-")
# (linear time on a long run: a match starts where its run starts, not at each character of a long
# one)
_WATCH_COLUMN_RE = re.compile(r"(?<![A-Za-z])(?:[A-Za-z]+ )?[A-Za-z]+\([^)\s]*\)")


@dataclass(kw_only=True)
class WatchChip:
    """One chip's samples of ``npu-smi info watch``: each column's lowest and highest figure."""

    npu: int
    chip: int | None
    line: int
    samples: int = 0
    ranges: dict[str, tuple[float, float]] = field(default_factory=dict)


def parse_watch(text: str) -> list[WatchChip]:
    """``npu-smi info watch`` → each chip's samples (figures only: the output holds no health).
    Raises ParseError without a header over a row."""
    chips: dict[tuple[int, int | None], WatchChip] = {}
    columns: list[str] = []
    for no, line, _ in numbered_lines(text):
        if _WATCH_HEAD_RE.match(line):
            # each name ends in its unit in brackets, two words at most ("AI Core(%)"); one blank
            # may part two names ("ChipId(Idx) Pwr(W)")
            columns = _WATCH_COLUMN_RE.findall(line)
            continue
        cells = line.split()
        if not columns or len(cells) != len(columns):
            continue
        if not cells[0].isdigit():
            continue
        # (a figure npu-smi cannot read prints NA or "-": that cell is unknown, the row is read)
        try:
            figures = [None if c in _WATCH_MISSING else float(c) for c in cells]
        except ValueError:
            continue
        row = dict(zip(columns, figures, strict=True))
        npu_id, chip_id = row.pop("NpuID(Idx)"), row.pop("ChipId(Idx)", None)
        if npu_id is None:
            continue
        npu, chip = int(npu_id), int(chip_id) if chip_id is not None else None
        seen = chips.setdefault((npu, chip), WatchChip(npu=npu, chip=chip, line=no))
        seen.samples += 1
        for name, value in row.items():
            if value is None:
                continue
            low, high = seen.ranges.get(name, (value, value))
            seen.ranges[name] = (min(low, value), max(high, value))
    if not chips:
        raise ParseError("no 'NpuID(Idx) ... Pwr(W) Temp(C)' header over a row of figures")
    return list(chips.values())


# ``npu-smi info -m``: each chip's NPU id, chip id, logical id (``-`` for the board's MCU) and
# name, under "NPU ID  Chip ID  Chip Logic ID  Chip Name"
# (Ascend 950's: "NPU ID  Slot ID  Chip ID  Chip Phy-ID  Chip Name", no logical id; the driver's
# npu-smi reference, "querying the chip mapping")
MAPPING_SIGNATURE = (
    r"^[ \t]*NPU ID[ \t]+(?:Slot ID[ \t]+)?Chip ID[ \t]+(?:Chip Logic ID|Chip Phy-ID)[ \t]+"
    r"Chip Name[ \t]*\r?$"
)
_MAPPING_HEAD_RE = re.compile(MAPPING_SIGNATURE)
_MAPPING_ROW_RE = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+|-)\s+(\S.*?)\s*$")
_MAPPING_SLOT_ROW_RE = re.compile(r"^\s*(\d+)\s+\d+\s+(\d+)\s+(?:\d+|-)\s+(\S.*?)\s*$")


@dataclass(kw_only=True)
class ChipMapping:
    npu: int
    chip: int
    logic_id: int | None
    """The logical device id the NPU's chip is used by (``-``: none, e.g. the board's MCU)."""
    name: str
    line: int
    physical: bool = False
    """The 950's form: a slot and a physical id, no logical id column."""


def parse_mapping(text: str) -> list[ChipMapping]:
    """``npu-smi info -m`` → its rows; raises ParseError without the header over a row."""
    rows: list[ChipMapping] = []
    headed = False
    slots = False  # the 950's columns: NPU, slot, chip, physical id, name
    for no, line, _ in numbered_lines(text):
        if _MAPPING_HEAD_RE.match(line):
            headed, slots = True, "Slot ID" in line
            continue
        row_re = _MAPPING_SLOT_ROW_RE if slots else _MAPPING_ROW_RE
        if headed and rows and line.strip() and not row_re.match(line):
            break  # the table ended: what follows is other output
        if headed and slots and (m := _MAPPING_SLOT_ROW_RE.match(line)):
            rows.append(
                ChipMapping(
                    npu=int(m.group(1)),
                    chip=int(m.group(2)),
                    logic_id=None,
                    name=m.group(3),
                    line=no,
                    physical=True,
                )
            )
        elif headed and not slots and (m := _MAPPING_ROW_RE.match(line)):
            logic = m.group(3)
            rows.append(
                ChipMapping(
                    npu=int(m.group(1)),
                    chip=int(m.group(2)),
                    logic_id=None if logic == "-" else int(logic),
                    name=m.group(4),
                    line=no,
                )
            )
    if not rows:
        raise ParseError("no 'NPU ID  Chip ID  Chip Logic ID  Chip Name' header over a row")
    return rows


# MindCluster ascend-faultdiag's environment check samples each device with npu-smi into a CSV
# per device (npu_smi_<id>_details.csv): "time,dev_id,power,freq,temp" in its test cases, and in
# its collection guide's storage format (docs/en/faultdiag/user_guide/03_collecting_logs.md, "NPU
# Status Monitoring Metric File", Table 1) "time,dev_id,hbm_rate,aicore_rate,rated_freq,freq,temp,
# power"; the time in epoch seconds, the file names no units. Its columns are read by name, as
# MindCluster's check reads them (pandas, by column)
DETAILS_COLUMNS = frozenset(
    {"time", "dev_id", "power", "freq", "temp", "rated_freq", "aicore_rate", "hbm_rate"}
)
DETAILS_CSV_SIGNATURE = (
    r"\A\ufeff?time,dev_id(?:,(?:power|freq|temp|rated_freq|aicore_rate|hbm_rate)){3,6}[ \t]*\r?$"
)
_DETAILS_NEEDED = ("time", "dev_id", "power", "freq", "temp")
"""The columns MindCluster's check cannot do without (NPUChecker.NAD_VALID_COLUMNS)."""


# MindCluster's own check of these samples (ascend-faultdiag's node-anomaly diagnosis, Ascend/
# mind-cluster component/ascend-faultdiag/src/ascend_fd/pkg/diag/node_anomaly/npu_anomaly/
# na_detection.py, NPUChecker): a device's samples whose freq is under its rated frequency (the
# CSV's rated_freq column; RATE_FREQ_THRESHOLD 1000 where the CSV has none), PERSISTENT_LEN 4 or
# more in a row ("only frequency reduction lasting for one minute is considered really
# reduction": the collection guide samples every 15 s), are a frequency reduction: fault
# NODE_RES_ABNORMAL_02 (too hot) where a sample of them is at TEMP_THRESHOLD 105 or more, else
# NODE_RES_ABNORMAL_01 ("The NPU status is abnormal, and frequency reduction occurs.",
# utils/i18n.py)
MINDCLUSTER_RATED_FREQ = 1000.0
"""The rated frequency MindCluster's check takes where the CSV names none (the five-column form
names none)."""
MINDCLUSTER_REDUCED_SAMPLES = 4
"""How many samples in a row under the rated frequency MindCluster's check calls a reduction."""
MINDCLUSTER_HOT_C = 105.0
"""The temperature at which MindCluster's check calls a reduction the heat's (NODE_RES_ABNORMAL_02)."""


@dataclass
class FreqRun:
    """Consecutive samples of one device whose frequency is under a bound."""

    first_line: int
    last_line: int
    first_s: float
    last_s: float
    lowest: float
    coolest: float
    hottest: float
    samples: int

    @property
    def code(self) -> str:
        """MindCluster's fault code for this run read as a reduction."""
        return (
            "NODE_RES_ABNORMAL_02" if self.hottest >= MINDCLUSTER_HOT_C else "NODE_RES_ABNORMAL_01"
        )


@dataclass
class DetailsDevice:
    dev_id: int
    line: int
    samples: int = 0
    first_s: float = 0.0
    last_s: float = 0.0
    power: tuple[float, float] = (0.0, 0.0)
    freq: tuple[float, float] = (0.0, 0.0)
    temp: tuple[float, float] = (0.0, 0.0)
    low_freq_runs: list[tuple[float, float, float, float, int]] = field(default_factory=list)
    """Runs of consecutive samples whose frequency is under the device's highest: ``(first time,
    last time, lowest freq, highest temp, samples)``."""
    hottest: tuple[float, float] = (0.0, 0.0)
    """The first sample at the highest temperature: ``(time, temp)``."""
    reduced: list[FreqRun] = field(default_factory=list)
    """The runs MindCluster's check calls a frequency reduction: MINDCLUSTER_REDUCED_SAMPLES or
    more samples in a row under its rated frequency (the CSV's rated_freq, else
    MINDCLUSTER_RATED_FREQ and under the device's own highest in the file: a device that never
    ran faster is not said to have dropped), an idle sample (aicore_rate 0) ending a run."""
    rated: float | None = None
    """The device's rated frequency, the highest of its rated_freq column; None where the CSV
    has none."""
    idle_low: int = 0
    """Samples under the rated frequency with the AI cores idle (aicore_rate 0), which
    MindCluster's check leaves out."""


def parse_details_csv(text: str) -> tuple[list[DetailsDevice], list[ParseWarning]]:
    """Each device's samples of a MindCluster npu-smi CSV (``time,dev_id,power,freq,temp``, or
    its collection guide's eight columns with ``rated_freq`` and ``aicore_rate``), summarised;
    rows that are not one finite figure a column (npu-smi's ``NA``, a row cut by the copy)
    skipped and said."""
    numbered = numbered_lines(text)
    header = numbered[0][1].strip().lstrip("\ufeff").split(",") if numbered else []
    at = {name: i for i, name in enumerate(header)}
    if any(name not in at for name in _DETAILS_NEEDED) or not set(at) <= DETAILS_COLUMNS:
        raise ParseError(f"no MindCluster npu-smi header ({', '.join(_DETAILS_NEEDED)})")
    # (line, time, power, freq, temp, rated freq or NaN, AI cores busy)
    rows: dict[int, list[tuple[int, float, float, float, float, float, bool]]] = {}
    warnings: list[ParseWarning] = []
    for no, line, _ in numbered[1:]:
        if not line.strip():
            continue
        cells = line.strip().split(",")
        try:
            if len(cells) != len(header):
                raise ValueError
            figures = [float(cells[at[name]]) for name in ("time", "power", "freq", "temp")]
            rating = float(cells[at["rated_freq"]]) if "rated_freq" in at else math.nan
            busy = "aicore_rate" not in at or float(cells[at["aicore_rate"]]) > 0
            if not all(math.isfinite(f) for f in figures):
                raise ValueError
            rows.setdefault(int(cells[at["dev_id"]]), []).append(
                (no, figures[0], figures[1], figures[2], figures[3], rating, busy)
            )
        except ValueError:
            warnings.append(
                ParseWarning(line=no, message=f"unreadable sample {line.strip()[:80]!r}")
            )
    if not rows:
        raise ParseError(f"no sample under the '{','.join(header)}' header")
    out = []
    for dev_id, samples in rows.items():
        top = max(s[3] for s in samples)
        hot = max(samples, key=lambda s: s[4])
        runs: list[tuple[float, float, float, float, int]] = []
        low_before = False  # the device's previous sample (in the file's order) was low
        for sample in samples:
            if sample[3] >= top:
                low_before = False
                continue
            if low_before:
                first, _, low, warm, count = runs[-1]
                runs[-1] = (first, sample[1], min(low, sample[3]), max(warm, sample[4]), count + 1)
            else:
                runs.append((sample[1], sample[1], sample[3], sample[4], 1))
            low_before = True
        # (NPUChecker, per device: rate_freq = max(rated_freq) where the column is there)
        ratings = [s[5] for s in samples if math.isfinite(s[5])]
        rated = max(ratings) if ratings else None
        bound = rated if rated is not None else min(top, MINDCLUSTER_RATED_FREQ)
        reduced = [
            run for run in _runs_under(samples, bound) if run.samples >= MINDCLUSTER_REDUCED_SAMPLES
        ]
        out.append(
            DetailsDevice(
                dev_id=dev_id,
                line=samples[0][0],
                samples=len(samples),
                first_s=min(s[1] for s in samples),
                last_s=max(s[1] for s in samples),
                power=(min(s[2] for s in samples), max(s[2] for s in samples)),
                freq=(min(s[3] for s in samples), top),
                temp=(min(s[4] for s in samples), hot[4]),
                low_freq_runs=runs,
                hottest=(hot[1], hot[4]),
                reduced=reduced,
                rated=rated,
                idle_low=sum(1 for s in samples if s[3] < bound and not s[6]),
            )
        )
    return out, warnings


def _runs_under(
    samples: list[tuple[int, float, float, float, float, float, bool]], bound: float
) -> list[FreqRun]:
    """The runs of consecutive samples (line, time, power, freq, temp, rated, busy) whose freq
    is under ``bound`` with the AI cores busy, in the file's order."""
    runs: list[FreqRun] = []
    before = False  # the previous sample was under the bound
    for no, when, _, freq, temp, _, busy in samples:
        if freq >= bound or not busy:
            # (MindCluster's check drops the samples whose aicore_rate is 0 before it counts
            # the ones in a row: an idle one ends a run)
            before = False
            continue
        if before:
            run = runs[-1]
            run.last_line, run.last_s, run.samples = no, when, run.samples + 1
            run.lowest = min(run.lowest, freq)
            run.coolest, run.hottest = min(run.coolest, temp), max(run.hottest, temp)
        else:
            runs.append(FreqRun(no, no, when, when, freq, temp, temp, 1))
        before = True
    return runs


# npu-smi info -t template-info: the vNPU templates a 310P/910 can be split by, a block per
# template ("|vir02   2   6   2   3 ..." then its second row), under "NPU instance template info
# is:" and a two-row header (Name AICORE Memory(GB) AICPU ...)
TEMPLATE_SIGNATURE = r"^[ \t]*\|\s*NPU instance template info is:"
_TEMPLATE_ROW_RE = re.compile(
    r"^\|(?P<name>vir\w+)\s+(?P<aicore>\d+)\s+(?P<memory_gb>\d+)\s+(?P<aicpu>\d+)"
)


@dataclass
class VnpuTemplate:
    line: int
    name: str
    aicore: int
    memory_gb: int
    aicpu: int


def parse_templates(text: str) -> list[VnpuTemplate]:
    """The vNPU templates ``npu-smi info -t template-info`` lists."""
    out = [
        VnpuTemplate(
            line=no,
            name=m.group("name"),
            aicore=int(m.group("aicore")),
            memory_gb=int(m.group("memory_gb")),
            aicpu=int(m.group("aicpu")),
        )
        for no, line, _ in numbered_lines(text)
        if (m := _TEMPLATE_ROW_RE.match(line.strip()))
    ]
    if not out:
        raise ParseError("no vNPU template row ('|vir01  1  3  1 ...') under its header")
    return out
