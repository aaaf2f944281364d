from __future__ import annotations

import json
import re
from pathlib import Path

from skillwiki.config import Config, load_config
from tests.support import Invoke, snapshot


def test_init_creates_the_layout(tmp_path: Path, invoke: Invoke) -> None:
    result = invoke("init", "-w", str(tmp_path))
    assert result.exit_code == 0
    dot = tmp_path / ".wiki"
    for folder in ("raw", "wiki"):
        assert (dot / folder).is_dir()
    assert (dot / ".gitignore").read_text().splitlines()[0] == ".cache/"
    assert json.loads((dot / "index.json").read_text()) == {"version": 1, "articles": []}
    assert (dot / "log.md").read_text().startswith("# Operations log")
    assert (dot / "index.md").read_text().startswith("# Wiki index")
    assert (dot / "config.toml").is_file()


def test_the_settings_init_writes_out_are_the_defaults(tmp_path: Path, invoke: Invoke) -> None:
    """Each setting config.toml shows (commented out) is valid and is its default; the one
    example of a rule's setting aside."""
    invoke("init", "-w", str(tmp_path))
    written = (tmp_path / ".wiki" / "config.toml").read_text()
    shown = re.sub(r"(?m)^# (?=\[|\w+ +=)", "", written)
    assert shown.count("\n[") == 4 and "\nstatic = []" in shown
    (tmp_path / "config.toml").write_text(shown)
    config = load_config(tmp_path / "config.toml")
    assert config.lint.rules == {"SW012": "off"}
    assert config._replace(lint=config.lint._replace(rules={})) == Config()


def test_init_is_idempotent_and_never_overwrites(tmp_path: Path, invoke: Invoke) -> None:
    invoke("init", "-w", str(tmp_path))
    (tmp_path / ".wiki" / "config.toml").write_text("fingerprint = 'fnv1a64'\n")
    (tmp_path / ".wiki" / "index.md").unlink()
    before = snapshot(tmp_path)
    result = invoke("init", "-w", str(tmp_path))
    assert result.exit_code == 0
    after = snapshot(tmp_path)
    assert after.pop(".wiki/index.md").startswith(b"# Wiki index")
    assert after == before
    assert "created .wiki/index.md" in result.stdout
    again = invoke("init", "-w", str(tmp_path))
    assert "Already initialised" in again.stdout


def test_init_in_current_directory(tmp_path: Path, invoke: Invoke, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert invoke("init").exit_code == 0
    assert (tmp_path / ".wiki" / "raw").is_dir()


def test_init_refuses_a_missing_directory(tmp_path: Path, invoke: Invoke) -> None:
    result = invoke("init", "-w", str(tmp_path / "nope"))
    assert result.exit_code == 2
    assert (
        result.stderr
        == f"Error: {tmp_path / 'nope'}: is not a directory; create it first or pick another\n"
    )


def test_init_below_a_workspace_says_so(tmp_path: Path, invoke: Invoke) -> None:
    """A workspace made inside another one's folder (init run in a subfolder by mistake) is
    made, with a warning naming the one above."""
    invoke("init", "-w", str(tmp_path))
    sub = tmp_path / "docs"
    sub.mkdir()
    result = invoke("init", "-w", str(sub))
    assert result.exit_code == 0 and (sub / ".wiki" / "raw").is_dir()
    assert result.stderr == (
        f"Warning: {tmp_path / '.wiki'} above is another workspace; commands run here use this"
        f" new one (remove {sub / '.wiki'} if you meant the one above)\n"
    )
    assert invoke("init", "-w", str(tmp_path)).stderr == ""  # the outer one: nothing above
