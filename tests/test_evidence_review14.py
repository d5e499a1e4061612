"""Mends of the fourteenth review (of the thirteenth's mends and the twenty-eighth round): the
result NCCL passed up is a WARN's only on its own host, pid and device (never an IB port's async
notice), a WARN line's host is no splice, EI0002's message is read once per rank and text and
never beside its code two lines up, torch_npu's ERR02005 kept on the store read that failed.
The inputs are the review's own (tests/data/review14, SOURCES.md)."""

from __future__ import annotations

from advisor.evidence.load import EvidenceFacts, load_paths
from tests.conftest import DATA

REVIEW = DATA / "review14"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def _warns(ev: EvidenceFacts) -> dict[str, str]:
    return {f["host"]: f["message"] for f in ev.failures if f["kind"] == "nccl_warning"}


def _notices(ev: EvidenceFacts) -> dict[str | None, str]:
    return {f["host"]: f["message"] for f in ev.failures if f["kind"] == "nccl_ib_notice"}


def test_a_result_passed_up_is_said_on_its_own_hosts_warn() -> None:
    ev = _load("i1_two_hosts_same_pid_trace.log")
    # nodeA's only WARN is its IB port's GID notice (a notice of its own, no failure)
    assert "passed up" not in _notices(ev)["nodeA"]
    assert _warns(ev)["nodeB"].endswith(
        "(then 6 = ncclRemoteError passed up through bootstrap.cc, init.cc, group.cc)"
    )


def test_an_ib_ports_async_notice_takes_no_result() -> None:
    ev = _load("i1_other_thread_trace.log")
    (message,) = _notices(ev).values()
    assert message.endswith("Got async event : GID table change")
    assert not _warns(ev)


def test_a_host_on_a_warn_line_is_no_splice() -> None:
    hosts = sorted(h["host"] for h in _load("i2_pods_gpu-10_gpu-11_gpu-110_pid1.log").log_hosts)
    assert hosts == ["gpu-10", "gpu-11", "gpu-110"]


def test_ei0002s_message_is_read_once_and_never_beside_its_code() -> None:
    for name in ("i6_uncoded_same_rank_50_copies.log", "i6_coded_block_msg_two_below.log"):
        coded = [f for f in _load(name).failures if f.get("code") == "EI0002"]
        assert len(coded) == 1, name


def test_the_failed_store_read_keeps_torch_npus_code() -> None:
    (failed,) = _load("i7_store_get_errcode_next_line.log").failures
    assert (failed["kind"], failed["torch_npu_code"]) == ("unique_id_failure", "ERR02005")
