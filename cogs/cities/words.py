"""Cities' sentences: the rules, moves, scores and where things go, in the picture's words."""

from __future__ import annotations

from bot.core.records import Match
from bot.core.runtime import Outcome
from bot.games.cities import ENGINE
from bot.games.cities.content import COLOUR_NAMES, CONTENT, SPACE_NAMES
from bot.games.cities.neighbourhood import Neighbourhood
from bot.games.cities.scoring import card_points, occurrences
from bot.games.cities.state import hood_of, item_label
from bot.games.cities.views import (
    CitiesView,
    PlaceMove,
    Took,
    events,
    has_neighbourhood,
    phase_of,
)
from bot.ui.words import name, winner_line

PENDING_WORDS = {"tiles": "city tile", "features": "feature tiles", "pieces": "building pieces"}

RULES = """\
**Cities** — 2–4 players each build a neighbourhood of 2×2 city tiles.
**Setup.** Choose a starting tile, in reverse turn order. A game has 8 rounds (two players: \
4 rounds with two workers per row; the long two-player variant: 7 rounds on 3×5 tiles).
**A round.** The board has four rows: scoring cards, city tiles, feature tiles and building \
pieces (plus the ⭐ star space: 2 random pieces and first place next round). One item per row \
is face down until someone takes it.
**Your turn.** Take one item or group from a row where you still have a worker this round, \
and use it at once:
• a **scoring card** is kept face up;
• a **city tile** goes fully alongside your tiles, any rotation, never beyond 3×3 tiles;
• each **feature** goes on a free space of its type (water, park, or an empty city space for \
grey ones), or is removed;
• each **building piece** goes on a space of its colour (or a wild space), or on its colour \
up to 4 high, or is removed.
Achievements on the city board are claimed automatically at the end of your turn: the highest \
free ring, each achievement once.
**Scoring.** Achievement rings; every water and park area 1/3/6/10 for 1/2/3/4 different \
features; 2 per monument; each scoring card for every time it is met. Ties: most achievement \
points, then most scoring-card points.
**Here:** one click on the table takes an item; then a private chooser shows your \
neighbourhood with every legal spot lettered, and a menu of the same letters. **My \
neighbourhood** shows yours with your cards; **Neighbourhoods** shows everyone's.
*The tiles, feature tiles, scoring cards and city boards are Cityhall's own design, not the \
publisher's.*"""


# -- words ------------------------------------------------------------------------------


def turn_refusal(match: Match, player: str) -> str:
    assert match.state is not None
    due = ENGINE.to_act(match.state)
    if phase_of(match.state) == "over" or not due:
        return "The game is over."
    if phase_of(match.state) == "start_tiles":
        return f"{name(match, due[0])} is choosing a starting tile now; your turn comes."
    return f"It's {name(match, due[0])}'s turn, not yours."


# In a sentence a card or a tile says what it is before its label in the list of moves.
ITEM_KINDS = {"cards": "the scoring card ", "tiles": "city tile "}


def item_words(row: str, item: str) -> str:
    return ITEM_KINDS.get(row, "") + item_label(row, item)


def took_words(event: Took) -> str:
    row, items = event["row"], event["items"]
    if row == "cards":
        return item_words(row, items[0]) if items else "an empty card space"
    if row == "tiles":
        return item_words(row, items[0]) if items else "an empty tile space"
    if row == "features":
        return " and ".join(item_words(row, i) for i in items) or "an empty feature space"
    pieces = ", ".join(COLOUR_NAMES[c] for c in items) or "nothing"
    return f"the star and {pieces}" if event["star"] else f"pieces: {pieces}"


def scores_line(match: Match, view: CitiesView) -> str:
    scores = view["scores"]
    return " · ".join(f"{name(match, p)} {scores[p]}" for p in view["players"] if p in scores)


def final_line(match: Match, view: CitiesView) -> str:
    return winner_line(match, view.get("winners") or [], view["scores"],
                       tie_break=tie_break(view))


