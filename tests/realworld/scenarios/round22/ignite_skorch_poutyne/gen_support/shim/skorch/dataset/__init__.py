from skorch import ValidSplit  # noqa: F401
