"""The history of finished games: kept from the journal, listed, totalled, replayed, reopened."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from bermuda_hw.controller.history import History, game_length
from bermuda_hw.controller.journal import Journal
from bermuda_hw.errors import StateError
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.computer import ComputerPlayer
from bermuda_hw.rules.game import Game, Phase
from bermuda_hw.rules.play import play_round


def _play_stored(
    journal: Journal,
    board: Board,
    seed: int,
    players: int = 2,
    stop_after_rounds: int | None = None,
) -> tuple[int, Game, int, int]:
    """A game of computer seats stored as the table stores one: started, then synced each round.

    Returns its id, the game, and the rounds and moves counted while it was played.
    """
    game = Game.new(players, seed=seed, board=board)
    game_id = journal.start(game)
    seats = {c: ComputerPlayer("easy", seed=seed + k) for k, c in enumerate(game.players)}
    rounds = moves = 0
    while not game.is_over():
        if stop_after_rounds is not None and rounds == stop_after_rounds:
            break
        record = play_round(game, lambda g, m: seats[g.active](g, m))
        rounds += 1
        moves += len(record.turns)
        journal.sync(game_id, game)
    return game_id, game, rounds, moves


def test_a_finished_game_is_kept_with_its_outcome_and_length(tmp_path: Path, board: Board) -> None:
    with Journal.in_state_dir(tmp_path) as journal:
        history = History(journal)
        game_id, game, rounds, moves = _play_stored(journal, board, seed=3)
        kept = history.record(game_id, board, names={"yellow": "Ada"}, computer={"blue": "best"})
        outcome = game.outcome()
        assert outcome is not None
        assert kept.game_id == game_id
        assert kept.winners == outcome.winners
        assert dict(kept.totals) == dict(outcome.totals) == game.totals()
        assert kept.reason == outcome.reason.value
        assert kept.players == game.players
        assert dict(kept.names) == {"yellow": "Ada", "blue": "table (best)"}
        assert dict(kept.computer) == {"blue": "best"}
        assert (kept.rounds, kept.moves) == (rounds, moves)
        assert kept.finished_utc >= kept.started_utc
        assert history.games() == [kept]
        assert history.get(game_id) == kept
        assert json.loads(json.dumps(kept.to_dict()))["winners"] == list(outcome.winners)


def test_the_history_survives_reopening_and_the_journal_still_opens(
    tmp_path: Path, board: Board
) -> None:
    with Journal.in_state_dir(tmp_path) as journal:
        history = History(journal)
        kept = [history.record(_play_stored(journal, board, seed)[0], board) for seed in (1, 2)]
    with Journal.in_state_dir(tmp_path) as journal:
        assert sorted(History(journal).games(), key=lambda g: g.game_id) == kept
        # the journal's own games are untouched by the history table
        assert [g[0] for g in journal.games()] == [k.game_id for k in kept]
    with sqlite3.connect(tmp_path / "bermuda.db") as conn:
        assert conn.execute("SELECT COUNT(*) FROM history").fetchone()[0] == 2


def test_recording_again_replaces_the_row(tmp_path: Path, board: Board) -> None:
    with Journal.in_state_dir(tmp_path) as journal:
        history = History(journal)
        game_id = _play_stored(journal, board, seed=5)[0]
        history.record(game_id, board)
        again = history.record(game_id, board, names={"blue": "Bo"})
        assert history.games() == [again]
        assert again.names["blue"] == "Bo"


def test_totals_per_colour_and_per_player(tmp_path: Path, board: Board) -> None:
    with Journal.in_state_dir(tmp_path) as journal:
        history = History(journal)
        games = []
        for seed in range(4):
            game_id, game, _, _ = _play_stored(journal, board, seed=seed + 10)
            # Ada plays yellow in every game, Bo plays blue in the first two
            names = {"yellow": "Ada"} | ({"blue": "Bo"} if seed < 2 else {})
            computer = {} if seed < 2 else {"blue": "easy"}
            history.record(game_id, board, names=names, computer=computer)
            games.append((game, names, computer))
        colours = history.by_colour()
        people = history.by_player()
    for color in ("yellow", "blue"):
        outcomes = [g.outcome() for g, _, _ in games]
        assert colours[color].games == 4
        assert colours[color].wins == sum(color in o.winners for o in outcomes if o)
        assert colours[color].usd == sum(g.totals()[color] for g, _, _ in games)
    assert people["Ada"] == colours["yellow"]
    bo = [g for g, names, _ in games if "blue" in names]
    table = [g for g, _, computer in games if "blue" in computer]
    assert people["Bo"].games == len(bo) == 2
    assert people["Bo"].usd == sum(g.totals()["blue"] for g in bo)
    assert people["table (easy)"].usd == sum(g.totals()["blue"] for g in table)
    assert people["Bo"].mean_usd == people["Bo"].usd / 2


def test_a_kept_game_replays_move_by_move_to_its_final_position(
    tmp_path: Path, board: Board
) -> None:
    with Journal.in_state_dir(tmp_path) as journal:
        history = History(journal)
        game_id, game, _, moves = _play_stored(journal, board, seed=8)
        history.record(game_id, board)
        replayed = history.replay(game_id, board)
    assert replayed.positions[-1] == game.position
    assert replayed.positions[0].phase is Phase.SHIPS
    steps = replayed.moves()
    assert len(steps) == moves
    assert [str(e["move"]) for e, _ in steps] == [e["move"] for e in game.journal if "move" in e]


def test_an_unfinished_game_and_bad_names_are_refused(tmp_path: Path, board: Board) -> None:
    with Journal.in_state_dir(tmp_path) as journal:
        history = History(journal)
        unfinished = _play_stored(journal, board, seed=4, stop_after_rounds=2)[0]
        with pytest.raises(StateError, match="not finished"):
            history.record(unfinished, board)
        finished = _play_stored(journal, board, seed=4)[0]
        with pytest.raises(StateError, match="names: green did not play"):
            history.record(finished, board, names={"green": "Cy"})
        with pytest.raises(StateError, match="computer: blue plays 'hard'"):
            history.record(finished, board, computer={"blue": "hard"})
        with pytest.raises(StateError, match="no finished game"):
            history.replay(unfinished, board)
        assert history.games() == []


def test_a_damaged_row_is_a_refusal_naming_the_file(tmp_path: Path, board: Board) -> None:
    with Journal.in_state_dir(tmp_path) as journal:
        history = History(journal)
        game_id = _play_stored(journal, board, seed=6)[0]
        history.record(game_id, board)
        journal.conn.execute("UPDATE history SET totals = '{broken' WHERE game_id = ?", (game_id,))
        with pytest.raises(StateError, match=r"bermuda\.db: history of game .* is damaged"):
            history.games()


def test_game_length_counts_rounds_begun_and_turns() -> None:
    entries: list[dict[str, object]] = [
        {"roll": 3},
        {"move": "a"},
        {"roll": 2},
        {"move": "b"},
        {"cloud": "x"},
        {"roll": 1},
        {"move": "c"},
    ]
    assert game_length(entries) == (2, 3)
    assert game_length([]) == (0, 0)


def test_a_reopened_game_is_forgotten_and_missing_games_are_caught_up(
    tmp_path: Path, board: Board
) -> None:
    with Journal.in_state_dir(tmp_path) as journal:
        # two games finished before the history was kept, one still being played
        first = _play_stored(journal, board, seed=21)
        second = _play_stored(journal, board, seed=22)
        _play_stored(journal, board, seed=23, stop_after_rounds=1)
        history = History(journal)
        added = history.record_missing(board)
        assert [k.game_id for k in added] == [first[0], second[0]]
        assert [k.totals for k in added] == [first[1].totals(), second[1].totals()]
        assert all(dict(k.names) == {c: c for c in k.players} for k in added)
        assert history.record_missing(board) == []
        # an undo reopens the second game: its row goes until it finishes again
        journal.undo(second[0], 1)
        assert history.forget(second[0]) is True
        assert history.forget(second[0]) is False
        assert [k.game_id for k in history.games()] == [first[0]]
        assert history.record_missing(board) == []
