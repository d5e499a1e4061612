"""Output of round NNNN's held-out evaluation (set 672, part b: framework logs on NVIDIA clusters)
that the advisor read in part before this change (tests/data/evidence_heldout_74, sources in
tests/data/SOURCES.md): a NeMo (Lightning) ASR job on two nodes of 8 GPUs whose nodes both took
themselves for node 0, so global ranks 1-7 each initialised twice and ranks 8-15 of the world of
16 never came; read only as a traceback cut short, the duplicate ranks not named (rank 0 shows
once there, so the ranks seen did not each come the same number of times)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_74"

NEMO = "nemo_asr_duplicate_global_ranks_16_members_trainer_fit_error_cut_nemo4338.log"

_write = partial(heldout.load_copy, name="copy.log")


def _text() -> str:
    return (HELDOUT / NEMO).read_text()


def _duplicates(ev: EvidenceFacts) -> list[tuple[int, int, int]]:
    return [
        (f["rank"], f["rank_size"], f["line"]) for f in ev.failures if f["kind"] == "duplicate_rank"
    ]


def test_ranks_two_nodes_both_started_as_node_0_are_duplicates() -> None:
    ev = load_paths([HELDOUT / NEMO])
    assert ev.files[0].status == "read"
    # each duplicated rank at its first line (lines 2-16 of the copy)
    assert _duplicates(ev) == [(1, 16, 3), (2, 16, 5), (3, 16, 6), (4, 16, 8), (5, 16, 9),
                               (6, 16, 13), (7, 16, 14)]  # fmt: skip
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert ("evidence-duplicate-rank", "critical") in heldout.above_info(outcome)
    items = heldout.items(outcome, "evidence-duplicate-rank")
    assert len(items) == 7
    assert items[0].startswith(
        "global rank 1 of 16 initialised 2 times, while 8 of the 16 ranks never came "
        "(ranks 8-15); its lines 3, 4"
    )
    assert "global rank 3 of 16 initialised 2 times" in items[2]
    assert "its lines 6, 12" in items[2]
    # rank 0, seen once, is no duplicate
    assert not [i for i in items if i.startswith("global rank 0 ")]
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-duplicate-rank"]
    assert any("NODE_RANK" in r.why for r in finding.recommendations if r.kind == "advice")


def test_three_nodes_of_four_all_at_node_0_name_the_others_missing(tmp_path: Path) -> None:
    # the same fault on three nodes of 4 GPUs (world 12), in Lightning 1.x's words: rank 0 once,
    # ranks 1-3 three times, side by side
    order = [0, 1, 2, 1, 3, 2, 1, 3, 2, 3]
    text = "".join(f"initializing ddp: GLOBAL_RANK: {r}, MEMBER: {r + 1}/12\n" for r in order)
    ev = _write(tmp_path, text)
    assert _duplicates(ev) == [(1, 12, 2), (2, 12, 3), (3, 12, 5)]
    (one,) = [f for f in ev.failures if f["kind"] == "duplicate_rank" and f["rank"] == 1]
    assert one["exception_type"] == (
        "global rank 1 of 12 initialised 3 times, while 8 of the 12 ranks never came "
        "(ranks 4-11); its lines 2, 4, 7"
    )
    assert heldout.imported(ev)[0] == "NOT READY"


def test_the_real_lines_behind_another_world_and_traceback(tmp_path: Path) -> None:
    # two nodes of 8 in a world of 32 (four nodes meant): the same lines, another world size
    text = _text().replace("/16", "/32").replace("train_bpe.py", "train_ctc.py")
    ev = _write(tmp_path, text)
    assert [r for r, _, _ in _duplicates(ev)] == [1, 2, 3, 4, 5, 6, 7]
    (seven,) = [f for f in ev.failures if f["kind"] == "duplicate_rank" and f["rank"] == 7]
    assert (
        "while 24 of the 32 ranks never came (ranks 8-31); its lines 14, 15"
        in (seven["exception_type"])
    )


def test_a_healthy_twin_with_every_rank_once_stays_ready(tmp_path: Path) -> None:
    # the second node given its node rank: each repeated line is rank + 8 there, in the same
    # interleaved order, then node 1's rank 8 and rank 0's line that all processes registered
    healthy: list[str] = []
    seen: set[int] = set()
    for line in _text().splitlines(keepends=True)[:16]:
        if "GLOBAL_RANK: " in line:
            rank = int(line.split("GLOBAL_RANK: ")[1].split(",")[0])
            if rank in seen:
                line = line.replace(f"RANK: {rank}, MEMBER: {rank + 1}/", f"RANK: {rank + 8}, "
                                    f"MEMBER: {rank + 9}/")  # fmt: skip
            seen.add(rank)
        healthy.append(line)
    healthy.append("Initializing distributed: GLOBAL_RANK: 8, MEMBER: 9/16\n")
    healthy.append("All distributed processes registered. Starting with 16 processes\n")
    ev = _write(tmp_path, "".join(healthy))
    assert not _duplicates(ev)
    assert heldout.imported(ev)[0] == "READY"


def test_a_run_started_again_after_its_first_start_is_no_duplicate(tmp_path: Path) -> None:
    # node 0's own log (ranks 0-7 of 16) then a second start cut after ranks 0-3: each second
    # line after every first one, one run started again, not two nodes side by side
    first = "".join(
        f"Initializing distributed: GLOBAL_RANK: {r}, MEMBER: {r + 1}/16\n" for r in range(8)
    )
    again = "".join(
        f"Initializing distributed: GLOBAL_RANK: {r}, MEMBER: {r + 1}/16\n" for r in range(4)
    )
    ev = _write(tmp_path, first + "Error executing job with overrides: []\n" + again)
    assert not _duplicates(ev)


def test_one_process_printing_its_line_through_two_loggers_is_no_duplicate(tmp_path: Path) -> None:
    # one node's ranks 0-7 of 16, each line printed by Lightning's logger and again by absl's
    # (lightning#17228's form): two lines a process, one process a rank
    text = "".join(
        f"INFO: Initializing distributed: GLOBAL_RANK: {r}, MEMBER: {r + 1}/16\n"
        f"I0604 14:58:{10 + r}.345892 1406562983{r} distributed.py:244] Initializing "
        f"distributed: GLOBAL_RANK: {r}, MEMBER: {r + 1}/16\n"
        for r in (0, 1, 2, 3, 4, 5, 6, 7)
    )
    assert not _duplicates(_write(tmp_path, text))
    # the real file's lines through both loggers: each rank's processes still counted twice
    real = "".join(
        f"INFO: {line}I0604 14:58:08.{no:06d} 140656298329920 distributed.py:244] {line}"
        if "GLOBAL_RANK" in line
        else line
        for no, line in enumerate(_text().splitlines(keepends=True))
    )
    assert [r for r, _, _ in _duplicates(_write(tmp_path, real))] == [1, 2, 3, 4, 5, 6, 7]
