"""The emulated multi-node lab: nodes as Linux network namespaces on shaped links (needs root).

Each lab node is a network namespace with one NIC (a veth) on a bridge that lives in a namespace
of the lab's own, so lab traffic never touches the host's interfaces. Links are shaped with
``tc`` (htb rate; netem delay, jitter and loss where the kernel has it, otherwise loss through
iptables' ``statistic`` match), and the fault helpers take links down, block ports, degrade a
link and kill ranks. The advisor runs in it through its real multi-node launch path.
"""

from advisor.lab.netns import Lab, LabError, LinkShape, cleanup_stale, list_labs

__all__ = ["Lab", "LabError", "LinkShape", "cleanup_stale", "list_labs"]
