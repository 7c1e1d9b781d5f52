"""labels.plies: the plies the label's games lasted from the position (the moves-left head's target)

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain ADD COLUMN on both databases (nullable, no default): SQLite's batch mode only
    # copies a table when it must, and copying ten million labels would take minutes.
    with op.batch_alter_table("labels", schema=None) as batch_op:
        batch_op.add_column(sa.Column("plies", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("labels", schema=None) as batch_op:
        batch_op.drop_column("plies")
