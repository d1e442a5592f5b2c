"""Reusable widgets: the metric plot, the artifact viewer, confidence bars."""
