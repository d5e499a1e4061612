"""Outputs of round CCCC's held-out evaluation (set 605, NCCL and torch elastic logs of NVIDIA
clusters) that the advisor read in part or not at all before this change
(tests/data/evidence_heldout_65, sources in tests/data/SOURCES.md): one host's NCCL lines on TCP
sockets whose "NVLS Head" line shows a communicator of two nodes; aws-ofi-nccl's test whose two
ranks print the same WARN, no process named; torch elastic's lines in Rich's log layout under
`accelerate launch`; srun's task labels before the lines of tasks that are not ranks."""

from __future__ import annotations

from pathlib import Path

from tests import heldout
from tests.test_parsers_heldout_set602 import _load, _severities, _write

# --- one host's NCCL on sockets, in a communicator of two nodes --------------------------------

_GKE = "gke-a3-h100-pool-hv7m:1596:2150 [0] NCCL INFO "


def test_sockets_under_a_communicator_of_two_nodes_are_its_hop_between_hosts() -> None:
    ev = _load("nccl2.22.3_gke_a3_h100_2node_16rank_init_net_socket_no_ib_grep.log")
    (socket,) = [f for f in ev.failures if f["kind"] == "nccl_socket_network"]
    assert (socket["line"], socket["host"]) == (
        2,
        "gke-hypercomputer-a3-a3-h100-dws-pool-16664d9c-hv7m",
    )
    assert socket["exception_type"] == (
        "NCCL found no InfiniBand/RoCE device and uses TCP sockets over [0]eth0:10.128.0.52<0>; "
        "its communicator spans 2 node(s) (NCCL's 'NVLS Head' line names a head rank on each: "
        "0 8)"
    )
    assert _severities(ev) == {"warning"}
    assert set(heldout.found(ev)) >= {"evidence-nccl-socket-network"}
    assert not any("crosses hosts" in m for m in heldout.said(ev))


def test_nccls_comm_shape_of_several_nodes_also_says_it(tmp_path: Path) -> None:
    # (NCCL 2.19 on: "comm 0x.. rank 0 nRanks 32 nNodes 4 localRanks 8", under a torchrun tag)
    ev = _write(
        tmp_path,
        f"[rank0]:{_GKE}NET/IB : No device found.\n"
        f"[rank0]:{_GKE}NET/Socket : Using [0]eth0:10.0.0.5<0>\n"
        f"[rank0]:{_GKE}comm 0x5581 rank 0 nRanks 32 nNodes 4 localRanks 8 localRank 0 MNNVL 0\n",
    )
    (socket,) = [f for f in ev.failures if f["kind"] == "nccl_socket_network"]
    assert (
        "its communicator spans 4 node(s) (NCCL's 'nRanks 32 nNodes 4')"
        in (socket["exception_type"])
    )
    assert _severities(ev) == {"warning"}


def test_sockets_of_a_one_node_communicator_stay_a_note(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        f"{_GKE}NET/IB : No device found.\n"
        f"{_GKE}NET/Socket : Using [0]eth0:10.0.0.5<0>\n"
        f"{_GKE}comm 0x5581 rank 0 nRanks 8 nNodes 1 localRanks 8 localRank 0 MNNVL 0\n",
    )
    assert not [f for f in ev.failures if f["kind"] == "nccl_socket_network"]
    assert any("crosses hosts" in m for m in heldout.said(ev))


# --- aws-ofi-nccl's test: each rank's WARN, no process named ---------------------------------

_AV = "NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument"


def test_each_ranks_warn_of_the_plugins_test_is_counted() -> None:
    ev = _load("aws_ofi_nccl_nccl_message_transfer_2node_efa_couldnt_open_av_awsofinccl22.log")
    warned = [f for f in ev.failures if f["kind"] == "nccl_warning"]
    assert [(f["line"], f["message"]) for f in warned] == [(9, _AV), (10, _AV)]
    assert all(f["rank"] is None and f["host"] is None for f in warned)  # (the lines name none)
    assert _severities(ev) == {"critical"}
    finding = heldout.found(ev)["evidence-nccl-warning"]
    assert "NCCL printed 2 WARN line(s) in 2 process(es)" in finding.message
    assert [i.split(" (", 1)[0] for i in finding.items] == [f"a process: {_AV}"] * 2


def _ofi_test(ranks: int, warns: int) -> str:
    started = "".join(
        f"INFO: Function: main Line: 49: NET/OFI Process rank {r} started. NCCLNet device used "
        f"on ip-10-0-0-{r} is AWS Libfabric.\n"
        for r in range(ranks)
    )
    said = f"WARN: Function: create_nccl_ofi_component Line: 459: {_AV}\n"
    return started + said * warns


