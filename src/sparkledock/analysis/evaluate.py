"""Model quality against a reference complex: fnat, iRMSD, LRMSD, DockQ and CAPRI class.

:func:`evaluate` is the project's own implementation (:mod:`.quality`, equal to the DockQ
package's values; part of the base install). :func:`dockq_package` asks the DockQ package
itself, when it is installed (``sparkledock[evaluate]``): a cross-check for tests and
benchmarks.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputFileError, SparkledockError
from ..fileutil import check_input_file


@dataclass(frozen=True)
class Quality:
    """DockQ's measures of one model and its CAPRI class."""

    dockq: float
    fnat: float
    irmsd: float
    lrmsd: float
    capri: str

    @classmethod
    def of(cls, dockq: float, fnat: float, irmsd: float, lrmsd: float) -> Quality:
        """The measures with their CAPRI class."""
        return cls(dockq, fnat, irmsd, lrmsd, capri_class(fnat, irmsd, lrmsd))


#: the one line said when the DockQ package (the cross-check) is missing
DOCKQ_HINT = "the cross-check needs the DockQ package: pip install 'sparkledock[evaluate]'"


def require_dockq() -> Any:
    """The DockQ package's ``DockQ`` module, or a one-line error when it is not installed."""
    try:
        from DockQ import DockQ
    except ImportError:
        raise SparkledockError(DOCKQ_HINT) from None
    return DockQ


def capri_class(fnat: float, irmsd: float, lrmsd: float) -> str:
    """CAPRI's classes (Lensink et al.): high, medium, acceptable or incorrect."""
    if fnat >= 0.5 and (lrmsd <= 1.0 or irmsd <= 1.0):
        return "high"
    if fnat >= 0.3 and (lrmsd <= 5.0 or irmsd <= 2.0):
        return "medium"
    if fnat >= 0.1 and (lrmsd <= 10.0 or irmsd <= 4.0):
        return "acceptable"
    return "incorrect"


def _clear_dockq_caches(module) -> None:
    """Empty DockQ's ``lru_cache``s, which key structures by file path: without this, a file
    rewritten at the same path in one process is scored as its earlier contents."""
    for value in vars(module).values():
        clear = getattr(value, "cache_clear", None)
        if callable(clear):
            clear()


def _chain_maps(native, model) -> list[dict[str, str]]:
    """Native-to-model chain maps to try: by id when the chain ids agree, else (two chains
    each, as when the models renamed a ligand chain the receptor shares) both pairings."""
    native_ids, model_ids = [c.id for c in native], [c.id for c in model]
    if set(native_ids) <= set(model_ids) or len(native_ids) != 2 or len(model_ids) != 2:
        return [{c: c for c in native_ids}]
    first, second = native_ids
    return [
        {first: model_ids[0], second: model_ids[1]},
        {first: model_ids[1], second: model_ids[0]},
    ]


def evaluate(
    model: str | os.PathLike[str],
    reference: str | os.PathLike[str],
    receptor_chains: Sequence[str] | None = None,
) -> Quality:
    """fnat, iRMSD, LRMSD, DockQ and CAPRI class of a model against a reference complex
    (:func:`~.quality.file_quality`: a model of two chains, or ``receptor_chains`` and the
    rest; chains matched by id, else by sequence).

    Raises:
        InputFileError: a missing or unreadable file, or no interface in common.
    """
    from .quality import file_quality

    for path in (model, reference):
        check_input_file(path, "structure")
    q = file_quality(model, reference, receptor_chains)
    return Quality.of(q["dockq"], q["fnat"], q["irmsd"], q["lrmsd"])


#: The first line of every model ``dock`` writes (its remarks: :mod:`sparkledock.docking.analyse`).
MODEL_MARK = "REMARK   1 sparkledock "


def is_sparkledock_model(path: str | os.PathLike[str]) -> bool:
    """Whether a structure file is a model sparkledock wrote (its opening REMARK)."""
    try:
        with open(path, "rb") as handle:
            return handle.read(len(MODEL_MARK)).decode("latin-1") == MODEL_MARK
    except OSError:
        return False


def refuse_swapped(
    reference: str | os.PathLike[str], model: str | os.PathLike[str], order: str
) -> None:
    """Refuse a reference that is a sparkledock model while the model is not (the arguments
    swapped); ``order`` says the caller's argument order."""
    if is_sparkledock_model(reference) and not is_sparkledock_model(model):
        raise SparkledockError(
            f"evaluate: {reference} is a sparkledock model and {model} is not: {order}"
        )


def dockq_package(
    model: str | os.PathLike[str],
    reference: str | os.PathLike[str],
    chain_map: dict[str, str] | None = None,
) -> Quality:
    """The DockQ package's measures of a two-chain model against the reference (chains
    matched by id by default): the cross-check of :func:`evaluate`.

    Raises:
        SparkledockError: the DockQ package is not installed.
        InputFileError: a missing or unreadable file, or no interface in common.
    """
    DockQ = require_dockq()
    _clear_dockq_caches(DockQ)
    for path in (model, reference):
        if not Path(path).is_file():
            raise InputFileError(f"{path}: no such file")
    try:
        model_structure = DockQ.load_PDB(str(model))
        native_structure = DockQ.load_PDB(str(reference))
        maps = [chain_map] if chain_map else _chain_maps(native_structure, model_structure)
        found = [
            DockQ.run_on_all_native_interfaces(model_structure, native_structure, chain_map=m)[0]
            for m in maps
        ]
    except Exception as exc:  # DockQ raises assorted errors on bad input
        raise InputFileError(f"{model}: DockQ failed against {reference} ({exc})") from None
    interfaces = [r for results in found for r in results.values()]
    if not interfaces:
        raise InputFileError(f"{model}: no interface in common with {reference}")
    best = max(interfaces, key=lambda r: r["DockQ"])
    return Quality.of(best["DockQ"], best["fnat"], best["iRMSD"], best["LRMSD"])
