"""Ascend tools' answers that hold no link, chip or failure to judge, read so an import says what
they are instead of "unknown": each becomes a note of its file.

- ``hccn_tool -g -process -i N`` (Ascend 950 HCCN Tool guide, "Querying Device-Side Process
  Information of an NPU Device"): ``device hccp process: exist`` or ``not exist``, whether the
  device side runs its hccp_service process.
- ``hccn_tool -i N -show_list ...`` (the same guide, "Querying the Queue Resource List for a
  Network Device"): a UDMA device's resource counts, ``----------SEG----------`` headings over
  ``seg_cnt :4`` lines (SEG, JFS, JFR, JFC, JETTY, JETTY_GROUP, RC).
- ``msnpureport config --get`` (the driver's msnpureport guide, "query device maintenance"): a
  boxed table of one device's maintenance settings, ``| Device ID: 0 | Current Configuration |``
  over ``| Global Level | ERROR |`` rows: log levels are settings, not errors.
- ``ascend-dmi -v`` and ``-h`` (the MindCluster ascend-dmi guide): its version line and its usage
  text, nothing of a device.
- ``npu-smi info -t <type> -i N`` on a device that does not serve that query: ``This device does
  not support querying spod-info.`` (npu-smi's own answer; the topo query's is read with the
  topology matrices): the device has nothing of that kind to say (no SuperPoD ids on a card
  outside one), not a fault.
- ``upgrade-tool --device_index -1 --component -1 --version`` (the driver's tools/upgrade-tool,
  which the Ascend driver/firmware installation guide runs to check the firmware after an
  upgrade): ``Get component version(7.5.0.2.220) succeed for deviceId(0), componentType(0).``
  over its JSON ``{"device_id":0, "component":nve, "version":7.5.0.2.220}``, a pair per device
  and component (nve, uefi, imu, imp ... as MindCluster's environment check saves them): the
  firmware each NPU runs, nothing to judge alone.
- npu-smi's refusal of a user other than root (``This command can be executed only by the root
  user.``, as a public note of ``npu-smi set -h`` run as uid 1000 shows) and ``npu-smi set -t
  sys-log-dump``'s start (the driver guide's example: ``Start exporting logs and files to path:
  /home/tmp/NPU-0/...``, a line a device): a refusal and a log collection, nothing of a device.
- A site's ACL copy probe (vLLM-HUST's vllm-hust-dev-hub ``Ascend-Machine/build/acl_copy_bench``,
  its results ``acl-copy-all8-h2d.txt``): plain key=value lines, ``mode=h2d
  bytes_per_device=536870912 iters=20 devices=0,...,7``, a ``per_device device=N seconds=0.44
  bandwidth_GBps=24.43`` line a device, ``aggregate_sum_GBps=`` and ``aggregate_wall_GBps=``: its
  figures as printed, not judged (no reference figure for the host link is in the output, and
  none is the probe's own).
"""

from __future__ import annotations

import re

from advisor.parsers import (
    MARKED_PROMPT_HOST_RE,
    PDSH_HOST,
    ParseError,
    ParseWarning,
    numbered_lines,
)

_PROCESS_HEAD = (
    r"(?:(?:\+[=+-]{1,400}\+[ \t]*\n[ \t]*)?"
    r"\|[ \t]*NPU[ \t]+Chip[ \t]*\|[ \t]*Process id[ \t]*\|[^\n]{0,400}\n[ \t]*)?"
    r"(?:\+[=+-]{1,400}\+[ \t]*\n[ \t]*)?"
)
"""What may stand above the process table's first row in a copy of it alone: its header row
(the border above it optional), then the "+===...+" border; each part optional, every span
bounded and the whole anchored at the text's start (tried once)."""

_TLS_PROMPT = r"Please enter pass phrase for pri key:"
_TLS_KEY_REMINDER = (
    r"\[WARNING\] Please delete the private key file after updating for security considerations\."
)
"""hccn_tool -s -tls's pass phrase prompt and the reminder it prints once the certificate suite is
set (Ascend 950 HCCN Tool guide, "Replacing the TLS Certificate of an NPU Device": precaution 5,
'The following message will be displayed: "[warning] Please delete the private key file after
updating for security considerations."', and example 1's output)."""

