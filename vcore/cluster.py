"""``vcore sweep`` on a Dask cluster: where its scheduler is, a check that every worker runs this
vcore, and the runs as Dask futures.

The scheduler is named, from the strongest to the weakest: by the caller (an address, a scheduler
file, or in Python a ``distributed.Client`` or a cluster object), then by an explicit choice of local
processes (``jobs``), then by the Dask configuration's ``scheduler-address`` (DASK_SCHEDULER_ADDRESS, or
a Dask YAML file), when distributed is installed; else the sweep runs on local processes.

distributed is an optional extra (the `cluster` extra: pip install -e '.[cluster]'): nothing here
imports it before a sweep goes to a cluster.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from importlib import metadata
from pathlib import Path

DASK_TIMEOUT = 30.0  # seconds to reach the scheduler (and its file), and for a first worker to be there
# The import packages that make vcore: what the content hash covers.
PACKAGES = ("vcore", "vcore.assembler", "vcore.emulator", "vcore.isa")  # (a checkout keeps the last three apart)
# What the rows are computed with besides vcore: a worker with other versions may give other rows.
LIBRARIES = ("numpy", "ml_dtypes", "attrs")
SHOWN = 8  # workers named in a message, per kind of fault


class DaskError(Exception):
    """The Dask cluster cannot run the sweep (a bad address, no scheduler there, no workers, workers
    without this vcore): what is wrong and what to do."""


class Scheduler:
    """Where a sweep's runs go: ``how`` it was named ("address", "file", "config", "client", "cluster")
    and ``what`` (the address, the file's path, or the caller's object)."""

    def __init__(self, how: str, what) -> None:
        self.how, self.what = how, what

    def __repr__(self) -> str:
        return f"Scheduler({self.how!r}, {self.what!r})"


def scheduler(dask=None, scheduler_file=None, jobs: int | None = None) -> Scheduler | None:
    """The scheduler a sweep uses, or None for local processes: ``dask`` (an address, a
    ``distributed.Client``, or a cluster: anything with ``.scheduler_address``) or ``scheduler_file``;
    else, when ``jobs`` is None, the Dask configuration's ``scheduler-address`` if distributed is
    installed."""
    if dask is not None and scheduler_file is not None:
        raise ValueError("give dask= or scheduler_file=, not both")
    if isinstance(dask, str):
        return Scheduler("address", dask)
    if dask is not None:
        if hasattr(dask, "submit") and hasattr(dask, "run"):
            return Scheduler("client", dask)
        if hasattr(dask, "scheduler_address"):
            return Scheduler("cluster", dask)
        raise TypeError(f"dask= takes a scheduler address, a distributed.Client or a cluster, "
                        f"not {type(dask).__name__}")
    if scheduler_file is not None:
        return Scheduler("file", os.fspath(scheduler_file))
    if jobs is None:
        address = configured_address()
        if address:
            return Scheduler("config", address)
    return None


def configured_address() -> str | None:
    """The Dask configuration's ``scheduler-address`` (DASK_SCHEDULER_ADDRESS, or a Dask YAML file),
    when distributed is installed to reach it; else None."""
    try:
        if importlib.util.find_spec("distributed") is None:
            return None
    except (ImportError, ValueError):
        return None
    import dask.config

    address = dask.config.get("scheduler-address", None)
    return str(address) if address else None


@contextlib.contextmanager
def connected(where: Scheduler, timeout: float) -> Iterator:
    """A Client of the scheduler: the caller's own (left open), or one made here (closed after)."""
    from distributed import Client

    if where.how == "client":
        if where.what.status not in ("running", "connecting", "newly-created"):
            raise DaskError(f"the Client is {where.what.status}: give one that is running")
        yield where.what
        return
    if where.how == "cluster":
        client = _connect(lambda: Client(where.what, timeout=timeout, set_as_default=False),
                          where.what.scheduler_address, timeout, named=True)
    else:
        address = read_scheduler_file(where.what, timeout) if where.how == "file" else where.what
        client = _connect(lambda: Client(address, timeout=timeout, set_as_default=False), address, timeout,
                          named=where.how != "address")
    with client:
        yield client


def _connect(make: Callable, address: str, timeout: float, named: bool):
    at = f" at {address}" if named else ""
    try:
        return make()
    except ValueError as err:  # not an address Dask can read
        web = "; an http:// address is the dashboard's" if address.startswith(("http:", "https:")) else ""
        raise DaskError(f"not a scheduler address{at} ({err}); give the one the scheduler prints, "
                        f"tcp://HOST:PORT{web}") from None
    except (OSError, TimeoutError) as err:
        raise DaskError(f"cannot reach the scheduler{at} ({err}): check that it runs there and that this "
                        f"machine reaches it, or wait longer with --dask-timeout SECONDS (now {timeout:g})") from None


