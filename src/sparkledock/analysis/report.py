"""The docking report: one self-contained HTML page that opens offline.

Sections: the run (parameters and provenance from run.json), a summary line (with a reference:
acceptable or better in the top 1 / 5 / 10), an interactive 3D view of the top models on the
receptor (3Dmol.js, bundled in the package and inlined: no network needed), the ranked models
(score, cluster size, restraint satisfaction and, with a reference, fnat / iRMSD / LRMSD /
DockQ / CAPRI for every ranked model), the clusters (size, best and mean score,
representative), and plots drawn as inline SVG: score per GSO step, convergence per swarm
(the best score of the top models' swarms at every saved step against the spread over all
swarms) and each swarm's final best score, cluster populations and, with a reference, score
against DockQ over every ranked model. No plotting library is needed.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ..fileutil import atomic_write_text
from .contacts import consensus_interface
from .convergence import SwarmConvergence

#: ligand colours in the viewer and the plots, best model first
COLOURS = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd",
           "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"]  # fmt: skip
#: rows of the ranked-model and cluster tables shown (all are in ranking.csv)
TABLE_ROWS = 200
ACCEPTABLE = 0.23


@dataclass(frozen=True)
class Cluster:
    """One cluster of a swarm's final glowworms."""

    swarm: int
    representative: int
    size: int
    best: float
    mean: float


def viewer_script() -> str:
    """3Dmol.js (BSD-3-Clause, bundled: ``data/viewer``)."""
    return (resources.files("sparkledock") / "data" / "viewer" / "3Dmol-min.js").read_text()


def _esc(value: Any) -> str:
    return html.escape("" if value is None else str(value))


def _js(value: Any) -> str:
    """A value as a JavaScript literal that is safe inside a <script> element."""
    return json.dumps(value).replace("</", "<\\/")


def _table(rows: Sequence[dict[str, Any]], columns: Sequence[str], cls: str = "") -> str:
    head = "".join(f"<th>{_esc(c)}</th>" for c in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{_esc(r.get(c, ''))}</td>" for c in columns) + "</tr>" for r in rows
    )
    return f"<table class='{cls}'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


# --- inline SVG plots ------------------------------------------------------------------------

W, H, PAD = 560, 300, 48


def _scale(values: Sequence[float], lo_px: float, hi_px: float):
    lo, hi = (min(values), max(values)) if values else (0.0, 1.0)
    if hi == lo:
        lo, hi = lo - 0.5, hi + 0.5
    return (lambda v: lo_px + (v - lo) / (hi - lo) * (hi_px - lo_px)), lo, hi


def _axes(xlabel: str, ylabel: str, xr: tuple[float, float], yr: tuple[float, float]) -> str:
    x0, x1, y0, y1 = PAD, W - 10, H - PAD + 10, 10
    parts = [
        f"<line x1='{x0}' y1='{y0}' x2='{x1}' y2='{y0}' stroke='#333'/>",
        f"<line x1='{x0}' y1='{y0}' x2='{x0}' y2='{y1}' stroke='#333'/>",
        f"<text x='{(x0 + x1) / 2}' y='{H - 6}' text-anchor='middle'>{_esc(xlabel)}</text>",
        f"<text x='12' y='{(y0 + y1) / 2}' text-anchor='middle' "
        f"transform='rotate(-90 12 {(y0 + y1) / 2})'>{_esc(ylabel)}</text>",
        f"<text x='{x0}' y='{y0 + 16}' text-anchor='middle'>{xr[0]:.3g}</text>",
        f"<text x='{x1}' y='{y0 + 16}' text-anchor='end'>{xr[1]:.3g}</text>",
        f"<text x='{x0 - 4}' y='{y0}' text-anchor='end'>{yr[0]:.3g}</text>",
        f"<text x='{x0 - 4}' y='{y1 + 10}' text-anchor='end'>{yr[1]:.3g}</text>",
    ]
    return "".join(parts)


#: width of the legend column right of a line plot (the legend never covers a line)
LEGEND = 170


def _svg(title: str, inner: str, extra: int = 0) -> str:
    width = W + extra
    return (
        f"<figure><figcaption>{_esc(title)}</figcaption><svg class='plot' viewBox='0 0 {width} "
        f"{H}' width='{width}' height='{H}' font-size='11' font-family='sans-serif'>{inner}"
        "</svg></figure>"
    )


