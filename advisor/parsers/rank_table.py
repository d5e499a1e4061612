"""Ascend rank tables (``RANK_TABLE_FILE``, hccl.json) versions 1.0, 1.2 and 2.0, validated.

1.0: ``server_count`` and ``server_list[].device[] {device_id, device_ip, rank_id}``; the older
``group_list[].instance_list[].devices[]`` form is read too: the HCCL user guide's "template 2"
(its rank table table: ``status``, ``group_count``, ``group_list[] {group_name, instance_count,
device_count, instance_list[] {pod_name, server_id, devices[] {device_id, device_ip}}}``) has
neither ``version`` nor ``rank_id``, so neither is asked of it. GE's ``cluster_config.json``
(``aclgrphBuildInitialize`` option ``CLUSTER_CONFIG``, hicann/ge docs) wraps a 1.2 table in
``{"RankTable": {...}, "HcclCommConfig": {...}}``: the inner object is read. 1.2 (SuperPoD) adds
``super_device_id`` per device and a ``super_pod_list``. The global rank table MindCluster's
ClusterD writes for multi-role (prefill/decode) jobs nests that per role:
``server_group_list[] {group_id, server_count, server_list[] {server_id, server_ip, device[]},
super_pod_list (1.2)}`` (MindCluster "global-ranktable" documentation, Atlas A2 1.0 and Atlas A3
1.2 examples); each group numbers its ranks from 0, so ranks are checked per group. Validation
never stops at the first problem: every duplicate device, duplicate or missing rank, count
mismatch and an unfinished ``status`` are listed in ``errors``.

vllm-ascend's prefill/decode (PD) rank table is a form of its own: ``version`` "1.2",
``server_count``, ``prefill_device_list`` and ``decode_device_list`` of devices ``{server_id,
device_id, device_ip, cluster_id}`` (``super_pod_id`` and ``super_device_id`` on Atlas A3), and
``status`` (vllm-ascend ``examples/disaggregated_prefill/gen_ranktable.py`` writes it: one
``cluster_id`` per device, counted from 1 over all devices, the first devices prefill and the next
decode; ``server_count`` is the number of hosts that ran the script). It numbers no rank: its
LLMDataDist connector (``LLMDataDistCMgrConnectorWorker.read_agent_metadata``) picks a worker's
device by ``server_id`` and ``device_id``, takes ``device_ip`` and ``int(cluster_id)`` from it,
and builds a two-device rank table per prefill/decode link. So a device listed twice (in one list
or in both), a device IP given twice, a ``cluster_id`` repeated or not a number, a device without
``server_id``/``device_id``/``device_ip``, a missing list and more servers than ``server_count``
are its errors; ``super_pod_list`` is not asked of it.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from advisor.parsers import ParseError

VERSIONS = ("1.0", "1.2", "2.0")


@dataclass(kw_only=True)
class RankEntry:
    rank: int | None
    server_id: str
    device_id: str
    device_ip: str | None
    super_device_id: str | None = None
    group_id: str | None = None
    """``server_group_list`` group (one role of a multi-role job); None in the other forms."""
    role: str | None = None
    """``prefill`` or ``decode`` in vllm-ascend's PD form (the list it is in); None elsewhere."""
    cluster_id: str | None = None
    """vllm-ascend PD form: the device's LLMDataDist cluster id; None elsewhere."""
    device_port: str | None = None
    """``device_port`` as written (the Atlas A2 template's device NIC port); None when absent."""


@dataclass(kw_only=True)
class RankTable:
    version: str
    """As written; empty when the file has no ``version`` (the group_list template has none)."""
    status: str
    server_count: int | None
    """As declared by ``server_count``; None when absent."""
    servers: list[str]
    ranks: list[RankEntry]
    super_pods: dict[str, list[str]] = field(default_factory=dict)
    """Super pod id → its servers; ``<group_id>/<super_pod_id>`` in the ``server_group_list``
    form, where each group lists its own super pods."""
    errors: list[str] = field(default_factory=list)
    """Everything that would make HCCL reject the table or build a wrong communicator."""
    groups: list[str] = field(default_factory=list)
    """``group_id`` of each ``server_group_list`` entry, in order; empty in the other forms."""
    wrapper: str = ""
    """``RankTable`` when the table was read from inside GE's cluster_config wrapper."""
    wrapper_line: int = 0
    """1-based line of the wrapper's key; 0 when not wrapped."""
    form: str = ""
    """``prefill_decode`` for vllm-ascend's PD table, ``mindie_global`` for MindIE MS's global
    rank table; empty for HCCL's own forms."""
    elided_lines: list[int] = field(default_factory=list)
    """Lines that held only ``...`` (entries left out where the table was pasted): the table is
    read without them, and the checks that need all of it (counts, rank numbering) are not made."""
    cut: bool = False
    """The text ends before the table closes: read as far as it goes, without those checks."""
    headless: bool = False
    """The copy starts at one of the table's lists (its opening brace and the keys before it
    left out): read from there, without those checks."""
    server_entry: bool = False
    """The copy starts inside one server's entry (its keys or its device list): the table around
    it (version, counts, the other servers) is unknown."""
    braceless: bool = False
    """Only the table's opening brace is missing (a document that printed it from its first
    key): read whole, with every check; not valid JSON as it stands."""
    comment_lines: list[int] = field(default_factory=list)
    """Lines holding a ``//`` or ``#`` comment: the table is read with them set aside, every
    check made; as written a JSON parser (HCCL's among them) refuses it. Their error is
    ``errors[0]``."""

    @property
    def valid(self) -> bool:
        return not self.errors


# A table pasted into an issue or a note often stands for its left-out entries with a line of
# "..." between two of them; such a line is not JSON. Tables typed by hand carry commas before a
# closing bracket, and a copy may end before the table closes.
_ELISION_RE = re.compile(r"^[ \t]*(?:\.\.\.|…)[ \t]*,?[ \t]*$", re.M)
_TRAILING_COMMA_RE = re.compile(r",(\s*[\]}])")
_PLACEHOLDER_RE = re.compile(
    r"[xX]+(?:\.[xX]+){0,3}|\*+|<[^>]*>|\$?\{[^{}]*\}|\.{3,}|…"
    # (a name in square brackets, ModelZoo's templates: "[server_id]", "[device_ip_0]")
    r"|\[[A-Za-z_][\w-]*\]"
    # a template's upper-case name for the value ("SERVER_IP", "DEVICE_IP", "HOST_ID")
    r"|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:IP|ID|ADDR(?:ESS)?)"
)
"""What documentation writes for an address it leaves out ("xxx", "xx.xx.xx.xx", "<device_ip>", a
template's "{device_0_ip}" or "${DEVICE_IP}")."""


