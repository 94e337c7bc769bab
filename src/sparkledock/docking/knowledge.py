"""What a docking's restraints tell of the interface decides its protocol's defaults, once,
for ``dock`` and ``screen`` alike: the level of knowledge
(:func:`~sparkledock.molecule.restraints.knowledge_of`), the ranking it takes
(:func:`~.options.with_defaults`) and, with the ligand's side unknown, the ligand residues
the starting poses turn toward the receptor's restraints (:data:`~.options.
LIGAND_FACE_FRACTION`)."""

from __future__ import annotations

from ..analysis.propensity import likely_residues
from ..molecule.restraints import Knowledge, Restraints, knowledge_of
from ..preparation.inputs import ReadPartners
from .options import LIGAND_FACE_FRACTION, DockOptions, with_defaults


def resolve(
    asked: DockOptions, restraints: Restraints | None
) -> tuple[DockOptions, Knowledge | None]:
    """The options a docking runs with, given the restraints it read (None: blind), and the
    level of knowledge they give."""
    if restraints is None:
        return with_defaults(asked, restrained=False), None
    known = knowledge_of(restraints)
    return with_defaults(asked, restrained=True, level=known.level), known


def face_fraction(options: DockOptions, known: Knowledge | None) -> float:
    """The share of the ligand's residues the starting ligands turn toward the receptor's
    restraints (0: none; only the sparkledock protocol turns them)."""
    if options.protocol != "sparkledock" or known is None:
        return 0.0
    return LIGAND_FACE_FRACTION.get(known.level, 0.0)


def ligand_face(partners: ReadPartners, options: DockOptions, known: Knowledge | None) -> list[str]:
    """The ligand residues the starting ligands turn toward the receptor's restraints (the
    likeliest interface by the propensity model, :func:`face_fraction` of them), set on the
    partners' restraints, which the setup reads (no score, filter or ranking reads them)."""
    fraction = face_fraction(options, known)
    if fraction <= 0 or partners.restraints is None:
        return []
    likely = likely_residues(partners.cleaned[1], fraction)
    partners.restraints.ligand_face = likely
    return likely
