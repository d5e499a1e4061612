"""The cluster model: placement, groups, and the clear refusal of a device the host lacks."""

from __future__ import annotations

import pytest

from advisor.cluster import Cluster, ClusterConfig, resolve
from advisor.errors import BackendUnavailable, ConfigError


def _cluster(nodes: int, per_node: int) -> Cluster:
    return resolve(
        ClusterConfig(name="t", nodes=nodes, devices_per_node=per_node, device="npu"), emulate=True
    )


def test_node_major_placement_and_groups() -> None:
    c = _cluster(2, 8)
    assert c.world_size == 16 and c.emulated and c.backend == "gloo" and c.declared_device == "npu"
    assert [c.node_of(r) for r in (0, 7, 8, 15)] == [0, 0, 1, 1]
    assert c.node_groups() == [list(range(8)), list(range(8, 16))]
    # One rank per node with the same local rank: [l, l+8], never the article's [0, 1].
    assert c.inter_node_groups() == [[local, local + 8] for local in range(8)]
    assert c.link_class(0, 7) == "intra" and c.link_class(7, 8) == "inter"
    assert c.node_name(1) == "node1"


def test_round_trip_through_dict() -> None:
    c = _cluster(4, 2)
    again = Cluster.from_dict(c.to_dict())
    assert again == c


def test_npu_without_torch_npu_is_a_clear_error() -> None:
    pytest.importorskip("torch")
    import importlib.util

    if importlib.util.find_spec("torch_npu") is not None:
        pytest.skip("torch_npu is installed here")
    with pytest.raises(BackendUnavailable, match=r"torch_npu is not installed.*emulate=true"):
        resolve(ClusterConfig(name="2x8", nodes=2, devices_per_node=8, device="npu"), emulate=False)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"nodes": 0}, "cluster.nodes must be at least 1"),
        ({"device": "tpu"}, "cluster.device='tpu' is not one of"),
        ({"nodes": 2, "hosts": ["a"]}, "lists 1 hosts but cluster.nodes=2"),
        ({"master_port": 70000}, "not a TCP port"),
    ],
)
def test_bad_cluster_values(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        ClusterConfig(**kwargs)  # type: ignore[arg-type]


def test_device_auto_and_the_torch_version_are_known_without_importing_torch() -> None:
    # device=auto and the run's environment facts read the installed torch's version file
    # instead of importing torch (a second and more of every CLI start); they must say what
    # torch itself says.
    import subprocess
    import sys

    probe = (
        "import sys; from advisor import backends; "
        "print(backends.detect(), backends.versions('cpu')['torch'], 'torch' in sys.modules)"
    )
    detected, version, imported = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.split()
    import torch

    has_gpu = torch.cuda.is_available()
    assert (detected, version) == ("cuda" if has_gpu else "cpu", str(torch.__version__))
    # a CPU build needs no import at all; a CUDA build is asked
    if torch.version.cuda is None and torch.version.hip is None:
        assert imported == "False"
