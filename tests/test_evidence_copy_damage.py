"""What a copy does to an output on its way to the advisor: a web page's escaped markup and
no-break or full-width spaces, Windows line ends, a log collector's prefix before every line
(kubectl's --timestamps and --prefix, docker compose's container name), an indent every line
shares. Each kind is taken off before reading, with a note, and the reading is the one of the
clean output (real samples from tests/data/evidence)."""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from advisor.evidence.load import EvidenceFacts, load_file
from tests.conftest import DATA

SAMPLES = [
    "nccl_all_reduce_2x8_mpi.log",
    "hccl_test_all_reduce_2x8.log",
    "npu_smi_info_910b_wide.txt",
    "npu_smi_topo_910b.txt",
    "nvidia_smi_topo.txt",
    "rank_table_v12.json",
    "hccn_port3_prompt_ip_route_ping.txt",
    "hccl_ei0006_init.log",
    "watchdog_nccl_allreduce.log",
]


def _lines(f: Callable[[str], str]) -> Callable[[str], str]:
    return lambda text: "\n".join(f(line) if line else line for line in text.split("\n"))


DAMAGE: dict[str, tuple[Callable[[str], str], str]] = {
    "html": (lambda t: html.escape(t, quote=True), "escaped text"),
    "nbsp": (lambda t: t.replace(" ", "\u00a0"), "no-break, full-width or zero-width"),
    "ideographic": (lambda t: t.replace("  ", "\u3000 "), "no-break, full-width or zero-width"),
    "crlf": (lambda t: t.replace("\n", "\r\n"), ""),
    "kubectl": (_lines(lambda line: f"2025-03-04T05:06:07.123456789Z {line}"), "kubectl's time"),
    "pod": (_lines(lambda line: f"[pod/trainer-worker-0/pytorch] {line}"), "kubectl's pod"),
    "compose": (_lines(lambda line: f"trainer-1  | {line}"), "docker compose's"),
    "indent": (_lines(lambda line: f"    {line}"), "the indent every line shares"),
}


def _summary(ev: EvidenceFacts) -> dict[str, Any]:
    report = ev.files[0]
    return {
        "status": report.status,
        "formats": report.formats,
        "failures": [(e["kind"], e["line"], e["rank"], e["code"]) for e in ev.failures],
        "rows": [len(b["results"]) for b in ev.benchmarks],
        "topologies": [t["links"] for t in ev.topologies],
        "chips": [(c["npu"], c["chip"], c["health"]) for c in ev.npu_chips],
        "ports": [(p["device"], p["ipaddr"], p["ping_loss_pct"]) for p in ev.npu_ports],
        "ranks": [t["ranks"] for t in ev.rank_tables],
    }


@pytest.mark.parametrize("damage", sorted(DAMAGE))
@pytest.mark.parametrize("name", SAMPLES)
def test_a_copys_damage_is_taken_off_and_the_output_read_as_it_was(
    name: str, damage: str, tmp_path: Path
) -> None:
    clean = DATA / "evidence" / name
    assert clean.exists(), clean
    whole = load_file(clean)
    assert whole.files[0].formats and whole.failures + whole.benchmarks + whole.topologies + (
        whole.npu_chips + whole.npu_ports + whole.rank_tables
    )
    damaged, said = DAMAGE[damage]
    text = clean.read_text(encoding="utf-8")
    copy = tmp_path / name
    copy.write_text(damaged(text), encoding="utf-8", newline="")
    again = load_file(copy)
    assert _summary(again) == _summary(whole)
    notes = [m.message for m in again.files[0].messages if m.line == 0]
    if said and damaged(text) != text:
        assert any(said in note for note in notes), notes


def test_a_line_prefix_is_taken_off_only_when_nearly_every_line_has_it(tmp_path: Path) -> None:
    # one compose-like line in a log is the log's own: nothing is taken off
    log = tmp_path / "mixed.log"
    text = (DATA / "evidence" / "watchdog_nccl_allreduce.log").read_text(encoding="utf-8")
    log.write_text("web-1  | started\n" + text, encoding="utf-8")
    ev = load_file(log)
    assert not any("compose" in m.message for m in ev.files[0].messages)
    # an entity-free log with a bare '&' is not unescaped
    amp = tmp_path / "amp.log"
    amp.write_text("a & b\n" + text, encoding="utf-8")
    assert not any("escaped" in m.message for m in load_file(amp).files[0].messages)


def test_an_address_a_page_made_a_link_is_read_as_the_address(tmp_path: Path) -> None:
    log = tmp_path / "ray.log"
    log.write_text(
        "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.\n"
        "\tclass_name: WorkerDict\n\tactor_id: 07GxnA\n\tpid: 87687\n"
        "\tnode_id: 5c1\n\tnamespace: ns\n\tip: [10.29.214.5](http://10.29.214.5/)\n"
        "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR "
        "Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of "
        "file.\n",
        encoding="utf-8",
    )
    ev = load_file(log)
    assert "10.29.214.5" in [e["host"] for e in ev.failures]
    assert any("Markdown link" in m.message for m in ev.files[0].messages)
