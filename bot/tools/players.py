"""The players of a load test: guilds, channels and members in the fake Discord, and what
they click. Everything goes through what a person can do (slash commands, buttons, select
menus on messages they can see); the bot's internals are never touched.

Each channel holds one match between a host and a guest (a user is in at most one match
per guild, so per-user lobby limits are respected). Any game can be opened, joined and
started; Cityscape is also played: ``Cityscape.step`` makes a channel's next real click
(choosing secret goals line by line, a block height and then a lot, a new game once one is
over). The other games' tables are clicked only on buttons that change nothing (My hand,
My neighbourhood, Place), for restarts and bursts.
"""

from __future__ import annotations

import asyncio
import gc
import random
import re
import time
from dataclasses import dataclass, field
from itertools import zip_longest
from typing import Any

from bot.games import GAMES

try:
    from fakediscord import FakeDiscord, FakeDiscordError, FakeMessage
except ModuleNotFoundError as exc:  # an installed Cityhall, away from its repository
    raise SystemExit("The load test plays through the fake Discord in fakediscord/, which "
                     "only Cityhall's repository has: run it from the repository's folder "
                     "(python -m bot loadtest).") from exc

# custom_id prefix of each game's table buttons (the catalogue's), and the lobby's
PREFIX = {name: f"{game.prefix}:" for name, game in GAMES.items()}
TABLE_ID = re.compile("^(" + "|".join(re.escape(p) for p in [*PREFIX.values(), "ch:lobby:"]) + ")")
# Table buttons that show a player something privately and change nothing.
PRIVATE_VIEW = re.compile(r":(goals|hand|hood|place)$")
TURN = re.compile(r"<@(\d+)>, it's your turn")
MENTION = re.compile(r"<@(\d+)>")
ERROR_WORDS = ("went wrong",)


@dataclass
class Click:
    """One interaction a player sent, and how (and whether) the bot answered it."""

    kind: str
    sent: float  # time.monotonic() when the fake dispatched it
    latency_ms: float | None  # None: no answer within Discord's 3 s
    ok: bool  # answered, and not with the bot's "something went wrong"
    data: dict[str, Any] | None = None
    message: FakeMessage | None = None


@dataclass
class Recorder:
    clicks: list[Click] = field(default_factory=list)
    not_sent: int = 0  # the fake refused (e.g. the button vanished under an edit)

    def mark(self) -> int:
        return len(self.clicks)

    def since(self, mark: int) -> list[Click]:
        return self.clicks[mark:]


class Players:
    """Sends interactions through the fake and times each one to its callback."""

    def __init__(self, fake: FakeDiscord, recorder: Recorder, *, seed: int = 1) -> None:
        self.fake = fake
        self.recorder = recorder
        self.random = random.Random(seed)
        self.timeout = fake.interaction_timeout
        # how punctual this process's loop (players and fake alike) was, if anyone watches
        self.own_stalls: OwnStalls | None = None

    async def send(self, kind: str, start: Any) -> Click | None:
        """``start`` is an awaitable from fake.click/select/slash. None: the fake refused."""
        try:
            ix = await start
        except FakeDiscordError:
            self.recorder.not_sent += 1
            return None
        try:
            callback = await ix.response(timeout=self.timeout + 0.5)
        except AssertionError:
            click = Click(kind, ix.created, None, False)
        else:
            data = callback.data or {}
            text = str(data.get("content") or "")
            ok = not any(word in text for word in ERROR_WORDS)
            click = Click(kind, ix.created, (callback.at - ix.created) * 1000, ok, data,
                          callback.message)
        self.recorder.clicks.append(click)
        return click


@dataclass
class Table:
    """One channel and the two people who play Cityscape in it."""

    guild_id: str
    channel_id: str
    host: dict[str, Any]
    guest: dict[str, Any]
    game: str = "cityscape"
    message: FakeMessage | None = None  # the lobby / table message as last seen
    stage: str = "none"  # none -> lobby -> joined -> playing
    picker: FakeMessage | None = None  # an open private picker, and whose it is
    picker_user: dict[str, Any] | None = None
    busy: bool = False
    finished: int = 0  # games seen to the end in this channel

    @property
    def users(self) -> dict[str, dict[str, Any]]:
        return {self.host["id"]: self.host, self.guest["id"]: self.guest}


