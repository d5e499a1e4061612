"""Outputs of round LLLL's held-out evaluation (set 658, network and node tool outputs on GPU
clusters) that the advisor read wrong or in part before this change
(tests/data/evidence_heldout_72, sources in tests/data/SOURCES.md): an ibping client's two pongs
from Lid 1 and its statistics (2 transmitted, 2 received, 0% packet loss), unknown ("no
supported format recognised")."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_72"

IBPING = "ibping_ipoib_direct_2_of_2_received_archwiki_cut.txt"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.txt")


def _text() -> str:
    return (HELDOUT / IBPING).read_text()


# --- ibping --------------------------------------------------------------------------------------


def test_ibping_two_of_two_pongs_is_a_healthy_reachability_check() -> None:
    ev = _load(IBPING)
    assert ev.files[0].formats == ["ibping"]
    assert ev.failures == []
    (note,) = heldout.said(ev)
    assert note.startswith("ibping: to Lid 1 (hostname.(none) answering): 2 of 2 pong(s) received")
    assert "(0% loss, statistics line 5)" in note
    assert "rtt min/avg/max 0.053/0.063/0.074 ms" in note
    assert "pongs at lines 1-2" in note
    # (ibping.c prints one destination in the pongs and the heading: the page's copy has two)
    assert "the statistics heading names Lid 4" in note
    assert [m.line for f in ev.files for m in f.messages] == [5]
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_ibping_with_one_pong_lost_is_a_warning_naming_the_lid(tmp_path: Path) -> None:
    # another server and LID, the second pong lost: ibping prints nothing for it
    text = (
        _text()
        .replace("hostname.(none) (Lid 1)", "gpu-b07 (Lid 23)")
        .replace("hostname.(none) (Lid 4)", "gpu-b07 (Lid 23)")
        .replace("Pong from gpu-b07 (Lid 23): time 0.074 ms\n", "")
        .replace("2 packets transmitted, 2 received, 0%", "2 packets transmitted, 1 received, 50%")
        .replace("0.053/0.063/0.074", "0.053/0.053/0.053")
    )
    ev = _write(tmp_path, text)
    assert ev.files[0].formats == ["ibping"]
    (fail,) = ev.failures
    assert (fail["kind"], fail["line"], fail["message"]) == ("ibping_loss", 4, "ibping Lid 23")
    assert fail["exception_type"] == "1 of 2 ping(s) lost (50% loss)"
    (note,) = heldout.said(ev)
    assert note.startswith("ibping: to Lid 23 (gpu-b07 answering): 1 of 2 pong(s) received")
    assert "statistics heading names" not in note
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-ibping-loss", "warning")]
    (item,) = heldout.items(outcome, "evidence-ibping-loss")
    assert item.startswith("ibping Lid 23: 1 of 2 ping(s) lost (50% loss) (")
    assert item.endswith("copy.txt, line 4)")


def test_ibping_with_no_pong_back_is_a_failure(tmp_path: Path) -> None:
    # as ibping.c's report() prints it with no reply: last_host empty, rtt all 0
    text = (
        "# ibping -c 5 -L 9\n"
        "\n"
        "---  (Lid 9) ibping statistics ---\n"
        "5 packets transmitted, 0 received, 100% packet loss, time 5004 ms\n"
        "rtt min/avg/max = 0.000/0.000/0.000 ms\n"
    )
    ev = _write(tmp_path, text)
    assert ev.files[0].formats == ["ibping"]
    (fail,) = ev.failures
    assert (fail["kind"], fail["line"]) == ("ibping_no_reply", 4)
    assert fail["exception_type"] == "no pong back to 5 ping(s)"
    (note,) = heldout.said(ev)
    assert note.startswith("ibping: to Lid 9: 0 of 5 pong(s) received (100% loss")
    assert "rtt" not in note
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-ibping-no-reply", "critical")]


def test_two_ibping_runs_each_read_and_a_flood_run_has_no_pong_lines(tmp_path: Path) -> None:
    # a healthy twin: a second, flood run (-f prints no pong) below the page's, both READY
    text = _text() + (
        "# ibping -c 10000 -f -C mlx5_0 -L 205\n"
        "\n"
        "--- node3.(none) (Lid 205) ibping statistics ---\n"
        "10000 packets transmitted, 10000 received, 0% packet loss, time 84 ms\n"
        "rtt min/avg/max = 0.002/0.008/0.019 ms\n"
    )
    ev = _write(tmp_path, text)
    assert ev.failures == []
    first, second = heldout.said(ev)
    assert first.startswith("ibping: to Lid 1 ")
    assert second.startswith("ibping: to Lid 205 (node3.(none) answering): 10000 of 10000 pong(s)")
    assert "pongs at" not in second
    assert [m.line for f in ev.files for m in f.messages] == [5, 10]
    level, _ = heldout.imported(ev)
    assert level == "READY"


def test_pongs_cut_before_the_statistics_are_counted_not_judged(tmp_path: Path) -> None:
    text = "".join(_text().splitlines(keepends=True)[:2])
    ev = _write(tmp_path, text)
    assert ev.files[0].formats == ["ibping"]
    assert ev.failures == []
    (note,) = heldout.said(ev)
    assert note == (
        "ibping: to Lid 1 (hostname.(none) answering): 2 pong(s) in the copy, its statistics not; "
        "pongs at lines 1-2"
    )
