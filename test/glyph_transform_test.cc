// SPDX-License-Identifier: MIT
// Glyphs under a transform (ftpool_font_glyph_transformed), on both
// backends: each is what FreeType renders under FT_Set_Transform on a
// private face, byte for byte, hinted or not, anti-aliased or mono,
// rotated, slanted, scaled and shifted by fractions of a pixel (as a PDF
// renderer asks for them); each distinct transform is its own entry (a
// cache that kept the transform out of its key would give every shift the
// first one's bitmap, and the first test fails); the identity, or a
// transform the flags ignore, is the plain lookup's entry; the face's own
// transform is neither applied nor changed; and threads that look the
// same transformed glyphs up at once all get FreeType's.
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "ftpool.h"
#include "test/support/fonts.h"
#include "test/support/glyph_pool.h"
#include "test/support/glyph_reference.h"
#include "test/support/pool_test_util.h"

namespace ftpool_test {
namespace {

constexpr FT_UInt kPixels = 24;
const char kText[] = "Ag@";

struct Transform {
  const char *name;
  FT_Matrix matrix;
  FT_Vector delta;
};

FT_Matrix Rotation(double degrees) {
  const double r = degrees * std::acos(-1.0) / 180; // M_PI is not C++17's
  const FT_Fixed c = std::lround(std::cos(r) * 65536);
  const FT_Fixed s = std::lround(std::sin(r) * 65536);
  return {c, -s, s, c};
}

const FT_Matrix kIdentity = {0x10000, 0, 0, 0x10000};

// Shifts are 26.6: a quarter pixel is 16.
std::vector<Transform> Transforms() {
  return {
      {"quarter-pixel shift", kIdentity, {16, 0}},
      {"half-pixel shift", kIdentity, {32, 0}},
      {"three-quarter shift, down", kIdentity, {48, -16}},
      {"rotated 30 degrees", Rotation(30), {0, 0}},
      {"rotated 90 degrees, shifted", Rotation(90), {16, 16}},
      {"slanted", {0x10000, 0x3333, 0, 0x10000}, {0, 0}},
      {"half size", {0x8000, 0, 0, 0x8000}, {0, 0}},
      {"mirrored", {-0x10000, 0, 0, 0x10000}, {8, 0}},
  };
}

struct Mode {
  FT_Int32 flags;
  const char *name;
};
const Mode kModes[] = {
    {FT_LOAD_DEFAULT, "DEFAULT"},
    {FT_LOAD_NO_HINTING | FT_LOAD_NO_BITMAP, "NO_HINTING | NO_BITMAP"},
    {FT_LOAD_TARGET_MONO, "TARGET_MONO"},
};

// FreeType's glyph under t, on the reference's private face.
ReferenceGlyph Reference(const ReferenceFace &reference, FT_UInt index,
                         FT_Int32 flags, const Transform &t) {
  FT_Matrix matrix = t.matrix;
  FT_Vector delta = t.delta;
  FT_Set_Transform(reference.face(), &matrix, &delta);
  ReferenceGlyph glyph;
  EXPECT_TRUE(reference.Render(index, flags, &glyph));
  FT_Set_Transform(reference.face(), nullptr, nullptr);
  return glyph;
}

class GlyphTransformTest : public GlyphPoolTest {
protected:
  void SetUp() override {
    MakePool();
    font_ = Font(kSans, kPixels);
    ASSERT_NE(font_, nullptr);
    for (const char *c = kText; *c; c++)
      indices_.push_back(reference_.Index(static_cast<FT_ULong>(*c)));
  }
  // The transformed glyph, or nullptr with the test failed.
  const ftpool_glyph *Transformed(FT_Face face, FT_UInt index, FT_Int32 flags,
                                  const FT_Matrix *matrix,
                                  const FT_Vector *delta) {
    const ftpool_glyph *glyph = nullptr;
    EXPECT_EQ(ftpool_font_glyph_transformed(font_, face, index, flags, matrix,
                                            delta, &glyph),
              FTPOOL_OK);
    return glyph;
  }

