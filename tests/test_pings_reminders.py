"""Turn pings and reminders, decided without Discord in the way: who is told, when the
reminder is due, what it says, which message it replaces, and what a restart or a moved
turn changes (bot/ui/pings.py). The bot around TurnPings is a stand-in holding a real game
state and a clock the test moves; a channel records what would have been sent and deleted.
The same behaviour through discord.py and the fake Discord: tests/test_turn_pings.py and
tests/test_channel_tidy.py (slower, so these are the ones mutation testing leans on)."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import itertools
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.core.records import ACTIVE, OVER, Match, Seat
from bot.games.cityscape import ENGINE as CITYSCAPE
from bot.ui.pings import (
    CHANNEL as IN_CHANNEL,
)
from bot.ui.pings import (
    DIRECT,
    KEY,
    OFF,
    TurnPings,
    _Sent,
    deadline_text,
    notify_key,
)

ANN, BOB = "111111111111111111", "222222222222222222"
CHANNEL = 5000
START = 1_000_000.0  # the turn's clock start, on the test's clock


class _Settled:
    """``TurnPings`` whose calls also wait for the deletions they started."""

    def __init__(self, pings: TurnPings, stage: Any) -> None:
        object.__setattr__(self, "_pings", pings)
        object.__setattr__(self, "_stage", stage)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._pings, name, value)

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._pings, name)
        if not inspect.iscoroutinefunction(attr):
            return attr

        async def settled(*args: Any, **kwargs: Any) -> Any:
            result = await attr(*args, **kwargs)
            tidying = [t for t in self._stage.started
                       if t.get_coro().__name__ == "_delete_in_channel"]
            for task in tidying:
                self._stage.started.remove(task)
                await task
            return result
        return settled


@dataclass
class Channel:
    """Messages sent and deleted, with whom each one was allowed to notify."""

    sent: list[tuple[int, str, set[str]]] = field(default_factory=list)
    deleted: list[int] = field(default_factory=list)
    refuse: bool = False
    ids: itertools.count[int] = field(default_factory=lambda: itertools.count(9000))
    links: list[str] = field(default_factory=list)  # each message's link button, in order
    # Discord's answer to a message here instead of taking it (a direct message refused).
    refusal: Exception | None = None

    async def send(self, text: str, *, allowed_mentions: discord.AllowedMentions,
                   view: discord.ui.View | None = None) -> Any:
        if self.refuse:
            raise discord.DiscordServerError(SimpleNamespace(status=503, reason="down"),
                                             "Service unavailable")
        if self.refusal is not None:
            raise self.refusal
        self.links.extend(str(getattr(item, "url", None)) for item in
                          (view.children if view is not None else []))
        assert allowed_mentions.everyone is False and allowed_mentions.roles is False
        for _ in range(3):  # a request takes a while: other work runs meanwhile, as with Discord
            await asyncio.sleep(0)
        users = allowed_mentions.users
        assert isinstance(users, list)
        message_id = next(self.ids)
        self.sent.append((message_id, text, {str(u.id) for u in users}))
        return SimpleNamespace(id=message_id)

    def get_partial_message(self, message_id: int) -> Any:
        async def delete() -> None:
            await asyncio.sleep(0)
            self.deleted.append(message_id)
        return SimpleNamespace(delete=delete)


class Stage:
    """What TurnPings reads of the bot: one match, its runtime's clock and deadline, the
    kv table, and the channel."""

    def __init__(self, match: Match, turn: float = 300.0) -> None:
        self.match = match
        self.turn = turn  # the turn's length, seconds
        self.now = START
        self.kv: dict[str, str] = {}
        self.matches_kept: dict[int, Match] = {self.match.id: match}  # storage.get
        self.channel = Channel()
        self.dms: dict[str, Channel] = {}  # each player's direct messages, once opened
        self.timeout_action: Any = None
        self.due: list[str] | None = None  # who is due, if not whom the game says
        self.started: list[asyncio.Task[None]] = []
        self.refuse_delete = False  # the kv table's deletes fail (a database error)
        self.paced: list[tuple[str, int]] = []  # (kind, channel) each request waited for
        engine = SimpleNamespace(
            to_act=lambda state: CITYSCAPE.to_act(state) if self.due is None else self.due,
            timeout_action=self.timeout_for)
        self.bot = SimpleNamespace(
            runtime=SimpleNamespace(
                get=lambda match_id: self.match if match_id == self.match.id else None,
                deadline=self.deadline, clock=lambda: self.now, engine=lambda m: engine,
                limits=SimpleNamespace(restart_grace=60.0), shards=None),
            adapters={"cityscape": SimpleNamespace(
                engine=CITYSCAPE, due_words=lambda m: ("your move", "time runs out"))},
            storage=SimpleNamespace(set_value=self.set_value, delete_values=self.delete_values,
                                    values_with_prefix=self.values_with_prefix,
                                    get=self.get, value=self.value),
            tables=SimpleNamespace(pacing=SimpleNamespace(wait=self.no_wait,
                                                          tidying=self.no_wait)),
            get_partial_messageable=lambda channel_id: self.channel,
            create_dm=self.create_dm,
            speaking_to=lambda guild_id: contextlib.nullcontext(),
            user_languages={},  # nobody has clicked: direct messages in the server's
            background=lambda job: self.started.append(asyncio.ensure_future(job)),
            draining=False)
        # A replaced ping is deleted on its own (bot.background): each call here returns
        # once that tidying is done too, as the bot's channel shows it a moment later.
        self.pings = _Settled(TurnPings(self.bot), self)  # type: ignore[arg-type]

    def deadline(self, match: Match) -> float | None:
        if match.status != ACTIVE or match.turn_started_at is None:
            return None
        return match.turn_started_at + self.turn

    async def get(self, match_id: int) -> Match | None:
        return self.matches_kept.get(match_id)

    async def set_value(self, key: str, value: str) -> None:
        await asyncio.sleep(0)  # a database write: others run meanwhile
        self.kv[key] = value

    async def value(self, key: str) -> str | None:
        return self.kv.get(key)

    async def create_dm(self, user: discord.abc.Snowflake) -> Channel:
        await asyncio.sleep(0)
        return self.dms.setdefault(str(user.id), Channel(ids=itertools.count(7000)))

    def timeout_for(self, state: Any) -> Any:
        assert state is self.match.state, "asked about another state than the match's"
        return self.timeout_action

    async def delete_values(self, keys: list[str]) -> None:
        if self.refuse_delete:
            raise OSError("disk I/O error")
        for key in keys:
            self.kv.pop(key, None)

    async def values_with_prefix(self, prefix: str) -> list[tuple[str, str]]:
        return [(k, v) for k, v in self.kv.items() if k.startswith(prefix)]

    async def no_wait(self, kind: str, channel_id: int) -> None:
        self.paced.append((kind, channel_id))
        await asyncio.sleep(0)  # the channel's pacing: others run meanwhile

    def key(self) -> tuple[float, float]:
        deadline = self.deadline(self.match)
        assert self.match.turn_started_at is not None and deadline is not None
        return (self.match.turn_started_at, deadline)


def a_match(*, bob_is_a_computer: bool = False) -> Match:
    seats = [Seat(ANN, "Ann"), Seat(BOB, "Bob", cpu=bob_is_a_computer)]
    return Match(id=7, guild_id=1, channel_id=CHANNEL, game="cityscape", status=ACTIVE,
                 host_id=ANN, seats=seats, options={"rounds": 1}, seed=5,
                 state=CITYSCAPE.new([ANN, BOB], {"rounds": 1}, 5), turn_started_at=START)


@pytest.fixture
async def stage() -> AsyncIterator[Stage]:
    made = Stage(a_match())
    yield made
    made.pings.close()
    await asyncio.gather(*made.started)


# -- when the reminder is due ---------------------------------------------------------------

async def test_a_long_turn_gets_its_reminder_a_minute_before_it_ends(stage: Stage) -> None:
    stage.pings.plan(stage.match)
    assert stage.pings.reminder_at(stage.match.id) == START + 300.0 - 60.0


@pytest.mark.parametrize(("turn", "reminded"), [(120.0, False), (121.0, True), (60.0, False)])
async def test_only_turns_over_two_minutes_get_a_reminder(turn: float, reminded: bool) -> None:
    stage = Stage(a_match(), turn=turn)
    stage.pings.plan(stage.match)
    assert (stage.pings.reminder_at(stage.match.id) is not None) is reminded
    stage.pings.close()


async def test_a_reminder_already_due_is_not_planned(stage: Stage) -> None:
    stage.now = START + 240.0  # exactly when it was due: too late to remind
    stage.pings.plan(stage.match)
    assert stage.pings.reminder_at(stage.match.id) is None
    stage.now = START + 239.0
    stage.match.turn_started_at = START + 0.5  # a new turn, planned anew
    stage.pings.plan(stage.match)
    assert stage.pings.reminder_at(stage.match.id) == START + 0.5 + 240.0


async def test_after_a_restart_a_reminder_within_the_grace_is_skipped(stage: Stage) -> None:
    """The restart's grace (90 s here) less the minute of the reminder: a reminder due in
    the next 30 s would go out at once with every other game's, or went out before."""
    stage.bot.runtime.limits.restart_grace = 90.0
    stage.now = START + 240.0 - 30.0
    stage.pings.plan(stage.match, restored=True)
    assert stage.pings.reminder_at(stage.match.id) is None
    stage.match.turn_started_at = START + 1.0  # the same, one second later: kept
    stage.pings.plan(stage.match, restored=True)
    assert stage.pings.reminder_at(stage.match.id) == START + 1.0 + 240.0
    # without the restart, the first would have been kept too
    stage.match.turn_started_at = START
    stage.pings.plan(stage.match)
    assert stage.pings.reminder_at(stage.match.id) == START + 240.0


