"""The typed result of a flight-recorder analysis (``StageFacts.flight``, ``evidence.flight``)."""

from __future__ import annotations

from dataclasses import dataclass, field

PATTERNS = ("never_entered", "not_completed", "mismatch", "membership")
"""never_entered: a member rank never enqueued a collective its group's other members did (it hung
or crashed before the call, or took another code path); not_completed: every member enqueued it
and some never finished it (network or peer); mismatch: members enqueued it with a different op,
sizes or dtype (a code path that differs by rank); membership: ranks disagree on a group's
members (the layout mistake of building subgroups differently on different ranks)."""


@dataclass(kw_only=True)
class FlightCall:
    """One rank's entry of a collective, as the recorder kept it."""

    rank: int
    seq: int
    """The group's collective sequence id (1-based, per process group)."""
    op: str
    """Collective name without the backend prefix (``all_reduce``)."""
    input_sizes: list[list[int]] = field(default_factory=list)
    input_dtypes: list[str] = field(default_factory=list)
    output_sizes: list[list[int]] = field(default_factory=list)
    state: str = ""
    """completed, started, in_flight (enqueued, not retired), retired (finished or failed: gloo
    records no completion state), failed (the call this rank's error came from)."""


@dataclass(kw_only=True)
class Culprit:
    rank: int
    pattern: str
    """One of PATTERNS."""
    detail: str
    node_name: str = ""
    host: str = ""


@dataclass(kw_only=True)
class GroupDiagnosis:
    """What the buffers say about one process group."""

    group: str
    """The process group's name in the dumps (``0`` is the default group)."""
    desc: str = ""
    ranks: list[int] = field(default_factory=list)
    """Its members (global ranks), as the dumps or the ranks' own group lists say."""
    seq: int | None = None
    """The first collective where the members diverge (None: they agree to the end)."""
    op: str = ""
    """That collective as most members enqueued it."""
    input_sizes: list[list[int]] = field(default_factory=list)
    input_dtypes: list[str] = field(default_factory=list)
    never_entered: list[int] = field(default_factory=list)
    not_completed: list[int] = field(default_factory=list)
    mismatched: list[int] = field(default_factory=list)
    waiting: list[int] = field(default_factory=list)
    """Ranks that entered it and waited for the culprits (consequences, not causes)."""
    last: dict[str, list[FlightCall]] = field(default_factory=dict)
    """Per rank (as a string key), its last few collectives of this group, oldest first."""


@dataclass(kw_only=True)
class FlightFacts:
    """Every rank's flight-recorder dump of one failed job (or one imported folder), compared."""

    source: str
    """The stage (``smoke``) or the imported folder the dumps came from."""
    dump_dir: str = ""
    backend: str = ""
    version: str = ""
    """The dumps' format version (torch's ``version`` key)."""
    ranks_dumped: list[int] = field(default_factory=list)
    ranks_missing: list[int] = field(default_factory=list)
    """Members with no dump (a rank that died takes its buffer with it)."""
    analyzer: str = ""
    """``torch`` (torch's own flight-recorder analyzer agreed and is quoted) or ``advisor`` (the
    advisor's own comparison; torch's could not read these dumps, see analyzer_note)."""
    analyzer_note: str = ""
    groups: list[GroupDiagnosis] = field(default_factory=list)
    culprits: list[Culprit] = field(default_factory=list)
    summary: str = ""
    """One line: the first culprit, its collective and group, with node and host."""
    problems: list[str] = field(default_factory=list)
    """Dumps that could not be read, each with its file and why."""
