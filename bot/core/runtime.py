"""The match runtime: lobbies, seats, and every move of every game, saved before answered.

It knows engines and storage but nothing of Discord (and no game: the games are handed in
as a mapping from name to game record, ``bot.core.catalogue``): the cogs call it with player ids and actions and get
back the saved match and what happened, or an exception whose text is a sentence for the
player.

Every change is made on a copy of the match, committed, and only then copied into the one
in memory, so nobody ever reads (or draws, or answers with) a state that is not on disk.
"""

from __future__ import annotations

import asyncio
import copy
import gc
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace

from .catalogue import GameRecord
from .engine import JSON, Engine, IllegalAction, StateVersionError, timer_seconds, upgrade_state
from .i18n import Words
from .keyedlocks import Held, KeyedLocks
from .levels import HARD, LEVELS, Budget, decide
from .outcomes import Limits, Outcome, Refusal, StaleBoard
from .packed import DecodedStates, PackedMatch, has_state
from .records import ABANDONED, ACTIVE, ENDED, LOBBY, OVER, Match, Seat
from .server_settings import ServerSettingsStore
from .shards import Shards
from .storage import ChannelBusy, ResultRow, Storage

_ = Words("bot")
_n = _.plural

log = logging.getLogger(__name__)

CPU_NAMES = ("Ada", "Babbage", "Colossus", "Deep Blue", "Eliza", "Fermi")

# How a hard computer player's move is worked out away from the event loop: (game, state,
# player, level, budget) -> the action. The bot hands in its render workers' ``think``.
Thinker = Callable[[str, JSON, str, str, Budget], Awaitable[JSON]]

# Decoded states kept at once (bot/core/packed.py); the other unfinished matches keep theirs
# packed (~1 KB) until read. Every decoded state is ~45 lists and dicts the garbage
# collector walks in each full collection: with 1,000 decoded (every match after a
# restart's crowd) a soak's full collection held the event loop 58 ms, with 512 37 ms,
# with 250 22 ms; but with 256 a 10,000-match restart's first clicks were slower (p95
# 333-417 ms against 118-181 ms with 1,000 and 162 ms with 512; why was not found), 3 Dec,
# docs/performance.md. A click on a match pushed out decodes it again
# (0.01-0.03 ms) and packs the one pushed out in its place (0.02-0.06 ms).
DECODED_STATES = 512

# Who is due in an active match, kept in its ``extra`` (saved with every move) so a restart
# plans timers and computer players without decoding every state: [a computer player is
# due, a person is due, the state's own time limit (a veto window) or None].
DUE = "due"


