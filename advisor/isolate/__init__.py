"""Isolation: which node, NIC or link makes a full-size job fail or run slow (bisection)."""
