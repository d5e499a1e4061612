"""The sandbox rule expressions and message templates run in.

Rules are data written by users, so nothing in them may run code, read files or exhaust the host.
The sandbox is Jinja2's immutable sandbox, narrowed further:

- no globals but a whitelist of pure functions (``FUNCTIONS``) and a whitelist of filters;
- a call is allowed only to those functions and to a few read-only methods of plain data
  (``dict.get``, ``str.startswith`` ...); ``str.format`` and every other method is refused;
- private and dunder attributes raise ``SecurityError`` (not a quiet undefined);
- every operation that builds a string or a list is checked before it builds: ``**``, ``*``
  (numbers and repeats), ``+``, ``~``, ``%`` (refused on strings), ``join``, the filters that
  turn values into text, ``str()``, ``range`` and each ``{{ }}`` of a message; one value may hold
  ``MAX_BUILD`` characters or items and one expression or message may build ``MAX_BUILT_TOTAL``
  in all, so ``10**10**10``, ``'x' * 10**9``, ``{% set a = a ~ a %}`` repeated and a loop
  repeating a big build cannot exhaust memory or time; ``format``, ``center``, ``indent``,
  ``wordwrap`` and string methods such as ``ljust`` are not reachable at all;
- expressions and messages may nest ``MAX_NESTING`` deep (brackets, prefix operators, blocks,
  and the depth of the syntax tree an operator chain builds), checked before Jinja's recursive
  parser and compiler run, so deep nesting is a validation error, never a RecursionError;
- message templates may nest loops two deep at most, and their output stops at
  ``MAX_MESSAGE_CHARS``;
- a fact that is missing raises ``MissingFact`` naming its dotted path, so a rule over a missing
  fact is reported "not evaluated", never silently passed.
"""

from __future__ import annotations

import functools
import json
import math
import operator
import statistics
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, cast

from jinja2 import StrictUndefined, Undefined, nodes, pass_context, pass_eval_context
from jinja2.compiler import CodeGenerator, Frame, optimizeconst
from jinja2.exceptions import SecurityError, UndefinedError
from jinja2.filters import do_join as _JINJA_JOIN
from jinja2.parser import Parser
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.utils import missing

from advisor import backends

MAX_SEQUENCE = 1_000
"""Longest ``range``."""
MAX_LOOP_DEPTH = 2
"""A loop may hold a loop, no deeper: with ``range`` bounded, a message costs at most about
a million iterations."""
MAX_BUILD = 1_000_000
"""Largest string or list one operation (``*``, ``+``, ``~``, ``join``, ``flatten``, a text
filter, ``str()``, a message's ``{{ }}``) may build, in characters and items (see ``size``)."""
MAX_BUILT_TOTAL = 20_000_000
"""Characters and items one expression or message may build in all: a loop repeating a big
build is refused before it costs more than about a second."""
MAX_NESTING = 32
"""Deepest nesting of an expression or message: brackets, prefix operators (``not``, ``-``) and
blocks in its text, and the depth of its syntax tree (``1+1+...`` nests one level per ``+``).
Jinja's parser and compiler recurse once or more per level, so this keeps them far from
Python's recursion limit; the built-in rules nest 11 deep at most."""
MAX_EXPONENT = 64
MAX_POWER_BASE = 2**64
MAX_INT_BITS = 8192
"""Largest integer ``*`` may make (bits): repeated ``a * a`` would otherwise double it each
time."""
MAX_MESSAGE_CHARS = 4000


class MissingFact(UndefinedError):
    """A rule read a fact this run does not have."""


class InputNotCollected(MissingFact):
    """A rule read a whole input this run never collected: a stage that did not run, or a kind
    of evidence that was not imported. The rule does not apply, rather than failing to evaluate:
    a quick run without a sweep has nothing wrong with it."""


class FactDict(dict[str, Any]):
    """A mapping of facts that knows its dotted path, so a missing key names where it was read."""

    __slots__ = ("path",)

    def __init__(self, data: Mapping[str, Any], path: str) -> None:
        super().__init__(data)
        self.path = path


class FactList(list[Any]):
    """A list of facts that knows its dotted path."""

    __slots__ = ("path",)

    def __init__(self, data: Iterable[Any], path: str) -> None:
        super().__init__(data)
        self.path = path


_LEAVES = frozenset((str, int, float, bool, type(None)))


def wrap(value: Any, path: str) -> Any:
    """Plain JSON-like data → FactDict/FactList (recursively), so missing facts name their path."""
    if type(value) in _LEAVES:
        return value
    # Leaves are kept as they are without building their path: an import holds tens of
    # thousands of events, each with dozens of scalar fields.
    if isinstance(value, Mapping):
        return FactDict(
            {
                str(k): v if type(v) in _LEAVES else wrap(v, f"{path}.{k}" if path else str(k))
                for k, v in value.items()
            },
            path,
        )
    if isinstance(value, list | tuple):
        return FactList(
            (v if type(v) in _LEAVES else wrap(v, f"{path}[{i}]") for i, v in enumerate(value)),
            path,
        )
    return value


