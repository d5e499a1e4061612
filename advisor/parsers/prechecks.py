"""What ops teams run and save before a job starts, read so an import says what each shows:

- DeepSpeed's ``ds_report``: its op report ("op name ... installed .. compatible", one row an op:
  ``cpu_adam ............... [NO] ....... [OKAY]``, and ``ninja .... [OKAY]``) and its general
  environment (``torch version ....... 2.3.0+cu121``, ``nvcc version``, ``shared memory
  (/dev/shm) size``);
- ``horovodrun --check-build``: the frameworks, controllers and tensor operations Horovod was
  built with (``[X] PyTorch``, ``[ ] NCCL``): one without any framework or controller cannot run a
  job;
- ``horovodrun --verbose``'s checks before the job: ``SSH was successful into all the remote
  hosts.``, ``Common interface found: eno1``;
- ``accelerate env``: its ``- PyTorch version (GPU?): 1.12.1 (True)`` lines;
- verl's ``scripts/diagnose.py``: its ``----------verl Info-----------`` block and the versions
  around it (``torch        : 2.10.0+cpu``, on Ascend ``CANN:9.0.1`` / ``HDK:25.5.0``), and
  a library's "can not use command: npu-smi info" printed into it while verl was imported: no
  NPU's state can be read from where it ran;
- ``ray status``: its node status (``Healthy:``, ``Pending:``, ``Recent failures:`` with a node's
  address and type each);
- ``kubectl get pytorchjobs`` (and the training operator's other job kinds): a job whose STATE is
  empty has not been acted on by any controller;
- JAX's distributed start (``jax.distributed.initialize``): ``Connected to distributed JAX
  controller`` and ``Distributed task shutdown result: OK``.

Kubernetes' scheduling failures (kube-scheduler's ``FailedScheduling`` events, a training
operator's and Volcano's ``Unschedulable``) are a job that cannot start: read as failures
(``pod_unschedulable``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from advisor.parsers import ParseError, ParseWarning

# rows of kubectl get pods copied without their header: a pod's name, READY, a status kubectl
# prints, RESTARTS and AGE
_POD_STATUSES = (
    "Running|Pending|Completed|Succeeded|Failed|Error|CrashLoopBackOff|ContainerCreating|"
    "PodInitializing|Terminating|ImagePullBackOff|ErrImagePull|OOMKilled|Evicted|Unknown|"
    r"CreateContainerConfigError|ContainerStatusUnknown|Init:[\w/]+|Init:CrashLoopBackOff|"
    r"UnexpectedAdmissionError|OutOf[\w./-]+|CreateContainerError|RunContainerError|StartError|"
    r"InvalidImageName|ErrImageNeverPull|NodeAffinity"
)
_HEADLESS_POD_ROW = (
    # (the name's hyphens each split it once: "[\w.-]+-[\w.-]+" would try every split, O(n^2))
    rf"[ \t]*(?:[\w.-]+[ \t]+)?[\w.]+(?:-[\w.]*)+[ \t]+\d+/\d+[ \t]+(?:{_POD_STATUSES})[ \t]+\d+"
    r"(?:[ \t]+\([^)\n]*\))?"
    r"[ \t]+\d+[smhd]\S*(?:[ \t]+\S+){0,6}[ \t]*"
)

SIGNATURE = (
    r"^-*[ \t]*DeepSpeed C\+\+/CUDA extension op report"
    r"|^DeepSpeed general environment info:"
    r"|^[ \t]*op name \.+ installed \.+ compatible"
    r"|^Horovod v[\d.]+:[ \t]*\r?\n(?:[ \t]*\r?\n)?[ \t]*Available Frameworks:"
    r"|^[ \t]*Available (?:Frameworks|Controllers|Tensor Operations):[ \t]*\r?\n[ \t]+\[[ X]\] "
    r"|^SSH was successful into all the remote hosts\.|^Common interface found: \S+"
    r"|^- `Accelerate` version: \S+"
    r"|^[ \t>]*-{5,}verl Info-{5,}[ \t]*$"
    # LLaMA-Factory's environment report (llamafactory-cli env), the same layout
    r"|^- `llamafactory` version: \S+"
    r"|^=+ Autoscaler status: [^\n]*=+\s*$"
    r"|^[ \t]*NAME[ \t]+STATE[ \t]+AGE[ \t]*\n[ \t]*\S+[ \t]+(?:\S+[ \t]+)?\d+[smhd]"
    r"|^[ \t]*Warning[ \t]+(?:Unschedulable|FailedScheduling)[ \t]+\S+"
    r"|\b\d+/\d+ tasks in gang unschedulable: "
    r"|\bConnected to distributed JAX controller\b"
    r"|\blevanter\.distributed:Initialized jax\.distributed with \d+ devices, \d+ (?:hosts|processes)\b"
    r"|^[ \t]*(?:NAMESPACE[ \t]+)?NAME[ \t]+READY[ \t]+STATUS[ \t]+RESTARTS[ \t]+AGE(?:[ \t]+[A-Z]+)*[ \t]*$"
    r"|^[ \t]*(?:NAMESPACE[ \t]+)?NAME[ \t]+DESIRED[ \t]+CURRENT[ \t]+READY[ \t]+UP-TO-DATE[ \t]"
    # (rows of it without their header: two at least)
    rf"|^{_HEADLESS_POD_ROW}\n{_HEADLESS_POD_ROW}$"
    r"|^Collecting environment information\.\.\.[ \t]*\n(?:[^\n]*\n){0,3}PyTorch version: \S+"
    r"|\bsalloc: Prolog failure on node \S+|\b(?:salloc|srun|sbatch): error: Node failure on \S+"
    r"|\bSTEPD TERMINATED ON \S+ AT \S+ DUE TO JOB NOT ENDING WITH SIGNALS"
    r"|^[ \t]*State=\S*DRAIN\S*[^\n]*\n(?:[^\n]*\n){0,20}?[ \t]*Reason=\S"
    # scontrol show node's block; sinfo's tables (a node or partition state, -R's reasons)
    r"|^[ \t]*NodeName=\S+[^\n]*\n(?:[^\n]*\n){0,15}?[ \t]*State=[A-Z]"
    r"|^[ \t]*(?:PARTITION|NODELIST|HOSTNAMES)(?:[ \t]+[A-Z_:()/]+)*?[ \t]+STATE\b[^\n]*\n"
    r"[ \t]*\S+[ \t]+\S"
    r"|^[ \t]*REASON[ \t]+(?:[A-Z_]+[ \t]+)*?(?:NODELIST|HOSTNAMES)[ \t]*\n[ \t]*\S"
    # scontrol show job's state line; squeue's table (its header, or rows of a long state
    # with a pending reason)
    r"|^[ \t]*JobState=[A-Z_]+ Reason=\S+"
    r"|\b(?:srun|sbatch|salloc): error: (?:Unable to allocate resources|Batch job submission "
    r"failed): "
    # Kueue's admission events
    r"|^[ \t]*Warning[ \t]+Pending[ \t]+\S+(?: \(x\d+ over \S+\))?[ \t]+kueue-admission[ \t]+\S"
    r"|^[ \t]*JOBID[ \t]+PARTITION[ \t]+NAME[ \t]+USER[ \t]+(?:ST|STATE)[ \t]+TIME[ \t]"
    r"|^[ \t]*\d+(?:_\d+)?[ \t]+\S+[ \t]+[^\n]*?[ \t](?:PENDING|RUNNING|COMPLETING|COMPLETI)[ \t]+"
    r"(?:\d+-)?\d+:\d\d(?::\d\d)?[ \t]+(?:\S+[ \t]+)?\d+[ \t]+\([^()\n]*\)[ \t]*$"
)
_DOTTED_ROW_RE = re.compile(r"^(?P<key>[^.\n]{1,60}?[^.\s])[ \t]*\.{2,}[ \t]*(?P<value>\S.*?)\s*$")
_OP_ROW_RE = re.compile(
    r"^(?P<op>\w+)\s*\.+\s*\[(?P<installed>[A-Z ]+)\]\s*\.+\s*\[(?P<compatible>[A-Z ]+)\]"
)
_HVD_HEAD_RE = re.compile(r"^Horovod v(?P<v>[\d.]+):\s*$")
_HVD_SECTION_RE = re.compile(r"^Available (?P<what>Frameworks|Controllers|Tensor Operations):")
_HVD_ITEM_RE = re.compile(r"^\s+\[(?P<x>[ X])\] (?P<name>\S.*?)\s*$")
_ACCELERATE_RE = re.compile(r"^- (?P<key>[^:]+?):\s*(?P<value>.*?)\s*$")
# verl's scripts/diagnose.py: its sections ("----------Python Info----------", check_python ...
# check_os), each "key<spaces or a tab>: value" (print("Version      :", ...), the packages as
# f"{package}\t     : {version}"); on Ascend its CANN and driver (HDK) versions as "CANN:9.0.1",
# "HDK:25.5.0"
_VERL_SECTION_RE = re.compile(r"^[ \t>]*-{5,}(?P<name>[\w ]{1,40}?) Info-{5,}[ \t]*$")
_VERL_ROW_RE = re.compile(
    r"^[ \t>]*(?P<key>[\w.-]{1,40}(?: [\w.-]{1,20})?)[ \t]*:[ \t]*(?P<value>\S.{0,200}?)\s*$"
)
_VERL_KEYS = {"vllm", "sglang", "ray", "torch", "torch_npu", "node", "CANN", "HDK"}
"""The rows said of a dump: the training stack and, on Ascend, CANN and the driver (HDK)."""
# a kernel library's check of the chip that runs "npu-smi info" and logs, when it cannot
# ("except Exception: logger.warning("can not use command: npu-smi info")", as sgl-kernel-npu
# and triton-ascend's check_npu_smi_device do at import): npu-smi does not run in that process
_NPU_SMI_UNUSABLE_RE = re.compile(r"can not use command: (?P<cmd>npu-smi[^\n]{0,80}?)\s*$")
# (Ray 2.8 and later split the healthy nodes into Active and Idle)
_RAY_SECTION_RE = re.compile(r"^(?P<s>Healthy|Active|Idle|Pending|Recent failures):\s*$")
_RAY_ROW_RE = re.compile(r"^\s+(?P<row>\S.*?)\s*$")
_JOBS_HEAD_RE = re.compile(r"^\s*NAME\s+STATE\s+AGE\s*$")
_JOBS_ROW_RE = re.compile(
    r"^\s*(?P<name>\S+)\s+(?:(?P<state>[A-Z][a-z]+)\s+)?(?P<age>\d+[smhd]\S*)\s*$"
)
_UNSCHEDULABLE_RE = re.compile(
    # (Volcano's controller reports its podgroup's: "Warning PodGroupPending 7m43s
    # vc-controller-manager PodGroup default:job-sample unschedule,reason: 1/1 tasks in gang ...")
    r"^\s*Warning\s+(?:Unschedulable|FailedScheduling|PodGroupPending|Pending(?=\s+\S+(?: \(x\d+ over \S+\))?\s+kueue))\s+(?P<age>\S+(?: \(x(?P<times>\d+) over (?P<over>\S+)\))?)\s+"
    r"(?P<source>\S+)\s+(?P<message>\S.*?)\s*$"
)
_GANG_RE = re.compile(
    r"(?<!\d)(?P<n>\d{1,9})/(?P<of>\d{1,9}) tasks in gang unschedulable: (?P<why>[^\n]+)"
)
_GANG_REASON_RE = re.compile(r"^\s*Reason:\s+(?P<reason>NotEnoughResources|\w+)\s*$")
_JAX_RE = re.compile(
    r"Jax service listening on (?P<addr>\S+)|(?P<connected>Connected to distributed JAX controller)"
    r"|Distributed task shutdown result: (?P<shutdown>\w+)"
    # Levanter's own line once jax.distributed.initialize returned (levanter distributed.py,
    # DistributedConfig.initialize: logger.info(f"Initialized jax.distributed with
    # {jax.device_count()} devices, {jax.process_count()} hosts, coordinator_address=...");
    # later releases say "processes" for "hosts")
    r"|levanter\.distributed:Initialized jax\.distributed with (?P<devices>\d+) devices, "
    r"(?P<hosts>\d+) (?:hosts|processes)"
)
# (-o wide adds IP, NODE, NOMINATED NODE and READINESS GATES after AGE)
# (-A, --all-namespaces, puts NAMESPACE first)
_PODS_HEAD_RE = re.compile(
    r"^\s*(?:NAMESPACE\s+)?NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE(?:\s+[A-Z]+)*\s*$"
)
_POD_ROW_RE = re.compile(
    r"^\s*(?:(?P<ns>\S+)\s+)?(?P<name>\S+)\s+(?P<ready>\d+/\d+)\s+(?P<status>\S+)\s+(?P<restarts>\d+)"
    r"(?:\s+\([^)]*\))?\s+(?P<age>\d+[smhd]\S*|<invalid>|\S+)(?:\s+\S+){0,6}\s*$"
)
_HEADLESS_POD_ROW_RE = re.compile(rf"^{_HEADLESS_POD_ROW}$")
# kubectl logs of a container that has not started: "Error from server (BadRequest): container
# "mpi-launcher" in pod "tf-launcher" is waiting to start: PodInitializing"
# kubectl get daemonsets: DESIRED, CURRENT, READY, UP-TO-DATE, AVAILABLE pods, its node selector
_DS_HEAD_RE = re.compile(
    r"^\s*(?:NAMESPACE\s+)?NAME\s+DESIRED\s+CURRENT\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+"
)
_DS_ROW_RE = re.compile(
    r"^\s*(?:(?P<ns>\S+)\s+)?(?P<name>\S+)\s+(?P<desired>\d+)\s+(?P<current>\d+)\s+"
    r"(?P<ready>\d+)\s+(?P<uptodate>\d+)\s+(?P<available>\d+)\s"
)
_WAITING_TO_START_RE = re.compile(
    r'container "(?P<container>[^"]+)" in pod "(?P<pod>[^"]+)" is waiting to start: (?P<why>\w+)'
)
INIT_STUCK_S = 300
"""A pod still in its init containers after this long is taken as stuck there (its main
container, the job's process, never started)."""
# (kubelet's admission and start failures too: UnexpectedAdmissionError, OutOf<resource> for a
# device the node could not give, CreateContainerError, RunContainerError, StartError ...)
_POD_BAD = ("CrashLoopBackOff", "Error", "ImagePullBackOff", "ErrImagePull", "OOMKilled",
            "CreateContainerConfigError", "Evicted", "Pending", "ContainerStatusUnknown",
            "UnexpectedAdmissionError", "CreateContainerError", "RunContainerError", "StartError",
            "InvalidImageName", "ErrImageNeverPull", "NodeAffinity")  # fmt: skip
_COLLECT_ENV_RE = re.compile(
    r"^(?P<key>PyTorch version|CUDA used to build PyTorch|ROCM used to build PyTorch|"
    r"Is CUDA available|CUDA runtime version|GPU models and configuration|Nvidia driver version|"
    r"cuDNN version|HIP runtime version|Python version|OS): (?P<value>.*?)\s*$"
)
# Slurm refusing or losing a job on a node: salloc's "Prolog failure on node k003-006" (the
# node's prolog script failed, the allocation is revoked), "Node failure on worker-1" (the node
# stopped answering), slurmd's "STEPD TERMINATED ON cn106 ... DUE TO JOB NOT ENDING WITH
# SIGNALS" (processes that would not die: Slurm drains the node), and a drained node's Reason
# in scontrol show node
_SLURM_NODE_RE = re.compile(
    r"\bsalloc: Prolog failure on node (?P<prolog>\S+)"
    r"|\b(?:salloc|srun|sbatch): error: Node failure on (?P<failed>\S+)"
    r"|STEPD TERMINATED ON (?P<stuck>\S+) AT \S+ DUE TO JOB NOT ENDING WITH SIGNALS"
)
_SCONTROL_NODE_RE = re.compile(r"^\s*NodeName=(?P<node>\S+)")
_SCONTROL_STATE_RE = re.compile(r"^\s*State=(?P<state>\S+)")
_SCONTROL_REASON_RE = re.compile(r"^\s*Reason=(?P<reason>.+?)\s*$")
_OTHER_BLOCK_RE = re.compile(r"^\s*(?:PartitionName|JobId|ReservationName|UserId)=")
_SINFO_HEAD_RE = re.compile(
    r"^\s*(?P<cols>(?:PARTITION|NODELIST|HOSTNAMES|REASON)(?:\s+[A-Z_:()/]+)+)\s*$"
)
# sinfo(1), NODE STATE CODES: a state may end in a flag character: "*" not responding, "~"
# powered off, "#" powering up, "!" pending power down, "%" powering down, "$" in a
# maintenance reservation, "@" pending reboot, "^" reboot issued, "-" planned by the backfill
# scheduler; the states are printed shortened to the field (drng: draining, failg: failing)
_STATE_FLAGS = "*~#!%$@^-+"
# a Slurm host list ("gpu[01-04]", "node1,node3", "compute001") and time stamp
_HOSTLIST_RE = re.compile(r"^[\w.-]+(?:\[[\d,-]+\][\w.-]*)?(?:,[\w.-]+(?:\[[\d,-]+\][\w.-]*)?)*$")
_SLURM_TIME_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d)?$|^Unknown$|^None$")
# a shell prompt ("[alice@login1 ~]$ squeue", "$ sinfo -R")
# (linear time on a long run: blanks at the start are read once (possessive): what follows cannot
# begin with a blank)
_PROMPT_RE = re.compile(r"^\s*+(?:\[[^\]\n]*\]|[\w.-]+@[\w.:~/-]+)?\s*[#$]\s+\S")
_UNAVAILABLE = {
    "down": "down (Slurm or an administrator took it out of service)",
    "drain": "drained (unavailable per the administrator's request)",
    "drained": "drained (unavailable per the administrator's request)",
    "drng": "draining (finishes its jobs, takes no new one)",
    "draining": "draining (finishes its jobs, takes no new one)",
    "fail": "failing (expected to fail soon, unavailable per the administrator)",
    "failg": "failing (runs a job, expected to fail soon)",
    "failing": "failing (runs a job, expected to fail soon)",
    "inval": "invalid (registered with fewer resources than slurm.conf gives it)",
    "maint": "in a maintenance reservation",
    "maintenance": "in a maintenance reservation",
    "invalid_reg": "invalid (registered with fewer resources than slurm.conf gives it)",
    "not_responding": "not responding",
}
"""sinfo's and scontrol's node states a job cannot be given (sinfo(1), NODE STATE CODES)."""
_HVD_CHECKS = (
    "SSH was successful into all the remote hosts.",
    "Host-to-host interface checking successful.",
)
_HVD_COMMON_RE = re.compile(r"^Common interface found: (?P<iface>\S+)")


