"""The gateway's heartbeat timed from when it is sent, so a prompt answer is not "41 s behind".

discord.py's keep-alive thread asks the event loop to send each heartbeat, waits for the
send, and only then notes when it was sent. When Discord's acknowledgement comes back and
is read by the loop before that thread has run again (a fast gateway: the fake Discord in
the load test, a gateway proxy; or two cores busy with the render workers), the loop
measures the answer against the heartbeat before, a whole interval earlier, and logs
"Can't keep up, shard ID None websocket is 41.3s behind." at WARNING: an alarm about an
answer that took a millisecond, and ``Client.latency`` reads 41 s until the next beat. The
load test's 20-minute soak logged it 14 times (3 Dec).

Noting the time on the loop itself, just before the heartbeat goes out, is what discord.py
does since its pull request #10448 (merged May 2026, after its 2.7.1, the newest release);
the thread's own later note is then harmless. ``note_heartbeats_when_sent`` wraps
``DiscordWebSocket.send_heartbeat`` once per process, which stays right with a discord.py
that already does so.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable
from typing import Any

from discord.gateway import DiscordWebSocket

_SendHeartbeat = Callable[[DiscordWebSocket, Any], Awaitable[None]]
_WRAPPED = "_cityhall_notes_when_sent"


def note_heartbeats_when_sent() -> None:
    """From now on every shard's heartbeat is timed from the moment the loop sends it."""
    send: _SendHeartbeat = DiscordWebSocket.send_heartbeat
    if getattr(send, _WRAPPED, False):
        return

    @functools.wraps(send)
    async def send_heartbeat(ws: DiscordWebSocket, data: Any) -> None:
        keep_alive = getattr(ws, "_keep_alive", None)
        if keep_alive is not None:
            keep_alive._last_send = time.perf_counter()
        await send(ws, data)

    setattr(send_heartbeat, _WRAPPED, True)
    DiscordWebSocket.send_heartbeat = send_heartbeat  # type: ignore[method-assign,assignment]
