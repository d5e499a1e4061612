"""Detect each file's formats, parse them with :mod:`advisor.parsers`, build ``Facts.evidence``.

A file may hold several formats (MindCluster's ``npu_info_before.txt`` holds ``npu-smi`` tables
and ``hccn_tool`` outputs); each detected format is parsed on its own, so one unreadable part
never hides the others. Nothing is guessed: a file whose content matches no format is reported
as ``unknown``, a format that matched but could not be read as ``unreadable`` with its line.
"""

from __future__ import annotations

import bisect
import html
import itertools
import json
import re
import shlex
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from advisor.errors import ConfigError
from advisor.evidence.timeline import FailureTimeline
from advisor.evidence.timeline import build as build_timeline
from advisor.evidence.words import BranchSearch, may_match, required_words
from advisor.flight.examine import examine
from advisor.flight.load import Dump, DumpError, read_dump
from advisor.flight.model import FlightFacts
from advisor.flight.settings import RANKS_SUBDIR
from advisor.parsers import (
    BUS_FACTOR_OPS,
    GBYTES_TO_GBITS,
    PDSH_HOST,
    WORKER_PREFIX_RE,
    ParseError,
    ParseWarning,
    amd_smi_nic,
    as_editor_lines,
    ascend_dmi,
    ascend_notes,
    ascend_versions,
    asys,
    bandwidth_test,
    bus_grind,
    busbw_factor,
    dcgm,
    device_query,
    deviceinfo,
    ethtool,
    faultdiag,
    gpu_burn,
    hccl_test,
    hccn_conf,
    hccn_tool,
    iperf,
    libfabric,
    logs,
    lscpu,
    lspci,
    msnpureport,
    msprof,
    nccl_tests,
    nccl_topo,
    netif,
    npu_smi,
    numa,
    numbered_lines,
    nvbandwidth,
    nvidia_smi,
    nvsm,
    p2p_bandwidth,
    pdsh_by_host,
    pdsh_own_lines,
    pingpong,
    prechecks,
    rank_table,
    rdma,
    reschedule,
    simple_p2p,
    strip_launcher_prefix,
    without_one_pdsh_host,
)
from advisor.paths import missing_path, symlink_loop
from advisor.plain import to_plain

if TYPE_CHECKING:
    from advisor.facts import ClusterFacts

MAX_FILE_BYTES = 64 * 2**20
"""Larger files are reported, not read (logs that size are better cut to the failure window)."""

FILE_STATUSES = ("read", "partial", "unreadable", "unknown", "empty", "binary", "too_large")
"""read: every detected format parsed cleanly; partial: parsed with skipped lines or a failed
format beside a good one; unreadable: formats detected, none parsed; unknown: no format detected;
empty: nothing but whitespace; binary: not text; too_large: over MAX_FILE_BYTES."""

# kubectl describe node's device resources, under Capacity and then Allocatable (and in
# "Allocated resources", requests then limits): "huawei.com/Ascend910:     8", "nvidia.com/gpu:
# 8" (the resource names the Ascend and NVIDIA device plugins register)
_K8S_DEVICE_RESOURCE_SIGNATURE = (
    # (under a node's Capacity or Allocatable heading, or a describe node's grep: a pod's or a
    # job's limits and requests name the same resources and say nothing of a node)
    r"(?:^[ \t]*(?:Capacity|Allocatable):[ \t]*$|\bdescribe nodes?\b)[\s\S]{0,3000}?"
    r"^[ \t]*(?:huawei\.com/Ascend[\w-]*|nvidia\.com/(?:gpu|mig-[\w.-]+))[ \t]*:[ \t]+\d+[ \t]*$"
)
# (a device plugin's own resource name too: a shared or sliced GPU, "deepomatic.com/shared-gpu",
# "aliyun.com/gpu-mem", an NPU's "huawei.com/npu-core")
_K8S_DEVICE_RESOURCE_RE = re.compile(
    r"^\s*(?P<res>huawei\.com/Ascend[\w-]*|nvidia\.com/(?:gpu|mig-[\w.-]+)"
    r"|[\w-]+(?:\.[\w-]+)+/[\w.-]*(?:gpu|npu|Ascend)[\w.-]*)\s*:\s+(?P<n>\d+)\s*$"
)
_K8S_SECTION_RE = re.compile(
    r"^\s*(?P<s>Capacity|Allocatable|Allocated resources|Limits|Requests|limits|requests):"
)
_K8S_NODE_NAME_RE = re.compile(r"^Name:\s+(?P<node>\S+)\s*$")


# npu-smi refusing what it was asked: "Command or option is not found." then its usage
# ("Usage: npu-smi <Command|-h|-v> [Options...]"): no answer in the file
_NPU_SMI_REFUSED_SIGNATURE = (
    r"^[ \t]*Command or option is not found\.[ \t]*\r?\n[ \t]*Usage: npu-smi\b"
)
# npu-smi's answer to -v (Ascend's npu-smi reference, "查询npu-smi工具版本": "npu-smi -v" prints
# "npu-smi version: 25.2.0"; some releases' pages print the version on the line below the label)
_NPU_SMI_VERSION_SIGNATURE = r"^[ \t]*npu-smi version:[ \t]*(?:\d[\w.-]{0,40}[ \t]*)?$"
_NPU_SMI_VERSION_RE = re.compile(
    r"^[ \t]*npu-smi version:[ \t]*(?:(?P<v>\d[\w.-]{0,40})|\r?\n[ \t]*(?P<below>\d[\w.-]{0,40}))[ \t]*$",
    re.M,
)
_NPU_SMI_ASKED_RE = re.compile(r"\bnpu-smi\s+(?P<args>[^\n]*?)\s*$", re.M)

_SIGNATURES: dict[str, re.Pattern[str]] = {
    # a table header (mscclpp-test's has no type column), the footer, a *_perf command line,
    # the "# nThread .. maxBytes .." line that opens every run (header and request line also
    # without their "#", as a markdown paste leaves them), or a result row pasted without its
    # header (after a launcher tag such as "[0]")
    "nccl_tests": re.compile(
        r"^(?:\S*[#\]:])?[ \t]*size[ \t]+count[ \t]+(?:type|time)\b|#\s*Avg bus bandwidth"
        r"|_perf\b.*-b\s|^(?:\S*[#\]:])?[ \t]*nThread \d+ nGpus \d+ minBytes \d+ maxBytes \d+"
        r"|^#[ \t]*nThreads: \d+ nGpus: \d+ (?:nRanks: \d+ )?minBytes: \d+ maxBytes: \d+"
        r"|^(?:[ \t]*\S*[\]:])?" + nccl_tests.ROW_SIGNATURE,
        re.M,
    ),
    # the results table, hccl_test's HCCLCHECK failure line, or its mpirun command line
    "hccl_test": re.compile(
        r"data_size\(Bytes\)|(?:hccl|acl) interface return err"
        r"|\bmpirun\b[^\n]*?\b(?:all_reduce|all_gather|allgatherv?|reduce_scatter|alltoallv?c?"
        r"|all_to_all|broadcast|reduce|scatter)_test\b"
    ),
    # the table's header, or (a fragment pasted without it) a chip's two rows
    # the chip table's header, a fragment's chip rows, or the process table's header alone
    "npu_smi_info": re.compile(
        r"\|\s*NPU\s+Name\s*\||\|\s*NPU ID\s*\|\s*Name\s*\||\|\s*NPU\s+Chip\s*\|\s*Process id\s*\||"
        # (or its banner alone, a copy cut after it: "| npu-smi 25.5.0   Version: 25.5.0 |")
        r"^[ \t]*\|[ \t]*npu-smi[ \t]+\d[\w.]*[ \t]+Version:[ \t]*\d[\w.]*[ \t]*\|[ \t]*$|"
        # (or a chip's second rows alone, as a grep keeps them)
        + npu_smi.FRAGMENT_SIGNATURE
        + "|"
        + npu_smi.SECOND_ROW_SIGNATURE,
        re.M,
    ),
    "npu_smi_query": re.compile(npu_smi.QUERY_SIGNATURE, re.M),
    "npu_smi_watch": re.compile(npu_smi.WATCH_SIGNATURE, re.M),
    "npu_smi_mapping": re.compile(npu_smi.MAPPING_SIGNATURE, re.M),
    # a header row of NPUn / Phy-IDn names (indented or at column 0, any first id) and a row
    "npu_smi_topo": re.compile(
        # (a document's "NPUx" column stands for the NPUs it left out)
        # (with its NIC columns after the NPUs: "NPU0  NPU1  NIC0")
        r"^[ \t]*(?:NPU|Phy-ID)\d+(?:[ \t]+(?:NPU|Phy-ID)(?:\d+|x))*(?:[ \t]+NIC\d+)*"
        r"(?:[ \t]+CPU Affinity)?(?:[ \t]+NUMA Affinity)?[ \t]*\r?\n"
        r"[ \t]*(?:NPU|Phy-ID)\d+[ \t]+(?:X|HCCS|HCCS_SW|PIX|PXB|PHB|NODE|SYS|SIO|UB|NA)\b"
        r"|^[ \t]*This device does not support querying topo\."
        # sglang's check_env heading over npu-smi's matrix (a copy may end inside its header)
        r"|^Ascend Topology:[ \t]*\r?\n[ \t]*(?:NPU|Phy-ID)\d+\b"
        # a copy that ends inside the matrix's header, after two device names at least
        r"|^[ \t]*(?:NPU|Phy-ID)0(?:[ \t]+(?:NPU|Phy-ID)\d+)+(?:[ \t]+(?:NP?U?|Ph?y?-?I?D?))?\s*\Z",
        re.M,
    ),
    # GPU0 then GPU1/NIC0/the affinity; or GPU0 then RDMA device names (older drivers) before a
    # CPU Affinity label, over GPU0's own row
    "nvidia_smi_topo": re.compile(
        r"^[ \t]*(?:\x1b?\[4m)?GPU0(?:[ \t]+(GPU1|NIC0|CPU Affinity)\b|GPU1GPU2|CPUAffinity\b)"
        r"|^[ \t]*GPU0[ \t][^\n]*\bCPU Affinity\b[^\n]*\r?\n[ \t]*GPU0[ \t]+X\b"
        # rows alone, the header line lost (nvidia_smi.HEADERLESS_SIGNATURE)
        rf"|{nvidia_smi.HEADERLESS_SIGNATURE}",
        re.M,
    ),
    "hccn_tool": re.compile(
        r"^\s*(link status\s*:|net health status\s*:|ipaddr\s*:|optical info\s*:|packet statistics\s*:|PFC configuration\s*:"
        # -ip -g of a port with no address (hccn_tool.NO_IP_RE)
        r"|Get ipconf failed, because no ip was preset there)"
        # (a command quoted in a document's table cell or inline code, "`hccn_tool -i 0 -link
        # -g`", is not an output)
        r"|tls switch\[|(?<!`)hccn_tool\s+-i\s+\d+\s+-\w+(?:\s+-inet6)?\s+-g"
        # a loop's answers each behind its device (hccn_tool.DEVICE_STATE_RE)
        rf"|{hccn_tool.DEVICE_STATE_RE.pattern}"
        # ping saved without its command: Linux ping ends the summary with ", time Nms"
        r"|^device \d+ PING\s|^recv time ?out seq|packets transmitted, \d+ received, [0-9.]+% packet loss[ \t]*$"
        r"|^Routing table:\s*\n\s*Destination\s+Gateway\s+Genmask"
        # -link_stat -g saved without its command: every line behind "[devid N]"
        r"|^\[(?:devid|device) \d+\]\s*(?:current time|link up count)\s*:|^Netdev status\s*:Settings for "
        # Ascend 950's -link_stat: both counts, or its boxed records' heading
        r"|^link up count\s*:\s*\d+\s*\n\s*link down count\s*:\s*\d+"
        r"|^\|\s*NPU\s*\|\s*UDie\s*\|\s*Port\s*\|\s*Link_Status\s*\|"
        # -roce_test's bandwidth test; a grep of one -lldp TLV over a loop's ports ("Interface 0:
        # System Name TLV ..."; a host NIC's would be labelled by its name)
        r"|hccn_tool\s+-i\s+\d+\s+-roce_test\s+ib_|^Interface \d+:\s*[A-Z][\w ]*? TLV\b"
        # Ascend 950's -dev_info port table, -port_info and -adapt_status
        r"|^\|\s*UDie ID\s*\|\s*Port ID\s*\|\s*Speed Ability\(Gbps\)"
        r"|^\|\s*UdieID\s*\|\s*PortID\s*\|\s*Speed\s*\|\s*PortType\s*\|\s*Link Status\s*\|"
        r"|^port_id\s*:\s*0x[0-9a-fA-F]+\s*\n=+ UB PORT LINK INFO|^print the adapt status table\s*:"
        # -gateway -g ("default gateway:ADDR, Iface:eth0"); -lldp -g's first two TLVs; Ascend
        # 950's mode-first command; a shell loop running hccn_tool over the devices
        r"|^default gateway\s*:[^\n]*,\s*Iface\s*:|^\s*Chassis ID TLV\s*\n(?:.*\n){1,4}?\s*Port ID TLV\s*$"
        # (-g -process, -show_list and -cfg_recovery answer nothing of a port: ascend_notes
        # reads them)
        r"|(?<!`)hccn_tool\s+-g\s+-(?!process\b|show_list\b|cfg_recovery\b)\w+\s+-i\s+\d+"
        r"|\bfor\s+\w+\s+in\s+[^;\n]+;\s*do\b[^\n]*(?<!`)hccn_tool\s+-i\s+[\"']?\$\{?\w+\}?[\"']?\s+-\w+"
        # Ascend 950's -bit_err heading with its first counter, -su_ber -result's lane table and
        # -down_data's record heading (or its "no down data"), saved without their command
        rf"|{hccn_tool.BIT_ERR_HEAD_RE.pattern}\s*\n\s*port_id\s*:\s*0x"
        rf"|{hccn_tool.SU_BER_HEAD_RE.pattern}|{hccn_tool.DOWN_DATA_HEAD_RE.pattern}",
        re.M,
    ),
    "hccn_conf": re.compile(r"^\s*address_\d+\s*=", re.M),
    # ibstat's device block, ibv_devinfo's
    "rdma": re.compile(
        "|".join(
            (
                rdma.IBSTAT_SIGNATURE,
                rdma.IBV_DEVINFO_SIGNATURE,
                rdma.IBSTATUS_SIGNATURE,
                rdma.IBDEV2NETDEV_SIGNATURE,
                rdma.IBLINKINFO_SIGNATURE,
                rdma.IBNETDISCOVER_SIGNATURE,
                rdma.IBPORTSTATE_SIGNATURE,
                rdma.RDMA_LINK_SIGNATURE,
                rdma.SYSFS_PORTS_SIGNATURE,
                rdma.SMINFO_SIGNATURE,
                rdma.SA_BIND_FAILED_SIGNATURE,
            )
        ),
        re.M,
    ),
    "perftest": re.compile(rdma.PERFTEST_SIGNATURE, re.M),
    "mlxlink": re.compile(rdma.MLXLINK_SIGNATURE, re.M),
    "show_gids": re.compile(rdma.SHOW_GIDS_SIGNATURE, re.M),
    # AMD-SMI's AINIC view: its RDMA devices' and network ports' blocks
    "amd_smi_nic": re.compile(amd_smi_nic.SIGNATURE, re.M),
    "dcgm_diag": re.compile(dcgm.SIGNATURE, re.M),
    "dcgmi_nvlink": re.compile(dcgm.LINK_STATUS_SIGNATURE, re.M),
    "dcgmi_nvlink_errors": re.compile(dcgm.ERROR_COUNTS_SIGNATURE, re.M),
    "dcgmi_health": re.compile(dcgm.HEALTH_SIGNATURE, re.M),
    "dcgmi_dmon": re.compile(dcgm.DMON_SIGNATURE, re.M),
    "ubergemm": re.compile(dcgm.UBERGEMM_SIGNATURE, re.M),
    "gpu_burn": re.compile(gpu_burn.SIGNATURE, re.M),
    "nvsm": re.compile(nvsm.SIGNATURE, re.M),
    "dcgm_profiling_error": re.compile(dcgm.PROFILING_ERROR_SIGNATURE, re.M),
    "nvidia_smi_dmon": re.compile(nvidia_smi.DMON_SIGNATURE, re.M),
    "dcgmi_discovery": re.compile(dcgm.DISCOVERY_SIGNATURE, re.M),
    "dcgmi_stats": re.compile(dcgm.STATS_SIGNATURE, re.M),
    "ibqueryerrors": re.compile(rdma.IBQUERYERRORS_SIGNATURE, re.M),
    "nvbandwidth": re.compile(nvbandwidth.SIGNATURE, re.M),
    "p2p_bandwidth": re.compile(p2p_bandwidth.SIGNATURE, re.M),
    # (before simpleP2P: deviceQuery prints the same "> Peer access from" lines)
    "device_query": re.compile(device_query.SIGNATURE, re.M),
    "simple_p2p": re.compile(simple_p2p.SIGNATURE, re.M),
    "bandwidth_test": re.compile(bandwidth_test.SIGNATURE, re.M),
    "bus_grind": re.compile(bus_grind.SIGNATURE, re.M),
    "faultdiag": re.compile(faultdiag.SIGNATURE, re.M),
    "asys": re.compile(asys.SIGNATURE, re.M),
    "asys_status": re.compile(asys.STATUS_SIGNATURE, re.M),
    "ascend_dmi": re.compile(ascend_dmi.SIGNATURE, re.M),
    "ascend_dmi_flops": re.compile(ascend_dmi.FLOPS_SIGNATURE, re.M),
    "reschedule": re.compile(reschedule.SIGNATURE, re.M),
    "deviceinfo": re.compile(deviceinfo.SIGNATURE, re.M),
    "msnpureport_devices": re.compile(msnpureport.SIGNATURE, re.M),
    "npu_smi_details": re.compile(npu_smi.DETAILS_CSV_SIGNATURE, re.M),
    "hccn_stat_csv": re.compile(hccn_tool.STAT_CSV_SIGNATURE, re.M),
    "npu_smi_templates": re.compile(npu_smi.TEMPLATE_SIGNATURE, re.M),
    "msprof": re.compile(msprof.SIGNATURE, re.M),
    "nic_legend": re.compile(nvidia_smi.NIC_LEGEND_SIGNATURE, re.M),
    "hccn_vnic": re.compile(hccn_tool.VNIC_SIGNATURE, re.M),
    "npu_exporter": re.compile(hccn_tool.EXPORTER_SIGNATURE, re.M),
    "dcgm_exporter": re.compile(dcgm.EXPORTER_SIGNATURE, re.M),
    "dcgmi_policy": re.compile(dcgm.POLICY_SIGNATURE, re.M),
    "nvidia_smi_mig_pending": re.compile(nvidia_smi.MIG_PENDING_SIGNATURE, re.M),
    "npu_tls_cert": re.compile(hccn_tool.TLS_CERT_SIGNATURE, re.M),
    "ascend_notes": re.compile(ascend_notes.SIGNATURE, re.M),
    "ascend_versions": re.compile(ascend_versions.SIGNATURE, re.M),
    "ethtool_stats": re.compile(ethtool.SIGNATURE, re.M),
    "rdma_hw_counters": re.compile(ethtool.HW_COUNTERS_SIGNATURE, re.M),
    "ethtool_settings": re.compile(ethtool.SETTINGS_SIGNATURE, re.M),
    "ethtool_module": re.compile(ethtool.MODULE_SIGNATURE, re.M),
    "ethtool_driver": re.compile(ethtool.DRIVER_SIGNATURE, re.M),
    "nvidia_smi_mig_profiles": re.compile(nvidia_smi.MIG_PROFILES_SIGNATURE, re.M),
    "nvidia_smi_list": re.compile(nvidia_smi.LIST_SIGNATURE, re.M),
    "nvidia_smi_mig_instances": re.compile(nvidia_smi.MIG_INSTANCES_SIGNATURE, re.M),
    "npu_smi_refused": re.compile(_NPU_SMI_REFUSED_SIGNATURE, re.M),
    "npu_smi_version": re.compile(_NPU_SMI_VERSION_SIGNATURE, re.M),
    "ibv_devices": re.compile(rdma.IBV_DEVICES_SIGNATURE, re.M),
    "mst_status": re.compile(rdma.MST_STATUS_SIGNATURE, re.M),
    "numactl": re.compile(numa.SIGNATURE, re.M),
    "netif": re.compile(netif.SIGNATURE, re.M),
    "nccl_topo": re.compile(nccl_topo.SIGNATURE, re.M),
    "libfabric": re.compile(libfabric.SIGNATURE, re.M),
    "pingpong": re.compile(pingpong.SIGNATURE, re.M),
    "prechecks": re.compile(prechecks.SIGNATURE, re.M),
    "k8s_node_devices": re.compile(_K8S_DEVICE_RESOURCE_SIGNATURE, re.M),
    "lspci_link": re.compile(f"{lspci.SIGNATURE}|{lspci.DEVICE_SIGNATURE}", re.M),
    "lspci_list": re.compile(lspci.LIST_SIGNATURE, re.M),
    "lspci_acs": re.compile(lspci.ACS_SIGNATURE, re.M),
    "iperf3": re.compile(iperf.SIGNATURE, re.M),
    "multinic_check": re.compile(iperf.CONNECTION_CHECK_SIGNATURE, re.M),
    "mlxconfig": re.compile(rdma.MLXCONFIG_SIGNATURE, re.M),
    "mlxfwmanager": re.compile(rdma.MLXFWMANAGER_SIGNATURE, re.M),
    "lscpu": re.compile(f"{lscpu.SIGNATURE}|{lscpu.NUMA_SECTION_SIGNATURE}", re.M),
    "ibdiagnet": re.compile(rdma.IBDIAGNET_SIGNATURE, re.M),
    "mlnx_qos": re.compile(rdma.MLNX_QOS_SIGNATURE, re.M),
    "ping": re.compile(netif.PING_SIGNATURE, re.M),
    "ibping": re.compile(rdma.IBPING_SIGNATURE, re.M),
    "nvidia_smi_nvlink": nvidia_smi.NVLINK_STATUS_RE,
    "nvidia_smi_query": nvidia_smi.QUERY_RE,
    "nvidia_smi_query_csv": re.compile(nvidia_smi.QUERY_CSV_SIGNATURE, re.M),
    "nvidia_smi_query_xml": re.compile(nvidia_smi.QUERY_XML_SIGNATURE, re.M),
    # nvidia-smi's status table: its banner, or its first header row where a copy lost the banner
    "nvidia_smi": re.compile(
        r"NVIDIA-SMI \S+\s+(?:Driver|KMD) Version: |\|\s*GPU\s+Name\s+Persistence-M\s*\|"
        # a GPU's block copied without the table's head: its first row (index, name,
        # persistence | bus id, display | ECC) over its second (fan, temperature, perf, power)
        r"|^\|\s+\d+\s+\S[^|\n]*\s(?:On|Off)\s*\|\s*[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]"
        r"\s+(?:On|Off|ERR!|N/A)\s*\|[^\n]*\n\|\s*(?:\d+%|N/A|ERR!)\s+(?:\d+C|N/A|ERR!)\s+[^\n|]*\|"
        r"\s*\d+MiB\s*/",
        re.M,
    ),
    # vllm-ascend's prefill/decode form has device lists of its own
    "rank_table": re.compile(
        r'^\s*\{[\s\S]*"(server_list|group_list|rank_list|prefill_device_list|decode_device_list)"'
        # a copy that starts at one of the table's lists (rank_table.HEADLESS_RE)
        r'|^\s*"(?:server_list|server_group_list|group_list|rank_list|prefill_device_list|'
        r'decode_device_list)"\s*:\s*\['
        # ... or inside one server's entry, at its keys or its device list
        # (rank_table.SERVER_ENTRY_RE)
        rf"|\A(?:{rank_table.SERVER_ENTRY_RE.pattern})"
        # ... or at its first key, only the opening brace left out (rank_table._BRACELESS_RE)
        rf'|^\s*"(?:{"|".join(rank_table.BRACELESS_KEYS)})"\s*:\s*"[^"\n]*",\s*\n[\s\S]*?'
        r'"(?:server_list|group_list)"\s*:\s*\['
        # a table its writer has not filled yet (MindCluster's rank table file while the job's
        # pods start: '{"status":"initializing","version":"1.0"}'), no list in it
        r'|\A\s*\{\s*"(?:status|version)"\s*:\s*"[^"\n]*"\s*,\s*"(?:status|version)"\s*:\s*"[^"\n]*"\s*\}\s*\Z'
    ),
    # (a CANN error code, "EI0006:" or "(EI0006)", is _CANN_CODE_RE below)
    "log": re.compile(
        r"Work[NH]CCL\(SeqNum=|ChildFailedError|[Ll]ast enqueued (?:[NH]CCL )?work"
        r"|ProcessGroup[NH]CCL preparing to dump debug info"
        r"|\] PostProcess\] This node could be redundant and is not successfully registered"
        r"|Start worker process with rank id:\s*\d+, log file:"
        # the Neuron runtime's failure to create its collectives' global communicator
        # (logs._NRT_GLOBAL_COMM_FAILED_RE), a copy of its ERROR lines without the CCOM WARNs
        r"|\bERROR {1,10}NRT:\w{1,60} {1,80}failed to create global communicator\b"
        r"|\baclrt\w+ failed, ret = \d{6}\b|\baclrt\w+ failed: \d{6}\b"
        # the NPU black box's history.log, either form (logs._BBOX_HISTORY_RE)
        r"|system exception code ?\[0x[0-9A-Fa-f]{8}\]: (?:Device ?\[\d{1,4}\], )?ModuleName ?\["
        # the black box's driver.txt: the driver's words of the exception (logs._BBOX_FAIL_INFO_RE)
        r"|^device_id ?= ?\d{1,4}, fail info: "
        # a device slog's IMP EVENT line of its port's link (logs._IMP_LINK_RE)
        r"|\(device_id:\d{1,4} die_id:\d{1,4}\) \[IMP\] [^\n]{0,200}?\brf_lf \d"
        # HCCL's run-log entry of a communicator's creation by root info (logs._INIT_ENTRY_RE)
        r"|Entry-HcclCommInitRootInfo(?:Config)?(?:Inner)?:ranks\[\d+\], rank\[\d+\]"
        # (a bare version line alone is NCCL_DEBUG=VERSION's, as nccl-tests logs print it: the
        # start's other lines bare too, its network, make the log of one)
        r"|^NCCL version \d+\.\d+\.\d+\+cuda[\d.]+[ \t]*\n(?:[^\n]*\n){0,40}?Using network \S+[ \t]*$"
        # (NCCL's INFO lines with their "host:pid:tid [dev] " prefix taken off by the copy)
        r"|^NCCL INFO NCCL version \d+\.\d+\.\d+"
        # (a bare version line beside INFO lines that kept their level, not their prefix:
        # logs._bare_nccl_version)
        r"|^[ \t]*NCCL INFO \S[^\n]*\n(?:[^\n]*\n){0,40}?[ \t]*NCCL version \d+\.\d+\.\d+\+cuda[\d.]+[ \t]*$"
        r"|^[ \t]*NCCL version \d+\.\d+\.\d+\+cuda[\d.]+[ \t]*\n(?:[^\n]*\n){0,40}?[ \t]*NCCL INFO \S"
        r"|\{ (?:Epoch:\[[ \t]*\d+/[ \t]*\d+\], )?step:\[[ \t]*\d+/[ \t]*\d+\], loss:[ \t]*-?\d"
        r"|^[ \t]*epoch:[ \t]*\d+,?[ \t]+step:[ \t]*\d+,[ \t]*loss is[ \t]*-?\d"
        # a tqdm bar whose postfix carries the loss (logs.TQDM_LOSS_RE)
        # (its loss NaN too: NeMo's "reduced_train_loss=nan.0")
        r"|\|[ \t]*\d+/\d+ \[[^\]\n]{0,200}?\b(?:(?:reduced_)?train_)?loss(?:_step)?[:=] ?"
        r"(?:-?\d|nan\b|-?inf\b)"
        # Keras' progress line, its loss finite or not (logs.KERAS_LOSS_RE)
        r"|^[ \t]*\d+/\d+[ \t]+(?:\[[=>.]{0,100}\][ \t]+|[━─]{1,100}[ \t]+)?(?:-[ \t]+)?"
        r"[^\n]{0,80}?[ \t]-[ \t]loss: (?:-?\d|nan\b|-?inf\b)"
        # DeepSpeed's fp16 loss scaler skipping a step, its engine's count of skipped steps
        # (logs._DS_OVERFLOW_RE, logs._DS_STEP_RE); Horovod's stall inspector
        # (logs._HOROVOD_STALL_RE); XLA's allocator out of memory, maybe wrapped (logs._XLA_OOM_RE)
        # (its "scale" maybe split by a terminal's padded wrap: logs._DS_WRAP_PAD_RE)
        r"|OVERFLOW! (?:Rank \d+ )?Skipping step\. Attempted loss scal"
        r"|\[Rank 0\] step=\d+, skipped=\d+"
        r"|submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting"
        r"|(?:horovod/common/operations\.cc:\d+\] |Stalled ops:)[ \t]?\S+ \[(?:missing|ready) ranks: \d"
        # (an entry of that list alone on its line, the copy begun below "Stalled ops:":
        # logs._HOROVOD_BARE_ENTRY_RE)
        r"|^[ \t]*[^\s\[\]]{1,1000} \[missing ranks: \d{1,9}(?:, \d{1,9}){0,1000}\][ \t]*$"
        r"|(?:Resource exhausted|RESOURCE_EXHAUSTED):[ \t]*(?:Out\s+of\s+memory while trying to allocate \d"
        r"|Failed to allocate request for [\d.]+ ?[KMGTPE]?i?B \(\d+B\) on device ordinal \d)"
        # Megatron's iteration line whose gradient norm is NaN, its loss dropped from it
        r"|^[ \t]*iteration[ \t]+\d+[ \t]*/[ \t]*\d+[ \t]*\|[^\n]*?\| grad norm: (?i:nan|-?inf) \|"
        # (... a copy wrapped after its fields' "|": logs._megatron_rejoined)
        r"|^[ \t]*iteration[ \t]+\d+[ \t]*/[ \t]*\d+[ \t]*\|[^\n]*\|[ \t]*\n"
        r"(?:[^\n]{0,200}\|[ \t]*\n){0,6}[^\n]{0,200}?\bgrad norm: (?i:nan|-?inf) \|"
        # Megatron's iteration line counting skipped iterations, Megatron-LLM's warning of a
        # NaN gradient norm (logs._megatron_skipped_steps)
        r"|^[^|\n]{0,120}?\biteration[ \t]+\d+[ \t]*/[ \t]*\d+[ \t]*\|[^\n]*?\| number of skipped iterations:[ \t]*[1-9]"
        r"|\*\*\*WARNING\*\*\* Bad grad_norm detected \(grad_norm="
        # Megatron's (MindSpeed's) iteration line with its loss (logs.ITERATION_LOSS_RE)
        r"|^[^|\n]{0,120}?\biteration[ \t]+\d+[ \t]*/[ \t]*\d+[ \t]*\|[^\n]*?\|[ \t]*(?:lm )?loss:"
        r"[ \t]*(?:-?\d|(?i:nan|-?inf))"
        # NCCL's result description with its last WARN under "Last error:" (torch's NCCL error,
        # or a program's own print of ncclGetErrorString and ncclGetLastError), however prefixed
        r"|\bnccl[A-Z][a-z]+Error: [^\n]{0,400}\n[^\n]{0,200}Last error:"
        # (torch's description of the result with the WARN joined on its line, as an issue's
        # title quotes it: logs.TORCH_NCCL_DESCRIPTIONS)
        r"|\bncclInternalError: Internal check failed\.|\bncclUnhandledCudaError: Call to CUDA function failed\."
        r"|\bncclRemoteError: A call failed possibly due to a network error"
        r"|waiting for (?:clients|workers)\. \d+/\d+ (?:clients|workers) joined|Cluster Exception Location|crimer rank \[|\]\s*status\[LOST\] by rank \["
        r"|LINK_ERROR_INFO|HW Exception by GPU node-\d+"
        r"|NVRM: Xid \((?:PCI:)?[0-9A-Fa-f:.]+(?:\s+GPU-C?I:\d+)*\): \d+,"
        r"|^[ \t]*Xid \((?:PCI:)?[0-9A-Fa-f:.?]+\): \d+(?:,| +- )|NVRM: GPU\d+ knvlink\w+: Error\b"
        r"|NVRM: (?:GPU\d+ )?_?kgsp\w+: [^\n]*?(?:[Hh]eartbeat timed out|GSP Timeout)"
        r"|nvidia-nvswitch\d+: SXid \((?:PCI:)?[0-9A-Fa-f:.]+\): \d+,"
        r"|NVRM: The NVIDIA GPU [0-9A-Fa-f:.]+\s*$|NVRM: GPU [0-9A-Fa-f:.]+: RmInitAdapter failed!"
        # the device plugin's critical Xid; the driver's start (logs._PLUGIN_XID_RE, NVRM_LOADING_RE)
        r"|XidCriticalError: Xid=\d+(?: on (?:Device|GPU)=|, All devices)"
        # nvidia-smi's critical Xid on a GPU (logs._SMI_CRITICAL_XID_RE)
        r"|\bGPU [0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]: Detected Critical Xid Error"
        r"|NVRM: loading NVIDIA UNIX \S+ Kernel Module\s+\d"
        r"|[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]: (?:AER: )?(?:PCIe|CXL) Bus Error: severity="
        r"|[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]: (?:AER: )?aer_status: 0x[0-9a-fA-F]{8}, aer_mask: "
        r"|^\s*(?:Cmd|Command) execute failed!\s*$"
        r"|^Error: failed to run \S+ .*? on [\w.-]+, is localhost: (?:True|False), exception: "
        r"|^Error: \*\*failed to run (?:torchrun|python\S*) [^\n]*? on \S[^\n]*\*\*[ \t]*$"
        r"|^Error: failed to run (?:torchrun|python\S*) [^\n]*? on (?:\[[^\]\n]+\]|[\w.-]+)[ \t]*$"
        r"|listen on ip\[[0-9A-Fa-f.:]+\] and specific port\[\d+\] fail|wait socket establish timeout"
        r"|ra rdma init failed, devid\[\d+\]"
        # runc's failed OCI hook (logs._OCI_HOOK_RE): a container a runtime hook did not start
        r"|error running \w+ hook #\d+: exit status \d+, stdout: "
        # containerd's OCI runtime that exited non-zero (logs._OCI_RUNTIME_EXIT_RE), wherever the
        # line stands (kubectl describe pod's Events message column, a journal's msg="...")
        r"|\bdid not terminate successfully: exit status \d{1,3}\b"
        # ascend-docker-runtime's run log refusing runc (logs._ASCEND_RUNTIME_CHECK_RE)
        r"|\bfailed to check files, (?:error: )?(?:owner not right|write permission not right"
        r"|set[ug]id not allowed|symlinks or not existed, failed) /"
        # the runtime's words of a failed task without their plog prefix (logs._bare_task_exceptions)
        r"|The error from device\((?:chipId:\d+, dieId:\d+|\d+)\), serial number is \d+, "
        r"(?:(?i:an exception occurred during)|there is an? [\w ]+?, core id is \d+)"
        # gpud's Xid event (logs._GPUD_XID_RE)
        r"|\bXID \d+\([^)\n]{0,200}\) detected on PCI:[0-9A-Fa-f:.]+"
        # a scheduler finding no devices of a kind on a node (logs._devices_not_offered)
        r"|Failed to get node devices\. nodeName [\w.-]+, deviceType [\w.-]+, error annos not found"
        r"|\bNode [\w.-]+ does not have allocatable [\w./-]+ resource or value is 0"
        r"|\] device [\w.-]+ is unhealthy on this node"
        rf"|{logs.NVIDIA_PLUGIN_NO_DEVICES_SIGNATURE}"
        # a verbs program's GPU buffer refused registration (logs._gpu_mr_refused)
        r"|^[ \t]*Couldn't register GPU MR\b"
        # the RDMA shared device plugin's PCI functions it made no device of
        # (logs._rdma_plugin_no_devices)
        r'|error creating new device: "(?:missing RDMA device spec|error getting driver info) for '
        r"device [0-9a-fA-F]{4}:"
        # Ray Tune's trials that did not complete (logs._TUNE_INCOMPLETE_RE)
        r"|\bTrials did not complete(?::[ \t]*|',[ \t]*)\["
        # Horovod's refusal after it shut down (logs._horovod_shutdowns); Open MPI's banner of a
        # process that returned non-zero (logs._launcher_exits)
        r"|Horovod has been shut down\. This was caused by"
        r"|Timed out waiting for [^.\n]{1,80}\. Please check connectivity between servers"
        r"|^[ \t]*\w*\.?check_time_out_for\(['\"][^'\"\n]{1,80}['\"]\)[ \t]*$"
        # a benchmark script's HCCL result lines (logs.BENCH_SUMMARY_RE)
        r"|^[ \t]*HCCL_[A-Z][A-Z_]* (?:OK \d+(?:\.\d+)?|FAIL \d+)[ \t]*$"
        # DeepSpeed's launcher killing its workers (logs._deepspeed_kills); its start on a node
        # (launcher/launch.py's "WORLD INFO DICT: {...}", logs._deepspeed_local_notes)
        r"|\bsigkill_handler\] Killing subprocess \d+"
        r"|\[launch\.py:\d+:main\] WORLD INFO DICT: \{"
        r"|Primary job\s+terminated normally, but \d+ process"
        # Open MPI's peer that disconnected (logs._launcher_exits)
        r"|An MPI communication peer process has unexpectedly disconnected"
        # kubelet refusing a pod its device plugin has no healthy device for (logs._ADMISSION_RE)
        r"|\bcannot allocate unhealthy devices [\w./-]+|\bUnexpectedAdmissionError\b"
        # msaicerr's AI Core error report (logs._msaicerr_info)
        r"|(?<!\*)\*{3,}\s*1\. Basic information\s*\*{3,}\s*(?:\n[^\n]*){0,4}?\s*error time\s*:"
        # (its report flattened to one line by a page: the headings and fields run together)
        r"|(?<!\*)\*{3,}\s*1\. Basic information\s*\*{3,}[^\n]{0,600}?\berror time\s*:[^\n]{0,400}?\bdevice id\s*:"
        # protobuf's own log line (its ERROR and FATAL: a descriptor registered twice ...)
        r"|^\[libprotobuf FATAL [\w./-]+:\d+\] \S"
        # an exception copied without its traceback, as the text's first line (logs.lone_exception)
        r"|\A\s*(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception): \S[^\n]*:[ \t]*\n[^\n]*\S"
        r"|\A\s*(?:[a-z_]\w*\.)+[A-Z]\w*(?:Error|Exception): \S"
        r"|\A\s*[A-Z]\w*(?:Error|Exception):\s+[^\n]*\berror code is\s*:?\s*\d{3,}"
        # libibverbs with no provider for a device (logs._IBV_NO_PROVIDER_RE)
        r"|libibverbs: Warning: no userspace device-specific driver found for"
        # a vLLM worker's memory profile at start (logs.VLLM_MEMORY_RE)
        r"|Free memory on device \([\d.]+/[\d.]+ GiB\) on startup\."
        # Fabric Manager's refused configuration, its missing ib_umad, nvlsm's (logs._FM_CONFIG_RE)
        r"|fabric manager config file item: \w+ has an invalid value"
        r'|Kernel module "\w+" has not been loaded, fabric manager cannot be started'
        r"|\bnvlsm: ibwarn: \[\d+\] umad_init: "
        r"|fabric manager found but not active"
        # CUDA that would not start (logs._cuda_not_ready)
        r"|\bError 802: system not yet initialized|\bcudaGetDeviceCount returned \d+"
        r"|\(gpu_burn-drv\.cpp:\d{1,6}\): system not yet initialized"
        r"|\bCUDA_ERROR_SYSTEM_NOT_READY\b"
        r"|\bUserWarning: CUDA initialization: "
        r"|CUDA error at \S+ code=\d+\(cudaError\w+\) \"cuda(?:GetDeviceCount|SetDevice|GetDevice|Init)\b"
        # NHC's passed checks (logs._nhc_failures)
        r"|^(?:[\w.-]+\s*\|\s*)?SUCCESS:\s+nhc:\s+Health check passed:"
        # Abseil's failure signal handler's first line, Ray's actors logging it too
        # (logs._ABSL_SIGNAL_RE)
        r"|\*\*\* (?:SIG[A-Z]{2,7}|Signal \d{1,3}) received at time=\d{1,20}(?: on cpu \d{1,6})? \*\*\*"
        # submitit's preempted job (logs._submitit_notes)
        r"|Caught signal SIG\w+ on \S+: this job is preempted\."
        # MindSpore's memory pool past the device's memory (logs._MS_POOL_FULL_RE)
        r"|alloc size : \d+ is more than total mem size : \d+"
        # ProcessGroupNCCL's start with its options (logs._PG_STARTED_OPTIONS_RE)
        r"|\[Rank \d+\] ProcessGroup(?:NCCL|HCCL) initialized with following options"
        # DistributedDataParallel's construction, c10d's logger (logs._DDP_INIT_RE)
        r"|\[Rank \d+\]: DDP Initialized with:"
        # torch's DETAIL check of the ranks' collectives (logs._FINGERPRINT_MISMATCH_RE)
        r"|Detected mismatch between collectives on ranks\. Rank \d+ is running"
        # Megatron-LM's parallel layout at start (logs.MEGATRON_WORLD_RE)
        r"|^using world size: \d+, data-parallel[- ]size: \d+, "
        # torch elastic's restart of a failed worker group (logs.ELASTIC_RESTART_RE)
        r"|\] Worker group (?:FAILED|UNHEALTHY)\. \d+/\d+ attempts left; will restart worker group"
        # torch elastic's worker status records (logs._elastic_success)
        r'|"name": "torchelastic\.worker\.status\.[A-Z]+"'
        # torch elastic's agent's own lines of a worker group that ended well, with no status
        # record after them, behind whatever a runner put before each line (logs.
        # ELASTIC_FINISHED_RE; torchx's "ray/0 (CommandActor pid=494406) ", a pod's log)
        r"|\] worker group successfully finished\. Waiting \d+ seconds for oth"
        r"|Local worker group finished \((?:WorkerState\.)?SUCCEEDED\)"
        # MindIE's device out of memory (logs._MINDIE_OOM_RE)
        r"|Device out of memory \(OOM\) reported by PyTorch"
        # MindIE's warm-up out of memory (logs._MINDIE_WARMUP_OOM_RE)
        r"|\bWarmup failed, because of [^\n]{0,200}?out of memory"
        # MindIE Service's daemon that said it started (logs._mindie_daemon_started)
        r"|^\s*Daemon start success!\s*$"
        # the driver's refused device memory (logs._HAL_MEM_ALLOC_OOM_RE)
        r"|halMemAlloc failed: device_id=\d+, size=\d+"
        r"|topo exchange (?:agent|server) get socket timeout|Failed to connect agent\["
        r"|watchdog got stuck for \d+ seconds|local_rank (?:\d+|%s) FAILED with no error file\.|\[c10d\] recvValue failed on SocketImpl\(|which exceeds the memory usage threshold of [\d.]+\. Ray killed this worker|\b(?:ORTE|PRTE) has lost communication with a remote daemon|Failed: (?:CUDA|Cuda) error \S+:\d+ '|Failed: \S+\.(?:cuh?|cpp|cc|hpp|h):\d+ '|:\d+:\w+\.cpp\s*:\d+\s*:[^:\n]*:\s*hipError[A-Z]\w+: |DeepEP [\w ]*?timeout\b|retry count exceeded on mlx\w+:\d+/\w+ \(synd|\[Rank \d+\] Caught collective operation timeout for w|\bErrorCode:DCGM_FR_[A-Z_]+\s+GPU:\d+|\bNCCL INFO NET/(?:IB|Socket|OFI) ?: |frame #\d+: c10d::ProcessGroup[NH]CCL::(?:watchdogHandler|ncclCommWatchdog|workCleanupLoop)\(|\bError on QP 0x[0-9a-fA-F]+(?: wqe\[\d+\])?: [A-Za-z][A-Za-z -]{0,60} \(synd 0x|\]\s+\w+\.c:\d+\s+UCX\s+(?:ERROR|FATAL)\s|^[ \t]*\[[^:\]\s]+:\d+\] \*\*\* Process received signal \*\*\*|^[ \t]*\[[^:\]\s]+:\d+\s*:\s*\d+:\s*\d+\] Caught signal \d+ \(|failed \(exitcode: -?\d+\) (?:local_rank: \d+ \(pid: \d+\)|for binary located at \S+ with local_rank: \d+ \(process ID)"
        r"|HCCL error in: \S+?:\d+|HCCL function error: \w+\(|HCCL function error:\s*\n\s*\w+\(.*\), error code is|errNo\[0x0*5[0-9a-fA-F]{6}\]\s*(?:\[[^\]\n]*\]\s*)*Hccl\w+ fail"
        r"|\bHccl\w+ fail(?:ed)?, error:\s*-?\d+|fails to invoke the Hccl\w+ function of the hccl "
        r"|\bHccl\w+ failed, return\[0x0*5[0-9a-fA-F]{6}\]"
        r"|\bHccl\w+\((?:[^()\n]|\([^()\n]*\))*\) fail, ret: 0x[0-9a-fA-F]+\b"
        r"|\bhccl fftsplus task timeout occurred\b"
        # the runtime's wait time-out without its code or plog prefix (logs._ffts_timeouts)
        r"|\), serial number is \d+, (?:notify|event) wait timeout occurred during task execution"
        # CANN's report of a failed runtime call (log_inner.cpp ReportCallError), alone where a
        # copy kept only a worker's lines around it
        r"|\bruntime result = \d{6}\b|\bcall rts api \[\w+\] failed, retCode is \d{6}\b"
        # a program's exception callback's print of the runtime's failed task (logs.
        # _EXCEPTION_INFO_RE), alone where a copy kept only its line
        r"|\btask_?id: \d+, stream_?id: \d+, tid: \d+, device_?id: \d+, retcode: \d{6}\b"
        # a watchdog's time-out in its stack alone (logs._CHECK_TIMEOUT_FRAME_RE)
        r"|frame #\d+: (?:\w+::)*ProcessGroupNCCL::WorkNCCL::checkTimeout\("
        r"|Exception raised from checkTimeout at \S*ProcessGroupNCCL\.cpp:\d+"
        # the watchdog rethrowing a work's error in a stack (logs._WATCHDOG_HANDLE_FRAME_RE)
        r"|^\s*#\d+\s+(?:0x[0-9a-fA-F]+ in )?(?:\w+::)*ProcessGroup[NH]CCL::Work[NH]CCL::"
        r"handle(?:NCCLGuard|Exception)\("
        # HCCP's TLS switch in a device's run log (hccn_tool.hccp_tls_switches)
        r"|\bHCCP\(\d+,[^)]*\):.*?rs_ssl_init\(\d+\)\s*:\s*TLS SWITCH \([01]\)"
        # firmware-first AER in older kernels' form, behind the record's prefix
        r"|\[Hardware Error\]:\s+aer_status: 0x[0-9a-fA-F]{8}, aer_mask: "
        # CANN's silent data corruption check (logs.SILENT_CHECK_RE)
        r"|\bSilentCheckV\d+ \w+Error:val = \["
        # the kernel's panic (logs.KERNEL_PANIC_RE)
        r"|\bKernel panic - not syncing: "
        # the kernel's hung-task report (logs.HUNG_TASK_RE)
        r"|\bINFO: task .+?:\d+ blocked for more than \d+ seconds\."
        # the firmware's record of a memory error (logs._cper_memory_errors)
        r"|\[Hardware Error\]:\s+section_type: memory error"
        # torch's CUDA error report (c10/cuda/CUDAException: its hint after "CUDA error: ...",
        # or its exception line alone, logs._TORCH_CUDA_ERROR_RE)
        r"|^CUDA kernel errors might be asynchronously reported at some other API call"
        r"|^[ \t]*(?:\[rank\d+\]:[ \t]*|\"message\":[ \t]*\")?"
        r"(?:RuntimeError|torch\.AcceleratorError): CUDA error: \S"
        # an MoE operator's HCCL window check; torch_npu's device faults; kubelet's device plugin
        # and container start; a tool's exit status another program quoted; torchrun's summary
        # entries flattened a line each; torch's watchdog ending at exit (logs.*)
        rf"|{logs.BUFFSIZE_SIGNATURE}"
        # an HCCL error code's message without its code (logs._HCCL_MESSAGE_CODES)
        rf"|{logs.HCCL_MESSAGE_SIGNATURE}"
        rf"|{logs.NPU_DEVICE_FAULT_SIGNATURE}"
        r"|[Ll]istAndWatch ended unexpectedly for device plugin"
        r'|"Error syncing pod, skipping" err="failed to \\"StartContainer\\"'
        r"|\b(?:npu-smi|hccn_tool)\s[^:\n]{0,300}?:[ \t]*exit status \d+"
        r"|\[\d+\]:\s+time\s*:\s*\S+\s+host\s*:\s*\S+\s+rank\s*:\s*-?\d+"
        r"|main process destroyed cuda before watchdog loop exited"
        # the device driver's fault manager events (logs.DMS_EVENT_SIGNATURE)
        rf"|{logs.DMS_EVENT_SIGNATURE}"
        # gloo's full-mesh connect report (logs.GLOO_CONNECTED_RE)
        r"|Rank \d+ is connected to \d+(?: peer ranks)?\. Expected number of connected peer"
        # a c10d store call's frame over its socket's reset (logs._STORE_CALL_RESET_RE)
        r"|\bstore\.(?:add|get|set|wait|compare_set|check)\([^\n]*\n[ \t]*(?:\*\*)?(?:\w+\.)*"
        r"(?:RuntimeError|DistStoreError|DistNetworkError|ConnectionResetError): "
        r"(?:Connection reset by peer|Connection closed by peer|Broken pipe)\b"
        # NCCL's RAS client in JSON or its monitoring mode's events (logs.RAS_JSON_SIGNATURE)
        rf"|{logs.RAS_JSON_SIGNATURE}"
        # NVML's refusal for want of rights, libibverbs with no device (logs._nvidia_tool_failures)
        r"|^NVML: Unable to .+?: Insufficient Permissions\s*$"
        r"|^Failed to get IB devices list: |^No IB devices found\s*$"
        r"|^Fatal error:\s+device '[^'\n]*': sys files not found"
        r"|\bnvidia-peermem \w+:\d+ ERROR "
        # MindCluster NodeD passing on the BMC's fault events (logs._BMC_EVENT_RE)
        r"|get fault event, \[device type: [^\]\n]+\]-\[device id: \d+\]-\[error code: "
        # systemd-networkd's word of an interface that lost its link (logs._CARRIER_RE)
        r"|\bsystemd-networkd\[\d+\]: [\w.@-]+: [Ll]ost carrier\b"
        # MindSpore msrun's own word of a process that ended non-zero (logs._MSRUN_PROCESS_EXIT_RE)
        r"|\b(?:Worker|Scheduler) process \d+ exit with exception\."
        # the Ascend driver's ERROR lines in a host's kernel log (logs._HOST_DRIVER_ERROR_RE)
        r"|\[ascend\] \[\w+\] \[ERROR\] \[\w+ \d+\] "
        r"|\[ascend\] \[\w+\] \[(?:INFO|WARNING|EVENT)\] \[\w+ \d+\] (?:<[^>]*> )?DMA copy failed\b"
        r"|\bstore->get\(\) got error: HCCL_BLOCKING_WAIT\b"
        r"|A timeout occurs when the Notify register waits for execution\. Waiting peer rank: \d+"
        r"|\bHCCL Comm\w+ ERROR\d+\b"
        r"|^No devices were found\s*$|^NVIDIA-SMI has failed because it couldn['\u2018\u2019]t communicate"
        # (a shell's trace of a script that kept nvidia-smi's answer: "+ VAR='No devices were found'")
        r"|^\+ (?:(?:local|export|declare|readonly)(?: -\w+)? )?'?\w+='?(?:No devices were found|Failed to initialize NVML: [^'\n]+"
        r"|NVIDIA-SMI has failed because it couldn'\\''t communicate[^\n]*)'\s*$"
        r"|^(?:\s*rc=\d+\s+)?Failed to initialize NVML: |^Unable to (?:determine|detect) the device handle for GPU"
        r"|^Error: Unable to connect to host engine\."
        # DCGM's diagnostic (NVVS) logging an ERROR of its own (logs._nvvs_log); nvidia-smi -r
        # refused (logs._reset_refusals)
        rf"|{logs.NVVS_SIGNATURE}|{logs.SMI_RESET_SIGNATURE}"
        # npu-smi's DCMI that did not start (or its board type after it: logs._board_type_failed),
        # a device plugin's DCMI call, a tool the shell lacks
        r"|\bdcmi (?:model|module) initiali[sz]ed? failed\b|\bdcmi/\w+\.go:\d+\s.*?err: retCode: -\d+"
        r"|\bnpu get board type failed\. ret is -\d"
        r"|^\s*(?:\S*sh: (?:line )?(?:\d+: )?|sudo: )(?:hccn_tool|npu-smi): (?:command )?not found\s*$"
        r"|^\s*zsh: command not found: (?:hccn_tool|npu-smi)\s*$"
        r'|"\S*nv-fabricmanager\b[^"\n]*" failed! Exit code: \d+'
        r"|\bTSCH\([^)\n]*\):[^\n]*RTS_HWTS: hwts [a-z ]*exception"
        r"|Transport init error[.!][^\n]*?crea(?:te|k)Link para:|is setting up [NH]CCL communicator and retr"
        r"|Work[NH]CCL\(OpType=|NET/IB ?: Got completion (?:from peer|with error)"
        r"|\(PID:\d+, Device:-?\d+, RankID:-?\d+\) ERR\d{5} "
        r"|\b\w{1,120}:\S{1,400}?:\d+ NPU error, error code is \d+|NPU function error: (?:\w+::)*\w+\("
        r"|Call acl\w+\(.*\) failed : \d+ at file |NPU warning, error code is \d+|Check failed: \S+ == HCCL_SUCCESS \(-?\d+ vs\. 0\)"
        # a program's own ACL check ("aclrtSetDevice(deviceId) failed: 507033 (main.cpp:80)") and
        # vllm-ascend's "ACL stream synchronize failed, error code:507035"
        r"|\baclrt\w+\([^()\n]*\) failed: \d{6}\b|ACL stream synchronize failed, error code:\s*\d{6}"
        r"|Heartbeat monitor timed out!|due to ProcessGroup[NH]CCL watchdog hang"
        r"|NPU function error: call \w+ failed, error code is \d+"
        r"|NCCL error in: \S+?:\d+, |NCCL failure \S+:\d+ '|Failed, NCCL error \S+:\d+ '"
        # (XGBoost's dh::safe_nccl: "NCCL failure :remote process exited ...", its space before
        # the colon)
        r"|NCCL [Ff]ailure ?: ?(?:unhandled|internal error|invalid|remote process|NCCL op)"
        r"|\] Check failed: [^\n]*?NCCL error: (?:unhandled|internal error|invalid|remote process)"
        r"|Barrier timed out\. (?:Barrier_id|Id): |Task /job:[\w-]+/replica:\d+/task:\d+ heartbeat timeout"
        # XLA's coordination agent in error, a key it waited for in vain, a coordination RPC's
        # gRPC failure (logs._coordination_timeouts)
        r"|Coordination service agent in error status: [A-Z]|GetKeyValue\(\) timed out with key: "
        r"|while calling /tensorflow\.CoordinationService/\w+"
        # a task's watch of the coordination service failing (logs._coordinator_refused)
        r"|\bWatch\w{1,40}Async failed for task \d+: [A-Z]"
        # SGLang's scheduler watchdog (logs._sglang_watchdog)
        r"|\bWatchdog timeout \(self\.watchdog_timeout=\d"
        r"|/job:[\w-]+/replica:\d+/task:\d+ unexpectedly tried to connect with a different incarnation"
        # XLA's rendezvous of threads that not all reached (xla/service/rendezvous.cc)
        r"|\] This thread has been waiting for `[^`\n]{1,400}` for \d+ seconds and may be stuck\."
        r"|gloo/transport/\w+/\w+\.cc:\d+\] "
        r"|Failed to fetch the unique id of the collective lib from the meta server node"
        r"|There's worker exits with exception, kill all other workers|Time out nodes are \["
        r"|^[ \t]*\[[^:\]\s]+:\d+\] Failing at address: "
        r"|Worker exit type: [A-Z_]+ Worker exit detail: "
        r"|composer\.cli\.launcher:Rank \d+ crashed with exit code"
        r"|ABORT!!! Out of all \d{1,6} trainers, the trainer process with rank=\["
        rf"|{logs.LOADER_SIGNATURE}|{logs.FABRIC_MANAGER_SIGNATURE}|{logs.THREAD_LIMIT_SIGNATURE}"
        r"|Fatal error in MPI_Init"
        r"|No available node types can fulfill resource request |Waiting for creating a placement group of specs for \d+ seconds"
        r"|pyxis: container start failed with error code: \d+|host=\S+ was not reachable via ssh"
        r"|\bNcclError: NCCL_ERROR_\w+: |\bNCCL error: (?:unhandled|internal error|invalid|remote process)[^,\n]*, NCCL [Vv]ersion "
        r"|\bssh: connect to host \S+ port \d+: (?:Connection refused|Connection timed out|No route to host)"
        r"|\bWARN: Function: \w+ Line: \d+: NET/OFI |\blibfabric:\d+:\d*:(?:[\w;]*:){1,3}\w+\(\):\d+<warn> "
        r"|Nccl error, (?:unhandled|internal error|invalid|remote process)[^\n]*\(at \S+:\d+\)"
        r"|found async exception when checking for NCCL errors: NCCL error: "
        r"|RuntimeError: NCCL error: (?:unhandled|internal error|invalid|remote process|NCCL op)"
        r"|NCCL Error \d+: (?:unhandled|internal error|invalid|remote process|NCCL op)"
        r"|\bnccl[A-Z]\w* failed: (?:unhandled|internal error|invalid|remote process|NCCL op)"
        r"|Runtime error: (?:unhandled|internal error|invalid|remote process|NCCL op)[^\n]*\n"
        r"\s*nccl[A-Z]\w*\(.*\) at "
        r"|The server socket has failed to (?:bind to|listen on) \S+ \(errno: \d+"
        r"|failed to listen on any local network address\.\s*(?:port: \d+,?\s+)?useIpv6: "
        r"|TCP client failed to connect/validate to host \S+:\d+ - (?:retrying|timed out) \(try="
        r"|\] The server socket on \[[^\]\n]+\]:\d+ has timed out, will retry"
        # torch_npu's warning that its watchdog ends a hang before HCCL reports it
        r"|HCCL execution timeout \d+ms is bigger than watchdog timeout \d+ms"
        r"|HCCL execution timeout was set to (?:0\()?never timeout\)?, so it is bigger than "
        r"watchdog timeout \d+ms"
        r"|is less than or equal to HCCL execution timeout \d+ms"
        r"|waitForInput: socket SocketImpl\(.*\) timed out after \d+\s*ms"
        r"|(?:CUDA|NPU|HIP) out of memory\. Tried to allocate "
        # torch_npu's operator workspace allocator (logs._OOM_RE)
        r"|NPU out of memory\. NPUWorkspaceAllocator tried to allocate "
        r"|Malloc device memory failed, free memory size is less than half of total memory size"
        r"|DEVICE\[\d+\] PID\[\d+\]:\s*\n(?:.*\n){0,3}.*Message info\[\d+\]:"
        # torch elastic's agent record that Rich's log layout wrapped, its source column after
        # its first row and the rest indented below (logs._rich_rejoined)
        r"|failed \(exitcode: -?\d+\)[^\n]{0,40}?\s[\w.-]{1,80}\.py:\d{1,6}[ \t]*\n>?[ \t]{8,}\S"
        # a torch elastic summary entry copied without its ChildFailedError heading
        r"|\n\s*rank\s*:\s*\d+ \(local_rank: \d+\)\s*\n\s*exitcode\s*:\s*-?\d+ \(pid: \d+\)"
        r"|The client socket has (?:timed out after \d+\s*m?s while trying to connect|failed to "
        r"connect to (?:\[|[\w.-]+:\d+ \())|connect\(\) timed out\. Original timeout was \d+ ms"
        r"|^\s*(?:RuntimeError|[\w.]*DistStoreError): Socket Timeout\s*$"
        r"|Timed out initializing process group in store based barrier on rank"
        r"|Waiting in store based barrier to initialize process ?group for "
        r"|ProcessGroupNCCL environments: NCCL version: "
        r"|ERROR:\s+nhc:\s+Health check failed:|^[\w.-]+\s*\|\s*ERROR: No results reported\s*$"
        # IBM Autopilot's failed check (logs._autopilot_failures)
        r"|^\[\[ [A-Z][A-Z0-9 -]*? \]\] (?:FAIL|ABORT)\b"
        r"|(?:Initializing distributed|initializing ddp): GLOBAL_RANK: \d+, MEMBER: \d+/\d+"
        # asys analyze's crash reports (logs._asys_crashes)
        r"|^[ \t]*\[process\][ \t]*\n[ \t]*crash reason:[ \t]*SIG[A-Z0-9]+[ \t]*$"
        r"|^[ \t]*Signal \d+ pid \d+[ \t]*\n[ \t]*\n?[ \t]*PID \d+ TGID \d+ comm \S+"
        # RETURNN's line after Horovod's init (logs._returnn_horovod_notes)
        r"|Horovod initialized\. Hostname [^\s,]{1,253}, pid \d{1,10}, rank \d{1,6} / size \d"
        # JAX's multi-process start, each process's connect (logs._jax_multihost_notes)
        r"|\] Connecting to JAX distributed service on \S"
        # JAX's device lists as print() wrote them, alone on their line (logs._jax_device_notes)
        r"|^[ \t]*\[(?:gpu|cuda|rocm|CudaDevice|RocmDevice)\(id=\d{1,6}\)(?:, [\w]{1,12}\(id=\d{1,6}\)){0,1000}\]"
        r"(?: \[[\w]{1,12}\(id=\d{1,6}\)(?:, [\w]{1,12}\(id=\d{1,6}\)){0,1000}\])?[ \t]*$"
        # DeepSpeed's MPI discovery (logs._ds_mpi_notes)
        r"|Discovered MPI settings of world_rank=\d+, local_rank=\d+, world_size=\d+, master_addr="
        # Ray Train's process group (logs._ray_train_notes)
        r"|Setting up process group for: \S+ \[rank=\d+(?:, world_size=\d+)?\]"
        # accelerate's state print (logs._accelerate_state_notes), its first two lines
        r"|^[^\n]{0,120}?\bDistributed environment: (?:DistributedType\.)?[A-Z][A-Z_]*"
        r"(?:[ \t]+Backend: \w+)?[ \t]*\n[^\n]{0,40}?\bNum processes: \d+[ \t]*$"
        r"|Expected to have finished reduction in the prior iteration before starting a new one"
        # NCCL's RAS report; torch's flight recorder analyzer
        r"|^Job summary\s*\n=+\s*$"
        # (a copy of the report's Errors or Warnings section alone, its first entry under it)
        r"|^(?:Errors|Warnings)\s*\n=+\s*\n\s*\n(?:#\d+-\d+ \([0-9a-f]+\) )?[A-Z][A-Z_,]+\s*$"
        # NVIDIA Resiliency Extension's flight-recorder attribution table (logs._fr_attribution)
        r"|^[ \t]*(?:[A-Z]+:[\w.]+:[ \t]*)?PGID\s*\|\s*Process Group Desc\s*\|\s*Op Type\s*\|\s*Size\s*\|\s*Dtype\s*\|\s*Missing Ranks\s*$"
        r"|^\s*Not all ranks joining collective(?:[,:] sequence number:| \d+ at entry)"
        r"|^Collective \d+ at entry \d+ errors"
        r"|\b(?:RuntimeError|DistStoreError): (?:do)?[Ww]ait timeout after \d+ms, keys: "
        r"|(?:^\s*(?:torch\.distributed\.elastic\.rendezvous\.api\.)?|\"message\": \")"
        r"Rendezvous(?:Closed|Timeout|Connection|State)Error\b"
        r"|\[LinksEstablishCompleted\] is failed|Wait links establish completed failed"
        r"|Failed to check the \"should dump\" flag on TCPStore|Failed to get exception dump flag from"
        r"|connected p2p timeout, timeout:\d+|Wait Enable P2P Failed|Alloc transports failed, tag\["
        r"|errNo\[0x0*5[0-9a-fA-F]{6}\]\s*(?:op_base )?hcclComm [A-Za-z ]+ error"
        r"|(?:client|server) : device\[\d+\] rank\[\d+\] get so(?:ck|kc)et timeout"
        r"|cqe err(?:or)? status\[\d+\]|Process group work \w+, seq_num \d+ dispatch timeout"
        r"|(?::\d+:\d+)? \[\d+\] [^\n]+?:\d+ (?:\(\w+\) )?NCCL WARN |OPS function error: \w+"
        r"|^[ \t]*[\w/.-]+:(?:\d+|X{2,}) NCCL WARN |^\s*NCCL WARN \w|:\d+:\d+ \[\d+\] \S+:\d+ WARN |^\s*WARN (?:src|include)/\S+:\d+ "
        r"|\]\[\d+:\d+\]\[\d+\]\[[^\]\n]+:\d+\] NCCL WARN "
        # (a net plugin's WARN whose place is its function's signature, with NCCL's "host:pid:tid"
        # lost: "[0] tcpxResult_t tcpxCommProgress(tcpxComm*):1231 NCCL WARN ...", GPUDirect-TCPX)
        r"|^[ \t]*(?:\[\d{1,4}\] )?\w{1,60}\*{0,2} \w{1,80}\([^()\n]{0,200}\):\d+ NCCL WARN "
        # (a logger that brackets the place and the process: "[misc/socket.cc:586]
        # [s12gn3064:pid=3942408] NCCL WARN ...")
        r"|\[[\w/.-]+:\d+\] \[[\w.-]+:pid=\d+\] NCCL WARN "
        r"|NCCL operation nccl\w+[^\n]*? failed: |NCCL error\(\d+\), (?:unhandled|internal|invalid|remote)"
        r"|\bHcclGroupEnd: not in a group call|\[FUNC:ReportInnerError\]"
        r"|Container rank \d+ status failed cmd |^\s*LAUNCH (?:INFO|ERROR) [\d-]+ [\d:,]+ Exit code -?\d+"
        r"|successfully reached monitoredBarrier, but|failed to pass monitoredBarrier in \d+ ms"
        r"|srun: error: \S+: tasks? \d+.*: (?:Exited with exit code|Segmentation fault|Killed|Aborted|Bus error|Out Of Memory|Terminated)|NCCL error in:[ \t]*\r?\n\s*\S+?:\d+, |start failed on \S+: CXI alloc failed|The first process to do so was:"
        r"|srun: error: Job allocation \d+ has been revoked"
        r"|srun: error: Node failure on \S+|srun: error: Task launch for StepId=\S+ failed on node "
        r"|(?:ORTE|prterun) was unable to reliably start one or more daemons|node_manager\.cc:\d+: This node has bee[nm] marked as dead"
        r"|\bpyxis: failed to (?:import docker image|create container filesystem)"
        r"|\bNCCL communication aborted: "
        r"|nvshmem\S*?/\w+\.(?:cpp|cu):(?:\w+:)?\d+: |^WARN: init failed for remote transport: \w+"
        r"|^[\w.-]+: rank \d+ (?:exited with code \d+|died from signal \d+)"
        r"|=\s+RANK \d+ PID \d+ RUNNING AT \S+\s*\n=\s+(?:KILLED BY SIGNAL|EXIT CODE): \d+"
        r"|-- Process \d+ terminated with the following error:"
        r"|\bprocess \d+ terminated with (?:signal SIG[A-Z0-9]+|exit code -?\d+)"
        r"|There are not enough slots available in the system to satisfy the \d+"
        # MindIE's model runner when a rank's model failed ("[Model] >>> global rank-2 Execute
        # type:1, Exception:Qwen25VL_VIT_graph nodes[1] infershape  fail")
        r"|\bglobal rank-\d+ Execute type:\d+, Exception:"
        r"|\bfailed to connect, willRetry=\d, retry=\d+, retryLimit=\d+, rank=\d+, size=\d+, "
        r"|\[\[\d+,\d+\],\d+\] FORCE-TERMINATE AT "
        r"|\bsrun: error: Unable to create step for job \d+: "
        # a MindCluster component's ERROR line (logs.HWLOG_ERROR_RE)
        r"|^\[ERROR\][ \t]+\d{4}/\d\d/\d\d \d\d:\d\d:\d\d\.\d+[ \t]+\d+[ \t]+[\w/.-]+\.go:\d+[ \t]+\S"
        r"|A daemon \(pid \d+\) died unexpectedly |mpirun(?:\.real)? noticed that process rank \d+ with PID "
        r"|endpoint not found in cache for a regist|\bAllocate failed due to "
        r"|Test CUDA failure \S+:\d+ '"
        # RCCL's report of a failed HIP call (logs._RCCL_HIP_FAILURE_RE)
        r"|\[FATAL ERROR\]: HIP failure: '"
        r"|has failed to shutdown the rendezvous '[^']*' due to an error of type "
        r"|Worker \S+ pid \d+ died, exit code: -?\d+"
        r"|watchdog thread terminated with exception:|sigkill_handler\][^\n]*(?:\n[^\n]*){0,3}? exits with return code"
        r"|Some [NH]CCL operations have failed or timed out\.|we are taking the entire process down"
        r"|\bthe socversion [\w-]{1,40} of bin package does not match the current device soc"
        r"|\[(?:InitGroupStage|InitChannelStage|TaskExecStage)\]\[[A-Za-z ]+\]"
        r"|in the ranktable is inconsistent with the IP|serverId\[[\d.]+\], deviceId\[\d+\], "
        r"|error CQE occurred during operator execution\. Local information: "
        r"|Memory access fault by GPU node-\d+|^\s*\*\*\* An error occurred in MPI_\w+"
        r"|terminate called after throwing an instance of 'c10::CUDAError'"
        r"|Received (?:\d{1,2}|Signals\.SIG[A-Z0-9]{2,8}) death signal, shutting down workers|pdsh@[\w.-]+: [\w.-]+: ssh exited with exit code \d+"
        r"|\*\*\* (?:STEP|JOB) \S+ ON \S+ CANCELLED AT |Detected \d+ oom.kill events? in StepId="
        # Kubernetes: the training operator's events, a pod's terminated state, LeaderWorkerSet
        r"|Error pod \S+ container \S+ exitCode: -?\d+|\bPod: \S+ exited with code -?\d+"
        r"|^\s*(?:reason|Reason):\s+OOMKilled\s*$|Worker pod \S+ failed, deleted leader pod"
        # a structured logger's JSON records, one a line or pretty-printed (structlog, zap)
        + "|"
        + logs.JSON_RECORD_LEVEL_RE.pattern
        # a collective example's own prints of its ranks' data
        + "|"
        + logs.EXAMPLE_OUTPUT_RE.pattern
        # ATC's result line, AclLite's release of an ACL program's resources
        + "|"
        + logs.ACL_RUN_RE.pattern,
        re.M,
    ),
}


_SIGNATURE_WORDS = {name: required_words(sig) for name, sig in _SIGNATURES.items()}
"""Per signature, words one of which every text it matches holds (``words.required_words``):
a signature runs only on a text that holds one of its words."""
_SIGNATURE_SEARCH = {name: BranchSearch(sig) for name, sig in _SIGNATURES.items()}
"""Per signature, its alternatives each searched only where its own words are (the failure-log
signature has over a hundred: all of them at every position took seconds a megabyte on a long
log that holds none)."""

_CANN_CODE_RE = re.compile(r"E[A-Z0-9]\d{4}\b(?:[:)]|\[PID: \d)")
"""A CANN error code (``EI0006:``, ``(EI0002)``, the device error report's ``EE9999[PID: 43311]``),
the log signature's one alternative without a
word: it starts with a letter, which the engine finds fast, and its word boundary before is
tested on each hit (a look-behind in the pattern makes the engine try every position)."""


def _has_cann_code(text: str) -> bool:
    return any(
        m.start() == 0 or not (text[m.start() - 1].isalnum() or text[m.start() - 1] == "_")
        for m in _CANN_CODE_RE.finditer(text)
    )


# NCCL's debug lines ("host:pid:tid [dev] NCCL INFO ..."): a log of nothing else is read as a
# log with no failure, for the hosts it names. The look-behind starts the host name only at a
# word's start (without it each position inside a word is tried again: seconds on a large log).
_NCCL_DEBUG_RE = re.compile(
    # NCCL 2.0-2.2 printed no "NCCL" before the level
    # a host a paste masked ("<cluster_name>:919:1150 [0] NCCL INFO ...") too
    r"(?<![\w.-])(?:[\w.-]+|<[\w .-]+>) ?:\d+:\d+ \[\d+\] (?:NCCL (?:INFO|WARN)|INFO|(?:\S+:\d+ )?WARN) "
)
_NCCL_DEBUG_WORDS = required_words(_NCCL_DEBUG_RE)
# a results table under another tool's header: AWS Neuron's nccom-test prints "size(B)
# count(elems)  type  time(us)  algbw(GB/s)  busbw(GB/s)", rows nccl-tests' row signature matches
_FOREIGN_TABLE_RE = re.compile(r"^[ \t]*size\(B\)[ \t]+count\(elems\)", re.M)
# a GPU matrix of another tool: ROCm's rocm-smi --showtopo prints "=== Weight between two GPUs
# ===", "Hops between two GPUs" and "Link Type between two GPUs" above matrices whose "GPU0 GPU1"
# header and rows nvidia-smi topo's signature matches (weights and hop counts, not link kinds)
_FOREIGN_TOPO_RE = re.compile(r"(?:Weight|Hops|Link Type) between two GPUs")
# `nvidia-smi topo -p2p <r|w|n|a|p>`: a matrix of peer-to-peer statuses (OK, CNS, GNS, TNS, NS,
# U: its legend), not `topo -m`'s links; a GPU row of only those words is one of its rows
_P2P_ROW_RE = re.compile(nvidia_smi.P2P_ROW_PATTERN, re.M)
_LINK_ROW_RE = re.compile(r"^[ \t]*GPU\d+[ \t].*\b(?:NV\d+|PIX|PXB|PHB|NODE|SYS)\b", re.M)


def _other_gpu_matrix(text: str) -> tuple[int, str] | None:
    """Where a GPU matrix that looks like ``nvidia-smi topo -m``'s but is another tool's starts,
    and what it is; None when there is none."""
    if foreign := _FOREIGN_TOPO_RE.search(text):
        return foreign.start(), "rocm-smi --showtopo matrices (weights, hops and link types)"
    if (p2p := _P2P_ROW_RE.search(text)) and not _LINK_ROW_RE.search(text):
        return p2p.start(), "an nvidia-smi topo -p2p status matrix (whether each pair can use P2P)"
    return None


def _shared_worker_prefix(text: str) -> str | None:
    """The worker tag (``WORKER_PREFIX_RE``, "(name, pid=N)") nearly every line of ``text``
    starts with, the same on each; None where lines carry none or several."""
    lines = [line.lstrip() for line in text.splitlines()[: TAG_LOOK_LINES * 4] if line.strip()]
    tags = [m.group(0) for line in lines if (m := WORKER_PREFIX_RE.match(line))]
    if not tags or len(tags) * 10 < len(lines) * 8 or len(set(tags)) != 1:
        return None
    return tags[0]


TAG_LOOK_LINES = 50
"""How many of a file's first lines are looked at for a launcher's tag."""


def _tagged(text: str) -> bool:
    """Whether most of the first lines carry a launcher's rank tag."""
    head = [
        line for line in text[: TAG_LOOK_LINES * 400].splitlines()[:TAG_LOOK_LINES] if line.strip()
    ]
    tagged = sum(1 for line in head if strip_launcher_prefix(line)[0] != line)
    return bool(head) and tagged * 2 >= len(head)


@dataclass(kw_only=True)
class Message:
    line: int
    """1-based line in the file; 0 when the message is about the whole file."""
    message: str


@dataclass(kw_only=True)
class FileReport:
    path: str
    status: str
    """One of FILE_STATUSES."""
    formats: list[str] = field(default_factory=list)
    """Formats read from this file."""
    messages: list[Message] = field(default_factory=list)


@dataclass(kw_only=True)
class EvidenceFacts:
    """``Facts.evidence``: everything imported, by kind; each item names its ``source`` file.

    Bandwidth is Gbit/s (the tools print GB/s); benchmark rows have the live ``bench.results``
    shape so the same rules and charts read both.
    """

    files: list[FileReport] = field(default_factory=list)
    benchmarks: list[dict[str, Any]] = field(default_factory=list)
    """``{source, tool, op, ranks, hosts, dtype, algorithm, complete, time_stat, avg_busbw_gbps,
    footer_avg_busbw_gbps, peak_busbw_gbps, wrong_total, failed_checks, results: [{op, dtype,
    algorithm, in_place, bytes, count, time_us_p50, algbw_gbps, busbw_gbps, wrong}],
    npus_per_node, min_bytes, max_bytes, sizes_asked, progress}`` (``dtype``: torch's name, as the
    live benchmark's: nccl-tests' ``float``/``half``/``double`` are ``float32``/``float16``/
    ``float64``; every ``*_gbps`` is Gbit/s, the live benchmark's unit: nccl-tests' GB/s
    columns times 8; ``peak_busbw_gbps``: the highest out-of-place row's, as the live benchmark
    reports (the in-place rows' where a table has no out-of-place figure); ``npus_per_node``: hccl_test's
    ``-p``, None when the log has no command; ``min_bytes``/``max_bytes``/``sizes_asked``: what
    nccl-tests' ``# nThread`` header asked, None without it; ``progress``: sizes done against
    sizes asked, in words; ``op_from``: where the op was read: ``log`` (the binary it names),
    ``file name`` (``all_reduce_perf.log``), ``columns`` (nccl-tests' redop, root, size against
    count and in-place check cells, ``parsers.nccl_tests.op_from_columns``) or ``none``;
    ``solo_hosts``: nccl-tests processes that each ran the test alone (their own header and
    ``Rank 0``: the binary was built without MPI), empty otherwise; ``shared_gpus``: GPUs two or
    more ranks of one nccl-tests device list stand on (one host and bus id:
    ``parsers.nccl_tests._shared_gpus``), empty otherwise;
    ``hosts_complete``: ``hosts`` are every rank's, so ranks over hosts is the cluster's shape;
    ``busbw_drops``: sizes whose busbw fell under half of what a smaller size reached,
    ``busbw_drops()``; ``checks_left_out``: the copy left out its check columns, so no size's
    data check is known; ``gpu_models``: nccl-tests' ``# Rank N ... device D [bus] MODEL``
    lines counted by model, ``nccl_version``: NCCL's own ``NCCL version`` INFO line in the log,
    None without one; ``rerun_best``: where the same file holds another run of the same op,
    ranks and sizes whose average is at least ``RERUN_SLOWER_RATIO`` times this one's, that
    run's ``{avg_busbw_gbps, line}``; absent otherwise)."""
    npu_chips: list[dict[str, Any]] = field(default_factory=list)
    """``npu-smi info`` chips: ``{source, npu, chip, name, health, bus_id, phy_id, device,
    power_w, temp_c, aicore_pct, npu_util_pct (npu-smi 25.7), memory_used_mb, memory_total_mb, hbm_used_mb, hbm_total_mb,
    hbm_used_pct, memory_used_pct (a 310P's: its Memory-Usage is its device memory, no HBM),
    hugepages_used, hugepages_total (pages), processes (the process table's rows of the chip, as
    text),
    error_codes, error_info, query}``; an ``npu-smi info -t health`` answer is a chip too
    (``query`` 'health', its alarm codes and texts; the figures None, ``npu`` None when neither
    its command nor the answer names it)."""
    npu_process_chips: list[dict[str, Any]] = field(default_factory=list)
    """Chips that ``npu-smi info``'s process table lists processes on while the chip's own rows
    are not in the copy (the process table pasted alone, or chip rows left out with '...'):
    ``{source, line (its first process row), npu, chip, processes (as ``npu_chips``'), memory_mb
    (the rows' sum; None when no row prints one), small_hold (every row prints its memory and
    together they hold under NPU_PROCESS_SMALL_MB: not judged to hold the chip)}``. Their health,
    HBM size and AI cores are unknown."""
    topologies: list[dict[str, Any]] = field(default_factory=list)
    """``{source, tool: npu-smi|nvidia-smi, devices (every row of the matrix: GPUs or NPUs and
    NIC rows), links: {a: {b: kind}}, cpu_affinity,
    kinds: [link kinds seen], sys_pairs: [[a, b]] (pairs joined only through SYS), hccs (npu-smi:
    some pair is joined by HCCS), sys_by_design (npu-smi: its SYS pairs are the board's design,
    ``_sys_by_design``), rows_missing (npu-smi: the header's NPUs with no row in the copy),
    no_hccs_npus (npu-smi: ``{npu, line, peers}`` of each row whose every link is SYS, none where
    the legend says the board has no HCCS, ``_no_hccs_npus``), pcie_only (nvidia-smi: the matrix
    is ``topo -mp``'s, which never shows
    NVLink, ``_pcie_only``), numa_affinity,
    gpu_numa_id, nics: {NIC0: mlx5_0}, warnings: [{line, message}]}`` (the last four from
    nvidia-smi only; empty for npu-smi)."""
    npu_ports: list[dict[str, Any]] = field(default_factory=list)
    """hccn_tool outputs per NPU port: ``{source, line, device, link, net_health, ipaddr,
    netmask, ip_preset, ipv6addr, ipv6_prefix (``-ip -inet6 -g``), tls_enabled, tls_certs, tls_alarms, link_up_count, link_down_count,
    link_changes, link_flapped, ping_loss_pct, ping_target, optical, optical_alarms, stat,
    stat_errors, routes, arp, pfc_priorities, lldp, roce_test, gateway}`` (None: not in the file;
    ``optical_alarms``: what ``-optical -g`` shows wrong by the module's own thresholds and flags;
    ``gateway``: ``-gateway -g``'s default gateway; ``lldp``: the switch the port
    is plugged into, ``roce_test``: a bandwidth test from the port; ``ip_preset`` False: ``-ip -g`` said no address was preset on
    the port; ``tls_certs``: ``-tls -g``'s certificate blocks ``{name, end_time, status,
    status_text}``, ``tls_alarms`` those near expiration or expired; ``link_changes``:
    ``-link_stat -g``'s records ``{time, state}``, newest first; ``link_flapped``: the link
    dropped since the driver started; ``link_down_since``: the newest record's time where it is
    a LINK DOWN (``link`` DOWN then, unless ``-link -g`` answered); ``link_down_line``: the newest
    DOWN record's line; ``stat_errors``: the ``-stat -g`` error counters that are not 0
    (``stat_error_lines``: their lines); ``arp``: ``-arp -g``'s neighbours ``{address, mac, iface}``, ``mac`` None for an
    ``<incomplete>`` one; Ascend 950's per-port queries: ``die_port`` (``UDie 0 port 4``),
    ``fec_uncorrected_frames`` and ``pre_fec_error_bits`` (``-bit_err``), ``su_ber_lanes`` and
    ``su_ber_alarms`` (``-su_ber -result``), ``link_down_records``, ``link_down_snapshots`` and
    ``link_down_snr_zero`` (``-down_data``))."""
    p2p: list[dict[str, Any]] = field(default_factory=list)
    """``nvidia-smi topo -p2p`` matrices: ``{source, line, query, devices, status: {a: {b:
    code}}, not_ok: [[a, b, code]]}`` (the fields of ``parsers.nvidia_smi.P2pMatrix``)."""
    hca_ports: list[dict[str, Any]] = field(default_factory=list)
    """RDMA NIC ports from ``ibstat`` / ``ibv_devinfo`` / ``ibdev2netdev``: ``{source, line, tool,
    ca, port, state, active, physical_state, rate_gbps, link_layer, ca_type, firmware, active_mtu,
    netdev, netdev_up, peer, could_be, trouble, trouble_line, switch, guid_zero, sm_lid, lane_gbps, fastest_lane_gbps, peer_lanes}`` (the fields of
    ``parsers.rdma.HcaPort``; ``active``: the state carries
    traffic, None where the output gives no port state; ``gpu_rail``: the GPUs whose own NIC the
    same copy's ``nvidia-smi topo -m`` shows this port's device to be, where it is not active,
    ``_mark_gpu_rail_down``; absent otherwise)."""
    hccn_conf: list[dict[str, Any]] = field(default_factory=list)
    """``{source, device, address, netmask, settings}`` per device of /etc/hccn.conf."""
    dcgm_diags: list[dict[str, Any]] = field(default_factory=list)
    """``dcgmi diag`` tables: ``{source, line, dcgm_version, driver, gpu_ids, repeats, level, cut,
    checks: [{section, name, result, gpus, line, details, summary}], failed, warned, hardware_run,
    hardware_skipped, precondition_failed, test_errors}`` (``level``: the command's -r, where the
    file holds it; ``cut``: ``{line, after, missing}`` where the copy ends at a section row with
    nothing under it, ``missing`` the test sections whose results it lost; ``failed`` / ``warned``: the checks
    after Deployment whose result is Fail, and every Warn; ``precondition_failed``: Deployment's
    Fails; ``test_errors``: Fails whose every GPU row passed, the test's own run failing;
    ``hardware_run``: a check after Deployment ran, not skipped; ``hardware_skipped``: the names
    of the checks after Deployment DCGM skipped)."""
    nvlinks: list[dict[str, Any]] = field(default_factory=list)
    """``nvidia-smi nvlink -s`` / ``-e`` per GPU: ``{source, line, gpu, name, links: {link: GB/s
    or None}, inactive: [links nvidia-smi calls inactive], active: count, none_up (NVML: all
    links inactive), fewer_than_peers (more links inactive than the other GPUs of its model in
    the output), alone (no other GPU of its model in the output to judge it by), cut (it lists
    fewer links than its model's other GPUs: the copy lost the rest), errors: {link: {counter:
    value}}, error_total, replay_total (its Replay and Recovery Errors: DCGM's NVLink health
    watch fails a GPU on these)}``."""
    nvlink_states: list[dict[str, Any]] = field(default_factory=list)
    """``dcgmi nvlink --link-status`` per GPU or NvSwitch: ``{source, line, tool, entity (gpu or
    nvswitch), id, states (one of U, D, X, _ a link slot), up, down, disabled (link numbers),
    supported (slots not '_'), all_down (every supported link down)}``."""
    gpu_copy: list[dict[str, Any]] = field(default_factory=list)
    """Copy benchmarks between host and GPUs and between GPUs, one a file: ``{source, line, tool
    (nvbandwidth, p2pBandwidthLatencyTest, bandwidthTest, busGrind, simpleP2P or deviceQuery), version, driver, cuda_runtime, devices: [{index,
    name, bus_id}] (a multi-node nvbandwidth's also process, host, line), matrices: [{line,
    test, title, unit, columns, rows: {row: {column: figure or None}}, sum}], failed: [{line,
    test, message, offset}], waived, running, p2p_slower: [{a, b, line, disabled_line, matrix,
    enabled_gbytes_s, disabled_gbytes_s, ratio}], peer_access: {gpu: {peer: bool}}, no_peer_access,
    peer_access_line, complete}``
    (figures as printed: GB/s, or ns / us for latency; ``failed``: tests that stopped instead of
    printing their matrix; ``running``: the test the copy ends in; ``p2p_slower``:
    p2pBandwidthLatencyTest pairs whose P2P=Enabled bandwidth is under ``P2P_SLOWER_RATIO`` of
    their P2P=Disabled one; ``peer_access``: its "CAN / CANNOT Access Peer" lines;
    ``no_peer_access``: two GPUs or more and every one of those lines CANNOT;
    ``peer_access_line``: the first of those lines (None: the output has none);
    ``pair_copy_slow``: p2pBandwidthLatencyTest pairs whose best unidirectional copy is under
    what four PCIe lanes of their generation carry, ``[{a, b, gbytes_s, line, generation,
    x4_gbytes_s}]``; ``host_copy_slow``: bandwidthTest's pinned host copies under
    ``HOST_COPY_SLOW_GBYTES_S``,
    ``[{line, kind, gbytes_s}]``; ``host_copy_below_peers``: busGrind's GPUs whose host copy in a
    direction is far under the other GPUs' median, ``[{line, direction, gpu, gbytes_s,
    median_gbytes_s}]``)."""
    gpus: list[dict[str, Any]] = field(default_factory=list)
    """``nvidia-smi``'s status table per GPU: ``{source, line, driver, cuda, gpu, name, bus_id,
    persistence, ecc_uncorrected, fan_pct, temp_c, perf, power_w, power_cap_w, memory_used_mib,
    memory_total_mib, util_pct, compute_mode, mig_mode, unreadable, query, ecc_corrected,
    remap_pending, remap_failed, retire_pending, retired_pages, throttled, sections}``
    (``unreadable``: the fields printed ``ERR!``, ``sensors_only`` where all of them are a board
    sensor's; ``query`` 'q' for ``nvidia-smi -q``'s health
    sections, whose fields are the last seven; the fields of ``parsers.nvidia_smi.SmiGpu``;
    ``has_process``, where the status table's process table (or ``-q``'s Processes section)
    lists processes: whether it lists one on this GPU; then also ``processes``, its rows on this GPU as text, and
    ``held_by_process``: a compute process listed there and at least ``HELD_PCT`` % of the
    memory used)."""
    mig_gpus: list[dict[str, Any]] = field(default_factory=list)
    """``nvidia-smi -L``'s GPUs listed with MIG devices under them: ``{source, line, gpu, name,
    mig}`` (``mig``: each MIG device's profile, "3g.40gb", in the order listed); the status
    table's and ``--query-gpu``'s GPUs in MIG mode are ``gpus`` whose ``mig_mode`` is
    Enabled."""
    rank_tables: list[dict[str, Any]] = field(default_factory=list)
    """``{source, version, status, server_count, servers, ranks: [{rank, server_id, device_id,
    device_ip, super_device_id}], super_pods, errors, groups, wrapper, form, elided_lines,
    placeholders}`` (the fields of ``parsers.rank_table.RankTable``; ``placeholders``: the server
    ids and device addresses a template left masked or as placeholders, each once)."""
    timelines: list[FailureTimeline] = field(default_factory=list)
    """Failure logs of several ranks put on one clock, per folder (one job's logs sit together):
    the first rank to fail, the ones that failed only because of it, the spread of the errors
    against the time-out the ranks waited under."""
    flight: list[FlightFacts] = field(default_factory=list)
    """Flight-recorder dumps (torch's nccl and gloo formats, torch_npu's hccl one), one analysis
    per folder of per-rank dumps."""
    failures: list[dict[str, Any]] = field(default_factory=list)
    """Failure-log events: ``source`` and the fields of ``parsers.logs.LogEvent`` (``{line, kind,
    message, code, code_name, rank, host, device, op, seq, numel, timeout_ms, ran_for_ms,
    last_enqueued, last_completed, remote_rank, group, rank_size, port, ip, local_rank, exit_code,
    pid, root_cause, library, time_s, remote_ip, culprit_ip, culprit_device, discoverer_ip,
    discoverer_device, call, torch_npu_code, missing_ranks, exception_type}``)."""
    hosts: list[dict[str, Any]] = field(default_factory=list)
    """Where the files came from: ``{host, named, files}``, one per host a file's content names
    (``named``: true; a file naming several is under each), and one per folder of files that
    name none (``host`` is the folder, ``named``: false). Several entries and no cluster shape
    mean unrelated hosts, shown one by one, never joined into a cluster."""
    log_hosts: list[dict[str, Any]] = field(default_factory=list)
    """``{source, host}`` for each host a log's NCCL debug prefixes name (a log of NCCL_DEBUG=INFO
    lines with no failure is read for them), or a multi-node nvbandwidth's processes."""
    packages: list[dict[str, Any]] = field(default_factory=list)
    """Ascend packages' ``version.info``: ``{source, line, package (driver, firmware, cann, cann
    runtime, opp or another package's name), version, inner_version, compatible_fw,
    compatible_drv, running, release}`` (the fields of ``parsers.ascend_versions.Package``)."""
    package_mismatches: list[dict[str, Any]] = field(default_factory=list)
    """``{sources, said}`` for each driver and firmware of the import that one side's
    compatible ranges leave out (``ascend_versions.mismatches``)."""
    package_stack: list[dict[str, Any]] = field(default_factory=list)
    """``{sources, said}`` for each part of one host's software stack another leaves out: a
    CANN package the driver's ``compatible_version`` does not name, a torch-npu built for
    another PyTorch release than the torch beside it (``ascend_versions.stack_mismatches``)."""
    package_conflicts: list[dict[str, Any]] = field(default_factory=list)
    """``{sources, said}`` for each place one host's copy of CANN contradicts itself: its
    ``latest`` links into another release than its version.cfg runs, or into several
    (``ascend_versions.inventory_conflicts``)."""
    shapes: list[dict[str, Any]] = field(default_factory=list)
    """Every cluster shape a file states: ``{source, tool, nodes, per_node, world_size, hosts}``
    (a rank table's servers, a benchmark's ranks over its hosts or ``-p`` NPUs per node, a
    multi-node nvbandwidth's processes over their hosts)."""

    @property
    def read_count(self) -> int:
        return sum(1 for f in self.files if f.status in ("read", "partial"))

    def extend(self, other: EvidenceFacts) -> None:
        for name in (
            "files",
            "benchmarks",
            "npu_chips",
            "npu_process_chips",
            "topologies",
            "npu_ports",
            "hccn_conf",
            "hca_ports",
            "dcgm_diags",
            "p2p",
            "nvlinks",
            "nvlink_states",
            "gpu_copy",
            "gpus",
            "mig_gpus",
            "rank_tables",
            "flight",
            "timelines",
            "failures",
            "hosts",
            "log_hosts",
            "packages",
            "package_mismatches",
            "package_stack",
            "package_conflicts",
            "shapes",
        ):
            getattr(self, name).extend(getattr(other, name))


def _add_failure(out: EvidenceFacts, source: str, event: logs.LogEvent) -> None:
    """One event read from ``source`` into ``out.failures`` (the plain form rules and report read)."""
    out.failures.append({"source": source, **to_plain(event)})


def detect(text: str) -> list[str]:
    """Formats whose signature appears anywhere in ``text``, in a fixed order. A rank table is
    JSON, whose signature holds from the first character: one that follows other text (a log
    that printed it) is found as the first JSON object starting a line that holds one."""
    return [
        name
        for name, sig in _SIGNATURES.items()
        # (glog's FATAL line has no word to look for first: its own test, as a CANN code's)
        if (name == "log" and (_has_cann_code(text) or logs.GLOG_FATAL_RE.search(text)))
        or _SIGNATURE_SEARCH[name].found(text)
        or (name == "rank_table" and embedded_rank_table(text) is not None)
    ]


_LLDP_TOOL_RE = re.compile(r"\blldp(?:tool|ctl|cli)\b")
_LINE_OPENS_OBJECT = re.compile(r"^[ \t]*\{", re.M)


def embedded_rank_table(text: str) -> tuple[str, int] | None:
    """The first whole JSON object that starts a line after other text and is a rank table by
    its signature, with the number of lines before it; None when there is none."""
    decoder = json.JSONDecoder()
    unclosed: re.Match[str] | None = None
    first = len(text) - len(text.lstrip())  # the first character that is not white space
    read_to = 0  # the end of the last whole object read: the objects inside it are no others
    for m in _LINE_OPENS_OBJECT.finditer(text):
        if m.start() <= first:
            continue  # at the top: the whole text is the table (or not one)
        if m.start() < read_to:
            continue  # inside an object read whole and found no table
        try:
            end = _decoded_end(decoder, text, m.end() - 1)
        except (ValueError, RecursionError):  # (not JSON, or nested past the reader's depth)
            unclosed = unclosed or m
            continue
        part = text[m.end() - 1 : end]
        read_to = end
        if may_match(_SIGNATURE_WORDS["rank_table"], part) and _SIGNATURES["rank_table"].search(
            part
        ):
            if unclosed is not None and _inside_table_list(text[unclosed.end() - 1 : m.start()]):
                # an object inside a table's list that the copy cut (a group of a global
                # table's server_group_list): the cut table is the table, not its group
                break
            return part, text.count("\n", 0, m.start())
    if unclosed is not None:
        # the first object that is not strict JSON (cut with the log, typed by hand): the rest
        # of the text, for the rank table parser's lenient reading, when it names a table's
        # lists near its start (one bounded look: a long log may open many objects)
        rest = text[unclosed.end() - 1 :]
        if _SIGNATURES["rank_table"].search(rest[:EMBEDDED_TABLE_LOOK_CHARS]):
            return rest, text.count("\n", 0, unclosed.start())
    return None


DECODE_WINDOW_CHARS = 4096
"""How much of the text after a line's "{" is first given to the JSON reader, doubled while the
object may run past it: a log line that only looks like an object (a Python dict's repr) fails
within it."""
# (the longest JSON token but a string, "-Infinity": an error this near the window's end may be
# the window's cut, not the text's)
_TOKEN_CHARS = 16


def _decoded_end(decoder: json.JSONDecoder, text: str, at: int) -> int:
    """Where the JSON object at ``at`` of ``text`` ends; ValueError where it is not one. Read in a
    window that grows, not against the whole text: the reader's error counts the lines before
    its position (json.JSONDecodeError's lineno), which at each of a long log's dict lines
    (Hugging Face's Trainer writes one a logging step) made finding a table quadratic."""
    size = DECODE_WINDOW_CHARS
    while True:
        piece = text[at : at + size]
        try:
            return at + decoder.raw_decode(piece)[1]
        except json.JSONDecodeError as e:
            # (a string the window cut reads as unterminated from its start; any other cut fails
            # at the window's end)
            cut = e.msg.startswith("Unterminated string") or e.pos >= len(piece) - _TOKEN_CHARS
            if at + size >= len(text) or not cut:
                raise
        size *= 2


_TABLE_LIST_RE = re.compile(
    r'"(?:server_list|server_group_list|group_list|rank_list|prefill_device_list|'
    r'decode_device_list)"\s*:\s*\[\s*$'
)


def _inside_table_list(before: str) -> bool:
    """Whether an object that starts right after ``before`` (the text from an earlier object
    that never closes) sits in one of a rank table's lists: the earlier object names the list
    and it is still open there. Looked at within EMBEDDED_TABLE_LOOK_CHARS only."""
    if len(before) > EMBEDDED_TABLE_LOOK_CHARS:
        return False
    opened = rank_table.open_brackets(before)
    if not opened or opened[-1][1] != "[":
        return False  # the object does not start inside a list of the earlier one
    # the list it starts in names a rank table's list
    return bool(_TABLE_LIST_RE.search(before[: opened[-1][0] + 1]))


EMBEDDED_TABLE_LOOK_CHARS = 65536
"""How far into an object that does not parse its rank-table lists are looked for."""


def expand(paths: Sequence[str | Path]) -> list[Path]:
    """Files named by ``paths``: files as given, directories walked (sorted, hidden skipped)."""
    out: list[Path] = []
    for raw in paths:
        p = Path(raw).expanduser()
        if p.is_dir():
            # a link that loops is listed too: its file report names the loop
            out += sorted(
                f
                for f in p.rglob("*")
                if (f.is_file() or (f.is_symlink() and symlink_loop(f)))
                and not any(part.startswith(".") for part in f.relative_to(p).parts)
            )
        elif p.is_file():
            out.append(p)
        else:
            raise ConfigError(missing_path(p, "evidence path", "give files or directories."))
    return out


def load_paths(paths: Sequence[str | Path]) -> EvidenceFacts:
    """Read every file under ``paths``; ConfigError only when a path does not exist.

    Flight-recorder dumps (one file per rank) are read as they come and compared per folder:
    the ranks of one job write theirs side by side."""
    facts = EvidenceFacts()
    dumps: dict[Path, list[Dump]] = {}
    for path in expand(paths):
        if path.parent.name == RANKS_SUBDIR and path.suffix == ".json":
            continue  # the advisor's side notes of its own dumps, read with them
        dump = _flight_dump(path, facts)
        if dump is not None:
            dumps.setdefault(path.parent, []).append(dump)
            continue
        facts.extend(load_file(path))
    by_folder: dict[str, list[dict[str, Any]]] = {}
    for event in facts.failures:
        by_folder.setdefault(str(Path(event["source"]).parent), []).append(event)
    for events in by_folder.values():
        timeline = build_timeline(events)
        if timeline is not None:
            facts.timelines.append(timeline)
    for folder, found in dumps.items():
        by_rank = {d.rank: d for d in found}
        facts.flight.append(
            examine(
                [by_rank[r] for r in sorted(by_rank)],
                source=str(folder),
                world=sorted(by_rank),
                dump_dir=str(folder),
            )
        )
    facts.hosts = hosts_of(facts)
    facts.shapes = shapes_of(facts)
    facts.package_mismatches = package_mismatches(facts.packages)
    facts.package_stack = package_mismatches(facts.packages, ascend_versions.stack_mismatches)
    facts.package_conflicts = package_conflicts(facts.packages)
    _conf_against_ports(facts)
    _perftest_at_port_rate(facts.hca_ports)
    return facts


def _perftest_at_port_rate(hca_ports: list[dict[str, Any]]) -> None:
    """Each perftest run's ``at_line_rate_gbps``: its port's rate where an ``ibstat`` /
    ``ibv_devinfo`` of the same file or folder gives that device's port one rate (the same host,
    where both name one) and the run's average bandwidth fills it (``rdma.line_rate_reached``).
    perftest prints no port rate, so a run with no such listing beside it gets none."""
    rated: dict[tuple[str, str, int], list[dict[str, Any]]] = {}
    for p in hca_ports:
        if not p.get("perftest") and p.get("rate_gbps"):
            rated.setdefault((str(Path(p["source"]).parent), p["ca"], p["port"]), []).append(p)
    for p in hca_ports:
        run = p.get("perftest")
        if not run or run["bw_average_gbps"] is None:
            continue
        host = p.get("host")
        rates = {
            q["rate_gbps"]
            for q in rated.get((str(Path(p["source"]).parent), p["ca"], p["port"]), [])
            if not host or not q.get("host") or q["host"] == host
        }
        # (one rate alone: two hosts' listings of the same device name, at two rates, say
        # nothing of which this run's is)
        if len(rates) == 1 and rdma.line_rate_reached(
            run["bw_average_gbps"], (rate := rates.pop()), run["test"]
        ):
            run["at_line_rate_gbps"] = rate


def _conf_against_ports(facts: EvidenceFacts) -> None:
    """Each NPU port whose address (``hccn_tool -i N -ip -g``) is not the ``address_N`` an
    hccn.conf of the same file or folder sets: ``conf_address`` and ``conf_source`` on the
    port (hccn_tool -ip -s is how the address is set, hccn.conf the file that holds it: the two
    disagreeing is a port set by hand since, or a conf copied from another node)."""
    confs: dict[tuple[str, int], dict[str, Any]] = {}
    # (a folder's conf stands for the folder's ports only where it holds one conf: a folder of
    # several nodes' confs says nothing of which is whose)
    per_folder = Counter(
        str(Path(source).parent) for source in {c["source"] for c in facts.hccn_conf}
    )
    for conf in facts.hccn_conf:
        if conf["address"]:
            folder = str(Path(conf["source"]).parent)
            if per_folder[folder] == 1:
                confs.setdefault((folder, conf["device"]), conf)
            confs.setdefault((conf["source"], conf["device"]), conf)
    for port in facts.npu_ports:
        if port.get("ipaddr") is None or port.get("device") is None:
            continue
        beside = confs.get((port["source"], port["device"])) or confs.get(
            (str(Path(port["source"]).parent), port["device"])
        )
        if beside is not None and beside["address"] != port["ipaddr"]:
            port["conf_address"], port["conf_source"] = beside["address"], beside["source"]


def package_mismatches(
    packages: list[dict[str, Any]],
    check: Callable[[list[ascend_versions.Package]], list[str]] = ascend_versions.mismatches,
) -> list[dict[str, Any]]:
    """Drivers and firmware whose version.info ranges leave each other out (or what another
    ``check`` says of the packages), compared within one folder and host (one host's collection: the driver's and the firmware's files may be two
    files of it; files of other folders, or under another host's prompt, may be other hosts')."""
    by_folder: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for p in packages:
        # (and by the host a prompt above the file names: one collection of several hosts)
        by_folder.setdefault((str(Path(p["source"]).parent), p.get("host") or ""), []).append(p)
    found: list[dict[str, Any]] = []
    for group in by_folder.values():
        read = [
            ascend_versions.Package(**{k: v for k, v in p.items() if k != "source"}) for p in group
        ]
        sources = sorted({p["source"] for p in group})
        found += [{"sources": sources, "said": said} for said in check(read)]
    return found


def package_conflicts(packages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Where CANN's files of one folder and host contradict each other
    (``ascend_versions.inventory_conflicts``); a file's block under no prompt naming a host is
    compared with each host's of its folder (one person's copy: "# cat version.cfg" above
    "[root@node1 /]# ll latest/")."""
    by_folder: dict[str, list[dict[str, Any]]] = {}
    for p in packages:
        by_folder.setdefault(str(Path(p["source"]).parent), []).append(p)
    found: dict[str, list[str]] = {}
    for group in by_folder.values():
        hosts = sorted({p["host"] for p in group if p.get("host")}) or [None]
        for host in hosts:
            mine = [p for p in group if p.get("host") in (host, None)]
            read = [
                ascend_versions.Package(**{k: v for k, v in p.items() if k != "source"})
                for p in mine
            ]
            for said in ascend_versions.inventory_conflicts(read):
                found.setdefault(said, sorted({p["source"] for p in mine}))
    return [{"sources": sources, "said": said} for said, sources in found.items()]


_IPV4_HOST_RE = re.compile(r"^\d+\.\d+\.\d+\.\d+$")


def hosts_of(evidence: EvidenceFacts) -> list[dict[str, Any]]:
    """Each host the files' content names, with its files; files naming none, by folder."""
    named: dict[str, set[str]] = {}
    for b in evidence.benchmarks:
        for host in b["hosts"]:
            named.setdefault(host, set()).add(b["source"])
    for e in evidence.failures:
        # torch elastic's summary names the host its ranks ran on; an HCCL error's host is the
        # peer it names (EI0015: "check whether node X reports an error"), not the file's
        if e["kind"] == "elastic_failure" and e.get("host"):
            named.setdefault(e["host"], set()).add(e["source"])
    for h in evidence.log_hosts:
        named.setdefault(h["host"], set()).add(h["source"])
    for p in evidence.hca_ports:
        # (the host a shell prompt above an RDMA tool's listing names: "user@node1:~$ ibstat")
        if p.get("host"):
            named.setdefault(p["host"], set()).add(p["source"])
    for f in evidence.flight:
        for c in f.culprits:
            if c.host:
                named.setdefault(c.host, set()).add(f.source)
    # (one machine by its short name and its full one: NCCL's "vae-bc5a469e-2296-0" and torch
    # elastic's "vae-bc5a469e-2296-0.internal.cloudapp.net")
    for full in [h for h in named if "." in h and not _IPV4_HOST_RE.match(h)]:
        short = full.split(".", 1)[0]
        if short in named and full in named:
            named[short] |= named.pop(full)
    with_host = set().union(*named.values()) if named else set()
    folders: dict[str, list[str]] = {}
    for report in evidence.files:
        folder = str(Path(report.path).parent)
        # a dump is under the hosts its folder's analysis names
        if report.path in with_host or folder in with_host:
            continue
        if report.status in ("read", "partial"):
            folders.setdefault(folder, []).append(report.path)
    out = [{"host": h, "named": True, "files": sorted(named[h])} for h in sorted(named)]
    out += [{"host": d, "named": False, "files": folders[d]} for d in sorted(folders)]
    return out


SHAPE_HOSTS_SHOWN = 3
"""How many of a shape's hosts the shape note names (a 64-host run's note stays one line)."""


def shape_note(evidence: EvidenceFacts, cluster: ClusterFacts) -> str:
    """One line on the cluster's shape: where it comes from, or why there is none."""
    if cluster.shape_source:
        return (
            f"cluster shape {cluster.nodes} node(s) x {cluster.devices_per_node} from "
            f"{cluster.shape_source}"
        )
    sources = [s["source"] for s in evidence.shapes]

    def said_by(shape: dict[str, Any]) -> str:
        # one file may state two shapes (solo runs on two hosts): its hosts tell them apart
        hosts: list[str] = shape["hosts"]
        if sources.count(shape["source"]) < 2 or not hosts:
            return str(shape["source"])
        shown = ", ".join(hosts[:SHAPE_HOSTS_SHOWN])
        more = (
            f" and {len(hosts) - SHAPE_HOSTS_SHOWN} more" if len(hosts) > SHAPE_HOSTS_SHOWN else ""
        )
        return f"{shape['source']} ({shown}{more})"

    # (two runs of one file on the same hosts state one shape: said once)
    stated = "; ".join(
        dict.fromkeys(
            f"{said_by(s)}: {s['nodes']} node(s) x {s['per_node']}" for s in evidence.shapes
        )
    )
    why = f"the files disagree ({stated})" if stated else "no cluster shape in the evidence"
    hosts = len(evidence.hosts)
    where = f"files from {hosts} hosts or folders, each shown on its own; " if hosts > 1 else ""
    return f"{where}{why}: no launch.sh is written"


def shapes_of(evidence: EvidenceFacts) -> list[dict[str, Any]]:
    """The cluster shapes the files state; a count that does not divide evenly states none."""
    out = []

    def add(source: str, tool: str, nodes: int, world: int, hosts: list[str]) -> None:
        if nodes > 0 and world > 0 and world % nodes == 0:
            out.append(
                {
                    "source": source,
                    "tool": tool,
                    "nodes": nodes,
                    "per_node": world // nodes,
                    "world_size": world,
                    "hosts": hosts,
                }
            )

    for t in evidence.rank_tables:
        # a table with entries left out ("..." lines, or cut) lists only some of its ranks
        # (a table whose only fault is its comments, errors[0], states its shape all the same:
        # it was read with them set aside and every other check made)
        errors = t["errors"][1:] if t.get("comment_lines") else t["errors"]
        if not errors and not t.get("elided_lines") and not t.get("cut"):
            # (a template's placeholder ids, "[server_id]", name no host)
            servers = list(t["servers"])
            named = [] if any(rank_table.masked_id(s) for s in servers) else servers
            add(t["source"], "rank table", len(servers), len(t["ranks"]), named)
    for b in evidence.benchmarks:
        if not b["ranks"] or not (b["results"] or b.get("ranks_listed")):
            continue  # a log that ends before its first size may end inside its list of ranks
        if b.get("one_rank"):
            continue  # one device of the host was used: no shape of the cluster (nor the node)
        # nccl-tests named every rank's host (the tail of its list, or some ranks' debug lines,
        # name only some hosts: no shape)
        if b["hosts"] and b["hosts_complete"]:
            add(b["source"], b["tool"], len(b["hosts"]), b["ranks"], list(b["hosts"]))
        elif b.get("npus_per_node") and b["ranks"] % b["npus_per_node"] == 0:
            # hccl_test's -n ranks over -p NPUs per node
            add(b["source"], b["tool"], b["ranks"] // b["npus_per_node"], b["ranks"], [])
    for c in evidence.gpu_copy:
        # a multi-node nvbandwidth names every process's host and GPU: the same count of GPUs
        # on each host is its shape (a GPU two processes took, more processes than GPUs on a
        # host, counted once)
        per_host = Counter(
            str(host)
            for host, _ in dict.fromkeys(
                (d["host"], d["index"]) for d in c["devices"] if d.get("host")
            )
        )
        if per_host and len(set(per_host.values())) == 1:
            add(c["source"], c["tool"], len(per_host), per_host.total(), list(per_host))
    return out


def _flight_dump(path: Path, facts: EvidenceFacts) -> Dump | None:
    """The file as a flight-recorder dump (reported as read), or None when it is not one."""
    try:
        with path.open("rb") as f:
            head = f.read(4096)
    except OSError:
        return None
    is_pickle = head[:1] == b"\x80"
    # a JSON dump may carry its metadata before "entries": look through the whole file
    is_json = head.lstrip()[:1] == b"{" and b'"entries"' in _whole(path, head)
    if not (is_pickle or is_json):
        return None
    report = FileReport(path=str(path), status="read", formats=["flight_recorder"])
    try:
        dump = read_dump(path)
    except DumpError as e:
        if not is_pickle:
            return None  # a JSON file of another kind: the text formats have their go
        report.status = "unreadable"
        report.formats = []
        report.messages.append(Message(line=0, message=f"flight_recorder: {e}"))
        facts.files.append(report)
        return None
    if not dump.entries:
        report.messages.append(Message(line=0, message="flight_recorder: the buffer is empty"))
    facts.files.append(report)
    return dump


def _whole(path: Path, head: bytes) -> bytes:
    """The file's bytes (only ``head`` when it is over MAX_FILE_BYTES or unreadable now)."""
    try:
        return path.read_bytes() if path.stat().st_size <= MAX_FILE_BYTES else head
    except OSError:
        return head


def _read_text(path: Path, report: FileReport) -> str | None:
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        report.status = "too_large"
        report.messages.append(
            Message(
                line=0,
                message=f"{size} bytes is over {MAX_FILE_BYTES}: cut it to the window around the failure",
            )
        )
        return None
    data = path.read_bytes()
    if b"\x00" in data[:8192]:
        report.status = "binary"
        report.messages.append(
            Message(
                line=0, message="binary file (NUL bytes): not a text output of any supported tool"
            )
        )
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        bad = sum(1 for b in data if b >= 0x80) / max(1, len(data))
        if bad > 0.3:
            report.status = "binary"
            report.messages.append(Message(line=line, message="not UTF-8 text (binary data)"))
            return None
        report.messages.append(
            Message(line=line, message="invalid UTF-8 byte; undecodable bytes were replaced")
        )
        text = data.decode("utf-8", errors="replace")
    if not text.strip():
        report.status = "empty"
        report.messages.append(Message(line=0, message="empty file"))
        return None
    # every reader below numbers lines with str.splitlines, which also breaks at a bare "\r"
    # (a progress bar's updates) and at form feeds: lines as an editor counts them, once, here
    return as_editor_lines(text)


_NO_NVSWITCH_GPU_RE = re.compile(
    r"\b(?:GeForce|RTX|Quadro|TITAN)\b|(?i:pcie)|\bT4\b|\bL(?:4|20|40S?)\b|\bA(?:2|10|16|30|40)\b"
    r"|\bNVL\b"
)
"""GPU names of cards no NVSwitch board carries (consumer and workstation cards, PCIe boards:
nvidia-smi names the A2, A16, A30, A40, L20 and the H100/H200 NVL without "PCIe"; an NVL pair's
bridge is NVLink between two cards, no NVSwitch)."""


def _fabric_manager_beside_pcie_cards(out: EvidenceFacts) -> None:
    """A Fabric Manager that failed on a host whose nvidia-smi table, in the same file, lists only
    cards no NVSwitch board carries: not needed there (a ``fabric_manager_unneeded``)."""
    failed = [e for e in out.failures if e["kind"] == "fabric_manager_failed"]
    if not failed or not out.gpus:
        return
    names = [str(g.get("name") or "") for g in out.gpus]
    if not all(n and _NO_NVSWITCH_GPU_RE.search(n) for n in names):
        return
    shown = ", ".join(dict.fromkeys(names))
    for e in failed:
        e["kind"] = "fabric_manager_unneeded"
        e["exception_type"] = (
            f"{e['exception_type']}; the host's GPUs ({shown}) are cards no NVSwitch board "
            "carries: Fabric Manager has nothing to manage there"
        )


def _unsaid(value: object) -> bool:
    """A GPU field a reading left at its default (no value, an empty list, False); a 0 is said."""
    return value is None or value is False or value in ("", [], {})


def _fold_grepped_sections(out: EvidenceFacts) -> None:
    """A grepped ``nvidia-smi -q`` section (``-q | grep -A 12 Fabric``: no product name, no bus
    id) in the same file as a ``--query-gpu`` CSV row of the same GPU index that says the same
    of a field they both hold (its fabric state): one GPU read twice, folded into the row (its
    name and line kept, the section's fields added where the row has none). A section whose
    fields differ from the row's, or that shares none with it, stays apart."""
    rows = {(g["source"], g.get("host"), g["gpu"]): g for g in out.gpus if g.get("query") == "csv"}
    if not rows:
        return
    kept = []
    for gpu in out.gpus:
        row = rows.get((gpu["source"], gpu.get("host"), gpu["gpu"]))
        if row is None or gpu.get("query") != "q" or gpu.get("name") or gpu.get("bus_id"):
            kept.append(gpu)
            continue
        said = {
            k: v
            for k, v in gpu.items()
            if k not in ("line", "query", "sections") and not _unsaid(v)
        }
        shared = [k for k in said if k not in ("source", "host", "gpu") and not _unsaid(row.get(k))]
        if not shared or any(row[k] != said[k] for k in shared):
            # (no field of the row that the section also says: nothing shows them one reading,
            # and a finding would cite a row that says nothing of it; one that differs: another)
            kept.append(gpu)
            continue
        row.update(said)
        row["sections"] = list(dict.fromkeys([*row.get("sections", []), *gpu["sections"]]))
    out.gpus[:] = kept


def load_file(path: Path) -> EvidenceFacts:
    """One file → its facts and a FileReport (always exactly one in ``files``)."""
    source = str(path)
    report = FileReport(path=source, status="unknown")
    out = EvidenceFacts(files=[report])
    try:
        text = _read_text(path, report)
    except OSError as e:
        report.status = "unreadable"
        loop = symlink_loop(path)
        why = f"a symbolic link loop ({loop} leads back to itself)" if loop else e.strerror or e
        report.messages.append(Message(line=0, message=f"cannot read: {why}"))
        return out
    if text is None:
        return out
    text, notes, prefix_hosts = _unwrap(text)
    _parse(text, report, out, path.name)
    # (the host pdsh put before every line, taken off for the format to show: the file's host)
    out.log_hosts.extend({"source": source, "host": host} for host in prefix_hosts)
    _fold_grepped_sections(out)
    _fabric_manager_beside_pcie_cards(out)
    # notes, not warnings: every line was read (the file's status stays what its parse made it)
    report.messages += [Message(line=0, message=note) for note in notes]
    return out


# a Markdown list item of inline code alone: a "-", "*" or "+" bullet, or a numbered item ("1.",
# "2)")
_CODE_BULLET_RE = re.compile(r"^[ \t]*(?:[-*+]|\d{1,6}[.)])[ \t]+`([^`\n]+)`[ \t]*$", re.M)
CODE_BULLETS_MIN = 3
"""Bullets of inline code a file needs for them to be read as a listing of a log's lines (one
could be a document's mention of a command); fewer do where one carries a launcher's rank tag
("- `[rank7]: RuntimeError: ...`": a log's line, its rank read through the backticks)."""


def _code_bullets(text: str) -> tuple[str, int]:
    """``text`` with its Markdown bullets of inline code read as the lines they list (a report
    that listed a log's lines so: "- `[rank7]: RuntimeError: ...`"), and how many; ``text`` as
    it was and 0 where they are no such listing."""
    if "`" not in text:
        return text, 0
    bullets = _CODE_BULLET_RE.findall(text)
    if len(bullets) < CODE_BULLETS_MIN and not any(
        strip_launcher_prefix(code)[1] is not None for code in bullets
    ):
        return text, 0
    return _CODE_BULLET_RE.subn(r"\1", text)


_COLOUR_RE = re.compile(r"(?:\x1b|\^\[)\[[0-9;]*m(?:(?:\x1b|\^\[)\[K)?")
"""A terminal's colour code (SGR: ESC [ params m), or the caret form ``^[[1;36m`` a copy of a
terminal's screen keeps as text (vLLM colours its worker prefixes so), with the Erase in Line
(``ESC [ K``) GNU grep's ``--color`` writes after each of its codes unless GREP_COLORS sets
``ne`` (https://www.gnu.org/software/grep/manual/html_node/Environment-Variables.html)."""
_CARET_CR_RE = re.compile(r"\^M$", re.MULTILINE)
"""A carriage return at a line's end shown in caret notation (``^M``)."""
_QUOTE_RE = re.compile(r"^[ \t]{0,3}> ?", re.MULTILINE)  # (a quote may sit a few spaces in)
_COMMENTED_ROW_RE = re.compile(r"^\s*# ?[|+]")
# (linear time on a long run: at most 400 blanks before a mark, not each of many blank lines re-
# reading the rest)
_COMMENT_RE = re.compile(r"^\s{0,400}+# ?", re.MULTILINE)
MIN_COMMENTED_ROWS = 3
"""Table rows ("# |", "# +") a commented copy needs before its other "#" lines count too."""
QUOTED_SHARE = 0.8
"""Lines that must start with ``>`` for a file to be read as a Markdown quote of an output."""
QUOTED_MIN_LINES = 5
"""``>`` lines a file mostly unquoted needs before they are tried as a quoted part of an output
(a reply that quoted a tool's head and pasted the rest as is)."""
QUOTE_LEVELS_MAX = 4
"""Levels of a quote taken off a mail thread's copy ("> > > ..."): a reply's reply's reply."""
# a quoted-printable soft line break (RFC 2045 section 6.7, rule 5: "=" ends an encoded line that
# goes on in the next) in a mail archive's raw copy: the quote's ">" was put before encoding, so
# the continuation holds none ("> > [  5]   0.00-10.00  sec ... 3120             =" / "sender")
_SOFT_BREAK_RE = re.compile(
    r"^([ \t]{0,3}>[^\n]*[^=\n])=\n(?![ \t]{0,3}>)(?=[^\n]*\S)([^\n]*)", re.M
)


def _join_soft_breaks(text: str) -> tuple[str, int]:
    """``text`` with each quoted line that ends in a soft break joined to its unquoted
    continuation, the continuation's line left empty so line numbers hold; and how many."""
    if "=\n" not in text:
        return text, 0
    return _SOFT_BREAK_RE.subn(r"\1\2\n", text)


_ODD_SPACE_RE = re.compile("[\u00a0\u2000-\u200a\u202f\u3000]")
"""Spaces a web page or a word processor puts in a copy: no-break, typographic widths, the
ideographic (full-width) space of a Chinese page."""
_ZERO_WIDTH_RE = re.compile("[\u200b\ufeff\u202a-\u202e\u2066-\u2069]")
_HTML_ENTITY_RE = re.compile(r"&(?:lt|gt|quot|amp|apos|nbsp|#39|#x27|#34);")
"""An output copied from a page's source, its markup escaped (``&lt;``, ``&quot;``)."""
_ESCAPED_FRAME_RE = re.compile(r"(?<=frame )\\#(?=\d)")
"""A C++ stack frame's number as a Markdown copy escaped it ("frame \\#0: c10::Error::Error":
GitHub reads a bare "#0" as a link to an issue); one column more than the line was printed."""
_ESCAPED_HASH_RE = re.compile(r"^([ \t>]*)\\#", re.MULTILINE)
"""A "#" at a line's start (behind a quote's ">" or not) as a Markdown copy escaped it ("\\# gpu
pwr ...": unescaped, the line would be a heading); a table's comment-marked header, nvidia-smi
dmon's or nccl-tests', read as printed."""
# docker compose pads each container's name to the longest one's length plus one, then " | "
# (cmd/formatter/logs.go, setPrefix: fmt.Sprintf("%-"+width+"s | ", name)). The name is the
# service's with its replica number ("trainer-1", v1's "trainer_1"), or, where the compose file
# sets container_name, that name alone ("vllm-ascend  | "): docker/compose's
# getContainerNameWithoutProject ("service declares a custom container_name").
_COMPOSE_PREFIX_RE = re.compile(r"^(?P<name>[\w.-]+) +\| ")
_COMPOSE_NUMBERED_RE = re.compile(r"[-_]\d+$")
COMPOSE_NAMES_MAX = 4
"""Names without a replica number a file's compose prefixes may carry: a compose file's few
services each set one; a table's first column ("PGID   | ...") varies row by row."""


def _compose_names(shown: list[str]) -> frozenset[str]:
    """The container names docker compose put before ``shown``'s lines: every numbered one
    ("trainer-1"), and those without a number where they are few and start with a letter (a
    table's numeric first column, "67108864          | 1010.09", is no container's)."""
    counts: dict[str, int] = {}
    for line in shown:
        if m := _COMPOSE_PREFIX_RE.match(line):
            counts[m.group("name")] = counts.get(m.group("name"), 0) + 1
    numbered = {name for name in counts if _COMPOSE_NUMBERED_RE.search(name)}
    plain = {
        name
        for name in counts
        if name not in numbered and name[0].isalpha() and name.upper() not in LOG_LEVELS
    }
    if len(plain) > COMPOSE_NAMES_MAX:
        plain = set()
    return frozenset(numbered | plain)


# Azure's distributed node health check prints a line per node: "mynode-042 | Healthy",
# "mynode-066 | ERROR: nhc: Health check failed: ...", "mynode-108 | ERROR: No results reported"
_NHC_SUMMARY_RE = re.compile(
    r"^[\w.-]+ +\| (?:Healthy\s*$|ERROR: (?:nhc: |No results reported))", re.MULTILINE
)
_PANE_BARS = ("│", "┃", "║")
_LINE_PREFIXES = (
    # kubectl logs --timestamps: RFC 3339 with nanoseconds before each line
    (
        "kubectl's time stamp",
        re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d) "),
    ),
    # other collectors write the same stamp with a colon after it ("2019-06-02T16:13:44.884Z:
    # [1,12]<stdout>:host:815:864 [0] ...": a job's mpirun output as its cluster kept it)
    (
        "a log collector's time stamp",
        re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d): "),
    ),
    # (or a plain date and time before Open MPI's rank tag: "2020-11-08 20:25:49 [1,0]<stdout>:")
    (
        "a log collector's time stamp",
        re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d+)? (?=\[\d+,\d+\]<std(?:out|err)>:)"),
    ),
    # kubectl logs --prefix: "[pod/trainer-worker-0/pytorch] "
    ("kubectl's pod prefix", re.compile(r"^\[pod/[\w.-]+/[\w.-]+\] ")),
    # docker compose logs: the service's container name and a bar ("trainer-1  | ")
    ("docker compose's container prefix", _COMPOSE_PREFIX_RE),
    # an output kept inside a C or Java block comment, " * " before each line (its "/*" and
    # " */" lines are no output)
    ("a block comment's ' * '", re.compile(r"^ ?\*(?: |$)|^/\*+\s*$|^ ?\*/\s*$")),
    # a copy of a terminal multiplexer's pane (tmux, screen): its vertical border, a box-drawing
    # bar, before each line
    ("a terminal pane's border '│'", re.compile(r"^[│┃║]")),
)
"""Prefixes a log collector puts before each line of a container's output."""
# A wrapper script's own label before each line of the program it runs ("[TRAINING] ", a
# start-everything script's tag of its training process's output): an upper-case word, not a
# log level (a plog's "[ERROR] " and "[INFO] " are each line's own)
_WRAPPER_TAG_RE = re.compile(r"\[[A-Z][A-Z_-]{2,23}\] ")
LOG_LEVELS = frozenset(
    {"ERROR", "ERR", "WARNING", "WARN", "INFO", "DEBUG", "TRACE", "EVENT", "FATAL", "CRITICAL"}
    | {"NOTICE", "VERBOSE", "CRIT", "ALERT", "EMERG", "SEVERE", "PANIC", "FAIL", "FAILED", "OK"}
    | {"PASS", "PASSED", "SUCCESS", "DONE"}
    # iperf3's total of its parallel streams ("[SUM]   0.00-30.00  sec ..."): its own column
    | {"SUM"}
)
"""Levels and verdicts a program prints before its own lines (syslog's, glog's, a test's):
each line's own word, never a wrapper's label."""
WRAPPER_TAG_SHARE = 0.8
"""The share of non-blank lines one label must lead to be a wrapper's: as with a collector's
prefix, the program's own lines before the wrapper started (a prompt, a banner) lack it."""


def wrapper_tag(lines: list[str]) -> str | None:
    """The one label a wrapper put before ``WRAPPER_TAG_SHARE`` of the non-blank ``lines``
    (``"[TRAINING] "``), or None."""
    counts: dict[str, int] = {}
    shown = 0
    for line in lines:
        if line.strip():
            shown += 1
            if line.startswith("[") and (m := _WRAPPER_TAG_RE.match(line)):
                counts[m.group(0)] = counts.get(m.group(0), 0) + 1
    if not counts:
        return None
    tag, marked = max(counts.items(), key=lambda kv: kv[1])
    if marked < WRAPPER_TAG_SHARE * shown or tag[1:-2] in LOG_LEVELS:
        return None
    return tag


# pdsh's "host: " before each line of one host's output (dshbak(1): "the leading node: is
# stripped"; ``pdsh -w gpu-node07 dcgmi stats -v -j ID``, ``pdsh -w node nvidia-smi``)
_PDSH_LINE_RE = re.compile(rf"^(?P<host>{PDSH_HOST}): ")


def _pdsh_box_host(shown: list[str]) -> str | None:
    """The one host pdsh put before ``QUOTED_SHARE`` of the non-blank lines ``shown`` where most
    of them carry a table's box ("|", "+" after the prefix: dcgmi's, nvidia-smi's), or None.
    (A log's pdsh prefixes name its hosts for the log parsers, which read them there: those are
    kept; several hosts' tables interleaved are not one table.)"""
    hosts: dict[str, int] = {}
    boxed = 0
    for line in shown:
        if m := _PDSH_LINE_RE.match(line):
            hosts[m.group("host")] = hosts.get(m.group("host"), 0) + 1
            boxed += line[m.end() :].lstrip()[:1] in ("|", "+")
    if len(hosts) != 1:
        return None
    ((host, marked),) = hosts.items()
    if marked < QUOTED_SHARE * len(shown) or boxed < QUOTED_SHARE * marked:
        return None
    return host


def _pdsh_one_host(text: str) -> tuple[str, str] | None:
    """The host and the text without it where every line that is not blank carries one host's
    pdsh "host: " (``pdsh -w node07 npu-smi info -t hccs -i 3 -c 0``) and a format shows only
    without it; None otherwise. A log read with its prefixes keeps them: the log parsers name
    each line's host from them (``logs._pdsh_line_hosts``), and nccl-tests' reader takes its own
    off (``without_one_pdsh_host``), so only a copy no format is seen in is taken apart here."""
    host, bare = without_one_pdsh_host(text)
    # (a log level before every line, uvicorn's "INFO:     ...", is no host)
    if host is None or host.upper() in LOG_LEVELS or detect(text) or not detect(bare):
        return None
    # (the helper ends the text with a line break: the copy keeps its own end)
    return host, bare if text.endswith("\n") else bare[:-1]


def _hwlog_pods_kept(shown: list[str], prefix: re.Pattern[str]) -> bool:
    """Whether kubectl's "[pod/NAME/container] " prefixes stay on the lines for the log reader:
    where they name two pods or more and a MindCluster component's DCMI failure is among them
    (the reader keys each pod's failure, and what follows it, on its pod: taken off, one pod's
    failure would be read as a restart of the other's)."""
    if not any("prepare dcmi failed" in line for line in shown):
        return False
    pods = {m.group(0) for line in shown if (m := prefix.match(line))}
    return len(pods) > 1


def _prefixed(prefix: re.Pattern[str], line: str, names: frozenset[str] | None) -> bool:
    """Whether ``line`` starts with ``prefix``; with ``names``, a compose prefix naming one of
    them."""
    m = prefix.match(line)
    return m is not None and (names is None or m.group("name") in names)


MIN_INDENT_LINES = 2
_COPY_LABEL_RE = re.compile(r"^\s*(Copy(?: code)?|复制(?:代码)?)(?=[{\[]|[ \t]*\r?\n)")
"""The copy button of a web page's code block, pasted with it onto its first line."""
# (a bare number in brackets is no address: ibnetdiscover's and ibdiagnet's topology files print
# a port and its number as "[1](1)", which no Markdown page made a link of)
_AUTOLINK_RE = re.compile(r"\[(?!\d{1,12}\])([\w.:-]+)\]\((?:https?://)?\1/?\)")


DOUBLE_SPACED_MIN_LINES = 8
"""Fewer lines than this, each with a blank after it, are an output's own spacing, no copy's."""


def _double_spaced(lines: list[str]) -> list[str] | None:
    """``lines`` less the one blank line after each shown line, where every shown line but the
    last has one and ``DOUBLE_SPACED_MIN_LINES`` lines are shown; else None."""
    shown = [i for i, line in enumerate(lines) if line.strip()]
    if len(shown) < DOUBLE_SPACED_MIN_LINES:
        return None
    if any(i + 1 < len(lines) and lines[i + 1].strip() for i in shown):
        return None  # two shown lines together: the copy kept the output's own line breaks
    dropped = {i + 1 for i in shown if i + 1 < len(lines)}
    return [line for i, line in enumerate(lines) if i not in dropped]


def _common_indent(lines: list[str]) -> str:
    """The whitespace every non-empty line starts with ('' when one starts at column 0)."""
    shown = [line for line in lines if line.strip()]
    if len(shown) < MIN_INDENT_LINES:
        return ""
    first = shown[0][: len(shown[0]) - len(shown[0].lstrip())]
    common = first
    for line in shown[1:]:
        while common and not line.startswith(common):
            common = common[:-1]
        if not common:
            return ""
    return common


HARD_WRAP_MIN_COLUMNS = 120
"""Narrower lines of one length are a table's rows or a format's own width, not a terminal's
wrap, unless the narrow wrap's own evidence holds (``HARD_WRAP_NARROW_MIN_COLUMNS``)."""
HARD_WRAP_NARROW_MIN_COLUMNS = 100
"""A reporter's terminal or paste cut at 100 columns or a little more (NaviLLM issue 34's
watchdog log at 102: "[Rank 0" / "] Watchdog caught ..."): a wrap there only where its cuts
fall inside words that go on in lower case on the next line (a table's rows of that width,
rocm-smi's matrices, go on with their next row's label instead)."""
HARD_WRAP_NARROW_MIN_LINES = 3
"""Lines cut inside a word a narrow wrap needs: at 100 columns one or two such are chance."""
_LINE_HEAD_RE = re.compile(
    r"[\w.-]+:\d+:\d+ \[|\d{4}-\d\d-\d\d|[A-Za-z]{3} +\d+ \d\d:|[\w.-]+: |\[|\(|nccl[A-Z]"
    r"|[\w.-]{1,253} \[\d{1,6}\] (?:NCCL |\S{1,300}:\d{1,6} NCCL )"
    r"|Traceback|File \"|frame #|Exception|terminate called|what\(\)|\*\*\*"
)
"""How a line of its own starts: NCCL's host:pid:tid prefix, a date, syslog's "Dec  2 11:49",
a host before its device with the pid and tid taken out ("node [1] NCCL INFO ...", a copy of
RCCL's log with its host redacted, ROCm/rccl issue 2188: its line after a WARN cut at the width
is the next device's own line, no continuation),
a host's or an exception's "name: " (pdsh's ``node2: ``, ``ncclSystemError: ``), a bracketed
tag (``[rank1]:``), a Ray actor's ``(pid=..)``, a traceback's or C++ frame's line."""
HARD_WRAP_MIN_LINES = 2
"""A terminal's wrap shows in several lines cut at its width; one is chance."""


def _join_hard_wraps(text: str) -> tuple[str, int, int]:
    """``text`` with the lines a terminal (or a paste tool) cut at its width joined again. The
    width is the longest lines' length, at least ``HARD_WRAP_MIN_COLUMNS``; it is a wrap when
    ``HARD_WRAP_MIN_LINES`` of those lines are cut inside a word or at a space (the next line
    goes on in lower case), at a narrower width (``HARD_WRAP_NARROW_MIN_COLUMNS`` on)
    ``HARD_WRAP_NARROW_MIN_LINES`` of them, and none of them is followed by a line of its own (a host's or a rank's prefix, a date, an
    exception's name, a frame): then every line of that width is joined to the next. The
    continuation's line is left empty so line numbers hold. Returns the text, how many lines
    were joined and the width."""
    lines = text.split("\n")
    original = list(lines)
    width = max((len(line) for line in lines), default=0)
    # (the text's last line has nothing after it to go on to; "" after it is the final newline)
    last = len(lines) - 1 - (lines[-1] == "")
    at_width = [i for i in range(last) if len(lines[i]) == width]
    narrow = width < HARD_WRAP_MIN_COLUMNS
    if width < HARD_WRAP_NARROW_MIN_COLUMNS or len(at_width) < HARD_WRAP_MIN_LINES:
        return text, 0, width

    def own_line(i: int) -> bool:
        after = original[i + 1]
        return (
            not after.strip()
            # an indent (a traceback's frame, a continuation); one space before a word is
            # where a terminal put the space it wrapped at
            or after[:2].isspace()
            or after[:1] == "\t"
            or (after[:1] == " " and not after[1:2].isalnum())
            or after[:6] == original[i][:6]
            or bool(_LINE_HEAD_RE.match(after))
        )

    # cut inside a word, or at the space between two (the next line goes on in lower case); or
    # inside a token, letters or digits on both sides of the cut, the rest shorter than the
    # width ("... commId 0x" / "9419ffc51c422e05 - Init START", "NCCL_IGN" / "ORE_DISABLED_P2P=1.":
    # rows of one width, a CSV's, go on at the width); at a narrow width only the first
    mid_word = [
        i
        for i in at_width
        if (
            (original[i][-1:].isalnum() or original[i][-1:] == " ")
            and original[i + 1][:1].islower()
        )
        or (
            not narrow
            and (original[i][-1:].isalnum() or original[i][-1:] == "_")
            and (original[i + 1][:1].isalnum() or original[i + 1][:1] == "_")
            and len(original[i + 1]) < width
            # (a CSV's next row has as many fields, not a remainder: rows of two widths)
            and not (
                original[i].count(",") >= 2 and original[i + 1].count(",") == original[i].count(",")
            )
        )
    ]
    needed = HARD_WRAP_NARROW_MIN_LINES if narrow else HARD_WRAP_MIN_LINES
    if len(mid_word) < needed or any(own_line(i) for i in at_width):
        return text, 0, width
    joined = 0
    for i in at_width:
        if not lines[i]:
            continue  # a continuation already joined to the line above it
        j = i
        while j + 1 < len(lines) and len(original[j]) == width and not own_line(j):
            lines[i] += original[j + 1]
            lines[j + 1] = ""
            j += 1
            joined += 1
    return "\n".join(lines), joined, width


_EDITOR_NUMBER_RE = re.compile(r"^[ \t]*\d+(?:[ \t]|$)")
EDITOR_NUMBERED_MIN_LINES = 5
"""Fewer numbered lines than this are no editor's numbering (a short table's own counts)."""


def _editor_numbered(lines: list[str]) -> bool:
    """Every line (its trailing blank ones aside) starts with a number one more than the line
    above's: an editor's line numbers pasted with the text."""
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1  # (one slice below: slicing at each blank line grew with their square)
    lines = lines[:end]
    if len(lines) < EDITOR_NUMBERED_MIN_LINES:
        return False
    numbers = []
    for line in lines:
        m = _EDITOR_NUMBER_RE.match(line)
        if m is None:
            return False
        numbers.append(int(m.group(0)))
    if numbers[0] == 0:
        return False  # editors count from 1: from 0 a loop's device index ("0 net health ...")
    if all(hccn_tool.DEVICE_STATE_RE.match(line) for line in lines):
        return False  # a loop's answers each behind its device ("11 link status: DOWN")
    # a loop's lines ("1 link status: UP", "2 link status: UP" ...) say one thing each time
    # after their number: the number is theirs, not an editor's
    said = {_DIGITS_RE.sub("#", _EDITOR_NUMBER_RE.sub("", line, count=1)) for line in lines}
    if len(said) == 1:
        return False
    return all(b == a + 1 for a, b in itertools.pairwise(numbers))


_DIGITS_RE = re.compile(r"\d+")
_HTML_TAG_RE = re.compile(
    r"</?(?:span|code|pre|div|p|br|b|i|em|strong|kbd|samp|tt|font|a|li|ul|ol|td|tr|table|tbody|"
    r"thead|th|h[1-6])(?:\s[^<>\n]{0,200})?/?>",
    re.I,
)
"""A web page's tags, by name: a log's own "<N/A>", "<unknown>" or "<python:12>" is none."""
_HTML_BREAK_RE = re.compile(r"<br[ \t]*/?>(?:[ \t]*\n)?", re.I)
"""A web page's line break, with the line end a page's source put after it (one break, not two)."""
HTML_TAGS_MIN = 3
"""Fewer tags than this are a program's own words (a line that quotes one), not a page's."""
HTML_TAG_SCAN_CHARS = 200_000
"""How far into a file its tags are counted (a page's markup starts early)."""


# a Ray or vLLM worker's prefix glued to the end of the record before it (the page lost the line
# break between them): the place to break the line (parsers.WORKER_PREFIX_RE's form)
_GLUED_WORKER_RE = re.compile(
    r"(?<=\S)(?=\((?:[A-Za-z][\w.:-]*,? ){1,3}(?:rank=\d+,? )?pid=\d+(?:, ip=[\w.:-]+)?\) )"
)
GLUED_MIN = 3
_BOLD_NCCL_RE = re.compile(r"\*\*(NCCL (?:WARN|INFO) [^*\n]{1,400})\*\*")
"""How many glued worker prefixes make a joined copy (one could be a prefix quoted in a line)."""
# a box-drawn table (npu-smi's, nvidia-smi's) whose line breaks a page lost: three of its borders
# on one line, a "|" cell between them
# (each border one unambiguous run of "+---+---+" cells, found left to right with no
# backtracking: a pattern spanning three borders with lazy gaps between was cubic on long
# border lines)
# (dcgmi diag's section borders name the section in their first cell: "+----- Hardware ---+---+")
# (dcgmi prints two spaces around the name; a web copy may have collapsed them to one)
# (linear time on a long run: a match starts where its run starts, not at each character of a long
# one)
_FLAT_BORDER_RE = re.compile(
    r"(?:(?<![ \t])[ \t]+)?(\+(?:-+ {1,2}[A-Z][\w ]*? {1,2}-+\+)?(?:[-=]{3,}\+)+)[ \t]*"
)
FLAT_BORDERS_MIN = 2
# a row's closing "|" followed by the next row's first cell, which holds something (a blank cell
# inside a row is left alone)
# (or the next section's heading border, dcgmi diag's "+----- Integration -------+---+")
_FLAT_ROWS_RE = re.compile(r"\|[ \t]+(?=\|[ \t]*[^|\s]|\+-+ {1,2}[A-Z])")
_FLAT_TOOL_WORDS = ("npu-smi", "NVIDIA-SMI", "DCGM Version", "dcgmi diag")


_GLUED_FENCE_RE = re.compile(r"^([ \t]*)```(?=[^`\n]*[:=])", re.M)


def _two_column_rows(part: str, widths: list[int]) -> str:
    """A flattened two-column table's rows (dcgmi diag's "| name | result |", its wrapped cells'
    "| | more |", its "|----- Metadata ---+---|" section rows): split "|" by "|", each row two
    cells (a section's row one) and the space between one row's closing bar and the next's
    opening one, each cell padded back to its border's width (the table's reader cuts wrapped
    cells by it); ``part`` as it was where it is not such rows."""
    if not part.lstrip().startswith("|"):
        return part
    chunks = part.strip().split("|")[1:]
    rows: list[str] = []
    i = 0
    while i < len(chunks) - 1:
        if chunks[i].startswith("-") and "+" in chunks[i]:
            rows.append(f"|{chunks[i]}|")  # a section's row
            step = 1
        else:
            rows.extend(_padded([(chunks[i], chunks[i + 1])], widths))
            step = 2
        if i + step < len(chunks) and chunks[i + step].strip():
            return part  # (not two cells a row)
        i += step + 1
    return "\n".join(rows)


def _padded(cells: list[tuple[str, str]], widths: list[int]) -> list[str]:
    w1, w2 = [*widths, 0, 0][:2]
    return [f"|{a.ljust(w1)}|{b.ljust(w2)}|" for a, b in cells]


def _flat_table_line(text: str) -> tuple[int, int] | None:
    """The start and end of the first line that holds a box-drawn npu-smi or nvidia-smi table
    flattened onto it (its banner, three borders or more, a cell between the first two); None
    where no line does. A line holding a table's repr (its breaks written "\\n") is no such
    line."""
    start = 0
    while (at := text.find("+---", start)) >= 0:
        begin = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        line = text[begin:end]
        borders = [m.span(1) for m in _FLAT_BORDER_RE.finditer(line)]
        if (
            len(borders) >= FLAT_BORDERS_MIN
            and "|" in line[borders[0][1] : borders[1][0]]
            and "\\n" not in line
            and any(word in line for word in _FLAT_TOOL_WORDS)
        ):
            return begin, end
        start = end + 1
    return None


def _flat_show_gids(text: str) -> tuple[str, int, int] | None:
    """``text`` with the first line that holds show_gids' whole table run together split back
    into the table's lines (rdma.flat_show_gids), that line's number and how many lines it
    became; None where no line does."""
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if "IPv4" in line and (split := rdma.flat_show_gids(line)) and len(split) > 1:
            return "\n".join([*lines[:index], *split, *lines[index + 1 :]]), index + 1, len(split)
    return None


_JSON_STRING_LINE_RE = re.compile(r'^[ \t]*"(?P<s>(?:[^"\\\n]|\\.)*)",?[ \t]*$')
JSON_STRING_MIN_LINES = 2
"""Fewer quoted lines than this are a file's own JSON, not an output printed a string a line."""


_JSON_ESCAPED_OUTPUT_RE = re.compile(
    r'^[ \t]*(?:"[^"\\\n]*"[ \t]*:[ \t]*)?"(?P<s>(?:[^"\\\n]|\\.)*)(?:",?)?[ \t]*$'
)
"""A line that is a JSON string, a key's value or a list's item, closed or cut before its
closing quote."""
_JSON_ESCAPE_RE = re.compile(r"\\(.)")
JSON_ESCAPED_LINES_MIN = 3
"""Escaped line breaks a JSON string needs to be read as an output kept whole in it (a message's
one or two are its own text)."""


def _json_escaped_output(text: str) -> tuple[str, list[tuple[int, int]]] | None:
    """``text`` with each line that is one JSON string holding at least JSON_ESCAPED_LINES_MIN
    escaped line breaks replaced by the lines the string holds, and each such line's number with
    how many lines it became; None where no line is. Every one is read: a collector's list of
    records ('[{"node": ..., "raw_output": "..."}, ...]') holds an output per node, and a
    failing one may follow a healthy one."""
    lines = text.split("\n")
    out: list[str] = []
    expanded: list[tuple[int, int]] = []
    for index, line in enumerate(lines):
        m = (
            _JSON_ESCAPED_OUTPUT_RE.match(line)
            if line.count("\\n") >= JSON_ESCAPED_LINES_MIN
            else None
        )
        if m is None:
            out.append(line)
            continue
        try:
            held = json.loads(f'"{m.group("s")}"')
        except ValueError:
            # (cut inside an escape, "\\u00": each escape read as the character it names)
            held = _JSON_ESCAPE_RE.sub(
                lambda e: {"n": "\n", "t": "\t"}.get(e.group(1), e.group(1)), m.group("s")
            )
        split = held.rstrip("\n").split("\n")
        out.extend(split)
        expanded.append((index + 1, len(split)))
    return ("\n".join(out), expanded) if expanded else None


def _json_string_lines(text: str) -> tuple[str, int] | None:
    """``text`` with each line that is a JSON string (with its comma) replaced by the string,
    where nearly every line is one; None otherwise."""
    lines = text.split("\n")
    shown = [line for line in lines if line.strip()]
    found = [_JSON_STRING_LINE_RE.match(line) for line in lines]
    quoted = sum(1 for m in found if m is not None)
    if quoted < JSON_STRING_MIN_LINES or quoted < QUOTED_SHARE * len(shown):
        return None
    out = []
    for line, m in zip(lines, found, strict=True):
        if m is None:
            out.append(line)
            continue
        try:
            out.append(json.loads(f'"{m.group("s")}"'))
        except ValueError:
            out.append(m.group("s"))
    return "\n".join(out), quoted


ESCAPED_BREAKS_MIN = 4
"""Escaped line breaks (the two characters ``\\n``) a line needs before it is tried as a whole
output a log carried in one string (a JSON field's value): fewer are an error message's own."""
_ESCAPES = {"\\n": "\n", "\\t": "\t", '\\"': '"', "\\\\": "\\", "\\r": ""}
_ESCAPE_RE = re.compile(r"\\[nt\"\\r]")


def _escaped_output(text: str) -> tuple[str, int] | None:
    """``text`` with each line that carries ``ESCAPED_BREAKS_MIN`` escaped line breaks or more
    read as the lines it escaped (a caller's log that put a tool's output in one JSON field:
    the SR-IOV operator's ``RunCommand()  {"output": "\\nDevice #1:\\n..."}``), and how many
    lines were so read, where the escaped lines show a format the text as it was does not;
    None otherwise."""
    if text.count("\\n") < ESCAPED_BREAKS_MIN:
        return None
    lines = text.split("\n")
    hits = [i for i, line in enumerate(lines) if line.count("\\n") >= ESCAPED_BREAKS_MIN]
    if not hits:
        return None
    # (a copy that wrapped the long line: the parts after it that carry escapes too are its)
    for i in list(hits):
        while i + 1 < len(lines) and i + 1 not in hits and "\\n" in lines[i + 1]:
            i += 1
            hits.append(i)
    hits.sort()
    read = list(lines)
    for i in hits:
        read[i] = _ESCAPE_RE.sub(lambda m: _ESCAPES[m.group(0)], lines[i])
    shown = detect("\n".join(read[i] for i in hits))
    if not shown or not set(shown) - set(detect(text)):
        return None
    return "\n".join(read), len(hits)


_WHOLE_LINE_SPAN_RE = re.compile(r"^([ \t]*)`([^`\n]+)`[ \t]*$", re.MULTILINE)
"""A line that is one inline-code span whole (an issue's "`init.cc:1247 NCCL WARN ...`")."""


def _code_span_around(text: str) -> str | None:
    """``text`` without the two backticks of the first inline-code span that runs over more
    than one line (opened by the first non-blank character of a line, closed by the last of a
    later one, no backtick between); where there is none, without those of each line that is one
    span whole, or without the one backtick that opened a span the copy cut before it closed
    (nothing after it closes it); None where there is none of these. Lines around it, a
    report's own prose with code spans of its own on one line, are kept as they are, and every
    line stays."""
    lines = text.split("\n")
    opened: int | None = None
    for at, line in enumerate(lines):
        ticks = line.count("`")
        if ticks % 2 == 0:
            continue  # (none, or spans that close on their own line: "Running `./nvbandwidth`")
        if ticks != 1:
            return None
        if opened is None:
            if not line.lstrip().startswith("`"):
                return None
            opened = at
            continue
        if not line.rstrip().endswith("`"):
            return None
        first = lines[opened].index("`")
        lines[opened] = lines[opened][:first] + lines[opened][first + 1 :]
        last = line.rindex("`")
        lines[at] = line[:last] + line[last + 1 :]
        return "\n".join(lines)
    if opened is not None:
        # a span opened and never closed: the copy ends inside it (a thread's stored chunk cut
        # mid-line, "`init.cc:1247 NCCL WARN Mismatched collective det")
        first = lines[opened].index("`")
        lines[opened] = lines[opened][:first] + lines[opened][first + 1 :]
        return "\n".join(lines)
    spans, n = _WHOLE_LINE_SPAN_RE.subn(r"\1\2", text)
    return spans if n else None


# an npu-smi command line of its own, uncommented ("npu-smi info -l", "sudo npu-smi info -t
# health -i 1"), with no comment after it
_NPU_SMI_COMMAND_LINE_RE = re.compile(
    r"[ \t]{0,20}(?:sudo[ \t]+)?npu-smi[ \t]+[a-z][\w-]{0,40}(?:[ \t][^\n#]{0,200})?"
)


def _commented_npu_smi(text: str) -> tuple[str, int] | None:
    """``text`` with the '#' (and one blank after it) taken off each line of the run of '#'
    lines right under an uncommented npu-smi command line, and how many; None when there is
    none. Notes that comment a command's output under it ("npu-smi info -l" over "# Total Count
    : 4"): the command ran, the lines under it are what it printed. A '#' line under anything
    else (a blank line, prose, another command) stays a comment."""
    lines = text.split("\n")
    under = False  # in the run of '#' lines right under an npu-smi command line
    taken = 0
    for at, line in enumerate(lines):
        if under and line.startswith("#"):
            body = line[1:]
            lines[at] = body[1:] if body.startswith(" ") else body
            taken += 1
            continue
        under = _NPU_SMI_COMMAND_LINE_RE.fullmatch(line.rstrip()) is not None
    return ("\n".join(lines), taken) if taken else None


def _unwrap(text: str) -> tuple[str, list[str], list[str]]:
    """``text`` without what a copy wrapped around the output (each line kept, so line numbers
    hold): Windows line ends, a page's odd spaces and escaped markup, a log collector's prefix
    before every line, an indent every line shares, terminal colour codes, caret-shown carriage
    returns, and the ``>`` of a Markdown quote when nearly every line has one; a note for each
    kind taken off; and the host of a pdsh prefix taken off (the file's own, named for it)."""
    notes = []
    prefix_hosts: list[str] = []
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    if _ODD_SPACE_RE.search(text) or _ZERO_WIDTH_RE.search(text):
        text, n = _ODD_SPACE_RE.subn(" ", text)
        text, z = _ZERO_WIDTH_RE.subn("", text)
        notes.append(
            f"{n + z} no-break, full-width or zero-width space(s) (or text-direction marks) read "
            "as plain spaces"
        )
    breaks = 0
    if "<br" in text.lower() and len(_HTML_BREAK_RE.findall(text, 0, HTML_TAG_SCAN_CHARS)) >= (
        HTML_TAGS_MIN
    ):
        # a page that kept an output's lines in one "<pre>" line, each line break a "<br>"
        # ("root@host:~# ibstat<br>CA 'mlx5_0'<br>        CA type: ..."): each back on a line of
        # its own before the other tags go (a "<br>" at a line's end is that line's break)
        text, breaks = _HTML_BREAK_RE.subn("\n", text)
        notes.append(
            f"{breaks} HTML line break(s) ('<br>') read as the line breaks they stand for: line "
            "numbers from there on count them"
        )
    if "</" in text and (
        breaks or len(_HTML_TAG_RE.findall(text, 0, HTML_TAG_SCAN_CHARS)) >= HTML_TAGS_MIN
    ):
        # (a page's "<br>" breaks make its "<pre>" around them markup too)
        # a web page's markup copied with its text ("hccn_tool <span>-i</span> 3",
        # "<span>[</span>devid 3] ..."): its inline tags taken off, every line kept
        text, n = _HTML_TAG_RE.subn("", text)
        notes.append(f"{n} HTML tag(s) of a web page's markup taken off before reading")
    if "&" in text and _HTML_ENTITY_RE.search(text):
        before = text
        text = html.unescape(text)
        if text != before:
            notes.append(
                "read as a web page's escaped text: '&lt;', '&quot;' ... taken as '<', '\"'"
            )
    if "\\#" in text:
        # (before a terminal's wrap is looked for: the escape made the frames' lines one column
        # longer than the others the terminal cut at its width)
        text, n = _ESCAPED_FRAME_RE.subn("#", text)
        if n:
            notes.append(f"{n} stack frame number(s) escaped for Markdown ('\\#') read as '#'")
        text, n = _ESCAPED_HASH_RE.subn(r"\1#", text)
        if n:
            notes.append(
                f"{n} line(s) whose leading '#' was escaped for Markdown ('\\#') read as '#'"
            )
    if "npu-smi" in text and "\n#" in text and (under_command := _commented_npu_smi(text)):
        text, n = under_command
        notes.append(
            f"{n} line(s) of npu-smi output written as '#' comments under their uncommented "
            "npu-smi command line read as the output"
        )
    if label := _COPY_LABEL_RE.match(text):
        # a page's copy button pasted with the block ("Copy{", "Copy code"): not the output's
        text = text[: label.start(1)] + text[label.end(1) :]
        notes.append(f"a page's copy-button label {label.group(1).strip()!r} taken off line 1")
    if "](" in text and _AUTOLINK_RE.search(text):
        # a page that made an address a link ("[10.29.214.5](http://10.29.214.5/)")
        text, n = _AUTOLINK_RE.subn(r"\1", text)
        notes.append(f"{n} Markdown link(s) of an address read as the address")
    if "+---" in text and (flat := _flat_table_line(text)):
        # a page that lost a table's line breaks (a blog's "npu-smi info # ...: +-----+ | npu-smi
        # 21.0.4 Version: ... | +----+----+ | NPU Name | Health | ..." on one line): its rows
        # back on lines of their own, at its borders and where one row's "|" meets the next's
        start, end = flat
        line_no = text.count("\n", 0, start) + 1
        row = _FLAT_BORDER_RE.sub(r"\n\1\n", text[start:end])
        if "DCGM Version" in row or "dcgmi diag" in row:
            border = _FLAT_BORDER_RE.search(row)
            widths = [len(c) for c in border.group(1).strip("+").split("+")] if border else []
            row = "\n".join(_two_column_rows(part, widths) for part in row.split("\n"))
            row = row.strip("\n")
        else:
            row = _FLAT_ROWS_RE.sub("|\n", row).strip("\n")
        text = text[:start] + row + text[end:]
        notes.append(
            f"a table flattened onto line {line_no} (its line breaks lost) split at its borders "
            f"and rows into {row.count(chr(10)) + 1} lines: line numbers from there on count them"
        )
    if "IPv4" in text and "INDEX" in text and (gids := _flat_show_gids(text)):
        # a page that lost show_gids' line breaks ("DEV PORT INDEX GID IPv4 VER DEV---  ----
        # ...---mlx5_1  1  0  fe80:...  v1  enp4s0f1mlx5_1  1  1 ...  enp4s0f1n_gids_found=2" on
        # one line): its header, dashes, rows and count back on lines of their own
        text, line_no, count = gids
        notes.append(
            f"show_gids' table flattened onto line {line_no} (its line breaks lost) split at its "
            f"header, rows and count into {count} lines: line numbers from there on count them"
        )
    if (
        "`" in text
        and (span := _code_span_around(text)) is not None
        and not detect(text)
        and detect(span)
    ):
        # a report that set the whole output in one inline-code span ("`nvbandwidth Version:
        # v0.8" on its first line, "...kernels.cu:406`" on its last), a line of its own prose
        # above it or not, where only without the two backticks a format shows: they are taken
        # off
        text = span
        notes.append("the backticks of one inline-code span around the whole output taken off")
    text, n = _code_bullets(text)
    if n:
        # a report that listed a log's lines as Markdown bullets of inline code ("- `[rank7]:
        # RuntimeError: ...`"): each line's own text, its bullet and backticks taken off
        notes.append(f"{n} line(s) listed as Markdown bullets of inline code read as the lines")
    if "**" in text and "NCCL " in text and _BOLD_NCCL_RE.search(text):
        # a Markdown page that set NCCL's lines in bold ("... include/shm.h:28 **NCCL WARN Call
        # to posix_fallocate failed : No space left on device**"): the markers taken off
        text, n = _BOLD_NCCL_RE.subn(r"\1", text)
        notes.append(f"{n} NCCL line(s) set in Markdown bold ('**') read without the markers")
    if "pid=" in text and (glued := _GLUED_WORKER_RE.findall(text)) and len(glued) >= GLUED_MIN:
        # a page that joined a Ray or vLLM worker's lines into one ("...uint8)(VllmWorker rank=0
        # pid=234357) ERROR 09-26 ..."): each record back on a line of its own, at its prefix
        text, n = _GLUED_WORKER_RE.subn("\n", text)
        notes.append(
            f"{n} worker record(s) joined onto the lines before them (their line breaks lost) "
            "split at their '(... pid=N)' prefixes: line numbers from there on count them"
        )
    if (
        "\\n" in text
        and (escaped := _json_escaped_output(text)) is not None
        and not detect(text)
        and detect(escaped[0])
    ):
        # a tool's output kept as one JSON string, its line breaks escaped ('"raw_output":
        # "Successfully ran diagnostic for group.\n+---...', a health check's report, Ansible's
        # "stdout"), where only its lines show a format (a JSON the importer reads as such, a
        # torchelastic error file's "message", stays one): that string's lines read in place of
        # its line
        text, expanded = escaped
        notes.append(
            f"an output kept as one JSON string on line {expanded[0][0]} (its line breaks "
            f"written '\\n') read as the {expanded[0][1]} lines it holds: line numbers from there "
            "on count them"
            if len(expanded) == 1
            else f"{len(expanded)} outputs kept as JSON strings (their line breaks written '\\n'), "
            + ", ".join(f"on line {no} as the {count} lines it holds" for no, count in expanded)
            + ", each read in its line's place: line numbers from the first on count them"
        )
    if '"' in text and (strings := _json_string_lines(text)) is not None:
        # a tool's output as Ansible (or any JSON) printed it, a string a line ("stdout_lines":
        # '        "  JOBID PARTITION ...",'): each line's string read as the line it was
        text, n = strings
        notes.append(
            f"{n} line(s) read as the JSON strings they were printed as (quotes taken off)"
        )
    if "\\n" in text and (unpacked := _escaped_output(text)) is not None:
        text, n = unpacked
        notes.append(
            f"{n} line(s) carrying an output in one string, its line breaks escaped ('\\n'), "
            "read as the lines it holds: line numbers from there on count them"
        )
    lines = text.split("\n")
    shown = [line for line in lines if line.strip()]
    # (a Rich traceback's box draws "│" at each line's start and end: the traceback's, no pane's)
    rich_box = "│" in text and logs.RICH_TRACEBACK_RE.search(text) is not None
    for what, prefix in _LINE_PREFIXES:
        if rich_box and what.startswith("a terminal pane's"):
            continue
        if what == "kubectl's pod prefix" and _hwlog_pods_kept(shown, prefix):
            continue
        names: frozenset[str] | None = None
        if prefix is _COMPOSE_PREFIX_RE:
            if _NHC_SUMMARY_RE.search(text):
                continue  # a distributed NHC's "node | result" lines: the prefix is the node's
            names = _compose_names(shown)
        marked = sum(1 for line in shown if _prefixed(prefix, line, names))
        if shown and marked >= QUOTED_SHARE * len(shown):
            lines = [
                prefix.sub("", line, count=1) if _prefixed(prefix, line, names) else line
                for line in lines
            ]
            text = "\n".join(lines)
            notes.append(f"{what} taken off {marked} line(s) before reading")
            break
    else:
        if host := _pdsh_box_host(shown):
            lead = f"{host}: "
            marked = sum(1 for line in lines if line.startswith(lead))
            lines = [line[len(lead) :] if line.startswith(lead) else line for line in lines]
            text = "\n".join(lines)
            notes.append(f"pdsh's host prefix '{host}: ' taken off {marked} line(s) before reading")
            prefix_hosts.append(host)
        elif (one := _pdsh_one_host(text)) is not None:
            host, text = one
            lines = text.split("\n")
            notes.append(
                f"pdsh's host prefix '{host}: ' taken off all {len(shown)} line(s) before reading"
            )
            prefix_hosts.append(host)
        elif tag := wrapper_tag(lines):
            marked = sum(1 for line in lines if line.startswith(tag))
            lines = [line[len(tag) :] if line.startswith(tag) else line for line in lines]
            text = "\n".join(lines)
            notes.append(
                f"a wrapper's label {tag.strip()!r} taken off {marked} line(s) before reading"
            )
    # (the line's end looked at first: a search from every blank of a long run is quadratic)
    if (
        not rich_box
        and (right := [line for line in shown if line.rstrip().endswith(_PANE_BARS)])
        and len(right) >= QUOTED_SHARE * len(shown)
    ):
        # a left tmux (or screen) pane's copy: its vertical border at each line's end
        lines = [
            line.rstrip()[:-1].rstrip() if line.rstrip().endswith(_PANE_BARS) else line
            for line in lines
        ]
        text = "\n".join(lines)
        notes.append(f"a terminal pane's border '│' taken off the end of {len(right)} line(s)")
    if _editor_numbered(lines):
        # an editor's (or `cat -n`'s) line numbers before every line, the numbers running on
        # one by one: taken off with the one space (or tab) after them
        lines = [_EDITOR_NUMBER_RE.sub("", line, count=1) for line in lines]
        text = "\n".join(lines)
        notes.append(f"an editor's line numbers taken off {len(lines)} line(s) before reading")
    if (
        (spaced := _double_spaced(lines)) is not None
        and not detect(text)
        and detect("\n".join(spaced))
    ):
        # a web page's scrape that put a blank line after every line of an output (ibstat's
        # "CA 'mlx5_0'", "", "CA type: MT4123", ""): one blank taken out after each line, so
        # the output's own blocks read; a blank line it had itself stays (only where no format
        # shows before and one does after: a log read in place keeps its line numbers)
        lines = spaced
        text = "\n".join(lines)
        notes.append(
            "a copy with a blank line after every line read without them: line numbers count "
            "the lines left"
        )
    if indent := _common_indent(lines):
        text = "\n".join(line[len(indent) :] if line.strip() else line for line in lines)
        notes.append(f"the indent every line shares ({len(indent)} character(s)) taken off")
    if "```" in text and _GLUED_FENCE_RE.search(text):
        # a Markdown fence glued to the output's first line ("```Allocatable:"): no language tag
        # holds a colon or an equals sign
        text, n = _GLUED_FENCE_RE.subn(r"\1", text)
        notes.append(f"{n} Markdown fence(s) glued to a line's start taken off")
    if "\x1b[" in text or "^[[" in text:
        text, n = _COLOUR_RE.subn("", text)
        if n:
            notes.append(f"{n} terminal colour code(s) taken off before reading")
    if "^M" in text:
        text, n = _CARET_CR_RE.subn("", text)
        if n:
            notes.append(f"{n} carriage return(s) shown as '^M' taken off line ends")
    text, joined, width = _join_hard_wraps(text)
    if joined:
        notes.append(
            f"{joined} line(s) a terminal wrapped at {width} columns joined to the line above "
            "(each kept on its own line number, the continuation's left empty)"
        )
    if text.lstrip().startswith(">") or "\n>" in text or " >" in text:
        # (the quote may open below a line of its own: the prompt that printed it)
        text, soft = _join_soft_breaks(text)
        if soft:
            notes.append(
                f"{soft} quoted-printable soft line break(s) ('=' at a quoted line's end, the "
                "rest on the next line unquoted) joined to the line above (each kept on its own "
                "line number, the continuation's left empty)"
            )
        counted = sum(1 for line in text.split("\n") if line.strip())  # blank lines aside
        quoted = len(_QUOTE_RE.findall(text))
        if quoted >= QUOTED_SHARE * counted:
            text = _QUOTE_RE.sub("", text)
            notes.append(f"read as a Markdown quote: '>' taken off {quoted} line(s)")
            for _ in range(QUOTE_LEVELS_MAX - 1):
                # a reply to a reply ("> > [  5] ..."): each level of the quote taken off
                deeper = len(_QUOTE_RE.findall(text))
                if not deeper or deeper < QUOTED_SHARE * counted:
                    break
                text = _QUOTE_RE.sub("", text)
                notes.append(f"a quote inside the quote: '>' taken off {deeper} line(s) more")
            text, n = _code_bullets(text)  # (a quoted report's bullets, seen once unquoted)
            if n:
                notes.append(
                    f"{n} line(s) listed as Markdown bullets of inline code read as the lines"
                )
        elif (
            quoted >= QUOTED_MIN_LINES
            and not detect(text)
            and detect(unquoted := _QUOTE_RE.sub("", text))
        ):
            # an output quoted in part (perftest's settings block behind '>', its address
            # lines pasted as is): read once the marks are off, where only then a format shows
            text = unquoted
            notes.append(f"read as a Markdown quote in part: '>' taken off {quoted} line(s)")
    if "#" in text[:200]:
        # a table kept as comments (a script's docstring, a Python or shell "# " before each
        # row): only table rows ("# |", "# +"), so nccl-tests' own "#" lines never qualify
        rows = [line for line in text.splitlines() if line.strip()]
        commented = sum(1 for line in rows if _COMMENTED_ROW_RE.match(line))
        # the comment's own words ("# output e.g.", "# ...") count once table rows are there
        hashed = sum(1 for line in rows if line.lstrip().startswith("#"))
        if rows and (
            commented >= QUOTED_SHARE * len(rows)
            or (commented >= MIN_COMMENTED_ROWS and hashed >= QUOTED_SHARE * len(rows))
        ):
            text = _COMMENT_RE.sub("", text)
            notes.append(f"read as comments: '#' taken off {commented} line(s)")
        elif (
            rows
            and hashed >= QUOTED_SHARE * len(rows)
            and not _NCCL_TESTS_HASH_RE.search(text)
            and (
                logs.is_program_log(uncommented := _COMMENT_RE.sub("", text))
                or (bool(detect(uncommented)) and not detect(text))
            )
        ):
            # a log pasted as comments ("# WARNING:torch.distributed.run:", "# INFO:torch.
            # distributed.launcher.api:..."): a program's log once its "#" are off (nccl-tests'
            # own "#" lines are its output, kept)
            text = uncommented
            notes.append(f"read as comments: '#' taken off {hashed} line(s)")
    return text, notes, prefix_hosts


_NCCL_TESTS_HASH_RE = re.compile(
    r"^[ \t]*#[ \t]*(?:nThread\b|Using devices|Rank[ \t]+\d+ Group|Avg bus bandwidth|Out of bounds)",
    re.M,
)
"""nccl-tests' own "#" lines: a file that holds them is its output, its "#" kept."""


def load_text(text: str, source: str, name: str = "") -> EvidenceFacts:
    """One output held in memory (a host tool run live): detected and parsed as a file would be;
    ``source`` names it in every fact and in its FileReport."""
    report = FileReport(path=source, status="unknown")
    out = EvidenceFacts(files=[report])
    if not text.strip():
        report.status = "empty"
        report.messages.append(Message(line=0, message="empty output"))
        return out
    _parse(text, report, out, name)
    _perftest_at_port_rate(out.hca_ports)
    return out


def from_tool_outputs(nodes: dict[str, dict[str, dict[str, Any]]]) -> EvidenceFacts:
    """What the host tools printed on each node during preflight (``{node: {command: {output,
    ...}}}``), read by the same parsers, and judged by the same rules, as imported files.

    Each command's output is a source of its own (``node0: npu-smi info``); a node's hccn_tool
    outputs are read together, each after its command line, so every port knows its device.
    """
    out = EvidenceFacts()
    for node, tools in sorted(nodes.items()):
        hccn = []
        for command, result in tools.items():
            text = str(result.get("output") or "")
            if "hccn_tool" in command:
                if text.strip():
                    hccn.append(f"{command}\n{text}")
                continue
            out.extend(load_text(text, f"{node}: {command}", command))
        if hccn:
            out.extend(load_text("\n".join(hccn), f"{node}: hccn_tool", "hccn_tool"))
    return out


_PASTED_FORMATS = ("ascend_dmi", "reschedule", "nic_legend")
"""Formats a job's log may hold among its own lines: the log readers still look at the rest."""
_INVENTORY_FORMATS = (
    "nvidia_smi_list", "nvidia_smi_mig_instances", "numactl", "prechecks", "ethtool_settings",
    "iperf3", "k8s_node_devices", "ibv_devices", "mst_status", "netif", "libfabric", "pingpong",
    "lspci_list",
)  # fmt: skip
"""Short outputs a job script prints before its program's own lines (nvidia-smi -L, accelerate
env, numactl -H ...) and a bug report pastes above a traceback: the log readers still read the
file, its exception not lost to them."""


def _without_pasted(text: str, pasted: list[str]) -> str:
    """``text`` with a pasted output's own lines blanked (numbered as before): what the log
    readers read of a job's log that holds one."""
    lines = text.split("\n")
    rescheduled = reschedule.own_lines(text) if "reschedule" in pasted else set()
    return "\n".join(
        ""
        if (
            no in rescheduled
            or ("ascend_dmi" in pasted and ascend_dmi.is_own_line(line))
            or ("nic_legend" in pasted and nvidia_smi.is_nic_legend_line(line))
        )
        else line
        for no, line in enumerate(lines, start=1)
    )


def _parse(text: str, report: FileReport, out: EvidenceFacts, name: str) -> None:
    """Detect ``text``'s formats and parse each into ``out``, reporting into ``report``."""
    source = report.path
    formats = detect(text)
    untagged_text: str | None = None  # the text without its tags, for formats found only so
    only_untagged: set[str] = set()
    tag_note: Message | None = None  # (said after the formats' own notes: nothing was skipped)
    if formats in ([], ["log"]) and _tagged(text):
        # every line behind a launcher's tag ("(head, rank=0, pid=21170) # nThread ...",
        # "        [1,0]<stdout>:# Using devices"): look again without the tags; the log and
        # nccl-tests parsers take them off themselves, the others read the untagged text
        untagged = "\n".join(strip_launcher_prefix(line)[0] for line in text.splitlines())
        again = detect(untagged)
        only_untagged = {f for f in again if f not in formats}
        untagged_text = untagged
        formats = [f for f in _SIGNATURES if f in formats or f in again]
    elif any(f != "log" for f in formats) and (shared := _shared_worker_prefix(text)):
        # a job runner's worker tag on every line ("(simple-workload, pid=4150) | NVIDIA-SMI
        # ..." as SkyPilot streams a job's output): a tool's table read without it
        untagged_text = "\n".join(
            line.replace(shared, "", 1) if line.lstrip().startswith(shared) else line
            for line in text.splitlines()
        )
        only_untagged = {f for f in formats if f != "log"}
        tag_note = Message(
            line=0, message=f"the worker tag {shared!r} every line carries taken off"
        )
    if "faultdiag" in formats and len(formats) > 1:
        # ascend-fd's report quotes its key logs (an hccn_tool command and its answer) inside
        # the table: another format counts only where it stands outside the table's rows
        outside = "\n".join(
            "" if line.lstrip().startswith("|") else line for line in text.splitlines()
        )
        again = detect(outside)
        formats = [f for f in formats if f == "faultdiag" or f in again]
    if "hccn_tool" in formats and "hccn_tool" not in text and _LLDP_TOOL_RE.search(text):
        # open-lldp's lldptool (or lldpctl) prints the LLDP TLVs in the layout hccn_tool's
        # -lldp copies: a host NIC's neighbour, no NPU port
        formats = [f for f in formats if f != "hccn_tool"] + ["lldp_host"]
    if (
        "npu_smi_info" in formats
        and "ascend_notes" in formats
        and ascend_notes.process_table_alone(text)
    ):
        # npu-smi info's process table copied alone with its own header row ("| NPU  Chip |
        # Process id | ..."): no chip table to read, its rows are ascend_notes' to note
        formats = [f for f in formats if f != "npu_smi_info"]
    if (
        "device_query" in formats
        and "simple_p2p" in formats
        and not _SIMPLE_P2P_OWN_RE.search(text)
    ):
        # deviceQuery.cpp prints simpleP2P's "> Peer access from NAME (GPUi) -> NAME (GPUj) :
        # Yes|No" lines for its own pairs: they are deviceQuery's where no line of simpleP2P's
        # own (its banner, its copy, its result) is in the file
        formats = [f for f in formats if f != "simple_p2p"]
    if "ping" in formats and "hccn_tool" in formats and "hccn_tool" not in text:
        formats = [f for f in formats if f != "hccn_tool"]  # a host's ping, not an NPU port's
    if "mlnx_qos" in formats and "hccn_tool" not in text:
        # mlnx_qos's PFC table has hccn_tool -pfc's layout: a host NIC's settings, no NPU port
        formats = [f for f in formats if f != "hccn_tool"]
    if "perftest" in formats and "hccn_tool" in formats and "-roce_test" in text:
        formats = [f for f in formats if f != "perftest"]  # hccn_tool's roce_test runs perftest
    if formats == ["nccl_tests"] and _FOREIGN_TABLE_RE.search(text):
        formats = []  # rows under another tool's header (AWS Neuron's nccom-test), not nccl-tests
    if (
        "nvidia_smi_topo" in formats
        and _P2P_ROW_RE.search(text)
        and _LINK_ROW_RE.search(text)
        and nvidia_smi.P2P_HEAD_RE.search(text)
    ):
        # `topo -m` and `topo -p2p` pasted together (a rig report's two blocks): the links and
        # each pair's P2P status both read, the p2p block's rows being no link rows of topo -m's
        formats.append("nvidia_smi_p2p")
    elif "nvidia_smi_topo" in formats and (other := _other_gpu_matrix(text)):
        formats = [f for f in formats if f != "nvidia_smi_topo"]
        at, what = other
        if what.startswith("an nvidia-smi topo -p2p"):
            formats.append("nvidia_smi_p2p")  # read as what it is: each pair's P2P status
        else:
            report.messages.append(
                Message(
                    line=text.count("\n", 0, at) + 1,
                    message=f"{what}, not nvidia-smi topo -m's links: not read",
                )
            )
    # a diagnosis's output or a ConfigMap a job's log printed (a pre-flight check, a scheduler
    # quoting its records) leaves the rest of the file to be read as the log it is
    if "pingpong" in formats and "perftest" in formats:
        formats = [f for f in formats if f != "pingpong"]  # (perftest's own address lines)
    if "lspci_list" in formats and "lspci_link" in formats:
        formats = [f for f in formats if f != "lspci_list"]  # (lspci -v's headings: read with it)
    if "lspci_acs" in formats and "lspci_link" in formats:
        formats = [f for f in formats if f != "lspci_acs"]  # (lspci -vvv's ACSCtl: read with it)
    if "nic_legend" in formats and len([f for f in formats if f != "log"]) > 1:
        # a matrix's legend, read with it (a job's log that printed a legend alone keeps it)
        formats = [f for f in formats if f != "nic_legend"]
    if (
        "nvidia_smi" in formats
        and "log" not in formats
        and logs.TRACEBACK_HEADING in text
        and logs.python_exception(numbered_lines(text)) is not None
    ):
        # a job's script that printed nvidia-smi's table before its program raised (a pod's
        # log: "Running nvidia-smi", the table, then every rank's ModuleNotFoundError): the
        # table is read and the program's exception too
        formats.append("log")
    pasted = [f for f in formats if f in _PASTED_FORMATS]
    inventory = [f for f in formats if f in _INVENTORY_FORMATS]
    formats = [f for f in formats if f not in _PASTED_FORMATS and f not in _INVENTORY_FORMATS]
    if not formats and may_match(_NCCL_DEBUG_WORDS, text) and _NCCL_DEBUG_RE.search(text):
        formats = ["log"]
    if not formats and "] HCCL(" in text and logs.HCCL_PLOG_RE.search(text):
        formats = ["log"]  # HCCL's own plog lines and no failure among them: a run's log
    if not formats and "[ERROR] " in text and logs.CANN_PLOG_ERROR_RE.search(text):
        formats = ["log"]  # another CANN module's ERROR lines (the runtime's ...): a plog
    if (
        not formats
        and "] " in text
        and len(logs.CANN_PLOG_LINE_RE.findall(text)) >= logs.MIN_LOG_LINES
    ):
        formats = ["log"]  # another CANN module's plog lines (TorchAir's, GE's), none an ERROR
    if (
        not formats
        and ("do tiling failed" in text or "Check Nnopbase" in text)
        and logs.NPU_OP_FAILURE_RE.search(text)
    ):
        formats = ["log"]  # CANN's op framework's lines of a failed aclnn operator, bare
    if (
        formats
        and set(formats) <= {"ascend_versions", "npu_smi_query"}
        and "] " in text
        and len(logs.CANN_PLOG_LINE_RE.findall(text)) >= logs.MIN_LOG_LINES
    ):
        # a collection's package versions or npu-smi answers above a plog's lines (a forum post
        # of a card's versions, then what set_device logged): the plog read as well
        formats.append("log")
    if (
        not formats
        and (logs.TRACEBACK_HEADING in text or logs.FATAL_PYTHON in text or 'File "' in text)
        and logs.python_exception(numbered_lines(text)) is not None
    ):
        formats = ["log"]  # a run that ended in a Python exception: its log, read as one
    if (
        not formats
        and (
            # (a run's lines above it: a traceback fragment alone says nothing of a run)
            (
                logs.TRACEBACK_HEADING in text
                and text.split(logs.TRACEBACK_HEADING, 1)[0].strip(" \t\n[]:rank0123456789")
            )
            # (or a worker's prefix on its frames: Ray's "(LLMRayActor pid=103282)   File ...",
            # the copy's first line maybe cut before it)
            or any(WORKER_PREFIX_RE.match(t.lstrip()) for t in text.lstrip().splitlines()[:3])
        )
        and logs.cut_traceback(numbered_lines(text)) is not None
    ):
        formats = ["log"]  # a run's log that ends inside a traceback: where it raised is read
    if not formats and "│" in text and logs.rich_traceback(numbered_lines(text)) is not None:
        formats = ["log"]  # a Rich traceback's box (or a copy cut inside it): where it raised
    if not formats and logs.PG_WARNING_RE.search(text):
        formats = ["log"]  # a process group's own warnings and no failure: a run's log
    if not formats and logs.BENCH_SERVE_HEADING in text and logs.has_bench_serve_report(text):
        formats = ["log"]  # vLLM's serving benchmark's report, alone: its client's output
    if not formats and logs.AIS_PERF_HEADING in text and logs.has_ais_perf_report(text):
        formats = ["log"]  # AISBench's performance report, alone: its client's output
    if not formats and logs.c10d_info_only(text):
        formats = ["log"]  # the c10d store's own INFO and debug lines and no failure: a run's log
    if (
        not formats
        and logs.has_program_traceback(text)
        and logs.first_error_line(numbered_lines(text)) is not None
    ):
        # a program's traceback (its frames, or C++'s uncaught exception) and a line that says
        # what failed, in no form read above (ONNX Runtime's CANN failure, a compiler's error
        # raised through Python, Paddle's EnforceNotMet): its first error line, as written
        formats = ["log"]
    if (
        not formats
        and 'File "' in text
        and (cut := logs.cut_traceback(numbered_lines(text))) is not None
        and cut.rank is not None
    ):
        # a copy of one rank's traceback frames alone ("[rank8]:   File ..."): that rank raised
        # there (an untagged fragment says no more than that a program did: not read)
        formats = ["log"]
    if not formats and logs.MLLOG_PREFIX in text and logs.has_mllog_run_stop(text):
        # MLPerf's logger's records alone (a result log's end, its run_stop): read where no
        # NCCL line beside them made the file a log (round WWWW set 726)
        formats = ["log"]
    if not formats and logs.has_install_failure(text):
        formats = ["log"]  # an install's output that failed (a CANN installer's, dpkg's)
    if not formats and logs.has_package_installed(text):
        formats = ["log"]  # an Ascend driver's or firmware's install, its installer's last words
    # the log readers read a file with a pasted output's own lines blanked (numbered as before)
    log_text = _without_pasted(text, pasted) if pasted else text
    if not formats and (
        logs.is_program_log(log_text)
        or logs.is_error_fragment(log_text)
        or logs.is_short_error_paste(log_text)
    ):
        # a program's log in no form above (what is left of it beside a pasted output): its
        # first error line, if any
        formats = ["log"]
    formats = [*pasted, *inventory, *formats]
    if not formats:
        report.messages.append(
            Message(
                line=0,
                message="no supported format recognised (nccl-tests, hccl_test, npu-smi, "
                "nvidia-smi topo, hccn_tool, hccn.conf, rank table, ibstat, ibv_devinfo, ibstatus, perftest, "
                "ibdev2netdev, iblinkinfo, ibnetdiscover, dcgmi diag, dcgmi health, dcgmi nvlink -e, dcgmi stats -j, ibqueryerrors, ascend-fd diag, asys diagnose, asys info -r=status, ascend-dmi --dg, ascend-dmi -f, "
                "MindCluster reschedule records, MindCluster DeviceInfo and device fault events, "
                "npu-smi sample CSV, "
                "npu-smi template-info, "
                "nvidia-smi topo -m's NIC legend, "
                "hccn_tool's vNIC query, npu-exporter metrics, dcgm-exporter metrics, nvidia-smi -mig's "
                "pending warning, npu-smi tls-cert, nvidia-smi -q -x, "
                "nvidia-smi --query-gpu CSV, dcgmi dmon, nvidia-smi dmon, DCGM's ubergemm, gpu-burn, "
                "DCGM's profiling module error, "
                "hccn_tool -g -process / -show_list, msnpureport config, "
                "msnpureport's hisi_logs/device_info.txt, "
                "Ascend packages' version.info, ethtool -S, show_counters and rdma statistic (RDMA hw counters), ethtool IFACE, iperf3, multi-nic-cni's connection check, nvidia-smi -L, nvidia-smi mig -lgip / -lgi, ibv_devices, numactl -H, ip link / ip addr / ifconfig, NCCL's topology XML, fi_info, fabtests' ping-pong, ibv_rc_pingpong, ucx_perftest, qperf, mst status (plain or -v), kubectl describe node's devices, ds_report, horovodrun's checks, accelerate env, ray status, kubectl get jobs and events, lspci -v, lspci's listing, lspci -vvv's ACSCtl lines, mlxconfig query and set, mlxfwmanager / mlxup, lscpu, ibdiagnet, mlnx_qos, ping, ibping, ethtool -m, ethtool -i, "
                "msprof-analyze advisor tables, msprof op_summary CSV, busGrind, "
                "HCCL/NCCL/torch failure log)",
            )
        )
        return
    failed = []
    warned = bool(report.messages)  # bytes replaced while decoding: a line was not read as is
    for fmt in formats:
        try:
            warnings = _CONVERTERS[fmt](
                log_text
                if fmt == "log"
                else untagged_text
                if untagged_text is not None and fmt in only_untagged and fmt != "nccl_tests"
                else text,
                source,
                out,
                name,
            )
        except ParseError as e:
            failed.append(fmt)
            report.messages.append(Message(line=e.line, message=f"{fmt}: {e.message}"))
            continue
        report.formats.append(fmt)
        for w in warnings:
            warned = warned or w.skipped
            report.messages.append(Message(line=w.line, message=f"{fmt}: {w.message}"))
    if tag_note is not None:
        report.messages.append(tag_note)
    _all_down_beside_another_device(out, source)
    _mark_gpu_rail_down(out, source)
    if (
        "hccn_tool" in failed
        and "ascend_notes" in report.formats
        and any(m.message.startswith("ascend_notes: hccn_tool") for m in report.messages)
    ):
        # the command line named hccn_tool; its answer is one the notes read (-version,
        # -show_res, -credit ...), not a port's state the hccn_tool reader looked for
        failed.remove("hccn_tool")
        report.messages = [m for m in report.messages if not m.message.startswith("hccn_tool: ")]
    if "log" in failed and report.formats:
        # a word the log readers look for stood in another format's output (kubelet's
        # UnexpectedAdmissionError in a pod table): the log readers found no failure line, and
        # the format that knows the output read it
        failed.remove("log")
        report.messages = [m for m in report.messages if not m.message.startswith("log: ")]
    if report.formats:
        report.messages += [Message(line=no, message=note) for no, note in _silent_commands(text)]
    if not report.formats:
        report.status = "unreadable"
    elif failed or warned:
        report.status = "partial"
    else:
        report.status = "read"


def _all_down_beside_another_device(out: EvidenceFacts, source: str) -> None:
    """Take ``all_down`` off a listing's ports where the same copy shows another RDMA device of
    that host at work (a perftest run on ``-d mlx5_0`` beside ``ibstat`` of a VF, mlx5_8, that
    is Down): the listing is then not all the host has, and its Down ports are spares beside it
    (evidence-hca-port-not-active's warning)."""
    mine = [p for p in out.hca_ports if p["source"] == source]
    down = [p for p in mine if p.get("all_down")]
    for host in {p.get("host") for p in down}:
        listed = [p for p in down if p.get("host") == host]
        cas = {p["ca"] for p in listed}
        if any(
            p["tool"] not in rdma.PORT_LISTING_TOOLS
            and p["ca"] not in cas
            and p["ca"] != rdma.NO_DEVICE
            and p.get("host") in (None, host)
            for p in mine
        ):
            for p in listed:
                p["all_down"] = None


def _mark_gpu_rail_down(out: EvidenceFacts, source: str) -> None:
    """``gpu_rail`` (the GPUs named) on a copy's RDMA ports that are not active where the same
    copy's ``nvidia-smi topo -m`` puts their device on a GPU's own PCIe switch (PIX or PXB:
    ``GDR_NEAR_PATHS``, the NIC that GPU's GPU Direct RDMA traffic goes through) and no port of
    that device in the copy is active: that GPU has lost a rail the machine was built with, not
    a spare port left uncabled. (A device with another port active still carries the GPU's
    traffic; a NIC only farther from the GPUs may be a spare.)"""
    tables = [t for t in out.topologies if t["source"] == source and t["tool"] == "nvidia-smi"]
    if not tables:
        return
    near: dict[str, set[str]] = {}
    for t in tables:
        names: dict[str, str] = t.get("nics") or {}
        gpus, nics = _gpus_and_nics(t["links"])
        for gpu in gpus:
            for nic in nics:
                if t["links"][gpu].get(nic) in GDR_NEAR_PATHS:
                    # (the NIC legend's RDMA device, or an older driver's column named by it)
                    near.setdefault(names.get(nic, nic), set()).add(gpu)
    mine = [p for p in out.hca_ports if p["source"] == source and p["ca"] in near]
    for p in mine:
        if p.get("active") is not False:
            continue
        # (rdma link, ibstat and ibv_devinfo of one port: the other ports of its device, on
        # its host)
        device = [q for q in mine if q["ca"] == p["ca"] and q.get("host") == p.get("host")]
        if not any(q.get("active") for q in device):
            p["gpu_rail"] = sorted(near[p["ca"]], key=lambda gpu: (len(gpu), gpu))


_TOOL_COMMAND_RE = re.compile(
    r"^[ \t]*(?:\[[^\]\n]*\][#$][ \t]*|[$#][ \t]+)?(?:/\S*/)?(?P<cmd>"
    # a query (-g, either order of the 950's form), a ping's address, a pipe; not a set (-s)
    r"hccn_tool[ \t]+(?:-i[ \t]+\d+[ \t]+-\w+(?:[ \t]+-inet6)?[ \t]+-g"
    r"|-g[ \t]+-\w+[ \t]+-i[ \t]+\d+(?:[ \t]+-[up][ \t]+\d+)*)(?:[ \t]+address[ \t]+\S+)?"
    r"|npu-smi[ \t]+info(?:[ \t]+-[ticml](?:[ \t]+[\w-]+)?)*"
    r")(?P<pipe>[ \t]*\|[^\n]*)?[ \t]*$"
)
"""An npu-smi or hccn_tool query on a line of its own (nothing after it but a pipe), behind a
shell prompt or a path or neither (a collection script's dump names each command before its
answer)."""
_BARE_PROMPT_RE = re.compile(r"^[ \t]*\[[^\]\n]*\][#$][ \t]*$")


def _silent_commands(text: str) -> list[tuple[int, str]]:
    """Commands whose answer is not in the file: the next line that is not blank is another
    command (it printed nothing) or there is none (the copy ends there)."""
    lines = text.splitlines()
    notes = []
    for i, line in enumerate(lines):
        if (m := _TOOL_COMMAND_RE.match(line)) is None:
            continue
        after = next((lines[j] for j in range(i + 1, len(lines)) if lines[j].strip()), None)
        if after is None:
            notes.append(
                (i + 1, f"'{m['cmd']}': the copy ends at this command, its answer is not in it")
            )
        elif _TOOL_COMMAND_RE.match(after) or _BARE_PROMPT_RE.match(after):
            if m["pipe"]:
                notes.append(
                    (i + 1, f"'{m['cmd']}{m['pipe']}' printed nothing: its filter kept no line")
                )
            else:
                notes.append((i + 1, f"'{m['cmd']}' printed nothing: what it asks is unknown"))
    return notes


def _query_figure(answer: npu_smi.NpuQuery, key: str) -> tuple[float | None, int]:
    """An npu-smi answer's figure under ``key`` and its line (None where not printed or no
    figure)."""
    value = (answer.fields.get(key) or [""])[0]
    try:
        return float(value), answer.lines.get(key, answer.line)
    except ValueError:
        return None, answer.line


def _hccs_figures(answer: npu_smi.NpuQuery) -> tuple[int | None, str]:
    """``npu-smi info -t hccs``'s links in use (None where not printed) and its figures said
    with their lines: the links in use, the total bandwidth and each lane's value."""
    links, links_line = _query_figure(answer, "hccs link num in used")
    total_gbps, total_line = _query_figure(answer, "hccs total bandwidth(GB/s)")
    lanes = [
        (key.split()[1], values[0], answer.lines.get(key, answer.line))
        for key, values in answer.fields.items()
        if re.fullmatch(r"lane \d{1,3}", key) and values
    ]
    said = []
    if links is not None:
        said.append(f"{links:g} HCCS link(s) in use (line {links_line})")
    if total_gbps is not None:
        said.append(f"total bandwidth {total_gbps:g} GB/s (line {total_line})")
    if lanes:
        values = {value for _, value, _ in lanes}
        said.append(
            f"lanes {', '.join(n for n, _, _ in lanes)} "
            + (f"all {values.pop()}" if len(values) == 1 else ", ".join(v for _, v, _ in lanes))
            + f" (lines {lanes[0][2]}-{lanes[-1][2]})"
        )
    return (int(links) if links is not None else None), "; ".join(said)


SYS_KINDS = ("SYS", "SOC")
"""npu-smi's path through PCIe and the SMP link between NUMA nodes (SOC: older drivers' name)."""


def _legend_rules_out_hccs(legend: dict[str, str]) -> bool:
    """Whether the matrix's own legend says the board has no HCCS: npu-smi prints a legend of
    the link kinds its device has, HCCS in a 910B's ("HCCS = Connection traversing HCCS"), none
    in an Atlas 350 card's, whose pairs are UB or SYS (npu-smi command reference, "Querying the
    Topology of Multiple NPUs"; tests/data/evidence npu_smi_topo_910b.txt and
    npu_smi_topo_atlas350_col0.txt). No legend in the copy: it does not say."""
    return bool(legend) and not any(k.upper().startswith("HCCS") for k in legend)


_NPU_NUMBER_RE = re.compile(r"^NPU(\d{1,4})$", re.IGNORECASE)


def _numbered_as_hccs_server(links: dict[str, dict[str, str]]) -> bool:
    """Whether a matrix with no HCCS pair could still be an HCCS server's whose links are down:
    its NPUs (rows and columns) are NPU0 to NPU(n-1), n at least 4. Huawei's HCCS training
    servers join their NPUs in groups of four or eight numbered from 0 (CANN's distributed
    training notes, tfmigr1_000026: an Atlas training server's cards 0-3 and 4-7 are each one
    HCCS group, an Atlas A2 server has 8; Ascend Deployer's hccn guide, deployer_0024: an Atlas
    800T A2's eight NPU ports NPU0 to NPU7), and zstack-utility's all-SYS 910B sample is NPU0-7.
    PCIe cards carry no such numbering: tests/data/evidence npu_smi_topo_910b4_pcie_npu1.txt
    is NPU1, NPU3 ... NPU11; two cards (fewer than a group of four), or numbers with gaps, are
    no HCCS server's whole matrix. CPU affinity does not tell them apart: the zstack sample's
    NPUs are on two sockets' cores (0-23, 24-47) as PCIe cards are."""
    names = set(links) | {b for row in links.values() for b in row}
    numbers = sorted(int(m.group(1)) for n in names if (m := _NPU_NUMBER_RE.match(n)))
    return len(numbers) >= 4 and numbers == list(range(len(numbers)))


def _no_hccs_npus(
    links: dict[str, dict[str, str]], row_lines: dict[str, int], legend: dict[str, str]
) -> list[dict[str, Any]]:
    """An npu-smi matrix's NPU rows whose every link to another NPU is SYS: ``{npu, line,
    peers}``; none where the legend says the board has no HCCS (there every pair is SYS or UB
    by design)."""
    if _legend_rules_out_hccs(legend):
        return []
    if not any(
        kind.startswith("HCCS") for row in links.values() for kind in row.values()
    ) and not _numbered_as_hccs_server(links):
        return []
    found = []
    for npu, row in links.items():
        peers = [b for b, kind in row.items() if b != npu and kind != "X"]
        if peers and all(row[b] in SYS_KINDS for b in peers):
            found.append({"npu": npu, "line": row_lines.get(npu, 0), "peers": len(peers)})
    return found


def _sys_by_design(links: dict[str, dict[str, str]], legend: dict[str, str] | None = None) -> bool:
    """Whether an npu-smi matrix's SYS pairs are its board's design: no pair is joined by HCCS
    and the board has none (its legend names no HCCS, or its NPUs are paired by another direct
    link: UB, SIO, one PCIe switch), or the HCCS pairs make two or more full meshes of two or
    more NPUs and SYS joins exactly the pairs between them (Huawei's 8-NPU training servers of
    two groups of four: HCCS inside a group, PCIe between them, the CCE NPU affinity
    documentation). An all-SYS matrix with no legend is not: an HCCS board whose links are down
    prints it too (zstack-utility's samples of a 910B with its NPUs isolated through the BMC)."""
    npus = sorted(n for n in links if n.upper().startswith("NPU"))
    hccs = {
        frozenset((a, b))
        for a in npus
        for b, kind in links.get(a, {}).items()
        if b != a and b in links and kind.startswith("HCCS")
    }
    if not hccs:
        if legend is None or _legend_rules_out_hccs(legend):
            return True
        # (another direct link between NPUs: a board without HCCS)
        return any(kind not in (*SYS_KINDS, "X", "NA") for a in npus for kind in links[a].values())
    groups: list[set[str]] = []
    for a in npus:
        joined = [g for g in groups if any(frozenset((a, b)) in hccs for b in g)]
        merged = {a}.union(*joined)
        groups = [g for g in groups if g not in joined] + [merged]
    # (an NPU with no HCCS link beside groups that have them is no design: its links are down)
    if (
        len(groups) < 2
        or any(len(g) < 2 for g in groups)
        or any(frozenset((a, b)) not in hccs for g in groups for a in g for b in g if a < b)
    ):
        return False
    group_of = {n: i for i, g in enumerate(groups) for n in g}
    for a in npus:
        for b in npus:
            if a < b and group_of[a] != group_of[b]:
                if links.get(a, {}).get(b) not in ("SYS", "SOC", "PHB", "PIX", "PXB"):
                    return False
    return True


def _gbits(gbytes_s: float | None) -> float | None:
    return None if gbytes_s is None else gbytes_s * GBYTES_TO_GBITS


def _nccl(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    parsed = nccl_tests.parse(text)
    # the hosts its NCCL debug lines name, as for a log of them
    out.log_hosts.extend({"source": source, "host": host} for host in parsed.debug_hosts)
    # its NCCL debug lines' channels and paths, as a log of them says (notices, no failure)
    for ev in logs.nccl_debug_notices(text):
        _add_failure(out, source, ev)
    # A file named after its binary (all_reduce_perf.log) names the op the log itself did not.
    m = nccl_tests.BINARY_RE.search(name)
    notes: list[ParseWarning] = []
    for table in parsed.tables:
        op_from = "log"
        if table.op == "unknown" and m:
            table.op, op_from = nccl_tests.BINARIES[m.group(1)], "file name"
        elif table.op == "unknown" and table.op_from_columns:
            table.op, op_from = table.op_from_columns, "columns"
            notes.append(
                ParseWarning(
                    line=table.header_line,
                    message=f"the log never names its binary: op {table.op} read from the "
                    "table's redop, root, size against count and in-place check cells",
                    skipped=False,
                )
            )
        elif table.op == "unknown":
            op_from = "none"
        if op_from == "none" and table.rows and not table.mscclpp:
            notes.append(
                ParseWarning(
                    line=table.header_line,
                    # (op_from_columns: which ops' cells are alike, from nccl-tests' sources)
                    message="the op is unknown: the log never names its binary and the table's "
                    "cells do not tell one nccl-tests op; a file named after its binary "
                    "(all_reduce_perf.log, all_gather_perf.log ...) gives it",
                    skipped=False,
                )
            )
        if (
            table.rows
            and not table.checks_left_out
            and all(
                nccl_tests.unchecked(row.out_of_place) and nccl_tests.unchecked(row.in_place)
                for row in table.rows
            )
        ):
            # nccl-tests run with -c 0 ("validation: 0" in its header) prints N/A for every
            # size's check: nothing says the results were right
            notes.append(
                ParseWarning(
                    line=table.header_line,
                    message="the run did not check its results (N/A in every check cell: "
                    "validation off, -c 0): no correctness verdict from it",
                    skipped=False,
                )
            )
        if (uncounted := _uncounted_in_place_errors(table)) is not None:
            notes.append(uncounted)
        # several runs in one log: each table has the ranks and hosts its own run listed (a
        # one-GPU run after two-GPU ones, two nodes' runs of a binary built without MPI)
        own = len(parsed.tables) > 1 and (table.run_ranks is not None or table.run_unlisted)
        hosts = table.run_hosts if own else parsed.hosts
        if len(hosts) > 1 and (said := _busbw_without_verdict(table, len(hosts))) is not None:
            notes.append(said)
        results = []
        for row in table.rows:
            for in_place, timing in ((False, row.out_of_place), (True, row.in_place)):
                if timing is None:
                    continue
                results.append(
                    {
                        "op": table.op,
                        "dtype": row.dtype,
                        "algorithm": parsed.algorithm,
                        "in_place": in_place,
                        "bytes": row.size_bytes,
                        "count": row.count,
                        "time_us_p50": timing.time_us,
                        "algbw_gbps": _gbits(timing.algbw_gbytes_s),
                        "busbw_gbps": _gbits(timing.busbw_gbytes_s),
                        "wrong": timing.wrong,
                    }
                )
        ranks = table.run_ranks if own else parsed.ranks
        if ranks is None and (implied := nccl_tests.ranks_from_bus_factor(table)) is not None:
            # a copy without the "# Rank N" lines: busbw over algbw is the op's bus factor of n
            ranks = implied[0]
            notes.append(
                ParseWarning(
                    line=table.header_line,
                    message=f"{ranks} ranks, read from busbw / algbw = {implied[1]:.4f} ({table.op}'s "
                    "bus factor in nccl-tests' PERFORMANCE.md): the log does not list its ranks",
                    skipped=False,
                )
            )
        out.benchmarks.append(
            _benchmark(
                source=source,
                tool="nccl-tests",
                op=table.op,
                ranks=ranks,
                hosts=hosts,
                dtype=table.rows[0].dtype if table.rows else "unknown",
                algorithm=parsed.algorithm,
                complete=table.complete,
                results=results,
                footer_gbps=_gbits(table.avg_busbw_gbytes_s),
                failed_checks=_nccl_failed_checks(table),
                min_bytes=table.min_bytes,
                max_bytes=table.max_bytes,
                sizes_asked=table.sizes_asked(),
                progress=table.progress(),
                ranks_listed=parsed.ranks_listed,
                op_from=op_from,
                hosts_complete=parsed.hosts_complete,
                solo_hosts=parsed.solo_hosts,
                shared_gpus=parsed.shared_gpus,
                checks_left_out=table.checks_left_out,
                # (a run that listed no rank has none of the other runs' GPUs)
                gpu_models={} if table.run_unlisted else dict(Counter(parsed.gpu_models.values())),
                nccl_version=parsed.nccl_version,
            )
        )
    _slower_reruns(out.benchmarks[len(out.benchmarks) - len(parsed.tables) :], parsed.tables)
    return sorted([*parsed.warnings, *notes], key=lambda w: w.line)


RERUN_SLOWER_RATIO = 2.0
"""How many times a run's average bus bandwidth another run of the same op, ranks and sizes in
one file must reach for this one to be called slower: two runs of one benchmark on one cluster
vary by a few percent; half the figure is a change in the cluster (a kernel, a setting, a link),
the advisor's threshold to look, not one nccl-tests defines."""


def _slower_reruns(benchmarks: list[dict[str, Any]], tables: list[nccl_tests.Table]) -> None:
    """Mark each run of a file that another run of the same op, ranks and sizes outpaced by
    ``RERUN_SLOWER_RATIO`` or more (a user's paste of the same test before and after a change)."""
    same: dict[tuple[Any, ...], list[tuple[dict[str, Any], int]]] = {}
    for bench, table in zip(benchmarks, tables, strict=True):
        if bench["avg_busbw_gbps"] is None or bench["min_bytes"] is None or bench["ranks"] is None:
            continue  # (runs of ranks unknown are not known to be the same test)
        # (the sizes run, not only their bounds: a -f 2 sweep from 8 B averages small sizes that
        # a -i 2G step never runs)
        key = (
            bench["op"],
            bench["ranks"],
            bench["min_bytes"],
            bench["max_bytes"],
            table.step_factor,
            table.step_bytes,
        )
        same.setdefault(key, []).append((bench, table.header_line))
    for runs in same.values():
        best, line = max(runs, key=lambda r: r[0]["avg_busbw_gbps"])
        for bench, _ in runs:
            if best["avg_busbw_gbps"] >= RERUN_SLOWER_RATIO * max(bench["avg_busbw_gbps"], 1e-9):
                bench["rerun_best"] = {"avg_busbw_gbps": best["avg_busbw_gbps"], "line": line}


def _uncounted_in_place_errors(table: nccl_tests.Table) -> ParseWarning | None:
    """The in-place ``error`` cells (releases before ``#wrong``) that deviate while the footer
    counted no value out of bounds: the test's own check left them out, so no data failure; or,
    where the copy ends before the footer, those of a table of an op that does not reduce."""
    if table.out_of_bounds is None:
        return _in_place_errors_without_footer(table)
    if table.out_of_bounds != 0:
        return None
    cells = [
        (row.in_place.max_error, row.line)
        for row in table.rows
        if row.in_place is not None
        and row.in_place.max_error is not None
        and row.in_place.max_error >= OOB_DEVIATION
    ]
    out_of_place = [
        row.out_of_place.max_error
        for row in table.rows
        if row.out_of_place is not None and row.out_of_place.max_error is not None
    ]
    if not cells or any(e >= OOB_DEVIATION for e in out_of_place):
        return None
    # (src/common.cu CheckData counts a size only where args->reportErrors; alltoall.cu and
    # sendrecv.cu set it to in_place ? 0 : 1 -- an in-place alltoall through send/recv
    # overwrites what it still has to send -- and the footer sums that count over processes)
    return ParseWarning(
        line=cells[0][1],
        message=f"in-place error cells up to {max(e for e, _ in cells):.0e} on "
        f"{len(cells)} size(s) while the footer counts 0 values out of bounds: nccl-tests did not "
        "count them (its alltoall and sendrecv tests leave their in-place check out), so they "
        "are no data failure; the out-of-place checks, which it counts, "
        + ("are within bounds" if out_of_place else "are not in the copy"),
        skipped=False,
    )


def _in_place_errors_without_footer(table: nccl_tests.Table) -> ParseWarning | None:
    """A table cut before its footer whose rows do not reduce (redop blank or ``none``) and
    whose in-place ``error`` cells all deviate while its out-of-place ones are all within a
    float sum's rounding: said with the in-place figures, which no transfer reaches."""
    rows = [r for r in table.rows if r.in_place is not None and r.out_of_place is not None]
    if not rows or any(r.redop != "none" for r in rows):
        return None
    in_place = [r.in_place for r in rows if r.in_place is not None]
    out_of_place = [r.out_of_place for r in rows if r.out_of_place is not None]
    if any(t.max_error is None or t.max_error < OOB_DEVIATION for t in in_place) or any(
        t.max_error is None or t.max_error > ROUNDING_DEVIATION for t in out_of_place
    ):
        return None
    times_us = [t.time_us for t in in_place]
    busbw_gbytes_s = [t.busbw_gbytes_s for t in in_place]
    out_busbw_gbytes_s = [t.busbw_gbytes_s for t in out_of_place]
    # (src/common.cu CheckData counts a size only where args->reportErrors; nccl-tests'
    # alltoall.cu sets it to in_place ? 0 : 1 beside "We don't support in-place alltoall", as
    # sendrecv.cu does: an in-place alltoall through send/recv overwrites what it still has to
    # send; newer releases print N/A there. Ops that reduce print a redop other than none.)
    return ParseWarning(
        line=rows[0].line,
        message=f"in-place error cells up to {max(t.max_error or 0 for t in in_place):.0e} on "
        f"every size (lines {rows[0].line}-{rows[-1].line}) at "
        f"{min(times_us):g}-{max(times_us):g} us and busbw up to {max(busbw_gbytes_s):g} GB/s "
        f"(out-of-place {min(out_busbw_gbytes_s):g}-{max(out_busbw_gbytes_s):g} GB/s, its "
        "checks within bounds): the in-place runs did not move the data, their figures are no "
        "measurement; the op does not reduce (blank redop) and nccl-tests' alltoall and "
        "sendrecv leave their in-place check out as unsupported, but the copy ends before the "
        "footer that would say whether the run counted them: read the out-of-place columns",
        skipped=False,
    )


def _busbw_without_verdict(table: nccl_tests.Table, hosts: int) -> ParseWarning | None:
    """A run over several hosts: its busbw as printed, with no verdict, because what it should
    reach is the inter-node fabric's (nccl-tests doc/PERFORMANCE.md: busbw is the figure to hold
    against the hardware's peak) and nothing the advisor read states that fabric."""
    cells = [
        (t.busbw_gbytes_s, row.size_bytes)
        for row in table.rows
        for t in (row.out_of_place, row.in_place)
        if t is not None
    ]
    if not cells:
        return None
    peak_gbytes_s, at_bytes = max(cells)
    largest = max(b for _, b in cells)
    # (busbw climbs with the size toward the links' figure: the largest size's is the one to
    # compare)
    at_largest = max(g for g, b in cells if b == largest)
    return ParseWarning(
        line=table.rows[-1].line,  # (said where its figures end, after the table's own notes)
        message=f"busbw over {hosts} hosts: at most {peak_gbytes_s:g} GB/s ({at_bytes} B)"
        + (
            ""
            if at_bytes == largest
            else f", {at_largest:g} GB/s at its largest size ({largest} B)"
        )
        + (
            f", {table.avg_busbw_gbytes_s:g} GB/s on average (its footer)"
            if table.avg_busbw_gbytes_s is not None
            else ""
        )
        + "; said without a verdict: the advisor holds no figure for the inter-node fabric to "
        "judge it against (compare it with the line rate of the NICs each node uses)",
        skipped=False,
    )


_ERROR_LEVEL_RE = re.compile(r"^\s*\[(?:error|ERROR)\]")
"""A line logged at the error level (``[error][PID:173579]...``, ``[ERROR] HCCL(...)``)."""


def _hccl(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    try:
        parsed = hccl_test.parse(text)
    except hccl_test.HcclTestInitError as e:
        # A run that failed creating its communicator measured nothing (no table is made up),
        # but its failure is evidence: the failed call with its HcclResult, as a log's would be.
        failure = e.failure
        lines = text.splitlines()
        printed = lines[failure.line - 1].strip()[:240]
        # (the log's own first error line above the check's: what the failed call ran into,
        # "[error][PID:..][...][GetDeviceByRankId] cannot find rank by rank id 0")
        above = next((t.strip() for t in lines[: failure.line - 1] if _ERROR_LEVEL_RE.match(t)), "")
        if above:
            printed += f"; the log's first error above it: {above[:200]}"
        if failure.same_lines:
            printed += (
                f"; {len(failure.same_lines) + 1} processes printed it (lines {failure.line}, "
                f"{', '.join(map(str, failure.same_lines[:8]))}"
                f"{' ...' if len(failure.same_lines) > 8 else ''})"
            )
        stage = f"hccl_test stopped in {failure.stage}" + (
            f"; the log's error before it: {above[:200]}" if above else ""
        )
        event = logs.LogEvent(
            # (an acl call of its device set-up is the runtime's, an HCCL call HCCL's)
            kind="npu_runtime_error" if failure.acl else "hccl_call_failure",
            line=failure.line,
            message=f"{printed} ({failure.code} = {failure.name}: {failure.meaning})",
            code=str(failure.code),
            code_name=None if failure.name == "unknown" else failure.name,
            call=failure.call,
            library="ACL" if failure.acl else "HCCL",
            exception_type=stage if failure.acl else None,
        )
        event.repeated_lines = failure.same_lines or None
        _add_failure(out, source, event)
        message = (
            f"the run stopped at {failure.stage}, before any result table: {failure.describe()}"
        )
        return [ParseWarning(line=failure.line, message=message, skipped=False)]
    m = hccl_test.BINARY_RE.search(name)
    if parsed.op == "unknown" and m:
        # named by its file (all_gather_test.log): compute busbw the log could not
        parsed = hccl_test.parse(text, op=hccl_test.BINARIES[m.group(1)])
    results = [
        {
            "op": parsed.op,
            "dtype": parsed.dtype,
            "algorithm": "default",
            "in_place": False,
            "bytes": row.size_bytes,
            "count": None,
            "time_us_p50": row.time_us,
            "algbw_gbps": _gbits(row.algbw_gbytes_s),
            "busbw_gbps": _gbits(row.busbw_gbytes_s),
            # hccl_test says pass or fail, not how many elements were wrong: a failed check
            # is at least one wrong element; NULL (not checked) stays unknown.
            "wrong": {"success": 0, "failed": 1}.get(row.check),
        }
        for row in parsed.rows
    ]
    out.benchmarks.append(
        _benchmark(
            source=source,
            tool="hccl_test",
            op=parsed.op,
            ranks=parsed.ranks,
            hosts=[],
            dtype=parsed.dtype,
            algorithm="default",
            complete=parsed.complete,
            results=results,
            footer_gbps=None,
            failed_checks=[
                {"bytes": r.size_bytes, "ranks": r.failed_ranks}
                for r in parsed.rows
                if r.check == "failed"
            ],
            npus_per_node=parsed.npus_per_node,
        )
    )
    unchecked = [r for r in parsed.rows if r.check == "NULL"]
    if unchecked:
        # hccl_test prints NULL where it did not compare the result (its -c 0, or a type it does
        # not check): the figures stand, the data's correctness is not known
        return [
            *parsed.warnings,
            ParseWarning(
                line=unchecked[0].line,
                message=f"check_result NULL on {len(unchecked)} of {len(parsed.rows)} row(s): "
                "hccl_test did not check those results (run with -c 0, or a data type it does "
                "not check), so whether the collective returned right data is not known",
                skipped=False,
            ),
        ]
    return parsed.warnings


INTEGER_DTYPES = frozenset({"int8", "uint8", "int32", "uint32", "int64", "uint64"})
"""Types whose results nccl-tests checks exactly: its DeltaMaxValue is 1e-200 for every integer
type (common.cu of the releases that printed a max ``error``), so any error above 0 fails."""


OOB_DEVIATION = 1e-3
"""The advisor's floor for an older nccl-tests ``error`` cell that names a size behind an
out-of-bounds verdict: far above a float sum's rounding."""
ROUNDING_DEVIATION = 1e-6
"""At or under this, an ``error`` cell is a float sum's rounding (nccl-tests' samples print 1e-07
to 4e-07 in groups that passed)."""


def _nccl_failed_checks(table: nccl_tests.Table) -> list[dict[str, Any]]:
    """Sizes whose ``#wrong`` count is not 0, or whose ``error`` (older logs print the largest
    deviation) is above 0 for an integer type, or (older logs of other types) the run's own "Out
    of bounds values : N FAILED" verdict: the collective returned wrong data."""
    wrong = [
        {"bytes": row.size_bytes, "ranks": []}
        for row in table.rows
        if any(t is not None and t.wrong for t in (row.out_of_place, row.in_place))
        or (
            row.dtype in INTEGER_DTYPES
            # a footer of "0 OK" counted none: every deviation of an integer type is over its
            # bound, so the cell is one the test did not count (old alltoall and sendrecv leave
            # their in-place check out: reportErrors = in_place ? 0 : 1)
            and table.out_of_bounds != 0
            and any(
                t is not None and (t.max_error or 0) > 0 for t in (row.out_of_place, row.in_place)
            )
        )
    ]
    if not wrong and table.out_of_bounds:
        # older nccl-tests count, per thread and per process (summed), each column group whose
        # largest deviation passed the type's bound, and print the largest deviation over the
        # processes (src/common.cu before 2.13): where the groups that deviate at all are K and
        # every other group printed exactly 0, and the verdict's count is a multiple of K, those
        # K are the sizes that failed ("1e+00" against "0e+00" everywhere else)
        errors = [
            (t.max_error, row.size_bytes)
            for row in table.rows
            for t in (row.out_of_place, row.in_place)
            if t is not None and t.max_error is not None
        ]
        # (a float sum's rounding prints up to some 1e-07 in a group that passed: only a
        # deviation far above it counts, and only where none stands between the two)
        deviating = sorted({size for error, size in errors if error >= OOB_DEVIATION})
        k = sum(1 for error, _ in errors if error >= OOB_DEVIATION)
        unclear = any(ROUNDING_DEVIATION < error < OOB_DEVIATION for error, _ in errors)
        if k and not unclear and len(errors) > k and table.out_of_bounds % k == 0:
            return [
                {
                    "bytes": size,
                    "ranks": [],
                    "out_of_bounds": table.out_of_bounds,
                    "from_error_column": True,
                }
                for size in deviating
            ]
        return [{"bytes": None, "ranks": [], "out_of_bounds": table.out_of_bounds}]
    return wrong


BUSBW_DROP_MIN_BYTES = 1 << 20
"""The advisor's own floor: below 1 MiB a collective is latency-bound and its busbw small and
noisy (nccl-tests doc/PERFORMANCE.md defines busbw as the figure to compare with the hardware's
peak bandwidth, which large sizes approach)."""
BUSBW_DROP_FRACTION = 0.5
"""The advisor's heuristic: a size whose busbw is under half the best a smaller size of the same
column group reached fell (a congested or degraded link, a protocol or algorithm change at that
size, memory pressure)."""
BUSBW_RECOVER_FRACTION = 0.6
"""A fall ends at a size back above this share of the best: figures wavering around the half
stay one fall, not many dips."""


def busbw_drops(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Runs of sizes (from ``BUSBW_DROP_MIN_BYTES``) whose busbw fell under
    ``BUSBW_DROP_FRACTION`` of the best a smaller size of their column group reached (a run goes
    on until a size is back above ``BUSBW_RECOVER_FRACTION`` of it):
    ``{in_place, from_bytes, to_bytes, lowest_busbw_gbps, best_bytes, best_busbw_gbps}``, a
    run a dip (larger sizes recover) or a collapse (it lasts to the largest size)."""
    drops: list[dict[str, Any]] = []
    for in_place in (False, True):
        rows = sorted(
            (
                r
                for r in results
                if bool(r["in_place"]) == in_place
                and r["busbw_gbps"] is not None
                and r["bytes"] >= BUSBW_DROP_MIN_BYTES
            ),
            key=lambda r: r["bytes"],
        )
        best: dict[str, Any] | None = None
        run: dict[str, Any] | None = None
        for r in rows:
            threshold = BUSBW_RECOVER_FRACTION if run is not None else BUSBW_DROP_FRACTION
            if best is not None and r["busbw_gbps"] < threshold * best["busbw_gbps"]:
                if run is None:
                    run = {
                        "in_place": in_place,
                        "from_bytes": r["bytes"],
                        "best_bytes": best["bytes"],
                        "best_busbw_gbps": best["busbw_gbps"],
                        "lowest_busbw_gbps": r["busbw_gbps"],
                    }
                    drops.append(run)
                run["to_bytes"] = r["bytes"]
                run["lowest_busbw_gbps"] = min(run["lowest_busbw_gbps"], r["busbw_gbps"])
                run["to_largest"] = r is rows[-1]
                continue
            run = None
            if best is None or r["busbw_gbps"] > best["busbw_gbps"]:
                best = r
    return drops


VISIBLE_ALGBW_GBPS = 0.16
"""0.02 GB/s: half of it, the smallest bus factor at two ranks, still prints as 0.01 in
nccl-tests' two decimals; a busbw of 0.00 beside it is no rounding."""


def _benchmark(
    *,
    source: str,
    tool: str,
    op: str,
    ranks: int | None,
    hosts: list[str],
    dtype: str,
    algorithm: str,
    complete: bool,
    results: list[dict[str, Any]],
    footer_gbps: float | None,
    failed_checks: list[dict[str, Any]],
    npus_per_node: int | None = None,
    min_bytes: int | None = None,
    max_bytes: int | None = None,
    sizes_asked: int | None = None,
    progress: str | None = None,
    ranks_listed: bool = False,
    op_from: str = "log",
    hosts_complete: bool = True,
    solo_hosts: list[str] | None = None,
    shared_gpus: list[dict[str, Any]] | None = None,
    checks_left_out: bool = False,
    gpu_models: dict[str, int] | None = None,
    nccl_version: str | None = None,
) -> dict[str, Any]:
    out_of_place = [
        r["busbw_gbps"] for r in results if not r["in_place"] and r["busbw_gbps"] is not None
    ]
    # mscclpp-test leaves a table's out-of-place half blank where only in-place ran: its average
    # and peak are the in-place figures then (nccl-tests' own footer averages both halves,
    # src/common.cu), not "n/a" beside a measured row
    measured = out_of_place or [
        r["busbw_gbps"] for r in results if r["in_place"] and r["busbw_gbps"] is not None
    ]
    wrongs = [r["wrong"] for r in results if r["wrong"] is not None]
    # busbw is algbw times the op's bus factor, 0 at one rank for the ops whose factor depends on
    # the rank count (2(n-1)/n, (n-1)/n): every row at busbw 0 with a time measured is a
    # one-rank run (nccl-tests doc/PERFORMANCE.md), whatever the header says or leaves out
    scaled = bool(out_of_place) and op in BUS_FACTOR_OPS and busbw_factor(op, 1) == 0
    one_rank = ranks == 1 or (
        ranks is None
        and scaled
        and all(b == 0 for b in out_of_place)
        # an algbw whose busbw would print above 0.00 at two ranks (factor 1/2 at least)
        and any((r["algbw_gbps"] or 0) >= VISIBLE_ALGBW_GBPS for r in results if not r["in_place"])
    )
    return {
        "source": source,
        "tool": tool,
        "op": op,
        "ranks": ranks,
        "hosts": hosts,
        "dtype": dtype,
        "algorithm": algorithm,
        "complete": complete,
        "time_stat": "mean",
        "avg_busbw_gbps": footer_gbps
        if footer_gbps is not None
        else (sum(measured) / len(measured) if measured else None),
        "footer_avg_busbw_gbps": footer_gbps,
        "peak_busbw_gbps": max(measured) if measured else None,
        "wrong_total": sum(wrongs) if wrongs else None,
        "failed_checks": failed_checks,
        "results": results,
        "npus_per_node": npus_per_node,
        "min_bytes": min_bytes,
        "max_bytes": max_bytes,
        "sizes_asked": sizes_asked,
        "progress": progress,
        "ranks_listed": ranks_listed,
        "op_from": op_from,
        "hosts_complete": hosts_complete,
        "solo_hosts": solo_hosts or [],
        "shared_gpus": shared_gpus or [],
        "one_rank": one_rank,
        "busbw_drops": busbw_drops(results),
        "checks_left_out": checks_left_out,
        "gpu_models": gpu_models or {},
        "nccl_version": nccl_version,
    }


def _device_memory_pct(chip: npu_smi.NpuChip) -> float | None:
    """How much of a 310P chip's memory is used, in percent: its ``Memory-Usage(MB)`` is the
    device memory its AI cores work in (the Atlas 300I Pro / Duo carry LPDDR4X and no HBM:
    npu-smi's 310P layout prints no HBM column), where a 910's is its control CPU's DDR beside
    the HBM. None for other chips and where the figure is not in the copy."""
    if chip.memory_used_mb is None or not chip.memory_total_mb or chip.hbm_total_mb:
        return None
    if not chip.name.startswith("310P"):
        return None
    return round(100 * chip.memory_used_mb / chip.memory_total_mb, 1)


_NPU_SMI_BANNER_RE = re.compile(
    r"^[ \t]*\|[ \t]*npu-smi[ \t]+(?P<v>\d[\w.]*)[ \t]+Version:[ \t]*(?P<d>\d[\w.]*)[ \t]*\|", re.M
)


def _npu_info(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    try:
        parsed = npu_smi.parse_info(text)
    except ParseError:
        if (banner := _NPU_SMI_BANNER_RE.search(text)) is None:
            raise
        # the table's banner and no header or chip after it: a copy cut there
        return [
            ParseWarning(
                line=text.count("\n", 0, banner.start()) + 1,
                message=f"npu-smi {banner.group('v')} (Version {banner.group('d')}): no chip row "
                "follows the table's banner, no chip's health read from it",
            )
        ]
    for chip in parsed.chips:
        row = asdict(chip)
        row.pop("line")
        out.npu_chips.append(
            {
                "source": source,
                "line": chip.line,
                "version": parsed.version,
                **row,
                "hbm_used_pct": round(100 * chip.hbm_used_mb / chip.hbm_total_mb, 1)
                if chip.hbm_used_mb is not None and chip.hbm_total_mb
                else None,
                "memory_used_pct": _device_memory_pct(chip),
                # the process table's rows of this chip (empty: none listed, or not in the copy)
                "processes": [
                    _npu_process_text(p)
                    for p in parsed.processes
                    if (p.npu, p.chip) == (chip.npu, chip.chip)
                ],
                "error_codes": [],
                "error_info": [],
                "query": "",
            }
        )
    for alone in parsed.rows_alone:
        # a grep'd copy's chip row (no NPU id, name or health): its memory is the chip's own and
        # is judged as a whole table's row is (evidence-npu-hbm-held); its health, not in the
        # copy, is None (judged neither way), the chip named by its bus id. A row whose one pair
        # could be either column (no header says) is said alone, no chip made of it
        if alone.hbm_total_mb is None and alone.memory_total_mb is None:
            continue
        out.npu_chips.append(
            {
                **{f.name: None for f in fields(npu_smi.NpuChip)},
                "source": source,
                "line": alone.line,
                "version": parsed.version,
                **asdict(alone),
                "name": "",
                "hbm_used_pct": round(100 * alone.hbm_used_mb / alone.hbm_total_mb, 1)
                if alone.hbm_used_mb is not None and alone.hbm_total_mb
                else None,
                # (the "Chip Device" layout, one usage pair: a 310P's device memory, where its
                # AI cores work; a 910's Memory-Usage beside its HBM is its control CPU's DDR)
                "memory_used_pct": round(100 * alone.memory_used_mb / alone.memory_total_mb, 1)
                if alone.device is not None
                and alone.memory_used_mb is not None
                and alone.memory_total_mb
                else None,
                "processes": [],
                "error_codes": [],
                "error_info": [],
                "query": "",
            }
        )
    shown = {(c.npu, c.chip) for c in parsed.chips}
    unseen: dict[tuple[int, int | None], list[npu_smi.NpuProcess]] = {}
    for p in parsed.processes:
        if (p.npu, p.chip) not in shown:
            unseen.setdefault((p.npu, p.chip), []).append(p)
    for (npu, chip_no), procs in unseen.items():
        # the processes are all the copy says of these chips: they hold them now (how much of
        # each chip's HBM is left, the missing chip rows would say)
        sizes = [p.memory_mb for p in procs if p.memory_mb is not None]
        held_mb = sum(sizes) if len(sizes) == len(procs) else None
        small = held_mb is not None and held_mb < NPU_PROCESS_SMALL_MB
        out.npu_process_chips.append(
            {
                "source": source,
                "line": procs[0].line,
                "npu": npu,
                "chip": chip_no,
                "processes": [_npu_process_text(p) for p in procs],
                "memory_mb": sum(sizes) if sizes else None,
                "small_hold": small,
            }
        )
        if small:
            where = f"NPU {npu}" + (f" chip {chip_no}" if chip_no is not None else "")
            parsed.warnings.append(
                ParseWarning(
                    line=procs[0].line,
                    message=f"{where}: its process(es) hold {held_mb} MB together, under "
                    f"{NPU_PROCESS_SMALL_MB} MB: a process that opened the device (its runtime, "
                    "a profiler's or a monitor's), no job's hold, so the chip is not judged in "
                    "use; its free HBM and health are not in the copy",
                    skipped=False,
                )
            )
    return parsed.warnings


NPU_PROCESS_SMALL_MB = 1024
"""Processes of a chip whose rows are not in the copy that hold less device memory than this
together are not judged to hold the chip (evidence-npu-process-chips): a process that only opened
the device holds tens of MB (the CANN msprof guide's example, a python3 at 58 MB, oam-tools
docs/zh/profiling/msprof_cmd/dynamically.md), and 1024 MB is about 3 % of the smallest chip
evidence-npu-hbm-held reads (32768 MB), under the 2880 MB such a chip keeps for itself when idle:
no model's weights and far from that rule's half of the chip. Holds of a few GB and more (the set
583 and 613 tables' 4.3-4.8 GB) stay warnings, as a chip whose free HBM the copy does not show."""


def _npu_process_text(p: npu_smi.NpuProcess) -> str:
    """A process-table row as findings name it: ``python (pid 47881, 4184 MB)`` (a container's
    npu-smi leaves the name blank: ``(pid 7, 90 MB)``)."""
    return (
        (f"{p.name} " if p.name else "")
        + f"(pid {p.pid}"
        + (f", {p.memory_mb} MB)" if p.memory_mb is not None else ")")
    )


def _npu_watch(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    notes = []
    for chip in npu_smi.parse_watch(text):
        where = f"NPU {chip.npu}" + (f" chip {chip.chip}" if chip.chip is not None else "")
        shown = ", ".join(
            f"{column} {low:g}" + (f"-{high:g}" if high != low else "")
            for column, (low, high) in chip.ranges.items()
            if column in ("Pwr(W)", "Temp(C)", "AI Core(%)", "NPU Util(%)", "Memory(%)")
        )
        notes.append(
            ParseWarning(
                line=chip.line,
                message=f"npu-smi info watch, {where}: {chip.samples} sample(s), {shown}: "
                "figures with no health in them, not judged",
                skipped=False,
            )
        )
    return notes


def _npu_details(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """MindCluster's sampled npu-smi CSV: a note per device of its ranges, where its frequency
    fell under its own highest and how hot it got; an ``npu_freq_reduced`` failure per stretch
    MindCluster's own check of these samples calls a frequency reduction (npu_smi.FreqRun)."""
    devices, notes = npu_smi.parse_details_csv(text)
    rated = (
        f"{npu_smi.MINDCLUSTER_RATED_FREQ:g} (MindCluster's rated frequency where the CSV names "
        "none)"
    )
    for dev in devices:
        if dev.rated is not None:
            bound = f"its rated_freq {dev.rated:g} (the CSV's own column)"
        elif dev.freq[1] < npu_smi.MINDCLUSTER_RATED_FREQ:
            bound = f"its own highest {dev.freq[1]:g} (and under {rated})"
        else:
            bound = rated
        for run in dev.reduced:
            temps = f"{run.coolest:g}" + (f"-{run.hottest:g}" if run.hottest != run.coolest else "")
            why = (
                "at or over" if run.code == "NODE_RES_ABNORMAL_02" else "under"
            ) + f" {npu_smi.MINDCLUSTER_HOT_C:g}, the check's over-temperature bound"
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="npu_freq_reduced",
                    line=run.first_line,
                    message=f"npu-smi samples, device {dev.dev_id}: freq {run.lowest:g} for "
                    f"{run.samples} sample(s) in a row, {_seconds(run.first_s)}-"
                    f"{_seconds(run.last_s)} (epoch s, lines {run.first_line}-{run.last_line}), "
                    f"temp {temps}",
                    code=run.code,
                    device=dev.dev_id,
                    library="MindCluster",
                    exception_type=f"device {dev.dev_id}: freq under {bound}, down to "
                    f"{run.lowest:g}, for {run.samples} samples in a row (lines "
                    f"{run.first_line}-{run.last_line}), temp {temps} ({why}): MindCluster's "
                    f"check of these samples calls it a frequency reduction, {run.code}",
                ),
            )
        span_s = dev.last_s - dev.first_s
        said = (
            f"{dev.samples} sample(s) over {span_s:g} s; power {dev.power[0]:g}-{dev.power[1]:g}, "
            f"freq {dev.freq[0]:g}-{dev.freq[1]:g}, temp {dev.temp[0]:g}-{dev.temp[1]:g} "
            "(the CSV names no units)"
        )
        if dev.low_freq_runs:
            first, last, low, warm, count = dev.low_freq_runs[0]
            said += (
                f"; freq under its highest ({dev.freq[1]:g}) in {len(dev.low_freq_runs)} "
                f"stretch(es), the first {count} sample(s) {_seconds(first)}-{_seconds(last)} (epoch s), down "
                f"to {low:g}, temp then up to {warm:g}"
            )
        if dev.rated is not None:
            said += f"; rated_freq {dev.rated:g}"
        if dev.idle_low:
            said += (
                f"; {dev.idle_low} sample(s) under {bound} with aicore_rate 0, which "
                "MindCluster's check leaves out (an idle device's clock is no reduction)"
            )
        said += f"; hottest {dev.hottest[1]:g} at {_seconds(dev.hottest[0])}"
        notes.append(
            ParseWarning(
                line=dev.line,
                message=f"npu-smi samples (MindCluster's environment check), device "
                f"{dev.dev_id}: {said}",
                skipped=False,
            )
        )
    return notes


def _seconds(epoch_s: float) -> str:
    return f"{epoch_s:.3f}".rstrip("0").rstrip(".")


def _msprof(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """msprof-analyze's slow-rank details and overview, and msprof's op_summary: notes of what
    they say (performance figures and the tool's own verdicts, no health code), not judged."""
    if re.search(msprof.COMMUNICATION_SIGNATURE, text) and text.lstrip().startswith("{"):
        return _msprof_communication(msprof.parse_communication(text))
    if re.search(msprof.OP_SUMMARY_SIGNATURE, text, re.M):
        return _msprof_op_summary(msprof.parse_op_summary(text))
    rows, overviews = msprof.parse(text)
    notes = []
    by_step: dict[str, list[msprof.StepRank]] = {}
    for row in rows:
        by_step.setdefault(row.step, []).append(row)
    for step, ranks in by_step.items():
        said = "; ".join(
            f"rank {r.rank}: compute {r.compute_us / 1000:.1f} ms, communication "
            f"{r.communication_us / 1000:.1f} ms, free {r.free_us / 1000:.1f} ms"
            for r in ranks[:8]
        ) + (f"; {len(ranks) - 8} more rank(s)" if len(ranks) > 8 else "")
        if len(ranks) > 1:
            most = max(ranks, key=lambda r: r.communication_us)
            idle = max(ranks, key=lambda r: r.free_us)
            head = f"most communication: rank {most.rank}, most free time: rank {idle.rank}"
            if idle is min(ranks, key=lambda r: r.communication_us):
                # msprof-analyze's slow-rank analysis: communication time is mostly waiting for
                # the last rank to arrive, so the rank that waits least and idles most is late
                head += (
                    f" (rank {idle.rank} idles most and waits least in communication: the "
                    "others wait for it, a rank slow outside compute)"
                )
            said = f"{head}; {said}"
        notes.append(
            ParseWarning(
                line=ranks[0].line,
                message=f"msprof-analyze slow-rank details, step {step or 'all'}, "
                f"{len(ranks)} rank(s): {said}"[:600],
                skipped=False,
            )
        )
    for overview in overviews:
        for category, verdict in overview.verdicts.items():
            notes.append(
                ParseWarning(
                    line=overview.line,
                    message=f"msprof-analyze overview, {category}: {verdict}"[:400],
                    skipped=False,
                )
            )
    return notes


MSPROF_OPS_SAID = 12
"""How many of cluster_communication.json's operators are said one by one (the rest counted)."""


MSPROF_TASKS_SAID = 3
"""How many of a device's longest op_summary tasks a note names."""


def _msprof_op_summary(tasks: list[msprof.OpTask]) -> list[ParseWarning]:
    """A note per device of msprof's op_summary: its tasks' count and time, its longest tasks
    (profile figures, no health in them: not judged)."""
    by_device: dict[str, list[msprof.OpTask]] = {}
    for task in tasks:
        by_device.setdefault(task.device, []).append(task)
    notes = []
    for device, own in by_device.items():
        longest = sorted(own, key=lambda t: -t.duration_us)[:MSPROF_TASKS_SAID]
        said = "; ".join(
            f"{t.op_name} ({t.task_type}) {t.duration_us:g} us"
            + (f", wait {t.wait_us:g} us" if t.wait_us is not None else "")
            + (f", block num {t.block_num}" if t.block_num else "")
            + f" (line {t.line})"
            for t in longest
        )
        ops = len({t.op_name for t in own})
        notes.append(
            ParseWarning(
                line=own[0].line,
                message=f"msprof op_summary, device {device}: {len(own)} task(s) of {ops} "
                f"operator(s), {sum(t.duration_us for t in own):g} us in all; the longest: "
                f"{said}: profile figures with no health in them, not judged"[:600],
                skipped=False,
            )
        )
    return notes


def _msprof_communication(ops: list[msprof.CommOp]) -> list[ParseWarning]:
    """A note for each operator of msprof-analyze's cluster_communication.json: each rank's
    elapsed and waited time and the data each transport carried; the rank that waited least
    where the others waited most of their time (the one they waited for)."""
    notes = []
    for op in ops[:MSPROF_OPS_SAID]:
        parts = []
        for r in op.ranks[:8]:
            said = f"rank {r.rank}"
            if r.elapse_ms is not None:
                said += f" {r.elapse_ms:.1f} ms"
            if r.wait_ms is not None:
                said += f", waited {r.wait_ms:.1f} ms"
            if r.bandwidth:
                said += ", " + ", ".join(
                    f"{t} {gbps:.2f} GB/s over {size:.3g} MB"
                    for t, (size, gbps) in r.bandwidth.items()
                )
            parts.append(said)
        waits = [r for r in op.ranks if r.wait_ratio is not None]
        late = ""
        if len(waits) > 1:
            least = min(waits, key=lambda r: r.wait_ratio or 0.0)
            others = [r for r in waits if r is not least]
            if (
                all((r.wait_ratio or 0.0) >= 0.5 for r in others)
                and (least.wait_ratio or 0.0) < 0.1
            ):
                late = (
                    f"; the others waited most of their time and rank {least.rank} hardly: they "
                    f"waited for rank {least.rank} (late to the operator), not for a slow link"
                )
        notes.append(
            ParseWarning(
                line=0,
                message=f"msprof-analyze communication, group {op.group}, {op.step}, {op.op}: "
                + "; ".join(parts)
                + late,
                skipped=False,
            )
        )
    if len(ops) > MSPROF_OPS_SAID:
        notes.append(
            ParseWarning(
                line=0,
                message=f"msprof-analyze communication: {len(ops) - MSPROF_OPS_SAID} more "
                "operator(s) not said one by one",
                skipped=False,
            )
        )
    return notes


_TEMPLATE_NPU_RE = re.compile(r"npu-smi info -t template-info -i (\d+)")


def _npu_templates(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """npu-smi's vNPU templates: a note of what the chip can be split into, not judged."""
    templates = npu_smi.parse_templates(text)
    asked = _TEMPLATE_NPU_RE.search(text)
    listed = ", ".join(
        f"{t.name} (AI Core {t.aicore}, {t.memory_gb} GB, AICPU {t.aicpu})" for t in templates
    )
    return [
        ParseWarning(
            line=templates[0].line,
            message=f"npu-smi info -t template-info{f' of NPU {asked.group(1)}' if asked else ''}: "
            f"{len(templates)} vNPU template(s): {listed}"[:400]
            + ": what the chip can be split into, not judged",
            skipped=False,
        )
    ]


def _npu_mapping(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    rows = npu_smi.parse_mapping(text)
    if all(r.physical for r in rows):
        # (Ascend 950's table: slots and physical ids, no logical id to say)
        return [
            ParseWarning(
                line=rows[0].line,
                message=f"npu-smi info -m: {len(rows)} chip(s): "
                + ", ".join(f"NPU {r.npu} chip {r.chip} ({r.name})" for r in rows[:8])
                + (" ..." if len(rows) > 8 else "")
                + "; a map of ids, not judged",
                skipped=False,
            )
        ]
    used = [r for r in rows if r.logic_id is not None]
    names = ", ".join(dict.fromkeys(r.name for r in used))
    others = ", ".join(dict.fromkeys(r.name for r in rows if r.logic_id is None))
    return [
        ParseWarning(
            line=rows[0].line,
            message=f"npu-smi info -m: {len(used)} chip(s) ({names}) used as logical devices "
            f"{', '.join(str(r.logic_id) for r in used)}"
            + (f"; {len(rows) - len(used)} without one ({others})" if others else "")
            + ": a map of ids, not judged",
            skipped=False,
        )
    ]


_FAULT_EVENT_ID_RE = re.compile(r"\bevent id=(0x[0-9A-Fa-f]+)")
_FAULT_EVENT_SEVERITY_RE = re.compile(r"\bseverity=(\d)\b")
"""npu-smi -t current-fault-event's severity (Ascend 950's npu-smi reference: 0 a hint, 1 minor,
2 major, 3 urgent), the driver's fault manager's (logs.DMS_SEVERITIES: OK, Warning, Alarm,
Critical)."""


_LINK_ERROR_COUNTS = (
    "TX Error Count",
    "RX Error Count",
    "Lcrc Error Count",
    "Ecrc Error Count",
    "Retry Count",
)
"""Ascend 950's npu-smi -t pcie-err / -t sio-info counters."""
_PCIE_ONLY_COUNTS = frozenset(("Lcrc Error Count", "Ecrc Error Count", "Retry Count"))
"""The counters only -t pcie-err prints: its answer saved without its command line is known by
them (the Ascend 950 npu-smi reference, hicann/driver docs/zh/Ascend_950_npu-smi, 查询设备的PCIe误码计数:
TX / RX Error Count, Lcrc Error Count "PCIe DDLP LCRC校验错误计数", Ecrc Error Count, Retry Count
"PCIe链路重传计数"; 查询设备die间SIO状态: -t sio-info prints TX and RX Error Count only)."""
# (linear time on a long run: blanks after a line start stay on that line, not re-read from each of
# many blank lines)
_NPU_TOTAL_COUNT_RE = re.compile(r"^[^\S\n]*Total Count\s*:\s*(\d+)\s*$", re.M)
"""``npu-smi info -l``'s first line: how many NPUs it lists after it (each an ``NPU ID`` and its
``Chip Count``, with the product's names on newer drivers)."""


# npu-smi info -t proc-mem: "Process id:3233241 Process name:VLLMWorker_TP  Process memory(MB):55844"
_PROC_MEM_RE = re.compile(
    r"Process id:\s*(?P<pid>\d+)\s+Process name:\s*(?P<name>\S+)\s+Process memory\(MB\):\s*(?P<mb>\d+)"
)
QUERY_FIGURES_SAID = 8
"""How many of an npu-smi -t answer's figures its note repeats."""
SETTING_SAID = {
    "sys-time": "the chip's clock in the host's local time zone, not its health: not judged",
    "tls-cert-period": "the TLS certificate's expiry-alarm threshold, a setting, not the NPU's "
    "health: not judged",
    "sys-log-info": "the syslog dump's configuration (its persistence mode, capacity level and "
    "path), a setting, not the NPUs' health: not judged",
}
"""What the settings answers of Ascend 950's npu-smi are (npu_smi.SETTING_QUERIES, by type)."""
KMS_SERVICE_KEYS = frozenset({"service auto startup", "service running status"})
"""``npu-smi info -t key-manage``'s keys (the KMSAgent key-management service)."""


def _npu_query(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    notes: list[ParseWarning] = []
    listed: list[tuple[int, int | None, str, str]] = []  # -l: (line, NPU, chip count, product)
    answers = npu_smi.parse_query(text)
    procs = [
        (text.count("\n", 0, pm.start()) + 1, pm) for pm in _PROC_MEM_RE.finditer(text)
    ]  # -t proc-mem: the processes holding the NPU's memory
    for line_no, pm in procs:
        owner = next((a.npu for a in reversed(answers) if a.line <= line_no), None)
        notes.append(
            ParseWarning(
                line=line_no,
                message=f"npu-smi info -t proc-mem{f' of NPU {owner}' if owner is not None else ''}: "
                f"process {pm.group('pid')} ({pm.group('name')}) holds {pm.group('mb')} MB",
                skipped=False,
            )
        )
    # npu-smi info -l: its "Total Count" heads the list, each NPU's block after it (one answer
    # each, only the first with the count)
    listing = any("Total Count" in a.fields for a in answers)
    for answer in answers:
        hccs_links: int | None = None  # (-t hccs's "hccs link num in used", where printed)
        if procs and set(answer.fields) <= {"NPU ID", "Chip Count", "Chip ID"}:
            continue  # (-t proc-mem's own heading lines, not an -l list)
        if (
            answer.fields
            and not answer.type
            and set(answer.fields)
            <= {
                "NPU ID",
                "Chip Count",
                "Product Name",
                "Total Count",
                "Serial Number",
            }
        ):
            listed.append(
                (
                    answer.line,
                    answer.npu,
                    answer.fields.get("Chip Count", ["?"])[0],
                    answer.fields.get("Product Name", [""])[0],
                )
            )
            continue
        health = answer.health
        if count := answer.fields.get("Fault Event Count"):
            # -t current-fault-event: the events the NPU holds now, each "event id=0x..., ..."
            events = answer.fields.get("Fault Event Information", [])
            if not count[0].isdigit() or int(count[0]) == 0:
                notes.append(
                    ParseWarning(
                        line=answer.line,
                        message=f"npu-smi info -t current-fault-event: {count[0]} event(s)",
                        skipped=False,
                    )
                )
                continue
            health = f"{count[0]} current fault event(s)"
            codes = [m.group(1) for e in events if (m := _FAULT_EVENT_ID_RE.search(e))]
            for e in events:
                sev = _FAULT_EVENT_SEVERITY_RE.search(e)
                if sev is None or not 1 <= int(sev.group(1)) < len(logs.DMS_SEVERITIES):
                    continue
                name = logs.DMS_SEVERITIES[int(sev.group(1))]
                eid = _FAULT_EVENT_ID_RE.search(e)
                _add_failure(
                    out,
                    source,
                    logs.LogEvent(
                        kind="npu_fault_event",
                        line=answer.line,
                        message=e[:300],
                        device=answer.npu,
                        code=eid.group(1) if eid else "(its id not printed)",
                        code_name=name,
                        library="npu-smi",
                        exception_type=(f"chip {answer.chip}: " if answer.chip is not None else "")
                        + f"{name} (severity {sev.group(1)}: "
                        + (
                            "minor"
                            if name == "Warning"
                            else "major"
                            if name == "Alarm"
                            else "urgent"
                        )
                        + "): a fault event the device holds now (npu-smi info -t "
                        "current-fault-event)",
                    ),
                )
            out.npu_chips.append(
                {
                    **{f.name: None for f in fields(npu_smi.NpuChip)},
                    "source": source,
                    "line": answer.line,
                    "version": "",
                    "npu": answer.npu,
                    "chip": answer.chip,
                    "name": "",
                    "health": health,
                    "bus_id": "",
                    "hbm_used_pct": None,
                    "processes": [],
                    "error_codes": codes,
                    "error_info": events,
                    "query": "current-fault-event",
                }
            )
            continue
        faulty = answer.fields.get("Faulty Chip Count", [""])[0]
        if health is None and faulty.isdigit():
            # -t board: how many of the board's chips the driver counts as faulty
            chips = answer.fields.get("Chip Count", ["?"])[0]
            if int(faulty) == 0:
                notes.append(
                    ParseWarning(
                        line=answer.line,
                        message=f"npu-smi info -t board of NPU {answer.npu}: 0 of {chips} "
                        "chip(s) faulty",
                        skipped=False,
                    )
                )
                continue
            health = f"{faulty} of {chips} chip(s) faulty"
        double = {
            k: v[0]
            for k, v in answer.fields.items()
            if "Double Bit" in k and ("Error Count" in k or "Aggregate Total" in k) and v
        }
        link_errors = {
            k: v[0]
            for k, v in answer.fields.items()
            if k in _LINK_ERROR_COUNTS and v and v[0].isdigit()
        }
        # (a -t pcie-err answer copied without its command line is known by its own counters;
        # a TX / RX pair alone may be either query's, and stays unjudged)
        link_query = answer.type or ("pcie-err" if _PCIE_ONLY_COUNTS & set(link_errors) else "")
        if health is None and link_errors and link_query in ("pcie-err", "sio-info"):
            # Ascend 950's -t pcie-err (the PCIe link's TX / RX / LCRC / ECRC error and retry
            # counts) and -t sio-info (the die-to-die link's): counts above 0 are errors the
            # link met (its reference gives no threshold: any is said)
            counted = {k: int(v) for k, v in link_errors.items()}
            if not any(counted.values()):
                notes.append(
                    ParseWarning(
                        line=answer.line,
                        message=f"npu-smi info -t {link_query} of NPU {answer.npu}: no error "
                        "counted",
                        skipped=False,
                    )
                )
                continue
            link = "PCIe link" if link_query == "pcie-err" else "die-to-die (SIO) link"
            health = f"{link} errors: " + ", ".join(
                f"{k} {v}" + (f" (line {answer.lines[k]})" if k in answer.lines else "")
                for k, v in counted.items()
                if v
            )
        if health is None and double and all(v.isdigit() for v in double.values()):
            # -t ecc: a double-bit (uncorrectable) error of the HBM is a fault; single-bit ones
            # were corrected
            counted = {k: int(v) for k, v in double.items()}
            if not any(counted.values()):
                notes.append(
                    ParseWarning(
                        line=answer.line,
                        message=f"npu-smi info -t ecc of NPU {answer.npu}: no double-bit "
                        "(uncorrectable) memory error",
                        skipped=False,
                    )
                )
                continue
            health = "; ".join(f"{k} {v}" for k, v in counted.items() if v) + " (uncorrectable)"
        if health is None and "Software Version" in answer.fields:
            # -t board: the card's versions and place, said; its Compatibility of the driver with
            # the firmware judged (the DCMI API reference, dcmi_get_device_compatibility: OK,
            # NOK "the NPU driver and firmware are not compatible", UNKNOWN)
            said = ", ".join(
                f"{label} {answer.fields[key][0]}"
                for key, label in (
                    ("Software Version", "software"),
                    ("Firmware Version", "firmware"),
                    ("Compatibility", "compatibility"),
                    ("PCIe Bus Info", "PCIe"),
                    ("Serial Number", "serial"),
                )
                if answer.fields.get(key)
            )
            npu = f" of NPU {answer.npu}" if answer.npu is not None else ""
            notes.append(
                ParseWarning(
                    line=answer.line, message=f"npu-smi info -t board{npu}: {said}", skipped=False
                )
            )
            if answer.fields.get("Chip Fault"):
                # an older -t board answer's chip count and "Chip Fault" (a 310P card's, driver
                # 22.0.4): said as printed, its meaning not given beside it, so not judged
                product = (answer.fields.get("Product Name") or [""])[0]
                notes.append(
                    ParseWarning(
                        line=answer.line,
                        message=f"npu-smi info -t board{npu}"
                        + (f" ({product})" if product else "")
                        + ": "
                        + ", ".join(
                            f"{key} {answer.fields[key][0]}"
                            for key in ("Chip Count", "Chip Fault")
                            if answer.fields.get(key)
                        )
                        + ", as printed: not judged",
                        skipped=False,
                    )
                )
            compat = (answer.fields.get("Compatibility") or [""])[0].upper()
            if compat in ("", "OK", "NA"):
                continue
            health = (
                "driver and firmware not compatible (Compatibility NOK)"
                if compat == "NOK"
                else f"driver and firmware compatibility {compat}"
            )
        if health is None and (hccs := answer.fields.get("hccs health status")):
            # -t hccs (npu-smi's reference: the HCCS links' state and their packet, retry and
            # error counts, a figure per link in brackets): a health other than OK, or an error
            # counted on a link, is the chip's fault; retries alone are said
            counts = {
                key: [int(n) for n in re.findall(r"\d+", (answer.fields.get(key) or [""])[0])]
                for key in ("hccs error count", "hccs retry count")
            }
            errors, retries = counts["hccs error count"], counts["hccs retry count"]
            npu = f" of NPU {answer.npu}" if answer.npu is not None else ""
            # driver 25.x's answer counts the links in use and their bandwidth, then a "lane N"
            # line each (zstack-utility's samples captured on one 910B, driver 25.3.rc1,
            # test_gpu_vendors.py: a healthy chip "OK", 3 links in use, 89.4 GB/s, lanes 1; a
            # chip isolated through its BMC "NOK", 0 links, 0 GB/s, lanes 0): said with their
            # lines, and no link in use beside a health not OK is a chip cut off HCCS
            hccs_links, hccs_said = _hccs_figures(answer)
            if hccs[0].upper() == "OK" and not any(errors):
                notes.append(
                    ParseWarning(
                        line=answer.line,
                        message=f"npu-smi info -t hccs{npu}: health OK, "
                        + (
                            # (driver 25.x's form: no counters, its figures said as printed)
                            f"{hccs_said}, no error counter printed"
                            if hccs_said and not errors
                            else f"{len(errors)} link(s), no error counted; retries "
                            + ", ".join(f"link {i} {n}" for i, n in enumerate(retries) if n)
                            if any(retries)
                            else f"{len(errors)} link(s), no error or retry counted"
                        ),
                        skipped=False,
                    )
                )
                continue
            health = "; ".join(
                part
                for part in (
                    f"HCCS health {hccs[0]}" if hccs[0].upper() != "OK" else "",
                    "HCCS errors counted on "
                    + ", ".join(f"link {i} ({n})" for i, n in enumerate(errors) if n)
                    if any(errors)
                    else "",
                    hccs_said,
                )
                if part
            )
        # -t ecc-enable prints one line a memory (npu-smi's show_ascend_card_ecc_enable, hicann
        # driver source): "ECC-Enable Status" on the 310/310B, "DDR ECC-Enable Status" on other
        # chips but the 910B/910_93/950, then "HBM ECC-Enable Status" on the 910/910B/910_93/950,
        # so an Atlas 910 prints DDR, then HBM: each line is read under its own memory's name
        ecc_line = answer.line
        ecc_enable = [
            (key, values[0])
            for key, values in answer.fields.items()
            if key.endswith("ECC-Enable Status") and values
        ]
        if health is None and ecc_enable:
            # (Ascend 950's npu-smi reference, "Querying the ECC Enabling Status of a Device":
            # "HBM ECC-Enable Status", the ECC enabling status of on-chip memory, "The value can
            # be False or True. The default value is True."): True is said; False, that memory's
            # ECC switched off (its bit errors are then not corrected), is the chip's warning;
            # another value is said, unjudged
            npu = f" of NPU {answer.npu}" if answer.npu is not None else ""
            off = []
            for key, value in ecc_enable:
                hbm = key.startswith("HBM")
                # (the reference's default True is said of the HBM's line; the DDR's and the
                # 310's plain line have no documented default here, so none is said of them)
                memory = (
                    "on-chip memory (HBM)"
                    if hbm
                    else "DDR memory"
                    if key.startswith("DDR")
                    else "memory"
                )
                if value.lower() == "false":
                    off.append(
                        f"{key} {value}: the ECC of its {memory} is off"
                        + (", against its default True" if hbm else "")
                    )
                    continue
                notes.append(
                    ParseWarning(
                        line=answer.lines.get(key, answer.line),
                        message=f"npu-smi info -t ecc-enable{npu}: {key} {value}"
                        + (
                            (
                                " (the on-chip memory's ECC on, its default)"
                                if hbm
                                else f" (the {memory}'s ECC on)"
                            )
                            if value.lower() == "true"
                            else " (npu-smi's reference names True or False only): not judged"
                        ),
                        skipped=False,
                    )
                )
            if not off:
                continue
            health = "; ".join(off)
            # the line of the first memory whose ECC is off
            off_key = next(k for k, v in ecc_enable if v.lower() == "false")
            ecc_line = answer.lines.get(off_key, answer.line)
        hbm_rate = (answer.fields.get("HBM Usage Rate(%)") or [""])[0]
        core_rate = (answer.fields.get("Aicore Usage Rate(%)") or [""])[0]
        use_read = (
            health is None
            and hbm_rate.isdigit()
            and core_rate.isdigit()
            # (the same file's table row of that NPU says it already)
            and not any(
                c["source"] == source and c["npu"] == answer.npu and not c.get("query")
                for c in out.npu_chips
            )
        )
        if use_read:
            # -t usages / -t common: the chip's HBM and AI core use, read as a chip with no
            # health stated (the held-memory check reads them as it reads the table's)
            out.npu_chips.append(
                {
                    **{f.name: None for f in fields(npu_smi.NpuChip)},
                    "source": source,
                    "line": answer.line,
                    "version": "",
                    "npu": answer.npu,
                    "chip": answer.chip,
                    # (-t common's "Chip Name" is its MCU's block, not this chip's)
                    "name": "",
                    "health": None,
                    "bus_id": "",
                    "aicore_pct": int(core_rate),
                    "hbm_used_pct": float(hbm_rate),
                    "processes": [],
                    "error_codes": [],
                    "error_info": [],
                    "query": answer.type or "usages",
                }
            )
        if health is None:
            # usage, memory ... figures: nothing in them is judged
            what = f"npu-smi info -t {answer.type}" if answer.type else "an npu-smi info -t answer"
            if not answer.type and listing:
                # npu-smi info -l: the device list, its "Total Count" first, then each NPU's id,
                # product name and serial number
                what = "npu-smi info -l (the device list)"
            npu = f" of NPU {answer.npu}" if answer.npu is not None else ""
            judged = "figures with no health in them, not judged"
            if KMS_SERVICE_KEYS & set(answer.fields) and answer.type in ("", "key-manage"):
                # (npu-smi's reference, "Querying the Service Status of the KMSAgent Process":
                # auto startup Enable/Disable and running status Running/Stop, Disable and Stop
                # its defaults; it says nothing of what a state means for the NPUs or a job)
                what = "npu-smi info -t key-manage, the KMSAgent key-management service"
                judged = (
                    "the service's state, not the NPUs' health (Disable and Stop are its "
                    "defaults in npu-smi's reference): not judged"
                )
            if setting := SETTING_SAID.get(answer.type):
                # -t sys-time, -t tls-cert-period, -t sys-log-info (npu_smi.SETTING_QUERIES)
                judged = setting
            pairs = [
                (key, values[0])
                for key, values in answer.fields.items()
                if values and key not in ("NPU ID", "Chip ID", "Chip Count")
            ]
            # a version past the figures said is said all the same (the MCU's "Firmware
            # Version", last of its -t board answer): what runs on the chip, not a figure
            kept = [
                f"{key} {value}"
                for at, (key, value) in enumerate(pairs)
                if at < QUERY_FIGURES_SAID or key.split()[-1] == "Version"
            ]
            shown = [f"{key} {value}" for key, value in pairs]
            figures = f" ({'; '.join(kept)}{'; ...' if len(shown) > len(kept) else ''})"
            notes.append(
                ParseWarning(
                    line=answer.line,
                    message=f"{what}{npu}{figures if shown else ''}: "
                    + (
                        "figures with no health in them; its HBM and AI core use are checked "
                        "with the chips'"
                        if use_read
                        else judged
                    ),
                    skipped=False,
                )
            )
            continue
        codes = " ".join(answer.fields.get("Error Code", [])).split()
        if answer.type == "health" and health.upper() == "OK" and not codes:
            # (an answer under its own "npu-smi info -t health" line: its NPU's health said, as
            # the chip is read; a health other than OK is the rules' to judge)
            npu = f" of NPU {answer.npu}" if answer.npu is not None else ""
            notes.append(
                ParseWarning(
                    line=answer.lines.get("Health", answer.lines.get("Health Status", answer.line)),
                    message=f"npu-smi info -t health{npu}: Health OK",
                    skipped=False,
                )
            )
        out.npu_chips.append(
            {
                **{f.name: None for f in fields(npu_smi.NpuChip)},
                "source": source,
                "line": ecc_line,
                "version": "",
                "npu": answer.npu,
                "chip": answer.chip,
                "name": (answer.fields.get("Chip Name") or [""])[0],
                "health": health,
                "bus_id": "",
                "hbm_used_pct": None,
                "processes": [],
                "error_codes": codes,
                "error_info": answer.fields.get("Error Information", []),
                "hccs_links_in_use": hccs_links,
                "query": answer.type
                or link_query
                or (
                    "hccs"
                    if "hccs health status" in answer.fields
                    else "ecc-enable"
                    if ecc_enable
                    else "health"
                ),
            }
        )
    if listed:
        # each "Total Count" line opens one output of -l (several hosts' in one file): its NPUs
        # are the ones listed after it, before the next
        totals = [
            (text.count("\n", 0, m.start()) + 1, int(m.group(1)))
            for m in _NPU_TOTAL_COUNT_RE.finditer(text)
        ]
        opens = [line for line, _ in totals]
        # each entry to the output whose "Total Count" stands last above it (one pass; entries
        # above the first count form a part of their own, with no count)
        parts: dict[int, list[tuple[int, int | None, str, str]]] = {}
        for entry in listed:
            parts.setdefault(bisect.bisect_right(opens, entry[0]) - 1, []).append(entry)
        for at, part in sorted(parts.items()):
            asked = totals[at][1] if at >= 0 else -1
            said_total = f"Total Count {asked}; " if asked >= 0 else "no Total Count above them; "
            short = (
                ": the copy lists fewer than its count, the rest are unknown"
                if asked > len(part)
                else ""
            )
            notes.append(
                ParseWarning(
                    line=part[0][0],
                    message=f"npu-smi info -l: {said_total}{len(part)} NPU(s) listed ("
                    + ", ".join(
                        f"NPU {npu}"
                        + (f" ({product})" if product else "")
                        + (f" with {chips} chip(s)" if chips != "?" else "")
                        for _, npu, chips, product in part
                    )
                    + f"){short}",
                    skipped=bool(short),
                )
            )
    return notes


_NO_TOPO_RE = re.compile(r"^[ \t]*This device does not support querying topo\.", re.M)


_MATRIX_HEAD_RE = re.compile(
    r"^[ \t]*(?:GPU|NPU|Phy-ID)0[ \t]+(?:(?:GPU|NPU|Phy-ID)1\b|NIC0\b|mlx\d|CPU Affinity)"
)
"""A matrix's header (its first device, then the next or the affinity): where a file of several
``topo -m`` outputs starts each."""
# the command a matrix was printed by, on a line above it ("$ nvidia-smi topo -mp", "> nvidia-smi
# topo --matrix_pci"): -mp / --matrix_pci print the PCIe-only matrix (nvidia-smi topo's help:
# "Display the GPUDirect communication matrix for the system (PCI Only)")
_TOPO_COMMAND_RE = re.compile(r"\bnvidia-smi[ \t]+topo[ \t]+(?P<options>[^\n|;&>]*)")
_PCI_ONLY_OPTION_RE = re.compile(r"(?:^|[ \t])(?:-mp|--matrix_pci)(?=$|[ \t])")
# its legend's lines: topo -m's names NVLink last ("PIX = Connection traversing at most a single
# PCIe bridge", then "NV# = Connection traversing a bonded set of # NVLinks"); -mp's ends at PIX
_LEGEND_NODE_RE = re.compile(r"^[ \t]*NODE[ \t]*=[ \t]*Connection traversing PCIe", re.M)
_LEGEND_PIX_RE = re.compile(r"^[ \t]*PIX[ \t]*=[ \t]*Connection traversing")
_LEGEND_NVLINK_RE = re.compile(r"^[ \t]*NV#[ \t]*=")


def _pcie_only(part: str, whole: str) -> bool:
    """The matrix in ``part`` (its lines at their places in ``whole``) is ``nvidia-smi topo
    -mp``'s, the PCIe-only one, in which NVLink never shows: the nearest ``nvidia-smi topo``
    command above its header (no other matrix between) says ``-mp`` / ``--matrix_pci``, or, with
    no command in the copy, its legend names the PCIe paths, NODE among them (drivers that print
    NODE print NV# in topo -m's legend), and no NV# after its PIX line (a legend cut before
    that line's next says nothing)."""
    lines = part.split("\n")
    head = next((i for i, line in enumerate(lines) if _MATRIX_HEAD_RE.match(line)), None)
    if head is None:
        return False
    for line in reversed(whole.split("\n")[:head]):
        if _MATRIX_HEAD_RE.match(line):
            break
        if command := _TOPO_COMMAND_RE.search(line):
            return bool(_PCI_ONLY_OPTION_RE.search(command.group("options")))
    below = lines[head:]
    pix = next((i for i, line in enumerate(below) if _LEGEND_PIX_RE.match(line)), None)
    if pix is None or not _LEGEND_NODE_RE.search("\n".join(below[:pix])):
        return False
    # (the line after PIX's, whole: followed by another, or not blank)
    after = below[pix + 1 : pix + 3]
    complete = len(after) == 2 or (len(after) == 1 and after[0].strip() != "")
    return complete and not _LEGEND_NVLINK_RE.match(after[0])


def _matrices(text: str) -> list[str]:
    """``text`` once a matrix: each header to the next, the other lines left empty so line
    numbers hold; the whole text when it holds one header or none."""
    lines = text.split("\n")
    heads = [i for i, line in enumerate(lines) if _MATRIX_HEAD_RE.match(line)]
    if len(heads) < 2:
        return [text]
    bounds = [*heads[1:], len(lines)]
    return [
        "\n".join(line if start <= i < end else "" for i, line in enumerate(lines))
        for start, end in zip(heads, bounds, strict=True)
    ]


def _topo(tool: str, parser: Any) -> Any:
    def convert(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
        # (a -p2p status matrix after a topo -m is another answer: not one of its matrices)
        parts = [
            part
            for part in _matrices(text)
            if not (_P2P_ROW_RE.search(part) and not _LINK_ROW_RE.search(part))
        ] or [text]
        if len(parts) > 1:
            # several outputs in one file (a notes file of each host's matrix): each its own; one
            # that cannot be read is said at its place, the others kept
            found: list[ParseWarning] = []
            for part in parts:
                try:
                    found += convert_one(part, source, out, text)
                except ParseError as e:
                    head = next(
                        (n for n, t in enumerate(part.split("\n"), 1) if _MATRIX_HEAD_RE.match(t)),
                        0,
                    )
                    found.append(ParseWarning(line=e.line or head, message=e.message))
            return found
        # (the one matrix left: a -p2p block after a topo -m that lost its legend is not read
        # as more of its rows)
        return convert_one(parts[0], source, out, text)

    def convert_one(text: str, source: str, out: EvidenceFacts, whole: str) -> list[ParseWarning]:
        try:
            topo = parser(text)
        except ParseError:
            no_topo = _NO_TOPO_RE.search(text) if tool == "npu-smi" else None
            if no_topo is None:
                raise
            # npu-smi's own answer on a device without the query (Atlas 200I A2's command
            # reference, "Querying the Topology of Multiple NPUs"): read, there is no matrix
            return [
                ParseWarning(
                    line=text.count("\n", 0, no_topo.start()) + 1,
                    message="npu-smi says this device does not support querying its topology: "
                    "no matrix to read",
                    skipped=False,
                )
            ]
        # rows read with a doubt (a cut matrix, misplaced cells, a row short of a link cell)
        warnings: list[ParseWarning] = list(topo.warnings)
        # (the parser's own words for links a copy lost: "... are unknown")
        cut = any("unknown" in w.message for w in warnings)
        nic_columns = set(getattr(topo, "nics", {}))  # (nvidia-smi's only)
        pcie_only = (
            tool == "nvidia-smi"
            and not any(k.startswith("NV") for k in topo.kinds())
            and _pcie_only(text, whole)
        )
        out.topologies.append(
            {
                "source": source,
                "tool": tool,
                "devices": topo.devices,
                "links": topo.links,
                "cpu_affinity": topo.cpu_affinity,
                "kinds": sorted(topo.kinds()),
                "sys_pairs": sorted(
                    sorted([a, b])
                    for a, row in topo.links.items()
                    for b, kind in row.items()
                    # SOC: the name older drivers gave SYS (their legend: "traversing PCIe as
                    # well as the SMP link between CPU sockets")
                    if kind in ("SYS", "SOC")
                    # (devices only: a GPU's path to a NIC is the NIC check's; an npu-smi row's
                    # NPU column is a device whose own row the copy may not hold, each pair
                    # once)
                    and a in topo.devices
                    and (
                        (a < b and b in topo.devices)
                        or (tool == "npu-smi" and b in topo.columns and b not in topo.devices)
                    )
                    and not a.startswith("NIC")
                    and not b.startswith("NIC")
                    # (an older driver's NIC column is named by its RDMA device, mlx5_0)
                    and a not in nic_columns
                    and b not in nic_columns
                ),
                # nvidia-smi: GPU pairs whose path is PHB (the CPU's PCIe host bridge): no NVLink
                # and no PCIe switch between them (its legend: "PHB = Connection traversing PCIe
                # as well as a PCIe Host Bridge (typically the CPU)")
                "phb_pairs": (
                    sorted(
                        sorted([a, b])
                        for a, row in topo.links.items()
                        for b, kind in row.items()
                        if kind == "PHB"
                        and a < b
                        and a.startswith("GPU")
                        and b.startswith("GPU")
                        and a in topo.devices
                        and b in topo.devices
                    )
                    if tool == "nvidia-smi"
                    else []
                ),
                # npu-smi: whether any pair is joined by HCCS (HCCS_SW on A3), and whether its SYS
                # pairs are the board's design: no HCCS at all (PCIe cards, Atlas 350's UB-paired
                # cards), or HCCS full meshes with SYS exactly between them (Atlas 800 9000's two
                # rings of four)
                "hccs": tool == "npu-smi" and any(k.startswith("HCCS") for k in topo.kinds()),
                "sys_by_design": tool == "npu-smi" and _sys_by_design(topo.links, topo.legend),
                # npu-smi: the header's NPUs whose own row the copy does not hold
                "rows_missing": (
                    [c for c in topo.columns if c not in topo.devices] if tool == "npu-smi" else []
                ),
                # npu-smi: the NPU rows with no HCCS link to any peer, every one through SYS
                "no_hccs_npus": (
                    _no_hccs_npus(topo.links, topo.row_lines, topo.legend)
                    if tool == "npu-smi"
                    else []
                ),
                # nvidia-smi topo -mp's: its GPU pairs' paths are their PCIe ones, NVLink not
                # shown, so a SYS pair may still be joined by NVLink
                "pcie_only": pcie_only,
                "nvlink_left_out": (
                    _nvlink_left_out(topo.links, cut=cut) if tool == "nvidia-smi" else []
                ),
                "no_near_nic": _no_near_nic(topo.links, cut=cut) if tool == "nvidia-smi" else [],
                "no_gdr_nic": _no_gdr_nic(topo.links, cut=cut) if tool == "nvidia-smi" else [],
                "sys_within_numa": (
                    _sys_within_numa(
                        topo.links,
                        {g: f"NUMA node {n}" for g, n in numa.items()}
                        if (numa := getattr(topo, "numa_affinity", {}))
                        else {g: f"CPU affinity {c}" for g, c in topo.cpu_affinity.items()},
                        cut=cut,
                    )
                    if tool == "nvidia-smi"
                    else {}
                ),
                "numa_affinity": getattr(topo, "numa_affinity", {}),  # nvidia-smi's only
                "gpu_numa_id": getattr(topo, "gpu_numa_id", {}),
                "nics": getattr(topo, "nics", {}),
                "warnings": [{"line": w.line, "message": w.message} for w in warnings],
            }
        )
        if tool == "npu-smi" and len(topo.columns) > len(topo.devices) and not cut:
            # a header over fewer rows (a copy of one NPU's row, grep'd or cut): the links
            # between the NPUs without a row are not in it
            missing = out.topologies[-1]["rows_missing"]
            warnings.append(
                ParseWarning(
                    line=min(topo.row_lines.values(), default=0),
                    message=f"the matrix's header names {len(topo.columns)} NPUs but the copy "
                    f"holds the row(s) of {', '.join(topo.devices)} only: the links among "
                    f"{', '.join(missing)} are not in it",
                    skipped=False,
                )
            )
        if pcie_only:
            warnings.append(
                ParseWarning(
                    line=0,
                    message="nvidia-smi topo -mp: the PCIe-only matrix, which never shows NVLink: "
                    "its GPU pairs' entries are their PCIe paths, not whether NVLink joins them",
                    skipped=False,
                )
            )
        if tool == "nvidia-smi" and (near := _nearest_nics(topo.links, getattr(topo, "nics", {}))):
            warnings.append(ParseWarning(line=0, message=near, skipped=False))
        return warnings

    return convert


NVLINK_MESH_PEERS = 2
"""The NVLink peers a GPU of an NVLink mesh has at least: a pair of PCIe cards joined by a
bridge has one, so a card without a bridge beside them is no GPU left out."""
BASEBOARD_GPUS = 8
"""The GPUs of an HGX baseboard, every one joined to the others by NVLink through its NVSwitches
(NVIDIA's NVSwitch platform list: HGX A100, H100, H800, H200, B200, B300 8-GPU baseboards). A
machine with another count may hold a GPU without NVLink by design (DGX Station A100's display
GPU, a PCIe card beside a 4-GPU board): no GPU of it is said to be left out."""


PCIE_PATH_ORDER = ("PIX", "PXB", "PHB", "NODE", "SYS", "SOC")
"""nvidia-smi topo -m's PCIe paths, nearest first (its legend: one switch, several switches,
the host bridge, within a NUMA node, across the SMP link; SOC is older drivers' SYS)."""


def _gpus_and_nics(links: dict[str, dict[str, str]]) -> tuple[list[str], set[str]]:
    """A ``nvidia-smi topo -m`` matrix's GPU rows and the NIC columns they reach (every peer
    that is no GPU and no CPU: ``NIC0``, or an older driver's ``mlx5_0``)."""
    gpus = [d for d in links if d.startswith("GPU")]
    return gpus, {peer for g in gpus for peer in links[g] if not peer.startswith(("GPU", "CPU"))}


def _nearest_nics(links: dict[str, dict[str, str]], names: dict[str, str]) -> str | None:
    """A note of each GPU's nearest NIC(s) by their PCIe path (``GPU0, GPU1: mlx5_2 (NODE)``,
    ``GPU0: NIC0 (mlx5_0) (PIX)`` where the NIC legend names it), GPUs with the same answer
    together; None for a matrix without NIC columns."""
    named: dict[str, list[str]] = {}
    gpus, every_nic = _gpus_and_nics(links)
    for gpu in gpus:
        paths = {
            peer: kind
            for peer, kind in links[gpu].items()
            if peer in every_nic and kind in PCIE_PATH_ORDER
        }
        if not paths or len(paths) < len(every_nic):
            continue  # (a row cut short of some NICs' cells: its nearest one is not known)
        best = min(PCIE_PATH_ORDER.index(k) for k in paths.values())
        near = [
            f"{p} ({names[p]})" if names.get(p, p) != p else p
            for p, k in paths.items()
            if PCIE_PATH_ORDER.index(k) == best
        ]
        named.setdefault(f"{', '.join(near)} ({PCIE_PATH_ORDER[best]})", []).append(gpu)
    if not named:
        return None
    return "nvidia-smi topo -m: the nearest NIC of each GPU: " + "; ".join(
        f"{', '.join(gpus)}: {nics}" for nics, gpus in named.items()
    )


GDR_NEAR_PATHS = ("PIX", "PXB")
"""The paths within NCCL's default GPU Direct RDMA distance (src/graph/paths.cc,
ncclTopoCheckGdr: netGdrLevel PATH_PXB unless NCCL_NET_GDR_LEVEL says otherwise): a GPU whose
every NIC is farther (PHB, NODE, SYS) sends to the network through host memory, or over NVLink
through a peer GPU's NIC (PXN)."""


def _no_near_nic(links: dict[str, dict[str, str]], cut: bool = False) -> list[str]:
    """GPUs of a ``nvidia-smi topo -m`` matrix with NIC columns that have no NIC within
    ``GDR_NEAR_PATHS`` where another GPU of it has one (the NICs sit by some GPUs only); none
    from a matrix without NICs, with no GPU near one, or whose copy lost links (``cut``)."""
    gpus, nics = _gpus_and_nics(links)
    if cut or not nics:
        return []
    near = {g: any(links[g].get(n) in GDR_NEAR_PATHS for n in nics) for g in gpus}
    if not any(near.values()):
        return []
    return [g for g in gpus if not near[g]]


def _no_gdr_nic(links: dict[str, dict[str, str]], cut: bool = False) -> list[str]:
    """The GPUs of a ``nvidia-smi topo -m`` matrix with NIC columns where no GPU has a NIC within
    ``GDR_NEAR_PATHS`` (every NIC behind a host bridge: PHB, NODE or SYS), all of them: NCCL
    uses GPU Direct RDMA with none of its NICs by default, and no peer GPU's NIC is nearer
    (PXN). None from a matrix without NICs, with a GPU near one (``_no_near_nic``'s), or whose
    copy lost links (``cut``) or cells of a GPU's row."""
    gpus, nics = _gpus_and_nics(links)
    if cut or not nics or not gpus:
        return []
    for gpu in gpus:
        cells = [links[gpu].get(n) for n in nics]
        if any(c not in PCIE_PATH_ORDER for c in cells) or any(c in GDR_NEAR_PATHS for c in cells):
            return []  # (a row without every NIC's cell, or a NIC by some GPU)
    return gpus


def _sys_within_numa(
    links: dict[str, dict[str, str]], affinity: dict[str, str], cut: bool = False
) -> dict[str, list[str]]:
    """Of a ``nvidia-smi topo -m`` matrix whose every GPU pair is SYS (SOC), the GPUs that share
    a NUMA node (CPU affinity) anyway, by it: no pair has a path nearer than SYS even within a
    socket, which a two-socket server's cross-socket pairs do not explain (a GPU per socket, or
    a matrix with a nearer pair, gives none). Empty for a copy that lost links (``cut``) or
    without the affinity columns."""
    gpus = [g for g in links if g.startswith("GPU")]
    if cut or len(gpus) < 2:
        return {}
    # (affinity: each GPU's node already named, "NUMA node 0" or "CPU affinity 0-7")
    for a in gpus:
        for b in gpus:
            if a != b and links[a].get(b) not in ("SYS", "SOC"):
                return {}
    by_node: dict[str, list[str]] = {}
    for g in gpus:
        if (where := affinity.get(g, "")) and not where.endswith((" ", "N/A")):
            by_node.setdefault(where, []).append(g)
    return {where: shared for where, shared in by_node.items() if len(shared) > 1}


def _nvlink_left_out(links: dict[str, dict[str, str]], cut: bool = False) -> list[str]:
    """GPUs of a ``nvidia-smi topo -m`` matrix of a baseboard's eight GPUs with no NVLink
    (``NV#``) to any other GPU where another GPU of it reaches two or more peers by NVLink: a
    GPU whose links are down or that is out of the board's NVLink fabric (its peers then reach
    it over PCIe: SYS, NODE, PIX). Only rows the copy kept whole are judged (``cut``: it lost
    some rows or cells; a GPU's row with every GPU column still tells its own links)."""
    gpus = sorted(
        {c for row in links.values() for c in row if c.startswith("GPU")}
        | {d for d in links if d.startswith("GPU")},
        key=lambda name: int(name[3:]),
    )
    if len(gpus) != BASEBOARD_GPUS:
        return []
    whole = [g for g in gpus if g in links and all(p in links[g] for p in gpus)]
    if cut and len(whole) < 2:
        return []
    nv_peers = {
        g: sum(1 for peer in gpus if peer != g and links[g][peer].startswith("NV")) for g in whole
    }
    if max(nv_peers.values(), default=0) < NVLINK_MESH_PEERS:
        return []
    return [g for g in whole if nv_peers[g] == 0]


def _hccn(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    bundle = hccn_tool.parse_bundle(text)
    for port in bundle.ports:
        out.npu_ports.append({"source": source, **asdict(port)})
    return bundle.warnings


def _pfc_received_said(got: hccn_tool.PfcReceived, npu: hccn_tool.StatSamples) -> str:
    """The PFC pause frames an NPU's port received, their rise over its samples and their share
    of the RoCE packets it sent, as its note says them."""
    rise = (
        f"{got.first:,} (line {got.first_line}) to {got.last:,} (line {got.last_line}), "
        f"+{got.grew:,}"
        + (f" in {got.span_s} s" if got.span_s is not None else "")
        + (
            f" (all of it by line {got.grew_by_line}"
            + (f", {got.grew_by_s} s in" if got.grew_by_s is not None else "")
            + ")"
            if got.grew_by_line is not None
            else ""
        )
        if got.last_line != got.first_line
        else f"{got.last:,} (line {got.last_line})"
    )
    shares = []
    if got.over_samples and got.share is not None and got.sent_grew:
        shares.append(
            f"{got.share:.2g} a RoCE packet sent between the samples (roce_tx_all_pkt_num "
            f"+{got.sent_grew:,})"
        )
    if got.sent:
        shares.append(f"{got.last / got.sent:.2g} a RoCE packet sent since the driver started")
    if not got.over_samples:
        # (FaultDiag weighs the samples' differences, never the totals: hccn_tool.pfc_received)
        shares.append(
            "no congestion share judged: "
            + (
                "one sample, the totals are since the driver started"
                if got.last_line == got.first_line
                else "no RoCE packet sent (roce_tx_all_pkt_num) between the samples"
            )
        )
    sent_pfc = [c.get("mac_tx_pfc_pkt_num") for _, _, c in npu.rows]
    return (
        f"PFC pause frames received (mac_rx_pfc_pkt_num) {rise}"
        + (f"; {', '.join(shares)}" if shares else "")
        + (
            f"; sent (mac_tx_pfc_pkt_num) {sent_pfc[-1]:,}, +{sent_pfc[-1] - sent_pfc[0]:,}"
            if sent_pfc
            and sent_pfc[0] is not None
            and sent_pfc[-1] is not None
            and len(sent_pfc) > 1
            else ""
        )
    )


def _hccn_stat_csv(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """MindCluster's sampled hccn_tool -stat CSV (npu_<id>_details.csv): each NPU's last sample
    as its port's ``-stat -g`` reading (the counters run from the driver's start), and a note of
    its samples, its error counters and the PFC priorities that carried pause frames."""
    found, notes = hccn_tool.parse_stat_csv(text)
    for npu in found:
        port = hccn_tool.Port(
            device=npu.device,
            line=npu.line,
            stat=npu.stat,
            stat_errors=hccn_tool.stat_errors(npu.stat),
        )
        out.npu_ports.append({"source": source, **asdict(port)})
        errors = {k: v for k, v in npu.stat.items() if ("err" in k or "bad" in k) and v}
        pfc = sorted(
            {
                int(k[len("mac_tx_pfc_pri") :][0])
                for k, v in npu.stat.items()
                if k.startswith(("mac_tx_pfc_pri", "mac_rx_pfc_pri")) and v
            }
        )
        cnp = {k: v for k, v in npu.stat.items() if "cnp" in k and v}
        span = (
            f" over {npu.last_s - npu.first_s} s"
            if npu.first_s is not None and npu.last_s is not None
            else ""
        )
        said = [
            f"{npu.samples} sample(s){span}, {len(npu.stat)} counter(s) in its last (line "
            f"{npu.line})",
            (
                "error counters not 0: " + ", ".join(f"{k} {v}" for k, v in errors.items())
                if errors
                else "every error and bad-packet counter 0"
            ),
        ]
        if npu.grew:
            said.append(
                "grew between its samples: " + ", ".join(f"{k} +{v}" for k, v in npu.grew.items())
            )
        if pfc:
            # (PFC pause frames on the lossless class RoCE uses are flow control at work, unless
            # past a share of the RoCE packets sent: hccn_tool.PFC_RECEIVED_SHARE)
            said.append(f"PFC pause frames on priority {', '.join(map(str, pfc))}")
        if (got := hccn_tool.pfc_received(npu)) is not None:
            said.append(_pfc_received_said(got, npu))
            if got.congested:
                _add_failure(
                    out,
                    source,
                    logs.LogEvent(
                        kind="npu_pfc_congestion",
                        line=got.last_line,
                        message=f"NPU {npu.device}: mac_rx_pfc_pkt_num {got.last:,} "
                        f"(+{got.grew:,} over its samples)",
                        library="hccn_tool",
                        device=npu.device,
                        # (congested only over the samples' growth: hccn_tool.pfc_received)
                        exception_type=f"{got.share:.2g} PFC pause frames received a RoCE packet "
                        f"sent between its samples (roce_tx_all_pkt_num +{got.sent_grew or 0:,}), "
                        f"at or past {hccn_tool.PFC_RECEIVED_SHARE}: the switch port held "
                        "the NPU's sending back (network congestion)",
                    ),
                )
        if cnp:
            said.append(
                "congestion notifications: " + ", ".join(f"{k} {v}" for k, v in cnp.items())
            )
        notes.append(
            ParseWarning(
                line=npu.line,
                message=f"hccn_tool -stat samples (MindCluster's environment check), NPU "
                f"{npu.device}: " + "; ".join(said),
                skipped=False,
            )
        )
    return notes


IDLE_PCT = 5
BUSY_PCT = 80
"""A GPU at most IDLE_PCT % busy among GPUs of one output most of which are at least BUSY_PCT %:
in a data-parallel job every rank's GPU works alike, so the idle one's process has stopped (hung
in a collective, or waiting on its host) while the others compute or spin in theirs."""


def _mark_idle(gpus: list[dict[str, Any]]) -> None:
    """Flag ``idle_among_busy`` on the GPUs of one output (one file's) that idle among busy ones."""
    known = [g for g in gpus if g.get("util_pct") is not None]
    if len(known) < 3:
        return
    for gpu in known:
        others = [g for g in known if g is not gpu]
        busy = sum(1 for g in others if g["util_pct"] >= BUSY_PCT)
        # (a GPU the process table lists no process on is unused by the job, not stopped in it)
        gpu["idle_among_busy"] = (
            gpu["util_pct"] <= IDLE_PCT
            and busy * 2 > len(others)
            and gpu.get("has_process") is not False
        )


HELD_PCT = 50
"""A GPU whose process table lists a compute process on it and at least HELD_PCT % of whose memory
is used is held: a CUDA context alone takes a few hundred MiB, while a training or serving process
reserves most of the GPU (PyTorch's caching allocator keeps what it freed; vLLM takes
gpu_memory_utilization, 0.9 by default, up front), so a job sized for the GPU cannot get what it
needs beside it. As npu-smi's chips (evidence-npu-hbm-held, its 50 % and its reasoning)."""


def _smi_gpu(gpu: nvidia_smi.SmiGpu, source: str, driver: str, cuda: str) -> dict[str, Any]:
    """An nvidia-smi GPU as ``EvidenceFacts.gpus`` holds it: ``processes`` only where the output
    lists them (set by _mark_held as text), so a GPU of no process listing says nothing of them."""
    said = {"source": source, "driver": driver, "cuda": cuda, **asdict(gpu)}
    del said["processes"]
    return said


def _mark_held(gpu: dict[str, Any], rows: list[nvidia_smi.SmiProcess]) -> None:
    """``processes`` (the process table's rows on the GPU, as text) and ``held_by_process`` on a
    status-table GPU. Graphics-only processes (type "G": a workstation's Xorg or compositor) hold
    no compute and leave it out; a GPU under HELD_PCT % used is not held (a burn test's or a
    small process's few GB, as a healthy capture under load shows: set 579)."""
    gpu["processes"] = [
        f"{p.name} (pid {p.pid}" + (f", {p.memory_mib} MiB)" if p.memory_mib is not None else ")")
        for p in rows
    ]
    used, total = gpu.get("memory_used_mib"), gpu.get("memory_total_mib")
    gpu["held_by_process"] = (
        any("C" in p.type for p in rows)
        and used is not None
        and total is not None
        and total > 0
        and used * 100 >= HELD_PCT * total
    )


_XML_FIELD_RE = re.compile(r"<(?P<tag>[a-z_]+)>(?P<value>[^<\n]*)</(?P=tag)>")


_SMI_Q_FIGURES = (
    "ecc_uncorrected", "ecc_corrected", "temp_c", "power_w", "memory_used_mib",
    "memory_total_mib", "remap_pending", "remap_failed", "retired_pages", "pcie_replays",
)  # fmt: skip
"""The figures of an nvidia-smi -q GPU record; a fragment's record with none of them (nor a bus
or a name) is no GPU's reading."""


def _smi_query_xml(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """``nvidia-smi -q -x``: read as its text form (nvidia_smi.xml_query_as_text); a fragment
    without its GPU's record (``<gpu id=...>``) is said in a note of its figures."""
    before = len(out.gpus)
    try:
        notes = _smi_query(nvidia_smi.xml_query_as_text(text), source, out, name)
    except ParseError:
        if "<gpu " in text or "<gpu>" in text:
            raise
        notes = []
    if "<gpu " in text or "<gpu>" in text:
        return notes
    added = out.gpus[before:]
    if any(
        g["bus_id"] or g["name"] or any(g[k] is not None for k in _SMI_Q_FIGURES) for g in added
    ):
        return notes
    del out.gpus[before:]  # a record of no figure the reader knows: said below instead
    fields: dict[str, str] = {}
    active: list[str] = []
    for m in _XML_FIELD_RE.finditer(text):
        tag, value = m.group("tag"), m.group("value").strip()
        if tag.startswith(("clocks_throttle_reason_", "clocks_event_reason_")):
            if value == "Active":
                active.append(tag.split("_reason_", 1)[1])
            continue
        fields.setdefault(tag, value)
    said = [
        f"{label} {fields[tag]}"
        for tag, label in (
            ("product_name", "GPU"),
            ("performance_state", "performance state"),
            ("replay_counter", "PCIe replays"),
            ("gpu_temp", "temperature"),
            ("power_draw", "power draw"),
        )
        if tag in fields
    ]
    if active:
        said.append(f"clock throttle reasons active: {', '.join(active)}")
    if "total" in fields and "used" in fields:
        said.append(f"memory {fields['used']} used of {fields['total']}")
    if not said:
        if notes:
            return notes
        raise ParseError("nvidia-smi -q -x: no GPU record and no figure of one in the copy")
    return [
        *notes,
        ParseWarning(
            line=1,
            message="nvidia-smi -q -x: a fragment without its GPU's record (which GPU, its "
            "driver and its ECC/remapping sections are not in the copy): " + "; ".join(said),
        ),
    ]


_ATTACHED_RE = re.compile(r"^Attached GPUs\s*:\s*(\d+)\s*$", re.M)
_QUERY_RECORD_RE = re.compile(
    r"^GPU [0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]\s*$", re.M
)


_SMI_Q_PRODUCT_RE = re.compile(
    r"^GPU (?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])\s*\n"
    r"\s+Product Name\s*:\s*(?P<name>\S[^\n]*?)\s*$",
    re.M,
)


_SMI_Q_FB_RE = re.compile(
    r"FB Memory Usage\s*\n\s*Total\s*:\s*(?P<total>\d+) MiB\s*\n\s*(?:Reserved\s*:\s*\d+ MiB\s*\n\s*)?"
    r"Used\s*:\s*(?P<used>\d+) MiB\s*\n\s*Free\s*:\s*(?P<free>\d+) MiB"
)
_SMI_Q_GPU_LINE_RE = re.compile(r"^GPU ([0-9A-Fa-f:.]+)\s*$", re.M)
_SMI_Q_UTIL_RE = re.compile(r"Utilization\s*\n\s*Gpu\s*:\s*(\d+) %")
_SMI_Q_TEMP_RE = re.compile(r"Temperature\s*\n\s*(?:GPU Current Temp|Gpu)\s*:\s*(\d+) C")
_QUERY_VERSION_LINE_RE = re.compile(r"^Driver Version\s*:\s*(?P<value>\d+(?:\.\d+)+)\s*$", re.M)


def _latest_q_records(
    records: list[nvidia_smi.SmiGpu],
) -> tuple[list[nvidia_smi.SmiGpu], list[int]]:
    """``-q``'s records with each GPU once: a record of a UUID an earlier one has (the same GPU:
    NVML's UUID is the GPU's own, where a bus id repeats from host to host) stands in the earlier
    one's place, with its index; a later ``nvidia-smi -q`` of the host is its state now. The
    lines of the records read again are given too."""
    at: dict[str, int] = {}
    kept: list[nvidia_smi.SmiGpu] = []
    again: list[int] = []
    for record in records:
        if record.uuid and (earlier := at.get(record.uuid)) is not None:
            record.gpu = kept[earlier].gpu
            kept[earlier] = record
            again.append(record.line)
            continue
        if record.uuid:
            at[record.uuid] = len(kept)
        kept.append(record)
    return kept, again


_SMI_Q_TEMP_FIELD_RE = re.compile(
    r"^[ \t]{0,16}(?P<key>GPU Current Temp|GPU Max Operating Temp|GPU Slowdown Temp|"
    r"GPU Shutdown Temp)[ \t]{0,60}:[ \t]{0,4}(?P<c>\d{1,3}) C[ \t]*$",
    re.M,
)
SMI_TEMP_HEADROOM_C = 3
"""The advisor's margin: a GPU within this many degrees C of its Max Operating Temp (or past it)
is at the temperature where its clocks are capped. nvidia-smi --help-query-gpu,
clocks_throttle_reasons.sw_thermal_slowdown: "SW Thermal capping algorithm is reducing clocks
below requested clocks because GPU temperature is higher than Max Operating Temp"; NVML's
NVML_TEMPERATURE_THRESHOLD_GPU_MAX (the field nvidia-smi prints as Max Operating Temp): "GPU
Temperature at which the GPU can be throttled below base clock". A few degrees is one load step
on a laptop or passively cooled card."""


def _smi_temps_near_limit(
    text: str, gpu_lines: list[re.Match[str]], source: str, out: EvidenceFacts
) -> int:
    """A ``gpu_temp_near_limit`` failure per GPU of a ``-d TEMPERATURE`` page whose current
    temperature is within ``SMI_TEMP_HEADROOM_C`` of its Max Operating Temp or past it (or past
    its Slowdown Temp, where the hardware slows it); how many."""
    near = 0
    for i, gpu in enumerate(gpu_lines):
        end = gpu_lines[i + 1].start() if i + 1 < len(gpu_lines) else len(text)
        fields: dict[str, tuple[int, int]] = {}
        for f in _SMI_Q_TEMP_FIELD_RE.finditer(text, gpu.end(), end):
            fields.setdefault(
                f.group("key"), (int(f.group("c")), text.count("\n", 0, f.start()) + 1)
            )
        if "GPU Current Temp" not in fields:
            continue
        current_c, line = fields["GPU Current Temp"]
        limit = fields.get("GPU Max Operating Temp")
        slowdown = fields.get("GPU Slowdown Temp")
        if slowdown is not None and current_c >= slowdown[0]:
            said = f"at or past its Slowdown Temp {slowdown[0]} C (line {slowdown[1]}): the hardware slows its clocks"
        elif limit is not None and current_c >= limit[0] - SMI_TEMP_HEADROOM_C:
            headroom_c = limit[0] - current_c
            said = (
                f"{headroom_c} C under its Max Operating Temp {limit[0]} C (line {limit[1]})"
                if headroom_c > 0
                else f"at or past its Max Operating Temp {limit[0]} C (line {limit[1]})"
            ) + ": the driver caps its clocks past that temperature (SW Thermal Slowdown)"
        else:
            continue
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="gpu_temp_near_limit",
                line=line,
                message=f"GPU {gpu.group(1)}: GPU Current Temp {current_c} C",
                library="nvidia-smi",
                exception_type=f"GPU {gpu.group(1)} at {current_c} C, {said}",
            ),
        )
        near += 1
    return near


def _smi_query(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    driver, cuda = nvidia_smi.query_versions(text)
    try:
        parsed = nvidia_smi.parse_query(text)
    except ParseError:
        listed = list(_SMI_Q_PRODUCT_RE.finditer(text))
        if not listed and "PCIe Generation" in text:
            # a fragment of one GPU's record: its identity and PCIe link said, nothing judged
            # (a link below its generation at idle is the GPU saving power)
            fields: dict[str, str] = {}
            generation = text[text.index("PCIe Generation") :]
            for f in nvidia_smi.Q_PCI_FIELDS_RE.finditer(text):
                if f.group("key") not in ("Max", "Current"):
                    fields.setdefault(f.group("key"), f.group("value"))
            for f in nvidia_smi.Q_PCI_FIELDS_RE.finditer(generation):
                if f.group("key") in ("Max", "Current"):
                    fields.setdefault(f.group("key"), f.group("value"))
            said = ", ".join(
                f"{label} {fields[key]}"
                for key, label in (
                    ("Bus Id", "bus"),
                    ("Device Id", "device id"),
                    ("GPU Part Number", "part number"),
                    ("Max", "PCIe generation max"),
                    ("Current", "current"),
                )
                if key in fields
            )
            return [
                ParseWarning(
                    line=1,
                    message=f"nvidia-smi -q fragment of one GPU ({said or 'no field named'}): "
                    "no health section in the copy (ECC, remapped rows, clocks), nothing judged",
                    skipped=False,
                )
            ]
        if not listed and "FB Memory Usage" in text and (fb := _SMI_Q_FB_RE.search(text)):
            # a -d MEMORY,UTILIZATION page (no health section asked): its GPU's memory and
            # utilisation said, nothing judged
            gpu_line = _SMI_Q_GPU_LINE_RE.search(text)
            util = _SMI_Q_UTIL_RE.search(text)
            return [
                ParseWarning(
                    line=text.count("\n", 0, fb.start()) + 1,
                    message="nvidia-smi -q -d page"
                    + (f" (driver {driver})" if driver else "")
                    + (f" of GPU {gpu_line.group(1)}" if gpu_line else "")
                    + f": memory {fb.group('used')} of {fb.group('total')} MiB used, "
                    f"{fb.group('free')} free"
                    + (f"; GPU utilisation {util.group(1)} %" if util else "")
                    + "; no health section asked (ECC, remapped rows, clocks), nothing judged",
                    skipped=False,
                )
            ]
        if not listed and (pages := _smi_q_figure_pages(text, driver)):
            return pages
        temps = list(_SMI_Q_TEMP_RE.finditer(text))
        if not listed and temps and "Temperature" in text:
            # -d TEMPERATURE pages (no health section asked): each GPU's temperature said,
            # nothing judged
            gpu_lines = list(_SMI_Q_GPU_LINE_RE.finditer(text))
            said_temps = []
            for t in temps:
                above = [g for g in gpu_lines if g.start() < t.start()]
                said_temps.append(
                    (f"GPU {above[-1].group(1)} " if above else "") + f"{t.group(1)} C"
                )
            drivers = list(
                dict.fromkeys(m.group("value") for m in _QUERY_VERSION_LINE_RE.finditer(text))
            )
            near = _smi_temps_near_limit(text, gpu_lines, source, out)
            return [
                ParseWarning(
                    line=text.count("\n", 0, temps[0].start()) + 1,
                    message="nvidia-smi -q -d TEMPERATURE page(s)"
                    + (f" (driver {', '.join(drivers)})" if drivers else "")
                    + ": "
                    + "; ".join(said_temps)
                    + "; no health section asked (ECC, remapped rows, clocks)"
                    + (
                        f", {near} GPU(s) near or past their temperature limits"
                        if near
                        else ", nothing judged"
                    ),
                    skipped=False,
                )
            ]
        if not listed:
            raise
        # the copy ends above the GPUs' health sections (or holds none of them): the header
        # and the GPUs it lists
        return [
            ParseWarning(
                line=text.count("\n", 0, listed[0].start()) + 1,
                message="nvidia-smi -q ("
                + (f"driver {driver}" if driver else "its header not in the copy")
                + (f", CUDA {cuda}" if cuda else "")
                + "): "
                + "; ".join(f"GPU {m.group('bus')} {m.group('name')}" for m in listed)
                + " listed, the copy ends before their health sections (ECC, remapped rows, "
                "clocks): none judged",
            )
        ]
    parsed, again = _latest_q_records(parsed)
    gpus = [_smi_gpu(gpu, source, driver, cuda) for gpu in parsed]
    for entry, record in zip(gpus, parsed, strict=True):
        if record.processes is None:
            continue
        # -q's Processes section as the status table's process table: which GPUs a process
        # holds (its memory figures are the same NVML query's)
        entry["has_process"] = bool(record.processes)
        _mark_held(entry, record.processes)
    _mark_idle(gpus)
    out.gpus.extend(gpus)
    notes: list[ParseWarning] = []
    if again:
        notes.append(
            ParseWarning(
                line=again[0],
                message=f"nvidia-smi -q again (line {again[0]}): {len(again)} record(s) of GPUs "
                "the file already holds (their UUIDs), each GPU's latest record read as its "
                "state, the earlier ones as before it (a check before and after a change: a "
                "process ended, a reset)",
                skipped=False,
            )
        )
    if (attached := _ATTACHED_RE.search(text)) and (
        records := len(_QUERY_RECORD_RE.findall(text))
    ) < int(attached.group(1)):
        notes.append(
            ParseWarning(
                line=text.count("\n", 0, attached.start()) + 1,
                message=f"nvidia-smi -q: {attached.group(1)} GPUs attached, the file holds "
                f"{records} GPU record(s): the others were cut from the copy or not asked (-i)",
                skipped=False,
            )
        )
    clocks: dict[str, list[nvidia_smi.SmiGpu]] = {}  # a clocks reading → the GPUs it is of
    for gpu in parsed:
        if "active" in gpu.clock_reasons:
            # the page's performance state and its clock reasons in force (Idle on a GPU at
            # rest; the slowing ones are judged as gpu.throttled): said, GPUs alike at once
            in_force = gpu.clock_reasons["active"]
            reading = (
                (f"performance state {gpu.perf}; " if gpu.perf else "")
                + "clock reasons in force: "
                + (", ".join(in_force) if in_force else "none")
                + " (the others listed Not Active)"
                # (what a slowdown in force left of the core clocks, where the page has them)
                + (
                    f"; core clocks {gpu.core_clocks_said}"
                    if gpu.throttled and gpu.core_clocks_said
                    else ""
                )
                + _power_cap_said(gpu)
            )
            clocks.setdefault(reading, []).append(gpu)
    for reading, alike in clocks.items():
        notes.append(
            ParseWarning(
                line=alike[0].line,
                message="nvidia-smi -q"
                + (f" (driver {driver})" if driver else "")
                + ": "
                + ("GPU " if len(alike) == 1 else f"{len(alike)} GPUs ")
                + ", ".join(g.bus_id or f"#{g.gpu + 1}" for g in alike[:8])
                + (" ..." if len(alike) > 8 else "")
                + f": {reading}",
                skipped=False,
            )
        )
    for gpu in parsed:
        _slowdown_recorded(gpu, source, out)
        if (history := _memory_history(gpu)) is not None:
            notes.append(history)
        if gpu.remapped_uncorrectable and not gpu.remap_pending and not gpu.remap_failed:
            # rows remapped after uncorrectable errors, the remap done (nothing pending, none
            # failed): the GPU repaired its memory, a figure to watch, not a fault now
            notes.append(
                ParseWarning(
                    line=gpu.line,
                    message=f"GPU {gpu.bus_id or f'#{gpu.gpu + 1} of the output'}: "
                    f"{gpu.remapped_uncorrectable} row(s) "
                    "remapped after uncorrectable memory errors, none pending, none failed",
                    skipped=False,
                )
            )
        if (held := _power_limit_held(gpu)) is not None:
            notes.append(held)
        if gpu.pcie_replays:
            # NVML's PCIe replay counter: DCGM judges its rate (replays per minute, its
            # DCGM_FR_PCI_REPLAY_RATE), which a count since the last reset cannot give
            notes.append(
                ParseWarning(
                    line=gpu.line,
                    message=f"nvidia-smi -q: GPU {gpu.bus_id or gpu.gpu}: {gpu.pcie_replays} PCIe "
                    "replays since its last reset (packets the link sent again after an error; "
                    "a count that keeps rising between two reads, not the total, marks a bad "
                    "link or slot)",
                    skipped=False,
                )
            )
    return notes


# the share of its power limit a GPU's draw must reach for its SW Power Cap to be read as a GPU
# under load at its limit: the cap holds the average draw to the limit (nvidia-smi
# --help-query-gpu, clocks_event_reasons.sw_power_cap: "... because the GPU is consuming too much
# power"), and one instant's reading sits somewhat under it; far under it the record does not
# show that load
SW_POWER_CAP_NEAR_LIMIT_FRACTION = 0.9
# a busy GPU's draw close to its limit reads the same way (review 70a: 612 W of 700 W at 100 %
# utilisation, its clocks under their Max Clocks: the documented case, the driver "reducing the
# clocks below requested clocks because the GPU is consuming too much power"); the advisor's own
# shares, no NVIDIA figure behind them
SW_POWER_CAP_BUSY_FRACTION = 0.85
SW_POWER_CAP_BUSY_UTIL_PCT = 90
# under this share of its limit the draw is far from it: only there does the advisor say that the
# record does not show why the flag is set; between, the figures are said with no claim
SW_POWER_CAP_FAR_FRACTION = 0.5


def _power_cap_said(gpu: nvidia_smi.SmiGpu) -> str:
    """A -q page's SW Power Cap in force, in words, from the record's own figures: nvidia-smi
    --help-query-gpu, clocks_event_reasons.sw_power_cap: "SW Power Scaling algorithm is reducing
    the clocks below requested clocks because the GPU is consuming too much power". Called a GPU
    under load at its limit (not a fault; SLOWING_REASONS leaves it out alike) only where its
    Power Draw is within SW_POWER_CAP_NEAR_LIMIT_FRACTION of its power limit, or within
    SW_POWER_CAP_BUSY_FRACTION at SW_POWER_CAP_BUSY_UTIL_PCT utilisation or more; "far under"
    its limit only under SW_POWER_CAP_FAR_FRACTION of it; otherwise the flag is said with the
    draw, limit, utilisation and clocks and no cause is claimed; where the page holds no draw, the flag alone. Empty where the cap is not in
    force."""
    if "SW Power Cap" not in gpu.clock_reasons.get("active", []):
        return ""
    head = f"; SW Power Cap in force (line {gpu.reason_lines.get('SW Power Cap', gpu.line)})"
    watts, at = gpu.power_readings_w, gpu.power_lines
    draw_key = next(
        (k for k in ("Power Draw", "Average Power Draw", "Instantaneous Power Draw") if k in watts),
        None,
    )
    limit_key = next((k for k in ("Current Power Limit", "Power Limit") if k in watts), None)
    temp = (
        f"; GPU Current Temp {gpu.temp_c} C (line {gpu.temp_line}), no thermal reason active"
        if gpu.temp_c is not None and gpu.temp_line is not None and not gpu.throttled
        else ""
    )
    if draw_key is None or limit_key is None or not watts[limit_key]:
        return (
            head + ": the driver holds the clocks below those asked to keep the GPU under its "
            "power limit (the page holds no power draw and limit to show whether it is at it)"
            + temp
        )
    draw_w, limit_w = watts[draw_key], watts[limit_key]
    lines = sorted({at[draw_key], at[limit_key]})
    figures = f"{draw_w:g} W of its {limit_w:g} W limit (" + (
        f"lines {lines[0]}-{lines[-1]})" if len(lines) > 1 else f"line {lines[0]})"
    )
    util = (
        f" at {gpu.util_pct} % utilisation (line {gpu.util_line})"
        if gpu.util_pct is not None and gpu.util_line is not None
        else ""
    )
    busy = (
        gpu.util_pct is not None
        and gpu.util_pct >= SW_POWER_CAP_BUSY_UTIL_PCT
        and draw_w >= SW_POWER_CAP_BUSY_FRACTION * limit_w
    )
    if draw_w >= SW_POWER_CAP_NEAR_LIMIT_FRACTION * limit_w or busy:
        return (
            head + f": the GPU draws {figures}{util if busy else ''}: the driver holds the "
            "clocks below those asked to keep it under that limit (a GPU under load at its "
            "limit, not a fault)" + temp
        )
    core = [k for k in ("Graphics", "SM") if k in gpu.clocks_mhz and k in gpu.max_clocks_mhz]
    at_max = bool(core) and all(gpu.clocks_mhz[k] >= gpu.max_clocks_mhz[k] for k in core)
    clock_at = sorted(gpu.clock_lines[k] for k in core if k in gpu.clock_lines)
    return (
        head
        + f" while the GPU draws {figures}{util}"
        + (
            "; its core clocks at their Max Clocks"
            + (f" (lines {clock_at[0]}-{clock_at[-1]})" if clock_at else "")
            + ": nothing held down when read"
            if at_max
            else ""
        )
        + (
            "; far under its limit, the record does not show why the flag is set: said, not judged"
            if draw_w < SW_POWER_CAP_FAR_FRACTION * limit_w
            else "; the record does not show whether the driver held the draw to the limit: "
            "said, not judged"
        )
        + temp
    )


# the Clocks Event Reasons Counters that record a slowdown (NVML's cumulative field values
# NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN, _HW_THERM_SLOWDOWN, _HW_POWER_BRAKE_SLOWDOWN:
# nvidia-smi -q -d PERFORMANCE prints them in us from driver 535); SW Power Capping and Sync
# Boost are not among them (a GPU at its power limit under load is healthy, as SLOWING_REASONS)
_SLOWDOWN_COUNTERS = ("SW Thermal Slowdown", "HW Thermal Slowdown", "HW Power Braking")


def _slowdown_recorded(gpu: nvidia_smi.SmiGpu, source: str, out: EvidenceFacts) -> None:
    """A ``gpu_slowdown_recorded`` failure for a -q GPU whose Clocks Event Reasons Counters
    recorded time under a thermal or hardware slowdown, or whose T.Limit margin (GPU T.Limit
    Temp, NVML's distance to the nearest slowdown threshold) is within ``SMI_TEMP_HEADROOM_C``:
    no reason need be in force when read (the counters are a history), the GPU has slowed or is
    about to. Said with its temperature, margin and SW Power Capping time."""
    recorded = [k for k in _SLOWDOWN_COUNTERS if gpu.clock_event_us.get(k)]
    margin_c = gpu.tlimit_margin_c
    near = margin_c is not None and margin_c <= SMI_TEMP_HEADROOM_C
    if not recorded and not near:
        return
    counters_us = gpu.clock_event_us
    said = [
        f"{k} {counters_us[k]} us ({counters_us[k] / 1e6:.2f} s, line {gpu.clock_event_lines[k]})"
        for k in recorded
    ]
    if recorded:
        said[0] += " recorded in its Clocks Event Reasons Counters"
    if counters_us.get("SW Power Capping"):
        said.append(
            f"SW Power Capping {counters_us['SW Power Capping']} us "
            f"(line {gpu.clock_event_lines['SW Power Capping']})"
        )
    if "active" in gpu.clock_reasons:
        said.append(
            "slowing when read: " + ", ".join(gpu.throttled)
            if gpu.throttled
            else "no slowing reason active when read"
        )
    margin_said = (
        f"{margin_c} C of margin to its T.Limit (line {gpu.tlimit_line})"
        if margin_c is not None
        else ""
    )
    if gpu.temp_c is not None:
        said.append(
            f"at {gpu.temp_c} C (line {gpu.temp_line})"
            + (f", {margin_said}" if margin_said else "")
        )
    elif margin_said:
        said.append(margin_said)
    line = gpu.clock_event_lines[recorded[0]] if recorded else gpu.tlimit_line or gpu.line
    name = gpu.bus_id or f"#{gpu.gpu + 1} of the output"
    _add_failure(
        out,
        source,
        logs.LogEvent(
            kind="gpu_slowdown_recorded",
            line=line,
            message=f"GPU {name}: " + (recorded[0] if recorded else "GPU T.Limit Temp"),
            library="nvidia-smi",
            exception_type=f"GPU {name}: " + "; ".join(said),
        ),
    )


_POWER_SAID = (
    ("Average Power Draw", "draw"), ("Power Draw", "draw"),
    ("Instantaneous Power Draw", "instantaneous draw"), ("Current Power Limit", "limit"),
    ("Power Limit", "limit"), ("Enforced Power Limit", "enforced limit"),
    ("Requested Power Limit", "requested limit"), ("Default Power Limit", "default limit"),
    ("Min Power Limit", "min limit"), ("Max Power Limit", "max limit"),
)  # fmt: skip


def _smi_q_figure_pages(text: str, driver: str) -> list[ParseWarning]:
    """``nvidia-smi -q -d POWER`` and ``-d CLOCK`` pages (or their sections copied alone): no
    health section asked, so each GPU's power figures and clocks are said, nothing judged (a
    limit under the maximum is the operator's or the platform's setting, a clock under its Max
    Clocks a GPU not at full load). Empty where no record holds either."""
    notes: list[ParseWarning] = []
    for gpu in nvidia_smi.query_records(text):
        said: list[str] = []
        at: list[int] = []
        if gpu.power_readings_w:
            watts = gpu.power_readings_w
            said.append(
                "power "
                + ", ".join(
                    f"{label} {watts[key]:.2f} W"
                    for key, label in _POWER_SAID
                    if key in watts and not (key == "Power Draw" and "Average Power Draw" in watts)
                )
                + " (lines "
                + f"{min(gpu.power_lines.values())}-{max(gpu.power_lines.values())})"
            )
            at.append(min(gpu.power_lines.values()))
        if gpu.clocks_mhz:
            said.append(
                "clocks "
                + ", ".join(
                    f"{key} {mhz} MHz"
                    + (
                        f" of {gpu.max_clocks_mhz[key]} MHz max"
                        if key in gpu.max_clocks_mhz
                        else ""
                    )
                    for key, mhz in gpu.clocks_mhz.items()
                )
                + f" (lines {min(gpu.clock_lines.values())}-{max(gpu.clock_lines.values())})"
            )
            at.append(min(gpu.clock_lines.values()))
        if not said:
            continue
        notes.append(
            ParseWarning(
                line=min(at),
                message="nvidia-smi -q -d page"
                + (f" (driver {driver})" if driver else "")
                + (f" of GPU {gpu.bus_id}" if gpu.bus_id else "")
                + ": "
                + "; ".join(said)
                + "; no health section asked (ECC, remapped rows, clock slowdowns), nothing judged",
                skipped=False,
            )
        )
    return notes


def _power_limit_held(gpu: nvidia_smi.SmiGpu) -> ParseWarning | None:
    """A note where ``-q``'s Current Power Limit (the limit in force) is under its Requested
    Power Limit (the one set for the GPU): the GPU is held under the limit asked of it, a
    figure said as printed, not judged (a platform's power budget, a GH200's CPU and GPU
    sharing one module, may hold it); None where the two are not both printed or agree."""
    watts = gpu.power_readings_w
    current_w, requested_w = watts.get("Current Power Limit"), watts.get("Requested Power Limit")
    if current_w is None or requested_w is None or current_w >= requested_w:
        return None
    default_w = watts.get("Default Power Limit")
    return ParseWarning(
        line=gpu.power_lines["Current Power Limit"],
        message=f"GPU {gpu.bus_id or f'#{gpu.gpu + 1} of the output'}: its power limit in force "
        f"(Current Power Limit) is {current_w:g} W, under the {requested_w:g} W requested"
        + (f" (default {default_w:g} W)" if default_w is not None else "")
        + f" (lines {gpu.power_lines['Current Power Limit']}-"
        f"{gpu.power_lines['Requested Power Limit']}): the GPU runs capped below the limit set "
        "for it; said, not judged",
        skipped=False,
    )


def _memory_history(gpu: nvidia_smi.SmiGpu) -> ParseWarning | None:
    """A note of a GPU's memory error history (aggregate counts outlive a driver reload; the
    volatile ones the rules judge do not): said, not judged; None where it has none."""
    history = [
        f"{n} {what}"
        for n, what in (
            (gpu.ecc_aggregate_corrected, "correctable ECC error(s) in its lifetime"),
            (gpu.ecc_aggregate_uncorrected, "uncorrectable ECC error(s) in its lifetime"),
            (gpu.remapped_correctable, "row(s) remapped after correctable errors"),
        )
        if n
    ]
    if not history:
        return None
    since_load = (
        ""  # (the volatile counts not in the output: -d ROW_REMAPPER and the like)
        if gpu.ecc_corrected is None or gpu.ecc_uncorrected is None
        else ": none counted since the driver loaded"
        if not gpu.ecc_corrected and not gpu.ecc_uncorrected
        else ", beside the counts since the driver loaded"
    )
    return ParseWarning(
        line=gpu.line,
        message=f"GPU {gpu.bus_id or f'#{gpu.gpu + 1} of the output'}: "
        f"{', '.join(history)} (a memory error history{since_load})",
        skipped=False,
    )


def _smi_query_csv(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """``nvidia-smi --query-gpu ... --format=csv``: a GPU a row, its fields the ones asked."""
    try:
        read = nvidia_smi.read_query_csv(text)
    except nvidia_smi.ValuesOnlyQuery as e:
        # a looped query of values only: no GPU is told apart, what the samples hold is said
        _samples_unread(e.samples, source, out)
        return [ParseWarning(line=e.line, message=_samples_said(e.samples), skipped=False)]
    parsed = read.gpus
    width_notes = _width_against_peers(parsed)
    gpus = [_smi_gpu(gpu, source, gpu.driver_version, "") for gpu in parsed]
    out.gpus.extend(gpus)
    notes = list(read.notes)  # (a loop's samples of the same GPUs, said with their ranges)
    notes += width_notes
    if (idle_gen := _idle_link_gen(parsed)) is not None:
        notes.append(idle_gen)
    masks: dict[str, list[nvidia_smi.SmiGpu]] = {}  # a masks' reading → the GPUs it is of
    for gpu in parsed:
        if (history := _memory_history(gpu)) is not None:
            notes.append(history)
        # each throttle-reasons mask by its reasons' names (".supported": those the GPU can
        # report; ".active": those in force, its slowing ones judged as gpu.throttled)
        said_masks = [
            f"{key} ({_MASK_KINDS.get(key.rsplit('.', 1)[-1], 'reasons')}): " + ", ".join(names)
            for key, names in gpu.clock_reasons.items()
            if names  # (a mask of none: nothing to say)
        ]
        if said_masks:
            masks.setdefault("; ".join(said_masks), []).append(gpu)
        if (pending := _mig_pending_said(gpu)) is not None:
            notes.append(pending)
        if gpu.pcie_width_low:
            notes += _smi_link_idle(gpu)
    for reading, alike in masks.items():
        # (GPUs whose masks read alike, every GPU of a node's supported mask: one note)
        named = [
            f"{g.bus_id or f'#{g.gpu + 1}'}"
            + (f" ({g.name})" if g.name and len(alike) == 1 else "")
            for g in alike
        ]
        notes.append(
            ParseWarning(
                line=alike[0].line,
                message=("GPU " if len(alike) == 1 else f"{len(alike)} GPUs ")
                + ", ".join(named[:8])
                + (" ..." if len(named) > 8 else "")
                + (" of the output" if not alike[0].bus_id else "")
                + f": {reading}",
                skipped=False,
            )
        )
    return notes


_MASK_KINDS = {"active": "in force", "supported": "it can report"}


def _width_against_peers(parsed: list[nvidia_smi.SmiGpu]) -> list[ParseWarning]:
    """A ``--query-gpu`` copy that asked ``pcie.link.width.current`` and not ``.max``: each GPU
    whose current link is narrower than the widest of the copy's other GPUs of its own model
    (``name``) gets that width and GPU (pcie_width_peer_lanes, judged by
    evidence-gpu-pcie-width-below-peers). Without the max the GPU's own link is not known; its
    peers of the same model in the same copy are the nearest measure (a card of another model
    may be built for fewer lanes: no peer of its model, no comparison, said in a note).
    nvidia-smi --help-query-gpu: pcie.link.width.current "The current PCI-E link width. These
    may be reduced when the GPU is not in use." So a GPU whose own earlier sample in the copy
    showed the wider link while this sample is not shown in use, or one at rest (P8 or lower,
    and 0 % utilization where asked), gets a note, not the peer width; a narrow sample in use
    (P0-P7, or utilization above 0 %) gets the peer width. Returns the notes."""
    if any("Max" in g.pcie_width_lanes for g in parsed):
        return []  # the max asked: evidence-gpu-pcie-width-low judges each GPU against its own
    widths = [g for g in parsed if "Current" in g.pcie_width_lanes]
    if len({g.gpu for g in widths}) < 2:
        return []
    notes: list[ParseWarning] = []
    alone: list[nvidia_smi.SmiGpu] = []
    for g in widths:
        peers = [p for p in widths if p.gpu != g.gpu and p.name and p.name == g.name]
        if not peers:
            alone.append(g)
            continue
        lanes, peer = max((p.pcie_width_lanes["Current"], p.gpu) for p in peers)
        current = g.pcie_width_lanes["Current"]
        if current >= lanes:
            continue
        at_rest = (
            g.pstate[1:].isdigit() and int(g.pstate[1:]) >= IDLE_PSTATE and g.util_pct in (None, 0)
        )
        # (the help's "reduced when the GPU is not in use" excuses the narrow sample only where
        # that sample itself is not in use: one in a busy state (P0-P7) or with utilization
        # above 0 % narrowed under load, the very fault, earlier wider sample or not)
        in_use = (g.pstate[1:].isdigit() and int(g.pstate[1:]) < IDLE_PSTATE) or bool(g.util_pct)
        if g.pcie_width_widest is not None and g.pcie_width_widest >= lanes and not in_use:
            why = f"an earlier sample of it in the copy shows x{g.pcie_width_widest}"
        elif at_rest:
            why = f"it is at rest ({g.pstate}" + (", 0 % utilization)" if g.util_pct == 0 else ")")
        else:
            g.pcie_width_peer_lanes, g.pcie_width_peer = lanes, peer
            continue
        notes.append(
            ParseWarning(
                line=g.line,
                message=f"nvidia-smi --query-gpu: GPU {g.gpu} ({g.bus_id or g.name}) at x{current}"
                f" against x{lanes} of GPU {peer}, but {why}: nvidia-smi --help-query-gpu says"
                " pcie.link.width.current 'may be reduced when the GPU is not in use'; read it"
                " again under load; not a fault",
                skipped=False,
            )
        )
    widest = max(g.pcie_width_lanes["Current"] for g in widths)
    if any(g.pcie_width_lanes["Current"] < widest for g in alone):
        # (said only where another model's wider link would have been compared before)
        notes.append(
            ParseWarning(
                line=alone[0].line,
                message="nvidia-smi --query-gpu: "
                + ", ".join(
                    f"GPU {g.gpu} ({g.name or 'no name'}) at x{g.pcie_width_lanes['Current']}"
                    for g in alone
                )
                + ": none has another GPU of its own model in the copy and pcie.link.width.max"
                " was not asked, so their link widths are not compared (a card of another"
                " model may be built for fewer lanes)",
                skipped=False,
            )
        )
    return notes


def _idle_link_gen(parsed: list[nvidia_smi.SmiGpu]) -> ParseWarning | None:
    """A note where GPUs of a ``--query-gpu`` copy in a low performance state (P8 or lower) show
    their current PCIe generation below its max (or no max asked): nvidia-smi's --help-query-gpu
    says pcie.link.gen.current "may be reduced when the GPU is not in use", so the generation
    then says nothing of the link (read it again under load)."""
    idle = [
        g
        for g in parsed
        if "Current" in g.pcie_gen
        and ("Max" not in g.pcie_gen or g.pcie_gen["Current"] < g.pcie_gen["Max"])
        and g.pstate[1:].isdigit()
        and int(g.pstate[1:]) >= IDLE_PSTATE
    ]
    if not idle:
        return None
    return ParseWarning(
        line=idle[0].line,
        message="nvidia-smi --query-gpu: "
        + ", ".join(f"GPU {g.gpu} at PCIe Gen{g.pcie_gen['Current']} in {g.pstate}" for g in idle)
        + ": a GPU in a low performance state may lower its link's generation (nvidia-smi "
        "--help-query-gpu: the current figures 'may be reduced when the GPU is not in use'); "
        "read it again under load; not a fault",
        skipped=False,
    )


IDLE_PSTATE = 8
"""The P-state from which a GPU counts as at rest for its link's generation (--help-query-gpu's
pstate: P0 maximum performance to P12 minimum; P8 and lower are the low-power states)."""


def _smi_link_idle(gpu: nvidia_smi.SmiGpu) -> list[ParseWarning]:
    """A ``--query-gpu`` row whose link runs on fewer lanes than its max (pcie_width_low, judged
    by evidence-gpu-pcie-width-low as -q's Link Width is) while its generation is also below
    its max: nvidia-smi's --help-query-gpu says the current figures "may be reduced when the GPU
    is not in use", so the row may show an idle link; said beside the warning. NVML's max is
    already what the GPU and its slot allow together (nvmlDeviceGetMaxPcieLinkWidth: "a device
    with a 16x PCIe bus width attached to a 8x PCIe system bus ... will report a max link width
    of 8"), so a row at its full generation and fewer lanes is a link that trained narrow."""
    lanes, gen = gpu.pcie_width_lanes, gpu.pcie_gen
    if not ("Current" in gen and "Max" in gen and gen["Current"] < gen["Max"]):
        return []
    return [
        ParseWarning(
            line=gpu.line,
            message=f"nvidia-smi --query-gpu: GPU {gpu.gpu}: x{lanes.get('Current')} of "
            f"x{lanes['Max']} lanes at Gen{gen['Current']} of Gen{gen['Max']}: the link may be "
            "idling (nvidia-smi: the current figures 'may be reduced when the GPU is not in "
            "use'); read it again under load",
            skipped=False,
        )
    ]


def _mig_pending_said(gpu: nvidia_smi.SmiGpu) -> ParseWarning | None:
    """A ``--query-gpu`` row whose ``mig.mode.pending`` differs from its ``mig.mode.current``: a
    MIG change asked (``nvidia-smi -i N -mig 1``) that waits for a GPU reset or reboot, read as
    nvidia-smi's own "MIG mode is in pending enable state" warning is (nvidia_smi's
    _mig_pending_notes): the GPU runs in its current mode until then; a note, not a fault."""
    if not gpu.mig_mode or not gpu.mig_mode_pending or gpu.mig_mode == gpu.mig_mode_pending:
        return None
    change = "enable" if gpu.mig_mode_pending == "Enabled" else "disable"
    named = gpu.bus_id or gpu.uuid or f"#{gpu.gpu + 1} of the output"
    return ParseWarning(
        line=gpu.line,
        message=f"nvidia-smi --query-gpu: MIG {change} pending on GPU {gpu.gpu} ({named}): "
        f"mig.mode.current {gpu.mig_mode}, mig.mode.pending {gpu.mig_mode_pending}; the change "
        "takes effect once the GPU is reset or the system rebooted, until then the GPU runs "
        + ("without MIG" if gpu.mig_mode == "Disabled" else "with its MIG instances")
        + "; a mode change waiting, not a fault",
        skipped=False,
    )


def _samples_unread(
    samples: list[tuple[int, dict[str, str]]], source: str, out: EvidenceFacts
) -> None:
    """A values-only query's rows whose fields NVML could not read (``[Unknown Error]``, ``[GPU
    is lost]``): nvidia-smi could not read a GPU there, which one the rows do not tell (a
    failure; the rows' other values stay samples)."""
    unread = [
        (no, values, bad) for no, values in samples if (bad := nvidia_smi.read_errors(values))
    ]
    if not unread:
        return
    answers = ", ".join(dict.fromkeys(v[key] for _, v, keys in unread for key in keys))
    asked = [key for key in samples[0][1] if key != "timestamp"]
    fields = (
        "every field asked"
        if all(keys == asked for _, _, keys in unread)
        else ", ".join(dict.fromkeys(key for _, _, keys in unread for key in keys))
    )
    no, values, _ = unread[0]
    _add_failure(
        out,
        source,
        logs.LogEvent(
            kind="gpu_driver_error",
            line=no,
            message=", ".join(values.values())[:300],
            library="nvidia-smi",
            exception_type=f"nvidia-smi --query-gpu: NVML answered {answers} for {fields} in "
            f"{len(unread)} of its {len(samples)} row(s)"
            + (" (the rest read)" if len(unread) < len(samples) else "")
            + ": it could not read the GPU in those rows (which GPU a row is, a query of values "
            "only does not tell)",
        ),
    )


QUERY_SAMPLE_FIELDS = 8
"""How many of a values-only query's fields its note gives the range of."""


def _samples_said(samples: list[tuple[int, dict[str, str]]]) -> str:
    """A values-only looped query in words: its rows, their time span, each field's range."""
    fields = [f for f in samples[0][1] if f != "timestamp"]
    ranges = []
    for name in fields[:QUERY_SAMPLE_FIELDS]:
        values = [v[name] for _, v in samples if v.get(name)]
        masks = [nvidia_smi.throttle_mask_names(v) for v in values]
        if values and all(m is not None for m in masks):
            # a throttle-reasons mask by its reasons' names (".supported": those the GPU can
            # report; ".active": those in force, its slowing ones read by throttle_reasons)
            named = dict.fromkeys(n for m in masks for n in m or [])
            what = {"supported": "reasons it can report, none said in force", "active": "in force"}
            ranges.append(
                f"{name} {', '.join(dict.fromkeys(values))} "
                f"({what.get(name.rsplit('.', 1)[-1], 'reasons')}: "
                f"{', '.join(named) if named else 'none'})"
            )
            continue
        numbers = [float(m.group(0)) for v in values if (m := re.match(r"-?\d+(?:\.\d+)?", v))]
        unit = values[0].split(" ", 1)[1] if values and " " in values[0] else ""
        if numbers and len(numbers) == len(values):
            low, high = min(numbers), max(numbers)
            shown = f"{low:g}" if low == high else f"{low:g}-{high:g}"
            ranges.append(f"{name} {shown}{f' {unit}' if unit else ''}")
        elif values:
            ranges.append(f"{name} {', '.join(dict.fromkeys(values))}")
    stamps = [v["timestamp"] for _, v in samples if v.get("timestamp")]
    if not stamps:
        by_name = "name" in samples[0][1]
        return (
            f"nvidia-smi --query-gpu: a looped query (-l) of {len(samples)} row(s), not "
            "time-stamped, "
            + (
                "its GPUs named by product name alone: which GPU a row is cannot be told, "
                "none is judged"
                if by_name
                else "of values only (no index, name or bus id: which GPU a row is cannot be "
                "told, none is judged)"
            )
            + ": "
            + "; ".join(ranges)
        )
    return (
        f"nvidia-smi --query-gpu: a looped query of {len(samples)} time-stamped row(s), "
        f"{stamps[0]} to {stamps[-1]}, of values only (no index, name or bus id: nvidia-smi "
        "stamps each GPU's row apart, so which GPU a row is cannot be told, none is judged): "
        + "; ".join(ranges)
    )


# nvidia-smi's warning under its table that a GPU's InfoROM is corrupt ("WARNING: infoROM is
# corrupted at gpu 0008:00:00.0"); DCGM's same check (DCGM_FR_CORRUPT_INFOROM) says "Flash the
# InfoROM to clear this corruption"
_INFOROM_RE = re.compile(r"WARNING: infoROM is corrupted at gpu (?P<bus>[0-9A-Fa-f:.]+)")


_SMI_LOST_BUS_RE = re.compile(r"device handle for (?:GPU|gpu) ?([0-9A-Fa-f:.]+):")


def _smi_status(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    parsed = nvidia_smi.parse_status(text)
    gpus = [_smi_gpu(gpu, source, parsed.driver, parsed.cuda) for gpu in parsed.gpus]
    if parsed.processes:  # (a table that lists processes: which GPUs hold none)
        for gpu in gpus:
            gpu["has_process"] = gpu["gpu"] in parsed.process_gpus
            _mark_held(gpu, [p for p in parsed.process_rows if p.gpu == gpu["gpu"]])
    _mark_idle(gpus)
    out.gpus.extend(gpus)
    # nvidia-smi's answer that it could not reach a GPU, beside a table in the same file (run
    # before it: "Unable to determine the device handle for GPU 0000:03:00.0: GPU is lost"); a
    # GPU the table below it lists again came back (a reset or reboot between): a warning of
    # what happened, not the GPU's state now
    for event in logs.nvidia_tool_failures(text):
        lost_bus = _SMI_LOST_BUS_RE.search(event.message)
        back = lost_bus is not None and any(
            g.line > event.line
            and g.bus_id
            and g.bus_id.lower().endswith(lost_bus.group(1).lower().split(":", 1)[-1])
            for g in parsed.gpus
        )
        if back:
            event.kind = "gpu_driver_error"
            event.exception_type = (
                f"{event.exception_type}; the table after it (line "
                f"{min(g.line for g in parsed.gpus if g.line > event.line)}) lists that GPU "
                "again: it came back (a reset or reboot between the two)"
            )[:500]  # (the two readings of a lost handle come first since set 729: keep this end)
        _add_failure(out, source, event)
    for m in _INFOROM_RE.finditer(text):
        bus = m.group("bus").lower()
        # the table prints the bus with a longer domain ("00000008:00:00.0" for "0008:00:00.0")
        index = next(
            (g.gpu for g in parsed.gpus if g.bus_id and g.bus_id.lower().endswith(bus)), None
        )
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="gpu_driver_error",
                line=text.count("\n", 0, m.start()) + 1,
                message=m.group(0),
                device=index,
                library="nvidia-smi",
                exception_type=f"nvidia-smi: the InfoROM of GPU {bus}"
                + (f" (GPU {index})" if index is not None else "")
                + " is corrupted (flash the InfoROM, DCGM's advice for a corrupt one)",
            ),
        )
    mig = nvidia_smi.parse_mig_devices(text) if "MIG devices" in text else None
    if mig is None:
        return parsed.warnings
    for gpu in gpus:
        counts = [
            d.ecc_uncorrected
            for d in mig.devices
            if d.gpu == gpu["gpu"] and d.ecc_uncorrected is not None
        ]
        # in MIG mode the GPU's own "Volatile Uncorr. ECC" cell shows the ECC mode (On), the
        # counts are its instances' ("Vol Unc ECC"): their sum is the GPU's
        if gpu["ecc_uncorrected"] is None and any(counts):
            gpu["ecc_uncorrected"] = sum(counts)
    return [*parsed.warnings, *_mig_devices_notes(mig, parsed.gpus)]


def _mig_devices_notes(
    mig: nvidia_smi.MigDevices, gpus: list[nvidia_smi.SmiGpu]
) -> list[ParseWarning]:
    """nvidia-smi's "MIG devices:" table said a GPU at a time: its instances' memory, SMs and
    ECC (a listing: a job sees each instance as its own device), and where the copy cut it."""
    notes: list[ParseWarning] = []
    modes = {g.gpu: g.mig_mode for g in gpus}
    if mig.none_found:
        notes.append(
            ParseWarning(
                line=mig.line,
                message="nvidia-smi: MIG devices: 'No MIG devices found' (MIG mode on, no GPU "
                "instance made: no CUDA device there until one is)",
                skipped=False,
            )
        )
    for index in dict.fromkeys(d.gpu for d in mig.devices):
        devices = [d for d in mig.devices if d.gpu == index]
        mode = modes.get(index)
        notes.append(
            ParseWarning(
                line=devices[0].line,
                message=f"nvidia-smi: GPU {index}"
                + (f" (MIG mode {mode})" if mode else "")
                + f" split into {len(devices)} MIG device(s): "
                + "; ".join(_mig_device_said(d) for d in devices)
                + "; a job sees each as its own device, not the whole GPU",
                skipped=False,
            )
        )
    if mig.cut:
        notes.append(
            ParseWarning(
                line=(mig.devices[-1].line if mig.devices else mig.line),
                message="nvidia-smi: the copy ends inside the 'MIG devices' table: the MIG "
                "devices after "
                + (
                    f"GPU {mig.devices[-1].gpu}'s GI {mig.devices[-1].gpu_instance}"
                    if mig.devices
                    else "its head"
                )
                + " are unknown",
            )
        )
    return notes


def _mig_device_said(device: nvidia_smi.MigDevice) -> str:
    """A MIG device as its table row gives it: "GI 2 / CI 0 (device 0): 60 SMs, 11091 of 40448
    MiB used, uncorrectable ECC 0"."""
    said = [
        f"{device.sm_count} SMs" if device.sm_count is not None else "",
        f"{device.memory_used_mib} of {device.memory_total_mib} MiB used"
        if device.memory_total_mib is not None
        else "",
        f"uncorrectable ECC {device.ecc_uncorrected}" if device.ecc_uncorrected is not None else "",
    ]
    return (
        f"GI {device.gpu_instance} / CI {device.compute_instance} (device {device.mig_device})"
        + (": " + ", ".join(x for x in said if x) if any(said) else "")
    )


def _nvlink(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    parsed = nvidia_smi.parse_nvlink_status(text)
    # A GPU is judged against the GPUs of its own model in the same output: links a board or
    # bridge leaves unconnected are inactive on every one of them alike; a GPU with more
    # inactive links than its peers (or none up where they have some) lost links. A GPU the
    # output shows alone has no peer to be judged against (a PCIe card's bridge leaves some of
    # its links unconnected), so its inactive links are information
    fewest: dict[str, int] = {}
    models: dict[str, int] = {}
    for gpu in parsed.gpus:
        if gpu.speed_gbytes_s or gpu.none_up:  # -s answers; -e's counters say nothing of state
            models[gpu.name] = models.get(gpu.name, 0) + 1
        if gpu.speed_gbytes_s and not gpu.none_up and not gpu.cut:
            # a GPU a copy cut lists fewer links, so fewer inactive: no measure for its peers
            fewest[gpu.name] = min(fewest.get(gpu.name, len(gpu.inactive)), len(gpu.inactive))
    for gpu in parsed.gpus:
        active = len(gpu.speed_gbytes_s) - len(gpu.inactive)
        peers_up = gpu.name in fewest
        alone = models.get(gpu.name, 0) <= 1
        out.nvlinks.append(
            {
                "source": source,
                "line": gpu.line,
                "gpu": gpu.gpu,
                "name": gpu.name,
                "links": {str(n): speed for n, speed in gpu.speed_gbytes_s.items()},
                "inactive": gpu.inactive,
                # (-R lists where each link goes, -c what it can carry, not its state: none is
                # known active)
                "active": active
                if gpu.speed_gbytes_s or not (gpu.remote or gpu.traffic_kib or gpu.capabilities)
                else None,
                "none_up": gpu.none_up,
                # a model made only for NVLink baseboards (SXM modules, B200 ...): no link up
                # there is no board that leaves its links unconnected
                "baseboard": bool(nvidia_smi.BASEBOARD_GPU_RE.search(gpu.name or "")),
                "fewer_than_peers": not alone
                and (
                    (gpu.none_up and peers_up)
                    or (bool(gpu.speed_gbytes_s) and len(gpu.inactive) > fewest.get(gpu.name, 0))
                ),
                "alone": alone,
                "cut": gpu.cut,
                "errors": {str(n): counters for n, counters in gpu.errors.items()},
                "remote": {str(n): peer for n, peer in gpu.remote.items()},
                "traffic_kib": {str(n): kib for n, kib in gpu.traffic_kib.items()},
                # the error counters (Replay, Recovery, CRC Errors ...), not a traffic count
                "error_total": sum(
                    v
                    for counters in gpu.errors.values()
                    for name, v in counters.items()
                    if _ERROR_COUNTER_RE.search(name)
                ),
                "replay_total": _replay_total(gpu.errors),
            }
        )
    parsed.warnings.extend(_nvlink_capabilities(parsed.gpus))
    counted = [g for g in parsed.gpus if g.traffic_kib]
    if counted:
        links = sum(len(g.traffic_kib) for g in counted)
        parsed.warnings.append(
            ParseWarning(
                line=counted[0].line,
                message=f"nvidia-smi nvlink -gt: the traffic counters of {links} link(s) on "
                f"{len(counted)} GPU(s) (KiB since the driver loaded): traffic, not errors or "
                "link states: not judged",
                skipped=False,
            )
        )
    return parsed.warnings


_ERROR_COUNTER_RE = re.compile(r"\berrors?\b", re.I)
_REPLAY_COUNTER_RE = re.compile(r"^(?:replay|recovery) errors?$", re.I)
"""nvidia-smi nvlink -e's "Replay Errors" / "Recovery Errors", dcgmi nvlink -e's "Replay Error" /
"Recovery Error": the counters DCGM's NVLink health watch fails a GPU on (DcgmHealthWatch.cpp,
MonitorNVLink4Fields: "Replay and recovery errors are failures, not warnings", from one error
more over its watch window, DCGM_LIMIT_MAX_NVLINK_ERROR 1; CRC errors only a warning below 100 a
second, DCGM_LIMIT_MAX_NVLINK_CRC_ERROR). The tools print them counted since the driver loaded,
so one read gives a total, not DCGM's increase (evidence-nvlink-replay-errors' line). A newer
driver's "Link Recovery ... Events" are events, no error count."""


def _replay_total(errors: Mapping[int, Mapping[str, int]]) -> int:
    """A GPU's NVLink replay and recovery errors, all its links together (_REPLAY_COUNTER_RE)."""
    return sum(
        v
        for counters in errors.values()
        for name, v in counters.items()
        if _REPLAY_COUNTER_RE.match(name.strip())
    )


def _link_runs(numbers: list[int]) -> str:
    """Link numbers as runs: ``0-3, 5``."""
    runs: list[list[int]] = []
    for n in sorted(numbers):
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs)


def _nvlink_capabilities(gpus: list[nvidia_smi.NvlinkGpu]) -> list[ParseWarning]:
    """A note per GPU of ``nvidia-smi nvlink -c``: each capability with the links that have it
    (``P2P: links 0-5``); a link listing fewer capabilities than the GPU's others is where the
    copy ends (its rest unknown). Capabilities, not link states: nothing is judged."""
    notes = []
    for gpu in gpus:
        if not gpu.capabilities:
            continue
        most = max(len(c) for c in gpu.capabilities.values())
        names = list(dict.fromkeys(n for c in gpu.capabilities.values() for n in c))
        said = []
        for cap in names:
            have = [n for n, c in gpu.capabilities.items() if c.get(cap)]
            # (as nvidia-smi words it: "Link is supported" is NVML's VALID capability, read
            # nothing more into it)
            said.append(
                f"{cap}: {'links ' + _link_runs(have) if have else 'false on every link listed'}"
            )
        short = [n for n, c in gpu.capabilities.items() if len(c) < most]
        notes.append(
            ParseWarning(
                line=gpu.line,
                message="nvidia-smi nvlink -c: "
                + (
                    "a GPU the copy does not name"
                    if gpu.gpu == nvidia_smi.UNNAMED_GPU
                    else f"GPU {gpu.gpu}"
                )
                + (f" ({gpu.name})" if gpu.name else "")
                + f", {len(gpu.capabilities)} link(s) listed; supported: {'; '.join(said)}"
                + (
                    f" (link {short[-1]} lists {len(gpu.capabilities[short[-1]])} of {most}: "
                    "the copy ends there, the rest unknown)"
                    if short
                    else ""
                )
                + ". What each link can carry, not whether it is up (nvidia-smi nvlink -s)",
                skipped=False,
            )
        )
    return notes


def _hccn_conf(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    conf = hccn_conf.parse(text)
    for dev in conf.devices.values():
        out.hccn_conf.append(
            {
                "source": source,
                "device": dev.device,
                "address": dev.address,
                "netmask": dev.netmask,
                "settings": dev.settings,
            }
        )
    return conf.warnings


def _p2p(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    out.p2p.extend({"source": source, **asdict(m)} for m in nvidia_smi.parse_p2p(text))
    return []


def _dcgmi_nvlink(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """``dcgmi nvlink --link-status``: each GPU's and NvSwitch's link slots."""
    statuses, notes = dcgm.parse_link_status(text)
    if not statuses:
        raise ParseError("dcgmi nvlink --link-status: no GPU or NvSwitch with its link states")
    for st in statuses:
        # '_' is a slot the entity does not have (DCGM prints DCGM_NVLINK_MAX_LINKS_PER_GPU
        # slots for every GPU): only the others are its links
        supported = sum(1 for s in st.states if s != "_")
        down = st.links("D")
        out.nvlink_states.append(
            {
                "source": source,
                "line": st.line,
                "tool": "dcgmi",
                "entity": st.entity,
                "id": st.id,
                "states": st.states,
                "up": st.links("U"),
                "down": down,
                "disabled": st.links("X"),
                "supported": supported,
                "all_down": bool(supported) and len(down) == supported,
            }
        )
    return notes


def _dcgmi_nvlink_errors(
    text: str, source: str, out: EvidenceFacts, name: str
) -> list[ParseWarning]:
    """``dcgmi nvlink -e``: each GPU's links' error counters, as nvidia-smi nvlink -e's are kept
    (no link state: the counters say nothing of it)."""
    for gpu in dcgm.parse_error_counts(text):
        out.nvlinks.append(
            {
                "source": source,
                "line": gpu.line,
                "gpu": gpu.gpu,
                "name": "",
                "links": {},
                "inactive": [],
                "active": None,
                "none_up": False,
                "fewer_than_peers": False,
                "alone": False,
                "cut": False,
                "errors": {str(n): counters for n, counters in gpu.errors.items()},
                "remote": {},
                "error_total": sum(
                    v
                    for counters in gpu.errors.values()
                    for counter, v in counters.items()
                    if _ERROR_COUNTER_RE.search(counter)
                ),
                "replay_total": _replay_total(gpu.errors),
            }
        )
    return []


P2P_SLOWER_RATIO = 0.75
"""A pair whose P2P=Enabled bandwidth is under this share of its P2P=Disabled bandwidth: the
direct path is clearly slower than the copy without peer access, beyond the few percent the
sample's own rows vary between pairs of one kind. The sample turns peer access on only to copy
directly (cudaDeviceEnablePeerAccess before performP2PCopy); without it the copy does not go
GPU to GPU. Enabled at about the Disabled figure or above is the healthy reading."""


_NVML_CANNOT_SERVE = (
    "Uninitialized",
    "Not Supported",
    "Insufficient Permissions",
    "Not Found",
    "Driver Not Loaded",
    "NVML Shared Library Not Found",
    "Function Not Found",
    "The operating system has blocked the request",
    "RM has detected an NVML/RM version mismatch",
)
"""nvmlErrorString's words (pynvml's table of them) for an NVML that cannot serve the GPU
(NVML_ERROR_UNINITIALIZED, _NOT_SUPPORTED, _NO_PERMISSION, _NOT_FOUND, _DRIVER_NOT_LOADED,
_LIBRARY_NOT_FOUND, _FUNCTION_NOT_FOUND, _OPERATING_SYSTEM, _LIB_RM_VERSION_MISMATCH): not the
GPU's fault."""
_NVBW_GOES_ON = "Invalid value when checking the pattern"
"""nvbandwidth's pattern check (kernels.cu) prints and the run goes on to its next tests; its
asserts and NVML / CUDA errors (error_handling.h) exit the tool."""


_PTX_TOOLCHAIN = (
    "its PTX was compiled by a toolchain the driver's PTX JIT does not support (most often a "
    "CUDA toolkit newer than the driver), so no kernel of it runs and no copy was measured: "
    "rebuild nvbandwidth with a CUDA toolkit this driver supports, or update the driver; "
    "nothing is said of the GPUs or their links"
)
_NVBW_BUILD_ERRORS = {
    "cudaErrorUnsupportedPtxVersion": _PTX_TOOLCHAIN,
    "CUDA_ERROR_UNSUPPORTED_PTX_VERSION": _PTX_TOOLCHAIN,
}
"""CUDA errors that name the binary's build against the driver, not the GPU: the runtime's
cudaErrorUnsupportedPtxVersion and the driver API's CUDA_ERROR_UNSUPPORTED_PTX_VERSION (222 both),
"the provided PTX was compiled with an unsupported toolchain. The most common reason for this,
is the PTX was generated by a compiler newer than what is supported by the CUDA driver and PTX
JIT compiler" (CUDA's cudaError_t reference, NVIDIA/cuda-python
cuda_bindings/docs/source/module/runtime.rst; NVIDIA/nvbandwidth issue 61: v0.8 built with CUDA
13.2 on driver 580)."""


def _nvbw_went_on(message: str) -> bool:
    """A failed test whose lines are its pattern check alone (no abort, assert or CUDA / NVML
    error joined to them): the run went on past it."""
    return message.startswith(_NVBW_GOES_ON) and not re.search(
        r"Aborted|Segmentation fault|ASSERT|_ERROR|\[cuda", message
    )


def _nvml_set_up(message: str) -> bool:
    """An nvbandwidth NVML_ERROR whose bracketed name says NVML cannot serve the GPU."""
    return message.startswith("NVML_ERROR: [") and any(
        message.startswith(f"NVML_ERROR: [{word}") for word in _NVML_CANNOT_SERVE
    )


def _gpu_copy(
    source: str, line: int, tool: str, devices: list[dict[str, Any]], **fields_: Any
) -> dict[str, Any]:
    """One ``EvidenceFacts.gpu_copy`` record: the fields a tool does not report (a version, the
    peer-access table ...) take their empty value, so every copy tool's record has one shape and
    only what the tool measured is spelt out at its reader."""
    record: dict[str, Any] = {
        "source": source,
        "line": line,
        "tool": tool,
        "version": None,
        "driver": None,
        "cuda_runtime": None,
        "devices": devices,
        "matrices": [],
        "failed": [],
        "tool_errors": [],
        "waived": [],
        "running": None,
        "p2p_slower": [],
        "peer_access": {},
        "no_peer_access": False,
        "peer_access_line": None,
        "complete": True,
        "host_copy_slow": [],
        "host_copy_below_peers": [],
        "pair_copy_slow": [],
    }
    if unknown := sorted(fields_.keys() - record.keys()):
        raise TypeError(f"a gpu_copy record has no field {unknown}")
    record.update(fields_)
    return record


def _nvbandwidth(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """nvbandwidth's header, each test's matrix and the tests that stopped."""
    run, notes = nvbandwidth.parse(text)
    if not run.matrices and not run.failures and not run.waived and run.running is None:
        if listed := nvbandwidth.list_testcases(text):
            # (-l lists the tests the build has and returns before any GPU is touched: read, as
            # nvidia-smi -L or npu-smi's usage are, with nothing of the cluster in it)
            at, names = listed
            return [
                *notes,
                ParseWarning(
                    line=at,
                    message="list of test cases (nvbandwidth -l"
                    + (f", {run.version}" if run.version else "")
                    + f"), {len(names)} listed"
                    + (f" ({names[0]} ... {names[-1]})" if len(names) > 1 else "")
                    + ", nothing run: no copy was measured, nothing of the GPUs or their links "
                    "is read from it",
                    skipped=False,
                ),
            ]
        raise ParseError("nvbandwidth: no test's matrix, failure or waiver in the output")
    out.gpu_copy.append(
        _gpu_copy(
            source,
            run.line,
            "nvbandwidth",
            run.devices,
            version=run.version,
            driver=run.driver,
            cuda_runtime=run.cuda_runtime,
            matrices=[asdict(m) for m in run.matrices],
            # NVML's answers that it cannot serve the GPU (Not Found, Not Supported ...) stop the
            # tool's own set-up (its CPU affinity, device lookup) and say nothing of a GPU or link
            # (an integrated Orin GPU NVML does not find, nvbandwidth#55); its others ("GPU is
            # lost", "Unknown Error") are the GPU's
            failed=[asdict(f) for f in run.failures if not _nvml_set_up(f.message)],
            tool_errors=[asdict(f) for f in run.failures if _nvml_set_up(f.message)],
            waived=run.waived,
            running=run.running,
            # NVML_ASSERT exits the tool (error_handling.h): the tests after it did not run
            complete=run.running is None
            and all(_nvbw_went_on(f.message) for f in run.failures)
            and all(m.sum is not None for m in run.matrices),
        )
    )
    if placed := [d for d in run.devices if d.get("host")]:
        # a multi-node run names each process's host and GPU: the hosts are the run's, one GPU
        # a process (NVIDIA/nvbandwidth output.cpp printGPUsMultinode)
        by_host: dict[str, list[str]] = {}
        for d in placed:
            by_host.setdefault(str(d["host"]), []).append(str(d["index"]))
        out.log_hosts.extend({"source": source, "host": host} for host in by_host)
        models = Counter(str(d["name"]) for d in placed)
        notes.append(
            ParseWarning(
                line=int(placed[0]["line"] or 0),
                message=f"{len(placed)} process(es) on {len(by_host)} host(s), one GPU each: "
                + "; ".join(
                    f"{host}: {len(ids)} GPU(s) (devices {', '.join(ids)})"
                    for host, ids in by_host.items()
                )
                + " ("
                + ", ".join(f"{n} x {model}" for model, n in models.items())
                + ")",
                skipped=False,
            )
        )
    for m in run.matrices:
        notes.append(ParseWarning(line=m.line, message=_matrix_note(m), skipped=False))
    if run.waived or run.waived_unnamed:
        notes.append(
            ParseWarning(
                line=run.waived_unnamed[0] if run.waived_unnamed else 0,
                message=f"{len(run.waived) + len(run.waived_unnamed)} test(s) waived"
                + (f" ({', '.join(run.waived)})" if run.waived else "")
                + ": skipped, not failed (nvbandwidth waives a test its system cannot run: GPU "
                "pairs with peer access, multicast, several nodes"
                + (f"; this run lists {len(run.devices)} GPU" if len(run.devices) == 1 else "")
                + ")",
                skipped=False,
            )
        )
    for f in run.failures:
        if cause := next((c for e, c in _NVBW_BUILD_ERRORS.items() if f"[{e}]" in f.message), None):
            notes.append(
                ParseWarning(
                    line=f.line,
                    message=f"{f.test or 'a test'} stopped on a CUDA error of the binary's own "
                    f"build: {cause}",
                    skipped=False,
                )
            )
    if run.running:
        notes.append(
            ParseWarning(
                line=0,
                message=f"the copy ends while {run.running} ran: neither its matrix nor a "
                "failure is in it",
                skipped=False,
            )
        )
    return notes


def _matrix_note(m: nvbandwidth.Matrix) -> str:
    """A matrix in one line: its test, the lowest and highest pair, the SUM."""
    # (a device paired with itself is no pair where both axes are GPUs: Matrix.figures)
    cells = m.figures()
    if not cells:
        return f"{m.test or m.title}: no figure read"
    if len(cells) == 1:
        total = f", SUM {m.sum:g}" if m.sum is not None else ""
        return (
            f"{m.test or '(test not named)'}: {m.title}: {cells[0][2]:g} {m.unit} "
            f"({cells[0][0]}->{cells[0][1]}){total}"
        )
    low = min(cells, key=lambda x: x[2])
    high = max(cells, key=lambda x: x[2])
    total = f", SUM {m.sum:g}" if m.sum is not None else ""
    return (
        f"{m.test or '(test not named)'}: {m.title}: {len(m.rows)}x{len(m.columns)}, "
        f"lowest {low[2]:g} {m.unit} ({low[0]}->{low[1]}), highest {high[2]:g} {m.unit} "
        f"({high[0]}->{high[1]}){total}"
    )


HOST_COPY_SLOW_GBYTES_S = 6.0
HOST_COPY_JUDGED_BYTES = 4_000_000
"""The smallest transfer a copy's bandwidth is judged on: small transfers never reach the link's
speed (bandwidthTest's Quick mode copies 32 MB; a range run of a few KB stays far under it)."""
"""A pinned host copy under this is slower than a PCIe 3.0 x8 link carries (8 GT/s a lane with
128b/130b coding: 7.88 GB/s), where a data-center GPU sits on x16 (about 12 GB/s measured on
3.0, 25 on 4.0): the GPU's link trained narrow or slow, or the copy crossed to the far NUMA
node."""


def _bandwidth_test(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """CUDA's bandwidthTest: each run's copy blocks' figures, said with the GPU that run named,
    and pinned host copies slower than a PCIe 3.0 x8 link."""
    runs, notes = bandwidth_test.parse(text)
    for run in runs:
        _bandwidth_test_run(run, text, source, out, notes)
    return notes


def _bandwidth_test_run(
    run: bandwidth_test.Run,
    text: str,
    source: str,
    out: EvidenceFacts,
    notes: list[ParseWarning],
) -> None:
    """One bandwidthTest run (a file may paste several, each on its own host) into
    ``out.gpu_copy`` and its copies' notes."""
    if run.no_devices is not None:
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="gpu_driver_error",
                line=run.no_devices,
                message="!!!!!No devices found!!!!!",
                library="bandwidthTest",
                exception_type="bandwidthTest found no CUDA device (the driver, or a container "
                "that was given no GPU): it ran no copy",
            ),
        )
    if run.stopped is not None and not run.copies:
        # (the error itself is the log reading's failure, its CUDA code named there: said here
        # only as the run it ended)
        notes.append(
            ParseWarning(
                line=run.stopped,
                message="bandwidthTest stopped on a CUDA error before its first copy: no "
                "bandwidth was measured",
                skipped=False,
            )
        )
    slow = [
        {"line": c.line, "kind": c.kind, "gbytes_s": best}
        for c in run.copies
        if c.memory == "PINNED"
        and c.kind != "Device to Device"
        and c.devices == 1  # (with --device=all the figure is the devices' sum)
        and (best := c.best_gbytes_s(HOST_COPY_JUDGED_BYTES)) is not None
        and best < HOST_COPY_SLOW_GBYTES_S
    ]
    out.gpu_copy.append(
        _gpu_copy(
            source,
            run.line,
            "bandwidthTest",
            run.devices,
            matrices=[
                {
                    "line": c.line,
                    "test": bandwidth_test.KIND_SHORT[c.kind],
                    "title": c.kind + (f" ({c.memory})" if c.memory else ""),
                    "unit": c.unit,
                    "columns": ["bandwidth"],
                    "rows": {str(size): {"bandwidth": value} for size, value in c.rows},
                    "sum": None,
                }
                for c in run.copies
            ],
            complete=run.result == "PASS",
            host_copy_slow=slow,
        )
    )
    device = ", ".join(f"GPU {d['index']} {d['name']}" for d in run.devices) or "its GPU"
    for c in run.copies:
        notes.append(
            ParseWarning(
                line=c.line,
                message=f"bandwidthTest on {device}: {c.kind}"
                + (f" ({c.memory})" if c.memory else "")
                + f" up to {max(v for _, v in c.rows):g} {c.unit}"
                + (f", the sum over {c.devices} GPUs" if c.devices > 1 else ""),
                skipped=False,
            )
        )
    if run.result is None and run.copies and not text.lstrip().startswith("bandwidthTest-"):
        notes.append(
            ParseWarning(
                line=run.line, message="bandwidthTest: the copy ends before its 'Result =' line"
            )
        )


def _bus_grind(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """busGrind's host/device bandwidth matrices, and the GPUs whose one-at-a-time copies are
    far under their peers' in a direction (the same copy on GPUs of one host: a GPU that lags
    has a narrower, slower or shared PCIe path)."""
    matrices, notes = bus_grind.parse(text)
    below = [low for m in matrices for low in bus_grind.below_peers(m)]
    gpus = sorted({g for m in matrices for g in m.gpus})
    out.gpu_copy.append(
        _gpu_copy(
            source,
            matrices[0].line,
            "busGrind",
            [{"index": g, "name": None, "bus_id": None} for g in gpus],
            matrices=[
                {
                    "line": m.line,
                    "test": "host_device_concurrent" if m.concurrent else "host_device",
                    "title": f"{'Concurrent ' if m.concurrent else ''}Host/Device Bandwidth "
                    f"Matrix{f' ({m.memory})' if m.memory else ''}",
                    "unit": m.unit,
                    "columns": [str(g) for g in m.gpus],
                    "rows": {d: {str(g): v for g, v in row.items()} for d, row in m.rows.items()},
                    "sum": m.totals or None,
                }
                for m in matrices
            ],
            # (busGrind prints no overall verdict: complete where no matrix was cut short)
            complete=not notes,
            host_copy_below_peers=below,
        )
    )
    for m in matrices:
        figures = "; ".join(
            f"{d} {min(row.values()):g}-{max(row.values()):g}" for d, row in m.rows.items()
        )
        notes.append(
            ParseWarning(
                line=m.line,
                message=f"busGrind: {'concurrent ' if m.concurrent else ''}host/device "
                f"bandwidth{f' ({m.memory})' if m.memory else ''} of GPUs "
                f"{', '.join(map(str, m.gpus))}: {figures} {m.unit}",
                skipped=False,
            )
        )
    return notes


def _p2p_bandwidth(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """p2pBandwidthLatencyTest's matrices, and the pairs whose P2P path is the slower one."""
    run, notes = p2p_bandwidth.parse(text)
    if not run.matrices and not run.access:
        raise ParseError("p2pBandwidthLatencyTest: no matrix with its rows in the output")
    if run.access:
        # which pairs the CUDA driver lets reach each other directly (a fact of the board and
        # the GPUs' models, not a failure: different models never share peer access)
        can = sorted(
            {tuple(sorted((a, b))) for a, row in run.access.items() for b, ok in row.items() if ok}
        )
        cannot = sum(1 for row in run.access.values() for ok in row.values() if not ok)
        notes.append(
            ParseWarning(
                line=run.access_line,
                message="p2pBandwidthLatencyTest: peer access "
                + (", ".join(f"GPU{a}<->GPU{b}" for a, b in can) if can else "between no GPUs")
                + f"; {cannot} ordered pair(s) CANNOT access each other (their copies go through "
                "host memory)",
                skipped=False,
            )
        )
    slower = []
    for direction in ("Unidirectional", "Bidirectional"):
        off = next(
            (m for m in run.matrices if m.direction == direction and not m.p2p and m.values), None
        )
        if off is None:
            continue
        for on in (m for m in run.matrices if m.direction == direction and m.p2p):
            for a, row in on.values.items():
                for b, enabled in row.items():
                    disabled = off.values.get(a, {}).get(b)
                    if a == b or not disabled:
                        continue  # the diagonal is a copy inside one GPU
                    if enabled < disabled * P2P_SLOWER_RATIO:
                        slower.append(
                            {
                                "a": a,
                                "b": b,
                                # (the P2P=Enabled figure's row, and the P2P=Disabled one it is
                                # set against: the lines a reader checks, not the matrices')
                                "line": on.row_lines.get(a, on.line),
                                "disabled_line": off.row_lines.get(a, off.line),
                                "matrix": on.title,
                                "enabled_gbytes_s": enabled,
                                "disabled_gbytes_s": disabled,
                                "ratio": round(enabled / disabled, 2),
                            }
                        )
    model = {int(d["index"]): str(d["name"]) for d in run.devices}
    # the ordered pairs CUDA was asked of whose two GPUs are one model (a GPU no device line
    # names is taken as its peers' model)
    alike = [
        (a, b)
        for a, row in run.access.items()
        for b in row
        if model.get(a) is None or model.get(b) is None or model[a] == model[b]
    ]
    if run.access and not alike:
        notes.append(
            ParseWarning(
                line=run.matrices[0].line if run.matrices else 1,
                message="p2pBandwidthLatencyTest: no two of its GPUs are one model ("
                + ", ".join(dict.fromkeys(model.values()))
                + "): CUDA gives no peer access between GPUs of different models, so their "
                "CANNOT is the board's mix, not a fault",
                skipped=False,
            )
        )
    out.gpu_copy.append(
        _gpu_copy(
            source,
            run.matrices[0].line if run.matrices else 1,
            "p2pBandwidthLatencyTest",
            run.devices,
            matrices=[
                {
                    "line": m.line,
                    "test": None,
                    "title": m.title + ("" if m.block == "D\\D" else f" ({m.block})"),
                    "unit": m.unit,
                    "columns": [str(c) for c in m.columns],
                    "rows": {
                        str(r): {str(c): v for c, v in row.items()} for r, row in m.values.items()
                    },
                    "sum": None,
                }
                for m in run.matrices
            ],
            p2p_slower=slower,
            pair_copy_slow=_pairs_below_x4(run),
            peer_access={
                str(a): {str(b): ok for b, ok in row.items()} for a, row in run.access.items()
            },
            # every ordered pair of two or more GPUs of one model answered CANNOT: no copy
            # between them goes direct (the sample's own NOTE: it "falls back to normal
            # memcopy"); GPUs of different models never share peer access, the board's mix
            no_peer_access=bool(alike) and not any(run.access.get(a, {}).get(b) for a, b in alike),
            # (where those answers are: the record's own line is its first matrix's, below them)
            peer_access_line=run.access_line or None,
            complete=run.complete,
        )
    )
    for m in run.matrices:
        cells = [v for r, row in m.values.items() for c, v in row.items() if r != c]
        if cells:
            notes.append(
                ParseWarning(
                    line=m.line,
                    message=f"p2pBandwidthLatencyTest: {m.title}"
                    + ("" if m.block == "D\\D" else f" ({m.block})")
                    + f": {len(m.values)} GPU(s), between GPUs {min(cells):g}-{max(cells):g} "
                    f"{m.unit}",
                    skipped=False,
                )
            )
    return notes


_SIMPLE_P2P_OWN_RE = re.compile(
    r"simpleP2P(?:\.exe)?\] - Starting|cudaMemcpyPeer / cudaMemcpy between |Test (?:failed!|passed)"
)
"""simpleP2P's lines that deviceQuery never prints (simpleP2P.cu main)."""


def _device_query(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """CUDA's deviceQuery: the devices the CUDA runtime sees, the driver and runtime versions, the
    peer-access answers between them and the sample's own result. No device seen is a failure;
    GPUs of different models without peer access are the board's mix, said and not judged."""
    run = device_query.parse(text)
    if not run.devices and run.count is None and run.result is None:
        raise ParseError("deviceQuery: no device block, summary or result in the output")
    notes: list[ParseWarning] = []
    if run.count == 0:
        # deviceQuery.cpp prints "There are no available device(s) that support CUDA" when
        # cudaGetDeviceCount answers 0, and still ends "Result = PASS": no GPU for a job
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="gpu_driver_error",
                line=run.no_devices_line or run.summary_line or run.line,
                message="There are no available device(s) that support CUDA",
                library="deviceQuery",
                exception_type="deviceQuery found no CUDA device (the driver, or a container "
                "that was given no GPU)"
                + (f", though its result says {run.result}" if run.result else ""),
            ),
        )
    versions = (
        f"CUDA driver {run.driver} / runtime {run.runtime}"
        if run.driver and run.runtime
        else "versions not in the copy"
    )
    notes.append(
        ParseWarning(
            line=run.line,
            message=f"deviceQuery: {versions}, "
            + (
                f"{run.count} CUDA device(s)"
                if run.count is not None
                else "device count not in the copy"
            )
            + (
                f" ({', '.join(f'GPU{d.index} {d.name}' for d in run.devices)})"
                if run.devices
                else ""
            )
            + (
                f"; Result = {run.result} (line {run.result_line})"
                if run.result
                else "; the copy ends before its 'Result =' line"
            ),
            skipped=False,
        )
    )
    for d in run.devices:
        notes.append(
            ParseWarning(
                line=d.line,
                message=f"deviceQuery GPU{d.index} {d.name}: "
                + ", ".join(
                    part
                    for part in (
                        f"compute capability {d.capability}" if d.capability else "",
                        f"{d.memory_mbytes} MBytes of global memory" if d.memory_mbytes else "",
                        f"PCI domain / bus / location {d.pci}" if d.pci else "",
                    )
                    if part
                )
                # (helper_cuda.h _ConvertSMVer2Cores: a compute capability newer than the
                # sample's table gets the last entry's cores a multiprocessor)
                + (
                    f" (its CUDA Cores figure a default: this sample's table has no SM "
                    f"{d.capability})"
                    if d.cores_default
                    else ""
                ),
                skipped=False,
            )
        )
    model = {d.index: d.name for d in run.devices}
    alike = [
        (a, b)
        for a, row in run.access.items()
        for b in row
        if model.get(a) is None or model.get(b) is None or model[a] == model[b]
    ]
    if run.access:
        pairs = "; ".join(
            f"GPU{a}->GPU{b} {'Yes' if ok else 'No'}"
            for a, row in sorted(run.access.items())
            for b, ok in sorted(row.items())
        )
        notes.append(
            ParseWarning(
                line=run.access_line,
                message=f"deviceQuery: peer access {pairs}"
                + (
                    ""
                    if alike
                    else " -- no two of its GPUs are one model ("
                    + ", ".join(dict.fromkeys(model.values()))
                    + "): CUDA gives no peer access between GPUs of different models, so their "
                    "No is the board's mix, not a fault"
                ),
                skipped=False,
            )
        )
    out.gpu_copy.append(
        _gpu_copy(
            source,
            run.line,
            "deviceQuery",
            [{"index": d.index, "name": d.name, "bus_id": None} for d in run.devices],
            driver=run.driver,
            cuda_runtime=run.runtime,
            failed=[
                {
                    "line": run.result_line,
                    "test": "deviceQuery",
                    "message": "Result = FAIL",
                    "offset": None,
                }
            ]
            if run.result == "FAIL"
            else [],
            peer_access={
                str(a): {str(b): ok for b, ok in row.items()} for a, row in run.access.items()
            },
            # as p2pBandwidthLatencyTest's: GPUs of one model, every ordered pair answered No
            no_peer_access=bool(alike) and not any(run.access.get(a, {}).get(b) for a, b in alike),
            peer_access_line=run.access_line or None,
            complete=run.result is not None,
        )
    )
    return notes


def _simple_p2p(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """simpleP2P's pair, its copy and its check of the data the peer kernels wrote: a wrong value
    is a failed test (the sample ends "Test failed!" on any), the pair's P2P path corrupting data.
    A run a host (pdsh's ``host: `` prefixes): each host's test is its own, passed or failed."""
    runs = simple_p2p.parse_hosts(text)
    if not any(r.access or r.result is not None or r.wrong or r.waived_line for r in runs):
        raise ParseError("simpleP2P: no peer-access line, data check or result in the output")
    notes: list[ParseWarning] = []
    for run in runs:
        notes += _simple_p2p_run(run, source, out)
    return notes


def _simple_p2p_run(run: simple_p2p.Run, source: str, out: EvidenceFacts) -> list[ParseWarning]:
    """One simpleP2P run (one host's) as a ``gpu_copy`` record and its notes."""
    pair = f"GPU{run.pair[0]}<->GPU{run.pair[1]}" if run.pair is not None else None
    on_host = f" on {run.host}" if run.host else ""
    failed = []
    if run.wrong or run.result == "failed":
        first = run.wrong[0] if run.wrong else None
        failed.append(
            {
                "line": first.line if first is not None else run.result_line,
                "test": "simpleP2P" + on_host + (f" {pair}" if pair else ""),
                "message": (
                    f"Verification error @ element {first.element}: val = {first.value}, "
                    f"ref = {first.reference} ({len(run.wrong)} wrong value(s) printed)"
                    if first is not None
                    else "Test failed!"
                )
                + (f"; Test failed! (line {run.result_line})" if first and run.result_line else ""),
                "offset": None,
            }
        )
    notes: list[ParseWarning] = []
    if run.waived_line:
        # no pair with peer access: the sample waives itself (EXIT_WAIVED), nothing ran
        notes.append(
            ParseWarning(
                line=run.waived_line,
                message=f"simpleP2P{on_host}: no GPU pair with peer access, the test waived itself",
                skipped=False,
            )
        )
    if run.copy_gbytes_s is not None:
        notes.append(
            ParseWarning(
                line=run.copy_line,
                message=f"simpleP2P{on_host}: cudaMemcpyPeer {pair or 'between its pair'}: "
                f"{run.copy_gbytes_s:g} GB/s"
                + (
                    f"; Test passed (line {run.result_line})"
                    if run.host and run.result == "passed"
                    else ""
                ),
                skipped=False,
            )
        )
    out.gpu_copy.append(
        _gpu_copy(
            source,
            run.line,
            "simpleP2P",
            [{"index": i, "name": n, "bus_id": None} for i, n in sorted(run.devices.items())],
            failed=failed,
            peer_access={
                str(a): {str(b): ok for b, ok in row.items()} for a, row in run.access.items()
            },
            complete=run.result is not None or bool(run.waived_line),
        )
    )
    return notes


def _pairs_below_x4(run: p2p_bandwidth.Run) -> list[dict[str, Any]]:
    """The ordered GPU pairs whose best unidirectional copy, peer access on or off, stays under
    what four PCIe lanes of the pair's generation carry (the older of its two GPUs', known from
    their names): ``[{a, b, gbytes_s, line, generation, x4_gbytes_s}]``. Without peer access the
    copy is staged through host memory and still runs near the GPUs' links (tens of GB/s on a
    Gen 4 or Gen 5 x16 link), so a pair held to x4's rate both ways sits on a narrow or slow
    path: a slot wired x4, a riser, a link trained down or a slow host path."""
    generation = {
        int(d["index"]): p2p_bandwidth.pcie_generation(str(d["name"])) for d in run.devices
    }
    best: dict[tuple[int, int], tuple[float, int]] = {}  # pair → (GB/s, its matrix's line)
    for m in run.matrices:
        if m.direction != "Unidirectional" or m.unit != "GB/s":
            continue  # (a bidirectional figure counts both directions' bytes at once)
        for a, row in m.values.items():
            for b, gbytes_s in row.items():
                if a != b and gbytes_s > best.get((a, b), (-1.0, 0))[0]:
                    best[a, b] = (gbytes_s, m.line)
    slow = []
    for (a, b), (gbytes_s, line) in sorted(best.items()):
        gens = [g for g in (generation.get(a), generation.get(b)) if g is not None]
        if len(gens) < 2 or gbytes_s >= p2p_bandwidth.PCIE_X4_GBYTES_S[min(gens)]:
            continue
        slow.append(
            {
                "a": a,
                "b": b,
                "gbytes_s": gbytes_s,
                "line": line,
                "generation": min(gens),
                "x4_gbytes_s": p2p_bandwidth.PCIE_X4_GBYTES_S[min(gens)],
            }
        )
    return slow


def _faultdiag(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    notes: list[ParseWarning] = []
    for report in faultdiag.parse(text):
        if report.failed_analyses:
            notes.append(
                ParseWarning(
                    line=report.line,
                    message="ascend-fd diag: its analysis failed for "
                    f"{', '.join(report.failed_analyses)} (分析失败): nothing is known of the "
                    "faults there; its own log says why",
                )
            )
        if not report.faults and not report.failed_analyses:
            found = f" (status {', '.join(report.normal)})" if report.normal else ""
            notes.append(
                ParseWarning(
                    line=report.line,
                    message=f"ascend-fd diag: no fault event in the report{found}",
                    skipped=False,
                )
            )
        where = f"instance {report.instance}: " if report.instance else ""
        roots = _fd_nodes(report.root_nodes)
        said = []
        if report.root_nodes and not roots:
            # ascend-fd's 'Unknown Device': it found no root-cause node; or the copy masked them
            said.append(f"no root-cause node named ({report.root_nodes})")
        elif roots:
            said.append(f"root-cause node(s) {', '.join(sorted(roots))}")
        for key, words in (
            ("first_error", "first error"),
            ("last_error", "last error"),
            ("root_chain", "root-cause chain"),
            ("wait_chain", "wait chain"),
        ):
            if report.nodes.get(key):
                said.append(f"{words} {report.nodes[key]}")
        if said:
            notes.append(
                ParseWarning(
                    line=report.line,
                    message=f"ascend-fd diag: {where}{'; '.join(said)}"[:400],
                    skipped=False,
                )
            )
        masked = [f for f in report.faults if faultdiag.MASKED_RE.match(f.code)]
        if masked:
            notes.append(
                ParseWarning(
                    line=masked[0].line,
                    message=f"ascend-fd diag: {len(masked)} fault event(s) whose status code the "
                    "copy masked: read by name",
                    skipped=False,
                )
            )
        for fault in report.faults:
            what = " — ".join(t for t in (fault.text("name"), fault.text("description")) if t)
            devices = fault.text("devices")
            code = None if faultdiag.MASKED_RE.match(fault.code) else fault.code
            # the root-cause node analysis names this event's device(s) (a copy's masked names
            # say nothing): a suspected root cause too
            mine = _fd_nodes(devices)
            named = bool(mine) and mine <= roots
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="faultdiag_performance" if fault.performance else "faultdiag_fault",
                    line=fault.line,
                    message=f"{where}{code or 'status code masked'}: {what} ({devices})"[:300],
                    code=code,
                    root_cause=fault.root_cause or named,
                    library="MindCluster ascend-fd",
                    exception_type=(
                        where
                        + " ".join(p for p in (code, what) if p)
                        + (f" on {devices}" if devices else "")
                    )[:200]
                    + (
                        f"; key log: {fault.text('key_log')}"[:200]
                        if fault.values.get("key_log")
                        and not faultdiag.MASKED_RE.match(fault.text("key_log").split()[0])
                        else ""
                    ),
                ),
            )
    return notes


# Deployment checks of the GPU's own memory and board (dcgm_errors.h: DCGM_FR_ROW_REMAP_FAILURE,
# DCGM_FR_PENDING_PAGE_RETIREMENTS, DCGM_FR_CORRUPT_INFOROM): hardware faults, not the setup
_DCGM_HARDWARE_RE = re.compile(r"row remap|page retire|retired page|inforom", re.IGNORECASE)


def _fd_nodes(listed: str) -> set[str]:
    """The nodes an ascend-fd field names ("['worker-0 device-2', 'worker-1 device-2']", or the
    English documentation's unquoted "worker-0 device-2, ..."), less ascend-fd's 'Unknown Device'
    (no node found) and the names a copy masked."""
    inner = listed.strip().strip("[]")
    names = {n.strip().strip("'\"").strip() for n in inner.split(",")}
    return {n for n in names if n and n != "Unknown Device" and not faultdiag.MASKED_RE.match(n)}


def _dcgm_precondition(check: dict[str, Any]) -> bool:
    """A Deployment check of the node's setup (persistence mode, the denylist, other processes,
    the libraries ...), not one of the GPU's hardware."""
    said = " ".join([check["name"], *check.get("details", [])])
    return check["section"] == "Deployment" and not _DCGM_HARDWARE_RE.search(said)


# DCGM's plugins when CUDA will not start: "Unable to initialize CUDA library: 'system not yet
# initialized'" (cudaErrorSystemNotReady, the CUDA runtime API reference: "the system is not yet
# ready to start any CUDA work ... all required driver daemons are actively running": on an
# NVSwitch system, Fabric Manager)
_DCGM_CUDA_INIT_RE = re.compile(r"Unable to initiali[sz]e CUDA library: '(?P<why>[^']+)'")


def _dcgm_cuda_unavailable(check: dict[str, Any]) -> bool:
    """The check failed because CUDA would not start on the GPUs, not on a GPU's fault."""
    return any(_DCGM_CUDA_INIT_RE.search(d) for d in check.get("details") or [])


def _dcgm_own_error(check: dict[str, Any]) -> bool:
    """The check's own run failed: every GPU's row under it passed, or (no GPU rows in the copy)
    each of its messages is DCGM's internal-error one (DCGM_FR_INTERNAL, "There was an internal
    error during the test: '...'")."""
    results = check.get("gpu_results") or {}
    if results:
        return all(r == "Pass" for r in results.values())
    details = check.get("details") or []
    return bool(details) and all("internal error during the test" in d for d in details)


def _dcgm(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    diags, warnings = dcgm.parse(text)
    _dcgm_diags(diags, source, out, "dcgmi diag")
    return warnings + [n for d in diags if d.cut is not None and (n := _dcgm_cut_kept(d))]


def _dcgm_cut_kept(diag: dcgm.Diag) -> ParseWarning | None:
    """What a cut dcgmi diag table still holds above its cut: each result and its line (the
    rule on the cut says only what was lost, and the results above it are the run's own: a
    Deployment all Pass, a PCIe test Pass - All); None where it holds no check."""
    if not diag.checks:
        return None
    said: list[str] = []
    deployment = [c for c in diag.checks if c.section == "Deployment"]
    if deployment and all(c.result == "Pass" for c in deployment):
        said.append(
            f"Deployment: all {len(deployment)} checks Pass (lines "
            f"{deployment[0].line}-{deployment[-1].line})"
        )
    else:
        said += [f"{c.name}: {c.result} (line {c.line})" for c in deployment]
    said += [
        f"{c.name}: {c.result}{f' - {c.gpus}' if c.gpus else ''} (line {c.line})"
        for c in diag.checks
        if c.section != "Deployment"
    ]
    return ParseWarning(
        line=diag.line,
        message="dcgmi diag"
        + (f" -r {diag.level}" if diag.level else "")
        + (f" (DCGM {diag.dcgm_version})" if diag.dcgm_version else "")
        + ": the results in the copy above its cut: "
        + "; ".join(said),
        skipped=False,
    )


def _dcgmi_health(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """``dcgmi health -c``: each watched system's health, read as checks of a DCGM run."""
    report, warnings = dcgm.parse_health(text)
    _dcgm_diags([report], source, out, "dcgmi health")
    return warnings


def _dcgmi_dmon(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """``dcgmi dmon``: a GPU whose XIDER (its last Xid) is not 0 as a driver event, the other
    figures said in a note; dmon's refusal to set its watches (with its cause in dcgmi modules
    -l) a ``dcgm_watch_refused`` failure: DCGM's own, not a GPU fault, but the check asked for
    did not run; a result that is the GPU's state (-18 GPU is lost, -19 reset required) a
    ``gpu_driver_fault``."""
    notes: list[ParseWarning] = []
    try:
        samples = dcgm.parse_dmon(text)
    except ParseError:
        if (failure := dcgm.dmon_failure(text)) is None:
            raise
        # (a file that holds only the refusal says nothing of the GPUs: the monitoring asked for,
        # an NVLink or profiling field, is not known, neither healthy nor faulty; but a result
        # that is a GPU's state, -18 GPU is lost or -19 reset required (dcgm.DMON_GPU_FAULTS),
        # is a GPU out of reach until it is reset, the same fault as nvidia-smi's "GPU is lost")
        result = dcgm.dmon_result(text)
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="gpu_driver_fault" if result in dcgm.DMON_GPU_FAULTS else "dcgm_watch_refused",
                line=failure[0],
                message=failure[1][:300],
                library="DCGM",
                code=result,
                exception_type=failure[1][:400],
            ),
        )
        return [ParseWarning(line=failure[0], message=failure[1], skipped=False)]
    for sample in samples:
        xid = sample.values.get("XIDER", "")
        if xid.isdigit() and int(xid):
            device = int(sample.entity.split()[1]) if sample.entity.startswith("GPU ") else None
            code = int(xid)
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="gpu_driver_fault" if code in logs.XID_RESET else "gpu_driver_error",
                    line=sample.line,
                    message=f"dcgmi dmon: {sample.entity} XIDER {xid}",
                    device=device,
                    code=xid,
                    code_name=logs.XID_MEANINGS.get(code),
                    library="DCGM",
                    exception_type=f"Xid {xid} on {sample.entity}: the last Xid DCGM saw on it",
                ),
            )
        others = {k: v for k, v in sample.values.items() if k != "XIDER"}
        if others or not xid.isdigit() or xid == "0":
            said = ", ".join(f"{k} {v}" for k, v in sample.values.items())
            notes.append(
                ParseWarning(
                    line=sample.line, message=f"dcgmi dmon {sample.entity}: {said}", skipped=False
                )
            )
    return notes


def _ubergemm(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """DCGM's ubergemm: a ``gpu_compute_low`` failure per GPU far under its run's median
    (dcgm.lagging_gemm), a note of the others' rates (figures with no health in them alone)."""
    notes: list[ParseWarning] = []
    runs = dcgm.parse_ubergemm(text)
    # (a host pdsh named before a run's lines: the run is that host's, and the host one the
    # file names)
    named = {h["host"] for h in out.log_hosts if h["source"] == source}
    for host in dict.fromkeys(run[0].host for run in runs):
        if host and host not in named:
            out.log_hosts.append({"source": source, "host": host})
    for run in runs:
        # (one run, the same GEMM on every GPU: a GPU far under its peers' rate computes slower,
        # as DCGM's targeted_stress test fails a GPU under its SKU's target rate)
        median, lagging = dcgm.lagging_gemm(run)
        host = run[0].host
        on = f"{host}: " if host else ""
        for rate in lagging:
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="gpu_compute_low",
                    line=rate.line,
                    message=f"ubergemm, {on}GPU {rate.gpu}: {rate.gflops:g} GFlops",
                    device=rate.gpu,
                    host=host,
                    library="DCGM ubergemm",
                    exception_type=f"GPU {rate.gpu} (ADAPTER#{rate.gpu}): {rate.gflops:.0f} "
                    f"GFlops, {rate.gflops / median:.0%} of the run's median {median:.0f} "
                    f"GFlops over its {len(run)} GPUs",
                ),
            )
        others = [r for r in run if r not in lagging]
        if not others:
            continue
        low, high = min(r.gflops for r in others), max(r.gflops for r in others)
        notes.append(
            ParseWarning(
                line=others[0].line,
                message=on
                + f"GPU(s) {', '.join(str(r.gpu) for r in sorted(others, key=lambda r: r.gpu))}"
                f" at {low:.0f}-{high:.0f} GFlops (lines {others[0].line}-{others[-1].line})"
                + (
                    f", in line with the run's median {median:.0f}"
                    if median
                    else f": {len(run)} GPU(s), too few to weigh one against the others"
                ),
                skipped=False,
            )
        )
    return notes


def _nvsm(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """nvsm show health: a failure per check not Healthy (``nvsm_check_unhealthy`` for an
    Unhealthy one, ``nvsm_check_attention`` for Informational, Warning or Unknown), with the
    lines under it, and a note of nvsm's own Health Summary; nvsm stress-test: a failure per
    component that Failed (``nvsm_stress_failed``) or was SKIPPED (``nvsm_stress_skipped``)
    and a note of those that passed."""
    notes: list[ParseWarning] = []
    # (pdsh's "host: " taken off, each host read on its own: one host's summary is not another's)
    # (nvsm's own lines never start with "word: ": "Version : ..." has its blank before the
    # colon, so a copy without pdsh is never split)
    for host, part in pdsh_by_host(text):
        notes.extend(_nvsm_copy(part, source, out, host))
    # (pdsh's own line about a target it could not reach holds none of that host's checks: the
    # host is named, as its health is not in the copy)
    notes.extend(
        ParseWarning(
            line=number,
            message=f"pdsh: {host}: {what}: no nvsm output from {host} in the copy",
            skipped=False,
        )
        for number, host, what in pdsh_own_lines(text)
    )
    return notes


def _nvsm_copy(text: str, source: str, out: EvidenceFacts, host: str | None) -> list[ParseWarning]:
    """One host's copy: its stress-test runs and its show health checks, both where it holds
    both (an acceptance log keeping ``nvsm show health`` then ``nvsm stress-test``: a stress run
    that passed does not hide an unhealthy check, nor a check a failed stress run)."""
    stress = nvsm.is_stress(text)
    runs = nvsm.parse_stress(text) if stress else []
    health = nvsm.parse_health(text)
    read_health = bool(health.checks or health.overall)
    if stress and not runs and not read_health:
        raise ParseError("nvsm stress-test: no component result row")
    if not runs and not read_health:
        raise ParseError("nvsm show health: no check line and no overall status")
    notes: list[ParseWarning] = []
    if read_health:
        notes.extend(_nvsm_health(health, source, out, host))
    for run in runs:
        notes.extend(_nvsm_stress_run(run, source, out, host))
    return notes


def _nvsm_health(
    health: nvsm.Health, source: str, out: EvidenceFacts, host: str | None
) -> list[ParseWarning]:
    notes: list[ParseWarning] = []
    version = (f" {health.version}" if health.version else "") + (f" on {host}" if host else "")
    at = f"{host}: " if host else ""
    unhealthy = 0
    for check in health.checks:
        if check.state in ("Healthy", "Disabled", "Skipped"):
            continue
        found = "; ".join(f"{text} (line {line})" for line, text in check.details)
        said = f"{at}{check.name}: {check.state} (line {check.line})" + (
            f": {found}" if found else ""
        )
        unhealthy += check.state == "Unhealthy"
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="nvsm_check_unhealthy"
                if check.state == "Unhealthy"
                else "nvsm_check_attention",
                line=check.line,
                message=f"nvsm show health{version}: {check.name} {check.state}",
                library="nvsm",
                exception_type=said,
            ),
        )
    if health.overall == "unhealthy" and not unhealthy:
        # (the copy keeps nvsm's verdict but not the check that made it: said as nvsm's own)
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="nvsm_check_unhealthy",
                line=health.overall_line,
                message=f"nvsm show health{version}: overall system status unhealthy",
                library="nvsm",
                exception_type=f"{at}Overall system status is unhealthy "
                f"(line {health.overall_line}); "
                "the check that made it is not in the copy",
            ),
        )
    counts = ", ".join(
        f"{n} {state}"
        for state, (n, _total, _line) in health.counts.items()
        if n or state == "healthy"
    )
    total = next((t for _n, t, _line in health.counts.values()), 0)
    summary = (
        f"{counts} of {total} checks" if counts else f"{len(health.checks)} check line(s) read"
    )
    verdict = (
        f"; Overall system status is {health.overall} (line {health.overall_line})"
        if health.overall
        else "; no overall status in the copy"
    )
    notes.append(
        ParseWarning(
            line=health.overall_line or (health.checks[0].line if health.checks else 1),
            message=f"nvsm show health{version}: {summary}{verdict}",
            skipped=False,
        )
    )
    return notes


def _nvsm_stress_run(
    run: nvsm.Stress, source: str, out: EvidenceFacts, host: str | None
) -> list[ParseWarning]:
    on, who = (f" on {host}", f"{host}: ") if host else ("", "")
    passed: list[str] = []
    for component, result, line in run.results:
        word = result.upper()
        if word.startswith("PASS"):
            passed.append(f"{component} (line {line})")
            continue
        said = f"{who}{component}: {result} (line {line})"
        # (the run's GPU load figures say whether the GPUs were loaded at all)
        load = run.figures.get("GPU_LOAD") if component == "GPU" else None
        if load is not None:
            lo, hi, avg, unit, at = load
            said += f"; GPU_LOAD min {lo}, max {hi}, avg {avg} {unit} (line {at})"
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="nvsm_stress_failed" if word.startswith("FAIL") else "nvsm_stress_skipped",
                line=line,
                message=f"nvsm stress-test{on}: {component} {result}",
                library="nvsm",
                exception_type=said,
            ),
        )
    notes: list[ParseWarning] = []
    if passed:
        notes.append(
            ParseWarning(
                line=run.line,
                message=f"nvsm stress-test{on}: PASS for "
                + ", ".join(passed)
                + (f"; its log {run.log}" if run.log else ""),
                skipped=False,
            )
        )
    return notes


def _gpu_burn(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """gpu-burn: a ``gpu_burn_faulty`` failure per GPU its summary marks anything but OK (or,
    where the copy ends before the summary, per GPU a progress line shows compare errors on or
    dead), a note of the GPUs it passed and of the last progress line's figures; a run a host
    where pdsh's or clush's prefix names hosts."""
    runs = gpu_burn.parse(text)
    if not any(run.progress or run.results for run in runs):
        raise ParseError("gpu-burn: no progress line and no 'Tested N GPUs' summary")
    notes: list[ParseWarning] = []
    for run in runs:
        if run.progress or run.results:
            notes.extend(_gpu_burn_run(run, source, out, several=len(runs) > 1))
    return notes


def _gpu_burn_positions(run: gpu_burn.Run, count: int) -> dict[int, int]:
    """GPU → its position on the progress lines. wilicc/gpu-burn prints both in its clients'
    order (position i is "GPU i"); a fork's ``-i N`` prints the one GPU's nvidia-smi index in the
    summary (code index, find_string "Tested %d GPUs": ``printf("\\tGPU %d: %s\\n",
    nvsmi_index, clientFaulty.at(0) ...)``), so a lone row is the lone position's GPU."""
    if run.results and count == len(run.results) == 1:
        return {next(iter(run.results)): 0}
    return {gpu: gpu for gpu in range(count)}


def _gpu_burn_run(
    run: gpu_burn.Run, source: str, out: EvidenceFacts, *, several: bool
) -> list[ParseWarning]:
    last = run.progress[-1] if run.progress else None
    count = len(last.errors) if last else 0
    position = _gpu_burn_positions(run, count)
    gpus = sorted(set(run.results) | set(position))
    on = f"{run.host}: " if several and run.host else ""
    notes: list[ParseWarning] = []
    passed: list[int] = []
    for gpu in gpus:
        result, result_line = run.results.get(gpu, ("", 0))
        at = position.get(gpu)
        errors = run.error_lines(at) if at is not None else []
        died = [p.line for p in run.progress if at is not None and at < len(p.died) and p.died[at]]
        # (gpu-burn marks a GPU FAULTY on any compare error at any progress line and never
        # clears it, while its counts are reset at each 10 % summary: a FAULTY GPU may show 0
        # on the progress lines a copy kept; its exit code is 0 whatever the GPUs did)
        if result == "OK" or (not result and not errors and not died):
            # (a GPU of the progress line with no row in a summary the copy keeps is not known
            # to have passed: the cut summary's note says so)
            if result or not run.results:
                passed.append(gpu)
            continue
        said = [f"GPU {gpu}: {result} (line {result_line})" if result else f"GPU {gpu}"]
        if died:
            said.append(f"its process died (DIED!, line {died[0]})")
        if errors:
            line, errs = errors[-1]
            said.append(
                f"{errs} compare error(s) (WARNING!) at line {line}"
                + (
                    " (printed as a C int: a negative count is one that overflowed)"
                    if errs < 0
                    else ""
                )
            )
        elif result == "FAULTY" and not died:
            said.append(
                "no error on the progress line(s) in the copy: its errors came before them "
                "(gpu-burn resets the counts at each 10 % summary, not the FAULTY mark)"
            )
        elif result and result != "FAULTY" and not died:
            # (a fork's summary: DIED for a GPU whose process died, NO RESULTS for one that
            # never reported; that fork fails the run for either, code index find_string
            # "Tested %d GPUs")
            said.append(
                {
                    "DIED": "its process died (a fork's summary word)",
                    "NO RESULTS": "it never reported a result (a fork's summary word)",
                }.get(result, "not OK in gpu-burn's summary")
            )
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="gpu_burn_faulty",
                line=result_line or (died[0] if died else errors[-1][0]),
                message=f"gpu-burn: GPU {gpu} " + (result or ("DIED" if died else "errors")),
                device=gpu,
                library="gpu-burn",
                host=run.host,
                exception_type="; ".join(said),
            ),
        )
    if passed and (run.results or last is not None):
        lines = [run.results[g][1] for g in passed if g in run.results]
        at_ = f" (lines {lines[0]}-{lines[-1]})" if lines else f" (line {last.line if last else 0})"
        notes.append(
            ParseWarning(
                line=lines[0] if lines else (last.line if last else 1),
                message=f"{on}gpu-burn: GPU(s) {', '.join(map(str, passed))} "
                + ("OK" if run.results else "without compare errors")
                + at_,
                skipped=False,
            )
        )
    if run.results and run.tested is not None and len(run.results) < run.tested:
        notes.append(
            ParseWarning(
                line=run.tested_line,
                message=f"{on}gpu-burn: the summary tested {run.tested} GPU(s) but the copy keeps "
                f"{len(run.results)} row(s): the others' results are not in it",
            )
        )
    if last is not None and last.gflops:
        temps = [t for t in last.temps_c if t is not None]
        notes.append(
            ParseWarning(
                line=last.line,
                message=f"{on}gpu-burn at {last.percent:g} %: {len(last.gflops)} GPU(s) at "
                f"{min(last.gflops)}-{max(last.gflops)} Gflop/s"
                + (f", {min(temps)}-{max(temps)} C" if temps else ""),
                skipped=False,
            )
        )
    if run.tested is None:
        notes.append(
            ParseWarning(
                line=last.line if last else 1,
                message=f"{on}gpu-burn: the copy ends before its 'Tested N GPUs' summary",
            )
        )
    return notes


def _dcgm_profiling_error(
    text: str, source: str, out: EvidenceFacts, name: str
) -> list[ParseWarning]:
    """DCGM's profiling module's unrecoverable error (-37, DCGM_ST_PROFILING_LIBRARY_ERROR): a
    ``dcgm_profiling_error`` failure, DCGM's own and no GPU's: its profiling fields
    (DCGM_FI_PROF_*) are not read, whatever a dashboard shows for them."""
    found = dcgm.profiling_errors(text)
    if not found:
        raise ParseError("no line that logs it outside dcgmi dmon")
    for err in found:
        zero = (
            f" after PerfWorks decoded zero samples in {err.zero_samples[1]} attempt(s) (line "
            f"{err.zero_samples[0]})"
            if err.zero_samples
            else ""
        )
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="dcgm_profiling_error",
                line=err.line,
                message=err.said,
                library="DCGM",
                code="-37",
                exception_type=f"DCGM's profiling module returned -37 (DCGM_ST_PROFILING_LIBRARY_"
                f"ERROR, an unrecoverable error){zero}: the profiling fields (DCGM_FI_PROF_*) are "
                "not read; DCGM's own failure, no GPU named",
            ),
        )
    return []


# nvidia-smi dmon's columns that count trouble (nvidia-smi(1), DEVICE MONITORING): the share of
# the interval the power limit held the clocks down, the thermal violation flag, the aggregated
# single and double bit ECC counts and the PCIe replays; said, as nvidia-smi -q's aggregate ECC
# counts and replays are (_memory_history), not judged: a count from one sample has no rate
_DMON_TROUBLE = {
    "pviol": "power violation",
    "tviol": "thermal violation",
    "sbecc": "single-bit ECC errors (aggregate)",
    "dbecc": "double-bit ECC errors (aggregate)",
    "pci": "PCIe replays",
}


def _smi_dmon(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """``nvidia-smi dmon``: each GPU's samples said with each column's range, and whether any
    sample shows a power or thermal violation, ECC errors or PCIe replays."""
    dmon = nvidia_smi.parse_dmon(text)
    notes = list(dmon.notes)
    by_gpu: dict[int, list[nvidia_smi.DmonSample]] = {}
    for sample in dmon.samples:
        by_gpu.setdefault(sample.gpu, []).append(sample)
    columns = [c for c in dmon.samples[0].values if c not in ("Date", "Time", "gpu")]
    trouble: list[str] = []
    for gpu, samples in by_gpu.items():
        said = []
        for column in columns:
            # (row, figure) where the GPU printed one; "-" where it has no such figure
            figures = [
                (s.line, float(v))
                for s in samples
                if _DMON_FIGURE_RE.fullmatch(v := s.values.get(column, "-"))
            ]
            unit = dmon.units.get(column, "")
            unit = "" if unit in ("bool", "errs") else f" {unit}"
            if not figures:
                said.append(f"{column} {samples[0].values.get(column, '-')}")
                continue
            low, high = min(f for _, f in figures), max(f for _, f in figures)
            said.append(
                f"{column} {low:g}{unit}" if low == high else f"{column} {low:g}-{high:g}{unit}"
            )
            if column in _DMON_TROUBLE and (hits := [no for no, f in figures if f > 0]):
                trouble.append(
                    f"GPU {gpu} {_DMON_TROUBLE[column]} ({column} up to {high:g}{unit}) in "
                    f"{len(hits)} of {len(samples)} sample(s), first at line {hits[0]}"
                )
        notes.append(
            ParseWarning(
                line=samples[0].line,
                message=f"nvidia-smi dmon GPU {gpu}: {len(samples)} sample(s): {', '.join(said)}",
                skipped=False,
            )
        )
    for row in dmon.unanswered:
        _add_failure(out, source, _dmon_unanswered(row, dmon.units))
    watched = [c for c in _DMON_TROUBLE if c in columns]
    if trouble:
        notes.append(
            ParseWarning(
                line=dmon.samples[0].line,
                message="nvidia-smi dmon: " + "; ".join(trouble),
                skipped=False,
            )
        )
    elif watched:
        notes.append(
            ParseWarning(
                line=dmon.samples[0].line,
                message=f"nvidia-smi dmon: {len(by_gpu)} GPU(s), {len(dmon.samples)} sample(s): "
                f"{', '.join(watched)} 0 in every sample that reports them",
                skipped=False,
            )
        )
    return notes


_DMON_FIGURE_RE = re.compile(r"\d+(?:\.\d+)?")


def _dmon_unanswered(row: nvidia_smi.DmonUnanswered, units: dict[str, str]) -> logs.LogEvent:
    """A ``gpu_monitor_unanswered`` failure: nvidia-smi dmon's row of "-" where the GPU gave
    figures before (a fetch of them that failed: nvidia-smi(1), DEVICE MONITORING). A warning,
    not a fault shown: NVML did not answer for the GPU that once, and the row says nothing of
    why (a GPU fallen off the bus, its driver hung, or the host going down under dmon)."""

    def unit(column: str) -> str:
        said = units.get(column, "")
        return "" if said in ("", "bool", "errs") else f" {said}"

    before = ", ".join(f"{c} {v}{unit(c)}" for c, v in row.before.items())
    said = (
        f"nvidia-smi dmon could not read GPU {row.gpu} at line {row.line}: "
        f"{', '.join(row.before)} '-' where its earlier samples read {before}"
    )
    if row.columns < row.of_columns:
        said += f"; its row stops after {row.columns} of {row.of_columns} columns"
    if row.rows > 1:
        said += f"; {row.rows} rows of it read so, to line {row.last_line}"
    if row.answered_again is not None:
        said += f"; it answered again at line {row.answered_again}"
    elif row.last:
        said += f"; dmon's output ends there: GPU {row.gpu} stopped answering"
    return logs.LogEvent(
        kind="gpu_monitor_unanswered",
        line=row.line,
        message=row.row[:300],
        device=row.gpu,
        library="nvidia-smi",
        exception_type=said,
    )


def _dcgm_diags(diags: list[dcgm.Diag], source: str, out: EvidenceFacts, tool: str) -> None:
    """DCGM's checks, of ``dcgmi diag`` or ``dcgmi health``, into ``dcgm_diags``."""
    for d in diags:
        checks = [
            {
                **asdict(c),
                "summary": f"{c.name} ({c.section}): {c.result}"
                + (f" - {c.gpus}" if c.gpus else "")
                + (f": {' '.join(c.details)}" if c.details else ""),
            }
            for c in d.checks
        ]
        out.dcgm_diags.append(
            {
                "source": source,
                "tool": tool,
                "line": d.line,
                "dcgm_version": d.dcgm_version,
                "driver": d.driver,
                "gpu_ids": d.gpu_ids,
                "repeats": d.repeats,
                "level": d.level,
                # the copy ends inside the table: the test sections it lost are not passed
                "cut": asdict(d.cut) if d.cut is not None else None,
                "checks": checks,
                # a Deployment check (persistence mode, the denylist, other processes on the
                # GPU ...) is the diagnostic's own precondition, not the GPU's hardware
                "failed": [
                    c
                    for c in checks
                    if c["result"] == "Fail"
                    and not _dcgm_precondition(c)
                    and not _dcgm_own_error(c)
                    and not _dcgm_cuda_unavailable(c)
                ],
                # a test that could not start CUDA on the GPUs: the node's setup (a driver
                # daemon not running), not a GPU's hardware
                "cuda_unavailable": [
                    c for c in checks if c["result"] == "Fail" and _dcgm_cuda_unavailable(c)
                ],
                # a check that failed while every GPU's own row under it passed: the test's
                # run failed ("There was an internal error during the test"), not a GPU
                "test_errors": [c for c in checks if c["result"] == "Fail" and _dcgm_own_error(c)],
                "precondition_failed": [
                    c for c in checks if c["result"] == "Fail" and _dcgm_precondition(c)
                ],
                "warned": [c for c in checks if c["result"] == "Warn"],
                "hardware_run": any(
                    c["result"] != "Skip" and c["section"] != "Deployment" for c in checks
                ),
                "hardware_skipped": [
                    c["name"]
                    for c in checks
                    if c["section"] != "Deployment" and c["result"] == "Skip"
                ],
            }
        )


# a MAD tool's failure note (rdma._mad_failure_note): "saquery failed: ..."
_MAD_TOOL_FAILED_RE = re.compile(r"^(?P<tool>[\w.-]{1,40}) failed: ")
# ibstat's abort on a device the umad library listed (infiniband-diags ibstat.c main(): every name
# umad_get_cas_names gave is ca_stat()-ed in turn, the first that fails ends the run with
# IBPANIC("stat of IB device '%s' failed")): that device is listed but its sysfs record cannot be
# read (a device gone or being reset), and it and every device after it go unreported
_IBPANIC_RE = re.compile(
    r"^ibpanic: \[\d+\] main: stat of IB device '(?P<ca>[^'\n]+)' failed(?::[ \t]*(?P<why>[^\n]*))?",
    re.M,
)


def _not_an_rdma_device(miss: rdma.IbstatNotFound, ports: list[rdma.HcaPort]) -> str:
    """Why ibstat found no device by the name it was given: the RDMA ports whose network
    interface ibdev2netdev shows under that name in the same copy (and host), where any do."""
    netdev_of = [
        p
        for p in ports
        if p.tool == "ibdev2netdev" and p.netdev == miss.name and p.host == miss.host
    ]
    said = (
        f"ibstat was given '{miss.name}', which starts with the name of no RDMA device this "
        "host lists"
        + (f" ({miss.why})" if miss.why else "")
        + ": nothing of any port was reported"
        + (f" (its answer on line {miss.answer_line})" if miss.answer_line != miss.line else "")
    )
    if netdev_of:
        said += (
            f"; '{miss.name}' is the network interface of "
            + ", ".join(f"{p.ca} port {p.port} (line {p.line})" for p in netdev_of)
            + " per ibdev2netdev, and ibstat takes the RDMA device's name, not its interface's"
        )
    return said


_IBV_OPEN_FAILED_RE = re.compile(r"^[ \t]*Failed to open device[ \t]*$", re.M)


def _ibnet_peers(fabric: list[rdma.HcaPort]) -> list[str]:
    """Each ibnetdiscover port's link: the node at its other end, its rate, its line."""
    return [
        f"{p.peer}" + (f" at {p.rate_gbps:g} Gb/s" if p.rate_gbps else "") + f" (line {p.line})"
        for p in fabric
    ]


def _devinfo_gid_fragment(
    phys_state: str, phys_line: int, gids: list[rdma.DevinfoGid]
) -> list[ParseWarning]:
    """An ibv_devinfo -v port's phys_state and GID rows alone: said, the port's device, number
    and logical state not being in the copy; LINK_UP is the physical link trained (rdma-core
    devinfo.c port_phy_state_str: 5 is "LINK_UP"), and a RoCE v2
    GID of an IPv4 address is the one NCCL picks by default (NCCL_IB_ADDR_FAMILY AF_INET,
    NCCL_IB_ROCE_VERSION_NUM 2)."""
    v2 = [g for g in gids if g.gid_type == "RoCE v2" and g.ipv4]
    return [
        ParseWarning(
            line=phys_line,
            message=f"ibv_devinfo -v port lines without its hca_id and port lines (device, port "
            f"and logical state not in the copy): phys_state {phys_state} (line {phys_line})"
            + (
                ": the physical link is up"
                if phys_state == "LINK_UP"
                else ": the physical link is not up (LINK_UP when it is)"
            )
            + f"; {len(gids)} GID(s) (lines {gids[0].line}-{gids[-1].line}): "
            + ", ".join(
                f"GID[{g.index}] {g.gid}" + (f" {g.gid_type}" if g.gid_type else "")
                for g in gids[:8]
            )
            + (" ..." if len(gids) > 8 else "")
            + (
                "; RoCE v2 with an IPv4 address at index "
                + ", ".join(f"{g.index} ({g.ipv4}, line {g.line})" for g in v2)
                + ": the GID NCCL picks by default"
                if v2
                else ""
            ),
            skipped=False,
        )
    ]


def _rdma(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    panics = list(_IBPANIC_RE.finditer(text))
    for m in panics:
        why = (m.group("why") or "").strip()
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="rdma_device_unreadable",
                line=text.count("\n", 0, m.start()) + 1,
                message=m.group(0).strip()[:300],
                device=None,
                library="ibstat",
                exception_type=f"ibstat stopped at RDMA device {m.group('ca')}: it is listed "
                f"but its state cannot be read{f' ({why})' if why else ''}; its ports (and, "
                "where ibstat listed every device, the devices after it) are not reported",
            ),
        )
    missing = rdma.ibstat_not_found(text) if "IB device can't be found" in text else []
    try:
        ports, warnings = rdma.parse(text)
        alone = False
    except ParseError:
        if not panics and not missing:
            if (fragment := rdma.devinfo_gid_fragment(text)) is not None:
                return _devinfo_gid_fragment(*fragment)
            raise
        ports, warnings, alone = [], [], True
    for miss in missing:
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="rdma_device_not_found",
                line=miss.line,
                message=f"ibstat {miss.name}: '{miss.name}' IB device can't be found"
                + (f": {miss.why}" if miss.why else ""),
                host=miss.host,
                library="ibstat",
                exception_type=_not_an_rdma_device(miss, ports),
            ),
        )
    if alone:
        return []  # the file is ibstat's failure alone: read as that
    out.hca_ports.extend({"source": source, **asdict(p)} for p in ports)
    notes = [w for w in warnings if not w.message.startswith("ibstat failed: ibpanic")]
    # a MAD tool refused its umad port with "Permission denied" (saquery's IBPANIC adds
    # strerror: rdma._SA_UMAD_FAILED_RE): the user may not open /dev/infiniband/umad*, so the
    # copy's MAD tools that could not open the port (sminfo's "can't open UMAD port" beside it
    # included) were not run against the fabric: no subnet manager was asked, none is missed
    denied = any("Permission denied" in w.message and "umad port" in w.message for w in warnings)
    for w in warnings:
        if denied and "umad port" in w.message and (mad := _MAD_TOOL_FAILED_RE.match(w.message)):
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="mad_port_denied",
                    line=w.line,
                    message=w.message[:400],
                    library=mad.group("tool"),
                    exception_type=f"{mad.group('tool')} could not open the umad port as this "
                    "user: the check did not run (no subnet manager was asked)",
                ),
            )
            continue
        if not w.message.startswith("sminfo failed: "):
            continue
        # sminfo's exit (infiniband-diags sminfo.c: IBEXIT("query") where smp_query_via to the
        # SM's LID gets no SMInfo back, that LID the local port's sm_lid unless one is given
        # (ibdiag_common.c resolve_sm_portid), 0 where no subnet manager configured the port;
        # "Failed to open ..." where its MAD port would not open): no subnet manager is known
        opened = "Failed to open" not in w.message
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="sminfo_failed",
                line=w.line,
                message=w.message[:300],
                library="sminfo",
                exception_type=(
                    "sminfo's SMInfo query got no answer: no subnet manager answered at the LID "
                    "asked (without one, the SM LID the local port knows, 0 where no subnet "
                    "manager has configured it)"
                    if opened
                    else "sminfo could not open its MAD port: no subnet manager was asked"
                ),
            ),
        )
    if fabric := [p for p in ports if p.tool == "ibnetdiscover"]:
        if _IBDIAG_DB_HEAD in text[:200]:
            # ibdiagnet's own copy of the topology ("# This database file was automatically
            # generated by IBDIAG" above it), in ibnetdiscover's form: read as such, its tool said
            notes.append(
                ParseWarning(
                    line=1,
                    message="ibdiagnet's topology file (its 'generated by IBDIAG' head), in "
                    "ibnetdiscover's form: read as ibnetdiscover's",
                    skipped=False,
                )
            )
        # the fabric's topology: its nodes and the rates its links trained at (a link slower
        # than the others is the one to look at)
        rates = Counter(f"{p.rate_gbps:g} Gb/s" for p in fabric if p.rate_gbps)
        nodes, elided = rdma.ibnetdiscover_outline(text)
        # the nodes by kind (ibnetdiscover's "Switch" / "Ca" / "Rt" line), the switches named:
        # a reader checks the switch model and the hosts its ports reach
        switches = [f'"{desc}" (line {no})' for no, kind, desc in nodes if kind == "Switch"]
        notes.append(
            ParseWarning(
                line=fabric[0].line,
                message=f"ibnetdiscover: {len({p.ca for p in fabric})} node(s) with "
                f"{len(fabric)} connected port(s) (each end of a link counted); link rates "
                + ", ".join(f"{r} x{n}" for r, n in rates.most_common())
                + (_ibnet_rates_by_peer(fabric, text) if len(rates) > 1 else "")
                + (f"; switch(es): {', '.join(switches[:8])}" if switches else "")
                + (f" and {len(switches) - 8} more" if len(switches) > 8 else "")
                + (f"; links to {', '.join(_ibnet_peers(fabric))}" if len(fabric) <= 16 else "")
                + (
                    f"; the copy leaves the rest out at line {elided} ('...'): a partial "
                    "topology, the nodes and links below it not read"
                    if elided is not None
                    else ""
                ),
                skipped=False,
            )
        )
    if unopened := [m for m in _IBV_OPEN_FAILED_RE.finditer(text)]:
        # the line ibv_devinfo prints, as pasted outputs show it, for each device it lists but
        # cannot open (naming none): those devices' ports are not in the output
        notes.append(
            ParseWarning(
                line=text.count("\n", 0, unopened[0].start()) + 1,
                message=f"ibv_devinfo could not open {len(unopened)} RDMA device(s) (it does not "
                "name them): their ports are not read; a device that will not open (a driver "
                "or firmware fault, or a container given the device list and not the devices) "
                "cannot carry the job's traffic",
            )
        )
    return notes


_IBDIAG_DB_HEAD = "# This database file was automatically generated by IBDIAG"


def _ibnet_rates_by_peer(fabric: list[rdma.HcaPort], text: str) -> str:
    """Where an ibnetdiscover topology's links run at more than one rate: where its slowest
    links all reach HCAs and every link to a switch is faster, that (hosts' HCAs of an older
    generation on a newer fabric, "4xEDR" hosts under "4xHDR" uplinks, run at their own top rate:
    no fault of the fabric, but each such host gets no more than that); otherwise that the slower
    links trained narrower or slower than the rest."""
    to_switch = rdma.ibnetdiscover_switch_peers(text)
    rated = [
        (p.rate_gbps, to_switch[p.line]) for p in fabric if p.rate_gbps and p.line in to_switch
    ]
    slowest_gbps = min((gbps for gbps, _ in rated), default=0.0)
    slow = [switch for gbps, switch in rated if gbps == slowest_gbps]
    uplinks_gbps = Counter(gbps for gbps, switch in rated if switch)
    hca_links = [p for p in fabric if p.line in to_switch and not to_switch[p.line]]
    slowest = [p for p in hca_links if p.rate_gbps == slowest_gbps]
    if any(p.peer_lanes for p in fabric):
        # (a link on fewer lanes than most host links: a lane that did not train, never a
        # generation; evidence-hca-link-narrower-than-peers warns of it)
        return (
            "; the links do not all run at one rate: the slower ones trained narrower than the "
            "rest (fewer lanes at the same lane speed)"
        )
    if slowest and 2 * len(slowest) < len(hca_links):
        # (a few hosts at a slower lane speed among faster hosts of the same fabric: the usual
        # cable or trained-down case, or an older HCA; said so, as evidence-hca-link-lanes-slower
        # warns of it, not as the fabric's design)
        return (
            f"; the {len(slowest)} slowest link(s), {slowest_gbps:g} Gb/s, of the "
            f"{len(hca_links)} host link(s) run slower than their peers (possibly an older HCA "
            "or its cable, or a link trained down)"
        )
    if slow and not any(slow) and uplinks_gbps and min(uplinks_gbps) > slowest_gbps:
        # (the slowest links all reach HCAs, every link between switches faster: a SHARP
        # aggregation node, an HCA-form node inside the switch, may run at the switches' rate)
        return (
            f"; the {len(slow)} slowest link(s), {slowest_gbps:g} Gb/s, all reach HCAs, the "
            f"{sum(uplinks_gbps.values())} link(s) to switches run at "
            + ", ".join(f"{gbps:g} Gb/s" for gbps in sorted(uplinks_gbps))
            + ": those hosts' HCAs run below the switches' links (an older HCA generation, "
            f"or its cable; each such host gets {slowest_gbps:g} Gb/s at most)"
        )
    return (
        "; the links do not all run at one rate: the slower ones trained narrower or slower "
        "than the rest"
    )


def _dcgmi_discovery(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """dcgmi discovery -l: the GPUs DCGM sees, said (their names and buses; nothing judged)."""
    found, gpus, warnings = dcgm.parse_discovery(text)
    listed = "; ".join(
        f"GPU {g.id} {g.name or '(name not shown)'}" + (f" ({g.bus_id})" if g.bus_id else "")
        for g in gpus[:8]
    ) + (" ..." if len(gpus) > 8 else "")
    warnings.append(
        ParseWarning(
            line=gpus[0].line if gpus else 1,
            message=(f"{found} GPU(s) found" if found is not None else "GPUs listed")
            + (f": {listed}" if gpus else "")
            + "; not judged",
            skipped=False,
        )
    )
    return warnings


def _dcgmi_stats(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """dcgmi stats: each box said; a box whose Overall Health is Warning or Failure (DCGM's
    health watches on that GPU during the job or process, dcgmi/ProcessStats.cpp
    HelperDisplayOverAllHealth) as a ``dcgmi stats`` health check of that GPU."""
    notes, bad = dcgm.stats_read(text)
    if bad:
        checks = [
            dcgm.DiagCheck(
                section="dcgmi stats",
                name=f"Overall Health ({b.where})" if b.where else "Overall Health",
                result=b.result,
                gpus=f"GPU: {b.gpu}" if b.gpu is not None else None,
                line=b.line,
                details=["; ".join(b.details)] if b.details else [],
            )
            for b in bad
        ]
        _dcgm_diags([dcgm.Diag(line=bad[0].line, checks=checks)], source, out, "dcgmi stats")
    return notes


def _ibqueryerrors(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """ibqueryerrors: each node's port error counters and the summary, said in notes; a port
    with PortNeighborMTUDiscards (``rdma.IBQE_MTU_DISCARDS``) an ``ib_neighbor_mtu_discards``."""
    notes = rdma.ibqueryerrors_notes(text)
    ports, _ = rdma.parse_ibqueryerrors(text)
    for p in rdma.neighbor_mtu_discards(ports):
        others = ", ".join(f"{k} {v}" for k, v in p.counters.items() if k != rdma.IBQE_MTU_DISCARDS)
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="ib_neighbor_mtu_discards",
                line=p.line,
                message=f"{rdma.IBQE_MTU_DISCARDS} {p.counters[rdma.IBQE_MTU_DISCARDS]}"
                + (f" ({others})" if others else ""),
                library="ibqueryerrors",
                exception_type=f"{p.node or 'a node not named'} port {p.port}"
                + (" (the switch's ports summed)" if p.port == "ALL" else "")
                + ": it dropped packets longer than the MTU of its link to its neighbour "
                "(NeighborMTU): a sender or path using a larger MTU than that link's",
            ),
        )
    return notes


def _mlxlink(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """mlxlink's port: read as an RDMA port (its state, speed and width)."""
    ports, warnings = rdma.parse_mlxlink(text)
    out.hca_ports.extend({"source": source, **asdict(p)} for p in ports)
    for p in ports:
        warnings.append(
            ParseWarning(
                line=p.line,
                message=f"{p.ca} port {p.port} "
                + (
                    f"{p.state}" + (f" / {p.physical_state}" if p.physical_state else "")
                    if p.state
                    else f"physical state {p.physical_state} (its logical State not in the copy)"
                )
                + (f", {p.rate_gbps:g} Gb/s {p.link_layer}" if p.rate_gbps else "")
                + (f", firmware {p.firmware}" if p.firmware else ""),
                skipped=False,
            )
        )
    return warnings


def _amd_smi_nic(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """AMD-SMI's AINIC view: each RDMA device's port read as an RDMA port (its STATE, the netdev
    it names), the netdev's own link (CARRIER, LINK_STATE, LINK_SPEED) said with it; a netdev
    no RDMA port names is said in a note."""
    nets, rdmas = amd_smi_nic.parse(text)
    by_netdev = {n.netdev: n for n in nets if n.netdev}
    notes: list[ParseWarning] = []
    for r in rdmas:
        net = by_netdev.get(r.netdev)
        state = r.state.upper()
        port = rdma.HcaPort(
            ca=r.device or "(RDMA device not named)",
            port=r.port if r.port is not None else 1,
            line=r.line,
            tool="amd-smi",
            state=r.state,
            state_line=r.state_line,
            # (the verbs port states as words: only ACTIVE carries traffic; libibverbs' enum
            # ibv_port_state, rdma link's "state ACTIVE")
            active=state in ("ACTIVE", "PORT_ACTIVE", "ACTIVE_DEFER"),
            link_layer=net.port_type or None if net else None,
            netdev=r.netdev or None,
            # (netdev_up is ibdev2netdev's "(Up)"/"(Down)", which evidence-hca-netdev-down
            # names as that tool's: the netdev's own link goes in netdev_link instead)
            rate_gbps=net.speed_mbps / 1000 if net and net.speed_mbps else None,
        )
        link = _amd_smi_netdev_link(net) if net else ""
        out.hca_ports.append({"source": source, **asdict(port), "netdev_link": link})
        notes.append(
            ParseWarning(
                line=r.state_line or r.line,
                message=f"amd-smi: RDMA device {port.ca} port {port.port} state {r.state} "
                f"(line {r.state_line})"
                + (f", netdev {r.netdev}" if r.netdev else "")
                + (f": {link}" if link else ""),
                skipped=False,
            )
        )
    named = {r.netdev for r in rdmas}
    for n in nets:
        if n.netdev in named:
            continue
        notes.append(
            ParseWarning(
                line=n.line,
                message=f"amd-smi: NIC port {n.netdev or '(netdev not named)'}: "
                + (_amd_smi_netdev_link(n) or "no link state shown")
                + "; no RDMA device port in the copy names it",
                skipped=False,
            )
        )
    return notes


def _amd_smi_netdev_link(net: amd_smi_nic.NetPort) -> str:
    """The netdev's link as amd-smi printed it, with its lines; a carrier of 0 is no physical
    link (Linux Documentation/ABI/testing/sysfs-class-net, carrier)."""
    said = []
    if net.carrier is not None:
        said.append(f"CARRIER {net.carrier} (line {net.carrier_line})")
    if net.link_state:
        said.append(f"LINK_STATE {net.link_state} (line {net.link_state_line})")
    if net.speed_mbps is not None:
        said.append(f"LINK_SPEED {net.speed_mbps} Mb/s (line {net.speed_line})")
    if not said:
        return ""
    down = net.carrier == 0 or net.link_state == "down"
    return (
        ", ".join(said)
        + ("; no physical link (no carrier)" if net.carrier == 0 else "")
        + ("" if down or net.link_state != "up" else "; link up")
    )


def _show_gids(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """show_gids: each RoCE port's GIDs said (the RoCEv2 IPv4 one NCCL_IB_GID_INDEX would name);
    a host or port with no RoCEv2 GID that carries an IPv4 address is a ``rdma_no_gid``."""
    gids, found, found_line = rdma.parse_show_gids(text)
    notes: list[ParseWarning] = []
    ports: dict[tuple[int, str, int], list[rdma.Gid]] = {}
    for g in gids:
        ports.setdefault((g.output, g.ca, g.port), []).append(g)
    outputs = max((g.output for g in gids), default=1)
    v2_index: dict[tuple[str, int], set[int]] = {}
    for g in gids:
        if g.version == "v2" and g.ipv4:
            v2_index.setdefault((g.ca, g.port), set()).add(g.index)
    for (ca, port), indexes in v2_index.items():
        if outputs > 1 and len(indexes) > 1:
            # (NCCL_IB_GID_INDEX is one index for every rank of the job: where the outputs'
            # RoCEv2 GIDs stand at different indexes, one value does not fit them all)
            notes.append(
                ParseWarning(
                    line=gids[0].line,
                    message=f"{ca} port {port}'s RoCEv2 GID stands at index "
                    f"{', '.join(map(str, sorted(indexes)))} in the file's {outputs} outputs: one "
                    "NCCL_IB_GID_INDEX set for the whole job does not fit them all (NCCL 2.21 "
                    "and later choose the index themselves where it is unset)",
                    skipped=False,
                )
            )
    # show_gids prints a device's rows one after another and ends with n_gids_found: a copy
    # that stops before that line may have lost the rest of its last port's rows, so that
    # port's missing RoCEv2 GID is not a finding (the rows cut may hold it)
    cut_port = (gids[-1].output, gids[-1].ca, gids[-1].port) if found is None and gids else None
    for (output, ca, port), own in ports.items():
        v2 = [g for g in own if g.version == "v2" and g.ipv4]
        # a RoCEv2 GID of a routable IPv6 address (not link-local fe80::, not an IPv4 one mapped
        # as ::ffff:a.b.c.d): NCCL 2.21+ picks its GID by NCCL_IB_ADDR_FAMILY (AF_INET by
        # default, AF_INET6 for these, with NCCL_IB_ADDR_RANGE) and NCCL_IB_ROCE_VERSION_NUM (2)
        v2_ipv6 = [
            g
            for g in own
            if g.version == "v2"
            and not g.ipv4
            and not g.gid.lower().startswith("fe80")
            and not g.gid.lower().startswith("0000:0000:0000:0000:0000:ffff")
            and set(g.gid) - {"0", ":"}
        ]
        # (an InfiniBand port's GIDs read "v1" too, the kernel's IB/RoCE v1 type, but name no
        # network interface: only a port with one is RoCE)
        roce = any(g.netdev for g in own)
        notes.append(
            ParseWarning(
                line=own[0].line,
                message=(f"output {output} of {outputs}: " if outputs > 1 else "")
                + f"{ca} port {port}"
                + (f" ({own[0].netdev})" if own[0].netdev else "")
                + f": {len(own)} GID(s)"
                + (
                    f" ({masked} masked with 'x' by the copy's author, their addresses unknown)"
                    if (masked := sum(g.masked for g in own))
                    else ""
                )
                + "; "
                + (
                    ", ".join(f"RoCEv2 index {g.index} {g.ipv4}" for g in v2)
                    if v2
                    else ", ".join(f"RoCEv2 index {g.index} IPv6 {g.gid}" for g in v2_ipv6)
                    + " (no IPv4 one: NCCL takes an IPv6 GID with NCCL_IB_ADDR_FAMILY=AF_INET6, "
                    "its default being AF_INET)"
                    if roce and v2_ipv6
                    else f"no RoCEv2 GID with an IPv4 address in the rows left: the copy ends "
                    f"after its index {own[-1].index} row (line {own[-1].line}), so its other "
                    "GIDs may be among the rows cut; not judged"
                    if roce and (output, ca, port) == cut_port
                    else "no RoCEv2 GID with an IPv4 address"
                    if roce
                    else "an InfiniBand port (no network interface): no RoCE GID to check"
                ),
                skipped=False,
            )
        )
        if (output, ca, port) == cut_port and not v2:
            continue  # (its IPv4 RoCEv2 GID may be in the rows the cut lost)
        if roce and not v2 and v2_ipv6:
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="rdma_ipv6_gid_only",
                    line=own[0].line,
                    message=f"{ca} port {port}: RoCEv2 GIDs of IPv6 addresses only",
                    library="show_gids",
                    exception_type=f"{ca} port {port}: RoCEv2 index "
                    + ", ".join(f"{g.index} {g.gid}" for g in v2_ipv6[:2])
                    + ", no IPv4 one",
                ),
            )
        if roce and not v2 and not v2_ipv6:
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="rdma_no_gid",
                    line=own[0].line,
                    message=f"{ca} port {port}: no RoCEv2 GID with an IPv4 address",
                    library="show_gids",
                    exception_type=f"{ca} port {port} has no RoCEv2 GID with an IPv4 address "
                    "(its netdev has no IPv4 address, or RoCEv2 is off): NCCL's RoCE transport "
                    "finds no routable GID there",
                ),
            )
    if found == 0:
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="rdma_no_gid",
                line=found_line,
                message="n_gids_found=0",
                library="show_gids",
                exception_type="show_gids found no GID on any RDMA port (no RDMA device, or a "
                "container that sees none): RDMA cannot be used here",
            ),
        )
    elif (
        found is None
        and gids
        and _gids_last_row_whole(text, gids[-1])
        # (a last port with fewer rows than every other: the copy stopped inside it)
        and not _gids_last_port_short(ports, cut_port)
    ):
        # the copy's last line is a whole row (its VER and netdev columns): the table as far as
        # it goes is read, only the closing count is absent (a page that copied the rows alone)
        notes.append(
            ParseWarning(
                line=gids[-1].line,
                message=f"no n_gids_found line after its last row (line "
                f"{gids[-1].line}, whole): {len(gids)} GID row(s) read, the count line absent",
                skipped=False,
            )
        )
    elif found is None:
        notes.append(
            ParseWarning(line=0, message="show_gids: the copy ends before its n_gids_found line")
        )
    return notes


def _gids_last_port_short(
    ports: dict[tuple[int, str, int], list[rdma.Gid]], last: tuple[int, str, int] | None
) -> bool:
    """Whether the copy's last port shows fewer GID rows than each other port: show_gids prints
    a port's whole GID table, so a short last one is a copy stopped inside it."""
    others = [len(own) for key, own in ports.items() if key != last]
    return last is not None and bool(others) and len(ports[last]) < min(others)


def _gids_last_row_whole(text: str, last: rdma.Gid) -> bool:
    """Whether ``last``, the copy's last GID row, is its last line with text and shows every
    column show_gids prints for it (VER and the netdev, the row's last): a row cut short lacks
    them, or is not read as a row at all (then the line after the last row read is the cut)."""
    if last.version is None or last.netdev is None:
        return False
    lines = text.splitlines()
    return not any(line.strip() for line in lines[last.line :])


def _perftest(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """perftest runs (ib_write_bw ...): each the port it ran on, with what it measured."""
    ports, warnings = rdma.parse_perftest(text)
    if any(p.ca == rdma.NO_DEVICE for p in ports) and _SIGNATURES["ibv_devices"].search(text):
        # (perftest names no device when it takes the first one: the one ibv_devices lists
        # in the same copy, where it lists one only)
        try:
            listed = rdma.parse_ibv_devices(text)
        except ParseError:
            listed = []
        if len(listed) == 1:
            for p in ports:
                if p.ca == rdma.NO_DEVICE:
                    p.ca = listed[0][1]
                    warnings.append(
                        ParseWarning(
                            line=p.line,
                            message=f"perftest named no device: {p.ca}, the only one "
                            f"ibv_devices lists (line {listed[0][0]})",
                            skipped=False,
                        )
                    )
    for p in [p for p in ports if p.ca == rdma.NO_DEVICE and p.perftest and p.perftest.failed]:
        failed = p.perftest.failed if p.perftest else ""
        if failed and _PERFTEST_NO_DEVICE_RE.search(failed):
            # perftest found no RDMA device at all (perftest_parameters.c: "Did not detect
            # devices", then "Unable to find the Infiniband/RoCE device"): no port ran, the host
            # (or container) has no RDMA device, as ibv_devinfo's "No IB devices found" (which,
            # in the same copy, the log reading says already)
            ports.remove(p)
            if "No IB devices found" in text:
                continue
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="rdma_no_device",
                    line=p.line,
                    message=failed[:300],
                    library="perftest",
                    exception_type="perftest found no RDMA device to run on",
                ),
            )
    for p in ports:
        run = p.perftest
        if (
            run is None
            or not run.empty_gids
            or run.rows
            or run.failed
            or p.link_layer != "Ethernet"
        ):
            continue
        # a RoCE run that printed an all-zero GID and nothing after it (no failure line, no
        # report): the GID table has no entry at the index it used on that side (an empty
        # entry reads as zeros; a RoCE GID is made from an IP address of the port's interface:
        # rdma.py, _PERFTEST_ZERO_GID_RE), so its QP has no address to connect with
        whose = {"local": "its own", "remote": "the peer's"}
        sides = " and ".join(
            f"{whose.get(side, side)} (line {no})" for side, no in run.empty_gids.items()
        )
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="rdma_no_gid",
                line=min(run.empty_gids.values()),
                message=f"perftest {run.test} on {p.ca}: all-zero GIDs",
                library="perftest",
                exception_type=f"{p.ca} port {p.port} (RoCE"
                + (f", GID index {run.gid_index}" if run.gid_index is not None else "")
                + f"): perftest {run.test} printed all-zero GIDs, {sides}: an empty entry of "
                "the GID table (a RoCE GID is made from an IP address of the port's network "
                "interface; this index holds none), so no RoCE connection can be addressed "
                "with it",
            ),
        )
    out.hca_ports.extend({"source": source, **asdict(p)} for p in ports)
    return warnings


_SERVER_ID_RE = re.compile(r'"server_id"[ \t]*:[ \t]*"([^"\n]*)"')


def _server_id_lines(text: str, ids: list[str]) -> list[int]:
    """The lines of ``text`` where a server_id key holds one of ``ids``, each line once, in
    order (a compact table's several servers on one line: that line once)."""
    wanted = set(ids)
    found: list[int] = []
    no, counted_to = 1, 0
    for m in _SERVER_ID_RE.finditer(text):
        if m.group(1).strip() not in wanted:
            continue
        no += text.count("\n", counted_to, m.start())
        counted_to = m.start()
        if not found or found[-1] != no:
            found.append(no)
    return found


_PERFTEST_NO_DEVICE_RE = re.compile(
    r"Did not detect devices|Unable to find the Infiniband/RoCE device|No IB devices found"
)


def _rank_table(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    embedded = None if _SIGNATURES["rank_table"].search(text) else embedded_rank_table(text)
    if embedded is not None:
        part, offset = embedded
        try:
            table = rank_table.parse(part)
        except ParseError as e:  # its lines are counted from the file's first line
            raise ParseError(e.message, line=e.line + offset if e.line else 0) from e
    else:
        table = rank_table.parse(text)
        offset = 0
    out.rank_tables.append({"source": source, **asdict(table)})
    # (a template's placeholders where the servers' ids or the devices' addresses belong: no
    # job can start from it as written; "placeholders" lists them, each once)
    out.rank_tables[-1]["placeholders"] = list(
        dict.fromkeys([*rank_table.masked_servers(table), *rank_table.placeholders(table)])
    )
    warnings = [
        ParseWarning(
            line=no + offset,
            message="'...' stands for entries left out; the table is read without "
            "them (counts and rank numbering not checked); as written the file is not JSON, so "
            "HCCL cannot load it",
        )
        for no in table.elided_lines
    ]
    if table.headless:
        first = text.count("\n", 0, len(text) - len(text.lstrip())) + 1 + offset
        warnings.append(
            ParseWarning(
                line=first,
                message="the copy starts inside one server's entry of a rank table (the table "
                "around it left out): read as that server's devices (its version, counts, "
                "server_id and the other servers unknown)"
                if table.server_entry
                else "the copy starts inside the rank table (its opening brace and the keys "
                "before this list left out): read from here (version, counts and the other "
                "lists unknown)",
            )
        )
    if table.comment_lines:
        # (a document's annotated example states a real layout: what it holds is said, as a clean
        # table's shape is; the comments themselves are the table's error)
        others = len(table.errors) - 1
        warnings.append(
            ParseWarning(
                line=table.comment_lines[0] + offset,
                message="read with its comments set aside (HCCL refuses them as written): "
                + rank_table.contents(table)
                + (
                    f"; {others} other error(s) in it"
                    if others
                    else "; the checks that need the whole table not made"
                    if table.cut or table.elided_lines or table.headless
                    else "; nothing else is wrong in it"
                ),
                skipped=False,
            )
        )
    if table.braceless:
        warnings.append(
            ParseWarning(
                line=text.count("\n", 0, len(text) - len(text.lstrip())) + 1 + offset,
                message="not valid JSON: the rank table's opening '{' is missing (a JSON parser "
                "refuses the file): read with it put back",
            )
        )
    if table.form == rank_table.MINDIE_FORM:
        instances = [r for r in table.ranks if r.group_id not in (None, "0", "1")]
        warnings.append(
            ParseWarning(
                line=1 + offset,
                message=f"MindIE MS's global rank table: {len(table.groups)} group(s) (its "
                f"coordinator and controller, then {len(table.servers) - 2} inference "
                f"instance(s) with {len(instances)} device(s)); each instance numbers its ranks "
                "from 0 and is told apart by its server_ip",
                skipped=False,
            )
        )
    elif len(table.servers) > 1 and (looped := rank_table.loopback_servers(table)):
        warnings.append(
            ParseWarning(
                line=1 + offset,
                # (CANN's rank table guide: server_id is the AI server's id, a string unique in
                # the table, e.g. "node_0"; HCCL connects by device_ip)
                message=f"server_id {', '.join(looped)} is a loopback address in a table of "
                f"{len(table.servers)} servers: HCCL takes server_id as an id only, but a tool "
                "that takes it for the server's address reaches no other host by it (a test's "
                "or a template's value?)",
                skipped=False,
            )
        )
    if masked := rank_table.masked_servers(table):
        # (shared only where one value stands for several servers: "server_0_10.*.*.*" and
        # "server_1_10.*.*.*" are two ids, each masked)
        shared = {m: n for m in masked if (n := table.servers.count(m)) > 1}
        # (cited where the table writes them, not at its first line)
        at = _server_id_lines(text, masked)
        warnings.append(
            ParseWarning(
                line=at[0] if at else 1 + offset,
                message=f"server_id {', '.join(masked)} "
                + (
                    "is a template's placeholder"
                    if len(masked) == 1
                    else "are masked or placeholders"
                )
                + "".join(
                    f", shared by {n} servers"
                    if len(masked) == 1
                    else f", {m} shared by {n} servers"
                    for m, n in shared.items()
                )
                + (
                    f" (line{'s' if len(at) > 1 else ''} {', '.join(map(str, at[:4]))}"
                    + (f" and {len(at) - 4} more" if len(at) > 4 else "")
                    + ")"
                    if at
                    else ""
                )
                + ": each server's own id goes there (unique in the table, CANN's rank table "
                "guide)",
                skipped=False,
            )
        )
    if (empty := [r for r in table.ranks if r.device_ip == ""]) and len(empty) == len(table.ranks):
        warnings.append(
            ParseWarning(
                line=1 + offset,
                message=f"device_ip is empty for all {len(empty)} devices: HCCL needs each "
                "device's own address where ranks talk across servers (one server's table "
                "can do without it)",
                skipped=False,
            )
        )
    device_ips = {r.device_ip: r for r in table.ranks if r.device_ip}
    for sid in dict.fromkeys(r.server_id for r in table.ranks):
        if (twin := device_ips.get(sid)) is not None:
            # (CANN's rank table guide: server_id identifies the AI server, device_ip is an NPU's
            # own RoCE address; HCCL connects by device_ip): the same address for both is a
            # device address copied into the server's field, or a host and an NPU port that
            # clash on one subnet
            warnings.append(
                ParseWarning(
                    line=1 + offset,
                    message=f"server_id {sid} is also the device_ip of device {twin.device_id}"
                    + (f" of server {twin.server_id}" if twin.server_id != sid else "")
                    + ": a server's id carries an NPU port's address (copied "
                    "from the device list, or the host and the NPU port share one address?)",
                    skipped=False,
                )
            )
    if held := rank_table.placeholders(table):
        shown = ", ".join(held[:2]) + (" ..." if len(held) > 2 else "")
        warnings.append(
            ParseWarning(
                line=1 + offset,
                message=f"device_ip of {len(held)} device(s) is a placeholder ({shown}): a "
                "template to fill in, not a table HCCL can start from (no address checked)",
                skipped=False,  # every field is read; the placeholders are what it says
            )
        )
    if table.cut:
        last = text.rstrip().count("\n") + 1  # the file's last line (``text`` is the whole file)
        warnings.append(
            ParseWarning(
                line=last,
                message="the text ends before the rank table closes: read as far as it goes "
                "(counts and rank numbering not checked)",
            )
        )
    return warnings


def _log(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    # HCCP's TLS switch of each device in its run log: the port's TLS state, as -tls -g says it
    tls = hccn_tool.hccp_tls_switches(text) if "TLS SWITCH (" in text else []
    out.npu_ports.extend({"source": source, **asdict(port)} for port in tls)
    try:
        report = logs.parse(text)
    except ParseError:
        if tls:
            return []  # a grep of HCCP's TLS lines: read as the ports' TLS states
        raise
    if logs.GLOG_FATAL_RE.search(text):
        # a glog FATAL line aborts its process: a failure of its own, in place of the same
        # line read as the first error line as written, beside an abort read from elsewhere
        # (a FATAL line another reading already knows, HCCL's result in a CHECK, stays that)
        known_at = {ev.line for ev in report.events if ev.kind != "log_error"}
        fatal = [ev for ev in logs.glog_fatal_events(text) if ev.line not in known_at]
        at = {ev.line for ev in fatal}
        report.events = [
            ev for ev in report.events if not (ev.kind == "log_error" and ev.line in at)
        ] + fatal
        if fatal and not any(ev.kind == "log_error" for ev in report.events):
            report.generic = False  # (read as glog's FATAL: no "first error line as written")
    # an hccl_test run's init failure was read by its own format already
    known = {(f["line"], f["kind"]) for f in out.failures if f["source"] == source}
    read_lines = {line for line, _ in known}
    if report.generic and report.events and all(ev.line in read_lines for ev in report.events):
        return list(report.unread)  # its error line is read already, by the format that knows it
    # (the black box's history.log names no device: its folder does, hisi_logs/device-N, as
    # msnpureport exports it)
    box_device = _BBOX_DEVICE_DIR_RE.search(source.replace("\\", "/"))
    for ev in report.events:
        if ev.kind == "npu_bbox_exception" and ev.device is None and box_device:
            ev.device = int(box_device.group(1))
        if (ev.line, ev.kind) not in known:
            _add_failure(out, source, ev)
    named = {h["host"] for h in out.log_hosts if h["source"] == source}  # by nccl-tests' reading
    out.log_hosts.extend({"source": source, "host": h} for h in report.hosts if h not in named)
    if report.generic and not (tls and not report.events):
        # a note, not a warning: every line was looked at
        # (an installer's word that its package waits for a reboot is its result, no error)
        waiting = [e for e in report.events if e.kind == "npu_package_reboot_pending"]
        # (a run whose installer found no device for its package: that failure stands for the
        # run's error lines)
        failed = [e for e in report.events if e.kind == "install_failed"]
        said = (
            f"its failed install is read (line {failed[0].line})"
            if failed and len(waiting) + len(failed) == len(report.events)
            else "its first error line is read as written"
            if len(waiting) < len(report.events)
            else "no line says an error; the installer's last words say a reboot is pending"
            if waiting
            else "no line says an error"
        )
        # torchrun's own notice as it starts its workers (torch/distributed/run.py: "Setting
        # OMP_NUM_THREADS environment variable for each process to be 1 in default ..."): the
        # launcher is known, the program it ran is not
        banner = _TORCHRUN_BANNER_RE.search(text)
        installer = any(w.message.startswith(logs.INSTALLER_NOTE) for w in report.unread)
        tagged = None if banner or installer else logs.own_tag_notes(text)
        if tagged is not None:
            # a harness's own prints, each line behind its tag: what it ran and its result
            # banner said beside "no line says an error" (the banner is its own word: an error
            # line, where one is, is still the log's first error line as written)
            tag, version, result = tagged
            what = (
                f"a program's own prints (each line tagged [{tag}]"
                + (f"; {version}" if version else "")
                + "), in no form the advisor reads"
            )
            if result and not report.events:
                said = f"{said}; {result}"
        elif banner:
            what = (
                "torchrun's launch (its OMP_NUM_THREADS notice) of a program in no form the "
                "advisor reads (no HCCL, NCCL or store line it knows)"
            )
        elif installer:
            # (its runs' command, version and progress are said in their own notes)
            what = "an Ascend package installer's log, no HCCL, NCCL, torch or store line in it"
        else:
            what = (
                "a program's log in no form the advisor reads (no HCCL, NCCL, torch, "
                "launcher or store line it knows)"
            )
        return [
            *report.unread,
            ParseWarning(
                line=text.count("\n", 0, banner.start()) + 1 if banner else 0,
                message=f"{what}: {said}" + ("" if installer else ", nothing more is read from it"),
                skipped=False,
            ),
        ]
    return list(report.unread)


_BBOX_DEVICE_DIR_RE = re.compile(r"/device-(\d{1,4})/(?:[^/]{1,200}/)?history\.log$")
_TORCHRUN_BANNER_RE = re.compile(r"Setting OMP_NUM_THREADS environment variable for each process")


def _asys_status(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """``asys info -r=status``: each device's health and figures, as a chip of the chip table."""
    notes: list[ParseWarning] = []
    for st in asys.parse_status(text):
        health = st.values.get("health") or st.values.get("Health")
        if health is None:
            notes.append(ParseWarning(line=st.line, message=f"device {st.device}: no health row"))
        used, total = st.number("HBM Used (MB)"), st.number("HBM Total (MB)")
        # (a device with DDR, a 310P's, prints DDR rows instead: oam-tools asys_info.py)
        ddr_used, ddr_total = st.number("DDR Used (MB)"), st.number("DDR Total (MB)")
        chip = npu_smi.NpuChip(
            npu=st.device,
            chip=0,
            name=st.values.get("Chip Name", ""),
            health=health or "",
            bus_id="",
            line=st.line,
            device=st.device,
            power_w=st.number("Power (W)"),
            temp_c=st.number("Temperature (C)"),
            aicore_pct=st.number("AI Core Usage (%)"),
            hbm_used_mb=round(used) if used is not None else None,
            hbm_total_mb=round(total) if total is not None else None,
            memory_used_mb=round(ddr_used) if ddr_used is not None else None,
            memory_total_mb=round(ddr_total) if ddr_total is not None else None,
        )
        out.npu_chips.append(
            {
                "source": source,
                "version": "",
                **asdict(chip),
                "hbm_used_pct": round(100 * used / total, 1)
                if used is not None and total
                else None,
                "processes": [],
                "error_codes": [],
                "error_info": [],
                "query": "asys info -r=status",
            }
        )
    return notes


def _asys(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """One ``asys_check`` failure per check with a Fail or Warn on some device; a note for the
    checks every device passed."""
    checks, notes = asys.parse(text)
    for check in checks:
        title = (
            f"{check.name} ({check.section})"
            if check.section and check.section != "health"
            else check.name
        )
        # HBM Detect's figures are the ECC errors the check newly found, per device (asys's
        # comprehensive-detection documentation), under a Pass too
        figures = (
            f"; {'new ECC errors' if 'HBM' in check.name else 'error codes' if check.section == 'health' else 'figures'} "
            f"{check.figures}"
            if check.figures
            else ""
        )
        bad = [(at, r) for at, r in enumerate(check.results) if r != "Pass"]
        if not bad:
            whom = "every device" if check.all_passed or check.devices is None else (
                f"device {check.devices[0]}"
            )  # fmt: skip
            notes.append(
                ParseWarning(
                    line=check.line,
                    message=f"asys diagnose: {title}: Pass on {whom}{figures}",
                    skipped=False,
                )
            )
            continue
        # (a health word asys prints other than Healthy or Warning: read as a warning)
        worst = "Fail" if any(r == "Fail" for _, r in bad) else "Warn"
        if check.devices is not None:
            where = f"device {check.devices[0]}: {bad[0][1]}"
        elif len(set(check.results)) == 1 and len(check.results) == check.group_size:
            where = f"{check.results[0]} on every device ({check.group_size})"
        elif check.group_size is not None and len(check.results) != check.group_size:
            where = (
                ", ".join(f"{check.results.count(r)} {r}" for r in ("Fail", "Warn", "Pass"))
                + f" among {len(check.results)} result(s) for {check.group_size} device(s) "
                "(which device each is for is unknown)"
            )
        else:
            size = check.group_size or len(check.results)
            listed = "; ".join(
                f"{r} on device(s) " + ", ".join(str(at) for at, res in bad if res == r)
                for r in ("Fail", "Warn")
                if any(res == r for _, res in bad)
            )
            where = f"{listed} (of {size}, numbered from 0 in asys's order)"
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="asys_check",
                line=check.line,
                message=f"{check.command + ': ' if check.command else ''}{title}: "
                f"{', '.join(check.results)}"[:300],
                code=worst,
                device=check.devices[0] if check.devices else None,
                library="CANN asys",
                exception_type=f"{title}: {where}{figures}"[:200],
            ),
        )
    return notes


def _dmi(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """One ``dmi_check`` failure per ``ascend-dmi --dg`` item in a warning or failed state; a
    note per run for the items that passed, one for each skipped (not supported there) or
    hinting item."""
    diagnosis, notes = ascend_dmi.parse(text)
    fine: dict[tuple[str, str], list[ascend_dmi.Item]] = {}
    for item in diagnosis.items:
        result, words = ascend_dmi.meaning(item.name, item.state)
        said = f": {'; '.join(item.details)}" if item.details else ""
        when = f" at {item.time}" if item.time else ""
        if result == "Pass":
            fine.setdefault((item.command, item.time), []).append(item)
            continue
        if result is None:  # SKIP: not supported on this product or scene; INFO: a hint
            notes.append(
                ParseWarning(
                    line=item.line,
                    message=f"ascend-dmi --dg{when}: {item.name} {item.state} ({words}){said}"[
                        :300
                    ],
                    skipped=False,
                )
            )
            continue
        if item.checks:
            # a failed item's JSON: each check it lists (its item_info line) on its own line
            _dmi_checks(item, result, words, source, out)
            continue
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="dmi_check",
                line=item.line,
                message=f"{item.command or 'ascend-dmi --dg'}: {item.name}: {item.state}{said}"[
                    :300
                ],
                code=result,
                library="Ascend DMI",
                exception_type=f"{item.section + ' ' if item.section else ''}{item.name}: "
                f"{item.state}{' (' + words + ')' if words else ''}{when}{said}"[:200],
            ),
        )
    for (_, time), items in fine.items():
        notes.append(
            ParseWarning(
                line=items[0].line,
                message=f"ascend-dmi --dg{' at ' + time if time else ''}: "
                + ", ".join(f"{i.name} {i.state}" for i in items)
                + " (the whole node's result: no device named)",
                skipped=False,
            )
        )
    return notes


def _dmi_flops(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """ascend-dmi -f: an ``npu_compute_low`` failure per device far under its run's median
    (ascend_dmi.lagging_rows), a note per other device's row (the figures it measured, no
    health in them alone); a run that could not load its library, an ``ascend_tool_failure``,
    or a note where a later run of the file measured (the shell's environment was set between:
    the device was not at fault)."""
    runs = ascend_dmi.parse_flops(text)
    notes: list[ParseWarning] = []
    for at, run in enumerate(runs):
        # (one run, one test on every device: a device far under its peers' figure computes
        # slower, as the toolbox's own computing-power diagnosis, --dg -i aiflops, fails a device
        # under its reference value, toolboxug_0154)
        median, lagging = ascend_dmi.lagging_rows(run.rows)
        for row in lagging:
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="npu_compute_low",
                    line=row.line,
                    message=f"ascend-dmi -f, device {row.device}: {row.flops:g} {row.unit} at "
                    f"{row.power_w:g} W in {row.duration_ms:g} ms",
                    device=row.device,
                    library="Ascend DMI",
                    exception_type=f"device {row.device}: {row.flops:g} {row.unit}, "
                    f"{row.flops / median:.0%} of the run's median {median:g} over its "
                    f"{len(run.rows)} devices ({row.duration_ms:g} ms for the same "
                    f"{row.execute_times} executions)",
                ),
            )
        for row in run.rows:
            if row in lagging:
                continue
            notes.append(
                ParseWarning(
                    line=row.line,
                    message=f"ascend-dmi -f, device {row.device}: {row.flops} {row.unit} at "
                    f"{row.power_w} W ({row.execute_times} execute times in "
                    f"{row.duration_ms:g} ms): "
                    + (
                        f"{row.flops / median:.0%} of the run's median {median:g}, in line with "
                        "its peers"
                        if median
                        else "figures with no health in them, not judged"
                    ),
                    skipped=False,
                )
            )
        if run.load_failed is None:
            continue
        line, library, said = run.load_failed
        why = f"ascend-dmi {run.option} could not load {library}" + _DMI_LOAD_CAUSES.get(
            library, ""
        )
        flops = run.option in ascend_dmi.FLOPS_OPTIONS
        # (a later computing-power test that measured says the test's own library loaded then;
        # of another command's library it says nothing)
        later = next((r for r in runs[at + 1 :] if r.rows), None) if flops else None
        if later is None:
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="ascend_tool_failure",
                    line=line,
                    message=said[:300],
                    library="Ascend DMI",
                    exception_type=f"{why}: the {'test' if flops else 'command'} did not run"[:300],
                ),
            )
            continue
        env = f" after source {run.set_env[1]} (line {run.set_env[0]})" if run.set_env else ""
        notes.append(
            ParseWarning(
                line=line,
                message=f"{said} (line {line}): {why}; run again{env}, it measured (line "
                f"{later.rows[0].line}): no fault of the device read",
                skipped=False,
            )
        )
    return notes


_DMI_DEVICE_RE = re.compile(r"\bdevice (\d+)\b")
_DMI_LOAD_CAUSES = {
    # MindCluster ToolBox FAQ toolboxug_0097 (www.hiascend.com/doc_center/source/zh/mindx-dl/600/
    # toolbox/ascenddmi/toolboxug_0097.html): "Failed to load the libascendcl.so dynamic
    # library" when the CANN package is not installed or its environment variables are not set;
    # sourcing set_env.sh let the same test run
    "libascendcl.so": " (the toolbox FAQ's causes: the CANN package not installed, or its "
    "environment variables not set)",
    # toolboxug_0098 (www.hiascend.com/document/detail/en/mindcluster/730/toolbox/toolboxug/
    # toolboxug_0098.html), its example ascend-dmi -c: the driver installed wrong, its
    # environment variable wrong (LD_LIBRARY_PATH without the driver's), or a driver version that
    # is not a commercial one (libdcmi.so missing, or its permission wrong)
    "libdcmi.so": " (the toolbox FAQ's causes: the driver installed wrong, its environment "
    "variable wrong (LD_LIBRARY_PATH without the driver's libraries), or a driver that is not a "
    "commercial version: libdcmi.so missing or its permission wrong)",
}
"""What MindCluster's ToolBox FAQ says keeps ascend-dmi from loading each library."""


def _dmi_checks(
    item: ascend_dmi.Item, result: str, words: str, source: str, out: EvidenceFacts
) -> None:
    """One ``dmi_check`` failure per check a failed item's JSON lists (``item_info``: "d2d
    bandwidth diagnosis failed on device 0 with bandwidth 751.0634765625 / 4999"), its device
    the first the line names."""
    where = (
        " ".join(part for part in (item.section, item.name) if part)
        if item.name
        else f"{item.section or 'its'} group"
    )
    if item.cut:
        # (the copy ends before the item's own name or result: its group's result stands)
        cut = "item's result" if item.name else "item's name and result"
        where += f": {item.state} (the group's result; the copy is cut before the {cut})"
    else:
        where += f": {item.state}"
    for line, said in item.checks:
        device = _DMI_DEVICE_RE.search(said)
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="dmi_check",
                line=line,
                message=f"{item.command or 'ascend-dmi --dg'}: {said}"[:300],
                code=result,
                device=int(device.group(1)) if device else None,
                library="Ascend DMI",
                exception_type=f"{where}{' (' + words + ')' if words else ''}: {said}"[:300],
            ),
        )


def _reschedule(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """One ``reschedule`` failure per task that made MindCluster reschedule a job, its node the
    host."""
    records, notes = reschedule.parse(text)
    for r in records:
        why = f" ({r.meaning})" if r.meaning else ""
        rank = f", node rank index {r.node_rank}" if r.node_rank else ""
        times = f"; {r.total} reschedule(s) of the job in all" if r.total is not None else ""
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="reschedule",
                line=r.line,
                message=f"MindCluster rescheduled job {r.job}"
                f"{' at ' + r.when if r.when else ''}: {r.reason}{why}: pod {r.pod or '?'}"
                f" on node {r.node or '?'}{rank}{times}"[:300],
                code=r.reason or None,
                host=r.node or None,
                library="MindCluster",
                exception_type=f"{r.reason or 'rescheduled'}{why}: pod {r.pod or '?'} "
                f"on {r.node or '?'}{rank}"[:200],
            ),
        )
    return notes


def _deviceinfo(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """MindCluster's DeviceInfoCfg records (the device plugin's, or ClusterD's of every node) and
    the device plugin's fault events: an ``npu_scheduler_fault`` per fault it handles (its
    handling the code name), a note of each node's chips."""
    parsed = deviceinfo.parse(text)
    notes = []
    for n in parsed.nodes:
        said = [] if n.scheduler else [f"{len(n.available)} chip(s) available"]
        for what, names in (
            ("unhealthy", n.unhealthy),
            ("with an unhealthy network", n.network_unhealthy),
            ("being recovered", n.recovering),
        ):
            if names:
                said.append(f"{what}: {', '.join(names)}")
        notes.append(
            ParseWarning(
                line=n.line,
                message=("Volcano's fault-node record" if n.scheduler else "MindCluster DeviceInfo")
                + f"{f' of node {n.node}' if n.node else ''}: "
                + ("; ".join(said) or "no chip named"),
                skipped=False,
            )
        )
    recorded = {(f.node, f.npu) for f in parsed.faults}
    faults = list(parsed.faults)
    for n in parsed.nodes:
        # a chip listed unhealthy with no fault record of its own is still one the plugin took
        # out of service
        faults.extend(
            deviceinfo.NpuFault(
                line=n.line,
                node=n.node,
                npu=npu,
                fault_type="listed Unhealthy (no fault record of its own)",
                handling="",
                codes=[],
            )
            for npu in n.unhealthy
            if (n.node, npu) not in recorded
        )
    for f in faults:
        listed = f.fault_type.startswith("listed Unhealthy")
        if not f.raised or f.handling == "NotHandleFault" or (not f.handling and not listed):
            continue  # (a fault cleared, or one MindCluster leaves alone: in the note)
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="npu_scheduler_fault",
                line=f.line,
                message=f"{f.fault_type} {f.npu or 'the node'}"
                + (f" on {f.node}" if f.node else "")
                + (f", fault code(s) {', '.join(f.codes)}" if f.codes else "")
                + (f", handling {f.handling}" if f.handling else ""),
                code=",".join(f.codes) or None,
                code_name=f.handling or None,
                host=f.node or None,
                library="MindCluster",
                exception_type=f.fault_type,
                # (a chip the plugin lists unhealthy is out of the scheduler's pool)
                root_cause=listed or f.handling in deviceinfo.HANDLING_CRITICAL,
            ),
        )
    return notes


def _msnpureport_devices(
    text: str, source: str, out: EvidenceFacts, name: str
) -> list[ParseWarning]:
    """msnpureport's ``hisi_logs/device_info.txt``: an ``npu_device_state`` for each device whose
    OS does not run (boot failed, heartbeat lost), whose state was not read, or that the counts
    say is offline without a row of it; notes of the rest."""
    notes: list[ParseWarning] = []
    lines = text.splitlines()
    for info in msnpureport.parse(text):
        notes.extend(msnpureport.notes_of(info))
        states: list[tuple[int, str, int | None, str]] = []  # (line, state, device, words)
        for r in info.rows:
            if why := msnpureport.trouble_of(r):
                states.append((r.line, r.status, r.logic_id, f"{msnpureport.row_said(r)}: {why}"))
        counts = info.counts
        failed_rows = sum(1 for r in info.rows if r.status == "boot failed")
        if counts.get("offline", 0) > failed_rows:
            # (offline rows the copy does not hold: the count alone says so)
            missing = counts["offline"] - failed_rows
            states.append(
                (
                    info.count_lines["offline"],
                    "offline",
                    None,
                    f"offline num {counts['offline']}: {missing} device(s) offline "
                    "(their OS not running) whose rows are not in the copy",
                )
            )
        if counts.get("probe") == 0 and not counts.get("device"):
            states.append(
                (
                    info.count_lines["probe"],
                    "none",
                    None,
                    "probe num 0: the driver found no device on this host",
                )
            )
        for line, state, device, words in states:
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="npu_device_state",
                    line=line,
                    message=lines[line - 1].strip()[:300],
                    code=state,
                    device=device,
                    library="msnpureport",
                    exception_type=words[:300],
                ),
            )
    return notes


def _nic_legend(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """``nvidia-smi topo -m``'s NIC legend without its matrix: a note of the names (no link is
    known without the matrix); entries a copy garbled, each said."""
    legends, garbled = nvidia_smi.parse_nic_legend(text)
    starts = [at for at, _ in legends]
    # each garbled entry is its legend's: the one begun last before it
    owners = [max(0, bisect.bisect_right(starts, no) - 1) for no, _ in garbled]
    notes = []
    for i, (at, names) in enumerate(legends):
        bonded = [n for n in names.values() if "bond" in n]
        unread = owners.count(i)
        notes.append(
            ParseWarning(
                line=at if len(legends) > 1 else 0,
                message="nvidia-smi topo -m's NIC legend without its matrix"
                + (f" (one of {len(legends)} in the file)" if len(legends) > 1 else "")
                + f": {len(names) + unread} NIC(s), named: "
                + ", ".join(f"{nic} {dev}" for nic, dev in list(names.items())[:12])
                + (f" and {len(names) - 12} more" if len(names) > 12 else "")
                + (f" ({len(bonded)} bonded device(s))" if bonded else "")
                + "; no GPU-to-NIC link is known without the matrix",
                skipped=False,
            )
        )
    notes += [
        ParseWarning(
            line=no,
            message=f"{nic}'s name is not readable (the copy ran other text into it)",
        )
        for no, nic in garbled
    ]
    return notes


# dcgm-exporter's fields as the readers of nvidia-smi and dcgmi name the same NVML/DCGM values
# (DCGM's dcgm_fields.h; dcgm-exporter's etc/default-counters.csv gives their help text: "Total
# number of double-bit volatile ECC errors", "Number of remapped rows for uncorrectable errors",
# "Whether remapping of rows has failed", "Value of the last XID error encountered", "Total
# number of NVLink recovery errors" ...)
_EXPORTER_NVLINK_COUNTERS = {
    "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL": "CRC Flit Errors",
    "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL": "CRC Data Errors",
    "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL": "Replay Errors",
    "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL": "Recovery Errors",
}
_EXPORTER_THROTTLE_FIELDS = (
    "DCGM_FI_DEV_CLOCKS_EVENT_REASONS",
    "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS",
)


def _exporter_int(gpu: dcgm.ExporterGpu, field_name: str) -> int | None:
    value = gpu.values.get(field_name)
    return None if value is None else int(value)


# a line a pdsh copy holds without a host's prefix that is no host's output: the shell's prompt
# line before the command ("$ pdsh ...", "[root@head ~]# pdsh ..."), a scrape's "# HELP" /
# "# TYPE" comments
_PDSH_ASIDE_RE = re.compile(r"^[ \t]*(?:[$#]|\[[^\]\n]{1,80}\][$#] )")


def _exporter_gpus(text: str) -> list[dcgm.ExporterGpu]:
    """dcgm-exporter's GPUs; where no metric line reads bare, a pdsh copy read per host
    (``pdsh_by_host``), each GPU under its Hostname label or else the host pdsh named."""
    try:
        return dcgm.parse_exporter(text)
    except ParseError:
        parts = pdsh_by_host(text, _PDSH_ASIDE_RE)
        if parts[0][0] is None:
            raise
    gpus: list[dcgm.ExporterGpu] = []
    for host, part in parts:
        try:
            read = dcgm.parse_exporter(part)
        except ParseError:
            continue  # (a host whose lines hold no metric: the others are read)
        for gpu in read:
            gpu.host = gpu.host or host or ""
        gpus.extend(read)
    if not gpus:
        raise ParseError("no dcgm-exporter metric line (DCGM_FI_...{gpu=...} value)")
    return gpus


def _dcgm_exporter(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """dcgm-exporter's Prometheus metrics: each GPU's ECC, remapped rows and clock reasons as an
    nvidia-smi -q record (judged by the same rules), its NVLink error counters as dcgmi nvlink
    -e's, a last Xid that is not 0 as dcgmi dmon's XIDER; every field read said in a note."""
    notes: list[ParseWarning] = []
    for exp in _exporter_gpus(text):
        record = nvidia_smi.SmiGpu(
            gpu=exp.gpu, name=exp.model, line=exp.line, bus_id=exp.bus_id, query="q"
        )
        record.uuid = exp.uuid
        record.ecc_uncorrected = _exporter_int(exp, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL")
        record.ecc_corrected = _exporter_int(exp, "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL")
        record.ecc_aggregate_uncorrected = _exporter_int(exp, "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL")
        record.ecc_aggregate_corrected = _exporter_int(exp, "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL")
        record.remapped_uncorrectable = _exporter_int(
            exp, "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS"
        )
        record.remapped_correctable = _exporter_int(exp, "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS")
        if (failed := _exporter_int(exp, "DCGM_FI_DEV_ROW_REMAP_FAILURE")) is not None:
            record.remap_failed = failed != 0
        if (pending := _exporter_int(exp, "DCGM_FI_DEV_RETIRED_PENDING")) is not None:
            record.retire_pending = pending != 0
        if (temp := _exporter_int(exp, "DCGM_FI_DEV_GPU_TEMP")) is not None:
            record.temp_c = temp
        for field_name in _EXPORTER_THROTTLE_FIELDS:
            # the NVML clock reason mask as a number (nvidia_smi.THROTTLE_BITS): the slowing
            # reasons judged as the -q page's Active rows are
            if (mask := _exporter_int(exp, field_name)) is not None:
                active = nvidia_smi.throttle_mask_names(hex(mask)) or []
                record.clock_reasons["active"] = active
                record.throttled = [r for r in active if r in nvidia_smi.SLOWING_REASONS]
                break
        gpu_entry = _smi_gpu(record, source, "", "")
        gpu_entry["host"] = exp.host
        out.gpus.append(gpu_entry)
        errors = {
            label: int(exp.values[f])
            for f, label in _EXPORTER_NVLINK_COUNTERS.items()
            if f in exp.values
        }
        if errors:
            out.nvlinks.append(
                {
                    "source": source,
                    "line": min(exp.lines[f] for f in _EXPORTER_NVLINK_COUNTERS if f in exp.lines),
                    "gpu": exp.gpu,
                    "name": exp.model,
                    "links": {},
                    "inactive": [],
                    "active": None,
                    "none_up": False,
                    "fewer_than_peers": False,
                    "alone": False,
                    "cut": False,
                    # (the exporter sums a GPU's links: one entry for them all)
                    "errors": {"all": errors},
                    "remote": {},
                    "error_total": sum(v for k, v in errors.items() if _ERROR_COUNTER_RE.search(k)),
                    "replay_total": _replay_total({0: errors}),
                }
            )
        on = f"{exp.host}: " if exp.host else ""
        if (xid := _exporter_int(exp, "DCGM_FI_DEV_XID_ERRORS")) is not None and xid > 0:
            # the last Xid the GPU raised (the same DCGM field as dmon's XIDER)
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="gpu_driver_fault" if xid in logs.XID_RESET else "gpu_driver_error",
                    line=exp.lines["DCGM_FI_DEV_XID_ERRORS"],
                    message=f"dcgm-exporter, {on}GPU {exp.gpu}: DCGM_FI_DEV_XID_ERRORS {xid}",
                    device=exp.gpu,
                    code=str(xid),
                    code_name=logs.XID_MEANINGS.get(xid),
                    library="DCGM",
                    exception_type=f"Xid {xid} on {on}GPU {exp.gpu}: the last Xid DCGM saw on it",
                ),
            )
        said = ", ".join(
            f"{f.removeprefix('DCGM_FI_DEV_').removeprefix('DCGM_FI_')} {v:g}"
            for f, v in exp.values.items()
        )
        notes.append(
            ParseWarning(
                line=exp.line,
                message=f"dcgm-exporter, {on}GPU {exp.gpu}"
                + (f" ({exp.model}, {exp.bus_id})" if exp.model else "")
                + f": {said}",
                skipped=False,
            )
        )
    if exp_hosts := [
        h for h in dict.fromkeys(g.get("host", "") for g in out.gpus if g["source"] == source) if h
    ]:
        named = {h["host"] for h in out.log_hosts if h["source"] == source}
        out.log_hosts.extend({"source": source, "host": h} for h in exp_hosts if h not in named)
    return notes


def _dcgmi_policy(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """``dcgmi policy --get``'s boxes and ``dcgmi test --inject``'s synthetic values: notes of
    what DCGM is set to do, no GPU's fault (dcgm.policy_notes)."""
    return dcgm.policy_notes(text)


def _mig_pending(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """``nvidia-smi -i N -mig 1``'s warning that the change waits for a reset or reboot, in a
    file without the status table (the table's reader says it there): the GPU and what it
    needs said (nvidia_smi.mig_pending_notes)."""
    if nvidia_smi.SMI_BANNER_RE.search(text):
        return []  # (the table's reader says it, with the mode the table reads)
    if notes := nvidia_smi.mig_pending_notes(text, numbered_lines(text)):
        return notes
    # (a pdsh copy, "gpu01: Warning: MIG mode ...": each host's warnings read on its own and
    # said with its host; only where none reads bare, as "Warning: " itself is a "word: ")
    for host, part in pdsh_by_host(text, _PDSH_ASIDE_RE):
        notes.extend(
            replace(note, message=f"{host}: {note.message}") if host else note
            for note in nvidia_smi.mig_pending_notes(part, numbered_lines(part))
        )
    return notes


def _npu_exporter(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """MindCluster npu-exporter's Prometheus metrics: each chip's port link and network health."""
    ports, notes = hccn_tool.parse_exporter(text)
    out.npu_ports.extend({"source": source, **asdict(port)} for port in ports)
    if (count := hccn_tool.MACHINE_NPU_NUMS_RE.search(text)) and count.group("n") == "0":
        # the exporter found no NPU on its machine (its DCMI sees none: no driver, or a
        # container given no device)
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="npu_not_seen",
                line=text.count("\n", 0, count.start()) + 1,
                message=count.group(0).strip(),
                library="npu-exporter",
                exception_type="npu-exporter counts 0 NPUs on its machine",
            ),
        )
    return notes


def _npu_tls_cert(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """npu-smi's certificate query: each device's certificate and its alarm."""
    out.npu_ports.extend({"source": source, **asdict(p)} for p in hccn_tool.parse_tls_cert(text))
    return []


def _ascend_notes(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """Ascend answers with nothing to judge (hccn_tool -g -process, -show_list, msnpureport
    config): a note of each."""
    return ascend_notes.parse(text)


def _ascend_versions(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """Ascend packages' version.info: what is installed, a note each (the driver/firmware
    check runs over the whole import, ``load_paths``)."""
    notes: list[ParseWarning] = []
    for p in ascend_versions.parse(text):
        out.packages.append({"source": source, **asdict(p)})
        ranges = p.compatible_fw or p.compatible_drv
        accepts = "firmware" if p.compatible_fw else "driver"
        notes.append(
            ParseWarning(
                line=p.line,
                message=(
                    f"Ascend {p.package} package: version {p.version or 'not shown'}"
                    if p.package not in ("torch", "torch_npu")
                    else f"pip: {p.package.replace('_', '-')} {p.version}"
                )
                + (f" ({p.inner_version})" if p.inner_version else "")
                + (f", CANN release {p.release}" if p.release else "")
                + (
                    ", latest links to " + ", ".join(f"../{r}" for r in p.links_to)
                    if p.links_to
                    else ""
                )
                + (
                    f", works with {accepts} " + ", ".join(f"{lo} to {hi}" for lo, hi in ranges)
                    if ranges
                    else ""
                )
                + (
                    ", "
                    + ", ".join(
                        f"{k.removesuffix('_running_version')} {v}" for k, v in p.running.items()
                    )
                    if p.running
                    else ""
                ),
                skipped=False,
            )
        )
    return notes


COUNTERS_SAID = 12
"""How many of a counter block's non-zero loss counters its note names."""


def _losses_said(counters: int, losses: dict[str, int], kind: str, none_said: str) -> str:
    """A counter block's note: how many counters, and the ``kind`` counters not 0 (they only
    grow from the driver's start: what was lost since then, not when)."""
    if not losses:
        return f"{counters} counter(s); {none_said}"
    shown = ", ".join(f"{k} {v}" for k, v in list(losses.items())[:COUNTERS_SAID])
    more = " ..." if len(losses) > COUNTERS_SAID else ""
    return f"{counters} counter(s); {kind} counters not 0 (since the driver started): {shown}{more}"


RX_DISCARD_SHARE = 0.001
"""The share of a port's received packets its NIC discarded for want of buffers above which an
``nic_rx_discards`` is said (a congested adapter drops a few in bursts; a tenth of a percent is
steady loss, each drop a retransmission or, for RoCE, a go-back)."""


RX_DISCARD_MIN = 10_000
"""Fewer discards than this, whatever their share, are a port's start-up or a burst's, too few
to say the port is congested (the counters run from the driver's start)."""


def _nic_where(b: ethtool.NicStats) -> str:
    """The host (a pdsh copy's) and interface a block's finding names, each with ": " after it;
    empty where the copy names neither."""
    return "".join(f"{x}: " for x in (b.host, b.iface) if x)


def _nic_counters_warned(
    b: ethtool.NicStats, said: list[tuple[str, int, str]], source: str, out: EvidenceFacts
) -> None:
    """A ``nic_counters_warn`` per counter of ``said`` (``ethtool.congestion_said``)."""
    for counter, value, what in said:
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="nic_counters_warn",
                line=b.counter_lines.get(counter, b.line),
                message=f"{counter} {value}"
                + (
                    f" (tx_global_pause_duration {b.counters['tx_global_pause_duration']})"
                    if counter.startswith("tx_")
                    and "pause" in counter
                    and "storm" not in counter
                    and b.counters.get("tx_global_pause_duration")
                    else ""
                ),
                library="ethtool",
                exception_type=_nic_where(b) + what,
            ),
        )


def _out_of_buffer_warned(
    b: ethtool.NicStats, received: int | None, source: str, out: EvidenceFacts
) -> None:
    """An ``nic_rx_out_of_buffer`` for a block whose ``rx_out_of_buffer`` is not 0: where the
    copy holds no count of the packets received (a grep of the counter) any drop is said, there
    being nothing to weigh it against; where it holds one, past ``RX_DISCARD_MIN`` and
    ``RX_DISCARD_SHARE`` of them, as rx_discards_phy is judged."""
    # mlx5e's rx_out_of_buffer (Linux 593cf338, "net/mlx5e: Allocate set of queue counters per
    # netdev": "indicates RX packet drops due to lack of receive buffers"): packets the NIC
    # dropped because the host had posted no buffer on the receive queue, the host not
    # draining its rings as fast as packets came
    dropped = b.counters.get("rx_out_of_buffer")
    if not dropped:
        return
    if received and (dropped < RX_DISCARD_MIN or dropped / received < RX_DISCARD_SHARE):
        return
    _add_failure(
        out,
        source,
        logs.LogEvent(
            kind="nic_rx_out_of_buffer",
            line=b.counter_lines.get("rx_out_of_buffer", b.line),
            message=f"rx_out_of_buffer {dropped}"
            + (f" of rx_packets {received}" if received else ""),
            library="ethtool",
            exception_type=_nic_where(b)
            + f"{dropped} received packet(s) dropped since the driver started because the "
            "receive queue had no buffer posted (the host did not refill its rings as fast as "
            "packets came)"
            + (
                f", {100 * dropped / received:.2g} % of those received"
                if received
                else " (the copy holds no count of the packets received to weigh them against)"
            ),
        ),
    )


def _ethtool(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """ethtool -S: a note of each block's counters and the loss counters that are not 0; a port
    that discarded a share of what it received for want of buffers is an ``nic_rx_discards``."""
    blocks = ethtool.parse(text)
    for b in blocks:
        if (phy := ethtool.phy_errors_said(b)) is not None:
            counter, value, lanes = phy
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="nic_phy_errors",
                    line=b.counter_lines.get(counter, b.line),
                    message=f"{counter} {value}"
                    + (
                        f" of rx_packets_phy {b.counters['rx_packets_phy']}"
                        if b.counters.get("rx_packets_phy")
                        else ""
                    ),
                    library="ethtool",
                    exception_type=_nic_where(b)
                    + "the port dropped received frames with physical-layer (FCS or symbol) "
                    "errors since its driver started: the link corrupts what it carries"
                    + (
                        f"; raw errors on lane(s) {', '.join(k[12:-4] for k in lanes)} of the "
                        f"port ({', '.join(f'{k} {b.counters[k]}' for k in lanes)})"
                        if lanes
                        else ""
                    ),
                ),
            )
        # mlx5's rx_discards_phy: packets received and dropped for lack of buffers on the physical
        # port, the adapter congested and unable to absorb the traffic (the kernel's mlx5e
        # commit 827a8cb2, "Add discard counters per priority"), against rx_packets_phy
        received = b.counters.get("rx_packets_phy") or b.counters.get("rx_packets")
        dropped = b.counters.get("rx_discards_phy")
        said = ethtool.congestion_said(b)
        if (
            not received
            or not dropped
            or dropped < RX_DISCARD_MIN
            or dropped / received < RX_DISCARD_SHARE
        ):
            _nic_counters_warned(b, said, source, out)
            _out_of_buffer_warned(b, received, source, out)
            continue
        # (the discards' event says the pause frames sent: the others are said on their own)
        _nic_counters_warned(b, [s for s in said if s[0] != "tx_pause_ctrl_phy"], source, out)
        pauses = b.counters.get("tx_pause_ctrl_phy")
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="nic_rx_discards",
                line=b.line,
                message=f"rx_discards_phy {dropped} of rx_packets_phy {received}",
                library="ethtool",
                exception_type=_nic_where(b)
                + f"the port discarded {100 * dropped / received:.1f} % of the "
                "packets it received since its driver started, for want of buffers (the adapter "
                "congested: it could not take them in as fast as they came)"
                + (
                    f"; rx_out_of_buffer {b.counters['rx_out_of_buffer']} (its receive queues "
                    "had no buffer posted)"
                    if b.counters.get("rx_out_of_buffer")
                    else ""
                )
                + (f"; it sent {pauses} pause frames (tx_pause_ctrl_phy)" if pauses else ""),
            ),
        )
    return [
        ParseWarning(
            line=b.line,
            message="ethtool -S: "
            + (f"{b.host}: " if b.host else "")
            + _losses_said(
                len(b.counters),
                b.losses,
                "loss",
                "every loss counter (errors, drops, discards) is 0",
            )
            + _pauses_not_judged(b),
            skipped=False,
        )
        for b in blocks
    ]


def _pauses_not_judged(b: ethtool.NicStats) -> str:
    """A block's pause frames sent that ``ethtool.congestion_said`` leaves out, as its note says
    them (flow control at work: few, or few against the packets received); empty otherwise."""
    most = ethtool.pauses_sent(b)
    if most is None or any(counter == most[0] for counter, _, _ in ethtool.congestion_said(b)):
        return ""
    received = ethtool.received_packets(b)
    return f"; {most[0]} {most[1]}: pause frames sent since the driver started" + (
        f", {most[1] / received:.2g} a packet received: flow control at work (PFC on a lossless "
        "fabric pauses its peer by design), not judged"
        if received
        else ": a burst's, not judged"
    )


def _ethtool_driver(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """ethtool -i: a note per port of its driver, firmware and bus (nothing in it is judged)."""
    return [
        ParseWarning(
            line=d.line,
            message=f"ethtool -i{f' {d.iface}' if d.iface else ''}: "
            + ", ".join(
                f"{label} {value}"
                for label, value in (
                    ("driver", d.driver),
                    ("version", d.version),
                    ("firmware", d.firmware),
                    ("bus", d.bus),
                )
                if value
            ),
            skipped=False,
        )
        for d in ethtool.parse_driver(text)
    ]


def _rdma_hw_counters(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """An RDMA port's hardware counters (show_counters, iproute2's rdma statistic): a note of the
    error and drop counters that are not 0; under ``rdma statistic`` those are an
    ``rdma_counter_errors`` warning as well (show_counters' blocks stay notes, as before)."""
    notes = []
    for b in ethtool.parse_hw_counters(text):
        where = f"{b.device or 'a device the copy does not name'} port {b.port}"
        # (its traffic and congestion counters, rx_write_requests, np_cnp_sent ...: what the
        # port carried, no fault)
        counted = ", ".join(
            f"{k} {v}"
            for k, v in list((k, v) for k, v in b.counters.items() if v and k not in b.losses)[
                :COUNTERS_SAID
            ]
        )
        notes.append(
            ParseWarning(
                line=b.line,
                message=f"RDMA hw counters of {where}"
                + (" (rdma statistic)" if b.tool == "rdma statistic" else "")
                + ": "
                + _losses_said(
                    len(b.counters), b.losses, "error and drop", "every error and drop counter is 0"
                )
                + (
                    f"; other counters not 0: {counted}"
                    if b.tool == "rdma statistic" and counted
                    else ""
                ),
                skipped=False,
            )
        )
        if b.tool == "rdma statistic" and b.losses:
            shown = ", ".join(f"{k} {v}" for k, v in list(b.losses.items())[:COUNTERS_SAID])
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="rdma_counter_errors",
                    line=b.line,
                    message=where,
                    library="rdma statistic",
                    exception_type=f"{len(b.losses)} error or drop counter(s) not 0: {shown}"
                    + (" ..." if len(b.losses) > COUNTERS_SAID else ""),
                ),
            )
    return notes


def _ethtool_settings(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """ethtool IFACE: a note per port of its link; a port with no link is a
    ``link_carrier_lost`` failure (the link is down as the copy was taken)."""
    notes: list[ParseWarning] = []
    blocks = ethtool.parse_settings(text)
    # (the hosts the shell prompts above the blocks name: "[root@node12 ~]# ethtool bond0")
    out.log_hosts.extend(
        {"source": source, "host": h} for h in dict.fromkeys(b.host for b in blocks if b.host)
    )
    for b in blocks:
        said = []
        if b.speed:
            said.append(f"speed {b.speed}" + (f" {b.duplex}" if b.duplex else ""))
        if (fastest := ethtool.fastest_mode_mbps(b.supported_modes)) is not None:
            said.append(
                f"fastest supported mode {fastest} Mb/s"
                + (" of those the copy lists (it is cut, the list may go on)" if b.cut else "")
            )
            if b.speed_mbps is not None and b.speed_mbps < fastest and b.link_detected:
                said.append("running below its fastest mode (the peer's or cable's limit?)")
        common = ethtool.best_common_mbps(b)
        if (
            common is not None
            and b.speed_mbps is not None
            and b.speed_mbps < common
            and b.link_detected is not False
        ):
            # both ends offer a faster mode than the one the link came up at: the cable (a pair
            # broken on a copper cable), a transceiver or a forced setting holds it down
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="link_speed_low",
                    host=b.host,
                    line=b.speed_line,
                    message=b.iface,
                    library="ethtool",
                    exception_type=f"{b.iface} runs at {b.speed} though it and its link partner "
                    f"both advertise {common} Mb/s",
                ),
            )
        if b.autoneg:
            said.append(f"auto-negotiation {b.autoneg}")
        if b.refused:
            said.append(
                "ethtool could not get "
                + "; ".join(b.refused[:3])
                + (
                    " (as a user without CAP_NET_ADMIN; the driver printed no speed either)"
                    if not b.speed
                    else " (as a user without CAP_NET_ADMIN)"
                )
            )
        if b.link_detected is False:
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="link_carrier_lost",
                    host=b.host,
                    line=b.link_line,
                    message=b.iface,
                    library="ethtool",
                    exception_type=f"{b.iface}: ethtool says Link detected: no"
                    + (f" (speed {b.speed})" if b.speed else ""),
                ),
            )
        notes.append(
            ParseWarning(
                line=b.line,
                message=f"ethtool {b.iface}"
                + (f" on {b.host}" if b.host else "")
                + ": "
                + (
                    "link detected"
                    if b.link_detected
                    else "no link detected"
                    if b.link_detected is False
                    else "the copy ends before its 'Link detected' line (link state unknown)"
                )
                + ("; " + "; ".join(said) if said else ""),
                skipped=b.cut,
            )
        )
    return notes


def _ping(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """iputils' ping between hosts: a note of each run (its packet size, don't-fragment, replies
    and loss); a run that got no reply, or whose don't-fragment packet a smaller MTU refused, is
    a ``host_ping_failed``; one that lost some requests beyond those that may have been in
    flight when it stopped is a ``host_ping_loss``."""
    notes: list[ParseWarning] = []
    for run in netif.parse_ping(text):
        df = (
            ", don't fragment (-M do)"
            if run.dont_fragment
            else ""
            if run.dont_fragment is None
            else ", fragments allowed"
        )
        who = f"{run.node}: " if run.node else ""  # (pdsh's node, where the copy names it)
        said = f"{who}ping {run.host} ({run.ip}): {run.payload_bytes}-byte payload in {run.packet_bytes}-byte packets{df}"
        if run.mtu is not None:
            said += f"; refused: the path's MTU is {run.mtu}, smaller than the packet"
        elif run.no_reply:
            said += "; no reply" + (" (destination unreachable)" if run.unreachable else "")
        else:
            got = (
                f"{run.received} of {run.sent} replied ({run.loss_pct:g}% loss)"
                if run.sent is not None
                else f"{run.replies} repl{'y' if run.replies == 1 else 'ies'} in the copy"
            )
            said += f"; {got}" + (
                f", {min(run.rtt_ms):g}-{max(run.rtt_ms):g} ms" if run.rtt_ms else ""
            )
            if run.dont_fragment and run.replies:
                said += f": the path carries {run.packet_bytes}-byte packets unfragmented"
            if run.stopped_early and 0 < run.lost <= run.pipe:
                # iputils counts a request still in flight when the run stops as lost
                said += (
                    f"; the {run.lost} unanswered request(s) may have been in flight when the run "
                    "stopped (^C, -w, or -f with no -c count), which ping counts lost: not a loss on the path"
                )
        notes.append(ParseWarning(line=run.line, message=said, skipped=False))
        failed = (
            f"a {run.packet_bytes}-byte packet with don't fragment was refused: the path's MTU "
            f"is {run.mtu}"
            if run.mtu is not None
            else "no reply"
            + (" (destination unreachable)" if run.unreachable else "")
            + (f" to {run.sent} packet(s)" if run.sent else "")
            if run.no_reply
            else None
        )
        kind, line = "host_ping_failed", run.mtu_line or run.line
        if (
            failed is None
            and run.sent is not None
            and run.lost > (run.pipe if run.stopped_early else 0)
        ):
            kind, line = "host_ping_loss", run.summary_line or run.line
            failed = (
                f"{run.lost} of {run.sent} request(s) got no reply ({run.loss_pct:g}% loss)"
                + (
                    f"; up to {run.pipe} of them may have been in flight when the run stopped"
                    if run.stopped_early
                    else ""
                )
            )
        if failed:
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind=kind,
                    line=line,
                    message=f"{who}ping {run.host} ({run.ip})",
                    ip=run.ip,
                    library="ping",
                    exception_type=failed,
                ),
            )
    return notes


def _ibping(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """infiniband-diags' ibping: a note of each run (the port it reached, pongs, loss, round
    trips); a run whose statistics count lost pongs is an ``ibping_loss`` warning, one that got
    none back an ``ibping_no_reply`` failure (rdma.IBPING_SIGNATURE: a lost pong prints nothing,
    only the statistics count it)."""
    notes: list[ParseWarning] = []
    for run in rdma.parse_ibping(text):
        dest = run.dest or "a port not named"
        said = (
            f"to {dest}"
            + (f" from {run.node}" if run.node else "")  # (pdsh's node the run went out from)
            + (f" ({run.host} answering)" if run.host else "")
        )
        if run.sent is not None and run.received is not None:
            said += (
                f": {run.received} of {run.sent} pong(s) received ({run.loss_pct}% loss, "
                f"statistics line {run.summary_line})"
            )
            if run.rtt_avg_ms is not None and run.received:
                said += (
                    f", rtt min/avg/max {run.rtt_min_ms:g}/{run.rtt_avg_ms:g}/{run.rtt_max_ms:g} ms"
                )
        else:
            said += f": {len(run.pong_lines)} pong(s) in the copy, its statistics not"
        if run.pong_lines:
            first, last = run.pong_lines[0], run.pong_lines[-1]
            said += f"; pongs at line{f's {first}-{last}' if last != first else f' {first}'}"
        if run.heading_dest and run.dest and run.heading_dest != run.dest:
            # (ibping.c prints one destination in both: a copy with two was edited or pieced)
            said += f"; the statistics heading names {run.heading_dest}"
        if run.in_flight:
            # (rdma.IbpingRun.lost: a ping in flight at ^C/SIGTERM is counted sent, neither
            # received nor lost, ibping.c's main loop and report())
            said += (
                "; stopped (^C or SIGTERM) with one ping in flight, counted sent but neither "
                "received nor lost"
                + (
                    ": interrupted before any pong came back, the path neither shown nor refuted"
                    if run.received == 0 and run.lost == 0
                    else ""
                )
            )
        notes.append(ParseWarning(line=run.summary_line or run.line, message=said, skipped=False))
        lost = run.lost
        if run.summary_line is None or not lost or lost < 0:
            continue
        where = f"ibping {dest}" + (f" from {run.node}" if run.node else "")
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="ibping_no_reply" if run.received == 0 else "ibping_loss",
                line=run.summary_line,
                message=where,
                library="ibping",
                host=run.node,
                exception_type=(
                    f"no pong back to {lost} ping(s)"
                    if run.received == 0
                    else f"{lost} of {run.sent} ping(s) lost ({run.loss_pct}% loss)"
                    + (
                        ", or in flight when ibping was stopped: its figure cannot tell"
                        if run.in_flight_unsure
                        else ""
                    )
                ),
            ),
        )
    return notes


def _module_temperature(m: ethtool.ModuleInfo) -> str:
    """A module's temperature in words, with its own thresholds where the copy shows them (the
    module's EEPROM sets them, SFF-8472 / SFF-8636 diagnostic monitoring): how far under its high
    warning and alarm thresholds, or past which."""
    temp_c = m.temperature_c
    assert temp_c is not None
    words = f"module temperature {temp_c:g} C (line {m.temperature_line})"
    limits = m.temperature_thresholds_c
    if "temperature" in (garbled := ethtool.garbled_thresholds(m)):
        # a high alarm at or under the low one (SFF-8472's high above low): nothing to compare
        return words + f" (its thresholds contradict themselves: {garbled['temperature']}: unread)"
    past = [
        f"{bound} {level} threshold {limits[f'{bound} {level}']:g} C"
        for level in ("alarm", "warning")
        for bound in ("high", "low")
        if f"{bound} {level}" in limits
        and (
            temp_c > limits[f"{bound} {level}"]
            if bound == "high"
            else temp_c < limits[f"{bound} {level}"]
        )
    ]
    if past:
        return words + ", past its " + past[0]
    under = [
        f"{limits[f'high {level}'] - temp_c:g} C under its high {level} threshold "
        f"{limits[f'high {level}']:g} C"
        for level in ("warning", "alarm")
        if f"high {level}" in limits
    ]
    return words + (", " + ", ".join(under) if under else " (its thresholds not in the copy)")


def _ethtool_module(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """ethtool -m: a note per module of what it is (its form, transceiver codes, vendor, cable
    length, optical power) and of any alarm flag it reads On (not judged against the port's
    speed, which is not in it); an ``optical_power`` failure per power reading past the module's
    own thresholds (Fail past an alarm one, Warn past a warning one)."""
    notes = []
    for m in ethtool.parse_module(text):
        said = [
            m.identifier
            or (
                "power lines only (the module's identifier is not in the copy)"
                if m.powers or m.temperature_c is None
                else "temperature lines only (the module's identifier is not in the copy)"
            )
        ]
        if m.temperature_c is not None:
            said.append(_module_temperature(m))
        if m.powers:
            said.append(
                "optical power "
                + "; ".join(f"{p.direction.capitalize()} {p.reading}" for p in m.powers[:8])
                + (
                    f" ({len(m.thresholds_mw)} of its thresholds shown)"
                    if m.thresholds_mw
                    else " (its thresholds not in the copy: not judged)"
                )
            )
        if m.transceiver:
            said.append("transceiver " + "; ".join(m.transceiver))
        if m.connector:
            said.append(f"connector {m.connector}")
        if m.vendor:
            said.append(f"vendor {m.vendor}" + (f" {m.part}" if m.part else ""))
        if m.length:
            said.append("length " + ", ".join(m.length))
        if m.alarms_on:
            said.append("alarm or warning flags On: " + ", ".join(m.alarms_on[:6]))
        if garbled := ethtool.garbled_thresholds(m):
            said.append(
                "its DOM thresholds unreadable (a high alarm at or under its low alarm: "
                + "; ".join(f"{k} {v}" for k, v in garbled.items())
                + "): its readings are not judged against them; check or replace the module"
            )
        elif m.flags_off and not m.identifier:
            said.append(f"its {m.flags_off} alarm and warning flag(s) shown Off")
        notes.append(
            ParseWarning(
                line=m.line,
                message=f"ethtool -m{f' {m.iface}' if m.iface else ''}"
                + (f" on {m.host}" if m.host else "")
                + ": "
                + ", ".join(said)
                + (
                    " (the module's EEPROM: check its transceiver codes match the port's speed)"
                    if m.identifier
                    else ""
                ),
                skipped=False,
            )
        )
        for level, power, words in ethtool.module_power_faults(m):
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="optical_power",
                    line=power.line,
                    message=f"ethtool -m{f' {m.iface}' if m.iface else ''}: {power.key}",
                    code="Fail" if level == "alarm" else "Warn",
                    host=m.host,
                    library="ethtool",
                    exception_type=(f"{m.iface}" if m.iface else "")
                    + (f" on {m.host}" if m.host else "")
                    + (": " if m.iface or m.host else "")
                    + words,
                ),
            )
    return notes


def _ibdiagnet(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """ibdiagnet: a note of its run (version, what it discovered, its stages' counts) and an
    ``ibdiag_check`` failure per stage its own summary counts errors (Fail) or only warnings
    (Warn) in, with that stage's -E-/-W- lines; a copy cut before the summary is not judged.
    Where the copy holds several runs from one local port (run, fix, run again), the last run
    with a summary is the fabric as it is: it alone is judged, and each earlier run is a note of
    its counts. Runs from different local ports (ibdiagnet -p 1, -p 2: one per rail) see
    different subnets, so the last run of each port is judged: a clean rail proves nothing of
    another's. A later run cut before its summary is not judged, but its -E- lines are said (a
    warning): the run judged is then no longer known to be the fabric as it is."""
    reports = rdma.parse_ibdiagnet(text)
    ports: list[str | None] = list(dict.fromkeys(r.local_port for r in reports if r.local_port))
    # a run that names no port is of the one port the others name (or of the only fabric)
    groups = [
        [r for r in reports if r.local_port == port or (r.local_port is None and len(ports) <= 1)]
        for port in ports or [None]
    ]
    if len(ports) > 1 and (unnamed := [r for r in reports if r.local_port is None]):
        groups.append(unnamed)
    notes: list[ParseWarning] = []
    for group in groups:
        summed = [r for r in group if r.summary]
        report = summed[-1] if summed else group[-1]
        notes.extend(_ibdiag_other_runs(group, report, source, out))
        notes.append(_ibdiag_judged(report, source, out, len(groups) > 1))
    return sorted(notes, key=lambda n: n.line)


def _ibdiag_other_runs(
    group: list[rdma.IbdiagReport], report: rdma.IbdiagReport, source: str, out: EvidenceFacts
) -> list[ParseWarning]:
    """A note of each run of ``group`` (one local port's) other than ``report``, the one judged;
    a ``ibdiag_check`` warning for a later run cut before its summary with -E- lines."""
    notes = []
    for r in group:
        if r is report:
            continue
        if r.line < report.line:
            notes.append(
                ParseWarning(
                    line=r.line,
                    message=f"an earlier ibdiagnet run, not judged (the run at line {report.line} "
                    f"is later): {sum(s.errors for s in r.stages)} error(s), "
                    f"{sum(s.warnings for s in r.stages)} warning(s)"
                    + "".join(
                        f"; {s.name}: {s.errors} error(s), {s.warnings} warning(s)"
                        for s in r.stages
                        if s.errors or s.warnings
                    ),
                    skipped=False,
                )
            )
            continue
        shown = Counter(level for _, level, _, _ in r.messages)
        said = (
            f"a later ibdiagnet run (line {r.line}) is cut before its stage summary, so it is "
            f"not judged: {shown['E']} -E- and {shown['W']} -W- line(s) shown"
        )
        errors = [(no, text) for no, level, _, text in r.messages if level == "E"]
        if not errors:
            notes.append(ParseWarning(line=r.line, message=said, skipped=False))
            continue
        # its -E- lines are the newest word on the fabric: the earlier run judged may no longer
        # be the fabric as it is (a warning, not a failure: the cut run's counts are unknown)
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="ibdiag_check",
                line=errors[0][0],
                message=f"ibdiagnet run at line {r.line}, cut",
                code="Warn",
                library="ibdiagnet",
                exception_type=(
                    f"{said}; "
                    + "; ".join(f"-E- {text} (line {no})" for no, text in errors[:4])
                    + f"; rerun it: the run at line {report.line} may not be the fabric as it is"
                )[:400],
            ),
        )
    return notes


def _ibdiag_judged(
    report: rdma.IbdiagReport, source: str, out: EvidenceFacts, port_said: bool
) -> ParseWarning:
    """The note of the run judged, and an ``ibdiag_check`` failure per stage its summary counts
    errors or warnings in; its local port said where the copy holds runs of several."""
    port = f" (local {report.local_port})" if port_said and report.local_port else ""
    errors = sum(s.errors for s in report.stages)
    warnings = sum(s.warnings for s in report.stages)
    said = f"ibdiagnet{f' {report.version}' if report.version else ''}{port}"
    if report.discovered:
        said += f": {report.discovered} discovered"
    if report.summary:
        said += (
            f"; stage summary: {len(report.stages)} stage(s), {errors} error(s), "
            f"{warnings} warning(s)"
        )
    else:
        shown = Counter(level for _, level, _, _ in report.messages)
        said += (
            f"; the stage summary is not in the copy, so its counts are not judged "
            f"({shown['E']} -E- and {shown['W']} -W- line(s) shown)"
        )
    for stage in report.stages:
        if not stage.errors and not stage.warnings:
            continue
        lines = "; ".join(f"-{level}- {text} (line {no})" for no, level, text in stage.messages[:4])
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="ibdiag_check",
                line=stage.line,
                message=f"ibdiagnet stage {stage.name}",
                code="Fail" if stage.errors else "Warn",
                library="ibdiagnet",
                exception_type=(
                    (f"{report.local_port}: " if port else "")
                    + f"{stage.name}: {stage.errors} error(s), {stage.warnings} warning(s)"
                    + (f": {lines}" if lines else "")
                )[:400],
            ),
        )
    return ParseWarning(line=report.line, message=said, skipped=False)


def _mlnx_qos(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """mlnx_qos: a note of a NIC's trust state, PFC priorities and traffic classes."""
    return rdma.parse_mlnx_qos(text)


def _mlxconfig(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """mlxconfig query: a note per NIC of its firmware settings, and a ``nic_roce_disabled``
    failure per NIC whose ROCE_CONTROL reads ROCE_DISABLE, and a ``nic_sriov_no_vfs`` one per
    NIC whose NUM_OF_VFS was set to 0 away from its default (``MlxconfigBlock.no_vfs``); mlxconfig
    set: a
    note per NIC of what it changed, and a ``firmware_config_pending`` failure per set it
    applied, whose values load only at the next reboot or firmware reset (NVIDIA MFT
    documentation, mlxconfig), unless the copy goes on to show them loaded: a later mlxfwreset
    of its device, or a later ``mlxconfig -e query`` whose Current column holds them."""
    notes = rdma.parse_mlxconfig(text)
    blocks = rdma.parse_mlxconfig_blocks(text)
    for error in rdma.mlxconfig_errors(text):
        # the tool's "-E-" answer: a ``nic_config_tool_error`` failure, its ``code`` "unopened"
        # where it could not open the device at all
        device = f" -d {error.device}" if error.device else ""
        status = f" (exit status {error.exit_status})" if error.exit_status is not None else ""
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="nic_config_tool_error",
                line=error.line,
                message=f"{error.tool}{device}: -E- {error.what}{status}",
                library=error.tool,
                code="unopened" if error.unopened else "error",
                exit_code=error.exit_status,
                exception_type=f"{error.tool}{device}: {error.what}{status}"[:400],
            ),
        )
    for i, b in enumerate(blocks):
        if b.roce_disabled():
            # a RoCE NIC whose firmware has RoCE off creates no RoCE QP (Linux net/mlx5_core
            # "Introduce access functions to enable/disable RoCE": "When RoCE is not enabled on
            # the port, the NIC will refuse to create QPs attached to it")
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="nic_roce_disabled",
                    line=b.setting_lines["ROCE_CONTROL"],
                    message=f"mlxconfig query: {b.where()}",
                    library="mlxconfig",
                    exception_type=f"{b.where()}: ROCE_CONTROL {b.settings['ROCE_CONTROL']}",
                ),
            )
        if b.no_vfs():
            sriov = b.settings.get("SRIOV_EN")
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="nic_sriov_no_vfs",
                    line=b.setting_lines["NUM_OF_VFS"],
                    message=f"mlxconfig query: {b.where()}",
                    library="mlxconfig",
                    exception_type=(
                        f"{b.where()}: NUM_OF_VFS 0 current"
                        + (
                            f", {b.next_boot['NUM_OF_VFS']} at the next boot"
                            if "NUM_OF_VFS" in b.next_boot
                            else ""
                        )
                        + f", its default {b.defaults['NUM_OF_VFS']}"
                        + (f"; SRIOV_EN {sriov}" if sriov else "; SRIOV_EN not in the copy")
                    )[:400],
                ),
            )
        applied = b.reboot_line or b.applied_line
        if applied is None:
            continue
        changed = b.changed()
        shown = next((q.line for q in blocks[i + 1 :] if b.running_in(q)), None)
        if b.reset_line is not None or shown is not None:
            notes.append(
                ParseWarning(
                    line=applied,
                    message=f"mlxconfig set: {b.where()}: "
                    + (", ".join(changed) if changed else "its values set again")
                    + " applied and running since, "
                    + (
                        f"the firmware reset at line {b.reset_line}"
                        if b.reset_line is not None
                        else ""
                    )
                    + (" and " if b.reset_line is not None and shown is not None else "")
                    + (f"the query at line {shown} shows them current" if shown else ""),
                    skipped=False,  # (a note of what was read, as the parser's own)
                )
            )
            continue
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="firmware_config_pending",
                line=applied,
                message=f"mlxconfig set: {b.where()}",
                library="mlxconfig",
                exception_type=(
                    f"{b.where()}: "
                    + (", ".join(changed) if changed else "its values set again")
                    + " applied, loaded at the next reboot"
                )[:400],
            ),
        )
    return notes


def _mlxfwmanager(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """mlxfwmanager (or mlxup, the same code): a note per device of its firmware, the image's and
    its status; a device whose update burned ("Done") under the tool's "Restart needed for updates
    to take effect." is a ``nic_firmware_restart_pending`` failure: mlxfwmanager.cpp prints that
    line once a burn succeeded, and the device runs its old firmware until it restarts (a reboot
    or mlxfwreset), unless the copy goes on to reset it; a burn that ended "Fail : WHY" or
    "Interrupted" is a ``nic_firmware_update_failed`` one."""
    update = rdma.parse_mlxfwmanager(text)
    reset = _MLXFWRESET_RE.search(text)
    reset_line = text.count("\n", 0, reset.start()) + 1 if reset else 0
    notes = []
    for d in update.devices:
        fw = d.versions.get("FW")
        said = [d.where()]
        if fw:
            said.append(f"FW {fw[0]}, image {fw[1]}")
        said += [f"{c} {cur}, image {avail}" for c, (cur, avail) in d.versions.items() if c != "FW"]
        if d.status:
            said.append(f"Status: {d.status} (line {d.status_line})")
        if d.burn:
            said.append(
                {"done": "burned", "fail": f"update failed: {d.burn_error}"}.get(
                    d.burn, "update interrupted"
                )
                + f" (line {d.burn_line})"
            )
        notes.append(ParseWarning(line=d.line, message="; ".join(said), skipped=False))
        before = f"FW {fw[0]}" if fw else "its old firmware"
        target = f"FW {fw[1]}" if fw and fw[1] != "N/A" else "the new image"
        if (
            d.burn == "done"
            and update.restart_line
            and reset_line < d.burn_line
            and not _mlxfw_runs_burned(d, update.devices)
        ):
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="nic_firmware_restart_pending",
                    line=update.restart_line,
                    message=f"mlxfwmanager: {d.where()}",
                    library="mlxfwmanager",
                    exception_type=(
                        f"{d.where()}: {target} burned (line {d.burn_line}), "
                        f"'Restart needed for updates to take effect.' (line "
                        f"{update.restart_line}): it runs {before} until it restarts"
                    )[:400],
                ),
            )
        elif d.burn in ("fail", "interrupted"):
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="nic_firmware_update_failed",
                    line=d.burn_line,
                    message=f"mlxfwmanager: {d.where()}",
                    library="mlxfwmanager",
                    code=d.burn,
                    exception_type=(
                        f"{d.where()}: the update to {target} "
                        + (f"failed: {d.burn_error}" if d.burn == "fail" else "was interrupted")
                        + f"; it still holds {before}"
                    )[:400],
                ),
            )
    if update.declined_line:
        notes.append(
            ParseWarning(
                line=update.declined_line,
                message="the update was declined at its prompt (no updates performed)",
                skipped=False,
            )
        )
    return notes


def _mlxfw_runs_burned(burned: rdma.FirmwareDevice, devices: list[rdma.FirmwareDevice]) -> bool:
    """Whether a block after ``burned``'s burn (a later ``mlxfwmanager --query``, as an update is
    logged: update, reboot, verify) shows the same device (its PCI Device Name, else its PSID,
    else its index) running the image burned: its "FW" current version the burned image's and
    no "FW (Running)" row of another. mstflint's mlnx_dev.cpp (b9d9e84) prints "FW" from the
    flash and adds "FW (Running)" only where the running firmware differs from it, so a "FW"
    row alone is the firmware the device runs."""
    fw = burned.versions.get("FW")
    if not fw or fw[1] == "N/A":
        return False

    def key(d: rdma.FirmwareDevice) -> str:
        return d.fields.get("PCI Device Name") or d.fields.get("PSID") or f"#{d.index}"

    return any(
        later.line > burned.burn_line
        and key(later) == key(burned)
        and later.versions.get("FW", ("",))[0] == fw[1]
        and later.versions.get("FW (Running)", (fw[1],))[0] == fw[1]
        for later in devices
    )


# a firmware reset after the burn loads the new firmware (NVIDIA MFT documentation, mlxfwreset)
_MLXFWRESET_RE = re.compile(r"^[^\n]{0,200}?\bmlxfwreset\b[^\n]{0,300}?\breset\b", re.M)


def _node_ranges(nodes: list[int]) -> str:
    """Sorted node numbers as ranges: [1, 2, 3, 5] → "1-3, 5"."""
    spans: list[list[int]] = []
    for n in nodes:
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    return ", ".join(f"{a}-{b}" if b > a else str(a) for a, b in spans)


def _lscpu(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """lscpu: a note of the CPUs (model, count, sockets x cores x threads) and which CPUs each NUMA
    node holds; nothing judged (an offline CPU list is named). A pdsh copy ("gpu-node01: "
    before each row, ``pdsh_by_host``) is read per host, each note naming its host."""
    parts = pdsh_by_host(text)
    if parts[0][0] is not None:
        notes: list[ParseWarning] = []
        for host, part in parts:
            for note in _lscpu(part, source, out, name):
                note.message = f"{host}: {note.message}"
                notes.append(note)
        return notes
    cpu = lscpu.parse(text)
    if cpu is None:
        raise ParseError("no lscpu 'Architecture:' row")
    said = ["NUMA section alone" if cpu.numa_only else cpu.fields["Architecture"]]
    model = cpu.fields.get("Model name") or cpu.fields.get("Model")
    if model:
        said.append(f"model {model}")
    if (count := cpu.number("CPU(s)")) is not None:
        said.append(f"{count} CPUs")
    sockets = cpu.number("Socket(s)", "CPU socket(s)")
    cores = cpu.number("Core(s) per socket", "Core(s) per cluster")
    threads = cpu.number("Thread(s) per core")
    if sockets and cores and threads:
        said.append(f"{sockets} socket(s) x {cores} core(s) x {threads} thread(s)")
    if offline := cpu.fields.get("Off-line CPU(s) list"):
        said.append(f"offline CPU(s) {offline} (line {cpu.field_lines['Off-line CPU(s) list']})")
    if cpu.nodes:
        said.append(
            f"{len(cpu.nodes)} NUMA node(s): "
            + "; ".join(
                f"node {n}: CPUs {cpus}" if cpus else f"node {n}: no CPUs"
                for n, cpus in sorted(cpu.nodes.items())[:16]
            )
            + (" ..." if len(cpu.nodes) > 16 else "")
            + (
                f" (line {first})"
                if (first := min(cpu.node_lines.values())) == (last := max(cpu.node_lines.values()))
                else f" (lines {first}-{last})"
            )
        )
    elif (nodes := cpu.number("NUMA node(s)")) is not None:
        said.append(f"{nodes} NUMA node(s)")
    if cpuless := sorted(n for n, cpus in cpu.nodes.items() if not cpus):
        # a node with no CPUs is memory alone, not a fault: a Grace Hopper's GPU memory is such
        # a node, one per GPU slice (hwloc 39fae7e); lscpu gives no node's memory size, so
        # nothing here says whether it holds any (numactl -H's "node N size:" does)
        said.append(
            f"node(s) {_node_ranges(cpuless)} have no CPUs: memory-only nodes (on an NVIDIA Grace "
            "Hopper, the GPU's memory; numactl -H gives their sizes), not a fault"
        )
    notes = [
        ParseWarning(
            line=cpu.line,
            message=", ".join(said) + " (which node each GPU and NIC sits on is not "
            "in it: nvidia-smi topo -m or lspci -vv says)",
            skipped=False,
        )
    ]
    if cpu.borders:
        notes.append(
            ParseWarning(
                line=cpu.line,
                message=f"read inside a table: {cpu.borders} border line(s) skipped",
                skipped=False,
            )
        )
    return notes


def _lspci_lost(
    devices: list[lspci.ListedDevice], source: str, out: EvidenceFacts
) -> list[lspci.ListedDevice]:
    """The devices whose revision reads ff: they do not answer their configuration reads (a GPU
    that fell off the bus reads so); an NVIDIA GPU's is a ``gpu_driver_fault``, another device's
    (a NIC's) a ``pcie_device_lost``."""
    lost = [d for d in devices if (d.rev or "").lower() == "ff"]
    said_slots: set[str] = set()
    for d in lost:
        if "Audio" in d.device_class:
            continue  # (a GPU's HD-audio function goes with its GPU: one fault, not two)
        slot = d.bdf.rsplit(".", 1)[0]
        if slot in said_slots:
            continue
        said_slots.add(slot)
        if "NVIDIA" not in d.name:
            # a NIC (or any other card) that reads so has dropped off the bus as a GPU does
            # (lspci(8): config space read back as all ones, "(rev ff)", "!!! Unknown header
            # type 7f"): what runs over it is gone until the slot is serviced and the node reset
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="pcie_device_lost",
                    line=d.line,
                    message=f"{d.bdf} {d.device_class}: {d.name} (rev ff)",
                    library="lspci",
                    exception_type=f"{d.device_class} {d.bdf} ({d.name or 'name cut'}) reads "
                    "revision ff: it does not answer its PCI configuration reads (all ones), as "
                    "a device that fell off the bus",
                ),
            )
            continue
        # (lspci's class says what the device is: a 3D, VGA or Display controller is a GPU; an
        # NVIDIA Bridge on an HGX board is an NVSwitch)
        what = (
            "GPU"
            if any(c in d.device_class for c in ("3D", "VGA", "Display"))
            else "NVSwitch"
            if "Bridge" in d.device_class
            else f"NVIDIA {d.device_class}"
        )
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="gpu_driver_fault",
                line=d.line,
                message=f"{d.bdf} {d.device_class}: {d.name} (rev ff)",
                library="lspci",
                exception_type=f"{what} {d.bdf} reads revision ff: it does not answer its PCI "
                f"configuration reads (all ones), as a device that fell off the bus",
            ),
        )
    return lost


def _lspci_list(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """lspci's listing: a note of the devices, and a failure of each that reads revision ff
    (``_lspci_lost``)."""
    devices = lspci.parse_list(text)
    lost = _lspci_lost(devices, source, out)
    classes = Counter(d.device_class for d in devices)
    return [
        ParseWarning(
            line=devices[0].line,
            message=f"lspci: {len(devices)} device(s) ("
            + ", ".join(f"{c} x{n}" for c, n in classes.items())
            + "): "
            + "; ".join(
                f"{d.bdf} {d.name or '(name cut)'}" + (f" rev {d.rev}" if d.rev else "")
                for d in devices[:8]
            )
            + (f"; ... {len(devices) - 8} more" if len(devices) > 8 else "")
            + (
                f"; {len(lost)} read revision ff (not answering their configuration reads)"
                if lost
                else ""
            ),
            skipped=False,
        )
    ]


def _lspci(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """lspci -vv's link lines: a link narrower than its device's is a ``pcie_link_narrow``
    failure, a NIC's slower one a ``pcie_link_slow``; another slower one, or one at its full
    capability, a note (a GPU lowers its link speed when idle)."""
    notes: list[ParseWarning] = []
    if "ACSCtl" in text and re.search(lspci.ACS_SIGNATURE, text, re.M):
        notes += _lspci_acs(text, source, out, name)  # (-vvv's ACS lines, beside its links)
    devices: list[lspci.PciDevice] = []
    try:
        devices = lspci.parse_devices(text)
        notes += _lspci_not_enabled(devices, source, out)
    except ParseError:
        pass  # (link lines alone, grepped: no device block to read)
    if not re.search(lspci.SIGNATURE, text, re.M):
        # device blocks without their link lines (lspci -v, or a copy cut above LnkSta)
        for dev in lspci.parse_devices(text):
            notes.append(
                ParseWarning(
                    line=dev.line,
                    message=f"lspci: {dev.device}: "
                    + (
                        f"device status reports errors ({', '.join(e + '+' for e in dev.errors)}: "
                        "errors the device detected since they were last cleared)"
                        if dev.errors
                        else "device status shows no error bit"
                        if dev.devsta
                        else "no PCI Express status in the copy"
                    )
                    + "; its link lines (LnkCap/LnkSta) are not in the copy",
                    skipped=False,
                )
            )
        return notes
    # (lspci -v's headings are its listing's lines: a GPU that fell off the bus reads "(rev ff)
    # (prog-if ff)" there, "!!! Unknown header type 7f" below it and no capability)
    try:
        _lspci_lost(lspci.parse_list(text), source, out)
    except ParseError:
        pass  # (link lines alone, grepped: no heading to read)
    for link in lspci.parse(text):
        where = link.device or "a device (its lspci heading is not in the copy)"
        said = f"PCIe link {link.speed_gts:g}GT/s x{link.width}" + (
            f" against its {link.cap_speed_gts:g}GT/s x{link.cap_width} capability"
            if link.cap_speed_gts is not None
            else ""
        )
        # what a narrower link costs the job: nothing where no link trained (x0: an empty slot,
        # pciutils prints the Link Status register's negotiated width), where the link is the
        # one to a device below that the copy lists (its own link lines judge it, against its
        # own capability: a port wider than its device trains to the device's width), where the
        # device carries none of the job's data (storage, USB, the chipset's functions), or a
        # 1 Gb/s NIC, whose narrowest PCIe link outruns its ports
        spared = (
            "no link trained (x0): an empty slot, or a device that is not there"
            if link.width == 0 and not link.listed_below
            else f"the link to {link.below}, whose own link lines judge it"
            if link.below
            else "a 1 Gb/s NIC: even one lane outruns its ports"
            if link.one_gigabit
            else "no device behind it carries the job's data"
            if link.job_data is False and link.port_type in lspci.DOWNSTREAM_PORTS
            else "not a device the job's data crosses (no GPU, accelerator or data NIC)"
            if link.job_data is False
            else None
        )
        # a port with no device behind it: its slot's Presence Detect State clear (SltSta
        # "PresDet-") or, where the port reports it (LnkCap "LLActRep+"), no Data Link Layer link
        # up (LnkSta "DLActive-"; pciutils ls-caps.c prints both registers' bits): its LnkSta is
        # an idle port's figures (lspci marks any figure below LnkCap "downgraded"), not a slow
        # or narrow link of a device
        empty = []
        if link.present is False:
            empty.append(f"the slot's PresDet-, no card present (line {link.present_line})")
        if link.link_active is False:
            empty.append(f"DLActive-, no data link up (line {link.link_active_line})")
        # (an untrained x0 link is said as an empty slot already, by spared above)
        if empty and link.width and not link.below and not link.listed_below:
            notes.append(
                ParseWarning(
                    line=link.line,
                    message=f"lspci: {where}: {said}: no device behind it: "
                    + " and ".join(empty)
                    + ": an empty slot or unlinked port, whose link figures are not a slow "
                    "link of any device; nothing to judge",
                    skipped=False,
                )
            )
            continue
        if link.width_downgraded and spared:
            notes.append(
                ParseWarning(
                    line=link.line,
                    message=f"lspci: {where}: {said}: fewer lanes than it has, no loss to a "
                    f"job: {spared}",
                    skipped=False,
                )
            )
            continue
        if link.width_downgraded:
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="pcie_link_narrow",
                    line=link.line,
                    message=where,
                    library="lspci",
                    exception_type=(
                        f"{said}: no link trained (x0), though the copy lists "
                        f"{link.listed_below} behind it: a device the port cannot reach"
                        if link.width == 0 and link.listed_below
                        else f"{said}: fewer lanes than the device has"
                        + (" (and slower)" if link.speed_downgraded else "")
                    ),
                ),
            )
            continue
        if link.peer_width and link.peer_model and not spared:
            # (the listing names it another model than the wider siblings: their width is not
            # its own, which the copy does not give)
            notes.append(
                ParseWarning(
                    line=link.line,
                    message=f"lspci: {where}: {said}: fewer lanes than the other NICs of the "
                    f"listing (x{link.peer_width}), another model by its name ({link.model}, "
                    f"theirs {link.peer_model}): its own width is not theirs; no LnkCap or lspci "
                    "(ok)/(downgraded) mark in the copy says it (lspci -vv's LnkCap line does)",
                    skipped=False,
                )
            )
            continue
        if link.peer_width and link.peer_speed_gts and not spared:
            # (no names in the copy, and slower as well as narrower than every wider sibling:
            # another model most often, at its own full width, which the copy does not give)
            notes.append(
                ParseWarning(
                    line=link.line,
                    message=f"lspci: {where}: {said}: fewer lanes than the other NICs of the "
                    f"listing (x{link.peer_width} at {link.peer_speed_gts:g}GT/s), at another "
                    "speed too: most likely another model (such as a Gen4 x8 card beside Gen5 "
                    "x16 ones) at its full width; no LnkCap or lspci (ok)/(downgraded) mark in "
                    "the copy says its own width (lspci -vv's LnkCap line does)",
                    skipped=False,
                )
            )
            continue
        if link.peer_width and not spared:
            # (no capability or mark says its own width: its sibling NICs' widths are the
            # measure, said as such)
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="pcie_link_narrow",
                    line=link.line,
                    message=where,
                    library="lspci",
                    exception_type=f"{said}: fewer lanes than the other NICs of the listing "
                    f"(x{link.peer_width}); no LnkCap or lspci (ok)/(downgraded) mark in the copy "
                    "says its own width",
                ),
            )
            continue
        npu = (
            link.speed_downgraded
            and not link.nic
            and lspci.is_ascend_npu(*lspci.heading_parts(link.device))
        )
        if link.speed_downgraded and (link.nic or npu) and not spared and link.cap_speed_gts:
            # a NIC's link trains to its speed once, at the driver's probe (which prints the
            # kernel's pcie_print_link_status, "... available PCIe bandwidth, limited by 8.0
            # GT/s PCIe x16 link"): unlike a GPU's, it is not lowered when idle. The idle
            # downclock is NVIDIA's (nvidia-smi's documentation: the current PCIe generation
            # "may be reduced when the GPU is not in use"); no Ascend document found says an
            # NPU's link does so, so an Ascend NPU's link below its capability is read as one
            # that trained slow (a slot, riser or root port of an older generation), as a NIC's
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="pcie_link_slow",
                    line=link.line,
                    message=where,
                    library="lspci",
                    exception_type=f"{said}: "
                    + ("an Ascend NPU's" if npu else "a NIC's")
                    + " link trained slower than it can run, about "
                    f"{lspci.pcie_gbps(link.speed_gts, link.width):.0f} Gb/s of PCIe "
                    "bandwidth against "
                    f"{lspci.pcie_gbps(link.cap_speed_gts, link.cap_width or link.width):.0f} "
                    "Gb/s at its capability"
                    + (f"; its width, x{link.width}, is full" if npu else ""),
                ),
            )
            continue
        notes.append(
            ParseWarning(
                line=link.line,
                message=f"lspci: {where}: {said}"
                + (
                    ": slower than it can run (a GPU lowers its link speed when idle; read it "
                    "again under load before calling it a fault)"
                    if link.speed_downgraded
                    else ""
                ),
                skipped=False,
            )
        )
    # the devices whose link this copy raised (a slow or narrow link): their device status's
    # error bits are said beside it; on other devices they are left unsaid, as before (a
    # GPU's CorrErr+/UnsupReq+ are common on healthy hosts, and every block would get a note)
    raised = {
        f["message"]
        for f in out.failures
        if f["source"] == source and f["kind"] in ("pcie_link_slow", "pcie_link_narrow")
    }
    for dev in devices:
        if dev.errors and dev.link and dev.devsta_line and dev.device in raised:
            # (pciutils ls-caps.c prints the Device Status register's "detected" bits, latched
            # until software clears them: errors since then, not a state: a note)
            notes.append(
                ParseWarning(
                    line=dev.devsta_line,
                    message=f"lspci: {dev.device}: device status reports "
                    f"{', '.join(e + '+' for e in dev.errors)} (errors the device detected since "
                    "they were last cleared; AER's lines, where the copy has them, say which)",
                    skipped=False,
                )
            )
    return notes


def _lspci_not_enabled(
    devices: list[lspci.PciDevice], source: str, out: EvidenceFacts
) -> list[ParseWarning]:
    """Each GPU or NPU (``lspci.is_accelerator``) whose command register has bus mastering off
    (``BusMaster-``): no driver has enabled it, a ``gpu_not_enabled`` failure. Linux's
    pci_set_master() ("enables bus-mastering for device dev", Linux kernel API) sets the bit; the
    NVIDIA driver calls it in its probe and pci_clear_master() on shutdown (open-gpu-kernel-modules
    kernel-open/nvidia/nv-pci.c nv_pci_probe, nv_pci_shutdown):
    a GPU without it cannot start a DMA, so no CUDA or CANN work reaches it (QEMU's commit
    1c380f94 "Honor PCI_COMMAND_MASTER": DMA stalls while the bit is clear). Its IRQ 255 (the
    PCI Interrupt Line's "unknown / no connection", kept until the kernel assigns one when a
    driver enables the device) and MSI/MSI-X Enable- (a driver turns them on) are said beside it.
    A device held by vfio-pci (or another stub for a VM) is a note: its guest enables it."""
    notes: list[ParseWarning] = []
    for dev in devices:
        if dev.bus_master is not False or not lspci.is_accelerator(dev.device_class, dev.name):
            continue
        bdf = dev.device.split(" ", 1)[0]
        if dev.driver in lspci.VM_STUB_DRIVERS:
            notes.append(
                ParseWarning(
                    line=dev.control_line or dev.line,
                    message=f"lspci: {bdf}: bus mastering off (BusMaster-, line "
                    f"{dev.control_line}) while held by {dev.driver} (line {dev.driver_line}) "
                    "for a virtual machine: its guest's driver enables it, the host's copy "
                    "says nothing of that",
                    skipped=False,
                )
            )
            continue
        said = [f"BusMaster- (line {dev.control_line}: it cannot start a DMA)"]
        if dev.irq == 255:
            said.append(f"IRQ 255 (line {dev.irq_line}: no interrupt assigned)")
        if dev.msi_enabled is False:
            said.append(f"MSI Enable- (line {dev.msi_line})")
        if dev.msix_enabled is False:
            said.append(f"MSI-X Enable- (line {dev.msix_line})")
        what = "NPU" if dev.device_class == "Processing accelerators" else "GPU"
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="gpu_not_enabled",
                line=dev.control_line or dev.line,
                message=dev.device,
                library="lspci",
                exception_type=f"{what} {bdf} ({dev.name or 'name cut'}) not enabled by a "
                f"driver: {', '.join(said)}; "
                + (
                    f"its driver in use, {dev.driver} (line {dev.driver_line}), has not "
                    "enabled it, or has let go of it (a shut-down or removed GPU)"
                    if dev.driver
                    else "no 'Kernel driver in use' line in the copy (no driver bound, or the "
                    "copy ends before lspci -k prints it)"
                ),
            ),
        )
    return notes


def _lspci_acs(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """lspci -vvv's ACSCtl lines: a bridge whose ACS redirects peer-to-peer traffic up to the
    root complex (``lspci.ACS_REDIRECT_FLAGS``) with a GPU or data NIC behind it, or where the
    copy does not say what is behind it (the lines grepped alone), is a ``pcie_acs_redirect``
    failure; a note counts them all. A root port's redirect is no failure: Linux turns SV, RR,
    CR and UF on at every ACS-capable port once an IOMMU driver asks for ACS (drivers/pci/pci.c
    pci_std_enable_acs), and it changes no path a job's traffic takes: devices below different
    root ports reach each other through the root complex whatever ACS says, and those under a
    switch below one root port meet at the switch (p2pdma.c upstream_bridge_distance: devices
    "on separate PCIe root ports" share no upstream bridge, "each PCIe root port defines a
    separate hierarchy domain"). NCCL's troubleshooting guide asks for ACS off on PCI switches."""
    acs = lspci.parse_acs(text)
    redirecting = [a for a in acs if a.redirect and a.job_data is not False and not a.root_port]
    for a in redirecting:
        others = [f for f in a.on if f not in a.redirect]
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="pcie_acs_redirect",
                line=a.line,
                message=a.device or f"ACSCtl line {a.line}",
                library="lspci",
                exception_type=(a.device or "a device (its lspci heading is not in the copy)")
                + ": ACS "
                + " ".join(f + "+" for f in a.redirect)
                + (f" (with {' '.join(f + '+' for f in others)})" if others else "")
                + ": its peer-to-peer traffic sent up to the root complex",
            ),
        )
    spared = [a for a in acs if a.redirect and a.job_data is False and not a.root_port]
    at_roots = [a for a in acs if a.redirect and a.root_port]
    source_only = [a for a in acs if a.on and not a.redirect]
    off = [a for a in acs if not a.on]

    def lines(these: list[lspci.AcsControl]) -> str:
        shown = ", ".join(str(a.line) for a in these[:12])
        return f"line{'s' if len(these) > 1 else ''} {shown}" + (" ..." if len(these) > 12 else "")

    said = [f"{len(acs)} ACS control line(s) (ACSCtl)"]
    if redirecting:
        said.append(f"P2P redirect on at {len(redirecting)} ({lines(redirecting)})")
    if spared:
        said.append(
            f"P2P redirect on at {len(spared)} with no GPU or data NIC behind them "
            f"({lines(spared)}: no job traffic crosses them)"
        )
    if at_roots:
        said.append(
            f"P2P redirect on at {len(at_roots)} root port(s) ({lines(at_roots)}: what Linux "
            "sets when an IOMMU is on; traffic between root ports crosses the root complex "
            "whatever ACS says, so no loss to the job)"
        )
    if source_only:
        # (source validation checks a request's bus number; it sends nothing up: p2pdma's
        # pci_bridge_has_acs_redir does not count it)
        said.append(
            f"other controls alone (no redirect) at {len(source_only)} ({lines(source_only)})"
        )
    if off:
        said.append(f"all off at {len(off)}")
    return [ParseWarning(line=acs[0].line, message="lspci: " + "; ".join(said), skipped=False)]


def _bitrate(bps: float) -> str:
    return f"{bps / 1e9:.3g} Gbit/s" if bps >= 1e9 else f"{bps / 1e6:.3g} Mbit/s"


def _udp_streams_lost(run: iperf.Iperf3Run, share: float) -> str:
    """The losses of an iperf 2 UDP test under -P, a server report a stream: the total, the
    range a stream, the worst streams with their lines, each set against what that stream sent
    (its own row, not the [SUM] of all: each stream is paced at -b on its own)."""
    counted = [r for r in run.server_reports if not r.invalid and r.total]
    pct = {id(r): round(100 * (r.lost or 0) / (r.total or 1)) for r in counted}
    top = max(pct.values())
    worst = [r for r in counted if pct[id(r)] == top]
    first = worst[0]
    sent = run.stream_bps.get(first.stream)
    return (
        f"{run.lost_datagrams} of {run.total_datagrams} UDP datagrams lost ({100 * share:.2g} %) "
        f"over the server's reports of its {len(run.server_reports)} streams, "
        f"{min(pct.values())} % to {top} % a stream; the worst: "
        + " and ".join(f"stream {r.stream} (line {r.line})" for r in worst[:6])
        + (f" and {len(worst) - 6} more" if len(worst) > 6 else "")
        + f" at {top} % ({first.lost} of {first.total} lost"
        + (f", received {_bitrate(first.bps)}" if first.bps is not None else "")
        + (f" against the {_bitrate(sent)} it sent" if sent is not None else "")
        + ")"
        + (
            f"; the server received {_bitrate(run.server_report_bps)} in all"
            + (
                f" against {_bitrate(run.sender_bps)} sent by the {len(run.server_reports)} "
                "streams together"
                if run.sender_bps is not None
                else ""
            )
            if run.server_report_bps is not None
            else ""
        )
        + (f", jitter up to {run.jitter_ms:g} ms" if run.jitter_ms is not None else "")
        + _no_ack_said(run)
    )


def _no_ack_said(run: iperf.Iperf3Run) -> str:
    """iperf 2's WARNING that the client got no ack of its last datagram, as a loss item's last
    clause: what the server received of the run's end is not confirmed."""
    return (
        f"; the client got no ack of its last datagram (line {run.no_ack_line})"
        if run.no_ack_line
        else ""
    )


def _iperf3_port_arg(run: iperf.Iperf3Run) -> str:
    """What the client's -p argument asked that iperf3 did not do (iperf.py _PORT_ARG_RE:
    iperf3 reads one port with atoi(), so a range's first number is the only port tried)."""
    if not run.port_arg:
        return ""
    tried = (
        f"only port {run.remote_port} was tried"
        if run.remote_port
        else "no port was read from it (iperf3 stops on a bad port)"
    )
    return (
        f"; the command's -p {run.port_arg} (line {run.port_arg_line}) is not one port: iperf3's "
        f"-p takes a single port and reads the leading number of what it is given, so {tried}"
    )


def _lines_said(lines: list[int]) -> str:
    """Line numbers in words, a run of consecutive ones as "a-b"."""
    runs: list[list[int]] = []
    for no in sorted(lines):
        if runs and no == runs[-1][-1] + 1:
            runs[-1].append(no)
        else:
            runs.append([no])
    return ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 2 else ", ".join(map(str, r)) for r in runs)


def _multinic_check(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """multi-nic-cni's connection check (iperf3 between every two hosts' pods over a multi-nic
    network, iperf.py CONNECTION_CHECK_SIGNATURE): a note per table of the pairs and their
    bitrates; a ``multinic_unconnected`` failure for the one host in every pair that did not
    connect whole (where one explains them all), else one per such pair."""
    notes: list[ParseWarning] = []
    for check in iperf.parse_connection_check(text):
        net = f" {check.network}" if check.network else ""
        # (a row is whole only where it measured every address: iperf3.go ReadResult counts an
        # address missing from the client's result map, as when the client pod's log could not
        # be read, "cannot read log", as connected, and then prints no bitrate for it)
        whole = [p for p in check.pairs if iperf.measured_whole(p)]
        failed = [p for p in check.pairs if p.connected < p.total]
        unmeasured = [
            p for p in check.pairs if p.connected >= p.total and not iperf.measured_whole(p)
        ]
        rates = [g for p in check.pairs for g in p.gbps]
        hosts = {h for p in check.pairs for h in (p.src, p.dst)}
        notes.append(
            ParseWarning(
                line=check.line,
                message=f"multi-nic-cni connection check{net}: {len(hosts)} host(s), "
                f"{len(check.pairs)} pair(s), {len(whole)} with every address connected, "
                f"{len(failed)} not"
                + (
                    f", {len(unmeasured)} counted connected with no bitrate for every address"
                    if unmeasured
                    else ""
                )
                + (
                    f"; iperf3 bitrates {min(rates):.3g}-{max(rates):.3g} Gbit/s per address "
                    "(the receiver's sum over its streams; the NICs' line rate is not in the "
                    "copy, so not judged)"
                    if rates
                    else ""
                ),
                skipped=False,
            )
        )
        for p in unmeasured:
            # (iperf3.go prints CONNECTED as the addresses minus those whose result was empty or
            # "Bad file descriptor": an address with no result at all is in the count, so N/N
            # with fewer bitrates than N says nothing was read for the rest, not that it works)
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="multinic_unmeasured",
                    line=p.line,
                    message=f"multi-nic-cni connection check{net}: {p.src} to {p.dst}"
                    + (f" ({' '.join(p.ips[:8])})" if p.ips else "")
                    + f": {p.connected}/{p.total} connected",
                    host=p.src,
                    library="multi-nic-cni",
                    exception_type=f"{len(p.gbps)} bitrate(s) for {p.total} address(es): "
                    "connected count without any measurement"
                    if not p.gbps
                    else f"{len(p.gbps)} bitrate(s) for {p.total} address(es): the rest counted "
                    "connected without a measurement",
                ),
            )
        host = iperf.unconnected_host(check)
        if host is not None:
            to = [p for p in failed if p.dst == host]
            frm = [p for p in failed if p.src == host]
            ips = list(dict.fromkeys(ip for p in to for ip in p.ips))
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="multinic_unconnected",
                    line=failed[0].line,
                    message=f"multi-nic-cni connection check{net}: {host}"
                    + (f" ({', '.join(ips[:8])})" if ips else "")
                    + f" is in every pair that did not connect ({len(failed)})",
                    host=host,
                    library="multi-nic-cni",
                    exception_type=f"{len(to)} pair(s) to it (lines {_lines_said([p.line for p in to])})"
                    f" and {len(frm)} from it (lines {_lines_said([p.line for p in frm])}) "
                    + ", ".join(sorted({f"{p.connected}/{p.total}" for p in failed}))
                    + (
                        " connected, no bitrate"
                        if not any(p.gbps for p in failed)
                        else " connected"
                    )
                    + "; every other pair connected on all its "
                    "addresses: the host's own interfaces or attachments on that network, not "
                    "the paths between the others",
                ),
            )
            continue
        for p in failed:
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="multinic_unconnected",
                    line=p.line,
                    message=f"multi-nic-cni connection check{net}: {p.src} to {p.dst}"
                    + (f" ({' '.join(p.ips[:8])})" if p.ips else "")
                    + f": {p.connected}/{p.total} connected",
                    host=p.src,
                    library="multi-nic-cni",
                    exception_type=f"{p.total - p.connected} of the {p.total} address(es) of "
                    f"{p.dst} not reached by {p.src}'s iperf3 clients",
                ),
            )
    return notes


def _iperf3(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """iperf3: a note per test of what it measured (the link's line rate is not in it, so
    nothing is judged against it); an iperf3 error is an ``iperf_unreached`` where the client
    reached no host (no path to the server), an ``iperf_exchange_failed`` where the control
    connection opened and the test's parameters or results did not come through it, else an
    ``iperf_failed`` (the test did not run or
    ended early: a server not listening or busy, a control connection that closed). A server's
    error on a connection it had not yet taken as a test's, with a test it measured after it,
    is a note (``Iperf3Run.before_accept``: what connected named no peer and ran no test)."""
    notes: list[ParseWarning] = []
    runs = iperf.parse(text)
    for at, run in enumerate(runs):
        measured_later = next(
            (
                r
                for r in runs[at + 1 :]
                if r.role == "server" and not r.error and (r.interval_bps or r.receiver_bps)
            ),
            None,
        )
        if run.before_accept and measured_later is not None:
            # a connection the server dropped before it took it as a test's, then a test it
            # measured: the server and the path work; what connected sent no iperf3 test
            # (iperf.py _BEFORE_ACCEPT_RE), so it is said, not judged
            notes.append(
                ParseWarning(
                    line=run.error_line,
                    message=f"iperf3 server: error - {run.error}, on a connection whose peer the "
                    "copy does not name (iperf3 prints 'Accepted connection from' only once the "
                    "parameters came): what connected sent no iperf3 test (a port probe or "
                    "health check, an iperf 2 client, a scanner) or a client that left; the "
                    f"server listened again and measured the test at line {measured_later.line}",
                    skipped=False,
                )
            )
            continue
        if run.error and not run.iperf2:
            server = (
                f"the server {run.remote}"
                + (f" (port {run.remote_port})" if run.remote_port else "")
                if run.remote
                else "the server (the copy does not name it)"
            )
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="iperf_unreached"
                    if run.unreached
                    else "iperf_exchange_failed"
                    if run.exchange_broken
                    else "iperf_failed",
                    line=run.error_line,
                    message=f"iperf3: error - {run.error}"[:300],
                    library="iperf3",
                    exception_type=(
                        f"the client reached no host at {server}: nothing was measured"
                        if run.unreached
                        else f"the {run.role or 'test'}'s control connection"
                        + (f" with {run.remote}" if run.remote else "")
                        + " opened, then the test's parameters or results did not come through "
                        "it whole"
                        + ("" if run.sender_bps is not None else ": nothing was measured")
                        if run.exchange_broken
                        else f"the test with {server} stopped on this error"
                        + (
                            ""
                            if run.interval_bps or run.sender_bps is not None
                            else ": nothing was measured"
                        )
                    )
                    + _iperf3_port_arg(run),
                ),
            )
        elif run.error:
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="log_error",
                    line=run.error_line,
                    message=run.error[:300],
                    library="iperf 2",
                ),
            )
        if run.error and not run.interval_bps and run.sender_bps is None:
            continue
        tool = "iperf 2" if run.iperf2 else "iperf3"
        who = f"{tool} {run.role}" if run.role else tool
        peer = f"{run.remote}" + (f":{run.remote_port}" if run.remote_port else "")
        path = (
            ""
            if not run.remote
            else f" {run.local} from {peer}"
            if run.role == "server"
            else f" {run.local or '?'} to {peer}"
        )
        if run.interleaved:
            ports = " and ".join(str(p) for p in run.interleaved)
            path += (
                f" (one of the clients run at once, to ports {ports}, their lines interleaved under "
                "one stream id: which port's test this summary is, the copy does not show)"
            )
        said = []
        if run.streams > 1:
            said.append(f"{run.streams} streams")
        if run.reverse:
            said.append("reverse mode (-R: the server sends, the client receives)")
        if run.seconds:
            said.append(f"{run.seconds:g} s")
        if run.sender_bps is not None:
            said.append(
                f"sender {_bitrate(run.sender_bps)}"
                + (f" ({run.retransmits} TCP retransmits)" if run.retransmits is not None else "")
            )
        if run.receiver_bps is not None:
            said.append(f"receiver {_bitrate(run.receiver_bps)}")
        if run.interval_bps:
            low, high = min(run.interval_bps), max(run.interval_bps)
            said.append(
                f"{len(run.interval_bps)} interval(s) of {_bitrate(low)}"
                + (f" to {_bitrate(high)}" if high != low else "")
                + (
                    f" ({run.interval_retransmits} TCP retransmits in them"
                    + (
                        f", {100 * share:.2g} % of its segments"
                        + (f" of {run.mss_bytes} bytes (its MSS)" if run.mss_bytes else "")
                        + (
                            f": under the {100 * iperf.UNSTEADY_RETRANSMIT_SHARE:g} % from "
                            "which losses are judged (evidence-iperf3-retransmits-heavy)"
                            if share <= iperf.UNSTEADY_RETRANSMIT_SHARE
                            else ""
                        )
                        if (share := iperf.loss_share(run)) is not None
                        else ""
                    )
                    + ")"
                    if run.retransmits is None and run.interval_retransmits is not None
                    else ""
                )
            )
        if run.interleaved_rows:
            said.append(
                f"{run.interleaved_rows} interval line(s) of those clients together, not told apart"
            )
        if run.cwnd:
            wins = sorted(set(run.cwnd), key=run.cwnd.index)
            said.append(
                f"congestion window {wins[0]}"
                + (" in every interval" if len(wins) == 1 and len(run.cwnd) > 2 else "")
                if len(wins) == 1
                else f"congestion window {wins[0]} to {wins[-1]}"
            )
        if run.window:
            said.append(
                f"socket window {run.window}"
                + (" asked (-w)" if not run.window.endswith("Byte") else "")
                + (
                    ": the window bounds one stream to window / round-trip time"
                    if run.cwnd and len(set(run.cwnd)) == 1
                    else ""
                )
            )
        if run.error and run.iperf2:
            said.append(f"the connection broke ({run.error}): the total covers the time before")
        # (iperf 2 -P: a stream whose server report holds no measure where another's does; the
        # sums are of the measured streams only, so the run's figures are said as theirs)
        unmeasured = (
            [s for s in run.server_reports if s.invalid]
            if len(run.server_reports) > 1 and not run.server_report_invalid
            else []
        )
        measured = len(run.server_reports) - len(unmeasured)
        of_streams = (
            f" (of the {measured} stream(s) whose server report holds a measure)"
            if unmeasured
            else ""
        )
        if len(run.server_reports) > 1 and not run.server_report_invalid:
            said.append(
                (
                    f"the server's reports of {measured} of its {len(run.server_reports)} streams"
                    if unmeasured
                    else f"the server's reports of its {len(run.server_reports)} streams"
                )
                + f" (lines {run.server_reports[0].line}-{run.server_reports[-1].line}): received "
                + (
                    f"{_bitrate(run.server_report_bps)} in all"
                    if run.server_report_bps is not None
                    else "?"
                )
                + (f" over {run.server_report_s:g} s" if run.server_report_s else "")
                + (f", jitter up to {run.jitter_ms:g} ms" if run.jitter_ms is not None else "")
            )
        elif run.server_report_line and not run.server_report_invalid:
            said.append(
                f"the server's report (line {run.server_report_line}): received "
                + (
                    f"{_bitrate(run.server_report_bps)}"
                    if run.server_report_bps is not None
                    else "?"
                )
                + (f" over {run.server_report_s:g} s" if run.server_report_s else "")
                + (f", jitter {run.jitter_ms:g} ms" if run.jitter_ms is not None else "")
            )
        if run.total_datagrams:
            lost = run.lost_datagrams or 0
            said.append(
                f"UDP: {lost} of {run.total_datagrams} datagrams lost "
                f"({100 * lost / run.total_datagrams:.2g} %){of_streams}"
            )
        if run.no_ack_line:
            said.append(
                f"WARNING at line {run.no_ack_line}: the client got no ack of its last datagram "
                f"after {run.no_ack_tries} tries"
            )
        if run.server_report_invalid:
            # (iperf 2's server report row with no measure in it: what reached the server is
            # not in the copy, so the sender's rate alone does not show the path carried it)
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="iperf_server_report_invalid",
                    line=run.server_report_line,
                    message=f"{who}{path}"[:300],
                    library=tool,
                    exception_type="the server's report holds no measure ("
                    + run.server_report_row[:160]
                    + "): what the server received is unknown"
                    + (
                        f", against {_bitrate(run.sender_bps)} sent"
                        if run.sender_bps is not None
                        else ""
                    ),
                ),
            )
            said.append(
                f"the server's report (line {run.server_report_line}) holds no measure: "
                "delivery not confirmed"
            )
        for report in unmeasured:
            # (one stream's server report with no measure: what reached the server of that
            # stream is unknown, the same finding as where it is the run's only report)
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="iperf_server_report_invalid",
                    line=report.line,
                    message=f"{who}{path}: stream {report.stream}"[:300],
                    library=tool,
                    exception_type=f"stream {report.stream}'s server report holds no measure ("
                    + report.row[:160]
                    + "): what the server received of it is unknown; the run's received "
                    f"figures are of the other {measured} stream(s) only",
                ),
            )
            said.append(
                f"stream {report.stream}'s server report (line {report.line}) holds no measure: "
                "its delivery not confirmed"
            )
        if (udp_share := iperf.udp_loss_share(run)) is not None and len(run.server_reports) > 1:
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="udp_datagrams_lost",
                    line=run.server_report_line or run.line,
                    message=f"{who}{path}"[:300],
                    library=tool,
                    exception_type=_udp_streams_lost(run, udp_share),
                ),
            )
        elif (udp_share := iperf.udp_loss_share(run)) is not None:
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="udp_datagrams_lost",
                    line=run.server_report_line or run.line,
                    message=f"{who}{path}"[:300],
                    library=tool,
                    exception_type=f"{run.lost_datagrams} of {run.total_datagrams} UDP datagrams "
                    f"lost ({100 * udp_share:.2g} %)"
                    + (
                        f", the server received {_bitrate(run.server_report_bps)}"
                        + (f" over {run.server_report_s:g} s" if run.server_report_s else "")
                        + (
                            f" against {_bitrate(run.sender_bps)}"
                            + (f" sent over {run.seconds:g} s" if run.seconds else " sent")
                            if run.sender_bps is not None
                            else ""
                        )
                        if run.server_report_bps is not None
                        else ""
                    )
                    + (f", jitter {run.jitter_ms:g} ms" if run.jitter_ms is not None else "")
                    + _no_ack_said(run),
                ),
            )
        if run.not_available:
            said.append(
                f"{run.not_available} statistics not available: the summary is this side's "
                f"(a server's of the test it {'received' if run.not_available == 'sender' else 'sent'})"
            )
        if run.server_zero_sender:
            said.append(
                "its 0-byte summary line is the server's own, of the direction it did not "
                "measure: not a failure"
            )
        if (stall := iperf.stalled(run)) is not None:
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="transfer_stalled",
                    line=run.line,
                    message=f"{who}{path}"[:300],
                    library=tool,
                    exception_type=f"{stall[0]} interval(s) ({stall[1]:g} s) moved no data"
                    + (
                        f", its congestion window at {run.cwnd[-1]}"
                        if run.cwnd and len(set(run.cwnd)) == 1
                        else f", its congestion window down to {run.cwnd[-1]}"
                        if run.cwnd
                        else ""
                    )
                    + (
                        f", {run.interval_retransmits} TCP retransmits over the test's intervals"
                        if run.interval_retransmits
                        else ""
                    ),
                ),
            )
            said.append(f"{stall[0]} interval(s) moved no data: the transfer stalled")
        if (share := iperf.retransmit_share(run)) is not None:
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="tcp_retransmits_heavy",
                    line=run.retransmits_line or run.line,
                    message=f"{who}{path}"[:300],
                    library=tool,
                    exception_type=_retransmits_said(run, share),
                ),
            )
        elif (share := iperf.unsteady_loss_share(run)) is not None and (
            span := iperf.unsteady(run)
        ):
            # (fewer losses, but the rate fell with them: unsteady_loss_share)
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="tcp_retransmits_heavy",
                    line=run.retransmits_line or run.line,
                    message=f"{who}{path}"[:300],
                    library=tool,
                    exception_type=_retransmits_said(run, share)
                    + f", while its intervals fell to {_bitrate(span[0])} against "
                    f"{_bitrate(span[1])}",
                ),
            )
        if (span := iperf.unsteady(run)) is not None:
            said.append(
                f"unsteady: intervals fell to {_bitrate(span[0])} against {_bitrate(span[1])} "
                + (
                    "(a busy host or a small window: over loopback no link is in the path)"
                    if run.loopback
                    else "(a busy host, a shared link or a small window)"
                )
            )
        if run.cut:
            said.append(
                "the copy ends before the test's summary"
                + (
                    " (iperf 2's whole-test row): every row read is an interval"
                    if run.iperf2
                    else ""
                )
            )
        notes.append(
            ParseWarning(
                line=run.line,
                message=f"{who}{path}: "
                + "; ".join(said)
                + (
                    f"; a loopback test ({run.local or '?'} to {run.remote}): the connection "
                    "never left the host, so it measures the host's TCP stack, no NIC or link: "
                    "not about the cluster's network"
                    if run.loopback
                    else f"; {tool} does not print the link's line rate: judge the figure "
                    "against the NIC's speed (ethtool IFACE)"
                ),
                skipped=run.cut,
            )
        )
    return notes


# the listing's command piped through a filter that keeps part of it: "nvidia-smi -L | head -n10",
# "nvidia-smi --list-gpus | tail -4", "nvidia-smi -L | grep A100" (one pipe stage; the rest of
# the line is the filter's arguments; the options before the pipe bounded, so a long line of
# "nvidia-smi -L" without one is read once)
_SMI_LIST_PIPE_RE = re.compile(
    r"nvidia-smi[ \t]+(?:-L|--list-gpus)\b[^|\n]{0,200}\|[ \t]*(?P<filter>head|tail|grep|egrep)\b"
    r"(?P<args>[^|\n]*)"
)
# head's and tail's line count: "-n10", "-n 10", "-10", "--lines=10" (GNU coreutils head(1)
# and tail(1): 10 lines when none is given)
_LINE_COUNT_RE = re.compile(r"(?:-n[ \t]*|--lines=|-)(?P<n>\d+)\b")


# a listing's own command, on the prompt line above it: "nvidia-smi -L", "nvidia-smi --list-gpus"
_SMI_LIST_COMMAND_RE = re.compile(r"nvidia-smi[ \t]+(?:-L|--list-gpus)\b")
# what every line of nvidia-smi -L holds whatever the GPU or MIG device (its GPU line "GPU 0:
# NVIDIA A100-SXM4-80GB (UUID: GPU-...)", a MIG device's "  MIG 1g.10gb     Device  0: (UUID:
# MIG-...)": nvidia_smi.py _LIST_GPU_RE, _LIST_MIG_RE): a grep for a part of them keeps them all
_SMI_GPU_LINE_PARTS = ("GPU ", ": ", " (UUID: GPU-", ")")
_SMI_MIG_LINE_PARTS = ("  MIG ", " Device ", ": (UUID: MIG-", ")")
# grep's options that change only which lines match, not what a kept line prints (GNU grep(1))
_GREP_MATCH_OPTIONS = {
    "-i": "i", "--ignore-case": "i", "-v": "v", "--invert-match": "v", "-F": "F",
    "--fixed-strings": "F", "-E": "E", "--extended-regexp": "E", "-G": "G",
    "--basic-regexp": "G",
}  # fmt: skip
_REGEX_SPECIAL = frozenset(".[]*^$+?(){}\\|")


def _grep_keeps(filter_: str, args: str) -> str | None:
    """Which of nvidia-smi -L's lines a grep of its listing keeps whatever the GPUs: ``"all"``,
    ``"gpus"`` (every GPU's line; MIG devices' lines may be dropped), or None where its pattern
    may drop a GPU's line (a model's name, a regular expression, an option not read here)."""
    try:
        words = shlex.split(args)
    except ValueError:
        return None
    flags = {"E"} if filter_ == "egrep" else set()
    patterns: list[str] = []
    positional: list[str] = []
    taken = iter(words)
    for word in taken:
        if word in ("-e", "--regexp"):
            patterns.append(next(taken, ""))
        elif word in _GREP_MATCH_OPTIONS:
            flags.add(_GREP_MATCH_OPTIONS[word])
        elif word.startswith("-") and len(word) > 1:
            if not set(word[1:]) <= set(_GREP_MATCH_OPTIONS.values()):
                return None  # another option (-c, -o, -m ...): not read here
            flags.update(word[1:])
        else:
            positional.append(word)
    # (the pattern where no -e gives one, then no file: a file named is read in place of the
    # listing)
    if not patterns and positional:
        patterns.append(positional.pop(0))
    if not patterns or positional:
        return None
    # (a line matches any pattern, and any alternative of an extended expression's "GPU|MIG",
    # a basic one's "GPU\|MIG")
    split = "\n" if "F" in flags else "|" if "E" in flags else "\\|"
    alternatives = [a for p in patterns for a in p.split(split)]
    if "F" not in flags and any(_REGEX_SPECIAL & set(a) for a in alternatives):
        return None

    def fold(x: str) -> str:
        return x.lower() if "i" in flags else x

    def in_every(parts: tuple[str, ...]) -> bool:
        return any(fold(a) in fold(part) for a in alternatives for part in parts)

    if "v" in flags:
        # (a MIG device's own words dropped: "grep -v MIG" keeps every GPU's line)
        mig_only = all(
            a and "mig" in a.lower() and any(fold(a) in fold(p) for p in _SMI_MIG_LINE_PARTS)
            for a in alternatives
        )
        return "gpus" if mig_only else None
    if not in_every(_SMI_GPU_LINE_PARTS):
        return None
    return "all" if in_every(_SMI_MIG_LINE_PARTS) else "gpus"


def _smi_list_cut(text: str, gpus: list[nvidia_smi.ListedGpu]) -> str:
    """What a filter the listings were piped through left out, as said in the inventory's note:
    empty where one listing of the file is whole (not piped, a head / tail that printed fewer
    lines than it keeps, a grep that keeps every line); else what the whole-GPU filter (a grep
    keeping every GPU's line) or the longest cut listing leaves out."""
    rows = sorted(gpus + [a for g in gpus for a in g.seen_again], key=lambda g: g.line)
    listings: dict[int, list[nvidia_smi.ListedGpu]] = {}
    for g in rows:
        listings.setdefault(g.listing, []).append(g)
    lines = text.splitlines()
    gpus_kept, cut = "", ""
    longest = 0
    above = 0  # the line the listing before ends on: a command above it is that one's
    for listing in listings.values():
        # its own command: the last nvidia-smi -L above it, below the listing before
        command = next(
            (
                lines[at]
                for at in range(listing[0].line - 2, above - 1, -1)
                if _SMI_LIST_COMMAND_RE.search(lines[at])
            ),
            "",
        )
        above = listing[-1].line
        pipe = _SMI_LIST_PIPE_RE.search(command)
        if pipe is None:
            # a listing not piped is the host's, whole, where it holds every GPU the file lists
            # (their UUIDs); one that does not is a job's view (a container's "docker run
            # --gpus device=5 ... nvidia-smi -L" lists that one GPU as its GPU 0), which says
            # nothing of what a cut listing left out
            if {g.uuid for g in gpus} <= {g.uuid for g in listing}:
                return ""
            continue
        shown = f"'{pipe.group(0).strip()}'"
        if pipe.group("filter") in ("grep", "egrep"):
            keeps = _grep_keeps(pipe.group("filter"), pipe.group("args"))
            if keeps == "all":
                return ""
            if keeps == "gpus":
                gpus_kept = (
                    f"; the listing was filtered ({shown}), which keeps every GPU's line: MIG "
                    "devices' lines, if any, may not be shown"
                )
                continue
            said = (
                f"; the listing was filtered ({shown}): GPUs the filter dropped are not shown, "
                "so this is not the host's count"
            )
        else:
            count = _LINE_COUNT_RE.search(pipe.group("args"))
            keep = int(count.group("n")) if count else 10
            listed = sum(1 + len(g.mig) for g in listing)  # a GPU's line and its MIG devices'
            if listed < keep:
                return ""  # fewer lines than the filter keeps: nothing was cut
            said = (
                f"; the listing was cut ({shown} keeps its first {keep} lines): GPUs after GPU "
                f"{listing[-1].gpu}, if any, are not shown, so this is not the host's count"
                if pipe.group("filter") == "head"
                else f"; the listing was cut ({shown} keeps its last {keep} lines): GPUs before "
                f"GPU {listing[0].gpu}, and MIG devices of the first listed GPU, may not be "
                "shown, so this is not the host's count"
            )
        if len(listing) > longest:
            longest, cut = len(listing), said
    return gpus_kept or cut


def _smi_list_numbered(gpus: list[nvidia_smi.ListedGpu]) -> str:
    """The listed GPUs' indexes; where a later listing numbers other GPUs (their UUIDs) from an
    index an earlier one used, each listing's apart: nvidia-smi numbers the GPUs a process can
    see from 0, so a container's or a job's listing (docker --gpus, CUDA_VISIBLE_DEVICES) calls
    the host's GPU 5 its GPU 0, and another host's listing (``for h in ...; do ssh $h nvidia-smi
    -L``) starts again at its own GPU 0: "GPU 0, 1, 0" would count no one set of GPUs; which of
    the two a listing is, the copy rarely says, so the note names both."""
    indexes = [g.gpu for g in gpus]
    if len(set(indexes)) == len(indexes):
        return "GPU " + ", ".join(str(i) for i in indexes)
    by_listing: dict[int, list[nvidia_smi.ListedGpu]] = {}
    for g in gpus:
        by_listing.setdefault(g.listing, []).append(g)
    return "by their UUIDs, in " + "; ".join(
        "GPU "
        + ", ".join(str(g.gpu) for g in listed)
        + f" (the listing at line {listed[0].line}"
        + (
            ""
            if at == 0
            else ": GPUs the listings above did not hold, numbered from its own GPU 0: another "
            "listing, another host's (a loop over hosts) or a restricted view of one host's (a "
            "container's or a job's), so not more GPUs of one host in index order"
        )
        + ")"
        for at, listed in enumerate(by_listing.values())
    )


def _smi_list_gaps(gpus: list[nvidia_smi.ListedGpu]) -> str:
    """The indexes one listing skips, said: nvidia-smi numbers the GPUs NVML enumerates from 0
    with no gap (a GPU it cannot open still takes its index, on an "Unable to determine the
    device handle" line), so a missing index is a line the copy left out or a GPU to check;
    empty where the file holds several listings (each its own numbering) or skips none."""
    if len({g.listing for g in gpus}) != 1:
        return ""
    missing = sorted(set(range(max(g.gpu for g in gpus) + 1)) - {g.gpu for g in gpus})
    if not missing:
        return ""
    return (
        f"; GPU {', '.join(str(i) for i in missing)} not listed (nvidia-smi numbers its GPUs "
        "from 0 without a gap): a line this copy left out, or a GPU to check"
    )


def _smi_list(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """nvidia-smi -L: a note of the GPUs listed and the MIG devices each is split into (an
    inventory: nothing in it is judged; a listing cut by head / tail or filtered by grep is
    said to be one)."""
    gpus = nvidia_smi.parse_list(text)
    models = sorted({g.name for g in gpus})
    # a GPU NVML could not open prints its answer in place of its row ("Unable to determine the
    # device handle for gpu 0000:3B:00.0: Unknown Error"): a failure, as in a log
    for event in logs.nvidia_tool_failures(text):
        _add_failure(out, source, event)
    notes = [
        ParseWarning(
            line=gpus[0].line,
            message=f"nvidia-smi -L: {len(gpus)} GPU(s) ({', '.join(models)}): "
            + _smi_list_numbered(gpus)
            + _smi_list_cut(text, gpus)
            + _smi_list_gaps(gpus),
            skipped=False,
        )
    ]
    for again in sorted(
        {a.line: a for g in gpus for a in g.seen_again[:1]}.values(), key=lambda a: a.line
    )[:1]:
        later = [a for g in gpus for a in g.seen_again]
        # (a later listing that holds GPUs the one above it did not: the fuller one, a cut
        # listing's above it, "nvidia-smi -L | head -n2" then "nvidia-smi -L")
        more = [g for g in gpus if g.listing == again.listing]
        if more:
            notes.append(
                ParseWarning(
                    line=again.line,
                    message=f"nvidia-smi -L again: the {len({a.uuid for a in later})} GPU(s) "
                    f"listed above (their UUIDs) and {len(more)} more it did not list: GPU "
                    + ", ".join(str(g.gpu) for g in more),
                    skipped=False,
                )
            )
            continue
        notes.append(
            ParseWarning(
                line=again.line,
                message=f"nvidia-smi -L again: the same {len({a.uuid for a in later})} GPU(s) "
                "(their UUIDs), not more; as that listing sees them (a job's view): "
                + "; ".join(
                    f"GPU {a.gpu}"
                    + (f" {len(a.mig)} MIG device(s) ({', '.join(a.mig)})" if a.mig else "")
                    for a in later
                ),
                skipped=False,
            )
        )
    for g in gpus:
        if g.mig:
            out.mig_gpus.append(
                {"source": source, "line": g.line, "gpu": g.gpu, "name": g.name, "mig": g.mig}
            )
            kinds = sorted(set(g.mig))
            notes.append(
                ParseWarning(
                    line=g.line,
                    message=f"nvidia-smi -L: GPU {g.gpu} is in MIG mode, split into "
                    f"{len(g.mig)} MIG device(s) ("
                    + ", ".join(f"{g.mig.count(k)} x {k}" for k in kinds)
                    + "): a job sees each as its own device, not the whole GPU",
                    skipped=False,
                )
            )
    return notes


def _npu_smi_refused(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """npu-smi's usage after "Command or option is not found.": the command it was given is not
    one of its own (its topology is "npu-smi info -t topo"), so nothing was answered."""
    at = text.count("\n", 0, text.find("Command or option is not found")) + 1
    asked = next(
        (
            m.group("args")
            for m in _NPU_SMI_ASKED_RE.finditer(text[: text.find("Command or option")])
        ),
        None,
    )
    return [
        ParseWarning(
            line=at,
            message="npu-smi refused the command"
            + (f" 'npu-smi {asked}'" if asked else "")
            + " ('Command or option is not found.') and printed its usage: nothing was answered"
            + (
                "; its topology query is 'npu-smi info -t topo'"
                if asked and asked.split()[:1] == ["topo"]
                else ""
            ),
            skipped=False,
        )
    ]


def _npu_smi_version(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """npu-smi -v: the tool's own version (it is installed with the driver, Ascend's npu-smi
    reference), said as a note; nothing of any device's health is in it."""
    said = [
        (text.count("\n", 0, m.start()) + 1, m.group("v") or m.group("below"))
        for m in _NPU_SMI_VERSION_RE.finditer(text)
    ]
    if not said:
        raise ParseError("npu-smi version: no version after the label", line=1)
    return [
        ParseWarning(
            line=at,
            message=f"npu-smi -v: npu-smi version {version} (the tool's version only: no device "
            "is listed, no health read)",
            skipped=False,
        )
        for at, version in said
    ]


def _mig_instances(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """nvidia-smi mig -lgi: a note per GPU of the GPU instances created on it."""
    return [
        ParseWarning(
            line=rows[0][0],
            message=f"nvidia-smi mig -lgi: GPU {gpu} holds {len(rows)} GPU instance(s) ("
            + ", ".join(
                f"{sum(1 for r in rows if r[1] == kind)} x {kind}"
                for kind in sorted({r[1] for r in rows})
            )
            + f"; instance ids {', '.join(str(r[2]) for r in rows)}): each is its own device to "
            "a job, not the whole GPU",
            skipped=False,
        )
        for gpu, rows in nvidia_smi.parse_mig_instances(text).items()
    ]


_DEVINFO_OPEN_FAILED_RE = re.compile(r"^[ \t]*Failed to open device[ \t]*$", re.M)


def _ibv_devices(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """ibv_devices: a note of the RDMA devices listed; one whose node GUID is 0 is said (a
    virtual function whose GUID was never set has no InfiniBand identity to be reached by)."""
    if "libibverbs" not in text and (none := rdma.no_rdma_device(text)) is not None:
        # the list's header with no device under it, beside what says why (rdma_rxe loaded and
        # rxe_cfg showing no rxe device on the interface): no RDMA device, said as a failure
        # (libibverbs' own warning beside it, a provider it could not load, is read as the
        # failure by the log reader, with its reason)
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="rdma_no_device",
                line=none[0],
                message="ibv_devices: no device listed",
                library="libibverbs",
                exception_type=none[1],
            ),
        )
        return rdma.rxe_cfg_notes(text)
    rows = rdma.parse_ibv_devices(text)
    zero = [dev for _, dev, guid in rows if set(guid) == {"0"}]
    # ibv_devinfo's answer when ibv_open_device returned no context (rdma-core's
    # libibverbs/examples/devinfo.c, print_hca_cap): the device is listed, its provider or
    # kernel driver did not open it
    # (where ibv_devinfo printed other devices' blocks, the rdma reading says it: not here)
    failed = list(_DEVINFO_OPEN_FAILED_RE.finditer(text)) if "hca_id:" not in text else []
    refused = (
        [
            ParseWarning(
                line=text.count("\n", 0, failed[0].start()) + 1,
                message=f"ibv_devinfo: Failed to open device ({len(failed)} time(s); "
                + (
                    f"{rows[0][1]}, the one device listed"
                    if len(rows) == 1
                    else f"{len(rows)} devices listed, which of them it does not name"
                )
                + "): libibverbs lists the device, but its provider or kernel driver did not open "
                "it, so no RDMA program can use it",
                skipped=False,
            )
        ]
        if failed
        else []
    )
    return [
        *refused,
        ParseWarning(
            line=rows[0][0],
            message=f"ibv_devices: {len(rows)} RDMA device(s) listed ("
            + ", ".join(dev for _, dev, _ in rows[:12])
            + (" ..." if len(rows) > 12 else "")
            + ")"
            + (
                f"; node GUID 0 on {', '.join(zero)}: no GUID was assigned (an SR-IOV virtual "
                "function's is set by the host, ip link set DEV vf N node_guid ...); on an "
                "InfiniBand port that leaves it unaddressable (RoCE addresses by GID: "
                "ibv_devinfo's link_layer says which)"
                if zero
                else ""
            ),
            skipped=False,
        ),
    ]


def _mst_status_plain(text: str, rows: list[tuple[int, dict[str, str]]]) -> list[ParseWarning]:
    """Plain mst status: the devices, their model (by the device id in the MST name) and PCI
    address; an inventory, nothing judged (plain mst status names no RDMA device, interface or
    NUMA node: mst status -v does)."""
    # one NIC may be listed twice, as its pciconf and its pci_cr device: counted once by address
    nics = {r.get("pci", r["mst"]) for _, r in rows}
    notes = [
        ParseWarning(
            line=rows[0][0],
            message=f"mst status: {len(nics)} device(s): "
            + "; ".join(
                f"{r['mst']} ({r['type']}) at {r.get('pci', 'no PCI address shown')} (line {no})"
                for no, r in rows[:16]
            )
            + (f" and {len(rows) - 16} more" if len(rows) > 16 else "")
            + " (an inventory: plain mst status names no RDMA device, interface or NUMA node; "
            "mst status -v does)",
            skipped=False,
        )
    ]
    if (at := text.find("MST PCI module is not loaded")) >= 0:
        # mst start unloads the PCI module when the configuration module reaches every device
        # ("Unloading MST PCI module (unused) - Success"): then its absence is mst's own choice
        unused = text.find("Unloading MST PCI module (unused)")
        notes.append(
            ParseWarning(
                line=text.count("\n", 0, at) + 1,
                message=(
                    f"mst status: the MST PCI module is not loaded: mst start unloaded it as "
                    f"unused (line {text.count(chr(10), 0, unused) + 1}), the devices are reached "
                    "through the PCI configuration module (pciconf): nothing to mend"
                    if unused >= 0
                    else "mst status: the MST PCI module is not loaded (mst start loads it)"
                ),
                skipped=False,
            )
        )
    if (at := text.find('-W- Missing "lsusb" command')) >= 0:
        notes.append(
            ParseWarning(
                line=text.count("\n", 0, at) + 1,
                message="mst start: lsusb is missing, so MST skipped looking for MTUSB devices "
                "(USB programming adapters, as its warning says): it does not touch the PCI "
                "devices listed, benign",
                skipped=False,
            )
        )
    return notes


def _line_of(text: str, words: str) -> int | None:
    """The 1-based line where ``words`` first stand in ``text``; None where they do not."""
    at = text.find(words)
    return text.count("\n", 0, at) + 1 if at >= 0 else None


def _mst_modules_not_loaded(text: str, source: str, out: EvidenceFacts) -> list[ParseWarning]:
    """mst status whose MST modules are not loaded and that lists no /dev/mst device. NVIDIA
    MFT's documentation ("Running mst in an Environment without a Kernel") shows mst working
    so, its devices listed under "PCI Devices:" by PCI address and its tools given that address
    (flint -d 08:00.0 q): a note where it lists some. Where it lists none, mst reaches no device:
    an ``mst_not_loaded`` failure naming the module lines, and mst start's own lines above them
    where the copy holds them ("mst start: ... After successfully completion of this command the
    MST driver is ready to work", the same documentation's mst synopsis)."""
    said = rdma.MST_MODULE_NOT_LOADED_RE.finditer(text)
    lines = [text.count("\n", 0, m.start()) + 1 for m in said]
    which = (
        "the MST PCI and PCI configuration modules"
        if "MST PCI configuration module is not loaded" in text
        and "MST PCI module is not loaded" in text
        else "the MST PCI configuration module"
        if "MST PCI configuration module is not loaded" in text
        else "the MST PCI module"
    )
    at = f"line {lines[0]}" if len(lines) == 1 else f"lines {lines[0]}-{lines[-1]}"
    after = text[text.find("MST modules:") :]
    addresses = rdma.MST_PCI_ADDRESS_RE.findall(after)
    if addresses:
        return [
            ParseWarning(
                line=lines[0],
                message=f"mst status: {which} not loaded ({at}): mst runs without its kernel "
                f"modules and names the {len(addresses)} device(s) by PCI address ("
                + ", ".join(a.strip() for a in addresses[:8])
                + "), which the MFT tools take as their -d; nothing to mend",
                skipped=False,
            )
        ]
    start = text.find("Starting MST (Mellanox Software Tools) driver set")
    loaded = [
        text.count("\n", 0, m.start()) + 1
        for m in re.finditer(r"^[^\n]{0,40}Loading MST PCI[^\n]{0,40}- Success", text, re.M)
    ]
    _add_failure(
        out,
        source,
        logs.LogEvent(
            kind="mst_not_loaded",
            line=lines[0],
            message=f"mst status: {which} not loaded ({at}), no device listed",
            library="mst",
            exception_type=f"mst status: {which} not loaded ({at}) and no device listed "
            "under them"
            + (
                f", though mst start (line {text.count(chr(10), 0, start) + 1}) reported "
                f"loading them (line{'s' if len(loaded) > 1 else ''} "
                + ", ".join(map(str, loaded))
                + ")"
                + (
                    f" and unloaded only the PCI module as unused (line {unused})"
                    if (unused := _line_of(text, "Unloading MST PCI module (unused)"))
                    else ""
                )
                if start >= 0 and loaded
                else ""
            )
            + ": the mst driver is not loaded, so the MFT tools (flint, mlxconfig, mlxlink) "
            "reach no NIC through /dev/mst",
        ),
    )
    return []


def _mst_status(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """mst status -v: a note of the NICs listed, their RDMA devices, interfaces and NUMA nodes
    (which NIC sits near which GPU is read against nvidia-smi topo -m)."""
    if not rdma.MST_MODULE_NOT_LOADED_RE.search(text):
        rows = rdma.parse_mst_status(text)
    else:
        try:
            rows = rdma.parse_mst_status(text)
        except ParseError:
            return _mst_modules_not_loaded(text, source, out)
    if all("rdma" not in r for _, r in rows):
        return _mst_status_plain(text, rows)
    kinds = sorted({r["type"] for _, r in rows})
    by_numa: dict[str, list[str]] = {}
    for _, r in rows:
        by_numa.setdefault(r.get("numa", "?"), []).append(r["rdma"])
    notes = [
        ParseWarning(
            line=rows[0][0],
            message=f"mst status -v: {len(rows)} device(s) ({', '.join(kinds)}); by NUMA node: "
            + "; ".join(f"{n}: {', '.join(devs)}" for n, devs in sorted(by_numa.items())),
            skipped=False,
        )
    ]
    if "MST PCI module is not loaded" in text:
        notes.append(
            ParseWarning(
                line=text.count("\n", 0, text.find("MST PCI module is not loaded")) + 1,
                message="mst status: the MST PCI module is not loaded (mst start loads it)",
                skipped=False,
            )
        )
    return notes


def _numactl(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """numactl -H: a note of the NUMA nodes, their CPUs and memory, and the distance range
    (nothing in it names a GPU or NIC, so placement is not judged); a node with CPUs and 0 MB
    of memory is a ``numa_node_memoryless`` failure (``numa.memoryless``)."""
    nodes = numa.parse(text)
    said = []
    count = nodes.available or nodes.table_nodes or len(nodes.cpus) or len(nodes.distances)
    said.append(f"{count} NUMA node(s)")
    if nodes.table_nodes > len(nodes.distances) > 0:
        said.append(
            f"the distance table's rows stop after {len(nodes.distances)} of its "
            f"{nodes.table_nodes} nodes (the copy is cut)"
        )
    if nodes.cpus:
        memory_only = [n for n, c in nodes.cpus.items() if c == 0]
        said.append(
            "CPUs per node "
            + ", ".join(f"{n}: {c}" for n, c in sorted(nodes.cpus.items())[:8])
            + (" ..." if len(nodes.cpus) > 8 else "")
            + (f" (node(s) {', '.join(map(str, memory_only))} memory only)" if memory_only else "")
        )
    if nodes.size_mb:
        low = [
            n
            for n, size in nodes.size_mb.items()
            if size and nodes.free_mb.get(n, size) < size / 10
        ]
        said.append(
            f"{sum(nodes.size_mb.values())} MB of memory"
            + (f", under 10 % free on node(s) {', '.join(map(str, sorted(low)))}" if low else "")
        )
    if memoryless := numa.memoryless(nodes):
        with_memory = sorted(n for n, size in nodes.size_mb.items() if size)
        cpus_without = sum(nodes.cpus.get(n, 0) for n in memoryless)
        said.append(
            f"node(s) {', '.join(map(str, memoryless))} have CPUs and 0 MB of memory "
            f"({cpus_without} of {sum(nodes.cpus.values())} CPUs without local memory)"
        )
        for n in memoryless:
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="numa_node_memoryless",
                    line=nodes.size_line.get(n, nodes.line or 1),
                    message=f"NUMA node {n}",
                    library="numactl",
                    exception_type=f"node {n}: {nodes.cpus.get(n, 0)} CPUs, size 0 MB: every "
                    "allocation of its CPUs comes from another node (memory only on node(s) "
                    + ", ".join(f"{m} ({nodes.size_mb[m]} MB)" for m in with_memory[:8])
                    + ")",
                ),
            )
    far = sorted({d for row in nodes.distances.values() for d in row if d != 10})
    if far:
        said.append(
            f"distances {far[0]} to {far[-1]}"
            + ("; 255 marks nodes the firmware says cannot reach each other" if 255 in far else "")
        )
    return [
        ParseWarning(
            line=nodes.line or 1,
            message="numactl -H: " + "; ".join(said) + " (which node each GPU and NIC sits on "
            "is not in it: nvidia-smi topo -m or lspci -vv says)",
            skipped=False,
        )
    ]


def _retransmits_said(run: iperf.Iperf3Run, share: float) -> str:
    """A ``tcp_retransmits_heavy`` event's text: the retransmits, over what time and rate, and
    their share of the segments (the summary's, or the intervals' where the copy has none)."""
    retransmits, seconds, bps = iperf.retransmit_figures(run) or (0, 0.0, 0.0)
    return (
        f"{retransmits} TCP retransmits in {seconds:g} s at {_bitrate(bps)}"
        + (" (the intervals': the copy ends before the summary)" if run.retransmits is None else "")
        + f": at least {100 * share:.2g} % of its segments"
    )


def _buffer_losses_said(i: netif.Interface, source: str, out: EvidenceFacts) -> str:
    """What iproute2's ``-s -s`` counters of packets lost for want of buffers say against the
    packets received: a ``nic_rx_discards`` where past ``RX_DISCARD_MIN`` and
    ``RX_DISCARD_SHARE`` (as ethtool's rx_discards_phy), else their share said in the note."""
    # Linux include/uapi/linux/if_link.h rtnl_link_stats64: rx_missed_errors counts packets the
    # device dropped for lack of buffer space (the host not keeping up with the receive rate),
    # rx_over_errors (iproute2's "overrun") packets that did not fit the buffers the host
    # provided, rx_fifo_errors the same used interchangeably; drivers may set them from one
    # register (mlx4_en sets all three from RdropOvflw), so the largest is the count, not their
    # sum. rx_packets counts what reached the host, so the missed are added to weigh them.
    counters = {k: i.errors[k] for k in ("rx_missed", "rx_overrun", "rx_fifo") if i.errors.get(k)}
    if not counters or not i.rx_packets:
        return ""
    counter, lost = max(counters.items(), key=lambda kv: kv[1])
    share = lost / (i.rx_packets + lost)
    others = ", ".join(f"{k} {v}" for k, v in counters.items() if k != counter)
    if lost >= RX_DISCARD_MIN and share >= RX_DISCARD_SHARE:
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="nic_rx_discards",
                line=i.error_lines.get(counter, i.line),
                message=f"{counter} {lost} of {i.rx_packets} packets received"
                + (f" ({others})" if others else ""),
                host=i.host,
                library="ip",
                exception_type=f"{i.name}: the interface lost {100 * share:.2g} % of the "
                "packets that came to it for want of receive buffers since it came up (the host "
                "did not take them in as fast as they came)",
            ),
        )
        return ""
    return (
        f" ({counter} {100 * share:.2g} % of the {i.rx_packets} packets received: under the "
        f"{100 * RX_DISCARD_SHARE:g} % at which a port's losses for want of buffers are warned)"
    )


def _netif(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """ip link / ip addr / ifconfig: a note of the interfaces (state, link, MTU, addresses);
    an interface that is up with no carrier is a ``link_carrier_lost`` failure (a virtual one's,
    a container's or a tunnel's, is no link), a data-path NIC's port left administratively down
    (``netif.Interface.devlink_port``) a ``nic_port_admin_down`` one; error and drop counters
    that are not 0 are said."""
    interfaces = netif.parse(text)
    said: list[str] = []
    counted: list[str] = []
    # (a card's other port up with its link: a dual-port NIC cabled on one port leaves its
    # second never configured, as ip prints it, and the job's traffic runs over the port that
    # is up; such a port is said, not judged; a port whose card has no port up is judged)
    cards_up = {f"{i.card}": i.name for i in interfaces if i.card is not None and i.link_up}
    for i in interfaces:
        sibling_up = cards_up.get(f"{i.card}") if i.card is not None else None
        state = (
            "up, no carrier" + (f" ({i.reason})" if i.reason else "")
            if i.no_carrier
            else "administratively down"
            + (
                f" (the card's other port {sibling_up} is up: a port not in use, not judged)"
                if sibling_up and i.devlink_port
                else ""
            )
            if i.admin_up is False
            else "state not shown"
            if i.admin_up is None and i.operstate is None
            else (
                f"state {i.operstate}"
                if i.operstate and i.operstate != "UP" and not i.flags
                else "up"
                + (
                    ", link up"
                    if "LOWER_UP" in i.flags or "RUNNING" in i.flags or i.status == "active"
                    else ""
                )
            )
        )
        what = ", ".join(
            x
            for x in (
                i.link_type if i.link_type not in (None, "ether", "Ethernet") else None,
                f"mtu {i.mtu}" if i.mtu else None,
            )
            if x
        )
        said.append(
            (f"{i.host}: " if i.host else "")
            + f"{i.name}"
            + (f" ({what})" if what else "")
            + f": {state}"
            + (f"; {', '.join(i.addresses[:3])}" if i.addresses else "")
        )
        if lost := {k: v for k, v in i.errors.items() if v}:
            counted.append(
                (f"{i.host}: " if i.host else "")
                + f"{i.name} "
                + ", ".join(f"{k} {v}" for k, v in lost.items())
                + _buffer_losses_said(i, source, out)
            )
        if i.no_carrier and not i.virtual:
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="link_carrier_lost",
                    line=i.line,
                    message=i.name,
                    host=i.host,
                    library=i.tool.split()[0],
                    exception_type=f"{i.name}: {i.tool} shows it up with no carrier"
                    + (f" ({i.reason})" if i.reason else "")
                    + (f" ({i.media})" if i.media and not i.reason else ""),
                ),
            )
        if i.rx_packets == 0 and i.tx_packets and i.admin_up and not i.no_carrier and not i.virtual:
            # (an interface up with its link that sent packets and received none in its
            # counters: ARP or IPoIB neighbour requests went out and no answer came back: no partner
            # on its subnet answering, or, on IPoIB, the partition or multicast group not joined.
            # A bridge or container interface is left out: one with nothing behind it sends
            # and hears nothing back by design)
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="netif_nothing_received",
                    line=i.packet_lines.get("rx", i.line),
                    message=i.name,
                    host=i.host,
                    library=i.tool.split()[0],
                    exception_type=f"{i.name}: RX packets 0 (line "
                    f"{i.packet_lines.get('rx', i.line)}) against TX packets {i.tx_packets} "
                    f"(line {i.packet_lines.get('tx', i.line)}) in its counters (kept from the "
                    "interface's registration, not reset by down/up)",
                ),
            )
        if i.admin_up is False and i.devlink_port and not sibling_up:
            # (a data-path NIC's port left down, flags without UP: iproute2's "qdisc noop state
            # DOWN"; an onboard or plain port left down stays said only, as before)
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="nic_port_admin_down",
                    line=i.line,
                    message=i.name,
                    host=i.host,
                    library=i.tool.split()[0],
                    exception_type=f"{i.name}: {i.tool} shows it administratively down "
                    f"(<{','.join(i.flags)}>, no UP"
                    + (f", state {i.operstate}" if i.operstate else "")
                    + ")"
                    + (f", MAC {i.mac}" if i.mac else ""),
                ),
            )
    for i, peers in netif.down_where_peers_up(interfaces):
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="link_down_where_peers_up",
                line=i.line,
                message=i.name,
                host=i.host,
                library=i.tool.split()[0],
                exception_type=f"{i.name} down ({i.tool}: {i.operstate or 'no carrier'}) while "
                "it is up on "
                + ", ".join(peers[:4])
                + (f" and {len(peers) - 4} more" if len(peers) > 4 else ""),
            ),
        )
    notes = [
        ParseWarning(
            line=interfaces[0].line,
            message=f"{interfaces[0].tool}: {len(interfaces)} interface(s): "
            + "; ".join(said[:16])
            + (f"; ... {len(said) - 16} more" if len(said) > 16 else ""),
            skipped=False,
        )
    ]
    if counted:
        notes.append(
            ParseWarning(
                line=interfaces[0].line,
                message="error or drop counters not 0 (since the interface came up): "
                + "; ".join(counted[:8]),
                skipped=False,
            )
        )
    return notes


def _nccl_topo(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """NCCL's topology dump (NCCL_TOPO_DUMP_FILE): a note of the GPUs (compute capability, PCIe
    link, NVLinks) and NICs (speed, GPU Direct RDMA) NCCL detected; what NCCL saw, not judged."""
    topo = nccl_topo.parse(text)
    said: list[str] = []
    if topo.gpus:
        parts = []
        for g in topo.gpus[:16]:
            links = sum(g.nvlinks.values())
            link = "xGMI" if g.gcn else "NVLink"
            parts.append(
                f"GPU {g.dev}"
                + (f" (rank {g.rank})" if g.rank is not None else "")
                + (f" gcn {g.gcn}" if g.gcn else f" sm {g.sm}" if g.sm is not None else "")
                + (f" {g.busid}" if g.busid else "")
                + (f" PCIe {g.link_speed} x{g.link_width}" if g.link_speed and g.link_width else "")
                + (
                    f", {links} {link}(s) to {len(g.nvlinks)} peer(s)"
                    + (f" ({g.nvswitch_links} to NVSwitches)" if g.nvswitch_links else "")
                    if links
                    else f", no {link} in the copy"
                )
                + (", GPU Direct RDMA off" if g.gdr is False else "")
            )
        said.append(f"{len(topo.gpus)} GPU(s): " + "; ".join(parts))
    if topo.nets:
        said.append(
            f"{len(topo.nets)} NIC port(s): "
            + "; ".join(
                f"{n.name}"
                + (f" {n.speed_mbps / 1000:g} Gb/s" if n.speed_mbps else "")
                + (f" port {n.port}" if n.port is not None else "")
                + (" GPU Direct RDMA" if n.gdr else " no GPU Direct RDMA" if n.gdr is False else "")
                for n in topo.nets[:16]
            )
        )
    if topo.cut:
        said.append("the copy is cut: only the part of the tree it holds is read")
    first = min([g.line for g in topo.gpus] + [n.line for n in topo.nets])
    return [
        ParseWarning(
            line=first,
            message="NCCL topology dump: " + "; ".join(said) + " (what NCCL detected, not judged)",
            skipped=False,
        )
    ]


# fi_info asked for one endpoint type (-t FI_EP_DGRAM, --ep_type ...): what it lists is filtered
_FI_INFO_TYPE_FILTER_RE = re.compile(
    r"\bfi_info\b[^\n]*?\s(?:-t|--ep_type)(?:\s+|=)FI_EP_(?!RDM)\w+"
)


def _libfabric(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """fi_info and the fabtests' ping-pong: a note of the providers and endpoint types libfabric
    offers (an EFA provider without its RDM endpoint is said: aws-ofi-nccl needs it) and of what
    the ping-pong measured (messages went both ways)."""
    fabric = libfabric.parse(text)
    notes: list[ParseWarning] = []
    if fabric.endpoints:
        offered: dict[str, list[str]] = {}
        for e in fabric.endpoints:
            offered.setdefault(e.provider, []).append(
                " ".join(x for x in (e.domain, e.type, e.protocol) if x) or "?"
            )
        efa = [e for e in fabric.endpoints if e.provider.split(";")[0] == "efa"]
        rdm = [e for e in efa if e.type == "FI_EP_RDM" and e.provider == "efa"]
        notes.append(
            ParseWarning(
                line=fabric.endpoints[0].line,
                message="fi_info: "
                + "; ".join(f"provider {p}: {', '.join(v[:4])}" for p, v in offered.items())
                + (
                    "; the EFA provider offers its RDM endpoint (SRD), the one NCCL's "
                    "aws-ofi-nccl plugin sends over"
                    if rdm
                    else "; this listing shows no RDM endpoint of the EFA provider: it was asked "
                    "for other endpoint types only (fi_info -t), so whether EFA offers one is not "
                    "in it"
                    if efa and _FI_INFO_TYPE_FILTER_RE.search(text)
                    else "; the EFA provider offers no RDM endpoint of its own: NCCL's "
                    "aws-ofi-nccl plugin cannot send over it"
                    if efa
                    else ""
                ),
                skipped=False,
            )
        )
    if fabric.pingpong_line:
        rows = fabric.pingpong
        notes.append(
            ParseWarning(
                line=fabric.pingpong_line,
                message="fabtests' ping-pong"
                + (f" ({fabric.command})" if fabric.command else "")
                + (
                    f": {len(rows)} size(s) from {rows[0].size_bytes} B to {rows[-1].size_bytes} B "
                    + (
                        "went both ways"
                        if not any(r.unacked for r in rows)
                        else "ran, with sent and acknowledged messages apart at "
                        + ", ".join(f"{r.size_bytes} B ({r.unacked})" for r in rows if r.unacked)
                        + " (messages not answered)"
                    )
                    + f"; at most {max(r.mb_s for r in rows):g} MB/s, "
                    f"{min(r.usec_per_xfer for r in rows):g} us a transfer at best"
                    if rows
                    else ": its header and no row (the test stopped, or the copy was cut)"
                ),
                skipped=not rows,
            )
        )
    return notes


def _pingpong(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """libibverbs' ping-pongs, ucx_perftest and qperf: a note of what each measured; a
    ping-pong that failed a completion or hung after exchanging its addresses is a
    ``transfer_stalled`` failure (its RDMA traffic did not get through); one that failed before
    any RDMA traffic (its TCP exchange, its device or QP) is ``rdma_test_setup_failed``, and so
    is a qperf RDMA test's error there (any later error of one is ``transfer_stalled``)."""
    found = pingpong.parse(text)
    notes: list[ParseWarning] = []
    for p in found.pingpongs:
        said = (
            f"local {p.local_gid or '?'}, remote {p.remote_gid or '?'}"
            if p.local_gid or p.remote_gid
            else ""
        )
        if p.mbit_s is not None:
            result = f"{p.mbit_s:g} Mbit/s" + (
                f", {p.usec_per_iter:g} us an iteration" if p.usec_per_iter is not None else ""
            )
        elif p.error:
            result = f"failed: {p.error}"
        elif p.hang:
            result = "hung after the two sides exchanged their addresses (as the copy says)"
        else:
            result = "no result in the copy (it ends after the addresses: the run hung, or the copy was cut)"
        notes.append(
            ParseWarning(
                line=p.line,
                message="ibverbs ping-pong: " + (f"{said}; " if said else "") + result,
                skipped=p.mbit_s is None and not p.error and not p.hang,
            )
        )
        if p.error or p.hang:
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="rdma_test_setup_failed" if p.setup_failed else "transfer_stalled",
                    line=p.error_line or p.line,
                    message="ibverbs ping-pong"
                    + (f" {p.local_gid} to {p.remote_gid}" if p.local_gid and p.remote_gid else ""),
                    library="libibverbs",
                    exception_type=p.error
                    or "it exchanged its addresses over TCP, then its RDMA traffic never "
                    "completed (it hung)",
                ),
            )
    for u in found.ucx:
        notes.append(
            ParseWarning(
                line=u.line,
                message=f"ucx_perftest {u.test}: {u.iterations} iterations, {u.bandwidth_mb_s:g} "
                f"MB/s overall, {u.overhead_usec:g} us overhead, {u.rate_msg_s:g} messages/s "
                "(judge the bandwidth against the link's line rate)",
                skipped=False,
            )
        )
    for r in found.ucx_runs:
        if found.ucx and not r.warnings:
            continue  # (its Final row's note says the run)
        test = f"ucx_perftest {r.test or '(test not shown)'}" + (
            f" to {r.server}" if r.server else ""
        )
        said = test + (f" on {r.host}" if r.host else "")
        warned = [w for w in r.warnings if w.level == "WARN"]
        failed = [w for w in r.warnings if w.level != "WARN"]
        # (a table heading with no row under it: the copy ends, or the run stopped, before
        # its first report; no bandwidth is said)
        rowless = not found.ucx and r.table_line is not None
        notes.append(
            ParseWarning(
                line=r.line,
                message=f"{said}: "
                + (
                    f"its table heading (line {r.table_line}) and no result row in the copy "
                    "(cut, or the run stopped before its first report): no bandwidth measured"
                    if rowless
                    else "results as its Final row says"
                    if found.ucx
                    else "no table in the copy"
                )
                + (
                    f"; {len(warned)} UCX warning(s): "
                    + "; ".join(f"{w.message} (line {w.line})" for w in warned[:4])
                    if warned
                    else ""
                )
                + (
                    f"; {len(failed)} UCX error(s), operations that failed: "
                    + "; ".join(f"{w.message} (line {w.line})" for w in failed[:4])
                    if failed
                    else ""
                ),
                skipped=rowless,
            )
        )
        for w in failed:
            # UCX's ERROR and FATAL levels (src/ucs/config/types.h ucs_log_level_t: "Error is
            # returned to the user", "Immediate termination"): an operation that failed, not one
            # UCX went on past; read as the UCX errors of a job's log are (evidence-ucx-error)
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="ucx_error",
                    line=w.line,
                    message=f"{test}: {w.where} UCX {w.level} {w.message}",
                    host=w.host,
                    pid=w.pid,
                    library="UCX",
                    exception_type=f"{w.where}: {w.message}"
                    + (f" ({w.count} times)" if w.count > 1 else ""),
                ),
            )
        for w in warned:
            # UCX's WARN level (ucs/debug/log.c): something went wrong that UCX carried on past;
            # perftest.c's own "CPU affinity is not set ... Performance may be impacted" and
            # the mlx5 transport's failed devx calls (UCX PR 8213 logs a failed
            # mlx5dv_devx_obj_destroy as a warning, not an error) among them
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="ucx_perftest_warn",
                    line=w.line,
                    message=test,  # (the host is the item's own)
                    host=w.host,
                    library="ucx",
                    exception_type=f"{w.where}: {w.message}"
                    + (f" ({w.count} times)" if w.count > 1 else ""),
                ),
            )
    for q in found.qperf:
        said = (
            f"qperf {q.test}"
            + (f" from {q.host}" if q.host else "")
            + (f" to {q.server}" if q.server else "")
            + (f" (its server started on {q.server_host})" if q.server_host else "")
        )
        result = (
            ", ".join(f"{n} = {v}" for n, v in q.results)
            if q.results
            else f"stopped on its error (line {q.error_line}): {q.error}"
            if q.error
            else "no result in the copy (it ends after the test's name)"
        )
        notes.append(
            ParseWarning(
                line=q.line,
                message=f"{said}: {result}",
                skipped=not q.results and not q.error,
            )
        )
        if q.error and q.rdma:
            _add_failure(
                out,
                source,
                logs.LogEvent(
                    kind="rdma_test_setup_failed" if q.setup_failed else "transfer_stalled",
                    line=q.error_line,
                    message=said,
                    host=q.host,
                    library="qperf",
                    exception_type=q.error,
                ),
            )
    return notes


_LLDP_IFACE_RE = re.compile(r"\blldp(?:tool|ctl|cli)\b[^\n]*?\s-i\s+(?P<iface>[\w.:-]+)")


def _lldp_host(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """lldptool's (or lldpctl's) neighbours of a host NIC, in the layout hccn_tool's -lldp
    copies: a note of the switch and port the NIC is cabled to (no NPU port: not judged)."""
    said = hccn_tool.parse_lldp(text)
    iface = _LLDP_IFACE_RE.search(text)
    parts = [
        f"switch {said['system_name']}" if said.get("system_name") else "",
        f"port {said['port_id']}" if said.get("port_id") else "",
        f"management address {said['management_address']}"
        if said.get("management_address")
        else "",
        f"chassis {said['chassis_id']}" if said.get("chassis_id") else "",
    ]
    return [
        ParseWarning(
            line=1,
            message="LLDP neighbour of a host NIC"
            + (f" ({iface.group('iface')})" if iface else "")
            + " from lldptool/lldpctl, not hccn_tool's (no NPU port): "
            + ", ".join(p for p in parts if p),
            skipped=False,
        )
    ]


def _k8s_node_devices(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """kubectl describe node's device resources: a note of what the node registers and offers;
    fewer allocatable than its capacity is said (the device plugin holds unhealthy ones back)."""
    # (node, resource) -> (line, section, count)
    seen: dict[tuple[str, str], list[tuple[int, str, int]]] = {}
    section, node = "", ""
    for no, line, _ in numbered_lines(text):
        if nm := _K8S_NODE_NAME_RE.match(line):
            node, section = nm.group("node"), ""
        elif sec := _K8S_SECTION_RE.match(line):
            section = sec.group("s")
        elif (m := _K8S_DEVICE_RESOURCE_RE.match(line)) and section not in (
            "Limits", "Requests", "limits", "requests",
        ):  # fmt: skip
            seen.setdefault((node, m.group("res")), []).append((no, section, int(m.group("n"))))
    notes = []
    for (node, res), rows in seen.items():
        capacity = next((n for _, sec, n in rows if sec == "Capacity"), None)
        allocatable = next((n for _, sec, n in rows if sec == "Allocatable"), None)
        if (
            capacity is None
            and allocatable is None
            and len(rows) >= 2
            and not any(sec for _, sec, _ in rows)
        ):
            # the section headings grepped away: kubectl prints Capacity, then Allocatable
            capacity, allocatable = rows[0][2], rows[1][2]
        said = (
            f"capacity {capacity}, allocatable {allocatable}"
            if capacity is not None and allocatable is not None
            else ", ".join(f"{sec or 'count'} {n}" for _, sec, n in rows)
        )
        if capacity is not None and allocatable is not None and allocatable < capacity:
            # (a resource that counts memory, "aliyun.com/gpu-mem" in GiB, holds back an amount)
            amount = any(w in res.lower() for w in ("mem", "memory"))
            said += (
                f": {capacity - allocatable} of it held back (an amount, not devices)"
                if amount
                else f": {capacity - allocatable} of the node's devices are held back (the "
                "device plugin reports them unhealthy, or they are reserved)"
            )
        notes.append(
            ParseWarning(
                line=rows[0][0],
                message=f"kubectl describe node{f' {node}' if node else ''}: {res} {said}",
                skipped=False,
            )
        )
    if not notes:
        raise ParseError("no device resource line ('huawei.com/Ascend910: 8')")
    return notes


def _prechecks(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """Checks run before a job (ds_report, horovodrun's, accelerate env, ray status, kubectl,
    JAX's start, verl's diagnose): a note of each; a pod Kubernetes could not schedule is a
    ``pod_unschedulable`` failure, npu-smi a dump could not run an ``npu_smi_unusable`` one."""
    checks = prechecks.parse(text)
    for at, pod, status, restarts in checks.pods:
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="pod_unschedulable" if status == "Pending" else "pod_failing",
                line=at,
                message=(
                    f"{pod}: {status}"
                    if status.startswith("DaemonSet")
                    else f"pod {pod} is {status}"
                    + (f" after {restarts} restart(s)" if restarts else "")
                ),
                library="Kubernetes",
                exception_type="kubectl get daemonsets"
                if status.startswith("DaemonSet")
                else "kubectl get pods",
            ),
        )
    for f in checks.node_faults:
        if f.lost:
            # (srun's node failure is one the log reader names as the launcher's end, the node
            # lost mid-run: the log signature above holds "srun: error: Node failure on", so
            # that reader reads this file too; a second finding here would say it twice)
            continue
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="node_unavailable"
                if f.unavailable
                # (a job that ran and ended badly; one kept from starting is a launch that failed)
                else "launcher_exit"
                if f.job and not f.refused and not f.waiting
                else "launch_failed",
                line=f.line,
                message=(
                    f.what + (f" (nodes {f.node})" if f.node else "")
                    if f.job
                    else f"node {f.node}: {f.what}"
                )[:300],
                # (a job's node list, "gpu[01-02]", names hosts, not one host)
                host=f.node
                if f.node and not (f.job and ("[" in f.node or "," in f.node))
                else None,
                library="Slurm",
                exception_type="Slurm",
            ),
        )
    for at, said in checks.npu_unreadable:
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="npu_smi_unusable",
                line=at,
                message=said[:300],
                library="npu-smi",
                exception_type="verl's diagnose",
            ),
        )
    for u in checks.unschedulable:
        _add_failure(
            out,
            source,
            logs.LogEvent(
                kind="pod_unschedulable",
                line=u.line,
                message=u.message[:300],
                library=u.source or "Kubernetes",
                exception_type=(
                    f"unschedulable {u.times} times over {u.over}" if u.times else "unschedulable"
                ),
            ),
        )
    return checks.notes


def _mig_profiles(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """nvidia-smi mig -lgip: a note per GPU of the GPU instances it can still create, and each
    instance mig -cgi created or could not (its reason)."""
    by_gpu: dict[int, list[nvidia_smi.MigProfile]] = {}
    for row in nvidia_smi.parse_mig_profiles(text):
        by_gpu.setdefault(row.gpu, []).append(row)
    notes = [
        ParseWarning(
            line=c.line,
            message=f"nvidia-smi mig -cgi: GPU {c.gpu}: "
            + (
                f"GPU instance {c.instance} created ({c.profile})"
                if c.why is None
                else f"could not create a GPU instance of profile {c.profile}: {c.why}"
                + (f" ({w})" if (w := nvidia_smi.MIG_CREATE_WHY.get(c.why)) else "")
            ),
            skipped=False,
        )
        for c in nvidia_smi.parse_mig_create(text)
    ]
    for gpu, rows in by_gpu.items():
        free = [r for r in rows if r.free]
        notes.append(
            ParseWarning(
                line=rows[0].line,
                message=f"nvidia-smi mig -lgip: GPU {gpu}'s {len(rows)} GPU instance profile(s) "
                + "("
                + ", ".join(f"{r.name} {r.free}/{r.total} free" for r in rows)
                + "): "
                + (
                    "no instance of any profile can be created, the GPU's MIG capacity is taken"
                    if not free
                    else "instances can still be created"
                ),
                skipped=False,
            )
        )
    return notes


def _hccn_vnic(text: str, source: str, out: EvidenceFacts, name: str) -> list[ParseWarning]:
    """hccn_tool's vNIC query (Ascend 950's ``-g -vnic``): a note of each answer, the virtual
    NIC being no parameter-plane port (no RoCE or UB link is known from it)."""
    return [
        ParseWarning(
            line=v.line,
            message=f"hccn_tool's vNIC query: link {v.status}"
            + (f", {v.ipaddr}" if v.ipaddr else "")
            + (f" netmask {v.netmask}" if v.netmask else "")
            + "; the virtual NIC, not a parameter-plane port: not judged",
            skipped=False,
        )
        for v in hccn_tool.parse_vnic(text)
    ]


_CONVERTERS = {
    "nccl_tests": _nccl,
    "hccl_test": _hccl,
    "npu_smi_info": _npu_info,
    "npu_smi_query": _npu_query,
    "npu_smi_watch": _npu_watch,
    "npu_smi_mapping": _npu_mapping,
    "npu_smi_topo": _topo("npu-smi", npu_smi.parse_topo),
    "nvidia_smi_topo": _topo("nvidia-smi", nvidia_smi.parse_topo),
    "hccn_tool": _hccn,
    "hccn_conf": _hccn_conf,
    "rdma": _rdma,
    "mlxlink": _mlxlink,
    "dcgmi_discovery": _dcgmi_discovery,
    "dcgmi_stats": _dcgmi_stats,
    "ibqueryerrors": _ibqueryerrors,
    "show_gids": _show_gids,
    "amd_smi_nic": _amd_smi_nic,
    "dcgm_diag": _dcgm,
    "dcgmi_health": _dcgmi_health,
    "dcgmi_dmon": _dcgmi_dmon,
    "ubergemm": _ubergemm,
    "gpu_burn": _gpu_burn,
    "nvsm": _nvsm,
    "dcgm_profiling_error": _dcgm_profiling_error,
    "nvidia_smi_dmon": _smi_dmon,
    "dcgmi_nvlink": _dcgmi_nvlink,
    "dcgmi_nvlink_errors": _dcgmi_nvlink_errors,
    "nvbandwidth": _nvbandwidth,
    "p2p_bandwidth": _p2p_bandwidth,
    "device_query": _device_query,
    "simple_p2p": _simple_p2p,
    "bandwidth_test": _bandwidth_test,
    "bus_grind": _bus_grind,
    "faultdiag": _faultdiag,
    "asys": _asys,
    "asys_status": _asys_status,
    "ascend_dmi": _dmi,
    "ascend_dmi_flops": _dmi_flops,
    "reschedule": _reschedule,
    "deviceinfo": _deviceinfo,
    "msnpureport_devices": _msnpureport_devices,
    "npu_smi_details": _npu_details,
    "hccn_stat_csv": _hccn_stat_csv,
    "npu_smi_templates": _npu_templates,
    "msprof": _msprof,
    "nvidia_smi_p2p": _p2p,
    "nic_legend": _nic_legend,
    "hccn_vnic": _hccn_vnic,
    "perftest": _perftest,
    "npu_exporter": _npu_exporter,
    "dcgm_exporter": _dcgm_exporter,
    "dcgmi_policy": _dcgmi_policy,
    "nvidia_smi_mig_pending": _mig_pending,
    "npu_tls_cert": _npu_tls_cert,
    "ascend_notes": _ascend_notes,
    "ascend_versions": _ascend_versions,
    "ethtool_stats": _ethtool,
    "rdma_hw_counters": _rdma_hw_counters,
    "ethtool_settings": _ethtool_settings,
    "nvidia_smi_mig_profiles": _mig_profiles,
    "nvidia_smi_list": _smi_list,
    "nvidia_smi_mig_instances": _mig_instances,
    "npu_smi_refused": _npu_smi_refused,
    "npu_smi_version": _npu_smi_version,
    "ibv_devices": _ibv_devices,
    "mst_status": _mst_status,
    "numactl": _numactl,
    "netif": _netif,
    "nccl_topo": _nccl_topo,
    "libfabric": _libfabric,
    "pingpong": _pingpong,
    "lldp_host": _lldp_host,
    "prechecks": _prechecks,
    "k8s_node_devices": _k8s_node_devices,
    "lspci_link": _lspci,
    "lspci_list": _lspci_list,
    "lspci_acs": _lspci_acs,
    "iperf3": _iperf3,
    "multinic_check": _multinic_check,
    "mlxconfig": _mlxconfig,
    "mlxfwmanager": _mlxfwmanager,
    "lscpu": _lscpu,
    "ibdiagnet": _ibdiagnet,
    "mlnx_qos": _mlnx_qos,
    "ethtool_module": _ethtool_module,
    "ethtool_driver": _ethtool_driver,
    "ping": _ping,
    "ibping": _ibping,
    "nvidia_smi_nvlink": _nvlink,
    "nvidia_smi": _smi_status,
    "nvidia_smi_query": _smi_query,
    "nvidia_smi_query_csv": _smi_query_csv,
    "nvidia_smi_query_xml": _smi_query_xml,
    "rank_table": _rank_table,
    "log": _log,
}
