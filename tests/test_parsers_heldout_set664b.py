"""Outputs of round MMMM's held-out evaluation (set 664, network and node tool outputs on GPU
clusters) that the advisor read in part before this change (tests/data/evidence_heldout_73,
sources in tests/data/SOURCES.md): UCX's "Transport retry count exceeded on mlx5_1:1/RoCE" with
the peer its DC QP was sending to (dgid ::ffff:10.150.5.46, the QP dump on the next line) not
named, nor what running out of retries means; and the Mooncake transfer engine's "[Handshake]
Failed to modify QP to RTR ... Connection timed out [110]" read as an unknown program's error
line (a warning), its device mlx5_0 and link-local GID index 1 not named."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.rules.findings import RulesOutcome
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_73"

UCX = "ucx_dc_transport_retry_count_exceeded_mlx5_1_roce_synd_0x15_vend_0x81_backtrace_ucx6522_cut.log"
MOONCAKE = (
    "mooncake_transfer_engine_mlx5_0_gid_index_1_link_local_failed_modify_qp_rtr_timed_out_110_"
    "mooncake204_cut.log"
)

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _advice(outcome: RulesOutcome, rule_id: str) -> list[str]:
    (finding,) = [f for f in outcome.findings if f.rule_id == rule_id]
    return [r.why for r in finding.recommendations]


# --- UCX: the peer a retry-exceeded completion's work request went to ---------------------------


def test_ucx_retry_exceeded_names_the_peer_of_its_qp_dump() -> None:
    ev = _load(UCX)
    (failed,) = ev.failures
    assert failed["kind"] == "ucx_error"
    assert (failed["line"], failed["host"], failed["pid"]) == (1, "x1005c4s5b0n0", 37049)
    assert failed["remote_ip"] == "10.150.5.46"
    said = failed["exception_type"]
    assert said.startswith(
        "Transport retry count exceeded on mlx5_1:1/RoCE, sending to 10.150.5.46 "
        "(dgid ::ffff:10.150.5.46, traffic class 106; DCI QP 0x221d1, line 2)"
    )
    assert "that peer or the path to it stopped answering" in said
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-ucx-error", "critical")]
    (item,) = heldout.items(outcome, "evidence-ucx-error")
    assert item.startswith("x1005c4s5b0n0 pid 37049: Transport retry count exceeded on mlx5_1:1")
    assert "10.150.5.46" in item and item.endswith("line 1)")


def test_ucx_retry_exceeded_on_another_host_device_and_peer(tmp_path: Path) -> None:
    text = (
        _text(UCX)
        .replace("x1005c4s5b0n0:37049", "gpu-a17:2211")
        .replace("mlx5_1:1", "mlx5_3:1")
        .replace("10.150.5.46", "10.150.7.12")
        .replace("tc 106", "tc 96")
    )
    ev = _write(tmp_path, text)
    (failed,) = ev.failures
    assert (failed["host"], failed["pid"], failed["remote_ip"]) == ("gpu-a17", 2211, "10.150.7.12")
    assert failed["exception_type"].startswith(
        "Transport retry count exceeded on mlx5_3:1/RoCE, sending to 10.150.7.12 "
        "(dgid ::ffff:10.150.7.12, traffic class 96; DCI QP 0x221d1, line 2)"
    )


def test_ucx_qp_dump_of_another_process_names_no_peer(tmp_path: Path) -> None:
    # (the dump under the error is another process's: its peer is not this error's)
    lines = _text(UCX).splitlines(True)
    lines[1] = lines[1].replace(":37049:0:37049]", ":40001:0:40001]")
    ev = _write(tmp_path, "".join(lines))
    (failed,) = ev.failures
    assert failed["remote_ip"] is None
    assert failed["exception_type"] == "Transport retry count exceeded on mlx5_1:1/RoCE"


def test_ucx_infiniband_qp_dump_names_the_peers_lid(tmp_path: Path) -> None:
    # (on InfiniBand the address vector holds the peer's LID, "rlid N", no GID)
    lines = _text(UCX).splitlines(True)
    lines[0] = lines[0].replace("/RoCE", "/IB")
    lines[1] = lines[1].replace(
        "rmac 00:00:00:00:00:00 sgix 3 dgid ::ffff:10.150.5.46 tc 106]", "rlid 417]"
    )
    ev = _write(tmp_path, "".join(lines))
    (failed,) = ev.failures
    assert failed["remote_ip"] is None
    assert failed["exception_type"].startswith(
        "Transport retry count exceeded on mlx5_1:1/IB, sending to LID 417 (DCI QP 0x221d1, line 2)"
    )


def test_ucx_backtrace_without_the_error_stays_ready(tmp_path: Path) -> None:
    # (the healthy twin: nothing but the QP dump's line is no error of UCX's)
    lines = _text(UCX).splitlines(True)
    ev = _write(tmp_path, "".join(lines[1:3]))
    assert not [f for f in ev.failures if f["kind"] == "ucx_error"]


# --- Mooncake: the RDMA handshake that could not bring its QP to RTR ----------------------------


def test_mooncake_rtr_failure_is_a_handshake_failure_on_a_link_local_gid() -> None:
    ev = _load(MOONCAKE)
    assert ev.files[0].formats == ["log"]
    (failed,) = ev.failures
    assert failed["kind"] == "rdma_handshake_failed"
    assert failed["line"] == 8
    assert (failed["code"], failed["code_name"]) == ("110", "ETIMEDOUT")
    assert failed["exception_type"] == (
        "mlx5_0 (GID index 1, fe80::9e63:c0ff:fe65:ab90, a link-local GID, line 5): "
        "Failed to modify QP to RTR: Connection timed out [110]"
    )
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-rdma-handshake-failed", "critical")]
    (item,) = heldout.items(outcome, "evidence-rdma-handshake-failed")
    assert item.startswith("mlx5_0 (GID index 1, fe80::9e63:c0ff:fe65:ab90, a link-local GID")
    assert item.endswith("line 8)")
    (advice,) = _advice(outcome, "evidence-rdma-handshake-failed")
    assert "MC_GID_INDEX" in advice and "link-local" in advice


def test_mooncake_ipv4_gid_on_another_device_is_not_called_link_local(tmp_path: Path) -> None:
    text = (
        _text(MOONCAKE)
        .replace("mlx5_0", "mlx5_2")
        .replace(
            "(GID_Index 1) fe:80:00:00:00:00:00:00:9e:63:c0:ff:fe:65:ab:90",
            "(GID_Index 3) 00:00:00:00:00:00:00:00:00:00:ff:ff:0a:96:05:2e",
        )
        .replace("Connection timed out [110]", "Invalid argument [22]")
    )
    ev = _write(tmp_path, text)
    (failed,) = ev.failures
    assert (failed["code"], failed["code_name"]) == ("22", "EINVAL")
    assert failed["exception_type"] == (
        "mlx5_2 (GID index 3, ::ffff:10.150.5.46, IPv4 10.150.5.46, line 5): "
        "Failed to modify QP to RTR: Invalid argument [22]"
    )


def test_mooncake_repeated_handshake_failures_are_one_with_their_lines(tmp_path: Path) -> None:
    lines = _text(MOONCAKE).splitlines(True)
    again = lines[7].replace("12:03:04.222625", "12:03:21.030117")
    ev = _write(tmp_path, "".join([*lines, again, again]))
    (failed,) = ev.failures
    assert failed["line"] == 8
    assert failed["repeated_lines"] == [9, 10]
    _, outcome = heldout.imported(ev)
    (item,) = heldout.items(outcome, "evidence-rdma-handshake-failed")
    assert "again at line(s) 9, 10" in item


def test_mooncake_start_without_the_handshake_error_stays_ready(tmp_path: Path) -> None:
    # (the healthy twin: the device opened, the buffer registered, no handshake error)
    lines = _text(MOONCAKE).splitlines(True)
    ev = _write(tmp_path, "".join(lines[:7]))
    assert not [f for f in ev.failures if f["kind"] == "rdma_handshake_failed"]
    level, _ = heldout.imported(ev)
    assert level == "READY"
