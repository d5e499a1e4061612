"""Parsers for the outputs of the tools ops teams already run: one module per format.

Every parser is a pure function on text that returns typed dataclasses. Input it cannot read
raises :class:`ParseError` naming the line; lines it can skip safely are reported as
:class:`ParseWarning` in the result, never silently guessed. The live preflight probe and
``advisor import`` share these parsers, so a format is understood the same way in both.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "BUS_FACTOR_OPS",
    "COLLECTOR_STAMP",
    "NODE_NAME",
    "PDSH_PREFIX_RE",
    "ParseError",
    "ParseWarning",
    "busbw_factor",
    "numbered_lines",
    "strip_launcher_prefix",
]


class ParseError(ValueError):
    """The text is not readable as the expected format; ``line`` is 1-based (0: whole text)."""

    def __init__(self, message: str, line: int = 0) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.message = message
        self.line = line


@dataclass(kw_only=True)
class ParseWarning:
    """A line that was skipped because it could not be read (the rest of the input was), or,
    with ``skipped`` False, a note on what the input leaves unknown though every line was read."""

    line: int
    """1-based line number in the input text."""
    message: str
    skipped: bool = True
    """False for a note: the file is still read whole (its status stays ``read``)."""


NODE_NAME = r"(?=[\w.-]*[a-z])(?=[\w.-]*\d)[A-Za-z][\w-]*(?:\.[\w-]+)*"
"""A node's name as a collector puts it before a line: a lower-case letter and a digit in it
("rdma-test-gpu-worker-1", "nid003336"), so neither a bare word nor an upper-case code."""
COLLECTOR_STAMP = r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?"
"""A log collector's time stamp before a line it kept ("2024-11-20 14:37:16", ",123" or ".123"
after it)."""

IPV4_ADDRESS = r"(?:\d{1,3}\.){3}\d{1,3}"
"""A host named by its IPv4 address, as pdsh prints a target given so (``pdsh -w
10.0.0.[11-12]``: "10.0.0.11: ..."), which ``NODE_NAME`` (a letter first) does not take."""
PDSH_HOST = rf"(?:{IPV4_ADDRESS}|{NODE_NAME})"
"""The host pdsh puts before a line: the target as given, a node's name or its address."""

PDSH_PREFIX_RE = re.compile(
    rf"^(?P<host>{IPV4_ADDRESS}(?=: )"
    rf"|{NODE_NAME}(?=: \[)): "
)
"""pdsh's ``node:`` before each line of a node's output (dshbak(1): "the leading node: is
stripped"): an address, or a name with a lower-case letter and a digit followed by a bracketed
tag (``[rank1]:``, a time stamp); neither a bare ``Word: `` (too like a message's own start) nor
an upper-case code (``EI0002: [PID: 1]``, ``ERR00100: [...]``, CANN's error codes)."""

PDSH_BARE_RE = re.compile(r"^(?P<host>[A-Za-z0-9][\w.-]{0,62}):(?: |$)")
"""pdsh's "node: " before a line in its bare form, any target name (dshbak(1): "the leading
node: is stripped", by dshbak only: plain pdsh keeps it), a blank line of the node's output
"node:" alone. Too like a line's own "Word: " to be taken on one line: only where every line of
a copy carries it (``without_one_pdsh_host``, ``pdsh_by_host``)."""


def without_one_pdsh_host(text: str) -> tuple[str | None, str]:
    """The host and the text without it, where every line that is not blank starts with the same
    pdsh "host: " (one node's output, sent through pdsh); (None, text) otherwise. One host on
    every line only: a bare "name: " on some lines is too like a line's own words (nccl-tests'
    CUDACHECK "HOST: Test CUDA failure ...")."""
    lines = text.splitlines()
    hosts = {
        m.group("host") if (m := PDSH_BARE_RE.match(line)) else None
        for line in lines
        if line.strip()
    }
    if len(hosts) != 1 or None in hosts:
        return None, text
    (host,) = hosts
    cut = len(host or "") + 2
    return host, "\n".join(line[cut:] if line.strip() else line for line in lines) + "\n"


