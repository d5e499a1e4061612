"""Outputs of round ZZZ's held-out set 584 that the advisor read wrong, or with a smaller fault,
before this change (tests/data/evidence_heldout_62, sources in tests/data/SOURCES.md): a
vLLM-Ascend log behind docker compose's prefix of a container named in the compose file, an
EZ9999 whose TraceBack names the device and kernel that failed, a vLLM worker's failure its
engine core relays."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence import load
from advisor.evidence.load import EvidenceFacts, load_file
from advisor.parsers import logs
from tests import heldout
from tests.conftest import DATA
from tests.test_parsers_heldout_set569 import each_linear

HELDOUT = DATA / "evidence_heldout_62"

COMPOSE_PREFIXED = (
    "vllm_ascend_3017_310p_qwen3next_docker_compose_prefix_enginecore_kvcache_format_cast_507013_"
    "cut.log"
)
EZ9999_TRACED_KERNEL = (
    "vllm_ascend_0120rc1_qwen3next_mtp_ez9999_aicore_kernel_fused_recurrent_device0_507035_"
    "terminal_wrapped_cut.log"
)
WORKER_RELAYED = (
    "vllm_ascend_2984_v091_dp4_tp8_ep_deepseekv3_worker_rank0_keyerror_quant_embed_tokens_"
    "enginecore1_failed.log"
)


_load = partial(heldout.load, HELDOUT)


def _bad(ev: EvidenceFacts, backend: str = "hccl") -> list[str]:
    """The rules that found something critical or a warning: the verdict's reasons."""
    found = heldout.found(ev, backend)
    return sorted(k for k, f in found.items() if f.severity in ("critical", "warning"))


def test_a_compose_prefix_of_a_container_named_in_the_compose_file_is_taken_off() -> None:
    ev = _load(COMPOSE_PREFIXED)
    notes = [m.message for m in ev.files[0].messages if m.line == 0]
    assert any("docker compose's container prefix taken off 11 line(s)" in n for n in notes)
    (failure,) = ev.failures
    assert failure["kind"] == "npu_runtime_error"
    assert (failure["line"], failure["code"], failure["pid"], failure["worker"]) == (
        11,
        "507013",
        412,
        "EngineCore_DP0",
    )
    assert failure["code_name"] == "ACL_ERROR_RT_SYS_DMA"
    assert failure.get("device") is None  # (the file names no device)
    assert _bad(ev) == ["evidence-npu-runtime-error"]
    said = " ".join(heldout.found(ev, "hccl")["evidence-npu-runtime-error"].items)
    assert "vllm-ascend" not in said and "HCCL" not in said


def _compose(tmp_path: Path, lines: list[str]) -> EvidenceFacts:
    log = tmp_path / "compose.log"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return load_file(log)


def test_compose_prefixes_of_a_few_named_services_read_but_no_tables_first_column(
    tmp_path: Path,
) -> None:
    # another version's compose, another service name: two services named in the compose file,
    # padded to the longer name plus one
    kept = (HELDOUT / COMPOSE_PREFIXED).read_text(encoding="utf-8").splitlines()
    ev = _compose(
        tmp_path,
        [
            "redis        | Ready to accept connections",
            *[f"vllm-server  | {line.removeprefix('vllm-ascend  | ')}" for line in kept],
        ],
    )
    assert [(f["line"], f["code"]) for f in ev.failures] == [(12, "507013")]
    # a table's first column varies row by row, and hccl_test's numeric one is no container's
    ev = _compose(
        tmp_path,
        [
            "data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): | check_result:",
            *[
                f"67108864          | 1010.{n:02d}        | 66.43837             | NULL"
                for n in range(9)
            ],
        ],
    )
    assert not any("compose" in m.message for m in ev.files[0].messages)
    names = [f"{w}   | x | y" for w in ("alpha", "beta", "gamma", "delta", "kappa", "omega")]
    assert load._compose_names(names) == frozenset()
    assert load._compose_names(["trainer-1  | a", "trainer-2  | b", "PGID   | c"]) == frozenset(
        {"trainer-1", "trainer-2", "PGID"}
    )


