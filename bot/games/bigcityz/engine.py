"""Big Cityz rules as pure functions over a JSON-serialisable state.

A turn: the active player draws a city (its name is public, its facts stay on the hidden
back of the card), may replace one statement board, then places the card on a free point
square or risk field, or declares "There's no free square". Every other player who still
has a veto marker may then object once; when all have answered or the veto timer closes
the window, the card is revealed and scored, and the turn passes clockwise.

The state keeps only card ids; the facts live in ``content`` and enter a view or an event
only in the reveal.
"""

from __future__ import annotations

import copy
from typing import Any

from bot.core.engine import JSON, IllegalAction, LegalAction, Result, check_seats
from bot.core.i18n import Words
from bot.core.rng import draw

from . import content
from .board import (
    CARDS_PER_GAME,
    COLORS,
    RISK_FIELDS,
    RISK_PENALTY,
    RISK_POINTS,
    SLOTS,
    VETO_POINTS,
    VETOES_PER_PLAYER,
    WINNING_SCORE,
    adjacent_risk_fields,
    free_targets,
    point_squares,
    replaceable,
    replaceable_slots,
    risk_label,
    risk_right,
    risk_slots,
    slot_of,
    square_label,
    square_right,
)
from .names import City
from .view import _city_ref, _public_placement, _waiting, active_player, public_view

# Refusals are lazy Text: said in the clicker's language when the cog shows them.
_ = Words("bot.games.bigcityz")
_l = _.lazy

OPTIONS = {"city_order", "statement_order", "first_player", "veto_seconds", "ai_levels",
           "ai_level"}
AI_LEVELS = ("easy", "normal", "hard")
DEFAULT_VETO_SECONDS = 20
MAX_VETO_SECONDS = 600


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def target_right(state: JSON, target: JSON, city_id: str) -> bool:
    """Whether a placement (a place action) would be right for a city on this board."""
    if "risk" in target:
        a, b = risk_slots(target["risk"])
        return risk_right(target["color"],
                          content.truth(city_id, slot_of(state, a)["statement"]),
                          content.truth(city_id, slot_of(state, b)["statement"]))
    statement_id = slot_of(state, target["slot"])["statement"]
    return square_right(target["color"], content.truth(city_id, statement_id))


def _colour(color: str) -> object:
    """A colour's word in a refusal (the engine's codes are green and red)."""
    return _l("green") if color == "green" else _l("red") if color == "red" else color


def target_label(state: JSON, target: JSON) -> str:
    if "risk" in target:
        return risk_label(target["risk"], target["color"])
    statement_id = slot_of(state, target["slot"])["statement"]
    return square_label(statement_id, target["color"], target["points"])