def line_plot(title: str, x: Sequence[float], series: dict[str, Sequence[float]], xlabel: str,
              ylabel: str) -> str:  # fmt: skip
    """Lines over a shared x (score per step)."""
    every = [v for s in series.values() for v in s]
    fx, xlo, xhi = _scale(list(x), PAD, W - 10)
    fy, ylo, yhi = _scale(every, H - PAD + 10, 10)
    inner = _axes(xlabel, ylabel, (xlo, xhi), (ylo, yhi))
    for k, (name, ys) in enumerate(series.items()):
        points = " ".join(f"{fx(a):.1f},{fy(b):.1f}" for a, b in zip(x, ys, strict=True))
        colour = COLOURS[k % len(COLOURS)]
        inner += f"<polyline fill='none' stroke='{colour}' stroke-width='1.5' points='{points}'/>"
        y = 24 + 16 * k
        inner += f"<line x1='{W + 4}' x2='{W + 22}' y1='{y - 4}' y2='{y - 4}' stroke='{colour}' "
        inner += f"stroke-width='2'/><text x='{W + 26}' y='{y}' fill='{colour}'>{_esc(name)}</text>"
    return _svg(title, inner, LEGEND)


#: swarms of the top models drawn one by one in the convergence plot
CONVERGENCE_SWARMS = 5


def convergence_plot(convergence: SwarmConvergence, top_swarms: Sequence[int], label: str) -> str:
    """Best score per saved step of the (up to :data:`CONVERGENCE_SWARMS`) swarms holding the
    top models, and the median and 10th-90th percentiles over every swarm; steps whose
    snapshot is missing for a drawn line are left out."""
    row = {int(s): i for i, s in enumerate(convergence.swarms)}
    tops = [int(s) for s in top_swarms]
    picked = [s for s in dict.fromkeys(tops) if s in row][:CONVERGENCE_SWARMS]
    series = {f"swarm {s} (top {tops.index(s) + 1})": convergence.best[row[s]] for s in picked}
    series.update(convergence.summary())
    keep = np.all([np.isfinite(v) for v in series.values()], axis=0)
    if not keep.any():
        return ""
    title = (
        f"Convergence per swarm: best score per saved step ({len(picked)} swarms of the top "
        f"models; median and 10th/90th percentiles of all {len(convergence.swarms)})"
    )
    return line_plot(
        title,
        [float(x) for x in convergence.steps[keep]],
        {name: [float(v) for v in values[keep]] for name, values in series.items()},
        "GSO step",
        label,
    )


def scatter_plot(title: str, x: Sequence[float], y: Sequence[float], xlabel: str, ylabel: str,
                 highlight: int = 0, hline: float | None = None) -> str:  # fmt: skip
    """Points; the first ``highlight`` drawn in the top models' colours."""
    fx, xlo, xhi = _scale(list(x), PAD, W - 10)
    fy, ylo, yhi = _scale([*y, *([hline] if hline is not None else [])], H - PAD + 10, 10)
    inner = _axes(xlabel, ylabel, (xlo, xhi), (ylo, yhi))
    if hline is not None:
        inner += (
            f"<line x1='{PAD}' x2='{W - 10}' y1='{fy(hline):.1f}' y2='{fy(hline):.1f}' "
            "stroke='#999' stroke-dasharray='4 3'/>"
        )
    order = list(range(len(x)))[::-1]  # the best drawn last, on top
    for i in order:
        top = i < highlight
        colour = COLOURS[i % len(COLOURS)] if top else "#4c72b0"
        radius = 5 if top else 3.2
        inner += (
            f"<circle cx='{fx(x[i]):.1f}' cy='{fy(y[i]):.1f}' r='{radius}' fill='{colour}' "
            f"fill-opacity='{0.95 if top else 0.7}' stroke='white' stroke-width='0.6'/>"
        )
    return _svg(title, inner)


def histogram(title: str, values: Sequence[int], xlabel: str, ylabel: str) -> str:
    """Counts of integer values (cluster sizes)."""
    values = list(values) or [0]
    top = max(values)
    counts = [0] * (top + 1)
    for v in values:
        counts[v] += 1
    fx, _, _ = _scale([0.5, top + 0.5], PAD, W - 10)
    fy, ylo, yhi = _scale([0, max(counts)], H - PAD + 10, 10)
    inner = _axes(xlabel, ylabel, (0.5, top + 0.5), (ylo, yhi))
    width = max(1.0, fx(1.5) - fx(0.5) - 1)
    for v, c in enumerate(counts):
        if c:
            inner += (
                f"<rect x='{fx(v - 0.5):.1f}' y='{fy(c):.1f}' width='{width:.1f}' "
                f"height='{fy(0) - fy(c):.1f}' fill='#4c72b0'/>"
            )
    return _svg(title, inner)


