"""Outputs the eighth held-out evaluation misread: the root (server) side of a failed HCCL
cluster negotiation, the pid and HcclResult of plog lines with no error code, and an
nvidia-smi matrix copied with two header names run together.

Samples: ``tests/data/evidence_heldout_12/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from functools import partial

from advisor.parsers import logs, nvidia_smi
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_12"


_text = partial(heldout.text, HELDOUT)


def test_root_side_negotiation_time_out_with_its_connected_count() -> None:
    (ev,) = logs.parse(_text("hccl_negotiation_server.log")).events
    assert (ev.kind, ev.line, ev.timeout_ms, ev.pid) == (
        "hccl_negotiation_failure", 1, 720_000, 10261,
    )  # fmt: skip
    assert ev.exception_type == "root waited for ranks that never connected"
    assert ev.message.endswith("total connected num is [15]")


def test_agent_side_negotiation_names_the_missing_rank_and_the_pid() -> None:
    (ev,) = logs.parse(_text("hccl_negotiation_agent.log")).events
    assert (ev.line, ev.missing_ranks, ev.rank_size, ev.pid) == (1, [9], 4, 350697)


def test_link_time_out_takes_its_hccl_result_from_the_ret_line() -> None:
    (ev,) = logs.parse(_text("hccl_link_ret.log")).events
    assert (ev.kind, ev.rank, ev.remote_rank, ev.remote_ip, ev.port, ev.timeout_ms) == (
        "hccl_link_timeout", 0, 1, "192.168.2.198", 16666, 120_000,
    )  # fmt: skip
    assert (ev.code_name, ev.pid) == ("HCCL_E_TIMEOUT", 3977573)


def test_merged_header_names_keep_the_affinity_columns_right() -> None:
    topo = nvidia_smi.parse_topo(_text("nvidia_smi_topo_merged_header.txt"))
    assert topo.cpu_affinity["GPU0"] == "0-31,64-95"
    assert topo.cpu_affinity["GPU7"] == "32-63,96-127"
    assert topo.numa_affinity["GPU4"] == "1"
    # the header ran NIC2 and NIC3 together, and rows GPU2/3 and NIC0 two cells: each is split
    # into its parts (said on its line), so every link sits under its own device
    assert [w.line for w in topo.warnings if "run together" in w.message] == [2, 5, 6, 11]
    assert (topo.links["GPU0"]["NIC2"], topo.links["GPU0"]["NIC3"]) == ("PXB", "NODE")
    assert (topo.links["GPU2"]["NIC2"], topo.links["GPU2"]["NIC3"]) == ("NODE", "PXB")
    assert (topo.links["GPU4"]["NIC8"], topo.links["NIC0"]["NIC3"]) == ("NODE", "NODE")
