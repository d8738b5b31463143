"""Spoken announcements through espeak-ng: queued, one at a time, never blocking the controller.

The controller's sentences reach `Voice.announce` (a listener, on the step
thread), which only puts the important ones in a queue; a thread of its own
speaks them one after another with `espeak-ng`, so they never overlap. When
announcements pile up faster than they can be spoken, the oldest waiting ones
are dropped: the table needs the latest news, not a backlog.
"""

from __future__ import annotations

import contextlib
import queue
import re
import shutil
import subprocess
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from bermuda_hw.config import VoiceConfig
from bermuda_hw.errors import ConfigError

ESPEAK = "espeak-ng"
MAX_WAITING = 3
SPEAK_TIMEOUT_S = 30.0

# What is worth saying aloud: whose turn, press spin, what to fix (a move against the rules
# named, with what to do), captures, the end.
IMPORTANT = re.compile(
    r"to move\b|press spin|fix the board|set the board|set up the ships|captured|"
    r"out of the game|game over|\bwins?\b|fault|undone|cannot pass|put it back|"
    r"put the ship back|put it on a space|moved at once|'s turn, but|belongs at|"
    r"is missing at|should not be there|the table's seat",
    re.IGNORECASE,
)

Runner = Callable[[Sequence[str]], object]


def is_important(text: str) -> bool:
    """Whether a controller sentence is one the table should hear."""
    return bool(IMPORTANT.search(text))


def spoken(text: str) -> str:
    """The sentence as it should sound: ship ids and money read naturally."""
    text = re.sub(r"\b(blue|yellow|green|red)-(\d)\b", r"\1 \2", text)
    text = re.sub(r"\$(\d+),000\b", r"\1 thousand dollars", text)
    return text.replace("->", " to ")


def espeak_command(text: str, config: VoiceConfig, wav: Path | None = None) -> list[str]:
    command = [ESPEAK, "-v", config.voice, "-s", str(config.words_per_minute)]
    if wav is not None:
        command += ["-w", str(wav)]
    return [*command, "--", spoken(text)]


def _run(command: Sequence[str]) -> object:
    return subprocess.run(
        list(command),
        check=False,
        timeout=SPEAK_TIMEOUT_S,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def render_wav(text: str, path: Path, config: VoiceConfig) -> Path:
    """Speak a sentence into a WAV file instead of the loudspeaker."""
    require_espeak()
    result = subprocess.run(
        espeak_command(text, config, path),
        check=False,
        timeout=SPEAK_TIMEOUT_S,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise ConfigError(
            None, "voice.voice", f"espeak-ng failed: {(result.stderr or '').strip()[:200]}"
        )
    return path


def require_espeak() -> str:
    found = shutil.which(ESPEAK)
    if found is None:
        raise ConfigError(
            None, "voice.enabled", "espeak-ng is not installed (sudo apt install espeak-ng)"
        )
    return found


class Voice:
    """Speaks the important announcements, one at a time, on a thread of its own."""

    def __init__(self, config: VoiceConfig, *, runner: Runner | None = None) -> None:
        if runner is None:
            require_espeak()
        self.config = config
        self.runner = runner or _run
        self._queue: queue.Queue[str | None] = queue.Queue()
        self.spoken: list[str] = []
        self.dropped = 0
        self._thread = threading.Thread(target=self._work, name="bermuda-voice", daemon=True)
        self._thread.start()

    def announce(self, text: str) -> None:
        """Queue a sentence if it is important (returns at once)."""
        if not is_important(text):
            return
        while self._queue.qsize() >= MAX_WAITING:
            try:
                self._queue.get_nowait()
                self.dropped += 1
            except queue.Empty:
                break
        self._queue.put(text)

    def _work(self) -> None:
        while True:
            text = self._queue.get()
            if text is None:
                return
            # a failed announcement must never stop the table
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                self.runner(espeak_command(text, self.config))
            self.spoken.append(text)

    def close(self) -> None:
        """Speak what is queued, then stop (closing twice is fine)."""
        if self._thread.is_alive():
            self._queue.put(None)
            self._thread.join(timeout=SPEAK_TIMEOUT_S)
