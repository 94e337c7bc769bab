"""Model quality against a reference complex: DockQ (the DockQ package) and CAPRI class."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputFileError


@dataclass(frozen=True)
class Quality:
    """DockQ's measures of one model and its CAPRI class."""

    dockq: float
    fnat: float
    irmsd: float
    lrmsd: float
    capri: str


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


def evaluate(
    model: str | os.PathLike[str],
    reference: str | os.PathLike[str],
    chain_map: dict[str, str] | None = None,
) -> Quality:
    """DockQ of a two-chain model against the reference (chains matched by id by default).

    Raises:
        InputFileError: a missing or unreadable file, or no interface in common.
    """
    from DockQ import DockQ

    _clear_dockq_caches(DockQ)
    for path in (model, reference):
        if not Path(path).is_file():
            raise InputFileError(f"{path}: no such file")
    try:
        model_structure = DockQ.load_PDB(str(model))
        native_structure = DockQ.load_PDB(str(reference))
        chains = chain_map or {c.id: c.id for c in native_structure}
        results, _ = DockQ.run_on_all_native_interfaces(
            model_structure, native_structure, chain_map=chains
        )
    except Exception as exc:  # DockQ raises assorted errors on bad input
        raise InputFileError(f"{model}: DockQ failed against {reference} ({exc})") from None
    if not results:
        raise InputFileError(f"{model}: no interface in common with {reference}")
    best = max(results.values(), key=lambda r: r["DockQ"])
    return Quality(
        best["DockQ"],
        best["fnat"],
        best["iRMSD"],
        best["LRMSD"],
        capri_class(best["fnat"], best["iRMSD"], best["LRMSD"]),
    )