def custom_ids(message: FakeMessage) -> list[tuple[str, dict[str, Any]]]:
    return [(str(c.get("custom_id")), c) for c in message.iter_components() if c.get("custom_id")]


def _is_table(message: FakeMessage) -> bool:
    return any(TABLE_ID.match(cid) for cid, _ in custom_ids(message)) or "· final" in message.content


class Cityscape:
    """What a Cityscape player clicks next in a channel."""

    def __init__(self, players: Players) -> None:
        self.players = players
        self.fake = players.fake

    def table_message(self, table: Table) -> FakeMessage | None:
        """The channel's current table, following it when the bot re-posted it lower down."""
        msg = table.message
        if msg is not None and not msg.deleted and _is_table(msg):
            return msg
        for candidate in reversed(self.fake.messages.values()):
            if (candidate.channel_id == table.channel_id and not candidate.ephemeral
                    and not candidate.deleted and candidate.author.get("id") == self.fake.application_id
                    and _is_table(candidate)):
                table.message = candidate
                return candidate
        return None

    async def step(self, table: Table, phase: str) -> Click | None:
        """One real click in this channel (the caller makes sure only one runs at a time)."""
        if table.stage == "none":
            return await self._open(table, phase)
        if table.stage == "lobby":
            return await self._lobby_click(table, table.guest, "join", phase)
        if table.stage == "joined":
            return await self._lobby_click(table, table.host, "start", phase)
        if table.picker is not None:
            return await self._pick(table, phase)
        msg = self.table_message(table)
        if msg is None:
            table.stage = "none"
            return None
        if "· final" in msg.content:
            table.finished += 1
            table.stage, table.message = "none", None
            return await self._open(table, phase)
        turn = TURN.search(msg.content)
        if turn is not None:
            user = table.users.get(turn.group(1))
            heights = [cid for cid, c in custom_ids(msg)
                       if re.search(r":v\d+:h[1-5]$", cid) and not c.get("disabled")]
            if user is None or not heights:
                return None
            click = await self.players.send(
                f"{phase}:height", self.fake.click(user, msg, self.players.random.choice(heights)))
            self._remember_picker(table, user, click)
            return click
        waiting = msg.content.partition("Waiting for:")[2]
        users = [table.users[u] for u in MENTION.findall(waiting) if u in table.users]
        goals = next((cid for cid, _ in custom_ids(msg) if cid.endswith(":goals")), None)
        if not users or goals is None:
            return None
        user = users[0]
        click = await self.players.send(f"{phase}:goals", self.fake.click(user, msg, goals))
        self._remember_picker(table, user, click)
        return click

    def _remember_picker(self, table: Table, user: dict[str, Any], click: Click | None) -> None:
        message = click.message if click is not None else None
        if (message is not None and message.ephemeral
                and any(re.search(r":(b[1-5][A-D][1-4]|s[SWNE][0-3][1-6_]{4}|g[SWNE][1-6_]{4})$", cid)
                        for cid, _ in custom_ids(message))):
            table.picker, table.picker_user = message, user
        else:
            table.picker = table.picker_user = None

    async def _pick(self, table: Table, phase: str) -> Click | None:
        picker, user = table.picker, table.picker_user
        assert picker is not None and user is not None
        ids = custom_ids(picker)
        lots = [cid for cid, _ in ids if re.search(r":b[1-5][A-D][1-4]$", cid)]
        if lots:
            table.picker = table.picker_user = None
            return await self.players.send(
                f"{phase}:lot", self.fake.click(user, picker, self.players.random.choice(lots)))
        for cid, _ in ids:
            found = re.search(r":s[SWNE]([0-3])([1-6_]{4})$", cid)
            if found and found.group(2)[int(found.group(1))] == "_":
                code = str(self.players.random.choice([1, 2, 3, 4, 5, 6]))
                click = await self.players.send(
                    f"{phase}:goal-line", self.fake.select(user, picker, cid, [code]))
                self._remember_picker(table, user, click)
                return click
        confirm = next((cid for cid, c in ids if re.search(r":g[SWNE][1-6]{4}$", cid)
                        and not c.get("disabled")), None)
        if confirm is None:
            table.picker = table.picker_user = None
            return None
        click = await self.players.send(f"{phase}:goal-confirm", self.fake.click(user, picker, confirm))
        self._remember_picker(table, user, click)
        return click

    async def _open(self, table: Table, phase: str) -> Click | None:
        click = await self.players.send(
            f"{phase}:new", self.fake.slash(table.host, table.channel_id, table.game, ["new"],
                                            dict(GAMES[table.game].scenario.options)))
        if click is not None and click.ok and click.message is not None and not click.message.ephemeral:
            table.message, table.stage = click.message, "lobby"
        return click

    async def _lobby_click(self, table: Table, user: dict[str, Any], op: str,
                           phase: str) -> Click | None:
        msg = table.message
        target = next((cid for cid, _ in custom_ids(msg) if cid.endswith(f":{op}")), None) if msg else None
        if msg is None or target is None:
            table.stage, table.message = "none", None
            return None
        click = await self.players.send(f"{phase}:{op}", self.fake.click(user, msg, target))
        if click is not None and click.ok and click.data is not None and not click.data.get("flags"):
            table.stage = "joined" if op == "join" else "playing"
        return click

    def table_click(self, table: Table) -> tuple[dict[str, Any], FakeMessage, str] | None:
        """A click on the table itself that the bot must answer and that changes nothing
        (the builder's height button, else "My goals"): for restarts and bursts."""
        msg = self.table_message(table)
        if msg is None:
            return None
        ids = custom_ids(msg)
        if table.game != "cityscape":
            view = next((cid for cid, c in ids if PRIVATE_VIEW.search(cid) and not c.get("disabled")),
                        None)
            return (table.host, msg, view) if view else None
        turn = TURN.search(msg.content)
        if turn is not None and turn.group(1) in table.users:
            heights = [cid for cid, c in ids if re.search(r":v\d+:h[1-5]$", cid) and not c.get("disabled")]
            if heights:
                return table.users[turn.group(1)], msg, heights[0]
        goals = next((cid for cid, _ in ids if cid.endswith(":goals")), None)
        return (table.host, msg, goals) if goals else None


