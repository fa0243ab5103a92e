"""Cityscape rules as pure functions over a JSON-serialisable state.

Each round has three phases: goal setting (everyone at once, in secret), building (one
block per turn, clockwise, no passing, until all 25 blocks stand) and scoring. Codes are
kept in the state but appear only in their owner's view until the round is scored.
"""

from __future__ import annotations

import copy
from typing import Any

from bot.core.engine import JSON, IllegalAction, LegalAction, Result, check_seats
from bot.core.i18n import Words

from .skyline import CODE_GOALS, LINES, LOTS, SIDES, line_heights, line_points, visible_count

BLOCK_HEIGHTS = (1, 2, 3, 4, 5)
BLOCKS_PER_HEIGHT = 5  # "25 Wooden Building Blocks (5 each of 5 different heights)"
TOTAL_BLOCKS = BLOCKS_PER_HEIGHT * len(BLOCK_HEIGHTS)
MAX_ROUNDS = 12

_ = Words("bot.games.cityscape")
_l = _.lazy


def seat_sides(players: list[str]) -> dict[str, str]:
    """Side -> owner. Seats go clockwise S, W, N, E; with two players the first takes S and
    W and the second N and E ("each player takes two adjacent sides of the city")."""
    if len(players) == 2:
        return {"S": players[0], "W": players[0], "N": players[1], "E": players[1]}
    return {side: player for side, player in zip(SIDES, players, strict=False)}


def heights(state: JSON) -> dict[str, int]:
    return {lot: sum(blocks) for lot, blocks in state["lots"].items()}


class CityscapeEngine:
    name, title = "cityscape", "Cityscape"
    min_players, max_players = 2, 4
    state_version = 1  # the saved state's shape: raise it with an upgrade step (docs/upgrades.md)

    # -- set-up -----------------------------------------------------------------------

    def new(self, players: list[str], options: JSON, seed: int) -> JSON:
        check_seats(self, players, options, {"rounds", "first_player"})
        # "Cityscape is best played with one round per player"; "The standard game
        # [for two] consists of four rounds".
        default_rounds = 4 if len(players) == 2 else len(players)
        rounds = options.get("rounds")
        if rounds is None:
            rounds = default_rounds
        if not isinstance(rounds, int) or isinstance(rounds, bool) or not 1 <= rounds <= MAX_ROUNDS:
            raise IllegalAction(_l("The number of rounds must be between 1 and {most}.",
                                   most=MAX_ROUNDS))
        first = options.get("first_player", players[0])
        if first not in players:
            raise IllegalAction(_l("{player} is not playing, so cannot build first.",
                                   player=first))
        first_seat = players.index(first)
        state: JSON = {
            "game": self.name,
            "seed": seed,
            "rng_draws": 0,
            "players": list(players),
            "sides": seat_sides(players),
            "rounds": rounds,
            "first_seat": first_seat,
            "scores": dict.fromkeys(players, 0),
            "round_results": [],
        }
        _start_round(state, 1)
        return state

    # -- who acts and what they may do ------------------------------------------------

    def to_act(self, state: JSON) -> list[str]:
        if state["phase"] == "goals":
            waiting = {owner for side, owner in state["sides"].items() if side not in state["goals"]}
            return [p for p in state["players"] if p in waiting]
        if state["phase"] == "building":
            return [state["players"][state["turn_seat"]]]
        return []

    def legal(self, state: JSON, player: str) -> list[LegalAction]:
        if player not in self.to_act(state):
            return []
        if state["phase"] == "goals":
            # Any four codes are legal; listing all 6**4 would help nobody, so the goal
            # setting menu is built from CODE_GOALS and one action per open side is listed.
            return [
                LegalAction({"type": "set_goals", "side": side, "codes": None}, f"Set goals ({side})")
                for side in _open_sides(state, player)
            ]
        actions = []
        for h in BLOCK_HEIGHTS:
            if state["blocks_left"][str(h)] == 0:
                continue
            for lot in LOTS:
                actions.append(LegalAction({"type": "build", "height": h, "lot": lot}, f"{h} on {lot}"))
        return actions

    # -- moves ------------------------------------------------------------------------

    def apply(self, state: JSON, player: str | None, action: JSON) -> tuple[JSON, list[JSON]]:
        if player is None or player not in state["players"]:
            raise IllegalAction(_l("Only seated players can play in this game."))
        kind = action.get("type") if isinstance(action, dict) else None
        if state["phase"] == "over":
            raise IllegalAction(_l("The game is over."))
        if kind == "set_goals":
            return self._set_goals(state, player, action)
        if kind == "build":
            return self._build(state, player, action)
        raise IllegalAction(_l("Cityscape moves are set_goals and build."))

    def _set_goals(self, state: JSON, player: str, action: JSON) -> tuple[JSON, list[JSON]]:
        if state["phase"] != "goals":
            raise IllegalAction(_l("Goals are set before building starts; this round's are fixed."))
        side = action.get("side")
        if side not in SIDES:
            raise IllegalAction(_l("The side must be one of S, W, N or E."))
        if state["sides"].get(side) != player:
            raise IllegalAction(_l("The {side} side is not yours.", side=side))
        if side in state["goals"]:
            raise IllegalAction(_l("Your goals for the {side} side are already set.", side=side))
        codes = action.get("codes")
        if (
            not isinstance(codes, list)
            or len(codes) != 4
            or not all(isinstance(c, int) and not isinstance(c, bool) and 1 <= c <= 6 for c in codes)
        ):
            raise IllegalAction(_l("Choose four codes, each from 1 to 6, one for every line."))
        new = copy.deepcopy(state)
        new["goals"][side] = list(codes)
        events: list[JSON] = [{"type": "goals_set", "player": player, "side": side}]
        if len(new["goals"]) == len(new["sides"]):
            new["phase"] = "building"
            events.append({"type": "building_started", "round": new["round"],
                           "player": new["players"][new["turn_seat"]]})
        return new, events

    def _build(self, state: JSON, player: str, action: JSON) -> tuple[JSON, list[JSON]]:
        if state["phase"] == "goals":
            raise IllegalAction(_l("Building starts once everyone has set their goals."))
        current = state["players"][state["turn_seat"]]
        if player != current:
            raise IllegalAction(_l("It is {player}'s turn.", player=current))
        height, lot = action.get("height"), action.get("lot")
        if not isinstance(height, int) or isinstance(height, bool) or height not in BLOCK_HEIGHTS:
            raise IllegalAction(_l("Blocks are 1 to 5 high."))
        if lot not in state["lots"]:
            raise IllegalAction(_l("Lots are named A1 to D4."))
        if state["blocks_left"][str(height)] == 0:
            raise IllegalAction(_l("There are no {height}-high blocks left.", height=height))
        new = copy.deepcopy(state)
        new["lots"][lot].append(height)
        new["blocks_left"][str(height)] -= 1
        new["placed"] += 1
        new["last_build"] = {"player": player, "height": height, "lot": lot,
                             "building": sum(new["lots"][lot])}
        events: list[JSON] = [{"type": "built", **new["last_build"]}]
        if new["placed"] == TOTAL_BLOCKS:
            events.append(_score_round(new))
            if new["round"] < new["rounds"]:
                _start_round(new, new["round"] + 1)
                events.append({"type": "round_started", "round": new["round"]})
            else:
                new["phase"] = "over"
                result = self.result(new)
                assert result is not None
                events.append({"type": "game_over", "scores": result.scores,
                               "winners": result.winners})
        else:
            new["turn_seat"] = (new["turn_seat"] + 1) % len(new["players"])
        return new, events

    # -- what people see --------------------------------------------------------------

    def view(self, state: JSON, viewer: str | None) -> JSON:
        h = heights(state)
        occupied = list(state["sides"])
        view: JSON = {
            "game": self.name,
            "players": list(state["players"]),
            "sides": dict(state["sides"]),
            "round": state["round"],
            "rounds": state["rounds"],
            "phase": state["phase"],
            "starting_player": state["players"][state["start_seat"]],
            "turn": state["players"][state["turn_seat"]] if state["phase"] == "building" else None,
            "to_act": self.to_act(state),
            "lots": {lot: list(blocks) for lot, blocks in state["lots"].items()},
            "heights": h,
            "blocks_left": {k: v for k, v in state["blocks_left"].items()},
            "placed": state["placed"],
            "goals_set": {side: side in state["goals"] for side in occupied},
            "lines": {side: line_heights(h, side) for side in occupied},
            "scores": dict(state["scores"]),
            "last_build": copy.deepcopy(state.get("last_build")),
            "round_results": copy.deepcopy(state["round_results"]),
        }
        if viewer is not None and state["phase"] != "over":
            view["my_goals"] = {
                side: list(codes) for side, codes in state["goals"].items()
                if state["sides"][side] == viewer
            }
        result = self.result(state)
        if result is not None:
            view["winners"] = result.winners
        return view

    def result(self, state: JSON) -> Result | None:
        if state["phase"] != "over":
            return None
        scores = dict(state["scores"])
        best = max(scores.values())
        return Result(scores=scores, winners=[p for p in state["players"] if scores[p] == best])

    # -- timers ------------------------------------------------------------------------

    def timeout_action(self, state: JSON) -> tuple[str | None, JSON] | None:
        return None


