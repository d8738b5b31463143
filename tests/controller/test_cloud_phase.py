"""The cloud phase's decisions on synthetic observations: the spin's plan, the closed loop on
the cloud's pose (counted retries, never time) and the captures."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from synthetic import observe

from bermuda_hw.controller.cloud_phase import (
    MAX_LETTER_RETRIES,
    MAX_POSE_RETRIES,
    Captures,
    GiveUp,
    PendingSpin,
    Replace,
    TurnTo,
    after_spin,
    capture_lines,
    place_again,
    plan_spin,
)
from bermuda_hw.rules.board import LETTERS
from bermuda_hw.rules.boardfile import load_board
from bermuda_hw.rules.candidates import contents
from bermuda_hw.rules.events import Spun
from bermuda_hw.rules.game import Game, Phase
from bermuda_hw.rules.record import to_json
from bermuda_hw.vision.types import BoardObservation, CloudReading

BOARD = load_board()


def cloud_phase_sweeping(seed: int) -> tuple[Game, PendingSpin]:
    """A game at its cloud phase whose next spin sweeps some ship, and that spin's plan."""
    rng = random.Random(seed)
    game = Game.new(rng.choice((2, 3, 4)), seed=seed, board=BOARD)
    while not game.is_over():
        if game.phase is Phase.CLOUD:
            pending = plan_spin(game, None)
            if pending.swept:
                return game, pending
            game.cloud_phase()
            continue
        game.roll_die()
        game.push(rng.choice(game.legal_moves()))
    raise AssertionError("no spin swept a ship in that game")


def seen(
    game: Game, pending: PendingSpin, *, gone: frozenset[str] = frozenset()
) -> BoardObservation:
    """The board after the spin, the cloud where the plan has it, without the `gone` ships."""
    places: dict[str, list[str]] = {p: list(c) for p, c in contents(game).items()}
    for sid in gone:
        ship = game.ship(sid)
        assert ship.location is not None
        places[ship.location].remove(ship.color)
    observation = observe(BOARD, places)
    col, row = pending.end
    x, y = BOARD.grid.dot_mm(col, row)
    cloud = CloudReading(col, row, pending.spin.letter, x, y, 0.0)
    return replace(observation, cloud=cloud)


@pytest.fixture(scope="module")
def spun() -> tuple[Game, PendingSpin]:
    return cloud_phase_sweeping(7)


def test_the_plan_is_the_spin_the_game_then_makes(spun: tuple[Game, PendingSpin]) -> None:
    game, pending = spun
    before = to_json(game)
    again = plan_spin(game, None)
    assert to_json(game) == before  # the preview changes nothing
    assert again == pending
    events = game.copy().cloud_phase(None, capture=())
    assert next(e.spin for e in events if isinstance(e, Spun)) == pending.spin


def test_the_cloud_where_planned_decides_the_captures(spun: tuple[Game, PendingSpin]) -> None:
    game, pending = spun
    taken = frozenset(sorted(pending.swept)[:1])
    after, decision = after_spin(game, pending, seen(game, pending, gone=taken))
    assert decision == Captures(taken, ())
    assert after == pending
    _, decision = after_spin(game, pending, seen(game, pending))
    assert decision == Captures(frozenset(), ())


def test_a_swept_place_under_the_cloud_is_decided_provisionally(
    spun: tuple[Game, PendingSpin],
) -> None:
    game, pending = spun
    place = game.ship(sorted(pending.swept)[0]).location
    assert place is not None
    observation = seen(game, pending)
    hidden = replace(observation, hidden_spaces=frozenset({place}))
    _, decision = after_spin(game, pending, hidden)
    assert isinstance(decision, Captures)
    assert decision.unseen == (place,)


def test_a_cloud_out_of_place_is_placed_again_then_faults(
    spun: tuple[Game, PendingSpin],
) -> None:
    game, pending = spun
    observation = seen(game, pending)
    assert observation.cloud is not None
    col = pending.end[0]
    elsewhere = replace(
        observation,
        cloud=replace(observation.cloud, col=col + 1 if col + 1 < BOARD.grid.cols else 0),
    )
    unseen = replace(observation, cloud=None)
    state = pending
    for attempt in range(1, MAX_POSE_RETRIES + 1):
        state, decision = after_spin(game, state, elsewhere if attempt % 2 else unseen)
        assert isinstance(decision, Replace)
        assert decision.attempt == attempt and decision.end == pending.end
    state, decision = after_spin(game, state, elsewhere)
    assert isinstance(decision, GiveUp)
    assert "belts" in str(decision)
    # a stall of the spin itself counts as one of the same attempts
    assert isinstance(place_again(pending, "the move was aborted")[1], Replace)


def test_a_wrong_letter_is_turned_then_faults(spun: tuple[Game, PendingSpin]) -> None:
    game, pending = spun
    observation = seen(game, pending)
    assert observation.cloud is not None
    other = (pending.spin.letter + 1) % len(LETTERS)
    turned = replace(observation, cloud=replace(observation.cloud, letter=other))
    state = pending
    for _ in range(MAX_LETTER_RETRIES):
        state, decision = after_spin(game, state, turned)
        assert decision == TurnTo(other, pending.spin.letter)
    _, decision = after_spin(game, state, turned)
    assert isinstance(decision, GiveUp)
    assert "coupling" in str(decision)
    # a letter set right decides the captures, the retries spent kept
    state, decision = after_spin(game, state, observation)
    assert isinstance(decision, Captures)
    assert state.letter_retries == MAX_LETTER_RETRIES


def test_the_table_is_told_the_captures_the_survivors_and_what_waits(
    spun: tuple[Game, PendingSpin],
) -> None:
    game, pending = spun
    taken = frozenset(sorted(pending.swept)[:1])
    left = sorted(pending.swept - taken)
    events = game.copy().cloud_phase(None, capture=taken)
    lines = capture_lines(events, pending, Captures(taken, ("S9",)))
    assert lines[0].startswith("cloud: ")
    assert any("S9" in line and "checked when it has left" in line for line in lines)
    assert any(", ".join(left) in line for line in lines if "still on the board" in line) == bool(
        left
    )
    assert any("outside dot" in line for line in lines) == pending.leaves_board
