"""NVIDIA copy benchmarks and DCGM's NVLink states of this stop's held-out evaluation
(tests/data/evidence_heldout_46, sources in tests/data/SOURCES.md): nvbandwidth, the CUDA
samples' p2pBandwidthLatencyTest, ``dcgmi nvlink --link-status``."""

from __future__ import annotations

from functools import partial

from advisor.evidence.load import EvidenceFacts, detect, load_text
from advisor.parsers import dcgm, nvbandwidth, p2p_bandwidth
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import finding_items

HELDOUT = DATA / "evidence_heldout_46"


_load = partial(heldout.load, HELDOUT)


def _items(ev: EvidenceFacts) -> dict[str, list[str]]:
    return finding_items(
        {"evidence.gpu_copy": ev.gpu_copy, "evidence.nvlink_states": ev.nvlink_states}, "nccl"
    )


def test_an_nvbandwidth_test_that_aborted_on_its_data_check_is_a_failure_naming_the_test() -> None:
    ev = _load("nvbandwidth19_l40s_one_to_all_read_sm_aborted.txt")
    assert ev.files[0].formats == ["nvbandwidth"]
    (run,) = ev.gpu_copy
    assert (run["version"], run["driver"], run["cuda_runtime"]) == ("v0.4", "535.154.05", "12020")
    assert [d["name"] for d in run["devices"]] == ["NVIDIA L40S"] * 8
    assert run["matrices"] == []  # no bandwidth was reported
    (failed,) = run["failed"]
    assert (failed["line"], failed["test"], failed["offset"]) == (
        21,
        "one_to_all_read_sm",
        "58496 of 66306048",
    )
    assert failed["message"] == (
        "Invalid value when checking the pattern at <0x7fac6200e480>; Aborted (core dumped)"
    )
    (item,) = _items(ev)["evidence-gpu-copy-test-failed"]
    assert item.startswith("one_to_all_read_sm: Invalid value when checking the pattern")
    assert "8 device(s): NVIDIA L40S, driver 535.154.05" in item


def test_an_nvbandwidth_assert_after_the_pattern_check_names_the_test_and_the_assert() -> None:
    ev = _load("nvbandwidth34_a100_d2d_read_ce_assert.txt")
    (run,) = ev.gpu_copy
    assert run["devices"][4] == {
        "index": 4,
        "name": "NVIDIA A100-SXM4-80GB",
        "bus_id": "00000000:9b:00",
    }
    (failed,) = run["failed"]
    assert failed["test"] == "device_to_device_memcpy_read_ce"
    assert failed["offset"] == "11136"
    # the assert's expression and source line, not the reporter's build directory
    assert failed["message"].endswith("ASSERT in expression h_errorFlag == 0 (memcpy.cpp:165)")
    (item,) = _items(ev)["evidence-gpu-copy-test-failed"]
    assert "device_to_device_memcpy_read_ce" in item and "(offset 11136)" in item


def test_an_nvbandwidth_matrix_is_read_with_its_sum_and_shown_as_a_note() -> None:
    # the test's Running line is behind the reporter's "...": the SUM line names it
    ev = _load("nvbandwidth50_a6000_d2d_read_ce_6gpu.txt")
    (run,) = ev.gpu_copy
    (matrix,) = run["matrices"]
    assert matrix["test"] == "device_to_device_memcpy_read_ce"
    assert matrix["sum"] == 715.53
    assert matrix["columns"] == ["0", "1", "2", "3", "4", "5"]
    assert matrix["rows"]["0"]["0"] is None  # N/A: a GPU to itself is not measured
    assert matrix["rows"]["3"]["5"] == 26.35
    assert run["failed"] == [] and "evidence-gpu-copy-test-failed" not in _items(ev)
    notes = [m.message for m in ev.files[0].messages]
    assert any("lowest 21.8 GB/s (0->5), highest 26.35 GB/s" in n for n in notes)
    assert any(n.startswith("nvbandwidth: a '...'") for n in notes)


def test_nvbandwidth_rows_that_do_not_fit_their_matrix_are_said_not_guessed() -> None:
    text = (HELDOUT / "nvbandwidth50_a6000_d2d_read_ce_6gpu.txt").read_text()
    cut = text.replace(
        " 2     26.34     26.35       N/A     22.36     21.87     22.17\n", " 2  26.3\n"
    )
    cut = cut.split("\nSUM ")[0]
    run, notes = nvbandwidth.parse(cut)
    (matrix,) = run.matrices
    assert sorted(matrix.rows) == ["0", "1", "3", "4", "5"]
    assert matrix.sum is None and matrix.test is None
    assert any(n.line == 14 and "has 1 figures for 6 columns" in n.message for n in notes)
    assert any("no SUM line under it" in n.message for n in notes)