class Runtime:
    def __init__(self, storage: Storage, games: Mapping[str, GameRecord], *,
                 clock: Callable[[], float] = time.time, turn_seconds: float = 180.0,
                 limits: Limits | None = None, servers: ServerSettingsStore | None = None,
                 thinker: Thinker | None = None, budget: Budget | None = None,
                 shards: Shards | None = None, decoded_states: int = DECODED_STATES) -> None:
        self.storage = storage
        # A finished game is archived without its last state, which its moves replay to.
        storage.replays({name: record.engine for name, record in games.items()})
        # The shards this process owns: only their servers' matches are loaded, so every
        # timer, computer player and redraw that starts from them stays on them.
        self.shards = shards
        self.games = dict(games)
        # Hard players' moves: off this process's GIL where the bot gives a thinker, else
        # at least off the event loop, in a thread.
        self.thinker: Thinker = thinker or self._think_in_thread
        self.budget = budget or Budget.from_env()
        self.clock = clock
        self.limits = limits or Limits()
        # Per-server choices (/settings); servers that chose nothing get ``turn_seconds``.
        self.servers = servers or ServerSettingsStore(storage, turn_seconds=turn_seconds)
        self._matches: dict[int, Match] = {}
        # The unfinished matches by channel, by server and by (server, host), and the
        # lobbies: a click or /new looks up its own, never scans every match.
        self._by_channel: dict[int, int] = {}
        self._by_guild: dict[int, set[int]] = {}
        self._by_host: dict[tuple[int, str], set[int]] = {}
        self._lobbies: set[int] = set()
        self._duplicate_channels = False
        self.states = DecodedStates(decoded_states)
        # Matches whose ``DUE`` was worked out from their state (saved by an older Cityhall),
        # with their version then: ``save_who_is_due`` saves it.
        self._due_unsaved: dict[int, int] = {}
        self._locks = KeyedLocks()
        # Per server: a new lobby's limits are checked and the lobby saved under it, so that
        # /new sent many times at once counts every lobby made before it. (A server's matches
        # belong to one process: its shard's lease holder.)
        self._server_locks = KeyedLocks()
        # Accepted moves whose news has not gone out yet, per match: `act` adds one, the
        # bot's `after_move` takes it off when the channel has been told (tests wait on it).
        self.undelivered: dict[int, int] = {}

    # -- loading ----------------------------------------------------------------------

    async def load(self) -> list[Match]:
        """Bring every unfinished match back after a start or restart (with ``shards``,
        those in this process's servers only)."""
        await self.servers.load()
        matches = []
        upgraded: dict[str, int] = {}
        # Tens of thousands of objects made in one go, none of them garbage: without the
        # collector, which would walk them all again and again meanwhile (a third of the
        # time at 10,000 matches).
        collecting = gc.isenabled()
        gc.disable()
        try:
            unfinished = await self.storage.unfinished(self.shards)
        finally:
            if collecting:
                gc.enable()
        for match in unfinished:
            if match.game not in self.games:
                continue
            saved_version = match.state_version
            if isinstance(match, PackedMatch):
                match.keep_in(self.states)
            if not self._up_to_date(match):
                if isinstance(match, PackedMatch):
                    match.keep_in(None)
                continue  # said why; the match stays in the database as it was
            if has_state(match) and match.state_version != saved_version:
                upgraded[match.game] = upgraded.get(match.game, 0) + 1
            matches.append(match)
        if upgraded:
            log.info("Brought the saved states of %s up to this version's engines.",
                     ", ".join(f"{count} {self.games[game].engine.title} game(s) (state version "
                               f"{self.games[game].engine.state_version})"
                               for game, count in upgraded.items()))
        now = self.clock()
        for match in matches:
            # A restart is not the players' fault: nobody due is timed out before they had
            # a moment to see the table again (kept in memory only).
            deadline = self.deadline(match)
            if deadline is not None and match.turn_started_at is not None \
                    and deadline < now + self.limits.restart_grace:
                match.turn_started_at += now + self.limits.restart_grace - deadline
        for match in self._matches.values():
            if isinstance(match, PackedMatch):
                match.keep_in(None)
        self._matches = {}
        self._by_channel, self._by_guild, self._by_host = {}, {}, {}
        self._lobbies = set()
        self._duplicate_channels = False
        for match in matches:
            self._add(match)
        return matches

    async def save_who_is_due(self, pause: float = 0.02) -> int:
        """Save who is due with the matches restored without it (saved by a Cityhall before
        it was kept), so that the next start need not decode their states: one match at a
        time, under its lock, as a change of its own. Returns how many were saved."""
        waiting, self._due_unsaved = self._due_unsaved, {}
        saved = 0
        for match_id, version in waiting.items():
            async with self._locked(match_id):
                match = self._matches.get(match_id)
                if match is None or match.status != ACTIVE or match.version != version \
                        or DUE not in match.extra:
                    continue  # gone, or moved since: its move saved it
                await self._commit(self._copy(match))
                saved += 1
            await asyncio.sleep(pause)
        return saved

    def get(self, match_id: int) -> Match | None:
        return self._matches.get(match_id)

    async def fetch(self, match_id: int) -> Match | None:
        """An unfinished match from memory, or any match from the database (its state
        upgraded to the engine's version; None if this version cannot read it)."""
        match = self._matches.get(match_id)
        if match is not None:
            return match
        match = await self.storage.get(match_id)
        if match is None or match.game not in self.games:
            return match
        await self.storage.final_state(match)  # a finished game's board, from its moves
        return match if self._up_to_date(match) else None

    def _up_to_date(self, match: Match) -> bool:
        """Bring a match read from the database to its engine's state version, in place.
        False (with a log sentence) when this version cannot use its state: the match is
        then left out, and the bot goes on with the others."""
        engine = self.games[match.game].engine
        if not has_state(match):
            match.state_version = engine.state_version  # a lobby: nothing saved to upgrade
            return True
        if match.state_version == engine.state_version:
            return True
        where = f"Match {match.id} ({engine.title} in channel {match.channel_id})"
        saved = match.state
        assert saved is not None
        try:
            match.state = upgrade_state(engine, saved, match.state_version)
        except StateVersionError as exc:
            log.error("%s is left as it is and not played: %s. Run the newer Cityhall again "
                      "to go on with it.", where, exc)
            return False
        except Exception:
            log.exception("%s is left as it is and not played: upgrading its state from "
                          "version %s to %s failed.", where, match.state_version,
                          engine.state_version)
            return False
        match.state_version = engine.state_version
        match.extra.pop(DUE, None)  # worked out again from the upgraded state when needed
        return True

    def in_channel(self, channel_id: int) -> Match | None:
        match_id = self._by_channel.get(channel_id)
        return None if match_id is None else self._matches.get(match_id)

    def unfinished(self) -> list[Match]:
        return list(self._matches.values())

    def in_server(self, guild_id: int) -> list[Match]:
        """The server's unfinished matches (oldest first)."""
        return [self._matches[i] for i in sorted(self._by_guild.get(guild_id, ()))]

    def lobbies(self) -> list[Match]:
        """The lobbies waiting to be started."""
        return [self._matches[i] for i in sorted(self._lobbies)]

    def _add(self, match: Match) -> None:
        """Keep an unfinished match in memory, in the indexes, its state counted in
        ``states``."""
        self._matches[match.id] = match
        # One unfinished match per channel (the database refuses a second); the oldest wins
        # if an old file has two.
        if self._by_channel.setdefault(match.channel_id, match.id) != match.id:
            self._duplicate_channels = True
        self._by_guild.setdefault(match.guild_id, set()).add(match.id)
        self._by_host.setdefault((match.guild_id, match.host_id), set()).add(match.id)
        if match.status == LOBBY:
            self._lobbies.add(match.id)
        if isinstance(match, PackedMatch):
            match.keep_in(self.states)

    def engine(self, match: Match) -> Engine:
        return self.games[match.game].engine

    def _locked(self, match_id: int) -> Held:
        """The match's lock: its moves, lobby changes and timers run one at a time."""
        return self._locks(match_id)

    # -- the lobby ----------------------------------------------------------------------

    async def open_lobby(self, guild_id: int, channel_id: int, game: str, host: Seat,
                         options: JSON) -> Match:
        engine = self.games[game].engine
        # Check the options now, with placeholder players, so a bad option is refused at
        # /new rather than at Start.
        engine.new([f"p{i}" for i in range(engine.min_players)], options, 0)
        async with self._server_locks(guild_id):
            self._check_room(guild_id, channel_id, host)
            match = PackedMatch(
                id=0, guild_id=guild_id, channel_id=channel_id, game=game, status=LOBBY,
                host_id=host.id, seats=[host], options=dict(options),
                seed=random.SystemRandom().randrange(1, 2**31),
            )
            try:
                await self.storage.create_match(match)
            except ChannelBusy:
                raise Refusal(_("This channel already has a game; use /game status to see "
                                "it.")) from None
            self._add(match)
        log.info("%s lobby %s opened in server %s, channel %s.", engine.title, match.id,
                 guild_id, channel_id)
        return match

    def _check_room(self, guild_id: int, channel_id: int, host: Seat) -> None:
        """The abuse limits a new lobby must fit, with every lobby already saved counted."""
        busy = self.in_channel(channel_id)
        if busy is not None:
            raise Refusal(self._busy_sentence(busy))
        in_server = len(self._by_guild.get(guild_id, ()))
        if in_server >= self.limits.matches_per_server:
            raise Refusal(_n("This server already has {n} game open, the most Cityhall runs "
                             "in one server at once. Finish or end one first.",
                             "This server already has {n} games open, the most Cityhall runs "
                             "in one server at once. Finish or end one first.",
                             in_server))
        hosted = [self._matches[i] for i in self._by_host.get((guild_id, host.id), ())]
        lobbies = sum(1 for m in hosted if m.status == LOBBY)
        if lobbies >= self.limits.lobbies_per_user:
            raise Refusal(_n("You already have {n} open lobby in this server; start or "
                             "cancel it first.",
                             "You already have {n} open lobbies in this server; start or "
                             "cancel one of them first.", lobbies))
        if len(hosted) >= self.limits.matches_per_user:
            raise Refusal(_n("You already host {n} unfinished game in this server, the most "
                             "one member may; finish or end it first.",
                             "You already host {n} unfinished games in this server, the most "
                             "one member may; finish or end one first.", len(hosted)))

    async def join(self, match_id: int, seat: Seat) -> Match:
        async with self._locked(match_id):
            match = self._lobby(match_id)
            engine = self.engine(match)
            if match.seat(seat.id):
                raise Refusal(_("You are already in this game."))
            if len(match.seats) >= engine.max_players:
                raise Refusal(_n("{title} is for at most {n} player; the table is full.",
                                 "{title} is for at most {n} players; the table is full.",
                                 engine.max_players, title=engine.title))
            new = self._copy(match)
            new.seats.append(seat)
            return await self._commit(new)

    async def leave(self, match_id: int, player_id: str) -> Match:
        async with self._locked(match_id):
            match = self._lobby(match_id)
            if not match.seat(player_id):
                raise Refusal(_("You are not in this game."))
            if player_id == match.host_id:
                raise Refusal(_("You are the host: use Cancel to close the lobby instead."))
            new = self._copy(match)
            new.seats = [s for s in match.seats if s.id != player_id]
            return await self._commit(new)

    async def add_computer(self, match_id: int, by: str, level: str = "normal") -> Match:
        async with self._locked(match_id):
            match = self._lobby(match_id)
            engine = self.engine(match)
            if by != match.host_id:
                raise Refusal(_("Only the host can add computer players."))
            if level not in LEVELS:
                raise Refusal(_level_sentence(level))
            if len(match.seats) >= engine.max_players:
                raise Refusal(_n("{title} is for at most {n} player; the table is full.",
                                 "{title} is for at most {n} players; the table is full.",
                                 engine.max_players, title=engine.title))
            taken = {s.id for s in match.seats}
            number = next(i for i in range(1, 100) if f"cpu{i}" not in taken)
            name = f"{CPU_NAMES[(number - 1) % len(CPU_NAMES)]} (computer)"
            new = self._copy(match)
            new.seats.append(Seat(id=f"cpu{number}", name=name, cpu=True, level=level))
            return await self._commit(new)

    async def set_level(self, match_id: int, by: str, player_id: str, level: str) -> Match:
        """The host sets how well a computer player in the lobby plays (easy, normal, hard)."""
        async with self._locked(match_id):
            match = self._lobby(match_id)
            if by != match.host_id:
                raise Refusal(_("Only the host can set the computer players' levels."))
            if level not in LEVELS:
                raise Refusal(_level_sentence(level))
            seat = match.seat(player_id)
            if seat is None:
                raise Refusal(_("That computer player has left the lobby."))
            if not seat.cpu:
                raise Refusal(_("{name} is a person, not a computer player: only computer "
                                "players have a level.", name=seat.name))
            if seat.level == level:
                return match
            new = self._copy(match)
            new.seats = [replace(s, level=level) if s.id == player_id else s
                         for s in match.seats]
            return await self._commit(new)

    async def remove_computer(self, match_id: int, by: str) -> Match:
        async with self._locked(match_id):
            match = self._lobby(match_id)
            if by != match.host_id:
                raise Refusal(_("Only the host can remove computer players."))
            cpus = [s for s in match.seats if s.cpu]
            if not cpus:
                raise Refusal(_("There is no computer player to remove."))
            new = self._copy(match)
            new.seats.remove(cpus[-1])
            return await self._commit(new)

    async def start(self, match_id: int, by: str) -> Match:
        async with self._locked(match_id):
            match = self._lobby(match_id)
            engine = self.engine(match)
            if by != match.host_id:
                raise Refusal(_("Only the host can start the game."))
            count = len(match.seats)
            if not engine.min_players <= count <= engine.max_players:
                raise Refusal(_n("{title} needs {fewest}–{most} players; {n} is seated.",
                                 "{title} needs {fewest}–{most} players; {n} are seated.",
                                 count, title=engine.title, fewest=engine.min_players,
                                 most=engine.max_players))
            try:
                state = engine.new(match.player_ids, match.options, match.seed)
            except IllegalAction as exc:
                raise Refusal(str(exc)) from None
            new = self._copy(match)
            new.state = state
            new.status = ACTIVE
            new.version = 1
            self._start_clock(new)
            started = await self._commit(new)
            computers = sum(1 for s in started.seats if s.cpu)
            log.info("%s game %s started in server %s, channel %s, with %d players (%d "
                     "computer).", engine.title, started.id, started.guild_id,
                     started.channel_id, len(started.seats), computers)
            return started

    async def end(self, match_id: int, by: str, *, can_manage: bool) -> Match:
        """End a match early (host or moderator). Nothing goes to the results table."""
        async with self._locked(match_id):
            match = self._matches.get(match_id)
            if match is None:
                raise Refusal(_("That game has already finished."))
            if by != match.host_id and not can_manage:
                raise Refusal(_("Only the host or someone with Manage Messages can end this game."))
            # Read before the commit: it updates ``match`` in place, to ENDED.
            stage = "lobby" if match.status == LOBBY else "game"
            new = self._copy(match)
            new.status = ENDED
            new.extra["ended_by"] = by
            ended = await self._commit(new)
            log.info("%s %s %s in server %s, channel %s, ended early by %s%s.",
                     self.games[ended.game].engine.title, stage, ended.id, ended.guild_id,
                     ended.channel_id, by, " (the host)" if by == ended.host_id else "")
            return ended

    async def abandon(self, match_id: int, why: str) -> Match | None:
        """The channel is gone (deleted, or the bot lost access): stop the match for good.
        Nothing goes to the results table; computer players stop."""
        async with self._locked(match_id):
            match = self._matches.get(match_id)
            if match is None:
                return None
            new = self._copy(match)
            new.status = ABANDONED
            new.extra["abandoned"] = why
            log.info("Match %s in channel %s abandoned: %s", match_id, match.channel_id, why)
            return await self._commit(new)

    async def expire_lobby(self, match_id: int) -> Match | None:
        """Close a lobby nobody started in time; None if it is no longer a waiting lobby."""
        async with self._locked(match_id):
            match = self._matches.get(match_id)
            if match is None or match.status != LOBBY \
                    or self.clock() < self.lobby_deadline(match):
                return None
            new = self._copy(match)
            new.status = ENDED
            new.extra["expired"] = True
            log.info("Lobby %s in server %s, channel %s closed: nobody started it in time.",
                     match.id, match.guild_id, match.channel_id)
            return await self._commit(new)

    def lobby_deadline(self, match: Match) -> float:
        return match.created_at + self.limits.lobby_seconds

    async def set_table_message(self, match_id: int, message_id: int | None) -> None:
        async with self._locked(match_id):
            match = self._matches.get(match_id)
            if match is not None and match.table_message_id != message_id:
                new = self._copy(match)
                new.table_message_id = message_id
                await self._commit(new)

    # -- playing ------------------------------------------------------------------------

    async def act(
        self,
        match_id: int,
        player: str | None,
        action: JSON,
        *,
        expected_version: int | None = None,
        still_valid: Callable[[Match], bool] | None = None,
        by_computer: bool = False,
        timed_out: bool = False,
    ) -> Outcome:
        """Apply one move under the match's lock and save it before returning.

        ``expected_version`` (or ``still_valid``) ties a click to the board it was made on:
        a click on an earlier board raises StaleBoard and changes nothing.
        """
        async with self._locked(match_id):
            return await self._act(match_id, player, action, expected_version=expected_version,
                                   still_valid=still_valid, by_computer=by_computer,
                                   timed_out=timed_out)

    async def _act(self, match_id: int, player: str | None, action: JSON, *,
                   expected_version: int | None, still_valid: Callable[[Match], bool] | None,
                   by_computer: bool, timed_out: bool) -> Outcome:
        match = self._active(match_id)
        assert match.state is not None
        if player is not None and match.seat(player) is None:
            raise Refusal(_("You are not playing in this game."))
        if expected_version is not None and expected_version != match.version:
            raise StaleBoard(_("That button belongs to an earlier board."))
        if still_valid is not None and not still_valid(match):
            raise StaleBoard(_("That choice belongs to an earlier stage of the game."))
        engine = self.engine(match)
        before_to_act = set(engine.to_act(match.state))
        state, events = engine.apply(match.state, player, action)  # IllegalAction: no change
        new = self._copy(match)
        new.state = state
        new.version += 1
        after_to_act = set(engine.to_act(state))
        if not after_to_act <= before_to_act \
                or timer_seconds(engine, state) != timer_seconds(engine, match.state):
            # Someone new is up, or a phase with its own time limit began or ended (a veto
            # window closing: the next player, who could object, now places a card): the
            # clock starts now. Otherwise others acting leave everyone's clock alone.
            self._start_clock(new)
        result = engine.result(state)
        rows: list[ResultRow] = []
        if result is not None:
            new.status = OVER
            rows = [
                ResultRow(player_id=s.id, name=s.name, cpu=s.cpu,
                          score=int(result.scores.get(s.id, 0)), won=s.id in result.winners,
                          extra=dict(result.extra.get("per_player", {}).get(s.id, {})),
                          level=s.level if s.cpu else None)
                for s in new.seats
            ]
        saved = await self._commit(new, action=action, player=player, by_computer=by_computer,
                                   results=rows)
        if result is not None:
            log.info("%s game %s in server %s, channel %s, finished after %d moves; won by %s.",
                     engine.title, saved.id, saved.guild_id, saved.channel_id, saved.version - 1,
                     ", ".join(saved.name_of(p) for p in result.winners) or "nobody")
        self.undelivered[saved.id] = self.undelivered.get(saved.id, 0) + 1
        return Outcome(match=saved, player=player, action=action, events=events,
                       by_computer=by_computer, timed_out=timed_out)

    async def step_computer(self, match_id: int) -> Outcome | None:
        """Let the first computer player who is due make its move, if any, at its level.

        Easy and normal decide under the match's lock: a few milliseconds at most. Hard
        thinks for up to a second, so it thinks on the state as it is (states are replaced
        whole, never changed in place), without the lock and through ``thinker``: a click
        in the same match is answered meanwhile. If the match moved on while it thought,
        it thinks again from where the match is now.
        """
        while True:
            async with self._locked(match_id):
                match = self._matches.get(match_id)
                if match is None or match.status != ACTIVE or match.state is None:
                    return None
                engine = self.engine(match)
                seat = next((s for p in engine.to_act(match.state)
                             if (s := match.seat(p)) and s.cpu), None)
                if seat is None:
                    return None
                if seat.level != HARD:
                    computer = self.games[match.game].computer
                    action = decide(computer, match.state, seat.id, seat.level, self.budget)
                    return await self._act(match_id, seat.id, action, expected_version=None,
                                           still_valid=None, by_computer=True, timed_out=False)
                game, state, version = match.game, match.state, match.version
            try:
                action = await self.thinker(game, state, seat.id, seat.level, self.budget)
            except Exception:
                # The game goes on: this one move is normal's.
                log.exception("A hard computer move could not be worked out in match %s; "
                              "playing the normal level's move instead.", match_id)
                action = self.games[game].computer.normal(state, seat.id)
            async with self._locked(match_id):
                current = self._matches.get(match_id)
                if current is None or current.status != ACTIVE:
                    return None
                if current.version != version:
                    continue  # someone moved meanwhile: think again from the new state
                return await self._act(match_id, seat.id, action, expected_version=version,
                                       still_valid=None, by_computer=True, timed_out=False)

    async def _think_in_thread(self, game: str, state: JSON, player: str, level: str,
                               budget: Budget) -> JSON:
        return await asyncio.to_thread(decide, self.games[game].computer, state, player, level,
                                       budget)

    def delivered(self, match_id: int) -> None:
        """The channel has been told about one more accepted move of this match."""
        left = self.undelivered.get(match_id, 0) - 1
        if left > 0:
            self.undelivered[match_id] = left
        else:
            self.undelivered.pop(match_id, None)

    def computers_due(self, match: Match) -> bool:
        if match.status != ACTIVE or not has_state(match):
            return False
        return self._due(match)[0]

    def deadline(self, match: Match) -> float | None:
        """When the humans now due run out of time, or None if nobody human is due."""
        if match.status != ACTIVE or match.turn_started_at is None or not has_state(match):
            return None
        _computer, human, limit = self._due(match)
        if not human:
            return None
        if limit is None:
            # The turn time in force when this turn began: a server changing it with
            # /settings changes the next turn, not one whose clock is running.
            pinned = match.extra.get("turn_seconds")
            limit = float(pinned) if isinstance(pinned, (int, float)) \
                else self.servers.turn_seconds(match.guild_id)
        return match.turn_started_at + limit

    async def time_out(self, match_id: int) -> list[Outcome]:
        """Play for every human whose time ran out (the computer player decides)."""
        async with self._locked(match_id):
            match = self._matches.get(match_id)
            if match is None:
                return []
            deadline = self.deadline(match)
            if deadline is None or self.clock() < deadline:
                return []
            engine = self.engine(match)
            outcomes = []
            assert match.state is not None
            timer = engine.timeout_action(match.state)
            if timer is not None:
                player, action = timer
                outcomes.append(await self._act(match_id, player, action, expected_version=None,
                                                still_valid=None, by_computer=True,
                                                timed_out=True))
                return outcomes
            late = [p for p in engine.to_act(match.state) if (s := match.seat(p)) and not s.cpu]
            for player in late:
                # A player may owe several things at once (two sides' goals with two
                # players): the computer does all of what they owe now, no more.
                while (current := self._matches.get(match_id)) is not None \
                        and current.state is not None \
                        and player in engine.to_act(current.state):
                    action = self.games[match.game].computer.normal(current.state, player)
                    outcomes.append(await self._act(match_id, player, action,
                                                    expected_version=None, still_valid=None,
                                                    by_computer=True, timed_out=True))
                    if len(outcomes) > 50:
                        break  # an engine bug must not spin here forever
            return outcomes

    # -- helpers ------------------------------------------------------------------------

    def _due(self, match: Match) -> tuple[bool, bool, float | None]:
        """Who is due in an active match (``DUE``), from what its last move saved with it;
        worked out from its state when that is missing (saved by an older Cityhall)."""
        due = match.extra.get(DUE)
        if isinstance(due, list) and len(due) == 3:
            limit = due[2]
            return bool(due[0]), bool(due[1]), \
                float(limit) if isinstance(limit, (int, float)) else None
        computer, human, limit = self._who_is_due(match)
        # In memory: it is what the saved state says; saved by ``save_who_is_due`` or with
        # the next change.
        match.extra[DUE] = [computer, human, limit]
        self._due_unsaved[match.id] = match.version
        return computer, human, limit

    def _who_is_due(self, match: Match) -> tuple[bool, bool, float | None]:
        state = match.state
        assert state is not None
        engine = self.engine(match)
        seats = [s for p in engine.to_act(state) if (s := match.seat(p)) is not None]
        limit = timer_seconds(engine, state)
        return (any(s.cpu for s in seats), any(not s.cpu for s in seats),
                None if limit is None else float(limit))

    def _lobby(self, match_id: int) -> Match:
        match = self._matches.get(match_id)
        if match is None:
            raise Refusal(_("That game has already finished."))
        if match.status != LOBBY:
            raise Refusal(_("That game has already started."))
        return match

    def _active(self, match_id: int) -> Match:
        match = self._matches.get(match_id)
        if match is None:
            raise Refusal(_("That game has already finished."))
        if match.status == LOBBY:
            raise Refusal(_("The game has not started yet."))
        return match

    def _start_clock(self, match: Match) -> None:
        match.turn_started_at = self.clock()
        match.extra["turn_seconds"] = self.servers.turn_seconds(match.guild_id)

    @staticmethod
    def _copy(match: Match) -> Match:
        # States are replaced whole by the engines, never changed in place: a shallow copy
        # of them is enough (a packed one stays packed); the small mutable parts are copied.
        new = copy.copy(match)
        new.seats = list(match.seats)
        new.options = dict(match.options)
        new.extra = copy.deepcopy(match.extra)
        return new

    async def _commit(self, new: Match, **save: object) -> Match:
        """Save ``new`` and only then let it replace the match in memory."""
        current = self._matches.get(new.id)
        if has_state(new):
            # Every state in memory is the engine's current shape (new, applied, or
            # upgraded on load), so that is the version saved with it.
            new.state_version = self.games[new.game].engine.state_version
        if new.status == ACTIVE and has_state(new):
            if current is None or current.version != new.version \
                    or current.status != new.status or DUE not in new.extra:
                # A new state (every move changes the version): who is due now, saved
                # with it for the next restart.
                new.extra[DUE] = list(self._who_is_due(new))
        else:
            new.extra.pop(DUE, None)
        await self.storage.save(new, **save)  # type: ignore[arg-type]
        if current is not None:
            # Updated in place, so whoever holds the match sees the committed state.
            cache = current.__dict__.get("_cache")
            current.__dict__.update(new.__dict__)
            if isinstance(current, PackedMatch):
                current.keep_in(cache)  # a copy is not counted: the live match is
            new = current
            if new.status == LOBBY:
                self._lobbies.add(new.id)
            else:
                self._lobbies.discard(new.id)
        if new.status not in (LOBBY, ACTIVE):
            self._forget(new)
        return new

    def _forget(self, match: Match) -> None:
        kept = self._matches.pop(match.id, None)
        if kept is None:
            return
        if self._by_channel.get(kept.channel_id) == kept.id:
            del self._by_channel[kept.channel_id]
            # Another unfinished match in that channel (only in an old file): it is found now.
            other = next((m.id for m in self._matches.values()
                          if m.channel_id == kept.channel_id), None) \
                if self._duplicate_channels else None
            if other is not None:
                self._by_channel[kept.channel_id] = other
        in_guild = self._by_guild.get(kept.guild_id)
        if in_guild is not None:
            in_guild.discard(kept.id)
            if not in_guild:
                del self._by_guild[kept.guild_id]
        hosted = self._by_host.get((kept.guild_id, kept.host_id))
        if hosted is not None:
            hosted.discard(kept.id)
            if not hosted:
                del self._by_host[(kept.guild_id, kept.host_id)]
        self._lobbies.discard(kept.id)
        if isinstance(kept, PackedMatch):
            kept.keep_in(None)

    def _busy_sentence(self, match: Match) -> str:
        # Only games this bot runs are ever in memory (load() leaves the others on disk).
        title = self.games[match.game].engine.title
        if match.status == LOBBY:
            return _("This channel already has a lobby of {title} running. Finish it, or ask "
                     "its host to use /game end, before starting another (or start one in a "
                     "thread).", title=title)
        return _("This channel already has a game of {title} running. Finish it, or ask its "
                 "host to use /game end, before starting another (or start one in a thread).",
                 title=title)


def _level_sentence(level: object) -> str:
    return _("{level} is not a computer level: choose easy, normal or hard.",
             level=repr(str(level)[:20]))
