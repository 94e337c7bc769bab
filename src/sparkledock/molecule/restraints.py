"""Restraints of a docking as data: residues of each partner, active, passive or blocked, in
LightDock's identifiers ``chain.resname.number[ins]``; and the form ``setup.json`` keeps them in.

Only active restraints enter the score (as in LightDock); passive ones guide swarm placement
and blocked ones exclude swarms, both used by setup. :mod:`.io.restraints` reads the files.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import InputFileError

KINDS = {"A": "active", "P": "passive", "B": "blocked"}


@dataclass
class SideRestraints:
    """Residue identifiers (``chain.resname.number[ins]``) of one partner, by kind."""

    active: list[str] = field(default_factory=list)
    passive: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)

    def add(self, kind: str, residue: str) -> None:
        """Add a residue unless it is already listed as active or passive (LightDock's rule)."""
        if residue in self.active or residue in self.passive:
            return
        if residue not in getattr(self, kind):
            getattr(self, kind).append(residue)


@dataclass
class Restraints:
    """Restraints of a docking run, for the receptor and the ligand."""

    receptor: SideRestraints = field(default_factory=SideRestraints)
    ligand: SideRestraints = field(default_factory=SideRestraints)
    source: str = "restraints"
    #: with receptor restraints only: the ligand residues the starting ligands turn toward
    #: the receptor's restraints (its likely interface, predicted); no score, filter or file
    #: holds them
    ligand_face: list[str] = field(default_factory=list)


def parse_residue_id(token: str) -> str:
    """Normalise ``A.ILE.16`` / ``a.ile.16b`` to LightDock's ``A.ILE.16B`` form.

    Nothing is truncated (LightDock keeps a chain's first letter and a name's first three):
    ``AB.ILE.16`` names chain ``AB`` and ``A.GLYCINE.5`` residue ``GLYCINE``, which setup then
    reports as not found instead of docking to another residue.
    """
    parts = token.split(".")
    if len(parts) != 3 or not parts[0] or not parts[1] or not parts[2]:
        raise ValueError(token)
    chain, resname, number = parts[0].upper(), parts[1].upper(), parts[2]
    if not (chain.isalnum() and resname.isalnum()):
        raise ValueError(token)
    insertion = ""
    if number[-1].isalpha():
        number, insertion = number[:-1], number[-1].upper()
    return f"{chain}.{resname}.{int(number)}{insertion}"


def restraint_lists(side: SideRestraints) -> dict[str, list[str]]:
    """One side's restraints as LightDock's ``setup.json`` stores them."""
    return {
        "active": list(side.active),
        "passive": list(side.passive),
        "blocked": list(side.blocked),
    }


def restraints_from_config(config: dict, source: str) -> Restraints | None:
    """The restraints a ``setup.json`` carries (``receptor_restraints``/``ligand_restraints``,
    what LightDock's simulation reads), or None when it has none.

    Raises:
        InputFileError: the keys are present but malformed.
    """
    if not config.get("receptor_restraints") and not config.get("ligand_restraints"):
        return None
    result = Restraints(source=source)
    for key, side in (
        ("receptor_restraints", result.receptor),
        ("ligand_restraints", result.ligand),
    ):
        value = config.get(key) or {}
        if not isinstance(value, dict):
            raise InputFileError(f"{source}: {key} must map active/passive/blocked to residues")
        for kind in ("active", "passive", "blocked"):
            for rid in value.get(kind) or []:
                try:
                    side.add(kind, parse_residue_id(str(rid)))
                except ValueError:
                    raise InputFileError(f"{source}: {key}: malformed residue {rid!r}") from None
    return result


#: The levels of knowledge a restraints file can give (:func:`knowledge_of`), most first.
LEVELS = (
    "both sides",  # residues of both partners, more than one on one of them
    "one pair",  # one residue of each partner
    "receptor side",  # several receptor residues, none of the ligand's
    "one receptor residue",
    "ligand side",  # ligand residues only: the receptor's side is unknown
    "blocked only",  # where the interface is not, nothing of where it is
)


@dataclass(frozen=True)
class Knowledge:
    """What a docking's restraints tell of the interface: ``level`` (one of :data:`LEVELS`)
    and how many residues (active and passive) each side gives. The sparkledock protocol
    places swarms and ranks by it; run.json and the report name it."""

    level: str
    receptor: int
    ligand: int

    def as_dict(self) -> dict[str, object]:
        return {"level": self.level, "receptor": self.receptor, "ligand": self.ligand}


def knowledge_of(restraints: Restraints) -> Knowledge:
    """The level of knowledge ``restraints`` give (blocked residues say where the interface
    is not, so they do not count)."""
    rec = len(restraints.receptor.active) + len(restraints.receptor.passive)
    lig = len(restraints.ligand.active) + len(restraints.ligand.passive)
    if rec and lig:
        level = "one pair" if rec == lig == 1 else "both sides"
    elif rec:
        level = "one receptor residue" if rec == 1 else "receptor side"
    else:
        level = "ligand side" if lig else "blocked only"
    return Knowledge(level, rec, lig)
