"""Outputs of round OOOO's held-out evaluation (set 678, framework logs on NVIDIA clusters) that
the advisor read in part or wrong before this change (tests/data/evidence_heldout_75, sources
in tests/data/SOURCES.md): a Horovod stall inspector warning whose "0: [...]" list a copy broke
over two lines, read without its stalled rank 0 or its allreduce tensors; a torch elastic
ChildFailedError summary cut inside its root-cause entry, whose finding named only "A worker
failed (its summary entry is cut)" though the other entries say host test-luo-1 and ranks 10-15
killed by SIGKILL (-9); and DeepSpeed's runner taking 172.17.0.1 (Docker's default bridge) as
the master address of a two-node job, read as READY with its lines unread."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_75"

STALL = (
    "horovod_keras_stall_inspector_rank0_stalled_allreduce_over_60s_gcp_p100_horovod1206_cut.log"
)
ELASTIC = (
    "colossalai_torchrun_childfailederror_ranks10_15_sigkill_exitcode_minus9_host_test_luo_1_"
    "colossalai4418_cut.log"
)
BRIDGE = (
    "deepspeed_pdsh_runner_uses_docker_bridge_ip_172.17.0.1_for_node_192.168.1.1_thunderbolt_"
    "ds5766_cut.log"
)

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


# --- Horovod's stall inspector: a rank's list broken over two lines -----------------------------


def test_stalled_rank_and_its_allreduce_tensors_are_named() -> None:
    ev = _load(STALL)
    assert ev.files[0].status == "read"
    (stall,) = ev.failures
    assert stall["kind"] == "horovod_stall" and stall["line"] == 1
    assert stall["missing_ranks"] == [0]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-horovod-stall", "warning")]
    (item,) = heldout.items(outcome, "evidence-horovod-stall")
    assert "waited more than 60 s for the rest" in item
    assert (
        "rank 0 had not submitted training/Adadelta_Allreduce/"
        "HorovodAllreduce_Adadelta_1_gradients_AddN_102_0 and 5 more, the list cut (allreduce)"
    ) in item


def test_a_list_broken_over_three_lines_for_another_rank(tmp_path: Path) -> None:
    # rank 3's list broken twice, with a second rank's list whole after it: both ranks read
    lines = _text(STALL).splitlines()
    names = lines[3].split(", ")
    text = "\n".join(
        [
            lines[0],
            lines[1],
            lines[2].replace("0: [", "3: ["),
            ", ".join(names[:2]) + ", ",
            ", ".join(names[2:]),
            "5: [training/Adadelta_Allreduce/HorovodAllreduce_Adadelta_1_gradients_AddN_110_0]",
        ]
    )
    ev = _write(tmp_path, text)
    (stall,) = ev.failures
    assert stall["missing_ranks"] == [3, 5]
    assert "rank 3 had not submitted" in stall["exception_type"]
    assert "AddN_102_0 and 5 more, the list cut (allreduce)" in stall["exception_type"]
    assert "rank 5 had not submitted" in stall["exception_type"]
    assert "AddN_110_0 (allreduce)" in stall["exception_type"]


def test_a_list_never_closed_names_its_kept_name_as_cut(tmp_path: Path) -> None:
    # the copy cut inside rank 0's list (its "]" never comes): the name it kept is said, the
    # list said cut, nothing more made up (review 61b, fault 2)
    lines = _text(STALL).splitlines()
    ev = _write(tmp_path, "\n".join(lines[:3]) + "\n")
    (stall,) = ev.failures
    assert stall["kind"] == "horovod_stall"
    assert stall["missing_ranks"] == [0]
    assert "AddN_102_0, the list cut (allreduce)" in stall["exception_type"]
    assert " more, the list" not in stall["exception_type"]


# --- torch elastic summary cut inside its root-cause entry ---------------------------------------


def test_cut_root_cause_says_what_the_other_entries_show() -> None:
    ev = _load(ELASTIC)
    # (the root cause's own entry is cut: partial stays true)
    assert ev.files[0].status == "partial"
    assert any(
        "summary entry cut before its rank, host and exit code" in s for s in heldout.said(ev)
    )
    failures = [f for f in ev.failures if f["kind"] == "elastic_failure"]
    assert len(failures) == 7
    (root,) = [f for f in failures if f["root_cause"]]
    assert root["line"] == 44 and root["host"] == "test-luo-1"
    assert root["rank"] is None and root["exit_code"] is None
    others = sorted((f["rank"], f["exit_code"], f["host"]) for f in failures if not f["root_cause"])
    assert others == [(r, -9, "test-luo-1") for r in range(10, 16)]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert ("evidence-elastic-root-cause", "critical") in heldout.above_info(outcome)
    (item,) = heldout.items(outcome, "evidence-elastic-root-cause")
    assert item.startswith("A worker on test-luo-1 failed (its summary entry is cut)")
    assert "other 6 failure(s) (lines 1-35), stamped in the same second as its own" in item
    assert "rank(s) 10-15 (local rank(s) 2-7) exited with -9 (signal 9, SIGKILL)" in item
    assert "line 44" in item


def test_other_host_and_mixed_codes_in_other_seconds(tmp_path: Path) -> None:
    # another host; rank 12 killed by SIGABRT instead, and the cut root stamped a second later:
    # each code said with its ranks, no "same second"
    text = (
        _text(ELASTIC)
        .replace("test-luo-1", "gpu-node-07")
        .replace("exitcode  : -9 (pid: 1627)", "exitcode  : -6 (pid: 1627)")
    )
    text = text[: text.rindex("17:21:54")] + "17:21:55\n"
    ev = _write(tmp_path, text)
    (root,) = [f for f in ev.failures if f["kind"] == "elastic_failure" and f["root_cause"]]
    assert root["host"] == "gpu-node-07"
    assert "rank(s) 10-11, 13-15 (local rank(s) 2-3, 5-7) exited with -9" in root["message"]
    assert "rank(s) 12 (local rank(s) 4) exited with -6 (signal 6, SIGABRT)" in root["message"]
    assert "same second" not in root["message"]


def test_a_whole_root_cause_entry_is_left_as_it_was(tmp_path: Path) -> None:
    # the root cause's entry complete: its own rank, host and code, nothing put on it
    text = _text(ELASTIC) + (
        "  host      : test-luo-1\n"
        "  rank      : 8 (local_rank: 0)\n"
        "  exitcode  : -9 (pid: 1623)\n"
        "  error_file: <N/A>\n"
        "  traceback : Signal 9 (SIGKILL) received by PID 1623\n"
    )
    ev = _write(tmp_path, text)
    assert ev.files[0].status == "read"
    (root,) = [f for f in ev.failures if f["kind"] == "elastic_failure" and f["root_cause"]]
    assert (root["rank"], root["exit_code"], root["host"]) == (8, -9, "test-luo-1")
    assert "other 6 failure(s)" not in (root["message"] or "")


# --- DeepSpeed's runner: a Docker bridge address as the master --------------------------------


def test_docker_bridge_master_address_is_a_warning() -> None:
    ev = _load(BRIDGE)
    assert ev.files[0].status == "read"
    assert not any("no form the advisor reads" in s for s in heldout.said(ev))
    (bridge,) = ev.failures
    assert bridge["kind"] == "deepspeed_master_bridge" and bridge["line"] == 2
    assert bridge["ip"] == "172.17.0.1" and bridge["host"] == "192.168.1.1"
    assert bridge["rank_size"] == 2
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-deepspeed-master-bridge", "warning")]
    (item,) = heldout.items(outcome, "evidence-deepspeed-master-bridge")
    assert "took 172.17.0.1, the first address `hostname -I` gave on node 192.168.1.1" in item
    assert "Docker's default bridge 172.17.0.0/16" in item
    assert "2 nodes (192.168.1.1, 192.168.1.2, line 3)" in item and "line 2" in item


def test_another_bridge_address_and_hosts_by_name(tmp_path: Path) -> None:
    text = (
        _text(BRIDGE)
        .replace("172.17.0.1", "172.17.0.3")
        .replace("for node 192.168.1.1", "for node worker-a")
        .replace("192.168.1.1,192.168.1.2", "worker-a,worker-b,worker-c")
    )
    ev = _write(tmp_path, text)
    (bridge,) = ev.failures
    assert (bridge["ip"], bridge["host"], bridge["rank_size"]) == ("172.17.0.3", "worker-a", 3)
    assert "3 nodes (worker-a, worker-b, worker-c, line 3)" in bridge["exception_type"]


def test_cluster_address_and_one_node_stay_ready(tmp_path: Path) -> None:
    # the healthy twin: the runner took the node's cluster address
    healthy = _text(BRIDGE).replace("172.17.0.1", "192.168.1.1")
    ev = _write(tmp_path, healthy)
    assert not any(f["kind"] == "deepspeed_master_bridge" for f in ev.failures)
    assert heldout.imported(ev)[0] == "READY"
    # the bridge address on a job of one node: its workers are all on the bridge's host
    (tmp_path / "one").mkdir()
    one = _text(BRIDGE).replace("192.168.1.1,192.168.1.2", "192.168.1.1")
    ev = _write(tmp_path / "one", one)
    assert not any(f["kind"] == "deepspeed_master_bridge" for f in ev.failures)
    assert heldout.imported(ev)[0] == "READY"


def test_workers_line_cut_off_still_warns(tmp_path: Path) -> None:
    # the runner takes the address only for a multi-node job: without its workers line the
    # bridge address is still said, with no node count
    lines = _text(BRIDGE).splitlines()
    ev = _write(tmp_path, "\n".join(lines[:2]) + "\n")
    (bridge,) = ev.failures
    assert bridge["kind"] == "deepspeed_master_bridge" and bridge["rank_size"] is None
    assert "the runner takes it only for a job of several nodes" in bridge["exception_type"]
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"
