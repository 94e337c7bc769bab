"""Restraint files: LightDock's ``R A.ILE.16 [A|P|B]`` / ``L B.LYS.7`` lines and HADDOCK's
ambiguous restraint tables (``.tbl``), read into
:class:`sparkledock.molecule.restraints.Restraints`.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import InputFileError, RestraintError
from ..fileutil import read_text_input
from ..molecule.restraints import KINDS, Restraints, parse_residue_id
from ..molecule.structure import Atoms


def read_restraints(path: str | os.PathLike[str]) -> Restraints:
    """Read a LightDock restraints file.

    Blank lines and lines starting with ``#`` are ignored; any other line must be
    ``R|L CHAIN.RESNAME.NUMBER[INSERTION] [A|P|B]``.

    Raises:
        InputFileError: the file is missing, unreadable, binary or holds no restraint (a
            restrained run without restraints would dock unrestrained without a word).
        RestraintError: a line is malformed (the message names file and line).
    """
    path = Path(path)
    text = read_text_input(path, "restraints")
    result = Restraints(source=str(path))
    for lineno, raw in enumerate(text.splitlines(), start=1):
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
    if not any(
        getattr(side, kind)
        for side in (result.receptor, result.ligand)
        for kind in ("active", "passive", "blocked")
    ):
        raise InputFileError(f"{path}: no restraints in the file (LightDock refuses it too)")
    return result


#: CNS selection keywords HADDOCK tables use (CNS accepts the four-letter abbreviations).
_KEYWORDS = {
    "resid": "resid", "resi": "resid",
    "segid": "segid", "segi": "segid",
    "name": "name",
    "resname": "resname", "resn": "resname",
    "chain": "chain",
}  # fmt: skip


@dataclass(frozen=True)
class _Token:
    text: str
    line: int


def _cns_tokens(text: str) -> list[_Token]:
    """Tokens of a CNS table: ``!`` comments to the end of the line and ``{...}`` comments
    removed; parentheses and ``:`` are tokens of their own."""
    tokens: list[_Token] = []
    depth = 0
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = []
        for ch in raw:
            if ch == "{":
                depth += 1
            elif ch == "}" and depth:
                depth -= 1
            elif not depth:
                line.append(ch)
        body = "".join(line).split("!", 1)[0]
        for word in re.findall(r"[()]|:|[^\s():]+", body):
            tokens.append(_Token(word, lineno))
    return tokens


class _Selections:
    """A recursive-descent reader of CNS atom selections over both partners' atoms.

    ``or`` binds looser than ``and``, ``not`` tightest; attributes: ``resid N``, ``resid N:M``
    (a range), ``segid X`` (the chain), ``chain X``, ``name X``, ``resname X`` (``*`` a
    wildcard), ``all``. Anything else is an error naming the file and line.
    """

    def __init__(self, path: Path, tokens: list[_Token], atoms: Atoms) -> None:
        self.path, self.tokens, self.pos = path, tokens, 0
        self.number = atoms.res_seq
        self.insertion = np.char.upper(atoms.ins_code.astype(str))
        self.n = len(atoms)
        chain = np.unique(atoms.chain.astype(str), return_inverse=True)
        #: per attribute, its distinct values and each atom's index into them
        self.columns = {
            "segid": chain,
            "chain": chain,
            "name": np.unique(np.char.upper(atoms.atom_name.astype(str)), return_inverse=True),
            "resname": np.unique(np.char.upper(atoms.res_name.astype(str)), return_inverse=True),
        }

    def error(self, message: str, token: _Token | None = None) -> RestraintError:
        if token is None:  # the current token, or the last one at the end of the file
            token = self.tokens[min(self.pos, len(self.tokens) - 1)]
        return RestraintError(f"{self.path}:{token.line}: {message}")

    def peek(self) -> str | None:
        return self.tokens[self.pos].text.lower() if self.pos < len(self.tokens) else None

    def take(self) -> _Token:
        if self.pos >= len(self.tokens):
            raise self.error("unexpected end of file (an unclosed parenthesis?)")
        self.pos += 1
        return self.tokens[self.pos - 1]

    def selection(self) -> tuple[np.ndarray, _Token]:
        """One parenthesised selection; returns its atom mask and its first token."""
        first = self.tokens[self.pos] if self.pos < len(self.tokens) else None
        if self.peek() != "(":
            raise self.error(f"expected '(' to open a selection, got {self._shown()}")
        return self.atom(), first

    def _shown(self) -> str:
        return repr(self.tokens[self.pos].text) if self.pos < len(self.tokens) else "the end"

    def either(self) -> np.ndarray:
        mask = self.both()
        while self.peek() == "or":
            self.take()
            mask = mask | self.both()
        return mask

    def both(self) -> np.ndarray:
        mask = self.negation()
        while self.peek() == "and":
            self.take()
            mask = mask & self.negation()
        return mask

    def negation(self) -> np.ndarray:
        if self.peek() == "not":
            self.take()
            return ~self.negation()
        return self.atom()

    def atom(self) -> np.ndarray:
        token = self.take()
        word = token.text.lower()
        if word == "(":
            mask = self.either()
            if self.peek() != ")":
                raise self.error(f"expected ')' to close the selection, got {self._shown()}")
            self.take()
            return mask
        if word == "all":
            return np.ones(self.n, dtype=bool)
        key = _KEYWORDS.get(word)
        if key is None:
            raise self.error(f"unsupported selection {token.text!r}", token)
        value = self.take()
        if value.text in "():":
            raise self.error(f"{token.text} needs a value, got {value.text!r}", value)
        if key == "resid":
            return self._resid(value)
        values, index = self.columns[key]
        pattern = value.text.upper() if key in ("name", "resname") else value.text
        return np.array([fnmatch.fnmatchcase(v, pattern) for v in values], dtype=bool)[index]

    def _resid(self, value: _Token) -> np.ndarray:
        low = self._residue_number(value)
        if self.peek() == ":":
            self.take()
            high = self._residue_number(self.take())
            return (self.number >= low[0]) & (self.number <= high[0])
        return (self.number == low[0]) & (self.insertion == low[1])

    def _residue_number(self, token: _Token) -> tuple[int, str]:
        found = re.fullmatch(r"(-?\d+)([A-Za-z]?)", token.text)
        if not found:
            raise self.error(f"malformed residue number {token.text!r}", token)
        return int(found.group(1)), found.group(2).upper()


def read_haddock_restraints(
    path: str | os.PathLike[str], receptor: Atoms, ligand: Atoms
) -> Restraints:
    """Restraints from a HADDOCK ambiguous restraint table (``.tbl``, CNS syntax).

    Each ``assign (SELECTION) (SELECTION) d d- d+`` makes the residues of its first selection
    active and those of its second (that are not active anywhere) passive. Selections follow
    CNS's grammar (see :class:`_Selections`): ``segid`` is the chain of the partner that has
    it; residue names come from the structures (LightDock's identifiers
    ``chain.resname.number[ins]``). Nothing is guessed: a selection that cannot be read, or that
    selects no atom, is an error naming the line.

    Raises:
        InputFileError: missing, binary or empty file, or no ``assign`` statement in it.
        RestraintError: a selection that cannot be read or selects nothing (file and line).
    """
    path = Path(path)
    tokens = _cns_tokens(read_text_input(path, "restraints"))
    if not any(t.text.lower() == "assign" for t in tokens):
        raise InputFileError(f"{path}: no 'assign' statements (not a HADDOCK .tbl?)")
    both = Atoms.concatenate([receptor, ligand])
    side = np.array(["receptor"] * len(receptor) + ["ligand"] * len(ligand))
    ids = both.residue_ids()
    reader = _Selections(path, tokens, both)
    result = Restraints(source=str(path))
    targets: list[tuple[str, str]] = []
    while reader.pos < len(tokens):
        token = reader.take()
        if token.text.lower() != "assign":
            raise reader.error(f"expected 'assign', got {token.text!r}", token)
        for k in range(2):
            mask, first = reader.selection()
            if not mask.any():
                raise reader.error(
                    "a selection that matches no atom of either partner (a residue or segid "
                    "in neither?)",
                    first,
                )
            chosen = dict.fromkeys(zip(side[mask], ids[mask], strict=True))
            for which, rid in chosen:
                if k == 0:
                    getattr(result, which).add("active", rid)
                else:
                    targets.append((which, rid))
        while reader.peek() is not None and re.fullmatch(r"-?[\d.]+", reader.peek() or ""):
            reader.take()  # the distance and its bounds
    for which, rid in targets:
        getattr(result, which).add("passive", rid)
    return result


def format_restraints(restraints: Restraints) -> str:
    """Restraints in LightDock's file format (``R|L CHAIN.RES.NUM A|P|B`` lines)."""
    lines = []
    for tag, side in (("R", restraints.receptor), ("L", restraints.ligand)):
        for kind, code in (("active", "A"), ("passive", "P"), ("blocked", "B")):
            lines.extend(f"{tag} {rid} {code}\n" for rid in getattr(side, kind))
    return "".join(lines)


def read_any_restraints(path: str | os.PathLike[str], receptor: Atoms, ligand: Atoms) -> Restraints:
    """A restraints file of either format: HADDOCK ``.tbl`` (needs the partners' atoms for
    residue names) or LightDock's."""
    if Path(path).suffix.lower() == ".tbl":
        return read_haddock_restraints(path, receptor, ligand)
    return read_restraints(path)
