"""Atoms as arrays: coordinates (N, 3) plus parallel annotation arrays.

One table per molecule, read from PDB or mmCIF with gemmi, cleaned like LightDock's setup
(``--noh``, ``--now``, ``--noxt``), and written back to PDB or mmCIF. Derived columns (DFIRE
types, normal-mode masks) are computed elsewhere by pure functions over these arrays.
"""

from __future__ import annotations

import gzip
import itertools
import math
import os
import re
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import gemmi
import numpy as np

from ..errors import (
    HeteroGroupWarning,
    InputFileError,
    MultiModelWarning,
    SparkledockWarning,
)
from ..fileutil import atomic_write_text
from .modified import listed as _listed
from .modified import map_modified_residues

WATER_NAMES = frozenset({"HOH", "WAT", "DOD", "H2O", "TIP", "TIP3", "SOL"})
PDB_SUFFIXES = (".pdb", ".ent", ".pdb1")
MMCIF_SUFFIXES = (".cif", ".mmcif")


@dataclass(frozen=True)
class Atoms:
    """A molecule as parallel arrays, one entry per atom, in file order.

    Attributes:
        coords: (N, 3) float64 Cartesian coordinates in Å.
        chain: chain identifiers.
        res_seq: residue sequence numbers.
        ins_code: insertion codes ("" when absent).
        res_name: residue names.
        atom_name: atom names, stripped.
        element: element symbols, upper case ("" when unknown).
        hetero: True for HETATM records.
        occupancy, b_factor: kept only so that written files carry them.
        serial: the input's atom serial numbers (1, 2, ... when built otherwise).
        altloc: alternate location indicators ("" when absent).
    """

    coords: np.ndarray
    chain: np.ndarray
    res_seq: np.ndarray
    ins_code: np.ndarray
    res_name: np.ndarray
    atom_name: np.ndarray
    element: np.ndarray
    hetero: np.ndarray
    occupancy: np.ndarray
    b_factor: np.ndarray
    serial: np.ndarray | None = None
    altloc: np.ndarray | None = None

    def __post_init__(self) -> None:
        n = len(self.coords)
        if self.serial is None:
            object.__setattr__(self, "serial", np.arange(1, n + 1, dtype=np.int64))
        if self.altloc is None:
            object.__setattr__(self, "altloc", np.full(n, "", dtype=object))
        if self.coords.shape != (n, 3):
            raise ValueError(f"coords must have shape (N, 3), got {self.coords.shape}")
        for f in fields(self):
            if len(getattr(self, f.name)) != n:
                raise ValueError(f"annotation {f.name} has {len(getattr(self, f.name))} != {n}")

    def __len__(self) -> int:
        return len(self.coords)

    def select(self, mask: np.ndarray) -> Atoms:
        """Return the atoms where ``mask`` (boolean or integer index) selects them."""
        return Atoms(**{f.name: getattr(self, f.name)[mask] for f in fields(self)})

    @staticmethod
    def concatenate(parts: Sequence[Atoms]) -> Atoms:
        """The atoms of ``parts`` one after another (e.g. receptor then ligand)."""
        return Atoms(
            **{f.name: np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(Atoms)}
        )

    def with_coords(self, coords: np.ndarray) -> Atoms:
        """Return a copy with new coordinates (same annotations)."""
        return replace(self, coords=np.asarray(coords, dtype=np.float64))

    def residue_ids(self) -> np.ndarray:
        """LightDock residue identifiers ``chain.resname.number[ins]`` for every atom."""
        return np.array(
            [
                f"{c}.{r}.{n}{i}"
                for c, r, n, i in zip(
                    self.chain, self.res_name, self.res_seq, self.ins_code, strict=True
                )
            ],
            dtype=object,
        )

    def residue_starts(self) -> np.ndarray:
        """Indices where a new residue (chain, number, insertion, name) begins."""
        if len(self) == 0:
            return np.zeros(0, dtype=np.int64)
        key_change = (
            (self.chain[1:] != self.chain[:-1])
            | (self.res_seq[1:] != self.res_seq[:-1])
            | (self.ins_code[1:] != self.ins_code[:-1])
            | (self.res_name[1:] != self.res_name[:-1])
        )
        return np.concatenate([[0], np.flatnonzero(key_change) + 1]).astype(np.int64)

    def residue_index(self) -> np.ndarray:
        """Per atom, the index of its residue (in :meth:`residue_starts`' order)."""
        starts = self.residue_starts()
        return np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(self))))


