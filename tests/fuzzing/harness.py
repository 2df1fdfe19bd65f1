"""Run damaged files in a worker process with a memory and a time cap per case.

The parent (:func:`run_cases`) starts ``python -m fuzzing.harness`` and sends
it one case per line; the worker reads the file with the reader of its kind
(:func:`mltrees.io.from_json`, :func:`~mltrees.io.import_xgboost`,
:func:`~mltrees.io.import_lightgbm`, :func:`~mltrees.io.import_catboost`),
predicts the source's probe rows with the model it got, and answers with the
outcome, the seconds the case took and the memory it added to the worker's
resident set (peak minus start, read from ``/proc/self/status`` after
resetting the peak with ``/proc/self/clear_refs``).

Caps:

* memory: a case may add at most ``memory_cap(payload)`` bytes (the cell
  budget of its size, three times over for the copies a reader makes, plus
  64 MiB); the worker's address space is also limited, so that a runaway
  allocation fails with MemoryError instead of exhausting the machine;
* time: ``time_cap(payload)`` seconds, 20 s plus 4 s per MiB beyond the
  first (an alarm interrupts the case), and the parent kills a worker that
  does not answer in time; a dead worker is restarted and its case counted
  as a crash.

Outcomes: ``refused`` (ModelFormatError: the reader's only error), ``same`` or
``different`` (loaded; predictions equal to the undamaged model's or not),
``unfitted`` (a file whose fitted state was deleted: an unfitted estimator),
and the failures ``escape:<exception>`` (another exception while reading),
``predict:<exception>`` (loaded but cannot predict), ``invalid:<what>`` (NaN or
infinite outputs, probabilities outside [0, 1] or not summing to 1, labels
outside ``classes_``), ``over-memory``, ``over-time`` and ``crash``.
"""

from __future__ import annotations

import base64
import json
import os
import pickle
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

TIME_CAP = 20.0  # seconds per case of up to 1 MiB (an honest one takes well under 1 s)
TIME_PER_MIB = 4.0  # and this much more per MiB: reading is linear in the file's size
ADDRESS_SPACE = 3 << 30  # bytes of address space a worker may add after start-up
FAILURES = ("escape", "predict", "invalid", "over-memory", "over-time", "crash")


def time_cap(payload) -> float:
    """Seconds a case may take."""
    return TIME_CAP + TIME_PER_MIB * max(0.0, len(payload) / 2**20 - 1.0)


def memory_cap(payload) -> int:
    """Bytes a case may add to the worker's resident memory."""
    from mltrees.io.format import Budget

    return 64 * 2**20 + 3 * 8 * Budget(len(payload)).limit


@dataclass
class Result:
    case: int
    source: str
    family: str
    description: str
    outcome: str
    detail: str = ""
    seconds: float = 0.0
    memory: int = 0
    size: int = 0

    @property
    def failed(self) -> bool:
        return self.outcome.split(":")[0] in FAILURES


@dataclass
class Summary:
    results: list = field(default_factory=list)

    @property
    def failures(self) -> list:
        return [r for r in self.results if r.failed]

    def counts(self) -> dict:
        """Outcome counts per reader kind and family."""
        table: dict = {}
        for r in self.results:
            key = f"{r.source.split(':')[0]}/{r.family}"
            table.setdefault(key, Counter())[r.outcome.split(":")[0]] += 1
        return {k: dict(v) for k, v in sorted(table.items())}

    def report(self) -> str:
        seconds = sum(r.seconds for r in self.results)
        lines = [f"{len(self.results)} cases ({seconds:.1f} s), {len(self.failures)} failures"]
        total = Counter(r.outcome.split(":")[0] for r in self.results)
        lines.append("  " + ", ".join(f"{k}: {v}" for k, v in sorted(total.items())))
        for key, counts in self.counts().items():
            lines.append(f"  {key:28s} " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
        slowest = max(self.results, key=lambda r: r.seconds, default=None)
        largest = max(self.results, key=lambda r: r.memory, default=None)
        if slowest is not None:
            lines.append(
                f"  slowest case {slowest.seconds:.2f} s "
                f"({slowest.source}: {slowest.description[:60]})"
            )
            lines.append(
                f"  most memory {largest.memory / 2**20:.1f} MiB ({largest.source}: "
                f"{largest.description[:60]}, file {largest.size} bytes)"
            )
        for r in self.failures[:40]:
            lines.append(
                f"  FAIL {r.outcome} {r.source} [{r.family}] {r.description[:100]} "
                f":: {r.detail[:200]}"
            )
        return "\n".join(lines)


# ---------------------------------------------------------------- parent side


def run_cases(sources, cases) -> Summary:
    """Run ``cases`` = [(source name, family, description, payload)] in a capped worker."""
    by_name = {s.name: s for s in sources}
    summary = Summary()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "sources.pickle")
        with open(path, "wb") as handle:  # the harness's own data, written just now
            pickle.dump({s.name: (s.kind, s.payload, s.probe) for s in sources}, handle)
        pending = list(enumerate(cases))
        while pending:
            worker = _start_worker(path)
            done = _feed(worker, pending, by_name, summary)
            pending = pending[done:]
            if pending:  # the worker died or hung on pending[0]: count it, restart after it
                case, (name, family, description, payload) = pending[0]
                summary.results.append(
                    Result(
                        case,
                        f"{by_name[name].kind}:{name}",
                        family,
                        description,
                        "crash",
                        "the worker died or hung",
                        time_cap(payload),
                        0,
                        len(payload),
                    )
                )
                pending = pending[1:]
    return summary