async def test_the_same_turn_keeps_its_plan_and_a_finished_game_has_none(stage: Stage) -> None:
    stage.pings.plan(stage.match)
    stage.now = START + 250.0  # past the reminder's time: planning again changes nothing
    stage.pings.plan(stage.match)
    assert stage.pings.reminder_at(stage.match.id) == START + 240.0
    stage.match.status = OVER
    stage.pings.plan(stage.match)
    assert stage.pings.reminder_at(stage.match.id) is None


# -- what the reminder says and to whom --------------------------------------------------------

@pytest.mark.parametrize(("before", "amount"), [(60.0, "one minute"), (120.0, "2 minutes"),
                                                 (90.0, "90 seconds")])
async def test_the_reminder_says_how_long_is_left(stage: Stage, before: float,
                                                  amount: str) -> None:
    stage.pings.remind_before = before
    text = stage.pings.reminder_text(stage.match, [ANN, BOB])
    assert text == (f"⏳ <@{ANN}>, <@{BOB}>: {amount} left for your move in **Cityscape** — "
                    f"then the computer player moves for you (<t:{int(START + 300)}:R>).")


async def test_a_window_that_closes_by_itself_is_named_so(stage: Stage) -> None:
    stage.timeout_action = {"type": "close"}
    assert "then the window closes" in stage.pings.reminder_text(stage.match, [ANN])


