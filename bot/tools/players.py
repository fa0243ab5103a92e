"""The players of a load test: guilds, channels and members in the fake Discord, and what
they click. Everything goes through what a person can do (slash commands, buttons, select
menus on messages they can see: the table message and their own private replies); the
bot's internals are never touched.

Each channel holds one match of 2-5 seats: its people (a user is in at most one match per
guild, so per-user lobby limits are respected) and, at some tables, computer players added
in the lobby. ``Player.step`` makes a channel's next click, in any of the four games: whoever
the table names as due clicks one of its enabled buttons (now and then one that only shows
them something privately), then chooses among the enabled menus and buttons of the private
reply until the move is made; a finished game is followed by a new one. Cityscape's goal
picker is filled line by line (``Cityscape``). docs/loadtest-workload.md describes it.

Every click is timed twice (``Watch``): to the bot's answer, and to the moment the fake
holds the channel's table message with a new picture (``FakeDiscord.message_hook``).
"""

from __future__ import annotations

import asyncio
import gc
import random
import re
import time
from collections import deque
from dataclasses import dataclass, field
from itertools import zip_longest
from typing import Any

from bot.games import GAMES
from bot.ui.later import DRAWING

try:
    from fakediscord import FakeDiscord, FakeDiscordError, FakeMessage
except ModuleNotFoundError as exc:  # an installed Cityhall, away from its repository
    raise SystemExit("The load test plays through the fake Discord in fakediscord/, which "
                     "only Cityhall's repository has: run it from the repository's folder "
                     "(python -m bot loadtest).") from exc

# custom_id prefix of each game's table buttons (the catalogue's), and the lobby's
PREFIX = {name: f"{game.prefix}:" for name, game in GAMES.items()}
TABLE_ID = re.compile("^(" + "|".join(re.escape(p) for p in [*PREFIX.values(), "ch:lobby:",
                                                              "ch:replay:", "ch:rematch:"]) + ")")
# Table buttons that show a player something privately and change nothing.
PRIVATE_VIEW = re.compile(r":(goals|hand|hood|place)$")
# The same, without the buttons that start a move (Big Cityz's Place, Cityscape's goals)
VIEW_ONLY = re.compile(r":(hand|hood|hoods)$")
# What players do not click while playing: help, leaving, the finished table's replay
SKIP_ID = re.compile(r"^ch:(howto|replay|rematch|hist|histr|lobby|rp|rpr):|:(leave|abandon|resign|cancel)$")
SKIP_LABEL = re.compile(r"Previous|Next|Back|Cancel|How to play|Leave|Abandon|Close")
OBJECTION = re.compile(r"^(.*:c\d+):(no)?veto$")
FINAL_ID = re.compile(r"^ch:(replay|rematch):")
# A change of the table this long after a click is no longer the click's
WATCH_S = 10.0
# A click whose table has not changed this long after it is taken for one that changes
# nothing there (a picker opened, a refusal): its player looks again, and a phase waiting
# for its last pictures stops waiting for it.
NO_CHANGE_S = 3.0
LATE_MS = 3000.0  # a picture later than Discord's 3 s is late
CONTEXT_S = 6.0  # a late picture's context: the channel from this long before its click
PICKER_CLICKS = 8  # clicks in one private reply before a player gives up on it
TURN = re.compile(r"<@(\d+)>, it's your turn")
MENTION = re.compile(r"<@(\d+)>")
ERROR_WORDS = ("went wrong",)
STALE = "belongs to an earlier board"  # an outdated button: refused, the board shown
# A private answer whose picture follows (bot/ui/later.py): an accepted move told in words
# first (a Cities start tile chosen), not a refusal.
PICTURE_FOLLOWS = DRAWING


