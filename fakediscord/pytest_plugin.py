"""pytest wiring for FakeDiscord.

Enable with ``pytest_plugins = ["fakediscord.pytest_plugin"]`` in the top-level
``conftest.py`` (pytest only honours ``pytest_plugins`` there or in test modules).

* ``fake_discord`` fixture: a started FakeDiscord; at teardown it fails the test if the bot
  sent requests that violate the OpenAPI spec, got HTTP errors, left an interaction
  unanswered, or came back before a 429's retry_after. 429s the bot waited out and the
  answers of faults the test injected (``fake.fail``, ``delete_channel``, ``revoke``) are
  fine. Per-test options come from the ``fakediscord`` marker::

      @pytest.mark.fakediscord(interaction_timeout=0.2, allow_failed=True)
      @pytest.mark.fakediscord(rate_limits=False)                  # no 429s at all
      @pytest.mark.fakediscord(bucket_limits={"edit_message": (2, 1.0)})

  Keys ``allow_errors`` / ``allow_invalid`` / ``allow_failed`` / ``allow_violations``
  relax the teardown checks; every other key goes to the ``FakeDiscord`` constructor.
* ``running_bot(fake, bot)`` (from ``fakediscord.runner``): async context manager that points discord.py at the fake,
  starts ``bot.start(token)`` in a task, waits for on_ready, and always closes the bot and
  restores discord.py's real endpoints afterwards.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from .runner import running_bot
from .server import FakeDiscord

__all__ = ["fake_discord", "pytest_configure", "running_bot"]
_ALLOW_KEYS = ("allow_errors", "allow_invalid", "allow_failed", "allow_violations")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "fakediscord(**options): FakeDiscord constructor options (e.g. rate_limits=False, "
        "bucket_limits={...}), plus allow_errors / allow_invalid / allow_failed / "
        "allow_violations to relax the fake_discord teardown checks",
    )


@pytest.fixture
async def fake_discord(request: pytest.FixtureRequest) -> AsyncIterator[FakeDiscord]:
    marker = request.node.get_closest_marker("fakediscord")
    options = dict(marker.kwargs) if marker else {}
    allow = {key: bool(options.pop(key, False)) for key in _ALLOW_KEYS}
    async with FakeDiscord(**options) as fake:
        yield fake
    fake.assert_clean(
        errors=not allow["allow_errors"],
        validation=not allow["allow_invalid"],
        failed=not allow["allow_failed"],
        violations=not allow["allow_violations"],
    )
