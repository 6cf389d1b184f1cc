"""Kafka's ``RelationalSmokeTestTest`` with the ``RelationalSmokeTest`` topology it drives:
articles and comments (a comment's ``articleId`` is a foreign key to an article); each article is
left-joined with its comment count, each comment foreign-key-joined with a prefix of its article.

Mapping: ``Article``, ``Comment``, ``AugmentedArticle`` and ``AugmentedComment`` are dataclasses
with serdes that write Java's ByteBuffer layouts (big-endian int key, long timestamp,
length-prefixed UTF-8 text, ...); ``DataSet.generate`` draws from ``JavaRandom``, a port of
``java.util.Random`` (``nextInt``, ``nextLong``, ``nextGaussian``), so a seed yields Java's data.
Java seeds with ``new Random().nextLong()`` each run; here three fixed seeds run, so a failure
reproduces. ``App.getConfig`` is the same property dict; ``verifySync`` is translated with its
report. The Kafka-cluster parts of ``RelationalSmokeTest`` (``produce``, ``startSync``, the
consumer ``verifySync`` and ``main``) are not part of the driver test and are not translated.
"""

from __future__ import annotations

import math
import struct
import time
from dataclasses import dataclass
from typing import Any

import pytest

import kslab as ks
from kslab import serdes

ARTICLE_SOURCE = "in-article"
COMMENT_SOURCE = "in-comment"
ARTICLE_RESULT_SINK = "out-augmented-article"
COMMENT_RESULT_SINK = "out-augmented-comment"
INT = serdes.Integer()
_MASK48 = (1 << 48) - 1


class JavaRandom:
    """``java.util.Random``: the 48-bit LCG and the draws the data set uses."""

    def __init__(self, seed: int) -> None:
        self._seed = (seed ^ 0x5DEECE66D) & _MASK48
        self._next_gaussian: float | None = None

    def _next(self, bits: int) -> int:
        self._seed = (self._seed * 0x5DEECE66D + 0xB) & _MASK48
        value = self._seed >> (48 - bits)
        return value - (1 << 32) if value >= 1 << 31 else value  # Java's (int) cast

    def next_int(self, bound: int) -> int:
        """``nextInt(bound)``: uniform in ``[0, bound)``."""
        r = self._next(31)
        m = bound - 1
        if bound & m == 0:
            return (bound * r) >> 31
        u = r
        r = u % bound
        while u - r + m >= 1 << 31:
            u = self._next(31)
            r = u % bound
        return r

    def next_long(self) -> int:
        """``nextLong()``: a signed 64-bit value."""
        value = ((self._next(32) << 32) + self._next(32)) & ((1 << 64) - 1)
        return value - (1 << 64) if value >= 1 << 63 else value

    def next_double(self) -> float:
        """``nextDouble()``: uniform in ``[0, 1)``."""
        return ((self._next(26) & ((1 << 26) - 1)) * (1 << 27)
                + (self._next(27) & ((1 << 27) - 1))) * 2.0 ** -53

    def next_gaussian(self) -> float:
        """``nextGaussian()``: the polar method, the second value kept for the next call."""
        if self._next_gaussian is not None:
            value, self._next_gaussian = self._next_gaussian, None
            return value
        while True:
            v1 = 2 * self.next_double() - 1
            v2 = 2 * self.next_double() - 1
            s = v1 * v1 + v2 * v2
            if 0 < s < 1:
                break
        multiplier = math.sqrt(-2 * math.log(s) / s)
        self._next_gaussian = v2 * multiplier
        return v1 * multiplier


@dataclass(frozen=True)
class Article:
    key: int
    timestamp: int
    text: str


@dataclass(frozen=True)
class Comment:
    key: int
    timestamp: int
    text: str
    article_id: int


@dataclass(frozen=True)
class AugmentedArticle(Article):
    comment_count: int


@dataclass(frozen=True)
class AugmentedComment(Comment):
    article_prefix: str


def _text(data: bytes, offset: int) -> tuple[str, int]:
    """A length-prefixed UTF-8 string at ``offset`` and the offset after it."""
    (length,) = struct.unpack_from(">i", data, offset)
    start = offset + 4
    return data[start:start + length].decode(), start + length


def _article_bytes(a: Article) -> bytes:
    text = a.text.encode()
    return struct.pack(">iqi", a.key, a.timestamp, len(text)) + text


def _read_article(data: bytes) -> tuple[Article, int]:
    key, timestamp = struct.unpack_from(">iq", data)
    text, offset = _text(data, 12)
    return Article(key, timestamp, text), offset


