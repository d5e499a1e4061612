"""Round TTTT, set 708 (framework logs on NVIDIA clusters): real outputs the importer read wrong
or in part (tests/data/evidence_heldout_80, sources in tests/data/SOURCES.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from advisor.parsers import ParseError, logs

DATA = Path(__file__).parent / "data" / "evidence_heldout_80"
MEGATRON_ONLY = (
    DATA / "megatron_deepspeed_3d_64gpu_early_loss_spike_recovers_bigscience_ds_on_cut.log"
)


def test_megatron_iteration_lines_with_no_logger_line_are_a_log_not_a_crash() -> None:
    # (the import stopped with StopIteration: the logger's first line was looked for among
    # lines that were all Megatron's iteration prints)
    text = MEGATRON_ONLY.read_text()
    assert logs.is_program_log(text)
    # a copy of its iteration lines only, no "time (ms)" between them: the same
    only = "\n".join(line for line in text.splitlines() if line.startswith(" iteration "))
    assert logs.is_program_log(only)


def test_megatron_iteration_lines_alone_import_ready(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run = subprocess.run(
        [sys.executable, "-m", "advisor", "import", str(MEGATRON_ONLY), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in run.stderr, run.stderr
    assert run.returncode == 0, run.stdout + run.stderr
    assert "verdict: READY\n" in run.stdout


STORE_OVERFULL = DATA / "torch_ddp_store_barrier_waiting_world4_worker8_g4dn_yolov5_4290_cut.log"
USER_NAMEERROR = DATA / "deepspeed_launcher_2gpu_user_script_nameerror_ds618_cut.log"
DS_KILLS = DATA / "deepspeed_launcher_8gpu_killing_subprocess_traceback_ds1581_cut.log"


def _import(path: Path, tmp_path: Path) -> str:
    run = subprocess.run(
        [sys.executable, "-m", "advisor", "import", str(path), "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback (most recent call last)" not in run.stderr, run.stderr
    return run.stdout


def test_megatron_iteration_lines_note_the_spike_that_recovered() -> None:
    report = logs.parse(MEGATRON_ONLY.read_text())
    assert not report.events
    (note,) = [w.message for w in report.unread if "Megatron's training log" in w.message]
    assert "iterations 2-49 of 1000" in note
    assert "125.6-141.1 s per iteration" in note
    assert "12.45 (line 1) spiking to 43.06 (line 5) and back to 7.75 (line 95)" in note
    assert "the spike recovered" in note and "no error" in note


def test_megatron_iteration_lines_loss_nan_to_the_end_is_diverged(tmp_path: Path) -> None:
    # the same lines, the loss NaN from iteration 40 on: no recovery, a divergence warning
    text = MEGATRON_ONLY.read_text().splitlines()
    out = []
    for line in text:
        it = logs._MEGATRON_ITERATION_RE.match(line)
        if it and int(it.group("i")) >= 40:
            line = logs._MEGATRON_LM_LOSS_RE.sub("| lm-loss: nan", line)
        out.append(line)
    report = logs.parse("\n".join(out) + "\n")
    assert [e.kind for e in report.events] == ["loss_diverged"]


def test_store_barrier_more_workers_than_world_is_not_ready(tmp_path: Path) -> None:
    report = logs.parse(STORE_OVERFULL.read_text())
    (ev,) = [e for e in report.events if e.kind == "store_barrier_overfull"]
    assert (ev.line, ev.rank_size, ev.numel) == (1, 4, 8)
    assert "world_size=4, worker_count=8; rank(s) 0, 1, 2, 3 waiting" in (ev.exception_type or "")
    out = _import(STORE_OVERFULL, tmp_path)
    assert "verdict: NOT READY\n" in out
    assert "evidence-store-barrier-overfull" in out


def test_store_barrier_overfull_variants(tmp_path: Path) -> None:
    text = STORE_OVERFULL.read_text()
    # another size: an 8-rank world with 16 workers, newer torch's "num_workers_joined"
    other = text.replace("world_size=4, worker_count=8", "world_size=8, num_workers_joined=16")
    (ev,) = [e for e in logs.parse(other).events if e.kind == "store_barrier_overfull"]
    assert (ev.rank_size, ev.numel) == (8, 16)
    # a healthy twin: the count equal to the world, then the barrier completed: no finding
    healthy = (
        text.splitlines()[0].replace("worker_count=8", "worker_count=4")
        + "\nRank 0: Completed store-based barrier for key:store_based_barrier_key:1 with 4 nodes.\n"
    )
    # (no line of it says anything wrong: the log reader finds nothing to read, no finding)
    with pytest.raises(ParseError):
        logs.parse(healthy)
    # fewer workers than the world is still the (older) wait reading, not this one
    short = text.replace("worker_count=8", "worker_count=3")
    kinds = {e.kind for e in logs.parse(short).events}
    assert "store_barrier_overfull" not in kinds and "store_barrier_wait" in kinds


def test_user_script_nameerror_is_a_warning_not_the_cluster(tmp_path: Path) -> None:
    report = logs.parse(USER_NAMEERROR.read_text())
    (ev,) = report.events
    assert (ev.kind, ev.line, ev.exception_type) == ("user_script_error", 11, "NameError")
    assert ev.call == "fail.py, line 1, in <module>"
    out = _import(USER_NAMEERROR, tmp_path)
    assert "verdict: READY WITH WARNINGS\n" in out
    assert "evidence-user-script-error" in out and "garbageeeeee" in out


def test_user_script_error_variants() -> None:
    text = USER_NAMEERROR.read_text()
    # a SyntaxError in the script: its location line names no function
    syntax = text.replace(
        "    garbageeeeee\nNameError: name 'garbageeeeee' is not defined",
        "    def f(:\n          ^\nSyntaxError: invalid syntax",
    ).replace(", line 1, in <module>\n    def", ", line 1\n    def")
    (ev,) = logs.parse(syntax).events
    assert (ev.kind, ev.exception_type) == ("user_script_error", "SyntaxError")
    # the same NameError raised inside an installed package: not the script's text, kept
    lib = text.replace('File "fail.py"', 'File "/usr/lib/python3.8/site-packages/deepspeed/x.py"')
    (ev,) = logs.parse(lib).events
    assert ev.kind == "python_exception"
    # another exception in the script (a RuntimeError): still the exception reading
    other = text.replace("NameError: name 'garbageeeeee' is not defined", "RuntimeError: boom")
    (ev,) = logs.parse(other).events
    assert ev.kind == "python_exception"


def test_deepspeed_launcher_kills_its_8_ranks_before_its_traceback(tmp_path: Path) -> None:
    report = logs.parse(DS_KILLS.read_text())
    (ev,) = report.events
    assert (ev.kind, ev.line) == ("launcher_exit", 1)
    assert "killed its 8 worker process(es) 250621, 250622" in ev.message
    assert "250632" in ev.message and "a worker exited non-zero" in ev.message
    assert "line 9" in ev.message
    out = _import(DS_KILLS, tmp_path)
    assert "verdict: NOT READY\n" in out and "evidence-launcher-exit" in out


def test_deepspeed_kills_variants() -> None:
    lines = DS_KILLS.read_text().splitlines(keepends=True)
    # two ranks killed on another node's launcher: the count follows
    two = "".join(lines[:2] + lines[8:])
    (ev,) = logs.parse(two).events
    assert "killed its 2 worker process(es) 250621, 250622" in ev.message
    # the traceback above the kills is not the launcher's exit after them: the kills are read
    # without the word that a worker failed
    above = "".join(lines[8:] + lines[:8])
    (ev,) = logs.parse(above).events
    assert ev.kind == "launcher_exit" and "or the launcher was signalled" in ev.message
