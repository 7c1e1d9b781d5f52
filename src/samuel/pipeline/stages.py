"""The stages of a cycle: what units each is cut into (planning) and what a unit does (work).

A cycle runs ``STAGES`` in order. Planning a stage writes its units in the transaction that
moves the cycle to it, so a stage in the store always has its units; a stage with nothing to do
plans none and the cycle moves straight on. A unit's work is computed outside any transaction
and returns a function that stores its output; the loop calls it in the transaction that marks
the unit done (``work.finish``), so output and completion commit together or not at all.

Every seed is derived from the pipeline's seed, the cycle number, the stage and the unit's part
(never from a run or a database id), and labels take theirs from the position's state: the
same configuration gives the same positions, labels and models however many runs share the work.
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from sqlalchemy import Connection, select, update

from samuel.backends import Backend
from samuel.games import descriptors, get_game
from samuel.games import kernels as game_kernels
from samuel.nn.phased import is_phased
from samuel.seeds import derive_seed

from . import dataset, registry
from .bulk import import_labelled
from .config import RANDOM_PER_UNIT, TABLEBASE_PER_UNIT, PipelineConfig
from .dice import equities, evaluator_of, has_dice, rollout_config, to_roll
from .gating import gate, record_tournament
from .relabel import prioritise
from .schema import Cycle, Model, Position, Tournament, WorkUnit
from .store import Provenance, Store, insert_positions
from .work import ClaimedUnit

STAGES = ("generate", "random", "label", "train", "gate", "prioritise", "relabel")
DONE = "done"
MEASURED_POSITIONS = 100_000  # the most game positions the random source's distribution reads
GAME_ID_SPAN = 1 << 20  # origin_game = unit id * span + the game's number in its unit

STREAMS = {stage: 0x57A9E0 + number for number, stage in enumerate(STAGES)}
SELFPLAY, EXPERT, TABLEBASE = 1, 2, 3


@dataclass(eq=False)  # hashed by identity: its params() are cached per context
class Context:
    """What every unit of one game's pipeline needs: the store, the folder, the game, and the
    run's backend (:mod:`samuel.backends`: where self-play, labelling and the gate's matches
    fan out; None, this machine as always). The backend is the run's, not the configuration's:
    any run may share the work on any backend, with the same results."""

    store: Store
    folder: Path
    game: str
    say: Callable[[str], None] = print
    progress: bool = False
    backend: Backend | None = None
    _tables: dict = field(default_factory=dict)

    @property
    def rules(self):
        return get_game(self.game)

    @property
    def number(self) -> int:
        return self.rules.number

    @property
    def perfect(self):
        """The game's ``perfect`` part (its tablebase), None for a game without one."""
        return descriptors()[self.game].part("perfect")

    def tablebase(self, config: PipelineConfig):
        """The table the configuration names, loaded once (None without one)."""
        if config.tablebase is None:
            return None
        if config.tablebase not in self._tables:
            self._tables[config.tablebase] = self.perfect.load(config.tablebase)
        return self._tables[config.tablebase]

    @functools.cache  # noqa: B019 - one context per run; a model's file never changes
    def params(self, model_id: int) -> np.ndarray:
        with self.store.read() as connection:
            model = registry.get_model(connection, model_id)
        return registry.load_model(self.folder, model)

    def model_path(self, model_id: int) -> Path:
        with self.store.read() as connection:
            return registry.model_file(self.folder, registry.get_model(connection, model_id))


def config_of(cycle) -> PipelineConfig:
    return PipelineConfig.from_json(dict(cycle.config))


def _parts(total: int, per_unit: int) -> list[int]:
    return [min(per_unit, total - start) for start in range(0, total, per_unit)]


# Planning: the tasks of each stage.


