"""File helpers shared by writers: atomic writes that honour the umask, folder locks."""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from .errors import InputFileError

#: The lock file that marks a folder as in use by one sparkledock process.
LOCK_NAME = ".sparkledock.lock"
#: Temporary files of :func:`atomic_write_bytes` are named ``.<target>.<random>.tmp``.
TMP_SUFFIX = ".tmp"


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes, durable: bool = True) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder.

    The target is replaced (after an fsync, unless ``durable=False``) only once the new content
    is complete, so an error or a kill never leaves a half-written file in place of a good one.
    The file gets the permissions an ordinary ``open`` would give it (0666 less the umask).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TMP_SUFFIX)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), 0o666 & ~_umask())
            if durable:
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: str | os.PathLike[str], text: str, durable: bool = True) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically, as :func:`atomic_write_bytes`."""
    atomic_write_bytes(path, text.encode(), durable)


def check_input_file(path: str | os.PathLike[str], what: str) -> Path:
    """``path`` if it names a readable file, else a one-line error naming it: missing, a
    folder, or unreadable (before anything reads it, records it or works on it)."""
    path = Path(path)
    if path.is_dir():
        raise InputFileError(f"{path}: a folder, not a {what} file")
    if not path.is_file():
        raise InputFileError(f"{path}: no such {what} file")
    if not os.access(path, os.R_OK):
        raise InputFileError(f"{path}: cannot read {what} file (permission denied)")
    return path


def read_text_input(path: str | os.PathLike[str], what: str) -> str:
    """The text of a small input file (restraints, poses, pairs, rankings, scoring files), or
    a one-line error naming it: missing, a folder, unreadable, binary, or not UTF-8 text."""
    path = check_input_file(path, what)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read {what} file ({exc.strerror})") from None
    if b"\x00" in raw:
        raise InputFileError(f"{path}: a binary file, not a {what} file")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputFileError(
            f"{path}:{line}: not UTF-8 text (byte {raw[exc.start]:#04x})"
        ) from None


def remove_orphan_temporaries(folder: Path) -> int:
    """Remove the temporary files that killed writers left under ``folder`` (call it only
    while holding the folder's lock); returns how many."""
    count = 0
    for tmp in folder.rglob(f".*{TMP_SUFFIX}"):
        if tmp.is_file() and tmp.name.count(".") >= 3:
            tmp.unlink(missing_ok=True)
            count += 1
    return count


def check_output_folder(out: str | os.PathLike[str]) -> None:
    """An output folder must be one we can create: not a file, nor under one.

    Raises:
        InputFileError: naming the file in the way.
    """
    out = Path(out)
    for parent in (out, *out.parents):
        if parent.exists():
            if not parent.is_dir():
                raise InputFileError(f"{out}: cannot create a folder there ({parent} is a file)")
            return


@contextlib.contextmanager
def folder_lock(folder: str | os.PathLike[str]) -> Iterator[Path]:
    """Hold ``folder`` for this process: a second sparkledock process on the same folder
    refuses at once instead of mixing its files with ours. Orphan temporary files of an
    earlier, killed process are removed once the lock is held. The lock file goes when the
    work ends (removed while still held, so a process that opened it just before finds it
    gone and takes the new one); a folder created here that holds nothing when the work ends
    (it failed) is removed too.

    Raises:
        InputFileError: another process holds the folder (its pid in the message).
    """
    folder = Path(folder)
    check_output_folder(folder)
    created = not folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    lock = folder / LOCK_NAME
    fd = _take_lock(folder, lock)
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        remove_orphan_temporaries(folder)
        yield folder
    finally:
        with contextlib.suppress(OSError):
            lock.unlink()  # (still held: nobody can take a lock file that is gone)
        os.close(fd)  # releases the lock
        with contextlib.suppress(OSError):  # a folder made only for the work goes again
            if created and not os.listdir(folder):
                folder.rmdir()


def _take_lock(folder: Path, lock: Path) -> int:
    """An open, exclusively locked descriptor of ``lock``, the file that is at that path now
    (one removed by the process that held it, after we opened it, is opened again)."""
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666 & ~_umask())
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise InputFileError(
                f"{folder}: another sparkledock process (pid {holder}) is using this folder; "
                "wait for it to finish or use another folder"
            ) from None
        try:
            same = os.stat(lock).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)  # the holder removed it as it finished: take the one there now
