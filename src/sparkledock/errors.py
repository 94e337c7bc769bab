"""The small error vocabulary raised at sparkledock's edges.

Every error carries a one-line message that names the file, line, residue or atom at fault,
so the CLI can print it as is and exit non-zero.
"""

from __future__ import annotations

from collections.abc import Callable


class SparkledockError(Exception):
    """Base class of every error sparkledock raises on bad input."""


class InputFileError(SparkledockError):
    """A file is missing, empty, unreadable or malformed."""


class UnsupportedAtomError(SparkledockError):
    """A residue or atom that the scoring function has no parameters for."""


class RestraintError(SparkledockError):
    """A restraint is malformed or names a residue that is not in the structure."""


class PoseError(SparkledockError):
    """Poses have the wrong shape or hold non-finite numbers."""


class EngineError(SparkledockError, ValueError):
    """An engine or scoring function that is unknown, unavailable or conflicts with the run
    (a ``ValueError`` too, for callers that catch that)."""


class OptionError(EngineError):
    """An option's value is refused. The message names each option by its schema field (what
    the Python API calls it: ``rank_method``); the command line spells the same message with
    its flags (``--rank-method``: :meth:`spelled`), so neither reads the other's names.

    ``template`` holds ``{0}``, ``{1}``... where ``names``' options go."""

    def __init__(self, names: str | tuple[str, ...], template: str) -> None:
        self.names = (names,) if isinstance(names, str) else tuple(names)
        self.template = template
        super().__init__(self.spelled(lambda name: name))

    def spelled(self, spell: Callable[[str], str]) -> str:
        """The message with each option's name as ``spell`` gives it (a field -> a flag)."""
        text = self.template  # (replaced, not formatted: a value may hold braces)
        for i, name in enumerate(self.names):
            text = text.replace(f"{{{i}}}", spell(name))
        return text


class OutOfMemoryError(SparkledockError, MemoryError):
    """Not even the smallest piece of the work fits in the memory there is."""


class SparkledockWarning(UserWarning):
    """Base class of sparkledock's warnings."""


class HeteroGroupWarning(SparkledockWarning):
    """Hetero groups (ligands, cofactors, ions) were dropped from a structure."""


class SkippedAtomWarning(SparkledockWarning):
    """Atoms unknown to the scoring function were skipped at the user's request."""


class ModifiedResidueWarning(SparkledockWarning):
    """Modified residues (MSE, SEP, ...) were read as their parent amino acids."""


class RemnantWarning(SparkledockWarning):
    """Backbone remnants (a lone N closing a cut chain) were dropped for normal modes."""


class MultiModelWarning(SparkledockWarning):
    """A structure file holds several models; the first is used."""


class FieldTooLargeError(SparkledockError):
    """A fast-scoring field would not fit its memory budget (the run falls back to exact
    scoring with a warning)."""
