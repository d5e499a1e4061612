"""Every built-in rule fires on facts that show its problem and stays quiet on facts that don't.

Each case starts from healthy synthetic facts (tests/rules_facts.py) and changes one thing; the
quiet case sets a valid value where one exists, so a rule that fires on the variable merely
being set is caught too.
"""

from __future__ import annotations

from typing import Any

import pytest

from advisor.rules import engine, schema
from advisor.rules.findings import RulesOutcome
from tests.rules_facts import (
    DELETE,
    bench_row,
    bench_table,
    busy_port,
    dcgm_check,
    dcgm_diag,
    drift_finding,
    event,
    gpu_copy,
    hca_port,
    npu_chip,
    npu_port,
    nvlink,
    nvlink_state,
    p2p_matrix,
    patched,
    smi_gpu,
)

RULES = schema.load_paths([schema.builtin_dir()])

_STRAGGLER = [{"rank": 3, "node_name": "node1", "host": "host-b", "skew_s": 1.5}]
_SLOW = [{"a": 0, "b": 2, "a_node": "node0", "b_node": "node1", "link": "inter",
          "bandwidth_gbps": 10.0, "class_median_gbps": 90.0}]  # fmt: skip
_FAILED = [{"src": 0, "dst": 2, "src_node": "node0", "dst_node": "node1", "link": "inter",
            "latency_us": None, "bandwidth_gbps": None, "ok": False, "error": "timed out"}]  # fmt: skip
_LAYOUT_ERR = [{"dimension": "inter_node", "group": [0, 1], "kind": "same_node",
                "message": "group [0, 1] holds ranks of one node", "expected": [0, 2]}]  # fmt: skip


def _isolated(conclusion: str, symptom: str) -> dict[str, Any]:
    """The isolate stage's facts after a search that ended in ``conclusion``."""
    job = {"job": "j1", "round": 1, "nodes": [0, 1], "node_names": ["node0", "node1"],
           "verdict": symptom or "ok", "busbw_gbps": None, "duration_s": 3.0,
           "detail": "isolate-j1 timed out: rank 1 on node1 never started"}  # fmt: skip
    return {"isolate.ran": True, "isolate.conclusion": conclusion, "isolate.symptom": symptom,
            "isolate.culprit_nodes": ["node1"], "isolate.nics": {"node1": "eth0 10.0.0.2"},
            "isolate.link": ["node0", "node1"] if conclusion in ("link", "pair") else [],
            "isolate.jobs": [job], "isolate.summary": f"{conclusion} found"}  # fmt: skip


_WRONG = [bench_row(bytes=1024, count=256, busbw_gbps=1.0, wrong=3)]
_SHARED = [{"host": "host-a", "ranks": [0, 1], "cpus": "0-3"}]
_3NODES = {"a": ["node0", "node2"], "b": ["node1"]}


def _loaded(slowdown: float, *, beyond: bool = True, algorithm: str = "ring") -> dict[str, Any]:
    """A point of ``bench.load``: 100 µs idle, ``slowdown`` times that under load."""
    loaded = 100.0 * slowdown
    return {"op": "all_reduce", "dtype": "fp32", "algorithm": algorithm, "bytes": 65536,
            "intensity": 1.0, "busy_share": 0.98, "rounds": 10, "idle_us_p50": 100.0,
            "idle_us_p10": 95.0, "idle_us_p90": 110.0, "loaded_us_p50": loaded,
            "loaded_us_p10": loaded * 0.9, "loaded_us_p90": loaded * 1.1, "slowdown": slowdown,
            "beyond_noise": beyond}  # fmt: skip


def _choice(*, changed: bool, beyond: bool) -> dict[str, Any]:
    return {"op": "all_reduce", "dtype": "fp32", "bytes": 65536, "intensity": 1.0,
            "idle_best": "native", "loaded_best": "ring" if changed else "native",
            "changed": changed, "gain": 1.6 if changed else 1.0, "beyond_noise": beyond}  # fmt: skip


_STALL = [{"t_start_s": 12.3, "duration_s": 4.1, "ops": ["all_reduce"], "ranks": [0, 2],
           "nodes": ["node0", "node1"], "links": ["node1/eth2"],
           "text": "stall at t=12.3 s lasting 4.1 s in all_reduce on ranks 0, 2; link: node1/eth2"}]  # fmt: skip


def _flight(pattern: str) -> dict[str, Any]:
    culprit = {"rank": 3, "pattern": pattern, "detail": "the buffers say so", "node_name": "node1"}
    return {"source": "dumps/", "culprits": [culprit], "summary": "flight recorder: rank 3"}


def _timeline(*, all_waiting: bool, beyond: bool = True) -> dict[str, Any]:
    entry = {"rank": 3, "kind": "hccl_error", "source": "r3.log", "line": 6, "role": "first"}
    return {"ranks": 4, "entries": [entry], "first_rank": 3, "all_waiting": all_waiting,
            "beyond_limit": beyond, "spread_s": 154.227 if beyond else 30.0, "limit_s": 120.0,
            "limit_name": "HCCL_CONNECT_TIMEOUT", "summary": "rank 3 failed first"}  # fmt: skip


# (rule id, backend, changes that make it fire, changes that keep it quiet,
#  recommendations expected when it fires: {name: value} (None = unset))
def _roce(average_mb_s: float) -> dict[str, Any]:
    """An hccn_tool -roce_test report of one port."""
    return {"test": "ib_send_bw", "target": "10.0.0.9", "bytes": 2097152, "iterations": 1000,
            "bw_peak_mb_s": average_mb_s, "bw_average_mb_s": average_mb_s}  # fmt: skip


def _su_lane(lane: int, bit_errors: int, ber: float, err_symb_t4: int = 0) -> dict[str, Any]:
    """One lane of an Ascend 950 hccn_tool -su_ber -result table (0x8000000 frames of 0x400 bits)."""
    return {"lane": lane, "done": 1, "bit_err_cnt": bit_errors, "err_symb_t4": err_symb_t4,
            "frm_cnt": 0x8000000, "frm_bit": 0x400, "su_ber_rate": ber,
            "su_err_frame_rate": err_symb_t4 / 0x8000000}  # fmt: skip


def _perftest(ca: str, gbps: float | None, failed: str | None = None) -> dict[str, Any]:
    """An RDMA port with a perftest run (parsers.rdma.PerftestRun's fields)."""
    rows = [] if gbps is None else [{"bytes": 65536, "iterations": 5000, "bw_peak_gbps": gbps,
                                     "bw_average_gbps": gbps}]  # fmt: skip
    return {"source": "bw.txt", "line": 5, "ca": ca, "port": 1, "tool": "perftest ib_write_bw",
            "link_layer": "Ethernet", "active": None,
            "perftest": {"test": "RDMA_Write BW", "peer": "10.0.0.2", "local": "10.0.0.1",
                         "rows": rows, "bw_average_gbps": gbps, "latency_avg_us": None,
                         "failed": failed}}  # fmt: skip