class BigCityzEngine:
    name, title = "bigcityz", "Big Cityz"
    min_players, max_players = 2, 6
    state_version = 1  # the saved state's shape: raise it with an upgrade step (docs/upgrades.md)

    # -- set-up -----------------------------------------------------------------------

    def new(self, players: list[str], options: JSON, seed: int) -> JSON:
        check_seats(self, players, options, OPTIONS)
        first = options.get("first_player")
        if first is None:
            first = players[0]
        if first not in players:
            raise IllegalAction(_l("{player} is not playing, so cannot go first.", player=first))
        veto_seconds = options.get("veto_seconds")
        if veto_seconds is None:
            veto_seconds = DEFAULT_VETO_SECONDS
        if not _is_int(veto_seconds) or not 1 <= veto_seconds <= MAX_VETO_SECONDS:
            raise IllegalAction(_l("The veto timer must be 1 to {most} seconds.",
                                    most=MAX_VETO_SECONDS))
        levels = options.get("ai_levels") or {}
        if not isinstance(levels, dict):
            raise IllegalAction(_l("ai_levels maps players to easy, normal or hard."))
        for who, level in levels.items():
            if who not in players:
                raise IllegalAction(_l("{player} is not playing, so has no computer knowledge.",
                                        player=who))
            if level not in AI_LEVELS:
                raise IllegalAction(_l("The computer knowledge {level} is not easy, normal or hard.",
                                        level=repr(level)))
        # One knowledge level for every computer player (/bigcityz new computer_knowledge);
        # ai_levels wins.
        default_level = options.get("ai_level", "normal")
        if default_level not in AI_LEVELS:
            raise IllegalAction(_l("The computer knowledge {level} is not easy, normal or hard.",
                                    level=repr(default_level)))
        city_order = _stacked_cities(options.get("city_order"))
        statement_order = _stacked_statements(options.get("statement_order"))

        state: JSON = {
            "game": self.name,
            "seed": seed,
            "rng_draws": 0,
            "players": list(players),
            "first_seat": players.index(first),
            "turn_seat": players.index(first),
            "round": 1,
            "turns": dict.fromkeys(players, 0),
            "phase": "place",
            "veto_seconds": veto_seconds,
            "ai_levels": {p: levels.get(p, default_level) for p in players},
            "scores": dict.fromkeys(players, 0),
            "vetoes": dict.fromkeys(players, VETOES_PER_PLAYER),
            "tally": {p: {"placed": 0, "right": 0, "objections": 0, "objections_justified": 0}
                      for p in players},
            "current_city": None,
            "replaced_slot": None,
            "placement": None,
            "veto_window": None,
            "last_reveal": None,
            "end_triggered": False,
            "beside_board": [],
            "removed": [],
            "statement_discard": [],
        }
        # "Shuffle the city cards. Put approximately half of them into a pile": the stacked
        # cities come first, then a shuffled draw from the rest makes up 100 cards.
        rest = [cid for cid in content.city_ids() if cid not in city_order]
        draw(state, "cities").shuffle(rest)
        state["city_pile"] = city_order + rest[: CARDS_PER_GAME - len(city_order)]
        # "Shuffle the statement boards ... Turn over four statement boards".
        others = [sid for sid in content.statement_ids() if sid not in statement_order]
        draw(state, "statements").shuffle(others)
        boards = statement_order + others
        state["slots"] = [_fresh_board(slot, sid) for slot, sid in zip(SLOTS, boards, strict=False)]
        state["statement_pile"] = boards[len(SLOTS):]
        state["risk_fields"] = {risk: dict.fromkeys(COLORS) for risk in RISK_FIELDS}
        _start_turn(state, [])
        return state

    # -- who acts and what they may do ------------------------------------------------

    def to_act(self, state: JSON) -> list[str]:
        if state["phase"] == "place":
            return [active_player(state)]
        if state["phase"] == "veto":
            return _waiting(state)
        return []

    def legal(self, state: JSON, player: str) -> list[LegalAction]:
        if player not in self.to_act(state):
            return []
        if state["phase"] == "veto":
            return [LegalAction({"type": "veto"}, "Objection"),
                    LegalAction({"type": "no_veto"}, "No objection")]
        replaced = state["replaced_slot"]
        actions: list[LegalAction] = []
        for target in free_targets(state):
            if replaced is not None and target.get("slot") != replaced:
                continue
            actions.append(LegalAction(target, target_label(state, target)))
        if replaced is None:
            slots = replaceable_slots(state)
            for slot in slots:
                actions.append(LegalAction({"type": "replace", "slot": slot},
                                           f"Replace board {slot}"))
            if not slots:
                actions.append(LegalAction({"type": "no_free_square"}, "There's no free square"))
        return actions

    def timer_seconds(self, state: JSON) -> float | None:
        """The veto window runs on its own timer; placements use the server's turn time."""
        return float(state["veto_seconds"]) if state["phase"] == "veto" else None

    # -- moves ------------------------------------------------------------------------

    def apply(self, state: JSON, player: str | None, action: JSON) -> tuple[JSON, list[JSON]]:
        kind = action.get("type") if isinstance(action, dict) else None
        if state["phase"] == "over":
            raise IllegalAction(_l("The game is over."))
        if kind == "close_vetoes":
            return self._close_vetoes(state, player)
        if player is None or player not in state["players"]:
            raise IllegalAction(_l("Only seated players can play in this game."))
        if kind == "replace":
            return self._replace(state, player, action)
        if kind == "place":
            return self._place(state, player, action)
        if kind == "no_free_square":
            return self._no_free_square(state, player)
        if kind in ("veto", "no_veto"):
            return self._answer(state, player, kind)
        raise IllegalAction(_l(
            "Big Cityz moves are replace, place, no_free_square, veto, no_veto and close_vetoes."))

    def _check_placing(self, state: JSON, player: str) -> None:
        if state["phase"] == "veto":
            raise IllegalAction(_l("{city} is placed; the others may object now.",
                                    city=City(state["current_city"])))
        current = active_player(state)
        if player != current:
            raise IllegalAction(_l("It is {player}'s turn.", player=current))

    def _replace(self, state: JSON, player: str, action: JSON) -> tuple[JSON, list[JSON]]:
        self._check_placing(state, player)
        if state["replaced_slot"] is not None:
            raise IllegalAction(_l("You have already replaced a board this turn."))
        slot = action.get("slot")
        if not _is_int(slot) or slot not in SLOTS:
            raise IllegalAction(_l("Boards are numbered 1 to 4."))
        if not replaceable(state, slot):
            raise IllegalAction(_l(
                "Board {slot} cannot be replaced: it needs 3 cities on it, or 2 on it and 2 "
                "on its neighbouring risk fields.", slot=slot))
        new = copy.deepcopy(state)
        board = slot_of(new, slot)
        # "Put all the city cards that are on the statement board, as well as all the city
        # cards that are on the adjacent risk fields back into the game box."
        removed: list[str] = []
        for square in board["squares"]:
            if square["city"] is not None:
                removed.append(square["city"])
        for risk in adjacent_risk_fields(slot):
            for color in COLORS:
                if new["risk_fields"][risk][color] is not None:
                    removed.append(new["risk_fields"][risk][color])
                    new["risk_fields"][risk][color] = None
        new["removed"].extend(removed)
        old = board["statement"]
        new["statement_discard"].append(old)
        fresh = new["statement_pile"].pop(0)
        new["slots"][slot - 1] = _fresh_board(slot, fresh)
        new["replaced_slot"] = slot
        events: list[JSON] = [{
            "type": "board_replaced", "player": player, "slot": slot, "old": old, "new": fresh,
            "text": content.statement(fresh)["text"],
            "removed": [_city_ref(cid) for cid in removed],
        }]
        # "Is the draw pile used up? Then shuffle the discard pile and then lay it face down
        # as a new draw pile." We reshuffle the moment the last board is drawn, so a board
        # just taken off can come back only on a later replacement, not this one.
        if not new["statement_pile"]:
            pile = list(new["statement_discard"])
            draw(new, "statements").shuffle(pile)
            new["statement_pile"], new["statement_discard"] = pile, []
            events.append({"type": "statements_reshuffled", "pile": len(pile)})
        return new, events

    def _place(self, state: JSON, player: str, action: JSON) -> tuple[JSON, list[JSON]]:
        self._check_placing(state, player)
        color = action.get("color")
        if color not in COLORS:
            raise IllegalAction(_l("The colour must be green (true) or red (false)."))
        replaced = state["replaced_slot"]
        new = copy.deepcopy(state)
        city = new["current_city"]
        if "risk" in action:
            risk = action["risk"]
            if risk not in RISK_FIELDS:
                raise IllegalAction(_l("Risk fields lie between boards 1-2, 2-3, 3-4 and 4-1."))
            if replaced is not None:
                raise IllegalAction(_l(
                    "After replacing board {slot} you must place on the new board.",
                    slot=replaced))
            taken = state["risk_fields"][risk][color]
            if taken is not None:
                raise IllegalAction(_l("That risk field is taken by {city}.", city=City(taken)))
            new["risk_fields"][risk][color] = city
            a, b = risk_slots(risk)
            target: JSON = {"kind": "risk", "risk": risk, "color": color,
                            "statements": [slot_of(new, a)["statement"],
                                           slot_of(new, b)["statement"]]}
            label = risk_label(risk, color)
        else:
            slot, points = action.get("slot"), action.get("points")
            if not _is_int(slot) or slot not in SLOTS:
                raise IllegalAction(_l("Boards are numbered 1 to 4."))
            if replaced is not None and slot != replaced:
                raise IllegalAction(_l(
                    "After replacing board {slot} you must place on the new board.",
                    slot=replaced))
            board = slot_of(new, slot)
            square = next((s for s in board["squares"] if _is_int(points)
                           and s["color"] == color and s["points"] == points), None)
            if square is None:
                raise IllegalAction(_l("Board {slot} has no {colour} square worth {points}.", slot=slot,
                                        colour=_colour(color), points=points))
            if square["city"] is not None:
                raise IllegalAction(_l("That square is taken by {city}.", city=City(square["city"])))
            square["city"] = city
            target = {"kind": "square", "slot": slot, "statement": board["statement"],
                      "color": color, "points": square["points"]}
            label = square_label(board["statement"], color, square["points"])
        new["placement"] = {"player": player, "city": city, "label": label, **target}
        events: list[JSON] = [{"type": "placed", "player": player, "city": _city_ref(city),
                               "label": label, **target}]
        _open_veto_window(new, events)
        return new, events

    def _no_free_square(self, state: JSON, player: str) -> tuple[JSON, list[JSON]]:
        self._check_placing(state, player)
        replaced = state["replaced_slot"]
        if replaced is not None:
            raise IllegalAction(_l("After replacing board {slot} you must place on the new board.",
                                    slot=replaced))
        slots = replaceable_slots(state)
        if slots:
            # "...and at the same time, you cannot replace any of the statement boards"
            raise IllegalAction(_l(
                "Board {slot} can be replaced, so you cannot declare that there's no "
                "free square.", slot=slots[0]))
        new = copy.deepcopy(state)
        city = new["current_city"]
        # "lay your city card next to the game board"
        new["beside_board"].append(city)
        label = "There's no free square"
        new["placement"] = {"player": player, "city": city, "label": label,
                            "kind": "no_free_square",
                            "free": free_targets(new)}
        events: list[JSON] = [{"type": "placed", "player": player, "city": _city_ref(city),
                               "label": label, "kind": "no_free_square"}]
        _open_veto_window(new, events)
        return new, events

    def _answer(self, state: JSON, player: str, kind: str) -> tuple[JSON, list[JSON]]:
        if state["phase"] != "veto":
            raise IllegalAction(_l("You can object only after a city has been placed."))
        window = state["veto_window"]
        city_id = state["current_city"]
        if player == active_player(state):
            raise IllegalAction(_l("You cannot object to your own placement."))
        if player in window["objectors"] or player in window["declined"]:
            raise IllegalAction(_l("You have already answered on {city}.", city=City(city_id)))
        if player not in window["eligible"]:
            raise IllegalAction(_l("You have no veto markers left."))
        new = copy.deepcopy(state)
        answers = new["veto_window"]["objectors" if kind == "veto" else "declined"]
        answers.append(player)
        if kind == "veto":
            # "puts one of his veto markers on the respective city card ... the veto markers
            # are taken out of the game after being placed": spent whatever the reveal says.
            new["vetoes"][player] -= 1
            new["tally"][player]["objections"] += 1
        events: list[JSON] = [{"type": kind, "player": player, "city": _city_ref(new["current_city"])}]
        if not _waiting(new):
            _close_window(new, events, by="answers")
        return new, events

    def _close_vetoes(self, state: JSON, player: str | None) -> tuple[JSON, list[JSON]]:
        if player is not None:
            raise IllegalAction(_l("Only the veto timer closes the window; answer with Objection "
                                   "or No objection."))
        if state["phase"] != "veto":
            raise IllegalAction(_l("No veto window is open."))
        new = copy.deepcopy(state)
        events: list[JSON] = []
        _close_window(new, events, by="timer")
        return new, events

    # -- what people see --------------------------------------------------------------

    def view(self, state: JSON, viewer: str | None) -> JSON:
        return public_view(self, state, viewer)

    def result(self, state: JSON) -> Result | None:
        if state["phase"] != "over":
            return None
        scores = dict(state["scores"])
        best = max(scores.values())
        per_player = {
            p: {**state["tally"][p], "vetoes_left": state["vetoes"][p], "turns": state["turns"][p]}
            for p in state["players"]
        }
        return Result(scores=scores, winners=[p for p in state["players"] if scores[p] == best],
                      extra={"per_player": per_player, "rounds": state["round"]})

    # -- timers ------------------------------------------------------------------------

    def timeout_action(self, state: JSON) -> tuple[str | None, JSON] | None:
        if state["phase"] == "veto":
            return None, {"type": "close_vetoes"}
        return None


