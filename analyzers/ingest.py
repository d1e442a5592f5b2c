"""Find artifacts under paths and read each with the reader that recognises it.

Discovery is by content as well as by name: every regular file is sniffed
(first bytes) and offered to the readers in order; the first that accepts it
reads it. FIFOs, sockets and device files are never opened (they can hang);
symlink loops and unreadable paths become one-line warnings.

A reader is a module with:
    sniff(path: Path, head: bytes) -> bool
    read(path: Path, rel: str, run: Run) -> None   # appends to run.series/texts/...
Readers must not raise for bad content: they append "rel:line: what" to run.warnings.
A reader may also have `finish(run) -> None`, called once after every file is read (to merge
what spans files, e.g. the event files of one TensorBoard folder), and `prefetch(files) -> None`,
called with the next (path, rel) pairs it will be asked to read, in order, before the first of
them is read (work shared by many small files: textlog scans a run of small logs at once),
returning how many of them it went through (called again at the next); it must not change what
`read` gives, only how fast, and is called with [] once all are read.
Anything they raise anyway is caught here and turned into one warning line.
The logs of replica ranks (crossrank/replicas.py: per-rank files whose loss tail matches the lowest
rank's) go to the reader's `read_text_only(path, rel, run)` when it has one: text kept, no metric series.
"""
from __future__ import annotations

import errno
import gzip
import os
import re
import stat
from pathlib import Path
from typing import Iterable

from mltdbg.analyzers.model import Run

# Directories that never hold run artifacts and can be huge.
SKIP_DIRS = {".git", ".hg", ".svn", ".venv", "venv", "env", "node_modules", "__pycache__",
             ".mltdbg", ".mypy_cache", ".pytest_cache", ".tox", "site-packages", ".idea", ".ipynb_checkpoints"}
# Hidden folders are skipped, except these a training run writes its own settings or records to: Hydra's `.hydra/` (the
# composed config.yaml and the command line's overrides.yaml; its hydra.yaml is Hydra's own settings, not the run's),
# Neptune's `.neptune/` (the offline and async queues of logged values), Guild AI's `.guild/` (a run's console output,
# its flags and a copy of its source code)
RUN_DOT_DIRS = {".hydra", ".neptune", ".guild"}
SKIP_FILES = {(".hydra", "hydra.yaml")}
# Beyond this many files in one ingest we stop and say so (a folder of thousands of files).
MAX_FILES = 5000
# At most this much of one text file is held (after gunzip): the first half and the last half,
# the middle replaced by its line ends only, so every line keeps its number (a 2 GB log held whole
# took 4.2 GB RSS once decoded). Readers that stream (TensorBoard) are not bound by it.
MAX_TEXT_BYTES = 1024**3
# Runs of NUL bytes this long are holes (a sparse file, the zero padding of its last block, a log padded
# after a crash), not text: dropped.
# They hold no line ends, so line numbers do not move.
NUL_RUN = 256
HEAD_BYTES = 4096
# The most a sniffer may read to see a whole header line (a metrics.csv with hundreds of columns).
WIDE_HEAD_BYTES = 8 * 1024**2
_CHUNK = 16 * 1024**2
# A reader with `prefetch` is handed at most this many of the files it takes next, in order.
PREFETCH_FILES = 1024


