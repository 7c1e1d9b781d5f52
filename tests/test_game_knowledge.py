"""A game's knowledge stays in its own folder: no module outside ``samuel/games/<game>/`` names a
game, by importing its package, by its number's constant, or by its name or a side's name as a
string in code (docstrings and comments may mention them). Generic code reaches a game through
the registry (its descriptor, its rules, its parts). ``ALLOWED`` lists the modules that still do,
each to be emptied; a module leaves the list when it no longer names a game, and the test fails
if a listed module has become clean (so the list only shrinks).
"""

from __future__ import annotations

import ast
from pathlib import Path

SOURCE = Path(__file__).resolve().parent.parent / "src" / "samuel"
GAME_FOLDERS = ("games/tigers", "games/draughts", "games/backgammon", "games/nardy")
NAMES = {"tigers", "draughts", "sheep", "black", "white"}  # game and side names
CONSTANTS = {"TIGERS_AND_SHEEP", "DRAUGHTS"}
PACKAGES = ("samuel.games.tigers", "samuel.games.draughts")

# module -> what of a game it still knows (the work left on issue 39's first item)
ALLOWED = {}


def docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string constants that are docstrings."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def mentions(path: Path) -> list[str]:
    """Where the module at ``path`` names a game."""
    tree = ast.parse(path.read_text())
    skip = docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names]
            if isinstance(node, ast.ImportFrom):
                module = node.module or ""
                names = [f"{module}.{n}" for n in names] if node.level == 0 else [module]
            if any(n.startswith(p) for n in names for p in PACKAGES) or (
                isinstance(node, ast.ImportFrom) and node.level and module.split(".")[0] in NAMES
            ):
                found.append(f"line {node.lineno}: imports a game's package")
        elif isinstance(node, ast.Name | ast.Attribute):
            name = node.id if isinstance(node, ast.Name) else node.attr
            if name in CONSTANTS:
                found.append(f"line {node.lineno}: {name}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in skip and node.value.lower() in NAMES:
                found.append(f"line {node.lineno}: the string {node.value!r}")
    return found


def generic_modules() -> list[Path]:
    return [
        path
        for path in sorted(SOURCE.rglob("*.py"))
        if not any(path.relative_to(SOURCE).as_posix().startswith(f) for f in GAME_FOLDERS)
    ]


def test_no_generic_module_names_a_game() -> None:
    found = {}
    for path in generic_modules():
        name = path.relative_to(SOURCE).as_posix()
        where = mentions(path)
        if where and name not in ALLOWED:
            found[name] = where
    assert not found, f"these modules name a game (reach it through the registry): {found}"


def test_the_list_of_modules_that_still_name_a_game_only_shrinks() -> None:
    clean = [
        name for name in ALLOWED if not (SOURCE / name).exists() or not mentions(SOURCE / name)
    ]
    assert not clean, f"{clean} no longer name a game: take them off ALLOWED"
