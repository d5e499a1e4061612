"""``advisor import`` states only what the files say: no cluster made up from unrelated files,
no launch.sh without a shape, no rule judged on facts an import cannot have, one benchmark
average per file, every file's status and every listed event in the report."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from advisor.errors import ConfigError
from advisor.evidence import command
from advisor.evidence.load import detect, load_paths, load_text
from advisor.rules import schema
from tests.conftest import DATA, run_advisor
from tests.test_flight_import import _load, _nccl

SAMPLES = DATA / "evidence"


def _import(tmp_path: Path, *paths: Path) -> Path:
    """``advisor import PATHS --out RUN`` in this process; the run directory. The exit code is
    the verdict's: 1 exactly when the report says NOT READY."""
    out = tmp_path / "run"
    code = command.main([*map(str, paths), "--out", str(out)])
    assert code == (1 if "NOT READY" in (out / "report.html").read_text() else 0)
    return out


def _verdict(run_dir: Path) -> str:
    m = re.search(r'id="verdict">([^<]+)<', (run_dir / "report.html").read_text())
    assert m, "no verdict in the report"
    return m.group(1)


def _findings(run_dir: Path) -> dict:
    return json.loads((run_dir / "findings.json").read_text())


def _copy(src: Path, dst: Path) -> Path:
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(src, dst)
    return dst


def test_one_healthy_npu_smi_output_is_ready(tmp_path: Path) -> None:
    run = _import(tmp_path, SAMPLES / "npu_smi_info_910a_narrow.txt")
    assert _verdict(run) == "READY"
    outcome = _findings(run)
    assert [f["rule_id"] for f in outcome["findings"] if f["severity"] != "info"] == []
    skipped = {s["rule_id"]: s["reason"] for s in outcome["skipped"]}
    # judged before on the advisor's own default time-out and no variables at all
    reason = skipped["pg-timeout-not-above-hccl-timeouts"]
    assert reason.startswith("not applicable to an import: needs config")
    assert "needs env" in reason
    assert "not applicable to an import: needs env" in skipped["hccl-rdma-tc"]
    facts = json.loads((run / "facts.json").read_text())
    assert (facts["cluster"]["nodes"], facts["cluster"]["shape_source"]) == (0, "")
    assert not (run / "launch.sh").exists()
    assert "no cluster shape in the evidence" in (run / "report.html").read_text()


def test_a_finding_keeps_what_an_import_gives_and_drops_what_needs_live_facts(
    tmp_path: Path,
) -> None:
    rule = schema.load_paths([schema.builtin_dir()]).get("evidence-hccl-socket-timeout")
    assert "env" in rule.reads and rule.live_roots == []  # env only for its recommendation
    run = _import(tmp_path, SAMPLES / "hccl_ei0006_init.log")
    (finding,) = [f for f in _findings(run)["findings"] if f["rule_id"] == rule.id]
    assert finding["severity"] == "critical"
    assert [r["kind"] for r in finding["recommendations"]] == ["advice"]
    (note,) = finding["notes"]
    assert "HCCL_CONNECT_TIMEOUT not computed: not applicable to an import: needs env" in note


def test_rules_name_the_live_facts_they_need() -> None:
    rules = {r.id: r for r in schema.load_paths([schema.builtin_dir()]).rules}
    assert rules["pg-timeout-not-above-hccl-timeouts"].live_roots == ["config", "env"]
    assert rules["launch-node-slow-start"].live_roots == ["launches"]
    assert rules["evidence-npu-chip-health"].live_roots == []
    assert set(schema.LIVE_ROOTS) <= set(schema.CONTEXT_ROOTS)
    res = run_advisor(["explain", "pg-timeout-not-above-hccl-timeouts"], command="rules")
    assert res.returncode == 0, res.stderr
    assert "imports:    not applicable (needs config, env" in res.stdout


def test_items_are_validated_with_the_rule(tmp_path: Path) -> None:
    path = tmp_path / "r.yaml"
    path.write_text(
        "rules:\n  - id: r\n    title: t\n    category: timeouts\n    condition: 'true'\n"
        "    severity: info\n    message: m\n    reference: x\n    evidence: [evidence.failures]\n"
        "    items: {each: evidence.failures}\n"
    )
    with pytest.raises(ConfigError, match=r"rule r: field items\.line: required field"):
        schema.load_paths([path])