def _readers():
    # Imported lazily so a broken optional reader never stops ingest of the others.
    from mltdbg.analyzers.readers import ORDER  # noqa: PLC0415 - loaded only on this path, keeps the common path light
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
    # the cross-rank package compiles its patterns on import (~0.2 s): loaded when a run is read, so
    # the TUI's capture screen (which only needs SKIP_DIRS from here) paints without it
    from mltdbg.analyzers.crossrank.replicas import replica_logs  # noqa: PLC0415 - see above
    text_only, note = replica_logs(files, run.root)   # replica ranks' logs: text without metric series
    if note:
        run.warnings.append(note)
    # which reader takes each file (sniffed first, so that a reader can prefetch a run of the files it takes)
    plan: list[tuple] = []      # (path, rel, reader, what its sniff raised or None)
    parents: dict[str, str] = {}
    for f in files:
        rel = _rel(f, run.root, parents)
        try:
            head = _head(f)
        except OSError as e:
            plan.append((f, rel, None, e))
            continue
        for reader in readers:
            try:
                if reader.sniff(f, head):
                    plan.append((f, rel, reader, None))
                    break
            except Exception as e:  # noqa: BLE001 - said where the file is read, below
                plan.append((f, rel, reader, e))
                break
    ahead = 0                   # plan entries handed to a reader's prefetch so far
    for i, (f, rel, reader, err) in enumerate(plan):
        if reader is None:
            run.warnings.append(f"{rel}: cannot read ({err.strerror or err})")
            continue
        if err is None and i >= ahead and f not in text_only and hasattr(reader, "prefetch"):
            end = i
            while (end < len(plan) and end - i < PREFETCH_FILES and plan[end][2] is reader
                   and plan[end][3] is None and plan[end][0] not in text_only):
                end += 1
            try:
                ahead = i + max(1, int(reader.prefetch([(x[0], x[1]) for x in plan[i:end]])))
            except Exception:  # noqa: BLE001 - only a head start: each file is then read on its own
                ahead = end
        try:
            if err is not None:
                raise err
            (getattr(reader, "read_text_only", reader.read) if f in text_only else reader.read)(f, rel, run)
        except Exception as e:  # a reader bug must not lose the rest of the run
            run.warnings.append(f"{rel}: could not be read as {reader.__name__.rsplit('.', 1)[-1]} ({type(e).__name__}: {e})")
        run.artifacts.append(rel)
    for reader in readers:
        if hasattr(reader, "prefetch"):
            reader.prefetch([])     # nothing held past the ingest
    for reader in readers:   # what spans files (a folder of event files read as one run)
        fin = getattr(reader, "finish", None)
        if fin is not None:
            try:
                fin(run)
            except Exception as e:  # noqa: BLE001 - the per-file results stay
                run.warnings.append(f"(ingest) {reader.__name__.rsplit('.', 1)[-1]}: could not merge files "
                                    f"({type(e).__name__}: {e})")
    return run


def _common_root(paths: list[Path]) -> Path:
    if not paths:
        return Path.cwd()
    res = [p.resolve() if p.exists() else p.absolute() for p in paths]
    if len(res) == 1:
        return res[0] if res[0].is_dir() else res[0].parent
    return Path(os.path.commonpath([str(p if p.is_dir() else p.parent) for p in res]))


def _rel(p: Path, root: Path, parents: dict[str, str] | None = None) -> str:
    """p relative to root, by p's real location. `parents`: resolved folders kept across calls, so the
    files of one folder cost one realpath, not one each (a plain file's real path is its folder's
    real path plus its name; a symbolic link is resolved itself)."""
    try:
        if parents is not None and not os.path.islink(p):
            # (as strings: Path arithmetic cost ~30 us a file, most of a small file's ingest besides reading it)
            folder, name = os.path.split(p)
            d = parents.get(folder)
            if d is None:
                d = parents[folder] = str(Path(folder or ".").resolve())
            full, top = os.path.join(d, name), str(root)
            if full == top:
                return "."
            under = top.rstrip(os.sep) + os.sep     # ("/" stays "/")
            return full[len(under):] if full.startswith(under) else str(p)
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
            if e.name in SKIP_DIRS or (e.name.startswith(".") and e.name not in RUN_DOT_DIRS
                                       and e.is_dir(follow_symlinks=False)) or (p.name, e.name) in SKIP_FILES:
                continue
            _collect(Path(e.path), out, run, seen)
            if len(out) > MAX_FILES:
                return
    elif stat.S_ISREG(st.st_mode):
        out.append(p)
    else:
        run.warnings.append(f"{p}: skipped (not a regular file: FIFO, socket or device)")


def _head(p: Path) -> bytes:
    return head_bytes(p, HEAD_BYTES)


# A UTF-16 text file starts with one of these byte-order marks (Windows PowerShell 5.1 writes a
# redirected log, `python train.py > log.txt`, and Tee-Object's file so): it is read as the same text in
# UTF-8 (read_bytes, head_bytes, open_utf8), so every reader, sniffer and the verifier see one text.
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def utf16_to_utf8(data: bytes) -> bytes:
    """UTF-16 bytes (a BOM first) as UTF-8; a cut last code unit or a lone surrogate is replaced."""
    return data.decode("utf-16", errors="replace").encode("utf-8")


