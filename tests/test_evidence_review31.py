"""Review 31 of rounds AAA and BBB's readings (EI0004's quoted table, hccl_test's ACLCHECK, -q's
NVML error words, WARN repeats, nccl-tests' pid lines, EI0006's link, Inner Error, Gloo's
loopback, nvlink -R): each fault it found, on its input (tests/data/review31, described in
tests/data/SOURCES.md)."""

from __future__ import annotations

from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.parsers import logs, nvidia_smi
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

REVIEW = DATA / "review31"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def _events(name: str) -> list[logs.LogEvent]:
    return logs.parse((REVIEW / name).read_text()).events


def test_a_quoted_table_nested_past_the_readers_depth_is_no_table() -> None:
    # (it raised RecursionError, and the whole import with every other file was lost)
    (ev,) = _events("ei4_deep.log")
    assert ev.code == "EI0004" and ev.rank_size is None
    assert "Reason:[x]" in ev.message


def test_a_flat_traceback_keeps_ei0004s_reason() -> None:
    (ev,) = [e for e in _events("ei4_flat.log") if e.code == "EI0004"]
    assert ev.message.startswith(
        "EI0004: The ranktable is invalid,Reason:[Use a rank ID that exceeds the rank size"
    )
    assert "[the quoted rank table: 2 rank(s), rank_id 0-1" in ev.message
    assert 'File "' not in ev.message


def test_an_acl_device_set_up_failure_says_its_stage_and_cause() -> None:
    ev = _load("acl_device_init.log")
    found = builtin_findings({"evidence.failures": ev.failures}, "hccl")
    finding = found["evidence-npu-runtime-error"]
    (item,) = finding.items
    assert "hccl_test stopped in device_init" in item
    assert "cannot find rank by rank id 0" in item
    (advice,) = [r.why for r in finding.recommendations if r.kind == "advice"]
    assert "acl_base.h" in advice and "107019" not in advice


def test_nvml_error_words_in_q_are_unreadable_fields_named_by_bus() -> None:
    (gpu,) = nvidia_smi.parse_query((REVIEW / "smi_q_not_ready.txt").read_text())
    assert "Fan Speed" in gpu.unreadable
    ev = _load("smi_q_gpu52.txt")
    found = builtin_findings({"evidence.gpus": ev.gpus}, "nccl")
    # (one record of 8 picked with -i: its place in the file is no GPU index)
    (item,) = found["evidence-gpu-unreadable"].items
    assert item.startswith("GPU 00000000:52:00.0: ECC Mode / Current")


def test_warns_to_other_peer_ports_are_not_the_same_text_again() -> None:
    warned = [e for e in _events("warn_ports.log") if e.kind == "nccl_warning"]
    assert len(warned) == 3 and not any(e.repeated_lines for e in warned)
    assert len({e.message for e in warned}) == 3


def test_interleaved_failure_and_pid_lines_give_no_pid() -> None:
    failed = [e for e in _events("nt_interleave.log") if e.kind == "nccl_call_failure"]
    assert failed and all(e.pid is None for e in failed)


def test_ei0006s_link_line_of_ipv6_addresses() -> None:
    (ev,) = [e for e in _events("ei6_ipv6.log") if e.code == "EI0006"]
    assert (ev.ip, ev.remote_ip, ev.device) == ("fd00:1::125", "fd00:1::192", 0)


def test_an_inner_error_does_not_take_the_traceback_heading() -> None:
    (ev,) = [e for e in _events("inner_traceback.log") if e.code == "EI9999"]
    assert "TraceBack" not in ev.message


def test_gloos_loopback_beside_a_gloo_error_is_named_its_likely_cause() -> None:
    ev = _load("gloo_multihost.log")
    found = builtin_findings({"evidence.failures": ev.failures}, "nccl")
    (advice,) = [r.why for r in found["evidence-gloo-loopback"].recommendations]
    assert advice.startswith("Gloo also failed in these logs")


def test_nvlink_r_lists_active_links_only() -> None:
    # a whole -R (12 far ends of 18 links) is read, not called cut; one GPU short of its peers
    # is a link down or a cut copy, said as either
    ev = _load("nvlink_R_then_s_h100pcie_nvl_bridge.txt")
    (f,) = ev.files
    assert f.status == "read"
    assert not any("cut or left out" in m.message for m in f.messages)
    parsed = nvidia_smi.parse_nvlink_status((REVIEW / "nvlink_R_one_link_down.txt").read_text())
    assert not any(g.cut for g in parsed.gpus)
    (said,) = [w.message for w in parsed.warnings]
    assert said.startswith(
        "GPU 1 lists 17 link(s) with a far end where other GPUs of its model list 18"
    )
