"""Fast conversion of the facts' dataclass tree to plain data, and its indented JSON.

``dataclasses.asdict`` deep-copies every leaf and inspects every value several times: on an
import of 50,000 log events that alone cost most of the run. ``to_plain`` builds the same dicts,
lists and tuples but keeps the (immutable) leaves as they are. ``dumps_indented`` writes exactly
what ``json.dumps(obj, indent=..., sort_keys=..., default=...)`` writes, byte for byte, but hands
every container that holds only scalars (a log event, a list of numbers) to the C encoder in one
call: the standard library encodes anything indented in pure Python, one generator step per value.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable
from typing import Any

_SCALARS = (str, int, float, bool, type(None))
_SCALAR_TYPES = frozenset(_SCALARS)


def to_plain(obj: Any) -> Any:
    """``dataclasses.asdict`` for a tree of dataclasses, dicts, lists and tuples, without copying
    its leaves (strings, numbers and the like, which nothing mutates). Containers are new, so a
    caller may change the result without touching ``obj``."""
    cls = type(obj)
    if cls in _SCALAR_TYPES:
        return obj
    if cls is list:
        return [to_plain(v) for v in obj]
    if cls is dict:
        return {to_plain(k): to_plain(v) for k, v in obj.items()}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {name: to_plain(getattr(obj, name)) for name in _field_names(type(obj))}
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return cls(*[to_plain(v) for v in obj])  # a named tuple, as asdict keeps it
    if isinstance(obj, list | tuple):
        return cls(to_plain(v) for v in obj)
    if isinstance(obj, dict):
        return cls((to_plain(k), to_plain(v)) for k, v in obj.items())
    return obj


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


@functools.cache
def _flat_encoder(
    indent: int, depth: int, sort_keys: bool, default: Callable[[Any], Any] | None
) -> Callable[[Any], str]:
    # Items of a container at ``depth`` sit on lines of their own, indented one level deeper:
    # the C encoder writes that when its item separator carries the newline and the indent.
    sep = ",\n" + " " * (indent * (depth + 1))
    return json.JSONEncoder(sort_keys=sort_keys, separators=(sep, ": "), default=default).encode


def _is_flat(values: Any) -> bool:
    if _SCALAR_TYPES.issuperset(map(type, values)):
        return True  # the common case, checked at C speed
    for v in values:
        if not isinstance(v, _SCALARS) and not (isinstance(v, list | tuple | dict) and not v):
            return False
    return True


def dumps_indented(
    obj: Any,
    *,
    indent: int = 2,
    sort_keys: bool = False,
    default: Callable[[Any], Any] | None = None,
) -> str:
    """``json.dumps(obj, indent=indent, sort_keys=sort_keys, default=default)``, byte for byte
    (ASCII, NaN allowed, no cycle check: plain data only), several times faster."""
    out: list[str] = []
    scalar = json.JSONEncoder(default=default).encode

    def key_text(k: Any) -> str:
        if isinstance(k, str):
            return json.encoder.encode_basestring_ascii(k)
        if k is True:
            return '"true"'
        if k is False:
            return '"false"'
        if k is None:
            return '"null"'
        if isinstance(k, float):
            return '"' + scalar(k) + '"'
        if isinstance(k, int):
            return '"' + int.__repr__(k) + '"'
        raise TypeError(f"keys must be str, int, float, bool or None, not {type(k).__name__}")

    def enc(o: Any, depth: int) -> None:
        if isinstance(o, _SCALARS):
            out.append(scalar(o))
            return
        if isinstance(o, list | tuple):
            if not o:
                out.append("[]")
                return
            if _is_flat(o):
                text = _flat_encoder(indent, depth, sort_keys, default)(o)
                out.append("[\n" + " " * (indent * (depth + 1)) + text[1:-1])
            else:
                inner = " " * (indent * (depth + 1))
                out.append("[")
                for i, v in enumerate(o):
                    out.append(("\n" if i == 0 else ",\n") + inner)
                    enc(v, depth + 1)
            out.append("\n" + " " * (indent * depth) + "]")
            return
        if isinstance(o, dict):
            if not o:
                out.append("{}")
                return
            if all(type(k) is str for k in o) and _is_flat(o.values()):
                text = _flat_encoder(indent, depth, sort_keys, default)(o)
                out.append("{\n" + " " * (indent * (depth + 1)) + text[1:-1])
            else:
                inner = " " * (indent * (depth + 1))
                items = sorted(o.items()) if sort_keys else o.items()
                out.append("{")
                for i, (k, v) in enumerate(items):
                    out.append(("\n" if i == 0 else ",\n") + inner + key_text(k) + ": ")
                    enc(v, depth + 1)
            out.append("\n" + " " * (indent * depth) + "}")
            return
        if default is None:
            raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")
        enc(default(o), depth)

    enc(obj, 0)
    return "".join(out)
