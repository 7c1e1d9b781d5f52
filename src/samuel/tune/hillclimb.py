"""Hill climbing, as Arthur Samuel did in 1959 (the seed's Modules 3 and 4).

1. The champion starts as the starting weights (the hand-written ones unless told otherwise).
2. Each round changes one weight of the champion at random: that is the challenger. The unit
   (``captured`` for Tigers & Sheep, ``men`` for draughts) is never changed: everything else is
   measured in it (one sheep, one man).
3. The challenger plays the champion in a fair match (``samuel.match``: every opening twice, the
   sides swapped; in a game with dice both games of a pair with the same dice). It becomes the
   champion if it scores at least ``accept``, or, with an SPRT, if the test accepts H1. In a game
   whose wins score points (long nardy: a mars 2, a koks 3) its score is its share of the points
   (:mod:`samuel.tune.scores`), and the final match reports the points a game too.
4. At the end, a final match of the learned weights against the starting ones, of
   ``final_games`` games fixed before it is played, on openings never used in training, is
   reported with its 95% range whatever it says.

**Why the final openings are new.** The rounds' openings are ``opening_plies`` random plies long,
the final match's ``final_opening_plies``, and the two must differ. In the placement phase (the
first 40 plies, and openings are at most 40) the sheep place one sheep per move, so after ``n``
plies there are exactly ``20 - ceil(n / 2)`` sheep in hand and the side to move is fixed by
``n``'s parity: openings of different lengths can never reach the same position, whatever their
seeds. At draughts nothing counts the plies played but the side to move, so there the two lengths
must differ in parity: then every opening position of the final match has the other side to
move. (Their seeds differ too: rounds and the final match draw them from separate streams.) In a
game with dice the seeds are what keeps them apart: the final match's dice are its own, so no
random opening is needed (long nardy plays from the start, both lengths 0).

The matches are played on the config's game (``--game``), the challengers change that game's
classic weights, and the weights files are that game's (:mod:`samuel.tune.games`).

Every round is logged to standard output and appended to ``rounds.jsonl`` in the out dir; the
champion is saved after every accepted round (``champion.json``), so a stopped run keeps its
progress; the learned weights, with the final match's result, go to ``learned.json`` (a classic
weights file: ``classic:weights=OUT_DIR/learned.json``) and the whole run to ``hillclimb.json``.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from samuel.backends import Backend, LocalBackend
from samuel.files import save_or_keep, write_atomically
from samuel.seeds import derive_seed

from .config import DEFAULT_GAME, HillClimbConfig
from .games import tuning_game

ROUND_STREAM = 0x4C1B  # round r's match seed and mutation come from (seed, r, these)
MUTATION_STREAM = 0x407A
FINAL_STREAM = 0xF1A1  # the final match's seed comes from (seed, this)


@dataclass(frozen=True)
class Round:
    """One round: the change tried, the match's result and whether it was accepted."""

    round: int
    feature: str
    before: float
    after: float
    score: float  # the challenger's share of the points (samuel.tune.scores)
    score_low: float  # its 95% range
    score_high: float
    games: int
    llr: float | None  # the SPRT's log-likelihood ratio, when one ran
    accepted: bool

    def line(self) -> str:
        llr = "" if self.llr is None else f"  LLR {self.llr:+.2f}"
        return (
            f"round {self.round:3d}: {self.feature:20s} {self.before:+.4f} -> "
            f"{self.after:+.4f} ({self.after - self.before:+.4f})  score "
            f"{100 * self.score:5.1f}% ({100 * self.score_low:.1f}-"
            f"{100 * self.score_high:.1f}%) of {self.games}{llr}  "
            f"{'ACCEPTED' if self.accepted else 'rejected'}"
        )


def round_seed(seed: int, number: int) -> int:
    """Round ``number``'s match seed: from the run's seed and the round number only."""
    return derive_seed(seed, number, ROUND_STREAM)


def final_seed(seed: int) -> int:
    """The final match's seed, from a stream no round uses."""
    return derive_seed(seed, FINAL_STREAM)


def mutate(
    weights: np.ndarray,
    features: tuple[str, ...],
    step: float,
    seed: int,
    number: int,
    game: str = DEFAULT_GAME,
) -> tuple[str, np.ndarray]:
    """Round ``number``'s challenger: one of ``features`` (of ``game``'s classic evaluation)
    changed by ``step`` times its size (at least the game's step floor for it,
    :data:`samuel.tune.games.STEP_FLOOR`) times a random factor in 0.5..1.5, up or down,
    rounded to 4 decimals. Depends on (seed, number) only."""
    tuned = tuning_game(game)
    rng = np.random.default_rng([seed, number, MUTATION_STREAM])
    feature = features[int(rng.integers(len(features)))]
    i = tuned.features.index(feature)
    floor = tuned.step_floor[feature]
    size = max(step * abs(weights[i]), floor) * rng.uniform(0.5, 1.5)
    changed = weights.copy()
    changed[i] = round(float(weights[i] + (size if rng.random() < 0.5 else -size)), 4)
    if changed[i] == weights[i]:  # rounding undid it: step by the floor instead
        changed[i] = round(float(weights[i] + floor), 4)
    return feature, changed


def _spec(path: Path, depth: int) -> str:
    return f"classic:weights={path}:depth={depth}"


