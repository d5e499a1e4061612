"""``nvidia-smi topo -m``: the GPU/NIC link matrix (X, NV#, PIX, PXB, PHB, NODE, SYS).

The matrix has one column per GPU and NIC, then the affinity columns the driver knows (``CPU
Affinity``, ``NUMA Affinity``, ``GPU NUMA ID``; older drivers print fewer), then the ``Legend:``
and, when NICs are listed, a ``NIC Legend:`` naming each (``NIC0: mlx5_0``). Each affinity value
is read from its own column, by name: NIC rows carry none, and a cell the driver left empty is
placed by its position under the header, so a NUMA node never lands in ``cpu_affinity``.
Outputs pasted without the header's leading indentation (common in issue threads) are read too.
Older drivers name a NIC column by its RDMA device (``mlx4_0``, ``mlx5_0``) instead of ``NICn``:
every header column between the GPU columns and the affinity labels is a device column, taken as a
NIC, also when the only GPU column is followed by such names (one GPU, two NICs). The header is
the line of device names whose next line is its first device's row, so a matrix inside a longer
dump (a system check that titles a GPU's details ``GPU0`` above it) is found. A
matrix with fewer GPU rows than GPU columns (a paste cut short) is kept with a warning naming the
GPUs whose rows are missing.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from datetime import date

from advisor.parsers import PROMPT_HOST_RE, ParseError, ParseWarning, numbered_lines
from advisor.parsers.npu_smi import Topology

__all__ = ["GpuTopology", "NvlinkGpu", "Topology", "parse_nvlink_status", "parse_topo"]

_DEVICE_RE = re.compile(r"^(?:GPU|NIC)\d+$")
# the connection kinds of the matrix's legend (SOC: older drivers' name for SYS)
_LINK_KIND_RE = re.compile(r"^(?:X|SYS|SOC|NODE|PHB|PXB|PIX|NV\d+)$")
# cells a copy ran together (tabs lost between them): "NIC8NIC9" in the header, "NODEPXB" in a row
# a header whose names ran together, up to the first RDMA device ("GPU0GPU1...GPU7mlx5_0" in a
# copy that lost the tabs between the GPU names)
_RUN_DEVICES_RE = re.compile(r"^(?:(?:GPU|NIC)\d+){2,}(?:mlx\d+_\d+)?$")
_RUN_KINDS_RE = re.compile(r"^(?:X|SYS|SOC|NODE|PHB|PXB|PIX|NV\d+){2,}$")
_PART_RE = re.compile(r"(?:GPU|NIC)\d+|mlx\d+_\d+|X|SYS|SOC|NODE|PHB|PXB|PIX|NV\d+")
# a name run into the first affinity label ("NIC17CPU Affinity": a copy that lost the tab) is
# split from it
_HEADER_TOKEN_RE = re.compile(
    r"CPU Affinity|NUMA Affinity|GPU NUMA ID"
    r"|\S+?(?=CPU Affinity|NUMA Affinity|GPU NUMA ID)|\S+"
)
_JOINED_LABEL_RE = re.compile(r"(?<=\d)(CPU|NUMA)Affinity\b")
_SHORT_GPU_NUMA_RE = re.compile(r"(?<=\s)GPU NUMA(?! ID)(?=\s|$)")
_SHORT_NUMA_RE = re.compile(r"(?<=\s)(?<!GPU )NUMA(?! Affinity| ID)(?=\s|$)")
_RULE_LINE_RE = re.compile(r"^\s*[-=_]{10,}\s*$")
_SPLIT_LABEL_RE = re.compile(r"\b(?:CPU|NUMA)[ \t]{2,}Affinity\b|\bGPU[ \t]+NUMA[ \t]+ID\b")
_LEGEND_RE = re.compile(r"^\s*(\S+)\s+=\s+(.*)$")
_NIC_NAME_RE = re.compile(r"^\s*(NIC\d+):\s*(\S+)\s*$")
NIC_LEGEND_SIGNATURE = (
    r"^[ \t]*NIC\d+:[ \t]*\S+[ \t]*\n[ \t]*NIC\d+:[^\n]*\n[ \t]*NIC\d+:[ \t]*\S+[ \t]*$"
)
"""Three ``NICn: name`` lines in a row: ``nvidia-smi topo -m``'s NIC legend (also a copy of it
alone, its matrix left out)."""
_NIC_LEGEND_ANY_RE = re.compile(r"^\s*(NIC\d+):(.*)$")


def is_nic_legend_line(line: str) -> bool:
    """A line of the NIC legend (``NIC3: mlx5_3``), or its heading."""
    return bool(_NIC_LEGEND_ANY_RE.match(line)) or line.strip() == "NIC Legend:"


def parse_nic_legend(
    text: str,
) -> tuple[list[tuple[int, dict[str, str]]], list[tuple[int, str]]]:
    """Each NIC legend's first line and names (``NIC0`` → ``mlx5_0``): a NIC named again starts
    another legend (several hosts' copies in one file), and the entries whose name is not one
    token (a terminal's wrapping ran other text into them: ``NIC0:  NIC41  CPU Affinity ...``)."""
    legends: list[tuple[int, dict[str, str]]] = []
    seen: set[str] = set()
    last: tuple[str, str] | None = None
    garbled: list[tuple[int, str]] = []
    for no, line, _ in numbered_lines(text):
        if not (m := _NIC_LEGEND_ANY_RE.match(line)):
            continue
        nic = m.group(1)
        value = m.group(2).strip()
        if (nic, value) == last:
            continue  # the entry above printed twice (a copy's doubled line): the legend goes on
        last = (nic, value)
        if nic in seen or not legends:
            legends.append((no, {}))
            seen = set()
        seen.add(nic)
        if value and " " not in value and not value.startswith("NIC"):
            legends[-1][1][nic] = value
        else:
            garbled.append((no, nic))
    legends = [(no, names) for no, names in legends if names]
    if not legends:
        raise ParseError("no NIC legend entry ('NIC0: mlx5_0')")
    return legends, garbled


_NIC_NOTE_RE = re.compile(r"^\s*(NIC\d+)\s*:\s*([\w.-]+)(?:\s|$)")
"""A NIC named under the matrix with a copy's own words after the name."""


@dataclass(kw_only=True)
class GpuTopology(Topology):
    """``nvidia-smi topo -m``: the shared link matrix plus what only nvidia-smi prints."""

    gpu_numa_id: dict[str, str] = field(default_factory=dict)
    """``GPU NUMA ID`` per GPU (a NUMA node of the GPU's own memory; ``N/A`` for most GPUs)."""
    nics: dict[str, str] = field(default_factory=dict)
    """``NIC Legend``: matrix name → RDMA device (``NIC0`` → ``mlx5_0``)."""
    warnings: list[ParseWarning] = field(default_factory=list)
    """Rows kept with a doubt (cells that fit no column, a row cut short)."""


_AFFINITY_FIELDS = {
    "CPU Affinity": "cpu_affinity",
    "NUMA Affinity": "numa_affinity",
    "GPU NUMA ID": "gpu_numa_id",
}


def _is_header(tokens: list[str], line: str, next_tokens: list[str]) -> bool:
    """A header row: device names (an RDMA device such as ``mlx5_0`` before a ``CPU Affinity``
    label too) over a first row that starts with the header's first device."""
    tokens, _ = _split_run(tokens, _RUN_DEVICES_RE)
    return (
        bool(tokens)
        and _DEVICE_RE.match(tokens[0]) is not None
        and (
            len(tokens) == 1
            or _DEVICE_RE.match(tokens[1]) is not None
            or tokens[1] == "CPU"
            or "CPU Affinity" in line
        )
        # a lone "GPU0" that titles a block of other output is no header: no row follows it
        and next_tokens[:1] == tokens[:1]
    )


def _split_run(tokens: list[str], run: re.Pattern[str]) -> tuple[list[str], list[str]]:
    """Tokens with each run-together one split into its parts, and the runs found."""
    out: list[str] = []
    runs: list[str] = []
    for token in tokens:
        if run.match(token):
            runs.append(token)
            out.extend(_PART_RE.findall(token))
        else:
            out.append(token)
    return out, runs


def _starts(line: str, tokens: list[str]) -> list[int]:
    """Column where each token starts in ``line`` (tabs expanded), in order."""
    out, pos = [], 0
    for token in tokens:
        pos = line.index(token, pos)
        out.append(pos)
        pos += len(token)
    return out


# nvidia-smi underlines the header row on a terminal: ESC[4m ... ESC[0m; a copy that lost the ESC
# keeps "[4m" and "[0m" around the column names.
_UNDERLINE_RE = re.compile(r"\x1b?\[(?:0|4|24)?m")


ELISIONS = ("...", "…")
_ELIDED_COLUMNS = frozenset({".", "..", "...", "…"})
"""Header tokens a copy put where it left device columns out ("GPU7 . . . mlx5_0")."""
"""What a copy puts where it left cells out."""


# ``nvidia-smi topo -p2p <r|w|n|a|p>``: whether each GPU pair can read (r), write (w), use NVLink
# (n), atomics (a) or prop (p) peer to peer, a matrix of statuses under its legend: X self, OK,
# CNS chipset not supported, GNS GPU not supported, TNS topology not supported, NS not supported,
# U unknown, and (newer drivers' legend) DR disabled by regkey.
P2P_STATUSES = ("X", "OK", "CNS", "GNS", "TNS", "NS", "DR", "U")
P2P_HEAD_RE = re.compile(r"^[ \t]*GPU0(?:[ \t]+GPU\d+)+[ \t]*$", re.M)
"""A p2p matrix's header: the GPU names alone (``topo -m``'s has its affinity columns after)."""
P2P_ROW_PATTERN = r"^[ \t]*(GPU\d+)((?:[ \t]+(?:" + "|".join(P2P_STATUSES) + r"))+)[ \t]*$"
"""A p2p matrix's row: a GPU, then statuses only."""
_P2P_ROW_RE = re.compile(P2P_ROW_PATTERN)
# (a command given several letters, "-p2p rw", does not say which one its matrix answers)
_P2P_COMMAND_RE = re.compile(r"nvidia-smi\s+topo\s+-p2p\s+([rwnap]+)\b")
P2P_QUERIES = {"r": "read", "w": "write", "n": "nvlink", "a": "atomics", "p": "prop"}


@dataclass(kw_only=True)
class P2pMatrix:
    line: int
    """The line of the matrix's header."""
    query: str | None
    """What the pairs were asked (read, write, nvlink, atomics, prop); None without the command."""
    devices: list[str]
    status: dict[str, dict[str, str]]
    not_ok: list[tuple[str, str, str]]
    """Each pair (once, lower GPU first) whose status is neither OK nor X, with its status."""


def parse_p2p(text: str) -> list[P2pMatrix]:
    """Every ``nvidia-smi topo -p2p`` matrix in ``text``. Raises ParseError without one."""
    out: list[P2pMatrix] = []
    query: str | None = None
    current: P2pMatrix | None = None
    for no, line, _ in numbered_lines(text):
        if cmd := _P2P_COMMAND_RE.search(line):
            query, current = P2P_QUERIES.get(cmd.group(1)), None
            continue
        if P2P_HEAD_RE.match(line):
            current = P2pMatrix(line=no, query=query, devices=line.split(), status={}, not_ok=[])
            out.append(current)
            continue
        if current is not None and (m := _P2P_ROW_RE.match(line)):
            cells = m.group(2).split()
            if len(cells) != len(current.devices):
                raise ParseError(
                    f"row {m.group(1)} has {len(cells)} statuses for {len(current.devices)} GPUs",
                    line=no,
                )
            current.status[m.group(1)] = dict(zip(current.devices, cells, strict=True))
        elif line.strip() and current is not None:
            current = None  # the legend or another output
    for matrix in out:
        rows = [d for d in matrix.devices if d in matrix.status]
        for i, a in enumerate(rows):
            for b in rows[i + 1 :]:
                # a pair's two cells (a to b, b to a) as one: each status that is not OK, once
                for code in dict.fromkeys((matrix.status[a][b], matrix.status[b][a])):
                    if code not in ("OK", "X"):
                        matrix.not_ok.append((a, b, code))
    out = [m for m in out if m.status]
    if not out:
        raise ParseError(
            "no nvidia-smi topo -p2p matrix (a 'GPU0 GPU1 ...' header over rows of OK/CNS/...)"
        )
    return out


HEADERLESS_SIGNATURE = (
    r"^[ \t]*GPU\d+(?:[ \t]+(?:X|NV\d+|SYS|SOC|NODE|PHB|PXB|PIX)){3,}[^\n]*\n"
    r"[ \t]*(?:GPU|NIC)\d+(?:[ \t]+(?:X|NV\d+|SYS|SOC|NODE|PHB|PXB|PIX)){3,}"
)
"""Two matrix rows in a row, their header line not in the copy (a page or excerpt that starts
at a row): ``headerless_header`` names the columns from the rows themselves."""
_ROW_START_RE = re.compile(r"^\s*(?P<label>(?:GPU|NIC)\d+)\s+(?P<rest>\S.*)$")
_ROW_AFFINITY_LABELS = ("CPU Affinity", "NUMA Affinity", "GPU NUMA ID")


def headerless_header(text: str) -> str | None:
    """The header line a matrix copied without its own would have had, from its rows: each
    row's ``X`` is its own column; a column with an NVLink cell is a GPU's (NVLink joins GPUs
    only); GPUs come first, NICs after them (as nvidia-smi prints them); the affinity labels as
    many as the rows' values after their link cells. None where the rows do not tell (no NVLink
    cell and no NIC row to place the first NIC's column), or disagree."""
    rows: list[tuple[str, list[str], int]] = []  # (label, link cells, values after them)
    for line in text.splitlines():
        m = _ROW_START_RE.match(line)
        if m is None:
            continue
        cells = m.group("rest").split()
        n = next((i for i, c in enumerate(cells) if not _LINK_KIND_RE.match(c)), len(cells))
        if n >= 2:
            # (a NUMA node glued to the GPU NUMA ID's "N/A", "0N/A", is two values)
            glued = sum(1 for c in cells[n:] if _GLUED_NUMA_RE.match(c))
            rows.append((m.group("label"), cells[:n], len(cells) - n + glued))
    if len(rows) < 2:
        return None
    width = max(len(cells) for _, cells, _ in rows)
    named: dict[int, str] = {}
    for label, cells, _ in rows:
        if "X" in cells:
            at = cells.index("X")
            if named.get(at, label) != label:
                return None
            named[at] = label
    nvlinked = {i for _, cells, _ in rows for i, c in enumerate(cells) if c.startswith("NV")}
    gpus_at = nvlinked | {i for i, name in named.items() if name.startswith("GPU")}
    nic_rows = [(i, name) for i, name in named.items() if name.startswith("NIC")]
    if nic_rows:
        at, name = nic_rows[0]
        gpus = at - int(name[3:])
    elif nvlinked:
        gpus = max(gpus_at) + 1
    else:
        return None
    columns = [f"GPU{i}" if i < gpus else f"NIC{i - gpus}" for i in range(width)]
    if any(columns[i] != name for i, name in named.items()) or any(i >= gpus for i in gpus_at):
        return None
    extra = max((values for label, _, values in rows if label.startswith("GPU")), default=0)
    return "\t" + "\t".join([*columns, *_ROW_AFFINITY_LABELS[: min(extra, 3)]])


def parse_topo(text: str) -> GpuTopology:
    """Parse ``nvidia-smi topo -m``; NIC rows are kept (a GPU's path to its NIC matters). A copy
    without its header line is read with the header its rows tell (``headerless_header``)."""
    if not _HEADER_LINE_RE.search(text) and (header := headerless_header(text)):
        # read with the header put before the text, its lines then counted back to the file's
        topo = _parse_topo(header + "\n" + text, header_first=True)
        for w in topo.warnings:
            w.line = max(0, w.line - 1)
        topo.warnings.insert(
            0,
            ParseWarning(
                line=0,
                message="nvidia-smi matrix without its header line (the copy starts at a row): "
                f"its columns named from the rows ({header.strip().split(chr(9))[0]} ... as each "
                "row's X and the NVLink cells place them)",
                skipped=False,
            ),
        )
        return topo
    return _parse_topo(text)


# the header line: device names over the first row (a GPU0 column, or an RDMA device's)
_HEADER_LINE_RE = re.compile(
    r"^[ \t]*(?:\x1b?\[4m)?GPU0(?:[ \t]+(?:GPU\d|NIC\d|mlx\d|CPU\b)|GPU1|CPU|[ \t]*$)", re.M
)


def _parse_topo(text: str, header_first: bool = False) -> GpuTopology:
    text = _UNDERLINE_RE.sub("", text)
    # a label whose own space was lost too ("GPU0CPUAffinity": DCGM's Go topology sample)
    text = _JOINED_LABEL_RE.sub(r" \1 Affinity", text)
    topo = GpuTopology(devices=[], links={})
    head_no = 0
    dev_cols: list[str] = []
    labels: list[str] = []
    label_starts: list[int] = []
    dev_starts: list[int] = []
    last_row_no = 0
    section = "matrix"
    pending: list[tuple[int, str, list[str], list[int], list[int]]] = []
    lines = [(no, line, line.split()) for no, line, _ in numbered_lines(text)]
    # (a rule a copy drew under the header, "-----...", is no row)
    lines = [entry for entry in lines if entry[2] and not _RULE_LINE_RE.match(entry[1])]
    for i, (no, line, tokens) in enumerate(lines):
        next_tokens = lines[i + 1][2] if i + 1 < len(lines) else []
        if tokens[-1] in ("Legend:", "Legend") and tokens[0] in ("Legend:", "NIC", "Legend"):
            section = "nic" if tokens[0] == "NIC" else "legend"
            continue
        if section == "legend":
            if m := _LEGEND_RE.match(line):
                topo.legend[m.group(1)] = m.group(2).strip()
            continue
        if section == "nic":
            if m := _NIC_NAME_RE.match(line):
                topo.nics[m.group(1)] = m.group(2)
            continue
        if head_no and (m := _NIC_NOTE_RE.match(line)) and m.group(1) in dev_cols:
            # a NIC named below the matrix without the "NIC Legend:" heading (a copy that kept
            # only "NIC0: rocep80s0 ..." and the user's own notes after it)
            topo.nics[m.group(1)] = m.group(2)
            continue
        if not head_no and (_is_header(tokens, line, next_tokens) or (header_first and no == 1)):
            head_no = no
            if tokens[-1] in ELISIONS:
                # a copy that left the later columns out ("GPU7    ..."): the links to the
                # devices shown are read; whatever columns followed (NICs, affinity) are unknown
                topo.warnings.append(
                    ParseWarning(
                        line=no,
                        message=f"nvidia-smi header ends in '{tokens[-1]}' after {tokens[-2]}: "
                        "the copy left its later columns out (NIC links, CPU and NUMA "
                        "affinity unknown)",
                    )
                )
                line = line[: line.rstrip().rfind(tokens[-1])]
            # (a copy whose tabs became runs of spaces splits "CPU     Affinity": one label; it
            # stands after the device columns, so their starts are kept)
            expanded = _SPLIT_LABEL_RE.sub(
                lambda m: " ".join(m.group(0).split()), line.expandtabs(8)
            )
            # (a copy that shortened the last labels, "CPU Affinity   NUMA  GPU NUMA": the same
            # columns)
            if "CPU Affinity" in expanded:
                expanded = _SHORT_GPU_NUMA_RE.sub("GPU NUMA ID", expanded)
                expanded = _SHORT_NUMA_RE.sub("NUMA Affinity", expanded)
            columns, runs = _split_run(_HEADER_TOKEN_RE.findall(expanded), _RUN_DEVICES_RE)
            if runs:
                topo.warnings.append(
                    ParseWarning(
                        line=no,
                        message=f"nvidia-smi header names run together ({', '.join(runs)}): "
                        "read as separate columns",
                        skipped=False,  # every name is read
                    )
                )
            # every column before the first affinity label is a device (``mlx4_0`` too)
            n_dev = next((i for i, c in enumerate(columns) if c in _AFFINITY_FIELDS), len(columns))
            dev_cols, labels = columns[:n_dev], columns[n_dev:]
            for col in dev_cols:
                if not _DEVICE_RE.match(col):
                    topo.nics.setdefault(col, col)  # named by its RDMA device already
            starts = _starts(expanded, columns)
            dev_starts, label_starts = starts[: len(dev_cols)], starts[len(dev_cols) :]
            continue
        if not head_no or not (_DEVICE_RE.match(tokens[0]) or tokens[0] in dev_cols):
            continue
        last_row_no = no
        if tokens[-1] in ELISIONS:
            line = line[: line.rstrip().rfind(tokens[-1])]  # the header's elision (said there)
            tokens = tokens[:-1]
        tokens, runs = _split_run(tokens, _RUN_KINDS_RE)
        if runs:
            topo.warnings.append(
                ParseWarning(
                    line=no,
                    message=f"nvidia-smi row {tokens[0]} has link cells run together "
                    f"({', '.join(runs)}): read as separate cells",
                    skipped=False,  # every cell is read
                )
            )
        cut = _glued_affinity(tokens, len(dev_cols), len(labels))
        if cut is not None:
            cell, kind, value = cut
            topo.warnings.append(
                ParseWarning(
                    line=no,
                    message=f"nvidia-smi row {tokens[0]}: its last link cell {cell!r} ran into "
                    f"its CPU affinity (a copy lost the tab and what the cell ended in): read as "
                    f"{kind} and {value}",
                    skipped=False,
                )
            )
            line = line.replace(cell, f"{kind}\t{value}", 1)
            at = len(dev_cols)
            tokens = [*tokens[:at], kind, value, *tokens[at + 1 :]]
        name, cells = tokens[0], tokens[1:]
        if len(cells) < len(dev_cols):
            topo.warnings.append(
                ParseWarning(
                    line=no,
                    message=f"nvidia-smi row {name} has {len(cells)} cells for {len(dev_cols)} "
                    "devices (cut short): its missing links are unknown",
                )
            )
        topo.devices.append(name)
        topo.links[name] = dict(zip(dev_cols, cells[: len(dev_cols)], strict=False))
        extras = cells[len(dev_cols) :]
        # A link kind is never an affinity value: a row with more link cells than the header has
        # device names (a copy that ran two names together, "NIC2NIC3") keeps them out of the
        # affinity columns, which are then read from the values after them.
        spill = 0
        while (
            spill < len(extras)
            and _LINK_KIND_RE.match(extras[spill])
            and len(extras) - spill > len(labels)
        ):
            spill += 1
        if spill and labels:
            topo.warnings.append(
                ParseWarning(
                    line=no,
                    message=f"nvidia-smi row {name} has {len(dev_cols) + spill} link cells for "
                    f"{len(dev_cols)} device names in the header (names run together?): its "
                    "links to the later devices may sit under the wrong names",
                )
            )
            extras = extras[spill:]
            tokens = [name, *cells[: len(dev_cols)], *extras]
        if extras:
            # nvidia-smi pads each cell with tabs to its header label's column; a header pasted
            # without its leading tab is shifted against the rows: re-anchor it on the first link
            # cell that is not the row's own " X " (printed a column right of its label's start)
            row_starts = _starts(line.expandtabs(8), tokens)
            anchor = next((i for i, c in enumerate(cells[: len(dev_cols)]) if c != "X"), 0)
            shift = row_starts[1 + anchor] - dev_starts[anchor] if dev_starts else 0
            extra_starts = row_starts[1 + len(dev_cols) :]
            starts = [start + shift for start in label_starts]
            pending.append((no, name, extras, extra_starts, starts))
    # Rows that fill every affinity column show where this copy puts each column's values
    # (nvidia-smi pads cells to tab stops, so a value may sit nearer the next label's start than
    # its own): rows with an empty cell are placed against those positions when there are any.
    full = [starts_ for _, _, ex, starts_, _ in pending if len(ex) == len(labels)]
    seen_at = [round(sum(col) / len(col)) for col in zip(*full, strict=True)] if full else None
    for no, name, extras, extra_starts, starts in pending:
        _affinity(topo, no, name, extras, extra_starts, labels, seen_at or starts)
    if not head_no:
        raise ParseError("no nvidia-smi topology matrix (no header row of GPU/NIC names)")
    # rows of devices the header has no column for: a copy cut the header's later columns (a
    # terminal narrower than the matrix), so the links to those devices are unknown
    uncolumned = [d for d in topo.devices if d not in dev_cols]
    if uncolumned and dev_cols:
        topo.warnings.append(
            ParseWarning(
                line=head_no,
                message=f"nvidia-smi header has no column for {', '.join(uncolumned)}, whose rows "
                "follow: the copy cut its columns, so the links to "
                f"{'that device' if len(uncolumned) == 1 else 'those devices'} are unknown",
            )
        )
    if not topo.devices:
        raise ParseError("nvidia-smi topology matrix has no device row", line=head_no)
    # nvidia-smi prints a row for every device column: a matrix with NIC rows that stops before
    # the last of them was cut too (a copy without any NIC row is a format that prints none)
    nic_rows = any(not c.startswith("GPU") and c in topo.links for c in dev_cols)
    missing = [
        c
        for c in dev_cols
        if (c.startswith("GPU") or nic_rows) and c not in topo.links and c not in _ELIDED_COLUMNS
    ]
    if elided := [c for c in dev_cols if c in _ELIDED_COLUMNS]:
        # a copy that left devices out between the ones it kept ("GPU7 . . . mlx5_0"): the
        # devices shown are read, the ones left out are unknown
        topo.warnings.append(
            ParseWarning(
                line=head_no,
                message=f"nvidia-smi header elides columns ({' '.join(elided)}): the copy "
                "left devices out between those it shows; their links are unknown",
                skipped=False,
            )
        )
    first = dev_cols.index(topo.devices[0]) if topo.devices[0] in dev_cols else 0
    before = [c for c in missing if dev_cols.index(c) < first]
    if before:
        topo.warnings.append(
            ParseWarning(
                line=head_no,
                message=f"nvidia-smi matrix starts at row {topo.devices[0]}: no row for "
                f"{', '.join(before)} (the copy starts after them): their own rows' links "
                "are unknown",
            )
        )
        missing = [c for c in missing if c not in before]
    if missing:
        topo.warnings.append(
            ParseWarning(
                line=last_row_no,
                message=f"nvidia-smi matrix ends after row {topo.devices[-1]}: no row for "
                f"{', '.join(missing)} of its {len(dev_cols)} device columns (the output was "
                "cut): their links to the devices after them are unknown",
            )
        )
    if elided:
        for row in topo.links.values():
            for c in elided:
                row.pop(c, None)
    return topo


# A link kind a copy ran into the CPU affinity after it, losing the tab and the kind's last
# letter ("PHB", tab, "0-115" kept as "PH0-115"): each cut kind has one completion
_GLUED_AFFINITY_RE = re.compile(
    r"^(?P<kind>SYS|SOC|NODE|PHB|PXB|PIX|SY|SO|NOD|NO|PH|PX|PI)(?P<value>\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*)$"
)
_CUT_KINDS = {
    "SY": "SYS",
    "SO": "SOC",
    "NOD": "NODE",
    "NO": "NODE",
    "PH": "PHB",
    "PX": "PXB",
    "PI": "PIX",
}


def _glued_affinity(tokens: list[str], n_dev: int, n_labels: int) -> tuple[str, str, str] | None:
    """The row's last link cell, its kind and the affinity value a copy ran into it, when the row
    is one value short of its affinity columns and that cell is no link kind."""
    if not n_dev or not n_labels or len(tokens) <= n_dev or len(tokens) - 1 - n_dev >= n_labels:
        return None
    cell = tokens[n_dev]
    m = None if _LINK_KIND_RE.match(cell) else _GLUED_AFFINITY_RE.match(cell)
    if m is None:
        return None
    kind = _CUT_KINDS.get(m.group("kind"), m.group("kind"))
    return cell, kind, m.group("value")


def _affinity(
    topo: GpuTopology,
    no: int,
    name: str,
    extras: list[str],
    extra_starts: list[int],
    labels: list[str],
    label_starts: list[int],
) -> None:
    """Put each value after the link cells under the affinity column it belongs to."""
    if any(_GLUED_NUMA_RE.match(v) for v in extras):
        # a NUMA node and the GPU NUMA ID's "N/A" a copy ran together ("0N/A"): two cells
        pairs: list[tuple[str, int]] = []
        for value, start in zip(extras, extra_starts, strict=True):
            if g := _GLUED_NUMA_RE.match(value):
                pairs += [(g.group(1), start), (g.group(2), start + len(g.group(1)))]
            else:
                pairs.append((value, start))
        extras, extra_starts = [v for v, _ in pairs], [st for _, st in pairs]
    if len(extras) == len(labels):
        placed = list(zip(labels, extras, strict=True))
    else:
        # A cell left empty shifts the ones after it: place each value under the header label
        # whose column starts nearest to it (nvidia-smi aligns both to the same tab stops).
        # A value as near to two labels (a copy that turned the tabs into spaces, with two
        # empty cells before it: "PXB" then "N/A" one tab stop past NUMA Affinity's start and one
        # short of GPU NUMA ID's) is not placed: either column could be its own.
        placed = []
        unplaced: list[str] = []
        for value, start in zip(extras, extra_starts, strict=True):
            if not labels:
                break
            by_distance = sorted(range(len(labels)), key=lambda i: abs(label_starts[i] - start))
            near = by_distance[0]
            if len(by_distance) > 1 and abs(label_starts[by_distance[1]] - start) == abs(
                label_starts[near] - start
            ):
                unplaced.append(
                    f"{value!r} (as near {labels[min(near, by_distance[1])]} as "
                    f"{labels[max(near, by_distance[1])]})"
                )
                continue
            placed.append((labels[near], value))
        topo.warnings.append(
            ParseWarning(
                line=no,
                message=f"nvidia-smi row {name} has {len(extras)} value(s) after its links for "
                f"{len(labels)} affinity column(s) ({', '.join(labels) or 'none'}): placed by "
                "their position under the header"
                + (f"; not placed: {', '.join(unplaced)}" if unplaced else ""),
                skipped=bool(unplaced),
            )
        )
    for label, value in placed:
        attr = _AFFINITY_FIELDS.get(label)
        if attr is None:
            continue
        if label == "CPU Affinity" and _CUT_RANGE_RE.search(value):
            # a list of CPU ranges never starts or ends with a dash or comma: a copy cut it (a
            # narrow terminal's columns: "-31,64-95" of "0-31,64-95")
            topo.warnings.append(
                ParseWarning(
                    line=no,
                    message=f"nvidia-smi row {name}'s CPU affinity {value!r} is cut (a range "
                    "list never starts or ends so): not read",
                )
            )
            continue
        getattr(topo, attr).setdefault(name, value)


_CUT_RANGE_RE = re.compile(r"^[-,]|[-,]$")
_GLUED_NUMA_RE = re.compile(r"^(\d{1,3})(N/A)$")


# ``nvidia-smi nvlink -s`` (``--status``) and ``-e`` (``--errorcounters``): per GPU, each NVLink's
# speed or ``<inactive>``, or its error counters (nvidia-smi(1), NVLINK options: "-s, --status:
# Display link state (active/inactive)", "-e, --errorcounters: Display error counters for the
# link"):
#   GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-...)
#   	 Link 0: 14.062 GB/s
#   	 Link 3: <inactive>
#   	 Link 0: Replay Errors: 0
# A GPU with no link up answers NVML's "Unable to retrieve NVLink information as all links are
# inActive" under its line instead.
NVLINK_GPU_RE = re.compile(r"^\s*GPU (\d+): (.*?)\s*(?:\(UUID: [^)]*\))?\s*$")
# (a page that lost the tab before each link still has them under their GPU's line)
NVLINK_LINK_RE = re.compile(r"^\s*Link (\d+): (?:([0-9.]+) GB/s|<(inactive)>)\s*$", re.I)
_NVLINK_COUNTER_RE = re.compile(r"^\s*Link (\d+): ([A-Za-z][\w ]*?)\s*: (\d+)\s*$")
# ``nvidia-smi nvlink -gt d`` (or ``r``): each link's traffic counters since the driver loaded,
# "Link 0: Data Tx: 695737216 KiB" (Data: payload, Raw: with protocol overhead): traffic, no error
_NVLINK_TRAFFIC_RE = re.compile(r"^\s*Link (\d+): ((?:Data|Raw) [TR]x): (\d+) KiB\s*$")
# ``nvidia-smi nvlink -R``: the device and link at the other end of each link ("Link 4: Remote
# Device 00000000:D5:00.0: Link 6")
_NVLINK_REMOTE_RE = re.compile(r"^\s*Link (\d+): Remote Device ([0-9A-Fa-f:.]+): Link (\d+)\s*$")
# ``nvidia-smi nvlink -c`` (``--capabilities``): each link's NVML capabilities (nvmlNvLinkCapability_t:
# P2P_SUPPORTED, SYSMEM_ACCESS, P2P_ATOMICS, SYSMEM_ATOMICS, SLI_BRIDGE, VALID), "Link 0, P2P is
# supported: true", "Link 0, Access to system memory supported: true": what a link can carry,
# not whether it is up
_NVLINK_CAP_RE = re.compile(r"^\s*Link (\d+), (.+?) (?:is )?supported: (true|false)\s*$", re.I)
_NVLINK_NONE_RE = re.compile(
    r"^\s*NVML: Unable to retrieve NVLink information as all links are inActive", re.I
)
# "nvidia-smi nvlink --status -i 0" (or -s): with one GPU asked, NVML's none-up answer may stand
# under the command alone, with no GPU line: the command names the GPU
# (its options in any order: "nvidia-smi nvlink -i 0 -s", "nvidia-smi -i 0 nvlink --status")
_NVLINK_COMMAND_RE = re.compile(
    r"\bnvidia-smi\b(?=.*\snvlink\b)(?=.*\s(?:-s|--status)\b)(?=.*\s(?:-i|--id)[ =](\d+)\b)"
)
NVLINK_STATUS_RE = re.compile(
    r"^\s*GPU \d+: [^\n]*\n(?:\s*Link \d+: (?:[0-9.]+ GB/s|<inactive>|[A-Za-z][\w ]*?\s*: \d+"
    r"|Remote Device [0-9A-Fa-f:.]+: Link \d+|(?:Data|Raw) [TR]x: \d+ KiB)\s*$"
    r"|\s*Link \d+, [A-Za-z0-9 ]+? (?:is )?supported: (?:true|false)\s*$"
    r"|\s*NVML: Unable to retrieve N[Vv][Ll]ink information as all links are in[Aa]ctive)"
    r"|nvidia-smi\b(?=[^\n]*\snvlink\b)(?=[^\n]*\s(?:-i|--id)[ =]\d)[^\n]*\n"
    r"\s*NVML: Unable to retrieve N[Vv][Ll]ink information as all links are in[Aa]ctive"
    r"|^\s*GPU \d+: [^\n]*\n\s*Nvlink queries are not supported for Devices in MIG mode"
    # -c copied without its GPU line: its command, or its first link's first capability, then
    # the next one of that link
    r"|nvidia-smi[^\n]*\snvlink\s+(?:-c|--capabilities)\b[^\n]*\n(?:[ \t]*\n)*"
    r"[ \t]*Link \d+, [A-Za-z0-9 ]+? (?:is )?supported: (?:true|false)"
    r"|^[ \t]*Link 0, P2P is supported: (?:true|false)[ \t]*\n[ \t]*Link 0, ",
    re.M,
)
"""A GPU line followed by its first link's state or counter, or NVML's answer that none is up
(under its GPU line or under a command that asked one GPU): how an ``nvlink -s`` or ``-e``
output is recognised."""


UNNAMED_GPU = -1
"""The index of a GPU whose lines a copy kept without the line naming it."""


@dataclass(kw_only=True)
class NvlinkGpu:
    """One GPU of ``nvidia-smi nvlink -s`` / ``-e``."""

    gpu: int
    name: str
    line: int
    speed_gbytes_s: dict[int, float | None] = field(default_factory=dict)
    """Link number → its speed in GB/s as printed; None for a link nvidia-smi calls inactive."""
    none_up: bool = False
    """NVML answered that all of the GPU's links are inactive (it lists none)."""
    errors: dict[int, dict[str, int]] = field(default_factory=dict)
    """``-e``: link number → counter name (Replay Errors, Recovery Errors, CRC Errors ...) → value."""
    cut: bool = False
    """It lists fewer links than its model's other GPUs: the copy lost the rest of its list."""
    traffic_kib: dict[int, dict[str, int]] = field(default_factory=dict)
    """``-gt d`` / ``-gt r``: link number → ``Data Tx``, ``Data Rx`` (or ``Raw``) → KiB carried
    since the driver loaded: traffic, not errors."""
    remote: dict[int, str] = field(default_factory=dict)
    """``-R``: link number → the device (bus id) and link at its other end, ``00000000:D5:00.0
    link 6``; a link listed so is wired to that peer (its state is ``-s``'s to tell)."""
    capabilities: dict[int, dict[str, bool]] = field(default_factory=dict)
    """``-c``: link number → capability as printed (``P2P``, ``Access to system memory``,
    ``P2P atomics``, ``System memory atomics``, ``SLI``, ``Link``) → supported: what the link
    can carry, not its state."""

    @property
    def inactive(self) -> list[int]:
        return [n for n, speed in self.speed_gbytes_s.items() if speed is None]


_DOTS_RE = re.compile(r"^\s*(?:\.{3,}|…+|\[(?:\.{3,}|…)\]|\((?:\.{3,}|…)\))\s*$")
"""A line a copy put in place of lines it left out: "...", "…", "[...]" or "(...)"."""


@dataclass(kw_only=True)
class NvlinkStatus:
    gpus: list[NvlinkGpu]
    warnings: list[ParseWarning] = field(default_factory=list)


_NVLINK_MIG_RE = re.compile(r"^\s*Nvlink queries are not supported for Devices in MIG mode\s*$")


def parse_nvlink_status(text: str) -> NvlinkStatus:
    """Parse ``nvidia-smi nvlink -s``, ``-e``, ``-R``, ``-gt`` or ``-c``: every GPU with its
    links, in the order printed.
    A GPU line with nothing of its links under it is not one of these outputs' (``nvidia-smi
    -L`` prints the same line) and is left out; a ``...`` a copy put in place of lines is said."""
    out = NvlinkStatus(gpus=[])
    current: NvlinkGpu | None = None
    asked: int | None = None  # the GPU a "nvidia-smi nvlink -s -i N" line just above asked
    for no, line, _ in numbered_lines(text):
        if m := _NVLINK_COMMAND_RE.search(line):
            asked, current = int(m.group(1)), None
            continue
        if current is None and asked is not None and _NVLINK_NONE_RE.match(line):
            # the answer names no GPU: the command does (its name is not printed)
            out.gpus.append(NvlinkGpu(gpu=asked, name="", line=no, none_up=True))
            asked = None
            continue
        if line.strip():
            asked = None if not NVLINK_GPU_RE.match(line) else asked
        if current is not None and (m := NVLINK_LINK_RE.match(line)):
            current.speed_gbytes_s[int(m.group(1))] = None if m.group(3) else float(m.group(2))
        elif current is not None and (m := _NVLINK_REMOTE_RE.match(line)):
            current.remote[int(m.group(1))] = f"{m.group(2)} link {m.group(3)}"
        elif (current is not None or not out.gpus) and (m := _NVLINK_CAP_RE.match(line)):
            if current is None:
                # -c's lists copied without the GPU line above them: one GPU's, not named
                current = NvlinkGpu(gpu=UNNAMED_GPU, name="", line=no)
                out.gpus.append(current)
            caps = current.capabilities.setdefault(int(m.group(1)), {})
            caps[m.group(2)] = m.group(3).lower() == "true"
        elif current is not None and (m := _NVLINK_TRAFFIC_RE.match(line)):
            current.traffic_kib.setdefault(int(m.group(1)), {})[m.group(2)] = int(m.group(3))
        elif current is not None and (m := _NVLINK_COUNTER_RE.match(line)):
            current.errors.setdefault(int(m.group(1)), {})[m.group(2)] = int(m.group(3))
        elif current is not None and _NVLINK_NONE_RE.match(line):
            current.none_up = True
        elif current is not None and _NVLINK_MIG_RE.match(line):
            # nvidia-smi answers no NVLink query for a GPU in MIG mode: its links are unknown,
            # not down
            out.warnings.append(
                ParseWarning(
                    line=no,
                    message=f"GPU {current.gpu} ({current.name}) is in MIG mode: nvidia-smi "
                    "answers no NVLink query for it, so its links are unknown (not down)",
                    skipped=False,
                )
            )
            current = None
        elif m := NVLINK_GPU_RE.match(line):
            current = NvlinkGpu(gpu=int(m.group(1)), name=m.group(2), line=no)
            out.gpus.append(current)
        elif _DOTS_RE.match(line):
            out.warnings.append(
                ParseWarning(
                    line=no,
                    message=f"'{line.strip()}' in place of lines the copy left out: the links "
                    "and GPUs there are unknown",
                )
            )
        elif line.strip():
            current = None  # another output starts: its lines are not this GPU's links
    out.gpus = [
        g
        for g in out.gpus
        if g.speed_gbytes_s or g.errors or g.none_up or g.remote or g.traffic_kib or g.capabilities
    ]
    # a GPU answered under "-i N" is not named: where every named GPU is one model, so is it (a
    # node's GPUs are one model), and it is judged with them
    models = {g.name for g in out.gpus if g.name}
    if len(models) == 1:
        for gpu in out.gpus:
            gpu.name = gpu.name or next(iter(models))

    # nvidia-smi lists every link of a GPU, up or inactive, so the GPUs of one model list as
    # many: one that lists fewer lost lines of its list to the copy (cut at its end, or left
    # out), wherever it stands
    # (-s's states and -c's capabilities list every link of the GPU; -R lists only the active
    # links' far ends: a GPU with fewer of those has a link down or a copy cut, said apart below)
    def links(gpu: NvlinkGpu) -> int:
        return max(len(gpu.speed_gbytes_s), len(gpu.capabilities))

    listed: dict[str, int] = {}
    for gpu in out.gpus:
        listed[gpu.name] = max(listed.get(gpu.name, 0), links(gpu))
    for gpu in out.gpus:
        most = listed[gpu.name]
        if links(gpu) and links(gpu) < most:
            gpu.cut = True
            out.warnings.append(
                ParseWarning(
                    line=gpu.line,
                    message=f"GPU {gpu.gpu} lists {links(gpu)} links where the "
                    f"other GPUs of its model list {most}: the rest of its list is not in the "
                    "copy (cut or left out), so those links are unknown",
                )
            )
    ends: dict[str, int] = {}
    for gpu in out.gpus:
        ends[gpu.name] = max(ends.get(gpu.name, 0), len(gpu.remote))
    for gpu in out.gpus:
        if gpu.remote and not gpu.speed_gbytes_s and len(gpu.remote) < ends[gpu.name]:
            out.warnings.append(
                ParseWarning(
                    line=gpu.line,
                    message=f"GPU {gpu.gpu} lists {len(gpu.remote)} link(s) with a far end where "
                    f"other GPUs of its model list {ends[gpu.name]}: nvlink -R lists the active "
                    "links only, so the others are down, or the copy is cut there "
                    "(nvidia-smi nvlink -s tells which)",
                    skipped=False,
                )
            )
    if not out.gpus and not any("is in MIG mode" in w.message for w in out.warnings):
        raise ParseError(
            "no 'GPU N: ...' line followed by 'Link N: ... GB/s', '<inactive>', an error counter "
            "or NVML's 'all links are inActive'"
        )
    return out


# ``nvidia-smi`` with no arguments: a banner ("NVIDIA-SMI 570.124.06  Driver Version: 570.124.06
# CUDA Version: 12.8"), then per GPU two rows (three from driver 450 on, the third holding the
# MIG mode) of three cells each, under the header rows "GPU  Name  Persistence-M | Bus-Id  Disp.A
# | Volatile Uncorr. ECC" and "Fan  Temp  Perf  Pwr:Usage/Cap | Memory-Usage | GPU-Util
# Compute M.". A field NVML could not read prints "ERR!"; "Volatile Uncorr. ECC" is the count of
# uncorrectable ECC errors since the driver loaded (NVML's volatile counters), "N/A" or "Off"
# without ECC.
# (driver 610's banner names the kernel-mode driver and the CUDA user-mode driver:
# "| NVIDIA-SMI 610.43.02  KMD Version: 610.43.02  CUDA UMD Version: 13.3 |")
SMI_BANNER_RE = re.compile(
    r"NVIDIA-SMI (?P<smi>\S+)\s+(?:Driver|KMD) Version: (?P<driver>\S+)"
    r"(?:\s+CUDA (?:UMD )?Version: (?P<cuda>\S+))?"
)
_SMI_FIRST_RE = re.compile(r"^\s*(?P<gpu>\d+)\s+(?P<name>.*?)\s+(?P<persist>On|Off|WDDM|TCC)\s*$")
_SMI_BUS_RE = re.compile(
    r"^\s*(?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])\s+"
    r"(?P<disp>On|Off|ERR!|N/A)\s*$"
)
_SMI_SECOND_RE = re.compile(
    r"^\s*(?P<fan>\d+%|N/A|ERR!)\s+(?P<temp>\d+C|N/A|ERR!)\s+(?P<perf>P\d+|ERR!|N/A)\s+"
    r"(?P<power>\d+W|N/A|ERR!)\s*/\s*(?P<cap>\d+W|N/A|ERR!)\s*$"
)
BASEBOARD_GPU_RE = re.compile(
    r"SXM|\b(?:GB|B)(?:100|200|300)\b|\bH100 80GB HBM3\b|\bH200\b(?! NVL)|\bH20\b|\bH800\b(?! PCIe)"
)
"""GPU names of models made only as SXM modules for NVLink baseboards (HGX/DGX: the A100 and
V100 "-SXM" names, H100 80GB HBM3, H200 and H20 but the H200 NVL card, the Blackwell B100/B200/B300
and GB200/GB300): every NVLink of theirs is wired, so none up is a fault, not a PCIe card's
bridge left off."""
SENSOR_FIELDS = frozenset({"power", "power cap", "fan"})
"""Status-table fields a board sensor gives: one of them ERR! beside readable others is a sensor
query that failed (a transient an NVIDIA maintainer answered needs no action, azhpc-diagnostics
issue 77), not a GPU that stopped answering."""
_SMI_CUT_ROW_RE = re.compile(r"^\|\s+(?P<gpu>\d+)\s+\S")
_SMI_CUT_INDEX_RE = re.compile(r"^\|[ \t]+\d+\b")
"""A GPU's first row cut anywhere after its index (``|   0``, the copy's last line)."""
# (drivers before about 340 wrote "MB": "14MB /  6143MB", the same mebibytes)
_SMI_MEMORY_RE = re.compile(r"^\s*(?P<used>\d+)Mi?B\s*/\s*(?P<total>\d+)Mi?B\s*$")
_SMI_UTIL_RE = re.compile(r"^\s*(?P<util>\d+%|N/A|ERR!)\s+(?P<mode>\S+(?: \S+)?)\s*$")


@dataclass(kw_only=True)
class SmiGpu:
    """One GPU of the ``nvidia-smi`` status table."""

    gpu: int
    name: str
    """As printed: a long name is cut with ``...`` (``Tesla V100-SXM2...``)."""
    line: int
    bus_id: str = ""
    persistence: str = ""
    driver_version: str = ""
    """A ``--query-gpu`` row's ``driver_version`` (the table and ``-q`` print it in their head)."""
    ecc_uncorrected: int | None = None
    """Volatile uncorrectable ECC errors; None when the GPU has no ECC (N/A, Off) or the row was
    cut."""
    fan_pct: int | None = None
    temp_c: int | None = None
    perf: str = ""
    power_w: int | None = None
    power_cap_w: int | None = None
    memory_used_mib: int | None = None
    memory_total_mib: int | None = None
    util_pct: int | None = None
    """GPU utilization (the status table's ``GPU-Util``, ``-q``'s Utilization ``Gpu``)."""
    util_line: int | None = None
    """``-q``: the line of its Utilization ``Gpu`` figure."""
    idle_among_busy: bool = False
    """Set by the importer: this GPU idles (at most IDLE_PCT) while most of the others of its
    output are busy (at least BUSY_PCT): the process on it stopped or waits, its peers compute."""
    compute_mode: str = ""
    mig_mode: str = ""
    mig_mode_pending: str = ""
    """A ``--query-gpu`` row's ``mig.mode.pending``: the MIG mode the GPU takes at its next reset
    (NVML's nvmlDeviceGetMigMode gives a current and a pending mode; ``nvidia-smi -i N -mig 1``
    on a GPU it cannot reset at once leaves them apart until a GPU reset or reboot)."""
    uuid: str = ""
    """The GPU's UUID (NVML's nvmlDeviceGetUUID, its own for life): a ``--query-gpu`` row's
    ``uuid``, where the query asked it, or ``-q``'s ``GPU UUID``."""
    unreadable: list[str] = field(default_factory=list)
    """The fields NVML could not read (printed ``ERR!``)."""
    recovery_action: str | None = None
    """``--query-gpu=gpu_recovery_action``: what the driver asks before the GPU is used again
    (None, Reset, Reboot, Drain P2P, Drain and Reset: NVML's nvmlDeviceGpuRecoveryAction_t, the
    A100 memory error management guide's recovery action flag)."""
    sensors_only: bool = False
    """Every unreadable field is a board sensor's (power, power cap, fan): the GPU itself
    answered (its temperature, memory and utilisation read), one sensor's query failed."""
    query: str = ""
    """``q`` when read from ``nvidia-smi -q`` (the fields below); empty for the status table."""
    ecc_corrected: int | None = None
    """``-q``: volatile correctable ECC errors (DRAM and SRAM, or single bit)."""
    remap_pending: bool | None = None
    """``-q`` Remapped Rows ``Pending``: a row remap waits for the GPU's reset."""
    remap_failed: bool | None = None
    """``-q`` Remapped Rows ``Remapping Failure Occurred``."""
    remapped_uncorrectable: int | None = None
    """``-q`` Remapped Rows ``Uncorrectable Error``: rows remapped after uncorrectable errors."""
    clock_reasons: dict[str, list[str]] = field(default_factory=dict)
    """A ``--query-gpu`` row's throttle-reason masks by field (``clocks_throttle_reasons.active``,
    ``.supported``), each as its reasons' names; from ``-q``, ``active``: the Clocks Throttle
    (Event) Reasons rows that read Active (empty where every row read is Not Active)."""
    remapped_correctable: int | None = None
    """``-q`` Remapped Rows ``Correctable Error``: rows remapped after correctable errors."""
    ecc_aggregate_corrected: int | None = None
    """``-q``: aggregate (lifetime) correctable ECC errors (DRAM and SRAM, or single bit)."""
    ecc_aggregate_uncorrected: int | None = None
    """``-q``: aggregate (lifetime) uncorrectable ECC errors."""
    retire_pending: bool | None = None
    """``-q`` Retired Pages ``Pending Page Blacklist`` / ``Pending Page Retirement``."""
    retired_pages: int | None = None
    """``-q`` Retired Pages: the pages retired for single and double bit ECC errors (None where
    the GPU remaps rows instead: N/A)."""
    retired_dbe: int | None = None
    """``-q`` Retired Pages ``Double Bit ECC``: the pages retired for a double-bit (uncorrectable)
    error, NVML's DOUBLE_BIT_ECC_ERROR cause: each one an error the GPU could not correct."""
    throttled: list[str] = field(default_factory=list)
    """``-q`` Clocks Throttle (Event) Reasons that slow the GPU and are Active (HW Slowdown, HW
    Thermal Slowdown, HW Power Brake Slowdown, SW Thermal Slowdown)."""
    clocks_mhz: dict[str, int] = field(default_factory=dict)
    """``-q``'s Clocks section: the clocks the GPU runs at when read (Graphics, SM, Memory,
    Video), in MHz; what a slowdown in force leaves of them."""
    clock_lines: dict[str, int] = field(default_factory=dict)
    """The line of each of ``clocks_mhz``'s values."""
    remap_lines: dict[str, int] = field(default_factory=dict)
    """``-q`` Remapped Rows: the line of its ``Uncorrectable Error`` count and of its ``Pending``
    flag, where the page holds them (what a finding on the remap cites, not the GPU's head)."""
    max_clocks_mhz: dict[str, int] = field(default_factory=dict)
    """``-q``'s Max Clocks section (Graphics, SM, Memory, Video), in MHz, where the page holds it."""
    core_clocks_said: str = ""
    """``clocks_mhz``'s core clocks (Graphics, SM) in words, with their Max Clocks and lines:
    "Graphics 382 MHz, SM 382 MHz (lines 10-11)"; empty where the page has no Clocks section."""
    fabric_status: str | None = None
    """``-q``'s Fabric section Status (an NVML return code's words: "Success" once the GPU has
    registered with the NVLink fabric, else why not, e.g. "Insufficient Resources")."""
    fabric_state: str | None = None
    """``-q``'s Fabric State: NVML's registration state (nvmlGpuFabricState_t: Not Supported,
    Not Started, In Progress, Completed); until Completed, CUDA on the GPU waits or fails."""
    fabric_health: dict[str, str] = field(default_factory=dict)
    """``-q``'s Fabric / Health lines the advisor reads: ``Summary`` (Healthy or Unhealthy, what
    NVML's fabric health mask adds up to) and ``Bandwidth`` (Full, or Degraded: NVML's
    NVML_GPU_FABRIC_HEALTH_MASK_DEGRADED_BW)."""
    power_readings_w: dict[str, float] = field(default_factory=dict)
    """``-q``: the Power Readings (or GPU Power Readings) section's figures in W, by key
    (Average Power Draw, Current Power Limit, Max Power Limit ...)."""
    power_lines: dict[str, int] = field(default_factory=dict)
    sections: list[str] = field(default_factory=list)
    """``-q``: the health sections read (ECC Errors, Remapped Rows, Retired Pages, Clocks ...)."""
    pcie_replays: int | None = None
    """``-q`` PCI ``Replays Since Reset``: the PCIe link's replays (a packet sent again after a
    link-level error) since the GPU's last reset."""
    pcie_gen: dict[str, int] = field(default_factory=dict)
    """``-q`` PCI / GPU Link Info / PCIe Generation: ``Max`` and ``Current``."""
    pcie_width_lanes: dict[str, int] = field(default_factory=dict)
    """``-q`` PCI / GPU Link Info / Link Width: ``Max`` and ``Current`` (lanes, "16x" as 16)."""
    pcie_width_low: bool = False
    """The link runs on fewer lanes than its own maximum (DCGM's diagnostic fails a GPU whose
    link width is below its minimum: DCGM_FR_PCIE_WIDTH)."""
    pcie_width_peer_lanes: int | None = None
    """A ``--query-gpu`` copy without ``pcie.link.width.max``: the widest current link of the
    copy's other GPUs, where this GPU's current link is narrower (None otherwise)."""
    pcie_width_peer: int | None = None
    """The GPU (index) of that widest link."""
    pcie_width_widest: int | None = None
    """A looped ``--query-gpu`` copy: the widest current link width an earlier sample of this
    GPU showed, where one did (its latest sample is the one read)."""
    pstate: str = ""
    """``--query-gpu``'s ``pstate``: the performance state (P0 fastest ... P12 least power)."""
    processes: list[SmiProcess] | None = None
    """``-q``'s Processes section: its rows on this GPU ([] for "Processes : None"); None where
    the record has no such section (cut, or a -d page without it)."""
    unreadable_line: int | None = None
    """The line of the first field printed ERR! (the status table's second or third row, where
    the fan, temperature and power cells stand; a -q field's own line): what a finding on the
    unreadable field cites, not the GPU's head line."""
    temp_line: int | None = None
    """``-q`` Temperature ``GPU Current Temp``'s line."""
    tlimit_margin_c: int | None = None
    """``-q`` Temperature ``GPU T.Limit Temp``: not a temperature but the GPU's margin in C to
    its T.Limit (NVML nvmlDeviceGetMarginTemperature: "thermal margin temperature (distance to
    nearest slowdown threshold)"); 0 is where the SW thermal slowdown begins (the same page's
    "GPU Max Operating T.Limit Temp : 0 C"), below 0 the hardware slowdown and the shutdown."""
    tlimit_line: int | None = None
    clock_event_us: dict[str, int] = field(default_factory=dict)
    """``-q`` Clocks Event Reasons Counters (driver 535 on): the time in us each reason has held
    the clocks down (SW Power Capping, Sync Boost, SW Thermal Slowdown, HW Thermal Slowdown, HW
    Power Braking): NVML's cumulative field values NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_POWER_CAP,
    _SW_THERM_SLOWDOWN, _HW_THERM_SLOWDOWN, _HW_POWER_BRAKE_SLOWDOWN: a history, not a reason
    in force now."""
    clock_event_lines: dict[str, int] = field(default_factory=dict)
    reason_lines: dict[str, int] = field(default_factory=dict)
    """``-q``: the line of each Clocks Event (Throttle) Reasons row that reads Active."""


@dataclass(kw_only=True)
class SmiProcess:
    """A row of the status table's process table."""

    line: int
    gpu: int
    pid: int
    type: str
    """NVML's process type as nvidia-smi prints it: "C" compute, "G" graphics (a desktop's Xorg
    or compositor), "C+G" both, "M" / "M+C" an MPS server or client."""
    name: str
    """As printed: nvidia-smi cuts a long path from the left ("...bin/python3.6")."""
    memory_mib: int | None = None
    """None where nvidia-smi prints N/A (WDDM on Windows; a process of another container)."""


# a process row's type column (nvidia-smi's "Type": NVML_PROCESS_TYPE_* as it prints them)
_SMI_PROCESS_TYPES = frozenset({"C", "G", "C+G", "M", "M+C"})


def _smi_process(no: int, row: str) -> SmiProcess | None:
    """A process row ("|    4     32263      C   ...bin/python3.6 10243MiB |"; from driver 450 on
    with the MIG columns "GI ID  CI ID" before the PID, "N/A" outside MIG): split on blanks, not
    matched by one pattern, so a long name costs a single pass."""
    words = row.strip().strip("|").split()
    kind = next((i for i in range(2, len(words) - 1) if words[i] in _SMI_PROCESS_TYPES), None)
    if kind is None or not words[0].isdigit() or not words[kind - 1].isdigit():
        return None
    memory = words[-1].removesuffix("MiB")
    return SmiProcess(
        line=no,
        gpu=int(words[0]),
        pid=int(words[kind - 1]),
        type=words[kind],
        name=" ".join(words[kind + 1 : -1]),
        memory_mib=int(memory) if memory.isdigit() else None,
    )


@dataclass(kw_only=True)
class SmiStatus:
    gpus: list[SmiGpu]
    driver: str = ""
    cuda: str = ""
    processes: int | None = None
    """Processes its process table lists (0 for "No running processes found"); None when the
    copy has no process table."""
    process_gpus: set[int] = field(default_factory=set)
    """The GPUs its process table lists a process on."""
    process_rows: list[SmiProcess] = field(default_factory=list)
    """The process table's rows that read whole (GPU, PID, type, name, memory)."""
    warnings: list[ParseWarning] = field(default_factory=list)


def _smi_int(value: str, unit: str, field_name: str, gpu: SmiGpu) -> int | None:
    if value == "ERR!":
        gpu.unreadable.append(field_name)
        return None
    return int(value.rstrip(unit)) if value.rstrip(unit).isdigit() else None


def parse_status(text: str, *, notes: bool = True) -> SmiStatus:
    """Parse ``nvidia-smi``'s status table (every layout from driver 367 on: two or three rows a
    GPU); raises ParseError when it holds no GPU row. A GPU whose second row the copy lost is
    read from its first, with a warning. ``notes=False`` leaves out the notes read from the
    lines around the tables (MIG pending warnings, "No devices were found"): a reading of a
    part of the file for those notes themselves."""
    out = SmiStatus(gpus=[])
    current: SmiGpu | None = None
    second_seen = False
    in_processes = False
    # a Processes section the last table opened: a later banner (the command run again in the
    # same terminal, a watch loop) starts a table whose cut GPU row is no process row
    procs_open = False
    last: tuple[int, str] | None = None  # the text's last line that is not blank
    for no, line, _ in numbered_lines(text):
        s = line.strip()
        if s:
            last = (no, s)
        if m := SMI_BANNER_RE.search(line):
            out.driver, out.cuda = m.group("driver"), m.group("cuda") or ""
            procs_open = False
            continue
        if "Processes:" in s:
            in_processes, procs_open, out.processes = True, True, 0
            continue
        if in_processes:
            if s.startswith("|") and (row := re.match(r"^\|\s+(\d+)\s+", s)) and "MiB" in s:
                out.processes = (out.processes or 0) + 1
                out.process_gpus.add(int(row.group(1)))
                if (process := _smi_process(no, s)) is not None:
                    out.process_rows.append(process)
            continue
        if not s.startswith("|"):
            continue
        cells = [c.strip() for c in s.strip("|").split("|")]
        if len(cells) != 3:
            continue
        first, bus = _SMI_FIRST_RE.match(cells[0]), _SMI_BUS_RE.match(cells[1])
        if first and bus:
            if current is not None and not second_seen:
                out.warnings.append(
                    ParseWarning(
                        line=current.line,
                        message=f"GPU {current.gpu}'s second row is missing: its temperature, "
                        "power, memory and utilisation are unknown",
                    )
                )
            current = SmiGpu(
                gpu=int(first.group("gpu")),
                name=first.group("name"),
                line=no,
                persistence=first.group("persist"),
                bus_id=bus.group("bus"),
            )
            if current.name == "ERR!":
                current.unreadable.append("name")
            ecc = cells[2]
            if ecc == "ERR!":
                current.unreadable.append("ECC")
            elif ecc.isdigit():
                current.ecc_uncorrected = int(ecc)
            out.gpus.append(current)
            second_seen = False
            continue
        if current is None:
            continue
        second = _SMI_SECOND_RE.match(cells[0])
        if second and not second_seen:
            second_seen = True
            g = current
            g.fan_pct = _smi_int(second.group("fan"), "%", "fan", g)
            g.temp_c = _smi_int(second.group("temp"), "C", "temperature", g)
            g.perf = second.group("perf") if second.group("perf") != "ERR!" else ""
            if second.group("perf") == "ERR!":
                g.unreadable.append("performance state")
            g.power_w = _smi_int(second.group("power"), "W", "power", g)
            g.power_cap_w = _smi_int(second.group("cap"), "W", "power cap", g)
            if mem := _SMI_MEMORY_RE.match(cells[1]):
                g.memory_used_mib, g.memory_total_mib = (
                    int(mem.group("used")),
                    int(mem.group("total")),
                )
            if util := _SMI_UTIL_RE.match(cells[2]):
                g.util_pct = _smi_int(util.group("util"), "%", "utilisation", g)
                g.compute_mode = util.group("mode")
            if g.unreadable and g.unreadable_line is None:
                g.unreadable_line = no  # (this row's ERR!: fan, temperature, power ...)
            continue
        if second_seen and not cells[0] and not cells[1] and cells[2]:
            current.mig_mode = cells[2]  # the third row: MIG M.
            if cells[2] == "ERR!":
                current.unreadable.append("MIG mode")
                if current.unreadable_line is None:
                    current.unreadable_line = no
            current = None
    if current is not None and not second_seen:
        out.warnings.append(
            ParseWarning(
                line=current.line,
                message=f"GPU {current.gpu}'s second row is missing (the copy ends there): its "
                "temperature, power, memory and utilisation are unknown",
            )
        )
    if (
        last is not None
        and not procs_open
        and (cut := _SMI_CUT_ROW_RE.match(last[1]))
        and len(last[1].strip("|").split("|")) < 3
    ):
        # the copy ends inside a GPU's first row (under "Processes:" a last row is a process
        # row, one cell wide like a cut GPU row: "|    0   N/A  N/A   3518784   C   python3 ...")
        out.warnings.append(
            ParseWarning(
                line=last[0],
                message=f"GPU {cut.group('gpu')}'s rows are cut (the copy ends inside its first "
                "row): that GPU is not read",
            )
        )
    cut_first_row = (
        last is not None
        and _SMI_CUT_INDEX_RE.match(last[1]) is not None
        and len(last[1].strip("|").split("|")) < 3
    )
    if (
        not out.gpus
        and out.driver
        and last is not None
        and (last[1].strip().startswith("|==") or cut_first_row)
    ):
        # the copy ends at the table's head ("nvidia-smi | head -8"), or inside its first GPU's
        # first row: its banner's versions are what it holds, no GPU (its rows were not copied)
        out.warnings.append(
            ParseWarning(
                line=last[0],
                message=f"nvidia-smi's banner alone (driver {out.driver}"
                + (f", CUDA {out.cuda}" if out.cuda else "")
                + "): the copy ends "
                + ("inside the first GPU's first row" if cut_first_row else "at the table's head")
                + ", before any GPU's row is whole; no GPU is read"
                # (its banner's "CUDA Version: N/A" where the container it ran in lacks the
                # driver's compute library: weaviate/weaviate-helm issue 101, N/A until
                # NVIDIA_DRIVER_CAPABILITIES named compute; opendatalab/MinerU issue 1744, N/A
                # beside "libcuda.so.1: cannot open shared object file")
                + (
                    "; 'CUDA Version: N/A': no CUDA driver version where nvidia-smi ran (as "
                    "where a container lacks the driver's libcuda, its compute capability)"
                    if out.cuda == "N/A"
                    else ""
                ),
                skipped=False,
            )
        )
        return out
    if not out.gpus:
        raise ParseError("no nvidia-smi GPU row ('| 0  NAME  On | BUS-ID  Off | ECC |')")
    for g in out.gpus:
        g.sensors_only = bool(g.unreadable) and set(g.unreadable) <= SENSOR_FIELDS
    if notes:
        lines = numbered_lines(text)
        out.warnings += mig_pending_notes(text, lines)
        out.warnings += _no_devices_outside_step_notes(lines)
    return out


# ``nvidia-smi -i N -mig 1`` (or ``-mig 0``) when NVML could not apply the change at once: NVML's
# nvmlDeviceSetMigMode "may unbind or reset the device to activate the requested mode"; where the
# GPU is not idle its activation status is NVML_ERROR_IN_USE (nvmlErrorString: "In use by another
# client"), where the platform exposes no reset (a VM's passthrough, a hypervisor's host) the
# change waits for a reboot (NVIDIA's MIG User Guide, "Enable MIG Mode": "Warning: MIG mode is in
# pending enable state for GPU 00000000:00:03.0:Not Supported" / "Reboot the system or try
# nvidia-smi --gpu-reset to make MIG mode effective"). The mode is only pending (the table's MIG
# M. cell reads "Enabled*"): nothing failed, the GPU works in its old mode until then.
# (behind pdsh's "host: " too, ``pdsh -w gpu[01-02] nvidia-smi -i 0 -mig 1``: the loader reads
# such a copy per host, parsers.pdsh_by_host)
MIG_PENDING_SIGNATURE = (
    r"^[ \t]*(?:[A-Za-z0-9][\w.-]{0,62}: )?"
    r"Warning: MIG mode is in pending (?:enable|disable) state for GPU "
)
_MIG_PENDING_RE = re.compile(
    r"^[ \t]*Warning: MIG mode is in pending (?P<mode>enable|disable) state for GPU "
    r"(?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]):[ \t]*(?P<why>\S.*)"
)
"""(``why`` runs to the line's end, its trailing blanks stripped in code: a lazy part before
``\\s*$`` is tried from each of its ends, quadratic on a long padded line.)"""
_WRAP_GAP_RE = re.compile(r"(?<=\S) {20,}(?=\S)")
"""A run of spaces inside one of nvidia-smi's messages: a terminal's wrap that padded the line to
its width, kept in the copy ("Not Suppor<spaces>ted"); the message's own words are one space
apart."""
_MIG_PENDING_WHY = {
    "In use by another client": "other processes hold the GPU (NVML_ERROR_IN_USE: the GPU could "
    "not be unbound while not idle); the change takes effect once they stop and the GPU is "
    "reset, or at the next reboot",
    "Not Supported": "this system does not let nvidia-smi reset the GPU (a VM's passthrough or a "
    "hypervisor's host), so the change takes effect at the next reboot",
}


# nvidia-smi --gpu-reset (-r) refused in the wording of drivers before "The following GPUs could
# not be reset:" (logs.SMI_RESET_SIGNATURE), one line a GPU: "GPU 00000000:00:18.0 is currently in
# use by another process.", then "1 device is currently being used by one or more other processes
# (...). Please first kill all processes using this device ..." (cupy/cupy issue 1930,
# NVIDIA/gpu-operator issue 118); and its answer where the reset went through, "GPU
# 00000000:C1:00.0 was successfully reset." (the same issue 118, after killall nvidia-persistenced)
SMI_RESET_IN_USE_RE = re.compile(
    r"^[ \t]*GPU (?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]) is currently "
    r"in use by another process\."
)
SMI_RESET_DONE_RE = re.compile(
    r"^[ \t]*GPU (?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]) was "
    r"successfully reset\."
)
_SHELL_COMMAND_RE = re.compile(r"^[ \t]*(?:\S{0,200}[$#])[ \t]+(?P<cmd>\S[^\n]{0,300})$")
"""A terminal copy's prompt and command ("$ killall nvidia-persistenced"): a step between a
refused reset and the next try."""


def _reset_steps(lines: list[tuple[int, str, int | None]], after: int, bus: str) -> str:
    """What the copy shows of GPU ``bus``'s resets after line ``after`` (a pending MIG change):
    each refused nvidia-smi --gpu-reset, the commands run between, and the reset that went
    through, each with its line; "" where none. NVIDIA's MIG User Guide ("Enable MIG Mode"): the
    pending mode takes effect with "nvidia-smi --gpu-reset" or a reboot, so a reset that went
    through ends the pending state."""
    steps: list[str] = []
    refused = False
    for no, line, _ in lines:
        if no <= after:
            continue
        if (m := SMI_RESET_IN_USE_RE.match(line)) and _same_bus(m.group("bus"), bus):
            steps.append(f"nvidia-smi --gpu-reset refused, in use by another process (line {no})")
            refused = True
        elif (m := SMI_RESET_DONE_RE.match(line)) and _same_bus(m.group("bus"), bus):
            steps.append(
                f"then GPU {m.group('bus')} was successfully reset (line {no}): the pending MIG "
                "change took effect with that reset"
            )
            break
        elif refused and (c := _SHELL_COMMAND_RE.match(line)) and "nvidia-smi" not in line:
            # (what was done to free the GPU before the next try: killall nvidia-persistenced)
            steps.append(f"'{c.group('cmd').strip()}' (line {no})")
    return "; ".join(steps)


def mig_pending_notes(text: str, lines: list[tuple[int, str, int | None]]) -> list[ParseWarning]:
    """nvidia-smi's warning that a MIG mode change is pending, with the GPU's MIG mode as a
    later reading in the same file gives it (a --query-gpu row or a table after a reboot)."""
    notes: list[ParseWarning] = []
    pending = [
        (no, m) for no, line, _ in lines if "pending" in line and (m := _MIG_PENDING_RE.match(line))
    ]
    # every later reading, read once for all the warnings (each warning reading the rest of the
    # file again, its own warnings with it, would double the work with each warning)
    readings = _mig_readings(text, lines, pending[0][0]) if pending else []
    for no, m in pending:
        why = _WRAP_GAP_RE.sub("", m.group("why").rstrip())
        bus, mode = m.group("bus"), m.group("mode")
        meaning = _MIG_PENDING_WHY.get(
            why, "the change takes effect once the GPU is reset or the system rebooted"
        )
        later = [r[:3] for r in readings if r[4] > no and _same_bus(r[3], bus)]
        resets = _reset_steps(lines, no, bus)
        notes.append(
            ParseWarning(
                line=no,
                message=f"nvidia-smi -mig: MIG {mode} pending on GPU {bus} ({why}): {meaning}; "
                "a mode change waiting, not a fault"
                + (
                    f"; after it the file reads GPU {bus}'s MIG mode "
                    + ", ".join(f"{mig} ({how}, line {at})" for at, how, mig in later)
                    if later
                    else ""
                )
                + (f"; after it: {resets}" if resets else ""),
                skipped=False,
            )
        )
    return notes


def _same_bus(a: str, b: str) -> bool:
    """Two spellings of one PCI bus id (a domain of 4 or 8 hex digits, any case)."""
    return a.lower().split(":", 1)[-1] == b.lower().split(":", 1)[-1] and bool(a)


def _mig_readings(
    text: str, lines: list[tuple[int, str, int | None]], after: int
) -> list[tuple[int, str, str, str, int]]:
    """The MIG modes the file gives its GPUs after line ``after`` (the first pending warning):
    each reading's line, what printed it, the mode, the GPU's bus id and the line its output
    starts on (a table's banner), in the file's order. The query rows and the tables are each
    read once; a warning takes those whose output starts after its line."""
    found: list[tuple[int, str, str, str, int]] = []
    try:
        rows = parse_query_csv(text)
    except ParseError:
        rows = []
    found += [
        (g.line, "--query-gpu", g.mig_mode, g.bus_id, g.line)
        for g in rows
        if g.line > after and g.mig_mode and g.bus_id
    ]
    tail = [(at, t) for at, t, _ in lines if at > after]
    banners = [at for at, t in tail if "NVIDIA-SMI" in t and SMI_BANNER_RE.search(t)]
    if banners:
        try:
            later = parse_status("\n".join(t for _, t in tail), notes=False).gpus
        except ParseError:
            later = []
        found += [
            (g.line + after, "the table", g.mig_mode, g.bus_id, banner)
            for g in later
            if g.mig_mode
            and g.bus_id
            and (banner := max((b for b in banners if b <= g.line + after), default=0))
        ]
    return sorted(found)


# A bare "nvidia-smi" answered "No devices were found" in an allocation's shell, then "srun ...
# nvidia-smi" listed the GPUs: Slurm gives a job's GPUs (--gres=gpu:N) to the steps srun starts
# in it, while salloc with no command "runs the user's default shell" where salloc was run
# (salloc(1)), outside any step: that shell sees no GPU of the job, no GPU is missing.
_SRUN_SMI_RE = re.compile(r"(?:^|[\s$#>])srun\s[^\n|;&]{0,300}?\bnvidia-smi\b")
"""(srun's options bounded: an unbounded scan from each "srun" of a long line is quadratic.)"""
_REMOTE_RE = re.compile(r"(?:^|[\s$#>;&|(])(?:ssh|pdsh|clush|pssh|rsh)\s")
"""A command run on another host than the shell's (``ssh gpu-12 nvidia-smi``)."""
_NODELIST_RE = re.compile(r"\s(?:-w|--nodelist)(?:=|\s+)(?P<hosts>[^\s|;&]{1,300})")
_SALLOC_NODES_RE = re.compile(r"^salloc: Nodes? (?P<hosts>\S{1,300}) (?:is|are) ready")
_NO_DEVICES_RE = re.compile(r"^\s*No devices were found\s*$")
SRUN_TABLE_LINES = 15
"""How far under ``srun ... nvidia-smi`` its table's first GPU row may stand (the date, borders,
banner and header rows come first)."""
SRUN_TABLE_WINDOW = 200
"""How many lines under it its table is read from (a table of 32 GPUs and their processes)."""


def no_devices_in_job_step(
    lines: list[tuple[int, str, int | None]],
) -> dict[int, tuple[int, list[SmiGpu]]]:
    """Each "No devices were found" line (not itself srun's answer, nor of a command run on
    another host by ssh) whose next ``srun ... nvidia-smi`` of the same shell lists GPUs in its
    table: that command's line and those GPUs (their lines the file's). The same shell: the
    same prompt host, and the nodes srun names (-w) none but the allocation's (salloc's "Nodes
    ... are ready") or that host. One pass over the lines."""
    out: dict[int, tuple[int, list[SmiGpu]]] = {}
    waiting: list[int] = []
    shell: str | None = None  # the prompt host the waiting lines' nvidia-smi ran on
    allocated: set[str] = set()  # the nodes salloc said are ready
    above = ""  # the last line that is not blank
    for index, (no, line, _) in enumerate(lines):
        if line.startswith("salloc: Node") and (nodes := _SALLOC_NODES_RE.match(line)):
            allocated.update(_hosts(nodes.group("hosts")))
        if "No devices" in line and _NO_DEVICES_RE.match(line):
            if _SRUN_SMI_RE.search(above) or _REMOTE_RE.search(above):
                continue  # srun's own answer, or another host's
            host = _prompt_host(above)
            if waiting and host != shell:
                waiting = []
            waiting.append(no)
            shell = host
        elif waiting and "srun" in line and _SRUN_SMI_RE.search(line):
            named = _NODELIST_RE.search(line)
            if _prompt_host(line) != shell or (
                named is not None
                and not _hosts(named.group("hosts")) <= (allocated | {shell} - {None})
            ):
                waiting = []  # another host's shell, or a step on a node the file did not show
                above = line
                continue
            window = lines[index + 1 : index + 1 + SRUN_TABLE_WINDOW]
            try:
                status = parse_status("\n".join(t for _, t, _ in window), notes=False)
            except ParseError:
                status = SmiStatus(gpus=[])
            gpus = [g for g in status.gpus if g.line <= SRUN_TABLE_LINES]
            for g in gpus:
                g.line += no
            if gpus:
                out.update(dict.fromkeys(waiting, (no, gpus)))
            waiting = []
        above = line if line.strip() else above
    return out


def _prompt_host(line: str) -> str | None:
    m = PROMPT_HOST_RE.match(line)
    return m.group("host") if m else None


def _hosts(listed: str) -> set[str]:
    """A node list's hosts as written ("gpu-11,gpu-12"; a range "gpu-[11-12]" stays one)."""
    return {h for h in re.split(r",(?![^\[]*\])", listed) if h}


def _no_devices_outside_step_notes(lines: list[tuple[int, str, int | None]]) -> list[ParseWarning]:
    notes: list[ParseWarning] = []
    stepped = no_devices_in_job_step(lines) if any("srun" in t for _, t, _ in lines) else {}
    for no, (at, gpus) in stepped.items():
        salloc = any("salloc" in t for a, t, _ in lines if a < no)
        notes.append(
            ParseWarning(
                line=no,
                message=f"nvidia-smi's 'No devices were found' (line {no}) ran outside the "
                f"Slurm job's step: 'srun ... nvidia-smi' (line {at}), inside it, lists "
                + "; ".join(f"GPU {g.gpu} ({g.name}, {g.bus_id})" for g in gpus)
                + " (Slurm gives a job's GPUs to the steps srun starts"
                + ("; salloc's own shell runs outside them" if salloc else "")
                + "): no GPU is missing",
                skipped=False,
            )
        )
    return notes


# ``nvidia-smi -q``: "Key : Value" lines indented under section names ("ECC Errors", "Volatile",
# "Remapped Rows", "Clocks Throttle Reasons" — "Clocks Event Reasons" in newer drivers), one block
# per GPU after its "GPU 00000000:10:1C.0" line; a grep of one section may stand alone.
QUERY_RE = re.compile(
    r"^\s*(?:Attached GPUs\s*:|(?:Remapped Rows|Retired Pages|Clocks (?:Throttle|Event) Reasons|"
    r"ECC Errors|Fabric)\s*$"
    # (the reset flags' section with its first flag, a copy of it standing alone)
    r"|GPU Reset Status[ \t]*\n[ \t]*Reset Required[ \t]*:"
    # (a fragment of a GPU's record without its health sections: its PCI section's link info,
    # or its heading and product name, "GPU 00000000:02:00.0" then "    Product Name : ...")
    r"|GPU Link Info\s*\n\s*PCIe Generation\s*$"
    r"|GPU [0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7][ \t]*\n[ \t]+Product Name[ \t]*:"
    # (a -q -d CLOCK page's Clocks section, or a copy of it standing alone, its first row the
    # Graphics clock in MHz as nvidia-smi -q prints it)
    r"|Clocks[ \t]*\n[ \t]+Graphics[ \t]*:[ \t]*\d{1,6} MHz[ \t]*$)",
    re.M,
)
# (linear time on a long run: blanks after a line start stay on that line, not re-read from each of
# many blank lines)
Q_PCI_FIELDS_RE = re.compile(
    r"^[^\S\n]*(?P<key>GPU Part Number|Device Id|Bus Id|Max|Current)\s*:\s*(?P<value>\S+)\s*$", re.M
)
"""A -q record's identity and PCIe generation fields (under PCI / GPU Link Info / PCIe
Generation: Max, Current)."""
_QUERY_GPU_RE = re.compile(
    r"^GPU (?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])\s*$"
)
_QUERY_LINE_RE = re.compile(
    r"^(?P<indent>\s*)(?P<key>[A-Za-z][\w .()/-]*?)\s*(?::\s*(?P<value>.*?))?\s*$"
)
NVML_ERROR_WORDS = frozenset({"Unknown Error", "GPU is lost", "System is not in ready state"})
"""nvmlErrorString's words that nvidia-smi -q prints in place of a value NVML could not read."""
# (linear time on a long run: a match starts where its run starts, not at each character of a long
# one)
_MARKER_RE = re.compile(r"(?<!\s)\s+(?:<[=-]{2,}|<<+|←+)(?:\s.*)?$")
"""An arrow a person added after a value to point at it (``Pending : Yes   <===``): not the
value's."""
_HEALTH_SECTIONS = ("ECC Errors", "Remapped Rows", "Retired Pages", "Clocks Throttle Reasons",
                    "Clocks Event Reasons", "Fabric")  # fmt: skip
# (not "SW Power Cap": a GPU under load at its power limit reads Active, healthy)
SLOWING_REASONS = _SLOWING = (
    "HW Slowdown",
    "HW Thermal Slowdown",
    "HW Power Brake Slowdown",
    "SW Thermal Slowdown",
)


_QUERY_MIB_RE = re.compile(r"(\d+) MiB")


def _query_process(gpu: SmiGpu, key: str, value: str, line: int) -> None:
    """A value of ``-q``'s Processes section: each process is a "Process ID" line with its Type,
    Name and "Used GPU Memory" indented under it, and its GPU and Compute instance IDs above it
    (N/A outside MIG): the fields of NVML's nvmlProcessInfo_t (pid, usedGpuMemory,
    gpuInstanceId, computeInstanceId), the same the status table's process table prints in a
    row. Under WDDM, NVML has no usedGpuMemory (NVML_VALUE_NOT_AVAILABLE: Windows' kernel
    driver manages the memory) and nvidia-smi says so in words: no figure then."""
    if gpu.processes is None:
        gpu.processes = []
    if key == "Process ID" and value.isdigit():
        gpu.processes.append(SmiProcess(line=line, gpu=gpu.gpu, pid=int(value), type="", name=""))
    elif not gpu.processes:
        return  # (the instance IDs above the first process)
    elif key == "Type" and value in _SMI_PROCESS_TYPES:
        gpu.processes[-1].type = value
    elif key == "Name":
        gpu.processes[-1].name = value
    elif key == "Used GPU Memory" and (mib := _QUERY_MIB_RE.fullmatch(value)):
        gpu.processes[-1].memory_mib = int(mib.group(1))


def _query_gpu(gpu: SmiGpu, path: list[str], key: str, value: str, line: int) -> None:
    """One ``-q`` value into ``gpu`` by its section path."""
    where = " / ".join(path)
    number = int(value) if value.isdigit() else None
    if not path and key == "Processes" and value == "None":
        gpu.processes = []
        return
    if where == "Processes":
        _query_process(gpu, key, value, line)
        return
    if path and path[0] in _HEALTH_SECTIONS and path[0] not in gpu.sections:
        gpu.sections.append(path[0])
    if value in NVML_ERROR_WORDS:
        # NVML answered its query with an error (nvmlErrorString's words: NVML_ERROR_UNKNOWN's
        # "Unknown Error", NVML_ERROR_GPU_IS_LOST's "GPU is lost", NVML_ERROR_NOT_READY's "System
        # is not in ready state"): the -q form of the table's ERR!, a field the GPU did not give
        if (field_name := f"{where} / {key}" if where else key) not in gpu.unreadable:
            gpu.unreadable.append(field_name)
            if gpu.unreadable_line is None:
                gpu.unreadable_line = line
    elif key == "Product Name":
        gpu.name = value
    elif not path and key == "GPU UUID" and _GPU_UUID_RE.fullmatch(value):
        gpu.uuid = value
    elif where.startswith("ECC Errors / Volatile") and number is not None:
        if "Uncorrectable" in key or (key == "Total" and "Double Bit" in where):
            gpu.ecc_uncorrected = (gpu.ecc_uncorrected or 0) + number
        elif "Correctable" in key or (key == "Total" and "Single Bit" in where):
            gpu.ecc_corrected = (gpu.ecc_corrected or 0) + number
    elif where.startswith("ECC Errors / Aggregate") and number is not None:
        # (the counts since the GPU was made, not since its driver loaded: a history)
        if "Uncorrectable" in key or (key == "Total" and "Double Bit" in where):
            gpu.ecc_aggregate_uncorrected = (gpu.ecc_aggregate_uncorrected or 0) + number
        elif "Correctable" in key or (key == "Total" and "Single Bit" in where):
            gpu.ecc_aggregate_corrected = (gpu.ecc_aggregate_corrected or 0) + number
    elif where == "Remapped Rows" and key == "Uncorrectable Error" and number is not None:
        gpu.remapped_uncorrectable = number
        gpu.remap_lines[key] = line
    elif where == "Remapped Rows" and key == "Correctable Error" and number is not None:
        gpu.remapped_correctable = number
    elif where == "Remapped Rows" and key == "Pending" and value in ("Yes", "No"):
        gpu.remap_pending = value == "Yes"
        gpu.remap_lines[key] = line
    elif (
        where == "Remapped Rows" and key == "Remapping Failure Occurred" and value in ("Yes", "No")
    ):
        gpu.remap_failed = value == "Yes"
    elif where == "GPU Reset Status" and value in ("Yes", "No"):
        # NVML's NVML_FI_DEV_RESET_STATUS and NVML_FI_DEV_DRAIN_AND_RESET_STATUS field values
        # (nvml.h; deprecated from R570 for NVML_FI_DEV_GET_GPU_RECOVERY_ACTION, whose Reset and
        # Drain and Reset they are: newer drivers print "Requested functionality has been
        # deprecated" there and a "GPU Recovery Action" line): "Yes" is the driver asking for
        # the reset before the GPU is used again (a health section only where a flag reads:
        # "N/A" on a GPU without them says nothing)
        if where not in gpu.sections:
            gpu.sections.append(where)
        if value == "Yes" and key == "Drain and Reset Recommended":
            gpu.recovery_action = "Drain and Reset"
        elif (
            value == "Yes" and key == "Reset Required" and gpu.recovery_action != "Drain and Reset"
        ):
            gpu.recovery_action = "Reset"
        elif gpu.recovery_action is None:
            gpu.recovery_action = "None"
    elif not path and key == "GPU Recovery Action" and value in RECOVERY_ACTIONS:
        gpu.recovery_action = value  # (R570 on: NVML_FI_DEV_GET_GPU_RECOVERY_ACTION in words)
    elif where == "Retired Pages" and key.startswith("Pending Page") and value in ("Yes", "No"):
        gpu.retire_pending = value == "Yes"
    elif where.startswith("Retired Pages") and key.endswith("Bit ECC") and number is not None:
        gpu.retired_pages = (gpu.retired_pages or 0) + number
        if key.startswith("Double Bit"):
            gpu.retired_dbe = (gpu.retired_dbe or 0) + number
    elif not path and key == "Persistence Mode" and value in ("Enabled", "Disabled"):
        gpu.persistence = "On" if value == "Enabled" else "Off"  # as the table prints it
    elif where == "MIG Mode" and key == "Current" and value in ("Enabled", "Disabled"):
        gpu.mig_mode = value
    elif where == "PCI" and key == "Replays Since Reset" and number is not None:
        gpu.pcie_replays = number
    elif where == "PCI / GPU Link Info / PCIe Generation" and key in ("Max", "Current"):
        if number is not None:
            gpu.pcie_gen[key] = number
    elif where == "PCI / GPU Link Info / Link Width" and key in ("Max", "Current"):
        if lanes := re.fullmatch(r"(\d{1,2})x", value):
            gpu.pcie_width_lanes[key] = int(lanes.group(1))
            width = gpu.pcie_width_lanes
            gpu.pcie_width_low = (
                "Max" in width and width.get("Current", width["Max"]) < width["Max"]
            )
    elif not path and key == "Performance State" and re.fullmatch(r"P\d{1,2}", value):
        gpu.perf = value  # -d PERFORMANCE prints it at the GPU's top level
    elif where == "Fabric" and key == "Status" and value:
        gpu.fabric_status = value
    elif where == "Fabric" and key == "State" and value:
        gpu.fabric_state = value
    elif where == "Fabric / Health" and key in ("Summary", "Bandwidth") and value:
        gpu.fabric_health[key] = value
    elif (
        where == "Temperature" and key == "GPU Current Temp" and (t := re.match(r"(\d+) C$", value))
    ):
        gpu.temp_c = int(t.group(1))
        gpu.temp_line = line
    elif (
        where == "Temperature"
        and key == "GPU T.Limit Temp"
        and (margin := re.fullmatch(r"(-?\d{1,3}) C", value))
    ):
        gpu.tlimit_margin_c = int(margin.group(1))
        gpu.tlimit_line = line
    elif (
        where.startswith("Clocks ")
        and where.endswith("Reasons Counters")
        and (us := re.fullmatch(r"(\d{1,20}) us", value))
    ):
        gpu.clock_event_us[key] = int(us.group(1))
        gpu.clock_event_lines[key] = line
    elif where in ("Power Readings", "GPU Power Readings") and (
        watts := re.match(r"(\d+(?:\.\d+)?) W$", value)
    ):
        # (older drivers: Power Draw and Power Limit; newer: Average/Instantaneous Power Draw
        # and Current Power Limit)
        gpu.power_readings_w.setdefault(key, float(watts.group(1)))
        gpu.power_lines.setdefault(key, line)
        if key in ("Power Draw", "Average Power Draw", "Instantaneous Power Draw"):
            gpu.power_w = round(float(watts.group(1)))
        elif key in ("Power Limit", "Current Power Limit", "Enforced Power Limit"):
            gpu.power_cap_w = gpu.power_cap_w or round(float(watts.group(1)))
    elif (
        where == "FB Memory Usage"
        and key in ("Total", "Used")
        and (mib := re.match(r"(\d+) MiB$", value))
    ):
        # the frame buffer's size and use (as the table's Memory-Usage column gives them)
        if key == "Total":
            gpu.memory_total_mib = int(mib.group(1))
        else:
            gpu.memory_used_mib = int(mib.group(1))
    elif where in ("Clocks", "Max Clocks") and (mhz := re.fullmatch(r"(\d{1,6}) MHz", value)):
        # (the section named "Clocks" alone is the current one; "Applications Clocks", "Default
        # Applications Clocks" and "Max Customer Boost Clocks" are settings, not what it runs at)
        if where == "Clocks":
            gpu.clocks_mhz[key] = int(mhz.group(1))
            gpu.clock_lines[key] = line
        else:
            gpu.max_clocks_mhz[key] = int(mhz.group(1))
    elif where == "Utilization" and key == "Gpu" and (pct := re.match(r"(\d+)\s*%$", value)):
        gpu.util_pct = int(pct.group(1))
        gpu.util_line = line
    elif where.startswith("Clocks ") and "Reasons" in where and value in ("Active", "Not Active"):
        # every reason the page lists, those in force kept by name (Idle, Applications Clocks
        # Setting, SW Power Cap ... as the CSV masks' names); the slowing ones judged apart
        active = gpu.clock_reasons.setdefault("active", [])
        if value == "Active":
            active.append(key)
            gpu.reason_lines.setdefault(key, line)
            if key in _SLOWING:
                gpu.throttled.append(key)


# ``nvidia-smi -q -x``: the same record as XML ("<ecc_errors>", "<volatile>", "<device_memory>0
# </device_memory>" on one line each, "<gpu id=\"00000000:07:00.0\">" opening a GPU's): read as
# the text form after its tags are turned into its keys, a line for a line
QUERY_XML_SIGNATURE = (
    r"^[ \t]*<(?:nvidia_smi_log|ecc_errors|ecc_mode|retired_pages|remapped_rows|"
    r"clocks_event_reasons|clocks_throttle_reasons)>[ \t]*$"
)
_XML_WORDS = {
    "ecc": "ECC", "gpu": "GPU", "id": "ID", "pcie": "PCIe", "sram": "SRAM", "dram": "DRAM",
    "l1": "L1", "l2": "L2", "cbu": "CBU", "shm": "SHM", "hw": "HW", "sw": "SW", "cuda": "CUDA",
}  # fmt: skip
_XML_VALUE_RE = re.compile(r"^(?P<indent>\s*)<(?P<tag>\w+)>(?P<value>[^<]*)</(?P=tag)>\s*$")
_XML_OPEN_RE = re.compile(r"^(?P<indent>\s*)<(?P<tag>\w+)(?P<attrs>\s[^>]*)?>\s*$")
_XML_GPU_ID_RE = re.compile(
    r'\bid="(?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])"'
)


def _xml_key(tag: str) -> str:
    return " ".join(_XML_WORDS.get(w, w.capitalize()) for w in tag.split("_"))


def xml_query_as_text(text: str) -> str:
    """``nvidia-smi -q -x`` in ``nvidia-smi -q``'s text form, a line for a line (a closing tag
    and anything else a blank line): each element's name as its key, nested by its depth."""
    out: list[str] = []
    depth = 0
    for line in text.splitlines():
        if m := _XML_VALUE_RE.match(line):
            out.append("    " * depth + f"{_xml_key(m.group('tag'))} : {m.group('value').strip()}")
        elif m := _XML_OPEN_RE.match(line):
            if m.group("tag") == "gpu" and (g := _XML_GPU_ID_RE.search(m.group("attrs") or "")):
                out.append(f"GPU {g.group('bus')}")  # a GPU's record, as the text form heads it
                depth = 1
            elif m.group("tag") == "nvidia_smi_log":
                # the root: its header fields (driver, CUDA, attached GPUs) stand at the left
                # margin in the text form, as "Driver Version : 430.64"
                out.append("")
                depth = 0
            else:
                out.append("    " * depth + _xml_key(m.group("tag")))
                depth += 1
        else:
            if line.strip().startswith("</"):
                depth = max(0, depth - 1)
            out.append("")
    return "\n".join(out)


# the log's header above its GPUs: "Driver Version : 580.105.06", "CUDA Version : 13.0" (or "Not
# Found" where no CUDA driver library is installed, as on a vGPU host). Driver 610 names the
# kernel-mode driver and the CUDA user-mode driver ("KMD Version : 610.88", "CUDA UMD Version :
# 13.3", as its banner does) and keeps the old lines with a note after the value ("Driver Version
# : 610.88 [Deprecated; will be removed in CUDA 14.0. Use KMD Version instead]"); the same two
# versions (cuda.core's system.get_driver_version: "the user-mode (UMD / CUDA) driver version and
# the kernel-mode (KMD / GPU) driver version")
_QUERY_VERSION_RE = re.compile(
    r"^(?P<key>Driver Version|KMD Version|CUDA Version|CUDA UMD Version)\s*:\s*"
    r"(?P<value>\d+(?:\.\d+)+)(?:\s*\[[^\]\n]*\])?\s*$",
    re.M,
)


def query_versions(text: str) -> tuple[str, str]:
    """The driver and CUDA versions of ``nvidia-smi -q``'s header ("" where not printed)."""
    found = {m.group("key"): m.group("value") for m in _QUERY_VERSION_RE.finditer(text)}
    return (
        found.get("KMD Version") or found.get("Driver Version", ""),
        found.get("CUDA UMD Version") or found.get("CUDA Version", ""),
    )


_SMI_COMMAND_RE = re.compile(r"\bnvidia-smi(?:\.exe)?\s+-")
"""A command line of nvidia-smi with its options (no line of its -q output holds one)."""


def parse_query(text: str) -> list[SmiGpu]:
    """The health sections of ``nvidia-smi -q`` per GPU (its ECC counts, row remapping, page
    retirement and the clock slowdowns active); raises ParseError when no section is there."""
    read = [g for g in query_records(text) if g.sections]
    if not read:
        raise ParseError("no nvidia-smi -q health section (ECC Errors, Remapped Rows, Clocks ...)")
    for gpu in read:
        gpu.core_clocks_said = _core_clocks_said(gpu)
    return read


def query_records(text: str) -> list[SmiGpu]:
    """Every GPU record of ``nvidia-smi -q`` with whatever fields it holds, a health section or
    not (a ``-d CLOCK`` or ``-d POWER`` page holds none)."""
    gpus: list[SmiGpu] = []
    current: SmiGpu | None = None
    stack: list[tuple[int, str]] = []  # (indent, section) of the sections the line is under
    by_gpu_line = False  # the output names each GPU's record by its own line (no grep guessing)
    headed = any(_QUERY_GPU_RE.match(line.strip()) for _, line, _ in numbered_lines(text))
    # the GPU a command line's "-i N" asked for ("nvidia-smi -i 3 -q | grep -A 12 Fabric"):
    # nvidia-smi(1) "-i, --id=ID  Display data for a single specified GPU", so everything that
    # command printed, grepped sections naming no GPU included, is that GPU's, not the list's
    # first; each command starts its own output, so what it prints is read apart from the last's.
    # One shell line may run several ("nvidia-smi -i 1 -q | grep Fabric; nvidia-smi -i 3 -q |
    # grep Fabric"): their outputs follow in turn, the next command's GPU once the last's record
    # has been printed; a list after one -i ("-i 1,3") gives its GPUs in turn the same way
    asked: int | None = None
    then_asked: list[int | None] = []  # the GPUs the line's later nvidia-smi commands ask for
    for no, line, _ in numbered_lines(text):
        if _SMI_COMMAND_RE.search(line):
            asked, *then_asked = _asked_ids(line)
            current, stack, by_gpu_line = None, [], False
            continue
        if not line.strip() or line.lstrip().startswith(("$", "[...]", "...", "=")):
            continue
        if m := _QUERY_GPU_RE.match(line.strip()):
            if current is not None and then_asked:
                asked = then_asked.pop(0)  # (the next command's record)
            current = SmiGpu(
                gpu=asked if asked is not None else len(gpus),
                name="",
                line=no,
                bus_id=m.group("bus"),
                query="q",
            )
            gpus.append(current)
            stack, by_gpu_line = [], True
            continue
        m = _QUERY_LINE_RE.match(line)
        if m is None:
            continue
        indent = len(m.group("indent").expandtabs())
        while stack and stack[-1][0] >= indent:
            stack.pop()
        key, value = m.group("key").strip(), (m.group("value") or "").strip()
        value = _MARKER_RE.sub("", value)  # (an arrow a copy put after the value: "Yes  <===")
        if m.group("value") is None:
            if (
                not stack
                and current is not None
                and key in current.sections
                and not by_gpu_line
                and (asked is None or then_asked)
            ):
                # the same section again with no GPU line between: a grep of it over several
                # GPUs ("nvidia-smi -q | grep -A4 'Remapped Rows'"), or the next command's on the
                # line: the next GPU's (under one -i N there is no next GPU: one GPU's record
                # printed it twice)
                if asked is not None:
                    asked = then_asked.pop(0)
                current = None
            stack.append((indent, key))  # a section's name
            continue
        if current is None:
            if headed or not (stack or key == "Product Name"):
                # the log's own header (Timestamp, Driver Version ..., and where the output
                # heads its GPUs by their lines, its sections above the first, such as "vGPU
                # Driver Capability" on a vGPU host): not a GPU's
                continue
            # a grepped section: the GPU -i asked for, else the next in the list
            current = SmiGpu(
                gpu=asked if asked is not None else len(gpus),
                name="",
                line=no,
                query="q",
            )
            gpus.append(current)
        _query_gpu(current, [s for _, s in stack], key, value, no)
    return gpus


def _core_clocks_said(gpu: SmiGpu) -> str:
    """The Graphics and SM clocks the GPU ran at, each with its Max Clocks where the page has
    them, and their lines: what a slowdown in force left of the core clocks (NVML's
    nvmlClocksThrottleReasonHwSlowdown and ...HwPowerBrakeSlowdown: "reducing the core clocks by
    a factor of 2 or more")."""
    core = [k for k in ("Graphics", "SM") if k in gpu.clocks_mhz]
    if not core:
        return ""
    said = ", ".join(
        f"{k} {gpu.clocks_mhz[k]} MHz"
        + (f" (of its Max Clocks {gpu.max_clocks_mhz[k]} MHz)" if k in gpu.max_clocks_mhz else "")
        for k in core
    )
    at = sorted(gpu.clock_lines[k] for k in core)
    return said + (f" (lines {at[0]}-{at[-1]})" if at[0] != at[-1] else f" (line {at[0]})")


# ``nvidia-smi --query-gpu=index,name,... --format=csv[,noheader]``: one CSV row a GPU, its fields
# those asked (the header, when printed, names them with their units: "memory.used [MiB]")
_QUERY_FIELD_NAMES = (
    r"(?:name|index|pci\.bus_id|uuid|driver_version|pstate|temperature\.gpu|"
    r"utilization\.(?:gpu|memory)|memory\.(?:total|used|free)|power\.draw|fan\.speed|clocks\.\w+|"
    r"clocks_(?:throttle|event)_reasons\.\w+|ecc\.errors\.[\w.]+|remapped_rows\.\w+)"
)
"""nvidia-smi --query-gpu field names a header may give right after its ``timestamp``."""
_QUERY_VALUE_FIELD = (
    r"(?:(?:clocks_(?:throttle|event)_reasons|ecc\.errors|retired_pages|remapped_rows|pcie\.link|"
    r"enforced\.power|temperature|utilization|power|clocks|mig\.mode)\.[a-z_]+(?:\.[a-z_]+)*"
    # (memory and fan only as nvidia-smi names them: a cgroup's "memory.current" is no GPU's)
    r"|memory\.(?:total|reserved|used|free)|fan\.speed|pstate)(?: \[[^\]\n]+\])?"
)
"""A --query-gpu field of one of nvidia-smi's dotted families (``nvidia-smi
--help-query-gpu``), one that can lead a header of values only (no index, name or bus id)."""
_QUERY_ANY_FIELD = r"[a-z_]+(?:\.[a-z_]+)*(?: \[[^\]\n]+\])?"
"""Any --query-gpu field after the first (``mig.mode.current``, ``serial``, ``fabric.state``)."""
_HEADERLESS_ROW = (
    r"(?:NVIDIA |GeForce |Tesla |Quadro |TITAN )[^,\n]{1,60}"
    r"(?:, (?:-?\d+(?:\.\d+)? ?(?:%|W|MiB|MHz|C)?|\[[^\]\n]{1,40}\]|P\d{1,2}|N/A)){3,}[ \t]*$"
)
"""A headerless --query-gpu row: a GPU's product name first, then three values or more (numbers
with their units, NVML's bracketed answers, a performance state)."""
_HEADERLESS_ROW_RE = re.compile(_HEADERLESS_ROW)
_VALUE_CELL = r"(?:-?\d+(?:\.\d+)?(?: ?[A-Za-z%]+)?|\[[^\]\n]{1,40}\]|N/A|P\d{1,2})"
"""One value of a --query-gpu row: a number with its unit, NVML's bracketed answer, N/A, a
performance state."""
QUERY_CSV_SIGNATURE = (
    # (a loop's option may stand before the query: "nvidia-smi -lms --query-gpu=...")
    r"nvidia-smi(?:\.exe)?(?:\s+-{1,2}[\w=]+)*\s+--query-gpu=[\w.,]+\s+--format=csv"
    # a copy of the command without its --format (its other options after the fields: "-l 1"),
    # its rows of values right under it
    r"|nvidia-smi(?:\.exe)?(?:\s+-{1,2}[\w=]+)*\s+--query-gpu=[\w.,]+"
    r"(?:[ \t]+-{1,2}[\w=]+(?:[ \t]+\d+)?)*[ \t]*\n"
    r"[ \t]*" + _VALUE_CELL + r"(?:, " + _VALUE_CELL + r")+[ \t]*$"
    r"|^(?:index|name|pci\.bus_id|uuid), [\w.]+(?: \[[^\]\n]+\])?(?:, [\w.]+(?: \[[^\]\n]+\])?)*\s*$"
    # a looped query's header led by its timestamp, then one of nvidia-smi's own field names
    r"|^timestamp, " + _QUERY_FIELD_NAMES + r"\b[^\n]*$"
    # the CSV put in columns (piped through "column -s, -t"): its header's names two spaces apart
    r"|^index(?: {2,}[\w.]+(?: \[[^\]\n]+\])?){2,}[ \t]*$"
    # a header of values only, led by a field of nvidia-smi's own dotted families
    r"|^" + _QUERY_VALUE_FIELD + r"(?:, " + _QUERY_ANY_FIELD + r")*[ \t]*$"
    # a listing of one GPU's fields, a "field: value" line each
    r"|^[ \t]*(?:ecc\.errors|remapped_rows|clocks_(?:throttle|event)_reasons)\.[\w.]+:[ \t]+\S"
    # rows of a query printed without its header or command (--format=csv,noheader): a GPU's
    # product name, then its values with their units
    r"|^" + _HEADERLESS_ROW
)
_COLUMN_HEADER_RE = re.compile(r"^index(?: {2,}[\w.]+(?: \[[^\]]+\])?){2,}\s*$")
# (a copy may drop the command's --format: the fields asked still name the rows' columns)
_QUERY_CSV_CMD_RE = re.compile(r"--query-gpu=(?P<fields>[\w.,]+)(?:\s+--format=csv[\w,-]*)?")
_CSV_HEADER_RE = re.compile(
    r"^(?:index|name|pci\.bus_id|uuid), [\w.]+(?: \[[^\]]+\])?(?:, [\w.]+(?: \[[^\]]+\])?)*\s*$"
    r"|^timestamp, " + _QUERY_FIELD_NAMES + r"\b[^\n]*$"
    r"|^" + _QUERY_VALUE_FIELD + r"(?:, " + _QUERY_ANY_FIELD + r")*\s*$"
)
RECOVERY_ACTIONS = ("None", "Reset", "Reboot", "Drain P2P", "Drain and Reset")
"""``gpu_recovery_action``'s values as nvidia-smi prints them."""
_CSV_INT = {
    "index": "gpu",
    "ecc.errors.corrected.aggregate.total": "ecc_aggregate_corrected",
    "ecc.errors.uncorrected.aggregate.total": "ecc_aggregate_uncorrected",
    "temperature.gpu": "temp_c",
    "utilization.gpu": "util_pct",
    "memory.used": "memory_used_mib",
    "memory.total": "memory_total_mib",
    "fan.speed": "fan_pct",
    "ecc.errors.uncorrected.volatile.total": "ecc_uncorrected",
    "ecc.errors.corrected.volatile.total": "ecc_corrected",
}


_CSV_WATTS = {"power.draw": "power_w", "power.limit": "power_cap_w"}
_FIELD_ALIASES = {"gpu_name": "name", "gpu_bus_id": "pci.bus_id", "gpu_uuid": "uuid"}
"""--query-gpu's other names for a field (``nvidia-smi --help-query-gpu``: "name" or "gpu_name",
"pci.bus_id" or "gpu_bus_id", "uuid" or "gpu_uuid"), as the advisor reads them."""
_CSV_READ_ERRORS = frozenset(
    {"[Unknown Error]", "[GPU is lost]", "[GPU requires reset]", "[Timeout]", "[ERR!]"}
)
"""Bracketed CSV values of NVML's read failures (its nvmlErrorString words the GPU's state gives:
NVML_ERROR_UNKNOWN, _GPU_IS_LOST, _RESET_REQUIRED, _TIMEOUT); the other bracketed values say the
field is not there or not to be read ("[N/A]", "[Not Supported]", "[Insufficient Permissions]",
a recent driver's "[Requested functionality has been deprecated]", "[Function Not Found]")."""


def read_errors(values: dict[str, str]) -> list[str]:
    """The fields of a --query-gpu row whose value is NVML's read failure (``[Unknown Error]``,
    ``[GPU is lost]`` ...), in the row's order."""
    return [key for key, value in values.items() if value in _CSV_READ_ERRORS]


def read_query_csv(text: str) -> QueryCsv:
    """``--query-gpu`` CSV rows as GPUs (the fields the advisor knows; the rest ignored; a query
    without ``index`` numbered in the rows' order; a loop's rows named by product name alone read
    as samples of the same GPUs, each GPU its latest, said in ``notes``); raises ParseError where
    no row is read."""
    fields: list[str] | None = None
    columned = False  # the rows' cells two or more spaces apart, not commas
    gpus: list[SmiGpu] = []  # (every one of them a CSV row's: query "csv")
    by_bus: dict[str, int] = {}  # a bus id → its GPU's place in ``gpus`` (its first sample's)
    by_index: dict[str, int] = {}  # an index → its GPU's place (a looped query's samples)
    samples: list[tuple[int, dict[str, str]]] = []  # a values-only query's rows (no GPU told)
    header_no = 0  # the header's (or command's) line: a values-only row follows it directly
    looped = False  # the command seen asked for a loop (-l, -lms)
    asked_id: int | None = None  # the command's -i N: the one GPU it asked for
    # rows named by product name alone (no index, bus id or uuid): each row's place in ``gpus``,
    # its line and its fields (samples of the same GPUs, where sampled_rows says so)
    named: list[tuple[int, int, dict[str, str]]] = []
    last_row = 0
    # the outputs the named rows came from: a header, a command, a prompt or any other line
    # between two of them ("== gpu-02 ==") starts another output (another host's, or another
    # run's), not another pass of one loop
    outputs: set[int] = set()
    output = 0
    for no, line, _ in numbered_lines(text):
        s = line.strip()
        if s and (not named or named[-1][1] != no - 1):
            output += 1  # (where this line is a named row, the line above was none)
        if (cmd := _QUERY_CSV_CMD_RE.search(s)) is not None:
            fields = [_FIELD_ALIASES.get(f, f) for f in cmd.group("fields").split(",")]
            header_no = last_row = no
            # (a looped query, -l / -lms: its rows are samples, not one a GPU)
            looped = bool(_LOOP_OPTION_RE.search(s))
            asked_id = int(i.group("id")) if (i := _ID_OPTION_RE.search(s)) else None
            continue
        if _CSV_HEADER_RE.match(s):
            fields = [
                _FIELD_ALIASES.get(f, f)
                for f in (re.sub(r"\s*\[[^\]]*\]$", "", f.strip()) for f in s.split(","))
            ]
            columned = False
            header_no = last_row = no
            continue
        if _COLUMN_HEADER_RE.match(s):
            fields = [re.sub(r"\s*\[[^\]]*\]$", "", f) for f in re.split(r" {2,}", s)]
            columned = True
            continue
        if (
            fields is None
            or s.startswith("#")
            or ("," not in s and not columned and len(fields) > 1)
        ):
            continue
        cells = (
            re.split(r" {2,}", s, maxsplit=len(fields) - 1)
            if columned
            else [c.strip() for c in s.split(",", len(fields) - 1)]
        )
        if len(cells) != len(fields):
            continue
        if [re.sub(r"\s*\[[^\]]*\]$", "", c) for c in cells] == fields:
            continue  # the header itself (a query whose first field no header pattern knows)
        values = dict(zip(fields, cells, strict=True))
        # (a looped query, -l: a GPU's later sample, by its bus id, replaces its earlier one)
        at = by_bus.get(values.get("pci.bus_id") or "")
        same = gpus[at] if at is not None else None
        if "index" in fields:
            if not (index := values["index"].split()[0] if values["index"] else "").isdigit():
                continue
            if looped and (earlier := by_index.get(index)) is not None:
                # (a looped query's later sample of a GPU: the latest one stands)
                at, same = earlier, gpus[earlier]
        elif looped and "name" in fields and "pci.bus_id" not in fields:
            # a looped query's rows by name alone: which GPU each sample is cannot be told
            samples.append((no, values))
            continue
        elif "name" in fields and values["name"]:
            # a query without the index field: nvidia-smi prints the GPUs in index order, a row
            # each, so a row's place in the list is its index
            index = str(same.gpu) if same is not None else str(len(gpus))
            if "pci.bus_id" not in fields and "uuid" not in fields:
                named.append((len(gpus), no, values))
                outputs.add(output)
        elif _BUS_ID_RE.fullmatch(values.get("pci.bus_id") or ""):
            # a query keyed by the GPU's bus id alone ("--query-gpu=pci.bus_id,mig.mode.current"):
            # the bus id names the GPU; its index is its place in the list (nvidia-smi prints
            # the GPUs in index order), or the one -i asked for
            index = (
                str(same.gpu)
                if same is not None
                else str(asked_id)
                if asked_id is not None and not gpus
                else str(len(gpus))
            )
        elif _GPU_UUID_RE.fullmatch(values.get("uuid") or ""):
            # a query keyed by the GPU's UUID ("--query-gpu=uuid,mig.mode.current"): the UUID
            # names the GPU; its index is its place in the list (nvidia-smi prints the GPUs in
            # index order), or the one -i asked for
            index = str(asked_id) if asked_id is not None and not gpus else str(len(gpus))
        elif _QUERY_STAMP_RE.match(values.get("timestamp", "")) or (
            looped and all(_CSV_VALUE_RE.match(c) for c in cells)
        ):
            # only values asked, each row stamped (a looped query, -l/-lms): nvidia-smi stamps
            # each GPU's row apart, so which GPU a row is cannot be told; kept as samples
            samples.append((no, values))
            continue
        elif (
            "timestamp" not in fields
            and header_no
            and no == last_row + 1
            and all(_CSV_VALUE_RE.match(c) for c in cells)
        ):
            # only values asked, once: nvidia-smi prints the GPUs in index order, a row each,
            # on the lines right under its header (a number further down is another command's)
            last_row = no
            index = str(len(gpus))
        else:
            continue
        gpu = _csv_gpu(values, int(index), no)
        if at is not None and same is not None and same.gpu == gpu.gpu:
            # (the widest link an earlier sample showed stays known: --help-query-gpu's
            # pcie.link.width.current "may be reduced when the GPU is not in use")
            seen = [same.pcie_width_widest, same.pcie_width_lanes.get("Current")]
            gpu.pcie_width_widest = max((w for w in seen if w is not None), default=None)
            gpus[at] = gpu
            continue
        if gpu.bus_id:
            by_bus.setdefault(gpu.bus_id, len(gpus))
        by_index.setdefault(str(gpu.gpu), len(gpus))
        gpus.append(gpu)
    if not gpus and not samples and fields is None:
        # rows printed without their header or command: each a GPU in index order, its name
        # known, its other columns not (which field each is, the query does not say)
        for no, line, _ in numbered_lines(text):
            if _HEADERLESS_ROW_RE.match(s := line.strip()):
                cells = [c.strip() for c in s.split(",")]
                gpu = SmiGpu(gpu=len(gpus), name=cells[0], line=no, query="csv")
                gpu.unreadable = [
                    f"column {at + 1}" for at, c in enumerate(cells) if c in _CSV_READ_ERRORS
                ]
                gpus.append(gpu)
    if not gpus and not samples and (listed := _field_listing(text)):
        # one GPU's fields listed a line each ("ecc.errors.corrected.aggregate.total:     170",
        # a script's print of the query's fields): that GPU, whichever it is
        gpus.append(_csv_gpu(listed[1], 0, listed[0]))
    notes: list[ParseWarning] = []
    if named and len(named) == len(gpus) and len(outputs) == 1:
        # every GPU read is a row named by product name alone, in one output: rows of a loop
        # are samples of the same GPUs, not one GPU each (rows of several outputs, each a
        # host's or a run's, stay a GPU each)
        passes = loop_passes([(no, values) for _, no, values in named])
        if passes is not None:
            per_pass = len(passes[-1])
            latest = [named[at] for at in passes[-1]]  # (each GPU's last whole sample)
            gpus = [_csv_gpu(values, at, no) for at, (_, no, values) in enumerate(latest)]
            notes.append(_samples_note([(no, values) for _, no, values in named], per_pass, passes))
        elif len(named) > MAX_NODE_GPUS:
            # too many rows for one host's GPUs, and no stamps that tell the passes apart: which
            # GPU a row is cannot be told
            raise ValuesOnlyQuery([(no, values) for _, no, values in named])
    if not gpus and samples:
        raise ValuesOnlyQuery(samples)
    if not gpus:
        raise ParseError("nvidia-smi --query-gpu: no CSV row with the GPU's index or name")
    return QueryCsv(gpus=gpus, notes=notes)


MAX_NODE_GPUS = 32
"""More rows named by product name alone than this are no list of one host's GPUs: the advisor's
bound, above the most GPUs one host's nvidia-smi lists (an HGX-2/DGX-2's 16, a 20-slot PCIe
server's 20): rows of a loop that samples the same GPUs."""
LOOP_GAP_S = 0.5
"""A row stamped this long or longer after the row above it starts the next pass of a loop:
nvidia-smi reads every GPU of one query in one pass, its rows' stamps milliseconds apart, and
``-l``'s interval is whole seconds (1 s at least)."""


def sampled_rows(rows: list[tuple[int, dict[str, str]]]) -> int | None:
    """How many GPUs a loop's rows (each named by product name alone) sample (see
    loop_passes); None where the rows do not show a loop."""
    passes = loop_passes(rows)
    return len(passes[-1]) if passes is not None else None


def loop_passes(rows: list[tuple[int, dict[str, str]]]) -> list[list[int]] | None:
    """A loop's whole passes over its GPUs (each pass its rows' places in ``rows``), where the
    rows' stamps tell its passes apart: every row stamped, the stamps running forward, at least
    two passes (split where a stamp is LOOP_GAP_S or more after the row above), at least one of
    them whole, and every pass the same GPUs by name in the same order, but for a first pass
    the copy cut at its start (the whole one's last rows) and a last one cut at its end (its
    first rows), left out; None where the rows do not show a loop so."""
    stamps = [_stamp_s(values.get("timestamp", "")) for _, values in rows]
    if len(rows) < 2 or any(s is None for s in stamps):
        return None
    seconds = [s for s in stamps if s is not None]
    if any(b < a for a, b in itertools.pairwise(seconds)):
        return None
    passes: list[list[int]] = [[]]
    for at in range(len(rows)):
        if at and seconds[at] - seconds[at - 1] >= LOOP_GAP_S:
            passes.append([])
        passes[-1].append(at)
    if len(passes) < 2:
        return None
    names = [[rows[at][1].get("name", "") for at in p] for p in passes]
    whole = max(names, key=len)
    if any(n != whole for n in names[1:-1]):
        return None
    first, last = names[0], names[-1]
    if first != whole and (len(passes) < 3 or first != whole[len(whole) - len(first) :]):
        return None
    if last != whole and last != whole[: len(last)]:
        return None
    kept = [p for p, n in zip(passes, names, strict=True) if n == whole]
    return kept if kept else None


def _stamp_s(stamp: str) -> float | None:
    """nvidia-smi's ``timestamp`` ("2026/02/25 10:04:37.416") in seconds; None for another
    value."""
    if not _QUERY_STAMP_RE.match(stamp := stamp.strip()):
        return None
    day, clock = stamp.split(" ")
    year, month, mday = (int(x) for x in day.split("/"))
    hours, minutes, seconds = clock.split(":")
    # (days by a proleptic count: only differences between two stamps are used; a date that is
    # none, zeroed by a redaction or no day of its month, is no stamp)
    try:
        days = date(year, month, mday).toordinal()
    except ValueError:
        return None
    return days * 86400 + int(hours) * 3600 + int(minutes) * 60 + float(seconds)


def _samples_note(
    rows: list[tuple[int, dict[str, str]]], per_pass: int, passes: list[list[int]]
) -> ParseWarning:
    """A loop's samples of the same GPUs in words: how many, their span, each field's range."""
    first, last = rows[0][1], rows[-1][1]
    cut = len(rows) - len(passes) * per_pass
    names = ", ".join(dict.fromkeys(values.get("name", "") for _, values in rows))
    ranges = []
    for key in first:
        if key in ("name", "timestamp"):
            continue
        values = [v[key] for _, v in rows if v.get(key)]
        numbers = [float(m.group(0)) for v in values if (m := re.match(r"-?\d+(?:\.\d+)?", v))]
        unit = values[0].split(" ", 1)[1] if values and " " in values[0] else ""
        if numbers and len(numbers) == len(values):
            low, high = min(numbers), max(numbers)
            shown = f"{low:g}" if low == high else f"{low:g}-{high:g}"
            ranges.append(f"{key} {shown}{f' {unit}' if unit else ''}")
        elif values:
            ranges.append(f"{key} {', '.join(dict.fromkeys(values))}")
    return ParseWarning(
        line=rows[0][0],
        message=f"nvidia-smi --query-gpu: {len(rows)} rows, {len(passes)} samples of "
        f"{per_pass} GPU(s) ({names}), {first.get('timestamp')} to {last.get('timestamp')} (no "
        "index or bus id; a row stamped half a second or more after the one above starts the "
        "next sample): each GPU read from its latest "
        + ("sample" if cut == 0 else f"whole sample ({cut} row(s) of a sample the copy cut)")
        + "; "
        + "; ".join(ranges),
        skipped=False,
    )


@dataclass(kw_only=True)
class QueryCsv:
    """A ``--query-gpu`` output read: its GPUs, and what the reading says of them (a loop's
    samples of the same GPUs)."""

    gpus: list[SmiGpu]
    notes: list[ParseWarning] = field(default_factory=list)


def parse_query_csv(text: str) -> list[SmiGpu]:
    """``--query-gpu`` CSV rows as GPUs (read_query_csv's GPUs)."""
    return read_query_csv(text).gpus


_FIELD_LINE_RE = re.compile(
    # (the value taken to the line's end and stripped: a lazy one before "\s*$" retries at
    # every blank of a long run)
    r"^[ \t]*(?P<key>" + _QUERY_VALUE_FIELD + r"):[ \t]+(?P<value>\S[^\n]*)"
)
FIELD_LISTING_MIN = 2
"""How many ``field: value`` lines of nvidia-smi's fields make a listing of one GPU's."""


def _field_listing(text: str) -> tuple[int, dict[str, str]] | None:
    """A listing of one GPU's --query-gpu fields, a ``field: value`` line each: its first line
    and its values; None where fewer than FIELD_LISTING_MIN lines are there or a field repeats
    (several GPUs' listings: which is whose is not told)."""
    found = [(no, m) for no, line, _ in numbered_lines(text) if (m := _FIELD_LINE_RE.match(line))]
    keys = [re.sub(r"\s*\[[^\]]*\]$", "", m.group("key")) for _, m in found]
    if len(found) < FIELD_LISTING_MIN or len(set(keys)) != len(keys):
        return None
    return found[0][0], {k: m.group("value").strip() for k, (_, m) in zip(keys, found, strict=True)}


# NVML's clock throttle (event) reason bits, as nvidia-ml-py's pynvml.py defines its
# nvmlClocksThrottleReason* constants (GpuIdle 0x1 ... DisplayClockSetting 0x100); the names are
# those of the -q page's "Clocks Event Reasons" rows
THROTTLE_BITS = {
    0x1: "Idle",
    0x2: "Applications Clocks Setting",
    0x4: "SW Power Cap",
    0x8: "HW Slowdown",
    0x10: "Sync Boost",
    0x20: "SW Thermal Slowdown",
    0x40: "HW Thermal Slowdown",
    0x80: "HW Power Brake Slowdown",
    0x100: "Display Clock Setting",
}
_REASON_FIELDS = {
    "hw_slowdown": "HW Slowdown",
    "hw_thermal_slowdown": "HW Thermal Slowdown",
    "hw_power_brake_slowdown": "HW Power Brake Slowdown",
    "sw_thermal_slowdown": "SW Thermal Slowdown",
}


def throttle_mask_names(value: str) -> list[str] | None:
    """A throttle-reasons mask ("0x0000000000000044") as the reasons' names; None where the
    value is no mask."""
    if not re.fullmatch(r"0x[0-9A-Fa-f]+", value := value.strip()):
        return None
    mask = int(value, 16)
    return [name for bit, name in THROTTLE_BITS.items() if mask & bit]


def throttle_reasons(values: dict[str, str]) -> list[str]:
    """The slowing reasons (those of the -q page's ``_SLOWING``) a CSV row says are active: its
    ``clocks_throttle_reasons.active`` mask or a reason's own field reading "Active" (not the
    ``.supported`` mask: the reasons the GPU can report, not those in force)."""
    active: list[str] = []
    for key, value in values.items():
        family, _, reason = key.partition(".")
        if family not in ("clocks_throttle_reasons", "clocks_event_reasons"):
            continue
        if reason == "active":
            active += [n for n in throttle_mask_names(value) or [] if n in _SLOWING]
        elif reason in _REASON_FIELDS and value.strip() == "Active":
            active.append(_REASON_FIELDS[reason])
    return list(dict.fromkeys(active))


_CSV_VALUE_RE = re.compile(
    r"-?\d+(?:\.\d+)?(?: ?[A-Za-z%/]+)?$|0x[0-9A-Fa-f]+$|\[[^\]]+\]$|(?:Not )?Active$|"
    r"Enabled$|Disabled$|N/A$|P\d{1,2}$|Yes$|No$"
)
"""One cell of a values-only row without a time stamp: a number with its unit, a mask, a
bracketed NVML answer, a state word (a row of other words is not the query's)."""


def _csv_gpu(values: dict[str, str], index: int, no: int) -> SmiGpu:
    """One GPU of a ``--query-gpu`` output from its fields' values (a CSV row's, or a listing's
    ``field: value`` lines)."""
    gpu = SmiGpu(gpu=index, name=values.get("name", ""), line=no, query="csv")
    gpu.bus_id = values.get("pci.bus_id", "")
    gpu.driver_version = values.get("driver_version", "")
    if values.get("mig.mode.current") in ("Enabled", "Disabled"):
        gpu.mig_mode = values["mig.mode.current"]
    if values.get("mig.mode.pending") in ("Enabled", "Disabled"):
        gpu.mig_mode_pending = values["mig.mode.pending"]
    if _GPU_UUID_RE.fullmatch(values.get("uuid") or ""):
        gpu.uuid = values["uuid"]
    for key, attr in _CSV_INT.items():
        number = values.get(key, "").split(" ")[0]
        if number.isdigit():
            setattr(gpu, attr, int(number))
    for key, attr in _CSV_WATTS.items():
        # ("228.82" with nounits, "228.82 W" without): whole watts, as the table prints them
        if re.fullmatch(r"\d+(?:\.\d+)?", watts := values.get(key, "").split(" ")[0]):
            setattr(gpu, attr, round(float(watts)))
    # a field NVML could not read: "[Unknown Error]", "[GPU is lost]" (its error in words, in
    # brackets; "[N/A]" and "[Not Supported]" are fields the GPU does not have)
    gpu.unreadable = [k for k, v in values.items() if v in _CSV_READ_ERRORS]
    if gpu.name in _CSV_READ_ERRORS:
        gpu.name = ""  # (a row NVML could not read at all: its error in every cell)
    if gpu.bus_id in _CSV_READ_ERRORS:
        gpu.bus_id = ""
    gpu.sensors_only = bool(gpu.unreadable) and all(
        k.startswith(("power.", "fan.", "enforced.power")) for k in gpu.unreadable
    )
    for key, attr in (("remapped_rows.pending", "remap_pending"),
                      ("remapped_rows.failure", "remap_failed")):  # fmt: skip
        if values.get(key) in ("Yes", "No"):
            setattr(gpu, attr, values[key] == "Yes")
    for kind, into in (("gen", gpu.pcie_gen), ("width", gpu.pcie_width_lanes)):
        # the link's figures as -q's GPU Link Info prints them (--help-query-gpu:
        # pcie.link.{gen,width}.current, and .max "possible with this GPU and system
        # configuration"); nounits or not, each is a bare number
        for key, said in (("Current", "current"), ("Max", "max")):
            if (number := values.get(f"pcie.link.{kind}.{said}", "").strip()).isdigit():
                into[key] = int(number)
    width = gpu.pcie_width_lanes
    gpu.pcie_width_low = "Max" in width and width.get("Current", width["Max"]) < width["Max"]
    if re.fullmatch(r"P\d{1,2}", pstate := values.get("pstate", "").strip()):
        gpu.pstate = pstate
    gpu.throttled = throttle_reasons(values)
    gpu.clock_reasons = {
        key: names
        for key, value in values.items()
        if key.startswith(("clocks_throttle_reasons.", "clocks_event_reasons."))
        and (names := throttle_mask_names(value)) is not None
    }
    for key, attr in (("fabric.state", "fabric_state"), ("fabric.status", "fabric_status")):
        # the GPU's registration with the NVLink fabric, as -q's Fabric State and Status print it
        # (--help-query-gpu: fabric.state "Not Supported", "Not Started", "In Progress" or
        # "Completed"; fabric.status "Success" once completed, else NVML's error in words); a
        # bracketed "[N/A]" / "[Not Supported]" is a field the GPU does not have, no status
        if (value := values.get(key, "")) and not value.startswith("["):
            setattr(gpu, attr, value)
    if (action := values.get("gpu_recovery_action")) is not None:
        # (a value, then what a copy wrote after it: "Reset   <= GPU is unusable")
        gpu.recovery_action = next(
            (a for a in sorted(RECOVERY_ACTIONS, key=len, reverse=True) if action.startswith(a)),
            action.split()[0] if action else None,
        )
    return gpu


_LOOP_OPTION_RE = re.compile(r"\s(?:-l|-lms|--loop(?:-ms)?)(?:[=\s]+\d+)?(?=\s|$)")


def _asked_ids(line: str) -> list[int | None]:
    """The GPU each nvidia-smi command of a shell line asks for with -i (None for one that asks
    none, or names it otherwise than by its index), in the order they run: the line split at
    ";", "&" and "|", so a grep's own options after a pipe are not read as nvidia-smi's."""
    return [
        asked
        for part in _COMMAND_SPLIT_RE.split(line)
        if _SMI_COMMAND_RE.search(part)
        for asked in _listed_ids(part)
    ] or [None]


def _listed_ids(command: str) -> list[int | None]:
    """The GPUs one nvidia-smi command asks for with -i: one id, or a list of them ("-i 1,3",
    which nvidia-smi takes: "nvidia-smi -i 1,2,4" shows GPUs 1, 2 and 4, peci1/nvidia-htop
    pull request 22; the man page words -i for one GPU only), each record it prints one of
    them in turn.  A list out of ascending order gives [None]: in what order nvidia-smi prints
    such a list's GPUs is not documented."""
    if (i := _ID_LIST_OPTION_RE.search(command)) is None:
        return [None]
    ids = [int(n) for n in i.group("ids").split(",")]
    return list(ids) if ids == sorted(set(ids)) else [None]


_COMMAND_SPLIT_RE = re.compile(r"[;&|]")
_ID_OPTION_RE = re.compile(r"\s(?:-i|--id)[=\s]+(?P<id>\d+)(?=\s|$)")
"""nvidia-smi's ``-i N`` / ``--id=N`` by index (a bus id or UUID there names no index)."""
_ID_LIST_OPTION_RE = re.compile(r"\s(?:-i|--id)[=\s]+(?P<ids>\d{1,4}(?:,\d{1,4}){0,63})(?=\s|$)")
"""``-i N`` or a list of indices, ``-i 1,3`` (bounded: at most 64 ids)."""
_BUS_ID_RE = re.compile(r"[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]")
_GPU_UUID_RE = re.compile(r"GPU-[0-9A-Fa-f]{8}(?:-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}")
"""A GPU's UUID as --query-gpu's ``uuid`` prints it ("GPU-ec845691-fb46-e16d-abfb-b135308cb39f")."""
_QUERY_STAMP_RE = re.compile(r"^\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)?$")
"""nvidia-smi's ``timestamp`` field: "2024/01/16 14:44:16.977"."""


class ValuesOnlyQuery(ParseError):
    """A ``--query-gpu`` of values only (no index, name or bus id), its rows time-stamped:
    samples of GPUs it does not tell apart (``samples``: each row's line and its fields). No
    GPU is read from it; a caller that knows it says what the samples hold."""

    def __init__(self, samples: list[tuple[int, dict[str, str]]]) -> None:
        super().__init__(
            f"nvidia-smi --query-gpu: {len(samples)} time-stamped row(s) of values only (no "
            "index, name or bus id): which GPU each row is cannot be told",
            line=samples[0][0],
        )
        self.samples = samples


# ``nvidia-smi``'s "MIG devices:" table, printed under the GPUs' table where a GPU is in MIG
# mode: a device a block of two rows (a third, blank, in some drivers) of four cells under the
# header "GPU  GI  CI  MIG | Memory-Usage | Vol| Shared" / "ID  ID  Dev | BAR1-Usage | SM  Unc|
# CE ENC DEC OFA JPG" / "| ECC|" (from about driver 545 the memory cells are headed "Shared
# Memory-Usage" and "Shared BAR1-Usage"):
# "|  0    2   0   0  |  11091MiB / 40448MiB | 60      0 |  3   0    3    0    3 |", then
# "|                  |      0MiB / 24739MiB |           |                       |": the GPU, its GPU
# instance (GI), compute instance (CI) and MIG device index; the instance's memory used and
# total; its SM count and volatile uncorrectable ECC errors; the BAR1 memory on the second row.
# A GPU in MIG mode with no instance made prints "|  No MIG devices found  |".
_MIG_DEVICES_HEAD_RE = re.compile(r"^\|\s*MIG devices:\s*\|$")
_MIG_DEVICE_IDS_RE = re.compile(r"^(?P<gpu>\d+)\s+(?P<gi>\d+)\s+(?P<ci>\d+)\s+(?P<dev>\d+)$")
_MIG_DEVICE_SM_RE = re.compile(r"^(?P<sm>\d+)\s+(?P<ecc>\d+|N/A|ERR!|-)$")


@dataclass(kw_only=True)
class MigDevice:
    """One MIG device of ``nvidia-smi``'s "MIG devices:" table."""

    line: int
    gpu: int
    gpu_instance: int
    compute_instance: int
    mig_device: int
    memory_used_mib: int | None = None
    memory_total_mib: int | None = None
    sm_count: int | None = None
    ecc_uncorrected: int | None = None
    """Volatile uncorrectable ECC errors of the instance; None where not a count (N/A)."""


@dataclass(kw_only=True)
class MigDevices:
    """The "MIG devices:" table: its devices, or that it lists none."""

    line: int
    devices: list[MigDevice] = field(default_factory=list)
    none_found: bool = False
    """The table says "No MIG devices found" (MIG mode on, no GPU instance made)."""
    cut: bool = False
    """The copy ends inside the table (a device's rows, or before its closing border): the
    devices after that are unknown."""


def parse_mig_devices(text: str) -> MigDevices | None:
    """nvidia-smi's "MIG devices:" table, or None where the text has none."""
    table: MigDevices | None = None
    closed = False
    for no, line, _ in numbered_lines(text):
        s = line.strip()
        if table is None:
            if s.startswith("| MIG devices") and _MIG_DEVICES_HEAD_RE.match(s):
                table = MigDevices(line=no)
            continue
        if not s or s[0] not in "|+" or "Processes:" in s:
            break  # the table ends at its blank line, the next table, or other text
        if s[0] == "+":
            closed = True
            continue
        closed = False
        if "No MIG devices found" in s:
            table.none_found = True
            continue
        cells = [c.strip() for c in s.strip("|").split("|")]
        if len(cells) < 3:
            continue
        if ids := _MIG_DEVICE_IDS_RE.match(cells[0]):
            device = MigDevice(
                line=no,
                gpu=int(ids.group("gpu")),
                gpu_instance=int(ids.group("gi")),
                compute_instance=int(ids.group("ci")),
                mig_device=int(ids.group("dev")),
            )
            if memory := _SMI_MEMORY_RE.match(cells[1]):
                device.memory_used_mib = int(memory.group("used"))
                device.memory_total_mib = int(memory.group("total"))
            if sm := _MIG_DEVICE_SM_RE.match(cells[2]):
                device.sm_count = int(sm.group("sm"))
                if sm.group("ecc").isdigit():
                    device.ecc_uncorrected = int(sm.group("ecc"))
            table.devices.append(device)
    if table is not None:
        table.cut = not closed
    return table


# ``nvidia-smi mig -lgip``: the GPU instance profiles each MIG-enabled GPU offers, how many of
# each can still be created ("Instances Free/Total"): "|   0  MIG 1g.10gb       19     0/7
# 9.50       No     14     0     0   |"
MIG_PROFILES_SIGNATURE = r"^\|\s*GPU instance profiles:\s*\|"
_MIG_PROFILE_RE = re.compile(
    r"^\|\s*(?P<gpu>\d+)\s+MIG (?P<name>\S+)\s+(?P<id>\d+)\s+(?P<free>\d+)/(?P<total>\d+)\s+"
    r"(?P<mem>[\d.]+)\s"
)


@dataclass(kw_only=True)
class MigProfile:
    line: int
    gpu: int
    name: str
    profile_id: int
    free: int
    total: int
    memory_gib: float


def parse_mig_profiles(text: str) -> list[MigProfile]:
    """Each row of ``nvidia-smi mig -lgip``; ParseError when none is there."""
    rows = [
        MigProfile(
            line=no,
            gpu=int(m.group("gpu")),
            name=m.group("name"),
            profile_id=int(m.group("id")),
            free=int(m.group("free")),
            total=int(m.group("total")),
            memory_gib=float(m.group("mem")),
        )
        for no, line, _ in numbered_lines(text)
        if (m := _MIG_PROFILE_RE.match(line.strip()))
    ]
    if not rows:
        raise ParseError("no 'MIG <profile>' row under 'GPU instance profiles:'")
    return rows


LIST_SIGNATURE = (
    # (a UUID its copy's author masked, "GPU-XXXXXXXX-XXXX-XXXX-5560-...", is still a listing)
    r"^GPU \d+: [^\n]+? \(UUID: GPU-[0-9a-fA-FxX*-]+\)[ \t]*"
    # the next GPU's line, a MIG device's, or the end: nvlink -s and other queries print their
    # own lines under each GPU's
    r"(?=\n(?:GPU \d+: |[ \t]+MIG \S+\s+Device\s+\d+:)|\s*\Z)"
)
_LIST_GPU_RE = re.compile(
    r"^GPU (?P<gpu>\d+): (?P<name>.+?) \(UUID: (?P<uuid>GPU-[0-9a-fA-FxX*-]+)\)"
)
# a UUID masked whole ("GPU-XXXXXXXX-XXXX-..."): no hex digit of the GPU's own left to tell it by
_UUID_HEX_RE = re.compile(r"[0-9a-fA-F]")
# a MIG device under its GPU: "  MIG 1g.20gb     Device  0: (UUID: MIG-ce861fb0-...)"
_LIST_MIG_RE = re.compile(r"^\s+MIG (?P<profile>\S+)\s+Device\s+(?P<dev>\d+): \(UUID: MIG-")
# what ``nvidia-smi nvlink`` prints under its own copy of -L's GPU line (a link's state, counter,
# peer or capability, NVML's answer that none is up, its MIG refusal; NVLINK_STATUS_RE above, and
# the "# nvidia-smi nvlink -s" block of tests/data/evidence_heldout_60/hpe_dl380g11_2x_a100_*.txt,
# code index id 18373896745): that GPU line heads another query's answer, not a listing
_NVLINK_UNDER_GPU_RE = re.compile(r"^\s*(?:Link \d+[:,]|NVML: |Nvlink queries )")


@dataclass(kw_only=True)
class ListedGpu:
    """A GPU as ``nvidia-smi -L`` lists it, with the MIG devices listed under it."""

    line: int
    gpu: int
    name: str
    uuid: str
    mig: list[str] = field(default_factory=list)
    """Each MIG device's profile ("1g.20gb"), in the order listed."""
    listing: int = 0
    """Which listing of the file its line is in, counted from 0: a run of GPU and MIG lines,
    ended by any other line (the next command's prompt, another tool's output)."""
    seen_again: list[ListedGpu] = field(default_factory=list)
    """Later listings of this same GPU (its UUID) in the file: another ``nvidia-smi -L`` of the
    host, as a job sees it (inside ``salloc``: only the MIG devices it was given), each with its
    own line and MIG devices; not another GPU."""


def parse_list(text: str) -> list[ListedGpu]:
    """``nvidia-smi -L``'s GPUs, each once (a UUID listed again is the same GPU, its later view
    kept in ``seen_again``; the same line heading an ``nvlink`` answer is not a listing);
    ParseError when none is listed."""
    gpus: list[ListedGpu] = []
    by_uuid: dict[str, ListedGpu] = {}
    last: ListedGpu | None = None  # the GPU the MIG lines under it belong to
    listing, in_listing = -1, False
    lines = numbered_lines(text)
    for index, (no, line, _) in enumerate(lines):
        under = lines[index + 1][1] if index + 1 < len(lines) else ""
        m = _LIST_GPU_RE.match(line.strip())
        if m and _NVLINK_UNDER_GPU_RE.match(under):
            last, in_listing = None, False
        elif m:
            listing += not in_listing
            in_listing = True
            last = ListedGpu(
                line=no,
                gpu=int(m.group("gpu")),
                name=m.group("name"),
                uuid=m.group("uuid"),
                listing=listing,
            )
            # a UUID is the GPU's own (NVML's nvmlDeviceGetUUID): two listings of it are one
            # GPU seen twice (the host's view, then a job's), not two GPUs
            # (one masked whole names no GPU: each such line is its own)
            known = _UUID_HEX_RE.search(last.uuid, 4) is not None
            if known and (first := by_uuid.get(last.uuid)) is not None:
                first.seen_again.append(last)
            else:
                by_uuid[last.uuid] = last
                gpus.append(last)
        elif last is not None and (m := _LIST_MIG_RE.match(line)):
            last.mig.append(m.group("profile"))
        elif line.strip():
            in_listing = False
    if not gpus:
        raise ParseError("no 'GPU N: NAME (UUID: GPU-...)' line of nvidia-smi -L")
    return gpus


# ``nvidia-smi mig -lgi``: the GPU instances created on each MIG-enabled GPU ("|   3  MIG 1g.10gb
# 19        7          0:1     |": GPU, profile name and id, instance id, placement start:size)
MIG_INSTANCES_SIGNATURE = r"^\|\s*GPU instances:\s*\|"
_MIG_INSTANCE_RE = re.compile(
    r"^\|\s*(?P<gpu>\d+)\s+MIG (?P<name>\S+)\s+(?P<profile>\d+)\s+(?P<id>\d+)\s+"
    r"(?P<start>\d+):(?P<size>\d+)\s*\|"
)


def parse_mig_instances(text: str) -> dict[int, list[tuple[int, str, int]]]:
    """``nvidia-smi mig -lgi``'s instances per GPU: (line, profile name, instance id) each;
    ParseError when no row is there."""
    found: dict[int, list[tuple[int, str, int]]] = {}
    for no, line, _ in numbered_lines(text):
        if m := _MIG_INSTANCE_RE.match(line.strip()):
            found.setdefault(int(m.group("gpu")), []).append(
                (no, m.group("name"), int(m.group("id")))
            )
    if not found:
        raise ParseError("no 'MIG <profile>' row under 'GPU instances:'")
    return found


# ``nvidia-smi mig -cgi PROFILES [-C]``'s answer per instance asked (nvidia-smi's MIG commands,
# NVIDIA's MIG user guide, "Creating GPU Instances"): "Successfully created GPU instance ID  5 on
# GPU  0 using profile MIG 1g.24gb (ID 15)", its compute instance's line under it with -C, or
# "Unable to create a GPU instance on GPU  0 using profile 20: In use by another client" (NVML's
# error string), then "Failed to create GPU instances: REASON" once for the command
_MIG_CREATED_RE = re.compile(
    r"^Successfully created GPU instance ID +(?P<id>\d+) on GPU +(?P<gpu>\d+) using profile "
    r"MIG (?P<name>\S+) \(ID +(?P<profile>\d+)\)"
)
_MIG_CREATE_FAILED_RE = re.compile(
    r"^Unable to create a GPU instance on GPU +(?P<gpu>\d+) using profile +(?P<profile>[^:\s]+): "
    r"(?P<why>\S.*)"
)
MIG_CREATE_WHY = {
    "In use by another client": "a process holds the GPU (NVML_ERROR_IN_USE): MIG instances are "
    "created only on a GPU no process has open (fuser -v /dev/nvidia* names them)",
    "Insufficient Resources": "the GPU has no room left for the instances asked "
    "(NVML_ERROR_INSUFFICIENT_RESOURCES): more of the profile than mig -lgip's free count, or "
    "slices other instances take",
}
"""What nvidia-smi's reasons for a GPU instance it could not create mean (NVML's error
strings)."""


@dataclass(kw_only=True)
class MigCreate:
    """One GPU instance ``nvidia-smi mig -cgi`` created, or could not."""

    line: int
    gpu: int
    profile: str
    """The profile as the line names it: its id where it failed (``20``), ``1g.24gb (ID 15)``
    where it was created."""
    instance: int | None = None
    """The GPU instance id created; None where it failed."""
    why: str | None = None
    """nvidia-smi's reason where it failed (``In use by another client``)."""


def parse_mig_create(text: str) -> list[MigCreate]:
    """Each GPU instance ``nvidia-smi mig -cgi`` created or failed to create, in order (empty
    where the text holds none of its lines)."""
    found: list[MigCreate] = []
    for no, line, _ in numbered_lines(text):
        stripped = line.strip()
        if m := _MIG_CREATED_RE.match(stripped):
            found.append(
                MigCreate(
                    line=no,
                    gpu=int(m.group("gpu")),
                    profile=f"{m.group('name')} (ID {m.group('profile')})",
                    instance=int(m.group("id")),
                )
            )
        elif m := _MIG_CREATE_FAILED_RE.match(stripped):
            found.append(
                MigCreate(
                    line=no,
                    gpu=int(m.group("gpu")),
                    profile=m.group("profile"),
                    why=_WRAP_GAP_RE.sub("", m.group("why")).strip(),
                )
            )
    return found


# ``nvidia-smi dmon`` (nvidia-smi(1), DEVICE MONITORING): a names line "# gpu   pwr gtemp ..."
# over a units line "# Idx     W     C ..." (with ``-o DT``: "#Date       Time        gpu ..."
# over "#YYYYMMDD   HH:MM:SS    Idx ..."), then a row a GPU each interval, the two lines printed
# again now and then; "-" where the GPU has no such figure. ``-s`` picks the groups: p power (W)
# and GPU/memory temperature (C), u SM/memory/encoder/decoder utilisation (%), c memory and
# processor clocks (MHz), v power violations (pviol, %) and thermal violations (tviol, "as a
# boolean flag"), m frame buffer and BAR1 use (MB), e ECC ("Number of aggregated single bit,
# double bit ecc errors": sbecc, dbecc) and PCIe replay errors (pci), t PCIe rx/tx (MB/s). Older
# drivers print "temp" for gtemp and no mtemp. (``nvidia-smi pmon``'s names line is "# gpu  pid
# type ...": a process a row, not a GPU: not this.)
DMON_SIGNATURE = (
    r"^[ \t]*#[ \t]*(?:Date[ \t]+)?(?:Time[ \t]+)?gpu(?![ \t]+pid\b)(?:[ \t]+[a-z][a-z0-9]*)+"
    r"[ \t]*\r?\n[ \t]*#[ \t]*(?:YYYYMMDD[ \t]+)?(?:HH:MM:SS[ \t]+)?Idx\b"
)
_DMON_NAMES_RE = re.compile(
    r"^\s*#\s*(?P<names>(?:Date\s+)?(?:Time\s+)?gpu(?:\s+[a-z][a-z0-9]*)+)\s*$"
)
_DMON_UNITS_RE = re.compile(
    r"^\s*#\s*(?P<units>(?:YYYYMMDD\s+)?(?:HH:MM:SS\s+)?Idx(?:\s+\S+)*)\s*$"
)


@dataclass(kw_only=True)
class DmonSample:
    """One row of ``nvidia-smi dmon``: one GPU at one interval."""

    gpu: int
    """nvidia-smi's index of the GPU (the ``gpu`` column)."""
    line: int
    values: dict[str, str]
    """Column name (``pwr``, ``gtemp``, ``pviol`` ...) → its value as printed (``-`` kept)."""


@dataclass(kw_only=True)
class Dmon:
    samples: list[DmonSample]
    units: dict[str, str]
    """Column name → its unit as the units line prints it (``W``, ``C``, ``%``, ``bool``, ``MB``,
    ``errs``, ``MB/s``)."""
    notes: list[ParseWarning] = field(default_factory=list)
    unanswered: list[DmonUnanswered] = field(default_factory=list)
    """The rows where dmon could read none of a GPU's figures it had read before."""


@dataclass(kw_only=True)
class DmonUnanswered:
    """A row of ``nvidia-smi dmon`` that prints "-" in every column it has, where an earlier
    row of the same GPU printed a figure: nvidia-smi(1), DEVICE MONITORING: "If any of the
    metric is not supported on the device or any other error in fetching the metric is reported
    as "-" in the output data"; a metric the GPU gave before is supported, so its "-" is a
    fetch that failed: the GPU (or its driver) stopped answering."""

    gpu: int
    line: int
    row: str
    """The row as printed (its blanks kept inside it)."""
    before: dict[str, str]
    """Each column that reads "-" in this row → its figures in the GPU's earlier rows, as
    printed ("73", "37-38")."""
    columns: int
    """How many of the header's columns the row has (fewer where the output stops inside it)."""
    of_columns: int
    rows: int = 1
    """How many rows of the GPU in a row read so (the first of them this one)."""
    last_line: int = 0
    """The line of the last of them."""
    answered_again: int | None = None
    """The line of a later row of the GPU with a figure (it answered again), or None."""
    last: bool = False
    """No row of any GPU follows the last of them: the output ends there."""


_DMON_KEYS = ("Date", "Time", "gpu")
"""dmon's columns that name a row, not a figure of the GPU."""
_DMON_NUMBER_RE = re.compile(r"\d{1,12}(?:\.\d{1,6})?")


def _dmon_range(low: float, high: float) -> str:
    return f"{low:g}" if low == high else f"{low:g}-{high:g}"


def parse_dmon(text: str) -> Dmon:
    """Every GPU row of ``nvidia-smi dmon``'s table; raises ParseError where there is none. A
    row whose figures do not fill its header's columns (a copy cut inside it) is said, not
    read; a row of "-" only where the GPU printed figures before is one it did not answer
    (``Dmon.unanswered``), whether it fills its columns or stops inside them."""
    names: list[str] | None = None
    units: dict[str, str] = {}
    samples: list[DmonSample] = []
    notes: list[ParseWarning] = []
    unanswered: list[DmonUnanswered] = []
    last_row = 0  # the line of the table's last GPU row
    # each GPU's figures so far, a column's lowest and highest (kept as the rows come: each row
    # looked at once however long the table)
    seen: dict[int, dict[str, tuple[float, float]]] = {}
    dark: dict[int, DmonUnanswered] = {}  # the GPU's unanswered row not yet answered after
    for no, line, _ in numbered_lines(text):
        if m := _DMON_NAMES_RE.match(line):
            if "pid" not in (names_now := m.group("names").split()):
                names = names_now
            continue
        if names is None:
            continue
        if m := _DMON_UNITS_RE.match(line):
            said = m.group("units").split()
            if len(said) == len(names):
                units = dict(zip(names, said, strict=True))
            continue
        values = line.split()
        if not values or values[0].startswith("#"):
            continue
        at = names.index("gpu")
        if len(values) <= len(names) and len(values) > at and values[at].isdigit():
            last_row = no
            gpu = int(values[at])
            figures = {
                n: float(v)
                for n, v in zip(names, values, strict=False)
                if n not in _DMON_KEYS and _DMON_NUMBER_RE.fullmatch(v)
            }
            had = seen.setdefault(gpu, {})
            before = {
                n: _dmon_range(*had[n])
                for n, v in zip(names, values, strict=False)
                if n not in _DMON_KEYS and v == "-" and n in had
            }
            read = [v for n, v in zip(names, values, strict=False) if n not in _DMON_KEYS]
            if before and all(v == "-" for v in read):
                if gpu in dark:
                    dark[gpu].rows += 1  # (the same silence going on)
                    dark[gpu].last_line = no
                else:
                    dark[gpu] = DmonUnanswered(
                        gpu=gpu,
                        line=no,
                        row=line.strip(),
                        before=before,
                        columns=len(values),
                        of_columns=len(names),
                        last_line=no,
                    )
                    unanswered.append(dark[gpu])
                if len(values) < len(names):
                    continue  # (said as unanswered, not as a copy cut)
            elif figures and len(values) == len(names):
                if gpu in dark and set(figures) & set(dark[gpu].before):
                    dark.pop(gpu).answered_again = no
                for n, f in figures.items():
                    low, high = had.get(n, (f, f))
                    had[n] = (min(low, f), max(high, f))
        if len(values) != len(names) or not values[at].isdigit():
            if len(values) < len(names) and len(values) > at and values[at].isdigit():
                notes.append(
                    ParseWarning(
                        line=no,
                        message=f"nvidia-smi dmon: a row of GPU {values[at]} with "
                        f"{len(values)} of its {len(names)} columns (the copy cut it): not read",
                    )
                )
            continue
        samples.append(
            DmonSample(gpu=int(values[at]), line=no, values=dict(zip(names, values, strict=True)))
        )
    if not samples:
        raise ParseError("nvidia-smi dmon: no GPU row under its '# gpu ...' header")
    for row in dark.values():
        row.last = row.last_line == last_row
    return Dmon(samples=samples, units=units, notes=notes, unanswered=unanswered)
