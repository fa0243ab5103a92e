"""The real bot process (`python -m bot run`) under SIGKILL, seen only from outside.

The test process holds FakeDiscord and plays the humans by clicks; the bot is a child
process that can be killed at any click. Everything checked afterwards is what a player or
an admin could see: Discord messages, and the SQLite file's ``matches``, ``actions`` and
``results`` tables, replayed through the engines and ``python -m bot replay``.

A session keeps a ledger of every move a click committed to (the click that makes the
move, as opposed to the clicks that only open a chooser): whether the bot answered it,
and, after a kill, whether the restarted bot's database has it. The ledger is compared
with the database's action log at the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import zlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.core.engine import JSON, Engine
from bot.core.replaying import final_state
from bot.core.storage import FINISHED
from bot.core.storage.jobs import decode_log
from bot.games import GAMES
from fakediscord import FakeDiscord
from fakediscord.interactions import FakeInteraction
from fakediscord.models import FakeMessage, InteractionCallback

ROOT = Path(__file__).resolve().parent.parent
REPLY_SECONDS = 20.0  # generous: the machine running the tests may be busy
READY_SECONDS = 30.0


async def stop_process(process: asyncio.subprocess.Process) -> None:
    """Stop a bot process as a service manager would: SIGTERM, then SIGKILL after 10 s
    (a bot that cannot stop must still not outlive its test)."""
    with contextlib.suppress(ProcessLookupError):
        process.send_signal(signal.SIGTERM)
    try:
        await asyncio.wait_for(process.wait(), 10)
    except TimeoutError:
        process.kill()
        await process.wait()


def seed_from_env(default: int | None = None) -> int:
    """KILL_SEED reruns one seed; otherwise a fresh one (printed by the test)."""
    raw = os.environ.get("KILL_SEED")
    if raw:
        return int(raw)
    return default if default is not None else random.SystemRandom().randrange(1, 10**6)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DEV_GUILD"))}
    env.update(extra)
    return env


def _engine(game: str) -> Engine:
    """The engine of ``game``: the catalogue's, or one ``EXTRA_GAMES`` adds (a test's game)."""
    if game in GAMES:
        return GAMES[game].engine
    for module in filter(None, (m.strip() for m in os.environ.get("EXTRA_GAMES", "").split(","))):
        record = importlib.import_module(module).GAME
        if record.name == game:
            return record.engine
    raise KeyError(game)


@dataclass
class Saved:
    """One row of ``matches``, as the SQLite file has it."""

    id: int
    game: str
    status: str
    seats: list[dict[str, Any]]
    options: dict[str, Any]
    seed: int
    state: JSON | None
    version: int
    table_message_id: int | None

    @property
    def player_ids(self) -> list[str]:
        return [str(s["id"]) for s in self.seats]


@dataclass
class Row:
    """One row of ``actions``."""

    seq: int
    player: str | None
    action: JSON
    by_computer: bool


@dataclass
class Move:
    """A move a commit click asked for, and what became of it."""

    player: str
    action: JSON
    after: int  # the saved version the move was chosen on
    answered: bool = False  # the bot answered the commit click as an accepted move
    killed: bool = False  # the bot was killed while the commit click was in flight
    seq: int | None = None  # where the database has it; None: not applied

    def describe(self) -> str:
        how = "killed in flight" if self.killed else "answered"
        if self.killed and self.answered:
            how = "answered just before the kill"
        return f"{self.player} {json.dumps(self.action, sort_keys=True)} on v{self.after} ({how})"


class Killed(Exception):
    """The bot was killed while ``ix`` was in flight."""

    def __init__(self, ix: FakeInteraction | None) -> None:
        super().__init__("killed")
        self.ix = ix


class Database:
    """Reads the bot's SQLite file from outside (short autocommit reads, no open transaction
    kept, so the bot's writes and checkpoints never wait on the test)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _query(self, sql: str, args: Sequence[Any] = ()) -> list[sqlite3.Row]:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            db.row_factory = sqlite3.Row
            return list(db.execute(sql, tuple(args)).fetchall())
        finally:
            db.close()

    def match(self, match_id: int) -> Saved:
        row = self._query("SELECT m.*, s.state AS live, a.state AS archived FROM matches m"
                          " LEFT JOIN match_states s ON s.match_id = m.id"
                          " LEFT JOIN archive a ON a.match_id = m.id WHERE m.id=?",
                          (match_id,))[0]
        # A running game's state is in `match_states`; a finished one's, compressed, in
        # `archive`, or (since schema 5) not kept: its moves replayed, as the bot does.
        text = row["live"] if row["archived"] is None else zlib.decompress(row["archived"])
        saved = Saved(id=row["id"], game=row["game"], status=row["status"],
                      seats=json.loads(row["seats"]), options=json.loads(row["options"]),
                      seed=row["seed"], state=None if text is None else json.loads(text),
                      version=row["version"], table_message_id=row["table_message_id"])
        if saved.state is None and saved.status in FINISHED and saved.version >= 1:
            engine = _engine(saved.game)
            saved.state = final_state(engine, saved.player_ids, saved.options, saved.seed,
                                      [(r.player, r.action) for r in self.actions(saved.id)])
        return saved

    def match_in(self, channel_id: str) -> Saved | None:
        rows = self._query("SELECT id FROM matches WHERE channel_id=? ORDER BY id DESC LIMIT 1",
                           (int(channel_id),))
        return self.match(rows[0]["id"]) if rows else None

    def actions(self, match_id: int) -> list[Row]:
        rows = [Row(r["seq"], r["player"], json.loads(r["action"]), bool(r["by_computer"]))
                for r in self._query("SELECT seq, player, action, by_computer FROM actions"
                                     " WHERE match_id=? ORDER BY seq", (match_id,))]
        # A finished game's log is folded into one compressed `archive` row.
        for r in self._query("SELECT actions FROM archive WHERE match_id=?", (match_id,)):
            rows = [Row(seq, player, action, bool(cpu)) for seq, player, action, cpu, _at
                    in decode_log(r["actions"])] + rows
        return rows

    def results(self, match_id: int) -> list[sqlite3.Row]:
        return self._query("SELECT * FROM results WHERE match_id=? ORDER BY player_id",
                           (match_id,))