def wrap_json(value: Any, path: str) -> Any:
    """``wrap(json.loads(json.dumps(value, default=str)), path)`` in one pass: what the rules
    see of the facts is their JSON form. Only a value JSON would change (a tuple, a key or leaf
    that is not a plain string, number, bool or None) takes the round trip; an import's tens of
    thousands of events are plain already."""
    cls = type(value)
    if cls in _LEAVES:
        return value
    if cls is dict and all(type(k) is str for k in value):
        return FactDict(
            {
                k: v if type(v) in _LEAVES else wrap_json(v, f"{path}.{k}" if path else k)
                for k, v in value.items()
            },
            path,
        )
    if cls is list:
        return FactList(
            (
                v if type(v) in _LEAVES else wrap_json(v, f"{path}[{i}]")
                for i, v in enumerate(value)
            ),
            path,
        )
    return wrap_json(json.loads(json.dumps(value, default=str)), path)


class Missing(StrictUndefined):
    """Undefined that fails on any use with the dotted path of the missing fact."""

    __slots__ = ()

    def _fail_with_undefined_error(self, *args: Any, **kwargs: Any) -> Any:
        raise self._error()

    def _error(self) -> MissingFact:
        return MissingFact(self._missing_message())

    def _missing_message(self) -> str:
        name = self._undefined_name
        owner = self._undefined_obj
        if owner is None:
            return f"a fact read as null (not recorded) has no {name!r}"
        if owner is missing:
            return (
                self._undefined_hint or f"fact {name!r} is missing (no stage {name!r} in this run)"
            )
        base = getattr(owner, "path", None)
        if base is None:
            return f"{type(owner).__name__} value has no {name!r}"
        where = f"{base}.{name}" if isinstance(name, str) else f"{base}[{name!r}]"
        return f"fact {where!r} is missing"

    __iter__ = __str__ = __len__ = _fail_with_undefined_error
    __eq__ = __ne__ = __bool__ = __hash__ = _fail_with_undefined_error
    __contains__ = __lt__ = __le__ = __gt__ = __ge__ = _fail_with_undefined_error
    __int__ = __float__ = __complex__ = __pow__ = __rpow__ = _fail_with_undefined_error
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _fail_with_undefined_error
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = _fail_with_undefined_error
    __mod__ = __rmod__ = __neg__ = __pos__ = __abs__ = __call__ = _fail_with_undefined_error
    __getitem__ = _fail_with_undefined_error

    def __getattr__(self, name: str) -> Any:
        if name[:2] == "__":
            raise AttributeError(name)
        return self._fail_with_undefined_error()


class NotCollected(Missing):
    """Stands in the context for an input the run never collected (a known stage that did not
    run, evidence when none was imported): any use raises InputNotCollected with the hint, and
    ``is defined`` answers False as for any missing fact."""

    __slots__ = ()

    @property
    def reason(self) -> str:
        """Why the input is not there (the hint it was made with)."""
        return self._undefined_hint or "an input of this run was not collected"

    def _error(self) -> MissingFact:
        return InputNotCollected(self.reason)


def _defined(args: Iterable[Any]) -> list[Any]:
    """Arguments with every missing fact reported (a function never sees an Undefined)."""
    out = list(args)
    for a in out:
        if isinstance(a, Missing):
            a._fail_with_undefined_error()
    return out


def _values(args: tuple[Any, ...]) -> list[Any]:
    """``f(a, b, c)`` or ``f([a, b, c])`` (or a mapping's values) → a checked list."""
    if len(args) == 1 and not isinstance(args[0], str | bytes | int | float):
        (only,) = _defined(args)
        items = only.values() if isinstance(only, Mapping) else only
        return _defined(items)
    return _defined(args)


def _min(*args: Any) -> Any:
    return min(_values(args))


def _max(*args: Any) -> Any:
    return max(_values(args))


def _sum(*args: Any) -> Any:
    return sum(_values(args))


def _percentile(values: Any, q: float) -> float:
    """Linear-interpolated percentile (``q`` in 0–100) of a list or a mapping's values."""
    data = sorted(float(v) for v in _values((values,)))
    if not data:
        raise ValueError("percentile of no values")
    if not 0 <= q <= 100:
        raise ValueError(f"percentile q must be in 0–100, got {q}")
    k = (len(data) - 1) * q / 100
    lo, hi = math.floor(k), math.ceil(k)
    return data[lo] + (data[hi] - data[lo]) * (k - lo)


