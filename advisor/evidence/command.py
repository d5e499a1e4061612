"""``advisor import PATH...``: imported files → a run directory with facts, findings and report.

Exit codes: 0 when at least one file was read (the verdict is printed, and the findings are in
the report), 1 when nothing could be read, 2 for a usage error (a path that does not exist).
"""

from __future__ import annotations

import argparse
import json
import shlex
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from rich.markup import escape

from advisor import __version__, console, outputs
from advisor.config import AdvisorConfig
from advisor.errors import ConfigError
from advisor.evidence.load import EvidenceFacts, load_paths, shape_note
from advisor.facts import ClusterFacts, Facts, RunInfo, StageFacts, summary_of
from advisor.paths import EVIDENCE_FILE, RUN_FILE, results_dir, unwritable_dir
from advisor.plain import dumps_indented
from advisor.probes.drift import from_evidence as drift_from_evidence

_STYLE = {"read": "green", "partial": "yellow"}


def print_files(evidence: EvidenceFacts) -> None:
    """One line per file (status and formats), then each message as ``path:line: message``."""
    for f in evidence.files:
        style = _STYLE.get(f.status, "red")
        what = ", ".join(f.formats) if f.formats else "nothing read"
        console.out.print(f"  [{style}]{f.status:<10}[/{style}] {escape(f.path)} ({escape(what)})")
        for m in f.messages:
            where = f"{f.path}:{m.line}" if m.line else f.path
            console.out.print(f"      {escape(where)}: {escape(m.message)}")


_NPU_KINDS = frozenset(
    {
        "hccl_error",
        "hccl_plog_error",
        "hccl_call_failure",  # an HCCL API call's result (HcclCommInitRootInfo ...)
        "npu_dcmi_error",
        "npu_driver_error",  # the Ascend driver's ERROR lines in a host's kernel log
        "faultdiag_fault",
        "faultdiag_performance",  # ascend-fd's performance modules
        "npu_freq_reduced",  # MindCluster's check of its npu-smi samples
        "npu_compute_low",  # ascend-dmi -f: a device far under its peers' computing power
        "npu_device_state",  # msnpureport's device_info.txt: a device whose OS does not run
        "npu_port_link_fault",  # a device slog's IMP line: FaultDiag's cable link fault
        "ascend_tool_failure",
        "asys_check",  # CANN's asys diagnose
        "dmi_check",  # Ascend DMI's diagnosis
        "npu_package_reboot_pending",  # an Ascend driver/firmware installer's reboot pending
        "reschedule",  # MindCluster (Ascend's cluster scheduler) rescheduling a job
    }
)
"""Failure kinds only an Ascend NPU's software prints."""

_NPU_FORMATS = frozenset(
    {
        "asys",
        "ascend_dmi",
        "npu_smi_details",
        "npu_smi_templates",
        "ascend_notes",
        "msnpureport_devices",
        "faultdiag",
        "ascend_versions",
    }
)
"""Formats only an Ascend host's tools print, read into notes alone when every check passed."""


def _weak_npu(e: dict[str, Any]) -> bool:
    return e["kind"] == "npu_dcmi_error" or (
        e["kind"] == "ascend_tool_failure" and "was not found" in (e.get("exception_type") or "")
    )


