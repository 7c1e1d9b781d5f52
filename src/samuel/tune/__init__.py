"""Tuning the classic evaluation: hill climbing by matches, gradient descent on labelled
positions from self-play (``docs/tuning.md``)."""
