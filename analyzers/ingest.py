"""Find artifacts under paths and read each with the reader that recognises it.

Discovery is by content as well as by name: every regular file is sniffed
(first bytes) and offered to the readers in order; the first that accepts it
reads it. FIFOs, sockets and device files are never opened (they can hang);
symlink loops and unreadable paths become one-line warnings.

A reader is a module with:
    sniff(path: Path, head: bytes) -> bool
    read(path: Path, rel: str, run: Run) -> None   # appends to run.series/texts/...
Readers must not raise for bad content: they append "rel:line: what" to run.warnings.
Anything they raise anyway is caught here and turned into one warning line.
"""
from __future__ import annotations

import gzip
import os
import stat
from pathlib import Path
from typing import Iterable

from .model import Run

# Directories that never hold run artifacts and can be huge.
SKIP_DIRS = {".git", ".hg", ".svn", ".venv", "venv", "env", "node_modules", "__pycache__",
             ".mltdbg", ".mypy_cache", ".pytest_cache", ".tox", "site-packages", ".idea", ".ipynb_checkpoints"}
# Beyond this many files in one ingest we stop and say so (a folder of thousands of files).
MAX_FILES = 5000
# Files larger than this are read only by readers that stream (TensorBoard); text over it is cut.
MAX_TEXT_BYTES = 2 * 1024**3
HEAD_BYTES = 4096


def _readers():
    # Imported lazily so a broken optional reader never stops ingest of the others.
    from .readers import ORDER
    return ORDER


def ingest(paths: Iterable[str | os.PathLike], root: str | os.PathLike | None = None,
           exclude: Iterable[str | os.PathLike] = ()) -> Run:
    """Read every artifact under `paths`. `root` anchors relative citations
    (default: the common parent of the paths, or the single directory given).
    `exclude`: paths not to read (a baseline run kept inside the run folder)."""
    paths = [Path(p) for p in paths]
    if root is None:
        root = _common_root(paths)
    run = Run(root=Path(root).resolve())
    files: list[Path] = []
    seen: set = set()
    for x in exclude:
        try:
            st = Path(x).stat()
            seen.add((st.st_dev, st.st_ino))
        except OSError:
            pass
    for p in paths:
        _collect(p, files, run, seen)
    if len(files) > MAX_FILES:
        run.warnings.append(f"{_rel(paths[0], run.root)}: {len(files)} files found; read the first {MAX_FILES} (pass the run folder itself to narrow it)")
        files = files[:MAX_FILES]
    readers = _readers()
    claimed: set[Path] = set()
    for f in files:
        if f in claimed:
            continue
        rel = _rel(f, run.root)
        try:
            head = _head(f)
        except OSError as e:
            run.warnings.append(f"{rel}: cannot read ({e.strerror or e})")
            continue
        for reader in readers:
            try:
                if not reader.sniff(f, head):
                    continue
                reader.read(f, rel, run)
            except Exception as e:  # a reader bug must not lose the rest of the run
                run.warnings.append(f"{rel}: could not be read as {reader.__name__.rsplit('.', 1)[-1]} ({type(e).__name__}: {e})")
            run.artifacts.append(rel)
            break
    return run


def _common_root(paths: list[Path]) -> Path:
    if not paths:
        return Path.cwd()
    res = [p.resolve() if p.exists() else p.absolute() for p in paths]
    if len(res) == 1:
        return res[0] if res[0].is_dir() else res[0].parent
    return Path(os.path.commonpath([str(p if p.is_dir() else p.parent) for p in res]))


def _rel(p: Path, root: Path) -> str:
    try:
        return str(p.resolve().relative_to(root))
    except (ValueError, OSError):
        return str(p)


def _collect(p: Path, out: list[Path], run: Run, seen: set) -> None:
    try:
        st = p.stat()  # follows symlinks; a loop raises ELOOP
    except OSError as e:
        run.warnings.append(f"{p}: skipped ({e.strerror or e})")
        return
    key = (st.st_dev, st.st_ino)
    if key in seen:
        # Reached twice (a symlink such as wandb/latest-run): read once. Only a link
        # back to one of its own ancestors is a loop worth telling the user about.
        if p.is_symlink() and stat.S_ISDIR(st.st_mode):
            try:
                if p.absolute().parent.resolve().is_relative_to(p.resolve()):
                    run.warnings.append(f"{p}: skipped (symlink loop)")
            except OSError:
                pass
        return
    seen.add(key)
    if stat.S_ISDIR(st.st_mode):
        try:
            entries = sorted(os.scandir(p), key=lambda e: e.name)
        except OSError as e:
            run.warnings.append(f"{p}: cannot list ({e.strerror or e})")
            return
        for e in entries:
            if e.name in SKIP_DIRS or (e.name.startswith(".") and e.is_dir(follow_symlinks=False)):
                continue
            _collect(Path(e.path), out, run, seen)
            if len(out) > MAX_FILES:
                return
    elif stat.S_ISREG(st.st_mode):
        out.append(p)
    else:
        run.warnings.append(f"{p}: skipped (not a regular file: FIFO, socket or device)")


def _head(p: Path) -> bytes:
    with open(p, "rb") as f:
        head = f.read(HEAD_BYTES)
    if head[:2] == b"\x1f\x8b":
        with gzip.open(p, "rb") as g:
            try:
                head = g.read(HEAD_BYTES)
            except (OSError, EOFError):
                pass
    return head


def read_bytes(path: Path) -> bytes:
    """Whole file, gunzipped when it is gzip (by magic bytes, not by name)."""
    with open(path, "rb") as f:
        data = f.read(MAX_TEXT_BYTES)
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError):
            # a truncated gzip (still being written): keep what decompresses
            d = gzip.GzipFile(fileobj=__import__("io").BytesIO(data))
            chunks = []
            try:
                while True:
                    c = d.read(1 << 20)
                    if not c:
                        break
                    chunks.append(c)
            except (OSError, EOFError):
                pass
            data = b"".join(chunks)
    return data


def read_text(path: Path, rel: str, run: Run) -> str:
    """Decoded text of a file: UTF-8, bad bytes replaced with a warning naming the first bad line."""
    data = read_bytes(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        run.warnings.append(f"{rel}:{line}: not valid UTF-8; undecodable bytes replaced")
        return data.decode("utf-8", errors="replace")


def is_binary(head: bytes) -> bool:
    """Heuristic: NUL bytes or mostly non-text bytes in the head."""
    if not head:
        return False
    if b"\x00" in head:
        return True
    text_chars = bytes(range(32, 127)) + b"\n\r\t\f\b\x1b"
    nontext = sum(1 for b in head[:1024] if b not in text_chars and b < 128)
    return nontext / min(len(head), 1024) > 0.3
