"""Review 48 of round CCCC (sets 601-606), faults 1-10: a MindIE server's failed start
and its later successful one; a grep'd mstconfig query of two devices, and under pdsh of two
nodes; one long line of JSON'd mlxconfig commands; perftest's CPU-clock warning over a full-rate
run; two training runs in one log; an iperf3 client refused beside another; dpkg's package set
up again, and CANN installs on two nodes under pdsh; vLLM's OOM at start, then another server's
abort; a socket run beside another run's two-node communicator: each on its input
(tests/data/review48, described in tests/data/SOURCES.md)."""

from __future__ import annotations

import time

from advisor.evidence.load import load_paths, load_text
from advisor.parsers import iperf, rdma
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review48"


# --- 1. MindIE Server: a failed start, then a start its log says succeeded ---------------------


def test_a_later_successful_start_makes_the_failed_one_a_start_gone_past() -> None:
    ev = load_paths([REVIEW / "mindie_listen_fail_then_restart_success.log"])
    assert not [e for e in ev.failures if e["kind"] == "service_start_failure"]
    (past,) = [e for e in ev.failures if e["kind"] == "gone_past"]
    assert past["was"] == "service_start_failure" and past["line"] == 1
    (said,) = [e for e in ev.failures if e["kind"] == "run_success"]
    assert said["line"] == 6 and "[Start mindie server] [success]" in said["message"]
    assert heldout.rules_verdict(ev) == "READY WITH WARNINGS"


def test_a_failed_start_after_a_successful_one_keeps_only_its_own_errors() -> None:
    head = "[2025-12-15 15:19:22.681+08:00] [38] [452] [server] [ERROR] [http_server.cpp:163] : "
    text = (
        head + "[MIE04E02041C] [endpoint] Failed to listen 172.17.0.3:40032, please check.\n"
        "[2025-12-15 15:19:23.0+08:00] [38] [ubuntu] [system] [server] [Start mindie server] "
        "[success]\n"
        "[2025-12-15 15:40:01.0+08:00] [61] [ubuntu] [system] [server] [Start mindie server] "
        "[fail]\n"
    )
    ev = load_text(text, "mindie.log")
    (failed,) = [e for e in ev.failures if e["kind"] == "service_start_failure"]
    # (the listen failure was the earlier start's, which succeeded: not this one's cause)
    assert failed["line"] == 3 and "MIE04E02041C" not in (failed["exception_type"] or "")
    assert heldout.rules_verdict(ev) == "NOT READY"


# --- 6. a grep'd mstconfig query of two devices, and of two nodes under pdsh ------------------


def test_each_grep_d_devices_row_is_its_own_device() -> None:
    ev = load_paths([REVIEW / "mstconfig_q_grep_roce_control_two_ports_first_disabled.txt"])
    (off,) = [e for e in ev.failures if e["kind"] == "nic_roce_disabled"]
    assert off["line"] == 2 and off["exception_type"].startswith("4b:00.0 ")
    notes = [m for _, m in heldout.notes(ev)]
    assert any("4b:00.1 (its type not in the copy), 1 setting(s)" in m for m in notes)
    assert heldout.rules_verdict(ev) == "NOT READY"
    # the reversed order names the second device
    text = (
        "# mstconfig -d 4b:00.0 q | grep ROCE_CONTROL; mstconfig -d 4b:00.1 q | grep ROCE_CONTROL\n"
        "        ROCE_CONTROL                                ROCE_ENABLE(2)\n"
        "        ROCE_CONTROL                                ROCE_DISABLE(1)\n"
    )
    (off,) = [e for e in load_text(text, "q.txt").failures if e["kind"] == "nic_roce_disabled"]
    assert off["line"] == 3 and off["exception_type"].startswith("4b:00.1 ")


