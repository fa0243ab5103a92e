"""The typed views of a Cities game: the contract between the engine and its cog and renderer.

The engine's state, its public view, its events and its moves are plain JSON (``dict[str,
Any]``), so mypy cannot tell a key the engine writes from a typo in the cog. These TypedDicts
describe exactly what ``ENGINE.view(state, viewer)`` returns (``view.public_view`` builds it;
Cities has no private hands, so every viewer gets the same shape), ``Event`` the events a
move reports and ``Move`` a move (one of ``ENGINE.legal``'s, or one played). The functions
below are how the cog reads a game: ``table(state)`` is the engine's own view, unchanged,
under its type; ``events`` and ``move_of`` (``place_move`` for a placement) put the same
types on an outcome's events and on a move; the few readers of the state answer what the
view does not carry as such (the ids of what a player is placing) or what a click's answer
asks too often to build the whole view for.

This module only describes and reads: it changes neither the engine's output nor the stored
state. ``tests/test_cities_views.py`` plays seeded games and checks, at every step, that the
view, every event and every move have exactly these keys and value types, so a change in
the engine that the types miss fails a test.
"""

# No ``from __future__ import annotations`` here: Python 3.11 reads ``NotRequired`` only from
# real annotations, and the test checks ``__required_keys__`` / ``__optional_keys__``.

from typing import Literal, NotRequired, TypedDict, cast, final

from bot.core.engine import JSON
from bot.core.viewmemo import public_view

from .engine import ENGINE

Phase = Literal["start_tiles", "play", "over"]
Variant = Literal["standard", "3x5"]
Row = Literal["cards", "tiles", "features", "pieces"]
PlacingRow = Literal["tiles", "features", "pieces"]
"""The rows whose items are placed after they are taken (a scoring card is simply kept)."""
Colour = Literal["R", "B", "G", "Y"]

# -- the board's items, as ``view.item_view`` shows them --------------------------------------


class CardView(TypedDict):
    """A scoring card."""

    id: str
    name: str
    vp: int
    text: str
    counting: str


class TileView(TypedDict):
    """A city tile: its two rows of space codes as printed, and those in words."""

    id: str
    rows: list[str]
    label: str


class FeatureView(TypedDict):
    """A feature tile; ``art`` only where the feature has its own picture."""

    id: str
    background: str
    kind: str
    art: NotRequired[str]


class PieceView(TypedDict):
    """A building piece, by its colour."""

    color: Colour


@final
class FaceDown(TypedDict):
    """An item nobody has seen yet, in its place on the board."""

    face_down: Literal[True]


# -- the board's rows -----------------------------------------------------------------------


class CardSlot(TypedDict):
    slot: int
    taken_by: str | None
    items: list[CardView | FaceDown]


class TileSlot(TypedDict):
    slot: int
    taken_by: str | None
    items: list[TileView | FaceDown]


class FeatureSlot(TypedDict):
    slot: int
    taken_by: str | None
    items: list[FeatureView | FaceDown]


class PieceSlot(TypedDict):
    """A group of pieces (never face down); the star space (``star``, whose two pieces are
    drawn when it is taken) says whether it is ``open`` yet."""

    slot: int
    taken_by: str | None
    items: list[PieceView]
    star: NotRequired[Literal[True]]
    open: NotRequired[bool]


class RowsView(TypedDict, total=False):
    """The four rows of the board: all of them once the first round is dealt, none before."""

    cards: list[CardSlot]
    tiles: list[TileSlot]
    features: list[FeatureSlot]
    pieces: list[PieceSlot]


# -- the city board ---------------------------------------------------------------------------


class RingView(TypedDict):
    """One ring of an achievement: its points and who claimed it, if anyone."""

    vp: int
    player: str | None


class AchievementView(TypedDict):
    id: str
    name: str
    tier: str
    text: str
    rings: list[RingView]


class CityView(TypedDict):
    name: str
    code: str
    board_side: str
    achievements: list[AchievementView]


class StarView(TypedDict):
    holder: str
    on_board: bool
    taken_by: str | None


# -- a neighbourhood --------------------------------------------------------------------------


class PlacedTile(TypedDict):
    """A tile in a neighbourhood: its id, its tile position [row, column] and its turn."""

    tile: str
    at: list[int]
    rotation: int


class BuildingView(TypedDict):
    color: Colour
    height: int


class SpaceView(TypedDict):
    """One space of a neighbourhood ([row, column]): its kind, and what stands on it."""

    space: list[int]
    type: str
    feature: FeatureView | None
    building: BuildingView | None


