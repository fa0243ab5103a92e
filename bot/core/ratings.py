"""Ratings: what one finished game does to its players' ratings. Pure: no I/O.

The storage rates a game in the same transaction that writes its results
(``bot/core/storage/jobs.py``), and ``python -m bot ratings --rebuild`` replays every
stored result through the same functions, so both give the same numbers. docs/ratings.md
tells the decisions for players.

The model is openskill's Plackett-Luce (Weng and Lin's Bayesian approximation). It rates a
game of any number of players from their order alone, ties included, which is what a board
game's final standings are; Thurstone-Mosteller, the other choice, compares each pair of
players and is meant for games decided by small margins between two teams, and takes longer
for six players (fifteen pairs) without rating a free-for-all any better.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

# openskill's defaults: a new player is mu 25, sigma 25/3, so mu - 3 sigma starts at 0.
MODEL = PlackettLuce()
START_MU = MODEL.mu
START_SIGMA = MODEL.sigma

# The number shown: 1000 + 40 x (mu - 3 sigma), rounded. mu - 3 sigma (the conservative
# ordinal) is what the player is at least, 99.7 times in 100; it starts at 0 and rises as
# games make the rating surer. 1000 and 40 put a new player at 1000 and a seasoned one between
# about 800 and 2200: the size of number people know from chess ratings, with no fractions.
SHOWN_BASE = 1000
SHOWN_SCALE = 40


def shown(mu: float, sigma: float) -> int:
    """The rating a player sees for ``mu`` and ``sigma``."""
    return round(SHOWN_BASE + SHOWN_SCALE * (mu - 3 * sigma))


START_RATING = shown(START_MU, START_SIGMA)


def rating_id(player_id: str, cpu: bool, level: str | None) -> str:
    """Who is rated for a seat: a person by their Discord id; a computer player by its level
    ("cpu:easy", "cpu:normal", "cpu:hard"), whichever seat it sat in."""
    return f"cpu:{level or 'normal'}" if cpu else player_id


@dataclass(frozen=True)
class Seat:
    """One seat's result in a finished game."""

    rating_id: str  # rating_id(): the Discord id, or "cpu:<level>"
    score: int
    won: bool


@dataclass(frozen=True)
class Standing:
    """A player's rating in one server, game and season."""

    mu: float = START_MU
    sigma: float = START_SIGMA
    games: int = 0

    @property
    def rating(self) -> int:
        return shown(self.mu, self.sigma)


@dataclass(frozen=True)
class Change:
    """What one game did to one rated player (a computer level once, however many seats)."""

    place: int  # 1 = first; players who tie share a place
    before: Standing
    after: Standing


def places(seats: Sequence[Seat]) -> list[int]:
    """Each seat's place: the winners share place 1, then the others by score, equal scores
    sharing a place (1, 1, 3: a place counts the players ahead of it).

    The winners come from the engine's ``winners``, which already applies each rulebook's
    tie-breaks (a player who scored as much as the winner but lost the tie-break is not first).
    Among the others the rulebooks' tie-breaks decide nothing printed, so equal scores tie."""
    winners = sum(1 for s in seats if s.won)
    result = []
    for seat in seats:
        if seat.won:
            result.append(1)
        else:
            ahead = sum(1 for o in seats if not o.won and o.score > seat.score)
            result.append(winners + ahead + 1)
    return result


def rate(seats: Sequence[Seat], before: dict[str, Standing]) -> dict[str, Change]:
    """The change to every rated player of a finished game of 2-6 seats.

    ``before`` holds the current standing of each ``rating_id`` that has one (the others start
    at openskill's defaults). Two or more computer seats of the same level are each rated from
    the level's rating before the game, as separate players; the level's new mu and sigma are
    the means of its seats' new ones, its place the best of theirs, and it counts one game."""
    if len(seats) < 2:
        return {}
    ranks = places(seats)
    start = {s.rating_id: before.get(s.rating_id, Standing()) for s in seats}
    teams = [[MODEL.rating(mu=start[s.rating_id].mu, sigma=start[s.rating_id].sigma)]
             for s in seats]
    rated = MODEL.rate(teams, ranks=[float(r) for r in ranks])
    new: dict[str, list[tuple[float, float, int]]] = {}
    for seat, place, team in zip(seats, ranks, rated, strict=True):
        new.setdefault(seat.rating_id, []).append((team[0].mu, team[0].sigma, place))
    changes = {}
    for rid, outcomes in new.items():
        old = start[rid]
        mu = sum(o[0] for o in outcomes) / len(outcomes)
        sigma = sum(o[1] for o in outcomes) / len(outcomes)
        changes[rid] = Change(place=min(o[2] for o in outcomes), before=old,
                              after=Standing(mu=mu, sigma=sigma, games=old.games + 1))
    return changes