# -- helpers ----------------------------------------------------------------------------------


def _stacked_cities(order: Any) -> list[str]:
    if order is None:
        return []
    if not isinstance(order, list) or not all(isinstance(n, str) for n in order):
        raise IllegalAction(_l("city_order must be a list of city names."))
    ids: list[str] = []
    for city in order:
        cid = content.find_city(city)
        if cid is None:
            raise IllegalAction(_l("There is no city called {city} in the deck.", city=repr(city)))
        if cid in ids:
            raise IllegalAction(_l("{city} is named twice in city_order.", city=City(cid)))
        ids.append(cid)
    if len(ids) > CARDS_PER_GAME:
        raise IllegalAction(_l("A game uses {n} cities; city_order names more.",
                                n=CARDS_PER_GAME))
    return ids


def _stacked_statements(order: Any) -> list[str]:
    if order is None:
        return []
    known = content.statement_ids()
    if not isinstance(order, list) or not all(isinstance(s, str) for s in order):
        raise IllegalAction(_l("statement_order must be a list of statement ids."))
    for sid in order:
        if sid not in known:
            raise IllegalAction(_l("There is no statement {statement}; known: {known}.",
                                    statement=repr(sid), known=", ".join(known)))
    if len(set(order)) != len(order):
        raise IllegalAction(_l("statement_order names a statement twice."))
    return list(order)


