"""The copy of preflight that runs inside a lab node's network namespace (its own NICs, routes
and firewall): ``ip netns exec NS python -m advisor.probes.netns_preflight --spec FILE``.

It reads the run's configuration back from the spec (advisor.config), so it lives apart from the
preflight stage, which the configuration itself imports.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from advisor.cluster import Cluster
from advisor.config import to_typed
from advisor.context import HostContext
from advisor.probes.preflight import FAILED_EXIT, PreflightFailed, check_node


def main(argv: list[str] | None = None) -> int:
    """``python -m advisor.probes.netns_preflight --spec FILE``: one node's checks (inside its netns)."""
    parser = argparse.ArgumentParser(prog="python -m advisor.probes.netns_preflight")
    parser.add_argument("--spec", required=True, type=Path)
    spec = json.loads(parser.parse_args(argv).spec.read_text(encoding="utf-8"))
    cfg = to_typed(spec["cfg"])
    ctx = HostContext(
        stage="preflight",
        run_dir=Path(spec["run_dir"]),
        cluster=Cluster.from_dict(spec["cluster"]),
        node=int(spec["node"]),
        params=cfg.stages.preflight,
        cfg=cfg,
        nodes_here=[int(spec["node"])],  # a namespace is a network stack of its own
    )
    try:
        check_node(ctx, cfg.stages.preflight)
    except PreflightFailed as e:
        print(e, file=sys.stderr)
        return FAILED_EXIT
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
