"""The paper's sensitivity studies as library functions: the KGP branching factor (Figure
7a-b) and the collection size (Figure 7c)."""
from kgp_kedro.sweeps.branching import sweep_branching_factor
from kgp_kedro.sweeps.collection_size import sweep_collection_size

__all__ = ["sweep_branching_factor", "sweep_collection_size"]
