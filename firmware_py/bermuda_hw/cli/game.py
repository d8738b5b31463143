"""`bermuda-hw game`: show the game, undo the last move, or archive it and start a new one.

While the daemon runs (its `daemon.json` names a live pid), every action goes
through its API, so the running controller does it; otherwise the command
works on the journal directly.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bermuda_hw.cli.options import computer_seats, new_game_options
from bermuda_hw.cli.play import _players
from bermuda_hw.cli.run import (
    add_common,
    prepare_state_dir,
    running_simulation,
    state_dir_default,
)
from bermuda_hw.controller.journal import DB_NAME, Journal, made
from bermuda_hw.controller.snapshot import game_json
from bermuda_hw.controller.statedir import StateLock, StateLockedError
from bermuda_hw.errors import StateError
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.game import DIE_MODES, Game, GameOptions
from bermuda_hw.rules.play import describe_standings
from bermuda_hw.web.client import DaemonClient


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "game",
        help="show the journalled game, or start a new one",
        description="Show the game, undo the last move, or archive it and start another. While "
        "the daemon runs, these go through its API; otherwise they work on the "
        "journal.",
    )
    commands = parser.add_subparsers(dest="game_command", metavar="ACTION", required=True)
    show = commands.add_parser("show", help="standings, phase and where every ship is")
    add_common(show)
    show.add_argument("--json", action="store_true", help="print it as JSON")
    show.set_defaults(func=run_show)
    new = commands.add_parser("new", help="archive the current game and start a new one")
    add_common(new)
    new.add_argument(
        "--players",
        type=_players,
        default=4,
        metavar="N",
        help="number of players, 2 to 4 (default 4)",
    )
    new.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="S",
        help="seed of the game's spinner (default: random)",
    )
    new.add_argument(
        "--digital-ledger",
        action="store_true",
        help="house rule: the engine shuffles and deals the cards",
    )
    new.add_argument(
        "--capture-probability",
        type=float,
        default=1.0,
        metavar="P",
        help="house rule: chance that a swept ship is captured (default 1.0)",
    )
    new.add_argument(
        "--die",
        choices=DIE_MODES,
        default=None,
        help="who rolls: the table's physical die, or a virtual die rolled by a press of "
        "spin (default: through the running daemon, the die of the game before; "
        "otherwise the physical die)",
    )
    computer_seats(new)
    new.set_defaults(func=run_new)
    undo = commands.add_parser("undo", help="take back the last move (recorded as an undo)")
    add_common(undo)
    undo.set_defaults(func=run_undo)


def _default_or_simulation() -> Path:
    """The table's state directory; when it holds no journal and a simulated table runs,
    that simulation's (said on stderr)."""
    default = state_dir_default()
    simulation = running_simulation()
    if simulation is not None and not made(default / DB_NAME):
        print(f"the running simulated table: {simulation}", file=sys.stderr)
        return simulation
    return default


def run_show(args: argparse.Namespace) -> int:
    path = args.state_dir or _default_or_simulation()
    client = DaemonClient.find(path)
    if client is not None:
        data = client.get("/api/game")
        if args.json:
            print(json.dumps(data, indent=2))
            return 0
        _print_json_game(data, client.url)
        return 0
    board = load_board(args.board)
    path = prepare_state_dir(path, write=False)
    if not made(path / DB_NAME):
        raise StateError(f"{path / DB_NAME}: no journal yet (the daemon has not written one)")
    with Journal.in_state_dir(path, read_only=True) as journal:
        loaded = journal.load(board)
    if loaded is None:
        raise StateError(f"{path / 'bermuda.db'}: no current game")
    game_id, game = loaded
    data = game_json(game_id, game)
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    state = (
        f"over: {game.outcome()}"
        if game.is_over()
        else f"round {game.round}, {game.phase.value} phase, {game.active} to play"
    )
    print(f"game {game_id} on board {board.name!r}, seed {game.seed}: {state}")
    cloud = data["cloud"]
    print(f"cloud: dot ({cloud['col']}, {cloud['row']}), letter {cloud['letter']}")
    print("standings:")
    for line in describe_standings(game):
        print(line)
    print("ships:")
    for ship in game.ships():
        where = ship.location or ship.status.value
        print(
            f"  {ship.id:<9} {where:<10} ({ship.status.value}; previous port {ship.previous_port})"
        )
    return 0


