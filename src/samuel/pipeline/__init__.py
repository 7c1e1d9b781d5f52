"""The production loop (``samuel pipeline``): positions, rollout labels, training, gating."""
