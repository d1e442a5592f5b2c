"""Execute a user-style script in a scratch folder and capture what its console would show."""
import contextlib
import io
import os
import runpy
import sys
import traceback


def _user_traceback(e):
    """Format the traceback as `python train.py` would print it (without this runner's frames)."""
    tbe = traceback.TracebackException.from_exception(e)
    keep = [f for f in tbe.stack
            if not (f.filename.endswith("runner.py") or f.filename.startswith("<frozen"))]
    tbe.stack = traceback.StackSummary.from_list(keep)
    return "".join(tbe.format())


def exec_script(script_path, workdir, argv=(), show_name="train.py"):
    """Run script_path as __main__ with cwd=workdir. Returns (console_text, exception_or_None)."""
    dst = os.path.join(workdir, show_name)
    with open(script_path, encoding="utf-8") as f:
        src = f.read()
    with open(dst, "w", encoding="utf-8") as f:
        f.write(src)
    old_cwd, old_argv = os.getcwd(), sys.argv
    buf = io.StringIO()
    exc = None
    os.chdir(workdir)
    sys.argv = [show_name] + list(argv)
    sys.path.insert(0, workdir)          # like `python script.py`: the script's folder is importable
    for mod in ("train",):
        sys.modules.pop(mod, None)
    try:
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            try:
                runpy.run_path(dst, run_name="__main__")
            except SystemExit:
                pass
            except Exception as e:  # the user's console shows the traceback
                exc = e
                buf.write(_user_traceback(e))
    finally:
        os.chdir(old_cwd)
        sys.argv = old_argv
        sys.path.remove(workdir)
        sys.modules.pop("train", None)
    return buf.getvalue(), exc