class NeighbourhoodView(TypedDict):
    tiles: list[PlacedTile]
    size: list[int]
    top_left: list[int]
    spaces: list[SpaceView]


# -- what is being placed ---------------------------------------------------------------------


class PendingTile(TypedDict):
    player: str
    row: Literal["tiles"]
    items: list[TileView]


class PendingFeatures(TypedDict):
    player: str
    row: Literal["features"]
    items: list[FeatureView]


class PendingPieces(TypedDict):
    player: str
    row: Literal["pieces"]
    items: list[PieceView]


PendingView = PendingTile | PendingFeatures | PendingPieces
"""What the player on turn took and is still placing, told apart by ``row``."""


class Placing(TypedDict):
    """What the player on turn is still placing, by id (a feature id, a piece colour, the
    tile id), as the state keeps it: ``placing(state)``."""

    player: str
    row: PlacingRow
    items: list[str]


# -- the rest of the table --------------------------------------------------------------------


class DecksView(TypedDict):
    """How many items each deck still holds."""

    scoring_cards: int
    city_tiles: int
    feature_tiles: int


class RemovedView(TypedDict):
    """What has left the game: face-up leftovers by id, pieces by colour, and how many
    items went unseen."""

    scoring_cards: list[str]
    city_tiles: list[str]
    feature_tiles: list[str]
    pieces: dict[Colour, int]
    face_down: int


# -- the final scoring ------------------------------------------------------------------------


class CardScore(TypedDict):
    """A scoring card's points: how often it is met, and its VP for all of them."""

    card: str
    name: str
    occurrences: int
    vp: int


class AchievementScore(TypedDict):
    achievement: str
    name: str
    vp: int


class AreaScore(TypedDict):
    """A water or park area: its spaces, the kinds of feature in it, its points."""

    spaces: list[list[int]]
    kinds: list[str]
    vp: int


class Breakdown(TypedDict):
    """A player's score, part by part (``scoring.breakdown``)."""

    total: int
    achievements: int
    water: int
    park: int
    monuments: int
    cards: int
    achievement_rings: list[AchievementScore]
    water_areas: list[AreaScore]
    park_areas: list[AreaScore]
    monument_count: int
    scoring_cards: list[CardScore]


# -- the table --------------------------------------------------------------------------------


class CitiesView(TypedDict):
    """``ENGINE.view(state, viewer)``: the whole table, the same for every viewer.

    ``start_tiles`` and ``start_tile_order`` only while the starting tiles are chosen;
    ``breakdown`` and ``winners`` only once the game is over. ``workers_left`` is empty for
    each player outside the play phase; ``scores`` and ``neighbourhoods`` list only the
    players who have a starting tile."""

    game: Literal["cities"]
    title: str
    viewer: str | None
    phase: Phase
    round: int
    rounds: int
    variant: Variant
    limit: list[int]
    players: list[str]
    first_player: str
    turn: str | None
    to_act: list[str]
    city: CityView
    star: StarView
    rows: RowsView
    workers_left: dict[str, dict[Row, int]]
    neighbourhoods: dict[str, NeighbourhoodView]
    cards_held: dict[str, list[CardView]]
    bag: dict[Colour, int]
    decks: DecksView
    removed: RemovedView
    pending: PendingView | None
    scores: dict[str, int]
    start_tiles: NotRequired[list[TileView]]
    start_tile_order: NotRequired[list[str]]
    breakdown: NotRequired[dict[str, Breakdown]]
    winners: NotRequired[list[str]]


# -- what a move reports (``ENGINE.apply``'s events) ------------------------------------------


class StartTileChosen(TypedDict):
    type: Literal["start_tile_chosen"]
    player: str
    tile: str


class RoundStarted(TypedDict):
    """A round is dealt: ``first_player`` (who has the star) takes the first turn."""

    type: Literal["round_started"]
    round: int
    first_player: str


class Took(TypedDict):
    """An item or group taken from a row's ``slot`` (1-4): its ids (a card, a tile, features
    or piece colours), those that were face down (``revealed``), and whether it was the star
    space."""

    type: Literal["took"]
    player: str
    row: Row
    slot: int
    items: list[str]
    revealed: list[str]
    star: bool


class TilePlaced(TypedDict):
    """A city tile placed at tile position ``at`` [row, column], turned ``rotation``°."""

    type: Literal["tile_placed"]
    player: str
    tile: str
    at: list[int]
    rotation: int


