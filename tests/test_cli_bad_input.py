"""Bad input found by a sweep of every command: each is a one-line error naming file or option."""

from __future__ import annotations

import socket
from importlib import resources
from pathlib import Path

import pytest

from bermuda_hw.cli import main
from bermuda_hw.config import load_config
from bermuda_hw.errors import BoardFileError, CalibrationError, ConfigError
from bermuda_hw.rules.boardfile import load_board, parse_board
from bermuda_hw.vision.colors import load_calibration

CLASSIC = resources.files("bermuda_hw.rules").joinpath("data/classic.toml").read_text("utf-8")


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's usage errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(
    code: int, err: str, *named: str, codes: tuple[int, ...] = (1, 2)
) -> None:
    assert code in codes, err
    assert "Traceback" not in err
    lines = [x for x in err.splitlines() if "error:" in x]
    assert len(lines) == 1, err
    for text in named:
        assert text in lines[0], (text, err)


def test_a_config_file_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b"[gantry]\nmax_speed_mm_s = 1\n# caf\xe9\n")
    with pytest.raises(ConfigError, match=r"config\.toml: is not UTF-8 text \(byte 0xe9"):
        load_config(path)


def test_a_byte_order_mark_is_read_past_in_every_text_file(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("\ufeff[gantry]\njerk_mm_s3 = 0\n", encoding="utf-8")
    assert load_config(config).gantry.jerk_mm_s3 == 0
    board = tmp_path / "board.toml"
    board.write_text("\ufeff" + CLASSIC, encoding="utf-8")
    assert load_board(board).name == "classic"
    colors = tmp_path / "colors.toml"
    colors.write_text("\ufeff[colors.blue]\nlab = [33.0, 19.0, -48.0]\n", encoding="utf-8")
    assert load_calibration(colors, ("blue", "yellow")).profile("blue").lab[0] == 33.0


@pytest.mark.parametrize(
    "argv, named",
    [
        (["render", "--seed", "-1", "OUT"], "--seed"),
        (["render", "--perturb", "nan", "OUT"], "--perturb"),
        (["render", "--perturb", "1e6", "OUT"], "--perturb"),
        (["render", "--perturb", "-1", "OUT"], "--perturb"),
        (["render", "--truth", "MISSING/truth.json", "OUT"], "--truth"),
        (["render", "--truth", "DIR", "OUT"], "--truth"),
        (["render", "DIR"], "DIR"),
        (["detect", "--calibrate", "DIR", "IMAGE"], "--calibrate"),
        (["detect", "--calibrate", "MISSING/colors.toml", "IMAGE"], "--calibrate"),
    ],
)
def test_outputs_and_numbers_that_render_and_detect_refuse(
    argv: list[str], named: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    image = tmp_path / "start.png"
    assert main(["render", "--start", "--still", str(image)]) == 0
    capsys.readouterr()
    places = {
        "OUT": str(tmp_path / "out.png"),
        "DIR": str(tmp_path),
        "MISSING": str(tmp_path / "missing"),
        "IMAGE": str(image),
    }
    argv = ["/".join(places.get(p, p) for p in a.split("/")) for a in argv]
    code, _out, err = run_cli(argv, capsys)
    assert_one_line_error(code, err, places.get(named.split("/")[0], named))
    assert not (tmp_path / "out.png").exists()


def test_render_refuses_a_board_colour_it_cannot_draw(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    board = tmp_path / "board.toml"
    board.write_text(CLASSIC.replace('"green", "red"]', '"green", "white"]'), encoding="utf-8")
    assert main(["board", "show", "--board", str(board)]) == 0  # a valid board
    capsys.readouterr()
    code, _out, err = run_cli(["render", "--board", str(board), str(tmp_path / "o.png")], capsys)
    assert_one_line_error(code, err, str(board), "board.ship_colors[3]", "'white'")


@pytest.mark.parametrize(
    "line, key",
    [
        ('ship_colors = "blue"', "board.ship_colors"),
        ("ship_colors = 3", "board.ship_colors"),
        ('ship_colors = ["blue", 3]', "board.ship_colors[1]"),
    ],
)
def test_ship_colours_of_the_wrong_type(line: str, key: str) -> None:
    text = CLASSIC.replace('ship_colors = ["blue", "yellow", "green", "red"]', line)
    with pytest.raises(BoardFileError) as info:
        parse_board(text, "board.toml")
    assert info.value.key == key and info.value.file == "board.toml"


def test_spinner_letters_that_are_not_letters() -> None:
    start = CLASSIC.index("[spinner]")
    letters = CLASSIC.index("letters", start)
    end = CLASSIC.index("]", letters)
    text = CLASSIC[:letters] + "letters = [1, 2" + CLASSIC[end:]
    with pytest.raises(BoardFileError) as info:
        parse_board(text, "board.toml")
    assert info.value.key == "spinner.letters[0]"


def test_four_identical_colour_profiles(tmp_path: Path) -> None:
    path = tmp_path / "colors.toml"
    path.write_text(
        "".join(
            f"[colors.{c}]\nlab = [50.0, 10.0, 10.0]\n" for c in ("blue", "yellow", "green", "red")
        ),
        encoding="utf-8",
    )
    with pytest.raises(CalibrationError) as info:
        load_calibration(path, ("blue", "yellow", "green", "red"))
    assert info.value.key == "colors.yellow.lab" and "cannot be told apart" in str(info.value)


@pytest.mark.parametrize(
    "text, key",
    [
        ("[gantry]\npark_dot = [99, 99]\n", "gantry.park_dot"),
        ("[gantry.x]\nboard_offset_mm = 400\n", "gantry.x.board_offset_mm"),
        ("[gantry.y]\nboard_offset_mm = -100\n", "gantry.y.board_offset_mm"),
    ],
)
def test_a_rig_that_cannot_reach_the_board_is_refused_before_homing(
    text: str, key: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(text, encoding="utf-8")
    code, out, err = run_cli(
        ["run", "--simulate", "--config", str(config), "--state-dir", str(tmp_path / "state")],
        capsys,
    )
    # 78 (EX_CONFIG): the service is not restarted into the same configuration error
    assert_one_line_error(code, err, str(config), key, codes=(78,))
    assert "homing" not in out


@pytest.mark.parametrize(
    "bind",
    ["127.0.0.1:²", "127.0.0.1:" + "9" * 5000, "127.0.0.1:8080x", ":8080", "127.0.0.1:65536"],
)
def test_a_bind_address_that_is_no_host_and_port_is_refused_before_anything_starts(
    bind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(["run", "--simulate", "--bind", bind], capsys)
    assert code == 2 and "--bind: must be HOST:PORT" in err
    assert "Traceback" not in err and len(err) < 2000


# --- what the file system refuses, and board values no table can use -------------------------

LONG_NAME = "x" * 296 + ".png"


@pytest.mark.parametrize(
    "argv",
    [
        ["render", "--simulate", "--start", "DIR/" + LONG_NAME],
        ["detect", "IMAGE", "--calibrate", "DIR/" + LONG_NAME],
        ["game", "undo", "--state-dir", "DIR/" + "y" * 300],
    ],
)
def test_a_name_too_long_is_one_line_naming_it(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    image = tmp_path / "image.png"
    assert main(["render", "--simulate", "--start", str(image)]) == 0
    argv = [w.replace("DIR", str(tmp_path)).replace("IMAGE", str(image)) for w in argv]
    capsys.readouterr()
    code, _, err = run_cli(argv, capsys)
    assert_one_line_error(code, err, str(tmp_path))
    assert "too long" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["image.png"]  # nothing else written


def test_a_named_pipe_given_as_a_file_is_refused_at_once(tmp_path: Path) -> None:
    """Opening a FIFO waits for a writer: the reader must not (a hang is this test's
    timeout, run in a child so that it cannot hang the suite)."""
    import os
    import subprocess
    import sys

    pipe = tmp_path / "config.toml"
    os.mkfifo(pipe)
    for argv in (
        ["board", "show", "--board", str(pipe)],
        ["selftest", "--simulate", "--config", str(pipe)],
    ):
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys; from bermuda_hw.cli import main; sys.exit(main())",
                *argv,
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode != 0 and "Traceback" not in done.stderr
        assert f"{pipe}: is not a regular file" in done.stderr + done.stdout


@pytest.mark.parametrize(
    "old, new, key",
    [
        (
            "x_mm = 24.0, y_mm = 24.0, size_mm = 36.0",
            "x_mm = 24.0, y_mm = 24.0, size_mm = 2000.0",
            "markers.corners[0].size_mm",
        ),
        (
            "x_mm = 24.0, y_mm = 24.0, size_mm = 36.0",
            "x_mm = 24.0, y_mm = 24.0, size_mm = 1e12",
            "markers.corners[0].size_mm",
        ),
        (
            "x_mm = 24.0, y_mm = 24.0, size_mm = 36.0",
            "x_mm = 24.0, y_mm = 24.0, size_mm = 18446744073709551616.0",
            "markers.corners[0].size_mm",
        ),
        (
            "x_mm = 24.0, y_mm = 24.0, size_mm = 36.0",
            "x_mm = 10.0, y_mm = 24.0, size_mm = 36.0",
            "markers.corners[0]",
        ),
        ("width_mm = 508.0", "width_mm = 1e12", "board.width_mm"),
        ("width_mm = 508.0", "width_mm = 5.0", "board.width_mm"),
    ],
)
def test_board_values_no_table_can_use_are_refused_at_load(
    old: str, new: str, key: str, tmp_path: Path
) -> None:
    assert old in CLASSIC
    with pytest.raises(BoardFileError) as caught:
        parse_board(CLASSIC.replace(old, new, 1), "board.toml")
    assert caught.value.key == key, caught.value


def test_a_board_with_a_cloud_marker_wider_than_the_cloud_is_refused() -> None:
    line = "cloud = { id = 10, size_mm = 40.0, height_mm = 32.0 }"
    assert line in CLASSIC
    with pytest.raises(BoardFileError) as caught:
        parse_board(CLASSIC.replace(line, line.replace("40.0", "940.0")), "board.toml")
    assert caught.value.key == "markers.cloud.size_mm"


@pytest.mark.parametrize(
    "argv, named",
    [
        (["run", "--simulate", "--no-web", "--computer", "purple"], "'purple' is not a colour"),
        (["run", "--simulate", "--no-web", "--computer", "blue=hard"], "easy or best"),
        (["run", "--simulate", "--no-web", "--players", "2", "--computer", "red"], "red does"),
        (["game", "new", "--players", "3", "--computer", "red=easy"], "red does not play"),
    ],
)
def test_a_computer_seat_that_cannot_be_is_refused_before_anything_starts(
    argv: list[str], named: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state"
    code, _, err = run_cli([*argv, "--state-dir", str(state)], capsys)
    assert_one_line_error(code, err, named)
    assert not state.exists()  # nothing started, nothing written


def test_game_new_with_computer_seats_keeps_them_with_the_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bermuda_hw.controller.journal import Journal

    state = tmp_path / "state"
    argv = ["game", "new", "--players", "3", "--computer", "green=easy", "--computer", "blue"]
    code, out, err = run_cli([*argv, "--state-dir", str(state), "--seed", "4"], capsys)
    assert code == 0, err
    assert "3 players" in out
    with Journal.in_state_dir(state) as journal:
        loaded = journal.load(load_board())
    assert loaded is not None
    assert loaded[1].options.computer == (("blue", "best"), ("green", "easy"))


@pytest.mark.parametrize("given", ["--bind", "file"])
def test_a_port_in_use_is_named_where_its_address_came_from(
    given: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Another program listens on the page's port: the table says so, naming `--bind` or
    the configuration file that gave the address (not the built-in defaults), and stops
    before a motor moves."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        address = f"127.0.0.1:{taken.getsockname()[1]}"
        argv = ["run", "--simulate", "--state-dir", str(tmp_path / "state")]
        if given == "--bind":
            argv += ["--bind", address]
            where = "--bind"
        else:
            config = tmp_path / "config.toml"
            config.write_text(f'[web]\nbind = "{address}"\n', encoding="utf-8")
            argv += ["--config", str(config)]
            where = f"{config}: web.bind"
        code, out, err = run_cli(argv, capsys)
    assert_one_line_error(
        code, err, f"{where}: cannot listen on {address}: the port is in use", codes=(78,)
    )
    assert "<built-in>" not in err and "homing" not in out