def test_two_logs_of_one_op_are_two_benchmark_averages(tmp_path: Path) -> None:
    first = _copy(SAMPLES / "nccl_all_reduce_truncated.log", tmp_path / "a" / "run1.log")
    # named after its binary, as ops teams save them: the log itself does not name the op
    second = _copy(
        SAMPLES / "nccl_all_reduce_old_error_column.log", tmp_path / "b" / "all_reduce_perf.log"
    )
    run = _import(tmp_path, first, second)
    facts = json.loads((run / "facts.json").read_text())
    averages = facts["stages"]["bench"]["data"]["avg_busbw_gbps"]
    assert len(averages) == 2
    for source in (first, second):
        (key,) = [k for k in averages if str(source) in k]
        assert key.startswith("all_reduce/default/float32")
    assert len({round(v, 3) for v in averages.values()}) == 2


def test_files_from_two_hosts_are_shown_per_host_without_a_cluster(tmp_path: Path) -> None:
    a = _copy(SAMPLES / "npu_smi_info_910a_narrow.txt", tmp_path / "node-a" / "npu-smi.txt")
    b = _copy(SAMPLES / "npu_smi_info_310p_duo.txt", tmp_path / "node-b" / "npu-smi.txt")
    out = tmp_path / "run"
    res = run_advisor([str(tmp_path / "node-a"), str(tmp_path / "node-b"), "--out", str(out)],
                      out, command="import", timeout_s=120)  # fmt: skip
    assert res.returncode == 0, res.stdout + res.stderr
    assert "files from 2 hosts or folders" in res.stdout
    assert "no cluster shape in the evidence: no launch.sh is written" in res.stdout
    assert "launch.sh" not in res.stdout.splitlines()[-2]  # the list of files written
    assert not (out / "launch.sh").exists()
    facts = res.facts
    assert [(h["host"], h["files"]) for h in facts["evidence"]["hosts"]] == [
        (str(a.parent), [str(a)]),
        (str(b.parent), [str(b)]),
    ]
    cluster = facts["cluster"]
    assert (cluster["nodes"], cluster["world_size"], cluster["hosts"]) == (0, 0, [])
    report = (out / "report.html").read_text()
    hosts = report.split('<div class="evidence-host">')[1:]
    assert len(hosts) == 2
    assert str(a) in hosts[0] and "910A" in hosts[0] and "310P3" not in hosts[0]
    assert str(b) in hosts[1] and "310P3" in hosts[1]
    assert 'id="no-launch"' in report


def test_a_shape_the_files_agree_on_gives_launch_sh(tmp_path: Path) -> None:
    run = _import(
        tmp_path, SAMPLES / "hccl_test_all_reduce_2x8.log", SAMPLES / "rank_table_v10.json"
    )
    cluster = json.loads((run / "facts.json").read_text())["cluster"]
    assert (cluster["nodes"], cluster["devices_per_node"], cluster["world_size"]) == (2, 8, 16)
    assert cluster["hosts"] == ["10.0.0.11", "10.0.0.12"]
    assert "rank_table_v10.json" in cluster["shape_source"]
    assert "hccl_test_all_reduce_2x8.log" in cluster["shape_source"]
    launch = (run / "launch.sh").read_text()
    assert "2 node(s) x 8" in launch and "--nnodes=2" in launch


def test_shapes_that_disagree_give_no_cluster(tmp_path: Path) -> None:
    run = _import(
        tmp_path, SAMPLES / "hccl_test_all_reduce_2x8.log", SAMPLES / "rank_table_v12.json"
    )
    facts = json.loads((run / "facts.json").read_text())
    assert (facts["cluster"]["nodes"], facts["cluster"]["shape_source"]) == (0, "")
    assert {(s["nodes"], s["per_node"]) for s in facts["evidence"]["shapes"]} == {(2, 8), (2, 4)}
    assert not (run / "launch.sh").exists()
    note = re.search(r'id="shape-note">([^<]+)<', (run / "report.html").read_text())
    assert note and "The files disagree" in note.group(1)


