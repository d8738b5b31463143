"""The cloud's phase, carried out: the spin (MOVING, then AFTER_SPIN), a fault on the way, the
captures journalled once the cloud is seen where the plan has it, a wrong letter turned first
(a stand-in for the controller and the mover; synthetic observations, no frame)."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from typing import Any

from parts_table import BOARD, Table
from synthetic import observe

from bermuda_hw.controller.cloud_dispatch import finish_spin, spin
from bermuda_hw.controller.cloud_phase import plan_spin
from bermuda_hw.controller.consequences import Provisional
from bermuda_hw.controller.spin import Spinner
from bermuda_hw.controller.status import NONE_OF_THESE, NOT_YET, Mode
from bermuda_hw.errors import HardwareError
from bermuda_hw.rules.candidates import contents
from bermuda_hw.rules.game import Phase
from bermuda_hw.rules.moves import Move
from bermuda_hw.vision.types import BoardObservation, CloudReading


class Mover:
    """The cloud mover's spin and turns, recorded; `fails` is raised by a spin."""

    def __init__(self, fails: Exception | None = None) -> None:
        self.fails = fails
        self.calls: list[Any] = []

    def execute_spin(self, spin: object) -> None:
        self.calls.append("spin")
        if self.fails is not None:
            raise self.fails

    def assume_letter(self, letter: int) -> None:
        self.calls.append(("assume letter", letter))

    def turn_to(self, letter: int) -> None:
        self.calls.append(("turn to", letter))


def _at_the_cloud_phase(tmp_path: Path, mover: Mover) -> Table:
    table = Table(tmp_path, players=3, seed=7)
    rng = random.Random(7)
    game = table.game
    while game.phase is not Phase.CLOUD:
        game.roll_die()
        game.push(rng.choice(game.legal_moves()))
    table.saved(table.session.commit())
    table.spinner = Spinner(mover, table.rig, table.say)  # type: ignore[arg-type]
    table.status.mode = Mode.SPIN
    return table


def _seen(table: Table, letter: int | None = None) -> BoardObservation:
    """The board after the spin, the cloud at the plan's dot showing `letter` (the plan's)."""
    pending = table.spinner.pending
    assert pending is not None
    observation = observe(BOARD, {p: list(c) for p, c in contents(table.game).items()})
    col, row = pending.end
    x, y = BOARD.grid.dot_mm(col, row)
    shown = pending.spin.letter if letter is None else letter
    return replace(observation, cloud=CloudReading(col, row, shown, x, y, 0.0))


def test_a_spin_moves_the_cloud_then_looks_for_captures(tmp_path: Path) -> None:
    mover = Mover()
    table = _at_the_cloud_phase(tmp_path, mover)
    spin(table)
    assert mover.calls == ["spin"]
    assert [mode for mode, _ in table.modes] == [Mode.MOVING, Mode.AFTER_SPIN]
    assert table.modes[0][1] == f"spin: {table.status.last_spin}"
    assert table.spinner.pending is not None and table.rig.calls[-1] == "forget"


def test_a_spin_that_faults_is_a_fault(tmp_path: Path) -> None:
    table = _at_the_cloud_phase(tmp_path, Mover(HardwareError("the e-stop button")))
    spin(table)
    assert table.faults == ["the e-stop button"] and table.status.mode is Mode.FAULT
    assert table.spinner.pending is None


def test_the_cloud_where_the_plan_has_it_journals_the_captures(tmp_path: Path) -> None:
    table = _at_the_cloud_phase(tmp_path, Mover())
    spin(table)
    journal = len(table.game.journal)
    finish_spin(table, _seen(table))
    assert table.spinner.pending is None
    assert len(table.game.journal) > journal and table.status.seq == len(table.game.journal)
    assert len(table.journalled()) == len(table.game.journal)
    assert table.game.phase is Phase.SHIPS or table.game.is_over()
    assert any(line.startswith("totals: ") for line in table.lines)
    if not table.game.is_over():
        assert table.status.mode is Mode.SETUP
        assert table.status.message == f"round {table.game.round}: checking the board"