def _fresh_board(slot: int, statement_id: str) -> JSON:
    return {
        "slot": slot,
        "statement": statement_id,
        "squares": [{"color": color, "points": points, "city": None}
                    for color, points in point_squares(statement_id)],
    }


def _start_turn(state: JSON, events: list[JSON]) -> None:
    """ "Draw a city card and read the city name out loud." """
    city = state["city_pile"].pop(0)
    state.update({"phase": "place", "current_city": city, "replaced_slot": None,
                  "placement": None, "veto_window": None})
    events.append({"type": "city_drawn", "player": active_player(state), "round": state["round"],
                   "city": _city_ref(city)})


def _open_veto_window(state: JSON, events: list[JSON]) -> None:
    """After the placement every other player who still has a veto marker may object."""
    placer = active_player(state)
    eligible = [p for p in state["players"] if p != placer and state["vetoes"][p] > 0]
    state["veto_window"] = {"eligible": eligible, "objectors": [], "declined": []}
    if not eligible:
        _reveal(state, events)
        return
    state["phase"] = "veto"
    events.append({"type": "veto_window_opened", "eligible": list(eligible),
                   "seconds": state["veto_seconds"]})


def _close_window(state: JSON, events: list[JSON], by: str) -> None:
    window = state["veto_window"]
    events.append({"type": "vetoes_closed", "by": by, "objectors": list(window["objectors"]),
                   "silent": _waiting(state)})
    _reveal(state, events)


