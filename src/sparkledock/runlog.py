"""What a run says while it works and what it leaves behind: one line per stage on the
``sparkledock`` logger, and ``run.json``, the machine-readable record of a run.

Every stage (read, swarms, modes, run, cluster, rank, filter, models, evaluate, refine,
report) announces itself when it starts and reports its duration when it ends. The CLI's
``--quiet`` keeps warnings and errors only, ``--verbose`` adds detail, ``--log-file`` copies
everything, with times, to a file. ``run.json`` records the version, the full command, the
options, the engine, each input file with its SHA-256, per-stage timings, peak memory and a
summary of the result; it is rewritten as each stage ends, so a run that stops half-way
leaves a record of the stages it finished.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import logging
import os
import platform
import resource
import sys
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .errors import NamesOptions
from .fileutil import atomic_write_text

LOGGER = logging.getLogger("sparkledock")
RUN_JSON = "run.json"
#: format of the lines on stderr, and of those in a --log-file
CONSOLE_FORMAT = "sparkledock: %(message)s"
FILE_FORMAT = "%(asctime)s %(levelname)s %(message)s"


class _Stderr(logging.StreamHandler):
    """A handler that writes to whatever ``sys.stderr`` is at the time (a test's capture,
    a redirected stream), not the one current when logging was configured."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property  # type: ignore[override]
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        pass


class _Spelled(logging.Filter):
    """Lines that name options (:class:`~sparkledock.errors.OptionsSaid`) spelled as the
    reader calls them (the command line: its flags)."""

    def __init__(self, spell: Callable[[str], str]) -> None:
        super().__init__()
        self.spell = spell

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, NamesOptions):
            record.msg = record.msg.spelled(self.spell)
        return True


def _spell_with(spell: Callable[[str], str] | None) -> None:
    """The logger's lines name options as ``spell`` gives them (None: by field, as written)."""
    for old in [f for f in LOGGER.filters if isinstance(f, _Spelled)]:
        LOGGER.removeFilter(old)
    if spell is not None:
        LOGGER.addFilter(_Spelled(spell))


def configure_logging(
    quiet: bool = False,
    verbose: bool = False,
    log_file: str | os.PathLike[str] | None = None,
    spell: Callable[[str], str] | None = None,
) -> None:
    """Send the ``sparkledock`` logger's lines to stderr (warnings only with ``quiet``,
    detail too with ``verbose``) and, with ``log_file``, everything to that file; options
    the lines name are spelled by ``spell`` (the command line's flags). Called once by the
    CLI; the Python API sets only its stderr line's level (:func:`console_for_api`)."""
    LOGGER.handlers.clear()
    _spell_with(spell)
    _console().setLevel(logging.WARNING if quiet else logging.DEBUG if verbose else logging.INFO)
    if log_file is not None:
        handler = logging.FileHandler(log_file, encoding="utf-8")
        handler.setLevel(logging.DEBUG)
        handler.setFormatter(logging.Formatter(FILE_FORMAT))
        LOGGER.addHandler(handler)


def console_for_api(quiet: bool) -> None:
    """The CLI's stage lines on stderr for a Python call too (warnings only with ``quiet``):
    the logger's stderr handler is added where it is missing and set to the call's level;
    handlers the caller added are left as they are."""
    _spell_with(None)  # (a Python caller reads fields, whatever ran before)
    _console().setLevel(logging.WARNING if quiet else logging.INFO)


def _console() -> _Stderr:
    """The logger's stderr handler, added (the logger passing everything to its handlers,
    not to the root's) where it has none."""
    console = next((h for h in LOGGER.handlers if isinstance(h, _Stderr)), None)
    if console is None:
        console = _Stderr()
        console.setFormatter(logging.Formatter(CONSOLE_FORMAT))
        LOGGER.addHandler(console)
        LOGGER.setLevel(logging.DEBUG)
        LOGGER.propagate = False
    return console


def peak_memory_bytes() -> int:
    """Peak resident memory of this process and its finished children (Linux: KiB units)."""
    scale = 1 if sys.platform == "darwin" else 1024
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return int(max(own, children) * scale)


