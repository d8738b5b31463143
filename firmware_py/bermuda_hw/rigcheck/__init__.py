"""The rig checks and measures itself: `selftest` and `calibrate` (over any backend)."""
