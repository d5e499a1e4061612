"""Flight recorder: every rank's recent collectives, dumped when a job fails, and what they say.

torch's flight recorder keeps, per rank, a ring buffer of the collectives each process group
enqueued (sequence id, op, sizes, dtypes, state). Comparing the buffers of all ranks names the
first collective where they diverge and who never entered it. ``settings`` (the variables per
backend), ``dump`` (rank side: dumps on request), ``load`` (reads dumps, never executing them),
``analyze`` (the advisor's own comparison), ``torch_analyzer`` (torch's, where it works).
"""
