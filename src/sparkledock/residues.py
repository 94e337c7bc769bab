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