async def test_the_reminder_mentions_exactly_those_still_due_and_replaces_the_ping(
        stage: Stage) -> None:
    await stage.pings.update(stage.match.id)  # the turn's ping: both are due
    [(ping, _, pinged)] = stage.channel.sent
    assert pinged == {ANN, BOB}
    stage.due = [BOB]  # Ann has chosen her goals; Bob has not
    stage.pings.plan(stage.match)
    stage.now = START + 240.0
    await stage.pings.remind(stage.match.id, stage.key())
    (reminder, text, reminded) = stage.channel.sent[-1]
    assert reminded == {BOB} and f"<@{ANN}>" not in text and "left for your move" in text
    assert stage.channel.deleted == [ping]
    saved = _Sent.from_json(stage.kv[f"{KEY}{stage.match.id}"])
    assert saved.message_id == reminder and saved.turn == START
    assert saved.pinged == {ANN, BOB}  # both were told this turn, by the ping or the reminder
    assert stage.pings.reminder_at(stage.match.id) is None  # it went out
    await stage.pings.update(stage.match.id)  # reminded is told: no second ping this turn
    assert len(stage.channel.sent) == 2


async def test_a_turn_that_moved_on_or_ran_out_gets_no_reminder(stage: Stage) -> None:
    stage.pings.plan(stage.match)
    old = stage.key()
    stage.match.turn_started_at = START + 5.0
    await stage.pings.remind(stage.match.id, old)
    stage.now = START + 5.0 + 300.0  # the new turn is up already
    await stage.pings.remind(stage.match.id, stage.key())
    stage.now = START + 5.0 + 240.0
    stage.bot.draining = True  # stopping: nothing new is said
    await stage.pings.remind(stage.match.id, stage.key())
    stage.bot.draining = False
    stage.match.seats = [Seat(ANN, "Ann", cpu=True), Seat(BOB, "Bob", cpu=True)]
    await stage.pings.remind(stage.match.id, stage.key())  # nobody human is due
    assert stage.channel.sent == []


