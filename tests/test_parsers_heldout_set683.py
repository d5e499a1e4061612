"""Outputs of round PPPP's held-out evaluation (set 683, NVIDIA collective logs) that the advisor
read in part before this change (tests/data/evidence_heldout_76, sources in
tests/data/SOURCES.md): NCCL in a container that could not open its one HCA ("Call to
ibv_open_device failed", "NET/IB : Unable to open device mlx5_bond_0") and then said outright
where it went ("NET/IB : No device found.", "NET/Socket : Using [0]bond0:200.1.93.2<0>", "Using
network Socket"), read with a hedge ("went on with the others, or with sockets where none
opened") instead of the TCP fallback on bond0 200.1.93.2 its next lines name."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_76"

BOND = "nccl_docker_deepspeed_ibv_open_device_failed_mlx5_bond_0_fallback_net_socket_bond0_nccl451_cut.log"
HEDGE = "went on with the others, or with sockets"

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _prefixed(text: str, prefix: str) -> str:
    """Each line of ``text`` behind NCCL's own "host:pid:tid [dev] " prefix."""
    return "".join(f"{prefix}{line}" for line in text.splitlines(keepends=True))


# --- the real file: mlx5_bond_0 skipped, no other HCA, TCP sockets on bond0 --------------------


def test_the_skipped_hca_says_the_socket_fallback_on_bond0_with_its_lines() -> None:
    ev = _load(BOND)
    (failure,) = ev.failures
    assert failure["kind"] == "nccl_warning"
    assert failure["exception_type"] == "start-up fallback"
    assert failure["line"] == 3
    message = failure["message"]
    assert message.startswith("NET/IB : Unable to open device mlx5_bond_0 ")
    assert "its ibv_open_device call failed, line 2" in message
    assert "skipped HCA mlx5_bond_0, found no other HCA" in message
    assert "fell back to TCP sockets on bond0 200.1.93.2" in message
    assert "NET/IB : No device found, line 4" in message
    assert "NET/Socket, line 5" in message
    assert "'Using network Socket', line 6" in message
    assert HEDGE not in message
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-nccl-fallback-warning", "warning")]
    _, (item,) = heldout.finding(outcome, "evidence-nccl-fallback-warning")
    assert "TCP sockets on bond0 200.1.93.2" in item and item.endswith("line 3)")


# --- variants built from the real text -------------------------------------------------------


def test_another_host_process_hca_and_interface_are_named(tmp_path: Path) -> None:
    text = (
        _text(BOND)
        .replace("mlx5_bond_0", "mlx5_1")
        .replace("bond0:200.1.93.2", "eth0:10.1.2.3")
        .replace("NCCL INFO ", "")
        .replace("NCCL WARN ", "")
    )
    # NCCL's own prefix on every line: the process's lines below its WARN are matched by pid
    text = _prefixed(
        "\n".join(
            f"{line.split(' ', 1)[0]} NCCL WARN {line.split(' ', 1)[1]}"
            if line.startswith(("misc/", "transport/"))
            else f"NCCL INFO {line}"
            for line in text.splitlines()
        )
        + "\n",
        "gpu-node3:4242:4300 [2] ",
    )
    ev = _write(tmp_path, text)
    (failure,) = ev.failures
    assert (failure["line"], failure["host"], failure["pid"], failure["device"]) == (
        3, "gpu-node3", 4242, 2,
    )  # fmt: skip
    assert "skipped HCA mlx5_1, found no other HCA" in failure["message"]
    assert "TCP sockets on eth0 10.1.2.3" in failure["message"]
    assert "line 4" in failure["message"] and "line 6" in failure["message"]
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"


def test_another_process_socket_lines_are_not_taken_for_this_one(tmp_path: Path) -> None:
    # pid 4242 skips mlx5_1; only pid 5151 (no HCA skip in the copy) says it found none: 4242's
    # fallback is not known, the hedge stays
    lines = _text(BOND).splitlines(keepends=True)
    own = _prefixed("".join(lines[:3]), "gpu-node3:4242:4300 [0] ")
    other = _prefixed("".join(lines[3:6]), "gpu-node3:5151:5200 [1] ")
    ev = _write(tmp_path, own + other)
    (failure,) = [f for f in ev.failures if f["kind"] == "nccl_warning"]
    assert failure["pid"] == 4242
    assert HEDGE in failure["message"]
    assert "TCP sockets" not in failure["message"]


def test_another_hca_opened_is_named_not_sockets(tmp_path: Path) -> None:
    text = (
        _text(BOND)
        .replace(
            "NCCL INFO NET/IB : No device found.",
            "NCCL INFO NET/IB : Using [0]mlx5_2:1/RoCE ; OOB bond0:200.1.93.2<0>",
        )
        .replace("NCCL INFO NET/Socket : Using [0]bond0:200.1.93.2<0>\n", "")
        .replace("Using network Socket", "Using network IB")
    )
    ev = _write(tmp_path, text)
    (failure,) = ev.failures
    message = failure["message"]
    assert "skipped HCA mlx5_bond_0 and went on with the HCA(s) NET/IB lists" in message
    assert "[0]mlx5_2:1/RoCE (line 4)" in message
    assert "TCP" not in message and HEDGE not in message
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"


def test_a_copy_cut_after_the_skip_keeps_the_hedge(tmp_path: Path) -> None:
    # nothing below the device's WARN: where NCCL went is not in the copy
    text = "".join(_text(BOND).splitlines(keepends=True)[:3])
    ev = _write(tmp_path, text)
    (failure,) = ev.failures
    assert HEDGE in failure["message"]
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"


def test_socket_lines_far_below_an_unnamed_skip_are_not_joined(tmp_path: Path) -> None:
    # lines naming no process: only NCCL's next few lines are its network's choice
    lines = _text(BOND).splitlines(keepends=True)
    filler = "".join(f"step {n} loss 0.5\n" for n in range(12))
    ev = _write(tmp_path, "".join(lines[:3]) + filler + "".join(lines[3:]))
    (failure,) = ev.failures
    assert HEDGE in failure["message"]


def test_the_healthy_twin_without_the_skip_stays_ready(tmp_path: Path) -> None:
    lines = _text(BOND).splitlines(keepends=True)
    ev = _write(tmp_path, "".join(lines[:1] + lines[3:]))
    assert ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