_MASKED_ADDRESS_RE = re.compile(r"(?:\d{1,3}|\*+|[xX]+)(?:\.(?:\d{1,3}|\*+|[xX]+)){3}")


def _is_address(value: str | None) -> bool:
    """A value given as an address (an IPv4 or IPv6 one, or one a document masked in part,
    "10.*.*.*"), not a placeholder a template left for one ("xxx", "<device_ip>", "device_ip")
    nor the dashes a generator writes where it found none ("-.-.-.-")."""
    text = str(value or "").strip()
    if not text or _PLACEHOLDER_RE.fullmatch(text):
        return False
    try:
        ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return bool(_MASKED_ADDRESS_RE.fullmatch(text)) and any(c.isdigit() for c in text)
    return True


def masked_id(value: str | None) -> bool:
    """An id a document masked or left as a placeholder ("10.*.*.*", "xx.xx.xx.xx"); a host's
    name is an id too (a server_id need be no address)."""
    text = str(value or "").strip()
    # (the unspecified address, 0.0.0.0 or ::, names no host: a template's value for "this
    # server", as a model zoo README's table leaves it for the reader's own IP)
    return bool(text) and (
        "*" in text
        or bool(_PLACEHOLDER_RE.fullmatch(text))
        or _unspecified(text)
        # (a template's words for the value in Chinese, MindIE's docs: "Master节点IP地址",
        # "master node IP address": no host's id is written in CJK ideographs)
        or bool(_CJK_RE.search(text))
    )


_CJK_RE = re.compile(r"[\u4e00-\u9fff]")


def _unspecified(text: str) -> bool:
    try:
        return ipaddress.ip_address(text).is_unspecified
    except ValueError:
        return False


def _unfound(value: str | None) -> bool:
    """Dashes where an address goes ("-.-.-.-"): what a table's generator writes for a device
    whose IP it could not find (GPUStack's for MindIE), not a template's placeholder."""
    text = str(value or "").strip()
    # (a document's "...." for a left-out address is no generator's)
    return bool(text) and "-" in text and set(text) <= {"-", "."}


def loopback_servers(table: RankTable) -> list[str]:
    """The servers whose id is a loopback address (127.0.0.1, ::1)."""
    looped = []
    for server in table.servers:
        try:
            if ipaddress.ip_address(str(server).strip()).is_loopback:
                looped.append(str(server))
        except ValueError:
            continue
    return looped


def masked_servers(table: RankTable) -> list[str]:
    """Server ids a template left masked or as placeholders ("xx.xx.xx.xx"), each once."""
    return list(dict.fromkeys(s for s in table.servers if masked_id(s)))


def placeholders(table: RankTable) -> list[str]:
    """The device addresses a template left as placeholders, in rank order."""
    return [
        str(r.device_ip)
        for r in table.ranks
        if r.device_ip and not _is_address(r.device_ip) and not _unfound(r.device_ip)
    ]


_TAIL_ELISION_RE = re.compile(r"(?<=[}\]])[ \t]*(?:\.\.\.|…)[ \t]*$")
HEADLESS_RE = re.compile(
    r'\s*"(?:server_list|server_group_list|group_list|rank_list|prefill_device_list|'
    r'decode_device_list)"\s*:\s*\['
)
"""A copy that starts at one of a rank table's lists (its opening brace and the keys before the
list left out): read as a table cut at its start."""
SERVER_ENTRY_RE = re.compile(
    r'\s*(?:"(?:server_id|container_ip|host_nic_ip|host_ip)"\s*:\s*"[^"\n]*",\s*)*'
    r'"device"\s*:\s*\[\s*\{\s*"(?:device_id|device_ip|rank_id)"'
)
"""A copy that starts inside one server's entry of a 1.0 table (its keys, then its ``device``
list): read as that server's entry of a table cut at both ends."""
BRACELESS_KEYS = ("version", "server_count", "status", "board_id", "chip_info", "deploy_mode",
                  "group_count")  # fmt: skip
"""The keys a rank table's first line may hold (1.0/1.2 and the group_list form)."""
_BRACELESS_RE = re.compile(rf'\s*"(?:{"|".join(BRACELESS_KEYS)})"\s*:\s*"')
"""A copy that starts at the table's first key, only its opening brace left out (a document
that printed the table from its second line)."""
_CLOSERS = {"{": "}", "[": "]"}


def _needs_whole_table(error: str) -> bool:
    """Checks a table with entries left out cannot answer: declared counts against the lists,
    rank numbering, super pods naming servers left out."""
    return (
        error.startswith("rank_id must run")
        or ("count" in error.split(" is ", 1)[0] and " but " in error)
        or error.endswith("which is not in server_list")
    )


def open_brackets(text: str) -> list[tuple[int, str]] | None:
    """Every object and list still open at the end of ``text``, outermost first: (offset of its
    opening bracket, its opening bracket); None when ``text`` ends inside a string."""
    stack: list[tuple[int, str]] = []
    in_string = escaped = False
    for i, ch in enumerate(text):
        if in_string:
            escaped = not escaped and ch == "\\"
            in_string = escaped or ch != '"'
        elif ch == '"':
            in_string = True
        elif ch in _CLOSERS:
            stack.append((i, ch))
        elif stack and ch == _CLOSERS[stack[-1][1]]:
            stack.pop()
    return None if in_string else stack


def still_open(text: str) -> str:
    """The closing brackets of every object and list still open at the end of ``text``."""
    return "".join(_CLOSERS[ch] for _, ch in reversed(open_brackets(text) or []))


_EMPTY_ENTRY_RE = re.compile(r",\s*\{\s*\}(?=\s*[\],])|\{\s*\}\s*,(?=\s*\{)")
_MISSING_COMMA_RE = re.compile(
    r'([}\]"]|\btrue|\bfalse|\bnull|\d)([ \t]*\n[ \t]*)(?="[^"\n]*"[ \t]*:)'
)


_FLAT_LINE = 400
"""A line this long holding a comment is taken for a table flattened onto one line."""
_FLATTENED_RESUME_RE = re.compile(r'\s(?="[\w-]+"\s*:|\{\s*"[\w-]+"\s*:|[\]}](?:\s*[,\]}]|\s*$))')


