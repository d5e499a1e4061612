"""The drift stage: fingerprints compared across nodes, from the lab, from the host and from
imported files.

The lab test runs the real CLI on three lab nodes (one advisor per node, each in its namespace)
with node 2's NIC at MTU 1400 and NCCL_DEBUG set in node 1's environment alone: the drift stage,
before any job, names both values and the nodes that have each.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path

import pytest

from advisor.facts import Facts
from advisor.lab import Lab
from advisor.probes import drift
from advisor.probes.drift import DriftConfig, NicPrint, NodeFingerprint
from advisor.report import sections
from advisor.stages import STAGE_MODULES
from tests.conftest import DATA, run_advisor
from tests.lab import (
    lab_leak_check,  # noqa: F401
    requires_lab,
    run_in_lab,
)


def _fp(**changes: object) -> NodeFingerprint:
    base = NodeFingerprint(
        os="Ubuntu 22.04.4 LTS",
        kernel="5.15.0-105-generic",
        python="3.10.12",
        packages={"torch": "2.1.0", "torch_npu": "2.1.0.post3"},
        cann_toolkit="8.0.RC3",
        npu_smi="24.1.rc1",
        npu_chips=["910B3"],
        env={"HCCL_BUFFSIZE": "200", "MASTER_ADDR": "10.0.0.1", "HCCL_IF_IP": "10.0.0.11"},
        nics={"eth0": NicPrint(mtu=9000, speed_mbps=200000, state="up")},
        hccn_tls={"0": "disabled"},
    )
    for name, value in changes.items():
        setattr(base, name, value)
    return base


# ---------------------------------------------------------------------------- comparison


def test_identical_nodes_have_no_drift_and_per_node_values_are_not_compared() -> None:
    nodes = {
        "n0": _fp(),
        "n1": _fp(
            env={"HCCL_BUFFSIZE": "200", "MASTER_ADDR": "10.0.0.1", "HCCL_IF_IP": "10.0.0.12"}
        ),
    }
    findings, ignored = drift.compare(nodes)
    assert findings == []
    # HCCL_IF_IP is each node's own address: listed as not compared, never a finding
    assert "env.HCCL_IF_IP" in ignored


def test_a_differing_value_names_every_value_and_the_odd_node() -> None:
    nodes = {
        "n0": _fp(),
        "n1": _fp(nics={"eth0": NicPrint(mtu=1500, speed_mbps=200000, state="up")}),
        "n2": _fp(),
    }
    (finding,) = drift.compare(nodes)[0]
    assert finding.key == "nic.eth0.mtu" and finding.category == "nic"
    assert [(v.value, v.nodes) for v in finding.values] == [
        ("9000", ["n0", "n2"]),
        ("1500", ["n1"]),
    ]
    assert finding.odd_nodes == ["n1"]
    assert finding.summary == "nic.eth0.mtu: '9000' on n0, n2; '1500' on n1"


def test_missing_variable_tool_and_nic_read_as_unset_not_present_and_absent() -> None:
    nodes = {
        "n0": _fp(),
        "n1": _fp(
            env={"HCCL_BUFFSIZE": "200", "MASTER_ADDR": "10.0.0.1", "NCCL_DEBUG": "INFO"},
            npu_smi=drift.NOT_PRESENT,
            nics={},
        ),
    }
    by_key = {f.key: f for f in drift.compare(nodes)[0]}
    assert {v.value: v.nodes for v in by_key["env.NCCL_DEBUG"].values} == {
        "INFO": ["n1"],
        drift.UNSET: ["n0"],
    }
    assert {v.value for v in by_key["npu_smi.version"].values} == {"24.1.rc1", drift.NOT_PRESENT}
    assert {v.value for v in by_key["nic.eth0.mtu"].values} == {"9000", drift.ABSENT_NIC}
    # two nodes, one each: no majority, so no node is singled out
    assert by_key["env.NCCL_DEBUG"].odd_nodes == []
    assert "env.HCCL_IF_IP" not in by_key  # only one node sets it, and it is never compared


def test_master_addr_is_compared_and_ignore_patterns_extend() -> None:
    other = {"HCCL_BUFFSIZE": "200", "MASTER_ADDR": "10.0.0.2", "HCCL_IF_IP": "10.0.0.11"}
    nodes = {
        "n0": _fp(),
        "n1": _fp(env=other, nics={"docker0": NicPrint(mtu=1500, speed_mbps=-1, state="down")}),
    }
    findings, ignored = drift.compare(nodes)
    assert [f.key for f in findings] == [
        "env.MASTER_ADDR",
        "nic.eth0.mtu",
        "nic.eth0.speed_mbps",
        "nic.eth0.state",
    ]
    assert "nic.docker0.mtu" in ignored
    findings, _ = drift.compare(nodes, [*drift.DEFAULT_IGNORE, "env.MASTER_*", "nic.eth0.*"])
    assert findings == []


def test_software_versions_and_tls_differences_are_findings() -> None:
    nodes = {
        "n0": _fp(),
        "n1": _fp(
            packages={"torch": "2.1.0", "torch_npu": "2.1.0.post6"}, hccn_tls={"0": "enabled"}
        ),
        "n2": _fp(),
    }
    by_key = {f.key: f for f in drift.compare(nodes)[0]}
    assert set(by_key) == {"package.torch_npu", "hccn.0.tls"}
    assert by_key["hccn.0.tls"].odd_nodes == ["n1"]


def test_rank_table_version_checked_against_the_chip_generation() -> None:
    nodes = {
        "a3": _fp(npu_chips=["Ascend910_9391"], rank_table="1.0"),
        "a2": _fp(npu_chips=["910B3"], rank_table="1.0"),
        "unknown": _fp(npu_chips=[], rank_table="1.2"),
    }
    checks = {c.node: c for c in drift.rank_table_checks(nodes, cluster_chip="A2")}
    assert checks["a3"].problem == "a3: rank table version 1.0 on A3 chips, which take version 1.2"
    assert checks["a2"].problem == ""
    # no chips read: the declared chip decides
    assert checks["unknown"].chip == "A2" and "take version 1.0" in checks["unknown"].problem


def test_summary_keeps_each_nodes_latest_fingerprint_and_names_missing_nodes() -> None:
    from advisor.cluster import ClusterConfig, resolve
    from advisor.results import Record

    def rec(node: int, fp: NodeFingerprint, t: float) -> Record:
        return Record(stage="drift", rank=-1, node=node, node_name=f"node{node}", host="h",
                      local_rank=-1, step="fingerprint", status="ok",
                      metrics={"fingerprint": asdict(fp)}, t_wall_s=t)  # fmt: skip

    cluster = resolve(ClusterConfig(nodes=3, devices_per_node=1), emulate=True)
    old = _fp(python="3.9.0")
    records = [rec(0, old, 1.0), rec(0, _fp(), 2.0), rec(1, _fp(), 2.0)]
    facts = drift.summarize(records, cluster, DriftConfig())
    assert facts.findings == []  # node0's earlier fingerprint was replaced by its latest
    assert facts.missing_nodes == ["node2"]
    # launcher=slurm: no node's own fingerprint, and the facts say why instead of comparing
    skipped = Record(stage="drift", rank=-1, node=0, node_name="node0", host="h", local_rank=-1,
                     step="fingerprint", status="skipped", metrics={"reason": drift.SLURM_NOTE})  # fmt: skip
    facts = drift.summarize([skipped], cluster, DriftConfig())
    assert (
        facts.not_collected == drift.SLURM_NOTE and facts.nodes == {} and facts.missing_nodes == []
    )


def test_node_0_stops_waiting_for_a_node_that_left(tmp_path: Path) -> None:
    """One advisor per node: node 0 waits for the others' fingerprints, but not for a node
    whose preflight failed and that said so; that node is named missing."""
    import time

    from advisor.cluster import ClusterConfig, resolve
    from advisor.context import HostContext
    from advisor.results import announce_leaving, read_records

    cluster = resolve(ClusterConfig(nodes=3, devices_per_node=1), emulate=True)
    params = DriftConfig(peer_wait_s=60)
    ctxs = [
        HostContext(stage="drift", run_dir=tmp_path, cluster=cluster, node=n, params=params)
        for n in range(3)
    ]
    for ctx in ctxs[:2]:
        ctx.record("fingerprint", "ok", fingerprint=asdict(_fp()))
    announce_leaving(tmp_path, 2, "host-c", "preflight failed: no interface")
    t0 = time.monotonic()
    waited = drift._wait_for_peers(ctxs[0], params, since_s=0.0)
    assert time.monotonic() - t0 < 10
    assert waited["missing"] == ["node2"] and "node 2 (host-c) left" in waited["left"]
    facts = drift.summarize(read_records(tmp_path, "drift"), cluster, params)
    assert facts.missing_nodes == ["node2"] and sorted(facts.nodes) == ["node0", "node1"]


def test_config_rejects_bad_settings() -> None:
    from advisor.errors import ConfigError

    with pytest.raises(ConfigError, match="tool_timeout_s"):
        DriftConfig(tool_timeout_s=0)
    with pytest.raises(ConfigError, match="hccn_devices"):
        DriftConfig(hccn_devices=-1)


# ---------------------------------------------------------------------------- collection


def test_collect_reads_this_host_and_says_not_present_for_missing_tools(tmp_path: Path) -> None:
    table = tmp_path / "hccl.json"
    table.write_text((DATA / "evidence" / "rank_table_v12.json").read_text())
    env = {"NCCL_DEBUG": "WARN", "PATH": "/nonexistent", "RANK_TABLE_FILE": str(table), "RANK": "3"}
    fp = drift.collect(env, device_type="cpu", devices=8, timeout_s=5)
    assert fp.env == {"NCCL_DEBUG": "WARN"}  # only communication variables
    assert fp.rank_table == "1.2"
    assert fp.python and fp.kernel == os.uname().release
    sysfs = {p.name for p in Path("/sys/class/net").iterdir()} - {"lo"}
    assert set(fp.nics) == sysfs
    for name, nic in fp.nics.items():
        assert nic.mtu == int((Path("/sys/class/net") / name / "mtu").read_text())
    # tools found neither on PATH nor where their installers put them read "not present"
    for tool, value in (("npu-smi", fp.npu_smi), ("ofed_info", fp.ofed)):
        if drift.find_tool(tool) is None:
            assert value == drift.NOT_PRESENT
    assert fp.errors == []


def test_toolkit_version_from_the_install_record() -> None:
    text = (DATA / "drift" / "ascend_toolkit_install.info").read_text()
    assert drift.toolkit_version(text) == "8.0.RC3"
    assert drift.toolkit_version("package_name=x\n") == ""


def test_read_nics_from_a_sysfs_tree(tmp_path: Path) -> None:
    for name, mtu, speed, state in (("lo", "65536", "", "unknown"), ("eth0", "9000", "100000", "up"),
                                    ("veth1", "1500", "", "down")):  # fmt: skip
        d = tmp_path / name
        d.mkdir()
        (d / "mtu").write_text(mtu + "\n")
        if speed:
            (d / "speed").write_text(speed + "\n")
        (d / "operstate").write_text(state + "\n")
    nics = drift.read_nics(tmp_path)
    assert nics == {
        "eth0": NicPrint(mtu=9000, speed_mbps=100000, state="up"),
        "veth1": NicPrint(mtu=1500, speed_mbps=-1, state="down"),
    }


# ---------------------------------------------------------------------------- import


def test_import_of_two_hosts_names_the_npu_smi_and_tls_differences(tmp_path: Path) -> None:
    """Two hosts' folders: host-b's npu-smi is another version and its NPU 0 has TLS on."""
    samples = DATA / "evidence"
    smi = (samples / "npu_smi_info_910b_wide.txt").read_text()
    hccn = (samples / "hccn_npu_info_before.txt").read_text()
    assert "24.1.rc1.b030" in smi and "dev_id:0, tls switch[0]" in hccn
    for host, smi_text, hccn_text in (
        ("host-a", smi, hccn),
        ("host-b", smi.replace("24.1.rc1.b030", "23.0.3"), hccn.replace("dev_id:0, tls switch[0]", "dev_id:0, tls switch[1]")),
    ):  # fmt: skip
        (tmp_path / "in" / host).mkdir(parents=True)
        (tmp_path / "in" / host / "npu_smi_info.txt").write_text(smi_text)
        (tmp_path / "in" / host / "hccn.txt").write_text(hccn_text)
    out = tmp_path / "run"
    res = run_advisor(
        [str(tmp_path / "in"), "--out", str(out)], out, command="import", timeout_s=120
    )
    # TLS differing between the hosts is critical (drift-hccn-tls): NOT READY, exit 1
    assert res.returncode == 1, res.stdout + res.stderr
    facts = json.loads((out / "facts.json").read_text())
    data = facts["stages"]["drift"]["data"]
    assert data["imported"] is True and sorted(data["nodes"]) == ["host-a", "host-b"]
    by_key = {f["key"]: f for f in data["findings"]}
    assert set(by_key) == {"npu_smi.version", "hccn.0.tls"}
    assert {v["value"]: v["nodes"] for v in by_key["npu_smi.version"]["values"]} == {
        "24.1.rc1.b030": ["host-a"],
        "23.0.3": ["host-b"],
    }
    findings = {
        f["rule_id"]: f["message"]
        for f in json.loads((out / "findings.json").read_text())["findings"]
    }
    assert (
        "npu_smi.version: '23.0.3' on host-b; '24.1.rc1.b030' on host-a"
        in findings["drift-software"]
    )
    assert "hccn.0.tls: 'disabled' on host-a; 'enabled' on host-b" in findings["drift-hccn-tls"]
    html = (out / "report.html").read_text()
    assert 'id="sec-drift"' in html and "23.0.3" in html
    # the report rebuilds the same drift facts from the stored files alone
    again = run_advisor([str(out)], None, command="report", timeout_s=120)
    assert again.returncode == 0, again.stdout + again.stderr
    assert json.loads((out / "facts.json").read_text())["stages"]["drift"]["data"] == data


def test_import_of_one_host_has_no_drift_stage() -> None:
    from advisor.evidence.load import load_paths

    assert (
        drift.from_evidence(load_paths([DATA / "evidence" / "npu_smi_info_910b_wide.txt"])) is None
    )


def test_report_section_lays_out_each_value_with_its_nodes() -> None:
    nodes = {"n0": _fp(), "n1": _fp(python="3.11.7"), "n2": _fp()}
    data = drift.build(nodes)
    sec = sections.Section(id="sec-drift", title="Drift between nodes")
    sections.drift(Facts.__new__(Facts), sec, data)
    (finding,) = sec.view["drift_findings"]
    assert finding.key == "python" and finding.odd_nodes == ["n1"]


# ---------------------------------------------------------------------------- lab


@pytest.fixture(scope="module", autouse=True)
def _no_leaks(lab_leak_check: None) -> None:  # noqa: F811
    """Pull the session-end leak check into every run of this module."""


@pytest.mark.root
@requires_lab
def test_lab_node_with_other_mtu_and_other_env_are_named_before_any_job(tmp_path: Path) -> None:
    """Three lab nodes, one advisor per node: node 2's NIC at MTU 1400, NCCL_DEBUG=INFO in node
    1's environment alone. The drift stage alone runs (no job starts: the comparison needs
    none) and names each value with the nodes that have it; the rules turn both into
    findings. A second run, one advisor for all nodes, finds the MTU from inside the nodes'
    namespaces."""
    args = [
        "+cluster=2x2",
        "cluster.devices_per_node=1",
        *[f"stages.{s}.enabled={str(s == 'drift').lower()}" for s in STAGE_MODULES],
    ]
    with Lab(3) as lab:
        lab.set_mtu(2, 1400)
        run = run_in_lab(
            lab,
            args,
            tmp_path / "run",
            launcher="torchrun",
            node_env={1: {"NCCL_DEBUG": "INFO"}},
            timeout_s=120,
        )
        # One advisor for every node (launcher=local): each fingerprint is taken inside its
        # node's namespace, among that node's own interfaces.
        local = run_in_lab(lab, args, tmp_path / "local", timeout_s=120)
        a = lab.addresses
    assert local.returncodes == [0], local.describe()
    local_findings = local.stage("drift")["data"]["findings"]
    assert [(f["key"], f["odd_nodes"]) for f in local_findings] == [("nic.lab0.mtu", [a[2]])]
    assert run.returncodes == [0, 0, 0], run.describe()
    st = run.stage("drift")
    assert st["status"] == "ok", run.describe()
    assert run.facts["launches"] == []  # compared before, and without, any job
    data = st["data"]
    assert sorted(data["nodes"]) == sorted(a) and data["missing_nodes"] == []
    by_key = {f["key"]: f for f in data["findings"]}
    assert set(by_key) == {"env.NCCL_DEBUG", "nic.lab0.mtu"}, data["findings"]
    mtu = by_key["nic.lab0.mtu"]
    assert [(v["value"], v["nodes"]) for v in mtu["values"]] == [
        ("1500", sorted([a[0], a[1]])),
        ("1400", [a[2]]),
    ]
    assert mtu["odd_nodes"] == [a[2]]
    env = by_key["env.NCCL_DEBUG"]
    assert [(v["value"], v["nodes"]) for v in env["values"]] == [
        ("unset", sorted([a[0], a[2]])),
        ("INFO", [a[1]]),
    ]
    assert env["odd_nodes"] == [a[1]]
    findings = {
        f["rule_id"]: f["message"]
        for f in json.loads((run.run_dir / "findings.json").read_text())["findings"]
    }
    assert (
        f"'1400' on {a[2]}" in findings["drift-nic"]
        and f"'1500' on {', '.join(sorted([a[0], a[1]]))}" in findings["drift-nic"]
    )
    assert f"'INFO' on {a[1]}" in findings["drift-environment"]


def test_lab_helpers_refuse_what_they_cannot_do(tmp_path: Path) -> None:
    from advisor.errors import ConfigError
    from advisor.lab import LabError

    lab = Lab(2)
    with pytest.raises(ConfigError, match="MTU 40"):
        lab.set_mtu(1, 40)
    # one advisor for every node has one environment: a node's own needs one advisor per node
    with pytest.raises(LabError, match="node_env needs launcher=torchrun"):
        lab.advisor_commands([], tmp_path, node_env={1: {"NCCL_DEBUG": "INFO"}})