def atoms_from_lists(
    coords: Iterable[Iterable[float]],
    chain: Iterable[str],
    res_seq: Iterable[int],
    ins_code: Iterable[str],
    res_name: Iterable[str],
    atom_name: Iterable[str],
    element: Iterable[str],
    hetero: Iterable[bool],
    occupancy: Iterable[float] | None = None,
    b_factor: Iterable[float] | None = None,
    serial: Iterable[int] | None = None,
    altloc: Iterable[str] | None = None,
) -> Atoms:
    """Build an :class:`Atoms` table from Python sequences (used by readers and tests)."""
    xyz = np.asarray(list(coords), dtype=np.float64).reshape(-1, 3)
    n = len(xyz)
    return Atoms(
        coords=xyz,
        chain=np.asarray(list(chain), dtype=object),
        res_seq=np.asarray(list(res_seq), dtype=np.int64),
        ins_code=np.asarray(list(ins_code), dtype=object),
        res_name=np.asarray(list(res_name), dtype=object),
        atom_name=np.asarray(list(atom_name), dtype=object),
        element=np.asarray(list(element), dtype=object),
        hetero=np.asarray(list(hetero), dtype=bool),
        occupancy=np.ones(n) if occupancy is None else np.asarray(list(occupancy), float),
        b_factor=np.zeros(n) if b_factor is None else np.asarray(list(b_factor), float),
        serial=None if serial is None else np.asarray(list(serial), dtype=np.int64),
        altloc=None if altloc is None else np.asarray(list(altloc), dtype=object),
    )


def _check_pdb_lines(path: Path, text: str) -> None:
    """Reject ATOM/HETATM lines whose coordinates do not parse, naming the line.

    gemmi reads such lines leniently (a bad number becomes something else); docking on a
    silently wrong coordinate is worse than stopping. All lines are checked at once; the
    line-by-line pass that names the culprit runs only when something is wrong.
    """
    lines = []
    for line in text.splitlines():
        if line.startswith("ENDMDL"):
            break
        if line.startswith(("ATOM  ", "HETATM")):
            lines.append(line)
    try:
        xyz = [float(ln[a:b]) for ln in lines for a, b in ((30, 38), (38, 46), (46, 54))]
        fine = bool(np.isfinite(np.array(xyz)).all()) and all(
            ln[22:26].strip().lstrip("-").isdigit() for ln in lines
        )
    except ValueError:
        fine = False
    if not fine:
        _name_bad_pdb_line(path, text)


def _name_bad_pdb_line(path: Path, text: str) -> None:
    """Raise for the first ATOM/HETATM line whose coordinates or residue number are bad."""
    for lineno, line in enumerate(text.splitlines(), start=1):
        if line.startswith("ENDMDL"):
            return
        if not line.startswith(("ATOM  ", "HETATM")):
            continue
        try:
            xyz = [float(line[30:38]), float(line[38:46]), float(line[46:54])]
        except ValueError:
            raise InputFileError(
                f"{path}:{lineno}: malformed coordinates in {line.rstrip()!r}"
            ) from None
        if not all(math.isfinite(v) for v in xyz):
            raise InputFileError(f"{path}:{lineno}: non-finite coordinates in {line.rstrip()!r}")
        if line[22:26].strip() == "" or not line[22:26].strip().lstrip("-").isdigit():
            raise InputFileError(f"{path}:{lineno}: malformed residue number in {line.rstrip()!r}")


#: An atom line whose charge columns (79-80) hold two digits, which gemmi refuses (old files
#: put serials or segment numbers there); nothing here reads charges, so they are blanked.
_BAD_CHARGE = re.compile(r"^((?:ATOM  |HETATM).{72})[0-9]{2}", re.MULTILINE)


def _warn_truncated(path: Path, text: str) -> None:
    """Warn when a PDB file stops inside an atom record (no line end after it, or a line too
    short for its coordinates): a copy cut short reads as part of a molecule."""
    last = text.rstrip("\n").rsplit("\n", 1)[-1]
    cut = not text.endswith("\n") or len(last.rstrip()) < 54
    if last.startswith(("ATOM  ", "HETATM")) and cut:
        warnings.warn(
            f"{path}: the file ends inside an atom record ({last.strip()[:30]!r}...): was it "
            "cut short? Only what it holds is read",
            SparkledockWarning,
            stacklevel=3,
        )


_END = re.compile(r"^END\s*$", re.MULTILINE)
_ATOM_LINE = re.compile(r"^(ATOM  |HETATM)", re.MULTILINE)


