"""Everything a docking can be refused for, checked before any work.

``dock`` (the CLI's, the Python API's, each pair of a screen) calls :func:`check_docking`
before it takes its folder's lock, so a refused docking writes nothing: option ranges, the
input files, the scoring function against the search mode, backend and normal modes, the
ranking method against the setup it needs (restraints, ``--paratope``, an installed extra,
molecule types its functions can score), and the memory one swarm needs.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from types import SimpleNamespace

from ..backend import human_size, require_memory
from ..engine.memory import swarm_bytes
from ..engine.spec import FAST_MODES, SAVE_EVERY
from ..errors import OptionError, SparkledockWarning
from ..fileutil import check_input_file
from ..molecule.structure import read_structure
from ..preparation.inputs import ReadPartners, read_partners
from ..preparation.prepare import SetupOptions, pose_size
from ..scoring import check_installed, check_molecules, get_scoring
from .options import DockOptions, check_options, check_ranking, dock_setup_options

#: Runs longer than this are told what their snapshots cost.
MANY_STEPS = 10_000
#: The scoring functions each ranking method re-scores with (beyond the search's).


def check_scoring(options: DockOptions) -> None:
    """The search's scoring function can run as asked: its mode, backend, normal modes and
    the packages it needs."""
    function = get_scoring(options.scoring)  # (unknown names, bad weights, duplicates)
    name = options.scoring
    check_installed(function, "scoring", name)
    weights = [w for _, w in getattr(function, "terms", [])]
    if weights and all(w < 0 for w in weights):
        warnings.warn(
            f"scoring {name}: every weight is negative, so the search favours the poses "
            "each function scores worst",
            SparkledockWarning,
            stacklevel=2,
        )
    if options.scoring_mode in FAST_MODES and not hasattr(function, "fast_scorer"):
        raise OptionError(
            ("scoring", "scoring_mode"),
            f"{{0}} {name}: no fast mode (only dfire has one); use {{1}} exact",
        )
    engine = options.engine
    if engine is not None and engine.backend not in function.backends:
        known = ", ".join(sorted(function.backends))
        raise OptionError(
            "scoring", f"{{0}} {name}: no {engine.backend!r} backend (available: {known})"
        )
    if options.anm and getattr(function, "rigid_only", False):
        raise OptionError(
            ("scoring", "anm"),
            f"{{0}} {name} scores rigid bodies only (no normal-mode support, as in LightDock): "
            "dock without normal modes (without {1})",
        )


def check_ranked_molecules(functions: tuple[str, ...], raw, paths) -> None:
    """Every function a ranking re-scores with can type both partners (``raw``: as read)."""
    for path, atoms in zip(paths, raw, strict=True):
        for name in functions:
            said = f"{path} (rank_method {name})"
            check_molecules(get_scoring(name), SimpleNamespace(atoms=atoms), said)


def check_docking(
    receptor: str | os.PathLike[str],
    ligand: str | os.PathLike[str],
    restraints: str | os.PathLike[str] | None,
    reference: str | os.PathLike[str] | None,
    options: DockOptions,
) -> ReadPartners:
    """Refuse, in one line naming the option or file, a docking that cannot run to its end;
    returns the partners and restraints as read (the setup takes them: each is parsed once).

    ``options`` are the docking's with the protocol's defaults decided
    (:func:`~.options.with_defaults`).
    """
    check_options(options)
    files = {"receptor": receptor, "ligand": ligand, "restraints": restraints}
    for what, path in (*files.items(), ("reference", reference)):
        if path is not None:
            check_input_file(path, what)
    check_scoring(options)
    functions = check_ranking(options, restraints is not None)
    size = pose_size(SetupOptions(anm=bool(options.anm)))  # (a docking's setup: default modes)
    if options.steps > MANY_STEPS:
        snapshots = options.steps // SAVE_EVERY + 1
        each = options.glowworms * (size + 5) * 14  # (about 14 bytes a number)
        warnings.warn(
            SparkledockWarning(
                f"{{0}} {options.steps}: each swarm writes a gso snapshot every {SAVE_EVERY} "
                f"steps, {snapshots:,} files of about {human_size(each)} "
                f"({human_size(snapshots * each)} per swarm)",
                "steps",
            ),
            stacklevel=2,
        )
    require_memory(
        swarm_bytes(options.glowworms, size), f"a swarm of {options.glowworms} glowworms"
    )
    # the partners and restraints, read once: what the ranking scores must be able to type,
    # then everything the setup can refuse of them (the setup takes them as read)
    raw = read_structure(receptor), read_structure(ligand)
    check_ranked_molecules(functions, raw, (receptor, ligand))
    setup_options = dock_setup_options(options)
    return read_partners(Path(receptor), Path(ligand), restraints, setup_options, raw)
