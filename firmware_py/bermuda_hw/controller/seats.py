"""Computer seats and the turn's line: which seat the table plays, the move it chooses for a
rolled die, and what the table is told to do next. Pure: the daemon rolls, asks for the
table's die and shows what these return."""

from __future__ import annotations

from bermuda_hw.controller.referee import same_board_bumps
from bermuda_hw.controller.status import Suggestion
from bermuda_hw.controller.wording import either
from bermuda_hw.rules.candidates import Candidate
from bermuda_hw.rules.computer import TABLE_SEAT, ComputerPlayer, describe_move
from bermuda_hw.rules.game import Game, Phase
from bermuda_hw.rules.moves import Move


def seat_level(game: Game | None) -> str | None:
    """The level the table plays the active player at, if it is a computer seat's turn to
    move (None otherwise)."""
    if game is None or game.phase is not Phase.SHIPS or game.is_over():
        return None
    return dict(game.options.computer).get(game.active)


def standing(game: Game | None, chosen: Suggestion | None) -> Suggestion | None:
    """`chosen`, if it still stands for this very turn: the same journal length, player
    and die (an undo, a rewind or a new roll makes it stale)."""
    if (
        game is None
        or chosen is None
        or chosen.seq != len(game.journal)
        or chosen.color != (game.active if game.phase is Phase.SHIPS else "")
        or chosen.die != game.die
    ):
        return None
    return chosen


def suggest(game: Game, level: str) -> Suggestion | None:
    """The computer seat's move for the rolled die, in words (None: it has no move and
    passes). Seeded by the game and the turn: a resumed or undone turn chooses the same."""
    assert game.die is not None
    move = ComputerPlayer(level, seed=f"{game.seed}:{len(game.journal)}").choose(game)
    if move.is_pass:
        return None
    return Suggestion(
        game.active,
        level,
        game.die,
        move.ship,
        move.start,
        move.end,
        move.walk,
        len(game.journal),
        describe_move(game, move),
    )


def as_made(game: Game, candidate: Candidate, chosen: Suggestion | None) -> tuple[Move, str | None]:
    """The move a person made for the table's seat, as the referee took it: the seat's
    own move when the board shows its start and end (the board cannot tell two ships of
    one colour on one place apart, nor two walks to the same place); else the move as
    made, with a line saying it differs from the seat's."""
    made = candidate.move
    assert made is not None and candidate.die is not None
    if chosen is None:
        return made, None
    if not made.is_pass and (made.start, made.end) == (chosen.start, chosen.end):
        named = Move(chosen.ship, chosen.path)
        return (named if named in game.legal_moves(candidate.die) else made), None
    return made, (
        f"{game.active} moved {made}, not the move {TABLE_SEAT} chose "
        f"({chosen.ship} from {chosen.start} to {chosen.end}): taken as made"
    )


def hold_spaces(game: Game) -> tuple[str, ...]:
    """With the die rolled: the landing spaces where a ship the active player lands on must
    stay beside theirs until they are asked to put it back (the camera could not tell that
    bump, its ship put back at once, from another move of the die)."""
    if game.die is None or game.phase is not Phase.SHIPS:
        return ()
    return tuple(sorted(same_board_bumps(game, game.die)))


def to_move(game: Game, die_mode: str, chosen: Suggestion | None, hold: tuple[str, ...]) -> str:
    """The line for the active player's turn: the die when it is known, the computer
    seat's move, and where a ship landed on must stay for now."""
    if game.die is None and seat_level(game) is not None and die_mode == "table":
        return (
            f"{game.active} is {TABLE_SEAT}: roll the die for it, then press spin once "
            "for each pip (or choose the number on the page)"
        )
    if game.die is None:
        return f"{game.active} to move"
    if chosen is not None:
        message = f"{chosen.describe()}; move it for the table"
    else:
        message = f"{game.active} to move (die {game.die})"
    if hold:
        message += (
            f": if you land on your ship at {either(hold)}, set yours down beside it and "
            "leave both there until you are asked to put one back"
        )
    return message