def _print_json_game(data: dict[str, Any], url: str) -> None:
    outcome = data["outcome"]
    state = (
        f"over: {', '.join(outcome['winners'])} ({outcome['reason']})"
        if outcome
        else f"round {data['round']}, {data['phase']} phase, {data['active']} to play"
    )
    print(
        f"game {data['game_id']} on board {data['board']!r}, seed {data['seed']}: {state} "
        f"(from the running daemon, {url})"
    )
    cloud = data["cloud"]
    print(f"cloud: dot ({cloud['col']}, {cloud['row']}), letter {cloud['letter']}")
    print("standings:")
    for color in data["players"]:
        print(f"  {color:<7} ${data['totals'][color]:,}")
    print("ships:")
    for ship in data["ships"]:
        print(
            f"  {ship['id']:<9} {ship['location'] or ship['status']:<10} ({ship['status']}; "
            f"previous port {ship['previous_port']})"
        )


def _options(args: argparse.Namespace, board: Board) -> GameOptions:
    if not 0.0 <= args.capture_probability <= 1.0:
        raise StateError(
            f"--capture-probability: must be from 0 to 1, not {args.capture_probability}"
        )
    return new_game_options(
        args.players,
        board,
        die=args.die or "table",
        computer=args.computer,
        digital_ledger=args.digital_ledger,
        capture_probability=args.capture_probability,
    )


def _writer_lock(state_dir: Path, command: str, instead: str) -> StateLock:
    """The state directory's lock for a command that writes the journal; refused, naming
    the daemon and what to do instead, while the daemon holds it."""
    try:
        return StateLock(state_dir, f"bermuda-hw {command}").acquire()
    except StateLockedError as exc:
        holder = f"process {exc.pid}" if exc.pid is not None else "another process"
        raise StateLockedError(
            f"{state_dir}: the daemon ({holder}) is running on this journal and its page "
            f"does not answer here: {instead}, or stop the service first (sudo systemctl "
            "stop bermuda-hw); nothing was changed",
            exc.pid,
        ) from None


def run_new(args: argparse.Namespace) -> int:
    board = load_board(args.board)
    options = _options(args, board)
    state_dir = args.state_dir or state_dir_default()
    client = DaemonClient.find(state_dir)
    if client is not None:
        sent = asdict(options)
        if args.die is None:
            del sent["die"]  # the daemon keeps the die of the game before
        request: dict[str, Any] = {"players": args.players, "options": sent}
        if args.seed is not None:
            request["seed"] = args.seed
        print(client.act("new-game", request))
        return 0
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "big")
    state_dir = prepare_state_dir(state_dir, write=True)
    lock = _writer_lock(
        state_dir,
        "game new",
        "start the new game at the table (a long press of spin once the game is over)",
    )
    with lock, Journal.in_state_dir(state_dir) as journal:
        old = journal.current()
        game = Game.new(args.players, seed=seed, board=board, options=options)
        game_id = journal.start(game)
    if old is not None:
        print(f"game {old.id} archived")
    print(
        f"game {game_id}: {args.players} players ({', '.join(game.order)} in turn order), "
        f"seed {seed}"
    )
    return 0


def run_undo(args: argparse.Namespace) -> int:
    state_dir = args.state_dir or state_dir_default()
    client = DaemonClient.find(state_dir)
    if client is not None:
        print(client.act("undo"))
        return 0
    board = load_board(args.board)
    state_dir = prepare_state_dir(state_dir, write=True)
    # the daemon without its page (`run --no-web`, `[web] enabled = false`, a page that did
    # not start) holds the lock: an undo written behind it would be undone by its next commit
    lock = _writer_lock(
        state_dir,
        "game undo",
        "undo at the table's page, or with the page on (`[web] enabled = true`)",
    )
    with lock, Journal.in_state_dir(state_dir) as journal:
        loaded = journal.load(board)
        if loaded is None:
            raise StateError(f"{journal.path}: no current game")
        game_id, game = loaded
        entries = game.journal
        if not entries or "cloud" in entries[-1]:
            raise StateError(
                "nothing to undo: no move since the last spin (a spin cannot be taken back)"
            )
        count = 2 if "move" in entries[-1] and len(entries) >= 2 and "roll" in entries[-2] else 1
        undone = journal.undo(game_id, count)
    what = next((e["move"] for e in undone if "move" in e), "the last entry")
    print(f"game {game_id}: undone {what}; set the board as it was before it")
    return 0
