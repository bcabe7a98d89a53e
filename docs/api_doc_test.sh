#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs in Bazel's runfiles tree, where the files keep their workspace paths.
exec /usr/bin/python3 scripts/api_doc.py include/ftpool.h --check docs/api.md
