# SPDX-License-Identifier: MIT
"""The library's cc_library, for its release build and its test variants."""

load("@rules_cc//cc:defs.bzl", "cc_library")
load("//:copts.bzl", "FTPOOL_COPTS")

def ftpool_library(name, local_defines = [], **kwargs):
    """lib/ and ftpool.h as one library; variants differ in local_defines."""
    cc_library(
        name = name,
        srcs = native.glob([
            "lib/*.c",
            "lib/*.h",
        ]),
        hdrs = ["include/ftpool.h"],
        copts = FTPOOL_COPTS,
        linkopts = ["-pthread"],
        local_defines = local_defines,
        strip_include_prefix = "include",
        deps = ["@system_freetype//:freetype"],
        **kwargs
    )