def tie_break(view: CitiesView) -> str:
    """What separated the winners from the players level with them on points: the rules'
    achievements first, then scoring-card points (docs/cities.md, D22)."""
    winners = view.get("winners") or []
    breakdown = view.get("breakdown") or {}
    if not winners or any(p not in breakdown for p in winners):
        return ""
    best = breakdown[winners[0]]
    level = [b for p, b in breakdown.items()
             if p not in winners and b["total"] == best["total"]]
    if any(b["achievements"] == best["achievements"] for b in level):
        return "more points from scoring cards"
    return "more points from achievements"


def breakdown_lines(match: Match, view: CitiesView) -> list[str]:
    lines = []
    breakdown = view["breakdown"]  # the game is over
    for player in view["players"]:
        b = breakdown[player]
        cards = ", ".join(f"{c['name']} ×{c['occurrences']} = {c['vp']}"
                          for c in b["scoring_cards"]) or "none"
        lines.append(
            f"**{name(match, player)} — {b['total']}**: achievements {b['achievements']}, "
            f"water {b['water']}, parks {b['park']}, monuments {b['monuments']}, "
            f"cards {b['cards']} ({cards})")
    return lines


def cards_text(match: Match, view: CitiesView, player: str) -> str:
    """A player's scoring cards with what each counts now (``view`` is the match's)."""
    held = view["cards_held"].get(player, [])
    if not held or player not in view["neighbourhoods"]:
        return "No scoring cards yet."
    assert match.state is not None
    hood = hood_of(match.state, player)
    lines = []
    for shown in held:
        card = CONTENT.cards[shown["id"]]
        lines.append(f"• **{card.name}** ({card.vp} VP each): {card.text} — now "
                     f"×{occurrences(hood, card)} = {card_points(hood, card)} VP")
    return "\n".join(lines)


# -- where things go, in the picture's words -----------------------------------------------
#
# The preview draws the neighbourhood as a grid of tiles (with the spots a new tile may take)
# and letters every choice; a menu option names the letter, the thing and its place the way
# a player reads the picture: "top-left tile, upper-right park", never a grid coordinate.

Bounds = tuple[int, int, int, int]  # first and last tile row, first and last tile column

ROW_WORDS: dict[int, tuple[str, ...]] = {
    1: ("",), 2: ("top", "bottom"), 3: ("top", "middle", "bottom"),
    4: ("top", "upper", "lower", "bottom"), 5: ("top", "upper", "middle", "lower", "bottom")}
COLUMN_WORDS: dict[int, tuple[str, ...]] = {
    1: ("",), 2: ("left", "right"), 3: ("left", "middle", "right"),
    4: ("far left", "left", "right", "far right"),
    5: ("far left", "left", "middle", "right", "far right")}
QUARTERS = {(0, 0): "upper-left", (0, 1): "upper-right", (1, 0): "lower-left",
            (1, 1): "lower-right"}


def ordinal(n: int) -> str:
    return f"{n}{'st' if n == 1 else 'nd' if n == 2 else 'rd' if n == 3 else 'th'}"


def tile_bounds(hood: Neighbourhood, extra: list[tuple[int, int]] | None = None) -> Bounds:
    """The tile rows and columns a picture of ``hood`` shows (with ``extra`` spots), as the
    renderer lays them out."""
    spots = list(hood.tiles) + list(extra or [])
    rows = [at[0] for at in spots]
    cols = [at[1] for at in spots]
    return min(rows), max(rows), min(cols), max(cols)


def lot_words(at: tuple[int, int] | list[int], bounds: Bounds) -> str:
    """A tile position as seen in the picture: "top-left", "middle", "bottom" or "" when the
    picture has one tile."""
    r0, r1, c0, c1 = bounds
    rows, cols = r1 - r0 + 1, c1 - c0 + 1
    r, c = at[0] - r0, at[1] - c0
    row = ROW_WORDS[rows][r] if rows in ROW_WORDS else f"{ordinal(r + 1)}-row"
    col = COLUMN_WORDS[cols][c] if cols in COLUMN_WORDS else f"{ordinal(c + 1)} from left"
    if row == col == "middle":
        return "middle"
    if row and col:
        return f"{row}-{col}" if " " not in col else f"{row}, {col}"
    return row or col