def _median(values: Any) -> float:
    return float(statistics.median(float(v) for v in _values((values,))))


def _mean(values: Any) -> float:
    return float(statistics.fmean(float(v) for v in _values((values,))))


def as_int(value: Any) -> int | None:
    """An integer written as a string or number; None when it is not one (``'12a'``, ``'1.5'``)."""
    (value,) = _defined((value,))
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    text = str(value).strip()
    if not text or len(text) > 20:
        return None
    try:
        return int(text, 10)
    except ValueError:
        return None


def as_float(value: Any) -> float | None:
    """A number written as a string or number; None when it is not one."""
    (value,) = _defined((value,))
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    text = str(value).strip()
    if not text or len(text) > 40:
        return None
    try:
        result = float(text)
    except ValueError:
        return None
    return result if math.isfinite(result) else None


def _clamp(value: Any, lo: Any, hi: Any) -> Any:
    value, lo, hi = _defined((value, lo, hi))
    return max(lo, min(hi, value))


def _round_up(value: Any, multiple: Any) -> int:
    """Smallest multiple of ``multiple`` at or above ``value``."""
    value, multiple = _defined((value, multiple))
    return int(math.ceil(value / multiple) * multiple)


def _round_down(value: Any, multiple: Any) -> int:
    value, multiple = _defined((value, multiple))
    return int(math.floor(value / multiple) * multiple)


def _flatten(values: Any) -> list[Any]:
    """One level of nesting removed: ``flatten([[1, 2], [3]])`` → ``[1, 2, 3]``."""
    out: list[Any] = []
    for item in _values((values,)):
        out.extend(_defined(item) if isinstance(item, list | tuple) else [item])
        if len(out) > MAX_BUILD:
            raise SecurityError("flattening that much is over the sandbox limit")
    return out


def _range(*args: Any) -> range:
    r = range(*_defined(args))
    if len(r) > MAX_SEQUENCE:
        raise SecurityError(
            f"range of {len(r)} items is over the sandbox limit of {MAX_SEQUENCE} (MAX_SEQUENCE)"
        )
    return r


def _len(value: Any) -> int:
    (value,) = _defined((value,))
    return len(value)


def _sorted(values: Any, reverse: bool = False) -> list[Any]:
    return sorted(_values((values,)), reverse=bool(reverse))


def _any(values: Any) -> bool:
    return any(_values((values,)))


def _all(values: Any) -> bool:
    return all(_values((values,)))


def require(value: Any, reason: str) -> Any:
    """``value``, or the rule is "not evaluated" with ``reason`` when it is none, empty or 0.

    For facts whose absence the data cannot show (a nominal bandwidth of 0 = not declared)."""
    (value,) = _defined((value,))
    if value is None or value == 0 or value == "" or value == [] or value == {}:
        raise MissingFact(str(reason))
    return value


def _where(mapping: Any, keep: Callable[[Any], bool]) -> dict[str, Any]:
    (mapping,) = _defined((mapping,))
    return {str(k): v for k, v in mapping.items() if v is not None and keep(v)}


def where_below(mapping: Any, limit: Any) -> dict[str, Any]:
    """Items of a mapping whose value is below ``limit`` (None values are left out)."""
    return _where(mapping, lambda v: v < limit)


def where_above(mapping: Any, limit: Any) -> dict[str, Any]:
    """Items of a mapping whose value is above ``limit``."""
    return _where(mapping, lambda v: v > limit)


def where_not(mapping: Any, expected: Any) -> dict[str, Any]:
    """Items of a mapping whose value is not ``expected``."""
    return _where(mapping, lambda v: v != expected)


def hccl_algo_errors(value: Any) -> list[str]:
    """Problems with an ``HCCL_ALGO`` value (empty when it parses); see backends."""
    (value,) = _defined((value,))
    return backends.hccl_algo_problems(str(value))


def hccl_algo_level1(value: Any, op: str = "allreduce") -> str | None:
    """The level-1 algorithm ``HCCL_ALGO`` fixes for ``op`` (None when it fixes none)."""
    (value,) = _defined((value,))
    text = str(value).strip()
    for part in text.split("/"):
        name, eq, levels = part.partition("=")
        if eq and name.strip() != op:
            continue
        body = levels if eq else part
        for level in body.split(";"):
            key, _, algo = level.strip().partition(":")
            if key == "level1":
                return algo
    return None


def nccl_algo_errors(value: Any) -> list[str]:
    """Problems with an ``NCCL_ALGO`` value: ``Ring,Tree``, ``^NVLS``, ``allreduce:tree;...``,
    including operations it leaves without any algorithm (``Tree`` alone, from NCCL 2.24)."""
    (value,) = _defined((value,))
    return backends.native_setting_problems(f"NCCL_ALGO={value}")