# --- the page ---------------------------------------------------------------------------------

STYLE = """
body{font-family:sans-serif;margin:1.5em;max-width:1200px;color:#222}
table{border-collapse:collapse;font-size:12px;margin:0.5em 0}
th,td{border:1px solid #ccc;padding:2px 6px;text-align:right}
th{background:#f0f0f0}
.scroll{max-height:420px;overflow:auto;display:inline-block}
#viewer{width:100%;height:540px;position:relative;border:1px solid #ccc}
figure{display:inline-block;margin:0.5em}
.summary{font-size:1.1em;background:#f6f6ff;padding:0.6em;border-left:4px solid #1f77b4}
.summary li{margin:0.2em 0}
.side{display:flex;gap:2em;align-items:flex-start}
code{font-size:11px}
"""


def success_line(rows: Sequence[dict[str, Any]]) -> str:
    """``acceptable or better in the top 1 / 5 / 10: yes / no / yes`` (DockQ ≥ 0.23)."""
    marks = []
    for n in (1, 5, 10):
        hits = [r for r in rows[:n] if isinstance(r.get("DockQ"), (int, float))]
        marks.append("yes" if any(r["DockQ"] >= ACCEPTABLE for r in hits) else "no")
    return "acceptable or better in the top 1 / 5 / 10: " + " / ".join(marks)


#: the top models whose scores a top model is compared with
NEXT = 4
#: a top model within this share of |its score| of the next one does not stand out
CLOSE = 0.05


def summary_lines(rows: Sequence[dict[str, Any]], reference: bool) -> list[str]:
    """What a user should look at, in order: the top model (score, cluster size, restraints),
    whether it stands out from the next ones, and its quality against the reference (or why
    there is none)."""
    if not rows:
        return ["No solution was ranked: nothing to look at (see the run's stages below)."]
    top = rows[0]
    model = top.get("model") or "the top model"
    line = f"Look first at {model}: score {top.get('score')}"
    if top.get("cluster_size") not in (None, ""):
        line += f", a cluster of {top['cluster_size']} glowworms"
    if top.get("restraints") not in (None, ""):
        line += f", {float(top['restraints']):.0%} of the restraint residues in contact"
    lines = [f"{len(rows)} ranked models. {line}."]
    scores = [float(r["score"]) for r in rows[: NEXT + 1] if r.get("score") not in (None, "")]
    if len(scores) > 1:
        close = [s for s in scores[1:] if abs(scores[0] - s) <= CLOSE * max(1.0, abs(scores[0]))]
        nxt = ", ".join(f"{s:g}" for s in scores[1:])
        if close:
            lines.append(
                f"It does not stand out: {len(close)} of the next {len(scores) - 1} score within "
                f"{CLOSE:.0%} of it ({nxt}); look at them too (their interfaces are below)."
            )
        else:
            lines.append(f"It stands out from the next {len(scores) - 1} (scores {nxt}).")
    if reference:
        lines.append(
            f"Against the reference: DockQ {top.get('DockQ', '–')} ({top.get('CAPRI', '')}); "
            + success_line(rows)
            + "."
        )
    else:
        lines.append(
            "Evaluation skipped: no reference was given (--reference with the bound complex "
            "adds fnat, iRMSD, LRMSD, DockQ and the CAPRI class of every model)."
        )
    return lines


def interface_csv(consensus: Sequence[dict[str, Any]], models: int) -> str:
    """The consensus interface (:func:`~.contacts.consensus_interface`) as CSV: partner,
    residue, models (in how many of the top ``models`` it is)."""
    text = "partner,residue,models,of\n"
    return text + "".join(
        f"{r['partner']},{r['residue']},{r['models']},{models}\n" for r in consensus
    )


def _interfaces(
    interfaces: Sequence[tuple[Sequence[str], Sequence[str]]], consensus: Sequence[dict[str, Any]]
) -> str:
    from urllib.parse import quote

    n = len(interfaces)
    per_model = [
        {
            "model": f"top_{k + 1}",
            "receptor residues": f"{len(rec)}: {' '.join(rec)}",
            "ligand residues": f"{len(lig)}: {' '.join(lig)}",
        }
        for k, (rec, lig) in enumerate(interfaces)
    ]
    shown = [{**r, "models": f"{r['models']} of {n}"} for r in consensus]
    link = (
        f"<a download='interface.csv' href='data:text/csv;charset=utf-8,"
        f"{quote(interface_csv(consensus, n))}'>download the consensus as CSV</a> "
        "(also interface.csv in the docking folder)"
    )
    return (
        f"<h2>Interfaces of the top {n} models</h2>"
        "<p>Residues with an atom within 5 Å of the other partner. The consensus counts, per "
        f"residue, in how many of the top {n} models it is at the interface: {link}.</p>"
        "<div class='side'><div class='scroll'>"
        + _table(shown, ["partner", "residue", "models"], "consensus")
        + "</div><div class='scroll'>"
        + _table(per_model, ["model", "receptor residues", "ligand residues"], "interfaces")
        + "</div></div>"
    )


