"""The rules of Cities: setup, rounds, turns, placement, achievements and the end.

Actions (replays and tests depend on them; see docs/cities.md):
  {"type": "choose_start_tile", "tile": "S2"}
  {"type": "take", "row": "cards"|"tiles"|"features"|"pieces", "slot": 1..4}
  {"type": "place_tile", "at": [tile_row, tile_col], "rotation": 0|90|180|270}
  {"type": "place_feature", "feature": "F03", "space": [row, col]}
  {"type": "discard_feature", "feature": "F03"}
  {"type": "place_piece", "color": "R", "space": [row, col]}
  {"type": "discard_piece", "color": "R"}

The state is plain JSON. Its ``decks`` and ``bag`` lists hold the hidden draw orders (top
first); ``view`` never shows them, nor any face-down item before it is taken.
"""

from __future__ import annotations

from typing import Any, Final

from bot.core.engine import JSON, IllegalAction, LegalAction, Result
from bot.core.i18n import Words
from bot.core.rng import draw

from . import scoring
from .content import COLOUR_NAMES, COLOURS, CONTENT, PIECES_PER_COLOUR
from .data_words import CITY, Listed, feature_label, later, row_word
from .neighbourhood import ROTATIONS, Neighbourhood, Refusal, space_key
from .options import _bag_stack, _shuffled, _stack
from .state import (
    FEATURE_GROUPS,
    OPTION_KEYS,
    PIECE_GROUPS,
    REMOVED_LIST,
    ROWS,
    STAR_PIECES,
    STAR_SLOT,
    _take_label,
    breakdown_of,
    city_of,
    copy_json,
    hood_of,
    limit_of,
    slot_available,
    workers_left,
    workers_per_row,
)
from .view import public_view

_ = Words("bot.games.cities")
_l = _.lazy


