"""Antibody paratopes from sequence: immunoglobulin variable domains and their CDRs.

An antibody binds with its six complementarity-determining regions (CDRs); docking programs
offer an antibody mode that keeps the search on them (ClusPro masks the rest of the antibody:
Brenke et al., Bioinformatics 28:2608, 2012; HADDOCK and LightDock users give the CDRs as
passive restraints). sparkledock finds the CDRs itself, so that a blind docking of an
antibody needs no numbering tool.

Variable domains are found by the conserved framework residues that every antibody numbering
scheme anchors on (Kabat numbering; the rules of thumb of A. C. R. Martin, "Identifying the
CDRs", bioinf.org.uk): Cys 22/23 at the end of framework 1, Trp 35/36 opening framework 2
(``W`` followed by ``V I A Y L F``), Cys 88/92 at the end of framework 3 and the
``W-G-x-G`` (heavy chain) or ``F-G-x-G`` (light chain) motif that opens framework 4. The CDRs
are then, in residues of the chain's sequence (a little wider than Kabat's, as a paratope
patch should be):

- CDR1: from three residues after the first Cys to the residue before the Trp;
- CDR2: in a light chain, from 13 residues after the Trp, 8 residues long (Kabat's L50–L56
  and L48); in a heavy chain, from two residues after framework 2's second Trp (Trp 47 of
  ``E-W-I-G``; 13 residues after the first when it is missing), 17 residues long (H50–H65
  and H49), so that residues missing from the structure before it do not shift it;
- CDR3: from the residue after the second Cys to the residue before the F/W-G-x-G motif.

A chain may hold several domains (a Fab's heavy and light chains given as one chain, a
single-chain Fv); each is found. Nothing is fitted: the spacings are the numbering schemes'.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import InputFileError
from ..molecule.structure import Atoms

#: three-letter to one-letter codes of the standard amino acids (anything else reads "X")
ONE_LETTER = {
    "ALA": "A", "ARG": "R", "ASN": "N", "ASP": "D", "CYS": "C", "GLN": "Q", "GLU": "E",
    "GLY": "G", "HIS": "H", "ILE": "I", "LEU": "L", "LYS": "K", "MET": "M", "PHE": "F",
    "PRO": "P", "SER": "S", "THR": "T", "TRP": "W", "TYR": "Y", "VAL": "V",
}  # fmt: skip
#: residues from the first Cys to the framework-2 Trp (Kabat: 22 → 36 heavy, 23 → 35 light,
#: with CDR1 insertions of up to six residues)
CYS_TO_TRP = (10, 22)
#: residues from that Trp to the second Cys (Kabat: 35 → 88 light, 36 → 92 heavy, with CDR2
#: and framework-3 insertions)
TRP_TO_CYS = (45, 70)
#: residues from the second Cys to the framework-4 motif (CDR3 of 1 to ~30 residues)
CYS_TO_MOTIF = (4, 40)
FRAMEWORK2_TRP = re.compile(r"W[VIAYLF]")
FRAMEWORK4_MOTIF = re.compile(r"[WF]G.G")


@dataclass(frozen=True)
class VariableDomain:
    """One variable domain: ``chain`` ``"heavy"`` or ``"light"`` and its three CDRs as
    (start, end) positions in the sequence searched (end exclusive)."""

    chain: str
    cdrs: tuple[tuple[int, int], tuple[int, int], tuple[int, int]]


def variable_domains(sequence: str) -> list[VariableDomain]:
    """The immunoglobulin variable domains of a one-letter sequence, N- to C-terminal
    (module docstring); an empty list when there is none."""
    found: list[VariableDomain] = []
    start = 0
    while True:
        domain, end = _next_domain(sequence, start)
        if domain is None:
            return found
        found.append(domain)
        start = end


def _cysteines(seq: str, first: int, end: int) -> list[int]:
    """Positions of Cys in ``seq[first:end]``."""
    return [i for i in range(first, min(end, len(seq))) if seq[i] == "C"]


def _next_domain(seq: str, start: int) -> tuple[VariableDomain | None, int]:
    """The first domain whose first Cys is at or after ``start``, and where its framework-4
    motif ends (the next search starts there)."""
    for i in _cysteines(seq, start, len(seq)):
        trp = FRAMEWORK2_TRP.search(seq, i + CYS_TO_TRP[0], i + CYS_TO_TRP[1] + 2)
        if trp is None:
            continue
        j = trp.start()
        for k in _cysteines(seq, j + TRP_TO_CYS[0], j + TRP_TO_CYS[1] + 1):
            motif = FRAMEWORK4_MOTIF.search(seq, k + CYS_TO_MOTIF[0], k + CYS_TO_MOTIF[1] + 4)
            if motif is None:
                continue
            m = motif.start()
            heavy = seq[m] == "W"
            cdr2 = (j + 13, j + 13 + 8)
            if heavy:  # from Trp 47 (``E-W-I/V-G``) when present: robust to gaps before it
                second = seq.find("W", j + 8, j + 14)
                first2 = second + 2 if second >= 0 else j + 13
                cdr2 = (first2, first2 + 17)
            cdrs = ((i + 3, j), cdr2, (k + 1, m))
            return VariableDomain("heavy" if heavy else "light", cdrs), motif.end()
    return None, len(seq)


def cdr_residues(atoms: Atoms) -> list[str]:
    """LightDock ids (``chain.resname.number[ins]``) of the CDR residues of every variable
    domain of every protein chain of ``atoms``, in file order; empty for a molecule that is
    not an antibody."""
    starts = atoms.residue_starts()
    ids = [str(i) for i in atoms.residue_ids()[starts]]
    chains = [str(c) for c in atoms.chain[starts]]
    out: list[str] = []
    for chain in dict.fromkeys(chains):
        members = [rid for rid, c in zip(ids, chains, strict=True) if c == chain]
        sequence = "".join(ONE_LETTER.get(rid.split(".")[1], "X") for rid in members)
        for domain in variable_domains(sequence):
            for a, b in domain.cdrs:
                out.extend(members[a:b])
    return out


def require_paratope(atoms: Atoms, source: str) -> list[str]:
    """:func:`cdr_residues` of a receptor docked with ``--paratope``; an
    :class:`InputFileError` (one line, naming ``source``) when it has none."""
    found = cdr_residues(atoms)
    if not found:
        raise InputFileError(
            f"{source}: no antibody variable domain found; {{0}} docks on the CDRs of an "
            "antibody receptor",
            "paratope",
        )
    return found
