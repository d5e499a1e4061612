"""Outputs of round UUUU's held-out evaluation (set 713, NVIDIA collective logs) that the advisor
read wrong or in part before this change (tests/data/evidence_heldout_81, sources in
tests/data/SOURCES.md): NCCL's "no algorithm/protocol available" text copied without its WARN
prefix was no format the advisor knew (ncclInvalidUsage where NCCL_ALGO was set); RCCL's cuMem
capability WARN ("cuMem support requires VMM RDMA support", cuMem off anyway by
NCCL_CUMEM_ENABLE=0) was taken for the process's error; and an NCCL 2.4.8 start-up of one process
driving four GPUs warned of its libibverbs fallback, its old lines giving no rank count to say
the sockets carry nothing there."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_81"

NO_ALGO = "nccl_nvls_allreduce_int64_no_algorithm_invalid_usage_nccl1898.log"
CUMEM = "rccl_2_30_4_rx7900xtx_container_init_cumem_vmm_warn_cut_rocm6074.log"
OLD_NCCL = "nccl_2_4_8_aliyun_socket_init_no_ibverbs_cut_nccl262.log"

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


# --- NCCL's "no algorithm/protocol available", without its WARN prefix ----------------------


def test_the_bare_no_algorithm_line_is_invalid_usage_naming_nccl_algo() -> None:
    ev = _load(NO_ALGO)
    assert ev.files[0].status == "read" and ev.files[0].formats == ["log"]
    (failure,) = ev.failures
    assert failure["kind"] == "nccl_warning" and failure["line"] == 1
    assert failure["code_name"] == "ncclInvalidUsage"
    assert "NCCL_ALGO=reducescatter:nvls;allreduce:nvls" in failure["exception_type"]
    assert "left AllReduce on ncclInt64 no algorithm" in failure["exception_type"]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-nccl-warning", "critical")]
    (item,) = heldout.items(outcome, "evidence-nccl-warning")
    assert "ncclInvalidUsage: NCCL_ALGO=" in item and "line 1)" in item


def test_the_prefixed_line_says_the_same_of_its_process(tmp_path: Path) -> None:
    text = "gpu-7:4242:4242 [3] enqueue.cc:1910 NCCL WARN " + _text(NO_ALGO)
    ev = _write(tmp_path, "\n" + text)
    (failure,) = ev.failures
    assert (failure["host"], failure["pid"], failure["device"], failure["line"]) == (
        "gpu-7",
        4242,
        3,
        2,
    )
    assert failure["code_name"] == "ncclInvalidUsage"
    assert "NCCL_ALGO=reducescatter:nvls;allreduce:nvls" in str(failure["exception_type"])
    assert heldout.imported(ev)[0] == "NOT READY"


def test_nccl_proto_alone_is_named_and_no_setting_is_an_internal_error(tmp_path: Path) -> None:
    proto = _write(
        tmp_path,
        "Error : no algorithm/protocol available for function AllGather with datatype "
        "ncclInt8. NCCL_PROTO was set to LL128.\n",
    )
    (failure,) = proto.failures
    assert failure["code_name"] == "ncclInvalidUsage"
    assert "NCCL_PROTO=LL128" in str(failure["exception_type"])
    assert "NCCL_ALGO" not in str(failure["exception_type"]).split(" (")[0]
    bare = _write(
        tmp_path,
        "Error : no algorithm/protocol available for function Broadcast with datatype ncclInt8.\n",
    )
    (failure,) = bare.failures
    assert failure["code_name"] == "ncclInternalError"


# --- RCCL's cuMem capability WARN ------------------------------------------------------------


def test_rccls_cumem_warn_with_cumem_off_is_a_note_and_ready() -> None:
    ev = _load(CUMEM)
    assert ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    said = dict(_said(ev))
    assert said[1].startswith(
        "log: a88286dd3b8f pid 7 device 1: RCCL's cuMem capability check said no "
        "('cuMem support requires VMM RDMA support', line(s) 1)"
    )
    assert "NCCL_CUMEM_ENABLE=0 was set by the environment" in said[1]
    assert said[10] == "log: RCCL 2.30.4-HEAD:2b22ab0"
    assert said[16].startswith("log: a88286dd3b8f: RCCL detected 0 IB device(s)")


def test_the_cumem_warn_on_another_host_without_the_env_line_is_a_note(tmp_path: Path) -> None:
    lines = _text(CUMEM).replace("a88286dd3b8f", "node-b").splitlines(keepends=True)
    ev = _write(tmp_path, "".join(lines[:1] + lines[2:]))  # NCCL_CUMEM_ENABLE's line dropped
    assert ev.failures == []
    note = dict(_said(ev))[1]
    assert note.startswith("log: node-b pid 7 device 1: RCCL's cuMem capability check said no")
    assert "NCCL_CUMEM_ENABLE" not in note
    assert heldout.imported(ev)[0] == "READY"


def test_the_cumem_warn_stays_one_where_the_environment_forced_cumem_on(tmp_path: Path) -> None:
    text = _text(CUMEM).replace(
        "NCCL_CUMEM_ENABLE set by environment to 0.", "NCCL_CUMEM_ENABLE set by environment to 1."
    )
    ev = _write(tmp_path, text)
    (failure,) = ev.failures
    assert failure["line"] == 1 and failure["message"] == "cuMem support requires VMM RDMA support"
    assert heldout.imported(ev)[0] == "NOT READY"


# --- NCCL 2.4.8: libibverbs missing, one process driving four GPUs ---------------------------


def test_one_process_of_four_gpus_without_libibverbs_is_ready() -> None:
    ev = _load(OLD_NCCL)
    assert ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    said = dict(_said(ev))
    assert said[7].startswith(
        "log: NCCL could not open libibverbs.so (line(s) 7), but the log is one process "
        "(aliyun pid 82174) driving 4 GPUs (0, 1, 2, 3) on one host"
    )
    assert said[11] == "log: NCCL 2.4.8+cuda9.0"


def test_the_same_on_another_host_with_two_gpus_is_ready(tmp_path: Path) -> None:
    lines = _text(OLD_NCCL).replace("aliyun:82174", "box9:555").splitlines(keepends=True)
    kept = [line for line in lines if "[2]" not in line and "[3]" not in line]
    ev = _write(tmp_path, "".join(kept))
    assert ev.failures == []
    assert "(box9 pid 555) driving 2 GPUs (0, 1)" in dict(_said(ev))[7]
    assert heldout.imported(ev)[0] == "READY"


def test_a_second_process_or_a_channel_over_the_network_keeps_the_warning(
    tmp_path: Path,
) -> None:
    text = _text(OLD_NCCL)
    # two processes: the log no longer says one process drives every GPU there is
    two = text.replace("aliyun:82174:82335 [1]", "aliyun:90001:90002 [1]")
    assert heldout.imported(_write(tmp_path, two))[0] == "READY WITH WARNINGS"
    # a channel over NET/Socket: the sockets carry traffic
    net = text + "\naliyun:82174:82401 [0] NCCL INFO Ring 00 : 3 -> 4 [send] via NET/Socket/0\n"
    assert heldout.imported(_write(tmp_path, net))[0] != "READY"
