"""The lab's command line where no root is needed: usage errors and the root requirement."""

from __future__ import annotations

import os

import pytest

from advisor import cli
from advisor.errors import ConfigError
from advisor.lab import cli as lab_cli


def test_lab_without_root_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(ConfigError, match="the lab needs root"):
        lab_cli.main(["up", "--nodes", "2"])
    assert cli.main(["lab", "down", "--all"]) == 2


def test_lab_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["lab"]) == 2
    assert "advisor lab COMMAND" in capsys.readouterr().out
    assert cli.main(["lab", "bogus"]) == 2
    assert "unknown lab command 'bogus'" in capsys.readouterr().err
