"""The freight cards and Home Port bonus cards, with their dollar values."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from bermuda_hw.rules.board import Product

#: The product piles as printed, in the fixed order the engine uses for
#: physical cards: the first value listed is the top card (taken first).
PRODUCT_CARDS_USD: Mapping[Product, tuple[int, ...]] = MappingProxyType(
    {
        "sugar": (30_000, 30_000, 40_000, 50_000, 50_000, 60_000, 70_000, 80_000),
        "oil": (60_000, 70_000, 80_000, 90_000, 100_000),
        "bananas": (10_000, 20_000, 30_000, 40_000),
        "lumber": (20_000, 20_000, 30_000, 40_000, 50_000, 60_000, 70_000),
    }
)
#: The four product ports, in the order their piles are dealt and listed.
CARD_PRODUCTS: tuple[Product, ...] = ("sugar", "oil", "bananas", "lumber")
BONUS_CARD_USD = 20_000
BONUS_CARDS = 8
TARGET_USD = 350_000
ALL_CARDS_USD = sum(sum(v) for v in PRODUCT_CARDS_USD.values()) + BONUS_CARD_USD * BONUS_CARDS