def plan(connection: Connection, ctx: Context, cycle, stage: str) -> list[dict]:
    config = config_of(cycle)
    seed = derive_seed(config.seed, cycle.number, STREAMS[stage])
    if stage == "generate":
        tasks = [
            {"kind": "selfplay", "games": n, "seed": derive_seed(seed, SELFPLAY, part)}
            for part, n in enumerate(_parts(config.selfplay_games, config.games_per_unit))
        ]
        if _has_experts(ctx):
            tasks += [
                {"kind": "expert", "games": n, "seed": derive_seed(seed, EXPERT, part)}
                for part, n in enumerate(_parts(config.expert_games, config.games_per_unit))
            ]
        if ctx.perfect is not None:  # a game with a tablebase draws positions from it
            tasks += [
                {"kind": "tablebase", "count": n, "seed": derive_seed(seed, TABLEBASE, part)}
                for part, n in enumerate(_parts(config.tablebase_positions, TABLEBASE_PER_UNIT))
            ]
        return tasks
    if stage == "random":
        if not config.random_positions or not _has_random(ctx):
            return []
        distribution = _measured_distribution(connection, ctx, cycle)
        if distribution is None:
            return []
        return [
            {
                "kind": "random",
                "count": n,
                "seed": derive_seed(seed, part),
                "distribution": distribution,
            }
            for part, n in enumerate(_parts(config.random_positions, RANDOM_PER_UNIT))
        ]
    if stage == "label":
        ids = dataset.unlabelled_ids(connection, ctx.game)
        return _id_tasks(ids, config.label_chunk, seed)
    if stage == "train":
        return [{"seed": seed}]
    if stage == "gate":
        return [{"seed": seed}] if cycle.candidate_id is not None else []
    if stage == "prioritise":
        promoted = connection.execute(
            select(Tournament.decision).where(Tournament.id == cycle.tournament_id)
        ).scalar_one_or_none()
        return [{"seed": seed}] if promoted == "promote" and config.relabel_positions else []
    if stage == "relabel":
        ids = dataset.by_priority(connection, ctx.game, config.relabel_positions)
        return _id_tasks(ids, config.label_chunk, seed, relabel=True)
    raise ValueError(f"no stage {stage!r}")


def _has_experts(ctx: Context) -> bool:
    """Whether the game has expert players: compiled ones, or a game with dice's player specs
    (its own, or ``--experts``)."""
    part = descriptors()[ctx.game].part("pipeline")
    return bool(part.EXPERT_DEPTHS) or has_dice(ctx.game)


def _has_random(ctx: Context) -> bool:
    """Whether the game has a distribution for random positions: a placement distribution, or
    a game with dice's (:mod:`.dice_random`)."""
    part = descriptors()[ctx.game].part("pipeline")
    return hasattr(part, "masks_and_counts") or has_dice(ctx.game)


def _id_tasks(ids: list[int], chunk: int, seed: int, relabel: bool = False) -> list[dict]:
    return [
        {"ids": ids[start : start + chunk], "relabel": relabel}
        for start in range(0, len(ids), chunk)
    ]


def _measured_distribution(connection: Connection, ctx: Context, cycle) -> dict | None:
    """The random source's distribution, measured on real game positions: this cycle's
    self-play and expert positions, or, if it made none new, the newest stored ones."""
    from .sources import measure_distribution

    units = select(WorkUnit.id).where(WorkUnit.cycle_id == cycle.id, WorkUnit.stage == "generate")
    query = select(Position.state).where(
        Position.game == ctx.game, Position.source.in_(("selfplay", "expert"))
    )
    rows = (
        connection.execute(
            query.where(Position.unit_id.in_(units))
            .order_by(Position.state)
            .limit(MEASURED_POSITIONS)
        )
        .scalars()
        .all()
    )
    if not rows:
        rows = (
            connection.execute(query.order_by(Position.id.desc()).limit(MEASURED_POSITIONS))
            .scalars()
            .all()
        )
    if not rows:
        return None
    from .store import states_from_bytes

    if has_dice(ctx.game):
        from .dice_random import measure_dice_distribution

        return measure_dice_distribution(ctx.game, states_from_bytes(list(rows))).to_json()
    return measure_distribution(ctx.number, states_from_bytes(list(rows))).to_json()


# Work: what a unit does. Each returns a function that stores the output, given the connection
# of the transaction that finishes the unit, and returns the unit's result.

Store_ = Callable[[Connection], dict]


def work(ctx: Context, cycle, unit: ClaimedUnit) -> Store_:
    return WORK[unit.stage](ctx, cycle, unit)


