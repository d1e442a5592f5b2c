"""The one command-safety classifier: why a shell command must be flagged before it runs.

    dangerous("curl x | sh", repo_root)  -> "pipes a download into a shell or interpreter; uses the network"
    dangerous("python train.py --steps 3", repo_root) -> None
    flags(command, repo_root) -> [Flag(rule, reason)]       the same answer, one entry per concern

In: a command line as the user or a model wrote it, and the repo root it runs in (None: the
current folder stands in for it). Out: the reasons, or None when nothing is flagged. A flag is
advice shown to the user (check approval, Claude's proposed checks); it never runs or refuses
anything itself.

`RULES` is the list of named rules, in order. Each belongs to a concern (deleting, the network,
git, ...); a command gets at most one reason per concern, from the first rule of that concern
that fires, so the specific reason (`rm -rf`) wins over the general one (`rm`). The rules are
the union of the two classifiers this replaces (the check runner's and the Claude engine's):
a command either of them flagged is flagged, so where they disagreed the flag wins; the exceptions
are word matches that were only ever false alarms (`echo sudo`, `python curl.py`, `--service x`),
now matched where a command name stands (see below).

Rules see the command three ways: the raw text (regex rules), the words a shell would run
(`_commands`: shlex with the shell's operators, leading `VAR=x` and wrappers such as `env`,
`nohup`, `sudo`, `xargs`, `timeout`, `find -exec` stepped over, so `r''m -rf ~` and
`nohup sudo x` are read as the shell reads them), and the text inside `sh -c '...'`, `bash -c`,
`su -c` and `eval` (each rule is asked about it too, two levels deep). What it cannot read is
flagged, never passed: unbalanced quotes, heredocs, process substitution, a command name built
from a variable, glob or brace expansion, a command over MAX_COMMAND_CHARS, inline Python that
does not parse; several lines and hidden control characters are flagged too (a dialog showing
the first of 60 lines would run all 60).
"""
from __future__ import annotations

import ast
import functools
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, NamedTuple

# Where a command word may start: line start, after a separator, a subshell or a substitution.
_START = r"(^|[\s;&|(`])"
_NETWORK = r"(?:curl|wget|ssh|scp|sftp|rsync|nc|ncat|netcat|telnet|ftp|aria2c|http|huggingface-cli|gsutil|aws|az|gcloud)"
# Write targets that never leave the machine's scratch space or the terminal.
_HARMLESS_TARGETS = ("/dev/null", "/dev/stdout", "/dev/stderr")
_TEMP_DIRS = ("/tmp", "/var/tmp")
# Longer than this, a command is flagged as unreadable and only the raw-text rules run on its first
# part: no check or model-proposed command is near it (the longest playbook check is ~120 characters).
MAX_COMMAND_CHARS = 10_000


class Flag(NamedTuple):
    """One reason to flag a command: the rule's name and the phrase shown after "this command"."""

    rule: str
    reason: str


@dataclass(frozen=True)
class Rule:
    """A named way a command can do harm.

    pattern: a regex searched in the command; or find(command, repo_root) -> a detail (the
    reason is then `why (detail)`; "" for no detail) or None when the rule does not fire.
    """

    name: str
    concern: str
    why: str
    pattern: re.Pattern[str] | None = None
    find: Callable[[str, Path | None], str | None] | None = None

    def match(self, command: str, repo_root: Path | None) -> str | None:
        """The reason this rule gives for command, or None."""
        if self.pattern is not None:
            return self.why if self.pattern.search(command) else None
        detail = self.find(command, repo_root) if self.find is not None else None
        if detail is None:
            return None
        return f"{self.why} ({detail})" if detail else self.why


def _rx(pattern: str, dotall: bool = False) -> re.Pattern[str]:
    return re.compile(pattern, re.I | (re.S if dotall else 0))


