"""The path every game click takes: who is clicking, on which match, and the move itself.

A click is refused with a sentence when the game is over, the clicker is not seated, the
board is out of date or the rules say no; in every case nothing changes.

A move that was committed is published (table, notices, the next computer move) when the
click's handler is done, whatever happened to its answer: ``play`` notes the outcome on the
interaction and ``guarded`` publishes it, so no handler has to remember to, and a failed
answer (Discord down, the interaction expired) never leaves a channel one move behind.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import discord

from bot.core.engine import JSON, IllegalAction
from bot.core.i18n import Words
from bot.core.records import LOBBY, Match
from bot.core.runtime import Outcome, Refusal, StaleBoard
from bot.render.pool import Priority

from .deferral import answering_in_time, waited
from .expiry import too_late
from .replies import oops, storage_fault, tell
from .tablehooks import CROWD_WAIT, clicked_table
from .uploads import Upload

if TYPE_CHECKING:
    from bot.app import CityhallBot

log = logging.getLogger(__name__)

_ = Words("bot")
_l = _.lazy

NOT_SEATED = _l("You're not playing in this game, so the buttons are for the players. "
                "Watch along, or start your own game in another channel or thread.")


def cityhall(interaction: discord.Interaction) -> CityhallBot:
    return interaction.client  # type: ignore[return-value]


async def running(interaction: discord.Interaction, match_id: int) -> Match | None:
    """The match a click is about if it is being played, or None after telling the clicker
    why not (finished, unknown, still a lobby)."""
    bot = cityhall(interaction)
    match = bot.runtime.get(match_id)
    if match is None:
        old = await bot.storage.get(match_id)
        await tell(interaction, _("That game has finished; its buttons no longer do anything.")
                   if old else _("That button belongs to a game I don't know."))
        return None
    if match.status == LOBBY or match.state is None:
        await tell(interaction, _("The game has not started yet."))
        return None
    clicked_table(interaction, match.id, match.table_message_id,
                  carry=(bot.tables.hooks.wants(match.id, match.table_message_id)
                         and waited(interaction) < CROWD_WAIT))
    return match


async def seated(interaction: discord.Interaction, match_id: int) -> tuple[Match, str] | None:
    """The running match and the clicker's player id, or None after telling them why not."""
    match = await running(interaction, match_id)
    if match is None:
        return None
    player = str(interaction.user.id)
    if match.seat(player) is None:
        await tell(interaction, str(NOT_SEATED))
        return None
    return match, player


async def current_board(interaction: discord.Interaction, match: Match, why: str) -> None:
    """Answer an outdated click with the current board: on the table message itself by
    bringing the table up to date (for everyone, through the click's own answer, which
    Discord does not count against the bot's global rate limit); on a private message with
    the current table picture, only for the clicker."""
    bot = cityhall(interaction)
    if await bot.tables.catch_up(interaction, match):
        await tell(interaction, _("{why} Nothing was changed; the table now shows the "
                                  "current board.", why=why))
        return
    try:
        png = await bot.render_table(match, priority=Priority.INTERACTIVE)
    except Exception:
        log.exception("could not draw the current board")
        await tell(interaction, _("{why} Nothing was changed.", why=why))
        return
    await tell(interaction, _("{why} Nothing was changed; this is the current board.", why=why),
               file=Upload(png, "table.png", description=bot.tables.description(match)))


async def play(
    interaction: discord.Interaction,
    match: Match,
    player: str,
    action: JSON,
    *,
    expected_version: int | None = None,
    still_valid: Callable[[Match], bool] | None = None,
) -> Outcome | None:
    """Apply a player's move; on refusal tell them why and return None."""
    bot = cityhall(interaction)
    try:
        outcome = await bot.runtime.act(match.id, player, action,
                                        expected_version=expected_version,
                                        still_valid=still_valid)
    except StaleBoard as exc:
        await current_board(interaction, match, str(exc))
    except (IllegalAction, Refusal) as exc:
        await tell(interaction, str(exc))
    else:
        committed(interaction).append(outcome)
        return outcome
    return None


def committed(interaction: discord.Interaction) -> list[Outcome]:
    """Moves this interaction committed that are still to be published."""
    outcomes: list[Outcome] = interaction.extras.setdefault(_COMMITTED, [])
    return outcomes


_COMMITTED = "cityhall_committed"
SAVED_BUT = _l("Your move was saved, but I could not answer here. The table shows it; "
               "/game status shows it too.")


async def guarded(interaction: discord.Interaction,
                  handler: Callable[[discord.Interaction], Awaitable[None]]) -> None:
    """Run a click handler; a bug becomes an apology, never "This interaction failed", and
    whatever the handler committed is published afterwards in every case. A handler slow to
    answer (a locked database) has its click acknowledged in time (bot/ui/deferral.py)."""
    async with answering_in_time(interaction):
        await _guarded(interaction, handler)


async def _guarded(interaction: discord.Interaction,
                   handler: Callable[[discord.Interaction], Awaitable[None]]) -> None:
    try:
        await handler(interaction)
    except Exception as exc:
        if too_late(exc):
            # Past Discord's limit no answer is taken, an apology neither; a move it
            # committed is still published below.
            log.warning("A click was answered too late for Discord (over 3 s); the player "
                        "saw \"This interaction failed\".%s",
                        " Its move was saved." if interaction.extras.get(_COMMITTED) else "")
            return
        if (sentence := storage_fault(exc, "a click")) is not None:
            await tell(interaction, sentence)
            return
        log.exception("a click failed")
        if interaction.extras.get(_COMMITTED):
            await tell(interaction, str(SAVED_BUT))
        else:
            await oops(interaction)
    finally:
        bot = cityhall(interaction)
        # A click on a table answered by updating it: the table's next edits go through it.
        bot.tables.hooks.note(interaction)
        for outcome in interaction.extras.pop(_COMMITTED, []):
            bot.publish(outcome, interaction)
