"""Builds teml with CMake for `pip install .` and `pip wheel .` (docs/install.md).

The package is python/teml/*.py plus two files CMake builds: the extension
(teml/_teml<EXT_SUFFIX>) and the command (teml/bin/teml, which the `teml`
console script execs). Only the targets `teml` and `_teml` are built, in
Release, without the tests (TEML_BUILD_TESTS=OFF), for the Python running
pip. TEML_CMAKE_BUILD_DIR names an existing CMake build tree to take them
from instead (`cmake --build` there: nothing to do when it is up to date).
TEML_CMAKE_ARGS adds arguments to a fresh configure.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build import build
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
# setuptools' own files go below CMake's build/ of the source tree, not beside it.
BUILD_BASE = os.path.join("build", "pip")


def cmake_project_version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        return re.search(r"project\(teml\s+VERSION\s+([0-9][0-9.]*)", f.read()).group(1)


class Build(build):
    def run(self):
        # build_lib persists between runs: a file since removed from python/teml must not reach the wheel.
        shutil.rmtree(os.path.join(self.build_lib, "teml"), ignore_errors=True)
        super().run()


class CMakeBuild(build_ext):
    """build_ext for the one extension: CMake builds it and the command."""

    def build_extension(self, ext):
        build_dir = self.cmake_build_dir()
        jobs = [] if os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") else ["-j", str(os.cpu_count() or 1)]
        self.spawn_checked(["cmake", "--build", build_dir, "--target", "teml", "_teml"] + jobs)

        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        built_ext = os.path.join(build_dir, "python", "teml", "_teml" + suffix)
        built_exe = os.path.join(build_dir, "teml")
        if not os.path.isfile(built_ext):
            found = sorted(f for f in os.listdir(os.path.dirname(built_ext)) if f.startswith("_teml"))
            raise SystemExit(f"setup.py: {built_ext} is missing: the CMake build in {build_dir} is for another "
                             f"Python (it has {found or 'no _teml'}); pip runs {sys.executable}")
        dest = self.get_ext_fullpath(ext.name)
        bin_dir = os.path.join(os.path.dirname(dest), "bin")
        self.mkpath(bin_dir)
        self.copy_file(built_ext, dest)
        self.copy_file(built_exe, os.path.join(bin_dir, "teml"))  # keeps its mode: executable

    def get_outputs(self):
        outputs = super().get_outputs()
        return outputs + [os.path.join(os.path.dirname(outputs[0]), "bin", "teml")] if outputs else outputs

    def cmake_build_dir(self):
        given = os.environ.get("TEML_CMAKE_BUILD_DIR")
        if given:
            build_dir = os.path.abspath(given)
            if not os.path.isfile(os.path.join(build_dir, "CMakeCache.txt")):
                raise SystemExit(f"setup.py: TEML_CMAKE_BUILD_DIR={given} is no configured CMake build tree "
                                 "(no CMakeCache.txt); configure it first, e.g. cmake -S . -B build -G Ninja")
            return build_dir
        if shutil.which("cmake") is None:
            raise SystemExit("setup.py: cmake is not on PATH (Debian: apt-get install cmake)")
        build_dir = os.path.join(os.path.abspath(self.build_temp), "cmake")
        configure = ["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release", "-DTEML_BUILD_TESTS=OFF",
                     f"-DPython_EXECUTABLE={sys.executable}"]
        if not os.path.isfile(os.path.join(build_dir, "CMakeCache.txt")) and shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        configure += shlex.split(os.environ.get("TEML_CMAKE_ARGS", ""))
        self.spawn_checked(configure)
        return build_dir

    def spawn_checked(self, cmd):
        print(" ".join(shlex.quote(c) for c in cmd), flush=True)
        if subprocess.call(cmd) != 0:
            raise SystemExit(f"setup.py: failed: {' '.join(cmd)}")


os.makedirs(os.path.join(ROOT, BUILD_BASE), exist_ok=True)
setup(
    version=cmake_project_version(),
    packages=["teml"],
    package_dir={"teml": "python/teml"},
    ext_modules=[Extension("teml._teml", sources=[])],
    cmdclass={"build": Build, "build_ext": CMakeBuild},
    zip_safe=False,
    options={"build": {"build_base": BUILD_BASE}, "egg_info": {"egg_base": BUILD_BASE}},
)