def _generate(ctx: Context, cycle, unit: ClaimedUnit) -> Store_:

    from . import sources
    from .fanout import expert_positions_on, selfplay_positions_on

    config = config_of(cycle)
    task = unit.task
    champion = ctx.params(cycle.champion_id)
    labels = plies_left = None
    if task["kind"] == "selfplay":
        batch = selfplay_positions_on(
            ctx.backend,
            ctx.number,
            evaluator_of(champion),
            champion,
            task["games"],
            config.selfplay_depth,
            task["seed"],
            random_plies=config.random_plies,
            epsilon=config.selfplay_epsilon,
            ply_cap=descriptors()[ctx.game].default_ply_cap,
        )
        if has_dice(ctx.game):  # the experts' and random positions have no roll already
            batch = to_roll(ctx.game, batch)
        provenance = Provenance(
            "selfplay", cycle.champion_id, task["seed"], ctx.store.run_id, unit.id
        )
    elif task["kind"] == "expert" and has_dice(ctx.game):
        from .dice_experts import expert_positions, expert_specs, with_champion

        path = ctx.model_path(cycle.champion_id).resolve()
        first, second = (with_champion(s, path) for s in expert_specs(ctx.game, config.experts))
        batch = expert_positions(
            ctx.game,
            first,
            second,
            task["games"],
            task["seed"],
            workers=config.workers or os.cpu_count() or 1,
            backend=ctx.backend,
        )
        provenance = Provenance(
            "expert", cycle.champion_id, task["seed"], ctx.store.run_id, unit.id
        )
    elif task["kind"] == "expert":
        players = sources.default_expert_players(ctx.number, champion, ctx.tablebase(config))
        batch = expert_positions_on(ctx.backend, ctx.number, players, task["games"], task["seed"])
        provenance = Provenance(
            "expert", cycle.champion_id, task["seed"], ctx.store.run_id, unit.id
        )
    elif task["kind"] == "tablebase":
        from samuel.train.rollouts import tablebase_distances

        batch, labels = sources.tablebase_positions(
            ctx.tablebase(config), task["count"], task["seed"]
        )
        _, _, plies_left = tablebase_distances(ctx.tablebase(config), batch.states)
        provenance = Provenance("tablebase", None, task["seed"], ctx.store.run_id, unit.id)
    elif has_dice(ctx.game):  # "random", from a game with dice's distribution
        from .dice_random import DiceDistribution, dice_random_positions

        distribution = DiceDistribution.from_json(task["distribution"])
        batch = dice_random_positions(ctx.game, distribution, task["count"], task["seed"])
        provenance = Provenance("random", None, task["seed"], ctx.store.run_id, unit.id)
    else:  # "random"
        distribution = sources.PlacementDistribution.from_json(task["distribution"])
        batch = sources.random_positions(ctx.number, distribution, task["count"], task["seed"])
        provenance = Provenance("random", None, task["seed"], ctx.store.run_id, unit.id)
    states = _full_width(batch.states)
    origin = np.where(batch.games >= 0, unit.id * GAME_ID_SPAN + batch.games, -1)

    def store_output(connection: Connection) -> dict:
        if labels is None:
            new = insert_positions(connection, ctx.game, states, provenance, origin, batch.plies)
        else:  # the table's positions come with their exact values
            new = import_labelled(
                connection,
                ctx.game,
                states,
                labels,
                0.0,
                provenance,
                method="tablebase",
                unit_id=unit.id,
                origin_games=origin,
                plies=batch.plies,
                plies_left=plies_left,
            ).positions
        return {"kind": task["kind"], "positions": len(states), "new": new}

    return store_output


def _full_width(states: np.ndarray) -> np.ndarray:
    """States padded with zeros to the kernels' STATE_SIZE words."""
    states = np.asarray(states, dtype=np.int64)
    if states.shape[1] == game_kernels.STATE_SIZE:
        return np.ascontiguousarray(states)
    full = np.zeros((len(states), game_kernels.STATE_SIZE), dtype=np.int64)
    full[:, : states.shape[1]] = states
    return full


def state_seeds(states: np.ndarray, seed: int) -> np.ndarray:
    """A seed for each position from its state alone (and the stage's seed)."""
    out = np.empty(len(states), dtype=np.int64)
    for i, row in enumerate(np.ascontiguousarray(states, dtype="<i8")):
        digest = hashlib.blake2b(row.tobytes(), digest_size=8, key=seed.to_bytes(8, "little"))
        out[i] = int.from_bytes(digest.digest(), "little") >> 1
    return out


