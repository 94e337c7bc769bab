"""sparkledock: fast, flexible protein-protein docking, LightDock-compatible.

The public API starts with :func:`score_poses`; structures live in :mod:`.structure`, scoring
functions in :mod:`.scoring`, LightDock file formats in :mod:`.io`.
"""

from .api import score_poses
from .errors import SparkledockError

__version__ = "0.1.0"

__all__ = ["SparkledockError", "__version__", "score_poses"]
