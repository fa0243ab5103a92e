"""What the load test counts as a move (docs/loadtest-workload.md): a click answered with a
private picker still open is not one, even when the channel's table changed its words
before the answer was read (a Cities take: the words at once, the board when the turn
ends); the click that closes the picker is, timed to the table's next picture."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace
from typing import Any

from bot.tools.players import Players, Recorder, Table
from fakediscord.models import FLAG_EPHEMERAL, FakeAttachment, FakeMessage

BOT = {"id": "900"}
TABLE_BUTTON = {"type": 1, "components": [
    {"type": 2, "custom_id": "ch:ct:1:v3:a0", "label": "Take", "style": 1}]}
PICKER_MENU = {"type": 1, "components": [
    {"type": 3, "custom_id": "ch:ct:1:v3:s0p0", "options": [{"label": "A", "value": "0"}]}]}


def table_message(words: str) -> FakeMessage:
    return FakeMessage(id="500", channel_id="10", guild_id="1", author=BOT, content=words,
                       components=[TABLE_BUTTON])


def private(words: str, *rows: dict[str, Any]) -> FakeMessage:
    return FakeMessage(id="600", channel_id="10", guild_id="1", author=BOT, content=words,
                       components=list(rows), flags=FLAG_EPHEMERAL)


class Click:
    """An interaction as ``Players.send`` reads it; ``before_answer`` runs first (what the
    channel shows before the player reads the answer)."""

    def __init__(self, reply: FakeMessage, before_answer: Any) -> None:
        self.created = time.monotonic()
        self.reply, self.before_answer = reply, before_answer
        self.followed_by = None

    async def response(self, timeout: float) -> Any:
        self.before_answer()
        return SimpleNamespace(type=4, at=time.monotonic(), data={"content": self.reply.content},
                               message=self.reply)


async def sent(click: Click) -> Click:
    return click


def players_at_a_table() -> tuple[Players, Table]:
    fake = SimpleNamespace(interaction_timeout=3.0, message_hook=None, application_id="900")
    players = Players(fake, Recorder())  # type: ignore[arg-type]
    table = Table(guild_id="1", channel_id="10", host={"id": "1"}, guest={"id": "2"},
                  game="cities")
    players.watch([table])
    return players, table


def test_a_take_answered_with_a_picker_is_not_a_move_though_the_words_changed_first() -> None:
    async def play() -> None:
        players, table = players_at_a_table()
        words_first = table_message("Ann took 2 building pieces.\nAnn is placing …")
        take = await players.send("load:take", sent(Click(
            private("Place your pieces", PICKER_MENU),
            lambda: players._seen(words_first, 0))), table)
        assert take is not None and not take.changed and take.picture_ms is None
        assert table.watches == []
        # The placing click closes the picker: the move, timed to the board's picture.
        place = await players.send("load:place", sent(Click(
            private("Your turn is over."), lambda: None)), table)
        assert place is not None and table.watches
        await asyncio.sleep(0.01)
        players._seen(table_message("Bob, it's your turn"), 1)
        assert place.changed and place.picture_ms is not None and place.picture_ms >= 10
        assert not take.changed and take.picture_ms is None

    asyncio.run(play())


def test_a_placement_that_leaves_the_turn_in_progress_is_told_in_words_and_not_waited_on(
        ) -> None:
    """A Cities placement with more to place: the table's words change and it keeps the
    board it showed (no upload, its picture still on it). That click is a move without a new
    picture, its player goes on at once, and the turn's board, when it comes, is the
    picture of the click that ended the turn."""
    async def play() -> None:
        players, table = players_at_a_table()
        board = FakeAttachment(id="700", filename="table.png", data=b"png", url="u")
        first = await players.send("load:place", sent(Click(
            private("Placed. Place… opens the chooser again."), lambda: None)), table)
        assert first is not None
        in_progress = table_message("Ann is placing the pieces they took")
        in_progress.attachments = [board]
        players._seen(in_progress, 0)
        assert first.changed and first.picture_ms is None
        assert table.watching is not None and table.watching.done(time.monotonic())
        assert table.ready(time.monotonic())
        last = await players.send("load:place", sent(Click(
            private("Your turn is over."), lambda: None)), table)
        assert last is not None and not last.changed
        await asyncio.sleep(0.01)
        players._seen(table_message("Bob, it's your turn"), 1)
        assert last.changed and last.picture_ms is not None
        assert first.picture_ms is None  # the turn's board is the last click's

    asyncio.run(play())


def test_a_change_in_words_alone_without_the_board_is_still_waited_on() -> None:
    """A table edited to words without any picture (a move told first, its board drawn
    after the answer) keeps its player looking for the picture."""
    async def play() -> None:
        players, table = players_at_a_table()
        move = await players.send("load:lot", sent(Click(
            private("Built."), lambda: None)), table)
        assert move is not None
        players._seen(table_message("Bob, it's your turn"), 0)
        assert move.changed and move.picture_ms is None and move.changed_ms is not None
        assert table.watching is not None and not table.watching.done(time.monotonic())
        await asyncio.sleep(0.01)
        players._seen(table_message("Bob, it's your turn"), 1)
        # the report's late pictures say both: when the words changed, when the picture came
        assert move.picture_ms is not None and move.picture_ms >= move.changed_ms + 10

    asyncio.run(play())
