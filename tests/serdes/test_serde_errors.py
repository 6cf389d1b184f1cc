"""located() adds where a bad record sits to a SerdeError, keeping the original chained."""

from kslab import SerdeError, serdes


def _long_error():
    try:
        serdes.Long().deserialize("orders", b"abc")
    except SerdeError as e:
        return e
    raise AssertionError("expected a SerdeError")


def test_located_adds_partition_and_offset():
    original = _long_error()
    err = serdes.located(original, topic="orders", partition=0, offset=5)
    assert str(err) == f"{original} (topic 'orders', partition 0, offset 5)"
    assert (err.topic, err.partition, err.offset) == ("orders", 0, 5)
    assert err.raw == b"abc"
    assert err.__cause__ is original
    assert original.partition is None  # the original is left alone


def test_located_keeps_the_serde_topic_when_none_is_given():
    err = serdes.located(_long_error(), topic=None, partition=3, offset=None)
    assert str(err).endswith("(topic 'orders', partition 3)")
    assert err.topic == "orders"


def test_raising_a_located_error_shows_the_original_as_cause():
    original = _long_error()
    try:
        try:
            raise original
        except SerdeError as e:
            raise serdes.located(e, topic="orders", partition=1, offset=2) from e
    except SerdeError as err:
        assert err.__cause__ is original
        assert err.partition == 1
