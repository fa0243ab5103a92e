"""Cities: the tile-drafting game (Steve Finn & Phil Walker-Harding), with Cityhall's own
tile and card content (data/cities/; not the publisher's components)."""

from __future__ import annotations

from bot.core.engine import Engine

from .engine import CitiesEngine

ENGINE: Engine = CitiesEngine()

__all__ = ["ENGINE", "CitiesEngine"]
