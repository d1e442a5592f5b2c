"""Minimal local stand-in for pytorch-ignite (only what the run scripts use)."""
__version__ = "0.4.13"
