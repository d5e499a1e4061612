"""Synthetic facts for the rule tests: a healthy 2x2 cluster on which no built-in rule fires,
and ``patched`` to break one thing at a time.

Shapes are the stage facts types (each stage's ``facts_type``): ``patched`` validates the facts
with ``Facts.from_dict``, so a case written in a shape the stages never produce fails. Figures are
made up but plausible.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from advisor.facts import Facts
from advisor.rules import engine, schema
from advisor.rules.config import RuleParams, RulesConfig

DELETE = object()
"""Patch value that removes the key."""

STAGES = (
    "smoke",
    "preflight",
    "connectivity",
    "timeouts",
    "subgroups",
    "topology",
    "bench",
    "sweep",
    "drift",
    "soak",
    "isolate",
)

DEVICE_OF = {"hccl": "npu", "nccl": "cuda", "gloo": "cpu"}


def _dist(max_s: float) -> dict[str, float]:
    return {"p50": max_s / 2, "p90": max_s * 0.9, "max": max_s, "count": 4}


def busy_port(port: int, purpose: str = "HCCL_IF_BASE_PORT") -> dict[str, Any]:
    """A port preflight found taken (``NodePreflight.ports_busy``)."""
    return {"port": port, "pid": 4242, "process": "python", "purpose": purpose}


def drift_finding(key: str, by_value: dict[str, list[str]]) -> dict[str, Any]:
    """A key that differs between nodes in ``drift.findings`` (DriftFinding fields)."""
    ordered = sorted(by_value.items(), key=lambda kv: -len(kv[1]))
    odd = [n for _, nodes in ordered[1:] for n in nodes]
    return {
        "key": key,
        "category": key.split(".", 1)[0],
        "values": [{"value": v, "nodes": nodes} for v, nodes in ordered],
        "odd_nodes": odd if len(ordered[0][1]) > len(ordered[1][1]) else [],
        "summary": f"{key}: " + "; ".join(f"{v!r} on {', '.join(n)}" for v, n in ordered),
    }


def bench_row(**values: Any) -> dict[str, Any]:
    """A measured point in ``bench.results`` (every BenchResult field)."""
    row = {
        "op": "all_reduce",
        "dtype": "float32",
        "algorithm": "ring",
        "variant": "default",
        "in_place": False,
        "link": "",
        "bytes": 1048576,
        "count": 262144,
        "time_us_p50": 200.0,
        "time_us_p10": 190.0,
        "time_us_p90": 220.0,
        "algbw_gbps": 40.0,
        "busbw_gbps": 80.0,
        "wrong": 0,
    }
    row.update(values)
    return row


def trial(trial_id: str, config: dict[str, Any], **values: Any) -> dict[str, Any]:
    """A finished sweep trial in ``sweep.trials`` (TrialResult fields) on the 2x2 cluster."""
    return {
        "id": trial_id,
        "key": f"b{config['batch_size']}/{config['precision']}/{config['comm']}",
        "purpose": "search",
        "config": config,
        "world_size": 4,
        "nodes": 2,
        "status": "ok",
        **values,
    }


def scaling(*, world_size: int, nodes: int, **values: Any) -> dict[str, Any]:
    """The best setting at one world size in ``sweep.scaling`` (ScalingPoint fields)."""
    base = {"ranks_per_node": world_size // nodes, "comm_share": 0.5, "status": "ok"}
    return {"world_size": world_size, "nodes": nodes, **base, **values}


def healthy(backend: str = "hccl") -> tuple[dict[str, Any], dict[str, Any]]:
    """(facts, config) of a 2-node x 2-rank cluster with every stage run and nothing wrong."""
    best_config = {
        "batch_size": 32,
        "precision": "bf16",
        "comm": "fp32",
        "bucket_cap_mb": 25.0,
        "gradient_as_bucket_view": False,
        "native_env": "",
    }
    stages: dict[str, Any] = {
        "drift": {
            "nodes": {f"node{n}": {"os": "Ubuntu 22.04", "python": "3.11.7"} for n in range(2)},
            "findings": [],
            "ignored": ["env.HCCL_IF_IP"],
            "missing_nodes": [],
            "rank_tables": [{"node": "node0", "version": "1.0", "chip": "A2", "expected": "1.0"}],
        },
        "smoke": {"all_reduce_ok": True, "ranks_initialised": 4, "init_s": {"0": 1.0, "1": 2.0}},
        "preflight": {
            "nodes": {
                f"node{n}": {
                    "ports_busy": [busy_port(22, "sshd"), busy_port(29500, "rendezvous of smoke")],
                    "route_nic": "eth0",
                    "nics": [],
                }
                for n in range(2)
            }
        },
        "connectivity": {
            "pairs": [],
            "failed_pairs": [],
            "links": {
                "intra": {
                    "median_gbps": 95.0,
                    "min_gbps": 90.0,
                    "count": 2,
                    "latency_median_us": 20.0,
                },
                "inter": {
                    "median_gbps": 90.0,
                    "min_gbps": 88.0,
                    "count": 4,
                    "latency_median_us": 40.0,
                },
            },
            "nics": {},
            "comm_nic": {"node0": "eth0", "node1": "eth0"},
            "mtu_by_node": {"node0": 9000, "node1": 9000},
            "mtu_mismatch": False,
        },
        "timeouts": {
            "rendezvous_s": _dist(3.0),
            "init_s": _dist(2.0),
            "first_collective_s": _dist(1.0),
            "barrier_s": _dist(0.01),
            "barrier_skew_s": {"0": 0.0, "1": 0.01, "2": 0.02, "3": 0.0},
            "stragglers": [],
            "settings": {},
            "settings_mismatch": {},
            "hang": None,
        },
        "subgroups": {
            "declared": {"intra_node": [[0, 1], [2, 3]], "inter_node": [[0, 2], [1, 3]]},
            "errors": [],
            "corrected": {"intra_node": [[0, 1], [2, 3]], "inter_node": [[0, 2], [1, 3]]},
            "creation_mismatch_ranks": [],
            "membership_ok": True,
            "fingerprint_mismatch_ranks": [],
        },
        "topology": {
            "ranks": [],
            "ranks_per_node": {"node0": 2, "node1": 2},
            "duplicate_devices": [],
            "shared_affinity": [],
            "islands": [[0, 1], [2, 3]],
            "slow_links": [],
            "errors": [],
        },
        "bench": {
            "results": [bench_row()],
            "avg_busbw_gbps": {"all_reduce/ring/float32": 80.0},
            "utilisation": {"all_reduce/ring/float32": 0.8},
            "bottleneck_gbps": 100.0,
            "best_algorithm": {"all_reduce": {"1024": "NHR", "1048576": "ring"}},
        },
        "sweep": {
            "trials": [
                trial(
                    "t1",
                    best_config,
                    samples_per_s=100.0,
                    comm_share=0.5,
                    exposed_comm_share=0.1,
                    peak_mem_bytes=2**30,
                ),
                trial(
                    "t2",
                    dict(best_config, batch_size=8),
                    samples_per_s=50.0,
                    comm_share=0.4,
                    exposed_comm_share=0.4,
                    peak_mem_bytes=2**29,
                ),
            ],
            "best": {
                "throughput": {
                    "config": best_config,
                    "samples_per_s": 100.0,
                    "trial": "t1",
                    "peak_mem_bytes": 2**30,
                }
            },
            "scaling": [
                scaling(world_size=1, nodes=1, samples_per_s=30.0, efficiency=1.0),
                scaling(world_size=4, nodes=2, samples_per_s=100.0, efficiency=0.83),
            ],
            "diverged": [],
            "largest_bucket_bytes": 25 * 2**20,
        },
        "soak": {
            "planned_s": 600.0,
            "elapsed_s": 600.2,
            "completed": True,
            "stalls": [],
            "flapping_links": [],
            "counter_errors": [],
            "high_variance": [],
            "cv_max": 0.25,
            "hccn_tool": {"node0": "read", "node1": "read"},
        },
        "isolate": {"note": "nothing to isolate: no stage failed and no inter-node pair ran slow"},
    }
    facts = {
        "run": {"run_id": "test", "run_dir": "", "command": "advisor run", "emulated": False},
        "cluster": {
            "name": "2x2",
            "nodes": 2,
            "devices_per_node": 2,
            "world_size": 4,
            "device_type": DEVICE_OF[backend],
            "declared_device": DEVICE_OF[backend],
            "backend": backend,
            "emulated": False,
            "hosts": ["host-a", "host-b"],
            "master_addr": "10.0.0.1",
            "master_port": 29500,
            "interface": "eth0",
            "links": {
                "intra": {"name": "intra", "type": "HCCS", "nominal_gbps": 100.0},
                "inter": {"name": "inter", "type": "RoCE", "nominal_gbps": 100.0},
            },
        },
        "environment": {
            "variables": {
                "HCCL_SOCKET_IFNAME": "eth0",
                "NCCL_SOCKET_IFNAME": "eth0",
                "GLOO_SOCKET_IFNAME": "eth0",
            }
        },
        "stages": {
            name: {"name": name, "status": "ok", "reason": "", "ranks": [], "data": data}
            for name, data in stages.items()
        },
        "launches": [
            {
                "launch": "L100",
                "stages": ["smoke", "connectivity", "topology", "timeouts", "subgroups"],
                "ranks": 4,
                "start_s": {"0": 3.0, "1": 3.1, "2": 3.2, "3": 3.3},
                "init_s": {"0": 0.5, "1": 0.5, "2": 0.5, "3": 0.5},
                "node_ready_s": {"node0": 3.55, "node1": 3.75},
                "slowest_node": "node1",
                "slowest_node_ready_s": 3.75,
                "others_ready_s": 3.55,
                "slow_excess_s": 0.2,
                "slow_ratio": 1.06,
            }
        ],
        "evidence": {
            kind: []
            for kind in (
                "files",
                "benchmarks",
                "npu_chips",
                "topologies",
                "npu_ports",
                "hccn_conf",
                "nvlinks",
                "gpus",
                "rank_tables",
                "failures",
            )
        },
    }
    config = {"pg_timeout_s": 2000.0, "launcher": {"join_timeout_s": 600.0}, "env": {}}
    return facts, config


def patched(
    changes: dict[str, Any], backend: str = "hccl"
) -> tuple[Facts, dict[str, Any], RulesConfig]:
    """Healthy facts with ``changes`` applied, validated against the facts types: dotted paths,
    where ``env.X`` is an environment variable, ``<stage>.x`` the stage's data, ``config.x`` the
    run config and ``params.x`` a rule threshold."""
    facts, config = healthy(backend)
    facts = copy.deepcopy(facts)
    params: dict[str, Any] = {}
    for path, value in changes.items():
        root, *rest = path.split(".")
        if root == "params":
            params[rest[0]] = value
            continue
        if root == "config":
            target, parts = config, rest
        elif root == "env":
            target, parts = facts["environment"]["variables"], rest
        elif root in STAGES:
            target, parts = facts["stages"][root]["data"], rest
        elif root == "stages":
            target, parts = facts["stages"], rest
        else:
            target, parts = facts, [root, *rest]
        keys: list[Any] = [int(p) if p.isdigit() else p for p in parts]
        for key in keys[:-1]:
            target = target[key]
        if value is DELETE:
            target.pop(keys[-1], None)
        else:
            target[keys[-1]] = value
    typed = Facts.from_dict(facts, source=f"rules_facts.patched({sorted(changes)}, {backend!r})")
    return typed, config, RulesConfig(params=RuleParams(**params))


@cache
def _builtin_rules() -> schema.RuleSet:
    return schema.load_paths([schema.builtin_dir()])


def builtin_findings(changes: dict[str, Any], backend: str = "hccl") -> dict[str, Any]:
    """The built-in rules' findings, by rule id, on healthy facts with ``changes`` applied
    (``patched``)."""
    facts, config, rules_cfg = patched(changes, backend)
    outcome = engine.evaluate(_builtin_rules(), facts, config=config, rules_cfg=rules_cfg)
    return {f.rule_id: f for f in outcome.findings}


def finding_items(changes: dict[str, Any], backend: str = "hccl") -> dict[str, list[str]]:
    """Each built-in finding's items as text, by rule id (see ``builtin_findings``)."""
    return {rid: [str(i) for i in f.items] for rid, f in builtin_findings(changes, backend).items()}


