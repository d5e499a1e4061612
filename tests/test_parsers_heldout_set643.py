"""Outputs of round JJJJ's held-out evaluation (set 643, Ascend tool outputs) that the advisor
read wrong or in part before this change (tests/data/evidence_heldout_70, sources in
tests/data/SOURCES.md): MindCluster FaultDiag's environment check of one 8-NPU host after a job,
whose NPU 0 and NPU 3 links' newest -link_stat record is LINK DOWN, READY WITH WARNINGS with
those ports filed as links that "came back"; the same host's check before the job, its warning
right but for the wrong reason: on both, torch 1.11.0 beside torch-npu 2.1.0.post8 and nnae
8.0.RC3 outside driver 23.0.7's compatible_version went unsaid, and every hccn_tool item cited
the port's -ip -g block instead of the -link_stat or -stat lines it spoke of."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_70"

AFTER = "npu_env_check_hccn_tool_23.0.7_roce_err_pkts_dev5_dev6_link_down_dev0_dev3_mindcluster_worker0_after.txt"
BEFORE = "npu_env_check_hccn_tool_23.0.7_8_npus_ips_set_zero_roce_errors_one_old_flap_each_mindcluster_worker0_before.txt"

TORCH_SAID = (
    "torch-npu 2.1.0.post8.dev20241009 (line 51) is built for PyTorch 2.1.0, but torch 1.11.0 "
    "is installed (line 47)"
)
# (review 55 fault 4: nnae 8.0.RC3's own compatible_version, [V100R001C13,V100R001C19] on line 40,
# names driver 23.0.7's V100R001C15, so the driver's list leaving C19 out is no mismatch; the
# torch pair is the one part said, tests/test_evidence_review55b.py)


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="npu_info.txt")


def _port(ev: EvidenceFacts, device: int) -> dict[str, object]:
    (port,) = [p for p in ev.npu_ports if p["device"] == device]
    return port


def _stack(ev: EvidenceFacts) -> list[str]:
    return [m["said"] for m in ev.package_stack]


# --- after the job: two links down now, two ports with RoCE error packets ---------------------


def test_a_port_whose_newest_link_stat_record_is_down_is_down_now() -> None:
    ev = _load(AFTER)
    assert ev.files[0].formats == ["hccn_tool", "ascend_versions"]
    for device, line in ((0, 134), (3, 159)):
        port = _port(ev, device)
        assert port["link"] == "DOWN"
        assert port["link_down_since"] == "Tue Aug  1 14:44:40 2022"
        assert port["link_down_line"] == line
    # the others' newest record is UP: their link is not said down (no -link -g in the file)
    for device in (1, 2, 4, 5, 6, 7):
        assert _port(ev, device)["link"] is None
        assert _port(ev, device)["link_down_since"] is None
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [
        ("evidence-npu-port-down", "critical"),
        ("evidence-npu-link-flaps", "warning"),
        ("evidence-ascend-stack-mismatch", "warning"),
        ("evidence-npu-roce-errors", "warning"),
    ]
    down = heldout.items(outcome, "evidence-npu-port-down")
    assert len(down) == 2
    assert down[0].startswith("NPU 0 link DOWN since Tue Aug 1 14:44:40 2022")
    assert down[0].endswith(f"{AFTER}, line 134)")
    assert down[1].startswith("NPU 3 link DOWN since Tue Aug 1 14:44:40 2022")
    assert down[1].endswith(f"{AFTER}, line 159)")
    # a port down now is not among the links that "came back"; the others' one drop at
    # bring-up is, citing its DOWN record
    flaps = heldout.items(outcome, "evidence-npu-link-flaps")
    assert [i.split(":")[0] for i in flaps] == [f"NPU {d}" for d in (1, 2, 4, 5, 6, 7)]
    assert flaps[0].endswith(f"{AFTER}, line 144)")
    assert flaps[-1].endswith(f"{AFTER}, line 193)")


def test_roce_error_counters_cite_their_own_lines() -> None:
    ev = _load(AFTER)
    assert _port(ev, 5)["stat_errors"] == {"roce_rx_err_pkt_num": 11, "roce_tx_err_pkt_num": 12}
    assert _port(ev, 5)["stat_error_lines"] == [117, 118]
    assert _port(ev, 6)["stat_errors"] == {"roce_rx_err_pkt_num": 13, "roce_tx_err_pkt_num": 77}
    assert _port(ev, 6)["stat_error_lines"] == [122, 123]
    _, outcome = heldout.imported(ev)
    items = heldout.items(outcome, "evidence-npu-roce-errors")
    assert items == [
        f"NPU 5: roce_rx_err_pkt_num 11, roce_tx_err_pkt_num 12 ({HELDOUT / AFTER}, lines 117-118)",
        f"NPU 6: roce_rx_err_pkt_num 13, roce_tx_err_pkt_num 77 ({HELDOUT / AFTER}, lines 122-123)",
    ]


def test_the_version_mismatches_are_said_after_the_job() -> None:
    ev = _load(AFTER)
    assert _stack(ev) == [TORCH_SAID]
    # toolkit 7.0.T10 (V100R001C13) is among the driver's list: not said
    assert not any("7.0.T10" in s for s in _stack(ev))
    _, outcome = heldout.imported(ev)
    items = heldout.items(outcome, "evidence-ascend-stack-mismatch")
    assert [i.split(" (/")[0] for i in items] == [TORCH_SAID]


# --- before the job: the network healthy, the software stack mismatched ----------------------


def test_before_the_job_the_warning_is_the_software_stack() -> None:
    ev = _load(BEFORE)
    assert ev.files[0].formats == ["hccn_tool", "ascend_versions"]
    assert all(p["link"] is None and p["link_down_since"] is None for p in ev.npu_ports)
    assert all(not p["stat_errors"] for p in ev.npu_ports)
    assert _stack(ev) == [TORCH_SAID]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [
        ("evidence-npu-link-flaps", "warning"),
        ("evidence-ascend-stack-mismatch", "warning"),
    ]
    flaps = heldout.items(outcome, "evidence-npu-link-flaps")
    assert len(flaps) == 8
    # each cites its -link_stat DOWN record (lines 130-192), not the -ip -g block (58-86)
    cited = [int(i.rsplit("line ", 1)[1].rstrip(")")) for i in flaps]
    assert cited == [135, 143, 151, 159, 167, 175, 183, 191]
    assert all(130 <= at <= 192 for at in cited)


# --- variants built from the real text -------------------------------------------------------


_text = partial(heldout.text, HELDOUT)


def test_another_device_down_now_is_named(tmp_path: Path) -> None:
    # NPU 6's newest record turned DOWN: NPU 6 is down, cited at its own record
    text = _text(BEFORE)
    old = "[devid 6]link change records :\n"
    assert old in text
    text = text.replace(old, old + "[devid 6]    Wed Aug  2 01:02:03 2022    LINK DOWN\n")
    ev = _write(tmp_path, text)
    port = _port(ev, 6)
    assert (port["link"], port["link_down_since"]) == ("DOWN", "Wed Aug  2 01:02:03 2022")
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-npu-port-down")
    line = text.splitlines().index("[devid 6]    Wed Aug  2 01:02:03 2022    LINK DOWN") + 1
    assert item.startswith("NPU 6 link DOWN since Wed Aug 2 01:02:03 2022")
    assert item.endswith(f", line {line})")


def test_a_link_g_answer_of_up_stands_over_the_records(tmp_path: Path) -> None:
    # the port answered UP to -link -g after its records: that answer is its state
    text = (
        _text(AFTER)
        + "\n\n/usr/local/Ascend/driver/tools/hccn_tool -i 0 -link -g\nlink status: UP\n"
    )
    ev = _write(tmp_path, text)
    assert _port(ev, 0)["link"] == "UP"
    _, outcome = heldout.imported(ev)
    (item,) = heldout.items(outcome, "evidence-npu-port-down")
    assert item.startswith("NPU 3 ")


def test_a_matched_stack_says_nothing(tmp_path: Path) -> None:
    # the healthy twin: torch 2.1.0 under torch-npu 2.1.0.post8, nnae of a release the driver
    # lists (C15), every port's newest record UP and no RoCE errors apart from the bring-up
    # drop: only the flaps warning stays
    text = _text(BEFORE).replace("torch              1.11.0", "torch              2.1.0")
    text = text.replace("innerversion=V100R001C19SPC001B137", "innerversion=V100R001C15SPC001B137")
    ev = _write(tmp_path, text)
    assert _stack(ev) == []
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-npu-link-flaps", "warning")]


def test_a_stack_alone_healthy_host_is_ready(tmp_path: Path) -> None:
    # the version lines alone, matched: READY; torch 2.1.0+cpu is still PyTorch 2.1.0, and a
    # range entry [V100R001C13,V100R001C19] of the driver names C19
    text = "\n".join(_text(BEFORE).splitlines()[:56]) + "\n"
    text = text.replace("torch              1.11.0", "torch              2.1.0+cpu")
    text = text.replace(
        "compatible_version=[V100R001C29],[V100R001C30],[V100R001C13],[V100R001C15]",
        "compatible_version=[V100R001C29],[V100R001C30],[V100R001C13,V100R001C19]",
    )
    ev = _write(tmp_path, text)
    assert ev.npu_ports == []
    assert _stack(ev) == []
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_another_hosts_torch_pair_is_said_with_its_versions(tmp_path: Path) -> None:
    # pip freeze's form, another pair: torch_npu 2.4.0 is built for 2.4.0, torch 2.3.1 beside it
    text = "torch==2.3.1\ntorch_npu==2.4.0.post2\n"
    path = tmp_path / "node7" / "pip_freeze.txt"
    path.parent.mkdir()
    path.write_text(
        "cat /usr/local/Ascend/driver/version.info\nVersion=24.1.0\n"
        "Innerversion=V100R001C20SPC001B100\ncompatible_version=[V100R001C20]\n\n" + text
    )
    ev = load_paths([path])
    assert _stack(ev) == [
        "torch-npu 2.4.0.post2 (line 7) is built for PyTorch 2.4.0, but torch 2.3.1 is installed "
        "(line 6)"
    ]