SIGNATURE = (
    # npu-smi info's process table copied from its rows on ("| No running processes found in NPU
    # 3 |"), the chip table above it left out, also from the "+====...+" border npu-smi prints
    # above each NPU's process rows (vllm-ascend#3289's copy starts on it), also from the
    # table's own header ("+---...+" over "| NPU     Chip | Process id | Process name | ..."
    # over "+===...+", as npu-smi info prints it): a copy of "the process part" takes it along
    r"\A\s*" + _PROCESS_HEAD + r"\|\s*No running processes found in NPU \d+\s*\|"
    r"|^[ \t]*device hccp process:[ \t]*(?:exist|not exist)[ \t]*$"
    r"|^-{3,}SEG-{3,}\s*\n\s*seg_cnt\s*:\s*\d+"
    r"|^\|\s*Device ID:\s*\d+\s*\|\s*Current Configuration\s*\|"
    r"|^[ \t]*This device does not support (?:querying (?!topo\.)[\w-]+|hccs topo)\."
    r"|^[ \t]*This command must input card id\.[ \t]*$"
    # hccn_tool -g -context (Ascend 950's HCCN Tool reference, querying a UDMA queue's context):
    # its command, then "offset  aeq0" over rows of a register offset and its hex word
    # (anchored near the line's start, every span bounded: each line tried once)
    r"|^[^\n]{0,80}?\bhccn_tool\b[^\n]{0,200}?[ \t]-context\b[^\n]{0,200}\n[ \t]*offset[ \t]+\w+[ \t]*$"
    # ... or the dump alone, its command not copied (the reference's CEQ example, as a document
    # shows it): the heading over two rows of a decimal offset and an 8-digit hex word, each line
    # behind an optional quote mark
    r"|^[ \t>]*offset[ \t]+[a-z]{1,8}\d{1,6}[ \t]*\n[ \t>]*\d{1,6}[ \t]+[0-9a-fA-F]{8}[ \t]*\n"
    r"[ \t>]*\d{1,6}[ \t]+[0-9a-fA-F]{8}[ \t]*$"
    # npu-smi refusing a user other than root ("This command can be executed only by the root
    # user."), and its system-log export's start lines (npu-smi set -t sys-log-dump: "Start
    # exporting logs and files to path: /home/tmp/NPU-0/...")
    r"|^[ \t]*This command can be executed only by the root user\.[ \t]*$"
    r"|^[ \t]*(?:[\d-]+ [\d:.]+ )?Start exporting logs and files to path: \S+"
    r"|^[ \t]*device \d+ recovery (?:success|fail(?:ed)?)[ \t]*$"
    r"|^[ \t]*\[ASYS\] \[(?:ERROR|INFO|WARNING)\]:"
    r"|^[ \t]*config status:[ \t]*[A-Z]+[ \t]*$"
    # npu-smi set / upgrade's result ("Status : OK" and its "Message : Reset card successfully.",
    # on one line or two; an upgrade's "Transfer : success"), upgrade -b's VRD versions
    r"|^[ \t]*Status[ \t]*:[ \t]*\S[^\n]*?(?:[ \t]Message[ \t]*:|\n[ \t]*Message[ \t]*:)"
    r"|^[ \t]*Transfer[ \t]*:[ \t]*(?:success|fail\w*)[ \t]*$"
    r"|^[ \t]*VRD Count[ \t]*:[ \t]*\d+[ \t]*$"
    # hccn_tool -g -version, -credit, -show_res (Ascend 950's HCCN Tool reference)
    r"|^[ \t]*Network (?:Driver|Firmware) Version:[ \t]*\S+"
    r"|^[ \t]*link_alloc_port_share_credit:\d+"
    r"|^\*{3,}RES_\w+\*{3,}[ \t]*$"
    # a site's ACL copy probe (acl_copy_bench's key=value lines): its head line or a device's
    # figure line, each anchored at a line's start, every span bounded
    r"|^[ \t]*mode=[a-z0-9]{1,16}[ \t]+bytes_per_device=\d{1,20}[ \t]+iters=\d{1,12}[ \t]+devices="
    r"|^[ \t]*per_device[ \t]+device=\d{1,5}[ \t]+seconds=[\d.]{1,20}[ \t]+bandwidth_GBps="
    # ascend-dmi's version and its usage text (the MindCluster ascend-dmi guide: -v, -h)
    r"|^[ \t]*ascend-dmi version:[ \t]*\S+|^[ \t]*Usage: ascend-dmi <option>"
    # msnpureport's version (the driver's msnpureport guide: "msnpureport version")
    r"|^[ \t]*msnpureport version:[ \t]*\S+[ \t]*$"
    # upgrade-tool's firmware versions (the driver's tools/upgrade-tool --device_index -1
    # --component -1 --version) standing alone: the file's first lines, under at most its
    # command line, a "{" and blank lines (an installer's log quotes the same lines among its own,
    # which are read as its log)
    # (every span bounded: a long run of blanks is tried once, not once per blank given back);
    # run through pdsh, each line behind its host's "node1: " (dshbak(1))
    r"|\A(?:[ \t>]{0,40}(?:\{[ \t]{0,40}|[^\n]{0,300}?\bupgrade-tool\b[^\n]{0,300})?\n){0,3}"
    rf"(?:{PDSH_HOST}: )?[ \t>]{{0,40}}"
    r"Get component version\([^)\n]{1,80}\) succeed for deviceId\(\d{1,5}\)"
    # a setting hccn_tool -s accepted ("Cmd executed successfully!" under its command)
    r"|\bhccn_tool[ \t]+-s[ \t]+-\w+[^\n]*\n(?:[^\n]*\n){0,6}?[ \t]*Cmd executed successfully![ \t]*$"
    # ... or hccn_tool -s -tls's answer copied without its command: its pass phrase prompt or the
    # private-key reminder it prints after the replacement (the Ascend 950 HCCN Tool guide,
    # "Replacing the TLS Certificate of an NPU Device", precaution 5 and example 1), then "Cmd
    # executed successfully!" within a few lines (each span bounded)
    rf"|^[ \t>]{{0,40}}(?:{_TLS_PROMPT}|{_TLS_KEY_REMINDER})[^\n]{{0,200}}\n"
    r"(?:[^\n]{0,400}\n){0,4}?[ \t>]{0,40}Cmd executed successfully![ \t]*$"
)
# npu-smi refusing a query that named no card ("This command must input card id.", then its
# usage text): nothing of any device is in it
_NO_CARD_RE = re.compile(r"^\s*This command must input card id\.\s*$")
# hccn_tool -g -context's command (the HCCN Tool reference's syntax: "hccn_tool -g -context -i
# <dev_id> -d <udma_dev_name> -aeqc <aeq_id>", and "-ceqc <ceq_id>" for a CEQ): its options in
# any order ("-i 0 -g -context ..."), a loop's variable where a number would stand ("-i $i"); the
# command ends at a ";", "|" or "&" (a loop's "; done")
_CONTEXT_CMD_RE = re.compile(r"\bhccn_tool\b[^\n;|&]{0,200}?[ \t]-context\b")
_CONTEXT_END_RE = re.compile(r"[;|&\n]")
_CONTEXT_VALUE = r"\d+|\$\{?\w{1,40}\}?"
_CONTEXT_DEV_RE = re.compile(rf"[ \t]-i[ \t]+(?P<dev>{_CONTEXT_VALUE})")
_CONTEXT_UDMA_RE = re.compile(r"[ \t]-d[ \t]+(?P<udma>\$?\{?\w{1,40}\}?)")
_CONTEXT_QUEUE_RE = re.compile(rf"[ \t]-(?P<what>[a-z]{{1,8}}eqc)[ \t]+(?P<n>{_CONTEXT_VALUE})")
_CONTEXT_HEAD_RE = re.compile(r"^[ \t>]*offset[ \t]+(?P<queue>\w+)[ \t]*$")
_CONTEXT_ROW_RE = re.compile(r"^[ \t>]*\d+[ \t]+[0-9a-fA-F]{8}[ \t]*$")
CONTEXT_NOTES_MAX = 8
"""How many hccn_tool -context commands get a note each; the rest are summed in one."""
_ROOT_ONLY_RE = re.compile(r"^\s*This command can be executed only by the root user\.\s*$")
# (a command's arguments to the line's end, stripped after: a lazy match before "\s*$" retried
# the line's rest from each of its spaces)
_NPU_SMI_ANY_RE = re.compile(r"\bnpu-smi\s+(?P<args>\S[^\n]*)")
_NPU_DIR_RE = re.compile(r"(?<![^/])NPU-?\d+(?![^/])")
_EXPORTING_RE = re.compile(
    r"^\s*(?:[\d-]+ [\d:.]+ )?Start exporting logs and files to path: (?P<path>\S+)"
)
# Ascend 950's "hccn_tool -g -cfg_recovery -i N": "config status:NONE" (its HCCN Tool reference,
# querying the configuration recovery status: NONE when no recovery was started)
_DMI_VERSION_RE = re.compile(r"^\s*(?P<tool>ascend-dmi|msnpureport) version:\s*(?P<v>\S+)\s*$")
_DMI_USAGE_RE = re.compile(r"^\s*Usage: ascend-dmi <option>")
_CFG_RECOVERY_RE = re.compile(r"^\s*config status:\s*(?P<status>[A-Z]+)\s*$")
# (npu-smi info -t hccs -R's answer on a device without HCCS: "This device does not support
# hccs topo.")
_NOT_SUPPORTED_RE = re.compile(
    r"^\s*This device does not support (?:querying (?P<what>[\w-]+)|(?P<what2>hccs topo))\."
)
_NPU_SMI_QUERY_RE = re.compile(r"\bnpu-smi\s+info\s+-t\s+(?P<type>[\w-]+)\s+-i\s+(?P<dev>\d+)")
_NO_PROCESS_RE = re.compile(r"^\|\s*No running processes found in NPU (?P<npu>\d+)\s*\|")
# the process table copied alone: its first row, or the border over it, or its header row over
# that (the chip table above it left out; a whole npu-smi info table starts with its own header border and "| npu-smi ..." row)
_PROCESS_TABLE_ALONE_RE = re.compile(
    r"\A\s*" + _PROCESS_HEAD + r"\|\s*No running processes found in NPU \d+"
)