class _Utf16AsUtf8:
    """A binary stream of a UTF-16 file's text as UTF-8 (read(n): about n bytes of the file per call)."""

    def __init__(self, path: Path):
        self.f = open(path, encoding="utf-16", errors="replace", newline="")   # (keeps "\r\n" as it is)

    def read(self, n: int = -1) -> bytes:
        return self.f.read(n if n < 0 else max(1, n // 2)).encode("utf-8")

    def close(self) -> None:
        self.f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open_utf8(path: Path):
    """A binary stream of the file's text: its bytes, gunzipped when it is gzip, UTF-8 when it is UTF-16."""
    with open(path, "rb") as f:
        magic = f.read(2)
    if magic in UTF16_BOMS:
        return _Utf16AsUtf8(path)
    return gzip.open(path, "rb") if magic == b"\x1f\x8b" else open(path, "rb")


def head_bytes(p: Path, n: int, lines: int = 0) -> bytes:
    """The first n bytes of p (gunzipped when it is gzip, as UTF-8 when it is UTF-16). lines: stop as soon
    as that many line ends are in (a sniffer that wants the header and a few rows, however wide the lines)."""
    with open(p, "rb") as f:
        head = f.read(min(n, HEAD_BYTES) if lines else n)
        if head[:2] in UTF16_BOMS:
            f.seek(0)
            head = f.read(2 * n)
            return utf16_to_utf8(head[:len(head) - len(head) % 2])[:n]
        gz = head[:2] == b"\x1f\x8b"
        if gz:
            f.seek(0)
            g = gzip.GzipFile(fileobj=f)
            head = b""
            src = g
        else:
            src = f
        try:
            while len(head) < n and (not lines or head.count(b"\n") < lines):
                b = src.read(min(n - len(head), max(HEAD_BYTES, len(head))))
                if not b:
                    break
                head += b
                if not lines:
                    break
        except (OSError, EOFError):     # a truncated gzip: what decompressed
            pass
    return head[:n]


class _Held:
    """A file's bytes as they stream in, at most `cap` held: the head, then a rolling tail; the part
    between is kept as its line ends only (see MAX_TEXT_BYTES)."""

    def __init__(self, cap: int):
        self.cap = cap
        self.head = bytearray()
        self.tail = bytearray()
        self.full = False           # the head is complete: new bytes go to the tail
        self.skipped = 0            # bytes dropped from the middle
        self.skipped_lines = 0
        self.nul = 0                # bytes of NUL runs (holes) dropped

    def feed(self, b: bytes) -> None:
        if b"\x00" * 64 in b:       # cheap test first: most chunks have no NUL run
            n = len(b)
            b = _NUL_RUN.sub(b"", b)
            self.nul += n - len(b)
        if not self.full:
            room = self.cap // 2 - len(self.head)
            self.head += b[:room]
            b = b[room:]
            if not b:
                return
            self.full = True
        self.tail += b
        if len(self.tail) > self.cap // 2 + _CHUNK:      # trim in batches
            self._trim(len(self.tail) - self.cap // 2)

    def _trim(self, cut: int) -> None:
        self.skipped_lines += self.tail.count(b"\n", 0, cut)
        self.skipped += cut
        del self.tail[:cut]

    def bytes(self) -> bytes:
        if not self.skipped and not self.full:
            return bytes(self.head)
        if len(self.tail) > self.cap // 2:
            self._trim(len(self.tail) - self.cap // 2)
        if not self.skipped:
            return bytes(self.head + self.tail)
        # cut at line ends on both sides, so the lines kept are whole and keep their numbers
        h = self.head.rfind(b"\n") + 1
        t = self.tail.find(b"\n") + 1
        self.skipped += len(self.head) - h + t
        self.skipped_lines += self.tail.count(b"\n", 0, t)
        return b"".join((memoryview(self.head)[:h], b"\n" * self.skipped_lines, memoryview(self.tail)[t:]))


_NUL_RUN = re.compile(rb"\x00{%d,}" % NUL_RUN)


def read_bytes(path: Path, rel: str | None = None, run: Run | None = None, cap: int = MAX_TEXT_BYTES) -> bytes:
    """A file's bytes, gunzipped when it is gzip (by magic bytes, not by name), bounded:

    - read up to the size it had when opened (a log still growing is read as it was then);
    - holes of a sparse file are skipped and NUL runs dropped (no line ends in them);
    - at most `cap` bytes held: the first and last cap/2, the middle as its line ends only.
    With rel and run, what was left out is said in one warning on run.
    """
    held = _Held(cap)
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        holes = has_holes(f.fileno(), size)      # (before any buffered read: it moves the file offset)
        gz = f.read(2) == b"\x1f\x8b"
        f.seek(0)
        if gz:
            g = gzip.GzipFile(fileobj=_Upto(f, size))
            try:
                while True:
                    b = g.read(_CHUNK)
                    if not b:
                        break
                    held.feed(b)
            except (OSError, EOFError):    # a truncated gzip (still being written): keep what decompresses
                pass
        elif size <= cap // 2 and not holes:
            data = f.read(size)            # the usual file: one read, held once
            if b"\x00" * 64 in data:
                n = len(data)
                data = _NUL_RUN.sub(b"", data)
                held.nul = n - len(data)
            held.head = None
        else:
            got = 0
            for _, b in data_blocks(f, size):
                got += len(b)
                held.feed(b)
            held.nul += size - got          # the holes jumped over
    if held.head is not None:
        data = held.bytes()
    if data[:2] in UTF16_BOMS:
        data = utf16_to_utf8(data)
    if run is not None and rel is not None and (held.skipped or held.nul > NUL_RUN * 16):
        bits = []
        if held.skipped:
            bits.append(f"{held.skipped / 2**20:,.0f} MB in the middle not read (over the "
                        f"{cap / 2**20:,.0f} MB held per file; line numbers kept)")
        if held.nul > NUL_RUN * 16:
            bits.append(f"{held.nul / 2**20:,.1f} MB of NUL bytes (holes) skipped")
        run.warnings.append(f"{rel}: " + "; ".join(bits))
    return data


class _Upto:
    """A file object that ends at `size` bytes (the size the file had when it was opened)."""

    def __init__(self, f, size: int):
        self.f, self.left = f, size

    def read(self, n: int = -1) -> bytes:
        if self.left <= 0:
            return b""
        b = self.f.read(self.left if n is None or n < 0 else min(n, self.left))
        self.left -= len(b)
        return b


def has_holes(fd: int, size: int) -> bool:
    """Whether the file has a hole before size (sparse); False where the OS cannot tell.
    The offset of fd is put back at 0."""
    try:
        return size > 0 and os.lseek(fd, 0, os.SEEK_HOLE) < size
    except (OSError, AttributeError):
        return False
    finally:
        os.lseek(fd, 0, os.SEEK_SET)


def data_blocks(f, size: int, start: int = 0, chunk: int = _CHUNK):
    """(file offset, bytes) of f from start up to size, in chunks of at most `chunk`, jumping over the
    holes of a sparse file (SEEK_DATA): a reader that walks a 2 GB sparse log reads only what was written."""
    fd, pos = f.fileno(), start
    seek_data = getattr(os, "SEEK_DATA", None)
    while pos < size:
        begin, end = pos, size
        if seek_data is not None:
            try:
                begin = os.lseek(fd, pos, seek_data)
                end = min(os.lseek(fd, begin, os.SEEK_HOLE), size)
            except OSError as e:
                if e.errno == errno.ENXIO:      # nothing but a hole after pos
                    return
                seek_data, begin, end = None, pos, size     # no SEEK_DATA on this file system
        if begin >= size:
            return
        os.lseek(fd, begin, os.SEEK_SET)
        while begin < end:
            b = os.read(fd, min(chunk, end - begin))
            if not b:
                return
            yield begin, b
            begin += len(b)
        pos = end


def drop_nul_runs(data: bytes) -> bytes:
    """data without its runs of NUL_RUN or more NUL bytes (holes, padding), as read_bytes gives them."""
    return _NUL_RUN.sub(b"", data) if b"\x00" * 64 in data else data


def read_text(path: Path, rel: str, run: Run) -> str:
    """Decoded text of a file (read_bytes: bounded): UTF-8, bad bytes replaced with a warning naming
    the first bad line."""
    return decode_utf8(read_bytes(path, rel, run), rel, run)


def decode_utf8(data: bytes, rel: str, run: Run) -> str:
    """data as UTF-8; bad bytes replaced, with one warning naming the first bad line."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        run.warnings.append(f"{rel}:{line}: not valid UTF-8; undecodable bytes replaced")
        return data.decode("utf-8", errors="replace")


# Archives a post attaches (GitHub takes .zip and .gz, .tar.gz from a cluster): their members are not read.
_ARCHIVES = ((b"PK\x03\x04", "zip"), (b"7z\xbc\xaf\x27\x1c", "7z"), (b"Rar!\x1a\x07", "rar"))


def binary_skipped(rel: str, head: bytes) -> str:
    """The warning for a binary file left unread: an archive says so and what to do instead."""
    kind = next((k for magic, k in _ARCHIVES if head.startswith(magic)), None)
    if kind is None and head[257:262] == b"ustar":
        kind = "tar"
    if kind:
        return f"{rel}: a {kind} archive, not read; unpack it and pass the folder"
    return f"{rel}: binary file, skipped"


def is_binary(head: bytes) -> bool:
    """Heuristic: NUL bytes or mostly non-text bytes in the head."""
    if not head:
        return False
    if b"\x00" in head:
        return True
    nontext = len(head[:1024].translate(None, _TEXT_OR_HIGH))   # bytes left: control bytes
    return nontext / min(len(head), 1024) > 0.3


# Printable ASCII, common whitespace/escapes, and every byte >= 128 (UTF-8): what is_binary keeps.
_TEXT_OR_HIGH = bytes(range(32, 127)) + b"\n\r\t\f\b\x1b" + bytes(range(128, 256))
