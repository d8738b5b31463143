"""The page's finished games: the list and totals, and any game replayed step by step, read
from the history beside the journal through a read-only connection of the page's own."""

from __future__ import annotations

from pathlib import Path

import pytest

from bermuda_hw.controller.history import History
from bermuda_hw.controller.journal import Journal
from bermuda_hw.errors import StateError
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.computer import ComputerPlayer
from bermuda_hw.rules.game import Game
from bermuda_hw.rules.play import play_round
from bermuda_hw.web.finished import FinishedGames


def _finished(journal: Journal, board: Board, seed: int) -> tuple[int, Game]:
    game = Game.new(2, seed=seed, board=board)
    game_id = journal.start(game)
    seats = {c: ComputerPlayer("easy", seed=seed + k) for k, c in enumerate(game.players)}
    while not game.is_over():
        play_round(game, lambda g, m: seats[g.active](g, m))
        journal.sync(game_id, game)
    return game_id, game


def test_the_list_the_totals_and_a_replay_to_the_final_board(tmp_path: Path, board: Board) -> None:
    finished = FinishedGames(tmp_path, board)
    assert finished.listing() == {"games": [], "by_colour": {}, "by_player": {}}  # no journal
    with Journal.in_state_dir(tmp_path) as journal:
        first, _ = _finished(journal, board, seed=3)
        second, game = _finished(journal, board, seed=4)
        assert finished.listing()["games"] == []  # no history kept yet: nothing to list
        history = History(journal)
        for game_id in (first, second):
            history.record(game_id, board)
        listing = finished.listing()
        assert [g["game_id"] for g in listing["games"]] == [second, first]
        outcome = game.outcome()
        assert outcome is not None
        assert listing["games"][0]["winners"] == list(outcome.winners)
        colours = listing["by_colour"]
        assert sum(c["games"] for c in colours.values()) == 4
        assert sum(c["wins"] for c in colours.values()) >= 2
        replay = finished.replay(second)
    steps = replay["steps"]
    assert replay["game"]["game_id"] == second
    assert steps[0]["entry"] is None and len(steps) == len(game.journal) + 1
    last = steps[-1]
    assert last["totals"] == game.totals()
    assert {s["id"]: s["location"] for s in last["ships"]} == {
        s.id: s.location for s in game.ships()
    }
    assert last["positions"] == {k: list(v) for k, v in game.ship_positions().items()}
    moves = [s["entry"]["move"] for s in steps[1:] if "move" in s["entry"]]
    assert moves == [e["move"] for e in game.journal if "move" in e]
    with pytest.raises(StateError, match="no finished game 99"):
        finished.replay(99)


def test_a_game_in_play_is_not_a_finished_game(tmp_path: Path, board: Board) -> None:
    with Journal.in_state_dir(tmp_path) as journal:
        History(journal)
        journal.start(Game.new(2, seed=1, board=board))
    with pytest.raises(StateError, match="no finished game 1"):
        FinishedGames(tmp_path, board).replay(1)


def test_an_empty_journal_file_lists_no_games(tmp_path: Path, board: Board) -> None:
    # a power cut after the daemon created the file and before SQLite wrote to it
    (tmp_path / "bermuda.db").touch(mode=0o600)
    finished = FinishedGames(tmp_path, board)
    assert finished.listing() == {"games": [], "by_colour": {}, "by_player": {}}
    with pytest.raises(StateError, match="no finished game 1"):
        finished.replay(1)
