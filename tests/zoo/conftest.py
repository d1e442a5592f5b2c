# The zoo's case folders hold users' code, including CI cases with their own
# tests/test_*.py that fail on purpose: never collect them.
collect_ignore_glob = ["cases/*", "shim/*"]
collect_ignore = ["make_zoo.py", "zoo_lib.py", "cases_generated.py", "cases_regression.py", "cases_handwritten.py"]