def nccl_proto_errors(value: Any) -> list[str]:
    """Problems with an ``NCCL_PROTO`` value: ``LL,LL128,Simple``, ``^LL128``, per op."""
    (value,) = _defined((value,))
    return backends.nccl_list(str(value), backends.NCCL_PROTOS)[1]


def _checked_str(value: Any) -> str:
    (value,) = _defined((value,))
    charge(size(value), "str()")
    return str(value)[:MAX_SEQUENCE]


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "min": _min,
    "max": _max,
    "sum": _sum,
    "abs": lambda x: abs(*_defined((x,))),
    "ceil": lambda x: math.ceil(*_defined((x,))),
    "floor": lambda x: math.floor(*_defined((x,))),
    "round": lambda x, n=0: round(_defined((x,))[0], n),
    "len": _len,
    "percentile": _percentile,
    "median": _median,
    "mean": _mean,
    "any": _any,
    "all": _all,
    "sorted": _sorted,
    "flatten": _flatten,
    "range": _range,
    "int": lambda x: int(*_defined((x,))),
    "float": lambda x: float(*_defined((x,))),
    "str": _checked_str,
    "as_int": as_int,
    "as_float": as_float,
    "clamp": _clamp,
    "round_up": _round_up,
    "round_down": _round_down,
    "require": require,
    "where_below": where_below,
    "where_above": where_above,
    "where_not": where_not,
    "hccl_algo_errors": hccl_algo_errors,
    "hccl_algo_level1": hccl_algo_level1,
    "nccl_algo_errors": nccl_algo_errors,
    "nccl_proto_errors": nccl_proto_errors,
}
"""Every function a rule may call."""

FILTERS = (
    "abs", "count", "default", "d", "dictsort", "first", "float", "int", "join", "last",
    "length", "list", "lower", "map", "max", "min", "reject", "rejectattr", "reverse", "round",
    "select", "selectattr", "sort", "string", "tojson", "trim", "unique", "upper",
)  # fmt: skip
"""Jinja filters a rule may use (no format, center, indent, wordwrap: they can build huge
strings; no attr: attribute access goes through the sandbox's getattr only; no items: it
yields nothing for a missing fact instead of failing; no sum: ``sum(start=[])`` concatenates
without bound; use the ``sum`` and ``flatten`` functions)."""

SAFE_METHODS: dict[type, frozenset[str]] = {
    dict: frozenset({"get", "keys", "values", "items"}),
    list: frozenset({"count", "index"}),
    tuple: frozenset({"count", "index"}),
    str: frozenset(
        {
            "startswith",
            "endswith",
            "split",
            "strip",
            "lstrip",
            "rstrip",
            "lower",
            "upper",
            "isdigit",
            "count",
        }
    ),
}
"""Read-only methods of plain data a rule may call; anything else is refused."""


def _checked_pow(left: Any, right: Any) -> Any:
    if isinstance(left, int | float) and isinstance(right, int | float):
        if abs(right) > MAX_EXPONENT or abs(left) > MAX_POWER_BASE:
            raise SecurityError(f"{left!r} ** {right!r} is over the sandbox limit")
    return operator.pow(left, right)


def size(value: Any, budget: int = MAX_BUILD) -> int:
    """Characters and items in ``value``: a string counts its length, a list or mapping 1 plus its
    contents (so a list holding one big list many times is big), an integer its decimal digits
    (about a third of its bits), anything else 1. Stops counting once past ``budget``."""
    total, stack = 0, [value]
    while stack and total <= budget:
        item = stack.pop()
        if isinstance(item, str | bytes):
            total += max(1, len(item))
            continue
        if isinstance(item, int):
            total += max(1, item.bit_length() // 3)
            continue
        total += 1
        if isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, Mapping):
            stack.extend(item.keys())
            stack.extend(item.values())
    return total


_BUILT: ContextVar[list[int] | None] = ContextVar("rule_sandbox_built", default=None)
"""Characters and items built so far by the expression or message being evaluated."""


@contextmanager
def _build_budget() -> Iterator[None]:
    """One expression's or message's account of what it builds (``MAX_BUILT_TOTAL``)."""
    token = _BUILT.set([0])
    try:
        yield
    finally:
        _BUILT.reset(token)


def charge(built: int, what: str) -> None:
    """Refuse building ``built`` characters or items by ``what`` when over the sandbox limits;
    otherwise count them against the expression's total."""
    if built > MAX_BUILD:
        raise SecurityError(
            f"{what} would build {built} characters or items, over the sandbox limit of "
            f"{MAX_BUILD} (MAX_BUILD)"
        )
    account = _BUILT.get()
    if account is None:
        return
    account[0] += built
    if account[0] > MAX_BUILT_TOTAL:
        raise SecurityError(
            f"{what} brings what this expression built to {account[0]} characters or items, "
            f"over the sandbox limit of {MAX_BUILT_TOTAL} (MAX_BUILT_TOTAL)"
        )


