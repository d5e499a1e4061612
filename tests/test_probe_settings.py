"""The documented timeout table and how a job's environment is read against it (pure)."""

from __future__ import annotations

from advisor.probes.settings import TIMEOUT_SETTINGS, setting_fact, timeout_settings


def test_unset_variables_take_the_documented_defaults() -> None:
    s = timeout_settings({}, backend="hccl")
    assert s["HCCL_CONNECT_TIMEOUT"].value == 120
    assert s["HCCL_CONNECT_TIMEOUT"].source == "default"
    # HCCL waits about 20 s beyond the configured connect timeout.
    assert s["HCCL_CONNECT_TIMEOUT"].effective_s == 140
    assert s["HCCL_EXEC_TIMEOUT"].value == 1836
    # torch_npu: an unset HCCL_EVENT_TIMEOUT is HCCL_EXEC_TIMEOUT + 30 s (kOpWaitTimeoutOffset)
    assert s["HCCL_EVENT_TIMEOUT"].value == 1836 + 30
    assert s["TORCH_HCCL_ASYNC_ERROR_HANDLING"].value == 1
    assert s["HCCL_ASYNC_ERROR_HANDLING"].value == 1
    assert s["TORCH_NCCL_ASYNC_ERROR_HANDLING"].value == 3
    assert s["join_timeout_s"].value == 600


def test_unset_event_timeout_follows_the_exec_timeout() -> None:
    s = timeout_settings({"HCCL_EXEC_TIMEOUT": "600"}, backend="hccl")
    assert (s["HCCL_EVENT_TIMEOUT"].value, s["HCCL_EVENT_TIMEOUT"].source) == (630, "default")
    never = timeout_settings({"HCCL_EXEC_TIMEOUT": "0"}, backend="hccl")["HCCL_EVENT_TIMEOUT"]
    assert never.never and never.value == 0


def test_process_group_default_depends_on_the_backend() -> None:
    assert timeout_settings({}, backend="nccl")["pg_timeout_s"].value == 600
    assert timeout_settings({}, backend="gloo")["pg_timeout_s"].value == 1800
    # torch_npu replaces torch's 30-min default with HCCL_EXEC_TIMEOUT + 1800 s while its
    # watchdog tears down (error handling 1, the default) ...
    assert timeout_settings({}, backend="hccl")["pg_timeout_s"].value == 1836 + 1800
    env = {"HCCL_EXEC_TIMEOUT": "900"}
    assert timeout_settings(env, backend="hccl")["pg_timeout_s"].value == 2700
    # ... and keeps the 30 minutes in the other modes
    env = {"TORCH_HCCL_ASYNC_ERROR_HANDLING": "2"}
    assert timeout_settings(env, backend="hccl")["pg_timeout_s"].value == 1800


def test_the_torch_name_of_async_error_handling_wins() -> None:
    env = {"TORCH_HCCL_ASYNC_ERROR_HANDLING": "1", "HCCL_ASYNC_ERROR_HANDLING": "0"}
    s = timeout_settings(env, backend="hccl")
    assert s["HCCL_ASYNC_ERROR_HANDLING"].ignored
    assert not s["TORCH_HCCL_ASYNC_ERROR_HANDLING"].ignored
    # the deprecated name still decides while the new one is unset
    s = timeout_settings({"HCCL_ASYNC_ERROR_HANDLING": "3"}, backend="hccl")
    assert s["pg_timeout_s"].value == 1800 and not s["HCCL_ASYNC_ERROR_HANDLING"].ignored
    given = timeout_settings({}, backend="hccl", pg_timeout_s=900.0)["pg_timeout_s"]
    assert (given.value, given.source, given.effective_s) == (900.0, "config", 900.0)


def test_values_from_the_environment_are_parsed_and_range_checked() -> None:
    env = {"HCCL_CONNECT_TIMEOUT": "60", "HCCL_EXEC_TIMEOUT": "0", "HCCL_EVENT_TIMEOUT": "abc"}
    s = timeout_settings(env, backend="hccl")
    connect = s["HCCL_CONNECT_TIMEOUT"]
    assert (connect.value, connect.raw, connect.source) == (60.0, "60", "env")
    assert not connect.in_range
    assert "HCCL_CONNECT_TIMEOUT=60" in connect.error and "120–7200" in connect.error
    execute = s["HCCL_EXEC_TIMEOUT"]
    assert execute.never and execute.effective_s is None and execute.in_range
    event = s["HCCL_EVENT_TIMEOUT"]
    assert event.value is None and not event.in_range
    assert "HCCL_EVENT_TIMEOUT='abc' is not a number" in event.error


def test_settings_say_which_backend_reads_them() -> None:
    s = timeout_settings({}, backend="nccl")
    assert s["TORCH_NCCL_ASYNC_ERROR_HANDLING"].applies
    assert not s["HCCL_CONNECT_TIMEOUT"].applies
    assert s["pg_timeout_s"].applies


def test_flag_above_its_range_is_flagged() -> None:
    fact = setting_fact(
        TIMEOUT_SETTINGS["TORCH_HCCL_ASYNC_ERROR_HANDLING"], "4", backend="hccl", source="env"
    )
    assert not fact.in_range and fact.effective_s is None
    assert fact.range == [0, 3]
