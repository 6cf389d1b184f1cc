"""Kafka's ``PrintedTest``, translated to kslab's ``Printed`` (``kslab/dsl/config.py``).

Java's ``new PrintedInternal<>(printed).build("processor").get()`` is the processor
``print_(printed)`` makes for a stream named "processor": kslab's
``kslab.dsl._processors.Print(label or "processor", path, mapper)``, called without ``init``
exactly as Java calls its processor. Java's ``System.setOut`` capture is pytest's ``capsys``;
``NullPointerException`` is ``ks.MissingArgumentError`` and ``TopologyException``
``ks.TopologyError``. The file test starts from a non-empty file (Java's is a fresh temp
file) to pin that ``to_file`` truncates, as Java's ``Files.newOutputStream`` does. Nothing
skipped.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab.dsl import _processors


def build(printed: ks.Printed, processor_name: str) -> _processors.Supplier:
    """Java's ``new PrintedInternal<>(printed).build(processorName)``."""
    return _processors.Supplier(_processors.Print, printed._label or processor_name,
                                printed._path, printed._mapper)


@pytest.fixture
def sys_out_printer():
    return ks.Printed.to_sys_out()


def test_should_create_processor_that_prints_to_file(tmp_path):
    # shouldCreateProcessorThatPrintsToFile
    file = tmp_path / "printed.txt"
    file.write_text("left over from before\n", encoding="utf-8")
    processor = build(ks.Printed.to_file(str(file)), "processor")()
    processor.process(ks.Record("hi", 1, 0))
    processor.close()
    assert file.read_text(encoding="utf-8") == "[processor]: hi, 1\n"


def test_should_create_processor_that_prints_to_std_out(sys_out_printer, capsys):
    # shouldCreateProcessorThatPrintsToStdOut
    processor = build(sys_out_printer, "processor")()
    processor.process(ks.Record("good", 2, 0))
    processor.close()
    assert capsys.readouterr().out == "[processor]: good, 2\n"


def test_should_print_with_label(sys_out_printer, capsys):
    # shouldPrintWithLabel
    processor = build(sys_out_printer.with_label("label"), "processor")()
    processor.process(ks.Record("hello", 3, 0))
    processor.close()
    assert capsys.readouterr().out == "[label]: hello, 3\n"


def test_should_print_with_key_value_mapper(sys_out_printer, capsys):
    # shouldPrintWithKeyValueMapper
    printed = sys_out_printer.with_key_value_mapper(lambda key, value: f"{key} -> {value}")
    processor = build(printed, "processor")()
    processor.process(ks.Record("hello", 1, 0))
    processor.close()
    assert capsys.readouterr().out == "[processor]: hello -> 1\n"


def test_should_throw_null_pointer_exception_if_file_path_is_null():
    # shouldThrowNullPointerExceptionIfFilePathIsNull
    with pytest.raises(ks.MissingArgumentError):
        ks.Printed.to_file(None)


def test_should_throw_null_pointer_exception_if_mapper_is_null(sys_out_printer):
    # shouldThrowNullPointerExceptionIfMapperIsNull
    with pytest.raises(ks.MissingArgumentError):
        sys_out_printer.with_key_value_mapper(None)


def test_should_throw_null_pointer_exception_if_label_is_null(sys_out_printer):
    # shouldThrowNullPointerExceptionIfLabelIsNull
    with pytest.raises(ks.MissingArgumentError):
        sys_out_printer.with_label(None)


def test_should_throw_topology_exception_if_file_path_is_empty():
    # shouldThrowTopologyExceptionIfFilePathIsEmpty
    with pytest.raises(ks.TopologyError):
        ks.Printed.to_file("")


def test_should_throw_topology_exception_if_file_path_doesnt_exist():
    # shouldThrowTopologyExceptionIfFilePathDoesntExist
    with pytest.raises(ks.TopologyError):
        ks.Printed.to_file("/this/should/not/exist")