def test_each_pdsh_nodes_grep_d_row_is_that_nodes_device() -> None:
    ev = load_paths([REVIEW / "mstconfig_q_grep_roce_control_pdsh_two_nodes_node1_disabled.txt"])
    (off,) = [e for e in ev.failures if e["kind"] == "nic_roce_disabled"]
    assert off["line"] == 2 and off["exception_type"].startswith("node1: 4b:00.0 ")
    blocks = rdma.parse_mlxconfig_blocks(
        (REVIEW / "mstconfig_q_grep_roce_control_pdsh_two_nodes_node1_disabled.txt").read_text()
    )
    assert [(b.host, b.path, b.roce_disabled()) for b in blocks] == [
        ("node1", "4b:00.0", True),
        ("node2", "4b:00.0", False),
    ]
    assert heldout.rules_verdict(ev) == "NOT READY"


# --- 7. one long line of JSON'd mlxconfig query commands ---------------------------------------


def test_a_long_line_of_query_commands_is_read_in_linear_time() -> None:
    started = time.process_time()
    ev = load_paths([REVIEW / "ansible_mlxconfig_query_results_one_json_line_4000_items.json"])
    # (minutes before: each "mlxconfig" tried at each later " q", each read to the line's end;
    # seconds now on a busy host, most of it the other formats' detection)
    assert time.process_time() - started < 60
    assert not ev.failures and [f.formats for f in ev.files] == [[]]


# --- 10. perftest's CPU-clock warning over a run at its link's rate ----------------------------


def test_a_cpu_clock_warning_over_a_full_rate_run_is_a_note() -> None:
    # (the port's rate from an ibstat of the same host beside it: perftest prints none, so the
    # run alone keeps its warning, tests/test_evidence_review49a.py)
    text = (
        REVIEW / "ib_write_bw_roce_deepops_doc_cpu_freq_warning_92_40gbps_of_100g_healthy.txt"
    ).read_text()
    ibstat = "CA 'mlx5_0'\n\tPort 1:\n\t\tState: Active\n\t\tRate: 100\n\t\tLink layer: Ethernet\n"
    ev = load_text(f"$ ibstat mlx5_0\n{ibstat}{text}", "ib_write_bw.txt")
    found = heldout.found(ev, "nccl")
    assert "evidence-rdma-perftest-cpu-clock" not in found
    assert found["evidence-rdma-perftest-cpu-clock-at-rate"].severity == "info"
    assert "of its port's 100.0 Gb/s" in str(
        found["evidence-rdma-perftest-cpu-clock-at-rate"].items
    )
    assert heldout.rules_verdict(ev) == "READY"


def test_a_cpu_clock_warning_over_a_low_bandwidth_stays_a_warning() -> None:
    text = (
        REVIEW / "ib_write_bw_roce_deepops_doc_cpu_freq_warning_92_40gbps_of_100g_healthy.txt"
    ).read_text()
    assert " 92.40 " in text
    ev = load_text(text.replace(" 92.40 ", " 61.40 "), "ib_write_bw.txt")
    assert heldout.found(ev, "nccl")["evidence-rdma-perftest-cpu-clock"].severity == "warning"
    assert rdma.line_rate_reached(92.4, 100) and not rdma.line_rate_reached(61.4, 100)
    assert rdma.line_rate_reached(39.2, 40) and not rdma.line_rate_reached(None, 100)


# --- 2. two training runs appended to one log -------------------------------------------------


def test_a_second_run_from_step_0_is_not_the_first_runs_loss_running_away() -> None:
    ev = load_paths(
        [REVIEW / "mindspore_two_runs_appended_mnist_then_msrun_sample_loss_healthy.log"]
    )
    assert not [e for e in ev.failures if e["kind"] == "loss_diverged"]
    assert heldout.rules_verdict(ev) == "READY"
    # a run whose own loss runs away is still said: the second run's, past 100 times its lowest
    text = (
        REVIEW / "mindspore_two_runs_appended_mnist_then_msrun_sample_loss_healthy.log"
    ).read_text()
    text += "epoch: 0, step: 100, loss is 95.3\nepoch: 0, step: 110, loss is 120.4\n"
    (ran,) = [e for e in load_text(text, "train.log").failures if e["kind"] == "loss_diverged"]
    assert "from 0.8510884 at epoch 0 step 60 to 95.3" in ran["exception_type"]


