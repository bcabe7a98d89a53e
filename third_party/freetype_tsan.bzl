# SPDX-License-Identifier: MIT
"""This workspace's FreeType: Debian's, or under --config=tsan an instrumented build.

Debian's libfreetype is not built with ThreadSanitizer, so TSan cannot see
FreeType's own loads and stores. scripts/freetype_tsan.sh builds Debian's
source of the same version with -fsanitize=thread into
build/freetype-tsan/install. freetype_repositories() defines, for this
workspace only (a workspace that uses ftpool gets deps.bzl's
@system_freetype):

- @debian_freetype: Debian's FreeType (third_party/freetype.BUILD);
- @freetype_tsan: the instrumented build, or an error naming the script;
- @system_freetype: the first under every build but --config=tsan, which
  selects the second (//third_party:tsan).
"""

def _freetype_tsan_impl(repository_ctx):
    # A symlink to the install folder, not a copy, and a BUILD file that globs
    # through it: Bazel then notices when the build appears, changes or goes,
    # where a rule that looked at the folder would only run again on
    # `bazel sync`.
    root = repository_ctx.path(Label("@//:WORKSPACE")).dirname
    repository_ctx.symlink(
        "%s/build/freetype-tsan/install" % root,
        "install",
    )
    repository_ctx.file("WORKSPACE", "")
    repository_ctx.file("BUILD", "\n".join([
        'load("@//third_party:freetype_tsan.bzl", "freetype_tsan_targets")',
        "",
        "freetype_tsan_targets()",
        "",
    ]))

_freetype_tsan = repository_rule(implementation = _freetype_tsan_impl)

def _freetype_choice_impl(repository_ctx):
    repository_ctx.file("WORKSPACE", "")
    repository_ctx.file("BUILD", """alias(
    name = "freetype",
    actual = select({
        "@//third_party:tsan": "@freetype_tsan//:freetype",
        "//conditions:default": "@debian_freetype//:freetype",
    }),
    visibility = ["//visibility:public"],
)
""")

_freetype_choice = repository_rule(implementation = _freetype_choice_impl)

def freetype_repositories():
    """Defines @system_freetype and the two it chooses from; before ftpool_deps()."""
    native.new_local_repository(
        name = "debian_freetype",
        build_file = "//third_party:freetype.BUILD",
        path = "/usr",
    )
    _freetype_tsan(name = "freetype_tsan")
    _freetype_choice(name = "system_freetype")

def _missing_impl(ctx):
    fail("""
--config=tsan links the tests against FreeType built with ThreadSanitizer,
and build/freetype-tsan/install holds no complete build of it. Run

    scripts/freetype_tsan.sh

(about 2 minutes; scripts/test.sh runs it before the tsan build).""")

_missing = rule(implementation = _missing_impl)

def freetype_tsan_targets():
    """@freetype_tsan's BUILD file: the library, or an error naming the script."""

    # The script writes COMPLETE last. native.cc_library: WORKSPACE loads this
    # file before @rules_cc exists (whose cc_library forwards to it anyway).
    if native.glob(["install/COMPLETE"], allow_empty = True):
        native.cc_library(
            name = "freetype",
            # The soname: test binaries find it through Bazel's solib folder
            # and their runpath, never in /usr/lib.
            srcs = ["install/lib/libfreetype.so.6"],
            hdrs = native.glob(["install/include/freetype2/**/*.h"]),
            includes = ["install/include/freetype2"],
            visibility = ["//visibility:public"],
        )
    else:
        _missing(
            name = "freetype",
            visibility = ["//visibility:public"],
        )
