"""What each game's cog provides to the shared table and lobby code."""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import discord

from bot.core.engine import JSON, Engine
from bot.core.i18n import Text, Words
from bot.core.levels import NORMAL
from bot.core.records import ACTIVE, Match, Seat
from bot.core.runtime import Outcome
from bot.core.viewmemo import public_view
from bot.games import ENGINES, renderer

from .replies import plain_name

_ = Words("bot")
_l = _.lazy

# A slash command's ``game`` option: every catalogued game by its title (/stats, /profile,
# /history).
GAME_CHOICES = [discord.app_commands.Choice(name=e.title, value=n) for n, e in ENGINES.items()]

COMPUTER = " (computer)"  # how a computer seat's stored name ends
ViewT = TypeVar("ViewT")
# A computer player's level, as the lobby names it too.
_LEVEL_NAMES: Mapping[str, Text] = {"easy": _l("easy"), "normal": _l("normal"),
                                    "hard": _l("hard")}


def said_name(seat: Seat) -> str:
    """A seat's name as stored, a computer's mark said in the reader's language: a computer
    player is stored as "Ada (computer)" (English, in the database) and read "Ada
    (Computer)" in German. Other names as they are."""
    if seat.cpu and seat.name.endswith(COMPUTER):
        # TRANSLATORS: a computer player's name in lists and pictures: "Ada (computer)".
        return _("{name} (computer)", name=seat.name[:-len(COMPUTER)])
    return seat.name


def shown_name(seat: Seat) -> str:
    """A seat's name with its computer level when that is not normal: "Ada (hard)", no
    longer than "Ada (computer)" so that pictures, where names are cut to fit, keep the
    level. Normal stays "Ada (computer)", as every computer player was before levels (its
    mark in the reader's language: ``said_name``)."""
    if not seat.cpu or seat.level == NORMAL:
        return said_name(seat)
    base = seat.name[:-len(COMPUTER)] if seat.name.endswith(COMPUTER) else seat.name
    level = str(_LEVEL_NAMES.get(seat.level, seat.level))
    # TRANSLATORS: a computer player and its level: "Ada (hard)".
    return _("{name} ({level})", name=base, level=level)


def display_names(match: Match) -> dict[str, str]:
    """Each seat's name (``shown_name``), with a number added where two people share a
    display name."""
    names: dict[str, str] = {}
    taken: set[str] = set()
    for seat in match.seats:
        base = shown_name(seat)
        name, n = base, 1
        while name in taken:
            n += 1
            name = f"{base} ({n})"
        taken.add(name)
        names[seat.id] = name
    return names


def seat_name(match: Match, player_id: str) -> str:
    """The name messages give a player: the same one the pictures draw, so two members
    called "Ann" are "Ann" and "Ann (2)" in the table text and in the picture alike."""
    return display_names(match).get(player_id, match.name_of(player_id))


def rename_players(value: Any, names: dict[str, str]) -> Any:
    """A deep copy of ``value`` with every key or string equal to a player id renamed.

    Player ids are snowflakes or ``cpu<n>``, which no other string in a view equals
    (lots, sides, card ids and statement ids all look different).
    """
    if isinstance(value, dict):
        return _renamed_dict(value, names)
    if isinstance(value, list):
        return _renamed_list(value, names)
    if isinstance(value, str):
        return names.get(value, value)
    return value


# Every picture's view is renamed (0.45 ms a view, 5 % of the bot's CPU under the load test,
# most of it a call per number): plain JSON values are told apart by exact type, and only
# containers recurse; anything else (a subclass) takes the general path above.
def _renamed_dict(value: dict[Any, Any], names: dict[str, str]) -> dict[Any, Any]:
    out = {}
    for key, item in value.items():
        if isinstance(key, str):
            key = names.get(key, key)
        kind = type(item)
        if kind is str:
            item = names.get(item, item)
        elif kind is dict:
            item = _renamed_dict(item, names)
        elif kind is list:
            item = _renamed_list(item, names)
        elif kind not in _LEAVES:
            item = rename_players(item, names)
        out[key] = item
    return out


def _renamed_list(value: list[Any], names: dict[str, str]) -> list[Any]:
    # The same test per item as _renamed_dict's, written out again: a shared helper would
    # be the call per value this saves.
    out = []
    for item in value:
        kind = type(item)
        if kind is str:
            item = names.get(item, item)
        elif kind is dict:
            item = _renamed_dict(item, names)
        elif kind is list:
            item = _renamed_list(item, names)
        elif kind not in _LEAVES:
            item = rename_players(item, names)
        out.append(item)
    return out


