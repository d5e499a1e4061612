"""Errors the CLI turns into a clear message and an exit code, never a traceback."""

from __future__ import annotations


class AdvisorError(Exception):
    """Base of the advisor's own errors: the message names what is wrong and the fix."""

    exit_code = 1


class ConfigError(AdvisorError):
    """Bad configuration, override, cluster file or rule file: exit code 2."""

    exit_code = 2


class BackendUnavailable(ConfigError):
    """The declared device or backend cannot run on this host."""
