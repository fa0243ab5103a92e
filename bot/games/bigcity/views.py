"""The typed views of a Big City game: the contract between the engine and its cog and renderer.

The engine's state and its views are plain JSON (``dict[str, Any]``), so mypy cannot tell a
key the engine writes from a typo in the cog. These TypedDicts describe exactly what
``engine.view(state, viewer)`` returns (docs/bigcity.md, "View"): ``BigCityView`` the public
table, ``BigCityPlayerView`` what a seated player sees besides (their hand, its useless cards,
their side of a running trade). The functions below are how the cog reads a game:
``table(state)`` and ``seen_by(state, player)`` are the engine's own views, unchanged, under
their types; ``as_json`` hands a view back, as the plain JSON it is, to code that takes any
game's view (the adapter's ``named_view``, the renderer).

This module only describes and reads: it changes neither the engine's output, nor the stored
state, nor the replay contract. ``tests/test_bigcity_views.py`` plays seeded games and
checks, at every step, that the views have exactly these keys and value types, so a change in
the engine that the types miss fails a test.
"""

# No ``from __future__ import annotations`` here: Python 3.11 reads ``NotRequired`` only from
# real annotations, and the test checks ``__required_keys__`` / ``__optional_keys__``.

from typing import Literal, TypedDict, cast, final

from bot.core.engine import JSON
from bot.core.engine import as_json as as_json  # the cogs read it here
from bot.core.viewmemo import public_view

from .content import Card
from .engine import ENGINE, view

Phase = Literal["setup", "play", "over"]
Step = Literal["place", "start", "main", "draw", "trade_offers", "trade_accept", "over"]
"""``start`` a turn that may begin with a discard, ``main`` its action after one."""
EndedBy = Literal["city_complete", "all_passed"]
Street = list[list[int]]
"""A street between two cell corners, ``[[x1, y1], [x2, y2]]``, corners in increasing order."""


class Variants(TypedDict):
    """The rulebook's variants, each on or off (``options``), in this order."""

    trade_cards: bool
    must_exchange_useless: bool
    single_streetcar_line: bool
    limited_streetcar_line: bool
    limited_card_drawing: bool


class SetupView(TypedDict):
    """While the starting neighbourhoods are placed: those left, and who places them."""

    pool: list[int]
    order: list[str]


# -- the city ---------------------------------------------------------------------------


class CellView(TypedDict):
    property: int
    cell: list[int]


class NeighborhoodView(TypedDict):
    """A placed neighbourhood: where its property n1 lies, how it is turned, its cells."""

    number: int
    at: list[int]
    rotation: int
    cells: list[CellView]


class PropertyView(TypedDict):
    """A property of the city. ``building``: a building id, a park or factory card, or None
    when free; ``piece`` indexes ``buildings``."""

    property: int
    neighborhood: int
    cell: list[int]
    building: str | None
    piece: int | None
    owner: str | None
    outskirts: bool


class BuildingView(TypedDict):
    """A piece on the city (parks and factories too, at 0 points), in placing order."""

    id: int
    building: str
    title: str
    properties: list[int]
    owner: str
    points: int
    explanation: str


# -- the last move (``last_action``: the last action other than a draw) -----------------------


class LastPlacement(TypedDict):
    type: Literal["place_neighborhood"]
    player: str
    neighborhood: int
    at: list[int]
    rotation: int


class LastBuild(TypedDict):
    type: Literal["build"]
    player: str
    building: str
    properties: list[int]
    points: int
    explanation: str


class LastSpecial(TypedDict):
    """A park or factory card played."""

    type: Literal["special"]
    player: str
    card: str
    properties: list[int]


class LastStreetcar(TypedDict):
    type: Literal["streetcar"]
    player: str
    segments: list[Street]
    where: list[str]


class LastExchange(TypedDict):
    """How many cards went back, and to which stacks: never which cards."""

    type: Literal["exchange"]
    player: str
    count: int
    stacks: list[int]


class LastDiscard(TypedDict):
    """Useless cards discarded, face up."""

    type: Literal["discard_useless"]
    player: str
    cards: list[int]


class LastTrade(TypedDict):
    """A trade announced: the neighbourhoods of the cards, and those wanted."""

    type: Literal["trade"]
    player: str
    neighborhoods: list[int]
    wants: list[int]


class LastPass(TypedDict):
    type: Literal["pass"]
    player: str


