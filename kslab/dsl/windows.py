"""Window specifications (``TimeWindows``, ``SlidingWindows``, ``SessionWindows``, ``JoinWindows``,
``UnlimitedWindows``) and ``EmitStrategy`` (KIP-825: emit windowed results on every update or
once, when closed).

Each mirrors its Java class: immutable, built by snake_case factories, validated when built.
Invariant: a window spec always has an explicit grace period (``of_..._with_no_grace`` means 0),
so every windowed operator knows when a window closes: at ``end + grace`` of stream time.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from kslab.errors import InvalidArgumentError, TopologyError
from kslab.records import Window

__all__ = [
    "EmitStrategy",
    "JoinWindows",
    "SessionWindow",
    "SessionWindows",
    "SlidingWindows",
    "TimeWindow",
    "TimeWindows",
    "UnlimitedWindow",
    "UnlimitedWindows",
]

_MAX = 2**63 - 1
_DEFAULT_GRACE_24H = 24 * 60 * 60 * 1000  # Java's DEPRECATED_DEFAULT_24_HR_GRACE_PERIOD


class WindowSpecError(InvalidArgumentError, TopologyError):
    """A window spec got an invalid duration (Java's ``IllegalArgumentException``); also a
    ``TopologyError``, as window specs raised before."""


class _ByValue:
    """Equal and hashed by ``_key()`` and class, as Java's window specs' ``equals``."""

    def _key(self) -> tuple[int, ...]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._key() == self._key()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._key())


def _ms(value: Any, what: str) -> int:
    """``value`` (int ms or ``timedelta``) in ms; negative values pass, as Java's
    ``validateMillisecondDuration`` lets them: each window spec checks its own bounds."""
    if isinstance(value, timedelta):
        return value // timedelta(milliseconds=1)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    msg = f"[{what}] got {value!r}; pass milliseconds as an int or a timedelta"
    raise WindowSpecError(msg)


def _check(ok: bool, message: str) -> None:
    """Raise Java's ``IllegalArgumentException`` text as a ``WindowSpecError`` unless ``ok``."""
    if not ok:
        raise WindowSpecError(message)


def _non_negative(value: int, what: str) -> int:
    _check(value >= 0, f"{what} must not be negative.")
    return value


class TimeWindows(_ByValue):
    """Fixed-size windows aligned to the epoch: tumbling, or hopping with ``advance_by``.

    >>> sorted(TimeWindows.of_size_with_no_grace(10).advance_by(5).windows_for(12))
    [5, 10]
    """

    def __init__(self, size: int, advance: int, grace: int) -> None:
        _check(size > 0, "Window size (sizeMs) must be larger than zero.")
        _check(0 < advance <= size,
               "Window advancement interval should be more than zero and less than window "
               f"duration which is {size} ms, but given advancement interval is: {advance} ms")
        self.size_ms = size
        self.advance_ms = advance
        self.grace_ms = _non_negative(grace, "Grace period")

    @staticmethod
    def of_size_with_no_grace(size: Any) -> TimeWindows:
        """Tumbling windows of ``size`` ms, closed as soon as they end."""
        size_ms = _ms(size, "size")
        return TimeWindows(size_ms, size_ms, 0)

    @staticmethod
    def of_size_and_grace(size: Any, grace: Any) -> TimeWindows:
        """Tumbling windows of ``size`` ms accepting records up to ``grace`` ms late."""
        size_ms = _ms(size, "size")
        return TimeWindows(size_ms, size_ms, _ms(grace, "afterWindowEnd"))

    @staticmethod
    def of_size(size: Any) -> TimeWindows:
        """Tumbling windows of ``size`` ms with no grace (add it with ``.grace(ms)``)."""
        return TimeWindows.of_size_with_no_grace(size)

    def grace(self, grace: Any) -> TimeWindows:
        """The same windows with a grace period of ``grace`` ms."""
        return TimeWindows(self.size_ms, self.advance_ms, _ms(grace, "afterWindowEnd"))

    def advance_by(self, advance: Any) -> TimeWindows:
        """Hopping windows that start every ``advance`` ms."""
        return TimeWindows(self.size_ms, _ms(advance, "advance"), self.grace_ms)

    def size(self) -> int:
        """The window size in ms."""
        return self.size_ms

    def grace_period_ms(self) -> int:
        """The grace period in ms."""
        return self.grace_ms

    def windows_for(self, timestamp: int) -> dict[int, Window]:
        """Every window ``timestamp`` falls in, by start (Java's ``windowsFor``)."""
        size, advance = self.size_ms, self.advance_ms
        start = (max(0, timestamp - size + advance) // advance) * advance
        windows = {}
        while start <= timestamp:
            windows[start] = Window(start, start + size)
            start += advance
        return windows

    def _key(self) -> tuple[int, ...]:
        return self.size_ms, self.advance_ms, self.grace_ms

    def __repr__(self) -> str:
        return (f"TimeWindows{{sizeMs={self.size_ms}, advanceMs={self.advance_ms}, "
                f"graceMs={self.grace_ms}}}")


class UnlimitedWindows(_ByValue):
    """One window per key from ``start_ms`` to forever (Java's ``UnlimitedWindows``): every
    record at or after the start falls in it; it never closes.

    >>> UnlimitedWindows.of().start_on(10).windows_for(12)
    {10: UnlimitedWindow(start=10, end=9223372036854775807)}
    """

    size_ms = _MAX
    advance_ms = None  # not hopping: every record maps through windows_for
    grace_ms = 0

    def __init__(self, start_ms: int) -> None:
        self.start_ms = start_ms

    @staticmethod
    def of() -> UnlimitedWindows:
        """Unlimited windows starting at the epoch (0)."""
        return UnlimitedWindows(0)

    def start_on(self, start: int | datetime) -> UnlimitedWindows:
        """The same windows starting at ``start`` (epoch ms, or a ``datetime``: Java's
        ``Instant``); a negative start raises Java's ``IllegalArgumentException`` text."""
        start_ms = _instant_ms(start, "start")
        _check(start_ms >= 0, "Window start time (startMs) cannot be negative.")
        return UnlimitedWindows(start_ms)

    def windows_for(self, timestamp: int) -> dict[int, Window]:
        """The one window ``timestamp`` falls in, or none before the start (Java's
        ``windowsFor``)."""
        if timestamp < self.start_ms:
            return {}
        return {self.start_ms: UnlimitedWindow(self.start_ms)}

    def size(self) -> int:
        """Java's ``Long.MAX_VALUE``: the windows never end."""
        return _MAX

    def grace_period_ms(self) -> int:
        """0: an unlimited window never closes, so no record is late."""
        return 0

    def _key(self) -> tuple[int, ...]:
        return (self.start_ms,)

    def __repr__(self) -> str:
        return f"UnlimitedWindows{{startMs={self.start_ms}}}"


def _instant_ms(value: Any, what: str) -> int:
    """``value`` (int epoch ms or a ``datetime``, Java's ``Instant``) in epoch ms."""
    if isinstance(value, datetime):
        return (value - datetime(1970, 1, 1, tzinfo=value.tzinfo)) // timedelta(milliseconds=1)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    msg = f"[{what}] got {value!r}; pass epoch milliseconds as an int or a datetime"
    raise WindowSpecError(msg)


class SlidingWindows(_ByValue):
    """KIP-450 windows of ``time_difference`` ms defined by the records, not the epoch."""

    def __init__(self, time_difference: int, grace: int) -> None:
        self.diff_ms = _non_negative(time_difference, "Window time difference")
        self.grace_ms = _non_negative(grace, "Window grace period")

    @staticmethod
    def of_time_difference_with_no_grace(time_difference: Any) -> SlidingWindows:
        """Windows of ``time_difference`` ms, closed as soon as they end."""
        return SlidingWindows(_ms(time_difference, "timeDifference"), 0)

    @staticmethod
    def of_time_difference_and_grace(time_difference: Any, grace: Any) -> SlidingWindows:
        """Windows of ``time_difference`` ms accepting records up to ``grace`` ms late."""
        return SlidingWindows(_ms(time_difference, "timeDifference"),
                              _ms(grace, "afterWindowEnd"))

    def time_difference(self) -> int:
        """The window size in ms."""
        return self.diff_ms

    def time_difference_ms(self) -> int:
        """The window size in ms (Java's ``timeDifferenceMs()``)."""
        return self.diff_ms

    def size(self) -> int:
        """The window size in ms."""
        return self.diff_ms

    def grace_period_ms(self) -> int:
        """The grace period in ms."""
        return self.grace_ms

    def _key(self) -> tuple[int, ...]:
        return self.diff_ms, self.grace_ms

    def __repr__(self) -> str:
        return (f"SlidingWindows{{timeDifferenceMs={self.diff_ms}, "
                f"graceMs={self.grace_ms}}}")


class SessionWindows(_ByValue):
    """Sessions of records separated by less than the inactivity ``gap``."""

    def __init__(self, gap: int, grace: int) -> None:
        _check(gap > 0, "Gap time cannot be zero or negative.")
        self.gap_ms = gap
        self.grace_ms = _non_negative(grace, "Grace period")

    @staticmethod
    def of_inactivity_gap_with_no_grace(gap: Any) -> SessionWindows:
        """Sessions split by ``gap`` ms of inactivity, closed as soon as they end."""
        return SessionWindows(_ms(gap, "inactivityGap"), 0)

    @staticmethod
    def of_inactivity_gap_and_grace(gap: Any, grace: Any) -> SessionWindows:
        """Sessions split by ``gap`` ms of inactivity, accepting records ``grace`` ms late."""
        return SessionWindows(_ms(gap, "inactivityGap"),
                              _ms(grace, "afterWindowEnd"))

    def inactivity_gap(self) -> int:
        """The gap in ms."""
        return self.gap_ms

    def grace_period_ms(self) -> int:
        """The grace period in ms."""
        return self.grace_ms

    def _key(self) -> tuple[int, ...]:
        return self.gap_ms, self.grace_ms

    def __repr__(self) -> str:
        return f"SessionWindows{{gapMs={self.gap_ms}, graceMs={self.grace_ms}}}"


class JoinWindows(_ByValue):
    """How far apart in time two records may be to join: ``before`` and ``after`` ms, and grace."""

    def __init__(self, before: int, after: int, grace: int, *, grace_given: bool) -> None:
        _check(before + after >= 0, "Window interval (ie, beforeMs+afterMs) must not be negative.")
        self.before_ms = before
        self.after_ms = after
        self.grace_ms = _non_negative(grace, "Grace period")
        # Java: joins without an explicit grace never emit the spurious left/outer results late.
        self.enable_spurious_result_fix = grace_given

    @staticmethod
    def of_time_difference_with_no_grace(time_difference: Any) -> JoinWindows:
        """Records at most ``time_difference`` ms apart join; no late records."""
        d = _ms(time_difference, "timeDifference")
        return JoinWindows(d, d, 0, grace_given=True)

    @staticmethod
    def of_time_difference_and_grace(time_difference: Any, grace: Any) -> JoinWindows:
        """Records at most ``time_difference`` ms apart join; records ``grace`` ms late too."""
        d = _ms(time_difference, "timeDifference")
        return JoinWindows(d, d, _ms(grace, "afterWindowEnd"), grace_given=True)

    @staticmethod
    def of(time_difference: Any) -> JoinWindows:
        """Deprecated in Java 3.0: a grace of 24 h minus twice ``time_difference`` (at least 0)."""
        d = _ms(time_difference, "timeDifference")
        return JoinWindows(d, d, max(_DEFAULT_GRACE_24H - 2 * d, 0), grace_given=False)

    def grace(self, grace: Any) -> JoinWindows:
        """Deprecated in Java 3.0: set the grace of windows built by ``of``."""
        if self.enable_spurious_result_fix:
            msg = ("Cannot call grace() after setting grace value via ofTimeDifferenceAndGrace or "
                   "ofTimeDifferenceWithNoGrace.")
            raise TopologyError(msg)
        return JoinWindows(self.before_ms, self.after_ms, _ms(grace, "afterWindowEnd"),
                           grace_given=False)

    def before(self, time_difference: Any) -> JoinWindows:
        """Other-side records up to ``time_difference`` ms earlier join."""
        return JoinWindows(_ms(time_difference, "timeDifference"), self.after_ms,
                           self.grace_ms, grace_given=self.enable_spurious_result_fix)

    def after(self, time_difference: Any) -> JoinWindows:
        """Other-side records up to ``time_difference`` ms later join."""
        return JoinWindows(self.before_ms, _ms(time_difference, "timeDifference"),
                           self.grace_ms, grace_given=self.enable_spurious_result_fix)

    def size(self) -> int:
        """``before + after``."""
        return self.before_ms + self.after_ms

    def grace_period_ms(self) -> int:
        """The grace period in ms."""
        return self.grace_ms

    def _key(self) -> tuple[int, ...]:
        return self.before_ms, self.after_ms, self.grace_ms

    def __repr__(self) -> str:
        return (f"JoinWindows{{beforeMs={self.before_ms}, afterMs={self.after_ms}, "
                f"graceMs={self.grace_ms}}}")


class _TypedWindow(Window):
    """A ``Window`` of one kind (Java's ``TimeWindow``, ``SessionWindow``, ``UnlimitedWindow``):
    equal to a plain ``Window`` with the same bounds; ``overlap`` compares only its own kind."""

    __slots__ = ()

    def __new__(cls, start: int, end: int) -> _TypedWindow:
        _check(start >= 0, "Window startMs time cannot be negative.")
        _check(end >= start, "Window endMs time cannot be smaller than window startMs time.")
        return super().__new__(cls, start, end)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _TypedWindow) and type(other) is not type(self):
            return False  # as Java's Window.equals: windows of another kind never equal
        return tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = Window.__hash__

    def overlap(self, other: Window) -> bool:
        """True when ``other`` (a window of the same kind) shares a point in time with this."""
        _check(type(other) is type(self), "Cannot compare windows of different type. Other "
               f"window has type {type(other).__name__}.")
        return self._overlaps(other)

    def _overlaps(self, other: Window) -> bool:
        raise NotImplementedError


class TimeWindow(_TypedWindow):
    """A half-open window ``[start, end)`` of ``TimeWindows`` (Java's ``TimeWindow``)."""

    __slots__ = ()

    def __new__(cls, start: int, end: int) -> TimeWindow:
        _check(start >= 0, "Window startMs time cannot be negative.")
        _check(start < end, "Window endMs must be greater than window startMs.")
        return super().__new__(cls, start, end)  # type: ignore[return-value]

    def _overlaps(self, other: Window) -> bool:
        return self.start < other.end and other.start < self.end


class SessionWindow(_TypedWindow):
    """A closed window ``[start, end]`` of a session (Java's ``SessionWindow``)."""

    __slots__ = ()

    def _overlaps(self, other: Window) -> bool:
        return not (other.end < self.start or self.end < other.start)


class UnlimitedWindow(_TypedWindow):
    """A window from ``start`` to forever (Java's ``UnlimitedWindow``): overlaps every other."""

    __slots__ = ()

    def __new__(cls, start: int, end: int = _MAX) -> UnlimitedWindow:
        return super().__new__(cls, start, end)  # type: ignore[return-value]

    def _overlaps(self, other: Window) -> bool:
        return True


def window_end(start: int, size: int) -> int:
    """``start + size``, clamped to Java's ``Long.MAX_VALUE``."""
    return min(start + size, _MAX)


class EmitStrategy:
    """When a windowed aggregation emits (Java's ``EmitStrategy``, KIP-825).

    ``on_window_update()`` (the default) forwards every change of a window at once;
    ``on_window_close()`` forwards each window's final value once, when stream time passes its
    end plus grace, and nothing before.

    >>> EmitStrategy.on_window_close()
    EmitStrategy.on_window_close()
    """

    ON_WINDOW_UPDATE = "ON_WINDOW_UPDATE"
    ON_WINDOW_CLOSE = "ON_WINDOW_CLOSE"

    __slots__ = ("type",)

    def __init__(self, strategy_type: str) -> None:
        if strategy_type not in (self.ON_WINDOW_UPDATE, self.ON_WINDOW_CLOSE):
            msg = (f"EmitStrategy got {strategy_type!r}; use EmitStrategy.on_window_update() "
                   "or EmitStrategy.on_window_close()")
            raise TopologyError(msg)
        self.type = strategy_type

    @staticmethod
    def on_window_update() -> EmitStrategy:
        """Emit a window's new value on every update (Kafka Streams' default)."""
        return EmitStrategy(EmitStrategy.ON_WINDOW_UPDATE)

    @staticmethod
    def on_window_close() -> EmitStrategy:
        """Emit a window's final value once, when the window closes."""
        return EmitStrategy(EmitStrategy.ON_WINDOW_CLOSE)

    @property
    def closes(self) -> bool:
        """True for ``on_window_close``."""
        return self.type == self.ON_WINDOW_CLOSE

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EmitStrategy) and other.type == self.type

    def __hash__(self) -> int:
        return hash(self.type)

    def __repr__(self) -> str:
        return "EmitStrategy.on_window_close()" if self.closes else \
            "EmitStrategy.on_window_update()"
