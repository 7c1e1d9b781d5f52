"""Alembic's environment for the pipeline's store: migrations run on the connection that
:func:`samuel.pipeline.store.migrate` hands over (there is no alembic.ini)."""

from alembic import context

from samuel.pipeline.schema import Base

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=connection.dialect.name == "sqlite",  # SQLite alters tables by copying them
)
with context.begin_transaction():
    context.run_migrations()
