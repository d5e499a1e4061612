"""Outputs of round UUUU's held-out evaluation (set 714, framework logs on NVIDIA clusters) that
the advisor read in part before this change (tests/data/evidence_heldout_81, sources in
tests/data/SOURCES.md): Horovod 0.19.3's Gloo rendezvous timing out on horovodrun's HTTP store
("[horovod/common/gloo/http_store.cc:53] Wait timeout for key(s): 0") under a Determined trial
log's prefix was an unknown program's "terminate called" line, a warning naming no rank; and
XLA's coordination service's "Task ... heartbeat timeout" was worded as task 0 having "never
arrived", where the service checks heartbeats only of tasks that had connected."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.parsers import strip_launcher_prefix
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_81"

HOROVOD = "horovod_0.19.3_tf_gloo_http_store_wait_timeout_50nodes_determined_hvd2015_cut.log"
JAX = "jax_xla_coordination_service_task0_heartbeat_timeout_8gpu_jax23599_cut.log"

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


# --- Horovod's Gloo rendezvous on horovodrun's HTTP store --------------------------------------


def test_horovod_store_wait_timeout_is_not_ready_naming_rank_1_and_the_store() -> None:
    ev = _load(HOROVOD)
    assert ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    # the store's time-out is the finding; the "terminate called" line is no longer the only
    # thing said, as an unknown program's error
    assert heldout.above_info(outcome) == [("evidence-store-timeout", "critical")]
    (item,) = heldout.items(outcome, "evidence-store-timeout")
    assert item.startswith(
        "Rank 1 timed out waiting on Horovod's Gloo rendezvous store (horovodrun's HTTP store) "
        "for key(s) 0; the process then ended on signal 6 (SIGABRT: the uncaught "
        "gloo::IoException aborted it), line 3 ("
    )
    assert item.endswith(f"{HOROVOD}, line 2)")
    (event,) = [f for f in ev.failures if f["kind"] == "store_timeout"]
    assert event["rank"] == 1 and event["library"] == "Horovod"
    assert event["call"] == "http_store.cc:53" and event["timeout_ms"] is None
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-store-timeout"]
    # the Horovod advice comes with it: the time-out horovodrun sets for Gloo
    assert any("--gloo-timeout-seconds" in r.why for r in finding.recommendations)


def test_determined_prefix_before_horovodruns_stamped_tag_gives_the_rank() -> None:
    line = _text(HOROVOD).splitlines()[1]
    stripped, rank = strip_launcher_prefix(line)
    assert rank == 1
    assert stripped.startswith(" what():  [horovod/common/gloo/http_store.cc:53]")


def test_another_rank_and_the_newer_message_with_its_seconds(tmp_path: Path) -> None:
    # newer Horovod (http_store.cc HTTPStore::wait): "Wait timeout after N seconds for key(s): "
    text = (
        _text(HOROVOD)
        .replace("2020[1]<stderr>", "2020[17]<stderr>")
        .replace("Wait timeout for key(s): 0", "Wait timeout after 30 seconds for key(s): 3")
    )
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-store-timeout")
    assert item.startswith(
        "Rank 17 timed out after 30 s waiting on Horovod's Gloo rendezvous store (horovodrun's "
        "HTTP store) for key(s) 3; the process then ended on signal 6"
    )


def test_horovodruns_own_tag_without_determined_and_no_signal_line(tmp_path: Path) -> None:
    # the plain horovodrun copy (its stamp and tag only), the copy cut before the signal line
    lines = [t.split("||  ", 1)[1] for t in _text(HOROVOD).splitlines()[:2]]
    lines = [t.replace("2020[1]", "2020[4]") for t in lines]
    ev = _write(tmp_path, "\n".join(lines) + "\n")
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-store-timeout")
    assert item.startswith(
        "Rank 4 timed out waiting on Horovod's Gloo rendezvous store (horovodrun's HTTP store) "
        "for key(s) 0 ("
    )
    assert "ended on signal" not in item


def test_another_ranks_signal_is_not_this_ranks_end(tmp_path: Path) -> None:
    lines = _text(HOROVOD).splitlines()
    lines[2] = lines[2].replace("2020[1]", "2020[5]")
    ev = _write(tmp_path, "\n".join(lines) + "\n")
    (item,) = heldout.items(heldout.imported(ev)[1], "evidence-store-timeout")
    assert item.startswith("Rank 1 timed out") and "ended on signal" not in item


def test_a_healthy_horovod_determined_log_stays_ready(tmp_path: Path) -> None:
    prefix = "[2020-06-09T20:10:40Z] cf108822 [RUNNING] ||  Tue Jun  9 20:10:40 2020[1]<stdout>:"
    text = "".join(f"{prefix}Epoch 1/5 step {n}: loss 0.{n}1\n" for n in range(1, 6))
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    assert not [f for f in ev.failures if f["kind"] == "store_timeout"]


# --- XLA coordination service: a task's heartbeat time-out ------------------------------------


def test_heartbeat_timeout_says_task_0_stopped_heartbeating_not_never_arrived() -> None:
    ev = _load(JAX)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-coordination-timeout", "critical")]
    (item,) = heldout.items(outcome, "evidence-coordination-timeout")
    assert "never arrived" not in item
    assert item == (
        "heartbeat time-out: task(s) 0 had connected, then sent no heartbeat for longer than "
        "the service's heartbeat time-out (it failed, was preempted or crashed), and the "
        f"service set it to ERROR ({HELDOUT / JAX}, line 1)"
    )


def test_heartbeat_timeout_of_another_task(tmp_path: Path) -> None:
    text = _text(JAX).replace("task:0", "task:6")
    ev = _write(tmp_path, text)
    (item,) = heldout.items(heldout.imported(ev)[1], "evidence-coordination-timeout")
    assert item.startswith("heartbeat time-out: task(s) 6 had connected, then sent no heartbeat")


def test_a_barrier_timeout_still_says_never_arrived(tmp_path: Path) -> None:
    # a barrier's time-out lists tasks that did not reach it: that wording stays
    text = (
        "2024-10-09 15:47:38.568412: E external/xla/xla/tsl/distributed_runtime/coordination/"
        "coordination_service.cc:1170] Barrier timed out. Id: PjRT_Client_Connect. This usually "
        "happens because a task triggered the barrier too early or too slowly. Please look at "
        "the task logs (both timed out and first task) to debug further.\n"
        "# of tasks that reached the barrier: 7/8.\n"
        "The first task at the barrier: /job:jax_worker/replica:0/task:0. Some timed out task "
        "names:\n/job:jax_worker/replica:0/task:3\n"
    )
    ev = _write(tmp_path, text)
    items = heldout.items(heldout.imported(ev)[1], "evidence-coordination-timeout")
    assert any("task(s) 3 never arrived" in i for i in items)