class FeaturePlaced(TypedDict):
    type: Literal["feature_placed"]
    player: str
    feature: str
    space: list[int]


class FeatureRemoved(TypedDict):
    type: Literal["feature_removed"]
    player: str
    feature: str


class PiecePlaced(TypedDict):
    """A piece placed on ``space``: its building is now ``height`` high."""

    type: Literal["piece_placed"]
    player: str
    color: Colour
    space: list[int]
    height: int


class PieceRemoved(TypedDict):
    type: Literal["piece_removed"]
    player: str
    color: Colour


class AchievementClaimed(TypedDict):
    """A ring claimed at the end of a turn: the achievement's id, its name and the ring's VP."""

    type: Literal["achievement_claimed"]
    player: str
    achievement: str
    name: str
    vp: int


@final
class RemovedItem(TypedDict):
    """A face-up leftover removed at the end of a round: its row and id (a colour for a
    piece)."""

    row: Row
    item: str


class RoundEnded(TypedDict):
    """A round is over: who has the star (and starts the next) and what was left on the
    board, face up (``RemovedItem``) or face down (``FaceDown``)."""

    type: Literal["round_ended"]
    round: int
    first_player: str
    removed: list[RemovedItem | FaceDown]
    """Told apart by their keys: ``"row" in removed`` narrows to ``RemovedItem``."""


class GameOver(TypedDict):
    type: Literal["game_over"]
    scores: dict[str, int]
    winners: list[str]


Event = (StartTileChosen | RoundStarted | Took | TilePlaced | FeaturePlaced | FeatureRemoved
         | PiecePlaced | PieceRemoved | AchievementClaimed | RoundEnded | GameOver)
"""Told apart by ``type``: mypy narrows ``event["type"] == "took"`` to ``Took``."""


# -- a move (the engine's docstring lists them) ------------------------------------------------


class ChooseStartTile(TypedDict):
    type: Literal["choose_start_tile"]
    tile: str


class TakeMove(TypedDict):
    """Take what lies on a row's ``slot`` (1-4)."""

    type: Literal["take"]
    row: Row
    slot: int


class PlaceTile(TypedDict):
    """Place the tile taken at tile position ``at`` [row, column], turned ``rotation``°."""

    type: Literal["place_tile"]
    at: list[int]
    rotation: int


class PlaceFeature(TypedDict):
    type: Literal["place_feature"]
    feature: str
    space: list[int]


class DiscardFeature(TypedDict):
    type: Literal["discard_feature"]
    feature: str


class PlacePiece(TypedDict):
    type: Literal["place_piece"]
    color: Colour
    space: list[int]


class DiscardPiece(TypedDict):
    type: Literal["discard_piece"]
    color: Colour


PlaceMove = PlaceTile | PlaceFeature | PlacePiece
"""A placement: what the chooser letters on its preview."""
Move = ChooseStartTile | TakeMove | PlaceMove | DiscardFeature | DiscardPiece
"""Told apart by ``type``."""


# -- reading a game ---------------------------------------------------------------------------


def table(state: JSON) -> CitiesView:
    """The public view of ``state`` (what every viewer sees), exactly as the engine builds it."""
    return cast(CitiesView, public_view(ENGINE, state))


def phase_of(state: JSON) -> Phase:
    """The game's phase, without building the whole view (a click's answer asks it)."""
    return cast(Phase, state["phase"])


def placing(state: JSON) -> Placing | None:
    """What the player on turn is still placing, by id; None between placements. The view
    shows these items as the board does (``pending``), this reads their ids."""
    return cast("Placing | None", state["pending"])


def turn_of(state: JSON) -> tuple[int, int]:
    """Which turn is being played: the round and the turns finished in it. Unchanged from
    a take until everything taken is placed."""
    return int(state["round"]), int(state["turns_this_round"])


def has_neighbourhood(state: JSON, player: str) -> bool:
    """Whether ``player`` has chosen a starting tile, so has a neighbourhood to show."""
    return player in state["neighbourhoods"]


def events(reported: list[JSON]) -> list[Event]:
    """A move's events (an outcome's ``events``) under their types: the same list."""
    return cast(list[Event], reported)


def move_of(action: JSON) -> Move:
    """A Cities move (one of ``ENGINE.legal``'s, or one played), under its type: the same
    object."""
    return cast(Move, action)


def place_move(action: JSON) -> PlaceMove:
    """One of ``ENGINE.legal``'s moves for a player placing what they took, other than a
    removal, under its type: the same object."""
    return cast(PlaceMove, action)
