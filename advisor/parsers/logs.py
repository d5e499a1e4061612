"""Failure logs: CANN/HCCL error codes, PyTorch watchdog time-outs, torch elastic failures.

Recognised events (``LogEvent.kind``):
- ``hccl_error``: a CANN error code (``EI0006: ...``, ``Communication_Error_Bind_IP_Port(EI0019)``,
  ``EJ0003: ...``) with the rank, device, peer rank, group, operation tag, port and time-out the
  surrounding lines name;
- ``watchdog_timeout``: ``Watchdog caught collective operation timeout: WorkNCCL(SeqNum=..,
  OpType=.., NumelIn=.., NumelOut=.., Timeout(ms)=..) ran for .. milliseconds`` (``WorkHCCL`` from
  torch_npu too), joined with the rank's ``last enqueued / last completed`` work numbers; also
  torch 2.5+'s ``Timeout at NCCL work: N, last enqueued NCCL work: ..`` alone (no op: ``op`` None);
- ``elastic_failure``: each failure of a torch elastic ``ChildFailedError`` summary (host, rank,
  local rank, exit code, pid, signal), the first observed one marked ``root_cause``;
- ``watchdog_failure``: a rank's own watchdog found work N failed (``Exception (either an error or
  timeout) detected by watchdog at work: N``, later torch ``failure detected by watchdog at work
  sequence id: N``) where no ``WorkNCCL(...)`` time-out line of that rank came with it: ProcessGroupNCCL
  logs both inside ``if (work.exception())`` of its watchdog loop, so it is that rank's own failure;
  also ``Some NCCL (HCCL) operations have failed or timed out`` alone (no work number: ``seq`` None),
  the notice a work's exception prints before the process is taken down;
- ``gpu_hw_exception``: the ROCm runtime's ``HW Exception by GPU node-N (Agent handle: ..) reason
  :GPU Hang`` (``exception_type``: the reason), the device fault later watchdog time-outs follow from;
- ``gpu_driver_fault`` / ``gpu_driver_error``: the NVIDIA kernel driver's ``NVRM: Xid (PCI:..):
  N, ...`` event (``code`` the Xid number), its NVLink core's ``NVRM: GPUn knvlink...: Error
  ...`` (``device`` n) or the NVSwitch driver's ``nvidia-nvswitchN: SXid (PCI:..): N, Fatal,
  Link L ...`` (``code`` the SXid number), from a kernel log: a fault where the line says the
  hardware failed (fallen off the bus, a link that did not train, a Fatal SXid), else an error;
- ``ascend_tool_failure``: an Ascend driver tool (hccn_tool) that answered ``Command execute
  failed!`` (``exception_type``: how many times, and the reason it printed above, such as
  ``Device ID is out of the valid range.``), or that the shell did not find (``/bin/sh: 1:
  hccn_tool: not found``);
- ``faultdiag_fault``: a suspected root-cause fault MindCluster's ``ascend-fd diag`` report names
  (``code`` its status code, ``exception_type`` its name, devices and key log; read by
  ``parsers.faultdiag``);
- ``pg_timeout_warning``: torch_npu's warning that its process group's watchdog time-out is not
  above HCCL's execution time-out (``timeout_ms`` the watchdog's; ``exception_type`` both): a
  hang is ended by the watchdog before HCCL reports it, "the plog may not be recorded";
- ``nccl_socket_network``: a log of NCCL processes on two or more hosts where NCCL found no
  InfiniBand/RoCE device (``NET/IB : No device found.``) or chose ``Using network Socket``: the
  traffic between the hosts goes over TCP sockets (``host``; ``exception_type`` the interfaces
  ``NET/Socket : Using`` names);
- ``store_barrier_wait``: ranks still waiting in the store-based barrier at process-group init
  (``Waiting in store based barrier ... (world_size=W, worker_count=C, ...)``) with fewer than W
  joined and no time-out of it in the log (``numel`` the most that joined, ``rank_size`` W);
- ``duplicate_rank``: the same global rank initialised (PyTorch Lightning's ``Initializing
  distributed: GLOBAL_RANK: N, MEMBER: ../W``) behind two or more launcher tags (Slurm tasks):
  the launcher started the processes twice over;
- ``pg_settings``: ProcessGroupNCCL's settings as a group started (``ProcessGroupNCCL
  environments: NCCL version: .., TORCH_NCCL_TRACE_BUFFER_SIZE: ..``), one per distinct set:
  ``code`` the NCCL version, ``timeout_ms`` the group's watchdog time-out from its
  ``initialization options``, ``numel`` the flight recorder's buffer (0: off), ``exception_type``
  the settings in words; not a failure;
- ``nhc_failure``: a node whose health check (LBNL NHC, also run by Azure's distributed NHC)
  failed: ``ERROR: nhc: Health check failed: check_hw_ib: ...`` (``host``, ``code`` the check),
  or ``host | ERROR: No results reported``;
- ``npu_dcmi_error``: DCMI, the NPU management library under npu-smi and the Kubernetes device
  plugins, returned an error: npu-smi's ``dcmi module initialize failed. ret is -8005``, a
  plugin's ``... failed, err: retCode: -8255`` (``code`` the return code, ``code_name`` DCMI's
  name for it);
- ``nvshmem_error``: NVSHMEM's failure chain (``.../nvshmem/src/host/init/init.cu:998: non-zero
  status: 7 ...``, ``WARN: init failed for remote transport: ibrc``): its first line, what it says
  failed last, and the peer its bootstrap lost;
- ``cuda_error``: a CUDA runtime call a test program checked failed (nccl-tests' CUDACHECK:
  ``node0: Test CUDA failure common.cu:389 'an illegal memory access was encountered'``;
  ``host``, ``call``: the FILE:LINE, ``exception_type``: CUDA's error text); its ``out of memory``
  is ``device_oom``;
- ``watchdog_progress``: a rank that did not time out itself but dumped how far it got
  (``Last enqueued NCCL work: N, last completed NCCL work: M``) on a peer's signal: the rank
  whose last enqueued work is below the timed-out sequence number never reached that collective;
- ``store_timeout``: the c10d store gave up waiting for workers (rendezvous never completed),
  a rank's connect to it or wait on it timed out, or an operation on it ended in "Socket Timeout";
- ``store_lost``: a rank's heartbeat monitor could not reach the c10d store any more (``Failed to
  check the "should dump" flag on TCPStore``), or torch elastic's agent could not shut its
  rendezvous down (``has failed to shutdown the rendezvous ... due to an error of type X``): the
  store's host exited or crashed;
- ``rendezvous_failure``: torch elastic's rendezvous raised RendezvousClosedError,
  RendezvousTimeoutError, RendezvousConnectionError or RendezvousStateError (``exception_type``);
- ``hccl_heartbeat``: HCCL's heartbeat verdict printed on its own (``Cluster Exception
  Location[IP/ID]``, ``crimer rank [IP/ID]``): the device HCCL blames (``culprit_ip``,
  ``culprit_device``) and who noticed; inside an error-code block it fills that event instead;
- ``hccl_link_timeout``: a row of HCCL's socket table (``LINK_ERROR_INFO``) that no error code
  claimed: this rank's end (``ip``) timed out waiting for the peer (``remote_rank``,
  ``remote_ip``). An EI0006 that follows the table takes its first row. A ``wait socket establish
  timeout, role[..] rank[N] timeout[S]`` line with no table and no code after it (a cut plog) is
  one too, with no peer; so is HCCL's socket layer giving up on a connected peer
  (``[Recv][RaSocket]errNo[..] Wait timeout for sockets recv``, ``exception_type`` says which
  way and how many bytes came);
- ``hccl_bind_failure``: HCCL could not listen on a device address and port (``listen on ip[..]
  and specific port[..] fail``) and no error code block read that line;
- ``hccl_cqe_error``: HCCL's heartbeat logged an RDMA error completion toward a peer address
  (``cqe err status[12] ... ip:[..]``): ``code`` the completion status with its verbs name, the
  peer in ``remote_ip``, this process's rank, device and address from its ``hcom init`` line;
- ``hccl_rdma_init_failure``: HCCL could not set up RDMA on a device NIC (``ra rdma init failed,
  devid[N] ip[..]``): the device and its address;
- ``hccl_negotiation_failure``: a rank's cluster negotiation with the root node failed and no
  EI0015 code came with it: its socket to the root timed out (``timeout_ms``, the root's
  ``remote_ip`` and ``port``), or the root named the ranks that never connected (in ``message``,
  with the communicator's ``rank_size``);
- ``watchdog_hang``: the heartbeat monitor found ProcessGroupNCCL's (or HCCL's) watchdog thread
  stuck for N seconds (``timeout_ms``) and ends the process; how many works it still tracked,
  where the monitor printed it, in ``exception_type``;
- ``pg_abort_timeout``: a process group's shutdown (``destroy_process_group``) whose abort of its
  communicators did not finish within the group's time-out (``timeout_ms``), per rank;
- ``pg_dump_unfinished``: a rank's heartbeat monitor gave up waiting for the flight recorder's
  dump (``timed out after waiting for 60000ms flight recorder dumps to finish``, the wait in
  ``timeout_ms``), a notice per rank and group;
- ``elastic_failure`` also from the agent's own line ``failed (exitcode: X) local_rank: L (pid: P)
  of binary: ..``: the first failure by time, so the root cause;
- ``ucx_error``: UCX's InfiniBand transport reporting an error completion (``Transport retry
  count exceeded on mlx5_0:1/IB (synd 0x15 ...)``): the process, the HCA port and the error;
- ``deepep_timeout``: DeepEP's dispatch or combine kernels giving up on a peer's data (``DeepEP
  dispatch NVL receiver timeout, channel: 6, ...``), one per kind of timeout;
- ``coordination_timeout``: XLA's coordination service (JAX's and TensorFlow's rendezvous) gave up
  on tasks: a barrier that timed out (``DEADLINE_EXCEEDED: Barrier timed out. Id: ...``, the
  cluster registration's ``[Init]Wait_for_all_tasks_to_register`` among them) with the tasks
  that never reached it in ``missing_ranks``, or a task whose heartbeats stopped;
- ``gloo_error``: gloo's TCP transport lost a peer (``[.../gloo/transport/tcp/pair.cc:589] Read
  error [10.0.0.2]:3977: Connection reset by peer``, ``Connection closed by peer``, ``Timed out
  waiting 1800000ms for recv operation to complete``), per rank: the peer in ``remote_ip`` and
  ``port``;
- ``libfabric_warning``: libfabric's warn-level lines of a provider (``libfabric:PID:TIME::efa:cq:
  efa_rdm_txe_handle_error():737<warn> err: 5, message: Invalid address ...``; its core's start-up
  fallbacks are not), one per process and kind: the provider, the function and the text up to its addresses; the aws-ofi-nccl
  plugin's own ``WARN: Function: F Line: N: NET/OFI ...`` lines are NCCL warnings;
- ``nccl_connect_retry``: NCCL's socket layer retrying a refused or timed-out connect (``NCCL INFO
  Call to connect returned Connection timed out, retrying``), one per process and reason;
- ``ray_placement``: Ray unable to place the job's workers (the autoscaler's ``No available node
  types can fulfill resource request {...}``, or vLLM waiting N seconds for its placement group);
- ``hccl_plog_error``: only in an HCCL plog where nothing above is found: its first ERROR line,
  with the task exception HCCL reports after it (the task's type, this rank, its peer, the op's
  tag, group and count);
- ``log_error``: only in a program's log in no form above (timestamps or a logger's levels on
  most lines): its first error line, as written;
- ``python_exception``: only in a log where nothing above is found: the exception the first
  Python traceback ends in (``ValueError: batch_size should be divisible by dp``), the run's
  own failure with nothing of the communication layer in the log.
Records wrapped at a fixed width (a ``Work[NH]CCL(`` left open, the heartbeat message split) are
joined with the next line only when the first one is visibly cut.
The parse is linear in the log's size: each line is matched once, and the joins that follow are
by dictionary, never by scanning the events found so far.
What each code means and what to change is not decided here: rules in ``conf/rules/`` do that.
"""

from __future__ import annotations

import bisect
import errno
import json
import os
import re
import signal
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from advisor.parsers import (
    COLLECTOR_STAMP,
    NODE_NAME,
    PDSH_PREFIX_RE,
    WORKER_PREFIX_RE,
    ParseError,
    ParseWarning,
    json_object,
    numbered_lines,
)
from advisor.parsers.hccl_test import HCCL_RESULTS, decode_result
from advisor.parsers.netif import VIRTUAL_IFACE_RE
from advisor.parsers.nvidia_smi import no_devices_in_job_step
from advisor.parsers.rank_table import parse as parse_rank_table
from advisor.parsers.rdma import IBV_WC_STATUS

_CODE_RE = re.compile(
    # (a name may hold digits: "Communication_Error_P2P(EI0010)")
    r"(?:\b(?P<name>[A-Z][A-Za-z0-9_]+(?:/[A-Z][A-Za-z0-9_]+)?)\((?P<code1>E[A-Z]\d{4}|E[1-9]\d{4})\))"
    # CANN codes are E, a module character and four digits: EI0006, EZ1001, E40024 (GE/FE)
    # (also after a literal "\n": a message JSON-escaped into one line of a server's log)
    r"|(?:(?:\b|(?<=\\n))(?P<code2>E[A-Z]\d{4}|E[1-9]\d{4})(?=:|\s+[A-Z]|\[PID:))"
    # the TDT client's own line for the HCCP process it could not open (the HCCL guide's EJ0001
    # plog example): "[TsdClient] DeviceMsgProc  errcode[EJ0001]"
    r"|(?:\berrcode\[(?P<code4>E[A-Z]\d{4})\])"
)
# A TraceBack's code line that starts with its code, two spaces and a lower-case word: the
# runtime's "EE9999  fftsplus task execute failed, dev_id=7, ..." (a code-like word inside a
# line, "disk ES3000  v5", is none). Matched apart: an anchored alternative in _CODE_RE would be
# tried at every position of every line.
# (or a module's stage tags: "EH9999  [Init][Env]init env failed![FUNC:ReportInnerError]...")
_LEAD_CODE_RE = re.compile(r"\s*(?P<code3>E[A-Z]\d{4})(?=\s{2,}(?:[a-z]|\[[A-Z][a-z]+\]))")


def _code_match(line: str) -> re.Match[str] | None:
    """A CANN error code on ``line`` (either form)."""
    return _CODE_RE.search(line) or (_LEAD_CODE_RE.match(line) if "  " in line else None)


def _code_of(m: re.Match[str]) -> str:
    found = m.groupdict()
    return str(found.get("code1") or found.get("code2") or found.get("code3") or found.get("code4"))


_RANK_TAG_RE = re.compile(r"\[[Rr]ank(\d+)\]:")
_RANKID_RE = re.compile(r"RankID:\s*(-?\d+)")
# torch_npu's "(PID:8457, Device:0, RankID:-1)" and CANN's "[PID: 97934]"
_PID_RE = re.compile(r"\(PID:\s*(\d+)|\[PID:\s*(\d+)\]")
# A plog line starts "[ERROR] HCCL(3977573,all_reduce_test):2025-11-22-..." : level, module,
# (pid, process name). HCCL's own failures end "... is failed. ret[9]." with an HcclResult.
_PLOG_PID_RE = re.compile(r"^\[(?:ERROR|WARNING|INFO|DEBUG|EVENT|TRACE)\] ?[A-Z_]+\((\d+),")
_PLOG_PID_ANYWHERE_RE = re.compile(_PLOG_PID_RE.pattern.removeprefix("^"))
"""The same prefix after something a copy put before it (grep's ``plog/plog-1601_...txt:21:``)."""
# protobuf's own log (google/protobuf stubs/logging: "[libprotobuf %s %s:%d] %s"): its ERROR and
# FATAL lines ("[libprotobuf FATAL descriptor.cc:1371] CHECK failed: GeneratedDatabase()->Add(...)",
# after "[libprotobuf ERROR descriptor_database.cc:644] File already exists in database: X.proto")
LIBPROTOBUF_RE = re.compile(r"^\[libprotobuf FATAL [\w./-]+:\d+\] \S", re.M)
"""(FATAL only: protobuf's ERROR lines alone, an invalid UTF-8 string in a healthy run, stop
nothing)"""
CANN_PLOG_LINE_RE = re.compile(
    r"^[ \t]*\[(?:ERROR|WARNING|INFO|DEBUG|EVENT|TRACE)\] [A-Z][A-Z_]*\(-?\d+,[^)\n]*\):\d{4}-\d\d-\d\d[- ]",
    re.M,
)
"""A plog line of any CANN module ("[INFO] TORCHAIR(1630010,python):2025-11-07 ..."), at a line's
start (indented as a page may)."""
HCCL_PLOG_RE = re.compile(
    r"\[(?:ERROR|WARNING|INFO|DEBUG|EVENT|TRACE)\] HCCL\(\d+,[^)]*\):\d{4}-\d\d-\d\d-"
)
"""HCCL's plog line ("[INFO] HCCL(2111667,all_reduce_test):2025-10-24-11:16:52.724.374 [op_base.cc
:1292] ..."), also after the file name a grep over plog files puts before it."""
CANN_PLOG_ERROR_RE = re.compile(
    r"\[ERROR\] (?P<mod>[A-Z][A-Z_]*)\(-?\d+,[^)]*\):\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d"
)
"""An ERROR line of any CANN module in plog form ("[ERROR] RUNTIME(699131,python):2025-04-24-
21:54:17.707.236 [davinci_kernel_task.cc:1268]..."): the runtime, the driver, HCCP, RoCE."""
_PLOG_TIME = r"(?:\d{4}-\d\d-\d\d[- ]\d\d:\d\d:\d\d\S*|\S+)"
"""A plog line's time stamp: "2025-04-24-21:54:17.707.236", or a newer runtime's "2025-12-13
12:15:25.025.554" with a space."""
_PLOG_HEAD_RE = re.compile(
    rf"^\[(?:ERROR|WARNING|INFO|DEBUG|EVENT)\] ?[A-Z_]+\([^)]*\):{_PLOG_TIME}\s*"
)
"""A plog line's head: level, module, (pid, process) and time stamp."""
_PLOG_RET_RE = re.compile(r"\bfail\w*\b.*?\bret\[(\d+)\]")
PLOG_RET_WINDOW_LINES = 3
"""How far from an HCCL event's line a "failed ... ret[N]" line may stand and still give its
HcclResult."""
# EI0004 (an invalid rank table) names this process's entry: "Invalid ranktable, with rank_id [0]
# and local device_id [0]" (MindSpore's HCCL FAQ, EI0004)
_RANKTABLE_ENTRY_RE = re.compile(r"with rank_id \[(\d+)\] and local device_id \[(\d+)\]")
# EI0002's own group information names this rank: "group information: [group:[..], user define
# information[], rankSize[8], rankId[6].]" (an EI0002 printed with no launcher tag nor RankID line).
# rankSize[0] is no communicator at all (EI0012's "Communicator information: [group:[], user define
# information[], rankSize[0], rankId[0]]"): its rankId names no rank.
_GROUP_RANKID_RE = re.compile(r"rankSize\[[1-9]\d*\],\s*rankId\[(\d+)\]")
# torch_npu's "(PID:N, Device:3, RankID:3)"; the runtime's "The error from device(chipId:3, dieId:0)"
# (and the runtime's task error "fftsplus task execute failed, dev_id=7, stream_id=7, ...")
# (and the TDT client's "TsdOpen failed, deviceId[4]." under its EJ0001 line)
# (an older runtime's "The error from device(2), serial number is 37, there is an aicore error")
_DEVICE_RE = re.compile(
    r"Device:\s*(\d+)|device\(chipId:(\d+)|\bdev_id=(\d+)|TsdOpen failed, deviceId\[(\d+)\]"
    r"|The error from device\((\d+)\)"
)
_REMOTE_RE = re.compile(r"remote rank:\s*\[(\d+|unknown)\]")
# A task tag names its operation, with GE's "Hcom" prefix on graph-mode ops ("tag[HcomAllReduce_..."
# in EI0002's task information, "tag [HcomAllReduce_...]" in EI0005's message): the prefix is dropped.
# EI0005's own words name the op and group: "ccl_op HcomReduceScatter, group group_name_1"
_TAG_RE = re.compile(r"tag ?\[(?:Hcom)?([A-Za-z]+)|ccl_op Hcom([A-Za-z]+)")
_GROUP_RE = re.compile(r"group:\[([^\]]+)\]|ccl_op \w+, group ([^,\s]+)")
_RANKSIZE_RE = re.compile(r"rankSize\[([1-9]\d*)\]")
_PORT_RE = re.compile(r"\bport\[?\s*(\d{2,5})\]?")
# Only the time-out in effect, not the defaults quoted in the "Solution" text.
_TIMEOUT_S_RE = re.compile(r"timeout\[(\d+)\s*s?\]|Timeout was set to (\d+) seconds")
# The runtime's HCCL task time-out on A2 (CANN device_error_proc.cc,
# ProcessStarsHcclFftsPlusTimeoutErrorInfo): "stuck notify num:1, timeout:1836." in seconds, or
# "timeout=30min(default)" / "timeout:30min(default)" when the default is in effect.
_FFTS_TIMEOUT_RE = re.compile(
    r"stuck notify num:(?P<stuck>\d+), timeout[:=](?P<n>\d+)(?P<min>min)?"
)
_NODE_RE = re.compile(r"Check whether node (\S+) reports")
# HCCL's heartbeat verdict (Ascend/pytorch docs/zh/troubleshooting/HCCL_timeout.md; hicann/hccl
# docs/en/user_guide/fault_diagnosis/task_exec_stage.md): "Cluster Exception Location[IP/ID]:[90.90.92.240/1], Arrival Time:[..],
# Discoverer:[90.90.92.240/0], ExceptionType:[Heartbeat Lost Occurred]": the device that failed,
# not the one reporting.
_LOCATION_RE = re.compile(
    r"Cluster Exception Location\[IP/ID\]:\[(?P<ip>[\d.]+)/(?P<dev>\d+)\]"
    r"(?:.*?Discoverer:\[(?P<dip>[\d.]+)/(?P<ddev>\d+)\])?"
    r"(?:.*?ExceptionType:\[(?P<type>[^\]]+)\])?"
)
# CANN 8.1's form under "there are(is) N abnormal device(s):" (hiascend CANN 8.1.RC1 HCCL user
# guide, the EI0002 page): "serverId[192.168.100.111], deviceId[4], Heartbeat Lost Occurred,
# Possible Reason: ..." with no discoverer.
_SERVER_DEVICE_RE = re.compile(
    # (the address as printed, also masked by a document: "serverId[10.*.*.*]")
    r"serverId\[(?P<ip>\d+(?:\.(?:\d+|\*)){3})\], deviceId\[(?P<dev>\d+)\], (?P<type>[A-Za-z ]+? Occurred)"
    r"(?P<dip>)(?P<ddev>)"
)
# An older task exception handler's form (task_exception_handler.cc, a MindCluster fault-diag
# plog sample): "server:10.136.181.175/5, server:10.136.181.175/1, Heartbeat Lost Occurred,
# Possible Reason: ...": the device lost, then the one reporting (as the newer form orders
# Location before Discoverer; in that sample the process's own init line names device 1)
_SERVER_PAIR_RE = re.compile(
    r"\bserver:(?P<ip>\d+(?:\.\d+){3})/(?P<dev>\d+), server:(?P<dip>\d+(?:\.\d+){3})/(?P<ddev>\d+), "
    r"(?P<type>[A-Za-z ]+? Occurred)"
)
# The run log's form of the same event (hicann/hccl docs, task_exec_stage.md): "local rank
# [IP/ID]: crimer rank [IP/ID] status[LOST] by informer rank [IP/ID]"; an older heartbeat.cc
# leaves out the words: "rank [172.16.0.159/2]: rank [172.16.0.57/5] status[LOST] by rank
# [172.16.0.57/6]" (its status then always printed).
_CRIMER_RE = re.compile(
    r"(?:crimer rank \[(?P<ip>[\d.]+)/(?P<dev>\d+)\](?:\s*status\[(?P<type>\w+)\])?"
    r"\s*by informer rank|: rank \[(?P<ip2>[\d.]+)/(?P<dev2>\d+)\]\s*status\[(?P<type2>\w+)\]"
    r"\s*by rank) \[(?P<dip>[\d.]+)/(?P<ddev>\d+)\]"
)
# The socket manager's own verdict when the links never came up, with no time-out line of its own
# before it (hccl_socket_manager.cc): "[Wait][LinksEstablishCompleted] is failed. ret[9]." and
# "[Create][Sockets]Wait links establish completed failed, local role is client. ret[9]".
_LINKS_FAILED_RE = re.compile(
    r"\[LinksEstablishCompleted\] is failed|Wait links establish completed failed"
)
# The older exchanger's wait for its peers' sockets (CANN 6 plogs: "[exchanger_network.cc:237]...
# [Wait][AllClientSocketEstable]errNo[...] client : device[4] rank[4] get sokcet timeout,
# total[3] remain[3]", HCCL's own spelling): this rank's link set-up timed out, peers unnamed
_EXCHANGER_RE = re.compile(
    r"\b(?:client|server) : device\[(?P<dev>\d+)\] rank\[(?P<rank>\d+)\] get so(?:ck|kc)et timeout"
)
# its counts: "total[3] remain[2]", the sockets it waited for and those still missing
# the exchanger's status table of an older plog (exchanger_network.cc): "|  dest_dev  |  userrank  |
# Role | connStatus |", then a row a peer: "|  3  |  3  |  client  |  YES  |" (NA for itself)
_EXCHANGER_ROW_RE = re.compile(
    r"\|\s*(?P<dev>\d+)\s*\|\s*(?P<rank>\d+)\s*\|\s*(?P<role>client|server|NA)\s*\|\s*"
    r"(?P<conn>YES|NO|NA)\s*\|"
)
EXCHANGER_TABLE_LINES = 24
"""How far under the wait's failure its exchanger status table's rows may run."""
_EXCHANGER_COUNT_RE = re.compile(r"total\[(?P<total>\d+)\] remain\[(?P<remain>\d+)\]")
_ERRNO_RE = re.compile(r"errNo\[0x(?P<hex>[0-9a-fA-F]+)\]")
_ESTABLISH_RE = re.compile(
    r"wait socket establish timeout(?:.*?\brank\[(?P<rank>\d+)\])?.*?timeout\[(?P<s>\d+)\s*s?\]"
)
# HCCL's socket could not listen (hicann/hccl docs, fault diagnosis of link set-up, "Parameter
# Plane Port Binding Failure (EI0019)"): the plog names the address and the port another process
# holds; "socket type" 0 or 1 is the device NIC's parameter-plane port (16666 by default), 2 the
# host NIC's port of cluster negotiation.
_BIND_RE = re.compile(
    r"(?:socket type\[(?P<type>\d+)\],\s*)?"
    # (a host NIC's address may carry its interface: "ip[10.137.69.222%enp53s0f2]")
    r"listen on ip\[(?P<ip>[0-9A-Fa-f.:]+)(?:%[^\]\s]*)?\] and specific port\[(?P<port>\d+)\] fail"
)
# The operation a failing HCCL call ran: GE's task "call hccl op:HcomAllReduce(HcomAllReduce) load
# task fail" (EI0005 sample) and hcom's "hcclComm AllReduce error, tag[..]".
_HCOM_OP_RE = re.compile(r"call hccl op:Hcom([A-Za-z]+)\(|hcclComm ([A-Za-z]+(?: [a-z]+)*) error")
# A graph-mode op whose links could not be set up, after the socket table: "[Create][InnerComm]
# tag[HcomAllGather_5871863451775290338_0], created commHD fail" (a MindCluster plog sample).
_INNER_COMM_RE = re.compile(
    r"\[InnerComm\]tag\[(?:Hcom)?(?P<op>[A-Za-z]+)_[^\]]*\], created comm\w* fail"
)
# torch_npu names the HCCL entry point that failed: "OPS function error: HcclAllreduce".
_OPS_FN_RE = re.compile(r"OPS function error: Hccl([A-Za-z]+)")
# torch_npu's task queue names the operator that was running when an inner error stopped the
# process (NPUQueue.cpp: "... and the current working operator name is HcclAllreduce."); the
# line stands a few lines above the error-code block it explains.
_WORKING_OP_RE = re.compile(r"current working operator name is Hccl([A-Za-z]+)")
WORKING_OP_WINDOW_LINES = 8
"""How far before an error code torch_npu's working-operator line may stand and still name
the operation that failed."""
# HCCL's socket table after a link time-out (vllm-project/vllm-ascend issue #9447):
# "|  10.20.0.31(29)  |  16666  |  10.20.0.2(0)  |  344832056  |  server  | time out |"; older
# releases print no port columns (the CANN 8.0.RC3 troubleshooting page's comm_base.cc table:
# "|  192.168.100.100(1)   |   192.168.100.101(0)   |  server  | no connect |").
_LINK_ROW_RE = re.compile(
    r"\|\s*(?P<dip>\d+\.\d+\.\d+\.\d+)\((?P<drank>\d+)\)\s*\|(?:\s*(?P<dport>\d+)\s*\|)?"
    r"\s*(?P<sip>\d+\.\d+\.\d+\.\d+)\((?P<srank>\d+)\)\s*\|(?:\s*\d+\s*\|)?"
    r"\s*(?P<role>server|client)\s*\|\s*(?P<status>[^|]+?)\s*\|"
)
_LINK_DEVICE_RE = re.compile(r"comm error, device\[(\d+)\]")
# EI0009 / transport errors name both ends (vllm-ascend issues #2643 "creakLink", #3162 "createLink").
# Newer HCCL prints "remoteRank[15]-remoteUserrank[15]-remoteIpAddr[80.5.5.67/7]" (address/device).
_CREATE_LINK_RE = re.compile(
    r"crea(?:te|k)Link para:rank\[(?P<rank>\d+)\]-localUserrank\[\d+\]-localIpAddr\[(?P<ip>[\d.]*)(?:/\d+)?\],"
    r"\s*(?:dst_rank|remoteRank)\[(?P<drank>\d+)\]-remoteUserrank\[\d+\]"
    r"-(?:remote_ip_addr|remoteIpAddr)\[(?P<dip>[\d.]+)(?:/\d+)?\]"
)
LINK_WINDOW_LINES = 80
"""How far before an error code its rank's socket table may stand and still belong to it."""
# HCCL's network manager: the RDMA set-up of a device NIC failed ("ra rdma init failed, devid[0]
# ip[192.168.20.148], notifyType[1], return[19]"); the device and its address are on the line
_RDMA_INIT_RE = re.compile(
    r"ra rdma init failed, devid\[(?P<dev>\d+)\] ip\[(?P<ip>[0-9A-Fa-f.:]+)\]"
)
# Cluster negotiation (hicann/hccl docs, "Cluster Information Negotiation", EI0015): a rank's
# agent timed out connecting to the root (server) node ("topo exchange agent get socket timeout!
# timeout[120]", then "connect server[IP : PORT] failed"), or the root told a connected agent which
# ranks never connected ("Failed to connect agent[1,3,5,7,]", then "rank num[8]is different with
# rank list size[4]"). HCCL prints no error code on these lines.
_AGENT_TIMEOUT_RE = re.compile(r"topo exchange agent get socket timeout! timeout\[(\d+)")
# The root (server) side of the same exchange: it waited for agents that never connected
# ("topo exchange server get socket timeout! timeout[720 s]"), then lists the ranks that did
# ("total connected num is [15]" and "connected rankinfo[LINE n]: ..." lines).
_SERVER_TIMEOUT_RE = re.compile(r"topo exchange server get socket timeout! timeout\[(\d+)")
_CONNECTED_NUM_RE = re.compile(r"total connected num is \[(\d+)\]")
_CONNECT_SERVER_RE = re.compile(
    r"connect server\[(?P<ip>[0-9A-Fa-f.:]+)(?:%\S+?)? : (?P<port>\d+)\] failed"
)
_MISSING_AGENTS_RE = re.compile(r"Failed to connect agent\[(?P<ranks>[\d,]*)\]")
# The root's own list of agents it could not reach (topoinfo_exchange_server.cc, "[TopoInfoExchange
# Server][Setup]Broadcast Rank Basic Infos failed, connectFailedAgentIdList[10,17,...,]") and its
# communicator's size ("[InitCommRootInfo]Init failed, return[..], rankNum[2048], rank[0]").
_FAILED_AGENTS_RE = re.compile(r"connectFailedAgentIdList\[(?P<ranks>[\d,\s]*)\]")
_RANK_NUM_INIT_RE = re.compile(r"Init failed, return\[[^\]]*\], rankNum\[(\d+)\]")
# EI0015 with rootInfo detection (hicann/hccl docs, "Cluster Information Negotiation"): the
# message ends 'List of unconnected ranks: "[1,7,]"'.
_UNCONNECTED_RE = re.compile(r"List of unconnected ranks:\s*\"?\[(?P<ranks>[\d,\s]*)\]")
# ... and the root's count and list of the ranks that did connect, after its time-out
# (topoinfo_exchange_server.cc DisplayConnectionedRank: "total connected num is [4],line num is
# [1]", "need connect rankNum is [8]", "connected rankinfo[LINE 0]: [0000000000000000],
# [0000000000000002],...;" eight a line, each rank id in decimal, zero-padded); the HCCL guide's
# EI0015 page computes the missing ranks from it, ranks being 0 to rankNum-1
_CONNECTED_LINES_RE = re.compile(r"total connected num is \[(\d+)\],\s*line num is \[(\d+)\]")
_NEED_CONNECT_RE = re.compile(r"need connect rankNum is \[(\d+)\]")
_CONNECTED_INFO_RE = re.compile(r"connected rankinfo\[LINE \d+\]:\s*((?:\[\d+\],?\s*)+)")
CONNECTED_LIST_LINES = 300
"""How far after the root's time-out its connected-rank lines may run (eight ranks a line)."""
_RANK_NUM_RE = re.compile(r"rank num\[(\d+)\]\s*is different with rank list size\[\d+\]")
NEGOTIATION_WINDOW_LINES = 5
"""How far after an agent's time-out (or its missing-ranks line) the line naming the root's
address (or the communicator's size) may stand and still belong to it."""
_IP_RE = re.compile(r"IP address (\d+\.\d+\.\d+\.\d+)|ip\[(\d+\.\d+\.\d+\.\d+)")

_WORK_RE = re.compile(
    r"Work(?P<lib>NCCL|HCCL)\((?:SeqNum=(?P<seq>\d+),\s*)?OpType=(?P<op>\w+)"
    # (a user's copy with the sequence number after the op, AnySplat issue 61: "WorkNCCL(
    # OpType=ALLREDUCE, SeqNum=458) ran for 1800600 ms before timing out."; torch's own print puts
    # SeqNum first or leaves it out)
    r"(?:,\s*SeqNum=(?P<seq_after>\d+))?"
    r"(?:,\s*NumelIn=(?P<numel_in>-?\d+))?(?:,\s*NumelOut=(?P<numel_out>-?\d+))?"
    r"(?:,\s*Timeout\(ms\)=(?P<timeout>\d+))?\)"
    # "milliseconds" may be wrapped onto the next line by the terminal that saved the log
    r"(?:\s*ran for (?P<ran>\d+)(?= mil| ms\b|\s*$))?"
)
# A record whose middle a terminal overwrote (tmux's "[451/1919]" scroll position pasted over
# "OpType=_ALLGATHER_BA|SE, NumelI|n=..."): its sequence number, time-out and run time still
# stand; the op is not guessed.
_GARBLED_WORK_RE = re.compile(
    r"Work(?P<lib>NCCL|HCCL)\(SeqNum=(?P<seq>\d+),(?P<op>)(?P<numel_in>)[^()]*?"
    r"Timeout\(ms\)=(?P<timeout>\d+)\)\s*ran for (?P<ran>\d+)(?= mil|\s*$)"
)
_WATCHDOG_RANK_RE = re.compile(r"\[(?:PG [^\]]*?)?Rank (\d+)\]|\[rank(\d+)\]")


def _record_rank(line: str, tagged: int | None) -> int | None:
    """A record's rank: the launcher's tag (the global rank) where the line has one, else the
    record's own "[Rank N]" / "[rankN]"; None when neither names it."""
    if tagged is not None:
        return tagged
    rank_m = _WATCHDOG_RANK_RE.search(line)
    return int(rank_m.group(1) or rank_m.group(2)) if rank_m else None


_OPEN_WORK_RE = re.compile(r"Work[NH]CCL\((?:[^()]|\(ms\))*$")
"""A record left open at the line's end (its "Timeout(ms)" is the only bracket inside)."""
_CUT_WORK_RE = re.compile(
    r"Work(?P<lib>NCCL|HCCL)\(SeqNum=(?P<seq>\d+),\s*OpType=(?:(?P<op>\w+)(?=,)|(?P<op_cut>\w*)\s*$)"
    r"(?:,\s*NumelIn=(?P<numel_in>-?\d+)(?=,))?"
)
"""The fields a record cut at the text's end still holds: its SeqNum and OpType (or the start of
the OpType, where the cut fell inside it: "OpType=BROADCA")."""


def _cut_op(prefix: str) -> str | None:
    """The op a cut OpType's first letters name, where only one op starts so; None otherwise."""
    named = {op for name, op in OPS.items() if prefix and name.startswith(prefix)}
    return named.pop() if len(named) == 1 else None


# torch's log prefix of a process group (ProcessGroupNCCL::createLogPrefix): "[PG ID 2 PG GUID
# 5(mesh_ulysses) Rank 2] ", the description in brackets only when the group was given one; older
# torch "[PG 2 Rank 2]"
_PG_RE = re.compile(
    r"\[PG (?:ID )?(\S+)(?: PG GUID [^\s(]+\((?P<desc>[^)]*)\)| \((?P<desc_only>[^)]*)\))?"
)
"""torch's prefix of a group: "[PG ID 0 PG GUID 0(default_pg) Rank 1]", "[PG 0 (default_pg) Rank
7]" (torch 2.4) or "[PG 0 Rank 1]"."""


def _pg(m: re.Match[str] | None) -> str | None:
    """The group a log prefix names: its id, with its description when torch printed one."""
    if m is None:
        return None
    desc = m.group("desc") or m.group("desc_only")
    return f"{m.group(1)} ({desc})" if desc else m.group(1)


# torch 2.5-2.6 print "last enqueued NCCL work: N, last completed NCCL work: M"; later torch
# (ProcessGroupNCCL.cpp's watchdog: "failure detected by watchdog at work sequence id: S PG status:
# last enqueued work: N, last completed work: M") drops the library name. -1: none yet.
_LAST_RE = re.compile(
    r"[Ll]ast enqueued (?:(?:NCCL|HCCL) )?work: (?P<enq>-?\d+), "
    r"last completed (?:(?:NCCL|HCCL) )?work: (?P<done>-?\d+)"
)
# torch 2.5-2.6 ProcessGroupNCCL.cpp watchdog loop: "Exception (either an error or timeout) detected
# by watchdog at work: N, last enqueued NCCL work: .."; later torch: " failure detected by watchdog at
# work sequence id: N PG status: ..". Both are logged inside ``if (work.exception())`` (pytorch
# ProcessGroupNCCL.cpp, watchdog handler / Watchdog::runLoop): this rank's own work N failed, not a
# dump on a peer's signal (that one reads "Received a dump signal ... from rank N").
_TIMEOUT_AT_RE = re.compile(r"\bTimeout at [NH]CCL work: (\d+)")
"""torch 2.5+'s line of the work a rank's watchdog timed out (ProcessGroupNCCL.cpp)."""
# torch 2.4+'s heartbeat monitor, on a dump signal (ProcessGroupNCCL.cpp
# getNCCLWatchdogTimeoutErrorMsg; later HeartbeatMonitor::getWatchdogTimeoutErrorMsg): "Received a
# dump signal due to a collective timeout from <this local rank | rank N> and we will try our best
# to dump the debug info. Last enqueued NCCL work: E, last completed NCCL work: C." From this local
# rank: its own watchdog found a work failed, a time-out or another exception (the monitor's exit
# reason is "collective timeout or exception"); from rank N: it dumps because rank N's did (-1:
# the store did not say which). Only the default group's monitor prints it: E and C are that
# group's counts.
_DUMP_SIGNAL_RE = re.compile(
    r"Received a dump signal due to a collective timeout from\s*"
    r"(?:(?P<local>this\s*local\s*rank)|rank\s+(?P<peer>-?\d+))"
)
_DUMP_SIGNAL_OPEN_RE = re.compile(r"Received a dump signal due to a collective timeout from")
_RECORD_START_RE = re.compile(r"^\s*(?:\[|[EWIF]\d{4} |\d{4}-\d\d-\d\d)")
"""How a record of its own starts (a launcher's tag, glog's level and date, an ISO time stamp):
never the wrapped rest of the line above."""
_DETECTED_RE = re.compile(
    r"(?:Exception \(either an error or timeout\)|failure) detected by watchdog at work"
    r"(?: sequence id)?: (?P<seq>\d+)"
)
# ROCm's HSA runtime on a device fault, then it aborts the process (ROCm/ROCR-Runtime
# runtime/hsa-runtime/core/runtime/runtime.cpp, the hardware-exception handler: reason "ECC" or
# "GPU Hang"): "HW Exception by GPU node-9 (Agent handle: 0x5b5e27441f40) reason :GPU Hang".
# The ranks still waiting on that process time out in the watchdog later.
# The same runtime's memory fault handler (runtime.cpp, MemoryFaultHandler): "Memory access fault
# by GPU node-2 (Agent handle: 0x560f8742a5e0) on address 0x150c73c10000. Reason: Unknown."
_HW_EXCEPTION_RE = re.compile(
    r"HW Exception by GPU (?P<node>node-\d+)\b.*?reason\s*:\s*(?P<why>.+?)\s*$"
    r"|(?P<fault>Memory access fault) by GPU (?P<node2>node-\d+)\b.*?Reason:\s*(?P<why2>[^.\n]+)"
)
_FAILURE_FIELD_RE = re.compile(r"^\s*(time|host|rank|exitcode|error_file|traceback)\s*:\s*(.*)$")
# torch elastic's summary prints "rank      : 2 (local_rank: 2)" and "exitcode  : -6 (pid: 7)"
# (ChildFailedError._format_failure): a program's own "rank: 2, memory allocated: 0" is not one
_FIELD_VALUE_FORMS = {
    "rank": re.compile(r"-?\d+(?: \(local_rank: \d+\))?"),
    # a newer torch names the signal after it: "-15 (pid: 9628)  (SIGTERM)"
    "exitcode": re.compile(r"-?\d+(?: \(pid: \d+\))?(?:\s+\(SIG\w+\))?"),
    # a host name: one token ("host :22337:22453 [6] NCCL INFO ..." is NCCL's prefix of a host
    # the poster named "host", not a summary's field)
    "host": re.compile(r"\S+"),
}


def _failure_field(line: str) -> re.Match[str] | None:
    """A field of a torch elastic summary entry, its value in the summary's own form."""
    m = _FAILURE_FIELD_RE.match(line)
    if m is not None and (form := _FIELD_VALUE_FORMS.get(m.group(1))) is not None:
        if not form.fullmatch(m.group(2).strip()):
            return None
    return m


# pytorch ProcessGroupNCCL.cpp, the heartbeat monitor's loop: "ProcessGroupNCCL's watchdog got
# stuck for <heartbeatTimeoutInSec_> seconds without making progress in monitoring enqueued
# collectives" (torch_npu's ProcessGroupHCCL prints the same with HCCL), then it terminates the process.
_STUCK_RE = re.compile(r"ProcessGroup(?P<lib>[NH]CCL)'s watchdog got stuck for (?P<s>\d+) seconds")
# The same monitor's other verdict lines (ProcessGroupNCCL.cpp heartbeatMonitor): "Heartbeat monitor
# timed out! Process will be terminated after dumping debug info." before that one, and, in torch
# 2.6+, "Terminating the process after attempting to dump debug info, due to ProcessGroupNCCL
# watchdog hang." (getNCCLWatchdogTimeoutExitMsg with the exit reason); torch_npu prints the HCCL
# forms.
_HEARTBEAT_VERDICT_RE = re.compile(
    r"Heartbeat monitor timed out!|due to ProcessGroup(?P<lib>[NH]CCL) watchdog hang"
)
# pytorch torch/distributed/elastic/multiprocessing/api.py: the agent logs the first failure by
# time (min over failures of their timestamp) as "failed (exitcode: %s) local_rank: %s (pid: %s) of
# binary: %s" ("of fn: .." for a function entry point); the prefix is the logging format's
# ("ERROR:torch.distributed.elastic.multiprocessing.api:", "[..] ...api: [ERROR] ", glog "api.py:826] ").
# A job's log on Alibaba PAI-DLC (shihao1895/MemoryVLA issue 20, tests/data SOURCES.md) words the
# same line "failed (exitcode: -9) for binary located at PATH with local_rank: 0 (process ID: 71)"
# (a build whose api.py is not upstream's: read as the same verdict).
_AGENT_FAILED_RE = re.compile(
    # (torch's api.py: "... (pid: N) of binary: <path>" or "of fn: <name>"; a copy wrapped at
    # the terminal's width may cut the line anywhere after the pid: "... (pid: 51428) of bi")
    r"\bfailed \(exitcode: (?P<code>-?\d+)\) (?:local_rank: (?P<lr>\d+) \(pid: (?P<pid>\d+)\)"
    r"(?: of (?:binary|fn)| of ?\w{0,5}\s*$|\s*$)|for binary located at \S+ with local_rank: (?P<lr2>\d+) "
    r"\(process ID: (?P<pid2>\d+)\))"
)
_STORE_RE = re.compile(
    # TCPStore's server waiting for its workers ("clients" in older torch; "workers" with
    # DistStoreError, the form pytorch/pytorch#111805 shows)
    r"Timed out after (\d+) seconds waiting for (?:clients|workers)\. (\d+)/(\d+) "
    r"(?:clients|workers) joined"
)


def op_name(name: str) -> str:
    """torch's name of an operation as a log names it ("AllReduce", "ALLREDUCE", hcom's "all
    reduce")."""
    return OPS.get(name) or name.lower().replace(" ", "_")


OPS = {
    "Allreduce": "all_reduce",
    "Allgather": "all_gather",
    "AlltoAllV": "all_to_all",
    "Alltoallv": "all_to_all",
    "Recv": "recv",
    "Barrier": "barrier",
    "ALLREDUCE": "all_reduce",
    "AllReduce": "all_reduce",
    "ALLGATHER": "all_gather",
    "AllGather": "all_gather",
    "_ALLGATHER_BASE": "all_gather",
    "REDUCE_SCATTER": "reduce_scatter",
    "ReduceScatter": "reduce_scatter",
    "_REDUCE_SCATTER_BASE": "reduce_scatter",
    "ALLTOALL": "all_to_all",
    "ALLTOALL_BASE": "all_to_all",
    "AlltoAll": "all_to_all",
    "AllToAll": "all_to_all",
    "BROADCAST": "broadcast",
    "Broadcast": "broadcast",
    "REDUCE": "reduce",
    "Reduce": "reduce",
    "BARRIER": "barrier",
    "SEND": "send",
    "RECV": "recv",
    "Send": "send",
    "Receive": "recv",
    "GATHER": "gather",
    "SCATTER": "scatter",
    "COALESCED": "coalesced",
}
"""Operation names in watchdog messages and HCCL task tags → facts naming."""


@dataclass(kw_only=True)
class LogEvent:
    kind: str
    """hccl_error, hccl_call_failure, hccl_transport_failure, hccl_p2p_failure, unique_id_failure,
    nccl_net_error, nccl_ib_fatal_event, nccl_ib_port_event, nccl_ib_notice, nccl_warning,
    nccl_call_failure, npu_runtime_error, store_bind_failure, store_connect_failure,
    device_oom, npu_device_exception, rendezvous_failure, cuda_error,
    monitored_barrier_failure, launcher_exit, watchdog_exception, python_exception, ucx_error,
    deepep_timeout, log_error, coordination_timeout, gloo_error, hccl_plog_error, libfabric_warning,
    nccl_connect_retry, ray_placement,
    torch_npu_error, watchdog_timeout, watchdog_failure, watchdog_hang, watchdog_progress,
    elastic_failure, store_timeout, hccl_heartbeat, hccl_link_timeout, hccl_bind_failure,
    hccl_negotiation_failure, hccl_rdma_init_failure, hccl_cqe_error, store_lost or
    gpu_hw_exception, gpu_driver_fault, gpu_driver_error, ascend_tool_failure, npu_dcmi_error,
    faultdiag_fault, pg_timeout_warning, nccl_socket_network, store_barrier_wait, duplicate_rank,
    pg_settings, nhc_failure, nvshmem_error, asys_check, dmi_check, reschedule,
    pg_abort_timeout, input_pipeline_failure, duplicate_gpu, pcie_aer_corrected, pcie_aer_corrected_few,
    pcie_aer_nonfatal, pcie_aer_fatal, npu_driver_error, npu_driver_startup, rdma_no_device,
    rdma_device_unreadable (the importer's, from ibstat's abort),
    rdma_device_not_found (the importer's, ibstat given a name no RDMA device has), rdma_no_gid (show_gids'), elastic_restart (torch elastic's agent restarting
    its failed worker group), disk_full (a write that found no space left on the device),
    hccl_op_retry_connect (HCCL's op-retry channel that could not reach its server), rdma_ipv6_gid_only (show_gids' RoCE
    ports whose routable RoCEv2 GIDs are IPv6 only),
    mindspore_unregistered, faultdiag_performance (the importer's, ascend-fd's performance modules),
    npu_freq_reduced (the importer's, MindCluster's frequency-reduction check of its npu-smi samples),
    link_carrier_lost, bmc_fault, bmc_event, pg_debug_dump, pg_dump_unfinished, device_not_offered,
    pcie_link_narrow (the importer's, lspci's), link_speed_low (the importer's, ethtool's),
    pod_unschedulable (the importer's, Kubernetes events), node_unavailable (the importer's, sinfo's
    and scontrol's node states), transfer_stalled (the importer's, iperf's), rdma_test_setup_failed
    (the importer's, a ping-pong that failed before any RDMA traffic), host_ping_failed (the
    importer's, a ping between hosts), dcgm_health_incident
    (DCGM's health watch's ``ErrorCode:DCGM_FR_...`` as a node monitor prints it), pod_failing (the
    importer's, kubectl's pods and DaemonSets), horovod_shutdown,
    mpi_transport_error, gloo_loopback (Gloo bound to the loopback address),
    comm_group_failure (MindSpore's group it could not create on the device), nic_rx_discards
    (the importer's, ethtool -S's port discards against its received packets), run_success or
    gone_past (an error the run went on past: ``was`` holds its kind)."""
    line: int
    message: str
    """The line that carried the event, trimmed."""
    code: str | None = None
    """CANN error code (EI0006 ...)."""
    code_name: str | None = None
    """Symbolic name printed with the code by newer CANN (Communication_Error_Bind_IP_Port)."""
    rank: int | None = None
    host: str | None = None
    device: int | None = None
    op: str | None = None
    seq: int | None = None
    numel: int | None = None
    timeout_ms: int | None = None
    ran_for_ms: int | None = None
    last_enqueued: int | None = None
    last_completed: int | None = None
    remote_rank: int | None = None
    group: str | None = None
    rank_size: int | None = None
    port: int | None = None
    ip: str | None = None
    local_rank: int | None = None
    exit_code: int | None = None
    pid: int | None = None
    root_cause: bool = False
    library: str | None = None
    """NCCL or HCCL: the library of a watchdog event, and HCCL for every ``hccl_*`` event but a
    CANN code of another module (EE9999 runtime, EZ9999 operator, E40024 compiler)."""
    time_s: float | None = None
    """When it was logged, in seconds on a year-less clock (month, day, time of day: glog lines
    print no year), comparable across the ranks' logs of one job; None when the line has none."""
    remote_ip: str | None = None
    """The peer's address HCCL tried to reach (socket table ``dest_ip``, ``remote_ip_addr``);
    ``ip`` is then this rank's own end."""
    culprit_ip: str | None = None
    """``Cluster Exception Location[IP/ID]``: the node whose device HCCL blames."""
    culprit_device: int | None = None
    """The blamed device on ``culprit_ip``."""
    discoverer_ip: str | None = None
    """The node that noticed (``Discoverer:[IP/ID]``)."""
    discoverer_device: int | None = None
    call: str | None = None
    """The HCCL API that returned an error (torch_npu's "HCCL function error: <call>(...)")."""
    torch_npu_code: str | None = None
    """torch_npu's own ERRnnnnn code printed with the failure ("ERR02200 DIST call hccl api
    failed"); ``code`` is then what the call itself returned."""
    worker: str | None = None
    """The worker a Ray or vLLM prefix names before the line ("Worker_TP3", "RayWorker"): with
    no global rank printed, the process by its role (a TP index is the worker's place in its
    engine, not a rank)."""
    missing_ranks: list[int] | None = None
    """Ranks that never reached the root node during cluster negotiation (EI0015's "List of
    unconnected ranks", the root's "Failed to connect agent[...]")."""
    exception_type: str | None = None
    """HCCL's ``ExceptionType`` (Heartbeat Lost Occurred, Stuck Occurred), the socket table's
    status (time out) or a listen failure's ``socket type N``."""
    repeated_lines: list[int] | None = None
    """The later lines where the same process printed the same text again (an NCCL WARN a
    retry loop repeats): one event, every line of it kept."""
    was: str | None = None
    """The kind a ``gone_past`` event was read as before the run's own word that it succeeded
    (``_gone_past_success``) made it one the run went on past."""


@dataclass(kw_only=True)
class LogReport:
    events: list[LogEvent] = field(default_factory=list)
    unread: list[ParseWarning] = field(default_factory=list)
    """Records recognised but cut before what they would say (a socket table with no row, a
    wrapped watchdog record with no rest, an empty summary entry), each at its line."""
    hosts: list[str] = field(default_factory=list)
    """Hosts NCCL's debug prefix (``host:pid:tid [dev] NCCL ...``) names: where the processes
    that printed those lines ran."""
    generic: bool = False
    """The log is a program's log in no form read here: only its first error line was looked for
    (``log_error``), or none was found."""

    def of_kind(self, kind: str) -> list[LogEvent]:
        return [e for e in self.events if e.kind == kind]


# HCCL's heartbeat reports an RDMA error completion on a link: "[ERROR] HCCL(12337,python):...
# [heartbeat.cc:551]...[Heartbeat]cqe err status[12], time:[...], ip:[192.1.95.102]" (newer CANN:
# "cqe error status[12] ... remoteIP:[...]"; ascend-faultdiag reads both, and pairs status 12
# with the RDMA retransmission settings: the verbs completion status IBV_WC_RETRY_EXC_ERR).
_CQE_STATUS_RE = re.compile(
    r"cqe err(?:or)? status\[(?P<status>\d+)\].*?(?:\bip|remoteIP):\[(?P<ip>[0-9A-Fa-f.:]+)\]"
)
# HCCL's init line names this process's rank, the communicator's size and the device:
# "hcom init by file success,take time [248118]us, rankTablePath[...], rankNum[128], rank[76],
# server[192.168.102.141], device[4]"
_HCOM_INIT_RE = re.compile(
    r"hcom init by file suc\w+.*?rankNum\[(?P<size>\d+)\], rank\[(?P<rank>\d+)\]"
    r"(?:, ?server\[(?P<server>[^\]]*)\])?(?:, ?device\[(?P<dev>\d+)\])?"
)


def _hccl_cqe_errors(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """RDMA error completions HCCL's heartbeat logged, one per peer address and status."""
    init: re.Match[str] | None = None
    seen: set[tuple[str, int]] = set()
    for no, line, tagged in lines:
        if "hcom init" in line and (im := _HCOM_INIT_RE.search(line)):
            init = im
            continue
        if "cqe err" not in line or not (m := _CQE_STATUS_RE.search(line)):
            continue
        status = int(m.group("status"))
        if (m.group("ip"), status) in seen:
            continue
        seen.add((m.group("ip"), status))
        pid = _PLOG_PID_RE.match(line)
        ev = LogEvent(
            kind="hccl_cqe_error",
            line=no,
            message=line.strip()[:300],
            code=str(status),
            code_name=IBV_WC_STATUS[status] if status < len(IBV_WC_STATUS) else None,
            rank=tagged,
            remote_ip=m.group("ip"),
            pid=int(pid.group(1)) if pid else None,
            library="HCCL",
        )
        if init is not None:  # the process's own communicator, logged before it
            ev.rank = int(init.group("rank")) if ev.rank is None else ev.rank
            ev.rank_size = int(init.group("size"))
            ev.ip = init.group("server")
            ev.device = int(init.group("dev")) if init.group("dev") else None
        report.events.append(ev)


# torch_npu's ProcessGroupHCCL checks that each collective was dispatched to the device in time
# (WorkHCCL::checkDispatch, a warning): "Process group work REDUCE_SCATTER, seq_num 32716847
# dispatch timeout. device 3: the current working event is 0x..." once the work has waited in
# torch_npu's task queue longer than its dispatch time-out (600 s, or HCCL_EXEC_TIMEOUT less 30 s),
# and "... seq_num N dispatch success. This warning log can be ignored." when it went out after
# all; the work never reached the device, a time-out of that work in the queue behind the
# device's current task.
_DISPATCH_TIMEOUT_RE = re.compile(
    r"Process group work (?P<op>\w+), seq_num (?P<seq>\d+) dispatch timeout\.(?: device (?P<dev>\d+))?"
)
_DISPATCH_SUCCESS_RE = re.compile(
    r"Process group work (?P<op>\w+), seq_num (?P<seq>\d+) dispatch success\b"
)
_LOGGER_PID_RE = re.compile(r"^\s*\[(\d+)\] \[\d{4}-")


def _logger_pid(line: str) -> str | None:
    """The process id torch_npu's logger prints first ("[7928] [2026-06-04 ...] ...")."""
    m = _LOGGER_PID_RE.match(line)
    return m.group(1) if m else None


def _dispatch_timeouts(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    seen: set[tuple[int | None, int]] = set()
    # (rank tag, seq) of works whose dispatch went out after its warning: no time-out left
    # (each process and op: torch_npu's own log prints no launcher tag, and its process id,
    # "[7928] [date] torch.distributed: ...", tells two processes' works of one seq apart)
    went_out = {
        (tagged, _logger_pid(line), m.group("op"), int(m.group("seq")))
        for _, line, tagged in lines
        if "dispatch success" in line and (m := _DISPATCH_SUCCESS_RE.search(line))
    }
    for no, line, tagged in lines:
        if "dispatch timeout" not in line or not (m := _DISPATCH_TIMEOUT_RE.search(line)):
            continue
        seq = int(m.group("seq"))
        if (tagged, _logger_pid(line), m.group("op"), seq) in went_out:
            continue
        if (tagged, seq) in seen:
            continue
        seen.add((tagged, seq))
        pid = _PLOG_PID_RE.match(line)
        report.events.append(
            LogEvent(
                kind="watchdog_timeout",
                line=no,
                message=line.strip()[:300],
                rank=tagged,
                op=OPS.get(m.group("op"), m.group("op").lower()),
                seq=seq,
                device=int(m.group("dev")) if m.group("dev") else None,
                pid=int(pid.group(1)) if pid else None,
                library="HCCL",
                exception_type="dispatch timeout",
            )
        )


# CANN's TraceBack lines name where they were reported: "[Init][Compiler]Init compiler failed
# [FUNC:ReportInnerError][FILE:log_inner.cpp][LINE:145]" (sglang issue 9226 on a 910B3); a copy
# that kept them without the error code above them still says a CANN call failed.
_INNER_ERROR_RE = re.compile(r"^\s*(?P<what>.*?)\s*\[FUNC:ReportInnerError\]")


def _cann_inner_errors(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """CANN's inner-error TraceBack lines in a log where nothing else was read: one event for
    the first, its code unknown (a code's own block, a failed runtime call or an out-of-memory
    error reads these lines when it is there)."""
    if report.events:
        return
    found = [
        (no, m, tagged)
        for no, line, tagged in lines
        if "ReportInnerError" in line and (m := _INNER_ERROR_RE.search(line))
    ]
    if not found:
        return
    no, m, tagged = found[0]
    more = f" (and {len(found) - 1} more such line(s))" if len(found) > 1 else ""
    report.events.append(
        LogEvent(
            kind="hccl_error",
            line=no,
            message=f"{m.group('what')[:240]}{more}",
            code_name="CANN inner error, its code not in the log",
            rank=tagged,
        )
    )


# HCCL's plog names the process's place in the world group on its init and destroy lines:
# "[hcom.cc:264][hccl-83434-0-1669821563-hccl_world_group][1]hcom destroy complete,take time
# [323391]us, rankNum[8], rank[1]", "hcom init failed, rankNum[8], rank[0], server[..], device[0]"
_WORLD_RANK_RE = re.compile(
    r"rankNum\[(?P<size>\d+)\],\s*rank\[(?P<rank>\d+)\](?:.*?device\[(?P<dev>\d+)\])?"
)


def _hccl_world_rank(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """A log of one process (every world-group line names the same rank, and every plog line
    the same pid) gives that rank, and the device where the line names one, to its events
    that name none; an event printed by another pid keeps none."""
    found: set[tuple[int, int]] = set()
    device: int | None = None
    for _, line, _ in lines:
        if "rankNum[" not in line or (
            "hccl_world_group" not in line and "hcom init by file" not in line
        ):
            continue
        if m := _WORLD_RANK_RE.search(line):
            found.add((int(m.group("rank")), int(m.group("size"))))
            device = int(m.group("dev")) if m.group("dev") else device
    if len(found) != 1:
        return  # no such line, or several processes' lines in one file
    pids = {
        int(pm.group(1))
        for _, line, _ in lines
        if line.startswith("[") and (pm := _PLOG_PID_RE.match(line))
    }
    if len(pids) > 1:
        return  # plog lines of several processes
    ((rank, size),) = found
    for ev in report.events:
        if ev.rank is None and (ev.pid is None or ev.pid in pids):
            ev.rank = rank
            ev.rank_size = ev.rank_size or size
            if ev.device is None:
                ev.device = device


def parse(text: str) -> LogReport:
    """Find every recognised failure event; ParseError when there is none, no NCCL debug line
    names a host, no HCCL plog line is there (an NCCL_DEBUG=INFO log or an HCCL plog of a
    healthy run is evidence too) and the run did not say it succeeded."""
    success = _run_success(text)
    try:
        report = _parse_events(text)
    except ParseError:
        if success is None:
            raise
        report = LogReport()  # the run's own word that it succeeded, and no error line
    if success is not None:
        _gone_past_success(report, success)
    _notes_beside_events(text, report)
    return report


def _notes_beside_events(text: str, report: LogReport) -> None:
    """Notes that stand beside whatever the reading found (or did not): npu-smi that could not
    be run, NCCL's set-up or tear-down beside another failure, vLLM's own words of its
    communication. The text's lines are numbered once, where one of them applies."""
    numbered: list[tuple[int, str, int | None]] | None = None

    def lines() -> list[tuple[int, str, int | None]]:
        nonlocal numbered
        if numbered is None:
            numbered = numbered_lines(text)
        return numbered

    if "can not use command: npu-smi" in text:
        _npu_smi_unusable(lines(), report)
    if (
        report.events
        and "Init COMPLETE" in text
        and not any(w.message.startswith("NCCL ") for w in report.unread)
        and not any(
            e.kind.startswith(("nccl", "watchdog", "cuda")) and e.kind != "watchdog_failure"
            for e in report.events
        )
    ):
        # a run whose communicators NCCL set up before another failure (a program's own
        # error, or a failure its watchdog found with no reason given): what NCCL ran with,
        # beside it
        _nccl_setup_notes(lines(), report)
    elif report.events and ("Abort COMPLETE" in text or "Destroy COMPLETE" in text):
        # (a failed run's communicators NCCL tore down after it: how many, of what size)
        ended = LogReport()
        _nccl_setup_notes(lines(), ended)
        report.unread += [w for w in ended.unread if " ended by " in w.message]
    if (" is using nccl==" in text or "Custom allreduce is disabled" in text) and not any(
        "'s pynccl)" in w.message for w in report.unread
    ):
        _vllm_notes(text, lines(), report)
    if "Error waiting on exit barrier" in text:
        _exit_barrier_notes(lines(), report)
    if "] [INFO]" in text:
        _installer_notes(lines(), report)
    for full in [e for e in report.events if e.kind == "disk_full"]:
        # (by their times where both have one: a log of one rank after another's is in no
        # order of time; else by line, within one rank's lines)
        before = [
            e.line
            for e in report.events
            if e.kind != "disk_full"
            and (
                e.time_s < full.time_s
                if e.time_s is not None and full.time_s is not None
                else e.line < full.line and e.rank == full.rank
            )
        ]
        if before:
            # (an emergency save after the time-outs: the disk filled as the job was failing)
            full.exception_type = (
                f"{full.exception_type}; after the failure on line {min(before)}, which it did "
                "not cause"
            )


# The installer of Ascend's run packages (a driver's or firmware's "*.run --upgrade" / "--full"):
# its own lines "[Driver] [2025-04-17 09:39:16] [INFO]base version is 24.1.rc3.1.", its record of
# the command ("[INFO]UserCommand: Ascend910B-firmware-7.7.t15.0.b092.run --quiet --full"), its
# progress ("[INFO]upgradePercentage:10%"), and between them what a script it runs prints on its
# own (Huawei Cloud's CCE FAQ "NPU驱动升级失败如何解决？", support.huaweicloud.com/cce_faq/
# cce_faq_00494.md: an A300-3010 driver's "--upgrade" whose output, with
# "/usr/local/Ascend/driver/script/device_hot_reset.sh: line 269: echo: write error: No such
# device" under "device hot reset start", the FAQ calls an upgrade that succeeded)
_INSTALLER_LINE_RE = re.compile(
    r"^[ \t]*\[(?P<tag>[A-Z][A-Za-z]{1,20})\][ \t]+\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\][ \t]+"
    r"\[(?P<level>[A-Z]{3,8})\](?P<said>[^\n]*)$"
)
_INSTALLER_BASE_RE = re.compile(r"^base version is (?P<version>\S{1,80}?)\.?[ \t]*$")
_INSTALLER_PROGRESS_RE = re.compile(r"^(?P<what>[a-z]{1,20})Percentage:[ \t]*(?P<pct>\d{1,3})%")
_INSTALLER_COMMAND_RE = re.compile(r"^UserCommand:[ \t]*(?P<command>\S[^\n]*)$")
# bash's own words for a failed command in a script: "<script>: line N: <what>"
_SCRIPT_ERROR_RE = re.compile(r"^[ \t]*(?P<script>/\S{1,300}\.sh): line \d{1,6}: [^\n]*\berror\b")
INSTALLER_NOTE = "Ascend package installer"
"""How the note of an Ascend run package's installer begins."""


@dataclass(kw_only=True)
class _InstallerRun:
    tag: str
    first: int
    last: int
    command: tuple[int, str] | None = None
    base: tuple[int, str] | None = None
    progress: tuple[int, str, int] | None = None
    error: tuple[int, str] | None = None
    script_error: tuple[int, str, str] | None = None


def _run_command(line: str) -> str | None:
    """A run package typed with its options (``./A300-3010-npu-driver_24.1.rc3.1_linux-aarch64.run
    --upgrade``), from the package on."""
    words = line.split()
    for at, word in enumerate(words[:-1]):
        if word.endswith(".run") and words[at + 1].startswith("-"):
            return " ".join(words[at:])
    return None


def _installer_notes(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """A note per run of an Ascend package's installer: its command, base version, last
    progress, its first ERROR line and a script's error line among its own."""
    runs: dict[str, _InstallerRun] = {}
    order: list[_InstallerRun] = []
    typed: tuple[int, str] | None = None
    previous = ""
    for no, line, _ in lines:
        m = _INSTALLER_LINE_RE.match(line) if "] [" in line else None
        if m is None:
            if ".run" in line and (command := _run_command(line)):
                typed = (no, command)
            elif order and _SCRIPT_ERROR_RE.match(line) and not order[-1].script_error:
                order[-1].script_error = (no, line.strip()[:200], previous)
            continue
        tag, said = m.group("tag"), m.group("said").strip()
        run = runs.get(tag)
        if run is None or said.startswith("Start time:"):
            run = runs[tag] = _InstallerRun(tag=tag, first=no, last=no)
            order.append(run)
            if typed is not None:
                run.command, typed = typed, None
        run.last = no
        previous = said
        if c := _INSTALLER_COMMAND_RE.match(said):
            run.command = (no, c.group("command").strip())
        elif b := _INSTALLER_BASE_RE.match(said):
            run.base = (no, b.group("version"))
        elif p := _INSTALLER_PROGRESS_RE.match(said):
            run.progress = (no, p.group("what"), int(p.group("pct")))
        elif m.group("level") == "ERROR" and run.error is None:
            run.error = (no, said[:160])
    for run in order:
        if run.command is None and run.base is None:
            continue  # (a helper's lines inside another run, "[Server] ... unset success")
        said = [
            f"[{run.tag}] run"
            + (f" `{run.command[1]}` (line {run.command[0]})" if run.command else "")
        ]
        if run.base:
            said.append(f"base version {run.base[1]} (line {run.base[0]})")
        if run.error:
            said.append(f"its first ERROR line: {run.error[1]} (line {run.error[0]})")
        if run.script_error:
            no, quoted, after = run.script_error
            faq = (
                "; Huawei Cloud's CCE FAQ shows this line in a driver upgrade it calls successful"
                if "device_hot_reset.sh" in quoted and "No such device" in quoted
                else ""
            )
            said.append(
                f"a script's error line among its own: {quoted} (line {no}"
                + (f", after '{after[:80]}'" if after else "")
                + f"{faq})"
            )
        if run.progress:
            no, what, pct = run.progress
            said.append(
                f"its last progress {what}Percentage {pct}% (line {no})"
                + ("; the file ends before 100 %" if pct < 100 and no == run.last else "")
            )
        report.unread.append(
            ParseWarning(
                line=run.command[0] if run.command else run.first,
                message=f"{INSTALLER_NOTE}: " + "; ".join(said),
                skipped=False,
            )
        )


# torch elastic's agent after its own worker group ended (agent/server/api.py _exit_barrier): it
# waits exit_barrier_timeout (300 s by default) in a store barrier for the other nodes' agents,
# and logs "Error waiting on exit barrier. Elapsed: 307.28545117378235 seconds" where they did
# not all arrive; at once (well under a second) where the barrier's store was already gone
_EXIT_BARRIER_RE = re.compile(
    r"Error waiting on exit barrier\. Elapsed: (?P<s>\d+(?:\.\d+)?) seconds"
)
EXIT_BARRIER_TRACE_LINES = 20
"""How far under the exit barrier's error its traceback (and its store error) stands."""
EXIT_BARRIER_AT_ONCE_S = 1.0
"""A barrier that failed sooner than this waited for no one: its store was gone."""


def _exit_barrier_notes(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """A note of torch elastic's exit barrier that failed: how long the agent waited, and what
    that says of the other nodes."""
    for no, line, _ in lines:
        if "exit barrier" not in line or not (m := _EXIT_BARRIER_RE.search(line)):
            continue
        waited = float(m.group("s"))
        succeeded = any(_ELASTIC_SUCCEEDED_RE.search(t) for n, t, _ in lines if n < no)
        if succeeded:
            # (its own workers had finished: the store error of the barrier's traceback under it
            # is the barrier's wait, no failure of this node's job)
            report.events = [
                e
                for e in report.events
                if not (
                    e.kind in ("store_timeout", "store_lost", "python_exception")
                    and no <= e.line <= no + EXIT_BARRIER_TRACE_LINES
                )
            ]
        report.unread.append(
            ParseWarning(
                line=no,
                message="torch elastic's agent "
                + (
                    f"could not wait at its exit barrier ({waited:.3g} s): the barrier's store "
                    "was already gone (the node that held it had exited)"
                    if waited < EXIT_BARRIER_AT_ONCE_S
                    else f"waited {waited:.0f} s at its exit barrier for the other nodes' agents "
                    "and gave up: they had not finished (still running, hung, or stopped "
                    "without reaching it)"
                )
                + (
                    "; this node's own workers had finished (SUCCEEDED), the store error under "
                    "it is the barrier's"
                    if succeeded
                    else ""
                ),
                skipped=False,
            )
        )
        return


# vLLM's own words of its communication at start and at its end: "vLLM is using nccl==2.21.5"
# (pynccl.py), "Custom allreduce is disabled because it's not supported on more than two
# PCIe-only GPUs" (custom_all_reduce.py: its one-shot kernels need NVLink or two GPUs), and each
# worker's "Worker exiting" after "Terminating local vLLM worker processes"; SGLang's tensor-parallel
# ranks by its logger's tag ("[2025-09-11 10:24:21 TP0] ...", "[... DP0 TP0] ...", "[TP0 EP0] ...")
_SGLANG_TP_RE = re.compile(r"^\[(?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d )?(?:DP\d+ )?TP(?P<tp>\d+)[\] ]")
_VLLM_CUSTOM_AR_OFF_RE = re.compile(r"Custom allreduce is disabled because (?P<why>[^.\n]+)")
_VLLM_WORKER_PID_RE = re.compile(
    r"\((?:VllmWorkerProcess|VllmWorker|RayWorkerWrapper)[^)]*?pid=(\d+)"
)


def _vllm_notes(text: str, numbered: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One note of what vLLM (or SGLang) said of its communication: its NCCL, its workers (SGLang's
    tensor-parallel ranks and their gloo mesh), whether its custom all-reduce is on, and its
    workers' exit."""
    version = next((m for _, t, _ in numbered if (m := _VLLM_NCCL_RE.search(t))), None)
    off = next((m for _, t, _ in numbered if (m := _VLLM_CUSTOM_AR_OFF_RE.search(t))), None)
    first = next(
        (
            no
            for no, t, _ in numbered
            if _VLLM_NCCL_RE.search(t) or _VLLM_CUSTOM_AR_OFF_RE.search(t)
        ),
        1,
    )
    pids = sorted({int(p) for p in _VLLM_WORKER_PID_RE.findall(text)})
    exited = text.count("Worker exiting")
    said = []
    who = version.group("who") if version else "vLLM"
    if version and not any(
        w.message.startswith(f"NCCL {version.group('v')}") for w in report.unread
    ):  # (NCCL's own version line said it already)
        said.append(f"NCCL {version.group('v')} ({PYNCCL_OF[who]})")
    if who == "sglang":
        said += _sglang_ranks(numbered)
    if pids:
        said.append(
            f"{len(pids)} worker process(es) (pid {', '.join(map(str, pids[:8]))}{' ...' if len(pids) > 8 else ''})"
        )
    if off:
        said.append(
            f"its custom all-reduce off ({off.group('why').strip()}): NCCL's all-reduce instead"
        )
    if exited:
        said.append(f"{exited} worker(s) exited ('Worker exiting')")
    if said:
        report.unread.append(
            ParseWarning(
                line=first,
                message=f"{'SGLang' if who == 'sglang' else 'vLLM'}: " + "; ".join(said),
                skipped=False,
            )
        )


def _sglang_ranks(numbered: list[tuple[int, str, int | None]]) -> list[str]:
    """What SGLang's lines say of its ranks: the tensor-parallel ranks its logger tagged, and
    those whose gloo mesh came up with every peer it expected (a one-rank group's "0 of 0" says
    nothing)."""
    tps = sorted({int(m.group("tp")) for _, t, _ in numbered if (m := _SGLANG_TP_RE.match(t))})
    meshed: dict[int, int] = {}
    for _, t, _ in numbered:
        if "Expected number of connected" in t and (c := GLOO_CONNECTED_RE.search(t)):
            n, expected = int(c.group("n")), int(c.group("expected"))
            if expected and n >= expected:
                meshed.setdefault(int(c.group("rank")), expected)
    span = _number_span(tps, shortest_run=3).replace("-", "-TP").replace(", ", ", TP")
    said = [f"{len(tps)} tensor-parallel rank(s) (TP{span})"] * bool(tps)
    if meshed:
        peers = sorted(set(meshed.values()))
        said.append(
            f"gloo's mesh up on rank(s) {_number_span(sorted(meshed), shortest_run=3)}, each "
            f"connected to its {' or '.join(map(str, peers))} peer(s)"
        )
    return said


# MLPerf's logger (mlcommons/training compliance/mllog/constants.py): each record a line
# ':::MLLOG {"namespace": "", "time_ms": ..., "event_type": ..., "key": ..., "value": ...,
# "metadata": {"file": ..., "lineno": ...}}'; a run opens with INIT_START ("init_start") and
# RUN_START ("run_start") and ends in RUN_STOP ("run_stop") whose metadata status is SUCCESS
# ("success": the quality target reached) or ABORTED ("aborted"). Every rank may print them, and a
# submitter's script runs several trials in one log.
MLLOG_PREFIX = ":::MLLOG "
_MLLOG_STARTS = frozenset({"init_start", "run_start"})
GONE_PAST_KINDS = frozenset(
    {"nccl_warning", "ucx_error", "libfabric_warning", "nccl_connect_retry", "python_exception",
     "log_error", "gloo_error", "store_connect_failure", "input_pipeline_failure"}
)  # fmt: skip
"""Errors a run printed and went on past: between its start and its own word that it succeeded
they were not its end (a device it could not open and did without, a retried connect, a
traceback a library logged and caught)."""
TEARDOWN_KINDS = GONE_PAST_KINDS | frozenset(
    {"job_cancelled", "launcher_exit", "elastic_failure", "watchdog_timeout", "watchdog_failure",
     "watchdog_exception", "watchdog_hang", "watchdog_progress", "nccl_call_failure",
     "nccl_net_error", "store_lost", "store_timeout", "rendezvous_failure", "cuda_error",
     "pg_abort_timeout"}
)  # fmt: skip
"""What a run's end printed after its own word that it succeeded (a scheduler's time limit met
while it closed, a communicator aborted at exit, a worker's semaphore already unlinked): the run's
result stands; a failure of the job before that word (a restart it recovered from) stays one, and
a device's or the machine's fault (an Xid, an ECC error, a silent data corruption) stays one
wherever it stands."""


@dataclass(kw_only=True)
class RunSuccess:
    start: int
    """The run's first line: the one after an earlier trial's unsuccessful run_stop, else the
    log's first."""
    line: int
    said: str


def _mllog(line: str) -> dict[str, Any] | None:
    """The MLLOG record on ``line`` (decoded as JSON, not searched: a line of many records joined
    stays linear), None when there is none or it does not decode."""
    at = line.find(MLLOG_PREFIX)
    if at < 0:
        return None
    try:
        record = json.loads(line[at + len(MLLOG_PREFIX) :])
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


# torch elastic's events, one JSON record a worker as its agent ends it (torch/distributed/
# elastic/events: {"name": "torchelastic.worker.status.SUCCEEDED", "source": "WORKER",
# "metadata": {"global_rank": 0, "state": "SUCCEEDED", "raw_error": null, ...}})
_ELASTIC_STATUS_RE = re.compile(
    r'"name": "torchelastic\.worker\.status\.(?P<state>[A-Z]+)".*?"global_rank": (?P<rank>\d+)'
)


def _elastic_success(text: str) -> RunSuccess | None:
    """Every worker torch elastic reports SUCCEEDED (none FAILED): the run's own word that it
    ended well, at the last such record."""
    ranks: list[str] = []
    last = 0
    for no, line in enumerate(text.splitlines(), start=1):
        if "torchelastic.worker.status." not in line or not (m := _ELASTIC_STATUS_RE.search(line)):
            continue
        if m.group("state") != "SUCCEEDED":
            return None
        ranks.append(m.group("rank"))
        last = no
    if not ranks:
        return None
    return RunSuccess(
        start=0,
        line=last,
        said=f"torch elastic reports its worker(s) SUCCEEDED (global rank {', '.join(ranks)})",
    )


def _run_success(text: str) -> RunSuccess | None:
    """The last run's own word that it succeeded (MLPerf's RUN_STOP "success"), with where that
    run's lines begin (after an earlier trial's unsuccessful end); None when the last run said
    none, one of its ranks aborted, or a later run started after it (a trial that came after,
    whose end is not in that word)."""
    if "torchelastic.worker.status." in text:
        return _elastic_success(text)
    if "Training completed" in text and (done := _titan_success(text)) is not None:
        return done
    if "run_stop" not in text:
        return None
    start = 0  # the line after the previous run's end: this run's lines begin there
    found: RunSuccess | None = None
    for no, line in enumerate(text.splitlines(), start=1):
        if MLLOG_PREFIX not in line or (record := _mllog(line)) is None:
            continue
        key = record.get("key")
        if key in _MLLOG_STARTS and found is not None:
            return None  # another run started after the success
        if key != "run_stop":
            continue
        given = record.get("metadata")
        meta: dict[str, Any] = given if isinstance(given, dict) else {}
        status = str(meta.get("status", "")).lower()
        if status != "success":
            if found is not None:
                return None  # a rank of the same run aborted
            start = no + 1  # an earlier trial that ended without success: its lines stay
            continue
        where = (
            f" ({meta['file']}:{meta['lineno']})" if meta.get("file") and meta.get("lineno") else ""
        )
        found = RunSuccess(
            start=start, line=no, said=f'MLPerf\'s run_stop, status "success"{where}'
        )
    return found


# torchtitan's logger at the end of its training loop, as its run logs print it ("[rank0]:[titan]
# 2026-05-19 22:43:20,271 - root - INFO - Training completed", after "Sleeping 2 seconds for
# other ranks to complete"): its own word that the run finished
_TITAN_DONE_RE = re.compile(r"\[titan\] [^\n]*? - INFO - Training completed\s*$", re.M)
_TITAN_START_RE = re.compile(r"\[titan\] [^\n]*? - INFO - Training starts at step", re.M)


def _titan_success(text: str) -> RunSuccess | None:
    """torchtitan's "Training completed" of the last run in ``text`` (none started after it)."""
    done = list(_TITAN_DONE_RE.finditer(text))
    if not done:
        return None
    last = done[-1]
    if any(m.start() > last.start() for m in _TITAN_START_RE.finditer(text)):
        return None  # another run started after it
    return RunSuccess(
        start=0,
        line=text.count("\n", 0, last.start()) + 1,
        said='torchtitan\'s "Training completed"',
    )


def _gone_past_success(report: LogReport, success: RunSuccess) -> None:
    """The last run said it succeeded at ``success.line``: the errors it went on past since its
    start (``GONE_PAST_KINDS``) and the failures of its teardown after that line
    (``TEARDOWN_KINDS``) become ``gone_past`` notices, each with the kind it was read as
    (``was``); one ``run_success`` notice holds the line. An earlier trial's errors stay."""
    for ev in report.events:
        if (success.start <= ev.line < success.line and ev.kind in GONE_PAST_KINDS) or (
            ev.line > success.line and ev.kind in TEARDOWN_KINDS
        ):
            ev.was, ev.kind = ev.kind, "gone_past"
    report.events.append(LogEvent(kind="run_success", line=success.line, message=success.said))
    report.events.sort(key=lambda e: e.line)


def _parse_events(text: str) -> LogReport:
    lines = numbered_lines(text)
    raw = text.splitlines()  # the lines as written, launcher tags and all
    report = LogReport(hosts=_nccl_hosts(lines))
    _hccl_errors(raw, lines, report)
    _uncoded_ei0002(lines, report)
    _uncoded_bind_failure(lines, report)
    _hccl_stage_keywords(lines, report)
    _cmd_info_checks(lines, report)  # after the stage keywords: it adds to their EI0005
    # (last of HCCL's: a message whose code another reading gave already is read there)
    _hccl_messages_without_code(report, lines)
    _hccl_calls(lines, report)
    if "HCCL_" in text and "FAIL" in text:
        _bench_summary_failures(lines, report)
    if "will restart worker group" in text:
        _elastic_restarts(lines, report)
    if "Errno 28" in text or "No space left on device (28)" in text:
        _disk_full(lines, report)
    if "[OpRetryConnection]" in text:
        _op_retry_failures(lines, report)
    if "crash reason:" in text or "Signal " in text:
        _asys_crashes(lines, report)
    _transport_failures(lines, report)
    _p2p_failures(lines, report)
    _hccl_cqe_errors(lines, report)
    _dispatch_timeouts(lines, report)
    _unique_id_failures(lines, report)
    comm_ranks, rank_hosts = _nccl_comm_ranks(lines)
    _nccl_net_errors(lines, report, comm_ranks)
    _nccl_warnings(lines, report, comm_ranks)  # after the IB completions: it leaves their lines
    _nccl_call_failures(lines, report)
    _nccl_result_descriptions(lines, report)
    _npu_runtime_errors(lines, report)
    _ffts_timeouts(lines, report, raw)  # after the coded errors: only what none of them read
    _cuda_failures(lines, report)
    _ucx_errors(lines, report)
    _deepep_timeouts(lines, report)
    _coordination_timeouts(lines, report)
    _msrun(lines, report)
    _net_plugin_warnings(lines, report)
    _nccl_connect_retries(lines, report)
    _ray_placement(lines, report)
    _store_bind_failures(lines, report)
    _store_client_failures(lines, report)
    _store_lost(lines, report)
    _device_oom(lines, report)
    _npu_device_exceptions(lines, report)
    if "is too SMALL" in text:
        _hccl_buffsize_small(lines, report)
    _npu_device_faults(lines, report)
    if "shared libraries" in text or "undefined symbol" in text or "shared object file" in text:
        _loader_failures(lines, report)
    if "does not has any binary" in text or "binary_info_config.json failed" in text:
        _op_kernels_missing(lines, report)
    if (
        "istAndWatch" in text
        or "StartContainer" in text
        or "cannot allocate " in text
        or "endpoint not found in cache" in text
        or "Allocate failed due to" in text
    ):
        _kubelet_failures(lines, report)
    if (
        "node-register-" in text
        or "does not have allocatable" in text
        or "is unhealthy on this node" in text
    ):
        _devices_not_offered(lines, report)
    if " hook #" in text:
        _oci_hook_failures(lines, report)
    if "pyxis:" in text:
        _pyxis_failures(lines, report)
    if "Resource temporarily unavailable" in text or "start new thread" in text:
        _thread_limits(lines, report)
    fm_running = False
    if "fabricmanager" in text or "fabric manager" in text or "nvlsm: " in text:
        fm_running = _fabric_manager(lines, report)
    _getnext_failures(lines, report)
    if "comm group" in text:
        _mindspore_group_failures(lines, report)
    _task_queue_exits(lines, report)
    _monitored_barrier(lines, report)
    _gloo_errors(lines, report)  # after the barrier: it leaves the lines the barrier read
    if "Expected number of connected" in text:
        _gloo_connectivity(lines, report)
    _launcher_exits(lines, report)
    if "DUE TO TASK FAILURE" in text:
        _task_failure_cancels(lines, report)
    if (
        "system not yet initialized" in text
        or "cudaGetDeviceCount returned" in text
        or ("CUDA error at" in text and "cudaGetDevice" in text)
        or "UserWarning: CUDA initialization: " in text
    ):
        _cuda_not_ready(lines, report)
    if "halSqCqAllocate failed" in text:
        _stream_queues_exhausted(lines, report)
    if "Horovod has been shut down" in text:
        _horovod_shutdowns(lines, report)
    if "check_time_out_for" in text or "Please check connectivity between servers" in text:
        _horovod_start_timeouts(lines, report)
    if ", expected " in text and "errno = " in text:
        _mpi_cma_errors(lines, report)
    _watchdog_deaths(lines, report)
    _watchdog(lines, report)
    _same_process_records(report)
    _watchdog_timeout_stacks(lines, report)  # after it: only where it read no time-out
    if "c10_cuda_check_implementation" in text:
        _watchdog_cuda_check_stacks(lines, report)
    if "Caught collective operation timeout" in text:
        _blocking_wait_timeouts(lines, report)
    if "WorkNCCL::handle" in text or "WorkHCCL::handle" in text:
        _watchdog_abort_stacks(lines, report)
    _pg_abort_timeouts(lines, report)
    _pg_debug_dumps(lines, report)
    _pg_dump_waits(lines, report)
    _elastic(lines, report)
    _gpu_hw_exceptions(lines, report)
    _nvrm_errors(lines, report)
    _pcie_aer_errors(lines, report)
    if "section_type: memory error" in text:
        _cper_memory_errors(lines, report)
    if "blocked for more than" in text:
        _hung_tasks(lines, report)
    if "Kernel panic - not syncing" in text:
        _kernel_panics(lines, report)
    if "SilentCheck" in text:
        _silent_checks(lines, report)
    _npu_host_driver_errors(lines, report)
    _ascend_tool_failures(lines, report)
    _dcmi_errors(lines, report)
    if "ErrorCode:DCGM_FR_" in text:
        _dcgm_health_incidents(lines, report)
    if "Get physical device number failed" in text:
        _device_count_failures(lines, report)
    _pg_timeout_warnings(lines, report)
    _gloo_loopback(lines, report)
    _socket_network(lines, report)
    report.events.extend(net_without_gdr(lines))
    report.events.extend(nvlink_asymmetry(lines))
    _ib_link_layers(lines, report)
    _store_barrier_waits(lines, report)
    _duplicate_ranks(lines, report)
    _duplicate_gpus(lines, report)
    _pg_settings(lines, report)
    _recorder_off(lines, report)
    _hccl_env_settings(lines, report)
    _nhc_failures(lines, report)
    _nvshmem_errors(lines, report)
    _nvidia_tool_failures(lines, report)
    if "carrier" in text or ": Port: " in text:
        _carrier_losses(lines, report)
    if "get fault event" in text:
        _bmc_fault_events(lines, report)
    if "event_id=" in text:
        _dms_fault_events(lines, report)
    if "not successfully registered" in text:
        _mindspore_unregistered(lines, report)
    if "acl_nn_operation.cpp" in text or "hccl_runner.cpp" in text or "Execute type:" in text:
        _atb_errors(lines, report)
    _torch_npu_errors(lines, report)  # it leaves out ERR lines other events explain
    _cann_inner_errors(lines, report)  # only where no other event explains the lines
    _hccl_world_rank(lines, report)
    _hccl_init_skew(lines, report)
    _ddp_unused_parameters(lines, report)
    _nccl_ras(lines, report)
    if "PEER_" in text:
        _ras_monitor_lines(lines, report)
    # (the signature first: any other JSON stream is not decoded, and the decoding is done once)
    ras_json = (
        text.lstrip()[:1] == "{"
        and ('"nccl_version"' in text or '"event"' in text)
        and _RAS_JSON_RE.search(text) is not None
        and _nccl_ras_json(text, report)
    )
    _fr_trace(lines, report)
    _desync_report(lines, report)
    for index, (no, line, _) in enumerate(lines):
        if (
            "waiting for" in line
            and index + 1 < len(lines)
            and line.rstrip().endswith(("clients.", "workers."))
            and "joined" in lines[index + 1][1]
        ):
            # (a copy that wrapped the message after its first sentence: "... waiting for
            # clients. " then "1/16 clients joined.")
            line = f"{line.rstrip()} {lines[index + 1][1].strip()}"
        if "joined" in line and (m := _STORE_RE.search(line)):
            report.events.append(
                LogEvent(
                    kind="store_timeout",
                    line=no,
                    message=line.strip()[:300],
                    timeout_ms=int(m.group(1)) * 1000,
                    rank_size=int(m.group(3)),
                    remote_rank=None,
                    numel=int(m.group(2)),
                )
            )
    _warnings_gone_past(lines, report)  # once every other reading has said what failed
    # settings and notices (ProcessGroupNCCL's settings, a store barrier still waiting, NCCL on
    # sockets, a time-out warning) are no failure: the readings below that look for one where
    # none was found (a Python exception, a plog's first error ...) run as if they were absent
    notices = [e for e in report.events if e.kind in NOTICE_KINDS | BESIDE_KINDS]
    report.events = [e for e in report.events if e.kind not in NOTICE_KINDS | BESIDE_KINDS]
    try:
        cut_records = [w for w in report.unread if w.skipped]  # (notes on what was read: no cut)
        if not report.events and cut_records and not notices:
            raise ParseError(cut_records[0].message, cut_records[0].line)
        if not report.events:
            _nccl_silent_returns(lines, report)
        if not report.events and (last := _orphan_last_error(lines)):
            report.events.append(last)
        plog_errors = "[ERROR] " in text and any(
            not _PLOG_BOOKKEEPING_RE.search(
                text, m.start(), text.find("\n", m.start()) % (len(text) + 1)
            )
            for m in CANN_PLOG_ERROR_RE.finditer(text)
        )
        if (
            not report.events
            and not plog_errors
            and (cut := cut_traceback(lines))
            and python_exception(lines) is None
        ):
            # (before the hosts: NCCL INFO lines above a rank's end; an exception the text does
            # name, above a traceback cut later, is read below as that; a framework's ERROR
            # lines in plog form above it, MindSpore's "[ERROR] DEVICE(...)", say more)
            report.events.append(cut)
        if "is neither AF_INET" in text:
            _nccl_address_family(lines, report)
        if not report.events and "Killing subprocess" in text:
            # DeepSpeed's launcher stopping its workers, nothing else said of why
            _deepspeed_kills(lines, report)
        if (
            not report.events
            and (report.hosts or ("NCCL version" in text and BARE_NCCL_VERSION_RE.search(text)))
            # (a traceback's exception beside NCCL's lines, a thread's that raised: read below)
            and (TRACEBACK_HEADING not in text or python_exception(lines) is None)
        ):
            _nccl_setup_notes(lines, report)  # a healthy run's NCCL: what it ran with
            return report
        if not report.events and "NCCL version 1." in text and _NCCL1_VERSION_RE.search(text):
            _nccl1_notes(lines, report)  # NCCL 1.x's own lines (no host:pid prefix then)
            return report
        if (
            report.events
            and all(e.kind in _RUN_WENT_ON_KINDS for e in report.events)
            and (report.hosts or "NCCL version" in text)
        ):
            # NCCL's WARN lines alone (what it went on without): what it ran with, as above
            _nccl_setup_notes(lines, report)
        heartbeats_only = bool(report.events) and all(
            e.kind == "hccl_heartbeat" for e in report.events
        )
        if (not report.events or heartbeats_only) and plog_errors:
            # a plog whose ERROR lines no reading above explained: HCCL's first one (with its task
            # exception report), else another module's (the runtime's failed kernel ...); beside
            # a heartbeat verdict only, the task exception it followed is read too
            hccl_error = _hccl_plog_error(lines)
            if hccl_error is not None:
                beat_lines = {e.line for e in report.events}
                if (
                    not heartbeats_only
                    # beside a heartbeat verdict only the task exception it followed adds anything
                    or (hccl_error.exception_type is not None and hccl_error.line not in beat_lines)
                ):
                    report.events.append(hccl_error)
            elif not heartbeats_only:
                report.events += _cann_plog_errors(lines)
        elif plog_errors and report.events:
            # another process's ERROR of another CANN module beside what was read (a plog folder
            # grepped whole: the runtime's failed kernel in a program of its own): its failure too
            # (only where each event read names its process: another's is then told apart)
            by_line = {no: line for no, line, _ in lines}
            named = [_PLOG_PID_ANYWHERE_RE.search(by_line.get(e.line, "")) for e in report.events]
            known = {int(pm.group(1)) for pm in named if pm}
            if all(named):
                report.events += [
                    e
                    for e in _cann_plog_errors(lines)
                    if e.pid is not None
                    and e.pid not in known
                    and e.library not in ("HCCL", "HCCP")
                ]
        if not report.events and "] HCCL(" in text and HCCL_PLOG_RE.search(text):
            _hcom_init_notes(lines, report)
            return report  # HCCL's own plog of a run with no failure in it: evidence too
        if (
            not report.events
            and "Entry-HcclCommInitRootInfo" in text
            and _INIT_ENTRY_RE.search(text)
        ):
            _hcom_init_notes(lines, report)
            return report  # HCCL's run-log entries of a communicator's creation, cut from a plog
        if (
            not report.events
            and not plog_errors
            and len(modules := CANN_PLOG_LINE_RE.findall(text)) >= MIN_LOG_LINES
        ):
            # another CANN module's plog (TorchAir's compile, GE's), no ERROR line in it
            names = sorted({m.split("]", 1)[1].split("(", 1)[0].strip() for m in modules})
            report.unread.append(
                ParseWarning(
                    line=0,
                    message=f"a CANN plog of {', '.join(names)} ({len(modules)} line(s)) with no "
                    "ERROR line",
                    skipped=False,
                )
            )
            report.unread += _plog_warning_notes(lines)
            # (the plog's lines beside a program's own output, a job's proc log: the program's
            # first error line, a traceback's exception, is the job's failure)
            rest = [t for t in lines if not CANN_PLOG_LINE_RE.search(t[1])]
            if len(rest) >= MIN_LOG_LINES and (error := first_error_line(rest)):
                report.generic = True
                report.events.append(error)
            return report
        if not report.events and "Job summary" in text and _RAS_REPORT_RE.search(text):
            _ras_summary_notes(lines, report)
            return report  # NCCL's RAS report with no error or warning entry: a healthy job
        if not report.events and ras_json:
            return report  # the RAS client's JSON with no rank in trouble: a healthy job
        if not report.events and fm_running:
            return report  # Fabric Manager's service running, its journal without an error
        if not report.events and GLOO_CONNECTED_RE.search(text):
            return report  # gloo's full mesh connected, every peer: a run's log, healthy
        torn_down = not report.events and "destroyed cuda before watchdog loop exited" in text
        if torn_down:
            # torch's watchdog, at INFO, when the main process tore CUDA down first ("driver
            # shutting down" caught: ProcessGroupNCCL's watchdog thread): the order of a
            # process's own exit, no failure; a traceback or another CUDA error beside it is
            # still read below (the exit may have followed a real failure)
            at = next(no for no, t, _ in lines if "destroyed cuda before watchdog" in t)
            report.unread.append(
                ParseWarning(
                    line=at,
                    message="the process group's watchdog stopped because the main process had "
                    "already torn CUDA down ('driver shutting down'): torch logs this at INFO as "
                    "the process exits, no failure",
                    skipped=False,
                )
            )
        if not report.events and (raised := python_exception(lines)):
            if raised.exception_type in ("ActorDiedError", "RayActorError"):
                _ray_actor_died(lines, raised)
            elif raised.exception_type == "CalledProcessError" and (
                ssh := _DS_SSH_CHECK_RE.search(raised.message)
            ):
                # DeepSpeed's runner checking each host by ssh before the launch (runner.py:
                # ssh_check_cmd, "ssh -o PasswordAuthentication=no HOST hostname")
                raised.host = ssh.group("host")
                raised.exception_type = (
                    f"CalledProcessError: DeepSpeed's runner could not ssh to {ssh.group('host')} "
                    f"without a password (exit status {ssh.group('status')}): its check before "
                    "the launch failed, no process was started there"
                )
            report.events.append(raised)
            if (ended := _transcript_ended_by_signal(lines, prompted=False)) is not None:
                # the exception, then the shell's "Killed": the program did not end by itself
                report.events.append(ended)
        if (
            all(e.kind == "nccl_warning" for e in report.events)
            and (cuda := _torch_cuda_error(lines)) is not None
        ):
            # (also beside NCCL's WARN lines: NCCL warned of the failed CUDA call in its own
            # words, torch's error is what stopped the process)
            report.events.append(cuda)
        if not report.events and (lone := lone_exception(lines)):
            report.events.append(lone)
        if torn_down and not report.events:
            return report
        # (after the exception reads: a launch or a training loop that then failed is read as
        # its failure; these are healthy only with no line saying an error)
        unprobed = lines
        if (
            not report.events
            and "failed call to cuInit" in text
            and (probe := _no_cuda_driver(lines)) is not None
        ):
            # (TensorFlow's probe of CUDA on a host with no NVIDIA driver: its own diagnosis, no
            # error line of the run)
            report.unread.append(probe[1])
            unprobed = [t for t in lines if t[0] != probe[0]]
        if (
            not report.events
            and "Start worker process" in text
            and MSRUN_WORKER_RE.search(text)
            and first_error_line(lines) is None
            and _msrun_start_notes(lines, report)
        ):
            return report  # MindSpore's msrun starting its workers: a launch, healthy so far
        if (
            not report.events
            and (
                ("loss is" in text and LOSS_LINE_RE.search(text))
                or ("step:[" in text and MINDFORMERS_STEP_RE.search(text))
                or ("iteration" in text and ITERATION_LOSS_RE.search(text))
                or ("loss" in text and TQDM_LOSS_RE.search(text))
                or ("step:" in text and TITAN_STEP_RE.search(text))
                or ("epoch" in text and PLAIN_STEP_LOSS_RE.search(text))
            )
            and first_error_line(unprobed) is None
            and _loss_notes(lines, report)
        ):
            return report  # a training loop printing its loss, step after step: it ran
        if (
            not report.events
            and "ListAndWatch resp devices" in text
            and _plugin_notes(lines, report)
        ):
            return report  # the Ascend device plugin's registration and its devices' health
        if (
            not report.events
            and (
                "Initializing distributed: GLOBAL_RANK:" in text
                or "initializing ddp: GLOBAL" in text
            )
            and first_error_line(lines) is None
            and _lightning_init_notes(lines, report)
        ):
            return (
                report  # Lightning's ranks starting their process group: a launch, healthy so far
            )
        if (
            not report.events
            and "Discovered MPI settings of" in text
            and first_error_line(lines) is None
            and _ds_mpi_notes(lines, report)
        ):
            return report  # DeepSpeed's ranks found from MPI: started, no fault
        if (
            not report.events
            and "Setting up process group for: " in text
            and first_error_line(lines) is None
            and _ray_train_notes(lines, report)
        ):
            return report  # Ray Train's workers setting up their process group: no fault
        if (
            not report.events
            and "Distributed environment: " in text
            and first_error_line(lines) is None
            and _accelerate_state_notes(lines, report)
        ):
            return report  # accelerate's processes printing their state: started, no fault
        if (
            not report.events
            and "Unable to find hostfile" in text
            and first_error_line(lines) is None
            and _deepspeed_local_notes(lines, report)
        ):
            return report  # DeepSpeed's runner with no hostfile: this node only, no fault yet
        if (
            not report.events
            and "WORLD INFO DICT" in text
            and first_error_line(lines) is None
            and _deepspeed_launch_notes(lines, report)
        ):
            return report  # DeepSpeed's launcher on a node of a multi-node job, no fault yet
        if (
            not report.events
            and "initialized with following options" in text
            and first_error_line(lines) is None
            and _pg_options_notes(lines, report)
        ):
            return report  # ProcessGroupNCCL's start on its ranks, no fault
        if (
            not report.events
            and "using world size:" in text
            and first_error_line(lines) is None
            and _megatron_start_notes(lines, report)
        ):
            return report  # Megatron's start and its iterations, no fault
        if (
            not report.events
            and "HCCL_" in text
            and first_error_line(lines) is None
            and _bench_summary_notes(lines, report)
        ):
            return report  # a benchmark script's summary, every HCCL op passed
        if (
            not report.events
            and "Starting worker group" in text
            and first_error_line(lines) is None
            and _elastic_start_notes(lines, report)
        ):
            return report  # torch elastic's agent started its workers: a launch, no fault yet
        if (
            not report.events
            and "Starting elastic_operator with launch configs" in text
            # (the note first: it reads a few lines; the whole file's error pass after)
            and (launch := _elastic_launch_note(lines)) is not None
            and first_error_line(lines) is None
        ):
            report.unread.append(launch)
            return report  # torchrun's launch configs and its agents' ends: no fault
        if (
            not report.events
            and "worker group" in text
            and first_error_line(lines) is None
            and _elastic_end_notes(lines, report)
        ):
            return report  # torch elastic's agent said its workers finished: no fault
        if (
            not report.events
            and "this job is preempted" in text
            and first_error_line(lines) is None
            and _submitit_notes(lines, report)
        ):
            return report  # submitit requeued a preempted job: the scheduler's doing, no fault
        if (
            not report.events
            and "Free memory on device" in text
            and first_error_line(lines) is None
            and _vllm_memory_notes(lines, report)
        ):
            return report  # a vLLM worker's memory profile at start: it loaded and fit
        if not report.events and not notices and EXAMPLE_OUTPUT_RE.search(text):
            _example_output_notes(lines, report)
            return report  # a collective example's own print of its ranks' data: it ran
        if not report.events and PG_WARNING_RE.search(text):
            return (
                report  # a distributed run's own warnings and no failure among them: evidence too
            )
        if (
            not report.events
            and not notices
            and "NVRM: loading" in text
            and NVRM_LOADING_RE.search(text)
            and all(_DRIVER_START_LINE_RE.match(t) for _, t, _ in lines if t.strip())
        ):
            # a kernel log of nothing but the NVIDIA driver's start (its modules loading, the
            # GPUs enabled, the display and sound sides of the cards): healthy; any other line
            # (a machine check, a hung task, another driver's link) is read the usual way
            return report
        if not report.events and not notices and "NVRM: loading" in text:
            # the driver's start beside other kernel lines: their first error line (the kernel's
            # note of an unsigned module's taint is none), or nothing read
            rest = [t for t in lines if not _MODULE_TAINT_RE.search(t[1])]
            if error := first_error_line(rest):
                report.generic = True
                report.events.append(error)
                return report
        if not report.events and not notices and c10d_info_only(text):
            # the c10d store's own INFO and debug lines: a run's log, whose first error line in
            # other words (a bus error, a program's own ERROR) is still its failure
            if error := first_error_line(lines):
                report.generic = True
                report.events.append(error)
            return report
        if (
            not report.events
            and not notices
            and '"level"' in text
            and _json_records_read(text, report)
        ):
            return report  # a structured log's records (structlog, zap): their first error
        if not report.events and (
            is_program_log(text)
            or is_error_fragment(text)
            or is_short_error_paste(text)
            or GLOG_FATAL_RE.search(text)
            or HWLOG_ERROR_RE.search(text)
            or ("[libprotobuf " in text and LIBPROTOBUF_RE.search(text))
            or has_program_traceback(text)
            or ("Training errored after" in text and _RAY_TRAIN_PG_RE.search(text))
        ):
            # a program's log in no form read above (or a glog FATAL line among other outputs): its
            # first error line, or none (a healthy run); a log whose notices were read is not one
            # the advisor knows nothing of, and a notice's own line is no error of another form
            report.generic = not notices
            said = {e.line for e in notices}
            read_aer = (
                _aer_record_lines(lines)
                if any(e.kind == "pcie_aer_corrected_few" for e in notices)
                else set()
            )
            # (the kernel's AER lines and the firmware's PCIe records around them were read:
            # the first error line is looked for past them)
            for e in notices:
                if e.kind != "firmware_memory_error":
                    continue
                # (the firmware's memory record read: its own lines, from its first on, are no
                # other error)
                at = bisect.bisect_left(lines, (e.line,))
                for no, t, _ in lines[at : at + CPER_RECORD_LINES]:
                    if "[Hardware Error]" not in t:
                        break
                    read_aer.add(no)
            rest = [t for t in unprobed if t[0] not in read_aer] if read_aer else unprobed
            if (error := first_error_line(rest)) and error.line not in said:
                # (the worker a Ray or vLLM prefix named before the line: which one failed)
                # (numbered as numbered_lines numbers them: splitlines, a lone CR too)
                first_raw = text.splitlines()[error.line - 1] if error.line else ""
                if error.rank is None and (wp := WORKER_PREFIX_RE.match(first_raw.lstrip())):
                    # (vLLM's worker prefix inside Ray's or its own executor's: "(Worker
                    # pid=782969) (Worker_DP0_TP1_EP1 pid=782969) ERROR ...": every prefix
                    # quoted, the innermost one names the worker)
                    prefix, rest_raw = wp.group(0), first_raw.lstrip()[wp.end() :]
                    while inner := WORKER_PREFIX_RE.match(rest_raw.lstrip()):
                        wp, prefix = inner, f"{prefix} {inner.group(0)}"
                        rest_raw = rest_raw.lstrip()[inner.end() :]
                    error.worker = wp.group("name") or f"pid {wp.group('pid')}"
                    error.message = f"{prefix} {error.message}"[:300]
                # (the program's own warning that its versions do not match, above the error:
                # said with it, the error's words stay as written)
                error.exception_type = _mismatch_warnings_before(rest, error)
                report.events.append(error)
                if (ended := _transcript_ended_by_signal(lines, prompted=False)) is not None:
                    # the program's error, then the shell's "Killed": it did not end by itself
                    report.events.append(ended)
            else:
                if (mismatch := _first_mismatch_warning(rest)) is not None:
                    report.unread.append(mismatch)
                return report
        if (
            not report.events
            and not notices
            and any(
                not w.skipped and w.message.startswith("NHC health checks passed")
                for w in report.unread
            )
        ):
            return report  # a node's health checks, every one passed
        if not report.events and not notices:
            raise ParseError(
                "no HCCL/CANN error code, failed HCCL call or link, watchdog time-out, elastic "
                "failure, store time-out or GPU hardware exception found"
            )
    finally:
        report.events.extend(notices)
    if report.events and any(m in text for m in DEVICE_LAYER_MODULES):
        _device_layer_error(lines, report)
    by_no = {no: line for no, line, _ in lines}
    pdsh_hosts: set[str] | None = None
    reporting: set[int] | None = None  # the devices the log's failed tasks name, read once
    ray_tasks = [
        (no, rt)
        for no, line, _ in lines
        if "RayTaskError(" in line and (rt := _RAY_TASK_ERROR_RE.search(line))
    ]
    for ev in report.events:
        if ev.time_s is None:
            ev.time_s = timestamp_s(by_no.get(ev.line, ""))
        if (ev.pid is None or ev.host is None) and 0 < ev.line <= len(raw):
            if "pid=" in (line := raw[ev.line - 1]) and (wp := WORKER_PREFIX_RE.match(line)):
                # the Ray / vLLM worker that printed the line, and the node Ray names (a
                # process that passes on another's error, its pid named in the line, names the
                # printer only: "(EngineCore_DP0 pid=384) ... (PID:1195, Device:0 ...)")
                same = ev.pid is None or ev.pid == int(wp.group("pid"))
                ev.pid = ev.pid if ev.pid is not None else int(wp.group("pid"))
                ev.host = ev.host or wp.group("node")
                if same:
                    ev.worker = ev.worker or wp.group("name")
            elif ev.host is None and (pdsh := PDSH_PREFIX_RE.match(line)):
                ev.host = pdsh.group("host")  # the node pdsh ran the command on
        if ev.host is None and ray_tasks and (task := _ray_task_above(ev.line, ray_tasks, by_no)):
            # the remote traceback a RayTaskError heads: raised in that actor's process, on
            # the node it names (not the host of an NCCL block printed elsewhere in the file)
            ev.host = task.group("ip")
            ev.pid = ev.pid if ev.pid is not None else int(task.group("pid"))
            ev.worker = ev.worker or f"ray::{task.group('task')}()"
        if ev.host is None and pdsh_hosts is None:
            pdsh_hosts = {m.group("host") for line in raw if (m := PDSH_PREFIX_RE.match(line))}
        if ev.host is None and pdsh_hosts and len(pdsh_hosts) == 1:
            # a line that lost its "node: " (a progress bar's carriage return ran over it) in a
            # file pdsh printed from one node only
            ev.host = next(iter(pdsh_hosts))
        if ev.host is None and ev.library == "NCCL" and ev.rank in rank_hosts:
            # NCCL's own "host:pid:tid [dev] ... comm 0x.. rank R nranks N" line of that rank
            ev.host = rank_hosts[ev.rank]
        elif (
            ev.host is None
            and len(report.hosts) == 1
            and (ev.library == "NCCL" or ev.kind.startswith("nccl_"))
            # (where NCCL's lines name the ranks on that host, a rank they leave out may be
            # another host's)
            and (ev.rank is None or not rank_hosts)
        ):
            # every NCCL line of the file was printed on one host
            ev.host = report.hosts[0]
        if ev.kind.startswith("hccl_"):
            _plog_context(ev, by_no)
            if ev.device is None and ev.rank is None:
                if reporting is None:
                    reporting = {
                        int(m.group(1) or m.group(2))
                        for _, line, _ in lines
                        if "device_id" in line and (m := _REPORTING_DEVICE_RE.search(line))
                    }
                    # (a log of one process only: two processes' logs joined name two)
                    pids = {
                        pm.group(1)
                        for _, line, _ in lines
                        if "(" in line and (pm := _PLOG_PID_ANYWHERE_RE.search(line))
                    }
                    if len(pids) > 1:
                        reporting = set()
                if len(reporting) == 1:
                    # the one device whose task failed in this log (MindSpore's "Task fail
                    # infos ... device_id: 1", the runtime's "Notify wait execute failed,
                    # device_id=1"): the device that reported it
                    ev.device = next(iter(reporting))
            if ev.code is None or ev.code.startswith(("EI", "EJ")):
                # HCCL's (EI) and HCCP's (EJ) own codes; EE/EH/EZ/E4... are other CANN modules'
                ev.library = ev.library or "HCCL"
    _ranks_by_pid(report.events)
    report.events.sort(key=lambda e: e.line)
    if "EngineCore" in text or "core proc" in text:
        _vllm_core_said_once(report)
    if (
        "The possible cause is" in text
        or "working operator name is" in text
        or "TraceBack (most recent call last)" in text
    ):
        _code_causes(lines, report)
    if "across cluster]" in text:
        _ray_repeats(raw, report)
    return report


# a library's check of the chip's type that runs "npu-smi info" and logs, when it cannot run
# it, "can not use command: npu-smi info" (a kernel library's logger.warning on the failed
# subprocess): the process has no npu-smi it can run (not mounted in its container, or no
# driver), not a failure of the job
_NPU_SMI_UNUSABLE_RE = re.compile(r"can not use command: (npu-smi[^\n]{0,80})")


def _npu_smi_unusable(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """A note of the lines saying ``npu-smi`` could not be run from the process."""
    found = [(no, m) for no, t, _ in lines if (m := _NPU_SMI_UNUSABLE_RE.search(t))]
    if found:
        report.unread.append(
            ParseWarning(
                line=found[0][0],
                message=f"'can not use command: {found[0][1].group(1).strip()}' {len(found)} "
                "time(s): "
                "a library's check could not run npu-smi in this process's environment (not "
                "in its container, or no driver there); nothing it would have said is in the "
                "log, and it is no failure of the job by itself",
                skipped=False,
            )
        )


_POSSIBLE_CAUSE_RE = re.compile(
    r"^\s*The possible cause is (?:that )?(?P<cause>\S.{0,200}?)\.?\s*$"
)
_ANY_WORKING_OP_RE = re.compile(r"current working operator name is (?P<op>[\w-]+)")
_CANN_TRACEBACK_RE = re.compile(r"^\s*TraceBack \(most recent call last\):\s*$")
_CANN_TAGS_RE = re.compile(r"\[(?:FUNC|FILE|LINE):[^\]\n]*\]")
CODE_CAUSE_LINES = 4
"""How far under a CANN code's line its "The possible cause is ..." and the working operator
may stand."""


def _code_causes(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """A CANN code's own sentence of its cause ("EI0006: Getting socket times out." then "The
    possible cause is that the behaviors of different ranks are inconsistent.") and the operator
    torch_npu names under it, added to that code's event."""
    by_no = {no: t for no, t, _ in lines}
    for ev in report.events:
        if ev.kind != "hccl_error" or not ev.code:
            continue
        below = [by_no.get(n, "") for n in range(ev.line + 1, ev.line + 1 + CODE_CAUSE_LINES)]
        cause = next((c.group("cause") for t in below if (c := _POSSIBLE_CAUSE_RE.match(t))), None)
        label = "the log's own cause"
        if cause is None and ev.call is None and ev.exception_type is None:
            # (where no other reading took the TraceBack's call as the event's)
            label = "its TraceBack's first call"
            # CANN's TraceBack under the code: its first entry is the call that failed ("build
            # op model failed, result = 500001[FUNC:...]"), its FUNC/FILE/LINE tags left off
            at = next((i for i, t in enumerate(below) if _CANN_TRACEBACK_RE.match(t)), None)
            if at is not None and at + 1 < len(below) and (first := below[at + 1].strip()):
                cause = _CANN_TAGS_RE.sub("", first).strip()[:200] or None
        op = next((o.group("op") for t in below if (o := _ANY_WORKING_OP_RE.search(t))), None)
        if cause or op:
            ev.message = (
                ev.message
                + (f" ({label}: {cause}" if cause else " (")
                + (f"; operator {op})" if op and cause else f"operator {op})" if op else ")")
            )[:400]


def _vllm_core_said_once(report: LogReport) -> None:
    """vLLM's word that its engine core did not start, dropped where the log's own reading of
    that start's error (an out-of-memory, a failed NCCL call) stands in the traceback under it or
    above it: the same failure, said once, by what it was."""
    cores = [
        e
        for e in report.events
        if e.kind == "launcher_exit"
        and (e.exception_type or "").startswith("vLLM (its engine core did not start")
    ]
    # (torch_npu's own ERR code at the traceback's end says less than the engine's exception)
    others = [
        e
        for e in report.events
        if e.kind not in NOTICE_KINDS and e.kind not in ("launcher_exit", "torch_npu_error")
    ]
    for core in cores:
        if any(o.line <= core.line + TRACEBACK_LINES for o in others):
            report.events.remove(core)


# Ray's log deduplication: a line other processes printed too, folded into one with "[repeated 14x
# across cluster]" after it (Ray's RAY_DEDUP_LOGS; its docs: lines of the same pattern, words with
# numeric components ignored, are buffered and printed once with the count)
_RAY_REPEATED_RE = re.compile(r"\[repeated (\d+)x across cluster\]")
_FOLDED_WARNING_RE = re.compile(r"\b(?:WARNING|INFO|DEBUG) \d\d-\d\d ")
_FOLDED_ERROR_RE = re.compile(r"(?<!\w)ERROR\b|\b\w*(?:Error|Exception): ")


def _ray_repeats(raw: list[str], report: LogReport) -> None:
    """A note for each failure's line Ray folded others' copies into: on how many more
    processes the same line stood."""
    event_lines = {ev.line for ev in report.events}
    # (another process's error line Ray folded, not an event's own: the first such, said once)
    folded = next(
        (
            (no, r, line)
            for no, line in enumerate(raw, 1)
            if no not in event_lines
            and (r := _RAY_REPEATED_RE.search(line))
            and _FOLDED_ERROR_RE.search(line[: r.start()])
            and not _FOLDED_WARNING_RE.search(line[: r.start()])
        ),
        None,
    )
    if folded is not None and report.events:
        no, r, line = folded
        said = WORKER_PREFIX_RE.sub("", line[: r.start()].strip(), count=1)
        said = _LOGGER_PREFIX_RE.sub("", said.strip(), count=1).strip()
        report.unread.append(
            ParseWarning(
                line=no,
                message=f"Ray folded the same error line of {r.group(1)} more process(es) of the "
                f"cluster into one ('{said[:160]}', '[repeated {r.group(1)}x across cluster]'): "
                "the failure above was not this process's alone",
                skipped=False,
            )
        )
    for ev in report.events:
        if 0 < ev.line <= len(raw) and (r := _RAY_REPEATED_RE.search(raw[ev.line - 1])):
            report.unread.append(
                ParseWarning(
                    line=ev.line,
                    message=f"Ray folded this {ev.kind.replace('_', ' ')} line of {r.group(1)} "
                    "more process(es) of the cluster into it ('[repeated "
                    f"{r.group(1)}x across cluster]'; Ray folds lines whose words match, those "
                    "with numbers left aside): the same kind of failure on each of them, its "
                    "ranks and figures not shown",
                    skipped=False,
                )
            )


_OWN_PROCESS_KINDS = frozenset(
    {"npu_runtime_error", "hccl_error", "hccl_call_failure", "hccl_plog_error",
     "torch_npu_error", "npu_device_exception", "hccl_link_timeout"}
)  # fmt: skip
"""Events a process prints of itself, with its pid (CANN's "[PID: 1270]", torch_npu's
"(PID:1270, ...)"); not a report that names another process by its pid (NCCL RAS's)."""


def _ranks_by_pid(events: list[LogEvent]) -> None:
    """A rank for the events of a process that printed it elsewhere: one process's events (its
    pid, on one host) that name no rank take the one rank its other events name (torch_npu's
    "(PID:1270, Device:6, RankID:14)", a launcher's tag) -- never where its events name several."""
    ranks: dict[tuple[str | None, int], set[int]] = {}
    devices: dict[tuple[str | None, int], set[int]] = {}
    for ev in events:
        if ev.pid is not None and ev.rank is not None:
            ranks.setdefault((ev.host, ev.pid), set()).add(ev.rank)
        if ev.pid is not None and ev.device is not None:
            devices.setdefault((ev.host, ev.pid), set()).add(ev.device)
    for ev in events:
        if ev.rank is None and ev.pid is not None and ev.kind in _OWN_PROCESS_KINDS:
            key = (ev.host, ev.pid)
            known = ranks.get(key, set())
            # (one pid on several devices is several processes: containers reuse small pids)
            if len(known) == 1 and len(devices.get(key, set())) <= 1:
                ev.rank = next(iter(known))


_STAMPS = (
    # CANN: "2026-11-28-18:07:20.444.436"; torch elastic / Python logging: "2024-11-29_09:22:13",
    # "2024-11-29 09:22:13,123"
    # (torch_npu's own logger puts its milliseconds after a colon: "[2025-12-29 13:22:36:099]")
    re.compile(
        r"(?<!\d)\d{4}-(?P<mo>\d{2})-(?P<d>\d{2})[-_ T](?P<h>\d{2}):(?P<mi>\d{2}):(?P<s>\d{2})"
        r"(?:[.,](?P<f>\d{1,6})|:(?P<ms>\d{3})(?!\d))?"
    ),
    # glog (torch C++ warnings and errors): "E1129 09:22:05.512451"; torch's own logger prints
    # the month without its leading zero ("[E626 06:24:44.903881913", pytorch issue logs)
    re.compile(
        r"\b[EWIF](?P<mo>\d{1,2})(?P<d>\d{2}) (?P<h>\d{2}):(?P<mi>\d{2}):(?P<s>\d{2})"
        r"(?:\.(?P<f>\d{1,6}))?"
    ),
)


def timestamp_s(line: str) -> float | None:
    """The first time stamp of ``line`` on the year-less clock of ``LogEvent.time_s``."""
    for pattern in _STAMPS:
        if m := pattern.search(line):
            digits = m.group("f") or m.groupdict().get("ms")
            frac = float(f"0.{digits}") if digits else 0.0
            day = int(m.group("mo")) * 32 + int(m.group("d"))
            return (
                day * 86400.0
                + int(m.group("h")) * 3600
                + int(m.group("mi")) * 60
                + int(m.group("s"))
                + frac
            )
    return None


def _first(m: re.Match[str]) -> str:
    """The first group of ``m`` that matched (patterns with one alternative per form)."""
    return next(g for g in m.groups() if g is not None)


def _search(pattern: re.Pattern[str], window: list[str]) -> re.Match[str] | None:
    for text in window:
        if m := pattern.search(text):
            return m
    return None


# a link's two ends under EI0006's line (DeepEP's and other HCCL-based kernels' own report):
# "srcRank[192.168.0.125/0] connect destRank[192.168.0.192/0] fail."
_SRC_DEST_RE = re.compile(
    # (an address of either family, or a host name: "srcRank[fd00:1::125/0]")
    r"srcRank\[(?P<sip>[^\]/\s]+)/(?P<sdev>\d+)\] connect destRank\[(?P<dip>[^\]/\s]+)/(?P<ddev>\d+)\] fail"
)
SRC_DEST_LINES = 2
"""How far under its code's line a link's "srcRank[..] connect destRank[..] fail" may stand."""
_DEVICE_ERROR_HEAD_RE = re.compile(r"The error from device\((?:chipId:\d+, dieId:\d+|\d+)\)")
"""CANN's device error report's first line ("EE9999[PID: N] The error from device(chipId:1,
dieId:0), serial number is 6."): the error itself is on the line after it."""


FLAT_LINE_CHARS = 300
"""A line longer than an event's message, its error code past a third of that after Python's
frames ('File "...", line N'): a copy that ran a traceback and its error onto one line."""


def _number_span(numbers: list[int], shortest_run: int) -> str:
    """Sorted numbers as ``first-last`` where they run without a gap and are at least
    ``shortest_run`` of them, else each written out (``0, 2, 5``)."""
    if len(numbers) >= shortest_run and numbers == list(range(numbers[0], numbers[-1] + 1)):
        return f"{numbers[0]}-{numbers[-1]}"
    return ", ".join(map(str, numbers))


def _quoted_rank_table(line: str) -> tuple[int, str] | None:
    """The rank table an EI0004 line quotes after its reason (MindSpore prints the table it was
    given: ``... Please check the configured ranktable. [{"server_count":"1",...}]``): its rank
    count and a note of what it holds (ranks, servers, devices); None where no whole table is
    quoted."""
    start = line.find("[{")
    if start < 0:
        return None
    try:
        doc, _ = json.JSONDecoder().raw_decode(line, start)
        table = parse_rank_table(json.dumps(doc[0] if isinstance(doc, list) and doc else doc))
    except (ValueError, ParseError, RecursionError):  # (nested past the JSON reader's depth)
        return None
    if not table.ranks:
        return None
    numbers = sorted(r.rank for r in table.ranks if r.rank is not None)
    said = [f"{len(table.ranks)} rank(s)"]
    if numbers:
        said.append(f"rank_id {_number_span(numbers, shortest_run=2)}")
    if servers := [s for s in table.servers if s]:
        said.append(f"on server(s) {', '.join(servers)}")
    if devices := [str(r.device_id) for r in table.ranks if r.device_id not in (None, "", "None")]:
        said.append(f"device(s) {', '.join(devices)}")
    return len(table.ranks), f"[the quoted rank table: {', '.join(said)}]"


# EJ0003's message (Communication_Error_Bind_IP_Port(EJ0003), older Bind_Failed(EJ0003)) copied
# without its code, as a FAQ or a runbook prints it under torch_npu's failed call: "Failed to
# bind the IP port. Reason: The IP address and port have been bound already."
_BIND_FAILED_TEXT_RE = re.compile(
    r"Failed to bind the IP port\. Reason: The IP address and port have been bound already"
)


def _uncoded_bind_failure(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """EJ0003's text without its code, read as EJ0003, once, where no coded line said it."""
    if any(e.code in ("EJ0003", "EI0019") for e in report.events):
        return
    for no, line, tagged in lines:
        if "bound already" in line and (m := _BIND_FAILED_TEXT_RE.search(line)):
            report.events.append(
                LogEvent(
                    kind="hccl_error",
                    line=no,
                    message=line[m.start() :].strip()[:300]
                    + " (EJ0003's text, its code not printed)",
                    code="EJ0003",
                    rank=tagged,
                    library="HCCL",
                )
            )
            return


_CUT_AT_END_RE = re.compile(r"(?:=|\[[^\]\[]*)\s*$")
"""A message that ends on an "=" or inside a bracket: a copy wrapped it there."""
WRAPPED_REST_CHARS = 40
"""How long the rest of a wrapped message on the next line may be (a word or a figure)."""


def _hccl_errors(
    raw: list[str], lines: list[tuple[int, str, int | None]], report: LogReport
) -> None:
    seen: set[tuple[str, int | None, str]] = set()
    # The socket table of a link time-out comes before the error code it explains: each launcher
    # rank's rows wait here until a code claims them (or are reported on their own at the end).
    pending_link: dict[int | None, list[tuple[int, re.Match[str], int | None, int | None]]] = {}
    link_device: dict[int | None, int] = {}
    link_timeout_s: dict[int | None, int] = {}
    claimed: set[int] = set()  # lines read into an error-code block
    rows_seen: set[int | None] = set()  # launcher ranks whose socket table has a row
    # per launcher rank: its link wait that timed out (line, rank named, seconds) and the failed
    # operation HCCL reported after it (line, op)
    establish: dict[int | None, tuple[int, int | None, int | None]] = {}
    failed_op: dict[int | None, tuple[int, str]] = {}
    binds: list[tuple[int, str, int | None, re.Match[str]]] = []
    titles: dict[int | None, int] = {}  # launcher rank → line of its LINK_ERROR_INFO title
    rdma_seen: set[tuple[int, str]] = set()
    heading_rank: dict[
        int, int | None
    ] = {}  # line index → the rank its "Inner Error!" heading named
    for index, (no, line, tagged) in enumerate(lines):
        if "rdma init failed" in line and (ra := _RDMA_INIT_RE.search(line)):
            device_ip = (int(ra.group("dev")), ra.group("ip"))
            if device_ip not in rdma_seen:
                rdma_seen.add(device_ip)
                report.events.append(
                    LogEvent(
                        kind="hccl_rdma_init_failure",
                        line=no,
                        message=line.strip()[:300],
                        rank=tagged,
                        device=device_ip[0],
                        ip=device_ip[1],
                    )
                )
        if "LINK_ERROR_INFO" in line:
            titles.setdefault(tagged, no)
        # cheap substring tests first: most lines of a large log match none of these
        if "comm error" in line and (dm := _LINK_DEVICE_RE.search(line)):
            link_device[tagged] = int(dm.group(1))
        if "establish" in line and (em := _ESTABLISH_RE.search(line)):
            link_timeout_s[tagged] = int(em.group("s"))
            named = int(em.group("rank")) if em.group("rank") else None
            establish.setdefault(tagged, (no, named, int(em.group("s"))))
        elif "stablish" in line and _LINKS_FAILED_RE.search(line):
            establish.setdefault(tagged, (no, None, None))
        if "et timeout" in line and (xm := _EXCHANGER_RE.search(line)):
            link_device.setdefault(tagged, int(xm.group("dev")))
            establish.setdefault(tagged, (no, int(xm.group("rank")), None))
        if "hcclComm" in line and (om := _HCOM_OP_RE.search(line)):
            failed_op.setdefault(tagged, (no, op_name(om.group(2))))
        if "[InnerComm]" in line and (im := _INNER_COMM_RE.search(line)) and im.group("op") in OPS:
            # (only an op's own name: another tag's word, "worldCommSendRecv", names none)
            failed_op.setdefault(tagged, (no, OPS[im.group("op")]))
        if "|" in line and (lm := _LINK_ROW_RE.search(line)):
            rows_seen.add(tagged)
            row = (no, lm, link_device.get(tagged), link_timeout_s.get(tagged))
            pending_link.setdefault(tagged, []).append(row)
            continue
        m = _code_match(line)
        if m is None:
            if no in claimed:
                continue
            if "listen on ip" in line and (bm := _BIND_RE.search(line)):
                binds.append((no, line, tagged, bm))
                continue
            if (
                "rank [" not in line
                and "Exception Location" not in line
                and "serverId[" not in line
                and "server:" not in line
            ):
                continue
            if loc := (
                _LOCATION_RE.search(line)
                or _CRIMER_RE.search(line)
                or _SERVER_DEVICE_RE.search(line)
                or _SERVER_PAIR_RE.search(line)
            ):
                report.events.append(_heartbeat_event(index, lines, loc))
            continue
        code = _code_of(m)
        inner_facts = ""  # the facts a bare "Inner Error!" heading leaves to its next line
        if line.rstrip().endswith(("Inner Error!", "Internal Error!")) and index + 1 < len(lines):
            # "EI9999: Inner Error!" only heads the next line, which carries the same code and
            # the facts: one event, not two (the heading's launcher tag names the rank)
            following = _code_match(lines[index + 1][1])
            if following is not None and _code_of(following) == code:
                heading_rank[index + 1] = tagged
                continue
            nxt = lines[index + 1][1].strip()
            if nxt.startswith(f"{code} ") or nxt.startswith(f"{code}\t"):
                # (the runtime prints the facts' line with its code and no colon: "EL9999
                # [drv api] halQueueEnQueueBuff failed: deviceId=0, ...")
                inner_facts = nxt[len(code) :].strip()
        # The code line starts a block: the lines before it carry "[ERROR] ... RankID:N" and
        # the lines after it the reason, the task tag and the group; stop at the next code.
        after = []
        for after_no, nxt, _ in lines[index + 1 : index + 1 + CODE_BLOCK_LINES]:
            if _code_match(nxt):
                break
            after.append(nxt)
            claimed.add(after_no)
        before = [b for _, b, _ in lines[max(0, index - 3) : index]]
        window = [line, *after, *reversed(before)]
        rank = tagged if tagged is not None else heading_rank.get(index)
        if rank is None and (rm := _RANK_TAG_RE.search(raw[no - 1])):
            rank = int(rm.group(1))
        if rank is None and (rid := _search(_RANKID_RE, window)) and int(rid.group(1)) >= 0:
            rank = int(rid.group(1))
        if rank is None and (gid := _search(_GROUP_RANKID_RE, window)):
            rank = int(gid.group(1))
        entry = _RANKTABLE_ENTRY_RE.search(line)
        if rank is None and entry:
            rank = int(entry.group(1))
        message = line.strip()
        if (
            len(message) > FLAT_LINE_CHARS
            and m.start() > FLAT_LINE_CHARS // 3
            and 'File "' in line[: m.start()]
        ):
            # a traceback pasted flat onto one line: the message from the code on, what the
            # line's start (Python's frames) does not say
            message = line[m.start() :].strip()
            if after and after[0][:1].islower() and message[-1:].isalpha():
                # (its next line the rest of a word the copy wrapped: "happe" / "n error, ...")
                message += after[0].strip()
        elif "\\n" in line[m.start() :] and m.start() > FLAT_LINE_CHARS // 3:
            # a Python repr of an exception's message on one line, its line breaks written "\n"
            # ("...an exception occurred : ('...EL9999[PID: 7136] ... (EL9999):  [drv api]
            # halDeviceEnableP2P failed: ...!\n        TraceBack ..."): from the code to the
            # first of them, the code's own line
            parts = [p.strip() for p in line[m.start() :].split("\\n", 4)]
            message = parts[0]
            if message.endswith("Inner Error!"):
                # ("EL9999: Inner Error!" heads the code's line with its facts, as on two lines)
                message = next((p for p in parts[1:4] if code in p), message)
        quoted = _quoted_rank_table(line) if code == "EI0004" else None
        if quoted is not None:
            # (the table it quotes in full on the code's line: said as what it holds, not cut)
            message = f"{message[: message.find('[{')].strip() if '[{' in message else message} {quoted[1]}"
        if after and after[0].strip().startswith("Reason:") and "Reason" not in message:
            # the code's reason on its own line ("Reason: Device ID 4 in module 0 and device ID
            # 8 in module 1 are not on the same plane.")
            message = f"{message} {after[0].strip()}"
        took = 0  # the lines after the code's that its message has taken
        if (
            message.endswith("Inner Error!")
            and not inner_facts
            and after
            and after[0].strip()
            and not after[0].strip().startswith("TraceBack")
        ):
            # "EI9999: Inner Error!" on its own line, what the error was on the next ("The error
            # from device(chipId:0, dieId:0), serial number is 9. there is a sdma error, ...")
            message = f"{message} {after[0].strip()}"
            took = 1
        if _DEVICE_ERROR_HEAD_RE.search(line) and after and after[0].strip():
            # the device's error report names its chip on the code line and the error on the
            # next ("there is a fftsplus sdma error, sdma channel is 2,")
            message = f"{message} / {after[0].strip()}"
            took = 1
        if inner_facts:
            message = f"{message} {_SOURCE_TAGS_RE.sub('', inner_facts).strip()}"
        if (
            len(after) > took
            and _CUT_AT_END_RE.search(message)
            and (rest := after[took].strip())
            and len(rest) <= WRAPPED_REST_CHARS
            and not rest.startswith(("[", "TraceBack"))
        ):
            # a copy wrapped at a fixed width inside the message ("reason=[vector core" /
            # "exception]", "runtime result =" / "507035."): its rest is on the next line
            message = f"{message} {rest}"
        kernel_failed = _KERNEL_EXECUTE_FAILED_RE.search(message)
        ev = LogEvent(
            kind="hccl_error",
            line=no,
            message=message[:300],
            code=code,
            code_name=m.groupdict().get("name"),
            rank=rank,
        )
        _torch_npu_context(ev, window)
        if torch_npu := _search(_TORCH_NPU_CODE_RE, window):
            ev.torch_npu_code = torch_npu.group(1)
        if ev.device is None and entry:
            ev.device = int(entry.group(2))
        if (remote := _search(_REMOTE_RE, window)) and remote.group(1).isdigit():
            ev.remote_rank = int(remote.group(1))
        if tag := _search(_TAG_RE, window):
            ev.op = OPS.get(_first(tag), _first(tag))
        elif fn := _search(_OPS_FN_RE, window) or _search(
            _WORKING_OP_RE,
            [b for _, b, _ in reversed(lines[max(0, index - WORKING_OP_WINDOW_LINES) : index])],
        ):
            ev.op = OPS.get(fn.group(1), fn.group(1).lower())
        elif hcom := _search(_HCOM_OP_RE, window):
            ev.op = op_name(hcom.group(1) or hcom.group(2))
        if grp := _search(_GROUP_RE, window):
            ev.group = _first(grp)
        if size := _search(_RANKSIZE_RE, window):
            ev.rank_size = int(size.group(1))
        elif quoted is not None:
            ev.rank_size = quoted[0]
        if port := _search(_PORT_RE, window):
            ev.port = int(port.group(1))
        if ip := _search(_IP_RE, window):
            ev.ip = ip.group(1) or ip.group(2)
        if link := _search(_SRC_DEST_RE, after[:SRC_DEST_LINES]):
            # the link that did not come up, under the code's line: this rank's address and
            # device, the peer's
            ev.ip, ev.remote_ip = link.group("sip"), link.group("dip")
            ev.device = ev.device if ev.device is not None else int(link.group("sdev"))
            ev.message = f"{ev.message} {link.group(0)}"[:400]
        if node := _search(_NODE_RE, window):
            ev.host = node.group(1)
        if tmo := _search(_TIMEOUT_S_RE, window):
            seconds = next(g for g in tmo.groups() if g)
            ev.timeout_ms = int(seconds) * 1000
        elif ffts := _FFTS_TIMEOUT_RE.search(line):
            ev.timeout_ms = int(ffts.group("n")) * (60_000 if ffts.group("min") else 1000)
        if unconnected := _search(_UNCONNECTED_RE, window):
            ev.missing_ranks = _rank_list(unconnected.group("ranks"))
        if cq := _search(_CQE_RE, window):
            _cqe(ev, cq)
        elif rts := _search(_RTS_CALL_RE, after):
            _rts_call(ev, rts, after)
        elif why := _search(_RTS_REASON_RE, after):
            # a TraceBack whose runtime step names its reason, with no "call rts api" line
            # ("rtMemQueueEnQueueBuff execute failed, reason=[hdc send msg fail]", then the
            # ACL call that made it: "Fail to execute acltdtSendTensor, device is 0")
            ev.call = why.group("call")
            ev.exception_type = f"{why.group('call')} failed: {why.group('why')}"
            if acl := _search(_ACL_FAIL_RE, after):
                ev.exception_type += f", under {acl.group('call')}"
                if ev.device is None and acl.group("dev"):
                    ev.device = int(acl.group("dev"))
        if ev.device is None and (drv := _DRV_DEVICE_RE.search(message)):
            ev.device = int(drv.group(1))
        core_error = None if kernel_failed else _CORE_EXCEPTION_RE.search(message)
        faulted = _search(_FAULT_KERNEL_RE, [message, *after])
        if faulted is not None and _HCCL_AIV_KERNEL_RE.match(faulted.group("name")):
            core_error = None  # (a core of HCCL's own AIV collective: the communication's)
        if core_error is not None and ev.kind == "hccl_error":
            # the device's own report of a compute core's exception under a CANN code ("EZ9999
            # The error from device(2), ..., there is an aicore error, core id is 0, error code =
            # 0x800000"), and the operator an application's exception callback named above it
            # ("exception_cb streamId:103 taskId:10 deviceId: 0 opName:bert/embeddings/GatherV2")
            unit = (
                core_error.group("unit") or core_error.group("unit2") or core_error.group("unit3")
            ).strip()
            if ev.device is None and (dev := _ERROR_FROM_DEVICE_RE.search(message)):
                ev.device = int(dev.group(1))
            cb_op = _search(
                _EXCEPTION_CB_OP_RE,
                [b for _, b, _ in reversed(lines[max(0, index - EXCEPTION_CB_LINES) : index])],
            )
            ev.kind = "npu_device_exception"
            # (the core's own error bits, "error code = 0x10": CANN's code, EZ9999, is only its
            # message's)
            hw = _CORE_ERROR_CODE_RE.search(message)
            ev.exception_type = (
                f"{unit} exception on core {core_error.group('core')}"
                + (f" (the core's code {hw.group(1)})" if hw and hw.group(1) != "0" else "")
                + (f" in op {cb_op.group(1)}" if cb_op else "")
            )
            if faulted is not None:
                # the runtime's line for the kernel that failed, under the report ("Aicore
                # kernel execute failed, device_id=1, ..., fault kernel_name=ConcatD_..."): its
                # operator, and the device as the process numbers it (the report's chipId is
                # the physical one: "device(chipId:5, ...)" for a process's device 1)
                ev.exception_type += f" in kernel {faulted.group('name')}"
                chip = _CHIP_ID_RE.search(message)
                ran = _search(_KERNEL_DEVICE_RE, after)
                if ran is not None and chip is not None and ran.group(1) != chip.group(1):
                    ev.device = int(ran.group(1))
                    ev.exception_type += f" (the report's chip {chip.group(1)})"
            # (the report's own line may carry its words past the message's cut: "..., para
            # base: 0x..., errorStr: Illegal instruction, which is usually caused by ...")
            if said := _search(_ERROR_STR_RE, [line, *after]):
                ev.exception_type += f": {said.group('what')}"
        if kernel_failed:
            # the runtime's report of a compute kernel that failed on the device, under a
            # CANN code ("EZ9999  Aicore kernel execute failed, device_id=0, ..., fault
            # kernel_name=..."): the device's exception, its operator named where HCCL's is not
            if ev.device is None and (dev := _DEVICE_ID_RE.search(message)):
                ev.device = int(dev.group(1))
            kernel = _FAULT_KERNEL_RE.search(message)
            if kernel is None or not _HCCL_AIV_KERNEL_RE.match(kernel.group("name")):
                ev.kind = "npu_device_exception"
                ev.exception_type = f"{kernel_failed.group(0)}" + (
                    f" in kernel {kernel.group('name')}" if kernel else ""
                )
        if _DEVICE_ERROR_HEAD_RE.search(line) and (asserted := _ascendc_assertion(lines, index)):
            ev.message = f"{ev.message} / {asserted}"[:600]
        if loc := (
            _search(_LOCATION_RE, window)
            or _search(_SERVER_DEVICE_RE, window)
            or _search(_SERVER_PAIR_RE, window)
        ):
            _blame(ev, loc)
        if code == "EI0006" and (
            detected := [d for text in (line, *after) for d in _CONNECT_DETECTED_RE.finditer(text)]
        ):
            _detected_peers(ev, detected)
        if link := _search(_CREATE_LINK_RE, window):
            ev.rank = ev.rank if ev.rank is not None else int(link.group("rank"))
            ev.remote_rank = int(link.group("drank"))
            ev.ip, ev.remote_ip = link.group("ip") or None, link.group("dip")
        # plog lines carry no launcher tag: a tagged rank's code may claim an untagged table
        owner = tagged if tagged in pending_link else None
        rows = pending_link.get(owner, [])
        first = rows[0] if rows else None
        if (
            first is not None
            and no - rows[-1][0] <= LINK_WINDOW_LINES
            and ev.rank in (None, int(first[1].group("srank")))
        ):
            # every row is a peer this rank waited for; the first one is the one it names
            del pending_link[owner]
            _link(ev, *first[1:])
        key = (code, ev.rank, ev.message[:80])
        if key in seen:
            continue
        seen.add(key)
        report.events.append(ev)
    links_seen: set[tuple[int, int, str]] = set()
    for tagged, no, lm, device, timeout_s in (
        (t, *row) for t, rows in pending_link.items() for row in rows
    ):
        ev = LogEvent(kind="hccl_link_timeout", line=no, message=lm.group(0).strip()[:300])
        _link(ev, lm, device, timeout_s)
        ev.rank = int(lm.group("srank"))
        # the operation whose link set-up this was: HCCL reports it failed after the table
        op_no, op = failed_op.get(tagged, (0, None))
        if no < op_no <= no + LINK_WINDOW_LINES:
            ev.op = op
        link_key = (ev.rank, ev.remote_rank or 0, lm.group("dip"))
        if link_key not in links_seen:
            links_seen.add(link_key)
            report.events.append(ev)
    _unclaimed_hccl(report, establish, rows_seen, binds, lines, link_device)
    _ra_socket_timeouts(report, lines)
    _negotiation(report, lines)
    for tagged, no in titles.items():
        if tagged not in rows_seen:
            report.unread.append(
                ParseWarning(
                    line=no,
                    message="HCCL socket table (LINK_ERROR_INFO) ends before its first row: "
                    "the peers this rank waited for are not named",
                )
            )


def _unclaimed_hccl(
    report: LogReport,
    establish: dict[int | None, tuple[int, int | None, int | None]],
    rows_seen: set[int | None],
    binds: list[tuple[int, str, int | None, re.Match[str]]],
    lines: list[tuple[int, str, int | None]],
    link_device: dict[int | None, int],
) -> None:
    """Link waits and listen failures that no error code and no socket-table row explained
    (the device from the socket table's "comm error, device[N]" title, where one came)."""
    coded = [e for e in report.events if e.kind == "hccl_error"]
    coded_timeouts_ms = {e.timeout_ms for e in coded}  # a code's block read that wait already
    by_no = {no: line for no, line, _ in lines}
    for tagged, (no, named, seconds) in establish.items():
        timeout_ms = seconds * 1000 if seconds is not None else None
        if tagged in rows_seen or (coded if seconds is None else timeout_ms in coded_timeouts_ms):
            continue
        message = by_no[no].strip()
        for after in (by_no.get(no + 1, ""), by_no.get(no + 2, "")):
            if seconds is None and "local role is" in after:
                # the socket manager's next verdict says which end this rank was
                message += " / " + after[after.find("Wait links") :].strip()
                break
        what = "time out" if seconds is not None else "link set-up failed"
        if counts := _EXCHANGER_COUNT_RE.search(message):
            what += (
                f": {counts.group('remain')} of the {counts.group('total')} sockets it waited "
                "for never connected"
            )
        # an older plog's exchanger status table below ("| dest_dev | userrank | Role |
        # connStatus |", a row a peer): the peers whose connection never came, by rank
        status = [
            r
            for n in range(no + 1, no + 1 + EXCHANGER_TABLE_LINES)
            if (r := _EXCHANGER_ROW_RE.search(by_no.get(n, "")))
        ]
        if not_connected := [r.group("rank") for r in status if r.group("conn") == "NO"]:
            joined = [r.group("rank") for r in status if r.group("conn") == "YES"]
            what += f"; its status table: rank(s) {', '.join(not_connected)} not connected" + (
                f" (rank(s) {', '.join(joined)} connected)" if joined else ""
            )
        ev = LogEvent(
            kind="hccl_link_timeout",
            line=no,
            message=message[:400],
            rank=named if named is not None else tagged,
            device=link_device.get(tagged),
            timeout_ms=timeout_ms,
            exception_type=what,
            library="HCCL",
        )
        # the plog's error number ("errNo[0x00000000500000b]", an older plog's, a digit short)
        if (numbered := _ERRNO_RE.search(message)) and (
            result := hccl_errno_result(numbered.group("hex"))
        ) is not None:
            ev.code, ev.code_name = str(result), decode_result(result)[0]
        report.events.append(ev)
    seen: set[tuple[str, int]] = {(e.ip, e.port) for e in coded if e.ip and e.port}
    for no, line, tagged, bm in binds:
        key = (bm.group("ip"), int(bm.group("port")))
        if key in seen:
            continue
        seen.add(key)
        report.events.append(
            LogEvent(
                kind="hccl_bind_failure",
                line=no,
                message=line.strip()[:300],
                rank=tagged,
                ip=key[0],
                port=key[1],
                exception_type=f"socket type {bm.group('type')}" if bm.group("type") else None,
            )
        )


# HCCL's socket layer gave up waiting on a connected peer (a CANN 9 plog, orion_adapter_hccp.cc):
# "[Recv][RaSocket]errNo[0x0000000005000013] Wait timeout for sockets recv, data[..], size[8],
# recvSize[0], ..." then "Please check ... the firewall ... error log on the other process";
# module 5 = HCCL, 0x13 = 19 = HCCL_E_NETWORK (hcomm hccl_types.h).
_RA_SOCKET_RE = re.compile(
    r"\[(?P<dir>Recv|Send)\]\[RaSocket\]errNo\[0x(?P<hex>[0-9a-fA-F]+)\]\s*"
    r"(?P<what>Wait timeout for sockets (?:recv|send))"
    r"(?:.*?size\[(?P<size>\d+)\], (?:recv|send)Size\[(?P<got>\d+)\])?"
)


# HCCL's error codes by their messages, for a copy that kept a message without its code (the
# ErrMessage templates of hcomm's error_code.cc, as docs/en/error_codes/EI00NN-*.md show each with
# an example): the fixed words each template starts with (EI0002's, with its peer, is read by
# _EI0002_MESSAGE_RE's own reader)
_HCCL_MESSAGE_CODES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("EI0003", re.compile(r"\bFailed to verify parameters of operator \S+")),
    ("EI0004", re.compile(r"\bFailed to parse the ranktable file \S+")),
    ("EI0005", re.compile(r"\bThe arguments for collective communication are inconsistent between ranks\b")),
    ("EI0006", re.compile(r"\bGetting socket times out\. Reason: ")),
    ("EI0007", re.compile(r"\bFailed to allocate resource \S[^\n]{0,300}?Reason: Resources are exhausted")),
    ("EI0008", re.compile(r"\bThe [^.\n]{0,40}?versions are inconsistent\. The local\b")),
    ("EI0009", re.compile(r"\bDevice (?P<device>\d+) transport init error\. Reason: ")),
    ("EI0010", re.compile(r"\bP2P communication failed\. Reason: ")),
    ("EI0011", re.compile(r"\bFailed to allocate \d+ bytes of NPU memory\b")),
    ("EI0012", re.compile(r"\bSDMA memory copy task exception occurred\b")),
    ("EI0015", re.compile(r"\bFailed to collect cluster information of the communicator based on rootInfo detection\b")),
    ("EI0016", re.compile(r"\bValue \S+ for config \"?tls\"? is invalid\b")),
    ("EI0019", re.compile(r"\bFailed to enable listening for the host network adapter socket\b")),
    ("EI0020", re.compile(r"\bFailed to enable listening for the NPU network adapter socket\b")),
)  # fmt: skip
_HCCL_CONTEXT_CODES = frozenset({"EI0003", "EI0004", "EI0007"})
# EI0019's and EI0020's reason (hcomm's EI0019 page): "The IP address 10.23.146.197 add port 50001
# have already been bound."
_BOUND_RE = re.compile(
    r"\bThe IP address (?P<ip>[0-9A-Fa-f.:]+) add port (?P<port>\d+) have already been bound"
)
HCCL_MESSAGE_SIGNATURE = "|".join(
    p.pattern for code, p in _HCCL_MESSAGE_CODES if code not in _HCCL_CONTEXT_CODES
)
"""The messages that name HCCL's own failure whatever log holds them (not the parameter, rank
table and resource messages, whose words a program's own log may use)."""
_HCCL_MESSAGE_WORDS = ("Reason: ", "Failed to ", "SDMA memory copy", "inconsistent", " is invalid")


def _hccl_messages_without_code(
    report: LogReport, lines: list[tuple[int, str, int | None]]
) -> None:
    """An HCCL error code's message a copy kept without its code ("Device 0 transport init
    error. Reason: The network port is down."): the code its template is, once per line and code
    (a line that carries a code is read with it)."""
    coded = {e.line for e in report.events}
    codes = {e.code for e in report.events if e.code}  # (a code the log also names: read there)
    seen: set[tuple[str, str]] = set()
    for no, line, tagged in lines:
        if no in coded or not any(w in line for w in _HCCL_MESSAGE_WORDS) or _code_match(line):
            continue
        for code, pattern in _HCCL_MESSAGE_CODES:
            if code in codes or not (m := pattern.search(line)):
                continue
            if code in _HCCL_CONTEXT_CODES and "HCCL" not in line:
                continue  # (words a program's own error may use: only on HCCL's own line)
            message = line[m.start() :].strip()
            if (code, message) in seen:
                break
            seen.add((code, message))
            bound = _BOUND_RE.search(message)
            report.events.append(
                LogEvent(
                    kind="hccl_error",
                    line=no,
                    message=f"{code} (by its message): {message}"[:300],
                    code=code,
                    rank=tagged,
                    device=int(m.group("device")) if "device" in m.groupdict() else None,
                    ip=bound.group("ip") if bound else None,
                    port=int(bound.group("port")) if bound else None,
                    library="HCCL",
                )
            )
            break


def _ra_socket_timeouts(report: LogReport, lines: list[tuple[int, str, int | None]]) -> None:
    """A socket wait of HCCL's that timed out with no error code block around it: one link
    wait per process (its repeats and the "[RecvMsg]Failed" echo are the same wait)."""
    if any(e.kind == "hccl_error" and e.code == "EI0006" for e in report.events):
        return  # the code's event already says the socket timed out
    seen: set[tuple[int | None, int | None]] = set()
    roots: dict[int | None, re.Match[str]] = {}  # each process's root info, as it entered
    for index, (no, line, tagged) in enumerate(lines):
        if "Entry-HcclCommInitRootInfo" in line and (entry := _INIT_ENTRY_RE.search(line)):
            pe = _PLOG_PID_RE.match(line)
            roots[int(pe.group(1)) if pe else None] = entry
            continue
        if "RaSocket" not in line or not (m := _RA_SOCKET_RE.search(line)):
            continue
        pid = _PLOG_PID_RE.match(line)
        key = (tagged, int(pid.group(1)) if pid else None)
        if key in seen:
            continue
        seen.add(key)
        result = hccl_errno_result(m.group("hex"))
        name = decode_result(result)[0] if result is not None else None
        got = f", {m.group('got')} of {m.group('size')} bytes" if m.group("size") else ""
        # a rank's agent waiting on the root during topology detection (its trace then reads
        # "[Recv][ClusterInfoMsg]" and topoinfo_exchange_agent.cc): the root is the peer, at the
        # address and port its Entry-HcclCommInitRootInfo line gave (hcomm topoinfo_detect.cc)
        root = roots.get(key[1]) if key[1] is not None else None  # (a pid on both lines)
        after = " ".join(text for _, text, _ in lines[index + 1 : index + 8])
        to_root = (
            root is not None
            and root.group("ip") is not None
            and ("topoinfo_exchange_agent" in after or "setup topo detect error" in after)
        )
        report.events.append(
            LogEvent(
                kind="hccl_link_timeout",
                line=no,
                message=_PLOG_HEAD_RE.sub("", line.strip())[:300],
                rank=tagged,
                pid=key[1],
                code=str(result) if name else None,
                code_name=name,
                remote_ip=root.group("ip") if to_root and root else None,
                port=int(root.group("port")) if to_root and root else None,
                exception_type=f"socket {m.group('dir').lower()} timed out"
                + (
                    " (connected, nothing came)"
                    if m.group("dir") == "Recv" and m.group("got") == "0"
                    else ""
                )
                + got
                + (", waiting for the root's cluster information" if to_root else ""),
            )
        )


def _root_unconnected(
    lines: list[tuple[int, str, int | None]], index: int
) -> tuple[int, list[int]] | None:
    """The communicator's size and the ranks that never connected, from the root's connected
    list after its time-out at ``index``; None unless its size and every line of the list are
    there."""
    size: int | None = None
    lines_said: int | None = None
    connected: set[int] = set()
    seen_lines = 0
    for _, text, _ in lines[index : index + CONNECTED_LIST_LINES]:
        if "connect" not in text:
            continue
        if m := _CONNECTED_LINES_RE.search(text):
            lines_said = int(m.group(2))
        if m := _NEED_CONNECT_RE.search(text):
            size = int(m.group(1))
        for m in _CONNECTED_INFO_RE.finditer(text):
            seen_lines += 1
            connected.update(int(r) for r in re.findall(r"\[(\d+)\]", m.group(1)))
    if size is None or lines_said is None or seen_lines < lines_said:
        return None
    return size, sorted(set(range(size)) - connected)


def _negotiation(report: LogReport, lines: list[tuple[int, str, int | None]]) -> None:
    """An agent's failed cluster negotiation that no EI0015 code block already read."""
    if any(e.kind == "hccl_error" and e.code == "EI0015" for e in report.events):
        return
    current: LogEvent | None = None
    for index, (no, line, tagged) in enumerate(lines):
        if "topo exchange server" in line and (sm := _SERVER_TIMEOUT_RE.search(line)):
            current = LogEvent(
                kind="hccl_negotiation_failure",
                line=no,
                message=line.strip()[:300],
                rank=tagged,
                timeout_ms=int(sm.group(1)) * 1000,
                exception_type="root waited for ranks that never connected",
            )
            if unconnected := _root_unconnected(lines, index):
                current.rank_size, current.missing_ranks = unconnected
            report.events.append(current)
            continue
        if "connected num" in line and (cn := _CONNECTED_NUM_RE.search(line)):
            if current is not None and no - current.line <= NEGOTIATION_WINDOW_LINES:
                current.message = f"{current.message}; {cn.group(0)}"[:400]
            continue
        if "topo exchange agent" in line and (tm := _AGENT_TIMEOUT_RE.search(line)):
            current = LogEvent(
                kind="hccl_negotiation_failure",
                line=no,
                message=line.strip()[:300],
                rank=tagged,
                timeout_ms=int(tm.group(1)) * 1000,
                exception_type="agent socket timeout",
            )
            report.events.append(current)
        elif "connect server" in line and (cm := _CONNECT_SERVER_RE.search(line)):
            if current is None or no - current.line > NEGOTIATION_WINDOW_LINES:
                current = LogEvent(
                    kind="hccl_negotiation_failure",
                    line=no,
                    message=line.strip()[:300],
                    rank=tagged,
                    exception_type="agent socket timeout",
                )
                report.events.append(current)
            current.remote_ip, current.port = cm.group("ip"), int(cm.group("port"))
        elif "Failed to connect agent" in line and (ma := _MISSING_AGENTS_RE.search(line)):
            current = LogEvent(
                kind="hccl_negotiation_failure",
                line=no,
                message=line.strip()[:300],
                rank=tagged,
                exception_type="ranks not connected",
                missing_ranks=_rank_list(ma.group("ranks")),
            )
            report.events.append(current)
        elif "rank num" in line and (rn := _RANK_NUM_RE.search(line)):
            if current is not None and no - current.line <= NEGOTIATION_WINDOW_LINES:
                current.rank_size = int(rn.group(1))
        elif "rankNum[" in line and (rn := _RANK_NUM_INIT_RE.search(line)):
            if current is not None and no - current.line <= NEGOTIATION_WINDOW_LINES:
                current.rank_size = current.rank_size or int(rn.group(1))
        elif "connectFailedAgentIdList" in line and (fa := _FAILED_AGENTS_RE.search(line)):
            ranks = _rank_list(fa.group("ranks"))
            if current is not None and no - current.line <= NEGOTIATION_WINDOW_LINES:
                current.missing_ranks = ranks  # the root's time-out above: these never came
                current.message = f"{current.message}; {len(ranks)} agent(s) never connected"
            else:
                current = LogEvent(
                    kind="hccl_negotiation_failure",
                    line=no,
                    message=line.strip()[:300],
                    rank=tagged,
                    exception_type="ranks not connected",
                    missing_ranks=ranks,
                )
                report.events.append(current)


# torch_npu's HCCL_CHECK_ERROR (csrc/distributed/HCCLUtils.hpp): "HCCL function error:
# hcclCommInitRootInfoConfig(numRanks, ...), error code is 1", the HcclResult the call returned,
# then (same line in compact mode, else the next) its own code "ERR02200 DIST call hccl api
# failed" (torch_npu's formatErrorCode: ERR + sub-module 02 DIST + ErrCode 200 HCCL) with
# "(PID:.., Device:N, RankID:N)". A CANN code line (EI0015, EJ0003 ...) may follow with the reason.
# torch_npu's op-plugin path names the HCCL entry point without its arguments: "OPS function
# error: HcclAllreduce, error code is 6" (then "ERR01100 OPS call acl api failed").
_HCCL_CALL_RE = re.compile(
    # (a copy that put "..." for the arguments: "HCCL function error: hcclCommInitRootInfoConfig
    # ... error code is 7")
    r"HCCL function error: (?P<call>\w+)(?:\(.*?\)\s*[,，]|\s*(?:\.{3}|…)[,，]?)\s*error code is\s*(?P<code>-?\d+)"
    r"|OPS function error: (?P<call2>Hccl\w+)\s*[,，]\s*error code is\s*(?P<code2>-?\d+)"
    # a copy that shortened the message to its call ("RuntimeError: create_config ...
    # hcclCommInitRootInfoConfig(...), error code is 5"): an hccl entry point's name is enough
    r"|(?<![\w.])(?P<call3>[Hh]ccl[A-Z]\w*)\(.*?\)\s*[,，]\s*error code is\s*(?P<code3>-?\d+)"
)
# A C++ caller's glog CHECK on an HcclResult (xLLM's collective service, for one): "Check failed:
# status == HCCL_SUCCESS (1 vs. 0) HCCL get root info failed." — glog prints both values.
_HCCL_CHECK_RE = re.compile(
    r"Check failed: \S+ == HCCL_SUCCESS \((?P<code>-?\d+) vs\. 0\)\s*(?P<what>.*?)\.?\s*$"
)
# HCCL's own plog names the failed call after its error number: "[ERROR] HCCL(36035,mindie_llm_
# backend_connector):... [op_base.cc:974][36818][Init][CommRootInfoConfig]errNo[0x00000000050000
# 02]HcclCommInitRootInfo failed." (hicann/hcomm src/pub_inc/log.h: module 5 = HCCL in bits 24-31,
# the HcclResult in the low bits); a caller's own log prints the result it got back: "AllGather
# HcclRunner:0 HcclCommInitRootInfo fail, error:2, rank:1, rankSize:4" (MindIE's ATB runner).
_HCCL_ERRNO_CALL_RE = re.compile(
    r"errNo\[0x(?P<hex>[0-9a-fA-F]+)\]\s*(?:\[[^\]]*\]\s*)*(?P<call>Hccl\w+) fail"
    r"|\b(?P<call2>Hccl\w+) fail(?:ed)?, error:\s*(?P<code>-?\d+)"
    r"(?:, rank:\s*(?P<rank>\d+))?(?:, rankSize:\s*(?P<size>\d+))?"
    # CANN's operator layer in an error code's TraceBack: "Nnopbase fails to invoke the
    # HcclAllocComResourceByTiling function of the hccl module. ret = 4, comm = 0xfffcc6ed27a0."
    r"|fails to invoke the (?P<call3>Hccl\w+) function of the hccl module\. ret = (?P<code3>-?\d+)"
    # hcom's result of an operation: "[AllReduce][Result]errNo[0x0000000005010010] hcclComm all
    # reduce error, tag[HcomAllReduce_...]" (module 5 HCCL, the HcclResult in the low bits)
    r"|errNo\[0x(?P<hex4>[0-9a-fA-F]+)\]\s*(?:op_base )?(?P<call4>hcclComm (?P<op4>[A-Za-z]+(?: [a-z]+)*)) error"
    # ATB's HCCL runner (MindIE): "[hccl_runner.cpp:103] HCCL CommInitClusterInfo ERROR19 should
    # check rankTableFile config" (the call without its Hccl prefix, the HcclResult after ERROR)
    r"|\bHCCL (?P<call8>Comm\w+) ERROR(?P<code8>\d+)\b"
    # op_base.cc's trace of a failed init: "HcclCommInitRootInfo failed, return[0x0000000005000004],
    # rankNum[8], rank[6], rootInfo identifier[...]" (a MindCluster plog sample)
    r"|\b(?P<call5>Hccl\w+) failed, return\[0x(?P<hex5>[0-9a-fA-F]+)\]"
    r"(?:, rankNum\[(?P<size5>\d+)\], rank\[(?P<rank5>\d+)\])?"
    # its own summary line: "[InitCommRootInfo]Init failed, return[0x0000000005000007],
    # rankNum[8], rank[4], rootInfo identifier[group_name_53], server[0.0.0.0], logicDevId[0]"
    r"|\[(?P<call6>InitComm\w+)\]Init failed, return\[0x(?P<hex6>[0-9a-fA-F]+)\], "
    r"rankNum\[(?P<size6>\d+)\], rank\[(?P<rank6>\d+)\](?:, rootInfo identifier\[(?P<group6>[^\]]+)\])?"
    # CANN's inner error (E19999) of a caller that wraps HCCL (HIXL's channel, LLM-DataDist): "Call
    # llm::HcclAdapter::GetInstance().HcclCommPrepare(channel_info_.comm, ...) fail, ret: 0x9" —
    # the HcclResult the call returned, in hex (a cann-learning-hub HIXL troubleshooting example)
    r"|\b(?P<call9>Hccl\w+)\((?:[^()\n]|\([^()\n]*\))*\) fail, ret: 0x(?P<hex9>[0-9a-fA-F]+)\b"
)
# that caller's own trace of the connection it was making: "Failed to connect, remote
# engine:127.0.0.1:16789, timeout:1000 ms" (HIXL's channel_msg_handler.cc)
_REMOTE_ENGINE_RE = re.compile(
    r"remote engine:\s*(?P<ip>\d+(?:\.\d+){3}):(?P<port>\d+), timeout:\s*(?P<ms>\d+)\s*ms"
)
REMOTE_ENGINE_LINES = 12
"""How far under the failed call its caller's traceback may name the engine it connected to."""
# torch_npu's C10D_HCCL_CHECK (ProcessGroupHCCL / HCCLUtils.hpp): "HCCL error in: FILE:LINE, "
# then getHcclErrorDetailStr(result) and its DIST ERR code; a release whose detail is empty shows
# "RuntimeError: [ERROR] HCCL error in: torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:64", the
# "(PID:.., Device:3, RankID:3) ERR02200" line and the CANN code (EJ0001 ...) after it: the call
# is not named, the Python frame above names the collective that made it.
_HCCL_CHECK_IN_RE = re.compile(r"HCCL error in: (?P<where>\S+?:\d+)")
_C10D_FRAME_RE = re.compile(r"^\s*File \".*distributed_c10d\.py\", line \d+, in (?P<fn>\w+)\s*$")
C10D_FRAME_LINES = 3
"""How far above torch_npu's "HCCL error in:" line the c10d frame of the collective may stand."""
_HCCL_MODULE = 5
"""The module number of HCCL in a plog's errNo (hicann/hcomm log.h)."""


_ERRNO_CALL_GROUPS = (("hex4", "call4"), ("hex", "call"), ("hex5", "call5"), ("hex6", "call6"))
"""The error number and call groups of ``_HCCL_ERRNO_CALL_RE``'s alternatives that print one."""


def hccl_errno_result(hex_digits: str) -> int | None:
    """The HcclResult in a plog's error number (``errNo[0x0000000005000002]``'s digits: HCCL's
    module in bits 24-31, the result in the low bits; an older plog prints it a digit short,
    the same number), or None for another module's number."""
    value = int(hex_digits, 16)
    return value & 0xFFFF if (value >> 24) & 0xFF == _HCCL_MODULE else None


_TORCH_NPU_CODE_RE = re.compile(r"\b(ERR\d{5})\b")
CALL_WINDOW_LINES = 2
"""How far after torch_npu's "HCCL function error" line its ERRnnnnn line may stand."""


def _torch_npu_context(ev: LogEvent, window: list[str]) -> None:
    """Device, pid and (when the line names one) rank from torch_npu's "(PID:N, Device:N,
    RankID:N)" line in ``window``; RankID -1 means none."""
    if dev := _search(_DEVICE_RE, window):
        ev.device = int(next(g for g in dev.groups() if g))
    if pid := _search(_PID_RE, window):
        ev.pid = int(pid.group(1) or pid.group(2))
        if ev.rank == ev.pid:
            ev.rank = None  # torch_npu's "[758] [date] torch.distributed:" pid, not a rank tag
    if ev.rank is None and (rid := _search(_RANKID_RE, window)) and int(rid.group(1)) >= 0:
        ev.rank = int(rid.group(1))


# HCCL's own check of a group call (hcomm's HcclGroupEnd): "HcclGroupEnd: not in a group call.
# Didn't call HcclGroupStart before." and it returns HCCL_E_NOT_SUPPORT
_GROUP_END_RE = re.compile(r"\b(?P<call>HcclGroupEnd): not in a group call")
_GROUP_END_RESULT = 5
"""HCCL_E_NOT_SUPPORT: what HcclGroupEnd returns outside a group (hcomm)."""


def _hccl_calls(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    reported: dict[tuple[str, int], LogEvent] = {}  # (call, result) → its first event
    # pid → (rank, size, group) its init's summary named
    summarised: dict[int, tuple[int | None, int | None, str | None]] = {}
    joined = -1  # a line read already as the rest of the one before it
    for index, (no, line, tagged) in enumerate(lines):
        if index == joined:
            continue
        op: str | None = None
        group: str | None = None
        summary = False
        e: re.Match[str] | None = None
        if "not in a group call" in line and (g := _GROUP_END_RE.search(line)):
            result, call, rank, size = _GROUP_END_RESULT, g.group("call"), tagged, None
        elif (
            ("Hccl" in line and " fail" in line)
            or "hcclComm" in line
            or "HCCL Comm" in line
            or "]Init failed, return[" in line
        ) and (e := _HCCL_ERRNO_CALL_RE.search(line)):
            if numbered := next(((h, c) for h, c in _ERRNO_CALL_GROUPS if e.group(h)), None):
                found = hccl_errno_result(e.group(numbered[0]))
                if found is None:
                    continue  # another module's number: its low bits are no HcclResult
                result, call = found, e.group(numbered[1])
            elif e.group("call9"):
                result, call = int(e.group("hex9"), 16), e.group("call9")
            elif e.group("call8"):
                result, call = int(e.group("code8")), f"Hccl{e.group('call8')}"
            elif e.group("call3"):
                result, call = int(e.group("code3")), e.group("call3")
            else:
                result, call = int(e.group("code")), e.group("call2")
            named_rank = e.group("rank") or e.group("rank5") or e.group("rank6")
            rank = int(named_rank) if named_rank else tagged
            named_size = e.group("size") or e.group("size5") or e.group("size6")
            group = e.group("group6")
            summary = e.group("hex6") is not None
            size = int(named_size) if named_size else None
            op = op_name(e.group("op4")) if e.group("op4") else None
        else:
            call = None
        if summary:
            # the init's summary ("[InitCommRootInfo]Init failed, ... rank[4], rootInfo
            # identifier[group_name_53]") says again what the process's failed calls said, and
            # names its rank and group: given to those calls, before and after it, no event
            if pm := _PLOG_PID_RE.match(line):
                pid_no = int(pm.group(1))
                summarised[pid_no] = (rank, size, group)
                for other in reported.values():
                    if other.pid == pid_no:
                        other.rank = other.rank if other.rank is not None else rank
                        other.rank_size = other.rank_size or size
                        other.group = other.group or group
            continue
        if call is not None:
            if (call, result) in reported:
                # the same failure told again by the caller (HCCL's plog, then its runner)
                first = reported[(call, result)]
                first.rank = first.rank if first.rank is not None else rank
                first.rank_size = first.rank_size or size
                continue
            name, meaning = decode_result(result)
            pid = _PLOG_PID_RE.match(line)
            ev = LogEvent(
                kind="hccl_call_failure",
                line=no,
                # the line as printed (what an operator greps for; a plog's level, module, pid
                # and time stamp aside) and what its code means
                message=f"{_PLOG_HEAD_RE.sub('', line.strip())[:240]} ({result} = {name}: {meaning})",
                code=str(result),
                code_name=name,
                rank=rank,
                rank_size=size,
                call=call,
                pid=int(pid.group(1)) if pid else None,
                op=op,
            )
            if e is not None and e.group("call9"):
                below = [t for _, t, _ in lines[index + 1 : index + 1 + REMOTE_ENGINE_LINES]]
                if engine := _search(_REMOTE_ENGINE_RE, below):
                    ev.remote_ip, ev.port = engine.group("ip"), int(engine.group("port"))
                    ev.timeout_ms = int(engine.group("ms"))
                if inner := _PID_RE.search(line):
                    ev.pid = int(inner.group(1) or inner.group(2))
                # the inner error's code (E19999) says only that a call failed: this is the call
                report.events[:] = [
                    o
                    for o in report.events
                    if not (o.kind == "hccl_error" and o.line == no and o.code == "E19999")
                ]
            if ev.pid is not None and ev.pid in summarised:
                ev.rank = ev.rank if ev.rank is not None else summarised[ev.pid][0]
                ev.rank_size = ev.rank_size or summarised[ev.pid][1]
                ev.group = ev.group or summarised[ev.pid][2]
            reported[(call, result)] = ev
            report.events.append(ev)
            continue
        if "HCCL_SUCCESS (" in line and (c := _HCCL_CHECK_RE.search(line)):
            result = int(c.group("code"))
            name, meaning = decode_result(result)
            what = c.group("what") or "an HCCL call failed"
            report.events.append(
                LogEvent(
                    kind="hccl_call_failure",
                    line=no,
                    message=f"{what}: {result} = {name} ({meaning})",
                    code=str(result),
                    code_name=name,
                    rank=tagged,
                )
            )
            continue
        if "HCCL error in: " in line and (h := _HCCL_CHECK_IN_RE.search(line)):
            window = [t for _, t, _ in lines[index : index + 1 + CALL_WINDOW_LINES]]
            ev = LogEvent(
                kind="hccl_call_failure",
                line=no,
                message=f"HCCL error in {h.group('where')} (the call and its result not printed)",
                rank=tagged,
            )
            above = lines[max(0, index - C10D_FRAME_LINES) : index]
            if fr := _search(_C10D_FRAME_RE, [t for _, t, _ in reversed(above)]):
                ev.op = op_name(fr.group("fn"))
                ev.message = f"{ev.message} in {ev.op}"
            if code := _search(_TORCH_NPU_CODE_RE, window):
                ev.torch_npu_code = code.group(1)
                ev.message += f", {ev.torch_npu_code}"
            _torch_npu_context(ev, window)
            _cann_reason_after(lines, index, ev)
            report.events.append(ev)
            continue
        if "function error" not in line and "error code is" not in line:
            continue
        if line.rstrip().endswith("function error:") and index + 1 < len(lines):
            # a copy that wrapped the message after its colon: "... HCCL function error:" then
            # "hcclCommInitRootInfoConfig(...), error code is 15"
            line = f"{line.rstrip()} {lines[index + 1][1].strip()}"
            joined = index + 1
        if not (m := _HCCL_CALL_RE.search(line)):
            continue
        call = m.group("call") or m.group("call2") or m.group("call3")
        result = int(m.group("code") or m.group("code2") or m.group("code3"))
        name, meaning = decode_result(result)
        window = [line[m.end() :]] + [
            t for _, t, _ in lines[index + 1 : index + 1 + CALL_WINDOW_LINES]
        ]
        ev = LogEvent(
            kind="hccl_call_failure",
            line=no,
            message=f"{call} returned {result} = {name} ({meaning})",
            code=str(result),
            code_name=name,
            rank=tagged,
            call=call,
        )
        if code := _search(_TORCH_NPU_CODE_RE, window):
            ev.torch_npu_code = code.group(1)
            ev.message += f", {ev.torch_npu_code}"  # the code operators search the log for
        _torch_npu_context(ev, window)
        _cann_reason_after(lines, index, ev)
        report.events.append(ev)
    # (the init's summary names the rank of the process's link waits too: its socket time-out
    # came before the summary, in the same process)
    for ev in report.events:
        if ev.kind == "hccl_link_timeout" and ev.rank is None and ev.pid in summarised:
            ev.rank, ev.rank_size, summary_group = summarised[ev.pid]
            ev.group = ev.group or summary_group


REASON_LINES = 3
"""How far under torch_npu's failed HCCL call the CANN code that gives its reason may stand."""


def _cann_reason_after(lines: list[tuple[int, str, int | None]], index: int, ev: LogEvent) -> None:
    """A CANN code of another component than HCCL's (EC0010 an operator compiler's Python module
    that would not import, EL0003 a runtime argument, EE/EZ a device task ...) right under the
    failed call: CANN logs the reason a call failed after it, so the call's line names it (its
    own finding says the rest). HCCL's own codes (EI, EJ) have findings that name the call."""
    for _, after, _ in lines[index + 1 : index + 1 + REASON_LINES]:
        if (m := _code_match(after)) and not (code := _code_of(m)).startswith(("EI", "EJ")):
            words = after[m.end() :].strip(" :").strip()
            ev.message += f"; the reason CANN logged under it: {code}" + (
                f" ({words[:160]})" if words else ""
            )
            return


# pytorch ProcessGroupNCCL.cpp (broadcastUniqueNCCLID) and torch_npu's ProcessGroupHCCL: a rank
# other than 0 reads the communicator's unique id that rank 0 put in the c10d store; when the
# store read fails: "[1] is setting up HCCL communicator and retrieving hcclUniqueId from [0] via
# c10d key-value store by key '0', but store->get('0') got error: failed to recv, got 0" (older
# torch spells it "retreiving"); torch adds that rank 0 may have crashed or the network is wrong.
_UNIQUE_ID_RE = re.compile(
    r"(?:\[(?P<rank>\d+)\] )?is setting up (?P<lib>[NH]CCL) communicator and retr(?:ie|ei)ving "
    r"\w+ from \[(?P<root>\d+)\] via c10d key-value store by key '[^']*', but store->get\('[^']*'\) "
    r"got error: ?(?P<why>.*)"
)
# (the store's wait, "wait timeout after 1800000ms", or torch's "Timeout waiting for key:
# default_pg/0/0 after 1800000 ms")
_WAIT_TIMEOUT_RE = re.compile(r"(?:wait timeout|Timeout waiting for key: \S+) after (\d+)\s*ms")
# torch's frame line under it: "Exception raised from get at .../c10d/FileStore.cpp:362"
_STORE_RAISED_RE = re.compile(r"Exception raised from \w+ at \S*/c10d/(\w*Store)\.cpp:\d+")
STORE_RAISED_LINES = 2
"""How far below a failed store read torch's "Exception raised from" line may stand."""
# torch_npu's older ProcessGroupHCCL (broadcastMasterID, Ascend/pytorch torch_npu/csrc/
# distributed/ProcessGroupHCCL.cpp): rank 0 of the group puts the HCCL root info
# (HcclGetRootInfo) in the c10d store and every other rank reads it; a failed read is thrown again
# as "store->get() got error: HCCL_BLOCKING_WAIT" (the name of a constant, none of the store's own
# words), then torch_npu's "(PID:.., Device:11, RankID:43) ERR02005 DIST internal error"
_NPU_ROOT_INFO_RE = re.compile(r"\bstore->get\(\) got error: HCCL_BLOCKING_WAIT\b")
# MindSpore's collective manager (ms_collective_comm_lib.cc QueryUniqueID, after its retries):
# "RuntimeError: Communicator of group xxx inited: failed. Result: Init communicator for group xxx
# exception info: Failed to fetch the unique id of the collective lib from the meta server node.
# Maybe the root rank process of this group has exited ... Please check root rank: 0's log."
_MS_UNIQUE_ID_RE = re.compile(
    r"(?:Communicator of group (?P<group>\S+) inited: failed\..*?)?Failed to fetch the unique id of "
    r"the collective lib from the meta server node\.(?:.*?check root rank: (?P<root>\d+)'s log)?"
)


def _unique_id_failures(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    seen: set[tuple[int | None, str]] = set()
    for index, (no, line, tagged) in enumerate(lines):
        if "store->get() got error" in line and _NPU_ROOT_INFO_RE.search(line):
            if (tagged, "HCCL root info") not in seen:
                seen.add((tagged, "HCCL root info"))
                ev = LogEvent(
                    kind="unique_id_failure",
                    line=no,
                    message="store->get() got error: HCCL_BLOCKING_WAIT (the HCCL root info the "
                    "group's rank 0 puts in the c10d store was not read)",
                    rank=tagged,
                    remote_rank=0,
                    library="HCCL",
                )
                window = [t for _, t, _ in lines[index : index + 1 + CALL_WINDOW_LINES]]
                _torch_npu_context(ev, window)
                if code := _search(_TORCH_NPU_CODE_RE, window):
                    ev.torch_npu_code = code.group(1)  # ERR02005, torch_npu's own word for it
                report.events.append(ev)
            continue
        if "Failed to fetch the unique id" in line and (ms := _MS_UNIQUE_ID_RE.search(line)):
            if (tagged, "MindSpore") not in seen:
                seen.add((tagged, "MindSpore"))
                report.events.append(
                    LogEvent(
                        kind="unique_id_failure",
                        line=no,
                        message=line[ms.start() :].strip()[:300],
                        rank=tagged,
                        remote_rank=int(ms.group("root")) if ms.group("root") else None,
                        group=ms.group("group"),
                        library="MindSpore",
                    )
                )
            continue
        if "UniqueId from" not in line or not (m := _UNIQUE_ID_RE.search(line)):
            continue
        # at the start of a line "[5] " reads as an MPI rank tag and is already taken off
        rank = int(m.group("rank")) if m.group("rank") else tagged
        key = (rank, m.group("why")[:80])
        if key in seen:  # the same error re-raised through the traceback
            continue
        seen.add(key)
        ev = LogEvent(
            kind="unique_id_failure",
            line=no,
            message=f"store->get got error: {m.group('why').strip()}"[:300],
            rank=rank,
            remote_rank=int(m.group("root")),
            library=m.group("lib"),
        )
        if wt := _WAIT_TIMEOUT_RE.search(m.group("why")):
            ev.timeout_ms = int(wt.group(1))
        below = [t for _, t, _ in lines[index + 1 : index + 1 + STORE_RAISED_LINES]]
        if raised := _search(_STORE_RAISED_RE, below):
            # the store the read went to, by the file that raised: a FileStore (init_method
            # file://) is a file every rank opens, a TCPStore the host at MASTER_ADDR
            ev.call = raised.group(1)
        report.events.append(ev)


# HCCL's communicator gave up allocating an operation's links: "[AllocAlgResource]Alloc transports
# failed, tag[HcomAllReduce_6629421139219749105_0_host]" (the tag names the operation); a link's
# set-up thread reports its own end: "errNo[0x0000000005000006] transport create fail in thread,
# local rank[443] remote rank[0]"
_ALLOC_TRANSPORTS_RE = re.compile(r"Alloc transports failed, tag\[(?:(?:Hcom)?(?P<op>[A-Za-z]+)_)?")
_CREATE_FAIL_RE = re.compile(
    r"transport create fail in thread, local rank\[(?P<rank>\d+)\] remote rank\[(?P<drank>\d+)\]"
)
TRANSPORT_REASON_LINES = 3
"""How far after a "Transport init error" line its thread's "transport create fail" may stand,
and how far above it the link's own failure (its socket's receive, its exchange) may."""
# the link's own failure above its "Transport init error": its socket's receive or send
# ("[Recv][RaSocket]errNo[0x000000000500000d] recv fail, data[0x..], size[2239]") and the
# exchange of link data with the peer it stopped ("[TransportP2p][Init] failed to recv
# exchangeData exchangeDataTotalSize[2239], custom exchange data size [1472]")
_LINK_CAUSE_RE = re.compile(
    r"\[(?P<call>(?:Recv|Send)\]\[RaSocket)\]errNo\[0x(?P<hex>[0-9a-fA-F]+)\] (?P<what>(?:recv|send) fail)"
    r"|(?P<exch>failed to (?:recv|send) exchangeData)"
)
_ERRNO_HEX_RE = re.compile(r"errNo\[0x(?P<hex>[0-9a-fA-F]+)\]")
# the thread a plog line was written from: "[transport_p2p.cc:139] [16542][TransportP2p]..."
# (_PLOG_THREAD_RE, the thread id after a plog line's source place, is defined further down)


def _transport_failures(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """HCCL's "Transport init error! createLink para:..." lines (plogs print them with no code;
    an error code's TraceBack lists one a peer): one event per pair of ranks, but the pair an
    error code's event already names."""
    seen: set[tuple[int, int]] = {
        (e.rank, e.remote_rank)
        for e in report.events
        if e.kind == "hccl_error" and e.rank is not None and e.remote_rank is not None
    }
    allocs: dict[str | None, LogEvent] = {}
    links = 0
    for index, (no, line, tagged) in enumerate(lines):
        if "Alloc transports failed" in line and (am := _ALLOC_TRANSPORTS_RE.search(line)):
            op = op_name(am.group("op")) if am.group("op") else None
            allocs.setdefault(
                op,
                LogEvent(
                    kind="hccl_transport_failure",
                    line=no,
                    message=line.strip()[:400],
                    rank=tagged,
                    op=op,
                ),
            )
            continue
        if "Transport init error" not in line or not (link := _CREATE_LINK_RE.search(line)):
            continue
        pair = (int(link.group("rank")), int(link.group("drank")))
        if pair in seen:
            continue
        message = line.strip()[:400]
        result: int | None = None
        for _, nxt, _ in lines[index + 1 : index + 1 + TRANSPORT_REASON_LINES]:
            cf = _CREATE_FAIL_RE.search(nxt) if "create fail" in nxt else None
            if cf and (int(cf.group("rank")), int(cf.group("drank"))) == pair:
                message = f"{message} / {nxt[nxt.find('transport create fail') :].strip()}"
                if en := _ERRNO_HEX_RE.search(nxt):
                    result = hccl_errno_result(en.group("hex"))
                break
        causes: list[str] = []
        thread = _PLOG_THREAD_RE.search(line)
        for _, above, _ in lines[max(0, index - TRANSPORT_REASON_LINES) : index]:
            if "fail" not in above or not (c := _LINK_CAUSE_RE.search(above)):
                continue
            if thread and (other := _PLOG_THREAD_RE.search(above)) and other[1] != thread[1]:
                continue  # another thread's link (HCCL sets links up in threads of their own)
            if c.group("exch"):
                causes.append(f"the link data with the peer not exchanged ({c.group('exch')})")
                continue
            code = hccl_errno_result(c.group("hex"))
            causes.append(f"its socket's {c.group('what')} with the peer")
            result = code if code is not None else result  # (the first failure's code)
        seen.add(pair)
        ev = LogEvent(
            kind="hccl_transport_failure",
            line=no,
            message=message[:500],
            rank=pair[0],
            remote_rank=pair[1],
            ip=link.group("ip") or None,  # HCCL may print the local address empty
            remote_ip=link.group("dip"),
            code=str(result) if result is not None else None,
            code_name=HCCL_RESULTS[result][0] if result in HCCL_RESULTS else None,
            exception_type="; ".join(causes) or None,
        )
        if tag := _TAG_RE.search(line):
            ev.op = OPS.get(_first(tag), _first(tag).lower())
        links += 1
        report.events.append(ev)
    if not links and not any(e.kind == "hccl_error" for e in report.events):
        # the allocation's own verdict, where no failed link or error code says more
        report.events.extend(allocs.values())


# HCCL's point-to-point link between two devices of one server (HCCS or PCIe): its set-up waits
# for the peer device and gives up after HCCL_CONNECT_TIMEOUT: "[Wait][P2PConnected]connected p2p
# timeout, timeout:130 s. local logicDevid:2, remote physic id:1." (p2p_mgmt.cc), then "Wait Enable
# P2P Failed, src devicePhyId[2], dst devicePhyId[1], ret[16]" (transport_manager.cc; the
# HcclResult). Read from a plog of ascend-faultdiag's system tests (tests/data SOURCES.md).
# (MindSpore's "Ascend Error Message" copy runs them together: "timeout:600 s.local logicDevid:0,
# remote physic id:7")
_P2P_TIMEOUT_RE = re.compile(
    r"connected p2p timeout, timeout:(?P<timeout>\d+) s\.\s*local logicDevid:(?P<dev>\d+),\s*"
    r"remote physic id:(?P<peer>\d+)"
)
_P2P_ENABLE_RE = re.compile(
    r"Wait Enable P2P Failed, src devicePhyId\[(?P<dev>\d+)\], dst devicePhyId\[(?P<peer>\d+)\]"
    r"(?:, ret\[(?P<ret>\d+)\])?"
)


# The runtime's report of an HCCL task that timed out on the device, as a user copies it without
# its code line or plog prefix (a vllm-ascend issue's four lines): "The error from
# device(chipId:0/2/4/5/6/7, dieId:0), serial number is ..., hccl fftsplus task timeout occurred
# during task execution, stream_id:9, sq_id:9, task_id:51052, stuck notify num:1, timeout=1836s."
# (CANN device_error_proc.cc, ProcessStarsHcclFftsPlusTimeoutErrorInfo); a copy that folded
# several chips' reports into one names them "0/2/4".
_FFTS_CHIPS_RE = re.compile(r"device\(chipId:(?P<chips>\d+(?:/\d+)*)")
_NOTIFY_WAIT_TIMEOUT_RE = re.compile(r"notify wait timeout occurred.*?\btimeout=(?P<n>\d+)s\b")
FFTS_REPORT_LINES = 2
"""How far before its "fftsplus task timeout" words a report's chip and after them its counts
may stand (a copy that wrapped the one line)."""


def _under_a_code(lines: list[tuple[int, str, int | None]], index: int, span: int) -> bool:
    """Whether a CANN code stands on line ``index`` or on one of the ``span`` lines above it: a
    message printed under its code is that code's block, read where the code is."""
    return any(_code_match(text) for _, text, _ in lines[max(0, index - span) : index + 1])


_ERROR_FROM_CHIP_RE = re.compile(r"The error from device\(chipId:(\d+), dieId:\d+\)")
_SERIAL_NUMBER_RE = re.compile(r"\bserial number is (\d+)")


def _ffts_timeouts(
    lines: list[tuple[int, str, int | None]], report: LogReport, raw: list[str] | None = None
) -> None:
    """Device HCCL task time-outs copied without their CANN code line: one event per chip named
    (a report under its code is the coded reading's, however often it repeats)."""
    seen: set[tuple[str | None, str]] = set()
    # (a chip and the process reporting it) → its notify waits' event, its last serial number
    waits: dict[tuple[str | None, object], LogEvent] = {}
    last_serial: dict[tuple[str | None, object], int] = {}
    # (the handler's name alone only where a copy cut every report before its words)
    worded = any("fftsplus task timeout" in t for _, t, _ in lines)
    for index, (no, line, tagged) in enumerate(lines):
        notify_wait = "notify wait timeout occurred" in line
        # (the runtime's handler names the time-out too, where a copy cut its words:
        # "ProcessStarsHcclFftsPlusTimeoutErrorInfo:The error from device(chipId:3, ...), hc")
        if (
            "fftsplus task timeout" not in line
            and (worded or "ProcessStarsHcclFftsPlusTimeoutErrorInfo:The error from" not in line)
            and not notify_wait
        ):
            continue
        if _under_a_code(lines, index, FFTS_REPORT_LINES):
            continue  # a report under its code (EI9999, EE9999): the code's reading has it
        near = lines[max(0, index - FFTS_REPORT_LINES) : index + 1 + FFTS_REPORT_LINES]
        texts = [t.strip() for _, t, _ in near]
        chips = _search(_FFTS_CHIPS_RE, texts)
        counts = _search(_FFTS_TIMEOUT_RE, texts)
        what = "HCCL task time-out on the device (the runtime's fftsplus check)"
        timeout_ms = None
        if notify_wait:
            # the runtime's STARS report of a Notify Wait task (an HCCL collective's wait for
            # its peer) past its time-out: "ProcessStarsWaitTimeoutErrorInfo:The error from
            # device(chipId:3, dieId:1), ... notify wait timeout occurred during task execution,
            # stream_id:142, ..., notify_id=671, timeout=204s."
            what = "a notify wait (an HCCL collective waiting for its peer) timed out on the device"
            if wait := _NOTIFY_WAIT_TIMEOUT_RE.search(line):
                timeout_ms = int(wait.group("n")) * 1000
        elif counts is not None:
            timeout_ms = int(counts.group("n")) * (60_000 if counts.group("min") else 1000)
            what += f": {counts.group('stuck')} notify never recorded"
        message = " ".join(t for t in texts if t)[:300]
        if notify_wait:  # a plog's line of its own: the report, not its neighbours
            message = _PLOG_HEAD_RE.sub("", line.strip())[:300]
            chips = _FFTS_CHIPS_RE.search(line)
        for chip in chips.group("chips").split("/") if chips else [None]:
            # (a notify wait's reports of one chip differ by serial number and stream: one
            # event, its other lines counted)
            serial = _SERIAL_NUMBER_RE.search(line) if notify_wait else None
            # (the process a worker's prefix names: two workers' reports of one chip apart)
            wp = WORKER_PREFIX_RE.match(raw[no - 1]) if raw and 0 < no <= len(raw) else None
            proc = (chip, wp.group("pid") if wp else tagged)
            # (a process's next report counts on its serial number: another process's, its own
            # serial number 1 again, is another event)
            if (
                serial is not None
                and proc in waits
                and int(serial.group(1)) == last_serial.get(proc, -1) + 1
            ):
                if waits[proc].line != no:
                    waits[proc].repeated_lines = [*(waits[proc].repeated_lines or []), no]
                last_serial[proc] = int(serial.group(1))
                continue
            key = (chip, message)
            if key in seen:
                continue  # the same report copied again
            seen.add(key)
            report.events.append(
                LogEvent(
                    kind="hccl_plog_error",
                    line=no,
                    message=message,
                    rank=tagged,
                    device=int(chip) if chip is not None else None,
                    timeout_ms=timeout_ms,
                    library="RUNTIME",
                    exception_type=what,
                )
            )
            if notify_wait:
                waits[proc] = report.events[-1]
                last_serial[proc] = int(serial.group(1)) if serial else -1


def _p2p_failures(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One event per pair of devices whose P2P link did not come up (the wait's time-out and
    the transport's failure after it are the same pair)."""
    by_pair: dict[tuple[int, int], LogEvent] = {}
    for no, line, tagged in lines:
        if "p2p timeout" not in line and "Enable P2P Failed" not in line:
            continue
        m = _P2P_TIMEOUT_RE.search(line) or _P2P_ENABLE_RE.search(line)
        if m is None:
            continue
        pair = (int(m.group("dev")), int(m.group("peer")))
        ev = by_pair.get(pair)
        if ev is None:
            ev = by_pair[pair] = LogEvent(
                kind="hccl_p2p_failure",
                line=no,
                message=line.strip()[:400],
                rank=tagged,
                device=pair[0],
                library="HCCL",
            )
            report.events.append(ev)
        else:
            ev.message = f"{ev.message} / {line.strip()}"[:400]
        groups = m.groupdict()
        if groups.get("timeout"):
            ev.timeout_ms = int(groups["timeout"]) * 1000
        if groups.get("ret"):
            ev.code = groups["ret"]
            ev.code_name = decode_result(int(groups["ret"]))[0]
        if pid := _PLOG_PID_RE.match(line):
            ev.pid = int(pid.group(1))


# CANN 8.5's multi-level retrieval keywords (hicann/hccl docs, fault_diagnosis "HCCL Multi-Level
# Retrieval Keywords" and "HCCL-Related Fault Codes"): an HCCL plog error line carries
# "[<stage>][<category>]", e.g. "[TaskExecStage][Timeout][HOST]Task run failed, base information
# is ... tag[AllReduce_...]", "[InitGroupStage][EnvConfig]... parse HCCL_RDMA_SL failed". The
# guide names the fault each keyword stands for; where that fault has its own code the event
# carries it, so the code's rule reads it as if the console had printed it.
_STAGE_RE = re.compile(
    r"\[(?P<stage>InitGroupStage|InitChannelStage|TaskExecStage)\]\[(?P<category>[A-Za-z ]+)\]"
)
STAGE_CODES = {
    ("InitGroupStage", "EnvConfig"): "EI0001",
    ("InitGroupStage", "RanktableConfig"): "EI0004",
    ("InitGroupStage", "RanktableCheck"): "EI0014",
    ("InitGroupStage", "RanktableDetect"): "EI0015",
    ("InitGroupStage", "Resource"): "EI0007",
    ("InitChannelStage", "ParameterConflict"): "EI0005",
    ("InitChannelStage", "VersionConflict"): "EI0008",
    ("InitChannelStage", "Timeout"): "EI0006",
    ("TaskExecStage", "InvalidArgument"): "EI0003",
    ("TaskExecStage", "Timeout"): "EI0002",
}
"""Keyword → fault code, both from the HCCL troubleshooting guide's two tables; RunFailed,
Not Supported and HeartbeatAbnormal of TaskExecStage have no code of their own."""
RANKTABLE_CHECK_CODES = (
    (re.compile(r'config "tls" is invalid'), "EI0016"),
    (re.compile(r"device ip family\[\d+\] is not same as others"), "EI0001"),
    (re.compile(r"\b\w+\[[^\]]*\] is invalid"), "EI0004"),
)
"""RanktableCheck stands for several faults: the guide's "cluster information check failed"
page (hicann/hccl docs/zh/user_guide/fault_diagnosis/cluster_info_verify_fail.md) gives TLS
settings that differ between ranks as EI0016 and an IP family that differs as EI0001, with these
lines; its rank table field page (rank_table_field_config_error_EI0004.md) gives a field the
check found invalid ("super_device_id[] is invalid", a version 1.2 table without it) as EI0004;
its other checks (a duplicate superDeviceId ...) are EI0014."""
STAGE_KEYWORDS = {
    *STAGE_CODES,
    ("TaskExecStage", "RunFailed"),
    ("TaskExecStage", "Not Supported"),
    ("TaskExecStage", "HeartbeatAbnormal"),
}
"""The keywords the guide lists as fault scenarios; others in that place ("[InitGroupStage]
[DisplayConnectionedRank]") are context lines of a fault, not one."""
# HCCL's plog call trace up the stack: "[HcclGetRootInfo]call trace: hcclRet -> 1"; the public
# API (Hccl...) is the outermost frame
# (a copy through a renderer can split the arrow: "hcclRet - >7")
_CALL_TRACE_RE = re.compile(r"\[(?P<call>Hccl\w+)\]call trace: hcclRet -\s?> ?(?P<ret>-?\d+)")
# "[Parse][rdmaServerLevel]HCCL_RDMA_SL[1000] is invalid. except: [0, 7]"
_ENV_INVALID_RE = re.compile(r"\b[A-Z][A-Z0-9_]+\[[^\]]*\] is invalid.*$")
# HCCP's device-IP check (hicann/hccl ra_host.c ra_rdev_init_check_ip; HCCL reports EI0014 for
# its HCCP_EINVALIDIPS, adapter_hccp.cc): "[check][ip]fail, ret(129) the IP address(127.10.0.0)
# in the ranktable is inconsistent with the IP address(127.10.0.1) of the network adapter"
_DEVICE_IP_CHECK_RE = re.compile(
    r"the IP address\((?P<table>[0-9A-Fa-f.:]+)\) in the ranktable is inconsistent with the "
    r"IP(?: address)?\((?P<nic>[0-9A-Fa-f.:]*)\)"
)
# EI0013 (RoCE) and EI0018 (UB) say the same words (CANN error code reference): "An error CQE
# occurred during operator execution. Local information: server S, device ID N, device IP A.
# Peer information: server T, device ID M, device IP B."
_CQE_RE = re.compile(
    r"error CQE occurred during operator execution\. Local information: server (?P<host>[^,]+), "
    r"device ID (?P<dev>\d+), device IP (?P<ip>[0-9A-Fa-f.:]+?)\.? Peer information: server "
    r"(?P<peer>[^,]+), device ID (?P<pdev>\d+), device IP (?P<pip>[0-9A-Fa-f.:]+?)\.?(?:\s|$)"
)
STAGE_BLOCK_LINES = 12
"""How far one failure's keyword lines (and the call trace after them) may spread."""


# a CANN code's TraceBack naming the runtime call that failed under it ("[Call][Rts]call rts api
# [rtMemcpyAsync] failed, retCode is 107017", the ACL runtime code), the runtime's reason for it
# ("rtMemcpyAsync execute failed, reason=[driver error:invalid handle]") and, first in the trace,
# the innermost step ("Convert memory address from virtual to dma physical failed, retCode=
# 0x7020014.[FUNC:MemcpyAsyncTaskInitV3]...")
_RTS_CALL_RE = re.compile(r"call rts api \[(?P<call>\w+)\] failed, retCode is (?P<code>\d+)")
_RTS_REASON_RE = re.compile(r"\b(?P<call>rt\w+) execute failed, reason=\[(?P<why>[^\]]+)\]")
# the ACL call above a runtime step in CANN's TraceBack ("Fail to execute acltdtSendTensor,
# device is 0, name is ...") and a driver call's device ("[drv api] halQueueEnQueueBuff failed:
# deviceId=0, qid=1, ...")
_ACL_FAIL_RE = re.compile(r"\bFail to execute (?P<call>acl\w+)(?:, device is (?P<dev>\d+))?")
_ERROR_FROM_DEVICE_RE = re.compile(r"\bThe error from device\((\d+)\)")
_CHIP_ID_RE = re.compile(r"\bThe error from device\(chipId:(\d+)")
_KERNEL_DEVICE_RE = re.compile(r"\bkernel execute failed, device_id=(\d+)")
_EXCEPTION_CB_OP_RE = re.compile(
    r"\bexception_cb streamId:\d+ taskId:\d+ deviceId: ?\d+ opName:(\S+)"
)
EXCEPTION_CB_LINES = 12
"""How far above a device's exception report an exception callback may name its operator."""
_KERNEL_EXECUTE_FAILED_RE = re.compile(r"\b(?:Aicore|AIV|AICPU|AI CPU|Aicpu) kernel execute failed")
_DRV_DEVICE_RE = re.compile(r"\[drv api\][^\n]{0,300}?\bdeviceId=(\d+)")
_SOURCE_TAGS_RE = re.compile(
    r"\[(?:FUNC|FILE|LINE):[^\]]*\]"
)  # CANN's "[FUNC:..][FILE:..][LINE:..]"
_TRACE_FIRST_RE = re.compile(r"^\s*(?P<what>[A-Za-z][^\[\n]*)")  # (up to its "[FUNC:" tag)


def _rts_call(ev: LogEvent, rts: re.Match[str], after: list[str]) -> None:
    """The runtime call a CANN code's TraceBack names as failed, with its code's name, the
    runtime's reason and the trace's innermost step (the line under "TraceBack")."""
    code = int(rts.group("code"))
    said = f"{rts.group('call')} returned {code}"
    if name := ACL_RT_ERRORS.get(code):
        said += f" ({name})"
    if (why := _search(_RTS_REASON_RE, after)) and why.group("call") == rts.group("call"):
        said += f": {why.group('why')}"
    trace = next((i for i, t in enumerate(after) if "TraceBack" in t), None)
    if trace is not None and trace + 1 < len(after):
        first = _TRACE_FIRST_RE.match(after[trace + 1])
        if first and not _RTS_CALL_RE.search(after[trace + 1]):
            said += f", after '{first.group('what').strip().rstrip('.')}'"
    ev.call, ev.exception_type = rts.group("call"), said


# an Ascend C kernel's own assert, printed by the device above the exception it raises
# ("[ASSERT] [CANN_VERSION : 1.0.0][TimeStamp : 202602] /.../ascendc/cholesky/cholesky.h:322:
# Assertion `b1 > 0.0f' The factorization could not be completed because ..."; Ascend C's
# ascendc_assert prints "[ASSERT]", the file and line, the expression and the kernel's words)
_ASCENDC_ASSERT_RE = re.compile(
    r"\[ASSERT\][^\n]{0,320}?(?:^|[\s/])(?P<file>[\w.-]+\.(?:h|cpp|cc)):(?P<no>\d+): "
    r"Assertion `(?P<expr>[^`'\n]*)'\s*(?P<words>[^\n]{0,240})"
)
ASCENDC_ASSERT_LINES = 40
"""How far above a device's error report its kernel's assertion may stand."""


def _ascendc_assertion(lines: list[tuple[int, str, int | None]], index: int) -> str | None:
    """The Ascend C kernel assertion printed above the device error report at ``index``."""
    for _, text, _ in reversed(lines[max(0, index - ASCENDC_ASSERT_LINES) : index]):
        if "[ASSERT]" in text and (m := _ASCENDC_ASSERT_RE.search(text)):
            return ascendc_assertion_said(m)
    return None


def ascendc_assertion_said(m: re.Match[str]) -> str:
    """An Ascend C assertion (``_ASCENDC_ASSERT_RE``'s match) as a report says it."""
    words = m.group("words").strip().rstrip("!").strip()
    return (
        f"the kernel's assertion {m.group('file')}:{m.group('no')} `{m.group('expr')}` "
        f"failed{f': {words}' if words else ''} (the kernel's input, not the device)"
    )


def _cqe(ev: LogEvent, cq: re.Match[str]) -> None:
    """This rank's device and address, and the peer device whose transfer failed."""
    ev.device = int(cq.group("dev")) if ev.device is None else ev.device
    ev.ip, ev.remote_ip = ev.ip or cq.group("ip"), cq.group("pip")
    ev.exception_type = f"error CQE with server {cq.group('peer')} device {cq.group('pdev')}"


# EI0002's own message (CANN's error code list: "ErrCode": "EI0002", "ErrMessage": "A timeout
# occurs when the Notify register waits for execution. Waiting peer rank: %s; task information:
# %s; communication operator information: %s; communicator: %s."; hcomm's EI0002 page shows it
# with "Waiting peer rank: 4"), copied without its code: read as EI0002, the peer it waited for.
_EI0002_MESSAGE_RE = re.compile(
    r"A timeout occurs when the Notify register waits for execution\. Waiting peer rank: (?P<peer>\d+)"
)


EI0002_CODE_LINES = 2
"""How far above EI0002's message its code line may stand (a code, its time, then the message)."""


def _uncoded_ei0002(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """EI0002's message where no code line stands at it or just above (a copy without it), once
    for each rank, peer and text (a message printed again is the same time-out)."""
    seen: set[tuple[int | None, str, str]] = set()
    for index, (no, line, tagged) in enumerate(lines):
        if "Waiting peer rank" not in line or not (m := _EI0002_MESSAGE_RE.search(line)):
            continue
        if _under_a_code(lines, index, EI0002_CODE_LINES):
            continue  # the code printed with it: its block is read as printed
        key = (tagged, m.group("peer"), line[m.start() :].strip())
        if key in seen:
            continue
        seen.add(key)
        ev = LogEvent(
            kind="hccl_error",
            line=no,
            message=line.strip()[:300],
            code="EI0002",
            rank=tagged,
            remote_rank=int(m.group("peer")),
            library="HCCL",
        )
        if tag := _TAG_RE.search(line):
            ev.op = OPS.get(_first(tag), _first(tag))
        report.events.append(ev)


def _hccl_stage_keywords(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One hccl_error per keyword block (its lines share pid, stage and category), unless a
    printed code's block already read the line."""
    coded = {e.line for e in report.events if e.kind == "hccl_error"}
    # a printed code's block (console and plog in one file) already says it: one event, not two
    # (its line, and its process where the plog prefix names one: another process's block in a
    # file of several plogs is another rank's failure)
    near: dict[str, list[tuple[int, int | None]]] = {}
    for e in report.events:
        if e.kind == "hccl_error" and e.code:
            near.setdefault(e.code, []).append((e.line, e.pid))
    # the keyword is a fallback: a socket table, a bind or negotiation failure, a heartbeat
    # verdict read near it is the same fault, said more exactly
    specific = sorted(e.line for e in report.events if e.kind.startswith("hccl_"))

    def said(code: str | None, no: int, process: int | None = None) -> bool:
        return code is not None and any(
            abs(n - no) <= STAGE_BLOCK_LINES
            and (process is None or other is None or other == process)
            for n, other in near.get(code, [])
        )

    current: dict[tuple[str | None, str, str], LogEvent] = {}
    returned: dict[int, tuple[LogEvent, int]] = {}  # id(event) → (event, HcclResult)
    printed = [n for n, _ in near.get("EI0014", [])]  # EI0014 blocks that printed their code
    checked: set[tuple[int | None, str]] = set()  # (process, rank table address) read
    for index, (no, line, tagged) in enumerate(lines):
        if "in the ranktable is inconsistent" in line and (ip := _DEVICE_IP_CHECK_RE.search(line)):
            pid_m = _PLOG_PID_ANYWHERE_RE.search(line)
            process = int(pid_m.group(1)) if pid_m else None
            if any(abs(n - no) <= STAGE_BLOCK_LINES for n in printed) or (
                (process, ip.group("table")) in checked
            ):
                continue
            # each process checks its own device: another process's line is another failure
            checked.add((process, ip.group("table")))
            near.setdefault("EI0014", []).append((no, process))
            report.events.append(
                LogEvent(
                    kind="hccl_error",
                    line=no,
                    message=line[line.find("[check]") :].strip()[:400]
                    if "[check]" in line
                    else line.strip()[:400],
                    code="EI0014",
                    code_name="HCCP device IP check",
                    rank=tagged,
                    pid=process,
                    ip=ip.group("table"),
                )
            )
            continue
        if "error CQE" in line and (cq := _CQE_RE.search(line)):
            if no in coded or said("EI0013", no) or said("EI0018", no):
                continue
            cqe = LogEvent(
                kind="hccl_error",
                line=no,
                message=line[max(0, cq.start() - 3) :].strip()[:400],
                code_name="error CQE",
                rank=tagged,
            )
            _cqe(cqe, cq)
            report.events.append(cqe)
            continue
        if "Stage][" not in line:
            if "call trace" in line and (ct := _CALL_TRACE_RE.search(line)):
                for open_ev in current.values():
                    if no - open_ev.line <= STAGE_BLOCK_LINES:
                        open_ev.call = ct.group("call")  # the outermost frame comes last
                        returned[id(open_ev)] = (open_ev, int(ct.group("ret")))
            continue
        if not (m := _STAGE_RE.search(line)):
            continue
        if (m.group("stage"), m.group("category").strip()) not in STAGE_KEYWORDS:
            continue
        i = bisect.bisect_left(specific, no - STAGE_BLOCK_LINES)
        if i < len(specific) and specific[i] <= no + STAGE_BLOCK_LINES:
            continue
        pid = _PLOG_PID_RE.search(line)
        key = (pid.group(1) if pid else None, m.group("stage"), m.group("category"))
        ev = current.get(key)
        if ev is None or no - ev.line > STAGE_BLOCK_LINES:
            code = STAGE_CODES.get((m.group("stage"), m.group("category").strip()))
            if code == "EI0014":
                after = line[m.end() :]
                code = next((c for rx, c in RANKTABLE_CHECK_CODES if rx.search(after)), code)
            process = int(pid.group(1)) if pid else None
            if said(code, no, process):
                continue
            ev = LogEvent(
                kind="hccl_error",
                line=no,
                message=line[m.start() :].strip()[:400],
                code=code,
                code_name=f"{m.group('stage')}/{m.group('category').strip()}",
                rank=tagged,
            )
            current[key] = ev
            report.events.append(ev)
            if code:
                near.setdefault(code, []).append((no, process))
            if index and (bad := _ENV_INVALID_RE.search(lines[index - 1][1])):
                # EnvConfig: the line above names the variable, its value and the range
                ev.message = f"{bad.group(0).strip()} / {ev.message}"[:400]
        window = [line[m.end() :]]
        if ev.op is None and (tag := _TAG_RE.search(window[0])):
            ev.op = OPS.get(_first(tag), _first(tag))
        if ev.group is None and (grp := _GROUP_RE.search(window[0])):
            ev.group = _first(grp)
        if ev.rank_size is None and (size := _RANKSIZE_RE.search(window[0])):
            ev.rank_size = int(size.group(1))
        if ev.rank is None and (gid := _GROUP_RANKID_RE.search(window[0])):
            ev.rank = int(gid.group(1))
    for ev, result in returned.values():
        name, _ = decode_result(result)
        ev.message = f"{ev.message} / {ev.call} returned {result} = {name}"[:400]


# HCCL's consistency check naming what differs between two ranks: "[RankConsistentcyChecker]
# [ReportCmdInfoCheckFailed]CMD information tag check fail. local[AllGather_...], remote
# [AllReduce_...]", then "... cmdType check fail. local[6], remote[2]" (newer CANN puts
# [InitChannelStage][ParameterConflict] there): the HCCL guide's parameter consistency page
# (hcclug_000051, EI0005) names the keyword "CMD information *** check fail"
_CMD_INFO_CHECK_RE = re.compile(
    r"CMD information (?P<what>\w+) check fail\. local\[(?P<local>[^\]]*)\], remote\[(?P<remote>[^\]]*)\]"
)


def _cmd_info_checks(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """HCCL's consistency check failures of a process as one EI0005, what differs said (the
    event the stage reader made of the newer form gets the words)."""
    found: dict[int | None, tuple[LogEvent | None, list[str], int, int | None, str]] = {}
    for no, line, tagged in lines:
        if "check fail" not in line or not (m := _CMD_INFO_CHECK_RE.search(line)):
            continue
        pid_m = _PLOG_PID_RE.search(line)
        pid = int(pid_m.group(1)) if pid_m else None
        local, remote = m.group("local"), m.group("remote")
        if m.group("what") == "tag":
            local, remote = local.split("_", 1)[0], remote.split("_", 1)[0]
        said = f"{m.group('what')}: this rank {local}, the peer {remote}"
        if pid not in found:
            found[pid] = (None, [], no, tagged, line[m.start() :].strip())
        found[pid][1].append(said)
    for pid, (_, diffs, no, tagged, message) in found.items():
        words = "the ranks called different collectives or arguments (" + "; ".join(diffs) + ")"
        own = next(
            (
                e
                for e in report.events
                if e.code == "EI0005" and abs(e.line - no) <= STAGE_BLOCK_LINES
            ),
            None,
        )
        if own is not None:
            own.exception_type = own.exception_type or words[:300]
            continue
        report.events.append(
            LogEvent(
                kind="hccl_error",
                line=no,
                message=message[:300],
                code="EI0005",
                code_name="InitChannelStage/ParameterConflict",
                rank=tagged,
                pid=pid,
                library="HCCL",
                exception_type=words[:300],
            )
        )


def _plog_context(ev: LogEvent, by_no: dict[int, str]) -> None:
    """The pid a plog line's prefix names, and for an HCCL event without a code name the
    HcclResult a nearby "failed ... ret[N]" line gives."""
    if ev.pid is None and (pm := _PLOG_PID_RE.search(by_no.get(ev.line, ""))):
        ev.pid = int(pm.group(1))
    if ev.code_name is not None or ev.code is not None:
        return
    for no in range(ev.line - PLOG_RET_WINDOW_LINES, ev.line + PLOG_RET_WINDOW_LINES + 1):
        text = by_no.get(no, "")
        if "ret[" in text and (rm := _PLOG_RET_RE.search(text)):
            name, _ = decode_result(int(rm.group(1)))
            if name not in ("unknown", "HCCL_SUCCESS"):
                ev.code_name = name
                return


# NCCL's InfiniBand transport (transport/net_ib.cc) on an error completion: "NET/IB : Got
# completion from peer 10.2.0.5<33092> with error 12, opcode 0, len 0, vendor err 129 (Recv)"
# (older), "... with status=4 opcode=32614 len=32614 vendor err 81 (Send) ... hca mlx5_1", and
# "... with status=IBV_WC_RETRY_EXC_ERR(12) opcode=... vendor_err=129 ... hca mlx5_1" (newer).
# Older releases name no peer: "NET/IB : Got completion with error 12, opcode 1, len 0, vendor
# err 129".
_IB_COMPLETION_RE = re.compile(
    r"NET/IB ?: Got completion (?:from peer (?P<peer>[^\s<]+)(?:<(?P<port>\d+)>)? )?with "
    r"(?:status=(?:(?P<name>IBV_WC_\w+)\()?(?P<status>\d+)\)?|error (?P<error>\d+))"
    r"(?:.*?vendor[ _]err[ =](?P<vendor>\d+))?(?:.*?\bhca (?P<hca>\S+))?"
)
# NCCL's debug prefix "host:pid:tid [cudaDev]", and its communicator line naming the rank
_NCCL_PREFIX_RE = re.compile(r"(?P<host>[\w.-]+) ?:(?P<pid>\d+):\d+ \[(?P<dev>\d+)\]")
_NCCL_INIT_RE = re.compile(r"\brank (?P<rank>\d+) nranks (?P<nranks>\d+)\b")


# what a healthy NCCL debug log says of its set-up: "NCCL version 2.21.5+cuda12.4", a host's
# network ("NET/IB : Using [0]mlx5_0:1/IB/SHARP [RO]; OOB eno1:...", "NET/Socket : Using
# [0]eth0:10.0.0.1<0>", "Using network IBext_v8"), and nccl-tests' rank lines ("#  Rank  1 Group
# 0 Pid   4962 on      test2 device  0 [0x81] NVIDIA A100-PCIE-40GB")
_NCCL_VERSION_LINE_RE = re.compile(r"\bNCCL version (?P<v>\d+\.\d+\.\d+\S*)")
# vLLM's pynccl wrapper naming the library it loaded (vllm/distributed/device_communicators/
# pynccl.py: "vLLM is using nccl==2.21.5"), and SGLang's copy of it on its rank 0
# (sgl-project/sglang python/sglang/srt/distributed/device_communicators/pynccl.py: "sglang is
# using nccl==2.27.3")
_VLLM_NCCL_RE = re.compile(r"\b(?P<who>vLLM|sglang) is using nccl==(?P<v>\d+\.\d+\.\d+)")
PYNCCL_OF = {"vLLM": "vLLM's pynccl", "sglang": "SGLang's pynccl"}
"""Whose pynccl named the NCCL it loaded, as a note says it."""
_NCCL_NET_USING_RE = re.compile(
    r"(?:NCCL INFO |^\s*)NET/(?P<net>IB|Socket) : Using (?P<what>.+?)(?:; OOB .*)?$"
    # NCCL 2.1's and 2.2's "INFO NET : Using interface eth0:172.17.0.3<0>" (no "NCCL" word)
    r"|\bINFO NET : Using interface (?P<what2>.+?)\s*$"
)
# NCCL 2.1-2.3's choice of transport: "INFO Using internal Network Socket"
_NCCL_OLD_NETWORK_RE = re.compile(r"\bINFO Using internal Network (?P<name>\w+)")
# a healthy NCCL start whose lines lost their "host:pid:tid [dev] NCCL INFO " prefix (a tool that
# printed NCCL's messages alone): its bare version line, which NCCL prints first
BARE_NCCL_VERSION_RE = re.compile(
    r"^NCCL version \d+\.\d+\.\d+\+cuda[\d.]+[ \t]*\n(?:[^\n]*\n){0,40}?Using network \S+[ \t]*$"
    # (NCCL's INFO lines whose "host:pid:tid [dev] " prefix the copy took off)
    r"|^NCCL INFO NCCL version \d+\.\d+\.\d+",
    re.M,
)
"""(NCCL_DEBUG=VERSION prints the version line alone, as nccl-tests logs show it: a bare line of
the start's network after it makes the lines a prefix-less INFO log)"""
# (a plugin's name may hold spaces: "Using network AWS Libfabric")
_NCCL_NETWORK_RE = re.compile(r"NCCL INFO Using network (?P<name>\S+(?: \S+)*?)\s*$")
# the net and CollNet plugins NCCL loaded (its plugin loader: "NET/Plugin: Loaded net plugin NCCL
# RDMA Plugin (v5)", "NET/Plugin: Loaded coll plugin SHARP (v5)") and the interface its bootstrap
# took ("Bootstrap : Using bond0:10.214.144.75<0>")
_NCCL_PLUGIN_LOADED_RE = re.compile(
    r"NET/Plugin ?: Loaded (?P<kind>net|coll) plugin (?P<name>\S[^\n]{0,120})"
)
_NCCL_BOOTSTRAP_RE = re.compile(r"NCCL INFO Bootstrap ?: Using (?P<what>\S+?)(?:<\d+>)?\s*$")
_NVLS_CHANNELS_RE = re.compile(r"\b(\d+) nvls channels\b")
_NCCL_TESTS_RANK_RE = re.compile(
    r"^#\s+Rank\s+(?P<rank>\d+) Group\s+\d+ Pid\s+\d+ on\s+(?P<host>\S+) device\s+(?P<dev>\d+)"
    r" \[[^\]]*\] (?P<gpu>.+)$"
)


# the RAS report's tables (src/ras/client_support.cc): the job summary's one row of five counts
# (nodes, processes per node, GPUs per process, processes, GPUs) and each communicator group's
# row ("0  1  32  8  256  256  RUNNING  OK": group, communicators, nodes, ranks per node, ranks
# per communicator, ranks in the group, status, errors)
_RAS_JOB_ROW_RE = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*$")
_RAS_GROUP_ROW_RE = re.compile(
    r"^\s*(?P<group>\d+)\s+(?P<comms>\d+)\s+(?P<nodes>\d+)\s+\d+\s+(?P<ranks>\d+)\s+\d+\s+"
    r"(?P<status>[A-Z][A-Z,]*)\s+(?P<errors>[A-Z][A-Z,]*)\s*$"
)


# MindSpore's msrun (mindspore/parallel/cluster/process_entity/_api.py) as it starts each local
# worker: "Start worker process with rank id:0, log file:output/msrun_log/worker_0.log.
# Environment variable [RANK_ID] is exported." (newer: "[RANK_ID=0]"), each worker's own log in
# the file it names
MSRUN_WORKER_RE = re.compile(
    r"Start worker process with rank id:[ \t]*(?P<rank>\d+), log file:[ \t]*(?P<log>[^\s,]+?)\.?(?:[ \t]|$)",
    re.M,
)


# a training loop's loss a step (MindSpore's LossMonitor and its tutorials: "epoch: 0, step: 10,
# loss is 1.6682479"; older "epoch: 1 step: 1875, loss is 0.09")
LOSS_LINE_RE = re.compile(
    r"^[ \t]*epoch:[ \t]*(?P<epoch>\d+),?[ \t]+step:[ \t]*(?P<step>\d+),[ \t]*loss is[ \t]*"
    r"(?P<loss>-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|nan|-?inf)",
    re.M,
)


# MindFormers' training callback (mindformers/core/callback/callback.py): "... - INFO - { Epoch:[
# 1/  2], step:[    1/   19], loss: 10.649, per_step_time: 103328ms, ..."
# (a run without epochs, MindFormers' newer trainer: "{ step:[    1/   10], loss:  11.813965,
# per_step_time:  13570ms, ...}")
MINDFORMERS_STEP_RE = re.compile(
    r"\{ (?:Epoch:\[\s*(?P<epoch>\d+)/\s*\d+\], )?step:\[\s*(?P<step>\d+)/\s*\d+\], "
    r"loss:\s*(?P<loss>-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|nan|-?inf)"
)


# Megatron-LM's (and MindSpeed's) training log: " iteration        5/       5 | consumed samples:
# ... | lm loss: 9.927882E+00 | loss scale: ..." (MindSpeed-MM: "| loss: 1.016570E+01 | grad
# norm: 50.001 |"), a line an iteration (training_log in megatron/training/training.py)
# (anchored near the line's start, each line tried once; Python's "{:.6E}" writes NaN and inf in
# capitals)
ITERATION_LOSS_RE = re.compile(
    r"^[^|\n]{0,120}?\biteration\s+(?P<step>\d+)\s*/\s*(?P<of>\d+)\s*\|[^\n]*?\|\s*(?:lm )?loss:\s*"
    r"(?P<loss>-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|(?i:nan|-?inf))"
)
# Megatron's count of iterations whose loss was not a number ("| number of nan iterations:   2 |")
_NAN_ITERATIONS_RE = re.compile(r"\bnumber of nan iterations:\s*([1-9]\d*)")


# a tqdm progress bar whose postfix carries the loss (VeOmni's, many trainers' "Epoch 1/1:   0%|
# | 1/3828049 [00:04<4275:39:26,  4.02s/it, loss: 11.41, grad_norm: 29.50, lr: 1.12e-08]"): the
# bar is redrawn, each step's line printed more than once
_EVAL_BAR_RE = re.compile(r"(?i)\b(?:eval\w*|valid\w*|test\w*|predict\w*|infer\w*)\b")
TQDM_LOSS_RE = re.compile(
    # (the postfix bounded: tried from each "| N/M [" of a long line it would scan the rest)
    r"\|[ \t]*(?P<step>\d+)/(?P<of>\d+) \[[^\]\n]{0,200}?\bloss[:=] ?"
    r"(?P<loss>-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|nan|-?inf)\b"
)


# torchtitan's metrics line (torchtitan/train.py): "step: 100  loss:  6.4719  memory:
# 49.59GiB(35.46%)  tps: 6,856  mfu: 40.15%", its colour codes taken off
TITAN_STEP_RE = re.compile(
    r"\bstep:\s*(?P<step>\d+)\s+loss:\s*(?P<loss>-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|nan|-?inf)\b"
)


# a training script's own print of each step, words and figures apart with no logger (the
# ModelZoo PCN TensorFlow port's run.log: "epoch 1  step 276  loss 0.02740633 - time per batch
# 19.2787")
PLAIN_STEP_LOSS_RE = re.compile(
    r"^[ \t]*epoch[ \t]+(?P<epoch>\d+)[ \t,]+step[ \t]+(?P<step>\d+)[ \t,]+loss[ \t]+"
    r"(?P<loss>-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|nan|-?inf)\b",
    re.M,
)


def _loss_line(line: str) -> re.Match[str] | None:
    if "loss is" in line and (m := LOSS_LINE_RE.match(line)):
        return m
    if "step:[" in line and (m := MINDFORMERS_STEP_RE.search(line)):
        return m
    if "iteration" in line and (m := ITERATION_LOSS_RE.search(line)):
        return m
    if "loss" in line and "|" in line and (m := TQDM_LOSS_RE.search(line)):
        return m
    if "step:" in line and (m := TITAN_STEP_RE.search(line)):
        return m
    if "epoch" in line and (m := PLAIN_STEP_LOSS_RE.match(line)):
        return m
    return None


def _step_said(m: re.Match[str]) -> str:
    if m.re is TQDM_LOSS_RE:
        return f"step {m.group('step')} of {m.group('of')}"
    if m.re is TITAN_STEP_RE:
        return f"step {m.group('step')}"
    if "epoch" in m.re.groupindex:
        if m.group("epoch") is None:
            return f"step {m.group('step')}"
        return f"epoch {m.group('epoch')} step {m.group('step')}"
    return f"iteration {m.group('step')} of {m.group('of')}"


LISTED_MAX = 16
"""How many ranks (or processes) a start's note lists before "..."."""


def _listed(items: list[int] | list[str]) -> str:
    """``items`` joined for a note: the first ``LISTED_MAX`` of them, "..." after where more."""
    shown = ", ".join(map(str, items[:LISTED_MAX]))
    return f"{shown} ..." if len(items) > LISTED_MAX else shown


def _lightning_init_notes(lines: list[tuple[int, str, int | None]], report: LogReport) -> bool:
    """A note of the ranks Lightning started and the world size they name; False where none."""
    ranks: set[int] = set()
    worlds: set[int] = set()
    versions: list[str] = []
    plugins: list[str] = []
    first = 0
    for no, line, _ in lines:
        if "GLOBAL_RANK" in line and (m := _LIGHTNING_INIT_RE.search(line)):
            first = first or no
            ranks.add(int(m.group("rank")))
            worlds.add(int(m.group("world")))
        elif "NCCL version" in line and (v := _NCCL_VERSION_LINE_RE.search(line)):
            if v.group("v") not in versions:
                versions.append(v.group("v"))
        elif "plugin" in line and (p := _NCCL_PLUGIN_LOADING_RE.search(line)):
            if p.group(1) not in plugins:
                plugins.append(p.group(1))
    if not ranks:
        return False
    report.unread.append(
        ParseWarning(
            line=first,
            message=f"Lightning started {len(ranks)} rank(s) of a world of "
            + " or ".join(str(w) for w in sorted(worlds))
            + f" (global ranks {_listed(sorted(ranks))})"
            + (f", NCCL {' and '.join(versions)}" if versions else "")
            + (f" with net plugin {', '.join(plugins)}" if plugins else "")
            + "; no error",
            skipped=False,
        )
    )
    return True


# a net plugin naming the library it loads: Google's TCPX/TCPXO plugins ("INFO(NCCL PLUGIN):
# Loading plugin: libnccl-tcpxo.so") and NCCL's own ("NCCL INFO NET/Plugin: Loaded net plugin
# NCCL RDMA Plugin v6 (v6)" is read with NCCL's set-up, not here)
_NCCL_PLUGIN_LOADING_RE = re.compile(r"\(NCCL PLUGIN\): Loading plugin: (\S+)")


# Ray Train's workers setting up torch's process group (ray/train/torch/config.py:
# "Setting up process group for: env:// [rank=0, world_size=12]"; older Ray: "[rank=0]"), and
# the console's line when a run's iteration ended, as Ray's own examples print it: "Training
# finished iteration 1 at 2025-01-10 19:56:58. Total running time: 51min 37s"
_RAY_TRAIN_PG_RE = re.compile(
    r"Setting up process group for: (?P<url>\S+) \[rank=(?P<rank>\d+)(?:, world_size=(?P<world>\d+))?\]"
)
_RAY_TRAIN_FINISHED_RE = re.compile(
    # (the time to the line's end, stripped after: a lazy match before "\s*$" rescanned a
    # long line's rest from each of its spaces)
    r"Training finished iteration (?P<it>\d+) at [^.\n]{0,80}\. Total running time: (?P<took>[^\n]+)"
)


def _ray_train_notes(lines: list[tuple[int, str, int | None]], report: LogReport) -> bool:
    """A note of Ray Train's process group (its world size, the ranks this log shows) and of
    the run's end where the log has it; False where no worker set one up."""
    ranks: set[int] = set()
    worlds: set[int] = set()
    first = 0
    finished: re.Match[str] | None = None
    if any("Training errored" in t for _, t, _ in lines):
        return False  # (Ray's "Training errored after N iterations": read as the error it is)
    for no, line, _ in lines:
        if "process group for" in line and (m := _RAY_TRAIN_PG_RE.search(line)):
            first = first or no
            ranks.add(int(m.group("rank")))
            if m.group("world"):
                worlds.add(int(m.group("world")))
        elif "Training finished" in line and (f := _RAY_TRAIN_FINISHED_RE.search(line)):
            finished = f
    if not ranks:
        return False
    report.unread.append(
        ParseWarning(
            line=first,
            message="Ray Train set up torch's process group"
            + (f" of world size {' or '.join(map(str, sorted(worlds)))}" if worlds else "")
            + f" (this log: rank(s) {_listed(sorted(ranks))})"
            + (
                f"; training finished iteration {finished.group('it')} (total running time "
                f"{finished.group('took').strip()})"
                if finished
                else ""
            )
            + "; no error",
            skipped=False,
        )
    )
    return True


# DeepSpeed's rank discovery under mpirun (deepspeed/comm/comm.py mpi_discovery: "Discovered MPI
# settings of world_rank=6, local_rank=6, world_size=32, master_addr=10.230.2.200, master_port=
# 29500") and torch's store barrier that every rank passed (distributed_c10d.py
# _store_based_barrier: "Rank 14: Completed store-based barrier for key:store_based_barrier_key:1
# with 32 nodes.")
_DS_MPI_RE = re.compile(
    r"Discovered MPI settings of world_rank=(?P<rank>\d+), local_rank=\d+, world_size=(?P<world>\d+), "
    r"master_addr=(?P<addr>[\w.:-]+), master_port=(?P<port>\d+)"
)


def _ds_mpi_notes(lines: list[tuple[int, str, int | None]], report: LogReport) -> bool:
    """A note of the ranks DeepSpeed found from MPI, their master and world, its backend and the
    store barrier they passed; False where no rank was found so."""
    ranks: set[int] = set()
    worlds: set[int] = set()
    masters: set[str] = set()
    passed: set[int] = set()
    first = 0
    for no, line, _ in lines:
        if "Discovered MPI" in line and (m := _DS_MPI_RE.search(line)):
            first = first or no
            ranks.add(int(m.group("rank")))
            worlds.add(int(m.group("world")))
            masters.add(f"{m.group('addr')}:{m.group('port')}")
        elif (
            "store-based barrier" in line
            and (b := _STORE_BARRIER_DONE_RE.search(line))
            and b.group("rank")
        ):
            passed.add(int(b.group("rank")))
    if not ranks:
        return False
    backend = next((m.group(1) for _, t, _ in lines if (m := _DS_BACKEND_RE.search(t))), None)
    report.unread.append(
        ParseWarning(
            line=first,
            message=f"DeepSpeed found {len(ranks)} rank(s) from MPI, of a world of "
            + " or ".join(map(str, sorted(worlds)))
            + f" (master {', '.join(sorted(masters))})"
            + (f"; backend {backend}" if backend else "")
            + (f"; {len(passed)} rank(s) passed torch's store barrier" if passed else "")
            + "; no error",
            skipped=False,
        )
    )
    return True


# torchrun's launch configs (torch/distributed/launcher/api.py launch_agent: "Starting
# elastic_operator with launch configs:" then "  min_nodes        : 2" ... one a line)
# (the key after a blank or the line's start, its value bounded: a line of keys run together is
# tried once from each, not from each to the line's end)
_LAUNCH_CONFIG_RE = re.compile(
    r"(?<!\S)(?P<key>min_nodes|max_nodes|nproc_per_node|rdzv_backend|rdzv_endpoint|max_restarts)"
    r"[ \t]*:[ \t]*(?P<value>\S{1,200})[ \t]*$"
)
LAUNCH_CONFIG_LINES = 16
"""The launch configs' lines under their heading."""
# the agent stopped from outside (pytorch/pytorch torch/distributed/elastic/agent/server/api.py,
# SimpleElasticAgent.run, commit 00a1abb4ef74f047662e57678240bbe3dfe46ef0: logger.warning(
# "Received %s death signal, shutting down workers", e.sigval), the signal a signal.Signals:
# "Signals.SIGTERM", or "15" where Python prints it as its number), and its workers' ends
# (torch/distributed/elastic/multiprocessing/api.py: "Sending process %s closing signal %s")
_AGENT_DEATH_RE = re.compile(
    r"Received (?:Signals\.)?(?P<sig>SIG[A-Z]{2,8}|\d{1,2}) death signal, shutting down workers"
)
_CLOSING_SIGNAL_RE = re.compile(r"Sending process \d+ closing signal (?P<sig>SIG[A-Z]{2,8})\b")


def _elastic_launch_note(lines: list[tuple[int, str, int | None]]) -> ParseWarning | None:
    """A note of torchrun's launch configs (its nodes, processes a node and rendezvous) and of
    its agents that said their workers finished (SUCCEEDED), or that were stopped by a death
    signal before any did (no "no error" then: the run was stopped from outside); None where no
    configs are read."""
    at = next((i for i, (_, t, _) in enumerate(lines) if "elastic_operator with launch" in t), None)
    if at is None:
        return None
    config = {
        m.group("key"): m.group("value")
        for _, t, _ in lines[at + 1 : at + 1 + LAUNCH_CONFIG_LINES]
        if (m := _LAUNCH_CONFIG_RE.search(t))
    }
    if not config:
        return None
    nodes = config.get("min_nodes")
    if config.get("max_nodes") not in (None, nodes):
        nodes = f"{nodes}-{config['max_nodes']}"
    finished = sum(1 for _, t, _ in lines if "SUCCEEDED" in t and _ELASTIC_SUCCEEDED_RE.search(t))
    death = next(
        ((no, m) for no, t, _ in lines if "death signal" in t and (m := _AGENT_DEATH_RE.search(t))),
        None,
    )
    closed = sum(1 for _, t, _ in lines if "closing signal" in t and _CLOSING_SIGNAL_RE.search(t))
    if finished:
        end = f"; {finished} agent(s) said their workers finished (SUCCEEDED)"
        end += "; no error" if death is None else f"; a death signal at line {death[0]}"
    elif death is not None or closed:
        did = [f"received {death[1].group('sig')} (line {death[0]})"] if death else []
        did.append(
            f"sent {closed} worker(s) a closing signal" if closed else "shut its workers down"
        )
        end = (
            f"; the agent {' and '.join(did)} before any said it finished: the run was stopped "
            "from outside, by no error this log shows"
        )
    else:
        end = "; no error"
    return ParseWarning(
        line=lines[at][0],
        message="torchrun's launch: "
        + ", ".join(
            said
            for said in (
                f"{nodes} node(s)" if nodes else "",
                f"{config['nproc_per_node']} process(es) a node"
                if "nproc_per_node" in config
                else "",
                f"{config.get('rdzv_backend', 'its')} rendezvous at {config['rdzv_endpoint']}"
                if "rdzv_endpoint" in config
                else "",
            )
            if said
        )
        + end,
        skipped=False,
    )


# accelerate's print of its state, a block a process (accelerate/state.py AcceleratorState
# __repr__): "Distributed environment: MULTI_NPU  Backend: hccl" / "Num processes: 4" / "Process
# index: 3" / "Local process index: 3" / "Device: npu:3"
# (printed bare, or by a logger, "03/02/2025 10:22:31 - INFO - __main__ - Distributed environment:
# MULTI_GPU  Backend: nccl" as the no_trainer examples' logger.info(accelerator.state) does, the
# rest of the block bare; a launcher's "[default0]:" before each line)
_ACCELERATE_ENV_RE = re.compile(
    r"^[^\n]{0,120}?\bDistributed environment: (?P<type>(?:DistributedType\.)?[A-Z][A-Z_]*)"
    r"(?:[ \t]+Backend: (?P<backend>\w+))?[ \t]*$"
)
_ACCELERATE_FIELD_RE = re.compile(
    r"^[^\n]{0,40}?\b(?P<key>Num processes|Process index|Local process index|Device): "
    r"(?P<value>\S+)[ \t]*$"
)
ACCELERATE_STATE_LINES = 6
"""The lines of accelerate's state block under its first."""


def _accelerate_state_notes(lines: list[tuple[int, str, int | None]], report: LogReport) -> bool:
    """A note of the processes that printed accelerate's state (their type, backend, indexes and
    devices); False where none did."""
    kinds: set[str] = set()
    counts: set[str] = set()
    indexes: dict[int, str | None] = {}
    first = 0
    for index, (no, line, _) in enumerate(lines):
        if "Distributed environment: " not in line or not (m := _ACCELERATE_ENV_RE.match(line)):
            continue
        first = first or no
        kind = m.group("type").removeprefix("DistributedType.")
        kinds.add(kind + (f" (backend {m.group('backend')})" if m.group("backend") else ""))
        fields = {
            f.group("key"): f.group("value")
            for _, t, _ in lines[index + 1 : index + 1 + ACCELERATE_STATE_LINES]
            if (f := _ACCELERATE_FIELD_RE.match(t))
        }
        if "Num processes" in fields:
            counts.add(fields["Num processes"])
        if (at := fields.get("Process index", "")).isdigit():
            indexes[int(at)] = fields.get("Device")
    if not kinds:
        return False
    # (each index with its device where the block named it: a cut copy may end before it)
    said = [f"{i} on {d}" if d else str(i) for i, d in sorted(indexes.items())]
    report.unread.append(
        ParseWarning(
            line=first,
            message=f"accelerate: {' or '.join(sorted(kinds))}"
            + (f", {' or '.join(sorted(counts))} process(es)" if counts else "")
            + (
                f"; {len(indexes)} printed their state (process index(es) {_listed(said)})"
                if indexes
                else ""
            )
            + "; no error",
            skipped=False,
        )
    )
    return True


# DeepSpeed's runner without a hostfile (launcher/runner.py fetch_hostfile: "Unable to find
# hostfile, will proceed with training with local resources only."), then its launcher's
# "nnodes=1, num_local_procs=2, node_rank=0"
_DS_NO_HOSTFILE_RE = re.compile(r"Unable to find hostfile, will proceed with training with local")
_DS_NNODES_RE = re.compile(r"\bnnodes=(?P<nodes>\d+), num_local_procs=(?P<procs>\d+)")
# deepspeed/comm/comm.py init_distributed: "Initializing TorchBackend in DeepSpeed with backend nccl"
_DS_BACKEND_RE = re.compile(r"Initializing TorchBackend in DeepSpeed with backend (\w+)")
# launch.py's "WORLD INFO DICT: {'localhost': [0, 1]}" and its print of the environment's
# NCCL variables ("[launch.py:138:main] 0 NCCL_VERSION=2.13.4-1", the CUDA image's variable)
_DS_WORLD_INFO_RE = re.compile(r"WORLD INFO DICT: \{[^}\n]*\}")
_DS_WORLD_NODE_RE = re.compile(r"'([^']*)': \[([\d, ]*)\]")


def _ds_world_nodes(world: re.Match[str]) -> list[tuple[str, int]]:
    """A WORLD INFO DICT's hosts, each with how many device slots it lists."""
    return [
        (name, len([x for x in slots.split(",") if x.strip()]))
        for name, slots in _DS_WORLD_NODE_RE.findall(world.group(0))
    ]


_DS_NCCL_ENV_RE = re.compile(r"\[launch\.py:\d+:main\] \d+ NCCL_VERSION=(\S+)")


def _deepspeed_local_notes(lines: list[tuple[int, str, int | None]], report: LogReport) -> bool:
    """A note that DeepSpeed's runner found no hostfile and runs on this node alone."""
    at = next((no for no, t, _ in lines if _DS_NO_HOSTFILE_RE.search(t)), None)
    if at is None:
        return False
    shape = next((m for _, t, _ in lines if (m := _DS_NNODES_RE.search(t))), None)
    backend = next((m.group(1) for _, t, _ in lines if (m := _DS_BACKEND_RE.search(t))), None)
    world = next((m for _, t, _ in lines if (m := _DS_WORLD_INFO_RE.search(t))), None)
    nccl = next((m.group(1) for _, t, _ in lines if (m := _DS_NCCL_ENV_RE.search(t))), None)
    figures = []
    if shape:
        figures += [f"{shape.group('nodes')} node", f"{shape.group('procs')} local process(es)"]
    elif world:
        # launch.py's WORLD INFO DICT: each host and its device slots
        nodes = _ds_world_nodes(world)
        figures += [f"{len(nodes)} node(s)", f"{sum(n for _, n in nodes)} device slot(s)"]
    if backend:
        figures.append(f"backend {backend}")
    if nccl:
        figures.append(f"NCCL {nccl} in its environment (NCCL_VERSION)")
    report.unread.append(
        ParseWarning(
            line=at,
            message="DeepSpeed's runner found no hostfile and runs on this node alone"
            + (f" ({', '.join(figures)})" if figures else "")
            + ": a job meant for several nodes needs its hostfile (--hostfile, default "
            "/job/hostfile) or --include",
            skipped=False,
        )
    )
    return True


# ProcessGroupNCCL's start as its glog prints it (ProcessGroupNCCL.cpp): "[Rank 0]
# ProcessGroupNCCL initialized with following options:" then a "NAME: value" line each
# (NCCL_ASYNC_ERROR_HANDLING, NCCL_BLOCKING_WAIT, TIMEOUT(ms) ...)
_PG_STARTED_OPTIONS_RE = re.compile(
    r"\[Rank (?P<rank>\d+)\] ProcessGroup(?P<lib>NCCL|HCCL) initialized with following options"
)
_PG_OPTION_LINE_RE = re.compile(r"^\s*(?P<key>[A-Z][A-Z_]*(?:\(ms\))?): (?P<value>\S+)\s*$")


def _pg_options_notes(lines: list[tuple[int, str, int | None]], report: LogReport) -> bool:
    """A note of the ranks whose process group started and the options it printed."""
    starts = [
        (at, m) for at, (_, t, _) in enumerate(lines) if (m := _PG_STARTED_OPTIONS_RE.search(t))
    ]
    if not starts:
        return False
    options: dict[str, str] = {}
    for _, t, _ in lines[starts[0][0] + 1 : starts[0][0] + 12]:
        if not (o := _PG_OPTION_LINE_RE.match(t)):
            break
        options.setdefault(o.group("key"), o.group("value"))
    ranks = sorted({int(m.group("rank")) for _, m in starts})
    report.unread.append(
        ParseWarning(
            line=lines[starts[0][0]][0],
            message=f"ProcessGroup{starts[0][1].group('lib')} started on rank(s) "
            + ", ".join(map(str, ranks))
            + (
                f"; its options: {', '.join(f'{k} {v}' for k, v in options.items())}"
                if options
                else ""
            )
            + "; no error",
            skipped=False,
        )
    )
    return True


# Megatron-LM's arguments at start (megatron/arguments.py): "using world size: 2,
# data-parallel-size: 2, tensor-model-parallel size: 1, pipeline-model-parallel size: 1", and
# its training log's "iteration        2/   30000 | ..." lines
MEGATRON_WORLD_RE = re.compile(
    r"^using world size: (?P<world>\d+), data-parallel[- ]size: (?P<dp>\d+), "
    # (newer releases name more sizes between: "context-parallel size: 1, hierarchical
    # context-parallel sizes: None, ")
    r"(?:[a-z -]{1,40} sizes?: [^,\n]{1,40}, ){0,4}?"
    r"tensor-model-parallel size: (?P<tp>\d+), pipeline-model-parallel size: (?P<pp>\d+)"
)
_MEGATRON_CP_RE = re.compile(r"\bcontext-parallel size: (\d+)")
_NAN_LOSS_RE = re.compile(r"\bloss(?: value)?:\s*-?nan\b|number of nan iterations:\s*[1-9]", re.I)
_MEGATRON_ITERATION_RE = re.compile(r"^\s*iteration\s+(?P<i>\d+)\s*/\s*(?P<n>\d+)\s*\|")


def _megatron_start_notes(lines: list[tuple[int, str, int | None]], report: LogReport) -> bool:
    """A note of Megatron's parallel layout and the iterations its log reached."""
    world = next(((no, m) for no, t, _ in lines if (m := MEGATRON_WORLD_RE.match(t))), None)
    if world is None:
        return False
    last = None
    for _, t, _ in lines:
        if it := _MEGATRON_ITERATION_RE.match(t):
            last = it
    m = world[1]
    cp = _MEGATRON_CP_RE.search(m.group(0))
    nan = [
        i for _, t, _ in lines if (i := _MEGATRON_ITERATION_RE.match(t)) and _NAN_LOSS_RE.search(t)
    ]
    report.unread.append(
        ParseWarning(
            line=world[0],
            message=f"Megatron: world size {m.group('world')} (data-parallel {m.group('dp')}, "
            f"tensor-parallel {m.group('tp')}, pipeline-parallel {m.group('pp')}"
            + (f", context-parallel {cp.group(1)}" if cp else "")
            + ")"
            + (
                f"; its log reached iteration {last.group('i')} of {last.group('n')}"
                if last
                else ""
            )
            + (
                f"; its loss was NaN at iteration {nan[0].group('i')}"
                + (f" and {len(nan) - 1} more" if len(nan) > 1 else "")
                if nan
                else "; no error"
            ),
            skipped=False,
        )
    )
    return True


# torch elastic's agent when its workers failed and it has restarts left (torch/distributed/
# elastic/agent/server/api.py, _invoke_run: "[default] Worker group FAILED. 3/3 attempts left;
# will restart worker group"; UNHEALTHY likewise)
ELASTIC_RESTART_RE = re.compile(
    r"\[(?P<role>[\w-]+)\] Worker group (?P<state>FAILED|UNHEALTHY)\. (?P<left>\d+)/(?P<max>\d+) "
    r"attempts left; will restart worker group"
)


def _elastic_restarts(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``elastic_restart`` for the agent's restarts of its worker group: how many, and the
    restarts it had left after the last."""
    found = [(no, m, tagged) for no, t, tagged in lines if (m := ELASTIC_RESTART_RE.search(t))]
    if not found:
        return
    no, m, tagged = found[0]
    last = found[-1][1]
    report.events.append(
        LogEvent(
            kind="elastic_restart",
            line=no,
            message=m.group(0),
            rank=tagged,
            library="torch elastic",
            exception_type=f"its worker group {m.group('state')} and was restarted "
            f"{len(found)} time(s) ('{last.group('left')}/{last.group('max')} attempts left' "
            "at the last): a worker failed, its own log says why",
            repeated_lines=[n for n, _, _ in found[1:]] or None,
        )
    )


# CANN's asys analyzing a process's crash (its guide, "asys analyze"): -r=coredump prints
# "[process]" / "crash reason: SIGABRT" / "crash pid: 37246" and the stack; -r=coretrace (a
# device-side coretrace file) prints "Signal 11 pid 12335" and each thread's "PID 12335 TGID 12335
# comm log-daemon" with its frames
_ASYS_CRASH_REASON_RE = re.compile(r"^[ \t]*crash reason:[ \t]*(?P<sig>SIG[A-Z0-9]+)[ \t]*$")
_ASYS_CRASH_PID_RE = re.compile(r"^[ \t]*crash pid:[ \t]*(?P<pid>\d+)[ \t]*$")
_ASYS_SIGNAL_RE = re.compile(r"^[ \t]*Signal (?P<n>\d+) pid (?P<pid>\d+)[ \t]*$")
_ASYS_COMM_RE = re.compile(r"^[ \t]*PID (?P<pid>\d+) TGID (?P<tgid>\d+) comm (?P<comm>\S+)")
# (Linux's numbers of the signals a crash names: asm-generic/signal.h)
SIGNAL_NUMBERS = {"SIGABRT": 6, "SIGBUS": 7, "SIGFPE": 8, "SIGKILL": 9, "SIGSEGV": 11, "SIGILL": 4}
ASYS_CRASH_LINES = 6
"""How far under asys's crash reason its pid (or under its signal line the thread's comm) stands."""


def _asys_crashes(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``launcher_exit`` for each crash asys analyzed: the process, its signal and (for a
    device-side coretrace) its program's name."""
    for index, (no, line, tagged) in enumerate(lines):
        below = [t for _, t, _ in lines[index + 1 : index + 1 + ASYS_CRASH_LINES]]
        if reason := _ASYS_CRASH_REASON_RE.match(line):
            pid = _search(_ASYS_CRASH_PID_RE, below)
            sig = reason.group("sig")
            number = SIGNAL_NUMBERS.get(sig)
            said = f"asys analyze -r=coredump: the process crashed on {sig}"
        elif signal := _ASYS_SIGNAL_RE.match(line):
            pid = signal
            number = int(signal.group("n"))
            comm = _search(_ASYS_COMM_RE, below)
            said = f"asys analyze -r=coretrace: signal {number}" + (
                f" in {comm.group('comm')}" if comm else ""
            )
        else:
            continue
        report.events.append(
            LogEvent(
                kind="launcher_exit",
                line=no,
                message=said + (f" (pid {pid.group('pid')})" if pid else ""),
                rank=tagged,
                pid=int(pid.group("pid")) if pid else None,
                exit_code=128 + number if number else None,
                library="asys",
                exception_type="asys's analysis of a crash",
            )
        )


# HCCL's op-retry channel (HCCL_OP_RETRY_ENABLE: a rank connects to its group's op-retry server
# on the root's host, ports 60000-60015): "[OpRetryConnection][Init] Connect to server failed,
# serverIp_[90.90.97.29] serverPort [60000]", "group[hccl_world_group] rankId [9] rankSize [64]",
# and "[OpRetryConnection][RecvAckTag] Recv unmatched ack" where another process answered on the
# port (CANN 8.1.RC1's HCCL guide names both causes: the port taken, or someone listening there)
_OP_RETRY_CONNECT_RE = re.compile(
    r"\[OpRetryConnection\]\[Init\] Connect to server failed, serverIp_?\[(?P<ip>[\w.:]+)\] "
    r"serverPort \[(?P<port>\d+)\]"
)
_OP_RETRY_GROUP_RE = re.compile(
    r"\[OpRetryConnection\]\[Init\] group\[(?P<group>[^\]\n]+)\] rankId \[(?P<rank>\d+)\] "
    r"rankSize \[(?P<size>\d+)\]"
)


def _op_retry_failures(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``hccl_op_retry_connect`` per rank whose op-retry channel could not reach its server
    (the address and port, the group, and whether another process answered there)."""
    seen: set[tuple[str | None, int | None]] = set()
    for index, (no, line, tagged) in enumerate(lines):
        if "Connect to server failed" not in line or not (m := _OP_RETRY_CONNECT_RE.search(line)):
            continue
        near = " ".join(t for _, t, _ in lines[max(0, index - 2) : index + 3])
        g = _OP_RETRY_GROUP_RE.search(near)
        rank = int(g.group("rank")) if g else tagged
        if (g.group("group") if g else None, rank) in seen:
            continue
        seen.add((g.group("group") if g else None, rank))
        report.events.append(
            LogEvent(
                kind="hccl_op_retry_connect",
                line=no,
                message=line.strip()[:300],
                rank=rank,
                rank_size=int(g.group("size")) if g else None,
                group=g.group("group") if g else None,
                ip=m.group("ip"),
                port=int(m.group("port")),
                library="HCCL",
                exception_type="its op-retry channel could not connect to the server at "
                f"{m.group('ip')}:{m.group('port')}"
                + (
                    "; another process answered on that port ('Recv unmatched ack')"
                    if "Recv unmatched ack" in near
                    else ""
                ),
            )
        )


# Python's OSError for ENOSPC (errno 28 in Linux's asm-generic/errno-base.h): "OSError: [Errno
# 28] No space left on device: '/tmp/pymp-m_olac7h'" (a DataLoader worker's temporary directory,
# a checkpoint, a cache); the path where the message names one
DISK_FULL_RE = re.compile(
    r"\b(?:OSError|IOError|RuntimeError)?:?\s*\[Errno 28\] No space left on device(?:: '(?P<path>[^'\n]+)')?"
)


# torch's shared-memory allocator (aten/src/ATen/MapAllocator.cpp) when /dev/shm is full:
# "RuntimeError: unable to write to file </torch_18693_1532826776_0>: No space left on device
# (28)", a DataLoader worker handing a batch over
_SHM_FULL_RE = re.compile(
    r"unable to write to file <(?P<file>[^>\n]{1,400})>: No space left on device \(28\)"
)
# a write the program went on past: logged below ERROR, or retried ("... retrying (1/3)")
_DISK_FULL_WENT_ON_RE = re.compile(
    r"\bretry(?:ing)?\b|^\S*\s*\[?(?:WARN(?:ING)?|INFO)\b|\bWARN(?:ING)?\s*[:\]-]", re.I
)
SHM_KEY = "shared memory"
"""The place a shared-memory write filled, as ``_disk_full`` keeps one event a rank and place."""
DISK_FULL_CONTEXT_LINES = 12
"""How far above an Errno 28 its traceback's frames are looked at (inotify's ENOSPC)."""


def _disk_full(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``disk_full`` per path (and rank) a write failed on for want of space (on disk, or in
    /dev/shm for torch's shared memory). Not one the program went on past (a retry, a warning),
    nor inotify's ENOSPC (its watch limit, fs.inotify.max_user_watches, not space)."""
    seen: set[tuple[int | None, str | None]] = set()
    for index, (no, line, tagged) in enumerate(lines):
        if "No space left on device (28)" in line and (shm := _SHM_FULL_RE.search(line)):
            where: str | None = SHM_KEY
            said = (
                "a write to shared memory failed: no space left in /dev/shm (torch's "
                f"{shm.group('file')}; DataLoader workers hand their batches over through it, "
                "and a container's default /dev/shm is small)"
            )
        elif "Errno 28" in line and (m := DISK_FULL_RE.search(line)):
            around = " ".join(t for _, t, _ in lines[index + 1 : index + 3])
            if _DISK_FULL_WENT_ON_RE.search(line) or re.search(r"\bretry(?:ing)?\b", around, re.I):
                continue  # (the program went on: a retry, a warning)
            above = [t for _, t, _ in lines[max(0, index - DISK_FULL_CONTEXT_LINES) : index + 1]]
            if any("inotify" in t for t in above):
                continue  # inotify's watch limit, not a disk (read as the exception it raised)
            path = m.group("path")
            # (a temporary name's random part varies by process: its directory is the one that
            # filled)
            where = path.rsplit("/", 1)[0] or "/" if path and "/" in path else path
            said = "a write failed: no space left on device" + (
                f" ({path}, in {where})" if path and where != path else f" ({path})" if path else ""
            )
        else:
            continue
        if (tagged, where) in seen:
            continue
        seen.add((tagged, where))
        report.events.append(
            LogEvent(
                kind="disk_full",
                line=no,
                message=line.strip()[:300],
                rank=tagged,
                exception_type=said,
            )
        )


# a benchmark script's summary, a result a line: "HCCL_ALL_REDUCE OK 65.64171710483544" (its
# bandwidth figure) or "HCCL_ALLTOALL FAIL 7" (the HcclResult the op's test returned), among the
# script's other figures ("ACL_SINGLE_D2H_GBPS 28.6")
BENCH_SUMMARY_RE = re.compile(
    r"^[ \t]*HCCL_(?P<op>[A-Z][A-Z_]*?) (?:OK (?P<value>\d+(?:\.\d+)?)|(?P<fail>FAIL)(?: (?P<code>-?\d+))?)"
    r"[ \t]*$",
    re.M,
)


def _bench_summary_failures(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """Each ``HCCL_<OP> FAIL N`` line of a benchmark summary as a failed HCCL call, with the ops
    that passed beside it said."""
    passed = [
        m.group("op").lower()
        for _, t, _ in lines
        if (m := BENCH_SUMMARY_RE.match(t)) and m.group("value") is not None
    ]
    for no, line, tagged in lines:
        if not (m := BENCH_SUMMARY_RE.match(line)) or m.group("fail") is None:
            continue
        code = int(m.group("code")) if m.group("code") is not None else None
        # (the script's number is an HcclResult where it is one of its errors; a negative one
        # is a signal that ended the op's test, 0 or none says nothing of why)
        name, meaning = decode_result(code) if code and code > 0 else ("", "")
        why = (
            f"{code} = {name} ({meaning})"
            if name and name != "unknown"
            else f"ended by signal {-code}"
            if code is not None and code < 0
            else f"exit status {code}, a shell's for signal {code - 128}"
            if code is not None and 128 < code < 160
            else f"its summary's code {code}, no error code"
            if code is not None
            else "no code printed"
        )
        report.events.append(
            LogEvent(
                kind="hccl_call_failure",
                line=no,
                message=f"{m.group('op').lower()} failed: {why}"
                + (f"; passed in the same summary: {', '.join(passed)}" if passed else ""),
                code=str(code) if code is not None else None,
                code_name=name or None,
                rank=tagged,
                op=m.group("op").lower(),
                call=f"a benchmark summary's HCCL_{m.group('op')}",
            )
        )


def _bench_summary_notes(lines: list[tuple[int, str, int | None]], report: LogReport) -> bool:
    """A note of a benchmark summary whose HCCL ops all passed: each op and its figure."""
    passed = [(no, m) for no, t, _ in lines if (m := BENCH_SUMMARY_RE.match(t))]
    if not passed or any(m.group("fail") for _, m in passed):
        return False
    report.unread.append(
        ParseWarning(
            line=passed[0][0],
            message=f"a benchmark summary: {len(passed)} HCCL op(s) passed ("
            + ", ".join(f"{m.group('op').lower()} {float(m.group('value')):g}" for _, m in passed)
            + "; the script's own figures, their unit not printed)",
            skipped=False,
        )
    )
    return True


# torch elastic's agent starting its workers (torch/distributed/elastic/agent/server/api.py:
# "[default] Starting worker group"; multiprocessing's "Setting worker0 reply file to: ..." per
# worker), and ProcessGroupNCCL's "[Rank 0] NCCL watchdog thread started!"
_ELASTIC_START_RE = re.compile(r"\[(?P<role>[\w-]+)\] Starting worker group")
_ELASTIC_REPLY_FILE_RE = re.compile(r"Setting worker(?P<n>\d+) reply file to: ")
_ELASTIC_AGENTS_RE = re.compile(r"^[ \t]*group_world_size=(\d+)[ \t]*$")
_ELASTIC_WORLD_RE = re.compile(r"^[ \t]*global_world_sizes=\[(\d+)")
_ELASTIC_SUCCEEDED_RE = re.compile(r"Local worker group finished \((?:WorkerState\.)?SUCCEEDED\)")
_WATCHDOG_STARTED_RE = re.compile(
    r"\[Rank (?P<rank>\d+)\] (?P<lib>NCCL|HCCL) watchdog thread started!"
)


def _elastic_start_notes(lines: list[tuple[int, str, int | None]], report: LogReport) -> bool:
    """A note of torch elastic's worker group start: its workers, the backend DeepSpeed took and
    the ranks whose watchdog started."""
    start = next(((no, m) for no, t, _ in lines if (m := _ELASTIC_START_RE.search(t))), None)
    if start is None or any("Worker group FAILED" in t for _, t, _ in lines):
        # (a group that failed and was restarted is no clean start: read as such elsewhere)
        return False
    workers = {int(m.group("n")) for _, t, _ in lines if (m := _ELASTIC_REPLY_FILE_RE.search(t))}
    backend = next((m.group(1) for _, t, _ in lines if (m := _DS_BACKEND_RE.search(t))), None)
    started = [m for _, t, _ in lines if (m := _WATCHDOG_STARTED_RE.search(t))]
    watchdogs = sorted({int(m.group("rank")) for m in started})
    lib = started[0].group("lib") if started else "NCCL"
    said = [f"{len(workers)} local worker(s)"] if workers else []
    if backend:
        said.append(f"DeepSpeed's backend {backend}")
    if watchdogs:
        said.append(f"the {lib} watchdog started on rank(s) {', '.join(map(str, watchdogs))}")
    # the rendezvous' result each agent logs before its start (api.py _rendezvous: "group_world_
    # size=2", "global_world_sizes=[8, 8, 8, 8]"): the nodes and the world; and each agent's
    # end ("Local worker group finished (SUCCEEDED)")
    agents = {int(m.group(1)) for _, t, _ in lines if (m := _ELASTIC_AGENTS_RE.search(t))}
    world = {int(m.group(1)) for _, t, _ in lines if (m := _ELASTIC_WORLD_RE.search(t))}
    if agents or world:
        said.append(
            "its rendezvous: "
            + ", ".join(
                [f"{' or '.join(map(str, sorted(agents)))} agent(s) (nodes)"] * bool(agents)
                + [f"a world of {' or '.join(map(str, sorted(world)))}"] * bool(world)
            )
        )
    if finished := sum(1 for _, t, _ in lines if _ELASTIC_SUCCEEDED_RE.search(t)):
        said.append(f"{finished} agent(s) said their workers finished (SUCCEEDED)")
    report.unread.append(
        ParseWarning(
            line=start[0],
            message=f"torch elastic started its worker group ({start[1].group('role')})"
            + (f": {'; '.join(said)}" if said else "")
            + "; no error",
            skipped=False,
        )
    )
    return True


# torch elastic's agent at its workers' end (torch/distributed/elastic/agent/server/api.py
# _invoke_run: "[default] worker group successfully finished. Waiting 300 seconds for other agents
# to finish.", then _exit_barrier: "Local worker group finished (SUCCEEDED). Waiting ..." and,
# once every agent reached the barrier (its workers ended, "either successfully or not"), "Done
# waiting for other agents. Elapsed: 0.0015 seconds"); torchrun's command line as a script's
# trace shows it ("+ torchrun --nnodes=4 --nproc_per_node=1 --node_rank=1 ... mnist.py")
_ELASTIC_GROUP_DONE_RE = re.compile(r"\[(?P<role>[\w-]+)\] worker group successfully finished\.")
_ELASTIC_EXIT_DONE_RE = re.compile(r"Done waiting for other agents\. Elapsed: (?P<s>\d+(?:\.\d+)?)")
_TORCHRUN_LINE_RE = re.compile(r"^[ \t+$#>]*torchrun[ \t]")
_TORCHRUN_ARG_RE = re.compile(
    r"--(?P<key>nnodes|nproc[-_]per[-_]node|node[-_]rank|master[-_]addr|master[-_]port)"
    r"[= ](?P<value>[^\s=]+)"
)


def _elastic_end_notes(lines: list[tuple[int, str, int | None]], report: LogReport) -> bool:
    """A note of torch elastic's agent that said its worker group finished (SUCCEEDED), with
    torchrun's command line above it (its nodes, processes a node, this node's rank) and its
    exit barrier; False where no agent said so or a worker group failed."""
    done = next(
        ((no, t) for no, t, _ in lines if _ELASTIC_SUCCEEDED_RE.search(t)),
        None,
    ) or next(((no, t) for no, t, _ in lines if _ELASTIC_GROUP_DONE_RE.search(t)), None)
    if done is None or any("Worker group FAILED" in t for _, t, _ in lines):
        return False
    role = next(
        (m.group("role") for _, t, _ in lines if (m := _ELASTIC_GROUP_DONE_RE.search(t))), None
    )
    said = []
    command = next((t for _, t, _ in lines if _TORCHRUN_LINE_RE.match(t)), None)
    if command is not None:
        args = {
            m.group("key").replace("-", "_"): m.group("value")
            for m in _TORCHRUN_ARG_RE.finditer(command)
        }
        master = args.get("master_addr")
        if master and args.get("master_port"):
            master = f"{master}:{args['master_port']}"
        launched = [
            f"{args['nnodes']} node(s)" if "nnodes" in args else "",
            f"{args['nproc_per_node']} process(es) a node" if "nproc_per_node" in args else "",
            f"this node's rank {args['node_rank']}" if "node_rank" in args else "",
            f"master {master}" if master else "",
        ]
        if any(launched):
            said.append("torchrun's command line: " + ", ".join(x for x in launched if x))
    if barrier := next((m for _, t, _ in lines if (m := _ELASTIC_EXIT_DONE_RE.search(t))), None):
        said.append(
            f"it passed its exit barrier ({float(barrier.group('s')):.3g} s): every agent of the "
            "job had reached it (their workers ended, successfully or not)"
        )
    report.unread.append(
        ParseWarning(
            line=done[0],
            message="torch elastic's agent said its worker group finished (SUCCEEDED)"
            + (f" ({role})" if role else "")
            + (f"; {'; '.join(said)}" if said else "")
            + "; no error",
            skipped=False,
        )
    )
    return True


# DeepSpeed's engine's progress on rank 0 (runtime/engine.py, log_dist): "[Rank 0] step=30,
# skipped=20, lr=[...]"
_DS_STEP_RE = re.compile(r"\[Rank 0\] step=(?P<step>\d+), skipped=(?P<skipped>\d+)")


def _deepspeed_launch_notes(lines: list[tuple[int, str, int | None]], report: LogReport) -> bool:
    """A note of DeepSpeed's launcher on one node of a job (its WORLD INFO DICT: each node and its
    device slots; the world size), and how far the engine's steps went."""
    world = next(((no, m) for no, t, _ in lines if (m := _DS_WORLD_INFO_RE.search(t))), None)
    if world is None:
        return False
    nodes = _ds_world_nodes(world[1])
    shape = next((m for _, t, _ in lines if (m := _DS_NNODES_RE.search(t))), None)
    size = next((m.group(1) for _, t, _ in lines if (m := _DS_WORLD_SIZE_RE.search(t))), None)
    step = None
    for _, t, _ in lines:
        if st := _DS_STEP_RE.search(t):
            step = st
    report.unread.append(
        ParseWarning(
            line=world[0],
            message=f"DeepSpeed's launcher: {len(nodes)} node(s) ("
            + ", ".join(f"{name} {slots} slot(s)" for name, slots in nodes[:8])
            + (" ..." if len(nodes) > 8 else "")
            + ")"
            + (f", world size {size}" if size else "")
            + (
                f", this node's rank {m.group(1)}"
                if shape and (m := _DS_NODE_RANK_RE.search(shape.string))
                else ""
            )
            + (
                f"; the engine reached step {step.group('step')} ({step.group('skipped')} skipped)"
                if step
                else ""
            )
            + "; no error",
            skipped=False,
        )
    )
    return True


_DS_WORLD_SIZE_RE = re.compile(r"\bdist_world_size=(\d+)")
_DS_NODE_RANK_RE = re.compile(r"\bnode_rank=(\d+)")


# submitit's handling of a preempted Slurm job, as its logs print it: "Caught signal SIGHUP on
# learnfair0293: this job is preempted.", then "Requeued job 60601445 (3 remaining timeouts)" and
# "Exiting gracefully after preemption/timeout."
_SUBMITIT_PREEMPTED_RE = re.compile(
    r"Caught signal (?P<sig>SIG\w+) on (?P<host>\S+): this job is preempted\."
)
_SUBMITIT_REQUEUED_RE = re.compile(
    r"Requeued job (?P<job>\d+)(?: \((?P<left>\d+) remaining timeouts\))?"
)


def _submitit_notes(lines: list[tuple[int, str, int | None]], report: LogReport) -> bool:
    """A note of each preemption submitit caught and whether it requeued the job."""
    said = False
    for index, (no, line, _) in enumerate(lines):
        if "this job is preempted" not in line or not (m := _SUBMITIT_PREEMPTED_RE.search(line)):
            continue
        requeued = next(
            (
                r
                for _, t, _ in lines[index + 1 : index + 6]
                if (r := _SUBMITIT_REQUEUED_RE.search(t))
            ),
            None,
        )
        report.unread.append(
            ParseWarning(
                line=no,
                message=f"submitit: the job was preempted on {m.group('host')} ({m.group('sig')})"
                + (
                    f" and requeued as job {requeued.group('job')}"
                    + (
                        f" ({requeued.group('left')} remaining timeouts: a preemption does not "
                        "use one)"
                        if requeued.group("left")
                        else ""
                    )
                    if requeued
                    else ", not requeued in the copy"
                )
                + ": the scheduler stopped it, not a fault of its own",
                skipped=False,
            )
        )
        said = True
    return said


# The Ascend device plugin (MindCluster ascend-device-plugin server/plugin.go) answering kubelet's
# ListAndWatch: "ListAndWatch resp devices: inner device: Ascend910-0 Healthy, real device:
# Ascend910-0 Healthy, NotPodUsed: false", after "register Ascend910 to kubelet success."
_LIST_AND_WATCH_DEVICE_RE = re.compile(
    r"ListAndWatch resp devices: inner device: (?P<dev>[\w.-]+) (?P<health>\w+), real device: "
    r"(?P<real>[\w.-]+) (?P<real_health>\w+)"
)


def _plugin_notes(lines: list[tuple[int, str, int | None]], report: LogReport) -> bool:
    """A note of the devices the Ascend device plugin reported to kubelet, each with its health
    (an unhealthy one named); False where no line reports one."""
    health: dict[str, tuple[int, str]] = {}
    for no, line, _ in lines:
        if "ListAndWatch resp devices" in line and (m := _LIST_AND_WATCH_DEVICE_RE.search(line)):
            health[m.group("real")] = (no, m.group("real_health"))
    if not health:
        return False
    bad = [d for d, (_, h) in health.items() if h != "Healthy"]
    for dev in bad:
        no, said = health[dev]
        report.events.append(
            LogEvent(
                kind="device_not_offered",
                line=no,
                message=f"ListAndWatch: {dev} {said}",
                library="Ascend device plugin",
                exception_type=f"the Ascend device plugin reports {dev} {said} to kubelet: no pod "
                "is given it",
            )
        )
    report.unread.append(
        ParseWarning(
            line=min(no for no, _ in health.values()),
            message=f"the Ascend device plugin reported {len(health)} device(s) to kubelet ("
            + ", ".join(f"{d} {h}" for d, (_, h) in sorted(health.items()))
            + ")"
            + (f": {', '.join(bad)} not healthy" if bad else ": all healthy"),
            skipped=False,
        )
    )
    return True


# vLLM's worker (vllm-ascend's worker.py as vLLM's gpu worker) after profiling its memory at
# start: "Free memory on device (60.86/61.27 GiB) on startup. Desired GPU memory utilization is
# (0.9, 55.14 GiB). Actual usage: 1.14 GiB for weights, ..."
VLLM_MEMORY_RE = re.compile(
    r"Free memory on device \((?P<free>[\d.]+)/(?P<total>[\d.]+) GiB\) on startup\."
    r"(?: Desired GPU memory utilization is \((?P<util>[\d.]+), (?P<want>[\d.]+) GiB\)\.)?"
)


def _vllm_memory_notes(lines: list[tuple[int, str, int | None]], report: LogReport) -> bool:
    """A note of each vLLM worker's memory at start (free of total, the share it may use);
    False where no line holds one."""
    said = False
    for no, line, _ in lines:
        if "Free memory on device" not in line or not (m := VLLM_MEMORY_RE.search(line)):
            continue
        worker = WORKER_PREFIX_RE.match(line)
        report.unread.append(
            ParseWarning(
                line=no,
                message="a vLLM worker's memory at start"
                + (f" ({worker.group('name')} pid {worker.group('pid')})" if worker else "")
                + f": {m.group('free')} of {m.group('total')} GiB free"
                + (
                    f", {m.group('want')} GiB ({m.group('util')} of it) for the engine"
                    if m.group("util")
                    else ""
                )
                + "; no error",
                skipped=False,
            )
        )
        said = True
    return said


_STEP_TIME_RE = re.compile(r"\bper step time: (\d+(?:\.\d+)?) ms\b")


def _loss_notes(lines: list[tuple[int, str, int | None]], report: LogReport) -> bool:
    """A note of the steps a training log printed its loss for: how many, and the loss first
    and last (a log that trains, with no error in it); False where no line holds one."""
    rows = [(no, m) for no, line, _ in lines if (m := _loss_line(line))]
    if not rows:
        return False
    if all(m.re is TQDM_LOSS_RE for _, m in rows):
        # (an evaluation's bar is no training step: "Evaluating: 100%|...| 200/200 [..., loss=nan]")
        rows = [(no, m) for no, m in rows if not _EVAL_BAR_RE.search(m.string[: m.start()])]
        if not rows:
            return False
        # (a redrawn bar prints a step's line again as its postfix updates: the last one each)
        rows = list({_step_said(m): (no, m) for no, m in rows}.values())
    (first_no, first), (_, last) = rows[0], rows[-1]
    diverged = next(
        (
            no
            for no, m in rows
            if m.group("loss").lstrip("-").lower() in ("nan", "inf")
            or _NAN_ITERATIONS_RE.search(m.string)
        ),
        None,
    )
    steps = len({_step_said(m) for _, m in rows})
    # MindSpore's LossMonitor at an epoch's end: "Train epoch time: 4353877.791 ms, per step
    # time: 10830.542 ms", a line per process
    per_step = [float(t.group(1)) for _, line, _ in lines if (t := _STEP_TIME_RE.search(line))]
    counted = (
        f"{steps} step(s) logged"
        if steps == len(rows)
        else f"{len(rows)} loss line(s) of {steps} step(s) (several processes print each step)"
    )
    if per_step:
        low, high = min(per_step), max(per_step)
        counted += (
            f", per step time {low:g} ms"
            if low == high
            else f", per step time {low:g}-{high:g} ms ({len(per_step)} line(s))"
        )
    report.unread.append(
        ParseWarning(
            line=first_no,
            message=f"a training loop's loss lines: {counted}, from "
            f"{_step_said(first)} (loss {first.group('loss')}) to "
            f"{_step_said(last)} (loss {last.group('loss')}); "
            + (
                f"the loss is not a number from line {diverged} on (the run diverged)"
                if diverged is not None
                else "no error in them"
            )
            + (
                f"; launched by torchrun with {launched.group(1)} process(es) a node"
                if (launched := _search(_TORCHRUN_NPROC_RE, [t for _, t, _ in lines[:200]]))
                else ""
            )
            + (
                f"; the run said its training completed (line {done})"
                if (
                    done := next(
                        (no for no, line, _ in lines if _TRAINING_DONE_RE.search(line)), None
                    )
                )
                else ""
            ),
            skipped=False,
        )
    )
    return True


# torchrun's command line as a script's trace or a prompt shows it ("+ torchrun
# --nproc_per_node=8 ..."), and a trainer's own last words (torchtitan's train.py: "Training
# completed")
_TORCHRUN_NPROC_RE = re.compile(r"\btorchrun\b[^\n]{0,400}?--nproc[-_]per[-_]node[= ](\d+)\b")
_TRAINING_DONE_RE = re.compile(r"\bTraining completed\.?[ \t]*$")


def _msrun_start_notes(lines: list[tuple[int, str, int | None]], report: LogReport) -> bool:
    """A note of the workers msrun started: how many, their rank ids and where their logs are;
    False where no line holds one."""
    ranks: list[int] = []
    logs_at: list[str] = []
    first = 0
    for no, line, _ in lines:
        if "Start worker process" in line and (m := MSRUN_WORKER_RE.search(line)):
            first = first or no
            ranks.append(int(m.group("rank")))
            logs_at.append(m.group("log"))
    if not ranks:
        return False
    span = _number_span(sorted(set(ranks)), shortest_run=3)
    report.unread.append(
        ParseWarning(
            line=first,
            message=f"MindSpore msrun started {len(ranks)} worker process(es), rank id(s) {span}; "
            f"each worker's own log is in the file named (the first {logs_at[0]}): read those "
            "for how the job went",
            skipped=False,
        )
    )
    return True


def _ras_summary_notes(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """Notes of a healthy RAS report: the job's size and each communicator group's state."""
    in_job = False
    for no, line, _ in lines:
        if "Job summary" in line:
            in_job = True
            continue
        if in_job and (j := _RAS_JOB_ROW_RE.match(line)):
            nodes, per_node, _gpus_each, processes, gpus = j.groups()
            report.unread.append(
                ParseWarning(
                    line=no,
                    message=f"NCCL RAS: {nodes} node(s), {per_node} process(es) a node, "
                    f"{processes} process(es) and {gpus} GPU(s) in all",
                    skipped=False,
                )
            )
            in_job = False
        elif g := _RAS_GROUP_ROW_RE.match(line):
            report.unread.append(
                ParseWarning(
                    line=no,
                    message=f"NCCL RAS: group {g.group('group')}, {g.group('comms')} "
                    f"communicator(s) of {g.group('ranks')} rank(s) over {g.group('nodes')} "
                    f"node(s): {g.group('status')}, {g.group('errors')}",
                    skipped=False,
                )
            )


_RUN_WENT_ON_KINDS = frozenset({"nccl_warning", "mpi_transport_error"})
"""Events of a run that went on (NCCL's WARN of what it went without, Open MPI's single-copy
read refused): its NCCL set-up is said beside them."""


# NCCL's channel set-up (src/transport.cc): "Channel 01/0 : 1[c5000] -> 0[29000] via P2P/IPC/read",
# "... via SHM/direct/direct", "... [send] via NET/IB/0/GDRDMA": the transport, the NIC's index
# taken out of a network's
# (NCCL 2.4-2.6 named a channel a ring: "Ring 00 : 5[5] -> 6[6] via P2P/IPC", "Ring 00 : 15 -> 0
# [receive] via NET/Socket/0", its peer's device left out over the network)
# (NCCL's SHM transport before 2.7 named itself in words, src/transport/shm.cc: "Ring %02d :
# %d[%d] -> %d[%d] via direct shared memory", later "Channel %02d : ... via direct shared memory")
_CHANNEL_VIA_RE = re.compile(
    r"NCCL INFO (?:Channel|Ring) \d+(?:/\d+)? : \d+(?:\[[^\]]*\])? -> \d+(?:\[[^\]]*\])?(?: \[\w+\])? via "
    r"(?P<via>(?:P2P|SHM|NET|COLLNET|NVLS)(?:/[A-Za-z][\w]*)*|direct shared memory)"
)
# NCCL's INFO where CUDA gives no peer-to-peer between two GPUs on a PCIe path (src/graph/paths.cc,
# its P2P check: "P2P is disabled between connected GPUs %d and %d. You can repress this message
# with NCCL_IGNORE_DISABLED_P2P=1."; over NVLink the same is a WARN and an error)
_P2P_DISABLED_RE = re.compile(r"P2P is disabled between connected GPUs (?P<a>\d+) and (?P<b>\d+)")
_VIA_SAID = {
    "P2P": "GPU to GPU, NVLink or PCIe peer-to-peer",
    "SHM": "through host shared memory (no peer-to-peer between those GPUs)",
    "direct shared memory": "through host shared memory (no peer-to-peer between those GPUs)",
    "NET": "over the network",
}
# NCCL's note of a setting it took from the environment: "NCCL INFO NCCL_P2P_LEVEL set by
# environment to LOC", "NCCL_SHM_DISABLE set by environment to 1." (src/misc/param.cc): the
# value up to its sentence's closing period, a path's ".xml" kept ("NCCL_GRAPH_FILE set by
# environment to /opt/microsoft/ncv4/graph.xml")
_NCCL_ENV_SET_RE = re.compile(
    r"NCCL INFO (?P<name>NCCL_\w+) set by environment to (?P<value>\S*[^\s.])\.?(?!\S)"
)
# NCCL's shape of a communicator as it sets it up (init.cc, NCCL 2.19 on): "comm 0x6426550 rank 2
# nRanks 8 nNodes 4 localRanks 2 localRank 0 MNNVL 0"
_NCCL_COMM_SHAPE_RE = re.compile(
    r"\bcomm 0x[0-9a-f]+ rank (?P<rank>\d+) nRanks (?P<n>\d+) nNodes (?P<nodes>\d+) "
    r"localRanks (?P<local>\d+)"
)
# NCCL's tree line at init (graph/connect.cc: "Trees [0] 17/24/-1->16->0 [1] ... comm 0x..
# nRanks 32 busId 17000", each channel's "down0/down1/down2->rank->up"): this rank, its size
_NCCL_TREES_RE = re.compile(
    r"\bTrees \[0\] -?\d+/-?\d+/-?\d+->(?P<rank>\d+)->-?\d+.*? comm 0x[0-9a-f]+ nRanks (?P<n>\d+)"
)
# NCCL 2.3's init lines: the IB device its net uses ("NET/IB: [0] mlx5_0:1/IB") and the rank
# ("NCCL INFO rank 0 nranks 3")
_NCCL_OLD_IB_DEV_RE = re.compile(r"NCCL INFO NET/IB: (?P<what>(?:\[\d+\] ?\S+:\d+/\w+ ?)+)\s*$")
_NCCL_OLD_RANK_RE = re.compile(r"NCCL INFO rank (?P<rank>\d+) nranks (?P<n>\d+)\s*$")
# NCCL's words once its channels are set up (init.cc: "Connected all rings", "Connected all
# trees") and their number ("2 coll channels, 2 p2p channels, 2 p2p channels per peer"; newer
# releases add "2 collnet channels, 0 nvls channels")
# (and, on NVLink SHARP systems, "Connected NVLS tree")
_NCCL_CONNECTED_ALL_RE = re.compile(r"NCCL INFO Connected (?:all (rings|trees)\b|(NVLS tree)\b)")
# a communicator's line that a copy cut or spliced before its device ("comm 0x.. rank 0 nranks 4 c"),
# ncclCommSplit's ("ncclCommSplit comm 0x.. rank 1 nranks 16 cudaDev 1 ... parent 0x.."), and its
# end ("comm 0x.. rank 0 nranks 4 cudaDev 0 busId 27000 - Abort COMPLETE" / "- Destroy COMPLETE":
# init.cc, ncclCommAbort's and ncclCommDestroy's last words)
_NCCL_COMM_ANY_RE = re.compile(
    r"NCCL INFO (?P<split>ncclCommSplit )?comm (?P<comm>0x[0-9a-f]+) rank (?P<rank>\d+) nranks (?P<n>\d+)"
    r"(?:.*? - (?P<end>Abort|Destroy) COMPLETE)?"
)
# NCCL's proxy service thread when a peer's connection to it closed (proxy.cc: "[Service thread]
# Connection closed by localRank %d"): the communicators' tear-down, each process's proxy in turn
_NCCL_SERVICE_CLOSED_RE = re.compile(r"\[Service thread\] Connection closed by localRank (\d+)")
# NCCL's topology dump (topo.cc ncclTopoPrint): a GPU node ("+ PCI[24.0] - GPU/27000 (0)") and a
# link under it ("+ NVL[160.0] - NVS/0": an NVLink to an NVSwitch; "- GPU/..." to a GPU)
# (NCCL 2.21 on puts the system's id before the bus: "GPU/0-18000 (0)")
_NCCL_TOPO_GPU_RE = re.compile(
    r"NCCL INFO\s+\+ \w+\[[\d.]+\] - GPU/(?:\d+-)?(?P<bus>[0-9A-Fa-f]+) \(\d+\)"
)
_NCCL_TOPO_NVL_RE = re.compile(r"NCCL INFO\s+\+ NVL\[(?P<bw>[\d.]+)\] - (?P<to>NVS|GPU)/")
# "NVLS multicast support is not available on dev 1" (NVLink SHARP needs an NVSwitch system with
# multicast; NCCL goes on without it)
_NCCL_NVLS_UNAVAILABLE_RE = re.compile(r"NVLS multicast support is not available on dev (\d+)")
_NCCL_CHANNEL_COUNTS_RE = re.compile(r"\b(\d+ coll channels,[^\n]*?)\s*$")
# the ring order of each channel at init ("Channel 00/24 :    0   1   2"): how many channels
# NCCL's topology search's result of each graph (src/graph/search.cc, ncclTopoPrintGraph):
# "Pattern 4, crossNic 0, nChannels 2, bw 12.000000/12.000000, type PHB/PIX, sameChannels 1";
# the patterns are graph.h's NCCL_TOPO_PATTERN_*: 1 balanced tree, 2 split tree, 3 tree, 4 ring,
# 5 NVLS, 6 CollNet direct; bw is GB/s per channel within/between nodes
_NCCL_GRAPH_PATTERN_RE = re.compile(
    r"NCCL INFO Pattern (?P<p>\d+), crossNic \d+, nChannels (?P<n>\d+), "
    r"bw (?P<bw>[\d.]+/[\d.]+), type (?P<type>\w+/\w+)"
)
GRAPH_PATTERNS = {
    1: "balanced tree", 2: "split tree", 3: "tree", 4: "ring", 5: "NVLS", 6: "CollNet direct",
}  # fmt: skip
RING_LINE_WIDTH = 20
"""The most ranks NCCL's ring line prints (MAXWIDTH in its rings dump, older releases)."""
_NCCL_RING_CHANNELS_RE = re.compile(r"NCCL INFO Channel \d+/(\d+) :(?P<ring>(?:\s+\d+)+)\s*$")
# NCCL's set-up time of a communicator, per rank, in seconds (init.cc, from 2.23 on: "Init timings -
# ncclCommInitRankConfig: rank 3 nranks 8 total 55.01 (kernels 52.45, alloc 0.41, bootstrap 0.57,
# allgathers 0.08, topo 1.10, graphs 0.01, connections 0.39, rest 0.00)")
_NCCL_INIT_TIMINGS_RE = re.compile(
    r"Init timings - (?P<fn>\w+): rank (?P<rank>\d+) nranks (?P<n>\d+) total (?P<total>[\d.]+) "
    r"\((?P<phases>[^)]*)\)"
)
# aws-ofi-nccl at start: "NET/OFI Selected Provider is efa" ("tcp;ofi_rxm" where EFA is absent)
_OFI_PROVIDER_RE = re.compile(r"NET/OFI Selected Provider is (?P<prov>\S+)")


def _init_timings_said(n: int, per_rank: list[tuple[int, int, float, str]]) -> str:
    """A communicator's set-up times as NCCL timed them: how many ranks said theirs, the range,
    and the slowest rank's longest phase (52 of 55 s loading kernels is not the network's)."""
    _, rank, total, phases = max(per_rank, key=lambda r: r[2])
    named = [
        (p[0], float(p[1]))
        for p in (part.rsplit(" ", 1) for part in phases.split(", ") if " " in part)
        if re.fullmatch(r"\d+(?:\.\d+)?", p[1])
    ]
    low = min(r[2] for r in per_rank)
    span = f"{low:.2f}-{total:.2f} s" if low != total else f"{total:.2f} s"
    said = (
        f"NCCL's set-up of a communicator of {n} rank(s) (its Init timings) took {span} on the "
        f"{len({r[1] for r in per_rank})} rank(s) this log shows"
    )
    if named:
        phase, seconds = max(named, key=lambda p: p[1])
        said += f"; the slowest, rank {rank}, spent {seconds:.2f} s of its {total:.2f} s in {phase}"
    return said


# NCCL 1.x's INFO lines (nccl 1.3's core.cu, before the "host:pid:tid [dev]" prefix existed):
# "NCCL version 1.3.5 compiled with CUDA 9.0", "INFO rank 0 using device 0 (0000:0C:00.0)",
# "INFO rank access 0 -> 1 via P2P device mem" (or "via common device" to itself)
_NCCL1_VERSION_RE = re.compile(
    r"\bNCCL version (?P<v>1\.\d+\.\d+) compiled with CUDA (?P<cuda>[\d.]+)"
)
_NCCL1_DEVICE_RE = re.compile(
    r"\bINFO rank (?P<rank>\d+) using device (?P<dev>\d+) \((?P<bus>[0-9A-Fa-f:.]+)\)"
)
_NCCL1_ACCESS_RE = re.compile(
    r"\bINFO rank access (?P<a>\d+) -> (?P<b>\d+) via (?P<via>\S[^\n]{0,60})"
)


def _nccl1_notes(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """Notes of an NCCL 1.x start: its version, each rank's device and how ranks reach each
    other (nothing in them is a failure)."""
    version = next(((no, v) for no, t, _ in lines if (v := _NCCL1_VERSION_RE.search(t))), None)
    devices = [
        (no, d) for no, t, _ in lines if "using device" in t and (d := _NCCL1_DEVICE_RE.search(t))
    ]
    access = [
        (no, a)
        for no, t, _ in lines
        if "rank access" in t and (a := _NCCL1_ACCESS_RE.search(t)) and a.group("a") != a.group("b")
    ]
    if version is not None:
        no, v = version
        said = f"NCCL {v.group('v')} (built with CUDA {v.group('cuda')})"
        report.unread.append(ParseWarning(line=no, message=said, skipped=False))
    if devices:
        said = (
            f"NCCL's {len(devices)} rank(s): "
            + ", ".join(
                f"rank {d.group('rank')} on device {d.group('dev')} ({d.group('bus')})"
                for _, d in devices[:8]
            )
            + (" ..." if len(devices) > 8 else "")
        )
        report.unread.append(ParseWarning(line=devices[0][0], message=said, skipped=False))
    if access:
        said = (
            "NCCL's paths between ranks: "
            + ", ".join(
                f"{a.group('a')}->{a.group('b')} via {a.group('via').strip()}"
                for _, a in access[:8]
            )
            + (" ..." if len(access) > 8 else "")
        )
        report.unread.append(ParseWarning(line=access[0][0], message=said, skipped=False))


def _nccl_setup_notes(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """Notes of what a healthy run's NCCL used: its version, each host's network and devices,
    each rank's GPU (nccl-tests' header), one note each."""
    notes: dict[str, int] = {}
    ranks_seen: dict[str, set[int]] = {}  # a communicator's start → the ranks this log shows
    env: dict[str, tuple[int, str]] = {}  # NCCL's settings it read from the environment
    via: dict[str, int] = {}  # the transports NCCL's channels go over, by how many lines
    via_first = 0
    p2p_off: list[str] = []  # GPU pairs NCCL found connected without CUDA's peer-to-peer
    p2p_off_first = 0
    connected: dict[str, set[str]] = {}  # a host → "rings", "trees" NCCL said it connected
    connected_first: dict[str, int] = {}  # a host → the line of its first "Connected" note
    bootstrap: dict[str, tuple[int, str]] = {}  # a host → (line, the interface its bootstrap took)
    # an init call and communicator size → each rank's set-up time (line, rank, total s, phases)
    # (ncclCommInitRankConfig's and ncclCommSplit's of one size are two communicators)
    timings: dict[tuple[str, int], list[tuple[int, int, float, str]]] = {}
    ended: dict[
        tuple[str, str], dict[str, set[str]]
    ] = {}  # (size, how it ended) → the communicators ended so
    closed: dict[int, int] = {}  # a service thread's "Connection closed" line → the local rank
    topo_gpus: dict[str, int] = {}  # NCCL's topology dump: a GPU's bus → its line
    topo_nvl: set[tuple[str, str]] = set()  # the dump's NVLinks: (NVS or GPU, bandwidth)
    # a host → its graph search's result per pattern: (line, channels, intra/inter bw, path types)
    graphs: dict[str, dict[int, tuple[int, int, str, str]]] = {}
    pynccl: dict[str, str] = {}  # vLLM's (SGLang's) word of its NCCL's version → its note
    for no, line, _ in lines:
        said: str | None = None
        if "Pattern " in line and (gp := _NCCL_GRAPH_PATTERN_RE.search(line)):
            host = h.group("host") if (h := _NCCL_DEBUG_HOST_RE.search(line)) else "a host"
            graphs.setdefault(host, {}).setdefault(
                int(gp.group("p")),
                (no, int(gp.group("n")), gp.group("bw"), gp.group("type")),
            )
            continue
        if "Init timings" in line and (it := _NCCL_INIT_TIMINGS_RE.search(line)):
            timings.setdefault((it.group("fn"), int(it.group("n"))), []).append(
                (no, int(it.group("rank")), float(it.group("total")), it.group("phases"))
            )
            continue
        if "P2P is disabled between" in line and (dp := _P2P_DISABLED_RE.search(line)):
            pair = f"{dp.group('a')} and {dp.group('b')}"
            if pair not in p2p_off:
                p2p_off.append(pair)
            p2p_off_first = p2p_off_first or no
            continue
        if " via " in line and (ch := _CHANNEL_VIA_RE.search(line)):
            kind = ch.group("via")
            via[kind] = via.get(kind, 0) + 1
            via_first = via_first or no
            continue
        if "set by environment to" in line and (e := _NCCL_ENV_SET_RE.search(line)):
            env.setdefault(e.group("name"), (no, e.group("value")))
            continue
        if "NCCL version" in line and (v := _NCCL_VERSION_LINE_RE.search(line)):
            said = f"NCCL {v.group('v')}"
        elif " is using nccl==" in line and (vv := _VLLM_NCCL_RE.search(line)):
            said = f"NCCL {vv.group('v')} ({PYNCCL_OF[vv.group('who')]})"
            pynccl.setdefault(vv.group("v"), said)
        elif "NET" in line and (n := _NCCL_NET_USING_RE.search(line)):
            host = h.group("host") if (h := _NCCL_DEBUG_HOST_RE.search(line)) else None
            net = f"NET/{n.group('net')}" if n.group("net") else "network"
            said = f"{host or 'a host'}: NCCL's {net} uses {(n.group('what') or n.group('what2')).strip()}"
        elif "Using internal Network" in line and (w := _NCCL_OLD_NETWORK_RE.search(line)):
            said = f"NCCL's network: its internal {w.group('name')} transport"
        elif "Using network" in line and (w := _NCCL_NETWORK_RE.search(line)):
            said = f"NCCL's network plugin: {w.group('name')}"
        elif "Loaded " in line and (lp := _NCCL_PLUGIN_LOADED_RE.search(line)):
            kind = "network" if lp.group("kind") == "net" else "collective (CollNet)"
            said = f"NCCL loaded its {kind} plugin: {lp.group('name').strip()}"
        elif "Bootstrap" in line and (bs := _NCCL_BOOTSTRAP_RE.search(line)):
            host = h.group("host") if (h := _NCCL_DEBUG_HOST_RE.search(line)) else "a host"
            bootstrap.setdefault(host, (no, bs.group("what")))
            continue
        elif "Selected Provider is" in line and (o := _OFI_PROVIDER_RE.search(line)):
            # aws-ofi-nccl's libfabric provider: efa carries the traffic over EFA; tcp (or
            # sockets, behind ofi_rxm) carries it over TCP, no RDMA
            prov = o.group("prov")
            said = f"NCCL's aws-ofi-nccl plugin uses libfabric's {prov} provider" + (
                " (TCP, not EFA: no RDMA between the hosts)"
                if prov.split(";")[0] in ("tcp", "sockets")
                else ""
            )
        elif "Init COMPLETE" in line and (c := _NCCL_COMM_GPU_RE.search(line)):
            said = f"a communicator of {c.group('nranks')} rank(s) started"
            ranks_seen.setdefault(said, set()).add(int(c.group("rank")))
        elif "Init START" in line and (c := _NCCL_COMM_GPU_RE.search(line)):
            # (its set-up begun: a copy that ends before "Init COMPLETE" does not say it ended)
            said = f"a communicator of {c.group('nranks')} rank(s) being set up (Init START)"
            ranks_seen.setdefault(said, set()).add(int(c.group("rank")))
        elif "Connected " in line and (ca := _NCCL_CONNECTED_ALL_RE.search(line)):
            host = h.group("host") if (h := _NCCL_DEBUG_HOST_RE.search(line)) else "a host"
            connected.setdefault(host, set()).add(ca.group(1) or ca.group(2))
            connected_first.setdefault(host, no)
            continue
        elif "Service thread" in line and (sc := _NCCL_SERVICE_CLOSED_RE.search(line)):
            closed.setdefault(no, int(sc.group(1)))
            continue
        elif "GPU/" in line and (tg := _NCCL_TOPO_GPU_RE.search(line)):
            topo_gpus.setdefault(tg.group("bus").upper(), no)
            continue
        elif "NVL[" in line and (tn := _NCCL_TOPO_NVL_RE.search(line)):
            topo_nvl.add((tn.group("to"), tn.group("bw")))
            continue
        elif "NVLS multicast" in line and _NCCL_NVLS_UNAVAILABLE_RE.search(line):
            said = "NCCL: NVLink SHARP (NVLS) multicast is not available on this system's GPUs"
        elif "Ib Alloc" in line and "net_ib" in line:
            host = h.group("host") if (h := _NCCL_DEBUG_HOST_RE.search(line)) else None
            said = f"{host or 'a host'}: NCCL's IB transport (net_ib) allocated its buffers"
        elif "/" in line and "Channel " in line and (rc := _NCCL_RING_CHANNELS_RE.search(line)):
            # (the ring's order of ranks after the colon: every rank of the communicator once,
            # up to the 20 an older NCCL prints, its rings dump's MAXWIDTH)
            ring = rc.group("ring").split()
            over = f"{len(ring)} rank(s)" if len(ring) != RING_LINE_WIDTH else "20 rank(s) or more"
            said = (
                f"NCCL's rings: {int(rc.group(1))} channel(s) (its 'Channel NN/{rc.group(1)}' "
                f"lines), each over {over}"
            )
        elif "nranks" in line and "comm 0x" in line and (cm := _NCCL_COMM_ANY_RE.search(line)):
            if cm.group("end"):
                ending = "ncclCommAbort (Abort COMPLETE)"
                if cm.group("end") == "Destroy":
                    ending = "ncclCommDestroy (Destroy COMPLETE)"
                # (each process prints its own address for one communicator: how many ended is the
                # most any one rank ended)
                ended.setdefault((cm.group("n"), ending), {}).setdefault(
                    cm.group("rank"), set()
                ).add(cm.group("comm"))
                said = f"a communicator of {cm.group('n')} rank(s) ended by {ending}"
            elif cm.group("split"):
                said = (
                    f"a communicator of {cm.group('n')} rank(s) split from another (ncclCommSplit)"
                )
            else:
                said = f"a communicator of {cm.group('n')} rank(s)"
            ranks_seen.setdefault(said, set()).add(int(cm.group("rank")))
        elif "Trees [0]" in line and (tr := _NCCL_TREES_RE.search(line)):
            said = f"a communicator of {int(tr.group('n'))} rank(s)"
            ranks_seen.setdefault(said, set()).add(int(tr.group("rank")))
        elif "nranks" in line and (r23 := _NCCL_OLD_RANK_RE.search(line)):
            said = f"a communicator of {r23.group('n')} rank(s)"
            ranks_seen.setdefault(said, set()).add(int(r23.group("rank")))
        elif "NET/IB: [" in line and (ib := _NCCL_OLD_IB_DEV_RE.search(line)):
            host = h.group("host") if (h := _NCCL_DEBUG_HOST_RE.search(line)) else None
            said = f"{host or 'a host'}: NCCL's NET/IB uses {ib.group('what').strip()}"
        elif "nNodes" in line and (t := _NCCL_COMM_SHAPE_RE.search(line)):
            said = (
                f"a communicator of {t.group('n')} rank(s) on {t.group('nodes')} node(s), "
                f"{t.group('local')} on each"
            )
            ranks_seen.setdefault(said, set()).add(int(t.group("rank")))
        elif (
            "nvls channels" in line and (n := _NVLS_CHANNELS_RE.search(line)) and n.group(1) != "0"
        ):
            said = f"NCCL uses NVLink SHARP (NVLS): {n.group(1)} NVLS channel(s)"
        elif "coll channels" in line and (cc := _NCCL_CHANNEL_COUNTS_RE.search(line)):
            said = f"NCCL's channels: {cc.group(1)}"
        elif line.startswith("#") and (r := _NCCL_TESTS_RANK_RE.match(line)):
            said = f"rank {r.group('rank')} on {r.group('host')}: GPU {r.group('dev')} {r.group('gpu').strip()}"
        if said is not None and said not in notes:
            notes[said] = no
    for (_, size), per_rank in timings.items():
        notes[_init_timings_said(size, per_rank)] = per_rank[0][0]
    if bootstrap:
        # (one note for all hosts: a 16-host job's bootstrap said once, its interfaces listed)
        first_host, (_, first_what) = next(iter(bootstrap.items()))
        boot_shown = [f"{h} {what}" for h, (_, what) in list(bootstrap.items())[:4]]
        said_boot = (
            f"{first_host}: NCCL's bootstrap uses {first_what}"
            if len(bootstrap) == 1
            else f"NCCL's bootstrap on {len(bootstrap)} host(s): {', '.join(boot_shown)}"
            + (" ..." if len(bootstrap) > 4 else "")
        )
        notes[said_boot] = min(no for no, _ in bootstrap.values())
    for version, said_vllm in pynccl.items():
        # (NCCL's own version line and vLLM's of one library: said once; two versions stay)
        if any(n.startswith(f"NCCL {version}") and n != said_vllm for n in notes):
            notes.pop(said_vllm, None)
    for host, found in graphs.items():
        # (each process prints its search: one note a host, each pattern once)
        notes[
            f"{host}: NCCL's topology search found "
            + "; ".join(
                f"a {GRAPH_PATTERNS.get(p, f'pattern {p}')} graph (pattern {p}) of {n} channel(s) "
                f"at {'/'.join(f'{float(b):g}' for b in bw.split('/'))} GB/s (within/between "
                f"nodes) over {kind}"
                for p, (_, n, bw, kind) in sorted(found.items())
            )
        ] = min(no for no, *_ in found.values())
    if topo_gpus:
        links = ", ".join(
            f"NVLink {bw} GB/s to {'an NVSwitch' if to == 'NVS' else 'GPUs'}"
            for to, bw in sorted(topo_nvl)
        )
        notes[
            f"NCCL's topology: {len(topo_gpus)} GPU(s) ({', '.join(topo_gpus)})"
            + (f"; {links}" if links else "; no NVLink in it")
        ] = min(topo_gpus.values())
    if closed:
        # (after a run, each communicator's tear-down; before its end, a peer process that left)
        notes[
            f"NCCL's proxy service threads: {len(closed)} connection(s) closed by local rank(s) "
            f"{', '.join(map(str, sorted(set(closed.values()))))} (a communicator's tear-down, "
            "or a peer process that exited)"
        ] = min(closed)
    for (nranks, ending), by_rank in ended.items():
        if (count := max(len(c) for c in by_rank.values())) > 1:
            # several communicators of one size ended (a job's groups): how many, one note
            one = f"a communicator of {nranks} rank(s) ended by {ending}"
            many = f"{count} communicators of {nranks} rank(s) ended by {ending}"
            notes[many] = notes.pop(one)
            if one in ranks_seen:
                ranks_seen[many] = ranks_seen[one]
    # (a communicator's bare line beside the Init lines that say more of it: said once)
    for said in [n for n in notes if n.endswith(" rank(s)") and n.startswith("a communicator of ")]:
        if any(o.startswith(said + " ") for o in notes if o != said):
            del notes[said]
    if "a host" in connected and len(connected) > 1:
        # (a line whose prefix two processes spliced: one of the named hosts')
        del connected["a host"]
    for host, kinds in connected.items():
        # (init.cc: "Connected all rings" / "Connected all trees" once the channels are set up,
        # "Connected NVLS tree" for NVLink SHARP's)
        parts = []
        if every := [k for k in ("rings", "trees") if k in kinds]:
            parts.append(f"all its {' and '.join(every)}")
        if "NVLS tree" in kinds:
            parts.append("its NVLS tree")
        notes[f"{host}: NCCL connected {' and '.join(parts)}"] = connected_first[host]
    if via:
        # (each channel's "via P2P/IPC/read", "via SHM/direct/direct", "via NET/IB/0/GDRDMA":
        # GPU to GPU, through host memory, or over the network; the NIC's index left out)
        notes[
            "NCCL's channels go "
            + ", ".join(
                f"via {k} ({n} line(s)"
                + (f": {_VIA_SAID[k.split('/')[0]]}" if k.split("/")[0] in _VIA_SAID else "")
                + ")"
                for k, n in via.items()
            )
        ] = via_first
    if paths := _nccl_path_dump(lines):
        notes[paths[1]] = paths[0]
    if p2p_off:
        notes[
            f"NCCL found no peer-to-peer between PCIe-connected GPUs {', '.join(p2p_off[:8])}"
            + (" ..." if len(p2p_off) > 8 else "")
            + " (CUDA refused it there): their traffic goes through host memory, slower than "
            "GPU to GPU; not an error"
        ] = p2p_off_first
    if env:
        # (NCCL's INFO of each NCCL_* variable it took from the environment: the run's own
        # settings, P2P or shared memory turned off among them)
        first = min(no for no, _ in env.values())
        notes[
            "NCCL settings from the environment: "
            + ", ".join(f"{name}={value}" for name, (_, value) in env.items())
        ] = first
    for said, no in notes.items():
        if said in ranks_seen:
            shown = sorted(ranks_seen[said])
            said += f" (this log: rank(s) {', '.join(map(str, shown[:8]))}{' ...' if len(shown) > 8 else ''})"
        report.unread.append(ParseWarning(line=no, message=said, skipped=False))


# NCCL's dump of its topology's paths at NCCL_DEBUG_SUBSYS=GRAPH (src/graph/paths.cc
# printNodePaths): a line a GPU, "GPU/600000 :GPU/100000 (2/44.000000/NVB) ... NET/0
# (4/1.250000/SYS)", each path's hop count, bandwidth (GB/s) and type (src/graph/topo.h: LOC
# itself, NVL NVLink, NVB NVLink through another GPU, C2C, PIX one PCIe bridge, PXB several,
# P2C, PXN through another GPU to a NIC, PHB through the CPU's host bridge, SYS across the CPUs'
# interconnect, NET, DIS disconnected); newer NCCL writes ids as "GPU/0-600000"
_PATH_DUMP_RE = re.compile(r"NCCL INFO GPU/(?P<src>[0-9a-fA-F-]+) :(?P<rest>GPU/.*)$")
_PATH_ENTRY_RE = re.compile(
    r"(?P<kind>GPU|NET|NIC|CPU|NVS|PCI)/(?P<id>[0-9a-fA-F-]+) \((?P<hops>\d+)/(?P<bw>\d+(?:\.\d+)?)/"
    r"(?P<type>[A-Z0-9]+)\)"
)
_PATH_SAID = {
    "NVL": "NVLink",
    "NVB": "NVLink through another GPU",
    "C2C": "chip-to-chip",
    "PIX": "one PCIe bridge",
    "PXB": "several PCIe bridges",
    "PHB": "the CPU's PCIe host bridge",
    "SYS": "across the CPUs' interconnect",
    "DIS": "disconnected",
}


def _nccl_path_dump(lines: list[tuple[int, str, int | None]]) -> tuple[int, str] | None:
    """One note of NCCL's path dump: how its GPUs reach each other and the network (each
    path type counted, the network's at its narrowest); None where the log has none."""
    first = 0
    sources: set[str] = set()
    gpu_types: dict[str, int] = {}
    nets: dict[str, tuple[str, float]] = {}  # NET id → its narrowest path's type and GB/s
    for no, line, _ in lines:
        if "NCCL INFO GPU/" not in line or not (m := _PATH_DUMP_RE.search(line)):
            continue
        first = first or no
        sources.add(m.group("src"))
        for e in _PATH_ENTRY_RE.finditer(m.group("rest")):
            if e.group("kind") == "GPU" and e.group("type") != "LOC":
                gpu_types[e.group("type")] = gpu_types.get(e.group("type"), 0) + 1
            elif e.group("kind") == "NET":
                bw = float(e.group("bw"))
                if e.group("id") not in nets or bw < nets[e.group("id")][1]:
                    nets[e.group("id")] = (e.group("type"), bw)
    if not sources:
        return None

    def said(kind: str) -> str:
        return f"{kind} ({_PATH_SAID[kind]})" if kind in _PATH_SAID else kind

    return first, (
        f"NCCL's path dump of {len(sources)} GPU(s): to the other GPUs "
        + ", ".join(f"{n} path(s) over {said(k)}" for k, n in gpu_types.items())
        + "".join(
            f"; NET/{i} at {said(t)}, {bw:g} GB/s at its narrowest" for i, (t, bw) in nets.items()
        )
    )


def _nccl_hosts(lines: list[tuple[int, str, int | None]]) -> list[str]:
    """The hosts of NCCL's debug prefixes, in order of first appearance; never a name made of
    two lines that processes printing at once spliced together (see ``_spliced``)."""
    seen: list[tuple[str, str | None]] = []  # (host, pid) of each prefix
    warned: set[str] = set()  # hosts of WARN lines: a failure's own prefix is kept
    for _, line, _ in lines:
        if (" NCCL " in line or "] INFO " in line or " WARN " in line) and (
            pm := _NCCL_DEBUG_HOST_RE.search(line)
        ):
            seen.append((pm.group("host"), pm.group("pid")))
            if " WARN " in line:
                warned.add(pm.group("host"))
    by_pid: dict[str, Counter[str]] = {}
    for host, pid in seen:
        if pid is not None:
            by_pid.setdefault(pid, Counter())[host] += 1
    spliced = {
        (host, pid)
        for pid, names in by_pid.items()
        if len(names) > 1
        for host in names
        if host not in warned and _spliced(host, names)
    }
    hosts: dict[str, None] = {}
    for host, pid in seen:
        if host not in hosts and (host, pid) not in spliced:
            hosts[host] = None
    return list(hosts)


SPLICE_TAIL_CHARS = 2
"""The least of a host name's end a spliced name keeps (a name ending in one shared character,
"node11" beside "node1", is no splice of it)."""
SPLICE_MAX_LINES = 2
"""The most lines a spliced name is seen on: a splice is an accident of two writes, a host's own
name is on every line its processes print."""


def _spliced(host: str, names: Counter[str]) -> bool:
    """Whether ``host``, seen on a line or two of a pid whose lines mostly name another host, is
    that name's end glued after the start of another name's line: several processes writing one
    terminal or file at once cut each other's lines ("x3006c0s25b0x3006c0s25b0n0", "25b0n0",
    "x3006c0sn0" for x3006c0s25b0n0, a Polaris job's log in tests/data). Two hosts whose
    processes share a pid (containers) are each on many lines, and neither is the other's end
    after another name's start."""
    usual, count = names.most_common(1)[0]
    if usual == host or names[host] > SPLICE_MAX_LINES or names[host] >= count:
        return False
    others = [name for name in names if name != host]
    for cut in range(len(host) - SPLICE_TAIL_CHARS + 1):
        head, tail = host[:cut], host[cut:]
        if usual.endswith(tail) and any(name.startswith(head) for name in others):
            return True
    return False


# the prefix at a line's start or after a launcher's tag, not glued to other output ("NCCL
# version 2.7.8+cuda10.2workergpu22:1810803:..." names no host "cuda10.2workergpu22"); a WARN
# line has NCCL's file:line between the device and "NCCL" (see _NCCL_WARN_RE)
# (a host of digits only stands at its line's start alone: "180:44749:44815 [1] NCCL INFO ...";
# after a bracket or a space digits are the tail of a name another process's output overwrote,
# "[15]23:83:2526 [0] ...", or of a time stamp)
_NCCL_DEBUG_HOST_RE = re.compile(
    r"(?:^|[\s|\]>])(?P<host>(?!(?<=[\s|\]>])\d+ ?:)[\w.-]+|<[\w .-]+>) ?:(?:(?P<pid>\d+):\d+|X{2,}(?::X{2,})?) \[\d+\] "
    # the file (or a net plugin's C function signature, aws-ofi-nccl's
    # "int nccl_net_ofi_create_plugin(nccl_net_ofi_plugin_t**)") and line
    r"(?:(?:\S+|(?:[\w:*&]+ ){1,3}[\w:*&~]+\([^()\n]*\)):\d+ (?:\(\w+\) )?)?(?:NCCL |(?:INFO|WARN) )"
)


def _nccl_comm_ranks(
    lines: list[tuple[int, str, int | None]],
) -> tuple[dict[int, tuple[int, int]], dict[int, str]]:
    """pid → (rank, nranks) and rank → host from each NCCL process's communicator line."""
    by_pid: dict[int, tuple[int, int]] = {}
    hosts: dict[int, str] = {}
    for _, line, _ in lines:
        if "nranks" in line and (init := _NCCL_INIT_RE.search(line)):
            if pm := _NCCL_PREFIX_RE.search(line):
                rank = int(init.group("rank"))
                by_pid[int(pm.group("pid"))] = (rank, int(init.group("nranks")))
                if hosts.setdefault(rank, pm.group("host")) != pm.group("host"):
                    hosts[rank] = ""  # subgroups number their ranks anew: ambiguous
    return by_pid, {rank: host for rank, host in hosts.items() if host}


def _nccl_net_errors(
    lines: list[tuple[int, str, int | None]],
    report: LogReport,
    by_pid: dict[int, tuple[int, int]],
) -> None:
    """Error completions of NCCL's InfiniBand transport, one per process and peer (a later one
    of the same pair, on another of its connections, kept as a line of it)."""
    seen: dict[tuple[int | None, str], LogEvent] = {}
    for index, (no, line, tagged) in enumerate(lines):
        if line.rstrip().endswith(("NET/IB:", "NET/IB :")) and index + 1 < len(lines):
            # a WARN whose text a terminal or page wrapped after "NET/IB:": the completion (and
            # the GIDs and HCA of a newer NCCL) on the lines under it
            tail = [text.strip() for _, text, _ in lines[index + 1 : index + 3]]
            if tail[0].startswith("Got completion "):
                more = tail[1] if len(tail) > 1 and tail[1].startswith("localGid") else ""
                line = f"{line.rstrip()} {tail[0]} {more}".rstrip()
        if "Got completion " not in line or not (m := _IB_COMPLETION_RE.search(line)):
            continue
        if index and lines[index - 1][1].strip() == "Last error:":
            continue  # torch quoting NCCL's last WARN under its own error: that failure's event
        prefix = _NCCL_PREFIX_RE.search(line[: m.start()])
        pid = int(prefix.group("pid")) if prefix else None
        if (again := seen.get((pid, m.group("peer")))) is not None:
            again.repeated_lines = [*(again.repeated_lines or []), no]
            continue
        status = int(m.group("status") or m.group("error"))
        name = m.group("name") or (
            IBV_WC_STATUS[status] if status < len(IBV_WC_STATUS) else "unknown"
        )
        ev = LogEvent(
            kind="nccl_net_error",
            line=no,
            message=line.strip()[:400],
            code=str(status),
            code_name=name,
            rank=tagged,
            remote_ip=m.group("peer"),
            port=int(m.group("port")) if m.group("port") else None,
            pid=pid,
            library="NCCL",
            exception_type=f"hca {m.group('hca')}" if m.group("hca") else None,
        )
        if prefix:
            ev.host, ev.device = prefix.group("host"), int(prefix.group("dev"))
        if pid is not None and pid in by_pid:
            ev.rank, ev.rank_size = by_pid[pid]
        seen[(pid, m.group("peer"))] = ev
        report.events.append(ev)
    # a process whose own init line is not in the file: the communicator size every other
    # process of the log names, when they all name one
    sizes = {nranks for _, nranks in by_pid.values()}
    if len(sizes) == 1:
        for ev in report.events:
            if ev.kind == "nccl_net_error" and ev.rank_size is None:
                ev.rank_size = next(iter(sizes))


# NCCL's WARN lines (src/debug.cc): "host:pid:tid [cudaDev] file:line [(func)] NCCL WARN text",
# the level NCCL prints its errors at (RCCL the same, its file paths long). A net plugin may print
# its function's full signature where the file is (aws-ofi-nccl: "int nccl_net_ofi_create_plugin(
# nccl_net_ofi_plugin_t**):208 NCCL WARN ..."), and since NCCL 2.26 a WARN line starts with the time
# by default (NCCL_DEBUG_TIMESTAMP_LEVELS=WARN, NCCL_DEBUG_TIMESTAMP_FORMAT "[%F %T] ", NCCL's env
# docs): "[2026-01-02 10:24:27] host:pid:tid [2] ...", so the prefix is found wherever it starts.
# (NCCL 2.0-2.2 printed no "NCCL" before the level: "host:454:484 [0] include/socket.h:185 WARN
# Call to connect failed : Connection refused"; a copy may mask the pid and tid:
# "host-01.example.com:XXXXXX [5] ibvwrap.c:262 NCCL WARN ...")
MAX_CUDA_DEVICE = 1023
"""The highest device number a WARN line's "[cudaDev]" is read as; a larger one is no GPU's."""
_NCCL_WARN_RE = re.compile(
    # (a copy that turned the source place's colon into a space keeps "NCCL WARN": "[3]
    # include/socket.h 398 NCCL WARN Call to write failed : Connection reset by peer.")
    r"(?<![\w.:-])(?P<host>[\w.-]+) ?(?::(?P<pid>\d+):\d+|:X{2,}(?::X{2,})?)? \[(?P<dev>\d+)\] "
    r"(?:.+?:\d+ (?:\(\w+\) )?(?:NCCL )?|\S+\.(?:cc|cu|h|cpp) \d+ NCCL )WARN (?P<text>.+)$"
    # a process whose host name NCCL found empty prints ":pid:tid [dev] ..."
    r"|(?:^|\s):(?P<pid2>\d+):\d+ \[(?P<dev2>\d+)\] .+?:\d+ (?:\(\w+\) )?NCCL WARN (?P<text2>.+)$"
    # a fork that brackets each field (ACCL's build of NCCL, OpenRLHF issue 795):
    # "[host][pid:tid][dev][init.cc:1815] NCCL WARN init.cc:1815 -> 5"
    r"|\[(?P<host3>[\w.-]+)\]\[(?P<pid3>\d+):\d+\]\[(?P<dev3>\d+)\]\[[^\]]+:\d+\] "
    r"NCCL WARN (?P<text3>.+)$"
    # a logger that brackets the place and the process, no device: "[misc/socket.cc:586]
    # [s12gn3064:pid=3942408] NCCL WARN socketPollConnect ..."
    r"|\[[\w/.-]+:\d+\] \[(?P<host4>[\w.-]+):pid=(?P<pid4>\d+)\] NCCL WARN (?P<text4>.+)$"
)
# that logger's rank before it: "[0604/1024][2025-02-16 22:31:34,422] [misc/socket.cc:586] ..."
_WARN_LOGGER_RANK_RE = re.compile(r"\[(?P<rank>\d{1,6})/(?P<size>\d{1,6})\]\[\d{4}-\d\d-\d\d ")
# a copy that lost the "host:pid:tid [dev] " prefix keeps "func:line NCCL WARN text", or only
# "NCCL WARN text" at the start of its line; one that lost only "host:pid:tid" keeps the device
# ("[0] misc/socket.cc:71 NCCL WARN ...")
# (NCCL's user guide writes the line number as "XXX": "transport/p2p.cc:XXX NCCL WARN Cuda
# failure 800 'operation not permitted'")
_NCCL_WARN_BARE_RE = re.compile(
    r"(?:^\s*(?:\[(?P<dev>\d+)\] )?(?:\S+:(?:\d+|X{2,}) (?:\(\w+\) )?)?|\S+:\d+ (?:\(\w+\) )?)"
    r"NCCL WARN (?P<text>.+)$"
    # NCCL 1.x: "WARN src/reduce.cu:126 Cuda failure 'invalid resource handle'" (its sources)
    r"|^\s*WARN (?P<text2>(?:src|include)/\S+:\d+ .+)$"
)
_CUDA_FAILURE_RE = re.compile(r"Cuda failure (?:(?P<code>\d+) )?'(?P<what>[^']+)'")
# NCCL prints a socket address as "host<port>" ("remote peer node02<35187>", "send to
# 10.44.137.149<52905>"); an IPv6 link-local one with its interface's zone
# ("fe80::966d:ae03:a2:8cf0%ib1<17943>": the address, reached through ib1)
_REMOTE_PEER_RE = re.compile(r"(?P<peer>[\w.:-]+?)(?:%(?P<zone>[\w.-]+))?<(?P<port>\d+)>")
_PEER_RANK_RE = re.compile(r"\b(?:tpRank|from rank) (\d+)")
# A socket NCCL used that the other end dropped (misc/socket.cc: "Net : Call to recv from
# HOST<port> failed : Broken pipe" / "Connection reset by peer", "socketProgress: Connection
# closed by remote peer HOST<port>"), and the proxy call that failed with it (proxy.cc:
# "[Proxy Service N] Failed to execute operation Connect from rank N, retcode 6").
_PEER_GONE_RE = re.compile(
    # (NCCL 2.7-2.11 name no address: "Net : Call to recv failed : Connection reset by peer")
    r"Call to \w+ (?:(?:from|to) \S+ )?failed\s*: (?P<why>Broken pipe|Connection reset by peer)"
    r"|Connection closed by remote peer"
)
# NCCL's bootstrap root (bootstrap.cc): "Bootstrap Root : rank %d of %d ranks has already checked
# in": a second process registered a rank another had taken
_BOOTSTRAP_DUP_RE = re.compile(r"Bootstrap Root : rank (\d+) of (\d+) ranks has already checked in")
_PROXY_OP_FAILED_RE = re.compile(
    r"\[Proxy Service \d+\] Failed to execute operation (?P<op>\w+) from rank (?P<rank>\d+), "
    r"retcode (?P<rc>\d+)"
)
_WARN_RANK_RE = re.compile(r"\bcomm 0x[0-9a-f]+ rank (\d+)\b")


# WARN lines of a start-up fallback, not a failure: an NCCL without libibverbs (older releases
# warned "Failed to open libibverbs.so[.1]", later ones say it at INFO: NVIDIA/nccl ed27dc32)
# goes on with its socket transport
# (RCCL's start-up advice warns too: 'Missing "amd_iommu=on" from kernel command line which can
# lead to system instablity or hang!', 'Missing "HSA_FORCE_FINE_GRAIN_PCIE=1" from environment')
# (Google's FastSocket net plugin, net_fastsocket.cc: it warns "Cannot get incoming CPU." when
# getsockopt(SO_INCOMING_CPU) fails and goes on with CPU 0, "Maximum retry reached for
# accept|connect N." when no socket of a matching flow queue came, then takes the first free one,
# "Cannot enable socket busy poll", "Cannot set socket TCP_NOTSENT_LOWAT|SO_SNDBUF", "Cannot set
# socket to SO_ZEROCOPY" when a setsockopt fails, and "Turning off TX zero copy", each going on
# without the option)
_NCCL_FALLBACK_WARN_RE = re.compile(
    r"^(?:NET/IB ?: ?)?Failed to open libibverbs\.so"
    r"|^Missing \S+ from (?:kernel command line|environment) which can lead to"
    r"|^Cannot get incoming CPU\.|^Maximum retry reached for (?:accept|connect) \d+\."
    r"|^Cannot enable socket busy poll\s*$|^Cannot set socket (?:TCP_NOTSENT_LOWAT|SO_SNDBUF)\s*$"
    r"|^Cannot set socket to SO_ZEROCOPY\s*$|^Turning off TX zero copy\s*$"
    # graph/search.cc: no channel found for a pattern: one channel over the slowest path (SYS)
    r"|^Could not find a path for pattern \d+, falling back to simple order"
    # net_ib/init.cc: an HCA ibv_open_device refused, skipped ("continue") for the others;
    # transport.cc: CollNet (SHARP) could not be set up, NCCL goes on point-to-point
    r"|^NET/IB ?: ?Unable to open device \S+\s*$"
    # (aws-ofi-nccl's failed start is read as one set where its process went on:
    # ``_ofi_init_fallbacks``)
    r"|^Cannot initialize CollNet, using point-to-point network instead"
    # graph/tuning.cc: NCCL_ALGO asked for CollNet where it cannot run; NCCL ignores the setting
    r"|^CollNet is not supported or fails to initialize, ignoring NCCL_ALGO="
    # SCCL's and MSCCL's XML algorithm loaders (graph/topo.cc of SCCL's NCCL fork, msccl's
    # mscclGetAllAlgoFromConfigAndSetInfo): an algorithm file that does not load, or one past
    # their table's size, is skipped with this WARN and the init goes on (ncclSuccess) with
    # NCCL's own algorithms
    r"|^M?SCCL: algorithm \S+ failed to initialize\. Will be ignored\.\s*$"
    r"|^M?SCCL: too many algorithms \(\d+\) specified in environment variable \w+\. "
    r"The rest will be ignored\."
)
# aws-ofi-nccl's failed start, a set of WARN lines for one event: nccl_net_ofi_create_plugin
# warns of the step that failed ("Failed to initialize sendrecv protocol", "... rdma protocol",
# "Creating new endpoint for domain ... failed", 1.x's ofi_init "Only EFA provider is supported"),
# then at its exit PACKAGE_NAME " initialization failed", then nccl_net_ofi_init "Initializing
# plugin failed" (aws/aws-ofi-nccl src/nccl_ofi_net.cpp and src/nccl_ofi_api.cpp, commit
# 2daf7d303aa139a03140aa530957d10521e4478d). NCCL then disables the plugin and tries the next
# one, its internal IB or socket transport (NVIDIA/nccl src/plugin/net.cc ncclNetPluginInit:
# "Failed to initialize NET plugin", commit 5067397c2676d5aed50042fc39e5c8ee96eb0027): whether
# that carried the job only the log's later lines say.
_OFI_INIT_FAILED_RE = re.compile(
    r"^NET/OFI (?:aws-ofi-nccl initialization failed|Initializing plugin failed"
    r"|Only EFA provider is supported)\s*$"
)
# verl's console logger, a line a training step (Jiayi-Pan/TinyZero verl/utils/logger/
# aggregate_logger.py concat_dict_to_str, commit 95df88f2dcb05f33bd18da546531b52d0954c18b:
# "step:0 - critic/kl:0.000 - ...")
_VERL_STEP_RE = re.compile(r"(?<![\w/])step:\d+ - [\w/]+:-?\d")


def _ofi_init_fallbacks(lines: list[tuple[int, str, int | None]], events: list[LogEvent]) -> None:
    """Each process's aws-ofi-nccl WARNs of a failed start (``_OFI_INIT_FAILED_RE``), read as
    one set: a start-up fallback, all of its NET/OFI lines, only where the same process then
    completed its communicator (``Init COMPLETE``) or the run logged a training step after the
    set; otherwise none of them (a log that ends there is a hang). The transport NCCL names
    next ("NET/Socket : Using ...") is not enough: a job can still hang connecting over it."""
    ends: dict[NcclProcess, int] = {}  # each process's set's last line
    for ev in events:
        if ev.kind == "nccl_warning" and _OFI_INIT_FAILED_RE.search(ev.message):
            key = (ev.host or "", ev.pid or -1, ev.device if ev.device is not None else -1)
            ends[key] = max(ends.get(key, 0), ev.line)
    if not ends:
        return
    went_on: set[NcclProcess] = set()
    last_step = 0  # the last training step's line after a set
    first_end = min(ends.values())
    for no, line, _ in lines:
        if no <= first_end:
            continue
        if "step" in line and (
            ("step:" in line and _VERL_STEP_RE.search(line)) or _loss_line(line)
        ):
            last_step = no
        if " COMPLETE" not in line or not (pm := _NCCL_PREFIX_RE.search(line)):
            continue
        key = (pm.group("host"), int(pm.group("pid")), int(pm.group("dev")))
        if key not in ends and ("", key[1], key[2]) in ends:
            key = ("", key[1], key[2])  # the set printed without its host
        if (
            key in ends
            and no > ends[key]
            and (m := _NCCL_LIFECYCLE_RE.search(line))
            and m.group("what") == "Init"
        ):
            went_on.add(key)
    for ev in events:
        key = (ev.host or "", ev.pid or -1, ev.device if ev.device is not None else -1)
        if (
            key in ends
            and ev.kind == "nccl_warning"
            and ev.line <= ends[key]
            and ev.message.startswith("NET/OFI ")
            and (key in went_on or last_step > ends[key])
        ):
            ev.exception_type = STARTUP_FALLBACK


BESIDE_KINDS = frozenset({"firmware_memory_error"})
"""Failures of the machine beside a program's log (the firmware's memory error records): held
aside like the notices while the readings below look for the log's own failure, then kept."""
NOTICE_KINDS = frozenset(
    {
        "pcie_aer_corrected_few",
        "npu_driver_startup",
        "pg_settings",
        "store_barrier_wait",
        "nccl_socket_network",
        "pg_timeout_warning",
        "gloo_loopback",
        "pg_debug_dump",
        "pg_dump_unfinished",
        "nccl_no_gdr",
        "nccl_nvlink_asymmetric",
        "nccl_ib_notice",
        "run_success",
        "gone_past",
    }
)
"""Event kinds that say how a job was set up or what it warned of, not that a rank failed: they
never stand in for a failure (the fall-back readings still run) nor start a rank's timeline."""

# NCCL's socket layer gives up on a connect (NCCL src/misc/socket.cc): a refused or timed-out
# connect() is retried until RETRY_REFUSED_TIMES / RETRY_TIMEDOUT_TIMES ("socketStartConnect:
# exceeded retries (N)", "... exceeded timeouts (N)"); any other error at once: "socketStartConnect:
# Connect to ADDR failed : <strerror>", "socketPollConnect: Connect to ADDR returned N(<strerror>)
# errno M(<strerror>)" (No route to host, Network is unreachable, Software caused connection abort)
_SOCKET_CONNECT_WARN_RE = re.compile(
    r"(?P<call>socket(?:Start|Poll)Connect): (?:Connect to \S+ (?:failed\s*: (?P<why>[^\n]+)"
    r"|returned \d+\((?P<why2>[^)]+)\))|exceeded (?P<what>retries|timeouts)\b)"
)
# NCCL's IB transport thread warns of each asynchronous event of its HCA (net_ib.cc's
# ncclIbAsyncThreadMain: "NET/IB : Got async event : %s" to 2.20, "NET/IB : %s:%d Got async event
# : %s" with the HCA and port from 2.21, "Got async error event: %s" for the events it takes as
# non-fatal in 2.23-2.28.3, "Got non-fatal async event: %s(%d)" after, and "async fatal event[ on
# CQ|QP|SRQ ...]: %s" from 2.23 on), the event in libibverbs' words (ibv_event_type_str,
# libibverbs/verbs.c).
_IB_ASYNC_EVENT_RE = re.compile(
    r"NET/IB ?: ?(?:(?P<hca>[\w.+-]+):(?P<port>\d+) )?(?:Got (?:non-fatal )?async (?:error )?event ?: ?"
    r"(?P<event>[A-Za-z_]+(?: [A-Za-z_]+)*)(?:\(\d+\))?\s*$|async fatal event(?P<on> on \w+)?[^:]*: "
    r"(?P<fatal>\S[^\n]*))"
)
IB_FATAL_EVENTS = {
    "local catastrophic error": "the HCA failed (IBV_EVENT_DEVICE_FATAL): every connection "
    "through it is lost until the adapter is reset",
    "CQ error": "a completion queue overran (IBV_EVENT_CQ_ERR)",
    "local work queue catastrophic error": "a queue pair failed (IBV_EVENT_QP_FATAL)",
    "invalid request local work queue error": "a queue pair got a request it could not take "
    "(IBV_EVENT_QP_REQ_ERR)",
    "local access violation work queue error": "a queue pair's memory access was refused "
    "(IBV_EVENT_QP_ACCESS_ERR)",
    "SRQ catastrophic error": "a shared receive queue failed (IBV_EVENT_SRQ_ERR)",
    "WQ fatal": "a work queue failed (IBV_EVENT_WQ_FATAL)",
}
"""The IB async events NCCL takes as fatal (from 2.23 its "async fatal event" ones: the device,
a CQ, a QP), by libibverbs' name, with what each means (ibv_get_async_event(3))."""
IB_PORT_EVENTS = {
    "port error": "the port left the Active state (IBV_EVENT_PORT_ERR): its link went down",
    "path migration request error": "the alternate path could not be taken "
    "(IBV_EVENT_PATH_MIG_ERR)",
}
"""The events of a port's link NCCL goes on past (its non-fatal ones): the transfers over that
port fail while it stays down; "port active" (IBV_EVENT_PORT_ACTIVE) says it came back."""
IB_PORT_ACTIVE = "port active"


def _ib_async_event(text: str) -> tuple[str, str, str | None] | None:
    """(event, what it means with the HCA and port when named, the HCA:port) of an IB async
    event WARN (a fault, a port's link event, or a notice of how the fabric changed); None for
    any other text."""
    m = _IB_ASYNC_EVENT_RE.search(text)
    if m is None:
        return None
    event = (m.group("event") or m.group("fatal") or "").strip()
    meaning = IB_FATAL_EVENTS.get(event) or IB_PORT_EVENTS.get(event)
    if event == IB_PORT_ACTIVE:
        meaning = "the port is Active again (IBV_EVENT_PORT_ACTIVE)"
    elif meaning is None and m.group("fatal") is None:
        meaning = "a notice of how the fabric changed, no fault"
    port = f"{m.group('hca')}:{m.group('port')}" if m.group("hca") else None
    where = f"{m.group('hca')} port {m.group('port')}: " if port else ""
    return event, where + (meaning or f"NCCL's fatal async event{m.group('on') or ''}"), port


# NCCL's ncclCommEnsureReady (src/init.cc): a call on a communicator whose async state is not
# ncclSuccess; 2.14-2.18 warn for any such state (an earlier failure), later releases only for
# ncclInProgress (a non-blocking operation not finished)
_NOT_READY_WARN = "Attempt to use communicator before the previous operation returned ncclSuccess"
# the proxy's service thread when a local rank's process closed its socket (src/proxy.cc, at
# INFO): "[Service thread] Connection closed by localRank 3"
_CLOSED_BY_LOCAL_RANK_RE = re.compile(r"\[Service thread\] Connection closed by localRank (\d+)")


def _closed_local_ranks(lines: list[tuple[int, str, int | None]], ev: LogEvent) -> list[int]:
    """The local ranks whose connections the proxy of ``ev``'s process (its host and pid, both
    named) saw closed before ``ev``'s line (after it, the closes are the teardown)."""
    closed: list[int] = []
    if ev.pid is None:
        return closed
    for no, line, _ in lines:
        if no >= ev.line:
            break
        if "Connection closed by localRank" not in line:
            continue
        if (m := _CLOSED_BY_LOCAL_RANK_RE.search(line)) is None:
            continue
        prefix = _NCCL_PREFIX_RE.search(line)
        if prefix is None or int(prefix.group("pid")) != ev.pid or prefix.group("host") != ev.host:
            continue
        if (rank := int(m.group(1))) not in closed:
            closed.append(rank)
    return closed


STARTUP_FALLBACK = "start-up fallback"
"""``exception_type`` of an NCCL warning that only says what NCCL went on without, or that its
process went on past (``_warnings_gone_past``)."""


def _nccl_warnings(
    lines: list[tuple[int, str, int | None]],
    report: LogReport,
    by_pid: dict[int, tuple[int, int]],
) -> None:
    """NCCL's WARN lines (errors) that no more specific event read, one per process and text:
    the CUDA failure, the peer that closed a socket, the rank a proxy call was for."""
    # (the lines of events read already, and those their repeats stand on)
    taken = {e.line for e in report.events} | {
        n for e in report.events for n in e.repeated_lines or ()
    }
    seen: dict[tuple[str | None, int | None, str | None, str], LogEvent] = {}
    last_said: dict[tuple[str | None, int | None, str | None], LogEvent] = {}  # by process
    events: list[LogEvent] = []
    for no, line, tagged in lines:
        if ("WARN" not in line or no in taken) or (
            "NCCL WARN" not in line and "] " not in line and not line.lstrip().startswith("WARN ")
        ):
            continue
        if not (m := _NCCL_WARN_RE.search(line) or _NCCL_WARN_BARE_RE.search(line)):
            continue
        found = m.groupdict()
        if found.get("pid2"):  # the prefix without a host
            found.update(pid=found["pid2"], dev=found["dev2"], text=found["text2"])
        elif found.get("pid3"):  # the bracketed prefix
            found.update(
                host=found["host3"], pid=found["pid3"], dev=found["dev3"], text=found["text3"]
            )
        elif found.get("pid4"):  # the logger's bracketed place and process
            found.update(host=found["host4"], pid=found["pid4"], dev=None, text=found["text4"])
            if lr := _WARN_LOGGER_RANK_RE.search(line):
                tagged = int(lr.group("rank"))
        elif found.get("text2"):  # NCCL 1.x
            found.update(text=found["text2"])
        pid = int(found["pid"]) if found.get("pid") else None  # a prefix without pid:tid
        if found.get("host") and str(found["host"]).isdigit():
            # a host of digits only is the tail of a name another process's output overwrote
            # ("[15]23:83:2526 [0] ..." among "[15]worker-23:83:2526 [0] ..." lines): unknown
            found["host"] = None
        text = str(found["text"]).strip()
        garbled = None
        if found.get("dev") and int(str(found["dev"])) > MAX_CUDA_DEVICE:
            # no CUDA device number: the field read as the CUDA driver shut down ("[909195890]
            # ... Cuda failure 'driver shutting down'", another number on each of its lines)
            garbled, found["dev"] = found["dev"], None
        # one a process (host and pid: containers and other hosts reuse pids), device and
        # text: a process that drives several GPUs (TensorFlow's) warns once for each
        # (its whole text, addresses aside: a WARN to another peer or port is another one)
        key = (found.get("host"), pid, found.get("dev"), re.sub(r"0x[0-9a-f]+", "", text))
        if (again := seen.get(key)) is not None:
            again.repeated_lines = [*(again.repeated_lines or []), no]
            last_said[key[:3]] = again
            continue
        ev = LogEvent(
            kind="nccl_warning",
            line=no,
            message=text[:300],
            rank=tagged,
            host=found.get("host"),
            pid=pid,
            device=int(found["dev"]) if found.get("dev") else None,
            library="NCCL",
        )
        if garbled is not None:
            ev.message = f"{text} (its device field, [{garbled}], is no device number)"[:300]
        if cuda := _CUDA_FAILURE_RE.search(text):
            ev.code, ev.code_name = cuda.group("code"), cuda.group("what")
        if peer := _REMOTE_PEER_RE.search(text):
            ev.remote_ip, ev.port = peer.group("peer"), int(peer.group("port"))
        if pr := _PEER_RANK_RE.search(text):
            ev.remote_rank = int(pr.group(1))
        if wr := _WARN_RANK_RE.search(text):
            ev.rank = int(wr.group(1))
        if _NCCL_FALLBACK_WARN_RE.search(text):
            ev.exception_type = STARTUP_FALLBACK
            before = last_said.get(key[:3])
            if (
                text.endswith("Will be ignored.")
                and before is not None
                and before.exception_type is None
                and before.message.startswith(text.split(":", 1)[0] + ":")
            ):
                # the (M)SCCL loader's reason for the algorithm it then skipped (its XML's
                # ngpus against the communicator's ...): part of the same fallback
                before.exception_type = STARTUP_FALLBACK
        elif "async" in text and (ib := _ib_async_event(text)):
            ev.code_name, ev.exception_type, ev.call = ib
            if ib[0] in IB_PORT_EVENTS or ib[0] == IB_PORT_ACTIVE:
                ev.kind = "nccl_ib_port_event"
            elif ib[0] in IB_FATAL_EVENTS or "async fatal event" in text:
                ev.kind = "nccl_ib_fatal_event"
            else:  # LID, P_Key, SM or GID table change, client reregistration ...
                ev.kind = "nccl_ib_notice"
        elif gone := _PEER_GONE_RE.search(text):
            why = f" ({gone.group('why')})" if gone.group("why") else ""
            ev.exception_type = (
                f"the other end{f' {ev.remote_ip}' if ev.remote_ip else ''} dropped the "
                f"connection{why}: its process exited, or the network between failed"
            )
        elif dup := _BOOTSTRAP_DUP_RE.search(text):
            ev.kind, ev.rank, ev.rank_size = "duplicate_rank", int(dup.group(1)), int(dup.group(2))
            ev.exception_type = (
                f"global rank {dup.group(1)} of {dup.group(2)} checked in twice at NCCL's "
                "bootstrap root (two processes took that rank)"
            )
        elif proxy := _PROXY_OP_FAILED_RE.search(text):
            rc = int(proxy.group("rc"))
            name = NCCL_RESULT_NAMES.get(rc)
            ev.exception_type = (
                f"NCCL's proxy could not {proxy.group('op')} for rank {proxy.group('rank')} "
                f"(result {rc}{f' = {name}' if name else ''})"
            )
        elif sc := _SOCKET_CONNECT_WARN_RE.match(text):
            why = sc.group("why") or sc.group("why2") or f"{sc.group('what')} exceeded"
            ev.call, ev.exception_type = sc.group("call"), f"socket connect failed: {why.strip()}"
        elif "No space left on device" in text and ("shm" in text or "posix_fallocate" in text):
            # NCCL's shared memory segments are POSIX shared memory, /dev/shm on Linux (its
            # include/shm.h, later src/misc/shmutils.cc: shm_open or a "/dev/shm/nccl-XXXXXX"
            # file, then posix_fallocate): a full or small /dev/shm (a container's 64 MB default)
            ev.exception_type = (
                "NCCL could not allocate its shared memory segment in /dev/shm (No space left on "
                "device): /dev/shm is full or too small (a container's 64 MB unless started with "
                "--shm-size or --ipc=host)"
            )
        elif _NOT_READY_WARN in text:
            ev.exception_type = (
                "a consequence: the communicator's earlier operation had failed or not finished "
                "(NCCL's ncclCommEnsureReady), so the cause is earlier"
                + (
                    f"; local rank(s) {', '.join(map(str, closed))} closed their connection to "
                    "this process before this warning: their own logs hold it"
                    if (closed := _closed_local_ranks(lines, ev))
                    else ""
                )
            )
        seen[key] = last_said[key[:3]] = ev
        events.append(ev)
    if any(ev.message.startswith("NET/OFI ") for ev in events):
        _ofi_init_fallbacks(lines, events)
    for ev in events:
        if ev.pid is not None and ev.pid in by_pid:
            ev.rank, ev.rank_size = by_pid[ev.pid]
    _passed_up(lines, events)
    report.events.extend(_port_flaps(events))


def _port_flaps(events: list[LogEvent]) -> list[LogEvent]:
    """The events with each port's "port active" folded into the port error before it on the
    same host and HCA port (a flap: the link went down and came back), the processes of a host
    that report one port's error read as one, and an active port no event of its own; a port
    error never followed by one stays down in the log."""
    kept: list[LogEvent] = []
    down: dict[tuple[str | None, str | int | None], LogEvent] = {}
    for ev in events:
        if ev.kind != "nccl_ib_port_event":
            kept.append(ev)
            continue
        # every process of a host opens every HCA and hears each port's event; a release that
        # names no port is read per process
        key = (ev.host, ev.call if ev.call else ev.pid)
        if ev.code_name == IB_PORT_ACTIVE:
            if (before := down.pop(key, None)) is not None:
                before.exception_type = (
                    f"{before.exception_type}; Active again at line {ev.line} (a flap)"
                )
            continue
        if key in down:
            continue  # the same port's next report before it came back (another process's)
        down[key] = ev
        kept.append(ev)
    return kept


WARN_RESULT_LINES = 6
"""How far under a process's WARN (and under each step of the trace after it) the next step of
NCCLCHECK's trace must stand to be that WARN's result (NCCL prints it at each return, among
other threads' lines): a result further down is another failure's."""


NcclProcess = tuple[str, int, int]
"""An NCCL process's thread of work as its prefix names it: host, pid and device (containers and
other hosts reuse pids; a process driving several GPUs traces each device's failure apart)."""
_ASYNC_EVENT_WARN_RE = re.compile(r"\bGot async event\b")
"""The IB transport's thread reporting an event of its port ("NET/IB : mlx5_0:1 Got async event
: GID table change"): a notice of its own, never the start of a result a call passed up."""
PASSED_UP_FILE_CHARS = 40
"""A file of NCCLCHECK's trace longer than this (a build tree's absolute path) is named by its
base name: the finding names where the result passed, not where NCCL was built."""


def _passed_up(lines: list[tuple[int, str, int | None]], events: list[LogEvent]) -> None:
    """The result NCCL passed up the stack after each process's first WARN (NCCLCHECK's INFO
    trace ``bootstrap.cc:256 -> 6`` of the same host, pid and device: another host's process of
    the same pid, or another device's thread, traces its own failure), said after the WARN's
    text: the WARN says why, the result what the caller got (6: ncclRemoteError) and the chain
    where it failed."""
    names = NCCL_RESULT_NAMES
    # each process's WARNs in order: a trace belongs to the WARN right above it (a process that
    # went on past a first WARN, "Failed to open libibverbs", then failed on a later one)
    warns: dict[NcclProcess, list[LogEvent]] = {}
    for ev in sorted(events, key=lambda e: e.line):
        if (
            ev.pid is not None
            and ev.device is not None
            and not _ASYNC_EVENT_WARN_RE.search(ev.message)
        ):
            warns.setdefault((ev.host or "", ev.pid, ev.device), []).append(ev)
    first: dict[NcclProcess, LogEvent] = {}  # the WARN whose trace was met first
    last: dict[NcclProcess, int] = {}  # the trace's last step so far
    chains: dict[NcclProcess, list[tuple[str, int]]] = {}
    for no, line, _ in lines:
        if " -> " not in line or not (m := _NCCL_RETURN_RE.search(line)):
            continue
        if not (pm := _NCCL_PREFIX_RE.search(line[: m.start()])):
            continue
        key = (pm.group("host"), int(pm.group("pid")), int(pm.group("dev")))
        if key not in warns and ("", key[1], key[2]) in warns:
            key = ("", key[1], key[2])  # a WARN printed without its host
        if key not in warns:
            continue
        if key not in first:
            above = [ev for ev in warns[key] if ev.line < no]
            if not above:
                continue
            first[key], last[key] = above[-1], above[-1].line
        if 0 < no - last[key] <= WARN_RESULT_LINES:
            last[key] = no
            where = m.group("where").rsplit(":", 1)[0]
            if len(where) > PASSED_UP_FILE_CHARS:
                where = where.rsplit("/", 1)[-1]
            chains.setdefault(key, []).append((where, int(m.group("res"))))
    for key, chain in chains.items():
        result = chain[0][1]
        if result not in names:
            continue
        files = list(dict.fromkeys(where for where, _ in chain))
        first[key].message = (
            f"{first[key].message} (then {result} = {names[result]} passed up through "
            f"{', '.join(files[:4])}{', ...' if len(files) > 4 else ''})"
        )


# NCCL's word that a communicator was set up, destroyed or aborted: "comm 0x.. rank 0 nranks 1 ...
# - Init COMPLETE" (from 2.19 on "ncclCommInitRank comm 0x.. ... - Init COMPLETE"). A failed
# result passed up before it (a socket closed at a healthy job's teardown, NCCL issue-tracker logs
# of successful runs) is no failure of the job (``_nccl_silent_returns``), and a WARN before its
# init one the process went on past (``_warnings_gone_past``).
_NCCL_LIFECYCLE_RE = re.compile(
    r"NCCL INFO (?:\w+ )?comm 0x[0-9a-fA-F]+ .*- (?P<what>Init|Destroy|Abort) COMPLETE"
)


def _warnings_gone_past(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """A log whose only failures are NCCL WARNs, each printed before its process's (and
    device's) first ``Init COMPLETE`` by a process that then destroyed its communicators cleanly
    (``Destroy COMPLETE``, no ``Abort``), warned nowhere after that init and passed no failed
    result up the stack (NCCLCHECK's ``-> N``): its WARNs are what NCCL went on past, the job ran
    and ended as it should (``STARTUP_FALLBACK``)."""
    warned = [e for e in report.events if e.kind == "nccl_warning"]
    if not warned or any(
        e.kind != "nccl_warning" and e.kind not in NOTICE_KINDS for e in report.events
    ):
        return  # another failure in the log: the WARNs may be its cause
    init: dict[NcclProcess, int] = {}
    ended: set[NcclProcess] = set()  # destroyed cleanly
    failed: set[NcclProcess] = set()  # aborted, or a result passed up before its init
    last_warn: dict[NcclProcess, int] = {}
    for no, line, _ in lines:
        # (cheap tests first: most lines of a long log are none of these)
        if " WARN " not in line and " -> " not in line and " COMPLETE" not in line:
            continue
        if not (pm := _NCCL_PREFIX_RE.search(line)):
            continue
        key = (pm.group("host"), int(pm.group("pid")), int(pm.group("dev")))
        if " WARN " in line:
            last_warn[key] = no
        elif " -> " in line and _NCCL_RETURN_RE.search(line) and key not in init:
            failed.add(key)
        elif " COMPLETE" in line and (m := _NCCL_LIFECYCLE_RE.search(line)):
            if m.group("what") == "Init":
                init.setdefault(key, no)
            elif m.group("what") == "Destroy":
                ended.add(key)
            else:
                failed.add(key)
    for ev in warned:
        key = (ev.host or "", ev.pid or -1, ev.device if ev.device is not None else -1)
        if (
            ev.exception_type is None
            and ev.code is None
            and key in ended
            and key not in failed
            and last_warn.get(key, 0) < init.get(key, 0)
        ):
            ev.exception_type = STARTUP_FALLBACK


# torch's monitored_barrier (ProcessGroupGloo::monitoredBarrier): a rank other than 0 whose
# send/recv with rank 0 failed raises "Rank 1 successfully reached monitoredBarrier, but received
# errors while waiting for send/recv from rank 0 ... Original exception: <gloo's error>"; rank 0
# raises "Ranks 2, 3 failed to pass monitoredBarrier in 30000 ms" for the ranks that never came.
_MB_PEER_RE = re.compile(
    r"Rank (?P<rank>\d+) successfully reached monitoredBarrier, but received errors while "
    r"waiting for send/recv from rank (?P<root>\d+)"
)
_MB_MISSING_RE = re.compile(
    r"Ranks? (?P<ranks>\d+(?:, ?\d+)*) failed to pass monitoredBarrier in (?P<ms>\d+) ms"
)
# gloo's TCP pair (gloo/transport/tcp/pair.cc): "Connection closed by peer [172.19.2.2]:33177"
_GLOO_CLOSED_RE = re.compile(r"Connection closed by peer \[(?P<ip>[0-9A-Fa-f.:]+)\]:(?P<port>\d+)")
MB_EXCEPTION_WINDOW_LINES = 3
"""How far after a monitored_barrier error its "Original exception" line may stand."""


# A failed NCCL call as its caller reports it, with NCCL's ncclGetErrorString text (NCCL init.cc):
# PyTorch's C10D_NCCL_CHECK (NCCLUtils.hpp) "NCCL error in: ../torch/csrc/distributed/c10d/
# ProcessGroupNCCL.cpp:1691, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL
# version 2.18.1", then "ncclSystemError: ..." and "Last error:" with NCCL's last WARN on the next
# line; nccl-tests' NCCLCHECK (src/common.h) "node01: Test NCCL failure common.cu:1158 'internal
# error - ...'" (older: "NCCL failure common.cu:921 'unhandled system error'").
_NCCL_ERROR_TEXT = r"(?:unhandled|internal error|invalid|remote process|NCCL operation in progress)"
"""How every ncclGetErrorString text below starts (NCCL_RESULTS): a line that only says "NCCL
error: <something else>" is not a failed NCCL call."""
# XLA's NCCL status text carries NCCL's last WARN in its own words: "... failed: unhandled cuda
# error (run with NCCL_DEBUG=INFO for details). Last NCCL warning(error) log entry (may be
# unrelated) 'Cuda failure 2 'out of memory''."
_XLA_LAST_WARN_RE = re.compile(
    r"Last NCCL warning\(error\) log entry \(may be unrelated\) '(?P<warn>[^\n]{1,300}?)'\.?(?:;|\s*$)"
)
_NCCL_CALL_RE = re.compile(
    r"NCCL error in: (?P<where>\S+?:\d+), (?P<what>.+?)(?:, NCCL [Vv]ersion (?P<ver>[\w.+-]+))?\s*$"
    # (a copy that lost the closing quote at the line's end: "... 'invalid usage (run with
    # NCCL_DEBUG=WARN for details)")
    # (the host starts a word: tried inside a long token, it would rescan the token's rest from
    # each of its characters)
    r"|(?:(?<![\w.-])(?P<host>[\w.-]+): )?(?:Test )?NCCL failure (?P<where2>\S+:\d+) '(?P<what2>[^'\n]*)(?:'|\s*$)"
    # the NCCLCHECK macro of NCCL's own examples, copied by many programs (TensorRT-LLM's NCCL
    # plugins among them): printf("Failed, NCCL error %s:%d '%s'\n", __FILE__, __LINE__,
    # ncclGetErrorString(r)); a result code NCCL does not know reads 'unknown result code'
    r"|Failed, NCCL error (?P<where6>\S+:\d+) '(?P<what6>[^']*)'"
    # a caller that names the call it checked (Horovod's NCCLContext::ErrorCheck, and others:
    # op_name + " failed: " + ncclGetErrorString(result)): "ncclAllReduce failed: unhandled cuda
    # error"
    # XLA's NCCL check: "NCCL operation ncclGroupEnd() failed: unhandled cuda error"
    rf"|\b(?P<call7>nccl[A-Z]\w*)(?:\(.*?\))? failed: (?P<what7>{_NCCL_ERROR_TEXT}.*?)\.?\s*$"
    # PaddlePaddle's: "OSError: (External) NCCL error(2), unhandled system error."
    rf"|NCCL error\((?P<num9>\d+)\), (?P<what9>{_NCCL_ERROR_TEXT}.*?)\.?\s*$"
    # ProcessGroupNCCL's own check of a communicator (checkForNCCLErrors): "[Rank 4] found async
    # exception when checking for NCCL errors: NCCL error: remote process exited or there was a
    # network error, NCCL version 2.22.3"
    r"|found async exception when checking for NCCL errors: NCCL error: (?P<what3>.+?)"
    r"(?:, NCCL [Vv]ersion [\w.+-]+)?\s*$"
    # vLLM's and SGLang's own NCCL binding (pynccl_wrapper.py NCCL_CHECK) raises
    # RuntimeError(f"NCCL error: {ncclGetErrorString(result)}"): no file, no version
    rf"|RuntimeError: NCCL error: (?P<what4>{_NCCL_ERROR_TEXT}.*?)\s*$"
    # torch's own NCCL calls outside ProcessGroupNCCL's check (torch/csrc/cuda/nccl.cpp
    # throw_nccl_error): "NCCL Error 2: unhandled system error (run with NCCL_DEBUG=INFO ...)"
    rf"|NCCL Error \d+: (?P<what5>{_NCCL_ERROR_TEXT}.*?)\s*$"
    # HugeCTR's HCTR_LIB_THROW (Logger::do_throw with CUR_SRC_LOC(EXPR)): "Runtime error:
    # unhandled system error", the call on the next line ("ncclGroupEnd() at
    # ResourceManagerCore(.../resource_manager_core.cpp:176)"); "invalid argument" is CUDA's
    # text too, so only a next line that names an NCCL call makes it one (_HUGECTR_CALL_RE)
    rf"|Runtime error: (?P<what10>{_NCCL_ERROR_TEXT}.*?)\s*$"
    # programs that throw "NCCL failure: " + ncclGetErrorString(r) (XGBoost's, ByteDance flux's,
    # RCCL's unit tests), DeepBench's with where and which rank: "what():  NCCL failure:
    # unhandled cuda error in nccl_mpi_all_reduce.cu at line: 86 rank: 0"
    rf"|NCCL [Ff]ailure ?: ?(?P<what11>{_NCCL_ERROR_TEXT}[\w ]*?)(?: in (?P<file11>\S+) at line: "
    r"(?P<ln11>\d+)(?: rank: (?P<rank11>\d+))?)?(?:[.,/]|\s*$)"
    # a glog CHECK on an NCCL result (BytePS's nccl_manager.cc: "[time: F byteps/common/
    # nccl_manager.cc:120] Check failed: r == ncclSuccess NCCL error: unhandled system error")
    rf"|\b[EF] (?P<file12>[\w/.-]+):(?P<ln12>\d+)\] Check failed: .*?NCCL error: "
    rf"(?P<what12>{_NCCL_ERROR_TEXT}[\w ]*?)\s*$"
    # PaddlePaddle's PADDLE_ENFORCE on an NCCL result: "ExternalError:  Nccl error, unhandled cuda
    # error  (at /paddle/paddle/fluid/platform/collective_helper.cc:83)"
    rf"|Nccl error, (?P<what13>{_NCCL_ERROR_TEXT}[\w ]*?)\s*\(at (?P<file13>\S+?):(?P<ln13>\d+)\)"
    # PaddlePaddle 1.x's PADDLE_ENFORCE on an NCCL result, thrown as EnforceNotMet and printed by
    # libstdc++'s terminate handler: "  what():  unhandled cuda error at [.../paddle/fluid/
    # platform/nccl_helper.h:70]" (a file of Paddle's NCCL helpers names the call NCCL's)
    rf"|\bwhat\(\):\s+(?P<what19>{_NCCL_ERROR_TEXT}[\w ]*?) at \[(?P<file19>[^\]\n]*nccl[^\]\n]*?):"
    r"(?P<ln19>\d+)\]"
    # torch's checkForNCCLErrors text whose start a copy cut ("...ith exception: NCCL error:
    # remote process exited or there was a network error, NCCL version 2.20.5"): the version
    # after it says it is NCCL's result text
    rf"|\bNCCL error: (?P<what14>{_NCCL_ERROR_TEXT}[^,\n]*?), NCCL [Vv]ersion [\w.+-]+"
    # CuPy's NCCL binding (cupy_backends/cuda/libs/nccl.pyx check_status): "cupy_backends.cuda.
    # libs.nccl.NcclError: NCCL_ERROR_INTERNAL_ERROR: internal error - please report ..."; the
    # call is the traceback's frame above it ("in ...nccl.NcclCommunicator.recv")
    rf"|\bNcclError: NCCL_ERROR_\w+: (?P<what15>{_NCCL_ERROR_TEXT}.*?)\s*$"
    # HybridBackend's TensorFlow collectives (nccl_collective.cc): "E hybridbackend/tensorflow/
    # distribute/nccl/nccl_collective.cc:461] NCCL communication aborted: unhandled system error"
    rf"|\bNCCL communication aborted: (?P<what16>{_NCCL_ERROR_TEXT}.*?)\s*$"
    # NCCL's result text with its own "(run with NCCL_DEBUG=INFO for details)" after "NCCL error: "
    # (ncclGetErrorString's words for a system or CUDA error) inside another program's message,
    # vLLM's worker wrapper: "Exception in worker VllmWorkerProcess while processing method
    # init_device: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details),
    # Traceback (most recent call last):"
    rf"|\bNCCL error: (?P<what17>{_NCCL_ERROR_TEXT}[^,\n]*?\(run with NCCL_DEBUG=\w+ for details\))"
    # (the same wrapper with a result text that has no such suffix: "... while processing method
    # execute_model: NCCL error: remote process exited or there was a network error, Traceback")
    rf"|\bwhile processing method \w+: NCCL error: (?P<what18>{_NCCL_ERROR_TEXT}[^,\n]*?)"
    r"(?:, Traceback \(most recent call last\):|\s*$)"
)
# nccl-tests' testFailure line under its NCCLCHECK's (src/common.h): " .. HCA-108 pid 2753874: Test
# failure common.cu:915"
_TEST_FAILURE_PID_RE = re.compile(r"^\s*\.\.\s*(?P<host>[\w.-]+) pid (?P<pid>\d+): Test failure")
_CUPY_FRAME_RE = re.compile(r", in cupy_backends\.cuda\.libs\.nccl\.NcclCommunicator\.(\w+)\s*$")
_HUGECTR_CALL_RE = re.compile(r"^\s*(?P<call>nccl[A-Z]\w*)\(.*\) at (?P<where>\S+)")
_NCCL_FRAME_RE = re.compile(r", in (nccl[A-Z]\w*)\s*$")
"""A traceback frame inside an NCCL binding's call (``File "...pynccl_wrapper.py", line 277,
in ncclCommInitRank``): the call a binding's failure came from."""
NCCL_FRAME_LINES = 4
"""How far above a binding's ``NCCL error:`` its frame naming the NCCL call may stand."""
# ncclResult_t (nccl.h) and the text ncclGetErrorString gives each
NCCL_RESULTS: tuple[tuple[str, int, str], ...] = (
    ("unhandled cuda error", 1, "ncclUnhandledCudaError"),
    ("unhandled system error", 2, "ncclSystemError"),
    ("internal error", 3, "ncclInternalError"),
    ("invalid argument", 4, "ncclInvalidArgument"),
    ("invalid usage", 5, "ncclInvalidUsage"),
    ("remote process exited or there was a network error", 6, "ncclRemoteError"),
    ("NCCL operation in progress", 7, "ncclInProgress"),
)
NCCL_RESULT_NAMES = {number: name for _, number, name in NCCL_RESULTS}
"""ncclResult_t value → its name."""
NCCL_RESULT_NUMBERS = {name: number for _, number, name in NCCL_RESULTS}
"""ncclResult_t name → its value."""
NCCL_WRAPPED_LINES = 2
"""How many lines a wrapped "NCCL error in:" message runs on (its place, then its version)."""
NCCL_LAST_ERROR_LINES = 3
"""How far after torch's "NCCL error in:" line its "Last error:" line may stand."""


# torch's "NCCL error in: ..., NCCL version 2.10.3", the version maybe cut by a terminal's wrap
# ("..., NCCL versi" / "on 2.10.3"); older torch (NCCLUtils.cpp getNcclVersion) decoded
# NCCL's version code as major * 1000 + minor * 100 + patch, which NCCL 2.9 on encode as major *
# 10000 + minor * 100 + patch (nccl.h NCCL_VERSION): 2.10.3's 21003 was printed "21.0.3"
_TORCH_NCCL_VERSION_RE = re.compile(r", NCCL [Vv]ersion (?P<v>\d+)\.(?P<mi>\d+)\.(?P<p>\d+)\S*")
_WRAPPED_AT_FILE_RE = re.compile(r"NCCL error in: \S+\.(?:cpp|hpp|cc|h):?\s*$")
_WRAPPED_LINE_NO_RE = re.compile(r"^\s*:?\d+, ")
_VERSION_WRAPPED_RE = re.compile(
    r", N(?:C(?:C(?:L(?: v(?:e(?:r(?:s(?:i(?:o(?:n)?)?)?)?)?)?)?)?)?)?\s*$"
)
_PG_DESTROYED_RE = re.compile(r"^\s*Process Group destroyed on rank (?P<rank>\d+)\s*$")
_ABORT_RAISED_RE = re.compile(r"Exception raised from ncclCommAbort at ")
NCCL_ABORT_LINES = 3
"""How far below torch's "NCCL error in:" line its "Process Group destroyed on rank N" and
"Exception raised from ncclCommAbort" lines may stand."""


def _work_numel(text: str | None) -> int | None:
    """A work record's ``NumelIn``; None where it holds no count: absent, negative, or -1
    printed as an unsigned 64-bit number (a coalesced work's
    ``NumelIn=18446744073709551615``)."""
    if not text:
        return None
    numel = int(text)
    return numel if 0 <= numel < 2**63 else None


def torch_nccl_version(major: int, minor: int, patch: int) -> tuple[str, bool]:
    """The NCCL version torch printed, decoded; True when torch's old decoding misprinted it."""
    if major < 10:
        return f"{major}.{minor}.{patch}", False
    code = major * 1000 + minor * 100 + patch
    return f"{code // 10000}.{code % 10000 // 100}.{code % 100}", True


def _nccl_call_failures(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One event per rank (or host) and failure: the traceback repeats torch's message."""
    versions: dict[str, int] = {}
    seen: set[tuple[tuple[int | None, str | None, str, str, int | None], str | None]] = set()
    # each failure's first event: a later copy with NCCL's last WARN completes one without
    first: dict[tuple[int | None, str | None, str, str, int | None], LogEvent] = {}
    # each failure's last record read: its last WARN, "" where its "Last error:" label stood
    # empty (a record of its own, which no later WARN completes)
    latest: dict[tuple[int | None, str | None, str, str, int | None], str] = {}
    for index, (no, line, tagged) in enumerate(lines):
        wrapped = 0
        if (
            "NCCL error in: " in line
            and index + 1 < len(lines)
            and _WRAPPED_AT_FILE_RE.search(line)
            and _WRAPPED_LINE_NO_RE.match(lines[index + 1][1])
        ):
            # a page that wrapped torch's message at the file's name: ".../ProcessGroupNCCL.cpp"
            # / ":1331, internal error - ..., NCCL version 2.18.1" (joined as one)
            line, wrapped = line.rstrip() + lines[index + 1][1].strip(), 1
        elif line.rstrip().endswith("NCCL error in:"):
            # a page that wrapped torch's message at its width: "NCCL error in: " / "  FILE:LINE,
            # internal error, " / "  NCCL version 2.16.5", joined
            rest = [t.strip() for _, t, _ in lines[index + 1 : index + 1 + NCCL_WRAPPED_LINES]]
            line, wrapped = " ".join([line.rstrip(), *rest]), len(rest)
        if (
            "NCCL e" not in line
            and "NCCL E" not in line
            and "NCCL f" not in line
            and " failed: " not in line
            and "Runtime error: " not in line
            and "Nccl error, " not in line
            and "NcclError: " not in line
            and "NCCL communication aborted" not in line
            and "what():" not in line
        ) or not (m := _NCCL_CALL_RE.search(line)):
            continue
        if m.group("what14") and "watchdog thread terminated" in line:
            continue  # the watchdog's own death, read as such (watchdog_exception)
        where = m.group("where") or m.group("where2") or m.group("where6") or m.group("call7")
        for n in ("11", "12", "13", "19"):
            if m.group(f"file{n}"):
                where = f"{m.group(f'file{n}')}:{m.group(f'ln{n}')}"
        if m.group("what10"):
            nxt = lines[index + 1][1] if index + 1 < len(lines) else ""
            if not (hc := _HUGECTR_CALL_RE.search(nxt)):
                continue
            where = hc.group("call")
        found = (
            m.group(g)
            for g in (
                "what",
                "what2",
                "what3",
                "what4",
                "what5",
                "what6",
                "what7",
                "what9",
                "what10",
                "what11",
                "what12",
                "what13",
                "what14",
                "what15",
                "what16",
                "what17",
                "what18",
                "what19",
            )
        )
        # (TransformerEngine's userbuffers printed its NCCLCHECK with an empty text: '')
        what = next((w for w in found if w), "(no error text)").strip()
        said = line
        if _VERSION_WRAPPED_RE.search(line) and index + wrapped + 1 < len(lines):
            # (cut inside the word: joined as it was; at its end: a space between)
            gap = " " if line.rstrip().endswith(("version", "NCCL")) else ""
            said = line.rstrip() + gap + lines[index + wrapped + 1][1].strip()
        if (tv := _TORCH_NCCL_VERSION_RE.search(said)) is not None:
            version, misprinted = torch_nccl_version(
                int(tv.group("v")), int(tv.group("mi")), int(tv.group("p"))
            )
            versions.setdefault(
                f"NCCL {version}"
                + (
                    f" (torch printed it as {tv.group('v')}.{tv.group('mi')}.{tv.group('p')}: "
                    "its decoding predates NCCL 2.9's version code)"
                    if misprinted
                    else ""
                ),
                no,
            )
        below = lines[index + 1 : index + 1 + NCCL_ABORT_LINES]
        rank = tagged if not m.group("rank11") else int(m.group("rank11"))
        destroyed = next((d for _, t, _ in below if (d := _PG_DESTROYED_RE.match(t))), None)
        if rank is None and m.group("what3") and (rm := _WATCHDOG_RANK_RE.search(line)):
            rank = int(rm.group(1) or rm.group(2))
        said_last = _last_error_said(lines, index + wrapped)
        last = said_last or None
        if (
            last is None
            and "Last error:" in line[m.start() :]
            and (le := _INLINE_LAST_ERROR_RE.search(line, m.start()))
        ):
            # a copy that flattened torch's lines into one ("... NCCL version 2.18.5 10:
            # ncclSystemError: ... 10: Last error: 10: socketStartConnect: Connect to ..."):
            # NCCL's last WARN after its label on the same line
            last = le.group("what")
        if last is None and "Last NCCL warning" in line and (xw := _XLA_LAST_WARN_RE.search(line)):
            last = xw.group("warn")  # XLA's own words of NCCL's last WARN, on the same line
        # (untagged processes raising the same error apart by NCCL's last WARN under it: "rank 3
        # and rank 0 both on CUDA device f000", "rank 7 and rank 0 ..."; a copy without its
        # "Last error:" block, a program logging the error's first line again, is the same one)
        # nccl-tests names the failing process on the next line (".. HCA-108 pid 2753874: Test
        # failure common.cu:915"): two processes of one host failing alike are two failures
        pid = None
        # (only where the failure lines are not adjacent: an interleaved copy, two failures
        # then their two pid lines, does not tell which pid is whose)
        if (
            m.group("where2")
            and index + 1 < len(lines)
            and not (index and "NCCL failure" in lines[index - 1][1])
            and not (index + 2 < len(lines) and _TEST_FAILURE_PID_RE.match(lines[index + 2][1]))
        ):
            tf = _TEST_FAILURE_PID_RE.match(lines[index + 1][1])
            if tf and tf.group("host") == m.group("host"):
                pid = int(tf.group("pid"))
        base = (rank, m.group("host"), where, what, pid)
        record = last if last is not None else said_last
        if record is None and base in first:
            continue  # a copy without its "Last error:" block
        if (base, record) in seen and latest.get(base) == record:
            continue  # the record just read, again
        # (the same record after another one of the same call, untagged processes' blocks
        # interleaved: "Last error:" empty, then "[Proxy Service 2] Failed to execute operation
        # Connect ...", then empty again, is three processes' failures)
        earlier = first.get(base)
        if (
            last is not None
            and earlier is not None
            and earlier.exception_type is None
            and latest.get(base) is None
        ):
            # the copy seen first lacked NCCL's last WARN: this one completes it
            earlier.exception_type = last[:200]
            earlier.message = f"{earlier.message} / Last error: {earlier.exception_type}"[:400]
            seen.add((base, last))
            latest[base] = last
            continue
        seen.add((base, record))
        if record is not None:
            latest[base] = record
        text = line.strip()
        if len(text) > 300:  # a long line (XLA's): the message from just before the failure
            text = "…" + line[max(0, m.start() - 60) :].strip()
        ev = LogEvent(
            kind="nccl_call_failure",
            line=no,
            message=text[:300],
            rank=rank,
            host=m.group("host"),
            pid=pid,
            library="NCCL",
            call=where or ("checkForNCCLErrors" if m.group("what3") else None),
        )
        if where and any(_ABORT_RAISED_RE.search(t) for _, t, _ in below):
            # raised by ncclCommAbort as the process group was destroyed: the communicator
            # already held the error, from the work that failed before the teardown
            ev.call = f"{where} (ncclCommAbort, as the process group was destroyed: the "
            ev.call += "error came from earlier work)"
        if destroyed is not None:
            # (~ProcessGroupNCCL's rank_: the process's rank in that group, the job's own only
            # for the default group)
            ev.call = f"{ev.call or where}; torch destroyed the group on its rank "
            ev.call += f"{destroyed.group('rank')} (the rank within that process group)"
        if last is None and m.group("where2") and ev.host and ev.pid is not None:
            # nccl-tests' failure with no WARN line: where NCCL's own trace of the result starts
            # in that process (its INFO "transport/net_ib.cc:282 -> 2" lines), and the settings
            # it took from the environment
            ev.exception_type = _nccl_trace_said(lines[:index], ev.host, ev.pid)
        if "Collective Work" in line and (work := _WORK_RE.search(line)):
            # the work the async error was raised on: its op and sequence number
            ev.op = op_name(work.group("op"))
            ev.seq = int(work.group("seq")) if work.group("seq") else None
        if m.group("what15"):
            # CuPy's frames: "in cupy_backends.cuda.libs.nccl.NcclCommunicator.recv" above its
            # status check
            frames = lines[max(0, index - NCCL_FRAME_LINES) : index]
            ev.call = next(
                (f.group(1) for _, up, _ in reversed(frames) if (f := _CUPY_FRAME_RE.search(up))),
                None,
            )
        if m.group("what4"):
            frames = lines[max(0, index - NCCL_FRAME_LINES) : index]
            ev.call = next(
                (f.group(1) for _, up, _ in reversed(frames) if (f := _NCCL_FRAME_RE.search(up))),
                None,
            )
        for text, number, name in NCCL_RESULTS:
            # (older NCCL's text says "unhandled CUDA error", today's "unhandled cuda error")
            if what.lower().startswith(text.lower()):
                ev.code, ev.code_name = str(number), name
                break
        if last:
            ev.exception_type = last[:200]  # NCCL's last WARN
            ev.message = f"{ev.message} / Last error: {ev.exception_type}"[:400]
        first.setdefault(base, ev)
        report.events.append(ev)
    report.unread.extend(
        ParseWarning(line=no, message=f"{said} (torch's account of the failed call)", skipped=False)
        for said, no in versions.items()
    )


_NCCL_RESULT_DESCRIPTION_RE = re.compile(r"^\s*(?P<name>nccl[A-Z]\w*): (?P<text>\S.*?)\s*$")
NCCL_DESCRIPTION_LINES = 6
"""How far below torch's "NCCL error in:" line its result's description may stand (the message
wrapped, a blank line)."""


def _nccl_result_descriptions(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """torch's account of a failed NCCL call whose "NCCL error in: ..." line a copy left out (an
    ellipsis in its place): the result's description (``ncclInternalError: Internal check
    failed.``) with NCCL's last WARN under its "Last error:" label, one event per rank."""
    names = NCCL_RESULT_NUMBERS
    done: set[int | None] = set()
    for index, (no, line, tagged) in enumerate(lines):
        if ": " not in line or not (m := _NCCL_RESULT_DESCRIPTION_RE.match(line)):
            continue
        if m.group("name") not in names or tagged in done:
            continue
        following = [t.strip() for _, t, _ in lines[index + 1 : index + 3]]
        if "Last error:" not in following:
            continue  # (a name in other words: a program's own message, a list of results)
        above = lines[max(0, index - NCCL_DESCRIPTION_LINES) : index]
        if any("NCCL error" in up or "NCCL Error" in up for _, up, _ in above):
            continue  # the description of a failure read from its "NCCL error in:" line
        done.add(tagged)
        last = _last_error(lines, index)
        report.events.append(
            LogEvent(
                kind="nccl_call_failure",
                line=no,
                message=line.strip()[:300] + (f" / Last error: {last[:200]}" if last else ""),
                code=str(names[m.group("name")]),
                code_name=m.group("name"),
                rank=tagged,
                library="NCCL",
                exception_type=last[:200] if last else None,
            )
        )


# NCCL's NCCLCHECK passes a failed result up the stack and prints each step at INFO level
# (src/include/checks.h: INFO(NCCL_ALL, "%s:%d -> %d", __FILE__, __LINE__, res)): "nd20-01:191191:
# 219889 [0] NCCL INFO misc/socket.cc:564 -> 2". A WARN line usually says why at the first step;
# some failures print none (NCCL issue 1099, socketPollConnect).
_NCCL_RETURN_RE = re.compile(
    r"NCCL INFO (?P<where>[\w./-]+\.(?:cc|cu|h|c|cpp):\d+) -> (?P<res>\d+)\b"
    # a socket step names the system error it met: "misc/socket.cc:505 -> 2 (Operation now in
    # progress)" (NCCL 2.19 on, its socket calls' strerror)
    r"(?: \((?P<why>[A-Z][^()]*)\))?"
)
_NCCL_STAGES = (
    ("bootstrap", "in its bootstrap (the communicator's set-up)"),
    ("init.cc", "while setting a communicator up"),
    ("proxy", "in its proxy thread"),
    ("enqueue", "while enqueueing an operation"),
    # the network transport's calls into the net plugin (include/net.h's wrappers, called from
    # transport/net.cc while it connects or runs a channel over the network)
    # (transport/net.cu up to NCCL 2.4.2; include/net.h's wrappers are called from it alone)
    ("transport/net.c", "in its network transport (a channel over the network)"),
    ("include/net.h", "in its network transport (a channel over the network)"),
)


# NCCL's set-up going on: its rings and channels ("Ring 00 : 0 -> 8 [receive] via NET/Socket/0",
# "Channel 00/0 : 0[0] -> 1[1] via P2P/IPC", "Trees [0] ...", "Connected all rings")
_NCCL_SETUP_ON_RE = re.compile(
    r"NCCL INFO (?:Ring \d+ : \d+|Channel \d+(?:/\d+)? ?: \d+|Trees \[|Connected all \w+)"
)


def _nccl_trace_said(lines: list[tuple[int, str, int | None]], host: str, pid: int) -> str | None:
    """Where one process's NCCL trace of a failed result starts ("no WARN line; NCCL's trace
    starts at transport/net_ib.cc:282 -> 2 in its network transport") and the NCCL settings it
    took from the environment; None where the process printed no trace."""
    origin: tuple[str, str] | None = None
    files: list[str] = []
    settings: dict[str, str] = {}
    for _, line, _ in lines:
        if f"{host}:{pid}:" not in line:
            continue
        if " -> " in line and (r := _NCCL_RETURN_RE.search(line)):
            origin = origin or (r.group("where"), r.group("res"))
            files.append(r.group("where").rsplit(":", 1)[0])
        elif "set by environment to" in line and (e := _NCCL_ENV_SET_RE.search(line)):
            settings.setdefault(e.group("name"), e.group("value"))
    if origin is None:
        return None
    stage = next((said for part, said in _NCCL_STAGES if any(part in f for f in files)), "")
    if "net_ib" in origin[0]:
        stage = "in its InfiniBand / RoCE transport (net_ib)"
    elif "net_socket" in origin[0] or "socket.cc" in origin[0]:
        stage = "in its socket transport"
    said = f"no WARN line; NCCL's trace starts at {origin[0]} -> {origin[1]}" + (
        f" {stage}" if stage else ""
    )
    if settings:
        said += "; set from the environment: " + ", ".join(f"{k}={v}" for k, v in settings.items())
    return said[:300]


def _nccl_silent_returns(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """A failed NCCL result passed up the stack where nothing else in the log reads as a failure
    (no WARN line, no caller's report, no watchdog: a log of NCCL's INFO lines only): one event
    per process, the result from the first step, the stage from the files the chain passed
    through."""
    names = NCCL_RESULT_NAMES
    chains: dict[tuple[str | None, int | None], list[tuple[int, str, int, int | None]]] = {}
    settled: set[tuple[str | None, int | None]] = set()  # processes NCCL said finished a step
    errors: dict[tuple[str | None, int | None], str] = {}  # the system error a step named

    def process_of(line: str) -> tuple[str | None, int | None]:
        host_m = _NCCL_DEBUG_HOST_RE.search(line)
        prefix = _NCCL_PREFIX_RE.search(line)
        return (host_m.group("host") if host_m else None, int(prefix["pid"]) if prefix else None)

    for no, line, tagged in lines:
        if " COMPLETE" in line and _NCCL_LIFECYCLE_RE.search(line):
            if (settler := process_of(line))[1] is not None:
                settled.add(settler)
            continue
        if (
            "Ring " in line or "Channel " in line or "Trees " in line or "Connected all" in line
        ) and (_NCCL_SETUP_ON_RE.search(line)):
            # the process went on setting its rings and channels up after a step's return:
            # NCCL took that result as a fallback (2.4's "Could not find real path of
            # /sys/class/net/eth0/device", "include/net.h:19 -> 2" on a virtual NIC)
            if (goer := process_of(line)) in chains:
                settled.add(goer)
            continue
        if " -> " not in line or not (m := _NCCL_RETURN_RE.search(line)):
            continue
        result = int(m.group("res"))
        if result not in names:
            continue
        chains.setdefault(process_of(line), []).append((no, m.group("where"), result, tagged))
        if m.group("why"):
            errors.setdefault(process_of(line), m.group("why"))
    for (host, pid), chain in chains.items():
        if (host, pid) in settled:
            continue  # the process went on to set up, abort or destroy its communicator
        no, origin, result, tagged = chain[0]
        why = errors.get((host, pid))
        files = list(dict.fromkeys(where.rsplit(":", 1)[0] for _, where, _, _ in chain))
        stage = next((said for part, said in _NCCL_STAGES if any(part in f for f in files)), "")
        if not stage:
            continue  # the socket or proxy code alone: a connection closed at teardown
        report.events.append(
            LogEvent(
                kind="nccl_call_failure",
                line=no,
                message=(
                    f"NCCL returned {result} ({names[result]}) at {origin}"
                    + (f" {stage}" if stage else "")
                    + f", passed up through {', '.join(files[1:6]) or 'no other step'}"
                    + (f"; the socket call met '{why}'" if why else "; no WARN line says why")
                )[:300],
                code=str(result),
                code_name=names[result],
                rank=tagged,
                host=host,
                pid=pid,
                library="NCCL",
                call=origin,
                exception_type=(
                    (
                        f"a socket call met '{why}' (no WARN line)"
                        if why
                        else "no WARN line says why"
                    )
                    + (f"; {stage}" if stage else "")
                    + (f", passed up through {', '.join(files[1:4])}" if len(files) > 1 else "")
                )[:200],
            )
        )


# vLLM's logger before each line of a traceback it logs: "ERROR 04-07 00:57:46 ray_utils.py:45] "
# (newer: "ERROR 06-04 22:25:57 [multiproc_executor.py:932] ")
_VLLM_PREFIX_RE = re.compile(r"^[A-Z]+ \d\d-\d\d \d\d:\d\d:\d\d \[?[\w.]+:\d+\]\s?")


_NODE_NAME_PREFIX_RE = re.compile(rf"^{NODE_NAME}: ")
"""A node's name before a line (a name with a lower-case letter and a digit, as pdsh's)."""


def _last_error(lines: list[tuple[int, str, int | None]], index: int) -> str | None:
    """The text under torch's "Last error:" line (NCCL's last WARN) within a few lines after
    ``lines[index]``; None where there is none."""
    return _last_error_said(lines, index) or None


def _last_error_said(lines: list[tuple[int, str, int | None]], index: int) -> str | None:
    """As ``_last_error``, but "" where torch's "Last error:" label stands with nothing under it
    (NCCL left no WARN: the record is whole, not a copy cut before it). A page that doubled
    every line break (a blank line after the error line and after each line of its message) is
    read every second line."""
    after = lines[index + 1 : index + 1 + 2 * (NCCL_LAST_ERROR_LINES + 1)]
    # a node's name a collector put before every line ("rdma-test-gpu-worker-1: Last error:",
    # pdsh's form where no bracket follows it), the same as the failure's own line's
    node = _NODE_NAME_PREFIX_RE.match(lines[index][1])
    texts = [
        _VLLM_PREFIX_RE.sub(
            "", t.strip().removeprefix(node.group(0)) if node else t.strip(), count=1
        ).strip()
        for _, t, _ in after
    ]
    doubled = len(texts) > 1 and texts[0] == "" and texts[1] != ""
    window = (texts[1::2] if doubled else texts)[: NCCL_LAST_ERROR_LINES + 1]
    for i, text in enumerate(window[:-1]):
        if text == "Last error:":
            return window[i + 1]
    # NCCL's last error printed straight under the result's description, without the label
    # ("ncclUnhandledCudaError: Call to CUDA function failed." / "Failed to bind NVLink SHARP
    # (NVLS) Multicast memory ...": NCCL 2.29.7 under torch, pytorch/pytorch#178749)
    if len(window) > 1 and _NCCL_RESULT_LINE_RE.match(window[0]) and window[1]:
        if not _NOT_LAST_ERROR_RE.match(window[1]):
            return window[1]
    return None


_INLINE_LAST_ERROR_RE = re.compile(r"Last error:\s*(?:\d+:\s*)?(?P<what>\S[^\n]{0,300}?)\s*$")
_NCCL_RESULT_LINE_RE = re.compile(r"^nccl[A-Z]\w*Error: \S")
_NOT_LAST_ERROR_RE = re.compile(
    r"^(?:Exception raised from|Traceback|File \"|frame #|#\d|\[rank|Last error|nccl[A-Z]\w*Error:"
    # a logger's own line after the error (torch elastic's "WARNING:torch.distributed.elastic...
    # Sending process 518 closing signal SIGTERM"): the launcher's, not NCCL's last WARN
    r"|(?:WARNING|INFO|ERROR|DEBUG):[\w.]+:"
    # the fence that closes a page's code block around the error
    r"|```|~~~"
    # a record of another logger: glog's "E0612 10:01:02", a date, NCCL's "host:pid:tid [dev]"
    r"|[IWEF]\d{4} \d\d:|\[?\d{4}-\d\d-\d\d|[\w.-]+:\d+:\d+ \[\d+\]|\w+(?:Error|Exception):"
    # another process's traceback interleaved: its code line ("main()", "return fn(*args)")
    r"|[\w.]+\([^()\n]*\)\s*$|return \S)"
)


# PyTorch's TCPStore server socket (c10d socket.cpp): "The server socket has failed to bind to
# [::]:29500 (errno: 98 - Address already in use)", then "... failed to listen on any local
# network address": the rendezvous store of rank 0 (or the agent) cannot take its port.
_STORE_BIND_RE = re.compile(
    r"The server socket has failed to (?:bind to|listen on) (?P<addr>\[[^\]]*\]|[\w.-]+|\?UNKNOWN\?)"
    r"(?::(?P<port>\d+))? \(errno: (?P<errno>\d+) - (?P<why>[^)]+)\)"
    # the libuv store backend (TCPStoreLibUvBackend.cpp, torch's default store from 2.4): "The
    # server socket has failed to listen on any local network address. port: 2333, useIpv6: 0,
    # code: -98, name: EADDRINUSE, message: address already in use" (earlier builds: no port);
    # the code is libuv's, the negated errno
    r"|The server socket has failed to listen on any local network address\.\s*"
    r"(?:port: (?P<port2>\d+), )?useIpv6: \w+, code: -(?P<errno2>\d+), name: (?P<name>\w+), "
    r"message: (?P<why2>.+?)\s*$"
)


_UV_FIELD_RE = re.compile(r"^\s*(?:port|useIpv6|code|name|message): \S")

_WILDCARD_ADDRESSES = ("::", "0.0.0.0", "?UNKNOWN?")  # noqa: S104 - read from a log, not bound
"""What torch names when it binds every interface: no address of a node."""


# torch before 1.x's socket.cpp messages: the TCPStore constructor raised the bare errno text,
# "RuntimeError: Address already in use", under a frame that built it ("store = TCPStore(
# master_addr, master_port, world_size, start_daemon)", rendezvous.py's env:// handler)
_OLD_STORE_BIND_RE = re.compile(r"^\s*RuntimeError: Address already in use\s*$")
OLD_STORE_FRAME_LINES = 3
"""How far above that exception the frame that built the store may stand."""


def _store_bind_failures(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One event per port (torch tries the IPv6 and the IPv4 wildcard, and re-raises the
    message): the store's port is taken."""
    seen: set[tuple[int | None, str]] = set()
    first: LogEvent | None = None
    for index, (no, line, tagged) in enumerate(lines):
        if "listen on any local network address" in line and line.rstrip().endswith("address."):
            # the libuv backend's fields one per line (a page that broke the message at ", ")
            fields = []
            for _, nxt, _ in lines[index + 1 : index + 6]:
                if not _UV_FIELD_RE.match(nxt):
                    break
                fields.append(nxt.strip())
            if fields:
                line = f"{line.rstrip()} {', '.join(fields)}"
        elif (
            "listen on any local network address. " in line
            and "message:" not in line
            and index + 1 < len(lines)
        ):
            # the fields wrapped at a page's width, inside a word ("name: EAD" / "DRINUSE, ...")
            # or between two
            nxt = lines[index + 1][1]
            inside = line[-1:].isalnum() and nxt[:1].isalnum()
            line = line + nxt if inside else f"{line.rstrip()} {nxt.lstrip()}"
        if (
            "listen on any local network address" in line
            and first is not None
            and "code: -" not in line
        ):
            # torch's verdict after trying each address: the store never started
            if "listen on any" not in first.message:
                verdict = "The server socket has failed to listen on any local network address."
                first.message = f"{first.message} / {verdict}"[:400]
            continue
        if "Address already in use" in line and _OLD_STORE_BIND_RE.match(line):
            frames = [t for _, t, _ in lines[max(0, index - OLD_STORE_FRAME_LINES) : index]]
            if (
                any("TCPStore(" in t for t in frames)
                and (None, "address already in use") not in seen
            ):
                seen.add((None, "address already in use"))
                ev = LogEvent(
                    kind="store_bind_failure",
                    line=no,
                    message=line.strip()[:300],
                    rank=tagged,
                    exception_type="Address already in use (an older torch's TCPStore names "
                    "no port: the job's MASTER_PORT)",
                )
                first = first or ev
                report.events.append(ev)
            continue
        if "server socket has failed" not in line or not (m := _STORE_BIND_RE.search(line)):
            continue
        port = m.group("port") or m.group("port2")
        why = m.group("why") or m.group("why2")
        key = (int(port) if port else None, why.lower())
        if key in seen or (key[0] is None and any(w == key[1] for _, w in seen)):
            continue  # "?UNKNOWN?" (no port) is the other family's try at the same port
        seen.add(key)
        addr = (m.group("addr") or "::").strip("[]")
        errno = m.group("errno") or m.group("errno2")
        named = f" {m.group('name')}" if m.group("name") else ""
        ev = LogEvent(
            kind="store_bind_failure",
            line=no,
            message=line.strip()[:300],
            rank=tagged,
            port=key[0],
            ip=None if addr in _WILDCARD_ADDRESSES else addr,
            exception_type=f"errno {errno}{named}: {why}",
        )
        first = first or ev
        report.events.append(ev)


# The c10d store's client side (PyTorch c10d socket.cpp): a rank waiting for the store's answer,
# "[c10d] waitForInput: socket SocketImpl(fd=109, addr=[::ffff:10.0.0.2]:38930, remote=[::ffff:
# 10.0.0.1]:47904) timed out after 1800000ms"; a connect that never succeeded, "The client socket
# has timed out after 300000ms while trying to connect to (node0, 41331)."; one attempt that
# failed, "[W socket.cpp:558] [c10d] The client socket has failed to connect to [node0]:29500
# (errno: 111 - Connection refused)." (Windows: "system error: 10049 - ..."), which the client
# retries until its time-out, so it is harmless when the store came up later.
_IPV4_RE = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
_STORE_WAIT_RE = re.compile(
    r"waitForInput: socket SocketImpl\(fd=\d+, addr=\S+?, remote=\[?(?:::ffff:)?(?P<ip>[^\]\s]+?)\]?"
    r":(?P<port>\d+)\) timed out after (?P<ms>\d+)\s*ms"
    # (c10d socket.cpp SocketConnectOp::throwTimeoutError formats the chrono time-out: "60s" or
    # "300000ms"; releases name the store "(host, port)" or "host:port")
    r"|The client socket has timed out after (?P<ms2>\d+)\s*(?P<unit>ms|s) while trying to connect to "
    r"(?:\((?P<host>[^,]+), (?P<port2>\d+)\)|\[?(?P<host3>[^\s\[\]]+?)\]?:(?P<port3>\d+)\b)"
    # older TCPStore: "RuntimeError: connect() timed out. Original timeout was 60000 ms."
    r"|connect\(\) timed out\. Original timeout was (?P<ms4>\d+) ms"
)
# An operation on the store (or gloo's connection through it) that ran out of time, as the
# Python exception says it: "RuntimeError: Socket Timeout"
_SOCKET_TIMEOUT_RE = re.compile(r"^\s*(?:RuntimeError|[\w.]*DistStoreError): Socket Timeout\s*$")
# torch distributed_c10d._store_based_barrier, at init_process_group: each rank adds itself to a
# key of the store and waits for all; past the time-out, older torch raises RuntimeError("Timed
# out initializing process group in store based barrier on rank: R, for key: K (world_size=W,
# worker_count=C, timeout=0:30:00)"), newer DistStoreError ("... on rank R, for key: K
# (world_size=W, num_workers_joined=C, timeout=...)"). C is the count the key holds, which a key
# left by an earlier run with the same address can push past W.
# torch TCPStore::wait past its time-out (c10d TCPStore.cpp): DistStoreError("wait timeout after
# {}ms, keys: {}") (older: "doWait timeout after ..."), the keys a rank waited for another to set
# (a group's creation waits on "/default_pg/0//<group>//cpu//0/0"-like keys)
_STORE_WAIT_KEYS_RE = re.compile(
    r"\b(?:do)?[Ww]ait timeout after (?P<ms>\d+)ms, keys: (?P<keys>\S.*?)\s*$"
)
_STORE_BARRIER_RE = re.compile(
    r"Timed out initializing process group in store based barrier on rank:? (?P<rank>\d+), "
    r"for key: (?P<key>[^\s(]+) \(world_size=(?P<world>\d+), "
    r"(?:worker_count|num_workers_joined)=(?P<joined>\d+), "
    r"timeout=(?:(?P<days>\d+) days?, )?(?P<h>\d+):(?P<m>\d\d):(?P<s>\d\d(?:\.\d+)?)"
)
# torch elastic's rendezvous errors (torch/distributed/elastic/rendezvous/api.py): closed, not
# complete on time, the backend unreachable, corrupt state; as the traceback's last line or in the
# error handler's JSON ("message": "RendezvousConnectionError: ...")
_RENDEZVOUS_RE = re.compile(
    r"^\s*(?:torch\.distributed\.elastic\.rendezvous\.api\.)?(?P<err>Rendezvous(?:Closed|Timeout|"
    r"Connection|State)Error)(?::\s*(?P<what>.*?))?\s*$"
    r"|\"message\": \"(?P<err2>Rendezvous(?:Closed|Timeout|Connection|State)Error)(?::\s*(?P<what2>[^\"]*))?"
)
_STORE_CONNECT_RE = re.compile(
    # (older releases print the host without brackets: "to hcp-bb-03:52873 (errno: 110 - ...)")
    r"The client socket has failed to connect to (?:\[(?P<host>[^\]]+)\]|(?P<hostb>[\w.-]+))"
    r":(?P<port>\d+) \((?:system error|errno): (?P<errno>-?\d+) - (?P<why>.+?)\)"
)


# The store client's own account of an attempt (TCPStore.cpp TCPClient::connect): a warning when
# it will try again, "TCP client failed to connect/validate to host 127.0.0.1:48315 - retrying
# (try=0, timeout=600000ms, delay=33924ms): <the socket's error>", an error when its time is up,
# "... - timed out (try=1, timeout=600000ms): <the socket's error>".
# torch's client, retrying its connect to the store: "[c10d] The server socket on
# [::ffff:198.18.0.1]:43195 has timed out, will retry." (the address as the socket prints it; an
# IPv4 one mapped into IPv6 is given as its IPv4)
_SERVER_RETRY_RE = re.compile(
    r"The server socket on \[(?:::ffff:)?(?P<host>[^\]]+)\]:(?P<port>\d+) has timed out, will retry"
)
_TCP_CLIENT_RE = re.compile(
    r"TCP client failed to connect/validate to host (?P<host>\S+?):(?P<port>\d+) - "
    r"(?P<how>retrying|timed out) \(try=(?P<try>\d+), timeout=(?P<ms>\d+)ms[^)]*\)(?:: (?P<why>.+?))?\s*$"
)


_OPEN_STORE_RE = re.compile(r"while trying to connect to \([^)]*$")


# The heartbeat monitor of ProcessGroupNCCL (torch_npu's ProcessGroupHCCL alike) polls the global
# store for a dump request and logs when the store is gone: torch "[PG ID 0 PG GUID 0 Rank 3]
# Failed to check the "should dump" flag on TCPStore, (maybe TCPStore server has shut down too
# early), with error: Failed to recv, got 0 bytes. ..."; torch_npu and older torch "[PG 0 Rank 1]
# Failed to get exception dump flag from the global store.Connection reset by peer". The store's
# host (rank 0's process or the agent) exited or crashed: usual while a job shuts down, the cause
# when it came first.
_STORE_LOST_RE = re.compile(
    r"Failed to (?:check the \"should dump\" flag on TCPStore, \(maybe TCPStore server has shut "
    r"down too early\), with error: ?|get exception dump flag from the global store\.\s*)(?P<why>.*?)\s*$"
)


# A store client's read failing (torch's TCPStore.cpp, a warning since torch 2.4): "[c10d]
# recvValue failed on SocketImpl(fd=96, addr=[localhost]:10006, remote=[localhost]:10197): failed
# to recv, got 0 bytes" (newer: "Failed to recv, got 0 bytes. Connection was likely closed. Did
# the remote server shutdown or crash?"; "Connection reset by peer"). The heartbeat monitor's
# poll of the store is the usual reader, so its "should dump" line often follows: one event.
_RECV_VALUE_RE = re.compile(
    r"recvValue failed on SocketImpl\(fd=\d+, addr=[^,]*, remote=(?P<remote>[^)]*)\): "
    r"(?P<why>.*?)\s*$"
)


# torch elastic's agent closing its rendezvous when the job ends (dynamic_rendezvous.py,
# DynamicRendezvousHandler.shutdown, a warning): "The node 'host_3140_0' has failed to shutdown
# the rendezvous '3045...' due to an error of type RendezvousConnectionError." The store behind
# it had gone (its host exited first): a job's ending, not a rendezvous that never formed.
_RDZV_SHUTDOWN_RE = re.compile(
    r"has failed to shutdown the rendezvous '[^']*' due to an error of type (?P<why>\w+)"
)


# torch elastic's agent once its rendezvous formed (api.py _rendezvous: "[default] Rendezvous
# complete for workers. Result:"; older "Done waiting for other agents"), or its workers started
_RDZV_FORMED_RE = re.compile(
    r"Rendezvous complete for workers|Done waiting for other agents|Starting worker group"
)
_STORE_CALL_RESET_RE = re.compile(
    r"^\s*(?:\*\*)?(?:\w+\.)*(?:RuntimeError|DistStoreError|DistNetworkError|ConnectionResetError): "
    r"(?P<why>Connection reset by peer|Connection closed by peer|Broken pipe)\b"
)
_STORE_CALL_FRAME_RE = re.compile(
    r"\b(?:_store_based_barrier|store\.(?:add|get|set|wait|compare_set|check))\([^)\n]*\)?"
)
STORE_CALL_FRAMES = 4
"""How many lines above the exception its store call may stand (the frame's source line)."""


def _store_lost(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One event per rank whose heartbeat monitor lost the store, and per agent that could not
    shut its rendezvous down."""
    seen: set[int | None] = set()
    shut_down: set[int | None] = set()  # ranks (of the tag) whose agent's shutdown failed

    def lost(
        once: set[int | None], no: int, line: str, rank: int | None, why: str | None, **kw: Any
    ) -> None:
        if rank not in once:
            once.add(rank)
            report.events.append(
                LogEvent(
                    kind="store_lost",
                    line=no,
                    message=line.strip()[:300],
                    rank=rank,
                    exception_type=why[:200] if why else None,
                    **kw,
                )
            )

    # (where the agent began its rendezvous and where it saw it formed, found once: the lines
    # before each shutdown failure are not scanned again)
    began = next(
        (i for i, (_, t, _) in enumerate(lines) if "Rendezvous'ing worker group" in t), None
    )
    formed = next((i for i, (_, t, _) in enumerate(lines) if _RDZV_FORMED_RE.search(t)), None)
    endpoint: tuple[str, int, bool] | bool | None = False  # (not looked for yet)
    never_formed: set[tuple[int | None, str]] = set()
    for index, (no, line, tagged) in enumerate(lines):
        if "shutdown the rendezvous" in line and (rs := _RDZV_SHUTDOWN_RE.search(line)):
            if began is not None and began < index and (formed is None or formed > index):
                # the agent began its rendezvous and never saw it formed: the store it could not
                # reach at shutdown was never reached at all (the job never started)
                if (tagged, rs.group("why")) in never_formed:
                    continue
                never_formed.add((tagged, rs.group("why")))
                if endpoint is False:
                    endpoint = _rendezvous_endpoint(lines)
                ev = LogEvent(
                    kind="rendezvous_failure",
                    line=no,
                    message=line.strip()[:300],
                    rank=tagged,
                    exception_type=f"{rs.group('why')}: the agent's rendezvous never formed "
                    "(no worker group started)",
                )
                if isinstance(endpoint, tuple):
                    ev.ip, ev.port = endpoint[0], endpoint[1]
                    ev.exception_type = (
                        f"{ev.exception_type}; its store at {endpoint[0]}:{endpoint[1]}"
                        + (" (c10d's default port)" if endpoint[2] else "")
                    )
                report.events.append(ev)
                continue
            lost(shut_down, no, line, tagged, rs.group("why"))
        elif "recvValue failed" in line and (rv := _RECV_VALUE_RE.search(line)):
            why = rv.group("why").split(". Connection was likely closed")[0]
            lost(seen, no, line, tagged, f"a read from the store at {rv.group('remote')}: {why}")
        elif "flag" in line and (m := _STORE_LOST_RE.search(line)):
            rank = tagged
            if rank is None and (rm := _WATCHDOG_RANK_RE.search(line)):
                rank = int(rm.group(1) or rm.group(2))
            lost(seen, no, line, rank, m.group("why"), group=_pg(_PG_RE.search(line)))
        elif "by peer" in line or "Broken pipe" in line:
            # the store's socket failing under a store call of torch's own (init_process_group's
            # _store_based_barrier: "store.add(store_key, 1)", then "RuntimeError: Connection
            # reset by peer"): the store's host closed it
            if (sx := _STORE_CALL_RESET_RE.match(line)) and (
                call := next(
                    (
                        c.group(0)
                        for _, above, _ in reversed(
                            lines[max(0, index - STORE_CALL_FRAMES) : index]
                        )
                        if (c := _STORE_CALL_FRAME_RE.search(above))
                    ),
                    None,
                )
            ):
                lost(
                    seen,
                    no,
                    line,
                    tagged,
                    f"{sx.group('why')} under the c10d store call {call.strip()}: the store's "
                    "host (MASTER_ADDR) closed the connection (it exited or restarted)",
                )


# torchrun's rendezvous endpoint, in its launch configs ("  rdzv_endpoint    : 10.28.1.16") or its
# arguments ("'--rdzv_endpoint=10.28.1.16'", "--rdzv-endpoint 10.0.0.1:29500"); with no port the
# c10d backend uses 29400 (torch/distributed/elastic/rendezvous c10d_rendezvous_backend.py:
# parse_rendezvous_endpoint(params.endpoint, default_port=29400))
_RDZV_ENDPOINT_RE = re.compile(
    r"\brdzv[_-]endpoint(?:\s*:\s*|=|\s+)['\"]?(?P<host>[\w.-]+|\[[0-9A-Fa-f:]+\])(?::(?P<port>\d+))?['\",\s]"
)
RDZV_DEFAULT_PORT = 29400


_RDZV_BACKEND_RE = re.compile(r"\brdzv[_-]backend(?:\s*:\s*|=|\s+)['\"]?(?P<backend>\w+)")


def _rendezvous_endpoint(lines: list[tuple[int, str, int | None]]) -> tuple[str, int, bool] | None:
    """The rendezvous endpoint the launch named (host, port, whether the port is the c10d
    backend's default); None where none is named, or no port and another backend (etcd's)."""
    backend = next(
        (
            b.group("backend")
            for _, t, _ in lines
            if "rdzv" in t and (b := _RDZV_BACKEND_RE.search(t))
        ),
        "c10d",
    )
    for _, line, _ in lines:
        if "rdzv" in line and (m := _RDZV_ENDPOINT_RE.search(line + " ")):
            port = m.group("port")
            if port is None and backend != "c10d":
                return None
            return m.group("host"), int(port) if port else RDZV_DEFAULT_PORT, port is None
    return None


def _store_client_failures(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """A rank's time-out waiting for the store (one per rank and store), and its failed connect
    attempts (one per store address and reason)."""
    waited: set[tuple[int | None, str, int | None]] = set()
    tried: set[tuple[str, int, str]] = set()
    rendezvous: set[str] = set()
    for index, (no, line, tagged) in enumerate(lines):
        if "Rendezvous" in line and (rz := _RENDEZVOUS_RE.search(line)):
            err = rz.group("err") or rz.group("err2")
            if err not in rendezvous:
                rendezvous.add(err)
                ev = LogEvent(
                    kind="rendezvous_failure",
                    line=no,
                    message=line.strip()[:300],
                    rank=tagged,
                    exception_type=err,
                )
                if endpoint := _rendezvous_endpoint(lines):
                    ev.ip, ev.port = endpoint[0], endpoint[1]
                    ev.exception_type = (
                        f"{err} (the c10d store at {endpoint[0]}:{endpoint[1]}"
                        + (", torch's default port: the endpoint names none" if endpoint[2] else "")
                        + ")"
                    )
                report.events.append(ev)
            continue
        if "timeout after" in line and (wk := _STORE_WAIT_KEYS_RE.search(line)):
            if (tagged, wk.group("keys"), None) in waited:
                continue
            waited.add((tagged, wk.group("keys"), None))
            report.events.append(
                LogEvent(
                    kind="store_timeout",
                    line=no,
                    message=line.strip()[:300],
                    rank=tagged,
                    timeout_ms=int(wk.group("ms")),
                    exception_type=f"waiting for the store's key(s) {wk.group('keys')[:120]}",
                )
            )
            continue
        if "store based barrier" in line and (sb := _STORE_BARRIER_RE.search(line)):
            rank = int(sb.group("rank"))
            if (rank, "barrier", None) in waited:
                continue
            waited.add((rank, "barrier", None))
            world, joined = int(sb.group("world")), int(sb.group("joined"))
            seconds = (
                int(sb.group("days") or 0) * 86400
                + int(sb.group("h")) * 3600
                + int(sb.group("m")) * 60
                + float(sb.group("s"))
            )
            said = (
                f"{joined} of {world} ranks joined"
                if joined < world
                else f"the key counts {joined} for {world} ranks (left by an earlier run with "
                "the same store address?)"
            )
            report.events.append(
                LogEvent(
                    kind="store_timeout",
                    line=no,
                    message=line.strip()[:300],
                    rank=rank if tagged is None else tagged,
                    rank_size=world,
                    timeout_ms=int(seconds * 1000),
                    exception_type=f"in the store-based barrier at process-group init ({said})",
                )
            )
            continue
        if "Socket Timeout" in line and _SOCKET_TIMEOUT_RE.match(line):
            if (tagged, "", None) not in waited:
                waited.add((tagged, "", None))
                report.events.append(
                    LogEvent(
                        kind="store_timeout",
                        line=no,
                        message=line.strip()[:300],
                        rank=tagged,
                        exception_type="store operation",
                    )
                )
            continue
        if "will retry" in line and (sr := _SERVER_RETRY_RE.search(line)):
            # the client's attempt to reach the store timed out and is tried again: "The server
            # socket on [::ffff:198.18.0.1]:43195 has timed out, will retry." (torch socket.cpp)
            host, store_port = sr.group("host"), int(sr.group("port"))
            attempt = (host, store_port, "server socket timed out")
            if attempt in tried:
                continue
            tried.add(attempt)
            ev = LogEvent(
                kind="store_connect_failure",
                line=no,
                message=line.strip()[:300],
                rank=tagged,
                port=store_port,
                exception_type="the store's socket did not answer in time (retried)",
            )
            if _IPV4_RE.fullmatch(host) or ":" in host:
                ev.remote_ip = host
            else:
                ev.host = host
            report.events.append(ev)
            continue
        if "TCP client failed" in line and (tc := _TCP_CLIENT_RE.search(line)):
            host, store_port = tc.group("host").strip("[]"), int(tc.group("port"))
            giving_up = tc.group("how") == "timed out"
            attempt = (host, store_port, tc.group("why") or "")
            if (tagged, host, store_port) in waited if giving_up else attempt in tried:
                continue
            if giving_up:
                waited.add((tagged, host, store_port))
            else:
                tried.add(attempt)
            ev = LogEvent(
                kind="store_timeout" if giving_up else "store_connect_failure",
                line=no,
                message=line.strip()[:300],
                rank=tagged,
                port=store_port,
                timeout_ms=int(tc.group("ms")),
                exception_type=f"{tc.group('how')} (try={tc.group('try')})",
            )
            if giving_up and (_IPV4_RE.fullmatch(host) or ":" in host):
                ev.remote_ip = host  # as the store time-outs below keep an address
            else:
                ev.host = host  # a failed attempt names the store's host as the client wrote it
            report.events.append(ev)
            continue
        if "socket" not in line and "connect()" not in line:
            continue
        if _OPEN_STORE_RE.search(line) and index + 1 < len(lines):
            # wrapped at a fixed width inside its "(host, port)": the next line ends it
            line = line.rstrip("\n") + lines[index + 1][1].lstrip()
        if "timed out" in line and (w := _STORE_WAIT_RE.search(line)):
            amount = int(w.group("ms") or w.group("ms2") or w.group("ms4"))
            amount_ms = amount * 1000 if w.group("unit") == "s" else amount
            retry = next(
                (
                    r
                    for _, nxt, _ in lines[index + 1 : index + 3]
                    if (r := _TCP_CLIENT_RE.search(nxt))
                ),
                None,
            )
            if (
                retry is not None
                and retry.group("how") == "retrying"
                and (amount_ms < int(retry.group("ms")))
            ):
                # one attempt of several: the client's retry line that follows says so (but
                # an attempt that already waited the client's whole time-out is its end)
                continue
            where = (w.group("ip") or w.group("host") or w.group("host3") or "").strip()
            port_text = w.group("port") or w.group("port2") or w.group("port3")
            port = int(port_text) if port_text else None
            if (tagged, where, port) in waited:
                continue
            waited.add((tagged, where, port))
            ev = LogEvent(
                kind="store_timeout",
                line=no,
                message=line.strip()[:300],
                rank=tagged,
                port=port,
                timeout_ms=amount_ms,
                exception_type="waiting for the store" if w.group("ip") else "connecting",
            )
            if where and (_IPV4_RE.fullmatch(where) or ":" in where):
                ev.remote_ip = where
            elif where:
                ev.host = where
            report.events.append(ev)
        elif "failed to connect" in line and (c := _STORE_CONNECT_RE.search(line)):
            key = (c.group("host") or c.group("hostb"), int(c.group("port")), c.group("why"))
            if key in tried:
                continue
            tried.add(key)
            report.events.append(
                LogEvent(
                    kind="store_connect_failure",
                    line=no,
                    message=line.strip()[:300],
                    rank=tagged,
                    host=key[0],
                    port=key[1],
                    exception_type=f"error {c.group('errno')}: {key[2]}",
                )
            )


# The caching allocator's out-of-memory error (PyTorch c10/cuda/CUDACachingAllocator.cpp; torch_npu's
# NPUCachingAllocator prints the same with NPU): older "CUDA out of memory. Tried to allocate 20.00
# MiB (GPU 0; 15.78 GiB total capacity; ...; 3.44 MiB free; ...)", newer "... Tried to allocate
# 1.95 GiB. GPU 0 has a total capacity of 79.14 GiB of which 1.14 GiB is free." (some
# releases printed "total capacty", as many pasted logs show)
_OOM_RE = re.compile(
    r"(?P<lib>CUDA|NPU|HIP) out of memory\. Tried to allocate (?P<size>(?:more than )?[\d.]+ ?[KMGTPE]?i?B)"
    r"(?: \((?:GPU|NPU) (?P<dev>\d+);|\. ?GPU (?P<dev2>\d+) has a total capac(?:i)?ty)?"
)
_OOM_FREE_RE = re.compile(r"(?:; |of which )(?P<free>[\d.]+ ?[KMGT]?i?B)(?: is)? free")
# The newer message's NVML list of the device's compute processes (CUDACachingAllocator.cpp
# reportProcessMemoryInfo: "Process <pid> has <size> memory in use. " for each other process,
# "Including non-PyTorch memory, this process has <size> memory in use. " for its own)
_OOM_PROCESS_RE = re.compile(
    r"(?:Process (?P<pid>\d+)|(?P<self>this process)) has (?P<size>[\d.]+ ?[KMGT]?i?B) memory in use"
)
# MindSpore's device memory pool at start (as its FAQ shows it, in a pytest run): "Malloc device
# memory failed, free memory size is less than half of total memory size.Device 0 Device MOC
# total size:65464696832 Device MOC free size:3596279808 may be other processes occupying this
# card, check as: ps -ef|grep python"
_MS_MALLOC_RE = re.compile(
    r"Malloc device memory failed, free memory size is less than half of total memory size\."
    r"\s*Device (?P<dev>\d+) Device \w+ total size:\s*(?P<total>\d+) Device \w+ free size:\s*"
    r"(?P<free>\d+)"
)


# MindSpore's dynamic memory pool refusing an allocation past the device's memory
# (mem_dynamic_allocator.cc AddMemBlockAndMemBufByEagerFree: "TotalUsedMemStatistics :
# 29356337664 plus TotalUsedByEventMemStatistics : 0 and plus alloc size : 301990400 is more than
# total mem size : 29464985600.")
# MindSpore's log prefix, its module's name with an underscore too: "[ERROR] PRE_ACT(54175,
# fffdbcff91e0,python):..."
_MS_MODULE_PID_RE = re.compile(r"\] [A-Z][A-Z_]*\((?P<pid>\d+),[0-9a-f]+,")
_MS_POOL_FULL_RE = re.compile(
    r"TotalUsedMemStatistics : (?P<used>\d+) plus .*?alloc size : (?P<size>\d+) is more than "
    r"total mem size : (?P<total>\d+)"
)


# CANN's runtime code for a failed device allocation, "EL0004: Failed to allocate memory." with
# the runtime's TraceBack "Call rtMalloc fail, purpose: page caching, type = 2, size:4110811136,
# device_id:0" (a torch_npu traceback ends "RuntimeError: The Inner error as above.")
_CANN_OOM_CODE = "EL0004"
_RT_MALLOC_RE = re.compile(
    r"rtMalloc fail\b.*?size:\s*(?P<size>\d+), device_id:\s*(?P<dev>\d+)"
    # a newer runtime's TraceBack (vllm-ascend issue 3141, CANN 8.2): "Failed to allocate
    # resource[DeviceMemory] with info [size:2147483648]. Reason: Memory resources are exhausted."
    r"|Failed to allocate resource\[DeviceMemory\] with info \[size:(?P<size2>\d+)\]"
)
CANN_OOM_WINDOW_LINES = 14
"""How far after EL0004's line the runtime's TraceBack lines (its failed rtMalloc, the device it
was opening) may stand."""
# the runtime opening a device whose memory pool it could not set up (runtime raw_device.cc "Fail
# to init MemoryPoolManager", then log_inner.cpp "open device 2 failed, runtime result =
# 507033."): the memory ran out as the device was opened, before the program allocated anything
# (an OCR'd copy: "open device 7 failed. runtime resul t = 507033.")
_OPEN_DEVICE_RE = re.compile(
    r"open device (?P<dev>\d+) failed[,.] runtime resul ?t ?= ?(?P<ret>\d+)"
)
# the runtime's TSD client failing to open a device ("TsdOpen failed. devId=0, tdt error=34"
# under torch_npu's 507033), before "Start aicpu executor failed"
_TSD_OPEN_RE = re.compile(r"TsdOpen failed\. devId=(?P<dev>\d+), tdt error=(?P<err>\d+)")


# The runtime's call into the driver for device memory, refused for want of it (runtime
# npu_driver.cc: "halMemAlloc failed: device_id=7, size=15069901824, type=2, env_type=3,
# drvRetCode=6!"; drvRetCode 6 is DRV_ERROR_OUT_OF_MEMORY, hicann/driver ascend_hal_error.h)
_HAL_MEM_ALLOC_OOM_RE = re.compile(
    r"halMemAlloc failed: device_id=(?P<dev>\d+), size=(?P<size>\d+),[^!\n]{0,80}?drvRetCode=6\b"
)


# MindIE-LLM's warm-up (its service's first inference at its largest input) that did not fit:
# "[llm] [ERROR] [logging.py-348] : Warmup failed, because of multimodal model inference out of
# memory when `maxInputTokenLen` set to 8192. Please try to decrease `maxPrefillTokens` in
# config.json of mindie-service."
# MindIE-LLM's exception handler on a device OOM: "RuntimeError: Device out of memory (OOM)
# reported by PyTorch, but it can possibly triggered by HCCL. Enable logs: ... Error_code:
# MIE05E000006"
_MINDIE_OOM_RE = re.compile(
    r"Device out of memory \(OOM\) reported by PyTorch[^\n]*?(?:Error_code: (?P<code>MIE\w+))?\s*$"
)
_MINDIE_WARMUP_OOM_RE = re.compile(
    r"\bWarmup failed, because of (?P<what>[^.\n]{0,200}?out of memory[^.\n]{0,200})\."
    r"(?:\s*(?P<advice>Please try to [^\n]{1,200}?\.)(?=\s|$))?"
)


_NCCL_CUDA_OOM_RE = re.compile(
    r"(?P<nccl>Cuda failure 2 'out of memory')|CUBLAS_STATUS_ALLOC_FAILED when calling `?cublasCreate"
)
_NCCL_DEVICE_TAG_RE = re.compile(r":\d+:\d+ \[(\d+)\] ")
"""NCCL's debug prefix's device: "host:pid:tid [0] include/alloc.h:103 NCCL WARN ..."."""


def _device_oom(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One event per rank and device: the traceback repeats the allocator's message. CANN's
    EL0004 (read as an error code) is the same failure from the runtime: it becomes one."""
    coded = [e for e in report.events if e.kind == "hccl_error" and e.code == _CANN_OOM_CODE]
    if coded:
        index_of = {no: i for i, (no, _, _) in enumerate(lines)}
        for ev in coded:
            ev.kind, ev.library = "device_oom", "NPU"
            ev.exception_type = "EL0004: device memory could not be allocated (size not printed)"
            at = index_of.get(ev.line, len(lines))
            trace = [t for _, t, _ in lines[at + 1 : at + 1 + CANN_OOM_WINDOW_LINES]]
            opened = next((o for t in trace if (o := _OPEN_DEVICE_RE.search(t))), None)
            if opened and any("MemoryPoolManager" in t for t in trace):
                ev.device = int(opened.group("dev")) if ev.device is None else ev.device
                ev.library = "NPU runtime"
                ev.exception_type = (
                    f"EL0004: device {ev.device}'s memory ran out as the runtime opened it (its "
                    f"memory pool could not be set up; runtime result {opened.group('ret')}): "
                    "likely held by other processes (CANN's own cause: the available memory is "
                    "insufficient)"
                )
                continue
            for nxt in trace:
                if ("rtMalloc" in nxt or "DeviceMemory" in nxt) and (
                    rm := _RT_MALLOC_RE.search(nxt)
                ):
                    if ev.device is None and rm.group("dev"):
                        ev.device = int(rm.group("dev"))
                    ev.exception_type = (
                        f"tried to allocate {int(rm.group('size') or rm.group('size2'))} B"
                    )
                    break
    seen: set[tuple[int | None, int | None]] = set()
    for no, line, tagged in lines:
        if "out of memory (OOM) reported by" in line and (mo := _MINDIE_OOM_RE.search(line)):
            if (tagged, None) not in seen:
                seen.add((tagged, None))
                report.events.append(
                    LogEvent(
                        kind="device_oom",
                        line=no,
                        message=line[mo.start() :].strip()[:300],
                        rank=tagged,
                        code=mo.group("code"),
                        library="MindIE",
                        exception_type="device out of memory, as MindIE reports it"
                        + (f" ({mo.group('code')})" if mo.group("code") else "")
                        + ": PyTorch's out-of-memory, which MindIE says HCCL's own buffers may "
                        "have caused (its plog at ASCEND_GLOBAL_LOG_LEVEL=3 says whether)",
                    )
                )
            continue
        if "Warmup failed" in line and (wu := _MINDIE_WARMUP_OOM_RE.search(line)):
            if (tagged, None) not in seen:
                seen.add((tagged, None))
                report.events.append(
                    LogEvent(
                        kind="device_oom",
                        line=no,
                        message=line[wu.start() :].strip()[:300],
                        rank=tagged,
                        library="MindIE warm-up",
                        exception_type=f"MindIE's warm-up ran out of device memory "
                        f"({' '.join(wu.group('what').split())})"
                        + (
                            f"; it advises: {wu.group('advice').strip()}"
                            if wu.group("advice")
                            else ""
                        ),
                    )
                )
            continue
        key: tuple[int | None, int | None]
        if "halMemAlloc failed" in line and (hm := _HAL_MEM_ALLOC_OOM_RE.search(line)):
            key = (tagged, int(hm.group("dev")))
            if key not in seen:
                seen.add(key)
                report.events.append(
                    LogEvent(
                        kind="device_oom",
                        line=no,
                        message=line[hm.start() : hm.end()].strip()[:300],
                        rank=tagged,
                        device=key[1],
                        library="NPU driver",
                        exception_type=f"the driver could not allocate {int(hm.group('size'))} B "
                        "of device memory (halMemAlloc: drvRetCode 6, DRV_ERROR_OUT_OF_MEMORY)",
                    )
                )
            continue
        if "is more than total mem size" in line and (mp := _MS_POOL_FULL_RE.search(line)):
            pid = _MS_MODULE_PID_RE.search(line)
            key = (tagged, None)
            if key not in seen:
                seen.add(key)
                report.events.append(
                    LogEvent(
                        kind="device_oom",
                        line=no,
                        message=line[mp.start() :].strip()[:300],
                        rank=tagged,
                        pid=int(pid.group("pid")) if pid else None,
                        library="MindSpore",
                        exception_type=f"MindSpore's device memory pool: {int(mp.group('used'))} B "
                        f"in use and {int(mp.group('size'))} B asked, more than its "
                        f"{int(mp.group('total'))} B",
                    )
                )
            continue
        if "Malloc device memory failed" in line and (ms := _MS_MALLOC_RE.search(line)):
            key = (tagged, int(ms.group("dev")))
            if key not in seen:
                seen.add(key)
                report.events.append(
                    LogEvent(
                        kind="device_oom",
                        line=no,
                        message=line[ms.start() :].strip()[:300],
                        rank=tagged,
                        device=key[1],
                        library="NPU",
                        exception_type=f"less than half of the device's memory was free at start "
                        f"({int(ms.group('free'))} of {int(ms.group('total'))} B): other "
                        "processes hold it",
                    )
                )
            continue
        if (
            ("Cuda failure 2 'out of memory'" in line and "NCCL WARN" in line)
            or "CUBLAS_STATUS_ALLOC_FAILED" in line
        ) and (nm := _NCCL_CUDA_OOM_RE.search(line)):
            # (NCCL's own WARN line: a program quoting it as a last error reads it as such)
            # NCCL's own CUDA allocation refused (cudaErrorMemoryAllocation, 2), or cuBLAS's
            # handle that could not get its memory: the device's memory is used up
            dev_m = _NCCL_DEVICE_TAG_RE.search(line[: nm.start()])
            key = (tagged, int(dev_m.group(1)) if dev_m else None)
            host_m = _NCCL_DEBUG_HOST_RE.search(line)
            if key not in seen:
                seen.add(key)
                report.events.append(
                    LogEvent(
                        kind="device_oom",
                        line=no,
                        message=line.strip()[:300],
                        rank=tagged,
                        host=host_m.group("host") if host_m else None,
                        device=key[1],
                        library="NCCL" if nm.group("nccl") else "cuBLAS",
                        exception_type="NCCL's CUDA allocation failed: the device is out of memory"
                        if nm.group("nccl")
                        else "cuBLAS could not allocate its handle's memory "
                        "(CUBLAS_STATUS_ALLOC_FAILED): the device is out of memory",
                    )
                )
            continue
        if "out of memory" not in line or not (m := _OOM_RE.search(line)):
            continue
        dev = m.group("dev") or m.group("dev2")
        key = (tagged, int(dev) if dev else None)
        if key in seen:
            continue
        seen.add(key)
        what = f"tried to allocate {m.group('size')}"
        if re.search(r"[PE]i?B$", m.group("size")):
            # (torch's allocators refuse any size of 1 EiB or more before asking the device,
            # TORCH_CHECK_WITH(OutOfMemoryError, size < one_exa_bytes, "... Tried to allocate
            # more than 1EB memory.", as CudaMallocAsyncAllocator has it): the size is wrong,
            # as when ranks exchange object sizes out of step in a collective)
            what += (
                ": a size no device has, so the request itself is wrong (a size exchanged by "
                "ranks out of step in a collective, such as all_gather_object with uneven "
                "batches per rank, or an overflowed shape), not a device short of memory"
            )
        if free := _OOM_FREE_RE.search(line, m.end()):
            what += f", {free.group('free')} free"
        held = list(_OOM_PROCESS_RE.finditer(line, m.end()))
        # (only where NVML also listed this process: in a container the pid listed alone is
        # this one, seen from the host's pid namespace)
        others = [h for h in held if h.group("pid")] if any(h.group("self") for h in held) else []
        if others:
            what += "; other process(es) on the device: " + ", ".join(
                f"pid {h.group('pid')} holds {h.group('size')}" for h in others
            )
            what += "".join(f", this process {h.group('size')}" for h in held if h.group("self"))
        logged_pid = _logger_pid(line)
        report.events.append(
            LogEvent(
                kind="device_oom",
                line=no,
                message=line.strip()[:300],
                rank=tagged,
                # (torch_npu's logger's own process id, "[383554] [date] torch_npu.memory: ...")
                pid=int(logged_pid) if logged_pid else None,
                device=key[1],
                library=m.group("lib"),
                exception_type=what,
            )
        )


def _monitored_barrier(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    seen: set[tuple[str, int | None]] = set()
    for index, (no, line, tagged) in enumerate(lines):
        if "monitoredBarrier" not in line:
            continue
        if m := _MB_PEER_RE.search(line):
            rank = int(m.group("rank"))
            if ("peer", rank) in seen:
                continue
            seen.add(("peer", rank))
            ev = LogEvent(
                kind="monitored_barrier_failure",
                line=no,
                message=line.strip()[:300],
                rank=rank,
                remote_rank=int(m.group("root")),
                exception_type="its send/recv with the coordinating rank failed",
            )
            window = [t for _, t, _ in lines[index + 1 : index + 1 + MB_EXCEPTION_WINDOW_LINES]]
            if closed := _search(_GLOO_CLOSED_RE, window):
                ev.remote_ip, ev.port = closed.group("ip"), int(closed.group("port"))
            report.events.append(ev)
        elif (mm := _MB_MISSING_RE.search(line)) and ("missing", tagged) not in seen:
            seen.add(("missing", tagged))
            report.events.append(
                LogEvent(
                    kind="monitored_barrier_failure",
                    line=no,
                    message=line.strip()[:300],
                    rank=tagged,
                    missing_ranks=_rank_list(mm.group("ranks")),
                    timeout_ms=int(mm.group("ms")),
                    exception_type="ranks never reached the barrier",
                )
            )


# The launcher's own account of a rank that exited non-zero: Slurm's srun ("srun: error:
# gpu-node2: task 1: Exited with exit code 134", a range "tasks 0-3"), Open MPI's mpirun ("mpirun
# detected that one or more processes exited with non-zero status ... The first process to do so
# was:" then "Process name: [[2403,1],1]" and "Exit code: 3").
_SRUN_EXIT_RE = re.compile(
    r"srun: error: (?P<host>\S+): tasks? (?P<task>\d+(?:[-,][\d,-]*)?): (?:Exited with exit code "
    r"(?P<code>\d+)|(?P<oom>Out Of Memory)|(?P<sig>[A-Z][a-z]+(?: [a-z]+)*?)(?: \(core dumped\))?"
    r"\s*$)"
)
# (Slurm's task state OUT_OF_MEMORY, its cgroup's OOM killer: "task 0: Out Of Memory", after
# slurmstepd's "Detected 1 oom_kill event in StepId=8538204.0"; LUMI's course notes)
MAX_TASKS_PER_LINE = 4096
"""A task range of one srun line is read up to this many tasks (a line cannot name more ranks
than a job has; this bounds what a malformed range costs)."""


def _task_list(tasks: str) -> list[int]:
    """srun's task list ("2-7", "8-13,15", "1"): every task it names, in order."""
    out: list[int] = []
    for part in tasks.strip(",-").split(","):
        lo, _, hi = part.partition("-")
        if not lo.isdigit():
            continue
        end = int(hi) if hi.isdigit() else int(lo)
        out.extend(range(int(lo), min(end, int(lo) + MAX_TASKS_PER_LINE - 1) + 1))
        if len(out) >= MAX_TASKS_PER_LINE:
            return out[:MAX_TASKS_PER_LINE]
    return out


# A task ended by a signal: srun prints strsignal() of it, " (core dumped)" after it when it
# dumped (Slurm launch_slurm.c _task_finish, error("%s: %s %s: %s%s", ...)); glibc's texts of
# the signals a rank dies of, kept as the shell's exit code 128 + N.
SIGNAL_TEXTS = {
    "Hangup": 1,
    "Interrupt": 2,
    "Quit": 3,
    "Illegal instruction": 4,
    "Trace/breakpoint trap": 5,
    "Aborted": 6,
    "Bus error": 7,
    "Floating point exception": 8,
    "Killed": 9,
    "Segmentation fault": 11,
    "Broken pipe": 13,
    "Terminated": 15,
}
# srun whose allocation was taken back before any task ran (Slurm's allocate.c, error("Job
# allocation %u has been revoked") when the job was killed while its nodes were readied; a failed
# PrologSlurmctld is one cause, "srun: PrologSlurmctld failed, job killed")
_SRUN_REVOKED_RE = re.compile(r"srun: error: Job allocation (?P<job>\d+) has been revoked")
# srun's reports of a node it lost or could not start a step on (Slurm's srun: "srun: error: Node
# failure on jean-zay-iam37" when slurmctld marks an allocated node down; "srun: error: Task
# launch for StepId=96.0 failed on node n2: No such process" when slurmd did not start it)
_SRUN_NODE_FAILURE_RE = re.compile(r"srun: error: Node failure on (?P<host>\S+)")
_SRUN_LAUNCH_FAILED_RE = re.compile(
    r"srun: error: Task launch for StepId=\S+ failed on node (?P<host>[^:\s]+): (?P<why>.+?)\s*$"
)
# Open MPI when its daemons did not start on the other nodes ("ORTE was unable to reliably start
# one or more daemons."), after ssh's own words for each host it could not reach ("ssh: Could not
# resolve hostname nccl-tests-worker-0.nccl-tests.default.svc: Name or service not known")
# (Open MPI 5's PRRTE says it as "prterun was unable to reliably start one or more daemons.")
_ORTE_NO_DAEMONS_RE = re.compile(
    r"(?:ORTE|prterun) was unable to reliably start one or more daemons"
)
_SSH_HOST_RE = re.compile(
    r"ssh: (?:Could not resolve hostname|connect to host) (?P<host>[^\s:]+)[: ]\s*(?P<why>.*?)\s*$"
)
# ssh's own refusals that name no host (OpenSSH: the remote's host key not known or changed, the
# remote closing the connection before its identification, a key the remote refused)
_SSH_CAUSE_RE = re.compile(
    r"^\s*(?P<why>Host key verification failed\.|ssh_exchange_identification: Connection closed "
    r"by remote host|kex_exchange_identification: [^\n]+|Permission denied \(publickey[^)]*\)\.?)\s*$"
)
ORTE_SSH_LINES = 20
"""How far above Open MPI's "unable to reliably start" its ssh lines may stand."""
# Ray's raylet when the cluster's control store gave up on its heartbeats: "node_manager.cc:170:
# This node has beem marked as dead." (Ray's spelling in the releases that print it), after "Last
# heartbeat was sent 6901 ms ago"
_RAY_NODE_DEAD_RE = re.compile(r"node_manager\.cc:\d+: This node has bee[nm] marked as dead")
# PaddlePaddle's launcher (paddle.distributed.launch): "Container rank 0 status failed cmd [...]
# code 1 log log/workerlog.0" for a worker, "LAUNCH INFO 2022-11-21 02:35:54,386 Exit code 1" for
# the launch itself
_PADDLE_RANK_EXIT_RE = re.compile(
    r"Container rank (?P<rank>\d+) status failed cmd .*? code (?P<code>-?\d+)\b"
)
_PADDLE_EXIT_RE = re.compile(r"^\s*LAUNCH (?:INFO|ERROR) [\d-]+ [\d:,]+ Exit code (?P<code>-?\d+)")
# DeepSpeed's launcher (launcher/launch.py, sigkill_handler): "[ERROR] [launch.py:325:
# sigkill_handler] ['/opt/conda/bin/python', '-u', ..., '--local_rank=7', ...] exits with return
# code = -6": the return code is the failed process's, the command the last one the launcher
# built (logger.error(f"{cmd} exits ...") after its launch loop)
# (newer releases pass the local rank in the environment, not as --local_rank=N: the command has
# none then)
_DS_EXIT_RE = re.compile(
    r"sigkill_handler\] \[(?:.*?'--local_rank=(?P<lr>\d+)')?.*\] exits with return code = (?P<code>-?\d+)"
)
# pdsh (DeepSpeed's multi-node runner) when a node's command ended non-zero: "pdsh@vnode1:
# trainer-2: ssh exited with exit code 1"
_PDSH_EXIT_RE = re.compile(
    r"pdsh@(?P<from>[\w.-]+): (?P<host>[\w.-]+): ssh exited with exit code (?P<code>\d+)"
)
# HPE Cray PALS' mpiexec (ALCF Polaris, Aurora): "x3204c0s7b1n0.hsn.cm.polaris.alcf.anl.gov: rank
# 97 exited with code 1", "...: rank 117 died from signal 15" (" and dumped core" after it); the
# node's "shepherd died from signal 9" is PALS' own agent, no rank
_PALS_EXIT_RE = re.compile(
    r"^(?P<host>[\w.-]+): rank (?P<rank>\d+) (?:exited with code (?P<code>\d+)|died from signal "
    r"(?P<sig>\d+))"
)
# MPICH's Hydra mpiexec on a rank that ended badly: "=   BAD TERMINATION OF ONE OF YOUR
# APPLICATION PROCESSES", "=   RANK 1 PID 30012 RUNNING AT c198-031", then "=   KILLED BY SIGNAL:
# 11 (Segmentation fault)" or "=   EXIT CODE: 9"
_HYDRA_RANK_RE = re.compile(r"=\s+RANK (?P<rank>\d+) PID (?P<pid>\d+) RUNNING AT (?P<host>\S+)")
_HYDRA_END_RE = re.compile(r"=\s+(?:KILLED BY SIGNAL: (?P<sig>\d+)|EXIT CODE: (?P<code>\d+))")
# torch.multiprocessing.spawn (spawn.py ProcessContext.join): a process that raised, "-- Process
# 1 terminated with the following error:" then its traceback (ProcessRaisedException); one that
# exited, "process 1 terminated with exit code 1" or "... with signal SIGABRT"
# (ProcessExitedException). The index is the process's, which spawn passes its function as rank.
_SPAWN_RAISED_RE = re.compile(r"-- Process (?P<idx>\d+) terminated with the following error:")
_SPAWN_EXITED_RE = re.compile(
    r"\bprocess (?P<idx>\d+) terminated with (?:signal (?P<sig>SIG[A-Z0-9]+)|exit code "
    r"(?P<code>-?\d+))"
)
SPAWN_TRACE_LINES = 60
"""How far below spawn's "terminated with the following error" the exception's line may stand."""
DS_WRAP_LINES = 3
"""How many lines above its end a DeepSpeed exit record wrapped by a terminal or a page may
start (its argument list is long: a page that breaks lines at a fixed width cuts it in a word)."""


# DeepSpeed's launcher stopping its workers (launcher/launch.py sigkill_handler: "Killing
# subprocess <pid>" for each, at INFO): it is called when a worker exited non-zero (its return
# code then follows as "exits with return code = N") or when the launcher itself got SIGINT or
# SIGTERM ("Main process received SIGTERM, exiting")
_DS_KILLING_RE = re.compile(r"sigkill_handler\] Killing subprocess (?P<pid>\d+)")
_DS_SIGNALLED_RE = re.compile(r"Main process received (?P<sig>SIG[A-Z]+), exiting")


def _deepspeed_kills(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """DeepSpeed's launcher killing its workers, its record of why cut off or not printed: a
    ``launcher_exit`` of the run (which worker failed is not in the copy)."""
    pids: list[str] = []
    first = 0
    signalled = None
    for no, line, _ in lines:
        if "Killing subprocess" in line and (m := _DS_KILLING_RE.search(line)):
            first = first or no
            if m.group("pid") not in pids:
                pids.append(m.group("pid"))
        elif "Main process received" in line and (m := _DS_SIGNALLED_RE.search(line)):
            signalled = m.group("sig")
    if not pids:
        return
    report.events.append(
        LogEvent(
            kind="launcher_exit",
            line=first,
            message=f"DeepSpeed's launcher killed its worker process(es) {', '.join(pids)}: "
            + (
                f"the launcher received {signalled}"
                if signalled
                else "a worker exited non-zero (its return code is not in the copy) or the "
                "launcher was signalled"
            ),
            exception_type="DeepSpeed's launcher",
        )
    )


def _deepspeed_exit(
    lines: list[tuple[int, str, int | None]], index: int
) -> tuple[re.Match[str], int, str] | None:
    """The DeepSpeed exit record that ends on line ``index``: its match, first line and text,
    joined as it was cut (mid-word: no separator) when it starts on a line above."""
    line = lines[index][1]
    if m := _DS_EXIT_RE.search(line):
        return m, lines[index][0], line
    for start in range(index - 1, max(-1, index - 1 - DS_WRAP_LINES), -1):
        if "sigkill_handler]" in lines[start][1]:
            text = "".join(t for _, t, _ in lines[start : index + 1])
            return (m, lines[start][0], text) if (m := _DS_EXIT_RE.search(text)) else None
    return None


# vLLM's multiprocess executor when one of its workers exits non-zero (multiproc_worker_utils.py,
# logger.error("Worker %s pid %s died, exit code: %s", ...)): "Worker VllmWorkerProcess pid 198
# died, exit code: -6" (a negative code is the signal that ended it)
_VLLM_WORKER_EXIT_RE = re.compile(
    r"Worker (?P<name>\S+) pid (?P<pid>\d+) died, exit code: (?P<code>-?\d+)"
)
# Open MPI's errmgr: a daemon it could not start ("bash: orted: command not found", then "A daemon
# (pid 8793) died unexpectedly with status 127 while attempting to launch so we are aborting.";
# "... died unexpectedly on signal N ..."), and the process that ended the job ("mpirun noticed
# that process rank 1 with PID 2519 on node n1 exited on signal 9 (Killed).")
_MPI_DAEMON_RE = re.compile(
    r"A daemon \(pid (?P<pid>\d+)\) died unexpectedly (?:with status (?P<code>\d+)|on signal "
    r"(?P<sig>\d+))"
)
_MPI_NOTICED_RE = re.compile(
    r"mpirun(?:\.real)? noticed that process rank (?P<rank>\d+) with PID (?P<pid>\S+) on node (?P<host>\S+) "
    r"exited on signal (?P<sig>\d+)"
)
# Open MPI's help text when -np asks more processes than the hosts' slots: "There are not
# enough slots available in the system to satisfy the 16\nslots that were requested by the
# application:\n\n  /path/all_reduce_perf" (then its advice: fewer processes, more slots by a
# hostfile's slots=N or --host HOST:N, or --oversubscribe)
# ORTE's internal error between its daemons: "[[25215,0],1] FORCE-TERMINATE AT Data unpack would
# read past end of buffer:-26 - error grpcomm_direct.c(359)" (Horovod's troubleshooting guide: a
# wrong hwloc or Open MPI build on a node)
_ORTE_FORCE_TERMINATE_RE = re.compile(
    r"(?P<daemon>\[\[\d+,\d+\],\d+\]) FORCE-TERMINATE AT (?P<what>[^\n]{1,300}?):-?\d+ - error "
    r"(?P<where>\S+)"
)
# srun refusing a step inside its allocation ("srun: error: Unable to create step for job 551:
# More processors requested than permitted"): the step asked more tasks or CPUs than the job has
_SRUN_STEP_RE = re.compile(
    r"\bsrun: error: Unable to create step for job (?P<job>\d+): (?P<why>\S.*?)\s*$"
)
_MPI_SLOTS_RE = re.compile(
    r"There are not enough slots available in the system to satisfy the (?P<n>\d+)"
)
MPI_SLOTS_APP_LINES = 4
"""How far under it Open MPI's help text names the application."""
MPI_DAEMON_CAUSE_LINES = 3
"""How far above Open MPI's daemon line (past its dashed rule) the shell's reason may stand."""
_MPI_FIRST_RE = re.compile(r"The first process to do so was")
_MPI_ABORTED_RE = re.compile(r"Primary job\s+terminated normally, but (?P<n>\d+) process")
# (Open MPI's "[[43015,1],3]"; PRRTE's prterun, Open MPI 5, "[prterun-HOST-PID@1,10]": the rank
# after the job's name)
_MPI_PROCESS_RE = re.compile(r"Process name:\s*\[(?:\[\d+,\d+\]|[\w.-]+@\d+),(?P<rank>\d+)\]")
_MPI_EXIT_RE = re.compile(r"Exit code:\s*(?P<code>-?\d+)")
_MPI_HOST_RE = re.compile(r"^\s*Host:\s*(?P<host>\S+)")
MPI_SUMMARY_LINES = 6
"""How many lines after "The first process to do so was" mpirun's name, host and code span."""
# HPE PALS' mpiexec when a node could not start its share of the job: "start failed on
# x3006c0s1b1n0: CXI alloc failed on cxi0: request exceeds ACs limits" (a saved Polaris run in
# ALCF's nccl-tests repository; the reason is the node's: here its Slingshot NIC's resources)
_PALS_START_RE = re.compile(r"\bstart failed on (?P<host>[\w.-]+): (?P<why>\S.*)$")
# Open MPI's runtime losing a node (its help text "lost-connection"): "ORTE has lost
# communication with a remote daemon." (PRRTE, Open MPI 5: "PRTE has lost ..."), then "HNP
# daemon   : [[43015,0],0] on node LAUNCHER" and "Remote daemon: [[43015,0],20] on node WORKER":
# that node (or the network to it) failed and mpirun ends the job
_ORTE_LOST_RE = re.compile(r"\b(?:ORTE|PRTE) has lost communication with a remote daemon")
_ORTE_HNP_RE = re.compile(r"HNP daemon\s*:\s*\S+ on node (?P<node>\S+)")
_ORTE_REMOTE_RE = re.compile(r"Remote daemon\s*:\s*(?P<daemon>\S+) on node (?P<node>\S+)")
ORTE_LOST_LINES = 4
"""How far after that sentence its two daemon lines stand."""
# Ray's memory monitor (the raylet kills a worker when the node's memory use passes
# RAY_memory_usage_threshold, 0.95 by default) raises ray.exceptions.OutOfMemoryError in the
# caller: "Memory on the node (IP: 172.31.69.247, ID: 5bf8...) where the task was running was
# 54.86GB / 57.60GB (0.952354), which exceeds the memory usage threshold of 0.95. Ray killed this
# worker (ID: 0c7d...) because it was the most recently scheduled task" (ray issue 28776)
# Ray's account of a worker process that ended (the raylet: "A worker died or was killed while
# executing a task by an unexpected system error. ... Worker IP address: 10.109.18.239 Worker
# port: 10015 Worker PID: 1530113 Worker exit type: SYSTEM_ERROR Worker exit detail: Worker
# unexpectedly exits with a connection error code 2. End of file. ..."; an ActorDiedError: "The
# actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR ...", its
# pid and ip in the fields above)
_RAY_WORKER_EXIT_RE = re.compile(
    r"(?:Worker IP address: (?P<ip>[\d.]+) .*?Worker PID: (?P<pid>\d+) )?"
    r"Worker exit type: (?P<type>[A-Z_]+) Worker exit detail: (?P<detail>[^.]*\.(?:[^.]*\.)?)"
)
_RAY_ACTOR_FIELD_RE = re.compile(r"^\s+(pid|ip): (\S+)\s*$")
RAY_ACTOR_FIELD_LINES = 10
"""How far above an ActorDiedError's exit line its pid and ip fields may stand."""
_RAY_OOM_RE = re.compile(
    r"Memory on the node \(IP: (?P<ip>[^,]+), ID: \w+\) where the task (?:\([^)]*\) )?was "
    r"running was (?P<used>[\d.]+) ?GB / (?P<total>[\d.]+) ?GB \((?P<frac>[\d.]+)\), which exceeds "
    r"the memory usage threshold of (?P<thr>[\d.]+)\. Ray killed this worker \(ID: (?P<worker>\w+)\)"
)
# Open MPI's signal handler in each process (opal's stacktrace): "[host:pid] *** Process received
# signal ***", then with the same prefix "Signal: Segmentation fault (11)", "Signal code: Address
# not mapped (1)", "Failing at address: 0x8" and the frames; the handler re-raises the signal,
# so the process ends there. Two processes' blocks may interleave.
_OMPI_SIGNAL_RE = re.compile(
    r"^\s*\[(?P<host>[^:\]\s]+):(?P<pid>\d+)\] \*\*\* Process received signal \*\*\*"
)
_OMPI_SIGNAL_FIELD_RE = re.compile(
    r"^\s*\[(?P<host>[^:\]\s]+):(?P<pid>\d+)\] (?:Signal: (?P<name>[^(\n]*?)\s*\((?P<num>\d+)\)"
    r"|(?P<field>Signal code|Failing at address): (?P<value>.*?)\s*$)"
)
# A shell's report of a child a signal ended, under a launcher's rank tag (horovodrun's
# "[0]<stderr>:Killed", "[1]<stderr>:Aborted (core dumped)"): bash prints strsignal() of the
# signal, then " (core dumped)" when the process dumped core. Only a whole line under a tag: an
# untagged "Killed" could be any program's word.
_SHELL_END_RE = re.compile(
    r"^(?P<sig>Killed|Terminated|Aborted|Segmentation fault|Bus error|Floating point exception"
    r"|Illegal instruction)(?: \(core dumped\))?$"
)
# glibc's assert(3) before it aborts (assert/assert.c, __assert_fail_base: "%s%s%s:%u: %s%sAssertion
# `%s' failed."): "train_gpt2cu: llmc/dataloader.h:186: void dataloader_init(...): Assertion
# `shard_ntok >= ...' failed." right above the handler's block of the SIGABRT it raised
_ASSERT_RE = re.compile(
    r"^\s*(?P<prog>[^\s:]+): (?P<file>[^\s:]+):(?P<line>\d+): (?:.*?: )?Assertion `(?P<expr>.*)' "
    r"failed\.?\s*$"
)
ASSERT_LINES = 4
"""How far above an abort's signal block its assertion may stand (another process's lines may
interleave)."""
# UCX's own signal handler (ucs/debug), in a process that loaded UCX (Open MPI's pml, NCCL's or
# NIXL's UCX plugin): "[host:pid:tid:thread] Caught signal 11 (Segmentation fault: address not
# mapped to object at address 0x28)", then its backtrace; the process ends there
_TERMINATE_WHAT_RE = re.compile(r"^\s*what\(\):\s+(?P<what>\S.*)")
# Open MPI's TCP transport when a peer's connection drops (its help text "An MPI communication
# peer process has unexpectedly disconnected. ... the root cause of this problem is the failure of
# the peer", then "Local host:", "Local PID:", "Peer host:")
_MPI_PEER_FIELD_RE = re.compile(r"^(?P<key>Local host|Local PID|Peer host):\s*(?P<value>\S+)\s*$")
_MPI_PEER_LOST = "Open MPI (a process on "
"""How the advisor words a survivor's report of a peer that disconnected (its launcher)."""
MPI_PEER_LOST_LINES = 20
"""How far under Open MPI's "peer ... disconnected" its host fields may stand."""
# numactl (numactl.c) prints "<%s> is invalid" for a CPU or node list it cannot parse, then its
# usage, and exits 1; libnuma (libnuma.c numa_parse_cpustring / nodestring) has said why on
# stderr: "libnuma: Warning: cpu argument 64-71 is out of range" ("node argument N ...")
_NUMACTL_INVALID_RE = re.compile(r"^<(?P<arg>[^<>\s]{1,200})> is invalid\s*$")
_LIBNUMA_RANGE_RE = re.compile(r"(?:cpu|node) argument \S{1,100} is out of range")
NUMACTL_USAGE_LINES = 40
"""How far from numactl's "is invalid" line its usage text and libnuma's warning may stand."""
_UCX_SIGNAL_RE = re.compile(
    r"^\s*\[(?P<host>[^:\]\s]+):(?P<pid>\d+)\s*:\s*\d+:\s*(?P<tid>\d+)\] Caught signal (?P<num>\d+) "
    r"\((?P<what>[^)\n]*)\)?"  # (its words may be cut with the copy: "(Bus error")
)


# tvm_ffi's SIGSEGV handler (tvm_ffi src/ffi/backtrace.cc): "!!!!!!! Segfault encountered !!!!!!!",
# then its backtrace ('  File "<unknown>", line 0, in ucs_topo_cleanup', or a symbol a line), then
# the signal raised again with the default handler: the process ends with SIGSEGV
_TVM_SEGFAULT_RE = re.compile(r"^!{3,}\s*Segfault encountered\s*!{3,}$")
_NATIVE_FRAME_RE = re.compile(
    r'^\s*(?:File "[^"]*", line \d+, in (?P<sym>\S.*?)|(?P<sym2>[A-Za-z_][\w:<>~]*)\(.*\))\s*$'
)
# vLLM's engine client when its engine core process died while starting: "RuntimeError: Engine core
# initialization failed. See root cause above. Failed core proc(s): {'EngineCore': -11}" (each
# process's exit code, negative for a signal)
_VLLM_CORE_START_RE = re.compile(r"\bEngineCore failed to start\.?\s*$")
_VLLM_CORE_PROCS_RE = re.compile(r"Failed core proc\(s\): \{(?P<procs>[^}]*)\}")
_VLLM_CORE_PROC_RE = re.compile(r"'(?P<proc>[^']+)': (?P<code>-?\d+)")


def _nccl_devices_by_pid(lines: list[tuple[int, str, int | None]]) -> dict[tuple[str, int], int]:
    """The CUDA device each process's NCCL lines name ("host:pid:tid [dev] NCCL INFO ..."), by
    host and pid: the GPU of a process whose crash names only its pid."""
    found: dict[tuple[str, int], int] = {}
    for _, line, _ in lines:
        if " NCCL " in line and (m := _NCCL_PREFIX_RE.search(line)):
            found.setdefault((m.group("host"), int(m.group("pid"))), int(m.group("dev")))
    return found


# a backtrace frame inside NCCL: "4 0x...50853 ncclGetUniqueId()  ???:0", "... libnccl.so.2:0"
_NCCL_FRAME_SYMBOL_RE = re.compile(r"\b(nccl[A-Z]\w*)\(|(libnccl\.so)")
UCX_BACKTRACE_LINES = 40
# UCX's handler prints each thread's stack under "==== backtrace (tid:    227) ====" (ucs/debug/
# debug.c), one frame a line: " 7 0x000000000007421b PMPI_Group_incl()  /path/pgroup_incl.c:87";
# several processes that crashed at once print their "Caught signal" lines first, then the stacks
_UCX_BACKTRACE_RE = re.compile(r"^\s*=+ backtrace \(tid:\s*(?P<tid>\d+)\) =+")
_UCX_FRAME_RE = re.compile(r"^\s*(?P<n>\d+)\s+0x[0-9a-fA-F]+\s+(?P<sym>[A-Za-z_][\w:~<>]*)\(\)")
UCX_BACKTRACE_SEARCH_LINES = 2000
"""How far below its "Caught signal" line a process's own backtrace may stand."""
_SIGNAL_FRAMES = ("__sigaction", "__restore_rt", "ucs_", "__GI_", "killpg", "raise", "abort")
"""Frames of the signal's own handling above the one the process crashed in."""
_MPI_FRAMES = ("ompi_", "opal_", "orte_", "mca_", "PMPI_", "MPI_", "pmix_", "prte_")
"""Open MPI's (and its PMIx runtime's) symbols."""


def _ucx_backtrace(
    lines: list[tuple[int, str, int | None]], index: int, tid: str
) -> list[tuple[int, str, int | None]]:
    """The frames UCX printed for thread ``tid`` (its own ``backtrace (tid: N)`` block), else
    the lines just below its "Caught signal" line."""
    for at in range(index + 1, min(len(lines), index + 1 + UCX_BACKTRACE_SEARCH_LINES)):
        t = lines[at][1]
        if "backtrace (tid:" in t and (m := _UCX_BACKTRACE_RE.match(t)) and m.group("tid") == tid:
            return lines[at + 1 : at + 1 + UCX_BACKTRACE_LINES]
    return lines[index + 1 : index + 1 + UCX_BACKTRACE_LINES]


def _ucx_crash_site(stack: list[tuple[int, str, int | None]]) -> tuple[str, str | None] | None:
    """The frame a process crashed in, past the signal's own frames, with torch's c10d call
    above it ("ompi_group_increment_proc_count() under c10d::ProcessGroupMPI::
    createProcessGroupMPI()") and its library (Open MPI's symbols), None when the stack names
    no frame."""
    symbols: list[str] = []
    for _, t, _ in stack:
        # frames numbered from 0 in order: another process's stack printed at the same time
        # interleaves its own numbers (39, 40, ...) with this one's
        if (m := _UCX_FRAME_RE.match(t)) and int(m.group("n")) == len(symbols):
            symbols.append(m.group("sym"))
    own = [sym for sym in symbols if not sym.startswith(_SIGNAL_FRAMES)]
    if not own:
        return None
    torch_call = next((sym for sym in own[1:] if sym.startswith("c10d::")), None)
    site = f"{own[0]}()" + (f" under {torch_call}()" if torch_call else "")
    return site, "Open MPI" if own[0].startswith(_MPI_FRAMES) else None


# Launches that never reached the ranks: pyxis (Slurm's container plugin) "slurmstepd: error:
# pyxis: container start failed with error code: 1" and, indented under "printing contents of log
# file", enroot's reason; ssh from a launcher (mpirun's, DeepSpeed's runner check) "ssh: connect to
# host H port 22: Connection refused"; DeepSpeed's runner "host=H was not reachable via ssh"
_PYXIS_FAILED_RE = re.compile(r"pyxis: container start failed with error code: (?P<code>\d+)")
_PYXIS_REASON_RE = re.compile(r"pyxis:\s{2,}(?P<why>\S.*?)\s*$")
PYXIS_REASON_LINES = 4
"""How far after pyxis' failure its log file's contents (the reason) may stand."""
_SSH_FAILED_RE = re.compile(
    r"\bssh: connect to host (?P<host>\S+) port (?P<port>\d+): (?P<why>Connection refused|"
    r"Connection timed out|No route to host|Network is unreachable)"
)
_DS_UNREACHABLE_RE = re.compile(r"host=(?P<host>\S+?) was not reachable via ssh")
# torchrun's agent itself sent a signal (torch/distributed/elastic/agent/server/api.py:
# "Received %s death signal, shutting down workers"): something outside the job (the scheduler,
# an operator, another node's failure) stopped it, and it stopped its workers
_AGENT_SIGNAL_RE = re.compile(r"Received (?P<sig>\d+) death signal, shutting down workers")
# slurmstepd cancelling a step or job (Slurm's "*** STEP 6053.0 ON node1 CANCELLED AT
# 2024-04-23T12:18:08 ***", "... DUE TO TIME LIMIT ***", "... DUE TO PREEMPTION ***"), and its
# OOM killer's account ("Detected 1 oom_kill event in StepId=440575.0. Some of the step tasks
# have been OOM Killed.")
_SLURM_CANCELLED_RE = re.compile(
    r"\*\*\* (?P<what>STEP|JOB) (?P<id>\d+(?:\.\w+)?(?:[+_]\d+)?) ON (?P<host>\S+) CANCELLED AT (?P<at>\S+)"
    r"(?: DUE TO (?P<why>[A-Z ]+?))? \*\*\*"
)
_SLURM_OOM_KILL_RE = re.compile(
    r"Detected (?P<n>\d+) oom.kill events? in StepId=(?P<id>\d+(?:\.\w+)?(?:[+_]\d+)?)"
)
# Kubernetes' account of a container that ended: the training operator's event for a pod's
# container that exited non-zero (kubeflow training-operator, recordContainerStatus: "Error pod
# %s container %s exitCode: %d terminated message: %s", and "Pod: %s.%s exited with code %v"),
# a pod's terminated state as kubectl prints it (-o yaml: "exitCode: 137" and "reason:
# OOMKilled"; describe: "Reason:  OOMKilled" and "Exit Code:  137"), and LeaderWorkerSet
# recreating a group after a worker pod failed ("Worker pod X failed, deleted leader pod Y to
# recreate group N")
_K8S_OPERATOR_EXIT_RE = re.compile(
    r"Error pod (?P<pod>\S+) container (?P<container>\S+) exitCode: (?P<code>-?\d+)"
    r"|\bPod: (?P<pod2>\S+) exited with code (?P<code2>-?\d+)"
)
_K8S_REASON_RE = re.compile(
    r"^\s*(?:reason|Reason):\s+(?P<reason>OOMKilled|Error|ContainerCannotRun|DeadlineExceeded"
    r"|Evicted|StartError)\s*$"
)
_K8S_EXIT_CODE_RE = re.compile(r"^\s*(?:exitCode|Exit Code):\s+(?P<code>-?\d+)\s*$")
K8S_STATE_LINES = 6
"""How far apart a terminated state's reason and exit code may stand."""
_LWS_WORKER_FAILED_RE = re.compile(
    r"Worker pod (?P<pod>\S+) failed, deleted leader pod(?: (?P<leader>\S+))?"
)
# MosaicML Composer's launcher: "ERROR:composer.cli.launcher:Rank 1 crashed with exit code 1."
_COMPOSER_EXIT_RE = re.compile(
    r"composer\.cli\.launcher:Rank (?P<rank>\d+) crashed with exit code (?P<code>-?\d+)"
)
# a program that could not start (the dynamic loader): "./all_reduce_test: error while loading
# shared libraries: libmpi.so.12: cannot open shared object file: No such file or directory", or
# that stopped at a symbol its libraries lack: "python: symbol lookup error: /usr/lib/libnccl.so.2:
# undefined symbol: ncclCommSplit" (glibc's ld.so, its "<program>: <what>: <object>: <why>" form,
# ", version V" after a versioned symbol)
# ... and dlopen's own words a program passes on (dlerror: "<file>: undefined symbol: <symbol>",
# "<file>: cannot open shared object file: No such file or directory"), as CANN's GE LoadLib or
# Python's OSError quote them
LOADER_SIGNATURE = (
    r"(?:^|\s)[^\s`'\"]+: (?:error while loading shared libraries: \S+?: cannot open shared object"
    r" file|symbol lookup error: \S+?: undefined symbol: \S)"
    r"|(?<!`)\b[^\s:'\"=`]+\.so(?:\.[\w.]+)?: (?:undefined symbol: \S|cannot open shared object file)"
)
"""(a name quoted in a document's inline code, "`npu-smi: error while ...", is no program's line)"""
_LOADER_RE = re.compile(
    r"(?:^|\s)(?P<prog>[^\s`'\"]+): (?:error while loading shared libraries: (?P<lib>\S+?): cannot open"
    r" shared object file"
    r"|symbol lookup error: (?P<obj>\S+?): undefined symbol: (?P<sym>[^\s,]+)(?:, version (?P<ver>\S+))?)"
    r"|(?<!`)\b(?P<dl_obj>[^\s:'\"=`]+\.so(?:\.[\w.]+)?): (?:undefined symbol: (?P<dl_sym>[^\s,'\"`]+)"
    r"|(?P<dl_missing>cannot open shared object file))"
)
# the Ascend driver's libraries (the driver's lib64 tree: npu-smi and torch_npu load them) and
# NVIDIA's user-space driver and communication libraries: a container without them mounted
_OPTIONAL_PLUGIN_RE = re.compile(
    r"\blibnccl-(?:net|tuner|profiler|env)\S*\.so|Plugin load returned"
)
_ASCEND_DRIVER_LIB_RE = re.compile(r"^lib(?:c_sec|drvdsmi_host|ascend_hal|dcmi|mmpa)\.so")
_NVIDIA_LIB_RE = re.compile(r"^lib(?:nvidia-ml|cuda|nccl)\.so")
# TensorFlow's StreamExecutor looking for CUDA's libraries (tensorflow/tensorflow
# tensorflow/stream_executor/platform/default/dso_loader.cc GetDsoHandle: LOG(WARNING) "Could not
# load dynamic library 'libcuda.so.1'; dlerror: ..." and a FAILED_PRECONDITION status its caller
# takes as no CUDA): a warning, TensorFlow goes on without that library (on the CPU, or an
# accelerator's own plugin), not a program that stopped
_TF_DSO_LOADER_RE = re.compile(
    r"Could not load dynamic library '(?P<lib>[^'\s]{1,100})'; dlerror: "
)
# its CUDA driver's start on a host with no NVIDIA driver (tensorflow/stream_executor/cuda/
# cuda_driver.cc InternalInit: LOG(ERROR) "failed call to cuInit: ..." and an ABORTED status, so
# no GPU is registered; then cuda_diagnostics.cc LogDiagnosticInformation: "kernel driver does not
# appear to be running on this host (HOST): /proc/driver/nvidia/version does not exist")
_TF_CUINIT_RE = re.compile(r"\bfailed call to cuInit: (?P<why>[^\n]{1,120})")
_TF_NO_NVIDIA_DRIVER_RE = re.compile(
    r"kernel driver does not appear to be running on this host \((?P<host>[^)\n]{0,100})\): "
    r"/proc/driver/nvidia/version does not exist"
)
TF_CUDA_PROBE_LINES = 3
"""How far under TensorFlow's failed cuInit its diagnosis of the host's NVIDIA driver stands."""


def _no_cuda_driver(lines: list[tuple[int, str, int | None]]) -> tuple[int, ParseWarning] | None:
    """TensorFlow's failed cuInit where its own diagnosis under it says the host has no NVIDIA
    driver: the line, and a note that it runs without CUDA GPUs; None otherwise (a cuInit that
    failed on a host with the driver is an error of its own)."""
    for index, (no, line, _) in enumerate(lines):
        if "cuInit" not in line or (m := _TF_CUINIT_RE.search(line)) is None:
            continue
        for _, below, _ in lines[index + 1 : index + 1 + TF_CUDA_PROBE_LINES]:
            if (d := _TF_NO_NVIDIA_DRIVER_RE.search(below)) is not None:
                return no, ParseWarning(
                    line=no,
                    message=f"TensorFlow's failed call to cuInit ({m.group('why').strip()}) on a "
                    f"host with no NVIDIA driver ({d.group('host')}: /proc/driver/nvidia/version "
                    "does not exist, its own diagnosis): it registers no CUDA GPU and goes on, "
                    "no error of the run",
                    skipped=False,
                )
        return None
    return None


# Open MPI's error handler on a failed MPI call (ompi/errhandler, MPI_ERRORS_ARE_FATAL): "*** An
# error occurred in MPI_Init_thread" / "*** on a NULL communicator" / "*** MPI_ERRORS_ARE_FATAL
# (processes in this communicator will now abort, ...)"
_OMPI_ERROR_IN_RE = re.compile(r"^\s*\*\*\* An error occurred in (?P<call>MPI_\w+)")
_OMPI_ERROR_ON_RE = re.compile(r"^\s*\*\*\* on (?P<comm>a NULL communicator|communicator \S+)")
# MPICH's MPI_Init that could not start its channel: "Fatal error in MPI_Init: Other MPI error,
# error stack:" then the stack, "...: gethostbyname failed, HW-AI-LC-1-1 (errno 2)"
_MPI_INIT_RE = re.compile(r"Fatal error in (?P<call>MPI_Init(?:_thread)?): (?P<what>[^,\n]+)")
_GETHOSTBYNAME_RE = re.compile(r"gethostbyname failed, (?P<host>\S+) \(errno (?P<errno>\d+)\)")
MPI_INIT_STACK_LINES = 12
"""How far under MPI_Init's fatal error its error stack's lines may stand."""
# a copy that kept Open MPI's block from "Failing at address" on (its heading and "Signal:" line
# cut): the frames after it, "[host:pid] [ 1] /.../libhcom_graph_adaptor.so(_ZN4hccl22Hcom...
# GetCommFromTaskInfoERKN2ge10GETaskInfoE+0x1c)[0x...]", name the library the crash was in
_OMPI_FAILING_AT_RE = re.compile(
    r"^\s*\[(?P<host>[^:\]\s]+):(?P<pid>\d+)\] Failing at address: (?P<addr>\S+)"
)
_COMM_FRAME_RE = re.compile(r"/(?P<lib>lib(?:hccl|hcom|nccl|rccl)\w*\.so[\w.]*)\((?P<sym>[^+)]*)")


def _demangled(symbol: str) -> str:
    """A C++ nested name's parts joined with ``::`` (``_ZN4hccl22HcomOpsKernelInfoStore19GetComm
    FromTaskInfoE...`` → ``hccl::HcomOpsKernelInfoStore::GetCommFromTaskInfo``); the symbol as
    it is when it is not one."""
    if not symbol.startswith("_ZN"):
        return symbol
    parts, at = [], 3
    while at < len(symbol) and symbol[at].isdigit():
        digits = re.match(r"\d+", symbol[at:])
        assert digits is not None  # symbol[at] is a digit
        at += len(digits.group(0))
        parts.append(symbol[at : at + int(digits.group(0))])
        at += int(digits.group(0))
    return "::".join(parts) or symbol


"""How far after UCX's "Caught signal" line its backtrace frames are looked at."""
OMPI_SIGNAL_LINES = 8
"""How far after its heading a process's "Signal:" lines may stand (another's may interleave)."""
# nccl-tests' and mscclpp-test's device list names each rank's pid: "#  Rank  0 Group  0 Pid
# 2574 on host device  0 ..." ("Rank  0 Pid 106967 on host ..." without groups)
_RANK_PID_RE = re.compile(
    r"^#?\s*Rank\s+(?P<rank>\d+)\s+(?:Group\s+\d+\s+)?Pid\s+(?P<pid>\d+)\s+on\s"
)


# pytorch ProcessGroupNCCL.cpp: the watchdog thread's own death, "[PG 0 Rank 1] Process group
# watchdog thread terminated with exception: NCCL error: remote process exited ..." (older torch:
# "[Rank 0] NCCL watchdog thread terminated with exception: CUDA error: an illegal memory access
# was encountered"); torch_npu prints the HCCL form.
_WATCHDOG_DIED_RE = re.compile(
    r"\[(?:PG [^\]]*?)?Rank (?P<rank>\d+)\] (?:Process group|(?P<lib>NCCL|HCCL)) watchdog thread "
    r"terminated with exception:\s*(?P<what>.*?)\s*$"
)


# a CUDA kernel's own assert (CUDA's device-side assert, which PyTorch's kernels use to check
# their inputs, prints the file, line, block and thread): "/.../aten/src/ATen/native/cuda/
# Loss.cu:94: operator(): block: [117,0,0], thread: [26,0,0] Assertion `input_val >= zero &&
# input_val <= one` failed." — the "device-side assert triggered" the CUDA error names later
_KERNEL_ASSERT_RE = re.compile(
    r"(?P<file>[^\s:/]{1,120}\.cuh?):(?P<no>\d+): [^\n]{0,200}?\bblock: \[[\d,]+\], thread: "
    r"\[[\d,]+\] Assertion `(?P<expr>[^`'\n]*)[`'] failed"
)
KERNEL_ASSERT_LINES = 400
"""How far above a "device-side assert triggered" error its kernel's assertion lines may stand."""


def _kernel_assertion(lines: list[tuple[int, str, int | None]], index: int) -> str | None:
    """The kernel assertion that a "device-side assert triggered" error at ``index`` followed:
    its file, line and expression, with how many threads printed it."""
    found: re.Match[str] | None = None
    threads = 0
    for _, text, _ in lines[max(0, index - KERNEL_ASSERT_LINES) : index]:
        if "Assertion" in text and (m := _KERNEL_ASSERT_RE.search(text)):
            if found is None or (m.group("file"), m.group("no")) == (
                found.group("file"),
                found.group("no"),
            ):
                found, threads = found or m, threads + 1
    if found is None:
        return None
    return (
        f"the kernel's assertion {found.group('file')}:{found.group('no')} "
        f"`{found.group('expr')}` failed ({threads} thread(s)): a value the kernel checks was out "
        "of its range, the program's input, not the GPU"
    )


_RECORD_HEAD_END_RE = re.compile(r"\[(?:PG [^\]]*?)?Rank \d+\]\s*$")
UNCORRECTABLE_ECC = "uncorrectable ECC error"
"""``code_name`` of a watchdog's death by CUDA's uncorrectable ECC error (a hardware fault)."""


def _watchdog_deaths(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    seen: set[tuple[int, str]] = set()
    records: set[str] = set()  # the records' own "[Rank N]" read so far
    for index, (no, line, tagged) in enumerate(lines):
        if "watchdog thread terminated" not in line:
            continue
        if (m := _WATCHDOG_DIED_RE.search(line)) is None and index:
            # a copy that broke the record after its header: "[rank1]:[E810 ...]
            # ProcessGroupNCCL.cpp:1899] [PG ID 0 PG GUID 0(default_pg) Rank 1]" then "Process
            # group watchdog thread terminated with exception: ..." on the next line
            above_no, above, above_tag = lines[index - 1]
            if above.rstrip().endswith("]") and _RECORD_HEAD_END_RE.search(above[-300:]):
                joined = f"{above.rstrip()} {line.strip()}"
                if (m := _WATCHDOG_DIED_RE.search(joined)) is not None:
                    no, line, tagged = above_no, joined, above_tag
        if m is None:
            continue
        if "what():" in line and m.group("rank") in records:
            # the same exception re-raised as the terminate's what(), untagged where the record
            # carried a launcher's tag ("[rank7]:[E804 ...] [Rank 3] HCCL watchdog ...")
            continue
        records.add(m.group("rank"))
        what = m.group("what")
        if not what and index + 1 < len(lines):
            # torch_npu ends the line at "exception:" and its own ERR line follows
            what = lines[index + 1][1].strip()
        if "Watchdog caught collective operation timeout" in what:
            continue  # a time-out: its watchdog_timeout event holds the record
        # a launcher's tag ([rank11]:) is the global rank; the record's own "[Rank 1]" the rank
        # in its process group (the same only in the default group)
        key = (tagged if tagged is not None else int(m.group("rank")), what[:80])
        if key in seen:  # the same exception re-raised as what() of the terminate
            continue
        seen.add(key)
        ev = LogEvent(
            kind="watchdog_exception",
            line=no,
            message=what[:300],
            rank=key[0],
            library=m.group("lib") or ("HCCL" if "HCCL" in line else "NCCL"),
        )
        # torch_npu's "(PID:402, Device:7, RankID:-1) ERR02005" line right after it
        _torch_npu_context(ev, [t for _, t, _ in lines[index + 1 : index + 1 + CALL_WINDOW_LINES]])
        # an NCCL error's own "Last error:" (NCCL's last WARN, an InfiniBand completion error
        # among them) under the exception, as torch's checkForNCCLErrors prints it
        if last := _last_error(lines, index):
            ev.exception_type = last[:200]
            ev.message = f"{ev.message} / Last error: {ev.exception_type}"[:400]
        elif "device-side assert" in what and (asserted := _kernel_assertion(lines, index)):
            ev.exception_type = asserted
            ev.message = f"{ev.message} / {asserted}"[:500]
        elif "uncorrectable ECC error" in what:
            # CUDA's cudaErrorECCUncorrectable: the GPU's memory failed, not the program
            ev.code_name = UNCORRECTABLE_ECC
            ev.exception_type = "an uncorrectable ECC error: the GPU's memory failed (hardware)"
            ev.message = f"{ev.message} ({ev.exception_type})"[:400]
        report.events.append(ev)


def _exit_code(code: str | None, signum: str | None) -> int:
    """A launcher's exit code, or the shell's 128 + N for the signal N that ended the rank."""
    return int(code) if code else 128 + int(signum or 0)


# ColossalAI's launcher (colossalai run, which starts torchrun on each host over SSH) on a host
# whose command failed: "Error: failed to run torchrun --nproc_per_node=3 ... on GPU01, is
# localhost: False, exception: Encountered a bad command exit code!"; an older release gave
# no reason ("Error: failed to run torchrun --nproc_per_node=4 ... on host2"; a masked host in
# brackets, Markdown's bold around the message where a post kept it)
_COLOSSALAI_RUN_RE = re.compile(
    r"^Error: (?:\*\*)?failed to run (?:\S+ .*? on (?P<host>[\w.-]+), is localhost: (?:True|False), "
    r"exception: (?P<why>.+)|(?:torchrun|python\S*) .*? on (?P<old>\[[^\]\n]+\]|[\w.-]+)(?:\*\*)?)$"
)


# CANN finding no kernel binary for an operator (the operator kernel package, Ascend-cann-kernels
# or opp_kernel, not installed or built for another chip): "Op Cast does not has any binary.",
# "Kernel Run failed. opType: 53, Cast", "launch failed for Cast, errno:561000." under an EZ9999,
# or EZ1001's "Get path and read binary_info_config.json failed, please check if the opp_kernel
# package is installed" (vllm-ascend#237; LlamaFactory#3796 was mended by installing
# Ascend-cann-kernels for the chip)
_NO_OP_BINARY_RE = re.compile(
    r"\bOp (?P<op>\w+) does not has any binary|read binary_info_config\.json failed"
)


def _op_kernels_missing(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``library_missing`` for operators CANN found no kernel binary for."""
    ops: dict[str, int] = {}
    first: tuple[int, str, int | None] | None = None
    for no, line, tagged in lines:
        if (m := _NO_OP_BINARY_RE.search(line)) is None:
            continue
        first = first or (no, line, tagged)
        if m.group("op"):
            ops.setdefault(m.group("op"), no)
    if first is None:
        return
    no, line, tagged = first
    report.events.append(
        LogEvent(
            kind="library_missing",
            line=no,
            message=line.strip()[:300],
            rank=tagged,
            library="CANN operator kernels",
            exception_type=(
                f"CANN has no kernel binary for operator(s) {', '.join(ops)}"
                if ops
                else "CANN could not read its operator kernels' binary_info_config.json"
            )
            + ": the operator kernel package (Ascend-cann-kernels for this chip, opp_kernel) is "
            "not installed, or not the one for this chip or toolkit version",
        )
    )


def _loader_failures(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """A ``library_missing`` per program and library the dynamic loader could not load, or per
    symbol it could not find (a library older or other than the one the program was built
    against)."""
    seen: dict[tuple[str, str], LogEvent] = {}
    tf_said: set[str] = set()
    for no, line, tagged in lines:
        if (".so" not in line and " error" not in line) or not (ld := _LOADER_RE.search(line)):
            continue
        if (
            "NCCL INFO" in line
            or "NCCL WARN" in line
            or _OPTIONAL_PLUGIN_RE.search(line)
            or "libibverbs: Warning: couldn't load driver" in line
        ):
            # (libibverbs goes on without a provider it could not load: read with the device
            # it leaves unclaimed)
            # NCCL's optional plugins (net, tuner, profiler) it looks for and goes on without:
            # "NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open shared object
            # file ... : when loading libnccl-net.so" is its INFO, then its own transport; its
            # WARN lines (libcuda.so not found ...) are read as NCCL's own
            continue
        if (tf := _TF_DSO_LOADER_RE.search(line)) is not None:
            if tf.group("lib") not in tf_said:
                tf_said.add(tf.group("lib"))
                report.unread.append(
                    ParseWarning(
                        line=no,
                        message=f"TensorFlow could not load {tf.group('lib')} (its dso_loader's "
                        "warning: it goes on without it, and without the CUDA GPU support that "
                        "library gives)",
                        skipped=False,
                    )
                )
            continue
        prog = ld.group("prog") or "a program"
        if ld.group("dl_obj") is not None and (
            "while loading shared" in line or "symbol lookup error" in line
        ):
            continue  # ld.so's own line, its program quoted (a document's inline code): not dlopen's
        if (dl_obj := ld.group("dl_obj")) is not None:
            name = dl_obj.rsplit("/", 1)[-1]
            if ld.group("dl_missing"):
                key = (prog, name)
                what = f"a library could not be loaded: {name} not found (dlopen)"
            else:
                key = (prog, ld.group("dl_sym"))
                what = (
                    f"a library could not be loaded: {dl_obj} needs {ld.group('dl_sym')}, which no"
                    " library loaded provides (dlopen): the installed packages are of different"
                    " versions"
                )
            library = name
        elif (lib := ld.group("lib")) is not None:
            key = (prog, lib)
            what = f"{prog} could not start: the dynamic loader found no {lib}"
            if _ASCEND_DRIVER_LIB_RE.match(lib):
                what += " (the Ascend driver's libraries are not on its library path)"
            elif _NVIDIA_LIB_RE.match(lib):
                what += " (NVIDIA's driver or NCCL libraries are not on its library path)"
            library = lib
        else:
            key = (prog, ld.group("sym"))
            version = f" (version {ld.group('ver')})" if ld.group("ver") else ""
            # (the object named is the one that needs the symbol: no library loaded gives it)
            what = (
                f"{prog} stopped: {ld.group('obj')} needs {ld.group('sym')}{version}, which no"
                " library loaded provides: one is older than, or other than, the one it was built"
                " against"
            )
            library = ld.group("obj").rsplit("/", 1)[-1]
        if key in seen:
            continue
        seen[key] = LogEvent(
            kind="library_missing",
            line=no,
            message=line.strip()[:300],
            rank=tagged,
            library=library,
            call=prog,
            exception_type=what[:300],
        )
        report.events.append(seen[key])


# Horovod's SHUT_DOWN_ERROR (horovod/common/operations.cc), the status of every collective a
# rank asks for after Horovod's background loop stopped: "Horovod has been shut down. This was
# caused by an exception on one of the ranks or an attempt to allreduce, allgather or broadcast a
# tensor after one of the ranks finished execution. ..." (TensorFlow's op kernel prints it as
# "OP_REQUIRES failed at mpi_ops.cc:402 : Unknown: Horovod has been shut down. ...")
_HOROVOD_SHUTDOWN_RE = re.compile(r"Horovod has been shut down\. This was caused by")
# horovodrun's start time-out (horovod/run/common/util/timeout.py, Timeout.check_time_out_for,
# with run.py's message): "Exception: Timed out waiting for tasks to start. Please check
# connectivity between servers. You may need to increase the --start-timeout parameter ...";
# a copy cut before that line still shows the raising frame's source line,
# "timeout.check_time_out_for('tasks to start')", under the driver's wait for its task servers
_HOROVOD_START_TIMEOUT_RE = re.compile(
    r"Timed out waiting for (?P<what>[^.\n]{1,80})\. Please check connectivity between servers"
    r"|^\s*\w*\.?check_time_out_for\((?P<q>['\"])(?P<cut>[^'\"\n]{1,80})(?P=q)\)\s*$"
)


# Open MPI's shared-memory transport reading a peer's buffer with process_vm_readv (Cross Memory
# Attach) and failing: "[062fc37504b7:00351] Read -1, expected 268960, errno = 1" (btl/vader's
# btl_vader_get.c; Open MPI 5's smsc/cma says "CMA read ..."). errno 1 is EPERM: the kernel's ptrace
# access check refused the read (process_vm_readv(2)), as in a container without CAP_SYS_PTRACE
_MPI_CMA_RE = re.compile(
    r"^\[(?P<host>[\w.-]+):(?P<pid>\d+)\] (?:CMA )?(?:[Rr]ead|[Ww]rote) -?\d+, expected \d+, "
    r"errno = (?P<errno>\d+)"
)


def _mpi_cma_errors(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``mpi_transport_error`` per host for Open MPI's failed single-copy reads."""
    found: dict[str, tuple[LogEvent, set[str]]] = {}
    for no, line, tagged in lines:
        if not (m := _MPI_CMA_RE.match(line.strip())):
            continue
        if m.group("host") in found:
            found[m.group("host")][1].add(m.group("pid"))
            continue
        errno = int(m.group("errno"))
        why = (
            "EPERM: the kernel refused the read (its ptrace access check: a container without "
            "CAP_SYS_PTRACE, or a ptrace_scope that forbids it)"
            if errno == 1
            else f"errno {errno}"
        )
        ev = LogEvent(
            kind="mpi_transport_error",
            line=no,
            message=line.strip()[:300],
            rank=tagged,
            host=m.group("host"),
            pid=int(m.group("pid")),
            code=str(errno),
            library="Open MPI",
            exception_type=f"Open MPI's shared-memory single-copy read (CMA, process_vm_readv) "
            f"failed: {why}",
        )
        found[m.group("host")] = (ev, {m.group("pid")})
    for ev, pids in found.values():
        if len(pids) > 1:
            ev.exception_type = f"{ev.exception_type}; {len(pids)} processes"
        report.events.append(ev)


# CUDA refusing to start because the system is not ready: cudaErrorSystemNotReady, 802, "system
# not yet initialized" (the CUDA runtime API reference: "the system is not yet ready to start any
# CUDA work ... all required driver daemons are actively running": on an NVSwitch system, Fabric
# Manager), as torch reports it: "RuntimeError: Unexpected error from cudaGetDeviceCount(). ...
# Error 802: system not yet initialized"
_CUDA_NOT_READY_RE = re.compile(
    r"\bError 802: system not yet initialized|\bcudaErrorSystemNotReady\b"
    # (NCCL's own check of a CUDA call, as its last error: "Cuda failure 802 'system not yet
    # initialized'", under torch's "unhandled cuda error")
    r"|\bCuda failure 802 'system not yet initialized'"
)


# The runtime asking the driver for a stream's submission and completion queues and refused for
# want of them (runtime npu_driver.cc: "halSqCqAllocate failed: device_id=3, drvRetCode=14!";
# drvRetCode 14 is DRV_ERROR_NO_RESOURCES, hicann/driver ascend_hal_error.h), after the driver's
# own "Alloc chan failed. (devid=3; tsid=0; type=0; cur_sq_num=150; cur_cq_num=150; ret=-28)"
_SQCQ_RE = re.compile(r"halSqCqAllocate failed: device_id=(?P<dev>\d+), drvRetCode=(?P<ret>\d+)")
_ALLOC_CHAN_RE = re.compile(r"Alloc chan failed\. \(devid=(?P<dev>\d+);.*?cur_sq_num=(?P<sq>\d+)")


def _stream_queues_exhausted(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """An ``npu_runtime_error`` per device whose stream queues ran out."""
    seen: set[int] = set()
    for index, (no, line, tagged) in enumerate(lines):
        if not (m := _SQCQ_RE.search(line)) or int(m.group("dev")) in seen:
            continue
        device = int(m.group("dev"))
        seen.add(device)
        near = [t for _, t, _ in lines[max(0, index - 6) : index + 1]]
        chan = _search(_ALLOC_CHAN_RE, near)
        no_resources = m.group("ret") == "14"
        report.events.append(
            LogEvent(
                kind="npu_runtime_error",
                line=no,
                message=line.strip()[:300],
                rank=tagged,
                device=device,
                call="halSqCqAllocate",
                code=m.group("ret"),
                code_name=(
                    "DRV_ERROR_NO_RESOURCES: no stream queue left on the device"
                    + (f" ({chan.group('sq')} in use)" if chan else "")
                    + ": the streams of the processes on it (or of this one) took them all"
                    if no_resources
                    else None
                ),
                library="NPU runtime",
            )
        )


# the CUDA samples' failures to find a device: deviceQuery's "cudaGetDeviceCount returned 999"
# over "-> unknown error", and helper_cuda.h's check "CUDA error at ../../Common/helper_cuda.h:791
# code=100(cudaErrorNoDevice) "cudaGetDeviceCount(&device_count)""
_CUDA_COUNT_RE = re.compile(r"cudaGetDeviceCount returned (?P<code>\d+)")
_CUDA_CHECK_INIT_RE = re.compile(
    r"CUDA error at \S+ code=(?P<code>\d+)\((?P<name>cudaError\w+)\) \"(?P<call>cuda(?:GetDeviceCount|SetDevice|GetDevice|Init))\b"
)
_CUDA_RETURNED_WORDS_RE = re.compile(r"^\s*-> (?P<what>\S.*?)\s*$")
CUDA_INIT_ERRORS = {
    "100": "cudaErrorNoDevice: no CUDA-capable device is seen (the driver or the container's "
    "device list)",
    "35": "cudaErrorInsufficientDriver: the driver is older than the CUDA runtime",
    "802": "cudaErrorSystemNotReady, system not yet initialized: a driver daemon it needs is not "
    "running or not done (on an NVSwitch system, Fabric Manager: its service, and nvidia-smi "
    "-q's Fabric State until Completed)",
    "999": "cudaErrorUnknown: the driver failed in a way it does not name (read dmesg for Xid "
    "and NVRM lines)",
}
"""What a failed CUDA start's code means (the CUDA runtime API's cudaError_t)."""


# torch's warning that CUDA's driver API would not start (c10/cuda/CUDAFunctions.cpp
# device_count_impl): "UserWarning: CUDA initialization: CUDA unknown error - this may be due to
# an incorrectly set up environment ... Setting the available devices to be zero."
_TORCH_CUDA_INIT_RE = re.compile(
    r"UserWarning: CUDA initialization: (?P<what>[^\n]{1,160}?)(?: - |\.|$)"
)
# (its words of the driver's error where it gives one: "... Error 804: forward compatibility was
# attempted on non supported HW (Triggered internally at ...")
_TORCH_CUDA_INIT_ERROR_RE = re.compile(
    r"\bError (?P<code>\d+): (?P<what>[^(\n]{1,160}?)\s*\(Triggered"
)


def _cuda_not_ready(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``gpu_driver_error`` (call ``cuda_init``) per rank whose CUDA would not start: 802
    (system not ready), or a device count or set-up call that failed (the CUDA samples')."""
    seen: set[int | None] = set()
    for index, (no, line, tagged) in enumerate(lines):
        if tagged in seen:
            continue
        code = None
        if _CUDA_NOT_READY_RE.search(line):
            code = "802"
        elif (m := _CUDA_COUNT_RE.search(line)) or (m := _CUDA_CHECK_INIT_RE.search(line)):
            code = m.group("code")
        elif "CUDA initialization" in line and (ti := _TORCH_CUDA_INIT_RE.search(line)):
            # torch's warning that CUDA would not start (c10/cuda/CUDAFunctions.cpp): it goes
            # on with no GPU ("Setting the available devices to be zero")
            seen.add(tagged)
            coded = _TORCH_CUDA_INIT_ERROR_RE.search(line)
            report.events.append(
                LogEvent(
                    kind="gpu_driver_error",
                    line=no,
                    message=line.strip()[:300],
                    rank=tagged,
                    call="cuda_init",
                    code=coded.group("code") if coded else None,
                    library="CUDA",
                    exception_type="CUDA could not start under torch ("
                    + (
                        f"error {coded.group('code')}, {coded.group('what')}"
                        if coded
                        else ti.group("what")
                    )
                    + "): torch set its available GPUs to zero",
                )
            )
            continue
        if code is None:
            continue
        seen.add(tagged)
        words = next(
            (w.group("what") for _, t, _ in lines[index + 1 : index + 2]
             if (w := _CUDA_RETURNED_WORDS_RE.match(t))),
            None,
        )  # fmt: skip
        meaning = CUDA_INIT_ERRORS.get(code, words or "see the CUDA runtime's cudaError_t codes")
        report.events.append(
            LogEvent(
                kind="gpu_driver_error",
                line=no,
                message=line.strip()[:300] + (f" ({words})" if words else ""),
                rank=tagged,
                call="cuda_init",
                code=code,
                library="CUDA",
                exception_type=f"CUDA could not start: error {code}, {meaning}",
            )
        )


def _horovod_shutdowns(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``horovod_shutdown`` per rank (or one for an untagged log): the rank's collectives
    refused because Horovod had stopped, after another rank's exception or exit."""
    seen: set[int | None] = set()
    for no, line, tagged in lines:
        if "Horovod has been shut down" not in line or not _HOROVOD_SHUTDOWN_RE.search(line):
            continue
        if tagged in seen:
            continue
        seen.add(tagged)
        report.events.append(
            LogEvent(
                kind="horovod_shutdown",
                line=no,
                message=line.strip()[:300],
                rank=tagged,
                library="Horovod",
                exception_type="Horovod had shut down: its collectives were refused after an "
                "exception on one of the ranks or a rank that finished before the others",
            )
        )


def _horovod_start_timeouts(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``launch_failed`` for horovodrun's start time-out: the task servers it started on
    the hosts over ssh (or the ranks) did not report back to its driver within --start-timeout
    (the message itself, or the copy cut at the frame that raised it)."""
    frame: tuple[int, str, int | None, str] | None = None
    said: tuple[int, str, int | None, str] | None = None
    for no, line, tagged in lines:
        if "check_time_out_for" not in line and "Timed out waiting for" not in line:
            continue
        if (m := _HOROVOD_START_TIMEOUT_RE.search(line)) is None:
            continue
        if m.group("what") and said is None:
            said = (no, line, tagged, m.group("what"))
        elif m.group("cut") and frame is None:
            frame = (no, line, tagged, m.group("cut"))
    if (at := said or frame) is None:
        return
    no, line, tagged, what = at
    report.events.append(
        LogEvent(
            kind="launch_failed",
            line=no,
            message=line.strip()[:300],
            rank=tagged,
            library="Horovod",
            exception_type=f"horovodrun timed out waiting for {what}"
            + (
                " (its task servers on the hosts did not reach its driver back: the network "
                "between the hosts, or a firewall, on the interfaces it tested)"
                if "task" in what
                else ""
            )
            + ("" if said else " (the copy ends in the frame that raised it)"),
        )
    )


# slurmstepd cancelling a step for one task's failure ("*** STEP 52222788.0 ON nid002888
# CANCELLED AT 2026-04-29T23:36:37 DUE TO TASK FAILURE ***", srun --kill-on-bad-exit): srun
# then reports the other tasks "Terminated" (SIGTERM): they were stopped, not failing
_STEP_TASK_FAILURE_RE = re.compile(
    r"\*\*\* STEP (?P<step>[\w.+]+) ON (?P<host>\S+) CANCELLED AT \S+ DUE TO TASK FAILURE"
)
SIGTERM_EXIT = 128 + 15


def _task_failure_cancels(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """A step Slurm cancelled for a task's failure: the tasks srun reports "Terminated" under it
    are one event (Slurm stopped them), and where their list leaves out exactly one task of the
    step (and no other task's end is in the log), that task is the one that failed."""
    step = next(
        ((no, m) for no, line, _ in lines if (m := _STEP_TASK_FAILURE_RE.search(line))), None
    )
    if step is None:
        return
    stopped = [
        e
        for e in report.events
        if e.kind == "launcher_exit" and e.exception_type == "srun" and e.exit_code == SIGTERM_EXIT
    ]
    if not stopped:
        return
    others = [e for e in report.events if e.kind == "launcher_exit" and e not in stopped]
    ranks = sorted({e.rank for e in stopped if e.rank is not None})
    gaps = [r for r in range(ranks[-1] + 1) if r not in set(ranks)] if ranks else []
    hosts = {e.host for e in stopped}
    # (one slurmstepd prints the STEP line, node 0's by default, not the failed task's node: the
    # task ran on the node whose own stopped tasks surround it, where one node's do)
    around = {
        e.host
        for e in stopped
        if len(gaps) == 1
        and min(r.rank for r in stopped if r.host == e.host and r.rank is not None) < gaps[0]
        < max(r.rank for r in stopped if r.host == e.host and r.rank is not None)
    } if ranks else set()  # fmt: skip
    one_host = around.pop() if len(around) == 1 else None
    report.events = [e for e in report.events if e not in stopped]
    at, m = step
    report.events.append(
        LogEvent(
            kind="launcher_exit",
            line=stopped[0].line,
            message=f"{len(ranks)} task(s) terminated (SIGTERM) by Slurm as it cancelled step "
            f"{m.group('step')} for a task's failure",
            host=hosts.pop() if len(hosts) == 1 else None,
            exception_type="srun (tasks stopped after another task failed)",
        )
    )
    if len(gaps) == 1 and not others:
        report.events.append(
            LogEvent(
                kind="launcher_exit",
                line=at,
                message=lines[at - 1][1].strip()[:300] if 0 < at <= len(lines) else m.group(0),
                rank=gaps[0],
                host=one_host,
                exception_type=f"srun (task {gaps[0]} is the one task below the highest stopped "
                f"({ranks[-1]}) that Slurm did not terminate: the task whose failure cancelled "
                "the step, if the step had no task above it; its own end is not in the copy)",
                root_cause=True,
            )
        )


# A terminal's copy: the command after its prompt on the first line, and coreutils' timeout(1)
# around it ("timeout 300s torchrun ...": it sends SIGTERM when the time is up)
_PROMPT_COMMAND_RE = re.compile(r"^\s*(?:\([\w.-]+\)\s+)?[\w.-]+@[\w.-]+:\S*[$#]\s+(?P<cmd>\S.*)$")
_TIMEOUT_CMD_RE = re.compile(
    # (its options: -k/--kill-after and -s/--signal take a value, the others none)
    r"(?:^|\s)timeout\s+(?:(?:-[ks]\s+\S+|--(?:kill-after|signal)(?:=|\s+)\S+|-[-\w]+)\s+)*"
    r"(?P<limit>\d+(?:\.\d+)?[smhd]?)\s"
)
# the keys a terminal echoed before the shell's word (arrow keys: "^[[A", or their escape codes)
_ECHOED_KEYS_RE = re.compile(r"^(?:\^\[\[[A-D]|\x1b\[[A-D])+")


def _transcript_ended_by_signal(
    lines: list[tuple[int, str, int | None]], *, prompted: bool = True
) -> LogEvent | None:
    """A terminal's copy of one command (its prompt on the first line; or, ``prompted`` False,
    a program's log that said an error) whose last line is the shell's word for a signal that
    ended it ("Terminated": SIGTERM, "Killed": SIGKILL): the command did not end by itself;
    under timeout(1), it ran out of its time."""
    filled = [(no, line) for no, line, _ in lines if line.strip()]
    cmd = _PROMPT_COMMAND_RE.match(filled[0][1]) if filled else None
    if len(filled) < 2 or (prompted and cmd is None):
        return None
    no, last = filled[-1]
    if not (se := _SHELL_END_RE.match(_ECHOED_KEYS_RE.sub("", last.strip()))):
        return None
    limit = _TIMEOUT_CMD_RE.search(cmd.group("cmd")) if cmd else None
    return LogEvent(
        kind="launcher_exit",
        line=no,
        message=last.strip()[:300],
        exception_type=(
            f"the shell: the command, run under timeout {limit.group('limit')}, was ended by "
            "SIGTERM (timeout(1) sends it when the time is up): it had not finished by itself"
            if limit and se.group("sig") == "Terminated"
            else "the shell (the command was ended by a signal)"
        ),
        exit_code=-SIGNAL_TEXTS[se.group("sig")],
        root_cause=prompted,  # (after a program's own error, that error came first)
    )


def _launcher_exits(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    seen: set[tuple[str, int | str]] = set()

    def once(
        key: tuple[str, int | str], no: int, message: str, launcher: str, **fields: Any
    ) -> None:
        """The launcher's report of one rank (or of the run), once: a log may repeat it."""
        if key not in seen:
            seen.add(key)
            report.events.append(
                LogEvent(
                    kind="launcher_exit",
                    line=no,
                    message=message[:300],
                    exception_type=launcher,
                    **fields,
                )
            )

    rank_of_pid: dict[int, int] = {}
    # the processes' own accounts of the signal that ended them: kept where no launcher's
    # account of its ranks (srun, mpirun) is in the log, which names the same ends by rank
    by_handler: list[LogEvent] = []
    handled: set[int] = set()
    shell_ended: set[int] = set()
    device_of_pid: dict[tuple[str, int], int] | None = None  # read once a handler's line is met
    for index, (no, line, tagged) in enumerate(lines):
        text = line.strip()
        if "failed to run" in line and (cr := _COLOSSALAI_RUN_RE.match(text)):
            once(
                ("colossalai", cr.group("host") or cr.group("old")),
                no,
                text[:300],
                f"colossalai run ({cr.group('why').strip().rstrip('*').strip()})"
                if cr.group("why")
                else "colossalai run (the command failed on the host; ColossalAI's launcher "
                "runs it there over ssh)",
                host=cr.group("host") or cr.group("old"),
            )
            continue
        if "Pid" in line and (rp := _RANK_PID_RE.match(line)):
            rank_of_pid.setdefault(int(rp.group("pid")), int(rp.group("rank")))
        if tagged is not None and tagged not in shell_ended and (se := _SHELL_END_RE.match(text)):
            shell_ended.add(tagged)
            by_handler.append(
                LogEvent(
                    kind="launcher_exit",
                    line=no,
                    message=text,
                    exception_type="the shell (the rank's process ended by a signal)",
                    rank=tagged,
                    exit_code=-SIGNAL_TEXTS[se.group("sig")],
                )
            )
            continue
        if "Process received signal" in line and (os_ := _OMPI_SIGNAL_RE.match(line)):
            host, pid = os_.group("host"), int(os_.group("pid"))
            said: list[str] = []
            sig_number: int | None = None
            for _, later, _ in lines[index + 1 : index + 1 + OMPI_SIGNAL_LINES]:
                f = _OMPI_SIGNAL_FIELD_RE.match(later)
                if not f or (f.group("host"), int(f.group("pid"))) != (host, pid):
                    continue
                if f.group("num"):
                    sig_number = int(f.group("num"))
                    said.append(f"{f.group('name')} ({sig_number})")
                elif f.group("value").strip():
                    said.append(f"{f.group('field').lower()} {f.group('value').strip()}")
            if sig_number is not None and pid not in handled:
                handled.add(pid)
                told, at = f"[{host}:{os_.group('pid')}] {', '.join(said)}", no
                if sig_number == SIGNAL_TEXTS["Aborted"]:  # the assertion that raised it, if any
                    above = lines[max(0, index - ASSERT_LINES) : index]
                    for a_no, a_line, a_tag in reversed(above):
                        if "Assertion `" in a_line and (am := _ASSERT_RE.match(a_line)):
                            told = (
                                f"{told}, after {am.group('prog')}'s assertion "
                                f"`{am.group('expr')}' failed at {am.group('file')}:"
                                f"{am.group('line')}"
                            )
                            at = a_no
                            break
                        if (
                            "what():" in a_line
                            and a_tag == tagged
                            and (wm := _TERMINATE_WHAT_RE.search(a_line))
                        ):
                            # C++'s terminate on an uncaught exception: "terminate called after
                            # throwing an instance of 'std::logic_error'" / "what(): <its text>"
                            told = (
                                f"{told}, after an uncaught C++ exception: "
                                f"{wm.group('what').strip()}"
                            )
                            at = a_no
                            break
                by_handler.append(
                    LogEvent(
                        kind="launcher_exit",
                        line=at,
                        message=told[:300],
                        exception_type="Open MPI's signal handler",
                        host=host,
                        pid=pid,
                        # (mpirun's "[1,25]<stderr>:" tag names the rank where no Pid line does)
                        rank=rank_of_pid.get(pid, tagged),
                        exit_code=-sig_number,
                    )
                )
            continue
        if "Failing at address" in line and (fa := _OMPI_FAILING_AT_RE.match(line)):
            pid = int(fa.group("pid"))
            if pid not in handled:
                handled.add(pid)
                frames = lines[index + 1 : index + 1 + UCX_BACKTRACE_LINES]
                frame = next((f for _, t, _ in frames if (f := _COMM_FRAME_RE.search(t))), None)
                lib = frame.group("lib") if frame else None
                by_handler.append(
                    LogEvent(
                        kind="launcher_exit",
                        line=no,
                        message=f"{text} (the signal's own line is not in the copy)"[:300],
                        exception_type="Open MPI's signal handler",
                        host=fa.group("host"),
                        pid=pid,
                        rank=rank_of_pid.get(pid),
                        call=f"{_demangled(frame.group('sym'))} in {lib}" if frame else None,
                        library=("NCCL" if "ccl" in lib and "hccl" not in lib else "HCCL")
                        if lib
                        else None,
                    )
                )
            continue
        if "Segfault encountered" in line and _TVM_SEGFAULT_RE.match(text):
            # tvm_ffi's SIGSEGV handler (loaded by vLLM and others): its banner, the native
            # frames under it, then the signal raised again; the first frame it names
            native = next(
                (
                    nf.group("sym") or nf.group("sym2")
                    for _, t, _ in lines[index + 1 : index + 4]
                    if (nf := _NATIVE_FRAME_RE.match(t))
                ),
                None,
            )
            once(
                ("tvm-segv", tagged if tagged is not None else no), no, text,
                "tvm_ffi's signal handler (a segmentation fault in native code)",
                exit_code=-11, rank=tagged, call=native, library="native code" if native else None,
            )  # fmt: skip
            continue
        if "EngineCore failed to start" in line and _VLLM_CORE_START_RE.search(line):
            # vLLM v1's engine core logging its start-up's exception (core.py: "EngineCore failed
            # to start.", the traceback under it in its logger's lines): the exception it ends in
            raised = next(
                (
                    ex.group(0).strip()
                    for _, t, _ in lines[index + 1 : index + 1 + TRACEBACK_LINES]
                    if (ex := _PY_EXCEPTION_RE.match(_LOGGER_PREFIX_RE.sub("", t, count=1)))
                ),
                None,
            )
            once(
                ("vllm-core", no), no, text,
                "vLLM (its engine core did not start"
                + (f": {raised[:200]}" if raised else "; the traceback under it says why")
                + ")",
            )  # fmt: skip
            continue
        if "Failed core proc(s)" in line and (vc := _VLLM_CORE_PROCS_RE.search(line)):
            if not vc.group("procs").strip():
                # "Failed core proc(s): {}": the engine core did not come up, no process named
                # (its own error is above, or in its own log: where one was read above, this
                # only repeats it)
                once(
                    ("vllm-core", no), no, text,
                    "vLLM (its engine core did not start; no process named)",
                )  # fmt: skip
                continue
            for proc, code in _VLLM_CORE_PROC_RE.findall(vc.group("procs")):
                crash = next(
                    (
                        e
                        for e in report.events
                        if e.kind == "launcher_exit"
                        and (e.exception_type or "").startswith("tvm_ffi's")
                        and "; vLLM: " not in (e.exception_type or "")
                        and e.exit_code == int(code)
                        and e.line < no
                    ),
                    None,
                )
                if crash is not None:
                    # the crash its own handler reported above: the same process, said once
                    crash.exception_type = (
                        f"{crash.exception_type}; vLLM: its {proc} process exited with {code} "
                        f"(line {no})"
                    )
                    continue
                once(
                    ("vllm-core", proc), no, text,
                    f"vLLM (its {proc} process)", exit_code=int(code),
                )  # fmt: skip
            continue
        if "Caught signal" in line and (us := _UCX_SIGNAL_RE.match(line)):
            pid = int(us.group("pid"))
            if pid not in handled:
                handled.add(pid)
                # the first frame inside NCCL (the call the crash came from), if any; else the
                # frame it crashed in, and the torch call above it
                stack = _ucx_backtrace(lines, index, us.group("tid"))
                inside = next(
                    (
                        f.group(1) or f.group(2)
                        for _, t, _ in stack
                        if (f := _NCCL_FRAME_SYMBOL_RE.search(t))
                    ),
                    None,
                )
                crashed = None if inside else _ucx_crash_site(stack)
                if device_of_pid is None:
                    device_of_pid = _nccl_devices_by_pid(lines)
                by_handler.append(
                    LogEvent(
                        kind="launcher_exit",
                        line=no,
                        message=text[:300],
                        exception_type="UCX's signal handler",
                        host=us.group("host"),
                        pid=pid,
                        rank=rank_of_pid.get(pid),
                        device=device_of_pid.get((us.group("host"), pid)),
                        exit_code=-int(us.group("num")),
                        call=inside or (crashed[0] if crashed else None),
                        library="NCCL" if inside else (crashed[1] if crashed else None),
                    )
                )
            continue
        if "container start failed" in line and (px := _PYXIS_FAILED_RE.search(line)):
            below = [t for _, t, _ in lines[index + 1 : index + 1 + PYXIS_REASON_LINES]]
            why = next((r.group("why") for t in below if (r := _PYXIS_REASON_RE.search(t))), None)
            once(
                ("pyxis", no), no, f"{text}{f' ({why})' if why else ''}",
                "pyxis (the task's container did not start)",
                exit_code=int(px.group("code")),
            )  # fmt: skip
            continue
        if "ssh: connect to host" in line and (sh := _SSH_FAILED_RE.search(line)):
            once(
                ("ssh", sh.group("host")), no, text,
                f"ssh could not reach the node ({sh.group('why')})", host=sh.group("host"),
            )  # fmt: skip
            continue
        if ("exitCode:" in line or "exited with code" in line) and (
            ko := _K8S_OPERATOR_EXIT_RE.search(line)
        ):
            pod = ko.group("pod") or ko.group("pod2")
            pod = pod.split(".", 1)[1] if ko.group("pod2") and "." in pod else pod  # "ns.name"
            container = f" container {ko.group('container')}" if ko.group("container") else ""
            once(
                ("k8s-pod", pod), no, text,
                f"Kubernetes (pod {pod}{container})",
                exit_code=int(ko.group("code") or ko.group("code2")),
            )  # fmt: skip
            continue
        if "eason:" in line and (kr := _K8S_REASON_RE.match(line)):
            near = lines[max(0, index - K8S_STATE_LINES) : index + K8S_STATE_LINES + 1]
            exited = next((c for _, t, _ in near if (c := _K8S_EXIT_CODE_RE.match(t))), None)
            if exited is not None:
                once(
                    ("k8s-state", no), no, text,
                    f"Kubernetes (container terminated: {kr.group('reason')})",
                    exit_code=int(exited.group("code")),
                    root_cause=kr.group("reason") == "OOMKilled",
                )  # fmt: skip
            continue
        if "Worker pod" in line and (lw := _LWS_WORKER_FAILED_RE.search(line)):
            once(
                ("lws", lw.group("pod")), no, text,
                f"LeaderWorkerSet (worker pod {lw.group('pod')} failed: its group was recreated)",
            )  # fmt: skip
            continue
        if "An error occurred in MPI_" in line and (oe := _OMPI_ERROR_IN_RE.match(line)):
            nxt = lines[index + 1][1] if index + 1 < len(lines) else ""
            on = _OMPI_ERROR_ON_RE.match(nxt)
            once(
                ("ompi-error", no), no, text + (f" {nxt.strip()}" if on else ""),
                f"Open MPI ({oe.group('call')} failed"
                + (f" on {on.group('comm')}" if on else "") + ": the processes abort)",
            )  # fmt: skip
            continue
        if "death signal" in line and (ag := _AGENT_SIGNAL_RE.search(line)):
            once(
                ("agent-signal", no), no, text,
                "torchrun's agent (sent a signal from outside: it stopped its workers)",
                exit_code=-int(ag.group("sig")),
            )  # fmt: skip
            continue
        if "CANCELLED AT" in line and (sc := _SLURM_CANCELLED_RE.search(line)):
            # the scheduler stopped the job: a step's and its job's lines are one stop (an
            # event of its own, not a rank's exit: the time limit, a preemption or scancel
            # stops healthy ranks; the ranks' own failure, where one came first, is its own event)
            job = sc.group("id").split(".", 1)[0]
            why = f" due to {sc.group('why').lower()}" if sc.group("why") else ""
            if ("slurm-cancel", job) in seen and sc.group("why"):
                # the job's line after its step's names the reason the step's did not: the
                # reason is what is said (the step's line stays where the stop began)
                for ev in report.events:
                    if (
                        ev.kind == "job_cancelled"
                        and ev.code is None
                        and (ev.exception_type or "")
                        .split(" ", 2)[-1]
                        .split(" ", 1)[0]
                        .split(".", 1)[0]
                        == job
                    ):
                        ev.code = sc.group("why")
                        ev.exception_type = f"{(ev.exception_type or '')[:-1]}{why})"
                        ev.message = f"{ev.message} / {line[sc.start() :].strip()}"[:300]
            if ("slurm-cancel", job) not in seen:
                seen.add(("slurm-cancel", job))
                report.events.append(
                    LogEvent(
                        kind="job_cancelled",
                        line=no,
                        message=line[sc.start() :].strip()[:300],
                        host=sc.group("host"),
                        exception_type=f"slurmstepd ({sc.group('what').lower()} "
                        f"{sc.group('id')} cancelled{why})",
                        code=sc.group("why"),
                    )
                )
            continue
        if "oom" in line and (ok := _SLURM_OOM_KILL_RE.search(line)):
            once(
                ("slurm-oom", ok.group("id")), no, text,
                f"slurmstepd (Slurm's OOM killer: {ok.group('n')} oom_kill event(s) in step "
                f"{ok.group('id')})",
                root_cause=True,
            )  # fmt: skip
            continue
        if "crashed with exit code" in line and (cm := _COMPOSER_EXIT_RE.search(line)):
            once(
                ("composer", int(cm.group("rank"))), no, text, "composer",
                rank=int(cm.group("rank")), exit_code=int(cm.group("code")),
            )  # fmt: skip
            continue
        if "Fatal error in MPI_Init" in line and (mi := _MPI_INIT_RE.search(line)):
            mpi_stack = [t for _, t, _ in lines[index + 1 : index + 1 + MPI_INIT_STACK_LINES]]
            gh = next((g for t in mpi_stack if (g := _GETHOSTBYNAME_RE.search(t))), None)
            once(
                ("mpi init", no), no,
                f"{text}{f' (gethostbyname failed for {gh.group(1)})' if gh else ''}",
                f"MPI ({mi.group('call')} failed: {mi.group('what').strip()})",
                host=gh.group("host") if gh else None,
            )  # fmt: skip
            continue
        if "not reachable via ssh" in line and (du := _DS_UNREACHABLE_RE.search(line)):
            once(
                ("ssh", du.group("host")), no, text,
                "deepspeed (a hostfile's node not reachable via ssh)", host=du.group("host"),
            )  # fmt: skip
            continue
        if "Node failure on" in line and (nf := _SRUN_NODE_FAILURE_RE.search(line)):
            once(
                ("srun-node", nf.group("host")), no, text,
                "srun (Slurm lost the node: node failure)", host=nf.group("host"),
                root_cause=True,
            )  # fmt: skip
            continue
        if "Task launch for" in line and (tl := _SRUN_LAUNCH_FAILED_RE.search(line)):
            once(
                ("srun-launch", tl.group("host")), no, text,
                f"srun (task launch failed on the node: {tl.group('why')})", host=tl.group("host"),
            )  # fmt: skip
            continue
        if "was unable to reliably start" in line and _ORTE_NO_DAEMONS_RE.search(line):
            above = lines[max(0, index - ORTE_SSH_LINES) : index]
            unreached = [sm for _, t, _ in above if (sm := _SSH_HOST_RE.search(t))]
            causes = list(
                dict.fromkeys(c.group("why") for _, t, _ in above if (c := _SSH_CAUSE_RE.match(t)))
            )
            why = (
                "ssh: " + "; ".join(f"{u.group('host')}: {u.group('why')}" for u in unreached)
                if unreached
                else f"ssh: {'; '.join(causes)}"
                if causes
                else "no daemon reported back"
            )
            once(
                ("orte-daemons", 0), no, text,
                f"{'prterun' if 'prterun' in line else 'mpirun'} (Open MPI could not start its "
                f"daemons on the other nodes; {why})"[:200],
                host=unreached[0].group("host") if len(unreached) == 1 else None,
            )  # fmt: skip
            continue
        if "marked as dead" in line and _RAY_NODE_DEAD_RE.search(line):
            once(
                ("ray-dead", 0), no, text,
                "Ray (the raylet was marked dead: its heartbeats to the cluster lagged)",
            )  # fmt: skip
            continue
        if "has been revoked" in line and (rv := _SRUN_REVOKED_RE.search(line)):
            before = [t for _, t, _ in lines[max(0, index - 3) : index]]
            prolog = any("PrologSlurmctld failed" in t for t in before)
            launcher = "srun: allocation revoked before any task ran" + (
                " (PrologSlurmctld failed)" if prolog else ""
            )
            once(("srun-revoked", int(rv.group("job"))), no, text, launcher)
        elif (
            "srun: error" in line
            and (m := _SRUN_EXIT_RE.search(line))
            and (m.group("code") or m.group("oom") or m.group("sig") in SIGNAL_TEXTS)
        ):
            signum = str(SIGNAL_TEXTS[m.group("sig")]) if m.group("sig") else None
            for task in _task_list(m.group("task")):  # "tasks 8-13,15": each task its own end
                once(
                    (m.group("host"), task), no, text,
                    "srun (the task ran out of memory: Slurm's OOM killer)" if m.group("oom")
                    else "srun",
                    rank=task, host=m.group("host"),
                    exit_code=None if m.group("oom") else _exit_code(m.group("code"), signum),
                    root_cause=bool(m.group("oom")),
                )  # fmt: skip
        elif ": rank " in line and (pe := _PALS_EXIT_RE.match(text)):
            rank = int(pe.group("rank"))
            once(
                ("pals", rank), no, text, "mpiexec (PALS)",
                rank=rank, host=pe.group("host"),
                exit_code=_exit_code(pe.group("code"), pe.group("sig")),
            )  # fmt: skip
        elif "RUNNING AT" in line and (hr := _HYDRA_RANK_RE.search(line)):
            nxt = lines[index + 1][1] if index + 1 < len(lines) else ""
            if he := _HYDRA_END_RE.search(nxt):
                rank = int(hr.group("rank"))
                once(
                    ("hydra", rank), no, f"{text} {nxt.strip()}", "mpiexec (MPICH)",
                    rank=rank, host=hr.group("host"), pid=int(hr.group("pid")),
                    exit_code=_exit_code(he.group("code"), he.group("sig")),
                )  # fmt: skip
        elif "Container rank" in line and (pr := _PADDLE_RANK_EXIT_RE.search(line)):
            rank = int(pr.group("rank"))
            once(
                ("paddle", rank), no, text, "paddle launch",
                rank=rank, exit_code=int(pr.group("code")),
            )  # fmt: skip
        elif "Exit code" in line and (pe := _PADDLE_EXIT_RE.match(line)):
            once(("paddle", -1), no, text, "paddle launch", exit_code=int(pe.group("code")))
        elif "exits with return code" in line and (ds := _deepspeed_exit(lines, index)):
            dm, first, record = ds
            # the handler prints the command it built last (launch.py's loop variable "cmd":
            # its last local rank's), whichever process failed: the failed process is not named
            last = f", local rank {dm.group('lr')}" if dm.group("lr") else ""
            once(
                ("deepspeed", tagged if tagged is not None else f"line {first}"),
                first, record.strip()[-300:],
                "deepspeed (a process of its node failed; the command it prints is the last one "
                f"it started{last}, not the failed one's)",
                exit_code=int(dm.group("code")),
            )  # fmt: skip
        elif "ssh exited with exit code" in line and (pe := _PDSH_EXIT_RE.search(line)):
            once(
                ("pdsh", pe.group("host")), no, text,
                f"pdsh (the command on {pe.group('host')} ended)",
                host=pe.group("host"), exit_code=int(pe.group("code")),
            )  # fmt: skip
        elif "terminated with the following error" in line and (
            sr := _SPAWN_RAISED_RE.search(line)
        ):
            raised = next(
                (
                    after.strip()
                    for _, after, _ in lines[index + 1 : index + 1 + SPAWN_TRACE_LINES]
                    if _PY_EXCEPTION_RE.match(after)
                ),
                "its exception line is not in the file",
            )
            once(
                ("spawn", int(sr.group("idx"))), no, f"{text} {raised}",
                "torch.multiprocessing.spawn", local_rank=int(sr.group("idx")),
            )  # fmt: skip
        elif "terminated with" in line and (sx := _SPAWN_EXITED_RE.search(line)):
            name = sx.group("sig")
            number = getattr(signal, name, None) if name else None
            if name is None or isinstance(number, int):
                once(
                    ("spawn", int(sx.group("idx"))), no, text, "torch.multiprocessing.spawn",
                    local_rank=int(sx.group("idx")),
                    exit_code=_exit_code(sx.group("code"), str(int(number)) if number else None),
                )  # fmt: skip
        elif "start failed on " in line and (pf := _PALS_START_RE.search(line)):
            once(
                ("pals start", pf.group("host")), no, text,
                "mpiexec (PALS): the job could not start on a node", host=pf.group("host"),
                root_cause=True,
            )  # fmt: skip
        elif "has lost communication with a remote daemon" in line and _ORTE_LOST_RE.search(line):
            after = [t for _, t, _ in lines[index + 1 : index + 1 + ORTE_LOST_LINES]]
            hnp = next((h.group("node") for t in after if (h := _ORTE_HNP_RE.search(t))), None)
            remote = next((r for t in after if (r := _ORTE_REMOTE_RE.search(t))), None)
            node = remote.group("node") if remote else None
            once(
                ("orte lost", node or no), no,
                f"{text} Remote daemon {remote.group('daemon')} on node {node}"
                + (f"; mpirun's own daemon on {hnp}" if hnp else "")
                if remote
                else text,
                "mpirun (lost a node's daemon: the node or its network failed)", host=node,
                root_cause=True,
            )  # fmt: skip
        elif "Ray killed this worker" in line and (ro := _RAY_OOM_RE.search(line)):
            once(
                ("ray oom", ro.group("worker")), no,
                f"Ray killed worker {ro.group('worker')[:16]}: the node {ro.group('ip')} used "
                f"{ro.group('used')} GB of {ro.group('total')} GB ({ro.group('frac')}), over the "
                f"memory usage threshold {ro.group('thr')}",
                "Ray's memory monitor", host=ro.group("ip"),
            )  # fmt: skip
        elif "Worker exit type: " in line and (rw := _RAY_WORKER_EXIT_RE.search(line)):
            # Ray's account of a worker process that died: the raylet's line names the node and
            # pid; an ActorDiedError names them in its fields above it
            fields = {
                k: v
                for _, t, _ in lines[max(0, index - RAY_ACTOR_FIELD_LINES) : index]
                if (f := _RAY_ACTOR_FIELD_RE.match(t))
                for k, v in [f.groups()]
            }
            host = rw.group("ip") or fields.get("ip")
            pid_text = rw.group("pid") or fields.get("pid")
            once(
                ("ray worker", pid_text or no), no,
                f"the worker{f' pid {pid_text}' if pid_text else ''}{f' on {host}' if host else ''} "
                f"died: {rw.group('detail').strip()}"[:300],
                f"Ray (worker exit type {rw.group('type')})",
                host=host, pid=int(pid_text) if pid_text else None,
            )  # fmt: skip
        elif "died, exit code" in line and (vm := _VLLM_WORKER_EXIT_RE.search(line)):
            pid = int(vm.group("pid"))
            once(("vllm", pid), no, text, "vllm", pid=pid, exit_code=int(vm.group("code")))
        elif "died unexpectedly" in line and (dd := _MPI_DAEMON_RE.search(line)):
            cause = next(
                (
                    before.strip()
                    for _, before, _ in reversed(
                        lines[max(0, index - MPI_DAEMON_CAUSE_LINES) : index]
                    )
                    if before.strip() and not before.strip().startswith("---")
                ),
                "",
            )
            code = int(dd.group("code")) if dd.group("code") else -int(dd.group("sig"))
            if ("mpi daemon", code) not in seen:
                # mpirun could not start its daemon on a node: no rank of the job ran there
                seen.add(("mpi daemon", code))
                report.events.append(
                    LogEvent(
                        kind="launch_failed",
                        line=no,
                        message=(text + (f" (after: {cause})" if cause else ""))[:300],
                        exception_type="mpirun could not start its daemon on a node"
                        + (
                            " (127: the shell there found no orted, Open MPI is not on the "
                            "remote node's PATH)"
                            if code == 127
                            else f" (it died with {code})"
                        ),
                        exit_code=code,
                        pid=int(dd.group("pid")),
                        root_cause=True,
                    )
                )
        elif "peer process has unexpectedly disconnected" in line:
            block = [t.strip() for _, t, _ in lines[index : index + MPI_PEER_LOST_LINES]]
            fields = {
                f.group("key"): f.group("value")
                for t in block
                if (f := _MPI_PEER_FIELD_RE.match(t))
            }
            peer = fields.get("Peer host")
            if peer and ("mpi peer", peer) not in seen:
                seen.add(("mpi peer", peer))
                local = fields.get("Local host")
                report.events.append(
                    LogEvent(
                        kind="launcher_exit",
                        line=no,
                        message=text[:300],
                        host=peer,
                        exception_type=f"{_MPI_PEER_LOST}{peer} disconnected from "
                        + (f"pid {fields['Local PID']} on " if fields.get("Local PID") else "")
                        + f"{local or 'its peer'}: the process on {peer} failed first)",
                        root_cause=True,
                    )
                )
        elif "> is invalid" in line and (na := _NUMACTL_INVALID_RE.match(text)):
            near = lines[max(0, index - NUMACTL_USAGE_LINES) : index + 1 + NUMACTL_USAGE_LINES]
            own = [t for _, t, r in near if r == tagged]  # (srun -l: the same task's lines)
            why = next((w.group(0) for t in own if (w := _LIBNUMA_RANGE_RE.search(t))), None)
            if (why or any("usage: numactl" in t for t in own)) and ("numactl", no) not in seen:
                seen.add(("numactl", no))
                report.events.append(
                    LogEvent(
                        kind="launch_failed",
                        line=no,
                        message=text[:300],
                        exception_type=f"numactl refused its binding <{na.group('arg')}>"
                        + (f" (libnuma: {why})" if why else "")
                        + ": the CPUs or NUMA nodes it names are not this host's, and the "
                        "program under it never started",
                        rank=tagged,
                        root_cause=True,
                    )
                )
        elif "Unable to create step" in line and (st := _SRUN_STEP_RE.search(line)):
            if ("srun step", st.group("job")) not in seen:
                seen.add(("srun step", st.group("job")))
                report.events.append(
                    LogEvent(
                        kind="launch_failed",
                        line=no,
                        message=text[:300],
                        exception_type=f"srun could not create the job step of job "
                        f"{st.group('job')}: {st.group('why')}",
                        root_cause=True,
                    )
                )
        elif "FORCE-TERMINATE AT" in line and (ft := _ORTE_FORCE_TERMINATE_RE.search(line)):
            if ("orte force", ft.group("what")) not in seen:
                seen.add(("orte force", ft.group("what")))
                report.events.append(
                    LogEvent(
                        kind="launch_failed",
                        line=no,
                        message=text[:300],
                        exception_type=f"Open MPI's runtime (ORTE) stopped its daemon "
                        f"{ft.group('daemon')}: {ft.group('what')} (in {ft.group('where')})"
                        + (
                            "; the daemons do not understand each other's messages: the nodes "
                            "run different Open MPI (or hwloc) builds"
                            if "read past end of buffer" in ft.group("what")
                            else ""
                        ),
                        root_cause=True,
                    )
                )
        elif "not enough slots available" in line and (ns := _MPI_SLOTS_RE.search(line)):
            app = next(
                (
                    t.strip()
                    for _, t, _ in lines[index + 1 : index + 1 + MPI_SLOTS_APP_LINES]
                    if t.strip() and not t.strip().startswith("slots that")
                ),
                "",
            )
            if ("mpi slots", no) not in seen:
                seen.add(("mpi slots", no))
                report.events.append(
                    LogEvent(
                        kind="launch_failed",
                        line=no,
                        message=text[:300],
                        exception_type=f"mpirun refused to start {ns.group('n')} processes: not "
                        "enough slots on the hosts it was given"
                        + (f" (for {app})" if app.startswith(("/", "./")) else ""),
                        root_cause=True,
                    )
                )
        elif "noticed that process rank" in line and (mn := _MPI_NOTICED_RE.search(line)):
            once(
                ("mpi noticed", int(mn.group("rank"))), no, text, "mpirun",
                rank=int(mn.group("rank")),
                host=mn.group("host") if mn.group("host").strip("x") else None,
                pid=int(mn.group("pid")) if mn.group("pid").isdigit() else None,
                exit_code=-int(mn.group("sig")), root_cause=True,
            )  # fmt: skip
        elif "first process to do so" in line and _MPI_FIRST_RE.search(line):
            ev = LogEvent(
                kind="launcher_exit",
                line=no,
                message=text[:300],
                root_cause=True,
                exception_type="mpirun",
            )
            for later_no, later, _ in lines[index + 1 : index + 1 + MPI_SUMMARY_LINES]:
                if pm := _MPI_PROCESS_RE.search(later):
                    ev.rank, ev.line = int(pm.group("rank")), later_no
                    ev.message = f"{text.strip()} {later.strip()}"[:300]
                # (PRRTE prints the exit code on the name's line)
                if em := _MPI_EXIT_RE.search(later):
                    ev.exit_code = int(em.group("code"))
                elif hm := _MPI_HOST_RE.search(later):
                    ev.host = hm.group("host")
            if ev.exit_code is not None:
                report.events.append(ev)
    first_out = next(
        (
            e
            for e in report.events
            if e.kind == "launcher_exit"
            and e.exception_type == "mpirun"
            and e.exit_code is not None
        ),
        None,
    )
    if first_out is not None:
        # a survivor's "peer process has unexpectedly disconnected" is the same failure mpirun
        # names as the first process to exit: one failed rank, on the host the survivor names
        peers = [
            e
            for e in report.events
            if e.kind == "launcher_exit" and (e.exception_type or "").startswith(_MPI_PEER_LOST)
        ]
        for e in peers:
            first_out.host = first_out.host or e.host
            report.events.remove(e)
    if not seen and not any(e.kind == "launcher_exit" for e in report.events):
        report.events.extend(by_handler)
    if not any(e.kind == "launcher_exit" for e in report.events) and (
        ended := _transcript_ended_by_signal(lines)
    ):
        # (the first to fail only where nothing failed before it: a rank's OOM above it did)
        ended.root_cause = not any(e.kind not in NOTICE_KINDS for e in report.events)
        report.events.append(ended)
    if not any(e.kind == "launcher_exit" for e in report.events):
        # Open MPI's banner alone, the process it names cut off: "Primary job  terminated
        # normally, but 1 process returned\na non-zero exit code. Per user-direction, the job has
        # been aborted." (mpirun's banner above its "The first process to do so was" block or its
        # "mpirun noticed that process rank N ..." line, as Open MPI 1.x-4.x jobs print it)
        for index, (no, line, _) in enumerate(lines):
            if "terminated normally, but" in line and (m := _MPI_ABORTED_RE.search(line)):
                rest = " ".join(t.strip() for _, t, _ in lines[index + 1 : index + 2])
                report.events.append(
                    LogEvent(
                        kind="launcher_exit",
                        line=no,
                        message=f"{line.strip()} {rest}".strip()[:300],
                        exception_type="mpirun",
                        root_cause=True,
                    )
                )
                break


# torch_npu's NPU_CHECK_ERROR on a failed runtime call: "npuSynchronizeDevice:torch_npu/csrc/core/
# npu/NPUStream.cpp:363 NPU error, error code is 107020", or "NPU function error: aclrtX(...),
# error code is N". N is an ACL runtime error code. NPU_CHECK_WARN (torch_npu csrc/core/npu/
# NPUException.h) reports a failed call the process went on from, without naming it: "Warning:
# NPU warning, error code is 507048[Error]: " and the code's meaning on the next line. An aclnn
# operator's launch reads "NPU function error: call aclnnMoeDistributeDispatchV4 failed, error
# code is 561000" (an aclnn status, not a runtime code).
_NPU_CALL_RE = re.compile(
    r"(?P<call>\w+):\S+:\d+ NPU error, error code is (?P<code>\d+)"
    r"|NPU function error: (?:\w+::)*(?P<call2>\w+)\(.*?\),\s*error code is (?P<code2>\d+)"
    r"|NPU warning, error code is (?P<code3>\d+)"
    # (an OCR'd copy may lower a letter: "NPu function error: call ...")
    r"|(?i:NPU) function error: call (?P<call4>\w+) failed, error code is (?P<code4>\d+)"
    # torch_npu's op-plugin for an operator other than an HCCL collective (those are
    # hccl_call_failure): "OPS function error: RepeatInterleave, error code is 500002"
    r"|OPS function error: (?P<call5>(?!Hccl)\w+)\s*[,，]\s*error code is (?P<code5>\d+)"
    # PaddleCustomDevice's NPU runtime check, as its logs print it: "Call aclrtSetDevice(device->
    # id) failed : 507033 at file .../backends/npu/runtime/runtime.cc line 430"
    r"|Call (?P<call6>acl\w+)\(.*?\) failed : (?P<code6>\d+)"
)
# CANN's runtime return codes (include/external/runtime/rt_error_codes.h, ACL_ERROR_RT_*; the
# 2070xx resource codes as hicann/runtime include/external/acl/error_codes/rt_error_codes.h has
# them): the codes a collective's or a device's failure shows (207000 and 207021, a feature or
# link type the runtime does not support, 207019, and the queue's and init's states 207013-207015
# it answers a caller with (api_c.cc) are left out: a query's answer, not a failure).
ACL_RT_ERRORS: dict[int, str] = {
    107000: "ACL_ERROR_RT_PARAM_INVALID",
    107001: "ACL_ERROR_RT_INVALID_DEVICEID",
    107002: "ACL_ERROR_RT_CONTEXT_NULL",
    107003: "ACL_ERROR_RT_STREAM_CONTEXT",  # "stream not in current context"
    107004: "ACL_ERROR_RT_MODEL_CONTEXT",
    107005: "ACL_ERROR_RT_STREAM_MODEL",
    107008: "ACL_ERROR_RT_ADDR_UNALIGNED",
    107009: "ACL_ERROR_RT_FILE_OPEN",
    107010: "ACL_ERROR_RT_FILE_WRITE",
    107016: "ACL_ERROR_RT_INVALID_MEMORY_TYPE",
    107017: "ACL_ERROR_RT_INVALID_HANDLE",  # the driver's "invalid handle" (rtErrMap_)
    107018: "ACL_ERROR_RT_INVALID_MALLOC_TYPE",
    107019: "ACL_ERROR_RT_WAIT_TIMEOUT",
    107020: "ACL_ERROR_RT_TASK_TIMEOUT",
    207001: "ACL_ERROR_RT_MEMORY_ALLOCATION",
    207002: "ACL_ERROR_RT_MEMORY_FREE",
    207003: "ACL_ERROR_RT_AICORE_OVER_FLOW",
    207004: "ACL_ERROR_RT_NO_DEVICE",
    207005: "ACL_ERROR_RT_RESOURCE_ALLOC_FAIL",
    207006: "ACL_ERROR_RT_NO_PERMISSION",
    207007: "ACL_ERROR_RT_NO_EVENT_RESOURCE",
    207008: "ACL_ERROR_RT_NO_STREAM_RESOURCE",
    207009: "ACL_ERROR_RT_NO_NOTIFY_RESOURCE",
    207010: "ACL_ERROR_RT_NO_MODEL_RESOURCE",
    207011: "ACL_ERROR_RT_NO_CDQ_RESOURCE",
    207012: "ACL_ERROR_RT_OVER_LIMIT",
    207016: "ACL_ERROR_RT_AIVEC_OVER_FLOW",
    207017: "ACL_ERROR_RT_OVER_FLOW",
    207018: "ACL_ERROR_RT_DEVICE_OOM",
    207020: "ACL_ERROR_RT_TIMEOUT",
    507000: "ACL_ERROR_RT_INTERNAL_ERROR",
    507001: "ACL_ERROR_RT_TS_ERROR",
    507010: "ACL_ERROR_RT_LOST_HEARTBEAT",
    507011: "ACL_ERROR_RT_MODEL_EXECUTE",
    507012: "ACL_ERROR_RT_REPORT_TIMEOUT",
    507013: "ACL_ERROR_RT_SYS_DMA",
    507014: "ACL_ERROR_RT_AICORE_TIMEOUT",
    507015: "ACL_ERROR_RT_AICORE_EXCEPTION",
    507016: "ACL_ERROR_RT_AICORE_TRAP_EXCEPTION",
    507017: "ACL_ERROR_RT_AICPU_TIMEOUT",
    507018: "ACL_ERROR_RT_AICPU_EXCEPTION",
    507033: "ACL_ERROR_RT_DEV_SETUP_ERROR",
    507034: "ACL_ERROR_RT_VECTOR_CORE_TIMEOUT",
    507035: "ACL_ERROR_RT_VECTOR_CORE_EXCEPTION",
    507046: "ACL_ERROR_RT_STREAM_SYNC_TIMEOUT",
    507047: "ACL_ERROR_RT_EVENT_SYNC_TIMEOUT",
    507048: "ACL_ERROR_RT_FFTS_PLUS_TIMEOUT",
    507049: "ACL_ERROR_RT_FFTS_PLUS_EXCEPTION",
    507050: "ACL_ERROR_RT_FFTS_PLUS_TRAP_EXCEPTION",
    507051: "ACL_ERROR_RT_SEND_MSG",  # a message not sent while data was enqueued
    507052: "ACL_ERROR_RT_COPY_DATA",  # memory not copied while data was enqueued
    507053: "ACL_ERROR_RT_DEVICE_MEM_ERROR",
    507054: "ACL_ERROR_RT_HBM_MULTI_BIT_ECC_ERROR",
    507055: "ACL_ERROR_RT_SUSPECT_DEVICE_MEM_ERROR",
    507056: "ACL_ERROR_RT_LINK_ERROR",
    507057: "ACL_ERROR_RT_SUSPECT_REMOTE_ERROR",
    507899: "ACL_ERROR_RT_DRV_INTERNAL_ERROR",
    507901: "ACL_ERROR_RT_SOCKET_CLOSE",
    507904: "ACL_ERROR_RT_COMM_OP_RETRY_FAIL",
}


_PLOG_NOT_ERROR_RE = re.compile(
    r"^(?:\S*?:\d+:)?\s*\[(?:WARNING|WARN|INFO|DEBUG|EVENT)\] [A-Z_]+\(\d+,"
    # (hccl_test's own logger, lower case, "[warning][PID:109016][TID:...]": the HCCL-VM's stub
    # printing a capture-mode result the run went on past; a grep's file and line, or a time
    # stamp a collector wrote, may stand before it)
    r"|^(?:\S*?:\d+:)?(?:\s*\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?)?\s*"
    r"\[(?:warning|info|debug)\]\[PID:\d+\]"
)
"""A CANN plog line below ERROR (a grep's file and line may stand before it)."""
_RUNTIME_RESULT_RE = re.compile(
    # (its words may name more before the result: "synchronized memcpy failed, kind = 1,
    # runtime result = 107030")
    r"(?:(?P<call>[\w ]+?) failed, (?:[\w ]{1,20} = \w{1,20}, )?)?runtime result = (?P<code>\d{6})\b"
    r"|error code is (?P<code2>\d{6})(?!\d)"
    # the runtime's own plog (MindSpore on CANN 6): "[api_c.cc:721]163618 rtStreamSynchronize:
    # ErrCode=507011, desc=[the model stream execute failed], InnerCode=0x7150050"
    # (a runtime that tags its stage first: "rtStreamSynchronizeWithTimeout:[EXEC][EXEC]ErrCode=
    # 507015, desc=[aicore exception]")
    r"|\b(?P<call3>rt\w+):(?:\[\w+\])*ErrCode=(?P<code3>\d{6})(?!\d)"
    # a newer runtime's plog: "FuncErrorReason:RtStreamSynchronizeWithTimeout execute failed,
    # reason=[stream sync timeout] (507046)", after "StreamSyncError: code=507046, des=[...]"
    r"|\b(?P<call4>\w+) execute failed, reason=\[[^\]]*\] \((?P<code4>\d{6})\)"
    r"|\b\w+Error: code=(?P<code5>\d{6}), des=\["
    # vllm-ascend's worker after a failed stream sync: "RuntimeError: ACL stream synchronize
    # failed, error code:507035" (the runtime's code)
    r"|\b(?P<call6>ACL stream synchronize) failed, error code:\s*(?P<code6>\d{6})(?!\d)"
    # a C++ program's own ACL check: "[ERROR] aclrtSynchronizeStream(stream) failed: 507015
    # (main.cpp:108)", or without its arguments: "aclrtSynchronizeStream failed: 507018"
    r"|\b(?P<call7>aclrt\w+)(?:\([^()]*\))? failed: (?P<code7>\d{6})(?!\d)"
    # a program's own print of an ACL call's result: "aclrtSetDevice failed, ret = 107001,
    # deviceId=0" (the CANN runtime FAQ's example)
    r"|\b(?P<call8>aclrt\w+) failed, ret = (?P<code8>\d{6})(?!\d)"
    # the CANN samples' own check: "[ERROR]  acl set device 0 failed, errorCode = 507033"
    r"|\b(?P<call10>acl [a-z][\w ]*?) failed, errorCode = (?P<code10>\d{6})(?!\d)"
    # the runtime's last error as a caller peeked it (api_impl.cc PeekLastErr, logged at INFO:
    # "PeekLastErr: level=0 err=507899."), before torch_npu said what it could not do
    r"|\b(?P<call11>PeekLastErr): level=\d+ err=(?P<code11>\d{6})(?!\d)"
    # GE's report of a failed runtime call (log_inner.cpp ReportCallError): "[Call][Rts]call rts
    # api [rtMemcpyAsyncEx] failed, retCode is 507011"
    r"|\bcall rts api \[(?P<call12>\w+)\] failed, retCode is (?P<code12>\d{6})(?!\d)"
)


# the runtime's own words for the code it returned, in its plog lines under the caller's
# ("rtMemcpy:ErrCode=107030, desc=[the current capture mode does not support this operation],
# InnerCode=0x703001c"; hicann/runtime api_c.cc logs ErrCode with the code's description)
_RUNTIME_DESC_RE = re.compile(r"\bErrCode=(?P<code>\d{6}), desc=\[(?P<desc>[^\]\n]{1,200})\]")


RUNTIME_DESC_LINES = 6
"""How far under a caller's failed runtime call the runtime's own ErrCode line may stand."""


def _runtime_desc(window: list[str], code: int) -> str | None:
    """The runtime's description of ``code`` in the lines under its caller's, if it gave one."""
    for line in window:
        if (m := _RUNTIME_DESC_RE.search(line)) and int(m.group("code")) == code:
            return m.group("desc").strip()
    return None


# nccl-tests' CUDACHECK (src/common.h): printf("%s: Test CUDA failure %s:%d '%s'\n", hostname,
# __FILE__, __LINE__, cudaGetErrorString(err)); the line may stand glued after a row it cut
_CUDA_TEST_RE = re.compile(
    r"(?:(?<![\w.-])(?P<host>[\w.-]+): )?Test CUDA failure (?P<where>\S+:\d+) '(?P<what>[^']*)'"
)


# A CUDACHECK that prints "Failed: CUDA error FILE:LINE '<cudaGetErrorString>'" (NCCL's examples'
# macro writes "Cuda", as sglang's custom all-reduce printed it: "Failed: Cuda error /workspace/
# csrc/custom_all_reduce.cuh:307 'peer access is not supported between these two devices'";
# DeepEP's CUDA_CHECK throws EPException with it: "what():  Failed: CUDA error /workspace/DeepEP/
# csrc/deep_ep.cpp:83 'unspecified launch failure'"); vLLM's custom all-reduce leaves out the
# words: "VLLM: Failed: /workspace/csrc/custom_all_reduce.cuh:368 'invalid argument'" (a source
# file's name then, so that no other "Failed: x:1 '...'" is taken for one)
_CUDA_FAILED_RE = re.compile(
    r"Failed: (?:(?:CUDA|Cuda) error (?P<where>\S+:\d+)|(?P<src>\S+\.(?:cuh?|cpp|cc|hpp|h):\d+)) "
    r"'(?P<what>[^']+)'"
)


# The HIP runtime's own log (AMD_LOG_LEVEL >= 1): ":1:hip_code_object.cpp :460 : 43966602806 us:
# hipErrorNoBinaryForGpu: Unable to find code object for all current devices!" (OLCF's Frontier
# guide); the error's name and text, the runtime's file and line as the call
_HIP_ERROR_RE = re.compile(
    r"(?::\d+:(?P<file>\w+\.cpp)\s*:(?P<no>\d+)\s*:[^:]*:\s*)?"
    r"(?P<what>hipError[A-Z]\w+: [^\"\n]+?)\s*$"
)


def _ucx_errors(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One event per process, HCA port and error that UCX's mlx5 transport reported."""
    seen: set[tuple[str | None, str]] = set()
    for no, line, tagged in lines:
        if " on mlx" in line and (m := _UCX_CQE_RE.search(line)):
            what = f"{m.group('what')} on {m.group('port')}/{m.group('tl')}"
            start = m.start("what")
        elif "Error on QP" in line and (m := _UCX_QP_ERROR_RE.search(line)):
            op = f", opcode {m.group('op')}" if m.group("op") else ""
            what = f"{m.group('what')} on QP {m.group('qp')}{op}"
            start = m.start("qp") - len("Error on QP ")
        elif "UCX" in line and (m := _UCX_LOG_ERROR_RE.search(line)):
            what, start = m.group("msg")[:200], m.start("msg")
        else:
            continue
        if (m.group("pid"), what) in seen:
            continue
        seen.add((m.group("pid"), what))
        report.events.append(
            LogEvent(
                kind="ucx_error",
                line=no,
                message=line[start:].strip()[:300],
                rank=tagged,
                host=m.group("host"),
                pid=int(m.group("pid")) if m.group("pid") else None,
                exception_type=what,
                library="UCX",
            )
        )


# MindSpore's msrun (mindspore/parallel/cluster/process_entity/_api.py): "There's worker exits
# with exception, kill all other workers.", then, analysing the scheduler's log, "Time out nodes
# are ['3']" (the nodes whose heartbeat the cluster's meta server lost)
_MSRUN_WORKER_EXIT = "There's worker exits with exception, kill all other workers"
# ... and, before it, each process that ended non-zero: "Worker process 130673 exit with
# exception." ("Scheduler process N ..." for its scheduler)
_MSRUN_PROCESS_EXIT_RE = re.compile(
    r"\b(?P<who>Worker|Scheduler) process (?P<pid>\d+) exit with exception\."
)
_MSRUN_TIMEOUT_RE = re.compile(r"Time out nodes are \[(?P<nodes>[^\]]*)\]")


def _msrun(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """msrun's account of a worker that ended with an exception, and of the nodes the cluster
    timed out, once each."""
    said: set[str] = set()
    # each worker process msrun saw end non-zero is one exit; its summary line and the scheduler's
    # own exit (no rank) only add words to them
    exits = [
        (no, line, tagged, pe)
        for no, line, tagged in lines
        if "exit with exception." in line and (pe := _MSRUN_PROCESS_EXIT_RE.search(line))
    ]
    workers = [e for e in exits if e[3].group("who") == "Worker"]
    schedulers = [e[3].group("pid") for e in exits if e[3].group("who") == "Scheduler"]
    also = f" (its scheduler process {', '.join(schedulers)} ended too)" if schedulers else ""
    for no, line, tagged, pe in workers:
        report.events.append(
            LogEvent(
                kind="launcher_exit",
                line=no,
                message=line[pe.start() :].strip()[:300],
                rank=tagged,
                pid=int(pe.group("pid")),
                exception_type=f"msrun: its worker process ended with an exception{also}",
            )
        )
    if workers:
        said.add("exit")
    for no, line, tagged in lines:
        if _MSRUN_WORKER_EXIT in line and "exit" not in said:
            said.add("exit")
            report.events.append(
                LogEvent(
                    kind="launcher_exit",
                    line=no,
                    message=line[line.index(_MSRUN_WORKER_EXIT) :].strip()[:300],
                    rank=tagged,
                    exception_type=f"msrun{also}",
                )
            )
        elif "Time out nodes" in line and (m := _MSRUN_TIMEOUT_RE.search(line)):
            if "timeout" in said:
                continue
            said.add("timeout")
            nodes = re.findall(r"'?(\w+)'?", m.group("nodes"))
            report.events.append(
                LogEvent(
                    kind="coordination_timeout",
                    line=no,
                    message=line[m.start() :].strip()[:300],
                    rank=tagged,
                    exception_type="nodes timed out",
                    library="MindSpore cluster (msrun)",
                    missing_ranks=[int(n) for n in nodes if n.isdigit()],
                )
            )


# HCCL's task exception report (an AICPU-scheduled or host op whose task failed on the device):
# "[TaskException]base information is streamId:149, ..., type:NOTIFY WAIT, localRank:1,
# remoteRank:0, ..." then "[TaskException]opData information is tag:<op tag>, group:<group>,
# opIndex:.., count:1048576, ..."; remoteRank 4294967295 is (uint32)-1: no peer. The AICPU
# communicator writes "[TaskException][AICPU]base information is ... type:SDMA, ..."
_TASK_BASE_RE = re.compile(
    r"\[TaskException\](?:\[AICPU\])?base information is .*?\btype:(?P<type>[A-Z_ ]+?), "
    r"localRank:(?P<local>\d+), remoteRank:(?P<remote>\d+)"
)
_TASK_ERROR_CODE_RE = re.compile(
    r"\brun failed of exception\b.*?\bstreamId :(?P<stream>\d+) taskId :(?P<task>\d+) "
    r"errorCode :(?P<code>\d+)"
)
"""The failed task's own line (``aicpu_hccl_sqcq.cc``): the device's error code for it."""
_TASK_IDS_RE = re.compile(r"\bstreamId:(?P<stream>\d+),.*?\btaskId:(?P<task>\d+)")
"""The stream and task a task exception report names (its base information line)."""
_TASK_OP_RE = re.compile(
    r"\[TaskException\]opData information is tag:(?P<tag>[^,]+), group:(?P<group>[^,]+),.*?"
    r"\bcount:(?P<count>\d+)"
)
NO_RANK = 4294967295
"""(uint32)-1 in HCCL's task exception: no remote rank."""
# The older host-side handler (task_exception_handler.cc) says the same in three lines: "Task run
# failed, base information is streamID:[3], taskID[77726298], taskType[Notify Wait], tag[AllReduce
# _...]", "para information is notify id:[..], stage:[ffffffff], remote rank:[3]." and
# "groupRank information is group:[..], rankSize[4], rankId[0]."
_HANDLER_BASE_RE = re.compile(
    r"Task run failed, base information is .*?taskType\[(?P<type>[^\]]+)\], "
    r"tag\[(?:Hcom)?(?P<op>[A-Za-z]+)_"
)
_HANDLER_GROUP_RE = re.compile(
    r"Task run failed, groupRank information is group:\[(?P<group>[^\]]*)\], "
    r"rankSize\[(?P<size>\d+)\], rankId\[(?P<rank>\d+)\]"
)


# The result HCCL passed up after an uncoded ERROR line, printed at each caller ("[CreateQp]call
# trace: hcclRet -> 12", HCCL's CHK_RET trace), and the device its own words name ("creat qp
# failed, localDeviceId[11], qpMode[4]")
_ANY_CALL_TRACE_RE = re.compile(r"call trace: hcclRet -\s?> ?(?P<ret>\d+)\b")
_LOCAL_DEVICE_RE = re.compile(r"\blocalDeviceId\[(?P<dev>\d+)\]")
# The concise rank table's parse naming both device ids ("[Parse][ClusterInfo]ranktable config
# devId[1], but local devId[3]"): the table's device_id for this rank is not the device the
# process was given (a container's logical ids against the table's physical ones)
_TABLE_DEVICE_RE = re.compile(
    r"ranktable config devId\[(?P<table>\d+)\], but local devId\[(?P<local>\d+)\]"
)
PLOG_TRACE_LINES = 8
"""How far under a plog's first ERROR line its call trace (and the device it names) may stand."""
PLOG_KERNEL_LINES = 48
"""How far under the runtime's first ERROR line its report may name the failed kernel, its
cores' own reports between not counted (``PLOG_CORE_REPORT_LINES``)."""
PLOG_CORE_REPORT_LINES = 256
"""How many lines of the cores' own reports (the runtime's ProcessStarsCoreErrorInfo, four lines
a core) the window for the failed kernel's name passes over without counting them."""
PLOG_ASSERT_LINES = 60
"""How far under it the kernel's own assertion (printed with the exception's dump) may stand."""


_PLOG_THREAD_RE = re.compile(r"\]\s*\[(\d+)\]")
"""The thread id a plog line prints after its source place ("[transport_ibverbs.cc:597] [434627]")."""
HCCL_E_AGAIN = 20
"""HcclResult 20 (try again): a retry HCCL traces at WARNING level, not the failure's result."""


def _plog_trace(lines: list[tuple[int, str, int | None]], first: LogEvent) -> None:
    """The HcclResult a plog's first uncoded ERROR line led to (the call trace under it, on
    ERROR lines of the threads that failed, never a retry's 20), said with its name, and the
    physical device the lines name (HCCL's localDeviceId is the device's physical id)."""
    after = [
        t
        for no, t, _ in lines
        if first.line <= no <= first.line + PLOG_TRACE_LINES and "[ERROR]" in t
    ]
    threads = {
        m.group(1) for t in after if "call trace" not in t and (m := _PLOG_THREAD_RE.search(t))
    }
    traces = [
        int(m.group("ret"))
        for t in after
        if (m := _ANY_CALL_TRACE_RE.search(t))
        and (not threads or (th := _PLOG_THREAD_RE.search(t)) is None or th.group(1) in threads)
    ]
    result = next((r for r in traces if r != HCCL_E_AGAIN), None)
    said: list[str] = []
    if table := _search(_TABLE_DEVICE_RE, after):
        said.append(
            f"the rank table gives this rank device {table.group('table')} but the process has "
            f"device {table.group('local')} (the table's device_id does not match the device "
            "the process runs on)"
        )
        first.device = int(table.group("local")) if first.device is None else first.device
    if first.code is None and result is not None:
        name, meaning = decode_result(result)
        first.code, first.code_name = str(result), name
        if name != "unknown":
            said.append(f"HCCL passed up {result} = {name} ({meaning})")
    if dev := _search(_LOCAL_DEVICE_RE, after):
        said.append(f"on physical device {dev.group('dev')}")
    if said:
        what = ", ".join(said)
        first.exception_type = f"{first.exception_type}; {what}" if first.exception_type else what


def _hccl_plog_error(lines: list[tuple[int, str, int | None]]) -> LogEvent | None:
    """An HCCL plog whose ERROR lines no reading above explained (no error code, no failed call):
    its first one, with what HCCL's task exception report names (the task's type, this rank and
    its peer, the op's tag, group and count); None when the plog has no ERROR line of HCCL's."""
    first: LogEvent | None = None
    task_codes: dict[tuple[str, str], str] = {}  # (stream, task) -> the device's error code
    for no, line, tagged in lines:
        if first is None and "[ERROR] HCCL(" in line and HCCL_PLOG_RE.search(line):
            first = LogEvent(
                kind="hccl_plog_error",
                line=no,
                message=_PLOG_HEAD_RE.sub("", line.strip())[:300],
                rank=tagged,
            )
            first.library = "HCCL"
        if first is not None and (c := _TASK_ERROR_CODE_RE.search(line)):
            task_codes.setdefault((c.group("stream"), c.group("task")), c.group("code"))
        if first is not None and "Task run failed, " in line:
            # the older handler's three lines (their op tag names the op)
            if (h := _HANDLER_BASE_RE.search(line)) and first.exception_type is None:
                first.exception_type = f"task exception on a {h.group('type')} task"
                first.op = OPS.get(h.group("op")) or first.op
            if (r := _REMOTE_RE.search(line)) and r.group(1).isdigit():
                first.remote_rank = (
                    first.remote_rank if first.remote_rank is not None else int(r.group(1))
                )
            if g := _HANDLER_GROUP_RE.search(line):
                first.rank = first.rank if first.rank is not None else int(g.group("rank"))
                first.rank_size, first.group = int(g.group("size")), g.group("group")
        if first is None or "[TaskException]" not in line:
            continue
        if (b := _TASK_BASE_RE.search(line)) and first.exception_type is None:
            ids = _TASK_IDS_RE.search(line)
            code = task_codes.get((ids.group("stream"), ids.group("task"))) if ids else None
            first.exception_type = f"task exception on a {b.group('type').strip()} task" + (
                f" (errorCode {code})" if code else ""
            )
            first.rank = int(b.group("local"))
        if b and int(b.group("remote")) != NO_RANK and first.remote_rank is None:
            first.remote_rank = int(b.group("remote"))
        if (o := _TASK_OP_RE.search(line)) and first.op is None:
            first.op, first.group = o.group("tag"), o.group("group")
            first.numel = int(o.group("count"))
    if first is not None and first.rank is None:
        # no group line: the process's own init trace names its rank, when it names one
        inits = {
            (m.group("rank"), m.group("size"))
            for _, t, _ in lines
            if (m := _INIT_RANK_RE.search(t))
        }
        if len(inits) == 1:
            ((rank, size),) = inits
            first.rank, first.rank_size = int(rank), first.rank_size or int(size)
    if first is not None:
        _plog_trace(lines, first)
    if first is not None and first.exception_type is None and _DEVICE_IP_UNSET in first.message:
        # HCCL's own words (topoinfo_ranktableConcise.cc): a rank table without device_ip
        first.exception_type = (
            "the rank table gives no device_ip, which HCCL needs when the job spans servers (or "
            "HCCL_INTRA_ROCE_ENABLE is on): a configuration error at start-up"
        )
    if first is not None and first.exception_type is None:
        for _, line, _ in lines:
            if "SuperPodId" in line and (sp := _SUPERPOD_LINK_RE.search(line)):
                first.exception_type = (
                    f"this rank's failed link was over the super pod's VNIC, in logical super pod "
                    f"{sp.group('logic')} (HCCL_LOGIC_SUPERPOD_ID) on physical super pod "
                    f"{sp.group('phy')}: where the peer's physical super pod differs, the two "
                    "wait on each other over a VNIC link that does not join them (compare the "
                    "peer's phySuperPodId)"
                )
                break
    return first


_DEVICE_IP_UNSET = "'device_ip' is not set correctly,must be set when multi Server"
"""HCCL's rank table check of a table without device_ip for a job over several servers."""
# HCCL's note of a rank's link type and super pods when its link set-up failed
# (transport_manager.cc PrintErrorInfo): "local rank information: nicType[VNIC_TYPE],
# logicSuperPodId[logic_1], phySuperPodId[0]. Note: Do not configure ranks belonging to different
# physical superpod ID info a single logical superpod ID" (the HCCL guide's EI0006 page: fix or
# unset HCCL_LOGIC_SUPERPOD_ID); "logicSuperPodId is not set" is no such case
_SUPERPOD_LINK_RE = re.compile(
    r"nicType\[VNIC_TYPE\], logicSuperPodId\[(?P<logic>[^\]]+)\], phySuperPodId\[(?P<phy>[^\]]+)\]"
)


# HCCL's run plog at a communicator's creation: "[INFO] HCCL(3079955,all_reduce_test):2025-11-20-
# 11:59:56.716.583 [op_base.cc:1293] [3079955]Entry-HcclCommInitRootInfoInner:ranks[4], rank[3],
# rootinfo: host ip[127.10.0.1] port[60000] ..." (older: Entry-HcclCommInitRootInfo). The HCCL
# fault guide (hicann/hccl docs/zh/user_guide/fault_diagnosis/cluster_info_nego.md, EI0015) reads
# these lines' times across ranks: a rank that calls it more than HCCL_CONNECT_TIMEOUT (default
# 120 s) after the others leaves their link set-up waiting past it, and the creation fails.
# (HcclCommInitRootInfoConfig's entry, CANN 8's: "Entry-HcclCommInitRootInfoConfigInner:ranks[16],
# rank[0], rootinfo: host ip[127.10.0.1] port[60000] nicDeploy[1] identifier[group_name_0], ...")
_INIT_ENTRY_RE = re.compile(
    r"Entry-HcclCommInitRootInfo(?:Config)?(?:Inner)?:ranks\[(?P<size>\d+)\], rank\[(?P<rank>\d+)\]"
    r"(?:, rootinfo: host ip\[(?P<ip>[^\]]*)\] port\[(?P<port>\d+)\])?"
    r"(?:.*?identifier\[(?P<ident>[^\]]*)\])?(?:.*?deviceLogicId\[(?P<dev>\d+)\])?"
)
HCCL_CONNECT_TIMEOUT_MAX_S = 7200.0
"""HCCL_CONNECT_TIMEOUT's largest value (hccl_env/HCCL_CONNECT_TIMEOUT.md: 120-7200 s): entries
further apart are not one creation (another run, another day)."""
_PLOG_STAMP_RE = re.compile(r"\):(\d{4})-(\d\d)-(\d\d)-(\d\d):(\d\d):(\d\d)(?:\.(\d+))?")
HCCL_CONNECT_TIMEOUT_DEFAULT_S = 120.0
"""hicann/hccl docs, hccl_env/HCCL_CONNECT_TIMEOUT.md: the link set-up time-out's default (EI0006's
own solution text repeats it)."""


def _hccl_init_skew(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """Ranks of one communicator (its identifier; else its size, root address and port), each
    its own process, that called its creation more than HCCL_CONNECT_TIMEOUT's default apart
    (and less than its largest value: further apart is another run): one event, the latest
    rank's (``hccl_init_skew``)."""
    entries: dict[tuple[str, str, str], dict[int, tuple[float, int, str | None]]] = {}
    ports: dict[tuple[str, str, str], str] = {}
    for no, line, _ in lines:
        if "Entry-HcclCommInitRootInfo" not in line or not (m := _INIT_ENTRY_RE.search(line)):
            continue
        if (seconds := _plog_seconds(line)) is None:
            continue
        # (the identifier after the root's address, which a copy may garble)
        ident = (m.group("ident") or "").rsplit("%", 1)[-1]
        key = (m.group("size"), m.group("ip") or "", ident or m.group("port") or "")
        pid = _PLOG_PID_ANYWHERE_RE.search(line)
        ports.setdefault(key, m.group("port") or "")
        ranks = entries.setdefault(key, {})
        ranks.setdefault(int(m.group("rank")), (seconds, no, pid.group(1) if pid else None))
    for key, ranks in entries.items():
        size, ip, _ = key
        pids = [pid for _, _, pid in ranks.values() if pid is not None]
        if len(ranks) < 2 or len(set(pids)) < len(pids):
            continue  # (one process as two ranks: two communicators of one shape, not one)
        first_rank, (first_s, _, _) = min(ranks.items(), key=lambda kv: kv[1][0])
        last_rank, (last_s, last_no, _) = max(ranks.items(), key=lambda kv: kv[1][0])
        spread = last_s - first_s
        if not HCCL_CONNECT_TIMEOUT_DEFAULT_S < spread <= HCCL_CONNECT_TIMEOUT_MAX_S:
            continue
        port = ports[key]
        where = f" (root {ip}:{port})" if ip else ""
        report.events.append(
            LogEvent(
                kind="hccl_init_skew",
                line=last_no,
                message=f"rank {last_rank} called HcclCommInitRootInfo {spread:.0f} s after rank "
                f"{first_rank}, the first of the {len(ranks)} of {size} ranks logged{where}",
                rank=last_rank,
                rank_size=int(size),
                remote_rank=first_rank,
                ran_for_ms=int(spread * 1000),
                library="HCCL",
                exception_type="communicator creation called too far apart",
            )
        )


# torch's flight recorder analyzer (torch.distributed.flight_recorder, the fr_trace command): a
# block a collective it could not match across ranks, "Not all ranks joining collective, sequence
# number: 4" (then "missing ranks: {1}") or "Collective 39 at entry 38 errors" (then "error msg:
# Culprit rank 22; Error type: SIZE_OR_SYNTAX_MISMATCH, ..."), each with "group info:",
# "collective:" and "world size:" lines
# (the analyzer's head of a block has changed over torch's releases: "..., sequence number: N"
# now, "...: sequence number: N" and "... collective N at entry M" before it)
_FR_HEAD_RE = re.compile(
    r"^(?:Not all ranks joining collective(?:[,:] sequence number: (?P<seq>\d+)"
    r"| (?P<seq_at>\d+) at entry \d+)"
    r"|Collective (?P<coll>\d+) at entry (?P<entry>\d+) errors)\s*$"
)
_FR_FIELD_RE = re.compile(r"^(group info|collective|missing ranks|world size|error msg): (.*)$")
_FR_CULPRIT_RE = re.compile(r"Culprit rank (\d+); Error type: (\w+)")
FR_BLOCK_LINES = 12
"""How far below its head an analyzer block's fields stand."""


# NVIDIA Resiliency Extension's flight-recorder attribution (nvidia-resiliency-ext, its
# attribution module's reference outputs): a table "PGID | Process Group Desc | Op Type | Size |
# Dtype | Missing Ranks", one row a collective some ranks never joined
# (its command line logs through logging.basicConfig: "INFO:__main__:" before each line)
FR_ATTRIBUTION_HEAD_RE = re.compile(
    r"^(?P<prefix>\s*(?:[A-Z]+:[\w.]+:)?)\s*PGID\s*\|\s*Process Group Desc\s*\|\s*Op Type\s*\|"
    r"\s*Size\s*\|\s*Dtype\s*\|\s*Missing Ranks\s*$"
)


def _fr_attribution(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """Each row of an attribution table: ``fr_trace_mismatch``, the ranks that never joined."""
    columns: list[str] | None = None
    prefix = ""
    for no, raw, tagged in lines:
        if head := FR_ATTRIBUTION_HEAD_RE.match(raw):
            prefix = head.group("prefix").strip()
            columns = [c.strip() for c in raw[head.end("prefix") :].split("|")]
            continue
        line = raw.strip()
        if prefix and line.startswith(prefix):
            line = line[len(prefix) :]
        cells = [c.strip() for c in line.split("|")]
        if columns is None or len(cells) != len(columns) or not cells[0].isdigit():
            if "|" not in line and line.strip():
                columns = None  # the table is over
            continue
        row = dict(zip(columns, cells, strict=True))
        missing = [int(r) for r in re.findall(r"\d+", row["Missing Ranks"])]
        op = row["Op Type"].split(":")[-1]
        report.events.append(
            LogEvent(
                kind="fr_trace_mismatch",
                line=no,
                message=f"{row['Op Type']} ({row['Size']} {row['Dtype']}) in process group "
                f"{row['PGID']} ({row['Process Group Desc']}): rank(s) "
                f"{', '.join(map(str, missing))} never joined it"[:300],
                rank=tagged,
                op=OPS.get(op, op) or None,
                group=f"{row['PGID']} ({row['Process Group Desc']})",
                missing_ranks=missing or None,
                library="flight recorder attribution",
                exception_type=f"ranks that never joined it ({row['Size']} {row['Dtype']})",
            )
        )


def _fr_trace(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """Each collective torch's flight recorder analyzer reports: ``fr_trace_mismatch``, the
    ranks it names (missing ones, or the culprits of a mismatch) in ``missing_ranks``."""
    if any("Missing Ranks" in t for _, t, _ in lines):
        _fr_attribution(lines, report)
    for index, (no, line, tagged) in enumerate(lines):
        if "ollective" not in line or not (head := _FR_HEAD_RE.match(line.strip())):
            continue
        fields: dict[str, str] = {}
        for _, after, _ in lines[index + 1 : index + 1 + FR_BLOCK_LINES]:
            if _FR_HEAD_RE.match(after.strip()):
                break
            if f := _FR_FIELD_RE.match(after.strip()):
                fields.setdefault(f.group(1), f.group(2))
        culprits = _FR_CULPRIT_RE.findall(fields.get("error msg", ""))
        missing = [int(r) for r in re.findall(r"\d+", fields.get("missing ranks", ""))]
        named = missing or [int(r) for r, _ in culprits]
        op = fields.get("collective", "").split(":")[-1] or None
        seq = head.group("seq") or head.group("seq_at")
        why = (
            "ranks that never joined it"
            if head.group("coll") is None
            else ", ".join(dict.fromkeys(kind for _, kind in culprits)) or "an error"
        )
        report.events.append(
            LogEvent(
                kind="fr_trace_mismatch",
                line=no,
                message=f"{line.strip()}: {why}"
                + (f" (rank(s) {', '.join(map(str, named))})" if named else ""),
                rank=tagged,
                op=OPS.get(op, op) if op else None,
                seq=int(seq) if seq else None,
                group=fields.get("group info"),
                rank_size=int(fields["world size"])
                if fields.get("world size", "").isdigit()
                else None,
                missing_ranks=named or None,
                library="torch flight recorder analyzer",
                exception_type=why,
            )
        )


# NCCL's RAS report (NCCL 2.24+, NCCL docs troubleshooting/ras: a job-wide view of its processes'
# health, printed by the RAS client): "Job summary", "Communicators" (a table whose Errors column
# says OK, INCOMPLETE, MISMATCH ...), then "Errors" and "Warnings" sections, each entry a head
# ("#0-0 (fa93daea854b060b) MISMATCH", or "INCOMPLETE" for the job) and its indented lines: what
# it found ("Communicator ranks have different AllGather operation counts", "Missing communicator
# data from 1 rank") and the ranks ("Rank 12 -- GPU 4 managed by process 323032 on node ...").
_RAS_SECTION_RE = re.compile(r"^(Errors|Warnings)\s*$")
_RAS_REPORT_RE = re.compile(r"^Job summary\s*\n=+\s*$", re.M)
_RAS_ENTRY_RE = re.compile(
    r"^(?:#(?P<comm>\d+-\d+) \((?P<hash>[0-9a-f]+)\) )?(?P<what>[A-Z][A-Z_,]+)\s*$"
)
_RAS_RANK_RE = re.compile(
    r"^\s+Rank (?P<rank>\d+) -- GPU (?P<gpu>\d+) managed by process (?P<pid>\d+) on node (?P<node>\S+)"
)
_RAS_PROCESS_RE = re.compile(r"^\s+Process (?P<pid>\d+) on node (?P<node>\S+)")
RAS_RANKS_SHOWN = 8
"""How many of an entry's ranks its message names (a 255-rank list is said as a count)."""


def _nccl_ras(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """Each entry of an NCCL RAS report's Errors and Warnings sections: ``nccl_ras``, its
    keyword the code, the section in ``library``, the ranks (and their nodes) it names."""
    section: str | None = None
    entry: LogEvent | None = None
    ranks: list[str] = []

    def close() -> None:
        if entry is not None and ranks:
            shown = "; ".join(ranks[:RAS_RANKS_SHOWN])
            more = (
                f" and {len(ranks) - RAS_RANKS_SHOWN} more" if len(ranks) > RAS_RANKS_SHOWN else ""
            )
            entry.message = f"{entry.message} / {shown}{more}"[:400]

    for index, (no, line, tagged) in enumerate(lines):
        if m := _RAS_SECTION_RE.match(line):
            nxt = lines[index + 1][1] if index + 1 < len(lines) else ""
            if nxt.strip().startswith("=="):
                close()
                section, entry, ranks = m.group(1).lower(), None, []
            continue
        if section is None:
            continue
        if line.strip().startswith("==") or not line.strip():
            continue
        if not line[:1].isspace():
            head = _RAS_ENTRY_RE.match(line)
            close()
            entry, ranks = None, []
            if head is None:
                section = None  # other output after the report
                continue
            where = f"communicator {head.group('comm')} " if head.group("comm") else "the job: "
            entry = LogEvent(
                kind="nccl_ras",
                line=no,
                message=f"{where}{head.group('what')}",
                rank=tagged,
                code=head.group("what"),
                library=f"NCCL RAS {section}",
            )
            report.events.append(entry)
            continue
        if entry is None:
            continue
        if r := _RAS_RANK_RE.match(line):
            if entry.rank is None:
                entry.rank, entry.host = int(r.group("rank")), r.group("node")
                entry.device, entry.pid = int(r.group("gpu")), int(r.group("pid"))
            ranks.append(f"rank {r.group('rank')} (GPU {r.group('gpu')}, node {r.group('node')})")
        elif p := _RAS_PROCESS_RE.match(line):
            entry.host = entry.host or p.group("node")
            entry.pid = entry.pid or int(p.group("pid"))
            ranks.append(f"process {p.group('pid')} on {p.group('node')}")
        elif entry.exception_type is None:
            entry.exception_type = line.strip()[:200]
            entry.message = f"{entry.message}: {line.strip()}"
        else:
            entry.message = f"{entry.message}, {line.strip()}"
    close()


# NCCL's RAS client in JSON (``ncclras -f json``, NCCL 2.28.7+; docs troubleshooting/ras "JSON
# Output"): a dump of each communicator's ranks and its missing ranks. ``init_state`` is 0
# (ncclSuccess) once a rank is initialized, 7 (ncclInProgress) while it still is, any other value
# an error; ``async_error`` what ncclGetAsyncError would return; a missing rank is ``unresponsive``
# (RAS could not reach it) or ``considered_dead`` (unreachable for 60 s: RAS_PEER_DEAD_TIMEOUT in
# src/ras/ras_internal.h). Its monitoring mode (``-m``, NCCL 2.29) prints one event a line,
# "[2025-12-19 13:07:07] PEER_DEAD: Process 1524345 on node 172.16.64.245 managing GPU 1", or as
# JSON objects ({"timestamp", "group", "event", "peer": {...}, "details"}) (src/ras/
# client_support.cc; the events' names and details in src/ras/peers.cc and rasnet.cc).
RAS_JSON_SIGNATURE = (
    r'"missing_ranks_count"\s*:|"event"\s*:\s*"PEER_[A-Z_]+"'
    r"|^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] PEER_(?:TIMEOUT_)?DEAD: "
)
_RAS_JSON_RE = re.compile(RAS_JSON_SIGNATURE, re.M)
_RAS_MONITOR_RE = re.compile(
    r"^\[(?P<time>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\] (?P<event>PEER_[A-Z_]+): ?(?P<rest>.*)$"
)  # (the rest taken whole and stripped after: a lazy group before \s*$ retried every space)
_RAS_PEER_RE = re.compile(
    r"Process (?P<pid>\d+) on node (?P<node>\S+) managing GPUs? (?P<gpus>[\d,]+)"
)
RAS_DEAD_EVENTS = frozenset({"PEER_DEAD", "PEER_TIMEOUT_DEAD"})
"""A peer RAS gave up on: an error."""
RAS_TROUBLE_EVENTS = frozenset(
    {
        "PEER_UNRESPONSIVE",
        "PEER_SEND_STUCK",
        "PEER_INIT_TIMEOUT",
        "PEER_DISCONNECTED",
        "PEER_KEEPALIVE_TIMEOUT",
    }
)
"""A peer RAS could not reach for a while and still tries: a warning (PEER_NEW, PEER_CONNECTING
and PEER_RETRY are the network's own comings and goings; PEER_KEEPALIVE_TIMEOUT ends one
connection after its keep-alive time-out, rasnet.cc, and RAS falls back to another)."""
RAS_RECOVERED_EVENT = "PEER_RECOVERED"
"""A peer that answers again after delays (rasnet.cc rasConnResume, "peer responding again"):
the warnings of that peer before it are over."""


class _RasTroubles:
    """The RAS events of one stream, a peer's warnings taken back when it recovers."""

    def __init__(self, report: LogReport) -> None:
        self.report = report
        self.open: dict[str, list[LogEvent]] = {}  # a peer's warnings not yet recovered from

    def add(self, name: str, peer_key: str, event: LogEvent | None) -> None:
        if name == RAS_RECOVERED_EVENT:
            if gone := {id(e) for e in self.open.pop(peer_key, [])}:
                self.report.events = [e for e in self.report.events if id(e) not in gone]
            return
        if event is None:
            return
        self.report.events.append(event)
        if name in RAS_TROUBLE_EVENTS:
            self.open.setdefault(peer_key, []).append(event)


RAS_INIT_STATES = frozenset({0, 7})
"""``init_state`` values that are no error: ncclSuccess, ncclInProgress."""


def _ras_event(
    event: str, where: str, line: int, peer: dict[str, object], details: str
) -> LogEvent | None:
    """One RAS monitoring event as a ``nccl_ras`` event (None for the network's comings and
    goings)."""
    if event in RAS_DEAD_EVENTS:
        section = "errors"
    elif event in RAS_TROUBLE_EVENTS:
        section = "warnings"
    else:
        return None
    pid, host, devices = peer.get("pid"), peer.get("host"), peer.get("devices")
    who = f"process {pid} on {host}" if pid is not None else str(peer.get("addr") or "a peer")
    gpus = f" (GPU {devices})" if devices not in (None, "") else ""
    return LogEvent(
        kind="nccl_ras",
        line=line,
        message=f"{where}{event}: {who}{gpus}{f', {details}' if details else ''}"[:400],
        code=event,
        library=f"NCCL RAS {section}",
        host=str(host) if host is not None else None,
        pid=pid if isinstance(pid, int) else None,
        device=int(devices) if isinstance(devices, str) and devices.isdigit() else None,
    )


def _ras_monitor_lines(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """The RAS client's monitoring mode in text: a ``nccl_ras`` event for each peer it gave up
    on (an error) or could not reach (a warning)."""
    troubles = _RasTroubles(report)
    for no, line, _ in lines:
        if "PEER_" not in line or not (m := _RAS_MONITOR_RE.match(line.strip())):
            continue
        rest = m.group("rest").rstrip()
        peer: dict[str, object] = {}
        if p := _RAS_PEER_RE.search(rest):
            peer = {"pid": int(p.group("pid")), "host": p.group("node"), "devices": p.group("gpus")}
            rest = rest[p.end() :].strip()
        elif rest and not rest[0].isspace() and " " in rest:
            peer, rest = {"addr": rest.split(" ", 1)[0]}, rest.split(" ", 1)[1]
        name = m.group("event")
        key = str(peer.get("addr") or (peer.get("host"), peer.get("pid")))
        troubles.add(name, key, _ras_event(name, f"[{m.group('time')}] ", no, peer, rest))


def _json_objects(text: str) -> list[tuple[int, object]]:
    """The JSON values written one after another in ``text`` (the monitoring mode's stream),
    each with its first line; empty when the text is not JSON throughout."""
    decoder, at = json.JSONDecoder(), 0
    line, counted = 1, 0
    values: list[tuple[int, object]] = []
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            return values
        try:
            value, end = decoder.raw_decode(text, at)
        except ValueError:
            return []
        line += text.count("\n", counted, at)  # counted once: the text's size, not per value
        counted = at
        values.append((line, value))
        at = end


@dataclass(frozen=True)
class _Text:
    """A text with where its lines end, to name the line of a place in it by bisection (a dump of
    thousands of ranks asks for thousands of places: counting from the start each time grew with
    the square of its size)."""

    text: str
    newlines: list[int]

    @classmethod
    def of(cls, text: str) -> _Text:
        return cls(text, [m.start() for m in re.finditer("\n", text)])

    def line_of(self, needle: str, start: int) -> tuple[int, int]:
        """The 1-based line of ``needle``'s first place at or after ``start`` (the start's line
        where it is not found), and where it was found."""
        at = self.text.find(needle, start)
        at = start if at < 0 else at
        return bisect.bisect_left(self.newlines, at) + 1, at


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _ras_rank(rank: dict[str, Any]) -> dict[str, Any]:
    """A RAS rank's place as LogEvent fields."""
    return {
        "rank": _int(rank.get("rank")),
        "host": _str(rank.get("host")),
        "device": _int(rank.get("cuda_dev")),
        "pid": _int(rank.get("pid")),
    }


def _ras_rank_troubles(who: str, status: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(section, code, what) for each thing wrong with a RAS rank's ``status``."""
    names = NCCL_RESULT_NAMES
    init, error = _int(status.get("init_state")), _int(status.get("async_error"))
    trouble: list[tuple[str, str, str]] = []
    if init == 7:
        trouble.append(("warnings", "INIT", f"{who} still initializing (ncclInProgress)"))
    elif init is not None and init not in RAS_INIT_STATES:
        trouble.append(("errors", "INIT", f"{who} initialization failed: {names.get(init, init)}"))
    if error is not None and error not in (0, 7):
        trouble.append(
            (
                "errors",
                "ASYNC_ERROR",
                f"{who} holds an asynchronous error: {names.get(error, error)}",
            )
        )
    if status.get("abort_flag") is True:
        trouble.append(("errors", "ABORT", f"{who} aborted its communicator"))
    return trouble


def _ras_communicator(text: _Text, comm: dict[str, Any], at: int, report: LogReport) -> int:
    """One communicator of a RAS dump: its ranks' troubles, counts apart and missing ranks as
    ``nccl_ras`` events; returns where in ``text`` it ends (its lines found in order)."""
    name = f"communicator {comm.get('hash', '?')} (size {comm.get('size', '?')})"
    no, at = text.line_of(f'"{comm.get("hash")}"', at)
    counts: dict[str, set[int]] = {}
    for rank in (r for r in comm.get("ranks") or [] if isinstance(r, dict)):
        where = _ras_rank(rank)
        no, at = text.line_of(f'"pid": {rank.get("pid")}', at)
        who = (
            f"rank {where['rank']} (GPU {where['device']}, node {where['host']},"
            f" pid {where['pid']})"
        )
        for section, code, what in _ras_rank_troubles(who, json_object(rank.get("status"))):
            report.events.append(
                LogEvent(
                    kind="nccl_ras",
                    line=no,
                    message=f"{name} {code}: {what}"[:400],
                    code=code,
                    library=f"NCCL RAS {section}",
                    **where,
                )
            )
        for op, count in json_object(rank.get("collective_counts")).items():
            if (n := _int(count)) is not None:
                counts.setdefault(str(op), set()).add(n)
    if apart := sorted(op for op, seen in counts.items() if len(seen) > 1):
        report.events.append(
            LogEvent(
                kind="nccl_ras",
                line=no,
                code="MISMATCH",
                library="NCCL RAS warnings",
                message=f"{name} MISMATCH: ranks have launched different numbers of"
                f" {', '.join(apart)}",
            )
        )
    for rank in (r for r in comm.get("missing_ranks") or [] if isinstance(r, dict)):
        status = json_object(rank.get("status"))
        no, at = text.line_of(f'"pid": {rank.get("pid")}', at)
        dead = status.get("considered_dead") is True
        unresponsive = status.get("unresponsive") is True
        # NCCL's RAS (src/ras/client_support.cc): a missing rank whose process RAS reached but
        # that did not report the communicator (already destroyed or aborted there) makes the
        # communicator MISMATCH, a warning; one it did not reach makes it INCOMPLETE, an error
        code = "DEAD" if dead else "INCOMPLETE" if unresponsive else "MISMATCH"
        why = (
            "considered dead"
            if dead
            else "unresponsive"
            if unresponsive
            else "its process answered but did not report this communicator: it may have"
            " destroyed or aborted it already"
        )
        cuda, nvml = rank.get("cuda_dev"), rank.get("nvml_dev")
        # (NCCL prints the NVML index beside the CUDA one where the two differ: rasGpuToString)
        gpu = f"{cuda}" + (f" (NVML {nvml})" if nvml is not None and nvml != cuda else "")
        report.events.append(
            LogEvent(
                kind="nccl_ras",
                line=no,
                message=(
                    f"{name} {code}: rank {rank.get('rank')} missing"
                    f" ({why}): GPU {gpu} managed by process"
                    f" {rank.get('pid')} on node {rank.get('host')}"
                )[:400],
                code=code,
                library=f"NCCL RAS {'warnings' if code == 'MISMATCH' else 'errors'}",
                **_ras_rank(rank),
            )
        )
    return at


def _nccl_ras_json(text: str, report: LogReport) -> bool:
    """The RAS client's JSON: its communicators' missing ranks and ranks whose initialization
    failed, that hold an asynchronous error or were aborted (errors), ranks still initializing,
    collective counts apart and the client's own time-outs (warnings); its monitoring mode's
    events. Every event a ``nccl_ras``, its section in ``library`` as the text report's. True
    where the text is JSON throughout (a healthy job's dump is evidence too)."""
    values = _json_objects(text)
    if not values:
        return False
    index = _Text.of(text)
    troubles = _RasTroubles(report)
    for first, value in values:
        if not isinstance(value, dict):
            continue
        if isinstance(value.get("event"), str):
            peer = json_object(value.get("peer"))
            devices = peer.get("cuda_devs")
            listed = ",".join(str(d) for d in devices) if isinstance(devices, list) else None
            stamp = f"[{value['timestamp']}] " if isinstance(value.get("timestamp"), str) else ""
            event = _ras_event(
                value["event"],
                stamp,
                first,
                {**peer, "devices": listed},
                str(value.get("details") or ""),
            )
            key = str(peer.get("addr") or (peer.get("host"), peer.get("pid")))
            troubles.add(value["event"], key, event)
            continue
        comms = value.get("communicators")
        if not isinstance(comms, list):
            continue
        at = 0
        for comm in (c for c in comms if isinstance(c, dict)):
            at = _ras_communicator(index, comm, at, report)
        timeouts = _int(json_object(value.get("ras")).get("timeouts_count"))
        if timeouts:
            no, _ = index.line_of('"timeouts_count"', 0)
            report.events.append(
                LogEvent(
                    kind="nccl_ras",
                    line=no,
                    code="TIMEOUT",
                    library="NCCL RAS warnings",
                    message=f"the job: TIMEOUT: {timeouts} communication time-out(s) while"
                    " gathering communicator data",
                )
            )
    return True


# An MoE dispatch/combine operator's tiling check on its HCCL window (CANN's MoeDistributeDispatch
# and MoeDistributeCombine tiling, CheckWinSize): "HCCL_BUFFSIZE is too SMALL, maxBs = 512, ...,
# NEEDED_HCCL_BUFFSIZE(...) = 609MB, HCCL_BUFFSIZE=200MB." (HCCL_BUFFSIZE_EP for the expert-parallel
# window), or "HCCL_BUFFSIZE is too SMALL, should larger than 600MB": the operator needs a larger
# communication buffer than HCCL_BUFFSIZE (in MB) gives it, and fails before it runs.
# The TP window's check says "TP HCCL_BUFFSIZE is too SMALL, ... = NMB, TP HCCL_BUFFSIZE=MMB" (its
# NEEDED figure already rounded up: actualSize / MB_SIZE + 1); the notify-dispatch operators say
# "HCCL_BUFFSIZE is too SMALL, should larger than NMB" (actualSize / MB_SIZE, rounded down: N + 1
# is enough) or, in one version, the bytes with no unit (CANN ops-transformer tiling sources).
_BUFFSIZE_SMALL_RE = re.compile(
    r"\b(?P<tp>TP )?(?P<var>HCCL_BUFFSIZE(?:_\w+)?) is too SMALL\b"
    r"(?:.*?= (?P<need>\d+) ?MB, (?:TP )?HCCL_BUFFSIZE= ?(?P<have>\d+) ?MB"
    r"|, should larger than (?P<need2>\d+)(?P<unit> ?MB)?)?"
)
BUFFSIZE_SIGNATURE = (
    r"\b(?:E[A-Z0-9]\d{4}\b|\[ERROR\]|\bERROR\b|TraceBack|RuntimeError).{0,200}?"
    r"\bHCCL_BUFFSIZE(?:_\w+)? is too SMALL\b"
    r"|\bHCCL_BUFFSIZE(?:_\w+)? is too SMALL\b.*\[(?:FUNC|FILE):"
)
"""The window check as a log writes it: behind an error code, an ERROR level, a traceback or a
RuntimeError, or with CANN's [FUNC:...][FILE:...] tail; a document that quotes the phrase is no
failure (load's signature and the reading both ask for it)."""
_BUFFSIZE_FRAME_RE = re.compile(BUFFSIZE_SIGNATURE)
_MIB = 1024 * 1024
_MOE_OPERATOR_RE = re.compile(r"\b(?:operator |aclnn)(?P<op>Moe\w+?)(?:_\d+)?\b")


def _framed_buffsize(lines: list[tuple[int, str, int | None]], at: int) -> bool:
    """Whether the window check on ``lines[at]`` is a log's error: framed on its own line, or the
    line follows CANN's "TraceBack" or an error code within the three lines above (an error
    message's body on lines of its own)."""
    if _BUFFSIZE_FRAME_RE.search(lines[at][1]):
        return True
    return any(
        "TraceBack" in t or _ERROR_CODE_HEAD_RE.search(t) for _, t, _ in lines[max(0, at - 3) : at]
    )


_ERROR_CODE_HEAD_RE = re.compile(r"\bE[A-Z0-9]\d{4}\b|\[ERROR\]")


def _hccl_buffsize_small(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``hccl_buffsize_small`` per figure pair an operator's window check printed: the MB it
    needs (``numel``) and HCCL_BUFFSIZE's (``timeout_ms`` stays None; ``exception_type`` says both)."""
    seen: dict[tuple[str | None, str | None], LogEvent] = {}
    operator: str | None = None
    for at, (no, line, tagged) in enumerate(lines):
        if "Moe" in line and (o := _MOE_OPERATOR_RE.search(line)):
            operator = operator or o.group("op")
        if "is too SMALL" not in line or not (m := _BUFFSIZE_SMALL_RE.search(line)):
            continue
        if not _framed_buffsize(lines, at):
            continue
        need, have = m.group("need"), m.group("have")
        if (larger := m.group("need2")) is not None:
            # "should larger than N": N MB rounded down (N + 1 is enough), or N bytes
            need = str(int(larger) + 1 if m.group("unit") else -(-int(larger) // _MIB))
        if (need, have) in seen:
            continue
        var = f"TP {m.group('var')}" if m.group("tp") else m.group("var")
        what = (
            f"{var} is too small for an MoE operator's communication window"
            + (f": it needs {need} MB" if need else "")
            + (f", {'TP ' if m.group('tp') else ''}HCCL_BUFFSIZE gives {have} MB" if have else "")
        )
        seen[(need, have)] = LogEvent(
            kind="hccl_buffsize_small",
            line=no,
            message=line.strip()[:400],
            rank=tagged,
            op=operator,
            numel=int(need) if need else None,
            library="HCCL",
            exception_type=what,
        )
        report.events.append(seen[(need, have)])


# torch_npu's names for the device faults its task queue stops on (torch_npu/csrc/core/npu/
# NPUQueue.cpp deviceErrorMap, NPUException.cpp's handlers, ProcessGroupHCCL.cpp get_device_error):
# the runtime error is "<NAME>, <details>" and the log says "<NAME> happened" or "throw <NAME>".
# Each stands for an ACL runtime code (CANN rt_error_codes.h; aclError reference for 507057).
NPU_DEVICE_FAULTS = {
    "UCE ERROR": (
        "507053",
        "an uncorrectable error in the device's memory (ACL_ERROR_RT_DEVICE_MEM_ERROR)",
    ),
    "HBM MULTI BIT ECC ERROR": ("507054", "a multi-bit ECC error in the device's HBM"),
    "SUSPECT MEM ERROR": ("507055", "a suspected error in the device's memory"),
    "HCCS LINK ERROR": ("507056", "a failed HCCS link between NPUs (ACL_ERROR_RT_LINK_ERROR)"),
    "UB LINK ERROR": ("507056", "a failed UB link between NPUs (ACL_ERROR_RT_LINK_ERROR)"),
    "HCCL OP RETRY FAILED": ("507904", "HCCL retried a collective after a link fault and failed"),
    "SUSPECT REMOTE ERROR": (
        "507057",
        "the peer device's memory may have failed, or this device read out of bounds: read the "
        "peer processes' errors first",
    ),
}
_FAULT_NAMES = "(?:" + "|".join(re.escape(k) for k in NPU_DEVICE_FAULTS) + ")"
NPU_DEVICE_FAULT_SIGNATURE = (
    rf"\b{_FAULT_NAMES} happened\b"
    rf"|\bthrow (?:{_FAULT_NAMES}|ECC ERROR)\b"
    rf"|(?:\b(?:RuntimeError|runtime_error|NPU function error):\s*|\bget ){_FAULT_NAMES}(?![\w\"'\]])"
    rf"|^[ \t]*{_FAULT_NAMES}[,.]"
    rf"|\bWorker_\w+\)?\s+{_FAULT_NAMES}\s+50\d{{4}}\b"
)
"""A fault name where torch_npu writes it: its task queue's "<NAME> happened, set task queue
status to ..." and "getRepoStopFlag in Run, throw <NAME>." (NPUQueue.cpp, NPUException.cpp;
the multi-bit ECC handler says "throw ECC ERROR."), the runtime error "<NAME>, <details>" it
raises (as RuntimeError, behind its "runtime_error: " log or "NPU function error: "), and
"AclrtGetMemUceInfo get UCE ERROR", or the name with its ACL code after it (a summary's
"Worker_TP6 SUSPECT REMOTE ERROR 507057"); the bare name quoted in a document or a list is none."""
_NPU_DEVICE_FAULT_RE = re.compile(NPU_DEVICE_FAULT_SIGNATURE)
_NPU_FAULT_NAME_RE = re.compile(rf"\b(?P<name>{_FAULT_NAMES}|ECC ERROR)\b(?P<rest>.*)$")
# training that went on after the fault: Megatron's (MindSpeed's) " iteration   120/ 1000 |" and
# MindSpore's "epoch: 1 step: 20, loss is": MindIO's UCE repair resumes at the next step (the
# MindSpore "UCE fault recover" guide), so the UCE was repaired online
_PROCESS_ENDED_RE = re.compile(
    r"RuntimeError: \w|Traceback \(most recent call last\)|\bexitcode\b|exit code|Resuming from"
    r"|[Ll]oading checkpoint"
)
_TRAINING_STEP_RE = re.compile(
    r"\biteration\s+\d+\s*/\s*\d+\s*\||\bepoch:\s*\d+,? step:\s*\d+,? loss is\b"
)
_ACL_CODE_RE = re.compile(r"\b(50[0-9]{4})\b")
_WORKER_RE = re.compile(r"\b(?P<worker>Worker_(?:TP|DP|PP|EP)?\d+)\b")


def _npu_device_faults(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``npu_device_fault`` per fault name and rank (or worker) torch_npu stopped on."""
    seen: set[tuple[str, object]] = set()
    last_step: int | None = None  # the last training step's line, found at the first fault
    for no, line, tagged in lines:
        if "ERROR" not in line and "FAILED" not in line:
            continue
        if not (f := _NPU_DEVICE_FAULT_RE.search(line)):
            continue
        if (m := _NPU_FAULT_NAME_RE.search(line, f.start())) is None:
            continue
        name = "HBM MULTI BIT ECC ERROR" if m.group("name") == "ECC ERROR" else m.group("name")
        worker = _WORKER_RE.search(line)
        who: object = tagged if tagged is not None else (worker.group("worker") if worker else None)
        if (name, who) in seen:
            continue
        seen.add((name, who))
        code, meaning = NPU_DEVICE_FAULTS[name]
        said = _ACL_CODE_RE.search(m.group("rest"))
        if last_step is None:
            last_step = max(
                (
                    n
                    for n, t, _ in lines
                    if ("iteration" in t or "step" in t) and _TRAINING_STEP_RE.search(t)
                ),
                default=0,
            )
        # (a step after the fault is the same process going on only where nothing between says
        # it died: torch_npu's RuntimeError, a traceback, a launcher's exit, then a restart)
        repaired = (
            name == "UCE ERROR"
            and last_step > no
            and not any(no < n < last_step and _PROCESS_ENDED_RE.search(t) for n, t, _ in lines)
        )
        if repaired:
            meaning += "; training went on after it (repaired online, MindIO UCE)"
        report.events.append(
            LogEvent(
                kind="npu_device_fault_repaired" if repaired else "npu_device_fault",
                line=no,
                message=line.strip()[:400],
                rank=tagged,
                code=said.group(1) if said else code,
                code_name=name,
                library="torch_npu",
                exception_type=f"{name}{f' ({worker.group(1)})' if worker else ''}: {meaning}",
            )
        )


# kubelet's device manager (kubernetes pkg/kubelet/cm/devicemanager/plugin/v1beta1/client.go,
# Run): '"ListAndWatch ended unexpectedly for device plugin" err="EOF"
# resource="huawei.com/Ascend910B4-1"' — the plugin's stream ended (it crashed or restarted): the
# node offers none of that resource until the plugin registers again. Its pod worker's
# '"Error syncing pod, skipping" err="failed to \"StartContainer\" for \"vllm\" with
# RunContainerError: ..."': the container could not start (the runtime's own words end it).
# (kubelet before structured logging, endpoint.go: "listAndWatch ended unexpectedly for device
# plugin nvidia.com/gpu with error rpc error: ...", with a capital L in some versions)
_LIST_AND_WATCH_RE = re.compile(
    r'"?[Ll]istAndWatch ended unexpectedly for device plugin"?'
    r"(?: (?P<res_old>[\w./-]+) with error (?P<err_old>.*)$"
    r'|(?: err="(?P<err>[^"]*)")?(?: resource="(?P<res>[^"]+)")?)'
)
# A scheduler that finds no devices of a kind on a node: HAMi's (pkg/device, device_info.go) "Failed
# to get node devices. nodeName n1, deviceType Ascend310P, error annos not found hami.io/
# node-register-Ascend310P" (the node's device plugin never wrote its register annotation), and
# Volcano's "Node k8s-worker3 does not have allocatable huawei.com/Ascend310P resource or value
# is 0" (the node's allocatable resources hold none)
_HAMI_NO_REGISTER_RE = re.compile(
    r"Failed to get node devices\. nodeName (?P<node>[\w.-]+), deviceType (?P<type>[\w.-]+), "
    r"error annos not found (?P<anno>\S+)"
)
# HAMi's device plugin when a vendor's devices are unhealthy (device.go: "device Ascend310P is
# unhealthy on this node")
_UNHEALTHY_ON_NODE_RE = re.compile(r"\bdevice (?P<type>[\w.-]+) is unhealthy on this node")
_NO_ALLOCATABLE_RE = re.compile(
    r"\bNode (?P<node>[\w.-]+) does not have allocatable (?P<res>[\w./-]+) resource or value is 0"
)


def _devices_not_offered(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """A ``device_not_offered`` per node and device kind a scheduler found none of."""
    seen: set[tuple[str, str]] = set()
    for no, line, tagged in lines:
        if m := _HAMI_NO_REGISTER_RE.search(line):
            key = (m.group("node"), m.group("type"))
            said = (
                f"the scheduler found no registered {m.group('type')} on node {m.group('node')} "
                f"(no {m.group('anno')} annotation: the node's device plugin has not registered "
                "its devices)"
            )
        elif m := _UNHEALTHY_ON_NODE_RE.search(line):
            key = ("this node", m.group("type"))
            said = (
                f"the device plugin reports {m.group('type')} unhealthy on this node: it offers "
                "none of them to pods"
            )
        elif m := _NO_ALLOCATABLE_RE.search(line):
            key = (m.group("node"), m.group("res"))
            said = (
                f"node {m.group('node')} offers no {m.group('res')} (its allocatable resource is "
                "absent or 0): the scheduler cannot place the devices there"
            )
        else:
            continue
        if key in seen:
            continue
        seen.add(key)
        report.events.append(
            LogEvent(
                kind="device_not_offered",
                line=no,
                message=line.strip()[:300],
                rank=tagged,
                host=key[0] if key[0] != "this node" else None,
                library="scheduler",
                exception_type=said,
            )
        )


# kubelet's device manager refusing a pod at admission (pkg/kubelet/cm/devicemanager:
# "no healthy devices present; cannot allocate unhealthy devices %s", "previously allocated devices
# are no longer healthy; cannot allocate unhealthy devices %s", "cannot allocate unregistered device
# %s"), in the pod's UnexpectedAdmissionError event "Allocate failed due to ..."
_ADMISSION_RE = re.compile(
    r"(?P<why>no healthy devices present|previously allocated devices are no longer healthy); "
    r"cannot allocate unhealthy devices (?P<res>[\w./-]+?)(?:,|\s|$)"
    r"|cannot allocate unregistered device (?P<res2>[\w./-]+?)(?:,|\s|$)"
)
# kubelet's device manager starting a container whose resource's plugin is gone
# (pkg/kubelet/cm/devicemanager callPreStartContainerIfNeeded: "endpoint not found in cache for
# a registered resource: %s": the resource was registered, its plugin's endpoint is no longer
# there), and a plugin's own Allocate failing at admission ("Pod Allocate failed due to ...",
# the pod's reason UnexpectedAdmissionError)
_NO_ENDPOINT_RE = re.compile(
    r"endpoint not found in cache for a regist\w*(?: resource:? ?(?P<res>[\w./-]+))?"
)
_ALLOCATE_FAILED_RE = re.compile(r"\bAllocate failed due to (?P<why>.+?)\"?\s*$")
# kubelet's devicemanager's own count before any call to the plugin (devicesToAllocate: its
# healthy devices less those in use are fewer than the pod asks): "requested number of devices
# unavailable for nvidia.com/gpu. Requested: 8, Available: 7, which is unexpected"
_DEVICES_UNAVAILABLE_RE = re.compile(
    r"requested number of devices unavailable for (?P<res>[\w./-]+)\. Requested: (?P<asked>\d+), "
    r"Available: (?P<free>\d+)"
)
_RUN_CONTAINER_RE = re.compile(
    r'"Error syncing pod, skipping" err="failed to \\"StartContainer\\" for \\"(?P<container>[^\\"]+)\\"'
    r' with (?P<kind>\w+): (?P<why>(?:\\"|[^"])*)"(?: pod="(?P<pod>[^"]+)")?'
)


# runc (libcontainer) when an OCI hook fails: "error running prestart hook #0: exit status 255,
# stdout: , stderr: <the hook's own output>", under docker's "OCI runtime create failed: runc
# create failed: unable to start container process: error during container init: ..."; the
# hook's output goes on over the next lines, up to the daemon's ": unknown".
_OCI_HOOK_RE = re.compile(
    r"error running (?P<which>\w+) hook #(?P<n>\d+): exit status (?P<status>\d+), stdout: "
    r"(?P<out>.*?), stderr: (?P<err>.*)$"
)
OCI_HOOK_LINES = 4
"""How many lines below runc's hook error the hook's own output may run on."""
# The Ascend Docker Runtime's hook (ascend-docker-runtime cli/src: main.c "prepare necessary
# config", "failed to setup container."; u_mount.c "failed to mount src: %s." when the file to
# mount fails its checks; utils.c refuses a path that is writable by others or the group ("Please
# check the write permission!"), not owned by root or the user ("Please check the folder
# owner!"), or a symbolic link ("resolvedPath is symbolic link!"))
_ASCEND_HOOK_WORDS = (
    "prepare necessary config",
    "failed to mount src",
    "failed to setup container",
)
_ASCEND_HOOK_WHY_RE = re.compile(
    r"Please check the write permission!|Please check the folder owner!"
    r"|resolvedPath is symbolic link!|failed to mount src: (?P<src>[^\s]+?)\.(?=f|\s|$)"
)


# NVIDIA's pyxis (Slurm's SPANK plugin that runs a task in an enroot container) when the image
# could not be imported: "slurmstepd: error: pyxis: failed to import docker image", then
# "pyxis: printing contents of log file ..." and enroot's own lines behind "pyxis:     "
_PYXIS_SETUP_FAILED_RE = re.compile(
    r"pyxis: (?P<what>failed to import docker image|failed to create container filesystem"
    r"|failed to start container)"
)  # (its "container start failed with error code: N" is a launcher's failure, read above)
_PYXIS_LOG_LINE_RE = re.compile(r"pyxis: {3,}(?P<said>\S.*?)\s*$")
PYXIS_LOG_LINES = 12
"""How far below pyxis's failure its printed log file's lines may run."""


def _pyxis_failures(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``container_start_failure`` for pyxis's failed container set-up, with enroot's own
    first words of why (its log file, as pyxis printed it)."""
    for index, (no, line, tagged) in enumerate(lines):
        if (m := _PYXIS_SETUP_FAILED_RE.search(line)) is None:
            continue
        said = [
            lm.group("said")
            for _, t, _ in lines[index + 1 : index + 1 + PYXIS_LOG_LINES]
            if (lm := _PYXIS_LOG_LINE_RE.search(t))
        ]
        # (enroot's own level marks its reason: "[ERROR] URL ... returned error code: 401")
        why = next(
            (
                w
                for w in said
                if w.startswith("[ERROR]") or _ERROR_WORDS_RE.search(w) or "denied" in w
            ),
            None,
        )
        report.events.append(
            LogEvent(
                kind="container_start_failure",
                line=no,
                message=line.strip()[:300],
                rank=tagged,
                library="pyxis",
                exception_type=f"pyxis (Slurm's container plugin): {m.group('what')}"
                + (f": {why[:200]}" if why else "")
                + "; the task's program never ran",
            )
        )
        return


def _oci_hook_failures(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """A ``container_start_failure`` per container whose runtime hook (the Ascend Docker
    Runtime's, nvidia-container-runtime's) refused to start it, with the hook's own reason."""
    seen: set[str] = set()
    for index, (no, line, tagged) in enumerate(lines):
        if " hook #" not in line or not (m := _OCI_HOOK_RE.search(line)):
            continue
        said = [m.group("err")]
        for _, more, _ in lines[index + 1 : index + 1 + OCI_HOOK_LINES]:
            said.append(more.strip())
            if more.rstrip().endswith(": unknown"):
                break
        err = " ".join(said)
        key = f"{m.group('which')}{m.group('n')}{err[:120]}"
        if key in seen:
            continue
        seen.add(key)
        hook = f"runc's {m.group('which')} hook #{m.group('n')} exited with {m.group('status')}"
        if any(w in err for w in _ASCEND_HOOK_WORDS):
            why = [w.group(0).rstrip(".") for w in _ASCEND_HOOK_WHY_RE.finditer(err)]
            src = next(
                (w.group("src") for w in _ASCEND_HOOK_WHY_RE.finditer(err) if w.group("src")), None
            )
            what = (
                f"{hook}: the Ascend Docker Runtime's hook refused to set the container up"
                + (f" ({'; '.join(dict.fromkeys(why))})" if why else "")
                + (
                    f": it mounts {src} into the container only when that file and every "
                    "directory above it are owned by root and not writable by the group or others"
                    if src and any("write permission" in w or "owner" in w for w in why)
                    else ""
                )
            )
        elif "nvidia-container-cli" in err:
            cli = err[err.index("nvidia-container-cli") :]
            what = f"{hook}: {cli[:200]}"
        else:
            what = f"{hook}: {err.strip()[:200] or 'its output is not in the copy'}"
        report.events.append(
            LogEvent(
                kind="container_start_failure",
                line=no,
                message=line.strip()[:400],
                rank=tagged,
                exception_type=what[:400],
                library="Ascend Docker Runtime"
                if any(w in err for w in _ASCEND_HOOK_WORDS)
                else None,
            )
        )


def _kubelet_failures(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """A ``device_plugin_lost`` per resource whose plugin stream ended; a
    ``container_start_failure`` per container the kubelet could not start."""
    plugins: set[str] = set()
    containers: set[str] = set()
    for index, (no, line, tagged) in enumerate(lines):
        joined = line
        if (
            "Allocate failed due to" in line
            and "cannot allocate" not in line
            and index + 1 < len(lines)
        ):
            joined = f"{line} {lines[index + 1][1]}"  # (kubectl describe wraps the message)
        if "endpoint not found in cache" in line and (ne := _NO_ENDPOINT_RE.search(line)):
            resource = ne.group("res") or "a device resource (its name cut from the copy)"
            if f"endpoint {resource}" not in containers:
                containers.add(f"endpoint {resource}")
                report.events.append(
                    LogEvent(
                        kind="container_start_failure",
                        line=no,
                        message=line.strip()[:400],
                        rank=tagged,
                        host=_kubelet_host(line),
                        library="kubelet",
                        exception_type=f"kubelet could not start the container: the device "
                        f"plugin serving {resource} is gone (kubelet has the resource registered "
                        "but no plugin endpoint for it: the plugin's pod stopped or restarted)",
                    )
                )
            continue
        if (
            "Allocate failed due to" in joined
            and "cannot allocate" not in joined
            and (af := _ALLOCATE_FAILED_RE.search(" ".join(joined.split())))
        ):
            if "allocate" not in containers:
                containers.add("allocate")
                report.events.append(
                    LogEvent(
                        kind="container_start_failure",
                        line=no,
                        message=" ".join(joined.split())[:400],
                        rank=tagged,
                        host=_kubelet_host(line),
                        library="kubelet",
                        exception_type="kubelet would not admit the pod (UnexpectedAdmissionError):"
                        + (
                            f" it found {du.group('free')} healthy, free {du.group('res')} of the "
                            f"{du.group('asked')} the pod asks (a device went unhealthy or is still "
                            "held: a device plugin's restart, a stale checkpoint)"
                            if (du := _DEVICES_UNAVAILABLE_RE.search(af.group("why")))
                            else f" the device plugin's Allocate failed ({af.group('why')[:200]})"
                        ),
                    )
                )
            continue
        if "cannot allocate" in joined and (ad := _ADMISSION_RE.search(" ".join(joined.split()))):
            resource = ad.group("res") or ad.group("res2")
            if f"admission {resource}" not in containers:
                containers.add(f"admission {resource}")
                said = (
                    f"kubelet would not admit the pod: no {resource} to give it "
                    f"({ad.group('why')}); the device plugin reports the devices unhealthy, or "
                    "reported them before they were ready"
                    if ad.group("why")
                    else f"kubelet would not admit the pod: {resource} is not registered (its "
                    "device plugin never registered it with kubelet)"
                )
                report.events.append(
                    LogEvent(
                        kind="container_start_failure",
                        line=no,
                        message=line.strip()[:400],
                        rank=tagged,
                        host=_kubelet_host(line),
                        library="kubelet",
                        exception_type=said,
                    )
                )
            continue
        if "istAndWatch" in line and (m := _LIST_AND_WATCH_RE.search(line)):
            resource = m.group("res") or m.group("res_old") or "a resource"
            err = m.group("err") or " ".join((m.group("err_old") or "").split())[:200]
            if resource in plugins:
                continue
            plugins.add(resource)
            report.events.append(
                LogEvent(
                    kind="device_plugin_lost",
                    line=no,
                    message=line.strip()[:400],
                    rank=tagged,
                    host=_kubelet_host(line),
                    library="kubelet",
                    exception_type=f"the device plugin of {resource} stopped serving kubelet"
                    + (f" ({err})" if err else ""),
                )
            )
        elif "StartContainer" in line and (c := _RUN_CONTAINER_RE.search(line)):
            key = f"{c.group('pod')}/{c.group('container')}"
            if key in containers:
                continue
            containers.add(key)
            why = _go_unquote(_go_unquote(f'"{c.group("why")}"'))
            tail = why.rsplit(": ", 2)[-2:] if why.count(": ") >= 2 else [why]
            reason = c.group("kind")
            # the pod worker's reasons (kubelet's images and kuberuntime packages): a container
            # that started and keeps exiting, an image never pulled, a container never created
            if reason == "CrashLoopBackOff":
                what = (
                    "was restarted and is backing off (CrashLoopBackOff: it exited, or never "
                    "started; its log or its last state says why)"
                )
            elif reason in ("ImagePullBackOff", "ErrImagePull", "ErrImageNeverPull"):
                what = f"could not start: its image was not pulled ({reason})"
            else:
                what = f"did not start ({reason})"
            report.events.append(
                LogEvent(
                    kind="container_start_failure",
                    line=no,
                    message=line.strip()[:400],
                    rank=tagged,
                    host=_kubelet_host(line),
                    library="kubelet",
                    exception_type=f"container {c.group('container')}"
                    + (f" of pod {c.group('pod')}" if c.group("pod") else "")
                    + f" {what}: {': '.join(tail)}"[:300],
                )
            )


# NVIDIA Fabric Manager (its user guide: the service that sets up NVSwitch systems; without it
# running, the GPUs of an NVSwitch system cannot use NVLink): its systemd unit's state and its
# journal. On a host with no NVSwitch it exits at start with "request to query NVSwitch device
# information from NVSwitch driver failed with error:WARNING Nothing to do
# [NV_WARN_NOTHING_TO_DO]": nothing to manage, the service not needed there (gpud treats it as
# healthy, leptonai/gpud pull 1206; NVIDIA/gpu-operator issue 610).
FABRIC_MANAGER_SIGNATURE = (
    r"\bnv-fabricmanager(?:-start\.sh)?\[\d+\]: |\bnvidia-fabricmanager\.service\b"
    r"|NVIDIA fabric manager service"
)
_FM_NOTHING_RE = re.compile(r"\[NV_WARN_NOTHING_TO_DO\]")
# its start script's own word: '"/usr/bin/nv-fabricmanager -c ..." failed! Exit code: 1'
_FM_FAILED_RE = re.compile(r'"\S*nv-fabricmanager\b[^"]*" failed! Exit code: (?P<code>\d+)')
_FM_ERROR_RE = re.compile(
    r"\bnv-fabricmanager(?:-start\.sh)?\[\d+\]: (?:\[[^\]]*\] )?\[ERROR\] (?:\[tid \d+\] )?(?P<what>\S.*)"
)
# Fabric Manager refusing its configuration ("fabric manager config file item:
# FABRIC_NODE_CONFIG_FILE has an invalid value"), its start script's check before an NVL5
# system's start ('Kernel module "ib_umad" has not been loaded, fabric manager cannot be
# started'), and the NVLink subnet manager it starts there failing to open the InfiniBand MAD
# interface ("nvlsm: ibwarn: [15] umad_init: can't read ABI version from ... is ib_umad module
# loaded?")
_FM_CONFIG_RE = re.compile(
    r"fabric manager config file item: (?P<item>\w+) has an invalid value"
    r'|Kernel module "(?P<module>\w+)" has not been loaded, fabric manager cannot be started'
    r"|\bnvlsm: ibwarn: \[\d+\] umad_init: (?P<umad>can't read ABI version[^\n]*?)\s*$"
    # gpud's fabric-manager component: "checked fabric state; fabric manager found but not active"
    r"|(?P<inactive>fabric manager found but not active)"
)
_FM_UNIT_FAILED_RE = re.compile(
    r"nvidia-fabricmanager\.service(?:: (?:Control process exited, code=\w+, status=(?P<status>\S+)"
    r"|Failed with result '(?P<result>[^']+)')| failed because)"
)
# its refusal to run beside a driver of another version (NVIDIA's Fabric Manager guide: the
# package must match the driver's version exactly): "fabric manager NVIDIA GPU driver interface
# version 530.30.02 don't match with driver version 530.41.03. Please update with matching NVIDIA
# driver package."
_FM_VERSION_RE = re.compile(
    r"driver interface version (?P<fm>[\w.-]+) don'?t match with driver version (?P<drv>\d[\w-]*(?:\.\d[\w-]*)*)"
)
_FM_ACTIVE_RE = re.compile(r"^\s*Active: (?P<state>\w+) \((?P<sub>[^)\n]*)\)")


def _fabric_manager(lines: list[tuple[int, str, int | None]], report: LogReport) -> bool:
    """A ``fabric_manager_failed`` where the service did not start or logged an error, a
    ``fabric_manager_unneeded`` where it found no NVSwitch to manage; True where systemctl said
    the service is running (a healthy unit)."""
    unit_seen = False
    running = False
    exit_code: int | None = None  # the start script's "failed! Exit code: N"
    nothing: LogEvent | None = None
    failed: LogEvent | None = None
    for no, line, tagged in lines:
        s = line.strip()
        if "fabricmanager" in s and s.startswith(("●", "×", "*", "○")):
            unit_seen = "nvidia-fabricmanager" in s
            continue
        if unit_seen and (a := _FM_ACTIVE_RE.match(line)):
            running = a.group("state") == "active" and a.group("sub") == "running"
            if running:
                report.unread.append(
                    ParseWarning(
                        line=no,
                        message="the Fabric Manager service is active (running)",
                        skipped=False,
                    )
                )
            if a.group("state") == "failed" and failed is None:
                failed = LogEvent(
                    kind="fabric_manager_failed",
                    line=no,
                    message=s[:300],
                    rank=tagged,
                    host=_journal_host(line),
                    library="Fabric Manager",
                    exception_type="the Fabric Manager service is failed (systemctl status)",
                )
            continue
        if nothing is None and _FM_NOTHING_RE.search(line):
            nothing = LogEvent(
                kind="fabric_manager_unneeded",
                line=no,
                message=s[:300],
                rank=tagged,
                host=_journal_host(line),
                library="Fabric Manager",
                exception_type="Fabric Manager found no NVSwitch to manage"
                " (NV_WARN_NOTHING_TO_DO) and exited: it is not needed on this host",
            )
            continue
        if (fc := _FM_FAILED_RE.search(line)) is not None:
            exit_code = int(fc.group("code"))
        if failed is None and (vm := _FM_VERSION_RE.search(line)):
            failed = LogEvent(
                kind="fabric_manager_failed",
                line=no,
                message=s[:300],
                rank=tagged,
                host=_journal_host(line),
                library="Fabric Manager",
                exception_type=f"Fabric Manager did not run: it is version {vm.group('fm')}, the "
                f"driver {vm.group('drv')}, and the two must be the same release",
            )
            continue
        if failed is None and (c := _FM_CONFIG_RE.search(line)):
            failed = LogEvent(
                kind="fabric_manager_failed",
                line=no,
                message=s[:300],
                rank=tagged,
                host=_journal_host(line) or _node_prefix(line),
                library="Fabric Manager",
                exception_type=(
                    f"Fabric Manager did not run: its configuration's {c.group('item')} has an "
                    "invalid value (fabricmanager.cfg)"
                    if c.group("item")
                    else f"Fabric Manager did not run: kernel module {c.group('module')} is not "
                    "loaded (its start script checks for it on NVL5 systems: modprobe it)"
                    if c.group("module")
                    else "Fabric Manager is installed but not running (gpud's fabric-manager "
                    "check): start it (systemctl start nvidia-fabricmanager)"
                    if c.group("inactive")
                    else "the NVLink subnet manager (nvlsm) could not open the InfiniBand MAD "
                    "interface: the ib_umad kernel module is not loaded (modprobe ib_umad), so "
                    "Fabric Manager cannot bring the NVLink fabric up"
                ),
            )
            continue
        if failed is None and (
            (e := _FM_ERROR_RE.search(line))
            or (e := _FM_FAILED_RE.search(line))
            or (e := _FM_UNIT_FAILED_RE.search(line))
        ):
            groups = e.groupdict()
            why = (
                groups["what"].strip()
                if "what" in groups
                else f"exit code {groups['code']}"
                if "code" in groups
                else groups["status"] or groups["result"] or "its start job failed"
            )
            failed = LogEvent(
                kind="fabric_manager_failed",
                line=no,
                message=s[:300],
                rank=tagged,
                host=_journal_host(line),
                library="Fabric Manager",
                exception_type=f"Fabric Manager did not run: {why}"[:300],
            )
    for ev in (nothing, failed):
        if ev is not None:
            ev.exit_code = exit_code
    if nothing is not None:
        # its exit at start is that same "nothing to do": the unit's failure says no more
        report.events.append(nothing)
    elif failed is not None:
        report.events.append(failed)
    return running and failed is None and nothing is None


_JOURNAL_HOST_RE = re.compile(r"^\S+\s+\d+\s+\d\d:\d\d:\d\d\s+(?P<host>[\w.-]+)\s+[\w.-]+\[\d+\]:")


_NODE_PREFIX_RE = re.compile(r"^(?P<host>(?:\d{1,3}\.){3}\d{1,3}): ")


def _node_prefix(line: str) -> str | None:
    """A node's address before a line, as talosctl or pdsh print it ("10.0.0.101: ...")."""
    m = _NODE_PREFIX_RE.match(line.strip())
    return m.group("host") if m else None


def _journal_host(line: str) -> str | None:
    """The host of a journal line ("May 16 15:10:22 host unit[pid]: ...", any date language)."""
    m = _JOURNAL_HOST_RE.match(line.strip())
    return m.group("host") if m else None


# A process that could not create a thread: C++'s std::thread / boost::thread throwing
# std::system_error with EAGAIN ("what(): thread: Resource temporarily unavailable [system:11]",
# "what():  Resource temporarily unavailable" after "terminate called after throwing an instance of
# 'std::system_error'"), glibc's "pthread_create failed: Resource temporarily unavailable",
# Python's "RuntimeError: can't start new thread": pthread_create's EAGAIN is the limit on
# threads (RLIMIT_NPROC, ulimit -u; a container's pids.max) or the system's, reached.
THREAD_LIMIT_SIGNATURE = (
    r"what\(\):\s+(?:thread: )?Resource temporarily unavailable"
    r"|pthread_create failed:? Resource temporarily unavailable|can't start new thread"
)
_THREAD_LIMIT_RE = re.compile(THREAD_LIMIT_SIGNATURE)


def _thread_limits(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``thread_limit`` per host (or launcher rank) whose process could not create a
    thread."""
    seen: set[tuple[str | None, int | None]] = set()
    for no, line, tagged in lines:
        if not (m := _THREAD_LIMIT_RE.search(line)):
            continue
        host = wp.group("node") if (wp := WORKER_PREFIX_RE.match(line)) else None
        if (host, tagged) in seen:
            continue
        seen.add((host, tagged))
        report.events.append(
            LogEvent(
                kind="thread_limit",
                line=no,
                message=line[m.start() :].strip()[:300],
                rank=tagged,
                host=host,
                exception_type="a process could not create a thread (EAGAIN): the limit on "
                "threads or processes (ulimit -u, a container's pids.max) was reached",
            )
        )


def _go_unquote(quoted: str) -> str:
    """A Go-quoted string's text (klog writes a structured value with strconv.Quote, and a
    reason's message inside it is quoted again); as written where it is not one."""
    if len(quoted) < 2 or quoted[0] != '"' or quoted[-1] != '"':
        return quoted
    try:
        text = json.loads(quoted)
    except ValueError:
        return quoted[1:-1].replace('\\"', '"')
    return text if isinstance(text, str) else quoted


# the journal's "<host> kubelet[pid]: " (OpenShift's kubenswrapper), whatever its date's language
_KUBELET_HOST_RE = re.compile(r"(?:^|\s)(?P<host>[\w.-]+) (?:kubelet|kubenswrapper)\[\d+\]: ")


def _kubelet_host(line: str) -> str | None:
    host_m = _KUBELET_HOST_RE.search(line)
    return host_m.group("host") if host_m else None


# The device driver's fault manager in the device's event log (hicann/driver src/sdk_driver/fms/
# smf/event/dms_event.c dms_record_fault_event_log, as asys collects it under dfx/log/device/
# .../event/): "event_id=0x80f78003; device_id=0; node_type=0x7b[HWTS/Stars-TS]; node_id=0;
# sub_node_id=0; event_type=0x3[internal config error]; severity=2[Alarm]; assertion=1[Event
# occur]; description=[HWTS/STARS 0x30a]; ..." — severity 0 OK, 1 Warning, 2 Alarm, 3 Critical;
# assertion 0 resume, 1 occur, 2 one-time event. An event that occurred and never resumed in the
# log is still standing when it was collected.
DMS_EVENT_SIGNATURE = r"\bevent_id=0x[0-9a-fA-F]+; device_id=\d+; node_type=0x[0-9a-fA-F]+\["
_DMS_EVENT_RE = re.compile(
    r"\bevent_id=(?P<id>0x[0-9a-fA-F]+); device_id=(?P<dev>\d+); node_type=0x[0-9a-fA-F]+"
    r"\[(?P<node>[^\]]*)\]; node_id=(?P<node_id>\d+); sub_node_id=\d+; event_type=0x[0-9a-fA-F]+"
    r"\[(?P<etype>[^\]]*)\]; severity=(?P<sev>\d)\[[^\]]*\]; assertion=(?P<as>\d)\[[^\]]*\]"
    r"(?:; description=\[(?P<desc>[^\]]*)\])?"
)
DMS_SEVERITIES = ("OK", "Warning", "Alarm", "Critical")


def _dms_fault_events(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``npu_fault_event`` per device event still standing at the log's end (occurred, never
    resumed) at Warning or above, and per one-time event at Alarm or above; the events that
    occurred and resumed are counted in a note."""
    standing: dict[tuple[str, str, str, str], tuple[int, re.Match[str], int | None]] = {}
    resumed: Counter[str] = Counter()
    once: list[tuple[int, re.Match[str], int | None]] = []
    for no, line, tagged in lines:
        if "event_id=" not in line or not (m := _DMS_EVENT_RE.search(line)):
            continue
        key = (m.group("dev"), m.group("id"), m.group("node"), m.group("node_id"))
        assertion = m.group("as")
        if assertion == "0":
            if standing.pop(key, None) is not None:
                resumed[f"{m.group('node')} {m.group('etype')}"] += 1
        elif assertion == "1":
            standing[key] = (no, m, tagged)
        elif int(m.group("sev")) >= 2:
            once.append((no, m, tagged))
    events = sorted([*standing.values(), *once], key=lambda t: t[0])
    for no, m, tagged in events:
        severity = int(m.group("sev"))
        if severity < 1:
            continue
        name = DMS_SEVERITIES[severity] if severity < len(DMS_SEVERITIES) else str(severity)
        still = "still standing" if m.group("as") == "1" else "a one-time event"
        report.events.append(
            LogEvent(
                kind="npu_fault_event",
                line=no,
                message=m.group(0)[:300],
                rank=tagged,
                device=int(m.group("dev")),
                code=m.group("id"),
                code_name=name,
                library="Ascend driver fault manager",
                exception_type=f"{name}: {m.group('node')} {m.group('node_id')}: {m.group('etype')}"
                + (f" ({m.group('desc')})" if m.group("desc") else "")
                + f", {still} at the log's end",
            )
        )
    if resumed:
        report.unread.append(
            ParseWarning(
                line=0,
                message="the device's fault manager logged events that occurred and resumed: "
                + ", ".join(f"{what} x{n}" for what, n in resumed.most_common(5))
                + (f" and {len(resumed) - 5} more kinds" if len(resumed) > 5 else ""),
                skipped=False,
            )
        )


# torch DistributedDataParallel's reducer (torch/csrc/distributed/c10d/reducer.cpp,
# ensure_prior_reduction_finished): "Expected to have finished reduction in the prior iteration
# before starting a new one. This error indicates that your module has parameters that were not
# used in producing loss. ..." then, with TORCH_DISTRIBUTED_DEBUG set, "Parameters which did not
# receive grad for rank N: a.weight" (the ranks' backward passes reduced different parameters)
_DDP_PRIOR_REDUCTION_RE = re.compile(
    r"(?:(?P<exc>[\w.]*Error): )?Expected to have finished reduction in the prior iteration"
)
_DDP_NO_GRAD_RE = re.compile(r"Parameters which did not receive grad for rank (\d+): (\S.*?)\s*$")


def _ddp_unused_parameters(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """DDP's reducer found the prior iteration's reduction unfinished: one event a rank
    (``ddp_unused_parameters``), with the parameters its "did not receive grad" line names."""
    seen: set[int | None] = set()  # one event a rank (its launcher tag)
    for index, (no, line, tagged) in enumerate(lines):
        if "prior iteration" not in line or not (m := _DDP_PRIOR_REDUCTION_RE.search(line)):
            continue
        if tagged in seen:
            continue
        seen.add(tagged)
        ev = LogEvent(
            kind="ddp_unused_parameters",
            line=no,
            message=line[m.start() :].strip()[:300],
            rank=tagged,
            exception_type=(m.group("exc") or "RuntimeError").rsplit(".", 1)[-1],
            library="torch.distributed",
            call="DistributedDataParallel reducer",
        )
        for _, after, after_tag in lines[index + 1 : index + 12]:
            if (g := _DDP_NO_GRAD_RE.search(after)) and after_tag == tagged:
                ev.rank = ev.rank if ev.rank is not None else int(g.group(1))
                ev.message = f"{ev.message} / no grad for rank {g.group(1)}: {g.group(2)}"[:400]
                break
        report.events.append(ev)


# ProcessGroupNCCL's desync report (TORCH_NCCL_DESYNC_DEBUG=1; torch's TraceUtils.h
# retrieveDesyncReport), printed under a watchdog time-out: "[0] Timeout at collective: ALLREDUCE,
# #3", then either "To our best knowledge, ranks [1, 2] are the lagging ranks that caused this
# timeout. They never joined any collectives" or "... the lagging/dead/mismatched ranks that
# caused the desync are:" over "[1] joined but didn't finish collective #3 (count from 1)" and
# "[1] finished collective #2, but didn't join collective #3 (count from 1)"
_DESYNC_TIMEOUT_RE = re.compile(
    r"\[(?P<rank>\d+)\] Timeout at collective: (?P<op>\w+), #(?P<seq>\d+)"
)
_DESYNC_NEVER_RE = re.compile(
    r"ranks \[(?P<ranks>[\d, ]+)\] are the lagging ranks that caused this timeout"
)
_DESYNC_LAG_RE = re.compile(
    r"\[(?P<ranks>[\d, ]+)\] (?:(?P<joined>joined but didn't finish) collective #(?P<seq>\d+)"
    r"|finished collective #(?P<done>\d+), but didn't join collective #(?P<next>\d+))"
)
DESYNC_REPORT_LINES = 8
"""How far below the time-out line its lagging ranks stand."""


def _desync_report(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """Each desync report: ``desync_report``, the ranks it names as lagging in
    ``missing_ranks``, the collective the reporting rank timed out in."""
    for index, (no, line, tagged) in enumerate(lines):
        if "Timeout at collective" not in line or not (m := _DESYNC_TIMEOUT_RE.search(line)):
            continue
        seq = int(m.group("seq"))
        lagging: list[int] = []
        what: list[str] = []
        for _, after, _ in lines[index + 1 : index + 1 + DESYNC_REPORT_LINES]:
            if _DESYNC_TIMEOUT_RE.search(after):
                break
            if n := _DESYNC_NEVER_RE.search(after):
                ranks = [int(r) for r in re.findall(r"\d+", n.group("ranks"))]
                what.append(f"rank(s) {n.group('ranks')} never joined any collective")
            elif g := _DESYNC_LAG_RE.search(after):
                ranks = [int(r) for r in re.findall(r"\d+", g.group("ranks"))]
                if g.group("joined") and int(m.group("rank")) in ranks:
                    # torch names the ranks at the lowest SeqNum: the reporting rank among
                    # those that joined and never finished means they all sit inside that
                    # collective (a hang in it), not that some lag behind the others
                    what.append(
                        f"rank(s) {g.group('ranks')} joined #{g.group('seq')} and none finished "
                        "it, the reporting rank among them: no rank lags the others"
                    )
                    continue
                what.append(
                    f"rank(s) {g.group('ranks')} joined #{g.group('seq')} but did not finish it"
                    if g.group("joined")
                    else f"rank(s) {g.group('ranks')} finished #{g.group('done')} but did not "
                    f"join #{g.group('next')}"
                )
            else:
                continue
            lagging += [r for r in ranks if r not in lagging]
        report.events.append(
            LogEvent(
                kind="desync_report",
                line=no,
                message=f"rank {m.group('rank')} timed out in {m.group('op')} #{seq}"
                + (f": {'; '.join(what)}" if what else ": the report names no lagging rank"),
                rank=tagged if tagged is not None else int(m.group("rank")),
                op=op_name(m.group("op")),
                seq=seq,
                missing_ranks=lagging or None,
                library="torch desync debug",
                exception_type="; ".join(what) or None,
            )
        )


# HCCL's init trace of a process ("Entry-HcclCommInitRootInfo:ranks[3], rank[0], ..." and
# "SetupAgent rankNum[3], rank[0], ...")
_INIT_RANK_RE = re.compile(
    r"(?:Entry-HcclCommInitRootInfo:ranks|SetupAgent rankNum)\[(?P<size>\d+)\], rank\[(?P<rank>\d+)\]"
)


# The device OS's kernel messages in its slog, behind the log daemon's own prefix: "[EVENT]
# KERNEL(3555,sklogd):2021-10-07-14:39:23.058.971 [klogd.c:248][104048.512182] [ascend] [ERROR]
# [drv_pcie] [devdrv_record_err_addr 191] <kworker/32:0:29177:29177> the err addr is", one
# record in several lines of one module ("... the err type is: 0x80").
_KERNEL_DRIVER_ERROR_RE = re.compile(
    r"\[ascend\] \[ERROR\] \[(?P<mod>\w+)\] \[(?P<fn>\w+) \d+\] (?:<[^>]*> )?(?P<what>.*?)\s*$"
)
_NOT_SUPPORTED_RE = re.compile(r"\bDRV_ERROR_NOT_SUPPORT\b")
"""A driver query the device does not serve: the driver's answer, not a fault."""
# MindSpore's note, at ERROR level, of where it saved the graph's execution order after a
# failure (ascend_kernel_runtime.cc DumpDebugInfoFile: "Execute order has saved at ..."): the
# failure is elsewhere (its exception), this line only says where the dump went
_PLOG_BOOKKEEPING_RE = re.compile(r"DumpDebugInfoFile\] Execute order has saved at ")


def _kernel_driver_error(lines: list[tuple[int, str, int | None]]) -> LogEvent | None:
    """The device kernel's first driver error record, its lines of one module joined."""
    for index, (no, line, tagged) in enumerate(lines):
        if "[ascend] [ERROR]" not in line or not (m := _KERNEL_DRIVER_ERROR_RE.search(line)):
            continue
        if _NOT_SUPPORTED_RE.search(line):
            continue  # the driver's answer to a query it does not serve
        said = [m.group("what")]
        for _, after, _ in lines[index + 1 : index + 12]:
            k = _KERNEL_DRIVER_ERROR_RE.search(after)
            if k is None or k.group("mod") != m.group("mod"):
                break
            said.append(k.group("what"))
        return LogEvent(
            kind="hccl_plog_error",
            line=no,
            message=" / ".join(w for w in said if w)[:300],
            rank=tagged,
            library=f"device kernel ({m.group('mod')})",
            exception_type=f"device driver error ({m.group('mod')}, {m.group('fn')})",
        )
    return None


# HCCP's calls return a negative Linux errno: "ra rdev init failed. ret(-67)" (ENOLINK, the port's
# link down, the HCCL guide's EJ0002 example), "ra listen start failed ret(-98)" beside its own
# "error:98" (EADDRINUSE, EJ0003's)
_HCCP_ERRNO_RE = re.compile(r"\bret\(-(?P<errno>\d+)\)")


def hccp_errno(text: str) -> str | None:
    """The errno an HCCP line's ``ret(-N)`` names (``-ENOLINK (Link has been severed)``)."""
    if not (m := _HCCP_ERRNO_RE.search(text)) or int(m.group("errno")) not in errno.errorcode:
        return None
    number = int(m.group("errno"))
    return f"ret(-{number}) = -{errno.errorcode[number]} ({os.strerror(number)})"


# the RoCE driver's user-space library on an error completion: "hns_roce_lite_handle_error_cqe(630)
# : error cqe status: 0x15" (then dump_err_cqe's words); the status is the HNS RoCE engine's
# (Linux drivers/infiniband/hw/hns/hns_roce_hw_v2.h, mapped there to the verbs' IB_WC_* status)
_ROCE_CQE_STATUS_RE = re.compile(r"error cqe status:?\s*0x(?P<status>[0-9a-fA-F]+)")
_HNS_CQE_STATUS = {
    0x01: "LOCAL_LENGTH_ERR (IB_WC_LOC_LEN_ERR)",
    0x02: "LOCAL_QP_OP_ERR (IB_WC_LOC_QP_OP_ERR)",
    0x04: "LOCAL_PROT_ERR (IB_WC_LOC_PROT_ERR: a local memory registration refused the access)",
    0x05: "WR_FLUSH_ERR (IB_WC_WR_FLUSH_ERR: flushed after the queue pair had failed)",
    0x06: "MW_BIND_ERR (IB_WC_MW_BIND_ERR)",
    0x10: "BAD_RESP_ERR (IB_WC_BAD_RESP_ERR)",
    0x11: "LOCAL_ACCESS_ERR (IB_WC_LOC_ACCESS_ERR)",
    0x12: "REMOTE_INVAL_REQ_ERR (IB_WC_REM_INV_REQ_ERR)",
    0x13: "REMOTE_ACCESS_ERR (IB_WC_REM_ACCESS_ERR: the peer refused the access)",
    0x14: "REMOTE_OP_ERR (IB_WC_REM_OP_ERR)",
    0x15: "TRANSPORT_RETRY_EXC_ERR (IB_WC_RETRY_EXC_ERR: the peer did not acknowledge within the "
    "retries; the link or the peer was lost)",
    0x16: "RNR_RETRY_EXC_ERR (IB_WC_RNR_RETRY_EXC_ERR: the peer had no receive posted in time)",
    0x22: "REMOTE_ABORT_ERR (IB_WC_REM_ABORT_ERR)",
    0x23: "GENERAL_ERR",
}


def _roce_cqe_status(line: str) -> str | None:
    """The HNS RoCE engine's error completion status a ROCE plog line names, in words."""
    if not (m := _ROCE_CQE_STATUS_RE.search(line)):
        return None
    status = int(m.group("status"), 16)
    return f"error CQE status 0x{status:02x} = " + _HNS_CQE_STATUS.get(status, "not a status named")


_DEVICE_ID_RE = re.compile(r"\bdevice_id=(\d+)")
"""The device a runtime's failed task ran on ("Aicore kernel execute failed, device_id=8, ...")."""


_DEVICE_LOG_DIR_RE = re.compile(r"/device-(\d+)/")
"""The device's own log folder in a grep's file name before the line ("hisi_logs/device-2/
.../ts.log:5177:[ERROR] TSCH(...)"): the device whose log it is."""


# the runtime's own words under a driver's failure, with its return code and the device
# ("[ERROR] RUNTIME(78,python):... [device.cc:227]78 Init:Failed to open device, retCode=0x7020014,
# deviceId=0."), and the error code it reported for it ("report error module_type=0,
# module_name=EE9999")
_RUNTIME_RETCODE_RE = re.compile(
    # (bounded: a runtime line may print a kernel's arguments, 100,000 characters)
    r"\[ERROR\] RUNTIME\((?P<pid>\d+)[^)\n]{0,80}\):[^\]\n]{0,200}\]\s*\d*\s*\w+:"
    r"(?P<what>[^\n]{0,300}?retCode=(?P<code>0x[0-9a-fA-F]+)(?:,\s*deviceId=(?P<dev>\d+))?)"
)
RUNTIME_FOLLOW_LINES = 12
"""How far under a driver's error the runtime's own words of it may stand."""
RUNTIME_FOLLOW_S = 1.0
"""How long after a driver's error the runtime's own words of it may be stamped (the runtime
answers the failed driver call at once: the lines are a fraction of a millisecond apart)."""
_MODULE_NAME_RE = re.compile(r"\bmodule_name=(?P<code>E[A-Z0-9]\d{3,4})\b")


def _plog_seconds(line: str) -> float | None:
    """A plog line's time stamp in seconds ("...):2024-03-11-02:22:34.958.504 [..."), None
    where it has none."""
    if not (t := _PLOG_STAMP_RE.search(line)):
        return None
    year, month, day, hour, minute, sec, frac = t.groups()
    moment = datetime(int(year), int(month), int(day), int(hour), int(minute), int(sec))
    return moment.timestamp() + (float(f"0.{frac}") if frac else 0.0)


def _runtime_follow_up(lines: list[tuple[int, str, int | None]], ev: LogEvent) -> None:
    """The runtime's line with a return code that followed a driver's (DRV) error of the same
    process, and the error code it reported: added to ``ev`` (its device where it names one)."""
    said: list[str] = []
    by_no = {n: t for n, t, _ in lines}
    start = _plog_seconds(by_no.get(ev.line, ""))
    for no, line, _ in lines:
        if no <= ev.line or "[ERROR] RUNTIME(" not in line:
            continue
        if no > ev.line + RUNTIME_FOLLOW_LINES:
            break
        at = _plog_seconds(line)
        if start is not None and at is not None and at - start > RUNTIME_FOLLOW_S:
            break  # a later failure of the runtime's own, not its answer to this one
        if ev.pid is not None and f"RUNTIME({ev.pid}," not in line:
            continue
        if not said and "retCode=" in line and (rc := _RUNTIME_RETCODE_RE.search(line)):
            said.append(f"the runtime then: {rc.group('what').strip()} (line {no})")
            if rc.group("dev") and ev.device is None:
                ev.device = int(rc.group("dev"))
        if ev.code is None and (mn := _MODULE_NAME_RE.search(line)):
            ev.code = mn.group("code")
        if said and ev.code is not None:
            break
    if ev.code is not None:
        said.append(f"error code {ev.code}")
    if said:
        ev.exception_type = f"{ev.exception_type}; " + "; ".join(said)


_PLOG_WARNING_RE = re.compile(r"^[ \t]*\[WARNING\] (?P<mod>[A-Z][A-Z_]*)\(-?\d+,")
_DRV_RET_CODE_RE = re.compile(r"\bdrvRetCode=(?P<code>\d+)\b")
PLOG_LINE_SAID_CHARS = 240
"""How much of a plog line (its head taken off) a note quotes."""


def _plog_warning_notes(lines: list[tuple[int, str, int | None]]) -> list[ParseWarning]:
    """Notes of a plog with no ERROR line: each module's first WARNING line as written, and each
    driver return code (``drvRetCode=N``, the runtime's name for a drvError_t: hicann/driver
    pkg_inc/ascend_hal_error.h, 16 DRV_ERROR_WAIT_TIMEOUT "driver wait timeout") a line gives,
    with its name. Warnings, not judged: nothing in them says the run failed."""
    notes: list[ParseWarning] = []
    warned: set[str] = set()
    codes: set[int] = set()
    for no, line, _ in lines:
        if "[WARNING] " in line and (w := _PLOG_WARNING_RE.match(line)):
            if w.group("mod") not in warned:
                warned.add(w.group("mod"))
                said = _PLOG_HEAD_RE.sub("", line.strip())[:PLOG_LINE_SAID_CHARS]
                notes.append(
                    ParseWarning(
                        line=no,
                        message=f"the plog's first WARNING line of {w.group('mod')}: {said} "
                        "(a warning, not judged)",
                        skipped=False,
                    )
                )
        if "drvRetCode=" not in line or not (d := _DRV_RET_CODE_RE.search(line)):
            continue
        code = int(d.group("code"))
        if code in codes or code not in DRV_ERRORS:
            continue
        codes.add(code)
        name, meaning = DRV_ERRORS[code]
        said = _PLOG_HEAD_RE.sub("", line.strip())[:PLOG_LINE_SAID_CHARS]
        notes.append(
            ParseWarning(
                line=no,
                message=f"drvRetCode {code} is {name} ({meaning}): {said}",
                skipped=False,
            )
        )
    return notes


def _cann_plog_errors(lines: list[tuple[int, str, int | None]]) -> list[LogEvent]:
    """The first ERROR line of another CANN module in a plog with no HCCL ERROR line (the
    runtime's "Aicore kernel execute failed ... fault kernel_name=aiv_all_reduce_***": a
    collective's AIV kernel that failed on the device), as written, one per process (a grep over
    several processes' plogs: "./plog-1769_...log:19:[ERROR] RUNTIME(1769,):..."); the device
    kernel's driver error record before them; never a query the driver does not serve."""
    kernel = _kernel_driver_error(lines)
    found: dict[int | None, LogEvent] = {}
    for no, line, tagged in lines:
        if kernel is not None and no >= kernel.line:
            break  # the device kernel's record came first
        if _NOT_SUPPORTED_RE.search(line) or _PLOG_BOOKKEEPING_RE.search(line):
            continue
        if "[ERROR] " not in line or not (m := CANN_PLOG_ERROR_RE.search(line)):
            continue
        pid_m = _PLOG_PID_ANYWHERE_RE.search(line)
        pid = int(pid_m.group(1)) if pid_m else None
        if pid in found:
            continue
        device = _DEVICE_ID_RE.search(line) or _DEVICE_LOG_DIR_RE.search(line[: m.start()])
        found[pid] = LogEvent(
            kind="hccl_plog_error",
            line=no,
            # (from its level on: a grep's file name before it is no part of it)
            message=_PLOG_HEAD_RE.sub("", line[m.start() :].strip())[:300],
            rank=tagged,
            device=int(device.group(1)) if device else None,
            pid=pid,
            library=m.group("mod"),
            exception_type=f"{m.group('mod')} error"
            + (f": {said}" if m.group("mod") == "HCCP" and (said := hccp_errno(line)) else "")
            + (f": {cqe}" if m.group("mod") == "ROCE" and (cqe := _roce_cqe_status(line)) else ""),
        )
    if not found:
        return [kernel] if kernel is not None else []
    for ev in found.values():
        if ev.library == "DRV":
            _runtime_follow_up(lines, ev)  # (the runtime's own ERROR lines are read below)
        if ev.library == "RUNTIME" and _runtime_task_exception(lines, ev):
            # a compute core's exception in a model operator, with nothing of HCCL's failing:
            # the device's exception, with its advice (the operator), not a communication error
            ev.kind = "npu_device_exception"
    return list(found.values())


# The runtime's report of what the device said of a failed task, under its "Task run failed"
# line ("ProcessStarsAicpuErrorInfo:The error from device(chipId:0, dieId:0), serial number is 6,
# an exception occurred during AICPU execution, stream_id:5, task_id:40187, errcode:1, msg:execute
# kernel param invalid.") and the kernel task's result ("AICPU Kernel task happen error,
# retCode=0x2a.")
# (older runtimes: "An exception occurred during AI CPU execution, ..."; Ascend 950's task_pos
# for task_id: hicann/runtime device_error_proc.cc)
_TASK_EXCEPTION_WORDS_RE = re.compile(
    r"(?i:an exception occurred during) (?P<unit>[\w ]+?) execution, stream_id:\d+, "
    r"(?:task_id|task_pos):\d+, errcode:(?P<code>\d+), msg:(?P<msg>[^\n]*?)\.?\s*$"
)
_CORE_EXCEPTION_WORDS_RE = re.compile(r"\[(vector core|aicore|ai core|aicpu) exception\]", re.I)
_KERNEL_RETCODE_RE = re.compile(r"\bKernel(?: task)? happen error, retCode=(?P<ret>0x[0-9a-fA-F]+)")
# an AI Core or vector core's own exception report ("there is an aivec error exception, core id
# is 16, ...") and the words the runtime gives its code ("The extend info: errcode:(0x200000000,
# 0, 0) errorStr: The write address of the MTE instruction is out of range.")
# (hicann/runtime device_error_core_proc.cc: "the error is aivec error, core id is 16"; older "there
# is an error of X, core id is")
_CORE_EXCEPTION_RE = re.compile(
    r"\b(?:[Tt]here is an? (?P<unit>[\w ]+?) (?:error|exception)(?: exception)?|there is an error of "
    r"(?P<unit2>[\w ]+?)|the error is (?P<unit3>[\w ]+?))\s*, core id is (?P<core>\d+)"
)
_CORE_ERROR_CODE_RE = re.compile(r"\bcore id is \d+, error code = (0x[0-9a-fA-F]+|\d+)")
_ERROR_STR_RE = re.compile(r"\berrorStr: (?P<what>[^.\n]*[^.\s])")  # (its period cut with the copy)
# the runtime's question to the driver after a core's exception (hicann/runtime
# device_error_core_proc.cc CheckSmmuFault: "Get isSmmuFault is %d." from
# NpuDriver::GetSmmuFaultValid): 1 when the device's SMMU recorded a translation fault, the task
# having touched an address outside the memory mapped for it
_SMMU_FAULT_RE = re.compile(r"\bGet isSmmuFault is 1\b")
# HCCL's own AIV collectives ("fault kernel_name=aiv_all_reduce_..."): a core exception in one of
# them is the collective's, not a model operator's
_HCCL_AIV_KERNEL_RE = re.compile(
    r"^aiv_(?:all_?reduce|all_?gather|reduce_?scatter|all_?to_?all|broadcast|reduce|sync)", re.I
)
# the runtime's word of the FFTS+ task that failed ("fftsplus task execute failed, dev_id=0,
# stream_id=4, task_id=0, context_id=0, thread_id=0, err_type=12[fftsplus aivector error]") and
# the kernel it ran ("fault kernel_name=IncreFlashAttention_..."), the name cut at its hash
_FFTS_ERR_TYPE_RE = re.compile(
    r"\btask execut(?:e|ion) failed, .*?\berr_type=(?P<n>\d+)\[(?P<what>[^\]]+)\]"
)
# (a TBE kernel's name carries its block and core indices first: "0/1_-1_0_GatherV21_tvmbin")
_FAULT_KERNEL_RE = re.compile(r"\bfault kernel_name=(?P<name>[\w./-]+?)(?:_[0-9a-f]{16,}|[,\s]|$)")


def _runtime_task_exception(lines: list[tuple[int, str, int | None]], ev: LogEvent) -> bool:
    """What the device said of the runtime's failed task (its unit, error code and words, and the
    kernel task's result) in the lines under the runtime's first ERROR line, said with it; True
    when it was a compute core's exception in a kernel that is not one of HCCL's collectives (a
    model operator's fault, not the communication's)."""
    start = bisect.bisect_left(lines, (ev.line,))  # (lines run in order of their numbers)
    after = [
        t
        for no, t, _ in lines[start : start + PLOG_KERNEL_LINES + 1]
        if no <= ev.line + PLOG_TRACE_LINES
    ]
    said: list[str] = []
    operator = False
    if exc := _search(_TASK_EXCEPTION_WORDS_RE, after):
        said.append(
            f"{exc.group('unit')} task exception, errcode {exc.group('code')} "
            f"({exc.group('msg').strip()})"
        )
    if core := _search(_CORE_EXCEPTION_RE, after):
        words = _search(_ERROR_STR_RE, after)
        unit = (core.group("unit") or core.group("unit2") or core.group("unit3")).strip()
        unit = unit.removeprefix("exception of ")  # "there is an exception of fftsplus aivector
        unit = unit if unit.endswith("error") else f"{unit} error"  # error, core id is 7"
        what = ""
        if words:  # (its words as far as the copy keeps them)
            cut = words.string[words.end() : words.end() + 1] != "."
            what = f" ({words.group('what').strip()}{' ...' if cut else ''})"
        said.append(f"{unit} exception on core {core.group('core')}{what}")
        operator = True
    if _search(_SMMU_FAULT_RE, after):
        said.append(
            "SMMU fault (the device's memory management unit refused an address the task had "
            "not mapped: an out-of-bounds access by the kernel)"
        )
    if ret := _search(_KERNEL_RETCODE_RE, after):
        words = _CORE_EXCEPTION_WORDS_RE.search(ret.string)
        said.append(
            f"kernel task retCode {ret.group('ret')}"
            + (f" ({words.group(1)} exception)" if words else "")
        )
        if words:
            # "retCode=0x31, [vector core exception]": a compute core's exception (the kernel's,
            # named below where the runtime names it)
            operator = True
    if ffts := _search(_FFTS_ERR_TYPE_RE, after):
        said.append(f"err_type {ffts.group('n')} ({ffts.group('what')})")
    # (the kernel's name comes with the runtime's task report, a few lines under the core's)
    if ev.device is None and (chip := _search(_ERROR_FROM_CHIP_RE, after)):
        # the runtime's "The error from device(chipId:0, dieId:0), serial number is 56": the
        # chip that raised it
        ev.device = int(chip.group(1))
    # (another process's lines joined under it, a plog of two processes, name its own kernel)
    own = ev.pid if ev.pid is not None else None
    # (the cores' own reports between, "ProcessStarsCoreErrorInfo:" four lines a core, are not
    # counted: a kernel on sixteen cores puts 64 of them before the runtime names it)
    wider: list[str] = []
    counted = cores = 0
    for no, t, _ in lines[start:]:
        if "ProcessStarsCoreErrorInfo:" in t and cores < PLOG_CORE_REPORT_LINES:
            cores += 1
        else:
            counted += 1
            if counted > PLOG_KERNEL_LINES + 1 or no > ev.line + PLOG_KERNEL_LINES + cores:
                break
        if own is None or (p := _PLOG_PID_ANYWHERE_RE.search(t)) is None or int(p.group(1)) == own:
            wider.append(t)
    if kernel := _search(_FAULT_KERNEL_RE, wider):
        said.append(f"in kernel {kernel.group('name')}")
        # a kernel the runtime names as failed is an operator's unless it is one of HCCL's
        operator = not _HCCL_AIV_KERNEL_RE.match(kernel.group("name"))
        if operator and ev.call is None:
            ev.call = f"kernel {kernel.group('name')}"  # (the operator is named: no rerun for it)
    dumped = [
        t
        for no, t, _ in lines[start : start + PLOG_ASSERT_LINES + 1]
        if no <= ev.line + PLOG_ASSERT_LINES and "[ASSERT]" in t
    ]
    if failed_assert := _search(_ASCENDC_ASSERT_RE, dumped):
        # (printed with the exception's dump, under the runtime's line: "[ASSERT] ...
        # gather_v3_base.h:137: Assertion `(0 <= val && val < this->gxSize_)' Index 1000001
        # out of range[0 1)!")
        said.append(ascendc_assertion_said(failed_assert))
    if said:
        ev.exception_type = f"{ev.exception_type}: {', '.join(said)}"
    return operator


# The device's driver (DRV), HCCP (the NPU's network service), the RoCE driver (ROCE) and the
# runtime (RUNTIME) log their own ERROR lines in the plog before HCCL's failure that follows from
# them ("[ERROR] DRV(28499, hccp_service.bin):... invalid host device id 65535", "[ERROR] HCCP(...):
# ... get vnic ip info fail!"). The HCCL guide's task-execution page (hicann/hccl docs/zh/
# user_guide/fault_diagnosis/task_exec_stage.md) shows both orders: the RoCE driver's "error cqe
# status: 0x15" above HCCP's "failed CQE status[12]" above HCCL's heartbeat ROCE CQE ERROR
# (EI0013), and the runtime's "fftsplus sdma error" above HCCL's "Task run failed" (EI0012).
_DEVICE_LAYER_ERROR_RE = re.compile(
    rf"^\[ERROR\] (?P<mod>DRV|HCCP|ROCE|RUNTIME)\(\d+,\s*[^)]*\):{_PLOG_TIME} "
)
DEVICE_LAYER_MODULES = ("] DRV(", "] HCCP(", "] ROCE(", "] RUNTIME(")


def _device_layer_error(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """The first ERROR line of the driver or HCCP standing above every failure read: where the
    failure began (an event of its own, ``hccl_plog_error``)."""
    first = min(e.line for e in report.events)
    if any(e.call == "drvGetDevNum" and e.line == first for e in report.events):
        return  # no device to use, said first: the runtime's errors beside it likely follow
    hccl_after = any(e.kind.startswith("hccl") for e in report.events)
    for no, line, tagged in lines:
        if no >= first:
            return
        if _NOT_SUPPORTED_RE.search(line):
            continue  # a query the driver does not serve: its answer, not where a failure began
        if m := _DEVICE_LAYER_ERROR_RE.match(line.lstrip()):
            ev = LogEvent(
                kind="hccl_plog_error",
                line=no,
                message=line.lstrip()[m.end() :].strip()[:300],
                rank=tagged,
                library=m.group("mod"),
                # (the failure after it is HCCL's, or the runtime's own coded one)
                exception_type=f"{m.group('mod')} error before "
                + ("HCCL's failure" if hccl_after else "the failure read"),
            )
            if device := _DEVICE_ID_RE.search(line):
                ev.device = int(device.group(1))
            if ev.library == "RUNTIME" and _runtime_task_exception(lines, ev) and not hccl_after:
                # a compute core's exception in a model operator above the runtime's coded
                # failure (507035 ...): the device's exception, the operator's fault
                ev.kind = "npu_device_exception"
            report.events.append(ev)
            return


# XLA's coordination service (xla/tsl/distributed_runtime/coordination/coordination_service.cc,
# JAX's jax.distributed and TensorFlow's multi-worker runtime): CheckBarrierTimeout passes an
# expired barrier with "Barrier timed out. Id: <id>. ... # of tasks that reached the barrier:
# N/M.\nThe first task at the barrier: <task>. Some timed out task names:\n<task>\n..." (older
# builds: "Barrier_id: <id>. Timed out task names:"), the tasks listed being those that had not
# reached it; CheckHeartbeatTimeout: "Task <task> heartbeat timeout." and "The following tasks
# are unhealthy (stopped sending heartbeats):" then one task a line.
_BARRIER_TIMEOUT_RE = re.compile(r"Barrier timed out\. (?:Barrier_id|Id): (?P<id>\S+?)\.(?:\s|$)")
_BARRIER_REACHED_RE = re.compile(r"# of tasks that reached the barrier: (\d+)/(\d+)")
_TASK_NAME_RE = re.compile(r"^\s*/job:[\w-]+/replica:\d+/task:(\d+)\s*$")
# XLA's rendezvous of a step's threads (xla/service/rendezvous.cc) when not all of them arrive:
# "This thread has been waiting for `initialize clique for rank 6; clique=devices=[0,...,15];
# stream=0; run_id=...` for 10 seconds and may be stuck. Expected 8 threads to join the
# rendezvous, but not all of them arrived on time."
_XLA_STUCK_RE = re.compile(
    r"This thread has been waiting for `(?P<what>(?:initialize clique for rank (?P<rank>\d+))?[^`\n]{0,400})`"
    r" for (?P<s>\d+) seconds and may be stuck"
)
_XLA_EXPECTED_RE = re.compile(r"Expected (\d+) threads to join the rendezvous")
# the service when a task connects again as a new process (coordination_service.cc): "/job:
# jax_worker/replica:0/task:1 unexpectedly tried to connect with a different incarnation. It has
# likely restarted." — the task died and came back; the service aborts the job for all
_TASK_INCARNATION_RE = re.compile(
    r"/job:[\w-]+/replica:\d+/task:(\d+) unexpectedly tried to connect with a different incarnation"
)
_TASK_HEARTBEAT_RE = re.compile(r"Task /job:[\w-]+/replica:\d+/task:(\d+) heartbeat timeout\.")
COORDINATION_TASK_LINES = 64
"""How many lines after a barrier's time-out its task names may take."""


def _coordination_timeouts(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One event per barrier (the error is repeated in the gRPC detail that follows it) and per
    task whose heartbeats stopped; one for XLA's stuck rendezvous of the threads setting up an
    NCCL clique, with the ranks that were waiting."""
    stuck = [
        (no, m) for no, t, _ in lines if "may be stuck" in t and (m := _XLA_STUCK_RE.search(t))
    ]
    if stuck:
        # (every waiting thread's line, a cut one too: "... for `initialize clique for rank 0;
        # clique=devices=" at the copy's end)
        waiting = sorted(
            {
                int(r.group(1))
                for _, t, _ in lines
                if "This thread has been waiting" in t
                and (r := re.search(r"initialize clique for rank (\d+)", t))
            }
        )
        expected = next(
            (int(e.group(1)) for _, t, _ in lines if (e := _XLA_EXPECTED_RE.search(t))), None
        )
        first_no, first = stuck[0]
        report.events.append(
            LogEvent(
                kind="coordination_timeout",
                line=first_no,
                message=first.group(0)[:300],
                exception_type="NCCL clique set-up stuck",
                library="XLA rendezvous",
                ran_for_ms=int(first.group("s")) * 1000,
                rank_size=expected,
                call=first.group("what")[:120],
                missing_ranks=[],
                group=", ".join(map(str, waiting)) or None,
            )
        )
    seen: set[tuple[str, str]] = set()
    for index, (no, line, tagged) in enumerate(lines):
        if "Barrier timed out" in line and (m := _BARRIER_TIMEOUT_RE.search(line)):
            if ("barrier", m.group("id")) in seen:
                continue
            seen.add(("barrier", m.group("id")))
            ev = LogEvent(
                kind="coordination_timeout",
                line=no,
                message=line.strip()[:300],
                rank=tagged,
                group=m.group("id"),
                exception_type="cluster registration"
                if m.group("id").startswith("[Init]Wait_for_all_tasks_to_register")
                else "barrier time-out",
                library="XLA coordination service",
                missing_ranks=[],
            )
            listing = "task names:" in line
            for _, after, _ in lines[index + 1 : index + 1 + COORDINATION_TASK_LINES]:
                if r := _BARRIER_REACHED_RE.search(after):
                    ev.rank_size = int(r.group(2))
                if "task names:" in after:
                    listing = True
                    continue
                if listing and (t := _TASK_NAME_RE.match(after)):
                    ev.missing_ranks = [*(ev.missing_ranks or []), int(t.group(1))]
                elif listing:
                    break
            report.events.append(ev)
        elif "different incarnation" in line and (inc := _TASK_INCARNATION_RE.search(line)):
            if ("incarnation", inc.group(1)) in seen:
                continue
            seen.add(("incarnation", inc.group(1)))
            report.events.append(
                LogEvent(
                    kind="coordination_timeout",
                    line=no,
                    message=line[inc.start() :].strip()[:300],
                    rank=tagged,
                    exception_type="task restarted",
                    library="XLA coordination service",
                    missing_ranks=[int(inc.group(1))],
                    root_cause=True,
                )
            )
        elif "heartbeat timeout" in line and (h := _TASK_HEARTBEAT_RE.search(line)):
            if ("heartbeat", h.group(1)) in seen:
                continue
            seen.add(("heartbeat", h.group(1)))
            report.events.append(
                LogEvent(
                    kind="coordination_timeout",
                    line=no,
                    message=line[h.start() :].strip()[:300],
                    rank=tagged,
                    exception_type="heartbeat time-out",
                    library="XLA coordination service",
                    missing_ranks=[int(h.group(1))],
                )
            )


# gloo's TCP transport (gloo/transport/tcp/pair.cc, unbound_buffer.cc) throws gloo::IoException
# with its source place first: "[../third_party/gloo/gloo/transport/tcp/pair.cc:589] Read error
# [127.0.0.1]:3977: Connection reset by peer", "[...pair.cc:598] Connection closed by peer
# [127.0.0.1]:54168", "[...unbound_buffer.cc:81] Timed out waiting 1800000ms for recv operation to
# complete"
_GLOO_ERROR_RE = re.compile(
    # (the end of a JSON string too: torch elastic's error record repeats the message as
    # '"message": "RuntimeError: [...pair.cc:598] Connection closed by peer [...]:12717",')
    # (gloo's own check, GLOO_ENFORCE: "[enforce fail at .../gloo/transport/tcp/device.cc:127] rp !=
    # nullptr. Unable to find address for: ...")
    r"\[(?:enforce fail at )?[^\]\s]*gloo/transport/\w+/(?P<file>\w+\.cc):(?P<ln>\d+)\] "
    r"(?P<what>.+?)(?:\s*\",?)?\s*$"
)
_GLOO_PEER_RE = re.compile(r"\[(?P<ip>[0-9A-Fa-f.:]+)\]:(?P<port>\d+)")
_GLOO_WAIT_RE = re.compile(r"Timed out waiting (\d+)ms")


# gloo's TCP context after its full-mesh connect (pytorch/gloo transport/tcp/context.cc
# printConnectivityInfo): "[Gloo] Rank 6 is connected to 7 peer ranks. Expected number of connected
# peer ranks is : 7" (newer: "Rank 6 is connected to 7. Expected number of connected peers is:
# 7"), and where fewer came up, "Rank 6 is NOT connected to: [3, 5]"
GLOO_CONNECTED_RE = re.compile(
    r"Rank (?P<rank>\d+) is connected to (?P<n>\d+)(?: peer ranks)?\. Expected number of "
    r"connected peer(?: rank)?s is ?: ?(?P<expected>\d+)"
)
_GLOO_NOT_CONNECTED_RE = re.compile(
    r"Rank (?P<rank>\d+) is NOT connected to: \[(?P<peers>[\d, ]*)\]"
)


def _gloo_connectivity(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """A ``gloo_error`` per rank whose gloo context connected to fewer peers than its group has."""
    missing: dict[str, str] = {}
    for _, line, _ in lines:
        if "NOT connected to" in line and (m := _GLOO_NOT_CONNECTED_RE.search(line)):
            missing[m.group("rank")] = m.group("peers").strip()
    seen: set[str] = set()
    for no, line, _ in lines:
        if "Expected number of connected" not in line or not (c := GLOO_CONNECTED_RE.search(line)):
            continue
        rank, n, expected = c.group("rank"), int(c.group("n")), int(c.group("expected"))
        if n >= expected or rank in seen:
            continue
        seen.add(rank)
        peers = missing.get(rank)
        report.events.append(
            LogEvent(
                kind="gloo_error",
                line=no,
                message=line.strip()[:300],
                rank=int(rank),
                exception_type=f"gloo's full mesh came up with {n} of {expected} peers"
                + (f": not connected to rank(s) {peers}" if peers else ""),
            )
        )


# gloo's TCP pair logging a connect it failed (as MindIE's FAQ shows it): "ERROR failed to
# connect, willRetry=1, retry=2, retryLimit=3, rank=1, size=2, local=[127.0.0.1]:123,
# remote=[127.0.0.1]:345, error=SO_ERROR: Connection refused"
_GLOO_CONNECT_RE = re.compile(
    r"\bfailed to connect, willRetry=(?P<will>\d), retry=(?P<retry>\d+), retryLimit=(?P<limit>\d+), "
    r"rank=(?P<rank>\d+), size=(?P<size>\d+), local=\[(?P<lip>[^\]]+)\]:\d+, "
    r"remote=\[(?P<ip>[^\]]+)\]:(?P<port>\d+), error=(?P<why>.+?)\s*$"
)


def _gloo_errors(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One event per rank and kind of gloo transport error; a line a monitored barrier's failure
    already read (its "Original exception") is left to it."""
    near = {e.line for e in report.events if e.kind == "monitored_barrier_failure"}
    seen: set[tuple[int | None, str]] = set()
    for no, line, tagged in lines:
        if "failed to connect, willRetry=" in line and (c := _GLOO_CONNECT_RE.search(line)):
            key = (int(c.group("rank")), f"connect {c.group('ip')}:{c.group('port')}")
            if key in seen:
                continue
            seen.add(key)
            report.events.append(
                LogEvent(
                    kind="gloo_error",
                    line=no,
                    message=line[c.start() :].strip()[:300],
                    rank=int(c.group("rank")),
                    rank_size=int(c.group("size")),
                    ip=c.group("lip"),
                    remote_ip=c.group("ip"),
                    port=int(c.group("port")),
                    exception_type=f"failed to connect: {c.group('why')}",
                    library="gloo",
                    call=f"connect (try {c.group('retry')} of {c.group('limit')}"
                    + (", it tries again)" if c.group("will") == "1" else ", its last)"),
                )
            )
            continue
        if "gloo/transport/" not in line or not (m := _GLOO_ERROR_RE.search(line)):
            continue
        if any(no - d in near for d in range(1, MB_EXCEPTION_WINDOW_LINES + 1)):
            continue
        what = m.group("what")
        peer = _GLOO_PEER_RE.search(what)
        # the kind of error without its addresses and numbers: "Read error: Connection reset by
        # peer", "Timed out waiting Nms for recv operation to complete"
        said = re.sub(r"\s*\[[0-9A-Fa-f.:]+\]:\d+(:?)", lambda a: a.group(1), what).strip()
        kind = re.sub(r"\d+ms", "Nms", said)
        if (tagged, kind) in seen:
            continue
        seen.add((tagged, kind))
        wait = _GLOO_WAIT_RE.search(what)
        if "connectFullMesh failed" in line:
            # ProcessGroupGloo's full-mesh set-up (torch 2.2+ connectFullMesh) failed on this rank
            said = "gloo could not connect its full mesh of pairs (connectFullMesh): " + (
                "its error text says no cause ('no error')" if said == "no error" else said
            )
        report.events.append(
            LogEvent(
                kind="gloo_error",
                line=no,
                message=line[m.start() :].strip()[:300],
                rank=tagged,
                remote_ip=peer.group("ip") if peer else None,
                port=int(peer.group("port")) if peer else None,
                timeout_ms=int(wait.group(1)) if wait else None,
                exception_type=said[:200],
                library="gloo",
                call=f"{m.group('file')}:{m.group('ln')}",
            )
        )


# The aws-ofi-nccl plugin's own logger in its early releases (before it logged through NCCL's):
# "WARN: Function: find_ofi_provider Line: 543: NET/OFI Couldn't find any optimal provider"; a
# WARN of NCCL's net plugin is an error, as NCCL's own WARN lines are
_OFI_WARN_RE = re.compile(
    r"\bWARN: Function: (?P<func>\w+) Line: (?P<ln>\d+): (?P<what>NET/OFI .+?)\s*$"
)
# libfabric's logger: "libfabric:PID:TIME::PROV:SUBSYS:FUNC():LINE<warn> MESSAGE" (its levels are
# warn, trace, info and debug; warn is the highest), e.g. the EFA provider's failed transfer
# "efa_rdm_txe_handle_error():737<warn> err: 5, message: Invalid address My EFA addr: ..."
_LIBFABRIC_WARN_RE = re.compile(
    r"\blibfabric:(?P<pid>\d+):\d*:(?P<fields>(?:[\w;]*:){1,3})(?P<func>\w+)\(\):(?P<ln>\d+)<warn> "
    r"(?P<what>.+?)\s*$"
)
LIBFABRIC_WHAT_CHARS = 120
"""How much of a libfabric warning's text names its kind (the rest: addresses, host ids)."""


def _net_plugin_warnings(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """The aws-ofi-nccl plugin's own WARN lines (as NCCL warnings) and libfabric's warn-level
    lines, one per process and kind."""
    seen: set[tuple[Any, ...]] = set()
    for no, line, tagged in lines:
        if "NET/OFI" in line and (o := _OFI_WARN_RE.search(line)):
            if (tagged, o.group("what")) in seen:
                continue
            seen.add((tagged, o.group("what")))
            report.events.append(
                LogEvent(
                    kind="nccl_warning",
                    line=no,
                    message=o.group("what")[:300],
                    rank=tagged,
                    library="NCCL",
                    call=f"{o.group('func')}:{o.group('ln')}",
                )
            )
        elif "<warn>" in line and (f := _LIBFABRIC_WARN_RE.search(line)):
            what = f.group("what").split(" My ", 1)[0][:LIBFABRIC_WHAT_CHARS]
            # the fields before the function: the provider first, then its subsystem ("efa:cq:";
            # newer releases put an empty domain field before them)
            prov = next((x for x in f.group("fields").split(":") if x), "")
            if prov == "core":
                # libfabric's core at start-up: libraries it tries and falls back from ("Failed
                # to dlopen libnvidia-ml.so.  Trying libnvidia-ml.so.1"), in healthy runs too
                continue
            # EFA's failed transfer names both ends by their EC2 host ids
            mine = re.search(r"My host id: (\S+)", f.group("what"))
            peer = re.search(r"Peer host id: (\S+)", f.group("what"))
            key = (int(f.group("pid")), f.group("func"), what)
            if key in seen:
                continue
            seen.add(key)
            report.events.append(
                LogEvent(
                    kind="libfabric_warning",
                    line=no,
                    message=line[f.start() :].strip()[:300],
                    rank=tagged,
                    pid=int(f.group("pid")),
                    exception_type=what + (f" (peer host id {peer.group(1)})" if peer else ""),
                    host=mine.group(1) if mine else None,
                    library=f"libfabric ({prov})" if prov else "libfabric",
                    call=f"{f.group('func')}():{f.group('ln')}",
                )
            )


# NCCL's socket layer (misc/socket.cc): a connect() refused or timed out is retried, with
# "NCCL INFO Call to connect returned Connection timed out, retrying" (every 1000th refused try),
# until its retry limit, when it warns "Connect to ... failed" or "socketStartConnect: exceeded
# retries": a log cut before that verdict keeps only the retries
# (newer NCCL, src/os/linux.cc: "socketPollConnect: connect to 10.29.224.148<52333> returned
# Connection refused, retrying (18/34) after sleep for 1800 msec")
# (its count, "retrying (34/34)", at its limit is the last retry: NCCL then warns "exceeded error
# retry count" and fails with ncclRemoteError, src/os/linux.cc; some releases print no address,
# "socketPollConnect: connect returned No route to host, retrying (26/34) ...")
_CONNECT_RETRY_RE = re.compile(
    r"Call to connect returned (?P<why>[^,\n]+), retrying"
    r"|\w+: connect(?: to (?P<peer>\S+?)(?:<(?P<port>\d+)>)?)? returned (?P<why2>[^,\n]+), retrying"
    r"(?: \((?P<n>\d+)/(?P<max>\d+)\))?"
)


def _nccl_connect_retries(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One event per process and reason; its last retry (at the limit) marks it exhausted."""
    seen: dict[tuple[str | None, str | None, str], LogEvent] = {}
    for no, line, tagged in lines:
        if "returned" not in line or not (m := _CONNECT_RETRY_RE.search(line)):
            continue
        prefix = _NCCL_PREFIX_RE.search(line)
        host = prefix.group("host") if prefix else None
        pid = prefix.group("pid") if prefix else None
        why = m.group("why") or m.group("why2")
        ev = seen.get((host, pid, why))
        if ev is None:
            ev = seen[(host, pid, why)] = LogEvent(
                kind="nccl_connect_retry",
                line=no,
                message=line[m.start() :].strip()[:300],
                rank=tagged,
                host=host,
                pid=int(pid) if pid else None,
                device=int(prefix.group("dev")) if prefix else None,
                exception_type=why,
                library="NCCL",
                remote_ip=m.group("peer"),
                port=int(m.group("port")) if m.group("port") else None,
            )
            report.events.append(ev)
        if m.group("n") is not None and m.group("n") == m.group("max"):
            # its last retry: the connect failed for good (a cut log may lack the WARN after it)
            ev.code = "exhausted"
            ev.line, ev.message = no, line[m.start() :].strip()[:300]
            ev.exception_type = f"{why} (retries used up: {m.group('n')} of {m.group('max')})"


# Ray's autoscaler when no node of the cluster can hold what a task or placement group asks:
# "(autoscaler +21m12s) Error: No available node types can fulfill resource request {'node:
# 10.2.0.127': 0.001, 'GPU': 1.0}. Add suitable node types to this cluster ...", and vLLM's
# "Waiting for creating a placement group of specs for 1270 seconds. specs=[{...}, ...]"
_RAY_UNPLACEABLE_RE = re.compile(
    r"No available node types can fulfill resource request (?P<ask>\{[^}]*\})"
)
_PLACEMENT_WAIT_RE = re.compile(
    r"Waiting for creating a placement group of specs for (?P<s>\d+) seconds"
)


def _ray_placement(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """Ray unable to place the job's workers: the autoscaler's verdict (once per request), or,
    without it, the longest placement-group wait a log shows."""
    asked: set[str] = set()
    waited: tuple[int, str, int | None, int] | None = None
    for no, line, tagged in lines:
        if "No available node types" in line and (m := _RAY_UNPLACEABLE_RE.search(line)):
            if m.group("ask") not in asked:
                asked.add(m.group("ask"))
                report.events.append(
                    LogEvent(
                        kind="ray_placement",
                        line=no,
                        message=line[m.start() :].strip()[:300],
                        rank=tagged,
                        exception_type=f"no node can hold {m.group('ask')}",
                        library="Ray",
                    )
                )
        elif "placement group of specs" in line and (w := _PLACEMENT_WAIT_RE.search(line)):
            if waited is None or int(w.group("s")) > waited[3]:
                waited = (no, line[w.start() :].strip(), tagged, int(w.group("s")))
    for ev in report.events:
        if ev.kind == "ray_placement" and waited is not None:
            ev.timeout_ms = waited[3] * 1000  # how long the job had waited for its workers
    if waited is not None and not asked:
        no, text, tagged, seconds = waited
        report.events.append(
            LogEvent(
                kind="ray_placement",
                line=no,
                message=text[:300],
                rank=tagged,
                timeout_ms=seconds * 1000,
                exception_type="the placement group of the job's workers was not created",
                library="Ray",
            )
        )


def _deepep_timeouts(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One event per kind of DeepEP timeout (every channel of a kernel prints its own line)."""
    seen: set[str] = set()
    for no, line, tagged in lines:
        if "DeepEP" not in line or not (m := _DEEPEP_TIMEOUT_RE.search(line)):
            continue
        what = m.group("what").strip()
        if what in seen:
            continue
        seen.add(what)
        rank = int(m.group("rank")) if m.group("rank") else tagged
        report.events.append(
            LogEvent(
                kind="deepep_timeout",
                line=no,
                message=line[m.start() :].strip()[:300],
                rank=rank,
                exception_type=what,
                library="DeepEP",
            )
        )


# UCX's mlx5 error completions (src/uct/ib/mlx5/ib_mlx5_log.c: the CQE syndrome's text, then
# "on <device>:<port>/<transport> (synd 0x.. vend 0x.. hw_synd ../..)"), behind the error
# handler's "[host:pid:thread:tid] ib_mlx5_log.c:177" (its first "[" lost in a copy) or its
# logger's "[time] [host:pid:thread] ... UCX  ERROR"
_UCX_CQE_RE = re.compile(
    r"(?:\[?(?P<host>[\w.-]+):(?P<pid>\d+):\d+(?::\d+)?\][^\n]*?)?"
    r"(?P<what>Local length|Local QP operation|Local protection|Work Request flushed|"
    r"Memory window bind|Bad response|Local access|Invalid request|Remote access|Remote QP|"
    r"Remote OP|Transport retry count exceeded|Receive-no-ready retry count exceeded|"
    r"Remote side aborted|Generic)(?: error)? on (?P<port>mlx\w+:\d+)/(?P<tl>\w+) \(synd 0x"
)
# ... and older UCX's (1.3's ib_mlx5_log.c) form of one: "[host:pid:0:tid] ib_mlx5_log.c:113  FATAL:
# Error on QP 0x2e5d6 wqe[7]: Transport retry count exceeded (synd 0x15 vend 0x81) opcode RDMA_READ"
_UCX_QP_ERROR_RE = re.compile(
    # (the bracket that opens the prefix required, and a host that starts with a letter: a
    # timestamp's "10:21:04]" before it is no host)
    r"\[(?P<host>[A-Za-z][\w.-]*):(?P<pid>\d+):\d+(?::\d+)?\][^\[\n]*?Error on QP (?P<qp>0x[0-9a-fA-F]+)"
    r"(?: wqe\[\d+\])?: (?P<what>[A-Za-z][A-Za-z -]*?)(?: error)? \(synd 0x[0-9a-fA-F]+"
    r"(?: vend 0x[0-9a-fA-F]+)?\)(?: opcode (?P<op>\w+))?"
)
# UCX's logger at level ERROR (or FATAL): "[1743560160.063188] [host:23812:0]  ib_iface.c:1182 UCX
# ERROR erdma_0: iface 0x32ce7410 failed to create UD QP ...", "[1742467344.413567]
# [VM-195-16-centos:2808 :0]  sock.c:334  UCX  ERROR   connect(fd=143, dest_addr=10.0.0.0:43833)
# failed: Connection refused" (ucs/debug/log.c: time, host:pid:thread, file:line, level)
_UCX_LOG_ERROR_RE = re.compile(
    r"\[\d+\.\d+\]\s+\[(?P<host>[\w.-]+):(?P<pid>\d+)\s*:\d+\]\s+\w+\.c:\d+\s+UCX\s+(?:ERROR|FATAL)\s+"
    r"(?P<msg>\S.*?)\s*$"
)
# DeepEP's kernels when a peer's data never came: "DeepEP dispatch NVL receiver timeout, channel:
# 6, RDMA: 0, ..." (intranode/internode kernels print one line per channel), "DeepEP timeout for
# dispatch receivers, rank 3, responsible_channel = 1, ..."
_DEEPEP_TIMEOUT_RE = re.compile(
    r"DeepEP (?P<what>(?:[\w ]+? )?timeout(?: for [\w ]+)?)(?:,| check)(?:.*?\brank:? (?P<rank>\d+))?"
)


def _cuda_failure(line: str) -> tuple[int, str | None, str | None, str] | None:
    """Where in ``line`` a failed CUDA (or HIP) call's report starts, the host, the call's place
    and the error text; None when the line holds none."""
    if "Test CUDA failure" in line and (m := _CUDA_TEST_RE.search(line)):
        return m.start(), m.group("host") or None, m.group("where"), m.group("what")
    if "Failed: " in line and (m := _CUDA_FAILED_RE.search(line)):
        return m.start(), None, m.group("where") or m.group("src"), m.group("what")
    if "hipError" in line and (m := _HIP_ERROR_RE.search(line)):
        where = f"{m.group('file')}:{m.group('no')}" if m.group("file") else None
        return m.start(), None, where, m.group("what")
    if "CUDA error: " in line and (m := _CUDA_WHAT_RE.search(line)):
        return m.start(), None, None, m.group("what")
    if "CUDA error (" in line and (m := _CUDA_AT_RE.match(line)):
        return m.start("head"), None, m.group("where"), m.group("what").strip()
    return None


# a kernel library's own CUDA check at the line's start (flash-attention's and sgl-kernel's
# CHECK_CUDA): "CUDA error (/path/flash_fwd_launch_template.h:188): an illegal memory access
# was encountered" — the kernel that failed, before torch's watchdog reports the same error
_CUDA_AT_RE = re.compile(r"^\s*(?P<head>CUDA error \((?P<where>[^()\s]+:\d+)\): (?P<what>\S.*))$")


# c10::CUDAError's what() under "terminate called after throwing an instance of
# 'c10::CUDAError'": a CUDA call that failed in a thread of torch's (ProcessGroupNCCL's work
# cleanup or watchdog loop querying its events), which takes the process down
_CUDA_WHAT_RE = re.compile(r"what\(\):\s+CUDA error: (?P<what>\S.*?)\s*$")
# ... and torch's own report of one, a copy with no traceback above it: "RuntimeError: CUDA
# error: uncorrectable ECC error encountered" at a line's start (c10/cuda/CUDAException.h's
# C10_CUDA_CHECK; its hint "CUDA kernel errors might be asynchronously reported ..." follows)
# (or as the message of torchelastic's error file, a JSON string whose line breaks are "\n":
# '"message": "RuntimeError: CUDA error: ...\nCUDA kernel errors might be ...')
_TORCH_CUDA_ERROR_RE = re.compile(
    r"^\s*(?:\[rank\d+\]:\s*|\"message\":\s*\")?(?:RuntimeError|torch\.AcceleratorError): "
    r"CUDA error: (?P<what>[^\\\n\"]*[^\\\s\"])(?:\s*$|\\n|\",?\s*$)"
)
# the error file's ranks, each a key above its record ('"784": {', then '"local_rank": 0,')
_ERROR_FILE_RANK_RE = re.compile(r'^\s*"(?P<rank>\d+)":\s*\{\s*$')
ERROR_FILE_RANK_LINES = 6
"""How far above its message an error file's record names its rank."""


def _torch_cuda_error(lines: list[tuple[int, str, int | None]]) -> LogEvent | None:
    """torch's report of a failed CUDA call with no traceback to read it from (a copy of its
    exception line and hints alone): the first one, a ``cuda_error``."""
    for index, (no, line, tagged) in enumerate(lines):
        if "CUDA error: " not in line or not (m := _TORCH_CUDA_ERROR_RE.search(line)):
            continue
        what = m.group("what")
        if tagged is None and line.lstrip().startswith('"message"'):
            tagged = next(
                (
                    int(r.group("rank"))
                    for _, above, _ in reversed(
                        lines[max(0, index - ERROR_FILE_RANK_LINES) : index]
                    )
                    if (r := _ERROR_FILE_RANK_RE.match(above))
                ),
                None,
            )
        if what.startswith("driver shutting down"):
            # CUDA's answer to a call made after the process began its exit (the watchdog's
            # INFO line at exit): the order of an exit, not a failed call
            continue
        if "uncorrectable ECC error" in what:
            # CUDA's words for an uncorrectable ECC error: the GPU's memory failed, a hardware fault
            what = f"{what} (an uncorrectable ECC error: the GPU's memory failed)"
        return LogEvent(
            kind="device_oom" if what.startswith("out of memory") else "cuda_error",
            line=no,
            message=line[m.start() :].strip().split("\\n", 1)[0][:300],
            rank=tagged,
            exception_type=what,
        )
    return None


# where c10 raised it, under a what() line ("Exception raised from query at ../aten/src/ATen/
# cuda/CUDAEvent.h:91 (most recent call first):"), and a frame of ProcessGroupNCCL's own thread
# (its watchdog, "workCleanupLoop" in older releases) querying a collective's event
_RAISED_FROM_RE = re.compile(
    r"^\s*Exception raised from (?P<fn>\w+) at (?:\S*/)?(?P<at>[^/\s]+:\d+)"
)
_WATCHDOG_FRAME_RE = re.compile(
    r"ProcessGroupNCCL::(?:workCleanupLoop|ncclCommWatchdog|watchdogHandler)\(|"
    r"ProcessGroupNCCL::WorkNCCL::(?:isCompleted|finishedGPUExecution)"
)
RAISED_FROM_LINES = 12
"""How far under a what() line c10's "Exception raised from" and its frames stand."""


def _cuda_failures(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One event per host and CUDA error text (each process of a run may print it)."""
    seen: dict[tuple[str | None, str], tuple[LogEvent, int]] = {}
    for index, (no, line, tagged) in enumerate(lines):
        if (found := _cuda_failure(line)) is None:
            continue
        start, host, where, what = found
        if (host, what) in seen:
            ev, times = seen[(host, what)]
            seen[(host, what)] = (ev, times + 1)
            continue
        said = what
        if where is None and "what()" in line:
            below = [t for _, t, _ in lines[index + 1 : index + 1 + RAISED_FROM_LINES]]
            if raised := _search(_RAISED_FROM_RE, below[:2]):
                where = f"{raised.group('fn')} ({raised.group('at')})"
            if any(_WATCHDOG_FRAME_RE.search(t) for t in below):
                said = (
                    f"{what} (found by ProcessGroupNCCL's watchdog thread querying a "
                    "collective's CUDA event: the error came from the GPU asynchronously, a "
                    "kernel's fault or the GPU or its driver failing, not from the call named)"
                )
        ev = LogEvent(
            kind="device_oom" if what.startswith("out of memory") else "cuda_error",
            line=no,
            message=line[start:].strip()[:300],
            host=host,
            rank=tagged,
            call=where,
            exception_type=said,
        )
        seen[(host, what)] = (ev, 1)
        report.events.append(ev)
    for ev, times in seen.values():
        if times > 1 and ev.host is None and ev.rank is None:
            # (processes of one log that each printed it: the log names none of them)
            ev.exception_type = f"{ev.exception_type}; {times} processes reported it"


_STAMP_TAIL_RE = re.compile(r"^\d{3}\s+(\D.*)$")
_CANN_PID_RE = re.compile(r"\bE[A-Z0-9]\d{4}: \[PID: (\d+)\]")
"""CANN's error report naming its process ("EH9999: [PID: 56447] 2025-07-30-06:16:22 ...")."""
# the runtime's words of a failed device task in CANN's TraceBack ("Aicpu kernel execute failed,
# device_id=0, stream_id=28, task_id=1726, errorCode=2a.", "Aicore kernel execute failed, ...")
_FAILED_TASK_IDS_RE = re.compile(
    r"execute failed, device_id=(?P<dev>\d+), stream_id=(?P<stream>\d+), task_id=(?P<task>\d+)"
)
_FAULT_IDS_RE = re.compile(
    r"\bdevice_id=(?P<dev>\d+),? stream_id=(?P<stream>\d+),? task_id=(?P<task>\d+)"
)
TASK_IDS_LINES = 8
"""How far above a failed call's result its TraceBack's failed task may stand."""


def _npu_runtime_errors(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """Failed NPU runtime calls torch_npu reports, one per call and code; a warning only for a
    code no failed call of the file showed (torch_npu warns again of the same code as the
    process winds down)."""
    seen: set[tuple[str | None, int, int | None]] = set()  # (call, code, rank tag)
    found: list[tuple[int, str | None, int]] = []
    pid_codes: set[tuple[int | None, int]] = set()  # (CANN's [PID: N], code) already taken
    for index, (_, line, tagged) in enumerate(lines):
        if (
            (("NPU" not in line and "OPS" not in line) or "error code is" not in line)
            and ") failed : " not in line
        ) or not (m := _NPU_CALL_RE.search(line)):
            continue
        call = (
            m.group("call") or m.group("call2") or m.group("call4") or m.group("call5")
            or m.group("call6")
        )  # fmt: skip
        code = int(
            m.group("code") or m.group("code2") or m.group("code3") or m.group("code4")
            or m.group("code5") or m.group("code6")
        )  # fmt: skip
        # (one a call and code, and a rank where the launcher's tag names one: eight ranks that
        # each failed the same call are eight failures)
        if (call, code, tagged) not in seen:
            seen.add((call, code, tagged))
            found.append((index, call, code))
    if len(seen) > 1:
        # (an untagged line of a call and code a tagged rank's line gave is a quote of it:
        # torchrun's Root Cause block, a logger repeating the error, a report's summary)
        by_rank = {(call, code) for call, code, tagged in seen if tagged is not None}
        found = [
            (index, call, code)
            for index, call, code in found
            if lines[index][2] is not None or (call, code) not in by_rank
        ]
    for index, (_, line, _) in enumerate(lines):
        # CANN's own report of a failed runtime call ("synchronize stream failed, runtime result
        # = 507011", log_inner.cpp ReportCallError) or a code cut from torch_npu's line ("error
        # code is 507048..."): only the runtime's own codes (ACL_RT_ERRORS)
        if (
            "runtime result" in line
            or "error code is" in line
            or "ErrCode=" in line
            or "execute failed, reason=" in line
            or "Error: code=" in line
            or "error code:" in line
            or ") failed: " in line
            or (" failed: " in line and "aclrt" in line)
            or "failed, ret = " in line
            or "errorCode = " in line
            or "PeekLastErr:" in line
            or "retCode is " in line
        ) and (rm := _RUNTIME_RESULT_RE.search(line)):
            if _PLOG_NOT_ERROR_RE.match(line) and not (
                rm.group("code11")
                and any("[ERROR]" in t for _, t, _ in lines[index + 1 : index + 3])
            ):
                # a plog line below ERROR: a code the runtime went on past (its last error
                # peeked just before an ERROR line is that error's)
                continue
            code = int(
                rm.group("code") or rm.group("code2") or rm.group("code3") or rm.group("code4")
                or rm.group("code5") or rm.group("code6") or rm.group("code7") or rm.group("code8")
                or rm.group("code10") or rm.group("code11") or rm.group("code12")
            )  # fmt: skip
            # (CANN's own report names its process, "EH9999: [PID: 56447] ... runtime result =
            # 507018": two processes that met the same code are two failures)
            cann_pid = _CANN_PID_RE.search(line)
            key = (int(cann_pid.group(1)) if cann_pid else None, code)
            # (a code the table lacks, where the runtime's own report names the call that
            # returned it, "X failed, runtime result = 107030": a runtime failure all the same)
            reported = bool(rm.group("call") or rm.group("call12")) and not _under_a_code(
                lines, index, CODE_BLOCK_LINES
            )  # (under a CANN code its block's reading says it)
            if rm.group("code12") and not reported:
                continue
            if (code in ACL_RT_ERRORS or reported) and (
                (cann_pid is not None and key not in pid_codes)
                or all(c != code for _, _, c in found)
            ):
                pid_codes.add(key)
                call = (
                    rm.group("call") or rm.group("call3") or rm.group("call4")
                    or rm.group("call6") or rm.group("call7") or rm.group("call8") or rm.group("call10") or rm.group("call11") or rm.group("call12") or ""
                ).strip() or None  # fmt: skip
                if call and (stamped := _STAMP_TAIL_RE.match(call)):
                    call = stamped.group(1)  # (a time stamp's milliseconds before the words)
                seen.add((call, code, None))
                found.append((index, call, code))
    failed = {code for _, call, code in found if call is not None}
    emitted: set[tuple[int, str | None]] = set()  # (pid, code) of the events made
    for index, call, code in found:
        if call is None and code in failed:
            continue
        no, line, tagged = lines[index]
        window = [t for _, t, _ in lines[index + 1 : index + 1 + CALL_WINDOW_LINES]]
        if own := _PLOG_PID_ANYWHERE_RE.search(line):
            # a plog line names its process: another process's lines under it (plogs of several
            # processes joined) say nothing of this call's device
            window = [
                t
                for t in window
                if (other := _PLOG_PID_ANYWHERE_RE.search(t)) is None
                or other.group(1) == own.group(1)
            ]
        ev = LogEvent(
            kind="npu_runtime_error",
            line=no,
            message=line.strip()[:300],
            code=str(code),
            code_name=ACL_RT_ERRORS.get(code),
            rank=tagged,
            call=call,
        )
        if err := _search(_TORCH_NPU_CODE_RE, window):
            ev.torch_npu_code = err.group(1)
        if ev.code_name is None and window and (said := _NPU_CODE_WORDS_RE.match(window[0])):
            # torch_npu prints the code's words under it ("[Error]: Repeated initialization or
            # repeated loading."): what the code means, as the library says it
            ev.code_name = said.group("what")
        if ev.code_name is None and (
            desc := _runtime_desc(
                [
                    t
                    for _, t, _ in lines[index + 1 : index + 1 + RUNTIME_DESC_LINES]
                    if own is None
                    or (other := _PLOG_PID_ANYWHERE_RE.search(t)) is None
                    or other.group(1) == own.group(1)
                ],
                code,
            )
        ):
            ev.code_name = desc  # (the runtime's words for a code the table lacks)
        _torch_npu_context(ev, window)
        if ev.pid is None and own is not None:
            ev.pid = int(own.group(1))
        if ev.pid is None and (cp := _CANN_PID_RE.search(line)):
            ev.pid = int(cp.group(1))
        if ev.device is None:
            # CANN's TraceBack above the call's result names the failed task ("Aicpu kernel
            # execute failed, device_id=0, stream_id=28, task_id=1726, ..."): its device
            above = [t for _, t, _ in lines[max(0, index - TASK_IDS_LINES) : index]]
            if ids := _search(_FAILED_TASK_IDS_RE, above):
                ev.device = int(ids.group("dev"))
                ev.exception_type = ev.exception_type or (
                    f"the failed task: device {ids.group('dev')}, stream "
                    f"{ids.group('stream')}, task {ids.group('task')}"
                )
            elif (fault := _search(_FAULT_IDS_RE, window[:TASK_IDS_LINES])) and str(
                code
            ) in " ".join(window[:TASK_IDS_LINES]):
                # a runner's own report of the device fault after the call, with the same code
                # ("device fault reported: device_id=4 stream_id=46 task_id=0" / "error_code=
                # 507018 ..."): its device
                ev.device = int(fault.group("dev"))
                ev.exception_type = ev.exception_type or (
                    f"the device fault: device {fault.group('dev')}, stream "
                    f"{fault.group('stream')}, task {fault.group('task')}"
                )
        if (
            call
            and "SetDevice" in call
            and (
                asked := _search(
                    _SET_DEVICE_RE, [t for _, t, _ in lines[index : index + SET_DEVICE_LINES]]
                )
            )
        ):
            # torch_npu's "Device:0" is the device current before the call; the one the call
            # could not open is the runtime's ("set device=2, valid device range is [0, 2)")
            ev.device = int(asked.group(1) or asked.group(2) or asked.group(3))
        if (
            call
            and "SetDevice" in call
            and (
                opened := _search(
                    _HAL_DEVICE_OPEN_RE, [t for _, t, _ in lines[index : index + SET_DEVICE_LINES]]
                )
            )
        ):
            # the driver's own refusal under the runtime's TraceBack: the device and why
            code_ = int(opened.group("ret"))
            name, meaning = DRV_ERRORS.get(code_, (None, "see the driver's drvError_t codes"))
            ev.device = int(opened.group("dev"))
            ev.exception_type = (
                f"the driver could not open device {opened.group('dev')} (halDeviceOpen: "
                f"drvRetCode {code_}{f' {name}' if name else ''}, {meaning})"
            )
        elif (
            ev.device is None
            and code == 507033
            and (
                opened2 := _search(
                    _OPEN_DEVICE_RE, [t for _, t, _ in lines[index : index + SET_DEVICE_LINES + 8]]
                )
            )
        ):
            # a device that failed to start (torch_npu's Initialize, 507033): the runtime's
            # TraceBack names the device it could not open, and the TSD client's failure above
            # it says what would not start ("TsdOpen failed. devId=0, tdt error=34", then "Start
            # aicpu executor failed")
            ev.device = int(opened2.group("dev"))
            if tsd := _search(
                _TSD_OPEN_RE, [t for _, t, _ in lines[index : index + SET_DEVICE_LINES + 8]]
            ):
                ev.exception_type = (
                    f"device {ev.device} did not start: its TSD client could not open it "
                    f"(TsdOpen failed, tdt error {tsd.group('err')}), so its AICPU executor "
                    "did not start"
                )
        elif ev.device is None and (
            rt := _search(_DEVICE_ID_RE, [t for t in window[:2] if "RUNTIME" in t])
        ):
            # the runtime's own ERROR line under the call names its device ("[ERROR] RUNTIME:
            # Failed to allocate device memory, device_id=0, size=10485760")
            ev.device = int(rt.group(1))
        if ev.pid is not None and (ev.pid, ev.code) in emitted:
            continue  # the same process's code again (its own TraceBack after torch_npu's line)
        if ev.pid is not None:
            emitted.add((ev.pid, ev.code))
        report.events.append(ev)


_NPU_CODE_WORDS_RE = re.compile(r"^\s*\[Error\]:\s*(?P<what>[^*\n]+?)[*\s]*$")


# EE1001 and the runtime's report of a SetDevice that failed: "Set device failed, invalid device,
# set device=2, valid device range is [0, 2)", "open device 2 failed, runtime result = 107001"
_SET_DEVICE_RE = re.compile(
    r"\bset device=(\d+)|\bopen device (\d+) failed"
    # the runtime's raw device (raw_device.cc InitRawDriver): "Failed to open device,
    # retCode=0x7020014, deviceId=0."
    r"|\bFailed to open device, retCode=0x[0-9a-fA-F]+, deviceId=(\d+)"
)
SET_DEVICE_LINES = 12
"""How far under a failed SetDevice the runtime's own report of the device may stand."""
# the runtime's TraceBack line of the driver refusing to open a device (runtime npu_driver.cc
# DeviceOpen: "[drv api] halDeviceOpen failed. device_id=1, drvRetCode=7.")
_HAL_DEVICE_OPEN_RE = re.compile(
    r"halDeviceOpen failed\. device_id=(?P<dev>\d+), drvRetCode=(?P<ret>\d+)"
)


# torch_npu's own error line (formatErrorCode): "[ERROR] 2026-09-06-16:14:16 (PID:3938695,
# Device:1, RankID:-1) ERR99999 UNKNOWN applicaiton exception" — ERR, a two-digit sub-module
# and a three-digit ErrCode (100 ACL, 200 HCCL, 300 GE, 999 application exception).
_TORCH_NPU_ERROR_RE = re.compile(
    r"\(PID:(?P<pid>\d+), Device:(?P<dev>-?\d+), RankID:(?P<rank>-?\d+)\) "
    r"(?P<code>ERR\d{5}) (?P<what>.+)$"
)
TORCH_NPU_WINDOW_LINES = 3
"""How close another event's line may stand to a torch_npu ERR line and explain it already."""
CODE_BLOCK_LINES = 7
"""How far under a CANN code line the lines its block reads (its reason, TraceBack, and
torch_npu's ERR line with the same process) may stand."""


_PY_EXCEPTION_RE = re.compile(r"^\s*(?:[\w.]+\.)?\w*(?:Error|Exception): \S.*$")
# Megatron's check of a rank's gradient norm before the data-parallel reduction (megatron/core/
# distributed: "Rank 13: found NaN in local grad norm in backward pass before data-parallel
# communication collective. Device: 5, node: node-15-11")
_GRAD_NORM_NAN_RE = re.compile(
    r"\bRank (?P<rank>\d+): found NaN in local grad norm\b(?:.*?\bDevice: (?P<dev>\d+), node: (?P<node>\S+?)\.?$)?"
)
_NAKED_EXCEPTION_RE = re.compile(r"^(?:[\w.]+\.)?\w*(?:Error|Exception)\s*$")
"""An exception line with no message at all ("AssertionError" under a failed assert)."""
_BARE_EXCEPTION_RE = re.compile(r"^(?:[\w.]+\.)?\w+(?:Error|Exception):\s*$")
"""An exception line whose text is on the lines under it (at the line's start, right under the
last frame: a traceback's end)."""
_ENDING_EXCEPTION_RE = re.compile(
    r"^\s*(?:[\w.]+\.)?(?P<name>\w*(?:Error|Exception)|KeyboardInterrupt|SystemExit"
    r"|ChildFailedError)(?::\s*\S.*|:?\s*)$"
)
"""The line a traceback ends in, its text or none (``KeyboardInterrupt``, ``ChildFailedError: ``)."""
TRACEBACK_HEADING = "Traceback (most recent call last):"
TRACEBACK_LINES = 400
"""How far after a traceback's heading its exception line is looked for."""
_FRAME_RE = re.compile(r'^\s*File "[^"]+", line \d+, in \S+')
_DOTTED_EXCEPTION_RE = re.compile(r"^(?:[A-Za-z_]\w*\.)+[A-Z]\w*: \S.*$")
"""An exception whose class name says nothing of an error (``etcd.EtcdKeyNotFound: ...``),
taken only right under a traceback's code line."""
HEADLESS_FRAME_LINES = 3
"""How far above an exception line a frame must stand for a traceback cut above its heading."""


_DIST_CALL_RE = re.compile(
    r"\b(?:dist|torch\.distributed)\.(?P<op>all_reduce|all_gather(?:_into_tensor|_object)?|"
    r"reduce_scatter(?:_tensor)?|all_to_all(?:_single)?|broadcast(?:_object_list)?|barrier|"
    r"monitored_barrier|reduce|gather|scatter|send|recv|isend|irecv|init_process_group|new_group)\("
)
"""A collective (or the group set-up) the program's own code line calls (``dist.all_reduce(data,
...)``; not ``dist.get_rank()``)."""
_ABORTED_RE = re.compile(
    r"NCCL INFO comm 0x[0-9a-f]+ rank (?P<rank>\d+) nranks (?P<n>\d+) .*- Abort COMPLETE"
)


# NCCL's own words for its last WARN, as torch prints them under "Last error:" (socket.cc's "Net
# : Call to recv from HOST<port> failed : Connection refused", "socketProgress: Connection closed
# by remote peer ...", "NET/IB : ..."): a copy that kept the label and its line, not the error
# line above them, still says what NCCL last failed at.
_NCCL_LAST_WARN_RE = re.compile(
    r"^(?:Net : |NET/\w+ ?: |socket\w*: |Call to \w+ failed|Cuda failure |\w+\.cc:\d+ "
    r"|Error while (?:creating|attaching to) shared memory segment |Failed to CUDA calloc )"
)


def _orphan_last_error(lines: list[tuple[int, str, int | None]]) -> LogEvent | None:
    """A ``Last error:`` label whose line under it is NCCL's WARN text, with no error line of
    torch's read above it (an ``nccl_warning``); None when the text has none."""
    for index, (_, line, _) in enumerate(lines[:-1]):
        label = _LAST_ERROR_LABEL_RE.match(line.strip())
        if label is None:
            continue
        no, after, tagged = lines[index + 1]
        if tagged != lines[index][2]:
            continue  # another rank's line under this rank's label
        host = label.group("host")
        text = after.strip()
        if host:
            # pdsh's "node2: " before both lines: the node the message came from
            if not text.startswith(f"{host}: "):
                continue
            text = text[len(host) + 2 :]
        if _NCCL_LAST_WARN_RE.match(text):
            return LogEvent(
                kind="nccl_warning",
                line=no,
                message=text[:300],
                rank=tagged,
                host=host,
                library="NCCL",
                exception_type="NCCL's last error (the error line above it is not in the copy)",
            )
    return None


_LAST_ERROR_LABEL_RE = re.compile(r"^(?:(?P<host>[\w.-]+): )?Last error:$")


def cut_traceback(lines: list[tuple[int, str, int | None]]) -> LogEvent | None:
    """A Python traceback the copy ends inside, before its exception (the text's last lines are
    its frames): the process raised there, what it raised is not in the copy. Its last frame and
    the collective a frame's code calls are read, and the ranks whose NCCL communicators NCCL
    says it aborted, if the log says so; None when the text ends elsewhere."""
    heading = next(
        (i for i in range(len(lines) - 1, -1, -1) if TRACEBACK_HEADING in lines[i][1]), None
    )
    headless = heading is None
    if heading is None:
        # a copy that starts inside the frames too (a rank's "[rank8]:   File ..." lines, from
        # the middle of a traceback to before its exception): the whole text is the frames
        if not lines or not any(_FRAME_RE.search(t) for _, t, _ in lines[:3]):
            return None
        heading = -1
    after = [t for t in lines[heading + 1 :] if t[1].strip()]
    if not after or not all(
        _FRAME_RE.search(t)
        or t.startswith(("    ", "\t"))
        or "]:     " in t
        or "]:   File" in t
        or t.lstrip().startswith('File "')  # (a frame line the copy cut short)
        for _, t, _ in after
    ):
        return None
    frames = [t for _, t, _ in after if _FRAME_RE.search(t)]
    if not frames:
        return None
    no, _, tagged = lines[max(heading, 0)]
    op = next(
        (m.group("op") for _, t, _ in reversed(after) if (m := _DIST_CALL_RE.search(t))), None
    )
    last = frames[-1].strip()
    last = last[last.find("File ") :]
    aborted = sorted({int(m.group("rank")) for _, t, _ in lines if (m := _ABORTED_RE.search(t))})
    told = (
        "the copy starts and ends inside a traceback's frames, its exception not in it"
        if headless
        else "the copy ends inside a traceback, before its exception"
    ) + f" (last frame: {last})"
    if aborted:
        told += f"; NCCL aborted the communicators of rank(s) {', '.join(map(str, aborted))}"
    return LogEvent(
        kind="python_exception",
        line=no,
        message=told[:300],
        rank=tagged,
        op=op,
        exception_type="unknown (cut before the exception)",
        library="torch.distributed" if op else None,
        call=f"dist.{op}()" if op else None,
    )


_LONE_EXCEPTION_RE = re.compile(r"^(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception):\s+\S.*$")
_CODED_MESSAGE_RE = re.compile(r"\berror code is\s*:?\s*\d{3,}")
# a Python exception printed with its module's path ("tensorflow.python.framework.errors_impl.
# UnavailableError: Socket closed"): Python's own form of an uncaught exception's last line,
# whatever its message says
_MODULE_EXCEPTION_RE = re.compile(r"^(?:[a-z_]\w*\.)+[A-Z]\w*(?:Error|Exception): \S")
LONE_EXCEPTION_REST_LINES = 2
"""How many lines a lone exception whose message ends in a colon may go on over."""


def lone_exception(lines: list[tuple[int, str, int | None]]) -> LogEvent | None:
    """An exception copied without its traceback, as the text's first line ("RuntimeError:
    Failed to import transformers.data.data_collator because of the following error (look up to
    see its traceback):" and the error on the next line); None otherwise."""
    text = [(no, t, tag) for no, t, tag in lines if t.strip()]
    if not text or any(TRACEBACK_HEADING in t for _, t, _ in text):
        return None
    no, first, tagged = text[0]
    said = first.strip()
    # (a module's path before the class, or a message that gives an error code: Paddle's
    # "ExternalError:  ACL error, the error code is : 500002.  (at .../npu_op_runner.cc:626)")
    dotted = _MODULE_EXCEPTION_RE.match(said) is not None or bool(_CODED_MESSAGE_RE.search(said))
    if not _LONE_EXCEPTION_RE.match(said) or (
        not dotted and (not said.endswith(":") or len(text) < 2)
    ):
        return None  # (a message that points below it, to the error it wraps, and that error)
    said += " " + " ".join(t.strip() for _, t, _ in text[1 : 1 + LONE_EXCEPTION_REST_LINES])
    return LogEvent(
        kind="python_exception",
        line=no,
        message=said[:300],
        rank=tagged,
        exception_type=said.split(":", 1)[0].rsplit(".", 1)[-1],
    )


# Ray's ActorDiedError names the actor under its first line ("\tclass_name: ...", "\tpid:
# 5226", "\tip: 10.7.34.138"), then why its worker ended: "Worker exit type: SYSTEM_ERROR" (Ray's
# worker states: SYSTEM_ERROR a system-level failure, the worker crashed or was killed;
# USER_ERROR an exception of the actor's own; NODE_OUT_OF_MEMORY Ray's memory monitor killed it)
_RAY_ACTOR_INFO_RE = re.compile(r"^\s*(?P<key>class_name|pid|ip): (?P<value>\S+)\s*$")
_RAY_EXIT_TYPE_RE = re.compile(
    r"Worker exit type: (?P<type>[A-Z_]+)|(?P<node>The actor is dead because its node has died)"
)
_DS_SSH_CHECK_RE = re.compile(
    r"Command 'ssh -o PasswordAuthentication=no (?P<host>\S+) hostname' returned non-zero exit "
    r"status (?P<status>\d+)"
)
RAY_ACTOR_LINES = 12


def _ray_actor_died(lines: list[tuple[int, str, int | None]], ev: LogEvent) -> None:
    """The dead actor's class, process and node, and why its worker ended, given to the event."""
    start = bisect.bisect_left(lines, (ev.line,))
    fields: dict[str, str] = {}
    exit_type = None
    for _, t, _ in lines[start + 1 : start + 1 + RAY_ACTOR_LINES]:
        if (f := _RAY_ACTOR_INFO_RE.match(t)) is not None:
            fields.setdefault(f.group("key"), f.group("value"))
        elif (x := _RAY_EXIT_TYPE_RE.search(t)) is not None:
            exit_type = x.group("type") or "NODE_DIED"
            break
    if fields.get("pid", "").isdigit():
        ev.pid = int(fields["pid"])
    if "ip" in fields:
        ev.host = fields["ip"]
    said = [f"actor {fields['class_name']}" if "class_name" in fields else "an actor"]
    if "pid" in fields or "ip" in fields:
        said.append(f"pid {fields.get('pid', '?')} on {fields.get('ip', '?')}")
    if exit_type:
        said.append(
            f"its worker exited with {exit_type}"
            + {
                "SYSTEM_ERROR": " (the process crashed or was killed: its node's log and dmesg "
                "say why, not the actor's code)",
                "NODE_OUT_OF_MEMORY": " (Ray's memory monitor killed it: the node ran out of "
                "memory)",
                "USER_ERROR": " (an exception of the actor's own)",
            }.get(exit_type, "")
            if exit_type != "NODE_DIED"
            else "its node died (the host, its raylet, or its network: that node's own logs say "
            "why)"
        )
    ev.exception_type = f"{ev.exception_type}: {', '.join(said)}"


def python_exception(lines: list[tuple[int, str, int | None]]) -> LogEvent | None:
    """The exception the first Python traceback that names one ends in (its last frame's
    ``Error:`` / ``Exception:`` line), as an event; None when no traceback names its exception
    (a copy cut inside the frames)."""
    for index, (_, line, _) in enumerate(lines):
        if TRACEBACK_HEADING not in line:
            continue
        inside: str | None = None  # the last frame in torch.distributed's own code
        window = lines[index + 1 : index + 1 + TRACEBACK_LINES]
        if _LOGGER_PREFIX_RE.match(line):
            # a traceback logged line by line under a logger's prefix (vLLM's "ERROR 05-26
            # 03:28:51 [engine.py:448] "): read without it
            window = [(n, _LOGGER_PREFIX_RE.sub("", t, count=1), r) for n, t, r in window]
        for at, (no, after, tagged) in enumerate(window):
            if TRACEBACK_HEADING in after:
                break  # another traceback starts: this one's exception is not in the copy
            if (f := _DIST_FRAME_RE.search(after)) is not None:
                inside = f"{f.group('file')}, {f.group('func')}"
            m = _PY_EXCEPTION_RE.match(after)
            if (
                m is None
                and _BARE_EXCEPTION_RE.match(after)
                and at
                and (_FRAME_RE.match(window[at - 1][1]) or window[at - 1][1].startswith("    "))
            ):
                # an exception whose text starts on the next lines (accelerate's
                # "DistributedOperationException:", a blank line, then its message)
                said = [t.strip() for _, t, _ in window[at + 1 : at + 1 + 8] if t.strip()][:5]
                if said:
                    m = re.match(r".*", f"{after.strip()} {' '.join(said)}")
            # (Python 3.11+ marks the failing expression under its code line: "^^^^")
            code_at = at - 1
            while code_at > 0 and _POSITION_MARKS_RE.match(window[code_at][1]):
                code_at -= 1
            if (
                m is None
                and at
                and _NAKED_EXCEPTION_RE.match(after)
                and window[code_at][1].startswith("    ")
                and not _FRAME_RE.match(window[code_at][1])
                and not _POSITION_MARKS_RE.match(window[code_at][1])
            ):
                # an exception with no message ("    assert num_samples > 0" / "AssertionError"):
                # the code line that raised it says what failed
                m = re.match(
                    r".*",
                    f"{after.strip()}: (no message; raised by: {window[code_at][1].strip()})",
                )
            if m is not None:
                text = m.group(0).strip()
                nxt = window[at + 1][1].strip() if at + 1 < len(window) else ""
                if text[-1:].isalpha() and nxt[:1].islower() and not _FRAME_RE.match(nxt):
                    # (a copy that wrapped the message mid-word: "... collectie" / "ve. Device:
                    # 5, node: node-15-11")
                    text += nxt
                grad = _GRAD_NORM_NAN_RE.search(text)
                return LogEvent(
                    kind="python_exception",
                    line=no,
                    message=text[:300],
                    rank=int(grad.group("rank")) if grad else tagged,
                    device=int(grad.group("dev")) if grad and grad.group("dev") else None,
                    host=grad.group("node") if grad and grad.group("node") else None,
                    exception_type=text.split(":", 1)[0].rsplit(".", 1)[-1],
                    library="torch.distributed" if inside else None,
                    call=inside,
                )
    # a copy that cut the traceback's heading: an exception line right under its frames
    # ('  File "...", line 1268, in _new_process_group_helper' / '    raise RuntimeError(...)')
    for index, (no, line, tagged) in enumerate(lines):
        m = _PY_EXCEPTION_RE.match(line)
        if m is None and index > 0 and lines[index - 1][1].startswith("    "):
            # right under a frame's code line, any dotted exception class ("etcd.EtcdKeyNotFound:
            # Key not found : /torchelastic/...")
            m = _DOTTED_EXCEPTION_RE.match(line)
        if m is None:
            continue
        above = [t for _, t, _ in lines[max(0, index - HEADLESS_FRAME_LINES) : index]]
        # (Python 3.11+ marks a frame's failing expression with a line of "~" and "^" under its
        # code: a copy cut above the frames may keep only that)
        if not any(_FRAME_RE.match(t) or _POSITION_MARKS_RE.match(t) for t in above):
            continue
        inside = None
        for t in reversed(lines[max(0, index - TRACEBACK_LINES) : index]):
            if not (_FRAME_RE.match(t[1]) or t[1].startswith("    ")):
                break  # the frames end above here
            if inside is None and (f := _DIST_FRAME_RE.search(t[1])) is not None:
                inside = f"{f.group('file')}, {f.group('func')}"
        text = m.group(0).strip()
        if inside is None and "/torchelastic/" in text:
            # torch elastic's etcd rendezvous keys ("/torchelastic/p2p/run_<id>/rdzv/...")
            inside = "torch/distributed/elastic, etcd rendezvous"
        return LogEvent(
            kind="python_exception",
            line=no,
            message=text[:300],
            rank=tagged,
            exception_type=text.split(":", 1)[0].rsplit(".", 1)[-1],
            library="torch.distributed" if inside else None,
            call=inside,
        )
    chain: list[tuple[int, str, int | None, re.Match[str]]] = []
    for no, line, tagged in lines:
        # a Ray task's exception as the driver receives it, the remote traceback under it:
        # "ray.exceptions.RayTaskError(OutOfMemoryError): ray::DTensorPolicyWorkerV2.get_logprobs()
        # (pid=2671339, ip=10.65.16.209, actor_id=..., repr=DTensorPolicyWorkerV2[rank=0])"; a
        # task that got it from another task prints that one's heading under its own frames:
        # the last heading of the chain is the task that raised it
        if "RayTaskError(" in line and (rt := _RAY_TASK_ERROR_RE.search(line)):
            if chain and (
                no - chain[-1][0] > TRACEBACK_LINES
                or not all(
                    not t.strip() or t.startswith(" ") or _FRAME_RE.match(t)
                    for n, t, _ in lines
                    if chain[-1][0] < n < no
                )
            ):
                # another error's, later in the file (a chained heading stands right under the
                # outer task's frames; a log line between starts another report)
                break
            chain.append((no, line, tagged, rt))
    if chain:
        no, line, tagged, rt = chain[-1]
        inner = rt.group("inner").rsplit(".", 1)[-1]
        via = [f"ray::{r.group('task')}()" for _, _, _, r in chain[:-1]]
        return LogEvent(
            kind="python_exception",
            line=no,
            message=line.strip()[:300],
            rank=int(rt.group("rank")) if rt.group("rank") else tagged,
            exception_type=inner,
            # (torch's DistError classes, c10/util/Exception.h: DistBackendError,
            # DistNetworkError, DistStoreError: a process group's backend, its network or its
            # store failed)
            library="torch.distributed" if inner in _TORCH_DIST_ERRORS else None,
            call=f"ray::{rt.group('task')}"
            + (f" (the driver got it through {', '.join(via)})" if via else ""),
            pid=int(rt.group("pid")) if rt.group("pid") else None,
            host=rt.group("ip"),
        )
    for no, line, tagged in lines:
        # no traceback named an exception: Python's fault handler on a crash ("Fatal Python
        # error: Segmentation fault", then the threads' stacks)
        if line.startswith(FATAL_PYTHON):
            return LogEvent(
                kind="python_exception",
                line=no,
                message=line.strip()[:300],
                rank=tagged,
                exception_type="Fatal Python error",
            )
    return None


_TORCH_DIST_ERRORS = frozenset(
    {"DistError", "DistBackendError", "DistNetworkError", "DistStoreError"}
)
FATAL_PYTHON = "Fatal Python error: "
_LOGGER_PREFIX_RE = re.compile(
    # vLLM's logger (its "%(levelname)s %(asctime)s [%(filename)s:%(lineno)d] " format; older
    # releases without the brackets' opening one), after a worker's "(VllmWorkerProcess pid=N) "
    r"^(?:\([\w.]+ pid=\d+[^)\n]*\) )?(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d\d-\d\d "
    r"\d\d:\d\d:\d\d(?:\.\d+)? \[?[\w.-]+:\d+\] ?"
)


def _ray_task_above(
    line_no: int, tasks: list[tuple[int, re.Match[str]]], by_no: dict[int, str]
) -> re.Match[str] | None:
    """The nearest RayTaskError heading above ``line_no`` that names a pid and node, where no
    other traceback starts between them (the innermost task of a chain is the one that raised)."""
    above = [(no, rt) for no, rt in tasks if no < line_no and line_no - no <= TRACEBACK_LINES]
    if not above:
        return None
    no, rt = above[-1]
    if rt.group("ip") is None or rt.group("pid") is None:
        return None
    # (only the heading's own traceback: its frames, their code lines indented, then the line)
    for n in range(no + 1, line_no):
        between = by_no.get(n, "")
        if between.strip() and not (_FRAME_RE.match(between) or between.startswith(" ")):
            return None
    return rt


_POSITION_MARKS_RE = re.compile(r"^\s*~*\^+[~^]*\s*$")
_RAY_TASK_ERROR_RE = re.compile(
    r"RayTaskError\((?P<inner>[\w.]+)\): ray::(?P<task>[\w.]+)\(\)"
    r"(?: \(pid=(?P<pid>\d+)(?:, ip=(?P<ip>[\w.:-]+))?[^)\n]*?(?:\[rank=(?P<rank>\d+)\])?\))?"
)

# A program's log line: a date and time, glog's level and date ("I1203 08:00:00"), or a logger's
# level word near the line's start ("[INFO]", "INFO 12-03", "- WARNING -"), after a launcher's
# tag if there is one.
_LOG_LINE_RE = re.compile(
    r"^.{0,40}?(?:\d{4}[-/]\d{2}[-/]\d{2}[-_ T]\d{2}:\d{2}:\d{2}|\d{2}:\d{2}:\d{2}[.,]\d)"
    # syslog's and journalctl's "Feb 16 19:30:06 host unit[pid]: ..."
    r"|^[A-Z][a-z]{2} +\d{1,2} \d{2}:\d{2}:\d{2} \S+ [\w.@/-]+(?:\[\d+\])?: "
    # (with the facility and level before the program: "May  8 17:24:32 (none) kern.warn kernel:")
    r"|^[A-Z][a-z]{2} +\d{1,2} \d{2}:\d{2}:\d{2} \S+ [a-z]+\.[a-z]+ [\w.@/-]+(?:\[\d+\])?: "
    # glog's "E0724 03:14:20.707079", with the year in newer releases: "E20260106 06:43:02.96"
    r"|^.{0,40}?\b[IWEF](?:\d{4}|\d{8}) \d{2}:\d{2}:\d{2}"
    # detectron2-style loggers (LiBai's, fvcore's): "[09/10 10:40:56 lb.utils.events]: ..."
    r"|^.{0,20}?\[\d{2}/\d{2} \d{2}:\d{2}:\d{2} [\w.-]+\]: "
    r"|^.{0,60}?\b(?:INFO|WARN(?:ING)?|DEBUG|ERROR|CRITICAL|FATAL|TRACE)\b"
    r"|^.{0,60}?\[(?:info|warn(?:ing)?|debug|error|critical|fatal|trace)\]"
    # ggml's and llama.cpp's: the C function's name first ("llama_model_loader: loaded meta
    # data ...", "whisper_init_with_params_no_state: devices    = 2": LOG_INF("%s: ...", __func__))
    # (their own functions' prefixes only: a config's "batch_size: 32" is no log line)
    r"|^\W{0,3}(?:llama|llm|ggml|gguf|whisper|clip|load)_[a-z0-9_]+: \S"
    # the kernel's ring buffer as dmesg prints it: "[ 2081.843939] [ascend] [devmm] ..."
    r"|^\[\s*\d+\.\d{6}\] "
    # Paddle-Lite's: "[W  1/ 2  7:47:58.861 .../utility.cc:57 InitializeAscendCL] ..."
    r"|^.{0,40}?\[[IWEF]\s+\d+/\s*\d+\s+\d+:\d\d:\d\d\.\d+ "
    # older torch's c10d lines, glog's level with no time: "[I ProcessGroupWrapper.cpp:562] ..."
    r"|^.{0,40}?\[I [\w.]+\.(?:cpp|cc|h|hpp):\d+\] "
    # libfabric's (FI_LOG_LEVEL): "libfabric:72089:ofi_mrail:fabric:mrail_get_core_info():277<warn>"
    r"|^libfabric:\d+:(?:\d+:)?[\w;]+:\w+:\w+\(\):\d+<\w+> "
    # dmlc's LOG and CHECK lines (ps-lite, MXNet): "[22:31:52] src/./fabric_rma_van.h:659: ..."
    r"|^\[\d{2}:\d{2}:\d{2}\] [\w./-]+:\d+: "
    # (and the stack trace dmlc prints under a failed CHECK: "[bt] (0) tests/app() [0x40879b]")
    r"|^\[bt\] \(\d+\) "
)
# a training script's own progress print, its counter and its loss ("epoch 1  step 276  loss
# 0.0274 - time per batch 19.28"; the ImageNet example's ProgressMeter, "[gpu id: 0 ] Test:
# [77/85]  Time 0.117 ( 0.281)  Loss 1.073741e+01 ..."): a program's log written with no logger
_PROGRESS_LINE_RE = re.compile(
    r"^.{0,40}?\b(?:[Ee]poch|[Ss]tep|[Ii]ter(?:ation)?|Test|Train)\b.{0,80}?\b[Ll]oss\b[ \t:=]{0,4}-?\d"
)
MIN_PROGRESS_LINES = 5
"""How many progress lines (with no logger's) make a program's log: two lines of "epoch 1 loss
2.3" are too few to tell from any other text."""
LOG_LOOK_LINES = 300
"""How many of a file's first non-blank lines are looked at to tell a program's log."""
MIN_LOG_LINES = 2


GLOG_FATAL_RE = re.compile(r"^\W{0,4}F\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+ [\w./-]+:\d+\] ", re.M)
"""glog's FATAL line ("F0228 07:57:06.699025       1 main.go:133] load config failed, ..."): the
program stopped there, a log's error even among other tools' outputs."""


HWLOG_ERROR_RE = re.compile(
    r"^\[ERROR\]\s+\d{4}/\d\d/\d\d \d\d:\d\d:\d\d\.\d+\s+\d+\s+[\w/.-]+\.go:\d+\s+\S", re.M
)
"""MindCluster's components' log (their hwlog: "[ERROR]    2024/01/10 02:29:39.034681 60
collector/npu_collector.go:1924    deviceManager init failed, ..."): an ERROR line of one of them
(npu-exporter, the device plugin, ClusterD) is its failure even alone in a copy."""


# (the percentage starts a number: from each digit of a long run the rest would be rescanned)
_PROGRESS_BAR_RE = re.compile(r"(?<!\d)\d+%\s*(?:Completed\s*)?\|[^|\n]*\|?\s*\d+/\d+ \[")


FRAGMENT_MIN_CHARS = 40
"""The least a lone error line says for it to be quoted (a heading such as NCCL's "Last error:"
says nothing by itself)."""


def is_error_fragment(text: str) -> bool:
    """Whether ``text`` is one line copied out of a program's output that says something
    failed in words any program uses ("... execute failed, reason=[context pointer
    null]"): its error line is quoted as written, as a program's log's would be."""
    if "\n" in text.strip() or len(text) > 4000 or len(text.strip()) < FRAGMENT_MIN_CHARS:
        return False
    line = next(line for line in text.splitlines() if line.strip())  # (as written)
    return first_error_line([(1, line, None)]) is not None


SHORT_PASTE_LINES = 60
"""The most non-blank lines a pasted output of an unknown program may have for its first error
line to be quoted (a longer one, with no logger's marks, may be any tool's table)."""
# a line that says, in a program's own words, that what it did failed: "Failed to modify QP to
# RTR: Connection timed out", "error: ...", "FATAL: ...", behind at most two "prog:"-like words
# (a level word with nothing after it, a config's "log_level: ERROR", says no failure)
_PLAIN_FAILURE_RE = re.compile(
    r"^\W{0,3}(?:[\w.\-/\[\]]+:\s*){0,2}(?:[Ff]ailed to \w|[Ee]rror:\s*\S"
    r"|(?:ERROR|FATAL)\b[:\]]?\s+\S|[Ff]atal:\s*\S)"
)
# a later line of the same paste that says the run went through ("Successfully installed ...",
# pip's after its resolver's ERROR notice): no failure paste
_PASTE_SUCCESS_RE = re.compile(
    r"^\s*(?:Successfully (?:installed|built|completed)\b|PASSED\b)", re.M
)


def is_short_error_paste(text: str) -> bool:
    """Whether ``text`` is a short paste of an unknown program's output (at most
    ``SHORT_PASTE_LINES`` lines, with no logger's marks) whose first error line says in plain
    words that something failed: that line is quoted as written, as a program's log's would be."""
    lines: list[tuple[int, str, int | None]] = [
        (no, line, None) for no, line in enumerate(text.splitlines(), 1) if line.strip()
    ]
    if not 2 <= len(lines) <= SHORT_PASTE_LINES or len(text) > SHORT_PASTE_LINES * 400:
        return False
    error = first_error_line(lines)
    return (
        error is not None
        and bool(_PLAIN_FAILURE_RE.match(text.splitlines()[error.line - 1]))
        and not _PASTE_SUCCESS_RE.search(text)
    )


def is_program_log(text: str) -> bool:
    """Whether ``text`` is a program's log: at least half of its first non-blank lines (and at
    least ``MIN_LOG_LINES``) carry a timestamp or a logger's level. Tables and tool outputs
    (ibstat, rocm-smi, ucx_info) do not."""
    head = [
        line
        for line in text[: LOG_LOOK_LINES * 400].splitlines()
        # (a progress bar's redrawn lines, tqdm's "  3% Completed | 1/32 [00:00<00:13, 2.34it/s]",
        # are the program's too, written with no logger)
        if line.strip() and not _PROGRESS_BAR_RE.search(line)
    ]
    head = head[:LOG_LOOK_LINES]
    # (Python's warnings module writes its own lines, "path.py:247: RuntimeWarning: ..." and the
    # source line under it, "  warnings.warn(msg, RuntimeWarning)": a program's too)
    logged = sum(1 for line in head if _LOG_LINE_RE.match(line) or _PY_WARNING_LINE_RE.match(line))
    if len(head) <= WRAPPED_LINE_PARTS and head and _ONE_LINE_LOG_RE.match(head[0]):
        # one line with a logger's level and a time on it, the rest of the copy its own
        # continuation (a long line a page wrapped): a log cut to that line
        if len(head) == 1 or (
            not any(_LOG_LINE_RE.match(line) for line in head[1:])
            and all(not line.startswith((" ", "\t", "|", "+", "#")) for line in head[1:])
        ):
            return True
    if "srun: job " in text and _SRUN_ALLOCATED_RE.search(text):
        return True  # a job's output under Slurm's srun (its own words of the allocation)
    if ("error: " in text or "*** [" in text) and _COMPILER_ERROR_RE.search(text):
        return True  # a build's output: the compiler's first error is its failure
    if "Exception raised from " in text and _C10_RAISED_RE.search(text):
        return True  # torch's C++ error (c10::Error) with its frames: the line above is its text
    if len(head) >= FIRST_LOGGED_LINES and all(
        _LOG_LINE_RE.match(line) for line in head[:FIRST_LOGGED_LINES]
    ):
        return True  # a log whose start is the logger's, a report or table printed after it
    if logged >= FIRST_LOGGED_LINES:
        # a program that printed its configuration first (torchtune's YAML, a Hydra config),
        # then its logger's lines: half of the lines from the logger's first on are its
        first = next(
            i
            for i, line in enumerate(head)
            if _LOG_LINE_RE.match(line) or _PY_WARNING_LINE_RE.match(line)
        )
        if logged * 2 >= len(head) - first:
            return True
    progress = sum(
        1 for line in head if _PROGRESS_LINE_RE.match(line) and not _LOG_LINE_RE.match(line)
    )
    if progress >= MIN_PROGRESS_LINES:
        logged += progress
    return logged >= MIN_LOG_LINES and logged * 2 >= len(head)


# torch's C++ exception as its log prints it (c10/util/Exception.cpp): the message, then
# "Exception raised from OperationSetup at .../compiler_depend.ts:129 (most recent call first):"
# and "frame #0: ..." lines
_C10_RAISED_RE = re.compile(
    r"^Exception raised from \S+ at \S+:\d+ \(most recent call first\):", re.M
)
_PY_WARNING_LINE_RE = re.compile(r"^\S+\.py:\d+: [A-Z]\w*Warning: \S|^\s+warnings\.warn\(")
FIRST_LOGGED_LINES = 5
"""How many first non-blank lines, each a logger's, make a file a program's log whatever follows
them (a benchmark's report after its start-up lines)."""
# GCC's and Clang's diagnostic of a source file ("hccl_test_common.cc:796:23: error: 'X' was not
# declared in this scope")
_COMPILER_ERROR_RE = re.compile(
    r"^\S+?\.(?:c|cc|cpp|cxx|h|hh|hpp|cu|cuh):\d+:\d+: (?:fatal )?error: "
    # (a build that failed at its link: GCC's driver after the linker, make's own line)
    r"|^collect2: error: ld returned \d+ exit status|^make(?:\[\d+\])?: \*\*\* \[[^\]\n]*\] Error \d+",
    re.M,
)
# srun's words while it waits for and gets the job's allocation (Slurm's srun: "srun: job 44605804
# queued and waiting for resources", "srun: job 44605804 has been allocated resources")
_SRUN_ALLOCATED_RE = re.compile(r"^srun: job \d+ has been allocated resources\s*$", re.M)
WRAPPED_LINE_PARTS = 3
"""How many pieces a page may wrap one long log line into and still be read as that one line."""
_ONE_LINE_LOG_RE = re.compile(
    r"^.{0,60}?\b(?:INFO|WARN(?:ING)?|DEBUG|ERROR|CRITICAL|FATAL)\b.{0,40}?\b\d{2}:\d{2}:\d{2}\b"
    r"|^.{0,40}?\b\d{2}:\d{2}:\d{2}\b.{0,40}?\b(?:INFO|WARN(?:ING)?|DEBUG|ERROR|CRITICAL|FATAL)\b"
)
"""A log line that carries both a logger's level and a time (vLLM's "(EngineCore_DP0 pid=299) INFO
12-15 11:45:09 [core.py:77] ...", "2024-05-01 10:00:00 INFO ..."): alone in a file, still a log."""


# A line that says something failed, in words any program uses: an exception's name, "error:",
# a crash, "failed", "timed out"; or only a logger's level (ERROR/FATAL, glog's E/F lines), which
# vLLM and others also put before each line of a traceback they log
_ERROR_WORDS_RE = re.compile(
    r"\b[A-Z]\w*(?:Error|Exception)\b(?::|$)|\b[Ee]rror:"
    r"|Segmentation fault|core dumped|\bKilled\b|[Oo]ut [Oo]f [Mm]emory"
    # the kernel's report of a process that crashed ("pt_main_thread[2536443]: segfault at
    # 7f797fe00000 ip ... error 4 in libnccl.so.2[...]")
    r"|\]: segfault at [0-9a-f]+ ip "
    # the kernel's machine check and EDAC reports ("mce: [Hardware Error]: Machine check events
    # logged", "EDAC MC1: 1 UE memory read error on ...": UE, an uncorrected error)
    r"|\[Hardware Error\]:|\bEDAC MC\d+: \d+ UE\b"
    # Paddle's (and other C++ programs') own traceback heading, its error summary below it
    r"|^C\+\+ Traceback \(most recent call last\):"
    r"|\b(?:[Ff]ailed|FAILED|[Ff]ailure)\b|\btimed out\b"
    # C++'s uncaught exception (libstdc++'s verbose terminate handler): "terminate called after
    # throwing an instance of 'paddle::platform::EnforceNotMet'" / "  what():  ..."
    r"|\bterminate called after throwing\b"
    # Ray Train's end of a run whose workers raised ("Training errored after 0 iterations at ...
    # Total running time: 1min 2s", its error file named after it)
    r"|\bTraining errored after \d+ iterations?\b"
    # the linker's own words of what it could not resolve (before collect2's "ld returned 1")
    r"|^\S*\bld(?:\.\w+)?: (?:cannot find -l|.*undefined reference to )"
    # a message that ends in what went wrong ("... retry_cnt: 0): local protection error")
    r"|\b[Ee]rror\s*$"
)
_ERROR_LEVEL_RE = re.compile(
    # (spdlog's and ATB's lower-case level in brackets: "[2025-12-08 11:52:44.735471] [error] ...")
    r"\b(?:ERROR|FATAL|CRITICAL)\b|level=(?:error|fatal)\b|\[(?:error|fatal|critical)\]"
    r"|^(?:\S+\s+)?[EF](?:\d{4}|\d{8}) \d{2}:\d{2}:\d{2}"
)
# a line its logger marked below error (INFO, WARNING, glog's I/W, torch's "[W630 ..."): what it
# says failed did not stop the program ("Check input storage_offset ... failed")
_BELOW_ERROR_RE = re.compile(
    r"^.{0,60}?(?:\b(?:INFO|WARN(?:ING)?|DEBUG|TRACE|NOTICE)\b|\[?\b[IW](?:\d{3,4}|\d{8}) \d{2}:\d{2}:\d{2}"
    # (hccl_test's own logger, lower case: "[warning][PID:109016][TID:...]")
    r"|\[(?:warning|info|debug)\]\[PID:\d)"
    # (libfabric's levels after its function: "...fi_getinfo_():889<warn> ...")
    r"|^libfabric:[^<\n]{0,160}<(?:warn|info|debug|trace)> "
)
# a line whose logger's level, first on it, is an error one: a "WARNING" in its text is what it
# says happened ("ERROR [1514002:1514004] [[Health]] Detected a WARNING in health system
# Thermal: ...", DCGM's host engine), not its level
_ERROR_LEVEL_FIRST_RE = re.compile(r"^\W{0,3}(?:ERROR|FATAL|CRITICAL)\b")
# words that look like an error and are not one: counts of none, the names of settings
_NOT_ERROR_RE = re.compile(
    # (not a device's or rank's number before the word: "acl set device 0 failed")
    r"(?<!device )(?<!rank )(?<!card )(?<!node )(?<![GN]PU )(?<!chip )\b0 (?:errors?|failed|failures?)\b"
    # (glog's CHECK names its condition after "Check failed: ": "Check failed: 0 Unknown ...")
    r"|(?<!Check )\b(?:errors?|failed|failures?)\W{0,3}0\b"
    # a report's count of none ("Failed requests:                         0", vLLM's bench)
    r"|\b[Ff]ailed [A-Za-z ]{1,30}:\s*0(?![\d.])"
    r"|\bno errors?\b|error[ _]handling|ignore_errors|\bon_error\b"
    # ggml's scheduler's debug note before it reserves the graph's memory and allocates again
    # (ggml-backend.cpp ggml_backend_sched_alloc_splits: GGML_LOG_DEBUG, NDEBUG builds print none)
    r"|failed to allocate graph, reserving|cannot reallocate multi buffer graph automatically"
    # the kernel loading an unsigned module where signatures are not enforced (it taints the
    # kernel and goes on: the NVIDIA and Ascend drivers built out of tree)
    r"|module verification failed: signature and/or required key missing",
    re.IGNORECASE,
)
# a line a logger marked below error that says an exception is being raised (Paddle's
# interpreter: "W0325 ... pd_op.sum_grad raises an EnforceNotMet exception ..."): the program
# stops on it, whatever its level
_RAISES_RE = re.compile(
    r"\braises? an? \w*(?:Exception|Error|NotMet)\b exception|\braises an? \w+(?:Exception|Error)\b"
)
ERROR_WORDS_AFTER_LEVEL = 200
"""How far after a line that is an error only by its level a line whose words say what failed
is looked for (the exception a logged traceback ends in)."""
ERROR_PAIR_LINES = 2
"""How close under an ERROR line of its own words (no traceback's part) the line whose words say
what failed may stand for both to be quoted as one error."""
# a logged traceback's lines, which a logger's ERROR level leads one by one (vLLM's workers)
_TRACEBACK_PART_RE = re.compile(r"Traceback \(most recent|File \"|^\W*$|\b(?:ERROR|CRITICAL)\b\W*$")


# a warning of versions that do not match ("CANN version mismatch. The build version is 0.0.0,
# but the current environment version is 5.1.2."): no error, but what an ops engineer checks first
# (with the version between, as MindSpore's run_check warns at import, mindspore-ai/mindspore
# mindspore/python/mindspore/run_check/_check_version.py AscendEnvChecker: "MindSpore version
# 2.3.1 and Ascend AI software package (Ascend Data Center Solution)version 7.5 does not match,
# the version of software package expect one of ['7.2', '7.3']", then the same of its "te" and
# "hccl" wheels, and a countdown; the program goes on)
_MISMATCH_WARNING_RE = re.compile(
    r"\bversions? (?:[\w.]{1,20} )?(?:mismatch|do(?:es)? not match|don't match)"
    r"|\bmismatch(?:ed)? versions?"
    r"|\bnot compatible with (?:the )?(?:installed|current)",
    re.IGNORECASE,
)
MISMATCH_WARNINGS_SAID = 3
"""How many different version-mismatch warnings before a program's error are quoted with it."""


CPER_RECORD_LINES = 12
"""How many lines a firmware error record (its "[Hardware Error]" lines) runs over at most."""


def _first_mismatch_warning(lines: list[tuple[int, str, int | None]]) -> ParseWarning | None:
    """A note of the first line below error level that warns of a version mismatch."""
    for no, line, _ in lines:
        if _MISMATCH_WARNING_RE.search(line):
            return ParseWarning(
                line=no,
                message=f"a warning of a version mismatch, as written: {line.strip()[:240]}",
                skipped=False,
            )
    return None


def _mismatch_warnings_before(
    lines: list[tuple[int, str, int | None]], error: LogEvent
) -> str | None:
    """The different version-mismatch warnings a program printed above its error line, each
    once (a check repeated at every import prints them again) with its first line: what the log
    itself named before it failed; None when it warned of none."""
    said: dict[str, int] = {}
    for no, line, _ in lines:
        if no >= error.line:
            break
        if (m := _MISMATCH_WARNING_RE.search(line)) is None:
            continue
        # (the words from the logger's last bracket before the match on, to the sentence's end:
        # its time and pid differ from round to round, the warning does not)
        words = line[line.rfind("] ", 0, m.start()) + 1 :].strip().split(". ", 1)[0]
        said.setdefault(words, no)
    if not said:
        return None
    shown = list(said.items())[:MISMATCH_WARNINGS_SAID]
    return (
        f"before it, {len(said)} warning(s) of a version mismatch: "
        + "; ".join(f"{w[:240]} (line {no})" for w, no in shown)
        + (" ..." if len(said) > len(shown) else "")
    )


# a structured logger's record, one JSON object a record, printed on one line or pretty-printed
# (structlog's and zap's JSON renderers; a pod's log piped through jq): its level under "level"
JSON_RECORD_LEVEL_RE = re.compile(
    r'^[ \t]*\{?[ \t]*"level"[ \t]*:[ \t]*"(?i:debug|info|warn|warning|error|fatal|critical|panic)"',
    re.M,
)
# a record's fields one a line, as a pretty-printed record a copy cut before its end keeps them
_RECORD_FIELD_RE = re.compile(
    r'^[ \t]*"(?P<key>\w+)"[ \t]*:[ \t]*(?P<value>"(?:[^"\\\n]|\\.)*"|-?\d+)', re.M
)
# a one-line record's fields from its opening brace on, each after the brace or a comma, as a
# record cut inside a value that runs over lines keeps them on its first line (soperator's
# gpubench, github.com/nebius/soperator/pull/296: '{"error":"exit status 3","level":"fatal",
# "msg":"Failed to execute all_reduce_perf","output":"' and the benchmark's output under it)
_RECORD_INLINE_FIELD_RE = re.compile(
    r'[{,][ \t]*"(?P<key>\w+)"[ \t]*:[ \t]*(?P<value>"(?:[^"\\\n]|\\.)*"|-?\d+)'
)
_RECORD_WORDS = ("event", "msg", "message")
"""Where a record says what happened."""
_RECORD_DETAIL = ("detail", "error", "err", "reason", "exception")
"""Where a record says why."""
_RECORD_ERROR_LEVELS = ("error", "fatal", "critical", "panic")


def _json_records(text: str) -> list[tuple[int, dict[str, Any]]]:
    """Each JSON object record starting a line of ``text`` with its 1-based line, in order."""
    decoder = json.JSONDecoder()
    records: list[tuple[int, dict[str, Any]]] = []
    at = 0
    for m in re.finditer(r"^[ \t]*\{", text, re.M):
        if m.start() < at:
            continue  # inside a record read already
        try:
            record, end = decoder.raw_decode(text, m.end() - 1)
        except (ValueError, RecursionError):
            if text.find("\n{", m.end()) >= 0 or text.find("\n}", m.end()) >= 0:
                continue  # (not JSON, and more text after it: no record)
            # the last record, cut by the copy: the fields it keeps on its first line, then one
            # a line
            record = _cut_record_head(text, m.end() - 1)
            record.update(
                (f.group("key"), json.loads(f.group("value")))
                for f in _RECORD_FIELD_RE.finditer(text, m.end())
            )
            end = len(text)
        if isinstance(record, dict) and isinstance(record.get("level"), str):
            records.append((text.count("\n", 0, m.start()) + 1, record))
        at = end
    return records


def _cut_record_head(text: str, brace: int) -> dict[str, Any]:
    """The whole fields on a cut record's first line, from its brace at ``brace`` up to the
    first that is not whole (the value the copy cut inside)."""
    line_end = text.find("\n", brace)
    line_end = len(text) if line_end < 0 else line_end
    fields: dict[str, Any] = {}
    at = brace
    while f := _RECORD_INLINE_FIELD_RE.match(text, at, line_end):
        try:
            fields[f.group("key")] = json.loads(f.group("value"))
        except ValueError:
            break
        at = f.end()
    return fields


def _json_records_read(text: str, report: LogReport) -> bool:
    """A structured log of JSON records: its first record at an error level (else the first
    warning) as a ``log_error`` with its words and detail, and a note of what the records count;
    False where the text holds none."""
    records = _json_records(text)
    if len(records) < 2:
        return False
    levels = Counter(str(r["level"]).lower() for _, r in records)
    errors = [(n, r) for n, r in records if str(r["level"]).lower() in _RECORD_ERROR_LEVELS]
    warned = [(n, r) for n, r in records if str(r["level"]).lower() in ("warn", "warning")]
    report.unread.append(
        ParseWarning(
            line=records[0][0],
            message=f"a structured log of {len(records)} JSON record(s): "
            + ", ".join(f"{count} {level}" for level, count in levels.items()),
            skipped=False,
        )
    )
    picked = errors or warned
    if not picked:
        return True  # (every record below warning level: a run that said nothing went wrong)
    no, record = picked[0]
    words = next((str(record[k]) for k in _RECORD_WORDS if record.get(k)), "")
    detail = next((str(record[k]) for k in _RECORD_DETAIL if record.get(k)), "")
    where = ", ".join(
        f"{k} {record[k]}"
        for k in ("gpu", "test", "error_code", "rank", "host", "node")
        if k in record
    )
    report.generic = True
    report.events.append(
        LogEvent(
            kind="log_error",
            line=no,
            message=(
                f"{record['level']}: {words}"
                + (f" ({where})" if where else "")
                + (f": {detail}" if detail else "")
            )[:300],
        )
    )
    return True


# a collective example's own prints (hicann/hccl's examples: "Found 8 NPU device(s) available",
# "rankId: 1, output: [ 0 0 0 ... ]"; its PyTorch example: "[Rank 0] Output: tensor([0., 8.,
# ...], device='npu:0')"): each rank's data after the collective, no line of HCCL's own
EXAMPLE_OUTPUT_RE = re.compile(
    r"^Found \d+ NPU device\(s\) available\s*$"
    r"|^rankId: \d+, (?:input|output): \["
    r"|^\[Rank \d+\] (?:Input|Output): tensor\(",
    re.M,
)
_EXAMPLE_RANK_RE = re.compile(r"^(?:rankId: (\d+), output:|\[Rank (\d+)\] Output:)")
_EXAMPLE_FOUND_RE = re.compile(r"^Found (\d+) NPU device\(s\) available")


def _example_output_notes(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """A note of what a collective example printed: the NPUs it found, the ranks that printed
    their output (data, not judged: what it should hold is the example's to say)."""
    found = next((int(m.group(1)) for _, t, _ in lines if (m := _EXAMPLE_FOUND_RE.match(t))), None)
    ranks = sorted(
        {int(m.group(1) or m.group(2)) for _, t, _ in lines if (m := _EXAMPLE_RANK_RE.match(t))}
    )
    said = "a collective example's output"
    if found is not None:
        said += f": {found} NPU(s) found"
    if ranks:
        said += f"{',' if found is not None else ':'} rank(s) {', '.join(map(str, ranks))} printed their output"
    report.unread.append(
        ParseWarning(
            line=lines[0][0] if lines else 0,
            message=f"{said}; no error line (the values are the example's data, not judged)",
            skipped=False,
        )
    )


_PY_FRAME_RE = re.compile(r'^[ \t]*File "[^"\n]+", line \d+, in ', re.M)
PY_FRAMES_MIN = 2
"""A Python traceback shows in this many frame lines at least (one is a quote of a file)."""


def has_program_traceback(text: str) -> bool:
    """Whether ``text`` holds a program's traceback: Python's frames (``File "x.py", line 9, in
    f``) or C++'s uncaught exception (libstdc++'s "terminate called after throwing an instance
    of ..."), the output of a program that raised, whatever else the copy kept of it."""
    return (
        "terminate called after throwing" in text
        or len(_PY_FRAME_RE.findall(text, 0, TRACEBACK_LOOK_CHARS)) >= PY_FRAMES_MIN
    )


TRACEBACK_LOOK_CHARS = 1_000_000
"""How far into a file its traceback's frames are looked for."""


_ERROR_WORD_PARTS = (
    "rror", "xception", "ail", "FAIL", "fault", "dumped", "Killed", "emory", "EDAC", "Traceback",
    "timed out", "terminate called", "errored", "cannot find -l", "undefined reference to",
    "ERROR", "FATAL", "fatal", "CRITICAL", "critical", "level=", "raise",
)  # fmt: skip
"""A piece of text every line ``_ERROR_WORDS_RE``, ``_ERROR_LEVEL_RE`` or ``_RAISES_RE`` finds
holds (glog's "E0612 10:01:02" aside: ``_GLOG_ERROR_HEAD_RE``), tested before them: a line of none
of these is skipped at the cost of a few substring searches (tests/test_evidence_review41.py
checks it against the patterns over the test data)."""
_GLOG_ERROR_HEAD_RE = re.compile(r"[EF]\d{4}")


def _may_say_error(line: str) -> bool:
    """Whether ``line`` may be one ``_ERROR_WORDS_RE``, ``_ERROR_LEVEL_RE`` or ``_RAISES_RE``
    finds (False only where none of them can)."""
    return any(part in line for part in _ERROR_WORD_PARTS) or (
        _GLOG_ERROR_HEAD_RE.search(line) is not None
    )


def first_error_line(lines: list[tuple[int, str, int | None]]) -> LogEvent | None:
    """The first line of a program's log that says something failed, in a form no reading
    above knows (a ``log_error``: the line as written, nothing read from it); None when no line
    says so. A line that is an error only by its logger's level gives way to the first line
    after it whose words say what failed."""
    level_only: tuple[int, str, int | None] | None = None
    for index, (no, line, tagged) in enumerate(lines):
        if level_only is None and not (
            _may_say_error(line)
            and (
                _ERROR_WORDS_RE.search(line)
                or _ERROR_LEVEL_RE.search(line)
                or _RAISES_RE.search(line)
            )
        ):
            # (a line of no error words, no error level and no "raises": nothing below reads
            # it until a line of the error level alone was met; tested first, the other patterns
            # run on the few lines that are one of these)
            continue
        if _NOT_ERROR_RE.search(line) or (
            _BELOW_ERROR_RE.match(line)
            and not _RAISES_RE.search(line)
            and not _ERROR_LEVEL_FIRST_RE.match(line)
        ):
            continue
        if _ERROR_WORDS_RE.search(line) or _RAISES_RE.search(line):
            if (
                level_only is not None
                and no - level_only[0] <= ERROR_PAIR_LINES
                and not _TRACEBACK_PART_RE.search(level_only[1])
            ):
                # an ERROR line of its own words just above ("[ERROR]current kernel primary
                # version(5.4.0-125-generic) is different from the driver(6.8.0-41-generic).",
                # then "[ERROR]driver vermagic check failed."): the first says why, both are
                # quoted, from the first
                return LogEvent(
                    kind="log_error",
                    line=level_only[0],
                    message=f"{level_only[1].strip()[:300]} / {line.strip()[:200]}",
                    rank=level_only[2],
                )
            return LogEvent(kind="log_error", line=no, message=line.strip()[:300], rank=tagged)
        if level_only is None and _ERROR_LEVEL_RE.search(line):
            level_only = (no, line, tagged)
            horizon = index + ERROR_WORDS_AFTER_LEVEL
        elif level_only is not None and index >= horizon:
            break
    if level_only is None:
        return None
    no, line, tagged = level_only
    tail = line.rstrip()[-400:]
    if tail.endswith("^^") and re.search(r"(?:\]|\s)[\^~]+$", tail):
        # a row of position marks a logger wrote at its error level (a traceback it logged
        # line by line, cut before its exception): the last frame says where, the marks nothing
        frames = [(n, t) for n, t, _ in lines if 'File "' in t and no <= n <= no + 60]
        if frames:
            at, frame = frames[-1]
            return LogEvent(
                kind="log_error",
                line=at,
                message="a traceback logged at its error level, cut before its exception (last "
                f"frame: {frame[frame.find('File') :].strip()})"[:300],
                rank=tagged,
            )
    return LogEvent(kind="log_error", line=no, message=line.strip()[:300], rank=tagged)


# torch's (torch_npu's) process group warning about its own set-up: "[W1009 03:41:43.594398300
# ProcessGroupHCCL.cpp:1294] Warning: The watchdog timeout 90000ms ... is less than or equal to
# HCCL execution timeout 1836000ms!": the log of a distributed run
# torch's c10d lines at INFO and debug level, with or without glog's time stamp ("[I socket.cpp
# :564] [c10d] The server socket has started to listen on [::]:23456.", "[I1204 10:22:01.123456
# 12345 socket.cpp:490] [c10d - debug] ..."): a log of nothing else at INFO is a store that ran
C10D_LOG_RE = re.compile(
    r"\[(?P<level>[IWEF])[\d:. ]*(?: \d+)? ?[A-Za-z_][\w/.-]*\.cpp:\d+\] "
    r"\[c10d(?: - (?:debug|trace))?\] "
)


# c10d's warning that one of the store's addresses could not be tried ("[W1029 03:01:51 socket.cpp
# :752] [c10d] The client socket cannot be initialized to connect to [localhost]:31777 (errno: 97 -
# Address family not supported by protocol)."): torch's SocketConnectOp records it and goes on to
# the next address getaddrinfo gave (IPv4 after IPv6), so alone it is no failure
C10D_IPV6_FALLBACK_RE = re.compile(
    r"The client socket cannot be initialized to connect to \S+ \(errno: 97 - Address family not "
    r"supported by protocol\)"
)


def c10d_info_only(text: str) -> bool:
    """Whether ``text`` holds c10d's own lines, all at INFO (a warning or an error among them is
    never passed as a healthy store), or warnings that an address family was skipped."""
    if "[c10d" not in text:
        return False
    levels = set()
    for m in C10D_LOG_RE.finditer(text):
        if m.group("level") == "W" and C10D_IPV6_FALLBACK_RE.match(text, m.end()):
            levels.add("skipped")
            continue
        levels.add(m.group("level"))
    return bool(levels) and levels <= {"I", "skipped"}


PG_WARNING_RE = re.compile(
    r"\[W\d{3,4} [\d:.]+ ProcessGroup[NH]CCL\.cpp:\d+\] (?:Warning|WARNING): "
    # (older torch printed no time: "[W ProcessGroupNCCL.cpp:1692] Warning: ..."; torch_npu's
    # port of that age warned the same way of real faults, "PTA version mismatch",
    # "AclrtQueryDeviceStatus interface query error": only NCCL's, and no error words)
    r"|\[W ProcessGroupNCCL\.cpp:\d+\] Warning: (?![^\n]*(?:[Ee]rror|[Ff]ail|mismatch))"
    # the process group's own shutdown as its watchdog logs it at INFO ("I0228 ...
    # ProcessGroupNCCL.cpp:484] [Rank 3] found async exception when checking for NCCL errors:
    # NCCL communicator encountered error set by ProcessGroupNCCL: Process Group shutdown on
    # rank 3"): no failure
    r"|error set by ProcessGroup[NH]CCL: Process Group shutdown on rank \d+"
    # torchrun's own start-up INFO ("Starting elastic_operator with launch configs:")
    r"|Starting elastic_operator with launch configs:|Running torch\.distributed\.run with args"
)


# a traceback frame in torch's (or torch_npu's) distributed package: 'File ".../torch/
# distributed/distributed_c10d.py", line 400, in init_process_group'
_DIST_FRAME_RE = re.compile(
    r'File "[^"]*?(?P<file>torch(?:_npu)?/distributed/[^"]+)", line \d+, in (?P<func>\w+)'
)


def _torch_npu_errors(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """torch_npu ERR lines that no other event explains (an HCCL call or CANN code block next to
    them does), one per process: which devices stopped, and why in torch_npu's words."""
    near = [(e.line, e.pid, e.kind) for e in report.events]
    seen: set[int] = set()
    for index, (no, line, tagged) in enumerate(lines):
        if "RankID:" not in line or not (m := _TORCH_NPU_ERROR_RE.search(line)):
            continue
        pid = int(m.group("pid"))
        if any(
            (
                abs(no - other) <= TORCH_NPU_WINDOW_LINES
                and other_pid in (None, pid)
                # (vLLM's word that its engine did not start explains no device's error)
                and kind != "launcher_exit"
            )
            # a code of the same process above it, its TraceBack between (a code's block reads
            # up to CODE_BLOCK_LINES after it), or below it (torch_npu's ERR line first, then
            # the code's block: vLLM's workers print them so)
            or (other_pid == pid and 0 < abs(no - other) <= CODE_BLOCK_LINES + 2)
            # a crash of a process that names no pid just above the launcher's own ERR line
            # (Device:-1: the main process's exception when its child died)
            or (
                kind == "launcher_exit"
                and other_pid is None
                and int(m.group("dev")) < 0
                and 0 < no - other <= CODE_BLOCK_LINES
            )
            for other, other_pid, kind in near
        ):
            # (the code's event of the same process takes the device torch_npu names)
            # (the event that explains it, the nearest of its process's: another host's
            # process may share the pid)
            explaining = [
                ev
                for ev in report.events
                if ev.pid == pid
                and ev.kind != "launcher_exit"
                and abs(ev.line - no) <= CODE_BLOCK_LINES + 2
            ]
            if int(m.group("dev")) >= 0 and explaining:
                nearest = min(explaining, key=lambda ev: abs(ev.line - no))
                if nearest.device is None:
                    nearest.device = int(m.group("dev"))
            continue  # that event explains it (another process's event next to it does not)
        if pid in seen:
            continue
        seen.add(pid)
        rank = int(m.group("rank"))
        device = int(m.group("dev"))
        message = line.strip()
        what = m.group("what").strip().rstrip(".")
        if index and (raised := _PY_EXCEPTION_RE.match(lines[index - 1][1])):
            # torch_npu appends its code line to the exception's own message
            message = f"{raised.group(0).strip()} / {message}"
            if m.group("code").endswith("999"):
                # (an application's exception, ERR..999: the exception is its reason)
                what = f"{what}: the exception above it (line {lines[index - 1][0]}): "
                what += raised.group(0).strip()
        elif m.group("code").endswith("999"):
            # ERR..999, an exception of the application's (formatErrorCode): the last exception
            # this process's lines (its own tag, or none as the ERR line has none) show above
            # it; one that names no text (KeyboardInterrupt, SystemExit) still ends the walk, and
            # a launcher's ChildFailedError names nothing of the process's own (Device:-1 is the
            # launcher's own ERR line: left as it is)
            window = lines[max(0, index - AGENT_CAUSE_LINES) : index]
            # (an untagged ERR line among one rank's tagged lines only is that rank's)
            tags = {t for _, _, t in window if t is not None}
            own = {tagged} | (tags if tagged is None and len(tags) == 1 else set())
            for before_no, before, before_tag in reversed(window):
                # (a traceback logged under a logger's prefix: vLLM's "ERROR 05-16 10:28:33
                # [worker_base.py:620] TypeError: ...")
                before = _LOGGER_PREFIX_RE.sub("", before, count=1)
                if before_tag not in own or not (ended := _ENDING_EXCEPTION_RE.match(before)):
                    continue
                if ended.group("name") != "ChildFailedError":
                    said = before.strip()
                    what = f"{what}: the exception above it (line {before_no}): {said}"
                break
        report.events.append(
            LogEvent(
                kind="torch_npu_error",
                line=no,
                message=message[:400],
                code=m.group("code"),
                torch_npu_code=m.group("code"),
                rank=rank if rank >= 0 else tagged,
                device=device if device >= 0 else None,
                pid=pid,
                exception_type=what[:300],
            )
        )


def _rank_list(text: str) -> list[int]:
    """``"1,3,5,7,"`` (HCCL prints a trailing comma) → ``[1, 3, 5, 7]``."""
    return [int(t) for t in text.replace(" ", "").split(",") if t]


# EI0006's reason from HCCL's connection fault detection (the HCCL error reference's EI0006 page,
# Communication_Error_Get_Socket; detect_connect_anomalies.cc, BuildGroupedDetectMessage): "This
# node (server S, device ID d) detects that srcRank (server S, device ID d) fails to connect to
# dstRank (server D, device ID e). ...", a line per destination server, its devices joined by ","
# ("device ID 10,12"). The servers are the rank table's server ids (an IPv4 or IPv6 address).
_CONNECT_DETECTED_RE = re.compile(
    r"srcRank \(server (?P<src>[^,\s()]+), device ID (?P<sdev>\d+)\) fails to connect to "
    r"dstRank \(server (?P<dst>[^,\s()]+), device ID (?P<ddevs>\d+(?:,\d+)*)\)"
)


def _detected_peers(ev: LogEvent, detected: list[re.Match[str]]) -> None:
    """The source end and the peers an EI0006's detection names (the reason its code line leaves
    to the lines after it): this end's device, the first peer server as the event's remote
    address, every destination in its message."""
    first = detected[0]
    if ev.device is None:
        ev.device = int(first.group("sdev"))
    ev.remote_ip = first.group("dst")
    peers = ", ".join(f"(server {d.group('dst')}, device ID {d.group('ddevs')})" for d in detected)
    ev.message = (
        f"{ev.message} srcRank (server {first.group('src')}, device ID {first.group('sdev')}) "
        f"fails to connect to dstRank {peers}"
    )[:400]


def _blame(ev: LogEvent, loc: re.Match[str]) -> None:
    named = loc.groupdict()
    # (the older heartbeat line's groups are ip2, dev2, type2: the same facts)
    ip, dev = named.get("ip") or named.get("ip2"), named.get("dev") or named.get("dev2")
    ev.culprit_ip, ev.culprit_device = ip, int(dev) if dev is not None else None
    if loc.group("dip"):
        ev.discoverer_ip, ev.discoverer_device = loc.group("dip"), int(loc.group("ddev"))
    ev.exception_type = named.get("type") or named.get("type2")


HEARTBEAT_BLOCK_LINES = 4
"""How far around a heartbeat verdict printed with no code its block's tag and group may stand
(an error code's text cut off above it keeps ``tag[..]`` and ``group information`` around it)."""


def _heartbeat_event(
    index: int, lines: list[tuple[int, str, int | None]], loc: re.Match[str]
) -> LogEvent:
    """HCCL's heartbeat verdict printed on its own (an ``[ERROR] HCCL`` line, or a block whose
    error code line was cut off): the blamed node, and the op, group and this rank that the
    block's ``tag[..]`` and ``group information: [...rankSize[8], rankId[3]]`` name."""
    no, line, tagged = lines[index]
    ev = LogEvent(kind="hccl_heartbeat", line=no, message=line.strip()[:300], rank=tagged)
    _blame(ev, loc)
    block = lines[max(0, index - HEARTBEAT_BLOCK_LINES) : index + HEARTBEAT_BLOCK_LINES]
    window = [t for _, t, _ in block if not _code_match(t)]
    if tag := _search(_TAG_RE, window):
        ev.op = OPS.get(_first(tag), _first(tag))
    if grp := _search(_GROUP_RE, window):
        ev.group = _first(grp)
    if size := _search(_RANKSIZE_RE, window):
        ev.rank_size = int(size.group(1))
    if ev.rank is None and (gid := _search(_GROUP_RANKID_RE, window)):
        ev.rank = int(gid.group(1))
    return ev


def _link(ev: LogEvent, row: re.Match[str], device: int | None, timeout_s: int | None) -> None:
    """A socket-table row: this rank's end (``src``) waited for the peer (``dest``)."""
    ev.ip, ev.remote_ip = row.group("sip"), row.group("dip")
    ev.remote_rank = int(row.group("drank"))
    ev.port = int(row.group("dport")) if row.group("dport") else None
    ev.exception_type = row.group("status")
    if ev.device is None:
        ev.device = device
    if ev.timeout_ms is None and timeout_s is not None:
        ev.timeout_ms = timeout_s * 1000


_WRAPPED_WATCHDOG_RE = re.compile(r"\bWatchdog(?: caught)?\s*$")


# A watchdog's time-out seen only by its stack: "Exception raised from checkTimeout at
# .../ProcessGroupNCCL.cpp:635 (most recent call first):", frame #0 building the error
# (c10::Error::Error) in frame #1 "c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(...)", under
# watchdogHandler / workCleanupLoop / ncclCommWatchdog, then "terminate called after throwing an
# instance of 'c10::DistBackendError'". The only error checkTimeout builds is its "Watchdog
# caught collective operation timeout: ..." DistBackendError (torch ProcessGroupNCCL.cpp
# WorkNCCL::checkTimeout): a collective ran past its time-out. (torch_npu's WorkHCCL::checkTimeout
# throws a std::runtime_error, which carries no stack: its frame is no time-out's.)
_CHECK_TIMEOUT_FRAME_RE = re.compile(
    r"frame #\d+: (?:\w+::)*ProcessGroupNCCL::WorkNCCL::checkTimeout\("
    r"|Exception raised from checkTimeout at \S*ProcessGroupNCCL\.cpp:\d+"
)


def _watchdog_timeout_stacks(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``watchdog_timeout`` a process whose stack shows its watchdog's time-out being thrown
    (checkTimeout's frame), where the copy kept no record of the time-out itself: the rank,
    SeqNum and operation are then unknown, not guessed."""
    if any(e.kind == "watchdog_timeout" for e in report.events):
        return
    seen: set[int | None] = set()
    for no, line, tagged in lines:
        if "checkTimeout" not in line or not _CHECK_TIMEOUT_FRAME_RE.search(line):
            continue
        if tagged in seen:
            continue
        seen.add(tagged)
        report.events.append(
            LogEvent(
                kind="watchdog_timeout",
                line=no,
                message=line.strip()[:300],
                rank=tagged,
                library="NCCL",
                exception_type="the watchdog's time-out check threw (its stack, frame "
                "checkTimeout): a collective ran past its time-out; the time-out's own "
                "record (rank, SeqNum, operation) is not in the copy",
            )
        )


# torch 1.7's and 1.8's blocking wait (NCCL_BLOCKING_WAIT=1, WorkNCCL::wait in ProcessGroupNCCL.cpp)
# on a collective past its time-out: LOG(INFO) "[Rank 0] Caught collective operation timeout for
# work: WorkNCCL(OpType=ALLREDUCE, TensorShape=[...], Timeout(ms)=1000)", then it throws
# "Operation timed out!" (after "Wrote aborted communicator id to store: NCCLABORTEDCOMM:...")
_BLOCKING_WAIT_TIMEOUT_RE = re.compile(
    r"\[Rank (?P<rank>\d+)\] Caught collective operation timeout for w"
    r"(?:ork: WorkNCCL\((?:OpType=(?P<op>\w+))?(?:[^\n]{0,400}?Timeout\(ms\)=(?P<ms>\d+))?)?"
)


def _blocking_wait_timeouts(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``watchdog_timeout`` per rank whose blocking wait (older torch) caught a collective
    past its time-out, where no other record of a time-out was read."""
    if any(e.kind == "watchdog_timeout" for e in report.events):
        return
    seen: set[int] = set()
    for no, line, _ in lines:
        if "Caught collective" not in line or not (m := _BLOCKING_WAIT_TIMEOUT_RE.search(line)):
            continue
        if (rank := int(m.group("rank"))) in seen:
            continue
        seen.add(rank)
        report.events.append(
            LogEvent(
                kind="watchdog_timeout",
                line=no,
                message=line.strip()[:300],
                rank=rank,
                op=m.group("op"),
                timeout_ms=int(m.group("ms")) if m.group("ms") else None,
                library="NCCL",
                exception_type="older torch's blocking wait (NCCL_BLOCKING_WAIT) caught a "
                "collective past its time-out and aborted the communicator"
                + ("" if m.group("op") else " (the work it names is cut off in the copy)"),
            )
        )


# A core's or a live process's stack (gdb "bt", a stack dump's frames) showing the process
# group's watchdog thread taking the process down on a collective's error: "#6 ... in
# c10d::ProcessGroupNCCL::WorkNCCL::handleNCCLGuard() ()" (older torch; handleException later)
# under "#7 ... in c10d::ProcessGroupNCCL::workCleanupLoop() ()" (ncclCommWatchdog later), with
# std::rethrow_exception, std::terminate and abort above it
_WATCHDOG_HANDLE_FRAME_RE = re.compile(
    r"(?:^\s*#\d+\s+(?:0x[0-9a-fA-F]+ in )?|frame #\d+: )(?:\w+::)*ProcessGroup(?P<lib>[NH])CCL::"
    r"Work[NH]CCL::(?P<fn>handleNCCLGuard|handleException)\("
)
_ABORT_FRAME_RE = re.compile(
    r"^#\d+\s+(?:0x[0-9a-fA-F]+ in )?(?:abort|std::terminate|__GI_abort|raise|__GI_raise)\b"
)
# (newer torch runs the loop in a Watchdog class, "ProcessGroupNCCL::Watchdog::runLoop()"; torch_npu's
# port has the same frames under ProcessGroupHCCL, WorkHCCL and hcclCommWatchdog: Ascend/pytorch
# ProcessGroupHCCL.cpp Watchdog::run, Watchdog::runLoop, WorkHCCL::handleException)
_WATCHDOG_LOOP_RE = re.compile(
    r"ProcessGroup[NH]CCL::(?:workCleanupLoop|ncclCommWatchdog|hcclCommWatchdog|watchdogHandler"
    r"|Watchdog::run(?:Loop)?)\("
)


# a CUDA check that failed inside the watchdog's query of a work (torch's c10_cuda_check_
# implementation under WorkNCCL::isCompleted / finishedGPUExecutionInternal, under
# watchdogHandler): a CUDA error the watchdog met, its message above the frames
_CUDA_CHECK_FRAME_RE = re.compile(r"frame #\d+: c10::cuda::c10_cuda_check_implementation\(")
_WORK_QUERY_FRAME_RE = re.compile(
    r"frame #\d+: c10d::ProcessGroup[NH]CCL::Work[NH]CCL::(?:isCompleted|finishedGPUExecution"
    r"Internal|finishedGPUExecution)\("
)


def _watchdog_cuda_check_stacks(
    lines: list[tuple[int, str, int | None]], report: LogReport
) -> None:
    """One ``watchdog_failure`` a process whose stack shows its watchdog's query of a work
    failing a CUDA check (no record of the error read): the error's message is not in it."""
    if any(e.kind.startswith("watchdog") or e.kind == "cuda_error" for e in report.events):
        return
    check = next(((no, t) for no, t, _ in lines if _CUDA_CHECK_FRAME_RE.search(t)), None)
    texts = [t for _, t, _ in lines]
    if check is None or not any(_WORK_QUERY_FRAME_RE.search(t) for t in texts):
        return
    if not any(_WATCHDOG_LOOP_RE.search(t) for t in texts):
        return
    no, text = check
    report.events.append(
        LogEvent(
            kind="watchdog_failure",
            line=no,
            message=text.strip()[:300],
            library="NCCL",
            exception_type="the process group's watchdog met a CUDA error as it checked whether "
            "a collective had finished (c10_cuda_check_implementation under WorkNCCL::isCompleted, "
            "its stack): the GPU or a kernel failed; the error's own message is not in the copy",
        )
    )


def _watchdog_abort_stacks(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``watchdog_failure`` a process whose stack shows its watchdog thread rethrowing a
    work's error and the process aborting (no watchdog record of it read): the error itself and
    the rank are not in the copy, not guessed."""
    if any(e.kind.startswith("watchdog") for e in report.events):
        return
    texts = [t for _, t, _ in lines]
    handle = next(
        ((no, tagged, m) for no, t, tagged in lines if (m := _WATCHDOG_HANDLE_FRAME_RE.search(t))),
        None,
    )
    if handle is None or not any(_WATCHDOG_LOOP_RE.search(t) for t in texts):
        return
    if not any(_ABORT_FRAME_RE.search(t.strip()) for t in texts):
        return  # the stack of a process that is still running: no failure said
    no, tagged, m = handle
    report.events.append(
        LogEvent(
            kind="watchdog_failure",
            line=no,
            message=lines[[n for n, _, _ in lines].index(no)][1].strip()[:300],
            rank=tagged,
            library="HCCL" if m.group("lib") == "H" else "NCCL",
            exception_type=f"the process group's watchdog thread rethrew a collective's error "
            f"({m.group('fn')} in its loop) and the process aborted (its stack); the error "
            "itself is not in the copy",
        )
    )


def _watchdog(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    by_key: dict[tuple[int | None, str, int | None], LogEvent] = {}
    last: dict[tuple[int | None, str | None], tuple[int, int, int | None]] = {}
    # rank → (line, seq, group, the line): its own watchdog found that work failed
    detected: dict[int, tuple[int, int, str | None, str]] = {}
    detected_in: dict[tuple[int | None, int | None], str | None] = {}
    """The group of each (rank, work) a progress line says the watchdog failed at."""
    timed_out: dict[int, tuple[int, int, str | None, str]] = {}  # rank -> its "Timeout at" line
    # rank → (line, group, the line, the rank whose time-out signalled; None: its own)
    dumps: dict[int, tuple[int, str | None, str, int | None]] = {}
    # (rank, SeqNum) → a record cut inside its Work(...) fields, read to its OpType: kept only
    # where no whole record of that work follows
    cut_records: dict[tuple[int | None, int], LogEvent] = {}
    hung: dict[int | None, LogEvent] = {}
    # rank → (line, index, the line): its work's exception is being handled (the process ends)
    aborted: dict[int | None, tuple[int, int, str]] = {}
    joined = -1  # the last continuation line already read with the record it completes
    for index, (no, line, tagged) in enumerate(lines):
        if index <= joined:
            continue
        if (
            "operations have failed or timed out" in line
            or "taking the entire process down" in line
            # (torch >= 2.5's watchdog, having found the rank's work failed or timed out, before
            # its dump: "[PG ID 1 PG GUID 1 Rank 2] First PG on this rank to signal dumping.")
            or "First PG on this rank to signal dumping" in line
        ):
            aborted.setdefault(_record_rank(line, tagged), (no, index, line))
        if "stuck for" in line or "Heartbeat monitor" in line or "watchdog hang" in line:
            _watchdog_hang(lines, index, hung, report)
        if (
            "operation timeout" in line
            and line.rstrip().endswith(": Work")
            and index + 1 < len(lines)
            and lines[index + 1][1].lstrip()[:5] in ("NCCL(", "HCCL(")
        ):
            # wrapped inside the word: "... timeout: Work" / "NCCL(SeqNum=3369, ..."
            joined = index + 1
            line = line.rstrip() + lines[joined][1].lstrip()
        elif (
            "operation timeout" in line
            and "Work" not in line
            and index + 1 < len(lines)
            and lines[index + 1][1].lstrip().startswith("Work")
        ):
            # a record wrapped after "timeout:" (its Work(...) starts the next line, which a
            # launcher's "host [stderr]" prefix does not tag): the rank stays on this line
            joined = index + 1
            line = line.rstrip() + " " + lines[joined][1].lstrip()
        if (
            "operation timeout" in line
            and "Watchdog" not in line
            and index
            and _WRAPPED_WATCHDOG_RE.search(lines[index - 1][1])
        ):
            # a record wrapped after "Watchdog" or "Watchdog caught": its rank ("[Rank 2]") and
            # time stamp stay on the line before
            no, line = lines[index - 1][0], lines[index - 1][1].rstrip() + " " + line.lstrip()
        if (
            "dump signal" in line
            and _DUMP_SIGNAL_OPEN_RE.search(line)
            and not _LAST_RE.search(line)
            and index + 1 < len(lines)
            and lines[index + 1][2] is None
            and not _RECORD_START_RE.match(lines[index + 1][1])
        ):
            # wrapped at a terminal's width ("... from this local " / "rank and we will ...
            # Last enqueued NCCL work: 9387, ..."): its progress is on the next line
            joined = index + 1
            line = line.rstrip("\n") + lines[joined][1]
        if (
            "detected by watchdog at work" in line
            and "nqueued" not in line
            and index + 1 < len(lines)
            and lines[index + 1][1].lstrip().startswith("last enqueued")
        ):
            # wrapped after its work's number ("... at work: 1940009," / "   last enqueued NCCL
            # work: 1940014, last completed NCCL work: 1940008."): its progress on the next line
            joined = index + 1
            line = line.rstrip() + " " + lines[joined][1].lstrip()
        if "PG status" in line and "completed" not in line and index + 1 < len(lines):
            # a progress line wrapped at a fixed width ("last enqueue" / "d work: 5, last ...")
            joined = index + 1
            line = line.rstrip("\n") + lines[joined][1]
        if "nqueued" not in line and "Work" not in line:
            continue  # neither a progress line nor a work line: most of a large log
        if "Work" in line and _OPEN_WORK_RE.search(line) and max(index, joined) + 1 < len(lines):
            # a record wrapped at a fixed width: its "Work[NH]CCL(" is left open on this line
            joined = max(index, joined) + 1
            line = line + lines[joined][1]
        nxt = max(index, joined) + 1
        if nxt < len(lines) and (
            ("ran for" in line and line.rstrip().endswith("ran for"))
            or ("Timeout(ms)=" in line and "ran for" not in line
                and lines[nxt][1].lstrip().startswith("ran for "))
        ):  # fmt: skip
            # wrapped before its figure ("... ran for" / "10028 milliseconds before timing out.")
            # or after its Work(...) ("Timeout(ms)=600000) " / "ran for 600892 milliseconds ...")
            joined = nxt
            line = line.rstrip() + " " + lines[joined][1].lstrip()
        rank_m = _WATCHDOG_RANK_RE.search(line)
        rank = tagged
        if rank_m and tagged is None:
            # a launcher's tag ([rank15]:) is the global rank; the record's own "[Rank 1]" is
            # the rank in its process group (the same only in the default group)
            rank = int(rank_m.group(1) or rank_m.group(2))
        pg = _pg(_PG_RE.search(line))
        if rank is not None and "dump signal" in line and (ds := _DUMP_SIGNAL_RE.search(line)):
            peer = int(ds.group("peer")) if ds.group("peer") else None
            dumps.setdefault(rank, (no, pg, line, None if peer == -1 else peer))
        if lm := _LAST_RE.search(line):
            enqueued, completed = int(lm.group("enq")), int(lm.group("done"))
            if completed > enqueued and completed >= _UNSET_WORK:
                # no work completes before it is enqueued, and no job runs 2**32 works: a counter
                # torch never set (torch 2.3 printed "last completed NCCL work: 93459313471793" at
                # the first work), unknown. A smaller one above the last enqueued is real: since
                # torch 2.4 a work's number is from the P2P or the collective sequence, so a
                # group mixing both can have completed a P2P work numbered above the last
                # collective
                report.unread.append(
                    ParseWarning(
                        line=no,
                        message=f"last completed work {completed} is above the last enqueued {enqueued}: "
                        "a counter never set, not read",
                        skipped=False,
                    )
                )
            unset = completed > enqueued and completed >= _UNSET_WORK
            last[(rank, pg)] = (no, enqueued, None if unset else completed)
            if rank is not None and (dm := _DETECTED_RE.search(line)):
                detected.setdefault(rank, (no, int(dm.group("seq")), pg, line))
                detected_in.setdefault((rank, int(dm.group("seq"))), pg)
            if rank is not None and (tm := _TIMEOUT_AT_RE.search(line)):
                timed_out.setdefault(rank, (no, int(tm.group(1)), pg, line))
        w = _WORK_RE.search(line) or _GARBLED_WORK_RE.search(line)
        if w is None and _OPEN_WORK_RE.search(line):
            cut = _CUT_WORK_RE.search(line) if "operation timeout" in line else None
            report.unread.append(
                ParseWarning(
                    line=no,
                    message="watchdog record cut inside its Work(...) fields"
                    + (
                        ": read to its OpType, its time-out and run time unknown"
                        if cut and cut.group("op")
                        else ": read to its SeqNum and the start of its OpType, its time-out "
                        "and run time unknown"
                        if cut
                        else ""
                    ),
                    skipped=cut is None,
                )
            )
            if cut is not None and (rank, int(cut.group("seq"))) not in cut_records:
                cut_records[(rank, int(cut.group("seq")))] = LogEvent(
                    kind="watchdog_timeout",
                    line=no,
                    message=line.strip()[:400],
                    rank=rank,
                    op=OPS.get(cut.group("op"), cut.group("op").lower())
                    if cut.group("op")
                    else _cut_op(cut.group("op_cut")),
                    seq=int(cut.group("seq")),
                    numel=_work_numel(cut.group("numel_in")),
                    group=pg,
                    library=cut.group("lib"),
                )
            continue
        if w is None or ("timeout" not in line.lower() and w.group("ran") is None):
            continue
        if w.group("ran") is None and "raised the following async exception" in line:
            # torch's "Collective WorkNCCL(...) raised the following async exception: NCCL
            # error: ...": the work failed on an NCCL error, not a time-out (a failed call)
            continue
        # older torch printed no SeqNum: "WorkNCCL(OpType=ALLREDUCE, Timeout(ms)=1800000)"
        seq_text = w.group("seq") or w.groupdict().get("seq_after")
        seq = int(seq_text) if seq_text else None
        key = (rank, w.group("op"), seq)
        if key in by_key:
            if by_key[key].group is None and pg and "watchdog thread terminated" in line:
                # the watchdog's death repeats the record under its own group's prefix (pytorch
                # ProcessGroupNCCL.cpp ncclCommWatchdog: logPrefix() + "Process group watchdog
                # thread terminated with exception: " + e.what()): the group of that very work
                by_key[key].group = pg
            continue
        ev = LogEvent(
            kind="watchdog_timeout",
            line=no,
            message=line.strip()[:400],
            rank=rank,
            op=OPS.get(w.group("op"), w.group("op").lower()) if w.group("op") else None,
            seq=seq,
            numel=_work_numel(w.group("numel_in")),
            timeout_ms=int(w.group("timeout")) if w.group("timeout") else None,
            ran_for_ms=int(w.group("ran")) if w.group("ran") else None,
            group=pg,
            library=w.group("lib"),
        )
        by_key[key] = ev
        report.events.append(ev)
    whole = {(r, q) for r, _, q in by_key if q is not None}
    for work, cut_ev in cut_records.items():
        if work not in whole:
            by_key[(cut_ev.rank, cut_ev.op or "", cut_ev.seq)] = cut_ev
            report.events.append(cut_ev)
        else:
            # the whole record of that work came after: the cut one says nothing more
            report.unread = [w for w in report.unread if w.line != cut_ev.line]
    # A rank's time-out line names no process group when its progress line does: fall back to the
    # rank's first group. One index, built once: a scan of ``last`` per event made a log of N
    # ranks' time-outs cost N² (50,000 events: minutes).
    first_of_rank: dict[int | None, tuple[tuple[int, int, int | None], str | None]] = {}
    for (r, pg), v in last.items():
        first_of_rank.setdefault(r, (v, pg))
    for ev in by_key.values():
        if ev.group is None and (ev.rank, ev.seq) in detected_in:
            # the progress line of this very work names its group (a rank timing out in two
            # groups prints one such line after each time-out)
            ev.group = detected_in[(ev.rank, ev.seq)]
        found = last.get((ev.rank, ev.group))
        if found is None and ev.rank in first_of_rank:
            found, pg = first_of_rank[ev.rank]
            ev.group = ev.group or pg  # the progress line names the group the time-out did not
        if found:
            ev.last_enqueued, ev.last_completed = found[1], found[2]
    # A rank that only printed "last enqueued / completed" (dumped on a peer's signal) is still
    # evidence: it shows how far that rank got, which names the straggler.
    reported = {ev.rank for ev in by_key.values()}
    for rank, (no, seq, pg, line) in detected.items():
        if rank in reported:
            continue  # its time-out line already says what failed
        reported.add(rank)
        enq, done = last[(rank, pg)][1:]
        failure = LogEvent(
            kind="watchdog_failure",
            line=no,
            message=line.strip()[:400],
            rank=rank,
            seq=seq,
            group=pg,
            last_enqueued=enq,
            last_completed=done,
            library="HCCL" if "HCCL" in line else "NCCL" if "NCCL" in line else None,
        )
        signal = dumps.get(rank)
        if signal is not None and "due to a collective timeout from this local rank" in signal[2]:
            # (its own dump signal, a line or so later, says which: "Received a dump signal due
            # to a collective timeout from this local rank")
            failure.exception_type = (
                f"a time-out: its dump signal (line {signal[0]}) says it was this rank's own "
                "collective that timed out"
            )
        report.events.append(failure)
    _aborted(lines, aborted, reported, report, last)
    # torch 2.5+ logs "Timeout at NCCL work: N, last enqueued ..." only for a work its watchdog
    # found timed out (ProcessGroupNCCL.cpp watchdog handler, inside ``if (timedOut)``): a rank
    # whose record is that line alone (its WorkNCCL(...) line lost or cut) timed out at work N
    for rank, (no, seq, pg, line) in timed_out.items():
        if rank in reported:
            continue
        reported.add(rank)
        enq, done = last[(rank, pg)][1:]
        ev = LogEvent(
            kind="watchdog_timeout",
            line=no,
            message=line.strip()[:400],
            rank=rank,
            seq=seq,
            group=pg,
            last_enqueued=enq,
            last_completed=done,
            library="HCCL" if "HCCL work" in line else "NCCL",
        )
        by_key[(rank, "", seq)] = ev
        report.events.append(ev)
    # ranks whose own error is already read: an NCCL error the watchdog raised, a failed call
    own_errors = {
        e.rank
        for e in report.events
        if e.kind in ("watchdog_exception", "nccl_call_failure", "nccl_net_error")
    }
    for rank, (no, pg, line, peer) in dumps.items():
        if rank in reported or (rank, pg) not in last:
            continue
        reported.add(rank)
        enq, done = last[(rank, pg)][1:]
        library = "HCCL" if "HCCL work" in line else "NCCL"
        if peer is None and "from rank" not in " ".join(line.split()):
            if rank in own_errors:
                continue  # its error already says what failed: the dump follows it
            # its own watchdog found a work failed (a time-out or another exception); which work
            # the line does not say
            ev = LogEvent(
                kind="watchdog_failure",
                line=no,
                message=line.strip()[:400],
                rank=rank,
                group=pg,
                last_enqueued=enq,
                last_completed=done,
                library=library,
            )
        else:
            signalled = f"rank {peer}" if peer is not None else "another rank"
            ev = LogEvent(
                kind="watchdog_progress",
                line=no,
                message=f"rank {rank} dumped on the time-out signal from {signalled}: last "
                f"enqueued work {enq}, last completed {_count(done)}",
                rank=rank,
                group=pg,
                last_enqueued=enq,
                last_completed=done,
                remote_rank=peer,
                library=library,
            )
        report.events.append(ev)
    for (rank, pg), (no, enq, done) in last.items():
        if rank is not None and rank not in reported and by_key:
            reported.add(rank)
            report.events.append(
                LogEvent(
                    kind="watchdog_progress",
                    line=no,
                    message=f"rank {rank} last enqueued work {enq}, last completed {_count(done)}",
                    rank=rank,
                    group=pg,
                    last_enqueued=enq,
                    last_completed=done,
                )
            )


# a record's process group and the rank inside it: "[PG ID 4 PG GUID 45 Rank 1]" (one process:
# a group's GUID is its own, and each process holds one rank in it)
_PG_LOCAL_RE = re.compile(
    r"\[PG ID \d+ PG GUID (?P<guid>[\w:-]+)(?:\([^)]*\))? Rank (?P<rank>\d+)\]"
)


def _same_process_records(report: LogReport) -> None:
    """One time-out per process: the same record of one group's rank (its PG GUID and rank in
    it, the same SeqNum) printed again untagged by the exception's what() is the tagged one's,
    not another rank's."""
    seen: dict[tuple[str, str, int | None], LogEvent] = {}
    repeated: set[int] = set()
    for ev in report.events:
        if ev.kind != "watchdog_timeout" or not (m := _PG_LOCAL_RE.search(ev.message)):
            continue
        key = (m.group("guid"), m.group("rank"), ev.seq)
        if (first := seen.get(key)) is None:
            seen[key] = ev
        elif first.rank != ev.rank:
            repeated.add(id(ev))
    if repeated:
        report.events[:] = [e for e in report.events if id(e) not in repeated]


_UNSET_WORK = 2**32
"""A last-completed work number this large is a counter torch never set, not a count."""


def _count(work: int | None) -> str:
    return "unknown" if work is None else str(work)


ABORT_REASON_LINES = 4
"""How far below the notice torch's "terminate called ... what():" reason may follow."""


def _aborted(
    lines: list[tuple[int, str, int | None]],
    aborted: dict[int | None, tuple[int, int, str]],
    reported: set[int | None],
    report: LogReport,
    last: dict[tuple[int | None, str | None], tuple[int, int, int | None]],
) -> None:
    """A rank whose failed work was handled with no time-out line of its own kept: a failure,
    with the rank's own progress line where it printed one (torch 2.5+: "[PG ID 0 ... Rank 2]
    Timeout at NCCL work: 93201, last enqueued NCCL work: 93201, last completed NCCL work:
    93200": the work that timed out, and how far the rank had got).

    pytorch ProcessGroupNCCL.cpp ``WorkNCCL::handleException`` (torch_npu ProcessGroupHCCL.cpp
    ``WorkHCCL::handleException``) logs "Some NCCL (HCCL) operations have failed or timed out"
    only when the work holds an exception, then "To avoid data inconsistency, we are taking the
    entire process down"; older torch printed both on one line with the exception's ``what()``
    after it.
    """
    died = {e.rank for e in report.events if e.kind == "watchdog_exception"}
    for rank, (no, index, line) in aborted.items():
        if rank in reported or rank in died:
            continue  # its time-out, failure or watchdog death already says what failed
        message = line.strip()
        reason = ""
        for _, after, _ in lines[index + 1 : index + 1 + ABORT_REASON_LINES]:
            if "what():" in after:
                reason = after.strip()
                break
        if rank is None and (named := _WATCHDOG_RANK_RE.search(reason)):
            # an untagged notice whose what() names the rank: that rank's record
            if int(named.group(1) or named.group(2)) in reported:
                continue  # the time-out line of that rank says it already
        elif rank is None and reported - {None}:
            # an untagged notice that names no rank, among ranks' own time-out records (older
            # torch prints it on its own line before each rank's record): one of theirs
            continue
        reported.add(rank)
        message = f"{message} {reason}".strip()
        ev = LogEvent(
            kind="watchdog_failure",
            line=no,
            message=message[:400],
            rank=rank,
            library="HCCL" if "HCCL operations" in line else "NCCL",
        )
        progress = [(at, pg, enq, done) for (r, pg), (at, enq, done) in last.items() if r == rank]
        if rank is not None and progress:
            at, ev.group, ev.last_enqueued, ev.last_completed = max(progress)
            at_line = next((text for n, text, _ in lines if n == at), "")
            if timeout_at := _TIMEOUT_AT_RE.search(at_line):
                ev.seq = int(timeout_at.group(1))
        if ev.group is None:
            ev.group = _pg(_PG_RE.search(line))  # ("[PG ID 1 PG GUID 1 Rank 2] First PG ...")
        report.events.append(ev)


# The heartbeat monitor's verdict ends with the count of works the watchdog still tracks
# (pytorch ProcessGroupNCCL.cpp heartbeat monitor: "Heartbeat monitor timed out! Process will be
# terminated after dumping debug info. workMetaList_.size()=N"): 0, none outstanding.
_WORK_META_RE = re.compile(r"workMetaList_\.size\(\)\s*=\s*(\d+)")
# ProcessGroupNCCL::shutdown (destroy_process_group) aborts the communicators on another thread
# and waits for it with waitForFutureOrTimeout(fut, options_->timeout, "ProcessGroup abort"):
# "Future for ProcessGroup abort timed out after 600000 ms" when the abort did not end in the
# group's time-out, a communicator (a kernel) stuck at exit (pytorch ProcessGroupNCCL.cpp).
_PG_ABORT_TIMEOUT_RE = re.compile(r"Future for ProcessGroup abort timed out after (\d+) ms")


# ProcessGroupNCCL (torch_npu's ProcessGroupHCCL) as a rank writes its debug info, the flight
# recorder's entries, after a time-out or a watchdog hang: "[PG ID 0 PG GUID 0(default_pg) Rank 0]
# ProcessGroupNCCL preparing to dump debug info." (older: "[PG 0 Rank 1] ...")
_DEBUG_DUMP_RE = re.compile(r"ProcessGroup(?P<lib>[NH]CCL) preparing to dump debug info")


def _once_per_rank_and_group(
    lines: list[tuple[int, str, int | None]], word: str, pattern: re.Pattern[str]
) -> Iterator[tuple[int, str, int | None, str | None, re.Match[str]]]:
    """Each line ``pattern`` matches (looked at where it holds ``word``) with its rank, its process
    group and the match, the first of each rank and group only (an untagged line's rank is its
    group's own)."""
    seen: set[tuple[int | None, str | None]] = set()
    for no, line, tagged in lines:
        if word not in line or not (m := pattern.search(line)):
            continue
        rank = _record_rank(line, tagged)
        group = _pg(_PG_RE.search(line))
        if (rank, group) not in seen:
            seen.add((rank, group))
            yield no, line, rank, group, m


def _pg_debug_dumps(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``pg_debug_dump`` notice per rank whose process group wrote its debug info."""
    for no, line, rank, group, m in _once_per_rank_and_group(
        lines, "dump debug info", _DEBUG_DUMP_RE
    ):
        report.events.append(
            LogEvent(
                kind="pg_debug_dump",
                line=no,
                message=line.strip()[:300],
                rank=rank,
                group=group,
                library=m.group("lib"),
                exception_type="the process group wrote its debug info (flight recorder)",
            )
        )


# The heartbeat monitor waits for the flight recorder's dump before the process ends (pytorch
# ProcessGroupNCCL.cpp, waitTimeoutDumpInMilSec_ from TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC, 15 s by
# default; torch_npu's TORCH_HCCL_WAIT_TIMEOUT_DUMP_MILSEC, 60 s): on time-out it warns "timed out
# after waiting for 60000ms flight recorder dumps to finish."; when the dump finished in time it
# says "slept for Nms giving time for flight recorder dumps to finish." (INFO)
_DUMP_WAIT_TIMEOUT_RE = re.compile(
    r"timed out after waiting for (\d+) ?ms flight recorder dumps to finish"
)


def _pg_dump_waits(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``pg_dump_unfinished`` notice per rank that gave up waiting for its dump."""
    for no, line, rank, group, m in _once_per_rank_and_group(
        lines, "flight recorder dumps", _DUMP_WAIT_TIMEOUT_RE
    ):
        report.events.append(
            LogEvent(
                kind="pg_dump_unfinished",
                line=no,
                message=line.strip()[:300],
                rank=rank,
                group=group,
                timeout_ms=int(m.group(1)),
                library="HCCL" if "HCCL" in line else "NCCL",
                exception_type="the flight recorder's dump did not finish in the time waited",
            )
        )


def _pg_abort_timeouts(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``pg_abort_timeout`` per rank whose process group's abort at shutdown timed out."""
    seen: set[int | None] = set()
    for no, line, tagged in lines:
        if "ProcessGroup abort" not in line or not (m := _PG_ABORT_TIMEOUT_RE.search(line)):
            continue
        rank = _record_rank(line, tagged)
        if rank in seen:
            continue
        seen.add(rank)
        report.events.append(
            LogEvent(
                kind="pg_abort_timeout",
                line=no,
                message=line.strip()[:300],
                rank=rank,
                timeout_ms=int(m.group(1)),
                group=_pg(_PG_RE.search(line)),
                library="HCCL" if "HCCL" in line else "NCCL" if "NCCL" in line else None,
                exception_type="the process group's abort at shutdown did not finish",
            )
        )


def _watchdog_hang(
    lines: list[tuple[int, str, int | None]],
    index: int,
    hung: dict[int | None, LogEvent],
    report: LogReport,
) -> None:
    """The heartbeat monitor's verdict at ``lines[index]``, one event per rank: its "stuck for N
    seconds" (a message wrapped at a fixed width is read across the line before, where its first
    words stand, cut), or the lines it prints around that one — "Heartbeat monitor timed out!"
    before it, "Terminating the process ... due to ProcessGroupNCCL watchdog hang." (newer torch,
    in place of it)."""
    no, line, tagged = lines[index]
    m = _STUCK_RE.search(line)
    if m is None and "stuck for" in line and index > 0:
        no, before, tagged = lines[index - 1]
        line = before + line
        m = _STUCK_RE.search(line)
    lib = m.group("lib") if m else None
    if m is None:
        h = _HEARTBEAT_VERDICT_RE.search(line)
        if h is None:
            return
        # the time-out line names no library; its glog prefix names the source file
        lib = h.group("lib") or ("HCCL" if "HCCL" in line else "NCCL" if "NCCL" in line else None)
    rank = _record_rank(line, tagged)
    timeout_ms = int(m.group("s")) * 1000 if m else None
    if (seen := hung.get(rank)) is not None:
        seen.timeout_ms = seen.timeout_ms or timeout_ms
        return
    pg = _pg(_PG_RE.search(line))
    works = _WORK_META_RE.search(line)
    hung[rank] = LogEvent(
        kind="watchdog_hang",
        line=no,
        message=line.strip()[:400],
        rank=rank,
        timeout_ms=timeout_ms,
        library=lib,
        group=pg,
        exception_type=(
            None
            if works is None
            else "no work outstanding: the watchdog hung outside any collective"
            if works.group(1) == "0"
            else f"{works.group(1)} work(s) still outstanding"
        ),
    )
    report.events.append(hung[rank])


# The NPU runtime's dump of a device-side exception, printed into the process's log (seen in
# torch_npu and vLLM-Ascend logs): "DEVICE[0] PID[358]:", "EXCEPTION STREAM:", "  Exception
# info:TGID=..., stream id=3, ...", "  Message info[0]:RTS_HWTS: aicore exception, slot_id=31,
# stream_id=3", "    Other info[0]:time=..., function=..., error code=0x26".
_DEVICE_EXCEPTION_RE = re.compile(r"Message info\[\d+\]:\s*(?P<what>[^,]+)")
_DEVICE_PID_RE = re.compile(r"DEVICE\[(?P<dev>\d+)\] PID\[(?P<pid>\d+)\]")
_HEX_CODE_RE = re.compile(r"error code\s*=\s*(0x[0-9A-Fa-f]+)")
DEVICE_EXCEPTION_LINES = 4
"""How far above its message the dump's "DEVICE[N] PID[P]" header may stand."""


# The same exception in the device's own log (its task scheduler, TSCH, in the device-side slog):
# "[ERROR] TSCH(-1,null):2023-06-10-13:16:11.401.438 11 (dieid:0,cpuid:0) hwts_plat.c:1931
# int_process_hwts_timeout_exception: RTS_HWTS: hwts timeout exception bitmap=0x8000", then its
# register dump, "<exception_print>TIME:..., device_id=0, stream_id=16, task_id=43,
# exception_code=0xb4060007, ..." and, last, what the task was doing: "<exception_print>notify
# wait timeout" (a MindCluster device-log sample).
_TSCH_EXCEPTION_RE = re.compile(r"\bTSCH\([^)]*\):.*?RTS_HWTS: (?P<what>hwts [a-z ]*exception)\b")
_EXCEPTION_PRINT_RE = re.compile(r"^<exception_print>(?P<text>.*?)\s*$")
_TSCH_TASK_RE = re.compile(
    r"device_id=(?P<dev>\d+), stream_id=(?P<stream>\d+), task_id=(?P<task>\d+), "
    r"exception_code=(?P<code>0x[0-9A-Fa-f]+)"
)
TSCH_DUMP_LINES = 40
"""How far under the scheduler's exception line its register dump runs."""


def _tsch_exceptions(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``npu_device_exception`` per device, task and exception of the device's own task
    scheduler log, with what its dump's last line says the task was doing."""
    seen: set[tuple[str, ...]] = set()
    for index, (no, line, tagged) in enumerate(lines):
        if "RTS_HWTS" not in line or not (m := _TSCH_EXCEPTION_RE.search(line)):
            continue
        task: re.Match[str] | None = None
        doing = ""
        for _, after, _ in lines[index + 1 : index + 1 + TSCH_DUMP_LINES]:
            printed = _EXCEPTION_PRINT_RE.match(after.strip())
            if printed is None:
                break
            text = printed.group("text")
            task = task or _TSCH_TASK_RE.search(text)
            if text and "=" not in text and not text.isupper() and "START" not in text:
                doing = text  # the dump's words, not a register ("notify wait timeout")
        if task is None:
            continue  # a summary line after the dump (its slot, the model's failed result)
        key = (task.group("dev"), task.group("stream"), task.group("task"), m.group("what"))
        if key in seen:
            continue
        seen.add(key)
        report.events.append(
            LogEvent(
                kind="npu_device_exception",
                line=no,
                message=line[m.start() :].strip()[:300],
                rank=tagged,
                device=int(task.group("dev")),
                code=task.group("code"),
                library="TSCH",
                exception_type=f"{m.group('what')}"
                + (f" ({doing})" if doing else "")
                + f", stream {task.group('stream')} task {task.group('task')}",
            )
        )


def _npu_device_exceptions(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One event per device and exception."""
    _tsch_exceptions(lines, report)
    seen: set[tuple[int | None, str]] = set()
    for index, (no, line, tagged) in enumerate(lines):
        if "Message info[" not in line or not (m := _DEVICE_EXCEPTION_RE.search(line)):
            continue
        before = [t for _, t, _ in reversed(lines[max(0, index - DEVICE_EXCEPTION_LINES) : index])]
        head = _search(_DEVICE_PID_RE, before)
        if head is None:
            continue  # a "Message info" line of something else
        what = m.group("what").strip()
        key = (int(head.group("dev")), what)
        if key in seen:
            continue
        seen.add(key)
        ev = LogEvent(
            kind="npu_device_exception",
            line=no,
            message=line.strip()[:300],
            rank=tagged,
            device=key[0],
            pid=int(head.group("pid")),
            exception_type=what,
        )
        if code := _search(_HEX_CODE_RE, [t for _, t, _ in lines[index : index + 2]]):
            ev.code = code.group(1)
        report.events.append(ev)
    _bare_task_exceptions(lines, report)
    if "current device: " in "".join(t for _, t, _ in lines[-4000:]):
        _ggml_device(lines, report)
    if "Basic information" in "".join(t for _, t, _ in lines[:40]):
        _msaicerr_info(lines, report)


# msaicerr's report of an AI Core error (the CANN AI Core error analysis tool, info.txt): its
# headings "*****1. Basic information*****" over "device id : 0", "node name : L2Loss", "kernel
# name : te_l2loss_...", "*****2. AICERROR code*****" over "code : 0x800000" (or "error code :
# 0x10") and its error bits' meanings, and, where it ran the operator alone, a first section
# "Root cause conclusion" ("Single op test aicore error, please check op.")
_MSAICERR_HEAD_RE = re.compile(r"(?<!\*)\*{3,}\s*1\. Basic information\s*\*{3,}")
_MSAICERR_FIELD_RE = re.compile(
    r"\b(?P<key>device id|node name|kernel name)\s*:\s*(?P<value>[^\s*]+)"
    r"|\b(?P<code_key>(?:error )?code)\s*:\s*(?P<code>0x[0-9A-Fa-f]+)\b"
)
_MSAICERR_MEANING_RE = re.compile(r"\bmeaning:\s*(?P<what>[^,，\n]+)")
_MSAICERR_CONCLUSION_RE = re.compile(r"Root cause conclusion\*+\s*(?P<what>[^*#\s][^*\n]*)")
"""(a document's copy puts its "#..." explanation where the conclusion goes: none then)"""


def _msaicerr_info(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """An ``npu_device_exception`` for msaicerr's report: the device, the operator, the AI Core
    error code, its first error bit's meaning and the tool's conclusion."""
    head = next((no for no, t, _ in lines if _MSAICERR_HEAD_RE.search(t)), None)
    if head is None:
        return
    text = "\n".join(t for _, t, _ in lines)
    fields: dict[str, str] = {}
    for m in _MSAICERR_FIELD_RE.finditer(text):
        if m.group("code"):
            fields.setdefault("code", m.group("code"))
        else:
            fields.setdefault(m.group("key"), m.group("value"))
    code = fields.get("code")
    if "device id" not in fields or code is None:
        return
    # (an error bit's meaning, not the address bits': "write bus error", "ccu_illegal_instr")
    meaning = next(
        (m for m in _MSAICERR_MEANING_RE.finditer(text) if "Address" not in m.group("what")),
        None,
    )
    conclusion = _MSAICERR_CONCLUSION_RE.search(text)
    op = fields.get("node name")
    report.events.append(
        LogEvent(
            kind="npu_device_exception",
            line=head,
            message=f"msaicerr: AI Core error {code} on device {fields['device id']}"
            + (f" in {op}" if op else ""),
            device=int(fields["device id"]) if fields["device id"].isdigit() else None,
            op=op,
            code=code,
            exception_type=f"AI Core error {code}"
            + (f" in {op}" if op else "")
            + (f" ({meaning.group('what').strip()})" if meaning else "")
            + (f"; msaicerr: {conclusion.group('what').strip()}" if conclusion else ""),
        )
    )


# The runtime's words of a failed task copied without its plog prefix (MindSpore prints them in
# its exception's text): "The error from device(chipId:0, dieId:0), serial number is 13, an
# exception occurred during AICPU execution, stream_id:2, task_id:19016, errcode:21008, msg:inner
# error.[FUNC:ProcessStarsAicpuErrorInfo][FILE:device_error_proc.cc][LINE:1232]", with MindSpore's
# "Launch kernel failed: Bprop/gradDense/Reshape-op278" (the operator) near it
_BARE_TASK_EXCEPTION_RE = re.compile(
    r"The error from device\((?:chipId:(?P<chip>\d+), dieId:\d+|(?P<dev>\d+))\), serial number is "
    r"\d+, (?i:an exception occurred during) (?P<unit>[\w ]+?) execution, stream_id:(?P<stream>\d+), "
    r"(?:task_id|task_pos):(?P<task>\d+), errcode:(?P<code>\d+), msg:(?P<msg>[^\[\n]*?)\.?(?:\[|\s*$)"
)
# a compute core's own exception report without its plog prefix or error code ("The error from
# device(chipId:1, dieId:0), serial number is 10, there is an exception of aivec error, core id
# is 45, error code = 0, dump info: ...[FUNC:ProcessStarsCoreErrorInfo]"), one line a core, with
# "The extend info: errcode:(0, 0x800, 0) errorStr: ..." under it (hicann/runtime
# device_error_core_proc.cc)
_BARE_CORE_EXCEPTION_RE = re.compile(
    r"The error from device\((?:chipId:(?P<chip>\d+), dieId:\d+|(?P<dev>\d+))\), serial number is "
    r"\d+, (?:[Tt]here is an? (?:exception of )?(?P<unit>[\w ]+?) error(?: exception)?"
    r"|the error is (?P<unit2>[\w ]+?) error), core id is (?P<core>\d+)"
    r"(?:, error code = (?P<code>0x[0-9a-fA-F]+|\d+))?"
)
_LAUNCH_KERNEL_FAILED_RE = re.compile(r"\bLaunch kernel failed: (?P<op>\S+)")
BARE_TASK_OP_LINES = 6
"""How far from the runtime's words MindSpore's "Launch kernel failed" line may stand."""


def _bare_task_exceptions(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """An ``npu_device_exception`` per device and error code for the runtime's task-exception
    words where no plog line carried them (a plog's are read with its ERROR line)."""
    # a CANN code's own line that carries the words ("E39999: <time>  The error from device(...)
    # ..., an exception occurred during AICPU execution, ..."), not HCCL's EI/EJ codes: the code
    # was the task's exception, said as one failure
    by_code_line = {
        e.line: e
        for e in report.events
        if e.kind == "hccl_error" and not (e.code or "").startswith(("EI", "EJ"))
    }
    taken = {e.line for e in report.events}
    seen: set[tuple[int, str]] = set()
    _bare_core_exceptions(lines, report, taken)
    for index, (no, line, tagged) in enumerate(lines):
        if "exception occurred during" not in line or "[ERROR]" in line:
            continue
        if (no in taken and no not in by_code_line) or not (
            m := _BARE_TASK_EXCEPTION_RE.search(line)
        ):
            continue
        device = int(m.group("chip") or m.group("dev"))
        if (device, m.group("code")) in seen:
            continue
        seen.add((device, m.group("code")))
        near = lines[max(0, index - BARE_TASK_OP_LINES) : index + 1 + BARE_TASK_OP_LINES]
        op = next(
            (k.group("op") for _, t, _ in near if (k := _LAUNCH_KERNEL_FAILED_RE.search(t))), None
        )
        # the kernel task's result in the TraceBack under it ("AICPU Kernel task happen error,
        # retCode=0x2a.")
        below = [t for _, t, _ in lines[index + 1 : index + 1 + BARE_TASK_OP_LINES]]
        ret = _search(_KERNEL_RETCODE_RE, below)
        said = (
            f"{m.group('unit')} task exception (stream {m.group('stream')}, task "
            f"{m.group('task')}), errcode {m.group('code')} ({m.group('msg').strip()})"
            + (f" in {op}" if op else "")
            + (f", kernel task retCode {ret.group('ret')}" if ret else "")
        )
        if (code_event := by_code_line.get(no)) is not None:
            code_event.kind, code_event.device, code_event.exception_type = (
                "npu_device_exception",
                device,
                said,  # (the rule's line gives the code)
            )
            code_event.op = code_event.op or op
            continue
        report.events.append(
            LogEvent(
                kind="npu_device_exception",
                line=no,
                message=line.strip()[:300],
                rank=tagged,
                device=device,
                op=op,
                code=m.group("code"),
                exception_type=said,
            )
        )


BARE_CORE_LINES = 40
"""How far under a core's exception report the same device's other cores and its errorStr are
looked for."""


def _bare_core_exceptions(
    lines: list[tuple[int, str, int | None]], report: LogReport, taken: set[int]
) -> None:
    """An ``npu_device_exception`` per device for a compute core's exception reports copied
    without their plog prefix (a read plog's ERROR line carries them already): the cores that
    raised it and the runtime's words for its code."""
    devices = {e.device for e in report.events if e.kind == "npu_device_exception"}
    index = 0
    while index < len(lines):
        no, line, tagged = lines[index]
        index += 1
        if "core id is" not in line or no in taken or "[ERROR]" in line:
            continue
        if not (m := _BARE_CORE_EXCEPTION_RE.search(line)):
            continue
        device = int(m.group("chip") or m.group("dev"))
        if device in devices:
            continue
        devices.add(device)
        unit = (m.group("unit") or m.group("unit2")).strip()
        cores = [m.group("core")]
        words = _ERROR_STR_RE.search(line)
        for _, later, _ in lines[index : index + BARE_CORE_LINES]:
            if (c := _BARE_CORE_EXCEPTION_RE.search(later)) is not None:
                if (
                    int(c.group("chip") or c.group("dev")) == device
                    and c.group("core") not in cores
                ):
                    cores.append(c.group("core"))
            elif words is None and (w := _ERROR_STR_RE.search(later)) is not None:
                words = w
        what = ""
        if words is not None:  # (its words as far as the copy keeps them)
            cut = words.string[words.end() : words.end() + 1] != "."
            what = f" ({words.group('what').strip()}{' ...' if cut else ''})"
        said = f"{unit} error exception on core(s) {', '.join(cores)}{what}"
        # a CANN code's line just above (not HCCL's EI/EJ codes), its TraceBack holding this
        # report: the code was the core's exception (the operator's), said as one failure
        above = [
            e
            for e in report.events
            if e.kind == "hccl_error"
            and no - BARE_CORE_LINES <= e.line < no
            and not (e.code or "").startswith(("EI", "EJ"))
            and e.device in (None, device)
        ]
        if above:
            ev = max(above, key=lambda e: e.line)
            ev.kind, ev.device, ev.exception_type = "npu_device_exception", device, said
            continue
        report.events.append(
            LogEvent(
                kind="npu_device_exception",
                line=no,
                message=line.strip()[:300],
                rank=tagged,
                device=device,
                code=m.group("code"),
                exception_type=said,
            )
        )


# NCCL's socket layer handed an address of no known family (socket.cc ncclSocketInit:
# "connecting to address %s with family %d is neither AF_INET(%d) nor AF_INET6(%d)"): family 0
# is an address never filled in, as when a peer's bootstrap data is not read alike (the nodes'
# NCCL builds differing) or the address given for the interface is not one
_NCCL_FAMILY_RE = re.compile(
    r"ncclSocketInit: connecting to address\b.*?with family (?P<f>\d+) is neither AF_INET"
)


# NCCL 2.1-2.3's socket transport, one line an interface: "NCCL INFO NET : Using interface
# lo:127.0.0.1<0>"
_OLD_NET_IFACE_RE = re.compile(r"\bNET : Using interface (?P<iface>\S+)")


def _nccl_address_family(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """NCCL's refusal of an address of no family, said with the NCCL failure it led to (its
    internal error)."""
    hit = next(((no, m) for no, t, _ in lines if (m := _NCCL_FAMILY_RE.search(t))), None)
    if hit is None:
        return
    no, m = hit
    why = (
        f"NCCL was handed a peer address of family {m.group('f')} (line {no}): an address never "
        "filled in, as when the nodes run different NCCL versions and read each other's "
        "bootstrap data differently; compare NCCL's version on every node"
    )
    nccl = [e for e in report.events if e.library == "NCCL"]
    if nccl:
        ev = min(nccl, key=lambda e: abs(e.line - no))
        ev.exception_type = f"{ev.exception_type}; {why}" if ev.exception_type else why


# ggml's backends abort on a failed call with its message, the device and where
# (ggml-cann.cpp ggml_cann_error, ggml-cuda.cu ggml_cuda_error): "CANN error: <msg>", then
# "  current device: 0, in function aclnn_arange at .../aclnn_ops.cpp:291", then the statement
_GGML_DEVICE_RE = re.compile(r"^\s*current device: (?P<dev>-?\d+), in function (?P<func>\w+) at ")
# the runtime's word of the operator whose kernel did not launch ("launch failed for Range,
# errno:561103.")
_LAUNCH_FAILED_OP_RE = re.compile(r"\blaunch failed for (?P<op>\w+), errno:(?P<errno>\d+)")
GGML_EVENT_LINES = 40
"""How far above ggml's "current device" line the failure it aborted on may stand."""


def _ggml_device(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """The device and the function of ggml's abort, given to the failure read just above it
    (a CANN code's or a CUDA error's line) where that failure names none."""
    for index, (no, line, _) in enumerate(lines):
        if not (m := _GGML_DEVICE_RE.match(line)) or m.group("dev") == "-1":
            continue
        near = [e for e in report.events if no - GGML_EVENT_LINES <= e.line < no]
        if not near:
            continue
        ev = max(near, key=lambda e: e.line)
        if ev.device is None:
            ev.device = int(m.group("dev"))
        above = lines[max(0, index - GGML_EVENT_LINES) : index]
        if ev.op is None and (op := _search(_LAUNCH_FAILED_OP_RE, [t for _, t, _ in above])):
            ev.op = op.group("op")
        if ev.call is None:
            ev.call = m.group("func")
            ev.exception_type = (
                (f"{ev.exception_type}; " if ev.exception_type else "")
                + f"ggml's {m.group('func')} aborted on it"
                + (f" (the {ev.op} operator's kernel did not launch)" if ev.op else "")
            )


# MindSpore's DumpTaskExceptionInfo (plugin/device/ascend/hal/device/ascend_kernel_runtime.cc),
# after a device task failed, when the failed task's node is the GetNext op (the data sink that
# feeds the device from the dataset's queue): "GetNext error may be caused by slow data
# processing (bigger than 20s / batch) or transfer data to device error.", then its suggestions
_GETNEXT_RE = re.compile(r"GetNext error may be caused by (?P<why>.+?)\.?\s*$")
_AICPU_GETNEXT_RE = re.compile(
    r"Aicpu kernel execute failed, (?:device_id=(?P<device>\d+), )?.*?\bfault op_name="
    r"\S*getnext\w*",
    re.I,
)
_MS_PID_RE = re.compile(r"\b[A-Z]+\((?P<pid>\d+),[0-9a-f]+,")
_SLOW_BATCH_RE = re.compile(r"it takes more than (?P<s>\d+) seconds to fetch a batch of data")
GETNEXT_TASK_LINES = 10
"""How far above MindSpore's GetNext words its dump's "Task fail infos" line may stand."""
_TASK_FAIL_RE = re.compile(r"Task fail infos .*?device_id: (?P<device>\d+), retcode: (?P<code>\d+)")
_REPORTING_DEVICE_RE = re.compile(
    r"Task fail infos .*?device_id: (\d+)|(?:Notify wait|Task) execute failed, device_id=(\d+)"
)
"""MindSpore's log prefix "[WARNING] DEVICE(45501,fff2ab7fe1f0,python):...": module(pid,tid,name)."""


# MindSpore's collective manager when it could not create a group's communicator on the device
# (collective_manager.cc CreateCommunicationGroup: "Failed to create comm group on device side for
# nccl_world_group"); the group's name says the backend (MindSpore's nccl_world_group on GPUs,
# hccl_world_group on Ascend)
_MS_GROUP_FAILED_RE = re.compile(r"Failed to create comm group on device side for (?P<group>\S+)")
# MindSpore's version check at start: "MindSpore version 2.2.0 and cuda version 11.8.89 does not
# match, CUDA version [['10.1', '11.1', '11.6']] are supported by MindSpore officially."
_MS_CUDA_MISMATCH_RE = re.compile(
    r"MindSpore version (?P<ms>[\w.]+) and cuda version (?P<cuda>[\w.]+) does not match"
)


def _mindspore_group_failures(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """MindSpore's failure to create a communication group on the device, one per process and
    group (``comm_group_failure``), with its CUDA version warning where the log has one."""
    seen: set[tuple[int | None, str]] = set()
    cuda = next(
        ((no, m) for no, line, _ in lines if (m := _MS_CUDA_MISMATCH_RE.search(line))), None
    )
    for no, line, tagged in lines:
        if "comm group" not in line or not (m := _MS_GROUP_FAILED_RE.search(line)):
            continue
        pid_m = _MS_PID_RE.search(line)
        pid = int(pid_m.group("pid")) if pid_m else None
        group = m.group("group").rstrip(".,")
        if (pid, group) in seen:
            continue
        seen.add((pid, group))
        backend = (
            "NCCL" if group.startswith("nccl") else "HCCL" if group.startswith("hccl") else None
        )
        why = f"MindSpore could not create communication group {group} on the device" + (
            f" ({backend}'s communicator)" if backend else ""
        )
        if cuda is not None:
            why += (
                f"; MindSpore warned at start that its version {cuda[1].group('ms')} does not "
                f"match CUDA {cuda[1].group('cuda')} (line {cuda[0]})"
            )
        report.events.append(
            LogEvent(
                kind="comm_group_failure",
                line=no,
                message=line[m.start() :].strip()[:300],
                rank=tagged,
                pid=pid,
                group=group,
                library="MindSpore",
                exception_type=why,
            )
        )


def _getnext_failures(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """A failed device task of MindSpore's GetNext node, one per process: the job stopped on its
    input pipeline, not on a collective."""
    seen: set[int | None] = set()
    for index, (no, line, tagged) in enumerate(lines):
        if "GetNext error" not in line or not (m := _GETNEXT_RE.search(line)):
            continue
        pid_m = _MS_PID_RE.search(line)
        pid = int(pid_m.group("pid")) if pid_m else None
        if pid in seen:
            continue
        seen.add(pid)
        # the same dump's "Task fail infos task_id: 2, stream_id: 45, tid: ..., device_id: 0,
        # retcode: 507011 ( model execute failed)" above it: the device and the runtime's code
        above = [
            t
            for _, t, _ in lines[max(0, index - GETNEXT_TASK_LINES) : index]
            if pid is None or (p := _MS_PID_RE.search(t)) is None or int(p.group("pid")) == pid
        ]
        # (the nearest above: MindSpore dumps each failed task in turn, the GetNext node's last)
        task = _search(_TASK_FAIL_RE, above[::-1])
        code = int(task.group("code")) if task else None
        report.events.append(
            LogEvent(
                kind="input_pipeline_failure",
                line=no,
                message=line[line.find("GetNext error") :].strip()[:300],
                rank=tagged,
                pid=pid,
                device=int(task.group("device")) if task else None,
                code=str(code) if code is not None else None,
                code_name=ACL_RT_ERRORS.get(code) if code is not None else None,
                library="MindSpore",
                exception_type="a device task of the GetNext node (the data sink feeding the "
                f"device from the dataset) failed: {m.group('why')}"
                + (
                    f" (device {task.group('device')}, retcode {code}"
                    + (f" = {ACL_RT_ERRORS[code]}" if code in ACL_RT_ERRORS else "")
                    + ")"
                    if task
                    else ""
                ),
            )
        )
    if seen:
        return
    slow = next(
        (
            (no, m)
            for no, line, _ in lines
            if "Bad performance attention" in line and (m := _SLOW_BATCH_RE.search(line))
        ),
        None,
    )
    if slow is not None:
        # MindSpore's own warning that a batch came too slowly (data_queue_op.cc
        # DetectPerBatchTime), then a device task that failed: the data sink starved
        for no, line, tagged in lines:
            if no < slow[0] or "Task fail infos" not in line:
                continue
            fail = _TASK_FAIL_RE.search(line)
            report.events.append(
                LogEvent(
                    kind="input_pipeline_failure",
                    line=no,
                    message=line[line.find("Task fail infos") :].strip()[:300],
                    rank=tagged,
                    device=int(fail.group("device")) if fail else None,
                    code=fail.group("code") if fail else None,
                    library="MindSpore",
                    exception_type=f"a batch took more than {slow[1].group('s')} s to reach the "
                    "device (MindSpore's warning at line "
                    f"{slow[0]}), then the device task failed"
                    + (f" ({fail.group('code')})" if fail else "")
                    + ": the input pipeline starved the data sink",
                )
            )
            return
    for no, line, tagged in lines:
        # the AI CPU's GetNext kernel that timed out (CANN's E30008 "AI CPU operator execution
        # time out", whose own causes name the GetNext operator's preprocessing first):
        # "Aicpu kernel execute failed, device_id=0, ..., fault op_name=aicpu_getnext_IteratorGetNext"
        if "op_name=" not in line or not (k := _AICPU_GETNEXT_RE.search(line)):
            continue
        timed_out = any("E30008" in t for _, t, _ in lines)
        report.events.append(
            LogEvent(
                kind="input_pipeline_failure",
                line=no,
                message=line[k.start() :].strip()[:300],
                rank=tagged,
                device=int(k.group("device")) if k.group("device") else None,
                library="CANN AI CPU",
                code="E30008" if timed_out else None,
                exception_type="the GetNext operator (the input pipeline feeding the device) "
                + (
                    "timed out on the AI CPU (E30008): its data preprocessing took too long or "
                    "stopped"
                    if timed_out
                    else "failed on the AI CPU"
                ),
            )
        )
        return


# torch_npu's task queue after a device task failed (NPUQueue.cpp): "The Inner error is reported
# as above. The process exits for this inner error, and the current working operator name is
# lccl_allreduce." (the operator the queue was running when the error surfaced; the error itself
# is the CANN report above it)
_TASK_QUEUE_EXIT_RE = re.compile(
    r"The Inner error is reported as above\. The process exits for this inner error, and the "
    r"current working operator name is (?P<op>[\w-]+(?:\.[\w-]+)*)"
)


_TASK_QUEUE_DEVICE_RE = re.compile(r"\(PID:\d+, Device:(\d+)")
_TASK_QUEUE_PID_RE = re.compile(r"\(PID:(\d+), Device:")
# torch's C++ error as a log prints it: its message line ("[rank0]:[E623 13:46:28.176 compiler_
# depend.ts:429] ReshapeAndCacheOperation setup failed!", glog's head before the message), then
# "Exception raised from OperationSetup at FILE:LINE (most recent call first):"
_C10_RAISED_FROM_RE = re.compile(
    r"^Exception raised from (\S+) at \S+:\d+ \(most recent call first\):"
)
_C10_MESSAGE_RE = re.compile(r"^.*?\[[EWIF]\d{3,4} [\d:.]+ [\w./-]+:\d+\]\s*")
TASK_QUEUE_DEVICE_LINES = 6


def _task_queue_exits(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """A process torch_npu's task queue stopped on an inner (CANN) error, one per operator named,
    where no other reading explains the file (the error the CANN lines above it gave, read
    on its own, comes first)."""
    if report.events:
        return
    seen: set[str] = set()
    # (an exception that quotes the message in its repr, "MQEngineDeadError: ... RuntimeError('The
    # Inner error is reported as above. ...": the process's own line, where there is one, is read)
    own_ops = {
        m.group("op")
        for _, line, _ in lines
        if "The Inner error is reported" in line
        and (m := _TASK_QUEUE_EXIT_RE.search(line))
        and line[max(0, m.start() - 2) : m.start()] not in ("('", '("')
    }
    for index, (no, line, tagged) in enumerate(lines):
        if "The Inner error is reported" not in line or not (m := _TASK_QUEUE_EXIT_RE.search(line)):
            continue
        quoted = line[max(0, m.start() - 2) : m.start()] in ("('", '("')
        if m.group("op") in seen or (quoted and m.group("op") in own_ops):
            continue
        seen.add(m.group("op"))
        # torch_npu's own error line just under it names the device ("[ERROR] 2025-11-26-11:10:36
        # (PID:1349, Device:0, RankID:-1) ERR00100 ..."), kept where the copy cuts it after that
        after = [t for _, t, _ in lines[index + 1 : index + 1 + TASK_QUEUE_DEVICE_LINES]]
        device = _search(_TASK_QUEUE_DEVICE_RE, after)
        pid = _search(_TASK_QUEUE_PID_RE, after)
        # torch's C++ error of the operator's set-up above it ("[rank0]:[E623 ...] ReshapeAndCache
        # Operation setup failed!" over "Exception raised from OperationSetup at ..."): the inner
        # error the task queue reports
        cause = next(
            (
                (lines[j][0], _C10_MESSAGE_RE.sub("", lines[j][1]).strip(), raised.group(1))
                for j in range(index - 1, max(-1, index - TRACEBACK_LINES), -1)
                if j + 1 < len(lines)
                and (raised := _C10_RAISED_FROM_RE.match(lines[j + 1][1]))
                and lines[j][1].strip()
            ),
            None,
        )
        said = f"an inner (CANN) error stopped the process while operator {m.group('op')} ran"
        said += (
            f": {cause[1][:160]} (line {cause[0]}, raised from {cause[2]})"
            if cause
            else " (its code is in the lines above it, not in this copy)"
        )
        report.events.append(
            LogEvent(
                kind="npu_device_exception",
                line=no,
                message=line[m.start() :].strip()[:300],
                rank=tagged,
                device=int(device.group(1)) if device else None,
                pid=int(pid.group(1)) if pid else None,
                op=m.group("op"),
                exception_type=said[:300],
            )
        )


def _gpu_hw_exceptions(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """ROCm's device faults: one event per GPU node and reason (each process on it prints one)."""
    seen: set[tuple[str, str]] = set()
    for no, line, tagged in lines:
        if ("HW Exception" not in line and "access fault" not in line) or not (
            m := _HW_EXCEPTION_RE.search(line)
        ):
            continue
        node = m.group("node") or m.group("node2")
        why = m.group("why") or f"{m.group('fault')} (reason: {m.group('why2').strip()})"
        key = (node, why)
        if key in seen:
            continue
        seen.add(key)
        # (a progress bar the exception was printed onto, "41%|████▌ | 366/903 [...]HW Exception
        # by GPU node-9 ...", is not part of it)
        said = line[m.start() :] if "|" in line[: m.start()] else line
        report.events.append(
            LogEvent(
                kind="gpu_hw_exception",
                line=no,
                message=said.strip()[:300],
                rank=tagged,
                host=None,
                exception_type=f"{why} (GPU {node})" if node else why,
            )
        )


# The NVIDIA kernel driver's own reports in the kernel log (dmesg, journalctl -k): an Xid event,
# "NVRM: Xid (PCI:0000:2b:00): 79, GPU has fallen off the bus." (the bus id, the Xid number,
# then the driver's words; older drivers leave out "PCI:"; NVIDIA's Xid catalog,
# docs.nvidia.com/deploy/xid-errors, lists what each number means), its NVLink core's
# training errors, "NVRM: GPU1 knvlinkCoreSetTxSublinkModeCallback: Error setting TX sublink
# mode. mode = 0x00000008" (a link that did not come up: nvidia-smi then shows it inactive), and
# the NVSwitch driver's SXid records, "nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 20034, Fatal,
# Link 48 LTSSM Fault Up", each followed by its "Severity ..." and "Data {...}" lines.
# (a GPU in MIG mode names the instance after the bus: "Xid (PCI:0000:01:00 GPU-I:05): 94";
# the driver's "pid=N, name=python, " before its words name the process, kept in the message)
# (a copy that kept the Xid without the driver's "NVRM: " and with its bus masked, "Xid
# (PCI:0000:??:00): 119 - Timeout waiting for RPC from GSP!": a line that starts with it)
_XID_RE = re.compile(
    r"(?:NVRM: |^\s*)Xid \((?:PCI:)?(?P<bus>[0-9A-Fa-f:.?]+)(?P<mig>(?:\s+GPU-C?I:\d+)*)\): "
    r"(?P<xid>\d+)(?:,|\s+-\s)\s*(?:pid=[^,]*, name=[^,]*,\s*)?(?P<what>.*?)\s*$"
)
# gpud's (leptonai/gpud) event of a kernel Xid: "XID 79(GPU has fallen off the bus) detected on
# PCI:0000:ae:00" (the same fields as the driver's line, in its own words)
_GPUD_XID_RE = re.compile(
    r"\bXID (?P<xid>\d+)\((?P<what>[^)\n]{0,200})\) detected on PCI:(?P<bus>[0-9A-Fa-f:.]+)(?P<mig>)"
)
XID_NAMES = {
    13: "ROBUST_CHANNEL_GR_EXCEPTION",
    31: "ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT",
    43: "ROBUST_CHANNEL_RESETCHANNEL_VERIF_ERROR",
    45: "ROBUST_CHANNEL_PREEMPTIVE_REMOVAL",
    48: "ROBUST_CHANNEL_GPU_ECC_DBE",
    61: "PMU_BREAKPOINT",
    62: "PMU_HALT_ERROR",
    63: "INFOROM_PAGE_RETIREMENT_EVENT",
    64: "INFOROM_PAGE_RETIREMENT_FAILURE",
    74: "NVLINK_ERROR",
    79: "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS",
    92: "EXCESSIVE_SBE_INTERRUPTS",
    94: "ROBUST_CHANNEL_CONTAINED_ERROR",
    95: "ROBUST_CHANNEL_UNCONTAINED_ERROR",
    119: "GSP_RPC_TIMEOUT",
    120: "GSP_ERROR",
    136: "ALI_TRAINING_FAIL",
    137: "NVLINK_PRIV_ERR",
    140: "UNRECOVERABLE_ECC_ERROR_ESCAPE",
    143: "GPU_INIT_ERROR",
    144: "NVLINK_SAW_ERROR",
    145: "NVLINK_RLW_ERROR",
    146: "NVLINK_TLW_ERROR",
    147: "NVLINK_TREX_ERROR",
    148: "NVLINK_NVLPW_CTRL_ERROR",
    149: "NVLINK_NETIR_ERROR",
    150: "NVLINK_MSE_ERROR",
    154: "GPU_RECOVERY_ACTION_CHANGED",
    155: "NVLINK_SW_DEFINED_ERROR",
    156: "RESOURCE_RETIREMENT_EVENT",
    157: "RESOURCE_RETIREMENT_FAILURE",
    158: "GPU_FATAL_TIMEOUT",
}
"""The driver's own names of the Xids a training node meets most (open-gpu-kernel-modules,
src/common/sdk/nvidia/inc/nverror.h); NVIDIA's Xid catalog gives each one's action."""
XID_MEANINGS = {
    13: "graphics engine exception: most often the application's own fault",
    31: "GPU memory page fault: most often the application's own bad access",
    43: "GPU stopped processing the application's work: most often the application's own fault",
    45: "preemptive cleanup after an earlier error: follows another failure",
    48: "double-bit ECC error: the GPU's memory failed",
    62: "the GPU's internal micro-controller (its PMU) halted: it needs a reset",
    63: "ECC page retirement or row remapping recorded: a reset applies it",
    64: "ECC page retirement or row remapping failed: the memory has no spare left",
    74: "NVLink error: a link between GPUs failed",
    79: "GPU has fallen off the bus: the GPU is gone until reset or reboot",
    92: "high single-bit ECC error rate",
    94: "contained ECC error: the processes using the bad memory were ended, the GPU stays usable",
    95: "uncontained ECC error: every process on the GPU was ended; it needs a reset",
    119: "GSP RPC time-out: the GPU's firmware stopped answering; it needs a reset",
    120: "GSP error: the GPU's firmware failed; it needs a reset",
}
"""What the most common Xids mean and whose they are (NVIDIA's Xid catalog, docs.nvidia.com/deploy/
xid-errors, its Description column; the application's own are the Xids NVIDIA's Kubernetes device
plugin leaves a GPU healthy on, PLUGIN_APPLICATION_XIDS below)."""
XID_RESET = frozenset({48, 62, 64, 79, 95, 119, 120})
"""Xids after which the GPU needs a reset before any job uses it (the meanings above: a
double-bit ECC error, its micro-controller halted (the catalog's RESET_GPU), a row remap that failed, a GPU off the bus, an uncontained ECC error, the
GSP firmware timed out or failed): a fault by their number alone."""
_XID_CAUSE_RE = re.compile(r"caused by previous Xid (\d+)")
"""An Xid the driver logged as the consequence of an earlier one ("45, pid=..., Ch 00000001 caused
by previous Xid 149"): the earlier one is the fault, this one the channels torn down after it."""


def _xid_said(xid: str, bus: str, what: str) -> str:
    """An Xid event in words: its number, the GPU, the driver's text, and the earlier Xid it says
    it followed, named (an NVLink one said so)."""
    said = f"Xid {xid} on {bus}: {what}"
    if cause := _XID_CAUSE_RE.search(what):
        before = XID_NAMES.get(int(cause.group(1)))
        if before:
            kind = "an NVLink error: the fault this follows" if "NVLINK" in before else "the fault"
            said += f" [Xid {cause.group(1)} = {before}, {kind}]"
    return said


# The driver's own reports of a GPU it could not bring up, with no Xid number: at load, "NVRM:
# The NVIDIA GPU 0000:b3:00.0 / NVRM: (PCI ID: 10de:26b5) installed in this system has / NVRM:
# fallen off the bus and is not responding to commands." (three lines); at open, "NVRM: GPU
# 0000:0a:00.0: RmInitAdapter failed! (0x24:0x72:1568)" (its "rm_init_adapter failed, device
# minor number 5" says which /dev/nvidiaN).
_NVRM_GPU_LOST_RE = re.compile(r"NVRM: The NVIDIA GPU (?P<bus>[0-9A-Fa-f:.]+)\s*$")
_NVRM_INIT_FAILED_RE = re.compile(
    r"NVRM: GPU (?P<bus>[0-9A-Fa-f:.]+): (?P<what>RmInitAdapter failed!.*?)\s*$"
)
_NVRM_MINOR_RE = re.compile(r"rm_init_adapter failed, device minor number (?P<minor>\d+)")
# the driver's own reason a few lines above "RmInitAdapter failed!": "NVRM:
# confComputeConstructEngine_IMPL: GPU confidential compute capability is not enabled." (its
# assertion and "osInitNvMapping ... bailing out" lines between are the unwinding, not a reason)
_NVRM_REASON_RE = re.compile(r"NVRM: (?P<fn>\w+): (?P<why>[A-Z][^*\n]*)$")
_NVRM_UNWIND_WORDS = ("nvAssertFailed", "osInitNvMapping", "RmInitAdapter", "rm_init_adapter")
INIT_CAUSE_LINES = 6
"""How far above "RmInitAdapter failed!" the driver's own reason is looked for."""


def _init_failure_cause(lines: list[tuple[int, str, int | None]], index: int) -> str | None:
    """The driver's reason a GPU did not initialise, from the lines just above its failure."""
    for _, above, _ in reversed(lines[max(0, index - INIT_CAUSE_LINES) : index]):
        if "RmInitAdapter failed!" in above:
            break  # the failure before: its reason is not this one's
        if (r := _NVRM_REASON_RE.search(above)) and not r.group("fn").startswith(
            _NVRM_UNWIND_WORDS
        ):
            return f"{r.group('fn')}: {r.group('why').strip()}"
    return None


_FAULT_WORDS_RE = re.compile(
    r"fallen off the bus|^\s*[A-Z][A-Z0-9_]* Fatal\b"
    r"|\bto 0x[0-9a-f]+ \((?:GPU Reset Required|Node Reboot Required|Drain and Reset)\)",
    re.I,
)
"""Driver words that say the GPU is gone whatever its Xid number, or that the error was fatal
(the NVLink Xids' own "NETIR_LINK_EVT Fatal XC0 i0 Link 00", beside their "SAW_MVB Nonfatal ...",
as the NVSwitch driver's SXids say Fatal / Non-fatal), or Xid 154's recovery action changed to a
reset, a reboot or a drain ("GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset
Required)": the driver's names, open-gpu-kernel-modules gpu.c _gpuRecoveryActionName): a fault,
not an event."""
_NVRM_NVLINK_RE = re.compile(
    r"NVRM: GPU(?P<gpu>\d+) (?P<call>knvlink\w+): (?P<what>Error\b.*?)\s*$"
)
# The GPU's GSP firmware no longer answering the driver (open-gpu-kernel-modules kernel_gsp.c:
# "NVRM: GPU6 _kgspIsHeartbeatTimedOut: Heartbeat timed out, ... diff 6070 timeout 5200", its
# RPC poll's "GSP RM heartbeat timed out", the "***** GSP Timeout *****" banner), and the memory
# subsystem check that fails with it ("kgmmuCheckMemSubsysError_IMPL: Memory Subsystem Error
# detected"): the GPU cannot run work until it is reset (an Xid 154 "GPU Reset Required" may
# follow); a fault even with no Xid line.
_NVRM_GSP_RE = re.compile(
    r"NVRM: (?:GPU(?P<gpu>\d+) )?(?P<call>_?k(?:gsp|gmmu)\w+): (?P<what>[^\n]*?"
    r"(?:[Hh]eartbeat timed out|GSP Timeout|Memory Subsystem Error detected)[^\n]*?)\s*$"
)
# The driver's RPC to the GPU's GSP firmware failing with an NV_STATUS (open-gpu-kernel-modules
# kernel_gsp.c _issueRpcAndWait: "NVRM: GPU0 _issueRpcAndWait: rpcSendMessage failed with status
# 0x0000000f for fn 10 sequence 12303!"), the codes' names and texts from
# src/common/sdk/nvidia/inc/nvstatuscodes.h; and the end of the GSP firmware's crash report
# ("NVRM: ------------[ end crash report ]------------") with the RPC event that followed it
# ("_kgspProcessRpcEvent: Failed to process received event 0x1004 (RC_TRIGGERED)")
_NVRM_RPC_STATUS_RE = re.compile(
    r"NVRM: GPU(?P<gpu>\d+) (?P<call>_issueRpcAndWait): rpcSendMessage failed with status "
    r"(?P<status>0x[0-9a-fA-F]{8})"
)
NV_STATUS_TEXTS = {
    0x0F: ("NV_ERR_GPU_IS_LOST", "GPU lost from the bus"),
    0x10: ("NV_ERR_GPU_IN_FULLCHIP_RESET", "GPU currently in full-chip reset"),
    0x62: ("NV_ERR_RESET_REQUIRED", "Reset required"),
    0x65: ("NV_ERR_TIMEOUT", "Call timed out"),
    0x71: ("NV_ERR_FATAL_ERROR", "Fatal/unrecoverable error"),
    0x79: ("NV_ERR_RISCV_ERROR", "Generic RISC-V assert or halt"),
}
"""The NV_STATUS codes an RPC to GSP fails with that say the GPU is gone or must be reset."""
NV_STATUS_FAULTS = frozenset({0x0F, 0x10, 0x62, 0x71, 0x79})
_NVRM_GSP_CRASH_RE = re.compile(
    r"NVRM: (?:GPU(?P<gpu>\d+) )?(?P<call>_kgspProcessRpcEvent): Failed to process received event "
    r"(?P<event>0x[0-9a-fA-F]+ \(\w+\))"
)
_SXID_RE = re.compile(
    r"(?P<switch>nvidia-nvswitch\d+): SXid \((?:PCI:)?(?P<bus>[0-9A-Fa-f:.]+)\): (?P<sxid>\d+),"
    r"\s*(?P<what>.*?)\s*$"
)
_SXID_HEAD_RE = re.compile(r"^(?:Fatal|Non-fatal),")
"""An SXid record's first line (its severity and what failed); the lines after it give details."""
GSP_CRASH_LINES = 40
"""How far above the GSP event the driver failed on its crash report's end may stand."""


# a syslog line's machine, before the program that logged it: "May 19 07:08:57 ip-26-0-146-100
# kernel: [680111.646286] NVRM: ..." (RFC 3164), "2024-05-19T07:08:57.123456+00:00 gpu-3
# kernel: ..." (RFC 5424 / journalctl -o short-iso)
_SYSLOG_HOST_RE = re.compile(
    r"(?:\b[A-Z][a-z]{2} +\d{1,2} \d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\S*) "
    r"(?P<host>[\w.-]+) kernel: "
)


# NVIDIA's Kubernetes device plugin taking a GPU out on an Xid it counts critical (its health
# check: "XidCriticalError: Xid=48 on Device=GPU-e3db...; marking device as unhealthy.")
# (older plugins: "XidCriticalError: Xid=79 on Device=GPU-..., the device will go unhealthy." and,
# when the event named no device, "XidCriticalError: Xid=79, All devices will go unhealthy.")
_PLUGIN_XID_RE = re.compile(
    r"XidCriticalError: Xid=(?P<xid>\d+)(?: on (?:Device|GPU)=(?P<uuid>[^;,\s]+)|, All devices)"
)
PLUGIN_APPLICATION_XIDS = {"13", "31", "43", "45", "68", "109"}
"""The Xids the device plugin leaves a GPU healthy on by default (application errors:
k8s-device-plugin internal/rm/health.go ignoredXids); one it reports was enabled by hand."""
# the NVIDIA driver loading ("NVRM: loading NVIDIA UNIX x86_64 Kernel Module  580.95.05 ..."): a
# kernel log of the driver's start, which with no Xid or error is a healthy one
NVRM_LOADING_RE = re.compile(r"NVRM: loading NVIDIA UNIX \S+ Kernel Module\s+\d+\.\d+")
_DRIVER_START_LINE_RE = re.compile(
    r"^\s*(?:\[\s*\d+\.\d+\]\s*)?(?:NVRM: loading NVIDIA UNIX |nvidia(?:[-_](?:modeset|nvlink|uvm|drm))?"
    r"(?: [0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.\d)?: |\[drm\] |input: HDA NVidia |"
    r"snd_hda_intel [0-9a-fA-F:.]+: )"
)
"""A line of the NVIDIA driver's start in a kernel log: NVRM's banner, its modules (with the
kernel's note that an unsigned out-of-tree module taints it), the GPUs enabled, the cards' display
and HDMI sound functions."""
_MODULE_TAINT_RE = re.compile(
    r"\bmodule verification failed: signature and/or required key missing"
)


def _nvrm_errors(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """The NVIDIA drivers' Xid events, NVLink training errors and NVSwitch SXid records, one
    event per GPU (or switch link) and report, its repeats counted: ``gpu_driver_fault`` where
    the line itself says the hardware failed (a GPU fallen off the bus, a link that did not
    train, a Fatal SXid), ``gpu_driver_error`` for the other Xids and SXids, which range from an
    application's own fault to one that needs a reset (NVIDIA's Xid catalog tells each)."""
    events: dict[tuple[str, ...], LogEvent] = {}
    repeats: dict[tuple[str, ...], int] = {}
    details: dict[tuple[str, str], tuple[int, str, int | None, re.Match[str]]] = {}
    for index, (no, line, tagged) in enumerate(lines):
        if (
            "NVRM: " not in line
            and "SXid (" not in line
            and "XidCriticalError" not in line
            and not line.lstrip().startswith("Xid (")
            and "detected on PCI:" not in line
        ):
            continue
        host_m = _SYSLOG_HOST_RE.search(line)
        host = host_m.group("host") if host_m else None
        code: str | None = None
        device: int | None = None
        fault = False
        call: str | None = None
        if m := _XID_RE.search(line) or (
            _GPUD_XID_RE.search(line) if "detected on PCI:" in line else None
        ):
            where = f"PCI:{m.group('bus')}{m.group('mig')}"
            key: tuple[str, ...] = ("xid", where, m.group("xid"))
            what = _xid_said(m.group("xid"), where, m.group("what"))
            code = m.group("xid")
            fault = bool(_FAULT_WORDS_RE.search(m.group("what"))) or int(code) in XID_RESET
        elif "XidCriticalError" in line and (m := _PLUGIN_XID_RE.search(line)):
            # (a time-sliced GPU's replicas, "GPU-...::0", "::1", are one GPU)
            uuid = re.sub(r"::\d+$", "", m.group("uuid")) if m.group("uuid") else None
            key = ("plugin", uuid or "all", m.group("xid"))
            code = m.group("xid")
            what = (
                f"Xid {code} on {uuid}: the Kubernetes GPU device plugin marked the GPU unhealthy "
                "(out of nvidia.com/gpu until it is healthy again)"
                if uuid
                else f"Xid {code} on a device the event did not name: the Kubernetes GPU device "
                "plugin marked every GPU of the node unhealthy"
            )
            # (an application's Xid leaves the GPU sound: an error, not a fault)
            fault = code not in PLUGIN_APPLICATION_XIDS
        elif m := _NVRM_GPU_LOST_RE.search(line):
            # its next two lines say why: "(PCI ID: ...) installed in this system has" / "fallen
            # off the bus and is not responding to commands."
            said = " ".join(
                t.split("NVRM:", 1)[-1].strip() for _, t, _ in lines[index + 1 : index + 3]
            )
            if not _FAULT_WORDS_RE.search(said):
                continue
            key = ("lost", m.group("bus"))
            what = f"GPU {m.group('bus')} (no Xid): {said}"
            fault = True
        elif m := _NVRM_INIT_FAILED_RE.search(line):
            key = ("init", m.group("bus"))
            minor = next(
                (
                    k.group("minor")
                    for _, t, _ in lines[index + 1 : index + 3]
                    if (k := _NVRM_MINOR_RE.search(t))
                ),
                None,
            )
            # (a driver or firmware mismatch, another driver bound to the GPU, a VM's BAR or
            # IOMMU set-up give the same line as failed hardware: an error, not a fault)
            what = f"GPU {m.group('bus')} did not initialise: {m.group('what')}" + (
                f" (/dev/nvidia{minor})" if minor else ""
            )
            if why := _init_failure_cause(lines, index):
                what += f"; the driver said before it: {why}"
            call = "RmInitAdapter"
        elif m := _NVRM_NVLINK_RE.search(line):
            key = ("nvlink", m.group("gpu"), m.group("call"))
            what = f"NVLink error on GPU{m.group('gpu')} ({m.group('call')}): {m.group('what')}"
            device = int(m.group("gpu"))
            fault = True
        elif "NVRM: " in line and (m := _NVRM_GSP_RE.search(line)):
            key = ("gsp", m.group("gpu") or "")
            gpu = f"GPU{m.group('gpu')}" if m.group("gpu") else "a GPU"
            what = (
                f"{gpu}'s GSP firmware stopped answering the driver ({m.group('call')}): "
                f"{m.group('what').strip(' *')}"
            )
            device = int(m.group("gpu")) if m.group("gpu") else None
            fault = True
        elif "rpcSendMessage failed" in line and (m := _NVRM_RPC_STATUS_RE.search(line)):
            status = int(m.group("status"), 16)
            if status not in NV_STATUS_TEXTS:
                continue
            name, said = NV_STATUS_TEXTS[status]
            key = ("rpc", m.group("gpu"), m.group("status"))
            what = (
                f"GPU{m.group('gpu')}: the driver's calls to its GSP firmware fail with "
                f"{m.group('status')} {name} ({said})"
            )
            device, call = int(m.group("gpu")), m.group("call")
            fault = status in NV_STATUS_FAULTS
        elif "_kgspProcessRpcEvent" in line and (m := _NVRM_GSP_CRASH_RE.search(line)):
            crashed = any(
                "end crash report" in t
                for _, t, _ in lines[max(0, index - GSP_CRASH_LINES) : index]
            )
            key = ("gspevent", m.group("gpu") or "")
            what = (
                f"GPU{m.group('gpu') or '?'}: the driver could not process the GSP firmware's "
                f"event {m.group('event')}"
                + (
                    " after the firmware's crash report above: the GPU must be reset before it "
                    "runs work again"
                    if crashed
                    else ""
                )
            )
            device = int(m.group("gpu")) if m.group("gpu") else None
            call, fault = m.group("call"), crashed
        elif m := _SXID_RE.search(line):
            if not _SXID_HEAD_RE.match(m.group("what")):
                # a record's Severity or Data line: said only where the copy lost its first line
                details.setdefault((m.group("bus"), m.group("sxid")), (no, line, tagged, m))
                continue
            key = ("sxid", m.group("bus"), m.group("sxid"), m.group("what"))
            what = (
                f"SXid {m.group('sxid')} on NVSwitch PCI:{m.group('bus')} "
                f"({m.group('switch')}): {m.group('what')}"
            )
            code = m.group("sxid")
            fault = m.group("what").startswith("Fatal")
        else:
            continue
        if host is not None:
            key = (*key, host)  # the same bus on two machines is two GPUs
        repeats[key] = repeats.get(key, 0) + 1
        if key in events:
            continue
        events[key] = LogEvent(
            kind="gpu_driver_fault" if fault else "gpu_driver_error",
            line=no,
            message=line[m.start() :].strip()[:300],
            rank=tagged,
            host=host,
            code=code,
            device=device,
            library="NVIDIA driver (NVRM)" if key[0] != "sxid" else "NVSwitch driver",
            code_name=XID_MEANINGS.get(int(code)) if code and key[0] != "sxid" else None,
            call=call,
            exception_type=what[:300],
        )
    headed = {(k[1], k[2]) for k in events if k[0] == "sxid"}
    for (bus, sxid), (no, line, tagged, m) in details.items():
        if (bus, sxid) in headed:
            continue
        key = ("sxid", bus, sxid, "")
        repeats[key] = 1
        events[key] = LogEvent(
            kind="gpu_driver_error",
            line=no,
            message=line[m.start() :].strip()[:300],
            rank=tagged,
            code=sxid,
            library="NVSwitch driver",
            exception_type=f"SXid {sxid} on NVSwitch PCI:{bus} ({m.group('switch')}): "
            f"{m.group('what')}"[:200],
        )
    for key, ev in sorted(events.items(), key=lambda kv: kv[1].line):
        if repeats[key] > 1 and ev.exception_type:
            ev.exception_type += f" ({repeats[key]} reports)"
        report.events.append(ev)


# The Linux kernel's PCIe Advanced Error Reporting (drivers/pci/pcie/aer.c, aer_print_error): the
# device that saw the error, "pcieport 0000:00:03.0: PCIe Bus Error: severity=Corrected,
# type=Data Link Layer, (Transmitter ID)" (older kernels "..., type=Physical Layer,
# id=00e5(Receiver ID)"; newer ones put "AER: " before it, and from 6.8 say the PCIe
# specification's "Correctable" / "Uncorrectable (Fatal)" where older ones said "Corrected" /
# "Uncorrected (Fatal)"; CXL ports "CXL Bus Error"), its "device [8086:6f08] error
# status/mask=..." line and one "[12] Timeout" line per error bit. The severities are the
# kernel's three: correctable (the link retried and nothing was lost; the kernel logs it as a
# warning and rate-limits it), uncorrectable non-fatal (a transaction was lost, the link still
# works) and uncorrectable fatal (the link is reset). Errors are often seen at the link partner
# (the root port above a GPU or NIC), not at the device at fault (the kernel's own comment on
# its AER counters).
_AER_RE = re.compile(
    r"(?:(?P<driver>[\w.-]+) )?(?P<bdf>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]): "
    r"(?:AER: )?(?:PCIe|CXL) Bus Error: severity=(?P<sev>Correct(?:ed|able)|"
    r"Uncorrect(?:ed|able) \((?:Non-)?Fatal\)), type=(?P<type>[^,]+), (?:id=[0-9a-fA-F]+)?"
    r"\((?P<agent>[^)]*)\)"
)
# Firmware-first reporting (the platform's own handler, GHES): the kernel prints the firmware's
# record, "{3}[Hardware Error]: event severity: recoverable" (drivers/firmware/efi/cper.c,
# cper_severity_str: recoverable, fatal, corrected, info), then aer.c's cper_print_aer for the
# device: "nvidia 0000:3b:00.0: AER: aer_status: 0x00004000, aer_mask: 0x00000000", the same bit
# lines, "aer_layer=Transaction Layer, aer_agent=Requester ID" and, uncorrectable only,
# "aer_uncor_severity: 0x...". cper_severity_to_aer: recoverable is non-fatal, fatal fatal, the
# rest correctable.
_AER_CPER_RE = re.compile(
    r"(?:(?P<driver>[\w.-]+) )?(?P<bdf>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]): "
    r"(?:AER: )?aer_status: 0x[0-9a-fA-F]{8}, aer_mask: 0x[0-9a-fA-F]{8}"
)
_CPER_SEVERITY_RE = re.compile(r"\[Hardware Error\]: event severity: (?P<sev>\w+)")
# older kernels' cper_print_aer (3.x aerdrv_errprint.c) prints the registers behind the record's
# own prefix, "{1}[Hardware Error]:   aer_status: 0x00004000, aer_mask: 0x00000000", and the
# device only in the record's "device_id: 0000:3b:00.0" line
_CPER_PREFIX_AER_RE = re.compile(
    r"\[Hardware Error\]:\s+aer_status: 0x[0-9a-fA-F]{8}, aer_mask: 0x[0-9a-fA-F]{8}"
)
_CPER_DEVICE_RE = re.compile(
    r"\[Hardware Error\]:\s+device_id: (?P<bdf>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])"
)
_CPER_LAYER_RE = re.compile(r"aer_layer=(?P<type>[^,]+), aer_agent=(?P<agent>.+?)\s*$")
_AER_ID_RE = re.compile(r"device \[(?P<id>[0-9a-fA-F]{4}:[0-9a-fA-F]{4})\] error status/mask=")
_AER_BIT_RE = re.compile(r":\s+\[\s*(?P<bit>\d+)\] (?P<name>[A-Za-z][\w ]*?)\s*(?:\(First\))?\s*$")
_AER_SUPPRESSED_RE = re.compile(r"\baer_ratelimit: (?P<n>\d+) callbacks suppressed")
_AER_KINDS = {"correctable": "pcie_aer_corrected", "non-fatal": "pcie_aer_nonfatal"}
AER_REPEATED_REPORTS = 3
"""Correctable reports of one device that make a link worth a look: the kernel's AER guide says
a correctable error costs nothing, and a lone one (a NIC's RxErr while its link trains at boot)
is routine; a link that reports them again (or that the kernel rate-limits, or reports as
"Multiple") keeps retrying. The advisor's own threshold: no source gives one."""


def _aer_record_lines(lines: list[tuple[int, str, int | None]]) -> set[int]:
    """The lines of the kernel's AER reports ("AER: " lines) and of the firmware's records whose
    section is a PCIe error (from "Hardware error from APEI" to the record's last line): what the
    AER reader read. A record of another section (a memory error) is not among them."""
    out: set[int] = set()
    record: list[int] = []
    pcie = False
    for no, line, _ in lines:
        if "[Hardware Error]" in line:
            if "Hardware error from APEI" in line:
                if pcie:
                    out.update(record)
                record, pcie = [], False
            record.append(no)
            pcie = pcie or "section_type: PCIe error" in line
            continue
        if "AER: " in line:
            out.add(no)
    if pcie:
        out.update(record)
    return out


def _aer_class(severity: str) -> str:
    """correctable, non-fatal or fatal, from either kernel's words or firmware's severity."""
    word = severity.lower()
    if word.startswith("correct") or word in ("corrected", "info"):
        return "correctable"
    return "fatal" if "fatal" in word and "non-fatal" not in word else "non-fatal"


# A firmware record of a memory error (drivers/firmware/efi/cper.c: "[Hardware Error]: event
# severity: recoverable", "section_type: memory error", cper_print_mem's "physical_address: 0x..."
# and its location line "node: 2 card: 0 module: 22 rank: 0 bank: 10 row: 9914 column: 96"):
# corrected (no data lost), recoverable (uncorrected; the kernel can take the page out and end
# its users) or fatal.
_CPER_MEM_LOCATION_RE = re.compile(r"\[Hardware Error\]:\s+(?P<loc>node: ?\d+\b.*)$")
_CPER_MEM_ADDRESS_RE = re.compile(
    r"\[Hardware Error\]:\s+physical_address: (?P<addr>0x[0-9a-fA-F]+)"
)
_CPER_MEM_DIMM_RE = re.compile(r"\[Hardware Error\]:\s+DIMM location: (?P<dimm>.+)$")


def _dimm_said(dimm: str) -> str:
    """cper.c's DIMM location: "not present. DMI handle: 0x0000" is a DIMM the firmware did not
    name (dmi_memdev_name found none), not one that is absent."""
    if dimm.startswith("not present"):
        handle = dimm.split("DMI handle:", 1)[-1].strip(" .") if "DMI handle" in dimm else ""
        return "DIMM not identified" + (f" (DMI handle {handle})" if handle else "")
    return f"DIMM {dimm}"


# the kernel's hung-task detector (kernel/hung_task.c): "INFO: task python:280058 blocked for
# more than 120 seconds.", then its "Call Trace:" whose frames name the module the task waits in
# ("gpfs_i_lookup+0x173/0x3e0 [mmfslinux]")
HUNG_TASK_RE = re.compile(
    r"\bINFO: task (?P<task>.+?):(?P<pid>\d+) blocked for more than (?P<s>\d+) seconds\."
)
_FRAME_MODULE_RE = re.compile(r"\+0x[0-9a-f]+/0x[0-9a-f]+ \[(?P<module>\w+)\]\s*$")
HUNG_TASK_TRACE_LINES = 40
"""How far under a hung task's line its call trace's frames may stand."""
_MODULE_WORDS = (
    ("mmfs", "IBM Storage Scale (GPFS)"),
    ("nfs", "NFS"),
    ("lustre", "Lustre"),
    ("lnet", "Lustre"),
    ("ceph", "CephFS"),
    ("fuse", "a FUSE file system"),
    ("nvidia", "the NVIDIA driver"),
    ("drv_", "the NPU driver"),
)


# the kernel's panic (kernel/panic.c: "Kernel panic - not syncing: %s"), and the task that was
# running when it came ("CPU: 5 PID: 190097 Comm: tee Tainted: ...")
KERNEL_PANIC_RE = re.compile(r"\bKernel panic - not syncing: (?P<why>.*?)\s*$")
_PANIC_TASK_RE = re.compile(r"\bCPU: (?P<cpu>\d+) PID: (?P<pid>\d+) Comm: (?P<comm>\S+)")


# CANN's silent data corruption check (MindSpore's and torch_npu's NPU_ASD_ENABLE, run on the
# AI CPU): "SilentCheckV3 ComputeL1Error:val = [nan], max = [nan], avg=[...], step=[5], ...,
# npu_asd_detect = [2]." in a device's log, its path naming the device ("device-2/...log:1859:")
SILENT_CHECK_RE = re.compile(
    r"\bSilentCheckV\d+ (?P<what>\w+Error):val = \[(?P<val>[^\]]{1,40})\][^\n]{0,200}?\bstep=\[(?P<step>\d+)\]"
)
_DEVICE_LOG_PATH_RE = re.compile(r"\bdevice-(\d+)/")


def _silent_checks(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """A ``silent_check`` per device and step whose gradient CANN's silent data corruption check
    found out of its bounds."""
    seen: set[tuple[int | None, str]] = set()
    for no, line, tagged in lines:
        if "SilentCheck" not in line or not (m := SILENT_CHECK_RE.search(line)):
            continue
        dev = _DEVICE_LOG_PATH_RE.search(line[: m.start()])
        device = int(dev.group(1)) if dev else None
        if (device, m.group("step")) in seen:
            continue
        seen.add((device, m.group("step")))
        report.events.append(
            LogEvent(
                kind="silent_check",
                line=no,
                message=line[m.start() :].strip()[:300],
                rank=tagged,
                device=device,
                exception_type=f"the silent data corruption check found a value of {m.group('val')}"
                f" at step {m.group('step')} ({m.group('what')})",
                library="CANN",
            )
        )


def _kernel_panics(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """A ``kernel_panic`` per reason the kernel panicked with (a pstore or console copy may hold
    it more than once): the host stopped there."""
    seen: set[str] = set()
    for index, (no, line, tagged) in enumerate(lines):
        if (
            "Kernel panic" not in line
            or "---[ end " in line
            or not (m := KERNEL_PANIC_RE.search(line))
        ):
            continue  # (the panic's closing "---[ end Kernel panic - not syncing: ... ]---" too)
        if m.group("why") in seen:
            continue
        seen.add(m.group("why"))
        task = _search(_PANIC_TASK_RE, [t for _, t, _ in lines[index + 1 : index + 4]])
        report.events.append(
            LogEvent(
                kind="kernel_panic",
                line=no,
                message=line[m.start() :].strip()[:300],
                rank=tagged,
                pid=int(task.group("pid")) if task else None,
                exception_type=f"the kernel panicked: {m.group('why')}"
                + (f" (running: {task.group('comm')}, pid {task.group('pid')})" if task else ""),
            )
        )


def _hung_tasks(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """A ``hung_task`` per task the kernel found blocked (one per task and pid), with the kernel
    module its call trace waits in: the storage or driver that stalled it."""
    seen: dict[tuple[str, str], LogEvent] = {}
    for index, (no, line, tagged) in enumerate(lines):
        if "blocked for more than" not in line or not (m := HUNG_TASK_RE.search(line)):
            continue
        key = (m.group("task"), m.group("pid"))
        if key in seen:
            seen[key].ran_for_ms = max(seen[key].ran_for_ms or 0, int(m.group("s")) * 1000)
            continue
        modules: list[str] = []
        for _, frame, _ in lines[index + 1 : index + 1 + HUNG_TASK_TRACE_LINES]:
            if "blocked for more than" in frame:
                break
            if fm := _FRAME_MODULE_RE.search(frame):
                modules.append(fm.group("module"))
        where = next(
            (words for mod in modules for prefix, words in _MODULE_WORDS if mod.startswith(prefix)),
            None,
        )
        ev = LogEvent(
            kind="hung_task",
            line=no,
            message=line[m.start() :].strip()[:300],
            rank=tagged,
            pid=int(m.group("pid")),
            ran_for_ms=int(m.group("s")) * 1000,
            exception_type=f"task {m.group('task')} (pid {m.group('pid')}) blocked in the kernel"
            + (f", waiting in {where} ({', '.join(dict.fromkeys(modules))})" if where else "")
            + (f", in module {', '.join(dict.fromkeys(modules))}" if modules and not where else ""),
        )
        seen[key] = ev
        report.events.append(ev)


def _cper_memory_errors(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """A ``firmware_memory_error`` per firmware record whose section is a memory error: its
    severity (``code_name``), location and physical address; one per location and severity."""
    seen: set[tuple[str, str]] = set()
    severity: str | None = None
    start = 0
    memory = False
    place: dict[str, str] = {}

    def close(tagged: int | None) -> None:
        if not memory:
            return
        sev = severity or "unknown"
        where = place.get("loc") or place.get("addr") or "location not in the copy"
        if (sev, where) in seen:
            return
        seen.add((sev, where))
        said = ", ".join(
            x
            for x in (
                place.get("loc"),
                f"physical address {place['addr']}" if "addr" in place else None,
                _dimm_said(place["dimm"]) if "dimm" in place else None,
            )
            if x
        )
        report.events.append(
            LogEvent(
                kind="firmware_memory_error",
                line=start,
                message=f"{sev} memory error" + (f": {said}" if said else ""),
                rank=tagged,
                code_name=sev,
                library="firmware (APEI/CPER)",
                exception_type=(
                    f"the platform firmware reported a {sev} memory error"
                    if severity
                    else "the platform firmware reported a memory error (its severity is not in "
                    "the copy)"
                )
                + (f" ({said})" if said else ""),
            )
        )

    tagged_now: int | None = None
    for no, line, tagged in lines:
        if "[Hardware Error]" not in line:
            continue
        if "Hardware error from APEI" in line:
            close(tagged_now)
            severity, start, memory, place, tagged_now = None, no, False, {}, tagged
            continue
        if sev := _CPER_SEVERITY_RE.search(line):
            severity = sev.group("sev")
            start = start or no
        elif "section_type: memory error" in line:
            memory = True
            start = start or no  # (a copy without the record's head starts here)
        elif m := _CPER_MEM_LOCATION_RE.search(line):
            place["loc"] = m.group("loc").strip()
        elif m := _CPER_MEM_ADDRESS_RE.search(line):
            place["addr"] = m.group("addr")
        elif m := _CPER_MEM_DIMM_RE.search(line):
            place["dimm"] = m.group("dimm").strip()
    close(tagged_now)


def _pcie_aer_errors(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """The kernel's PCIe AER reports (native or firmware-first), one event per machine, device
    and severity with its reports counted and its error bits named: ``pcie_aer_fatal``,
    ``pcie_aer_nonfatal``, ``pcie_aer_corrected`` (correctable, reported again and again) or
    ``pcie_aer_corrected_few`` (a few correctable ones: no fault)."""
    events: dict[tuple[str | None, str, str], LogEvent] = {}
    repeats: Counter[tuple[str | None, str, str]] = Counter()
    bits: dict[tuple[str | None, str, str], dict[str, None]] = {}
    busy: set[tuple[str | None, str, str]] = set()  # "Multiple" or rate-limited: more than shown
    suppressed: Counter[tuple[str | None, str, str]] = Counter()
    held_back = 0  # "aer_ratelimit: N callbacks suppressed": said of the next report's device
    firmware_said: str | None = None  # the last "[Hardware Error]: event severity: X"
    record_device: str | None = None  # the last "[Hardware Error]: device_id: BDF"
    for index, (no, line, tagged) in enumerate(lines):
        if "[Hardware Error]" in line and (fw := _CPER_SEVERITY_RE.search(line)):
            firmware_said = fw.group("sev")
            continue
        if "[Hardware Error]" in line and (dev := _CPER_DEVICE_RE.search(line)):
            record_device = dev.group("bdf")
            continue
        if "callbacks suppressed" in line and (sup := _AER_SUPPRESSED_RE.search(line)):
            held_back += int(sup.group("n"))
            continue
        if "Bus Error: severity=" in line and (m := _AER_RE.search(line)):
            sev, layer, agent = m.group("sev"), m.group("type"), m.group("agent")
            said = sev
        elif "aer_status:" in line and (
            (m := _AER_CPER_RE.search(line))
            or (record_device and (m := _CPER_PREFIX_AER_RE.search(line)))
        ):
            after = [t for _, t, _ in lines[index + 1 : index + 8]]
            # (pci_print_aer prints aer_uncor_severity for an uncorrectable error only: the
            # registers outrank a firmware word, which may be another record's, since ghes.c
            # queues each record's AER part and prints it later)
            uncor = any("aer_uncor_severity:" in t for t in after)
            sev = firmware_said or ("recoverable" if uncor else "corrected")
            if uncor and _aer_class(sev) == "correctable":
                sev = "recoverable"
            said = f"{sev} (firmware-first)" if firmware_said else f"{sev} (by its registers)"
            found = next((lm for t in after if (lm := _CPER_LAYER_RE.search(t))), None)
            layer = found.group("type") if found else "layer not in the copy"
            agent = found.group("agent") if found else "agent not in the copy"
            firmware_said = None
        else:
            continue
        host_m = _SYSLOG_HOST_RE.search(line)
        host = host_m.group("host") if host_m else None
        bdf, cls = m.groupdict().get("bdf") or record_device or "", _aer_class(sev)
        key = (host, bdf, cls)
        repeats[key] += 1
        if index > 0 and "Multiple " in lines[index - 1][1]:
            busy.add(key)
        if held_back:
            suppressed[key] += held_back
            busy.add(key)
            held_back = 0
        named = bits.setdefault(key, {})
        pci_id = None
        for _, after_line, _ in lines[index + 1 : index + 8]:
            if (
                bdf not in after_line
                or "Bus Error: severity=" in after_line
                or "error received" in after_line
                or "error message received" in after_line
            ):
                break
            if i := _AER_ID_RE.search(after_line):
                pci_id = i.group("id")
            elif b := _AER_BIT_RE.search(after_line):
                named.setdefault(f"[{b.group('bit')}] {b.group('name')}", None)
        if key in events:
            continue
        driver = f"{m.group('driver')} " if m.groupdict().get("driver") else ""
        events[key] = LogEvent(
            kind=_AER_KINDS.get(cls, "pcie_aer_fatal"),
            line=no,
            message=line[m.start() :].strip()[:300],
            rank=tagged,
            host=host,
            code=cls,
            library="Linux PCIe AER",
            exception_type=f"{said} PCIe error on {driver}{bdf}"
            + (f" [{pci_id}]" if pci_id else "")
            + f": {layer}, {agent}",
        )
    for key, ev in sorted(events.items(), key=lambda kv: kv[1].line):
        if bits[key]:
            ev.exception_type = f"{ev.exception_type} ({', '.join(bits[key])})"
        more = key in busy
        if repeats[key] > 1 or more:
            # the kernel prints a device's details within its rate limit only, and "Multiple"
            # stands for more than one error: what is printed is the least there was
            ev.exception_type = (
                f"{ev.exception_type}, {'at least ' if more else ''}{repeats[key]} reports"
                + (
                    f" (and {suppressed[key]} messages the kernel rate-limited before one of them)"
                    if suppressed[key]
                    else ""
                )
            )
        if key[2] == "correctable" and repeats[key] < AER_REPEATED_REPORTS and not more:
            ev.kind = "pcie_aer_corrected_few"
        ev.exception_type = (ev.exception_type or "")[:300]
        report.events.append(ev)


# The Ascend driver's own lines in the host's kernel log (dmesg): "[   61.695215] [ascend] [devdrv]
# [ERROR] [devdrv_manager_get_devinfo 1050] <npu-smi:11519,11519> device(4) is not initialized",
# "[ascend] [dms_module] [ERROR] [dms_hotreset_task_cnt_increase 1115] <npu-smi:...> Device not
# exist. (dev_id=6)": the module, the driver function, the process that asked, the words. (The
# device OS's own slog puts [ERROR] before the module, "[ascend] [ERROR] [drv_pcie] ...": read with
# the plog it sits in, _kernel_driver_error.)
_HOST_DRIVER_ERROR_RE = re.compile(
    r"\[ascend\] \[(?P<mod>\w+)\] \[(?P<level>ERROR|INFO|WARNING|EVENT)\] \[(?P<fn>\w+) \d+\] "
    r"(?:<(?P<proc>[^>]*)> )?(?P<what>\S.*)$"
)  # (what is read with its trailing spaces: every use searches it; none anchors at its end)
# a failure the driver logs below ERROR: "[ascend] [drv_pcie] [INFO] [devdrv_init_dev_num 2248]
# <systemd-udevd:...> DMA copy failed" (MindCluster ascend-faultdiag's knowledge graph,
# AISW_CANN_DRV_PCIE_046: a data error in a DMA or BAR transfer, the system to be restarted)
_DRIVER_FAULT_BELOW_ERROR_RE = re.compile(r"^DMA copy failed\b")
_DRIVER_DEVICE_RE = re.compile(
    r"\bdevice\((\d+)\)|\bdev_?id\s*[=:]\s*(\d+)|\bdevid\[(\d+)\]|\(device=(\d+)[;)]"
)
_LEVEL_FIRST_RE = re.compile(r"\[ascend\] \[(ERROR|INFO|WARNING|EVENT)\] \[(\w+)\]")
# some lines name the physical id instead ("The device is not initialized. (phys_id=3)",
# "(phy_id=5)": the driver's devdrv_core_info.c, devdrv_manager.c), kept apart from logical ids
_DRIVER_PHYS_RE = re.compile(r"\bphys?_id\s*[=:]\s*(\d+)")
_DMESG_UPTIME_RE = re.compile(r"^\s*\[\s*(\d+\.\d+)\]")
DRIVER_START_UP_S = 600.0
"""Seconds since boot within which the Ascend driver's 'not initialized' can be the boot's own
(its devices come up in the first minutes; the sample's queries came at 41-61 s): the advisor's
own bound, no source gives one."""
# the driver's own word that a device came up ("Load tsfw succeed, set device ready.
# (dev_id=4)", "Receive device ready notify. (dev_id=4; ...)", devdrv_manager.c): a query before
# it that found the device "not initialized" asked while the device was starting
_DRIVER_READY_RE = re.compile(r"(?:set device ready|Receive device ready notify)\. \(dev_id=(\d+)")


# The driver's log daemon library (adcore adx_dsmi.cpp IdeGetDevList) when the driver would not
# count the devices: 'IDE_LOGE("Get physical device number failed, err: %d")' on drvGetDevNum's
# drvError_t (ascend_hal_error.h), as a CANN log line "[ERROR] IDEDD(1,python3.10):... [adx_dsmi.
# cpp:54][tid:201]>>> Get physical device number failed, err: 87"
_DEVICE_COUNT_RE = re.compile(r"Get physical device number failed, err: (?P<code>-?\d+)")
DRV_ERRORS = {
    1: ("DRV_ERROR_NO_DEVICE", "no valid device"),
    6: ("DRV_ERROR_OUT_OF_MEMORY", "out of memory"),
    7: ("DRV_ERROR_INNER_ERR", "the driver's inner error"),
    16: ("DRV_ERROR_WAIT_TIMEOUT", "the driver's wait timed out"),
    87: (
        "DRV_ERROR_RESOURCE_OCCUPIED",
        "the devices are busy: another process or container holds them",
    ),
    88: ("DRV_ERROR_PERMISSION", "no permission to the devices"),
}
"""drvError_t values (hicann/driver pkg_inc/ascend_hal_error.h) read with their meaning; DSMI's
own log calls 87 "device is busy" (dsmi_common_interface.c)."""


def _device_count_failures(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``npu_dcmi_error`` per code the driver gave when asked how many devices there are."""
    seen: set[int] = set()
    for no, line, tagged in lines:
        if "Get physical device number failed" not in line:
            continue
        if not (m := _DEVICE_COUNT_RE.search(line)) or int(m.group("code")) in seen:
            continue
        code = int(m.group("code"))
        seen.add(code)
        name, meaning = DRV_ERRORS.get(code, (None, "see the driver's drvError_t codes"))
        report.events.append(
            LogEvent(
                kind="npu_dcmi_error",
                line=no,
                message=line.strip()[:300],
                rank=tagged,
                code=str(code),
                code_name=name,
                library="Ascend driver",
                call="drvGetDevNum",
                exception_type=f"the driver would not count the devices (drvGetDevNum): {code}"
                + (f" {name}" if name else "")
                + f" ({meaning}); no NPU could be used by this process",
            )
        )


_UDA_CONFLICT_RE = re.compile(r"\(udevid=(?P<dev>\d+); access_ns=\S+; ns=\S+\)")


# DCGM's health-watch incidents as a node monitor (NVSentinel's GpuNvlinkWatch condition, and
# others that print dcgmHealthResponse's incidents) writes them: "ErrorCode:DCGM_FR_IMEX_UNHEALTHY
# GPU:0 PCI:0000:9d:00.0 GPU_UUID:GPU-... IMEX daemon status is -3 (not READY) ... Recommended
# Action=CONTACT_SUPPORT;" (dcgm_errors.h's codes; DCGM 4.7 added DCGM_FR_IMEX_UNHEALTHY, 122,
# raised under the NVLink watch)
_DCGM_INCIDENT_RE = re.compile(
    r"ErrorCode:(?P<code>DCGM_FR_\w+)\s+GPU:(?P<gpu>\d+)(?:\s+PCI:(?P<pci>\S+))?"
    r"(?:\s+GPU_UUID:\S+)?\s*(?P<msg>[^;\n]*)"
)


_DCGM_UUID_RE = re.compile(r"^\s*GPU_UUID:\S+\s*")


def _dcgm_health_incidents(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """A ``dcgm_health_incident`` per code and GPU of DCGM's health watch, with its message."""
    seen: set[tuple[str, str]] = set()
    for index, (no, line, tagged) in enumerate(lines):
        if "ErrorCode:" not in line or not (m := _DCGM_INCIDENT_RE.search(line)):
            continue
        if (m.group("code"), m.group("gpu")) in seen:
            continue
        seen.add((m.group("code"), m.group("gpu")))
        said = m.group("msg").strip()
        if not said and index + 1 < len(lines) and _DCGM_UUID_RE.match(lines[index + 1][1]):
            # (a copy that broke the record's line: its UUID and message on the next)
            said = _DCGM_UUID_RE.sub("", lines[index + 1][1]).strip()
        imex = m.group("code") == "DCGM_FR_IMEX_UNHEALTHY"
        report.events.append(
            LogEvent(
                kind="dcgm_health_incident",
                line=no,
                message=line.strip()[:300],
                rank=tagged,
                device=int(m.group("gpu")),
                library="DCGM",
                exception_type=f"{m.group('code')} on GPU {m.group('gpu')}"
                + (f": {said[:200]}" if said else "")
                + (
                    " (IMEX serves multi-node NVLink domains, GB200 NVL72 and the like: a node "
                    "outside one runs no IMEX daemon, and the incident says nothing of its "
                    "NVLinks)"
                    if imex
                    else ""
                ),
            )
        )


def _npu_host_driver_errors(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """The Ascend driver's ERROR lines in the host's kernel log, one ``npu_driver_error`` per
    machine, module and device with its repeats counted; never a query the driver does not
    serve (DRV_ERROR_NOT_SUPPORT)."""
    events: dict[tuple[str | None, str, str], LogEvent] = {}
    repeats: Counter[tuple[str | None, str, str]] = Counter()
    # (host, device) -> the lines the driver set it ready on (at boot, and again after a reset)
    ready: dict[tuple[str | None, int], list[int]] = {}
    for no, line, _ in lines:
        if "device ready" in line and (r := _DRIVER_READY_RE.search(line)):
            host_m = _SYSLOG_HOST_RE.search(line)
            ready.setdefault(
                (host_m.group("host") if host_m else None, int(r.group(1))), []
            ).append(no)
    for no, line, tagged in lines:
        if "[ascend] [" not in line:
            continue
        # (newer drivers print the level first: "[ascend] [ERROR] [drv_soft_fault] [fn 318]";
        # the device's own kernel records in a plog, "KERNEL(...)", are read with the plog)
        if "KERNEL(" not in line:
            line = _LEVEL_FIRST_RE.sub(r"[ascend] [\2] [\1]", line)
        if not (m := _HOST_DRIVER_ERROR_RE.search(line)):
            continue
        if m.group("level") != "ERROR" and not _DRIVER_FAULT_BELOW_ERROR_RE.match(m.group("what")):
            continue
        if _NOT_SUPPORTED_RE.search(line):
            continue
        host_m = _SYSLOG_HOST_RE.search(line)
        host = host_m.group("host") if host_m else None
        dev_m = _DRIVER_DEVICE_RE.search(m.group("what"))
        device = int(next(g for g in dev_m.groups() if g is not None)) if dev_m else None
        phys_m = _DRIVER_PHYS_RE.search(m.group("what")) if dev_m is None else None
        readies = ready.get((host, device), []) if device is not None else []
        uptime = _DMESG_UPTIME_RE.match(line)
        if (
            "not initialized" in line
            and any(r > no for r in readies)
            and not any(r < no for r in readies)
            # (where dmesg stamps the line with the seconds since boot, only a query in the first
            # minutes is the boot's: a device lost mid-job, whose boot-time lines rolled out of
            # the ring buffer, has its ready line only after its reset)
            and (uptime is None or float(uptime.group(1)) < DRIVER_START_UP_S)
        ):
            # asked while the device was starting: the driver says it came up (a notice)
            start_key = (host, "start-up", str(device))
            repeats[start_key] += 1
            events.setdefault(
                start_key,
                LogEvent(
                    kind="npu_driver_startup",
                    line=no,
                    message=line[m.start() :].strip()[:300],
                    rank=tagged,
                    host=host,
                    device=device,
                    library=f"Ascend driver ({m.group('mod')})",
                    exception_type=f"device {device} was asked for before the driver set it "
                    "ready (its 'set device ready' line comes later): the query came during "
                    "start-up",
                ),
            )
            continue
        if device is not None:
            who = f"device {device}"
        elif phys_m:
            who = f"physical device {phys_m.group(1)}"
        else:
            who = "a device"
        # (lines naming no device: one event a module and driver function, so a flood of one
        # message with other addresses is one kind with its count)
        key = (host, m.group("mod"), who if who != "a device" else m.group("fn"))
        repeats[key] += 1
        if key in events:
            continue
        proc = m.group("proc")
        asked = f", asked by {proc.split(':')[0]}" if proc else ""
        what = m.group("what")
        if "Conflict open udevid" in what and (
            ns := _UDA_CONFLICT_RE.search(" ".join(t for _, t, _ in lines[no - 1 : no + 1]))
        ):
            # the driver's device manager (uda) refusing a device another namespace opened:
            # "Conflict open udevid." then "(udevid=0; access_ns=...; ns=...)"
            who = f"device {ns.group('dev')}"
            device = int(ns.group("dev"))
            what = (
                "Conflict open udevid: the device is already open in another namespace (another "
                "container, or the host, holds it)"
            )
        events[key] = LogEvent(
            kind="npu_driver_error",
            line=no,
            message=line[m.start() :].strip()[:300],
            rank=tagged,
            host=host,
            device=device,
            library=f"Ascend driver ({m.group('mod')})",
            exception_type=f"{who}: {what} ({m.group('mod')}, {m.group('fn')}{asked})"[:250],
        )
    for key, ev in sorted(events.items(), key=lambda kv: kv[1].line):
        if repeats[key] > 1:
            ev.exception_type = f"{ev.exception_type}, {repeats[key]} reports"
        report.events.append(ev)


# nvidia-smi's own answers when it cannot read the GPUs ("No devices were found", "NVIDIA-SMI has
# failed because it couldn't communicate with the NVIDIA driver. ...", "Failed to initialize NVML:
# Driver/library version mismatch", "Unable to determine the device handle for GPU0000:83:00.0:
# Unknown Error"); Fabric Manager's service is read by _fabric_manager.
# (a script's note of the exit code before the answer, "rc=255   Failed to initialize NVML: ...",
# is not part of it; a web copy may curl the quote in "couldn't")
_SMI_CANNOT_RE = re.compile(
    r"^(?:>+\s*|\+ (?:(?:local|export|declare|readonly)(?: -\w+)? )?'?\w+='?)?(?:rc=\d+\s+)?"
    r"(?P<what>No devices were found|NVIDIA-SMI has failed because it "
    # (bash's trace writes a quote inside a quoted word as '\'')
    r"couldn(?:'\\''|['\u2018\u2019])t communicate with the NVIDIA driver|Failed to initialize NVML: .+?|Unable to (?:determine|detect) the device "
    # (newer drivers write "gpu": "... device handle for gpu 0000:3B:00.0: Unknown Error")
    r"handle for (?:GPU|gpu) ?(?P<bus>[0-9A-Fa-f:.]+): .+?)(?:\.\s.*|\.)?'?\s*$"
)
_NVML_LIB_VERSION_RE = re.compile(r"^\s*NVML library version: (\S+)\s*$")
_NVRM_VERSION_RE = re.compile(r"NVRM version: .*?Kernel Module\s+(\d+(?:\.\d+)+)")
# dcgmi when DCGM's host engine (nv-hostengine) does not answer (dcgmi's connection error):
# "Error: Unable to connect to host engine. Host engine connection invalid/disconnected."
_DCGMI_NO_ENGINE_RE = re.compile(r"^Error: Unable to connect to host engine\.\s*(?P<why>.*)")
# NVML refusing a query for want of rights: "NVML: Unable to get the NvLink link utilization
# counter control for link 0: Insufficient Permissions" (nvidia-smi nvlink as a user): the
# figures asked for are not in the output, nothing is said of the link
_NVML_PERMISSION_RE = re.compile(r"^NVML: (?P<what>Unable to .+?): Insufficient Permissions\s*$")
# libibverbs with no RDMA device to list: ibv_devinfo's "Failed to get IB devices list: Function
# not implemented" (the kernel's InfiniBand stack not loaded) or "No IB devices found", and the
# ibstatus script's "Fatal error:  No devices", or "Fatal error:  device '*': sys files not found
# (/sys/class/infiniband/*/ports)" where no device directory is there for its glob to match (a
# device it was asked for by name and has none: that name's)
_RDMA_NONE_RE = re.compile(
    r"^(?:Failed to get IB devices list: (?P<why>.+?)|No IB devices found|Fatal error:\s+No devices"
    r"|Fatal error:\s+device '(?P<dev>[^'\n]*)': sys files not found(?: \((?P<path>[^)\n]*)\))?)\s*$"
)


# nvidia-peermem (the GPUDirect RDMA module) in the kernel log: "nvidia-peermem
# nv_get_p2p_free_callback:127 ERROR detected invalid context, skipping further processing" (a
# raw /dev/kmsg copy keeps its "6,3973,227996636,-;" record head)
_PEERMEM_ERROR_RE = re.compile(r"\bnvidia-peermem (?P<where>\w+:\d+) ERROR (?P<what>[^\n]+?)\s*$")


# libibverbs (rdma-core libibverbs/init.c ibverbs_get_device_list): a device in sysfs that no
# loaded user-space driver claimed, "libibverbs: Warning: no userspace device-specific driver
# found for /sys/class/infiniband_verbs/uverbs0"
_IBV_NO_PROVIDER_RE = re.compile(
    r"no userspace device-specific driver found for\s*(?:/sys/class/infiniband_verbs/)?(?P<dev>\S+)"
)


# a shell prompt that names its user and host before the command it ran ("(base)
# [11568881@lince2-008:~]$ nvidia-smi", "root@gpu-node-3:~# nvidia-smi -q")
_PROMPT_USER_HOST_RE = re.compile(
    # (a thread may quote the copy: "> root@gpu-pod-2:/# nvidia-smi")
    r"^\s*(?:>+\s*)?(?:\([\w.-]+\)\s+)?\[?[\w.-]+@(?P<host>[A-Za-z0-9][\w.-]*?)[:\s\]][^\n]{0,200}?[#$]\s*(?P<cmd>\S.*)$"
)
PROMPT_ABOVE_LINES = 3
"""How far above a tool's answer the prompt that ran the tool may stand."""


def _prompt_host_above(lines: list[tuple[int, str, int | None]], no: int, tool: str) -> str | None:
    """The host a shell prompt names, where the prompt ran ``tool`` within PROMPT_ABOVE_LINES
    above line ``no``; None otherwise."""
    for at, line, _ in reversed(lines):
        if at >= no:
            continue
        if at < no - PROMPT_ABOVE_LINES:
            break
        if tool in line and (p := _PROMPT_USER_HOST_RE.match(line)) and tool in p.group("cmd"):
            words = p.group("cmd").split()
            if words and words[0] in _REMOTE_RUNNERS:
                # "ssh gpu-node-07 nvidia-smi": the tool ran on the host ssh names, not the
                # prompt's; srun, pdsh, kubectl or docker exec run it elsewhere too
                if words[0] == "ssh":
                    target = next((w for w in words[1:] if not w.startswith("-")), None)
                    return target.rsplit("@", 1)[-1] if target else None
                return None
            return p.group("host")
    return None


_REMOTE_RUNNERS = frozenset(
    {"ssh", "srun", "pdsh", "clush", "kubectl", "docker", "podman", "salloc", "mpirun"}
)
"""Commands a prompt runs that run the tool on another host or container than the prompt's."""


def nvidia_tool_failures(text: str) -> list[LogEvent]:
    """nvidia-smi's own answers in ``text`` that it could not read a GPU (or any), as a log's
    reading gives them: for a tool output (``nvidia-smi -L``) that printed one among its rows."""
    report = LogReport()
    _nvidia_tool_failures(numbered_lines(text), report)
    return report.events


def _nvidia_tool_failures(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """nvidia-smi's answers that it could not read the GPUs, Fabric Manager's failed start and
    nvidia-peermem's errors, as ``gpu_driver_error`` events (one per answer, repeats counted)."""
    seen: set[str] = set()
    peermem: dict[str, tuple[LogEvent, int]] = {}
    ib_in_use: bool | None = None  # NCCL's "NET/IB : Using ..." somewhere in the log (read once)
    stepped: dict[int, Any] | None = None  # "No devices were found" lines srun's table answers
    for no, line, tagged in lines:
        if "nvidia-peermem" in line and (pm := _PEERMEM_ERROR_RE.search(line)):
            key = f"{pm.group('where')} {pm.group('what')}"
            ev, count = peermem.get(key) or (
                LogEvent(
                    kind="gpu_driver_error",
                    line=no,
                    message=line[pm.start() :].strip()[:300],
                    rank=tagged,
                    library="nvidia-peermem",
                ),
                0,
            )
            peermem[key] = (ev, count + 1)
            continue
        text = line.strip()
        if m := _SMI_CANNOT_RE.match(text):
            what = m.group("what").replace("'\\''", "'")  # (a shell trace's quoted quote)
            if what == "No devices were found":
                if stepped is None:
                    stepped = no_devices_in_job_step(lines)
                if no in stepped:
                    # a bare nvidia-smi outside a Slurm job's step; "srun ... nvidia-smi" after
                    # it, inside the step, lists the GPUs (the nvidia-smi reader says so)
                    continue
            if what in seen:
                continue
            seen.add(what)
            # NVML could not open one GPU by its bus ("Unable to determine the device handle for
            # GPU 0000:09:00.0: Unknown Error" or "GPU is lost"): that GPU is out of reach until
            # it is reset, a fault of the GPU, not of the tool
            lost = m.group("bus") is not None and ("Unknown Error" in what or "GPU is lost" in what)
            if "version mismatch" in what:
                # the two versions that disagree, where the copy shows them: nvidia-smi's "NVML
                # library version: 580.178" under the error, /proc/driver/nvidia/version's
                # "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.173.02"
                versions = [
                    f"{label} {v.group(1)}"
                    for label, pattern in (
                        ("the NVML library", _NVML_LIB_VERSION_RE),
                        ("the kernel module", _NVRM_VERSION_RE),
                    )
                    if (v := next((x for _, t, _ in lines if (x := pattern.search(t))), None))
                ]
                if versions:
                    what += f" ({' against '.join(versions)})"
            report.events.append(
                LogEvent(
                    kind="gpu_driver_fault" if lost else "gpu_driver_error",
                    line=no,
                    message=text[:300],
                    rank=tagged,
                    # (the shell prompt that ran nvidia-smi just above names the node)
                    host=_prompt_host_above(lines, no, "nvidia-smi"),
                    library="nvidia-smi",
                    # (NVML itself did not start, or no GPU was there: no GPU can be used)
                    call="nvml_init" if m.group("bus") is None else None,
                    exception_type=(
                        f"nvidia-smi could not reach GPU {m.group('bus')}: {what} (the GPU is "
                        "lost to the driver until it is reset)"
                        if lost
                        else f"nvidia-smi could not read the GPUs: {what}"
                    )[:240],
                )
            )
        elif "host engine" in text and (de := _DCGMI_NO_ENGINE_RE.match(text)):
            if "dcgmi engine" in seen:
                continue
            seen.add("dcgmi engine")
            report.events.append(
                LogEvent(
                    kind="gpu_driver_error",
                    line=no,
                    message=text[:300],
                    rank=tagged,
                    library="dcgmi",
                    exception_type="dcgmi could not reach DCGM's host engine (nv-hostengine)"
                    + (
                        f": {de.group('why').strip().rstrip('.')}"
                        if de.group("why").strip()
                        else ""
                    )
                    + "; nothing of the GPUs was read (start nv-hostengine or the dcgm service, "
                    "or point --host at the engine)",
                )
            )
        elif "Insufficient Permissions" in text and (perm := _NVML_PERMISSION_RE.match(text)):
            if "perm" in seen:
                continue
            seen.add("perm")
            report.events.append(
                LogEvent(
                    kind="gpu_driver_error",
                    line=no,
                    message=text[:300],
                    rank=tagged,
                    library="nvidia-smi",
                    exception_type=f"NVML refused the query for want of rights: {perm.group('what')} "
                    "(run it as root): the figures asked for are not in the output"[:200],
                )
            )
        elif "no userspace device-specific driver" in text and (
            nd := _IBV_NO_PROVIDER_RE.search(text)
        ):
            if "rdma provider" in seen:
                continue
            seen.add("rdma provider")
            if ib_in_use is None:
                ib_in_use = any("NET/IB" in t and _NET_IB_USING_RE.search(t) for _, t, _ in lines)
            if ib_in_use:
                # another device carries NCCL's traffic over IB/RoCE: one device without a
                # provider (a virtual function, an unused port) is a note, no fallback
                report.unread.append(
                    ParseWarning(
                        line=no,
                        message=f"libibverbs: no user-space driver (provider) claimed the RDMA "
                        f"device {nd.group('dev')}; NCCL uses IB/RoCE over other devices",
                        skipped=False,
                    )
                )
                continue
            # (libibverbs' word above it of the provider it could not load: "couldn't load
            # driver 'rxe': librxe-rdmav2.so: cannot open shared object file")
            unloaded = next(
                (
                    u
                    for at, t, _ in reversed(lines)
                    if no - IBV_ABI_LINES <= at < no and (u := _IBV_DRIVER_NOT_LOADED_RE.search(t))
                ),
                None,
            )
            report.events.append(
                LogEvent(
                    kind="rdma_no_device",
                    line=no,
                    message=text[:300],
                    rank=tagged,
                    library="libibverbs",
                    exception_type=f"libibverbs saw the RDMA device {nd.group('dev')} but no "
                    "user-space driver (provider) claimed it: "
                    + (
                        f"its provider '{unloaded.group(1)}' could not be loaded "
                        f"({unloaded.group(2)} not found)"
                        if unloaded
                        else "its provider library (libmlx5 or another rdma-core provider) is "
                        "missing where the process ran, often a container's image"
                    )
                    + ", so that device cannot be opened there",
                )
            )
        elif ("IB devices" in text or "No devices" in text or "sys files not found" in text) and (
            none := _RDMA_NONE_RE.match(text)
        ):
            if "rdma" in seen:
                continue
            seen.add("rdma")
            report.events.append(
                LogEvent(
                    kind="rdma_no_device",
                    line=no,
                    message=text[:300],
                    rank=tagged,
                    library="ibstatus" if text.startswith("Fatal error") else "libibverbs",
                    exception_type=(
                        f"no RDMA device named {dev}"
                        + (f" (ibstatus found no {path})" if (path := none.group("path")) else "")
                        if (dev := none.group("dev")) not in (None, "*")
                        else "no RDMA device could be listed"
                        + (f" ({none.group('why')})" if none.group("why") else "")
                        + (" (ibstatus found nothing under /sys/class/infiniband)" if dev else "")
                    )
                    + _abi_said(lines, no),
                )
            )
    for key, (ev, count) in peermem.items():
        ev.exception_type = (
            f"nvidia-peermem (GPUDirect RDMA) {key}"
            + (f" ({count} times)" if count > 1 else "")
            + ": the module's callback for GPU memory freed under an RDMA registration"
        )[:200]
        report.events.append(ev)


# libibverbs (rdma-core libibverbs/init.c) when a device's user-space provider cannot speak the
# kernel driver's ABI: "libibverbs: Warning: Driver bnxt_re does not support the kernel ABI of 6
# (supports 1 to 1) for device /sys/class/infiniband/bnxt_re2": that device is not listed
_IBV_ABI_RE = re.compile(
    r"Driver (?P<drv>\S+) does not support the kernel ABI of (?P<abi>\d+) \(supports (?P<lo>\d+) to "
    r"(?P<hi>\d+)\)(?: for device (?P<dev>\S+))?"
)
IBV_ABI_LINES = 6
"""How far above libibverbs' empty list its ABI warning may stand."""


# libibverbs (rdma-core libibverbs/dynamic_driver.c) when a provider it is told of cannot be
# dlopen'ed: "libibverbs: Warning: couldn't load driver 'rxe': librxe-rdmav2.so: cannot open
# shared object file: No such file or directory" (it goes on without that provider)
_IBV_DRIVER_NOT_LOADED_RE = re.compile(
    r"libibverbs: Warning: couldn't load driver '([\w.-]+)': (\S+?): cannot open shared object"
)
_IBV_CONFIG_DIR_RE = re.compile(r"libibverbs: Warning: couldn't open config directory '([^'\n]+)'")


def _abi_said(lines: list[tuple[int, str, int | None]], no: int) -> str:
    """libibverbs' ABI warning just above line ``no``, in words ("" where there is none)."""
    for at, line, _ in reversed(lines):
        if at >= no:
            continue
        if at < no - IBV_ABI_LINES:
            break
        if "config directory" in line and (c := _IBV_CONFIG_DIR_RE.search(line)):
            # libibverbs' read of its providers' configuration (rdma-core libibverbs/init.c,
            # read_config: the directory of one file a provider driver) found no directory
            return (
                f": libibverbs could not open its provider configuration directory "
                f"{c.group(1)} (no rdma-core provider package installed where it ran, often a "
                "container's image)"
            )
        if "kernel ABI" in line and (a := _IBV_ABI_RE.search(line)):
            return (
                f": libibverbs' {a.group('drv')} provider supports kernel ABI {a.group('lo')} to "
                f"{a.group('hi')}, the kernel driver speaks {a.group('abi')} (rdma-core in user "
                "space and the kernel's driver of different releases: a container's rdma-core "
                "older than the host's kernel?)"
            )
    return ""


# systemd-networkd's word of a network interface's link in a host's syslog ("Aug 17 06:18:01
# vm-0 systemd-networkd[5398]: ib6: lost carrier", "... ib6: Gained carrier"): the link went down
# and came back
_CARRIER_RE = re.compile(
    r"(?:(?P<host>[\w.-]+) )?systemd-networkd\[\d+\]: (?P<iface>[\w.@-]+): "
    r"(?P<what>[Ll]ost|[Gg]ained) carrier\b"
)


# the RDMA core's word of a port's state change in the kernel's log (ib_core cache.c
# ib_cache_update: ibdev_info "Port: %d Link %s" with ib_port_state_to_str's DOWN, INIT, ARMED,
# ACTIVE, ACTIVE_DEFER): "Feb 14 05:03:41 host kernel: mlx5_core 0000:ab:00.0 mlx5_5: Port: 1 Link
# ACTIVE"; DOWN is the link lost, ACTIVE the link up (INIT and ARMED are on the way up)
_IB_PORT_LINK_RE = re.compile(
    r"(?:(?P<host>[\w.-]+) kernel: )?(?:\[[\d. ]+\] )?\S+ [0-9a-fA-F:.]+ (?P<dev>\w+): Port: "
    r"(?P<port>\d+) Link (?P<state>DOWN|INIT|ARMED|ACTIVE|ACTIVE_DEFER)\b"
)


def _carrier_losses(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``link_carrier_lost`` event per host and interface whose carrier was lost: how many
    times it went down (a loss said again before the carrier came back is the same one), the
    reports of it, and whether it came back after the last loss (a flap) or not within the log; a
    virtual interface's carrier (containers, bridges, tunnels) is no link."""
    # (host, interface) -> the event, times down, "lost carrier" lines, the line it came back at
    found: dict[tuple[str | None, str], tuple[LogEvent, int, int, int | None]] = {}
    came_up: dict[tuple[str | None, str], int] = {}  # an RDMA port that went ACTIVE, never down
    for no, line, tagged in lines:
        if ": Port: " in line and (p := _IB_PORT_LINK_RE.search(line)) is not None:
            if p.group("state") not in ("DOWN", "ACTIVE"):
                continue
            key = (p.group("host"), f"{p.group('dev')} port {p.group('port')}")
            lost, library, start = p.group("state") == "DOWN", "ib_core", p.start("dev")
            if not lost and key not in found:
                came_up.setdefault(key, no)
        elif (m := _CARRIER_RE.search(line)) is not None and not VIRTUAL_IFACE_RE.match(
            m.group("iface")
        ):
            key = (m.group("host"), m.group("iface"))
            lost, library, start = (
                m.group("what").lower() == "lost",
                "systemd-networkd",
                m.start("iface"),
            )
        else:
            continue
        if lost:
            if key not in found:
                ev = LogEvent(
                    kind="link_carrier_lost",
                    line=no,
                    message=line[start:].strip()[:300],
                    rank=tagged,
                    host=key[0],
                    library=library,
                )
                found[key] = (ev, 1, 1, None)
                continue
            ev, down, reports, back = found[key]
            # still down: the same loss said again
            found[key] = (ev, down + (back is not None), reports + 1, None)
        elif key in found:
            ev, down, reports, _ = found[key]
            found[key] = (ev, down, reports, no)
    for (_, iface), (ev, down, reports, back) in found.items():
        rdma = ev.library == "ib_core"
        ev.exception_type = (
            f"{iface} {'went DOWN' if rdma else 'lost its carrier'} {down} time(s) from line "
            f"{ev.line}"
            + (
                f" ({reports} '{'Link DOWN' if rdma else 'lost carrier'}' lines)"
                if reports > down
                else ""
            )
            + (
                f"; {'ACTIVE' if rdma else 'carrier'} back at line {back} (the link went down "
                "and came back)"
                if back is not None
                else "; not back within the log (the link is down)"
            )
        )
        report.events.append(ev)
    for (host, port), no in came_up.items():
        if (host, port) in found:
            continue  # it went down after: the loss is said above
        report.unread.append(
            ParseWarning(
                line=no,
                message=f"the kernel's RDMA core: {port}"
                + (f" on {host}" if host else "")
                + " came up (Link ACTIVE) and did not go down within the log",
                skipped=False,
            )
        )


# MindCluster NodeD's IPMI monitor passing on the BMC's fault events ("ipmimonitor/ipmi_monitor.
# go:206    get fault event, [device type: NPU]-[device id: 1]-[error code: 56000005]", as its
# fault diagnosis reads them: mind-cluster component/ascend-faultdiag ... noded_log_parser.py)
_BMC_EVENT_RE = re.compile(
    r"get fault event, \[device type: (?P<type>[^\]]+)\]-\[device id: (?P<id>\d+)\]-"
    r"\[error code: (?P<code>[0-9A-Fa-f]+)\]"
)
BMC_ALARMS: dict[str, str] = {
    "80E01801": "HBM multi-bit ECC error",
    "80E18402": "HBM multi-bit ECC error, the 64 rows it can isolate all used",
    "80CB800A": "AIV operator time-out, the NPU hot-reset",
    "80CB8009": "AIV bus access error",
    "56000003": "NPU health emergency alarm",
    "56000005": "NPU connection has been lost (the card dropped off)",
    "56000009": "NPU over-temperature shutdown",
    "2C000007": "abnormal power-off (AI module, system or NPU)",
    "2C00002B": "power-up time-out, a voltage drop on the mainboard",
    "5D00001D": "54 V power-up time-out or NPU abnormal power loss",
    "5D00001F": "NPU abnormal power loss",
    "5D000005": "PSU over-temperature",
    "12000023": "liquid cooling leak",
    "120000C3": "liquid cooling (LAAC) pump not in place",
    "120000C7": "liquid cooling (LAAC) pump speed abnormal",
    "120000C9": "liquid cooling (LAAC) pump failure",
    "04000005": "air cooling fault, fan redundancy lost",
    "04000007": "air cooling fault, fan speed deviation",
    "18000003": "air cooling fault, fan backplane power failure",
    "1800000D": "air cooling fault, fan backplane MCU self-check failed",
}
"""The BMC alarm codes MindCluster's fault diagnosis names, with what each means (mind-cluster
docs/zh/faultdiag/ascend-faultdiag-toolkit/07_references/02_diagnosis_items.md, its alarm code
table; all are faults its advice sends to operations)."""


def _bmc_fault_events(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One event per BMC alarm code NodeD passed on, with every device it named: ``bmc_fault``
    for a code whose meaning is known, ``bmc_event`` for one that is not (said, not guessed)."""
    found: dict[str, tuple[LogEvent, dict[str, list[str]], int]] = {}
    for no, line, tagged in lines:
        if "get fault event" not in line or not (m := _BMC_EVENT_RE.search(line)):
            continue
        code = m.group("code").upper()
        if code not in found:
            known = code in BMC_ALARMS
            ev = LogEvent(
                kind="bmc_fault" if known else "bmc_event",
                line=no,
                message=line[m.start() :].strip()[:300],
                rank=tagged,
                code=code,
                code_name=BMC_ALARMS.get(code),
                library="BMC (MindCluster NodeD)",
            )
            found[code] = (ev, {}, 0)
        ev, devices, count = found[code]
        ids = devices.setdefault(m.group("type").strip(), [])
        if m.group("id") not in ids:
            ids.append(m.group("id"))
        found[code] = (ev, devices, count + 1)
    for code, (ev, devices, count) in found.items():
        named = "; ".join(
            f"{kind} {', '.join(sorted(ids, key=int))}" for kind, ids in devices.items()
        )
        if (npus := devices.get("NPU")) and len(npus) == 1:
            ev.device = int(npus[0])
        meaning = BMC_ALARMS.get(code, "a code MindCluster's alarm table does not list: not read")
        ev.exception_type = (
            f"BMC alarm {code} ({meaning}) for {named}; listed {count} time(s) (NodeD lists "
            "each alarm the BMC holds at every poll)"
        )[:400]
        report.events.append(ev)


# An Ascend driver tool (hccn_tool, as in a public install note where every "hccn_tool -i N -ip
# -s ..." of a loop failed) that could not run its command: "Command execute failed!" (or "Cmd
# execute failed!" after its reason, "Device ID is out of the valid range."), often under the
# driver library's "call drvMngGetConsoleLogLevel failed , g_conLogLevel = 3".
_TOOL_FAILED_RE = re.compile(r"^\s*(?:Cmd|Command) execute failed!\s*$")
_TOOL_BANNER_RE = re.compile(r"^\s*call drvMngGetConsoleLogLevel failed\b")
_VARIABLE_PRINT_RE = re.compile(r"^[a-z]+(?:_[a-z]+)*\s*:\s*\S")


# The shell's answer for a tool it did not find: "/bin/sh: 1: hccn_tool: not found" (dash, as
# MindFormers' hccl_tools.py runs it), "bash: hccn_tool: command not found", "bash: line 1:
# npu-smi: command not found".
_TOOL_NOT_FOUND_RE = re.compile(
    r"^\s*(?:(?:\S*sh: (?:line )?(?:\d+: )?|sudo: )(?P<tool>hccn_tool|npu-smi): (?:command )?not found"
    # zsh names the command last
    r"|zsh: command not found: (?P<tool2>hccn_tool|npu-smi))\s*$"
)

# DCMI's return codes (Ascend DCMI API reference, "返回码": the table of DCMI_ERR_CODE_* values,
# www.hiascend.com/document/detail/zh/Atlas%20200I%20A2/253RC1/re/api/api_177.html), with its
# advice where it gives one.
DCMI_CODES = {
    -8001: ("DCMI_ERR_CODE_INVALID_PARAMETER", "an input parameter is wrong"),
    -8002: ("DCMI_ERR_CODE_OPER_NOT_PERMITTED", "no permission for this call in this setting"),
    -8003: ("DCMI_ERR_CODE_MEM_OPERATE_FAIL", "a memory operation failed: check user memory"),
    -8004: ("DCMI_ERR_CODE_SECURE_FUN_FAIL", "a secure function failed"),
    -8005: ("DCMI_ERR_CODE_INNER_ERR", "internal error"),
    -8006: ("DCMI_ERR_CODE_TIME_OUT", "no answer in time: retry later"),
    -8007: ("DCMI_ERR_CODE_INVALID_DEVICE_ID", "the device id is not valid"),
    -8008: ("DCMI_ERR_CODE_DEVICE_NOT_EXIST", "the device does not exist or is not running"),
    -8009: ("DCMI_ERR_CODE_IOCTL_FAIL", "an ioctl failed"),
    -8010: ("DCMI_ERR_CODE_SEND_MSG_FAIL", "sending a message failed"),
    -8011: ("DCMI_ERR_CODE_RECV_MSG_FAIL", "receiving a message failed"),
    -8012: ("DCMI_ERR_CODE_NOT_REDAY", "the device is not ready yet: retry later"),
    -8013: ("DCMI_ERR_CODE_NOT_SUPPORT_IN_CONTAINER", "this call is not supported in a container"),
    -8015: ("DCMI_ERR_CODE_RESET_FAIL", "a reset failed"),
    -8016: ("DCMI_ERR_CODE_ABORT_OPERATE", "a reset was cancelled"),
    -8017: ("DCMI_ERR_CODE_IS_UPGRADING", "the device is being upgraded: retry later"),
    -8020: (
        "DCMI_ERR_CODE_RESOURCE_OCCUPIED",
        "the device's resources are occupied: another container or process holds it",
    ),
    -8023: ("DCMI_ERR_CODE_CONFIG_INFO_NOT_EXIST", "the configuration asked for does not exist"),
    -8255: ("DCMI_ERR_CODE_NOT_SUPPORT", "the device id or the function is not supported"),
}
_DCMI_INIT_RE = re.compile(
    r"\bdcmi (?:model|module) initiali[sz]ed? failed\b.*?\bret is (?P<code>-\d+)", re.IGNORECASE
)
_DCMI_RET_RE = re.compile(r"\bdcmi/\w+\.go:\d+\s+(?P<what>.+?),? err: retCode: (?P<code>-\d+)")
# DCMI's own log lines, as a hiascend forum thread quotes them from a failed vNPU creation
# (www.hiascend.com/forum/thread-02120198475111631014-1-1.html): "[2025/11/14 03:02:54][0041]
# [root][127.0.0.1][dcmi_cfg_operate.c,dcmi_cfg_check_cfg_path,587]:rename error. errno is 30",
# then each caller's line of its callee's failure with DCMI's code ("dcmi_save_create_vnpu_cfg
# failed. err is -8001"), the outermost last
_DCMI_LOG_RE = re.compile(
    r"^[ \t]*\[\d{4}/\d\d/\d\d \d\d:\d\d:\d\d\]\[(?P<pid>[^\]\n]{0,40})\]\[[^\]\n]{0,64}\]"
    r"\[[^\]\n]{0,64}\]\[dcmi\w{0,80}\.c,(?P<func>\w{1,120}),\d{1,6}\]:(?P<said>[^\n]*)$"
)
_DCMI_LOG_FAILED_RE = re.compile(r"\b(?:error|failed|fail)\b", re.IGNORECASE)
_DCMI_LOG_CODE_RE = re.compile(r"\b(?:err|ret) is (?P<code>-\d{1,6})\b")
_DCMI_LOG_ERRNO_RE = re.compile(r"\berrno is (?P<errno>\d{1,4})\b")


# torch_npu's ProcessGroupHCCL, at init, when its watchdog would end a hung collective before
# HCCL's own execution time-out reports it: "The watchdog timeout 90000ms(which is set by
# init_process_group) is less than or equal to HCCL execution timeout 1836000ms! The plog may
# not be recorded." and a later release's "The HCCL execution timeout 1800000ms is bigger than
# watchdog timeout 300000ms which is set by init_process_group! ..."
_PG_TIMEOUT_WARNING_RE = re.compile(
    r"The watchdog timeout (?P<wd>\d+)ms\s*\(which is set by init_process_group\) is less than "
    r"or equal to HCCL execution timeout (?P<ex>\d+)ms"
    r"|The HCCL execution timeout (?P<ex2>\d+)ms is bigger than watchdog timeout (?P<wd2>\d+)ms"
)


def _pg_timeout_warnings(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``pg_timeout_warning`` per pair of time-outs, counting the processes that warned."""
    seen: dict[tuple[int, int], LogEvent] = {}
    counts: dict[tuple[int, int], int] = {}
    for no, line, tagged in lines:
        if "execution timeout" not in line or not (m := _PG_TIMEOUT_WARNING_RE.search(line)):
            continue
        watchdog_ms = int(m.group("wd") or m.group("wd2"))
        exec_ms = int(m.group("ex") or m.group("ex2"))
        key = (watchdog_ms, exec_ms)
        counts[key] = counts.get(key, 0) + 1
        if key not in seen:
            seen[key] = LogEvent(
                kind="pg_timeout_warning",
                line=no,
                message=line.strip()[:300],
                rank=tagged,
                timeout_ms=watchdog_ms,
                library="HCCL",
            )
            report.events.append(seen[key])
    for (watchdog_ms, exec_ms), ev in seen.items():
        ev.exception_type = (
            f"watchdog {watchdog_ms // 1000} s, HCCL execution {exec_ms // 1000} s "
            f"({counts[(watchdog_ms, exec_ms)]} process(es) warned)"
        )


# torch's ProcessGroupGloo when its host name resolves to no local address: "ProcessGroupGloo.cpp:
# 715] Warning: Unable to resolve hostname to a (local) address. Using the loopback address as
# fallback. Manually set the network interface to bind to with GLOO_SOCKET_IFNAME."
_GLOO_LOOPBACK_RE = re.compile(
    r"Unable to resolve hostname to a \(local\) address\. Using the loopback address as fallback"
)


def _gloo_loopback(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``gloo_loopback`` notice for the file, the ranks that warned counted: their Gloo
    groups listen on the loopback address, which serves one host only."""
    first: LogEvent | None = None
    ranks: set[int] = set()
    warned = 0
    for no, line, tagged in lines:
        if "loopback address as fallback" not in line or not _GLOO_LOOPBACK_RE.search(line):
            continue
        warned += 1
        if tagged is not None:
            ranks.add(tagged)
        if first is None:
            first = LogEvent(
                kind="gloo_loopback",
                line=no,
                message=line.strip()[:300],
                rank=tagged,
                library="Gloo",
            )
            report.events.append(first)
    if first is not None:
        who = f"{len(ranks)} rank(s)" if ranks else f"{warned} process(es)"
        first.exception_type = (
            f"{who} bound Gloo to the loopback address (their host name resolves to no local "
            "address)"
        )


# NCCL's own choice of its network at init (NCCL_DEBUG=INFO): "NET/IB : No device found." and
# "NET/Socket : Using [0]ib1:10.101.105.115<0> ...", then "Using network Socket" (older
# releases print only the first two)
_NET_SOCKET_USING_RE = re.compile(r"NET/Socket : Using (?P<ifaces>.+?)\s*$")
_NET_CHOSEN_RE = re.compile(r"\bUsing network (?P<net>\S.*?)\s*$")
_FIRST_IFACE_RE = re.compile(r"\[0\](?P<iface>[\w.-]+):(?P<addr>[0-9A-Fa-f:.]+)(?:%[\w.-]+)?<\d+>")
"""The first interface of NCCL's list ("[0]ip6tnl0:fe80::e866:19ff:fe1e:a688%ip6tnl0<0>")."""
# an interface of "NET/Socket : Using [0]lo:127.0.0.1<0> [1]eth0:..." that is the loopback
_LOOPBACK_IFACE_RE = re.compile(r"\[\d+\]lo:")
# a net plugin's own warning that it did not start (aws-ofi-nccl: "NET/OFI aws-ofi-nccl
# initialization failed", "NET/OFI Initializing plugin failed"), after which NCCL goes on with its
# built-in transports
_NET_PLUGIN_FAILED_RE = re.compile(
    r"NET/\w+ (?:\S+ )?(?:Initializing plugin|initialization) failed"
)


# NCCL's channel over its network transport (src/transport/net.cc prints "via NET/%s/%d%s%s":
# the net's name, the NIC, "/GDRDMA" when GPU Direct RDMA carries the data, "/Shared"): a
# channel "[receive] via NET/IB/1/Shared" without it has the NIC read and write host memory
_NET_CHANNEL_RE = re.compile(r" via NET/(?P<net>[^/\s]+)/\d+(?:\(\d+\))?(?P<gdr>/GDRDMA)?")


def net_without_gdr(lines: list[tuple[int, str, int | None]]) -> list[LogEvent]:
    """One ``nccl_no_gdr`` notice per host whose NCCL channels over a network transport other
    than its sockets (IB, RoCE, a net plugin's) never carry ``/GDRDMA``: GPU Direct RDMA is not
    used there (the NIC farther from the GPU than NCCL_NET_GDR_LEVEL allows, or no peer-memory
    or DMA-BUF support), every transfer staged through host memory."""
    per_host: dict[str | None, LogEvent] = {}
    gdr: set[str | None] = set()
    for no, line, tagged in lines:
        if " via NET/" not in line or not (m := _NET_CHANNEL_RE.search(line)):
            continue
        if m.group("net") == "Socket":
            continue  # the socket transport never reads GPU memory: nothing to say
        host_m = _NCCL_DEBUG_HOST_RE.search(line)
        host = host_m.group("host") if host_m else None
        if m.group("gdr"):
            gdr.add(host)
        if host not in per_host:  # (the host's first channel line names it)
            per_host[host] = LogEvent(
                kind="nccl_no_gdr",
                line=no,
                message=line.strip()[:300],
                rank=tagged,
                host=host,
                library="NCCL",
                exception_type=f"NCCL's channels over NET/{m.group('net')} carry no /GDRDMA: "
                "GPU Direct RDMA is not used, transfers go through host memory",
            )
    # NCCL's own word at start, per HCA (net_ib.cc's getProperties when ncclIbGdrSupport fails:
    # "NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'", "(no module)" in older releases),
    # where no channel line is in the copy; a host with one HCA enabled may still use it
    disabled: dict[str | None, list[str]] = {}
    enabled: set[str | None] = set()
    first: dict[str | None, tuple[int, str, int | None]] = {}
    for no, line, tagged in lines:
        if "GPU Direct RDMA" not in line or not (d := _GDR_HCA_RE.search(line)):
            continue
        if d.group("net") == "Socket":
            continue  # (the socket transport never reads GPU memory)
        host_m = _NCCL_DEBUG_HOST_RE.search(line)
        host = host_m.group("host") if host_m else None
        if d.group("state").lower() == "enabled":
            enabled.add(host)
        elif d.group("hca") not in disabled.setdefault(host, []):
            disabled[host].append(d.group("hca"))
            first.setdefault(host, (no, line, tagged))
    sizes = {int(n.group(1)) for _, line, _ in lines if (n := _NRANKS_RE.search(line))}
    # (channel lines none of which goes over the network: the run sent nothing through the NICs)
    local_only = any(" via P2P" in t or " via SHM" in t for _, t, _ in lines) and not any(
        " via NET/" in t for _, t, _ in lines
    )
    for host, hcas in disabled.items():
        if host in per_host or host in enabled or host in gdr or sizes == {1} or local_only:
            continue  # (a communicator of one rank, or one host's, sends nothing over the network)
        no, line, tagged = first[host]
        per_host[host] = LogEvent(
            kind="nccl_no_gdr",
            line=no,
            message=line.strip()[:300],
            rank=tagged,
            host=host,
            library="NCCL",
            exception_type=f"NCCL says GPU Direct RDMA is disabled for {', '.join(hcas)}: "
            "transfers through them go through host memory (no peer-memory support found)",
        )
    return [ev for host, ev in per_host.items() if host not in gdr]


_NRANKS_RE = re.compile(r"NCCL INFO comm 0x[0-9a-f]+ rank \d+ nranks (\d+) ")
_GDR_HCA_RE = re.compile(
    r"NET/(?P<net>[^:\n]+?) : GPU Direct RDMA (?:\(DMABUF\) )?(?P<state>Disabled|Enabled|enabled)"
    r" for HCA \d+ '(?P<hca>[^']+)'"
)


# NCCL's paths from each GPU at NCCL_DEBUG_SUBSYS=GRAPH (graph/paths.cc printNodePaths): "GPU/0-17000
# :GPU/0-17000 (0/5000.0/LOC) GPU/0-65000 (1/240.0/NVL) CPU/0-0 (1/24.0/PHB)", each path's hops,
# bandwidth (GB/s) and type; older releases name a node "GPU/17000".
_TOPO_PATHS_RE = re.compile(r"NCCL INFO GPU/(?P<src>[0-9a-fA-F-]+) :(?P<paths>.*)$")
_TOPO_PATH_RE = re.compile(
    r"GPU/(?P<dst>[0-9a-fA-F-]+) \((?P<hops>\d+)/(?P<bw>[\d.]+)/(?P<type>\w+)\)"
)
NVLINK_ASYMMETRY = 2.0
"""How many times wider one direction of a GPU pair's NVLink path must be than the other, in
NCCL's own topology, to say one side's links are missing: NCCL gives each direction the links
its source GPU counts to the other (graph/topo.cc ncclTopoAddNvLinks: count x the per-link
bandwidth), and a link joins both GPUs, so the two counts differ only where one side's links are
not active (or a topology file NCCL was given says so)."""


def nvlink_asymmetry(lines: list[tuple[int, str, int | None]]) -> list[LogEvent]:
    """One ``nccl_nvlink_asymmetric`` notice per host and GPU pair whose NVLink path NCCL saw at
    ``NVLINK_ASYMMETRY`` times the bandwidth one way than the other: the links of one side are
    missing (or a topology file NCCL was given says so), NCCL builds fewer channels over them."""
    paths: dict[tuple[str | None, str, str], tuple[float, int, str, int | None]] = {}
    for no, line, tagged in lines:
        if " :GPU/" not in line or not (m := _TOPO_PATHS_RE.search(line)):
            continue
        host_m = _NCCL_DEBUG_HOST_RE.search(line)
        host = host_m.group("host") if host_m else None
        # (2.21 and 2.22 print the source "GPU/17000" and its paths' "GPU/0-17000": the
        # system id before the bus id; one host's GPUs are told apart by the bus id)
        src = m.group("src").rsplit("-", 1)[-1].lower()
        for p in _TOPO_PATH_RE.finditer(m.group("paths")):
            dst = p.group("dst").rsplit("-", 1)[-1].lower()
            if p.group("type") == "NVL" and dst != src:
                key = (host, src, dst)
                paths.setdefault(key, (float(p.group("bw")), no, line.strip(), tagged))
    events: dict[tuple[str | None, frozenset[str]], LogEvent] = {}
    for (host, src, dst), (bw, no, line, tagged) in paths.items():
        back = paths.get((host, dst, src))
        if back is None or (host, frozenset((src, dst))) in events:
            continue
        narrow, wide = min(bw, back[0]), max(bw, back[0])
        if narrow <= 0 or wide < NVLINK_ASYMMETRY * narrow:
            continue
        low_src, low_dst = (src, dst) if bw == narrow else (dst, src)
        events[(host, frozenset((src, dst)))] = LogEvent(
            kind="nccl_nvlink_asymmetric",
            line=min(no, back[1]),
            message=(line if no <= back[1] else back[2])[:300],
            rank=tagged,
            host=host,
            library="NCCL",
            exception_type=f"NCCL's topology gives the NVLink path GPU/{low_src} -> GPU/{low_dst} "
            f"{narrow:g} GB/s and the way back {wide:g} GB/s",
        )
    return list(events.values())


def nccl_debug_notices(text: str) -> list[LogEvent]:
    """What NCCL's INFO lines in a file of another format (an nccl-tests log run with
    NCCL_DEBUG=INFO) say of how it set up: channels without GPU Direct RDMA, NVLink paths
    narrower one way (notices, no failure)."""
    if " via NET/" not in text and " :GPU/" not in text:
        return []
    lines = numbered_lines(text)
    return net_without_gdr(lines) + nvlink_asymmetry(lines)


def _socket_network(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``nccl_socket_network`` a host whose NCCL found no IB/RoCE device, chose its socket
    transport or set a channel up over it, in a log whose NCCL processes span two or more hosts
    (on one host the network carries nothing), or on a host whose net plugin (aws-ofi-nccl's)
    failed to start before NCCL fell back to its sockets (the plugin was there to carry the
    traffic between hosts)."""
    per_host: dict[str, LogEvent] = {}
    chosen: dict[str, str] = {}
    plugin_failed: dict[str, str] = {}
    over_sockets: set[str] = set()
    loopback: set[str] = set()
    link_local: set[str] = set()
    ib_off: set[str] = set()  # hosts whose environment set NCCL_IB_DISABLE=1
    no_verbs: set[str] = set()  # hosts where NCCL could not open libibverbs
    old_ifaces: dict[str, list[tuple[int, str]]] = {}  # NCCL 2.1-2.3's one line an interface
    for no, line, tagged in lines:
        if "NET : Using interface" in line and (o := _OLD_NET_IFACE_RE.search(line)):
            if (h := _NCCL_DEBUG_HOST_RE.search(line)) is not None:
                old_ifaces.setdefault(h.group("host"), []).append((no, o.group("iface")))
            continue
        if (
            "NET/" not in line
            and "Using network" not in line
            and "NCCL_IB_DISABLE" not in line
            and "libibverbs" not in line
        ):
            continue
        host_m = _NCCL_DEBUG_HOST_RE.search(line)
        if host_m is None:
            continue
        host = host_m.group("host")
        if "NCCL_IB_DISABLE set by environment to 1" in line:
            ib_off.add(host)
        if "Failed to open libibverbs" in line:
            no_verbs.add(host)  # NCCL's IB transport has no verbs library: it finds no device
        if "WARN" in line and (pf := _NET_PLUGIN_FAILED_RE.search(line)):
            plugin_failed.setdefault(host, pf.group(0))
        if (net := _NET_CHOSEN_RE.search(line)) is not None:
            chosen[host] = net.group("net")
        no_ib = "NET/IB : No device found" in line
        using = _NET_SOCKET_USING_RE.search(line)
        # "Channel 00 : 0[1b0] -> 4[1b0] [receive] via NET/Socket/0"
        channel = " via NET/Socket" in line
        if channel:
            over_sockets.add(host)
        # (with IB turned off, NCCL's socket transport listing its interfaces is the one it uses)
        socket = (
            no_ib
            or channel
            or (net is not None and net.group("net") == "Socket")
            or (using is not None and host in ib_off)
        )
        if socket and host not in per_host:
            per_host[host] = LogEvent(
                kind="nccl_socket_network",
                line=no,
                message=line.strip()[:300],
                rank=tagged,
                host=host,
                library="NCCL",
                exception_type="NCCL found no InfiniBand/RoCE device and uses TCP sockets"
                if no_ib or host in no_verbs
                else "NCCL sets its channels up over TCP sockets"
                if channel
                # (the log does not say why: no device found, or NCCL_NET=Socket chose it)
                else "NCCL chose its socket network ('Using network Socket')",
            )
        if (
            using is not None
            and _LOOPBACK_IFACE_RE.search(using.group("ifaces"))
            # (the loopback alone on one host: a test its user pointed there)
            and (using.group("ifaces").count("]") > 1 or len(report.hosts) >= 2)
        ):
            if host not in loopback:
                loopback.add(host)
                report.unread.append(
                    ParseWarning(
                        line=no,
                        message=f"{host}: NCCL's socket interfaces include the loopback "
                        f"({using.group('ifaces')[:100]}): no other host can reach it there; "
                        "NCCL_SOCKET_IFNAME names the interface to use",
                        skipped=False,
                    )
                )
        if (
            using is not None
            and (first_if := _FIRST_IFACE_RE.match(using.group("ifaces")))
            and first_if.group("addr").lower().startswith("fe80:")
            and host not in link_local
        ):
            # an IPv6 link-local address (fe80::/10) is reachable on its own link only (an
            # ip6tnl0 tunnel's, first in the list of NCCL issue 529's "NCCL timeouts" log)
            link_local.add(host)
            report.unread.append(
                ParseWarning(
                    line=no,
                    message=f"{host}: NCCL's first socket interface has an IPv6 link-local "
                    f"address ({first_if.group(0)[:80]}): no peer off that link reaches it; "
                    "NCCL_SOCKET_IFNAME names the interface to use",
                    skipped=False,
                )
            )
        said = (per_host[host].exception_type or "") if host in per_host else ""
        if using is not None and host in per_host and " over " not in said:
            per_host[host].exception_type = f"{said} over {using.group('ifaces')[:120]}"
    many = len(report.hosts) >= 2
    for host, ifaces in old_ifaces.items():
        names = [i for _, i in ifaces]
        lo = next(((n, i) for n, i in ifaces if i.startswith("lo:")), None)
        if lo and host not in loopback and (len(names) > 1 or len(report.hosts) >= 2):
            loopback.add(host)
            report.unread.append(
                ParseWarning(
                    line=lo[0],
                    message=f"{host}: NCCL's socket interfaces include the loopback "
                    f"({', '.join(names)[:100]}): no other host can reach it there; "
                    "NCCL_SOCKET_IFNAME names the interface to use",
                    skipped=False,
                )
            )
    for host in ib_off & set(per_host):
        # NCCL did not look for InfiniBand/RoCE devices: the environment turned them off (the
        # interfaces said after the first words kept)
        said = per_host[host].exception_type or ""
        if not said.startswith("NCCL sets its channels up over TCP sockets"):
            rest = said[said.index(" over ") :] if " over " in said else ""
            per_host[host].exception_type = (
                "NCCL_IB_DISABLE=1 (set by the environment): NCCL uses TCP sockets" + rest
            )
    for host, ev in per_host.items():
        if chosen.get(host, "Socket") != "Socket":
            continue  # a net plugin (libfabric's, EFA's) carries it after all
        if not many and host not in plugin_failed and host not in over_sockets:
            # one host that chose NCCL's sockets: what a job of several hosts would send over
            report.unread.append(
                ParseWarning(
                    line=ev.line,
                    message=f"{host}: {ev.exception_type}; no channel in the log crosses hosts, "
                    "so only a job of several hosts would send over them (TCP, no RDMA)",
                    skipped=False,
                )
            )
            continue
        if not many and host not in plugin_failed:
            continue
        if not many and host not in over_sockets:
            # one host whose plugin failed, and no channel of its over the network: a job of
            # this host alone sends nothing between hosts; a job of several would use sockets
            report.unread.append(
                ParseWarning(
                    line=ev.line,
                    message=f"{host}: the net plugin failed to start ({plugin_failed[host][:80]}) "
                    "and NCCL fell back to its sockets; no channel in the log crosses hosts, so "
                    "only a job of several hosts would send over them",
                    skipped=False,
                )
            )
            continue
        if host in plugin_failed:
            ev.exception_type = (
                f"the net plugin failed to start ({plugin_failed[host][:80]}): {ev.exception_type}"
            )
        others = {h: n for h, n in chosen.items() if h != host and n != "Socket"}
        if others:
            # the other hosts' NCCL chose another network: the hosts disagree on it
            ev.exception_type = (
                f"{ev.exception_type}; the other host(s) chose another network ("
                + ", ".join(f"{h}: {n}" for h, n in sorted(others.items()))
                + "): the hosts disagree on NCCL's network, so set the same (NCCL_IB_DISABLE, "
                "NCCL_NET, the RDMA devices) on every host"
            )
        report.events.append(ev)


# NCCL's IB transport lists the devices it took with each port's link layer (NCCL
# src/transport/net_ib.cc, ncclIbInit: "NET/IB : Using [0]mlx5_1:1/IB [1]mlx5_2:1/RoCE ; OOB
# eth0:10.0.0.1<0>"): one list mixing InfiniBand and RoCE ports spreads the job's channels over
# two fabrics unless NCCL_IB_HCA names the ports meant
_NET_IB_USING_RE = re.compile(
    r"NET/IB ?: ?Using (?P<devs>(?:\[\d+\][\w.-]+:\d+/(?:IB|RoCE)(?:/SHARP)?\s*)+)"
)
_IB_DEVICE_RE = re.compile(r"\[\d+\](?P<dev>[\w.-]+):(?P<port>\d+)/(?P<layer>IB|RoCE)")


def _ib_link_layers(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """A note per host whose NCCL took InfiniBand and RoCE ports together."""
    said: set[str | None] = set()
    for no, line, _ in lines:
        if "NET/IB" not in line or not (m := _NET_IB_USING_RE.search(line)):
            continue
        host_m = _NCCL_DEBUG_HOST_RE.search(line)
        host = host_m.group("host") if host_m else None
        if host in said:
            continue
        layers: dict[str, list[str]] = {"IB": [], "RoCE": []}
        for d in _IB_DEVICE_RE.finditer(m.group("devs")):
            layers[d.group("layer")].append(f"{d.group('dev')}:{d.group('port')}")
        if layers["IB"] and layers["RoCE"]:
            said.add(host)
            report.unread.append(
                ParseWarning(
                    line=no,
                    message=f"{host + ': ' if host else ''}NCCL's IB transport took ports of "
                    f"both link layers: InfiniBand {', '.join(layers['IB'])}; RoCE "
                    f"{', '.join(layers['RoCE'])} (NCCL_IB_HCA names the ports a job should use)",
                    skipped=False,
                )
            )


# torch distributed_c10d._store_based_barrier logs while it waits (every 10 s, before its
# time-out): "Waiting in store based barrier to initialize process group for rank: R, key: K
# (world_size=W, worker_count=C, timeout=T)"; newer torch "num_workers_joined=C" (one release
# logs "...to initialize process group for N secondsrank: R, ..."; one "processgroup")
# ... and once every rank joined: "Rank R: Completed store-based barrier for key:K with W nodes."
_STORE_BARRIER_DONE_RE = re.compile(
    # (the rank that passed where torch names it: "Rank 14: Completed store-based barrier for
    # key:store_based_barrier_key:1 with 32 nodes.")
    r"(?:\bRank (?P<rank>\d+): )?Completed store-based barrier for key:\s*(?P<key>[^\s(]+) with \d+"
)
_STORE_BARRIER_WAIT_RE = re.compile(
    r"Waiting in store based barrier to initialize process ?group for .*?rank:? (?P<rank>\d+), "
    r"key: (?P<key>[^\s(]+) \(world_size=(?P<world>\d+), "
    r"(?:worker_count|num_workers_joined)=(?P<joined>\d+)"
)


def _store_barrier_waits(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``store_barrier_wait`` per barrier key that ranks were still waiting at, with fewer
    workers joined than the group's size, where no time-out of that barrier was read: the ranks
    that had not started (or were started under other ranks' numbers) at process-group init."""
    if any(e.kind == "store_timeout" and "store-based barrier" in (e.exception_type or "")
           for e in report.events):  # fmt: skip
        return  # the barrier's time-out already says it, with the count it ended at
    waits: dict[str, tuple[LogEvent, set[int], int]] = {}
    completed: set[str] = set()
    for no, line, _ in lines:
        if "Completed store-based barrier" in line and (
            done := _STORE_BARRIER_DONE_RE.search(line)
        ):
            completed.add(done.group("key"))
            continue
        if "store based barrier" not in line or not (m := _STORE_BARRIER_WAIT_RE.search(line)):
            continue
        world, joined, rank = int(m.group("world")), int(m.group("joined")), int(m.group("rank"))
        if joined >= world:
            continue
        key = m.group("key")
        if key not in waits:
            ev = LogEvent(
                kind="store_barrier_wait",
                line=no,
                message=line.strip()[:300],
                rank=rank,
                rank_size=world,
                numel=joined,
                group=key,  # the barrier's store key
            )
            waits[key] = (ev, set(), joined)
            report.events.append(ev)
        ev, ranks, least = waits[key]
        ranks.add(rank)
        waits[key] = (ev, ranks, max(least, joined))
    report.events = [
        e for e in report.events if not (e.kind == "store_barrier_wait" and e.group in completed)
    ]
    for ev, ranks, most in waits.values():
        ev.numel = most
        ev.exception_type = (
            f"{most} of {ev.rank_size} ranks joined the process group's store barrier; "
            f"rank(s) {', '.join(map(str, sorted(ranks)))} waited for the rest"
        )


# PyTorch Lightning's line as each process joins the group: "Initializing distributed:
# GLOBAL_RANK: 1, MEMBER: 2/8" (lightning.fabric.utilities.distributed)
_LIGHTNING_INIT_RE = re.compile(
    r"(?:Initializing distributed|initializing ddp): GLOBAL_RANK: (?P<rank>\d+), "
    r"MEMBER: \d+/(?P<world>\d+)"
)
"""(Lightning 1.x printed "initializing ddp: GLOBAL_RANK: 1, MEMBER: 2/8")"""


# NCCL's line for each rank of a communicator it sets up (init.cc): "comm 0x562e3380 rank 0 nranks 8
# cudaDev 0 nvmlDev 0 busId 31000 commId 0x26b3ece72ee71028 - Init START" (commId from 2.19 on)
_NCCL_COMM_GPU_RE = re.compile(
    r"\bcomm 0x[0-9a-f]+ rank (?P<rank>\d+) nranks (?P<nranks>\d+) cudaDev \d+"
    # (NCCL 2.4's init line names no bus: "... cudaDev 0 nvmlDev 0 - Init COMPLETE")
    r"(?: nvmlDev \d+)?(?: busId (?P<bus>[0-9a-f]+))?(?: commId (?P<comm>0x[0-9a-f]+))?"
    r"(?P<phase> - (?:Init (?:START|COMPLETE)|Abort COMPLETE|Destroy COMPLETE))?"
)
# (NCCL before 2.19 printed no commId: two processes' lines of one size, bus and host, with
# other ranks, stand for one communicator when NCCL says they started or ended it)


_NCCL_VERSION_RE = re.compile(r"NCCL version (\d+)\.(\d+)\.\d+")
NCCL_ALLOWS_SHARED_GPU = (2, 30)
"""NCCL 2.30's init.cc no longer stops at two ranks on one GPU: "Multiple ranks on the same GPU
detected and allowed" (v2.30.3-1)."""


def _duplicate_gpus(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``duplicate_gpu`` per host and GPU that two ranks of one communicator (its commId) were
    set up on: NCCL before 2.30 stops that init ("Duplicate GPU detected : rank %d and rank %d
    both on CUDA device %lx", ncclInvalidUsage; init.cc, the check dropped in the 2.30 sources):
    the launcher gave two processes one GPU."""
    ranks: dict[tuple[str, str, str], dict[int, int]] = {}
    pids: dict[tuple[str, str, str], set[str]] = {}  # a commId-less key's processes
    for no, line, _ in lines:
        if "NCCL version 2." in line and (v := _NCCL_VERSION_RE.search(line)):
            if (int(v.group(1)), int(v.group(2))) >= NCCL_ALLOWS_SHARED_GPU:
                return  # NCCL 2.30 on runs several ranks on one GPU ("... detected and allowed")
        if "busId" not in line or not (m := _NCCL_COMM_GPU_RE.search(line)) or not m.group("bus"):
            continue
        if m.group("comm") is None and m.group("phase") is None:
            continue
        host_m = _NCCL_DEBUG_HOST_RE.search(line)
        if host_m is None:
            continue  # which machine the GPU is in is unknown: two hosts have a bus 31000
        comm = m.group("comm")
        if comm is None:
            # no commId: one process is one rank of it, so two ranks need two processes
            if host_m.group("pid") is None:
                continue
            comm = f"of {m.group('nranks')} ranks"
            pids.setdefault((host_m.group("host"), comm, m.group("bus")), set()).add(
                host_m.group("pid")
            )
        key = (host_m.group("host"), comm, m.group("bus"))
        ranks.setdefault(key, {}).setdefault(int(m.group("rank")), no)
    for (host, comm, bus), seen in ranks.items():
        if len(seen) < 2 or len(pids.get((host, comm, bus), {"", "_"})) < 2:
            continue
        second = sorted(seen)[1]
        report.events.append(
            LogEvent(
                kind="duplicate_gpu",
                line=seen[second],
                message=lines[seen[second] - 1][1].strip()[:300],
                rank=second,
                host=host,
                library="NCCL",
                exception_type=f"ranks {', '.join(map(str, sorted(seen)))} of "
                + (f"communicator {comm}" if comm.startswith("0x") else f"a communicator {comm}")
                + f" on {host} share the GPU at bus {bus}",
            )
        )


def _duplicate_ranks(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``duplicate_rank`` per global rank that two or more processes initialised: behind two
    or more launcher tags (Slurm tasks, MPI ranks), or, in a log without tags, where the ranks
    seen each came the same number of times (two or more) and others of the world never came:
    the launcher started the job's processes twice over (one task a node that spawns its own
    ranks, each node taking itself for node 0), so some ranks never start and the group waits
    for them at init. (A log of one run started twice names every rank twice: not this.)"""
    by_rank: dict[int, list[tuple[int, str, int | None, str]]] = {}
    for no, line, tagged in lines:
        if "GLOBAL_RANK" not in line or not (m := _LIGHTNING_INIT_RE.search(line)):
            continue
        by_rank.setdefault(int(m.group("rank")), []).append((no, m.group("world"), tagged, line))
    if not by_rank:
        return
    world = max(int(w) for seen in by_rank.values() for _, w, _, _ in seen)
    counts = {len(seen) for seen in by_rank.values()}
    untagged_twice = (
        all(t is None for seen in by_rank.values() for _, _, t, _ in seen)
        and len(counts) == 1
        and min(counts) >= 2
        and len(by_rank) < world
    )
    for rank, seen in sorted(by_rank.items()):
        tags = sorted({t for _, _, t, _ in seen if t is not None})
        if len(tags) < 2 and not untagged_twice:
            continue
        no, size, _, first = seen[0]
        by = (
            f"behind launcher tags {', '.join(map(str, tags))}"
            if len(tags) >= 2
            else f"{len(seen)} times, while {world - len(by_rank)} of the {world} ranks never came"
        )
        report.events.append(
            LogEvent(
                kind="duplicate_rank",
                line=no,
                message=first.strip()[:300],
                rank=rank,
                rank_size=int(size),
                exception_type=f"global rank {rank} of {size} initialised by the processes {by}"
                if len(tags) >= 2
                else f"global rank {rank} of {size} initialised {by}",
            )
        )


# ProcessGroupNCCL logs its options and settings at INFO when a group is made (TORCH_CPP_LOG_LEVEL
# =INFO; ProcessGroupNCCL.cpp): "[PG ID 0 PG GUID 0 Rank 7] ProcessGroupNCCL initialization
# options: size: 8, global rank: 7, TIMEOUT(ms): 600000, ..." and "... ProcessGroupNCCL
# environments: NCCL version: 2.21.5, TORCH_NCCL_ASYNC_ERROR_HANDLING: 1, ...,
# TORCH_NCCL_TRACE_BUFFER_SIZE: 0, ..." (the keys vary by release; the trace buffer is the flight
# recorder's: 0 keeps nothing)
_PG_OPTIONS_RE = re.compile(
    r"ProcessGroupNCCL initialization options: size: (?P<size>\d+), global rank: (?P<rank>\d+), "
    r"TIMEOUT\(ms\): (?P<ms>\d+)"
)
_PG_ENVIRONMENTS_RE = re.compile(r"ProcessGroupNCCL environments: (?P<body>.*\S)")


# HCCL's run plog states each setting it took as it starts, under the tag "[HCCL_ENV]" (hicann/hccl
# docs, fault diagnosis, debug_thinking.md: grep the run plog for HCCL_ENV): "HCCL_CONNECT_TIMEOUT
# set by default to [120]s", "HCCL_BUFFSIZE set by environment to [1]M", "HCCL_IF_IP is not set".
_HCCL_ENV_RE = re.compile(
    r"\b(?P<name>HCCL_[A-Z_]+) (?:is )?set by (?P<how>default|environment)"
    r"(?: variable)? to \[(?P<value>[^\]]*)\](?P<unit>[A-Za-z]*)"
)
# an older plog's own word of a setting it took (externalinput.cc): "[EVENT] HCCL(107,python):...
# environmental variable HCCL_CONNECT_TIMEOUT is set, timeOut[600]"
_HCCL_ENV_OLD_RE = re.compile(
    r"\benvironmental variable (?P<name>HCCL_[A-Z_]+) is set, \w+\[(?P<value>[^\]]*)\]"
)
HCCL_ENV_SHOWN = (
    "HCCL_CONNECT_TIMEOUT",
    "HCCL_EXEC_TIMEOUT",
    "HCCL_BUFFSIZE",
    "HCCL_IF_BASE_PORT",
    "HCCL_SOCKET_IFNAME",
    "HCCL_RDMA_TIMEOUT",
    "HCCL_RDMA_RETRY_CNT",
    "HCCL_INTRA_ROCE_ENABLE",
    "HCCL_INTRA_PCIE_ENABLE",
)
"""The HCCL_ENV settings a note names, in this order (the time-outs and what sets up links)."""


# the agent's start of a communicator by root info (HCCL's trace in the run plog): "[HCCL_TRACE]
# [Flat]SetupAgent rankNum[3], rank[0], rootInfo identifier[...], server[1.1.1.1%enp189s0f0],
# serverPort[60000]deviceType[2], logicDevId[0], phydevId[0], deviceIp[1.1.1.11]": the root's
# identifier (its address first), this process's own host address as "server" and the root's
# port (hcomm topoinfo_detect.cc SetupAgent: rootInfo.identifier, localRankInfo_.hostIP,
# rootInfo.port)
_SETUP_AGENT_RE = re.compile(
    r"SetupAgent rankNum\[(?P<size>\d+)\], rank\[(?P<rank>\d+)\]"
    r"(?:, rootInfo identifier\[(?P<root>[0-9A-Fa-f.:]+)[%_][^\]]*\])?.*?server\[(?P<server>[^\]%]+)"
    r"(?:%[^\]]*)?\],\s*serverPort\[(?P<port>\d+)\](?:.*?logicDevId\[(?P<dev>-?\d+)\])?"
    r"(?:.*?deviceIp\[(?P<ip>[^\]]*)\])?"
)


def _hcom_init_notes(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """A note of each communicator a healthy plog says HCCL set up, from its rank table ("hcom
    init by file success, ..., rankNum[8], rank[7],server[51.38.67.77], device[7]") or by root
    info (its agent's "SetupAgent rankNum[3], rank[0], ..., server[...], serverPort[...]")."""
    seen: set[str] = set()
    for no, line, _ in lines:
        if "Entry-HcclCommInitRootInfo" in line and (e := _INIT_ENTRY_RE.search(line)):
            # the creation's entry: what it was called with (that it finished is in later lines)
            said = (
                f"HCCL was called to create a communicator by root info: rank {e.group('rank')} "
                f"of {e.group('size')}"
                + (f", root {e.group('ip')} port {e.group('port')}" if e.group("ip") else "")
                + (f", identifier {e.group('ident')}" if e.group("ident") else "")
                + (f", device {e.group('dev')}" if e.group("dev") else "")
            )
            if said not in seen:
                seen.add(said)
                report.unread.append(ParseWarning(line=no, message=said, skipped=False))
            continue
        if "SetupAgent" in line and (a := _SETUP_AGENT_RE.search(line)):
            said = (
                f"HCCL set up a communicator by root info: rank {a.group('rank')} of "
                f"{a.group('size')}, "
                + (
                    f"root {a.group('root')} port {a.group('port')}, this host {a.group('server')}"
                    if a.group("root")
                    else f"root port {a.group('port')}, this host {a.group('server')}"
                )
                + (f", device {a.group('dev')}" if a.group("dev") else "")
                + (f" (device IP {a.group('ip')})" if a.group("ip") else "")
            )
            if said not in seen:
                seen.add(said)
                report.unread.append(ParseWarning(line=no, message=said, skipped=False))
            continue
        if "hcom init by file" not in line or not (m := _HCOM_INIT_RE.search(line)):
            continue
        said = f"HCCL set up its communicator from the rank table: rank {m.group('rank')} of " + (
            f"{m.group('size')}"
            + (f" on server {m.group('server')}" if m.group("server") else "")
            + (f", device {m.group('dev')}" if m.group("dev") else "")
        )
        if said not in seen:
            seen.add(said)
            report.unread.append(ParseWarning(line=no, message=said, skipped=False))


def _hccl_env_settings(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """A note of the settings HCCL's run plog says it took, the ones that bear on time-outs and
    links first, as the first process stated them; a setting another process took with another
    value is named with each process's (the plog states each process's own)."""
    taken: dict[str, dict[str, str]] = {}  # setting -> process -> value
    first = 0
    for no, line, _ in lines:
        if "environmental variable" in line and (old := _HCCL_ENV_OLD_RE.search(line)):
            pm = _PLOG_PID_RE.search(line)
            first = first or no
            taken.setdefault(old.group("name"), {}).setdefault(
                pm.group(1) if pm else "", f"{old.group('value')} (environment)"
            )
            continue
        if "[HCCL_ENV]" not in line and not ("] HCCL(" in line and " set by " in line):
            continue  # (older plogs print the settings without the tag)
        pm = _PLOG_PID_RE.search(line)
        pid = pm.group(1) if pm else ""
        for m in _HCCL_ENV_RE.finditer(line):
            first = first or no
            value = (
                f"{m.group('value') or '(empty)'}{' ' + m.group('unit') if m.group('unit') else ''}"
            )
            taken.setdefault(m.group("name"), {}).setdefault(pid, f"{value} ({m.group('how')})")
    if not taken:
        return
    shown = [n for n in HCCL_ENV_SHOWN if n in taken]
    shown += [n for n in taken if n not in HCCL_ENV_SHOWN]
    same = [n for n in shown if len(set(taken[n].values())) == 1]
    apart = [n for n in shown if n not in same]
    parts = [", ".join(f"{n} {next(iter(taken[n].values()))}" for n in same)] if same else []
    if apart:
        parts.append(
            "differing between processes: "
            + "; ".join(
                f"{n} " + ", ".join(f"pid {pid or '?'} {v}" for pid, v in taken[n].items())
                for n in apart
            )
        )
    said = "; ".join(parts)
    report.unread.append(
        ParseWarning(
            line=first,
            message=f"HCCL's settings in its run plog (HCCL_ENV): {said}"[:1200],
            skipped=False,
        )
    )


# torch's watchdog when it found no stack for the failed collective: "Stack trace of the failed
# collective not found, potentially because FlightRecorder is disabled. You can enable it by
# setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value." (ProcessGroupNCCL.cpp)
_RECORDER_OFF_RE = re.compile(r"potentially because FlightRecorder is disabled")


def _recorder_off(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """A ``pg_settings`` notice (flight recorder off, ``numel`` 0) from torch's own word that
    it found no recorded stack, the ranks that said so counted, where no settings line of the
    log already says the recorder's size."""
    if any(e.kind == "pg_settings" and e.numel is not None for e in report.events):
        return
    first: LogEvent | None = None
    ranks: set[int | None] = set()
    for no, line, tagged in lines:
        if "FlightRecorder is disabled" not in line or not _RECORDER_OFF_RE.search(line):
            continue
        ranks.add(tagged)
        if first is None:
            first = LogEvent(
                kind="pg_settings",
                line=no,
                message=line.strip()[:300],
                rank=tagged,
                numel=0,
                library="NCCL",
            )
            report.events.append(first)
    if first is not None:
        named = sorted(r for r in ranks if r is not None)
        first.exception_type = (
            "flight recorder off: torch found no recorded stack of the failed collective"
            + (f" (rank(s) {', '.join(map(str, named))})" if named else "")
        )


def _pg_settings(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``pg_settings`` per distinct ProcessGroupNCCL environment (a rank's settings as its
    group started), with the group's watchdog time-out and how many ranks printed it."""
    timeout: dict[tuple[int | None, str | None], tuple[int, int]] = {}
    seen: dict[tuple[str, int | None], tuple[LogEvent, set[int | None]]] = {}
    for no, line, tagged in lines:
        if "ProcessGroupNCCL " not in line:
            continue
        pg = _pg(_PG_RE.search(line))
        rank_m = _WATCHDOG_RANK_RE.search(line)  # the record's "[PG ID 0 PG GUID 0 Rank 7]"
        owner = int(rank_m.group(1) or rank_m.group(2)) if rank_m else None
        rank = tagged if tagged is not None else owner
        if om := _PG_OPTIONS_RE.search(line):
            timeout[(rank, pg)] = (int(om.group("ms")), int(om.group("size")))
            continue
        if not (em := _PG_ENVIRONMENTS_RE.search(line)):
            continue
        settings = {}
        for pair in em.group("body").split(", "):
            key, _, value = pair.partition(": ")
            settings[key.strip()] = value.strip()
        ms, size = timeout.get((rank, pg), (None, None))
        key = (em.group("body"), ms)
        if key in seen:
            seen[key][1].add(rank)
            continue
        trace = settings.get("TORCH_NCCL_TRACE_BUFFER_SIZE")
        said = [f"NCCL {settings['NCCL version']}"] if "NCCL version" in settings else []
        if ms is not None:
            said.append(f"watchdog time-out {ms // 1000} s")
        if trace is not None:
            said.append(
                "flight recorder off (TORCH_NCCL_TRACE_BUFFER_SIZE 0)"
                if trace == "0"
                else f"flight recorder on ({trace} entries)"
            )
        for name, what in (
            ("TORCH_NCCL_ASYNC_ERROR_HANDLING", "async error handling"),
            ("TORCH_NCCL_DUMP_ON_TIMEOUT", "dump on time-out"),
            ("TORCH_NCCL_DESYNC_DEBUG", "desync debug"),
            ("TORCH_NCCL_BLOCKING_WAIT", "blocking wait"),
            ("TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC", "heartbeat time-out (s)"),
        ):
            if name in settings:
                said.append(f"{what} {settings[name]}")
        ev = LogEvent(
            kind="pg_settings",
            line=no,
            message=line.strip()[:300],
            rank=rank,
            rank_size=size,
            group=pg,
            timeout_ms=ms,
            numel=int(trace) if trace is not None and trace.isdigit() else None,
            code=settings.get("NCCL version"),
            library="NCCL",
            exception_type="; ".join(said),
        )
        seen[key] = (ev, {rank})
        report.events.append(ev)
    for ev, ranks in seen.values():
        if len(ranks) > 1:
            ev.exception_type = f"{ev.exception_type} ({len(ranks)} ranks)"


# LBNL Node Health Check (NHC, and Azure's distributed NHC that runs it on every node and prints
# "host | result"): "ERROR: nhc: Health check failed: check_hw_ib: No IB port mlx5_ib7:1 is
# ACTIVE (LinkUp 400 Gb/sec)." (NHC's own log spaces the words twice: "ERROR:  nhc:  Health check
# failed:  ..."); the distributed run's "host | ERROR: No results reported" for a node that
# returned nothing
_NHC_FAILED_RE = re.compile(
    r"^(?:(?P<host>[\w.-]+)\s*\|\s*)?ERROR:\s+nhc:\s+Health check failed:\s+"
    r"(?:(?P<check>check_\w+):\s+)?(?P<what>\S.*\S|\S)"
)
_NHC_PASSED_RE = re.compile(
    r"^(?:(?P<host>[\w.-]+)\s*\|\s*)?SUCCESS:\s+nhc:\s+Health check passed:\s+"
    r"(?:(?P<check>check_\w+):\s+)?(?P<what>\S.*\S|\S)"
)
_NHC_NO_RESULT_RE = re.compile(r"^(?P<host>[\w.-]+)\s*\|\s*ERROR: No results reported\s*$")


# IBM Autopilot's health checks (autopilot-daemon/*/entrypoint.py): each prints "[[ CHECK ]]
# SUCCESS", "FAIL" or "ABORT" (its briefings line first); its status answer names the node above
# ("Checking system status of host H (localhost)"), and for PCIe bandwidth the line after "Host
# H" holds each GPU's GB/s in order (gpu-bw/entrypoint.py)
_AUTOPILOT_VERDICT_RE = re.compile(
    r"^\[\[ (?P<check>[A-Z][A-Z0-9 -]*?) \]\] (?P<what>FAIL|ABORT)\b"
)
_AUTOPILOT_HOST_RE = re.compile(r"^Checking system status of host (?P<host>\S+)")
_AUTOPILOT_BW_RE = re.compile(r"^Host\s+\S+\s*$")


def _autopilot_failures(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``nhc_failure`` per node and IBM Autopilot check that failed or aborted, with the
    GPUs whose PCIe bandwidth stands far under the node's others."""
    host: str | None = None
    for index, (no, line, tagged) in enumerate(lines):
        stripped = line.strip()
        if m := _AUTOPILOT_HOST_RE.match(stripped):
            host = m.group("host")
            continue
        if not (m := _AUTOPILOT_VERDICT_RE.match(stripped)):
            continue
        what = f"{m.group('check')} {m.group('what')}"
        if m.group("check") == "PCIEBW":
            for at, (_, after, _) in enumerate(lines[index + 1 : index + 4], index + 1):
                if _AUTOPILOT_BW_RE.match(after.strip()) and at + 1 < len(lines):
                    figures = [float(x) for x in re.findall(r"\d+(?:\.\d+)?", lines[at + 1][1])]
                    if figures:
                        top = max(figures)
                        low = [f"GPU {i} {v:g}" for i, v in enumerate(figures) if v < top / 2]
                        what += f": GB/s per GPU {' '.join(f'{v:g}' for v in figures)}" + (
                            f" ({', '.join(low)} under half of the best {top:g})" if low else ""
                        )
                    break
        report.events.append(
            LogEvent(
                kind="nhc_failure",
                line=no,
                message=stripped[:300],
                rank=tagged,
                host=host,
                code=m.group("check"),
                library="IBM Autopilot",
                exception_type=what[:200],
            )
        )


# Ascend Transformer Boost (ATB, under MindIE's model runners) logging an aclnn operator's failed
# set-up ("[llm] [ERROR] [acl_nn_operation.cpp:143] gmmNode call SetAclNNWorkspaceExecutor fail,
# error:161002": an aclnn status, 161001 ACLNN_ERR_PARAM_NULLPTR and 161002
# ACLNN_ERR_PARAM_INVALID the operator refusing its inputs) and its HCCL runner's failed
# collective ("[all_reduce_hccl_runner.cpp:51] hccl Execute failed, HcclResult:6")
_ATB_ACLNN_RE = re.compile(
    r"\[acl_nn_operation\.cpp:\d+\] (?P<node>\w+) call (?P<call>\w+) fail, error:\s*(?P<code>\d+)"
)
_ATB_HCCL_RE = re.compile(
    r"\[(?P<op>\w+)_hccl_runner\.cpp:\d+\] hccl Execute failed, HcclResult:\s*(?P<code>-?\d+)"
)
# ATB's log line opens with its time and the process id: "[2025-10-29 09:59:13.967655] [55779]"
_ATB_PID_RE = re.compile(r"^\[[\d: .+-]+\]\s*\[(\d+)\]")
ACLNN_STATUS = {
    161001: "ACLNN_ERR_PARAM_NULLPTR (an operator's input was a null pointer)",
    161002: "ACLNN_ERR_PARAM_INVALID (the operator refused its inputs: shape, dtype or format)",
    361001: "ACLNN_ERR_RUNTIME_ERROR",
}
"""aclnn's status codes that an operator's failed call prints (CANN's aclnn status list)."""
ACLNN_MIN_STATUS = 100000
"""aclnn statuses are six digits (161001 ...); the smaller codes ATB logs after one (its own
"error:12" of the op cache) only repeat it."""


# MindIE's model runner when a rank's model failed (MindIE-LLM's FAQ): "[standard_model.py:188] :
# [Model] >>> global rank-2 Execute type:1, Exception:Qwen25VL_VIT_graph nodes[1] infershape
# fail, enable log: ..."
_MINDIE_MODEL_RE = re.compile(
    r"\bglobal rank-(?P<rank>\d+) Execute type:(?P<type>\d+), Exception:\s*(?P<what>.+?)"
    r"(?:,\s*enable log:.*)?\s*$"
)


def _atb_errors(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """ATB's failed aclnn operator set-ups and HCCL runner collectives, once per process,
    operator or collective, and code; MindIE's model runner's failed execution, once per rank."""
    seen: set[tuple[str | None, str, str]] = set()
    for no, line, tagged in lines:
        if "Execute type:" in line and (mm := _MINDIE_MODEL_RE.search(line)):
            key = (mm.group("rank"), "model", mm.group("what"))
            if key not in seen:
                seen.add(key)
                report.events.append(
                    LogEvent(
                        kind="model_error",
                        line=no,
                        message=line[mm.start() :].strip()[:300],
                        rank=int(mm.group("rank")),
                        library="MindIE",
                        exception_type=re.sub(r"\s+", " ", mm.group("what"))[:200],
                    )
                )
            continue
        if "acl_nn_operation" not in line and "hccl Execute failed" not in line:
            continue
        pid = m.group(1) if (m := _ATB_PID_RE.match(line)) else None
        if (
            "acl_nn_operation" in line
            and (a := _ATB_ACLNN_RE.search(line))
            and int(a.group("code")) >= ACLNN_MIN_STATUS  # (ATB's own small codes follow it)
        ):
            key = (pid, a.group("node"), a.group("code"))
            if key in seen:
                continue
            seen.add(key)
            code = int(a.group("code"))
            report.events.append(
                LogEvent(
                    kind="npu_runtime_error",
                    line=no,
                    message=line[a.start() :].strip()[:300],
                    rank=tagged,
                    pid=int(pid) if pid else None,
                    code=str(code),
                    code_name=ACLNN_STATUS.get(code, "an aclnn status"),
                    call=f"{a.group('node')} {a.group('call')}",
                    library="ATB",
                )
            )
        elif "hccl Execute failed" in line and (h := _ATB_HCCL_RE.search(line)):
            key = (pid, h.group("op"), h.group("code"))
            if key in seen:
                continue
            seen.add(key)
            result = int(h.group("code"))
            name, meaning = decode_result(result)
            report.events.append(
                LogEvent(
                    kind="hccl_call_failure",
                    line=no,
                    message=f"ATB's {h.group('op')} HCCL runner: {result} = {name} ({meaning})",
                    rank=tagged,
                    pid=int(pid) if pid else None,
                    code=str(result),
                    code_name=name,
                    call=f"{h.group('op')} (ATB's HCCL runner)",
                    op=h.group("op"),
                    library="HCCL",
                )
            )


# MindSpore's dynamic cluster (msrun or its scheduler): a worker the scheduler had no reassigned
# rank for after the cluster built ("[WARNING] DISTRIBUTED(22503,...):... [.../cluster/
# cluster_context.cc:268] PostProcess] This node could be redundant and is not successfully
# registered."): cluster_context.cc PostProcess asks the scheduler for the node's reassigned rank
# (when MS_NODE_ID is not a number, or a rank table is set) and warns when it finds none, then
# goes on with the rank it has and logs it ("This node <id> rank id: <n>")
MINDSPORE_UNREGISTERED_RE = re.compile(
    r"\] PostProcess\] This node could be redundant and is not successfully registered"
)
_MS_LOG_PID_RE = re.compile(r"\b[A-Z_]+\((?P<pid>\d+),")
_MS_NODE_RANK_RE = re.compile(r"This node (?P<node>\S+) rank id: (?P<rank>\d+)")


def _mindspore_unregistered(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``mindspore_unregistered`` per process MindSpore's scheduler gave no rank."""
    seen: set[int | None] = set()
    for index, (no, line, tagged) in enumerate(lines):
        if "not successfully registered" not in line or not MINDSPORE_UNREGISTERED_RE.search(line):
            continue
        pid_m = _MS_LOG_PID_RE.search(line)
        pid = int(pid_m.group("pid")) if pid_m else None
        if pid in seen:
            continue
        seen.add(pid)
        kept = next(
            (
                r
                for _, after, _ in lines[index + 1 : index + 4]
                if (r := _MS_NODE_RANK_RE.search(after))
            ),
            None,
        )
        report.events.append(
            LogEvent(
                kind="mindspore_unregistered",
                line=no,
                message=line.strip()[:300],
                rank=int(kept.group("rank")) if kept else tagged,
                pid=pid,
                library="MindSpore",
                exception_type="MindSpore's scheduler had no reassigned rank for this node"
                + (
                    f" ({kept.group('node')} goes on with rank {kept.group('rank')})"
                    if kept
                    else " (it goes on with the rank it has)"
                )
                + ": more processes than MS_WORKER_NUM, or a node the scheduler did not register, "
                "may leave two processes on one rank",
            )
        )


def _nhc_failures(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``nhc_failure`` per node and failed health check (or node that reported nothing);
    the checks NHC passed, said in a note."""
    if any("]] FAIL" in t or "]] ABORT" in t for _, t, _ in lines):
        _autopilot_failures(lines, report)
    passed = [
        (no, m) for no, t, _ in lines if "SUCCESS:" in t and (m := _NHC_PASSED_RE.match(t.strip()))
    ]
    if passed:
        checks: dict[str, int] = {}
        for _, m in passed:
            checks[m.group("check") or "a check"] = checks.get(m.group("check") or "a check", 0) + 1
        report.unread.append(
            ParseWarning(
                line=passed[0][0],
                message="NHC health checks passed: "
                + ", ".join(f"{c}" + (f" x{n}" if n > 1 else "") for c, n in checks.items())
                + f" (first: {passed[0][1].group('what')[:160]})",
                skipped=False,
            )
        )
    seen: set[tuple[str | None, str]] = set()
    for index, (no, line, tagged) in enumerate(lines):
        if "ERROR:" not in line:
            continue
        stripped = line.strip()
        if m := _NHC_FAILED_RE.match(stripped):
            check = m.group("check") or ""
            what = f"{check}: {m.group('what')}" if check else m.group("what")
            # a check's message over several lines (check_nvlink_status lists each inactive
            # link on an indented line of its own under the first): one failure, all its lines
            more: list[str] = []
            for _, after, _ in lines[index + 1 : index + 33]:
                if not after[:1].isspace() or not after.strip() or "ERROR:" in after:
                    break
                more.append(after.strip())
            if more:
                what = f"{what}, {', '.join(more)}"
                stripped = f"{stripped}, {', '.join(more)}"
        elif m := _NHC_NO_RESULT_RE.match(stripped):
            check, what = "", "no result reported (the node's health check never answered)"
        else:
            continue
        key = (m.group("host"), what[:120])
        if key in seen:
            continue
        seen.add(key)
        report.events.append(
            LogEvent(
                kind="nhc_failure",
                line=no,
                message=stripped[:300],
                rank=tagged,
                host=m.group("host"),
                code=check or None,
                library="NHC",
                exception_type=what[:200],
            )
        )


def _dcmi_errors(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``npu_dcmi_error`` per DCMI return code and place (npu-smi's failed start, a device
    plugin's failed DCMI call), counting repeats."""
    seen: dict[tuple[str, str], LogEvent] = {}
    counts: dict[tuple[str, str], int] = {}
    for no, line, tagged in lines:
        if "dcmi" not in line.lower():
            continue
        m = _DCMI_INIT_RE.search(line)
        what = "npu-smi could not start DCMI" if m else ""
        if m is None and (m := _DCMI_RET_RE.search(line)) is not None:
            what = f"a DCMI call failed: {m.group('what')}"
        if m is None:
            continue
        code = int(m.group("code"))
        key = (what, m.group("code"))
        counts[key] = counts.get(key, 0) + 1
        if key in seen:
            continue
        name, meaning = DCMI_CODES.get(code, ("unknown DCMI code", "not in DCMI's code table"))
        init = what.startswith("npu-smi could not start")
        if init and code == -8005:
            # the Ascend case library (case_9289, as a vllm-ascend maintainer cites it for
            # "dcmi module initialize failed. ret is -8005" in a container): most often a device
            # another container already holds
            meaning += ": at start, most often a device another container already holds"
        seen[key] = LogEvent(
            kind="npu_dcmi_error",
            line=no,
            message=line.strip()[:300],
            rank=tagged,
            code=str(code),
            code_name=name,
            library="DCMI",
            call="dcmi_init" if init else None,
            exception_type=f"{what}: {code} {name} ({meaning})"[:240],
        )
        report.events.append(seen[key])
    for key, ev in seen.items():
        if counts[key] > 1:
            ev.exception_type = f"{ev.exception_type} ({counts[key]} reports)"
    _dcmi_log_chains(lines, report)


def _dcmi_log_chains(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``npu_dcmi_error`` per run of DCMI's own log lines that say an error, one under
    another in one process: the outermost call that failed (the last line) with its code, and
    the first error, its cause, with the errno it names."""
    chains: list[list[tuple[int, re.Match[str]]]] = []
    last = 0
    for no, line, _ in lines:
        if "][dcmi" not in line:
            continue
        m = _DCMI_LOG_RE.match(line)
        if m is None or not _DCMI_LOG_FAILED_RE.search(m.group("said")):
            continue
        if chains and no == last + 1 and chains[-1][-1][1].group("pid") == m.group("pid"):
            chains[-1].append((no, m))
        else:
            chains.append([(no, m)])
        last = no
    for chain in chains:
        codes = [
            c.group("code") for _, m in chain if (c := _DCMI_LOG_CODE_RE.search(m.group("said")))
        ]
        first_no, first = chain[0]
        last_no, outer = chain[-1]
        func = outer.group("func")
        what = f"DCMI's vNPU creation ({func})" if "create_vdevice" in func else f"DCMI's {func}"
        said = f"{what} failed"
        code_name = None
        if codes:
            code = int(codes[-1])
            code_name, meaning = DCMI_CODES.get(
                code, ("unknown DCMI code", "not in DCMI's code table")
            )
            said += f": {code} {code_name} ({meaning})"
        if len(chain) > 1:
            cause = first.group("said").strip()
            number = _DCMI_LOG_ERRNO_RE.search(cause)
            named = ""
            if number and int(number.group("errno")) in errno.errorcode:
                value = int(number.group("errno"))
                named = f" (errno {value} = {errno.errorcode[value]}, {os.strerror(value)})"
            said += (
                f"; its first error, line {first_no}, in {first.group('func')}: {cause[:120]}"
                f"{named} (lines {first_no}-{last_no}, {len(chain)} DCMI log line(s))"
            )
        report.events.append(
            LogEvent(
                kind="npu_dcmi_error",
                line=first_no,
                message=first.string.strip()[:300],
                code=codes[-1] if codes else None,
                code_name=code_name,
                library="DCMI",
                call=func,
                exception_type=said[:300],
            )
        )


def _ascend_tool_failures(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``ascend_tool_failure`` per reason the tool gave (the line above its "execute
    failed!", or none), counting its repeats (a loop over devices prints one a device); one per
    tool the shell did not find."""
    by_reason: dict[str, LogEvent] = {}
    counts: dict[str, int] = {}
    missing: set[str] = set()
    for no, line, tagged in lines:
        if "not found" in line and (nf := _TOOL_NOT_FOUND_RE.match(line)):
            tool = nf.group("tool") or nf.group("tool2")
            if tool in missing:
                continue
            missing.add(tool)
            report.events.append(
                LogEvent(
                    kind="ascend_tool_failure",
                    line=no,
                    message=line.strip()[:300],
                    rank=tagged,
                    library="Ascend driver tool",
                    exception_type=f"{tool} was not found: the shell has no such "
                    "command (the driver's tools are not installed, or not on PATH)",
                )
            )
    for index, (no, line, tagged) in enumerate(lines):
        if "execute failed!" not in line or not _TOOL_FAILED_RE.match(line):
            continue
        above = lines[index - 1][1].strip() if index > 0 else ""
        # the line above is its reason only when it is the tool's own words: not the library's
        # banner, another failure, a command line (a prompt, `set -x`'s "+ ") or nothing
        told = not (
            not above
            or _TOOL_BANNER_RE.match(above)
            or _TOOL_FAILED_RE.match(above)
            or above.startswith(("+ ", "$ ", "# ", ">"))
            or re.search(r"\b(?:hccn_tool|npu-smi)\s+-", above)
            # another program's print of a variable ("device_num_list: [0, 1, ...]", as
            # MindFormers' hccl_tools.py prints before it runs the tool)
            or _VARIABLE_PRINT_RE.match(above)
        )
        reason = above if told else ""
        counts[reason] = counts.get(reason, 0) + 1
        if reason not in by_reason:
            by_reason[reason] = LogEvent(
                kind="ascend_tool_failure",
                line=no - 1 if reason else no,
                message=f"{reason} / {line.strip()}" if reason else line.strip(),
                rank=tagged,
                library="Ascend driver tool",
            )
            report.events.append(by_reason[reason])
    for reason, ev in by_reason.items():
        said = reason or "no reason given"
        ev.exception_type = f"{counts[reason]} command(s) failed: {said}"
    _tool_exit_statuses(lines, report)


# A program that ran an Ascend tool and quoted its failure the way Go's os/exec words it (a device
# plugin: "enable node device-share: npu-smi set device-share -i 6 -c 0 -d 1: exit status 203"),
# the tool's own answer below it ("Status : Fail")
_TOOL_EXIT_RE = re.compile(
    r"(?P<cmd>\b(?:npu-smi|hccn_tool)\s[^:\n]{0,300}?):[ \t]*exit status (?P<code>\d+)\b"
)
_TOOL_STATUS_FAIL_RE = re.compile(r"^\s*Status\s*:\s*Fail(?:ed)?\s*$")
TOOL_ANSWER_LINES = 8
"""How far below a tool's failed exit its own "Status : Fail" answer is looked for."""


def _tool_exit_statuses(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``ascend_tool_failure`` per Ascend tool command another program said exited non-zero."""
    seen: set[str] = set()
    for index, (no, line, tagged) in enumerate(lines):
        if "exit status" not in line or not (m := _TOOL_EXIT_RE.search(line)):
            continue
        command = m.group("cmd").strip()
        if command in seen:
            continue
        seen.add(command)
        below = lines[index + 1 : index + 1 + TOOL_ANSWER_LINES]
        answered = any(_TOOL_STATUS_FAIL_RE.match(t) for _, t, _ in below)
        report.events.append(
            LogEvent(
                kind="ascend_tool_failure",
                line=no,
                message=line.strip()[:300],
                rank=tagged,
                library="Ascend driver tool",
                exception_type=f"{command} exited with status {m.group('code')}"
                + (" (its answer: Status Fail)" if answered else "")
                + (
                    f"; {line[: m.start()].strip().rstrip(':')}"
                    if line[: m.start()].strip()
                    else ""
                ),
            )
        )


# NVSHMEM (DeepEP's and others' GPU-initiated transport) reports each failure with its source
# place and, up the stack, its status: "/sgl-workspace/nvshmem/src/host/init/init.cu:998: non-zero
# status: 7 building transport map failed", "... nvshmemi_check_state_and_init:1080: nvshmem
# initialization failed, exiting", "transport.cpp:nvshmemi_transport_init:287: Unable to
# initialize any transports.", "WARN: init failed for remote transport: ibrc", its bootstrap's
# "socketProgressOpt: Call to recv from 10.179.114.196<38229> failed : Broken pipe".
_NVSHMEM_RE = re.compile(
    r"(?P<src>nvshmem\S*?/(?P<file>\w+\.(?:cpp|cu|h)):(?:(?P<fn>\w+):)?(?P<ln>\d+)): "
    r"(?P<what>.+?)\s*$"
)
_NVSHMEM_TRANSPORT_RE = re.compile(r"^WARN: init failed for remote transport: (?P<t>\w+)")
_NVSHMEM_PEER_RE = re.compile(
    r"Call to \w+ from (?P<ip>[\d.]+)<(?P<port>\d+)> failed : (?P<why>.+?)\s*$"
)


def _nvshmem_errors(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    """One ``nvshmem_error`` a log (its failures are one chain): its first line, with what it
    finally says failed ("nvshmem initialization failed", "Unable to initialize any transports")
    and the peer its bootstrap lost, if it names one."""
    first: LogEvent | None = None
    verdict = ""
    peer: re.Match[str] | None = None
    transports: list[str] = []
    for no, line, tagged in lines:
        if "nvshmem" not in line.lower() and not line.startswith("WARN: init failed"):
            continue
        m = _NVSHMEM_RE.search(line)
        t = _NVSHMEM_TRANSPORT_RE.match(line.strip())
        if m is None and t is None:
            continue
        if t is not None and t.group("t") not in transports:
            transports.append(t.group("t"))
        what = m.group("what") if m else ""
        if first is None:
            first = LogEvent(
                kind="nvshmem_error",
                line=no,
                message=line.strip()[:300],
                rank=tagged,
                library="NVSHMEM",
            )
        if m is not None and re.search(r"failed|Unable to", what) and "non-zero status" not in what:
            verdict = what  # the last, outermost words of the chain
        elif m is not None and (
            tail := re.search(r"non-zero status: -?\d+ (?P<w>.*\bfailed\b.*)", what)
        ):
            verdict = verdict or tail.group("w")
        peer = peer or _NVSHMEM_PEER_RE.search(line)
    if first is None:
        return
    said = verdict or (
        f"init failed for remote transport(s) {', '.join(transports)}" if transports else ""
    )
    if peer is not None:
        first.remote_ip, first.port = peer.group("ip"), int(peer.group("port"))
        said += f" (its bootstrap's connection to {peer.group('ip')}: {peer.group('why')})"
    first.exception_type = said.strip()[:200] or None
    report.events.append(first)


def _summary_entry_starts(lines: list[tuple[int, str, int | None]], index: int) -> bool:
    """An elastic summary entry's "[N]:" line or one of its "key : value" fields, followed by
    another field: not a heading, but the summary is there."""
    s = lines[index][1].strip()
    if not (re.match(r"^\[\d+\]:$", s) or _failure_field(lines[index][1])):
        return False
    return index + 1 < len(lines) and bool(_failure_field(lines[index + 1][1]))


# the interpreter's own refusal of a script it cannot open, before any Python runs (exit code 2):
# "/env/bin/python: can't open file 'train.py': [Errno 2] No such file or directory"
_CANT_OPEN_SCRIPT_RE = re.compile(r"python[\d.]*: can't open file '[^'\n]+': \[Errno \d+\] [^\n]+")
AGENT_CAUSE_LINES = 40
"""How far above torchrun's "failed (exitcode: ..)" line the worker's exception is looked for."""


_COLLECTOR_STAMP_RE = re.compile(rf"^{COLLECTOR_STAMP} ")
"""A log collector's time stamp before each line it kept ("2026-09-17 13:40:05 ...")."""


def _unstamped(lines: list[tuple[int, str, int | None]]) -> list[tuple[int, str, int | None]]:
    """``lines`` without the time stamp a collector put before every one of them (most of the
    non-blank lines carry it): torch elastic's summary laid out as printed."""
    texts = [line for _, line, _ in lines if line.strip()]
    stamped = sum(1 for line in texts if _COLLECTOR_STAMP_RE.match(line))
    if not texts or stamped * 10 < len(texts) * 9:
        return lines
    return [(no, _COLLECTOR_STAMP_RE.sub("", line, count=1), tag) for no, line, tag in lines]


# a summary entry a log viewer flattened into one line (its fields in ChildFailedError's order:
# time, host, rank, exitcode, error_file, traceback), behind the viewer's own columns
_FLAT_ENTRY_RE = re.compile(
    r"\[\d+\]:\s+time\s*:\s*(?P<time>\S+)\s+host\s*:\s*(?P<host>\S+)\s+rank\s*:\s*(?P<rank>-?\d+)"
    r"(?:\s+\(local_rank:\s*(?P<lr>\d+)\))?\s+exitcode\s*:\s*(?P<code>-?\d+)"
    r"(?:\s+\(pid:\s*(?P<pid>\d+)\))?(?:\s+error_file\s*:\s*\S+)?(?:\s+traceback\s*:\s*(?P<tb>.*))?$"
)  # (its traceback taken whole and stripped after: a lazy group before \s*$ retried every space)


_ENTRY_KEYS = frozenset({"time", "host"})
"""ChildFailedError's entry keys a flattened page may print alone, their values on later lines."""
_GLUED_ENTRY_RE = re.compile(
    r"^rank:?\s*(?P<rank>\d+) \(local[ _]rank: (?P<lr>\d+)\)\s*exitcode:\s*(?P<code>-?\d+)"
    r"(?: \(pid: (?P<pid>\d+)\))?"
)


def _elastic(lines: list[tuple[int, str, int | None]], report: LogReport) -> None:
    lines = _unstamped(lines)
    bare_keys: list[str] = []  # an entry's keys printed alone, their values on the lines after
    under_root = False  # below the summary's "Root Cause" heading, its entry not yet read
    for no, line, _ in lines:
        if "exitcode" in line and (flat := _FLAT_ENTRY_RE.search(line)):
            # the heading flattened onto the entry's line ("Root Cause (first observed
            # failure): [0]: time : ..."), or on a line of its own above it
            before = line[: flat.start()]
            root = "Root Cause" in before or ("Failures" not in before and under_root)
            under_root = False
            report.events.append(
                LogEvent(
                    kind="elastic_failure",
                    line=no,
                    message=(flat.group("tb") or "").strip()[:300],
                    root_cause=root,
                    host=flat.group("host"),
                    rank=int(flat.group("rank")),
                    local_rank=int(flat.group("lr")) if flat.group("lr") else None,
                    exit_code=int(flat.group("code")),
                    pid=int(flat.group("pid")) if flat.group("pid") else None,
                    time_s=timestamp_s(flat.group("time")),
                )
            )
        elif "Root Cause" in line:
            under_root = True
        elif "Failures:" in line:
            under_root = False
    in_summary = False
    root = False
    root_heading = 0  # line of a "Root Cause" heading no entry has followed yet
    current: LogEvent | None = None
    agent: list[LogEvent] = []  # the agent's own line: kept where no summary entry has its pid
    no_error_file: LogEvent | None = None  # the record wrapper's line: kept where nothing else is
    failed_script: tuple[int, str] | None = None  # the summary's "train.py FAILED" heading
    # pid → the exception printed above the agent's line for it: the summary's entry of that pid
    # (its traceback only "To enable traceback see ...") takes it
    raised_above: dict[int, tuple[str, int | None]] = {}
    for index, (no, line, _) in enumerate(lines):
        if "exitcode" in line and _FLAT_ENTRY_RE.search(line):
            continue  # read above, whole
        if (
            no_error_file is None
            and "with no error file" in line
            and (nf := _NO_ERROR_FILE_RE.search(line))
            and (nf.group("lr") or nf.group("lr2"))
        ):
            no_error_file = LogEvent(
                kind="elastic_failure",
                line=no,
                message=line.strip()[:300],
                root_cause=True,
                local_rank=int(nf.group("lr") or nf.group("lr2")),
            )
            continue
        if "exitcode" in line and (a := _AGENT_FAILED_RE.search(line)):
            message = line.strip()
            if not agent:
                # the worker's own error is printed above the agent's verdict: name the last one,
                # a rank's own ("[rank0]: torch.OutOfMemoryError ...") before one no rank tagged
                # where the ranks tag their lines (an untagged one is then another process's: a
                # helper pool's error after the rank's own had shut it down)
                raised_list = [
                    (before_no, raised.group(0).strip(), before_tag)
                    for before_no, before, before_tag in lines[
                        max(0, index - AGENT_CAUSE_LINES) : index
                    ]
                    if (raised := _PY_EXCEPTION_RE.match(before))
                ]
                by_rank = [r for r in raised_list if r[2] is not None]
                if raised_list:
                    before_no, raised_text, before_tag = (by_rank or raised_list)[-1]
                    said = f"(line {before_no}): {raised_text}"
                    message += f" / last exception above it {said}"
                    raised_above[int(a.group("pid") or a.group("pid2"))] = (
                        f"the last exception before the agent saw it fail {said}",
                        before_tag,
                    )
            agent.append(
                LogEvent(
                    kind="elastic_failure",
                    line=no,
                    message=message[:400],
                    root_cause=True,
                    local_rank=int(a.group("lr") or a.group("lr2")),
                    exit_code=int(a.group("code")),
                    pid=int(a.group("pid") or a.group("pid2")),
                )
            )
            continue
        s = line.strip()
        if in_summary and failed_script is None and re.match(r"^\S+ FAILED$", s):
            failed_script = (no, s)
        if (
            "ChildFailedError" in s
            or (s.endswith(" FAILED") and re.match(r"^\S+ FAILED$", s))
            or s.startswith("Failures:")
            # a copy that keeps only the root cause starts at its heading
            or s.startswith("Root Cause (first observed failure)")
        ):
            in_summary = True
        elif not in_summary and _summary_entry_starts(lines, index):
            # a copy that starts inside the summary, at an entry or among its fields
            in_summary = True
            if not re.match(r"^\[\d+\]:$", s):
                current = LogEvent(kind="elastic_failure", line=no, message="", root_cause=False)
                report.events.append(current)
        if not in_summary:
            continue
        if s.startswith("Root Cause"):
            root = True
            root_heading = no
            continue
        if s.startswith("Failures:"):
            root = False
            continue
        if re.match(r"^\[\d+\]:$", s):
            bare_keys.clear()
            root_heading = 0 if root else root_heading
            current = LogEvent(kind="elastic_failure", line=no, message="", root_cause=root)
            report.events.append(current)
            continue
        if current is not None and s in _ENTRY_KEYS:
            bare_keys.append(s)  # a key whose value a flattened page put on a later line
            continue
        if current is not None and (g := _GLUED_ENTRY_RE.search(s)):
            # "rank2 (local rank: 2)exitcode: -9 (pid: 36071)error file: <N/A>": the fields run
            # together where a page dropped their line breaks and padding
            current.rank, current.local_rank = int(g.group("rank")), int(g.group("lr"))
            current.exit_code = int(g.group("code"))
            current.pid = int(g.group("pid")) if g.group("pid") else None
            bare_keys.clear()
            continue
        m = _failure_field(line)
        if current is not None and m is None and bare_keys and s:
            key = bare_keys.pop(0)
            if key == "host":
                current.host = s.split()[0]
            elif key == "time":
                current.time_s = timestamp_s(s)
            continue
        if m is not None and (current is None or root_heading):
            # an entry whose "[0]:" line the copy lost (a page that flattened the summary)
            root_heading = 0 if root else root_heading
            current = LogEvent(kind="elastic_failure", line=no, message="", root_cause=root)
            report.events.append(current)
        if current is None or m is None:
            continue
        key, value = m.group(1), m.group(2).strip()
        if key == "host":
            current.host = value
        elif key == "time":
            current.time_s = timestamp_s(value)
        elif key == "rank" and (r := re.match(r"(-?\d+)(?: \(local_rank: (\d+)\))?", value)):
            current.rank = int(r.group(1))
            current.local_rank = int(r.group(2)) if r.group(2) else None
        elif key == "exitcode" and (x := re.match(r"(-?\d+)(?: \(pid: (\d+)\))?", value)):
            current.exit_code = int(x.group(1))
            current.pid = int(x.group(2)) if x.group(2) else None
        elif key == "traceback":
            current.message = value[:300]
    # The root cause is repeated under "Failures:" in some torch versions: keep one per rank.
    seen: dict[tuple[int | None, str | None, int | None], LogEvent] = {}
    repeated: set[int] = set()
    for ev in report.events:
        if ev.kind != "elastic_failure":
            continue
        k = (ev.rank, ev.host, ev.pid)
        if k in seen:
            seen[k].root_cause = seen[k].root_cause or ev.root_cause
            repeated.add(id(ev))
        else:
            seen[k] = ev
    if repeated:  # one pass, not list.remove per repeat (quadratic on long summaries)
        report.events[:] = [e for e in report.events if id(e) not in repeated]
    for ev in seen.values():
        if ev.rank is None and ev.host is None and ev.exit_code is None:
            report.unread.append(
                ParseWarning(
                    line=ev.line,
                    message="torch elastic summary entry cut before its rank, host and exit code",
                )
            )
        elif ev.exit_code is None:
            # torch prints every entry with its exitcode line (ChildFailedError._format_failure)
            report.unread.append(
                ParseWarning(
                    line=ev.line,
                    message=f"torch elastic summary entry (rank {ev.rank}) cut before its exit code",
                )
            )
    if root_heading:
        report.unread.append(
            ParseWarning(
                line=root_heading,
                message="torch elastic summary cut at its Root Cause heading: "
                "the first observed failure is not named",
            )
        )
    pids = {pid for _, _, pid in seen}
    # each rank's own exception line in its tagged traceback ("[rank12]: torch.AcceleratorError:
    # CUDA error: invalid device ordinal"): the first each rank printed
    own: dict[int, tuple[int, str]] = {}
    if any(ev.rank is not None for ev in seen.values()):
        for no, line, tagged in lines:
            if (
                tagged is not None
                and tagged not in own
                and (raised := _PY_EXCEPTION_RE.match(line))
            ):
                own[tagged] = (no, raised.group(0).strip())
    for ev in seen.values():
        cause, cause_by = raised_above.get(ev.pid, ("", None)) if ev.pid is not None else ("", None)
        if (
            cause_by not in (None, ev.rank, ev.local_rank)
            and ev.rank is not None
            and ev.rank in own
        ) or (not cause and ev.rank is not None and ev.rank in own):
            # (the last exception above the agent's line is another rank's: this rank's own)
            at, said = own[ev.rank]
            cause, cause_by = f"its own exception (line {at}): {said}", ev.rank
        elif (
            not cause
            and "enable traceback" in ev.message
            and (
                opened := next(
                    ((no, c) for no, t, _ in lines if (c := _CANT_OPEN_SCRIPT_RE.search(t))), None
                )
            )
        ):
            # the interpreter could not open the worker's script (exit code 2): no traceback
            at, c = opened
            cause = f"python could not open its script (line {at}): {c.group(0).strip()}"
        # only an exception the entry's own rank printed (or an untagged line): another rank's
        # tagged exception above the agent's line is that rank's, often what followed the failure
        if cause and cause_by in (None, ev.rank, ev.local_rank) and "Traceback" not in ev.message:
            ev.message = (
                f"{ev.message + ' / ' if ev.message and 'enable traceback' not in ev.message else ''}"
                f"{cause}"
            )[:400]
    report.events.extend(ev for ev in agent if ev.pid not in pids)
    if not seen and not agent and no_error_file is not None:
        report.events.append(no_error_file)
    elif not seen and not agent and failed_script is not None:
        # ChildFailedError's heading ("utils/train.py FAILED") with no entry under it: the copy
        # ends before the Root Cause that names the rank and its exit code
        heading_no, heading = failed_script
        report.events.append(
            LogEvent(kind="elastic_failure", line=heading_no, message=heading, root_cause=True)
        )
        report.unread.append(
            ParseWarning(
                line=heading_no,
                message="torch elastic summary without its Root Cause entry: the rank that "
                "failed first and its exit code are not in the copy",
            )
        )


# torch elastic's record wrapper (torch/distributed/elastic/multiprocessing/errors/__init__.py),
# when the first failure left no error file: "local_rank %s FAILED with no error file. Decorate
# your entrypoint fn with @record ..." with the rank of ChildFailedError.get_first_failure()
# (some torch versions log the unformatted tuple: "('local_rank %s FAILED ...', 0)"). A log cut
# before the ChildFailedError summary keeps only this line of the verdict.
_NO_ERROR_FILE_RE = re.compile(
    r"local_rank (?:(?P<lr>\d+)|%s) FAILED with no error file\.(?:.*?', (?P<lr2>\d+)\))?"
)
