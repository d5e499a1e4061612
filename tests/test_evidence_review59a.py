"""Review 59 of round MMMM (sets 661-663, the launcher-exit and ping-loss commits), faults 1, 2
and 3: npu-smi info's process table copied with its own header row; a flood ping bounded by -c
that ended on its count; the flood ping gathered with pdsh, ``gpu01: `` before each line: each
on its input (tests/data/review59, described in tests/data/SOURCES.md)."""

from __future__ import annotations

from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.parsers import netif
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review59"
TABLE = REVIEW / "npu_smi_process_table_with_its_header_row_npu0_1_no_running_processes.txt"
JUDGED = (
    DATA
    / "evidence_heldout_73"
    / "npu_smi_process_table_only_no_running_processes_npu0_to_5_vllm_ascend3289_cut.txt"
)
COUNTED = REVIEW / "ping_flood_count_2240_ended_on_count_2239_received_machineshop30_variant.txt"
PDSH = REVIEW / "ping_flood_ctrlc_pdsh_gpu01_prefix_2117_of_2240_machineshop30_variant.txt"
FLOOD = DATA / "evidence" / "ping_flood_ctrlc_2240_sent_2117_received_5pct_loss_machineshop30.txt"


def _write(tmp_path: Path, text: str) -> EvidenceFacts:
    path = tmp_path / "copy.txt"
    path.write_text(text)
    return load_paths([path])


def _idle_note(ev: EvidenceFacts) -> str:
    (note,) = [m.message for m in ev.files[0].messages if "process table" in m.message]
    return note


# fault 1: the process table with its header row


def test_process_table_with_its_header_row_is_read_as_the_judged_copy() -> None:
    ev = load_paths([TABLE])
    assert ev.files[0].status == "read" and ev.files[0].formats == ["ascend_notes"]
    assert not [m for m in ev.files[0].messages if "no readable chip" in m.message]
    assert _idle_note(ev).endswith("no process running on NPU 0, 1")
    assert heldout.imported(ev)[0] == "READY"


def test_judged_process_table_from_its_border_still_read() -> None:
    ev = load_paths([JUDGED])
    assert ev.files[0].status == "read" and ev.files[0].formats == ["ascend_notes"]
    assert _idle_note(ev).endswith("no process running on NPU 0, 1, 2, 3, 4, 5")


def test_header_row_without_the_border_above_it_is_read(tmp_path: Path) -> None:
    # the copy started on the header row itself (its top border left out), indented
    text = "\n".join("  " + line for line in TABLE.read_text().splitlines()[1:]) + "\n"
    ev = _write(tmp_path, text)
    assert ev.files[0].status == "read" and ev.files[0].formats == ["ascend_notes"]
    assert _idle_note(ev).endswith("no process running on NPU 0, 1")


def test_whole_npu_smi_info_table_is_still_the_chip_table_reader_s() -> None:
    # a whole table (its banner first) is not the process table alone: npu_smi_info reads it
    whole = next(
        p for p in sorted((DATA / "evidence").glob("npu_smi*.txt")) if "| npu-smi" in p.read_text()
    )
    ev = load_paths([whole])
    assert "npu_smi_info" in ev.files[0].formats


# fault 2: a counted flood run ends on its count, its outstanding replies waited for


def test_counted_flood_run_that_ended_on_its_count_warns_of_the_loss() -> None:
    (run,) = netif.parse_ping(COUNTED.read_text())
    assert not run.stopped_early
    ev = load_paths([COUNTED])
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-host-ping-loss", "warning")]
    _, (item,) = heldout.finding(outcome, "evidence-host-ping-loss")
    assert "1 of 2240 request(s) got no reply (0.0446429% loss)" in item
    assert "in flight" not in item
    assert not [m for m in ev.files[0].messages if "in flight" in m.message]


def test_counted_flood_run_stopped_by_ctrl_c_or_deadline_keeps_its_allowance(
    tmp_path: Path,
) -> None:
    text = COUNTED.read_text()
    # ^C before the count was reached: the last request may have been in flight
    stopped = text.replace("\n.\n", "\n.^C\n", 1)
    assert netif.parse_ping(stopped)[0].stopped_early
    assert not [f for f in _write(tmp_path, stopped).failures if f["kind"] == "host_ping_loss"]
    # a -w deadline with the count (and the options run together, "-fc")
    for cmd in ("ping -f -c 2240 -w 3", "ping -fc2240 -w3"):
        run = netif.parse_ping(text.replace("ping -f -c 2240", cmd))[0]
        assert run.stopped_early, cmd
    # "-fc 2240" alone is still a counted run
    assert not netif.parse_ping(text.replace("-f -c 2240", "-fc 2240"))[0].stopped_early


def test_real_flood_run_stopped_by_ctrl_c_reads_as_before() -> None:
    (run,) = netif.parse_ping(FLOOD.read_text())
    assert run.stopped_early and run.node is None
    _, (item,) = heldout.finding(
        heldout.imported(load_paths([FLOOD]))[1], "evidence-host-ping-loss"
    )
    assert item.startswith("ping lager.cs.illinois.edu (192.17.58.137): 123 of 2240")
    assert "up to 1 of them may have been in flight" in item


# fault 3: the flood run gathered with pdsh


def test_pdsh_prefixed_flood_run_warns_naming_its_node() -> None:
    ev = load_paths([PDSH])
    assert ev.files[0].status == "read" and ev.files[0].formats == ["ping"]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-host-ping-loss", "warning")]
    _, (item,) = heldout.finding(outcome, "evidence-host-ping-loss")
    assert item.startswith("gpu01: ping lager.cs.illinois.edu (192.17.58.137)")
    assert "123 of 2240 request(s) got no reply (5.49107% loss)" in item
    # the ^C behind the node's prefix still read: one may have been in flight
    assert "up to 1 of them may have been in flight" in item


def test_pdsh_two_nodes_each_run_read_with_its_node(tmp_path: Path) -> None:
    # two nodes through pdsh, one by its address, the second clean
    body = FLOOD.read_text().splitlines()
    clean = [
        line.replace("2117 received, 5.49107%", "2240 received, 0%").replace(".^C", "^C")
        for line in body
    ]
    text = "\n".join([f"gpu01: {line}" for line in body] + [f"10.0.0.12: {line}" for line in clean])
    runs = netif.parse_ping(text)
    assert [(r.node, r.sent, r.received) for r in runs] == [
        ("gpu01", 2240, 2117),
        ("10.0.0.12", 2240, 2240),
    ]
    ev = _write(tmp_path, text + "\n")
    losses = [f for f in ev.failures if f["kind"] == "host_ping_loss"]
    assert [f["message"] for f in losses] == ["gpu01: ping lager.cs.illinois.edu (192.17.58.137)"]