LastAction = (LastPlacement | LastBuild | LastSpecial | LastStreetcar | LastExchange
              | LastDiscard | LastTrade | LastPass)
"""Told apart by ``type``: mypy narrows ``last["type"] == "build"`` to ``LastBuild``."""


# -- the turn: drawing and trading ------------------------------------------------------------


class DrawView(TypedDict):
    """During a draw step: the cards still to draw, and stack → how many more it may give."""

    cards: int
    stacks: dict[int, int]


class TradeView(TypedDict):
    """A running trade as everyone sees it: the neighbourhoods of the cards, never their
    numbers. ``offers``: player → the neighbourhoods of their offer, None for a decline (or
    an offer taken)."""

    trader: str
    neighborhoods: list[int]
    wants: list[int]
    waiting_for: list[str]
    offers: dict[str, list[int] | None]
    accepted: list[str]
    deals: int


@final
class TraderSide(TypedDict):
    """The trader's own side of the trade: the cards announced, and those already given."""

    cards: list[Card]
    given: list[Card]


@final
class OffererSide(TypedDict):
    """Another player's side of the trade: the cards they offered."""

    offered: list[Card]


MyTrade = TraderSide | OffererSide
"""Told apart by their keys: ``"cards" in mine`` narrows to ``TraderSide``."""


# -- the events of a move (``ENGINE.apply``'s second value), in the order they happened ----------


class NeighborhoodPlaced(TypedDict):
    type: Literal["neighborhood_placed"]
    player: str
    neighborhood: int
    at: list[int]
    rotation: int


class TurnEvent(TypedDict):
    """A turn begins: ``player`` is on turn."""

    type: Literal["turn"]
    player: str


class Built(TypedDict):
    type: Literal["built"]
    player: str
    building: str
    properties: list[int]
    points: int
    explanation: str


class SpecialPlaced(TypedDict):
    type: Literal["special_placed"]
    player: str
    card: str
    properties: list[int]


class StreetcarsPlaced(TypedDict):
    type: Literal["streetcars_placed"]
    player: str
    segments: list[Street]
    where: list[str]


class Exchanged(TypedDict):
    type: Literal["exchanged"]
    player: str
    count: int
    stacks: list[int]


class Discarded(TypedDict):
    type: Literal["discarded"]
    player: str
    cards: list[Card]


class Drew(TypedDict):
    """Cards drawn: the stacks, one per card (the cards themselves only in the hand)."""

    type: Literal["drew"]
    player: str
    stacks: list[int]


class Passed(TypedDict):
    type: Literal["passed"]
    player: str


class TradeAnnounced(TypedDict):
    type: Literal["trade_announced"]
    player: str
    neighborhoods: list[int]
    wants: list[int]


class TradeOffered(TypedDict):
    type: Literal["trade_offered"]
    player: str
    neighborhoods: list[int]


class TradeDeclined(TypedDict):
    type: Literal["trade_declined"]
    player: str


Traded = TypedDict("Traded", {"type": Literal["traded"], "player": str, "with": str,
                              "count": int})
"""The trader took ``with``'s offer of ``count`` cards (``with`` is a keyword, hence this form)."""


class TradeEnded(TypedDict):
    type: Literal["trade_ended"]
    player: str
    deals: int


class GameOver(TypedDict):
    type: Literal["game_over"]
    reason: EndedBy
    scores: dict[str, int]
    winners: list[str]


Event = (NeighborhoodPlaced | TurnEvent | Built | SpecialPlaced | StreetcarsPlaced | Exchanged
         | Discarded | Drew | Passed | TradeAnnounced | TradeOffered | TradeDeclined | Traded
         | TradeEnded | GameOver)
"""Told apart by ``type``: mypy narrows ``event["type"] == "built"`` to ``Built``."""


# -- the moves (``LegalAction.action``, and any move played) ----------------------------------


@final
class PlaceNeighborhood(TypedDict):
    type: Literal["place_neighborhood"]
    neighborhood: int
    at: list[int]
    rotation: int


@final
class DrawMove(TypedDict):
    type: Literal["draw"]
    stacks: list[int]


@final
class DiscardUseless(TypedDict):
    type: Literal["discard_useless"]
    cards: list[Card]


@final
class Build(TypedDict):
    type: Literal["build"]
    building: str
    properties: list[int]


@final
class Special(TypedDict):
    """A park or factory card played on properties."""

    type: Literal["special"]
    card: str
    properties: list[int]