def _comment_bytes(c: Comment) -> bytes:
    text = c.text.encode()
    return struct.pack(">iqi", c.key, c.timestamp, len(text)) + text + struct.pack(">i",
                                                                                  c.article_id)


def _read_comment(data: bytes) -> tuple[Comment, int]:
    key, timestamp = struct.unpack_from(">iq", data)
    text, offset = _text(data, 12)
    (article_id,) = struct.unpack_from(">i", data, offset)
    return Comment(key, timestamp, text, article_id), offset + 4


class _Serde(serdes.Serde):
    """A serde from an encode and a decode function; ``None`` stays ``None``."""

    def __init__(self, encode: Any, decode: Any) -> None:
        self._encode, self._decode = encode, decode

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        return None if data is None else self._encode(data)

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        return None if data is None else self._decode(data)


def _augmented_article_bytes(a: AugmentedArticle) -> bytes:
    return _article_bytes(a) + struct.pack(">q", a.comment_count)


def _read_augmented_article(data: bytes) -> AugmentedArticle:
    article, offset = _read_article(data)
    (count,) = struct.unpack_from(">q", data, offset)
    return AugmentedArticle(article.key, article.timestamp, article.text, count)


def _augmented_comment_bytes(c: AugmentedComment) -> bytes:
    prefix = c.article_prefix.encode()
    return _comment_bytes(c) + struct.pack(">i", len(prefix)) + prefix


def _read_augmented_comment(data: bytes) -> AugmentedComment:
    comment, offset = _read_comment(data)
    prefix, _ = _text(data, offset)
    return AugmentedComment(comment.key, comment.timestamp, comment.text, comment.article_id,
                            prefix)


ArticleSerde = _Serde(_article_bytes, lambda b: _read_article(b)[0])
CommentSerde = _Serde(_comment_bytes, lambda b: _read_comment(b)[0])
AugmentedArticleSerde = _Serde(_augmented_article_bytes, _read_augmented_article)
AugmentedCommentSerde = _Serde(_augmented_comment_bytes, _read_augmented_comment)


def article_joiner(article: Article, comment_count: int | None) -> AugmentedArticle:
    """``AugmentedArticle.joiner()``."""
    return AugmentedArticle(article.key, article.timestamp, article.text,
                            0 if comment_count is None else comment_count)


def comment_joiner(comment: Comment, article: Article) -> AugmentedComment:
    """``AugmentedComment.joiner()``: the article's first 10 characters."""
    return AugmentedComment(comment.key, comment.timestamp, comment.text, comment.article_id,
                            article.text[:10])


def get_topology() -> ks.Topology:
    """``App.getTopology()``."""
    builder = ks.StreamsBuilder()
    articles = builder.table(ARTICLE_SOURCE, ks.Consumed.with_(INT, ArticleSerde))
    comments = builder.table(COMMENT_SOURCE, ks.Consumed.with_(INT, CommentSerde))
    comment_counts = comments.group_by(
        lambda key, value: ks.KeyValue(value.article_id, 1),
        ks.Grouped.with_(serdes.Integer(), serdes.Short()),
    ).count()
    articles.left_join(comment_counts, article_joiner,
                       ks.Materialized.with_(None, AugmentedArticleSerde)) \
        .to_stream().to(ARTICLE_RESULT_SINK)
    comments.join(articles, lambda comment: comment.article_id, comment_joiner,
                  ks.Materialized.with_(None, AugmentedCommentSerde)) \
        .to_stream().to(COMMENT_RESULT_SINK)
    return builder.build()


def get_config(broker: str, application: str, client_id: str, processing_guarantee: str,
               state_dir: str) -> dict[str, Any]:
    """``App.getConfig(...)``."""
    return {
        "bootstrap.servers": broker,
        "application.id": application,
        "client.id": client_id,
        "processing.guarantee": processing_guarantee,
        "auto.offset.reset": "earliest",
        "state.dir": state_dir,
        "commit.interval.ms": 1000,
    }


def random_text(random: JavaRandom, avg_length: int) -> str:
    """``randomText``: a normally distributed length about ``avg_length``, letters a..y."""
    length = max(0, int(random.next_gaussian() * avg_length / 3.0) + avg_length)
    return "".join(chr(random.next_int(122 - 97) + 97) for _ in range(length))


def zipf_normal(random: JavaRandom, key_space: int) -> Any:
    """``zipfNormal``: keys normally distributed about 0, beyond 3 deviations key 0."""
    while True:
        scaled = abs(random.next_gaussian()) / 3.0
        yield int((0.0 if scaled > 1.0 else scaled) * key_space)


