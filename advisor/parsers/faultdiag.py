"""MindCluster's fault diagnosis report (``ascend-fd diag``): its suspected faults.

``ascend-fd diag`` prints an "Ascend-fd Fault-Diag Report" table of three columns: a section
(版本信息 the versions, 根因节点分析 the root-cause node, 故障事件分析 the fault events, then one
疑似根因故障 "suspected root-cause fault" block a fault), a key and its value; a value that goes on
has an empty section and key. A fault's block gives its status code (状态码, MindCluster's own
fault code such as ``Comp_Network_Custom_05``), the devices it was found on (故障设备), its name
and description, the advice, the key log lines and the propagation chain. The English labels its
documentation shows (Status Code, Fault Device ...) are read too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from advisor.parsers import ParseError, numbered_lines

SIGNATURE = r"^\W{0,4}\|\s*Ascend-fd Fault-Diag Report\s*\|"

# each label as ascend-fd prints it, and as its English documentation writes it
_FAULT_SECTION = ("疑似根因故障", "Suspected Fault", "Suspected Root Cause Fault")
_ROOT_SECTION = ("根因节点分析", "Root Cause Node Analysis")
_VERSION_SECTION = ("版本信息", "Version Information")
_KEYS = {
    "状态码": "code",
    "Status Code": "code",
    "故障分类": "category",
    "Fault Category": "category",
    "故障设备": "devices",
    "Fault Device": "devices",
    "故障名称": "name",
    "Fault Name": "name",
    "故障描述": "description",
    "Fault Description": "description",
    "建议方案": "advice",
    "Suggestion": "advice",
    "关键日志": "key_log",
    "Key Log": "key_log",
    "关键传播链": "chain",
    "Key Propagation Chain": "chain",
    "根因节点": "root_nodes",
    "Root Cause Node": "root_nodes",
    "现象描述": "symptom",
    "Symptom": "symptom",
}
_ROW_RE = re.compile(r"^\|(?P<a>[^|]*)\|(?P<b>[^|]*)\|(?P<c>.*?)\|?\s*$")


@dataclass
class Fault:
    line: int
    code: str = ""
    values: dict[str, list[str]] = field(default_factory=dict)

    def text(self, key: str) -> str:
        return " ".join(self.values.get(key, []))


@dataclass
class Report:
    line: int
    versions: dict[str, str] = field(default_factory=dict)
    root_nodes: str = ""
    symptom: str = ""
    faults: list[Fault] = field(default_factory=list)


def parse(text: str) -> list[Report]:
    """Every fault-diagnosis report in ``text``."""
    reports: list[Report] = []
    report: Report | None = None
    section = ""
    key = ""
    fault: Fault | None = None
    for no, raw, _ in numbered_lines(text):
        line = raw.strip()
        if re.match(SIGNATURE, line):
            report = Report(line=no)
            reports.append(report)
            section, key, fault = "", "", None
            continue
        if report is None or (row := _ROW_RE.match(line)) is None:
            continue
        a, b, c = (row.group(g).strip() for g in "abc")
        if a:
            section, key = a, ""
            fault = None
            if section not in _FAULT_SECTION:
                continue  # a section's heading row: "| 根因节点分析 | 类型 | 描述 |"
        if b:
            key = b
        if section in _VERSION_SECTION and b:
            report.versions[b] = c
            continue
        name = _KEYS.get(key, "")
        if section in _ROOT_SECTION:
            if name == "root_nodes":
                report.root_nodes = f"{report.root_nodes} {c}".strip()
            elif name == "symptom":
                report.symptom = f"{report.symptom} {c}".strip()
            continue
        if section not in _FAULT_SECTION or not name:
            continue
        if name == "code" and b:
            fault = Fault(line=no, code=c)
            report.faults.append(fault)
            continue
        if fault is not None and c:
            fault.values.setdefault(name, []).append(c)
    if not reports:
        raise ParseError("no 'Ascend-fd Fault-Diag Report' table")
    return reports
