"""Kafka's ``NamedTest``, translated to kslab's ``Named`` (``kslab/dsl/config.py``).

Java's ``NullPointerException`` is ``MissingArgumentError``, ``TopologyException``
``ks.TopologyError``; Java's protected ``Named.validate`` is ``ks.Named.validate``.
Nothing skipped.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab.errors import MissingArgumentError


def test_should_throw_exception_given_null_name():
    # shouldThrowExceptionGivenNullName
    with pytest.raises(MissingArgumentError):
        ks.Named.as_(None)


def test_should_throw_exception_on_invalid_topic_names():
    # shouldThrowExceptionOnInvalidTopicNames
    invalid_names = ["", "foo bar", "..", "foo:bar", "foo=bar", ".", "a" * 250]
    for name in invalid_names:
        with pytest.raises(ks.TopologyError):
            ks.Named.validate(name)
