"""`bermuda-hw board show`: the stable JSON interface and its errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bermuda_hw.cli import main
from bermuda_hw.rules.board import Board


def test_board_show_json_shape(capsys: pytest.CaptureFixture[str], classic_board: Board) -> None:
    assert main(["board", "show", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["board"] == {"width_mm": 508.0, "height_mm": 508.0}
    assert len(doc["spaces"]) == 46
    kinds = {s["kind"] for s in doc["spaces"]}
    assert kinds == {"path", "port"}
    for space in doc["spaces"]:
        assert {"id", "kind", "x_mm", "y_mm"} <= space.keys()
    home = next(p for p in doc["ports"] if p["product"] == "home")
    assert home["id"] == "HOME"
    assert all(set(b) == {"x_mm", "y_mm"} for b in home["berths"])
    dots = doc["grid"]["dots"]
    assert len(dots) == classic_board.grid.cols * classic_board.grid.rows
    centres = [d for d in dots if d["centre"]]
    assert [(c["col"], c["row"]) for c in centres] == [classic_board.grid.centre]
    assert {"col", "row", "x_mm", "y_mm", "centre"} <= dots[0].keys()
    markers = doc["markers"]
    assert markers["dictionary"] == "DICT_4X4_50"
    assert [m["id"] for m in markers["corners"]] == [0, 1, 2, 3]
    assert {"id", "x_mm", "y_mm", "size_mm"} <= markers["corners"][0].keys()
    assert markers["cloud"]["id"] == 10 and markers["cloud"]["size_mm"] > 0
    assert doc["cloud"]["footprint_radius_mm"] == classic_board.cloud.footprint_radius_mm
    assert doc["ship_colors"] == ["blue", "yellow", "green", "red"]


def test_board_show_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["board", "show"]) == 0
    out = capsys.readouterr().out
    assert "46 spaces (41 path spaces, 5 ports)" in out


def test_board_show_broken_file_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[board]\nname = 'x'\n", encoding="utf-8")
    assert main(["board", "show", "--board", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("bermuda-hw: error: ")
    assert str(bad) in err
    assert "board.width_mm: is missing" in err
    assert "Traceback" not in err