def _warn_after_end(path: Path, text: str) -> None:
    """Warn when atom records follow an END record (two files pasted into one): END ends a
    PDB file, so they are not read (as the DockQ package and Biopython read it too)."""
    end = _END.search(text)
    if end is None:
        return
    after = len(_ATOM_LINE.findall(text, end.end()))
    if after:
        warnings.warn(
            f"{path}: {after} atom record(s) after the END record on line "
            f"{text.count(chr(10), 0, end.start()) + 1} are not read (END ends a PDB file; "
            "remove it to read them)",
            SparkledockWarning,
            stacklevel=3,
        )


def structure_text(path: Path) -> tuple[str, str]:
    """The text of a structure file and its name without ``.gz`` (gzip is read as such;
    a byte that is not UTF-8, such as Latin-1 in a REMARK, is read as Latin-1)."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read ({exc.strerror})") from None
    name = path.name
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise InputFileError(f"{path}: damaged gzip file ({exc})") from None
        name = name[:-3] if name.lower().endswith(".gz") else name
    if b"\x00" in raw[:65536]:
        raise InputFileError(f"{path}: a binary file, not PDB or mmCIF")
    try:
        return raw.decode("utf-8"), name
    except UnicodeDecodeError:
        return raw.decode("latin-1"), name


def read_structure(path: str | os.PathLike[str]) -> Atoms:
    """Read the first model of a PDB or mmCIF file (either may be gzipped) into an
    :class:`Atoms` table.

    Alternate locations keep the first conformer; a file of several models gives its first,
    with a warning. Nothing else is removed here; see :func:`clean` for LightDock's hydrogen,
    water, OXT and hetero-group handling.

    Raises:
        InputFileError: the file is missing, empty, binary, malformed or holds no atoms.
    """
    path = Path(path)
    if not path.is_file():
        raise InputFileError(f"{path}: no such file")
    text, name = structure_text(path)
    if not text.strip():
        raise InputFileError(f"{path}: file is empty")
    is_cif = Path(name).suffix.lower() in MMCIF_SUFFIXES or text.lstrip().startswith("data_")
    try:
        if is_cif:
            st = gemmi.make_structure_from_block(gemmi.cif.read_string(text).sole_block())
        else:
            _check_pdb_lines(path, text)
            _warn_truncated(path, text)
            _warn_after_end(path, text)
            st = gemmi.read_pdb_string(_BAD_CHARGE.sub(r"\1  ", text))
    except InputFileError:
        raise
    except Exception as exc:  # gemmi raises plain RuntimeError/ValueError
        raise InputFileError(f"{path}: cannot parse ({exc})") from None
    if len(st) == 0:
        raise InputFileError(f"{path}: no atoms found")
    if len(st) > 1:
        warnings.warn(f"{path}: {len(st)} models; using the first", MultiModelWarning, stacklevel=2)
    model = st[0]
    cols: dict[str, list] = {f.name: [] for f in fields(Atoms)}
    for ch in model:
        for res in ch:
            # the first alternate location of the residue, kept by hand: gemmi's
            # remove_alternative_conformations also merges atoms that share a name (three
            # "H" of a terminal residue, as LightDock's own 1DIZ example has)
            first_alt = next((a.altloc for a in res if a.altloc != "\0"), "\0")
            kept = [a for a in res if a.altloc in ("\0", first_alt)]
            n = len(kept)
            cols["chain"] += [ch.name] * n
            cols["res_seq"] += [res.seqid.num] * n
            cols["ins_code"] += [res.seqid.icode.strip()] * n
            cols["res_name"] += [res.name] * n
            cols["hetero"] += [res.het_flag == "H"] * n
            for atom in kept:
                pos = atom.pos
                cols["coords"].append((pos.x, pos.y, pos.z))
                element = atom.element.name
                cols["element"].append(element.upper() if element != "X" else "")
            cols["atom_name"] += [a.name for a in kept]
            cols["occupancy"] += [a.occ for a in kept]
            cols["b_factor"] += [a.b_iso for a in kept]
            cols["serial"] += [a.serial for a in kept]
            cols["altloc"] += ["" if a.altloc == "\0" else a.altloc for a in kept]
    if not cols["coords"]:
        raise InputFileError(f"{path}: no atoms found")
    coords = np.asarray(cols["coords"], dtype=np.float64)
    bad = ~np.isfinite(coords).all(axis=1)
    if bad.any():  # mmCIF's "?" and "." read as NaN
        i = int(np.flatnonzero(bad)[0])
        raise InputFileError(
            f"{path}: atom {cols['atom_name'][i]} of {cols['res_name'][i]} "
            f"{cols['chain'][i]}.{cols['res_seq'][i]}{cols['ins_code'][i]} has no finite "
            f"coordinates ({int(bad.sum())} such atom(s))"
        )
    return atoms_from_lists(**cols)


def hydrogen_mask(atoms: Atoms) -> np.ndarray:
    """True for hydrogens: element H/D, or (LightDock's rule) a name starting with H when the
    element column is empty."""
    el = atoms.element.astype(str)
    by_element = np.isin(el, ["H", "D"])
    by_name = (el == "") & np.char.startswith(atoms.atom_name.astype(str), "H")
    return by_element | by_name


def water_mask(atoms: Atoms) -> np.ndarray:
    """True for water molecules."""
    return np.isin(atoms.res_name.astype(str), list(WATER_NAMES))


def oxt_mask(atoms: Atoms) -> np.ndarray:
    """True for C-terminal OXT oxygens."""
    return atoms.atom_name.astype(str) == "OXT"


def hetero_group_mask(atoms: Atoms, keep_residues: Iterable[str] = ()) -> np.ndarray:
    """True for HETATM records of residues not in ``keep_residues`` (cofactors, ions, ...)."""
    keep = np.isin(atoms.res_name.astype(str), list(keep_residues))
    return atoms.hetero & ~keep & ~water_mask(atoms)


def removal_mask(
    atoms: Atoms,
    *,
    remove_hydrogens: bool = True,
    remove_water: bool = True,
    remove_oxt: bool = True,
    remove_hetero: bool = True,
    keep_hetero_residues: Iterable[str] = (),
    source: str = "structure",
) -> np.ndarray:
    """True for the atoms :func:`clean` removes (same arguments, same warning)."""
    drop = np.zeros(len(atoms), dtype=bool)
    if remove_hydrogens:
        drop |= hydrogen_mask(atoms)
    if remove_water:
        drop |= water_mask(atoms)
    if remove_oxt:
        drop |= oxt_mask(atoms)
    if remove_hetero:
        het = hetero_group_mask(atoms, keep_hetero_residues)
        if het.any():
            shown = _listed(set(atoms.residue_ids()[het]))
            warnings.warn(
                f"{source}: dropped {int(het.sum())} atoms of hetero groups {shown}",
                HeteroGroupWarning,
                stacklevel=3,
            )
        drop |= het
    return drop


def clean(
    atoms: Atoms, *, map_modified: bool = True, source: str = "structure", **removal: Any
) -> Atoms:
    """Apply LightDock's ``--noh``/``--now``/``--noxt`` cleaning and drop hetero groups.

    Common modified residues are first read as their parent amino acids
    (:func:`map_modified_residues`; ``map_modified=False`` leaves them hetero groups). What is
    removed is :func:`removal_mask`'s choice (``removal``: its keyword options, all on by
    default): hetero groups (HETATM residues not in ``keep_hetero_residues``) go with a
    :class:`HeteroGroupWarning` naming them, rather than failing later in scoring.
    """
    if map_modified:
        atoms = map_modified_residues(atoms, source)
    return atoms.select(~removal_mask(atoms, source=source, **removal))


def centre_of_coordinates(coords: np.ndarray) -> np.ndarray:
    """Mean of coordinates summed in atom order, as LightDock computes it.

    ``np.cumsum`` adds strictly sequentially (unlike ``np.sum``'s pairwise summation), so the
    centre is bit-identical to LightDock's Python loop and so are the centred coordinates.
    """
    if len(coords) == 0:
        return np.zeros(3)
    return np.cumsum(coords, axis=0)[-1] / len(coords)


def lightdock_centre(atoms: Atoms) -> np.ndarray:
    """LightDock's centre of a molecule: the mean of its heavy atoms (hydrogens are left out
    of ``Complex.center_of_coordinates``), summed in atom order; the origin without any."""
    return centre_of_coordinates(atoms.coords[~hydrogen_mask(atoms)])


def centred(atoms: Atoms) -> Atoms:
    """Return the atoms translated so that their centre (:func:`lightdock_centre`, the mean
    of the heavy atoms) is at the origin."""
    return atoms.with_coords(atoms.coords + (-1.0 * lightdock_centre(atoms)))


def _to_gemmi(atoms: Atoms) -> gemmi.Structure:
    st = gemmi.Structure()
    model = gemmi.Model(1)
    starts = [*list(atoms.residue_starts()), len(atoms)]
    chains: dict[str, gemmi.Chain] = {}
    order: list[str] = []
    for a, b in itertools.pairwise(starts):
        name = str(atoms.chain[a])
        if name not in chains:
            chains[name] = gemmi.Chain(name)
            order.append(name)
        res = gemmi.Residue()
        res.name = str(atoms.res_name[a])
        res.seqid = gemmi.SeqId(int(atoms.res_seq[a]), str(atoms.ins_code[a]) or " ")
        res.het_flag = "H" if atoms.hetero[a] else "A"
        for k in range(a, b):
            at = gemmi.Atom()
            at.name = str(atoms.atom_name[k])
            at.pos = gemmi.Position(*map(float, atoms.coords[k]))
            el = str(atoms.element[k]) or str(atoms.atom_name[k])[:1]
            at.element = gemmi.Element(el)
            at.occ = float(atoms.occupancy[k])
            at.b_iso = float(atoms.b_factor[k])
            at.serial = k + 1
            res.add_atom(at)
        chains[name].add_residue(res)
    for name in order:
        model.add_chain(chains[name])
    st.add_model(model)
    st.setup_entities()
    return st


def write_structure(atoms: Atoms, path: str | os.PathLike[str]) -> None:
    """Write atoms to PDB or mmCIF, chosen by the file suffix (``.cif``/``.mmcif`` → mmCIF)."""
    write_structures(atoms, atoms.coords[None], [path])


#: coordinates that fit PDB's ``%8.3f`` columns
PDB_COORDINATE_RANGE = (-999.9995, 9999.9995)


def _gemmi_atom_order(atoms: Atoms) -> np.ndarray:
    """The order gemmi writes atoms in: chain by chain (in order of first appearance), each
    chain's residues in file order."""
    starts = [*list(atoms.residue_starts()), len(atoms)]
    by_chain: dict[str, list[range]] = {}
    for a, b in itertools.pairwise(starts):
        by_chain.setdefault(str(atoms.chain[a]), []).append(range(a, b))
    return np.fromiter(
        (k for ranges in by_chain.values() for r in ranges for k in r), dtype=np.int64
    )


