"""The package around the calls: library loading, bf16 helpers, context cache, the example."""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import pyopencl as cl
import pytest

import clnorm
from clnorm_ref import bf16_round, to_bits

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.dirname(HERE)


def test_library_loaded():
    assert clnorm.library_version() == clnorm.__version__
    path = clnorm.library_path()
    if os.environ.get("CLNORM_LIBRARY"):
        assert path.startswith(os.environ["CLNORM_LIBRARY"])


def run_python(code, **env):
    """python -c code in a scratch directory, importing the clnorm package under test."""
    e = dict(os.environ)
    # the clnorm package under test, installed or not
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(clnorm.__file__)))
    e["PYTHONPATH"] = os.pathsep.join(p for p in (pkg_parent, e.get("PYTHONPATH")) if p)
    e.update(env)
    return subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True, timeout=300,
                          cwd=tempfile.gettempdir())


def test_bad_library_path_is_an_error():
    r = run_python("import clnorm; clnorm.library_version()", CLNORM_LIBRARY="/nonexistent/libclnorm.so")
    assert r.returncode != 0 and "CLNORM_LIBRARY='/nonexistent/libclnorm.so' cannot be loaded" in r.stderr


def test_bf16_helpers(rng):
    v = np.concatenate([rng.standard_normal(1000) * 10.0 ** rng.integers(-20, 20, 1000),
                        [1.0, -2.5, 1 + 2**-8, 1 + 3 * 2**-8, 1 + 2**-8 + 2**-20, 3.0e38]])  # ties, near-ties
    got = clnorm.float_to_bf16(v.astype(np.float32))
    want = to_bits(bf16_round(v.astype(np.float32).astype(np.float64)))
    assert (got == want).all()
    assert clnorm.float_to_bf16(np.float32([1 + 2**-8]))[0] == 0x3F80          # tie to even: down
    assert clnorm.float_to_bf16(np.float32([1 + 3 * 2**-8]))[0] == 0x3F82      # tie to even: up
    special = clnorm.float_to_bf16(np.float32([np.inf, -np.inf, np.nan, 0.0, -0.0]))
    assert list(special[:2]) == [0x7F80, 0xFF80] and (special[2] & 0x7F80) == 0x7F80 and (special[2] & 0x7F)
    assert list(special[3:]) == [0, 0x8000]
    assert (clnorm.bf16_to_float(got) == bf16_round(v.astype(np.float32).astype(np.float64))).all()


def test_context_cache(queue, context):
    name = clnorm.device_name(queue)
    assert name == queue.device.name.strip() or queue.device.name.startswith(name)
    q2 = cl.CommandQueue(context)
    x = np.ones((2, 4), np.float32)
    clnorm.layer_norm_forward(q2, x)
    assert clnorm.release_context(q2) is True
    assert clnorm.release_context(q2) is False
    clnorm.layer_norm_forward(q2, x)  # a new context is made on demand
    assert clnorm.release_context(q2) is True


def test_select_device_default(device):
    assert isinstance(device, cl.Device)
    assert clnorm.select_device("").int_ptr  # the default policy alone


def test_example_runs():
    """python/example.py (the README's Python example) runs as written."""
    # run as a script, with the package under test (not necessarily the one next to example.py)
    code = f"import runpy; runpy.run_path({os.path.join(PYDIR, 'example.py')!r}, run_name='__main__')"
    r = run_python(code)
    assert r.returncode == 0, r.stdout + r.stderr
    errs = [float(v) for v in re.findall(r"= ([0-9.e+-]+)", r.stdout)]
    assert len(errs) == 3 and max(errs) < 1e-4, r.stdout


def test_readme_example_is_example_py():
    """When the repository README carries the Python example (after <!-- python-example -->),
    it must be python/example.py verbatim."""
    readme = os.path.join(os.path.dirname(PYDIR), "README.md")
    if not os.path.exists(readme):
        pytest.skip("no README.md next to python/")
    text = open(readme, encoding="utf-8").read()
    m = re.search(r"<!-- python-example -->\s*```python\n(.*?)```", text, re.S)
    if not m:
        pytest.skip("README.md has no <!-- python-example --> block yet")
    assert m.group(1) == open(os.path.join(PYDIR, "example.py"), encoding="utf-8").read()