GANG_REASON_LINES = 12
"""How far above a gang's Unschedulable event its podgroup's condition Reason may stand."""


@dataclass(kw_only=True)
class NodeFault:
    line: int
    node: str
    what: str
    unavailable: bool = False
    """A node's state (sinfo, scontrol) that keeps a job off it, not a job's failure on it."""
    job: bool = False
    """A job's state (squeue, scontrol show job): ``node`` its node list, empty when unknown."""
    refused: bool = False
    """The job was refused before it started (a launch that failed)."""
    waiting: bool = False
    """The job has not started (PENDING, or requeued): kept from starting, not failed."""
    lost: bool = False
    """srun's "Node failure on NODE": a node of the job's allocation or of a launched step failed
    (srun prints it from both: src/srun/libsrun/allocate.c and src/api/step_launch.c
    _node_fail_handler); the log reader says whether the job's processes had run."""


@dataclass(kw_only=True)
class Unschedulable:
    line: int
    message: str
    times: int | None = None
    over: str = ""
    source: str = ""


@dataclass(kw_only=True)
class Checks:
    notes: list[ParseWarning] = field(default_factory=list)
    unschedulable: list[Unschedulable] = field(default_factory=list)
    pods: list[tuple[int, str, str, int]] = field(default_factory=list)
    """Pods kubectl lists in a failing state: (line, name, status, restarts)."""
    node_faults: list[NodeFault] = field(default_factory=list)
    npu_unreadable: list[tuple[int, str]] = field(default_factory=list)
    """An environment dump's own word that npu-smi could not be run where it was taken:
    (line, the line): the NPUs' state is not in it."""