  ReferenceFace reference_{kSans, 0, kPixels};
  ftpool_font *font_ = nullptr;
  std::vector<FT_UInt> indices_;
};

TEST_P(GlyphTransformTest, EachTransformIsFreeTypesAndItsOwnEntry) {
  ASSERT_TRUE(reference_.ok());
  FT_Face face = Acquire(font_);
  ASSERT_NE(face, nullptr);
  size_t looked_up = 0;
  for (const Mode &mode : kModes)
    for (FT_UInt index : indices_) {
      // The plain glyph first: no transform may be served its entry.
      ASSERT_NE(Glyph(font_, face, index, mode.flags), nullptr);
      looked_up++;
      for (const Transform &t : Transforms()) {
        SCOPED_TRACE(std::string(mode.name) + ", glyph " +
                     std::to_string(index) + ", " + t.name);
        const ftpool_glyph *glyph =
            Transformed(face, index, mode.flags, &t.matrix, &t.delta);
        ASSERT_NE(glyph, nullptr);
        looked_up++;
        EXPECT_EQ(
            GlyphDifference(glyph, Reference(reference_, index, mode.flags, t)),
            "");
        // Again: a hit, the same entry.
        const ftpool_stats before = Stats(pool_);
        EXPECT_EQ(Transformed(face, index, mode.flags, &t.matrix, &t.delta),
                  glyph);
        EXPECT_EQ(Stats(pool_).glyph_hits, before.glyph_hits + 1);
      }
    }
  const ftpool_stats stats = Stats(pool_);
  EXPECT_EQ(stats.glyph_misses, looked_up);
  EXPECT_EQ(stats.glyph_entries, looked_up);
  GiveBack(font_, face);
}

TEST_P(GlyphTransformTest, TheIdentityIsThePlainLookup) {
  FT_Face face = Acquire(font_);
  ASSERT_NE(face, nullptr);
  const FT_UInt index = indices_[0];
  const ftpool_glyph *plain = Glyph(font_, face, index);
  ASSERT_NE(plain, nullptr);
  const FT_Vector none = {0, 0};
  const FT_Matrix rotated = Rotation(45);
  const ftpool_stats before = Stats(pool_);
  EXPECT_EQ(Transformed(face, index, FT_LOAD_DEFAULT, nullptr, nullptr), plain);
  EXPECT_EQ(Transformed(face, index, FT_LOAD_DEFAULT, &kIdentity, &none),
            plain);
  // A transform the flags ignore is none.
  EXPECT_EQ(Glyph(font_, face, index, FT_LOAD_IGNORE_TRANSFORM), plain);
  EXPECT_EQ(Transformed(face, index, FT_LOAD_IGNORE_TRANSFORM, &rotated, &none),
            plain);
  EXPECT_EQ(GlyphDifference(plain, Reference(reference_, index, FT_LOAD_DEFAULT,
                                             {"none", kIdentity, none})),
            "");
  const ftpool_stats after = Stats(pool_);
  EXPECT_EQ(after.glyph_hits, before.glyph_hits + 4);
  EXPECT_EQ(after.glyph_entries, before.glyph_entries);
  GiveBack(font_, face);
}

TEST_P(GlyphTransformTest, TheFacesOwnTransformIsNeitherUsedNorChanged) {
  ASSERT_TRUE(reference_.ok());
  FT_Face face = Acquire(font_);
  ASSERT_NE(face, nullptr);
  const FT_UInt index = indices_[1];
  FT_Matrix users = Rotation(-20);
  FT_Vector users_delta = {5, 7};
  FT_Set_Transform(face, &users, &users_delta);
  const Transform shift = Transforms()[1];
  const ftpool_glyph *glyph =
      Transformed(face, index, FT_LOAD_DEFAULT, &shift.matrix, &shift.delta);
  ASSERT_NE(glyph, nullptr);
  EXPECT_EQ(GlyphDifference(
                glyph, Reference(reference_, index, FT_LOAD_DEFAULT, shift)),
            "");
#if FREETYPE_MAJOR > 2 || (FREETYPE_MAJOR == 2 && FREETYPE_MINOR >= 11)
  FT_Matrix matrix;
  FT_Vector delta;
  FT_Get_Transform(face, &matrix, &delta);
  EXPECT_EQ(matrix.xx, users.xx);
  EXPECT_EQ(matrix.xy, users.xy);
  EXPECT_EQ(matrix.yx, users.yx);
  EXPECT_EQ(matrix.yy, users.yy);
  EXPECT_EQ(delta.x, users_delta.x);
  EXPECT_EQ(delta.y, users_delta.y);
#endif
  GiveBack(font_, face);
}

TEST_P(GlyphTransformTest, RefusesWhatThePlainLookupRefuses) {
  FT_Face face = Acquire(font_);
  ASSERT_NE(face, nullptr);
  const Transform t = Transforms()[3];
  const ftpool_glyph *glyph = reinterpret_cast<const ftpool_glyph *>(this);
  EXPECT_EQ(ftpool_font_glyph_transformed(font_, face, indices_[0],
                                          FT_LOAD_NO_SCALE, &t.matrix, &t.delta,
                                          &glyph),
            FTPOOL_ERR_LOAD_FLAGS);
  EXPECT_EQ(glyph, nullptr);
  EXPECT_EQ(ftpool_font_glyph_transformed(
                font_, face, static_cast<FT_UInt>(face->num_glyphs), 0,
                &t.matrix, &t.delta, &glyph),
            FTPOOL_ERR_GLYPH_INDEX);
  EXPECT_EQ(ftpool_font_glyph_transformed(nullptr, face, indices_[0], 0,
                                          &t.matrix, &t.delta, &glyph),
            FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ftpool_font_glyph_transformed(font_, face, indices_[0], 0,
                                          &t.matrix, &t.delta, nullptr),
            FTPOOL_ERR_INVALID_ARGUMENT);
  GiveBack(font_, face);
  // Not acquired: refused, as the plain lookup.
  EXPECT_EQ(ftpool_font_glyph_transformed(font_, face, indices_[0], 0,
                                          &t.matrix, &t.delta, &glyph),
            FTPOOL_ERR_NOT_ACQUIRED);
}

// Every thread looks every (glyph, transform) up, in its own order, many
// times, against references made before: the misses race on the same
// entries and the hits read them while others publish.
TEST_P(GlyphTransformTest, ThreadsShareTransformedGlyphs) {
  ASSERT_TRUE(reference_.ok());
  const std::vector<Transform> transforms = Transforms();
  std::vector<ReferenceGlyph> want;
  for (FT_UInt index : indices_)
    for (const Transform &t : transforms)
      want.push_back(Reference(reference_, index, FT_LOAD_NO_HINTING, t));
  constexpr int kThreads = 4, kRounds = 20;
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; i++)
    threads.emplace_back([&, i] {
      for (int round = 0; round < kRounds && failures[i].empty(); round++) {
        FT_Face face = nullptr;
        if (ftpool_font_acquire(font_, &face) != FTPOOL_OK) {
          failures[i] = "acquire failed";
          return;
        }
        for (size_t k = 0; k < want.size(); k++) {
          const size_t j = (k * (i + 1) + round) % want.size();
          const Transform &t = transforms[j % transforms.size()];
          const ftpool_glyph *glyph = nullptr;
          if (ftpool_font_glyph_transformed(font_, face,
                                            indices_[j / transforms.size()],
                                            FT_LOAD_NO_HINTING, &t.matrix,
                                            &t.delta, &glyph) != FTPOOL_OK) {
            failures[i] = "lookup failed";
            break;
          }
          const std::string diff = GlyphDifference(glyph, want[j]);
          if (!diff.empty()) {
            failures[i] = std::string(t.name) + ": " + diff;
            break;
          }
        }
        ftpool_font_give_back(font_, face);
      }
    });
  for (std::thread &t : threads)
    t.join();
  for (int i = 0; i < kThreads; i++)
    EXPECT_EQ(failures[i], "") << "thread " << i;
  EXPECT_EQ(Stats(pool_).glyph_entries, want.size());
}

INSTANTIATE_TEST_SUITE_P(Backends, GlyphTransformTest,
                         ::testing::Values(FTPOOL_BACKEND_PER_THREAD,
                                           FTPOOL_BACKEND_SHARED_MUTEX),
                         BackendName);

} // namespace
} // namespace ftpool_test
