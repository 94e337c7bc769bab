"""sparkledock: fast, flexible protein-protein docking, LightDock-compatible.

The stage API (:mod:`.workflow`), what the command lines call: :func:`dock` (a whole
docking: a :class:`~sparkledock.workflow.DockResult` with the ranked models, files and
timings), :func:`screen` (many), and the stages one at a time: :func:`setup`, :func:`run`,
:func:`rank`, :func:`filter_ranking`, :func:`top`, :func:`evaluate`; :func:`score_poses`
scores poses of a setup. Structures live in :mod:`.molecule`, scoring functions in
:mod:`.scoring`, LightDock file formats in :mod:`.io`.
"""

from .errors import SparkledockError
from .scoring.prepared import score_poses
from .version import __version__
from .workflow import (
    DockResult,
    dock,
    evaluate,
    example_files,
    filter_ranking,
    rank,
    read_dock_result,
    run,
    screen,
    setup,
    top,
)

__all__ = [
    "DockResult",
    "SparkledockError",
    "__version__",
    "dock",
    "evaluate",
    "example_files",
    "filter_ranking",
    "rank",
    "read_dock_result",
    "run",
    "score_poses",
    "screen",
    "setup",
    "top",
]