def parse(text: str) -> Checks:
    """The notes of each check in ``text`` and the pods that could not be scheduled;
    ParseError when none is read."""
    lines = text.splitlines()
    out = Checks()
    for reader in (_ds_report, _horovod_build, _horovod_checks, _accelerate, _ray_status,
                   _jobs, _jax, _pods, _daemonsets, _waiting_to_start, _collect_env,
                   _verl_diagnose, _slurm_nodes):  # fmt: skip
        reader(lines, out)
    _unschedulable(lines, out)
    if not out.notes and not out.unschedulable and not out.pods and not out.node_faults:
        raise ParseError(
            "no ds_report, horovodrun, accelerate env, ray status, kubectl, JAX, sinfo or "
            "scontrol line"
        )
    return out


def _note(out: Checks, line: int, message: str) -> None:
    out.notes.append(ParseWarning(line=line, message=message, skipped=False))


def _ds_report(lines: list[str], out: Checks) -> None:
    ops: dict[str, tuple[str, str]] = {}
    env: dict[str, str] = {}
    first = first_env = 0
    ninja = ""
    for no, line in enumerate(lines, 1):
        if m := _OP_ROW_RE.match(line.strip()):
            ops[m.group("op")] = (m.group("installed").strip(), m.group("compatible").strip())
            first = first or no
        elif line.strip().startswith("ninja") and (d := _DOTTED_ROW_RE.match(line.strip())):
            ninja = d.group("value").strip("[]")
            first = first or no
        elif (d := _DOTTED_ROW_RE.match(line.strip())) and d.group("key") in (
            "torch version", "torch cuda version", "nvcc version", "deepspeed info",
            "shared memory (/dev/shm) size", "torch hip version", "deepspeed wheel compiled w.",
        ):  # fmt: skip
            env[d.group("key")] = d.group("value")
            first_env = first_env or no
    if ops or ninja:
        failing = [op for op, (_, ok) in ops.items() if ok != "OKAY"]
        installed = [op for op, (inst, _) in ops.items() if inst == "YES"]
        _note(
            out,
            first,
            f"ds_report: {len(ops)} op(s), {len(installed)} pre-built"
            + (f"; ninja {ninja}" if ninja else "")
            + (
                f"; not compatible with this system: {', '.join(failing)} (they cannot be "
                "compiled here when a job needs them)"
                if failing
                else "; every op listed can be compiled here"
                if ops
                else ""
            ),
        )
    if env:
        said = [f"{k} {v}" for k, v in env.items() if k != "deepspeed wheel compiled w."]
        _note(out, first_env, "ds_report: " + "; ".join(said))


