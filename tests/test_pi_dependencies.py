"""The Raspberry Pi's package set resolves to wheels for linux aarch64, with the right numpy.

scripts/install-pi installs the project with its `pi` extra under the release's
constraints file. Here pip resolves that set for Raspberry Pi OS bookworm
(Python 3.11) and trixie (Python 3.13) on aarch64, binary wheels only, from PyPI,
ignoring this machine's pip configuration.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
# glibc of each release: wheels tagged for it or any older manylinux are usable
RELEASES = {"bookworm": ("3.11", 36), "trixie": ("3.13", 41)}


def _pypi_reachable() -> bool:
    try:
        socket.create_connection(("pypi.org", 443), timeout=5).close()
    except OSError:
        return False
    return True


def _requirements() -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return [*project["dependencies"], *project["optional-dependencies"]["pi"]]


def _resolve(release: str, tmp_path: Path) -> dict[str, tuple[Version, str]]:
    python, glibc = RELEASES[release]
    platforms = [f"manylinux_2_{minor}_aarch64" for minor in range(17, glibc + 1)]
    platforms += ["manylinux2014_aarch64", "linux_aarch64"]
    report = tmp_path / f"{release}.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_") or k == "PIP_CERT"}
    env["PIP_CONFIG_FILE"] = os.devnull  # this machine's index and constraints do not apply
    command = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--dry-run",
        "--quiet",
        "--ignore-installed",
        "--report",
        str(report),
        "--only-binary=:all:",
        "--python-version",
        python,
        "--implementation",
        "cp",
        "--disable-pip-version-check",
        "-c",
        str(ROOT / "scripts" / "constraints" / f"{release}.txt"),
    ]
    for platform in platforms:
        command += ["--platform", platform]
    result = subprocess.run(
        [*command, *_requirements()],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    resolved = {}
    for item in json.loads(report.read_text())["install"]:
        name = item["metadata"]["name"].lower().replace("_", "-")
        resolved[name] = (Version(item["metadata"]["version"]), item["download_info"]["url"])
    return resolved


@pytest.mark.skipif(
    not _pypi_reachable(),
    reason="PyPI (pypi.org:443) is not reachable: the Pi's package set cannot be resolved offline",
)
@pytest.mark.parametrize("release", sorted(RELEASES))
def test_the_pi_package_set_is_all_wheels(release: str, tmp_path: Path) -> None:
    resolved = _resolve(release, tmp_path)
    for requirement in map(Requirement, _requirements()):
        assert requirement.name.lower() in resolved
    not_wheels = [name for name, (_, url) in resolved.items() if not url.endswith(".whl")]
    assert not_wheels == []
    numpy, _ = resolved["numpy"]
    opencv, _ = resolved["opencv-python-headless"]
    assert opencv < Version("4.12")  # 4.12 and later need numpy 2
    if release == "bookworm":
        assert numpy < Version("2")  # bookworm's picamera2 is built against numpy 1.x
    else:
        assert numpy >= Version("2")  # trixie's is built against numpy 2
    assert "rpi-gpio" not in resolved  # an sdist that needs a compiler: not in the set
