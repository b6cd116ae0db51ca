"""Run by `make check-python-install` with the Python of a fresh virtual
environment the package was pip-installed into, from outside the source
tree and with PLACEMENT_LIB unset: the installed package loads the library
the wheel carried, of its own version, and plans; a package whose version
is not the library's fails its import with an ImportError naming both.

Usage: VENV_PYTHON install_check.py SOURCE_ROOT SCRATCH_DIR
"""

import os
import shutil
import subprocess
import sys

root, scratch = sys.argv[1], sys.argv[2]
assert "PLACEMENT_LIB" not in os.environ
assert not any(os.path.abspath(p).startswith(os.path.join(root, "lib")) for p in sys.path if p), sys.path

import placement  # noqa: E402

here = os.path.dirname(placement.__file__)
assert here.startswith(sys.prefix), (here, sys.prefix)
assert placement.library_path == os.path.join(here, "libplacement.so.0"), placement.library_path
with open(os.path.join(root, "include", "placement", "version.h")) as f:
    head = f.read()
want = ".".join(head.split("#define PL_VERSION_%s " % p)[1].split()[0] for p in ("MAJOR", "MINOR", "PATCH"))
assert placement.__version__ == placement.library_version == want, (placement.__version__, want)

c = placement.load(os.path.join(root, "tests", "placement", "golden", "felix.txt"))
plan = c.plan()
assert plan.status == "balanced" and len(plan.actions) == 6, plan
assert placement.apply(plan.actions, c.shards) != c.shards

# the same package at another version refuses the library at import
pkg = os.path.join(scratch, "other", "placement")
shutil.copytree(here, pkg, ignore=shutil.ignore_patterns("__pycache__"))
with open(os.path.join(pkg, "_version.py"), "w") as f:
    f.write('__version__ = "9.9.0"\n')
r = subprocess.run([sys.executable, "-B", "-c", "import placement"], cwd=os.path.dirname(pkg), capture_output=True,
                   text=True)
assert r.returncode == 1, r
assert "ImportError: placement 9.9.0 needs libplacement 9.9.x" in r.stderr and want in r.stderr, r.stderr
print("python install: placement %s from %s, library %s; plan %s; a 9.9.0 package is refused" % (
    placement.__version__, here, placement.library_path, plan))
