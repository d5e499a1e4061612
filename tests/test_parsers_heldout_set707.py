"""Outputs of round TTTT's held-out evaluation (set 707, NVIDIA collective logs) that the advisor
read in part before this change (tests/data/evidence_heldout_80, sources in
tests/data/SOURCES.md): NCCL 2.27.3's ``PROFILER/Plugin: Could not find:`` line, where the
NCCL_PROFILER_PLUGIN a job gave (``./libnccl_example_profiler_plugin.so``) was mangled into a
name that does not exist and no profiler loaded, said nothing; and an nccl-tests log cut at
aws-ofi-nccl's ``Only EFA provider is supported`` WARN left its rank header (``Rank N Pid P on
HOST``, no group) unread and did not say that NCCL then falls back to its own network."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from advisor.parsers import logs, numbered_lines
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_80"

PROFILER = "nccl_profiler_plugin_could_not_find_mangled_name_dot_slash_path_nccl2.27.3_nccl1732.log"
EFA = "nccl_tests_awsofi_only_efa_provider_supported_warn_p3dn_v100_2nodes_16ranks_nccl398_cut.log"

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


# --- a plugin named in the environment that NCCL could not find -------------------------------


def test_a_mangled_profiler_plugin_name_is_a_configuration_warning() -> None:
    ev = _load(PROFILER)
    assert ev.files[0].status == "read"
    (notice,) = [f for f in ev.failures if f["kind"] == "nccl_plugin_not_found"]
    assert (notice["line"], notice["host"], notice["pid"], notice["device"]) == (
        1,
        "rtptest1621",
        268329,
        5,
    )
    assert notice["code"] == "NCCL_PROFILER_PLUGIN"
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-nccl-plugin-not-found", "warning")]
    (item,) = heldout.items(outcome, "evidence-nccl-plugin-not-found")
    assert item.startswith(
        "rtptest1621 pid 268329, device 5: NCCL_PROFILER_PLUGIN was set to "
        "'./libnccl_example_profiler_plugin.so' and NCCL could not find "
        "'libnccl-profiler-./libnccl_example_profiler_plugin.so.so' (a relative path"
    )
    assert "no profiler plugin is loaded" in item and item.endswith(", line 1)")


def test_the_default_names_nccl_looks_for_unasked_are_routine(tmp_path: Path) -> None:
    # nothing set: NCCL looks for libnccl-<kind>.so alone (plugin_open.cc), on every start
    text = (
        "node7:100:100 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so. "
        "Using internal net plugin.\n"
        "node7:100:100 [0] NCCL INFO TUNER/Plugin: Could not find: libnccl-tuner.so "
        "libnccl-net.so. Using internal tuner plugin.\n"
        "node7:100:100 [0] NCCL INFO PROFILER/Plugin: Could not find: libnccl-profiler.so.\n"
    )
    ev = _write(tmp_path, text)
    assert not [f for f in ev.failures if f["kind"] == "nccl_plugin_not_found"]
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_a_net_and_a_tuner_plugin_asked_for_on_another_host_are_said_each(tmp_path: Path) -> None:
    text = (
        "gpu-b12:4242:4242 [3] NCCL INFO NET/Plugin: Could not find: aws-ofi "
        "libnccl-net-aws-ofi.so. Using internal net plugin.\n"
        "gpu-b12:4243:4243 [4] NCCL INFO NET/Plugin: Could not find: aws-ofi "
        "libnccl-net-aws-ofi.so. Using internal net plugin.\n"
        "gpu-b12:4242:4242 [3] NCCL INFO TUNER/Plugin: Could not find: "
        "libnccl-tuner-/opt/t/libtuner.so.so. Using internal tuner plugin.\n"
    )
    ev = _write(tmp_path, text)
    got = [
        (f["line"], f["host"], f["pid"], f["device"], f["code"])
        for f in ev.failures
        if f["kind"] == "nccl_plugin_not_found"
    ]
    # (the same host's second process: one notice a host and kind)
    assert got == [
        (1, "gpu-b12", 4242, 3, "NCCL_NET_PLUGIN"),
        (3, "gpu-b12", 4242, 3, "NCCL_TUNER_PLUGIN"),
    ]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    net, tuner = heldout.items(outcome, "evidence-nccl-plugin-not-found")
    assert "NCCL_NET_PLUGIN was set to 'aws-ofi'" in net
    assert "internal net plugin" in net and "relative path" not in net
    assert "NCCL_TUNER_PLUGIN was set to '/opt/t/libtuner.so'" in tuner
    assert "relative path" not in tuner  # (an absolute path)


def test_the_notice_is_read_beside_an_nccl_tests_table_too() -> None:
    # nccl_debug_notices: the INFO lines of a file read as nccl-tests' output
    text = _text(PROFILER)
    (notice,) = logs.nccl_debug_notices(text)
    assert notice.kind == "nccl_plugin_not_found" and notice.line == 1
    assert logs.plugin_not_found(numbered_lines(text.replace("[5]", "[2]")))[0].device == 2


# --- aws-ofi-nccl's failed start at the end of a cut nccl-tests log ---------------------------


def test_only_efa_provider_then_nothing_keeps_not_ready_and_says_the_fallback() -> None:
    ev = _load(EFA)
    assert ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    # (review 41: a log that stops at aws-ofi-nccl's failed start can be a hang)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-nccl-warning", "critical")]
    (item,) = heldout.items(outcome, "evidence-nccl-warning")
    assert item.startswith(
        "ip-172-31-0-112 pid 8159, device 0: NET/OFI Only EFA provider is supported "
        "(aws-ofi-nccl did not start, so NCCL falls back to its own network, its IB or socket "
        "transport; but nothing after this line in the log shows the process went on"
    )
    assert item.endswith(", line 18)")


def test_the_nccl_tests_rank_header_without_group_is_read() -> None:
    said = _said(_load(EFA))
    ranks = [(no, m) for no, m in said if " on ip-172-31-" in m and m.startswith("log: rank ")]
    assert [no for no, _ in ranks] == list(range(1, 16))
    assert ranks[0][1] == "log: rank 1 on ip-172-31-0-112: GPU 1 Tesla V100-SXM2-32GB"
    assert ranks[7][1] == "log: rank 8 on ip-172-31-13-129: GPU 0 Tesla V100-SXM2-32GB"
    assert {m.split(" on ")[1].split(":")[0] for _, m in ranks} == {
        "ip-172-31-0-112",
        "ip-172-31-13-129",
    }


def test_the_same_set_before_init_complete_is_a_fallback_not_a_failure(tmp_path: Path) -> None:
    # the healthy twin: the same process goes on to complete its communicator
    text = _text(EFA) + (
        "ip-172-31-0-112:8159:8159 [0] NCCL INFO NET/Socket : Using [0]ens5:172.31.0.112<0>\n"
        "ip-172-31-0-112:8159:8196 [0] NCCL INFO comm 0x5566 rank 0 nranks 16 cudaDev 0 "
        "busId 160 - Init COMPLETE\n"
    )
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level != "NOT READY"
    assert "evidence-nccl-warning" not in [r for r, _ in heldout.above_info(outcome)]


def test_another_hosts_cut_log_says_the_same(tmp_path: Path) -> None:
    text = _text(EFA).replace("ip-172-31-0-112:8159:8159 [0]", "ip-10-1-2-3:77:77 [2]")
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-nccl-warning")
    assert item.startswith("ip-10-1-2-3 pid 77, device 2: NET/OFI Only EFA provider is supported")
    assert "NCCL falls back to its own network" in item


def test_a_net_plugin_line_in_the_network_wording_lists_only_the_names_tried() -> None:
    # (the same line for the net plugin as NCCL releases word its fallback, "Using internal
    # network plugin.": its words are no plugin names)
    real = (HELDOUT / PROFILER).read_text().splitlines()[0]
    line = real.replace(
        "PROFILER/Plugin: Could not find: libnccl-profiler-./libnccl_example_profiler_plugin.so.so.",
        "NET/Plugin: Could not find: libnccl-net-ofi.so. Using internal network plugin.",
    )
    assert line != real
    (ev,) = logs.plugin_not_found(numbered_lines(line))
    assert ev.exception_type is not None
    assert ev.exception_type.startswith(
        "NCCL_NET_PLUGIN was set to 'ofi' and NCCL could not find 'libnccl-net-ofi.so'; "
    )
    assert "'Using'" not in ev.exception_type and "internal'" not in ev.exception_type
    # the default name alone in that wording: nothing was set, nothing said
    default = line.replace("libnccl-net-ofi.so", "libnccl-net.so")
    assert logs.plugin_not_found(numbered_lines(default)) == []