PDSH_OWN_RE = re.compile(
    r"^pdsh@(?P<at>[\w.-]{1,63}): (?P<host>[\w.-]{1,63}): (?P<what>[^\n]{1,200})$"
)
"""pdsh's own line about a target, not the target's output: pdsh's err() puts "%p: " first,
"pdsh@" and the host it runs on (src/common/err.c), then the target, as its ssh module prints
"%p: %s: ssh exited with exit code %d" (src/modules/sshcmd.c) for a node it could not reach."""


def pdsh_own_lines(text: str) -> list[tuple[int, str, str]]:
    """pdsh's own lines (``PDSH_OWN_RE``): [(line number, target host, what pdsh said)], so a
    reader can say that pdsh could not reach (or run on) that host."""
    return [
        (number, m["host"], m["what"].strip())
        for number, line in enumerate(text.splitlines(), 1)
        if (m := PDSH_OWN_RE.match(line))
    ]


def pdsh_line_hosts(lines: Iterable[tuple[int, str]]) -> dict[int, str]:
    """pdsh's host of each numbered line, {line number: host}, where every line that is not
    blank carries pdsh's "host: " (``PDSH_BARE_RE``: too like a line's own "Word: " to be
    taken on one line); {} otherwise, and for a copy with no line at all."""
    hosts: dict[int, str] = {}
    for number, line in lines:
        if not line.strip():
            continue
        m = PDSH_BARE_RE.match(line)
        if m is None:
            return {}
        hosts[number] = m["host"]
    return hosts


def pdsh_by_host(text: str, aside: re.Pattern[str] | None = None) -> list[tuple[str | None, str]]:
    """The copy per host where every line that is not blank carries pdsh's "host: " (one host or
    several, ``pdsh -w nx-w[0-3] ...`` interleaving them), each host's lines without it and the
    other hosts' lines left blank, so a line keeps its number in the file: [(host, text)];
    [(None, text)] otherwise. pdsh's own lines ("pdsh@head: nx-w1: ssh exited with exit code
    255", ``PDSH_OWN_RE``) are no host's output: set aside (blank in every host's part) rather
    than undo the split; ``pdsh_own_lines`` gives them to a reader that says them. ``aside``:
    the lines a reader knows are no host's output without a prefix (the shell's prompt line
    before the pdsh command, a scrape's "# HELP" comments), set aside the same way."""
    lines = [
        "" if PDSH_OWN_RE.match(line) or (aside is not None and aside.match(line)) else line
        for line in text.splitlines()
    ]
    line_hosts = pdsh_line_hosts(enumerate(lines))
    if not line_hosts:
        return [(None, text)]
    return [
        without_one_pdsh_host(
            "\n".join(line if line_hosts.get(i) == host else "" for i, line in enumerate(lines))
        )
        for host in dict.fromkeys(line_hosts.values())
    ]


