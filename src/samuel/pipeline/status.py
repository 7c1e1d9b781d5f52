"""What the commands show and do beside the loop: the status, the registry's table, the plot of
the champion's score against the anchor, gating a model again, and the ablation of a source."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from sqlalchemy import Connection, select, update

from samuel.backends import Backend, LocalBackend
from samuel.errors import CommandError
from samuel.seeds import derive_seed

from . import dataset, registry, work
from .config import PipelineConfig
from .gating import gate, network_spec, record_tournament
from .schema import Cycle, Model, Tournament
from .store import Store, safe_url

ABLATION_STREAM = 0xAB1A7E


def _cycles(connection: Connection, game: str) -> list:
    return connection.execute(
        select(Cycle.__table__).where(Cycle.game == game).order_by(Cycle.number)
    ).all()


def status_lines(store: Store, game: str) -> list[str]:
    """``samuel pipeline status``: counts by source and label state, the active model and its
    score against the anchor (what the plot draws), the cycle under way, the last tournaments."""
    lines = [f"store: {safe_url(store.url)}", f"game: {game}"]
    with store.read() as connection:
        counts = dataset.count_positions(connection, game)
        sources = sorted({source for source, _ in counts})
        lines.append("positions   labelled  unlabelled")
        for source in sources:
            labelled, unlabelled = counts.get((source, True), 0), counts.get((source, False), 0)
            lines.append(f"  {source:10}{labelled:>9,}{unlabelled:>12,}")
        total_l = sum(v for (_, labelled), v in counts.items() if labelled)
        total_u = sum(v for (_, labelled), v in counts.items() if not labelled)
        lines.append(f"  {'all':10}{total_l:>9,}{total_u:>12,}")
        active = registry.active_model(connection, game)
        lines.append(
            "active model: none yet"
            if active is None
            else f"active model: {active.id} ({active.path}, sha256 {active.sha256[:12]}...)"
        )
        history = anchor_history(connection, game)
        if history:
            cycle, score, low, high, _ = history[-1]
            anchor = connection.execute(
                select(Tournament.anchor).where(Tournament.game == game).limit(1)
            ).scalar_one()
            lines.append(
                f"the champion against {anchor}: {100 * score:.1f}% "
                f"(95% range {100 * low:.1f}-{100 * high:.1f}), as of cycle {cycle}"
            )
        cycles = _cycles(connection, game)
        if cycles:
            cycle = cycles[-1]
            if cycle.stage == "done":
                lines.append(f"cycle {cycle.number}: done ({len(cycles)} cycles in all)")
            else:
                done, total = work.stage_progress(connection, cycle.id, cycle.stage)
                lines.append(f"cycle {cycle.number}: {cycle.stage}, {done}/{total} units done")
        tournaments = connection.execute(
            select(Tournament.__table__)
            .where(Tournament.game == game)
            .order_by(Tournament.id.desc())
            .limit(5)
        ).all()
        if tournaments:
            lines.append("last tournaments (candidate vs champion; vs anchor):")
        for t in tournaments:
            lines.append(
                f"  #{t.id}: model {t.candidate_id} vs {t.champion_id}: "
                f"{100 * t.score:.1f}% in {t.games} games{_points_text(t.report, 'vs_champion')}, "
                f"LLR {t.llr:.2f} [{t.lower:.2f}, {t.upper:.2f}] {t.sprt}; vs {t.anchor} "
                f"{100 * t.anchor_score:.1f}% ({100 * t.anchor_low:.1f}-{100 * t.anchor_high:.1f})"
                f"{_points_text(t.report, 'vs_anchor')} -> {t.decision}"
            )
    return lines


def _points_text(report: dict | None, match: str) -> str:
    """ " (+0.123 points a game, -0.05..+0.29)" for a match of a game with dice, else ""."""
    figures = (report or {}).get(match) or {}
    if "points_per_game" not in figures:
        return ""
    return (
        f" ({figures['points_per_game']:+.3f} points a game, "
        f"{figures['points_low']:+.2f}..{figures['points_high']:+.2f})"
    )


def model_lines(store: Store, game: str | None) -> list[str]:
    """``samuel pipeline models``: the registry, with each trained model's validation MSE (and
    its moves-left head's error in plies, before and after training, if it has one)."""
    lines = [f"{'id':>4}  {'game':9}{'status':10}{'parent':>7}  created              file"]
    with store.read() as connection:
        for model in registry.list_models(connection, game):
            parent = "-" if model.parent_id is None else str(model.parent_id)
            created = model.created_at.strftime("%Y-%m-%d %H:%M:%S")
            line = f"{model.id:>4}  {model.game:9}{model.status:10}{parent:>7}  {created}  "
            lines.append(f"{line}{model.path}  {_training_text(model.training)}".rstrip())
    return lines


