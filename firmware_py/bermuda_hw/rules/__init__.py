"""The rules engine of Bermuda Triangle: pure code, no I/O, no hardware, no clock."""

from __future__ import annotations
