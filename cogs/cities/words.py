"""Cities' sentences: the rules, moves, scores and where things go, in the picture's words."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.core.i18n import Words
from bot.core.records import Match
from bot.core.runtime import Outcome
from bot.games.cities import ENGINE
from bot.games.cities.content import CONTENT
from bot.games.cities.data_words import (
    ACHIEVEMENT,
    CARD,
    CARD_RULE,
    colour_word,
    feature_text,
    said,
    space_word,
)
from bot.games.cities.neighbourhood import Neighbourhood
from bot.games.cities.scoring import card_points, occurrences
from bot.games.cities.state import hood_of
from bot.games.cities.views import (
    CitiesView,
    PlaceMove,
    Took,
    events,
    has_neighbourhood,
    phase_of,
)
from bot.ui.words import name, winner_line

_ = Words("bot.games.cities")
_n, _l, _p = _.plural, _.lazy, _.context


def pending_words(row: str) -> str:
    """What a player took and is still placing, as "placing the …" names it."""
    return {"tiles": _("city tile"), "features": _("feature tiles"),
            "pieces": _("building pieces")}[row]


def row_words(row: str) -> str:
    """A board row by its short name ("workers left in: cards, tiles")."""
    return {"cards": _p("row", "cards"), "tiles": _p("row", "tiles"),
            "features": _p("row", "features"), "pieces": _p("row", "pieces")}[row]


def card_name(english: str) -> str:
    return said(CARD, english)


def achievement_name(english: str) -> str:
    return said(ACHIEVEMENT, english)


def first_upper(text: str) -> str:
    """A sentence whose first word was a placeholder, begun with a capital."""
    return text[:1].upper() + text[1:]


def both(words: Sequence[str]) -> str:
    """Two or more things, "A and B" (a group of feature tiles)."""
    said_ = ""
    for word in words:
        said_ = _("{first} and {second}", first=said_, second=word) if said_ else word
    return said_


RULES_TEXT = _l("""\
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
publisher's.*""")
# The rules as written (English), for scripts and tests; the adapter says RULES_TEXT.
RULES = RULES_TEXT.message


# -- words ------------------------------------------------------------------------------


def turn_refusal(match: Match, player: str) -> str:
    assert match.state is not None
    due = ENGINE.to_act(match.state)
    if phase_of(match.state) == "over" or not due:
        return _("The game is over.")
    if phase_of(match.state) == "start_tiles":
        return _("{name} is choosing a starting tile now; your turn comes.",
                 name=name(match, due[0]))
    return _("It's {name}'s turn, not yours.", name=name(match, due[0]))


def item_label(row: str, item: str) -> str:
    """A card, tile, feature or piece colour on the board, as a take button names it."""
    if row == "cards":
        card = CONTENT.cards[item]
        return _("{name} ({vp} VP)", name=card_name(card.name), vp=card.vp)
    if row == "tiles":
        return f"{item} ({CONTENT.tiles[item].label()})"
    if row == "features":
        return feature_text(CONTENT.features[item])
    return colour_word(item)


def item_words(row: str, item: str) -> str:
    """A card or a tile in a sentence says what it is before its label."""
    if row == "cards":
        card = CONTENT.cards[item]
        return _("the scoring card {name} ({vp} VP)", name=card_name(card.name), vp=card.vp)
    if row == "tiles":
        return _("city tile {tile} ({layout})", tile=item, layout=CONTENT.tiles[item].label())
    return item_label(row, item)


def take_label(row: str, slot: Mapping[str, Any]) -> str:
    """A take button's label: what lies on a row's slot, as the table's view shows it
    (``table(state)["rows"][row][i]``)."""
    if slot.get("star"):
        return _("Star: 2 random pieces, first next round")
    items: list[Mapping[str, Any]] = list(slot["items"])
    if row == "pieces":
        return _("Pieces: {colours}",
                 colours=", ".join(colour_word(str(i["color"])) for i in items))
    shown = " + ".join(_("face-down") if i.get("face_down") else item_label(row, str(i["id"]))
                       for i in items)
    if row == "cards":
        return _("Card: {items}", items=shown)
    if row == "tiles":
        return _("Tile: {items}", items=shown)
    if len(items) > 1:
        return _("Features: {items}", items=shown)
    return _("Feature: {items}", items=shown)


def took_words(event: Took) -> str:
    row, items = event["row"], event["items"]
    if row == "cards":
        return item_words(row, items[0]) if items else _("an empty card space")
    if row == "tiles":
        return item_words(row, items[0]) if items else _("an empty tile space")
    if row == "features":
        return both([item_words(row, i) for i in items]) or _("an empty feature space")
    pieces = ", ".join(colour_word(c) for c in items) or _("nothing")
    return (_("the star and {pieces}", pieces=pieces) if event["star"]
            else _("pieces: {pieces}", pieces=pieces))


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
        return _("more points from scoring cards")
    return _("more points from achievements")


