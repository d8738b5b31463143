"""Runs every benchmark in this folder (bench_*.py) and prints its figures."""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path


def main() -> int:
    here = Path(__file__).resolve().parent
    names = sys.argv[1:]
    files = sorted(here.glob("bench_*.py"))
    if names:
        files = [f for f in files if any(n in f.stem for n in names)]
    for path in files:
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
        print(f"== {path.stem} ==", flush=True)
        started = time.perf_counter()
        module.main()
        print(f"   ({time.perf_counter() - started:.1f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
