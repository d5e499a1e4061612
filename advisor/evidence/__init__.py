"""Bring your own evidence: files ops teams already hold, turned into facts the rules read.

``advisor import PATH...`` (and ``advisor run evidence=[PATH,...]``) reads nccl-tests and
hccl_test logs, ``npu-smi`` / ``nvidia-smi`` / ``hccn_tool`` outputs, ``/etc/hccn.conf``, Ascend
rank tables and failure logs. :mod:`advisor.evidence.load` detects each file's formats and
converts what it reads into :class:`advisor.evidence.load.EvidenceFacts` (``Facts.evidence``);
:mod:`advisor.evidence.command` writes a run directory and runs the rules and the report.
"""
