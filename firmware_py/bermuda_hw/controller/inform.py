"""Which request tells tied moves apart best: their bumped ships put back, or a question.

When the belief leaves moves tied (`ship_phase.Tied`), the table can be asked two
things. Each is worth what it is expected to tell, in bits: the mutual information
between the move truly made and what the table does in reply.

- **A put-back** ("if your move bumped a ship, put it back in its port"). A player
  who follows it (`FOLLOW`) leaves the board of the move they made with its ships
  back, which the camera reads as surely as any move: moves whose boards with their
  ships back differ are told apart, moves that leave the same board are not. A
  player who lets it pass leaves the board as it was: nothing is told. It is only
  ever asked when a ship put in a wrong port cannot leave another move's board
  (`referee.putback_tells`): a request must never make the board lie.
- **A question** ("which move did you make?", "did you roll 2 or 5?"). A person
  presses the right option (`ANSWER_RIGHT`), else any other option alike, "none of
  these" included.

A wrong press is worse than no press: it commits a move nobody made, to be found and
undone. The question's worth is therefore what it tells less `WRONG_COST` for every
move it is expected to commit wrongly; a request let pass commits nothing and is made
again. The put-back is asked first when it is worth at least as much as the question;
the question follows if the put-back leaves the moves tied. With the rates below, a
put-back that tells the moves apart (`referee.putback_tells` makes sure it does) is
worth more for two to four moves however weighed (a tie of more is never asked:
`ship_phase.MAX_OPTIONS`); at a table whose players let requests pass more often than
not, the question would come first. Both figures are rates of
people at a table, not of the simulated players: a person asked to do something
with their hands on a game they know does it more often than not, and answers a
question about their own move rightly nearly always.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

#: How often a player asked to put a bumped ship back does so before the request is
#: repeated: people let one request in three or four pass while they talk or think.
FOLLOW = 0.7
#: How often a person's answer about their own move is the right option: one press in
#: ten is a miscount of presses, a wrong tap, or a misremembered roll.
ANSWER_RIGHT = 0.9


#: What a move committed on a wrong press costs, in bits: at least what it claimed to tell
#: (the record holds a wrong move until the table finds and undoes it).
WRONG_COST = 1.0


def entropy(weights: Sequence[float]) -> float:
    """The entropy, in bits, of the distribution proportional to `weights`."""
    total = sum(weights)
    return -sum(w / total * math.log2(w / total) for w in weights if w > 0.0)


def putback_information(
    weights: Sequence[float], boards: Sequence[Hashable], follow: float = FOLLOW
) -> float:
    """The bits a put-back request tells of moves with prior `weights` whose boards, with
    their ships back, are `boards` (equal boards: the camera cannot tell those moves apart),
    followed with probability `follow`."""
    if len(weights) != len(boards):
        raise ValueError("one board per move")
    by_board: dict[Hashable, float] = {}
    for weight, board in zip(weights, boards, strict=True):
        by_board[board] = by_board.get(board, 0.0) + weight
    # followed: the board tells which class of equal boards the move is in; else nothing
    return follow * entropy(list(by_board.values()))


def question_information(weights: Sequence[float], right: float = ANSWER_RIGHT) -> float:
    """The bits a question tells of moves with prior `weights`: one option per move and
    "none of these"; the right option pressed with probability `right`, else any other
    alike."""
    n = len(weights) + 1  # the moves, and "none of these"
    total = sum(weights)
    prior = [w / total for w in weights]
    wrong = (1.0 - right) / (n - 1)
    # P(answer a) = sum over moves m of P(m) P(a | m)
    answers = [sum(p * (right if a == m else wrong) for m, p in enumerate(prior)) for a in range(n)]
    given = -(right * math.log2(right) + (n - 1) * wrong * math.log2(wrong)) if wrong else 0.0
    return entropy(answers) - given


def wrong_commits(weights: Sequence[float], right: float = ANSWER_RIGHT) -> float:
    """How likely a question about moves of prior `weights` commits a move not made: a
    wrong press that lands on another move (not on "none of these")."""
    n = len(weights) + 1
    return (1.0 - right) * (len(weights) - 1) / (n - 1)


def question_worth(weights: Sequence[float], right: float = ANSWER_RIGHT) -> float:
    """What a question is worth, in bits: what it tells, less `WRONG_COST` per move it is
    expected to commit wrongly."""
    return question_information(weights, right) - WRONG_COST * wrong_commits(weights, right)


def putback_first(
    weights: Sequence[float],
    boards: Sequence[Hashable],
    follow: float = FOLLOW,
    right: float = ANSWER_RIGHT,
) -> bool:
    """Whether a put-back is the better first request for tied moves (see the module)."""
    told = putback_information(weights, boards, follow)
    return told > 0.0 and told >= question_worth(weights, right)
