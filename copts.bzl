# SPDX-License-Identifier: MIT
"""Compiler flags for the library's own C sources."""

FTPOOL_COPTS = [
    "-std=c11",
    "-D_POSIX_C_SOURCE=200809L",
    "-Wall",
    "-Wextra",
    "-Werror",
]
