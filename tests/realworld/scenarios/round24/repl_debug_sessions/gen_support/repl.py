"""Small helpers that really execute code and record it the way an
interactive session (IPython / plain python REPL / pdb) would have shown it."""
import ast
import contextlib
import io
import linecache
import pdb
import sys
import traceback
import types
import warnings
import inspect

_REAL_SITE = None
_REAL_STDLIB = None


def _init_paths():
    global _REAL_SITE, _REAL_STDLIB
    import torch
    _REAL_SITE = torch.__file__.rsplit("/torch/", 1)[0]
    _REAL_STDLIB = traceback.__file__.rsplit("/", 1)[0]


class PathMap:
    """Rewrites machine paths into the user's paths."""

    def __init__(self, site, stdlib="/usr/lib/python3.11", home=None):
        if _REAL_SITE is None:
            _init_paths()
        self.site, self.stdlib, self.home = site, stdlib, home

    def __call__(self, text):
        text = text.replace(_REAL_SITE, self.site)
        text = text.replace(_REAL_STDLIB, self.stdlib)
        return text

    def tilde(self, text):
        text = self(text)
        if self.home and text.startswith(self.home):
            text = "~" + text[len(self.home):]
        return text


def register_source(filename, src):
    lines = src.splitlines(True)
    linecache.cache[filename] = (len(src), None, lines, filename)


def load_module(name, src, filename):
    """Compile src under a user's filename and import it as module `name`."""
    register_source(filename, src)
    mod = types.ModuleType(name)
    mod.__file__ = filename
    sys.modules[name] = mod
    exec(compile(src, filename, "exec"), mod.__dict__)
    return mod


def _fmt_warning(w, pm):
    return pm(warnings.formatwarning(w.message, w.category, w.filename, w.lineno))


class Session:
    """style: 'ipython' or 'python'."""

    def __init__(self, ns, style="ipython", pm=None, start=1):
        self.ns = ns
        self.style = style
        self.pm = pm or PathMap("/usr/lib/python3/dist-packages")
        self.n = start
        self.out = []
        self.seen_warn = set()
        self.scripts = {}

    def text(self):
        return "".join(self.out)

    def note(self, s):
        self.out.append(s)

    # -- input echo
    def _echo(self, src):
        lines = src.rstrip("\n").split("\n")
        if self.style == "ipython":
            p = f"In [{self.n}]: "
            c = " " * (len(p) - 5) + "...: "
            s = p + lines[0] + "\n"
            for l in lines[1:]:
                s += c + l + "\n"
            if len(lines) > 1 and lines[-1].startswith(" "):
                s += c.rstrip() + "\n"
        else:
            s = ">>> " + lines[0] + "\n"
            for l in lines[1:]:
                s += "... " + l + "\n"
            if len(lines) > 1:
                s += "...\n"
        self.out.append(s)

    def cell(self, src, show=True):
        src = src.strip("\n")
        self._echo(src)
        if self.style == "ipython":
            fn = f"<ipython-input-{self.n}>"
        else:
            fn = "<stdin>"
        if self.style == "ipython":
            register_source(fn, src + "\n")
        tree = ast.parse(src) if not src.startswith("%") else ast.parse("pass")
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr) and not src.rstrip().endswith(";"):
            last = ast.Expression(tree.body.pop().value)
        buf = io.StringIO()
        val = None
        err = None
        wpm = self.pm.tilde if self.style == "ipython" else self.pm
        def _show(message, category, filename, lineno, file=None, line=None):
            buf.write(wpm(warnings.formatwarning(message, category, filename, lineno, line)))
        with warnings.catch_warnings():
            warnings.simplefilter("default")
            warnings.simplefilter("ignore", ResourceWarning)
            warnings.showwarning = _show
            with contextlib.redirect_stdout(buf):
                try:
                    if src.startswith("%run "):
                        self.run_script(src.split()[1])
                    else:
                        exec(compile(tree, fn, "exec"), self.ns)
                        if last is not None:
                            val = eval(compile(last, fn, "eval"), self.ns)
                except Exception as e:  # noqa
                    err = e
        res = buf.getvalue()
        if err is not None:
            res += self._fmt_exc(err)
        elif val is not None:
            r = repr(val)
            if self.style == "ipython":
                if "\n" in r:
                    r = "\n" + r
                res += f"Out[{self.n}]: {r}\n"
            else:
                res += r + "\n"
        self.out.append(res)
        if self.style == "ipython":
            self.out.append("\n")
            self.n += 1
        return val

    def run_script(self, name):
        fn, src = self.scripts[name]
        register_source(fn, src)
        self.ns["__name__"] = "__main__"
        self.ns["__file__"] = fn
        exec(compile(src, fn, "exec"), self.ns)

    def _fmt_exc(self, e):
        if self.style == "python":
            tb = e.__traceback__
            while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
                tb = tb.tb_next
            return self.pm("".join(traceback.format_exception(e.with_traceback(tb))))
        return ipython_tb(e, self.pm)


