"""Files written from the findings: recommended.env, launch.sh, settings.yaml (and findings.json).

Every value comes from a fact or a rule and may hold anything, so each is quoted for the shell
with ``shlex.quote`` and every variable name was validated when the rule was loaded.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from advisor.backends import BACKEND_OF
from advisor.flight.settings import DUMP_PREFIX, PREFIX_OF_BACKEND, FlightConfig, recorder_env
from advisor.launch.commands import shell_line, torchrun_args
from advisor.rules.findings import EMULATED_NOTE, Resolved, RulesOutcome

if TYPE_CHECKING:
    from advisor.facts import ClusterFacts

ENV_FILE = "recommended.env"
LAUNCH_FILE = "launch.sh"
SETTINGS_FILE = "settings.yaml"
FINDINGS_FILE = "findings.json"
DEFAULT_MASTER_PORT = 29500


def _comment(text: str) -> str:
    """One shell comment line (newlines folded, so a message cannot end the comment)."""
    return "# " + " ".join(text.split())


def _emulated(item: Resolved) -> list[str]:
    return [_comment(EMULATED_NOTE)] if item.emulated else []


def env_lines(outcome: RulesOutcome) -> list[str]:
    lines: list[str] = []
    for item in outcome.env:
        for rule_id, why in zip(item.rule_ids, item.why, strict=False):
            lines.append(_comment(f"{rule_id}: {why}"))
        lines += _emulated(item)
        for c in outcome.conflicts:
            if c.kind == "env" and c.name == item.name:
                lines.append(_comment(f"conflict: {c.resolution}"))
        if item.unset:
            lines.append(f"unset {item.name}")
        else:
            lines.append(f"export {item.name}={shlex.quote(str(item.value))}")
    return lines


def recommended_env(outcome: RulesOutcome, run_id: str) -> str:
    header = [
        "# Environment recommended by the advisor's rules for this cluster.",
        _comment(f"run: {run_id}"),
        "# Use: source recommended.env (before torchrun), or see launch.sh.",
    ]
    body = env_lines(outcome) or ["# no environment changes recommended"]
    return "\n".join([*header, "", *body]) + "\n"


def settings_yaml(outcome: RulesOutcome, run_id: str) -> str:
    lines = [
        "# Job settings recommended by the advisor's rules (batch size, precision, comm hook,",
        "# bucket size ...); each with the rule that asked for it.",
        _comment(f"run: {run_id}"),
    ]
    if not outcome.settings:
        return "\n".join([*lines, "{}"]) + "\n"
    for item in outcome.settings:
        for rule_id, why in zip(item.rule_ids, item.why, strict=False):
            lines.append(_comment(f"{rule_id}: {why}"))
        lines += _emulated(item)
        dumped = yaml.safe_dump({item.name: item.value}, default_flow_style=False, sort_keys=False)
        lines.append(dumped.rstrip("\n"))
    return "\n".join(lines) + "\n"


def _setting(settings: list[Resolved], name: str) -> Any:
    for s in settings:
        if s.name == name:
            return s.value
    return None


def _flight_lines(cluster: ClusterFacts, already: set[str]) -> list[str]:
    """torch's flight recorder on in the training job, its dumps beside this script."""
    backend = BACKEND_OF.get(cluster.declared_device or cluster.device_type, cluster.backend)
    prefix = PREFIX_OF_BACKEND.get(backend, DUMP_PREFIX)
    env = recorder_env(backend, FlightConfig().buffer_entries, "@DUMPS@" + prefix)
    if backend in ("nccl", "hccl"):
        lines = [
            "# torch's flight recorder: each rank keeps its recent collectives, and a collective",
            "# time-out dumps them into flight_dumps/ (`advisor import flight_dumps/` then names",
            "# the rank that hung or diverged, and the collective)",
            'mkdir -p "$here/flight_dumps"',
        ]
    else:
        lines = [
            "# torch's flight recorder: each rank keeps its recent collectives (gloo has no dump",
            "# on time-out; torch._C._distributed_c10d._dump_fr_trace() returns them)",
        ]
    for name, value in env.items():
        if name in already:
            continue
        if value.startswith("@DUMPS@"):
            lines.append(f'export {name}="$here/flight_dumps/{value.removeprefix("@DUMPS@")}"')
        else:
            lines.append(f"export {name}={shlex.quote(value)}")
    return lines


