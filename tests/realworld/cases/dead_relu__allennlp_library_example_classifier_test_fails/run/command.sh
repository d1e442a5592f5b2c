python -m pytest
