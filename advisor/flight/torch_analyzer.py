"""torch's own flight-recorder analyzer (``torchfrtrace``), run on the same dumps where it can.

torch ships it as ``torch.distributed.flight_recorder`` from 2.13 (before, as ``tools/`` of the
source tree, not in the wheel). It reads nccl-format dumps; on the gloo dumps of torch 2.13 it
stops with a KeyError (the dump's ``pg_config`` is keyed by an empty name while the entries name
the group ``0``), and on torch_npu's it needs an op name in ``profiling_name`` or the frames. Where
it runs, its verdict is quoted beside the advisor's; where it does not, the error says why.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
from dataclasses import dataclass, field
from typing import Any

from advisor.flight.load import Dump


@dataclass(kw_only=True)
class TorchVerdict:
    ran: bool
    error: str = ""
    """Why it could not analyse these dumps (its exception), when ``ran`` is false."""
    failing: list[dict[str, Any]] = field(default_factory=list)
    """Each collective it did not pass: ``{group, seq, op, missing_ranks, mismatch, culprit}``."""


def available() -> bool:
    try:
        import torch.distributed.flight_recorder.components.builder  # noqa: F401
    except ImportError:
        return False
    return True


def run(dumps: list[Dump]) -> TorchVerdict:
    """torch's analyzer over ``dumps`` (never raises: a failure is the verdict's error)."""
    sink = io.StringIO()
    # it logs its findings and warnings (tabulate missing) through logging: kept out of the run's
    # console, the verdict is read from its result
    logging.disable(logging.CRITICAL)
    try:
        # its import prints a warning when tabulate (an optional dependency) is missing
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            from torch.distributed.flight_recorder.components.builder import build_db
    except ImportError as e:
        logging.disable(logging.NOTSET)
        return TorchVerdict(ran=False, error=f"torch has no flight_recorder analyzer ({e})")
    details = {
        f"{d.rank}": {
            "host_name": f"host_rank{d.rank}",
            "rank": d.rank,
            "entries": [dict(e) for e in d.entries],
            "version": d.version,
            "pg_config": d.pg_config,
        }
        for d in dumps
    }
    version = next((d.version for d in dumps if d.version), "")
    args = argparse.Namespace(
        verbose=False,
        just_print_entries=False,
        allow_incomplete_ranks=True,
        mismatch_cap=10,
        selected_ranks=None,
        pg_filters=None,
        print_stack_trace=False,
        transform_ft=False,
        group_world_size=None,
        output=None,
        prefix=None,
        trace_dir=None,
    )
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            db = build_db(details, args, version)
    except (Exception, SystemExit) as e:  # any failure of a foreign tool is data
        return TorchVerdict(ran=False, error=f"{type(e).__name__}: {e}"[:300])
    finally:
        logging.disable(logging.NOTSET)
    failing = []
    for c in db.collectives:
        if c.pass_check:
            continue
        mismatch = c.type_of_mismatch
        failing.append(
            {
                "group": str(c.group_id),
                "desc": str(c.pg_desc),
                "seq": int(c.collective_seq_id),
                "op": str(c.collective_name),
                "missing_ranks": sorted(c.missing_ranks or []),
                "mismatch": str(getattr(getattr(mismatch, "state", None), "name", "") or ""),
                "culprit": str(getattr(mismatch, "culprit", "") or ""),
                "mismatched_ranks": sorted((c.mismatch_collectives or {}).keys()),
            }
        )
    return TorchVerdict(ran=True, failing=failing)