def _item(fields: str, **values: Any) -> dict[str, Any]:
    out: dict[str, Any] = dict.fromkeys(fields.split())
    out.update(values)
    return out


def event(**values: Any) -> dict[str, Any]:
    """A failure-log event in ``evidence.failures`` (every field of the importer's shape)."""
    fields = (
        "source line kind code code_name rank host device op seq numel timeout_ms ran_for_ms "
        "last_enqueued last_completed remote_rank group rank_size port ip local_rank exit_code "
        "pid root_cause library message time_s remote_ip culprit_ip culprit_device "
        "discoverer_ip discoverer_device exception_type call torch_npu_code missing_ranks worker "
        "repeated_lines was"
    )
    return _item(fields, source="train.log", line=10, **values)


def bench_table(**values: Any) -> dict[str, Any]:
    """An imported benchmark table in ``evidence.benchmarks``."""
    fields = (
        "source tool op ranks hosts dtype algorithm complete time_stat avg_busbw_gbps "
        "footer_avg_busbw_gbps peak_busbw_gbps wrong_total failed_checks results npus_per_node "
        "min_bytes max_bytes sizes_asked progress solo_hosts one_rank busbw_drops checks_left_out "
        "shared_gpus"
    )
    base = dict(source="nccl.txt", tool="nccl-tests", op="all_reduce", ranks=16, complete=True,
                solo_hosts=[], one_rank=False, busbw_drops=[], checks_left_out=False, shared_gpus=[],
                avg_busbw_gbps=150.0, peak_busbw_gbps=180.0, wrong_total=0, failed_checks=[],
                results=[{"op": "all_reduce", "bytes": 1048576, "in_place": False, "busbw_gbps": 150.0, "wrong": 0}])  # fmt: skip
    return _item(fields, **{**base, **values})


