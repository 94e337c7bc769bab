"""The stage API: the docking workflow as Python calls that return results, what the command
lines call. :func:`dock` and :func:`screen` (whole dockings), :func:`setup`, :func:`run`,
:func:`rank`, :func:`filter_ranking`, :func:`top` and :func:`evaluate` (one stage each),
exported at the package's top level.

>>> import sparkledock                                   # doctest: +SKIP
>>> result = sparkledock.dock("rec.pdb", "lig.pdb", "out", restraints="restraints.list",
...                           steps=100, top=10)
>>> result.top["score"], result.models[0]["model"]       # best first, as ranking.csv
>>> pandas.DataFrame(result.models)                      # one row per ranked solution
>>> result.timings                                       # seconds per stage

Each checks its options and inputs before any work and is a thin layer over the modules that
do the work (:mod:`.stages`, :mod:`.docking`, :mod:`.preparation`, :mod:`.engine`). The
setup and run stages themselves (:func:`prepare`, :func:`execute`: the folder's lock, the
run.json record, the work) are the ones ``sparkledock setup``/``run`` and LightDock's
``lightdock3_setup.py``/``lightdock3.py`` call; ``sparkledock rank``/``filter``/``top`` and
``lgd_rank.py``/``lgd_filter_restraints.py``/``lgd_top.py`` translate their arguments into
:func:`rank`, :func:`filter_ranking` and :func:`top`. The CLI and these calls run the same
code, and say what the CLI says: the stage lines and the run's progress on stderr
(``quiet=True``: warnings only; handlers a caller adds to the ``sparkledock`` logger get the
lines too). Options are keyword arguments named as the fields of
:class:`~sparkledock.docking.DockOptions` (``dock``, ``screen``),
:class:`~sparkledock.preparation.prepare.SetupOptions` (``setup``) and
:class:`~sparkledock.engine.options.RunOptions` (``run``),
:class:`~sparkledock.analysis.ranking_options.RankOptions` (``rank``) and
:class:`~sparkledock.analysis.options.FilterOptions` (``filter_ranking``), with the command
line's defaults.
"""

from ..analysis.ranking_options import UNCLUSTERED
from ..stages import evaluate, filter_ranking, rank, top
from .build import dock, execute, prepare, run, screen, setup
from .results import DockResult, example_files, read_dock_result

__all__ = [
    "UNCLUSTERED",
    "DockResult",
    "dock",
    "evaluate",
    "example_files",
    "execute",
    "filter_ranking",
    "prepare",
    "rank",
    "read_dock_result",
    "run",
    "screen",
    "setup",
    "top",
]
