"""The compiled dispatch, written from the registry: one branch per registered game.

Every game's package has a compiled module (its descriptor's ``compiled_module``) that offers the
functions of :data:`INTERFACE`, each taking the game's number first, and ``COMPILED``, its
:class:`~samuel.games.compiled_game.CompiledGame`. The search, self-play and training call the
dispatch functions of the same names, which branch on the number's low bits to the game's own.

Numba has no way to call "the function of whichever game this is" that it can also cache (a
function passed as an argument makes every caller's cache miss), so the branches are written out
as Python source, one file per set of registered games, in the kernel cache's folder (whose name
already changes with every kernel's source and with the registered games: :mod:`samuel.jit`). The
file is written once (to a temporary name, then renamed, so parallel workers never read half of
it) and imported like any module; its kernels are cached like any other. Adding a game edits no
file here: registering its package (:data:`samuel.games.GAME_PACKAGES`, or
``$SAMUEL_EXTRA_GAMES`` for a game kept outside Samuel) is enough.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
import tempfile
from pathlib import Path

import numba

from samuel.games import descriptors

# name -> (its parameters after the game's number, what it does). Each game's compiled module
# defines every one of these with exactly these parameters.
INTERFACE = {
    "generate": ("state, moves", "legal moves into ``moves``; their number (0 at a chance node)"),
    "play": ("state, move, child", "the position after a move, or after a chance outcome"),
    "chance": (
        "state, outcomes, weights",
        "at a chance node (dice to roll) its outcomes and their probabilities (float64, summing"
        " to 1); their number, 0 at any other position (a finished one included)",
    ),
    "key": ("state", "a key for repetition and the transposition table"),
    "sign": ("state", "+1 when the first player is to move (or to roll), else -1"),
    "result": (
        "state, move_count",
        "the first player's points (+1 a single win, -2 a gammon lost, 0 a draw ...) if the"
        " position ends the game, else NOT_OVER; move_count: its legal moves' number",
    ),
    "is_capture": ("move", "whether the move captures (searched first)"),
    "is_irreversible": ("state, move", "no position before the move can recur after it"),
    "history_slot": ("move", "a small index (below 1024) for the history heuristic"),
    "classic_evaluate": ("state, weights, scratch", "the classic evaluation, first player's view"),
    "classic_features": ("state, out", "the classic evaluation's features"),
    "classic_weight_features": ("state, out", "every classic weight's feature, tables too"),
    "network_inputs": ("state, active, values", "the network's set inputs and their values"),
    "zero_network_inputs": ("state, active, values", "the Zero network's set inputs"),
    "network_sign": ("state", "+1, or the side to move's sign for a side-to-move network"),
    "transform": ("state, symmetry, image", "the position's image under a symmetry"),
    "symmetry_sign": ("symmetry", "what the symmetry does to a first player's value"),
    "tablebase_result": ("state, tablebase", "(found, outcome, plies) from the game's table"),
    "move_action": (
        "state, move",
        "the policy's action of a legal move (0 to COMPILED.actions - 1; -1 or a raising call"
        " for a code that stands for none)",
    ),
    "phase": (
        "state",
        "the position's phase, 0 to COMPILED.phases - 1 (which network of a network per phase"
        " values it); 0 in a game of one phase",
    ),
    "action_symmetry": (
        "symmetry, action",
        "the action in the image of its position under the symmetry (-1 or a raising call for a"
        " symmetry or action out of range)",
    ),
}

# Constants of each game's COMPILED that compiled code reads through the dispatch.
CONSTANTS = {
    "network_input_count": "network_inputs",
    "classic_feature_count": "classic_features",
    "chance_outcomes": "chance_outcomes",
    "policy_actions": "actions",
    "phase_count": "phases",
}

# Inlined into each caller, as are the games' own interface functions: one call deep at every
# node of the search, as fast as the hand-written branches were. An inlined ``raise`` would keep
# numba from running a caller's prange loop in parallel, so the errors are raised by calls
# (compiled_game.unknown_game, ...), which are not inlined.
INLINE = "@inline_kernel"
GAME_MASK = 255  # a game number's low bits name the game, the bits above its variant


def compiled_modules() -> dict[int, str]:
    """Every registered game's compiled module by the game's number."""
    modules: dict[int, str] = {}
    for descriptor in descriptors().values():
        if not 0 <= descriptor.number <= GAME_MASK:
            raise RuntimeError(f"{descriptor.title}: game number {descriptor.number} is not 0-255")
        if descriptor.number in modules:
            raise RuntimeError(f"two games have the number {descriptor.number}")
        modules[descriptor.number] = descriptor.compiled_module
    return modules


def source(modules: dict[int, str]) -> str:
    """The dispatch module's Python source for the games ``modules`` (number -> module)."""
    lines = [
        '"""Written by samuel.games.dispatch from the registered games; do not edit."""',
        "from samuel.games.compiled_game import unknown_game",
        "from samuel.jit import inline_kernel",
    ]
    for number, module in sorted(modules.items()):
        lines.append(f"import {module} as game_{number}")
    for name, (parameters, doc) in INTERFACE.items():
        lines += ["", "", INLINE, f"def {name}(game, {parameters}):", f'    """{doc}"""']
        lines.append(f"    base = game & {GAME_MASK}")
        for number in sorted(modules):
            lines.append(f"    if base == {number}:")
            lines.append(f"        return game_{number}.{name}(game, {parameters})")
        lines.append("    unknown_game(game)  # raises")
        last = max(modules)  # never reached; numba types the function by its returns
        lines.append(f"    return game_{last}.{name}(game, {parameters})")
    for name, field in CONSTANTS.items():
        lines += ["", "", INLINE, f"def {name}(game):", f"    base = game & {GAME_MASK}"]
        for number, module in sorted(modules.items()):
            value = getattr(importlib.import_module(module).COMPILED, field)
            lines.append(f"    if base == {number}:")
            lines.append(f"        return {value!r}")
        lines.append("    unknown_game(game)  # raises")
        lines.append(f"    return {value!r}")
    return "\n".join(lines) + "\n"


def load():
    """The dispatch module for the registered games, written into the kernel cache's folder if
    it is not there yet."""
    text = source(compiled_modules())
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    folder = Path(numba.config.CACHE_DIR)
    path = folder / f"dispatch_{digest}.py"
    if not path.exists() or path.read_text() != text:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".dispatch", suffix=".tmp")
        with os.fdopen(handle, "w") as file:
            file.write(text)
        os.replace(temporary, path)
    name = "samuel.games._dispatch"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
