"""Backgammon behind the :class:`samuel.games.base.GameRules` interface: the first of Samuel's
games with dice. The rules are ``docs/rules-backgammon.md``.

The names below load on first use, so that the compiled kernels can be imported without the
friendly layer.
"""

from samuel.games.descriptor import GameDescriptor

DESCRIPTOR = GameDescriptor(
    name="backgammon",
    number=2,
    title="Backgammon",
    sides=("x", "o"),
    side_letters=("X", "O"),
    first_to_move=0,  # X rolls first from the start position
    rules_module="samuel.games.backgammon.rules",
    compiled_module="samuel.games.backgammon.compiled",
    # gnubg's 1-ply: the play, then every roll of the other side and its best reply (depth 3,
    # gnubg's 2-ply, takes seconds a move with the classic evaluation)
    default_depth=2,
    # a game of about 60 turns a side is 240 plies, a roll and a play each; random play takes
    # longer, and no game of backgammon can go round in circles
    default_ply_cap=1000,
    default_opening_plies=0,
)

_EXPORTS = ("RULES", "Backgammon", "Play", "Position", "Roll")


def __getattr__(name: str):
    if name in _EXPORTS:
        from . import rules

        return getattr(rules, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = list(_EXPORTS)
