"""The interface-propensity model (:mod:`sparkledock.analysis.propensity`): per residue of
each training complex's unbound partners, its descriptors and whether it lies at the
interface of the bound complex (a heavy atom within 5 Å of the partner's); a LightGBM
classifier cross-validated by complex (ROC AUC per chain, out of fold), exported as trees
the package evaluates without LightGBM; and every training complex's out-of-fold log-odds
(``--oof``), which the blind ranking's training pools read, so that the ranking learns from
the propensity it will meet on a complex the site model has not seen.

    python benchmarks/site_propensity.py ../shared/train --cache /tmp/site \\
        --export src/sparkledock/data/site_propensity.json \\
        --oof benchmarks/pools/site_oof.npz

Training complexes only (``../shared/train``); the twenty are never read here.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

import numpy as np
from scipy.spatial import cKDTree

from sparkledock.analysis import learned
from sparkledock.analysis.propensity import FEATURES, residue_table
from sparkledock.docking.options import DOCK_SETUP_FIXED
from sparkledock.molecule.structure import hydrogen_mask, read_structure
from sparkledock.preparation.inputs import read_partners
from sparkledock.preparation.prepare import SetupOptions

HERE = Path(__file__).resolve().parent
#: A residue is at the interface when one of its heavy atoms lies this close (Å) to a heavy
#: atom of the partner in the bound complex.
CONTACT_A = 5.0
#: The parameters cross-validated (LightGBM binary classifier); the best by mean AUC.
GRID = [
    {"n_estimators": n, "learning_rate": 0.05, "num_leaves": leaves, "min_child_samples": 100,
     "subsample": 0.8, "subsample_freq": 1, "colsample_bytree": 0.8}
    for n, leaves in ((150, 15), (300, 15), (300, 31))
]  # fmt: skip


#: ``--threads``: LightGBM's threads per fit (its deterministic mode: the same trees).
THREADS = [2]


def interface_labels(target: Path, keys: list[tuple[int, str]], mine: str, other: str):
    """Per residue key (number, insertion code) of chain ``mine``: at the interface of the
    bound complex ``target`` (1) or not (0), and whether the bound chain has it at all
    (residues missing there are left out of training)."""
    bound = read_structure(target)
    bound = bound.select(~hydrogen_mask(bound))
    chain = bound.chain.astype(str)
    ours, theirs = chain == mine, chain == other
    near = cKDTree(bound.coords[theirs]).query_ball_point(
        bound.coords[ours], CONTACT_A, return_length=True
    )
    ids = _keys(bound.res_seq[ours], bound.ins_code[ours])
    at = {rid for rid, n in zip(ids, near, strict=True) if n > 0}
    known = set(ids)
    return (
        np.array([k in at for k in keys], dtype=np.int8),
        np.array([k in known for k in keys], dtype=bool),
    )


def _keys(numbers: np.ndarray, codes: np.ndarray) -> list[tuple[int, str]]:
    return list(zip(numbers.tolist(), [str(c).strip() for c in codes], strict=True))


def residue_keys(atoms) -> list[tuple[int, str]]:
    """Each residue's (number, insertion code), in residue order."""
    starts = atoms.residue_starts()
    return _keys(atoms.res_seq[starts], atoms.ins_code[starts])


def complex_residues(folder: Path) -> dict[str, np.ndarray]:
    """One training complex's residues (receptor chain A, ligand chain B, as a docking's setup
    cleans them): descriptors, labels and which residues the bound complex has."""
    name = folder.name
    options = SetupOptions(**DOCK_SETUP_FIXED)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parts = read_partners(folder / f"{name}_r_u.pdb.gz", folder / f"{name}_l_u.pdb.gz", None,
                              options)  # fmt: skip
    out = {}
    target = folder / f"{name}_target.pdb.gz"
    for side, atoms, mine, other in (("receptor", parts.cleaned[0], "A", "B"),
                                     ("ligand", parts.cleaned[1], "B", "A")):  # fmt: skip
        out[f"x_{side}"] = residue_table(atoms)
        out[f"y_{side}"], out[f"known_{side}"] = interface_labels(
            target, residue_keys(atoms), mine, other
        )
    return out


def load(train: Path, cache: Path | None, names: list[str] | None = None) -> dict[str, dict]:
    """Every usable training complex's residues (cached per complex in ``cache``); a complex
    refused as a docking refuses it, or whose bound chains lack one partner's residues, is
    left out with a line saying why."""
    data = {}
    for folder in sorted(p for p in train.iterdir() if p.is_dir()):
        if names and folder.name not in names:
            continue
        stored = cache / f"{folder.name}.npz" if cache else None
        if stored and stored.is_file():
            got = dict(np.load(stored))
        else:
            try:
                got = complex_residues(folder)
            except Exception as error:  # (the docking refuses these inputs too)
                print(f"{folder.name}: left out ({type(error).__name__}: {error})")
                continue
            if stored:
                stored.parent.mkdir(parents=True, exist_ok=True)
                np.savez(stored, **got)
        if not (got["y_receptor"].any() and got["y_ligand"].any()):
            print(f"{folder.name}: left out (no interface residue found by chain A and B)")
            continue
        data[folder.name] = got
    return data


