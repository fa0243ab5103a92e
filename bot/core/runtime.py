"""The match runtime: lobbies, seats, and every move of every game, saved before answered.

It knows engines and storage but nothing of Discord: the cogs call it with player ids and
actions and get back the saved match and what happened, or an exception whose text is a
sentence for the player.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.games import GAMES

from .engine import JSON, Engine, IllegalAction, timer_seconds
from .records import ACTIVE, ENDED, LOBBY, OVER, Match, Seat
from .storage import ChannelBusy, ResultRow, Storage

log = logging.getLogger(__name__)

CPU_NAMES = ("Ada", "Babbage", "Colossus", "Deep Blue", "Eliza", "Fermi")


class Refusal(Exception):
    """A request the runtime turns down; ``str(exc)`` is a sentence for the player."""


class StaleBoard(Refusal):
    """The click came from an earlier board than the current one."""


@dataclass
class Outcome:
    """One accepted move: the match as saved afterwards, and the engine's events."""

    match: Match
    player: str | None
    action: JSON
    events: list[JSON]
    by_computer: bool = False
    timed_out: bool = False
    extra: JSON = field(default_factory=dict)


class Runtime:
    def __init__(self, storage: Storage, *, clock: Callable[[], float] = time.time,
                 turn_seconds: float = 180.0) -> None:
        self.storage = storage
        self.clock = clock
        self.turn_seconds = turn_seconds
        self._matches: dict[int, Match] = {}
        self._locks: dict[int, asyncio.Lock] = {}
        # Accepted moves whose news has not gone out yet, per match: `act` adds one, the
        # bot's `after_move` takes it off when the channel has been told (tests wait on it).
        self.undelivered: dict[int, int] = {}

    # -- loading ----------------------------------------------------------------------

    async def load(self) -> list[Match]:
        """Bring every unfinished match back after a start or restart."""
        matches = await self.storage.unfinished()
        self._matches = {m.id: m for m in matches}
        return matches

    def get(self, match_id: int) -> Match | None:
        return self._matches.get(match_id)

    async def fetch(self, match_id: int) -> Match | None:
        """An unfinished match from memory, or any match from the database."""
        return self._matches.get(match_id) or await self.storage.get(match_id)

    def in_channel(self, channel_id: int) -> Match | None:
        return next((m for m in self._matches.values() if m.channel_id == channel_id), None)

    def unfinished(self) -> list[Match]:
        return list(self._matches.values())

    def engine(self, match: Match) -> Engine:
        return GAMES[match.game]

    def lock(self, match_id: int) -> asyncio.Lock:
        return self._locks.setdefault(match_id, asyncio.Lock())

    # -- the lobby ----------------------------------------------------------------------

    async def open_lobby(self, guild_id: int, channel_id: int, game: str, host: Seat,
                         options: JSON) -> Match:
        engine = GAMES[game]
        busy = self.in_channel(channel_id)
        if busy is not None:
            raise Refusal(_busy_sentence(busy))
        # Check the options now, with placeholder players, so a bad option is refused at
        # /new rather than at Start.
        engine.new([f"p{i}" for i in range(engine.min_players)], options, 0)
        match = Match(
            id=0, guild_id=guild_id, channel_id=channel_id, game=game, status=LOBBY,
            host_id=host.id, seats=[host], options=dict(options),
            seed=random.SystemRandom().randrange(1, 2**31),
        )
        try:
            await self.storage.create_match(match)
        except ChannelBusy:
            raise Refusal("This channel already has a game; use /game status to see it.") from None
        self._matches[match.id] = match
        return match

    async def join(self, match_id: int, seat: Seat) -> Match:
        async with self.lock(match_id):
            match = self._lobby(match_id)
            engine = self.engine(match)
            if match.seat(seat.id):
                raise Refusal("You are already in this game.")
            if len(match.seats) >= engine.max_players:
                raise Refusal(f"{engine.title} is for at most {engine.max_players} players; "
                              "the table is full.")
            match.seats.append(seat)
            await self.storage.save(match)
            return match

    async def leave(self, match_id: int, player_id: str) -> Match:
        async with self.lock(match_id):
            match = self._lobby(match_id)
            if not match.seat(player_id):
                raise Refusal("You are not in this game.")
            if player_id == match.host_id:
                raise Refusal("You are the host: use Cancel to close the lobby instead.")
            match.seats = [s for s in match.seats if s.id != player_id]
            await self.storage.save(match)
            return match

    async def add_computer(self, match_id: int, by: str) -> Match:
        async with self.lock(match_id):
            match = self._lobby(match_id)
            engine = self.engine(match)
            if by != match.host_id:
                raise Refusal("Only the host can add computer players.")
            if len(match.seats) >= engine.max_players:
                raise Refusal(f"{engine.title} is for at most {engine.max_players} players; "
                              "the table is full.")
            taken = {s.id for s in match.seats}
            number = next(i for i in range(1, 100) if f"cpu{i}" not in taken)
            name = f"{CPU_NAMES[(number - 1) % len(CPU_NAMES)]} (computer)"
            match.seats.append(Seat(id=f"cpu{number}", name=name, cpu=True))
            await self.storage.save(match)
            return match

    async def remove_computer(self, match_id: int, by: str) -> Match:
        async with self.lock(match_id):
            match = self._lobby(match_id)
            if by != match.host_id:
                raise Refusal("Only the host can remove computer players.")
            cpus = [s for s in match.seats if s.cpu]
            if not cpus:
                raise Refusal("There is no computer player to remove.")
            match.seats.remove(cpus[-1])
            await self.storage.save(match)
            return match

    async def start(self, match_id: int, by: str) -> Match:
        async with self.lock(match_id):
            match = self._lobby(match_id)
            engine = self.engine(match)
            if by != match.host_id:
                raise Refusal("Only the host can start the game.")
            count = len(match.seats)
            if not engine.min_players <= count <= engine.max_players:
                raise Refusal(f"{engine.title} needs {engine.min_players}–{engine.max_players} "
                              f"players; {count} {'is' if count == 1 else 'are'} seated.")
            try:
                state = engine.new(match.player_ids, match.options, match.seed)
            except IllegalAction as exc:
                raise Refusal(str(exc)) from None
            match.state = state
            match.status = ACTIVE
            match.version = 1
            match.turn_started_at = self.clock()
            await self.storage.save(match)
            return match

    async def end(self, match_id: int, by: str, *, can_manage: bool) -> Match:
        """End a match early (host or moderator). Nothing goes to the results table."""
        async with self.lock(match_id):
            match = self._matches.get(match_id)
            if match is None:
                raise Refusal("That game has already finished.")
            if by != match.host_id and not can_manage:
                raise Refusal("Only the host or someone with Manage Messages can end this game.")
            match.status = ENDED
            match.extra["ended_by"] = by
            await self.storage.save(match)
            self._forget(match)
            return match

    async def set_table_message(self, match_id: int, message_id: int | None) -> None:
        async with self.lock(match_id):
            match = self._matches.get(match_id)
            if match is not None and match.table_message_id != message_id:
                match.table_message_id = message_id
                await self.storage.save(match)

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
        async with self.lock(match_id):
            return await self._act(match_id, player, action, expected_version=expected_version,
                                   still_valid=still_valid, by_computer=by_computer,
                                   timed_out=timed_out)

    async def _act(self, match_id: int, player: str | None, action: JSON, *,
                   expected_version: int | None, still_valid: Callable[[Match], bool] | None,
                   by_computer: bool, timed_out: bool) -> Outcome:
        match = self._active(match_id)
        assert match.state is not None
        if player is not None and match.seat(player) is None:
            raise Refusal("You are not playing in this game.")
        if expected_version is not None and expected_version != match.version:
            raise StaleBoard("That button belongs to an earlier board.")
        if still_valid is not None and not still_valid(match):
            raise StaleBoard("That choice belongs to an earlier stage of the game.")
        engine = self.engine(match)
        before_to_act = set(engine.to_act(match.state))
        state, events = engine.apply(match.state, player, action)  # IllegalAction: no change
        old = (match.state, match.version, match.status, match.turn_started_at)
        match.state = state
        match.version += 1
        after_to_act = set(engine.to_act(state))
        if not after_to_act <= before_to_act:
            # Someone new is up: their clock starts now. Others keep their own.
            match.turn_started_at = self.clock()
        result = engine.result(state)
        rows: list[ResultRow] = []
        if result is not None:
            match.status = OVER
            rows = [
                ResultRow(player_id=s.id, name=s.name, cpu=s.cpu,
                          score=int(result.scores.get(s.id, 0)), won=s.id in result.winners,
                          extra=dict(result.extra.get("per_player", {}).get(s.id, {})))
                for s in match.seats
            ]
        try:
            await self.storage.save(match, action=action, player=player,
                                    by_computer=by_computer, results=rows)
        except Exception:
            match.state, match.version, match.status, match.turn_started_at = old
            raise
        if result is not None:
            self._forget(match)
        self.undelivered[match.id] = self.undelivered.get(match.id, 0) + 1
        return Outcome(match=match, player=player, action=action, events=events,
                       by_computer=by_computer, timed_out=timed_out)

    async def step_computer(self, match_id: int) -> Outcome | None:
        """Let the first computer player who is due make its move, if any."""
        async with self.lock(match_id):
            match = self._matches.get(match_id)
            if match is None or match.status != ACTIVE or match.state is None:
                return None
            engine = self.engine(match)
            due = [p for p in engine.to_act(match.state) if (s := match.seat(p)) and s.cpu]
            if not due:
                return None
            action = engine.ai_action(match.state, due[0])
            return await self._act(match_id, due[0], action, expected_version=None,
                                   still_valid=None, by_computer=True, timed_out=False)

    def delivered(self, match_id: int) -> None:
        """The channel has been told about one more accepted move of this match."""
        left = self.undelivered.get(match_id, 0) - 1
        if left > 0:
            self.undelivered[match_id] = left
        else:
            self.undelivered.pop(match_id, None)

    def computers_due(self, match: Match) -> bool:
        if match.status != ACTIVE or match.state is None:
            return False
        return any((s := match.seat(p)) and s.cpu for p in self.engine(match).to_act(match.state))

    def deadline(self, match: Match) -> float | None:
        """When the humans now due run out of time, or None if nobody human is due."""
        if match.status != ACTIVE or match.state is None or match.turn_started_at is None:
            return None
        engine = self.engine(match)
        if not any(not s.cpu for p in engine.to_act(match.state) if (s := match.seat(p))):
            return None
        limit = timer_seconds(engine, match.state)
        return match.turn_started_at + (self.turn_seconds if limit is None else limit)

    async def time_out(self, match_id: int) -> list[Outcome]:
        """Play for every human whose time ran out (the computer player decides)."""
        async with self.lock(match_id):
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
                    action = engine.ai_action(current.state, player)
                    outcomes.append(await self._act(match_id, player, action,
                                                    expected_version=None, still_valid=None,
                                                    by_computer=True, timed_out=True))
                    if len(outcomes) > 50:
                        break  # an engine bug must not spin here forever
            return outcomes

    # -- helpers ------------------------------------------------------------------------

    def _lobby(self, match_id: int) -> Match:
        match = self._matches.get(match_id)
        if match is None:
            raise Refusal("That game has already finished.")
        if match.status != LOBBY:
            raise Refusal("That game has already started.")
        return match

    def _active(self, match_id: int) -> Match:
        match = self._matches.get(match_id)
        if match is None:
            raise Refusal("That game has already finished.")
        if match.status == LOBBY:
            raise Refusal("The game has not started yet.")
        return match

    def _forget(self, match: Match) -> None:
        self._matches.pop(match.id, None)


def _busy_sentence(match: Match) -> str:
    title = GAMES[match.game].title if match.game in GAMES else match.game
    stage = "a lobby" if match.status == LOBBY else "a game"
    return (f"This channel already has {stage} of {title} running. Finish it, or ask its host "
            "to use /game end, before starting another (or start one in a thread).")