def npu_port(**values: Any) -> dict[str, Any]:
    """An hccn_tool port in ``evidence.npu_ports``."""
    fields = (
        "source line device link net_health ipaddr netmask ip_preset tls_enabled ping_loss_pct "
        "ping_target optical optical_alarms stat tls_certs tls_alarms link_up_count link_down_count "
        "link_changes link_flapped stat_errors routes arp pfc_priorities lldp roce_test speed_mbps "
        "die_port link_history link_setup_failed link_setup_failed_line gateway fec_uncorrected_frames pre_fec_error_bits su_ber_lanes "
        "su_ber_alarms link_down_records link_down_snapshots link_down_snr_zero fec_mode "
        "serdes_lanes bandwidth_tx_mb_s bandwidth_rx_mb_s link_down_since link_down_line "
        "link_line optical_line stat_error_lines stat_checked_lines"
    )
    base = dict(
        source="hccn.txt",
        line=1,
        device=0,
        link="UP",
        net_health="Success",
        tls_certs=[],
        tls_alarms=[],
        link_changes=[],
        stat_errors={},
        stat={},
        lldp={},
        optical={},
        optical_alarms=[],
        su_ber_lanes=[],
        su_ber_alarms=[],
        link_down_snapshots=[],
        link_down_snr_zero=[],
        fec_mode=None,
        serdes_lanes=[],
        bandwidth_tx_mb_s=None,
        bandwidth_rx_mb_s=None,
        link_down_since=None,
        link_down_line=None,
        link_line=None,
        optical_line=None,
        stat_error_lines=[],
        stat_checked_lines=[],
    )
    return _item(fields, **{**base, **values})