def cluster_from(evidence: EvidenceFacts) -> ClusterFacts:
    """What the files say about the cluster: the device type, and a shape only when the files
    state one (a rank table, a benchmark's ranks over its hosts) and all that do agree; else
    no shape (0 nodes, no hosts) rather than one joined from unrelated files."""
    npu = bool(
        evidence.npu_chips
        or evidence.npu_ports
        or evidence.hccn_conf
        or evidence.rank_tables
        or any(b["tool"] == "hccl_test" for b in evidence.benchmarks)
        or any(
            # a CANN plog's error line (HCCL's, the runtime's, the driver's) is an NPU's; so are
            # MindCluster's fault report and an Ascend driver tool's failed command
            (e["kind"] in _NPU_KINDS and not _weak_npu(e)) or e["library"] == "HCCL"
            for e in evidence.failures
        )
        or any(f.backend == "hccl" for f in evidence.flight)
        or any(_NPU_FORMATS.intersection(f.formats) for f in evidence.files)
    )
    cuda = bool(
        any(t["tool"] == "nvidia-smi" for t in evidence.topologies)
        or bool(evidence.nvlinks)
        or bool(evidence.nvlink_states)
        or bool(evidence.gpu_copy)
        or bool(evidence.gpus)
        or any(b["tool"] == "nccl-tests" for b in evidence.benchmarks)
        or bool(evidence.dcgm_diags)
        or any(e["library"] in ("NCCL", "NVIDIA driver (NVRM)") for e in evidence.failures)
        or any(f.backend == "nccl" for f in evidence.flight)
    )
    # a tool the shell did not find, or DCMI's error, says an NPU's software was looked for:
    # an NPU only where nothing says the host is NVIDIA's (a script trying every vendor's tool
    # prints "npu-smi: command not found" on GPU nodes)
    npu = npu or (not cuda and any(_weak_npu(e) for e in evidence.failures))
    device = "npu" if npu and not cuda else "cuda" if cuda and not npu else ""
    shape = agreed_shape(evidence.shapes)
    return ClusterFacts(
        name="imported",
        nodes=shape["nodes"] if shape else 0,
        devices_per_node=shape["per_node"] if shape else 0,
        world_size=shape["world_size"] if shape else 0,
        device_type=device,
        declared_device=device,
        backend={"npu": "hccl", "cuda": "nccl"}.get(device, ""),
        emulated=False,
        hosts=next((s["hosts"] for s in evidence.shapes if s["hosts"]), []) if shape else [],
        master_addr="",
        master_port=0,
        interface="",
        links={},
        imported=True,
        shape_source=", ".join(dict.fromkeys(s["source"] for s in evidence.shapes))
        if shape
        else "",
    )


