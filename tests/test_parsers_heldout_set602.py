"""Outputs of round CCCC's held-out set 602 (Ascend logs) the advisor read in part before this
change (tests/data/evidence_heldout_65, sources in tests/data/SOURCES.md): MindIE Server's log (a
start that failed to listen, a route answered 404 over and over) read as a log in no known form;
MindYOLO's loss running away under fp16 overflows it applied all the same, not noticed; and an
NPU out-of-memory a serving engine aborted the request of and went on past, said to have stopped
the process."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_65"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


def _severities(ev: EvidenceFacts) -> set[str]:
    return {f.severity for f in heldout.found(ev).values()} - {"info"}


def _unknown_form(ev: EvidenceFacts) -> bool:
    return any("no form the advisor reads" in m for m in heldout.said(ev))


# --- MindIE Server ----------------------------------------------------------------------------


def test_mindie_server_that_failed_to_listen_did_not_start() -> None:
    ev = _load("mindie_server_listen_fail_MIE04E02041C_310p_gpustack.log")
    (failure,) = ev.failures
    assert (failure["kind"], failure["line"], failure["code"]) == (
        "service_start_failure",
        1,
        "MIE04E02041C",
    )
    assert (failure["ip"], failure["port"]) == ("172.17.0.3", 40032)
    assert failure["exception_type"] == (
        "the MindIE server did not start (its log says so, line 4): MIE04E02041C Failed to "
        "listen 172.17.0.3:40032, please check if business ip and port are legal; MIE04E02011C "
        "Failed to start http wrapper"
    )
    assert _severities(ev) == {"critical"}
    found = heldout.found(ev)
    assert "evidence-log-error" not in found
    (item,) = found["evidence-service-start-failed"].items
    # (round TTTT set 704: "[ubuntu]" in the operation log's line is the node, uname()'s name,
    # that MindIE's ULOG_AUDIT writes first: the item names it)
    assert item.startswith("ubuntu: the MindIE server did not start")
    assert not _unknown_form(ev)
    # (nothing of the devices or the communication is said: the cause is the listen address)
    assert all(f["device"] is None and f["rank"] is None for f in ev.failures)


_LISTEN = (
    "[2025-12-15 15:19:22.681+08:00] [38] [452] [server] [ERROR] [http_server.cpp:163] : "
    "[MIE04E02041C] [endpoint] Failed to listen 10.0.0.7:1025, please check if business ip and "
    "port are legal.\n"
)


def test_a_prefixed_mindie_start_failure_and_its_errors_alone(tmp_path: Path) -> None:
    # a pod's log prefix before each line: the same reading
    ev = _write(
        tmp_path,
        "".join(
            f"mindie-0 | {line}\n"
            for line in (
                _LISTEN.strip(),
                "[2025-12-15 15:19:22.682+08:00] [38] [ubuntu] [system] [server] "
                "[Start mindie server] [fail]",
            )
        ),
    )
    (failure,) = ev.failures
    assert (failure["kind"], failure["line"], failure["port"]) == ("service_start_failure", 1, 1025)
    # the coded error with no word of the start after it (a copy cut there): its first error line
    # as before, not a start said to have failed
    ev = _write(tmp_path, _LISTEN + _LISTEN.replace("163", "164"))
    assert all(f["kind"] != "service_start_failure" for f in ev.failures)


def test_mindie_server_answering_its_models_route_404_is_a_warning() -> None:
    ev = _load("mindie_daemon_v1_models_404_loop_gpustack.log")
    (answered,) = ev.failures
    assert (answered["kind"], answered["line"], answered["code"]) == (
        "service_http_error",
        3,
        "404",
    )
    assert answered["exception_type"] == (
        "the MindIE server answered GET /v1/models with status 404 (Not Found)"
    )
    assert _severities(ev) == {"warning"}
    assert not _unknown_form(ev)


_REQUEST = (
    "[2025-10-12 17:17:{s:02d}.458+08:00] [26217] [pm-80c60002] [192.168.20.7:46182] [server] "
    "[Request mindie server, method is GET, uri is /v1/models] [success]\n"
)
_RESPONSE = (
    "[2025-10-12 17:17:{s:02d}.458+08:00] [26217] [pm-80c60002] [192.168.20.7:40051] [server] "
    "[Response mindie server, method is GET, uri is {uri}] [status code: {status}]\n"
)


def test_a_route_answered_404_over_and_over_is_one_finding(tmp_path: Path) -> None:
    text = "".join(
        _REQUEST.format(s=s) + _RESPONSE.format(s=s, uri="/v1/models", status=404) for s in range(5)
    ) + _RESPONSE.format(s=9, uri="/health", status=200)
    ev = _write(tmp_path, text)
    (answered,) = ev.failures  # (the 200 of another route is no error)
    assert answered["line"] == 2 and answered["repeated_lines"] == [4, 6, 8, 10]
    assert answered["exception_type"].endswith("404 (Not Found), 5 times")
    # answered 200 only: a server that serves, nothing said
    ev = _write(
        tmp_path, _REQUEST.format(s=1) + _RESPONSE.format(s=1, uri="/v1/models", status=200)
    )
    assert not ev.failures


# --- MindYOLO's loss ----------------------------------------------------------------------------


def test_mindyolo_loss_that_ran_away_under_applied_overflows_is_a_warning() -> None:
    ev = _load("mindyolo_8card_overflow_loss_explosion.log")
    (diverged,) = ev.failures
    assert (diverged["kind"], diverged["line"]) == ("loss_diverged", 8)
    assert diverged["exception_type"] == (
        "the loss ran away: from 8.8465 at epoch 1/200 step 200/3995 to 8712.5938 at epoch 1/200 "
        "step 300/3995 and 15806.3818 at epoch 1/200 step 400/3995, the last step logged (1787 "
        "times its lowest); MindYOLO's fp16 loss scaler warned of 4 overflow(s), the scale "
        "adjusted to 1024.0, 4 of them applied all the same (overflow_still_update): the "
        "overflowed gradients updated the weights"
    )
    assert _severities(ev) == {"warning"}
    finding = heldout.found(ev)["evidence-loss-diverged"]
    assert "ran away" in finding.message and "not a number" not in finding.message
    assert not _unknown_form(ev)


def _yolo_step(step: int, loss: str, epoch: str = "1/200") -> str:
    return (
        f"2024-12-25 09:58:42,787 [INFO] Epoch {epoch}, Step {step}/3995, imgsize (640, 640), "
        f"loss: {loss}, lbox: 3.6262, lcls: 5.5689, dfl: 2.4756, cur_lr: 0.0992\n"
    )


_OVERFLOW = "2024-12-25 09:58:34,125 [WARNING] overflow, still update, loss scale adjust to 512.0\n"


def test_mindyolo_loss_that_stays_or_falls_is_no_divergence(tmp_path: Path) -> None:
    # overflows at the start while the scale settles, the loss falling: a run that trains
    ev = _write(
        tmp_path,
        _OVERFLOW
        + _yolo_step(100, "11.6707")
        + _OVERFLOW
        + _yolo_step(200, "9.1000")
        + _yolo_step(300, "8.4000"),
    )
    assert not ev.failures
    assert any("a training loop's loss lines: 3 step(s)" in m for m in heldout.said(ev))
    # a spike the loss came back from: no run-away either
    ev = _write(
        tmp_path,
        _yolo_step(100, "9.5") + _yolo_step(200, "4012.3") + _yolo_step(300, "9.1"),
    )
    assert not ev.failures


def test_an_older_mindyolo_order_and_no_overflow_line(tmp_path: Path) -> None:
    # older releases print the totals first ("Epoch 200/1, Step 3995/100"): said as printed;
    # a run-away with no overflow line says none
    ev = _write(
        tmp_path,
        _yolo_step(100, "2.5", epoch="200/1") + _yolo_step(200, "900.0", epoch="200/1"),
    )
    (diverged,) = ev.failures
    assert diverged["exception_type"] == (
        "the loss ran away: from 2.5 at epoch 200/1 step 100/3995 to 900.0 at epoch 200/1 step "
        "200/3995, the last step logged (360 times its lowest)"
    )


# --- an out-of-memory the server went on past ---------------------------------------------------


def test_npu_oom_of_a_request_the_server_aborted_is_no_stopped_process() -> None:
    ev = _load("vllm_omni_910b4_apiserver_prefix_npu_oom_502MiB.log")
    (oom,) = ev.failures
    assert (oom["kind"], oom["line"], oom["device"], oom["pid"]) == ("device_oom", 1, 0, 127048)
    assert oom["exception_type"] == (
        "tried to allocate 502.00 MiB, 156.28 MiB free; 60.96 GiB total, 57.88 GiB allocated by "
        "this process; the server aborted the request it served "
        "(video_sync-a37f806df023bc2b-aa2c6e0d, line 3) and went on"
    )
    assert _severities(ev) == {"critical"}
    finding = heldout.found(ev)["evidence-device-out-of-memory"]
    assert "the process stopped" not in finding.message
    assert "the server aborted them and went on" in finding.message


_OOM = (
    "RuntimeError: NPU out of memory. Tried to allocate 20.00 MiB (NPU 3; 60.96 GiB total "
    "capacity; 57.88 GiB already allocated; 1.28 MiB free; 58.88 GiB reserved in total by "
    "PyTorch)\n"
)


def test_an_oom_with_no_abort_after_it_still_stopped_the_process(tmp_path: Path) -> None:
    ev = _write(tmp_path, _OOM)
    (oom,) = ev.failures
    assert "aborted" not in oom["exception_type"]
    assert "the process stopped" in heldout.found(ev)["evidence-device-out-of-memory"].message
    # vLLM 0.x's word of the abort, one request: the same reading
    ev = _write(
        tmp_path, _OOM + "INFO 08-20 05:33:36 async_llm_engine.py:176] Aborted request cmpl-8f2e.\n"
    )
    (oom,) = ev.failures
    assert oom["exception_type"].endswith(
        "the server aborted the request it served (cmpl-8f2e, line 2) and went on"
    )