def p2p_matrix(**values: Any) -> dict[str, Any]:
    """An ``nvidia-smi topo -p2p`` matrix in ``evidence.p2p``."""
    fields = "source line query devices status not_ok"
    base = dict(source="p2p.txt", line=2, query="read", devices=["GPU0", "GPU1"],
                status={"GPU0": {"GPU0": "X", "GPU1": "OK"}, "GPU1": {"GPU0": "OK", "GPU1": "X"}},
                not_ok=[])  # fmt: skip
    return _item(fields, **{**base, **values})


def hca_port(**values: Any) -> dict[str, Any]:
    """An ibstat / ibv_devinfo port in ``evidence.hca_ports``."""
    fields = (
        "source line tool ca port state active physical_state rate_gbps link_layer ca_type "
        "firmware active_mtu netdev netdev_up peer could_be switch guid_zero sm_lid lane_gbps fastest_lane_gbps state_line "
        "host no_active_on_host sibling_rate_gbps sibling_sm_lid base_lid all_down software "
        "no_netdev_up_on_host vf vf_unused"
    )
    base = dict(source="ibstat.txt", line=9, tool="ibstat", ca="mlx5_0", port=1, state="Active",
                active=True, physical_state="LinkUp", rate_gbps=200.0, link_layer="InfiniBand")  # fmt: skip
    return _item(fields, **{**base, **values})


