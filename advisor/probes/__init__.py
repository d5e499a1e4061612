"""Readiness probes: preflight (per node, before any process group), connectivity,
topology, timeouts and subgroup consistency.

Each probe is a stage (see ``advisor.stages``): it records what it measured as it goes and
summarises the records into a typed dataclass documented beside its code; those summaries are the
facts the rules and the report read.
"""
