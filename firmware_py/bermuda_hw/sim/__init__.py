"""The simulated table: devices, physics and camera of a rig that exists only in software."""

from __future__ import annotations