# ----- reading a command as the shell would --------------------------------------------------------
_OPERATORS = {";", "&", "&&", "|", "||", "|&", "(", ")", "\n", ";;", "&|"}
_REDIRECTS = re.compile(r"^\d*(?:[<>]{1,2}|>&|<&|&>>?|>\|)$")
# Words that run the rest of their command line as a command: (name, options that take a value).
_WRAPPERS: dict[str, frozenset[str]] = {
    "env": frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}),
    "nohup": frozenset(), "time": frozenset({"-f", "-o"}), "command": frozenset(), "builtin": frozenset(),
    "exec": frozenset({"-a"}), "nice": frozenset({"-n", "--adjustment"}), "ionice": frozenset({"-c", "-n", "-p"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}), "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
    "setsid": frozenset(), "chroot": frozenset(), "strace": frozenset({"-o", "-e", "-p", "-s"}),
    "xargs": frozenset({"-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--delimiter", "--max-args", "--max-procs"}),
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "--user", "--group"}),
    "doas": frozenset({"-u", "-C"}), "pkexec": frozenset({"--user"}), "runuser": frozenset({"-u", "-g", "-l"}),
    "watch": frozenset({"-n", "--interval", "-d"}), "parallel": frozenset({"-j", "--jobs"}),
    "taskset": frozenset({"-c"}), "numactl": frozenset(),
}
_WRAPPER_FIRST_ARG = {"timeout", "taskset", "chroot"}     # these take one plain argument before the command
_RUNNERS = {"uv", "poetry", "pipenv", "pdm", "hatch", "conda", "mamba", "micromamba", "pixi"}   # `X run CMD`
_RUNNER_OPTS = frozenset({"-n", "--name", "-p", "--prefix", "-e", "--env", "--with", "--python"})
_SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "fish", "busybox"}
_PRIVILEGE = {"sudo", "doas", "su", "pkexec", "runuser"}
_NETWORK_PROGRAMS = {"curl", "wget", "ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "telnet", "ftp", "aria2c",
                     "socat", "huggingface-cli", "gsutil", "aws", "az", "gcloud", "http", "https"}
_MACHINE_PROGRAMS = {"kill", "pkill", "killall", "shutdown", "reboot", "halt", "poweroff", "systemctl", "service",
                     "crontab", "at", "launchctl", "telinit", "init", "nohup", "setsid", "disown", "daemonize"}


@dataclass(frozen=True)
class Command:
    """One simple command as the shell runs it: the programs on its way (wrappers first, then the
    one that runs; basenames) and the arguments of the last."""

    programs: tuple[str, ...]
    argv: tuple[str, ...]
    writes: tuple[str, ...] = ()       # redirect targets: `> f`, `>> f`, `&> f`

    @property
    def program(self) -> str:
        return self.programs[-1] if self.programs else ""


def _lex(command: str) -> list[str] | None:
    """The shell words and operators of command (quotes removed, as the shell would), or None
    when it does not parse (unbalanced quotes, a trailing backslash)."""
    lex = shlex.shlex(command, posix=True, punctuation_chars="();<>|&\n")
    lex.whitespace_split = True
    lex.whitespace = " \t\r"
    lex.commenters = ""
    try:
        return list(lex)
    except ValueError:
        return None


@functools.lru_cache(maxsize=256)
def _commands(command: str) -> tuple[Command, ...] | None:
    """The simple commands in command, wrappers stepped over; None when it does not parse."""
    words = _lex(command)
    if words is None:
        return None
    out: list[Command] = []
    cur: list[str] = []
    for w in words + [";"]:
        if w in _OPERATORS or (w and set(w) <= set("();<>|&\n") and not _REDIRECTS.match(w)):
            if cur:
                out += _unwrap(cur)
            cur = []
        else:
            cur.append(w)
    return tuple(out)


def _unwrap(words: list[str]) -> list[Command]:
    """A word list -> the command it runs (and, for find -exec, the command it runs per file)."""
    programs: list[str] = []
    i, n = 0, len(words)
    extra: list[Command] = []
    writes = tuple(words[j + 1] for j, w in enumerate(words[:-1])
                   if _REDIRECTS.match(w) and ">" in w and not w.endswith("&") and not words[j + 1].isdigit())
    while i < n:
        w = words[i]
        if _REDIRECTS.match(w):              # `> file`, `2>&1`: the redirect and its target
            i += 2
            continue
        if re.match(r"^[A-Za-z_]\w*=", w) and not programs or (programs and programs[-1] == "env" and "=" in w
                                                              and not w.startswith("-")):
            i += 1
            continue
        base = os.path.basename(w)
        programs.append(base)
        opts = _WRAPPERS.get(base)
        if base in _RUNNERS and i + 1 < n and words[i + 1] == "run":
            i += 2
            while i < n and words[i].startswith("-"):
                i += 2 if words[i] in _RUNNER_OPTS else 1
            continue
        if opts is None:
            args = tuple(x for j, x in enumerate(words[i + 1:], i + 1)
                         if not _REDIRECTS.match(x) and not (j > 0 and _REDIRECTS.match(words[j - 1])))
            if base == "find":       # -exec / -execdir / -ok CMD ... ; runs CMD per file
                for j, x in enumerate(args):
                    if x in ("-exec", "-execdir", "-ok", "-okdir"):
                        rest = list(args[j + 1:])
                        end = next((k for k, y in enumerate(rest) if y in (";", "+", "\\;")), len(rest))
                        if rest[:end]:
                            extra += _unwrap(rest[:end])
            return [Command(tuple(programs), args, writes)] + extra
        i += 1
        while i < n and words[i].startswith("-") and words[i] != "-":
            i += 2 if words[i] in opts else 1
        if base in _WRAPPER_FIRST_ARG and i < n:
            i += 1
    return [Command(tuple(programs), (), writes)] if programs else []


