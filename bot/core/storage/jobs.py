"""What the writes do beyond a row or two, as jobs either backend runs: the per-player
totals ``/stats`` reads, the ratings, the archive of a finished game; and the statements that
write a match's row and its state and results."""

from __future__ import annotations

import json
import re
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .. import ratings
from .ops import Job, execute, fetch_all, fetch_one

# -- what the jobs do (in the writer thread, or a PostgreSQL transaction) -------------------


def _compact(value: Any) -> str:
    """JSON without spaces: what a row's figures (``extra``) are stored as."""
    return json.dumps(value, separators=(",", ":"))


def _add_to_totals(guild_id: int, game: str, player_id: str, name: str, score: int, won: bool,
                   extra: dict[str, Any]) -> Job[None]:
    row = yield fetch_one("SELECT games, wins, best, extra FROM player_totals WHERE guild_id=?"
                          " AND game=? AND player_id=?", (guild_id, game, player_id))
    numbers = {k: v for k, v in extra.items() if isinstance(v, int) and not isinstance(v, bool)}
    if row is None:
        yield execute("INSERT INTO player_totals (guild_id, game, player_id, name, games, wins,"
                      " best, extra) VALUES (?,?,?,?,?,?,?,?)",
                      (guild_id, game, player_id, name, 1, int(won), score, _compact(numbers)))
        return
    games, wins, best, old = row
    summed = json.loads(old)
    for key, value in numbers.items():
        summed[key] = summed.get(key, 0) + value
    yield execute("UPDATE player_totals SET name=?, games=?, wins=?, best=?, extra=?"
                  " WHERE guild_id=? AND game=? AND player_id=?",
                  (name, games + 1, wins + int(won), max(best, score), _compact(summed),
                   guild_id, game, player_id))


def _recount_totals(guild_id: int, game: str, player_id: str) -> Job[None]:
    """A game's results were written again (a replaced result): count the player afresh."""
    yield execute("DELETE FROM player_totals WHERE guild_id=? AND game=? AND player_id=?",
                  (guild_id, game, player_id))
    for name, score, won, extra in (yield fetch_all(
            "SELECT name, score, won, extra FROM results WHERE guild_id=? AND game=?"
            " AND player_id=? AND cpu=0 ORDER BY finished_at", (guild_id, game, player_id))):
        yield from _add_to_totals(guild_id, game, player_id, name, score, bool(won),
                                  json.loads(extra))


@dataclass(frozen=True)
class RatedSeat:
    """One seat of a finished game as the ratings see it."""

    rating_id: str  # ratings.rating_id(): a Discord id, or "cpu:<level>"
    name: str
    cpu: bool
    score: int
    won: bool


def cpu_name(rating_id: str) -> str:
    """The name a computer level's rating row carries ("Computer (hard)"); the cogs show it
    in the reader's language from the id instead."""
    return f"Computer ({rating_id.removeprefix('cpu:')})"


def _season_at(guild_id: int, at: float) -> Job[int]:
    """The server's season at time ``at``: the last one started by then, else 1."""
    row = yield fetch_one("SELECT MAX(season) FROM rating_seasons WHERE guild_id=? AND"
                          " started_at <= ?", (guild_id, at))
    return 1 if row is None or row[0] is None else int(row[0])


_LOCK_RATING = (
    "INSERT INTO ratings (guild_id, game, season, player_id, name, cpu, mu, sigma, rating,"
    " games, updated_at) VALUES (?,?,?,?,?,?,?,?,?,0,?) ON CONFLICT (guild_id, game, season,"
    " player_id) DO UPDATE SET games=ratings.games")


