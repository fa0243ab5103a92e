"""What the runtime keeps about a match: seats, state and the table message."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

LOBBY = "lobby"
ACTIVE = "active"
OVER = "over"
ENDED = "ended"  # ended early by the host or a moderator, or cancelled in the lobby
ABANDONED = "abandoned"  # its channel is gone or the bot lost access to it
UNFINISHED = (LOBBY, ACTIVE)


@dataclass
class Seat:
    """One player at the table. ``id`` is the Discord user id, or ``cpu1``.. for a computer."""

    id: str
    name: str
    cpu: bool = False
    # The computer player's level (bot.core.levels): easy, normal or hard. Saved only when
    # not normal, so seats saved before levels existed, and humans, read as normal.
    level: str = "normal"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "name": self.name, "cpu": self.cpu}
        if self.level != "normal":
            data["level"] = self.level
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Seat:
        level = data.get("level")
        return cls(id=str(data["id"]), name=str(data["name"]), cpu=bool(data.get("cpu", False)),
                   level=level if level in ("easy", "hard") else "normal")


@dataclass
class Match:
    id: int
    guild_id: int
    channel_id: int
    game: str
    status: str
    host_id: str
    seats: list[Seat]
    options: dict[str, Any]
    seed: int
    state: dict[str, Any] | None = None
    # The engine's state version ``state`` has (Engine.state_version); saved beside it, so a
    # state written by an older Cityhall is recognised and upgraded on load.
    state_version: int = 1
    version: int = 0
    table_message_id: int | None = None
    turn_started_at: float | None = None
    table_version: int | None = None  # the version the table message shows, when known
    created_at: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def seat(self, player_id: str) -> Seat | None:
        return next((s for s in self.seats if s.id == player_id), None)

    def name_of(self, player_id: str) -> str:
        seat = self.seat(player_id)
        return seat.name if seat else player_id

    @property
    def player_ids(self) -> list[str]:
        return [s.id for s in self.seats]

    @property
    def humans(self) -> list[Seat]:
        return [s for s in self.seats if not s.cpu]
