/* SPDX-License-Identifier: MIT */
// What single-threaded FreeType renders for a glyph, on a private library
// and face, to compare the glyph cache's glyphs with, byte for byte.
#ifndef FTPOOL_TEST_GLYPH_REFERENCE_H
#define FTPOOL_TEST_GLYPH_REFERENCE_H

#include <cstdint>
#include <string>
#include <vector>

#include "ftpool.h"

namespace ftpool_test {

// A rendered glyph, copied out of a glyph slot.
struct ReferenceGlyph {
  unsigned rows = 0, width = 0;
  int pitch = 0;
  unsigned char pixel_mode = 0;
  unsigned short num_grays = 0;
  std::vector<unsigned char> bytes; // rows x |pitch|
  FT_Int left = 0, top = 0;
  FT_Vector advance{};
  FT_Pos lsb_delta = 0, rsb_delta = 0;
  FT_Glyph_Metrics metrics{};
};

// A private FT_Library and face: the font at path, face face_index, design
// coordinates coords (none if empty), pixel_height px. ok() is false if
// FreeType refused any of it.
class ReferenceFace {
public:
  ReferenceFace(const char *path, FT_Long face_index, FT_UInt pixel_height,
                const std::vector<FT_Fixed> &coords = {});
  ~ReferenceFace();
  ReferenceFace(const ReferenceFace &) = delete;
  ReferenceFace &operator=(const ReferenceFace &) = delete;

  bool ok() const { return face_ != nullptr; }
  FT_Face face() const { return face_; }
  // FT_Load_Glyph(index, flags | FT_LOAD_RENDER), copied; false on an error.
  bool Render(FT_UInt index, FT_Int32 flags, ReferenceGlyph *out) const;
  // FT_Get_Advance(index, flags); 0 on an error.
  FT_Fixed Advance(FT_UInt index, FT_Int32 flags) const;
  FT_UInt Index(FT_ULong charcode) const {
    return FT_Get_Char_Index(face_, charcode);
  }

private:
  FT_Library library_ = nullptr;
  FT_Face face_ = nullptr;
};

// Empty if the cache's glyph equals the reference in every field the cache
// keeps (the bitmap's shape, mode and bytes, its placement, the advance,
// the deltas and the metrics); else what differs first. Reads every byte of
// the glyph's bitmap.
std::string GlyphDifference(const ftpool_glyph *glyph,
                            const ReferenceGlyph &reference);

// A copy of the TrueType font `ttf` with COLR (version 0) and CPAL tables
// added: glyph `base` in colour, drawn as glyph layer0 in opaque red under
// glyph layer1 in half-transparent blue. FreeType renders it as a BGRA
// bitmap with FT_LOAD_COLOR. For the glyph cache's colour case: the fonts
// scripts/setup.sh installs have no colour glyph.
std::vector<unsigned char>
WithColourLayers(const std::vector<unsigned char> &ttf, FT_UInt base,
                 FT_UInt layer0, FT_UInt layer1);

// A layer of a colour glyph: a glyph drawn in a palette entry, or with
// kForeground in the foreground colour (FT_Palette_Set_Foreground_Color).
struct ColourLayer {
  FT_UInt glyph;
  FT_UShort entry;
};
constexpr FT_UShort kForeground = 0xFFFF;

// The same with glyph `base` drawn as `layers`, bottom first, and a palette
// for each of `palettes`, every one of the same entries: colours as CPAL
// writes them, 0xBBGGRRAA.
std::vector<unsigned char>
WithColourTables(const std::vector<unsigned char> &ttf, FT_UInt base,
                 const std::vector<ColourLayer> &layers,
                 const std::vector<std::vector<uint32_t>> &palettes);

} // namespace ftpool_test

#endif