@dataclass
class Click:
    """One interaction a player sent, and how (and whether) the bot answered it."""

    kind: str
    sent: float  # time.monotonic() when the fake dispatched it
    latency_ms: float | None  # None: no answer within Discord's 3 s
    ok: bool  # answered, and not with the bot's "something went wrong"
    data: dict[str, Any] | None = None
    message: FakeMessage | None = None
    game: str = ""
    # the first new picture of the channel's table after the click was sent (ms), and
    # whether the table changed at all (a move); filled in by the Watch, maybe later
    picture_ms: float | None = None
    changed: bool = False
    changed_ms: float | None = None  # when the table first changed after it (its words)
    # answered with a short private text only: refused, unless the table then changed
    told_only: bool = False
    # acknowledged first (a deferred update: a private answer to a click on the table,
    # bot/ui/tablehooks.py, or a slow click, bot/ui/deferral.py), answered by a follow-up
    # or an edit through the interaction: ``latency_ms`` and the reply are that answer's
    deferred: bool = False
    # A late picture's channel in the seconds around it (what else the channel was shown:
    # [s after the click, message, pictures, is the table]), to say why it was late.
    context: list[list[Any]] | None = None

    @property
    def refused(self) -> bool:
        return self.told_only and not self.changed


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

        self.by_channel: dict[str, Table] = {}

    def watch(self, tables: list[Table]) -> None:
        """Time the table pictures of these channels from now on (the fake's message hook)."""
        self.by_channel.update({t.channel_id: t for t in tables})
        self.fake.message_hook = self._seen

    def _seen(self, message: FakeMessage, files: int) -> None:
        """The fake stored a message the bot created or edited: a table's change ends its
        channel's watch (a new picture on it: the click's picture time)."""
        if message.ephemeral:
            return
        table = self.by_channel.get(message.channel_id)
        if table is None:
            return
        if (message.author.get("id") == self.fake.application_id and _is_table(message)
                and (table.message is None or int(message.id) > int(table.message.id))):
            # the table posted anew lower down: people look at the newest one
            table.message = message
        now = time.monotonic()
        table.log.append((now, message.id, files, _is_table(message)))
        if not table.watches:
            return
        if files and not _is_table(message) and not any(
                a.filename == "table.png" for a in message.attachments):
            return
        if not files and not _is_table(message):
            return
        # A table whose words changed while it kept its board picture: a turn in progress
        # (a Cities player placing what they took, a Big City draw), told in words at once,
        # its board drawn when the turn ends (docs/channel.md). The turn is the move: its
        # picture is timed from the click that ends it, and these clicks' players go on.
        board_kept = not files and any(a.filename == "table.png" for a in message.attachments)
        # Every click still waiting gets this change: a move's text can come first and its
        # picture a while later (drawn after the answer), after the player clicked again.
        table.watches = [w for w in table.watches
                         if w.picture_at is None and now - w.began <= WATCH_S]
        for watch in table.watches:
            if watch.changed_at is None:
                watch.changed_at = now
            if files:
                watch.picture_at = now
            watch.board_kept = board_kept
            watch.settle()
            late = watch.click
            if (late is not None and late.context is None and late.picture_ms is not None
                    and late.picture_ms > LATE_MS):
                late.context = [[round(at - late.sent, 2), mid, n, is_table]
                                for at, mid, n, is_table in table.log
                                if at >= late.sent - CONTEXT_S]
        if board_kept:
            table.watches = []

    async def send(self, kind: str, start: Any, table: Table | None = None, *,
                   watch_table: bool = True) -> Click | None:
        """``start`` is an awaitable from fake.click/select/slash. None: the fake refused.
        With ``table``, the click is counted as that table's game's and, unless
        ``watch_table`` is False (a click that only shows the player something), the
        channel's next table change is watched for and given to the click (its picture
        time)."""
        watch = None
        if table is not None and watch_table:
            watch = table.watching = Watch(time.monotonic())
            table.watches.append(watch)
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
            followed = await _answer_after_deferral(ix) if callback.type in DEFERRALS else None
            deferred = followed is not None
            answered_at = callback.at if followed is None else followed
            if deferred:
                # What the player sees is what followed (a private picker after a click on
                # the table, or a slow click's answer), and when.
                callback = ix.followed_by or callback
            data = callback.data or {}
            text = str(data.get("content") or "")
            ok = not any(word in text for word in ERROR_WORDS)
            click = Click(kind, ix.created, (answered_at - ix.created) * 1000, ok, data,
                          callback.message, deferred=deferred)
            reply = callback.message
            # (A click that only shows something is never refused for answering in words:
            # its picture may follow, bot/ui/later.py.)
            click.told_only = (watch_table and callback.type == 4 and reply is not None
                               and reply.ephemeral
                               and not reply.components
                               and PICTURE_FOLLOWS not in text
                               and (not reply.attachments or STALE in text))
        if table is not None:
            click.game = table.game
        if watch is not None and table is not None:
            watch.click = click
            watch.settle()
            reply = click.message
            if (reply is not None and reply.ephemeral
                    and any(True for _ in reply.iter_components())):
                # A private picker still open: the move is the click that closes it, even
                # when this click changed the table's words already (a Cities take: its
                # board is drawn when the turn ends, docs/channel.md).
                click.changed = False
                if watch in table.watches:
                    table.watches.remove(watch)
        self.recorder.clicks.append(click)
        return click


