"""No module binds one top-level name twice: the parsers' modules are long, and a second
pattern of the same name silently replaces the first for every reader that uses it."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import advisor

PACKAGE = Path(advisor.__file__).parent


def _top_level_names(tree: ast.Module) -> Counter[str]:
    names: Counter[str] = Counter()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names[node.name] += 1
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] += 1
    return names


def test_no_module_binds_a_top_level_name_twice() -> None:
    twice = {
        str(path.relative_to(PACKAGE)): sorted(n for n, c in names.items() if c > 1)
        for path in sorted(PACKAGE.rglob("*.py"))
        if (names := _top_level_names(ast.parse(path.read_text(encoding="utf-8"))))
    }
    assert {p: n for p, n in twice.items() if n} == {}


def test_the_check_sees_a_name_bound_twice() -> None:
    tree = ast.parse("A = 1\ndef f(): pass\nA = 2\n")
    assert _top_level_names(tree)["A"] == 2