def _strip_comments(text: str) -> tuple[str, list[int], list[str]]:
    """``text`` with each ``// ...`` or ``# ...`` comment outside a string blanked, and the lines
    that had one (documentation and deployment notes print rank tables with a comment after each
    field, in either form), and the comment markers found."""
    out: list[str] = []
    lines: list[int] = []
    markers: set[str] = set()
    for number, line in enumerate(text.split("\n"), start=1):
        in_string = escaped = False
        i = 0
        while i < len(line):
            ch = line[i]
            if in_string:
                escaped = not escaped and ch == "\\"
                in_string = escaped or ch != '"'
            elif ch == '"':
                in_string = True
            elif ch == "#" or line.startswith("//", i):
                markers.add("#" if ch == "#" else "//")
                if not lines or lines[-1] != number:  # (lines come in order: the last suffices)
                    lines.append(number)
                # a copy flattened to one line (a web page's text) goes on after the comment:
                # the comment ends where the table's next key, entry or bracket starts
                rest = _FLATTENED_RESUME_RE.search(line, i + 1) if len(line) > _FLAT_LINE else None
                if rest is None:
                    line = line[:i].rstrip()
                    break
                line = line[:i] + " " * (rest.start() - i) + line[rest.start() :]
                i = rest.start()
                continue
            i += 1
        out.append(line)
    return "\n".join(out), lines, sorted(markers, key=["//", "#"].index)


def parse(text: str) -> RankTable:
    """Parse and validate a rank table; ParseError when it is not JSON or not a rank table.

    A copy with "..." lines for left-out entries, commas before closing brackets, ``//``
    comments, or an end before the table closes is read as far as it goes: a comma or a comment
    is an error (the file is not JSON), the rest is said in ``elided_lines`` / ``cut`` and the
    checks that need the whole table are not made."""
    try:
        return _parse_text_doc(text, json.loads(text))
    except json.JSONDecodeError as e:
        error = ParseError(f"not valid JSON: {e.msg}", line=e.lineno)
    except RecursionError:
        # (nesting deeper than Python's JSON reader goes: no table is nested so deep)
        raise ParseError("JSON nested too deep to be a rank table") from None
    # line numbers kept: each comment and "..." line is emptied, not removed
    mended, commented, markers = _strip_comments(text)
    elided = [mended.count("\n", 0, m.start()) + 1 for m in _ELISION_RE.finditer(mended)]
    mended = _ELISION_RE.sub("", mended)
    if elided:
        # an entry whose whole body was "...": an empty object, no entry (its lines kept)
        mended = _EMPTY_ENTRY_RE.sub(lambda m: "\n" * m.group(0).count("\n"), mended)
    if tail := _TAIL_ELISION_RE.search(mended):
        # "}..." at the end: the entries after the last one shown were left out
        elided.append(mended.count("\n", 0, tail.start()) + 1)
        mended = mended[: tail.start()] + mended[tail.end() :]
    entry = bool(SERVER_ENTRY_RE.match(mended))
    headless = entry or bool(HEADLESS_RE.match(mended))
    braceless = not headless and bool(_BRACELESS_RE.match(mended))
    if entry:
        # inside one server's entry: put the list and the entry's brace back, on the same line
        mended = '{"server_list": [{' + mended
    elif headless or braceless:
        # the copy starts at one of the table's lists or keys, its opening brace left out: same
        # lines
        mended = "{" + mended
    # a closing bracket alone on a line where JSON expects a value (an entry deleted by hand,
    # its "}" left): that line emptied, and said
    stray: list[tuple[int, str]] = []
    unrepaired = mended
    while len(stray) < STRAY_CLOSERS and (at := _stray_closer(mended)) is not None:
        stray.append(at)
        rows = mended.split("\n")
        rows[at[0] - 1] = ""
        before = next((i for i in range(at[0] - 2, -1, -1) if rows[i].strip()), None)
        after = next((r.strip() for r in rows[at[0] :] if r.strip()), "")
        if before is not None and rows[before].rstrip().endswith(",") and after[:1] in "]}":
            # the comma that stood before the stray bracket now stands before the list's end
            rows[before] = rows[before].rstrip()[:-1]
        mended = "\n".join(rows)
    if stray and not _reads(mended):
        # (the brackets taken out did not make the file read: not strays, another fault, a
        # missing bracket among them; undone)
        mended, stray = unrepaired, []
    # a template's placeholder standing bare where a value belongs ("instance_list":
    # [{instance_list}]): null in its place, and said (its quoted ones are strings)
    unfilled = [
        (mended.count("\n", 0, m.start()) + 1, m.group(0))
        for m in _BARE_PLACEHOLDER_RE.finditer(mended)
    ]
    mended = _BARE_PLACEHOLDER_RE.sub("null", mended)
    # a list or object never closed before the next key ('{"device_id": "7"},' then
    # '"pod_name": ...'): its bracket put back before that comma, and said
    unclosed: list[tuple[int, str]] = []
    unrepaired = mended
    while len(unclosed) < STRAY_CLOSERS and (fix := _missing_closer(mended)) is not None:
        unclosed.append(fix[:2])
        mended = fix[2]
    if unclosed and not _reads(mended):
        mended, unclosed = unrepaired, []
    commas = [mended.count("\n", 0, m.start()) + 1 for m in _TRAILING_COMMA_RE.finditer(mended)]
    mended = _TRAILING_COMMA_RE.sub(r"\1", mended)
    # a value's line with no comma before the next key's ("}]" then '"server_count": "1",', a
    # document's copy that lost it): put back, and said
    missing = [mended.count("\n", 0, m.start()) + 1 for m in _MISSING_COMMA_RE.finditer(mended)]
    mended = _MISSING_COMMA_RE.sub(r"\1,\2", mended)
    closers = still_open(mended)
    body = mended.rstrip()
    if closers and body.endswith(","):
        body = body[:-1]  # cut after an entry: the comma before the next one the copy lost
    try:
        doc = json.loads(body + closers)
    except (json.JSONDecodeError, RecursionError):
        # (a copy cut inside a string leaves no bracket counted open: still_open says "")
        # (only a string left open to the very end, on its own line: a string that runs over a
        # line break is a broken table, not a cut copy)
        opened = body.rfind('"')
        doc = (
            _cut_inside_value(body)
            if open_brackets(body) is None and "\n" not in body[opened:]
            else None
        )
        if doc is None:
            raise error from None
        closers = closers or still_open(body[: body.rfind(",")])
    table = _parse_text_doc(text, doc)
    table.elided_lines, table.cut, table.headless = elided, bool(closers), headless
    table.braceless, table.server_entry = braceless, entry
    if entry:  # the entry's keys above where the copy starts are not missing
        table.errors = [e for e in table.errors if not e.startswith("server_list[0] has no ")]
    if elided or closers or headless:
        table.errors = [e for e in table.errors if not _needs_whole_table(e)]
    if closers or headless:  # a list or key outside what was copied is not missing
        table.errors = [e for e in table.errors if "is missing (vllm-ascend reads" not in e]
    if closers:  # the keys after the cut ("status" is written last) are not missing
        table.errors = [
            e
            for e in table.errors
            if not e.startswith("status is 'missing'") and not e.endswith("has no super_pod_list")
        ]
        # nor are the fields of the entries the copy ends inside ("server_id" after "device")
        cut_entries = _cut_entries(doc)
        table.errors = [
            e
            for e in table.errors
            if not (("has no " in e or "lists no " in e) and e.startswith(cut_entries))
        ]
    for no, closer in reversed(unclosed):
        table.errors.insert(
            0,
            f"not valid JSON: a '{closer}' missing at the end of line {no} (a list or object is "
            "not closed there; a JSON parser refuses the file): read with it put back",
        )
    if unfilled:
        names = ", ".join(f"{name} (line {no})" for no, name in unfilled[:5])
        table.errors.insert(
            0,
            f"an unfilled template: {names} stand(s) bare where a value belongs (not valid JSON: "
            "a JSON parser refuses the file); fill the template in before a job reads it",
        )
    for no, closer in reversed(stray):
        table.errors.insert(
            0,
            f"not valid JSON: a stray '{closer}' alone on line {no}, where the next entry or "
            "the list's end was expected (a JSON parser refuses the file): remove it; the table "
            "was read without it",
        )
    if missing:
        table.errors.insert(
            0,
            f"not valid JSON: a comma missing at the end of line {', '.join(map(str, missing))}"
            " (before the next key); a JSON parser refuses the file",
        )
    if commas:
        table.errors.insert(
            0,
            f"not valid JSON: a comma before a closing bracket (line {', '.join(map(str, commas))});"
            " a JSON parser refuses the file",
        )
    if commented:
        # HCCL reads the file with nlohmann::json's plain parse (hcomm's
        # TopoInfoRanktableParser::ReadFile, "infile >> fileContent_"), which takes no comment:
        # it fails with "load file[...] to json fail", so the comments stay an error; the table is
        # read with them set aside all the same (``comment_lines``), every check made
        table.comment_lines = commented
        lines = ", ".join(map(str, commented[:5])) + (" ..." if len(commented) > 5 else "")
        table.errors.insert(
            0,
            f"not valid JSON: {' and '.join(markers)} comments (line {lines}); a JSON parser refuses the file:"
            " remove them",
        )
    return table