# Callback types that acknowledge without answering: "thinking…" and a deferred update.
DEFERRALS = (5, 6)
# How long a deferred click's answer is waited for; none by then: the deferral was the
# answer (a click that needed no visible change).
DEFERRED_ANSWER_WAIT_S = 10.0


async def _answer_after_deferral(ix: Any) -> float | None:
    """When the bot answered a deferred click (its first follow-up or edit through the
    interaction), time.monotonic(); None if it did not within ``DEFERRED_ANSWER_WAIT_S``."""
    until = time.monotonic() + DEFERRED_ANSWER_WAIT_S
    while ix.followed_at is None and time.monotonic() < until:
        await asyncio.sleep(0.02)
    at: float | None = ix.followed_at
    return at


@dataclass
class Watch:
    """A channel's table watched after a click: when it changed, when its new picture came."""

    began: float
    click: Click | None = None
    changed_at: float | None = None
    picture_at: float | None = None
    board_kept: bool = False  # the change kept the board: a turn in progress

    def settle(self) -> None:
        click = self.click
        if click is None:
            return
        if self.changed_at is not None:
            click.changed = True
            if click.changed_ms is None:
                click.changed_ms = max(0.0, (self.changed_at - click.sent) * 1000)
        if self.picture_at is not None and click.picture_ms is None:
            click.picture_ms = max(0.0, (self.picture_at - click.sent) * 1000)

    def done(self, now: float) -> bool:
        """Whether the player may look at the table again: its picture came, or its words
        changed while it kept its board (a turn in progress), or they changed a moment ago,
        or long enough has passed."""
        if self.picture_at is not None or self.board_kept:
            return True
        if self.changed_at is not None:  # its text changed: the picture may follow
            return now - self.changed_at > 3.0
        return now - self.began > NO_CHANGE_S


def awaiting_picture(watch: Watch, now: float) -> bool:
    """Whether a click's table may still get the picture it is timed to: its words changed
    and its board has not come yet (within ``WATCH_S``), or it has not changed yet but may
    (within ``NO_CHANGE_S``)."""
    if watch.picture_at is not None or watch.board_kept or now - watch.began > WATCH_S:
        return False
    return watch.changed_at is not None or now - watch.began <= NO_CHANGE_S


async def settle_pictures(tables: list[Table]) -> float:
    """Until the last clicks on ``tables`` have their pictures on screen (or long enough has
    passed, ``awaiting_picture``): a phase's last moves are timed to their pictures like
    the others, not left out because the phase ended first. The seconds waited."""
    began = time.monotonic()
    while any(awaiting_picture(w, time.monotonic()) for t in tables for w in t.watches):
        await asyncio.sleep(0.05)
    return time.monotonic() - began


