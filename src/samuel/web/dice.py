"""The page's games with dice: the server throws the dice, and in backgammon keeps the doubling
cube of money play.

**The dice.** Whenever a game is at a chance node (dice to throw) and not over, the server
throws them before it answers, from a generator seeded by the game's seed and the ply, so the
same seed gives the same dice, and a turn taken back is thrown again the same.

**The cube** (a game with a ``cube_game`` part), centred at 1 at the start, money play with
the Jacoby rule, as ``samuel play --cube on`` plays it (``cube_game``: who may double, each
player's decisions, what a game is worth). Before each throw the side on roll may double: a
person is asked (the throw waits for ``roll`` or ``double``), an engine decides by its own
cube decisions (``cube_game.cube_decider``). A double is answered by the other side, a person
by ``take`` or ``pass``, an engine at once; a pass ends the game, the doubler winning the cube's
value before the double.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType

import numpy as np

from samuel.games.base import Outcome
from samuel.seeds import derive_seed

DICE_STREAM = 0xD1CE  # the page's dice, apart from every other use of the game's seed
ACTIONS = ("roll", "double", "take", "pass")


def dice_for(seed: int, ply: int) -> np.random.Generator:
    """The generator that throws the dice at ``ply`` of a game with ``seed``."""
    return np.random.default_rng(derive_seed(seed, ply, DICE_STREAM))


@dataclass(frozen=True)
class CubeAction:
    """At the chance node of ``ply``, ``side`` (0 or 1) doubled to ``value``, took or passed."""

    ply: int
    side: int
    action: str  # "double", "take" or "pass"
    value: int


@dataclass(frozen=True)
class CubeQuestion:
    """What the cube waits for: ``side`` to say whether it doubles (``"double"``: double or
    roll) or whether it takes a double (``"take"``: take or pass)."""

    side: int
    kind: str


@dataclass
class MoneyCube:
    """The cube of one money game: its value and owner follow from its actions, kept by ply
    so that taking moves back takes back the cube's actions at or after the ply returned to."""

    cube_game: ModuleType  # the game's cube_game part
    actions: list[CubeAction] = field(default_factory=list)
    declined_at: int | None = None  # the side on roll chose not to double at this ply
    jacoby: bool = True

    @property
    def value(self) -> int:
        return max([a.value for a in self.actions if a.action == "take"], default=1)

    @property
    def owner(self) -> int | None:
        taken = [a for a in self.actions if a.action == "take"]
        return taken[-1].side if taken else None

    @property
    def offered_by(self) -> int | None:
        """The side whose double waits for its answer, if any."""
        last = self.actions[-1] if self.actions else None
        return last.side if last is not None and last.action == "double" else None

    @property
    def passed(self) -> CubeAction | None:
        last = self.actions[-1] if self.actions else None
        return last if last is not None and last.action == "pass" else None

    def may_double(self, side: int) -> bool:
        return self.cube_game.may_double(side, self.value, self.owner, 0, (0, 0), False)

    def seen_by(self, side: int, value: int | None = None, owner: int | None = None):
        """The cube as ``side`` sees it for a decision (``cube_game.CubeState``); a double
        offered is seen at its new ``value``, owned by the doubler."""
        value = self.value if value is None else value
        owner = self.owner if value == self.value else owner
        return self.cube_game.seen_by(side, value, owner, 0, (0, 0), False, self.jacoby)

    def question(self, ply: int, side_on_roll: int) -> CubeQuestion | None:
        """What the cube waits for at the chance node of ``ply``, if anything."""
        if self.passed is not None:
            return None
        if self.offered_by is not None:
            return CubeQuestion(1 - self.offered_by, "take")
        if self.declined_at != ply and self.may_double(side_on_roll):
            return CubeQuestion(side_on_roll, "double")
        return None

    def answer(self, question: CubeQuestion, yes: bool, ply: int) -> None:
        """``question`` answered: double or not; take or pass."""
        if question.kind == "double":
            if yes:
                self.actions.append(CubeAction(ply, question.side, "double", 2 * self.value))
            else:
                self.declined_at = ply
            return
        offered = self.actions[-1].value
        self.actions.append(CubeAction(ply, question.side, "take" if yes else "pass", offered))

    def take_back_to(self, ply: int) -> None:
        """Forget the actions at ``ply`` and after (the game was taken back to ``ply``)."""
        self.actions = [a for a in self.actions if a.ply < ply]
        self.declined_at = None

    def outcome(self) -> Outcome | None:
        """A game ended by a pass: the doubler wins the cube's value before the double."""
        passed = self.passed
        if passed is None:
            return None
        return Outcome(
            termination=self.cube_game.PASSED, winner=1 - passed.side, points=passed.value // 2
        )

    def points(self, outcome: Outcome) -> int:
        """What a finished game is worth: a pass, the cube before the double; a game borne off,
        the cube times its kind (Jacoby: single while the cube was never turned)."""
        if outcome.termination is self.cube_game.PASSED:
            return outcome.points
        return self.cube_game.game_points(outcome.points, self.value, self.owner, 0, self.jacoby)


def decide_cube(player, game, cube: MoneyCube, question: CubeQuestion) -> bool:
    """An engine's answer to ``question`` by its own cube decisions (``cube_decider``): whether
    it doubles, or whether it takes the double offered. Runs in a worker thread; reads the game,
    never changes it."""
    decider = cube.cube_game.cube_decider(player)
    if question.kind == "double":
        return bool(decider.offers_double(game, cube.seen_by(question.side)))
    offered = cube.actions[-1].value
    return bool(decider.takes(game, cube.seen_by(question.side, offered, 1 - question.side)))


__all__ = ["ACTIONS", "CubeAction", "CubeQuestion", "MoneyCube", "decide_cube", "dice_for"]
