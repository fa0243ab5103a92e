"""Big Cityz's sentences: the rules, a placement, the chooser's squares, a timeout and a
reveal, read from the game's typed views and moves (``bot.games.bigcityz.views``)."""

from __future__ import annotations

from bot.core.records import Match
from bot.games.bigcityz.board import RISK_POINTS, risk_slots, short_name
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

FOOTER = ("City facts: see bot/data/bigcityz/SOURCES.md (GeoNames CC BY 4.0, OpenFlights ODbL, "
          "Wikipedia CC BY-SA).")

RULES = """\
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
**Reveal.** The card is turned: right scores the square's points. Scores never go below 0."""

# The engine's knowledge option (``ai_level``: how many city facts every computer player
# knows) is shown as "computer knowledge", so it is not taken for the strategy level each
# computer seat has in the lobby. Its values, and so every saved option, stay easy, normal
# and hard; only the words players see changed.
KNOWLEDGE_WORDS = {"easy": "less (about half the facts)", "normal": "normal (3 facts in 4)",
                   "hard": "more (9 facts in 10)"}


NO_FREE_SQUARE = "said “There's no free square”"


def placement_text(placement: PlacementView) -> str:
    """What the placer did, as a phrase after their name: "put it on board 2, Coast: green 5
    (true)", "put it on the risk field between boards 1 and 2: red 8 (both false)" (the
    rulebook's words: a risk field lies between two statement boards). The colour is said
    with what it means, since a colour alone fails colour-blind players and "put it Green 5
    on Coast" does not read."""
    if placement["kind"] == "no_free_square":
        return NO_FREE_SQUARE
    if placement["kind"] == "risk":
        return _risk_text(placement["risk"], placement["color"])
    return _square_text(placement["slot"], placement["statement"], placement["color"],
                        placement["points"])


def move_text(view: BigCityzView, move: PlaceSquare | PlaceRisk | NoFreeSquare) -> str:
    """``placement_text`` for a move just made (after "You"), the board read from ``view``."""
    if move["type"] == "no_free_square":
        return NO_FREE_SQUARE
    if "risk" in move:
        return _risk_text(move["risk"], move["color"])
    return _square_text(move["slot"], board(view, move["slot"])["statement"], move["color"],
                        move["points"])


def _risk_text(risk: str, colour: str) -> str:
    first, second = risk.split("-")
    meaning = "both true" if colour == "green" else "both false"
    return (f"put it on the risk field between boards {first} and {second}: {colour} "
            f"{RISK_POINTS} ({meaning})")


def _square_text(slot: int, statement: str, colour: str, points: int) -> str:
    meaning = "true" if colour == "green" else "false"
    return (f"put it on board {slot}, {short_name(statement)}: {colour} "
            f"{points} ({meaning})")


def board(view: BigCityzView, slot: int) -> SlotView:
    """Statement board ``slot`` (1–4) as the view shows it."""
    return view["slots"][slot - 1]


def _mark(colour: str, risk: bool = False) -> str:
    """The badge the board draws on a square, with its word and colour: the ✓/✗ and the
    word carry the meaning for players who cannot tell green from red."""
    if colour == "green":
        return "✓✓ both true" if risk else "✓ true"
    return "✗✗ both false" if risk else "✗ false"


def target_option(view: BigCityzView, move: PlaceSquare | PlaceRisk) -> tuple[str, str]:
    """A free square as the board shows it: (label, description) for the menu, e.g.
    ("✓ true 5 (green) · board 2, Coast", "Is located on a coast")."""
    colour = move["color"]
    if "risk" in move:
        first, second = risk_slots(move["risk"])
        names = " & ".join(short_name(board(view, s)["statement"]) for s in (first, second))
        label = (f"{_mark(colour, risk=True)} {RISK_POINTS} ({colour}) · risk field between "
                 f"boards {first} and {second}, {names}")
        return label, f"Right: {RISK_POINTS} points; wrong: −2"
    slot = move["slot"]
    shown = board(view, slot)
    label = (f"{_mark(colour)} {move['points']} ({colour}) · board {slot}, "
             f"{short_name(shown['statement'])}")
    return label, shown["text"]


def action_label(view: BigCityzView, move: PlacingMove, label: str) -> str:
    """A Replace button names the board as the picture does: number and short name."""
    if move["type"] == "replace":
        slot = move["slot"]
        return f"Replace board {slot} ({short_name(board(view, slot)['statement'])})"
    return label


def late_move_words(move: Move) -> str:
    """What the computer player did for someone whose time ran out."""
    if move["type"] == "replace":
        return f"replaced board {move['slot']}"
    return {"veto": "objected", "no_veto": "did not object",
            "no_free_square": NO_FREE_SQUARE}.get(move["type"], "placed the city")


def reveal_text(match: Match, event: RevealEvent) -> str:
    """A reveal: the city, whether the placement was right and by which facts, who objected
    and the points it moved."""
    city = event["city"]["name"]
    placer = event["player"]
    verdict = "✅ right" if event["right"] else "❌ wrong"
    facts = ", ".join(f"{short_name(c['statement'])}: {'true' if c['true'] else 'false'}"
                      for c in event["checked"])
    lines = [f"**{city}** — {name(match, placer)}: {verdict} ({facts})."]
    changes = [f"{name(match, p)} {'+' if d > 0 else ''}{d}"
               for p, d in event["points"].items() if d]
    if event["objectors"]:
        lines.append("Objected: " + ", ".join(name(match, p) for p in event["objectors"]) + ".")
    lines.append("Points: " + (", ".join(changes) if changes else "none") + ".")
    return "\n".join(lines)
