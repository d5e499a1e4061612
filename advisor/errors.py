"""Errors the CLI turns into a clear message and an exit code, never a traceback."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import ValidationError

MAX_LISTED_PROBLEMS = 20
"""A file that does not validate lists this many problems, then says how many more it has."""

MAX_SHOWN_VALUE_CHARS = 60
"""A wrong value is quoted in the message up to this length."""


class AdvisorError(Exception):
    """Base of the advisor's own errors: the message names what is wrong and the fix."""

    exit_code = 1


class ConfigError(AdvisorError):
    """Bad configuration, override, cluster file or rule file: exit code 2."""

    exit_code = 2


class BackendUnavailable(ConfigError):
    """The declared device or backend cannot run on this host."""


def validation_problems(
    source: str, error: ValidationError, at: tuple[str | int, ...] = ()
) -> list[str]:
    """One line per problem pydantic found: ``SOURCE: field.path: what is wrong (got VALUE)``.

    ``at`` is where the validated value sits in the file (``("stages", "bench", "data")``), so
    that every path is the one a person finds in the file.
    """
    lines = []
    for problem in error.errors(include_url=False):
        path = ".".join(str(part) for part in (*at, *problem["loc"]))
        kind = problem["type"]
        if kind == "unexpected_keyword_argument":
            what = "unknown field (renamed, or misspelt?)"
        elif kind in ("missing", "missing_argument"):
            what = "missing (a required field)"
        else:
            what = f"{problem['msg']} (got {_shown(problem['input'])})"
        lines.append(f"{source}: {path}: {what}")
    return lines


def invalid_file(problems: list[str], fix: str) -> ConfigError:
    """The error for a file whose content does not validate: each problem on its line, then the
    fix. ``problems`` come from ``validation_problems``."""
    shown = problems[:MAX_LISTED_PROBLEMS]
    if len(problems) > len(shown):
        shown.append(f"... and {len(problems) - len(shown)} more")
    return ConfigError("\n".join([*shown, fix]))


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= MAX_SHOWN_VALUE_CHARS else text[: MAX_SHOWN_VALUE_CHARS - 1] + "…"
