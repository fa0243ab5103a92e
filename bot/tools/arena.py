"""``python -m bot arena``: computer players of chosen levels against each other.

Games are seat-rotated: each deal (seed) is played once per seat rotation, so every level
plays every seat of every deal and neither the deal nor the first move favours one level.
Reported per level: wins (a shared win counts as a fraction) with a Wilson 95 % interval,
mean score and its spread, and the time its moves took (p50, p95, max).
"""

from __future__ import annotations

import json
import math
import statistics
import time
from dataclasses import dataclass, field

from bot.core.engine import JSON
from bot.core.levels import LEVELS, Budget, decide
from bot.games import GAMES
from bot.games.bigcity.content import BUILDINGS
from bot.tools.simulate import NAMES, next_player

SPECIAL_BUILDINGS = frozenset(b for b, info in BUILDINGS.items() if info[2] == "special")

Z95 = 1.959963984540054


def wilson(wins: float, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95 % by default)."""
    if games <= 0:
        return (0.0, 1.0)
    p = wins / games
    denominator = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denominator
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def lineup(levels: list[str], players: int) -> list[str]:
    """The level of each seat: as listed, the last one repeated for the remaining seats."""
    if not levels:
        raise ValueError("name at least one level")
    unknown = [lv for lv in levels if lv not in LEVELS]
    if unknown:
        raise ValueError(f"unknown level {unknown[0]!r}; levels are {', '.join(LEVELS)}")
    if len(levels) > players:
        raise ValueError(f"{len(levels)} levels for {players} players")
    return list(levels) + [levels[-1]] * (players - len(levels))


def tag(action: JSON) -> str:
    """What kind of move an action is, for the counts of rule use: its type, refined where
    the rules have a move worth telling apart (a risk field, the star space, Big City's
    special buildings; its parks and factories are the action ``special``)."""
    kind = str(action.get("type", "?"))
    if kind == "place" and "risk" in action:
        return "place_risk"
    if kind == "build" and action.get("building") in SPECIAL_BUILDINGS:
        return "build_special"  # Big City's city hall, church, cinema, post office, ...
    if kind == "take":
        if action.get("row") == "pieces" and action.get("slot") == 4:
            return "take_star"
        return f"take_{action.get('row')}"
    return kind


@dataclass
class Tally:
    seats: int = 0  # seat-games played at this level
    wins: float = 0.0
    scores: list[int] = field(default_factory=list)
    move_ms: list[float] = field(default_factory=list)
    moves: dict[str, int] = field(default_factory=dict)
    tally: dict[str, float] = field(default_factory=dict)  # the game's own counts, if any

    def summary(self) -> JSON:
        low, high = wilson(self.wins, self.seats)
        return {
            "seat_games": self.seats,
            "wins": round(self.wins, 3),
            "win_rate": round(self.wins / self.seats, 4) if self.seats else 0.0,
            "win_rate_ci95": [round(low, 4), round(high, 4)],
            "mean_score": round(statistics.fmean(self.scores), 2) if self.scores else 0.0,
            "score_sd": round(statistics.pstdev(self.scores), 2) if len(self.scores) > 1 else 0.0,
            "moves": len(self.move_ms),
            "move_ms_p50": round(percentile(self.move_ms, 0.5), 2),
            "move_ms_p95": round(percentile(self.move_ms, 0.95), 2),
            "move_ms_max": round(max(self.move_ms, default=0.0), 2),
            # Moves of each kind per seat-game: how much of the rules a level uses.
            "per_game": {kind: round(n / max(1, self.seats), 2)
                         for kind, n in sorted(self.moves.items())},
            # A game that keeps counts per player (Big Cityz: objections made and justified)
            # has them summed per level, per seat-game.
            **({"tally_per_game": {k: round(v / max(1, self.seats), 3)
                                   for k, v in sorted(self.tally.items())}}
               if self.tally else {}),
        }


def play(game: str, levels: list[str], seed: int, budget: Budget,
         options: JSON | None = None) -> tuple[JSON, dict[str, list[float]]]:
    """One game; seat i plays ``levels[i]``. Returns its summary and each seat's move times."""
    engine, computer = GAMES[game].engine, GAMES[game].computer
    names = list(NAMES[: len(levels)])
    level_of = dict(zip(names, levels, strict=True))
    state = engine.new(names, dict(options or {}), seed)
    times: dict[str, list[float]] = {name: [] for name in names}
    actions: list[JSON] = []
    while engine.result(state) is None:
        player = next_player(game, engine, state)
        start = time.perf_counter()
        action = decide(computer, state, player, level_of[player], budget)
        times[player].append(1000 * (time.perf_counter() - start))
        state, _ = engine.apply(state, player, action)
        actions.append({"player": player, **action})
    result = engine.result(state)
    assert result is not None
    return ({"game": game, "players": names, "levels": level_of, "seed": seed,
             "options": dict(options or {}), "scores": result.scores,
             "winners": result.winners, "actions": actions,
             "tally": _merge(_counts(state.get("tally")), _score_parts(result.extra))}, times)