def _label(ctx: Context, cycle, unit: ClaimedUnit) -> Store_:
    from samuel.games.kernels import EVALUATOR_NETWORK
    from samuel.train.rollouts import RolloutConfig, tablebase_distances

    from .fanout import rollout_labels_on

    config = config_of(cycle)
    relabel = unit.task.get("relabel", False)
    with ctx.store.read() as connection:
        ids, states = dataset.load_states(connection, list(unit.task["ids"]))
        # Relabelling uses the champion of now (just promoted); labelling, the cycle's.
        model_id = registry.active_model(connection, ctx.game).id if relabel else cycle.champion_id
    if has_dice(ctx.game):
        return _label_dice(ctx, cycle, unit, ids, states, model_id)
    exact = np.zeros(len(ids), dtype=bool)
    exact_values = np.zeros(len(ids), dtype=np.float32)
    exact_plies = np.full(len(ids), np.nan, dtype=np.float32)
    table = ctx.tablebase(config)
    if table is not None and len(ids):
        exact, exact_values, exact_plies = tablebase_distances(table, states)
    rollout = RolloutConfig(
        rollouts=config.rollouts,
        depth=config.rollout_depth,
        epsilon=config.rollout_epsilon,
        truncate_plies=config.truncate_plies,
        variance_reduction=config.variance_reduction,
    )
    rest = ~exact
    seed = derive_seed(config.seed, cycle.number, STREAMS["relabel" if relabel else "label"])
    labels = rollout_labels_on(
        ctx.backend,
        ctx.number,
        EVALUATOR_NETWORK,
        ctx.params(model_id),
        np.ascontiguousarray(states[rest]),
        state_seeds(states[rest], seed),
        rollout,
        table,  # placement-phase positions: rollouts end once the hand is empty, exactly
    )

    def store_output(connection: Connection) -> dict:
        n = int(exact.sum())
        dataset.add_labels(
            connection,
            ids[exact],
            exact_values[exact],
            np.zeros(n),
            np.zeros(n),
            np.zeros(n, bool),
            method="tablebase",
            model_id=None,
            unit_id=unit.id,
            plies_left=exact_plies[exact],
        )
        dataset.add_labels(
            connection,
            ids[rest],
            labels.values,
            labels.stderr,
            labels.rollouts,
            labels.truncated,
            method="rollout",
            model_id=model_id,
            unit_id=unit.id,
            plies_left=labels.plies_left,
        )
        return {
            "positions": len(ids),
            "exact": n,
            "rollout_games": labels.games,
            "plies": labels.plies,
        }

    return store_output


def _label_dice(ctx: Context, cycle, unit: ClaimedUnit, ids, states, model_id) -> Store_:
    """A labelling unit of a game with dice: rollouts over dice (:mod:`.dice`)."""
    from .fanout import dice_rollout_labels_on

    config = config_of(cycle)
    relabel = unit.task.get("relabel", False)
    params = ctx.params(model_id)
    words = game_kernels.compiled_game(ctx.number).state_words
    rollout = rollout_config(config)
    seed = derive_seed(config.seed, cycle.number, STREAMS["relabel" if relabel else "label"])
    labels = dice_rollout_labels_on(
        ctx.backend,
        ctx.number,
        evaluator_of(params),
        params,
        np.ascontiguousarray(states[:, :words]),
        state_seeds(states, seed),
        rollout,
    )

    def store_output(connection: Connection) -> dict:
        dataset.add_labels(
            connection,
            ids,
            labels.equity,
            labels.stderr,
            labels.rollouts,
            labels.truncated > 0,
            method="rollout",
            model_id=model_id,
            unit_id=unit.id,
            outcomes=labels.outcomes,
            ply=labels.ply,
            variance=rollout.name,
        )
        return {
            "positions": len(ids),
            "exact": int((labels.rollouts == 0).sum()),
            "rollout_games": labels.games,
            "plies": labels.plies,
        }

    return store_output


