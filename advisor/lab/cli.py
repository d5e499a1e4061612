"""``advisor lab up|down|status|run``: bring an emulated multi-node lab up, run the advisor in it,
tear it down (root only)."""

from __future__ import annotations

import argparse
import contextlib
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil

from advisor import console
from advisor.errors import ConfigError
from advisor.lab.netns import (
    Lab,
    LinkShape,
    cleanup_stale,
    destroy,
    lab_namespaces,
    list_labs,
    require_root,
)

USAGE = """advisor lab COMMAND

  up      [--nodes N] [--rate-mbit R] [--delay-ms D] [--jitter-ms J] [--loss-pct L]
          bring a lab up (it stays until `lab down`); prints its id and the overrides to use
  down    [LAB_ID ...] [--all]
          tear labs down (namespaces, links, processes inside them)
  status  list labs, their nodes, addresses and link shapes
  run     [--lab LAB_ID | --nodes N --rate-mbit R ...] [--launcher local|torchrun|ssh]
          [--run-dir DIR] [OVERRIDES ...]
          run `advisor run OVERRIDES` on the lab (a temporary lab when --lab is not given)

The lab needs root: it creates network namespaces, veth links and tc qdiscs."""


def main(args: list[str]) -> int:
    if not args or args[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0 if args else 2
    command, rest = args[0], args[1:]
    handlers = {"up": _up, "down": _down, "status": _status, "run": _run}
    handler = handlers.get(command)
    if handler is None:
        raise ConfigError(f"unknown lab command {command!r}; commands: {', '.join(handlers)}")
    return handler(rest)


def _shape_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--nodes", type=int, default=2, help="emulated nodes (default 2)")
    parser.add_argument("--rate-mbit", type=float, default=0.0, help="link rate, Mbit/s")
    parser.add_argument("--delay-ms", type=float, default=0.0, help="added one-way delay")
    parser.add_argument("--jitter-ms", type=float, default=0.0, help="delay variation")
    parser.add_argument("--loss-pct", type=float, default=0.0, help="random loss, percent")


def _lab_from(ns: argparse.Namespace, *, persistent: bool) -> Lab:
    shape = LinkShape(
        rate_mbit=ns.rate_mbit, delay_ms=ns.delay_ms, jitter_ms=ns.jitter_ms, loss_pct=ns.loss_pct
    )
    return Lab(ns.nodes, shape=shape, persistent=persistent)


def _up(args: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="advisor lab up")
    _shape_args(parser)
    lab = _lab_from(parser.parse_args(args), persistent=True).up()
    print(f"lab {lab.id} up: {lab.nodes} nodes")
    for n in range(lab.nodes):
        print(f"  node {n}: namespace {lab.ns(n)}, {lab.interface} {lab.address(n)}")
    print("run the advisor on it:")
    print(f"  advisor lab run --lab {lab.id} +cluster=2x2")
    print("or pass these overrides to `advisor run`:")
    print("  " + " ".join(lab.overrides()))
    print(f"tear it down: advisor lab down {lab.id}")
    return 0


def _down(args: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="advisor lab down")
    parser.add_argument("ids", nargs="*", help="lab ids (see `advisor lab status`)")
    parser.add_argument("--all", action="store_true", help="every lab on this host")
    ns = parser.parse_args(args)

    require_root()
    if not ns.ids and not ns.all:
        raise ConfigError("advisor lab down: name the lab ids to remove, or pass --all.")
    ids = [s.id for s in list_labs()] if ns.all else ns.ids
    removed = cleanup_stale() if ns.all else []
    for lab_id in ids:
        names = destroy(lab_id)
        removed.append(lab_id)
        print(f"lab {lab_id}: removed {', '.join(names) or 'nothing (no namespaces left)'}")
    if ns.all and not ids and not removed:
        print("no labs")
    return 0


def _status(args: list[str]) -> int:
    argparse.ArgumentParser(prog="advisor lab status").parse_args(args)
    labs = list_labs()
    if not labs:
        print("no labs")
    for st in labs:
        names = lab_namespaces(st.id)
        kind = "persistent" if st.persistent else f"owned by pid {st.owner_pid}"
        print(f"lab {st.id} ({kind}): {st.nodes} nodes on {st.subnet}, {len(names)} namespaces")
        for n in range(st.nodes):
            shape = st.shapes.get(str(n), {})
            desc = ", ".join(f"{k}={v:g}" for k, v in shape.items() if v) or "unshaped"
            print(f"  node {n}: {st.prefix}-n{n} ({desc})")
    return 0


def _run(args: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="advisor lab run", description="run `advisor run OVERRIDES` on a lab"
    )
    parser.add_argument("--lab", default="", help="id of a lab brought up with `lab up`")
    _shape_args(parser)
    parser.add_argument("--launcher", default="local", choices=("local", "torchrun", "ssh"))
    parser.add_argument("--run-dir", type=Path, default=None, help="default: reports/lab-<time>")
    parser.add_argument("--timeout-s", type=float, default=1800.0)
    ns, overrides = parser.parse_known_args(args)
    overrides = [o for o in overrides if o != "--"]
    run_dir = (ns.run_dir or Path("reports") / time.strftime("lab-%Y%m%d-%H%M%S")).resolve()
    with _lab(ns) as lab:
        if ns.launcher == "ssh":
            lab.start_sshd()
        cmds = lab.advisor_commands(overrides, run_dir, launcher=ns.launcher)
        console.plain(f"lab {lab.id}: {len(cmds)} advisor process(es), run directory {run_dir}")
        codes = run_all(cmds, timeout_s=ns.timeout_s)
    return max(codes)


@contextlib.contextmanager
def _lab(ns: argparse.Namespace) -> Iterator[Lab]:
    if ns.lab:
        yield Lab.attach(ns.lab)
        return
    with _lab_from(ns, persistent=False) as lab:
        yield lab


def run_all(cmds: list[list[str]], *, timeout_s: float) -> list[int]:
    """Run the commands side by side (output passes through); at the timeout stop them all."""
    procs = [subprocess.Popen(c, stdin=subprocess.DEVNULL) for c in cmds]
    end = time.monotonic() + timeout_s
    try:
        for p in procs:
            try:
                p.wait(timeout=max(0.1, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                console.error(f"lab run: the advisor did not finish within {timeout_s:g} s")
                break
    finally:
        stop_tree(procs)
    return [p.returncode if p.returncode is not None else 124 for p in procs]


def stop_tree(procs: list[subprocess.Popen[bytes]] | list[subprocess.Popen[str]]) -> None:
    """Stop processes still running and everything below them (TERM, then KILL)."""
    tree: list[psutil.Process] = []
    for p in procs:
        if p.poll() is None:
            with contextlib.suppress(psutil.Error):
                root = psutil.Process(p.pid)
                tree += [root, *root.children(recursive=True)]
    for t in tree:
        with contextlib.suppress(psutil.Error):
            t.send_signal(signal.SIGTERM)
    _, alive = psutil.wait_procs(tree, timeout=5)
    for t in alive:
        with contextlib.suppress(psutil.Error):
            t.kill()
    for p in procs:
        with contextlib.suppress(subprocess.TimeoutExpired):
            p.wait(timeout=5)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