def process_table_alone(text: str) -> bool:
    """Whether ``text`` is npu-smi info's process table copied without the chip table above it
    (from its header row, its "+===...+" border or its first "No running processes" row)."""
    return _PROCESS_TABLE_ALONE_RE.match(text) is not None


_PROCESS_RE = re.compile(r"^\s*device hccp process:\s*(?P<state>exist|not exist)\s*$")
_DEVICE_ARG_RE = re.compile(r"\bhccn_tool\b.*?-i\s+(?P<dev>\d+)")
_COUNT_RE = re.compile(r"^\s*(?P<what>[a-z_]+)_cnt\s*:\s*(?P<n>\d+)\s*$")
_CONFIG_HEAD_RE = re.compile(
    r"^\|\s*Device ID:\s*(?P<dev>\d+)\s*\|\s*Current Configuration\s*\|", re.IGNORECASE
)
# Ascend 950's "hccn_tool -s -cfg_recovery ..." over several devices: "device 0 recovery success",
# one line a device, then "Cmd executed successfully!"
_RECOVERY_RE = re.compile(r"^\s*device (?P<dev>\d+) recovery (?P<how>success|fail(?:ed)?)\s*$")
# asys's own messages (oam-tools asys: "[ASYS] [ERROR]: Generating the stackcore bin file timeout.
# ...", "[ASYS] [INFO]: Configuration successfully restore, on device 0."): the tool's, not a
# device's
_ASYS_SAID_RE = re.compile(r"^\s*\[ASYS\] \[(?P<level>ERROR|INFO|WARNING)\]:\s*(?P<what>\S.*)$")
_CONFIG_ROW_RE = re.compile(r"^\|\s*(?P<key>[^|]*?\S)\s*\|\s*(?P<value>[^|]*?\S)\s*\|\s*$")


# acl_copy_bench's lines (vllm-hust-dev-hub's results, acl-copy-all8-h2d.txt): its head, a line a
# device, the two aggregates (each key=value, one space between; bounded spans)
_ACL_COPY_HEAD_RE = re.compile(
    r"^\s*mode=(?P<mode>[a-z0-9]{1,16})\s+bytes_per_device=(?P<bytes>\d{1,20})\s+"
    r"iters=(?P<iters>\d{1,12})\s+devices=(?P<devices>[\d,]{1,400})\s*$"
)
_ACL_COPY_DEVICE_RE = re.compile(
    r"^\s*per_device\s+device=(?P<dev>\d{1,5})\s+seconds=(?P<s>\d{1,12}(?:\.\d{1,12})?)\s+"
    r"bandwidth_GBps=(?P<gbps>\d{1,12}(?:\.\d{1,12})?)\s*$"
)
_ACL_COPY_AGGREGATE_RE = re.compile(
    r"^\s*aggregate_(?P<how>sum|wall)_GBps=(?P<gbps>\d{1,12}(?:\.\d{1,12})?)\s*$"
)
_ACL_COPY_MODES = {"h2d": "host to device"}
"""The copy direction its mode names, where known (the results name the run "acl-copy-all8-h2d"
beside its host-to-device figures); any other mode is shown as printed."""


