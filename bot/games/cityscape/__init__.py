"""Cityscape: build a 4x4 skyline to match your secret goals."""

from __future__ import annotations

from .engine import ENGINE

__all__ = ["ENGINE"]
