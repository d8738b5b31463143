"""The stable interfaces: `board show --json`, `detect --json`, and `render`."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from bermuda_hw.cli import main
from bermuda_hw.rules.board import Board


def test_board_show_json_has_what_vision_clients_need(
    capsys: pytest.CaptureFixture[str], classic_board: Board
) -> None:
    assert main(["board", "show", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["board"] == {"width_mm": 508.0, "height_mm": 508.0}
    assert {s["kind"] for s in doc["spaces"]} == {"path", "port"}
    assert all({"id", "kind", "x_mm", "y_mm"} <= set(s) for s in doc["spaces"])
    home = next(p for p in doc["ports"] if p["id"] == "HOME")
    assert home["product"] == "home" and home["berths"][0] == {"x_mm": 49.0, "y_mm": 241.0}
    dots = doc["grid"]["dots"]
    assert len(dots) == 81 and [d for d in dots if d["centre"]] == [
        {"col": 4, "row": 4, "x_mm": 254.0, "y_mm": 254.0, "centre": True, "outside": False}
    ]
    markers = doc["markers"]
    assert markers["dictionary"] == "DICT_4X4_50"
    assert [m["id"] for m in markers["corners"]] == [0, 1, 2, 3]
    assert all({"id", "x_mm", "y_mm", "size_mm"} <= set(m) for m in markers["corners"])
    assert markers["cloud"] == {"id": 10, "x_mm": 254.0, "y_mm": 254.0, "size_mm": 40.0}
    assert doc["cloud"]["footprint_radius_mm"] == classic_board.cloud.footprint_radius_mm
    assert doc["ship_colors"] == ["blue", "yellow", "green", "red"]


def test_render_then_detect(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frame = tmp_path / "frame.png"
    truth_file = tmp_path / "truth.json"
    assert (
        main(["render", "--simulate", str(frame), "--seed", "5", "--truth", str(truth_file)]) == 0
    )
    assert main(["--simulate", "render", str(tmp_path / "again.png"), "--seed", "5"]) == 0
    assert frame.read_bytes() == (tmp_path / "again.png").read_bytes()  # same seed, same frame
    capsys.readouterr()
    truth = json.loads(truth_file.read_text())

    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"\xff\xd8 broken")
    black = tmp_path / "black.png"
    cv2.imwrite(str(black), np.zeros((480, 640, 3), np.uint8))
    code = main(
        ["detect", str(frame), str(black), str(bad), "--json", "--annotate", str(tmp_path / "ann")]
    )
    out = capsys.readouterr()
    assert code == 1  # one file could not be read at all
    assert "Traceback" not in out.err
    entries = json.loads(out.out)
    assert [e["image"] for e in entries] == [str(frame), str(black), str(bad)]
    good, no_board, unreadable = entries
    for e in entries:
        assert {"image", "board_found", "occluded", "ships", "cloud"} <= set(e)
    assert good["board_found"] is True and good["occluded"] is False
    for ship in good["ships"]:
        assert set(ship) >= {"color", "space", "x_mm", "y_mm"}
    assert len(good["ships"]) == len(
        [
            s
            for s in truth["ships"]
            if truth["cloud"] is None
            or np.hypot(s["x_mm"] - truth["cloud"]["x_mm"], s["y_mm"] - truth["cloud"]["y_mm"])
            > 70.0
        ]
    )
    if truth["cloud"] is not None:
        assert set(good["cloud"]) >= {"col", "row", "letter", "x_mm", "y_mm"}
        assert abs(good["cloud"]["x_mm"] - truth["cloud"]["x_mm"]) < 5.0
    assert no_board["board_found"] is False and "board not found" in no_board["error"]
    assert unreadable["board_found"] is False and "not a readable image" in unreadable["error"]
    assert (tmp_path / "ann" / "frame.annotated.png").is_file()


def test_detect_all_good_exits_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frame = tmp_path / "start.png"
    assert main(["render", str(frame), "--start", "--still"]) == 0
    capsys.readouterr()
    assert main(["detect", str(frame), "--json"]) == 0
    [entry] = json.loads(capsys.readouterr().out)
    assert entry["cloud"]["letter"] == "A" and (entry["cloud"]["col"], entry["cloud"]["row"]) == (
        4,
        4,
    )
    assert sorted(s["space"] for s in entry["ships"]) == sorted(
        ["LUMBER", "OIL", "BANANAS", "SUGAR"] * 4
    )


def test_calibrate_writes_a_file_detect_can_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = tmp_path / "start.png"
    main(["render", str(frame), "--start", "--seed", "2"])
    cal = tmp_path / "colors.toml"
    assert main(["detect", str(frame), "--calibrate", str(cal)]) == 0
    capsys.readouterr()
    assert main(["detect", str(frame), "--calibration", str(cal), "--json"]) == 0
    [entry] = json.loads(capsys.readouterr().out)
    assert len(entry["ships"]) == 16
    # The board's learned look is saved beside the file, which names it.
    assert (tmp_path / "colors.background.png").is_file()
    assert 'image = "colors.background.png"' in cal.read_text()
    (tmp_path / "colors.background.png").unlink()
    assert main(["detect", str(frame), "--calibration", str(cal)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("bermuda-hw: error: ") and "colors.background.png" in err
    assert len(err.strip().splitlines()) == 1


def test_bad_calibration_file_is_a_clean_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cal = tmp_path / "colors.toml"
    cal.write_text("[colors.red]\nlab = 'red'\n")
    assert main(["detect", str(tmp_path / "x.png"), "--calibration", str(cal)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("bermuda-hw: error: ") and "colors.red.lab" in err
