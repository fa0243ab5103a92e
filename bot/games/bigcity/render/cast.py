"""Who is who on a Big City picture: each player's colour and marker."""

from __future__ import annotations

from typing import Any

from bot.render import kit

from .constants import View

# -- who is who --------------------------------------------------------------------------


class Cast:
    """Each player's style and a drawable name, in seat order."""

    def __init__(self, view: View) -> None:
        players = [str(p) for p in view.get("players") or []]
        # Owners the list lacks (a view missing keys) still get a style of their own.
        for piece in view.get("buildings") or []:
            owner = piece.get("owner")
            if owner is not None and str(owner) not in players:
                players.append(str(owner))
        self.players = players
        self.index = {p: i for i, p in enumerate(players)}

    def style(self, player: str) -> kit.PlayerStyle:
        return kit.player_style(self.index.get(player, 0))

    def fallback(self, player: str) -> str:
        return f"Player {self.index.get(player, 0) + 1}"

    def name(self, player: str, size: int, bold: bool = True, max_width: int | None = None) -> str:
        return kit.prepare(player, size, bold, max_width, self.fallback(player))

    def chip(self, player: str) -> tuple[str, Any]:
        return ("chip", (player, self.style(player), self.fallback(player)))
