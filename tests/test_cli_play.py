"""`bermuda-hw --simulate`: one complete game, its log and standings; no game without --simulate."""

from __future__ import annotations

import random
import re
from importlib import resources
from pathlib import Path

import pytest

from bermuda_hw.cli import main
from bermuda_hw.rules.game import Game, GameOptions
from bermuda_hw.rules.play import random_chooser, simulate_game


def test_simulate_plays_a_whole_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--simulate", "--players", "3", "--seed", "7"]) == 0
    out = capsys.readouterr().out
    assert "3 players (blue, yellow, green), seed 7" in out
    assert "round 1\n" in out
    assert re.search(r"^  (blue|yellow|green) rolls [1-6]: ", out, re.M)
    assert re.search(r"^  cloud: spin [A-H] ", out, re.M)
    assert "game over in round" in out
    standings = out.split("standings:\n")[1].splitlines()
    assert len(standings) == 3
    # the log's outcome is the library's outcome for the same seed
    expected = simulate_game(3, seed=7).game.outcome()
    assert expected is not None
    assert str(expected) in out


def test_same_seed_same_log(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--simulate", "--players", "2", "--seed", "12"])
    first = capsys.readouterr().out
    main(["--simulate", "--players", "2", "--seed", "12"])
    assert capsys.readouterr().out == first


def test_log_shows_cards_bumps_and_captures(capsys: pytest.CaptureFixture[str]) -> None:
    seen: set[str] = set()
    for seed in range(40):
        main(["--simulate", "--players", "4", "--seed", str(seed)])
        out = capsys.readouterr().out
        for word in ("card worth", "bonus card", "is bumped", "captured:", "lost for good"):
            if word in out:
                seen.add(word)
        if len(seen) == 5:
            break
    assert seen == {"card worth", "bonus card", "is bumped", "captured:", "lost for good"}


def test_without_simulate_there_is_no_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    captured = capsys.readouterr()
    assert "bermuda-hw run " in captured.err
    assert "--simulate" in captured.err
    assert captured.out == ""


def test_players_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--simulate", "--players", "5"])
    assert "2 to 4 players" in capsys.readouterr().err


def test_board_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = resources.files("bermuda_hw.rules").joinpath("data/classic.toml").read_text()
    mine = tmp_path / "mine.toml"
    mine.write_text(text.replace('name = "classic"', 'name = "mine"'))
    assert main(["--simulate", "--seed", "1", "--board", str(mine)]) == 0
    assert "board 'mine'" in capsys.readouterr().out
    assert main(["--simulate", "--board", str(tmp_path / "none.toml")]) == 1
    assert "file not found" in capsys.readouterr().err


def test_library_loop_takes_any_chooser() -> None:
    result = simulate_game(
        2,
        seed=4,
        options=GameOptions(digital_ledger=True),
        choose=random_chooser(random.Random(1)),
    )
    assert isinstance(result.game, Game)
    assert result.game.is_over()
    assert [r.number for r in result.rounds] == list(range(1, len(result.rounds) + 1))