_LAUNCHER_PREFIXES = (
    # Open MPI --tag-output: "[1,0]<stdout>:" (job, rank); a paste may indent the whole line
    re.compile(r"^[ \t]*\[\d+,(?P<rank>\d+)\]<(?:stdout|stderr)>:\s?"),
    # Open MPI --timestamp-output stamps the line first, in ctime's form and with no space
    # before the tag: "Fri Aug 11 12:31:45 2023[1,0]<stdout>:host:pid:tid [0] ..."
    # (with --timestamp-output alone, no rank tag: "Fri Aug 11 12:31:45 2023<stdout>:...")
    re.compile(
        r"^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}"
        # (horovodrun's own rank tag after it: "Fri Sep 25 16:52:53 2020[0]<stderr>:")
        r"(?:(?=\[\d+(?:,\d+)?\]<)|<(?:stdout|stderr)>:)"
    ),
    # a Determined trial log of 2020 (horovod/horovod#2015, Horovod 0.19.3 under Determined):
    # the time in UTC, the container's id cut to 8 characters, the trial's state and "||" before
    # each line it kept, here horovodrun's stamped rank tag after it: "[2020-06-09T20:10:40Z]
    # cf108822 [RUNNING] ||  Tue Jun  9 20:10:40 2020[1]<stderr>:..." (the form as that copy
    # shows it; Determined's source for it not read)
    re.compile(
        r"^\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z\] [0-9a-f]{8} \[[A-Z_]{1,20}\] \|\| "
        r"(?: (?=[A-Z][a-z]{2} [A-Z][a-z]{2} ))?"
    ),
    # pytest's report of a failed test: "E       " before each line of the exception it caught
    # (pytest writes "E" and three spaces before the line as it was: a line indented further
    # keeps its own indent, "E             File ...")
    re.compile(r"^E {3,7}(?=\S)|^E {3}(?= +\S)"),
    # horovodrun's (Gloo controller) tag of each rank's output: "[1]<stderr>:"
    re.compile(r"^[ \t]*\[(?P<rank>\d+)\]<(?:stdout|stderr)>:\s?"),
    # torchrun --tee / --log-line-prefix-template default: "[rank3]:" or "[default0]:" (a copy
    # that capitalised it, "[Rank7]:[T506 ...", still without the space of a record's own
    # "[Rank 3]"); torch elastic's default is "[${role_name}${local_rank}]:" (its docs' example,
    # "[trainer0]: foobar"): the default role and the docs' one only, as a program's own
    # "[step400]:" or "[GPU0]:" is no launcher's tag; a template may print another number after
    # the local rank ("[trainer0|0]:"), not read (which rank it is depends on the template)
    re.compile(r"^\[(?:[Rr]ank|default|trainer)(?P<rank>\d+)(?:\|\d+)?\]:"),
    # a log collector's time stamp before torchrun's tag: "2024-11-20 14:37:16 [rank3]: ..."
    re.compile(rf"^{COLLECTOR_STAMP} (?=\[(?:[Rr]ank|default)\d+\]:)"),
    # a node's "name: " (pdsh's) before torchrun's tag, the name blanked by the poster: ": [rank18]:"
    re.compile(r"^[ \t]*: (?=\[(?:[Rr]ank|default)\d+\]:)"),
    # Slurm srun --label: "3: ", padded to the widest task number (" 0: " among ten or more);
    # srun(1): "--label: Prepend task number to lines of stdout/err", a task being a rank only
    # where srun started one task per rank (see numbered_lines)
    re.compile(r"^ *(?P<task>\d+): "),
    # MPICH / Intel MPI -prepend-rank: "[3] "; not NCCL's own device tag at a line's start when
    # its "host:pid:tid" is not printed ("[0] misc/socket.cc:71 NCCL WARN ...", "[0] NCCL INFO"),
    # nor torch_npu's logger's process id before its time stamp ("[7928] [2026-06-04
    # 15:40:34:813] torch.distributed: [WARNING] [8641] ...": pid, time with a colon before its
    # milliseconds, module, level, thread; Ascend/pytorch torch_npu/csrc/logging/Logger.cpp
    # Logger::log writes getpid(), the time, the logger's name, the level and the thread id so
    # for each of its modules: "[383554] [2026-07-01 09:31:38:047] torch_npu.memory: [ERROR]")
    # (nor the device tag before a net plugin's WARN, whose place is its function's signature:
    # GPUDirect-TCPX's "[0] tcpxResult_t tcpxCommProgress(tcpxComm*):1231 NCCL WARN ...", NCCL's
    # own debug prefix with "host:pid:tid" lost; a signature holds no "[", so a rank tag before
    # NCCL's whole "host:pid:tid [dev] file:line" prefix still reads as one)
    re.compile(
        r"^\[(?P<rank>\d+)\] (?!(?:\S+:\d+ |[\w:<>*& ]{1,120}\([^()\n]{0,200}\):\d+ )?NCCL "
        r"(?:INFO|WARN)\b"
        r"|\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3}\] torch(?:_npu)?\.\w{1,40}:)"
    ),
    # Ray streams a worker's output to the driver behind "(pid=45601)", "(Name pid=237)" or
    # "(Name pid=237, ip=10.0.0.2)" (docs.ray.io, "Configuring Logging"); vLLM's multiprocess
    # executor prefixes its workers the same way, some versions with the rank:
    # "(VllmWorker rank=1 pid=7226)"
    # (newer vLLM: "(VllmWorker TP1 pid=961)", "(EngineCore_DP0 pid=5263)": the TP index is not a
    # global rank)
    # (a log collector may stamp the line first: "[2025-05-10 00:18:21] (WorkerDict pid=1230,
    # ip=train-...-worker-0) "; ip= may hold the node's name)
    re.compile(
        rf"^(?:\[{COLLECTOR_STAMP}\] )?"
        r"\((?:[\w.:-]+ ){0,3}(?:rank=(?P<rank>\d+) )?pid=\d+(?:, ip=[\w.:-]+)?\) ?"
    ),
    # SkyPilot runs a multi-node task through Ray and names the node: "(head, rank=0, pid=3808)",
    # "(worker1, rank=1, pid=4130, ip=10.0.0.2)"; that rank is the node's, not a process rank
    re.compile(r"^\([\w.:-]+, rank=\d+, pid=\d+(?:, ip=[\w.:-]+)?\) ?"),
    # a node's name and a process index before each line, behind SkyPilot's Ray prefix
    # ("(head, rank=0, pid=5634) [nccl-e9ef-7d4f-0:3]:nccl-e9ef-7d4f-0:11172:11249 [3] NCCL
    # WARN ..."): not a rank the job numbers
    re.compile(r"^\[[\w.-]+:\d+\]:(?=\S|$)"),
    # transformers' and accelerate's test helper (testing_utils.execute_subprocess_async) echoes
    # a child's output as print("stderr:", line): "stderr:     raise ChildFailedError("
    re.compile(r"^(?:stdout|stderr): "),
    # a Kaggle notebook's saved log: elapsed seconds and the line number, tab-separated, before
    # the program's own line (which may carry a rank tag of its own)
    re.compile(r"^\d+(?:\.\d+)?s\t\d+\t"),
    # pdsh (DeepSpeed's multi-node runner) leads each line with its node (see PDSH_PREFIX_RE)
    PDSH_PREFIX_RE,
)


