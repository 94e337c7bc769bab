"""The stage functions: each checks its arguments before any work and returns a result.
:func:`cluster`, :func:`rank` and :func:`filter_ranking` order a run's solutions
(:mod:`.ranking`); :func:`top`, :func:`evaluate`, :func:`evaluate_ranking` and :func:`refine`
write and judge models (:mod:`.models`); :func:`ranking_rows` and :func:`report` write what a
docking's user reads (:mod:`.report`). ``dock`` and ``screen`` (:mod:`sparkledock.docking`)
call them in order, the command lines and :mod:`sparkledock.workflow` one at a time; the same
calls by hand give ``dock``'s ranking and models (``tests/test_stages_reproduce_dock.py``)."""

from .models import Refined, evaluate, evaluate_ranking, refine, top
from .ranking import Pool, cluster, filter_ranking, rank
from .report import ranking_rows, report, term_columns

__all__ = [
    "Pool",
    "Refined",
    "cluster",
    "evaluate",
    "evaluate_ranking",
    "filter_ranking",
    "rank",
    "ranking_rows",
    "refine",
    "report",
    "term_columns",
    "top",
]
