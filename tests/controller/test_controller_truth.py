"""Whole simulated games checked against the table's truth: the table invariant at every
settled board, committed consequences against the true moves, and faults in the frames."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest

from bermuda_hw.config import Config, load_config
from bermuda_hw.rules.board import Board
from bermuda_hw.sim.faults import SceneFaults
from bermuda_hw.sim.render import CameraModel, CloudState, Scene, ShipToken, render
from bermuda_hw.sim.session import GameReport, play_game, simulate_config
from bermuda_hw.vision.reader import BoardReader

_played: dict[tuple[int, int], GameReport] = {}


@pytest.fixture(scope="module")
def sim_config() -> Config:
    return simulate_config(load_config(None))


@pytest.fixture(scope="module")
def whole_game(
    board: Board, sim_config: Config, tmp_path_factory: pytest.TempPathFactory
) -> Callable[[int, int], GameReport]:
    """One whole game as `bermuda-hw run --simulate --players P --seed S` plays it (cached)."""

    def play(players: int, seed: int) -> GameReport:
        if (players, seed) not in _played:
            state = tmp_path_factory.mktemp(f"game-{players}p-{seed}")
            _played[(players, seed)] = play_game(
                board, sim_config, state, players=players, seed=seed
            )
        return _played[(players, seed)]

    return play


def _why(report: GameReport) -> str:
    lines = [
        f"{report.players} players, seed {report.seed}: finished {report.finished}, "
        f"stalled {report.stalled!r}"
    ]
    lines += [str(v) for v in report.violations[:3]]
    lines += [str(c) for c in report.wrong[:3]]
    return "\n".join(lines)


# --- the table invariant and the regressions (whole games: slow) ------------------------


@pytest.mark.slow
def test_the_table_invariant_holds_through_a_whole_game(
    whole_game: Callable[[int, int], GameReport],
) -> None:
    report = whole_game(3, 2)
    assert report.violations == [], _why(report)


@pytest.mark.slow
def test_three_players_seed_2_finish(whole_game: Callable[[int, int], GameReport]) -> None:
    report = whole_game(3, 2)
    assert report.finished, _why(report)


@pytest.mark.slow
def test_four_players_seed_3_finish(whole_game: Callable[[int, int], GameReport]) -> None:
    report = whole_game(4, 3)
    assert report.finished, _why(report)


@pytest.mark.slow
def test_two_players_seed_3_record_every_docking_as_made(
    whole_game: Callable[[int, int], GameReport],
) -> None:
    """Round 19 of this game once denied the winning sugar card (an own-ship bump taken)."""
    report = whole_game(2, 3)
    docks = [
        c
        for c in report.checks
        if c.truth is not None
        and c.truth.end is not None
        and c.truth.end in ("SUGAR", "OIL", "BANANAS", "LUMBER", "HOME")
    ]
    assert docks
    assert [c for c in docks if c.wrong] == [], _why(report)
    assert [c for c in report.checks if c.round == 19 and c.wrong] == [], _why(report)


@pytest.mark.slow
def test_two_computer_seats_and_two_people_finish_with_no_wrong_consequence(
    board: Board, sim_config: Config, table_dir: Path
) -> None:
    """The table plays blue ("best") and green ("easy") with the virtual die: it rolls,
    chooses and says each move, a simulated person makes it, and the referee checks it."""
    from bermuda_hw.rules.game import GameOptions

    seats = (("blue", "best"), ("green", "easy"))
    report = play_game(
        board,
        sim_config,
        table_dir,
        players=4,
        seed=3,
        options=GameOptions(die="virtual", computer=seats),
    )
    assert report.finished, _why(report)
    assert report.wrong == [] and report.violations == [], _why(report)
    followed = [a for a in report.actions if "makes the table's move" in a]
    assert {a.split()[0] for a in followed} == {"blue", "green"}
    # every move of a computer seat is the one the table said
    said = [line for line in report.log if ", the table's seat, rolls" in line]
    assert len(said) >= len(followed) > 10
    assert not [line for line in report.log if "not the move the table's seat chose" in line]


# --- a short game with the truth recorded ---------------------------------------------


def test_a_short_game_commits_the_true_moves_and_keeps_the_table_invariant(
    board: Board, sim_config: Config, table_dir: Path
) -> None:
    report = play_game(board, sim_config, table_dir, players=2, seed=1, max_rounds=3)
    assert report.limited and not report.stalled
    assert report.moves >= 6
    assert all(c.truth is not None for c in report.checks)
    assert report.wrong == [], _why(report)
    assert report.violations == [], _why(report)


# --- faults in the rendered frames ------------------------------------------------------


def _scene(board: Board) -> Scene:
    ships = []
    for color, space in (("blue", "S05"), ("yellow", "S16"), ("green", "S22"), ("red", "S29")):
        s = board.spaces[space]
        ships.append(ShipToken(color, s.x_mm, s.y_mm, s.heading_deg))
    x_mm, y_mm = board.grid.dot_mm(*board.grid.centre)
    return Scene(ships=tuple(ships), cloud=CloudState(x_mm, y_mm, 0.0))


def _read(board: Board, scene: Scene) -> list[tuple[str, str | None]]:
    camera = CameraModel(width_px=640, height_px=480, focal_px=575.0)
    reading = BoardReader(board).read(render(board, scene, camera))
    return sorted(
        ((s.color, s.space) for s in reading.ships if not s.hidden),
        key=lambda p: (p[0], p[1] or ""),
    )


def test_a_fault_flips_or_drops_one_visible_ship_in_the_rendered_frame(board: Board) -> None:
    scene = _scene(board)
    truth = _read(board, scene)
    assert len(truth) == 4
    outcomes = set()
    for seed in range(6):
        faults = SceneFaults(board.ship_colors, 1.0, seed=seed)
        seen = _read(board, faults(scene))
        missing = set(truth) - set(seen)
        extra = set(seen) - set(truth)
        assert len(missing) == 1 and len(extra) <= 1
        if extra:
            assert next(iter(extra))[1] == next(iter(missing))[1]  # same place, other colour
        outcomes.add("flip" if extra else "drop")
    assert outcomes == {"flip", "drop"}


def test_a_run_fault_lasts_while_the_table_is_unchanged(board: Board) -> None:
    scene = _scene(board)
    faults = SceneFaults(board.ship_colors, 0.3, mode="run", seed=1, run_frames=5)
    shown = [faults(scene) for _ in range(40)]
    faulty = [s != scene for s in shown]
    assert any(faulty)
    first = faulty.index(True)
    assert all(faulty[first : first + 5]) and shown[first] == shown[first + 4]
    changed = dataclasses.replace(scene, ships=scene.ships[1:])
    single = SceneFaults(board.ship_colors, 0.0, mode="run")
    single._active = faults._active  # a fault that was on: the table changes, it ends
    assert single(changed) == changed
    one = SceneFaults(board.ship_colors, 0.5, mode="single", seed=2)
    runs = [one(scene) != scene for _ in range(200)]
    assert 60 < sum(runs) < 140  # about p of the frames, each on its own