async def test_the_alarm_sends_the_reminder_at_its_time() -> None:
    stage = Stage(a_match(), turn=121.0)
    stage.pings.remind_before = 120.95  # due 0.05 s after the turn began
    loop = asyncio.get_running_loop()
    began = loop.time()
    stage.bot.runtime.clock = lambda: START + loop.time() - began
    stage.pings.plan(stage.match)
    assert stage.pings.reminder_at(stage.match.id) == pytest.approx(START + 0.05)
    for _ in range(100):
        await asyncio.sleep(0.01)
        if stage.started:
            break
    await asyncio.gather(*stage.started)
    assert [who for _, _, who in stage.channel.sent] == [{ANN, BOB}]
    stage.pings.close()


# -- the ping of each turn -----------------------------------------------------------------------

async def test_each_newly_due_human_is_pinged_once_a_turn(stage: Stage) -> None:
    stage.match.seats = [Seat(ANN, "Ann"), Seat(BOB, "Bob", cpu=True)]
    await stage.pings.update(stage.match.id)
    await stage.pings.update(stage.match.id)  # the same turn: nothing new
    assert [(text, who) for _, text, who in stage.channel.sent] == [
        (f"⏰ <@{ANN}>: your move in **Cityscape** — time runs out <t:{int(START + 300)}:R>.",
         {ANN})]
    stage.match.turn_started_at = START + 10.0  # the next turn: pinged again, the old goes
    await stage.pings.update(stage.match.id)
    assert len(stage.channel.sent) == 2 and stage.channel.deleted == [stage.channel.sent[0][0]]


async def test_a_ping_that_could_not_be_sent_is_not_remembered(stage: Stage) -> None:
    stage.channel.refuse = True
    await stage.pings.update(stage.match.id)
    assert stage.channel.sent == [] and stage.kv == {}


async def test_the_end_of_a_game_takes_its_last_ping_away(stage: Stage) -> None:
    await stage.pings.update(stage.match.id)
    [(ping, _, _)] = stage.channel.sent
    assert f"{KEY}{stage.match.id}" in stage.kv
    stage.match.status = OVER
    await stage.pings.update(stage.match.id)
    assert stage.channel.deleted == [ping] and stage.kv == {}
    # Each request keeps to Discord's limits for its kind in this channel.
    assert stage.paced == [("send", CHANNEL), ("delete", CHANNEL)]
    await stage.pings.finish(stage.match.id)  # said twice: nothing more to do
    assert stage.channel.deleted == [ping]


async def test_the_end_of_a_game_calls_off_its_reminder(stage: Stage) -> None:
    stage.pings.plan(stage.match)
    assert stage.pings.reminder_at(stage.match.id) is not None
    stage.match.status = OVER
    await stage.pings.finish(stage.match.id)
    assert stage.pings.reminder_at(stage.match.id) is None