@final
class StreetcarMove(TypedDict):
    type: Literal["streetcar"]
    segments: list[Street]


@final
class Exchange(TypedDict):
    type: Literal["exchange"]
    cards: list[Card]


@final
class Trade(TypedDict):
    type: Literal["trade"]
    cards: list[Card]
    wants: list[int]


@final
class PassMove(TypedDict):
    type: Literal["pass"]


@final
class TradeOffer(TypedDict):
    type: Literal["trade_offer"]
    cards: list[Card]


@final
class TradeAccept(TypedDict):
    """The trader takes ``partner``'s offer, giving ``give`` of the announced cards."""

    type: Literal["trade_accept"]
    partner: str
    give: list[Card]


@final
class Answer(TypedDict):
    """Declining a trade, or ending one's own."""

    type: Literal["trade_decline", "trade_end"]


Move = (PlaceNeighborhood | DrawMove | DiscardUseless | Build | Special | StreetcarMove
        | Exchange | Trade | PassMove | TradeOffer | TradeAccept | Answer)
"""Told apart by ``type``: mypy narrows ``move["type"] == "build"`` to ``Build``, and (the
moves being final) ``"cards" in move`` to the moves with cards."""


# -- the views --------------------------------------------------------------------------------


class BigCityView(TypedDict):
    """``engine.view(state, None)``: the public table. No hand is ever in it."""

    game: Literal["bigcity"]
    players: list[str]
    phase: Phase
    step: Step
    turn: str | None
    to_act: list[str]
    turn_number: int
    options: Variants
    setup: SetupView | None
    neighborhoods: list[NeighborhoodView]
    unplaced_neighborhoods: list[int]
    properties: list[PropertyView]
    buildings: list[BuildingView]
    city_hall: bool
    streetcars: list[Street]
    streetcars_left: int
    buildings_left: dict[str, int]
    parks_and_factories_left: list[str]
    stacks: dict[str, int]
    discard: list[Card]
    hand_sizes: dict[str, int]
    scores: dict[str, int]
    passes: int
    last_action: LastAction | None
    draw: DrawView | None
    trade: TradeView | None
    ended_by: EndedBy | None
    winners: list[str] | None


class BigCityPlayerView(BigCityView):
    """``engine.view(state, player)`` for a seated player: the public table, and their own
    cards. ``useless``: the hand's cards whose property is under a park or factory."""

    viewer: str
    hand: list[Card]
    useless: list[int]
    my_trade: MyTrade | None


# -- reading a game ---------------------------------------------------------------------------


def table(state: JSON) -> BigCityView:
    """The public view of ``state``, exactly as the engine builds it."""
    return cast(BigCityView, public_view(ENGINE, state))


def seen_by(state: JSON, player: str) -> BigCityPlayerView:
    """What ``player``, who must be seated in the game, sees of ``state``: the engine's own
    view for them. (For anyone else the engine gives the public view, without a hand.)"""
    return cast(BigCityPlayerView, view(state, player))


def events(reported: list[JSON]) -> list[Event]:
    """A move's events (``outcome.events``), under their types: the same list, untouched."""
    return cast(list[Event], reported)


def move_of(action: JSON) -> Move:
    """A Big City move (one of ``ENGINE.legal``'s, or one played), under its type: the same
    dict, untouched."""
    return cast(Move, action)


def placing(action: JSON) -> PlaceNeighborhood:
    """A move known to place a neighbourhood (one of a neighbourhood chooser's), under its
    type; anything else is a bug in the caller."""
    move = move_of(action)
    assert move["type"] == "place_neighborhood", move
    return move


def streetcar_of(action: JSON) -> StreetcarMove:
    """A move known to lay streetcars, under its type; anything else is a bug in the caller."""
    move = move_of(action)
    assert move["type"] == "streetcar", move
    return move


def drawing(action: JSON) -> DrawMove:
    """A move known to draw (one of ``legal``'s in the draw step), under its type; anything
    else is a bug in the caller."""
    move = move_of(action)
    assert move["type"] == "draw", move
    return move


def turn_number(state: JSON) -> int:
    """Which turn is being played, counted from the first: unchanged from its action to
    the last card of its draw."""
    return int(state["turn_number"])


def drawing_under_way(state: JSON) -> bool:
    """A draw step: the turn's action is made and its player draws back to a full hand, a
    card a move; the last card ends the turn."""
    return state.get("step") == "draw"