def _acl_copy_notes(text: str) -> list[ParseWarning]:
    """acl_copy_bench's run: one note with its mode, size, every device's GB/s (the range, the
    slowest and fastest named) and its aggregates, as printed (no reference: not judged)."""
    head: tuple[int, re.Match[str]] | None = None
    devices: list[tuple[int, int, float]] = []  # (line, device, GB/s)
    aggregates: dict[str, tuple[int, float]] = {}  # sum / wall -> (line, GB/s)
    for no, line, _ in numbered_lines(text):
        if "mode=" in line and (h := _ACL_COPY_HEAD_RE.match(line)):
            head = (no, h)
        elif "per_device" in line and (d := _ACL_COPY_DEVICE_RE.match(line)):
            devices.append((no, int(d.group("dev")), float(d.group("gbps"))))
        elif "aggregate_" in line and (a := _ACL_COPY_AGGREGATE_RE.match(line)):
            aggregates[a.group("how")] = (no, float(a.group("gbps")))
    if not devices:
        return []
    said = "ACL copy probe"
    if head is not None:
        mode = head[1].group("mode")
        size_bytes = int(head[1].group("bytes"))
        size = f"{size_bytes // 2**20} MiB" if size_bytes % 2**20 == 0 else f"{size_bytes} bytes"
        listed = [d for d in head[1].group("devices").split(",") if d]
        said += (
            f" {mode}{f' ({_ACL_COPY_MODES[mode]})' if mode in _ACL_COPY_MODES else ''}, {size} a device, "
            f"{head[1].group('iters')} iterations, devices {','.join(listed)} (line {head[0]})"
        )
    slow = min(devices, key=lambda d: d[2])
    fast = max(devices, key=lambda d: d[2])
    said += (
        f": {len(devices)} device(s), {slow[2]:.2f}-{fast[2]:.2f} GB/s each (lowest device "
        f"{slow[1]}, line {slow[0]}; highest device {fast[1]}, line {fast[0]}) "
        f"(lines {devices[0][0]}-{devices[-1][0]})"
    )
    if "sum" in aggregates:
        said += f"; aggregate {aggregates['sum'][1]:.2f} GB/s summed (line {aggregates['sum'][0]})"
    if "wall" in aggregates:
        said += f"; {aggregates['wall'][1]:.2f} GB/s by wall clock (line {aggregates['wall'][0]})"
    said += "; figures as printed: no reference figure in the output, not judged"
    return [ParseWarning(line=devices[0][0], message=said, skipped=False)]


RESULT_LINES = 2
"""How far under npu-smi's Status line its Message stands."""
_STATUS_RE = re.compile(
    r"^\s*Status\s*:\s*(?P<status>\S.*?)(?:\s+Message\s*:\s*(?P<said>\S.*?))?\s*$"
)
_MESSAGE_RE = re.compile(r"^\s*Message\s*:\s*(?P<said>\S.*?)\s*$")
_TRANSFER_RE = re.compile(r"^\s*Transfer\s*:\s*(?P<how>\S+)\s*$")
_NPU_SMI_SET_RE = re.compile(r"\bnpu-smi\s+(?P<verb>set|upgrade)\s+(?P<args>-\S[^\n]*)")
# npu-smi upgrade -b <component> -i N: the component's version ("Version : 23.3.13"), asked
# before and after an upgrade (the npu-smi guide's "querying the version of an upgradable
# component")
_UPGRADE_QUERY_RE = re.compile(r"\bnpu-smi\s+upgrade\s+-b\s+(?P<what>[\w-]+)\s+-i\s+(?P<dev>\d+)")
_COMPONENT_VERSION_RE = re.compile(r"^[ \t]*Version[ \t]*:[ \t]*(?P<v>\S+)[ \t]*$")
_VRD_NAME_RE = re.compile(r"^\s*VRD Name\s*:\s*(?P<name>\S+)")
_VRD_VERSION_RE = re.compile(r"^\s*(?P<which>Current|Target) Version\s*:\s*(?P<v>\S+)")
_NET_VERSION_RE = re.compile(r"^\s*Network (?P<which>Driver|Firmware) Version:\s*(?P<v>\S+)")
_CREDIT_RE = re.compile(
    r"^\s*link_(?P<what>alloc|cur_used)_(?P<kind>port_share|vl_pri|pri)_credit(?:\((?P<vl>\d+)\))?:"
    r"(?P<n>\d+)"
)
_RES_HEAD_RE = re.compile(r"^\*{3,}(?P<res>RES_\w+?)\*{3,}\s*$")
_RES_STATE_RE = re.compile(r"^\s*state\s*:\s*(?P<state>\S.*?)\s*$")
# pdsh's "node1: " before each line of a host's answer (dshbak(1)), the host it ran on
_HOST_PREFIX_RE = re.compile(rf"^(?P<host>{PDSH_HOST}): ")
_COMPONENT_GOT_RE = re.compile(
    r"^[ \t>]*Get component version\((?P<v>[^)\n]{1,80})\) succeed for deviceId\((?P<dev>\d{1,5})\)"
    r",[ \t]*componentType\((?P<type>\d{1,5})\)"
)
# its JSON beside it names the component (the JSON as printed: the name and version unquoted)
_COMPONENT_JSON_RE = re.compile(
    r'^[ \t>]*\{[ \t]*"device_id"[ \t]*:[ \t]*(?P<dev>\d{1,5})[ \t]*,[ \t]*"component"[ \t]*:'
    r'[ \t]*"?(?P<name>[\w-]{1,40})"?[ \t]*,[ \t]*"version"[ \t]*:[ \t]*"?(?P<v>[^"\s}]{1,80})'
)
_HCCN_SET_RE = re.compile(r"\bhccn_tool\s+-s\s+-(?P<what>\w+)")
_HCCN_SET_DEVICE_RE = re.compile(r"\s-i\s+(?P<dev>\d+)\b")
_CMD_DONE_RE = re.compile(r"^\s*Cmd executed successfully!\s*$")
_TLS_PROMPT_RE = re.compile(rf"^[ \t>]*{_TLS_PROMPT}")
_TLS_KEY_REMINDER_RE = re.compile(rf"^[ \t>]*{_TLS_KEY_REMINDER}")


