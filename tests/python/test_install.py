"""The package as pip installs it: the in-tree build backend
(lib/python/_build_backend.py) and the version check at import. The install
itself, into a fresh virtual environment, is `make check-python-install`."""

import base64
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
PY = os.path.join(ROOT, "lib", "python")


def backend():
    spec = importlib.util.spec_from_file_location("_build_backend", os.path.join(PY, "_build_backend.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_package_version_is_the_release(root):
    import placement as pl
    with open(os.path.join(root, "include", "placement", "version.h")) as f:
        head = f.read()
    want = ".".join(head.split("#define PL_VERSION_%s " % p)[1].split()[0] for p in ("MAJOR", "MINOR", "PATCH"))
    assert backend()._version() == pl.__version__ == pl.library_version == want


def test_the_wheel_carries_the_package_and_the_library(tmp_path, monkeypatch):
    lib = os.environ.get("PLACEMENT_LIB") or os.path.join(ROOT, "build", "libplacement.so.0")
    monkeypatch.setenv("PLACEMENT_LIB", lib)
    b = backend()
    assert b.get_requires_for_build_wheel() == []
    name = b.build_wheel(str(tmp_path))
    assert name.startswith("placement-%s-py3-none-linux" % b._version()) and name.endswith(".whl")
    with zipfile.ZipFile(tmp_path / name) as z:
        names = z.namelist()
        py = sorted(f for f in os.listdir(os.path.join(PY, "placement")) if f.endswith(".py"))
        assert sorted(n[len("placement/"):] for n in names if n.startswith("placement/") and n.endswith(".py")) == py
        assert "placement/libplacement.so.0" in names
        with open(os.path.realpath(lib), "rb") as f:
            assert z.read("placement/libplacement.so.0") == f.read()
        di = "placement-%s.dist-info/" % b._version()
        record = z.read(di + "RECORD").decode().split()
        assert len(record) == len(names)
        for line in record:
            path, digest, size = line.split(",")
            if path == di + "RECORD":
                continue
            data = z.read(path)
            assert digest == "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert int(size) == len(data)
        assert "Version: %s" % b._version() in z.read(di + "METADATA").decode()
    meta = b.prepare_metadata_for_build_wheel(str(tmp_path / "meta"))
    assert os.path.exists(tmp_path / "meta" / meta / "METADATA")


def test_the_backend_refuses_a_missing_library(tmp_path, monkeypatch):
    monkeypatch.setenv("PLACEMENT_LIB", str(tmp_path / "nowhere.so"))
    with pytest.raises(RuntimeError, match="no shared library at .*nowhere.so: run `make`"):
        backend().build_wheel(str(tmp_path))
    assert os.listdir(tmp_path) == []


def test_a_package_of_another_release_refuses_the_library(tmp_path):
    pkg = tmp_path / "placement"
    shutil.copytree(os.path.join(PY, "placement"), pkg, ignore=shutil.ignore_patterns("__pycache__"))
    (pkg / "_version.py").write_text('__version__ = "0.2.0"\n')
    env = dict(os.environ, PLACEMENT_LIB=os.environ.get("PLACEMENT_LIB") or
               os.path.join(ROOT, "build", "libplacement.so.0"))
    r = subprocess.run([sys.executable, "-B", "-c", "import placement"], cwd=str(tmp_path), env=env,
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert "ImportError: placement 0.2.0 needs libplacement 0.2.x, and " in r.stderr
    assert "is version 0.1" in r.stderr
    # a patch release of the library is accepted
    (pkg / "_version.py").write_text('__version__ = "0.1.7"\n')
    r = subprocess.run([sys.executable, "-B", "-c", "import placement; print(placement.library_version)"],
                       cwd=str(tmp_path), env=env, capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("0.1."), r.stderr
