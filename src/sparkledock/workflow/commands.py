"""What the command lines (:mod:`sparkledock.cli`, :mod:`sparkledock.lightdock`) call besides
the stages: the models of one swarm's gso file, a swarm's clustering, and the files, option
objects and names a command reads or writes (ranking and restraint files, a setup folder, the
scoring functions' names, the MPI world). The command lines reach the package through
:mod:`sparkledock.workflow`, :mod:`sparkledock.docking`, the schema and the errors only
(``tests/test_architecture.py``); this module is where they find what the stages do not
return. Not imported by ``import sparkledock`` (it loads the engine)."""

from __future__ import annotations

import os
from pathlib import Path

from ..analysis.cluster import write_cluster_repr
from ..analysis.evaluate import refuse_swapped
from ..analysis.models import with_file_atoms, write_models
from ..analysis.options import (
    EvaluateOptions,
    FilterOptions,
    ModelOptions,
    check_evaluate_options,
    check_filter_options,
    check_model_options,
)
from ..analysis.rank import read_ranking, write_ranking
from ..analysis.ranking_options import RankOptions
from ..engine.options import RunOptions
from ..engine.parallel import mpi_world
from ..io.lightdock import GSOOutput, load_setup, read_gso_output, read_poses
from ..io.restraints import read_restraints
from ..io.setupdir import FILTERED_FILE, SetupDir, model_name
from ..molecule.system import DockingSetup
from ..preparation.prepare import SetupOptions
from ..scoring import (
    NOT_AVAILABLE,
    SCORING_FUNCTIONS,
    describe_scoring,
    from_lightdock,
    to_lightdock,
)
from ..scoring.options import ScoreOptions, check_score_options
from ..scoring.prepared import prepare_scoring
from ..stages.checks import options_of

__all__ = [
    "FILTERED_FILE",
    "NOT_AVAILABLE",
    "SCORING_FUNCTIONS",
    "DockingSetup",
    "EvaluateOptions",
    "FilterOptions",
    "ModelOptions",
    "RankOptions",
    "RunOptions",
    "ScoreOptions",
    "SetupDir",
    "SetupOptions",
    "check_evaluate_options",
    "check_filter_options",
    "check_model_options",
    "check_score_options",
    "cluster_swarm",
    "describe_scoring",
    "from_lightdock",
    "generate_models",
    "load_setup",
    "model_name",
    "mpi_world",
    "prepare_scoring",
    "read_gso_output",
    "read_poses",
    "read_ranking",
    "read_restraints",
    "refuse_swapped",
    "to_lightdock",
    "with_file_atoms",
    "write_models",
    "write_ranking",
]


def _loaded(setup: str | os.PathLike[str] | DockingSetup) -> DockingSetup:
    return setup if isinstance(setup, DockingSetup) else load_setup(setup)


def generate_models(
    setup: str | os.PathLike[str] | DockingSetup,
    gso_file: str | os.PathLike[str],
    count: int,
    suffix: str = ".pdb",
    data: GSOOutput | None = None,
) -> list[Path]:
    """The models of a gso file's first ``count`` glowworms (at most all of them), written
    beside it as ``lightdock_<i>`` with ``suffix`` (``sparkledock generate``,
    ``lgd_generate_conformations.py``); the gso file is read before any model is written
    (``data``: the file as a caller already read it)."""
    check_model_options(options_of({"suffix": suffix}, ModelOptions, "generate"), "generate")
    data = read_gso_output(gso_file) if data is None else data
    loaded = _loaded(setup)
    count = min(count, len(data.poses))
    folder = Path(gso_file).parent
    paths = [folder / Path(model_name(i)).with_suffix(suffix).name for i in range(count)]
    write_models(loaded, data.poses[:count], paths)
    return paths


def cluster_swarm(
    setup: str | os.PathLike[str] | DockingSetup, gso_file: str | os.PathLike[str]
) -> Path:
    """One swarm's glowworms clustered as LightDock's BSAS does, ``cluster.repr`` written
    beside the gso file (``sparkledock cluster``, ``lgd_cluster_bsas.py``); its path."""
    return write_cluster_repr(_loaded(setup), gso_file)
