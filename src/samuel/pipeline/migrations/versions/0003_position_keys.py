"""positions.key: the unique index on a 64-bit hash of (game, source, state), not on the three

Revision ID: 0003
Revises: 0002

An index on the 32-byte state and the two names was three times the size of one on an integer,
and every new (in effect random) state dirtied a page of it: SQLite's bulk inserts fell from
120,000 positions a second on an empty store to 33,000 at a few million. The keys are computed
by ``store.position_keys`` (whose constants never change) for the stored positions, a chunk at a
time; then the unique constraint moves to them (SQLite copies the table to drop a constraint:
``store.migrate`` turns its foreign-key checks off for that, as SQLite's manual says to).
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

CHUNK = 50_000  # positions read and keyed at a time


def _fill_keys() -> None:
    from samuel.pipeline.store import stored_keys

    bind = op.get_bind()
    last = 0
    while True:
        rows = bind.execute(
            sa.text(
                "SELECT id, game, source, state FROM positions WHERE id > :last "
                "ORDER BY id LIMIT :chunk"
            ),
            {"last": last, "chunk": CHUNK},
        ).all()
        if not rows:
            return
        updates = [
            {"id": row.id, "key": key} for row, key in zip(rows, stored_keys(rows), strict=True)
        ]
        bind.execute(sa.text("UPDATE positions SET key = :key WHERE id = :id"), updates)
        last = rows[-1].id


def upgrade() -> None:
    with op.batch_alter_table("positions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("key", sa.BigInteger(), nullable=True))
    _fill_keys()
    with op.batch_alter_table("positions", schema=None) as batch_op:
        batch_op.alter_column("key", existing_type=sa.BigInteger(), nullable=False)
        batch_op.drop_constraint("uq_positions_state_source_game", type_="unique")
        batch_op.create_unique_constraint("uq_positions_key", ["key"])


def downgrade() -> None:
    with op.batch_alter_table("positions", schema=None) as batch_op:
        batch_op.drop_constraint("uq_positions_key", type_="unique")
        batch_op.create_unique_constraint(
            "uq_positions_state_source_game", ["state", "source", "game"]
        )
        batch_op.drop_column("key")
