"""`bermuda-hw --simulate`: play one complete game with virtual dice, spinner and captures."""

from __future__ import annotations

import argparse
import random
import sys

from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.game import Game, GameOptions
from bermuda_hw.rules.play import (
    describe_round,
    describe_standings,
    play_game,
    random_chooser,
)


def _players(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of players") from None
    if not 2 <= value <= 4:
        raise argparse.ArgumentTypeError(f"the game is for 2 to 4 players, not {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the game's options to the top-level parser."""
    group = parser.add_argument_group("game (with --simulate and no command)")
    group.add_argument(
        "--players",
        dest="play_players",
        type=_players,
        default=None,
        metavar="N",
        help="number of players, 2 to 4 (default 4)",
    )
    group.add_argument(
        "--seed",
        dest="play_seed",
        type=int,
        default=None,
        metavar="S",
        help="seed of the dice, spinner, captures and moves (default: a random seed)",
    )
    group.add_argument(
        "--board",
        dest="play_board",
        default=None,
        metavar="FILE",
        help="board file (default: the classic board)",
    )


GAME_OPTIONS = {"play_players": "--players", "play_seed": "--seed", "play_board": "--board"}


def misplaced_options(args: argparse.Namespace) -> list[str]:
    """The game's options given before a subcommand, where only the quick game reads them."""
    return [flag for dest, flag in GAME_OPTIONS.items() if getattr(args, dest, None) is not None]


def run(args: argparse.Namespace) -> int:
    """Play one simulated game and print its log; without --simulate, explain and exit 2."""
    if not args.simulate:
        print(
            "bermuda-hw: no command given.\n"
            "  bermuda-hw run                                   runs the table (the service)\n"
            "  bermuda-hw run --simulate                        runs the simulated table\n"
            "  bermuda-hw --simulate [--players N] [--seed S]   plays a quick virtual game\n"
            "  bermuda-hw --help                                lists the commands",
            file=sys.stderr,
        )
        return 2
    board = load_board(args.play_board)
    seed = args.play_seed if args.play_seed is not None else random.SystemRandom().randrange(2**31)
    game = Game.new(args.play_players or 4, seed=seed, board=board, options=GameOptions())
    print(
        f"bermuda-hw --simulate: {len(game.players)} players ({', '.join(game.players)}),"
        f" seed {seed}, board {board.name!r}"
    )
    for i, rolls in enumerate(game.setup_rolls):
        label = "first roll" if i == 0 else "tie, roll again"
        print(f"{label}: " + ", ".join(f"{c} {d}" for c, d in rolls.items()))
    print(f"{game.order[0]} goes first; order {' -> '.join(game.order)}")
    print("each player has one ship in every product port; the Home Port is empty")
    choose = random_chooser(random.Random(f"moves:{seed}"))
    rounds = 0
    for record in play_game(game, choose):
        rounds = record.number
        for line in describe_round(record):
            print(line)
    outcome = game.outcome()
    assert outcome is not None
    print(f"game over in round {rounds}: {outcome}")
    print("standings:")
    for line in describe_standings(game):
        print(line)
    return 0