@dataclass
class Table:
    """One channel and the people who play in it: a host, a guest, maybe more, and the
    computer players the host adds in the lobby."""

    guild_id: str
    channel_id: str
    host: dict[str, Any]
    guest: dict[str, Any]
    game: str = "cityscape"
    more: list[dict[str, Any]] = field(default_factory=list)  # a third, fourth ... person
    computers: int = 0
    message: FakeMessage | None = None  # the lobby / table message as last seen
    stage: str = "none"  # none -> lobby -> joined -> playing
    picker: FakeMessage | None = None  # an open private picker, and whose it is
    picker_user: dict[str, Any] | None = None
    picker_used: set[str] = field(default_factory=set)
    picker_clicks: int = 0
    lobby_todo: list[tuple[dict[str, Any], str]] = field(default_factory=list)
    answered: set[tuple[str, str]] = field(default_factory=set)  # objections given
    watching: Watch | None = None  # the last click's
    watches: list[Watch] = field(default_factory=list)  # clicks still waiting for a change
    # what the channel was shown lately: (time.monotonic(), message id, pictures, table?)
    log: deque[tuple[float, str, int, bool]] = field(default_factory=lambda: deque(maxlen=24))
    idle_until: float = 0.0
    busy: bool = False
    finished: int = 0  # games seen to the end in this channel

    @property
    def users(self) -> dict[str, dict[str, Any]]:
        return {u["id"]: u for u in (self.host, self.guest, *self.more)}

    @property
    def seats(self) -> int:
        return 2 + len(self.more) + self.computers

    def ready(self, now: float) -> bool:
        """Not clicking, not looking at a table that is changing, not waiting for others."""
        if self.busy or now < self.idle_until:
            return False
        return self.picker is not None or self.watching is None or self.watching.done(now)


def custom_ids(message: FakeMessage) -> list[tuple[str, dict[str, Any]]]:
    return [(str(c.get("custom_id")), c) for c in message.iter_components() if c.get("custom_id")]


def shows_only(custom_id: str) -> bool:
    """A button that only shows the clicker something privately (their hand, their
    neighbourhood, How to play): no table changes because of it."""
    return bool(VIEW_ONLY.search(custom_id)) or custom_id.startswith("ch:howto:")


def how_to_play(table: Table, msg: FakeMessage) -> tuple[dict[str, Any], FakeMessage, str] | None:
    """The table's "How to play" button, which the bot answers privately: the click left
    when the table has nothing else for a person (a computer player is due, and the game
    has no button that shows a player their own things)."""
    howto = next((cid for cid, _ in custom_ids(msg) if cid.startswith("ch:howto:")), None)
    return (table.host, msg, howto) if howto else None


def _is_table(message: FakeMessage) -> bool:
    return any(TABLE_ID.match(cid) for cid, _ in custom_ids(message)) or "· final" in message.content


def is_final(message: FakeMessage) -> bool:
    """A finished game's table: its Replay and Rematch buttons (Cityscape's says final)."""
    return "· final" in message.content or any(FINAL_ID.match(cid) for cid, _ in custom_ids(message))


def _choices(message: FakeMessage) -> list[dict[str, Any]]:
    """The enabled buttons and menus a player would use to play (not help, paging or
    leaving)."""
    out = []
    for c in message.iter_components():
        cid = str(c.get("custom_id") or "")
        if (c.get("type") not in (2, 3) or not cid.startswith("ch:") or c.get("disabled")
                or SKIP_ID.search(cid) or SKIP_LABEL.search(str(c.get("label") or ""))):
            continue
        out.append(c)
    return out