# vLLM's engine core process of a data-parallel rank past the first: vllm/v1/engine/utils.py
# CoreEngineProcManager starts each as Process(name=f"EngineCore_{global_index}") with dp_rank
# global_index (newer releases name it "EngineCore_DP1"); its workers' lines carry its prefix
# before their own
VLLM_DP_ENGINE_RE = re.compile(r"\(EngineCore_(?:DP)?(?P<dp>[1-9]\d*) pid=\d+\)")

# The process a Ray (or vLLM, SkyPilot) prefix names: its pid, and the node (ip=) it ran on
WORKER_PREFIX_RE = re.compile(
    r"^(?:\[[^\]]*\] )?\((?:(?P<name>[A-Za-z][\w.:-]*),? )?(?:[\w.:-]+,? ){0,2}(?:rank=\d+,? )?"
    r"pid=(?P<pid>\d+)(?:, ip=(?P<node>[\w.:-]+))?\)"
)


def strip_launcher_prefix(line: str) -> tuple[str, int | None]:
    """Remove the rank tag an MPI launcher, torchrun or Ray puts before each line.

    Returns the line without its tag and the rank the tag named (None when untagged).
    """
    stripped, rank, _, _ = _launcher_tags(line)
    return stripped, rank


def _launcher_tags(line: str) -> tuple[str, int | None, int | None, bool]:
    """``line`` without its launchers' tags, the rank they named (the innermost), srun's task
    label among them (None where there is none) and whether that rank is the label."""
    found: int | None = None
    task: int | None = None
    from_task = False
    in_dp_engine = False
    # a wrapper's tag may stand before a launcher's ("704.7s\t1439\t[rank1]: ..."): take each
    # off in turn; the innermost rank wins
    for _ in range(len(_LAUNCHER_PREFIXES)):
        m = next((m for p in _LAUNCHER_PREFIXES if (m := p.match(line))), None)
        if m is None or m.end() == 0:
            break
        rank = m.groupdict().get("rank")
        if (label := m.groupdict().get("task")) is not None:
            task = int(label)
            rank = label
        line = line[m.end() :]
        # (a worker's "rank=0" under a data-parallel engine other than the first, "(EngineCore_1
        # pid=113803) (VllmWorker rank=0 pid=114020)", is its rank in that engine: every engine
        # has a worker rank 0; torch_npu's "RankID:1" beside its error, its environment's RANK
        # (Ascend/pytorch torch_npu/csrc/core/npu/register/OptionsManager.cpp GetRankId), is
        # read as the rank instead)
        in_dp_engine = in_dp_engine or bool(VLLM_DP_ENGINE_RE.search(m.group(0)))
        if rank is not None and not in_dp_engine:
            found, from_task = int(rank), label is not None
    return line, found, task, from_task


