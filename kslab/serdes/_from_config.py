"""Building the serde a config names, with the other configs Java's serdes read in ``configure``.

Invariant: a config written for a Java app resolves to the same serde here, including the serdes
that only work after ``configure(configs, isKey)``: ``WindowedSerdes$TimeWindowedSerde``
(``windowed.inner.class.serde``, ``window.size.ms``), ``WindowedSerdes$SessionWindowedSerde``
(``windowed.inner.class.serde``), ``Serdes$ListSerde`` (``default.list.key.serde.inner`` and
``.type``, or their ``value`` forms) and ``Serdes$StringSerde`` with an encoding.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kslab.errors import ConfigError, InvalidArgumentError, SerdeError
from kslab.serdes._base import InvalidSerdeError, Serde
from kslab.serdes._list import ListSerde
from kslab.serdes._primitives import EncodedString
from kslab.serdes._resolve import normalize_serde_name, resolve
from kslab.serdes._windowed import SessionWindowed, TimeWindowed

__all__ = ["SerdeConfigError", "needs_configs", "serde_from_config"]

WINDOWED_INNER_CLASS_SERDE = "windowed.inner.class.serde"
WINDOW_SIZE_MS = "window.size.ms"
# Java list classes a config may name; each reads back as a Python list.
_LIST_CLASSES = {
    name: list
    for name in ("java.util.ArrayList", "java.util.LinkedList", "java.util.Vector",
                 "java.util.Stack", "java.util.concurrent.CopyOnWriteArrayList",
                 "ArrayList", "LinkedList", "Vector", "Stack", "list")
}


class SerdeConfigError(InvalidSerdeError, ConfigError):
    """A serde config that is missing or names no serde (Java's ``ConfigException``)."""


def needs_configs(setting: Any, props: Mapping[str, Any], *, is_key: bool) -> bool:
    """Whether ``setting`` names a serde that reads other configs to be built."""
    if not isinstance(setting, str):
        return False
    name = normalize_serde_name(setting)
    if name in ("timewindowed", "sessionwindowed", "list"):
        return True
    return name == "string" and any(_encodings(props, is_key=is_key))


def serde_from_config(setting: Any, props: Mapping[str, Any], *, is_key: bool) -> Serde:
    """The serde ``setting`` names, built from ``props`` as Java's ``configure`` would, then
    configured for a key or value position."""
    name = normalize_serde_name(setting) if isinstance(setting, str) else None
    if name == "timewindowed":
        serde: Serde = _time_windowed(props)
    elif name == "sessionwindowed":
        serde = SessionWindowed(_windowed_inner(props, "SessionWindowed"))
    elif name == "list":
        serde = _list(props, is_key=is_key)
    elif name == "string" and any(_encodings(props, is_key=is_key)):
        write_as, read_as = _encodings(props, is_key=is_key)
        serde = EncodedString(write_as or "UTF-8", read_as or "UTF-8")
    else:
        serde = resolve(setting)
    return resolve(serde, is_key=is_key)


def _time_windowed(props: Mapping[str, Any]) -> Serde:
    """``TimeWindowedSerde`` configured: its inner serde and, for reads, the window size."""
    inner = _windowed_inner(props, "TimeWindowed")
    size = props.get(WINDOW_SIZE_MS)
    if size is None:
        msg = (
            "Window size needs to be set either through the time windowed deserializer "
            "constructor or the window.size.ms config but not both"
        )
        raise InvalidArgumentError(msg)
    try:
        return TimeWindowed(inner, int(size))
    except ValueError as e:
        msg = f"Invalid value {size} for configuration {WINDOW_SIZE_MS}: Not a number of type LONG"
        raise SerdeConfigError(msg) from e


def _windowed_inner(props: Mapping[str, Any], kind: str) -> Serde:
    """The serde ``windowed.inner.class.serde`` names; it must be set and exist."""
    setting = props.get(WINDOWED_INNER_CLASS_SERDE)
    if setting is None:
        msg = (
            f"Inner class serializer should be set either via constructor or via the "
            f"{WINDOWED_INNER_CLASS_SERDE} config (serdes.{kind}(inner) in kslab)"
        )
        raise InvalidArgumentError(msg)
    return _inner(setting, WINDOWED_INNER_CLASS_SERDE, "Serde class {} could not be found.")


def _list(props: Mapping[str, Any], *, is_key: bool) -> Serde:
    """``ListSerde`` from ``default.list.<key|value>.serde.inner`` and ``.type``."""
    position = "key" if is_key else "value"
    inner_name = f"default.list.{position}.serde.inner"
    type_name = f"default.list.{position}.serde.type"
    inner_setting = props.get(inner_name)
    if inner_setting is None:
        msg = (
            "Not able to determine the serializer class because it was neither passed via the "
            "constructor nor set in the config."
        )
        raise SerdeConfigError(msg)
    inner = _inner(inner_setting, inner_name, "Serializer class {} could not be found.")
    list_setting = props.get(type_name)
    if list_setting is None:
        msg = (
            "Not able to determine the list class because it was neither passed via the "
            "constructor nor set in the config."
        )
        raise SerdeConfigError(msg)
    if isinstance(list_setting, str):
        list_class = _LIST_CLASSES.get(list_setting)
        if list_class is None:
            msg = (
                f"Invalid value {list_setting} for configuration {type_name}: Deserializer's "
                f'list class "{list_setting}" could not be found.'
            )
            raise SerdeConfigError(msg)
        return ListSerde(list_class, inner)
    if isinstance(list_setting, type):
        return ListSerde(list_setting, inner)
    msg = f'Could not determine the list class instance using "{type_name}" property.'
    raise SerdeConfigError(msg)


def _inner(setting: Any, config: str, not_found: str) -> Serde:
    """The serde an inner-class config names; an unknown name is Java's ConfigException."""
    try:
        return resolve(setting)
    except SerdeError as e:
        if isinstance(setting, str):
            msg = f"Invalid value {setting} for configuration {config}: {not_found.format(setting)}"
        else:
            msg = f'Could not create a serializer class instance using "{config}" property.'
        raise SerdeConfigError(msg) from e


def _encodings(props: Mapping[str, Any], *, is_key: bool) -> tuple[str | None, str | None]:
    """The charsets Java's String serializer and deserializer would read from ``props``."""
    position = "key" if is_key else "value"
    write_as = props.get(f"{position}.serializer.encoding") or props.get("serializer.encoding")
    read_as = props.get(f"{position}.deserializer.encoding") or props.get("deserializer.encoding")
    return write_as, read_as