def train_candidate(ctx: Context, champion_id: int, config: PipelineConfig, seed: int, cycle: int):
    """Train a candidate from the champion on a sample of the labelled positions; return its
    parameters and what the registry keeps of its training."""
    from samuel.train.config import phase_names

    from .supervised import SupervisedConfig, train_supervised, train_supervised_phases

    sample, total = dataset.sample_labelled(
        ctx.store, ctx.game, config.train_positions, seed, without=config.without
    )
    supervised = SupervisedConfig(
        epochs=config.epochs,
        batch_size=config.batch_size,
        learning_rate=config.learning_rate,
        patience=config.patience,
        validation=config.validation,
        seed=seed & 0x7FFFFFFF,
        moves_left_weight=config.moves_left_weight,
        moves_left=config.moves_left,
    )
    dice = has_dice(ctx.game)
    if dice and not sample.has_outcomes:
        raise ValueError(f"a {ctx.game} label without its six outcome chances")
    champion = ctx.params(champion_id)
    data = (ctx.number, champion, sample.states, sample.values, sample.groups, supervised)
    outcomes = sample.outcomes if dice else None
    if is_phased(champion):  # each phase's network learns its own phase's positions
        params, report = train_supervised_phases(
            *data, progress=ctx.progress, outcomes=outcomes, names=phase_names(ctx.game)
        )
    else:
        params, report = train_supervised(
            *data, progress=ctx.progress, plies_left=sample.plies_left, outcomes=outcomes
        )
    sources, counts = np.unique(sample.sources.astype(str), return_counts=True)
    training = {
        "labelled_positions": total,
        "sampled": len(sample),
        "by_source": {str(s): int(c) for s, c in zip(sources, counts, strict=True)},
        "without": config.without,
        "cycle": cycle,
        "pipeline_config": config.to_json(),
        "report": report.to_json(),
    }
    return params, training, report


def _train(ctx: Context, cycle, unit: ClaimedUnit) -> Store_:
    config = config_of(cycle)
    params, training, report = train_candidate(
        ctx, cycle.champion_id, config, unit.task["seed"], cycle.number
    )
    selection = None
    if is_phased(params) and config.phase_gate:
        from samuel.train.config import phase_names

        from .phase_gate import select_phases

        selection = select_phases(
            ctx.game,
            ctx.params(cycle.champion_id),
            ctx.model_path(cycle.champion_id),
            params,
            phase_names(ctx.game),
            ctx.folder,
            f"{ctx.game}-cycle{cycle.number:06d}",
            config,
            unit.task["seed"],
            backend=ctx.backend,
            progress=ctx.progress,
        )
        params = selection.params
        training = {**training, "phase_selection": selection.report()}

    def store_output(connection: Connection) -> dict:
        if selection is not None:  # each phase's network: the model it came from
            with_origins = {
                **training,
                "phase_models": phase_origins(
                    connection, cycle.champion_id, selection.taken, ctx.game
                ),
            }
        else:
            with_origins = training
        model_id = registry.register_model(
            connection,
            ctx.folder,
            ctx.game,
            params,
            parent_id=cycle.champion_id,
            status="candidate",
            training=with_origins,
            run_id=ctx.store.run_id,
        )
        connection.execute(update(Cycle).where(Cycle.id == cycle.id).values(candidate_id=model_id))
        if selection is not None:
            origins = {
                name: model_id if origin is None else origin
                for name, origin in with_origins["phase_models"].items()
            }
            connection.execute(
                update(Model)
                .where(Model.id == model_id)
                .values(training={**with_origins, "phase_models": origins})
            )
        result = {
            "model": model_id,
            "validation_mse": report.validation_mse,
            "baselines": report.baselines,
        }
        if report.moves_left:
            saved = report.to_json()
            result["plies_error"] = [saved["plies_error_start"], saved["plies_error"]]
        if selection is not None:
            result["phases_taken"] = list(selection.taken)
        return result

    return store_output


def phase_origins(connection: Connection, champion_id: int, taken, game: str) -> dict:
    """Each phase's model of origin for a new network per phase: the champion's own origins
    (the champion itself where it records none), None for the ``taken`` phases (the new
    model's, filled in once it has an id)."""
    from samuel.train.config import phase_names

    champion = registry.get_model(connection, champion_id)
    before = (champion.training or {}).get("phase_models") or {}
    if not taken:
        taken = phase_names(game)  # the candidate is taken whole (if the gate takes it)
    return {
        name: None if name in taken else int(before.get(name, champion_id))
        for name in phase_names(game)
    }


