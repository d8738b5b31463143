"""Vision: frames in, board pose, ships, cloud, hands and stable `BoardObservation`s out."""

from __future__ import annotations