def _inner(command: str, depth: int = 2) -> list[str]:
    """The command texts inside command: `sh -c TEXT`, `su -c TEXT`, `eval WORDS`, two levels deep."""
    if depth <= 0 or len(command) > MAX_COMMAND_CHARS:
        return []
    out: list[str] = []
    for c in _commands(command) or ():
        text = None
        if c.program in _SHELLS or c.program == "su":
            if "-c" in c.argv[:-1] or any(re.fullmatch(r"-\w*c", a) for a in c.argv[:-1]):
                k = next(j for j, a in enumerate(c.argv) if a == "-c" or re.fullmatch(r"-\w*c", a))
                text = c.argv[k + 1] if k + 1 < len(c.argv) else None
        elif c.program == "eval":
            text = " ".join(c.argv)
        if text:
            out += [text] + _inner(text, depth - 1)
    return out


# ----- rules that need more than a regex ----------------------------------------------------------
_WRITE_TARGETS = re.compile(r"(?:\d?>>?|&>)\s*(\"[^\"]*\"|'[^']*'|[^\s;&|<>]+)")
# Options whose value is a path the program writes to.
_WRITE_OPTS = {"curl": ("-o", "--output"), "wget": ("-O", "--output-document", "-P", "--directory-prefix"),
               "tar": ("-C", "--directory"), "unzip": ("-d",), "git": ("-C",)}


def _write_outside(command: str, repo_root: Path | None) -> str | None:
    """The first write target outside the repo (and the temp dirs): redirects, tee, the targets of
    cp/mv/ln/install/rsync/touch/mkdir/rm/rmdir/truncate, files edited in place (sed -i, perl -i),
    the folders find deletes in, `dd of=`, download and unpack targets; relative paths after a
    `cd` elsewhere count from there. None when every target stays inside."""
    root = Path(repo_root).resolve() if repo_root else None
    targets = [m.group(1).strip("'\"") for m in _WRITE_TARGETS.finditer(command)]
    found = next((t for t in targets if not _inside(t, root)), None)
    if found is not None:
        return found
    where: Path | None = root or Path.cwd().resolve()     # None: a `cd` we cannot follow
    moved = False
    for c in _commands(command) or ():
        base, args = c.program, list(c.argv)
        plain = [x for x in args if not x.startswith("-")]
        targets = list(c.writes)
        if base in ("cd", "pushd"):         # not a write itself: what follows counts from there
            where, moved = _resolve(plain[0] if plain else "~", where), True
            continue
        if base == "tee":
            targets += plain[:1]
        elif base in ("cp", "mv", "ln", "install", "rsync"):
            targets += plain[-1:]
        elif base in ("touch", "mkdir", "rm", "rmdir", "truncate", "shred", "unlink"):
            targets += plain
        elif base in ("sed", "perl") and any(re.fullmatch(r"-\w*i\S*|--in-place\S*", a) for a in args):
            targets += plain[1:] if base == "sed" or "-e" not in args else plain
        elif base == "find" and any(a in ("-delete", "-exec", "-execdir", "-ok") for a in args):
            targets += [a for a in args[:next((k for k, a in enumerate(args) if a.startswith("-")), len(args))]] or ["."]
        elif base == "dd":
            targets += [a[3:] for a in args if a.startswith("of=")]
        for opt in _WRITE_OPTS.get(base, ()):
            targets += [args[k + 1] for k, a in enumerate(args[:-1]) if a == opt]
            targets += [a.split("=", 1)[1] for a in args if a.startswith(opt + "=") and opt.startswith("--")]
        for t in targets:
            if not _inside(t, root, where if moved else _ROOT):
                return str(where / t) if moved and where is not None and not os.path.isabs(os.path.expanduser(t)) else t
    return None


