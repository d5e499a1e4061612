"""Review 62 (part a) fault 5: ``npu-smi info -t hccs`` and ``-t ecc-enable`` answers behind
pdsh's "host: " (``pdsh -w node07 npu-smi info -t hccs -i 3 -c 0``) were not read at all, for the
loader took pdsh's prefix off box tables only. pdsh's one-host prefix is now taken off in one
place where no format shows with it and one does without it, and its host is named as the file's;
nccl-tests' reader and nvsm's use the same helper (advisor.parsers.without_one_pdsh_host,
pdsh_by_host). Each on variants of real files (tests/data/evidence_heldout_76, review61),
prefixed as plain pdsh prints them (dshbak(1): "the leading node: is stripped", by dshbak only)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import load_paths
from advisor.parsers import pdsh_by_host, without_one_pdsh_host
from advisor.rules.findings import RulesOutcome
from tests import heldout
from tests.conftest import DATA

HCCS = (
    DATA
    / "evidence_heldout_76"
    / "npu_smi_t_hccs_910b_driver25.3.rc1_health_nok_zero_links_zero_bw_bmc_isolated_zstack_cut.txt"
)
ECC = DATA / "review61" / "npu_smi_t_ecc_enable_i_2_atlas910_ddr_true_then_hbm_false.txt"
NCCL_SOCKET = (
    DATA
    / "evidence_heldout_76"
    / "nccl_docker_deepspeed_ibv_open_device_failed_mlx5_bond_0_fallback_net_socket_bond0_nccl451"
    "_cut.log"
)

_write = partial(heldout.load_copy, name="copy.txt")


def _pdsh(text: str, host: str) -> str:
    """``text`` as plain pdsh prints one node's output: "host: " before every line, a blank line
    "host:" alone."""
    return "".join(
        f"{host}: {line}" if line.strip() else f"{host}:\n"
        for line in text.splitlines(keepends=True)
    )


def _items_of(outcome: RulesOutcome, rule_id: str, path: Path) -> list[str]:
    """A finding's items with the file's path left out (the copy and the real file differ)."""
    return [item.replace(str(path), "FILE") for item in heldout.items(outcome, rule_id)]


def _said(ev_notes: list[str]) -> list[str]:
    return [n for n in ev_notes if "pdsh's host prefix" in n]


def test_hccs_answer_behind_pdsh_reads_as_without_it_and_names_its_host(tmp_path: Path) -> None:
    text = HCCS.read_text()
    bare = load_paths([HCCS])
    ev = _write(tmp_path, _pdsh(text, "node07"))
    (report,) = ev.files
    assert report.status == "read" and report.formats == bare.files[0].formats
    notes = [m.message for m in report.messages]
    assert _said(notes) == [
        f"pdsh's host prefix 'node07: ' taken off all {len(text.strip().splitlines())} line(s) "
        "before reading"
    ]
    # the same findings, their lines the file's
    level, outcome = heldout.imported(ev)
    bare_level, bare_outcome = heldout.imported(bare)
    assert (level, heldout.above_info(outcome)) == (bare_level, heldout.above_info(bare_outcome))
    assert level == "NOT READY"
    assert _items_of(outcome, "evidence-npu-hccs-down", tmp_path / "copy.txt") == _items_of(
        bare_outcome, "evidence-npu-hccs-down", HCCS
    )
    # the host pdsh named is the file's host
    assert [h["host"] for h in ev.hosts if h["named"]] == ["node07"]


def test_ecc_answer_behind_pdsh_reads_its_hbm_ecc_off(tmp_path: Path) -> None:
    ev = _write(tmp_path, _pdsh(ECC.read_text(), "10.0.0.7"))
    level, outcome = heldout.imported(ev)
    bare_level, bare_outcome = heldout.imported(load_paths([ECC]))
    assert level == bare_level == "READY WITH WARNINGS"
    assert _items_of(outcome, "evidence-npu-chip-health", tmp_path / "copy.txt") == _items_of(
        bare_outcome, "evidence-npu-chip-health", ECC
    )
    assert [h["host"] for h in ev.hosts if h["named"]] == ["10.0.0.7"]


def test_two_hosts_interleaved_are_not_taken_for_one(tmp_path: Path) -> None:
    """Two nodes' answers: no one host's prefix is taken off the other's lines."""
    lines = HCCS.read_text().splitlines(keepends=True)
    half = len(lines) // 2
    text = _pdsh("".join(lines[:half]), "node07") + _pdsh("".join(lines[half:]), "node08")
    ev = _write(tmp_path, text)
    assert not _said([m.message for m in ev.files[0].messages])
    assert without_one_pdsh_host(text) == (None, text)
    # (the per-host split still sees both)
    assert [h for h, _ in pdsh_by_host(text)] == ["node07", "node08"]


def test_a_log_behind_one_pdsh_host_keeps_its_prefixes_for_the_log_reader(tmp_path: Path) -> None:
    """A log is read with its prefixes (each line's host named by the log reader): the one-host
    strip is only for copies no format is seen in with the prefix."""
    ev = _write(tmp_path, _pdsh(NCCL_SOCKET.read_text(), "worker-1"))
    (report,) = ev.files
    assert report.formats == ["log"]
    assert not _said([m.message for m in report.messages])
    level, _ = heldout.imported(ev)
    assert level == heldout.imported(load_paths([NCCL_SOCKET]))[0]


def test_an_unprefixed_answer_is_untouched(tmp_path: Path) -> None:
    ev = _write(tmp_path, HCCS.read_text())
    assert not _said([m.message for m in ev.files[0].messages])
    assert not [h for h in ev.hosts if h["named"]]


def test_a_log_level_before_every_line_is_no_host(tmp_path: Path) -> None:
    """uvicorn's "INFO:     ..." before every line is a level, not pdsh's host: never named."""
    ev = _write(tmp_path, _pdsh(HCCS.read_text(), "INFO"))
    assert not _said([m.message for m in ev.files[0].messages])
    assert not [h for h in ev.hosts if h["named"]]
