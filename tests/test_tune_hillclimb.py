"""Hill climbing: one weight changes per round (never the unit), seeds come from the round
number, every round is logged, and the learned weights load as a classic player's."""

from __future__ import annotations

import json

import numpy as np
import pytest

from samuel.games.tigers import classic
from samuel.tune.config import TUNABLE, HillClimbConfig
from samuel.tune.hillclimb import final_seed, hill_climb, mutate, round_seed


def test_a_mutation_changes_one_tunable_weight_and_depends_on_seed_and_round_only():
    weights = classic.load_weights()
    seen = set()
    for number in range(1, 60):
        feature, changed = mutate(weights, TUNABLE, 0.3, seed=4, number=number)
        differs = np.flatnonzero(changed != weights)
        assert [classic.FEATURES[i] for i in differs] == [feature]
        assert feature in TUNABLE and changed[0] == 1.0
        again = mutate(weights, TUNABLE, 0.3, seed=4, number=number)
        assert again[0] == feature and np.array_equal(again[1], changed)
        seen.add(feature)
    assert seen == set(TUNABLE)
    assert not np.array_equal(
        mutate(weights, TUNABLE, 0.3, 5, 1)[1], mutate(weights, TUNABLE, 0.3, 4, 1)[1]
    )
    assert len({round_seed(0, r) for r in range(100)} | {final_seed(0)}) == 101


def test_a_short_run_logs_every_round_and_writes_learned_weights(tmp_path):
    config = HillClimbConfig(
        rounds=3,
        games=4,
        out_dir=str(tmp_path / "hc"),
        depth=1,
        accept=0.5,
        final_games=4,
        workers=1,
        seed=2,
    )
    lines = []
    run = hill_climb(config, log=lines.append)
    out = tmp_path / "hc"
    rows = [json.loads(line) for line in (out / "rounds.jsonl").read_text().splitlines()]
    assert [row["round"] for row in rows] == [1, 2, 3]
    assert sum(line.startswith("round ") for line in lines) == 3
    learned = classic.load_weights(out / "learned.json")
    assert learned.tolist() == list(run["learned"].values())
    champion = classic.load_weights()
    for row in rows:  # replaying the log gives the learned weights
        if row["accepted"]:
            champion[classic.FEATURES.index(row["feature"])] = row["after"]
    assert np.array_equal(champion, learned)
    final = json.loads((out / "learned.json").read_text())["tuning"]["final"]
    assert final["games"] == 4 and final["opening_plies"] == 5
    assert final["score_low"] <= final["score"] <= final["score_high"]
    assert not (out / "challenger.json").exists()


@pytest.mark.parametrize(
    ("changes", "phrase"),
    [
        ({"features": ("captured",)}, "captured is the unit"),
        ({"features": ("nonsense",)}, "unknown feature"),
        ({"final_opening_plies": 4}, "must differ in length"),
        ({"games": 3}, "even number"),
        ({"out_dir": "a:b"}, "must not contain"),
    ],
)
def test_bad_hill_climbing_settings_are_refused(changes, phrase):
    with pytest.raises(ValueError, match=phrase):
        HillClimbConfig(**changes)