NEXT_COMMAND_RE = re.compile(r"^\s*(?:\S*[$>]|\S+#|>)\s+\S")
"""A prompt and its command in a copy of a terminal ("> cat ...", "[root@n ~]# cmd", "$ ls"): the
output above it has ended. (A "#" alone at the line's start is a comment, not a prompt.)"""


PROMPT_HOST_RE = re.compile(
    r"^\s*(?:\(\(?[\w.-]+\)?[ \t]*\)\s+)?\[?[\w.-]{1,64}@(?P<host>[\w.-]{1,253})(?=[\s:\]#$~])"
)
"""A shell prompt's user and host at a line's start ("[root@node1 ~]#", "root@node1:/usr/local$",
"(venv) admin@gpu-3:~$", a conda environment's name in a prompt that wraps it again,
"((sglang-0.5.9) ) [dev@node7 ~]$"): the host that the commands below it ran on. (Bounded runs, each
disjoint from the next: no backtracking over a long word before an "@".)"""
MARKED_PROMPT_HOST_RE = re.compile(PROMPT_HOST_RE.pattern + r"[^\n]{0,200}?[#$](?=\s|$)")
"""A ``PROMPT_HOST_RE`` prompt with its "#" or "$" after the host: not an address a tool prints
("user@host" in an ssh error, an e-mail in a banner). Its match ends at that mark."""


RAY_DEDUP_MARK_RE = re.compile(r"\[repeated \d+x across cluster\]")
"""Ray's log deduplication's mark after a line it folded other processes' copies into ("[repeated
14x across cluster]": RAY_DEDUP_LOGS, docs.ray.io "Configuring Logging", log deduplication)."""


def without_ray_dedup_mark(line: str) -> str:
    """``line`` without the mark Ray's deduplication put at its end (the program's own words end
    before it); unchanged where it carries none."""
    tail = line.rstrip()
    if not tail.endswith("x across cluster]"):
        return line
    at = tail.rfind("[repeated ")
    if at < 0 or not RAY_DEDUP_MARK_RE.fullmatch(tail, at):
        return line
    return tail[:at].rstrip()


