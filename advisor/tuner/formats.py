"""The two tuner-plugin config formats, checked against what their plugins' code really does.

NCCL (NVIDIA/nccl ``plugins/tuner/example/plugin.c``, before 2.29.7 ``ext-tuner/example``): a CSV
line per rule, ``collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks
[,numPipeOps[,regBuff]]``; a line is a comment only when its first character is ``#``; fields are
split with strtok on ``,`` (an empty field vanishes and shifts the rest) and trimmed; lines are
read 256 bytes at a time. Names are compared exactly; an unknown one is silently read as the
default (allreduce, ring, simple); bytes are strtoull (``abc`` → 0, ``-1`` → 2^64-1); a line with
fewer than 8 fields is skipped without a word; the first matching rule (bytes inclusive at both
ends; -1 = any for nNodes, nRanks, numPipeOps, regBuff) wins; the plugin never refuses a file.

HCCL (hicann/hccl ``examples/06_tuner_plugin/plugin.cpp``, later ``07_tuner_plugin``): JSON
``{"version": 1, "op_types": {op: {"rules": [{"match": {...}, "engine", "executor", "template",
"cost"}]}}}``; ``match`` needs ``min_ranks``, ``max_ranks``, ``min_bytes``, ``max_bytes``
(inclusive, unsigned: no -1) and may hold ``data_type``, ``comm_name`` and per-level ranges; any
schema error (a missing or mistyped field, an unknown op, engine or executor, min > max, an empty
rule list, a limit passed) makes the plugin stand aside for the whole file ("plugin will not
intervene"), while an unknown key is only skipped and an unknown data_type never matches.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

# ---------------------------------------------------------------- NCCL

NCCL_COLLECTIVES = ("broadcast", "reduce", "allgather", "reducescatter", "allreduce")
NCCL_ALGORITHMS = ("tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat")
NCCL_PROTOCOLS = ("ll", "ll128", "simple")
NCCL_FIELDS = (
    "collective_type", "min_bytes", "max_bytes", "algorithm", "protocol", "channels", "nNodes",
    "nRanks", "numPipeOps", "regBuff",
)  # fmt: skip
NCCL_REQUIRED_FIELDS = 8
NCCL_LINE_BYTES = 256
"""plugin.c ``MAX_LINE_LENGTH``: fgets reads a longer line in pieces, each parsed as a rule."""
_NCCL_DEFAULT_OF = {"collective_type": "allreduce", "algorithm": "ring", "protocol": "simple"}
U64_MAX = 2**64 - 1

# ---------------------------------------------------------------- HCCL

HCCL_OP_TYPES = (
    "allreduce", "allgather", "broadcast", "reduce", "reduce_scatter", "scatter", "alltoall",
    "alltoallv",
)  # fmt: skip
HCCL_ENGINES = ("aicpu", "ccums", "ccusched", "aiv", "dpu")
HCCL_EXECUTORS = ("sole", "sequence", "parallel", "pipeline", "concur")
HCCL_TEMPLATES = (
    "mesh", "mesh2die", "meshoneshot", "meshtwoshot", "meshconcur", "meshmultilink", "meshchunk",
    "meshchunktwoshot", "nhr", "nhrmultilink",
)  # fmt: skip
"""The templates the 06 example checks; the 07 plugin takes any non-empty name (a multi-level
algorithm's, ``meshconcurnhrnhr``), and a wrong one only logs 'rule matched but no entry
modified' at run time."""
HCCL_DATA_TYPES = (
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "fp16", "float16",
    "fp32", "float32", "fp64", "float64", "bfp16", "bfloat16",
)  # fmt: skip
HCCL_RULE_KEYS = ("match", "engine", "executor", "template", "cost", "args")
HCCL_MATCH_REQUIRED = ("min_ranks", "max_ranks", "min_bytes", "max_bytes")
_HCCL_MATCH_U32 = (
    "min_ranks", "max_ranks", "min_npus_per_server", "max_npus_per_server", "min_servers",
    "max_servers", "min_pods", "max_pods", "min_super_pods", "max_super_pods",
)  # fmt: skip
_HCCL_MATCH_SIZE = ("min_bytes", "max_bytes", "buffer_size")
HCCL_MATCH_KEYS = (*_HCCL_MATCH_U32, *_HCCL_MATCH_SIZE, "data_type", "comm_name")
HCCL_MAX_OP_TYPES, HCCL_MAX_RULES_PER_OP, HCCL_MAX_RULES = 8, 2000, 5000
HCCL_MAX_FILE_BYTES = 4 * 2**20
U32_MAX = 2**32 - 1


@dataclass(kw_only=True)
class Problem:
    where: str
    """``line 7`` (NCCL) or the rule's path ``op_types.allreduce.rules[2]`` (HCCL)."""
    field: str
    message: str
    severity: str = "error"
    """error: the plugin ignores the rule or the whole file, or does what the file does not
    say; warning: legal, but it will not do what it seems to (a rule that never matches)."""


@dataclass(kw_only=True)
class Rule:
    """One rule, in either format's terms (NCCL names its collectives without underscores)."""

    where: str
    op: str
    min_bytes: int
    max_bytes: int
    choice: str
    """What it picks: ``ring/ll128`` (NCCL), ``aicpu/sole/nhr`` (HCCL)."""
    min_ranks: int = 0
    max_ranks: int = U32_MAX
    nodes: int = -1
    """NCCL nNodes (-1 any)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """What else must match (numPipeOps, regBuff, data_type ...), by name."""


@dataclass(kw_only=True)
class Checked:
    path: str
    format: str
    """nccl or hccl."""
    rules: list[Rule] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]


def detect(text: str) -> str:
    """``hccl`` for a JSON document, else ``nccl``."""
    return "hccl" if text.lstrip().startswith("{") else "nccl"


def check(
    text: str, path: str = "", *, nodes: int | None = None, ranks: int | None = None
) -> Checked:
    """Check ``text`` in the format it is in; ``nodes``/``ranks``: the job it is meant for (rules
    that cannot match it are named)."""
    out = check_hccl(text, path) if detect(text) == "hccl" else check_nccl(text, path)
    out.problems += _shadowed(out.rules)
    if nodes is not None or ranks is not None:
        out.problems += _not_for_job(out, nodes, ranks)
    return out


# ---------------------------------------------------------------- NCCL checks


def _int(token: str) -> int | None:
    try:
        return int(token)
    except ValueError:
        return None


def check_nccl(text: str, path: str = "") -> Checked:
    out = Checked(path=path, format="nccl")
    for no, raw in enumerate(text.splitlines(), start=1):
        where = f"line {no}"
        line = raw.rstrip("\r")
        if not line or line.startswith("#"):
            continue
        if len(line.encode()) >= NCCL_LINE_BYTES - 1:
            out.problems.append(Problem(where=where, field="line", message=(
                f"{len(line.encode())} bytes: the plugin reads {NCCL_LINE_BYTES - 1} at a time and "
                "parses each piece as a rule of its own")))  # fmt: skip
            continue
        if not line.strip():
            continue
        if line.lstrip().startswith("#"):
            out.problems.append(Problem(where=where, field="line", severity="warning", message=(
                "an indented comment: only a '#' in the first column is a comment to the plugin "
                "(this line is read as a rule and dropped)")))  # fmt: skip
            continue
        raw_tokens = line.split(",")
        if any(not t.strip() for t in raw_tokens):
            empty = next(i for i, t in enumerate(raw_tokens) if not t.strip())
            name = NCCL_FIELDS[empty] if empty < len(NCCL_FIELDS) else f"field {empty + 1}"
            out.problems.append(Problem(where=where, field=name, message=(
                "empty field: the plugin's strtok skips it and every later field moves one "
                "place left")))  # fmt: skip
            continue
        tokens = [t.strip(" \t") for t in raw_tokens]
        if "#" in tokens[-1]:
            out.problems.append(Problem(where=where, field=NCCL_FIELDS[min(len(tokens), 10) - 1],
                message="a comment after the data: the plugin reads it as part of the last field"))  # fmt: skip
            continue
        if len(tokens) < NCCL_REQUIRED_FIELDS:
            out.problems.append(Problem(where=where, field=NCCL_FIELDS[len(tokens)], message=(
                f"{len(tokens)} fields: the plugin needs {NCCL_REQUIRED_FIELDS} "
                f"({','.join(NCCL_FIELDS[:NCCL_REQUIRED_FIELDS])}) and skips this line without "
                "a word")))  # fmt: skip
            continue
        if len(tokens) > len(NCCL_FIELDS):
            out.problems.append(Problem(where=where, field=f"field {len(NCCL_FIELDS) + 1}",
                severity="warning", message=(
                f"{len(tokens)} fields: the plugin reads the first {len(NCCL_FIELDS)} and ignores "
                "the rest")))  # fmt: skip
        values = dict(zip(NCCL_FIELDS, tokens, strict=False))
        bad = False
        for name, allowed in (
            ("collective_type", NCCL_COLLECTIVES),
            ("algorithm", NCCL_ALGORITHMS),
            ("protocol", NCCL_PROTOCOLS),
        ):
            if values[name] not in allowed:
                bad = True
                out.problems.append(Problem(where=where, field=name, message=(
                    f"unknown {name.replace('_', ' ')} {values[name]!r} (names are exact and "
                    f"lower case: {', '.join(allowed)}): the plugin silently reads it as "
                    f"{_NCCL_DEFAULT_OF[name]}")))  # fmt: skip
        sizes = {}
        for name in ("min_bytes", "max_bytes"):
            given = values[name]
            if not given.isdigit():
                bad = True
                read = "2^64-1" if given == "-1" else "0" if _int(given) is None else f"2^64{given}"
                out.problems.append(Problem(where=where, field=name, message=(
                    f"{given!r} is not an unsigned byte count: the plugin (strtoull) reads it as "
                    f"{read}")))  # fmt: skip
            else:
                sizes[name] = int(given)
        if len(sizes) == 2 and sizes["min_bytes"] > sizes["max_bytes"]:
            bad = True
            out.problems.append(Problem(where=where, field="min_bytes", message=(
                f"min_bytes {sizes['min_bytes']} > max_bytes {sizes['max_bytes']}: the rule "
                "never matches")))  # fmt: skip
        ints: dict[str, int] = {}
        for name in NCCL_FIELDS[5:]:
            if name not in values:
                ints[name] = -1
                continue
            number = _int(values[name])
            if number is None or number < -1 or (number == 0 and name in ("nNodes", "nRanks")):
                bad = True
                out.problems.append(Problem(where=where, field=name, message=(
                    f"{values[name]!r}: give a positive count or -1 (any); the plugin (atoi) "
                    f"reads it as {number if number is not None else 0}"
                    + (", which no communicator has" if number == 0 else ""))))  # fmt: skip
                continue
            if name == "regBuff" and number not in (-1, 0, 1):
                bad = True
                out.problems.append(Problem(where=where, field=name, message=(
                    f"{number}: regBuff is 0, 1 or -1 (any)")))  # fmt: skip
                continue
            ints[name] = number
        if ints.get("channels") == -1:
            out.problems.append(Problem(where=where, field="channels", severity="warning", message=(
                "-1: the example plugin then reports 1 channel (it sets *nChannels = 1 before "
                "matching), and NCCL keeps its own channel count only when it gets 0: give 0 "
                "to leave the channels to NCCL, or the count you mean")))  # fmt: skip
        if bad:
            continue
        out.rules.append(
            Rule(
                where=where,
                op=values["collective_type"],
                min_bytes=sizes["min_bytes"],
                max_bytes=sizes["max_bytes"],
                choice=f"{values['algorithm']}/{values['protocol']}",
                min_ranks=ints["nRanks"] if ints["nRanks"] != -1 else 0,
                max_ranks=ints["nRanks"] if ints["nRanks"] != -1 else U32_MAX,
                nodes=ints["nNodes"],
                extra={"numPipeOps": ints["numPipeOps"], "regBuff": ints["regBuff"]},
            )
        )
    return out


# ---------------------------------------------------------------- HCCL checks


def check_hccl(text: str, path: str = "") -> Checked:
    out = Checked(path=path, format="hccl")

    def error(where: str, name: str, message: str) -> None:
        out.problems.append(Problem(where=where, field=name, message=(
            f"{message}; any schema error makes the plugin stand aside for the whole file")))  # fmt: skip

    def warn(where: str, name: str, message: str) -> None:
        out.problems.append(Problem(where=where, field=name, message=message, severity="warning"))

    if len(text.encode()) > HCCL_MAX_FILE_BYTES:
        error("file", "file", f"larger than the plugin's {HCCL_MAX_FILE_BYTES >> 20} MiB limit")
        return out
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        out.problems.append(Problem(where=f"line {e.lineno}", field="json", message=(
            f"not JSON ({e.msg}, column {e.colno}): the plugin does nothing with this file")))  # fmt: skip
        return out
    if not isinstance(doc, dict):
        error("file", "file", "the document is not a JSON object")
        return out
    if doc.get("version") != 1 or isinstance(doc.get("version"), bool):
        error("file", "version", f"version must be 1 (got {doc.get('version')!r})")
    op_types = doc.get("op_types")
    if not isinstance(op_types, dict):
        error("file", "op_types", "op_types must be an object of op type → {rules: [...]}")
        return out
    if len(op_types) > HCCL_MAX_OP_TYPES:
        error(
            "op_types",
            "op_types",
            f"{len(op_types)} op types: the plugin takes {HCCL_MAX_OP_TYPES}",
        )
    total = 0
    for op, body in op_types.items():
        base = f"op_types.{op}"
        if op not in HCCL_OP_TYPES:
            hint = " (reduce_scatter has an underscore)" if op == "reducescatter" else ""
            error(
                base, "op_type", f"unknown op type {op!r}{hint}: one of {', '.join(HCCL_OP_TYPES)}"
            )
            continue
        rules = body.get("rules") if isinstance(body, dict) else None
        if not isinstance(rules, list) or not rules:
            error(base, "rules", "needs a non-empty rules array")
            continue
        if len(rules) > HCCL_MAX_RULES_PER_OP:
            error(
                base,
                "rules",
                f"{len(rules)} rules: the plugin takes {HCCL_MAX_RULES_PER_OP} per op type",
            )
        total += len(rules)
        for i, rule in enumerate(rules):
            _hccl_rule(out, f"{base}.rules[{i}]", op, rule, error, warn)
    if total > HCCL_MAX_RULES:
        error("op_types", "rules", f"{total} rules in all: the plugin takes {HCCL_MAX_RULES}")
    return out


def _hccl_rule(out: Checked, where: str, op: str, rule: Any, error: Any, warn: Any) -> None:
    if not isinstance(rule, dict):
        error(where, "rule", "a rule must be an object")
        return
    for key in rule:
        if key not in HCCL_RULE_KEYS:
            warn(
                where,
                key,
                f"unknown field {key!r}: the plugin skips it (known: {', '.join(HCCL_RULE_KEYS)})",
            )
    bad = False
    for key, allowed in (("engine", HCCL_ENGINES), ("executor", HCCL_EXECUTORS)):
        value = rule.get(key)
        if not isinstance(value, str):
            error(where, key, f"missing {key} (a string; no default or inherited value)")
            bad = True
        elif value not in allowed:
            error(where, key, f"unknown {key} {value!r}: one of {', '.join(allowed)}")
            bad = True
    template = rule.get("template")
    if not isinstance(template, str) or not template:
        error(where, "template", "missing template (a non-empty string)")
        bad = True
    elif template not in HCCL_TEMPLATES:
        warn(where, "template", (
            f"template {template!r} is not one the 06 example plugin accepts "
            f"({', '.join(HCCL_TEMPLATES)}); the 07 plugin takes it, and a wrong name only logs "
            "'rule matched but no entry modified' when a collective meets it"))  # fmt: skip
    cost = rule.get("cost")
    if not isinstance(cost, int | float) or isinstance(cost, bool):
        error(where, "cost", "missing cost (a number: <0 disables, 0 prefers, >0 sets the cost)")
        bad = True
    match = rule.get("match")
    if not isinstance(match, dict):
        error(where, "match", "missing match (an object)")
        return
    for key in match:
        if key not in HCCL_MATCH_KEYS:
            warn(f"{where}.match", key, f"unknown field {key!r}: the plugin skips it")
    values: dict[str, int] = {}
    for key in (*_HCCL_MATCH_U32, *_HCCL_MATCH_SIZE):
        if key not in match:
            if key in HCCL_MATCH_REQUIRED:
                error(f"{where}.match", key, f"missing {key} (required; there is no default)")
                bad = True
            continue
        value = match[key]
        limit = U32_MAX if key in _HCCL_MATCH_U32 else U64_MAX
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= limit:
            error(f"{where}.match", key, (
                f"{value!r}: an unsigned integer up to {limit} (there is no -1 for 'any': give "
                f"0 and {limit})"))  # fmt: skip
            bad = True
            continue
        values[key] = value
    for low, high in (("min_ranks", "max_ranks"), ("min_bytes", "max_bytes"),
                      ("min_npus_per_server", "max_npus_per_server"), ("min_servers", "max_servers"),
                      ("min_pods", "max_pods"), ("min_super_pods", "max_super_pods")):  # fmt: skip
        if low in values and high in values and values[low] > values[high]:
            error(f"{where}.match", low, f"{low} {values[low]} > {high} {values[high]}")
            bad = True
    data_type = match.get("data_type")
    if data_type is not None and data_type not in HCCL_DATA_TYPES:
        warn(f"{where}.match", "data_type", (
            f"unknown data_type {data_type!r}: the plugin reads it as RESERVED and the rule never "
            f"matches (one of {', '.join(HCCL_DATA_TYPES)})"))  # fmt: skip
    if bad:
        return
    out.rules.append(
        Rule(
            where=where,
            op=op,
            min_bytes=values["min_bytes"],
            max_bytes=values["max_bytes"],
            choice=f"{rule['engine']}/{rule['executor']}/{template}",
            min_ranks=values["min_ranks"],
            max_ranks=values["max_ranks"],
            extra={k: match[k] for k in match if k not in HCCL_MATCH_REQUIRED},
        )
    )


# ---------------------------------------------------------------- rules against each other


def _covers(earlier: Rule, later: Rule) -> bool:
    """Whether ``earlier`` matches whatever ``later`` does (first match wins)."""
    if earlier.op != later.op or earlier.nodes not in (-1, later.nodes):
        return False
    if not (earlier.min_ranks <= later.min_ranks and later.max_ranks <= earlier.max_ranks):
        return False
    for key, value in earlier.extra.items():
        if value not in (-1, None) and later.extra.get(key) != value:
            return False
    return earlier.min_bytes <= later.min_bytes and later.max_bytes <= earlier.max_bytes


def _shadowed(rules: list[Rule]) -> list[Problem]:
    problems = []
    for i, later in enumerate(rules):
        for earlier in rules[:i]:
            if _covers(earlier, later):
                problems.append(Problem(where=later.where, field="min_bytes", severity="warning",
                    message=f"unreachable: the rule at {earlier.where} matches every message this "
                    f"one does, and the first match wins ({earlier.choice})"))  # fmt: skip
                break
            if (
                earlier.op == later.op
                and earlier.min_bytes <= later.max_bytes
                and later.min_bytes <= earlier.max_bytes
                and earlier.choice != later.choice
                and _covers(
                    Rule(**{**earlier.__dict__, "min_bytes": 0, "max_bytes": U64_MAX}),
                    Rule(**{**later.__dict__, "min_bytes": 0, "max_bytes": U64_MAX}),
                )
            ):
                low, high = (
                    max(earlier.min_bytes, later.min_bytes),
                    min(earlier.max_bytes, later.max_bytes),
                )
                problems.append(Problem(where=later.where, field="min_bytes", severity="warning",
                    message=f"overlaps the rule at {earlier.where} for {low}–{high} bytes: that "
                    f"one wins there ({earlier.choice})"))  # fmt: skip
                break
    return problems


def _not_for_job(out: Checked, nodes: int | None, ranks: int | None) -> list[Problem]:
    problems = []
    for r in out.rules:
        if nodes is not None and r.nodes not in (-1, nodes):
            problems.append(Problem(where=r.where, field="nNodes", severity="warning",
                message=f"never matches this job: nNodes {r.nodes}, the job has {nodes}"))  # fmt: skip
        elif ranks is not None and not r.min_ranks <= ranks <= r.max_ranks:
            name = "nRanks" if out.format == "nccl" else "min_ranks"
            problems.append(Problem(where=r.where, field=name, severity="warning",
                message=f"never matches this job: ranks {r.min_ranks}–{r.max_ranks}, the job has {ranks}"))  # fmt: skip
    return problems


# ---------------------------------------------------------------- writing


NCCL_OP_OF = {
    "all_reduce": "allreduce",
    "all_gather": "allgather",
    "reduce_scatter": "reducescatter",
    "broadcast": "broadcast",
}
"""The bench's op names → the NCCL example plugin's (it has no all_to_all)."""


def nccl_choice(env: dict[str, str]) -> tuple[str, str] | None:
    """(algorithm, protocol) in the plugin's names from a variant's NCCL_ALGO / NCCL_PROTO
    (``allreduce:ring`` or ``Ring``); None when the variant fixes neither."""
    algo = env.get("NCCL_ALGO", "").split(":")[-1].strip().lower()
    proto = env.get("NCCL_PROTO", "").split(":")[-1].strip().lower()
    if algo not in NCCL_ALGORITHMS or proto not in NCCL_PROTOCOLS:
        return None
    return algo, proto


def nccl_conf(
    lines: list[tuple[str, int, int, str, str, str]], *, nodes: int, ranks: int, header: str
) -> str:
    """``lines``: (op, min_bytes, max_bytes, algorithm, protocol, why) in order. channels 0: NCCL
    keeps its own count (the example plugin passes 0 through; -1 would report 1 channel)."""
    out = [f"# {h}" for h in header.splitlines()]
    out.append(
        "# collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks,"
        "numPipeOps,regBuff"
    )
    for op, low, high, algo, proto, why in lines:
        out.append(f"# {why}")
        out.append(f"{op},{low},{high},{algo},{proto},0,{nodes},{ranks},-1,-1")
    return "\n".join(out) + "\n"


HCCL_OP_OF = {
    "all_reduce": "allreduce",
    "all_gather": "allgather",
    "reduce_scatter": "reduce_scatter",
    "broadcast": "broadcast",
}

HCCL_TEMPLATE_OF_LEVEL1 = {"NHR": ("aicpu", "sole", "nhr")}
"""HCCL_ALGO level-1 algorithms with a counterpart in the cost-model selector the tuner plugin
feeds (hicann/hccl: AicpuAllReduceSoleNHR and its AllGather / ReduceScatter siblings, the
``ins_v2_*_sole_executor.cc`` registrations). ring, H-D_R and NB exist only on the legacy path
(``alg_env_config.cc``), with no engine/executor/template to name."""


def hccl_choice(env: dict[str, str]) -> tuple[str, str, str] | None:
    """(engine, executor, template) for a variant's ``HCCL_ALGO=level0:NA;level1:<algo>``."""
    for part in env.get("HCCL_ALGO", "").split(";"):
        level, _, algo = part.partition(":")
        if level.strip() == "level1":
            return HCCL_TEMPLATE_OF_LEVEL1.get(algo.strip())
    return None


def hccl_json(
    rules: list[tuple[str, int, int, tuple[str, str, str], str]], *, ranks: int, notes: list[str]
) -> str:
    """``rules``: (op type, min_bytes, max_bytes, (engine, executor, template), why). JSON has
    no comments: the measurements go under a top-level ``advisor`` key, which the plugin does
    not read (it checks only version and op_types)."""
    op_types: dict[str, Any] = {}
    why = []
    for op, low, high, (engine, executor, template), reason in rules:
        op_types.setdefault(op, {"rules": []})["rules"].append(
            {
                "match": {"min_ranks": ranks, "max_ranks": ranks, "min_bytes": low,
                          "max_bytes": min(high, U64_MAX)},
                "engine": engine,
                "executor": executor,
                "template": template,
                "cost": 0.0,
            }
        )  # fmt: skip
        why.append(f"{op} {low}-{high} B: {reason}")
    doc = {"version": 1, "op_types": op_types, "advisor": {"notes": notes, "why": why}}
    return json.dumps(doc, indent=2) + "\n"