def _resolve(dest: str, where: Path | None) -> Path | None:
    """Where `cd dest` from `where` lands, or None when it cannot be known (`cd -`, a variable)."""
    if where is None or dest == "-" or "$" in dest.replace("$HOME", "").replace("${HOME}", ""):
        return None
    d = os.path.expanduser(os.path.expandvars(dest))
    return Path(os.path.normpath(Path(d) if os.path.isabs(d) else where / d))


_ROOT = Path("/dev/null/the-repo-root")     # a stand-in: `where` not given


def _inside(target: str, root: Path | None, where: Path | None = _ROOT) -> bool:
    """Whether a write target stays in the repo (relative, no escaping ..) or a temp dir.
    where: the folder relative targets count from (default the repo root; None after a `cd` that
    cannot be followed: a relative target is then taken as outside)."""
    if target in _HARMLESS_TARGETS or target.startswith("&") or target.isdigit():
        return True
    t = os.path.expanduser(os.path.expandvars(target))
    if t in _TEMP_DIRS or t.startswith(tuple(d + "/" for d in _TEMP_DIRS)):
        return True
    if t.startswith(("~", "$")):
        return False
    base = root or Path.cwd().resolve()
    p = Path(t)
    if not p.is_absolute():
        if where is None:
            return False
        p = (base if where is _ROOT else where) / p
    p = Path(os.path.normpath(p))
    return p == base or base in p.parents


def _several_lines(command: str, repo_root: Path | None) -> str | None:
    n = command.strip().count("\n") + 1
    return f"{n} lines, and every one of them runs" if n > 1 else None


_HIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff]")


def _hidden_characters(command: str, repo_root: Path | None) -> str | None:
    m = _HIDDEN.search(command)
    if m is None:
        return None
    c = m.group(0)
    return "^" + chr(ord(c) + 0x40) if ord(c) < 0x20 else f"U+{ord(c):04X}"


def _unreadable(command: str, repo_root: Path | None) -> str | None:
    """Why the command cannot be read reliably: what the shell does with it is not what it shows."""
    if len(command) > MAX_COMMAND_CHARS:
        return f"{len(command)} characters"
    words = _lex(command)
    if words is None:
        return "unbalanced quotes or a trailing backslash"
    if any(w in ("<<", "<<-") or w.startswith("<<") and w != "<<<" for w in words):
        return "a heredoc feeds it text that is not shown as a command"
    if re.search(r"[<>]\(", command):
        return "process substitution"
    return None


def _command_from_variable(command: str, repo_root: Path | None) -> str | None:
    """A command name the shell builds at run time: `$X`, `${CMD}`, `rm${IFS}-rf`, `{rm,-rf,~}`, `/bin/r?`."""
    for c in _commands(command) or ():
        for word in c.programs:
            if "$" in word or re.fullmatch(r"\{.*,.*\}", word) or re.search(r"[*?\[]", word):
                return word
    return None


def _privilege_in_chain(command: str, repo_root: Path | None) -> str | None:
    for c in _commands(command) or ():
        if any(p in _PRIVILEGE for p in c.programs):
            return ""
    return None


def _network_program(command: str, repo_root: Path | None) -> str | None:
    for c in _commands(command) or ():
        if c.program in _NETWORK_PROGRAMS:
            return ""
        if c.program.startswith("python") and len(c.argv) > 1 and c.argv[0] == "-m" and \
                c.argv[1] in ("http.server", "SimpleHTTPServer", "smtpd", "ftplib", "pip") and \
                (c.argv[1] != "pip" or (len(c.argv) > 2 and c.argv[2] in ("install", "download"))):
            return f"python -m {c.argv[1]}"
    return None


def _machine_program(command: str, repo_root: Path | None) -> str | None:
    for c in _commands(command) or ():
        if any(p in _MACHINE_PROGRAMS for p in c.programs):
            return ""
    return None


def _deleting_program(command: str, repo_root: Path | None) -> str | None:
    """rm/rmdir/unlink/shred where the shell would run them (quotes and wrappers do not hide them)."""
    for c in _commands(command) or ():
        if c.program in ("rm", "rmdir", "unlink", "shred", "srm"):
            return c.program
    return None


def _find_delete(command: str, repo_root: Path | None) -> str | None:
    for c in _commands(command) or ():
        if c.program == "find" and "-delete" in c.argv:
            return "find -delete"
    return None