def dcgm_check(name: str, result: str, section: str = "Stress", **values: Any) -> dict[str, Any]:
    """One check of a ``dcgmi diag`` table (``evidence.dcgm_diags[].checks``)."""
    fields = "section name result gpus line details summary"
    base = dict(section=section, name=name, result=result, gpus="All", line=20, details=[],
                summary=f"{name} ({section}): {result} - All")  # fmt: skip
    return _item(fields, **{**base, **values})


def dcgm_diag(checks: list[dict[str, Any]], **values: Any) -> dict[str, Any]:
    """A ``dcgmi diag`` table in ``evidence.dcgm_diags``, its lists derived from ``checks``."""
    fields = (
        "source line dcgm_version driver gpu_ids repeats checks failed warned hardware_run "
        "hardware_skipped precondition_failed test_errors cuda_unavailable level cut"
    )
    base = dict(
        source="dcgmi.txt", line=3, dcgm_version="3.3.9", driver="570.172.08", gpu_ids="2bb5,2bb5",
        repeats=1, checks=checks,
        failed=[c for c in checks if c["result"] == "Fail" and c["section"] != "Deployment"],
        precondition_failed=[c for c in checks if c["result"] == "Fail" and c["section"] == "Deployment"],
        test_errors=[], cuda_unavailable=[],
        warned=[c for c in checks if c["result"] == "Warn"],
        hardware_run=any(c["result"] != "Skip" and c["section"] != "Deployment" for c in checks),
        hardware_skipped=[c["name"] for c in checks if c["section"] != "Deployment" and c["result"] == "Skip"],
    )  # fmt: skip
    return _item(fields, **{**base, **values})


def npu_chip(**values: Any) -> dict[str, Any]:
    """An ``npu-smi info`` chip in ``evidence.npu_chips``."""
    fields = (
        "source line npu chip name health bus_id phy_id device power_w temp_c aicore_pct npu_util_pct "
        "memory_used_mb memory_total_mb hbm_used_mb hbm_total_mb hbm_used_pct processes error_codes "
        "error_info hccs_links_in_use query"
    )
    base = dict(
        source="npu-smi.txt",
        line=7,
        npu=0,
        chip=0,
        health="OK",
        error_codes=[],
        error_info=[],
        processes=[],
    )
    return _item(fields, **{**base, "query": "", **values})


