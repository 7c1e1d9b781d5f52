"""The production loop (``samuel pipeline``): positions from several sources, labels by rollout,
supervised training, gated promotion through a model registry, relabelling, all recorded in one
store, for every game Samuel has (issue 12; the stages of ``shared/seeds/001``)."""
