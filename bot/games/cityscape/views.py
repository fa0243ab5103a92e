"""The typed views of a Cityscape game: the contract between the engine and its cog and renderer.

The engine's state, its views, its events and its moves are plain JSON (``dict[str, Any]``),
so mypy cannot tell a key the engine writes from a typo in the cog. These TypedDicts describe
exactly what the engine hands out: ``CityscapeView`` is ``ENGINE.view(state, None)``, the
public table; ``CityscapePlayerView`` is ``ENGINE.view(state, player)``, the table and the
viewer's own secret codes (``my_goals``, until the game is over); ``Event`` the events a move
reports; ``Move`` a move (what the computer player did for someone whose time ran out).

The functions below are how the cog reads a game: ``table(state)`` and ``seen_by(state,
player)`` are the engine's own views, unchanged, under their types; ``events`` and ``move``
put the same types on an outcome's events and action; ``owing_goals`` answers, from a view,
which of a player's sides still need their codes; ``as_json`` hands a view back, as the plain
JSON it is, to code that takes any game's view (the adapter's ``named_view``, the renderer).

This module only describes and reads: it changes neither the engine's output, nor the stored
state, nor the replay contract. ``tests/test_cityscape_views.py`` plays seeded games and
checks, at every step, that the views, events and moves have exactly these keys and value
types, so a change in the engine that the types miss fails a test.
"""

# No ``from __future__ import annotations`` here: Python 3.11 reads ``NotRequired`` only from
# real annotations, and the test checks ``__required_keys__`` / ``__optional_keys__``.

from typing import Literal, NotRequired, TypedDict, cast

from bot.core.engine import JSON
from bot.core.engine import as_json as as_json  # the cogs read it here
from bot.core.viewmemo import public_view

from .engine import ENGINE

Phase = Literal["goals", "building", "over"]
"""A round's goal setting (everyone at once), its building (one block a turn), the end."""
Side = Literal["S", "W", "N", "E"]
"""A side of the city, as ``skyline.SIDES`` names them; a seat owns one (two with two)."""


# -- a block built ----------------------------------------------------------------------------


class Block(TypedDict):
    """A block's height and lot (``A1``..``D4``): what a build move and a build report share."""

    height: int
    lot: str


class LastBuild(Block):
    """The round's latest block: who built it, and how high its building now is."""

    player: str
    building: int


# -- a round's scoring ------------------------------------------------------------------------


class LineResult(TypedDict):
    """One line of a side, scored: its lots front to back, their heights, the code set for
    it (``goal`` in words), the buildings seen (codes 1-4's count) and the points."""

    line: int
    lots: list[str]
    heights: list[int]
    code: int
    goal: str
    visible: int
    points: int


class SideResult(TypedDict):
    """A side's revealed codes and its four lines, left to right, with their sum."""

    player: str
    codes: list[int]
    lines: list[LineResult]
    points: int


class RoundResult(TypedDict):
    """A scored round: the tallest building, each side, each player's points that round and
    the totals after it."""

    round: int
    tallest: int
    sides: dict[Side, SideResult]
    points: dict[str, int]
    totals: dict[str, int]


# -- the views --------------------------------------------------------------------------------


class CityscapeView(TypedDict):
    """``ENGINE.view(state, None)``: the public table. No goal code is in it before its
    round is scored (``round_results`` then reveals them); ``winners`` once the game is over.

    ``sides``: side → its owner; ``turn``: the builder, None outside building; ``lots``: each
    lot's blocks bottom to top; ``heights``: each lot's height; ``blocks_left``: ``"1"``..``"5"``
    → blocks of that height left; ``goals_set``: side → whether its codes are chosen;
    ``lines``: side → its four lines' heights, left to right, each front to back."""

    game: Literal["cityscape"]
    players: list[str]
    sides: dict[Side, str]
    round: int
    rounds: int
    phase: Phase
    starting_player: str
    turn: str | None
    to_act: list[str]
    lots: dict[str, list[int]]
    heights: dict[str, int]
    blocks_left: dict[str, int]
    placed: int
    goals_set: dict[Side, bool]
    lines: dict[Side, list[list[int]]]
    scores: dict[str, int]
    last_build: LastBuild | None
    round_results: list[RoundResult]
    winners: NotRequired[list[str]]


class CityscapePlayerView(CityscapeView):
    """``ENGINE.view(state, player)``: the public table and the viewer's own codes, side →
    four codes, for the sides they have set this round (none for someone not seated). Not
    there once the game is over, when every code has been revealed."""

    my_goals: NotRequired[dict[Side, list[int]]]


# -- what a move reports (``ENGINE.apply``'s events) ------------------------------------------


class GoalsSet(TypedDict):
    type: Literal["goals_set"]
    player: str
    side: Side


class BuildingStarted(TypedDict):
    """Every side's codes are set: ``player`` builds first."""

    type: Literal["building_started"]
    round: int
    player: str


class Built(LastBuild):
    type: Literal["built"]


class RoundScored(RoundResult):
    """The 25th block stood: the round as ``round_results`` keeps it."""

    type: Literal["round_scored"]


class RoundStarted(TypedDict):
    type: Literal["round_started"]
    round: int


class GameOver(TypedDict):
    type: Literal["game_over"]
    scores: dict[str, int]
    winners: list[str]


Event = GoalsSet | BuildingStarted | Built | RoundScored | RoundStarted | GameOver
"""Told apart by ``type``: mypy narrows ``event["type"] == "built"`` to ``Built``."""


# -- a move ----------------------------------------------------------------------------------


class BuildMove(Block):
    type: Literal["build"]


class GoalsMove(TypedDict):
    """A side's four codes (1-6), its lines left to right."""

    type: Literal["set_goals"]
    side: Side
    codes: list[int]


Move = BuildMove | GoalsMove
"""Told apart by ``type``."""


# -- reading a game ---------------------------------------------------------------------------


def table(state: JSON) -> CityscapeView:
    """The public view of ``state``, exactly as the engine builds it."""
    return cast(CityscapeView, public_view(ENGINE, state))


def seen_by(state: JSON, player: str) -> CityscapePlayerView:
    """What ``player`` sees of ``state``: the engine's own view for them."""
    return cast(CityscapePlayerView, ENGINE.view(state, player))


def events(reported: list[JSON]) -> list[Event]:
    """A move's events (an outcome's ``events``) under their types: the same list."""
    return cast(list[Event], reported)


def move(action: JSON) -> Move:
    """A move (an outcome's ``action``) under its type: the same object."""
    return cast(Move, action)


def owing_goals(view: CityscapeView, player: str) -> list[Side]:
    """``player``'s sides whose codes are not chosen yet this round, in seat order (S, W, N,
    E): the ones their goal picker still has to ask for."""
    return [side for side, owner in view["sides"].items()
            if owner == player and not view["goals_set"][side]]
