"""Repositories that @ftpool//:ftpool needs; call ftpool_deps() from a WORKSPACE."""

def ftpool_deps():
    """Defines @system_freetype (the system's FreeType) unless already defined."""
    if "system_freetype" not in native.existing_rules():
        native.new_local_repository(
            name = "system_freetype",
            build_file = "@ftpool//third_party:freetype.BUILD",
            path = "/usr",
        )
