"""Many receptor–ligand pairs in one job: ``sparkledock screen PAIRS.csv -o OUT``.

Each pair gets ``OUT/<name>/`` (its ``setup/``, top models, ``ranking.csv``, ``report.html``)
as ``dock`` writes it; ``OUT/summary.csv`` lists the best model of every pair. Under MPI the
setups and analyses are shared out among ranks and the swarms of *all* pairs form one
longest-first task list, so small pairs fill in around large ones. Everything is resumable:
finished setups, swarms (their done markers) and analyses are not redone.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import warnings
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from ..backend import Engine
from ..engine.driver import Execution, run_setups
from ..errors import InputFileError, SparkledockError, SparkledockWarning
from ..fileutil import atomic_write_text, check_output_folder, folder_lock, read_text_input
from ..io.restraints import read_restraints
from ..io.setupdir import SetupDir
from ..molecule.restraints import Knowledge
from ..runlog import LOGGER, RunRecord, file_record, untimed
from .analyse import analyse
from .checks import check_docking
from .knowledge import face_fraction, ligand_face, resolve
from .options import DockOptions, check_options, default_scoring_mode, engine_name
from .pipeline import (
    dock,
    dock_key,
    own_outputs,
    prepare_dock_setup,
    read_record,
    remove_paths,
    write_record,
)
from .sites import redock_sites

REQUIRED = ("name", "receptor", "ligand")
OPTIONAL = ("restraints", "reference")
#: Every pair's outcome: ``done``, ``failed`` (with why) or ``refused`` (checked before any
#: work: a bad row, a bad input, inputs changed since the pair's folder was docked).
OUTCOMES = "screen_summary.csv"


@dataclass(frozen=True)
class Pair:
    """One row of a pairs file (paths resolved against the file's folder); ``problem``: why
    it cannot be docked, when it cannot (:func:`read_pairs` with ``strict=False``)."""

    name: str
    receptor: Path
    ligand: Path
    restraints: Path | None
    problem: str | None = None
    #: the bound complex, when the pairs file gives one: every model is evaluated
    reference: Path | None = None


def read_pairs(path: str | os.PathLike[str], strict: bool = True) -> list[Pair]:
    """Read ``name,receptor,ligand[,restraints]`` rows (a UTF-8 byte-order mark, as
    spreadsheets save, is read as such).

    Raises:
        InputFileError: an unreadable file, a missing column, no rows; and, when ``strict``,
            a row's empty, bad or duplicate name or missing file (naming the file and line).
            Without ``strict`` such a row is a pair with its ``problem``.
    """
    path = Path(path)
    text = read_text_input(path, "pairs").removeprefix("\ufeff")
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
    if missing:
        raise InputFileError(f"{path}:1: missing column {missing[0]!r} (need name,receptor,ligand)")
    extra = [c for c in reader.fieldnames or [] if c not in (*REQUIRED, *OPTIONAL)]
    if extra:
        warnings.warn(
            f"{path}:1: column {extra[0]!r} is not one screen reads "
            "(name, receptor, ligand, restraints, reference); it is ignored",
            SparkledockWarning,
            stacklevel=2,
        )
    pairs: list[Pair] = []
    seen: set[str] = set()
    for line, row in enumerate(reader, start=2):
        name = (row.get("name") or "").strip()
        try:
            pairs.append(_pair(path, line, row, name, seen))
        except InputFileError as exc:
            if strict:
                raise
            pairs.append(Pair(name or f"line {line}", Path(), Path(), None, str(exc)))
        seen.add(name)
    if not pairs:
        raise InputFileError(f"{path}: no pairs")
    return pairs


def _pair(path: Path, line: int, row: dict, name: str, seen: set[str]) -> Pair:
    if None in row:  # more fields than the header has
        raise InputFileError(f"{path}:{line}: more fields than the header's columns")
    if not name or "/" in name or name.startswith(".") or name in (OUTCOMES, "summary.csv"):
        raise InputFileError(f"{path}:{line}: bad pair name {name!r}")
    if name in seen:
        raise InputFileError(f"{path}:{line}: duplicate pair name {name!r}")
    files: dict[str, Path | None] = {}
    for column in (*REQUIRED[1:], *OPTIONAL):
        value = (row.get(column) or "").strip()
        if not value:
            if column in REQUIRED:
                raise InputFileError(f"{path}:{line}: empty {column}")
            files[column] = None
            continue
        file = (path.parent / value).resolve()
        if not file.is_file():
            raise InputFileError(f"{path}:{line}: {column} file {value} not found")
        files[column] = file
    receptor, ligand = files["receptor"], files["ligand"]
    assert receptor is not None and ligand is not None
    return Pair(name, receptor, ligand, files["restraints"], reference=files["reference"])


def screen(
    pairs_file: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    options: DockOptions | None = None,
    comm: Any = None,
    force: bool = False,
) -> Path | None:
    """Dock every good pair of ``pairs_file`` into ``out``; returns ``out/summary.csv``
    (rank 0; the best model of each docked pair). ``out/screen_summary.csv`` holds every
    pair's outcome (:func:`failed_pairs` lists the others).

    Every pair is checked before any work (its row, files, options and inputs, as ``dock``
    checks them); a pair that fails its check or its setup is reported and the others are
    docked. A pair's folder is bound to its inputs and options: a changed pair is refused
    unless ``force``, which docks it afresh."""
    options = options or DockOptions()
    check_options(options)
    rank, size = (comm.Get_rank(), comm.Get_size()) if comm is not None else (0, 1)
    pairs = read_pairs(pairs_file, strict=False)
    if options.scoring_mode is None:  # one run (one scoring mode) for every pair
        restrained = any(pair.restraints for pair in pairs)
        options = replace(options, scoring_mode=default_scoring_mode(options, restrained))
    out = Path(out)
    check_output_folder(out)  # on every rank, before any work (only rank 0 locks)
    with contextlib.ExitStack() as stack:
        if rank == 0:  # one process (job) at a time per screen folder
            stack.enter_context(folder_lock(out))
        runrec = RunRecord(out, "screen", options=options, engine=engine_name(options))
        runrec.inputs = {"pairs": file_record(pairs_file)}
        summary = _screen(pairs, out, options, comm, rank, size, runrec, force)
        if rank == 0:
            failed = failed_pairs(out)
            runrec.finish(pairs=len(pairs), failed=len(failed), summary="summary.csv")
        return summary


def failed_pairs(out: str | os.PathLike[str]) -> list[str]:
    """The pairs of the screen in ``out`` that were not docked (from its outcomes file)."""
    with (Path(out) / OUTCOMES).open(newline="") as handle:
        return [r["pair"] for r in csv.DictReader(handle) if r["status"] != "done"]


def _known(options: DockOptions, pair: Pair) -> tuple[DockOptions, Knowledge | None]:
    """The pair's options, the protocol resolved for what its restraints give, as ``dock``
    resolves it (:func:`.knowledge.resolve`), and that level of knowledge."""
    restraints = read_restraints(pair.restraints) if pair.restraints is not None else None
    return resolve(options, restraints)


def _own(options: DockOptions, pair: Pair) -> DockOptions:
    """The pair's options (:func:`_known`)."""
    return _known(options, pair)[0]


def _check(pair: Pair, out: Path, options: DockOptions, force: bool) -> tuple[str | None, str]:
    """Why ``pair`` cannot be docked, checked before any work (None: it can), and its
    docking's key: its row, its inputs and options as ``dock`` checks them, and its folder's
    binding to its inputs (a pair whose inputs or options changed since its folder was docked
    is refused, unless ``force``, which removes that docking's files)."""
    if pair.problem is not None:
        return pair.problem, ""
    try:
        own = _own(options, pair)
        check_docking(pair.receptor, pair.ligand, pair.restraints, pair.reference, own)
        key = dock_key(pair.receptor, pair.ligand, pair.restraints, own)
    except SparkledockError as exc:
        return str(exc), ""
    folder = out / pair.name
    record = read_record(folder) if folder.is_dir() else {}
    if record and record.get("key") != key:
        if not force:
            why = (
                f"its inputs or options changed since {folder} was docked (--force docks it afresh)"
            )
            return why, key
        remove_paths(own_outputs(folder))
    return None, key


def _screen(
    pairs: list[Pair],
    out: Path,
    options: DockOptions,
    comm: Any,
    rank: int,
    size: int,
    runrec: RunRecord,
    force: bool,
) -> Path | None:
    stage = runrec.stage if rank == 0 else untimed
    refused: list[tuple[str, str] | None] = [None] * len(pairs)  # by row (names may repeat)
    with stage("check", f"{len(pairs)} pairs") as info:
        checked = [_check(p, out, options, force) if rank == 0 else (None, "") for p in pairs]
        if comm is not None:
            checked = comm.bcast(checked, root=0)
        keys = {p.name: key for p, (problem, key) in zip(pairs, checked, strict=True) if key}
        for i, (pair, (problem, _)) in enumerate(zip(pairs, checked, strict=True)):
            if problem is not None:
                refused[i] = ("refused", problem)
                LOGGER.warning(f"pair {pair.name}: refused: {problem}")
        good = [p for p, r in zip(pairs, refused, strict=True) if r is None]
        info["summary"] = f"{len(good)} of {len(pairs)} pairs can be docked"
    outcome: dict[str, tuple[str, str]] = {}  # the checked pairs' (their names are unique)
    with stage("setups", f"{len(good)} pairs"):
        failed = _setups(good, keys, out, options, comm, rank, size)
        outcome.update({name: ("failed", why) for name, why in failed.items()})
    good = [p for p in good if p.name not in outcome]
    setups = [out / p.name / "setup" for p in good]
    execution = Execution(
        engine=options.engine or Engine(), threads=options.threads, quiet=options.quiet
    )
    with stage("run", f"{len(good)} pairs, {options.steps} steps"):
        results = (
            run_setups(
                setups,
                options.steps,
                execution,
                scoring=options.scoring,
                seed=options.seed,
                scoring_mode=options.scoring_mode,
                comm=comm,
                stop_tolerance=[_own(options, p).stop_tolerance or 0.0 for p in good],
            )
            if good
            else []
        )
    rows, analysed = [], {}
    with stage("analyses", "cluster, rank, filter, models, report per pair"):
        for i, pair in enumerate(good):  # analyses, shared out round-robin
            if i % size != rank:
                continue
            try:
                _analyse(pair, out, options, setups[i], results[i].history, runrec.engine)
                rows.append(_summary_row(pair, out))
                analysed[pair.name] = ("done", "")
            except SparkledockError as exc:
                analysed[pair.name] = ("failed", str(exc))
    if comm is not None:
        gathered = comm.gather((rows, analysed), root=0)
        if rank != 0:
            return None
        rows = [r for part, _ in gathered for r in part]
        for _, done in gathered:
            analysed.update(done)
    outcome.update(analysed)
    _write_outcomes(
        out, pairs, [r or outcome.get(p.name) for p, r in zip(pairs, refused, strict=True)]
    )
    order = {p.name: i for i, p in enumerate(pairs)}
    rows.sort(key=lambda r: order[r["name"]])
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=SUMMARY_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    atomic_write_text(out / "summary.csv", buffer.getvalue())
    return out / "summary.csv"


def _analyse(pair: Pair, out: Path, options: DockOptions, setup: Path, history, engine) -> None:
    """A docked pair's analysis (unless done), recorded in its folder's run.json."""
    if (out / pair.name / "ranking.csv").is_file():
        return
    own, known = _known(options, pair)
    quiet = replace(own, quiet=True)
    pair_record = RunRecord(out / pair.name, "screen pair", options=quiet, engine=engine)
    if known is not None:  # (what the restraints gave, as dock records it)
        pair_record.result["knowledge"] = known.as_dict()
    files = {"receptor": pair.receptor, "ligand": pair.ligand, "restraints": pair.restraints}
    files["reference"] = pair.reference
    pair_record.inputs = {k: file_record(v) for k, v in files.items() if v}
    sites = None
    if quiet.redock_sites != 0 and not pair.restraints:  # (a blind pair, as dock does)
        folder = out / pair.name
        sites = partial(redock_sites, folder, pair.receptor, pair.ligand, quiet, dock=dock)
    analyse(
        out / pair.name, setup, pair.restraints, pair.reference, quiet, history,
        runrec=pair_record, sites=sites,
    )  # fmt: skip
    pair_record.finish()


def _write_outcomes(out: Path, pairs: list[Pair], outcomes: list[tuple[str, str] | None]) -> None:
    """``screen_summary.csv``: one row per row of the pairs file, in its order."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["pair", "status", "message", "folder"])
    for pair, outcome in zip(pairs, outcomes, strict=True):
        status, message = outcome or ("failed", "not docked")
        folder = out / pair.name
        docked = status != "refused" and folder.is_dir()
        writer.writerow([pair.name, status, message, str(folder) if docked else ""])
    atomic_write_text(out / OUTCOMES, buffer.getvalue())


def _setups(
    pairs: list[Pair],
    keys: dict[str, str],
    out: Path,
    options: DockOptions,
    comm: Any,
    rank: int,
    size: int,
) -> dict[str, str]:
    """Every pair's setup (shared out round-robin), its folder bound to its inputs and
    options by its docking's key (``keys``, by pair, from the check); returns the pairs
    whose setup failed, with why (every rank gets them all)."""
    failed: dict[str, str] = {}
    for i, pair in enumerate(pairs):  # setups, shared out round-robin
        folder = out / pair.name
        if i % size != rank or SetupDir(folder / "setup").setup_json.is_file():
            continue
        own, known = _known(options, pair)
        try:
            partners = None  # (read again where the ligands start facing the restraints)
            if face_fraction(own, known) > 0:
                args = (pair.receptor, pair.ligand, pair.restraints, pair.reference, own)
                partners = check_docking(*args)
                ligand_face(partners, own, known)
            prepare_dock_setup(pair.receptor, pair.ligand, folder, pair.restraints, own, partners)
            write_record(folder, keys[pair.name], "setup")
        except SparkledockError as exc:
            failed[pair.name] = str(exc)
            LOGGER.warning(f"pair {pair.name}: setup failed: {exc}")
    if comm is not None:
        for part in comm.allgather(failed):
            failed.update(part)
    return failed


SUMMARY_COLUMNS = [
    "name", "best_score", "best_model", "swarm", "glowworm", "solutions", "best_dockq",
    "best_capri",
]  # fmt: skip


def _summary_row(pair: Pair, out: Path) -> dict[str, Any]:
    with (out / pair.name / "ranking.csv").open() as handle:
        ranking = list(csv.DictReader(handle))
    best = ranking[0] if ranking else {}
    scores = np.array([float(r["score"]) for r in ranking]) if ranking else np.zeros(0)
    return {
        "name": pair.name,
        "best_score": best.get("score", ""),
        "best_model": f"{pair.name}/{best['model']}" if best.get("model") else "",
        "swarm": best.get("swarm", ""),
        "glowworm": best.get("glowworm", ""),
        "solutions": len(scores),
        "best_dockq": best.get("DockQ", ""),
        "best_capri": best.get("CAPRI", ""),
    }
