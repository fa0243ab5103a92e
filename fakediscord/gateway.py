"""Gateway sessions and transport compression for the fake Discord."""

from __future__ import annotations

import asyncio
import importlib
import json
import secrets
import zlib
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

# discord.py asks for zstd-stream instead of zlib-stream when zstandard is importable,
# so the fake must speak it then (imported dynamically: it is an optional dependency).
_zstandard: Any
try:
    _zstandard = importlib.import_module("zstandard")
except ImportError:  # pragma: no cover - depends on the environment
    _zstandard = None

# Gateway opcodes.
DISPATCH, HEARTBEAT, IDENTIFY, PRESENCE_UPDATE, VOICE_STATE_UPDATE = 0, 1, 2, 3, 4
RESUME, RECONNECT, REQUEST_GUILD_MEMBERS, INVALID_SESSION, HELLO, HEARTBEAT_ACK = 6, 7, 8, 9, 10, 11


class Packer:
    """Turns gateway payloads into frames for one connection's compression mode."""

    def __init__(self, mode: str | None) -> None:
        self.mode = mode
        self._zlib = zlib.compressobj() if mode == "zlib-stream" else None
        self._zstd: Any = None
        if mode == "zstd-stream":
            if _zstandard is None:
                raise ValueError("zstd-stream requested but the zstandard module is not installed")
            self._zstd = _zstandard.ZstdCompressor().compressobj()

    def pack(self, payload: dict[str, Any]) -> str | bytes:
        text = json.dumps(payload, separators=(",", ":"))
        if self._zlib is not None:
            # One shared zlib stream per connection; Z_SYNC_FLUSH ends every message with
            # 00 00 ff ff, which is how discord.py knows a message is complete.
            return self._zlib.compress(text.encode()) + self._zlib.flush(zlib.Z_SYNC_FLUSH)
        if self._zstd is not None:
            # One zstd stream per connection; a block flush makes each frame decodable on
            # its own arrival, as discord.py expects one complete message per frame.
            return self._zstd.compress(text.encode()) + self._zstd.flush(_zstandard.COMPRESSOBJ_FLUSH_BLOCK)
        return text


@dataclass
class Connection:
    ws: web.WebSocketResponse
    packer: Packer
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def send(self, payload: dict[str, Any]) -> bool:
        # The lock keeps compression order equal to send order for concurrent dispatches.
        async with self.lock:
            if self.ws.closed:
                return False
            frame = self.packer.pack(payload)
            try:
                if isinstance(frame, bytes):
                    await self.ws.send_bytes(frame)
                else:
                    await self.ws.send_str(frame)
            except (ConnectionError, RuntimeError):
                return False
            return True


@dataclass
class Session:
    """A gateway session: survives its websocket so a RESUME can replay what was missed."""

    identify: dict[str, Any]
    id: str = field(default_factory=lambda: secrets.token_hex(16))
    seq: int = 0
    sent: list[dict[str, Any]] = field(default_factory=list)
    connection: Connection | None = None
    shard: tuple[int, int] = (0, 1)
    resumes: int = 0

    @property
    def intents(self) -> int:
        return int(self.identify.get("intents") or 0)

    def has_intent(self, bit: int) -> bool:
        return bool(self.intents & bit)

    def covers_guild(self, guild_id: str | None) -> bool:
        if guild_id is None:
            return self.shard[0] == 0  # DMs go to shard 0
        shard_id, count = self.shard
        return (int(guild_id) >> 22) % count == shard_id

    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        self.seq += 1
        payload = {"op": DISPATCH, "t": event, "s": self.seq, "d": data}
        self.sent.append(payload)
        if self.connection is not None:
            await self.connection.send(payload)