def agreed_shape(shapes: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The one shape every file that states one agrees on (nodes, per node and, where named,
    the hosts); None when none states one or two disagree."""
    if not shapes:
        return None
    first = shapes[0]
    named = [sorted(s["hosts"]) for s in shapes if s["hosts"]]
    same = all((s["nodes"], s["per_node"]) == (first["nodes"], first["per_node"]) for s in shapes)
    return first if same and all(h == named[0] for h in named) else None


def bench_stage(benchmarks: list[dict[str, Any]]) -> StageFacts | None:
    """Imported benchmark tables (``EvidenceFacts.benchmarks``) as ``bench`` stage facts, so the
    live benchmark's rules and charts read them too; None when no table was imported."""
    if not benchmarks:
        return None
    results = [r for b in benchmarks for r in b["results"]]
    avg: dict[str, float] = {}
    for b in benchmarks:
        if b["avg_busbw_gbps"] is not None:
            # one entry per file: two logs of one op are two measurements, not one average
            avg[f"{b['op']}/{b['algorithm']}/{b['dtype']} ({b['source']})"] = b["avg_busbw_gbps"]
    sources = sorted({b["source"] for b in benchmarks})
    return StageFacts(
        name="bench",
        status="ok",
        reason=f"imported from {', '.join(sources)}; not measured by this run",
        # The bench stage's own type, through the registry: its module loads torch, so it is
        # loaded only when there are tables to hold; the rows become its BenchResult rows.
        data=summary_of(
            "bench",
            {"results": results, "avg_busbw_gbps": avg, "imported": True, "sources": sources},
        ),
    )


def drift_stage(evidence: EvidenceFacts) -> StageFacts | None:
    """Values that differ between the hosts of the imported files (one folder per host) as
    ``drift`` stage facts, so the drift rules and report section read them too; None unless
    the files come from two hosts or more."""
    data = drift_from_evidence(evidence)
    if data is None:
        return None
    return StageFacts(
        name="drift",
        status="ok",
        reason=f"compared from imported files of {', '.join(data.nodes)}; not measured by this run",
        data=data,
    )


def add_imported_stages(facts: Facts) -> None:
    """The stages an import fills from its files: ``bench`` (tables), ``drift`` (hosts)."""
    evidence = facts.evidence or EvidenceFacts()
    for stage in (bench_stage(evidence.benchmarks), drift_stage(evidence)):
        if stage is not None:
            facts.stages[stage.name] = stage


def default_run_dir(now: datetime) -> Path:
    base = Path("reports") / now.strftime("%Y-%m-%d") / f"{now.strftime('%H-%M-%S')}_import"
    path, n = base, 1
    while path.exists():
        n += 1
        path = base.with_name(f"{base.name}-{n}")
    return path


def main(args: list[str]) -> int:

    parser = argparse.ArgumentParser(
        prog="advisor import",
        description="read benchmark logs, tool outputs, rank tables and failure logs you already "
        "have; write facts, findings and a report from them",
    )
    parser.add_argument("paths", nargs="+", help="files or directories (walked recursively)")
    parser.add_argument("--out", type=Path, help="run directory (default reports/DATE/TIME_import)")
    ns = parser.parse_args(args)
    started = time.time()
    evidence = load_paths(ns.paths)
    console.out.print(f"[bold]advisor import[/bold]: {len(evidence.files)} file(s)")
    print_files(evidence)
    if evidence.read_count == 0:
        # nothing was assessed, so neither READY (0) nor NOT READY (1): the input is not evidence
        console.error(
            f"nothing could be read from {len(evidence.files)} file(s): see the messages above "
            "for each file and line"
        )
        return 2
    out = ns.out or default_run_dir(datetime.now())
    why = unwritable_dir(out)
    if why:
        raise ConfigError(
            f"run directory {out} cannot be written: {why}. Give --out DIR in a directory you "
            "can write."
        )
    run_dir = out.resolve()
    run_dir.mkdir(parents=True, exist_ok=True)
    results_dir(run_dir).mkdir(parents=True, exist_ok=True)
    facts = Facts(
        run=RunInfo(
            run_id=run_dir.name,
            run_dir=str(run_dir),
            command=shlex.join(["advisor", "import", *args]),
            profile="import",
            started_at=started,
            finished_at=time.time(),
            advisor_version=__version__,
        ),
        cluster=cluster_from(evidence),
        evidence=evidence,
    )
    facts.run.duration_s = facts.run.finished_at - started
    console.out.print(escape(shape_note(evidence, facts.cluster)))
    add_imported_stages(facts)
    # the facts' JSON form once, for the stored results, facts.json and the rules
    data = facts.to_dict()
    stored = {"run": data["run"], "cluster": data["cluster"], "environment": {}}
    (results_dir(run_dir) / RUN_FILE).write_text(dumps_indented(stored), encoding="utf-8")
    (results_dir(run_dir) / EVIDENCE_FILE).write_text(
        dumps_indented(data["evidence"]), encoding="utf-8"
    )
    console.out.print(
        f"read {evidence.read_count} of {len(evidence.files)} file(s) into {escape(str(run_dir))}"
    )
    # the verdict's exit code, as a live run's and as `advisor report` of this run give it
    return outputs.write_all(facts, AdvisorConfig(), run_dir, data)


def rerender(run_dir: Path) -> int:
    """``advisor report RUN_DIR`` for an import: every output again from results/ alone."""
    stored = json.loads((results_dir(run_dir) / RUN_FILE).read_text(encoding="utf-8"))
    stored["evidence"] = json.loads(
        (results_dir(run_dir) / EVIDENCE_FILE).read_text(encoding="utf-8")
    )
    facts = Facts.from_dict({**stored, "stages": {}}, source=str(results_dir(run_dir)))
    add_imported_stages(facts)
    outputs.write_all(facts, AdvisorConfig(), run_dir)
    return 0
