"""The systemd unit: the settings the service relies on, and systemd's own check if present."""

from __future__ import annotations

import configparser
import shutil
import subprocess
from pathlib import Path

import pytest

UNIT = Path(__file__).resolve().parents[2] / "systemd" / "bermuda-hw.service"


def _unit() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(UNIT)
    return parser


def test_unit_settings() -> None:
    service = _unit()["Service"]
    assert service["Type"] == "notify"  # the daemon implements sd_notify
    assert service["ExecStart"] == (
        "/opt/bermuda-hw/.venv/bin/bermuda-hw run --config /etc/bermuda-hw/config.toml"
    )
    assert service["Restart"] == "on-failure"
    assert service["StateDirectory"] == "bermuda-hw"
    assert service["User"] == "bermuda"
    assert set(service["SupplementaryGroups"].split()) == {"gpio", "i2c", "video"}
    assert service["KillSignal"] == "SIGTERM" and int(service["TimeoutStopSec"]) > 0
    assert service["ProtectSystem"] == "strict"
    assert service["ReadWritePaths"] == "/var/lib/bermuda-hw"
    assert service["PrivateTmp"] == "yes" and service["NoNewPrivileges"] == "yes"
    # devices stay reachable: GPIO, I2C and the camera
    assert "PrivateDevices" not in service and "DeviceAllow" not in service
    assert _unit()["Install"]["WantedBy"] == "multi-user.target"


def test_systemd_analyze_verify() -> None:
    tool = shutil.which("systemd-analyze")
    if tool is None:
        pytest.skip("systemd-analyze is not installed")
    result = subprocess.run(
        [tool, "verify", str(UNIT)], capture_output=True, text=True, timeout=60, check=False
    )
    problems = [
        line
        for line in (result.stdout + result.stderr).splitlines()
        if line.strip()
        and "is not executable" not in line  # not installed here
        and "bermuda-hw.service" in line
    ]
    assert problems == []


def test_sd_notify_sends_datagrams(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    from bermuda_hw.controller.notify import sd_notify

    path = tmp_path / "notify"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(str(path))
        monkeypatch.setenv("NOTIFY_SOCKET", str(path))
        assert sd_notify("READY=1")
        assert server.recv(100) == b"READY=1"
    monkeypatch.delenv("NOTIFY_SOCKET")
    assert not sd_notify("READY=1")


def test_unit_fails_safe() -> None:
    unit = _unit()
    service = unit["Service"]
    # lgpio's FIFO: a writable runtime directory instead of "/" under ProtectSystem=strict
    assert service["RuntimeDirectory"] == "bermuda-hw"
    assert "LG_WD=/run/bermuda-hw" in service["Environment"]
    assert service["WorkingDirectory"] == "/run/bermuda-hw"
    # the drivers are disabled after every exit, with a command that homes nothing
    assert service["ExecStopPost"].split()[:2] == [
        "/opt/bermuda-hw/.venv/bin/bermuda-hw",
        "motors-off",
    ]
    # configuration errors are not restarted; repeated failures stop the restarts
    from bermuda_hw.cli import EXIT_CONFIG

    assert service["RestartPreventExitStatus"].split() == [str(EXIT_CONFIG)]
    assert int(unit["Unit"]["StartLimitBurst"]) >= 1
    assert int(unit["Unit"]["StartLimitIntervalSec"]) > int(service["RestartSec"])
    # the watchdog's period: longer than the longest a move leaves the main loop waiting
    # without the step thread's kicks (a full turn of the cloud: 4096 half steps at 400/s)
    assert int(service["WatchdogSec"]) > 4096 / 400


def test_watchdog_kicks_at_most_twice_a_period() -> None:
    from bermuda_hw.controller.notify import Watchdog

    now = [0.0]
    sent: list[str] = []
    dog = Watchdog(
        {"WATCHDOG_USEC": "30000000"},
        monotonic=lambda: now[0],
        notify=lambda m: sent.append(m) or True,
    )
    for _ in range(100):
        dog.kick()
        now[0] += 0.5
    assert dog.enabled and sent.count("WATCHDOG=1") == len(sent) == 4  # 50 s, every 15 s
    other = Watchdog(
        {"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}, notify=lambda m: sent.append(m) or True
    )
    other.kick()
    assert not other.enabled and len(sent) == 4
    assert not Watchdog({}).enabled