def anchor_measure(tournaments, model_id: int | None) -> tuple[float, float, float] | None:
    """The model's score against the anchor and its 95% range, as the newest of ``tournaments``
    (rows in id order) that measured it says: as a candidate, or as a champion whose score was
    unknown and so played; None if none did."""
    for t in reversed(tournaments):
        if t.candidate_id == model_id:
            return t.anchor_score, t.anchor_low, t.anchor_high
        measured = (t.report or {}).get("champion_vs_anchor")
        if t.champion_id == model_id and measured:
            return measured["score"], measured["score_low"], measured["score_high"]
    return None


def champion_anchor_score(connection: Connection, model_id: int, anchor: str) -> float | None:
    """The model's score against the anchor ``anchor`` (a spec), by :func:`anchor_measure`."""
    tournaments = connection.execute(
        select(Tournament.__table__)
        .where(
            (Tournament.candidate_id == model_id) | (Tournament.champion_id == model_id),
            Tournament.anchor == anchor,
        )
        .order_by(Tournament.id)
    ).all()
    measured = anchor_measure(tournaments, model_id)
    return None if measured is None else float(measured[0])


def _gate(ctx: Context, cycle, unit: ClaimedUnit) -> Store_:
    config = config_of(cycle)
    with ctx.store.read() as connection:
        score = champion_anchor_score(connection, cycle.champion_id, config.anchor)
    result = gate(
        ctx.game,
        ctx.model_path(cycle.candidate_id),
        ctx.model_path(cycle.champion_id),
        config,
        unit.task["seed"],
        champion_anchor_known=score is not None,
        progress=ctx.progress,
        backend=ctx.backend,
        champion_anchor=score,
    )

    def store_output(connection: Connection) -> dict:
        tournament_id = record_tournament(
            connection,
            ctx.game,
            cycle.candidate_id,
            cycle.champion_id,
            config,
            result,
            ctx.store.run_id,
        )
        connection.execute(
            update(Cycle).where(Cycle.id == cycle.id).values(tournament_id=tournament_id)
        )
        if result.promote:
            current = registry.active_model(connection, ctx.game, lock=True)
            if current is not None and current.id != cycle.champion_id:
                # Someone promoted another model by hand meanwhile: theirs stands, and the
                # tournament says the candidate was rejected (its champion is no longer one).
                reason = f"model {current.id} was promoted meanwhile"
                report = connection.execute(
                    select(Tournament.report).where(Tournament.id == tournament_id)
                ).scalar_one()
                connection.execute(
                    update(Tournament)
                    .where(Tournament.id == tournament_id)
                    .values(decision="reject", report={**report, "reason": reason})
                )
                registry.reject(connection, [cycle.candidate_id])
                return {"tournament": tournament_id, "decision": "reject", "reason": reason}
            registry.promote(
                connection,
                cycle.candidate_id,
                who=f"samuel pipeline run (run {ctx.store.run_id}, {registry.who()})",
                why=f"cycle {cycle.number}: {result.reason}",
                tournament_id=tournament_id,
            )
        else:
            registry.reject(connection, [cycle.candidate_id])
        return {
            "tournament": tournament_id,
            "decision": "promote" if result.promote else "reject",
            "reason": result.reason,
        }

    return store_output


def _prioritise(ctx: Context, cycle, unit: ClaimedUnit) -> Store_:
    from samuel.games.kernels import EVALUATOR_NETWORK
    from samuel.train.rollouts import evaluate_positions

    with ctx.store.read() as connection:
        champion = registry.active_model(connection, ctx.game).id
    params = ctx.params(champion)
    if has_dice(ctx.game):  # the 0-ply equity, in points as the labels are

        def quick(states: np.ndarray) -> np.ndarray:
            return equities(ctx.number, params, states)

    else:

        def quick(states: np.ndarray) -> np.ndarray:
            return evaluate_positions(ctx.number, EVALUATOR_NETWORK, params, states)

    count = prioritise(ctx.store, ctx.game, quick)
    return lambda connection: {"positions": count, "model": champion}


WORK = {
    "generate": _generate,
    "random": _generate,
    "label": _label,
    "train": _train,
    "gate": _gate,
    "prioritise": _prioritise,
    "relabel": _label,
}
