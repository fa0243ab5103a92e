"""Big Cityz's sentences: the rules, a placement, the chooser's squares, a timeout and a
reveal, read from the game's typed views and moves (``bot.games.bigcityz.views``)."""

from __future__ import annotations

from bot.core.i18n import Text, Words
from bot.core.records import Match
from bot.games.bigcityz.board import RISK_POINTS, risk_slots
from bot.games.bigcityz.names import city as city_name
from bot.games.bigcityz.names import short_name
from bot.games.bigcityz.names import statement as said_statement
from bot.games.bigcityz.views import (
    BigCityzView,
    Move,
    NoFreeSquare,
    PlacementView,
    PlaceRisk,
    PlaceSquare,
    PlacingMove,
    RevealEvent,
    SlotView,
)
from bot.ui.words import name

_ = Words("bot.games.bigcityz")
_n, _l, _ln, _p = _.plural, _.lazy, _.lazy_plural, _.context

FOOTER_TEXT = _l("City facts: see bot/data/bigcityz/SOURCES.md (GeoNames CC BY 4.0, OpenFlights "
                 "ODbL, Wikipedia CC BY-SA).")
FOOTER = FOOTER_TEXT.message  # the English, as tests and /settings read it

RULES_TEXT = _l("""\
**Big Cityz** — 2–6 players, city trivia. First to **36** points; the round is finished so \
everyone has had as many turns.
**Your turn.** A city is drawn and named. Put it on a square of a statement board you think \
is right: a **green** square if the statement is true of the city, a **red** one if false \
(the rarer answer pays more, 1–6). Or on a **risk field** between two boards: green if both \
statements are true, red if both are false (8 points, −2 if wrong).
**Replace.** First you may replace a board holding 3 cities (or 2 while its neighbouring risk \
fields hold 2): its cities leave and you must place on the new board. When no board can be \
replaced you may say **There's no free square**: right if no free square would have been \
correct (8, −2 if wrong).
**Objections.** Everyone else has two veto markers for the whole game. After a placement \
each may object once: if the placement is right each objector loses 3, if wrong each gains 3 \
and the player scores nothing. Markers are spent either way.
**Reveal.** The card is turned: right scores the square's points. Scores never go below 0.""")
RULES = RULES_TEXT.message  # the English; the adapter says RULES_TEXT in the reader's language

# The engine's knowledge option (``ai_level``: how many city facts every computer player
# knows) is shown as "computer knowledge", so it is not taken for the strategy level each
# computer seat has in the lobby. Its values, and so every saved option, stay easy, normal
# and hard; only the words players see changed.
KNOWLEDGE_TEXTS: dict[str, Text] = {
    "easy": _l("less (about half the facts)"),
    "normal": _l("normal (3 facts in 4)"),
    "hard": _l("more (9 facts in 10)"),
}
# In English, for the slash command's choices (whose names the command tree translates).
KNOWLEDGE_WORDS = {value: words.message for value, words in KNOWLEDGE_TEXTS.items()}


def knowledge_words(level: str) -> str:
    """The computer knowledge option in the reader's words."""
    return str(KNOWLEDGE_TEXTS[level]) if level in KNOWLEDGE_TEXTS else _("normal")


def _no_free_square() -> str:
    return _("said “There's no free square”")


def _colour(colour: str) -> str:
    return _("green") if colour == "green" else _("red")


def placement_text(placement: PlacementView) -> str:
    """What the placer did, as a phrase after their name: "put it on board 2, Coast: green 5
    (true)", "put it on the risk field between boards 1 and 2: red 8 (both false)" (the
    rulebook's words: a risk field lies between two statement boards). The colour is said
    with what it means, since a colour alone fails colour-blind players and "put it Green 5
    on Coast" does not read."""
    if placement["kind"] == "no_free_square":
        return _no_free_square()
    if placement["kind"] == "risk":
        return _risk_text(placement["risk"], placement["color"])
    return _square_text(placement["slot"], placement["statement"], placement["color"],
                        placement["points"])


def move_text(view: BigCityzView, move: PlaceSquare | PlaceRisk | NoFreeSquare) -> str:
    """``placement_text`` for a move just made (after "You"), the board read from ``view``."""
    if move["type"] == "no_free_square":
        return _no_free_square()
    if "risk" in move:
        return _risk_text(move["risk"], move["color"])
    return _square_text(move["slot"], board(view, move["slot"])["statement"], move["color"],
                        move["points"])