def fit(data: dict, names: list[str], params: dict, seed: int = 0):
    import lightgbm as lgb

    x, y = [], []
    for n in names:
        for side in ("receptor", "ligand"):
            known = data[n][f"known_{side}"]
            x.append(data[n][f"x_{side}"][known])
            y.append(data[n][f"y_{side}"][known])
    model = lgb.LGBMClassifier(
        **params, random_state=seed, deterministic=True, force_row_wise=True, verbose=-1,
        n_jobs=THREADS[0],
    )  # fmt: skip
    return model.fit(np.concatenate(x), np.concatenate(y))


def logodds(model, rows: np.ndarray) -> np.ndarray:
    return model.predict(rows, raw_score=True)


def out_of_fold(data: dict, params: dict, k: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Every complex's residues' log-odds by the model fitted without its fold (complexes
    dealt round-robin in name order into ``k`` folds)."""
    names = sorted(data)
    out = {}
    for i in range(k):
        held = names[i::k]
        model = fit(data, [n for n in names if n not in held], params)
        for n in held:
            out[n] = tuple(logodds(model, data[n][f"x_{s}"]) for s in ("receptor", "ligand"))
    return out


def aucs(data: dict, scores: dict) -> list[float]:
    """ROC AUC of every chain with both classes among its known residues."""
    from sklearn.metrics import roc_auc_score

    got = []
    for n, pair in scores.items():
        for side, values in zip(("receptor", "ligand"), pair, strict=True):
            known = data[n][f"known_{side}"]
            y = data[n][f"y_{side}"][known]
            if y.min() != y.max():
                got.append(roc_auc_score(y, values[known]))
    return got


def export(path: Path, data: dict, params: dict, cv: str) -> None:
    import lightgbm

    names = sorted(data)
    model = fit(data, names, params)
    check = data[names[0]]["x_receptor"][:64]
    record = {
        "what": "interface propensity per residue, learned on training complexes "
        "(LightGBM binary classifier; the trees' sum is the log-odds)",
        "command": "python benchmarks/site_propensity.py TRAIN --export PATH",
        "lightgbm": lightgbm.__version__,
        "features": list(FEATURES),
        "label": f"a heavy atom within {CONTACT_A} Å of the partner in the bound complex",
        "training_complexes": names,
        "params": params,
        "chosen_by": cv,
        "check": {
            "complex": names[0],
            "rows": check.tolist(),
            "predictions": logodds(model, check).tolist(),
        },
        "trees": learned.trees_from_lightgbm([model.booster_.dump_model()]),
    }
    path.write_text(json.dumps(record, separators=(",", ":")) + "\n")
    print(f"wrote {path} ({path.stat().st_size / 1024:.0f} KiB, {len(names)} complexes)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("train", type=Path, help="the training complexes (../shared/train)")
    parser.add_argument("--complexes", nargs="+", help="only these")
    parser.add_argument("--cache", type=Path, help="per-complex residue tables kept here")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--params", help="these parameters (JSON) instead of cross-validating")
    parser.add_argument("--export", type=Path, help="write the model fitted on all here")
    parser.add_argument("--oof", type=Path, help="write every complex's out-of-fold log-odds")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    THREADS[0] = args.threads
    data = load(args.train, args.cache, args.complexes)
    print(f"{len(data)} training complexes, {args.folds} folds by complex")
    if args.params:
        params, cv = json.loads(args.params), "given"
    else:
        print("| parameters | per-chain AUC, out of fold: mean / median |\n|---|---|")
        results = []
        for params in GRID:
            got = aucs(data, out_of_fold(data, params, args.folds))
            label = f"{params['n_estimators']} trees of {params['num_leaves']} leaves"
            print(f"| {label} | {np.mean(got):.3f} / {np.median(got):.3f} |", flush=True)
            results.append((float(np.mean(got)), params, label))
        best_auc, params, label = max(results, key=lambda r: r[0])
        cv = f"{args.folds}-fold cross-validation by complex: {label}, mean AUC {best_auc:.3f}"
        print(f"chosen: {label}")
    if args.oof:
        scores = out_of_fold(data, params, args.folds)
        np.savez_compressed(
            args.oof,
            **{f"{n}_{s}": v.astype(np.float32) for n, pair in scores.items()
               for s, v in zip(("receptor", "ligand"), pair, strict=True)},
        )  # fmt: skip
        print(f"wrote {args.oof} (out-of-fold log-odds of {len(scores)} complexes)")
    if args.export:
        export(args.export, data, params, cv)


if __name__ == "__main__":
    sys.exit(main())
