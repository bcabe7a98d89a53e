# SPDX-License-Identifier: MIT
"""Builds the ftpool_text extension: ftpool_text.c, render.c and the
library's own sources, compiled into one module, so that nothing has to be
installed first and ftpool's symbols stay private to the module.

Out of tree, as scripts/python_check.sh does (setuptools would otherwise
write build/ here):

    python3 setup.py build_ext --build-lib DIR --build-temp DIR/temp
"""
import glob
import os
import re
import shlex
import subprocess

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def library_copts():
    """The library's compiler flags, read from copts.bzl as CMakeLists.txt
    does, so that the builds cannot drift."""
    with open(os.path.join(ROOT, "copts.bzl")) as f:
        return re.findall(r'^ +"(-[^"]*)",', f.read(), re.MULTILINE)


def library_version():
    """FTPOOL_VERSION_MAJOR.MINOR.PATCH from ftpool.h, the one place it is
    written."""
    pattern = r"^#define FTPOOL_VERSION_(MAJOR|MINOR|PATCH) ([0-9]+)$"
    with open(os.path.join(ROOT, "include", "ftpool.h")) as f:
        parts = dict(re.findall(pattern, f.read(), re.MULTILINE))
    return "%s.%s.%s" % (parts["MAJOR"], parts["MINOR"], parts["PATCH"])


def pkg_config(*args):
    return shlex.split(
        subprocess.check_output(["pkg-config", *args, "freetype2"], text=True)
    )


# Absolute paths: distutils places an object at build_temp/<source path>,
# and a relative "../../lib/x.c" would land outside build_temp.
sources = [os.path.join(HERE, name) for name in ("ftpool_text.c", "render.c")]
sources += sorted(glob.glob(os.path.join(ROOT, "lib", "*.c")))

setup(
    name="ftpool_text",
    version=library_version(),
    description="Text rendering through ftpool from many Python threads",
    python_requires=">=3.10",
    ext_modules=[
        Extension(
            "ftpool_text",
            sources=sources,
            include_dirs=[os.path.join(ROOT, "include")]
            + [flag[2:] for flag in pkg_config("--cflags-only-I")],
            extra_compile_args=library_copts(),
            extra_link_args=pkg_config("--libs") + ["-pthread"],
        )
    ],
)
