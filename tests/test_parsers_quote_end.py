"""A long line's quote keeps its end as well as its start: where a runtime wrapping another's
error puts the cause (CANN's EI0006 ends with its "Possible Cause" list; an OCI runtime's
"... exit status 1: owner not right /usr/bin/runc 1000"), a quote cut at 300 characters lost it."""

from __future__ import annotations

from pathlib import Path

from advisor.parsers import logs

DATA = Path(__file__).parent / "data"
EI0006 = (
    DATA / "evidence_heldout_26" / "mindspore_cann_ei0006_resnet8p_rank1_distribute_task_failed.log"
)


def test_a_long_cann_error_line_is_quoted_with_its_possible_causes_at_its_end() -> None:
    text = EI0006.read_text()
    line = text.splitlines()[32].strip()
    assert len(line) > logs.QUOTE_CHARS + logs.QUOTE_END_CHARS  # (the real line is long)
    ev = next(e for e in logs.parse(text).events if e.kind == "hccl_error" and e.line == 33)
    # its start as before, its end now too (the causes CANN lists last), " … " between
    assert ev.message.startswith(line[: logs.QUOTE_CHARS])
    assert ev.message.endswith("the TLS configurations are inconsistent.)")
    assert " … " in ev.message
    assert len(ev.message) == logs.QUOTE_CHARS + len(" … ") + logs.QUOTE_END_CHARS


def test_a_line_that_fits_start_and_end_is_quoted_whole() -> None:
    line = EI0006.read_text().splitlines()[32].strip()
    fits = line[: logs.QUOTE_CHARS + logs.QUOTE_END_CHARS]
    assert logs._quoted(fits) == fits  # (nothing left out: no " … ")
    assert (
        logs._quoted(fits + "x")
        == f"{fits[: logs.QUOTE_CHARS]} … {(fits + 'x')[-logs.QUOTE_END_CHARS :]}"
    )
