"""The documented timeout settings (defaults, ranges, quirks) and how to read them from a job's env.

One table, typed, so that the timeouts probe, the rules and the report agree on what each variable
means. Values come from the CANN (HCCL, torch_npu) and PyTorch documentation as summarised in the
design notes; ranges vary by CANN version and chip, the widest documented one is kept here and the
narrower forms are in ``note``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

ALL_BACKENDS = ("hccl", "nccl", "gloo")


@dataclass(frozen=True, kw_only=True)
class TimeoutSetting:
    """One documented setting that bounds how long a job waits before failing."""

    name: str
    """Environment variable, or the advisor's own key for settings given in code or on the
    command line (``pg_timeout_s``, ``join_timeout_s``)."""
    unit: str
    """``s`` for a duration in seconds, ``flag`` for an on/off or mode switch."""
    default: float
    """Value in effect when nothing sets it."""
    minimum: float | None = None
    """Smallest documented value; None when unbounded."""
    maximum: float | None = None
    """Largest documented value; None when unbounded."""
    backends: tuple[str, ...] = ALL_BACKENDS
    """Backends whose jobs read it."""
    effective_extra_s: float = 0.0
    """Seconds the library waits beyond the configured value (HCCL_CONNECT_TIMEOUT: about 20)."""
    zero_means_never: bool = False
    """0 disables the timeout (the job waits forever)."""
    backend_defaults: Mapping[str, float] = field(default_factory=dict)
    """Backend-specific defaults that replace ``default`` (torch's process-group timeout)."""
    note: str = ""
    """What it guards and the documented constraints beyond the range."""

    def default_for(self, backend: str) -> float:
        return self.backend_defaults.get(backend, self.default)


TIMEOUT_SETTINGS: dict[str, TimeoutSetting] = {
    s.name: s
    for s in (
        TimeoutSetting(
            name="HCCL_CONNECT_TIMEOUT",
            unit="s",
            default=120,
            minimum=120,
            maximum=7200,
            backends=("hccl",),
            effective_extra_s=20,
            note="socket link set-up between ranks at the first collective of a communicator; "
            "the effective wait is about the value + 20 s (EI0006 when it passes)",
        ),
        TimeoutSetting(
            name="HCCL_EXEC_TIMEOUT",
            unit="s",
            default=1836,
            minimum=0,
            maximum=2147483647,
            backends=("hccl",),
            zero_means_never=True,
            note="how long a device waits for its peers inside a collective (EI0002 when it "
            "passes); Atlas A2/A3 range; on Atlas training series (910) (0, 17340] in multiples "
            "of 68",
        ),
        TimeoutSetting(
            name="HCCL_EVENT_TIMEOUT",
            unit="s",
            default=1866,
            minimum=0,
            backends=("hccl",),
            zero_means_never=True,
            note="torch_npu's wait on a collective's completion event; unset: HCCL_EXEC_TIMEOUT "
            "+ 30 s (0 when that is 0), set: should exceed HCCL_EXEC_TIMEOUT (torch_npu "
            "ProcessGroupHCCL.cpp kOpWaitTimeout, kOpWaitTimeoutOffset = 30)",
        ),
        TimeoutSetting(
            name="TORCH_HCCL_ASYNC_ERROR_HANDLING",
            unit="flag",
            default=1,
            minimum=0,
            maximum=3,
            backends=("hccl",),
            note="torch_npu watchdog: 0 none, 1 tear down (default), 2 clean up only, 3 skip "
            "clean-up and tear down; wins over HCCL_ASYNC_ERROR_HANDLING (torch_npu "
            "OptionsManager.cpp CheckUseHcclAsyncErrorHandleEnable)",
        ),
        TimeoutSetting(
            name="HCCL_ASYNC_ERROR_HANDLING",
            unit="flag",
            default=1,
            minimum=0,
            maximum=3,
            backends=("hccl",),
            note="the deprecated name of TORCH_HCCL_ASYNC_ERROR_HANDLING, read only when that is "
            "unset (torch_npu OptionsManager.cpp)",
        ),
        TimeoutSetting(
            name="TORCH_NCCL_ASYNC_ERROR_HANDLING",
            unit="flag",
            default=3,
            minimum=0,
            maximum=3,
            backends=("nccl",),
            note="0 none, 1 tear down the process, 2 clean up only, 3 skip clean-up and tear "
            "down (default)",
        ),
        TimeoutSetting(
            name="pg_timeout_s",
            unit="s",
            default=1800,
            minimum=0,
            backend_defaults={"nccl": 600, "hccl": 3636},
            note="timeout given to init_process_group: how long a collective may block before "
            "the watchdog (nccl/hccl) or the backend (gloo) fails it; torch's defaults are "
            "10 min for nccl and 30 min otherwise; torch_npu replaces the 30-min default with "
            "HCCL_EXEC_TIMEOUT + 1800 s when the watchdog tears down (ProcessGroupHCCL.cpp)",
        ),
        TimeoutSetting(
            name="join_timeout_s",
            unit="s",
            default=600,
            minimum=0,
            note="torchrun's rendezvous join timeout (--rdzv-conf join_timeout=...): how long "
            "the first agent waits for the others to join",
        ),
    )
}
"""The documented table, keyed by variable name."""


@dataclass(kw_only=True)
class SettingFact:
    """One setting as a job of this run sees it (facts ``timeouts.settings.<NAME>``)."""

    value: float | None
    """The value in effect (set, or the default when unset); None when the set text is not a
    number, or when the default never times out (``never``)."""
    raw: str = ""
    """Text as set in the environment or config; empty when unset."""
    default: float
    """Documented default for this backend."""
    effective_s: float | None = None
    """Seconds the library really waits (value + documented extra); None for flags and for 0
    when 0 means never."""
    never: bool = False
    """The timeout is disabled (0 where 0 means never)."""
    range: list[float | None] = field(default_factory=list)
    """Documented [minimum, maximum]; None for an unbounded end."""
    unit: str = "s"
    source: str = "default"
    """env (job environment, including the config's ``env``), config (advisor config), or
    default (unset)."""
    applies: bool = True
    """The run's backend reads this setting."""
    in_range: bool = True
    """The value parses and lies inside the documented range."""
    error: str = ""
    """Why the value is unusable or out of range, naming the variable and the range."""
    ignored: str = ""
    """Why the library does not read it although it is set (another name wins)."""


def _number(text: str) -> float | None:
    try:
        return float(text.strip())
    except ValueError:
        return None


def setting_fact(
    spec: TimeoutSetting, raw: str | float | None, *, backend: str, source: str
) -> SettingFact:
    """Judge one setting: parse it, fill in the default, check the documented range."""
    default = spec.default_for(backend)
    text = "" if raw is None else str(raw)
    if raw is None or text.strip() == "":
        value: float | None = default
        source = "default"
    else:
        value = raw if isinstance(raw, float | int) else _number(text)
    fact = SettingFact(
        value=value,
        raw=text,
        default=default,
        range=[spec.minimum, spec.maximum],
        unit=spec.unit,
        source=source,
        applies=backend in spec.backends,
    )
    if value is None:
        fact.in_range = False
        fact.error = f"{spec.name}={text!r} is not a number"
        return fact
    if spec.zero_means_never and value == 0:
        fact.never = True
    elif spec.unit == "s":
        fact.effective_s = value + spec.effective_extra_s
    too_low = spec.minimum is not None and value < spec.minimum
    too_high = spec.maximum is not None and value > spec.maximum
    if too_low or too_high:
        fact.in_range = False
        lo = "" if spec.minimum is None else f"{spec.minimum:g}"
        hi = "" if spec.maximum is None else f"{spec.maximum:g}"
        fact.error = f"{spec.name}={text} is outside the documented range {lo}–{hi}"
    return fact


def timeout_settings(
    env: Mapping[str, str],
    *,
    backend: str,
    pg_timeout_s: float | None = None,
    join_timeout_s: float | None = None,
) -> dict[str, SettingFact]:
    """Every documented timeout setting as a job with environment ``env`` sees it.

    ``pg_timeout_s`` and ``join_timeout_s`` come from the advisor config (None: not given, the
    documented default applies). Defaults that follow other settings follow them here: an unset
    HCCL_EVENT_TIMEOUT is HCCL_EXEC_TIMEOUT + 30 s, the hccl process group's default is
    HCCL_EXEC_TIMEOUT + 1800 s while the watchdog tears down (error handling 1).
    """
    out: dict[str, SettingFact] = {}
    for name, spec in TIMEOUT_SETTINGS.items():
        if name == "pg_timeout_s":
            out[name] = setting_fact(spec, pg_timeout_s, backend=backend, source="config")
        elif name == "join_timeout_s":
            out[name] = setting_fact(spec, join_timeout_s, backend=backend, source="config")
        else:
            out[name] = setting_fact(spec, env.get(name), backend=backend, source="env")
    exec_s = out["HCCL_EXEC_TIMEOUT"].value
    event = out["HCCL_EVENT_TIMEOUT"]
    if event.source == "default" and exec_s is not None:
        follows = exec_s + EVENT_TIMEOUT_OFFSET_S if exec_s > 0 else 0.0
        event.value = event.default = follows
        event.never = follows == 0
        event.effective_s = None if event.never else follows
    torch_name, old_name = out["TORCH_HCCL_ASYNC_ERROR_HANDLING"], out["HCCL_ASYNC_ERROR_HANDLING"]
    if torch_name.source == "env" and old_name.source == "env":
        old_name.ignored = "TORCH_HCCL_ASYNC_ERROR_HANDLING is set and wins"
    mode = torch_name.value if torch_name.source == "env" else old_name.value
    pg = out["pg_timeout_s"]
    if backend == "hccl" and pg.source == "default" and exec_s is not None and mode == 1:
        # HCCL_EXEC_TIMEOUT=0: torch_npu's watchdog timeout becomes LLONG_MAX ms, i.e. never
        pg.never = exec_s == 0
        pg.value = None if pg.never else exec_s + 1800
        pg.default = pg.value if pg.value is not None else pg.default
        pg.effective_s = None if pg.never else pg.value
    elif backend == "hccl" and pg.source == "default":
        pg.value = pg.default = TIMEOUT_SETTINGS["pg_timeout_s"].default
        pg.effective_s = pg.value
    return out


EVENT_TIMEOUT_OFFSET_S = 30.0
"""torch_npu's kOpWaitTimeoutOffset: an unset HCCL_EVENT_TIMEOUT is HCCL_EXEC_TIMEOUT + this."""
