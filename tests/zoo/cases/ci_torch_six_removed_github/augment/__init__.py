"""Image augmentations."""
