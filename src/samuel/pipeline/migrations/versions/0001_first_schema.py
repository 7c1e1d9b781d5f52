"""the first schema: runs, cycles, work units, positions, labels, models, tournaments, promotions

Revision ID: 0001
Revises: (none)
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "positions",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("game", sa.String(length=16), nullable=False),
        sa.Column("state", sa.LargeBinary(), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("model_id", sa.Integer(), nullable=True),
        sa.Column("seed", sa.BigInteger(), nullable=True),
        sa.Column("run_id", sa.Integer(), nullable=True),
        sa.Column("unit_id", sa.Integer(), nullable=True),
        sa.Column("origin_game", sa.BigInteger(), nullable=True),
        sa.Column("ply", sa.SmallInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("label_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("priority", sa.Float(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_positions")),
        sa.UniqueConstraint("state", "source", "game", name=op.f("uq_positions_state_source_game")),
    )
    with op.batch_alter_table("positions", schema=None) as batch_op:
        batch_op.create_index("ix_positions_game_label_id", ["game", "label_id"], unique=False)
        batch_op.create_index("ix_positions_game_priority", ["game", "priority"], unique=False)

    op.create_table(
        "runs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("command", sa.Text(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_runs")),
    )
    op.create_table(
        "models",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=16), nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("parent_id", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("training", sa.JSON(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["parent_id"], ["models.id"], name=op.f("fk_models_parent_id_models")
        ),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], name=op.f("fk_models_run_id_runs")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_models")),
    )
    with op.batch_alter_table("models", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_models_game"), ["game"], unique=False)
        batch_op.create_index(batch_op.f("ix_models_status"), ["status"], unique=False)

    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=16), nullable=False),
        sa.Column("candidate_id", sa.Integer(), nullable=False),
        sa.Column("champion_id", sa.Integer(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("pentanomial", sa.JSON(), nullable=False),
        sa.Column("llr", sa.Float(), nullable=False),
        sa.Column("lower", sa.Float(), nullable=False),
        sa.Column("upper", sa.Float(), nullable=False),
        sa.Column("elo0", sa.Float(), nullable=False),
        sa.Column("elo1", sa.Float(), nullable=False),
        sa.Column("sprt", sa.String(length=16), nullable=False),
        sa.Column("anchor", sa.Text(), nullable=False),
        sa.Column("anchor_games", sa.Integer(), nullable=False),
        sa.Column("anchor_score", sa.Float(), nullable=False),
        sa.Column("anchor_low", sa.Float(), nullable=False),
        sa.Column("anchor_high", sa.Float(), nullable=False),
        sa.Column("decision", sa.String(length=16), nullable=False),
        sa.Column("report", sa.JSON(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["candidate_id"], ["models.id"], name=op.f("fk_tournaments_candidate_id_models")
        ),
        sa.ForeignKeyConstraint(
            ["champion_id"], ["models.id"], name=op.f("fk_tournaments_champion_id_models")
        ),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], name=op.f("fk_tournaments_run_id_runs")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournaments")),
    )
    op.create_table(
        "cycles",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=16), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("stage", sa.String(length=16), nullable=False),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("champion_id", sa.Integer(), nullable=False),
        sa.Column("candidate_id", sa.Integer(), nullable=True),
        sa.Column("tournament_id", sa.Integer(), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["candidate_id"], ["models.id"], name=op.f("fk_cycles_candidate_id_models")
        ),
        sa.ForeignKeyConstraint(
            ["champion_id"], ["models.id"], name=op.f("fk_cycles_champion_id_models")
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"], ["tournaments.id"], name=op.f("fk_cycles_tournament_id_tournaments")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_cycles")),
        sa.UniqueConstraint("game", "number", name=op.f("uq_cycles_game_number")),
    )
    op.create_table(
        "promotions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=16), nullable=False),
        sa.Column("model_id", sa.Integer(), nullable=False),
        sa.Column("previous_id", sa.Integer(), nullable=True),
        sa.Column("tournament_id", sa.Integer(), nullable=True),
        sa.Column("who", sa.Text(), nullable=False),
        sa.Column("why", sa.Text(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["model_id"], ["models.id"], name=op.f("fk_promotions_model_id_models")
        ),
        sa.ForeignKeyConstraint(
            ["previous_id"], ["models.id"], name=op.f("fk_promotions_previous_id_models")
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_promotions_tournament_id_tournaments"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_promotions")),
    )
    with op.batch_alter_table("promotions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_promotions_game"), ["game"], unique=False)

    op.create_table(
        "work_units",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("cycle_id", sa.Integer(), nullable=False),
        sa.Column("stage", sa.String(length=16), nullable=False),
        sa.Column("part", sa.Integer(), nullable=False),
        sa.Column("task", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(length=8), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=True),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("done_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["cycle_id"], ["cycles.id"], name=op.f("fk_work_units_cycle_id_cycles")
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"], ["runs.id"], name=op.f("fk_work_units_owner_id_runs")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_work_units")),
        sa.UniqueConstraint(
            "cycle_id", "stage", "part", name=op.f("uq_work_units_cycle_id_stage_part")
        ),
    )
    with op.batch_alter_table("work_units", schema=None) as batch_op:
        batch_op.create_index("ix_work_units_claimable", ["state", "lease_until"], unique=False)

    op.create_table(
        "labels",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column(
            "position_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("model_id", sa.Integer(), nullable=True),
        sa.Column("method", sa.String(length=16), nullable=False),
        sa.Column("value", sa.Float(), nullable=False),
        sa.Column("stderr", sa.Float(), nullable=False),
        sa.Column("rollouts", sa.Integer(), nullable=False),
        sa.Column("truncated", sa.Boolean(), nullable=False),
        sa.Column("unit_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["model_id"], ["models.id"], name=op.f("fk_labels_model_id_models")
        ),
        sa.ForeignKeyConstraint(
            ["position_id"], ["positions.id"], name=op.f("fk_labels_position_id_positions")
        ),
        sa.ForeignKeyConstraint(
            ["unit_id"], ["work_units.id"], name=op.f("fk_labels_unit_id_work_units")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_labels")),
    )
    with op.batch_alter_table("labels", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_labels_position_id"), ["position_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("labels", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_labels_position_id"))

    op.drop_table("labels")
    with op.batch_alter_table("work_units", schema=None) as batch_op:
        batch_op.drop_index("ix_work_units_claimable")

    op.drop_table("work_units")
    with op.batch_alter_table("promotions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_promotions_game"))

    op.drop_table("promotions")
    op.drop_table("cycles")
    op.drop_table("tournaments")
    with op.batch_alter_table("models", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_models_status"))
        batch_op.drop_index(batch_op.f("ix_models_game"))

    op.drop_table("models")
    op.drop_table("runs")
    with op.batch_alter_table("positions", schema=None) as batch_op:
        batch_op.drop_index("ix_positions_game_priority")
        batch_op.drop_index("ix_positions_game_label_id")

    op.drop_table("positions")