def file_record(path: str | os.PathLike[str] | None) -> dict[str, Any] | None:
    """A file's path, size and SHA-256 (None for None)."""
    if path is None:
        return None
    path = Path(path)
    return {
        "path": str(path.absolute()),
        "bytes": path.stat().st_size,
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
    }


def _plain(value: Any) -> Any:
    """A JSON-friendly copy of options (dataclasses, paths, tuples)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclasses.dataclass
class RunRecord:
    """The record of one run, written as ``run.json`` into ``folder``."""

    folder: Path
    kind: str  # "dock", "screen", ...
    options: Any = None
    inputs: dict[str, Any] = dataclasses.field(default_factory=dict)
    engine: str = ""
    stages: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    result: dict[str, Any] = dataclasses.field(default_factory=dict)
    started: str = dataclasses.field(default_factory=lambda: _now())
    status: str = "running"
    #: when the run was resumed (after a kill or a crash), in order
    resumed: list[str] = dataclasses.field(default_factory=list)

    def __post_init__(self) -> None:
        self._t0 = time.perf_counter()

    def continue_from(self, folder: Path) -> None:
        """Carry on the record of an earlier, unfinished run of the same work in ``folder``:
        its start, its stages (the resumed ones follow) and when it was resumed."""
        try:
            earlier = json.loads((folder / RUN_JSON).read_text())
        except (OSError, ValueError):
            return
        if not isinstance(earlier, dict) or earlier.get("kind") != self.kind:
            return
        self.started = str(earlier.get("started", self.started))
        self.stages = [dict(s) for s in earlier.get("stages", []) if isinstance(s, dict)]
        self.resumed = [*earlier.get("resumed", []), _now()]

    @contextlib.contextmanager
    def stage(self, name: str, what: str = "") -> Iterator[dict[str, Any]]:
        """Time one stage: a line when it starts and one with its duration when it ends.
        The stage's dict may be given a ``"summary"`` (one line: what it did), logged at its
        end and kept in run.json. A stage that fails is not written (a failed command's folder
        may be removed; a file there would keep it)."""
        LOGGER.info(f"{name}: {what}" if what else f"{name} ...")
        entry: dict[str, Any] = {"name": name}
        start = time.perf_counter()
        try:
            yield entry
        except BaseException:
            entry["failed"] = True
            raise
        finally:
            entry["seconds"] = round(time.perf_counter() - start, 3)
            self.stages.append(entry)
            summary = entry.get("summary")
            if not entry.get("failed"):  # (a failed stage writes nothing: its folder may go)
                tail = f": {summary}" if summary else " done"
                LOGGER.info(f"{name}{tail} ({entry['seconds']:.1f} s)")
                self.write()

    def finish(self, **result: Any) -> None:
        """Record the result's summary and mark the run done."""
        self.result.update(_plain(result))
        self.status = "done"
        self.write()

    def as_dict(self) -> dict[str, Any]:
        from .version import __version__

        return {
            "sparkledock_version": __version__,
            "kind": self.kind,
            "status": self.status,
            "command": list(sys.argv),
            "started": self.started,
            "wall_seconds": round(time.perf_counter() - self._t0, 3),
            "python": platform.python_version(),
            "host": {"platform": platform.platform(), "cpus": os.cpu_count()},
            "engine": self.engine,
            "options": _plain(self.options),
            "inputs": self.inputs,
            "stages": self.stages,
            **({"resumed": self.resumed} if self.resumed else {}),
            "peak_memory_bytes": peak_memory_bytes(),
            "result": self.result,
        }

    def write(self) -> None:
        """Write (replace) ``run.json`` in the folder, atomically."""
        if self.folder.is_dir():
            text = json.dumps(self.as_dict(), indent=1) + "\n"
            atomic_write_text(self.folder / RUN_JSON, text, durable=False)


@contextlib.contextmanager
def untimed(name: str, what: str = "") -> Iterator[dict[str, Any]]:
    """A stage outside any run record (an analysis called on its own): nothing is said."""
    yield {"name": name}
