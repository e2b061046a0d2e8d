"""`pip install .`, `pip wheel .` and `pip uninstall teml` into fresh virtual
environments (docs/install.md). pip takes the compiled files from the CMake
build tree TEML_CMAKE_BUILD_DIR (default: build/ of this checkout; ctest passes
its own), so no library is compiled here. No network: --no-index throughout.

Debian's python3 may import teml from build/python through a .pth file
(scripts/setup.sh) or PYTHONPATH: PYTHONPATH is cleared, and the checks look
at where `teml` was imported from."""
import os
import pathlib
import subprocess
import sys
import zipfile

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("TEML_CMAKE_BUILD_DIR") or REPO / "build").resolve()
SYSTEM_PYTHON = "/usr/bin/python3"
DEBIAN_WHEELS = pathlib.Path("/usr/share/python-wheels")  # python3-setuptools-whl, python3-wheel-whl
MM = REPO / "examples" / "mm" / "best.teml"
TIMEOUT = 900  # an out-of-date build tree is rebuilt by pip (`cmake --build`)

if not (BUILD / "CMakeCache.txt").is_file():
    pytest.skip(f"no CMake build tree at {BUILD} (TEML_CMAKE_BUILD_DIR)", allow_module_level=True)

TRANSFORM = '''\
from __future__ import annotations
import numpy as np
import teml

@teml.transform
def shifted(x: teml.Var[(N,), "float64"], y: teml.Var[(N,), "float64", "output"]):
    for i in range(N):
        y[i] = 2 * x[i] + 1

print("transform:", shifted(np.arange(5.0)).tolist())
'''


def clean_env():
    env = dict(os.environ)
    for name in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV", "PIP_REQUIRE_VIRTUALENV"):
        env.pop(name, None)
    env.update(TEML_CMAKE_BUILD_DIR=str(BUILD), PYTHONNOUSERSITE="1", PIP_NO_INPUT="1",
               PIP_DISABLE_PIP_VERSION_CHECK="1")
    return env


def run(cmd, cwd, stdin=None, check=True):
    feed = {"input": stdin} if stdin is not None else {"stdin": subprocess.DEVNULL}
    r = subprocess.run([str(c) for c in cmd], cwd=cwd, env=clean_env(), capture_output=True, text=True,
                       timeout=TIMEOUT, **feed)
    if check and r.returncode != 0:
        pytest.fail(f"{' '.join(map(str, cmd))}: exit {r.returncode}\n--- stdout\n{r.stdout}\n--- stderr\n{r.stderr}")
    return r


def make_venv(path):
    run([SYSTEM_PYTHON, "-m", "venv", "--system-site-packages", path], cwd=path.parent)
    return path


def site_packages(venv):
    return venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"


class Venv:
    def __init__(self, path, work):
        self.path, self.work = path, work
        self.bin = path / "bin"

    def teml(self, *args, stdin=None, check=True):
        return run([self.bin / "teml", *args], cwd=self.work, stdin=stdin, check=check)

    def python(self, *args, check=True):
        return run([self.bin / "python", *args], cwd=self.work, check=check)


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("pip")


@pytest.fixture(scope="module")
def installed(work):
    """`pip install --no-build-isolation --no-index .` into a fresh venv."""
    venv = Venv(make_venv(work / "venv"), work)
    run([venv.bin / "pip", "install", "--no-build-isolation", "--no-index", "."], cwd=REPO)
    return venv


