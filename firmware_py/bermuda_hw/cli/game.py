"""`bermuda-hw game`: show the journalled game, or archive it and start a new one."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from bermuda_hw.cli.play import _players
from bermuda_hw.cli.run import add_common, prepare_state_dir, state_dir_default
from bermuda_hw.controller.journal import DB_NAME, Journal
from bermuda_hw.controller.statedir import StateLock, StateLockedError
from bermuda_hw.errors import StateError
from bermuda_hw.rules.board import LETTERS, load_board
from bermuda_hw.rules.game import Game
from bermuda_hw.rules.play import describe_standings


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "game", help="show the journalled game, or start a new one",
        description="Read the daemon's journal: show the game, or archive it and start another. "
                    "Stop the service first (systemctl stop bermuda-hw) before `game new`.",
    )
    commands = parser.add_subparsers(dest="game_command", metavar="ACTION", required=True)
    show = commands.add_parser("show", help="standings, phase and where every ship is")
    add_common(show)
    show.add_argument("--json", action="store_true", help="print it as JSON")
    show.set_defaults(func=run_show)
    new = commands.add_parser("new", help="archive the current game and start a new one")
    add_common(new)
    new.add_argument("--players", type=_players, default=4, metavar="N",
                     help="number of players, 2 to 4 (default 4)")
    new.add_argument("--seed", type=int, default=None, metavar="S",
                     help="seed of the game's spinner (default: random)")
    new.set_defaults(func=run_new)


def game_json(game_id: int, game: Game) -> dict[str, Any]:
    outcome = game.outcome()
    return {
        "game_id": game_id,
        "board": game.board.name,
        "players": list(game.players),
        "order": list(game.order),
        "seed": game.seed,
        "round": game.round,
        "phase": game.phase.value,
        "active": None if outcome is not None else game.active,
        "cloud": {"col": game.pose.col, "row": game.pose.row, "letter": LETTERS[game.pose.letter]},
        "totals": game.totals(),
        "ships": [
            {"id": s.id, "color": s.color, "location": s.location,
             "previous_port": s.previous_port, "status": s.status.value}
            for s in game.ships()
        ],
        "outcome": None if outcome is None else {
            "reason": outcome.reason.value, "winners": list(outcome.winners),
            "totals": dict(outcome.totals),
        },
        "journal_entries": len(game.journal),
    }


def run_show(args: argparse.Namespace) -> int:
    board = load_board(args.board)
    path = prepare_state_dir(args.state_dir or state_dir_default(), write=False)
    if not (path / DB_NAME).exists():
        raise StateError(f"{path / DB_NAME}: no journal yet (the daemon has not run)")
    with Journal.in_state_dir(path) as journal:
        loaded = journal.load(board)
    if loaded is None:
        raise StateError(f"{path / 'bermuda.db'}: no current game")
    game_id, game = loaded
    data = game_json(game_id, game)
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    state = f"over: {game.outcome()}" if game.is_over() else \
        f"round {game.round}, {game.phase.value} phase, {game.active} to play"
    print(f"game {game_id} on board {board.name!r}, seed {game.seed}: {state}")
    cloud = data["cloud"]
    print(f"cloud: dot ({cloud['col']}, {cloud['row']}), letter {cloud['letter']}")
    print("standings:")
    for line in describe_standings(game):
        print(line)
    print("ships:")
    for ship in game.ships():
        where = ship.location or ship.status.value
        print(f"  {ship.id:<9} {where:<10} ({ship.status.value}; previous port "
              f"{ship.previous_port})")
    return 0


def run_new(args: argparse.Namespace) -> int:
    board = load_board(args.board)
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "big")
    state_dir = prepare_state_dir(args.state_dir or state_dir_default(), write=True)
    try:
        lock = StateLock(state_dir, "bermuda-hw game new").acquire()
    except StateLockedError as exc:
        holder = f"process {exc.pid}" if exc.pid is not None else "another process"
        raise StateLockedError(
            f"{state_dir}: the daemon ({holder}) is running on this journal: start the new "
            "game at the table (a long press of spin once the game is over), or stop the "
            "service first (systemctl stop bermuda-hw)", exc.pid) from None
    with lock, Journal.in_state_dir(state_dir) as journal:
        old = journal.current()
        game = Game.new(args.players, seed=seed, board=board)
        game_id = journal.start(game)
    if old is not None:
        print(f"game {old.id} archived")
    print(f"game {game_id}: {args.players} players ({', '.join(game.order)} in turn order), "
          f"seed {seed}")
    return 0
