"""Draw the pictures in README.md from a seeded computer game (run from the repo root)."""

from __future__ import annotations

from pathlib import Path

from bot.games.cityscape import ENGINE, GAME
from bot.games.cityscape.render import render_scoring, render_table
from bot.ui.game import rename_players

OUT = Path("docs/images")
NAMES = {"ann": "Ann", "bob": "Bob", "cy": "Cy"}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    state = ENGINE.new(list(NAMES), {"rounds": 1}, 7)
    middle = None
    while ENGINE.result(state) is None:
        player = ENGINE.to_act(state)[0]
        state, _ = ENGINE.apply(state, player, GAME.computer.normal(state, player))
        if state["placed"] == 16 and middle is None:
            middle = ENGINE.view(state, None)
    assert middle is not None
    (OUT / "cityscape-table.png").write_bytes(render_table(rename_players(middle, NAMES)))
    final = rename_players(ENGINE.view(state, None), NAMES)
    (OUT / "cityscape-scoring.png").write_bytes(render_scoring(final, 1))


if __name__ == "__main__":
    main()