@pytest.fixture(scope="module")
def wheel(work):
    """`pip wheel --no-build-isolation --no-deps .` (the wheel's dependency, numpy, is Debian's)."""
    out = work / "wheels"
    run([SYSTEM_PYTHON, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-index", "-w", out, "."],
        cwd=REPO)
    wheels = list(out.glob("teml-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_the_command_is_on_the_venvs_path_and_runs_a_program(installed):
    assert (installed.bin / "teml").is_file()
    r = installed.teml("run", MM, "--set", "N=64", "--random", "1", "--verify")
    assert "C: double[64, 64]" in r.stdout
    assert "(ok)" in r.stdout


def test_the_command_passes_stdin_stdout_and_exit_statuses_through(installed):
    def both(*args, stdin=None):
        return (installed.teml(*args, stdin=stdin, check=False),
                run([BUILD / "teml", *args], cwd=installed.work, stdin=stdin, check=False))

    ours, want = both("emit", "-", "--set", "N=64", "--emit", "loops", stdin=MM.read_text())
    assert ours.returncode == want.returncode == 0 and ours.stdout == want.stdout and "for" in ours.stdout
    ours, want = both("check", "-", "--set", "N=64", stdin="A = tensor([N, N])\nB = nonsense(A)\n")
    assert ours.returncode == want.returncode == 1 and ours.stderr == want.stderr, (ours, want)
    ours, want = both("run", "no-such-program.teml")
    assert ours.returncode == want.returncode == 2 and ours.stderr == want.stderr, (ours, want)


def test_python_imports_the_venvs_copy_not_build_python(installed):
    out = installed.python("-c", "import sys, teml, teml._teml, teml._cli\n"
                                 "print(teml.__file__); print(teml._teml.__file__); print(teml._cli.executable())")
    site = site_packages(installed.path)
    for line in out.stdout.split():
        assert pathlib.Path(line).is_relative_to(site), (line, out.stdout)
    assert pathlib.Path(out.stdout.split()[2]) == site / "teml" / "bin" / "teml"


def test_a_transform_runs_from_the_venv(installed):
    script = installed.work / "transform_check.py"
    script.write_text(TRANSFORM)
    assert "transform: [1.0, 3.0, 5.0, 7.0, 9.0]" in installed.python(script).stdout


def test_the_wheel_holds_the_command_and_the_extension(wheel):
    cp = f"cp{sys.version_info.major}{sys.version_info.minor}"
    assert wheel.name.endswith(f"-{cp}-{cp}-linux_x86_64.whl"), wheel.name  # not pure Python
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        exe = z.getinfo("teml/bin/teml")
        assert (exe.external_attr >> 16) & 0o111, oct(exe.external_attr >> 16)
        entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
        assert "teml = teml._cli:main" in z.read(entry_points).decode()
    assert any(n.startswith("teml/_teml.") and n.endswith(".so") for n in names), names
    assert {"teml/__init__.py", "teml/_cli.py", "teml/libop.py"} <= set(names), names


def test_the_wheel_installs_into_another_venv(work, wheel):
    other = Venv(make_venv(work / "venv2"), work)
    run([other.bin / "pip", "install", "--no-index", wheel], cwd=work)
    r = other.teml("run", MM, "--set", "N=64", "--random", "1", "--verify")
    assert "(ok)" in r.stdout
    out = other.python("-c", "import teml; print(teml.__file__)").stdout.strip()
    assert pathlib.Path(out).is_relative_to(site_packages(other.path)), out


@pytest.mark.skipif(not (list(DEBIAN_WHEELS.glob("setuptools-*.whl")) and list(DEBIAN_WHEELS.glob("wheel-*.whl"))),
                    reason="build isolation offline needs Debian's python3-setuptools-whl and python3-wheel-whl")
def test_pip_wheel_with_build_isolation(work):
    """Plain `pip wheel .` (as `pip install .`): pip installs setuptools and wheel into a
    temporary environment, here from Debian's wheels instead of PyPI."""
    out = work / "isolated"
    run([SYSTEM_PYTHON, "-m", "pip", "wheel", "--no-deps", "--no-index", "--find-links", DEBIAN_WHEELS, "-w", out,
         "."], cwd=REPO)
    assert len(list(out.glob("teml-*.whl"))) == 1


def test_uninstall_removes_the_command_and_the_package(installed):
    site = site_packages(installed.path)
    run([installed.bin / "pip", "uninstall", "-y", "teml"], cwd=installed.work)
    assert not (installed.bin / "teml").exists()
    assert not (site / "teml").exists()
    assert not list(site.glob("teml-*.dist-info"))
    # Without the venv's copy, `import teml` fails or finds the system's (build/python through teml.pth).
    r = installed.python("-c", "import teml; print(teml.__file__)", check=False)
    assert r.returncode != 0 or not pathlib.Path(r.stdout.strip()).is_relative_to(site)