def _start_worker(path):
    tests = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    root = os.path.dirname(tests)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([root, tests, env.get("PYTHONPATH", "")])
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[name] = "1"
    return subprocess.Popen(
        [sys.executable, "-m", "fuzzing.harness", path],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        text=True,
        bufsize=1,
    )


def _feed(worker, pending, by_name, summary) -> int:
    """Send cases one by one; the number answered before the worker stopped answering."""
    import select

    answered = 0
    try:
        ready = worker.stdout.readline()  # start-up done
        if ready.strip() != "ready":
            raise RuntimeError(f"the fuzzing worker did not start: {ready.strip()[:500]}")
        for case, (name, family, description, payload) in pending:
            message = {"case": case, "source": name}
            if isinstance(payload, bytes):
                message["b64"] = base64.b64encode(payload).decode("ascii")
            else:
                message["text"] = payload
            worker.stdin.write(json.dumps(message) + "\n")
            worker.stdin.flush()
            readable, _, _ = select.select([worker.stdout], [], [], time_cap(payload) + 30)
            line = worker.stdout.readline() if readable else ""
            if not line:
                return answered
            answer = json.loads(line)
            outcome = answer["outcome"]
            size = len(payload)
            if answer["seconds"] > time_cap(payload) and outcome.split(":")[0] not in FAILURES:
                outcome = "over-time"
            if answer["memory"] > memory_cap(payload) and outcome.split(":")[0] not in FAILURES:
                outcome = "over-memory"
            summary.results.append(
                Result(
                    case,
                    f"{by_name[name].kind}:{name}",
                    family,
                    description,
                    outcome,
                    answer.get("detail", ""),
                    answer["seconds"],
                    answer["memory"],
                    size,
                )
            )
            answered += 1
        return answered
    finally:
        if worker.poll() is None:
            worker.kill()
        worker.wait()


# ---------------------------------------------------------------- worker side


class _Timeout(BaseException):
    """Raised by the alarm; a BaseException so that no ``except Exception`` swallows it."""


def _alarm(signum, frame):
    raise _Timeout


def _status(field_name: str) -> int:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(field_name + ":"):
                return int(line.split()[1]) * 1024
    return 0


def _read(kind, payload):
    import mltrees.io as io

    if kind == "mltrees":
        return io.from_json(payload)
    if kind == "xgboost":
        return io.import_xgboost(payload if isinstance(payload, bytes) else payload.encode("utf-8"))
    if kind == "lightgbm":
        return io.import_lightgbm(payload)
    return io.import_catboost(payload if isinstance(payload, bytes) else payload.encode("utf-8"))


def _outputs(model, probe) -> dict:
    """Everything the model predicts for the probe rows."""
    out = {"predict": np.asarray(model.predict(probe))}
    for method in ("predict_proba", "decision_function"):
        if hasattr(model, method):
            try:
                out[method] = np.asarray(getattr(model, method)(probe))
            except (AttributeError, NotImplementedError) as error:
                if "has no" in str(error) or isinstance(error, NotImplementedError):
                    continue
                raise
    return out


