"""MindCluster's fault diagnosis report (``ascend-fd diag`` / ``single-diag``): its fault events.

ascend-fd prints an "Ascend-fd Fault-Diag Report" table (26.x: "Ascend Fault-Diag Report") of three columns: a section (版本信息 the
versions, 根因节点分析 the root-cause node, 故障事件分析 the fault events, 设备资源分析 and 网络拥塞分析
when those analyses ran), a key and its value; a value that goes on has an empty section and key.
Each fault event's block starts with its status code (状态码, MindCluster's fault code such as
``Comp_Network_Custom_05``), then the devices it was found on (故障设备), its name and description,
the advice, the key log lines and the propagation chain. A cluster diagnosis labels its first
event 疑似根因故障, the suspected root cause; a single-server diagnosis labels none. A status code
of ascend-fd's normal list (``NORMAL_OR_UNSUPPORTED``) says nothing was found. The English
labels (``Status Code``, ``Faulty Device(s)``, ``Key Info`` ...) are read as the Chinese ones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from advisor.parsers import ParseError, numbered_lines

SIGNATURE = r"^\W{0,4}\|\s*Ascend(?:-fd)? Fault-Diag Report\s*\|"

# each label as ascend-fd prints it (MindCluster ascend-faultdiag's label_zh / label_en), and as
# its English documentation wrote some of them
# (ascend-fd 26's English SuperPoD report: "Potential root cause")
_SUSPECTED = (
    "疑似根因故障",
    "Suspected Root Cause Fault",
    "Suspected Fault",
    "Potential root cause",
)
_ROOT_SECTION = ("根因节点分析", "Root Cause Node Analysis")
_VERSION_SECTION = ("版本信息", "Version Info", "Version Information")
_HEADING_TYPES = ("类型", "Type")
_ANALYSIS_FAILED = ("分析失败", "Analysis Failed")
_KEYS = {
    "状态码": "code",
    "Status Code": "code",
    "故障分类": "category",
    "Fault Category": "category",
    "Fault Type": "category",
    "故障设备": "devices",
    "Faulty Device(s)": "devices",
    "Fault Device": "devices",
    "Faulty Device": "devices",
    "故障名称": "name",
    "Fault Name": "name",
    "故障描述": "description",
    "Fault Description": "description",
    "结果描述": "description",
    "Symptom Description": "description",
    "建议方案": "advice",
    "Handling Suggestion": "advice",
    "Suggestion": "advice",
    "Solution": "advice",
    "关键日志": "key_log",
    "Key Info": "key_log",
    "Key Log": "key_log",
    "关键传播链": "chain",
    "Fault Propagation Chain": "chain",
    "Key Propagation Chain": "chain",
    "根因节点": "root_nodes",
    "Root Cause Node(s)": "root_nodes",
    "Root Cause Node": "root_nodes",
    "现象描述": "symptom",
    "Symptom": "symptom",
    "首错节点": "first_error",
    "First Error Device": "first_error",
    "尾错节点": "last_error",
    "Last Error Device": "last_error",
    "根因节点链": "root_chain",
    "Root Cause Node Chain": "root_chain",
    "卡间等待链": "wait_chain",
    "Inter-Device Waiting Chain": "wait_chain",
}
# the English documentation writes some labels in sentence case ("Status code", "Fault name",
# "Version information", "Key propagation chain"): labels and sections are matched ignoring case
_KEYS_FOLDED = {k.casefold(): v for k, v in _KEYS.items()}
_SUSPECTED_FOLDED = {k.casefold() for k in _SUSPECTED}
_ROOT_FOLDED = {k.casefold() for k in _ROOT_SECTION}
_VERSION_FOLDED = {k.casefold() for k in _VERSION_SECTION}
_HEADING_FOLDED = {k.casefold() for k in _HEADING_TYPES}
_FAILED_FOLDED = {k.casefold() for k in _ANALYSIS_FAILED}
# ascend-fd's status codes for "nothing found" (its NORMAL_CODE_LIST: NORMAL_OR_UNSUPPORTED of the
# fault-event analysis, the device-resource and network analyses' normal codes)
_NORMAL_CODE_RE = re.compile(r"(?:^|_)NORMAL(?:_|$)")
# a super-pod diagnosis prints each inference instance's report under its name (label_zh
# instance_name 实例名, label_en "Instance Name"): "实例名：10.0.8.201-10.0.2.204-..." (then
# 节点名：[...])
_INSTANCE_RE = re.compile(r"^(?:实例名|Instance Name)\s*[：:]\s*(?P<name>\S(?:.*\S)?)")
# a status code the copy masked ("xxx", "******"): no code to look up
MASKED_RE = re.compile(r"^(?:[x*]+|\[\*+\])$", re.I)
_ROW_RE = re.compile(r"^\|(?P<a>[^|]*)\|(?P<b>[^|]*)\|(?P<c>.*?)\|?\s*$")


@dataclass
class Fault:
    line: int
    code: str = ""
    root_cause: bool = False
    """Under ascend-fd's 疑似根因故障 (suspected root-cause fault) label: the first event of a
    cluster diagnosis; the events after it, and a single-server diagnosis's, carry none."""
    values: dict[str, list[str]] = field(default_factory=dict)
    section: str = ""
    """The report's section the event stands in (故障事件分析 fault events; 慢卡分析, 慢链路分析,
    Device resource / Network congestion analysis: the performance modules)."""

    @property
    def performance(self) -> bool:
        """An event of a performance module (a slow card, a congested link, CPU preemption): a
        degradation the job ran with, not a fault that stopped a device."""
        return self.section.casefold() in PERFORMANCE_SECTIONS

    def text(self, key: str) -> str:
        return " ".join(self.values.get(key, []))


