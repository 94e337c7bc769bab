"""The docking report: one self-contained HTML page with the top models and three plots."""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path

from ..fileutil import atomic_write_text


def _png(figure) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    return base64.b64encode(buffer.getvalue()).decode()


def write_report(
    out: Path, history, cluster_sizes, rows, reference: bool, scoring: str = "dfire"
) -> None:
    """``out/report.html``, self-contained: the top models' table, the score per GSO step
    (best and mean), cluster populations and, with a reference, score against DockQ
    (``scoring`` names the scoring function on the axes)."""
    label = f"{scoring.upper() if scoring.lower() in ('dfire', 'fastdfire') else scoring} score"
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    images = []
    fig, ax = plt.subplots(figsize=(6, 3.5))
    steps = [h[0] for h in history]
    ax.plot(steps, [h[1] for h in history], label="best")
    ax.plot(steps, [h[2] for h in history], label="mean")
    ax.set_xlabel("GSO step")
    ax.set_ylabel(label)
    ax.legend()
    images.append(("Score per step", _png(fig)))
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.hist(cluster_sizes, bins=max(1, min(30, max(cluster_sizes))))
    ax.set_xlabel("glowworms per cluster")
    ax.set_ylabel("clusters")
    images.append(("Cluster populations", _png(fig)))
    plt.close(fig)
    if reference:
        fig, ax = plt.subplots(figsize=(6, 3.5))
        ax.scatter([r["score"] for r in rows], [r["DockQ"] for r in rows])
        ax.set_xlabel(label)
        ax.set_ylabel("DockQ")
        images.append(("Score against DockQ (top models)", _png(fig)))
        plt.close(fig)
    head = list(rows[0].keys()) if rows else []
    table = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(r[k]))}</td>" for k in head) + "</tr>" for r in rows
    )
    body = "".join(f"<h2>{t}</h2><img src='data:image/png;base64,{b}'/>" for t, b in images)
    atomic_write_text(
        out / "report.html",
        (
            "<!doctype html><html><head><meta charset='utf-8'><title>sparkledock report</title>"
            "</head><body><h1>sparkledock docking report</h1><h2>Top models</h2><table border=1>"
            "<tr>"
            + "".join(f"<th>{k}</th>" for k in head)
            + "</tr>"
            + table
            + "</table>"
            + body
            + "</body></html>\n"
        ),
    )
