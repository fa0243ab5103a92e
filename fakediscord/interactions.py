"""Interactions the fake sends to the bot, and building their payloads."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .models import FakeMessage, InteractionCallback

if TYPE_CHECKING:
    from .server import FakeDiscord

PING, APPLICATION_COMMAND, MESSAGE_COMPONENT, AUTOCOMPLETE, MODAL_SUBMIT = 1, 2, 3, 4, 5

# Callback types valid for each interaction type (docs: "Interaction Callback Type").
ALLOWED_CALLBACKS: dict[int, tuple[int, ...]] = {
    PING: (1,),
    APPLICATION_COMMAND: (4, 5, 9, 12),
    MESSAGE_COMPONENT: (4, 5, 6, 7, 9, 12),
    AUTOCOMPLETE: (8,),
    MODAL_SUBMIT: (4, 5, 6, 7, 12),
}

OPTION_TYPES = {1: "SUB_COMMAND", 2: "SUB_COMMAND_GROUP", 3: "STRING", 4: "INTEGER",
                5: "BOOLEAN", 6: "USER", 7: "CHANNEL", 8: "ROLE", 9: "MENTIONABLE",
                10: "NUMBER", 11: "ATTACHMENT"}


class FakeDiscordError(AssertionError):
    """The test asked the fake for something real Discord would not let a user do."""


class FakeInteraction:
    """One INTERACTION_CREATE sent to the bot, and everything the bot did with it."""

    def __init__(
        self,
        fake: FakeDiscord,
        *,
        payload: dict[str, Any],
        user: dict[str, Any],
        message: FakeMessage | None,
        label: str,
    ) -> None:
        self._fake = fake
        self.payload = payload
        self.id: str = payload["id"]
        self.token: str = payload["token"]
        self.type: int = payload["type"]
        self.user = user
        self.channel_id: str = payload["channel_id"]
        self.guild_id: str | None = payload.get("guild_id")
        self.message = message  # the message a component/modal came from
        self.label = label
        self.created = time.monotonic()
        self.callback: InteractionCallback | None = None
        self.failed = False  # no callback within the fake's interaction_timeout
        self.original: FakeMessage | None = None
        self.followup_messages: list[FakeMessage] = []
        # time.monotonic() of the first follow-up or webhook edit after the callback: a
        # deferred click's real answer
        self.followed_at: float | None = None
        # that first follow-up (as a new message, type 4) or edit (as an update, type 7)
        self.followed_by: InteractionCallback | None = None
        self.rejected_callbacks: list[int] = []  # callback types sent after the first
        self._answered = asyncio.Event()
        self.deadline: asyncio.TimerHandle | None = None

    def __repr__(self) -> str:
        state = "failed" if self.failed else ("answered" if self.answered else "pending")
        return f"<FakeInteraction {self.label} id={self.id} {state}>"

    @property
    def answered(self) -> bool:
        return self.callback is not None

    @property
    def modal(self) -> dict[str, Any] | None:
        """The modal the bot opened (callback type 9), if it did."""
        cb = self.callback
        return cb.data if cb is not None and cb.type == 9 else None

    @property
    def choices(self) -> list[dict[str, Any]] | None:
        """Autocomplete choices (callback type 8), if the bot sent them."""
        cb = self.callback
        if cb is None or cb.type != 8:
            return None
        return list((cb.data or {}).get("choices") or [])

    def _default_timeout(self, timeout: float | None) -> float:
        return self._fake.interaction_timeout + 0.5 if timeout is None else timeout

    async def response(self, timeout: float | None = None) -> InteractionCallback:
        """Wait for the bot's callback (type, data, files, the message it created/updated)."""
        limit = self._default_timeout(timeout)
        try:
            await asyncio.wait_for(self._answered.wait(), limit)
        except TimeoutError:
            raise AssertionError(
                f"{self.label}: the bot sent no interaction callback within {limit:.2f}s"
                + self._fake.diagnostics()
            ) from None
        assert self.callback is not None
        return self.callback

    async def seen(self, timeout: float | None = None) -> InteractionCallback:
        """The answer the player sees: the callback, or after a deferred update (type 6,
        which shows nothing) the first follow-up or edit through the interaction, as the
        callback it stands for (a new message, type 4; an update of the message clicked,
        type 7). A deferred update followed by nothing within ``timeout`` is returned as it
        is."""
        callback = await self.response(timeout)
        if callback.type != 6:
            return callback
        until = time.monotonic() + self._default_timeout(timeout)
        while self.followed_by is None and time.monotonic() < until:
            await asyncio.sleep(0.01)
        return self.followed_by or callback

    async def followups(self, count: int = 0, timeout: float | None = None) -> list[FakeMessage]:
        """Follow-up messages so far; with ``count``, wait until there are at least that many."""
        if count:
            await self._fake.wait_until(
                lambda: len(self.followup_messages) >= count,
                self._default_timeout(timeout),
                f"{self.label}: {count} follow-up message(s)",
            )
        return list(self.followup_messages)

    async def original_message(self, timeout: float | None = None, *, settled: bool = True) -> FakeMessage:
        """The @original message; with ``settled`` wait until a deferred one was edited."""
        def ready() -> FakeMessage | None:
            msg = self.original
            if msg is None or (settled and msg.loading):
                return None
            return msg

        result: FakeMessage = await self._fake.wait_until(
            ready, self._default_timeout(timeout), f"{self.label}: original response"
        )
        return result