_LEAVES = frozenset({int, float, bool, type(None)})


# Discord's limit for an attachment's description (its alt text).
DESCRIPTION_LIMIT = 1024

_MENTION = re.compile(r"<@!?([0-9]+)>")
_TIMESTAMP = re.compile(r"<t:-?[0-9]+(?::[tTdDfFR])?>")
_ESCAPED = re.compile(r"\\([\\*_~`|>#\[\]()\-])")
_EMPHASIS = re.compile(r"(?<!\\)\*\*|(?<!\\)__")


def fit_description(text: str) -> str:
    """Alt text within Discord's limit, cut at a word with an ellipsis when too long."""
    text = text.strip()
    if len(text) <= DESCRIPTION_LIMIT:
        return text
    cut = text[:DESCRIPTION_LIMIT - 1]
    if " " in cut[-40:]:
        cut = cut[:cut.rindex(" ")]
    return cut.rstrip() + "…"


def plain_text(text: str, match: Match | None = None) -> str:
    """A message's Markdown as words for alt text, which Discord shows and screen readers
    read unformatted: mentions become display names, timestamps (which only a message can
    render as a countdown) become "soon", emphasis and escapes go, lines become sentences."""
    if match is not None:
        text = _MENTION.sub(lambda m: match.name_of(m.group(1)), text)
    # TRANSLATORS: stands for a countdown ("in 3 minutes") in a picture's alt text.
    text = _TIMESTAMP.sub(_("soon"), text)
    text = _EMPHASIS.sub("", text)
    text = _ESCAPED.sub(r"\1", text)
    sentences = []
    for line in text.splitlines():
        line = line.strip()
        if line:
            sentences.append(line if line[-1] in ".!?:…" else line + ".")
    return " ".join(sentences)


@dataclass(frozen=True)
class Picture:
    """A picture a notice shows, drawn by a render worker when the notice is sent:
    ``bot.games.<game>.render.<function>(*args)``, which returns the PNG. Notices are
    written on the event loop; drawing is the part that must not run there.
    ``description`` is its alt text; without one the notice's own text describes it."""

    filename: str
    function: str
    args: tuple[Any, ...]
    description: str = ""


@dataclass
class Notice:
    """A message for the channel about something that happened (a round scored, a timeout).

    ``fold``: news of one move, not worth a message of its own: instead of being posted it
    becomes a line of the table's text (bot/ui/table.py), so the channel keeps one board
    per match at its bottom instead of a message per move."""

    text: str
    pictures: list[Picture] = field(default_factory=list)
    fold: bool = False

# What each computer level means, in the lobby's level menu; a game may say more.
LEVEL_WORDS: Mapping[str, str | Text] = {
    "easy": _l("Makes slips a person might make"),
    "normal": _l("Plays as Cityhall's computer players always have"),
    "hard": _l("Thinks ahead, up to a second a move"),
}