def test_p2p_enabled_at_half_the_disabled_bandwidth_is_a_warning_on_every_pair() -> None:
    ev = _load("nccl814_p2pBandwidthLatencyTest_6gpu_cut.txt")
    assert ev.files[0].formats == ["p2p_bandwidth"]
    (run,) = ev.gpu_copy
    titles = [m["title"] for m in run["matrices"]]
    assert titles == [
        "Unidirectional P2P=Disabled Bandwidth",
        "Unidirectional P2P=Enabled Bandwidth (P2P Writes)",
        "Unidirectional P2P=Enabled Bandwidth (P2P Reads)",
    ]
    assert run["matrices"][0]["rows"]["0"]["0"] == 911.08  # the diagonal: a copy inside a GPU
    assert run["complete"] is False
    # every one of the 30 ordered pairs, in both the writes and the reads matrix
    assert len(run["p2p_slower"]) == 60
    first = run["p2p_slower"][0]
    assert (first["a"], first["b"], first["enabled_gbytes_s"], first["disabled_gbytes_s"]) == (
        0,
        1,
        9.9,
        20.1,
    )
    assert max(p["ratio"] for p in run["p2p_slower"]) <= 0.5
    (item,) = _items(ev)["evidence-p2p-slower-than-host-path"]
    assert "(P2P Writes): 0->1 9.9 vs 20.1 GB/s" in item
    assert "(P2P Reads): 0->1 9.9 vs 20.1 GB/s" in item
    notes = [m.message for m in ev.files[0].messages]
    assert any(
        "Bidirectional P2P=Disabled Bandwidth" in n
        and "P2P=Enabled Latency (P2P Reads) not in it" in n
        and "no device list" in n
        for n in notes
    )


def test_a_p2p_matrix_cut_inside_its_rows_is_said() -> None:
    text = (HELDOUT / "nccl814_p2pBandwidthLatencyTest_6gpu_cut.txt").read_text()
    run, notes = p2p_bandwidth.parse("\n".join(text.splitlines()[:5]))
    (matrix,) = run.matrices
    assert sorted(matrix.values) == [0, 1, 2]
    assert any("lists 3 of its 6 GPUs' rows" in n.message for n in notes)


def test_dcgmi_link_status_every_link_down_on_both_gpus() -> None:
    ev = _load("dcgm198_dcgmi_nvlink_link_status_all_down.txt")
    assert ev.files[0].formats == ["dcgmi_nvlink"]
    assert [(s["entity"], s["id"], s["line"]) for s in ev.nvlink_states] == [
        ("gpu", 0, 5),
        ("gpu", 1, 7),
    ]
    for state in ev.nvlink_states:
        assert state["down"] == list(range(18))
        assert (state["up"], state["disabled"], state["supported"]) == ([], [], 18)
        assert state["all_down"] is True
    items = _items(ev)["evidence-dcgmi-nvlink-down"]
    assert [i.split(" (")[0] for i in items] == [
        "GPU 0: every link down",
        "GPU 1: every link down",
    ]
    assert items[0].startswith("GPU 0: every link down (18 of 18) (")
    assert items[1].endswith("dcgm198_dcgmi_nvlink_link_status_all_down.txt, line 7)")


def test_dcgmi_link_status_cut_after_a_gpu_line_is_said_and_not_supported_slots_are_no_links() -> (
    None
):
    text = (HELDOUT / "dcgm198_dcgmi_nvlink_link_status_all_down.txt").read_text()
    mixed = text.replace(
        "        D D D D D D D D D D D D D D D D D D\n    gpuId 1:",
        "        U U U D U U U U _ _ _ _ _ _ _ _ _ _\n    gpuId 1:",
    )
    statuses, notes = dcgm.parse_link_status(mixed.split("        D D D")[0])
    (gpu0,) = statuses
    assert (gpu0.links("D"), len(gpu0.links("U"))) == ([3], 7)
    assert notes[0].line == 7 and "ends before its link states" in notes[0].message
    ev = load_text(mixed, "dcgmi.txt")
    gpu0_fact = ev.nvlink_states[0]
    assert (gpu0_fact["supported"], gpu0_fact["all_down"]) == (8, False)


def test_the_formats_are_found_wherever_the_output_sits_in_a_file() -> None:
    for name, fmt in (
        ("nvbandwidth34_a100_d2d_read_ce_assert.txt", "nvbandwidth"),
        ("nccl814_p2pBandwidthLatencyTest_6gpu_cut.txt", "p2p_bandwidth"),
        ("dcgm198_dcgmi_nvlink_link_status_all_down.txt", "dcgmi_nvlink"),
    ):
        text = (HELDOUT / name).read_text()
        assert fmt in detect("$ some other command\nits answer\n\n" + text + "\n$ exit\n")
