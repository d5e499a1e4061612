"""Review 61 of round OOOO (sets 677, 678 / 678b and review 60's mends), part b, faults 1-5:
nccl-tests' CUDACHECK lines behind pdsh's "g0010: " paired with their TESTCHECK pids; a Horovod
stall list the copy cut, with Keras progress bars after it; NCCL's CollNet transport named
"COL" as its source names it; DeepSpeed's "MemAllocated=...GB" said as the GiB it is; an
untagged ``ping -M do`` kept for its own run past a pdsh node's command: each on its input
(tests/data/review61, described in tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.parsers import netif
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review61"
HELDOUT = DATA / "evidence_heldout_75"

_write = partial(heldout.load_copy, name="copy.log")


def _load(name: str, where: Path = REVIEW) -> EvidenceFacts:
    return load_paths([where / name])


def _text(name: str, where: Path = REVIEW) -> str:
    return (where / name).read_text()


# --- 1. nccl-tests' CUDACHECK / TESTCHECK pairs behind a collector's prefix ----------------------

TESTS_PDSH = "nccl_tests_pdsh_g0010_g0016_prefix_test_cuda_failure_4_pids_nccltests263_variant.log"
ORDINAL = (
    "nccl_tests_nvhpc_hpcx_2node_g8_test_cuda_failure_invalid_device_ordinal_g0010_g0016_"
    "nccltests263_cut.log"
)
FOUR_PIDS = [
    ("g0010", 888386, 2),
    ("g0010", 888385, 4),
    ("g0010", 888382, 6),
    ("g0016", 3645592, 8),
]


def _cuda(ev: EvidenceFacts) -> list[tuple[str, int, int]]:
    return [(f["host"], f["pid"], f["line"]) for f in ev.failures if f["kind"] == "cuda_error"]


def test_pdsh_prefixed_cudacheck_lines_are_four_processes_by_pid() -> None:
    ev = _load(TESTS_PDSH)
    assert _cuda(ev) == FOUR_PIDS
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-cuda-error"]
    assert finding.message.startswith("4 failed CUDA or HIP call(s) (invalid device ordinal)")
    items = heldout.items(outcome, "evidence-cuda-error")
    assert items[0].startswith("g0010 pid 888386: 'invalid device ordinal' at common.cu:941")
    assert items[3].startswith("g0016 pid 3645592: ")


def test_unprefixed_real_file_still_four_processes() -> None:
    assert _cuda(_load(ORDINAL, HELDOUT)) == FOUR_PIDS


def test_kubectl_prefixed_cudacheck_lines_pair_as_before(tmp_path: Path) -> None:
    # each node's pod behind kubectl logs --prefix's "[pod/NAME/container] "
    text = "".join(
        f"[pod/nccl-{line.split(':', 1)[0]}/nccl-tests] {line.split(': ', 1)[1]}\n"
        for line in _text(TESTS_PDSH).splitlines()
    )
    assert _cuda(_write(tmp_path, text)) == FOUR_PIDS


def test_pdsh_prefixed_ncclcheck_lines_pair_with_their_pids(tmp_path: Path) -> None:
    # NCCLCHECK's "HOST: Test NCCL failure ..." with the same TESTCHECK lines under it: the
    # same pairing (it read 2 failures with no pid behind pdsh's prefix before the mend)
    text = _text(TESTS_PDSH).replace(
        "Test CUDA failure common.cu:941 'invalid device ordinal'",
        "Test NCCL failure common.cu:1005 'unhandled system error'",
    )
    ev = _write(tmp_path, text)
    calls = [(f["host"], f["pid"], f["line"]) for f in ev.failures]
    assert calls == FOUR_PIDS
    assert {f["kind"] for f in ev.failures} == {"nccl_call_failure"}


def test_a_prefixed_testcheck_line_of_another_host_pairs_with_nothing(tmp_path: Path) -> None:
    # g0016's TESTCHECK line names g0099: not the CUDACHECK's process, so no pid is given it
    text = _text(TESTS_PDSH).replace("g0016 pid 3645592", "g0099 pid 3645592")
    assert _cuda(_write(tmp_path, text))[-1] == ("g0016", None, 8)


# --- 2. a Horovod stall list cut by the copy, unrelated lines after it ---------------------------

CUT_KERAS = "horovod_stall_rank0_list_cut_then_keras_progress_bars_horovod1206_variant.log"
STALL = (
    "horovod_keras_stall_inspector_rank0_stalled_allreduce_over_60s_gcp_p100_horovod1206_cut.log"
)
FIRST = "training/Adadelta_Allreduce/HorovodAllreduce_Adadelta_1_gradients_AddN_102_0"


def _stall(ev: EvidenceFacts) -> dict:
    (stall,) = [f for f in ev.failures if f["kind"] == "horovod_stall"]
    return stall


def test_a_cut_list_is_not_joined_with_keras_progress_bars() -> None:
    ev = _load(CUT_KERAS)
    stall = _stall(ev)
    assert stall["missing_ranks"] == [0]
    said = stall["exception_type"]
    assert f"rank 0 had not submitted {FIRST}, the list cut (allreduce)" in said
    assert "and 1 more" not in said and "ETA" not in said
    level, _ = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"


def test_the_real_wrapped_list_still_reads_its_six_names() -> None:
    said = _stall(_load(STALL, HELDOUT))["exception_type"]
    assert f"{FIRST} and 5 more, the list cut (allreduce)" in said


def test_a_cut_list_then_a_logger_line_with_a_bracket(tmp_path: Path) -> None:
    lines = _text(CUT_KERAS).splitlines()
    text = "\n".join([*lines[:3], "loss history: [2.3026, 2.2803]", "INFO [trainer] epoch 1"])
    said = _stall(_write(tmp_path, text + "\n"))["exception_type"]
    assert f"{FIRST}, the list cut (allreduce)" in said and "and 1 more" not in said


def test_a_list_wrapped_then_closed_before_a_progress_bar(tmp_path: Path) -> None:
    # the list's rest on the next line with its "]": joined; the progress bar after it is not
    lines = _text(CUT_KERAS).splitlines()
    rest = FIRST.replace("102_0", "103_0") + "]"
    text = "\n".join([*lines[:3], rest, *lines[3:]])
    stall = _stall(_write(tmp_path, text + "\n"))
    assert stall["missing_ranks"] == [0]
    assert f"{FIRST} and 1 more (allreduce)" in stall["exception_type"]
    assert "the list cut" not in stall["exception_type"]


# --- 3. NCCL's CollNet transport, named as its source names it ----------------------------------

COLLNET = "nccl_warn_coll_net_cc_912_cuda_failure_invalid_argument_sglang6246_variant.log"
P2P = (
    "sglang_nccl_proxy_trace_p2p_cumem_setup_then_rank0_p2p_cc275_cuda_failure_invalid_argument_"
    "sglang6246_cut.log"
)


def _warn_call(ev: EvidenceFacts) -> str:
    (warn,) = [f for f in ev.failures if f["kind"] == "nccl_warning"]
    return str(warn["call"])


def test_coll_net_failure_names_the_col_transport() -> None:
    ev = _load(COLLNET)
    assert _warn_call(ev) == "transport/coll_net.cc:912 (NCCL's COL transport, CollNet)"
    level, _ = heldout.imported(ev)
    assert level == "NOT READY"


def test_p2p_and_net_transports_keep_their_names(tmp_path: Path) -> None:
    assert _warn_call(_load(P2P, HELDOUT)) == "transport/p2p.cc:275 (NCCL's P2P transport)"
    text = _text(COLLNET).replace("coll_net.cc:912", "net.cc:1301")
    assert _warn_call(_write(tmp_path, text)) == "transport/net.cc:1301 (NCCL's NET transport)"


# --- 4. DeepSpeed's memory figures: GiB, which it labels "GB" -----------------------------------

DS_PDSH = "deepspeed_pdsh_192_168_1_1_prefix_step_throughput_memalloc_gib_dsexamples381_variant.log"
DS_STEP = (
    "deepspeed_2node_16xa100_step13120_skipped223_runningavgsamplespersec_4.54_memalloc_31gb_"
    "healthy_dsexamples381_cut.log"
)
MEM_SAID = (
    "31.36 GiB of accelerator memory allocated (at most 36.97 GiB; DeepSpeed prints 'GB') (line 2)"
)


def _ds_note(ev: EvidenceFacts) -> str:
    (note,) = [m for m in heldout.said(ev) if "DeepSpeed's" in m]
    return note


def test_memory_figures_are_said_in_gib_real_and_behind_pdsh() -> None:
    for ev in (_load(DS_STEP, HELDOUT), _load(DS_PDSH)):
        note = _ds_note(ev)
        assert MEM_SAID in note
        assert " GB of" not in note
        assert heldout.imported(ev)[0] == "READY"


def test_other_memory_figures_keep_their_digits(tmp_path: Path) -> None:
    text = _text(DS_STEP, HELDOUT).replace("MemAllocated=31.36GB", "MemAllocated=70.5GB")
    text = text.replace("MaxMemAllocated=36.97GB", "MaxMemAllocated=75.12GB")
    note = _ds_note(_write(tmp_path, text))
    assert "70.5 GiB of accelerator memory allocated (at most 75.12 GiB;" in note


# --- 5. ping: a shell's untagged -M do kept past a pdsh node's own command ----------------------

PING_MIXED = "ping_shell_M_do_s1472_then_pdsh_gpu01_own_command_machineshop30_variant.txt"
PDSH59 = (
    DATA / "review59" / "ping_flood_ctrlc_pdsh_gpu01_prefix_2117_of_2240_machineshop30_variant.txt"
)


def _runs(text: str) -> list[tuple[str | None, int, bool | None, bool]]:
    return [
        (r.node, r.payload_bytes, r.dont_fragment, r.stopped_early) for r in netif.parse_ping(text)
    ]


def test_the_shell_command_goes_to_its_own_run_not_to_gpu01s() -> None:
    # gpu01's own "ping -f" (no -M do, stopped by ^C) and the shell's "ping -M do -s 1472 -c 3"
    assert _runs(_text(PING_MIXED)) == [("gpu01", 56, False, True), (None, 1472, True, False)]
    assert _load(PING_MIXED).files[0].status == "read"


def test_the_real_pdsh_run_reads_as_before() -> None:
    assert _runs(PDSH59.read_text()) == [("gpu01", 56, False, True)]


def test_a_node_with_no_command_of_its_own_takes_the_shells() -> None:
    # the typed "$ pdsh -w gpu01 ping -M do ..." line is untagged: gpu01's run takes it
    lines = PDSH59.read_text().splitlines()
    text = "\n".join(["$ pdsh -w gpu01 ping -M do -c 2240 lager.cs.illinois.edu", *lines[1:]])
    assert _runs(text) == [("gpu01", 56, True, True)]  # (its ^C: stopped early)


def test_two_nodes_commands_and_the_shells_each_to_its_run() -> None:
    lines = _text(PING_MIXED).splitlines()
    gpu02 = [
        "gpu02: root@porter:/# ping -M do -w 5 lager.cs.illinois.edu",
        "gpu02: PING lager.cs.illinois.edu (192.17.58.137) 56(84) bytes of data.",
    ]
    text = "\n".join([lines[0], *gpu02, *lines[1:]])
    assert _runs(text) == [
        ("gpu02", 56, True, True),
        ("gpu01", 56, False, True),
        (None, 1472, True, False),
    ]