class GameAdapter(Generic[ViewT]):
    """The Discord face of one game: text, buttons and notices for a match's state.

    Subclasses live in ``cogs/<game>/``; they hold no rules, only presentation. ``ViewT`` is
    the game's public view under its own type (``bot/games/<game>/views.py``), which
    ``typed_table`` reads from a state: the keys a cog reads are checked by mypy.
    """

    typed_table: Callable[[JSON], ViewT]

    engine: Engine
    colour: discord.Colour = discord.Colour.blurple()
    # the short rules: /<game> rules and How to play (a Text: said in the asker's language)
    rules_summary: str | Text = ""
    rules_footer: str | Text | None = None
    player_range: str = ""
    level_words: Mapping[str, str | Text] = LEVEL_WORDS

    def __init_subclass__(cls, *, views: Callable[[JSON], Any] | None = None,
                          colour: discord.Colour | None = None,
                          rules: str | Text | None = None,
                          **kwargs: Any) -> None:
        """A game's adapter says in its class line how its typed view is read, its colour
        and its short rules: ``class CitiesAdapter(GameAdapter[CitiesView], views=table,
        colour=..., rules=RULES)``."""
        super().__init_subclass__(**kwargs)
        if views is not None:
            setattr(cls, "typed_table", staticmethod(views))  # noqa: B010 (a class attribute)
        if colour is not None:
            cls.colour = colour
        if rules is not None:
            cls.rules_summary = rules

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def render_table(self, match: Match) -> bytes:
        """PNG of the public table, drawn here (tests and tools: the bot asks its render
        workers, and its own process never imports a renderer)."""
        return renderer(self.engine.name).render_table(
            self.named_view(match, self.public_view(match)))

    def table_view(self, match: Match) -> ViewT:
        """The public view under the game's own type: what the cog's text and buttons read."""
        assert match.state is not None
        return self.typed_table(match.state)

    def public_view(self, match: Match) -> JSON:
        assert match.state is not None
        return public_view(self.engine, match.state)

    def named_view(self, match: Match, view: JSON) -> JSON:
        """The view with player ids (Discord snowflakes, ``cpu1``) replaced by display names,
        made unique, since renderers draw whatever identifies a player in the view."""
        return rename_players(view, display_names(match))

    def table_content(self, match: Match) -> str:
        raise NotImplementedError

    def table_items(self, match: Match) -> list[discord.ui.Item[Any]]:
        raise NotImplementedError

    def due_words(self, match: Match) -> tuple[str, str]:
        """What a ping asks of the players due, and how its deadline is named: a turn by
        default. A game with a window (Big Cityz's objections) names it."""
        # TRANSLATORS: said in a ping: "⏰ <@Ann>: your move in **Cityscape** — time runs
        # out in 3 minutes."
        return _("your move"), _("time runs out")

    def picture_description(self, match: Match) -> str:
        """The table picture in words (its alt text): whose turn, the scores, the last
        move. By default the table's own text, which says that for most games; a cog says
        more where its picture shows more. The bot adds the latest news and fits the
        result to Discord's 1,024 characters."""
        return _("{title} table.", title=self.engine.title) + " " + plain_text(
            self.table_content(match), match)

    def board_words(self, match: Match, what: str, last: str = "") -> str:
        """Alt text from the public view's usual keys: ``what`` the picture shows, who is
        due, the scores (``players``, ``scores``) and the last move, fitted to the limit.
        Cogs' ``picture_description`` build on it."""
        view = self.public_view(match)
        names = display_names(match)
        parts = [what.rstrip(".") + "."]
        if match.status == ACTIVE and match.state is not None:
            due = [names.get(p, p) for p in self.engine.to_act(match.state)]
            parts.append(_("Due now: {names}.", names=", ".join(due)) if due else "")
        scores = view.get("scores")
        if isinstance(scores, dict) and scores:
            order = [p for p in view.get("players", scores) if p in scores]
            parts.append(_("Scores: {scores}.", scores=", ".join(
                f"{names.get(p, p)} {scores[p]}" for p in order)))
        if last:
            parts.append(_("Last move: {move}.", move=last.rstrip(".")))
        return fit_description(plain_text(" ".join(p for p in parts if p), match))

    def notices(self, match: Match, outcome: Outcome) -> list[Notice]:
        """Channel messages for this move (besides the table, which always refreshes)."""
        return []

    def turn_in_progress(self, match: Match) -> bool:
        """The player due is part way through a turn of several moves (a Cities player
        placing what they took, a Big City player drawing back to a full hand): the table's
        words and buttons follow each move, its picture waits for the turn's end
        (docs/channel.md). Asked of running matches only (``Tables._words_only``). False
        by default."""
        return False

    def turn_mark(self, match: Match) -> Hashable:
        """Which turn ``match`` is in, for a game whose turns may be in progress: the same
        from a turn's first move to its last, different for the next turn. A table message
        keeps its board through a turn in progress only when the board is this turn's
        (``Tables._words_only``). None by default."""
        return None

    def done_for_late_player(self, match: Match, outcome: Outcome) -> str | None:
        """What the computer player did for someone whose time ran out ("built a 3-high
        block on B2"), or None when it is not worth a line."""
        return None

    def late_notices(self, match: Match, outcome: Outcome) -> list[Notice]:
        """The line a move made for a late player folds into the table's text: "⏰ Ann ran
        out of time, so the computer player built a 3-high block on B2 for them."."""
        if not outcome.timed_out or outcome.player is None:
            return []
        did = self.done_for_late_player(match, outcome)
        if did is None:
            return []
        # TRANSLATORS: {did} is what the computer player did, in the game's words: "built a
        # 3-high block on B2".
        return [Notice(_("⏰ {name} ran out of time, so the computer player {did} for them.",
                         name=plain_name(seat_name(match, outcome.player)), did=did),
                       fold=True)]

    def options_text(self, match: Match) -> str:
        return ""

    def stats_suffix(self, extra: dict[str, int]) -> str:
        """More about a player on the /stats leaderboard, from their summed result extras."""
        return ""
