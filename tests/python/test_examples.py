"""Every example in lib/python/examples runs to the end and exits 0: each
checks what it shows (the tick loop ends balanced, ...) and exits 1 when it
does not hold. Each runs in its own process, with this interpreter, the
package from the tree and the library the tests use (PLACEMENT_LIB when
set, else the tree's build/, as the package finds it)."""

import glob
import os
import subprocess
import sys

import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "lib", "python", "examples", "*.py")))


def test_there_are_examples():
    assert EXAMPLES, "no lib/python/examples/*.py"


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_example_exits_0(path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (os.path.join(ROOT, "lib", "python"), env.get("PYTHONPATH")) if p)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    run = subprocess.run([sys.executable, path], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, "%s exited %d\n--- stdout\n%s--- stderr\n%s" % (
        os.path.basename(path), run.returncode, run.stdout, run.stderr)
    assert run.stdout.strip(), "%s printed nothing" % os.path.basename(path)
