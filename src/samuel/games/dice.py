"""A throw of two dice, as the games with dice write and code it: the high die first (``3-1``),
its chance (a double comes up one way in ``faces²``, any other roll two), and its code among the
game's moves (``code_base + 10 * high + low``: a chance outcome is played as a move is).

A game subclasses :class:`TwoDice` with its faces and code base as class constants::

    @dataclass(frozen=True, slots=True)
    class Roll(TwoDice):
        FACES: ClassVar[int] = 6
        CODE_BASE: ClassVar[int] = ROLL_FLAG
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

from samuel.games.base import MAX_MOVE_CHARS, NotationError, check_length, shown


@dataclass(frozen=True, slots=True)
class TwoDice:
    """A throw of two dice of ``FACES`` faces, the high die first."""

    high: int
    low: int
    FACES: ClassVar[int] = 6
    CODE_BASE: ClassVar[int] = 0  # above every move's code, so that a roll is told apart

    def __post_init__(self) -> None:
        if not 1 <= self.low <= self.high <= self.FACES:
            raise ValueError(f"a roll is two dice 1-{self.FACES}, the high first, not {self!r}")

    @property
    def is_double(self) -> bool:
        return self.high == self.low

    @property
    def probability(self) -> Fraction:
        """Its chance: a double comes up one way, any other roll two."""
        return Fraction(1 if self.is_double else 2, self.FACES * self.FACES)

    @property
    def code(self) -> int:
        return self.CODE_BASE + 10 * self.high + self.low

    @classmethod
    def all(cls) -> list:
        """Every distinct roll, low rolls first: 1-1, 2-1, 2-2, 3-1 ..."""
        faces = range(1, cls.FACES + 1)
        return [cls(high, low) for high in faces for low in range(1, high + 1)]

    @classmethod
    def parse(cls, text: str):
        """A roll written ``3-1`` or ``31``, either die first."""
        text = check_length(text, "a roll", MAX_MOVE_CHARS)
        match = re.fullmatch(rf"([1-{cls.FACES}])-?([1-{cls.FACES}])", text)
        if not match:
            raise NotationError(
                f"{shown(text)} is not a roll: write two dice 1-{cls.FACES}, as 2-1 or 21"
            )
        first, second = int(match.group(1)), int(match.group(2))
        return cls(max(first, second), min(first, second))

    def __str__(self) -> str:
        return f"{self.high}-{self.low}"

    def transformed(self, symmetry: int):
        return self  # a symmetry of the board leaves the dice as they are
