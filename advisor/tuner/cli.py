"""``advisor tuner validate FILE...``: what the tuner plugins would make of each file."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.markup import escape

from advisor import console
from advisor.errors import ConfigError
from advisor.tuner.formats import check

_STYLE = {"error": "red", "warning": "yellow"}


def main(args: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="advisor tuner",
        description="check tuner-plugin configs: NCCL's example plugin CSV "
        "(NCCL_TUNER_CONFIG_FILE) and HCCL's tuner plugin JSON (HCCL_TUNER_CONFIG_FILE)",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    validate = sub.add_parser("validate", help="check files; exit 2 when one has an error")
    validate.add_argument("files", nargs="+", type=Path)
    validate.add_argument(
        "--nodes", type=int, help="the job's node count (rules for others are named)"
    )
    validate.add_argument("--ranks", type=int, help="the job's rank count")
    ns = parser.parse_args(args)
    errors = 0
    for path in ns.files:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise ConfigError(f"{path}: cannot read it as a text file ({e}).") from e
        checked = check(text, str(path), nodes=ns.nodes, ranks=ns.ranks)
        errors += len(checked.errors)
        verdict = "refused" if checked.errors else "ok"
        style = "red" if checked.errors else "green"
        console.out.print(
            f"[{style}]{verdict}[/{style}] {escape(str(path))}: {checked.format} tuner config, "
            f"{len(checked.rules)} rule(s) read, {len(checked.errors)} error(s), "
            f"{len(checked.problems) - len(checked.errors)} warning(s)"
        )
        for p in checked.problems:
            s = _STYLE[p.severity]
            console.out.print(
                f"  [{s}]{p.severity}[/{s}] {escape(str(path))}: {escape(p.where)}: "
                f"{escape(p.field)}: {escape(p.message)}"
            )
    return 2 if errors else 0