def space_words(hood: Neighbourhood, space: tuple[int, int] | list[int], bounds: Bounds,
                kind_word: bool = True) -> str:
    """A space as seen in the picture: its tile, its corner of the tile and its kind, e.g.
    "top-left tile, upper-right park"."""
    r, c = int(space[0]), int(space[1])
    key = (r, c)
    kind = hood.kinds.get(key, "")
    feature = hood.features.get(key)
    what = ("wild space" if feature is not None and feature.is_wild
            else SPACE_NAMES.get(kind, "space") if kind_word else "space")
    corner = f"{QUARTERS[(r % 2, c % 2)]} {what}"
    lot = lot_words((r // 2, c // 2), bounds)
    return f"{lot} tile, {corner}" if lot else f"the {corner}"


def spot_label(hood: Neighbourhood, action: PlaceMove, bounds: Bounds,
               tile_id: str | None = None) -> str:
    """A placement's menu label (after its letter): the thing and where it goes
    (``tile_id``: the tile a ``place_tile`` places, to say its spaces turned)."""
    if action["type"] == "place_tile":
        rotation = int(action["rotation"])
        tile = CONTENT.tiles[tile_id] if tile_id else None
        turned = f"turned {rotation}°" if rotation else "not turned"
        layout = f" ({tile.label(rotation)})" if tile else ""
        return f"{lot_words(action['at'], bounds)} spot, {turned}{layout}"
    space = (int(action["space"][0]), int(action["space"][1]))
    # a piece's space is of its own colour (or wild): the colour need not be said twice
    where = space_words(hood, space, bounds, kind_word=action["type"] == "place_feature")
    if action["type"] == "place_feature":
        return f"{CONTENT.features[action['feature']].label} · {where}"
    colour = COLOUR_NAMES[action["color"]]
    building = hood.buildings.get(space)
    if building is None:
        return f"{colour} piece · {where} (new building)"
    return f"{colour} piece · {where}: building {building[1]} → {building[1] + 1} high"


# -- what a move did, for the player who made it ----------------------------------------


def did_words(player: str, outcome: Outcome) -> list[str]:
    """What the player's move did, in sentences addressed to them."""
    did = []
    after = outcome.match
    hood = (hood_of(after.state, player)
            if after.state is not None and has_neighbourhood(after.state, player) else None)
    bounds = tile_bounds(hood) if hood is not None and hood.tiles else None

    def where(space: list[int]) -> str:
        return f" ({space_words(hood, space, bounds)})" if hood and bounds else ""

    for event in events(outcome.events):
        if event["type"] == "took" and event["player"] == player:
            did.append(f"You took {took_words(event)}.")
        elif event["type"] == "start_tile_chosen" and event["player"] == player:
            did.append(f"You start with {item_words('tiles', event['tile'])}.")
        elif event["type"] == "tile_placed":
            lot = lot_words(event["at"], bounds) if bounds else ""
            did.append(f"Tile {event['tile']} placed" + (f" as your {lot} tile" if lot else "")
                       + f", turned {event['rotation']}°.")
        elif event["type"] == "feature_placed":
            did.append(f"{CONTENT.features[event['feature']].label} placed"
                       f"{where(event['space'])}.")
        elif event["type"] == "feature_removed":
            did.append(f"{CONTENT.features[event['feature']].label} removed from the game.")
        elif event["type"] == "piece_placed":
            did.append(f"{COLOUR_NAMES[event['color']].capitalize()} piece placed"
                       f"{where(event['space'])}, now {event['height']} high.")
        elif event["type"] == "piece_removed":
            did.append(f"A {COLOUR_NAMES[event['color']]} piece removed from the game.")
        elif event["type"] == "achievement_claimed" and event["player"] == player:
            did.append(f"🏅 You claimed {event['name']} ({event['vp']} VP).")
    return did