# -- application command option building -----------------------------------------------

Resolver = Callable[[Any], tuple[str, dict[str, Any]]]


def walk_subcommands(command: Mapping[str, Any], path: Sequence[str]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Follow ``path`` through subcommand groups; return (chain of option dicts, leaf)."""
    chain: list[dict[str, Any]] = []
    node: Mapping[str, Any] = command
    for part in path:
        subs = [o for o in node.get("options") or [] if o.get("type") in (1, 2)]
        match = next((o for o in subs if o.get("name") == part), None)
        if match is None:
            where = " ".join([command["name"], *(c["name"] for c in chain)])
            raise FakeDiscordError(
                f"/{where} has no subcommand {part!r}; synced subcommands: "
                f"{[o.get('name') for o in subs] or 'none'}"
            )
        chain.append(match)
        node = match
    leftover = [o.get("name") for o in node.get("options") or [] if o.get("type") in (1, 2)]
    if leftover:
        where = " ".join([command["name"], *path])
        raise FakeDiscordError(f"/{where} is a group; pick one of its subcommands: {leftover}")
    return chain, dict(node)


def check_option_value(spec: Mapping[str, Any], value: Any, *, focused: bool = False) -> None:
    """Raise FakeDiscordError if Discord's client would not let a user send ``value``."""
    name, otype = spec.get("name"), spec.get("type")
    kind = OPTION_TYPES.get(int(otype or 0), str(otype))
    if otype == 3:
        if not isinstance(value, str):
            raise FakeDiscordError(f"option {name!r} is STRING, got {value!r}")
        if not focused:
            if "min_length" in spec and len(value) < spec["min_length"]:
                raise FakeDiscordError(f"option {name!r} needs at least {spec['min_length']} characters")
            if "max_length" in spec and len(value) > spec["max_length"]:
                raise FakeDiscordError(f"option {name!r} allows at most {spec['max_length']} characters")
    elif otype == 4:
        if isinstance(value, bool) or not isinstance(value, int):
            raise FakeDiscordError(f"option {name!r} is INTEGER, got {value!r}")
        if not -(2**53) < value < 2**53:
            raise FakeDiscordError(f"option {name!r}: {value} is outside Discord's integer range")
    elif otype == 10:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise FakeDiscordError(f"option {name!r} is NUMBER, got {value!r}")
    elif otype == 5 and not isinstance(value, bool):
        raise FakeDiscordError(f"option {name!r} is BOOLEAN, got {value!r}")
    if otype in (4, 10) and not focused:
        if "min_value" in spec and value < spec["min_value"]:
            raise FakeDiscordError(f"option {name!r}: {value} < min_value {spec['min_value']}")
        if "max_value" in spec and value > spec["max_value"]:
            raise FakeDiscordError(f"option {name!r}: {value} > max_value {spec['max_value']}")
    choices = spec.get("choices")
    if choices and not focused and value not in [c.get("value") for c in choices]:
        raise FakeDiscordError(
            f"option {name!r} ({kind}) only accepts the choices "
            f"{[c.get('value') for c in choices]}, got {value!r}"
        )