PERFORMANCE_SECTIONS = frozenset(
    {"慢卡分析", "慢链路分析", "device resource analysis", "network congestion analysis",
     "slow card analysis", "slow link analysis"}
)  # fmt: skip
"""ascend-fd's performance-degradation modules (its 26.x English report names them Device
resource analysis and Network congestion analysis)."""


@dataclass
class Report:
    line: int
    versions: dict[str, str] = field(default_factory=dict)
    root_nodes: str = ""
    symptom: str = ""
    nodes: dict[str, str] = field(default_factory=dict)
    """The root-cause node analysis's other rows: ``first_error`` (首错节点, the node that
    reported first, and when), ``last_error``, ``root_chain`` (根因节点链), ``wait_chain``
    (卡间等待链, which card waited on which)."""
    instance: str = ""
    """A per-instance report's instance (``实例名：``, printed above its table)."""
    faults: list[Fault] = field(default_factory=list)
    normal: list[str] = field(default_factory=list)
    """The status codes that say nothing was found (``NORMAL_OR_UNSUPPORTED``)."""
    failed_analyses: list[str] = field(default_factory=list)
    """The sections whose analysis failed (分析失败 / Analysis Failed): nothing known of them."""


def parse(text: str) -> list[Report]:
    """Every fault-diagnosis report in ``text``."""
    reports: list[Report] = []
    report: Report | None = None
    section = ""
    key = ""
    fault: Fault | None = None
    instance = ""
    node_rows: dict[tuple[int, str], list[str]] = {}
    for no, raw, _ in numbered_lines(text):
        line = raw.strip()
        if line.startswith(("实例名", "Instance Name")) and (inst := _INSTANCE_RE.match(line)):
            instance = inst.group("name")
            continue
        if re.match(SIGNATURE, line):
            report = Report(line=no, instance=instance)
            reports.append(report)
            section, key, fault, instance = "", "", None, ""
            continue
        if report is None or (row := _ROW_RE.match(line)) is None:
            continue
        a, b, c = (row.group(g).strip() for g in "abc")
        if a:
            section, key, fault = a, "", None
            if b.casefold() in _HEADING_FOLDED:
                continue  # a section's heading row: "| 根因节点分析 | 类型 | 描述 |"
        if b:
            key = b
        if b.casefold() in _FAILED_FOLDED:
            # "| | 分析失败 | 请查看日志报错信息 |": this analysis did not run to its end
            report.failed_analyses.append(section)
            continue
        if section.casefold() in _VERSION_FOLDED:
            if b:
                report.versions[b] = c
            continue
        name = _KEYS_FOLDED.get(key.casefold(), "")
        if section.casefold() in _ROOT_FOLDED:
            if name == "root_nodes":
                node_rows.setdefault((id(report), "root_nodes"), []).append(c)
            elif name == "symptom":
                node_rows.setdefault((id(report), "symptom"), []).append(c)
            elif name in ("first_error", "last_error", "root_chain", "wait_chain"):
                node_rows.setdefault((id(report), name), []).append(c)
                report.nodes[name] = ""
            continue
        if name == "code" and b:
            # a fault event starts: under the suspected-root-cause label (a cluster diagnosis's
            # first), or in its analysis section with an empty first cell
            if _NORMAL_CODE_RE.search(c):
                report.normal.append(c)
                fault = None
                continue
            fault = Fault(
                line=no, code=c, root_cause=a.casefold() in _SUSPECTED_FOLDED, section=section
            )
            report.faults.append(fault)
            continue
        if fault is not None and name and c:
            fault.values.setdefault(name, []).append(c)
    if not reports:
        raise ParseError("no 'Ascend-fd Fault-Diag Report' (or 'Ascend Fault-Diag Report') table")
    for report in reports:  # each row a value goes on is joined once (linear in the rows)
        for name in report.nodes:
            report.nodes[name] = " ".join(node_rows[(id(report), name)])
        report.root_nodes = " ".join(node_rows.get((id(report), "root_nodes"), []))
        report.symptom = " ".join(node_rows.get((id(report), "symptom"), []))
    return reports
