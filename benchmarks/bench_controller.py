"""The simulated table end to end: whole games played through camera frames, and the loop's rate."""

from __future__ import annotations

import contextlib
import io
import tempfile
import time

from bermuda_hw.cli import main as cli_main

GOAL_GAME_S = 180.0
GAMES = ((2, 5), (3, 2), (4, 1))  # (players, seed)


def _game(players: int, seed: int) -> tuple[float, int, int, float, str] | str:
    with tempfile.TemporaryDirectory() as state:
        out = io.StringIO()
        started = time.perf_counter()
        with contextlib.redirect_stdout(out):
            code = cli_main(["run", "--simulate", "--players", str(players), "--seed", str(seed),
                             "--state-dir", state])
        elapsed = time.perf_counter() - started
        text = out.getvalue()
        if code != 0:
            last = [line for line in text.splitlines() if line.strip()][-1:]
            return f"stopped with exit code {code} after {elapsed:.1f} s: {' '.join(last)}"
        frames_line = next(line for line in text.splitlines() if line.startswith("frames read:"))
        frames = int(frames_line.split(":")[1].split(",")[0])
        over = next((line.split("] ", 1)[1] for line in text.splitlines()
                     if "] game over:" in line), "did not finish")
        rounds = sum(1 for line in text.splitlines() if "every player has moved" in line)
        sim_s = float(frames_line.rsplit(":", 1)[1].strip().split()[0])
        return elapsed, frames, rounds, sim_s, over


def _loop_rate(frames: int = 60) -> float:
    """Frames per second of the daemon's reading loop: render, read, stabilise."""
    from bermuda_hw.backends.camera_config import CameraConfig
    from bermuda_hw.backends.sim import SimBackend
    from bermuda_hw.config import load_config
    from bermuda_hw.rules.board import load_board
    from bermuda_hw.rules.game import Game
    from bermuda_hw.sim.world import World
    from bermuda_hw.vision import BoardReader, ObservationStream, StabilitySettings

    board = load_board()
    world = World(board)
    for sid, (x_mm, y_mm) in Game.new(4, seed=1, board=board).ship_positions().items():
        world.place_ship(sid, x_mm, y_mm)
    backend = SimBackend(load_config(), world)
    try:
        camera = backend.open_camera(board, CameraConfig(width_px=640, height_px=480))
        with camera:
            stream = ObservationStream(camera, BoardReader(board), StabilitySettings(2, 0.1))
            stream.step()
            started = time.perf_counter()
            for _ in range(frames):
                stream.step()
            return frames / (time.perf_counter() - started)
    finally:
        backend.close()


def main() -> None:
    print(f"reading loop (render 640x480 + vision + stability): {_loop_rate():.1f} frames/s")
    print("simulated table: whole games (renderer 640x480 -> vision -> controller -> gantry)")
    for players, seed in GAMES:
        result = _game(players, seed)
        if isinstance(result, str):
            print(f"  {players} players, seed {seed}: DID NOT FINISH: {result}")
            continue
        elapsed, frames, rounds, sim_s, over = result
        print(f"  {players} players, seed {seed}: {elapsed:6.1f} s wall for {rounds} rounds "
              f"(goal <= {GOAL_GAME_S:g} s), {frames} frames = {frames / elapsed:.1f} frames/s "
              f"of wall time including motion, {sim_s:.0f} s of table time; {over}")


if __name__ == "__main__":
    main()
