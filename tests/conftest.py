"""Suite-wide isolation: no test reads or writes the real user's data or config dirs,
and no test can reach a real API with a key from the environment."""
import pytest

# The corpora hold other people's runs verbatim: a `test_*.py` they posted is data, never a test of
# ours (a corpus case's `run/test_diff.py` would otherwise be collected and fail on import).
collect_ignore_glob = ["realworld/cases/*", "zoo/cases/*"]


@pytest.fixture(autouse=True)
def _isolated_user_dirs(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("userhome")
    monkeypatch.setenv("MLTDBG_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "xdg-data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "xdg-config"))
    monkeypatch.delenv("MLTDBG_CONFIG", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
