"""The asyncio tasks a synchronous call starts: how the bot keeps hold of the handlers
discord.py starts for one interaction, so that stopping can wait for them."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any


def tasks_started_by(route: Callable[[Any], None], data: Any) -> list[asyncio.Task[Any]]:
    """Run discord.py's routing of one interaction and return the tasks it started (the
    command or component handler, and ``on_interaction`` listeners). Routing is
    synchronous, so a task factory set around it sees exactly those tasks."""
    loop = asyncio.get_running_loop()
    previous = loop.get_task_factory()
    started: list[asyncio.Task[Any]] = []

    def factory(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> Any:
        task = (previous(loop, coro, **kwargs) if previous is not None
                else asyncio.Task(coro, loop=loop, **kwargs))
        if isinstance(task, asyncio.Task):
            started.append(task)
        return task

    loop.set_task_factory(factory)
    try:
        route(data)
    finally:
        loop.set_task_factory(previous)
    return started