def _option_value(name: str, value: Any) -> str:
    """An option as a user reads it (the engine as its words, a default as such)."""
    if isinstance(value, dict) and {"backend", "device", "precision"} <= set(value):
        return f"{value['backend']} on {value['device']}, {value['precision']}"
    if value is None:
        return "all cores" if name == "threads" else "default"
    return str(value)


def _viewer(receptor_pdb: str, ligand_pdbs: Sequence[str]) -> str:
    boxes = "".join(
        f"<label style='color:{COLOURS[i % len(COLOURS)]}'><input type='checkbox' checked "
        f"onchange='sdToggle({i}, this.checked)'> top {i + 1}</label> "
        for i in range(len(ligand_pdbs))
    )
    return (
        "<div id='viewer'></div><p>" + boxes + "<label><input type='checkbox' "
        "onchange='sdSurface(this.checked)'> receptor surface</label></p>"
        f"<script>{viewer_script()}</script>"
        "<script>"
        f"const sdReceptor={_js(receptor_pdb)};const sdLigands={_js(list(ligand_pdbs))};"
        f"const sdColours={_js(COLOURS)};"
        "const sdView=$3Dmol.createViewer('viewer',{backgroundColor:'white'});"
        "const sdRec=sdView.addModel(sdReceptor,'pdb');"
        "sdRec.setStyle({},{cartoon:{color:'lightgrey'}});"
        "const sdModels=sdLigands.map((t,i)=>{const m=sdView.addModel(t,'pdb');"
        "m.setStyle({},{cartoon:{color:sdColours[i%sdColours.length]}});return m;});"
        "function sdToggle(i,on){sdModels[i].setStyle({},on?{cartoon:"
        "{color:sdColours[i%sdColours.length]}}:{});sdView.render();}"
        "let sdSurf=null;function sdSurface(on){if(on){sdSurf=sdView.addSurface("
        "$3Dmol.SurfaceType.VDW,{opacity:0.6,color:'white'},{model:sdRec});}"
        "else if(sdSurf!==null){sdView.removeSurface(sdSurf);sdSurf=null;}sdView.render();}"
        "sdView.zoomTo();sdView.render();"
        "document.getElementById('viewer').setAttribute('data-ready','yes');"
        "</script>"
    )


