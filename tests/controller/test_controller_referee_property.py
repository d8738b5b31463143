"""Property: on rendered boards, the referee commits the true consequence or asks, never another.

Random reachable positions (whole rounds played by the engine), a random legal
move with a random die (known to the referee or not), bumped ships put back at
once (the mover set down anywhere from where the bumped ship stood to beside
it) or not yet (the bumped ship where it stood, the mover beside it; always not
yet where the virtual die's roll told the player so, `same_board_bumps`), a mover
on an empty space on its centre give or take a millimetre, another token nudged
by a hand, a random camera and printing: the board is rendered before and after
the move and read through the reader and the stabiliser, as the controller
reads it. The colours' verdict never names another consequence, and the whole decision
(the belief, with the board before as the reference for how far a token moved) never takes
one.
"""

from __future__ import annotations

import math
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from referee_helpers import BESIDE_MM, Camera

from bermuda_hw.controller.referee import Outcome, judge, same_board_bumps
from bermuda_hw.controller.ship_phase import Take, decide
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.candidates import consequence, contents
from bermuda_hw.rules.game import Game, Phase
from bermuda_hw.sim.render import CameraModel, Palette

BOARD = load_board()


def reachable(players: int, seed: int, turns: int) -> Game:
    """A position in the ship phase after `turns` turns played by the engine."""
    game = Game.new(players, seed=seed, board=BOARD)
    rng = random.Random(seed)
    for _ in range(turns):
        if game.is_over():
            break
        if game.phase is Phase.CLOUD:
            game.cloud_phase(None)
            continue
        game.roll_die()
        game.push(rng.choice(game.legal_moves()))
    if game.phase is Phase.CLOUD and not game.is_over():
        game.cloud_phase(None)
    return game


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    players=st.integers(2, 4),
    seed=st.integers(0, 10_000),
    turns=st.integers(0, 40),
    pick=st.randoms(use_true_random=False),
    put_back=st.booleans(),
    set_down_mm=st.floats(-7.0, 7.0),
    known=st.booleans(),
    nudge_mm=st.floats(-4.0, 4.0),
    told=st.booleans(),
)
def test_the_true_consequence_or_a_question(
    players: int,
    seed: int,
    turns: int,
    pick: random.Random,
    put_back: bool,
    set_down_mm: float,
    known: bool,
    nudge_mm: float,
    told: bool,
) -> None:
    game = reachable(players, seed, turns)
    if game.is_over() or game.phase is not Phase.SHIPS:
        return
    die = pick.randint(1, 6)
    move = pick.choice(game.legal_moves(die))
    if move.is_pass:
        return
    done = game.copy()
    done.set_die(die)
    bumped = [s for s in game.ships_at(move.end) if s != move.ship]
    done.push(move)
    board = {p: list(c) for p, c in contents(done).items()}
    short = move.end not in BOARD.ports and move.steps < die
    dice = frozenset({die}) if known else None
    # the virtual die rolled before the move: the roll names the spaces where a ship landed
    # on must stay until asked for, and the player does so
    held = same_board_bumps(game, die) if known and told else frozenset()
    if move.end in held:
        put_back = False
    if bumped and not short and move.end not in BOARD.ports and not put_back:
        for sid in bumped:
            color = game.ship(sid).color
            back = done.ship(sid).location
            if back is not None:
                board[back].remove(color)
            board.setdefault(move.end, []).append(color)
    camera = Camera(BOARD, CameraModel.random(pick, BOARD), Palette.random(pick))
    before = camera.game(game)
    # the mover set down where the ship it landed on stood, or beside it, once that ship is
    # back; beside it while it is still there; on an empty space's centre give or take a mm
    landing = max(-1.0, min(1.0, set_down_mm))
    if bumped and not short and move.end not in BOARD.ports:
        landing = set_down_mm if put_back else math.copysign(BESIDE_MM / 2, set_down_mm)
    nudge = {move.end: landing} if move.end in BOARD.spaces and move.end not in BOARD.ports else {}
    # a hand nudges another token, one the move does not touch (a held space's too)
    others = sorted(
        p
        for p, c in board.items()
        if len(c) == 1 and p not in BOARD.ports and p not in (move.start, move.end)
    )
    if others:
        nudge[pick.choice(others)] = nudge_mm
    seen = camera.game(game, board, nudge=nudge)
    verdict = judge(game, seen, dice)
    truth = consequence(done)
    # the whole decision, with the belief and the board before (how far a token moved):
    # a move it takes is the true one
    decision = decide(game, seen, dice, reference=before, held=held)
    if isinstance(decision, Take):
        assert decision.group.consequence == truth
    if verdict.outcome is Outcome.MOVE:
        assert verdict.accepted is not None and verdict.accepted.consequence == truth
    elif seen is before:
        # the move changed nothing the camera sees (a ship from one covered place to
        # another): nothing is committed, the referee waits
        assert verdict.outcome in (Outcome.NONE, Outcome.UNCLEAR), verdict
    elif verdict.outcome is Outcome.TIE:
        assert truth in {g.consequence for g in verdict.tied}
    else:
        # a mover set down off its space's centre may leave the board unclear: the referee
        # waits (and the controller asks for what it cannot place), committing nothing
        assert verdict.outcome in (Outcome.NONE, Outcome.UNCLEAR), verdict
