"""Cities in Discord: /cities new and rules, the table's take buttons and the private choosers.

A turn, for the player whose turn it is:

- the table shows one button per item or group they may take (one click takes it), a row of
  buttons per board row, **My neighbourhood** for everyone seated and **Neighbourhoods**
  (every player's, privately) for anyone in the channel;
- taking a city tile, feature tiles or building pieces opens a private chooser: a preview of
  the player's neighbourhood with every legal spot lettered A, B, C… (a tile's rotations
  each get their own letter), a menu of the same letters (paged past 25) and **Remove it**
  where the rules allow; the chooser moves on to the next thing to place until the turn is
  over. If the chooser was closed, the table's **Place…** button opens it again;
- at setup, the players due choose their starting tile on the table, in reverse turn order.

Custom ids carry no server memory: ``ch:ct:<match>:v<version>:a<index>`` is the index of the
move in ``ENGINE.legal(state, player)``, exact because at one version the list is the same;
a click at another version is stale and answered with the current board.
``…:o<focus>p<page>`` opens the chooser for the ``focus``-th distinct item still to place at
that page, ``…:s<focus>p<page>`` is its menu (the values are legal-move indices).
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import discord
from discord import app_commands

from bot.core.engine import JSON, Engine, LegalAction
from bot.core.records import Match
from bot.core.runtime import Outcome
from bot.games.cities import ENGINE
from bot.games.cities.content import COLOUR_NAMES, CONTENT, SPACE_NAMES
from bot.games.cities.engine import hood_of, item_label
from bot.games.cities.neighbourhood import Neighbourhood
from bot.games.cities.scoring import card_points, occurrences
from bot.render.pool import Priority
from bot.ui.game import (
    GameAdapter,
    Notice,
    Picture,
    display_names,
    fit_description,
    plain_text,
    rename_players,
)
from bot.ui.items import Click, GameButton, GameItem, GameSelect, components, wrap
from bot.ui.later import show_private
from bot.ui.lobby import GameCommands, given
from bot.ui.paged import PAGE_SIZE, Choice, letters, page_slice, paged_menu, shorten
from bot.ui.play import cityhall
from bot.ui.replies import tell
from bot.ui.uploads import Upload
from bot.ui.words import mention, name, plural, winner_line

if TYPE_CHECKING:
    from bot.app import CityhallBot

log = logging.getLogger(__name__)


# New York City and Rio de Janeiro first: the rulebook suggests them for a first game.
FIRST_CITIES = ("New York City", "Rio de Janeiro")
CITY_ORDER = [*FIRST_CITIES, *(n for n in CONTENT.cities if n not in FIRST_CITIES)]

ROW_EMOJI = {"cards": "🃏", "tiles": "🧱", "features": "🌳", "pieces": "🏢"}
ROW_INDEX = {"cards": 0, "tiles": 1, "features": 2, "pieces": 3}
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
    state = match.state
    assert state is not None
    due = ENGINE.to_act(state)
    if state["phase"] == "over" or not due:
        return "The game is over."
    if state["phase"] == "start_tiles":
        return f"{name(match, due[0])} is choosing a starting tile now; your turn comes."
    return f"It's {name(match, due[0])}'s turn, not yours."


# In a sentence a card or a tile says what it is before its label in the list of moves.
ITEM_KINDS = {"cards": "the scoring card ", "tiles": "city tile "}


def item_words(row: str, item: str) -> str:
    return ITEM_KINDS.get(row, "") + item_label(row, item)


def took_words(event: JSON) -> str:
    row, items = event["row"], event["items"]
    if row == "cards":
        return item_words(row, items[0]) if items else "an empty card space"
    if row == "tiles":
        return item_words(row, items[0]) if items else "an empty tile space"
    if row == "features":
        return " and ".join(item_words(row, i) for i in items) or "an empty feature space"
    pieces = ", ".join(COLOUR_NAMES[c] for c in items) or "nothing"
    return f"the star and {pieces}" if event.get("star") else f"pieces: {pieces}"


def scores_line(match: Match, view: JSON) -> str:
    scores = view.get("scores") or {}
    return " · ".join(f"{name(match, p)} {scores[p]}" for p in view["players"] if p in scores)


def final_line(match: Match, view: JSON) -> str:
    return winner_line(match, view.get("winners") or [], view.get("scores") or {},
                       tie_break=tie_break(view))


def tie_break(view: JSON) -> str:
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


def breakdown_lines(match: Match, view: JSON) -> list[str]:
    lines = []
    for player in view["players"]:
        b = view["breakdown"][player]
        cards = ", ".join(f"{c['name']} ×{c['occurrences']} = {c['vp']}"
                          for c in b.get("scoring_cards", [])) or "none"
        lines.append(
            f"**{name(match, player)} — {b['total']}**: achievements {b['achievements']}, "
            f"water {b['water']}, parks {b['park']}, monuments {b['monuments']}, "
            f"cards {b['cards']} ({cards})")
    return lines


def cards_text(match: Match, player: str) -> str:
    """A player's scoring cards with what each counts now."""
    state = match.state
    assert state is not None
    held = state["cards_held"].get(player, [])
    if not held or player not in state["neighbourhoods"]:
        return "No scoring cards yet."
    hood = hood_of(state, player)
    lines = []
    for card_id in held:
        card = CONTENT.cards[card_id]
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