def _lock_ratings(guild_id: int, game: str, season: int, seats: Sequence[RatedSeat]
                  ) -> Job[tuple[dict[str, ratings.Standing], float]]:
    """Make sure every rated player of the game has a row, and hold those rows until the
    commit (PostgreSQL: another game finishing at once with one of them waits, so the two
    are rated one after the other, in the order of their finishing times). In the order of
    their ids, so two games can never wait for each other. Returns their standings, and the
    last time any of them was rated (0 for none)."""
    standings: dict[str, ratings.Standing] = {}
    last = 0.0
    for rid in sorted({s.rating_id for s in seats}):
        seat = next(s for s in seats if s.rating_id == rid)
        name = cpu_name(rid) if seat.cpu else seat.name
        yield execute(_LOCK_RATING, (guild_id, game, season, rid, name, int(seat.cpu),
                                     ratings.START_MU, ratings.START_SIGMA,
                                     ratings.START_RATING, 0.0))
        mu, sigma, games, updated_at = yield fetch_one(
            "SELECT mu, sigma, games, updated_at FROM ratings WHERE guild_id=? AND game=?"
            " AND season=? AND player_id=?", (guild_id, game, season, rid))
        standings[rid] = ratings.Standing(mu=mu, sigma=sigma, games=games)
        last = max(last, float(updated_at))
    return standings, last


def _finish_and_lock(guild_id: int, game: str, seats: Sequence[RatedSeat]
                     ) -> Job[tuple[float, int, dict[str, ratings.Standing]]]:
    """A game finishing now: its players' rating rows held (``_lock_ratings``), then its
    finishing time taken, later than any of their earlier games' (so the finishing order,
    which ``--rebuild`` follows, is the order they were rated in), and the season of that
    time. Returns (finished_at, season, standings before the game)."""
    season = yield from _season_at(guild_id, time.time())
    standings, last = yield from _lock_ratings(guild_id, game, season, seats)
    finished_at = max(time.time(), last + 1e-6)
    if (yield from _season_at(guild_id, finished_at)) != season:  # a season began meanwhile
        season = yield from _season_at(guild_id, finished_at)
        standings, last = yield from _lock_ratings(guild_id, game, season, seats)
        finished_at = max(finished_at, last + 1e-6)
    return finished_at, season, standings


def _rate_game(match_id: int, guild_id: int, game: str, seats: Sequence[RatedSeat],
               finished_at: float, season: int,
               standings: dict[str, ratings.Standing]) -> Job[dict[str, ratings.Change]]:
    """Rate one finished game: every player's new rating and one rating_changes row each.
    ``standings`` are the players' ratings before it (``_lock_ratings``)."""
    changes = ratings.rate([ratings.Seat(s.rating_id, s.score, s.won) for s in seats],
                           standings)
    for rid, change in sorted(changes.items()):
        seat = next(s for s in seats if s.rating_id == rid)
        after = change.after
        yield execute("UPDATE ratings SET name=?, mu=?, sigma=?, rating=?, games=?,"
                      " updated_at=? WHERE guild_id=? AND game=? AND season=? AND player_id=?",
                      (cpu_name(rid) if seat.cpu else seat.name, after.mu, after.sigma,
                       after.rating, after.games, finished_at, guild_id, game, season, rid))
        yield execute("INSERT INTO rating_changes (match_id, player_id, guild_id, game, season,"
                      " place, mu, sigma, rating, before, finished_at)"
                      " VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                      (match_id, rid, guild_id, game, season, change.place, after.mu,
                       after.sigma, after.rating, change.before.rating, finished_at))
    return changes


def _rated_seats(results: Sequence[tuple[str, str, int, int, int]],
                 levels: dict[str, str]) -> list[RatedSeat]:
    """(player_id, name, cpu, score, won) rows of one game, and its computer seats' levels
    (seat id -> level, from the match's seats), as the ratings see them."""
    return [RatedSeat(ratings.rating_id(pid, bool(cpu), levels.get(pid)), name, bool(cpu),
                      score, bool(won)) for pid, name, cpu, score, won in results]


def seat_levels(seats_json: str) -> dict[str, str]:
    """Each computer seat's level in a match's stored seats (JSON), normal when unsaid."""
    return {str(s["id"]): str(s.get("level") or "normal")
            for s in json.loads(seats_json) if s.get("cpu")}


