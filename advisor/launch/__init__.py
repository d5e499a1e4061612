"""Starting distributed jobs through torchrun's elastic agent, and watching them.

- ``plan``: the launcher's configuration and the launch plan of a run: which nodes this advisor
  process starts agents for, the master and ports every node agrees on, each node's environment;
- ``commands``: the torchrun command line of one node's agent, wrapped for its node (network
  namespace, ssh, srun);
- ``supervise``: the agents as processes: started, watched, stopped with their whole tree;
- ``diagnose``: each rank's outcome from its records and the agents' failure summaries;
- ``jobs``: one job running a sequence of stages, each with its own deadline and outcome, and a
  fresh job for the stages after one that failed.

The launcher never spawns ranks itself: each node's agent starts them as ``python -m
advisor.worker``.
"""
