"""``kslab reset``: what Kafka's ``kafka-streams-application-reset`` does, for a kslab app.

``kslab reset --application-id ID --input-topics a,b [--to-earliest | --to-latest |
--to-datetime 2026-11-28T10:00:00 | --by-duration PT15M] [--state-dir DIR] [--dry-run]``
resets the group's input offsets, deletes the app's internal topics and, with ``--state-dir``,
its local state (``kslab.runtime.reset``); it refuses, exit 1, while the group has members.
"""

from __future__ import annotations

import argparse
import os
import re
from datetime import UTC, datetime

from kslab.cli._common import FAILED, CliError

__all__ = ["configure", "parse_duration", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    """The reset tool's options (Kafka's names)."""
    parser.add_argument("--application-id", required=True, help="the application (group) id")
    parser.add_argument("--bootstrap-servers",
                        default=os.environ.get("KSLAB_BOOTSTRAP_SERVERS", "localhost:9092"),
                        help="the brokers (default $KSLAB_BOOTSTRAP_SERVERS or localhost:9092)")
    parser.add_argument("--input-topics", default="",
                        help="comma-separated user input topics whose offsets are reset")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--to-earliest", action="store_true", help="to the earliest (default)")
    where.add_argument("--to-latest", action="store_true", help="to the end")
    where.add_argument("--to-datetime", metavar="WHEN",
                       help="to the first offset at or after WHEN (ISO 8601; UTC if no zone)")
    where.add_argument("--by-duration", metavar="DURATION",
                       help="back from now by an ISO 8601 duration (PT15M, P1DT2H)")
    parser.add_argument("--state-dir", help="also remove the app's local state under this "
                                            "state.dir, as KafkaStreams.cleanup() does")
    parser.add_argument("--dry-run", action="store_true", help="say what would change; change "
                                                               "nothing")


def parse_duration(text: str) -> float:
    """Seconds in an ISO 8601 duration of days, hours, minutes and seconds (``P1DT2H30M``)."""
    match = re.fullmatch(r"P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?", text)
    if not match or text in ("P", "PT") or text.endswith("T"):
        msg = f"--by-duration {text!r} is not an ISO 8601 duration like PT15M or P1DT2H"
        raise CliError(msg)
    days, hours, minutes, seconds = (float(g or 0) for g in match.groups())
    return ((days * 24 + hours) * 60 + minutes) * 60 + seconds


def _when(text: str) -> datetime:
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        msg = f"--to-datetime {text!r} is not an ISO 8601 time like 2026-11-28T10:00:00"
        raise CliError(msg) from None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def run(args: argparse.Namespace) -> int:
    """Reset, print what was (or would be) done."""
    from kslab.errors import StreamsError
    from kslab.runtime.reset import reset_application

    to: str | datetime | float = "latest" if args.to_latest else "earliest"
    if args.to_datetime:
        to = _when(args.to_datetime)
    elif args.by_duration:
        to = parse_duration(args.by_duration)
    topics = [t.strip() for t in args.input_topics.split(",") if t.strip()]
    try:
        result = reset_application(args.bootstrap_servers, args.application_id, topics, to=to,
                                   state_dir=args.state_dir, dry_run=args.dry_run)
    except StreamsError as exc:
        raise CliError(str(exc), FAILED) from None
    print(result.summary(), flush=True)
    return 0