async def test_a_ping_record_that_cannot_be_forgotten_is_logged_and_its_message_still_goes(
        stage: Stage, caplog: pytest.LogCaptureFixture) -> None:
    await stage.pings.update(stage.match.id)
    [(ping, _, _)] = stage.channel.sent
    stage.refuse_delete = True
    stage.match.status = OVER
    await stage.pings.finish(stage.match.id)
    assert stage.channel.deleted == [ping]
    [warning] = [r for r in caplog.records if r.name == "bot.ui.pings"]
    assert (warning.levelname, warning.getMessage()) == (
        "WARNING", f"Could not forget the pings of match {stage.match.id}.")
    assert warning.exc_info is not None and str(warning.exc_info[1]) == "disk I/O error"


async def test_a_reminder_for_a_game_no_longer_running_here_says_nothing(stage: Stage) -> None:
    # The alarm of a match that ended (or went to another process) rings: nothing to say.
    stage.pings.plan(stage.match)
    await stage.pings.remind(stage.match.id + 1, stage.key())
    assert stage.channel.sent == []


async def test_a_restart_remembers_the_ping_on_screen(stage: Stage) -> None:
    """What the first process sent, the second takes over: the next ping replaces it."""
    await stage.pings.update(stage.match.id)
    [(ping, _, _)] = stage.channel.sent
    again = _Settled(TurnPings(stage.bot), stage)  # type: ignore[arg-type]
    await again.restore({stage.match.id})
    await again.update(stage.match.id)  # the same turn: nobody pinged twice
    stage.match.turn_started_at = START + 10.0
    await again.update(stage.match.id)
    assert len(stage.channel.sent) == 2 and stage.channel.deleted == [ping]
    again.close()


async def test_unreadable_records_are_dropped_at_a_restart(stage: Stage) -> None:
    stage.kv[f"{KEY}x"] = "{}"
    stage.kv[f"{KEY}8"] = "not json"
    stage.kv[f"{KEY}9"] = json.dumps({"turn": 1.0})  # no channel
    await stage.pings.restore(set())
    assert stage.kv == {}


# -- records -------------------------------------------------------------------------------------

def test_a_sent_record_reads_back_and_an_old_one_has_no_server() -> None:
    sent = _Sent(CHANNEL, 12.5, {BOB, ANN}, 9001, 77)
    assert _Sent.from_json(sent.to_json()) == sent
    assert json.loads(sent.to_json())["pinged"] == [ANN, BOB]
    assert _Sent.from_json(json.dumps({"channel_id": "5000"})) == _Sent(CHANNEL)


def test_a_deadline_is_a_timestamp_every_reader_sees_in_their_own_time() -> None:
    assert deadline_text(1234.9) == "<t:1234:R>"
    assert deadline_text(None) == ""


async def test_a_reminder_that_is_the_turns_first_message_is_remembered_whole(
        stage: Stage) -> None:
    """After a restart nothing was sent yet this turn: the reminder alone is remembered,
    with its channel and server, so the next restart can still tidy it away."""
    stage.match.guild_id = 4242
    stage.pings.plan(stage.match)
    stage.now = START + 240.0
    await stage.pings.remind(stage.match.id, stage.key())
    [(reminder, _, _)] = stage.channel.sent
    saved = _Sent.from_json(stage.kv[f"{KEY}{stage.match.id}"])
    assert saved == _Sent(CHANNEL, START, {ANN, BOB}, reminder, 4242)


async def test_the_alarm_ringing_after_the_reminder_went_out_sends_nothing(
        stage: Stage) -> None:
    stage.pings.plan(stage.match)
    stage.now = START + 240.0
    key = stage.key()
    await stage.pings.remind(stage.match.id, key)
    stage.pings._ring(stage.match.id)  # a late or repeated alarm for the same turn
    stage.match.status = OVER
    await stage.pings.finish(stage.match.id)
    stage.pings._ring(stage.match.id)  # and one for a game that ended meanwhile
    await stage.pings.remind(stage.match.id, key)  # its reminder, already on its way
    await asyncio.gather(*stage.started)
    assert len(stage.channel.sent) == 1 and stage.started == []


