"""The process's table of file descriptors, grown once before the connections come.

Linux grows a process's descriptor table as descriptors are taken: to 256 entries, then
doubling (512, 1,024 ...).  In a process of more than one thread (a server's loop runs in
its own) each growth waits for an RCU grace period, 10 to 20 ms here, inside the
``accept`` that took the descriptor past the end, and the loop stands still meanwhile: at
500 streams connecting over 500 ms the streams running at the 256th and 512th connection
saw gaps of 30 to 50 ms (``perf`` showed ``accept4 < alloc_fd < expand_files <
synchronize_rcu``).  Taken once, at :meth:`Server.start`, before the loop thread exists,
the growth costs 0.1 ms (one thread: no grace period to wait for).

Rule 1: the table is grown to hold ``min(RLIMIT_NOFILE, ROOM)`` descriptors, once per
process; a later server finds it grown.  The kernel never shrinks it; it costs 8 bytes a
descriptor of kernel memory (512 KiB at ``ROOM``), none of the process's own.
Rule 2: the growth takes the lowest free descriptor at or above the top (``F_DUPFD``) and
closes it at once: no descriptor in use is touched (if all from the top up are in use,
the table holds them already).  Where this cannot be done (no
``fcntl``, a low limit, an error) nothing happens: the table grows as before.
"""

from __future__ import annotations

import contextlib
import errno
import os

__all__ = ["ROOM", "make_room"]

ROOM = 65_536  # descriptors; past them the table grows (and waits) as before
_grown = 0  # the size this process's table was grown to


def make_room(room: int = ROOM) -> int:
    """Grow the descriptor table to ``min(RLIMIT_NOFILE, room)`` entries (Rule 1); the
    size it now holds at least (0: not grown)."""
    global _grown
    try:
        import fcntl
        import resource
    except ImportError:  # not a POSIX system
        return 0
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    top = min(room, soft if soft != resource.RLIM_INFINITY else room) - 1
    if top <= _grown or top < 256:
        return _grown
    with contextlib.suppress(OSError):
        fd = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
        try:
            os.close(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, top))  # Rule 2
        except OSError as exc:
            if exc.errno != errno.EMFILE:
                raise
            # every descriptor from the top to the limit is in use: the table holds them
        finally:
            os.close(fd)
        _grown = top
    return _grown