def _spans(numbers: list[int]) -> str:
    """``0, 1, 2, 3, 5`` → ``0-3, 5``."""
    spans: list[str] = []
    start = prev = numbers[0]
    for n in [*numbers[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        spans.append(f"{start}-{prev}" if prev > start else str(start))
        if n is not None:
            start = prev = n
    return ", ".join(spans)


def contents(table: RankTable) -> str:
    """What the table holds, in a line: its version and status, servers, devices with their
    ranks and addresses (the first few) and device ports."""
    said = [f"version {table.version}" if table.version else "no version (the group_list form)"]
    said.append(f"status {table.status}")
    shown = ", ".join(table.servers[:4]) + (" ..." if len(table.servers) > 4 else "")
    said.append(f"{len(table.servers)} server(s) ({shown})")
    devices = [
        f"{r.server_id}/{r.device_id}" + (f" at {r.device_ip}" if r.device_ip else "")
        for r in table.ranks[:4]
    ]
    more = " ..." if len(table.ranks) > 4 else ""
    said.append(
        f"{len(table.ranks)} device(s)" + (f" ({', '.join(devices)}{more})" if devices else "")
    )
    numbered = sorted({r.rank for r in table.ranks if r.rank is not None})
    if numbered:
        said.append(f"ranks {_spans(numbered)}")
    elif table.ranks:
        # (the group_list form has no version and numbers no rank: none is asked of it)
        said.append("no rank_id" + ("" if table.version else " (none asked of this form)"))
    if ports := sorted({r.device_port for r in table.ranks if r.device_port is not None}):
        said.append(f"device_port {', '.join(ports)}")
    return ", ".join(said)


STRAY_CLOSERS = 2
_BARE_PLACEHOLDER_RE = re.compile(r"(?<=[\[:,])\s*\{[A-Za-z_]\w*\}(?=\s*[\],}])")
"""A template's ``{name}`` standing bare where a JSON value belongs (not inside quotes)."""


def _reads(text: str) -> bool:
    """Whether ``text`` is JSON once its commas before closing brackets are taken off and a cut
    end is closed (as the reading after the repairs takes it); a text that ends on the table's
    closing brace is whole: nothing is closed for it."""
    text = _TRAILING_COMMA_RE.sub(r"\1", text)
    whole = text.rstrip().endswith("}")
    try:
        json.loads(text if whole else text + still_open(text))
    except (json.JSONDecodeError, RecursionError):
        return False
    return True


def _missing_closer(text: str) -> tuple[int, str, str] | None:
    """Where JSON's reader met a key inside a list (``},`` then ``"pod_name": ...``): the line
    whose comma needs a closing bracket before it, the bracket, and the text with it put back;
    None when putting one back does not carry the reading past that key."""
    text_c = _TRAILING_COMMA_RE.sub(r"\1", text)
    try:
        json.loads(text_c + still_open(text_c))
        return None
    except json.JSONDecodeError as e:
        if e.msg != "Expecting ',' delimiter":
            return None
        at, lineno = e.pos, e.lineno
    except RecursionError:
        return None
    rows = text.split("\n")
    before = next((i for i in range(lineno - 2, -1, -1) if rows[i].strip()), None)
    if before is None:
        return None
    for closer in ("]", "}"):
        head = rows[before].rstrip()
        # (before the line's comma, or after its last bracket where it has none)
        mended = head[:-1] + closer + "," if head.endswith(",") else head + closer
        tried = [*rows[:before], mended, *rows[before + 1 :]]
        candidate = "\n".join(tried)
        cand_c = _TRAILING_COMMA_RE.sub(r"\1", candidate)
        try:
            json.loads(cand_c + still_open(cand_c))
        except json.JSONDecodeError as e2:
            if e2.pos <= at + 1:
                continue  # no further: not this bracket
        except RecursionError:
            continue
        return before + 1, closer, candidate
    return None


"""How many lone closing brackets a hand-edited table may hold and still be read without them."""
_LONE_CLOSER_RE = re.compile(r"^\s*([}\]]),?\s*$")


def _stray_closer(text: str) -> tuple[int, str] | None:
    """The line and bracket of a closing bracket alone on its line where JSON's reader stopped
    expecting a value (``},`` then a lone ``}``); None when the text reads, or stops elsewhere."""
    # (with the commas before closing brackets taken off, as the reading after this does)
    text = _TRAILING_COMMA_RE.sub(r"\1", text)
    try:
        json.loads(text + still_open(text))
        return None
    except json.JSONDecodeError as e:
        if e.msg != "Expecting ',' delimiter":
            return None
        rows = text.split("\n")
        if not 0 < e.lineno <= len(rows) or not (m := _LONE_CLOSER_RE.match(rows[e.lineno - 1])):
            return None
        return e.lineno, m.group(1)
    except RecursionError:
        return None


CUT_VALUE_TRIES = 8
"""How many commas back from a cut copy's end a value cut in its middle is looked for."""


def _cut_inside_value(body: str) -> Any:
    """A copy cut inside a key or value (``"backup_device_port":"16``): the table up to the
    last whole field before the cut, its brackets closed; None when none of the last few
    commas ends one."""
    end = len(body)
    for _ in range(CUT_VALUE_TRIES):
        end = body.rfind(",", 0, end)
        if end < 0:
            return None
        head = body[:end]
        try:
            return json.loads(head + still_open(head))
        except (json.JSONDecodeError, RecursionError):
            continue
    return None


def _cut_entries(doc: Any) -> tuple[str, ...]:
    """How the validation names the entries a cut table ends inside: the last entry of each list
    on the way from the top to where the copy ends (JSON keeps the order of keys, so that path
    runs through the last value of each object)."""
    names: list[str] = []
    node, key = doc, ""
    sid = ""
    while isinstance(node, (dict, list)) and node:
        if isinstance(node, dict):
            key, node = next(reversed(node.items()))
            continue
        index, node = len(node) - 1, node[-1]
        if not isinstance(node, dict):
            break
        if key == "server_list":
            sid = str(node.get("server_id") or index)
            names += [f"server_list[{index}] ", f"server {sid} lists no "]
        elif key == "device":
            names += [
                f"server {sid} device {node.get('device_id')} ",
                f"server {sid} rank {node.get('rank_id')} ",
            ]
        elif key == "rank_list":
            names.append(f"rank_list[{index}] ")
    return tuple(names)


def _parse_text_doc(text: str, doc: Any) -> RankTable:
    wrapper, wrapper_line = "", 0
    if isinstance(doc, dict) and not _is_table(doc) and WRAPPER in doc:
        wrapper, wrapper_line = WRAPPER, _key_line(text, WRAPPER)
        doc = doc[WRAPPER]
        if not _is_table(doc):
            raise ParseError(
                f"'{WRAPPER}' (GE cluster_config) holds no 'server_list', 'group_list', "
                "'server_group_list' or prefill/decode device list: not an Ascend rank table",
                line=wrapper_line,
            )
    elif isinstance(doc, dict) and "status" in doc and set(doc) <= {"status", "version"}:
        # a table its writer has not filled yet (MindCluster's rank table file while the job's
        # pods start: '{"status":"initializing","version":"1.0"}'): its status is all it says
        status = str(doc["status"])
        return RankTable(
            version=str(doc.get("version", "")),
            status=status,
            server_count=None,
            servers=[],
            ranks=[],
            errors=[
                f"status is {status!r} and no server or rank is listed yet: the table's writer "
                "has not filled it (wait for status completed before starting the job)"
            ]
            if status != "completed"
            else ["status is 'completed' but no server or rank is listed"],
        )
    elif not _is_table(doc):
        raise ParseError(
            "JSON without 'server_list', 'group_list', 'server_group_list' or "
            "'prefill_device_list'/'decode_device_list': not an Ascend rank table",
            line=text.count("\n", 0, len(text) - len(text.lstrip())) + 1,
        )
    # GE's wrapper documents a 1.2 table of server_id, device_id and rank_id only: the SuperPoD
    # fields HCCL's 1.2 template adds are not asked of it
    table = _parse_doc(doc, superpod_fields=not wrapper)
    if unfound := [r for r in table.ranks if _unfound(r.device_ip)]:
        table.errors.append(
            f"device_ip is '{unfound[0].device_ip}' for {len(unfound)} device(s) (ranks "
            + ", ".join(str(r.rank) for r in unfound[:8])
            + (" ..." if len(unfound) > 8 else "")
            + "): no address, the table's generator found none (give each NPU its device IP, "
            "hccn_tool -i N -ip -s, and generate the table again)"
        )
    if wrapper:
        table.wrapper, table.wrapper_line = wrapper, wrapper_line
        table.errors = [f"in '{wrapper}' (line {wrapper_line}): {e}" for e in table.errors]
    return table


WRAPPER = "RankTable"
"""GE ``cluster_config.json``'s key for the rank table it carries."""


PD_LISTS = {"prefill": "prefill_device_list", "decode": "decode_device_list"}
"""vllm-ascend's PD form: role → the list of its devices."""
PD_FORM = "prefill_decode"
MINDIE_FORM = "mindie_global"


def _is_table(doc: Any) -> bool:
    return isinstance(doc, dict) and (
        "server_list" in doc
        or "rank_list" in doc
        or "group_list" in doc
        or "server_group_list" in doc
        or any(key in doc for key in PD_LISTS.values())
    )


def _key_line(text: str, key: str) -> int:
    """1-based line of the first ``"key":`` in ``text`` (1 when not found as written)."""
    m = re.search(r'"' + re.escape(key) + r'"\s*:', text)
    return text.count("\n", 0, m.start()) + 1 if m else 1


def _parse_doc(doc: dict[str, Any], superpod_fields: bool) -> RankTable:
    errors: list[str] = []
    version = str(doc.get("version", ""))
    if version and version not in VERSIONS:
        errors.append(f"version {version!r} is not one this advisor reads ({', '.join(VERSIONS)})")
    status = str(doc.get("status", ""))
    if "status" not in doc:
        # (no writer's state at all: a table written by hand, or by a tool that leaves the key
        # out; waiting changes nothing)
        errors.append(
            "status is 'missing', not 'completed': the table has no status key, which HCCL "
            'requires to be "completed" (add "status": "completed" to a table written by hand)'
        )
    elif status != "completed":
        errors.append(
            f"status is {status!r}, not 'completed': the table was read before its "
            "writer finished it (wait for status completed before starting the job)"
        )
    if "server_group_list" in doc:
        return _parse_groups(doc, version, status, errors)
    if "rank_list" in doc and not any(key in doc for key in ("server_list", "group_list")):
        return _parse_rank_list(doc, version, status, errors)
    if not any(key in doc for key in ("server_list", "group_list")):
        return _parse_pd(doc, version, status, errors)
    servers, ranks = _entries(doc, errors)
    server_count = _declared_server_count(doc, errors)
    if server_count is not None and server_count != len(servers):
        errors.append(
            f"server_count is {server_count} but server_list holds {len(servers)} servers"
        )
    elif version == "1.0" and "server_list" in doc and "server_count" not in doc:
        # HCCL's rank table guide (hicann/hccl docs/zh/user_guide/cluster_info_config/
        # rank_table_config_910.md, _a2.md, _300i_duo.md): server_count is required in a 1.0
        # table (optional only in the A3's 1.2 one)
        errors.append(
            f"server_count is missing: a version 1.0 table must give it (here "
            f"{len(servers)} server(s) listed)"
        )
    _check_duplicates(servers, ranks, errors)
    super_pods = _super_pods(doc, version, servers, ranks, errors, superpod_fields)
    return RankTable(
        version=version,
        status=status,
        server_count=server_count,
        servers=servers,
        ranks=ranks,
        super_pods=super_pods,
        errors=errors,
    )


def _objects(value: Any, what: str, errors: list[str]) -> list[dict[str, Any]]:
    """The JSON objects of a list member; anything else is reported, not read."""
    if value is None:
        return []
    if not isinstance(value, list):
        errors.append(f"{what} is not a list")
        return []
    out = []
    for i, item in enumerate(value):
        if isinstance(item, dict):
            out.append(item)
        else:
            errors.append(f"{what}[{i}] is not an object")
    return out


def _declared_server_count(doc: dict[str, Any], errors: list[str]) -> int | None:
    """The table's ``server_count`` as a number; None when absent or not a number (then
    ``errors`` says so)."""
    declared = doc.get("server_count")
    if declared is None:
        return None
    try:
        return int(declared)
    except (TypeError, ValueError):
        errors.append(f"server_count {declared!r} is not a number")
        return None


def _entries(
    doc: dict[str, Any], errors: list[str], *, services: bool = False
) -> tuple[list[str], list[RankEntry]]:
    """Servers and their devices. With ``services`` (a group of a global table), a server
    entry with a ``server_ip`` and no ``device`` list is a pod that uses no NPU (MindIE's
    controller and coordinator: MindCluster generates their groups with the pod's
    ``server_ip``; MindIE Motor's communication matrix reads the coordinator's address from
    group 0's ``server_list.server_ip``): counted, not checked for devices."""
    servers: list[str] = []
    ranks: list[RankEntry] = []
    if "server_list" in doc:
        for i, server in enumerate(_objects(doc.get("server_list"), "server_list", errors)):
            if services and "device" not in server and server.get("server_ip"):
                servers.append(str(server.get("server_id") or server["server_ip"]))
                continue
            sid = str(server.get("server_id", ""))
            if not sid:
                errors.append(f"server_list[{i}] has no server_id")
            servers.append(sid)
            devices = _objects(server.get("device"), f"server {sid or i} device", errors)
            if not devices:
                errors.append(f"server {sid or i} lists no device")
            for dev in devices:
                ranks.append(_entry(dev, sid, errors))
        return servers, ranks
    groups = _objects(doc.get("group_list"), "group_list", errors)
    _check_count(doc, "group_count", len(groups), "group_list holds", "groups", errors)
    for g, group in enumerate(groups):
        name = str(group.get("group_name") or g)
        instances = _objects(group.get("instance_list"), "instance_list", errors)
        _check_count(
            group, "instance_count", len(instances), f"group {name} instance_list holds",
            "instances", errors,
        )  # fmt: skip
        first = len(ranks)
        for inst in instances:
            sid = str(inst.get("server_id", ""))
            if sid not in servers:
                servers.append(sid)
            for dev in _objects(inst.get("devices"), f"instance {sid} devices", errors):
                entry = dict(dev)
                entry.setdefault("rank_id", inst.get("rank_id"))
                # the template numbers no rank: a missing rank_id is no error here
                ranks.append(_entry(entry, sid, errors, rank_required=False))
        _check_count(
            group, "device_count", len(ranks) - first, f"group {name} instances hold",
            "devices", errors,
        )  # fmt: skip
    return servers, ranks


def _check_count(
    doc: dict[str, Any], key: str, found: int, where: str, what: str, errors: list[str]
) -> None:
    """A declared count (``group_count``, ``instance_count``, ``device_count``) against the list."""
    declared = doc.get(key)
    if declared is not None and str(declared) != str(found):
        errors.append(f"{key} is {declared} but {where} {found} {what}")


def _entry(
    dev: dict[str, Any], server_id: str, errors: list[str], rank_required: bool = True
) -> RankEntry:
    raw_rank = dev.get("rank_id")
    rank: int | None = None
    if raw_rank is None:
        if rank_required:
            errors.append(f"server {server_id} device {dev.get('device_id')} has no rank_id")
    else:
        try:
            rank = int(raw_rank)
        except (TypeError, ValueError):
            errors.append(f"server {server_id}: rank_id {raw_rank!r} is not a number")
    if dev.get("device_id") is None:
        errors.append(f"server {server_id} rank {raw_rank} has no device_id")
    sdid = dev.get("super_device_id")
    port = dev.get("device_port")
    return RankEntry(
        rank=rank,
        server_id=server_id,
        device_id=str(dev.get("device_id")),
        device_ip=dev.get("device_ip"),
        super_device_id=str(sdid) if sdid is not None else None,
        device_port=str(port) if port is not None else None,
    )


def _check_duplicates(
    servers: list[str],
    ranks: list[RankEntry],
    errors: list[str],
    check_ips: bool = True,
) -> None:
    """Duplicate servers, devices, ranks and (``check_ips``) device addresses. A server id a
    document masked ("10.*.*.*") names no server: two masked ids alike are not one server. The
    unspecified address (0.0.0.0) is checked all the same: a generator that wrote it for two
    servers made a table HCCL cannot use, template or not."""

    def unnamed(sid: str) -> bool:
        return masked_id(sid) and not _unspecified(sid)

    for sid, n in Counter(s for s in servers if not unnamed(s)).items():
        if n > 1:
            errors.append(f"server {sid} appears {n} times in server_list")
    for (sid, dev), n in Counter(
        (r.server_id, r.device_id) for r in ranks if not unnamed(r.server_id)
    ).items():
        if n > 1:
            owners = [str(r.rank) for r in ranks if (r.server_id, r.device_id) == (sid, dev)]
            errors.append(
                f"device {dev} on server {sid} is listed {n} times (ranks {', '.join(owners)}): "
                "two ranks on one device"
            )
    for rank, n in Counter(r.rank for r in ranks if r.rank is not None).items():
        if n > 1:
            where = [f"{r.server_id}/device {r.device_id}" for r in ranks if r.rank == rank]
            errors.append(f"rank_id {rank} is used {n} times ({'; '.join(where)})")
    if check_ips:
        for ip, n in Counter(r.device_ip for r in ranks if _is_address(r.device_ip)).items():
            if n > 1:
                owners = [str(r.rank) for r in ranks if r.device_ip == ip and r.rank is not None]
                errors.append(
                    f"device_ip {ip} is given to {n} devices"
                    + (f" (ranks {', '.join(owners)})" if owners else "")
                )
    _check_numbering(ranks, "devices", errors)


def _check_numbering(ranks: list[RankEntry], counted: str, errors: list[str]) -> None:
    """Ranks numbered 0..N-1 over the N entries (``counted`` names them in the message)."""
    numbered = sorted({r.rank for r in ranks if r.rank is not None})
    missing = sorted(set(range(len(ranks))) - set(numbered))
    if missing and numbered:
        errors.append(
            f"rank_id must run 0..{len(ranks) - 1} over {len(ranks)} {counted}; missing "
            f"{', '.join(map(str, missing[:16]))}"
        )


def _super_pods(
    doc: dict[str, Any],
    version: str,
    servers: list[str],
    ranks: list[RankEntry],
    errors: list[str],
    superpod_fields: bool = True,
) -> dict[str, list[str]]:
    """The table's super pods; ``superpod_fields``: a 1.2 table must carry ``super_pod_list`` and
    each device's ``super_device_id`` (HCCL's SuperPoD template; not GE's wrapped table)."""
    pods: dict[str, list[str]] = {}
    for pod in _objects(doc.get("super_pod_list"), "super_pod_list", errors):
        pid = str(pod.get("super_pod_id", ""))
        members = _objects(pod.get("server_list"), f"super pod {pid} server_list", errors)
        pods[pid] = [str(s.get("server_id", "")) for s in members]
        for sid in pods[pid]:
            if sid not in servers:
                errors.append(f"super pod {pid} names server {sid}, which is not in server_list")
    if superpod_fields and version == "1.2":
        if not pods:
            errors.append("version 1.2 (SuperPoD) table has no super_pod_list")
        lacking = [f"{r.server_id}/{r.device_id}" for r in ranks if r.super_device_id is None]
        if lacking:
            errors.append(
                f"version 1.2 needs super_device_id on every device; missing on {', '.join(lacking[:8])}"
            )
    return pods


def _parse_groups(doc: dict[str, Any], version: str, status: str, errors: list[str]) -> RankTable:
    """The ``server_group_list`` form: each group is validated as a table of its own."""
    raw_groups = doc.get("server_group_list")
    if not isinstance(raw_groups, list):
        errors.append("server_group_list is not a list")
        raw_groups = []
    declared_groups = doc.get("server_group_count")
    if declared_groups is not None and str(declared_groups) != str(len(raw_groups)):
        errors.append(
            f"server_group_count is {declared_groups} but server_group_list holds "
            f"{len(raw_groups)} groups"
        )
    servers: list[str] = []
    ranks: list[RankEntry] = []
    pods: dict[str, list[str]] = {}
    group_ids: list[str] = []
    # MindIE MS's global rank table (MindIE-Motor's tests/ms/common/.mindie_ms/
    # global_rank_table_*.json) lists its own services as groups of one server, "coordinator" and
    # "controller", and each inference instance as a server of a group, told apart by server_ip
    # and numbering its devices' ranks from 0 (server_id may be the same for all): its ranks are
    # checked per instance, not per group
    mindie = any(
        isinstance(g, dict)
        and any(
            isinstance(sv, dict) and sv.get("server_id") in ("coordinator", "controller")
            for sv in g.get("server_list") or []
        )
        for g in raw_groups
    )
    for i, group in enumerate(raw_groups):
        if not isinstance(group, dict):
            errors.append(f"server_group_list[{i}] is not an object")
            continue
        gid = str(group.get("group_id", i))
        group_ids.append(gid)
        where = f"group {gid}: "
        group_errors: list[str] = []
        g_servers, g_ranks = _entries(group, group_errors, services=True)
        for entry in g_ranks:
            entry.group_id = gid
        declared = group.get("server_count")
        if declared is not None and str(declared) != str(len(g_servers)):
            group_errors.append(
                f"server_count is {declared} but server_list holds {len(g_servers)} servers"
            )
        if mindie:
            _check_instances(group, gid, group_errors)
        else:
            _check_duplicates(g_servers, g_ranks, group_errors, check_ips=False)
        g_pods = _super_pods(group, version, g_servers, g_ranks, group_errors)
        pods.update({f"{gid}/{pod}": members for pod, members in g_pods.items()})
        errors += [where + e for e in group_errors]
        servers += g_servers
        ranks += g_ranks
    repeated = sorted(g for g, n in Counter(group_ids).items() if n > 1)
    if repeated:
        errors.append(f"group_id {', '.join(repeated)} appears more than once in server_group_list")
    for ip, n in Counter(r.device_ip for r in ranks if _is_address(r.device_ip)).items():
        if n > 1:
            errors.append(f"device_ip {ip} is given to {n} devices")
    if mindie:  # (each instance's ranks were checked on their own)
        errors = [e for e in errors if "instance " in e or "rank_id" not in e]
    return RankTable(
        version=version,
        status=status,
        server_count=None,
        servers=servers,
        ranks=ranks,
        super_pods=pods,
        errors=errors,
        groups=group_ids,
        form=MINDIE_FORM if mindie else "",
    )


def _check_instances(group: dict[str, Any], gid: str, errors: list[str]) -> None:
    """MindIE MS's instances in one group: each server_ip once, each instance's ranks 0..n-1."""
    listed = [sv for sv in group.get("server_list") or [] if isinstance(sv, dict)]
    for ip, n in Counter(str(sv.get("server_ip", "")) for sv in listed).items():
        if ip and n > 1:
            errors.append(f"server_ip {ip} appears {n} times in server_list")
    for sv in listed:
        devices = [d for d in sv.get("device") or [] if isinstance(d, dict)]
        numbers = sorted(str(d.get("rank_id")) for d in devices if d.get("rank_id") is not None)
        if numbers and numbers != sorted(str(n) for n in range(len(numbers))):
            errors.append(
                f"instance {sv.get('server_ip', '?')}: rank_id must run 0..{len(numbers) - 1} "
                f"over its {len(numbers)} devices (has {', '.join(numbers)})"
            )


RANK_LIST_FORM = "rank_list"


def _rank_address(item: dict[str, Any], index: int, errors: list[str]) -> str | None:
    """A 2.0 rank's own address: the first ``addr`` of the ``rank_addr_list`` of its lowest
    ``net_layer`` (hcomm's example rank_table_v2.json gives each rank one level 0 with one IPV4
    address and its ``ports``); None when the rank lists none."""
    raw = item.get("level_list")
    if raw is not None and not isinstance(raw, list):
        errors.append(f"rank_list[{index}] level_list is not a list")
        return None
    levels = [lv for lv in raw or [] if isinstance(lv, dict)]
    levels.sort(key=lambda lv: lv["net_layer"] if isinstance(lv.get("net_layer"), int) else 99)
    for level in levels:
        addrs = level.get("rank_addr_list")
        if addrs is not None and not isinstance(addrs, list):
            errors.append(f"rank_list[{index}] rank_addr_list is not a list")
            continue
        for addr in addrs or []:
            if isinstance(addr, dict) and isinstance(addr.get("addr"), str) and addr["addr"]:
                return str(addr["addr"])
    if raw is not None and not levels:
        errors.append(f"rank_list[{index}] level_list holds no level object")
    return None


def _parse_rank_list(
    doc: dict[str, Any], version: str, status: str, errors: list[str]
) -> RankTable:
    """The 2.0 form (MindCluster's hccl.json description, Atlas 350/850/950 SuperPoD): a flat
    ``rank_list[] {rank_id, local_id, device_id, level_list[] {net_layer, net_instance_id,
    net_type, rank_addr_list[]}}`` with ``rank_count``; it names no server, so it states no
    cluster shape and devices are not compared across ranks. A rank's address (``device_ip``)
    is the first of its lowest level's ``rank_addr_list``."""
    ranks: list[RankEntry] = []
    for i, item in enumerate(_objects(doc.get("rank_list"), "rank_list", errors)):
        if item.get("rank_id") in (None, ""):
            errors.append(f"rank_list[{i}] has no rank_id")
        try:
            rank = int(item["rank_id"]) if item.get("rank_id") not in (None, "") else None
        except (TypeError, ValueError):
            errors.append(f"rank_list[{i}] rank_id {item.get('rank_id')!r} is not a number")
            rank = None
        ranks.append(
            RankEntry(
                rank=rank,
                server_id="",
                device_id=str(item.get("device_id", "")),
                device_ip=_rank_address(item, i, errors),
            )
        )
    _check_count(doc, "rank_count", len(ranks), "rank_list holds", "ranks", errors)
    for rank, n in Counter(r.rank for r in ranks if r.rank is not None).items():
        if n > 1:
            errors.append(f"rank_id {rank} is used {n} times in rank_list")
    _check_numbering(ranks, "ranks", errors)
    return RankTable(
        version=version,
        status=status,
        server_count=None,
        servers=[],
        ranks=ranks,
        errors=errors,
        form=RANK_LIST_FORM,
    )


def _parse_pd(doc: dict[str, Any], version: str, status: str, errors: list[str]) -> RankTable:
    """vllm-ascend's prefill/decode form (see the module docstring)."""
    ranks: list[RankEntry] = []
    servers: list[str] = []
    for role, key in PD_LISTS.items():
        if key not in doc:
            # the connector reads both lists by key: a table without one fails as it loads
            errors.append(f"{key} is missing (vllm-ascend reads both prefill and decode lists)")
            continue
        for i, dev in enumerate(_objects(doc.get(key), key, errors)):
            where = f"{key}[{i}]"
            for needed in ("server_id", "device_id", "device_ip"):
                if dev.get(needed) in (None, ""):
                    errors.append(f"{where} has no {needed}")
            raw_cluster = dev.get("cluster_id")
            if raw_cluster is None:
                errors.append(f"{where} has no cluster_id")
            elif not str(raw_cluster).strip().isdigit():
                errors.append(f"{where}: cluster_id {raw_cluster!r} is not a number")
            sid = str(dev.get("server_id", ""))
            if sid and sid not in servers:
                servers.append(sid)
            sdid = dev.get("super_device_id")
            ranks.append(
                RankEntry(
                    rank=None,
                    server_id=sid,
                    device_id=str(dev.get("device_id")),
                    device_ip=dev.get("device_ip"),
                    super_device_id=str(sdid) if sdid is not None else None,
                    role=role,
                    cluster_id=str(raw_cluster) if raw_cluster is not None else None,
                )
            )
    for (sid, dev_id), n in Counter((r.server_id, r.device_id) for r in ranks).items():
        if n > 1:
            roles = [str(r.role) for r in ranks if (r.server_id, r.device_id) == (sid, dev_id)]
            errors.append(
                f"device {dev_id} on server {sid} is listed {n} times ({', '.join(roles)}): "
                "one device serves one instance"
            )
    for ip, n in Counter(r.device_ip for r in ranks if _is_address(r.device_ip)).items():
        if n > 1:
            errors.append(f"device_ip {ip} is given to {n} devices")
    for cid, n in Counter(r.cluster_id for r in ranks if r.cluster_id is not None).items():
        if n > 1:
            errors.append(
                f"cluster_id {cid} is given to {n} devices: LLMDataDist tells the devices it "
                "links apart by it"
            )
    server_count = _declared_server_count(doc, errors)
    if server_count is not None and len(servers) > server_count:
        errors.append(
            f"server_count is {server_count} but the device lists name {len(servers)} servers"
        )
    return RankTable(
        version=version,
        status=status,
        server_count=server_count,
        servers=servers,
        ranks=ranks,
        errors=errors,
        form=PD_FORM,
    )