async def test_a_ping_and_a_reminder_at_once_leave_one_message(stage: Stage) -> None:
    """The turn's ping and its reminder are worked out one after the other per match, so
    one replaces the other: the channel never keeps two for one turn."""
    stage.pings.plan(stage.match)
    stage.now = START + 240.0
    await asyncio.gather(stage.pings.update(stage.match.id),
                         stage.pings.remind(stage.match.id, stage.key()))
    on_screen = {m for m, _, _ in stage.channel.sent} - set(stage.channel.deleted)
    assert len(on_screen) == 1
    assert _Sent.from_json(stage.kv[f"{KEY}{stage.match.id}"]).message_id in on_screen


async def test_a_restart_clears_the_last_ping_of_a_game_that_ended_meanwhile(
        stage: Stage) -> None:
    """Without shards every record is this process's: an ended game's last ping goes."""
    stage.kv[f"{KEY}7"] = _Sent(CHANNEL, START, {ANN}, 9100, 1).to_json()
    await stage.pings.restore(set())  # match 7 is no longer unfinished
    await asyncio.gather(*stage.started)
    assert stage.kv == {} and stage.channel.deleted == [9100]


async def test_with_shards_another_servers_ping_is_left_even_if_its_game_is_gone_here(
        stage: Stage) -> None:
    """A record that names its server is decided by that server's shard alone, whether or
    not its match can be read here."""
    from bot.core.shards import Shards
    from tests.test_shards import guild_on

    stage.bot.runtime.shards = Shards.of(2, [0])
    theirs, mine = guild_on(1, 2, 0), guild_on(0, 2, 0)
    stage.matches_kept.clear()  # neither match is in this database any more
    stage.kv[f"{KEY}8"] = _Sent(CHANNEL, START, {ANN}, 9200, theirs).to_json()
    stage.kv[f"{KEY}9"] = _Sent(CHANNEL, START, {ANN}, 9300, mine).to_json()
    await stage.pings.restore(set())
    await asyncio.gather(*stage.started)
    assert list(stage.kv) == [f"{KEY}8"] and stage.channel.deleted == [9300]


# -- each player's way of being told (/notify) and the link to the table --------------------------

def refused() -> discord.Forbidden:
    """Discord's answer to a direct message the user does not take from the bot."""
    return discord.Forbidden(SimpleNamespace(status=403, reason="Forbidden"),
                             {"code": 50007, "message": "Cannot send messages to this user"})


async def test_the_ping_links_to_the_live_table(stage: Stage) -> None:
    stage.match.table_message_id = 8123
    await stage.pings.update(stage.match.id)
    assert stage.channel.links == [f"https://discord.com/channels/1/{CHANNEL}/8123"]


async def test_a_player_who_chose_direct_messages_is_told_there_and_the_other_in_the_channel(
        stage: Stage) -> None:
    await stage.pings.choose(BOB, DIRECT)
    stage.match.table_message_id = 8123
    await stage.pings.update(stage.match.id)
    assert [(text[:len(f"⏰ <@{ANN}>:")], who) for _, text, who in stage.channel.sent] == [
        (f"⏰ <@{ANN}>:", {ANN})]
    [(_, text, who)] = stage.dms[BOB].sent
    assert who == {BOB} and text.startswith(f"⏰ <@{BOB}>: your move in **Cityscape**")
    assert stage.dms[BOB].links == [f"https://discord.com/channels/1/{CHANNEL}/8123"]
    await stage.pings.update(stage.match.id)  # the same turn: nobody told twice
    assert len(stage.dms[BOB].sent) == 1 and len(stage.channel.sent) == 1
    # the choice is kept in the database, for every server
    assert stage.kv[notify_key(BOB)] == DIRECT