def _in_place_edit(command: str, repo_root: Path | None) -> str | None:
    for c in _commands(command) or ():
        if c.program in ("sed", "perl", "ruby") and any(re.fullmatch(r"-\w*i\S*|--in-place\S*", a) for a in c.argv):
            return f"{c.program} -i"
    return None


_GIT_GLOBAL_WITH_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"})
_GIT_CHANGING = {"push", "reset", "clean", "checkout", "restore", "rebase", "commit", "stash", "rm", "mv", "apply", "am",
                 "merge", "pull", "fetch", "clone", "config", "worktree", "branch", "tag", "switch", "gc", "prune",
                 "update-ref", "filter-branch", "remote", "submodule", "lfs", "notes", "replace", "cherry-pick", "revert"}


def _git_subcommand(command: str, repo_root: Path | None) -> str | None:
    """`git -C elsewhere push`, `git -c k=v reset`: the subcommand after git's own options."""
    for c in _commands(command) or ():
        if c.program != "git":
            continue
        i = 0
        while i < len(c.argv) and c.argv[i].startswith("-"):
            i += 2 if c.argv[i] in _GIT_GLOBAL_WITH_VALUE else 1
        if i < len(c.argv) and c.argv[i] in _GIT_CHANGING and (i > 0 or c.argv[i] in ("worktree", "branch", "tag",
                                                                                        "gc", "prune", "remote")):
            # (without options before it, the regex rules above already named the plain forms)
            if c.argv[i] == "branch" and not any(a in ("-d", "-D", "-m", "-M", "--delete") for a in c.argv[i + 1:]):
                continue
            if c.argv[i] in ("tag", "remote") and len(c.argv) == i + 1:
                continue
            return f"git {c.argv[i]}"
    return None


# Inline Python (`python -c CODE`): read it, never run it. Any call into these modules acts on the
# world (runs processes, reaches the network, calls C); into the file-system ones only these calls do.
_PY_ANY_CALL = {"subprocess", "socket", "requests", "http", "ftplib", "smtplib", "ctypes", "pty", "paramiko", "httpx",
                "aiohttp", "webbrowser", "telnetlib", "urllib.request", "asyncio.subprocess"}
_PY_FS_MODULES = {"os", "shutil", "pathlib", "posix", "signal", "importlib", "builtins", "io", "tempfile", "glob", "sys"}
_PY_FS_CALLS = {"system", "popen", "remove", "unlink", "rmdir", "removedirs", "rmtree", "rename", "renames", "replace",
                "chmod", "chown", "lchown", "kill", "killpg", "truncate", "symlink", "link", "execv", "execve", "execl",
                "execle", "execlp", "execvp", "execvpe", "spawnl", "spawnv", "spawnlp", "spawnvp", "fork", "forkpty",
                "write_text", "write_bytes", "move", "copy", "copy2", "copyfile", "copytree", "touch", "mkdir",
                "makedirs", "setuid", "putenv", "import_module", "symlink_to", "hardlink_to", "chdir", "startfile"}
# Called on anything (the module may arrive by a route the reader does not follow: getattr, a dict).
_PY_ALWAYS = {"system", "popen", "rmtree", "Popen", "check_output", "check_call", "urlopen", "urlretrieve",
              "removedirs", "execv", "execve", "execvp", "spawnv", "forkpty", "b64decode", "write_text", "write_bytes"}
_PY_BUILTINS = {"exec", "eval", "compile", "__import__", "breakpoint"}


def _inline_python(command: str, repo_root: Path | None) -> str | None:
    """What `python -c CODE` does that acts on the world (the call), read with ast; code that does
    not parse is flagged too. None when every call stays inside the interpreter."""
    for c in _commands(command) or ():
        if not re.fullmatch(r"python[\d.]*|pypy[\d.]*|ipython", c.program):
            continue
        code = None
        for k, a in enumerate(c.argv):
            if a == "-c" or re.fullmatch(r"-[A-Za-z]*c", a):
                code = c.argv[k + 1] if k + 1 < len(c.argv) else ""
                break
            if not a.startswith("-") or a in ("-m", "-"):
                break
        if code is None:
            continue
        why = _python_effect(code)
        if why is not None:
            return why
    return None