def write_structures(
    atoms: Atoms,
    coords: np.ndarray,
    paths: Sequence[str | os.PathLike[str]],
    remarks: Sequence[Sequence[str]] | None = None,
) -> None:
    """Write one structure per coordinate set (P, N, 3) of the same atoms, PDB or mmCIF by
    each path's suffix; ``remarks``: lines each PDB file opens with (REMARK records), and
    then it ends with an END record.

    PDB files are written from one gemmi-made template whose coordinate columns are filled
    in per model (a model of thousands of atoms in milliseconds, not tens of them); a model
    with a coordinate outside PDB's columns is written by gemmi itself.
    """
    paths = [Path(p) for p in paths]
    coords = np.asarray(coords, dtype=np.float64).reshape(len(paths), len(atoms), 3)
    template: tuple[list[str], list[int], np.ndarray] | None = None
    heads = [[]] * len(paths) if remarks is None else [list(r) for r in remarks]
    for xyz, path, head in zip(coords, paths, heads, strict=True):
        opening = "".join(f"{line}\n" for line in head)
        fits = bool(np.all((xyz > PDB_COORDINATE_RANGE[0]) & (xyz < PDB_COORDINATE_RANGE[1])))
        if path.suffix.lower() in MMCIF_SUFFIXES or not fits:
            st = _to_gemmi(atoms.with_coords(xyz))
            if path.suffix.lower() in MMCIF_SUFFIXES:
                text = st.make_mmcif_document().as_string()
            else:
                text = _with_end(opening + st.make_pdb_string(gemmi.PdbWriteOptions(minimal=True)))
            atomic_write_text(path, text)
            continue
        if template is None:
            lines = (
                _to_gemmi(atoms)
                .make_pdb_string(gemmi.PdbWriteOptions(minimal=True))
                .splitlines(keepends=True)
            )
            rows = [i for i, line in enumerate(lines) if line.startswith(("ATOM", "HETATM"))]
            template = (lines, rows, _gemmi_atom_order(atoms))
        lines, rows, order = template
        out = list(lines)
        for i, (x, y, z) in zip(rows, xyz[order].tolist(), strict=True):
            line = out[i]
            out[i] = f"{line[:30]}{x:8.3f}{y:8.3f}{z:8.3f}{line[54:]}"
        atomic_write_text(path, _with_end(opening + "".join(out)))


def _with_end(text: str) -> str:
    """PDB text closed by an END record."""
    return text if text.rstrip().endswith("\nEND") else text + "END\n"
