"""Custom ids and the kinds of action: what ties a component to a moment of the game."""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.engine import LegalAction
from bot.core.i18n import Text, Words
from bot.core.records import Match
from bot.games.bigcity.views import move_of, table

_ = Words("bot.games.bigcity")
_l = _.lazy

# The stamp's part of a component's id template (bot/ui/items.py): ``v<version>`` or
# ``t<turn of a trade>``.
STAMP = "{kind:[vt]}{num:[0-9]{1,9}}"
PLAYING_STEPS = ("start", "main")


# -- custom ids -------------------------------------------------------------------------


@dataclass(frozen=True)
class Stamp:
    """What ties a component to a moment of the game: the state version (``v``), or for
    answers to a trade, the turn of that trade (``t``)."""

    match_id: int
    kind: str
    number: int

    @property
    def base(self) -> str:
        return f"ch:bc:{self.match_id}:{self.kind}{self.number}"

    def holds(self, match: Match) -> bool:
        if match.state is None:
            return False
        if self.kind == "v":
            return match.version == self.number
        view = table(match.state)
        return view["step"] == "trade_offers" and view["turn_number"] == self.number

    def stale_reason(self) -> str:
        return (_("That button belongs to an earlier board.") if self.kind == "v"
                else _("That trade is over."))


def board(match: Match) -> Stamp:
    return Stamp(match.id, "v", match.version)


def trade_stamp(match: Match) -> Stamp:
    assert match.state is not None
    return Stamp(match.id, "t", table(match.state)["turn_number"])


# -- what kinds of action there are ---------------------------------------------------


@dataclass(frozen=True)
class Category:
    code: str
    title: Text  # the button's label
    types: tuple[str, ...]
    empty: Text  # why the chooser has nothing to offer
    emoji: str


CATEGORIES: dict[str, Category] = {c.code: c for c in (
    Category("b", _l("Build"), ("build",), _l("Your cards allow no building right now."), "🏠"),
    Category("k", _l("Park or factory"), ("special",),
             _l("You can't place a park or factory now: it takes its card, city hall, and free "
                "properties of its shape."), "🌳"),
    Category("s", _l("Streetcar"), ("streetcar",),
             _l("There is no street where a streetcar may go now."), "🚋"),
    Category("n", _l("Neighborhood"), ("place_neighborhood",),
             _l("No neighborhood can be placed now."), "🧩"),
    Category("x", _l("Exchange"), ("exchange",), _l("You have no cards to exchange now."),
             "🔄"),
    Category("d", _l("Discard useless"), ("discard_useless",),
             _l("Only cards of properties under a park or factory can be discarded, at the "
                "start of your turn, and you hold none now."), "🗑️"),
    Category("t", _l("Trade"), ("trade",), _l("You can't start a trade now."), "🤝"),
    Category("p", _l("Pass"), ("pass",), _l("You can't pass now."), "⏭️"),
    Category("r", _l("Answer the trade"), ("trade_offer", "trade_decline"),
             _l("You have nothing to answer now."), "🤝"),
    Category("w", _l("Trade offers"), ("trade_accept", "trade_end", "exchange"),
             _l("There are no trade offers for you now."), "🤝"),
)}
MAP_CODES = "bksn"
CARD_CODES = "xdtr"


def of_kind(legal: list[LegalAction], code: str) -> list[tuple[int, LegalAction]]:
    types = CATEGORIES[code].types
    return [(i, la) for i, la in enumerate(legal) if move_of(la.action)["type"] in types]
