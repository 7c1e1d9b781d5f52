"""labels.outcomes, ply, variance: what a rollout over dice gives besides the equity;
tournaments.points0, points1: the bounds of a game with dice's SPRT on points a game

Revision ID: 0004
Revises: 0003

A label of a game with dice (backgammon, long nardy) keeps the six outcome chances its rollouts
averaged (``outcomes``: six little-endian float32, P(win by at least 1, 2, 3 points) then the
same lost, the first player's view), the champion's plies in them (``ply``) and the variance
reduction of their dice (``variance``). All three are empty for the other games' labels. A
gate of a game with dice tests points a game, between ``points0`` and ``points1``.
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMNs (nullable, no default), as in 0002: no table is copied.
    with op.batch_alter_table("labels", schema=None) as batch_op:
        batch_op.add_column(sa.Column("outcomes", sa.LargeBinary(), nullable=True))
        batch_op.add_column(sa.Column("ply", sa.SmallInteger(), nullable=True))
        batch_op.add_column(sa.Column("variance", sa.String(length=24), nullable=True))
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.add_column(sa.Column("points0", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("points1", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.drop_column("points1")
        batch_op.drop_column("points0")
    with op.batch_alter_table("labels", schema=None) as batch_op:
        batch_op.drop_column("variance")
        batch_op.drop_column("ply")
        batch_op.drop_column("outcomes")
