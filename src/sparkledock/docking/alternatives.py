"""Alternative restraints: a user with several candidate patches (a predicted epitope, two
conserved surfaces, the halves of a mutagenesis map) gives each as its own restraints file
(``dock R L -r a.list -r b.list``, HADDOCK's habit of one ambiguous set per hypothesis), and
``dock`` docks each one and ranks all their models together.

Each alternative is a whole docking of its own in ``OUT/alternative_<n>/`` (setup, run,
ranking, models, report), so each resumes on its own after a kill; ``OUT`` then holds the
merged ``ranking.csv`` (with the alternative and its own rank per row), the merged top models,
``report.html`` and one ``run.json`` naming every alternative, what its restraints gave
(:func:`sparkledock.molecule.restraints.knowledge_of`) and the merge rule.

The merge (:func:`merge_rankings`) takes the alternatives' ranked models by the run's score,
best first, each alternative keeping its own order, as LightDock's BM5 study merged its patch
runs (TI-50, TI-25) by score.
"""

from __future__ import annotations

import csv
import dataclasses
import heapq
import html
import io
import os
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..analysis.ranking import ALTERNATIVE_LEVEL, default_method
from ..errors import InputFileError, SparkledockError
from ..fileutil import LOCK_NAME, atomic_write_text, folder_lock
from ..molecule.restraints import knowledge_of
from ..runlog import LOGGER, RunRecord, file_record
from .checks import check_docking
from .options import DockOptions, engine_name, with_defaults

#: Each alternative's docking: ``OUT/<prefix><n>`` (n from 1, in the order given).
PREFIX = "alternative_"
#: How the alternatives' models are ranked together (:func:`merge_rankings`).
MERGE_RULE = "score"
#: What the merged docking writes in ``OUT`` besides the alternatives' folders.
MERGED_FILES = ("ranking.csv", "report.html", "run.json")


def merge_rankings(rankings: Sequence[Sequence[dict[str, str]]]) -> list[dict[str, str]]:
    """Every alternative's ranked rows as one ranking, each alternative keeping its own order:
    the next row is the best-scored of the alternatives' next rows (ties: the alternative
    given first), a merge by the run's score that equals sorting by it where each ranking is
    by score; each row gains ``alternative`` (1-based) and ``alternative_rank`` (its rank
    there) and is ranked anew."""
    queues = [
        [(-float(row["score"]), n, own, row) for own, row in enumerate(ranking, start=1)]
        for n, ranking in enumerate(rankings, start=1)
    ]
    merged = []
    for rank, (_, n, own, row) in enumerate(heapq.merge(*queues, key=lambda i: i[:2]), start=1):
        merged.append(
            {**row, "rank": str(rank), "alternative": str(n), "alternative_rank": str(own)}
        )
    return merged


def alternative_options(options: DockOptions) -> DockOptions:
    """The options each alternative docks with: the ranking asked for, else (the sparkledock
    protocol's) the one :func:`~sparkledock.analysis.ranking.default_method` gives a patch
    that may not be the interface (:data:`~sparkledock.analysis.ranking.ALTERNATIVE_LEVEL`),
    whatever its restraints' own level."""
    if options.rank_method is not None or options.protocol != "sparkledock":
        return options
    level = ALTERNATIVE_LEVEL
    method = default_method(True, options.scoring, options.paratope, level)
    return dataclasses.replace(options, rank_method=method)


def check_alternatives(
    receptor: Any, ligand: Any, restraints: Sequence[Any], reference: Any, options: DockOptions
) -> list[dict[str, Any]]:
    """Every alternative checked before any work (each file read, its restraints against the
    partners); what each one's restraints give, and the ranking its docking takes by it."""
    if len(set(map(str, restraints))) < len(restraints):
        raise SparkledockError("{0}: the same file is given twice among alternatives", "restraints")
    decided = with_defaults(options, restrained=True)
    known = []
    for path in restraints:
        partners = check_docking(receptor, ligand, path, reference, decided)
        level = knowledge_of(partners.restraints)
        method = with_defaults(alternative_options(options), True, level.level).rank_method
        known.append({"restraints": str(path), **level.as_dict(), "rank_method": method})
    return known


def _check_folder(out: Path, force: bool) -> None:
    """Refuse a folder holding anything but this kind of docking's files, unless ``force``
    (the merged files are rewritten in any case; each alternative's docking decides on its
    own folder)."""
    if not out.is_dir():
        return
    ours = {*MERGED_FILES, LOCK_NAME}
    foreign = [
        p.name
        for p in out.iterdir()
        if p.name not in ours
        and not p.name.startswith(PREFIX)
        and not (p.name.startswith("top_") and p.suffix in (".pdb", ".cif"))
    ]
    if foreign and not force:
        raise InputFileError(
            f"{out}: output folder holds other files ({foreign[0]}, ...): use another folder"
        )


