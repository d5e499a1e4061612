"""The ``version.info`` files of Ascend's software packages: what is installed, and whether the
driver and the firmware accept each other.

Each package writes one under its install directory, ``key=value`` lines (as ``cat`` prints
them; pasted with ``cat -n``'s numbers or a document's indent too):

- the driver's (``/usr/local/Ascend/driver/version.info``): ``Version=24.1.rc3``,
  ``ascendhal_version``, ``Innerversion=V100R001C19SPC001B124``, ``compatible_version=[...]``
  and ``compatible_version_fw=[7.0.0,7.5.99]``: the firmware versions it works with, ranges of
  ``[lowest,highest]``;
- the firmware's (``/usr/local/Ascend/firmware/version.info``): ``Version=7.5.0.1.129``,
  ``firmware_version=1.0`` and ``compatible_version_drv=[23.0.0,23.0.0.],[24.1,24.1.]``: the
  driver versions it works with (a bound ending in a dot: any version under that prefix);
- CANN's (``ascend-toolkit/latest/version.info``: ``# version: 1.0`` over
  ``runtime_running_version=[7.6.0.1.220:8.0.0]`` ...; ``opp/version.info``: ``Version=``,
  ``version_dir=``, ``timestamp=``).

CANN's ``latest`` directory is a set of links into the installed release's own
(``ll ascend-toolkit/latest/``: ``runtime -> ../8.2.RC2/runtime``), and the ``version.cfg`` in
it is that release's: ``[7.6.T13.0.B094:8.0.T63]`` is a build and, after the colon, the release.
A copy whose links name another release than its version.cfg runs did not come from one install
at one time (a listing pasted from another host, or an upgrade half done).

The driver's ``compatible_version=[V100R001C29],[V100R001C30],[V100R001C13],[V100R001C15]``
names the CANN releases it works with by their inner versions (a CANN package's
``innerversion=V100R001C19SPC001B137``: C19), one a bracket or ``[lowest,highest]``; a CANN
package (toolkit, nnae, kernels) whose inner version it leaves out runs on a driver that does
not list it. A collection's ``pip list | grep torch`` lines (``torch   1.11.0``, ``torch-npu
2.1.0.post8.dev20241009``) are read beside them: torch_npu is built for one PyTorch release.

A driver outside the firmware's ranges, or firmware outside the driver's, is the mismatch the
runtime refuses with "driver and firmware packages do not match" (a user's public notes of a
24.1.rc2 driver, ``compatible_version_fw=[7.0.0,7.2.99]``, beside 7.3.0.1.231 firmware: device
UUID and IPC queries failed until the driver was upgraded).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from advisor.parsers import PROMPT_HOST_RE, ParseError, numbered_lines

SIGNATURE = (
    r"^[ \t]*(?:\d+[ \t]+)?Version=\S+[ \t]*\n(?:[^\n]*\n){0,12}?[ \t]*(?:\d+[ \t]+)?"
    r"(?:ascendhal_version|firmware_version|compatible_version(?:_fw|_drv)?|version_dir|"
    r"package_version|Innerversion)="
    r"|^[ \t]*(?:\d+[ \t]+)?# version: [\d.]+[ \t]*\n[ \t]*(?:\d+[ \t]+)?\w+_running_version=\["
    # CANN's install record (ascend_toolkit_install.info): "package_name=Ascend-cann-toolkit",
    # "version=8.3.RC2", "innerversion=...", "arch=..."
    r"|^[ \t]*(?:\d+[ \t]+)?package_name=Ascend-[\w-]+[ \t]*\n[ \t]*(?:\d+[ \t]+)?version=\S"
)
_KEY_RE = re.compile(r"^\s*(?:\d+\s+)?(?P<key>[A-Za-z_][\w]*)=(?P<value>.*)")
_RANGE_RE = re.compile(r"\[(?P<lo>[^,\]\[]*),(?P<hi>[^\]\[]*)\]")
# (linear time on a long run: only a word's first slash is tried (a yes/no search: a later one
# matches only where it does))
_FILE_RE = re.compile(
    r"(?:^|[\s#$>])(?:cat|less|more|head)\s+\S+|(?<!\S)[^\s/]*+/\S+\.(?:info|cfg|conf|ini)\b"
)
"""A command or a path above a file's content: what follows is another file's."""
# ls -l / ll of a directory of links: "lrwxrwxrwx 1 root root 18 Sep 21 16:55 runtime ->
# ../8.2.RC2/runtime", a link of CANN's latest/ into the release directory beside it (a
# version's shape: digits, a dot, more); or, listing ascend-toolkit/ itself, "latest -> 8.2.RC2"
_LINK_RE = re.compile(
    r"^l[-rwxsStT]{9}\S*[ \t].*?[ \t](?P<name>\S+)[ \t]+->[ \t]+(?P<up>\.\./)?"
    r"(?P<release>\d+\.\d+\.[^/\s]+)"
)
_LS_ROW_RE = re.compile(r"^(?:total[ \t]+\d|[-dlbcps][-rwxsStT]{9})")
"""Another row of an ``ls -l`` listing (its total, a file, a directory, another link)."""
# the versioned toolkit directory a command reads, rather than latest: "cat
# /usr/local/Ascend/ascend-toolkit/8.0.RC3/version.cfg"
_PINNED_RE = re.compile(r"/(?:ascend-toolkit|nnae|cann)/(?P<dir>\d+\.\d+\.[^/\s]+)/")
# pip list's row of PyTorch or its Ascend extension ("torch              1.11.0", "torch-npu
# 2.1.0.post8.dev20241009"), or pip freeze's "torch_npu==2.1.0.post8"
_PIP_RE = re.compile(
    r"^[ \t]*(?:\d+[ \t]+)?(?P<name>torch(?:[-_]npu)?)(?:[ \t]+|==)(?P<version>\d[\w.+]{0,60})[ \t]*$",
    re.I,
)
_INNER_RE = re.compile(r"V\d{1,4}R\d{1,4}C\d{1,4}")
"""A CANN release's inner version as the driver's ``compatible_version`` names it
(``V100R001C19`` of ``V100R001C19SPC001B137``)."""
_RELEASE_RE = re.compile(r"(V\d{1,4}R\d{1,4})C(\d{1,4})")
_TORCH_RELEASE_RE = re.compile(r"(\d{1,4})\.(\d{1,4})\.(\d{1,4})")
_BRACKET_RE = re.compile(r"\[(?P<body>[^\]\[]{0,200})\]")
_VERSION_KEYS = frozenset({"Version", "package_version", "version"})
_PATH_RE = re.compile(
    r"/(?P<pkg>driver|firmware|opp|ascend-toolkit|nnae|nnal|atb)\b[^\s]*version\.info"
)


@dataclass(kw_only=True)
class Package:
    line: int
    package: str
    """driver, firmware, cann (the toolkit's running versions), opp or other."""
    version: str | None = None
    inner_version: str | None = None
    compatible_fw: list[list[str]] = field(default_factory=list)
    """The driver's ``compatible_version_fw`` ranges, ``[lowest, highest]``."""
    compatible_drv: list[list[str]] = field(default_factory=list)
    """The firmware's ``compatible_version_drv`` ranges."""
    compatible: list[list[str]] = field(default_factory=list)
    """``compatible_version``'s entries, ``[lowest, highest]`` (one inner version: both the
    same): a driver's names the CANN releases it works with."""
    key_lines: dict[str, int] = field(default_factory=dict)
    """The line of each ``key=`` the block printed (what a finding about it cites)."""
    running: dict[str, str] = field(default_factory=dict)
    """CANN's ``<component>_running_version`` values."""
    release: str | None = None
    """A CANN package's ``version_dir``: the release it belongs to (8.2.RC1), beside its build
    version (7.8.T5.0.B028)."""
    host: str | None = None
    """The host a shell prompt above the block names ("[root@node1 ~]# cat ..."): one file may
    hold several hosts' files."""
    links_to: list[str] = field(default_factory=list)
    """A listing of CANN's ``latest`` directory (``ll .../ascend-toolkit/latest/``): the release
    directories its links point into (``runtime -> ../8.2.RC2/runtime``: 8.2.RC2)."""
    install_dir: str | None = None
    """The versioned directory the block was read from (``ascend-toolkit/8.0.RC3/version.cfg``),
    not ``latest``: that install's versions, whichever release ``latest`` points to."""


def _kind(keys: dict[str, str], named: str | None) -> str:
    if named in ("torch", "torch_npu"):
        return named  # a pip row
    if package := keys.get("package_name"):
        # an install record names its package: Ascend-cann-toolkit, Ascend-cann-kernels-910b ...
        return "cann" if "cann" in package.lower() else package
    if "compatible_version_fw" in keys or "ascendhal_version" in keys or named == "driver":
        return "driver"
    if "firmware_version" in keys or "compatible_version_drv" in keys or named == "firmware":
        return "firmware"
    if any(k.endswith("_running_version") for k in keys):
        return "cann"
    if "runtime_acl_version" in keys:
        return "cann runtime"  # the runtime package's version.info (its required_* versions)
    if named == "opp":
        return "opp"
    if "version_dir" in keys:
        return "cann"
    return named or "other"


def parse(text: str) -> list[Package]:
    """Every ``version.info`` block in ``text`` (a block starts at its ``Version=`` or ``#
    version:`` line); ParseError when none is there."""
    blocks: list[tuple[int, str | None, dict[str, str], str | None, str | None]] = []
    named: str | None = None
    pinned: str | None = None
    host: str | None = None
    listings: list[Package] = []
    key_lines: dict[int, dict[str, int]] = {}  # a block's (by its index) key lines
    listing_open = False  # a link line continues the listing above it, up to a blank or a command
    fresh = (
        True  # the next key starts a block: after a blank line, a command or another file's path
    )
    for no, line, _ in numbered_lines(text):
        stripped = re.sub(r"^\s*\d+\s+", "", line).strip()
        if prompt := PROMPT_HOST_RE.match(stripped):
            host = prompt.group("host")
        link = _LINK_RE.match(stripped)
        if link and (link.group("up") or link.group("name") == "latest"):
            if not listing_open:
                listings.append(Package(line=no, package="cann", host=host))
                listing_open = True
            if link.group("release") not in listings[-1].links_to:
                listings[-1].links_to.append(link.group("release"))
            continue
        if not _LS_ROW_RE.match(stripped):
            listing_open = False  # (a command, a blank: the next links are another listing's)
        if not stripped or _FILE_RE.search(stripped):
            fresh, listing_open = True, False
            if stripped:
                pin = _PINNED_RE.search(stripped)
                pinned = pin.group("dir") if pin else None
            if p := _PATH_RE.search(stripped):
                named = {"ascend-toolkit": "cann", "nnae": "cann"}.get(
                    p.group("pkg"), p.group("pkg")
                )
            elif stripped:
                named = None
            continue
        if stripped.startswith("# version:"):
            blocks.append((no, named, {}, host, pinned))
            named, pinned, fresh = None, None, False
            continue
        if pip := _PIP_RE.match(line):
            name = pip.group("name").lower().replace("-", "_")
            blocks.append((no, name, {"version": pip.group("version")}, host, None))
            fresh = True
            continue
        if not (m := _KEY_RE.match(line)):
            continue
        key, value = m.group("key"), m.group("value").strip()
        if fresh or key in ("Version", "package_name") or not blocks or key in blocks[-1][2]:
            blocks.append((no, named, {}, host, pinned))
            named, pinned, fresh = None, None, False
        blocks[-1][2][key] = value
        key_lines.setdefault(len(blocks) - 1, {})[key] = no
    packages: list[Package] = []
    for index, (no, said, keys, on, in_dir) in enumerate(blocks):
        if not _VERSION_KEYS.intersection(keys) and not any(
            k.endswith("_running_version") for k in keys
        ):
            continue  # key=value lines of something else (an install.info's, a config's)
        packages.append(
            Package(
                line=no,
                package=_kind(keys, said),
                version=keys.get("Version") or keys.get("version") or keys.get("package_version"),
                inner_version=keys.get("Innerversion") or keys.get("innerversion"),
                compatible_fw=[
                    [r.group("lo"), r.group("hi")]
                    for r in _RANGE_RE.finditer(keys.get("compatible_version_fw", ""))
                ],
                compatible_drv=[
                    [r.group("lo"), r.group("hi")]
                    for r in _RANGE_RE.finditer(keys.get("compatible_version_drv", ""))
                ],
                compatible=[
                    [b.group("body").split(",")[0].strip(), b.group("body").split(",")[-1].strip()]
                    for b in _BRACKET_RE.finditer(keys.get("compatible_version", ""))
                ],
                running={k: v for k, v in keys.items() if k.endswith("_running_version")},
                release=keys.get("version_dir"),
                key_lines=key_lines.get(index, {}),
                host=on,
                install_dir=in_dir,
            )
        )
    if not packages:
        raise ParseError("no version.info key=value lines found")
    return sorted(packages + listings, key=lambda p: p.line)


def _numbers(version: str) -> list[int]:
    """A version's leading numeric parts ("24.1.rc3" → [24, 1]; "24.1." → [24, 1])."""
    parts: list[int] = []
    for part in version.strip().split("."):
        if not part.isdigit():
            break
        parts.append(int(part))
    return parts


def in_range(version: str, lo: str, hi: str) -> bool | None:
    """Whether ``version`` lies within ``[lo, hi]`` as Ascend's version.info writes ranges
    (numeric parts compared as far as the bound has them; a bound ending in a dot matches any
    version under it); None when the version has no number to compare."""
    have, low, high = _numbers(version), _numbers(lo), _numbers(hi)
    if not have or not low or not high:
        return None
    # (the numeric parts both have already decide it where they differ: "7.7.T5.0.B019" is above
    # 7.6.99 at 7.7, "25.0.rc1" above 23.0.rc3 at 25, whatever the parts after them say)
    k = min(len(have), len(high))
    if have[:k] > high[:k]:
        return False
    k = min(len(have), len(low))
    if have[:k] < low[:k]:
        return False
    depth = max(len(low), len(high))
    if len(have) < depth and len(version.strip(".").split(".")) > len(have):
        # a part the bounds compare is not a number ("7.5.T11.0.B070" against 7.5.99, "23.0.0"
        # against 23.0.rc3): not comparable as far as the bounds go
        return None
    if any(
        not part.isdigit() for bound in (lo, hi) for part in bound.strip().strip(".").split(".")
    ):
        return None  # a bound with a non-number part ("23.0.rc3"): not comparable
    # (as far as each bound goes: "7.5.0.1.129" is within [7.0.0, 7.5.99], "24.1.rc3" within
    # [24.1, 24.1.])
    return have[: len(low)] >= low and have[: len(high)] <= high


def _ranges(ranges: list[list[str]]) -> str:
    return ", ".join(f"{lo} to {hi}" for lo, hi in ranges)


def mismatches(packages: list[Package]) -> list[str]:
    """Each driver/firmware pair in ``packages`` that one side's ranges leave out, in words."""
    said: list[str] = []
    drivers = [p for p in packages if p.package == "driver" and p.version]
    firmware = [p for p in packages if p.package == "firmware" and p.version]
    for drv in drivers:
        for fw in firmware:
            assert drv.version is not None and fw.version is not None
            if _outside(fw.version, drv.compatible_fw):
                said.append(
                    f"firmware {fw.version} is outside driver {drv.version}'s "
                    f"compatible_version_fw ({_ranges(drv.compatible_fw)})"
                )
            if _outside(drv.version, fw.compatible_drv):
                said.append(
                    f"driver {drv.version} is outside firmware {fw.version}'s "
                    f"compatible_version_drv ({_ranges(fw.compatible_drv)})"
                )
    return said


def _outside(version: str, ranges: list[list[str]]) -> bool:
    """Whether ``ranges`` are given and every one of them, compared, leaves ``version`` out (a
    range that cannot be compared says nothing, so no mismatch)."""
    ok = [in_range(version, lo, hi) for lo, hi in ranges]
    return bool(ok) and None not in ok and not any(ok)


def running_releases(package: Package) -> list[str]:
    """The releases a CANN package's version.cfg runs (``[7.6.T13.0.B094:8.0.T63]``: 8.0.T63,
    the part after the colon) and its ``version_dir``, in their order."""
    said = [v.strip("[] ").rpartition(":")[2] for v in package.running.values()]
    return list(dict.fromkeys(r for r in [*said, package.release or ""] if r))


def inventory_conflicts(packages: list[Package]) -> list[str]:
    """Where one host's copy of CANN contradicts itself, in words: a listing of ``latest``
    whose links point into several releases, or into another release than a version.cfg of
    ``latest`` (not of a versioned directory) runs."""
    said: list[str] = []
    listings = [p for p in packages if p.links_to]
    for listing in listings:
        if len(listing.links_to) > 1:
            said.append(
                f"the listing of CANN's latest (line {listing.line}) links into several "
                f"releases: {', '.join(listing.links_to)}"
            )
    for cann in packages:
        runs = running_releases(cann) if cann.package == "cann" and not cann.links_to else []
        if not runs or cann.install_dir:
            continue
        for listing in listings:
            linked = {r.lower() for r in listing.links_to}
            if linked.isdisjoint(r.lower() for r in runs):
                said.append(
                    f"CANN's version.cfg (line {cann.line}) runs {', '.join(runs)}, but the "
                    f"listing of latest (line {listing.line}) links to "
                    + ", ".join(f"../{r}" for r in listing.links_to)
                )
    return said


def _inner_in(inner: str, entries: list[list[str]]) -> bool | None:
    """Whether the release ``inner`` (``V100R001C19``) is among ``compatible_version``'s
    entries (one release, or ``[lowest,highest]`` of one V..R..: its C numbers between); None
    where no entry reads as an inner version."""
    m = _RELEASE_RE.fullmatch(inner)
    if not m:
        return None
    read = False
    for lo, hi in entries:
        low, high = _RELEASE_RE.fullmatch(lo), _RELEASE_RE.fullmatch(hi)
        if not low or not high:
            continue
        read = True
        if low.group(1) == high.group(1) == m.group(1):
            if int(low.group(2)) <= int(m.group(2)) <= int(high.group(2)):
                return True
    return False if read else None


def _torch_release(version: str) -> str | None:
    """The PyTorch release a version names: its first three numbers ("2.1.0.post8.dev20241009"
    and "2.1.0+cpu": 2.1.0)."""
    m = _TORCH_RELEASE_RE.match(version)
    return ".".join(m.groups()) if m else None


def _entries(entries: list[list[str]]) -> str:
    return ", ".join(lo if lo == hi else f"{lo} to {hi}" for lo, hi in entries)


def stack_mismatches(packages: list[Package]) -> list[str]:
    """Where one host's software stack leaves a part out, in words: a CANN package whose inner
    version the driver's ``compatible_version`` does not name, unless the package's own
    ``compatible_version`` names the driver's inner version; a torch_npu built for another
    PyTorch release than the torch beside it."""
    said: list[str] = []
    for drv in (p for p in packages if p.package == "driver" and p.compatible):
        drv_inner = _INNER_RE.match(drv.inner_version or "")
        for cann in (p for p in packages if p.package == "cann" and p.inner_version):
            assert cann.inner_version is not None
            inner = _INNER_RE.match(cann.inner_version)
            if not inner or _inner_in(inner.group(0), drv.compatible) is not False:
                continue
            # Each side lists the other's releases by inner version: a CANN package's own
            # compatible_version names driver releases older than it (CANN 8.3.RC2, C23, lists
            # [V100R001C15],[V100R001C18],...,[V100R001C23]; vllm-ascend issue's env dump), and a
            # driver released before a CANN release cannot name it. Where the package names the
            # driver's release, the driver's list leaving the package out is no mismatch; no
            # installer source found says which side's list a check reads (Ascend's
            # common_func.inc check_pkg_ver_deps compares required_<pkg>_<itf>_version ranges,
            # neither list), so neither side is taken over the other.
            names_driver = _inner_in(drv_inner.group(0), cann.compatible) if drv_inner else None
            if names_driver:
                continue
            inner_at = cann.key_lines.get("innerversion") or cann.key_lines.get(
                "Innerversion", cann.line
            )
            listed_at = drv.key_lines.get("compatible_version", drv.line)
            line = (
                f"CANN {cann.version} ({cann.inner_version}, line {inner_at}) is not among "
                f"driver {drv.version}'s compatible_version ({_entries(drv.compatible)}, line "
                f"{listed_at})"
            )
            if names_driver is False and drv_inner:
                # (both sides' lists read, neither names the other: said of both)
                line += (
                    f", nor is the driver's {drv_inner.group(0)} among the package's own "
                    f"compatible_version ({_entries(cann.compatible)}, line "
                    f"{cann.key_lines.get('compatible_version', cann.line)})"
                )
            said.append(line)
    # torch_npu's releases are named "{PyTorch version}-{Ascend version}": its version starts
    # with the PyTorch release it was built for (Ascend/pytorch README, "Ascend Auxiliary
    # Software": 2.1.0.post8 for PyTorch 2.1.0, 1.11.0.post14 for 1.11.0)
    for npu in (p for p in packages if p.package == "torch_npu" and p.version):
        for torch in (p for p in packages if p.package == "torch" and p.version):
            assert npu.version is not None and torch.version is not None
            built_for, have = _torch_release(npu.version), _torch_release(torch.version)
            if built_for and have and built_for != have:
                said.append(
                    f"torch-npu {npu.version} (line {npu.line}) is built for PyTorch {built_for}, "
                    f"but torch {torch.version} is installed (line {torch.line})"
                )
    return said
