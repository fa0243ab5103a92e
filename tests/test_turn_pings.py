"""Players are told when it is their move: each turn change notifies exactly the player(s)
due, once, with a message that replaces the previous one; the table shows when the turn
runs out; nothing else notifies anyone (a spectator's /game status included)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.app import CityhallBot
from bot.core.records import Match
from bot.games.cityscape import ENGINE, GAME
from fakediscord import FakeDiscord
from fakediscord.limits import Fault
from tests import whole_games
from tests.harness import button_id, cityhall_bot, settle, started_table
from tests.test_discord_cityscape import answer, build, set_goals

# Runs on SQLite and on PostgreSQL (tests/databases.py).
pytestmark = pytest.mark.usefixtures("backend")


def notifications(fake: FakeDiscord) -> list[tuple[str, set[str]]]:
    """Every message the bot created that notifies someone, as Discord decides it: users
    mentioned in the content and let through by ``allowed_mentions`` (no
    ``allowed_mentions`` at all lets every mention through). Edits notify nobody."""
    return [(n.content, n.pinged) for n in whole_games.notifications(fake)]


def live_pings(fake: FakeDiscord) -> list[str]:
    """Ping messages still in the channel."""
    return [m.content for m in fake.channel_messages(fake.channel_id, ephemeral=False)
            if "your move" in m.content]


async def wait_for_pings(fake: FakeDiscord, count: int) -> None:
    await fake.wait_until(lambda: len(notifications(fake)) >= count or None, 10.0,
                          f"{count} ping(s)")


@pytest.mark.fakediscord(rate_limit_scale=0.1)
async def test_each_turn_change_notifies_exactly_the_player_due(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    ann = await fake.add_member("Ann")
    bob = await fake.add_member("Bob")
    eve = await fake.add_member("Eve")  # watches
    users = {str(ann["id"]): ann, str(bob["id"]): bob}
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        match, lobby = await started_table(fake, bot, "cityscape", ann,
                                           joiners=(bob,), options={"rounds": 1})
        assert match.state is not None

        # Goals are chosen by both at once: one message notifies both, named in seat order.
        await wait_for_pings(fake, 1)
        assert notifications(fake)[0][1] == set(users)
        both = ", ".join(f"<@{p}>" for p in match.state["players"])
        assert notifications(fake)[0][0].startswith(f"⏰ {both}: your move in **Cityscape**")
        table = fake.message(lobby.id)
        deadline = bot.runtime.deadline(match)
        assert deadline is not None
        assert f"<t:{int(deadline)}:R>" in table.content  # "Time runs out in 10 minutes"
        assert f"<t:{int(deadline)}:R>" in notifications(fake)[0][0]

        # The one who builds first chooses goals first: the other one's goals then hand
        # the turn over, a turn change.
        first = match.state["players"][match.state["turn_seat"]]
        other = next(p for p in users if p != first)
        for n, player in enumerate((first, other)):
            mine = [s for s, o in match.state["sides"].items() if o == player]
            await set_goals(fake, users[player], table, match.id, [(s, [1, 2, 3, 4]) for s in mine])
            await settle(bot, match.id)
            if n == 0:  # the other one still owes goals and was pinged for them already
                assert len(notifications(fake)) == 1

        for turn in range(6):
            assert match.state is not None and match.state["phase"] == "building"
            await wait_for_pings(fake, 2 + turn)
            pings = notifications(fake)
            due = ENGINE.to_act(match.state)
            assert len(pings) == 2 + turn, pings  # one per turn change, no more
            assert pings[-1][1] == set(due), pings[-1]
            assert live_pings(fake) == [pings[-1][0]]  # the previous ping was removed
            deadline = bot.runtime.deadline(match)
            assert deadline is not None
            assert f"<t:{int(deadline)}:R>" in fake.message(match.table_message_id or 0).content
            player = due[0]
            action = GAME.computer.normal(match.state, player)
            await build(fake, bot, users[player], match.id, action["height"], action["lot"])
            await settle(bot, match.id)

        # A spectator asking for the table again notifies nobody, though it names the player.
        before = len(notifications(fake))
        shown = await answer(await fake.slash(eve, fake.channel_id, "game", ["status"]))
        assert shown.message is not None and "<@" in shown.message.content
        await settle(bot, match.id)
        assert len(notifications(fake)) == before

        # Ending the game takes its last ping away.
        await answer(await fake.slash(ann, fake.channel_id, "game", ["end"]))
        await fake.wait_until(lambda: not live_pings(fake) or None, 10.0, "the ping removed")


@pytest.mark.fakediscord(rate_limit_scale=0.1)
async def test_computer_players_are_never_pinged(fake_discord: FakeDiscord,
                                                 tmp_path: Path) -> None:
    fake = fake_discord
    ann = await fake.add_member("Ann")
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        match, lobby = await started_table(fake, bot, "cityscape", ann,
                                           computers=1, options={"rounds": 1})
        assert match.state is not None
        await settle(bot, match.id)
        ann_id = str(ann["id"])
        # Goals, then building: when Ann builds first her turn simply goes on (the runtime
        # does not restart the clock), otherwise the computer hands it to her.
        ann_was_due = match.state["players"][match.state["turn_seat"]] == ann_id
        mine = [s for s, o in match.state["sides"].items() if o == ann_id]
        await set_goals(fake, ann, fake.message(lobby.id), match.id, [(s, [1, 2, 3, 4]) for s in mine])
        await settle(bot, match.id)
        # the goals; then, if the computer builds first, Ann's first building turn
        expected = 1 if ann_was_due else 2
        for _turn in range(4):
            await wait_for_pings(fake, expected)
            assert len(notifications(fake)) == expected
            assert match.state is not None and ENGINE.to_act(match.state) == [ann_id]
            action = GAME.computer.normal(match.state, ann_id)
            await build(fake, bot, ann, match.id, action["height"], action["lot"])
            await settle(bot, match.id)  # the computer builds and hands the turn back
            expected += 1
        pings = notifications(fake)
        assert expected >= 3
        # only ever Ann: the computer's turns notify nobody
        assert [who for _text, who in pings] == [{ann_id}] * expected
        # every ping, those after the computer's moves too, went out through Ann's latest
        # click rather than under the bot's global limit
        assert {where for method, where in ping_requests(fake) if method == "POST"} == {"click"}


@pytest.mark.fakediscord(rate_limit_scale=0.1)
async def test_a_restart_neither_leaves_a_ping_behind_nor_pings_twice(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    """The ping on screen before a restart is the one the next turn's ping replaces, and the
    player due when the bot went down is not pinged again for the same turn."""
    fake = fake_discord
    ann = await fake.add_member("Ann")
    bob = await fake.add_member("Bob")
    users = {str(ann["id"]): ann, str(bob["id"]): bob}
    db = tmp_path / "db.sqlite3"
    async with cityhall_bot(fake, db) as bot:
        match: Match | None  # after the restart, the bot's own copy again
        match, lobby = await started_table(fake, bot, "cityscape", ann,
                                           joiners=(bob,), options={"rounds": 1})
        assert match.state is not None
        match_id = match.id
        table = fake.message(lobby.id)
        for player in users:
            mine = [s for s, o in match.state["sides"].items() if o == player]
            await set_goals(fake, users[player], table, match_id,
                            [(s, [1, 2, 3, 4]) for s in mine])
            await settle(bot, match_id)
        await wait_for_pings(fake, 2)
        before_restart = live_pings(fake)
        assert len(before_restart) == 1

    pings_before = len(notifications(fake))
    async with cityhall_bot(fake, db) as bot:
        match = bot.runtime.get(match_id)
        assert match is not None and match.state is not None
        await settle(bot, match_id)
        # the same turn: nobody is pinged again, and the ping on screen stays the one
        assert len(notifications(fake)) == pings_before
        assert live_pings(fake) == before_restart
        player = ENGINE.to_act(match.state)[0]
        action = GAME.computer.normal(match.state, player)
        await build(fake, bot, users[player], match_id, action["height"], action["lot"])
        await settle(bot, match_id)
        await wait_for_pings(fake, pings_before + 1)
        # the next turn's ping replaced the one from before the restart (deleted through the
        # channel a moment later: tidying waits behind the tables, docs/channel.md)
        latest = notifications(fake)[-1][0]
        await fake.wait_until(lambda: live_pings(fake) == [latest] or None, 10.0,
                              "the ping from before the restart deleted")

        await answer(await fake.slash(ann, fake.channel_id, "game", ["end"]))
        await fake.wait_until(lambda: not live_pings(fake) or None, 10.0, "the ping removed")
    # nothing is kept of an ended match's pings
    async with cityhall_bot(fake, db) as bot:
        assert await bot.storage.values_with_prefix("ping:") == []


@pytest.mark.fakediscord(rate_limit_scale=0.1)
async def test_a_ping_already_deleted_does_not_stop_the_next_one(
        fake_discord: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Someone (a moderator, the player) deleted the last ping: Discord answers the bot's
    delete with 404 Unknown Message, the next turn is pinged all the same, and nothing is
    logged as going wrong (there is nothing left to tidy)."""
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        match, users = await building(fake, bot)
        assert match.state is not None
        pinged = len(notifications(fake))
        # The ping went out as a follow-up of the click that made its player due, and is
        # deleted through that click's webhook; through the channel, had that not worked.
        gone = fake.fail("DELETE", r"/messages/\d+$", 404, 10008)
        caplog.set_level(logging.WARNING)
        player = ENGINE.to_act(match.state)[0]
        action = GAME.computer.normal(match.state, player)
        await build(fake, bot, users[player], match.id, action["height"], action["lot"])
        await settle(bot, match.id)
        await wait_for_pings(fake, pinged + 1)
        assert len(gone.hits) == 1  # the delete was answered 404, and swallowed
        assert notifications(fake)[-1][1] == set(ENGINE.to_act(match.state))
        assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []


