"""Saving and restoring: the JSON state, the journal and replay, and refusals of bad documents."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from bermuda_hw.errors import StateError
from bermuda_hw.rules.board import Board
from bermuda_hw.rules.cloud import CloudPose
from bermuda_hw.rules.game import Game, GameOptions, Phase
from bermuda_hw.rules.play import simulate_game
from bermuda_hw.rules.record import from_json, replay, to_dict, to_json
from bermuda_hw.rules.record import record as game_record


def test_finished_game_round_trips(classic_board: Board) -> None:
    game = simulate_game(3, seed=21, board=classic_board).game
    text = to_json(game)
    back = from_json(text, classic_board)
    assert to_json(back) == text
    assert back.outcome() == game.outcome()
    assert to_json(from_json(text)) == text  # the classic board by default


def test_document_is_plain_readable_json(classic_board: Board) -> None:
    game = Game.new(2, seed=3, board=classic_board, options=GameOptions(digital_ledger=True))
    game.roll_die()
    data = json.loads(to_json(game))
    assert data["format"] == "bermuda-hw/game"
    assert data["board"] == "classic"
    assert data["ships"][0] == {
        "id": "blue-1",
        "location": "SUGAR",
        "previous_port": "SUGAR",
        "status": "board",
    }
    assert data["cloud"] == {"col": 4, "row": 4, "letter": "A"}
    assert data["journal"] == [{"roll": game.die, "engine": True}]
    assert data["setup"]["options"]["digital_ledger"] is True


def test_replay_from_seed_and_journal(classic_board: Board) -> None:
    game = simulate_game(4, seed=5, board=classic_board).game
    record = json.loads(json.dumps(game_record(game)))  # as it would be stored
    assert to_json(replay(record, classic_board)) == to_json(game)


def test_replay_with_table_dice_spins_and_captures(classic_board: Board) -> None:
    game = Game.new(2, seed=8, board=classic_board, first_player="yellow")
    for die in (3, 5):
        game.set_die(die)
        game.push(game.legal_moves()[-1])
    game.cloud_phase("D 2 W", capture=lambda swept: sorted(swept)[:1])
    game.set_die(6)
    game.push(game.legal_moves()[0])
    assert to_json(replay(game_record(game), classic_board)) == to_json(game)


def test_replay_detects_a_journal_the_seed_does_not_give(classic_board: Board) -> None:
    game = Game.new(2, seed=8, board=classic_board)
    die = game.roll_die()
    record = game_record(game)
    record["journal"][0]["roll"] = die % 6 + 1
    with pytest.raises(StateError, match="another roll"):
        replay(record, classic_board)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("not json", "not JSON"),
        ("[]", "not a bermuda-hw/game"),
        ('{"format": "bermuda-hw/game", "version": 99}', "version 99"),
        ('{"format": "bermuda-hw/game", "version": 1, "board": "classic"}', "missing field"),
    ],
)
def test_bad_documents_are_refused(classic_board: Board, text: str, why: str) -> None:
    with pytest.raises(StateError, match=why):
        from_json(text, classic_board)


def test_bad_fields_are_named(classic_board: Board) -> None:
    data = to_dict(Game.new(2, board=classic_board))
    data["ships"][2]["location"] = "ATLANTIS"
    with pytest.raises(StateError, match=r"ships\[2\].location"):
        from_json(json.dumps(data), classic_board)
    data = to_dict(Game.new(2, board=classic_board))
    data["phase"] = "dancing"
    with pytest.raises(StateError):
        from_json(json.dumps(data), classic_board)


def test_another_board_is_refused(classic_board: Board) -> None:
    game = Game.new(2, board=classic_board)
    data = to_dict(game)
    data["board"] = "my-own"
    with pytest.raises(StateError, match="board 'my-own'"):
        from_json(json.dumps(data))
    with pytest.raises(StateError, match="not 'classic'"):
        from_json(json.dumps(data), classic_board)


def test_mid_round_state_restores_phase_and_die(classic_board: Board) -> None:
    game = Game.new(3, seed=2, board=classic_board)
    game.roll_die()
    game.push(game.legal_moves()[0])
    game.roll_die()
    back = from_json(to_json(game), classic_board)
    assert (back.phase, back.turn, back.die, back.active) == (Phase.SHIPS, 1, game.die, game.active)
    assert back.legal_moves() == game.legal_moves()


def test_location_and_status_must_agree(classic_board: Board) -> None:
    data = to_dict(Game.new(2, board=classic_board))
    data["ships"][1]["status"] = "in-cloud"
    with pytest.raises(StateError, match=r"ships\[1\] has location 'OIL' but status 'in-cloud'"):
        from_json(json.dumps(data), classic_board)


def test_replay_of_an_edited_position(
    ring: Callable[..., Board], position: Callable[..., Game]
) -> None:
    board = ring(["B"])
    game = position(board, 3, {"blue-1": "A", "yellow-2": "in-cloud", "green-1": "C"}, "green", 2)
    game.push(game.legal_moves()[0])
    game.set_cloud(CloudPose(2, 3, 5))
    replayed = replay(game_record(game), board)
    assert to_json(replayed) == to_json(game)
