"""MindCluster's record of each node's NPUs: Ascend Device Plugin's DeviceInfoCfg.

The device plugin writes a ``mindx-dl-deviceinfo-<node>`` ConfigMap whose ``DeviceInfo`` holds a
``DeviceList``; ClusterD gathers them in its ``cluster-info-device-N`` ConfigMaps, each node's
under its ConfigMap's name. Its keys (Ascend/mind-cluster, docs/en/scheduling/api/
ascend_device_plugin.md, "DeviceInfoCfg"):

- ``huawei.com/Ascend910`` (``huawei.com/npu`` on Atlas 350/850/950): the chips available;
- ``...-Unhealthy``, ``...-NetworkUnhealthy``, ``...-Recovering``: the chips unhealthy, with an
  unhealthy network, being recovered (comma-separated names);
- ``...-Fault``: a JSON array, as a string, of each fault: ``fault_type`` (CardUnhealthy,
  CardNetworkUnhealthy, NodeUnhealthy; ClusterD adds PublicFault), ``npu_name``,
  ``fault_handling`` (the same as ``fault_level``: NotHandleFault, RestartRequest,
  RestartBusiness, FreeRestartNPU, RestartNPU, SeparateNPU, PreSeparateNPU,
  ManuallySeparateNPU) and ``fault_code`` (comma-separated).

The device plugin also raises a Kubernetes event per fault, as ``kubectl get events`` prints it:
"device fault, nodeName:k8smaster, assertion:Occur, cardID:2, deviceID:0, faultCodes:8C084E00,
faultLevelName:RestartBusiness, alarmRaisedTime:2023-11-21 05:36:53".
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from advisor.parsers import ParseError

SIGNATURE = (
    r'"huawei\.com/(?:Ascend\w+|npu)-(?:Unhealthy|NetworkUnhealthy|Fault)"\s*:'
    r'|"FaultDeviceList"\s*:\s*\['
    r"|\bdevice fault, nodeName:\S+?, assertion:\w+, cardID:\d+"
)
_LIST_RE = re.compile(r'"DeviceList"\s*:\s*\{')
# the Volcano scheduler's record of the faulty nodes it schedules around (MindCluster's
# vcjob-fault-npu-cm ConfigMap, its "fault-node" key): a JSON list, per node, of "NodeName",
# "FaultDeviceList" (the same fault fields as DeviceInfoCfg's -Fault), "UnhealthyNPU",
# "NetworkUnhealthyNPU" and "NodeHealthState"
_FAULT_NODES_RE = re.compile(r'\[\s*\{\s*"FaultDeviceList"\s*:')
# the node a ClusterD record is of: its key above it ("mindx-dl-deviceinfo-node173": {...})
_NODE_KEY_RE = re.compile(
    r'"mindx-dl-deviceinfo-(?P<node>[^"]+)"\s*:\s*\{\s*(?:"DeviceInfo"\s*:\s*\{\s*)?$'
)
_CM_NAME_RE = re.compile(r'"CmName"\s*:\s*"mindx-dl-deviceinfo-([^"]+)"')
NODE_KEY_CHARS = 300
"""How far before its DeviceList a ClusterD record's key stands."""
_EVENT_RE = re.compile(
    r"\bdevice fault, nodeName:(?P<node>[^,\s]+), assertion:(?P<assert>\w+), cardID:(?P<card>\d+), "
    r"deviceID:(?P<device>\d+), faultCodes:(?P<codes>[0-9A-Fa-f,]+), "
    r"faultLevelName:(?P<level>\w+)"
)
HANDLING_CRITICAL = frozenset(
    {"RestartRequest", "RestartBusiness", "FreeRestartNPU", "RestartNPU", "SeparateNPU",
     "ManuallySeparateNPU"}
)  # fmt: skip
"""Handlings that stop or isolate the chip's work; PreSeparateNPU takes no new job onto the chip
(the running one goes on), NotHandleFault and SubHealthFault none."""


@dataclass
class NpuFault:
    line: int
    node: str
    npu: str
    """The chip's name as the device plugin gives it ("Ascend910-4"); "" for a node's fault."""
    fault_type: str
    handling: str
    codes: list[str]
    raised: bool = True
    """False for an event's "assertion:Recover" (the fault cleared)."""


@dataclass
class NodeDevices:
    line: int
    node: str
    available: list[str] = field(default_factory=list)
    unhealthy: list[str] = field(default_factory=list)
    network_unhealthy: list[str] = field(default_factory=list)
    recovering: list[str] = field(default_factory=list)
    scheduler: bool = False
    """Volcano's fault-node record (its faulty chips only; no count of the available ones)."""


@dataclass
class DeviceInfo:
    nodes: list[NodeDevices] = field(default_factory=list)
    faults: list[NpuFault] = field(default_factory=list)