def _open_sides(state: JSON, player: str) -> list[str]:
    return [s for s, owner in state["sides"].items() if owner == player and s not in state["goals"]]


def _start_round(state: JSON, number: int) -> None:
    # "Players take turns starting each round by placing the first piece": round n is
    # started by the player n-1 seats clockwise of the first round's starter.
    start = (state["first_seat"] + number - 1) % len(state["players"])
    state.update({
        "round": number,
        "phase": "goals",
        "start_seat": start,
        "turn_seat": start,
        "lots": {lot: [] for lot in LOTS},
        "blocks_left": {str(h): BLOCKS_PER_HEIGHT for h in BLOCK_HEIGHTS},
        "placed": 0,
        "goals": {},
        "last_build": None,
    })


def _score_round(state: JSON) -> JSON:
    """Reveal every side's codes, score each line and add the round to the totals."""
    h = heights(state)
    tallest = max(h.values())
    sides: dict[str, Any] = {}
    points = dict.fromkeys(state["players"], 0)
    for side, owner in state["sides"].items():
        codes = state["goals"][side]
        lines = []
        for index, (lots, code) in enumerate(zip(LINES[side], codes, strict=True)):
            line = [h[lot] for lot in lots]
            lines.append({
                "line": index + 1,
                "lots": list(lots),
                "heights": line,
                "code": code,
                "goal": CODE_GOALS[code],
                "visible": visible_count(line),
                "points": line_points(code, line, tallest),
            })
        total = sum(line["points"] for line in lines)
        sides[side] = {"player": owner, "codes": list(codes), "lines": lines, "points": total}
        points[owner] += total
    for player, gained in points.items():
        state["scores"][player] += gained
    summary: JSON = {
        "round": state["round"],
        "tallest": tallest,
        "sides": sides,
        "points": points,
        "totals": dict(state["scores"]),
    }
    state["round_results"].append(summary)
    return {"type": "round_scored", **copy.deepcopy(summary)}


ENGINE = CityscapeEngine()