# --- 3. an iperf3 client refused beside another, then a separate test ---------------------------


def test_a_refused_parallel_client_leaves_each_test_its_own_figures() -> None:
    runs = iperf.parse(
        (
            REVIEW / "iperf3_parallel_clients_second_refused_then_sequential_test_other_host.txt"
        ).read_text()
    )
    said = [(r.remote, r.remote_port, r.sender_bps, r.error is not None, r.streams) for r in runs]
    assert said[0][:2] == ("192.168.9.1", 5201) and said[0][2] == 2.36e9 and said[0][4] == 1
    assert said[1][:2] == ("192.168.9.1", 5333) and said[1][2] is None and said[1][3]
    assert said[2][:2] == ("192.168.9.7", 5201) and said[2][2] == 94.3e6
    assert not any(r.cut or r.interleaved for r in runs)


# --- 4. dpkg: a package failed to configure, then configured ------------------------------------


def test_a_package_dpkg_set_up_again_with_the_installers_success_is_configured() -> None:
    ev = load_paths(
        [REVIEW / "cann_toolkit_deb_postinst_error_then_dpkg_configure_rerun_install_success.txt"]
    )
    assert not [e for e in ev.failures if e["kind"] == "install_failed"]
    assert any(
        n == 2 and "set up again at line 8" in m and m.endswith("configured since")
        for n, m in heldout.notes(ev)
    )
    assert heldout.rules_verdict(ev) == "READY"
    # cut after "Setting up": whether its script went through is not in the copy
    text = (
        REVIEW / "cann_toolkit_deb_postinst_error_then_dpkg_configure_rerun_install_success.txt"
    ).read_text()
    cut = text[: text.index("[Toolkit] [20250912-22:07:41]")]
    assert [e["line"] for e in load_text(cut, "dpkg.txt").failures if e["kind"] == "install_failed"]


# --- 5. CANN installers under pdsh: each node's install its own --------------------------------


def test_each_nodes_cann_install_is_judged_on_its_own() -> None:
    ev = load_paths([REVIEW / "cann_toolkit_run_install_pdsh_node01_no_python_node02_success.log"])
    (failed,) = [e for e in ev.failures if e["kind"] == "install_failed"]
    assert failed["line"] == 4 and failed["host"] == "node01"
    assert heldout.rules_verdict(ev) == "NOT READY"
    ev = load_paths([REVIEW / "cann_toolkit_run_install_no_python_pdsh_two_nodes.log"])
    failed = [e for e in ev.failures if e["kind"] == "install_failed"]
    assert [(e["line"], e["host"]) for e in failed] == [(4, "node01"), (5, "node02")]


# --- 8. vLLM: an OOM at the engine's start, then a restarted server's abort ---------------------


def test_an_abort_of_a_restarted_server_is_not_the_oom_gone_past() -> None:
    ev = load_paths([REVIEW / "vllm_engine_oom_at_start_died_then_restart_client_abort.log"])
    (oom,) = [e for e in ev.failures if e["kind"] == "device_oom"]
    assert oom["line"] == 4 and "went on" not in (oom["exception_type"] or "")
    assert "aborted" not in (oom["exception_type"] or "")
    assert heldout.rules_verdict(ev) == "NOT READY"


# --- 9. NCCL on sockets on one node, beside another run's two-node communicator -----------------


def test_another_runs_two_node_communicator_does_not_make_the_socket_run_span_nodes() -> None:
    ev = load_paths([REVIEW / "nccl_same_host_2node_ib_run_then_1node_socket_debug_run.log"])
    assert not [e for e in ev.failures if e["kind"] == "nccl_socket_network"]
    assert any("no channel in the log crosses hosts" in m for _, m in heldout.notes(ev))
    assert heldout.rules_verdict(ev) == "READY"
