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
  // Red, opaque; blue, half transparent.
  return WithColourTables(ttf, base, {{layer0, 0}, {layer1, 1}},
                          {{0x0000FFFF, 0xFF000080}});
}

std::vector<unsigned char>
WithColourTables(const std::vector<unsigned char> &ttf, FT_UInt base,
                 const std::vector<ColourLayer> &layers,
                 const std::vector<std::vector<uint32_t>> &palettes) {
  // COLR v0: a header, one base glyph record, the layer records.
  std::vector<unsigned char> colr(14 + 6 + 4 * layers.size());
  Put(colr, 2, 1, 2);  // numBaseGlyphRecords
  Put(colr, 4, 14, 4); // baseGlyphRecordsOffset
  Put(colr, 8, 20, 4); // layerRecordsOffset
  Put(colr, 12, static_cast<uint32_t>(layers.size()), 2); // numLayerRecords
  Put(colr, 14, base, 2); // glyphID, firstLayerIndex 0,
  Put(colr, 18, static_cast<uint32_t>(layers.size()), 2); // numLayers
  for (size_t i = 0; i < layers.size(); i++) {
    Put(colr, 20 + 4 * i, layers[i].glyph, 2);
    Put(colr, 22 + 4 * i, layers[i].entry, 2);
  }
  // CPAL v0: each palette's colours in turn.
  const uint32_t entries = static_cast<uint32_t>(palettes[0].size());
  const uint32_t count = static_cast<uint32_t>(palettes.size());
  const size_t records = 12 + 2 * size_t{count};
  std::vector<unsigned char> cpal(records + 4 * size_t{entries} * count);
  Put(cpal, 2, entries, 2);                        // numPaletteEntries
  Put(cpal, 4, count, 2);                          // numPalettes
  Put(cpal, 6, entries * count, 2);                // numColorRecords
  Put(cpal, 8, static_cast<uint32_t>(records), 4); // colorRecordsArrayOffset
  for (uint32_t p = 0; p < count; p++) {
    Put(cpal, 12 + 2 * p, p * entries, 2); // colorRecordIndices[p]
    for (uint32_t e = 0; e < entries; e++)
      Put(cpal, records + 4 * (p * entries + e), palettes[p][e], 4);
  }
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