def ping_requests(fake: FakeDiscord) -> list[tuple[str, str]]:
    """(method, where) of every request that created or deleted a ping: "channel" for the
    channel's message routes, "click" for a click's interaction webhook."""
    found = []
    for record in fake.requests:
        where = ("click" if record.path.startswith("/webhooks/")
                 else "channel" if record.path.startswith("/channels/") else None)
        if where is None or record.status >= 400:
            continue
        body = record.json if isinstance(record.json, dict) else {}
        if record.method == "POST" and "your move" in str(body.get("content") or ""):
            found.append(("POST", where))
        elif record.method == "DELETE" and "/messages/" in record.path:
            found.append(("DELETE", where))
    return found


@pytest.mark.fakediscord(rate_limit_scale=0.1)
async def test_a_players_move_pings_the_next_through_their_click_outside_the_global_limit(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    """A ping a click brought about goes out as that click's follow-up and is deleted
    through its webhook, neither counted against the bot's global limit (issue 25); when
    Discord refuses the follow-up, the ping goes through the channel, still exactly one."""
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        match, users = await building(fake, bot)
        for _turn in range(3):
            # the new ping through the click, the old one deleted through a click too
            assert await next_turn(fake, bot, users, match) == [("POST", "click"),
                                                                ("DELETE", "click")]

        # The move's click token no longer works (Discord forgets it after 15 minutes):
        # refused from the move on (the picker it came from opened as a follow-up before).
        refusing: list[Fault] = []

        def refuse() -> None:
            refusing.append(fake.fail("POST", r"^/webhooks/\d+/[^/]+$", 404, 10015,
                                      times=None))

        assert await next_turn(fake, bot, users, match, picker_open=refuse) == [
            ("POST", "channel"), ("DELETE", "click")]
        assert refusing[0].hits  # Discord said no to the follow-up, and the player was told


async def next_turn(fake: FakeDiscord, bot: CityhallBot, users: dict[str, dict],
                    match: Match, picker_open: Callable[[], None] | None = None,
                    ) -> list[tuple[str, str]]:
    """The player due builds (``picker_open`` is called between opening the picker and
    building); once the next one is pinged (exactly them, one ping on screen), the ping
    requests this took (``ping_requests``)."""
    assert match.state is not None and match.table_message_id is not None
    pinged = len(notifications(fake))
    before = len(ping_requests(fake))
    player = ENGINE.to_act(match.state)[0]
    action = GAME.computer.normal(match.state, player)
    table = fake.message(match.table_message_id)
    prefix = f"ch:cs:{match.id}:v{match.version}:"
    picker = (await answer(await fake.click(users[player], table, button_id(
        table, prefix=f"{prefix}h{action['height']}")))).message
    assert picker is not None and picker.ephemeral
    if picker_open is not None:
        picker_open()
    await answer(await fake.click(users[player], picker, button_id(
        picker, prefix=f"{prefix}b{action['height']}{action['lot']}")))
    await settle(bot, match.id)
    await wait_for_pings(fake, pinged + 1)
    await fake.wait_until(lambda: len(ping_requests(fake)) >= before + 2 or None, 10.0,
                          "the old ping deleted")
    assert notifications(fake)[-1][1] == set(ENGINE.to_act(match.state))
    assert live_pings(fake) == [notifications(fake)[-1][0]]
    return ping_requests(fake)[before:]


async def building(fake: FakeDiscord, bot: CityhallBot) -> tuple[Match, dict[str, dict]]:
    """Ann and Bob in a one-round Cityscape, both goals chosen, the first builder pinged:
    the match and the players by id."""
    ann = await fake.add_member("Ann")
    bob = await fake.add_member("Bob")
    users = {str(ann["id"]): ann, str(bob["id"]): bob}
    match, lobby = await started_table(fake, bot, "cityscape", ann,
                                       joiners=(bob,), options={"rounds": 1})
    assert match.state is not None
    table = fake.message(lobby.id)
    for player in users:
        mine = [s for s, o in match.state["sides"].items() if o == player]
        await set_goals(fake, users[player], table, match.id,
                        [(s, [1, 2, 3, 4]) for s in mine])
        await settle(bot, match.id)
    await wait_for_pings(fake, 2)
    return match, users
