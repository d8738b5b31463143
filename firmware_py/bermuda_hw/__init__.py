"""bermuda-hw: the table-side controller for the Bermuda Triangle board game."""

from __future__ import annotations

__version__ = "0.1.0"
