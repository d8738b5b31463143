"""The controller: the daemon's state machine, its journal and what it shows at the table."""

from __future__ import annotations