def _python_effect(code: str) -> str | None:
    """The first call in code that acts on the world (named), or None; code that does not parse
    gives "code it cannot read"."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return "code it cannot read"
    modules: dict[str, str] = {}          # local name -> the module (or module.name) it stands for
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                modules[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                modules[a.asname or a.name] = f"{node.module}.{a.name}"
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Name) and f.id in _PY_BUILTINS:
            return f.id
        if isinstance(f, ast.Name) and f.id == "open" and _writes(node):
            return "open for writing"
        if isinstance(f, ast.Name) and f.id == "getattr" and len(node.args) > 1 and not isinstance(node.args[1], ast.Constant):
            return "getattr with a computed name"
        if isinstance(f, ast.Attribute) and f.attr in _PY_ALWAYS:
            return f.attr
        if isinstance(f, ast.Attribute) and f.attr == "open" and _writes(node, mode_pos=0):
            return "open for writing"
        path = _dotted(f, modules)
        if path is None:
            continue
        if any(path == m or path.startswith(m + ".") for m in _PY_ANY_CALL):
            return path
        head, last = path.split(".", 1)[0], path.rsplit(".", 1)[-1]
        if head in _PY_FS_MODULES and last in _PY_FS_CALLS:
            return path
    return None


def _dotted(f: ast.expr, modules: dict[str, str]) -> str | None:
    """The module path a call goes to (`s.rmtree` after `import shutil as s` -> shutil.rmtree;
    `Path(x).unlink` after `from pathlib import Path` -> pathlib.Path.unlink), or None when its
    root is not an imported name. Through a call only for pathlib's Path (a method of its result)."""
    parts: list[str] = []
    node = f
    while True:
        if isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Call) and _dotted(node.func, modules) in ("pathlib.Path", "pathlib.PosixPath",
                                                                             "pathlib.PurePath"):
            node = node.func
        else:
            break
    if not isinstance(node, ast.Name) or node.id not in modules:
        return None
    return ".".join([modules[node.id]] + parts[::-1])


def _writes(call: ast.Call, mode_pos: int = 1) -> bool:
    """Whether an open() call's mode writes (w, a, x, +); a mode that is not a constant counts."""
    mode = call.args[mode_pos] if len(call.args) > mode_pos else next((k.value for k in call.keywords if k.arg == "mode"), None)
    if mode is None:
        return False
    if not isinstance(mode, ast.Constant) or not isinstance(mode.value, str):
        return True
    return bool(set(mode.value) & set("wax+"))


def _other_inline_code(command: str, repo_root: Path | None) -> str | None:
    """perl -e, ruby -e, node -e, php -r, Rscript -e: inline code this module does not read."""
    for c in _commands(command) or ():
        prog = re.sub(r"[\d.]+$", "", c.program)
        flag = {"perl": "-e", "ruby": "-e", "node": "-e", "php": "-r", "Rscript": "-e", "lua": "-e", "osascript": "-e"}.get(prog)
        if flag and any(a == flag or a == "-E" and prog == "perl" or re.fullmatch(r"-[A-Za-z]*e", a) for a in c.argv):
            return f"{c.program} {flag}"
    return None


