"""advisor.plain: the fast converter gives what ``asdict`` gives, the fast writer what
``json.dumps`` writes, byte for byte, on the facts of real imported files and on edge cases."""

from __future__ import annotations

import json
from collections import OrderedDict, namedtuple
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pytest

from advisor.evidence.load import load_paths
from advisor.plain import dumps_indented, to_plain

DATA = Path(__file__).parent / "data"

Pair = namedtuple("Pair", "a b")


@dataclass
class Inner:
    name: str
    values: list[float] = field(default_factory=list)


@dataclass
class Outer:
    inner: Inner
    pairs: tuple[Pair, ...] = ()
    by_key: dict[str, Any] = field(default_factory=dict)
    ordered: OrderedDict[str, int] = field(default_factory=OrderedDict)
    where: Path | None = None


def _outer() -> Outer:
    return Outer(
        inner=Inner('é\n"quoted"', [1.0, float("nan"), 1e16, -0.0]),
        pairs=(Pair(1, [2, {"k": None}]),),
        by_key={"b": {}, "a": [], "c": [[], [1, [2]]], "d": {"z": True, "y": False}},
        ordered=OrderedDict([("x", 2), ("a", 1)]),
        where=Path("/x/y"),
    )


def test_to_plain_is_asdict_and_leaves_the_original_alone() -> None:
    obj = _outer()
    plain = to_plain(obj)
    assert plain == asdict(obj)
    assert type(plain["pairs"][0]) is Pair and type(plain["ordered"]) is OrderedDict
    plain["inner"]["values"].append(2.0)
    plain["by_key"]["d"]["z"] = False
    assert obj.inner.values[-1] == -0.0 and obj.by_key["d"]["z"] is True


def test_imported_facts_convert_and_write_as_asdict_and_json_dumps_do() -> None:
    evidence = load_paths([str(DATA / "evidence_real"), str(DATA / "evidence")])
    assert evidence.failures and evidence.files  # real events and file reports to write
    plain = to_plain(evidence)
    assert plain == asdict(evidence)
    for kwargs in ({}, {"sort_keys": True}, {"sort_keys": True, "default": str}):
        assert dumps_indented(plain, **kwargs) == json.dumps(plain, indent=2, **kwargs)


@pytest.mark.parametrize("indent", [1, 2, 4])
@pytest.mark.parametrize("sort_keys", [False, True])
def test_edge_cases_are_written_as_json_dumps_writes_them(indent: int, sort_keys: bool) -> None:
    obj = to_plain(_outer())
    cases: list[Any] = [obj, [], {}, "s", 1.5, None, [(), ({},)], {"k": [1, "two", None]}]
    cases.append({3: "int key", 2: "another"})  # non-string keys, sorted as numbers
    for case in cases:
        expected = json.dumps(case, indent=indent, sort_keys=sort_keys, default=str)
        assert dumps_indented(case, indent=indent, sort_keys=sort_keys, default=str) == expected
    mixed = {1.5: "float", True: "bool", None: "none", "s": "str"}
    assert dumps_indented(mixed, indent=indent) == json.dumps(mixed, indent=indent)


def test_a_value_json_cannot_write_is_a_type_error_as_with_json_dumps() -> None:
    with pytest.raises(TypeError, match="Path is not JSON serializable"):
        dumps_indented({"a": [1, {"b": Path("/x")}]})
    with pytest.raises(TypeError):
        json.dumps({"a": [1, {"b": Path("/x")}]}, indent=2)
