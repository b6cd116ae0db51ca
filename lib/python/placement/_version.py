"""The package's version: the libplacement release it was made with
(include/placement/version.h; tests/python/test_install.py checks the two
agree). At import the loaded library's pl_version() must have the same
MAJOR.MINOR: the structs mirrored in _ffi.py are that release's."""

__version__ = "0.1.0"
