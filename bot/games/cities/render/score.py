"""Score so far, from the view's breakdowns."""

from __future__ import annotations

from typing import Any

from .. import scoring
from ..content import CONTENT
from .constants import View
from .hood import Hood

# -- score so far --------------------------------------------------------------------------


def _rings_of(view: View, player: str) -> list[tuple[str, int]]:
    got = []
    for achievement in (view.get("city") or {}).get("achievements") or []:
        for ring in achievement.get("rings") or []:
            if ring.get("player") == player:
                got.append((str(achievement["id"]), int(ring["vp"])))
    return got


def _breakdown(view: View, player: str) -> dict[str, Any] | None:
    done = (view.get("breakdown") or {}).get(player)
    if done:
        return dict(done)
    data = (view.get("neighbourhoods") or {}).get(player)
    if not data:
        return None
    cards = [str(c["id"]) for c in (view.get("cards_held") or {}).get(player) or []
             if c.get("id") in CONTENT.cards]
    try:
        return scoring.breakdown(Hood(data).engine_hood(), cards, _rings_of(view, player))
    except (KeyError, ValueError):  # a view from another version: show what we can
        return None


def _score(view: View, player: str) -> int:
    scores = view.get("scores") or {}
    if player in scores:
        return int(scores[player])
    found = _breakdown(view, player)
    return int(found["total"]) if found else 0
