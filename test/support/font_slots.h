/* SPDX-License-Identifier: MIT */
// Fonts shared by a stress test's threads: two of each description, in
// slots that a thread takes a reference from, or replaces with a new font
// of the same description, so that a font's last reference goes from
// whichever thread drops it.
#ifndef FTPOOL_TEST_FONT_SLOTS_H
#define FTPOOL_TEST_FONT_SLOTS_H

#include <cstdlib>
#include <mutex>
#include <vector>

#include "ftpool.h"
#include "test/support/pool_test_util.h"

namespace ftpool_test {

// Description: a font's path, face_index, pixels (high) and coords.
template <typename Description> class FontSlots {
public:
  FontSlots(ftpool *pool, const std::vector<Description> &d)
      : pool_(pool), descriptions_(d), slots_(2 * d.size()) {
    for (size_t i = 0; i < slots_.size(); i++)
      slots_[i].font = Make(DescriptionOf(i));
  }
  size_t Slots() const { return slots_.size(); }
  size_t DescriptionOf(size_t slot) const {
    return slot % descriptions_.size();
  }
  // A reference to slot i's current font.
  ftpool_font *Take(size_t i) {
    std::lock_guard<std::mutex> lock(slots_[i].mutex);
    ftpool_font_retain(slots_[i].font);
    return slots_[i].font;
  }
  // A new font of the same description in slot i; the old one's reference
  // goes, maybe its last.
  void Replace(size_t i) {
    ftpool_font *fresh = Make(DescriptionOf(i)), *old;
    {
      std::lock_guard<std::mutex> lock(slots_[i].mutex);
      old = slots_[i].font;
      slots_[i].font = fresh;
    }
    ftpool_font_release(old);
  }
  // The slots' references, once no thread takes or replaces any more.
  void ReleaseAll() {
    for (Slot &slot : slots_)
      ftpool_font_release(slot.font);
  }

private:
  ftpool_font *Make(size_t d) {
    const Description &x = descriptions_[d];
    ftpool_font_desc desc = Desc(x.path, x.pixels, x.coords);
    desc.face_index = x.face_index;
    ftpool_font *font;
    if (ftpool_font_create(pool_, &desc, &font) != FTPOOL_OK)
      std::abort();
    return font;
  }
  struct Slot {
    std::mutex mutex; // the test's, guarding which font the slot holds
    ftpool_font *font;
  };
  ftpool *pool_;
  const std::vector<Description> &descriptions_;
  std::vector<Slot> slots_;
};

} // namespace ftpool_test

#endif
