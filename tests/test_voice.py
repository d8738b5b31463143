"""Spoken announcements: espeak-ng renders a real sentence; the queue never overlaps or blocks."""

from __future__ import annotations

import array
import threading
import wave
from collections.abc import Sequence
from pathlib import Path

from bermuda_hw.config import VoiceConfig, load_config
from bermuda_hw.voice import MAX_WAITING, Voice, is_important, render_wav, spoken

CONFIG = VoiceConfig(enabled=True, voice="en", words_per_minute=160)


def test_an_announcement_renders_to_a_plausible_wav(tmp_path: Path) -> None:
    text = "set the board as the game has it: a blue ship is missing at OIL"
    path = render_wav(text, tmp_path / "fix.wav", CONFIG)
    with wave.open(str(path)) as wav:
        assert wav.getsampwidth() == 2 and wav.getnchannels() == 1
        rate = wav.getframerate()
        samples = array.array("h", wav.readframes(wav.getnframes()))
    seconds = len(samples) / rate
    words = len(text.split())
    # about 160 words a minute: a little over 5 s for these 14 words, give or take
    assert words / 160 * 60 * 0.5 < seconds < words / 160 * 60 * 2.5
    loud = sum(1 for s in samples if abs(s) > 500)
    assert loud > 0.2 * len(samples)  # speech, not silence
    rms = (sum(s * s for s in samples) / len(samples)) ** 0.5
    assert rms > 300


def test_only_the_important_sentences_are_spoken() -> None:
    assert is_important("blue to move")
    assert is_important("round 2: every player has moved; press spin")
    assert is_important("fix the board: a red ship is missing at S04")
    # every way the referee says what to fix on the board (`identify.explain`) is said aloud
    for fix in (
        "yellow: SUGAR to S29 is 4 spaces; the die says 5: put the ship back on SUGAR and move 5",
        "yellow: S36 to S34: S34 is under the cloud: put the ship back on S36",
        "blue ship SUGAR -> S01 is not a legal move with any die: put it back",
        "a blue ship left OIL and is off every space: put it on a space",
        "it is blue's turn, but red ships changed: a red ship is missing at S04",
        "more than one ship moved at once: a blue ship is missing at S04; ...",
        "the blue ship at S15 belongs at S14",
        "a red ship is missing at S04",
        "a green ship at S22 should not be there",
    ):
        assert is_important(fix), fix
    assert is_important("game over: blue wins (reached the target)")
    # a computer seat's move and the die it asks for are said aloud for the person who makes it
    assert is_important("yellow, the table's seat, rolls 4: yellow-2 from OIL to S14")
    assert is_important("green is the table's seat: roll the die for it, then press spin")
    assert not is_important("homing the gantry")
    assert not is_important("totals: blue $20,000, red $0")
    assert spoken("blue-3 captured, $20,000") == "blue 3 captured, 20 thousand dollars"


def test_the_queue_never_overlaps_and_never_blocks_the_caller() -> None:
    release = threading.Event()
    lock = threading.Lock()
    active = [0]
    peak = [0]
    said: list[str] = []

    def runner(command: Sequence[str]) -> None:
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        release.wait(30)
        with lock:
            active[0] -= 1
        said.append(command[-1])

    voice = Voice(CONFIG, runner=runner)
    sentences = [f"blue to move, turn {i}" for i in range(8)]
    for text in sentences:  # the first blocks in the runner: these calls must still return
        voice.announce(text)
    voice.announce("homing the gantry")  # not important: never queued
    release.set()
    voice.close()
    assert peak[0] == 1
    assert said[-MAX_WAITING:] == sentences[-MAX_WAITING:]  # the latest news is kept
    assert len(said) + voice.dropped == len(sentences)
    assert all("homing" not in s for s in said)


def test_voice_is_off_by_default() -> None:
    config = load_config()
    assert not config.voice.enabled and config.web.enabled