def _rebuild_ratings() -> Job[dict[str, int]]:
    """Every rating computed again from the stored results, in the order the games
    finished, per server, game and season; the ratings and rating changes are written anew.
    Returns how many ratings and changes differed from the stored ones ("ratings",
    "changes"), and how many games were rated ("games")."""
    old_ratings = {tuple(r[:4]): tuple(r[4:]) for r in (yield fetch_all(
        "SELECT guild_id, game, season, player_id, rating, games FROM ratings"))}
    old_changes = {tuple(r[:2]): tuple(r[2:]) for r in (yield fetch_all(
        "SELECT match_id, player_id, season, place, rating, before FROM rating_changes"))}
    yield execute("DELETE FROM rating_changes")
    yield execute("DELETE FROM ratings")
    games = yield from _rate_every_result()
    new_ratings = {tuple(r[:4]): tuple(r[4:]) for r in (yield fetch_all(
        "SELECT guild_id, game, season, player_id, rating, games FROM ratings"))}
    new_changes = {tuple(r[:2]): tuple(r[2:]) for r in (yield fetch_all(
        "SELECT match_id, player_id, season, place, rating, before FROM rating_changes"))}
    return {"games": games,
            "ratings": sum(1 for k in old_ratings.keys() | new_ratings.keys()
                           if old_ratings.get(k) != new_ratings.get(k)),
            "changes": sum(1 for k in old_changes.keys() | new_changes.keys()
                           if old_changes.get(k) != new_changes.get(k))}


def _rate_every_result() -> Job[int]:
    """Rate every game with results, in finishing order (schema 4's upgrade and the
    rebuild). Returns how many games were rated."""
    rows = yield fetch_all(
        "SELECT r.match_id, r.guild_id, r.game, r.player_id, r.name, r.cpu, r.score, r.won,"
        " r.finished_at, m.seats FROM results r JOIN matches m ON m.id = r.match_id"
        " WHERE m.status = 'over' ORDER BY r.finished_at, r.match_id, r.player_id")
    games: dict[int, list[Any]] = {}
    for row in rows:
        games.setdefault(row[0], []).append(row)
    for match_id, seats in games.items():
        _, guild_id, game, *_rest = seats[0]
        finished_at = min(r[8] for r in seats)
        levels = seat_levels(seats[0][9])
        rated = _rated_seats([(r[3], r[4], r[5], r[6], r[7]) for r in seats], levels)
        if len(rated) < 2:
            continue
        season = yield from _season_at(guild_id, finished_at)
        standings, _last = yield from _lock_ratings(guild_id, game, season, rated)
        yield from _rate_game(match_id, guild_id, game, rated, finished_at, season, standings)
    return len(games)


def _new_season(guild_id: int) -> Job[int]:
    """Start the server's next rating season now; returns its number."""
    now = time.time()
    row = yield fetch_one("SELECT MAX(season), MAX(started_at) FROM rating_seasons"
                          " WHERE guild_id=?", (guild_id,))
    current = 1 if row is None or row[0] is None else int(row[0])
    # A season starts after the last one did, even if the clock went back.
    started = now if row is None or row[1] is None else max(now, float(row[1]) + 1e-3)
    yield execute("INSERT INTO rating_seasons (guild_id, season, started_at) VALUES (?,?,?)",
                  (guild_id, current + 1, started))
    return current + 1


def encode_log(entries: Sequence[Sequence[Any]]) -> bytes:
    """A finished game's moves, ``[seq, player, action, by_computer, at]`` each, as its archive
    row keeps them (format 2): zlib of the JSON object ``{"v": 2, "p": players, "s": first seq,
    "t": first time, "a": moves}``, each move ``[player's index in p, action, whole seconds
    since the move before]``, then ``1`` if a computer made it (or ``0`` before a seq), then
    its seq if it is not the one before plus one. Times are kept to the second; the players'
    ids once each: a Cities game's 300 moves come to about 1.5 KB, not 3.5."""
    players: list[str | None] = []
    moves: list[list[Any]] = []
    first_seq = int(entries[0][0]) if entries else 0
    first_at = round(float(entries[0][4])) if entries else 0
    seq, at = first_seq - 1, first_at
    for entry_seq, player, action, by_computer, entry_at in entries:
        if player not in players:
            players.append(player)
        second = round(float(entry_at))
        move: list[Any] = [players.index(player), action, second - at]
        gap = int(entry_seq) != seq + 1
        if by_computer or gap:
            move.append(int(bool(by_computer)))
        if gap:
            move.append(int(entry_seq))
        moves.append(move)
        seq, at = int(entry_seq), second
    body = {"v": 2, "p": players, "s": first_seq, "t": first_at, "a": moves}
    return zlib.compress(json.dumps(body, separators=(",", ":")).encode(), 9)