async def build_world(fake: FakeDiscord, matches: int, per_guild: int, played: int,
                      games: list[str]) -> list[Table]:
    """Guilds of at most ``per_guild`` channels, one match's two players per channel: the
    first ``played`` channels Cityscape (the load plays them), the others ``games`` in turn.
    With a fake of several shards, see build_sharded_world."""
    if fake.shard_count > 1:
        return await build_sharded_world(fake, matches, per_guild, played, games)
    tables: list[Table] = []
    guild_index = 0
    while len(tables) < matches:
        guild = fake.guild if guild_index == 0 else fake.add_guild(f"Load {guild_index}")
        guild_index += 1
        for _ in range(min(per_guild, matches - len(tables))):
            n = len(tables)
            channel = await fake.add_channel(f"city-{n}", guild_id=guild.id)
            host = await fake.add_member(f"host{n}", guild_id=guild.id)
            guest = await fake.add_member(f"guest{n}", guild_id=guild.id)
            game = "cityscape" if n < played else games[(n - played) % len(games)]
            tables.append(Table(guild.id, channel["id"], host, guest, game))
    return tables


async def build_sharded_world(fake: FakeDiscord, matches: int, per_guild: int, played: int,
                              games: list[str]) -> list[Table]:
    """The same world spread evenly over the fake's shards, so every bot process carries
    its share: each shard gets matches / shard_count channels (in guilds of at most
    ``per_guild``), and the tables are listed round-robin over the shards, so the first
    ``played`` (the clicked ones), a burst's first clicks and the restore's spread all
    reach every shard alike. The first table is still in the first guild (fake.guild,
    full), where /stats is timed."""
    count = fake.shard_count
    first = (int(fake.guild.id) >> 22) % count
    order = [(first + i) % count for i in range(count)]
    by_shard: list[list[Table]] = []
    guilds = 0
    n = 0
    for rank, shard in enumerate(order):
        quota = matches // count + (1 if rank < matches % count else 0)
        mine: list[Table] = []
        while len(mine) < quota:
            guild = fake.guild if guilds == 0 else fake.add_guild(f"Load {guilds}", shard=shard)
            guilds += 1
            for _ in range(min(per_guild, quota - len(mine))):
                channel = await fake.add_channel(f"city-{n}", guild_id=guild.id)
                host = await fake.add_member(f"host{n}", guild_id=guild.id)
                guest = await fake.add_member(f"guest{n}", guild_id=guild.id)
                mine.append(Table(guild.id, channel["id"], host, guest))
                n += 1
        by_shard.append(mine)
    tables = [t for row in zip_longest(*by_shard) for t in row if t is not None]
    for i, table in enumerate(tables):
        table.game = "cityscape" if i < played else games[(i - played) % len(games)]
    return tables