def kind_of(custom_id: str) -> str:
    """A click's kind for the report: its custom id without match, versions and numbers."""
    tail = custom_id.split(":", 3)[-1] if custom_id.count(":") >= 3 else custom_id.rsplit(":", 1)[-1]
    return re.sub(r"\d+", "#", re.sub(r"^v\d+:", "", tail))


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
        if table.stage in ("lobby", "joined"):
            return await self._lobby_click(table, phase)
        if table.picker is not None:
            return await self._pick(table, phase)
        msg = self.table_message(table)
        if msg is None:
            table.stage = "none"
            return None
        if is_final(msg):
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
                f"{phase}:height", self.fake.click(user, msg, self.players.random.choice(heights)),
                table)
            self._remember_picker(table, user, click)
            return click
        waiting = msg.content.partition("Waiting for:")[2]
        users = [table.users[u] for u in MENTION.findall(waiting) if u in table.users]
        goals = next((cid for cid, _ in custom_ids(msg) if cid.endswith(":goals")), None)
        if not users or goals is None:
            return None
        user = users[0]
        click = await self.players.send(f"{phase}:goals", self.fake.click(user, msg, goals), table)
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
                f"{phase}:lot", self.fake.click(user, picker, self.players.random.choice(lots)),
                table)
        for cid, _ in ids:
            found = re.search(r":s[SWNE]([0-3])([1-6_]{4})$", cid)
            if found and found.group(2)[int(found.group(1))] == "_":
                code = str(self.players.random.choice([1, 2, 3, 4, 5, 6]))
                click = await self.players.send(
                    f"{phase}:goal-line", self.fake.select(user, picker, cid, [code]), table)
                self._remember_picker(table, user, click)
                return click
        confirm = next((cid for cid, c in ids if re.search(r":g[SWNE][1-6]{4}$", cid)
                        and not c.get("disabled")), None)
        if confirm is None:
            table.picker = table.picker_user = None
            return None
        click = await self.players.send(f"{phase}:goal-confirm",
                                        self.fake.click(user, picker, confirm), table)
        self._remember_picker(table, user, click)
        return click

    async def _open(self, table: Table, phase: str) -> Click | None:
        click = await self.players.send(
            f"{phase}:new", self.fake.slash(table.host, table.channel_id, table.game, ["new"],
                                            dict(GAMES[table.game].scenario.options)))
        if click is not None and click.ok and click.message is not None and not click.message.ephemeral:
            table.message, table.stage = click.message, "lobby"
            table.picker = table.picker_user = table.watching = None
            table.watches.clear()
            table.answered.clear()
            table.lobby_todo = [*((u, "join") for u in (table.guest, *table.more)),
                                *((table.host, "cpu") for _ in range(table.computers)),
                                (table.host, "start")]
        return click

    async def _lobby_click(self, table: Table, phase: str) -> Click | None:
        """The lobby's next click: each guest joins, the host adds the computer players
        and starts."""
        msg = table.message
        if not table.lobby_todo:
            table.stage = "playing"
            return None
        user, op = table.lobby_todo[0]
        target = next((cid for cid, _ in custom_ids(msg) if cid.endswith(f":{op}")), None) if msg else None
        if msg is None or target is None:
            table.stage, table.message = "none", None
            return None
        click = await self.players.send(f"{phase}:{op}", self.fake.click(user, msg, target))
        if click is not None and click.ok and click.data is not None and not click.data.get("flags"):
            table.lobby_todo.pop(0)
            table.stage = "playing" if op == "start" else "joined"
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
            return (table.host, msg, view) if view else how_to_play(table, msg)
        turn = TURN.search(msg.content)
        if turn is not None and turn.group(1) in table.users:
            heights = [cid for cid, c in ids if re.search(r":v\d+:h[1-5]$", cid) and not c.get("disabled")]
            if heights:
                return table.users[turn.group(1)], msg, heights[0]
        goals = next((cid for cid, _ in ids if cid.endswith(":goals")), None)
        return (table.host, msg, goals) if goals else how_to_play(table, msg)