def test_a_wrong_letter_is_turned_before_anything_is_decided(tmp_path: Path) -> None:
    mover = Mover()
    table = _at_the_cloud_phase(tmp_path, mover)
    spin(table)
    pending = table.spinner.pending
    assert pending is not None
    journal = len(table.game.journal)
    wrong = (pending.spin.letter + 1) % 8
    finish_spin(table, _seen(table, wrong))
    assert mover.calls[-1] == ("turn to", pending.spin.letter)
    assert len(table.game.journal) == journal and table.status.mode is Mode.AFTER_SPIN
    assert table.rig.calls[-1] == "forget" and table.spinner.pending is not None


def _swept_unseen(tmp_path: Path, mover: Mover) -> tuple[Table, Provisional]:
    """At the cloud phase, a ship moved this round whose move is provisional (its landing
    out of sight) and which the planned spin sweeps."""
    for seed in range(1, 60):
        table = Table(tmp_path / str(seed), players=3, seed=seed)
        rng = random.Random(seed)
        game = table.game
        while game.phase is not Phase.CLOUD:
            game.roll_die()
            game.push(rng.choice(game.legal_moves()))
        table.saved(table.session.commit())
        swept = plan_spin(game, None).swept
        for index, entry in enumerate(game.journal):
            if "move" not in entry or entry.get("round") not in (None, game.round):
                continue
            move = Move.parse(str(entry["move"]))
            landed = not move.is_pass and game.ship(move.ship).location == move.end
            if landed and move.ship in swept:
                item = Provisional(index, str(move), (move.end,))
                table.session.provisional.append(item)
                table.spinner = Spinner(mover, table.rig, table.say)  # type: ignore[arg-type]
                table.status.mode = Mode.SPIN
                return table, item
    raise AssertionError("no seed sweeps a ship moved in its first round")


def test_a_spin_that_sweeps_a_ship_never_seen_landing_asks_first(tmp_path: Path) -> None:
    mover = Mover()
    table, item = _swept_unseen(tmp_path, mover)
    ship, end = Move.parse(item.move).ship, Move.parse(item.move).end
    spin(table)
    question = table.status.question
    assert mover.calls == [] and table.status.mode is Mode.ASK and question is not None
    assert f"is {ship} on {end}?" in question.text and question.moves[0] == (item.move,)
    assert question.options[1:] == (NONE_OF_THESE, NOT_YET)
    assert table.session.provisional == [item]


def test_yes_confirms_the_landing_and_the_next_press_spins(tmp_path: Path) -> None:
    mover = Mover()
    table, item = _swept_unseen(tmp_path, mover)
    journal = len(table.game.journal)
    spin(table)
    table.asking.give(1)
    table.answers.answer_step()
    assert f"confirmed by the table: {item.move}" in table.lines
    assert table.session.provisional == [] and table.status.mode is Mode.SPIN
    assert len(table.game.journal) == journal and mover.calls == []
    spin(table)
    assert mover.calls == ["spin"] and table.status.mode is Mode.AFTER_SPIN


def test_none_of_these_takes_the_game_back_to_before_the_move(tmp_path: Path) -> None:
    mover = Mover()
    table, item = _swept_unseen(tmp_path, mover)
    spin(table)
    table.asking.give(2)
    table.answers.answer_step()
    assert len(table.game.journal) == item.count and mover.calls == []
    assert table.game.phase is Phase.SHIPS and table.status.mode is Mode.SETUP
    assert any(
        line.startswith(f"{item.move} is not on the board (the table says so)")
        for line in table.lines
    )
    assert len(table.journalled()) == item.count  # the journal holds the game as rewound


def test_not_yet_leaves_the_spin_to_a_later_press_that_asks_again(tmp_path: Path) -> None:
    mover = Mover()
    table, item = _swept_unseen(tmp_path, mover)
    spin(table)
    table.asking.give(3)
    table.answers.answer_step()
    assert table.status.mode is Mode.SPIN and table.session.provisional == [item]
    spin(table)
    assert mover.calls == [] and table.status.mode is Mode.ASK


def test_a_spin_that_does_not_sweep_the_ship_spins(tmp_path: Path) -> None:
    mover = Mover()
    table, item = _swept_unseen(tmp_path, mover)
    game, swept = table.game, plan_spin(table.game, None).swept
    moves = [Move.parse(str(e["move"])) for e in game.journal if "move" in e]
    move = next(
        m
        for m in moves
        if not m.is_pass and m.ship not in swept and game.ship(m.ship).location == m.end
    )
    table.session.provisional[0] = replace(item, move=str(move), places=(move.end,))
    spin(table)
    assert mover.calls == ["spin"] and table.status.question is None