def _horovod_build(lines: list[str], out: Checks) -> None:
    version, section, head = "", "", 0
    built: dict[str, list[str]] = {}
    listed: dict[str, list[str]] = {}
    for no, line in enumerate(lines, 1):
        if m := _HVD_HEAD_RE.match(line.strip()):
            version, head = m.group("v"), head or no
        elif m := _HVD_SECTION_RE.match(line.strip()):
            section, head = m.group("what"), head or no
        elif section and (m := _HVD_ITEM_RE.match(line)):
            listed.setdefault(section, []).append(m.group("name"))
            if m.group("x") == "X":
                built.setdefault(section, []).append(m.group("name"))
        elif line.strip():
            section = ""
    if not listed:
        return
    said = [
        f"{what}: {', '.join(built.get(what, [])) or 'none'}"
        for what in ("Frameworks", "Controllers", "Tensor Operations")
        if what in listed
    ]
    missing = [w for w in ("Frameworks", "Controllers") if w in listed and not built.get(w)]
    _note(
        out,
        head,
        f"horovodrun --check-build{f' (Horovod {version})' if version else ''}: built with "
        + "; ".join(said)
        + (
            f": no {' and no '.join(w.lower().rstrip('s') for w in missing)} built, so Horovod "
            "cannot run a job (reinstall it with HOROVOD_WITH_PYTORCH=1 or the framework's "
            "flag, and HOROVOD_GPU_OPERATIONS=NCCL for GPUs)"
            if missing
            else ""
        ),
    )


def _horovod_checks(lines: list[str], out: Checks) -> None:
    passed = [(no, line.strip()) for no, line in enumerate(lines, 1) if line.strip() in _HVD_CHECKS]
    common = [(no, m.group("iface")) for no, line in enumerate(lines, 1)
              if (m := _HVD_COMMON_RE.match(line.strip()))]  # fmt: skip
    if passed or common:
        line = min(n for n, _ in passed + common)
        _note(
            out,
            line,
            "horovodrun's checks before the job: "
            + "; ".join(
                [t.rstrip(".") for _, t in passed]
                + [f"the hosts share interface {i}" for _, i in common]
            ),
        )


def _accelerate(lines: list[str], out: Checks) -> None:
    said: list[str] = []
    first = 0
    for no, line in enumerate(lines, 1):
        if (m := _ACCELERATE_RE.match(line)) and any(
            w in m.group("key") for w in ("version", "config", "GPU", "NPU")
        ):
            value = m.group("value")
            if not value and no < len(lines):
                value = lines[no].strip()  # (its default config's value on the next line)
            said.append(f"{m.group('key').replace('`', '')} {value}".strip())
            first = first or no
    if said and any(s.startswith("llamafactory version") for s in said):
        # (its NPU type and CANN version where run on Ascend: "- NPU type: Ascend910B3")
        _note(out, first, "llamafactory-cli env: " + "; ".join(said))
    elif said and any("Accelerate" in s for s in said):
        _note(out, first, "accelerate env: " + "; ".join(said))


def _ray_status(lines: list[str], out: Checks) -> None:
    section, head = "", 0
    rows: dict[str, list[str]] = {}
    for no, line in enumerate(lines, 1):
        if "Autoscaler status" in line:
            head = no
        if m := _RAY_SECTION_RE.match(line.strip()):
            section = m.group("s")
            rows.setdefault(section, [])
        elif section and (m := _RAY_ROW_RE.match(line)):
            if not m.group("row").startswith("(no "):
                rows[section].append(m.group("row"))
        elif line.strip():
            section = ""
    if not head or not rows:
        return
    failures = rows.get("Recent failures", [])
    _note(
        out,
        head,
        "ray status: healthy "
        + (
            ", ".join(rows.get("Healthy", []) + rows.get("Active", []) + rows.get("Idle", []))
            or "none"
        )
        + "; pending "
        + (", ".join(rows.get("Pending", [])) or "none")
        + (
            f"; recent failures: {', '.join(failures)} (nodes the autoscaler could not start: "
            "the job's resources there are missing)"
            if failures
            else "; no recent failure"
        ),
    )


