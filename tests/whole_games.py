"""Whole games of every game played through the fake Discord by clicks only, and what a
channel should look like while and after they are played: each turn change notifies
exactly the humans due, a superseded table keeps no picture or buttons, every picture is
described. Used by tests/test_whole_games_channel.py and scripts/transcripts.py."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from bot.app import CityhallBot
from bot.games.cityscape import ai as cityscape_ai
from fakediscord import FakeDiscord
from fakediscord.models import FakeMessage
from tests.harness import answer, button_id, settle, text_of
from tests.languages import unpseudo

EPHEMERAL = 64
MAX_DESCRIPTION = 1024  # Discord's limit for an attachment's alt text
CREATES = re.compile(r"^/channels/\d+/messages$|^/interactions/\d+/[^/]+/callback$"
                     r"|^/webhooks/\d+/[^/]+$")
Users = dict[str, dict[str, Any]]


@dataclass
class Notification:
    """A message the bot created that notifies someone, as Discord decides it."""

    content: str
    mentioned: set[str]
    allowed: set[str] | None  # allowed_mentions' users; None: every mention notifies
    pinged: set[str]


def notifications(fake: FakeDiscord) -> list[Notification]:
    """Every public message the bot created that notifies someone: users mentioned in the
    content and let through by ``allowed_mentions``. Edits notify nobody."""
    found = []
    for record in fake.requests:
        if record.method != "POST" or not CREATES.search(record.path) or record.status >= 400:
            continue
        body = record.json if isinstance(record.json, dict) else {}
        if record.path.endswith("/callback"):
            if body.get("type") != 4:
                continue
            body = body.get("data") or {}
        if int(body.get("flags") or 0) & EPHEMERAL:
            continue
        content = str(body.get("content") or "")
        mentioned = set(re.findall(r"<@!?(\d+)>", content))
        allowed_mentions = body.get("allowed_mentions")
        allowed: set[str] | None
        if allowed_mentions is None or "users" in (allowed_mentions.get("parse") or []):
            allowed = None
        else:
            allowed = {str(u) for u in allowed_mentions.get("users") or []}
        pinged = mentioned if allowed is None else mentioned & allowed
        if pinged:
            found.append(Notification(content, mentioned, allowed, pinged))
    return found


class TurnWatch:
    """Checked after every settled move: a turn change (the turn's clock starts again, which
    the table shows as a new countdown) notifies exactly the humans then due, in one message
    whose ``allowed_mentions`` names only them; anything else notifies nobody; and whoever
    became due since the last look has been told."""

    def __init__(self, fake: FakeDiscord, bot: CityhallBot, match_id: int,
                 users: Users) -> None:
        self.fake, self.bot, self.match_id, self.users = fake, bot, match_id, users
        self.seen = 0
        self.turn: float | None = None
        self.due: set[str] = set()
        self.pings: list[Notification] = []
        self.looks = 0

    def humans_due(self) -> set[str]:
        match = self.bot.runtime.get(self.match_id)
        if match is None or match.state is None:
            return set()
        to_act = self.bot.runtime.engine(match).to_act(match.state)
        return {p for p in to_act if (s := match.seat(p)) is not None and not s.cpu}

    def look(self) -> None:
        self.looks += 1
        match = self.bot.runtime.get(self.match_id)
        found = notifications(self.fake)
        new, self.seen = found[self.seen:], len(found)
        due = self.humans_due()
        turn = None if match is None else match.turn_started_at
        where = f"look {self.looks}: due {sorted(self.name(p) for p in due)}"
        if match is not None and turn != self.turn and due:
            assert len(new) == 1, (where, [n.content for n in new])
            ping = new[0]
            assert ping.pinged == due and ping.mentioned == due and ping.allowed == due, \
                (where, ping)
            assert due <= set(self.users)
            self.pings.append(ping)
        else:
            assert new == [], (where, [n.content for n in new])
        told = set().union(*(n.pinged for n in new))
        assert due - self.due <= told, (where, "someone newly due was not told")
        self.turn, self.due = turn, due

    def name(self, player: str) -> str:
        return str(self.users[player]["username"]) if player in self.users else player


# -- opening a game -------------------------------------------------------------------------

async def open_game(fake: FakeDiscord, bot: CityhallBot, game: str, host: dict[str, Any],
                    joiners: list[dict[str, Any]], computers: int, options: dict[str, Any],
                    seed: int) -> int:
    """/<game> new, Join, Add computer, Start: clicks only. The seed is fixed so that the
    game is the same every run."""
    lobby = (await answer(await fake.slash(host, fake.channel_id, game, ["new"],
                                           options))).message
    assert lobby is not None
    for user in joiners:
        await answer(await fake.click(user, lobby, button_id(lobby, "Join")))
    for _ in range(computers):
        await answer(await fake.click(host, lobby, button_id(lobby, "Add computer")))
    match = bot.runtime.in_channel(int(fake.channel_id))
    assert match is not None
    match.seed = seed
    started = await answer(await fake.click(host, lobby, button_id(lobby, "Start")))
    assert started.type == 7, text_of(started)
    await settle(bot, match.id)
    if TurnWatch(fake, bot, match.id, {}).humans_due():
        # the first ping goes out in the background of the Start click
        await fake.wait_until(lambda: notifications(fake) or None, 10.0, "the first ping")
    return match.id


# -- playing each game to the end; ``look`` runs after every settled move --------------------

async def play_cityscape(fake: FakeDiscord, bot: CityhallBot, match_id: int, users: Users,
                         look: Callable[[], None]) -> None:
    from bot.games.cityscape import ENGINE, GAME
    from tests.test_discord_cityscape import build, select_id

    look()
    while (match := bot.runtime.get(match_id)) is not None:
        assert match.state is not None
        state = match.state
        player = sorted(p for p in ENGINE.to_act(state) if p in users)[0]
        user = users[player]
        table = fake.message(match.table_message_id)  # type: ignore[arg-type]
        if state["phase"] == "goals":
            # My goals, the four lines picked one by one, Confirm: for each side they own
            picker = (await answer(await fake.click(user, table, button_id(table, "My goals")))
                      ).message
            assert picker is not None and picker.ephemeral
            round_ = state["round"]
            for side in [s for s, o in state["sides"].items()
                         if o == player and s not in state["goals"]]:
                codes = cityscape_ai.choose_goals(state, side)
                for line, code in enumerate(codes):
                    custom_id = select_id(picker, f"ch:cs:{match_id}:r{round_}:s{side}{line}")
                    done = await answer(await fake.select(user, picker, custom_id, [str(code)]))
                    assert done.type == 7, text_of(done)
                done = await answer(await fake.click(user, picker, button_id(
                    picker, prefix=f"ch:cs:{match_id}:r{round_}:g{side}")))
                assert done.type == 7 and "saved" in unpseudo(text_of(done)), text_of(done)
                await settle(bot, match_id)
                look()
            continue
        action = GAME.computer.normal(state, player)
        _, done = await build(fake, bot, user, match_id, action["height"], action["lot"])
        assert done.type == 7, text_of(done)
        await settle(bot, match_id)
        look()


async def play_bigcityz(fake: FakeDiscord, bot: CityhallBot, match_id: int, users: Users,
                        look: Callable[[], None]) -> None:
    from tests.test_discord_bigcityz import play_turn

    look()
    while bot.runtime.get(match_id) is not None:
        await play_turn(fake, bot, match_id, users)
        await settle(bot, match_id)
        look()


async def play_bigcity(fake: FakeDiscord, bot: CityhallBot, match_id: int, users: Users,
                       look: Callable[[], None]) -> None:
    from tests.test_discord_bigcity import Player

    def after_each() -> bool:
        look()
        return False

    await Player(fake, bot, match_id, users).play_until(after_each)


async def play_cities(fake: FakeDiscord, bot: CityhallBot, match_id: int, users: Users,
                      look: Callable[[], None]) -> None:
    from tests.test_discord_cities import Players

    players = Players(fake, users)
    look()
    while bot.runtime.get(match_id) is not None:
        await players.move(bot, match_id)
        await settle(bot, match_id)
        look()


PLAY = {"cityscape": play_cityscape, "bigcityz": play_bigcityz, "bigcity": play_bigcity,
        "cities": play_cities}


# -- what the channel shows ------------------------------------------------------------------

def was_table(message: FakeMessage) -> bool:
    """The message showed a board at some point (now or in an earlier version)."""
    return any(a.filename == "table.png" for a in message.attachments) or any(
        a[1] == "table.png" for version in message.history for a in version["attachments"])


def superseded_with_leftovers(fake: FakeDiscord, table_id: int | None) -> list[str]:
    """Tables other than the live one that still carry a picture, buttons or an embed."""
    left = []
    for message in fake.channel_messages(fake.channel_id, ephemeral=False):
        if int(message.id) == table_id or not was_table(message):
            continue
        buttons = list(message.iter_components())
        if message.attachments or buttons or message.embeds:
            left.append(f"{message.id}: {message.content[:60]!r}")
    return left


def described_uploads(fake: FakeDiscord) -> Iterator[tuple[str, Any]]:
    """Every file the bot uploaded (public or private, sent or edited in), named by its
    request and filename, with its alt text (the attachment's ``description``, or None)."""
    for record in fake.requests:
        if not record.files or record.status >= 400:
            continue
        body = record.json if isinstance(record.json, dict) else {}
        if record.path.endswith("/callback"):
            body = body.get("data") or {}
        described = {str(a.get("id")): a.get("description")
                     for a in body.get("attachments") or []}
        for upload in record.files:
            yield f"{record.method} {record.path} {upload.filename}", described.get(str(upload.index))


def badly_described(fake: FakeDiscord) -> list[str]:
    """Every file the bot uploaded whose alt text is missing, empty or over Discord's 1,024
    characters."""
    return [f"{upload}: {text!r}" for upload, text in described_uploads(fake)
            if not text or not str(text).strip() or len(str(text)) > MAX_DESCRIPTION]