# ----- the rules, in order ----------------------------------------------------------------------
# Within a concern the specific rule comes first: its reason is the one shown.
RULES: tuple[Rule, ...] = (
    # running code the command did not spell out
    Rule("pipe_download_to_shell", "runs_code", "pipes a download into a shell or interpreter",
         _rx(r"\b(?:curl|wget|fetch)\b[^|;&]*\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b"
             r"|\b(?:curl|wget)\b[^|;&]*\|\s*(?:sudo\s+)?python", dotall=True)),
    Rule("decode_and_run", "runs_code", "decodes hidden text and runs it",
         _rx(r"\A(?=.*\b(?:base64\s+(?:-\w*d\w*|--decode)|b64decode|xxd\s+(?:-\w+\s+)*-r|openssl\s+(?:enc\s+|base64\s+)"
             r"(?:-\S+\s+)*-d|uudecode|rev\b|tr\s+['\"]?[a-z]-[a-z]['\"]?\s+['\"]?[a-z]-[a-z]|printf\s+['\"]?\\\\x))"
             r"(?=.*(?:\beval\b|\|\s*(?:ba|z|da|k)?sh\b|\|\s*python|\|\s*perl|\$\(|`|\bexec\b))", dotall=True)),
    Rule("runs_generated_code", "runs_code", "runs generated or downloaded code",
         _rx(r"\|\s*(ba|z|k|da)?sh\b|\|\s*python\d*(\s+-)?\s*($|[;&|])|\beval\s|\bexec\s|`|\$\(")),
    Rule("command_from_variable", "runs_code", "runs a command whose name is built at run time",
         find=_command_from_variable),
    # privilege
    Rule("run_as_other_user", "privilege", "runs as another user (sudo/su)",
         _rx(r"(?:^|[;&|(`]|\$\()\s*(?:sudo|doas|su|pkexec)\b", dotall=True)),
    Rule("privilege_in_chain", "privilege", "runs as another user (sudo/su)", find=_privilege_in_chain),
    # deleting
    Rule("delete_home_or_root", "delete", "deletes a home, root or whole folder (rm)",
         _rx(r"\brm\s+(?:-\S+\s+)*(?:/|~|\$HOME|\*|\.\.?)(?:\s|/?$)", dotall=True)),
    Rule("delete_recursive", "delete", "deletes files recursively (rm -rf)",
         _rx(r"\brm\s+(?:-[a-z]*r[a-z]*\s+(?:-[a-z]+\s+)*-?[a-z]*f|-[a-z]*f[a-z]*\s+(?:-[a-z]+\s+)*-[a-z]*r"
             r"|-[a-z]*(?:rf|fr))|\brm\b[^;&|]*\s--recursive", dotall=True)),
    Rule("find_delete", "delete", "deletes files (find -delete)", find=_find_delete),
    Rule("delete_files", "delete", "deletes files (rm)", _rx(_START + r"rm\s")),
    Rule("delete_files_or_folders", "delete", "deletes files (rmdir/unlink)", _rx(_START + r"(rmdir|unlink)\b")),
    Rule("deleting_program", "delete", "deletes files", find=_deleting_program),
    # disks
    Rule("write_disk_device", "disk", "writes to a disk device",
         _rx(r">\s*/dev/(?:sd|nvme|hd|vd|xvd|mmcblk|disk)", dotall=True)),
    Rule("format_disk", "disk", "formats or wipes a disk",
         _rx(r"\b(?:mkfs(?:\.\w+)?|fdisk|sfdisk|parted|wipefs|shred|mkswap|blkdiscard)\b", dotall=True)),
    Rule("raw_write_dd", "disk", "writes raw bytes with dd", _rx(r"\bdd\b[^;&|]*\bof=", dotall=True)),
    Rule("destroy_files_or_disks", "disk", "destroys files or disks",
         _rx(_START + r"(shred|mkfs(\.\w+)?|dd|fdisk|parted|wipefs)\b")),
    # fork bombs
    Rule("fork_bomb", "fork_bomb", "starts a fork bomb", _rx(r":\s*\(\s*\)\s*\{[^}]*:\s*\|\s*:", dotall=True)),
    Rule("fork_bomb_start", "fork_bomb", "starts a fork bomb", _rx(r":\(\)\s*\{")),
    # git
    Rule("git_push", "git", "pushes to a git remote", _rx(r"\bgit\s+(?:-\S+\s+)*push\b", dotall=True)),
    Rule("git_discard_work", "git",
         "discards uncommitted work in the repo (git reset --hard / clean / checkout -- / restore / stash)",
         _rx(r"\bgit\s+(?:-\S+\s+)*(?:reset\s+(?:\S+\s+)*--hard|clean\s+(?:\S+\s+)*-\w*f|checkout\s+(?:\S+\s+)*--\s"
             r"|restore\b|stash\b)", dotall=True)),
    Rule("git_changes_repo", "git", "changes the git repository or reaches a remote",
         _rx(r"\bgit\s+(push|reset|clean|checkout|restore|rebase|commit|stash|rm|mv|apply|am|merge|pull|fetch|clone"
             r"|config)\b")),
    Rule("git_subcommand", "git", "changes the git repository or reaches a remote", find=_git_subcommand),
    # the machine and other processes (names matched whole: not `--service`, `kill_switch.py`)
    Rule("control_machine", "machine", "controls the machine or other processes",
         _rx(r"(?<![\w.-])(?:shutdown|reboot|halt|poweroff|systemctl|service|killall|pkill)(?![\w.-])"
             r"|\bkill\s+(?:-\S+\s+)*-1\b", dotall=True)),
    Rule("signal_or_schedule", "machine", "controls the machine or other processes", find=_machine_program),
    # files: permissions, moves, overwrites
    Rule("change_permissions", "files", "changes permissions or ownership",
         _rx(r"\bchmod\s+(?:-\S+\s+)*(?:-R|--recursive)\b|\bchown\b", dotall=True)),
    Rule("move_or_overwrite", "files", "moves, overwrites or changes permissions of files",
         _rx(_START + r"(mv|cp|chmod|chown|chgrp|ln|truncate|install)\s")),
    Rule("edit_in_place", "files", "edits files in place", find=_in_place_edit),
    # packages
    Rule("install_packages", "packages", "installs or removes packages",
         _rx(r"\b(?:pip|pip3|conda|mamba|apt|apt-get|yum|dnf|brew|npm|uv)\s+(?:[^;&|\s]+\s+)*?"
             r"(?:install|uninstall|remove|upgrade|add)(?:\s|$)", dotall=True)),
    Rule("install_packages_word", "packages", "installs or removes packages",
         _rx(_START + r"(pip\d*|conda|mamba|uv|apt(-get)?|yum|brew|npm)\s+(install|uninstall|remove|upgrade|update)\b")),
    # the network
    Rule("network", "network", "uses the network",
         _rx(r"(?:^|[;&|(`]|\$\()\s*" + _NETWORK + r"\b(?![.\w-])|\bgit\s+(?:clone|fetch|pull|submodule\s+update|lfs\s+pull)\b"
             r"|\b(?:https?|ftp|s3|gs)://", dotall=True)),
    Rule("network_program", "network", "uses the network", find=_network_program),
    # inline code (python -c ...)
    Rule("inline_code_effects", "inline_code", "runs inline code that writes files, runs commands or reaches the network",
         _rx(r"\b(os\.(system|remove|unlink|rmdir|removedirs|rename|replace|chmod|popen|exec\w*)|shutil\.(rmtree|move|copy\w*)"
             r"|subprocess\.|urllib\.|requests\.|socket\.|open\([^)]*['\"][wax+]['\"])")),
    Rule("inline_python", "inline_code", "runs inline code that writes files, runs commands or reaches the network",
         find=_inline_python),
    Rule("inline_code_unread", "inline_code", "runs inline code in another language, unread", find=_other_inline_code),
    # writes outside the repo
    Rule("write_outside_repo", "writes", "writes outside the repo", find=_write_outside),
    Rule("redirect_outside_repo", "writes", "writes outside the repo",
         _rx(r"(>>?|\btee\s+(-a\s+)?)\s*(?!/dev/null\b)(~|/|\$HOME|\.\./)")),
    # system files
    Rule("system_files", "system_files", "touches system or shell configuration files",
         _rx(r"(^|[\s'\"=:/])(/etc/|/dev/sd|/boot/|/root/|/usr/(?:local/)?(?:s?bin|lib)/|~/\.ssh|\.ssh/"
             r"|\.(?:bashrc|bash_profile|bash_login|bash_logout|profile|zshrc|zprofile|zshenv|cshrc|tcshrc|inputrc"
             r"|netrc|gitconfig|pypirc|npmrc|config/fish)\b)")),
    # what cannot be read, or is not all shown
    Rule("several_lines", "shape", "spans several lines", find=_several_lines),
    Rule("hidden_characters", "hidden", "holds control or invisible characters that hide what runs",
         find=_hidden_characters),
    Rule("unreadable", "unreadable", "cannot be read reliably", find=_unreadable),
)


