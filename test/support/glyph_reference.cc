// SPDX-License-Identifier: MIT
#include "test/support/glyph_reference.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>

#include FT_ADVANCES_H
#include FT_MULTIPLE_MASTERS_H

namespace ftpool_test {

ReferenceFace::ReferenceFace(const char *path, FT_Long face_index,
                             FT_UInt pixel_height,
                             const std::vector<FT_Fixed> &coords) {
  if (FT_Init_FreeType(&library_)) {
    library_ = nullptr;
    return;
  }
  FT_Face face;
  if (FT_New_Face(library_, path, face_index, &face))
    return;
  if ((!coords.empty() &&
       FT_Set_Var_Design_Coordinates(face, static_cast<FT_UInt>(coords.size()),
                                     const_cast<FT_Fixed *>(coords.data()))) ||
      FT_Set_Pixel_Sizes(face, 0, pixel_height)) {
    FT_Done_Face(face);
    return;
  }
  face_ = face;
}

ReferenceFace::~ReferenceFace() {
  if (face_)
    FT_Done_Face(face_);
  if (library_)
    FT_Done_FreeType(library_);
}

bool ReferenceFace::Render(FT_UInt index, FT_Int32 flags,
                           ReferenceGlyph *out) const {
  if (!face_ || FT_Load_Glyph(face_, index, flags | FT_LOAD_RENDER))
    return false;
  const FT_GlyphSlot slot = face_->glyph;
  const FT_Bitmap &b = slot->bitmap;
  out->rows = b.rows;
  out->width = b.width;
  out->pitch = b.pitch;
  out->pixel_mode = b.pixel_mode;
  out->num_grays = b.num_grays;
  size_t size = size_t{b.rows} * static_cast<size_t>(std::abs(b.pitch));
  out->bytes.assign(b.buffer ? b.buffer : nullptr,
                    b.buffer ? b.buffer + size : nullptr);
  out->left = slot->bitmap_left;
  out->top = slot->bitmap_top;
  out->advance = slot->advance;
  out->lsb_delta = slot->lsb_delta;
  out->rsb_delta = slot->rsb_delta;
  out->metrics = slot->metrics;
  return true;
}

FT_Fixed ReferenceFace::Advance(FT_UInt index, FT_Int32 flags) const {
  FT_Fixed advance = 0;
  if (!face_ || FT_Get_Advance(face_, index, flags, &advance))
    return 0;
  return advance;
}

namespace {

template <class T>
std::string Differs(const char *what, const T &got, const T &want) {
  return std::string(what) + ": " + std::to_string(got) + ", FreeType's " +
         std::to_string(want);
}

} // namespace

std::string GlyphDifference(const ftpool_glyph *g, const ReferenceGlyph &r) {
  if (!g)
    return "no glyph";
  const FT_Bitmap &b = g->bitmap;
  if (b.rows != r.rows)
    return Differs("rows", b.rows, r.rows);
  if (b.width != r.width)
    return Differs("width", b.width, r.width);
  if (b.pitch != r.pitch)
    return Differs("pitch", b.pitch, r.pitch);
  if (b.pixel_mode != r.pixel_mode)
    return Differs("pixel_mode", int{b.pixel_mode}, int{r.pixel_mode});
  if (b.num_grays != r.num_grays)
    return Differs("num_grays", int{b.num_grays}, int{r.num_grays});
  if ((b.buffer == nullptr) != r.bytes.empty())
    return b.buffer ? "a buffer where FreeType has none"
                    : "no buffer where FreeType has one";
  if (!r.bytes.empty() &&
      std::memcmp(b.buffer, r.bytes.data(), r.bytes.size()) != 0)
    return "the bitmap's bytes differ";
  if (g->left != r.left)
    return Differs("left", g->left, r.left);
  if (g->top != r.top)
    return Differs("top", g->top, r.top);
  if (g->advance.x != r.advance.x || g->advance.y != r.advance.y)
    return Differs("advance.x", g->advance.x, r.advance.x) + "; " +
           Differs("advance.y", g->advance.y, r.advance.y);
  if (g->lsb_delta != r.lsb_delta || g->rsb_delta != r.rsb_delta)
    return Differs("lsb_delta", g->lsb_delta, r.lsb_delta) + "; " +
           Differs("rsb_delta", g->rsb_delta, r.rsb_delta);
  if (std::memcmp(&g->metrics, &r.metrics, sizeof r.metrics) != 0)
    return "the metrics differ";
  return "";
}

namespace {

void Put(std::vector<unsigned char> &b, size_t at, uint32_t v, int bytes) {
  for (int i = 0; i < bytes; i++)
    b[at + i] = static_cast<unsigned char>(v >> (8 * (bytes - 1 - i)));
}

uint32_t Get(const std::vector<unsigned char> &b, size_t at, int bytes) {
  uint32_t v = 0;
  for (int i = 0; i < bytes; i++)
    v = v << 8 | b[at + i];
  return v;
}

} // namespace

std::vector<unsigned char>
WithColourLayers(const std::vector<unsigned char> &ttf, FT_UInt base,
                 FT_UInt layer0, FT_UInt layer1) {
  // COLR v0: a header, one base glyph record, two layer records.
  std::vector<unsigned char> colr(14 + 6 + 2 * 4);
  Put(colr, 2, 1, 2);       // numBaseGlyphRecords
  Put(colr, 4, 14, 4);      // baseGlyphRecordsOffset
  Put(colr, 8, 20, 4);      // layerRecordsOffset
  Put(colr, 12, 2, 2);      // numLayerRecords
  Put(colr, 14, base, 2);   // glyphID, firstLayerIndex 0,
  Put(colr, 18, 2, 2);      // numLayers
  Put(colr, 20, layer0, 2); // palette index 0
  Put(colr, 24, layer1, 2);
  Put(colr, 26, 1, 2); // palette index 1
  // CPAL v0: one palette of two BGRA colours.
  std::vector<unsigned char> cpal(14 + 2 * 4);
  Put(cpal, 2, 2, 2);  // numPaletteEntries
  Put(cpal, 4, 1, 2);  // numPalettes
  Put(cpal, 6, 2, 2);  // numColorRecords
  Put(cpal, 8, 14, 4); // colorRecordsArrayOffset; colorRecordIndices[0] 0
  Put(cpal, 14, 0x0000FFFF, 4); // red, opaque
  Put(cpal, 18, 0xFF000080, 4); // blue, half
  // Two more table records: every table moves 32 bytes on; the new ones go
  // at the end, 4-byte aligned. FreeType checks no checksum.
  const uint32_t tables = Get(ttf, 4, 2);
  const size_t directory = 12 + 16 * size_t{tables};
  std::vector<unsigned char> out(ttf.begin(), ttf.begin() + directory);
  out.resize(directory + 32);
  out.insert(out.end(), ttf.begin() + directory, ttf.end());
  Put(out, 4, tables + 2, 2);
  for (uint32_t t = 0; t < tables; t++)
    Put(out, 12 + 16 * t + 8, Get(out, 12 + 16 * t + 8, 4) + 32, 4);
  const std::pair<const char *, const std::vector<unsigned char> *> added[] = {
      {"COLR", &colr}, {"CPAL", &cpal}};
  for (size_t i = 0; i < 2; i++) {
    out.resize((out.size() + 3) & ~size_t{3});
    const size_t record = directory + 16 * i;
    std::memcpy(&out[record], added[i].first, 4);
    Put(out, record + 8, static_cast<uint32_t>(out.size()), 4);
    Put(out, record + 12, static_cast<uint32_t>(added[i].second->size()), 4);
    out.insert(out.end(), added[i].second->begin(), added[i].second->end());
  }
  return out;
}

} // namespace ftpool_test
