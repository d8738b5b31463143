"""What the dated reports of `make chaos` and `make bench` say about the source they ran."""

from __future__ import annotations

import subprocess
from pathlib import Path


def source_commit(root: Path) -> str:
    """The commit checked out at `root`, read when a run starts: its short hash, and a word
    when the working tree differs from it (the processes run the files as they are)."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], capture_output=True, text=True, cwd=root)
        return done.stdout.strip()

    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    changed = git("status", "--porcelain", "--untracked-files=no")
    return f"{commit}, with uncommitted changes" if changed else commit