def _space(value: Any, what: str) -> tuple[int, int]:
    if (
        not isinstance(value, list | tuple) or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise IllegalAction(_l("Give the {what} as [row, column], two whole numbers.",
                               what=_l("tile position") if what == "tile position"
                               else _l("space")))
    return int(value[0]), int(value[1])


def _refuse(refusal: Refusal | None) -> None:
    """Raise the neighbourhood's reason a placement is not allowed, if it gave one."""
    if refusal:
        raise IllegalAction(refusal.text)


def _space_label(space: tuple[int, int] | list[int]) -> str:
    return f"[{space[0]}, {space[1]}]"


class CitiesEngine:
    """Cities (Steve Finn & Phil Walker-Harding) with Cityhall's own content."""

    name, title = "cities", "Cities"
    min_players, max_players = 2, 4
    state_version = 1  # the saved state's shape: raise it with an upgrade step (docs/upgrades.md)

    # ------------------------------------------------------------------ setup ---

    def new(self, players: list[str], options: JSON, seed: int) -> JSON:
        players = [str(p) for p in players]
        if not self.min_players <= len(players) <= self.max_players:
            raise IllegalAction(_l("Cities is played by 2 to 4 players."))
        if len(set(players)) != len(players):
            raise IllegalAction(_l("Every player may sit at the table only once."))
        options = {k: v for k, v in (options or {}).items() if v is not None}
        unknown = sorted(set(options) - set(OPTION_KEYS))
        if unknown:
            raise IllegalAction(_l("Cities has no option {names}.", names=", ".join(unknown)))

        variant = str(options.get("variant", "standard")).strip().lower()
        if variant in ("", "standard", "3x3"):
            variant = "standard"
        elif variant in ("3x5", "long", "variant"):
            variant = "3x5"
            if len(players) != 2:
                raise IllegalAction(_l("The 3x5 variant of 7 rounds is for two players."))
        else:
            raise IllegalAction(_l("The variant is either standard or 3x5."))

        state: JSON = {"game": "cities", "seed": seed, "rng_draws": 0}

        city_option = str(options.get("city", "random")).strip()
        if city_option.lower() in ("", "random"):
            names = sorted(CONTENT.cities)
            city_name = names[draw(state, "city").randrange(len(names))]
        else:
            city = CONTENT.city(city_option)
            if city is None:
                raise IllegalAction(_l(
                    "There is no city board {name}; choose one of {cities}.",
                    name=repr(city_option),
                    cities=Listed(tuple(later(CITY, n) for n in CONTENT.cities))))
            city_name = city.name

        first = options.get("first_player")
        if first is None:
            first_index = draw(state, "first player").randrange(len(players))
        elif isinstance(first, int) and not isinstance(first, bool) and 0 <= first < len(players):
            first_index = first
        elif str(first) in players:
            first_index = players.index(str(first))
        else:
            raise IllegalAction(_l("The first player must be one of the players."))

        cards = _stack(options, "scoring_cards", sorted(CONTENT.cards), "scoring card")
        tiles = _stack(options, "city_tiles", CONTENT.city_tiles, "city tile")
        features = _stack(options, "feature_tiles", sorted(CONTENT.features), "feature tile")
        bag = _bag_stack(options)
        all_pieces = [c for c in COLOURS for _piece in range(PIECES_PER_COLOUR)]

        n = len(players)
        first_player = players[first_index]
        state.update({
            "players": players,
            "variant": variant,
            "city": city_name,
            "rounds": 7 if variant == "3x5" else (4 if n == 2 else 8),
            "round": 0,
            "phase": "start_tiles",
            "first_player": first_player,
            "turn": None,
            # Setup step 9: "Starting with the player to the right of the start player and
            # going counter-clockwise, each player chooses a starting city tile".
            "start_tile_order": [players[(first_index - 1 - i) % n] for i in range(n)],
            "start_tiles": CONTENT.starting_tiles,
            "box": [],
            "decks": {
                "scoring_cards": _shuffled(state, cards, sorted(CONTENT.cards), "scoring cards"),
                "city_tiles": _shuffled(state, tiles, CONTENT.city_tiles, "city tiles"),
                "feature_tiles": _shuffled(state, features, sorted(CONTENT.features), "feature tiles"),
            },
            "bag": _shuffled(state, bag, all_pieces, "bag"),
            "rows": {row: [] for row in ROWS},
            "star_on_board": False,
            "star_taken_by": None,
            "turns_this_round": 0,
            "pending": None,
            "neighbourhoods": {},
            "cards_held": {p: [] for p in players},
            "rings": {
                a.id: [None] * len(a.ring_values(n)) for a in CONTENT.cities[city_name].achievements
            },
            "removed": {
                "scoring_cards": [], "city_tiles": [], "feature_tiles": [],
                "pieces": dict.fromkeys(COLOURS, 0), "face_down": [],
            },
        })
        return state

    def _start_round(self, state: JSON, events: list[JSON]) -> None:
        state["round"] += 1
        decks = state["decks"]

        def deal(deck: str, count: int) -> list[str]:
            # D19: cannot run short under the rules; if it ever did, deal what remains.
            taken = decks[deck][:count]
            del decks[deck][:count]
            return taken

        rows: JSON = {}
        for row, deck in (("cards", "scoring_cards"), ("tiles", "city_tiles")):
            # "Draw 4 ... and place 3 face-up and the last 1 face-down".
            dealt = deal(deck, 4)
            rows[row] = []
            for i in range(4):
                items = dealt[i:i + 1]
                hidden = [i == 3] if items else []
                rows[row].append({"slot": i + 1, "items": items, "hidden": hidden, "taken_by": None})
        dealt = deal("feature_tiles", sum(FEATURE_GROUPS))
        rows["features"], at = [], 0
        for i, size in enumerate(FEATURE_GROUPS):
            items = dealt[at:at + size]
            at += size
            hidden = [i == 3 and j == 1 for j in range(len(items))]
            rows["features"].append({"slot": i + 1, "items": items, "hidden": hidden, "taken_by": None})
        rows["pieces"] = []
        for i, size in enumerate(PIECE_GROUPS):
            items = state["bag"][:size]
            del state["bag"][:size]
            rows["pieces"].append({"slot": i + 1, "items": items, "hidden": [False] * len(items), "taken_by": None})
        rows["pieces"].append({"slot": STAR_SLOT, "items": [], "hidden": [], "taken_by": None, "star": True})
        state["rows"] = rows
        state["star_on_board"] = False
        state["star_taken_by"] = None
        state["turns_this_round"] = 0
        state["turn"] = state["first_player"]
        state["phase"] = "play"
        events.append({"type": "round_started", "round": state["round"], "first_player": state["first_player"]})

    # -------------------------------------------------------------- contract ---

    def to_act(self, state: JSON) -> list[str]:
        if state["phase"] == "start_tiles":
            return state["start_tile_order"][:1]
        if state["phase"] == "play":
            return [state["turn"]]
        return []

    def legal(self, state: JSON, player: str) -> list[LegalAction]:
        if player not in self.to_act(state):
            return []
        if state["phase"] == "start_tiles":
            return [
                LegalAction(
                    {"type": "choose_start_tile", "tile": t},
                    f"Start with {t} ({CONTENT.tiles[t].label()})",
                )
                for t in state["start_tiles"]
            ]
        pending = state["pending"]
        if pending is None:
            return self._legal_takes(state, player)
        hood = hood_of(state, player)
        moves: list[LegalAction] = []
        if pending["row"] == "tiles":
            tile = CONTENT.tiles[pending["items"][0]]
            for at in hood.tile_spots(limit_of(state)):
                for rotation in ROTATIONS:
                    moves.append(LegalAction(
                        {"type": "place_tile", "at": [at[0], at[1]], "rotation": rotation},
                        f"{tile.id} at {_space_label(at)} turned {rotation}° ({tile.label(rotation)})",
                    ))
        elif pending["row"] == "features":
            for feature_id in pending["items"]:
                feature = CONTENT.features[feature_id]
                for space in hood.feature_spaces(feature):
                    moves.append(LegalAction(
                        {"type": "place_feature", "feature": feature_id, "space": [space[0], space[1]]},
                        f"{feature.label} on {_space_label(space)}",
                    ))
                moves.append(LegalAction(
                    {"type": "discard_feature", "feature": feature_id}, f"Remove {feature.label}"
                ))
        else:
            for colour in dict.fromkeys(pending["items"]):
                name = COLOUR_NAMES[colour]
                for space in hood.piece_spaces(colour):
                    height = hood.height(space) + 1
                    moves.append(LegalAction(
                        {"type": "place_piece", "color": colour, "space": [space[0], space[1]]},
                        f"{name.capitalize()} on {_space_label(space)} (height {height})",
                    ))
                moves.append(LegalAction(
                    {"type": "discard_piece", "color": colour}, f"Remove a {name} piece"
                ))
        return moves

    def _legal_takes(self, state: JSON, player: str) -> list[LegalAction]:
        moves = []
        for row in ROWS:
            if workers_left(state, player, row) <= 0:
                continue
            for slot in state["rows"][row]:
                if slot_available(state, row, slot):
                    moves.append(LegalAction(
                        {"type": "take", "row": row, "slot": slot["slot"]}, _take_label(row, slot)
                    ))
        return moves

    def apply(self, state: JSON, player: str | None, action: JSON) -> tuple[JSON, list[JSON]]:
        if not isinstance(action, dict):
            raise IllegalAction(_l("That is not a Cities move."))
        kind = action.get("type")
        handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is None:
            raise IllegalAction(_l("Cities has no move called {kind}.", kind=repr(kind)))
        if state["phase"] == "over":
            raise IllegalAction(_l("The game is over."))
        if player is None:
            raise IllegalAction(_l("Only a player can make that move."))
        if player not in state["players"]:
            raise IllegalAction(_l("You are not playing in this game."))
        if player not in self.to_act(state):
            waiting = self.to_act(state)
            raise IllegalAction(_l("It is not your turn; it is {player}'s turn.",
                                   player=waiting[0]))
        new = copy_json(state)
        events: list[JSON] = []
        handler(self, new, player, action, events)
        return new, events

    def view(self, state: JSON, viewer: str | None) -> JSON:
        return public_view(self, state, viewer)

    def result(self, state: JSON) -> Result | None:
        if state["phase"] != "over":
            return None
        breakdowns = {p: breakdown_of(state, p) for p in state["players"]}
        return Result(
            scores={p: b["total"] for p, b in breakdowns.items()},
            winners=scoring.winners(breakdowns),
            extra={"breakdown": breakdowns, "city": state["city"], "variant": state["variant"]},
        )

    def timeout_action(self, state: JSON) -> tuple[str | None, JSON] | None:
        return None

    # ---------------------------------------------------------------- moves ---

    def _choose_start_tile(self, state: JSON, player: str, action: JSON, events: list[JSON]) -> None:
        if state["phase"] != "start_tiles":
            raise IllegalAction(_l("Starting tiles were chosen at the start of the game."))
        tile = str(action.get("tile", "")).strip().upper()
        if tile not in state["start_tiles"]:
            raise IllegalAction(_l("Choose one of the starting tiles still on the table: {tiles}.",
                                   tiles=", ".join(state["start_tiles"])))
        state["start_tiles"].remove(tile)
        state["start_tile_order"].pop(0)
        state["neighbourhoods"][player] = Neighbourhood.starting(tile).to_state()
        events.append({"type": "start_tile_chosen", "player": player, "tile": tile})
        if not state["start_tile_order"]:
            # "Return any remaining starting tiles to the box."
            state["box"] = state["start_tiles"]
            state["start_tiles"] = []
            self._start_round(state, events)

    def _take(self, state: JSON, player: str, action: JSON, events: list[JSON]) -> None:
        self._require_play(state)
        if state["pending"] is not None:
            raise IllegalAction(_l("First place or remove what you have taken."))
        row = action.get("row")
        if row not in ROWS:
            raise IllegalAction(_l("Take from the cards, tiles, features or pieces row."))
        slot_no = action.get("slot")
        if not isinstance(slot_no, int) or isinstance(slot_no, bool) or not 1 <= slot_no <= 4:
            raise IllegalAction(_l("Each row has spaces 1 to 4."))
        slot = state["rows"][row][slot_no - 1]
        if slot["taken_by"] is not None:
            raise IllegalAction(_l("That {row} space already has a worker on it.",
                                   row=row_word(row)))
        if workers_left(state, player, row) <= 0:
            per_row = workers_per_row(state)
            raise IllegalAction(
                _l("You have already placed your worker in the {row} row this round.",
                   row=row_word(row)) if per_row == 1 else
                _l("You have already placed both your workers in the {row} row this round.",
                   row=row_word(row)))
        if slot.get("star") and not state["star_on_board"]:
            raise IllegalAction(_l("The star space opens after the start player's first turn of the round."))
        if not slot_available(state, row, slot):
            raise IllegalAction(_l("That space is empty."))

        slot["taken_by"] = player
        if slot.get("star"):
            # D11: "they draw 2 random pieces from the bag" when the group is taken.
            drawn = state["bag"][:STAR_PIECES]
            del state["bag"][:STAR_PIECES]
            slot["items"] = drawn
            slot["hidden"] = [False] * len(drawn)
            state["star_taken_by"] = player
        items = list(slot["items"])
        revealed = [i for i, h in zip(items, slot["hidden"], strict=True) if h]
        slot["hidden"] = [False] * len(items)
        events.append({
            "type": "took", "player": player, "row": row, "slot": slot_no,
            "items": items, "revealed": revealed, "star": bool(slot.get("star")),
        })
        if row == "cards":
            # "places the card face-up on the table beside their neighborhood."
            state["cards_held"][player].extend(items)
            self._end_turn(state, player, events)
            return
        if not items:
            self._end_turn(state, player, events)
            return
        state["pending"] = {"player": player, "row": row, "items": items}

    def _place_tile(self, state: JSON, player: str, action: JSON, events: list[JSON]) -> None:
        pending = self._pending(state, "tiles")
        at = _space(action.get("at"), "tile position")
        rotation = action.get("rotation", 0)
        if rotation not in ROTATIONS or isinstance(rotation, bool):
            raise IllegalAction(_l("Turn a tile by 0, 90, 180 or 270 degrees."))
        hood = hood_of(state, player)
        _refuse(hood.tile_refusal(at, limit_of(state)))
        tile = pending["items"][0]
        hood.place_tile(tile, at, int(rotation))
        state["neighbourhoods"][player] = hood.to_state()
        state["pending"] = None
        events.append({"type": "tile_placed", "player": player, "tile": tile, "at": list(at), "rotation": rotation})
        self._end_turn(state, player, events)

    def _place_feature(self, state: JSON, player: str, action: JSON, events: list[JSON]) -> None:
        pending = self._pending(state, "features")
        feature_id = self._pending_feature(pending, action)
        feature = CONTENT.features[feature_id]
        space = _space(action.get("space"), "space")
        hood = hood_of(state, player)
        _refuse(hood.feature_refusal(feature, space))
        state["neighbourhoods"][player]["features"][space_key(space)] = feature_id
        pending["items"].remove(feature_id)
        events.append({"type": "feature_placed", "player": player, "feature": feature_id, "space": list(space)})
        self._after_use(state, player, events)

    def _discard_feature(self, state: JSON, player: str, action: JSON, events: list[JSON]) -> None:
        pending = self._pending(state, "features")
        feature_id = self._pending_feature(pending, action)
        pending["items"].remove(feature_id)
        state["removed"]["feature_tiles"].append(feature_id)
        events.append({"type": "feature_removed", "player": player, "feature": feature_id})
        self._after_use(state, player, events)

    def _place_piece(self, state: JSON, player: str, action: JSON, events: list[JSON]) -> None:
        pending = self._pending(state, "pieces")
        colour = self._pending_colour(pending, action)
        space = _space(action.get("space"), "space")
        hood = hood_of(state, player)
        _refuse(hood.piece_refusal(colour, space))
        hood.place_piece(colour, space)
        height = hood.height(space)
        state["neighbourhoods"][player]["buildings"][space_key(space)] = {"color": colour, "height": height}
        pending["items"].remove(colour)
        events.append({"type": "piece_placed", "player": player, "color": colour, "space": list(space), "height": height})
        self._after_use(state, player, events)

    def _discard_piece(self, state: JSON, player: str, action: JSON, events: list[JSON]) -> None:
        pending = self._pending(state, "pieces")
        colour = self._pending_colour(pending, action)
        pending["items"].remove(colour)
        state["removed"]["pieces"][colour] += 1
        events.append({"type": "piece_removed", "player": player, "color": colour})
        self._after_use(state, player, events)

    # -------------------------------------------------------------- helpers ---

    @staticmethod
    def _require_play(state: JSON) -> None:
        if state["phase"] != "play":
            raise IllegalAction(_l("Every player first chooses a starting tile."))

    def _pending(self, state: JSON, row: str) -> JSON:
        self._require_play(state)
        pending = state["pending"]
        if pending is None:
            raise IllegalAction(_l("Take an item from the board first."))
        if pending["row"] != row:
            raise IllegalAction(_l(
                "You have no {row} to place; first use the {taken} you took.",
                row=row_word(row), taken=row_word(pending["row"], len(pending["items"]) > 1)))
        return pending

    @staticmethod
    def _pending_feature(pending: JSON, action: JSON) -> str:
        feature_id = str(action.get("feature", "")).strip().upper()
        if feature_id not in pending["items"]:
            names = Listed(tuple(_l("{feature} ({id})", id=f, feature=feature_label(
                CONTENT.features[f], lazy=True)) for f in pending["items"]))
            raise IllegalAction(_l("That is not a feature tile you took; you hold {names}.",
                                   names=names))
        return feature_id

    @staticmethod
    def _pending_colour(pending: JSON, action: JSON) -> str:
        colour = str(action.get("color", "")).strip().upper()
        if colour not in pending["items"]:
            held = " ".join(pending["items"])
            raise IllegalAction(_l("You hold no piece of that colour; you hold {held}.",
                                   held=held))
        return colour

    def _after_use(self, state: JSON, player: str, events: list[JSON]) -> None:
        # D4: "the turn passes when everything taken is used".
        if not state["pending"]["items"]:
            state["pending"] = None
            self._end_turn(state, player, events)

    def _end_turn(self, state: JSON, player: str, events: list[JSON]) -> None:
        self._claim_achievements(state, player, events)
        state["star_on_board"] = True
        state["turns_this_round"] += 1
        players = state["players"]
        if state["turns_this_round"] >= len(players) * len(ROWS) * workers_per_row(state):
            self._end_round(state, events)
            return
        state["turn"] = players[(players.index(player) + 1) % len(players)]

    def _claim_achievements(self, state: JSON, player: str, events: list[JSON]) -> None:
        """"At the end of the player's turn, they check to see if they have fulfilled any
        achievements ... place 1 of their rings on the highest vacant number under that
        achievement ... may only claim each achievement once per game" (D17)."""
        hood: Neighbourhood | None = None
        n = len(state["players"])
        for achievement in city_of(state).achievements:
            rings = state["rings"][achievement.id]
            if player in rings or None not in rings:
                continue
            if hood is None:
                hood = hood_of(state, player)
            if scoring.achieved(hood, achievement):
                i = rings.index(None)
                rings[i] = player
                events.append({
                    "type": "achievement_claimed", "player": player, "achievement": achievement.id,
                    "name": achievement.display_name, "vp": achievement.ring_values(n)[i],
                })

    def _end_round(self, state: JSON, events: list[JSON]) -> None:
        removed: list[JSON] = []
        for row in ROWS:
            for slot in state["rows"][row]:
                if slot["taken_by"] is not None or not slot["items"]:
                    continue
                # "In a 3-player game, the remaining scoring card, city tile, feature tiles
                # and building pieces are removed from the game." (D15)
                for item, hidden in zip(slot["items"], slot["hidden"], strict=True):
                    if row == "pieces":
                        state["removed"]["pieces"][item] += 1
                    elif hidden:
                        state["removed"]["face_down"].append(item)
                    else:
                        state["removed"][REMOVED_LIST[row]].append(item)
                    removed.append({"face_down": True} if hidden else {"row": row, "item": item})
                slot["items"], slot["hidden"] = [], []
        star = state["star_taken_by"]
        if star is None:
            # D12: "The player with the worker closest to the star space (the rightmost
            # worker in the fourth row) takes the star token".
            taken = [s for s in state["rows"]["pieces"] if s["taken_by"] is not None]
            star = taken[-1]["taken_by"] if taken else state["first_player"]
        state["first_player"] = star
        events.append({"type": "round_ended", "round": state["round"], "first_player": star, "removed": removed})
        if state["round"] >= state["rounds"]:
            state["phase"] = "over"
            state["turn"] = None
            result = self.result(state)
            assert result is not None
            events.append({"type": "game_over", "scores": result.scores, "winners": result.winners})
            return
        self._start_round(state, events)


_HANDLERS: Final = {
    "choose_start_tile": CitiesEngine._choose_start_tile,
    "take": CitiesEngine._take,
    "place_tile": CitiesEngine._place_tile,
    "place_feature": CitiesEngine._place_feature,
    "discard_feature": CitiesEngine._discard_feature,
    "place_piece": CitiesEngine._place_piece,
    "discard_piece": CitiesEngine._discard_piece,
}


ENGINE = CitiesEngine()
