"""The ``advisor`` command: a thin dispatcher. ``run`` is Hydra's; the rest are plain argparse.

Exit codes: 0 ready, 1 not ready (a stage failed or a critical finding), 2 usage or config error.
"""

from __future__ import annotations

import argparse
import difflib
import os
import select
import shlex
import sys
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any, get_type_hints

from advisor import console, paths
from advisor.errors import AdvisorError, ConfigError

USAGE = """usage: advisor COMMAND [ARGS]

commands:
  run [OVERRIDES]   check the cluster and advise (Hydra overrides; `advisor run --help`)
  report RUN_DIR    re-render every output of a run from its stored results
  isolate RUN_DIR [--force] [--job-deadline-s S]
                    find the node, NIC or link behind a run's failed or slow stage
                    (small jobs on subsets of the nodes, then re-render the run)
  import PATH...    read logs and tool outputs you already have (nccl-tests, hccl_test, npu-smi,
                    hccn_tool, rank tables, failure logs) into facts, findings and a report
  compare RUN_A RUN_B [--threshold 0.1] [--out DIR]
                    what moved between two runs: compare.html and compare.json
                    (exit 1 when a metric regressed beyond the threshold)
  rules list | validate PATH... | explain RULE_ID
                    the rules turning facts into findings and recommendations
  tuner validate FILE... [--nodes N] [--ranks R]
                    check NCCL / HCCL tuner-plugin configs as their plugins read them
  lab COMMAND       emulated multi-node lab (root): up, down, status, run (`advisor lab help`)

exit codes: 0 ready, 1 not ready, 2 usage or configuration error
"""


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:
        # `advisor rules list | head`: the reader left. Only that pipe is taken as the end of
        # the output: a broken pipe anywhere else (a socket to a worker) is a real error.
        stdout_fd = _stdout_without_reader()
        if stdout_fd is None:
            raise
        # Point stdout at /dev/null so the interpreter's final flush does not raise again, and
        # exit as a shell does for SIGPIPE.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stdout_fd)
        return 128 + 13


def _stdout_without_reader() -> int | None:
    """stdout's descriptor when it is a pipe whose reading end is closed, else None.

    poll() reports POLLERR on a pipe's writing end once no reader is left (Linux pipe_poll);
    a stdout replaced by an object without a descriptor is not a pipe that broke.
    """
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return None
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return fd if any(ev & select.POLLERR for _, ev in poller.poll(0)) else None


