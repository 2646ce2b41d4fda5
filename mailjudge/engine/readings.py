"""A mail's order lines, each read once (engine/reader.py reads them): every later step
of filing the mail (laid over the orders on file, checked, found missing, warned about,
counted for readiness) takes the reading instead of reading the line again."""

from __future__ import annotations

from mailjudge.engine.maps import GameMap
from mailjudge.engine.orders import OrderError, Syntax
from mailjudge.engine.reader import read_order


class Readings:
    """A mail's order lines, each read once: its Syntax, or the OrderError that refused it,
    for every later step of filing it to take instead of reading the line again (laid
    over the orders on file, checked, found missing, warned about, counted for the
    readiness after the mail). Made by the caller for one mail and passed along
    explicitly; it holds the lines of one map and kind of phase (``of`` makes another for
    another)."""

    def __init__(self, gmap: GameMap, phase_type: str) -> None:
        self.gmap = gmap
        self.phase_type = phase_type
        self._read: dict[str, Syntax | OrderError] = {}

    @staticmethod
    def of(readings: Readings | None, gmap: GameMap, phase_type: str) -> Readings:
        """``readings`` when they are of this map and kind of phase, else new ones."""
        if readings is not None and readings.gmap is gmap and readings.phase_type == phase_type:
            return readings
        return Readings(gmap, phase_type)

    def syntax(self, text: str) -> Syntax:
        """What the line says; raises the OrderError that refuses it."""
        found = self._read.get(text)
        if found is None:
            try:
                found = read_order(text, self.gmap, self.phase_type)
            except OrderError as err:
                found = err
            self._read[text] = found
        if isinstance(found, OrderError):
            raise found.with_traceback(None)  # raised afresh, not on top of the last time
        return found

    def reads(self, text: str) -> bool:
        """Whether the line reads cleanly as an order."""
        try:
            self.syntax(text)
        except OrderError:
            return False
        return True

    def checked(self, text: str, syntax: Syntax) -> None:
        """``text`` is the canonical form of a line that read as ``syntax`` (a checked
        order): it says the same, and is not read again."""
        self._read.setdefault(text, syntax)
