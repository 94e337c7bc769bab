"""What a docking gives back: :class:`DockResult` (ranking.csv, run.json and the files a
finished docking folder holds, read back) and the bundled example's files."""

from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import SparkledockError
from ..runlog import RUN_JSON


def _typed(value: str) -> Any:
    """A ranking.csv cell as a number where it is one (empty cells: None)."""
    if value == "":
        return None
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


@dataclass(frozen=True)
class DockResult:
    """What :func:`dock` made: the ranked solutions, the files written, the timings."""

    folder: Path
    #: one dict per ranked solution, best first: ranking.csv's columns (rank, score, model,
    #: swarm, glowworm, score terms, DockQ/CAPRI with a reference), numbers as numbers
    models: list[dict[str, Any]]
    #: the files the docking wrote in ``folder`` (models, ranking.csv, report.html, run.json)
    files: list[Path]
    #: seconds per stage (setup, run, cluster, rank, filter, models, evaluate, report)
    timings: dict[str, float]
    #: run.json as a dict
    record: dict[str, Any]

    @property
    def top(self) -> dict[str, Any]:
        """The best-ranked solution (an empty dict when nothing was ranked)."""
        return self.models[0] if self.models else {}

    def model_paths(self) -> list[Path]:
        """The written models, best first."""
        return [self.folder / m["model"] for m in self.models if m.get("model")]

    def to_dataframe(self) -> Any:
        """The ranked solutions as a pandas DataFrame (pandas is not a dependency: a one-line
        error says so where it is not installed)."""
        try:
            import pandas
        except ImportError:
            raise SparkledockError(
                "DockResult.to_dataframe needs pandas (pip install pandas); result.models is "
                "the same table as a list of dicts"
            ) from None
        return pandas.DataFrame(self.models)


def example_files() -> dict[str, Path]:
    """The bundled 2X9A example's files: ``receptor``, ``ligand``, ``restraints`` (LightDock's
    format) and ``reference`` (the bound complex), as ``dock --example`` docks them."""
    from importlib import resources

    folder = Path(str(resources.files("sparkledock").joinpath("data/example")))
    names = {
        "receptor": "2X9A_r_u.pdb",
        "ligand": "2X9A_l_u.pdb",
        "restraints": "restraints.list",
        "reference": "2X9A_target.pdb",
    }
    return {key: folder / name for key, name in names.items()}


def read_dock_result(folder: str | os.PathLike[str]) -> DockResult:
    """The :class:`DockResult` of a finished docking folder (``ranking.csv``, ``run.json``)."""
    folder = Path(folder)
    table = folder / "ranking.csv"
    if not table.is_file():
        raise SparkledockError(f"{folder}: no ranking.csv (not a finished docking)")
    with table.open(newline="") as handle:
        models = [{k: _typed(v) for k, v in row.items()} for row in csv.DictReader(handle)]
    record_file = folder / RUN_JSON
    record = json.loads(record_file.read_text()) if record_file.is_file() else {}
    timings = {s["name"]: s["seconds"] for s in record.get("stages", [])}
    names = {"ranking.csv", "report.html", RUN_JSON}
    files = sorted(p for p in folder.iterdir() if p.name in names or p.name.startswith("top_"))
    return DockResult(folder, models, files, timings, record)
