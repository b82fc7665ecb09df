"""Shared fixtures: one PyOpenCL queue on the device clnorm would pick (CLNORM_DEVICE, else its
default policy), and a seeded random generator per test."""
import os
import sys
import zlib

import numpy as np
import pytest

# The package under test: python/clnorm of this checkout, or, with CLNORM_TEST_INSTALLED=1 (as
# python/run_tests.sh sets it), the installed one.
_PYDIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_INSTALLED = os.environ.get("CLNORM_TEST_INSTALLED") == "1"
if not _INSTALLED:
    sys.path.insert(0, _PYDIR)
import clnorm  # noqa: E402

if _INSTALLED and os.path.abspath(clnorm.__file__).startswith(_PYDIR + os.sep):
    raise RuntimeError(f"CLNORM_TEST_INSTALLED=1 but clnorm was imported from the source tree: {clnorm.__file__}")

import pyopencl as cl


@pytest.fixture(scope="session")
def device():
    return clnorm.select_device()


@pytest.fixture(scope="session")
def context(device):
    return cl.Context([device])


@pytest.fixture(scope="session")
def queue(context):
    q = cl.CommandQueue(context)
    yield q
    q.finish()


@pytest.fixture
def rng(request):
    # A different, reproducible stream per test.
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))
