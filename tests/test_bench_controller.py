"""`benchmarks/bench_controller.py` in its short smoke mode: it plays, checks and reports."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_controller.py"


@pytest.mark.slow
def test_bench_controller_smoke(capsys: pytest.CaptureFixture[str], table_dir: Path) -> None:
    spec = importlib.util.spec_from_file_location("bench_controller", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.games(5) == [(2, 1), (3, 1), (4, 1), (2, 2), (3, 2)]
    # two games at a time, in processes of their own, reported in the sets' order
    bench.main(
        [
            "--games",
            "1",
            "--fault-games",
            "1",
            "--rounds",
            "1",
            "--loop-frames",
            "0",
            "--verbose",
            "--jobs",
            "2",
        ]
    )
    out = capsys.readouterr().out
    assert "1 games, die" in out and "round limit" in out
    # a set per die mode for the obedient players and one for the people-like players
    modes = len(bench.die_modes(None))
    assert out.count("obedient players:") == modes and out.count("people players:") == modes
    assert "illegal moves journalled as legal" in out and "questions per move" in out
    assert "taken on the table's word" in out
    assert "named by a wrong answer the board could not check" in out
    # four fault settings for each die mode the rules offer (table and virtual)
    assert out.count("faults p=") == 4 * modes
    assert "0 stalled" in out
    assert "12 games in" in out and "2 at a time" in out


def test_an_unknown_style_is_named_before_any_game() -> None:
    spec = importlib.util.spec_from_file_location("bench_controller", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    from bermuda_hw.errors import ConfigError

    with pytest.raises(ConfigError, match="no player style 'careless'"):
        bench.main(["--games", "1", "--style", "careless", "--loop-frames", "0"])


def test_told_to_hold_no_ship_the_turns_line_names_no_space(
    monkeypatch: pytest.MonkeyPatch, table_dir: Path
) -> None:
    """`--no-hold` (what the instruction to leave a ship landed on earns): in its game's
    process no space is held, where the same position holds one otherwise."""
    from bermuda_hw.controller import seats
    from bermuda_hw.rules.boardfile import load_board
    from bermuda_hw.rules.game import Game

    spec = importlib.util.spec_from_file_location("bench_controller", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    # with a 1, a dock at HOME from S01, or a move onto the player's own ship on S02,
    # bumped back to HOME: the same colours everywhere
    game = Game.new(2, seed=1, board=load_board())
    a, b = (s.id for s in game.ships(game.active)[:2])
    game.set_ship(a, "S01", previous_port="SUGAR")
    game.set_ship(b, "S02", previous_port="HOME")
    game.set_die(1)
    assert seats.hold_spaces(game) == ("S02",)
    monkeypatch.setattr(seats, "same_board_bumps", seats.same_board_bumps)  # restored after
    report = bench._play(False, 2, 1, "virtual", None, 1, "obedient")
    assert report.rounds >= 1 and seats.hold_spaces(game) == ()


def test_a_report_counts_what_the_table_took_on_its_word() -> None:
    from bermuda_hw.sim.session import GameReport

    report = GameReport(2, 1)
    report.log = [
        "yellow to move (die 2): if you land on your ship at S08, set yours down beside it",
        "journalled yellow-1 S10-S11-OIL",
        "on the table's word, back where the camera cannot see: the blue ship in SUGAR",
        "yellow: did you make yellow-2 S36-S35? The camera cannot see S35: only you can tell",
        "    on the table's word: the camera cannot see S35",
    ]
    assert report.on_word == 2