def hill_climb(
    config: HillClimbConfig,
    log: Callable[[str], None] = print,
    progress: bool = False,
    backend: Backend | None = None,
) -> dict:
    """Run the rounds and the final match; write the files; return the run as a dict (what
    ``hillclimb.json`` holds). The matches' pairs are played by ``backend``
    (:mod:`samuel.backends`; by default this machine's ``config.workers`` processes): the run
    is the same on any."""
    from samuel.match.head_to_head import play_match

    from .scores import match_score

    game = tuning_game(config.game)
    load_weights, save_weights, features = game.load_weights, game.save_weights, game.features
    out_dir = Path(config.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    original = load_weights(config.start)
    features = game.weights[: len(original)]  # the tables' too, if the start has them
    original_path, champion_path = out_dir / "original.json", out_dir / "champion.json"
    challenger_path = out_dir / "challenger.json"
    started_from = config.start or "the hand-written weights"
    save_weights(original, original_path, note=f"the starting weights: {started_from}")
    champion = original.copy()
    save_weights(champion, champion_path, note="the champion after round 0")
    rounds_path = out_dir / "rounds.jsonl"
    rounds_path.write_text("")
    rounds = []

    def match(first: Path, second: Path, games: int, seed: int, plies: int, sprt):
        if backend is not None and not isinstance(backend, LocalBackend):
            # A cluster's workers may run in another folder: they read the weights by full path.
            first, second = first.resolve(), second.resolve()
        return play_match(
            _spec(first, config.depth),
            _spec(second, config.depth),
            games,
            seed=seed,
            openings=plies,
            ply_cap=config.ply_cap,
            sprt=sprt,
            workers=config.workers,
            progress=progress,
            game=config.game,
            backend=backend,
        )

    log(
        f"hill climbing {config.rounds} rounds of {config.games} games at depth {config.depth}; "
        f"accept {'by SPRT ' + str(config.sprt) if config.sprt else f'at {config.accept:.0%}'}"
    )
    for number in range(1, config.rounds + 1):
        feature, challenger = mutate(
            champion, config.features, config.step, config.seed, number, config.game
        )
        save_weights(challenger, challenger_path, note=f"round {number}'s challenger")
        result = match(
            challenger_path,
            champion_path,
            config.games,
            round_seed(config.seed, number),
            config.opening_plies,
            config.sprt,
        )
        score = match_score(result, game.max_points)
        if config.sprt is not None:
            accepted = result.sprt.decision == "H1"
        else:
            accepted = score.share >= config.accept
        i = features.index(feature)
        row = Round(
            number,
            feature,
            float(champion[i]),
            float(challenger[i]),
            score.share,
            score.low,
            score.high,
            result.games,
            None if result.sprt is None else result.sprt.llr,
            accepted,
        )
        rounds.append(row)
        log(row.line())
        with rounds_path.open("a") as file:
            file.write(json.dumps(dataclasses.asdict(row)) + "\n")
        if accepted:
            champion = challenger
            save_weights(champion, champion_path, note=f"the champion after round {number}")
    challenger_path.unlink(missing_ok=True)

    apart = (
        "its own dice: never the rounds' games"
        if game.dice
        else f"the rounds' were {config.opening_plies}: never the same positions"
    )
    log(
        f"final match: learned vs starting weights, {config.final_games} games (fixed before "
        f"it is played), {config.final_opening_plies}-ply openings ({apart})"
    )
    final = match(
        champion_path,
        original_path,
        config.final_games,
        final_seed(config.seed),
        config.final_opening_plies,
        None,
    )
    stats = final.statistics
    final_score = match_score(final, game.max_points)
    summary = (
        f"learned vs starting weights: {final_score.text()}, Elo "
        f"{stats.elo:+.0f} +/- {stats.elo_error:.0f}"
        f"{'' if final_score.points is None else ' (of games won)'}, over {final.games} games"
    )
    log(summary)
    final_record = {
        "games": final.games,
        "score": final_score.share,
        "score_low": final_score.low,
        "score_high": final_score.high,
        "elo": stats.elo,
        "elo_error": stats.elo_error,
        "wins": stats.wins,
        "draws": stats.draws,
        "losses": stats.losses,
        "seed": final.config.seed,
        "opening_plies": config.final_opening_plies,
    }
    if final_score.points is not None:
        final_record["points"] = final_score.points
        final_record["points_low"] = final_score.points_low
        final_record["points_high"] = final_score.points_high
    learned_path = out_dir / "learned.json"
    # After every round and the final match: weights that cannot be written are kept elsewhere.
    save_or_keep(
        learned_path,
        "learned weights",
        lambda path: save_weights(
            champion,
            path,
            note=f"hill-climbed by samuel hillclimb; {summary}",
            extra={
                "tuning": {
                    "method": "hill climbing",
                    "config": config.to_dict(),
                    "accepted": sum(r.accepted for r in rounds),
                    "rounds": len(rounds),
                    "final": final_record,
                }
            },
        ),
    )
    for name, before, after in zip(features, original, champion, strict=True):
        log(f"  {name:20s} {before:+9.4f} -> {after:+9.4f}")
    log(f"learned weights written to {learned_path} (play them: classic:weights={learned_path})")
    run = {
        "config": config.to_dict(),
        "rounds": [dataclasses.asdict(r) for r in rounds],
        "original": dict(zip(features, original.tolist(), strict=True)),
        "learned": dict(zip(features, champion.tolist(), strict=True)),
        "final": final_record,
    }
    write_atomically(out_dir / "hillclimb.json", (json.dumps(run, indent=1) + "\n").encode())
    return run
