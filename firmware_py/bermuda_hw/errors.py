"""The exceptions of bermuda-hw: a small hierarchy, each also a builtin."""

from __future__ import annotations

import errno
from pathlib import Path


class BermudaError(Exception):
    """Base class of every error that bermuda-hw raises on purpose."""


class ConfigError(BermudaError, ValueError):
    """A configuration, board or calibration file is wrong.

    The message names the file, the key (a dotted path inside the file) and
    the problem, so that an owner can fix it without reading the code.
    """

    def __init__(self, file: str | Path | None, key: str | None, problem: str) -> None:
        self.file = str(file) if file is not None else None
        self.key = key
        self.problem = problem
        where = self.file or "<built-in>"
        if key:
            where = f"{where}: {key}"
        super().__init__(f"{where}: {problem}")


def not_utf8(exc: UnicodeDecodeError) -> str:
    """The problem of a text file that is not UTF-8, for an error message."""
    return (
        f"is not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset {exc.start}); "
        "save it as UTF-8"
    )


# what an owner can do about the file system's refusals that a person can cause or fix
_OS_HINTS = {
    errno.ENAMETOOLONG: "at most 255 characters a name and 4,096 in all: use a shorter one",
    errno.ENOSPC: "the disk is full: free some space, then run it again",
    errno.EDQUOT: "the disk quota is used up: free some space, then run it again",
    errno.EROFS: "the file system is read-only (after a disk error it is remounted so: see "
    "`dmesg`); check the disk, then make it writable again",
    errno.EACCES: "permission denied: run it as the user who owns the folder, or choose "
    "another file",
    errno.EPERM: "not permitted: run it as the user who owns the folder, or choose another file",
    errno.ENOENT: "no such file or folder",
    errno.ENOTDIR: "a part of the path is a file, not a folder",
    errno.EISDIR: "it is a folder, not a file",
    errno.ELOOP: "too many symbolic links in the path",
    errno.EIO: "the disk reports an input/output error: check the disk (and the SD card)",
}


def describe_os_error(exc: OSError) -> str:
    """One line for a refusal of the operating system: the file, the reason, what to do."""
    where = f"{exc.filename}: " if exc.filename else ""
    hint = _OS_HINTS.get(exc.errno or 0)
    reason = exc.strerror or exc.__class__.__name__
    return f"{where}{reason}" + (f"; {hint}" if hint and hint != reason.lower() else "")


class BoardFileError(ConfigError):
    """A board definition file is wrong."""


class CalibrationError(ConfigError):
    """A calibration file is wrong."""


class RulesError(BermudaError, ValueError):
    """A request that the rules of the game do not allow."""


class IllegalMoveError(RulesError):
    """A ship move that the rules forbid; the message says why."""


class ParseError(RulesError):
    """Text that does not describe a move, a spin or a ship."""


class StateError(BermudaError, ValueError):
    """A saved game state or event journal that cannot be restored."""


class MotionError(BermudaError, ValueError):
    """A move that the planner refuses before anything moves."""


class SoftLimitError(MotionError):
    """A move that would leave the board's or an axis's limits."""


class HardwareError(BermudaError, RuntimeError):
    """A fault of the rig at run time: the motors are stopped when it is raised."""


class HomingError(HardwareError):
    """An axis did not find its endstop, or homing was required and not done."""


class EmergencyStopError(HardwareError):
    """Motion was stopped by an emergency stop; the rig must be homed again."""


class StepTimingError(HardwareError):
    """The step thread could not keep to the plan: the move was aborted, home again."""


class BusError(HardwareError, OSError):
    """An I2C transfer failed or the device did not answer."""


class CameraError(HardwareError):
    """The camera is missing, failing or stalled, or an image cannot be read."""


class VisionError(BermudaError, ValueError):
    """A frame from which the board cannot be read."""
