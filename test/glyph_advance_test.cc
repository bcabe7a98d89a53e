// SPDX-License-Identifier: MIT
// A cached advance is a function of its key alone, on both backends: for
// every face and named instance of the installed variable fonts (and
// design coordinates on each file's face 0), at several sizes, in every
// load mode, ftpool_font_advance gives the same advance on a face that had
// loaded nothing before, on one that had loaded another glyph, and on one
// that had loaded the glyph itself; and that advance is the one
// include/ftpool.h names: FT_Get_Advance right after FT_Load_Glyph of the
// glyph with the same flags, on a private face. FreeType 2.12 gives a
// variable font's instance another in some modes until the face has loaded
// a glyph (it reads HVAR at the first load), so the face that missed first
// would decide what every thread gets.
#include <algorithm>
#include <filesystem>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ftpool.h"
#include "test/support/fonts.h"
#include "test/support/glyph_pool.h"
#include "test/support/glyph_reference.h"
#include "test/support/pool_test_util.h"

#include FT_ADVANCES_H
#include FT_MULTIPLE_MASTERS_H

namespace ftpool_test {
namespace {

// kVariable's italic, from the same package.
const char kVariableItalic[] =
    "/usr/share/fonts/truetype/inter-vf/Inter-italic.var.ttf";

// 'A' is the issue's: Inter's instance 1 at 37 px gave 1,507,328 with
// FT_LOAD_TARGET_LIGHT on a fresh face, 1,494,859 after a load.
const char kText[] = "AHgW.";
const FT_UInt kSizes[] = {11, 24, 37};

struct Mode {
  FT_Int32 flags;
  const char *name;
};
const Mode kModes[] = {
    {FT_LOAD_DEFAULT, "DEFAULT"},
    {FT_LOAD_TARGET_LIGHT, "TARGET_LIGHT"},
    {FT_LOAD_TARGET_MONO, "TARGET_MONO"},
    {FT_LOAD_NO_HINTING, "NO_HINTING"},
    {FT_LOAD_NO_SCALE, "NO_SCALE"},
    {FT_LOAD_VERTICAL_LAYOUT, "VERTICAL_LAYOUT"},
};
constexpr size_t kNumModes = sizeof kModes / sizeof kModes[0];

// A face of a file: its index (with the named instance in bits 16-30) and
// design coordinates, if any.
struct Case {
  std::string path;
  FT_Long face_index;
  std::vector<FT_Fixed> coords;

  std::string Name() const {
    std::ostringstream s;
    s << std::filesystem::path(path).filename().string() << " face 0x"
      << std::hex << face_index;
    for (FT_Fixed c : coords)
      s << " coord " << std::dec << c / 65536.0;
    return s.str();
  }
};

// The variable fonts beside kVariable, each face index and named instance,
// and each axis's midpoint on face 0; empty if FreeType cannot open one.
std::vector<Case> VariableCases() {
  std::vector<std::string> paths;
  for (const auto &entry : std::filesystem::directory_iterator(
           std::filesystem::path(kVariable).parent_path()))
    if (entry.path().extension() == ".ttf")
      paths.push_back(entry.path().string());
  std::sort(paths.begin(), paths.end());
  std::vector<Case> cases;
  for (const std::string &path : paths) {
    ReferenceFace first(path.c_str(), 0, 24);
    if (!first.ok() || !FT_HAS_MULTIPLE_MASTERS(first.face()))
      return {};
    const FT_Face face = first.face();
    for (FT_Long faces = 0; faces < face->num_faces; faces++)
      for (FT_Long named = 0; named <= face->style_flags >> 16; named++)
        cases.push_back({path, named << 16 | faces, {}});
    FT_MM_Var *mm = nullptr;
    if (FT_Get_MM_Var(face, &mm))
      return {};
    Case mid{path, 0, {}};
    for (FT_UInt a = 0; a < mm->num_axis; a++)
      mid.coords.push_back((mm->axis[a].minimum + mm->axis[a].maximum) / 2);
    FT_Done_MM_Var(face->glyph->library, mm);
    cases.push_back(mid);
  }
  return cases;
}

// What a face had loaded before ftpool_font_advance missed.
enum Before { kNothing, kAnotherGlyph, kTheGlyph, kNumBefore };
const char *const kBeforeNames[] = {"nothing loaded before",
                                    "another glyph loaded before",
                                    "the glyph loaded before"};

// An advance for each size, mode and character of kText, in that order.
using Advances = std::vector<FT_Fixed>;

size_t Slot(size_t size, size_t mode, size_t c) {
  return (size * kNumModes + mode) * (sizeof kText - 1) + c;
}

class GlyphAdvanceTest : public GlyphPoolTest {
protected:
  // Releases the fonts and destroys the pool, so that the next one's faces
  // are fresh.
  void DestroyPool() {
    for (ftpool_font *font : fonts_)
      ftpool_font_release(font);
    fonts_.clear();
    ftpool_destroy(pool_);
    pool_ = nullptr;
  }

