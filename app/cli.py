"""`mltdbg` command line (placeholder until the diagnose command lands)."""
import sys


def main(argv=None) -> int:
    print("mltdbg: not ready yet", file=sys.stderr)
    return 2