async def test_told_only_by_direct_message_the_channel_gets_nothing_and_a_restart_no_repeat(
        stage: Stage) -> None:
    await stage.pings.choose(ANN, DIRECT)
    await stage.pings.choose(BOB, DIRECT)
    await stage.pings.update(stage.match.id)
    assert stage.channel.sent == [] and len(stage.dms[ANN].sent) == len(stage.dms[BOB].sent) == 1
    again = _Settled(TurnPings(stage.bot), stage)  # type: ignore[arg-type]
    await again.restore({stage.match.id})
    await again.update(stage.match.id)  # the same turn after a restart: told already
    assert len(stage.dms[ANN].sent) == 1 and stage.channel.sent == []
    assert await again.way_of(ANN) == DIRECT  # read back from the database
    again.close()


async def test_off_means_no_ping_and_no_reminder(stage: Stage) -> None:
    await stage.pings.choose(ANN, OFF)
    await stage.pings.update(stage.match.id)
    [(_, text, who)] = stage.channel.sent
    assert who == {BOB} and f"<@{ANN}>" not in text
    await stage.pings.choose(BOB, OFF)
    stage.pings.plan(stage.match)
    stage.now = START + 240.0
    await stage.pings.remind(stage.match.id, stage.key())
    assert len(stage.channel.sent) == 1 and stage.dms == {}
    assert stage.channel.deleted == []  # Bob's ping, the match's one ping, stays


async def test_a_refused_direct_message_falls_back_to_the_channel_and_is_logged_once(
        stage: Stage, caplog: pytest.LogCaptureFixture) -> None:
    await stage.pings.choose(ANN, DIRECT)
    blocked = stage.dms.setdefault(ANN, Channel(refusal=refused()))
    caplog.set_level("INFO", logger="bot.ui.pings")
    await stage.pings.update(stage.match.id)
    [(_, text, who)] = stage.channel.sent
    assert who == {ANN, BOB} and text.startswith(f"⏰ <@{ANN}>, <@{BOB}>:")  # seat order
    stage.match.turn_started_at = START + 10.0  # the next turn: straight to the channel
    await stage.pings.update(stage.match.id)
    assert [who for _, _, who in stage.channel.sent] == [{ANN, BOB}, {ANN, BOB}]
    assert blocked.sent == []
    refusals = [r for r in caplog.records if "no direct messages" in r.getMessage()]
    assert len(refusals) == 1
    # Choosing again tries direct messages again (the player may have opened them).
    blocked.refusal = None
    await stage.pings.choose(ANN, DIRECT)
    stage.match.turn_started_at = START + 20.0
    await stage.pings.update(stage.match.id)
    assert [who for _, _, who in blocked.sent] == [{ANN}]


async def test_a_reminder_goes_each_players_way(stage: Stage) -> None:
    await stage.pings.choose(BOB, DIRECT)
    stage.pings.plan(stage.match)
    stage.now = START + 240.0
    await stage.pings.remind(stage.match.id, stage.key())
    assert [who for _, _, who in stage.channel.sent] == [{ANN}]
    [(_, text, _)] = stage.dms[BOB].sent
    assert text.startswith(f"⏳ <@{BOB}>: one minute left for your move")


async def test_a_choice_is_read_from_the_database_once(stage: Stage) -> None:
    stage.kv[notify_key(ANN)] = OFF  # chosen before this process started
    reads: list[str] = []

    async def value(key: str) -> str | None:
        reads.append(key)
        return stage.kv.get(key)

    stage.bot.storage.value = value
    assert await stage.pings.way_of(ANN) == OFF
    assert await stage.pings.way_of(ANN) == OFF
    assert await stage.pings.way_of(BOB) == IN_CHANNEL  # never chosen: the channel
    assert reads == [notify_key(ANN), notify_key(BOB)]


async def test_with_shards_a_choice_made_in_another_process_is_seen_after_a_while(
        stage: Stage) -> None:
    from bot.core.shards import Shards

    assert await stage.pings.way_of(ANN) == IN_CHANNEL
    stage.kv[notify_key(ANN)] = OFF  # /notify answered by another process
    assert await stage.pings.way_of(ANN) == IN_CHANNEL  # alone, this process's memory holds
    stage.bot.runtime.shards = Shards.of(2, [0])
    stage.pings.choices.SHARED_FOR = 0.0  # a while has passed
    assert await stage.pings.way_of(ANN) == OFF
