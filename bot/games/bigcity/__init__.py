"""Big City: the city-building game for 2 to 5 players (rules in docs/bigcity.md)."""

from __future__ import annotations

from bot.core.engine import JSON, LegalAction, Result
from bot.core.levels import Budget
from bot.games.bigcity import engine as _rules


class BigCityEngine:
    """The Big City engine; every method is a pure function of its arguments."""

    name = "bigcity"
    title = "Big City"
    min_players = 2
    max_players = 5
    # The shape of the saved state; raise it with an upgrade_state step when that shape
    # changes (docs/upgrades.md).
    state_version = 1
    # Listing the placements of a neighbourhood takes ~20 ms: the bot does it off the loop.
    slow_legal = True

    def new(self, players: list[str], options: JSON, seed: int) -> JSON:
        return _rules.new(players, options, seed)

    def to_act(self, state: JSON) -> list[str]:
        return _rules.to_act(state)

    def legal(self, state: JSON, player: str) -> list[LegalAction]:
        return _rules.legal(state, player)

    def apply(self, state: JSON, player: str | None, action: JSON) -> tuple[JSON, list[JSON]]:
        return _rules.apply(state, player, action)

    def view(self, state: JSON, viewer: str | None) -> JSON:
        return _rules.view(state, viewer)

    def result(self, state: JSON) -> Result | None:
        return _rules.result(state)

    def ai_action(self, state: JSON, player: str) -> JSON:
        return _rules.ai_action(state, player)

    def level_action(self, state: JSON, player: str, level: str, budget: Budget) -> JSON:
        """Easy's and hard's move (normal is ``ai_action``): see ``levels.py``."""
        from bot.games.bigcity import levels

        return levels.level_action(state, player, level, budget)

    def timeout_action(self, state: JSON) -> tuple[str | None, JSON] | None:
        return _rules.timeout_action(state)


ENGINE = BigCityEngine()

__all__ = ["ENGINE", "BigCityEngine"]