def breakdown_lines(match: Match, view: CitiesView) -> list[str]:
    lines = []
    breakdown = view["breakdown"]  # the game is over
    for player in view["players"]:
        b = breakdown[player]
        cards = ", ".join(f"{card_name(c['name'])} ×{c['occurrences']} = {c['vp']}"
                          for c in b["scoring_cards"]) or _("none")
        lines.append(_(
            "**{name} — {total}**: achievements {achievements}, water {water}, parks {parks}, "
            "monuments {monuments}, cards {cards} ({list})", name=name(match, player),
            total=b["total"], achievements=b["achievements"], water=b["water"],
            parks=b["park"], monuments=b["monuments"], cards=b["cards"], list=cards))
    return lines


def cards_text(match: Match, view: CitiesView, player: str) -> str:
    """A player's scoring cards with what each counts now (``view`` is the match's)."""
    held = view["cards_held"].get(player, [])
    if not held or player not in view["neighbourhoods"]:
        return _("No scoring cards yet.")
    assert match.state is not None
    hood = hood_of(match.state, player)
    lines = []
    for shown in held:
        card = CONTENT.cards[shown["id"]]
        lines.append(_("• **{name}** ({vp} VP each): {text} — now ×{n} = {points} VP",
                       name=card_name(card.name), vp=card.vp, text=said(CARD_RULE, card.text),
                       n=occurrences(hood, card), points=card_points(hood, card)))
    return "\n".join(lines)


# -- where things go, in the picture's words -----------------------------------------------
#
# The preview draws the neighbourhood as a grid of tiles (with the spots a new tile may take)
# and letters every choice; a menu option names the letter, the thing and its place the way
# a player reads the picture: "top-left tile, upper-right park", never a grid coordinate.

Bounds = tuple[int, int, int, int]  # first and last tile row, first and last tile column

# English keys, said by ``place_word`` (the keys also decide how two of them join).
ROW_WORDS: dict[int, tuple[str, ...]] = {
    1: ("",), 2: ("top", "bottom"), 3: ("top", "middle", "bottom"),
    4: ("top", "upper", "lower", "bottom"), 5: ("top", "upper", "middle", "lower", "bottom")}
COLUMN_WORDS: dict[int, tuple[str, ...]] = {
    1: ("",), 2: ("left", "right"), 3: ("left", "middle", "right"),
    4: ("far left", "left", "right", "far right"),
    5: ("far left", "left", "middle", "right", "far right")}
QUARTERS = {(0, 0): "upper-left", (0, 1): "upper-right", (1, 0): "lower-left",
            (1, 1): "lower-right"}


def place_word(key: str, column: bool = False) -> str:
    """A row's or a column's place in the picture ("top", "far left"), said."""
    if not key:
        return ""
    if column:
        return {"left": _p("column", "left"), "middle": _p("column", "middle"),
                "right": _p("column", "right"), "far left": _p("column", "far left"),
                "far right": _p("column", "far right")}[key]
    return {"top": _p("row", "top"), "upper": _p("row", "upper"), "middle": _p("row", "middle"),
            "lower": _p("row", "lower"), "bottom": _p("row", "bottom")}[key]


def quarter_word(key: str) -> str:
    """A space's corner of its tile."""
    return {"upper-left": _p("quarter", "upper-left"),
            "upper-right": _p("quarter", "upper-right"),
            "lower-left": _p("quarter", "lower-left"),
            "lower-right": _p("quarter", "lower-right")}[key]


def ordinal(n: int) -> str:
    if n == 1:
        return _p("ordinal", "{n}st", n=n)
    if n == 2:
        return _p("ordinal", "{n}nd", n=n)
    if n == 3:
        return _p("ordinal", "{n}rd", n=n)
    return _p("ordinal", "{n}th", n=n)


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
    row_key = ROW_WORDS[rows][r] if rows in ROW_WORDS else None
    col_key = COLUMN_WORDS[cols][c] if cols in COLUMN_WORDS else None
    row = place_word(row_key) if row_key is not None else _("{nth}-row", nth=ordinal(r + 1))
    col = (place_word(col_key, column=True) if col_key is not None
           else _("{nth} from left", nth=ordinal(c + 1)))
    if row_key == col_key == "middle":
        return _p("tile", "middle")
    if row and col:
        return (_("{row}-{column}", row=row, column=col) if " " not in (col_key or " ")
                else _("{row}, {column}", row=row, column=col))
    return row or col


