"""sparkledock: fast, flexible protein-protein docking, LightDock-compatible.

The workflow as calls that return results: :func:`dock` (a whole docking: a
:class:`~sparkledock.workflow.DockResult` with the ranked models, files and timings),
:func:`setup`, :func:`run`, :func:`rank`, :func:`evaluate`; :func:`score_poses` scores poses
of a setup. Structures live in :mod:`.structure`, scoring functions in :mod:`.scoring`,
LightDock file formats in :mod:`.io`.
"""

from .errors import SparkledockError
from .scoring.prepared import score_poses
from .version import __version__
from .workflow import (
    DockResult,
    dock,
    evaluate,
    example_files,
    rank,
    read_dock_result,
    run,
    setup,
)

__all__ = [
    "DockResult",
    "SparkledockError",
    "__version__",
    "dock",
    "evaluate",
    "example_files",
    "rank",
    "read_dock_result",
    "run",
    "score_poses",
    "setup",
]
