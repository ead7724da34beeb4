"""Load a script of `perf/` as a module, for tests of its helpers."""

import importlib.util
import sys
from pathlib import Path

PERF = Path(__file__).resolve().parents[2] / "perf"


def perf_script(name: str):
    sys.path.insert(0, str(PERF))  # a script may import its neighbours
    try:
        spec = importlib.util.spec_from_file_location(name, PERF / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # its dataclasses look their module up
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(PERF))
    return module