def dock_alternatives(
    dock: Callable[..., Path | None],
    receptor: str | os.PathLike[str],
    ligand: str | os.PathLike[str],
    out: str | os.PathLike[str],
    restraints: Sequence[str | os.PathLike[str]],
    *,
    reference: str | os.PathLike[str] | None = None,
    options: DockOptions = DockOptions(),  # noqa: B008  (frozen: one shared default)
    force: bool = False,
    comm: Any = None,
) -> Path | None:
    """Dock each alternative restraints file (``dock``: the one-docking function, called
    with each) into ``OUT/alternative_<n>`` and write the merged ranking, models, report and
    run record into ``out``; returns ``out`` (None on MPI ranks other than 0)."""
    out = Path(out)
    lead = comm is None or comm.Get_size() == 1 or comm.Get_rank() == 0
    known = check_alternatives(receptor, ligand, restraints, reference, options) if lead else []
    if lead:
        _check_folder(out, force)
    each = alternative_options(options)
    for n, path in enumerate(restraints, start=1):
        if lead:
            LOGGER.info(f"alternative {n} of {len(restraints)}: {path}")
        dock(receptor, ligand, out / f"{PREFIX}{n}", restraints=path, reference=reference,
             options=each, force=force, comm=comm)  # fmt: skip
    if not lead:
        return None
    decided = with_defaults(options, restrained=True)
    runrec = RunRecord(out, "dock", options=decided, engine=engine_name(decided))
    with folder_lock(out):
        for stale in (*out.glob("top_*.pdb"), *out.glob("top_*.cif")):
            stale.unlink()
        rankings = [_read_ranking(out / f"{PREFIX}{n}") for n in range(1, len(restraints) + 1)]
        merged = merge_rankings(rankings)
        models = []
        for row in merged:
            if len(models) < decided.top and row.get("model"):
                source = out / f"{PREFIX}{row['alternative']}" / row["model"]
                name = f"top_{len(models) + 1}{source.suffix}"
                shutil.copyfile(source, out / name)
                models.append(name)
                row["model"] = name
            else:
                row["model"] = ""
        _write_csv(out / "ranking.csv", merged)
        files = {"receptor": receptor, "ligand": ligand, "reference": reference}
        runrec.inputs = {k: file_record(v) for k, v in files.items() if v is not None}
        runrec.inputs["restraints"] = [file_record(p) for p in restraints]
        for entry, ranking in zip(known, rankings, strict=True):
            entry["ranked"] = len(ranking)
        n = len(restraints)
        runrec.result.update(
            {
                "knowledge": {"level": f"{n} alternatives", "alternatives": known},
                "merge": MERGE_RULE,
                "ranked": len(merged),
                "models": models,
                "top_score": merged[0]["score"] if merged else None,
            }
        )
        if reference is not None and merged:
            runrec.result.update({"top_dockq": merged[0].get("DockQ"),
                                  "top_capri": merged[0].get("CAPRI")})  # fmt: skip
        atomic_write_text(out / "report.html", _report(merged, known, decided.top))
        runrec.finish()
    LOGGER.info(f"{len(restraints)} alternatives ranked together: {len(merged)} models")
    return out


def _read_ranking(folder: Path) -> list[dict[str, str]]:
    path = folder / "ranking.csv"
    if not path.is_file():
        raise SparkledockError(f"{folder}: the alternative's docking left no ranking.csv")
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def _write_csv(path: Path, rows: list[dict[str, str]]) -> None:
    buffer = io.StringIO()
    if rows:
        columns = list(rows[0].keys())
        columns = (
            columns[:1]
            + ["alternative", "alternative_rank"]
            + [c for c in columns[1:] if c not in ("alternative", "alternative_rank")]
        )
        writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    atomic_write_text(path, buffer.getvalue())


def _report(rows: list[dict[str, str]], known: list[dict[str, Any]], top: int) -> str:
    """A short page: the alternatives (what each gave, how many models) and the merged top
    of the ranking; each alternative's own report.html has its plots and 3D view."""
    shown = ("rank", "alternative", "alternative_rank", "score", "model", "DockQ", "CAPRI")
    columns = [c for c in shown if rows and c in rows[0]]
    esc = html.escape
    alt_rows = "".join(
        f"<tr><td>{n}</td><td>{esc(Path(k['restraints']).name)}</td><td>{esc(k['level'])}</td>"
        f"<td>{k['receptor']} / {k['ligand']}</td><td>{k.get('ranked', '')}</td>"
        f"<td><a href='{PREFIX}{n}/report.html'>report</a></td></tr>"
        for n, k in enumerate(known, start=1)
    )
    head = "".join(f"<th>{esc(c)}</th>" for c in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{esc(str(r.get(c, '')))}</td>" for c in columns) + "</tr>"
        for r in rows[: max(top, 10)]
    )
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>sparkledock: "
        f"{len(known)} alternatives</title></head><body><h1>{len(known)} alternative restraint "
        "sets, ranked together</h1><p>Each alternative was docked on its own; their models "
        "are ranked together by the run's score, best first (LightDock's BM5 study's merge)."
        "</p><table border='1'><tr><th>#</th><th>restraints</th><th>knowledge</th>"
        f"<th>receptor / ligand residues</th><th>ranked</th><th></th></tr>{alt_rows}</table>"
        f"<h2>Merged ranking</h2><table border='1'><tr>{head}</tr>{body}</table></body></html>\n"
    )