# The characters str.splitlines breaks a line at besides "\n" and "\r" (vertical tab, form feed,
# the file/group/record separators, NEL, U+2028, U+2029: Python's docs, str.splitlines). An editor,
# grep -n and wc -l break lines at "\n" alone, so these stay inside their line (a space).
_NOT_EDITOR_BREAKS_RE = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def as_editor_lines(text: str) -> str:
    """``text`` with its lines as an editor (and grep -n, wc -l) counts them: "\r\n" one break,
    a bare "\r" inside a line none (a progress bar's updates): what follows its last bare "\r"
    stands for the line, as a terminal showed it after the overwrites (the last non-empty piece
    where the line ends in one). A text whose only breaks are "\r" (classic Mac) keeps them as
    breaks. str.splitlines on the result gives the lines at the numbers an editor shows."""
    if "\n" not in text:
        return _NOT_EDITOR_BREAKS_RE.sub(" ", text.replace("\r", "\n"))
    text = text.replace("\r\n", "\n")
    if "\r" in text:
        text = "\n".join(_terminal_shown(line) for line in text.split("\n"))
    return _NOT_EDITOR_BREAKS_RE.sub(" ", text)


def _terminal_shown(line: str) -> str:
    if "\r" not in line:
        return line
    pieces = [piece for piece in line.split("\r") if piece.strip()]
    return pieces[-1] if pieces else ""


def numbered_lines(text: str) -> list[tuple[int, str, int | None]]:
    """``(line_number, line_without_launcher_tag, tagged_rank)`` for every line of ``text`` (and
    without the mark Ray's deduplication put after a line: the program's words end before it),
    numbered as an editor numbers them (``as_editor_lines``)."""
    tagged = [_launcher_tags(raw) for raw in as_editor_lines(text).splitlines()]
    # srun's label is a task's number: a rank where srun started a task a rank, not where a
    # task's line carries another rank of its own (torchrun's "2: [rank18]:", one task a node)
    tasks_are_ranks = all(task in (None, rank) for _, rank, task, _ in tagged)
    marked = "across cluster]" in text
    return [
        (
            i,
            without_ray_dedup_mark(line) if marked else line,
            None if from_task and not tasks_are_ranks else rank,
        )
        for i, (line, rank, _, from_task) in enumerate(tagged, start=1)
    ]


# nccl-tests doc/PERFORMANCE.md: busbw = algbw x factor, with algbw = S / t where S is the
# full buffer (all_gather, reduce_scatter, all_to_all: per-rank bytes x n). hypercube_perf
# (src/hypercube.cu, HyperCubeGetBw) prints algbw as per-rank bytes x (n - 1) / t, already the
# bytes each rank receives, and busbw as that algbw times 1: its printed ratio is 1 at any n.
_BUS_FACTORS = {
    "all_reduce": lambda n: 2 * (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n,
    "all_to_all": lambda n: (n - 1) / n,
    "gather": lambda n: (n - 1) / n,
    "scatter": lambda n: (n - 1) / n,
    "hypercube": lambda n: 1.0,
    "broadcast": lambda n: 1.0,
    "reduce": lambda n: 1.0,
    "send_recv": lambda n: 1.0,
}

BUS_FACTOR_OPS = frozenset(_BUS_FACTORS)
"""The ops busbw_factor knows."""


def busbw_factor(op: str, ranks: int) -> float:
    """Bus-bandwidth factor of ``op`` over ``ranks`` ranks (nccl-tests' convention)."""
    if op not in _BUS_FACTORS:
        raise ValueError(
            f"no bus-bandwidth factor for operation {op!r}; known: {sorted(_BUS_FACTORS)}"
        )
    if ranks < 1:
        raise ValueError(f"rank count must be at least 1, got {ranks}")
    return _BUS_FACTORS[op](ranks)


GBYTES_TO_GBITS = 8.0
"""Tools print GB/s; facts hold Gbit/s (decimal), the unit of link nominal_gbps."""


def json_object(value: object) -> dict[str, Any]:
    """``value`` where it is a JSON object, else an empty one (a field missing or of another
    shape in a tool's JSON reads as absent)."""
    return value if isinstance(value, dict) else {}


def json_number(value: object) -> float | None:
    """``value`` where it is a JSON number (not a bool, which Python counts as one), else None."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