def _names(value: Any) -> list[str]:
    return [n.strip() for n in str(value or "").split(",") if n.strip()]


def _fault(f: dict[str, Any], line: int, node: str) -> NpuFault:
    """One fault record (DeviceInfoCfg's -Fault list, Volcano's FaultDeviceList: the same
    fields), its handling the first of the names the releases give it."""
    return NpuFault(
        line=line,
        node=node,
        npu=str(f.get("npu_name") or ""),
        fault_type=str(f.get("fault_type") or ""),
        handling=str(
            f.get("fault_handling")
            or f.get("fault_level")
            or f.get("large_model_fault_level")
            or ""
        ),
        codes=_names(f.get("fault_code")),
    )


def _chips(value: Any) -> list[str]:
    """A record's chip names: a JSON list, or a comma-separated string; anything else none."""
    if isinstance(value, list):
        return [str(n) for n in value if isinstance(n, (str, int))]
    return _names(value) if isinstance(value, str) else []


def _key(devices: dict[str, Any], suffix: str) -> Any:
    """A DeviceList key by its suffix, whatever the chip's resource name (Ascend910, npu ...)."""
    return next(
        (v for k, v in devices.items() if k.startswith("huawei.com/") and k.endswith(suffix)),
        None,
    )


def parse(text: str) -> DeviceInfo:
    """Each node's DeviceList and faults, and the device plugin's fault events; raises
    ParseError when neither is readable."""
    out = DeviceInfo()
    decoder = json.JSONDecoder()

    def line_of(pos: int) -> int:
        return text.count("\n", 0, pos) + 1

    for m in _LIST_RE.finditer(text):
        try:
            devices, end = decoder.raw_decode(text, m.end() - 1)
        except json.JSONDecodeError:
            continue
        if not isinstance(devices, dict):
            continue
        line = line_of(m.start())
        # the record's node: ClusterD's key above it, else the record's own CmName
        node = ""
        if nk := _NODE_KEY_RE.search(text[max(0, m.start() - NODE_KEY_CHARS) : m.start()]):
            node = nk.group("node")
        elif cm := _CM_NAME_RE.search(text[end : end + NODE_KEY_CHARS].split('"DeviceList"')[0]):
            node = cm.group(1)
        record = NodeDevices(
            line=line,
            node=node,
            available=[n for k, v in devices.items() if re.fullmatch(r"huawei\.com/\w+", k)
                       for n in _names(v)],
            unhealthy=_names(_key(devices, "-Unhealthy")),
            network_unhealthy=_names(_key(devices, "-NetworkUnhealthy")),
            recovering=_names(_key(devices, "-Recovering")),
        )  # fmt: skip
        out.nodes.append(record)
        raw = _key(devices, "-Fault")
        try:
            faults = json.loads(raw) if isinstance(raw, str) and raw.strip() else raw or []
        except json.JSONDecodeError:
            faults = []
        for f in faults if isinstance(faults, list) else []:
            if not isinstance(f, dict):
                continue
            out.faults.append(_fault(f, line, node))
    for m in _FAULT_NODES_RE.finditer(text):
        try:
            records, _ = decoder.raw_decode(text, m.start())
        except json.JSONDecodeError:
            continue
        line = line_of(m.start())
        for rec in records if isinstance(records, list) else []:
            if not isinstance(rec, dict):
                continue
            node = str(rec.get("NodeName") or "")
            out.nodes.append(
                NodeDevices(
                    line=line,
                    node=node,
                    unhealthy=_chips(rec.get("UnhealthyNPU")),
                    network_unhealthy=_chips(rec.get("NetworkUnhealthyNPU")),
                    scheduler=True,
                )
            )
            faults_listed = rec.get("FaultDeviceList")
            for f in faults_listed if isinstance(faults_listed, list) else []:
                if isinstance(f, dict):
                    out.faults.append(_fault(f, line, node))
    # the plugin's events, the last of each fault (node, chip and codes) kept: an Occur its
    # Recover followed is a fault that cleared
    events: dict[tuple[str, str, str], NpuFault] = {}
    for no, raw_line in enumerate(text.splitlines(), start=1):
        if "device fault" in raw_line and (e := _EVENT_RE.search(raw_line)):
            npu = f"card {e.group('card')} device {e.group('device')}"
            key = (e.group("node"), npu, e.group("codes"))
            events.pop(key, None)  # (a later event of it comes after, in order)
            events[key] = NpuFault(
                line=no,
                node=e.group("node"),
                npu=npu,
                fault_type="device fault event",
                handling=e.group("level"),
                codes=_names(e.group("codes")),
                raised=e.group("assert") != "Recover",
            )
    out.faults.extend(events.values())
    if not out.nodes and not out.faults:
        raise ParseError("no DeviceList (huawei.com/... keys) and no device fault event read")
    return out