def _tool_results(text: str) -> list[ParseWarning]:
    """npu-smi set/upgrade results, VRD versions and hccn_tool -version, -credit, -show_res and
    -s answers: a note each."""
    notes: list[ParseWarning] = []
    command = ""
    blocks: list[dict[str, str | int]] = []  # each result: its command, line, status, words
    vrds: dict[str, dict[str, str]] = {}
    vrd_line = 0
    vrd_name = ""
    versions: dict[str, str] = {}
    version_line = 0
    credits: dict[
        tuple[str, str], list[int]
    ] = {}  # (alloc or cur_used, port_share or vl) -> counts
    credit_line = 0
    resource: tuple[int, str] | None = None
    hccn_set: tuple[int, str] | None = None
    set_device: str | None = None  # the device hccn_tool -s named (-i N), when its line is copied
    key_reminder: int | None = None  # the line of -s -tls's private-key reminder
    queried: tuple[str, str] | None = None  # the component and device -b last asked of
    component_versions: dict[tuple[str, str], list[tuple[int, str]]] = {}
    for no, line, _ in numbered_lines(text):
        if "npu-smi" in line and (c := _NPU_SMI_SET_RE.search(line)):
            command = f"npu-smi {c.group('verb')} {c.group('args').rstrip()}"
            blocks.append({"command": command, "line": no})  # (a new command, a new result)
            q = _UPGRADE_QUERY_RE.search(line)
            queried = (q.group("what"), q.group("dev")) if q else None
        if queried and (cv := _COMPONENT_VERSION_RE.match(line)):
            component_versions.setdefault(queried, []).append((no, cv.group("v")))
            queried = None
        if "hccn_tool" in line and (h := _HCCN_SET_RE.search(line)):
            hccn_set = (no, h.group("what"))
            set_device = d.group("dev") if (d := _HCCN_SET_DEVICE_RE.search(line)) else None
            key_reminder = None
        elif "pass phrase" in line and _TLS_PROMPT_RE.match(line):
            # (-s -tls asks for the private key's pass phrase: the answer is -tls's even where
            # its command was not copied)
            if hccn_set is None:
                hccn_set, set_device = (no, "tls"), None
        elif "private key" in line and _TLS_KEY_REMINDER_RE.match(line):
            if hccn_set is None:
                hccn_set, set_device = (no, "tls"), None
            key_reminder = no
            continue
        if st := _STATUS_RE.match(line):
            if not blocks or "status" in blocks[-1]:
                blocks.append({"command": command, "line": no})
            blocks[-1].update(status=st.group("status"), line=no)
            if st.group("said"):
                blocks[-1]["said"] = st.group("said")
        elif m := _MESSAGE_RE.match(line):
            # (its words before the status, "resetting ...", are progress, not the result; the
            # result's own words stand right under its status)
            if (
                blocks
                and no - int(blocks[-1]["line"]) <= RESULT_LINES
                and ("status" in blocks[-1] or not m.group("said").endswith("..."))
            ):
                blocks[-1]["said"] = m.group("said")
        elif t := _TRANSFER_RE.match(line):
            if not blocks:
                blocks.append({"command": command, "line": no})
            blocks[-1]["transfer"] = t.group("how")
        elif v := _VRD_NAME_RE.match(line):
            vrd_line = vrd_line or no
            vrd_name = v.group("name")
            vrds[vrd_name] = {}
        elif vrd_name and (vv := _VRD_VERSION_RE.match(line)):
            vrds[vrd_name][vv.group("which")] = vv.group("v")
        elif nv := _NET_VERSION_RE.match(line):
            version_line = version_line or no
            versions[nv.group("which").lower()] = nv.group("v")
        elif cr := _CREDIT_RE.match(line):
            credit_line = credit_line or no
            kind = "port_share" if cr.group("kind") == "port_share" else "vl"
            credits.setdefault((cr.group("what"), kind), []).append(int(cr.group("n")))
        elif rh := _RES_HEAD_RE.match(line):
            resource = (no, rh.group("res"))
        elif resource is not None and (rs := _RES_STATE_RE.match(line)):
            notes.append(
                ParseWarning(
                    line=resource[0],
                    message=f"hccn_tool -show_res: {resource[1]} state {rs.group('state')}"
                    + ("" if "READY" in rs.group("state") else " (not READY)"),
                    skipped=False,
                )
            )
            resource = None
        elif hccn_set is not None and _CMD_DONE_RE.match(line):
            what = f"hccn_tool -s -{hccn_set[1]}" + (
                f" (device {set_device})" if set_device is not None else ""
            )
            done = (
                "the TLS certificate replacement was accepted"
                if hccn_set[1] == "tls"
                else "the setting was accepted"
            )
            notes.append(
                ParseWarning(
                    line=no,
                    message=f"{what}: {done} ('Cmd executed successfully!'); "
                    + (
                        f"its '[WARNING] Please delete the private key file' (line "
                        f"{key_reminder}) is the tool's reminder to delete the ciphertext "
                        "private key once it is set, not a fault; "
                        if key_reminder is not None
                        else ""
                    )
                    + "the tool's own answer, nothing to judge",
                    skipped=False,
                )
            )
            hccn_set, set_device, key_reminder = None, None, None
    for b in blocks:
        # a status with its words or a transfer: npu-smi's result (a lone "Status:" is another
        # tool's field)
        if not (("status" in b and "said" in b) or "transfer" in b):
            continue
        status, transfer = str(b.get("status", "")), str(b.get("transfer", "success"))
        ok = not re.search(r"fail|error", status, re.I) and transfer == "success"
        notes.append(
            ParseWarning(
                line=int(b["line"]),
                message=f"{b['command'] or 'npu-smi set/upgrade'}: "
                + ", ".join(
                    x
                    for x in (
                        f"status {status}" if status else "",
                        f"transfer {b['transfer']}" if "transfer" in b else "",
                    )
                    if x
                )
                + (f": {b['said']}" if b.get("said") else "")
                + ("" if ok else " (the command FAILED)"),
                skipped=False,
            )
        )
    if vrds:
        behind = [
            n
            for n, v in vrds.items()
            if "Current" in v and "Target" in v and v["Current"] != v["Target"]
        ]
        unknown = [n for n, v in vrds.items() if not ("Current" in v and "Target" in v)]
        notes.append(
            ParseWarning(
                line=vrd_line,
                message=f"npu-smi upgrade -b vrd: {len(vrds)} VRD(s), "
                + (
                    "each at its target version"
                    if not behind and not unknown
                    else f"{', '.join(behind)} not at the target version"
                    if behind
                    else "those with both versions at their target"
                )
                + (f" ({', '.join(unknown)}: a version not in the copy)" if unknown else ""),
                skipped=False,
            )
        )
    if versions:
        notes.append(
            ParseWarning(
                line=version_line,
                message="hccn_tool -version: "
                + ", ".join(f"network {k} {v}" for k, v in versions.items()),
                skipped=False,
            )
        )
    if credits:
        share, share_used = (
            credits.get(("alloc", "port_share")),
            credits.get(("cur_used", "port_share")),
        )
        vl, vl_used = credits.get(("alloc", "vl"), []), credits.get(("cur_used", "vl"), [])
        notes.append(
            ParseWarning(
                line=credit_line,
                message="hccn_tool -credit: "
                + (
                    f"port share credit {share[0]} allocated, "
                    f"{share_used[0] if share_used else '?'} in use; "
                    if share
                    else ""
                )
                + f"{len(vl)} VL priority credit(s) allocated, {sum(1 for u in vl_used if u)} in use",
                skipped=False,
            )
        )
    for (what, dev), seen in component_versions.items():
        said = [v for _, v in seen]
        notes.append(
            ParseWarning(
                line=seen[0][0],
                message=f"npu-smi upgrade -b {what}: NPU {dev}'s {what} version {said[0]}"
                + (
                    f", then {said[-1]} when asked again"
                    + (" (the upgrade took)" if said[-1] != said[0] else " (unchanged)")
                    if len(said) > 1
                    else ""
                ),
                skipped=False,
            )
        )
    return notes


