"""The soak stage on the emulated lab: node 1's cable is pulled twice for ~3 s while the soak
runs; the soak names both stalls at their times, on node 1's interface, and counts the flaps.

Root only (network namespaces); two one-rank nodes so the whole run stays near a minute.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from advisor.lab import Lab
from tests.lab import lab_leak_check, make_lab, requires_lab, run_in_lab, when_step
from tests.test_lab_runs import only

# alone: the soak tells a flap or a stall from the iteration times it measures
pytestmark = [pytest.mark.root, requires_lab, pytest.mark.alone]

DURATION_S = 24.0
DOWN_S = 3.0
FLAP_AT_S = (4.0, 13.0)
"""When node 1's link goes down, seconds after the soak's first window record (gloo's TCP
retransmits with back-off, so a stall may last up to about twice the outage: the flaps are
spaced so their stalls cannot merge)."""


@pytest.fixture(scope="module", autouse=True)
def _no_leaks(lab_leak_check: None) -> None:
    """Pull the session-end leak check into this module."""


def test_soak_names_both_flaps_of_a_link(make_lab, tmp_path: Path) -> None:
    lab: Lab = make_lab(2)
    run_dir = tmp_path / "run"
    downs: list[float] = []  # wall-clock times the link went down
    flapper_error: list[BaseException] = []

    def flap_twice(first_window: dict) -> None:
        def loop() -> None:
            try:
                t_ref = time.time()
                for at in FLAP_AT_S:
                    time.sleep(max(0.0, t_ref + at - time.time()))
                    downs.append(time.time())
                    lab.link_down(1)
                    time.sleep(DOWN_S)
                    lab.link_up(1)
            except BaseException as e:  # reported by the test, not lost in the thread
                flapper_error.append(e)

        threading.Thread(target=loop, name="flapper", daemon=True).start()

    with when_step(run_dir, "soak", flap_twice, step="window", rank=0) as watch:
        run = run_in_lab(
            lab,
            [
                *only("soak"),
                "cluster.devices_per_node=1",
                "pg_timeout_s=60",
                "stages.soak.enabled=true",
                f"stages.soak.duration_s={DURATION_S}",
                f"stages.soak.deadline_s={DURATION_S + 150}",
                "stages.soak.window_s=1",
                "stages.soak.all_reduce_bytes=65536",
                "stages.soak.p2p_bytes=65536",
                "stages.soak.stall_min_s=1.5",
            ],
            run_dir,
            timeout_s=DURATION_S + 200,
        )
    assert watch.fired.is_set(), run.describe()
    assert not flapper_error, flapper_error
    assert len(downs) == 2, run.describe()
    soak = run.stage("soak")
    assert soak["status"] == "ok", run.describe()
    data = soak["data"]
    assert data["completed"] and data["elapsed_s"] >= DURATION_S
    node1 = f"{lab.address(1)}/lab0"
    # Each flap is one stall that starts before the link went down comes back and lasts at
    # least most of the outage; it names node 1's interface, whose carrier changed meanwhile.
    t0 = data["started_wall_s"]
    named = []
    for down in downs:
        t_down = down - t0
        hits = [
            s
            for s in data["stalls"]
            if s["t_start_s"] <= t_down + 1.0
            and s["t_start_s"] + s["duration_s"] >= t_down + DOWN_S
        ]
        assert len(hits) == 1, (t_down, data["stalls"])
        stall = hits[0]
        assert stall["duration_s"] >= DOWN_S - 1.0, stall
        assert stall["links"] == [node1], stall
        assert f"t={stall['t_start_s']:.1f} s" in stall["text"] and node1 in stall["text"]
        named.append(stall["t_start_s"])
    assert named[0] < named[1]
    # The counters read before and after: node 1's link went down twice, node 0's never.
    flaps = {(c["node"], c["interface"]): c for c in data["link_counters"]}
    assert flaps[(lab.address(1), "lab0")]["flaps"] == 2, data["link_counters"]
    assert (lab.address(0), "lab0") not in flaps, data["link_counters"]
    assert data["flapping_links"] == [f"{node1} (2 flaps)"]
    assert set(data["hccn_tool"].values()) == {"not present"}
    # Every window is a point of the series; the all_reduce series covers the whole budget.
    ar = next(s for s in data["series"] if s["key"] == "all_reduce")
    assert ar["points"][-1]["t_s"] >= DURATION_S - 1 and len(ar["points"]) >= DURATION_S / 2
    # The rules turn them into findings naming the link.
    findings = (run.run_dir / "findings.json").read_text()
    assert "soak-stalls" in findings and "soak-link-flaps" in findings
    assert node1 in findings
    assert "soak" in run.outputs[0] and "iterations" in run.outputs[0]  # progress on the console


def test_a_link_that_stays_down_is_a_stall_named_when_the_deadline_stops_the_soak(
    make_lab, tmp_path: Path
) -> None:
    """Node 1's cable is pulled for good: the blocked all_reduce never returns, the deadline
    stops the job, and the soak's records still name the stall, its start and the link."""
    lab: Lab = make_lab(2)
    run_dir = tmp_path / "run"
    cut_at: list[float] = []

    def cut(first_window: dict) -> None:
        time.sleep(2.0)
        cut_at.append(time.time())
        lab.link_down(1)

    # The link is cut 2 s into the soak, so a 10 s soak is still running then; the deadline is
    # the least the soak's config allows for it (30 s beyond its duration). The stall lasts from
    # the cut until the job is stopped: over 15 s even after 20 s of start-up, against the 10 s
    # asserted below.
    deadline_s = 40
    with when_step(run_dir, "soak", cut, step="window", rank=0) as watch:
        run = run_in_lab(
            lab,
            [
                *only("soak"),
                "cluster.devices_per_node=1",
                "pg_timeout_s=60",
                "stages.soak.enabled=true",
                "stages.soak.duration_s=10",
                f"stages.soak.deadline_s={deadline_s}",
                "stages.soak.window_s=1",
                "stages.soak.all_reduce_bytes=65536",
                "stages.soak.p2p_bytes=65536",
            ],
            run_dir,
            timeout_s=deadline_s + 60,
        )
    assert watch.fired.is_set() and cut_at, run.describe()
    soak = run.stage("soak")
    assert soak["status"] == "timeout" and "still in step 'traffic'" in soak["reason"], soak
    data = soak["data"]
    assert not data["completed"]
    (stall,) = data["stalls"]
    assert stall["ongoing"] and stall["links"] == [f"{lab.address(1)}/lab0"], stall
    t_cut = cut_at[0] - data["started_wall_s"]
    assert t_cut - 1.0 <= stall["t_start_s"] <= t_cut + 0.5, (t_cut, stall)
    # the watcher repeats its record while the operation stays blocked: the stall is known to
    # have lasted until shortly before the job was stopped
    assert stall["duration_s"] >= 10, stall
    assert "(still blocked)" in stall["text"]


__all__ = ["lab_leak_check", "make_lab"]
