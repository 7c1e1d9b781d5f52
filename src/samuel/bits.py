"""Bit helpers for boards kept as masks, shared by the games' kernels and the network (which walks
the set inputs of a position the same way).

>>> popcount(0b1011), lowest_bit(0b1000)
(3, 3)
"""

from __future__ import annotations

from samuel.jit import kernel


@kernel
def popcount(x: int) -> int:
    """Set bits of a non-negative 64-bit integer (SWAR; numba has no popcount intrinsic)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return ((x * 0x0101010101010101) & 0xFFFFFFFFFFFFFFFF) >> 56


@kernel
def lowest_bit(mask: int) -> int:
    """Index of the lowest set bit of a non-zero mask (below bit 63): for Tigers & Sheep a
    point, for draughts a square's index."""
    return popcount((mask & -mask) - 1)
