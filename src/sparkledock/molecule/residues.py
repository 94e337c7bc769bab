"""Residue chemistry that cleaning needs: the standard amino acids' heavy atoms and the common
modified residues that docking users expect to be read as their parent amino acid."""

from __future__ import annotations

#: Heavy atoms of the 20 standard amino acids (PDB names; OXT is the C-terminal oxygen).
AMINO_ACID_ATOMS: dict[str, frozenset[str]] = {
    res: frozenset(atoms.split())
    for res, atoms in {
        "ALA": "N CA C O CB",
        "ARG": "N CA C O CB CG CD NE CZ NH1 NH2",
        "ASN": "N CA C O CB CG OD1 ND2",
        "ASP": "N CA C O CB CG OD1 OD2",
        "CYS": "N CA C O CB SG",
        "GLN": "N CA C O CB CG CD OE1 NE2",
        "GLU": "N CA C O CB CG CD OE1 OE2",
        "GLY": "N CA C O",
        "HIS": "N CA C O CB CG ND1 CD2 CE1 NE2",
        "ILE": "N CA C O CB CG1 CG2 CD1",
        "LEU": "N CA C O CB CG CD1 CD2",
        "LYS": "N CA C O CB CG CD CE NZ",
        "MET": "N CA C O CB CG SD CE",
        "PHE": "N CA C O CB CG CD1 CD2 CE1 CE2 CZ",
        "PRO": "N CA C O CB CG CD",
        "SER": "N CA C O CB OG",
        "THR": "N CA C O CB OG1 CG2",
        "TRP": "N CA C O CB CG CD1 CD2 NE1 CE2 CE3 CZ2 CZ3 CH2",
        "TYR": "N CA C O CB CG CD1 CD2 CE1 CE2 CZ OH",
        "VAL": "N CA C O CB CG1 CG2",
    }.items()
}

#: Common modified residues (phosphorylation, selenomethionine, methylation, oxidation, ...)
#: and the amino acid each is docked as; the atoms the parent lacks are dropped.
MODIFIED_PARENTS: dict[str, str] = {
    "MSE": "MET", "FME": "MET",
    "SEP": "SER", "SAC": "SER",
    "TPO": "THR",
    "PTR": "TYR", "TYS": "TYR",
    "HYP": "PRO",
    "MLY": "LYS", "M3L": "LYS", "MLZ": "LYS", "ALY": "LYS", "KCX": "LYS", "LLP": "LYS",
    "CSO": "CYS", "CSD": "CYS", "CME": "CYS", "CAS": "CYS", "OCS": "CYS", "CSS": "CYS",
    "SCY": "CYS", "CSX": "CYS",
    "NEP": "HIS", "HIC": "HIS", "MHS": "HIS",
    "AGM": "ARG", "CGU": "GLU", "PCA": "GLU", "IAS": "ASP",
}  # fmt: skip

#: Atoms renamed to the parent's name (selenomethionine's selenium takes methionine's SD).
RENAMED_ATOMS: dict[tuple[str, str], str] = {("MSE", "SE"): "SD"}

#: Nucleotides as LightDock reads them (``Residue.DNA_STANDARD_TYPES`` and
#: ``RNA_STANDARD_TYPES``): deoxyribonucleotides and ribonucleotides.
#: LightDock's membrane bead residue (one ``BJ`` atom each; ``lgd_create_membrane.py``)
MEMBRANE_RESIDUE = "MMB"
MEMBRANE_BEAD = "BJ"

DNA_NUCLEOTIDES = frozenset({"DA", "DC", "DG", "DT", "DU", "DI"})
RNA_NUCLEOTIDES = frozenset({"A", "C", "G", "U", "I"})
NUCLEOTIDES = DNA_NUCLEOTIDES | RNA_NUCLEOTIDES

_SUGAR_PHOSPHATE = "P OP1 OP2 OP3 O1P O2P O3P O5' C5' C4' O4' C3' O3' C2' C1'"
_BASES = {
    "A": "N9 C8 N7 C5 C6 N6 N1 C2 N3 C4",
    "G": "N9 C8 N7 C5 C6 O6 N1 C2 N2 N3 C4",
    "I": "N9 C8 N7 C5 C6 O6 N1 C2 N3 C4",
    "C": "N1 C2 O2 N3 C4 N4 C5 C6",
    "T": "N1 C2 O2 N3 C4 O4 C5 C7 C5M C6",
    "U": "N1 C2 O2 N3 C4 O4 C5 C6",
}
#: Heavy atoms of each nucleotide (current and older PDB names: OP1/O1P, C7/C5M; RNA has O2').
NUCLEOTIDE_ATOMS: dict[str, frozenset[str]] = {
    **{f"D{b}": frozenset(f"{_SUGAR_PHOSPHATE} {atoms}".split()) for b, atoms in _BASES.items()},
    **{
        b: frozenset(f"{_SUGAR_PHOSPHATE} O2' {atoms}".split())
        for b, atoms in _BASES.items()
        if b != "T"
    },
}

#: Common modified nucleotides (methylated bases and riboses, pseudouridine, thio- and
#: dihydro-uridines, deoxy forms) and the nucleotide each is docked as, as
#: :data:`MODIFIED_PARENTS` does for amino acids: atoms the parent lacks are dropped.
MODIFIED_NUCLEOTIDES: dict[str, str] = {
    "5CM": "DC", "DOC": "DC", "CBR": "DC",
    "6MA": "DA",
    "8OG": "DG", "6OG": "DG",
    "BRU": "DU", "5IU": "DU", "UFP": "DU",
    "A2M": "A", "MA6": "A", "1MA": "A", "2MA": "A", "MIA": "A", "6IA": "A", "T6A": "A",
    "5MC": "C", "OMC": "C", "4OC": "C",
    "1MG": "G", "2MG": "G", "7MG": "G", "M2G": "G", "OMG": "G", "YYG": "G",
    "PSU": "U", "5MU": "U", "H2U": "U", "4SU": "U", "S4U": "U", "OMU": "U", "UR3": "U",
    "5BU": "U",
    # force-field spellings (AMBER's RA/DA5/DA3..., CHARMM's ADE/GUA/CYT/THY/URA)
    **{f"R{b}": b for b in "ACGU"},
    **{f"R{b}{end}": b for b in "ACGU" for end in "53"},
    **{f"D{b}{end}": f"D{b}" for b in "ACGT" for end in "53"},
    "ADE": "A", "GUA": "G", "CYT": "C", "URA": "U", "THY": "DT",
}  # fmt: skip


def nucleic_kind(res_name: str) -> str:
    """``"dna"``, ``"rna"`` or ``""`` for a (parent) residue name."""
    if res_name in DNA_NUCLEOTIDES:
        return "dna"
    if res_name in RNA_NUCLEOTIDES:
        return "rna"
    return ""
