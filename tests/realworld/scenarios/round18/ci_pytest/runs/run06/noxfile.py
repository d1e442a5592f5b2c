import nox

nox.options.sessions = ["tests"]


@nox.session(python="3.11")
def tests(session):
    session.install("-r", "requirements.txt")
    session.install("-e", ".", "--no-deps")
    session.run("python", "-m", "pip", "freeze", "--exclude-editable")
    session.run("pytest", "-ra", "--durations=8", *session.posargs)
