"""Who is who on a Big City picture: each player's colour and marker."""

from __future__ import annotations

from bot.render import cast

from .constants import View

# -- who is who --------------------------------------------------------------------------


class Cast(cast.Cast):
    """The seats of ``view``'s players, then of any owner of a building the list lacks."""

    def __init__(self, view: View) -> None:
        players = [str(p) for p in view.get("players") or []]
        # Owners the list lacks (a view missing keys) still get a style of their own.
        for piece in view.get("buildings") or []:
            owner = piece.get("owner")
            if owner is not None and str(owner) not in players:
                players.append(str(owner))
        super().__init__(players)
