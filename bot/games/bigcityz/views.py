"""The typed views of a Big Cityz game: the contract between the engine and its cog and
renderer.

The engine's state and its views are plain JSON (``dict[str, Any]``), so mypy cannot tell a
key the engine writes from a typo in the cog. These TypedDicts describe exactly what
``ENGINE.view(state, viewer)`` returns (``view.public_view`` builds it): ``BigCityzView`` the
public table, ``BigCityzPlayerView`` what a viewer is told besides (``me``, ``is_my_turn``,
``can_object``). The current city is only a name and an id (``CityRef``) until the reveal;
its facts appear in ``last_reveal`` (``CityFacts``) once the card is turned, never before.

The functions below are how the cog reads a game: ``table(state)`` and ``seen_by(state,
player)`` are the engine's own views, unchanged, under their types; ``as_json`` hands a view
back, as the plain JSON it is, to code that takes any game's view (the adapter's
``named_view``, the renderer); ``move_of``, ``placing_move`` and ``reveals`` type the moves the engine offers
(``legal``) and the reveals it reports (its events), which the cog reads too.

This module only describes and reads: it changes neither the engine's output, nor the stored
state, nor the replay contract. ``tests/test_bigcityz_views.py`` plays seeded games and
checks, at every step, that the views, the moves and the reveals have exactly these keys and
value types, so a change in the engine that the types miss fails a test.
"""

# No ``from __future__ import annotations`` here: Python 3.11 reads ``NotRequired`` only from
# real annotations, and the test checks ``__required_keys__`` / ``__optional_keys__``.

from typing import Literal, NotRequired, TypedDict, cast, final

from bot.core.engine import JSON
from bot.core.engine import as_json as as_json  # the cogs read it here
from bot.core.viewmemo import public_view

from .engine import ENGINE

Phase = Literal["place", "veto", "over"]
"""``place``: the player on turn places the city; ``veto``: the others may object."""
SlotNumber = Literal[1, 2, 3, 4]
"""A statement board's place on the game board, 1 to 4 around it."""
RiskId = Literal["1-2", "2-3", "3-4", "4-1"]
"""A risk field: the two neighbouring boards it lies between."""
Colour = Literal["green", "red"]
"""Green: the statement is true (both, on a risk field); red: false."""


class CityRef(TypedDict):
    """A city card by its face: name and id, never its facts."""

    id: str
    name: str


# -- the board ---------------------------------------------------------------------------------


class SquareView(TypedDict):
    """A point square of a statement board, and the city on it, if any."""

    color: Colour
    points: int
    city: CityRef | None


class SlotView(TypedDict):
    """A statement board: the statement (id, sentence, short name, symbol), whether the
    player on turn may replace it now, and its four point squares (green high, green low,
    red high, red low)."""

    slot: SlotNumber
    statement: str
    text: str
    short: str
    symbol: str
    replaceable: bool
    squares: list[SquareView]


class RiskFieldView(TypedDict):
    """One colour of a risk field: ``points`` if right, ``penalty`` (negative) if wrong."""

    id: RiskId
    slots: list[SlotNumber]
    color: Colour
    points: int
    penalty: int
    city: CityRef | None


class PilesView(TypedDict):
    """How many cards the piles hold; the statement discard pile lies face up."""

    cities: int
    statements: int
    statement_discard: list[str]
    removed: int


# -- a placement, and the objections to it -----------------------------------------------------


class SquarePlacement(TypedDict):
    """A city put on a point square of board ``slot``."""

    player: str
    city: CityRef
    label: str
    kind: Literal["square"]
    slot: SlotNumber
    statement: str
    color: Colour
    points: int


class RiskPlacement(TypedDict):
    """A city put on a risk field; ``statements``: the two boards' statements, in order."""

    player: str
    city: CityRef
    label: str
    kind: Literal["risk"]
    risk: RiskId
    color: Colour
    statements: list[str]


class NoFreeSquarePlacement(TypedDict):
    """"There's no free square": the city lies beside the board."""

    player: str
    city: CityRef
    label: str
    kind: Literal["no_free_square"]


PlacementView = SquarePlacement | RiskPlacement | NoFreeSquarePlacement
"""Told apart by ``kind``: mypy narrows ``placement["kind"] == "risk"`` to ``RiskPlacement``."""


class VetoWindowView(TypedDict):
    """Who may object to the placement, who did, who let it stand, and who is still due."""

    eligible: list[str]
    objectors: list[str]
    declined: list[str]
    waiting: list[str]


# -- the reveal --------------------------------------------------------------------------------