def _jobs(lines: list[str], out: Checks) -> None:
    for no, line in enumerate(lines, 1):
        if not _JOBS_HEAD_RE.match(line):
            continue
        for at, row in enumerate(lines[no:], no + 1):
            if not (m := _JOBS_ROW_RE.match(row)):
                break
            _note(
                out,
                at,
                f"kubectl get: job {m.group('name')} "
                + (
                    f"is {m.group('state')} ({m.group('age')} old)"
                    if m.group("state")
                    else f"has no state after {m.group('age')}: no controller has acted on it "
                    "(the training operator is not running, or does not watch its namespace)"
                ),
            )


def _jax(lines: list[str], out: Checks) -> None:
    said: list[str] = []
    first = 0
    for no, line in enumerate(lines, 1):
        if m := _JAX_RE.search(line):
            first = first or no
            if m.group("addr"):
                said.append(f"its service listened on {m.group('addr')}")
            elif m.group("devices"):
                said.append(
                    f"Levanter initialized it with {m.group('devices')} device(s) on "
                    f"{m.group('hosts')} host(s) (JAX processes), no error"
                )
            elif m.group("connected"):
                said.append("a task connected to the controller")
            else:
                said.append(f"its tasks shut down: {m.group('shutdown')}")
    if said:
        _note(out, first, "JAX's distributed start: " + "; ".join(dict.fromkeys(said)))


def _age_s(age: str) -> int | None:
    """kubectl's AGE ("6m11s", "2d3h", "45s") in seconds; None when it is not one."""
    parts = re.findall(r"(\d+)([smhd])", age)
    if not parts or "".join(n + u for n, u in parts) != age:
        return None
    return sum(int(n) * {"s": 1, "m": 60, "h": 3600, "d": 86400}[u] for n, u in parts)


def _pods(lines: list[str], out: Checks) -> None:
    # the line number each table's header is at (its rows below it); 0 for rows copied without
    # their header from the file's first line
    heads = [no for no, line in enumerate(lines, 1) if _PODS_HEAD_RE.match(line)]
    if not heads:
        # rows without their header: read from the first of two in a row
        heads = [
            index
            for index in range(len(lines) - 1)
            if _HEADLESS_POD_ROW_RE.match(lines[index])
            and _HEADLESS_POD_ROW_RE.match(lines[index + 1])
        ][:1]
    for no in heads:
        rows = []
        for at, row in enumerate(lines[no:], no + 1):
            if not (m := _POD_ROW_RE.match(row)):
                if _PODS_HEAD_RE.match(row):
                    continue  # kubectl -w prints its header again
                break
            rows.append((at, m))
        latest: dict[str, tuple[int, re.Match[str]]] = {}
        for at, m in rows:  # (-w: the last line of each pod is its state now)
            latest[m.group("name")] = (at, m)
        bad = [(at, m) for at, m in latest.values() if m.group("status").split(":")[0] in _POD_BAD
               or m.group("status").startswith("OutOf")
               or (m.group("status").startswith("Init:")
                   and m.group("status").split(":")[-1] in _POD_BAD)
               or (m.group("status").startswith("Init:") and int(m.group("restarts")) > 0)
               or (m.group("status").startswith("Init:")
                   and (_age_s(m.group("age")) or 0) >= INIT_STUCK_S)]  # fmt: skip
        waiting = [
            m.group("name") for _, m in latest.values() if m.group("status").startswith("Init:")
        ]
        out.pods.extend(
            (
                at,
                m.group("name"),
                m.group("status")
                + (
                    f" after {m.group('age')} (still in its init containers, no restart: the "
                    "pod's own container, the job's process, has not started yet)"
                    if m.group("status").startswith("Init:") and int(m.group("restarts")) == 0
                    else ""
                ),
                int(m.group("restarts")),
            )
            for at, m in bad
        )
        _note(
            out,
            max(no, 1),
            f"kubectl get pods: {len(latest)} pod(s); "
            + (f"{len(bad)} failing" if bad else "none failing")
            + (f"; {len(waiting)} still in their init containers" if waiting else ""),
        )


def _daemonsets(lines: list[str], out: Checks) -> None:
    """kubectl get ds: a DaemonSet with fewer pods ready than it wants (its pods failing or not
    scheduled on the nodes its selector names) is a failing set of pods."""
    head = next((no for no, line in enumerate(lines, 1) if _DS_HEAD_RE.match(line)), None)
    if head is None:
        return
    sets = short = 0
    updating: list[str] = []
    for no, line in enumerate(lines[head:], head + 1):
        if (m := _DS_ROW_RE.match(line)) is None:
            break
        sets += 1
        desired, ready = int(m.group("desired")), int(m.group("ready"))
        uptodate = int(m.group("uptodate"))
        if ready < desired and uptodate < desired and desired - ready <= desired - uptodate:
            # a rolling update under way (its pods replaced node by node): not a failure, as
            # long as no more pods are short of ready than are still to be replaced
            updating.append(
                f"{m.group('name')} ({uptodate} of {desired} pod(s) updated, {ready} ready)"
            )
        elif ready < desired:
            short += 1
            out.pods.append(
                (no, m.group("name"), f"DaemonSet with {ready} of {desired} pod(s) ready", 0)
            )
    _note(
        out,
        head,
        f"kubectl get daemonsets: {sets} DaemonSet(s); "
        + (
            f"{short} with fewer pods ready than desired"
            if short
            else "every one ready"
            if not updating
            else "every one ready or being updated"
        )
        + (f"; being updated (a rolling update): {', '.join(updating)}" if updating else ""),
    )


def _waiting_to_start(lines: list[str], out: Checks) -> None:
    for no, line in enumerate(lines, 1):
        if "waiting to start" in line and (m := _WAITING_TO_START_RE.search(line)):
            _note(
                out,
                no,
                f"kubectl: container {m.group('container')} of pod {m.group('pod')} has not "
                f"started ({m.group('why')}"
                + (
                    ": its pod's init containers still run"
                    if m.group("why") == "PodInitializing"
                    else ""
                )
                + "), so it has no log yet",
            )


def _collect_env(lines: list[str], out: Checks) -> None:
    said: dict[str, tuple[int, str]] = {}
    for no, line in enumerate(lines, 1):
        if m := _COLLECT_ENV_RE.match(line):
            said.setdefault(m.group("key"), (no, m.group("value")))
    if "PyTorch version" not in said or len(said) < 3:
        return
    first = min(n for n, _ in said.values())
    _note(
        out,
        first,
        "torch's collect_env: "
        + "; ".join(f"{k} {v}" for k, (_, v) in said.items() if v and v != "N/A")
        + (
            "; CUDA not available to torch"
            if said.get("Is CUDA available", (0, ""))[1] == "False"
            else ""
        ),
    )


