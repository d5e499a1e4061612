"""Outputs of round SSSS's held-out evaluation (set 698, Ascend logs) that the advisor read in
part before this change (tests/data/evidence_heldout_79, sources in tests/data/SOURCES.md):
docker's "OCI runtime create failed" line, where containerd says ascend-docker-runtime "did not
terminate successfully: exit status 1" and the runtime's own words end the line ("owner not right
/usr/bin/runc 1000"), was a log in no form the advisor knew: its first error line quoted, cut at
300 characters before that cause, a warning. A container that cannot be created is NOT READY, and
the cause is ascend-docker-runtime's check of runc's owner (Ascend/mind-cluster
component/ascend-docker-runtime: runtime/main.go execRunc runs mindxcheckutils' FileChecker on
runc and each directory above it: owned by root, not group/other-writable)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_79"

OWNER = "ascend_docker_runtime_oci_create_failed_owner_not_right_runc_llm_action_faq_cut.log"

_write = partial(heldout.load_copy, name="docker.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _starts(ev: EvidenceFacts) -> list[dict]:
    return [f for f in ev.failures if f["kind"] == "container_start_failure"]


def test_ascend_docker_runtime_refusing_runc_owned_by_uid_1000_is_not_ready() -> None:
    ev = _load(OWNER)
    assert ev.files[0].status == "read"
    (start,) = _starts(ev)
    assert start["line"] == 1
    assert start["library"] == "Ascend Docker Runtime"
    said = start["exception_type"]
    assert said.startswith(
        "/usr/local/Ascend/Ascend-Docker-Runtime/ascend-docker-runtime exited with 1 on OCI "
        "runtime create: ascend-docker-runtime's ownership check refused /usr/bin/runc (runc"
    )
    assert "owned by uid 1000, not root" in said
    assert "fix: chown root:root /usr/bin/runc" in said
    # the quote keeps the cause at the line's end, not a 300-character head alone
    assert start["message"].endswith("owner not right /usr/bin/runc 1000")
    assert "docker: Error response from daemon" in start["message"]
    # the generic first-error-line reading gives way to the runtime's own account
    assert [f for f in ev.failures if f["kind"] == "log_error"] == []
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-container-start-failure", "critical")]
    (item,) = heldout.items(outcome, "evidence-container-start-failure")
    assert "/usr/bin/runc" in item and "uid 1000" in item
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-container-start-failure"]
    assert any("chown root:root" in r.why for r in finding.recommendations)


def test_another_owner_and_a_docker_runc_path_are_named_as_written(tmp_path: Path) -> None:
    text = _text(OWNER).replace("/usr/bin/runc 1000", "/usr/local/bin/docker-runc 1001")
    (start,) = _starts(_write(tmp_path, text))
    assert "refused /usr/local/bin/docker-runc (runc" in start["exception_type"]
    assert "owned by uid 1001, not root" in start["exception_type"]
    assert "chown root:root /usr/local/bin/docker-runc" in start["exception_type"]


def test_a_directory_above_runc_writable_by_others_is_a_permission_refusal(
    tmp_path: Path,
) -> None:
    # FileChecker checks each directory above runc too ("write permission not right <path>
    # <perm>"): the path is a directory, not runc, and the fix is chmod, not chown
    text = _text(OWNER).replace(
        "owner not right /usr/bin/runc 1000", "write permission not right /usr/bin drwxrwxrwx"
    )
    (start,) = _starts(_write(tmp_path, text))
    said = start["exception_type"]
    assert "permission check refused /usr/bin (a file it checks" in said
    assert "mode drwxrwxrwx is writable by the group or others" in said
    assert "chmod go-w /usr/bin" in said
    assert "chown" not in said


def test_another_runtimes_exit_is_a_start_failure_with_its_own_words(tmp_path: Path) -> None:
    # crun in place of the Ascend runtime (fapolicyd denying its library): no Ascend check is
    # named, crun's own output is the cause quoted
    text = _text(OWNER).replace(
        "/usr/local/Ascend/Ascend-Docker-Runtime/ascend-docker-runtime did not terminate "
        "successfully: exit status 1: 2024/07/24 09:59:29 owner not right /usr/bin/runc 1000",
        "crun did not terminate successfully: exit status 127: crun: error while loading shared "
        "libraries: libsystemd.so.0: cannot open shared object file: Operation not permitted",
    )
    ev = _write(tmp_path, text)
    (start,) = _starts(ev)
    assert start["library"] is None
    assert start["exception_type"] == (
        "crun exited with 127 on OCI runtime create: crun: error while loading shared libraries: "
        "libsystemd.so.0: cannot open shared object file: Operation not permitted"
    )
    assert heldout.imported(ev)[0] == "NOT READY"


def test_docker_exec_failing_or_a_started_container_stays_out(tmp_path: Path) -> None:
    # "OCI runtime exec failed" is docker exec into a running container, not a container that
    # could not be created: not read as a start failure
    exec_text = _text(OWNER).replace("OCI runtime create failed", "OCI runtime exec failed")
    assert _starts(_write(tmp_path, exec_text)) == []
    # the healthy twin: the same runtime's container created and started
    healthy = (
        "$ docker run -it -e ASCEND_VISIBLE_DEVICES=0 --runtime ascend ubuntu:22.04 npu-smi info\n"
        "+------------------------------------------------------------------------------------+\n"
    )
    ev = _write(tmp_path, healthy)
    assert _starts(ev) == []
    assert heldout.imported(ev)[0] == "READY"


def test_kubelets_account_of_the_same_runtime_exit_is_one_start_failure() -> None:
    # kubelet's "Error syncing pod ... RunContainerError" wraps containerd's words (set 338's
    # journal, line 3): read once, as kubelet's, not again as the runtime's
    ev = load_paths(
        [
            DATA
            / "evidence_heldout_48"
            / "hami_issue2712_kubelet_journal_zh_ascend_device_plugin_listandwatch_eof_docker_runtime_fail_cut.log"
        ]
    )
    (start,) = _starts(ev)
    assert start["exception_type"].startswith("container vllm of pod ")
