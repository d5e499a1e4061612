"""NVIDIA System Management (NVSM) on DGX servers: ``nvsm show health`` and ``nvsm stress-test``.

``nvsm show health`` (NVSM user guide, docs.nvidia.com/datacenter/nvsm/nvsm-user-guide,
Introduction: "an on-demand health check suite which runs a battery of tests and reports
deviations from expected results", among them "PCIe links ... running at lower link
width/speed") prints an ``Info`` block (``Version : 23.12.01``), then under ``Checks`` one line a
check, its name padded with dots to its state (``Verify disk controllers....... Unhealthy``), the
lines under a check that is not healthy saying what it found (``Missing disk controller at PCI
address 0000:2f:00.0``, ``Expected value 8GT/s but detected 2.5GT/s``), and at the end a
``Health Summary``: ``N out of M checks are healthy`` (and unhealthy, unknown, informational,
disabled, skipped, the states it counts) and ``Overall system status is healthy|unhealthy``.
An informational check does not make nvsm's overall status unhealthy (a copy with one
Informational check and "Overall system status is healthy" shows it), yet it names what it found
missing or unexpected, so it is reported, not passed over.

``nvsm stress-test`` (DGX user guides, quickstart: ``sudo nvsm stress-test --force``, about 20
minutes) prints a ``NVSM STRESS`` banner, ``Stressing GPU : ...`` lines, then one row a
component with its result (``GPU  Failed``, ``CPU  PASS``, ``PCIe  SKIPPED``) and a table of
sensor figures (``Component PreTest Min Max Avg Unit``, ``GPU_LOAD 0 0 0 0 %``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# the states a check line ends with: those the Health Summary counts, capitalised as the check
# lines print them ("Healthy", "Unhealthy", "Informational"), and "Warning"
STATES = ("Healthy", "Unhealthy", "Informational", "Unknown", "Warning", "Disabled", "Skipped")

# pdsh's "host: " before each line of a node's output (dshbak(1): "the leading node: is
# stripped" only by dshbak), as ``pdsh -w nx-w[0-3] sudo nvsm show health`` prints it
_PDSH = r"(?:[A-Za-z0-9][\w.-]{0,62}: )?"

SIGNATURE = (
    rf"^{_PDSH}Overall system status is (?:healthy|unhealthy)[ \t]*$"
    rf"|^{_PDSH}Running standard show health\b"
    r"|^Checks[ \t]*\n-{4,40}[ \t]*\n[^\n]{1,200}\.\.\.[ \t]?(?:Healthy|Unhealthy|Informational)"
    r"[ \t]*$"
    rf"|^{_PDSH}#{{3,60}} NVSM STRESS #{{3,60}}[ \t]*$"
    rf"|^{_PDSH}Stressing GPU : "
)
"""nvsm show health's overall line, its banner, or its Checks heading over a first check line;
nvsm stress-test's banner or its GPU line; each but the Checks heading also behind pdsh's
"host: "."""

_VERSION_RE = re.compile(r"^Version[ \t]{1,40}:[ \t]{1,40}(?P<version>\S{1,40})[ \t]*$")
_COUNT_RE = re.compile(
    r"^(?P<n>\d{1,6}) out of (?P<total>\d{1,6}) checks are (?P<state>[a-z]{1,20})[ \t]*$"
)
_OVERALL_RE = re.compile(r"^Overall system status is (?P<status>[a-z]{1,20})[ \t]*$")
_SECTION_RE = re.compile(r"^(?:Health Summary|System Summary|Info|Checks)[ \t]*$")
_STRESS_RE = re.compile(r"^#{3,60} NVSM STRESS #{3,60}[ \t]*$")
_RESULT_RE = re.compile(
    r"^(?P<component>[A-Za-z][A-Za-z0-9_-]{0,30})[ \t]{2,60}"
    r"(?P<result>PASS(?:ED)?|FAIL(?:ED)?|SKIP(?:PED)?|Pass(?:ed)?|Fail(?:ed)?|Skip(?:ped)?)[ \t]*$"
)
_FIGURES_RE = re.compile(
    r"^(?P<name>[A-Z][A-Z_]{1,30})[ \t]{1,40}(?P<pre>[\d.]{1,20})[ \t]{1,40}(?P<min>[\d.]{1,20})"
    r"[ \t]{1,40}(?P<max>[\d.]{1,20})[ \t]{1,40}(?P<avg>[\d.]{1,20})[ \t]{1,40}(?P<unit>\S{1,10})"
    r"[ \t]*$"
)
_LOG_RE = re.compile(r"^Stress Test Log:[ \t]*(?P<path>\S{1,300})")

_MAX_DETAIL_LINES = 12
"""The most lines kept under one check (an NVMe check prints its supported and found layouts)."""


@dataclass(kw_only=True)
class Check:
    """One check line: its name, state, line and the lines under it."""

    name: str
    state: str
    line: int
    details: list[tuple[int, str]] = field(default_factory=list)


@dataclass(kw_only=True)
class Health:
    """One ``nvsm show health`` run."""

    version: str = ""
    checks: list[Check] = field(default_factory=list)
    counts: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    """state -> (checks in it, checks in all, line)"""
    overall: str = ""
    overall_line: int = 0


@dataclass(kw_only=True)
class Stress:
    """One ``nvsm stress-test`` run: each component's result and the sensor figures."""

    line: int
    results: list[tuple[str, str, int]] = field(default_factory=list)
    """(component, result as printed, line)"""
    figures: dict[str, tuple[str, str, str, str, int]] = field(default_factory=dict)
    """name -> (min, max, avg, unit, line)"""
    log: str = ""