def _main(argv: list[str] | None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0 if args else 2
    command, rest = args[0], args[1:]
    handlers = {
        "run": _run,
        "report": _report,
        "isolate": _isolate,
        "import": _import,
        "compare": _compare,
        "rules": _rules,
        "tuner": _tuner,
        "lab": _lab,
    }
    handler = handlers.get(command)
    if handler is None:
        console.error(f"unknown command {command!r}; commands: {', '.join(handlers)}")
        return 2
    try:
        return handler(rest)
    except AdvisorError as e:
        console.error(str(e))
        return e.exit_code
    except KeyboardInterrupt:
        console.error("interrupted; results measured so far are in the run directory")
        return 130


def _report(args: list[str]) -> int:
    from advisor import runner

    parser = argparse.ArgumentParser(prog="advisor report", description="re-render a run")
    parser.add_argument("run_dir", type=Path)
    ns = parser.parse_args(args)
    if not ns.run_dir.exists():
        raise ConfigError(
            paths.missing_path(
                ns.run_dir, "run directory", "pass the directory that `advisor run` printed."
            )
        )
    return runner.rerender(ns.run_dir.resolve())


def _isolate(args: list[str]) -> int:
    from advisor.isolate import command

    return command.main(args)


def _tuner(args: list[str]) -> int:
    from advisor.tuner import cli

    return cli.main(args)


def _import(args: list[str]) -> int:
    from advisor.evidence import command

    return command.main(args)


def _compare(args: list[str]) -> int:
    from advisor.report import compare

    parser = argparse.ArgumentParser(
        prog="advisor compare", description="compare two runs (A before, B after a change)"
    )
    parser.add_argument("run_a", type=Path, help="run directory (or facts.json) before")
    parser.add_argument("run_b", type=Path, help="run directory (or facts.json) after")
    parser.add_argument(
        "--threshold",
        type=float,
        default=0.1,
        help="relative change in the worse direction that counts as a regression (0.1 = 10%%)",
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="where to write compare.html/json (default: RUN_B)"
    )
    ns = parser.parse_args(args)
    result = compare.compare(ns.run_a, ns.run_b, threshold=ns.threshold)
    out = ns.out or (ns.run_b if ns.run_b.is_dir() else ns.run_b.parent)
    json_path, html_path = compare.write(result, out)
    for m in result.regressions:
        rel = f" ({m.relative * 100:+.1f} %)" if m.relative is not None else ""
        console.plain(f"regression: {m.name} {m.a:g} -> {m.b:g} {m.unit}{rel}")
    for s in result.worse_stages:
        console.plain(f"regression: stage {s['stage']} {s['a']} -> {s['b']}")
    for f in result.findings_appeared:
        console.plain(f"new finding: [{f['severity']}] {f['title']}")
    console.plain(f"compare: {html_path}\ncompare: {json_path}")
    return 1 if result.regressed else 0


def _rules(args: list[str]) -> int:
    from advisor.rules import cli

    return cli.main(args)


def _lab(args: list[str]) -> int:
    from advisor.lab import cli

    return cli.main(args)


# ----------------------------------------------------------------------------- advisor run


def _run(args: list[str]) -> int:
    import hydra
    from hydra.core.hydra_config import HydraConfig
    from omegaconf import DictConfig

    from advisor import config
    from advisor.paths import conf_dir

    config.register()
    check_overrides(args, conf_dir())
    check_run_dir(args, conf_dir())
    codes: list[int] = []
    started = False

    @hydra.main(config_path=str(conf_dir()), config_name="config", version_base="1.3")
    def task(cfg: DictConfig) -> None:
        nonlocal started
        started = True
        # the runner brings the report and its charts: not imported for --help, --cfg or a
        # usage error, which never reach this function
        from advisor import runner

        try:
            typed = config.to_typed(cfg)
            run_dir = Path(HydraConfig.get().runtime.output_dir)
            overrides = list(HydraConfig.get().overrides.task)
            codes.append(
                runner.run(
                    typed,
                    run_dir,
                    command=shlex.join(["advisor", "run", *args]),
                    overrides=overrides,
                )
            )
        except AdvisorError as e:
            console.error(str(e))
            codes.append(e.exit_code)

    saved = sys.argv
    flags, overrides = split_args(args)
    sys.argv = ["advisor run", *flags, *overrides]
    try:
        task()
    except SystemExit as e:
        # Hydra reports its own errors (bad override value, missing group option) and exits 1;
        # nothing ran yet, so that is a usage error.
        code = e.code if isinstance(e.code, int) else 1
        if not started and code != 0:
            return 2
        if code != 0 and not codes:
            return code
    finally:
        sys.argv = saved
    return max(codes, default=0)


def _schema_fields(tp: Any) -> dict[str, Any]:
    if not (isinstance(tp, type) and is_dataclass(tp)):
        return {}
    hints = get_type_hints(tp)
    return {f.name: hints[f.name] for f in fields(tp)}


_FLAGS_WITH_VALUE = {
    "--config-name", "-cn", "--config-path", "-cp", "--config-dir", "-cd",
    "--experimental-rerun", "--package", "-p", "--cfg", "-c",
}  # fmt: skip


def split_args(args: list[str]) -> tuple[list[str], list[str]]:
    """Hydra's flags (with their values) apart from the overrides.

    Hydra's argparse rejects overrides on both sides of a flag (``a=1 --cfg job b=2``); passing
    the flags first lets people write them anywhere.
    """
    flags: list[str] = []
    overrides: list[str] = []
    take_value = False
    for a in args:
        if take_value:
            flags.append(a)
            take_value = False
        elif a.startswith("-"):
            flags.append(a)
            take_value = a in _FLAGS_WITH_VALUE
        else:
            overrides.append(a)
    return flags, overrides


def check_overrides(args: list[str], conf_dir: Path) -> None:
    """Catch typos before Hydra does, with the valid choices and a suggestion.

    Group choices come from the config tree; keys from the schema dataclasses. Values stay
    Hydra's business (it names the key and the expected type).
    """
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    from advisor.config import AdvisorConfig

    _, overrides = split_args(args)
    try:
        parsed = OverridesParser.create().parse_overrides(overrides)
    except HydraException as e:
        raise ConfigError(f"cannot parse overrides: {e}") from e
    groups = {p.name for p in conf_dir.iterdir() if p.is_dir() and p.name != "rules"}
    for o in parsed:
        key = o.key_or_group
        if key.startswith("hydra") or o.is_delete():
            continue
        if key == "rules":
            # conf/rules/ holds rule files, which Hydra would also offer as a config group.
            raise ConfigError(
                f"{o.input_line!r}: conf/rules/*.yaml are rule files, not config options; "
                "add rule directories with rules.dirs=[DIR], switch rules off with "
                "rules.disabled=[ID], see them with `advisor rules list`."
            )
        if key in groups:
            options = sorted(p.stem for p in (conf_dir / key).glob("*.yaml"))
            values = o.value()
            chosen = values if isinstance(values, list) else [values]
            for choice in chosen:
                if o.is_sweep_override() and not isinstance(choice, str):
                    continue
                if isinstance(choice, str) and choice not in options:
                    raise ConfigError(
                        f"no option {choice!r} in config group {key!r}; options: "
                        f"{', '.join(options)}{_suggest(choice, options)}"
                    )
                chosen_file = conf_dir / key / f"{choice}.yaml"
                if isinstance(choice, str) and paths.symlink_loop(chosen_file):
                    raise ConfigError(
                        paths.missing_path(
                            chosen_file,
                            f"{key}={choice}: config file",
                            f"choose another {key} ({', '.join(options)}).",
                        )
                    )
            continue
        if o.is_add():
            continue
        node: Any = AdvisorConfig
        path: list[str] = []
        for part in key.split("."):
            options_map = _schema_fields(node)
            if not options_map:
                break  # a free-form mapping (env, ...) or a list: any key is fine
            if part not in options_map:
                where = ".".join(path) or "the top level"
                raise ConfigError(
                    f"unknown config key {key!r}: {where} has no {part!r}; valid keys: "
                    f"{', '.join(sorted(options_map))}{_suggest(part, list(options_map))}"
                )
            path.append(part)
            node = options_map[part]


RUN_DIR_KEY = "hydra.run.dir"


def check_run_dir(args: list[str], conf: Path) -> None:
    """Refuse, before Hydra makes it, a run directory that cannot be made and written (a file
    in the way, a read-only place, a symbolic link loop): Hydra would fail with a traceback.

    The directory's name holds interpolations (``${now:...}``); its fixed part is checked."""
    import yaml

    if any(a in ("-m", "--multirun") for a in args):
        return  # a multirun writes under hydra.sweep.dir, one subdirectory per job
    given = [a.split("=", 1)[1] for a in args if a.split("=", 1)[0].lstrip("+") == RUN_DIR_KEY]
    if given:
        value = given[-1]
    else:
        primary = yaml.safe_load((conf / "config.yaml").read_text(encoding="utf-8"))
        value = str(primary["hydra"]["run"]["dir"])
    fixed = value.split("${", 1)[0]
    path = Path(fixed) if fixed == value or fixed.endswith("/") else Path(fixed).parent
    why = paths.unwritable_dir(path.expanduser())
    if why:
        raise ConfigError(
            f"run directory {value} cannot be written: {why}. Give {RUN_DIR_KEY}=DIR in a "
            "directory you can write (default: reports/DATE/TIME_CLUSTER under the current "
            "directory)."
        )


def _suggest(word: str, options: list[str]) -> str:
    close = difflib.get_close_matches(word, options, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""
