"""``lspci -vv``'s PCIe link lines of a device: what its link can do and what it runs at.

lspci (pciutils ls-caps.c) prints a PCI Express capability's ``LnkCap: Port #0, Speed 16GT/s,
Width x16, ...`` (what the link can do) and ``LnkSta: Speed 2.5GT/s (downgraded), Width x16
(ok)`` (what it trained to; pciutils 3.7 and later mark each figure ``(ok)`` or ``(downgraded)``
against the capability). A narrower link than the device's is a slot, riser or card fault and
caps every transfer; a slower one on a GPU may be the GPU's own power saving: nvidia-smi's
documentation says the current PCIe generation "may be reduced when the GPU is not in use", so
a speed read at idle says nothing until it is read under load.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from advisor.parsers import ParseError, numbered_lines

# lspci's heading after the name: " (rev 01)", and -v's " (prog-if 00 [Normal decode])" (pciutils
# lspci.c show_terse): a stepping, not another model
# (the mark alone: blanks before it are stripped after, a pattern led by them would try each blank)
_REVISION_RE = re.compile(r"\((?:rev|prog-if) [^()\n]*\)")
SIGNATURE = (
    r"^[ \t]*LnkSta:[ \t]*Speed [\d.]+GT/s"
    # a script's loop that labels each device's grepped line with its RDMA device ("for dev in
    # $(mst status -v ...); do echo "MLX Number: $dev  $(lspci -vv -s $bdf | grep LnkSta)"")
    r"|^[^\n]{1,120}?[ \t]LnkSta:[ \t]*Speed [\d.]+GT/s"
)
# that label: the words before "LnkSta:" on its line, the RDMA device among them (rdma-core's
# kernel names: mlx5_0, mlx4_1, irdma0, bnxt_re0, hns_0, erdma_0, efa_0, qedr0, ionic_0)
_LABEL_RE = re.compile(r"^(?P<label>[^\n]{1,120}?)[ \t]+(?=LnkSta:)")
_RDMA_DEV_RE = re.compile(
    r"(?<![\w.-])(?P<dev>(?:mlx[45]|hns|bnxt_re|irdma|erdma|efa|qedr|ionic|i40iw)_?\d+)(?![\w.-])"
)
# (a script's label before the heading it prints, "Card: 01:00.0 VGA compatible controller: ...",
# or pdsh's "node1: ": one word and a colon, then a space, which a BDF's own colon never has)
_DEVICE_RE = re.compile(
    r"^(?:[A-Za-z][\w.-]{0,63}:[ \t]+)?(?P<bdf>(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]) (?P<what>\S.*?)\s*$"
)
_SELECT_RE = re.compile(
    r"\blspci\b[^\n]{0,200}?\s-s\s*(?P<bdf>(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{1,2}:[0-9a-fA-F]{1,2}\.[0-7])\b"
)
# an lspci command line (a prompt's, a script's, a loop's): it starts another listing
_LSPCI_CMD_RE = re.compile(r"(?<![\w.-])lspci(?=[ \t\"'|;)]|$)")
_CAP_RE = re.compile(r"^\s*LnkCap:.*?\bSpeed (?P<speed>[\d.]+)GT/s.*?\bWidth x(?P<width>\d+)")
_STA_RE = re.compile(
    r"^\s*LnkSta:\s*Speed (?P<speed>[\d.]+)GT/s(?:\s*\((?P<speed_said>ok|downgraded)\))?"
    r".*?\bWidth x(?P<width>\d+)(?:\s*\((?P<width_said>ok|downgraded)\))?"
)
# the PCI Express capability's port type (pciutils ls-caps.c cap_express: "Express (v2) Root
# Port (Slot+)", "Downstream Port (Slot-)", "Upstream Port", "Endpoint", "Legacy Endpoint", ...)
_EXPRESS_RE = re.compile(
    r"^\s*Capabilities: \[[0-9a-fA-F]+\] Express (?:\(v\d+\) )?(?P<type>[A-Za-z/ -]+?)(?: \(|,|$)"
)
# the flags lspci prints of the link (pciutils ls-caps.c cap_express_link: "ClockPM- Surprise-
# LLActRep+ ..." under LnkCap, "TrErr- Train- SlotClk+ DLActive- ..." under LnkSta or on its line)
# and the slot's presence (cap_express_slot: "SltSta:\tStatus: AttnBtn- PowerFlt- MRL- CmdCplt-
# PresDet- Interlock-"; SltCtl's "Enable: ... PresDet-" and "Changed: ... PresDet-" are its
# interrupt enable and change bits, not the presence)
_LLACTREP_RE = re.compile(r"\bLLActRep(?P<flag>[+-])")
_DLACTIVE_RE = re.compile(r"\bDLActive(?P<flag>[+-])")
_PRESENCE_RE = re.compile(r"^\s*SltSta:\s*Status:[^\n]{0,200}?\bPresDet(?P<flag>[+-])")
# a bridge's bus numbers (lspci -v: "Bus: primary=00, secondary=02, subordinate=02, sec-latency=0")
_BUS_RE = re.compile(
    r"^\s*Bus: primary=[0-9a-fA-F]+, secondary=(?P<secondary>[0-9a-fA-F]+), "
    r"subordinate=(?P<subordinate>[0-9a-fA-F]+)"
)
JOB_DATA_CLASSES = (
    "3D controller",
    "VGA compatible controller",
    "Display controller",
    "Processing accelerators",
    "Co-processor",
    "Infiniband controller",
    "Ethernet controller",
    "Network controller",
    "Fabric controller",
)
"""The PCI classes (pci.ids' class names, as lspci heads a block) of the devices a training job's
data crosses: GPUs and accelerators (NPUs and Gaudis are "Processing accelerators"), and the
network controllers of the data fabric. Storage, USB, SATA, management and the chipset's own
functions carry none of it."""
# a 1 Gb/s NIC's name in pci.ids ("NetXtreme BCM5720 2-port Gigabit Ethernet PCIe", "I350
# Gigabit Network Connection"), not a faster one's ("82599ES 10-Gigabit SFI/SFP+", "BCM57810 10
# Gigabit Ethernet", "2.5 Gigabit"): one lane of PCIe 1.0 (2 Gb/s after 8b/10b) outruns its
# port. A speed is a number word of its own before "Gigabit"; a model's digits ("NetXtreme
# BCM5720 Gigabit Ethernet PCIe", older pci.ids' name of the same chip) are no speed
_ONE_GIGABIT_RE = re.compile(r"(?<![\d.-])(?<!\b\d )(?<!\b\d\d )(?<!\b\d\d\d )Gigabit\b")
DOWNSTREAM_PORTS = ("Root Port", "Downstream Port")
ACCELERATOR_CLASSES = ("3D controller", "Processing accelerators", "Co-processor")
"""The classes a data-centre GPU or NPU is listed under (an H100 PCIe is a "3D controller", an
Ascend or Gaudi a "Processing accelerators")."""
# a VGA or Display controller is a GPU of the job only by its maker's name: a server's BMC has one
# of its own (ASPEED, Matrox) that no job uses
_GPU_MAKER_RE = re.compile(r"\b(?:NVIDIA|Advanced Micro Devices|AMD|ATI)\b")
# a "Co-processor" or "Processing accelerators" device is a GPU or NPU of the job only by its
# maker's name (or, under lspci -nn, its vendor ID: NVIDIA 10de, AMD/ATI 1002, Huawei 19e5,
# Habana 1da3): the same classes hold the host's offload engines no job computes on, Intel's
# QuickAssist ("Co-processor: Intel Corporation C62x Chipset QuickAssist Technology", Sapphire
# Rapids' "Processing accelerators: Intel Corporation Device 4940") among them
_ACCELERATOR_MAKER_RE = re.compile(
    r"\b(?:NVIDIA|Advanced Micro Devices|AMD|ATI|Huawei|Habana)\b|\[(?:10de|1002|19e5|1da3):"
)
# Huawei makes both the Ascend NPUs and the Kunpeng CPU's own offload engines, which lspci lists
# as "Processing accelerators: Huawei Technologies Co., Ltd. HiSilicon ZIP Engine" (and SEC,
# HPRE): Linux's include/linux/pci_ids.h and drivers/crypto/hisilicon/ give them device IDs
# 19e5:a250/a251 (ZIP), a255/a256 (SEC), a258/a259 (HPRE), driven by hisi_zip/hisi_sec2/hisi_hpre.
# They are the Kunpeng Accelerator Engine (KAE), the CPU's compression and crypto offload: no job
# computes on them, and KAE's FAQ (its drivers hisi_hpre/hisi_sec2/hisi_rde/hisi_zip fail to load
# without the engine's licence, "lspci | grep ZIP" to check) has them undriven on hosts that do not
# use KAE, so they are not the job's NPU whatever their maker
_KUNPENG_ENGINE_RE = re.compile(
    r"\bHiSilicon (?:ZIP|SEC|HPRE|RDE)\b|\[19e5:a25[015689]\]", re.IGNORECASE
)
VM_STUB_DRIVERS = ("vfio-pci", "pci-stub", "pciback", "xen-pciback")
"""Drivers that hold a device for a virtual machine rather than drive it: the guest's driver
enables it, so its command register in the host says nothing of the guest's use."""


def is_accelerator(device_class: str, name: str) -> bool:
    """A GPU or NPU a job computes on, by its lspci class (and maker, but for a 3D controller)."""
    if device_class == "3D controller":
        return True
    if device_class in ACCELERATOR_CLASSES:
        return bool(_ACCELERATOR_MAKER_RE.search(name)) and not _KUNPENG_ENGINE_RE.search(name)
    return device_class in ("VGA compatible controller", "Display controller") and bool(
        _GPU_MAKER_RE.search(name)
    )


# Huawei's own name or, under lspci -nn, its vendor ID 19e5 (the one _ACCELERATOR_MAKER_RE takes)
_HUAWEI_RE = re.compile(r"\bHuawei\b|\[19e5:")


def is_ascend_npu(device_class: str, name: str) -> bool:
    """An Ascend NPU: a Huawei accelerator (``is_accelerator``) that is no Kunpeng engine."""
    return is_accelerator(device_class, name) and bool(_HUAWEI_RE.search(name))


def heading_parts(device: str) -> tuple[str, str]:
    """A link's ``device`` ("01:00.0 Processing accelerators: Huawei ... (rev 20)") as its
    class and name; ("", "") where the copy gives no heading."""
    _, _, what = device.partition(" ")
    cls, _, name = what.partition(": ")
    return re.sub(r" \[[0-9a-fA-F]{4}\]$", "", cls), name


NIC_CLASSES = ("Infiniband controller", "Ethernet controller", "Network controller")
# a data NIC driver's kernel line naming the device by its bus address (dev_printk's "<driver>
# <address>": "mlx5_core 0000:01:00.0 enp1s0np0: Link up", "ixgbe 0000:03:00.0: ...", behind
# dmesg's time stamp or not): the device at that address is that NIC
_NIC_DRIVER_RE = re.compile(
    r"\b(?P<driver>mlx[45]_core|ixgbe|i40e|ice|bnxt_en|qede|cxgb4|ionic|nfp|sfc|hfi1)"
    r" (?P<bdf>(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\b"
)


@dataclass(kw_only=True)
class PcieLink:
    line: int
    device: str
    """The device's bus address and description as lspci heads its block ("" when the copy
    holds its link lines alone)."""
    cap_speed_gts: float | None
    cap_width: int | None
    speed_gts: float
    width: int
    speed_downgraded: bool
    width_downgraded: bool
    port_type: str | None = None
    """Its PCI Express capability's port type (``Root Port``, ``Downstream Port``, ``Upstream
    Port``, ``Endpoint`` ...); None where the copy does not hold that line."""
    below: str | None = None
    """A root or downstream port's: the device at the link's other end (on its secondary bus),
    where the copy holds that device's own link lines: the same link, which they judge."""
    listed_below: str | None = None
    """A root or downstream port's: the device the copy lists on its secondary bus, with or
    without link lines of its own (a device behind an untrained, x0, link is not an empty
    slot)."""
    job_data: bool | None = None
    """Whether the device carries a training job's data (``JOB_DATA_CLASSES``, but a 1 Gb/s
    NIC; a bridge with such a device behind it); None where the copy does not say (no heading,
    a bridge whose devices behind it are not in the copy)."""
    one_gigabit: bool = False
    """A 1 Gb/s NIC (by its name): a link narrower than its capability still outruns its ports."""
    nic: bool = False
    """A network controller: its heading's class (``NIC_CLASSES``), or a NIC driver's kernel
    line in the copy that names its address (a grepped copy with no heading), or the RDMA device
    a script's label names on its line."""
    peer_width: int | None = None
    """Where neither a capability line nor lspci's mark says the link's own width (pciutils
    before 3.7 prints LnkSta unmarked) and it is narrower than most of the other NICs whose
    links the listing gives alone: their width (``_narrower_than_peers``)."""
    peer_speed_gts: float | None = None
    """With ``peer_width``, where no wider NIC trained at this link's speed and the copy names
    neither this NIC nor them: the speed they did train at. A link that differs in speed as well
    as width is most often another model (a Gen4 x8 card beside Gen5 x16 ones), so the siblings
    say nothing of its own width."""
    link_active: bool | None = None
    """lspci's ``DLActive+``/``-`` under LnkSta (pciutils ls-caps.c cap_express_link: the Link
    Status register's PCI_EXP_LNKSTA_DL_ACT, Data Link Layer Link Active), counted only where
    LnkCap's ``LLActRep+`` (PCI_EXP_LNKCAP_DLLA) says the port reports it; None otherwise."""
    present: bool | None = None
    """A slot's ``SltSta: Status: ... PresDet+``/``-`` (ls-caps.c cap_express_slot: the Slot
    Status register's PCI_EXP_SLTSTA_PRES, Presence Detect State): whether a card is in the
    slot; None where the copy has no SltSta line."""
    link_active_line: int | None = None
    present_line: int | None = None
    model: str = ""
    """The device's name as its heading gives it ("Mellanox Technologies MT2910 Family
    [ConnectX-7]"), without lspci's "(rev NN)"; "" where the copy has no heading for it."""
    peer_model: str | None = None
    """With ``peer_width``, where the copy names this NIC and the wider ones, and none of them
    by its name: theirs. Another model, whose own width their links do not measure."""


def pcie_gbps(speed_gts: float, width: int) -> float:
    """A link's data rate in Gb/s, as the kernel's pcie_bandwidth_available counts it: each
    lane's transfer rate less its encoding (8b/10b to 5 GT/s, 128b/130b from 8 GT/s)."""
    return speed_gts * width * (0.8 if speed_gts <= 5 else 128 / 130)


def _bdf_key(bdf: str) -> str:
    """A bus address without the domain 0000 lspci leaves out unless -D."""
    return bdf.lower().removeprefix("0000:")


@dataclass(kw_only=True)
class _Heading:
    bdf: str
    device_class: str
    name: str
    secondary: int | None = None
    subordinate: int | None = None


def _bus(bdf: str) -> tuple[str, int]:
    """The domain ("" where lspci printed none) and the bus number of a bus address."""
    parts = bdf.split(":")
    return (parts[0] if len(parts) == 3 else "", int(parts[-2], 16))


def _one_gigabit_nic(head: _Heading) -> bool:
    return head.device_class == "Ethernet controller" and bool(_ONE_GIGABIT_RE.search(head.name))


def _carries_job_data(head: _Heading) -> bool:
    return head.device_class in JOB_DATA_CLASSES and not _one_gigabit_nic(head)


def _place(links: list[tuple[PcieLink, _Heading | None]], heads: list[_Heading]) -> None:
    """Each link's ``below`` and ``job_data`` from the devices the copy lists."""
    by_bus: dict[tuple[str, int], list[_Heading]] = {}
    for h in heads:
        by_bus.setdefault(_bus(h.bdf), []).append(h)
    data_buses = {_bus(h.bdf) for h in heads if _carries_job_data(h)}
    # (a heading alone, "lspci | grep -i nvidia" pasted above a port's "lspci -vvv -s", or a
    # copy cut before the device's capabilities, says nothing of the device's link)
    with_links = {id(h) for _, h in links if h is not None}
    for link, head in links:
        if head is None:
            continue
        link.one_gigabit = _one_gigabit_nic(head)
        link.model = _REVISION_RE.sub("", head.name).strip()
        link.nic = link.nic or head.device_class in NIC_CLASSES
        if head.secondary is None or head.subordinate is None:
            # (a bridge whose bus numbers the copy cuts off: what is behind it is not known)
            if not head.device_class.endswith("bridge"):
                link.job_data = _carries_job_data(head)
            continue
        domain = _bus(head.bdf)[0]
        behind = range(head.secondary, head.subordinate + 1)
        if link.port_type in DOWNSTREAM_PORTS and (child := by_bus.get((domain, head.secondary))):
            link.listed_below = child[0].bdf
            if id(child[0]) in with_links:
                link.below = child[0].bdf
        if any((domain, bus) in data_buses for bus in behind):
            link.job_data = True
        elif any((domain, bus) in by_bus for bus in behind):
            link.job_data = False  # (what is behind it is listed, and none of it is the job's)


def parse(text: str) -> list[PcieLink]:
    """Each ``LnkSta`` line with its device's ``LnkCap`` above it; ParseError when none."""
    links: list[PcieLink] = []
    placed: list[tuple[PcieLink, _Heading | None]] = []
    unmarked: list[PcieLink] = []  # links with no capability above them and no lspci mark
    heads: list[_Heading] = []
    head: _Heading | None = None
    port_type: str | None = None
    device = ""
    cap: re.Match[str] | None = None
    nic_addresses: set[str] = set()
    reports_active = False  # LnkCap's LLActRep+: DLActive means something
    last: PcieLink | None = None  # the link whose flags and slot lines follow
    for no, line, _ in numbered_lines(text):
        if nic := _NIC_DRIVER_RE.search(line):
            nic_addresses.add(_bdf_key(nic["bdf"]))
        if (
            last is not None
            and last.link_active is None
            and reports_active
            and "LnkSta:" not in line
            and (f := _DLACTIVE_RE.search(line))
        ):
            last.link_active, last.link_active_line = f["flag"] == "+", no
        if last is not None and (f := _PRESENCE_RE.match(line)):
            last.present, last.present_line = f["flag"] == "+", no
            continue
        if f := _LLACTREP_RE.search(line):
            reports_active = f["flag"] == "+"
        if d := _DEVICE_RE.match(line):
            device, cap, port_type = f"{d.group('bdf')} {d.group('what')}", None, None
            reports_active, last = False, None
            # (the class before the name, "-nn"'s class code after it: "PCI bridge [0604]: ...")
            cls, _, name = d.group("what").partition(": ")
            head = _Heading(
                bdf=d.group("bdf"), device_class=re.sub(r" \[[0-9a-fA-F]{4}\]$", "", cls), name=name
            )
            heads.append(head)
            continue
        if "lspci" in line and _LSPCI_CMD_RE.search(line):
            # "lspci -vvv -s 01:00.0 | grep LnkSta": the command names the device its grepped
            # lines are of (lspci(8): -s [[[[domain]:]bus]:][slot][.[func]] selects devices);
            # any other lspci command starts a listing of its own, of devices it may not name
            sel = _SELECT_RE.search(line)
            device, cap, head, port_type = (sel.group("bdf") if sel else ""), None, None, None
            reports_active, last = False, None
            continue
        if head is not None and (b := _BUS_RE.match(line)):
            head.secondary, head.subordinate = int(b["secondary"], 16), int(b["subordinate"], 16)
            continue
        if x := _EXPRESS_RE.match(line):
            port_type = x.group("type").strip()
            continue
        if c := _CAP_RE.match(line):
            # (its LLActRep flag follows, on the next line: this link's, not the one above)
            cap, reports_active = c, bool((f := _LLACTREP_RE.search(line)) and f["flag"] == "+")
            continue
        label = _LABEL_RE.match(line)
        if label is not None:
            # (the label names the device, and an RDMA device is a NIC: its link carries the
            # job's data; a label without one keeps the device read above it)
            named = _RDMA_DEV_RE.search(label.group("label"))
            if named is not None:
                device, cap, head, port_type = named.group("dev"), None, None, None
                nic_addresses.add(device)
            line = line[label.end() :]
        if not (s := _STA_RE.match(line)):
            continue
        speed, width = float(s.group("speed")), int(s.group("width"))
        cap_speed = float(cap.group("speed")) if cap else None
        cap_width = int(cap.group("width")) if cap else None
        links.append(
            PcieLink(
                port_type=port_type,
                line=no,
                device=device,
                cap_speed_gts=cap_speed,
                cap_width=cap_width,
                speed_gts=speed,
                width=width,
                # lspci's own mark, else the figures against the capability above
                speed_downgraded=s.group("speed_said") == "downgraded"
                or (s.group("speed_said") is None and cap_speed is not None and speed < cap_speed),
                width_downgraded=s.group("width_said") == "downgraded"
                or (s.group("width_said") is None and cap_width is not None and width < cap_width),
            )
        )
        last = links[-1]
        if reports_active and (f := _DLACTIVE_RE.search(line)):
            # (older pciutils print the flags on LnkSta's own line)
            last.link_active, last.link_active_line = f["flag"] == "+", no
        placed.append((links[-1], head))
        if cap is None and s.group("width_said") is None:
            unmarked.append(links[-1])
    if not links:
        raise ParseError("no lspci 'LnkSta: Speed ...GT/s, Width x..' line")
    _place(placed, heads)
    for link in links:
        if link.device and (
            _bdf_key(link.device.split(" ", 1)[0]) in nic_addresses or link.device in nic_addresses
        ):
            link.nic = True
            if link.job_data is None:
                link.job_data = True
    _narrower_than_peers([link for link in unmarked if link.nic])
    return links


def _narrower_than_peers(nics: list[PcieLink]) -> None:
    """Each NIC's ``peer_width`` where its link is narrower than the width most of the others
    trained to: with no capability line and no "(ok)/(downgraded)" mark (pciutils before 3.7,
    a loop that greps LnkSta alone), its siblings are the only measure of what it can do where
    they are its own model, in slots alike. A node's NICs are not always one model (a Gen5 x16
    compute rail beside a Gen4 x8 storage or management NIC, a BlueField): one whose speed is
    none of the wider ones' gets ``peer_model`` or ``peer_speed_gts`` too, for a note rather
    than a fault. The devices' names decide that where the copy gives them (lspci's heading names
    the model, "MT2910 Family [ConnectX-7]"): one named as a wider sibling is that model, and a
    ConnectX-7 (PCIe Gen5 x16) trained at 16GT/s x8 has lost speed and lanes in its slot, not
    changed model. Speed stands in for the model only where the names are not in the copy."""
    counts: dict[int, int] = {}
    for link in nics:
        counts[link.width] = counts.get(link.width, 0) + 1
    if not counts:
        return
    usual = max(counts, key=lambda w: (counts[w], w))
    # (a width shared by more than half of them, two at least: where the NICs split evenly the
    # copy cannot tell which ones trained short)
    if counts[usual] < 2 or 2 * counts[usual] <= len(nics):
        return
    speeds: dict[float, int] = {}
    models: dict[str, int] = {}
    for link in nics:
        if link.width == usual:
            speeds[link.speed_gts] = speeds.get(link.speed_gts, 0) + 1
            if link.model:
                models[link.model] = models.get(link.model, 0) + 1
    usual_speed = max(speeds, key=lambda v: (speeds[v], v))
    for link in nics:
        if not 0 < link.width < usual:
            continue
        link.peer_width = usual
        if link.model and models:
            if link.model not in models:
                link.peer_model = max(models, key=lambda m: (models[m], m))
        elif link.speed_gts not in speeds:
            link.peer_speed_gts = usual_speed


DEVICE_SIGNATURE = (
    r"^(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7] [^\n:]+: [^\n]+\n"
    r"[ \t]+(?:Subsystem|Control|Flags|Physical Slot|DeviceName): "
)
"""``lspci -v``'s block of a device: its heading, then its indented fields."""
# the PCI Express capability's device status (pciutils ls-caps.c: "DevSta:\tCorrErr%c
# NonFatalErr%c FatalErr%c UnsupReq%c AuxPwr%c TransPend%c", '+' where the bit is set)
_DEVSTA_RE = re.compile(r"^\s*DevSta:\s*(?P<flags>.*?)\s*$")
_ERROR_FLAGS = ("CorrErr", "NonFatalErr", "FatalErr", "UnsupReq")


# the command register's bits as lspci -vv prints them (pciutils lspci.c show_verbose: "\tControl:
# I/O%c Mem%c BusMaster%c SpecCycle%c ..."): BusMaster is PCI_COMMAND_MASTER, which Linux's
# pci_set_master() sets ("enables bus-mastering for device dev", Linux kernel API) and
# pci_clear_master()/pci_disable_device() clear: a device whose bit is clear cannot start a DMA
_CONTROL_RE = re.compile(r"^\s*Control:[ \t][^\n]{0,200}?\bBusMaster(?P<on>[+-])")
# lspci.c show_verbose: "\tInterrupt: pin %c routed to IRQ " IRQ_FORMAT, the IRQ being the
# kernel's (sysfs) or the config space's Interrupt Line; 255 (0xff) is the PCI specification's
# "unknown or no connection", the value a device keeps until the kernel assigns it one
_INTERRUPT_RE = re.compile(r"^\s*Interrupt: pin (?P<pin>[A-D?]) routed to IRQ (?P<irq>\d{1,10})\b")
# pciutils ls-caps.c cap_msi: "MSI: Enable%c Count=%d/%d Maskable%c 64bit%c"; cap_msix: "MSI-X:
# Enable%c Count=%d Masked%c"; a driver turns either on (pci_alloc_irq_vectors)
_MSI_RE = re.compile(r"^\s*Capabilities: \[[0-9a-fA-F]{1,4}\] MSI: Enable(?P<on>[+-])")
_MSIX_RE = re.compile(r"^\s*Capabilities: \[[0-9a-fA-F]{1,4}\] MSI-X: Enable(?P<on>[+-])")
# lspci -v's (not -vv's) one line of the same (lspci.c show_verbose, verbose < 2: "\tFlags: ",
# "bus master, " where PCI_COMMAND_MASTER is set, ..., "IRQ " IRQ_FORMAT); it comes before the
# block's capabilities, whose Power Management "Flags: PMEClk- ..." is another line
_FLAGS_RE = re.compile(r"^\s*Flags: (?P<flags>[^\n]{0,300})")
_FLAGS_IRQ_RE = re.compile(r"\bIRQ (?P<irq>\d{1,10})\b")
# lspci -k (and -v): "\tKernel driver in use: %s" at the end of the block, where a driver is bound
_DRIVER_RE = re.compile(r"^\s*Kernel driver in use:[ \t]*(?P<driver>\S{1,64})")


@dataclass(kw_only=True)
class PciDevice:
    line: int
    device: str
    errors: list[str]
    """The device status's error bits that are set (``FatalErr+``), as lspci names them."""
    devsta: bool
    """Whether the copy holds its DevSta line."""
    devsta_line: int | None = None
    link: bool
    """Whether the copy holds its LnkSta line."""
    device_class: str = ""
    """Its class as lspci heads the block ("3D controller"), without -nn's class code."""
    name: str = ""
    """Its name as lspci heads the block, without "(rev NN)"."""
    bus_master: bool | None = None
    """The Control line's BusMaster bit (None where the copy has no Control line)."""
    control_line: int | None = None
    irq: int | None = None
    """The IRQ of its "Interrupt: pin X routed to IRQ N" line."""
    irq_line: int | None = None
    msi_enabled: bool | None = None
    msi_line: int | None = None
    msix_enabled: bool | None = None
    msix_line: int | None = None
    driver: str | None = None
    """Its "Kernel driver in use" (None where the copy has no such line)."""
    driver_line: int | None = None


def parse_devices(text: str) -> list[PciDevice]:
    """Each device block of ``lspci -v``/``-vv`` with its status bits; ParseError when none."""
    devices: list[PciDevice] = []
    in_caps = 0  # (the heading line of the block whose capabilities have begun)
    for no, line, _ in numbered_lines(text):
        if d := _DEVICE_RE.match(line):
            cls, _, name = d.group("what").partition(": ")
            devices.append(
                PciDevice(
                    line=no, device=f"{d.group('bdf')} {d.group('what')}", errors=[],
                    devsta=False, link=False,
                    device_class=re.sub(r" \[[0-9a-fA-F]{4}\]$", "", cls),
                    name=_REVISION_RE.sub("", name).strip(),
                )
            )  # fmt: skip
            continue
        if not devices:
            continue
        dev = devices[-1]
        if line.lstrip().startswith("Capabilities:"):
            in_caps = dev.line
        if (c := _CONTROL_RE.match(line)) and dev.control_line is None:
            dev.bus_master, dev.control_line = c["on"] == "+", no
        elif (
            in_caps != dev.line
            and dev.control_line is None
            and (f := _FLAGS_RE.match(line))
            and "PMEClk" not in f["flags"]
        ):
            dev.bus_master, dev.control_line = "bus master" in f["flags"], no
            if irq := _FLAGS_IRQ_RE.search(f["flags"]):
                dev.irq, dev.irq_line = int(irq["irq"]), no
        elif (i := _INTERRUPT_RE.match(line)) and dev.irq_line is None:
            dev.irq, dev.irq_line = int(i["irq"]), no
        elif m := _MSI_RE.match(line):
            dev.msi_enabled, dev.msi_line = m["on"] == "+", no
        elif m := _MSIX_RE.match(line):
            dev.msix_enabled, dev.msix_line = m["on"] == "+", no
        elif k := _DRIVER_RE.match(line):
            dev.driver, dev.driver_line = k["driver"], no
        elif s := _DEVSTA_RE.match(line):
            devices[-1].devsta, devices[-1].devsta_line = True, no
            devices[-1].errors = [
                f for f in _ERROR_FLAGS if re.search(rf"\b{f}\+", s.group("flags"))
            ]
        elif _STA_RE.match(line):
            devices[-1].link = True
    if not devices:
        raise ParseError("no lspci device block ('BB:DD.F class: name' and its fields)")
    return devices


LIST_SIGNATURE = (
    r"^[ \t]*(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7] (?:3D controller|VGA compatible "
    r"controller|Display controller|Processing accelerators|Infiniband controller|Ethernet "
    # (-nn puts the class code after the class: "VGA compatible controller [0300]: ...")
    r"controller|Network controller|Co-processor)(?: \[[0-9a-fA-F]{4}\])?: [^\n]*$"
)
"""lspci's default listing (often grepped: ``lspci | grep -i nvidia``), a line a device."""
_LIST_RE = re.compile(
    r"^\s*(?P<bdf>(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]) (?P<cls>[^:\n]+): "
    # (lspci -v and above print the programming interface after the revision, pciutils lspci.c
    # show_terse: " (rev %02x)", then " (prog-if %02x [%s])": "(rev ff) (prog-if ff)")
    r"(?P<name>.*?)(?: \(rev (?P<rev>[0-9a-fA-F]{2})\))?(?: \(prog-if [^)\n]*\))?\s*$"
)


@dataclass(kw_only=True)
class ListedDevice:
    line: int
    bdf: str
    device_class: str
    name: str
    rev: str | None
    """The revision byte; ``ff`` where the device did not answer: a config space read of a
    device that does not respond returns all ones (pciutils, lspci's unknown header type 7f)."""


def parse_list(text: str) -> list[ListedDevice]:
    """lspci's listing lines; ParseError when none."""
    found = [
        ListedDevice(
            line=no,
            bdf=m.group("bdf"),
            device_class=m.group("cls").strip(),
            name=m.group("name").strip(),
            rev=m.group("rev"),
        )
        for no, line in enumerate(text.splitlines(), 1)
        if (m := _LIST_RE.match(line))
    ]
    if not found:
        raise ParseError("no lspci listing line ('BB:DD.F class: name (rev NN)')")
    return found


ACS_SIGNATURE = r"^[ \t]*ACSCtl:[ \t]*SrcValid[+-][ \t]"
"""``lspci -vvv``'s ACS control line of a device (pciutils ls-ecaps.c cap_acs: ``ACSCtl:\\tSrcValid%c
TransBlk%c ReqRedir%c CmpltRedir%c UpstreamFwd%c EgressCtrl%c DirectTrans%c``), often grepped alone
(``lspci -vvv | grep -i acsctl``, as NCCL's troubleshooting guide has it run)."""
_ACS_RE = re.compile(r"^\s*ACSCtl:\s*(?P<flags>SrcValid[+-][^\n]{0,200})")
_ACS_FLAG_RE = re.compile(r"\b(?P<name>[A-Za-z]{2,20})(?P<on>[+-])")
ACS_REDIRECT_FLAGS = ("ReqRedir", "CmpltRedir", "EgressCtrl")
"""The ACS controls that send peer-to-peer traffic up to the root complex instead of across the
bridge: Linux drivers/pci/p2pdma.c pci_bridge_has_acs_redir counts a bridge as redirecting "P2P
TLPs upstream via ACS" where PCI_ACS_RR (P2P Request Redirect), PCI_ACS_CR (P2P Completion
Redirect) or PCI_ACS_EC (P2P Egress Control) is set. NCCL's troubleshooting guide (PCI Access
Control Services): such redirection "can interfere with GPU Direct by redirecting all PCI
point-to-point traffic to the CPU root complex, causing a significant performance reduction or
even a hang"; on bare metal, ACS on PCI switches "needs to be disabled" (a VM needs it)."""


@dataclass(kw_only=True)
class AcsControl:
    line: int
    device: str
    """The device's bus address and description as lspci heads its block ("" in a grepped copy
    of the ACSCtl lines alone)."""
    on: list[str]
    """The controls that are on (``SrcValid``, ``ReqRedir`` ...), in lspci's order."""
    redirect: list[str]
    """Those of ``ACS_REDIRECT_FLAGS`` that are on: P2P traffic sent up to the root complex."""
    job_data: bool | None = None
    """Whether a device a training job's data crosses (``JOB_DATA_CLASSES``) is behind it: False
    where the copy lists what is behind it and none is (an NVMe or NVSwitch management bridge),
    or where it is no bridge (ACS on an endpoint's functions is between its own functions); None
    where the copy does not say (ACSCtl lines grepped alone, a bridge's bus numbers cut)."""
    root_port: bool = False
    """A PCI Express Root Port (its Express capability line says so): whatever its ACS, the
    devices below it reach those of other root ports through the root complex, and those under
    a switch below it meet at the switch (``parse_acs``)."""


def parse_acs(text: str) -> list[AcsControl]:
    """Each ``ACSCtl`` line, with its device's heading where the copy has one; ParseError when
    none."""
    found: list[tuple[AcsControl, _Heading | None]] = []
    heads: list[_Heading] = []
    head: _Heading | None = None
    port_type: str | None = None  # (the current block's Express capability's port type)
    for no, line, _ in numbered_lines(text):
        if d := _DEVICE_RE.match(line):
            cls, _, name = d.group("what").partition(": ")
            head = _Heading(
                bdf=d.group("bdf"), device_class=re.sub(r" \[[0-9a-fA-F]{4}\]$", "", cls), name=name
            )
            heads.append(head)
            port_type = None
            continue
        if head is not None and (b := _BUS_RE.match(line)):
            head.secondary, head.subordinate = int(b["secondary"], 16), int(b["subordinate"], 16)
            continue
        if head is not None and (x := _EXPRESS_RE.match(line)):
            port_type = x.group("type").strip()
            continue
        if "ACSCtl" not in line or not (a := _ACS_RE.match(line)):
            continue
        on = [f["name"] for f in _ACS_FLAG_RE.finditer(a["flags"]) if f["on"] == "+"]
        found.append(
            (
                AcsControl(
                    line=no,
                    device=f"{head.bdf} {head.device_class}: {head.name}" if head else "",
                    on=on,
                    redirect=[f for f in on if f in ACS_REDIRECT_FLAGS],
                    # (the Express capability comes before ACS in lspci's block: pciutils
                    # ls-caps.c show_caps calls show_ext_caps after the standard capabilities)
                    root_port=head is not None and port_type == "Root Port",
                ),
                head,
            )
        )
    if not found:
        raise ParseError("no lspci 'ACSCtl: SrcValid...' line")
    data_buses = {_bus(h.bdf) for h in heads if _carries_job_data(h)}
    for acs, head in found:
        if head is None:
            continue
        if not head.device_class.endswith("bridge"):
            acs.job_data = False
            continue
        if head.secondary is None or head.subordinate is None:
            continue
        domain = _bus(head.bdf)[0]
        behind = [(domain, bus) for bus in range(head.secondary, head.subordinate + 1)]
        # (what the listing puts behind it carries none of the job's data, or nothing is
        # behind it: an empty slot carries no traffic)
        acs.job_data = any(b in data_buses for b in behind)
    return [acs for acs, _ in found]
