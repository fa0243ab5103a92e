"""Cityscape's sentences: the rules, the goal codes, builds, lines and a round's scoring."""

from __future__ import annotations

from typing import Final

from bot.core.i18n import Words
from bot.core.records import Match
from bot.games.cityscape.skyline import LINES
from bot.games.cityscape.terms import side_letter
from bot.games.cityscape.views import Block, CityscapeView, Move, RoundScored
from bot.ui.words import final_line, name

_ = Words("bot.games.cityscape")
_l = _.lazy

# The rules as said to the reader (``/cityscape rules``, a lobby's How to play); ``RULES``
# is their English, the same words.
RULES_TEXT: Final = _l("""\
**Cityscape** — 2–4 players, 25 blocks (five each of heights 1–5) on a 4×4 city.
**1. Goals (secret).** Each player picks a code for each of the four lines seen from their \
side, left to right: **1–4** see exactly that many buildings (10/20/30/40), **5** see two or \
more buildings of equal height (10 per such building), **6** hold the city's tallest \
building (25).
**2. Building.** In turn, place one block of any height left on any lot, empty or on top of \
a building. No passing. The round ends when all 25 blocks stand.
**Seeing.** A building is seen when it is taller than everything in front of it; vacant lots \
are not buildings. For code 5 only, equal buildings behind each other both count, as long \
as nothing taller stands in front.
**3. Scoring.** Goals are revealed and each line that meets its code scores. Totals run \
over the rounds (one per player; four with two players) and the starting player rotates.
**Two players** each own two adjacent sides (S+W and N+E), set goals for both and score both.
Lots are A1–D4: letters are columns west→east, digits rows south→north.""")
RULES: Final = RULES_TEXT.message


def built_words(build: Block) -> str:
    """A build (the move, or the view's last build) in words: "built a 3-high block on B2"."""
    # TRANSLATORS: what the computer player did for a player whose time ran out, said after
    # "the computer player".
    return _("built a {height}-high block on {lot}", height=build["height"], lot=build["lot"])


def built_by_words(player: str, build: Block) -> str:
    """A build and its builder: "Ann built a 3-high block on B2"."""
    return _("{player} built a {height}-high block on {lot}", player=player,
             height=build["height"], lot=build["lot"])


def line_name(side: str, index: int) -> str:
    """A side's line as the board letters it: "column B" or "row 3"."""
    lots = LINES[side][index]
    if lots[0][0] == lots[1][0]:
        return _("column {letter}", letter=lots[0][0])
    return _("row {digit}", digit=lots[0][1])


def late_move_words(action: Move) -> str:
    """What the computer player did for someone whose time ran out."""
    if action["type"] == "build":
        return built_words(action)
    # TRANSLATORS: as "built a 3-high block on B2", said after "the computer player".
    return _("chose goals for their {letter} side", letter=side_letter(action["side"]))


def scored_words(match: Match, event: RoundScored, view: CityscapeView, over: bool) -> str:
    """A round's scoring: every side's codes and points per line, the totals, and at the
    end of the game who won."""
    lines = [_("**Round {round} scored** — goals revealed:", round=event["round"])]
    for side, result in event["sides"].items():
        codes = "-".join(str(c) for c in result["codes"])
        per_line = " + ".join(str(line["points"]) for line in result["lines"])
        lines.append(f"{side_letter(side)} {name(match, result['player'])}:"
                     f" {codes} → {per_line} = **{result['points']}**")
    totals = ", ".join(f"{name(match, p)} {t}" for p, t in event["totals"].items())
    lines.append(_("Totals: {totals}", totals=totals))
    if over:
        lines.append(final_line(match, view))
    return "\n".join(lines)
