"""The stages that write and judge models: :func:`top` (the best-ranked solutions as
models), :func:`evaluate` (one model against a reference), :func:`evaluate_ranking` (every
ranked solution against one, vectorised) and :func:`refine` (the written models minimised with
OpenMM)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import SparkledockError
from .checks import check_paths, options_of

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from ..analysis.evaluate import Quality
    from ..analysis.rank import Ranked
    from ..molecule.system import DockingSetup


def top(
    setup_folder: str | os.PathLike[str] | DockingSetup,
    ranking: str | os.PathLike[str] | list[Ranked],
    n: int,
    out: str | os.PathLike[str] = ".",
    *,
    suffix: str = ".pdb",
    remarks: Sequence[Sequence[str]] | None = None,
) -> list[Path]:
    """The top stage (``sparkledock top``, ``lgd_top.py``): models of the ``n`` best-ranked
    solutions (a ranking file, or :func:`rank`'s list), ``top_1`` to ``top_<n>`` in ``out``,
    PDB or mmCIF (``suffix``); returns their paths. ``remarks``: each PDB model's opening
    REMARK lines (``dock``'s say what wrote the model and where it came from). The ranking is
    read before any model is written."""
    import numpy

    from ..analysis.models import write_models
    from ..analysis.rank import read_ranking
    from ..io.lightdock import load_setup

    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise SparkledockError(f"top: n must be an integer of at least 1, got {n!r}")
    from ..analysis.options import ModelOptions, check_model_options

    check_model_options(options_of({"suffix": suffix}, ModelOptions, "top"), "top")
    solutions = read_ranking(ranking) if isinstance(ranking, str | os.PathLike) else ranking
    best = solutions[:n]
    loaded = setup_folder if hasattr(setup_folder, "layout") else load_setup(setup_folder)
    poses = numpy.array([r.pose for r in best]).reshape(-1, loaded.layout.size)
    paths = [Path(out) / f"top_{i + 1}{suffix}" for i in range(len(best))]
    write_models(loaded, poses, paths, remarks)
    return paths


def evaluate(
    reference: str | os.PathLike[str],
    model: str | os.PathLike[str],
    receptor_chains: Sequence[str] | None = None,
) -> Quality:
    """fnat, iRMSD, LRMSD, DockQ and CAPRI class of a model against a reference complex, in
    ``sparkledock evaluate REFERENCE MODEL``'s order (the DockQ package's definitions; the
    built-in evaluation). ``receptor_chains``: the model's receptor chains (None: a model of
    two chains, the first; :class:`~sparkledock.analysis.options.EvaluateOptions`). A call
    with the two swapped (a sparkledock model given as the reference, a file that is not one
    as the model) is refused in one line.

    Raises:
        SparkledockError: swapped arguments, or a file that cannot be evaluated.
    """
    check_paths("evaluate", reference=reference, model=model)
    from ..analysis.evaluate import evaluate as evaluate_model
    from ..analysis.evaluate import refuse_swapped
    from ..analysis.options import EvaluateOptions, check_evaluate_options

    if isinstance(receptor_chains, list):
        receptor_chains = tuple(receptor_chains)
    options = options_of({"receptor_chains": receptor_chains}, EvaluateOptions, "evaluate")
    check_evaluate_options(options)

    order = "the reference comes first (evaluate(REFERENCE, MODEL), as on the command line)"
    refuse_swapped(reference, model, order)
    return evaluate_model(model, reference, options.receptor_chains)


def evaluate_ranking(
    setup: DockingSetup, ranking: Sequence[Ranked], reference: str | os.PathLike[str]
) -> list[dict[str, float | str]]:
    """fnat, iRMSD, LRMSD, DockQ and CAPRI class of every ranked solution against a
    reference complex (``dock --reference``'s columns), by
    :mod:`sparkledock.analysis.quality`'s vectorised pass over their poses (equal to the DockQ
    package's values on the written models; tested), partners of several chains included."""
    import numpy as np

    from ..analysis.evaluate import capri_class
    from ..analysis.quality import pose_quality, quality_reference

    ref = quality_reference(setup, reference)
    poses = np.array([r.pose for r in ranking]).reshape(-1, setup.layout.size)
    q = pose_quality(ref, setup, poses) if len(poses) else {}
    rows: list[dict[str, float | str]] = []
    for k in range(len(poses)):
        fnat, irmsd, lrmsd = (float(q[n][k]) for n in ("fnat", "irmsd", "lrmsd"))
        rows.append({
            "fnat": round(fnat, 4), "iRMSD": round(irmsd, 3), "LRMSD": round(lrmsd, 3),
            "DockQ": round(float(q["dockq"][k]), 4), "CAPRI": capri_class(fnat, irmsd, lrmsd),
        })  # fmt: skip
    return rows


@dataclass(frozen=True)
class Refined:
    """One refined model: where it is, its clashes before and after, and its DockQ after
    (None without a reference)."""

    path: Path
    clashes_before: int
    clashes_after: int
    dockq: float | None


def refine(
    setup: DockingSetup,
    models: Sequence[Path],
    out: str | os.PathLike[str],
    reference: str | os.PathLike[str] | None = None,
    *,
    threads: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[Refined]:
    """The refine stage (``dock --refine``): the written models minimised with OpenMM
    (restrained, :mod:`sparkledock.analysis.refine`) into ``out``, each one's clashes before
    and after, and its DockQ after against ``reference`` when given."""
    from ..analysis.evaluate import evaluate as evaluate_model
    from ..analysis.refine import refine_models
    from ..molecule.system import ligand_chain_ids

    chains = set(ligand_chain_ids(setup.receptor.atoms, setup.ligand.atoms).values())
    results = refine_models(list(models), Path(out), chains, threads=threads, progress=progress)

    def dockq(path: Path) -> float | None:
        return None if reference is None else round(evaluate_model(path, reference).dockq, 4)

    return [Refined(r.path, r.clashes_before, r.clashes_after, dockq(r.path)) for r in results]