def write_report(
    out: Path,
    history: Sequence[Sequence[float]],
    clusters: Sequence[Cluster],
    rows: Sequence[dict[str, Any]],
    reference: bool,
    scoring: str = "dfire",
    *,
    record: dict[str, Any] | None = None,
    receptor_pdb: str = "",
    ligand_pdbs: Sequence[str] = (),
    swarm_best: dict[int, float] | None = None,
    convergence: SwarmConvergence | None = None,
    top_swarms: Sequence[int] = (),
    interfaces: Sequence[tuple[Sequence[str], Sequence[str]]] = (),
    consensus: Sequence[dict[str, Any]] | None = None,
) -> None:
    """Write ``out/report.html`` (module docstring). ``rows``: every ranked model as in
    ranking.csv, best first; ``receptor_pdb``/``ligand_pdbs``: the receptor and the top models'
    ligands as PDB text for the viewer; ``record``: run.json so far; ``convergence``: every
    swarm's best score per saved step, drawn for the swarms of the top models
    (``top_swarms``, best first) against the spread over all swarms; ``interfaces``: each top
    model's receptor and ligand interface residues, best first, and ``consensus`` their
    :func:`~.contacts.consensus_interface` (computed here when not given)."""
    record = record or {}
    label = f"{scoring.upper() if scoring.lower() in ('dfire', 'fastdfire') else scoring} score"
    parts = ["<h1>sparkledock docking report</h1>"]
    lines = summary_lines(rows, reference)
    known = (record.get("result") or {}).get("knowledge")
    if known:  # what the restraints told of the interface, and what the protocol did with it
        line = f"Restraints: {known['level']} ({known['receptor']} receptor and "
        line += f"{known['ligand']} ligand residues); ranked by "
        line += f"{(record.get('options') or {}).get('rank_method', '')}"
        if known.get("ligand_face"):
            line += f"; the ligands started facing {len(known['ligand_face'])} likely "
            line += "interface residues of theirs"
        lines.append(line)
    parts.append(
        "<ul class='summary'>" + "".join(f"<li>{_esc(line)}</li>" for line in lines) + "</ul>"
    )

    # the run: parameters and provenance
    inputs = record.get("inputs", {})
    provenance = [
        {"what": "sparkledock", "value": record.get("sparkledock_version", "")},
        {"what": "command", "value": " ".join(record.get("command", []))},
        {"what": "started", "value": record.get("started", "")},
        {"what": "engine", "value": record.get("engine", "")},
        *(
            {"what": name, "value": f"{f['path']} (sha256 {f['sha256'][:16]}…)"}
            for name, f in inputs.items()
            if f
        ),
    ]
    options = [
        {"option": k, "value": _option_value(k, v)}
        for k, v in (record.get("options") or {}).items()
    ]
    stages = [{"stage": s["name"], "seconds": s["seconds"]} for s in record.get("stages", [])]
    parts.append("<h2>Run</h2>")
    parts.append("<div>" + _table(provenance, ["what", "value"]) + "</div>")
    parts.append(
        "<div class='side'>"
        + _table(options, ["option", "value"])
        + _table(stages, ["stage", "seconds"])
        + "</div>"
    )

    # 3D view
    if receptor_pdb and ligand_pdbs:
        parts.append("<h2>Top models on the receptor</h2>")
        parts.append(_viewer(receptor_pdb, ligand_pdbs))

    # interfaces of the top models and their consensus
    if interfaces:
        if consensus is None:
            consensus = consensus_interface(interfaces)
        parts.append(_interfaces(interfaces, consensus))

    # ranked models
    if rows:
        skip = {"pose"}
        columns = [c for c in rows[0] if c not in skip]
        more = (
            f" (first {TABLE_ROWS} of {len(rows)}; all in ranking.csv)"
            if len(rows) > TABLE_ROWS
            else ""
        )
        parts.append(f"<h2>Ranked models{more}</h2>")
        parts.append(
            "<div class='scroll'>" + _table(rows[:TABLE_ROWS], columns, "ranked") + "</div>"
        )

    # clusters
    if clusters:
        ranked = sorted(clusters, key=lambda c: -c.best)
        shown = [
            {
                "swarm": c.swarm,
                "representative": c.representative,
                "size": c.size,
                "best score": round(c.best, 3),
                "mean score": round(c.mean, 3),
            }
            for c in ranked[:TABLE_ROWS]
        ]
        more = f" (best {TABLE_ROWS} of {len(clusters)})" if len(clusters) > TABLE_ROWS else ""
        parts.append(f"<h2>Clusters{more}</h2>")
        columns = ["swarm", "representative", "size", "best score", "mean score"]
        parts.append("<div class='scroll'>" + _table(shown, columns, "clusters") + "</div>")

    # plots
    parts.append("<h2>Plots</h2>")
    if history:
        steps = [h[0] for h in history]
        parts.append(
            line_plot(
                "Score per step (all swarms)",
                steps,
                {"best": [h[1] for h in history], "mean": [h[2] for h in history]},
                "GSO step",
                label,
            )
        )
    if convergence is not None and len(convergence.swarms):
        parts.append(convergence_plot(convergence, top_swarms, label))
    if swarm_best:
        ids = sorted(swarm_best)
        parts.append(
            scatter_plot(
                "Convergence per swarm: each swarm's best final score",
                ids,
                [swarm_best[i] for i in ids],
                "swarm",
                label,
            )
        )
    parts.append(
        histogram(
            "Cluster populations", [c.size for c in clusters], "glowworms per cluster", "clusters"
        )
    )
    scored = [r for r in rows if isinstance(r.get("DockQ"), (int, float))]
    if reference and scored:
        parts.append(
            scatter_plot(
                f"Score against DockQ ({len(scored)} ranked models; top models coloured)",
                [r["score"] for r in scored],
                [r["DockQ"] for r in scored],
                label,
                "DockQ",
                highlight=min(len(ligand_pdbs), len(scored)),
                hline=ACCEPTABLE,
            )
        )
    page = (
        "<!doctype html><html><head><meta charset='utf-8'><title>sparkledock report</title>"
        f"<style>{STYLE}</style></head><body>" + "".join(parts) + "</body></html>\n"
    )
    atomic_write_text(out / "report.html", page)