class Player(Cityscape):
    """What a player of any of the four games clicks next in a channel, reading only the
    table and their own private replies: whoever the table names (mentions) is due and
    clicks one of its enabled buttons (one time in eight, when there is one, a button that
    only shows them something: their hand, their neighbourhood), then chooses among the
    enabled menus and buttons of the private reply, ones not yet used first, until the reply
    closes (the move is made). Big Cityz's objections are answered once per city by each
    person the table waits for. Cityscape is played by its own rules (``Cityscape``)."""

    VIEW_SHARE = 0.125

    async def step(self, table: Table, phase: str) -> Click | None:
        if table.game == "cityscape" or table.stage != "playing":
            return await super().step(table, phase)
        if table.picker is not None and table.picker_clicks < PICKER_CLICKS:
            return await self._choose(table, phase)
        table.picker = table.picker_user = None
        msg = self.table_message(table)
        if msg is None:
            table.stage = "none"
            return None
        if is_final(msg):
            table.finished += 1
            table.stage, table.message = "none", None
            return await self._open(table, phase)
        users = table.users
        due = [users[u] for u in dict.fromkeys(MENTION.findall(msg.content)) if u in users]
        choices = _choices(msg)
        objections = [c for c in choices if OBJECTION.match(str(c["custom_id"]))]
        if objections:
            stamp = OBJECTION.match(str(objections[0]["custom_id"])).group(1)  # type: ignore[union-attr]
            due = [u for u in due if (u["id"], stamp) not in table.answered]
            choices = objections
        if not due or not choices:
            return None
        rnd = self.players.random
        user = rnd.choice(due)
        views = [c for c in choices if VIEW_ONLY.search(str(c["custom_id"]))]
        moves = [c for c in choices if c not in views]
        pool = views if views and (not moves or rnd.random() < self.VIEW_SHARE) else moves
        chosen = rnd.choice(pool)
        if objections:
            table.answered.add((user["id"], stamp))
        click = await self._use(table, user, msg, chosen, phase)
        self._follow(table, user, click, fresh=True)
        return click

    async def _choose(self, table: Table, phase: str) -> Click | None:
        picker, user = table.picker, table.picker_user
        assert picker is not None and user is not None
        choices = _choices(picker)
        if not choices:
            table.picker = table.picker_user = None
            return None
        fresh = [c for c in choices if str(c["custom_id"]) not in table.picker_used]
        menus = [c for c in fresh if c.get("type") == 3]
        chosen = self.players.random.choice(menus or fresh or choices)
        table.picker_clicks += 1
        click = await self._use(table, user, picker, chosen, phase)
        self._follow(table, user, click, fresh=False)
        return click

    async def _use(self, table: Table, user: dict[str, Any], msg: FakeMessage,
                   component: dict[str, Any], phase: str) -> Click | None:
        custom_id = str(component["custom_id"])
        kind = f"{phase}:{kind_of(custom_id)}"
        if component.get("type") == 3:
            options = [str(o.get("value")) for o in component.get("options") or []]
            if not options:
                return None
            count = min(len(options), max(1, int(component.get("min_values") or 1)))
            values = self.players.random.sample(options, count)
            if table.picker is msg:
                table.picker_used.add(custom_id)
            return await self.players.send(kind, self.fake.select(user, msg, custom_id, values),
                                           table)
        if table.picker is msg:
            table.picker_used.add(custom_id)
        # A button that only shows the player their own things changes no table: a change
        # that follows it (another player's move) is not its picture.
        return await self.players.send(kind, self.fake.click(user, msg, custom_id), table,
                                       watch_table=not shows_only(custom_id))

    def _follow(self, table: Table, user: dict[str, Any], click: Click | None, *,
                fresh: bool) -> None:
        """After a click: a private reply with choices is the picker to go on with."""
        reply = click.message if click is not None else None
        if reply is not None and reply.ephemeral and _choices(reply):
            if reply is not table.picker:
                table.picker_used = set()
                table.picker_clicks = 0
            table.picker, table.picker_user = reply, user
            if fresh and table.watching is not None:
                # opening a picker is not a move (``send``)
                if table.watching in table.watches:
                    table.watches.remove(table.watching)
                table.watching = None
        else:
            table.picker = table.picker_user = None
            if click is None or not click.ok:
                table.idle_until = time.monotonic() + 0.5

    def table_click(self, table: Table) -> tuple[dict[str, Any], FakeMessage, str] | None:
        """The click a due player makes on the table (one that opens their picker, or makes
        the move at once), else one that shows something privately: for restarts and
        bursts."""
        if table.game == "cityscape":
            return super().table_click(table)
        msg = self.table_message(table)
        if msg is None:
            return None
        users = table.users
        due = [users[u] for u in dict.fromkeys(MENTION.findall(msg.content)) if u in users]
        choices = _choices(msg)
        moves = [c for c in choices if not VIEW_ONLY.search(str(c["custom_id"]))
                 and not OBJECTION.match(str(c["custom_id"]))]
        if due and moves:
            return due[0], msg, str(moves[0]["custom_id"])
        view = super().table_click(table)
        if view is None and due and choices:  # an objection, say: a due person's answer
            return due[0], msg, str(choices[0]["custom_id"])
        return view