def _risk_text(risk: str, colour: str) -> str:
    first, second = risk.split("-")
    if colour == "green":
        return _("put it on the risk field between boards {first} and {second}: green "
                 "{points} (both true)", first=first, second=second, points=RISK_POINTS)
    return _("put it on the risk field between boards {first} and {second}: red "
             "{points} (both false)", first=first, second=second, points=RISK_POINTS)


def _square_text(slot: int, statement: str, colour: str, points: int) -> str:
    if colour == "green":
        return _("put it on board {slot}, {board}: green {points} (true)", slot=slot,
                 board=short_name(statement), points=points)
    return _("put it on board {slot}, {board}: red {points} (false)", slot=slot,
             board=short_name(statement), points=points)


def board(view: BigCityzView, slot: int) -> SlotView:
    """Statement board ``slot`` (1–4) as the view shows it."""
    return view["slots"][slot - 1]


def _mark(colour: str, risk: bool = False) -> str:
    """The badge the board draws on a square, with its word and colour: the ✓/✗ and the
    word carry the meaning for players who cannot tell green from red."""
    if colour == "green":
        return _("✓✓ both true") if risk else _("✓ true")
    return _("✗✗ both false") if risk else _("✗ false")


def target_option(view: BigCityzView, move: PlaceSquare | PlaceRisk) -> tuple[str, str]:
    """A free square as the board shows it: (label, description) for the menu, e.g.
    ("✓ true 5 (green) · board 2, Coast", "Is located on a coast")."""
    colour = move["color"]
    if "risk" in move:
        first, second = risk_slots(move["risk"])
        names = " & ".join(short_name(board(view, s)["statement"]) for s in (first, second))
        label = _("{mark} {points} ({colour}) · risk field between boards {first} and "
                  "{second}, {boards}", mark=_mark(colour, risk=True), points=RISK_POINTS,
                  colour=_colour(colour), first=first, second=second, boards=names)
        return label, _("Right: {points} points; wrong: −2", points=RISK_POINTS)
    slot = move["slot"]
    shown = board(view, slot)
    label = _("{mark} {points} ({colour}) · board {slot}, {board}", mark=_mark(colour),
              points=move["points"], colour=_colour(colour), slot=slot,
              board=short_name(shown["statement"]))
    return label, statement_text(shown["statement"])


def statement_text(statement: str) -> str:
    """A board's statement in the reader's words."""
    return said_statement(statement)


def action_label(view: BigCityzView, move: PlacingMove, label: str) -> str:
    """A Replace button names the board as the picture does: number and short name; "There's
    no free square" in the reader's words (the engine's ``label`` is English)."""
    if move["type"] == "replace":
        slot = move["slot"]
        return _("Replace board {slot} ({board})", slot=slot,
                 board=short_name(board(view, slot)["statement"]))
    if move["type"] == "no_free_square":
        return _("There's no free square")
    return label


def late_move_words(move: Move) -> str:
    """What the computer player did for someone whose time ran out."""
    if move["type"] == "replace":
        return _("replaced board {slot}", slot=move["slot"])
    if move["type"] == "veto":
        return _("objected")
    if move["type"] == "no_veto":
        return _("did not object")
    if move["type"] == "no_free_square":
        # TRANSLATORS: what the computer did for a late player ("... the computer player
        # {did} for them"), not the nominal phrase after a player's name
        return _p("late move", "said “There's no free square”")
    return _("placed the city")


def reveal_text(match: Match, event: RevealEvent) -> str:
    """A reveal: the city, whether the placement was right and by which facts, who objected
    and the points it moved."""
    city = city_name(event["city"])
    placer = event["player"]
    verdict = _("✅ right") if event["right"] else _("❌ wrong")
    facts = ", ".join(_("{board}: true", board=short_name(c["statement"])) if c["true"]
                      else _("{board}: false", board=short_name(c["statement"]))
                      for c in event["checked"])
    lines = [_("**{city}** — {player}: {verdict} ({facts}).", city=city,
               player=name(match, placer), verdict=verdict, facts=facts)]
    changes = [f"{name(match, p)} {'+' if d > 0 else ''}{d}"
               for p, d in event["points"].items() if d]
    if event["objectors"]:
        lines.append(_("Objected: {players}.",
                       players=", ".join(name(match, p) for p in event["objectors"])))
    lines.append(_("Points: {changes}.", changes=", ".join(changes)) if changes
                 else _("Points: none."))
    return "\n".join(lines)
