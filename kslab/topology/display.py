"""The seam through which a front end draws topologies and DSL handles in a notebook.

``Topology``, ``StreamsBuilder`` and the DSL handles answer Jupyter's ``_repr_mimebundle_`` by
calling ``mimebundle`` here, and a front end installs the renderer that does the drawing
(``kslab.notebook`` does when ``import kslab`` runs). Invariant: the topology and the DSL know
nothing of Jupyter; they ask this hook, and without a renderer an object shows as its repr.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["Renderer", "mimebundle", "set_renderer"]

Renderer = Callable[[Any, Iterable[str] | None, Iterable[str] | None], dict[str, str]]
"""``(obj, include, exclude) -> bundle``: Jupyter's ``_repr_mimebundle_`` for any object."""

_renderer: Renderer | None = None


def set_renderer(renderer: Renderer | None) -> Renderer | None:
    """Install ``renderer`` for every later display (``None`` removes it); returns the old one."""
    global _renderer
    previous, _renderer = _renderer, renderer
    return previous


def mimebundle(obj: Any, include: Iterable[str] | None = None,
               exclude: Iterable[str] | None = None) -> dict[str, str]:
    """The display bundle of ``obj``: the installed renderer's, else its plain repr."""
    if _renderer is None:
        return {"text/plain": repr(obj)}
    return _renderer(obj, include, exclude)