def _upgrade_tool_notes(text: str) -> list[ParseWarning]:
    """upgrade-tool's component versions: a note per host and device of its firmware components
    and their versions, and one where the hosts' versions of a component differ; a line that
    says a query failed is quoted as written. A host is pdsh's prefix, else the prompt of the
    command above the lines: each run of the command answers for its own host's devices, so a
    device id names a device only with its host."""
    devices: dict[tuple[str, str], tuple[int, list[str]]] = {}  # (host, device) -> line, said
    failed: list[tuple[int, str]] = []
    host = ""
    runs = 0
    for no, line, _ in numbered_lines(text):
        if pdsh := _HOST_PREFIX_RE.match(line):
            host, line = pdsh.group("host"), line[pdsh.end() :]
        elif "upgrade-tool" in line and not _COMPONENT_GOT_RE.match(line):
            # (another run of the command: a prompt names its host; without one, a later run is
            # told apart by its line, not merged into the first's devices)
            runs += 1
            prompt = MARKED_PROMPT_HOST_RE.match(line)
            host = prompt.group("host") if prompt else "" if runs == 1 else f"the run of line {no}"
            continue
        if got := _COMPONENT_GOT_RE.match(line):
            said = devices.setdefault((host, got.group("dev")), (no, []))[1]
            said.append(f"componentType {got.group('type')} {got.group('v')}")
        elif (js := _COMPONENT_JSON_RE.match(line)) and (host, js.group("dev")) in devices:
            said = devices[host, js.group("dev")][1]
            # (the JSON names the component the line above gave by its type number)
            if said and said[-1].startswith("componentType "):
                said[-1] = f"{js.group('name')} {js.group('v')} ({said[-1].rsplit(' ', 1)[0]})"
        elif "component" in line.lower() and "fail" in line.lower():
            failed.append((no, line.strip()[:200]))
    # (hosts named where the copy holds more than one: one host's device ids name its devices)
    named = len({where for where, _ in devices}) > 1
    notes = [
        ParseWarning(
            line=at,
            message="upgrade-tool --version: "
            + (f"{where or 'the first run'}: " if named else "")
            + f"NPU {dev}'s firmware component(s): "
            + ", ".join(said)
            + "; the versions it runs, not judged",
            skipped=False,
        )
        for (where, dev), (at, said) in devices.items()
    ]
    notes += _host_drift(devices)
    notes += [
        ParseWarning(line=no, message=f"upgrade-tool: a query that failed, as written: {quoted}")
        for no, quoted in failed
    ]
    return notes


def _host_drift(devices: dict[tuple[str, str], tuple[int, list[str]]]) -> list[ParseWarning]:
    """A note per component whose version differs between the hosts of the copy (a cluster's
    nodes on different firmware), each version with the hosts that run it."""
    if len({where for where, _ in devices}) < 2:
        return []
    # component ("nve", or "componentType 0" where no JSON named it) -> version -> hosts
    versions: dict[str, dict[str, list[str]]] = {}
    first: dict[str, int] = {}
    for (where, _), (at, said) in devices.items():
        for one in said:
            name, version = _component_of(one)
            hosts = versions.setdefault(name, {}).setdefault(version, [])
            if where not in hosts:
                hosts.append(where)
            first.setdefault(name, at)
    return [
        ParseWarning(
            line=first[name],
            message=f"upgrade-tool --version: the hosts' {name} firmware differs: "
            + ", ".join(
                f"{version} on {', '.join(h or 'the first run' for h in hosts)}"
                for version, hosts in by_version.items()
            ),
            skipped=False,
        )
        for name, by_version in versions.items()
        if len(by_version) > 1
    ]


