"""Config composition: every preset composes and types check; typos fail clearly (exit 2)."""

from __future__ import annotations

import pytest
from hydra import compose, initialize_config_dir

from advisor.cli import check_overrides
from advisor.config import AdvisorConfig, register, to_typed
from advisor.errors import ConfigError
from advisor.paths import conf_dir

CONF = conf_dir()
PRESETS = sorted(p.stem for p in (CONF / "cluster").glob("*.yaml"))
LAUNCHERS = sorted(p.stem for p in (CONF / "launcher").glob("*.yaml"))
PROFILES = sorted(p.stem for p in (CONF / "profile").glob("*.yaml"))


def _compose(overrides: list[str]) -> AdvisorConfig:
    register()
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        return to_typed(compose(config_name="config", overrides=overrides))


def test_presets_cover_the_documented_shapes() -> None:
    assert {"local", "1x8", "2x8", "4x8", "2x2"} <= set(PRESETS)
    assert {"local", "torchrun", "env", "slurm", "ssh"} <= set(LAUNCHERS)
    assert {"quick", "standard", "deep", "soak"} <= set(PROFILES)


@pytest.mark.parametrize("preset", PRESETS)
def test_every_cluster_preset_composes(preset: str) -> None:
    cfg = _compose([f"+cluster={preset}"])
    assert cfg.cluster.name == preset
    nodes, _, per_node = preset.split("-")[0].partition("x")
    if per_node:
        assert (cfg.cluster.nodes, cfg.cluster.devices_per_node) == (int(nodes), int(per_node))


@pytest.mark.parametrize("launcher", LAUNCHERS)
def test_every_launcher_composes(launcher: str) -> None:
    assert _compose([f"launcher={launcher}"]).launcher.kind == launcher


@pytest.mark.parametrize("profile", PROFILES)
def test_every_profile_composes(profile: str) -> None:
    assert _compose([f"profile={profile}"]).profile == profile


def test_each_profile_gives_the_soak_its_budget() -> None:
    """DCGM-like levels: a minute and two (off unless asked), 15 minutes in deep, an hour."""
    budgets = {}
    for profile in ("quick", "standard", "deep", "soak"):
        soak = _compose([f"profile={profile}"]).stages.soak
        budgets[profile] = (soak.enabled, soak.duration_s)
        assert soak.deadline_s >= soak.duration_s + 120, profile
    assert budgets == {
        "quick": (False, 60),
        "standard": (False, 120),
        "deep": (True, 900),
        "soak": (True, 3600),
    }
    asked = _compose(["stages.soak.enabled=true", "stages.soak.duration_s=90"]).stages.soak
    assert asked.enabled and asked.duration_s == 90


def test_overrides_reach_the_typed_config() -> None:
    cfg = _compose(
        ["+cluster=2x8", "cluster.hosts=[n0,n1]", "emulate=true", "+env.HCCL_BUFFSIZE=400"]
    )
    assert cfg.cluster.hosts == ["n0", "n1"]
    assert cfg.emulate is True
    assert cfg.env == {"HCCL_BUFFSIZE": "400"}


def test_validation_names_the_key_and_the_fix() -> None:
    with pytest.raises(ConfigError, match=r"cluster.hosts lists 3 hosts but cluster.nodes=2"):
        _compose(["+cluster=2x8", "cluster.hosts=[a,b,c]"])
    with pytest.raises(ConfigError, match=r"launcher.kind='rsh'"):
        _compose(["launcher.kind=rsh"])


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["cluster.hostz=[a]"], r"unknown config key 'cluster.hostz'.*did you mean 'hosts'"),
        (["+cluster=2x9"], r"no option '2x9' in config group 'cluster'; options: .*2x8"),
        (["profile=quik"], r"did you mean 'quick'"),
        (["emulat=true"], r"unknown config key 'emulat'.*valid keys: .*emulate"),
        (["stages.smoke.deadline=3"], r"stages.smoke has no 'deadline'.*deadline_s"),
    ],
)
def test_typos_are_caught_with_the_valid_choices(overrides: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        check_overrides(overrides, CONF)


def test_free_form_maps_and_hydra_keys_pass() -> None:
    check_overrides(["env.ANY_VAR=1", "hydra.run.dir=/tmp/x", "+cluster=2x2", "--cfg", "job"], CONF)