def plies_error_text(start: float | None, end: float | None) -> str:
    """The moves-left head's validation error before and after training, for the commands'
    lines: "plies-left MAE 12.3 -> 4.5" ("-" where there were no plies targets)."""

    def plies(value: float | None) -> str:
        return "-" if value is None else f"{value:.1f}"

    return f"plies-left MAE {plies(start)} -> {plies(end)}"


def _training_text(training: dict | None) -> str:
    """ "validation MSE ..." of a trained model, or "" (a first champion was not trained here)."""
    report = (training or {}).get("report")
    if not isinstance(report, dict) or "validation_mse" not in report:
        return ""
    text = f"validation MSE {report['validation_mse']:.4f}"
    if report.get("moves_left"):
        text += ", " + plies_error_text(report.get("plies_error_start"), report.get("plies_error"))
    origins = (training or {}).get("phase_models")
    if origins:  # a network per phase: the model each phase's network came from
        text += ", phases " + " ".join(f"{name}<-{model}" for name, model in origins.items())
    return text


def anchor_history(
    connection: Connection, game: str
) -> list[tuple[int, float, float, float, bool]]:
    """Per finished gate, in cycle order: (cycle, the champion's anchor score after it, its
    95% range low and high, whether the champion changed), and first the first champion's
    score where a gate measured it (as cycle 0). The champion after a cycle is the one the next
    cycle began with (the last cycle's: the active model), so a promotion by ``pipeline gate``
    or ``promote`` between cycles counts, and a gate whose promotion lost to another does not;
    its score is the last anchor match it played by then, as candidate or as champion."""
    from .stages import anchor_measure

    cycles = connection.execute(
        select(Cycle.number, Cycle.champion_id, Cycle.tournament_id)
        .where(Cycle.game == game)
        .order_by(Cycle.number)
    ).all()
    tournaments = connection.execute(
        select(Tournament.__table__).where(Tournament.game == game).order_by(Tournament.id)
    ).all()
    active = registry.active_model(connection, game)

    def score(model_id: int | None, last: int) -> tuple[float, float, float] | None:
        return anchor_measure([t for t in tournaments if t.id <= last], model_id)

    history: list[tuple[int, float, float, float, bool]] = []
    gated = [(i, c) for i, c in enumerate(cycles) if c.tournament_id is not None]
    previous = None
    for i, cycle in gated:
        if previous is None:
            previous = cycle.champion_id
            first = score(previous, cycle.tournament_id)
            if first is not None:
                history.append((cycle.number - 1, *first, False))
        later = [c.tournament_id for c in cycles[i + 1 :] if c.tournament_id is not None]
        last = later[0] - 1 if later else tournaments[-1].id  # the measures known by then
        if i + 1 < len(cycles):
            after = cycles[i + 1].champion_id
        else:
            after = active.id if active else None
        measured = score(after, last)
        if measured is not None:
            history.append((cycle.number, *measured, after != previous))
        previous = after
    return history


def plot_anchor_scores(store: Store, game: str, path: str) -> None:
    """A PNG of the champion's score against the anchor over the cycles (with its 95% range)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    from samuel.files import check_output_path, write_atomically

    check_output_path(path, "plot")
    with store.read() as connection:
        history = anchor_history(connection, game)
        anchor = connection.execute(
            select(Tournament.anchor).where(Tournament.game == game).limit(1)
        ).scalar_one_or_none()
    if not history:
        raise CommandError(f"no {game} gate has been played yet: nothing to plot")
    cycles = np.array([h[0] for h in history])
    score, low, high = (np.array([h[i] for h in history]) * 100 for i in (1, 2, 3))
    figure, axes = plt.subplots(figsize=(7, 4))
    axes.fill_between(cycles, low, high, step="post", alpha=0.25, label="95% range")
    axes.step(cycles, score, where="post", label="champion")
    promoted = np.array([h[4] for h in history])
    axes.plot(cycles[promoted], score[promoted], "o", label="promotion")
    axes.axhline(50, color="grey", linewidth=0.8)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel("cycle")
    axes.set_ylabel(f"score against {anchor} (%)")
    axes.set_title(f"{game}: the champion against the anchor")
    axes.legend(loc="lower right")
    figure.tight_layout()
    import io

    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    plt.close(figure)
    write_atomically(path, buffer.getvalue())


def _stored_config(connection: Connection, game: str) -> PipelineConfig:
    config = connection.execute(
        select(Cycle.config).where(Cycle.game == game).order_by(Cycle.number.desc()).limit(1)
    ).scalar_one_or_none()
    return PipelineConfig.from_json(config) if config else PipelineConfig()


def regate(
    store: Store,
    folder: Path,
    model_id: int,
    progress: bool = False,
    backend: Backend | None = None,
) -> str:
    """Gate a model (a rejected one, typically) against its game's champion; promote it if it
    passes. Returns what happened. The matches' pairs are played by ``backend`` (by default
    this machine's processes)."""
    with store.read() as connection:
        model = registry.get_model(connection, model_id)
        champion = registry.active_model(connection, model.game)
        config = _stored_config(connection, model.game)
    if champion is None or champion.id == model_id:
        raise CommandError(f"model {model_id} has no champion to play: it is the active one")
    registry.load_model(folder, model)  # the files must be the registered ones
    registry.load_model(folder, champion)
    from .stages import champion_anchor_score

    seed = derive_seed(config.seed, model_id, champion.id)
    with store.read() as connection:
        score = champion_anchor_score(connection, champion.id, config.anchor)
    result = gate(
        model.game,
        registry.model_file(folder, model),
        registry.model_file(folder, champion),
        config,
        seed,
        champion_anchor_known=True,  # a regate never plays the champion's anchor match
        progress=progress,
        backend=backend,
        champion_anchor=score,
    )
    with store.write() as connection:
        tournament_id = record_tournament(
            connection,
            model.game,
            model_id,
            champion.id,
            config,
            result,
            store.run_id,
            regate=True,
        )
        if result.promote:
            current = registry.active_model(connection, model.game, lock=True)
            if current is None or current.id != champion.id:
                raise CommandError("the champion changed while the gate was played: gate again")
            registry.promote(
                connection,
                model_id,
                who=registry.who(),
                why=f"re-gated: {result.reason}",
                tournament_id=tournament_id,
            )
        else:
            connection.execute(
                update(Model)
                .where(Model.id == model_id, Model.status != "active")
                .values(status="rejected")
            )
    verdict = "promoted" if result.promote else "rejected"
    return f"tournament {tournament_id}: model {model_id} {verdict}: {result.reason}"