def test_an_ez9999_tracebacks_failed_kernel_names_its_device_and_kernel() -> None:
    ev = _load(EZ9999_TRACED_KERNEL)
    (exception,) = [f for f in ev.failures if f["kind"] == "npu_device_exception"]
    # line 7's "Aicore kernel execute failed, device_id=0, ..., fault kernel_name=fused_
    # recurrent_g          ated_..." (the terminal's wrap) read through its "fault kernel info
    # ext=", which the runtime prints whole
    assert (exception["line"], exception["code"], exception["device"], exception["pid"]) == (
        5,
        "EZ9999",
        0,
        55986,
    )
    assert exception["exception_type"] == (
        "Aicore kernel execute failed in kernel fused_recurrent_gated_delta_rule_fwd_kernel "
        "(rtDeviceSynchronizeWithTimeout failed: vector core exception)"
    )
    (runtime,) = [f for f in ev.failures if f["kind"] == "npu_runtime_error"]
    assert (runtime["line"], runtime["code"]) == (1, "507035")
    assert len(ev.failures) == 2
    assert _bad(ev) == ["evidence-npu-device-exception", "evidence-npu-runtime-error"]
    (item,) = heldout.found(ev, "hccl")["evidence-npu-device-exception"].items
    assert item.startswith("Device 0, pid 55986: Aicore kernel execute failed in kernel fused_")
    assert "fused_recurrent_g " not in item and "HCCL" not in item


def test_the_fault_kernel_reads_in_each_runtimes_wording() -> None:
    # the newest runtime's words ("[DFX_INFO]AI Core kernel execution failed, device_id=3, ...")
    # under its code, a kernel name whole before its comma kept over the ext's
    report = logs.parse(
        "EZ9999[PID: 8] 2026-01-01-00:00:00.000.000 (EZ9999):  [AIC_INFO] after execute:args "
        "print end[FUNC:GetError][FILE:stream.cc][LINE:1750]\n"
        "        TraceBack (most recent call last):\n"
        "       [DFX_INFO]AI Core kernel execution failed, device_id=3, stream_id=61, "
        "report_stream_id=61, task_id=0, flip_num=0, fault kernel_name=_Z19simt_stack_overflowPiP"
        "fj, fault kernel info ext=_Z19simt_stack_overflowPiPfj, program id=0, hash=1.\n"
    )
    (ev,) = report.of_kind("npu_device_exception")
    assert ev.device == 3
    assert ev.exception_type == (
        "AI Core kernel execution failed in kernel _Z19simt_stack_overflowPiPfj"
    )
    # an ext of "none" (no name the runtime kept) leaves the kernel_name as it stands
    assert (
        logs._fault_kernel(
            [
                "fault kernel_name=Add_ee98c6628030785f610b924ab1557b31_high_performance_210000000, "
                "fault kernel info ext=none, program id=0"
            ]
        )
        == "Add"
    )
    assert logs._fault_kernel(["fault kernel_name=Add_ee98  x, fault kernel info ext=none"]) == (
        "Add_ee98"
    )


def test_an_engine_core_relaying_its_workers_failure_is_no_second_rank() -> None:
    ev = _load(WORKER_RELAYED)
    (exited,) = ev.failures
    assert (exited["kind"], exited["line"], exited["rank"], exited["pid"]) == (
        "launcher_exit",
        2,
        0,
        14559,
    )
    assert exited["exception_type"] == (
        "vLLM (its worker did not start: KeyError: 'model.embed_tokens.weight' (line 38); its "
        "engine core EngineCore_1 then did not start (line 39))"
    )
    assert _bad(ev) == ["evidence-launcher-exit"]
    finding = heldout.found(ev, "hccl")["evidence-launcher-exit"]
    # (vLLM's worker_main logs the exception and returns: no exit code is said, set 626)
    assert finding.message.startswith("1 vLLM worker(s) did not start")


def test_the_new_patterns_are_linear_on_a_long_line_and_many_blank_lines() -> None:
    each_linear(
        [
            (load._COMPOSE_PREFIX_RE.match, "a" * 100_000),
            (load._COMPOSE_PREFIX_RE.match, "a" + " " * 99_999),
            (logs._FAULT_KERNEL_EXT_RE.search, "fault kernel info ext=" + "a" * 99_980),
            (logs._KERNEL_EXECUTE_FAILED_RE.search, "AI Core kernel " * 7_000),
        ]
    )