def spot_label(hood: Neighbourhood, action: JSON, bounds: Bounds) -> str:
    """A placement's menu label (after its letter): the thing and where it goes."""
    kind = action["type"]
    if kind == "place_tile":
        rotation = int(action["rotation"])
        tile = CONTENT.tiles[str(action.get("tile") or "")] if action.get("tile") else None
        turned = f"turned {rotation}°" if rotation else "not turned"
        layout = f" ({tile.label(rotation)})" if tile else ""
        return f"{lot_words(action['at'], bounds)} spot, {turned}{layout}"
    space = (int(action["space"][0]), int(action["space"][1]))
    # a piece's space is of its own colour (or wild): the colour need not be said twice
    where = space_words(hood, space, bounds, kind_word=kind == "place_feature")
    if kind == "place_feature":
        return f"{CONTENT.features[action['feature']].label} · {where}"
    colour = COLOUR_NAMES[action["color"]]
    building = hood.buildings.get(space)
    if building is None:
        return f"{colour} piece · {where} (new building)"
    return f"{colour} piece · {where}: building {building[1]} → {building[1] + 1} high"


# -- screens ----------------------------------------------------------------------------


@dataclass
class Screen:
    """A private reply: text, components (plain items, wrapped on sending) and the pictures
    to draw: a preview with lettered choices, or the player's neighbourhood."""

    text: str
    items: list[discord.ui.Item[Any]] = field(default_factory=list)
    preview: list[JSON] | None = None
    hood_of: str | None = None
    player: str = ""
    everyone: bool = False

    @property
    def has_pictures(self) -> bool:
        return self.everyone or bool(self.preview) or self.hood_of is not None


def button(label: str, custom_id: str, *, style: discord.ButtonStyle = discord.ButtonStyle.secondary,
           row: int | None = None, emoji: str | None = None) -> discord.ui.Button[Any]:
    return discord.ui.Button(label=shorten(label, 80), custom_id=custom_id, style=style, row=row,
                             emoji=emoji)


def focus_keys(state: JSON) -> list[str]:
    """The distinct things still to place (feature ids, piece colours, the tile id)."""
    pending = state["pending"]
    return list(dict.fromkeys(pending["items"])) if pending else []


def action_key(action: JSON) -> str | None:
    kind = action["type"]
    if kind in ("place_feature", "discard_feature"):
        return str(action["feature"])
    if kind in ("place_piece", "discard_piece"):
        return str(action["color"])
    return None


def focus_words(row: str, key: str) -> str:
    if row == "tiles":
        return f"your city tile {key} ({CONTENT.tiles[key].label()})"
    if row == "features":
        return f"your {CONTENT.features[key].label} feature tile"
    return f"a {COLOUR_NAMES[key]} piece"


def preview_choice(label: str, action: JSON) -> JSON:
    if action["type"] == "place_tile":
        return {"label": label, "tile_at": list(action["at"]), "rotation": action["rotation"]}
    return {"label": label, "space": list(action["space"])}


