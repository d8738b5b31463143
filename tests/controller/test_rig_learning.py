"""The board's look learned at a game's start, through the rig, on rendered frames: the
places left out of what is learned keep their tokens seen."""

from __future__ import annotations

from typing import Any

from bermuda_hw.controller.rig import Rig
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.game import Game
from bermuda_hw.sim.render.compose import render
from bermuda_hw.sim.render.scene import Scene, ShipToken
from bermuda_hw.vision.reader import BoardReader, start_layout
from bermuda_hw.vision.stability import StabilitySettings

BOARD = load_board()


def _rig(reader: BoardReader) -> Rig:
    unused: Any = None
    return Rig(
        board=BOARD,
        open_camera=unused,
        mover=unused,
        clock=unused,
        reader=reader,
        stability=StabilitySettings(),
        kick=lambda: None,
        say=lambda _: None,
        watch_board=lambda _: None,
        stopping=lambda: False,
    )


def _off_ports(reader: BoardReader, tokens: list[ShipToken]) -> list[tuple[str, str | None]]:
    reading = None
    for seed in range(3):
        reading = reader.read(render(BOARD, Scene(ships=tuple(tokens)), seed=seed))
    assert reading is not None and not reading.occluded
    return sorted((s.color, s.space) for s in reading.ships if s.space not in BOARD.ports)


def _start_with_a_stray() -> tuple[Game, list[ShipToken], ShipToken, BoardReader, Rig]:
    """A new 4-player game, its start layout's tokens, a blue token on S11, and a rig
    whose reader has read the board with the stray on it."""
    game = Game.new(4, seed=1, board=BOARD)
    start = [ShipToken(c, *BOARD.ports[p].berths[i]) for (p, i), c in start_layout(BOARD).items()]
    stray = ShipToken("blue", *BOARD.spaces["S11"].position)
    reader = BoardReader(BOARD)
    return game, start, stray, reader, _rig(reader)


def test_a_token_on_a_place_left_out_of_the_learning_stays_seen() -> None:
    game, start, stray, reader, rig = _start_with_a_stray()
    assert not rig.knows_board_look()
    assert _off_ports(reader, [*start, stray]) == [("blue", "S11")]
    rig.learn_start_layout(game, also={"S11"})
    assert rig.knows_board_look()
    assert _off_ports(reader, [*start, stray]) == [("blue", "S11")]  # still a ship to take off
    assert _off_ports(reader, start) == []
    # a ship of the game set there later is seen
    blue = next(k for k, t in enumerate(start) if t.color == "blue")
    moved = [t for k, t in enumerate(start) if k != blue]
    assert _off_ports(reader, [*moved, stray]) == [("blue", "S11")]


def test_a_token_learned_with_the_board_is_not_seen_there() -> None:
    # what `also` is for: without it, a token off the game's places is the board's look
    game, start, stray, reader, rig = _start_with_a_stray()
    _off_ports(reader, [*start, stray])
    rig.learn_start_layout(game)
    assert _off_ports(reader, [*start, stray]) == []