def decode_log(blob: bytes) -> list[list[Any]]:
    """The moves of an archive row, ``[seq, player, action, by_computer, at]`` each, in
    either format: 2 (``encode_log``) or 1 (schema 2 to 4: that list itself)."""
    data = json.loads(zlib.decompress(blob))
    if isinstance(data, list):
        return data
    players, seq, at = data["p"], int(data["s"]) - 1, int(data["t"])
    entries: list[list[Any]] = []
    for move in data["a"]:
        at += int(move[2])
        seq = int(move[4]) if len(move) > 4 else seq + 1
        by_computer = int(move[3]) if len(move) > 3 else 0
        entries.append([seq, players[move[0]], move[1], by_computer, at])
    return entries


def _archive(match_id: int, keep_state: bool = True) -> Job[None]:
    """Fold a finished match's action log (``encode_log``) and final state into one
    compressed row. Without ``keep_state`` the state is left out when the moves replay to it
    (the replay contract: ``Storage.final_state`` makes it again), unless the game was
    archived with a state before (one saved by an older Cityhall, kept as it was)."""
    rows = yield fetch_all("SELECT seq, player, action, by_computer, at FROM actions"
                           " WHERE match_id=? ORDER BY seq", (match_id,))
    entries = [[seq, player, json.loads(action), by_computer, at]
               for seq, player, action, by_computer, at in rows]
    old = yield fetch_one("SELECT actions, state, state_version FROM archive WHERE match_id=?",
                          (match_id,))
    if old is not None:
        # Saved again after it was archived (a table message id, say): keep the log.
        entries = decode_log(old[0]) + entries
    state = yield fetch_one("SELECT state, state_version FROM match_states WHERE match_id=?",
                            (match_id,))
    state_blob = None if state is None else zlib.compress(state[0].encode(), 9)
    state_version = 1 if state is None else state[1]
    if old is not None and old[1] is not None:
        keep_state = True  # a state archived before is kept: it may not be reproducible
        if state_blob is None:
            state_blob, state_version = old[1], old[2]
    if not keep_state and entries:
        state_blob, state_version = None, 1
    yield execute(_UPSERT_ARCHIVE,
                  (match_id, encode_log(entries), state_blob, state_version))
    yield execute("DELETE FROM actions WHERE match_id=?", (match_id,))
    yield execute("DELETE FROM match_states WHERE match_id=?", (match_id,))


# Upserts both databases know (SQLite 3.24 and later), where SQLite alone had INSERT OR
# REPLACE; the row ends up the same.
_UPSERT_ARCHIVE = (
    "INSERT INTO archive (match_id, actions, state, state_version) VALUES (?,?,?,?)"
    " ON CONFLICT (match_id) DO UPDATE SET actions=excluded.actions, state=excluded.state,"
    " state_version=excluded.state_version")
_UPSERT_STATE = (
    "INSERT INTO match_states (match_id, state, state_version) VALUES (?,?,?)"
    " ON CONFLICT (match_id) DO UPDATE SET state=excluded.state,"
    " state_version=excluded.state_version")
# A result written again keeps its first finishing time: the order the ratings were made in.
_UPSERT_RESULT = (
    "INSERT INTO results (match_id, guild_id, game, player_id, name, cpu, score, won, extra,"
    " finished_at) VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT (match_id, player_id) DO UPDATE"
    " SET guild_id=excluded.guild_id, game=excluded.game, name=excluded.name,"
    " cpu=excluded.cpu, score=excluded.score, won=excluded.won, extra=excluded.extra")


