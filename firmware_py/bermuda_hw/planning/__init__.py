"""Motion planning: kinematics, time-optimal profiles, step times and soft limits (pure)."""

from __future__ import annotations