  FT_Fixed Advance(ftpool_font *font, FT_Face face, FT_UInt index,
                   FT_Int32 flags) {
    FT_Fixed advance = 0;
    EXPECT_EQ(ftpool_font_advance(font, face, index, flags, &advance),
              FTPOOL_OK)
        << "glyph " << index << ", flags " << flags;
    return advance;
  }

  // The advances through a fresh pool's cache, on faces that had loaded
  // `before`. With nothing before, each size and mode has a font, all
  // acquired at once so that each has a face of its own, where the first
  // character's miss is the face's first load.
  Advances Cached(const Case &c, Before before) {
    MakePool();
    Advances got(Slot(std::size(kSizes), 0, 0));
    struct Held {
      ftpool_font *font;
      FT_Face face;
    };
    std::vector<Held> held;
    for (size_t s = 0; s < std::size(kSizes); s++)
      for (size_t m = 0; m < (before == kNothing ? kNumModes : 1); m++) {
        ftpool_font *font =
            Font(c.path.c_str(), kSizes[s], c.coords, c.face_index);
        if (!font)
          return {};
        held.push_back({font, nullptr});
      }
    std::set<FT_Face> faces;
    for (Held &h : held)
      faces.insert(h.face = Acquire(h.font));
    EXPECT_EQ(faces.size(), held.size()) << "faces shared: not all fresh";
    const bool acquired = !faces.count(nullptr);
    for (size_t s = 0; acquired && s < std::size(kSizes); s++)
      for (size_t m = 0; m < kNumModes; m++) {
        const Held &h = held[before == kNothing ? s * kNumModes + m : s];
        const FT_Int32 flags = kModes[m].flags;
        if (before == kAnotherGlyph && m == 0)
          EXPECT_EQ(FT_Load_Glyph(h.face, FT_Get_Char_Index(h.face, 'o'),
                                  FT_LOAD_DEFAULT),
                    0);
        for (size_t i = 0; i < sizeof kText - 1; i++) {
          const FT_UInt index =
              FT_Get_Char_Index(h.face, static_cast<unsigned char>(kText[i]));
          if (before == kTheGlyph)
            EXPECT_EQ(FT_Load_Glyph(h.face, index, flags), 0);
          got[Slot(s, m, i)] = Advance(h.font, h.face, index, flags);
        }
      }
    for (const Held &h : held)
      if (h.face)
        GiveBack(h.font, h.face);
    DestroyPool();
    return acquired ? got : Advances{};
  }
};

// The value include/ftpool.h names, from a private face: FT_Get_Advance
// right after FT_Load_Glyph of the glyph with the same flags. For these
// fonts (glyf with HVAR, no VVAR, no hdmx) that is, as the header says, the
// design advance with FT_LOAD_NO_SCALE, the slot's linear advance with
// FT_LOAD_NO_HINTING or FT_LOAD_TARGET_LIGHT, else the slot's advance in
// 16.16.
Advances FreeTypes(const Case &c) {
  Advances want(Slot(std::size(kSizes), 0, 0));
  for (size_t s = 0; s < std::size(kSizes); s++) {
    ReferenceFace reference(c.path.c_str(), c.face_index, kSizes[s], c.coords);
    EXPECT_TRUE(reference.ok()) << c.Name();
    if (!reference.ok())
      return {};
    const FT_Face face = reference.face();
    for (size_t m = 0; m < kNumModes; m++)
      for (size_t i = 0; i < sizeof kText - 1; i++) {
        const FT_Int32 flags = kModes[m].flags;
        const FT_UInt index =
            reference.Index(static_cast<unsigned char>(kText[i]));
        FT_Fixed advance = 0;
        EXPECT_EQ(FT_Load_Glyph(face, index, flags), 0);
        const FT_GlyphSlot slot = face->glyph;
        EXPECT_EQ(FT_Get_Advance(face, index, flags, &advance), 0);
        FT_Fixed named;
        if (flags == FT_LOAD_NO_SCALE)
          named = slot->advance.x;
        else if (flags == FT_LOAD_VERTICAL_LAYOUT)
          named = slot->advance.y * 1024;
        else if (flags == FT_LOAD_NO_HINTING || flags == FT_LOAD_TARGET_LIGHT)
          named = slot->linearHoriAdvance;
        else
          named = slot->advance.x * 1024;
        EXPECT_EQ(advance, named) << c.Name() << ", " << kSizes[s] << " px, "
                                  << kModes[m].name << ", '" << kText[i] << "'";
        want[Slot(s, m, i)] = advance;
      }
  }
  return want;
}

TEST_P(GlyphAdvanceTest, AnAdvanceIsItsKeysWhateverTheFaceLoadedBefore) {
  ASSERT_FONT_PRESENT(kVariable);
  ASSERT_FONT_PRESENT(kVariableItalic);
  const std::vector<Case> cases = VariableCases();
  ASSERT_FALSE(cases.empty()) << "FreeType cannot open a variable font";
  size_t checked = 0, differing = 0;
  std::string first_differences;
  for (const Case &c : cases) {
    const Advances want = FreeTypes(c);
    ASSERT_FALSE(want.empty());
    Advances got[kNumBefore];
    for (int b = 0; b < kNumBefore; b++) {
      got[b] = Cached(c, static_cast<Before>(b));
      ASSERT_FALSE(got[b].empty()) << c.Name();
    }
    for (size_t s = 0; s < std::size(kSizes); s++)
      for (size_t m = 0; m < kNumModes; m++)
        for (size_t i = 0; i < sizeof kText - 1; i++) {
          const size_t k = Slot(s, m, i);
          checked++;
          bool same = true;
          for (int b = 0; b < kNumBefore; b++)
            same = same && got[b][k] == want[k];
          if (same)
            continue;
          if (differing++ >= 12)
            continue;
          std::ostringstream line;
          line << "  " << c.Name() << ", " << kSizes[s] << " px, "
               << kModes[m].name << ", '" << kText[i] << "':";
          for (int b = 0; b < kNumBefore; b++)
            line << " " << kBeforeNames[b] << " " << got[b][k] << ",";
          line << " FreeType's " << want[k] << "\n";
          first_differences += line.str();
        }
  }
  EXPECT_EQ(differing, 0u) << "of " << checked << " advances (" << cases.size()
                           << " faces), first:\n"
                           << first_differences;
}

INSTANTIATE_TEST_SUITE_P(Backends, GlyphAdvanceTest,
                         ::testing::Values(FTPOOL_BACKEND_PER_THREAD,
                                           FTPOOL_BACKEND_SHARED_MUTEX),
                         BackendName);

} // namespace
} // namespace ftpool_test
