"""The one error ``kslab export`` raises: the notebook cannot become an app as it stands."""

from __future__ import annotations

from kslab.errors import KslabError

__all__ = ["ExportError"]


class ExportError(KslabError):
    """A notebook that cannot be exported; the message names the cell and says what to do.

    ``cell`` is the 1-based position of the offending cell in the notebook (markdown cells
    counted), or ``None`` when no single cell is at fault.
    """

    def __init__(self, message: str, cell: int | None = None) -> None:
        super().__init__(message)
        self.cell = cell