def generate(num_articles: int, num_comments: int,
             seed: int) -> tuple[list[Article], list[Comment]]:
    """``DataSet.generate``: four days of articles, then comments after their articles."""
    time_span = 1000 * 60 * 60 * 24 * 4
    data_start = int(time.time() * 1000)
    data_end = data_start + time_span
    random = JavaRandom(seed)
    to_comment_on = zipf_normal(random, num_articles)
    articles = []
    for i in range(num_articles):
        timestamp = random.next_int(time_span) + data_start
        articles.append(Article(i, timestamp, random_text(random, 2000)))
    comments = []
    for i in range(num_comments):
        article_id = next(to_comment_on)
        article_ts = articles[article_id].timestamp
        timestamp = random.next_int(data_end - article_ts) + article_ts
        comments.append(Comment(i, timestamp, random_text(random, 200), article_id))
    return articles, comments


def verify_sync(log_results: bool, consumed_articles: dict[int, Article],
                consumed_comments: dict[int, Comment],
                consumed_augmented_articles: dict[int, AugmentedArticle],
                consumed_augmented_comments: dict[int, AugmentedComment]) -> tuple[bool, str]:
    """``App.verifySync`` (the map form): whether every check passed, and the report."""
    report: list[str] = []

    def check(message: str, passed: bool) -> None:
        if not passed:
            report.append(message)

    check(f"Expected 1 article, got {len(consumed_articles)}", len(consumed_articles) > 0)
    check(f"Expected 1 comment, got {len(consumed_comments)}", len(consumed_comments) > 0)
    check(f"Mismatched article size between augmented articles (size "
          f"{len(consumed_augmented_articles)}) and consumed articles (size "
          f"{len(consumed_articles)})",
          len(consumed_augmented_articles) == len(consumed_articles))
    check(f"Mismatched comments size between augmented comments (size "
          f"{len(consumed_augmented_comments)}) and consumed comments (size "
          f"{len(consumed_comments)})",
          len(consumed_augmented_comments) == len(consumed_comments))
    comment_counts: dict[int, int] = {}
    for augmented in consumed_augmented_comments.values():
        check(f"comment missing, but found in augmentedComment: {augmented.key}",
              augmented.key in consumed_comments)
        article_id = augmented.article_id
        comment_counts[article_id] = comment_counts.get(article_id, 0) + 1
        check(f"augmentedArticle [{article_id}] missing for augmentedComment [{augmented.key}]",
              article_id in consumed_augmented_articles)
        augmented_article = consumed_augmented_articles.get(article_id)
        if augmented_article is not None:
            check(f"articlePrefix didn't match augmentedArticle: {augmented_article.text}",
                  augmented_article.text.startswith(augmented.article_prefix))
        check(f"article {article_id} missing from consumedArticles",
              article_id in consumed_articles)
        article = consumed_articles.get(article_id)
        if article is not None:
            check(f"articlePrefix didn't match article: {article.text}",
                  article.text.startswith(augmented.article_prefix))
    for augmented_article in consumed_augmented_articles.values():
        check(f"article {augmented_article.key} comment count mismatch",
              augmented_article.comment_count == comment_counts.get(augmented_article.key, 0))
    return not report, "\n".join(report) if log_results else ""


@pytest.mark.parametrize("seed", [-4962768465676381896, 42, 7_331_008_123_456_789])
def test_verify_smoke_test_logic(seed: int, tmp_path: Any) -> None:
    config = get_config("nothing:0", "test", "test", "at_least_once", str(tmp_path))
    with ks.TopologyTestDriver(get_topology(), config) as driver:
        articles = driver.create_input_topic(ARTICLE_SOURCE, INT, ArticleSerde)
        comments = driver.create_input_topic(COMMENT_SOURCE, INT, CommentSerde)
        augmented_articles = driver.create_output_topic(ARTICLE_RESULT_SINK, INT,
                                                        AugmentedArticleSerde)
        augmented_comments = driver.create_output_topic(COMMENT_RESULT_SINK, INT,
                                                        AugmentedCommentSerde)
        data_articles, data_comments = generate(10, 30, seed)
        article_map = {}
        for article in data_articles:
            articles.pipe_input(article.key, article, article.timestamp)
            article_map[article.key] = article
        comment_map = {}
        for comment in data_comments:
            comments.pipe_input(comment.key, comment, comment.timestamp)
            comment_map[comment.key] = comment
        augmented_article_results = augmented_articles.read_key_values_to_map()
        augmented_comment_results = augmented_comments.read_key_values_to_map()
        assert len(augmented_article_results) == len(data_articles)
        assert len(augmented_comment_results) == len(data_comments)
        passed, report = verify_sync(True, article_map, comment_map, augmented_article_results,
                                     augmented_comment_results)
        assert passed, report