def _score_parts(extra: JSON) -> dict[str, dict[str, float]]:
    """Where a game's result breaks each score into parts (Cities: achievements, water,
    parks, monuments, cards), those points, its counts (``*_count``) and the achievements
    claimed: how each level earns its score."""
    breakdown = extra.get("breakdown")
    if not isinstance(breakdown, dict):
        return {}
    parts: dict[str, dict[str, float]] = {}
    for player, rows in breakdown.items():
        if not isinstance(rows, dict):
            continue
        mine = parts[str(player)] = {
            (k if k.endswith("_count") else f"points_{k}"): float(v) for k, v in rows.items()
            if k != "total" and isinstance(v, (int, float)) and not isinstance(v, bool)}
        if isinstance(rows.get("achievement_rings"), list):
            mine["achievements"] = float(len(rows["achievement_rings"]))
    return parts


def _merge(*tallies: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    merged: dict[str, dict[str, float]] = {}
    for tally in tallies:
        for player, counts in tally.items():
            merged.setdefault(player, {}).update(counts)
    return merged


def _counts(tally: object) -> dict[str, dict[str, float]]:
    """A game's per-player counts (numbers only), when its state keeps them."""
    if not isinstance(tally, dict):
        return {}
    return {str(player): {k: float(v) for k, v in counts.items()
                          if isinstance(v, (int, float)) and not isinstance(v, bool)}
            for player, counts in tally.items() if isinstance(counts, dict)}


def arena(game: str, players: int, levels: list[str], games: int, seed: int,
          budget: Budget | None = None, options: JSON | None = None) -> JSON:
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; known: {', '.join(sorted(GAMES))}")
    engine = GAMES[game].engine
    if not engine.min_players <= players <= engine.max_players:
        raise ValueError(f"{engine.title} is for {engine.min_players} to {engine.max_players} players")
    seats = lineup(levels, players)
    budget = budget or Budget.from_env()
    tallies = {level: Tally() for level in dict.fromkeys(seats)}
    started = time.perf_counter()
    for number in range(games):
        # Every rotation of a deal before the next deal: seat i plays seats[(i + r) % n].
        deal, rotation = divmod(number, players)
        order = [seats[(i + rotation) % players] for i in range(players)]
        summary, times = play(game, order, seed + deal, budget, options)
        winners = summary["winners"]
        for name, level in summary["levels"].items():
            tally = tallies[level]
            tally.seats += 1
            tally.scores.append(summary["scores"][name])
            tally.move_ms.extend(times[name])
            if name in winners:
                tally.wins += 1 / len(winners)
            for key, n in summary["tally"].get(name, {}).items():
                tally.tally[key] = tally.tally.get(key, 0.0) + n
        for action in summary["actions"]:
            moves = tallies[summary["levels"][action["player"]]].moves
            kind = tag(action)
            moves[kind] = moves.get(kind, 0) + 1
            # A Big City streetcar move lays one or two segments: rule use counts pieces.
            segments = action.get("segments")
            if isinstance(segments, list):
                moves["streetcar_segments"] = moves.get("streetcar_segments", 0) + len(segments)
    return {
        "game": game,
        "players": players,
        "lineup": seats,
        "games": games,
        "seed": seed,
        "budget": {"iterations": budget.iterations, "seconds": budget.seconds},
        "options": dict(options or {}),
        "seconds": round(time.perf_counter() - started, 1),
        "levels": {level: tally.summary() for level, tally in tallies.items()},
    }


def table(report: JSON) -> str:
    lines = [f"{report['game']}: {report['games']} games, {report['players']} players "
             f"({', '.join(report['lineup'])}), seed {report['seed']}, {report['seconds']} s",
             f"{'level':<7} {'seats':>5} {'wins':>7} {'win rate (95% CI)':>22} "
             f"{'mean':>7} {'sd':>6} {'ms p50':>7} {'ms p95':>7}"]
    for level, s in report["levels"].items():
        low, high = s["win_rate_ci95"]
        lines.append(f"{level:<7} {s['seat_games']:>5} {s['wins']:>7.1f} "
                     f"{100 * s['win_rate']:>7.1f}% ({100 * low:4.1f}-{100 * high:5.1f}%) "
                     f"{s['mean_score']:>7.1f} {s['score_sd']:>6.1f} "
                     f"{s['move_ms_p50']:>7.1f} {s['move_ms_p95']:>7.1f}")
    lines.append("moves per game: " + "; ".join(
        f"{level}: " + ", ".join(f"{kind} {n:g}" for kind, n in s["per_game"].items())
        for level, s in report["levels"].items()))
    if any("tally_per_game" in s for s in report["levels"].values()):
        lines.append("counts per game: " + "; ".join(
            f"{level}: " + ", ".join(f"{kind} {n:g}" for kind, n in
                                     s.get("tally_per_game", {}).items())
            for level, s in report["levels"].items()))
    return "\n".join(lines)


def main(game: str, players: int, levels: list[str], games: int, seed: int, *,
         as_json: bool = False, budget: Budget | None = None,
         options: JSON | None = None) -> int:
    report = arena(game, players, levels, games, seed, budget, options)
    print(json.dumps(report) if as_json else table(report))
    return 0
