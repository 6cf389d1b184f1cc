"""Notebook settings a user may change: renderer choice and the bounds of live previews.

Invariant: one module-level ``options`` object; readers look values up at call time, so a
change applies to the next display.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Options", "options"]


@dataclass
class Options:
    """``kslab.notebook.options``: set attributes to change how objects display."""

    renderer: str = "auto"  # "auto" | "dot" | "graphviz-pure" | "builtin" | "text"
    preview_rows: int = 10  # rows shown per previewed node
    preview_seconds: float = 1.0  # time budget for driving samples on one display
    preview: bool = True  # drive samples on display at all


options = Options()
