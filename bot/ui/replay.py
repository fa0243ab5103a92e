"""The replay viewer of a finished game (issue 28): a private message that steps through
every move's board, drawn on demand from the stored action log.

Opened by ``/replay <game>`` (cogs/replays.py), by the Replay button on a finished table
(``replay_items``) and on a /history entry (``replay_button``). The viewer's buttons are
DynamicItems whose custom id carries everything (the match and the step shown next), so
they work after a restart; each click edits the private message in place. The stepping
is ``bot.core.replaying`` (the replay contract of ``python -m bot replay``): a frame's
board is ``engine.view(state, None)`` at that step, named as the table names it and drawn
by the game's ``render_table`` in a render worker. See docs/replays.md.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import discord

from bot.core.engine import JSON
from bot.core.i18n import Words
from bot.core.outcomes import Outcome
from bot.core.records import ABANDONED, ENDED, OVER, Match
from bot.core.replaying import Replay, Step, board, round_at
from bot.render.pool import Priority

from .clicks import answer_click
from .components import ascii_number
from .game import GameAdapter, fit_description, plain_text, seat_name
from .later import drawn_within, show_private
from .play import cityhall
from .replies import plain_name, tell
from .uploads import Upload
from .words import slash

if TYPE_CHECKING:
    from bot.app import CityhallBot

_ = Words("bot")
_n = _.plural

log = logging.getLogger(__name__)
T = TypeVar("T")

PREFIX = "ch:replay"  # the button that opens a viewer: ch:replay:<match>
STEP_PREFIX = "ch:rp"  # a viewer's step buttons: ch:rp:<match>:<step>:<f|p|n|l>
ROUND_PREFIX = "ch:rpr"  # a viewer's "jump to round" menu: ch:rpr:<match>
NAV = {"f": "⏮", "p": "◀", "n": "▶", "l": "⏭"}
MAX_OPTIONS = 25  # Discord's options in a menu
REPLAYABLE = (OVER, ENDED, ABANDONED)
# How long a viewer's first answer waits for the game's rounds (its "jump to round" menu):
# every move replayed, up to a quarter of a second for a long game on a busy machine.
ROUNDS_WAIT_S = 0.15
MAX_SAID = 1500  # the game's words about one move, of a message's 2,000 characters


class Refused(Exception):
    """A viewer that cannot be shown: ``str(exc)`` is the sentence for the asker."""


# -- the games being watched ---------------------------------------------------------------

class Replays:
    """The replays opened lately, each computed step kept (a finished game never changes),
    so stepping back and forth replays nothing twice. Bounded: the oldest go first."""

    KEPT = 16

    def __init__(self) -> None:
        self._kept: OrderedDict[int, tuple[Match, Replay]] = OrderedDict()
        self._locks: dict[int, asyncio.Lock] = {}
        self._finding: set[asyncio.Future[list[tuple[int, int]]]] = set()

    async def load(self, bot: CityhallBot, match_id: int,
                   guild_id: int | None) -> tuple[Match, Replay]:
        """The finished match ``match_id`` of server ``guild_id`` and its replay; Refused
        with the sentence to say otherwise."""
        kept = self._kept.get(match_id)
        match: Match | None
        if kept is not None:
            self._kept.move_to_end(match_id)
            match = kept[0]
        else:
            match = await bot.storage.get(match_id) if match_id <= 2**63 - 1 else None
        if guild_id is None:
            raise Refused(_("Replays belong to a server: use {command} in the server where the "
                            "game was played.", command=slash("replay")))
        if match is None or match.guild_id != guild_id or match.game not in bot.adapters:
            raise Refused(_("There is no game {number} on this server. {command} lists the "
                            "finished ones.", number=str(match_id), command=slash("history")))
        if match.status not in REPLAYABLE:
            raise Refused(_("Game {number} is still being played: its replay opens when it is "
                            "over.", number=str(match_id)))
        if kept is not None:
            return kept
        actions = await bot.storage.actions(match_id)
        if match.status != OVER and not actions and match.state is None:
            raise Refused(_("Game {number} never started, so there is nothing to replay.",
                            number=str(match_id)))
        engine = bot.adapters[match.game].engine
        replay = Replay(engine, match.player_ids, match.options, match.seed, actions)
        self._kept[match_id] = (match, replay)
        while len(self._kept) > self.KEPT:
            old, _kept = self._kept.popitem(last=False)
            self._locks.pop(old, None)
        return match, replay

    async def step(self, match_id: int, replay: Replay, index: int) -> Step:
        """Step ``index``, worked out off the event loop unless it is at hand (a few moves
        from the nearest kept step; the first look at a game replays it up to there)."""
        if replay.known(index):
            return replay.step(index)
        async with self._locks.setdefault(match_id, asyncio.Lock()):
            return await asyncio.to_thread(replay.step, index)

    async def rounds(self, match_id: int, replay: Replay) -> list[tuple[int, int]]:
        """The game's rounds, worked out off the event loop the first time (every move
        replayed)."""
        if replay.rounds_known:
            return replay.rounds()
        async with self._locks.setdefault(match_id, asyncio.Lock()):
            return await asyncio.to_thread(replay.rounds)

    async def rounds_within(self, match_id: int, replay: Replay,
                            wait: float) -> list[tuple[int, int]] | None:
        """The game's rounds if they are found within ``wait`` seconds, else None; they go
        on being worked out, for the next click."""
        if replay.rounds_known:
            return replay.rounds()
        finding = asyncio.ensure_future(self.rounds(match_id, replay))
        if not await drawn_within(finding, wait):
            self._finding.add(finding)
            finding.add_done_callback(self._found)
            return None
        return finding.result()

    def _found(self, finding: asyncio.Future[list[tuple[int, int]]]) -> None:
        self._finding.discard(finding)
        if not finding.cancelled() and finding.exception() is not None:
            log.error("A replay's rounds could not be worked out",
                      exc_info=finding.exception())

    def forget(self) -> None:
        self._kept.clear()
        self._locks.clear()


REPLAYS = Replays()


# -- the viewer ----------------------------------------------------------------------------

async def show(interaction: discord.Interaction, match_id: int, index: int, *,
               edit: bool) -> None:
    """Show step ``index`` of game ``match_id``: a new private viewer, or (``edit``) the
    viewer clicked, changed in place. A refusal is one sentence and shows nothing."""
    bot = cityhall(interaction)
    try:
        match, replay = await REPLAYS.load(bot, match_id, interaction.guild_id)
        if not 0 <= index <= replay.last:
            raise Refused(_n("Game {number} has no move {step}: it has {n} move. Open it "
                             "again with {command} {number}.",
                             "Game {number} has no move {step}: it has {n} moves. Open it "
                             "again with {command} {number}.", replay.last,
                             number=str(match_id), step=index, command=slash("replay")))
    except Refused as refused:
        await tell(interaction, str(refused))
        return
    step = await REPLAYS.step(match_id, replay, index)
    adapter = bot.adapters[match.game]
    # The picture is drawn while the rounds are worked out (the first look at a game); a
    # long game on a busy bot is shown without its round menu rather than late, and the
    # rounds, found meanwhile, are there from the next click.
    picture = asyncio.ensure_future(_picture(interaction, adapter, match, step))
    try:
        rounds = await REPLAYS.rounds_within(match_id, replay, ROUNDS_WAIT_S)
        content = caption(adapter, match, replay, step, rounds)
        view = viewer(match, replay, index, rounds)
    except BaseException:
        picture.cancel()
        raise
    await show_private(interaction, match_id, content, view, _described(picture, content, match),
                       edit=edit)


def frame_view(adapter: GameAdapter[Any], match: Match, step: Step) -> JSON:
    """What ``step``'s picture is drawn from: the replay contract's board (the public view
    at that step), with the seats' names, as the table's picture is drawn."""
    return adapter.named_view(match, board(adapter.engine, step))


async def _picture(interaction: discord.Interaction, adapter: GameAdapter[Any], match: Match,
                   step: Step) -> tuple[bytes, str] | None:
    """Step ``step``'s picture, drawn by a render worker (None if it could not be)."""
    try:
        png = await cityhall(interaction).pictures.render(
            match.game, "render_table", frame_view(adapter, match, step),
            priority=Priority.INTERACTIVE)
    except Exception:
        log.exception("Could not draw step %d of game %d's replay", step.index, match.id)
        return None
    return png, f"replay-{match.id}-{step.index}.png"