def _verl_diagnose(lines: list[str], out: Checks) -> None:
    """verl's diagnose: a note of its versions, and npu-smi that could not be run there."""
    if not any("verl Info" in line and _VERL_SECTION_RE.match(line) for line in lines):
        return
    said: dict[str, str] = {}
    first = 0
    name = ""  # the section the row is in
    for no, line in enumerate(lines, 1):
        if "can not use command" in line and _NPU_SMI_UNUSABLE_RE.search(line):
            out.npu_unreadable.append((no, line.strip()))
            continue
        if section := _VERL_SECTION_RE.match(line):
            name = section.group("name").strip()
            first = first or no
            continue
        if not (m := _VERL_ROW_RE.match(line)) or m.group("value") == "not found.":
            continue
        key = m.group("key").strip()
        if key in _VERL_KEYS or (name == "verl" and key == "Version"):
            said.setdefault("verl" if key == "Version" else key, m.group("value"))
    _note(
        out,
        first,
        "verl's diagnose: "
        + "; ".join(f"{k} {v}" for k, v in said.items())
        + (
            f"; npu-smi could not be run where it ran (line {out.npu_unreadable[0][0]})"
            if out.npu_unreadable
            else ""
        ),
    )


def node_state(state: str) -> str | None:
    """What a Slurm node state (sinfo's ``drng@``, scontrol's ``IDLE+DRAIN``,
    ``DOWN+NOT_RESPONDING``) says that keeps a job off the node; None for one a job can use
    (idle, mixed, allocated, completing, powered off until a job asks for it)."""
    words = [w.strip(_STATE_FLAGS).lower() for w in state.split("+")]
    if "drain" in words and ({"allocated", "mixed", "alloc", "mix", "completing"} & set(words)):
        # (scontrol's ALLOCATED+DRAIN, MIXED+DRAIN: it still runs jobs and takes no new one)
        words = ["draining" if w == "drain" else w for w in words]
    said = [_UNAVAILABLE[w] for w in words if w in _UNAVAILABLE]
    if state.rstrip("@^").endswith("*") and "not responding" not in said:
        said.append("not responding")
    if state.rstrip("*").endswith("$") and "in a maintenance reservation" not in said:
        said.append("in a maintenance reservation")
    if said and "@" in state:
        said.append("a reboot pending")
    return ", ".join(dict.fromkeys(said)) or None


def _sinfo(lines: list[str], out: Checks) -> None:
    """sinfo's tables: a row a partition's (or a node's) state with its node list; -R's rows
    (only nodes down, drained, failing: sinfo(1) --list-reasons) with their reason."""
    cols: list[str] = []
    rows = 0
    for no, line in enumerate(lines, 1):
        if h := _SINFO_HEAD_RE.match(line):
            cols = h.group("cols").split()
            if ("NODELIST" not in cols and "HOSTNAMES" not in cols) or (
                "STATE" not in cols and cols[0] != "REASON"
            ):
                cols = []  # (sinfo -s's NODES(A/I/O/T), a format without states: not judged)
            continue
        if not cols or not line.strip() or _PROMPT_RE.match(line) or _SQUEUE_HEAD_RE.match(line):
            cols = []  # (the table ends at a blank line, a prompt or another command's table)
            continue
        tokens = line.split()
        if cols[0] == "REASON":
            if len(tokens) < len(cols):
                continue
            row = dict(zip(cols[1:], tokens[len(tokens) - len(cols) + 1 :], strict=True))
            row["REASON"] = " ".join(tokens[: len(tokens) - len(cols) + 1])
        elif cols[-1] == "REASON":
            if len(tokens) < len(cols) - 1:
                continue
            row = dict(zip(cols[:-1], tokens[: len(cols) - 1], strict=True))
            row["REASON"] = " ".join(tokens[len(cols) - 1 :])
        else:
            if len(tokens) != len(cols):
                continue
            row = dict(zip(cols, tokens, strict=True))
        nodes = row.get("NODELIST") or row.get("HOSTNAMES") or "?"
        if not _HOSTLIST_RE.match(nodes) or (
            "TIMESTAMP" in row and not _SLURM_TIME_RE.match(row["TIMESTAMP"])
        ):
            continue  # (no row of the table: its node list or its time is not one)
        rows += 1
        reason = row.get("REASON", "")
        reason = "" if reason in ("(null)", "none", "") else reason
        state = row.get("STATE")
        what = node_state(state) if state else "down, drained or failing (sinfo -R lists no other)"
        if what is None:
            continue
        count = row.get("NODES", "")
        out.node_faults.append(
            NodeFault(
                line=no,
                node=nodes,
                what=(f"{count} node(s) " if count.isdigit() and count != "1" else "")
                + (f"{state}: " if state else "")
                + what
                + (f"; reason: {reason}" if reason else "")
                + (f" (partition {row['PARTITION']})" if row.get("PARTITION") else ""),
                unavailable=True,
            )
        )
    if rows and not any(f.unavailable for f in out.node_faults):
        _note(out, 1, f"sinfo: {rows} row(s); every node listed can take a job")


