"""Per-size algorithm tables for the libraries' tuner plugins: read, checked, written.

``formats`` knows the two files: NCCL's example tuner plugin CSV (``NCCL_TUNER_CONFIG_FILE``)
and HCCL's tuner plugin JSON (``HCCL_TUNER_CONFIG_FILE``), as their plugins' own code reads
them; ``advisor tuner validate FILE`` reports what those plugins would silently do with a file.
"""
