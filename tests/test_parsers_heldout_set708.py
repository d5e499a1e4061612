"""Round TTTT, set 708 (framework logs on NVIDIA clusters): real outputs the importer read wrong
or in part (tests/data/evidence_heldout_80, sources in tests/data/SOURCES.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from advisor.parsers import logs

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