# People and computer players at a table, in turn over a game's tables: 2-5 seats, half
# of the tables with a computer player (a game's own maximum caps it).
SEATING = ((2, 0), (2, 1), (3, 0), (3, 1), (4, 0), (4, 1))


async def seat(fake: FakeDiscord, table: Table, index: int) -> None:
    """Seat the ``index``-th table of its game: more people (members of its guild) and
    computer players, by SEATING."""
    people, computers = SEATING[index % len(SEATING)]
    most = GAMES[table.game].engine.max_players
    while people + computers > most:
        if computers:
            computers -= 1
        else:
            people -= 1
    table.computers = computers
    for k in range(people - 2):
        table.more.append(await fake.add_member(f"p{k + 3}-{table.channel_id[-6:]}",
                                                guild_id=table.guild_id))


async def build_world(fake: FakeDiscord, matches: int, per_guild: int, played: int,
                      games: list[str], *, mixed: bool = True) -> list[Table]:
    """Guilds of at most ``per_guild`` channels, one match per channel. Mixed (the
    default): every channel's game in turn over ``games`` (equal shares, the load's first
    ``played`` channels too), 2-5 seats each (``seat``). Not mixed (the light profile):
    two people a table, the first ``played`` channels Cityscape (the load plays them), the
    others ``games`` in turn. With a fake of several shards, see build_sharded_world."""
    if fake.shard_count > 1:
        sharded = await build_sharded_world(fake, matches, per_guild, played, games)
        if mixed:
            await _mix(fake, sharded, games)
        return sharded
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
    if mixed:
        await _mix(fake, tables, games)
    return tables


async def _mix(fake: FakeDiscord, tables: list[Table], games: list[str]) -> None:
    for n, table in enumerate(tables):
        table.game = games[n % len(games)]
        await seat(fake, table, n // len(games))


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


# Discord keeps an interaction's token (its webhook) for 15 minutes, and the bot edits a
# table through the latest click on it for that long (bot/ui/tablehooks.py).
TOKEN_LIFETIME_S = 15 * 60
UPDATES = (6, 7)  # answers after which the click's @original is the message clicked


def prune_fake(fake: FakeDiscord, keep: set[str], older_than: float = 60.0,
               token_lifetime: float = TOKEN_LIFETIME_S) -> None:
    """Drop what the fake keeps for tests' inspection (request log, edit history, old
    private replies other than the pickers in ``keep``, still open) so that a long run
    measures the bot, not the fake's memory.

    An answered click that updated a public message stays, slimmed, for its token's 15
    minutes: the bot may still edit its table through it, and Discord would accept that.
    (Dropping it after a minute answered those edits "Unknown Webhook": the bot then
    edited through the channel, two requests instead of one, and the 10,000-match run's
    35/s phase looked like 45 requests a second under the global limit.)"""
    fake.requests.clear()
    fake.gateway_received.clear()
    fake.errors.clear()
    uploads = getattr(fake, "_uploads", None)
    if isinstance(uploads, dict):
        uploads.clear()  # the CDN copies; messages keep their own attachments
    for session in fake.sessions.values():
        del session.sent[:-50]
    now = time.monotonic()
    cutoff, expired = now - older_than, now - token_lifetime
    gone: list[str] = []
    # In the order they were made: the first one made within ``older_than`` ends the pass.
    for key, ix in fake.interactions.items():
        if ix.created >= cutoff:
            break
        if not ix.payload:  # slimmed already: kept until its token runs out
            if ix.created < expired:
                gone.append(key)
            continue
        if not (ix.answered or ix.failed):
            continue
        for msg in (ix.original, *ix.followup_messages):
            if msg is not None and msg.ephemeral and msg.id not in keep:
                fake.messages.pop(msg.id, None)
        carries = (ix.callback is not None and ix.callback.type in UPDATES
                   and ix.message is not None and not ix.message.ephemeral
                   and ix.created >= expired)
        if not carries:
            gone.append(key)
            continue
        ix.payload = {}
        ix.followup_messages = [m for m in ix.followup_messages if not m.ephemeral]
        for answer in (ix.callback, ix.followed_by):
            if answer is not None:
                answer.files = []  # the table message keeps its own attachments
    for key in gone:
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
