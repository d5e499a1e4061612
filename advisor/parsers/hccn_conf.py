"""``/etc/hccn.conf``: the NPU NIC addresses (``address_0=192.168.100.101``, ``netmask_0=...``)."""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field

from advisor.parsers import NEXT_COMMAND_RE, ParseError, ParseWarning, numbered_lines

# a value may hold spaces: an ARP entry "arp_0=-i eth0 -s 10.0.0.114 bc:1e:85:d8:ca:dd"
_LINE_RE = re.compile(r"^([a-z_]+?)_(\d+)\s*=\s*(.*?)\s*$")
# the command that printed the file, kept by a copy with its prompt ("> cat /etc/hccn.conf",
# "[root@node ~]# cat /etc/hccn.conf"): not a line of the file
_COMMAND_RE = re.compile(
    r"^(?:.*?[$#>]\s*)?(?:sudo\s+)?(?:cat|more|less|tail|head)\s+\S*hccn\.conf\b"
)


@dataclass(kw_only=True)
class HccnDevice:
    device: int
    settings: dict[str, str] = field(default_factory=dict)
    """Every ``key_N=value`` for this device: address, netmask, netdetect, gateway ..."""

    @property
    def address(self) -> str | None:
        return self.settings.get("address")

    @property
    def netmask(self) -> str | None:
        return self.settings.get("netmask")


@dataclass(kw_only=True)
class HccnConf:
    devices: dict[int, HccnDevice]
    warnings: list[ParseWarning] = field(default_factory=list)


def parse(text: str) -> HccnConf:
    """Parse hccn.conf; raises ParseError when no ``key_N=value`` line is present."""
    devices: dict[int, HccnDevice] = {}
    warnings: list[ParseWarning] = []
    lines = numbered_lines(text)
    # (a file of notes holds the conf among other outputs, after its own "cat .../hccn.conf":
    # the conf's lines then run from that command to the next one, and only a line among them
    # is one of the conf's that does not read; a file with no such command is the conf whole)
    shown = next((no for no, line, _ in lines if _COMMAND_RE.match(line.strip())), None)
    first = shown if shown is not None else 0
    last = (
        next(
            (
                no
                for no, line, _ in lines
                if no > first and NEXT_COMMAND_RE.match(line) and not line.lstrip().startswith("#")
            ),
            len(lines) + 1,
        )
        if shown is not None
        else len(lines) + 1
    )
    for no, line, _ in lines:
        s = line.strip()
        if not s or s.startswith("#") or _COMMAND_RE.match(s):
            continue
        m = _LINE_RE.match(s)
        if m is None:
            if first < no < last:
                warnings.append(
                    ParseWarning(line=no, message=f"not a key_N=value line: {s[:60]!r}")
                )
            continue
        key, dev, value = m.group(1), int(m.group(2)), m.group(3)
        devices.setdefault(dev, HccnDevice(device=dev)).settings[key] = value
    if not devices:
        raise ParseError("no 'address_N=...' line: not an hccn.conf file")
    warnings += _bad_values(devices)
    return HccnConf(devices=dict(sorted(devices.items())), warnings=warnings)


def _is_netmask(value: str) -> bool:
    try:
        ipaddress.IPv4Network(f"0.0.0.0/{value}")
    except ValueError:
        return False
    return True


def _bad_values(devices: dict[int, HccnDevice]) -> list[ParseWarning]:
    """Notes on values no NIC can take: a netmask whose one bits are not contiguous (or no
    dotted mask at all), an address that is no IPv4 address, one address on two devices."""
    notes: list[ParseWarning] = []
    by_mask: dict[str, list[int]] = {}
    by_address: dict[str, list[int]] = {}
    for dev in sorted(devices):
        mask, address = devices[dev].netmask, devices[dev].address
        if mask is not None and not _is_netmask(mask):
            by_mask.setdefault(mask, []).append(dev)
        if address is not None:
            by_address.setdefault(address, []).append(dev)
    for mask, devs in by_mask.items():
        notes.append(
            ParseWarning(
                line=0,
                message=f"netmask {mask!r} of device(s) {', '.join(map(str, devs))} is no netmask "
                "(its one bits are not contiguous, or it is no dotted mask): the NIC cannot take it",
                skipped=False,
            )
        )
    for address, devs in by_address.items():
        try:
            ipaddress.IPv4Address(address)
        except ValueError:
            notes.append(
                ParseWarning(
                    line=0,
                    message=f"address {address!r} of device(s) {', '.join(map(str, devs))} is no "
                    "IPv4 address",
                    skipped=False,
                )
            )
            continue
        if len(devs) > 1:
            notes.append(
                ParseWarning(
                    line=0,
                    message=f"address {address} is given to devices {', '.join(map(str, devs))}: "
                    "each NPU's NIC needs its own",
                    skipped=False,
                )
            )
    return notes
