"""Layers point one way: no module of Samuel imports a module of a layer above its own.

The layers, bottom first, are declared below; a module belongs to the layer of the longest
declared name its dotted name starts with. Imports are read from the source with :mod:`ast`,
those inside functions included (a lazy import is still a dependency), so the check needs no
import and sees every module. A new top-level module or package must be declared here.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parent.parent / "src"

LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "foundation",
        (
            "samuel",
            "samuel.errors",
            "samuel.config_options",  # a config's fields are its command's options
            "samuel.files",
            "samuel.plugins",
            "samuel.jit",
            "samuel.bits",
            "samuel.seeds",
            "samuel.backends",
            "samuel.ray_backend",  # the one module that imports Ray
            "samuel.progress",
        ),
    ),
    # The network's arithmetic knows no game and the games know no network: they are siblings
    # (test_the_games_and_the_network_are_siblings), listed one above the other here.
    ("network", ("samuel.nn",)),
    ("games", ("samuel.games",)),  # each game's tablebase core included: games/tigers/tablebase
    # The evaluators the searches take: a game's classic evaluation and encoder, the network's
    # forward pass, and networks checked against their game.
    ("evaluation", ("samuel.evaluation",)),
    ("search", ("samuel.search",)),
    # samuel.spiel (the optional OpenSpiel extra) puts Samuel's games in OpenSpiel and OpenSpiel's
    # bots among the players.
    # A game's parts that serve a layer above the games belong to it: its own players (gnubg,
    # for backgammon), and its games for points, whose players decide the cube (its cube games
    # and their match files).
    (
        "players",
        (
            "samuel.players",
            "samuel.spiel",
            "samuel.games.*.players",
            "samuel.games.*.cube_game",
            "samuel.games.*.match_file",
        ),
    ),
    ("matches", ("samuel.match",)),
    ("training", ("samuel.train",)),
    # Tuning labels positions by self-play (samuel.train.selfplay); blunder scoring plays games
    # with players and matches against the table.
    ("tuning and tablebase work", ("samuel.tune", "samuel.tablebase")),
    # The production loop plays, labels, trains and gates with all of the above.
    ("pipeline", ("samuel.pipeline",)),
    # Analysis for people and services: positions ranked by players, records judged, and which
    # model answered (a pipeline's registry among them); a game's part of it (backgammon's cube).
    ("analysis", ("samuel.analysis", "samuel.games.*.analysis")),
    (
        "commands and the server",
        (
            "samuel.options",
            "samuel.match.commands",
            "samuel.train.command",
            "samuel.train.zero_command",
            "samuel.tune.commands",
            "samuel.tablebase.commands",
            "samuel.pipeline.commands",
            "samuel.cluster",
            "samuel.web",
            "samuel.games.*.web",  # what the page needs of a game: backgammon's cube's end too
        ),
    ),
    ("command line", ("samuel.cli",)),
]


def layer_of(module: str) -> int:
    """The index in LAYERS of the layer ``module`` belongs to; KeyError if none declares it."""
    best, best_length = None, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            # a "*" stands for one name: any game's (fnmatch's "*" would cross dots)
            pattern = re.escape(prefix).replace(r"\*", r"[^.]+")
            if re.fullmatch(pattern + r"(\..+)?", module) and len(prefix) > best_length:
                best, best_length = index, len(prefix)
    if best is None:
        raise KeyError(module)
    return best


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SOURCE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(path: Path) -> list[tuple[int, str]]:
    """Every ``samuel`` module the file imports, with its line: for ``from a import b`` the name
    ``a.b``, which falls back to ``a``'s layer when ``b`` is no module."""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package.pop()
    names = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            names += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
    return [(line, name) for line, name in names if name.split(".")[0] == "samuel"]


MODULES = sorted(SOURCE.joinpath("samuel").rglob("*.py"))


def test_every_module_is_in_a_declared_layer() -> None:
    assert len(MODULES) > 50
    undeclared = []
    for path in MODULES:
        try:
            layer_of(module_name(path))
        except KeyError:
            undeclared.append(module_name(path))
    assert not undeclared, f"declare the layer of {undeclared} in tests/test_layers.py"


@pytest.mark.parametrize("path", MODULES, ids=module_name)
def test_no_module_imports_a_layer_above_its_own(path: Path) -> None:
    module = module_name(path)
    own = layer_of(module)
    upward = [
        f"line {line}: {name} ({LAYERS[layer_of(name)][0]})"
        for line, name in imported(path)
        if layer_of(name) > own
    ]
    assert not upward, f"{module} ({LAYERS[own][0]}) imports from above: {'; '.join(upward)}"


def test_the_check_sees_an_upward_import() -> None:
    """The parser resolves relative imports and names a lazy import inside a function."""
    assert layer_of("samuel.match.commands") > layer_of("samuel.match.runner")
    assert layer_of("samuel.games.tigers.tablebase.index") == layer_of("samuel.games")
    assert layer_of("samuel.tablebase.score") > layer_of("samuel.players")
    path = SOURCE / "samuel" / "games" / "tigers" / "compiled.py"
    names = [name for _, name in imported(path)]
    assert "samuel.games.tigers.tablebase.index.stored_code" in names
    assert all(layer_of(name) <= layer_of("samuel.games") for name in names)
    commands = [name for _, name in imported(SOURCE / "samuel" / "tablebase" / "commands.py")]
    assert any(name.startswith("samuel.tablebase.score") for name in commands)  # a lazy import


def test_the_games_and_the_network_are_siblings() -> None:
    """Neither imports the other: the evaluators (samuel.evaluation) join them."""
    crossing = []
    for path in MODULES:
        module = module_name(path)
        for mine, other in (("samuel.games", "samuel.nn"), ("samuel.nn", "samuel.games")):
            if module == mine or module.startswith(mine + "."):
                crossing += [
                    f"{module} line {line}: {name}"
                    for line, name in imported(path)
                    if name == other or name.startswith(other + ".")
                ]
    assert not crossing, crossing


def third_party(path: Path) -> set[str]:
    """The top-level names of every package the file imports (absolute imports only)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.slow
def test_only_the_ray_backend_imports_ray() -> None:
    """Ray is an optional extra: one module owns it, and the core runs without it."""
    owners = [module_name(path) for path in MODULES if "ray" in third_party(path)]
    assert owners == ["samuel.ray_backend"]


def test_only_samuel_spiel_imports_openspiel() -> None:
    """OpenSpiel is an optional extra: its package owns it, and the core runs without it."""
    owners = {
        module_name(path) for path in MODULES if third_party(path) & {"pyspiel", "open_spiel"}
    }
    assert owners and all(owner.startswith("samuel.spiel") for owner in owners), owners