CASES: list[tuple[str, str, dict[str, Any], dict[str, Any], dict[str, Any]]] = [
    # drift: each category reaches its own rule, and no other category does
    ("drift-software", "nccl", {"drift.findings": [drift_finding("nccl", {"2.21.5": ["node0"], "2.18.1": ["node1"]})]},
     {"drift.findings": [drift_finding("env.NCCL_DEBUG", _3NODES)]}, {}),
    ("drift-environment", "gloo", {"drift.findings": [drift_finding("env.GLOO_SOCKET_IFNAME", _3NODES)]},
     {"drift.findings": [drift_finding("nic.eth0.mtu", _3NODES)]}, {}),
    ("drift-nic", "gloo", {"drift.findings": [drift_finding("nic.eth0.mtu", _3NODES)]},
     {"drift.findings": [drift_finding("package.torch", _3NODES)]}, {}),
    ("drift-hccn-tls", "hccl", {"drift.findings": [drift_finding("hccn.3.tls", {"enabled": ["node1"], "disabled": ["node0", "node2"]})]},
     {"drift.findings": [drift_finding("env.HCCL_BUFFSIZE", _3NODES)]}, {}),
    ("drift-rank-table-version", "hccl",
     {"drift.rank_tables.0.chip": "A3", "drift.rank_tables.0.expected": "1.2",
      "drift.rank_tables.0.problem": "node0: rank table version 1.0 on A3 chips, which take version 1.2"},
     {"drift.rank_tables.0.chip": "A3", "drift.rank_tables.0.expected": "1.2", "drift.rank_tables.0.version": "1.2"}, {}),
    ("drift-missing-nodes", "gloo", {"drift.missing_nodes": ["node1"]}, {"drift.missing_nodes": []}, {}),
    # timeouts
    ("hccl-connect-timeout-range", "hccl", {"env.HCCL_CONNECT_TIMEOUT": "60"},
     {"env.HCCL_CONNECT_TIMEOUT": "7200"}, {"HCCL_CONNECT_TIMEOUT": "120"}),
    ("hccl-connect-timeout-below-setup", "hccl", {"timeouts.init_s.max": 60.0},
     {"timeouts.init_s.max": 40.0}, {"HCCL_CONNECT_TIMEOUT": "180"}),
    ("pg-timeout-not-above-hccl-timeouts", "hccl", {"config.pg_timeout_s": 1800.0},
     {"config.pg_timeout_s": 1900.0}, {"pg_timeout_s": 1896}),
    # unset, the event timeout follows the exec timeout (+30 s): only a set one can be too low
    ("hccl-event-timeout-not-above-exec", "hccl",
     {"env.HCCL_EXEC_TIMEOUT": "3000", "env.HCCL_EVENT_TIMEOUT": "1868"},
     {"env.HCCL_EXEC_TIMEOUT": "3000", "env.HCCL_EVENT_TIMEOUT": DELETE},
     {"HCCL_EVENT_TIMEOUT": None}),
    ("hccl-exec-timeout-range", "hccl", {"env.HCCL_EXEC_TIMEOUT": "-5"},
     {"env.HCCL_EXEC_TIMEOUT": "1836"}, {"HCCL_EXEC_TIMEOUT": "1836"}),
    # the chip comes from the cluster (declared or read from the device) ...
    ("hccl-exec-timeout-910-multiple", "hccl",
     {"cluster.chip": "910", "env.HCCL_EXEC_TIMEOUT": "1800"},
     {"cluster.chip": "910", "env.HCCL_EXEC_TIMEOUT": "1836"}, {"HCCL_EXEC_TIMEOUT": "1836"}),
    ("hccl-exec-timeout-aiv-cap", "hccl",
     {"cluster.chip": "A2", "env.HCCL_OP_EXPANSION_MODE": "AIV", "env.HCCL_EXEC_TIMEOUT": "1836"},
     {"cluster.chip": "A2", "env.HCCL_OP_EXPANSION_MODE": "AIV", "env.HCCL_EXEC_TIMEOUT": "900"},
     {"HCCL_EXEC_TIMEOUT": "1091"}),
    ("hccl-exec-timeout-never", "hccl", {"env.HCCL_EXEC_TIMEOUT": "0"},
     {"env.HCCL_EXEC_TIMEOUT": "68"}, {"HCCL_EXEC_TIMEOUT": "1836"}),
    # TORCH_HCCL_ASYNC_ERROR_HANDLING wins over the deprecated name; 0-3 are modes
    ("hccl-async-error-handling-off", "hccl",
     {"env.TORCH_HCCL_ASYNC_ERROR_HANDLING": "0", "env.HCCL_ASYNC_ERROR_HANDLING": "1"},
     {"env.TORCH_HCCL_ASYNC_ERROR_HANDLING": "3", "env.HCCL_ASYNC_ERROR_HANDLING": "0"},
     {"TORCH_HCCL_ASYNC_ERROR_HANDLING": "1", "HCCL_ASYNC_ERROR_HANDLING": None}),
    ("hccl-async-error-handling-deprecated", "hccl", {"env.HCCL_ASYNC_ERROR_HANDLING": "1"},
     {"env.TORCH_HCCL_ASYNC_ERROR_HANDLING": "1"},
     {"HCCL_ASYNC_ERROR_HANDLING": None, "TORCH_HCCL_ASYNC_ERROR_HANDLING": "1"}),
    ("torch-nccl-async-error-handling", "nccl", {"env.TORCH_NCCL_ASYNC_ERROR_HANDLING": "0"},
     {"env.TORCH_NCCL_ASYNC_ERROR_HANDLING": "1"}, {"TORCH_NCCL_ASYNC_ERROR_HANDLING": "3"}),
    ("nccl-async-error-handling-deprecated", "nccl", {"env.NCCL_ASYNC_ERROR_HANDLING": "1"},
     {"env.TORCH_NCCL_ASYNC_ERROR_HANDLING": "1"},
     {"NCCL_ASYNC_ERROR_HANDLING": None, "TORCH_NCCL_ASYNC_ERROR_HANDLING": "1"}),
    ("pg-timeout-below-setup", "gloo", {"config.pg_timeout_s": 5.0}, {"config.pg_timeout_s": 7.0},
     {"pg_timeout_s": 60}),
    ("join-timeout-below-rendezvous", "gloo", {"timeouts.rendezvous_s.max": 250.0},
     {"timeouts.rendezvous_s.max": 150.0}, {"join_timeout_s": 780}),
    ("timeouts-stragglers", "gloo", {"timeouts.stragglers": _STRAGGLER}, {}, {}),
    ("timeouts-hang", "gloo", {"timeouts.hang": {"step": "barrier_2", "missing_ranks": [3]}}, {},
     {"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}),
    # a node whose ranks start far slower than the others' (and by more than noise)
    ("launch-node-slow-start", "hccl",
     {"launches.0.slowest_node_ready_s": 40.0, "launches.0.slow_excess_s": 36.45,
      "launches.0.slow_ratio": 11.3},
     {"launches.0.slowest_node_ready_s": 9.0, "launches.0.slow_excess_s": 5.45,
      "launches.0.slow_ratio": 2.5}, {}),
    ("timeouts-settings-differ", "hccl",
     {"timeouts.settings_mismatch": {"HCCL_CONNECT_TIMEOUT": {"node0": "120", "node1": "600"}}},
     {}, {}),
    # environment
    ("stage-failed", "gloo", {"stages.bench.status": "timeout", "stages.bench.reason": "deadline"},
     {"stages.bench.status": "skipped"}, {}),
    ("smoke-all-reduce-wrong", "gloo", {"smoke.all_reduce_ok": False},
     {"smoke.all_reduce_ok": None}, {}),
    ("hccl-rdma-tc", "hccl", {"env.HCCL_RDMA_TC": "130"}, {"env.HCCL_RDMA_TC": "132"},
     {"HCCL_RDMA_TC": "128"}),
    ("hccl-rdma-sl", "hccl", {"env.HCCL_RDMA_SL": "9"}, {"env.HCCL_RDMA_SL": "7"},
     {"HCCL_RDMA_SL": "7"}),
    ("hccl-rdma-timeout", "hccl", {"env.HCCL_RDMA_TIMEOUT": "3"}, {"env.HCCL_RDMA_TIMEOUT": "5"},
     {"HCCL_RDMA_TIMEOUT": "5"}),
    # (the chip's range: 22 is fine on the 910, not on A2; the other rule rows run on A2)
    ("hccl-rdma-timeout", "hccl", {"env.HCCL_RDMA_TIMEOUT": "22"},
     {"env.HCCL_RDMA_TIMEOUT": "22", "cluster.chip": "910"}, {"HCCL_RDMA_TIMEOUT": "20"}),
    ("hccl-rdma-retry-cnt", "hccl", {"env.HCCL_RDMA_RETRY_CNT": "0"},
     {"env.HCCL_RDMA_RETRY_CNT": "1"}, {"HCCL_RDMA_RETRY_CNT": "1"}),
    # the documented invalid pairs fire; ROCE=1 with PCIE unset (RoCE) is supported
    ("hccl-intra-roce-and-pcie", "hccl",
     {"env.HCCL_INTRA_ROCE_ENABLE": "1", "env.HCCL_INTRA_PCIE_ENABLE": "1"},
     {"env.HCCL_INTRA_ROCE_ENABLE": "1"}, {"HCCL_INTRA_PCIE_ENABLE": None}),
    ("hccl-intra-roce-and-pcie", "hccl", {"env.HCCL_INTRA_PCIE_ENABLE": "0"},
     {"env.HCCL_INTRA_PCIE_ENABLE": "0", "env.HCCL_INTRA_ROCE_ENABLE": "1"},
     {"HCCL_INTRA_PCIE_ENABLE": None}),
    ("hccl-intra-roce-and-pcie", "hccl", {"env.HCCL_INTRA_ROCE_ENABLE": "0"},
     {"env.HCCL_INTRA_ROCE_ENABLE": "0", "env.HCCL_INTRA_PCIE_ENABLE": "1"},
     {"HCCL_INTRA_PCIE_ENABLE": None}),
    ("hccl-whitelist-without-file", "hccl", {"env.HCCL_WHITELIST_DISABLE": "0"},
     {"env.HCCL_WHITELIST_DISABLE": "0", "env.HCCL_WHITELIST_FILE": "/etc/hccl_whitelist"},
     {"HCCL_WHITELIST_DISABLE": "1"}),
    ("hccl-algo-syntax", "hccl", {"env.HCCL_ALGO": "level0:NA;level1:fast"},
     {"env.HCCL_ALGO": "allreduce=level0:NA;level1:ring/allgather=level0:NA;level1:NB"},
     {"HCCL_ALGO": None}),
    # documented names only: no fullmesh, no `other` operation; NHR_V1 and scatter are fine
    ("hccl-algo-syntax", "hccl", {"env.HCCL_ALGO": "level0:NA;level1:fullmesh"},
     {"env.HCCL_ALGO": "level0:NA;level1:NHR_V1"}, {"HCCL_ALGO": None}),
    ("hccl-algo-syntax", "hccl", {"env.HCCL_ALGO": "other=level0:NA;level1:ring"},
     {"env.HCCL_ALGO": "scatter=level0:NA;level1:ring"}, {"HCCL_ALGO": None}),
    ("hccl-if-base-port-range", "hccl", {"env.HCCL_IF_BASE_PORT": "80"},
     {"env.HCCL_IF_BASE_PORT": "50000"}, {"HCCL_IF_BASE_PORT": "60000"}),
    ("hccl-if-base-port-busy", "hccl", {"preflight.nodes.node1.ports_busy": [busy_port(60003)]},
     {"preflight.nodes.node1.ports_busy": [busy_port(60032)]}, {"HCCL_IF_BASE_PORT": "60064"}),
    ("hccl-buffsize-invalid", "hccl", {"env.HCCL_BUFFSIZE": "0"}, {"env.HCCL_BUFFSIZE": "1"},
     {"HCCL_BUFFSIZE": "200"}),
    ("hccl-deterministic-value", "hccl", {"env.HCCL_DETERMINISTIC": "yes"},
     {"env.HCCL_DETERMINISTIC": "strict"}, {"HCCL_DETERMINISTIC": None}),
    ("hccl-op-expansion-mode-value", "hccl", {"env.HCCL_OP_EXPANSION_MODE": "GPU"},
     {"env.HCCL_OP_EXPANSION_MODE": "AIV"}, {"HCCL_OP_EXPANSION_MODE": None}),
    ("hccl-socket-ifname-multinode", "hccl", {"env.HCCL_SOCKET_IFNAME": DELETE},
     {"env.HCCL_SOCKET_IFNAME": DELETE, "env.HCCL_IF_IP": "10.0.0.1"},
     {"HCCL_SOCKET_IFNAME": "eth0"}),
    ("nccl-algo-values", "nccl", {"env.NCCL_ALGO": "Ring,Fast"},
     {"env.NCCL_ALGO": "allreduce:tree;allgather:ring"}, {"NCCL_ALGO": None}),
    # Tree alone leaves broadcast without an algorithm (NCCL >= 2.24); no CollNet, no sendrecv
    ("nccl-algo-values", "nccl", {"env.NCCL_ALGO": "Tree"}, {"env.NCCL_ALGO": "allreduce:tree"},
     {"NCCL_ALGO": None}),
    ("nccl-algo-values", "nccl", {"env.NCCL_ALGO": "Ring,CollNet"},
     {"env.NCCL_ALGO": "Ring,CollNetDirect"}, {"NCCL_ALGO": None}),
    ("nccl-algo-values", "nccl", {"env.NCCL_ALGO": "sendrecv:ring"},
     {"env.NCCL_ALGO": "broadcast:ring"}, {"NCCL_ALGO": None}),
    ("nccl-proto-values", "nccl", {"env.NCCL_PROTO": "LL256"}, {"env.NCCL_PROTO": "^LL128"},
     {"NCCL_PROTO": None}),
    ("nccl-nthreads-range", "nccl", {"env.NCCL_NTHREADS": "1024"}, {"env.NCCL_NTHREADS": "512"},
     {"NCCL_NTHREADS": None}),
    ("nccl-debug-verbose", "nccl", {"env.NCCL_DEBUG": "info"}, {"env.NCCL_DEBUG": "WARN"},
     {"NCCL_DEBUG": "WARN"}),
    ("nccl-socket-ifname-multinode", "nccl", {"env.NCCL_SOCKET_IFNAME": DELETE},
     {"env.NCCL_SOCKET_IFNAME": DELETE, "cluster.nodes": 1}, {"NCCL_SOCKET_IFNAME": "eth0"}),
    ("gloo-socket-ifname-multinode", "gloo", {"env.GLOO_SOCKET_IFNAME": DELETE},
     {"env.GLOO_SOCKET_IFNAME": DELETE, "cluster.nodes": 1}, {"GLOO_SOCKET_IFNAME": "eth0"}),
    ("gloo-side-groups-ifname-multinode", "hccl", {"env.GLOO_SOCKET_IFNAME": DELETE},
     {"env.GLOO_SOCKET_IFNAME": "eth0"}, {"GLOO_SOCKET_IFNAME": "eth0"}),
    # connectivity and bandwidth
    ("connectivity-failed-pairs", "gloo", {"connectivity.failed_pairs": _FAILED}, {}, {}),
    ("connectivity-mtu-mismatch", "gloo",
     {"connectivity.mtu_mismatch": True, "connectivity.mtu_by_node.node1": 1500}, {}, {}),
    ("connectivity-inter-bandwidth-low", "gloo", {"connectivity.links.inter.median_gbps": 70.0},
     {"connectivity.links.inter.median_gbps": 76.0}, {}),
    ("connectivity-intra-bandwidth-low", "nccl", {"connectivity.links.intra.median_gbps": 10.0},
     {"connectivity.links.intra.median_gbps": 75.0}, {}),
    ("bench-busbw-utilisation-low", "gloo", {"bench.utilisation": {"all_reduce/ring/float32": 0.5}},
     {"bench.utilisation": {"all_reduce/ring/float32": 0.75}}, {}),
    ("bench-wrong-results", "gloo", {"bench.results": _WRONG}, {}, {}),
    ("hccl-algo-fixed-not-best", "hccl", {"env.HCCL_ALGO": "level0:NA;level1:NHR"},
     {"env.HCCL_ALGO": "level0:NA;level1:ring"}, {"HCCL_ALGO": "level0:NA;level1:ring"}),
    # with a per-size table measured, the advice is to drop the global setting for the table
    ("hccl-algo-fixed-not-best", "hccl",
     {"env.HCCL_ALGO": "level0:NA;level1:NHR",
      "bench.bands": [{"op": "all_reduce", "min_bytes": 0, "max_bytes": 65536, "native": True,
                       "choice": "native[hccl-NHR]", "measured_bytes": [1024], "gain": 1.6,
                       "gain_low": 1.3}]},
     {"env.HCCL_ALGO": "level0:NA;level1:ring"}, {"HCCL_ALGO": None}),
    # topology and subgroups
    ("topology-ranks-per-node", "gloo", {"topology.ranks_per_node.node1": 3}, {}, {}),
    ("topology-duplicate-devices", "hccl",
     {"topology.duplicate_devices": [{"device": "npu:1", "ranks": [2, 3]}]}, {}, {}),
    ("topology-shared-affinity", "hccl", {"topology.shared_affinity": _SHARED}, {}, {}),
    ("topology-slow-links", "gloo", {"topology.slow_links": _SLOW}, {}, {}),
    ("topology-errors", "gloo", {"topology.errors": ["rank 2: no bus id"]}, {}, {}),
    ("subgroups-layout-errors", "gloo", {"subgroups.errors": _LAYOUT_ERR}, {},
     {"process_groups": {"intra_node": [[0, 1], [2, 3]], "inter_node": [[0, 2], [1, 3]]}}),
    ("subgroups-mismatched-collectives", "gloo", {"subgroups.fingerprint_mismatch_ranks": [3]}, {},
     {"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}),
    # training
    ("sweep-best-settings", "gloo",
     {"sweep.best.throughput.config.native_env": "NCCL_ALGO=Tree",
      "sweep.best.throughput.config.gradient_as_bucket_view": True},
     {"sweep.best": {}},
     {"batch_size": 32, "precision": "bf16", "comm_hook": "fp32", "bucket_cap_mb": 25.0,
      "gradient_as_bucket_view": True, "native_env": "NCCL_ALGO=Tree"}),
    # judged by the communication compute does not hide (in flight 50 % of the step is fine
    # when it overlaps the backward pass)
    ("training-comm-share-high", "gloo", {"sweep.trials.0.exposed_comm_share": 0.45},
     {"sweep.trials.0.exposed_comm_share": 0.3}, {"comm_hook": "bf16"}),
    ("training-scaling-efficiency-low", "gloo", {"sweep.scaling.1.efficiency": 0.5},
     {"sweep.scaling.1.efficiency": 0.8}, {}),
    ("training-diverged-settings", "gloo", {"sweep.diverged": ["bs=64 fp16"]}, {}, {}),
    # imported evidence (conf/rules/evidence.yaml)
    ("evidence-watchdog-timeout", "nccl",
     {"evidence.failures": [event(kind="watchdog_timeout", rank=1, op="ALLREDUCE", seq=7,
                                  timeout_ms=600000, ran_for_ms=600100)]},
     {"evidence.failures": [event(kind="store_timeout")]},
     {"TORCH_NCCL_TRACE_BUFFER_SIZE": "20000", "TORCH_NCCL_DUMP_ON_TIMEOUT": "1"}),
    ("evidence-watchdog-failure", "nccl",
     {"evidence.failures": [event(kind="watchdog_failure", rank=3, seq=1580, last_enqueued=1582,
                                  last_completed=1579)]},
     {"evidence.failures": [event(kind="watchdog_timeout", rank=1, op="ALLREDUCE", seq=7)]}, {}),
    ("evidence-watchdog-straggler", "nccl",
     {"evidence.failures": [event(kind="watchdog_timeout", rank=1, op="ALLREDUCE", seq=7),
                            event(kind="progress", rank=3, last_enqueued=6, last_completed=6)]},
     {"evidence.failures": [event(kind="watchdog_timeout", rank=1, op="ALLREDUCE", seq=7),
                            event(kind="progress", rank=3, last_enqueued=7, last_completed=6)]},
     {}),
    ("evidence-ucx-error", "nccl",
     {"evidence.failures": [event(kind="ucx_error", host="h1", pid=7,
                                  exception_type="Transport retry count exceeded on mlx5_0:1/IB")]},
     {"evidence.failures": [event(kind="nccl_warning")]}, {}),
    ("evidence-deepep-timeout", "nccl",
     {"evidence.failures": [event(kind="deepep_timeout", exception_type="dispatch NVL receiver timeout",
                                  message="DeepEP dispatch NVL receiver timeout, channel: 6")]},
     {"evidence.failures": [event(kind="cuda_error")]}, {}),
    ("evidence-gloo-error", "gloo",
     {"evidence.failures": [event(kind="gloo_error", rank=1, exception_type="Connection closed by peer",
                                  remote_ip="10.0.0.2", port=3977, call="pair.cc:598")]},
     {"evidence.failures": [event(kind="monitored_barrier_failure", rank=1)]}, {}),
    ("evidence-coordination-timeout", "nccl",
     {"evidence.failures": [event(kind="coordination_timeout", group="PjRT_Client_Connect",
                                  exception_type="barrier time-out", missing_ranks=[1, 2])]},
     {"evidence.failures": [event(kind="store_timeout")]}, {}),
    ("evidence-hccl-plog-error", "hccl",
     {"evidence.failures": [event(kind="hccl_plog_error", rank=1, remote_rank=0,
                                  exception_type="task exception on a NOTIFY WAIT task",
                                  message="[aicpu_hccl_sqcq.cc:330] run failed of exception")]},
     {"evidence.failures": [event(kind="hccl_error", code="EI0006")]}, {}),
    ("evidence-libfabric-warning", "nccl",
     {"evidence.failures": [event(kind="libfabric_warning", pid=7, library="libfabric (efa)",
                                  call="efa_rdm_txe_handle_error():737",
                                  exception_type="err: 5, message: Invalid address")]},
     {"evidence.failures": [event(kind="nccl_warning")]}, {}),
    ("evidence-nccl-connect-retry", "nccl",
     {"evidence.failures": [event(kind="nccl_connect_retry", host="worker", pid=1, device=0,
                                  exception_type="Connection timed out")]},
     {"evidence.failures": [event(kind="nccl_warning")]}, {}),
    ("evidence-ray-placement", "nccl",
     {"evidence.failures": [event(kind="ray_placement", timeout_ms=1270000,
                                  exception_type="no node can hold {'GPU': 1.0}")]},
     {"evidence.failures": [event(kind="launcher_exit", exit_code=1)]}, {}),
    ("evidence-log-error", "gloo",
     {"evidence.failures": [event(kind="log_error", message="E0917 worker_pool.cpp:294] Process failed")]},
     {"evidence.failures": [event(kind="python_exception", message="ValueError: bad dp")]}, {}),
    ("evidence-python-exception", "gloo",
     {"evidence.failures": [event(kind="python_exception", message="ValueError: bad dp")]},
     {"evidence.failures": [event(kind="elastic_failure", rank=2, exit_code=1)]}, {}),
    ("evidence-elastic-root-cause", "gloo",
     {"evidence.failures": [event(kind="elastic_failure", rank=2, exit_code=1, root_cause=True)]},
     {"evidence.failures": [event(kind="store_timeout")]}, {}),
    ("evidence-hccl-socket-timeout", "hccl",
     {"evidence.failures": [event(kind="hccl_error", code="EI0006")], "env.HCCL_CONNECT_TIMEOUT": "400"},
     {"evidence.failures": [event(kind="hccl_error", code="EI0002")]}, {"HCCL_CONNECT_TIMEOUT": "800"}),
    ("evidence-hccl-exec-timeout", "hccl", {"evidence.failures": [event(kind="hccl_error", code="EI0002")]},
     {"evidence.failures": [event(kind="hccl_error", code="EI0006")]}, {}),
    ("evidence-hccl-negotiation-timeout", "hccl",
     {"evidence.failures": [event(kind="hccl_error", code="EI0015")]},
     {"evidence.failures": [event(kind="hccl_error", code="EI0006")]}, {}),
    ("evidence-hccl-port-bind", "hccl",
     {"evidence.failures": [event(kind="hccl_error", code="EJ0003", port=60001)]},
     {"evidence.failures": [event(kind="hccl_error", code="EI0006")]}, {}),
    ("evidence-hccl-other-error", "hccl",
     {"evidence.failures": [event(kind="hccl_error", code="EI0013")]},
     {"evidence.failures": [event(kind="hccl_error", code="EI0006")]}, {}),
    ("evidence-rendezvous-failure", "gloo",
     {"evidence.failures": [event(kind="rendezvous_failure", exception_type="RendezvousTimeoutError")]},
     {"evidence.failures": [event(kind="store_timeout", timeout_ms=60000)]}, {}),
    ("evidence-store-timeout", "gloo",
     {"evidence.failures": [event(kind="store_timeout", numel=3, rank_size=4, timeout_ms=300000)]},
     {"evidence.failures": [event(kind="hccl_error", code="EI0006")]}, {}),
    ("evidence-store-barrier-wait", "gloo",
     {"evidence.failures": [event(kind="store_barrier_wait", rank=3, numel=3, rank_size=8,
                                  exception_type="3 of 8 ranks joined the process group's store barrier")]},
     {"evidence.failures": [event(kind="store_timeout", numel=3, rank_size=4, timeout_ms=300000)]}, {}),
    ("evidence-duplicate-rank", "gloo",
     {"evidence.failures": [event(kind="duplicate_rank", rank=1, rank_size=8,
                                  exception_type="global rank 1 of 8 initialised by the processes behind launcher tags 0, 1")]},
     {"evidence.failures": [event(kind="store_barrier_wait", rank=3, numel=3, rank_size=8)]}, {}),
    ("evidence-gpu-hw-exception", "gloo",
     {"evidence.failures": [event(kind="gpu_hw_exception", exception_type="GPU Hang",
                                  message="HW Exception by GPU node-9 reason :GPU Hang")]},
     {"evidence.failures": [event(kind="store_timeout")]}, {}),
    ("evidence-gpu-ecc-uncorrected", "nccl", {"evidence.gpus": [smi_gpu(ecc_uncorrected=4)]},
     {"evidence.gpus": [smi_gpu()]}, {}),
    ("evidence-gpu-remap-failed", "nccl",
     {"evidence.gpus": [smi_gpu(query="q", remap_pending=False, remap_failed=True)]},
     {"evidence.gpus": [smi_gpu(query="q", remap_pending=True, remap_failed=False)]}, {}),
    ("evidence-gpu-repair-pending", "nccl",
     {"evidence.gpus": [smi_gpu(query="q", remap_pending=True, remap_failed=False)]},
     {"evidence.gpus": [smi_gpu(query="q", remap_pending=False, remap_failed=True)]}, {}),
    ("evidence-gpu-throttled", "nccl",
     {"evidence.gpus": [smi_gpu(query="q", throttled=["HW Slowdown"])]},
     {"evidence.gpus": [smi_gpu(query="q")]}, {}),
    ("evidence-gpu-unreadable", "nccl", {"evidence.gpus": [smi_gpu(unreadable=["power", "temperature"])]},
     {"evidence.gpus": [smi_gpu(unreadable=["power"], sensors_only=True)]}, {}),
    ("evidence-gpu-sensor-unreadable", "nccl",
     {"evidence.gpus": [smi_gpu(unreadable=["power"], sensors_only=True)]},
     {"evidence.gpus": [smi_gpu(unreadable=["power", "temperature"])]}, {}),
    ("evidence-nvshmem-error", "nccl",
     {"evidence.failures": [event(kind="nvshmem_error", exception_type="nvshmem initialization failed, exiting")]},
     {"evidence.failures": [event(kind="nccl_warning")]}, {}),
    ("evidence-ascend-tool-failure", "hccl",
     {"evidence.failures": [event(kind="ascend_tool_failure",
                                  exception_type="12 command(s) failed: Device ID is out of the valid range.")]},
     {"evidence.failures": [event(kind="gpu_driver_fault", code="79")]}, {}),
    ("evidence-faultdiag-fault", "hccl",
     {"evidence.failures": [event(kind="faultdiag_fault", code="Comp_Network_Custom_05",
                                  exception_type="Comp_Network_Custom_05 NPU optical module not present")]},
     {"evidence.failures": [event(kind="npu_dcmi_error", code="-8020")]}, {}),
    ("evidence-pg-timeout-not-above-hccl-exec", "hccl",
     {"evidence.failures": [event(kind="pg_timeout_warning", timeout_ms=300000,
                                  exception_type="watchdog 300 s, HCCL execution 1800 s (3 process(es) warned)")]},
     {"evidence.failures": [event(kind="npu_dcmi_error", code="-8020")]}, {}),
    ("evidence-nccl-socket-network", "nccl",
     {"evidence.failures": [event(kind="nccl_socket_network", host="cgpu15",
                                  exception_type="NCCL found no InfiniBand/RoCE device and uses TCP sockets")]},
     {"evidence.failures": [event(kind="nccl_warning")]}, {}),
    ("evidence-flight-recorder-off", "nccl",
     {"evidence.failures": [event(kind="pg_settings", rank=7, group="0", numel=0, code="2.21.5",
                                  exception_type="NCCL 2.21.5; flight recorder off (TORCH_NCCL_TRACE_BUFFER_SIZE 0)")]},
     {"evidence.failures": [event(kind="pg_settings", rank=7, group="0", numel=2000, code="2.21.5",
                                  exception_type="NCCL 2.21.5; flight recorder on (2000 entries)")]},
     {"TORCH_NCCL_TRACE_BUFFER_SIZE": "2000", "TORCH_NCCL_DUMP_ON_TIMEOUT": "1"}),
    ("evidence-asys-fail", "hccl",
     {"evidence.failures": [event(kind="asys_check", code="Fail",
                                  exception_type="CPU Detect (Hardware): Fail on device(s) 3")]},
     {"evidence.failures": [event(kind="asys_check", code="Warn",
                                  exception_type="CPU Detect (Hardware): Warn on device(s) 1")]}, {}),
    ("evidence-asys-warn", "hccl",
     {"evidence.failures": [event(kind="asys_check", code="Warn",
                                  exception_type="CPU Detect (Hardware): Warn on device(s) 1")]},
     {"evidence.failures": [event(kind="asys_check", code="Fail",
                                  exception_type="CPU Detect (Hardware): Fail on device(s) 3")]}, {}),
    ("evidence-dmi-fail", "hccl",
     {"evidence.failures": [event(kind="dmi_check", code="Fail", exception_type="Hardware hbm: FAIL")]},
     {"evidence.failures": [event(kind="dmi_check", code="Warn",
                                  exception_type="Hardware driver: GENERAL_WARN")]}, {}),
    ("evidence-dmi-warn", "hccl",
     {"evidence.failures": [event(kind="dmi_check", code="Warn",
                                  exception_type="Hardware driver: EMERGENCY_WARN")]},
     {"evidence.failures": [event(kind="asys_check", code="Warn",
                                  exception_type="CPU Detect (Hardware): Warn on device(s) 1")]}, {}),
    ("evidence-reschedule", "hccl",
     {"evidence.failures": [event(kind="reschedule", code="pod-failed", host="node2",
                                  message="MindCluster rescheduled job default/j: pod-failed")]},
     {"evidence.failures": [event(kind="nhc_failure", host="node2")]}, {}),
    ("evidence-pg-abort-timeout", "nccl",
     {"evidence.failures": [event(kind="pg_abort_timeout", rank=0, timeout_ms=600000)]},
     {"evidence.failures": [event(kind="watchdog_hang", rank=0)]}, {}),
    ("evidence-nccl-connect-failed", "nccl",
     {"evidence.failures": [event(kind="nccl_warning", call="socketPollConnect", remote_ip="10.0.0.4",
                                  port=56849, exception_type="socket connect failed: No route to host")]},
     {"evidence.failures": [event(kind="nccl_warning", exception_type="start-up fallback")]}, {}),
    ("evidence-flight-dumps-unfinished", "nccl",
     {"evidence.failures": [event(kind="pg_dump_unfinished", rank=3, group="1", timeout_ms=60000)]},
     {"evidence.failures": [event(kind="pg_debug_dump", rank=3)]}, {}),
    ("evidence-flight-dumps-written", "nccl",
     {"evidence.failures": [event(kind="pg_debug_dump", rank=0, group="0")]},
     {"evidence.failures": [event(kind="pg_settings", rank=0)]}, {}),
    ("evidence-nhc-failure", "nccl",
     {"evidence.failures": [event(kind="nhc_failure", host="node-273", code="check_hw_ib",
                                  exception_type="check_hw_ib: No IB port mlx5_ib7:1 is ACTIVE")]},
     {"evidence.failures": [event(kind="nccl_warning")]}, {}),
    ("evidence-npu-dcmi-error", "hccl",
     {"evidence.failures": [event(kind="npu_dcmi_error", code="-8020",
                                  code_name="DCMI_ERR_CODE_RESOURCE_OCCUPIED",
                                  exception_type="a DCMI call failed: get health: -8020")]},
     {"evidence.failures": [event(kind="npu_dcmi_error", code="-8020", call="dcmi_init",
                                  exception_type="npu-smi could not start DCMI: -8020")]}, {}),
    ("evidence-npu-dcmi-init-failed", "hccl",
     {"evidence.failures": [event(kind="npu_dcmi_error", code="-8005", call="dcmi_init",
                                  code_name="DCMI_ERR_CODE_INNER_ERR",
                                  exception_type="npu-smi could not start DCMI: -8005")]},
     {"evidence.failures": [event(kind="npu_dcmi_error", code="-8020",
                                  exception_type="a DCMI call failed: get health: -8020")]}, {}),
    ("evidence-gpu-driver-fault", "nccl",
     {"evidence.failures": [event(kind="gpu_driver_fault", code="79",
                                  exception_type="Xid 79 on PCI:0000:2b:00: GPU has fallen off the bus.")]},
     {"evidence.failures": [event(kind="gpu_driver_error", code="45")]}, {}),
    ("evidence-gpu-driver-error", "nccl",
     {"evidence.failures": [event(kind="gpu_driver_error", code="45",
                                  exception_type="Xid 45 on PCI:0000:dc:00: Ch 00000001")]},
     {"evidence.failures": [event(kind="gpu_hw_exception", exception_type="GPU Hang")]}, {}),
    ("evidence-benchmark-busbw", "gloo", {"evidence.benchmarks": [bench_table()]}, {}, {}),
    ("evidence-nccl-tests-solo-runs", "nccl",
     {"evidence.benchmarks": [bench_table(ranks=1, solo_hosts=["node-a", "node-b"], results=[])]},
     {"evidence.benchmarks": [bench_table()]}, {}),
    ("evidence-benchmark-busbw-drop", "nccl",
     {"evidence.benchmarks": [bench_table(busbw_drops=[
         {"in_place": False, "from_bytes": 2 << 30, "to_bytes": 16 << 30, "best_bytes": 512 << 20,
          "best_busbw_gbps": 78.0, "lowest_busbw_gbps": 8.08, "to_largest": True}])]},
     {"evidence.benchmarks": [bench_table(busbw_drops=[])]}, {}),
    ("evidence-benchmark-cut-short", "gloo", {"evidence.benchmarks": [bench_table(complete=False)]},
     {"evidence.benchmarks": [bench_table()]}, {}),
    ("evidence-hccl-test-check-failed", "hccl",
     {"evidence.benchmarks": [bench_table(tool="hccl_test", failed_checks=[{"bytes": 1024, "ranks": [3]}])]},
     {"evidence.benchmarks": [bench_table(tool="hccl_test")]}, {}),
    ("evidence-npu-port-state", "hccl", {"evidence.npu_ports": [npu_port()]}, {}, {}),
    ("evidence-npu-port-down", "hccl", {"evidence.npu_ports": [npu_port(link="DOWN")]},
     {"evidence.npu_ports": [npu_port()]}, {}),
    ("evidence-npu-roce-test-slow", "hccl",
     {"evidence.npu_ports": [npu_port(roce_test=_roce(23365.5)), npu_port(device=1, roce_test=_roce(11000.0))]},
     {"evidence.npu_ports": [npu_port(roce_test=_roce(23365.5)), npu_port(device=1, roce_test=_roce(22000.0))]}, {}),
    ("evidence-npu-port-no-ip", "hccl", {"evidence.npu_ports": [npu_port(ip_preset=False)]},
     {"evidence.npu_ports": [npu_port(ip_preset=True, ipaddr="10.0.0.10")]}, {}),
    ("evidence-npu-tls-mismatch", "hccl",
     {"evidence.npu_ports": [npu_port(tls_enabled=True), npu_port(device=1, tls_enabled=False)]},
     {"evidence.npu_ports": [npu_port(tls_enabled=True), npu_port(device=1, tls_enabled=True)]}, {}),
    ("evidence-npu-ping-loss", "hccl", {"evidence.npu_ports": [npu_port(ping_loss_pct=20.0)]},
     {"evidence.npu_ports": [npu_port(ping_loss_pct=0.0)]}, {}),
    ("evidence-npu-link-flaps", "hccl",
     {"evidence.npu_ports": [npu_port(link_up_count=2, link_flapped=True, link_changes=[
         {"time": "Tue Aug  1 14:43:40 2022", "state": "UP"},
         {"time": "Tue Aug  1 14:43:39 2022", "state": "DOWN"}])]},
     {"evidence.npu_ports": [npu_port(link_up_count=1, link_flapped=False, link_changes=[
         {"time": "Tue Aug  1 14:43:26 2022", "state": "UP"}])]}, {}),
    ("evidence-gpu-p2p-unavailable", "nccl",
     {"evidence.p2p": [p2p_matrix(not_ok=[["GPU0", "GPU1", "CNS"]])]},
     {"evidence.p2p": [p2p_matrix()]}, {}),
    ("evidence-dcgm-diag-failed", "nccl",
     {"evidence.dcgm_diags": [dcgm_diag([dcgm_check("Denylist", "Pass", "Deployment"),
                                        dcgm_check("Memory Bandwidth", "Fail", gpus="GPU: 1")])]},
     {"evidence.dcgm_diags": [dcgm_diag([dcgm_check("Memory Bandwidth", "Warn")])]}, {}),
    ("evidence-gpu-copy-test-failed", "nccl",
     {"evidence.gpu_copy": [gpu_copy(failed=[{"line": 18, "test": "device_to_device_memcpy_read_ce",
                                              "message": "ASSERT in expression h_errorFlag == 0",
                                              "offset": "11136"}])]},
     {"evidence.gpu_copy": [gpu_copy()]}, {}),
    ("evidence-gpu-copy-test-waived", "nccl",
     {"evidence.gpu_copy": [gpu_copy(waived=["device_to_device_memcpy_write_ce"])]},
     {"evidence.gpu_copy": [gpu_copy(waived=["multicast_one_to_all_sm"])]}, {}),
    ("evidence-gpu-copy-tool-error", "nccl",
     {"evidence.gpu_copy": [gpu_copy(tool_errors=[{"line": 13, "test": "host_to_device_memcpy_ce",
                                                   "message": "NVML_ERROR: [Not Found] in expression nvmlDeviceGetHandleByUUID(...)",
                                                   "offset": None}])]},
     # a copy that computed wrong data is evidence-gpu-copy-test-failed's
     {"evidence.gpu_copy": [gpu_copy(failed=[{"line": 18, "test": "device_to_device_memcpy_read_ce",
                                              "message": "ASSERT in expression h_errorFlag == 0",
                                              "offset": "11136"}])]}, {}),
    ("evidence-gpu-fabric-not-registered", "nccl",
     {"evidence.gpus": [smi_gpu(query="q", fabric_status="Insufficient Resources")]},
     {"evidence.gpus": [smi_gpu(query="q", fabric_status="Success")]}, {}),
    ("evidence-hca-netdev-down", "nccl",
     {"evidence.hca_ports": [hca_port(tool="ibdev2netdev", netdev="ibs108", netdev_up=False)]},
     {"evidence.hca_ports": [hca_port(tool="ibdev2netdev", netdev="ens12f0np0", netdev_up=True)]}, {}),
    ("evidence-p2p-slower-than-host-path", "nccl",
     {"evidence.gpu_copy": [gpu_copy(tool="p2pBandwidthLatencyTest", p2p_slower=[
         {"a": 0, "b": 1, "matrix": "Unidirectional P2P=Enabled Bandwidth (P2P Writes)",
          "enabled_gbytes_s": 9.9, "disabled_gbytes_s": 20.1, "ratio": 0.49}])]},
     {"evidence.gpu_copy": [gpu_copy(tool="p2pBandwidthLatencyTest")]}, {}),
    ("evidence-dcgmi-nvlink-down", "nccl",
     {"evidence.nvlink_states": [nvlink_state(states=["D"] * 18, up=[], down=list(range(18)),
                                              all_down=True)]},
     {"evidence.nvlink_states": [nvlink_state()]}, {}),
    ("evidence-dcgm-diag-precondition", "nccl",
     {"evidence.dcgm_diags": [dcgm_diag([dcgm_check("Persistence Mode", "Fail", "Deployment")])]},
     {"evidence.dcgm_diags": [dcgm_diag([dcgm_check("Memory Bandwidth", "Fail")])]}, {}),
    ("evidence-dcgm-diag-warned", "nccl",
     {"evidence.dcgm_diags": [dcgm_diag([dcgm_check("Targeted Power", "Warn")])]},
     {"evidence.dcgm_diags": [dcgm_diag([dcgm_check("Targeted Power", "Pass")])]}, {}),
    ("evidence-dcgm-diag-not-run", "nccl",
     {"evidence.dcgm_diags": [dcgm_diag([dcgm_check("Denylist", "Pass", "Deployment"),
                                        dcgm_check("PCIe", "Skip", "Integration")])]},
     {"evidence.dcgm_diags": [dcgm_diag([dcgm_check("Denylist", "Pass", "Deployment"),
                                        dcgm_check("PCIe", "Pass", "Integration")])]}, {}),
    ("evidence-hca-link-below-capability", "nccl",
     {"evidence.hca_ports": [hca_port(tool="iblinkinfo", rate_gbps=50.0, could_be="Could be 4X 53.125 Gbps")]},
     {"evidence.hca_ports": [hca_port(tool="iblinkinfo")]}, {}),
    ("evidence-hca-port-not-active", "nccl",
     {"evidence.hca_ports": [hca_port(), hca_port(ca="mlx5_1", state="Down", active=False, physical_state="Disabled")]},
     {"evidence.hca_ports": [hca_port(), hca_port(ca="mlx5_1")]}, {}),
    ("evidence-npu-optical-alarm", "hccl",
     {"evidence.npu_ports": [npu_port(optical_alarms=["Rx Power1 0.0054 mW under its low threshold 0.1445 mW"])]},
     {"evidence.npu_ports": [npu_port(optical={"Rx Power0": "1.0 mW"}, optical_alarms=[])]}, {}),
    ("evidence-npu-roce-errors", "hccl",
     {"evidence.npu_ports": [npu_port(stat={"roce_rx_err_pkt_num": 11, "roce_tx_err_pkt_num": 0},
                                      stat_errors={"roce_rx_err_pkt_num": 11})]},
     {"evidence.npu_ports": [npu_port(stat={"roce_rx_err_pkt_num": 0, "roce_tx_err_pkt_num": 0})]},
     {}),
    ("evidence-npu-tls-cert-expiry", "hccl",
     {"evidence.npu_ports": [npu_port(tls_enabled=True, tls_alarms=[
         {"name": "crl", "end_time": "Mon Mar  2 03:10:27 2026 GMT", "status": 1,
          "status_text": "near expiration"}])]},
     {"evidence.npu_ports": [npu_port(tls_enabled=True, tls_certs=[
         {"name": "pub cert", "end_time": "Wed Jun 18 03:10:27 2053 GMT", "status": 0,
          "status_text": "normal"}])]}, {}),
    ("evidence-npu-fec-uncorrected", "hccl",
     {"evidence.npu_ports": [npu_port(die_port="UDie 0 port 4", fec_uncorrected_frames=4, pre_fec_error_bits=946349919)]},
     {"evidence.npu_ports": [npu_port(die_port="UDie 0 port 4", fec_uncorrected_frames=0, pre_fec_error_bits=946349919)]}, {}),
    ("evidence-npu-fec-corrected", "hccl",
     {"evidence.npu_ports": [npu_port(fec_uncorrected_frames=0, pre_fec_error_bits=12)]},
     {"evidence.npu_ports": [npu_port()]}, {}),
    ("evidence-npu-su-ber", "hccl",
     {"evidence.npu_ports": [npu_port(su_ber_lanes=[_su_lane(0, 746, 5.427864e-09), _su_lane(2, 2844, 2.069282e-08)])]},
     {"evidence.npu_ports": [npu_port()]}, {}),
    ("evidence-npu-su-ber-errors", "hccl",
     {"evidence.npu_ports": [npu_port(su_ber_lanes=[_su_lane(1, 9, 6.7e-11, err_symb_t4=3)],
                                      su_ber_alarms=["lane 1: 3 frame(s) with more than four symbol errors"])]},
     {"evidence.npu_ports": [npu_port(su_ber_lanes=[_su_lane(1, 9, 6.7e-11)], su_ber_alarms=[])]}, {}),
    ("evidence-npu-link-down-records", "hccl",
     {"evidence.npu_ports": [npu_port(link=None, link_down_records=5, link_down_snr_zero=["log row 2 lane 2"])]},
     {"evidence.npu_ports": [npu_port(link_down_records=0)]}, {}),
    ("evidence-npu-port-link-history", "hccl",
     {"evidence.npu_ports": [npu_port(die_port="UDie 0 port 4", link_history=["index 0: L0:link_proc|L1:link_fail"])]},
     {"evidence.npu_ports": [npu_port(link_history=[])]}, {}),
    ("evidence-npu-chip-health", "hccl", {"evidence.npu_chips": [npu_chip(health="Alarm")]},
     {"evidence.npu_chips": [npu_chip()]}, {}),
    ("evidence-npu-hbm-held", "hccl",
     {"evidence.npu_chips": [npu_chip(hbm_used_mb=56152, hbm_total_mb=65536, hbm_used_pct=85.7, aicore_pct=0.0)]},
     {"evidence.npu_chips": [npu_chip(hbm_used_mb=56152, hbm_total_mb=65536, hbm_used_pct=85.7, aicore_pct=93.0),
                             npu_chip(hbm_used_mb=3410, hbm_total_mb=65536, hbm_used_pct=5.2, aicore_pct=0.0)]}, {}),
    ("evidence-nvlink-inactive", "nccl",
     {"evidence.nvlinks": [nvlink(gpu=3, inactive=[3, 5], fewer_than_peers=True)]},
     {"evidence.nvlinks": [nvlink(inactive=[3, 5])]}, {}),
    ("evidence-nvlink-inactive-alike", "nccl", {"evidence.nvlinks": [nvlink(inactive=[4, 5])]},
     {"evidence.nvlinks": [nvlink()]}, {}),
    ("evidence-nvlink-errors", "nccl",
     {"evidence.nvlinks": [nvlink(errors={"0": {"CRC Errors": 4}}, error_total=4)]},
     {"evidence.nvlinks": [nvlink(errors={"0": {"CRC Errors": 0}})]}, {}),
    ("evidence-benchmark-one-rank", "nccl",
     {"evidence.benchmarks": [bench_table(ranks=1, one_rank=True)]},
     {"evidence.benchmarks": [bench_table(ranks=1, one_rank=True, solo_hosts=["a", "b"])]}, {}),
    ("evidence-rank-table-invalid", "hccl",
     {"evidence.rank_tables": [{"source": "hccl.json", "version": "1.0", "status": "completed",
                                "server_count": 2, "servers": [], "ranks": [], "super_pods": [],
                                "errors": ["rank 3 appears twice"]}]}, {}, {}),
    ("evidence-npu-topology-sys", "hccl",
     {"evidence.topologies": [{"source": "topo.txt", "tool": "npu-smi", "devices": [0, 1, 4],
                               "links": {}, "cpu_affinity": {}, "kinds": ["HCCS", "SYS"],
                               "sys_pairs": [[0, 4]], "hccs": True,
                               "sys_by_design": False}]},
     # a board whose SYS pairs are its design (evidence-npu-topology-no-hccs)
     {"evidence.topologies": [{"source": "topo.txt", "tool": "npu-smi", "devices": [0, 1, 4],
                               "links": {}, "cpu_affinity": {}, "kinds": ["SYS", "UB"],
                               "sys_pairs": [[0, 4]], "hccs": False,
                               "sys_by_design": True}]}, {}),
    ("evidence-npu-topology-no-hccs", "hccl",
     {"evidence.topologies": [{"source": "topo.txt", "tool": "npu-smi", "devices": [0, 1, 4],
                               "links": {}, "cpu_affinity": {}, "kinds": ["SYS", "UB"],
                               "sys_pairs": [[0, 4]], "hccs": False,
                               "sys_by_design": True}]},
     {"evidence.topologies": [{"source": "topo.txt", "tool": "npu-smi", "devices": [0, 1, 4],
                               "links": {}, "cpu_affinity": {}, "kinds": ["HCCS", "SYS"],
                               "sys_pairs": [[0, 4]], "hccs": True,
                               "sys_by_design": False}]}, {}),
    ("evidence-nccl-no-gdr", "nccl",
     {"evidence.failures": [{"source": "a.log", "kind": "nccl_no_gdr", "line": 50,
                             "host": "node1", "message": "Channel 00/1 : 1[0] -> 0[0] [receive] via NET/IB/1/Shared"}]},
     {"evidence.failures": []}, {}),
    ("evidence-gpu-topology-no-near-nic", "nccl",
     {"evidence.topologies": [{"source": "topo.txt", "tool": "nvidia-smi", "devices": [],
                               "links": {}, "no_near_nic": ["GPU4", "GPU5"]}]},
     {"evidence.topologies": [{"source": "topo.txt", "tool": "nvidia-smi", "devices": [],
                               "links": {}, "no_near_nic": []}]}, {}),
    ("evidence-gpu-topology-nvlink-missing", "nccl",
     {"evidence.topologies": [{"source": "topo.txt", "tool": "nvidia-smi", "devices": [],
                               "links": {}, "nvlink_left_out": ["GPU4"]}]},
     {"evidence.topologies": [{"source": "topo.txt", "tool": "nvidia-smi", "devices": [],
                               "links": {}, "nvlink_left_out": []}]}, {}),
    ("hccl-buffsize-below-bucket", "hccl", {"env.HCCL_BUFFSIZE": "20"},
     {"env.HCCL_BUFFSIZE": "25"}, {"HCCL_BUFFSIZE": "25"}),
    ("bench-per-size-hccl-tuner-table", "hccl",
     {"bench.bands": [{"op": "all_reduce", "min_bytes": 0, "max_bytes": 65536, "native": True,
                       "choice": "native[hccl-NHR]", "measured_bytes": [1024], "gain": 1.6,
                       "gain_low": 1.3}]},
     {"bench.bands": [{"op": "all_reduce", "min_bytes": 0, "max_bytes": 65536, "native": True,
                       "choice": "native[hccl-ring]", "measured_bytes": [1024], "gain": 1.6,
                       "gain_low": 1.3}]},
     {"HCCL_TUNER_CONFIG_FILE": "/hccl_tuner_config.json",
      "HCCL_TUNER_PLUGIN": "libhccl_tuner_plugin.so", "HCCL_USE_NEW_SELECTOR": "1"}),
    ("tuner-config-misread", "nccl",
     {"environment.tuner_configs": [{"variable": "NCCL_TUNER_CONFIG_FILE", "path": "t.conf",
                                     "format": "nccl", "rules": 0,
                                     "errors": ["line 2: algorithm: unknown algorithm 'Ring'"],
                                     "warnings": []}]},
     {"environment.tuner_configs": [{"variable": "NCCL_TUNER_CONFIG_FILE", "path": "t.conf",
                                     "format": "nccl", "rules": 3, "errors": [], "warnings": []}]},
     {}),
    ("tuner-config-unmatched", "hccl",
     {"environment.tuner_configs": [{"variable": "HCCL_TUNER_CONFIG_FILE", "path": "t.json",
                                     "format": "hccl", "rules": 2, "errors": [],
                                     "warnings": ["op_types.allreduce.rules[1]: min_ranks: never matches this job"]}]},
     {"environment.tuner_configs": []}, {}),
    ("bench-per-size-tuner-table", "nccl",
     {"bench.bands": [{"op": "all_reduce", "min_bytes": 0, "max_bytes": 65536, "native": True,
                       "choice": "native[nccl-Tree-LL]", "measured_bytes": [1024], "gain": 2.5,
                       "gain_low": 2.1}]},
     {"bench.bands": [{"op": "all_reduce", "min_bytes": 0, "max_bytes": 65536, "native": False,
                       "choice": "tree", "measured_bytes": [1024], "gain": 2.5, "gain_low": 2.1}]},
     {"NCCL_TUNER_PLUGIN": "libnccl-tuner-example.so",
      "NCCL_TUNER_CONFIG_FILE": "/nccl_tuner.conf"}),
    # soak
    ("soak-stalls", "hccl", {"soak.stalls": _STALL}, {"soak.stalls": []}, {}),
    ("soak-link-flaps", "hccl", {"soak.flapping_links": ["node1/eth2 (2 flaps)"]},
     {"soak.flapping_links": []}, {}),
    ("soak-counter-errors", "nccl", {"soak.counter_errors": ["node1/eth2 rx_crc_errors +40"]},
     {"soak.counter_errors": []}, {}),
    ("soak-high-variance", "hccl", {"soak.high_variance": ["p2p/0-2 cv 0.41"]},
     {"soak.high_variance": []}, {}),
    # isolation: the same conclusion read as a failure (critical) or a slowness (warning)
    ("isolate-bad-node", "hccl", _isolated("node", "failed"), _isolated("node", "slow"), {}),
    ("isolate-slow-node", "nccl", _isolated("nodes", "slow"), _isolated("nodes", "failed"), {}),
    ("isolate-bad-link", "gloo", _isolated("link", "failed"), _isolated("node", "failed"), {}),
    ("isolate-slow-link", "hccl", _isolated("pair", "slow"), _isolated("pair", "failed"), {}),
    ("isolate-scale-only", "nccl", _isolated("scale", "failed"),
     _isolated("not_reproduced", ""), {}),
    # flight recorder (imported dumps here; a failed stage's analysis reads the same way)
    ("flight-never-entered", "gloo", {"evidence.flight": [_flight("never_entered")]},
     {"evidence.flight": [_flight("mismatch")]}, {}),
    ("flight-not-completed", "nccl", {"evidence.flight": [_flight("not_completed")]},
     {"evidence.flight": [_flight("never_entered")]}, {"NCCL_DEBUG": "WARN"}),
    ("flight-mismatch", "gloo", {"evidence.flight": [_flight("mismatch")]},
     {"evidence.flight": [_flight("membership")]}, {"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}),
    ("flight-membership", "hccl", {"evidence.flight": [_flight("membership")]},
     {"evidence.flight": [_flight("not_completed")]}, {}),
    # failure logs of several ranks on one clock
    ("evidence-failure-order", "hccl", {"evidence.timelines": [_timeline(all_waiting=False)]},
     {"evidence.timelines": [_timeline(all_waiting=True)]}, {}),
    ("evidence-hccl-heartbeat-culprit", "hccl",
     {"evidence.failures": [event(kind="hccl_error", code="EI0002", culprit_ip="90.90.92.240",
                                  culprit_device=1, exception_type="Heartbeat Lost Occurred")]},
     {"evidence.failures": [event(kind="hccl_error", code="EI0002")]}, {}),
    ("evidence-collective-mismatch", "hccl",
     {"evidence.timelines": [{**_timeline(all_waiting=False), "mismatched_ops": {"all_gather": [1], "all_reduce": [0]}}]},
     {"evidence.timelines": [{**_timeline(all_waiting=False), "mismatched_ops": {}}]}, {}),
    ("evidence-watchdog-seq-spread", "nccl",
     {"evidence.timelines": [{**_timeline(all_waiting=False), "seq_spread": {5: [1], 7: [4, 5, 6, 7]}}]},
     {"evidence.timelines": [{**_timeline(all_waiting=False), "seq_spread": {}}]}, {}),
    ("evidence-hccl-init-skew", "hccl",
     {"evidence.failures": [event(kind="hccl_init_skew", rank=3, remote_rank=0, ran_for_ms=200005,
                                  message="rank 3 called HcclCommInitRootInfo 200 s after rank 0")]},
     {"evidence.failures": [event(kind="hccl_error", code="EI0006")]},
     {"HCCL_CONNECT_TIMEOUT": "301"}),
    ("evidence-hccl-container-bridge-address", "hccl",
     {"evidence.timelines": [{**_timeline(all_waiting=True), "shared_addresses": {"172.17.0.2": [0, 8]}}]},
     {"evidence.timelines": [{**_timeline(all_waiting=True), "shared_addresses": {"10.0.0.1": [0, 1]}}]},
     {}),
    ("evidence-failure-spread-beyond-connect-timeout", "hccl",
     {"evidence.timelines": [_timeline(all_waiting=True, beyond=True)]},
     {"evidence.timelines": [_timeline(all_waiting=True, beyond=False)]},
     {"HCCL_CONNECT_TIMEOUT": "232"}),
    # collectives under a compute load: beyond the threshold and beyond the noise only
    ("bench-load-slowdown", "gloo",
     {"bench.load": [_loaded(1.2), _loaded(2.4)], "bench.load_max_slowdown": 1.5},
     {"bench.load": [_loaded(1.2), _loaded(2.4, beyond=False)], "bench.load_max_slowdown": 1.5},
     {}),
    ("bench-load-best-algorithm-changes", "nccl",
     {"bench.load_choices": [_choice(changed=True, beyond=True)]},
     {"bench.load_choices": [_choice(changed=True, beyond=False),
                             _choice(changed=False, beyond=False)]}, {}),
    # HCCL listen failures and link waits with no error code; the watchdog's heartbeat monitor
    ("evidence-hccl-listen-failed", "hccl",
     {"evidence.failures": [event(kind="hccl_bind_failure", ip="192.168.2.199", port=16666,
                                  exception_type="socket type 0")]},
     {"evidence.failures": [event(kind="hccl_error", code="EI0006")]}, {}),
    ("evidence-hccl-link-wait-timeout", "hccl",
     {"evidence.failures": [event(kind="hccl_link_timeout", rank=12, timeout_ms=120000)]},
     {"evidence.failures": [event(kind="hccl_link_timeout", rank=12, timeout_ms=120000),
                            event(kind="hccl_error", code="EI0006")]}, {}),
    ("evidence-hccl-negotiation-failed", "hccl",
     {"evidence.failures": [event(kind="hccl_negotiation_failure", rank=3, timeout_ms=120000,
                                  remote_ip="10.0.0.1", port=60000,
                                  exception_type="agent socket timeout")]},
     {"evidence.failures": [event(kind="hccl_link_timeout", rank=12, timeout_ms=120000)]}, {}),
    ("evidence-hccl-call-failed", "hccl",
     {"evidence.failures": [event(kind="hccl_call_failure", rank=1, device=1, code="1",
                                  torch_npu_code="ERR02200",
                                  call="hcclCommInitRootInfoConfig", code_name="HCCL_E_PARA")]},
     {"evidence.failures": [event(kind="hccl_error", code="EI0015", rank=3)]}, {}),
    ("evidence-hccl-transport-failed", "hccl",
     {"evidence.failures": [event(kind="hccl_transport_failure", rank=7, remote_rank=15,
                                  ip="80.5.5.39", remote_ip="80.5.5.67", op="all_gather")]},
     {"evidence.failures": [event(kind="hccl_error", code="EI0006", rank=7, remote_rank=15)]}, {}),
    ("evidence-hccl-p2p-failed", "hccl",
     {"evidence.failures": [event(kind="hccl_p2p_failure", device=2, pid=114654, code="16",
                                  code_name="HCCL_E_DRV", timeout_ms=130000)]},
     {"evidence.failures": [event(kind="hccl_transport_failure", rank=7, remote_rank=15,
                                  ip="80.5.5.39", remote_ip="80.5.5.67")]}, {}),
    ("evidence-cuda-error", "nccl",
     {"evidence.failures": [event(kind="cuda_error", host="node0", call="common.cu:389",
                                  exception_type="an illegal memory access was encountered")]},
     {"evidence.failures": [event(kind="device_oom", host="node0", device=0)]}, {}),
    ("evidence-store-lost", "nccl",
     {"evidence.failures": [event(kind="store_lost", rank=3, group="0 (default_pg)",
                                  exception_type="Failed to recv, got 0 bytes.")]},
     {"evidence.failures": [event(kind="store_connect_failure", host="n0", port=29500,
                                  exception_type="retrying (try=0)")]}, {}),
    ("evidence-hccl-cqe-error", "hccl",
     {"evidence.failures": [event(kind="hccl_cqe_error", rank=76, device=4, code="12",
                                  code_name="IBV_WC_RETRY_EXC_ERR", remote_ip="192.1.95.102")]},
     {"evidence.failures": [event(kind="nccl_net_error", host="n7", remote_ip="10.99.91.63",
                                  code="12", code_name="IBV_WC_RETRY_EXC_ERR")]}, {}),
    ("evidence-unique-id-exchange-failed", "hccl",
     {"evidence.failures": [event(kind="unique_id_failure", rank=1, remote_rank=0, library="HCCL")]},
     {"evidence.failures": [event(kind="hccl_call_failure", rank=1, call="HcclGetRootInfo")]}, {}),
    ("evidence-nccl-ib-completion-error", "nccl",
     {"evidence.failures": [event(kind="nccl_net_error", host="n7", pid=185303, device=1,
                                  remote_ip="10.99.91.63", port=51161, code="4",
                                  code_name="IBV_WC_LOC_PROT_ERR", exception_type="hca mlx5_1")]},
     {"evidence.failures": [event(kind="watchdog_timeout", rank=1, op="ALLREDUCE", seq=7)]}, {}),
    ("evidence-nccl-ib-fatal-event", "nccl",
     {"evidence.failures": [event(kind="nccl_ib_fatal_event", host="n48", pid=34050, device=0,
                                  code_name="local catastrophic error",
                                  exception_type="the HCA failed (IBV_EVENT_DEVICE_FATAL)")]},
     # a port's link event is evidence-nccl-ib-port-error's
     {"evidence.failures": [event(kind="nccl_ib_port_event", host="n48", pid=34050, device=0,
                                  code_name="port error")]}, {}),
    ("evidence-nccl-ib-port-error", "nccl",
     {"evidence.failures": [event(kind="nccl_ib_port_event", host="n48", pid=34050, device=0,
                                  code_name="port error",
                                  exception_type="the port left the Active state")]},
     # a WARN of another kind is the generic NCCL warning's
     {"evidence.failures": [event(kind="nccl_warning", host="n48", pid=34050, device=0,
                                  message="NET/IB : Got async event : GID table change")]}, {}),
    ("evidence-nccl-nvlink-asymmetric", "nccl",
     {"evidence.failures": [event(kind="nccl_nvlink_asymmetric", host="mew0",
                                  exception_type="NCCL's topology gives the NVLink path GPU/0-65000 -> GPU/0-17000 20 GB/s and the way back 240 GB/s")]},
     {"evidence.failures": [event(kind="nccl_no_gdr", host="mew0")]}, {}),
    ("evidence-dispatch-timeout", "hccl",
     {"evidence.failures": [event(kind="watchdog_timeout", rank=None, device=6, op="all_gather",
                                  seq=250, exception_type="dispatch timeout")]},
     # a watchdog's own time-out of the work is evidence-watchdog-timeout's
     {"evidence.failures": [event(kind="watchdog_timeout", rank=1, op="all_gather", seq=250)]}, {}),
    ("evidence-duplicate-gpu", "nccl",
     {"evidence.failures": [event(kind="duplicate_gpu", rank=2, host="qgpu2008",
                                  exception_type="ranks 0, 2 of communicator 0x26b3 on qgpu2008 share the GPU at bus 31000")]},
     {"evidence.failures": [event(kind="duplicate_rank", rank=2)]}, {}),
    ("evidence-pcie-aer-fatal", "nccl",
     {"evidence.failures": [event(kind="pcie_aer_fatal", library="Linux PCIe AER",
                                  exception_type="Uncorrected (Fatal) PCIe error on nvidia 0000:3b:00.0: Transaction Layer, Requester ID ([14] CmpltTO)")]},
     # corrected errors are evidence-pcie-aer-errors' warning, not this critical finding
     {"evidence.failures": [event(kind="pcie_aer_corrected", library="Linux PCIe AER")]}, {}),
    ("evidence-pcie-aer-errors", "hccl",
     {"evidence.failures": [event(kind="pcie_aer_corrected", library="Linux PCIe AER",
                                  exception_type="Corrected PCIe error on pcieport 0000:00:03.0: Data Link Layer, Transmitter ID ([12] Timeout), 3 reports")]},
     {"evidence.failures": [event(kind="pcie_aer_fatal", library="Linux PCIe AER")]}, {}),
    ("evidence-npu-driver-error", "hccl",
     {"evidence.failures": [event(kind="npu_driver_error", device=4, library="Ascend driver (devdrv)",
                                  exception_type="device 4: device(4) is not initialized (devdrv, devdrv_manager_get_devinfo, asked by npu-smi), 2 reports")]},
     {"evidence.failures": [event(kind="npu_dcmi_error", code="-8005")]}, {}),
    ("evidence-pcie-aer-corrected-few", "nccl",
     {"evidence.failures": [event(kind="pcie_aer_corrected_few", library="Linux PCIe AER",
                                  exception_type="Corrected PCIe error on mlx5_core 0000:86:00.0: Physical Layer, Receiver ID ([0] RxErr)")]},
     {"evidence.failures": [event(kind="pcie_aer_corrected", library="Linux PCIe AER")]}, {}),
    ("evidence-npu-driver-startup", "hccl",
     {"evidence.failures": [event(kind="npu_driver_startup", device=4, library="Ascend driver (devdrv)",
                                  exception_type="device 4 was asked for before the driver set it ready")]},
     {"evidence.failures": [event(kind="npu_driver_error", device=4)]}, {}),
    ("evidence-rdma-no-device", "nccl",
     {"evidence.failures": [event(kind="rdma_no_device", library="libibverbs",
                                  exception_type="no RDMA device could be listed (Function not implemented)")]},
     {"evidence.failures": [event(kind="gpu_driver_error", library="nvidia-smi")]}, {}),
    ("evidence-input-pipeline-failure", "hccl",
     {"evidence.failures": [event(kind="input_pipeline_failure", pid=45501, library="MindSpore",
                                  exception_type="a device task of the GetNext node failed")]},
     {"evidence.failures": [event(kind="npu_runtime_error", code="507899")]}, {}),
    ("evidence-fr-trace-mismatch", "nccl",
     {"evidence.failures": [event(kind="fr_trace_mismatch", missing_ranks=[1], seq=4,
                                  message="Not all ranks joining collective, sequence number: 4: ranks that never joined it (rank(s) 1)")]},
     {"evidence.failures": [event(kind="watchdog_progress", rank=1)]}, {}),
    ("evidence-desync-report", "nccl",
     {"evidence.failures": [event(kind="desync_report", rank=0, op="all_reduce", seq=3, missing_ranks=[1],
                                  message="rank 0 timed out in ALLREDUCE #3: rank(s) 1 finished #2 but did not join #3")]},
     {"evidence.failures": [event(kind="desync_report", rank=0, op="all_reduce", seq=3, missing_ranks=None,
                                  message="rank 0 timed out in ALLREDUCE #3: the report names no lagging rank")]}, {}),
    ("evidence-ddp-unused-parameters", "nccl",
     {"evidence.failures": [event(kind="ddp_unused_parameters", rank=0,
                                  message="RuntimeError: Expected to have finished reduction in the prior iteration")]},
     {"evidence.failures": [event(kind="python_exception", message="RuntimeError: boom")]}, {}),
    ("evidence-nccl-ras-error", "nccl",
     {"evidence.failures": [event(kind="nccl_ras", code="INCOMPLETE", library="NCCL RAS errors",
                                  message="communicator 0-0 INCOMPLETE: Missing communicator data from 1 rank")]},
     {"evidence.failures": [event(kind="nccl_ras", code="MISMATCH", library="NCCL RAS warnings",
                                  message="communicator 0-0 MISMATCH")]}, {}),
    ("evidence-nccl-ras-warning", "nccl",
     {"evidence.failures": [event(kind="nccl_ras", code="MISMATCH", library="NCCL RAS warnings",
                                  message="communicator 0-0 MISMATCH")]},
     {"evidence.failures": [event(kind="nccl_ras", code="INCOMPLETE", library="NCCL RAS errors",
                                  message="the job: INCOMPLETE")]}, {}),
    ("evidence-nccl-fallback-warning", "nccl",
     {"evidence.failures": [event(kind="nccl_warning", host="n0", pid=1, device=0,
                                  exception_type="start-up fallback", message="Cannot get incoming CPU.")]},
     {"evidence.failures": [event(kind="nccl_warning", host="n0", pid=1, device=0,
                                  exception_type="start-up fallback", message="Cannot get incoming CPU."),
                            event(kind="nccl_warning", host="n0", pid=1, device=0,
                                  message="Cuda failure 101 'invalid device ordinal'")]}, {}),
    ("evidence-nccl-warning", "nccl",
     {"evidence.failures": [event(kind="nccl_warning", host="gpu002", pid=704798, device=0,
                                  message="Cuda failure 101 'invalid device ordinal'")]},
     {"evidence.failures": [event(kind="nccl_net_error", host="n7", pid=1, device=1,
                                  remote_ip="10.0.0.2", code="12", code_name="IBV_WC_RETRY_EXC_ERR")]}, {}),
    ("evidence-nccl-warning-run-finished", "nccl",
     {"evidence.failures": [event(kind="nccl_warning", host="c196-091", pid=2698, device=2,
                                  message="MSCCL: algorithm ... Will be ignored.")],
      "evidence.benchmarks": [bench_table(source="train.log")]},
     {"evidence.failures": [event(kind="nccl_warning", host="c196-091", pid=2698, device=2)],
      "evidence.benchmarks": [bench_table(source="train.log", complete=False)]}, {}),
    ("evidence-nccl-call-failed", "nccl",
     {"evidence.failures": [event(kind="nccl_call_failure", host="server1", code="2",
                                  code_name="ncclSystemError", call="common.cu:921")]},
     {"evidence.failures": [event(kind="nccl_warning", host="server1", pid=6601, device=0)]}, {}),
    ("evidence-store-port-taken", "nccl",
     {"evidence.failures": [event(kind="store_bind_failure", port=29500,
                                  exception_type="errno 98: Address already in use")]},
     {"evidence.failures": [event(kind="store_timeout", timeout_ms=900000)]}, {}),
    ("evidence-store-connect-failed", "nccl",
     {"evidence.failures": [event(kind="store_connect_failure", host="neo2", port=29500,
                                  exception_type="error 10049: The requested address")]},
     {"evidence.failures": [event(kind="store_bind_failure", port=29500)]}, {}),
    ("evidence-device-out-of-memory", "hccl",
     {"evidence.failures": [event(kind="device_oom", device=3, library="NPU",
                                  exception_type="tried to allocate 5.03 GiB, 1.32 GiB free")]},
     {"evidence.failures": [event(kind="npu_runtime_error", code="207018", device=3)]}, {}),
    ("evidence-npu-device-exception", "hccl",
     {"evidence.failures": [event(kind="npu_device_exception", device=0, pid=358, code="0x26",
                                  exception_type="RTS_HWTS: aicore exception")]},
     {"evidence.failures": [event(kind="npu_runtime_error", code="507015", device=0)]}, {}),
    ("evidence-monitored-barrier-failed", "gloo",
     {"evidence.failures": [event(kind="monitored_barrier_failure", rank=1, remote_rank=0,
                                  remote_ip="172.19.2.2", port=33177)]},
     {"evidence.failures": [event(kind="elastic_failure", rank=0, exit_code=1)]}, {}),
    ("evidence-launcher-exit", "nccl",
     {"evidence.failures": [event(kind="launcher_exit", rank=1, host="gpu-node2", exit_code=134,
                                  exception_type="srun")]},
     {"evidence.failures": [event(kind="nccl_warning", host="gpu002", pid=7, device=0)]}, {}),
    ("evidence-watchdog-exception", "nccl",
     {"evidence.failures": [event(kind="watchdog_exception", rank=0, library="NCCL",
                                  message="CUDA error: an illegal memory access was encountered")]},
     {"evidence.failures": [event(kind="launcher_exit", rank=1, host="n2", exit_code=1,
                                  exception_type="srun")]}, {}),
    ("evidence-npu-runtime-error", "hccl",
     {"evidence.failures": [event(kind="npu_runtime_error", rank=16, device=0, code="107020",
                                  call="npuSynchronizeDevice", code_name="ACL_ERROR_RT_TASK_TIMEOUT")]},
     {"evidence.failures": [event(kind="hccl_error", code="EI9999", rank=16)]}, {}),
    ("evidence-torch-npu-error", "hccl",
     {"evidence.failures": [event(kind="torch_npu_error", code="ERR99999", device=1, pid=3938695,
                                  exception_type="UNKNOWN applicaiton exception")]},
     {"evidence.failures": [event(kind="hccl_call_failure", rank=1, call="HcclGetRootInfo")]}, {}),
    ("evidence-hccl-rdma-init-failed", "hccl",
     {"evidence.failures": [event(kind="hccl_rdma_init_failure", device=0, ip="192.168.20.148")]},
     {"evidence.failures": [event(kind="hccl_negotiation_failure", rank=3)]}, {}),
    ("evidence-watchdog-hang", "nccl",
     {"evidence.failures": [event(kind="watchdog_hang", rank=6, timeout_ms=480000, library="NCCL")]},
     {"evidence.failures": [event(kind="watchdog_timeout", rank=1, op="ALLREDUCE", seq=7)]}, {}),
    ("evidence-bmc-fault", "hccl",
     {"evidence.failures": [event(kind="bmc_fault", code="56000005",
                                  exception_type="BMC alarm 56000005 (NPU connection has been lost)")]},
     {"evidence.failures": [event(kind="bmc_event", code="29000017")]}, {}),
    ("evidence-bmc-event", "hccl",
     {"evidence.failures": [event(kind="bmc_event", code="29000017")]},
     {"evidence.failures": [event(kind="bmc_fault", code="56000005")]}, {}),
    ("evidence-gpu-idle-among-busy", "nccl",
     {"evidence.gpus": [{"gpu": 0, "bus_id": "00000000:07:00.0", "query": "q", "util_pct": 0,
                         "idle_among_busy": True, "line": 9, "source": "q.txt"}]},
     {"evidence.gpus": [{"gpu": 0, "bus_id": "00000000:07:00.0", "query": "q", "util_pct": 0,
                         "idle_among_busy": False, "line": 9}]}, {}),
    ("evidence-link-carrier-lost", "nccl",
     {"evidence.failures": [event(kind="link_carrier_lost", host="vm-0",
                                  exception_type="ib6 lost its carrier 6 time(s) from line 3")]},
     {"evidence.failures": [event(kind="nccl_warning", host="vm-0")]}, {}),
    ("evidence-hccl-buffsize-small", "hccl",
     {"evidence.failures": [event(kind="hccl_buffsize_small", numel=609, op="MoeDistributeDispatchV3",
                                  exception_type="HCCL_BUFFSIZE is too small: it needs 609 MB")]},
     {"evidence.failures": [event(kind="hccl_error", code="EZ9999")]}, {"HCCL_BUFFSIZE": "609"}),
    ("evidence-npu-device-fault", "hccl",
     {"evidence.failures": [event(kind="npu_device_fault", code="507057", code_name="SUSPECT REMOTE ERROR",
                                  exception_type="SUSPECT REMOTE ERROR: a peer")]},
     {"evidence.failures": [event(kind="npu_runtime_error", code="507057")]}, {}),
    ("evidence-library-missing", "hccl",
     {"evidence.failures": [event(kind="library_missing", library="libc_sec.so", call="npu-smi",
                                  exception_type="npu-smi could not start: no libc_sec.so")]},
     {"evidence.failures": [event(kind="launcher_exit", exception_type="mpirun")]}, {}),
    ("evidence-fabric-manager-failed", "nccl",
     {"evidence.failures": [event(kind="fabric_manager_failed", host="node-1",
                                  exception_type="Fabric Manager did not run: 1/FAILURE")]},
     {"evidence.failures": [event(kind="fabric_manager_unneeded", host="node-1")]}, {}),
    ("evidence-fabric-manager-unneeded", "nccl",
     {"evidence.failures": [event(kind="fabric_manager_unneeded", host="node-1",
                                  exception_type="Fabric Manager found no NVSwitch")]},
     {"evidence.failures": [event(kind="fabric_manager_failed", host="node-1")]}, {}),
    ("evidence-firmware-memory-error", "nccl",
     {"evidence.failures": [event(kind="firmware_memory_error", code_name="recoverable",
                                  exception_type="the platform firmware reported a recoverable memory error")]},
     {"evidence.failures": [event(kind="firmware_memory_error", code_name="corrected")]}, {}),
    ("evidence-firmware-memory-corrected", "nccl",
     {"evidence.failures": [event(kind="firmware_memory_error", code_name="corrected",
                                  exception_type="the platform firmware reported a corrected memory error")]},
     {"evidence.failures": [event(kind="firmware_memory_error", code_name="fatal")]}, {}),
    ("evidence-npu-uce-repaired", "hccl",
     {"evidence.failures": [event(kind="npu_device_fault_repaired", code="507053", code_name="UCE ERROR",
                                  exception_type="UCE ERROR: repaired online")]},
     {"evidence.failures": [event(kind="npu_device_fault", code="507053", code_name="UCE ERROR")]}, {}),
    ("evidence-device-plugin-lost", "hccl",
     {"evidence.failures": [event(kind="device_plugin_lost", host="node-1",
                                  exception_type="the device plugin of huawei.com/Ascend910 stopped")]},
     {"evidence.failures": [event(kind="container_start_failure", host="node-1")]}, {}),
    ("evidence-container-start-failure", "hccl",
     {"evidence.failures": [event(kind="container_start_failure", host="node-1",
                                  exception_type="container vllm did not start")]},
     {"evidence.failures": [event(kind="device_plugin_lost", host="node-1")]}, {}),
    ("evidence-peer-timeout-signal", "nccl",
     {"evidence.failures": [event(kind="watchdog_progress", rank=5, remote_rank=2)]},
     {"evidence.failures": [event(kind="watchdog_progress", rank=5, remote_rank=2),
                            event(kind="watchdog_timeout", rank=0, seq=7, group="3 (tp_group)")]}, {}),
    ("evidence-npu-fault-event-alarm", "hccl",
     {"evidence.failures": [event(kind="npu_fault_event", device=0, code="0x80f78003", code_name="Alarm",
                                  exception_type="Alarm: HWTS/Stars-TS 0: internal config error")]},
     {"evidence.failures": [event(kind="npu_fault_event", device=0, code="0x80cb8002", code_name="Warning")]}, {}),
    ("evidence-npu-fault-event-warning", "hccl",
     {"evidence.failures": [event(kind="npu_fault_event", device=0, code="0x80cb8002", code_name="Warning",
                                  exception_type="Warning: AIV 6: input error")]},
     {"evidence.failures": [event(kind="npu_fault_event", device=0, code="0x80f78003", code_name="Alarm")]}, {}),
    ("evidence-rdma-perftest", "nccl",
     {"evidence.hca_ports": [_perftest("mlx5_0", 92.57)]},
     {"evidence.hca_ports": [{**_perftest("mlx5_0", 92.57), "perftest": None}]}, {}),
    ("evidence-rdma-perftest-failed", "nccl",
     {"evidence.hca_ports": [_perftest("mlx5_0", None, failed="Couldn't connect to 10.0.0.2:18515")]},
     {"evidence.hca_ports": [_perftest("mlx5_0", 92.57)]}, {}),
    ("evidence-rdma-perftest-slow", "nccl",
     {"evidence.hca_ports": [_perftest("mlx5_0", 92.57), _perftest("mlx5_1", 40.1)]},
     {"evidence.hca_ports": [_perftest("mlx5_0", 92.57), _perftest("mlx5_1", 90.0)]}, {}),
]  # fmt: skip


def _evaluate(changes: dict[str, Any], backend: str) -> RulesOutcome:
    facts, config, rules_cfg = patched(changes, backend)
    return engine.evaluate(RULES, facts, config=config, rules_cfg=rules_cfg)


def test_every_builtin_rule_has_a_case() -> None:
    assert len(RULES.rules) >= 25
    assert sorted(r.id for r in RULES.rules) == sorted({c[0] for c in CASES})


def test_healthy_facts_raise_only_the_sweep_summary() -> None:
    for backend in ("hccl", "nccl", "gloo"):
        out = _evaluate({}, backend)
        assert [f.rule_id for f in out.findings] == ["sweep-best-settings"], backend
        assert [n.rule_id for n in out.not_evaluated] == []


def _ids(cases: list[tuple[str, ...]]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for c in cases:
        seen[c[0]] = seen.get(c[0], 0) + 1
        out.append(c[0] if seen[c[0]] == 1 else f"{c[0]}-{seen[c[0]]}")
    return out


@pytest.mark.parametrize(
    ("rule_id", "backend", "fire", "quiet", "expected"), CASES, ids=_ids(CASES)
)
def test_rule_fires_and_stays_quiet(
    rule_id: str,
    backend: str,
    fire: dict[str, Any],
    quiet: dict[str, Any],
    expected: dict[str, Any],
) -> None:
    fired = _evaluate(fire, backend)
    by_id = {f.rule_id: f for f in fired.findings}
    assert rule_id in by_id, (rule_id, fired.not_evaluated, fired.passed)
    finding = by_id[rule_id]
    assert finding.message and "{{" not in finding.message
    assert all(item and "{{" not in item for item in finding.items)
    assert not finding.notes, finding.notes
    assert finding.evidence, "a finding records the facts it read"
    got = {
        r.name: (None if r.unset else r.value)
        for r in finding.recommendations
        if r.kind != "advice"
    }
    assert got == expected

    calm = _evaluate(quiet, backend)
    still = [f.message for f in calm.findings if f.rule_id == rule_id]
    why_not = [n.reason for n in calm.not_evaluated if n.rule_id == rule_id]
    assert rule_id in calm.passed, (still, why_not)


def test_shared_affinity_is_no_finding_on_an_emulated_cluster() -> None:
    """Emulated ranks share this host's cores by construction: not the cluster's problem."""
    real = _evaluate({"topology.shared_affinity": _SHARED}, "hccl")
    emulated = _evaluate({"topology.shared_affinity": _SHARED, "cluster.emulated": True}, "hccl")
    assert "topology-shared-affinity" in {f.rule_id for f in real.findings}
    assert "topology-shared-affinity" not in {f.rule_id for f in emulated.findings}


def test_hccl_algo_rule_reads_native_variants_by_their_hccl_algo() -> None:
    """The bench names native variants native[<variant>]; the rule maps them to level1 names."""
    variants = {
        "hccl-ring": {"HCCL_ALGO": "level0:NA;level1:ring"},
        "hccl-NHR": {"HCCL_ALGO": "level0:NA;level1:NHR"},
    }
    fixed_ring = {"env.HCCL_ALGO": "level0:NA;level1:ring", "bench.variants": variants}
    same = _evaluate(
        {**fixed_ring, "bench.best_algorithm": {"all_reduce": {"1024": "native[hccl-ring]"}}},
        "hccl",
    )
    assert "hccl-algo-fixed-not-best" not in {f.rule_id for f in same.findings}
    other = _evaluate(
        {**fixed_ring, "bench.best_algorithm": {"all_reduce": {"1024": "native[hccl-NHR]"}}}, "hccl"
    )
    (finding,) = [f for f in other.findings if f.rule_id == "hccl-algo-fixed-not-best"]
    assert [r.value for r in finding.recommendations if r.name == "HCCL_ALGO"] == [
        "level0:NA;level1:NHR"
    ]


def test_an_emulated_run_raises_no_performance_finding_and_marks_its_advice() -> None:
    """On an emulated run the performance rules do not apply (they are listed as such), and the
    settings drawn from emulated measurements carry the mark into every output."""
    from advisor.rules import outputs

    slow = {
        "sweep.trials.0.exposed_comm_share": 0.76,
        "sweep.scaling.1.efficiency": 0.08,
        "bench.utilisation": {"all_reduce/native/fp32": 0.02},
    }
    real = _evaluate(slow, "hccl")
    assert {"training-comm-share-high", "training-scaling-efficiency-low"} <= {
        f.rule_id for f in real.findings
    }
    assert not any(f.emulated for f in real.findings)
    emulated = _evaluate({**slow, "cluster.emulated": True}, "hccl")
    by_id = {f.rule_id: f for f in emulated.findings}
    performance = {"training-comm-share-high", "training-scaling-efficiency-low",
                   "bench-busbw-utilisation-low"}  # fmt: skip
    assert not performance & set(by_id)
    skipped = {s.rule_id: s.reason for s in emulated.skipped}
    assert all("emulated" in skipped[r] for r in performance)
    best = by_id["sweep-best-settings"]
    assert best.emulated and "EMULATED" in best.message
    assert all(r.emulated for r in best.recommendations)
    assert {s.name for s in emulated.settings if s.emulated} >= {"batch_size", "comm_hook"}
    settings = outputs.settings_yaml(emulated, "r")
    before_batch = settings.split("batch_size:")[0].rsplit("\n", 3)
    assert any("EMULATED" in line for line in before_batch), settings
    # checks of layouts, timeouts and settings stay as they are
    timeouts = _evaluate({"env.HCCL_CONNECT_TIMEOUT": "60", "cluster.emulated": True}, "hccl")
    hit = {f.rule_id: f for f in timeouts.findings}["hccl-connect-timeout-range"]
    assert hit.severity == "warning" and not hit.emulated


@pytest.mark.parametrize(
    ("rule_id", "changes"),
    [
        ("bench-busbw-utilisation-low", {"bench.utilisation": {"all_reduce/native/fp32": 0.02}}),
        ("connectivity-inter-bandwidth-low", {"connectivity.links.inter.median_gbps": 0.5}),
        ("connectivity-intra-bandwidth-low", {"connectivity.links.intra.median_gbps": 0.5}),
        ("topology-slow-links", {"topology.slow_links": _SLOW}),
    ],
)
def test_bandwidth_against_nominal_is_no_finding_when_emulated(
    rule_id: str, changes: dict[str, Any]
) -> None:
    """Emulated bandwidth is this host's loopback: comparing it with the declared links says nothing."""
    assert rule_id in {f.rule_id for f in _evaluate(changes, "hccl").findings}
    emulated = _evaluate({**changes, "cluster.emulated": True}, "hccl")
    assert rule_id not in {f.rule_id for f in emulated.findings}