def prune_fake(fake: FakeDiscord, keep: set[str], older_than: float = 60.0) -> None:
    """Drop what the fake keeps for tests' inspection (request log, edit history, old
    private replies other than the pickers in ``keep``, still open) so that a long run
    measures the bot, not the fake's memory."""
    fake.requests.clear()
    fake.gateway_received.clear()
    fake.errors.clear()
    uploads = getattr(fake, "_uploads", None)
    if isinstance(uploads, dict):
        uploads.clear()  # the CDN copies; messages keep their own attachments
    for session in fake.sessions.values():
        del session.sent[:-50]
    cutoff = time.monotonic() - older_than
    for key, ix in list(fake.interactions.items()):
        if ix.created < cutoff and (ix.answered or ix.failed):
            for msg in (ix.original, *ix.followup_messages):
                if msg is not None and msg.ephemeral and msg.id not in keep:
                    fake.messages.pop(msg.id, None)
            del fake.interactions[key]
    for msg in fake.messages.values():
        msg.history.clear()
    fake.failed_interactions.clear()


async def pruning(fake: FakeDiscord, tables: list[Table], every: float = 1.0) -> None:
    # Often: what a prune frees is freed at once, and ten seconds' worth of requests
    # took this loop (which is the fake Discord's) 50-120 ms to let go of.
    while True:
        await asyncio.sleep(every)
        prune_fake(fake, {t.picker.id for t in tables if t.picker is not None})


async def short_collections(every: float = 1.0) -> None:
    """Keep this process's garbage collector from stalling the fake Discord.

    This process holds the fake's record of every channel and message and the players'
    record of every click: hundreds of thousands of objects, which a full collection
    walks. Left alone, those collections stalled this loop for 0.1-0.75 s; the requests
    the bot had sent evenly meanwhile were then counted by the fake all at once, and
    answered 429 as if the bot had bunched them (real Discord has no such pause). So
    every second what survived the young collections is frozen out of the collector's
    sight: a full collection then walks only the last second's objects. The cyclic garbage
    frozen with them is kept, which costs this tool, not the bot, a little memory."""
    while True:
        gc.freeze()
        await asyncio.sleep(every)


class OwnStalls:
    """This process's own event-loop stalls (the fake Discord and the players share it):
    when it stalls, the bot's requests are counted late and together, so a phase's 429
    figures are only as good as this loop was punctual."""

    def __init__(self, tick: float = 0.010) -> None:
        self.tick = tick
        self.stalls: list[tuple[float, float]] = []  # (monotonic wake-up, seconds late)

    async def run(self) -> None:
        while True:
            asked = time.monotonic()
            await asyncio.sleep(self.tick)
            late = time.monotonic() - asked - self.tick
            if late >= 0.020:
                self.stalls.append((asked + self.tick + late, late))

    def longest(self, since: float, until: float) -> float:
        """The longest stall (ms) that ended in [since, until)."""
        return 1000 * max((late for at, late in self.stalls if since <= at < until), default=0.0)