def test_report_shows_each_file_status_chips_topology_and_folded_events(tmp_path: Path) -> None:
    names = [
        "binary.bin",
        "rank_table_broken.json",
        "nccl_all_reduce_truncated.log",
        "unknown_notes.txt",
        "hccn_npu_info_before.txt",
        "hccn_link_loop.txt",
        "npu_smi_info_910b_wide.txt",
        "npu_smi_topo_910b.txt",
    ]
    run = _import(tmp_path, *(SAMPLES / n for n in names))
    report = (run / "report.html").read_text()
    table = report.split('id="evidence-files"')[1].split("</table>")[0]
    rows = {n: r for n in names for r in table.split("<tr")[1:] if f"{n}</code>" in r}
    assert set(rows) == set(names)
    assert "s-binary" in rows["binary.bin"]
    assert "s-unreadable" in rows["rank_table_broken.json"]
    assert "line 6: rank_table: not valid JSON" in rows["rank_table_broken.json"]
    assert "s-partial" in rows["nccl_all_reduce_truncated.log"]
    assert "line 10:" in rows["nccl_all_reduce_truncated.log"]
    assert "s-unknown" in rows["unknown_notes.txt"]
    # the npu-smi chip table (NPU 2 in Warning marked), the topology matrix with its SYS pair
    chips = report.split('<table class="chips">')[1].split("</table>")[0]
    assert "910B3" in chips and '<tr class="warn">' in chips
    matrix = report.split('<table class="topology">')[1].split("</table>")[0]
    assert matrix.count("<tr>") == 9  # a header row and one per NPU
    assert '<td class="bad">SYS</td>' in matrix
    # every port the file lists is an item of the finding, folded after five
    (ports,) = [f for f in _findings(run)["findings"] if f["rule_id"] == "evidence-npu-port-state"]
    assert len(ports["items"]) > 5
    article = report.split("(evidence-npu-port-state)")[1].split("</article>")[0]
    shown, rest = article.split('<details class="more">')
    folded = rest.split("</details>")[0]
    assert f"<summary>{len(ports['items']) - 5} more</summary>" in folded
    assert shown.count("<li>") == 5
    assert folded.count("<li>") == len(ports["items"]) - 5


def test_detection_finds_a_format_after_other_text_and_several_in_one_file() -> None:
    log = "".join(f"2026-11-28 10:00:{i % 60:02d} INFO step {i} loss 0.{i}\n" for i in range(500))
    table = (SAMPLES / "rank_table_v10.json").read_text()
    chips = (SAMPLES / "npu_smi_info_910a_narrow.txt").read_text()
    text = log + table + "\n" + log + chips
    assert detect(text) == ["npu_smi_info", "rank_table"]
    ev = load_text(text, "collected.log")
    assert (ev.files[0].status, ev.files[0].formats) == ("read", ["npu_smi_info", "rank_table"])
    (read,) = ev.rank_tables
    assert (read["server_count"], len(read["ranks"])) == (2, 16)
    assert {c["name"] for c in ev.npu_chips} == {"910A"}


def test_a_json_flight_dump_is_found_when_its_entries_come_late(tmp_path: Path) -> None:
    # torch's JSON dump writes its process groups before "entries"; a job of many groups
    # pushes "entries" far past the first 4 KiB
    folder = tmp_path / "dumps"
    folder.mkdir()
    for rank, doc in enumerate(_load("gloo-2.13-op")):
        doc = _nccl(doc, 4)
        groups = {
            str(g): {"name": str(g), "desc": f"tp_{g}", "ranks": "[0, 1]"} for g in range(1, 200)
        }
        ordered = {k: v for k, v in doc.items() if k != "entries"}
        ordered["pg_config"] = {**doc["pg_config"], **groups}
        ordered["entries"] = doc["entries"]
        text = json.dumps(ordered)
        assert text.index('"entries"') > 4096
        (folder / f"nccl_trace_rank_{rank}.json").write_text(text)
    ev = load_paths([folder])
    assert {(Path(f.path).name, f.status, tuple(f.formats)) for f in ev.files} == {
        (f"nccl_trace_rank_{r}.json", "read", ("flight_recorder",)) for r in range(4)
    }
    (flight,) = ev.flight
    assert flight.culprits and flight.culprits[0].pattern == "mismatch"


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        (
            "dcgmi_diag_table_middle_only_gpu_memory_pass_gpu1_fail_gpu0_cuda_busy_wrapped_warning_go_dcgm52_cut.txt",
            "evidence-dcgm-diag-failed",
        ),
        (
            "ascend_fd_diag_report_comp_network_custom_05_optical_not_present_device_0_4_mindcluster_quick_start_cut.txt",
            "evidence-faultdiag-fault",
        ),
        (
            "npu_smi_info_container_dcmi_init_failed_ret_8020_device_used_cann_container_image46.txt",
            "evidence-npu-dcmi-init-failed",
        ),
        (
            "mindformers_hccl_tools_sh_hccn_tool_not_found_then_keyerror_mindspore252_cut.txt",
            "evidence-ascend-tool-failure",
        ),
    ],
)
def test_a_file_imported_alone_tells_its_device_and_its_rule_judges_it(
    tmp_path: Path, name: str, rule: str
) -> None:
    # the device type comes from the file itself (DCGM is NVIDIA's, DCMI and ascend-fd Ascend's):
    # the rules for its kind apply without another file beside it
    run = _import(tmp_path, DATA / "evidence_heldout_42" / name)
    assert rule in {f["rule_id"] for f in _findings(run)["findings"]}
