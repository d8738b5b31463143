"""Cloud motion: the step-pulse thread, emergency stop, and the cloud mover."""

from __future__ import annotations