def ipython_tb(e, pm):
    name = type(e).__name__
    s = "-" * 75 + "\n"
    s += f"{name:<42}Traceback (most recent call last)\n"
    frames = traceback.extract_tb(e.__traceback__)
    tbs = []
    t = e.__traceback__
    while t is not None:
        tbs.append(t)
        t = t.tb_next
    parts = []
    for fs, tb in zip(frames, tbs):
        if fs.filename == __file__:
            continue
        lines = linecache.getlines(fs.filename)
        ln = fs.lineno
        if fs.filename.startswith("<ipython-input-"):
            cn = fs.filename[len("<ipython-input-"):-1]
            head = f"Cell In[{cn}], line {ln}\n"
            lo, hi = max(1, ln - 4), min(len(lines), ln + 2)
        else:
            fr = tb.tb_frame
            co = fr.f_code
            qual = getattr(co, "co_qualname", co.co_name)
            na = co.co_argcount + co.co_kwonlyargcount
            names = list(co.co_varnames[:na])
            if co.co_flags & 4:
                names.insert(co.co_argcount, "*" + co.co_varnames[na])
            if co.co_flags & 8:
                names.append("**" + co.co_varnames[na + (1 if co.co_flags & 4 else 0)])
            sig = "(" + ", ".join(names) + ")"
            head = f"File {pm.tilde(fs.filename)}:{ln}, in {qual}{sig}\n"
            if co.co_name == "<module>":
                head = f"File {pm.tilde(fs.filename)}:{ln}\n"
            lo, hi = max(1, ln - 2), min(len(lines), ln + 1)
        body = ""
        cellf = fs.filename.startswith("<ipython-input-")
        for i in range(lo, hi + 1):
            if i - 1 >= len(lines):
                break
            l = lines[i - 1].rstrip("\n")
            if i == ln:
                body += (f"---->{i:>2} {l}\n" if cellf else f"->{i:>5} {l}\n")
            else:
                body += f"{i:>7} {l}\n"
        parts.append(head + body)
    s += "\n".join(parts) + "\n"
    s += pm.tilde("".join(traceback.format_exception_only(e)))
    return s


class EchoPdb(pdb.Pdb):
    def precmd(self, line):
        self.stdout.write(line + "\n")
        return super().precmd(line)


def pdb_run(code_obj, globs, commands, pm):
    """Runs code under pdb the way `python -m pdb train.py` would, feeding
    the scripted commands; returns the transcript."""
    inp = io.StringIO("\n".join(commands) + "\n")
    out = io.StringIO()
    p = EchoPdb(stdin=inp, stdout=out)
    p.use_rawinput = False
    with contextlib.redirect_stdout(out):
        try:
            p.run(code_obj, globs)
        except pdb.bdb.BdbQuit:
            pass
        except SystemExit:
            pass
    sys.settrace(None)
    return pm(out.getvalue())


def pdb_post_mortem(exc, commands, pm, header=True):
    inp = io.StringIO("\n".join(commands) + "\n")
    out = io.StringIO()
    if header:
        out.write(pm("".join(traceback.format_exception(exc))))
        out.write("Uncaught exception. Entering post mortem debugging\n")
        out.write("Running 'cont' or 'step' will restart the program\n")
    p = EchoPdb(stdin=inp, stdout=out)
    p.use_rawinput = False
    p.reset()
    with contextlib.redirect_stdout(out):
        try:
            p.interaction(None, exc.__traceback__)
        except pdb.bdb.BdbQuit:
            pass
    return pm(out.getvalue())