async def _described(drawing: asyncio.Future[tuple[bytes, str] | None], content: str,
                     match: Match) -> list[discord.File]:
    """The drawn picture as an upload, with the viewer's words as its alt text."""
    drawn = await drawing
    if drawn is None:
        return []
    png, filename = drawn
    return [Upload(png, filename, description=fit_description(plain_text(content, match)))]


def caption(adapter: GameAdapter[Any], match: Match, replay: Replay, step: Step,
            rounds: list[tuple[int, int]] | None) -> str:
    """The viewer's words: which game (and round), which move of how many, who moved and
    what, in the game's own words where it has them (docs/replays.md)."""
    title, number = adapter.engine.title, str(match.id)
    round_number = round_at(rounds or [], step.index)
    if round_number is None:
        head = _("🎞️ Replay of **{title}** game {number}", title=title, number=number)
    else:
        head = _("🎞️ Replay of **{title}** game {number}, round {round}", title=title,
                 number=number, round=round_number)
    at = _match_at(match, step)
    outcome = None if step.action is None else Outcome(
        match=at, player=step.player, action=step.action, events=step.events)
    if step.index == 0:
        where = _n("The start ({n} move in all).", "The start ({n} moves in all).",
                   replay.last)
    elif step.player is None:
        where = _("Move {step} of {last}.", step=step.index, last=replay.last)
    else:
        name = plain_name(seat_name(match, step.player))
        did = _words(lambda: adapter.done_for_late_player(at, outcome), match, step) \
            if outcome is not None and step.error is None else None
        if did:
            # TRANSLATORS: {did} is the move in the game's words, as in "the computer player
            # {did} for them": "Move 12 of 84 — Ann built a 3-high block on B2."
            where = _("Move {step} of {last} — {name} {did}.", step=step.index,
                      last=replay.last, name=name, did=did)
        else:
            where = _("Move {step} of {last} — {name}.", step=step.index, last=replay.last,
                      name=name)
    lines = [head, where]
    if step.error is not None:
        lines.append(_("This move could not be replayed ({why}); the board stays as it was.",
                       why=step.error.rstrip(".")))
    elif outcome is not None:
        notices = _words(lambda: adapter.notices(at, outcome), match, step) or []
        said = "\n".join(n.text for n in notices if n.text)
        if said:
            lines.append(said[:MAX_SAID])
    if step.index == replay.last:
        if match.status == OVER:
            lines.append(_("The game ends here."))
        else:
            lines.append(_("The game was ended early here."))
    return "\n".join(lines)


