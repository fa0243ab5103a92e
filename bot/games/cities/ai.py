"""The computer player: a greedy drafter that places everything where it scores most.

It values a neighbourhood by the score it would have if the game ended now (held scoring
cards, water and park areas, monuments, the open achievements it meets) plus a light,
fading estimate of what is still to come (half-built towers for held cards, room for more
feature kinds in an area, empty city spaces, progress toward open achievements). Each item
on the board is worth the value its best placement adds; a scoring card is worth what it
scores now plus its calibrated average (``ai_hint_card_mean_vp``) times the share of the
game still to play. It takes from the row where its favourite's lead over the runner-up,
plus 0.7 x the favourite's worth, is largest; then it places each thing where it gains
most and removes what gains nothing. It reads only the public table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.core.engine import JSON
from bot.core.rng import peek

from .memo import memo
from .mind import Mind
from .valuation import BEST_WEIGHT, LEAD_WEIGHT, PLACE_SHORTLIST

if TYPE_CHECKING:
    from .engine import CitiesEngine

# The player lives in this package's modules, one job each: its weights and terms
# (valuation.py), its estimates of what is to come (estimates.py), the Mind that values
# and places (mind.py) and the valuations shared within a decision (memo.py). Callers
# (levels.py, the engine) use the names below.
__all__ = ["BEST_WEIGHT", "LEAD_WEIGHT", "Mind", "choose_action", "memo"]


def choose_action(engine: CitiesEngine, state: JSON, player: str) -> JSON:
    """The move for ``player``, deterministic for a given state."""
    if state["phase"] == "start_tiles":
        tiles = state["start_tiles"]
        # The four starting tiles are of equal value (content design 1.1): pick any.
        pick = peek(state["seed"], "start tile", player).randrange(len(tiles))
        return {"type": "choose_start_tile", "tile": tiles[pick]}
    mind = Mind(state, player)
    pending = state["pending"]
    if pending is None:
        return mind.choose_take()
    if pending["row"] == "tiles":
        _, at, rotation = mind.best_tile(pending["items"][0], PLACE_SHORTLIST)
        return {"type": "place_tile", "at": [at[0], at[1]], "rotation": rotation}
    if pending["row"] == "features":
        feature_id, space = mind.next_feature(pending["items"])
        if space is None:
            return {"type": "discard_feature", "feature": feature_id}
        return {"type": "place_feature", "feature": feature_id, "space": [space[0], space[1]]}
    colour, spot = mind.next_piece(pending["items"])
    if spot is None:
        return {"type": "discard_piece", "color": colour}
    return {"type": "place_piece", "color": colour, "space": [spot[0], spot[1]]}
