"""The production loop: positions, rollout labels, training, gating, promotion, relabelling."""
