"""The registry of operations and functions: loaded once, and completely, whoever asks first."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.conftest import ROOT

# In a fresh interpreter: the import of one module of operations is slowed down, and twelve
# threads ask for an operation at once, as the runs queued at a restart do.
RACE = textwrap.dedent(
    """
    import importlib.abc, sys, threading, time

    class Slow(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name == "engine.operations.scripting":
                time.sleep(0.5)
            return None

    sys.meta_path.insert(0, Slow())
    from engine.registry import REGISTRY

    found, failed = [], []

    def ask():
        try:
            found.append(REGISTRY.find_operation(None, "SHExec").name)
        except LookupError as error:
            failed.append(str(error))

    threads = [threading.Thread(target=ask) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(len(found), failed)
    """
)


def test_registry_loads_once_for_threads_that_ask_at_the_same_time() -> None:
    done = subprocess.run(
        [sys.executable, "-c", RACE], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "12 []"
