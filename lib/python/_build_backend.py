"""The PEP 517 build backend of the placement package: a wheel of
placement/*.py and the shared library, written with the standard library
alone (no setuptools, no wheel package, no network).

The library is PLACEMENT_LIB when set, else the source tree's
build/libplacement.so.MAJOR; the build fails, naming the file, when it is
missing or its pl_version() is not the package's version. The wheel is
tagged for this platform (it holds a compiled library): py3-none-PLATFORM.
Nothing is written outside the directory pip hands the backend.
"""

import base64
import ctypes
import hashlib
import os
import re
import sysconfig
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.join(HERE, "placement")
NAME = "placement"


def _version():
    with open(os.path.join(PKG, "_version.py"), encoding="ascii") as f:
        return re.search(r'^__version__ = "([0-9]+\.[0-9]+\.[0-9]+)"$', f.read(), re.M).group(1)


def _soname():
    with open(os.path.join(PKG, "_ffi.py"), encoding="ascii") as f:
        return "libplacement.so.%s" % re.search(r"^SONAME_MAJOR = ([0-9]+)$", f.read(), re.M).group(1)


def _library():
    path = os.environ.get("PLACEMENT_LIB") or os.path.join(HERE, "..", "..", "build", _soname())
    path = os.path.realpath(path)
    if not os.path.isfile(path):
        raise RuntimeError("placement: no shared library at %s: run `make` in the source tree first, "
                           "or set PLACEMENT_LIB to the library's path" % path)
    lib = ctypes.CDLL(path)
    lib.pl_version.restype = ctypes.c_char_p
    have, want = lib.pl_version().decode("ascii"), _version()
    if have != want:
        raise RuntimeError("placement: %s is libplacement %s, and the package is %s: build the library "
                           "of the same release" % (path, have, want))
    return path


def _tag():
    return "py3-none-" + re.sub(r"[^A-Za-z0-9]", "_", sysconfig.get_platform())


def _dist_info():
    return "%s-%s.dist-info" % (NAME, _version())


def _metadata():
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
            "Summary: Python binding of libplacement: deterministic shard placement and balancing\n"
            "Requires-Python: >=3.9\n" % (NAME, _version())).encode("ascii")


def _wheel_file():
    return ("Wheel-Version: 1.0\nGenerator: placement _build_backend\nRoot-Is-Purelib: false\nTag: %s\n"
            % _tag()).encode("ascii")


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    d = os.path.join(metadata_directory, _dist_info())
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "METADATA"), "wb") as f:
        f.write(_metadata())
    with open(os.path.join(d, "WHEEL"), "wb") as f:
        f.write(_wheel_file())
    return _dist_info()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    files = []
    for name in sorted(os.listdir(PKG)):
        if name.endswith(".py"):
            with open(os.path.join(PKG, name), "rb") as f:
                files.append(("placement/" + name, f.read(), 0o644))
    lib = _library()
    with open(lib, "rb") as f:
        files.append(("placement/" + _soname(), f.read(), 0o755))
    di = _dist_info()
    files.append((di + "/METADATA", _metadata(), 0o644))
    files.append((di + "/WHEEL", _wheel_file(), 0o644))
    record = []
    for path, data, _ in files:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
        record.append("%s,sha256=%s,%d" % (path, digest, len(data)))
    record.append(di + "/RECORD,,")
    files.append((di + "/RECORD", ("\n".join(record) + "\n").encode("ascii"), 0o644))
    name = "%s-%s-%s.whl" % (NAME, _version(), _tag())
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for path, data, mode in files:
            info = zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return name
