// SPDX-License-Identifier: MIT
// What the HarfBuzz tests compare: a shaped text's glyphs, each with its
// position and its extents, as a font's functions give them.
#ifndef FTPOOL_EXAMPLES_HARFBUZZ_SHAPED_RUN_H
#define FTPOOL_EXAMPLES_HARFBUZZ_SHAPED_RUN_H

#include <ostream>
#include <tuple>
#include <vector>

#include <hb.h>

namespace ftpool_test {

struct ShapedGlyph {
  unsigned id, cluster;
  int x_advance, y_advance, x_offset, y_offset;
  // hb-ft takes extents from FT_Load_Glyph, so they make FreeType work on
  // the face's glyph slot, which shaping alone barely touches.
  int x_bearing, y_bearing, width, height;

  bool operator==(const ShapedGlyph &o) const {
    return std::tie(id, cluster, x_advance, y_advance, x_offset, y_offset,
                    x_bearing, y_bearing, width, height) ==
           std::tie(o.id, o.cluster, o.x_advance, o.y_advance, o.x_offset,
                    o.y_offset, o.x_bearing, o.y_bearing, o.width, o.height);
  }
};

inline std::ostream &operator<<(std::ostream &out, const ShapedGlyph &g) {
  return out << "gid" << g.id << "=" << g.cluster << "+" << g.x_advance << ","
             << g.y_advance << "@" << g.x_offset << "," << g.y_offset << "["
             << g.x_bearing << "," << g.y_bearing << " " << g.width << "x"
             << g.height << "]";
}

using ShapedRun = std::vector<ShapedGlyph>;

// Shapes text with font and measures each glyph.
inline ShapedRun ShapeText(hb_font_t *font, const char *text) {
  hb_buffer_t *buffer = hb_buffer_create();
  hb_buffer_add_utf8(buffer, text, -1, 0, -1);
  hb_buffer_guess_segment_properties(buffer);
  hb_shape(font, buffer, nullptr, 0);
  unsigned count;
  const hb_glyph_info_t *info = hb_buffer_get_glyph_infos(buffer, &count);
  const hb_glyph_position_t *pos =
      hb_buffer_get_glyph_positions(buffer, nullptr);
  ShapedRun run;
  for (unsigned i = 0; i < count; i++) {
    hb_glyph_extents_t e{};
    hb_font_get_glyph_extents(font, info[i].codepoint, &e);
    run.push_back({info[i].codepoint, info[i].cluster, pos[i].x_advance,
                   pos[i].y_advance, pos[i].x_offset, pos[i].y_offset,
                   e.x_bearing, e.y_bearing, e.width, e.height});
  }
  hb_buffer_destroy(buffer);
  return run;
}

} // namespace ftpool_test

#endif
