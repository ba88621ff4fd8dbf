"""Folders nested deeper than Python recurses, made and removed without recursion
(``os.makedirs`` and ``shutil.rmtree`` recurse)."""

from __future__ import annotations

from pathlib import Path


def deep_folder(root: Path, levels: int) -> Path:
    """``root/d/d/.../d`` (``levels`` folders below ``root``); the deepest one."""
    path = root
    for _ in range(levels):
        path = path / "d"
        path.mkdir()
    return path


def remove_deep(top: Path) -> None:
    """Remove ``top``, a chain of ``d`` folders with files in them, deepest first."""
    chain = [top]
    while (chain[-1] / "d").is_dir():
        chain.append(chain[-1] / "d")
    for folder in reversed(chain):
        for child in folder.iterdir():
            if not child.is_dir():
                child.unlink()
        folder.rmdir()
