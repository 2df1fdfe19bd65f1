"""Worker processes forked from a grower, each serving a share of the features.

Exact greedy split finding (:mod:`~mltrees.hist.xgboost.exact`) makes some thirty
NumPy calls per feature and level, each of a few hundred microseconds on
100k rows. Every call releases the interpreter lock and takes it back; with
two threads, a contended hand-over waits for the operating system to wake
the other thread, which on a virtual machine costs tens of microseconds.
Threads therefore reach about 1.3x of one thread on two cores, while
independent processes reach about 2x. The workers are forked, so they
start with the grower's sorted columns and need no pickling of the data,
and they live as long as the grower (``close`` stops them).

A process waiting for a message sleeps in a blocking read, and on a
virtual machine the wake-up of its idle virtual CPU can take most of a
millisecond, once per message and level. With ``spin`` seconds, each side
polls its pipe that long before it blocks, as OpenMP threads spin before
they sleep: a level's messages arrive within a few milliseconds, so the
waits end without a wake-up, at the price of a busy core while waiting.

Forking needs Linux (macOS and Windows lack a safe ``fork``) and a parent
that may have children (a daemonic process may not): :func:`can_fork`
says whether both hold, and the grower uses threads otherwise (on large
data; on small data, where threads lose to one thread, one thread).

**Fork safety.** A child forked while another thread of the parent holds
a lock (the allocator's, an import's, a logging handler's, a lock of the
package) inherits that lock held, and no thread of the child will release
it: the child can deadlock. So the workers are forked only while the
forking thread is the process's only Python thread (:func:`forks_safely`),
once the package's own idle prediction threads are stopped
(:func:`mltrees._threads.stop_idle_helpers`); with any other thread alive
(a user's, a web server's, a Dask worker's, a fit called from a thread) the
grower scans on threads instead, with the same trees. What remains are the
native thread pools of the compiled libraries (NumPy's BLAS starts its own
at import, OpenMP runtimes after a first parallel region): they run no
Python code and sleep between calls, OpenBLAS resets its pool in a forked
child (a ``pthread_atfork`` handler), and the workers call neither BLAS nor
OpenMP.
CPython 3.12 and later warn at a fork beside other threads
(``DeprecationWarning``); CPython 3.12.1 and 3.13.0 on Linux count only
Python threads, so they warn exactly when this rule forbids the fork. A
build that counted the native threads too would warn at every fork after
``import numpy``: the grower's forks, made under the rule above, silence
that one warning. The fork server (Python 3.14's default start method)
would avoid the question, at the price of a fresh interpreter importing the
package per session and of re-running an unguarded main script in every
worker; the rule above keeps the milliseconds' start of a fork with which
the size thresholds in :mod:`~mltrees.hist.xgboost.exact` were measured.
"""

from __future__ import annotations

import contextlib
import mmap
import multiprocessing
import signal
import sys
import threading
import time
import warnings
import weakref

import numpy as np

__all__ = ["ForkedWorkers", "can_fork", "forks_safely", "shared_array"]


def can_fork() -> bool:
    """Whether this process may fork worker processes (Linux, not a daemon)."""
    return sys.platform.startswith("linux") and not multiprocessing.current_process().daemon


def forks_safely() -> bool:
    """Whether the calling thread is the process's only Python thread.

    The package's idle prediction threads are stopped first
    (:func:`mltrees._threads.stop_idle_helpers`); any other live thread
    makes a fork unsafe (see the module's notes).
    """
    from mltrees._threads import stop_idle_helpers

    stop_idle_helpers()
    return threading.active_count() == 1


