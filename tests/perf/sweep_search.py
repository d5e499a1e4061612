"""Benchmark: does the default sweep search find the grid's optimum cheaply, and how much faster
than default DDP is what it recommends?

Runs the same sweep twice through the real CLI, once as the exhaustive grid and once with the
default search (coordinate descent), on the built-in model whose gradients are large against its
compute (``comm_heavy``), at one batch size per rank so both compare at the same batch:

- search efficiency: the default search's choice, measured *in the grid run* (so measurement
  noise between the two runs does not count for or against it), against the grid's optimum, and
  its trial count against the grid's. The same search is also replayed over the grid's recorded
  table (no noise at all) for the same two figures.
- speedup: the recommended setting's samples/s over default DDP's (fp32 gradients, 25 MB
  buckets, native all_reduce) in the grid run.

    python tests/perf/sweep_search.py --out /tmp/sweep-bench [--record] [-- OVERRIDES...]

- confirmation (``--confirm N``): the grid's optimum is the largest of many noisy measurements,
  so it is biased upwards (the winner's curse: on a shared 2-core host, settings with identical
  arithmetic differ by 10-20 % from one trial to the next). The search's choice and the grid's
  optimum are then re-measured N times each, alternately (A B A B ...), as one-trial sweeps in
  the same place, and their medians compared.

Extra Hydra overrides after ``--`` choose the cluster and launcher (e.g. the lab: a 2x4 cluster
with ``launcher.netns=[...]``). ``--record`` appends the figures to tests/perf/RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from advisor.sweep import search  # noqa: E402
from advisor.sweep.config import TrialConfig  # noqa: E402
from tests.conftest import only_stages  # noqa: E402

COMMON = [
    *only_stages("sweep"),
    "stages.sweep.model.preset=comm_heavy",
    "stages.sweep.model.steps=4",
    "stages.sweep.model.nosync_steps=2",
    "stages.sweep.base.batch_size=4",
    "stages.sweep.batch_sizes=[4]",
    "stages.sweep.precisions=[fp32,bf16]",
    "stages.sweep.comms=[fp32,fp16,bf16,powersgd:4]",
    "stages.sweep.bucket_caps_mb=[5,25,100]",
    "stages.sweep.gradient_as_bucket_view=[false]",
    "stages.sweep.scaling=false",
    "stages.sweep.max_trials=8",
    "stages.sweep.deadline_s=7200",
    "stages.sweep.trial_deadline_s=400",
]


def run(run_dir: Path, overrides: list[str]) -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    argv = [sys.executable, "-m", "advisor", "run", *overrides, f"hydra.run.dir={run_dir}"]
    t0 = time.monotonic()
    proc = subprocess.run(argv, env=env, text=True, capture_output=True, check=False)
    print(proc.stdout[-4000:], proc.stderr[-2000:], sep="\n")
    facts = json.loads((run_dir / "facts.json").read_text())
    data = facts["stages"]["sweep"]["data"]
    data["wall_s"] = time.monotonic() - t0
    return data


def usable(t: dict) -> bool:
    return t["status"] == "ok" and not t["diverged"] and bool(t["samples_per_s"])


def replay(grid: dict, base: TrialConfig) -> tuple[TrialConfig, int]:
    """The default search run against the grid's recorded table instead of live jobs."""
    table = {t["key"].split("|", 1)[1]: t for t in grid["trials"]}
    seen: set[str] = set()

    def evaluate(trial: TrialConfig) -> search.Outcome:
        seen.add(trial.key())
        t = table.get(trial.key())
        if t is None:  # a grid cut short: a setting it never measured counts as failed
            return search.Outcome(score=None)
        return search.Outcome(
            score=t["samples_per_s"] if usable(t) else None, oom=t["status"] == "oom"
        )

    space = search.Space(
        batch_sizes=[4],
        precisions=["fp32", "bf16"],
        comms=["fp32", "fp16", "bf16", "powersgd:4"],
        bucket_caps_mb=[5.0, 25.0, 100.0],
        gradient_as_bucket_view=[False],
        native_envs=[""],
    )
    best = search.coordinate_descent(space, base, evaluate, passes=2)
    return best, len(seen)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--reuse-grid", action="store_true", help="read an existing grid run")
    parser.add_argument(
        "--no-live-search",
        action="store_true",
        help="judge the search by its replay on the grid's table only (saves its trials)",
    )
    parser.add_argument(
        "--reuse-search", action="store_true", help="read an existing live search run too"
    )
    parser.add_argument(
        "--confirm",
        type=int,
        default=0,
        metavar="N",
        help="re-measure the search's choice and the grid optimum N times each, alternately",
    )
    parser.add_argument(
        "--speedup-only",
        action="store_true",
        help="no grid: one live default search, its recommendation against default DDP",
    )
    parser.add_argument("overrides", nargs="*")
    args = parser.parse_args()
    overrides = [*COMMON, *args.overrides]
    grid_dir, coord_dir = args.out / "grid", args.out / "coordinate"
    if args.speedup_only:
        coord = run(coord_dir, [*overrides, "stages.sweep.search=coordinate"])
        lines = [speedup_line("default search (live)", coord)]
        return report(lines, args)
    if args.reuse_grid:
        facts = json.loads((grid_dir / "facts.json").read_text())
        grid = facts["stages"]["sweep"]["data"]
        grid["wall_s"] = facts["run"]["duration_s"]
    else:
        grid = run(grid_dir, [*overrides, "stages.sweep.search=grid"])
    grid_by_key = {t["key"]: t for t in grid["trials"]}
    grid_trials = len(grid["trials"])
    optimum = max(t["samples_per_s"] for t in grid["trials"] if usable(t))
    base = TrialConfig(batch_size=4)
    replay_best, replay_trials = replay(grid, base)
    replay_score = next(
        (t["samples_per_s"] for k, t in grid_by_key.items() if k.endswith(replay_best.key())), 0.0
    )
    lines = [
        f"- grid: {grid_trials} trials in {grid['wall_s']:.0f} s, optimum {optimum:.1f} samples/s "
        f"({grid['best']['throughput']['config']})",
        f"- default search replayed on the grid's table: {replay_trials} trials "
        f"({replay_trials / grid_trials:.2f} of the grid), chose {replay_best.key()} = "
        f"{(replay_score or 0.0) / optimum:.3f} of the optimum",
    ]
    chosen_config = None
    if args.reuse_search:
        coord = json.loads((coord_dir / "facts.json").read_text())["stages"]["sweep"]["data"]
    elif not args.no_live_search:
        coord = run(coord_dir, [*overrides, "stages.sweep.search=coordinate"])
    if args.reuse_search or not args.no_live_search:
        coord.setdefault("wall_s", 0.0)
        choice = coord["best"]["throughput"]
        chosen_config = choice["config"]
        choice_key = next(t["key"] for t in coord["trials"] if t["id"] == choice["trial"])
        choice_in_grid = grid_by_key[choice_key]["samples_per_s"] or 0.0
        lines.append(
            f"- default search (live): {len(coord['trials'])} trials in {coord['wall_s']:.0f} s "
            f"({len(coord['trials']) / grid_trials:.2f} of the grid); chose {choice_key}, "
            f"{choice_in_grid:.1f} samples/s in the grid run = {choice_in_grid / optimum:.3f} "
            f"of the optimum (live: {choice['samples_per_s']:.1f})"
        )
    lines.append(speedup_line("grid run", grid))
    if args.confirm:
        optimum_cfg = next(
            t["config"] for t in grid["trials"] if usable(t) and t["samples_per_s"] == optimum
        )
        choice_cfg = chosen_config if chosen_config is not None else _as_config(replay_best)
        lines += confirm(args.out, overrides, choice_cfg, optimum_cfg, args.confirm)
    return report(lines, args)


