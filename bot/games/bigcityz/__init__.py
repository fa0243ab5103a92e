"""Big Cityz: place city cards on the statements you think are true (or false) of them."""

from __future__ import annotations

from .engine import ENGINE

__all__ = ["ENGINE"]