def _match_at(match: Match, step: Step) -> Match:
    """The match as it was after ``step``, for the game's words about that move."""
    return Match(id=match.id, guild_id=match.guild_id, channel_id=match.channel_id,
                 game=match.game, status=match.status, host_id=match.host_id,
                 seats=match.seats, options=match.options, seed=match.seed, state=step.state,
                 version=step.index + 1, created_at=match.created_at)


def _words(say: Callable[[], T], match: Match, step: Step) -> T | None:
    """What the game says about a move, or None if it cannot say it (logged)."""
    try:
        return say()
    except Exception:
        log.exception("The words of move %d of game %d could not be said", step.index,
                      match.id)
        return None


def viewer(match: Match, replay: Replay, index: int,
           rounds: list[tuple[int, int]] | None) -> discord.ui.View:
    """The viewer's buttons (⏮ ◀ ▶ ⏭) and, where the game has rounds, its round menu."""
    view = discord.ui.View(timeout=None)
    targets = {"f": 0, "p": max(index - 1, 0), "n": min(index + 1, replay.last),
               "l": replay.last}
    for nav, target in targets.items():
        item = ReplayStep(match.id, target, nav)
        item.item.disabled = (index == 0) if nav in "fp" else (index == replay.last)
        view.add_item(item)
    if rounds:
        view.add_item(ReplayRound(match.id, rounds, round_at(rounds, index)))
    return view


# -- the buttons ---------------------------------------------------------------------------

class ReplayButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                   template=r"ch:replay:(?P<match>[0-9]{1,19})"):
    """Replay: opens a private viewer at the start of the game."""

    def __init__(self, match_id: int, row: int | None = None) -> None:
        super().__init__(discord.ui.Button(
            label=_("Replay"), emoji="🎞️", style=discord.ButtonStyle.secondary, row=row,
            custom_id=f"{PREFIX}:{match_id}"))
        self.match_id = match_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> ReplayButton:
        return cls(int(match["match"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await answer_click(interaction, self, "Replay",
                      lambda: show(interaction, self.match_id, 0, edit=False))


class ReplayStep(discord.ui.DynamicItem[discord.ui.Button[Any]],
                 template=r"ch:rp:(?P<rest>.*)"):
    """⏮ ◀ ▶ ⏭: the viewer shows step ``step`` of game ``match_id`` instead."""

    ID = re.compile(r"(?P<match>[0-9]{1,19}):(?P<step>[0-9]{1,6}):(?P<nav>[fpnl])")

    def __init__(self, match_id: int, step: int, nav: str) -> None:
        super().__init__(discord.ui.Button(
            emoji=NAV.get(nav, "▶"), style=discord.ButtonStyle.secondary,
            custom_id=f"{STEP_PREFIX}:{match_id}:{step}:{nav}"))
        self.match_id = match_id
        self.step = step
        self.valid = True

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> ReplayStep:
        parsed = cls.ID.fullmatch(match["rest"])
        if parsed is None or ascii_number(parsed["match"]) is None \
                or ascii_number(parsed["step"]) is None:
            made = cls(0, 0, "f")
            made.valid = False
            return made
        return cls(int(parsed["match"]), int(parsed["step"]), parsed["nav"])

    async def callback(self, interaction: discord.Interaction) -> None:
        async def handle() -> None:
            if not self.valid:
                await tell(interaction, _("That replay button is damaged; open the replay "
                                          "again with {command}.", command=slash("replay")))
                return
            await show(interaction, self.match_id, self.step, edit=True)
        await answer_click(interaction, self, "A replay step", handle)


class ReplayRound(discord.ui.DynamicItem[discord.ui.Select[Any]],
                  template=r"ch:rpr:(?P<rest>.*)"):
    """Jump to round: the viewer shows the first move of the round picked."""

    ID = re.compile(r"(?P<match>[0-9]{1,19})")

    def __init__(self, match_id: int, rounds: list[tuple[int, int]] | None = None,
                 current: int | None = None) -> None:
        shown = _window(rounds or [], current)
        options = [discord.SelectOption(label=_("Round {round}", round=number),
                                        value=str(first), default=number == current)
                   for number, first in shown] or [discord.SelectOption(label="-", value="0")]
        super().__init__(discord.ui.Select(
            placeholder=_("Jump to round…"), options=options,
            custom_id=f"{ROUND_PREFIX}:{match_id}"))
        self.match_id = match_id
        self.valid = True

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> ReplayRound:
        parsed = cls.ID.fullmatch(match["rest"])
        made = cls(int(parsed["match"]) if parsed else 0)
        made.valid = parsed is not None and ascii_number(parsed["match"]) is not None
        return made

    async def callback(self, interaction: discord.Interaction) -> None:
        async def handle() -> None:
            values = self.item.values
            if not self.valid or len(values) != 1:
                await tell(interaction, _("That replay menu is damaged; open the replay "
                                          "again with {command}.", command=slash("replay")))
                return
            try:
                _match, replay = await REPLAYS.load(cityhall(interaction), self.match_id,
                                                    interaction.guild_id)
            except Refused as refused:
                await tell(interaction, str(refused))
                return
            step = ascii_number(str(values[0]))
            rounds = await REPLAYS.rounds(self.match_id, replay)
            if step is None or step not in {first for _n, first in rounds}:
                await tell(interaction, _("Game {number} has no round starting there. Open "
                                          "it again with {command} {number}.",
                                          command=slash("replay"), number=str(self.match_id)))
                return
            await show(interaction, self.match_id, step, edit=True)
        await answer_click(interaction, self, "A replay's round menu", handle)


def _window(rounds: list[tuple[int, int]], current: int | None) -> list[tuple[int, int]]:
    """At most 25 rounds for the menu: all of them, or those around the current one."""
    if len(rounds) <= MAX_OPTIONS:
        return rounds
    at = next((i for i, (number, _first) in enumerate(rounds) if number == current), 0)
    first = min(max(at - MAX_OPTIONS // 2, 0), len(rounds) - MAX_OPTIONS)
    return rounds[first:first + MAX_OPTIONS]


# -- where viewers open --------------------------------------------------------------------

def replay_button(match_id: int) -> discord.ui.Item[Any]:
    """The Replay button for a finished game (a /history entry, the final table)."""
    return ReplayButton(match_id)


def replay_items(match: Match) -> list[discord.ui.Item[Any]]:
    """The finished table's Replay button (none for a game still running or never
    started)."""
    if match.status not in REPLAYABLE or match.state is None:
        return []
    return [ReplayButton(match.id)]


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    ReplayButton, ReplayStep, ReplayRound)
