"""The CMake step of `pip install .`: builds the `neurarch._native` extension with cmake/Python.cmake.

Metadata lives in pyproject.toml. The build tree is build-python/cmake (kept, so a second install
only relinks what changed). NEURARCH_CMAKE_BUILD_DIR names an existing, configured tree to build
in instead (scripts/test.sh passes build/, so CI compiles the core once): the tree is reconfigured
with -DNEURARCH_PYTHON=ON for this interpreter and nothing else of it is changed.
"""
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

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


setup(
    ext_modules=[CMakeExtension("neurarch._native")],
    cmdclass={"build_ext": CMakeBuild},
    # setuptools' own build folder would otherwise be build/, the CMake tree of scripts/setup.sh.
    options={"build": {"build_base": "build-python/setuptools"}},
)