def space_words(hood: Neighbourhood, space: tuple[int, int] | list[int], bounds: Bounds,
                kind_word: bool = True) -> str:
    """A space as seen in the picture: its tile, its corner of the tile and its kind, e.g.
    "top-left tile, upper-right park"."""
    r, c = int(space[0]), int(space[1])
    key = (r, c)
    kind = hood.kinds.get(key, "")
    feature = hood.features.get(key)
    what = (_("wild space") if feature is not None and feature.is_wild
            else space_word(kind) if kind_word else _("space"))
    corner = _("{corner} {space}", corner=quarter_word(QUARTERS[(r % 2, c % 2)]), space=what)
    lot = lot_words((r // 2, c // 2), bounds)
    return (_("{lot} tile, {corner}", lot=lot, corner=corner) if lot
            else _("the {corner}", corner=corner))


def spot_label(hood: Neighbourhood, action: PlaceMove, bounds: Bounds,
               tile_id: str | None = None) -> str:
    """A placement's menu label (after its letter): the thing and where it goes
    (``tile_id``: the tile a ``place_tile`` places, to say its spaces turned)."""
    if action["type"] == "place_tile":
        rotation = int(action["rotation"])
        tile = CONTENT.tiles[tile_id] if tile_id else None
        turned = _("turned {degrees}°", degrees=rotation) if rotation else _("not turned")
        lot = lot_words(action["at"], bounds)
        if tile:
            return _("{lot} spot, {turned} ({layout})", lot=lot, turned=turned,
                     layout=tile.label(rotation))
        return _("{lot} spot, {turned}", lot=lot, turned=turned)
    space = (int(action["space"][0]), int(action["space"][1]))
    # a piece's space is of its own colour (or wild): the colour need not be said twice
    where = space_words(hood, space, bounds, kind_word=action["type"] == "place_feature")
    if action["type"] == "place_feature":
        return f"{feature_text(CONTENT.features[action['feature']])} · {where}"
    colour = colour_word(action["color"])
    building = hood.buildings.get(space)
    if building is None:
        return _("{colour} piece · {where} (new building)", colour=colour, where=where)
    return _("{colour} piece · {where}: building {height} → {higher} high", colour=colour,
             where=where, height=building[1], higher=building[1] + 1)


# -- what a move did, for the player who made it ----------------------------------------


def did_words(player: str, outcome: Outcome) -> list[str]:
    """What the player's move did, in sentences addressed to them."""
    did = []
    after = outcome.match
    hood = (hood_of(after.state, player)
            if after.state is not None and has_neighbourhood(after.state, player) else None)
    bounds = tile_bounds(hood) if hood is not None and hood.tiles else None

    def where(space: list[int]) -> str:
        return space_words(hood, space, bounds) if hood and bounds else ""

    for event in events(outcome.events):
        if event["type"] == "took" and event["player"] == player:
            did.append(_("You took {what}.", what=took_words(event)))
        elif event["type"] == "start_tile_chosen" and event["player"] == player:
            did.append(_("You start with {tile}.", tile=item_words("tiles", event["tile"])))
        elif event["type"] == "tile_placed":
            lot = lot_words(event["at"], bounds) if bounds else ""
            did.append(
                _("Tile {tile} placed as your {lot} tile, turned {degrees}°.",
                  tile=event["tile"], lot=lot, degrees=event["rotation"]) if lot
                else _("Tile {tile} placed, turned {degrees}°.", tile=event["tile"],
                       degrees=event["rotation"]))
        elif event["type"] == "feature_placed":
            feature = feature_text(CONTENT.features[event["feature"]])
            at = where(event["space"])
            did.append(_("{feature} placed ({where}).", feature=feature, where=at) if at
                       else _("{feature} placed.", feature=feature))
        elif event["type"] == "feature_removed":
            did.append(_("{feature} removed from the game.",
                         feature=feature_text(CONTENT.features[event["feature"]])))
        elif event["type"] == "piece_placed":
            colour = colour_word(event["color"])
            at = where(event["space"])
            did.append(first_upper(
                _("{colour} piece placed ({where}), now {height} high.", colour=colour,
                  where=at, height=event["height"]) if at
                else _("{colour} piece placed, now {height} high.", colour=colour,
                       height=event["height"])))
        elif event["type"] == "piece_removed":
            did.append(_("A {colour} piece removed from the game.",
                         colour=colour_word(event["color"])))
        elif event["type"] == "achievement_claimed" and event["player"] == player:
            did.append(_("🏅 You claimed {name} ({vp} VP).",
                         name=achievement_name(event["name"]), vp=event["vp"]))
    return did