def _reveal(state: JSON, events: list[JSON]) -> None:
    """Turn the card over, score it, and pass the turn."""
    placement = state["placement"]
    placer = placement["player"]
    city = placement["city"]
    kind = placement["kind"]
    if kind == "square":
        checked = [{"slot": placement["slot"], "statement": placement["statement"],
                    "true": content.truth(city, placement["statement"])}]
        right = square_right(placement["color"], checked[0]["true"])
        gain, loss = int(placement["points"]), 0
        free_right: list[JSON] = []
    else:
        slots = list(risk_slots(placement["risk"])) if kind == "risk" else list(SLOTS)
        checked = [{"slot": s, "statement": slot_of(state, s)["statement"],
                    "true": content.truth(city, slot_of(state, s)["statement"])} for s in slots]
        if kind == "risk":
            right = risk_right(placement["color"], checked[0]["true"], checked[1]["true"])
            free_right = []
        else:
            # "Scoring is treated the same as for a risk field": right only if none of the
            # free squares, risk fields included, would have been correct for this city.
            free_right = [t for t in placement["free"] if target_right(state, t, city)]
            right = not free_right
        gain, loss = RISK_POINTS, RISK_PENALTY
    objectors = list(state["veto_window"]["objectors"])
    change = dict.fromkeys(state["players"], 0)
    change[placer] = gain if right else -loss
    for p in objectors:
        # right: "their objection was not justified and they each receive 3 negative points";
        # wrong: "their objection was justified. They each receive 3 points".
        change[p] = -VETO_POINTS if right else VETO_POINTS
        if not right:
            state["tally"][p]["objections_justified"] += 1
    applied: dict[str, int] = {}
    for p in state["players"]:
        # "If a playing piece is still on the starting position, nothing happens."
        after = max(0, state["scores"][p] + change[p])
        applied[p] = after - state["scores"][p]
        state["scores"][p] = after
    state["tally"][placer]["placed"] += 1
    if right:
        state["tally"][placer]["right"] += 1
    reveal: JSON = {
        "player": placer,
        "city": content.facts(city),
        "placement": _public_placement(placement),
        "checked": checked,
        "right": right,
        "objectors": objectors,
        "points": applied,
        "scores": dict(state["scores"]),
    }
    if kind == "no_free_square":
        reveal["free_squares_right"] = [
            {**{k: v for k, v in t.items() if k != "type"}, "label": target_label(state, t)}
            for t in free_right
        ]
    state["last_reveal"] = reveal
    events.append({"type": "reveal", **copy.deepcopy(reveal)})
    state["turns"][placer] += 1
    # "The game is over once a player has at least 36 points ... Finish the round."
    if any(score >= WINNING_SCORE for score in state["scores"].values()):
        state["end_triggered"] = True
    state["current_city"] = None
    state["placement"] = None
    state["veto_window"] = None
    state["replaced_slot"] = None
    state["turn_seat"] = (state["turn_seat"] + 1) % len(state["players"])
    if state["turn_seat"] == state["first_seat"]:
        # A round is over. The game ends if someone has reached 36, or if the pile cannot
        # give everyone another turn (the rulebook is silent; equal turns matter more).
        if state["end_triggered"] or len(state["city_pile"]) < len(state["players"]):
            state["phase"] = "over"
            scores = dict(state["scores"])
            best = max(scores.values())
            events.append({"type": "game_over", "scores": scores,
                           "winners": [p for p in state["players"] if scores[p] == best],
                           "reason": "score" if state["end_triggered"] else "cities"})
            return
        state["round"] += 1
    _start_turn(state, events)


ENGINE = BigCityzEngine()
