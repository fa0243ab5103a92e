"""Screens: what a private reply shows — a player's neighbourhood, everyone's, what a
finished turn did — and what the chooser (``components.chooser``) is placing."""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.engine import JSON
from bot.core.i18n import Words
from bot.core.records import Match
from bot.core.runtime import Outcome
from bot.games.cities.content import CONTENT
from bot.games.cities.data_words import colour_word, feature_text
from bot.games.cities.views import (
    Move,
    Placing,
    has_neighbourhood,
    phase_of,
    place_move,
    table,
)
from bot.ui.screens import Screen
from bot.ui.words import name

from .words import achievement_name, card_name, cards_text, did_words

_ = Words("bot.games.cities")

# -- screens ----------------------------------------------------------------------------


@dataclass
class CitiesScreen(Screen):
    """A private reply (``bot.ui.screens.Screen``) and the picture it shows: a preview of
    ``player``'s neighbourhood with lettered choices, the neighbourhood of ``hood_of``, or
    ``everyone``'s."""

    hood_of: str | None = None
    player: str = ""
    everyone: bool = False


def focus_keys(pending: Placing | None) -> list[str]:
    """The distinct things still to place (feature ids, piece colours, the tile id)."""
    return list(dict.fromkeys(pending["items"])) if pending else []


def action_key(action: Move) -> str | None:
    """Which of the things still to place (``focus_keys``) a move places or removes: a
    feature id or a piece colour; None for a tile (the only one) or another move."""
    if action["type"] == "place_feature" or action["type"] == "discard_feature":
        return str(action["feature"])
    if action["type"] == "place_piece" or action["type"] == "discard_piece":
        return str(action["color"])
    return None


def focus_words(row: str, key: str) -> str:
    if row == "tiles":
        return _("your city tile {tile} ({layout})", tile=key, layout=CONTENT.tiles[key].label())
    if row == "features":
        return _("your {feature} feature tile", feature=feature_text(CONTENT.features[key]))
    return _("a {colour} piece", colour=colour_word(key))


def preview_choice(label: str, action: JSON) -> JSON:
    """A lettered spot's mark on the preview picture (``action``: a placement the chooser
    letters)."""
    move = place_move(action)
    if move["type"] == "place_tile":
        return {"label": label, "tile_at": list(move["at"]), "rotation": move["rotation"]}
    return {"label": label, "space": list(move["space"])}


def hood_screen(match: Match, player: str) -> CitiesScreen:
    assert match.state is not None
    view = table(match.state)
    score = view["scores"].get(player)
    rings = [_("{name} ({vp} VP)", name=achievement_name(a["name"]), vp=r["vp"])
             for a in view["city"]["achievements"] for r in a["rings"] if r["player"] == player]
    lines = [_("**Your neighbourhood** · {score} points if the game ended now", score=score)
             if score is not None else _("**Your neighbourhood**")]
    if player not in view["neighbourhoods"]:
        lines.append(_("You have not chosen a starting tile yet."))
        return CitiesScreen("\n".join(lines))
    lines.append(_("Achievements: {list}", list=", ".join(rings) if rings else _("none yet")))
    lines.append(_("Scoring cards:\n{list}", list=cards_text(match, view, player)))
    return CitiesScreen("\n".join(lines), hood_of=player)


def hoods_screen(match: Match) -> CitiesScreen:
    """Every player's neighbourhood, score so far and scoring cards: all of it lies face up
    at a real table, so anyone watching may look, at any time."""
    assert match.state is not None
    view = table(match.state)
    scores = view["scores"]
    lines = [_("**Every neighbourhood** (the picture shows them all)")]
    for player in view["players"]:
        cards = [card_name(card["name"]) for card in view["cards_held"].get(player, [])]
        score = scores.get(player)
        parts = [f"• **{name(match, player)}**"]
        if score is not None:
            parts.append(" — " + _("{score} points so far", score=score))
        parts.append(" · " + (_("cards: {list}", list=", ".join(cards)) if cards
                              else _("no scoring cards")))
        if player not in view["neighbourhoods"]:
            parts.append(" · " + _("no starting tile yet"))
        lines.append("".join(parts))
    return CitiesScreen("\n".join(lines)[:2000], everyone=True)


def done_screen(match: Match, player: str, outcome: Outcome) -> CitiesScreen:
    """What the player did, once their turn is over, with their neighbourhood."""
    did = did_words(player, outcome)
    setup = match.state is not None and phase_of(match.state) == "start_tiles"
    did.append(_("Done.") if setup else _("Your turn is over."))
    seated = match.state is not None and has_neighbourhood(match.state, player)
    return CitiesScreen(" ".join(did), hood_of=player if seated else None)

