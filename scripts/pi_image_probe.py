"""Run by scripts/pi-image-check inside the aarch64 root, with the installed venv's Python.

Under the Blinka board and chip named by BLINKA_FORCEBOARD / BLINKA_FORCECHIP it checks
that no `gpiod` module can be imported (none is installed on the Pi), that the venv
holds the very code of the source tree given as argument, and imports every production
module (`bermuda_hw.*` except the simulator, `bermuda_hw.sim*`), each failure named with
its exception. It prints one line per finding and exits 1 if any check failed.

    python pi_image_probe.py /opt/bermuda-hw/firmware_py/bermuda_hw
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import importlib.util
import os
import platform
import sys
import traceback
from pathlib import Path

PACKAGE = "bermuda_hw"
SIMULATOR = "bermuda_hw.sim"
DISTRIBUTIONS = ("bermuda-hw", "Adafruit-Blinka", "adafruit-circuitpython-pca9685",
                 "adafruit-circuitpython-motor", "gpiozero", "numpy",
                 "opencv-python-headless", "pydantic", "smbus2", "lgpio")


def production_modules(package_dir: Path) -> list[str]:
    """Every module of the package under `package_dir`, the simulator left out.

    Read off the files, importing nothing (pkgutil.walk_packages imports each package).
    """
    names = []
    for path in package_dir.rglob("*.py"):
        parts = path.relative_to(package_dir).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        name = ".".join((PACKAGE, *parts))
        if name == SIMULATOR or name.startswith(f"{SIMULATOR}."):
            continue
        names.append(name)
    return sorted(names)


def _digests(package_dir: Path) -> dict[str, str]:
    return {str(path.relative_to(package_dir)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(package_dir.rglob("*.py"))}


def main(argv: list[str]) -> int:
    source_dir = Path(argv[1])
    failures: list[str] = []
    board = os.environ.get("BLINKA_FORCEBOARD", "(not forced)")
    chip = os.environ.get("BLINKA_FORCECHIP", "(not forced)")
    print(f"probe: Python {platform.python_version()} on {platform.machine()}, "
          f"Blinka board {board}, chip {chip}")
    if platform.machine() != "aarch64":
        failures.append(f"machine is {platform.machine()}, not aarch64")

    if importlib.util.find_spec("gpiod") is not None:
        failures.append("a gpiod module is importable: the Pi's package set has none")
    else:
        print("probe: no gpiod module (as on a Pi with the project's package set)")

    versions = []
    for name in DISTRIBUTIONS:
        try:
            versions.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            versions.append(f"{name} (absent)")
    print("probe: " + ", ".join(versions))

    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or spec.origin is None:
        print(f"probe: FAIL {PACKAGE} is not installed")
        return 1
    installed_dir = Path(spec.origin).parent
    if _digests(installed_dir) != _digests(source_dir):
        failures.append(f"{installed_dir} differs from the source {source_dir}")
    else:
        print(f"probe: {installed_dir} holds the source's code")

    names = production_modules(installed_dir)
    for name in names:
        try:
            importlib.import_module(name)
        except BaseException as exc:  # every failure is reported, by name
            where = traceback.extract_tb(exc.__traceback__)[-1]
            failures.append(f"import {name}: {type(exc).__name__}: {exc} "
                            f"(at {where.filename}:{where.lineno})")
    imported = len(names) - sum(f.startswith("import ") for f in failures)
    print(f"probe: imported {imported} of {len(names)} production modules")
    if "adafruit_blinka" in sys.modules or "board" in sys.modules:
        loaded = sorted(m for m in ("board", "digitalio", "busio", "pwmio", "microcontroller",
                                    "adafruit_blinka") if m in sys.modules)
        print(f"probe: Blinka modules loaded by the imports: {', '.join(loaded)}")
    else:
        print("probe: no Blinka module was loaded by the imports")
    for failure in failures:
        print(f"probe: FAIL {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