def _as_config(trial: TrialConfig) -> dict:
    return {
        "precision": trial.precision,
        "comm": trial.comm,
        "bucket_cap_mb": trial.bucket_cap_mb,
    }


def _one_setting(cfg: dict) -> list[str]:
    return [
        f"stages.sweep.precisions=[{cfg['precision']}]",
        f"stages.sweep.comms=[{cfg['comm']}]",
        f"stages.sweep.bucket_caps_mb=[{cfg['bucket_cap_mb']:g}]",
        "stages.sweep.search=grid",
    ]


def confirm(
    out: Path, overrides: list[str], choice: dict, optimum: dict, repeats: int
) -> list[str]:
    """Re-measure the search's choice and the grid's optimum alternately; compare medians."""
    name = {"choice": choice, "optimum": optimum}
    measured: dict[str, list[float]] = {"choice": [], "optimum": []}
    for i in range(repeats):
        for which in ("choice", "optimum"):
            cfg = name[which]
            data = run(out / f"confirm-{which}-{i}", [*overrides, *_one_setting(cfg)])
            # the run also holds the fp32 reference its divergence check needs
            (trial,) = [
                t
                for t in data["trials"]
                if all(t["config"][k] == cfg[k] for k in ("precision", "comm", "bucket_cap_mb"))
            ]
            measured[which].append(trial["samples_per_s"] if usable(trial) else 0.0)
    med = {k: statistics.median(v) for k, v in measured.items()}
    describe = {
        k: f"{v['precision']}/{v['comm']}/{v['bucket_cap_mb']:g}MB" for k, v in name.items()
    }
    return [
        f"- confirmation, {repeats} alternate re-measurements each: search's choice "
        f"{describe['choice']} {', '.join(f'{x:.2f}' for x in measured['choice'])} "
        f"(median {med['choice']:.2f}); grid optimum {describe['optimum']} "
        f"{', '.join(f'{x:.2f}' for x in measured['optimum'])} (median {med['optimum']:.2f}); "
        f"choice / optimum = {med['choice'] / med['optimum']:.3f}",
    ]


def speedup_line(what: str, data: dict) -> str:
    best = data["best"]["throughput_same_batch"]
    return (
        f"- recommended vs default DDP at the same batch per rank ({what}): "
        f"{data['speedup_vs_baseline']:.2f}x ({data['baseline'].get('samples_per_s') or 0:.1f} "
        f"-> {best['samples_per_s']:.1f} samples/s, {best['config']})"
    )


def report(lines: list[str], args: argparse.Namespace) -> int:
    print("\n".join(lines))
    if args.record:
        now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        flags = [
            f
            for f in ("--no-live-search", "--speedup-only", "--reuse-grid", "--reuse-search")
            if getattr(args, f[2:].replace("-", "_"))
        ]
        if args.confirm:
            flags.append(f"--confirm {args.confirm}")
        cmd = " ".join(
            ["python tests/perf/sweep_search.py --out DIR --record", *flags, "--", *args.overrides]
        )
        text = (
            f"\n## Sweep search efficiency and speedup — {now}\n\n"
            f"Command: `{cmd}`\n"
            f"Machine: {os.cpu_count()} CPUs, {platform.platform()}, shared with other jobs "
            f"(load average {os.getloadavg()[0]:.0f} at the end)\n"
            f"Sweep: {' '.join(COMMON)}\n\n" + "\n".join(lines) + "\n"
        )
        with open(REPO / "tests" / "perf" / "RESULTS.md", "a", encoding="utf-8") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
