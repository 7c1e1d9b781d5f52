"""Tigers & Sheep (Bagh-Chal with sheep), behind the :class:`samuel.games.base.GameRules`
interface. The rules are ``docs/rules-tigers.md``.

The names below load on first use, so that the compiled kernels can be imported without the
friendly layer (and without an import cycle through :mod:`samuel.games.kernels`).
"""

from samuel.games.descriptor import GameDescriptor

DESCRIPTOR = GameDescriptor(
    name="tigers",
    number=0,
    title="Tigers & Sheep",
    sides=("tigers", "sheep"),
    side_letters=("T", "S"),
    first_to_move=1,  # the sheep
    rules_module="samuel.games.tigers.rules",
    compiled_module="samuel.games.tigers.compiled",
)

_EXPORTS = ("RULES", "Move", "Position", "TigersAndSheep", "draw_board")


def __getattr__(name: str):
    if name in _EXPORTS:
        from . import rules

        return getattr(rules, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = list(_EXPORTS)
