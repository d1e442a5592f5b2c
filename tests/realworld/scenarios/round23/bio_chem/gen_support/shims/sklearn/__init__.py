"""Minimal stand-in for the few scikit-learn functions the users' scripts call (same semantics as sklearn 1.x),
so that the scripts run for real without installing scikit-learn."""
__version__ = "1.4.2"