def _invalid(model, outputs, n_rows) -> str:
    """What is wrong with a loaded model's outputs ("" if nothing)."""
    from sklearn.base import is_classifier

    predict = outputs["predict"]
    if predict.shape[0] != n_rows:
        return f"predict returned {predict.shape[0]} rows for {n_rows}"
    if is_classifier(model) and hasattr(model, "classes_"):
        if not np.isin(predict, model.classes_).all():
            return "a predicted label is not among classes_"
    elif predict.dtype.kind in "fc" and not np.isfinite(predict).all():
        return "predict is not finite"
    proba = outputs.get("predict_proba")
    if proba is not None:
        if not np.isfinite(proba).all():
            return "predict_proba is not finite"
        if (proba < -1e-12).any() or (proba > 1 + 1e-12).any():
            return "predict_proba outside [0, 1]"
        if proba.ndim == 2 and not np.allclose(proba.sum(axis=1), 1.0, atol=1e-6):
            return "predict_proba rows do not sum to 1"
    raw = outputs.get("decision_function")
    if raw is not None and raw.dtype.kind in "fc" and not np.isfinite(raw).all():
        return "decision_function is not finite"
    link = getattr(model, "link_", None)
    if link in ("logit", "softmax") and ((predict < 0) | (predict > 1)).any():
        return "a probability outside [0, 1]"
    return ""


def _same(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    for key in a:
        x, y = a[key], b[key]
        if x.shape != y.shape:
            return False
        if x.dtype.kind in "fc" and y.dtype.kind in "fc":
            if not np.array_equal(x, y, equal_nan=True):
                return False
        elif not np.array_equal(x.astype(object), y.astype(object)):
            return False
    return True


def _rename_columns(model, probe):
    """A DataFrame probe with the loaded model's feature names (an edited name is not a defect)."""
    names = getattr(model, "feature_names_in_", None)
    if (
        hasattr(probe, "columns")
        and names is not None
        and len(names) == probe.shape[1]
        and list(names) != list(probe.columns)
    ):
        probe = probe.copy()
        probe.columns = list(names)
    return probe


def _fitted(model) -> bool:
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    if not hasattr(model, "fit"):  # an imported model: built fitted, or not at all
        return hasattr(model, "predict")
    try:
        check_is_fitted(model)
    except NotFittedError:
        return False
    return True


def _run_case(kind, payload, probe, baseline):
    try:
        model = _read(kind, payload)
    except Exception as error:
        from mltrees.io import ModelFormatError

        if isinstance(error, ModelFormatError):
            return "refused", str(error)[:300]
        if isinstance(error, MemoryError):
            return "over-memory", "MemoryError while reading"
        return f"escape:{type(error).__name__}", str(error)[:300]
    probe = _rename_columns(model, probe)
    if not _fitted(model):
        return "unfitted", ""  # a file may hold an unfitted estimator (its parameters)
    try:
        outputs = _outputs(model, probe)
    except MemoryError:
        return "over-memory", "MemoryError while predicting"
    except Exception as error:
        return f"predict:{type(error).__name__}", str(error)[:300]
    problem = _invalid(model, outputs, len(probe))
    if problem:
        return f"invalid:{problem}", ""
    if baseline is None:
        return "same", ""
    return ("same" if _same(outputs, baseline) else "different"), ""


def _worker(path):
    import warnings

    warnings.simplefilter("ignore")
    with open(path, "rb") as handle:
        sources = pickle.load(handle)
    baselines = {}
    for name, (kind, payload, probe) in sources.items():
        outcome, detail = _run_case(kind, payload, probe, None)  # warm-up: imports, threads
        if outcome != "same":
            print(f"the undamaged source {name} gives {outcome}: {detail}", flush=True)
            return
        model = _read(kind, payload)
        baselines[name] = _outputs(model, _rename_columns(model, probe))
    size = _status("VmSize")
    resource.setrlimit(resource.RLIMIT_AS, (size + ADDRESS_SPACE, resource.RLIM_INFINITY))
    signal.signal(signal.SIGALRM, _alarm)
    print("ready", flush=True)
    for line in sys.stdin:
        message = json.loads(line)
        name = message["source"]
        kind, _, probe = sources[name]
        payload = base64.b64decode(message["b64"]) if "b64" in message else message["text"]
        del message, line
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")  # reset the peak resident size
        start_memory = _status("VmRSS")
        start = time.perf_counter()
        cap = time_cap(payload)
        signal.setitimer(signal.ITIMER_REAL, cap)
        try:
            outcome, detail = _run_case(kind, payload, probe, baselines[name])
        except _Timeout:
            outcome, detail = "over-time", f"interrupted after {cap:.0f} s"
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        seconds = time.perf_counter() - start
        memory = max(0, _status("VmHWM") - start_memory)
        answer = {"outcome": outcome, "detail": detail, "seconds": seconds, "memory": memory}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    _worker(sys.argv[1])