def launch_script(outcome: RulesOutcome, cluster: ClusterFacts, run_id: str) -> str:
    """A bash script that starts the training job with torchrun on one node.

    Run on node i as ``TRAIN_SCRIPT=train.py ./launch.sh i [training args]``; the script's
    environment is the recommended one, settings.yaml is passed as ADVISOR_SETTINGS, and
    MASTER_ADDR / MASTER_PORT default to the cluster's (the caller may set them).
    """
    # An imported cluster may not know its shape (0) or its master: the script still starts
    # one rank on node 0, and the caller sets MASTER_ADDR / MASTER_PORT.
    nodes = max(1, cluster.nodes)
    per_node = max(1, cluster.devices_per_node)
    master = cluster.master_addr or "127.0.0.1"
    port = cluster.master_port or DEFAULT_MASTER_PORT
    join_timeout = _setting(outcome.settings, "join_timeout_s")
    lines = [
        "#!/usr/bin/env bash",
        "# Start the training job with the environment and settings the advisor recommends.",
        _comment(f"run: {run_id}; cluster {cluster.name}: {nodes} node(s) x {per_node}"),
        "# Usage, on node N (0 first):  TRAIN_SCRIPT=train.py ./launch.sh N [training args...]",
        "set -euo pipefail",
        'here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"',
        "",
        *env_lines(outcome),
        'export ADVISOR_SETTINGS="$here/settings.yaml"',
        "",
        *_flight_lines(cluster, {item.name for item in outcome.env}),
        "",
        # The address measured by the advisor is the default; the caller may override it.
        'if [ -z "${MASTER_ADDR:-}" ]; then MASTER_ADDR=' + shlex.quote(master) + "; fi",
        'if [ -z "${MASTER_PORT:-}" ]; then MASTER_PORT=' + str(port) + "; fi",
        'node_rank="${1:?usage: launch.sh NODE_RANK [training args...]}"',
        "shift",
        ': "${TRAIN_SCRIPT:?set TRAIN_SCRIPT to the training entry point (a .py file)}"',
        'case "$node_rank" in',
    ]
    for node in range(nodes):
        argv = [
            "torchrun",
            *torchrun_args(
                nodes=nodes,
                per_node=per_node,
                node_rank=node,
                master_addr="@MASTER_ADDR@",
                master_port="@MASTER_PORT@",
                join_timeout_s=float(join_timeout) if join_timeout else None,
            ),
            "@TRAIN_SCRIPT@",
        ]
        host = cluster.hosts[node] if node < len(cluster.hosts) else f"node{node}"
        lines.append(f"  {node})  {_comment(f'on {host}')}")
        line = shell_line(argv, ("MASTER_ADDR", "MASTER_PORT", "TRAIN_SCRIPT"))
        lines.append(f'    exec {line} "$@" ;;')
    lines += [
        f'  *) echo "launch.sh: NODE_RANK must be 0..{nodes - 1}, got $node_rank" >&2; exit 2 ;;',
        "esac",
    ]
    return "\n".join(lines) + "\n"


def has_shape(cluster: ClusterFacts) -> bool:
    """Whether the cluster's shape is known: always for a live run, for an import only when its
    files state one (a launch script for a made-up shape would start the wrong job)."""
    return not cluster.imported or bool(cluster.shape_source)


def file_names(cluster: ClusterFacts) -> list[str]:
    """The files ``write`` writes for this cluster, in order."""
    launch = [LAUNCH_FILE] if has_shape(cluster) else []
    return [FINDINGS_FILE, ENV_FILE, *launch, SETTINGS_FILE]


def write(outcome: RulesOutcome, cluster: ClusterFacts, run_id: str, run_dir: Path) -> list[Path]:
    """findings.json, recommended.env, launch.sh (only for a known shape, see ``has_shape``)
    and settings.yaml in ``run_dir``."""
    texts = {
        FINDINGS_FILE: None,
        ENV_FILE: recommended_env(outcome, run_id),
        LAUNCH_FILE: launch_script(outcome, cluster, run_id) if has_shape(cluster) else None,
        SETTINGS_FILE: settings_yaml(outcome, run_id),
    }
    paths = {name: texts[name] for name in file_names(cluster)}
    (run_dir / LAUNCH_FILE).unlink(missing_ok=True)  # a rerender keeps no script of an old shape
    written = []
    for name, text in paths.items():
        path = run_dir / name
        if text is None:
            outcome.write(path)
        else:
            path.write_text(text, encoding="utf-8")
        written.append(path)
    if LAUNCH_FILE in paths:
        (run_dir / LAUNCH_FILE).chmod(0o755)
    return written
