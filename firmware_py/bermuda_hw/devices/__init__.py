"""Devices: steppers, endstops, the rotation actuator and the table controls, over any backend."""

from __future__ import annotations