class KillSession:
    """One bot process at a time against ``fake`` and the database at ``db_path``; clicks
    through ``press`` may kill it."""

    def __init__(self, fake: FakeDiscord, db_path: Path, seed: int,
                 users: dict[str, dict[str, Any]]) -> None:
        self.fake = fake
        self.db = Database(db_path)
        self.db_path = db_path
        self.rng = random.Random(seed)
        self.seed = seed
        self.users = users
        self.process: asyncio.subprocess.Process | None = None
        self.moves: list[Move] = []
        self.clicks = 0
        self.kill_at: set[int] = set()  # click numbers whose click is followed by a kill
        # seconds from sending that click to the kill: often too soon for the bot to have
        # saved the move, often after it answered, sometimes in between
        self.kill_delays = ((0.0, 0.02), (0.0, 0.3))
        self.kills: list[str] = []  # what each kill interrupted, for failure messages
        self.killed_interactions: list[FakeInteraction] = []
        self.restarts = 0
        self.match_id = 0
        self.logs: list[str] = []
        # After each restart: was the first move made from the table message, and applied?
        self.since_restart: str | None = None
        self.table_worked_after_restart = 0
        self.over_at_restart = 0
        self.killed_before_a_move = 0

    # -- the process ----------------------------------------------------------------------

    def _connected(self) -> bool:
        return any(s.connection is not None for s in self.fake.sessions.values())

    async def start(self) -> None:
        assert self.process is None
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "run", cwd=str(ROOT),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
            env=_env(DISCORD_TOKEN=self.fake.token, DISCORD_API_BASE=self.fake.api_base,
                     DEV_GUILD_ID=self.fake.guild_id, DATABASE_PATH=str(self.db_path),
                     CPU_DELAY="0", LOG_LEVEL="WARNING", TURN_SECONDS="600",
                     DISCORD_RATE_LIMIT_SCALE=str(self.fake.rate_limit_scale)))
        await self.fake.wait_until(
            lambda: len(self.fake.commands(self.fake.guild_id)) >= 3 and self._connected(),
            READY_SECONDS, "command sync and gateway connection")

    async def kill(self, what: str) -> None:
        """SIGKILL: no goodbye, no clean shutdown, whatever the bot was doing."""
        process = self.process
        assert process is not None
        process.send_signal(signal.SIGKILL)
        await process.wait()
        await self._keep_log(process)
        self.process = None
        self.kills.append(what)
        print(f"kill {len(self.kills)}: {what}")  # shown with a failure, with the seed
        await self.fake.wait_until(lambda: not self._connected(), 10,
                                   "the killed bot's socket to close")
        # a request the bot sent just before dying may still be in the fake's hands
        await asyncio.sleep(0.05)

    async def restart(self) -> None:
        self.restarts += 1
        await self.start()

    async def stop(self) -> None:
        process = self.process
        if process is None:
            return
        self.process = None
        await stop_process(process)
        await self._keep_log(process)

    async def _keep_log(self, process: asyncio.subprocess.Process) -> None:
        if process.stdout is not None:
            self.logs.append((await process.stdout.read()).decode(errors="replace"))

    # -- clicks -----------------------------------------------------------------------------

    async def press(self, user: dict[str, Any], message: FakeMessage, custom_id: str,
                    values: Sequence[str] | None = None, *, commit: Move | None = None,
                    accepted: Callable[[InteractionCallback], bool] | None = None,
                    ) -> InteractionCallback:
        """Click a button (or pick ``values`` in a menu) and wait for the bot's answer.

        ``commit`` is the move this click makes. When this click is one the plan kills
        after, the bot is killed a random moment after the click went out, and Killed is
        raised; whether the bot answered first is noted (``accepted`` tells an accepted
        answer from a refusal)."""
        if values is None:
            ix = await self.fake.click(user, message, custom_id)
        else:
            ix = await self.fake.select(user, message, custom_id, list(values))
        self.clicks += 1
        if self.since_restart == "fresh":
            self.since_restart = "chooser" if message.ephemeral else "table"
        if commit is not None:
            self.moves.append(commit)
        if self.clicks in self.kill_at:
            if self.since_restart is not None:
                self.killed_before_a_move += 1
                self.since_restart = None
            await asyncio.sleep(self.rng.uniform(*self.rng.choice(self.kill_delays)))
            what = f"click {self.clicks} {custom_id!r}" + (
                f" making {commit.describe()}" if commit else "")
            await self.kill(what)
            self.killed_interactions.append(ix)
            if commit is not None:
                commit.killed = True
                callback = ix.callback
                commit.answered = callback is not None and (accepted is None or accepted(callback))
            raise Killed(ix)
        reply = await ix.seen(timeout=REPLY_SECONDS)
        if commit is not None:
            assert accepted is None or accepted(reply), (commit.describe(), reply.data)
            commit.answered = True
            commit.seq = self._find(commit)
            assert commit.seq is not None, \
                f"the bot answered {commit.describe()} but its database does not have it"
            if self.since_restart == "table":
                self.table_worked_after_restart += 1
            self.since_restart = None
        return reply

    async def kill_now(self, what: str) -> None:
        """Kill while no click is in flight (e.g. while a veto window waits)."""
        if self.since_restart is not None:
            self.killed_before_a_move += 1
            self.since_restart = None
        await self.kill(what)
        raise Killed(None)

    def _find(self, move: Move) -> int | None:
        """The action log's row for ``move``: the first row after the board it was chosen on
        by the same player and not yet claimed by an earlier move of the ledger."""
        claimed = {m.seq for m in self.moves if m.seq is not None}
        for row in self.db.actions(self.match_id):
            if row.seq > move.after and row.seq not in claimed and row.player == move.player:
                assert _same(row.action, move.action), \
                    f"row {row.seq} is {row.action}, not {move.describe()}"
                return row.seq
        return None

    async def recover(self, killed: Killed) -> None:
        """After a kill: start a new process on the same database, and settle the ledger's
        move that was in flight (if the bot answered it, the database must have it)."""
        await self.restart()
        self.since_restart = "fresh"
        if self.db.match(self.match_id).status != "active":
            self.over_at_restart += 1
            self.since_restart = None
        in_flight = [m for m in self.moves if m.killed and m.seq is None]
        for move in in_flight[-1:]:
            move.seq = self._find(move)
            if move.answered:
                assert move.seq is not None, \
                    f"lost: {move.describe()} was answered but is not in the database"
        del killed

    # -- waiting for the table ------------------------------------------------------------

    async def table(self, ready: Callable[[Saved, FakeMessage], bool]) -> Saved:
        """The saved match once its table message shows it (``ready``), or once it is over."""
        found: list[Saved] = []

        def shown() -> bool:
            saved = self.db.match(self.match_id)
            if saved.status != "active":
                found.append(saved)
                return True
            if saved.table_message_id is None or saved.state is None:
                return False
            cpus = {str(s["id"]) for s in saved.seats if s.get("cpu")}
            if cpus & set(GAMES[saved.game].engine.to_act(saved.state)):
                return False  # the computer's move comes first
            message = self.fake.messages.get(str(saved.table_message_id))
            if message is None or not ready(saved, message):
                return False
            found.append(saved)
            return True

        await self.fake.wait_until(shown, REPLY_SECONDS, "the table to show the saved state")
        return found[-1]

    def table_message(self, saved: Saved) -> FakeMessage:
        assert saved.table_message_id is not None
        return self.fake.message(saved.table_message_id)

    # -- the checks at the end ------------------------------------------------------------

    async def check_finished(self) -> Saved:
        """The game is over; the log holds every answered move once, every move of the
        ledger at most once and nothing else of the humans'; it replays to the saved state;
        the results are in, once per player."""
        final = self.db.match(self.match_id)
        assert final.status == "over" and final.state is not None, final.status
        rows = self.db.actions(self.match_id)
        seqs = [r.seq for r in rows]
        # versions start at 1 with the first move saved as seq 2, one row per version
        assert seqs == list(range(2, final.version + 1)), f"gaps or extra rows: {seqs}"
        for move in self.moves:
            if move.answered:
                assert move.seq is not None, f"lost: {move.describe()}"
        applied = {m.seq: m for m in self.moves if m.seq is not None}
        humans = set(self.users)
        for row in rows:
            if row.player in humans:
                assert row.seq in applied, \
                    f"row {row.seq} {row.player} {row.action} was never clicked once (doubled?)"
                move = applied[row.seq]
                assert row.player == move.player and _same(row.action, move.action)
            else:
                assert row.by_computer, f"row {row.seq} by {row.player} is nobody's click"
        engine = GAMES[final.game].engine
        state = engine.new(final.player_ids, final.options, final.seed)
        for row in rows:
            state, _events = engine.apply(state, row.player, row.action)
        assert _same(state, final.state), "the action log does not replay to the saved state"
        result = engine.result(state)
        assert result is not None
        replayed = await replay_cli(final, rows)
        assert replayed["over"] is True and replayed["rejected"] == []
        assert replayed["scores"] == result.scores and replayed["winners"] == result.winners
        assert _same(replayed["state"], engine.view(final.state, None))
        results = self.db.results(self.match_id)
        assert sorted(r["player_id"] for r in results) == sorted(final.player_ids)
        for r in results:
            assert r["score"] == int(result.scores.get(r["player_id"], 0))
            assert bool(r["won"]) == (r["player_id"] in result.winners)
        assert set(self.fake.failed_interactions) <= set(self.killed_interactions), \
            "an interaction failed that no kill interrupted"
        # the table's buttons work after a restart: the first move after it began there
        # (unless another kill came first) and the bot applied it
        assert self.table_worked_after_restart >= 1
        assert self.table_worked_after_restart + self.over_at_restart \
            + self.killed_before_a_move == self.restarts
        return final

    def report(self) -> str:
        answered = sum(m.answered for m in self.moves)
        in_flight = [m for m in self.moves if m.killed]
        return (f"seed {self.seed}: {len(self.kills)} kills, {self.clicks} clicks, "
                f"{answered} moves answered; moves in flight at a kill: "
                f"{sum(m.answered for m in in_flight)} answered first, "
                f"{sum(m.seq is not None and not m.answered for m in in_flight)} saved "
                f"unanswered, {sum(m.seq is None for m in in_flight)} not saved")