# squeue's state codes (squeue(1) JOB STATE CODES), long and compact
_JOB_STATES = (
    "PENDING|RUNNING|COMPLETING|COMPLETI|COMPLETED|FAILED|TIMEOUT|CANCELLED|NODE_FAIL|PREEMPTED|"
    "SUSPENDED|CONFIGURING|CONFIGUR|OUT_OF_MEMORY|OUT_OF_ME|BOOT_FAIL|DEADLINE|REQUEUED|"
    "REQUEUE_HOLD|REQUEUE_|RESV_DEL_HOLD|SPECIAL_EXIT|STOPPED|RESIZING|SIGNALING|"
    "PD|R|CG|CD|F|TO|CA|NF|PR|S|CF|OOM|BF|DL|RQ|RH|RF|SE|ST|RS|RV|SI|SO"
)
_SQUEUE_HEAD_RE = re.compile(r"^\s*JOBID\s+PARTITION\s+NAME\s+USER\s+(?:ST|STATE)\s+TIME\s")
_SQUEUE_ROW_RE = re.compile(
    rf"^\s*(?P<job>\d+(?:[_+][\w\[\]%,-]+)?)\s+(?P<mid>.*?)\s(?P<state>{_JOB_STATES})\s+"
    r"(?P<time>(?:\d+-)?\d+:\d\d(?::\d\d)?|INVALID)\s+"
    r"(?:(?:(?:\d+-)?\d+:\d\d(?::\d\d)?|UNLIMITED|INVALID|NOT_SET)\s+)?(?P<nodes>\d+)\s+"
    r"(?P<where>\([^()\n]*\)|\S+)\s*$"
)
_JOB_STATE_WORDS = {
    "PD": "PENDING", "R": "RUNNING", "CG": "COMPLETING", "COMPLETI": "COMPLETING", "CD":
    "COMPLETED", "F": "FAILED", "TO": "TIMEOUT", "CA": "CANCELLED", "NF": "NODE_FAIL", "PR":
    "PREEMPTED", "OOM": "OUT_OF_MEMORY", "OUT_OF_ME": "OUT_OF_MEMORY", "BF": "BOOT_FAIL", "DL":
    "DEADLINE", "CF": "CONFIGURING", "CONFIGUR": "CONFIGURING",
}  # fmt: skip
# a job that ended so (squeue(1), JOB STATE CODES): its run failed, or its nodes did
_FAILED_JOB_STATES = {
    "FAILED": "its run ended with a non-zero exit code",
    "NODE_FAIL": "one of its nodes failed",
    "TIMEOUT": "it reached its time limit",
    "OUT_OF_MEMORY": "it ran out of memory",
    "BOOT_FAIL": "its nodes failed to boot",
    "DEADLINE": "it reached its deadline",
}
# pending reasons that say the job cannot start as asked (Slurm's "Job Reason Codes"): not a
# wait for its turn (Priority, Resources, Dependency, BeginTime)
_STUCK_REASONS = {
    "launch failed requeued held": "its launch failed; Slurm requeued it and holds it",
    "ReqNodeNotAvail": "a node it asks for is not available (down, drained or reserved)",
    "NodeDown": "a node it needs is down",
    "BadConstraints": "its constraints cannot be met by any node",
    "PartitionDown": "its partition is down",
    "PartitionInactive": "its partition is inactive",
    "PartitionNodeLimit": "it asks for more nodes than its partition allows",
    "JobHeldAdmin": "an administrator holds it",
    "JobLaunchFailure": "its launch failed",
    "InvalidAccount": "its account is invalid",
    "InvalidQOS": "its QOS is invalid",
}
# Slurm refusing a job at submission or allocation (its messages slurm_strerror gives the
# controller's answer in): "srun: error: Unable to allocate resources: Socket timed out on
# send/recv operation", "sbatch: error: Batch job submission failed: Requested node
# configuration is not available"
_SLURM_REFUSED_RE = re.compile(
    r"\b(?P<cmd>srun|sbatch|salloc): error: (?:Unable to allocate resources|Batch job submission "
    r"failed): (?P<why>[^`\n]*[^`\s])"
)  # (the reason to its last word: what a copy put after it, a backtick or spaces, left out)
_SLURM_REFUSALS = {
    "Socket timed out on send/recv operation": "slurmctld did not answer in time (busy, down "
    "or unreachable from this host)",
    "Requested node configuration is not available": "no node of the partition has what the "
    "job asks (its GPUs, memory, CPUs, features or --exclusive)",
    "Unable to contact slurm controller (connect failure)": "slurmctld could not be reached",
    "Invalid account or account/partition combination specified": "its account may not use "
    "that partition",
    "Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)": "it "
    "is over its account's or QOS's limits",
}
_SCONTROL_JOB_STATE_RE = re.compile(r"^\s*JobState=(?P<state>[A-Z_]+) Reason=(?P<reason>\S+)")
_SCONTROL_JOB_ID_RE = re.compile(r"^\s*JobId=(?P<job>\S+)")
_SCONTROL_EXIT_RE = re.compile(r"\bExitCode=(?P<code>\d+):(?P<sig>\d+)")
_SCONTROL_NODELIST_RE = re.compile(r"^\s*NodeList=(?P<nodes>\S+)")


def _stuck(reason: str) -> str | None:
    """What a pending job's reason says keeps it from starting; None for a wait for its turn."""
    for key, said in _STUCK_REASONS.items():
        if reason.replace("_", " ").startswith(key) or reason.startswith(key):
            return said
    return None


def job_fault(state: str, reason: str) -> str | None:
    """What a job's state and reason (squeue, scontrol show job) say went wrong; None for a job
    running, done, or waiting its turn."""
    state = _JOB_STATE_WORDS.get(state, state)
    if state in _FAILED_JOB_STATES:
        return f"{state}: {_FAILED_JOB_STATES[state]}"
    if state in ("PENDING", "REQUEUE_HOLD", "REQUEUE_") and (said := _stuck(reason)):
        return f"{state} ({reason.replace('_', ' ')}): {said}"
    return None


def _squeue(lines: list[str], out: Checks) -> None:
    """squeue's rows: a job that failed, or one pending for a reason that keeps it from
    starting (a launch that failed, nodes it asks for not available)."""
    head = any(_SQUEUE_HEAD_RE.match(line) for line in lines)
    jobs = 0
    completing: list[str] = []
    for no, line in enumerate(lines, 1):
        if (m := _SQUEUE_ROW_RE.match(line)) is None:
            continue
        state = m.group("state")
        if not head and len(state) < 4:
            continue  # (a compact code without squeue's header: too like other tables' cells)
        jobs += 1
        where = m.group("where")
        reason = where[1:-1] if where.startswith("(") else ""
        if _JOB_STATE_WORDS.get(state, state) == "COMPLETING":
            completing.append(f"job {m.group('job')} on {where}")
        if (what := job_fault(state, reason)) is None:
            continue
        out.node_faults.append(
            NodeFault(
                line=no,
                node="" if reason else where,
                what=f"job {m.group('job')} {what}",
                job=True,
                waiting=_JOB_STATE_WORDS.get(state, state).startswith(("PENDING", "REQUEUE")),
            )
        )
    if jobs and not any(f.job for f in out.node_faults):
        _note(
            out,
            1,
            f"squeue: {jobs} job(s); none failed or is kept from starting"
            + (
                "; still completing (Slurm waits for their processes and epilog to end): "
                + ", ".join(completing[:8])
                if completing
                else ""
            ),
        )


def _slurm_refusals(lines: list[str], out: Checks) -> None:
    """srun, sbatch or salloc refused a job before it started: the controller's answer."""
    for no, line in enumerate(lines, 1):
        if "error:" not in line or (m := _SLURM_REFUSED_RE.search(line)) is None:
            continue
        why = m.group("why").strip()
        said = _SLURM_REFUSALS.get(why)
        out.node_faults.append(
            NodeFault(
                line=no,
                node="",
                what=f"{m.group('cmd')}: the job was refused before it started ({why}"
                + (f": {said}" if said else "")
                + ")",
                job=True,
                refused=True,
            )
        )