def _check_line(line: str) -> tuple[str, str] | None:
    """(name, state) of a check line: a name, a run of three or more dots (a space may follow),
    then a state word. Read from the end, not with one pattern, so a name that holds dots of its
    own ("[25.781 GB/s]") costs no backtracking."""
    stripped = line.rstrip()
    head, _, state = stripped.rpartition(" ")
    if state not in STATES:
        return None
    name = head.rstrip(" ")
    if not name.endswith("..."):
        return None
    return name.rstrip(".").rstrip(), state


def parse_health(text: str) -> Health:
    """The checks, the Health Summary's counts and the overall status of ``nvsm show health``."""
    health = Health()
    current: Check | None = None
    for number, line in enumerate(text.splitlines(), 1):
        if m := _VERSION_RE.match(line):
            health.version = health.version or m["version"]
            current = None
            continue
        check = _check_line(line)
        if check is not None:
            current = Check(name=check[0], state=check[1], line=number)
            health.checks.append(current)
            continue
        if m := _COUNT_RE.match(line):
            health.counts[m["state"]] = (int(m["n"]), int(m["total"]), number)
            current = None
            continue
        if m := _OVERALL_RE.match(line):
            health.overall, health.overall_line = m["status"], number
            current = None
            continue
        if _SECTION_RE.match(line):
            current = None
            continue
        if current is not None and line.strip() and len(current.details) < _MAX_DETAIL_LINES:
            current.details.append((number, line.strip()))
    return health


def parse_stress(text: str) -> list[Stress]:
    """Each ``nvsm stress-test`` run: from its banner (or its first result row) on."""
    runs: list[Stress] = []
    for number, line in enumerate(text.splitlines(), 1):
        if _STRESS_RE.match(line):
            if runs and not runs[-1].results:
                continue  # the closing row of hashes prints no "NVSM STRESS"
            runs.append(Stress(line=number))
            continue
        if m := _RESULT_RE.match(line):
            if not runs:
                runs.append(Stress(line=number))
            runs[-1].results.append((m["component"], m["result"], number))
            continue
        if runs and (m := _FIGURES_RE.match(line)):
            runs[-1].figures[m["name"]] = (m["min"], m["max"], m["avg"], m["unit"], number)
            continue
        if runs and (m := _LOG_RE.match(line)):
            runs[-1].log = m["path"]
    return [run for run in runs if run.results]


def is_stress(text: str) -> bool:
    """Whether the copy is nvsm stress-test's (its banner or GPU stress line)."""
    return bool(re.search(r"^#{3,60} NVSM STRESS|^Stressing GPU : ", text, re.M))
