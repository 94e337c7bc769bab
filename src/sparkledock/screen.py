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
from pathlib import Path
from typing import Any

import numpy as np

from .backend import Engine
from .docking import (
    DockOptions,
    analyse,
    check_options,
    default_scoring_mode,
    engine_name,
    prepare_dock_setup,
    with_defaults,
)
from .engine.driver import RunOptions, run_setups
from .errors import InputFileError, SparkledockError, SparkledockWarning
from .fileutil import atomic_write_text, check_output_folder, folder_lock, read_text_input
from .io.setupdir import SetupDir
from .runlog import RunRecord, file_record, untimed

REQUIRED = ("name", "receptor", "ligand")


@dataclass(frozen=True)
class Pair:
    """One row of a pairs file (paths resolved against the file's folder)."""

    name: str
    receptor: Path
    ligand: Path
    restraints: Path | None


def read_pairs(path: str | os.PathLike[str]) -> list[Pair]:
    """Read ``name,receptor,ligand[,restraints]`` rows.

    Raises:
        InputFileError: a missing column, empty or duplicate name, or missing file (naming the
            file and line).
    """
    path = Path(path)
    text = read_text_input(path, "pairs")
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
    if missing:
        raise InputFileError(f"{path}:1: missing column {missing[0]!r} (need name,receptor,ligand)")
    extra = [c for c in reader.fieldnames or [] if c not in (*REQUIRED, "restraints")]
    if extra:
        warnings.warn(
            f"{path}:1: column {extra[0]!r} is not one screen reads "
            "(name, receptor, ligand, restraints); it is ignored",
            SparkledockWarning,
            stacklevel=2,
        )
    pairs: list[Pair] = []
    seen: set[str] = set()
    for line, row in enumerate(reader, start=2):
        if None in row:  # more fields than the header has
            raise InputFileError(f"{path}:{line}: more fields than the header's columns")
        name = (row.get("name") or "").strip()
        if not name or "/" in name or name.startswith("."):
            raise InputFileError(f"{path}:{line}: bad pair name {name!r}")
        if name in seen:
            raise InputFileError(f"{path}:{line}: duplicate pair name {name!r}")
        seen.add(name)
        files = {}
        for column in ("receptor", "ligand", "restraints"):
            value = (row.get(column) or "").strip()
            if not value:
                if column != "restraints":
                    raise InputFileError(f"{path}:{line}: empty {column}")
                files[column] = None
                continue
            file = (path.parent / value).resolve()
            if not file.is_file():
                raise InputFileError(f"{path}:{line}: {column} file {value} not found")
            files[column] = file
        pairs.append(Pair(name, files["receptor"], files["ligand"], files["restraints"]))
    if not pairs:
        raise InputFileError(f"{path}: no pairs")
    return pairs


def screen(
    pairs_file: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    options: DockOptions | None = None,
    comm: Any = None,
) -> Path | None:
    """Dock every pair of ``pairs_file`` into ``out``; returns ``out/summary.csv`` (rank 0)."""
    options = options or DockOptions()
    check_options(options)
    rank, size = (comm.Get_rank(), comm.Get_size()) if comm is not None else (0, 1)
    pairs = read_pairs(pairs_file)
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
        summary = _screen(pairs, out, options, comm, rank, size, runrec)
        if rank == 0:
            runrec.finish(pairs=len(pairs), summary="summary.csv")
        return summary


def _screen(
    pairs: list[Pair],
    out: Path,
    options: DockOptions,
    comm: Any,
    rank: int,
    size: int,
    runrec: RunRecord,
) -> Path | None:
    stage = runrec.stage if rank == 0 else untimed
    with stage("setups", f"{len(pairs)} pairs"):
        _setups(pairs, out, options, comm, rank, size)
    setups = [out / p.name / "setup" for p in pairs]
    run_options = RunOptions(
        engine=options.engine or Engine(), threads=options.threads, quiet=options.quiet
    )
    with stage("run", f"{len(pairs)} pairs, {options.steps} steps"):
        results = run_setups(
            setups,
            options.steps,
            run_options,
            scoring=options.scoring,
            seed=options.seed,
            scoring_mode=options.scoring_mode,
            comm=comm,
            stop_tolerance=[
                with_defaults(options, bool(pair.restraints)).stop_tolerance or 0.0
                for pair in pairs
            ],
        )
    rows = []
    with stage("analyses", "cluster, rank, filter, models, report per pair"):
        for i, pair in enumerate(pairs):  # analyses, shared out round-robin
            if i % size != rank:
                continue
            ranking = out / pair.name / "ranking.csv"
            if not ranking.is_file():
                quiet = with_defaults(replace(options, quiet=True), bool(pair.restraints))
                pair_record = RunRecord(
                    out / pair.name, "screen pair", options=quiet, engine=runrec.engine
                )
                files = {"receptor": pair.receptor, "ligand": pair.ligand}
                files["restraints"] = pair.restraints
                pair_record.inputs = {k: file_record(v) for k, v in files.items() if v}
                analyse(
                    out / pair.name,
                    setups[i],
                    pair.restraints,
                    None,
                    quiet,
                    results[i].history,
                    runrec=pair_record,
                )
                pair_record.finish()
            rows.append(_summary_row(pair, out))
    if comm is not None:
        gathered = comm.gather(rows, root=0)
        if rank != 0:
            return None
        rows = [r for part in gathered for r in part]
    order = {p.name: i for i, p in enumerate(pairs)}
    rows.sort(key=lambda r: order[r["name"]])
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    atomic_write_text(out / "summary.csv", buffer.getvalue())
    return out / "summary.csv"


def _setups(
    pairs: list[Pair], out: Path, options: DockOptions, comm: Any, rank: int, size: int
) -> None:
    """Every pair's setup (shared out round-robin); a failure stops every rank."""
    error: SparkledockError | None = None
    for i, pair in enumerate(pairs):  # setups, shared out round-robin
        setup_dir = out / pair.name / "setup"
        if i % size != rank or SetupDir(setup_dir).setup_json.is_file():
            continue
        try:
            own = with_defaults(options, bool(pair.restraints))  # the pair's swarm rule
            prepare_dock_setup(pair.receptor, pair.ligand, out / pair.name, pair.restraints, own)
        except SparkledockError as exc:
            error = SparkledockError(f"pair {pair.name}: {exc}")
            break
    errors = comm.allgather(error) if comm is not None else [error]
    failed = [r for r, e in enumerate(errors) if e is not None]
    if failed:  # every rank stops; the rank that failed prints the line
        error = errors[failed[0]]
        error.shared, error.echo = True, failed[0] != rank
        raise error


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
    }
