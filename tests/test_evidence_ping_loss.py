"""iputils ping between hosts that lost some requests (a real flood run stopped by ^C,
tests/data/evidence, source in tests/data/SOURCES.md): a warning of its own, as ibping's loss
is, where it was a note; a run stopped by hand, by -w or in flood mode may have its last
request(s) in flight, which ping counts lost (iputils ping_common.c finish(); the rtt line's
"pipe N" the most in flight at once), so that many are not called a loss."""

from __future__ import annotations

from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

FLOOD = DATA / "evidence" / "ping_flood_ctrlc_2240_sent_2117_received_5pct_loss_machineshop30.txt"


def _write(tmp_path: Path, text: str) -> EvidenceFacts:
    path = tmp_path / "ping.txt"
    path.write_text(text)
    return load_paths([path])


def test_flood_ping_losing_5_percent_is_a_warning_naming_host_and_figures() -> None:
    ev = load_paths([FLOOD])
    (loss,) = [f for f in ev.failures if f["kind"] == "host_ping_loss"]
    assert loss["line"] == 5  # the statistics line
    assert loss["ip"] == "192.17.58.137"
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-host-ping-loss", "warning")]
    _, (item,) = heldout.finding(outcome, "evidence-host-ping-loss")
    assert "lager.cs.illinois.edu (192.17.58.137)" in item
    assert "123 of 2240 request(s) got no reply (5.49107% loss)" in item
    # stopped by ^C: one request may have been in flight, and the item says so
    assert "up to 1 of them may have been in flight" in item and "line 5)" in item


def test_one_unanswered_request_at_ctrl_c_is_not_a_loss(tmp_path: Path) -> None:
    # the same flood run where only the request in flight at ^C went unanswered
    text = (
        FLOOD.read_text()
        .replace(".....^C", "^C", 1)
        .replace("2117 received, 5.49107%", "2239 received, 0.0446429%")
    )
    ev = _write(tmp_path, text)
    assert not [f for f in ev.failures if f["kind"] == "host_ping_loss"]
    level, _ = heldout.imported(ev)
    assert level == "READY"
    (note,) = [m for m in ev.files[0].messages if "in flight" in m.message]
    assert "the 1 unanswered request(s) may have been in flight" in note.message


def test_pipe_figure_bounds_what_was_in_flight(tmp_path: Path) -> None:
    # a slower path: "pipe 3" on the rtt line, two unanswered at ^C, none lost on the path
    text = (
        FLOOD.read_text()
        .replace("2117 received, 5.49107%", "2238 received, 0.0892857%")
        .replace("ipg/ewma", "pipe 3, ipg/ewma")
    )
    ev = _write(tmp_path, text)
    assert not [f for f in ev.failures if f["kind"] == "host_ping_loss"]


def test_a_counted_run_that_lost_requests_warns_with_no_in_flight_allowance(
    tmp_path: Path,
) -> None:
    # a plain counted run (-c 10, not stopped early) from another host to another: every
    # unanswered request is lost
    text = (
        "[root@gpu01 ~]# ping -c 10 gpu07\n"
        "PING gpu07 (10.20.0.17) 56(84) bytes of data.\n"
        + "".join(
            f"64 bytes from gpu07 (10.20.0.17): icmp_seq={i} ttl=64 time=0.1{i} ms\n"
            for i in (1, 2, 4, 5, 6, 7, 9, 10)
        )
        + "\n--- gpu07 ping statistics ---\n"
        "10 packets transmitted, 8 received, 20% packet loss, time 9012ms\n"
        "rtt min/avg/max/mdev = 0.110/0.145/0.190/0.020 ms\n"
    )
    ev = _write(tmp_path, text)
    (loss,) = [f for f in ev.failures if f["kind"] == "host_ping_loss"]
    assert loss["line"] == 13 and loss["ip"] == "10.20.0.17"
    assert loss["exception_type"] == "2 of 10 request(s) got no reply (20% loss)"
    # one lost with -w (a deadline) is the in-flight allowance; two are not
    deadline = text.replace("ping -c 10", "ping -w 10")
    (loss,) = [f for f in _write(tmp_path, deadline).failures if f["kind"] == "host_ping_loss"]
    assert "up to 1 of them may have been in flight" in loss["exception_type"]


def test_every_reply_back_stays_ready(tmp_path: Path) -> None:
    text = FLOOD.read_text().replace("2117 received, 5.49107%", "2240 received, 0%")
    ev = _write(tmp_path, text)
    assert not [f for f in ev.failures if f["kind"].startswith("host_ping")]
    assert heldout.imported(ev)[0] == "READY"