def _scontrol_jobs(lines: list[str], out: Checks) -> None:
    """scontrol show job: a job that failed (its state, reason and exit code) or is kept from
    starting."""
    job = nodes = ""
    for no, line in enumerate(lines, 1):
        if j := _SCONTROL_JOB_ID_RE.match(line):
            job, nodes = j.group("job"), ""
        elif n := _SCONTROL_NODELIST_RE.match(line):
            nodes = n.group("nodes") if n.group("nodes") != "(null)" else ""
        if (m := _SCONTROL_JOB_STATE_RE.match(line)) is None:
            continue
        if (what := job_fault(m.group("state"), m.group("reason"))) is None:
            continue
        if m.group("reason") not in ("None", "(null)") and m.group("state") != "PENDING":
            what += f" (reason {m.group('reason')})"
        window = " ".join(lines[no - 1 : no + 2])
        if (e := _SCONTROL_EXIT_RE.search(window)) is not None and e.group(0) != "ExitCode=0:0":
            what += f", exit code {e.group('code')}" + (
                f", signal {e.group('sig')}" if e.group("sig") != "0" else ""
            )
        fault = NodeFault(
            line=no,
            node=nodes,
            what=f"job {job or '(its id not in the copy)'} {what}",
            job=True,
            waiting=m.group("state").startswith(("PENDING", "REQUEUE")),
        )
        out.node_faults.append(fault)
        # the node list comes below the state line in scontrol's block
        for later in lines[no : no + 12]:
            if n := _SCONTROL_NODELIST_RE.match(later):
                fault.node = n.group("nodes") if n.group("nodes") != "(null)" else ""
                break


def _slurm_nodes(lines: list[str], out: Checks) -> None:
    _sinfo(lines, out)
    _slurm_refusals(lines, out)
    _squeue(lines, out)
    _scontrol_jobs(lines, out)
    node = state = reason = ""
    at = 0

    def block_end() -> None:
        if node and state and (what := node_state(state)):
            out.node_faults.append(
                NodeFault(
                    line=at,
                    node=node,
                    what=f"{state}: {what}" + (f"; reason: {reason}" if reason else ""),
                    unavailable=True,
                )
            )

    for no, line in enumerate(lines, 1):
        if _OTHER_BLOCK_RE.match(line):
            block_end()  # (a partition's, job's or reservation's State= is not the node's)
            node = state = reason = ""
            continue
        if m := _SLURM_NODE_RE.search(line):
            if m.group("prolog"):
                what = (
                    "its prolog script failed: the allocation was revoked and Slurm drains the "
                    "node (scontrol show node says the Reason)"
                )
                host = m.group("prolog")
            elif m.group("failed"):
                what = "the node failed (stopped answering slurmctld): the job lost it"
                host = m.group("failed")
                # srun prints it from its step launch's node-fail handler (Slurm's
                # src/api/step_launch.c _node_fail_handler: error("Node failure on %s"), then
                # the step's tasks on that node are marked gone) and from its allocation's
                # (src/srun/libsrun/allocate.c _node_fail_handler, the same words): whether
                # the job's processes ran first is the log reader's to say (logs._JOB_RAN_RE),
                # which reads the same line
                if "srun: error: Node failure" in line:
                    out.node_faults.append(NodeFault(line=no, node=host, what=what, lost=True))
                    continue
            else:
                what = (
                    "the step's processes did not end on SIGKILL (stuck in the kernel: a GPU, "
                    "driver or file system hang): Slurm drains the node"
                )
                host = m.group("stuck")
            out.node_faults.append(NodeFault(line=no, node=host, what=what))
            continue
        if n := _SCONTROL_NODE_RE.match(line):
            block_end()
            node, state, reason, at = n.group("node"), "", "", no
        elif st := _SCONTROL_STATE_RE.match(line):
            state, at = st.group("state"), no
        elif (r := _SCONTROL_REASON_RE.match(line)) and node:
            reason = r.group("reason")
    block_end()


# Volcano's own word of why, an event of type Normal beside its gang's Unschedulable: "Normal
# Unschedulable 17s (x13 over 29s) volcano resource in cluster is overused"
_VOLCANO_WHY_RE = re.compile(
    r"^\s*Normal\s+Unschedulable\s+\S+(?: \(x\d+ over \S+\))?\s+volcano\s+(?P<why>\S.*?)\s*$"
)


# Kueue admitting a workload: "Normal   Admitted   2m   kueue-admission   Admitted by ClusterQueue"
_KUEUE_ADMITTED_RE = re.compile(
    r"^\s*Normal\s+Admitted\s+\S+(?: \(x\d+ over \S+\))?\s+kueue-admission\s"
)


def _unschedulable(lines: list[str], out: Checks) -> None:
    reason, reason_at = "", 0
    volcano_why = next((m.group("why") for line in lines if (m := _VOLCANO_WHY_RE.match(line))), "")
    before = len(out.unschedulable)
    try:
        _unschedulable_events(lines, out, reason, reason_at)
    finally:
        if volcano_why:
            for u in out.unschedulable[before:]:
                if "gang" in u.message:
                    u.message += f" (Volcano: {volcano_why})"
    admitted = next(
        (no for no, line in enumerate(lines, 1) if _KUEUE_ADMITTED_RE.match(line)), None
    )
    if admitted is not None:
        # Kueue admitted the workload after it waited (QuotaReserved, Admitted): its Pending
        # events are a wait that ended, said as a note, not a workload kept from running
        waited = [
            u
            for u in out.unschedulable[before:]
            if u.source == "kueue-admission" and u.line < admitted
        ]
        out.unschedulable[before:] = [u for u in out.unschedulable[before:] if u not in waited]
        if waited:
            _note(
                out,
                waited[0].line,
                "kueue: the workload waited for quota (" + waited[0].message[:160] + "), then "
                f"Kueue admitted it (line {admitted})",
            )


def _unschedulable_events(lines: list[str], out: Checks, reason: str, reason_at: int) -> None:
    for no, line in enumerate(lines, 1):
        if r := _GANG_REASON_RE.match(line):
            reason, reason_at = r.group("reason"), no
        if reason and no - reason_at > GANG_REASON_LINES:
            reason = ""  # (another block's Reason, not the podgroup's above the event)
        if m := _UNSCHEDULABLE_RE.match(line):
            gang = "tasks in gang unschedulable" in m.group("message")
            out.unschedulable.append(
                Unschedulable(
                    line=no,
                    message=m.group("message") + (f" ({reason})" if gang and reason else ""),
                    times=int(m.group("times")) if m.group("times") else None,
                    over=m.group("over") or "",
                    source=m.group("source"),
                )
            )
        elif (g := _GANG_RE.search(line)) and not any(
            u.message.endswith(g.group(0)) or g.group(0) in u.message for u in out.unschedulable
        ):
            if "Message:" in line:
                continue  # the podgroup's condition: its event below says the same, with counts
            out.unschedulable.append(
                Unschedulable(line=no, message=g.group(0) + (f" ({reason})" if reason else ""))
            )
