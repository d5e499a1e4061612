"""Collective benchmark: in-project all-reduce algorithms, the ``bench`` stage, the α–β model."""
