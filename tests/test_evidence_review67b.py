"""Review 67 (part b) of ``advisor import``'s log reader, faults 1-3: a script's NameError beside
NCCL's WARN that it uses its internal net plugin; NCCL's "no algorithm/protocol" line behind
pdsh's "node: " (and kubectl's pod, a time stamp, NCCL_ALGO set empty); DeepSpeed's launcher
killing its workers and raising CalledProcessError after a worker's NameError: each on its input
(tests/data/review67, described in tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review67"
HELDOUT80 = DATA / "evidence_heldout_80"
HELDOUT81 = DATA / "evidence_heldout_81"

_write = partial(heldout.load_copy, name="copy.log")


def _load(name: str, where: Path = REVIEW) -> EvidenceFacts:
    return load_paths([where / name])


def _kinds(ev: EvidenceFacts) -> list[tuple[str, int]]:
    return [(f["kind"], f["line"]) for f in ev.failures]


DS618 = "deepspeed_launcher_2gpu_user_script_nameerror_ds618_cut.log"


def _ds618_real() -> None:
    """The real ds618 file: both workers' NameError, the script's bug."""
    real = _load(DS618, HELDOUT80)
    assert _kinds(real) == [("user_script_error", 11)]
    assert heldout.imported(real)[0] == "READY WITH WARNINGS"


# --- 1. a NameError beside NCCL's WARN of its internal net plugin ----------------------------

PLUGIN = "ds618_nameerror_beside_nccl_warn_net_plugin_not_found_internal_plugin.log"
PLUGIN_WARN = (
    "host01:1284057:1284057 [0] NCCL WARN NET/Plugin: Could not find: libnccl-net.so. "
    "Using internal network plugin."
)


def test_a_plugin_notice_warn_leaves_the_nameerror_the_scripts_bug() -> None:
    ev = _load(PLUGIN)
    # (the WARN names only NCCL's default libnccl-net.so, which it looks for on every start: no
    # plugin was set, nothing to say of it; "Using internal network plugin." is NCCL's words,
    # once taken for plugin names)
    assert _kinds(ev) == [("user_script_error", 13)]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert sorted(heldout.above_info(outcome)) == [("evidence-user-script-error", "warning")]
    _ds618_real()


def test_a_code_like_word_outside_a_cann_line_form_is_no_cluster_error(tmp_path: Path) -> None:
    # ("disk ES3000  v5": E, a letter, four digits, but none of CANN's own line forms)
    text = (REVIEW / PLUGIN).read_text().replace(PLUGIN_WARN, "data disk ES3000  v5 mounted")
    ev = _write(tmp_path, text)
    assert _kinds(ev) == [("user_script_error", 13)]


def test_an_eio_line_beside_the_nameerror_keeps_it_the_failure_and_says_why(
    tmp_path: Path,
) -> None:
    text = (
        (REVIEW / PLUGIN)
        .read_text()
        .replace(PLUGIN_WARN, "cp: error reading '/lustre/data/index.bin': Input/output error")
    )
    ev = _write(tmp_path, text)
    assert _kinds(ev) == [("python_exception", 13)]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-python-exception"]
    # the words say why it was raised, not "nothing in the log names a communication error"
    assert "nothing in the log names" not in finding.message
    assert "names a communication, device or I/O error" in finding.message
    (item,) = heldout.items(outcome, "evidence-python-exception")
    assert "beside it, line 9: cp: error reading '/lustre/data/index.bin'" in item


def test_an_nccl_warn_read_as_an_error_is_the_failure_not_the_script(tmp_path: Path) -> None:
    text = (
        (REVIEW / PLUGIN)
        .read_text()
        .replace(
            "NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.",
            "NET/IB : Got completion from peer 10.0.0.2<45678> with error 12, opcode 0, len 0, "
            "vendor err 129",
        )
    )
    ev = _write(tmp_path, text)
    assert "user_script_error" not in {k for k, _ in _kinds(ev)}
    assert heldout.imported(ev)[0] == "NOT READY"


# --- 2. NCCL's "no algorithm/protocol" line behind a collector's prefix ----------------------

PDSH_NO_ALGO = "nccl1898_no_algorithm_allreduce_int64_nccl_algo_nvls_behind_pdsh_gpu_node_03.log"
NCCL1898 = "nccl_nvls_allreduce_int64_no_algorithm_invalid_usage_nccl1898.log"
NO_ALGO = "Error : no algorithm/protocol available for function AllReduce with datatype ncclInt64."


def _no_algo(ev: EvidenceFacts) -> tuple[str | None, str | None, str]:
    (f,) = ev.failures
    assert (f["kind"], f["line"]) == ("nccl_warning", 1)
    return f["host"], f["code_name"], f["exception_type"]


def test_the_no_algorithm_line_behind_pdsh_is_read_naming_the_host() -> None:
    host, code, why = _no_algo(_load(PDSH_NO_ALGO))
    assert (host, code) == ("gpu-node-03", "ncclInvalidUsage")
    assert why.startswith("ncclInvalidUsage: NCCL_ALGO=reducescatter:nvls;allreduce:nvls ")
    assert heldout.imported(_load(PDSH_NO_ALGO))[0] == "NOT READY"
    # the real file (no prefix) reads as before
    real = _load(NCCL1898, HELDOUT81)
    assert _no_algo(real)[1:] == (code, why)
    assert heldout.imported(real)[0] == "NOT READY"


def test_the_no_algorithm_line_behind_kubectl_or_a_time_stamp_is_read(tmp_path: Path) -> None:
    for prefix in (
        "[pod/trainer-0/main] ",
        "2024-05-01T12:00:00.123456789Z ",
        "gpu-node-03: [2024-05-01 12:00:00] ",
    ):
        ev = _write(tmp_path, f"{prefix}{NO_ALGO} NCCL_PROTO was set to LL128.\n")
        _, code, why = _no_algo(ev)
        assert code == "ncclInvalidUsage", prefix
        assert why.startswith("ncclInvalidUsage: NCCL_PROTO=LL128 "), prefix


def test_nccl_algo_set_empty_is_still_invalid_usage(tmp_path: Path) -> None:
    # (NCCL reads it with getenv: "" is set, so " NCCL_ALGO was set to ." and ncclInvalidUsage)
    ev = _write(tmp_path, f"gpu-node-03: {NO_ALGO} NCCL_ALGO was set to .\n")
    host, code, why = _no_algo(ev)
    assert (host, code) == ("gpu-node-03", "ncclInvalidUsage")
    assert why.startswith("ncclInvalidUsage: NCCL_ALGO= (an empty value) ")
    # neither set: NCCL's ncclInternalError, with a prefix too
    _, code, _ = _no_algo(_write(tmp_path, f"gpu-node-03: {NO_ALGO}\n"))
    assert code == "ncclInternalError"


# --- 3. DeepSpeed's launcher's own traceback after a worker's NameError -----------------------

LAUNCHER = "ds618_nameerror_then_deepspeed_launcher_kills_calledprocesserror_exit1.log"


def test_the_launchers_calledprocesserror_after_a_nameerror_is_its_consequence() -> None:
    ev = _load(LAUNCHER)
    assert _kinds(ev) == [("user_script_error", 11)]
    assert ev.failures[0]["message"] == "NameError: name 'garbageeeeee' is not defined"
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-user-script-error", "warning")]
    _ds618_real()


def test_the_launchers_traceback_without_its_kills_is_still_a_consequence(
    tmp_path: Path,
) -> None:
    # (the copy cut the "Killing subprocess" lines: the launcher's frames say whose it is)
    lines = (REVIEW / LAUNCHER).read_text().splitlines(keepends=True)
    ev = _write(tmp_path, "".join(lines[:15] + lines[30:]))
    assert _kinds(ev) == [("user_script_error", 11)]


def test_a_scripts_own_calledprocesserror_after_a_nameerror_is_the_failure(
    tmp_path: Path,
) -> None:
    # (a worker's own subprocess call, no launcher frame: another worker's error, not a relay)
    real = (HELDOUT80 / DS618).read_text()
    text = real + (
        "Traceback (most recent call last):\n"
        '  File "prep.py", line 7, in <module>\n'
        '    subprocess.run(["rsync", "-a", src, dst], check=True)\n'
        "subprocess.CalledProcessError: Command '['rsync', '-a', 'a', 'b']' returned non-zero "
        "exit status 23.\n"
    )
    ev = _write(tmp_path, text)
    assert [f["kind"] for f in ev.failures] == ["python_exception"]
    assert ev.failures[0]["exception_type"] == "CalledProcessError"
