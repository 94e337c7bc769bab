"""Restraint files: LightDock's ``R A.ILE.16 [A|P|B]`` / ``L B.LYS.7`` lines and HADDOCK's
ambiguous restraint tables (``.tbl``).

Only active restraints enter the score (as in LightDock); passive ones guide swarm placement
and blocked ones exclude swarms, both used by setup.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputFileError, RestraintError
from ..structure import Atoms

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


def parse_residue_id(token: str) -> str:
    """Normalise ``A.ILE.16`` / ``a.ile.16b`` to LightDock's ``A.ILE.16B`` form."""
    parts = token.split(".")
    if len(parts) != 3 or not parts[0] or not parts[1]:
        raise ValueError(token)
    chain, resname, number = parts[0][0].upper(), parts[1][:3].upper(), parts[2]
    insertion = ""
    if number and number[-1].isalpha():
        number, insertion = number[:-1], number[-1].upper()
    return f"{chain}.{resname}.{int(number)}{insertion}"


def read_restraints(path: str | os.PathLike[str]) -> Restraints:
    """Read a LightDock restraints file.

    Blank lines and lines starting with ``#`` are ignored; any other line must be
    ``R|L CHAIN.RESNAME.NUMBER[INSERTION] [A|P|B]``.

    Raises:
        InputFileError: the file is missing or unreadable.
        RestraintError: a line is malformed (the message names file and line).
    """
    path = Path(path)
    if not path.is_file():
        raise InputFileError(f"{path}: no such restraints file")
    result = Restraints(source=str(path))
    for lineno, raw in enumerate(path.read_text().splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split()
        where = f"{path}:{lineno}"
        if fields[0] not in ("R", "L") or len(fields) not in (2, 3):
            raise RestraintError(f"{where}: expected 'R|L CHAIN.RES.NUM [A|P|B]', got {raw!r}")
        try:
            residue = parse_residue_id(fields[1])
        except ValueError:
            raise RestraintError(f"{where}: malformed residue {fields[1]!r}") from None
        kind = KINDS.get(fields[2][0].upper()) if len(fields) == 3 else "active"
        if kind is None:
            raise RestraintError(f"{where}: restraint kind must be A, P or B, got {fields[2]!r}")
        side = result.receptor if fields[0] == "R" else result.ligand
        side.add(kind, residue)
    return result


_SELECTION = re.compile(
    r"\(\s*resid?\s+(-?\d+)([A-Za-z]?)\s+and\s+segid?\s+([A-Za-z0-9])\s*\)", re.IGNORECASE
)


def read_haddock_restraints(
    path: str | os.PathLike[str], receptor: Atoms, ligand: Atoms
) -> Restraints:
    """Restraints from a HADDOCK ambiguous restraint table (``.tbl``).

    Each ``assign`` names one active residue (its first selection) and the residues it may
    touch; residues that appear only as targets are passive. A segid is the chain of the
    partner that has it; residue names come from the structures (LightDock's identifiers
    ``chain.resname.number[ins]``).

    Raises:
        InputFileError: missing file, or no ``assign`` statement in it.
        RestraintError: a selection names a residue absent from both partners.
    """
    path = Path(path)
    if not path.is_file():
        raise InputFileError(f"{path}: no such restraints file")
    text = "\n".join(line.split("!", 1)[0] for line in path.read_text().splitlines())
    blocks = re.split(r"\bassign\b", text, flags=re.IGNORECASE)[1:]
    if not blocks:
        raise InputFileError(f"{path}: no 'assign' statements (not a HADDOCK .tbl?)")
    names = {}
    for side, atoms in (("receptor", receptor), ("ligand", ligand)):
        for chain, num, ins, res in zip(
            atoms.chain, atoms.res_seq, atoms.ins_code, atoms.res_name, strict=True
        ):
            names.setdefault((str(chain), int(num), str(ins)), (side, f"{chain}.{res}.{num}{ins}"))
    result = Restraints(source=str(path))
    targets: list[tuple[str, str]] = []
    for block in blocks:
        selections = _SELECTION.findall(block)
        if not selections:
            raise RestraintError(f"{path}: an 'assign' without a 'resid N and segid X' selection")
        for k, (num, ins, segid) in enumerate(selections):
            key = (segid, int(num), ins.upper())
            if key not in names:
                raise RestraintError(
                    f"{path}: residue {num}{ins} of segid {segid} is in neither partner"
                )
            side, rid = names[key]
            if k == 0:
                getattr(result, side).add("active", rid)
            else:
                targets.append((side, rid))
    for side, rid in targets:
        getattr(result, side).add("passive", rid)
    return result


def format_restraints(restraints: Restraints) -> str:
    """Restraints in LightDock's file format (``R|L CHAIN.RES.NUM A|P|B`` lines)."""
    lines = []
    for tag, side in (("R", restraints.receptor), ("L", restraints.ligand)):
        for kind, code in (("active", "A"), ("passive", "P"), ("blocked", "B")):
            lines.extend(f"{tag} {rid} {code}\n" for rid in getattr(side, kind))
    return "".join(lines)


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


def read_any_restraints(path: str | os.PathLike[str], receptor: Atoms, ligand: Atoms) -> Restraints:
    """A restraints file of either format: HADDOCK ``.tbl`` (needs the partners' atoms for
    residue names) or LightDock's."""
    if Path(path).suffix == ".tbl":
        return read_haddock_restraints(path, receptor, ligand)
    return read_restraints(path)
