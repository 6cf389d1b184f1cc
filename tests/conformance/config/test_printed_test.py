"""Kafka's ``PrintedTest``, translated to kslab's ``Printed`` (``kslab/dsl/config.py``).

Java's ``new PrintedInternal<>(printed).build("processor").get()`` is the processor
``print_(printed)`` adds under a stream named "processor" (Java passes the parent stream's name,
the label when none is set); each test drives that printer through the test driver with one
record, and the driver's close closes it, as Java's test closes its processor. Java's
``System.setOut`` capture is pytest's ``capsys``;
``NullPointerException`` is ``MissingArgumentError`` and ``TopologyException``
``ks.TopologyError``. The file test starts from a non-empty file (Java's is a fresh temp
file) to pin that ``to_file`` truncates, as Java's ``Files.newOutputStream`` does. Nothing
skipped.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.errors import MissingArgumentError


def print_one(printed: ks.Printed, key: str, value: int) -> None:
    """Java's ``new PrintedInternal<>(printed).build("processor")`` processing one record, then
    closed: ``print_(printed)`` under a source named "processor", in the test driver."""
    builder = ks.StreamsBuilder()
    builder.stream("in", key_serde=serdes.String(), value_serde=serdes.Integer(),
                   name="processor").print_(printed)
    with ks.TopologyTestDriver(builder.build()) as driver:
        driver.create_input_topic("in").pipe_input(key, value, 0)


@pytest.fixture
def sys_out_printer():
    return ks.Printed.to_sys_out()


def test_should_create_processor_that_prints_to_file(tmp_path):
    # shouldCreateProcessorThatPrintsToFile
    file = tmp_path / "printed.txt"
    file.write_text("left over from before\n", encoding="utf-8")
    print_one(ks.Printed.to_file(str(file)), "hi", 1)
    assert file.read_text(encoding="utf-8") == "[processor]: hi, 1\n"


def test_should_create_processor_that_prints_to_std_out(sys_out_printer, capsys):
    # shouldCreateProcessorThatPrintsToStdOut
    print_one(sys_out_printer, "good", 2)
    assert capsys.readouterr().out == "[processor]: good, 2\n"


def test_should_print_with_label(sys_out_printer, capsys):
    # shouldPrintWithLabel
    print_one(sys_out_printer.with_label("label"), "hello", 3)
    assert capsys.readouterr().out == "[label]: hello, 3\n"


def test_should_print_with_key_value_mapper(sys_out_printer, capsys):
    # shouldPrintWithKeyValueMapper
    printed = sys_out_printer.with_key_value_mapper(lambda key, value: f"{key} -> {value}")
    print_one(printed, "hello", 1)
    assert capsys.readouterr().out == "[processor]: hello -> 1\n"


def test_should_throw_null_pointer_exception_if_file_path_is_null():
    # shouldThrowNullPointerExceptionIfFilePathIsNull
    with pytest.raises(MissingArgumentError):
        ks.Printed.to_file(None)


def test_should_throw_null_pointer_exception_if_mapper_is_null(sys_out_printer):
    # shouldThrowNullPointerExceptionIfMapperIsNull
    with pytest.raises(MissingArgumentError):
        sys_out_printer.with_key_value_mapper(None)


def test_should_throw_null_pointer_exception_if_label_is_null(sys_out_printer):
    # shouldThrowNullPointerExceptionIfLabelIsNull
    with pytest.raises(MissingArgumentError):
        sys_out_printer.with_label(None)


def test_should_throw_topology_exception_if_file_path_is_empty():
    # shouldThrowTopologyExceptionIfFilePathIsEmpty
    with pytest.raises(ks.TopologyError):
        ks.Printed.to_file("")


def test_should_throw_topology_exception_if_file_path_doesnt_exist():
    # shouldThrowTopologyExceptionIfFilePathDoesntExist
    with pytest.raises(ks.TopologyError):
        ks.Printed.to_file("/this/should/not/exist")