def read_scheduler_file(path: str, timeout: float) -> str:
    """The scheduler's address from the JSON file ``dask scheduler --scheduler-file FILE`` writes,
    waiting up to ``timeout`` seconds for it to be there (a batch script starts the scheduler and the
    sweep together) and for it to be whole."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            info = json.loads(Path(path).read_text(encoding="utf-8"))
            if not isinstance(info, dict) or not isinstance(info.get("address"), str):
                raise KeyError("no address in it")
            return info["address"]
        except FileNotFoundError:
            if time.monotonic() >= deadline:
                raise DaskError(f"no such file, none came within {timeout:g} s: start the scheduler with dask "
                                f"scheduler --scheduler-file {path}, or wait longer with --dask-timeout SECONDS"
                                ) from None
        except (ValueError, KeyError) as err:  # being written, or not a scheduler's file
            if _settled(path, deadline):
                why = err.args[0] if isinstance(err, KeyError) else str(err)
                raise DaskError(f"not a scheduler file ({why}): give the one dask scheduler --scheduler-file "
                                f"FILE writes (JSON with the scheduler's address)") from None
        except OSError as err:
            raise DaskError(f"cannot read it ({err.strerror or err})") from None
        time.sleep(0.05)


def _settled(path: str, deadline: float) -> bool:
    """A file that is not yet a scheduler file has had its chance: it has not changed for half a second
    (a scheduler writes its file in one go), or the time is up."""
    try:
        return time.time() - os.stat(path).st_mtime > 0.5 or time.monotonic() >= deadline
    except OSError:
        return False


# -- which vcore a worker runs --------------------------------------------------------------------------

def _probe(packages: tuple[str, ...], libraries: tuple[str, ...]) -> Callable[[], dict]:
    """A function that says which vcore its Python runs: ``error`` (why vcore cannot be imported, or
    ""), ``version`` (``vcore.__version__``, else the version of the distribution that installed it,
    else None), ``hash`` (of its packages' source files) and the versions of ``libraries``. Made here
    and not at module level so that Dask sends it by value: a worker without vcore can run it."""

    def probe() -> dict:
        import hashlib
        import importlib
        import importlib.util
        from importlib import metadata
        from pathlib import Path

        def version_of(name: str):
            try:
                return metadata.version(name)
            except Exception:  # not installed, or without metadata
                return None

        out: dict = {name: version_of(name) for name in libraries}
        try:
            vcore = importlib.import_module("vcore")
            importlib.import_module("vcore.sweep")
        except Exception as err:
            return {**out, "error": str(err) or type(err).__name__, "version": None, "hash": ""}
        version = getattr(vcore, "__version__", None)
        if version is None:
            try:
                version = version_of(metadata.packages_distributions()["vcore"][0])
            except Exception:  # a source tree on the path: no distribution
                version = None
        digest = hashlib.sha256()
        for name in packages:
            try:
                spec = importlib.util.find_spec(name)
            except Exception:
                spec = None
            for folder in (spec.submodule_search_locations or []) if spec else []:
                root = Path(folder)
                for file in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".toml") and p.is_file()):
                    digest.update(f"{name}/{file.relative_to(root).as_posix()}\0".encode())
                    digest.update(file.read_bytes())
        return {**out, "error": "", "version": version, "hash": digest.hexdigest()[:16]}

    return probe


def this_vcore() -> dict:
    """Which vcore runs here, as the workers are asked (see _probe)."""
    return _probe(PACKAGES, LIBRARIES)()


def label(identity: dict) -> str:
    return identity["version"] or f"source {identity['hash']}"


def differs(here: dict, there: dict) -> str:
    """How a worker's vcore differs from the one here ("" when it is the same): by version when both
    have one, else by the content of their source files."""
    if there.get("error"):
        return f"cannot import vcore ({there['error']})"
    if here["version"] and there["version"]:
        return "" if here["version"] == there["version"] else f"vcore {there['version']}"
    return "" if here["hash"] == there["hash"] else f"vcore {label(there)}"


def _named(workers: list[str]) -> str:
    more = f" and {len(workers) - SHOWN} more" if len(workers) > SHOWN else ""
    return ", ".join(workers[:SHOWN]) + more


def install_hint() -> str:
    """How to install this vcore on the workers: from the checkout it runs from, from the wheel it was
    installed from, or as the release it is."""
    here = Path(__file__).resolve().parents[1]
    if (here / "pyproject.toml").is_file():  # a checkout (installed editable, or on the path)
        return f"pip install {here} (this checkout), or a wheel built from it (pip wheel --no-deps -w dist {here})"
    try:
        name = metadata.packages_distributions()["vcore"][0]
        dist = metadata.distribution(name)
    except (KeyError, IndexError, metadata.PackageNotFoundError):  # copied in by hand
        return f"pip install the source that {here} holds, with the same numpy, ml_dtypes and attrs"
    origin = json.loads(dist.read_text("direct_url.json") or "{}")
    if origin.get("url", "").startswith("file://") and "archive_info" in origin:
        return f"pip install {origin['url'].removeprefix('file://')} (the wheel installed here)"
    return f"pip install '{name}=={dist.version}'"


def other_libraries(here: dict, answers: dict[str, dict]) -> str:
    """A warning ("" when none): workers whose numpy, ml_dtypes or attrs differ from the versions here."""
    groups: dict[str, list[str]] = {}
    for worker, there in sorted(answers.items()):
        what = ", ".join(f"{name} {there.get(name) or 'none'} (here {here.get(name) or 'none'})"
                         for name in LIBRARIES if there.get(name) != here.get(name))
        if what:
            groups.setdefault(what, []).append(worker)
    if not groups:
        return ""
    told = "; ".join(f"{_named(workers)}: {what}" for what, workers in groups.items())
    return (f"workers run other versions of the libraries vcore computes with, so their rows may differ from a "
            f"local run's: {told}; install the versions here")


def check_workers(client, timeout: float, tell: Callable[[str], None]) -> None:
    """Before any run: a worker is there (within ``timeout``), and every worker runs this vcore (else
    one DaskError naming the workers that do not, and what to install). Workers whose numpy, ml_dtypes
    or attrs differ are a warning told through ``tell``."""
    try:
        client.wait_for_workers(1, timeout=timeout)
    except (OSError, TimeoutError):
        raise DaskError(f"the scheduler has no workers (none came within {timeout:g} s): start some, "
                        f"dask worker {client.scheduler.address}") from None
    here = this_vcore()
    try:
        answers = client.run(_probe(PACKAGES, LIBRARIES))
    except Exception as err:  # a worker could not even run the question (sent as Python code by value)
        raise DaskError(f"the workers cannot say which vcore they run ({type(err).__name__}: {err}): their Python "
                        f"or Dask may differ from the {sys.version.split()[0]} and distributed "
                        f"{metadata.version('distributed')} here; install those versions there") from None
    faults: dict[str, list[str]] = {}
    for worker, there in sorted(answers.items()):
        fault = differs(here, there)
        if fault:
            faults.setdefault(fault, []).append(worker)
    if faults:
        lacking = sum(len(workers) for workers in faults.values())
        told = "; ".join(f"{_named(workers)}: {fault}" for fault, workers in faults.items())
        raise DaskError(f"{lacking} of {len(answers)} workers lack vcore {label(here)}, the one here: {told}; "
                        f"install it in the workers' Python environment: {install_hint()}")
    warning = other_libraries(here, answers)
    if warning:
        tell(f"warning: {warning}")


def dashboard(client) -> str:
    """The scheduler's dashboard link, or "" when it has none."""
    try:
        return client.dashboard_link or ""
    except Exception:  # no dashboard service (distributed raises KeyError for one)
        return ""


def outcomes(client, run: Callable, tasks: list[tuple], progress: bool) -> Iterator[tuple[int, object]]:
    """(index, row or the exception that lost it) for each task as it finishes. ``progress``:
    distributed's own progress bar on stderr first (it waits for all). Ctrl-C cancels the runs left;
    those finished by then are yielded before it goes on."""
    from distributed import as_completed

    futures = [client.submit(run, *task, pure=False) for task in tasks]
    index = {f.key: i for i, f in enumerate(futures)}
    given: set[int] = set()

    def outcome(future) -> object:
        try:
            return future.result()
        except Exception as err:  # the cluster lost it (its worker died again and again, say)
            return err

    try:
        if progress:
            from distributed import progress as progress_bar

            # distributed draws on stdout, where the rows go; the bar is wiped when all are done
            with contextlib.redirect_stdout(sys.stderr):
                progress_bar(futures, multi=False, notebook=False, scheduler=client.scheduler.address)
        for future in as_completed(futures, loop=client.loop):  # set_as_default=False: say whose
            given.add(index[future.key])
            yield index[future.key], outcome(future)
    except KeyboardInterrupt:
        client.cancel([f for f in futures if not f.done()])
        for i, future in enumerate(futures):
            if i not in given and future.status == "finished":
                yield i, future.result()
        raise
