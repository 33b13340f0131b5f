"""The runs' machinery: the Dask runner (:mod:`.runner`), a run's integrity (:mod:`.integrity`:
its version folders, the manifest of complete runs) and the pruning of old runs
(:mod:`.pruning`, ``make prune``)."""
