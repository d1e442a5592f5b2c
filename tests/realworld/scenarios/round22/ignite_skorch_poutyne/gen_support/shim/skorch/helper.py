from skorch import predefined_split  # noqa: F401