def chooser(match: Match, player: str, focus: int, page: int) -> Screen | str:
    """Where the thing being placed may go, lettered, with Remove it where allowed."""
    state = match.state
    assert state is not None
    pending = state["pending"]
    if state["phase"] != "play" or pending is None or pending["player"] != player:
        return "You have nothing to place right now."
    legal = ENGINE.legal(state, player)
    keys = focus_keys(state)
    row = pending["row"]
    focus = min(max(focus, 0), len(keys) - 1)
    key = keys[focus]
    mine: list[tuple[int, LegalAction]] = []
    discard: int | None = None
    for i, la in enumerate(legal):
        action = la.action
        if row != "tiles" and action_key(action) != key:
            continue
        if action["type"].startswith("discard"):
            discard = i
        else:
            mine.append((i, la))
    items: list[discord.ui.Item[Any]] = []
    preview: list[JSON] = []
    rest = list(pending["items"])
    rest.remove(key)
    text = f"**Place {focus_words(row, key)}.**"
    if rest:
        text += f" Then: {', '.join(item_words(row, i) for i in rest)}."
    if mine:
        hood = hood_of(state, player)
        tile_id = pending["items"][0] if row == "tiles" else None
        labels = []
        for pos, (_i, la) in enumerate(mine):
            # a tile's spots widen the picture: its lot words follow the page's picture
            on_page = page_slice(len(mine), pos // PAGE_SIZE)
            extra = [(int(mine[k][1].action["at"][0]), int(mine[k][1].action["at"][1]))
                     for k in on_page] if row == "tiles" else []
            action = dict(la.action, tile=tile_id) if tile_id else la.action
            labels.append(spot_label(hood, action, tile_bounds(hood, extra)))
        choices = [Choice(str(i), label) for (i, _la), label in zip(mine, labels, strict=True)]
        page = min(max(page, 0), (len(mine) - 1) // PAGE_SIZE)
        items.extend(paged_menu(choices, page, select_id=lambda p: PlaceSelect.on(match, focus=focus, page=p),
                                page_id=lambda p: OpenButton.on(match, focus=focus, page=p),
                                placeholder="Choose a lettered spot"))
        preview = [preview_choice(letters(pos), mine[pos][1].action)
                   for pos in page_slice(len(mine), page)]
        text += (" The picture letters every spot it may go"
                 + (" (each rotation of the tile has its own letter)" if row == "tiles" else "")
                 + "; pick the same letter in the menu.")
    else:
        text += " It has no legal spot in your neighbourhood, so it can only be removed."
    extra_row = 2
    if discard is not None:
        items.append(button("Remove it", ActButton.on(match, index=discard), style=discord.ButtonStyle.danger,
                            emoji="🗑️", row=extra_row))
    for k, other in enumerate(keys):
        if k != focus:
            label = (CONTENT.features[other].label if row == "features"
                     else COLOUR_NAMES[other])
            items.append(button(f"Place the {label} first", OpenButton.on(match, focus=k, page=0),
                                row=extra_row))
    return Screen(text, items, preview or None, hood_of=None if preview else player, player=player)


def take_items(match: Match) -> list[discord.ui.Item[Any]]:
    """One button per take (or starting tile) the player due may choose, on the table."""
    state = match.state
    assert state is not None
    due = ENGINE.to_act(state)
    if not due:
        return []
    legal = ENGINE.legal(state, due[0])
    items: list[discord.ui.Item[Any]] = []
    for i, la in enumerate(legal):
        action = la.action
        if action["type"] == "choose_start_tile":
            tile = action["tile"]
            items.append(button(f"Start with {tile} · {CONTENT.tiles[tile].label()}",
                                ActButton.on(match, index=i), style=discord.ButtonStyle.primary,
                                row=0))
        elif action["type"] == "take":
            row = action["row"]
            emoji = "⭐" if la.label.startswith("Star") else ROW_EMOJI[row]
            items.append(button(la.label, ActButton.on(match, index=i),
                                style=discord.ButtonStyle.primary, row=ROW_INDEX[row],
                                emoji=emoji))
    return items


def hood_screen(match: Match, player: str) -> Screen:
    state = match.state
    assert state is not None
    view = ENGINE.view(state, None)
    score = view.get("scores", {}).get(player)
    rings = [a["name"] + f" ({r['vp']} VP)" for a in view["city"]["achievements"]
             for r in a["rings"] if r["player"] == player]
    lines = ["**Your neighbourhood**" + (f" · {score} points if the game ended now"
                                           if score is not None else "")]
    if player not in state["neighbourhoods"]:
        lines.append("You have not chosen a starting tile yet.")
        return Screen("\n".join(lines))
    lines.append("Achievements: " + (", ".join(rings) if rings else "none yet"))
    lines.append("Scoring cards:\n" + cards_text(match, player))
    return Screen("\n".join(lines), hood_of=player)


def hoods_screen(match: Match) -> Screen:
    """Every player's neighbourhood, score so far and scoring cards: all of it lies face up
    at a real table, so anyone watching may look, at any time."""
    state = match.state
    assert state is not None
    view = ENGINE.view(state, None)
    scores = view.get("scores") or {}
    lines = ["**Every neighbourhood** (the picture shows them all)"]
    for player in view["players"]:
        cards = [CONTENT.cards[c].name for c in state["cards_held"].get(player, [])]
        score = scores.get(player)
        lines.append(f"• **{name(match, player)}**"
                     + (f" — {score} points so far" if score is not None else "")
                     + (f" · cards: {', '.join(cards)}" if cards else " · no scoring cards")
                     + ("" if player in state["neighbourhoods"] else " · no starting tile yet"))
    return Screen("\n".join(lines)[:2000], everyone=True)


# -- sending screens ----------------------------------------------------------------------


def view_of(items: list[discord.ui.Item[Any]]) -> discord.ui.View | None:
    return components(items, DYNAMIC_ITEMS) if items else None


def named(match: Match) -> tuple[JSON, dict[str, str]]:
    assert match.state is not None
    names = display_names(match)
    return rename_players(ENGINE.view(match.state, None), names), names


async def draw_screen(interaction: discord.Interaction, match: Match,
                      screen: Screen) -> list[tuple[str, bytes]]:
    """The screen's pictures, drawn by a render worker ahead of table refreshes (the player
    is waiting). A drawing failure loses only the picture."""
    pictures = cityhall(interaction).pictures
    try:
        if screen.everyone:
            view, _names = named(match)
            png = await pictures.render("cities", "render_neighbourhoods", view,
                                        priority=Priority.INTERACTIVE)
            return [("neighbourhoods.png", png)]
        if screen.preview:
            view, names = named(match)
            png = await pictures.render("cities", "render_preview", view,
                                        names.get(screen.player, screen.player), screen.preview,
                                        priority=Priority.INTERACTIVE)
            return [("choices.png", png)]
        if screen.hood_of is not None:
            view, names = named(match)
            png = await pictures.render("cities", "render_neighbourhood", view,
                                        names.get(screen.hood_of, screen.hood_of),
                                        priority=Priority.INTERACTIVE)
            return [("neighbourhood.png", png)]
    except Exception:
        log.exception("could not draw a Cities picture; the buttons still work")
    return []


async def build(interaction: discord.Interaction, fn: Any, match: Match,
                *args: Any) -> tuple[Screen | str, Awaitable[list[discord.File]] | None]:
    """Build a screen from a snapshot of the match, so moves saved meanwhile cannot mix two
    boards; and the drawing of its pictures, from the same snapshot, for ``show`` to wait
    for or let follow. On the event loop: a Cities screen takes about a millisecond, less
    than a worker thread would cost in taking turns at the GIL with the loop."""
    snapshot = copy.copy(match)
    screen = fn(snapshot, *args)
    if isinstance(screen, str) or not screen.has_pictures:
        return screen, None
    return screen, as_files(draw_screen(interaction, snapshot, screen), screen)


def picture_description(filename: str, text: str) -> str:
    """A private picture's alt text: what it shows, then the reply's own words."""
    what = {"choices.png": "The city with the choices below marked on it by letter. ",
            "neighbourhoods.png": "Every player's neighbourhood, as the text below lists "
                                  "them. "}.get(filename, "A neighbourhood, as the text below "
                                                          "lists it. ")
    return fit_description(what + plain_text(text))


async def as_files(drawing: Awaitable[list[tuple[str, bytes]]],
                   screen: Screen) -> list[discord.File]:
    drawn = await drawing
    # the screen's words are read once drawn: a caller may still add to them
    return [Upload(png, filename, description=picture_description(filename, screen.text))
            for filename, png in drawn]


async def show(interaction: discord.Interaction, match: Match, screen: Screen | str,
               pictures: Awaitable[list[discord.File]] | None, *,
               edit: bool | None = None) -> None:
    """Show a screen privately: edit the private message it came from, or send a new one."""
    if isinstance(screen, str):
        screen = Screen(screen)
    message = interaction.message
    if edit is None:
        edit = message is not None and message.flags.ephemeral
    await show_private(interaction, match.id, screen.text, view_of(screen.items), pictures,
                       edit=edit)


# -- the table ----------------------------------------------------------------------------


class CitiesAdapter(GameAdapter):
    colour = discord.Colour.from_rgb(70, 150, 90)
    rules_summary = RULES

    def table_content(self, match: Match) -> str:
        assert match.state is not None
        view = self.public_view(match)
        state = match.state
        head = f"**Cities** · {view['city']['name']}"
        if view["variant"] == "3x5":
            head += " · long variant (3×5)"
        if view["phase"] == "over":
            return f"{head} · final\n{final_line(match, view)}\nScores: {scores_line(match, view)}"
        if view["phase"] == "start_tiles":
            due = view["to_act"][0]
            return (f"{head} · setup\n{mention(match, due)}, choose your starting tile below "
                    "(in reverse turn order).")
        turn = view["turn"]
        lines = [f"{head} · round {view['round']} of {view['rounds']}"]
        pending = state["pending"]
        if pending is not None:
            lines.append(f"{mention(match, turn)} is placing the {PENDING_WORDS[pending['row']]} "
                         "they took — **Place…** opens the chooser again if it was closed.")
        else:
            left = view["workers_left"].get(turn, {})
            rows = [r for r in ("cards", "tiles", "features", "pieces") if left.get(r, 0) > 0]
            lines.append(f"{mention(match, turn)}, it's your turn: take one item below "
                         f"(workers left in: {', '.join(rows) or 'no row'}).")
        lines.append(f"Scores so far: {scores_line(match, view)}")
        return "\n".join(lines)

    def picture_description(self, match: Match) -> str:
        view = self.public_view(match)
        what = f"Cities market and neighbourhoods, {view['city']['name']}"
        if view.get("phase") == "play":
            what += f", round {view.get('round')} of {view.get('rounds')}"
        return self.board_words(match, what)

    def table_items(self, match: Match) -> list[discord.ui.Item[Any]]:
        assert match.state is not None
        state = match.state
        items: list[discord.ui.Item[Any]] = []
        if state["phase"] in ("start_tiles", "play"):
            pending = state["pending"]
            if pending is None:
                items.extend(take_items(match))
            else:
                items.append(button(f"Place… ({PENDING_WORDS[pending['row']]})",
                                    OpenButton.on(match, focus=0, page=0),
                                    style=discord.ButtonStyle.primary,
                                    emoji="📍", row=0))
        items.append(button("My neighbourhood", HoodButton.on(match),
                            style=discord.ButtonStyle.success, emoji="🏙️", row=4))
        items.append(button("Neighbourhoods", HoodsButton.on(match),
                            style=discord.ButtonStyle.secondary, emoji="🗺️", row=4))
        return [wrap(item, DYNAMIC_ITEMS) for item in items]

    def options_text(self, match: Match) -> str:
        city = match.options.get("city") or "chosen at random"
        text = f"City board: {city}"
        if match.options.get("variant") == "3x5":
            text += "\nLong two-player variant: 7 rounds on a 3×5 neighbourhood"
        return text

    def notices(self, match: Match, outcome: Outcome) -> list[Notice]:
        notices: list[Notice] = []
        state = match.state
        assert state is not None
        player = outcome.player
        events = outcome.events
        turn_over = player is not None and (
            state["turn"] != player or state["phase"] == "over"
            or any(e["type"] == "round_ended" for e in events))
        took = next((e for e in events if e["type"] == "took"), None)
        if outcome.timed_out and player is not None and turn_over:
            did = f" (it took {took_words(took)})" if took else ""
            notices.append(Notice(f"⏰ {name(match, player)} ran out of time, so the computer "
                                  f"player finished their turn for them{did}.", fold=True))
        elif took is not None:
            # What the last player took is the one thing the table cannot show afterwards
            # (the space is simply empty): say it in the table's text.
            notices.append(Notice(f"{name(match, str(took['player']))} took "
                                  f"{took_words(took)}.", fold=True))
        claims = [e for e in events if e["type"] == "achievement_claimed"]
        if claims:
            who = str(claims[0]["player"])
            got = ", ".join(f"**{e['name']}** ({e['vp']} VP)" for e in claims)
            view, names = named(match)
            notices.append(Notice(f"🏅 {name(match, who)} claimed {got}.", [Picture(
                "neighbourhood.png", "render_neighbourhood", (view, names.get(who, who)))]))
        for event in events:
            if event["type"] == "round_ended" and state["phase"] != "over":
                lines = [f"**Round {event['round']} is over.** {name(match, event['first_player'])} "
                         f"has the star and starts round {event['round'] + 1}."]
                shown = [item_words(r["row"], r["item"]) for r in event["removed"] if "row" in r]
                hidden = sum(1 for r in event["removed"] if r.get("face_down"))
                if shown or hidden:
                    gone = shown + ([plural(hidden, "face-down item")] if hidden else [])
                    lines.append("Removed from the game: " + ", ".join(gone) + ".")
                notices.append(Notice("\n".join(lines)))
            elif event["type"] == "game_over":
                view = self.public_view(match)
                lines = ["**Cities is over — the final scoring:**", *breakdown_lines(match, view),
                         final_line(match, view)]
                named_view, _ = named(match)
                notices.append(Notice("\n".join(lines)[:2000],
                                      [Picture("final.png", "render_final", (named_view,))]))
        return notices


# -- components ---------------------------------------------------------------------------


class CitiesItem:
    """What Cities' buttons and menus share: their ids' prefix, the engine, and why someone
    may not act now."""

    prefix: ClassVar[str] = "ch:ct"
    engine: ClassVar[Engine] = ENGINE

    def turn_refusal(self, match: Match, player: str) -> str:
        return turn_refusal(match, player)


class ActButton(CitiesItem, GameButton, template=":v{version}:a{index:[0-9]{1,4}}"):
    """One legal move by its index: take an item, choose a starting tile, remove a thing."""

    turn_only = True
    version: int
    index: int

    async def on_click(self, click: Click) -> None:
        legal = await click.legal()
        if self.index >= len(legal):
            await click.tell("That choice is not available any more.")
            return
        await apply_and_answer(click, legal[self.index].action)


class OpenButton(CitiesItem, GameButton,
                 template=":v{version}:o{focus:[0-9]{1,2}}p{page:[0-9]{1,3}}"):
    """Opens (or pages, or switches) the private chooser of what the player is placing."""

    turn_only = True
    version: int
    focus: int
    page: int

    async def on_click(self, click: Click) -> None:
        screen, pictures = await build(click.interaction, chooser, click.match, click.player,
                                       self.focus, self.page)
        await show(click.interaction, click.match, screen, pictures)


class PlaceSelect(CitiesItem, GameSelect,
                  template=":v{version}:s{focus:[0-9]{1,2}}p{page:[0-9]{1,3}}"):
    """The lettered menu of spots: a pick places the thing there."""

    bad_pick = "Pick one of the lettered spots in the menu."
    turn_only = True
    version: int
    focus: int
    page: int

    async def on_click(self, click: Click) -> None:
        legal = await click.legal()
        index, state = self.number, click.state
        keys = focus_keys(state)
        if (index >= len(legal) or not legal[index].action["type"].startswith("place_")
                or (state["pending"]["row"] != "tiles"
                    and (self.focus >= len(keys)
                         or action_key(legal[index].action) != keys[self.focus]))):
            await click.tell(self.bad_pick)
            return
        await apply_and_answer(click, legal[index].action)


class HoodButton(CitiesItem, GameButton, template=":hood"):
    """Anyone seated: their own neighbourhood, privately, with their scoring cards."""

    async def on_click(self, click: Click) -> None:
        screen, pictures = await build(click.interaction, hood_screen, click.match,
                                       click.player)
        await show(click.interaction, click.match, screen, pictures, edit=False)


class HoodsButton(CitiesItem, GameButton, template=":hoods"):
    """Anyone in the channel, seated or watching: every neighbourhood, privately."""

    for_anyone = True

    async def on_click(self, click: Click) -> None:
        screen, pictures = await build(click.interaction, hoods_screen, click.match)
        await show(click.interaction, click.match, screen, pictures, edit=False)


DYNAMIC_ITEMS: tuple[type[GameItem[Any]], ...] = (
    ActButton, OpenButton, PlaceSelect, HoodButton, HoodsButton)


def did_words(player: str, outcome: Outcome) -> list[str]:
    """What the player's move did, in sentences addressed to them."""
    did = []
    state = outcome.match.state or {}
    hood = hood_of(state, player) if player in state.get("neighbourhoods", {}) else None
    bounds = tile_bounds(hood) if hood is not None and hood.tiles else None

    def where(space: list[int]) -> str:
        return f" ({space_words(hood, space, bounds)})" if hood and bounds else ""

    for event in outcome.events:
        kind = event["type"]
        if kind == "took" and event["player"] == player:
            did.append(f"You took {took_words(event)}.")
        elif kind == "start_tile_chosen" and event["player"] == player:
            did.append(f"You start with {item_words('tiles', event['tile'])}.")
        elif kind == "tile_placed":
            lot = lot_words(event["at"], bounds) if bounds else ""
            did.append(f"Tile {event['tile']} placed" + (f" as your {lot} tile" if lot else "")
                       + f", turned {event['rotation']}°.")
        elif kind == "feature_placed":
            did.append(f"{CONTENT.features[event['feature']].label} placed"
                       f"{where(event['space'])}.")
        elif kind == "feature_removed":
            did.append(f"{CONTENT.features[event['feature']].label} removed from the game.")
        elif kind == "piece_placed":
            did.append(f"{COLOUR_NAMES[event['color']].capitalize()} piece placed"
                       f"{where(event['space'])}, now {event['height']} high.")
        elif kind == "piece_removed":
            did.append(f"A {COLOUR_NAMES[event['color']]} piece removed from the game.")
        elif kind == "achievement_claimed" and event["player"] == player:
            did.append(f"🏅 You claimed {event['name']} ({event['vp']} VP).")
    return did


def done_screen(match: Match, player: str, outcome: Outcome) -> Screen:
    """What the player did, once their turn is over, with their neighbourhood."""
    did = did_words(player, outcome)
    did.append("Your turn is over." if (match.state or {}).get("phase") != "start_tiles"
               else "Done.")
    return Screen(" ".join(did), hood_of=player if player in (match.state or {}).get(
        "neighbourhoods", {}) else None)


async def apply_and_answer(click: Click, action: JSON) -> None:
    outcome = await click.play(action)
    if outcome is None:
        return
    interaction, player = click.interaction, click.player
    after = outcome.match
    state = after.state
    assert state is not None
    pending = state["pending"]
    if state["phase"] == "play" and pending is not None and pending["player"] == player:
        screen, pictures = await build(interaction, chooser, after, player, 0, 0)
        if isinstance(screen, Screen):
            screen.text = " ".join([*did_words(player, outcome), screen.text])
    else:
        screen, pictures = await build(interaction, done_screen, after, player, outcome)
    await show(interaction, after, screen, pictures)


# -- slash commands -----------------------------------------------------------------------


def new_options(city: str | None, long_variant: bool) -> JSON:
    """The game options ``/cities new`` (and ``/settings defaults cities``) stand for."""
    return given(city=city, variant="3x5" if long_variant else None)


class Cities(GameCommands):
    cities = app_commands.Group(name="cities", description="Cities: draft tiles, features and "
                                "buildings into your neighbourhood", guild_only=True)

    @cities.command(name="new", description="Open a Cities lobby in this channel")
    @app_commands.describe(city="The city board with its achievements (default: at random)",
                           long_variant="Two players only: 7 rounds on a 3×5 neighbourhood")
    @app_commands.choices(city=[app_commands.Choice(name=n, value=n) for n in CITY_ORDER])
    async def new(self, interaction: discord.Interaction, city: str | None = None,
                  long_variant: bool = False) -> None:
        if city is not None and city not in CONTENT.cities:
            await tell(interaction, "Choose one of the listed city boards.")
            return
        await self.open(interaction, new_options(city, long_variant))

    @cities.command(name="rules", description="How to play Cities")
    async def rules(self, interaction: discord.Interaction) -> None:
        await self.show_rules(interaction)


async def setup(bot: CityhallBot) -> None:
    await bot.add_game(CitiesAdapter(ENGINE), DYNAMIC_ITEMS, Cities)