def smi_gpu(**values: Any) -> dict[str, Any]:
    """An ``nvidia-smi`` status-table GPU in ``evidence.gpus``."""
    fields = (
        "source line driver cuda gpu name bus_id persistence ecc_uncorrected fan_pct temp_c perf "
        "power_w power_cap_w memory_used_mib memory_total_mib util_pct compute_mode mig_mode "
        "unreadable query ecc_corrected remap_pending remap_failed remap_lines remapped_uncorrectable remapped_correctable ecc_aggregate_corrected ecc_aggregate_uncorrected retire_pending retired_pages retired_dbe "
        "throttled clock_reasons sections fabric_status sensors_only recovery_action fabric_health "
        "pcie_replays pcie_gen pcie_width_lanes pcie_width_low core_clocks_said unreadable_line"
    )
    base = dict(source="nvidia-smi.txt", line=9, driver="570.124.06", cuda="12.8", gpu=0,
                name="NVIDIA H100 80GB HBM3", bus_id="00000000:18:00.0", persistence="On",
                ecc_uncorrected=0, temp_c=33, perf="P0", power_w=70, power_cap_w=700,
                memory_used_mib=1, memory_total_mib=81559, util_pct=0, compute_mode="Default",
                mig_mode="Disabled", unreadable=[], query="", throttled=[], sections=[],
                sensors_only=False, recovery_action=None, fabric_health={}, pcie_gen={},
                pcie_width_lanes={}, pcie_width_low=False, core_clocks_said="",
                unreadable_line=None)  # fmt: skip
    return _item(fields, **{**base, **values})


def nvlink(**values: Any) -> dict[str, Any]:
    """An ``nvidia-smi nvlink -s``/``-e`` GPU in ``evidence.nvlinks``."""
    fields = (
        "source line gpu name links inactive active none_up fewer_than_peers alone cut errors "
        "error_total replay_total remote baseboard"
    )
    base = dict(source="nvlink.txt", line=2, gpu=0, name="NVIDIA H100 80GB HBM3",
                links={str(n): 26.562 for n in range(6)}, inactive=[], active=6, none_up=False,
                fewer_than_peers=False, alone=False, cut=False, errors={}, error_total=0,
                replay_total=0, remote={}, baseboard=False)  # fmt: skip
    return _item(fields, **{**base, **values})


def gpu_copy(**values: Any) -> dict[str, Any]:
    """An nvbandwidth or p2pBandwidthLatencyTest output in ``evidence.gpu_copy``."""
    fields = (
        "source line tool version driver cuda_runtime devices matrices failed tool_errors waived "
        "running p2p_slower peer_access no_peer_access peer_access_line complete host_copy_slow "
        "host_copy_below_peers pair_copy_slow"
    )
    base = dict(source="nvbandwidth.txt", line=1, tool="nvbandwidth", version="v0.7",
                driver="550.127.08", cuda_runtime="12040",
                devices=[{"index": 0, "name": "NVIDIA A100-SXM4-80GB", "bus_id": None}],
                matrices=[], failed=[], tool_errors=[], waived=[], running=None, p2p_slower=[],
                peer_access={}, no_peer_access=False, peer_access_line=None, complete=True,
                host_copy_slow=[], host_copy_below_peers=[], pair_copy_slow=[])  # fmt: skip
    return _item(fields, **{**base, **values})


def nvlink_state(**values: Any) -> dict[str, Any]:
    """A ``dcgmi nvlink --link-status`` GPU or NvSwitch in ``evidence.nvlink_states``."""
    fields = "source line tool entity id states up down disabled supported all_down"
    base = dict(source="dcgmi.txt", line=5, tool="dcgmi", entity="gpu", id=0,
                states=["U"] * 18, up=list(range(18)), down=[], disabled=[], supported=18,
                all_down=False)  # fmt: skip
    return _item(fields, **{**base, **values})