class FactView(TypedDict):
    """One statement on the back of a card: the value printed and whether it is true."""

    value: int | float | str | bool | None
    true: bool


class CityFacts(TypedDict):
    """The back of a card, shown once it is revealed: where the city is, and ``facts`` by
    statement id."""

    id: str
    name: str
    country: str
    country_code: str
    continent: str
    latitude: float
    longitude: float
    facts: dict[str, FactView]


class CheckedView(TypedDict):
    """A statement the reveal checked, and whether it is true of the city."""

    slot: SlotNumber
    statement: str
    true: bool


class RightSquare(TypedDict):
    """A free point square that would have been right, after a wrong "no free square"."""

    slot: SlotNumber
    color: Colour
    points: int
    label: str


class RightRiskField(TypedDict):
    """A free risk field that would have been right, after a wrong "no free square"."""

    risk: RiskId
    color: Colour
    label: str


class RevealView(TypedDict):
    """The card revealed last: its back, the placement, the statements checked, whether it
    was right, who objected, the points each player gained or lost (after the floor at 0)
    and the scores after. ``free_squares_right`` only after a "no free square"."""

    player: str
    city: CityFacts
    placement: PlacementView
    checked: list[CheckedView]
    right: bool
    objectors: list[str]
    points: dict[str, int]
    scores: dict[str, int]
    free_squares_right: NotRequired[list[RightSquare | RightRiskField]]


class RevealEvent(RevealView):
    """The engine's ``reveal`` event: the same as the reveal it keeps as ``last_reveal``."""

    type: Literal["reveal"]


# -- the views ---------------------------------------------------------------------------------


class BigCityzView(TypedDict):
    """``ENGINE.view(state, None)``: the public table. ``turn`` is None once the game is
    over; ``winners`` is there only then."""

    game: Literal["bigcityz"]
    players: list[str]
    phase: Phase
    round: int
    turn: str | None
    first_player: str
    to_act: list[str]
    city: CityRef | None
    slots: list[SlotView]
    risk_fields: list[RiskFieldView]
    beside_board: list[CityRef]
    replaced_slot: SlotNumber | None
    placement: PlacementView | None
    veto_window: VetoWindowView | None
    veto_seconds: int
    vetoes_left: dict[str, int]
    scores: dict[str, int]
    turns: dict[str, int]
    piles: PilesView
    end_triggered: bool
    last_reveal: RevealView | None
    winners: NotRequired[list[str]]


class BigCityzPlayerView(BigCityzView):
    """``ENGINE.view(state, player)``: the public table, and what it means for ``me``."""

    me: str
    is_my_turn: bool
    can_object: bool


# -- the moves ---------------------------------------------------------------------------------


@final
class PlaceSquare(TypedDict):
    type: Literal["place"]
    slot: SlotNumber
    color: Colour
    points: int


@final
class PlaceRisk(TypedDict):
    type: Literal["place"]
    risk: RiskId
    color: Colour


class ReplaceBoard(TypedDict):
    type: Literal["replace"]
    slot: SlotNumber


class NoFreeSquare(TypedDict):
    type: Literal["no_free_square"]


class Answer(TypedDict):
    """An answer in the objection window (``close_vetoes``: the timer's, nobody's)."""

    type: Literal["veto", "no_veto", "close_vetoes"]


PlacingMove = PlaceSquare | PlaceRisk | ReplaceBoard | NoFreeSquare
"""What the player on turn may do (``legal`` while placing). The two ``place`` moves are told
apart by their keys: ``"risk" in move`` narrows to ``PlaceRisk``."""
Move = PlacingMove | Answer


# -- reading a game ----------------------------------------------------------------------------


def table(state: JSON) -> BigCityzView:
    """The public view of ``state``, exactly as the engine builds it."""
    return cast(BigCityzView, public_view(ENGINE, state))


def seen_by(state: JSON, player: str) -> BigCityzPlayerView:
    """What ``player`` sees of ``state``: the engine's own view for them (the public table,
    whether it is their turn to place and whether they may object now)."""
    return cast(BigCityzPlayerView, ENGINE.view(state, player))


def move_of(action: JSON) -> Move:
    """A Big Cityz move (one of ``ENGINE.legal``'s, or one played), under its type."""
    return cast(Move, action)


def placing_move(action: JSON) -> PlacingMove:
    """One of ``ENGINE.legal``'s moves for the player on turn while the city is placed (the
    ``place`` phase), under its type."""
    return cast(PlacingMove, action)


def reveals(events: list[JSON]) -> list[RevealEvent]:
    """The reveals among a move's events, in order."""
    return [cast(RevealEvent, event) for event in events if event["type"] == "reveal"]