_INSERT_MATCH = (
    "INSERT INTO matches (guild_id, channel_id, game, status, host_id, seats, options, seed,"
    " state, version, table_message_id, turn_started_at, extra, created_at, updated_at)"
    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
_UPDATE_MATCH = (
    "UPDATE matches SET guild_id=?, channel_id=?, game=?, status=?, host_id=?, seats=?,"
    " options=?, seed=?, state=?, version=?, table_message_id=?, turn_started_at=?, extra=?,"
    " updated_at=? WHERE id=?")


# -- forgetting a member (python -m bot forget) ---------------------------------------------

FORGOTTEN_NAME = "Forgotten player"


@dataclass(frozen=True)
class Forgotten:
    """What ``Storage.forget`` did, or why it did nothing."""

    unfinished: list[tuple[int, int, int, str]]  # (match, server, channel, game): refused
    rows: dict[str, int]  # rows deleted or rewritten, by table
    names: list[str]  # the names they had, which were replaced


class _Scrub:
    """Replaces a member's id and names in a JSON value: an id wherever it appears (as a
    value, a key, a number, or inside a longer string such as a mention), a name as a whole
    string or as a whole word in a longer one (only in games they sat in: in another game
    the same name is someone else's)."""

    def __init__(self, user_id: str, names: Sequence[str], new_id: str) -> None:
        self.user_id, self.new_id = user_id, new_id
        self.names = sorted({n for n in names if n}, key=len, reverse=True)
        self.words = [re.compile(r"(?<!\w)" + re.escape(n) + r"(?!\w)") for n in self.names]

    def text(self, value: str) -> str:
        if value == self.user_id:
            return self.new_id
        if value in self.names:
            return FORGOTTEN_NAME
        value = value.replace(self.user_id, self.new_id)
        for word in self.words:
            value = word.sub(FORGOTTEN_NAME, value)
        return value

    def json(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, bool):
            return value
        if isinstance(value, int):
            return int(self.new_id) if str(value) == self.user_id else value
        if isinstance(value, list):
            return [self.json(v) for v in value]
        if isinstance(value, dict):
            return {self.text(k): self.json(v) for k, v in value.items()}
        return value

    def dumps(self, text: str, *, compact: bool = True) -> str:
        scrubbed = self.json(json.loads(text))
        return json.dumps(scrubbed, separators=(",", ":")) if compact else json.dumps(scrubbed)

    def blob(self, data: bytes | None) -> bytes | None:
        return None if data is None else zlib.compress(
            self.dumps(zlib.decompress(data).decode()).encode(), 9)


def _free_id(seats: list[dict[str, Any]], user_id: str) -> str:
    """The id a forgotten member's seat takes: the smallest number no other seat has ("0"
    first; Discord shows a mention of it as an unknown user)."""
    taken = {str(s.get("id")) for s in seats if str(s.get("id")) != user_id}
    number = 0
    while str(number) in taken:
        number += 1
    return str(number)


def _forget(user_id: str) -> Job[Forgotten]:
    """Remove a member's rows and anonymise their seats in stored games (see
    ``Storage.forget``). Nothing is changed while they sit in an unfinished game."""
    like = f"%{user_id}%"
    unfinished = [(int(r[0]), int(r[1]), int(r[2]), str(r[3])) for r in (yield fetch_all(
        "SELECT id, guild_id, channel_id, game, host_id, seats FROM matches"
        " WHERE status IN ('lobby', 'active')"
        " AND (host_id=? OR seats LIKE ?) ORDER BY id", (user_id, like)))
        if user_id == r[4] or any(str(s.get("id")) == user_id for s in json.loads(r[5]))]
    if unfinished:
        return Forgotten(unfinished, {}, [])
    names: set[str] = set()
    for sql in ("SELECT DISTINCT name FROM results WHERE player_id=?",
                "SELECT DISTINCT name FROM player_totals WHERE player_id=?",
                "SELECT DISTINCT name FROM ratings WHERE player_id=?"):
        names.update(str(r[0]) for r in (yield fetch_all(sql, (user_id,))))
    counts: dict[str, int] = {}
    # the matches that name them: their seat's name there is theirs too
    matches = yield fetch_all("SELECT id, host_id, seats, options, extra FROM matches"
                              " WHERE host_id=? OR seats LIKE ? OR options LIKE ?"
                              " OR extra LIKE ?", (user_id, like, like, like))
    for _match_id, _host, seats_text, _options, _extra in matches:
        names.update(str(s.get("name")) for s in json.loads(seats_text)
                     if str(s.get("id")) == user_id)
    seated: dict[int, _Scrub] = {}
    for match_id, host, seats_text, options, extra in matches:
        seats = json.loads(seats_text)
        sat = any(str(s.get("id")) == user_id for s in seats)
        scrub = _Scrub(user_id, sorted(names) if sat else [], _free_id(seats, user_id))
        seated[int(match_id)] = scrub
        yield execute("UPDATE matches SET host_id=?, seats=?, options=?, extra=? WHERE id=?",
                      (scrub.text(host), json.dumps(scrub.json(seats)),
                       scrub.dumps(options, compact=False), scrub.dumps(extra, compact=False),
                       match_id))
    counts["matches"] = len(matches)
    for table, key in (("results", "player_id"), ("player_totals", "player_id"),
                       ("ratings", "player_id"), ("rating_changes", "player_id")):
        counts[table] = yield execute(f"DELETE FROM {table} WHERE {key}=?", (user_id,))
    # live states and moves of those matches (finished ones are archived, but a game saved
    # before its archive was written keeps them here)
    counts["match_states"] = counts["actions"] = counts["archive"] = 0
    for match_id, scrub in seated.items():
        state = yield fetch_one("SELECT state FROM match_states WHERE match_id=?", (match_id,))
        if state is not None:
            yield execute("UPDATE match_states SET state=? WHERE match_id=?",
                          (scrub.dumps(state[0]), match_id))
            counts["match_states"] += 1
        for seq, player, action in (yield fetch_all(
                "SELECT seq, player, action FROM actions WHERE match_id=?", (match_id,))):
            yield execute("UPDATE actions SET player=?, action=? WHERE match_id=? AND seq=?",
                          (None if player is None else scrub.text(player), scrub.dumps(action),
                           match_id, seq))
            counts["actions"] += 1
    # archived games: the id may be in any of them (a move naming another player), so each
    # is opened; names only in the games they sat in
    for match_id, actions_blob, state_blob in (yield fetch_all(
            "SELECT match_id, actions, state FROM archive")):
        scrub = seated.get(int(match_id)) or _Scrub(user_id, [], "0")
        log = zlib.decompress(actions_blob).decode()
        state = None if state_blob is None else zlib.decompress(state_blob).decode()
        if scrub.names or user_id in log or (state is not None and user_id in state):
            yield execute("UPDATE archive SET actions=?, state=? WHERE match_id=?",
                          (scrub.blob(actions_blob), scrub.blob(state_blob), match_id))
            counts["archive"] += 1
    # the bot's own values: their /notify choice and any key naming them go; a value naming
    # them (a turn reminder's list of pinged players) is kept without them
    counts["kv"] = 0
    for key, value in (yield fetch_all("SELECT key, value FROM kv WHERE key LIKE ? OR"
                                       " value LIKE ?", (like, like))):
        if user_id in key:
            yield execute("DELETE FROM kv WHERE key=?", (key,))
        else:
            scrub = _Scrub(user_id, [], "0")
            try:
                new = scrub.dumps(value, compact=False)
            except ValueError:
                new = scrub.text(value)
            yield execute("UPDATE kv SET value=? WHERE key=?", (new, key))
        counts["kv"] += 1
    return Forgotten([], counts, sorted(names))
