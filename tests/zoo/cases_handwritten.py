"""Hand-written cases (filled in below)."""