def _component_of(said: str) -> tuple[str, str]:
    """A component's name and version from its note's words: "nve 7.5.0.2.220 (componentType 0)"
    or, where no JSON named it, "componentType 0 7.5.0.2.220"."""
    if said.startswith("componentType "):
        _, number, version = said.split(" ", 2)
        return f"componentType {number}", version
    name, version, _ = said.split(" ", 2)
    return name, version


def _context_of(line: str) -> tuple[str, str] | None:
    """The NPU an hccn_tool -context command line names ("NPU 0") and what it asks for ("NPU 0's
    udma3 aeqc 0 context"), or None for any other line."""
    if "hccn_tool" not in line or "-context" not in line:
        return None
    if (cmd := _CONTEXT_CMD_RE.search(line)) is None:
        return None
    end = _CONTEXT_END_RE.search(line, cmd.end())
    args = line[cmd.start() : end.start() if end else len(line)]
    dev, udma, queue = (
        _CONTEXT_DEV_RE.search(args), _CONTEXT_UDMA_RE.search(args), _CONTEXT_QUEUE_RE.search(args)
    )  # fmt: skip
    what = " ".join(
        said
        for said in (
            udma.group("udma") if udma else "",
            f"{queue.group('what')} {queue.group('n')}" if queue else "",
        )
        if said
    )
    what = f"{what} context" if what else "context"
    if dev is None:
        return "an NPU", f"the {what} of an NPU the command does not name"
    if dev.group("dev").isdigit():
        return f"NPU {dev.group('dev')}", f"NPU {dev.group('dev')}'s {what}"
    return (
        f"the NPU(s) of {dev.group('dev')}",
        f"the {what} of the NPU(s) a loop names ({dev.group('dev')})",
    )


def _context_notes(text: str) -> list[ParseWarning]:
    """A note for each hccn_tool -context command with the register words of the dumps under it
    (each dump an "offset  aeq0" heading over its rows), and for each dump whose command the copy
    left out, up to ``CONTEXT_NOTES_MAX``; one for the rest."""
    dumps: list[tuple[int, tuple[str, str], list[int]]] = []  # (line, asked, words a dump)
    bare = False  # the last dump's command is not in the copy
    for no, line, _ in numbered_lines(text):
        if (asked := _context_of(line)) is not None:
            dumps.append((no, asked, []))
            bare = False
        elif head := _CONTEXT_HEAD_RE.match(line):
            if dumps and not bare:
                dumps[-1][2].append(0)
                continue
            # a dump whose command was not copied: its heading alone says which queue it is
            queue = head.group("queue")
            dumps.append((no, ("an NPU", f"the {queue} context of an NPU the copy does not name "
                               "(its command is not in the copy)"), [0]))  # fmt: skip
            bare = True
        elif dumps and dumps[-1][2] and _CONTEXT_ROW_RE.match(line):
            dumps[-1][2][-1] += 1
    dumps = [d for d in dumps if sum(d[2])]
    notes = [
        ParseWarning(
            line=no,
            message=f"hccn_tool -context: {asked[1]}, "
            + (
                f"{len(words)} dumps of {' + '.join(map(str, words))} register word(s)"
                if len(words) > 1
                else f"{words[0]} register word(s)"
            )
            + ": raw registers, no health or fault reading in them",
            skipped=False,
        )
        for no, asked, words in dumps[:CONTEXT_NOTES_MAX]
    ]
    if rest := dumps[CONTEXT_NOTES_MAX:]:
        npus = sorted(
            {asked[0] for _, asked, _ in rest},
            key=lambda who: (0, int(who[4:]), who) if who[4:].isdigit() else (1, 0, who),
        )
        notes.append(
            ParseWarning(
                line=rest[0][0],
                message=f"hccn_tool -context: {len(rest)} more command(s), of "
                f"{', '.join(npus[:16])}{' ...' if len(npus) > 16 else ''}: "
                f"{sum(sum(w) for _, _, w in rest)} register word(s) in all; raw registers, no "
                "health or fault reading in them",
                skipped=False,
            )
        )
    return notes


