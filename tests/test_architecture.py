"""The package's structure, checked on the imports of ``src/``: a layer order declared once
(a module imports from its own layer or below), no import cycle except a scoring function's
kernels and their optional torch kernel, at most two imports from a lower layer to a higher
one, no module over 600 lines, at most twelve modules at the package root."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "sparkledock"

#: The layers, lowest first: each holds top-level modules or packages of ``sparkledock``.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "seeds", "schema", "version"),  # leaves
    ("fileutil", "backend"),  # files, and where the work runs
    ("molecule",),  # atoms, normal modes, restraints, poses, the docking system
    ("io",),  # file formats
    ("scoring",),  # scoring functions and their kernels
    ("preparation",),  # the setup stage
    ("engine",),  # GSO, runs, scheduling
    ("analysis",),  # clustering, ranking, filters, models, evaluation, report, refinement
    ("runlog",),  # stages and run records
    ("stages",),  # the stage functions: cluster, rank, filter, top, evaluate, report
    ("docking",),  # whole dockings and screens
    ("workflow",),  # the stage API
    ("cli", "lightdock", "__init__", "__main__"),  # the command lines over it
)
RANK = {name: level for level, names in enumerate(LAYERS) for name in names}
MAX_UPWARD = 2
MAX_LINES = 600
MAX_ROOT_MODULES = 12


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _unit(module: str) -> str:
    """The top-level module or package a module belongs to (its layer's entry)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _imports(module: str, path: Path) -> set[str]:
    """The package's modules that ``module`` imports when it runs (imports under
    ``if TYPE_CHECKING:`` only annotate, and are left out)."""
    tree = ast.parse(path.read_text())
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for stmt in node.body
        for inner in ast.walk(stmt)
    }
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                name = f"{target}.{alias.name}"
                found.add(name if name in MODULES else target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m in MODULES and m != module}


GRAPH = {m: _imports(m, p) for m, p in MODULES.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _allowed_cycle(component: list[str]) -> bool:
    """A scoring function's kernels and their optional torch kernel: one function's folder,
    every cycle through a ``torch`` module."""
    folders = {m.rsplit(".", 1)[0] for m in component}
    return (
        len(folders) == 1
        and next(iter(folders)).startswith("sparkledock.scoring.")
        and any("torch" in m.rsplit(".", 1)[1] for m in component)
    )


def test_every_module_has_a_layer():
    assert {_unit(m) for m in MODULES} <= set(RANK), "place the new module in LAYERS"


def test_no_import_cycle_but_a_scoring_function_and_its_torch_kernel():
    cycles = [c for c in _cycles(GRAPH) if not _allowed_cycle(c)]
    assert cycles == []


def test_at_most_two_imports_run_up_the_layers():
    upward = sorted(
        (source, target)
        for source, targets in GRAPH.items()
        for target in targets
        if RANK[_unit(source)] < RANK[_unit(target)]
    )
    assert len(upward) <= MAX_UPWARD, upward


def test_no_module_is_over_600_lines():
    long = {m: n for m, p in MODULES.items() if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}


def test_the_package_root_holds_at_most_twelve_modules():
    assert len(list(PACKAGE.glob("*.py"))) <= MAX_ROOT_MODULES


def test_the_cycle_finder_finds_cycles():
    """(The checks above are only as good as this.)"""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _allowed_cycle(["sparkledock.scoring.vdw.model", "sparkledock.scoring.vdw.torch_kernel"])
    assert not _allowed_cycle(["sparkledock.cli", "sparkledock.lightdock.commands"])


#: What the command lines (cli/, lightdock/) import: the stages (``stages``, ``workflow``, whose
#: ``workflow.commands`` holds what the stages do not return, and ``docking``), the schema and
#: the errors, the leaves beside them (version, seeds, the engine choice, atomic files, the
#: run log) and each other: nothing below the stages.
FRONT = ("cli", "lightdock")
FRONT_REACHES = {"stages", "workflow", "docking", "schema", "errors", "version", "seeds", "backend"}
FRONT_REACHES |= {"fileutil", "runlog", *FRONT}


def test_the_command_lines_reach_nothing_below_the_stages():
    below = sorted(
        (source, target)
        for source, targets in GRAPH.items()
        if _unit(source) in FRONT
        for target in targets
        if _unit(target) not in FRONT_REACHES
    )
    assert below == []
    assert {"sparkledock.cli.commands", "sparkledock.lightdock.tools"} <= set(GRAPH)


#: What the stage functions do (:mod:`sparkledock.stages`): a whole docking's analysis calls
#: them, never the modules under them.
STAGE_WORK = {
    "sparkledock.analysis.cluster", "sparkledock.analysis.contacts",
    "sparkledock.analysis.convergence", "sparkledock.analysis.filter",
    "sparkledock.analysis.models", "sparkledock.analysis.quality",
    "sparkledock.analysis.ranking", "sparkledock.analysis.refine",
    "sparkledock.analysis.report",
}  # fmt: skip


def test_a_dock_analyses_through_the_stage_functions():
    analyse = GRAPH["sparkledock.docking.analyse"]
    assert "sparkledock.stages" in analyse
    assert sorted(analyse & STAGE_WORK) == []
    assert set(GRAPH) >= STAGE_WORK  # (each still a module: the check means something)