def _checked_mul(left: Any, right: Any) -> Any:
    for seq, n in ((left, right), (right, left)):
        if isinstance(seq, str | list | tuple) and isinstance(n, int):
            charge(
                size(seq, MAX_BUILD + 1) * max(n, 0), f"repeating a {type(seq).__name__} {n} times"
            )
    if isinstance(left, int) and isinstance(right, int):
        bits = abs(left).bit_length() + abs(right).bit_length()
        if bits > MAX_INT_BITS:
            raise SecurityError(
                f"a product of about {bits} bits is over the sandbox limit of {MAX_INT_BITS} "
                "bits (MAX_INT_BITS)"
            )
    return operator.mul(left, right)


def _checked_add(left: Any, right: Any) -> Any:
    if isinstance(left, str | list | tuple) and isinstance(right, str | list | tuple):
        # A string's '+' builds its characters; a list's, one reference an item, since the joined
        # lists share their items. Counting the items' contents too refused a rule over a large
        # log's events (8,000 NCCL WARN records) that builds nothing big; turning the result into
        # text is charged on its contents where that happens ('{{ }}', '~', join, text filters).
        charge(len(left) + len(right), f"'+' of a {type(left).__name__}")
    return operator.add(left, right)


def checked_concat(values: tuple[Any, ...]) -> str:
    """``a ~ b ~ c``: each operand turned into text and joined, counted before it is built."""
    charge(sum(size(v) for v in values), "'~'")
    return "".join(str(v) for v in values)


def checked_output(value: Any) -> Any:
    """A message's ``{{ value }}``: counted before it is turned into text."""
    charge(size(value), "'{{ }}' output")
    return value


@pass_eval_context
def _checked_join(eval_ctx: Any, value: Any, d: str = "", attribute: Any = None) -> str:
    items = list(_values((value,)))
    charge(size(items) + len(str(d)) * len(items), "'join'")
    return str(_JINJA_JOIN(eval_ctx, items, d, attribute))


def _text_filter(name: str, jinja_filter: Callable[..., Any]) -> Callable[..., Any]:
    """A Jinja filter that turns its value into text, counted on its value before it runs."""

    passes = getattr(jinja_filter, "jinja_pass_arg", None)

    def checked(*args: Any, **kwargs: Any) -> Any:
        # Filters that take the context or eval context get it first; the value follows.
        value, rest = (args[1], args[2:]) if passes is not None else (args[0], args[1:])
        if name == "tojson" and (rest or kwargs):
            raise SecurityError("tojson's indent is not allowed in rules (a message is one line)")
        charge(size(value) + sum(size(a) for a in kwargs.values()), f"filter {name!r}")
        return jinja_filter(*args, **kwargs)

    if passes is not None:
        checked.jinja_pass_arg = passes  # type: ignore[attr-defined]
    return checked


TEXT_FILTERS = ("string", "tojson", "upper", "lower", "trim", "list")
"""Filters that build a new string (or list of characters) as long as their value's text."""


def _checked_mod(left: Any, right: Any) -> Any:
    if isinstance(left, str):
        raise SecurityError("string formatting with % is not allowed in rules")
    return operator.mod(left, right)


# The tests ``selectattr``/``rejectattr`` run once per item of a fact list: on an import of tens
# of thousands of log events Jinja's generic path (an attribute getter and a test lookup per
# item) was a large part of evaluating the rules. These answer exactly as Jinja's tests do.
_FAST_TESTS: dict[str, Callable[..., Any]] = {
    "equalto": operator.eq,
    "eq": operator.eq,
    "==": operator.eq,
    "ne": operator.ne,
    "!=": operator.ne,
    "in": lambda value, seq: value in seq,
    "none": lambda value: value is None,
    "defined": lambda value: True,
    "undefined": lambda value: False,
}


def _fast_attr_filter(jinja_filter: Callable[..., Any], keep: bool) -> Callable[..., Any]:
    """``selectattr`` (keep=True) or ``rejectattr`` over a list of dicts that all hold the
    attribute, with one of the plain tests; anything else (a dotted attribute, a missing key,
    another test, a missing argument) goes to Jinja's filter, which fails or answers as before."""

    @pass_context
    def filtered(context: Any, value: Any, *args: Any, **kwargs: Any) -> Any:
        if (
            not kwargs
            and isinstance(value, list)
            and args
            and isinstance(args[0], str)
            and "." not in args[0]
            and (len(args) == 1 or args[1] in _FAST_TESTS)
            and not any(isinstance(a, Undefined) for a in args[2:])
        ):
            attr = args[0]
            test = bool if len(args) == 1 else _FAST_TESTS[args[1]]
            test_args = args[2:]
            out = []
            for item in value:
                if not isinstance(item, dict) or attr not in item:
                    break
                if bool(test(item[attr], *test_args)) is keep:
                    out.append(item)
            else:
                return iter(out)
        return jinja_filter(context, value, *args, **kwargs)

    return filtered


