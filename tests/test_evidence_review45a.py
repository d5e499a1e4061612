"""Review 45 of round ZZZ's change, faults 1-5, 10 and 11 (a device plugin pod's registration
beside another pod's "No devices found", nvidia-smi -r on two hosts at one bus address, iperf3's
second client, ibstat of one named device, one HCA listed before and after a reseat, two vLLM
engine cores' relays, p2pBandwidthLatencyTest of three GPU models): each fault it found, on its
input (tests/data/review45, described in tests/data/SOURCES.md)."""

from __future__ import annotations

from advisor.evidence.load import EvidenceFacts, load_paths, load_text
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review45"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def test_one_device_plugin_pods_registration_leaves_another_pods_no_devices() -> None:
    for name, line, pod in (
        ("k8s_device_plugin_logs_l_prefix_two_pods_pod_a_no_devices_pod_b_registered.log", 6, ""),
        (
            "k8s_device_plugin_get_pods_wide_then_logs_l_prefix_pod_a_no_devices_pod_b_registered.log",
            10,
            " (pod nvidia-device-plugin-daemonset-7xk2p)",
        ),
    ):
        ev = _load(name)
        (gone,) = ev.failures
        assert (gone["kind"], gone["line"], gone["host"]) == ("device_not_offered", line, None)
        assert gone["exception_type"].startswith(f"the NVIDIA device plugin{pod} found no GPU")
        assert heldout.rules_verdict(ev) == "READY WITH WARNINGS"
        assert not [m for m in heldout.said(ev) if "a later run registered" in m]


def test_another_hosts_reset_of_the_same_bus_address_leaves_the_refusal() -> None:
    ev = _load("nvidia_smi_r_two_hosts_prompts_gpu01_refused_in_use_gpu02_same_bus_reset.txt")
    (refused,) = ev.failures
    assert (refused["kind"], refused["line"], refused["host"]) == ("gpu_driver_error", 3, "gpu-01")
    assert refused["exception_type"].endswith("exit status 255: the GPU was not reset")
    assert not [m for m in heldout.said(ev) if "a later nvidia-smi -r reset it" in m]
    assert heldout.rules_verdict(ev) == "READY WITH WARNINGS"


def test_a_second_iperf3_clients_time_out_is_its_own_server_not_the_measured_one() -> None:
    ev = _load(
        "iperf3_two_clients_first_186_reverse_403mbits_done_then_190_connection_timed_out.txt"
    )
    # (the measured reverse run's 1769 retransmits of some 174 k segments, 1 %, are its own
    # warning: set 622's tcp_retransmits_heavy)
    heavy, failed = ev.failures
    assert (heavy["kind"], heavy["line"]) == ("tcp_retransmits_heavy", 9)
    assert "140.112.30.186" in heavy["message"]
    assert (failed["kind"], failed["line"]) == ("iperf_unreached", 14)
    assert "140.112.30.190" in failed["exception_type"]
    assert "140.112.30.186" not in failed["exception_type"]
    (measured,) = [m for m in heldout.said(ev) if "140.112.30.186" in m]
    assert "receiver 403 Mbit/s" in measured
    found = heldout.found(ev)
    (item,) = found["evidence-iperf3-unreached"].items  # type: ignore[attr-defined]
    assert "140.112.30.190" in item and "140.112.30.186" not in item
    assert heldout.rules_verdict(ev) == "NOT READY"


def test_ibstat_of_one_named_device_is_no_host_without_rdma() -> None:
    ev = _load("ibstat_named_device_mlx5_2_only_dgx_host_one_port_down_polling.txt")
    (port,) = ev.hca_ports
    assert (port["ca"], port["host"], port["all_down"]) == ("mlx5_2", "dgx-a100-07", None)
    found = heldout.found(ev)
    assert "evidence-hca-host-all-ports-down" not in found
    assert "evidence-hca-port-not-active" in found
    assert heldout.rules_verdict(ev) == "READY WITH WARNINGS"


def test_one_hca_listed_again_after_a_reseat_is_one_host_judged_by_its_last_listing() -> None:
    ev = _load("ibstat_mlx4_same_host_twice_all_down_then_port1_active_after_reseat.txt")
    assert [(p["line"], p["port"], p["all_down"]) for p in ev.hca_ports] == [
        (9, 1, None),
        (19, 2, None),
        (38, 1, None),
        (48, 2, None),
    ]
    assert "evidence-hca-host-all-ports-down" not in heldout.found(ev)
    assert heldout.rules_verdict(ev) == "READY WITH WARNINGS"


def test_two_engine_cores_relays_are_not_put_on_one_worker() -> None:
    ev = _load(
        "vllm_ascend_2984_dp4_worker_rank0_keyerror_enginecore1_and_enginecore3_both_relay_failed.log"
    )
    worker, core = sorted(ev.failures, key=lambda f: f["line"])
    assert (worker["line"], core["line"]) == (2, 85)
    assert worker["exception_type"] == (
        "vLLM (its worker did not start: KeyError: 'model.embed_tokens.weight' (line 38); its "
        "engine core EngineCore_1 then did not start (line 39))"
    )
    assert core["exception_type"].startswith("vLLM (its engine core did not start: Exception: ")
    assert core["exception_type"].endswith(
        "; the worker whose failure it relays is not in the copy)"
    )
    assert heldout.rules_verdict(ev) == "NOT READY"


def test_gpus_of_three_models_that_cannot_access_each_other_are_no_fault() -> None:
    ev = _load(
        "p2pBandwidthLatencyTest_three_different_models_4090_5090_a6000_all_cannot_access_aikitoria_pr5_cut.txt"
    )
    (run,) = ev.gpu_copy
    assert run["no_peer_access"] is False
    (mix,) = [m for m in heldout.said(ev) if "no two of its GPUs are one model" in m]
    assert "(NVIDIA GeForce RTX 4090, NVIDIA GeForce RTX 5090, NVIDIA RTX A6000)" in mix
    assert heldout.rules_verdict(ev) == "READY"
    # (two of one model among them that cannot reach each other still are)
    text = (REVIEW / ev.files[0].path).read_text().replace("RTX 5090", "RTX 4090")
    assert load_text(text, "p2p.txt").gpu_copy[0]["no_peer_access"] is True
