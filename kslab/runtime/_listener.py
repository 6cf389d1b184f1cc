"""Who listens on a TCP port: the Kafka cluster id it answers with, and the processes holding it.

``LocalBroker`` asks both before it reports "running", so a port someone else holds is never
taken for the broker it started. Invariant: nothing here raises for an unreachable, silent or
non-Kafka listener, and nothing here logs: every probe answers ``None`` when it cannot tell.
"""

from __future__ import annotations

import contextlib
import os
import socket
import struct
from pathlib import Path

__all__ = ["cluster_id", "describe_holders", "holds", "port_holders"]

_METADATA = 3  # Kafka API key of a Metadata request
_VERSION = 4  # the oldest version Kafka 4 still serves that reports the cluster id
_LISTEN = "0A"  # the LISTEN state in /proc/net/tcp


def cluster_id(host: str, port: int, timeout: float = 0.5) -> str | None:
    """The cluster id a Kafka broker at ``host:port`` reports in a Metadata response; ``None``
    when nothing listens there, it does not answer in ``timeout`` s, or the answer is not Kafka.
    """
    client = b"kslab-probe"
    request = struct.pack(">hhih", _METADATA, _VERSION, 1, len(client)) + client
    request += struct.pack(">i?", 0, False)  # no topics, no auto-creation
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.sendall(struct.pack(">i", len(request)) + request)
            size = struct.unpack(">i", _read(sock, 4))[0]
            if not 0 < size < 1 << 20:
                return None
            return _parse_cluster_id(_read(sock, size))
    except (OSError, struct.error, UnicodeDecodeError, ValueError):
        return None


def port_holders(port: int) -> list[tuple[int, str]] | None:
    """``(pid, command line)`` of the processes this user can see listening on TCP ``port``
    (any address); ``None`` where ``/proc`` cannot tell (not Linux)."""
    inodes = _listening_inodes(port)
    if inodes is None:
        return None
    if not inodes:
        return []
    holders = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and _holds(int(entry.name), inodes):
            holders.append((int(entry.name), _command_line(int(entry.name))))
    return holders


def holds(pid: int, port: int) -> bool | None:
    """Whether process ``pid`` listens on TCP ``port``; ``None`` where ``/proc`` cannot tell."""
    inodes = _listening_inodes(port)
    return None if inodes is None else _holds(pid, inodes)


def describe_holders(port: int) -> str | None:
    """``pid 123 (cmd args)`` for each process listening on ``port``, or ``None`` if none is
    visible (the port is free, or held by a process of another user, or there is no /proc)."""
    holders = port_holders(port)
    if not holders:
        return None
    return ", ".join(f"pid {pid} ({command})" for pid, command in holders)


def _read(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            msg = "the listener closed the connection"
            raise ValueError(msg)
        data += chunk
    return data


def _parse_cluster_id(body: bytes) -> str | None:
    # Metadata response v4: correlation id, throttle time, brokers [node id, host, port,
    # rack], cluster id (nullable string), controller id, topics
    offset = 8
    (brokers,) = struct.unpack_from(">i", body, offset)
    offset += 4
    for _ in range(brokers):
        offset += 4  # node id
        offset = _skip_string(body, offset)
        offset += 4  # port
        offset = _skip_string(body, offset)  # rack
    (length,) = struct.unpack_from(">h", body, offset)
    if length < 0:
        return None
    return body[offset + 2:offset + 2 + length].decode()


def _skip_string(body: bytes, offset: int) -> int:
    (length,) = struct.unpack_from(">h", body, offset)
    return offset + 2 + max(length, 0)


def _listening_inodes(port: int) -> set[str] | None:
    inodes: set[str] = set()
    seen = False
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        seen = True
        for line in lines:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == _LISTEN and int(local.rpartition(":")[2], 16) == port:
                inodes.add(inode)
    return inodes if seen else None


def _holds(pid: int, inodes: set[str]) -> bool:
    wanted = {f"socket:[{inode}]" for inode in inodes}
    with contextlib.suppress(OSError):
        for fd in os.scandir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                if os.readlink(fd.path) in wanted:
                    return True
    return False


def _command_line(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "?"
    command = raw.replace(b"\0", b" ").decode(errors="replace").strip()
    return command if len(command) <= 120 else command[:117] + "..."
