"""Diagnostics for a parsed script, beyond what the grammar can say."""

from engine.checks.checker import check

__all__ = ["check"]