def test_a_warn_said_more_often_than_the_test_has_ranks_is_a_repeat(tmp_path: Path) -> None:
    ev = _write(tmp_path, _ofi_test(ranks=2, warns=3))
    assert [f["line"] for f in ev.failures if f["kind"] == "nccl_warning"] == [3, 4]
    assert "in 2 process(es)" in heldout.found(ev)["evidence-nccl-warning"].message


def test_with_no_rank_started_in_the_copy_a_repeated_warn_stays_one(tmp_path: Path) -> None:
    ev = _write(tmp_path, _ofi_test(ranks=0, warns=2))
    assert [f["line"] for f in ev.failures if f["kind"] == "nccl_warning"] == [1]
    # (the copy's WARN lines carry no host:pid prefix: no process is counted, round WWWW set 725)
    assert "NCCL printed 1 WARN line(s) (the lines name no process)" in (
        heldout.found(ev)["evidence-nccl-warning"].message
    )


# --- torch elastic under Rich's log layout ---------------------------------------------------


def test_the_agents_failed_line_in_richs_layout_is_the_root_cause() -> None:
    ev = _load(
        "accelerate_rich_log_elastic_failed_exitcode_minus9_local_rank5_pid22_acc1214_cut.log"
    )
    (failed,) = ev.failures
    assert (failed["kind"], failed["line"], failed["local_rank"], failed["pid"]) == (
        "elastic_failure",
        9,
        5,
        22,
    )
    assert failed["exit_code"] == -9
    # (Rich's source column is not the program's words; the spaces as printed)
    assert failed["message"] == "ERROR    failed (exitcode: -9) local_rank: 5 (pid: 22) of"
    assert _severities(ev) == {"critical"}
    assert "evidence-log-error" not in heldout.found(ev)
    assert not any("no form the advisor reads" in m for m in heldout.said(ev))


def test_richs_layout_with_its_time_column_and_another_wrap(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "[10:01:02] WARNING  Sending process 14 closing signal SIGTERM           api.py:699\n"
        "           ERROR    failed (exitcode: 1) local_rank: 0 (pid: 13) of     api.py:826\n"
        "                    binary: /usr/bin/python\n"
        "[10:01:03] ERROR    failed (exitcode: -6) local_rank: 3 (pid: 21)       api.py:826\n"
        "                    of binary: /usr/bin/python\n",
    )
    assert [(f["line"], f["local_rank"], f["pid"], f["exit_code"]) for f in ev.failures][:2] == [
        (2, 0, 13, 1),
        (4, 3, 21, -6),
    ]
    assert not any("api.py" in f["message"] for f in ev.failures)


def test_a_path_column_after_other_words_is_no_agent_line(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "ERROR    failed (exitcode: 1) local_rank: 0 (pid: 13) of the job, see below  api.py:826\n",
    )
    assert not [f for f in ev.failures if f["kind"] == "elastic_failure"]


# --- srun's task labels that are no ranks ----------------------------------------------------


def test_srun_task_labels_of_tasks_that_carry_other_ranks_name_no_rank() -> None:
    ev = _load(
        "nccl2.19.3_p4de_srun_label_prefixed_bootstrap_message_truncated_256_instead_of_4_"
        "nccl1176_cut.log"
    )
    warned = [f for f in ev.failures if f["kind"] == "nccl_warning"]
    (first,) = warned
    assert (first["line"], first["host"], first["pid"], first["device"]) == (
        1,
        "compute-st-p4de24xlarge-2",
        4827,
        4,
    )
    assert first["rank"] is None  # ("1:" is srun's task; task 2's line carries [rank18])
    assert _severities(ev) == {"critical"}
    (item,) = heldout.found(ev)["evidence-nccl-warning"].items
    assert item.startswith("compute-st-p4de24xlarge-2 pid 4827, device 4: Message truncated")
    assert "(rank " not in item


def test_srun_task_labels_that_agree_with_the_ranks_stay_ranks(tmp_path: Path) -> None:
    # (srun starting a task a rank: its label and the rank's own tag are the same number)
    ev = _write(
        tmp_path,
        " 3: host-a:77:88 [3] bootstrap.cc:77 NCCL WARN Message truncated : received 256 bytes "
        "instead of 4\n"
        "12: [rank12]:[W ProcessGroupNCCL.cpp:2302] Warning: a note\n",
    )
    (warned,) = [f for f in ev.failures if f["kind"] == "nccl_warning"]
    assert warned["rank"] == 3