def flags(command: str | None, repo_root: str | Path | None = None) -> list[Flag]:
    """Every reason to flag command, one per concern (the first rule of that concern that fires), in rule order.
    Each rule is asked about the command and about the commands inside it (`sh -c '...'`, `eval ...`)."""
    if not command:
        return []
    root = Path(repo_root) if repo_root else None
    texts = [command] + (_inner(command) if len(command) <= MAX_COMMAND_CHARS else [])
    if len(command) > MAX_COMMAND_CHARS:
        texts = [command[:MAX_COMMAND_CHARS]]     # the raw-text rules on its start; `unreadable` says why
    out: list[Flag] = []
    seen: set[str] = set()
    for rule in RULES:
        if rule.concern in seen:
            continue
        asked = [command] if rule.name == "unreadable" else texts
        reason = next((r for r in (rule.match(t, root) for t in asked) if r is not None), None)
        if reason is not None:
            seen.add(rule.concern)
            out.append(Flag(rule.name, reason))
    return out


def dangerous(command: str | None, repo_root: str | Path | None = None) -> str | None:
    """Why command should be flagged before it runs (the reasons joined by "; "), or None.

    repo_root: where it runs; writes to paths outside it (and outside /tmp) are flagged. Without
    it the current folder stands in for the repo.
    """
    found = flags(command, repo_root)
    return "; ".join(dict.fromkeys(f.reason for f in found)) or None
