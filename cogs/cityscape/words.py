"""Cityscape's sentences: the rules, the goal codes, builds, lines and a round's scoring."""

from __future__ import annotations

from bot.core.records import Match
from bot.games.cityscape.skyline import LINES
from bot.games.cityscape.views import Block, CityscapeView, Move, RoundScored
from bot.ui.words import final_line, name

CODE_POINTS = {1: "10 points", 2: "20 points", 3: "30 points", 4: "40 points",
               5: "10 points per equal-height building seen", 6: "25 points"}

RULES = """\
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
Lots are A1–D4: letters are columns west→east, digits rows south→north."""


def built_words(build: Block) -> str:
    """A build (the move, or the view's last build) in words: "built a 3-high block on B2"."""
    return f"built a {build['height']}-high block on {build['lot']}"


def line_name(side: str, index: int) -> str:
    """A side's line as the board letters it: "column B" or "row 3"."""
    lots = LINES[side][index]
    if lots[0][0] == lots[1][0]:
        return f"column {lots[0][0]}"
    return f"row {lots[0][1]}"


def late_move_words(action: Move) -> str:
    """What the computer player did for someone whose time ran out."""
    if action["type"] == "build":
        return built_words(action)
    return f"chose goals for their {action['side']} side"


def scored_words(match: Match, event: RoundScored, view: CityscapeView, over: bool) -> str:
    """A round's scoring: every side's codes and points per line, the totals, and at the
    end of the game who won."""
    lines = [f"**Round {event['round']} scored** — goals revealed:"]
    for side, result in event["sides"].items():
        codes = "-".join(str(c) for c in result["codes"])
        per_line = " + ".join(str(line["points"]) for line in result["lines"])
        lines.append(f"{side} {name(match, result['player'])}:"
                     f" {codes} → {per_line} = **{result['points']}**")
    totals = ", ".join(f"{name(match, p)} {t}" for p, t in event["totals"].items())
    lines.append(f"Totals: {totals}")
    if over:
        lines.append(final_line(match, view))
    return "\n".join(lines)
