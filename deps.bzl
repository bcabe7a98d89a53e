# SPDX-License-Identifier: MIT
"""Repositories that @ftpool//:ftpool needs; call ftpool_deps() from a WORKSPACE."""

def _ftpool_third_party_impl(repository_ctx):
    # A local_repository needs a path, and a macro cannot find where @ftpool
    # lies on disk: only a repository rule can resolve a label to a path.
    third_party = repository_ctx.path(Label("//third_party:BUILD")).dirname
    for entry in third_party.get_child(repository_ctx.attr.directory).readdir():
        repository_ctx.symlink(entry, entry.basename)

_ftpool_third_party = repository_rule(
    implementation = _ftpool_third_party_impl,
    attrs = {"directory": attr.string(mandatory = True)},
    doc = "A repository made of a directory under ftpool's third_party/.",
)

def ftpool_deps():
    """Defines what building and testing @ftpool//:ftpool offline needs.

    Bazel 4 would download rules_cc, rules_java, platforms and (for
    `bazel test`) remote_coverage_tools; these point at Debian's copies or
    at ftpool's stand-ins instead. @system_freetype is the system's
    FreeType. Each is defined only if the workspace has not defined it
    already, so a consumer's own definition wins: call ftpool_deps() after
    them.
    """
    existing = native.existing_rules()
    if "system_freetype" not in existing:
        native.new_local_repository(
            name = "system_freetype",
            build_file = "@ftpool//third_party:freetype.BUILD",
            path = "/usr",
        )
    if "rules_cc" not in existing:
        # Debian's bazel-rules-cc needs a newer Bazel.
        _ftpool_third_party(
            name = "rules_cc",
            directory = "rules_cc",
        )
    if "remote_coverage_tools" not in existing:
        _ftpool_third_party(
            name = "remote_coverage_tools",
            directory = "remote_coverage_tools",
        )
    if "rules_java" not in existing:
        native.local_repository(
            name = "rules_java",
            path = "/usr/share/bazel/rules/java",
        )
    if "platforms" not in existing:
        native.local_repository(
            name = "platforms",
            path = "/usr/share/bazel/tools/platforms",
        )
