"""A game from outside Samuel joins it through its descriptor alone: Race, the tests' dice game
(``tests/race``), registered with ``$SAMUEL_EXTRA_GAMES``, passes the conformance tests every
game passes and its own (chance nodes, gammons, exact expectimax values).

The registered games are read once, when the kernels load, so Race's tests run in a process of
their own; this process never registers it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from samuel.games import descriptors, dispatch
from samuel.plugins import EXTRA_GAMES

ROOT = Path(__file__).resolve().parent.parent


def test_race_is_registered_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(EXTRA_GAMES, raising=False)
    assert "race" not in descriptors()
    monkeypatch.setenv(EXTRA_GAMES, "tests.race")  # the descriptors only: no rules, no kernels
    race = descriptors()["race"]
    assert (race.number, race.rules_module, race.compiled_module) == (
        200,
        "tests.race.rules",
        "tests.race.compiled",
    )
    assert list(descriptors())[-1] == "race"  # after Samuel's own games


def test_the_dispatch_source_branches_to_the_race_module() -> None:
    text = dispatch.source({0: "samuel.games.tigers.compiled", 200: "tests.race.compiled"})
    assert "import tests.race.compiled as game_200" in text
    assert "        return game_200.chance(game, state, outcomes, weights)" in text
    chance_outcomes = text[text.index("def chance_outcomes(game):") :]
    assert "    if base == 200:\n        return 6\n" in chance_outcomes
    assert "    if base == 0:\n        return 0\n" in chance_outcomes


@pytest.mark.slow
def test_race_passes_the_conformance_tests_and_its_own(tmp_path: Path) -> None:
    """The conformance tests' race cases (their ids name the game) and tests/race, in a process
    with Race registered. The first run compiles every kernel with Race's branch (minutes)."""
    environment = dict(os.environ)
    environment[EXTRA_GAMES] = "tests.race"
    path = environment.get("PYTHONPATH")
    environment["PYTHONPATH"] = str(ROOT) + (os.pathsep + path if path else "")
    report = tmp_path / "report.xml"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-rfE",
            f"--junit-xml={report}",
            "tests/race",
            "tests/test_games_conformance.py",
            "-k",
            "race",
        ],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    cases = list(ElementTree.parse(report).getroot().iter("testcase"))
    ran = [c for c in cases if c.find("skipped") is None]
    conformance = [c for c in ran if c.get("name", "").endswith("[race]")]
    own = [c for c in ran if "test_race" in c.get("classname", "")]
    assert conformance, "no conformance test ran for race"
    assert len(own) >= 8, "Race's own tests did not run"
    assert len(ran) == len(cases), [c.get("name") for c in cases if c not in ran]
