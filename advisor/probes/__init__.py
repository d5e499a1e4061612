"""Readiness probes: each a stage whose typed summary is documented beside its code."""
