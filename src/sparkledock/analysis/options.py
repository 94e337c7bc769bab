"""The filter, evaluate and model stages' options: :class:`FilterOptions`, one field per option
of ``sparkledock filter``, ``lgd_filter_restraints.py`` (in its own spellings) and
:func:`sparkledock.filter_ranking`; :class:`EvaluateOptions`, ``sparkledock evaluate``'s and
:func:`sparkledock.evaluate`'s; :class:`ModelOptions`, ``top``'s and ``generate``'s
(:func:`sparkledock.schema.option`: the parsers are built from the fields, the Python API
checks values against them); and the checks that refuse a value out of range before any work
(the rank stage's: :mod:`.ranking_options`)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import OptionError
from ..schema import DEFAULT_CONTACT_CUTOFF_A, DEFAULT_FILTER_FRACTION, check_fields, option

#: Which atoms of a partner take part in contacts.
MOLECULES = ("all", "protein", "nucleic")


@dataclass(frozen=True)
class FilterOptions:
    """What the restraint filter keeps: solutions with at least ``fnat`` of the restraint
    residues within ``cutoff`` Å of the other partner (None: none, LightDock's filter
    without ``--fnat``; each one's satisfaction is reported), passive residues counted too
    with ``include_passive``; which atoms of the receptor and of the ligand count:
    ``molecules`` (on the command line, LightDock's ``--rnuc``/``--lnuc``: nucleotides
    only)."""

    fnat: float | None = option(
        DEFAULT_FILTER_FRACTION, "--fnat", type=float,
        help="minimum fraction of restraint residues in contact",
    )  # fmt: skip
    cutoff: float = option(
        DEFAULT_CONTACT_CUTOFF_A, "--cutoff", type=float, help="contact cutoff in Å"
    )
    include_passive: bool = option(
        False, "--include-passive", action="store_true",
        help="passive restraint residues count too (default: active ones only, as LightDock)",
    )  # fmt: skip
    molecules: tuple[str, str] = ("all", "all")
    #: a file of one receptor and one ligand residue (the level "one pair"): keep the
    #: solutions in which the two are within this distance of each other, when any is
    #: (:func:`~sparkledock.analysis.filter.pair_distances`); the fraction decides otherwise
    pair_within: float | None = option(
        None, "--pair-within", type=float, metavar="A",
        help="with one receptor and one ligand restraint residue: keep the solutions with "
        "the two within this distance (Å) of each other, when any is (dock: 8)",
    )  # fmt: skip


def check_filter_options(options: FilterOptions) -> None:
    """Refuse, before any work and in one line naming the option, a value of the wrong type,
    a contact cutoff or pair distance that is not a positive distance up to 100 Å, a kept
    fraction outside 0..1 (NaN included) or an unknown kind of atoms."""
    check_fields(options, "filter")
    for name in ("cutoff", "pair_within"):
        value = getattr(options, name)
        if value is not None and not 0 < value <= 100.0:
            raise OptionError(
                name, f"{{0}} must be a distance above 0 and up to 100 Å, got {value}"
            )
    if options.fnat is not None and not 0 <= options.fnat <= 1:
        raise OptionError("fnat", f"{{0}} must be a fraction from 0 to 1, got {options.fnat}")
    if len(options.molecules) != 2 or any(m not in MOLECULES for m in options.molecules):
        known = ", ".join(MOLECULES)
        got = options.molecules
        raise OptionError(
            "molecules", f"{{0}} must be two of {known} (receptor, ligand), got {got!r}"
        )


def chain_list(text: str) -> tuple[str, ...]:
    """Chain names from the command line's comma-separated spelling (``H,L``)."""
    return tuple(name.strip() for name in text.split(","))


@dataclass(frozen=True)
class EvaluateOptions:
    """How a model is split into its partners for evaluation: ``receptor_chains``, the
    model's receptor chains (None: a model of two chains, the first is the receptor)."""

    receptor_chains: tuple[str, ...] | None = option(
        None, "--receptor-chains", help="the models' receptor chains, comma-separated (e.g. "
        "H,L for an antibody)", default_text="a model of two chains, the first",
        type=chain_list,
    )  # fmt: skip


def check_evaluate_options(options: EvaluateOptions) -> None:
    """Refuse, before any file is read and in one line naming the option, receptor chains
    that are not a list of chain names."""
    chains = options.receptor_chains
    if chains is None:
        return
    names = isinstance(chains, tuple) and len(chains) > 0
    if not names or any(not isinstance(c, str) or not c or c != c.strip() for c in chains):
        raise OptionError(
            "receptor_chains", f"{{0}} must be one or more chain names (e.g. H,L), got {chains!r}"
        )


#: The model files the stages write.
MODEL_SUFFIXES = (".pdb", ".cif")


def model_suffix(text: str) -> str:
    """A model format as the command line names it (``pdb``, ``cif``) as a file suffix."""
    return "." + text.lstrip(".")


@dataclass(frozen=True)
class ModelOptions:
    """How the top and generate stages write models: ``suffix``, PDB (``.pdb``) or mmCIF
    (``.cif``), by file name (``--format pdb|cif`` on the command line)."""

    suffix: str = option(
        ".pdb", "--format", help="model file format", default_text="pdb", type=model_suffix,
        choices=MODEL_SUFFIXES, metavar="{pdb,cif}",
    )  # fmt: skip


def check_model_options(options: ModelOptions, what: str) -> None:
    """Refuse, before any file is read and in one line naming the option, a value of the
    wrong type or a model format other than PDB or mmCIF."""
    check_fields(options, what)
    if options.suffix not in MODEL_SUFFIXES:
        known = " or ".join(MODEL_SUFFIXES)
        raise OptionError("suffix", f"{what}: {{0}} must be {known}, got {options.suffix!r}")
