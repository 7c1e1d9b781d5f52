"""Long nardy behind the :class:`samuel.games.base.GameRules` interface: the second of Samuel's
games with dice, with no hitting and no bar. The rules are ``docs/rules-nardy.md``.

The names below load on first use, so that the compiled kernels can be imported without the
friendly layer.
"""

from samuel.games.descriptor import GameDescriptor

DESCRIPTOR = GameDescriptor(
    name="nardy",
    number=3,
    title="Long nardy",
    # White and Black, as the game calls them: -W/--white and -B/--black, the same options as
    # draughts' sides (an option is a side's name, whichever game names it)
    sides=("white", "black"),
    side_letters=("W", "B"),
    first_to_move=0,  # White rolls first from the start position
    rules_module="samuel.games.nardy.rules",
    compiled_module="samuel.games.nardy.compiled",
    # the play, then every roll of the other side and its best reply, as backgammon's default
    default_depth=2,
    # a game of about 50 turns a side is 200 plies, a roll and a play each; random play takes
    # longer, and checkers only move on, so no game goes round in circles
    default_ply_cap=1000,
    default_opening_plies=0,
)

_EXPORTS = ("RULES", "Nardy", "Play", "Position", "Roll")


def __getattr__(name: str):
    if name in _EXPORTS:
        from . import rules

        return getattr(rules, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = list(_EXPORTS)