def ablate(
    store: Store,
    folder: Path,
    game: str,
    without: str,
    games: int,
    progress: bool = False,
    backend: Backend | None = None,
) -> list[str]:
    """Train two candidates from the champion on the same sample, one with every source and one
    without ``without``, and play them against each other: what the source is worth. The
    match's pairs are played by ``backend`` (by default this machine's processes)."""
    from samuel.evaluation.networks import save_any_network
    from samuel.match.head_to_head import play_match

    from .dice import has_dice
    from .stages import Context, train_candidate

    if games < 2 or games % 2:
        raise CommandError("the ablation match needs an even number of games, at least 2")
    with store.read() as connection:
        config = _stored_config(connection, game)
        champion = registry.active_model(connection, game)
        counts = dataset.count_positions(connection, game)
    if champion is None:
        raise CommandError(f"{game} has no champion yet: run the pipeline first")
    if not counts.get((without, True)):
        raise CommandError(f"{game} has no labelled {without} positions to leave out")
    ctx = Context(store=store, folder=folder, game=game, progress=progress)
    dice = has_dice(game)
    seed = derive_seed(config.seed, ABLATION_STREAM, champion.id)
    out = folder / "ablations"
    out.mkdir(exist_ok=True)
    paths, reports = {}, {}
    for label, left_out in (("all", None), (f"without-{without}", without)):
        params, training, _ = train_candidate(
            ctx, champion.id, config.replace(without=left_out), seed, cycle=0
        )
        paths[label] = out / f"{game}-{champion.id}-{label}.bin"
        save_any_network(params, paths[label], ctx.number)
        reports[label] = training
    if backend is not None and not isinstance(backend, LocalBackend):
        # A cluster's workers may run in another folder: they read the networks by full path.
        paths = {label: path.resolve() for label, path in paths.items()}
    match = play_match(
        network_spec(paths["all"], config.gate_depth),
        network_spec(paths[f"without-{without}"], config.gate_depth),
        games,
        seed=derive_seed(seed, 1),
        openings=0 if dice else config.opening_plies,  # with dice, as the gate: the dice vary
        workers=config.workers or os.cpu_count() or 1,
        game=game,
        progress=progress,
        backend=backend,
    )
    s = match.statistics
    points = ""
    if dice:
        p = match.points
        points = f", {p.per_game:+.3f} points a game ({p.low:+.3f}..{p.high:+.3f})"
    lines = []
    for label, training in reports.items():
        lines.append(
            f"{label:>20}: {training['sampled']:,} positions {training['by_source']}, "
            f"{_training_text(training)}"
        )
    lines.append(
        f"all sources vs without {without}: {100 * s.score:.1f}% "
        f"(95% range {100 * s.score_low:.1f}-{100 * s.score_high:.1f}) in {match.games} games, "
        f"Elo {s.elo:+.0f} +/- {s.elo_error:.0f}{points}"
    )
    lines.append(f"networks: {paths['all']}, {paths[f'without-{without}']}")
    return lines
