"""One simulated game on a state directory, run until it ends or is killed (the kill -9 part).

Prints one JSON line per fact the parent checks: the journal's length at
start ("start"), the table invariant once the board is settled after start
("invariant"), and the end ("end"). Usage:
    python -m chaos.child STATE_DIR PLAYERS SEED MAX_ROUNDS
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bermuda_hw.controller.status import Mode
from chaos.table import Table, fast_config, invariant_holds

STUCK_FRAMES = 3000


def say(**fact: object) -> None:
    print(json.dumps(fact), flush=True)


def main(argv: list[str]) -> int:
    state_dir = Path(argv[0])
    players, seed, max_rounds = int(argv[1]), int(argv[2]), int(argv[3])
    config = fast_config(state_dir.parent)
    table = Table.on(state_dir, config, players=players, seed=seed)
    c = table.controller
    try:
        c.start()
        assert c.game is not None
        say(start=len(c.game.journal), game=c.game_id, round=c.game.round)
        checked = False
        frames, last_seq = 0, c.status.seq
        while True:
            game = c.game
            if game.is_over() or game.round > max_rounds or table.mode() is Mode.OVER:
                break
            if not checked and table.mode() in (Mode.READY, Mode.SPIN):
                checked = True
                say(invariant=invariant_holds(game, table.world), round=game.round)
            c.step()
            frames += 1
            if c.status.seq != last_seq:
                frames, last_seq = 0, c.status.seq
            elif frames > STUCK_FRAMES:
                say(stuck=f"{table.mode().value}: {c.status.message}")
                return 3
        say(end=len(c.game.journal), round=c.game.round, over=c.game.is_over())
        return 0
    finally:
        table.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
