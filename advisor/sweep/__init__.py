"""Training sweeps: trials of a real DDP job over batch size, precision and gradient
communication; the best setting per objective and its scaling efficiency.

``stage`` is the driver stage, ``train`` what each rank of a trial runs, ``model`` the built-in
workload, ``external`` the user's own command as workload, ``search`` the strategies.
"""
