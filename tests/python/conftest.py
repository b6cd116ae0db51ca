"""Shared set-up of the Python binding's tests: the package from the source
tree (lib/python), the library from build/ (or PLACEMENT_LIB), and the
Hypothesis profile every property test runs under."""

import os
import sys

import pytest
from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "lib", "python"))

# Bounded and replayable: a failure prints the example and the blob that
# replays it (@reproduce_failure); nothing is written into the tree.
set_hypothesis_home_dir(os.path.join(ROOT, os.environ.get("BUILD", "build"), "hypothesis"))
settings.register_profile("placement", deadline=None, print_blob=True, database=None, max_examples=60)
settings.load_profile(os.environ.get("PL_HYPOTHESIS_PROFILE", "placement"))


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def tool():
    """build/placement, the placement(1) tool `make` builds."""
    path = os.path.join(ROOT, os.environ.get("BUILD", "build"), "placement")
    if not os.access(path, os.X_OK):
        pytest.skip("no %s: run make first" % path)
    return path
