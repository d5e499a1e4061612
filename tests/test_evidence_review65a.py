"""Review 65 of round TTTT (sets 697-699), part a, faults 1 to 5: MindCluster's hccn_tool -stat
CSV with one sample or no RoCE traffic between its samples; ascend-docker-runtime's refusal of
runc inside ``kubectl describe pod``'s Events table; a black box driver.txt whose fail-info line
stands too far below its excep_id; ascend-docker-runtime's own run log refusing runc; dockerd's
journal quote of the same refusal ending ``: unknown"``: each on its input (tests/data/review65,
described in tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review65"
HELDOUT68 = DATA / "evidence_heldout_68"
HELDOUT79 = DATA / "evidence_heldout_79"

_write = partial(heldout.load_copy, name="copy.txt")


def _load(name: str, where: Path = REVIEW) -> EvidenceFacts:
    return load_paths([where / name])


def _starts(ev: EvidenceFacts) -> list[dict]:
    return [f for f in ev.failures if f["kind"] == "container_start_failure"]


# --- 1. hccn_tool -stat CSV: no share judged without RoCE traffic between samples ---------------

NPU0_3SAMPLES = (
    "mindcluster_npu_0_details_csv_hccn_stat_counters_dev0_3samples_no_roce_err_rx_pfc_1e9.csv"
)
NPU0_ONE = "mindcluster_npu_0_details_csv_one_sample_rx_pfc_1e9_totals_since_driver_start.csv"
NPU0_IDLE = "mindcluster_npu_0_details_csv_two_samples_10s_apart_no_roce_tx_no_pfc_added.csv"


def test_one_sample_says_its_totals_with_no_congestion_judged() -> None:
    ev = _load(NPU0_ONE)
    ((_, note),) = heldout.notes(ev)
    assert "1,014,562,045 (line 2); 0.32 a RoCE packet sent since the driver started" in note
    assert "no congestion share judged: one sample, the totals are since the driver started" in note
    assert ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []


def test_two_samples_with_no_roce_packet_between_them_judge_no_share() -> None:
    ev = _load(NPU0_IDLE)
    ((_, note),) = heldout.notes(ev)
    assert "1,014,562,045 (line 2) to 1,014,562,045 (line 3), +0 in 10 s" in note
    assert "no RoCE packet sent (roce_tx_all_pkt_num) between the samples" in note
    assert ev.failures == []
    assert heldout.imported(ev)[0] == "READY"


def test_pause_frames_added_with_no_roce_sent_between_samples_judge_no_share(
    tmp_path: Path,
) -> None:
    # the idle pair with 50,000 pause frames added at line 3 but still no RoCE packet sent: no
    # base to weigh them on, so said, not judged
    text = (REVIEW / NPU0_IDLE).read_text().splitlines(keepends=True)
    text[2] = text[2].replace("1014562045", "1014612045", 1)
    assert text[2] != (REVIEW / NPU0_IDLE).read_text().splitlines(keepends=True)[2]
    ev = _write(tmp_path, "".join(text))
    ((_, note),) = heldout.notes(ev)
    assert "+50,000 in 10 s" in note and "no congestion share judged" in note
    assert ev.failures == []


def test_the_real_three_samples_still_weigh_their_growth() -> None:
    # set 631's copy this one is cut from: +98,813 on +4,820,833 RoCE packets, 0.02, READY
    ev = _load(NPU0_3SAMPLES, HELDOUT68)
    ((_, note),) = heldout.notes(ev)
    assert "0.02 a RoCE packet sent between the samples" in note
    assert "no congestion share judged" not in note
    assert ev.failures == [] and heldout.imported(ev)[0] == "READY"


def test_real_growth_past_the_share_is_still_congestion() -> None:
    # set 697's NPU 1 (3 samples, RoCE sent between them, 0.039): still a warning
    ev = _load(
        "hccn_tool_stat_csv_npu1_pfc_pri4_rx_964m_tx_3_4m_no_err_mindcluster_faultdiag.txt",
        HELDOUT79,
    )
    assert [f["kind"] for f in ev.failures] == ["npu_pfc_congestion"]
    assert "sent between its samples" in str(ev.failures[0]["exception_type"])


# --- 2. kubectl describe pod: the OCI runtime's line in the Events table's message column --------

DESCRIBE = "kubectl_describe_pod_events_ascend_docker_runtime_owner_not_right_runc_1000.txt"
DESCRIBE_CUT = (
    "kubectl_describe_pod_events_header_and_one_failed_row_twice_ascend_runtime_owner.txt"
)
OWNER_REAL = "ascend_docker_runtime_oci_create_failed_owner_not_right_runc_llm_action_faq_cut.log"


def _owner_item(ev: EvidenceFacts) -> str:
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-container-start-failure", "critical")]
    (item,) = heldout.items(outcome, "evidence-container-start-failure")
    return item


def test_kubectl_describe_events_read_the_runtimes_refusal() -> None:
    ev = _load(DESCRIBE)
    assert ev.files[0].status == "read" and ev.files[0].formats == ["log"]
    (start,) = _starts(ev)
    assert start["line"] == 7
    item = _owner_item(ev)
    assert "ownership check refused /usr/bin/runc (runc" in item
    assert "owned by uid 1000, not root" in item and "fix: chown root:root /usr/bin/runc" in item


def test_the_events_header_and_one_row_twice_are_one_refusal() -> None:
    ev = _load(DESCRIBE_CUT)
    assert ev.files[0].status == "read"
    (start,) = _starts(ev)
    assert start["line"] == 4
    assert "fix: chown root:root /usr/bin/runc" in _owner_item(ev)


def test_a_write_permission_refusal_in_the_events_table_is_read(tmp_path: Path) -> None:
    text = (
        (REVIEW / DESCRIBE)
        .read_text()
        .replace(
            "owner not right /usr/bin/runc 1000",
            "write permission not right /usr/bin/runc -rwxrwxrwx",
        )
    )
    (start,) = _starts(_write(tmp_path, text))
    assert "fix: chmod go-w /usr/bin/runc" in start["exception_type"]


def test_the_real_docker_line_is_read_as_before() -> None:
    ev = _load(OWNER_REAL, HELDOUT79)
    (start,) = _starts(ev)
    assert start["line"] == 1
    assert "fix: chown root:root /usr/bin/runc" in _owner_item(ev)


# --- 3. driver.txt: an excep_id too far above its fail-info line is still said -----------------

DRIVER_FAR = (
    "msnpureport_bbox_driver_txt_device2_excep_0xa8028802_fail_info_9_status_lines_later.txt"
)
DRIVER_REAL = "msnpureport_bbox_driver_txt_device2_multi_ecc_err_excep_0xa8028802_mindcluster.txt"


def _bbox(ev: EvidenceFacts) -> list[tuple[int, int | None, str | None]]:
    return [
        (f["line"], f["device"], f["code"])
        for f in ev.failures
        if f["kind"] == "npu_bbox_exception"
    ]


def test_an_excep_id_nine_lines_above_its_fail_info_is_said_on_its_own() -> None:
    ev = _load(DRIVER_FAR)
    assert _bbox(ev) == [(3, None, "0xA8028802"), (13, 2, None)]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    first, second = heldout.items(outcome, "evidence-npu-bbox-exception")
    assert "driver exception 0xA8028802" in first and "RestartBusiness" in first
    assert "multi-bit (uncorrectable) ECC error at physical address 0x400cd8d202e0" in second


def test_an_excep_id_at_the_bound_still_pairs(tmp_path: Path) -> None:
    # seven status lines between them: the fail info 8 lines below, paired as before
    lines = (REVIEW / DRIVER_FAR).read_text().splitlines(keepends=True)
    ev = _write(tmp_path, "".join(lines[:3] + lines[5:]))
    assert _bbox(ev) == [(11, 2, "0xA8028802")]


def test_the_real_driver_txt_still_pairs_its_excep_id() -> None:
    ev = _load(DRIVER_REAL, HELDOUT79)
    assert _bbox(ev) == [(4, 2, "0xA8028802")]


# --- 4. ascend-docker-runtime's own run log: the same refusal of runc -----------------------------

RUN_LOG = "ascend_docker_runtime_run_log_hwlog_failed_to_check_files_owner_not_right_runc_1000.log"


def test_the_runtimes_run_log_refusing_runc_is_a_container_start_failure() -> None:
    ev = _load(RUN_LOG)
    assert ev.files[0].status == "read"
    (start,) = _starts(ev)
    assert start["line"] == 1 and start["library"] == "Ascend Docker Runtime"
    assert [f for f in ev.failures if f["kind"] == "log_error"] == []
    item = _owner_item(ev)
    assert "ascend-docker-runtime (its run log) did not run runc" in item
    assert "owned by uid 1000, not root" in item and "fix: chown root:root /usr/bin/runc" in item


def test_the_current_error_form_of_the_run_log_is_read(tmp_path: Path) -> None:
    # mindxcheckutils RealFileChecker's "failed to check files, error: %v" (MindCluster 22bb3d98)
    text = (
        (REVIEW / RUN_LOG)
        .read_text()
        .replace(
            "failed to check files, owner not right /usr/bin/runc 1000",
            "failed to check files, error: symlinks or not existed, failed /usr/bin/runc, lstat",
        )
    )
    (start,) = _starts(_write(tmp_path, text))
    assert "a symbolic link or missing" in start["exception_type"]


def test_another_components_file_check_is_no_container_start_failure(tmp_path: Path) -> None:
    # npu-exporter's check of libdcmi.so shares the words (FaultDiag's AISW_MindX_Npu_Exporter_01):
    # no container was being started
    text = (
        (REVIEW / RUN_LOG)
        .read_text()
        .replace(
            "owner not right /usr/bin/runc 1000", "owner not right /usr/local/dcmi/libdcmi.so 1000"
        )
    )
    assert _starts(_write(tmp_path, text)) == []


# --- 5. dockerd's journal: containerd's ": unknown" status out of the quote ---------------------

DOCKERD = (
    "dockerd_journal_ascend_docker_runtime_oci_create_failed_owner_not_right_runc_msg_quote.log"
)


def test_dockerds_quote_ends_at_the_runtimes_words() -> None:
    (start,) = _starts(_load(DOCKERD))
    assert start["exception_type"].endswith("(its output: owner not right /usr/bin/runc 1000)")


def test_the_real_dockers_quote_still_ends_at_the_runtimes_words() -> None:
    (start,) = _starts(_load(OWNER_REAL, HELDOUT79))
    assert start["exception_type"].endswith("(its output: owner not right /usr/bin/runc 1000)")