class ForkedWorkers:
    """One forked process per share, each running ``serve(connection, share)``.

    ``serve`` answers every request it receives on ``connection`` with
    ``(True, list)`` or ``(False, traceback text)``, and returns when it
    receives ``None``. Both sides poll for up to ``spin`` seconds before a
    blocking read (see the module's notes); 0 blocks at once, which suits
    more processes than cores. :meth:`submit` sends one request to every worker and
    :meth:`collect` joins their lists in the order of the shares; the parent
    may do its own share in between. Large inputs go through
    :func:`shared_array` memory made before the fork, not through the pipes.
    """

    def __init__(self, serve, shares, spin: float = 0.0):
        if not callable(serve):
            raise TypeError(f"serve must be callable, got {type(serve).__name__}")
        if isinstance(spin, bool) or not isinstance(spin, (int, float, np.integer, np.floating)):
            raise TypeError(f"spin must be a number of seconds, got {type(spin).__name__}")
        if not 0 <= spin < np.inf:
            raise ValueError(f"spin must be a finite number of seconds >= 0, got {spin}")
        self._spin = float(spin)
        shares = list(shares)
        if not shares:
            raise ValueError("shares must hold at least one share (one worker per share)")
        if not can_fork():
            raise RuntimeError(
                "worker processes are forked, which needs Linux and a parent that is not "
                "a daemonic process; check can_fork() first"
            )
        if not forks_safely():
            raise RuntimeError(
                "worker processes are forked, and this process runs other threads, which "
                "could leave a lock held forever in a worker; check forks_safely() first"
            )
        context = multiprocessing.get_context("fork")
        self._connections, self._processes = [], []
        # Stop the workers even if close() is never called (and at exit).
        self._finalizer = weakref.finalize(self, _shutdown, self._connections, self._processes)
        for share in shares:
            ours, theirs = context.Pipe()
            process = context.Process(
                target=_serve, args=(serve, theirs, share, self._spin), daemon=True
            )
            with warnings.catch_warnings():
                # Only native threads can run here; see the module's notes.
                warnings.filterwarnings(
                    "ignore", r".*is multi-threaded, use of fork\(\)", DeprecationWarning
                )
                process.start()
            theirs.close()
            self._connections.append(ours)
            self._processes.append(process)

    def __len__(self) -> int:
        return len(self._processes)

    def submit(self, request) -> None:
        """Send ``request`` to every worker; :meth:`collect` gathers the answers."""
        for connection in self._connections:
            connection.send(request)

    def collect(self) -> list:
        """The answers to the last request, concatenated in the order of the shares."""
        answers = []
        for connection in self._connections:
            try:
                _poll(connection, self._spin)
                ok, answer = connection.recv()
            except EOFError:
                raise RuntimeError("a worker process of the grower exited unexpectedly") from None
            if not ok:
                raise RuntimeError(f"a worker process of the grower failed:\n{answer}")
            answers.extend(answer)
        return answers

    def close(self) -> None:
        """Stop the workers (idempotent)."""
        self._finalizer()


def shared_array(size: int, dtype) -> np.ndarray:
    """An array in anonymous shared memory: processes forked after it see its writes."""
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
        raise TypeError(f"size must be an integer, got {type(size).__name__}")
    if size < 0:
        raise ValueError(f"size must be >= 0, got {size}")
    dtype = np.dtype(dtype)
    if dtype.hasobject:
        raise TypeError("dtype must hold plain values: object references cannot be shared")
    buffer = mmap.mmap(-1, max(size * dtype.itemsize, 1))
    return np.frombuffer(buffer, dtype=dtype, count=size)


def _poll(connection, seconds: float) -> None:
    """Return when ``connection`` has data, or after ``seconds`` of polling it."""
    if seconds > 0:
        deadline = time.perf_counter() + seconds
        while not connection.poll(0) and time.perf_counter() < deadline:
            pass


class _PollingConnection:
    """A worker's end of the pipe, polled for ``spin`` seconds before each blocking read."""

    def __init__(self, connection, spin: float):
        self._connection, self._spin = connection, spin

    def recv(self):
        _poll(self._connection, self._spin)
        return self._connection.recv()

    def send(self, message) -> None:
        self._connection.send(message)


def _serve(serve, connection, share, spin):
    # Ctrl-C reaches the whole process group: the parent handles it and stops us.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    serve(_PollingConnection(connection, spin), share)


def _shutdown(connections, processes):
    for connection in connections:
        with contextlib.suppress(OSError):  # the worker is gone already
            connection.send(None)
    for process in processes:
        process.join(timeout=2.0)
        if process.is_alive():  # blocked sending an answer nobody reads
            process.terminate()
            process.join()
    for connection in connections:
        connection.close()