def parse(text: str) -> list[ParseWarning]:
    """A note for each answer in ``text``; ParseError when none is there."""
    notes: list[ParseWarning] = []
    device: int | None = None
    counts: list[str] = []
    counts_line = 0
    config: tuple[int, int, dict[str, str]] | None = None  # (line, device, settings)
    asked: re.Match[str] | None = None  # the npu-smi query above its answer
    idle: list[str] = []
    idle_line = 0
    last_npu_smi = ""  # the last npu-smi command line above an answer
    exported: list[str] = []  # npu-smi set -t sys-log-dump's export paths, a line a device
    exported_line = 0
    for no, line, _ in numbered_lines(text):
        if "No running" in line and (np := _NO_PROCESS_RE.match(line.strip())):
            idle.append(np.group("npu"))
            idle_line = idle_line or no
            continue
        if "hccn_tool" in line and (d := _DEVICE_ARG_RE.search(line)):
            device = int(d.group("dev"))
        if "npu-smi" in line and (q := _NPU_SMI_QUERY_RE.search(line)):
            asked = q
        if rc := _RECOVERY_RE.match(line):
            notes.append(
                ParseWarning(
                    line=no,
                    message=f"hccn_tool -cfg_recovery: device {rc.group('dev')} network "
                    f"configuration recovery {'succeeded' if rc.group('how') == 'success' else 'FAILED'}"
                    + ("" if rc.group("how") == "success" else " (restore its hccn.conf settings)"),
                    skipped=False,
                )
            )
            continue
        if "[ASYS]" in line and (said := _ASYS_SAID_RE.match(line)):
            notes.append(
                ParseWarning(
                    line=no,
                    message=f"asys {said.group('level')}: {said.group('what').strip()[:240]}"
                    + (
                        " (asys's own failure, not a device's)"
                        if said.group("level") == "ERROR"
                        else ""
                    ),
                    skipped=False,
                )
            )
            continue
        if dmi := _DMI_VERSION_RE.match(line):
            notes.append(
                ParseWarning(
                    line=no,
                    message=f"{dmi.group('tool')} {dmi.group('v')} (its version; nothing of a "
                    "device)",
                    skipped=False,
                )
            )
            continue
        if _DMI_USAGE_RE.match(line):
            notes.append(
                ParseWarning(
                    line=no,
                    message="ascend-dmi's usage text: its options, nothing of a device",
                    skipped=False,
                )
            )
            continue
        if "npu-smi" in line and (any_cmd := _NPU_SMI_ANY_RE.search(line)):
            last_npu_smi = f"npu-smi {any_cmd.group('args').rstrip()}"
        if _ROOT_ONLY_RE.match(line):
            notes.append(
                ParseWarning(
                    line=no,
                    message=f"{last_npu_smi or 'npu-smi'}: refused, the command runs only as root "
                    "(the user was not root): nothing was set or read, no device's state is in it",
                    skipped=False,
                )
            )
            continue
        if "Start exporting" in line and (ex := _EXPORTING_RE.match(line)):
            exported.append(ex.group("path"))
            exported_line = exported_line or no
            continue
        if _NO_CARD_RE.match(line):
            notes.append(
                ParseWarning(
                    line=no,
                    message="npu-smi refused the query: no card id (-i) was given, so it "
                    "answered with its usage text; nothing of any device is in it",
                    skipped=False,
                )
            )
            continue
        if cfg := _CFG_RECOVERY_RE.match(line):
            on = f"device {device}" if device is not None else "the device (not named)"
            notes.append(
                ParseWarning(
                    line=no,
                    message=f"hccn_tool -g -cfg_recovery: {on} configuration recovery status "
                    f"{cfg.group('status')}"
                    + ("" if cfg.group("status") != "NONE" else " (no recovery was started)")
                    + "; not judged",
                    skipped=False,
                )
            )
            continue
        if (ns := _NOT_SUPPORTED_RE.match(line)) and ns.group("what") != "topo":
            on = f"NPU {asked.group('dev')}" if asked is not None else "the device"
            what = ns.group("what") or "hccs (its topology, -R)"
            notes.append(
                ParseWarning(
                    line=no,
                    message=f"npu-smi info -t {what}: {on} does not serve this "
                    "query (npu-smi's own answer): it has nothing of that kind to report; not "
                    "a fault",
                    skipped=False,
                )
            )
            continue
        if p := _PROCESS_RE.match(line):
            on = f"device {device}" if device is not None else "the device (not named)"
            there = "runs" if p.group("state") == "exist" else "does not run"
            notes.append(
                ParseWarning(
                    line=no,
                    message=f"hccn_tool -g -process: {on} {there} its hccp_service process "
                    f"('{p.group('state')}'); not judged",
                    skipped=False,
                )
            )
        elif c := _COUNT_RE.match(line):
            counts_line = counts_line or no
            counts.append(f"{c.group('what')} {c.group('n')}")
        elif h := _CONFIG_HEAD_RE.match(line):
            config = (no, int(h.group("dev")), {})
        elif config is not None and (r := _CONFIG_ROW_RE.match(line)):
            config[2][r.group("key")] = r.group("value")
    if counts:
        notes.append(
            ParseWarning(
                line=counts_line,
                message=f"hccn_tool -show_list: a UDMA device's resource counts ({', '.join(counts)}); "
                "a resource list, no link or port state: not judged",
                skipped=False,
            )
        )
    if config is not None:
        at, dev, settings = config
        levels = ", ".join(
            f"{k} {v}" for k, v in settings.items() if k in ("Global Level", "Event Level")
        )
        notes.append(
            ParseWarning(
                line=at,
                message=f"device {dev}'s configuration table (msnpureport or asys config "
                f"--get): {len(settings)} setting(s) read"
                + (
                    f" ({levels})"
                    if levels
                    else f" ({', '.join(f'{k} {v}' for k, v in list(settings.items())[:4])})"
                )
                + "; settings, not errors: not judged",
                skipped=False,
            )
        )
    if "-context" in text or "offset" in text:
        notes.extend(_context_notes(text))
    if exported:
        # (its prompt answered: the export started for each device it names, a line each)
        # (each path's own device folder, "NPU-0", wherever it stands in the path)
        devices = [d.group(0) for p in exported if (d := _NPU_DIR_RE.search(p))]
        notes.append(
            ParseWarning(
                line=exported_line,
                message=f"npu-smi set -t sys-log-dump: the system-log export started for "
                f"{len(exported)} device(s)"
                + (f" ({', '.join(devices)})" if devices else "")
                + f" under {exported[0].split('/NPU')[0] or '/'}"
                "; a log collection, nothing of a device's health",
                skipped=False,
            )
        )
    notes.extend(_tool_results(text))
    if "per_device" in text:
        notes.extend(_acl_copy_notes(text))
    if "Get component version" in text:
        notes.extend(_upgrade_tool_notes(text))
    if idle and (text.lstrip().startswith("|") or _PROCESS_TABLE_ALONE_RE.match(text)):
        notes.append(
            ParseWarning(
                line=idle_line,
                message=f"npu-smi info's process table (its chip table not in the copy): no "
                f"process running on NPU {', '.join(idle)}",
                skipped=False,
            )
        )
    if not notes:
        raise ParseError(
            "no hccn_tool -g -process, -context, -show_list or -cfg_recovery, msnpureport or "
            "asys config, or asys message answer"
        )
    return notes
