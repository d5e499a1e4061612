"""Read flight-recorder dumps (pickle or JSON) without ever executing them.

A dump is torch's pickle of plain containers; a pickle can name any class and run it on load, so
the unpickler here refuses every global: a file that needs one is reported, never run (a user's
``advisor import`` folder is untrusted input).
"""

from __future__ import annotations

import io
import json
import pickle
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from advisor.flight.settings import RANKS_SUBDIR

MAX_DUMP_BYTES = 256 * 2**20
_RANK_AT_END = re.compile(r"(\d+)(?:\.json|\.pkl|\.pickle)?$")
_REQUIRED = ("version", "entries")


class DumpError(ValueError):
    """A file that is not a readable flight-recorder dump (the message says why)."""


class _PlainUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        raise DumpError(
            f"the pickle names {module}.{name}: a flight-recorder dump holds only plain data, "
            "and this file is refused rather than run"
        )


@dataclass(kw_only=True)
class Dump:
    path: str
    rank: int
    version: str
    entries: list[dict[str, Any]]
    pg_config: dict[str, dict[str, Any]] = field(default_factory=dict)
    pg_status: dict[str, Any] = field(default_factory=dict)
    side: dict[str, Any] = field(default_factory=dict)
    """The advisor's ``ranks/<rank>.json`` beside its own dumps (empty for other dumps)."""

    @property
    def backend(self) -> str:
        """From the entries' ``profiling_name`` (``gloo:all_reduce``); '' when none says."""
        for e in self.entries:
            name = str(e.get("profiling_name") or "")
            if ":" in name:
                return name.split(":", 1)[0]
        return ""


def parse_bytes(data: bytes) -> dict[str, Any]:
    """A dump's top-level mapping from its bytes (pickle or JSON); DumpError when it is not one."""
    text_start = data.lstrip()[:1]
    try:
        if text_start == b"{":
            doc = json.loads(data.decode("utf-8"))
        else:
            doc = _PlainUnpickler(io.BytesIO(data)).load()
    except DumpError:
        raise
    except Exception as e:  # a truncated or foreign file: pickle raises many kinds
        raise DumpError(f"not a pickle or JSON dump ({type(e).__name__}: {e})") from e
    if not isinstance(doc, dict) or any(k not in doc for k in _REQUIRED):
        raise DumpError(
            "not a flight-recorder dump (a dump is a mapping with 'version' and 'entries')"
        )
    if not isinstance(doc["entries"], list):
        raise DumpError("its 'entries' is not a list")
    return doc


def looks_like_dump(data: bytes) -> bool:
    try:
        parse_bytes(data)
    except DumpError:
        return False
    return True


def rank_of(path: Path) -> int | None:
    """The rank a dump file's name ends with (``nccl_trace_rank_3``); None when it names none."""
    m = _RANK_AT_END.search(path.name)
    return int(m.group(1)) if m else None


def read_dump(path: Path, rank: int | None = None) -> Dump:
    if path.stat().st_size > MAX_DUMP_BYTES:
        raise DumpError(f"larger than {MAX_DUMP_BYTES >> 20} MiB")
    doc = parse_bytes(path.read_bytes())
    if rank is None:
        rank = rank_of(path)
    if rank is None:
        raise DumpError(
            "its name ends with no rank number: the backends write <prefix><rank> "
            "(nccl_trace_rank_3); rename it so"
        )
    entries = [e for e in doc["entries"] if isinstance(e, dict)]
    side: dict[str, Any] = {}
    side_path = path.parent.parent / RANKS_SUBDIR / f"{rank}.json"
    if side_path.is_file():
        try:
            side = json.loads(side_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            side = {}
    return Dump(
        path=str(path),
        rank=rank,
        version=str(doc.get("version", "")),
        entries=entries,
        pg_config=dict(doc.get("pg_config") or {}),
        pg_status=dict(doc.get("pg_status") or {}),
        side=side if isinstance(side, dict) else {},
    )


def read_dir(directory: Path) -> tuple[list[Dump], list[str]]:
    """Every dump under ``directory`` (one per rank), and a problem line per file that was not."""
    dumps: dict[int, Dump] = {}
    problems: list[str] = []
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        if (
            path.parent.name == RANKS_SUBDIR
            or path.name.startswith(".")  # a dump being written (or cut off by a kill)
            or path.name.endswith("_py_traceback")
        ):
            continue
        try:
            d = read_dump(path)
        except (DumpError, OSError) as e:
            problems.append(f"{path}: {e}")
            continue
        if d.rank in dumps:
            problems.append(f"{path}: a second dump of rank {d.rank} (kept {dumps[d.rank].path})")
            continue
        dumps[d.rank] = d
    return [dumps[r] for r in sorted(dumps)], problems
