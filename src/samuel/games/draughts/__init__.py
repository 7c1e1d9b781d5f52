"""English draughts behind the :class:`samuel.games.base.GameRules` interface. The rules are
``docs/rules-draughts.md``.

The names below load on first use, so that the compiled kernels can be imported without the
friendly layer.
"""

from samuel.games.descriptor import GameDescriptor

DESCRIPTOR = GameDescriptor(
    name="draughts",
    number=1,
    title="English draughts",
    sides=("black", "white"),
    side_letters=("B", "W"),
    first_to_move=0,  # Black
    rules_module="samuel.games.draughts.rules",
    compiled_module="samuel.games.draughts.compiled",
)

_EXPORTS = ("RULES", "EnglishDraughts", "Move", "Position", "draw_board")


def __getattr__(name: str):
    if name in _EXPORTS:
        from . import rules

        return getattr(rules, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = list(_EXPORTS)
