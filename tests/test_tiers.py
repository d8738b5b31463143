"""The suite's tiers: a test is marked `table` or `browser` from the fixtures it uses, and
`frames` from the renderers it draws with (tests/conftest.py), so `make check` leaves out
the tests that build a whole simulated table, draw camera frames or open a browser."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# pytest's own collection of some files, printing each test's markers
COLLECT = """
import json, sys
import pytest

class Markers:
    def pytest_collection_finish(self, session):
        print(json.dumps({item.nodeid: sorted({m.name for m in item.iter_markers()})
                          for item in session.items}))

sys.exit(pytest.main(["--collect-only", "-q", "-p", "no:xdist", "-p", "no:cacheprovider",
                      *sys.argv[1:]], plugins=[Markers()]))
"""


def markers(*files: str) -> dict[str, set[str]]:
    result = subprocess.run(
        [sys.executable, "-c", COLLECT, *files],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    line = next(x for x in result.stdout.splitlines() if x.startswith("{"))
    return {node: set(marks) for node, marks in json.loads(line).items()}


def test_the_markers_follow_the_fixtures() -> None:
    table_file = "tests/controller/test_controller_table.py"  # make_table
    truth = "tests/controller/test_controller_truth.py"  # whole_game, table_dir, neither
    browser_file = "tests/web/test_web_browser.py"  # browser, and serve (a table)
    plain = "tests/controller/test_belief.py"  # no table, no frame: synthetic evidence
    helper = "tests/controller/test_controller_referee_tokens.py"  # frames via referee_helpers
    shot = "tests/vision/test_vision_counts.py"  # frames via `shoot` and independent_render
    marks = markers(table_file, truth, browser_file, plain, helper, shot)

    def of(file: str) -> list[set[str]]:
        found = [m for node, m in marks.items() if node.startswith(file + "::")]
        assert found, file
        return found

    assert all("table" in m for m in of(table_file))
    assert all({"table", "browser"} <= m for m in of(browser_file))
    assert all(not {"table", "browser", "frames"} & m for m in of(plain))
    # the frames tier: a test that draws, itself, through a fixture or through a helper
    drawn = [m for node, m in marks.items() if node.startswith((helper, shot))]
    assert sum("frames" in m for m in drawn) == len(drawn) - 2
    assert not {"table", "browser"} & set().union(*drawn)
    assert "frames" in marks[f"{helper}::test_a_ship_left_as_it_stood_reads_untouched"]  # helper
    assert "frames" in marks[f"{helper}::test_a_second_token_beside_the_first_is_seen"]  # fixture
    assert "frames" not in marks[f"{helper}::test_the_same_board_is_known_from_the_die"]
    assert "frames" not in marks[f"{shot}::test_the_likeliest_count_follows_the_area"]
    # a helper imported inside the test
    local = "tests/controller/test_controller_identify.py"
    assert (
        "frames"
        in markers(local)[f"{local}::test_a_port_with_more_ships_than_berths_shows_one_per_berth"]
    )
    assert "table" in marks[f"{truth}::test_the_table_invariant_holds_through_a_whole_game"]
    assert (
        "table"
        in marks[f"{truth}::test_a_short_game_commits_the_true_moves_and_keeps_the_table_invariant"]
    )
    # a rendered frame, no table: the frames tier
    rendered = marks[f"{truth}::test_a_fault_flips_or_drops_one_visible_ship_in_the_rendered_frame"]
    assert "frames" in rendered and not {"table", "browser"} & rendered
