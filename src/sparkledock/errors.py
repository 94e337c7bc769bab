"""The small error vocabulary raised at sparkledock's edges.

Every error carries a one-line message that names the file, line, residue or atom at fault,
so the CLI can print it as is and exit non-zero.
"""

from __future__ import annotations

from collections.abc import Callable


class NamesOptions:
    """A message that names options: ``{0}``, ``{1}``... in its ``template`` are ``names``'
    places. It reads with each option's schema field (what the Python API calls it:
    ``rank_method``); the command line spells the same message with its flags
    (``--rank-method``: :meth:`spelled`), so neither reads the other's names."""

    names: tuple[str, ...] = ()
    template: str = ""

    def _named(self, template: str, names: str | tuple[str, ...]) -> str:
        self.names = (names,) if isinstance(names, str) else tuple(names)
        self.template = template
        return self.spelled(lambda name: name)

    def spelled(self, spell: Callable[[str], str]) -> str:
        """The message with each option's name as ``spell`` gives it (a field -> a flag)."""
        text = self.template  # (replaced, not formatted: a value may hold braces)
        for i, name in enumerate(self.names):
            text = text.replace(f"{{{i}}}", spell(name))
        return text

    def __reduce__(self):  # (across processes: the template and names, not the spelling,
        # and what else the instance holds, e.g. MPI's ``shared`` and ``echo`` marks)
        return _rebuilt, (type(self), self.template, self.names), dict(vars(self))


def _rebuilt(kind: type, template: str, names: tuple[str, ...]) -> NamesOptions:
    exception = issubclass(kind, BaseException)  # (BaseException's: MemoryError's refuses)
    made = BaseException.__new__(kind) if exception else object.__new__(kind)
    text = made._named(template, names)
    if exception:
        BaseException.__init__(made, text)
    return made


class OptionsSaid(NamesOptions):
    """A line that is neither error nor warning (a log line) naming options, spelled by its
    reader as errors are (the command line's log handler spells it with flags)."""

    def __init__(self, template: str, options: str | tuple[str, ...]) -> None:
        self._named(template, options)

    def __str__(self) -> str:
        return self.spelled(lambda name: name)


class SparkledockError(NamesOptions, Exception):
    """Base class of every error sparkledock raises on bad input. ``options``: the options
    the message names (``{0}``...; :class:`NamesOptions`), e.g. the one that would avoid it."""

    def __init__(self, message: str = "", options: str | tuple[str, ...] = ()) -> None:
        super().__init__(self._named(message, options))


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
    """An option's value is refused; ``template`` names it (and any other) as ``{0}``,
    ``{1}``... (:class:`NamesOptions`)."""

    def __init__(self, names: str | tuple[str, ...], template: str) -> None:
        super().__init__(template, names)


class OutOfMemoryError(SparkledockError, MemoryError):
    """Not even the smallest piece of the work fits in the memory there is."""


class SparkledockWarning(NamesOptions, UserWarning):
    """Base class of sparkledock's warnings. ``options``: the options the message names
    (``{0}``...; :class:`NamesOptions`); warn with an instance to have them spelled."""

    def __init__(self, message: str = "", options: str | tuple[str, ...] = ()) -> None:
        super().__init__(self._named(message, options))


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
