"""The `teml` command of a pip-installed teml (docs/install.md): the console
script calls main(), which replaces the Python process by the C++ executable
installed in the package (teml/bin/teml), so the arguments, stdin, stdout and
the exit status are the executable's own."""
import os
import sys


def executable():
    """The path of the `teml` executable: teml/bin/teml in an installed
    package, build/teml beside CMake's build/python/teml otherwise."""
    here = os.path.dirname(os.path.abspath(__file__))
    installed = os.path.join(here, "bin", "teml")
    if os.path.exists(installed):
        return installed
    return os.path.join(os.path.dirname(os.path.dirname(here)), "teml")


def main():
    exe = executable()
    try:
        os.execv(exe, [exe] + sys.argv[1:])
    except OSError as e:
        sys.stderr.write(f"teml: cannot run {exe}: {e.strerror}\n")
        return 127 if not os.path.exists(exe) else 126


if __name__ == "__main__":
    sys.exit(main())