def _strict_test(test: Callable[..., Any]) -> Callable[..., Any]:
    def strict(*args: Any, **kwargs: Any) -> Any:
        return test(*_defined(args), **kwargs)

    return strict


class _CheckedCodeGenerator(CodeGenerator):
    """Jinja's code generator with ``~`` counted: Jinja joins its operands inline, past every
    sandbox hook, so the generated code calls ``checked_concat`` instead."""

    @optimizeconst
    def visit_Concat(self, node: nodes.Concat, frame: Frame) -> None:
        self.write("environment.checked_concat((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")


class RuleSandbox(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox with only the rule whitelist reachable."""

    intercepted_binops = frozenset({"**", "*", "%", "+"})
    code_generator_class = _CheckedCodeGenerator

    def __init__(self) -> None:
        super().__init__(undefined=Missing, autoescape=False, finalize=checked_output)
        self.checked_concat = checked_concat
        self.globals.clear()
        self.globals.update(FUNCTIONS)
        self.filters = {name: self.filters[name] for name in FILTERS}
        for name in TEXT_FILTERS:
            self.filters[name] = _text_filter(name, self.filters[name])
        self.filters["join"] = _checked_join
        self.filters["selectattr"] = _fast_attr_filter(self.filters["selectattr"], keep=True)
        self.filters["rejectattr"] = _fast_attr_filter(self.filters["rejectattr"], keep=False)
        # ``x is none`` on a missing fact must not quietly answer False: only ``defined`` and
        # ``undefined`` may look at a missing fact.
        self.tests = {
            name: test if name in ("defined", "undefined") else _strict_test(cast(Any, test))
            for name, test in self.tests.items()
        }
        self.binop_table = {
            **self.binop_table,
            "**": _checked_pow,
            "*": _checked_mul,
            "%": _checked_mod,
            "+": _checked_add,
        }
        self._function_ids = {id(f) for f in FUNCTIONS.values()}

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        _defined((left, right))
        return self.binop_table[operator](left, right)

    def getattr(self, obj: Any, attribute: str) -> Any:
        # Fact keys win over methods of the same name (a fact called "items" or "values").
        if isinstance(obj, Mapping) and attribute in obj:
            return obj[attribute]
        if attribute.startswith("_"):
            raise SecurityError(f"access to the private attribute {attribute!r} is not allowed")
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        if (
            isinstance(argument, str)
            and argument.startswith("_")
            and not (isinstance(obj, Mapping) and argument in obj)
        ):
            raise SecurityError(f"access to the private attribute {argument!r} is not allowed")
        return super().getitem(obj, argument)

    def unsafe_undefined(self, obj: Any, attribute: str) -> Any:
        raise SecurityError(f"access to {attribute!r} of a {type(obj).__name__} is not allowed")

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(__obj, Missing):
            __obj._fail_with_undefined_error()
        if id(__obj) in __self._function_ids:
            return __context.call(__obj, *args, **kwargs)
        owner = getattr(__obj, "__self__", None)
        name = getattr(__obj, "__name__", "")
        for kind, allowed in SAFE_METHODS.items():
            if (
                type(owner) in (kind, FactDict, FactList)
                and isinstance(owner, kind)
                and name in allowed
            ):
                return __context.call(__obj, *args, **kwargs)
        raise SecurityError(f"calling {name or type(__obj).__name__!r} is not allowed in rules")


SANDBOX = RuleSandbox()


_OPENERS = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}
_PREFIXES = ("not", "-", "+")
_BLOCKS = ("if", "for", "with", "macro", "call", "filter", "block", "autoescape")
"""Block tags that nest until their ``end`` tag (``{% set x = ... %}`` has none)."""


def _text_nesting(source: str, state: str | None) -> int:
    """How deep ``source`` nests in its text: open brackets and blocks, plus a run of prefix
    operators (``not not x``, ``- - x``), each of which Jinja's parser follows by recursion."""
    deepest = depth = run = 0
    after_block_begin = False
    for _, kind, value in SANDBOX.lexer.tokeniter(source, None, state=state):
        if kind == "whitespace":
            continue
        if kind == "operator" and value in _OPENERS:
            depth += _OPENERS[value]
        elif after_block_begin and kind == "name":
            if value in _BLOCKS:
                depth += 1
            elif value.startswith("end") and value[3:] in _BLOCKS:
                depth -= 1
        run = run + 1 if value in _PREFIXES and kind in ("name", "operator") else 0
        after_block_begin = kind == "block_begin"
        deepest = max(deepest, depth + run)
    return deepest


def _tree_depth(tree: nodes.Node) -> int:
    """Depth of a syntax tree, counted without recursion (the tree may be too deep for it)."""
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth <= MAX_NESTING + 8:
            stack.extend((child, depth + 1) for child in node.iter_child_nodes())
    return deepest


def _parse_bounded(source: str, parse: Callable[[], nodes.Node], state: str | None) -> nodes.Node:
    """``parse()`` once the text is known to nest no deeper than ``MAX_NESTING``, and its tree
    too; ValueError naming the limit otherwise."""
    limit = f"the sandbox limit of {MAX_NESTING} (MAX_NESTING)"
    nesting = _text_nesting(source, state)
    if nesting > MAX_NESTING:
        raise ValueError(
            f"nested {nesting} deep (brackets, prefix operators and blocks), over {limit}; "
            "split it with let"
        )
    try:
        tree = parse()
    except RecursionError:
        # A nesting the text scan does not count still must not escape as a traceback.
        raise ValueError(
            f"nested too deep for the parser, over {limit}; split it with let"
        ) from None
    depth = _tree_depth(tree)
    # A template's tree has two levels of its own (Template, Output) above each expression.
    if depth > MAX_NESTING + (2 if state is None else 0):
        raise ValueError(
            f"chains of operators or filters nest {depth} deep, over {limit}; split it with let"
        )
    return tree


@functools.lru_cache(maxsize=4096)
def parse_expression(source: str) -> nodes.Expr:
    """Parse an expression (raises jinja2's TemplateSyntaxError, or ValueError when it nests
    deeper than ``MAX_NESTING``). Cached: loading a rule reads each of its sources three times
    (checks, the names it reads, the names deciding it needs); callers only read the tree."""
    parser = Parser(SANDBOX, source, state="variable")

    def parse() -> nodes.Expr:
        expr = parser.parse_expression()
        if not parser.stream.eos:
            tok = parser.stream.current
            parser.fail(f"unexpected {tok.value!r} after the expression", tok.lineno)
        return expr

    return cast(nodes.Expr, _parse_bounded(source, parse, "variable"))


FORBIDDEN_NODES = (
    nodes.Include, nodes.Import, nodes.FromImport, nodes.Extends, nodes.Macro, nodes.CallBlock,
    nodes.FilterBlock, nodes.Block,
)  # fmt: skip
"""Template statements a message has no use for (they load other templates or define code)."""


def _loop_depth(node: nodes.Node) -> int:
    inner = max((_loop_depth(child) for child in node.iter_child_nodes()), default=0)
    return inner + 1 if isinstance(node, nodes.For) else inner


_TEST_ARG = {"select": 0, "reject": 0, "selectattr": 1, "rejectattr": 1}
"""Filters that apply a test named by a string, and that argument's place."""


def _named_by_string(every: list[nodes.Node]) -> Iterator[tuple[str, str, Any]]:
    """(kind, name, known names) of each test or filter a filter call names by a constant
    string: select/reject/selectattr/rejectattr's test, map's filter (without ``attribute=``)."""
    for node in every:
        if not isinstance(node, nodes.Filter):
            continue
        at = _TEST_ARG.get(node.name)
        named = node.args[at if at is not None else 0] if len(node.args) > (at or 0) else None
        if not isinstance(named, nodes.Const) or not isinstance(named.value, str):
            continue
        if at is not None:
            yield "test", named.value, SANDBOX.tests
        elif node.name == "map" and not any(k.key == "attribute" for k in node.kwargs):
            yield "filter", named.value, SANDBOX.filters


def static_problems(tree: nodes.Node) -> list[str]:
    """Problems visible before running: unknown functions, private attributes."""
    problems = []
    every = [tree, *tree.find_all(nodes.Node)]
    for call in (n for n in every if isinstance(n, nodes.Call)):
        if isinstance(call.node, nodes.Name) and call.node.name not in FUNCTIONS:
            problems.append(
                f"unknown function {call.node.name!r}; functions: {', '.join(sorted(FUNCTIONS))}"
            )
    # Checked here, not left to jinja's compiler (which raises the same at compile time):
    # rules are compiled at their first use (``Deferred``), and an unknown filter or test
    # must still stop ``rules validate`` and a run before it measures anything.
    for kind, node_type, known in (
        ("filter", nodes.Filter, SANDBOX.filters),
        ("test", nodes.Test, SANDBOX.tests),
    ):
        for unknown in sorted({n.name for n in every if isinstance(n, node_type)} - set(known)):
            problems.append(f"No {kind} named {unknown!r}; {kind}s: {', '.join(sorted(known))}")
    # a test or filter named by a string to a filter that applies it ("select('odd')",
    # "rejectattr('x', 'equalto', 1)", "map('length')"): jinja looks it up only when the filter
    # runs, so a typo would pass here and fail mid-run
    for kind, named, known in _named_by_string(every):
        if named not in known:
            problems.append(f"No {kind} named {named!r}; {kind}s: {', '.join(sorted(known))}")
    for attr in (n for n in every if isinstance(n, nodes.Getattr)):
        if attr.attr.startswith("_"):
            problems.append(f"private attribute {attr.attr!r} is not allowed")
    for node in every:
        if isinstance(node, FORBIDDEN_NODES):
            problems.append(f"{type(node).__name__.lower()} is not allowed in rules")
    if _loop_depth(tree) > MAX_LOOP_DEPTH:
        problems.append(
            f"loops nested more than {MAX_LOOP_DEPTH} deep are not allowed in rules "
            "(their cost multiplies)"
        )
    for name in (n for n in every if isinstance(n, nodes.Name)):
        if name.name.startswith("_") or name.name in ("self", "loop", "caller", "varargs"):
            problems.append(f"name {name.name!r} is not allowed")
    return problems


def names_read(tree: nodes.Node) -> set[str]:
    """Names an expression or template reads that it did not set itself (its loop variables):
    the fact roots, stage names, ``let`` names and functions it uses."""
    every = [tree, *tree.find_all(nodes.Name)]
    names = [n for n in every if isinstance(n, nodes.Name)]
    stored = {n.name for n in names if n.ctx in ("store", "param")}
    return {n.name for n in names if n.ctx == "load"} - stored


class Deferred:
    """A checked expression or template, compiled to Python at its first use.

    Loading the built-in rules compiled some 700 sources, about half a second in every
    ``advisor run``, ``import`` and ``report``, where a run evaluates the conditions of the rules
    that apply and renders the messages of the few that fire. Everything a compile could refuse
    is checked before (``static_problems``, the bounded parse), so a bad rule still fails at
    load."""

    __slots__ = ("_compiled", "_make", "source")

    def __init__(self, source: str, make: Callable[[str], Any]) -> None:
        self.source = source
        self._make = make
        self._compiled: Any = None

    def _get(self) -> Any:
        if self._compiled is None:
            self._compiled = self._make(self.source)
        return self._compiled

    def __call__(self, **context: Any) -> Any:
        """Evaluate an expression."""
        return self._get()(**context)

    def generate(self, **context: Any) -> Iterator[str]:
        """Render a template piece by piece."""
        return cast(Iterator[str], self._get().generate(**context))


def compile_expression(source: str) -> Deferred:
    """Check a rule expression now, compile it at first use; calling the result with the
    context evaluates it. Raises TemplateSyntaxError or ValueError (for static problems)."""
    problems = static_problems(parse_expression(source))
    if problems:
        raise ValueError("; ".join(problems))
    return Deferred(source, lambda s: SANDBOX.compile_expression(s, undefined_to_none=False))


@functools.lru_cache(maxsize=4096)
def parse_template(source: str) -> nodes.Template:
    """Parse a message template, bounded as ``parse_expression`` is (and cached the same way)."""
    return cast(nodes.Template, _parse_bounded(source, lambda: SANDBOX.parse(source), None))


def compile_template(source: str) -> Deferred:
    """Check a message template (``{{ value }}`` placeholders, ``{% for %}`` loops) now,
    compile it at its first render."""
    problems = static_problems(parse_template(source))
    if problems:
        raise ValueError("; ".join(problems))
    return Deferred(source, SANDBOX.from_string)


def render(template: Any, context: Mapping[str, Any]) -> str:
    """A message: one paragraph (YAML folding and template tags leave runs of spaces)."""
    parts: list[str] = []
    length = 0
    # Stop reading the template's output once the message is long enough to be cut.
    with _build_budget():
        for chunk in template.generate(**context):
            parts.append(chunk)
            length += len(chunk)
            if length > MAX_MESSAGE_CHARS:
                break
    text = " ".join("".join(parts).split())
    return text if len(text) <= MAX_MESSAGE_CHARS else text[:MAX_MESSAGE_CHARS] + " …"


def evaluate(expression: Callable[..., Any], context: Mapping[str, Any]) -> Any:
    """Run a compiled expression; a missing fact as the whole result raises MissingFact too."""
    with _build_budget():
        result = expression(**context)
    if isinstance(result, Missing):
        result._fail_with_undefined_error()
    return result
