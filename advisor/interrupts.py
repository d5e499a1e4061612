"""Ctrl-C held back over a few steps that must happen together (stdlib only: the runner and the
launcher both use it)."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def ctrl_c_held() -> Iterator[None]:
    """Hold a Ctrl-C back until the block ends, then raise it as the handler it replaced would.

    Used where an interrupt between two steps would leave a half: a stage's outcome in the stages
    file but not in facts.json, or a job's agents started and nobody holding them to stop (the
    interrupted-run drill once found two agents alive after the run had exited). Masking the
    signal would not do: another thread of the process may take it, and Python runs a handler at
    once. Off the main thread (no handler can be set there) the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught and callable(previous):
            previous(signal.SIGINT, None)  # Python's default handler raises KeyboardInterrupt
        elif caught and previous == signal.SIG_DFL:
            raise KeyboardInterrupt
