"""The package's version: the C library's (CMakeLists.txt's project(), checked by CTest's
python_version test), read by pyproject.toml through hatchling."""

__version__ = "0.35.0"
