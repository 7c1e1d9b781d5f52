"""The production loop of seed 001 (docs/pipeline.md): positions from several sources, labels by
rollout, supervised training, gated promotion, a model registry and relabelling, as resumable
units of work in a real database (SQLite or PostgreSQL)."""