async def replay_cli(final: Saved, rows: list[Row]) -> JSON:
    """``python -m bot replay -`` on the saved log, as an admin would run it."""
    spec = {"game": final.game, "players": final.player_ids, "seed": final.seed,
            "options": final.options,
            "actions": [{"player": r.player, **r.action} for r in rows]}
    done = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "bot", "replay", "-"], input=json.dumps(spec),
        cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    out: JSON = json.loads(done.stdout)
    return out


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def plan_kills(rng: random.Random, kills: int, first: int, last: int) -> set[int]:
    """``kills`` distinct click numbers from ``first`` to ``last``, one in each of as many
    equal stretches, at a random place within it."""
    step = (last - first + 1) / kills
    return {first + int(i * step + rng.uniform(0, step)) for i in range(kills)}


Driver = Callable[[KillSession, Saved], Awaitable[None]]


async def play_to_the_end(session: KillSession, ready: Callable[[Saved, FakeMessage], bool],
                          move: Driver, *, max_moves: int = 2000,
                          between: Callable[[Saved], Awaitable[None]] | None = None) -> None:
    """Humans move (``move`` makes one, by clicks) until the game is over; a kill is
    followed by a restart on the same database, and the game goes on."""
    for _ in range(max_moves):
        saved = await session.table(ready)
        if saved.status != "active":
            return
        try:
            if between is not None:
                await between(saved)
            await move(session, saved)
        except Killed as killed:
            await session.recover(killed)
    raise AssertionError("the game did not end")
