// SPDX-License-Identifier: MIT
// ftpool.hpp: C++ handles for ftpool. Header-only; needs C++17 or later.
// The namespace is ftpool_cpp: C++ cannot have a namespace ftpool beside
// ftpool.h's struct ftpool.
//
// Pool owns an ftpool (or refers to one it does not own, such as the
// process-wide default pool). Face owns one open FT_Face and closes it with
// ftpool_close when destroyed, from whichever thread destroys it: the pool
// hands the close to the face's owner thread when needed (see ftpool.h).
// Blob owns one reference to an ftpool_blob. Font owns one reference to a
// shared font (ftpool_font), made from a FontDesc, and FontFace is the
// calling thread's face of a Font, acquired for a scope. All are move-only; a
// moved-from handle is empty and its destructor does nothing.
//
// Errors: a function that can fail throws ftpool_cpp::Error, which carries the
// ftpool_status and, when FreeType failed, FreeType's error code (from
// ftpool_last_ft_error on the failing thread). Each has a non-throwing twin
// named try_...: it is noexcept, returns the ftpool_status, fills its out
// parameter on success and leaves it unchanged on failure. Built without
// exceptions (-fno-exceptions), the header declares only the try_ functions.
// What cannot fail on a non-empty handle (stats, collect, sharing a blob or
// a font, reading instance data) is noexcept.
//
// The glyph cache (ftpool.h, "Caching glyphs") is FontFace::glyph and
// FontFace::advance (try_glyph, try_advance): the calling thread's acquired
// face is what its glyphs' lifetime hangs on. Its budget is ftpool_config's
// glyph_cache_bytes and its counters are ftpool_stats' glyph_* fields, as
// Pool::create and Pool::stats take and give them.
//
// Destructors cannot throw. ~Face calls ftpool_close, which can only fail
// for a face adopted with the wrong pool (FTPOOL_ERR_FOREIGN_FACE); the face
// is then left open, to be closed by its own pool at the latest when that is
// destroyed. Face::close() and Face::reset() report that error. ~FontFace
// gives back, which can only fail on another thread than the acquirer's;
// the face then stays acquired until that thread exits. FontFace::give_back()
// reports it.
//
// Lifetimes and threads follow ftpool.h: a Face, Blob or Font must not
// outlive its pool (declare the Pool first, so that it is destroyed last),
// and an owning Pool must not be destroyed while another thread uses the
// pool. A Pool or a Font may be used from many threads at once; a Face, like
// its FT_Face, by one thread at a time; a FontFace only on the thread that
// acquired it, and not after its Font.
#ifndef FTPOOL_HPP
#define FTPOOL_HPP

#include <cstddef>
#include <utility>

#if defined(__cpp_exceptions)
#include <stdexcept>
#include <string>
#endif

#include "ftpool.h"

namespace ftpool_cpp {

#if defined(__cpp_exceptions)
class Error : public std::runtime_error {
public:
  Error(const char *function, ftpool_status status, FT_Error ft_error)
      : std::runtime_error(message(function, status, ft_error)),
        status_(status), ft_error_(ft_error) {}

  ftpool_status status() const noexcept { return status_; }
  // FreeType's error code, or 0 if FreeType was not the one that failed.
  FT_Error ft_error() const noexcept { return ft_error_; }

private:
  static std::string message(const char *function, ftpool_status status,
                             FT_Error ft_error) {
    std::string text = std::string(function) + ": " + ftpool_strerror(status);
    if (ft_error)
      text += " (FreeType error " + std::to_string(ft_error) + ")";
    return text;
  }

  ftpool_status status_;
  FT_Error ft_error_;
};

namespace detail {
// Must run right after the failed call: FreeType's error is per thread and
// the next failure overwrites it.
inline void check(const char *function, ftpool_status status) {
  if (status != FTPOOL_OK)
    throw Error(function, status, ftpool_last_ft_error());
}
} // namespace detail
#endif

class Face {
public:
  Face() noexcept = default;
  // Adopts a face that ftpool_open_* opened on pool.
  Face(ftpool *pool, FT_Face face) noexcept : pool_(pool), face_(face) {}
  Face(Face &&other) noexcept
      : pool_(std::exchange(other.pool_, nullptr)),
        face_(std::exchange(other.face_, nullptr)) {}
  Face &operator=(Face &&other) noexcept {
    if (this != &other) {
      reset();
      pool_ = std::exchange(other.pool_, nullptr);
      face_ = std::exchange(other.face_, nullptr);
    }
    return *this;
  }
  Face(const Face &) = delete;
  Face &operator=(const Face &) = delete;
  ~Face() { reset(); }

  FT_Face get() const noexcept { return face_; }
  FT_Face operator->() const noexcept { return face_; }
  explicit operator bool() const noexcept { return face_ != nullptr; }
  ftpool *pool() const noexcept { return pool_; }

  // Closes the face, if any, and leaves the handle empty even if that fails.
  ftpool_status reset() noexcept {
    ftpool *pool = std::exchange(pool_, nullptr);
    FT_Face face = std::exchange(face_, nullptr);
    return face ? ftpool_close(pool, face) : FTPOOL_OK;
  }
#if defined(__cpp_exceptions)
  void close() { detail::check("ftpool_close", reset()); }
#endif
  // Gives the face up to the caller, who must close it with ftpool_close.
  FT_Face release() noexcept {
    pool_ = nullptr;
    return std::exchange(face_, nullptr);
  }

private:
  ftpool *pool_ = nullptr;
  FT_Face face_ = nullptr;
};

class Blob {
public:
  Blob() noexcept = default;
  // Adopts one reference.
  explicit Blob(ftpool_blob *blob) noexcept : blob_(blob) {}
  Blob(Blob &&other) noexcept : blob_(std::exchange(other.blob_, nullptr)) {}
  Blob &operator=(Blob &&other) noexcept {
    if (this != &other)
      ftpool_blob_release(std::exchange(blob_, other.release()));
    return *this;
  }
  Blob(const Blob &) = delete;
  Blob &operator=(const Blob &) = delete;
  ~Blob() { ftpool_blob_release(blob_); }

  ftpool_blob *get() const noexcept { return blob_; }
  explicit operator bool() const noexcept { return blob_ != nullptr; }
  const void *data() const noexcept { return ftpool_blob_data(blob_, nullptr); }
  std::size_t size() const noexcept {
    std::size_t size = 0;
    ftpool_blob_data(blob_, &size);
    return size;
  }

  // Another reference to the same bytes, for another owner or thread.
  Blob share() const noexcept {
    if (blob_)
      ftpool_blob_retain(blob_);
    return Blob(blob_);
  }
  void reset() noexcept { ftpool_blob_release(std::exchange(blob_, nullptr)); }
  // Gives the reference up to the caller (ftpool_blob_release).
  ftpool_blob *release() noexcept { return std::exchange(blob_, nullptr); }

private:
  ftpool_blob *blob_ = nullptr;
};

// A font description: ftpool_font_desc with chained setters, e.g.
//   pool.font(FontDesc().file(path).pixel_size(24))
// Like the C struct it points at the path, blob, coordinates and foreground
// colour it is given; creating the font copies what it needs, so they need
// only last that long.
// Its fields stay public for what the setters do not cover.
struct FontDesc : ftpool_font_desc {
  FontDesc() noexcept : ftpool_font_desc() { ftpool_font_desc_init(this); }

  FontDesc &file(const char *file_path) noexcept {
    path = file_path;
    return *this;
  }
  // The font takes its own reference to the blob.
  FontDesc &bytes(const Blob &bytes) noexcept {
    blob = bytes.get();
    return *this;
  }
  FontDesc &index(FT_Long index) noexcept {
    face_index = index;
    return *this;
  }
  // Design coordinates, 16.16, as FT_Set_Var_Design_Coordinates takes them.
  FontDesc &variation(const FT_Fixed *design_coords, FT_UInt count) noexcept {
    coords = design_coords;
    num_coords = count;
    return *this;
  }
  // Pixels, as FT_Set_Pixel_Sizes takes them; a width of 0 means the height.
  FontDesc &pixel_size(FT_UInt height, FT_UInt width = 0) noexcept {
    char_width = char_height = 0; // a char size would take precedence
    pixel_height = height;
    pixel_width = width;
    return *this;
  }
  // 26.6 points at dpi (0 for 72), as FT_Set_Char_Size takes them.
  FontDesc &char_size(FT_F26Dot6 height, FT_UInt dpi = 0) noexcept {
    char_width = 0;
    char_height = height;
    horz_resolution = vert_resolution = dpi;
    return *this;
  }
  FontDesc &charmap(FT_Encoding charmap_encoding) noexcept {
    encoding = charmap_encoding;
    return *this;
  }
  // Colour glyphs' CPAL palette and foreground colour (nullptr: FreeType's
  // default), as ftpool_font_desc says.
  FontDesc &palette(FT_UShort index) noexcept {
    palette_index = index;
    return *this;
  }
  FontDesc &foreground(const FT_Color *color) noexcept {
    foreground_color = color;
    return *this;
  }
};

// The calling thread's face of a Font: Font::acquire acquires it and the
// destructor gives it back. Move-only. It must stay on the thread that
// acquired it (moving it within that thread is fine) and must not outlive
// its Font: it holds no reference to the font, since taking one would put a
// read-modify-write on the font's shared count into every acquire, which
// the per-thread backend otherwise does without.
class FontFace {
public:
  FontFace() noexcept = default;
  FontFace(FontFace &&other) noexcept
      : font_(std::exchange(other.font_, nullptr)),
        face_(std::exchange(other.face_, nullptr)) {}
  FontFace &operator=(FontFace &&other) noexcept {
    if (this != &other) {
      give_back();
      font_ = std::exchange(other.font_, nullptr);
      face_ = std::exchange(other.face_, nullptr);
    }
    return *this;
  }
  FontFace(const FontFace &) = delete;
  FontFace &operator=(const FontFace &) = delete;
  ~FontFace() { give_back(); }

  FT_Face get() const noexcept { return face_; }
  FT_Face operator->() const noexcept { return face_; }
  explicit operator bool() const noexcept { return face_ != nullptr; }
  ftpool_font *font() const noexcept { return font_; }

  // Gives the face back now, if any, and leaves the handle empty. Fails
  // (FTPOOL_ERR_NOT_ACQUIRED) only on another thread than the acquirer's.
  ftpool_status give_back() noexcept {
    ftpool_font *font = std::exchange(font_, nullptr);
    FT_Face face = std::exchange(face_, nullptr);
    return face ? ftpool_font_give_back(font, face) : FTPOOL_OK;
  }

  // The data attached to this face's instance (ftpool_font_instance_data),
  // or null.
  void *data() const noexcept {
    void *data = nullptr;
    if (face_)
      ftpool_font_instance_data(font_, face_, &data);
    return data;
  }
  // Attaches data to the instance, destroying what was there; destroy(data)
  // runs on the thread holding the instance when the instance goes (see
  // ftpool_font_set_instance_data). On failure the data stays the caller's.
  [[nodiscard]] ftpool_status
  try_set_data(void *data, void (*destroy)(void *data)) const noexcept {
    return ftpool_font_set_instance_data(font_, face_, data, destroy);
  }
#if defined(__cpp_exceptions)
  void set_data(void *data, void (*destroy)(void *data)) const {
    detail::check("ftpool_font_set_instance_data", try_set_data(data, destroy));
  }
#endif

  // The glyph cache (ftpool_font_glyph): glyph_index loaded with
  // load_flags | FT_LOAD_RENDER at the font's size, shared by every thread
  // of the pool. The glyph stays valid until this face is given back (the
  // thread's last give-back of the font, if it holds it more than once), so
  // no longer than this handle, or the last handle of this font that the
  // thread holds; moving the handle within the thread keeps it valid. Do
  // not write to it. Statuses: FTPOOL_ERR_NOT_ACQUIRED on another thread
  // than the acquirer's, FTPOOL_ERR_GLYPH_INDEX, FTPOOL_ERR_LOAD_FLAGS
  // (FT_LOAD_NO_SCALE, FT_LOAD_NO_RECURSE, FT_LOAD_BITMAP_METRICS_ONLY),
  // FTPOOL_ERR_SIZE_CHANGED (a miss after another size was set on the
  // face), FreeType's errors, FTPOOL_ERR_INVALID_ARGUMENT on an empty
  // handle.
  [[nodiscard]] ftpool_status
  try_glyph(FT_UInt glyph_index, FT_Int32 load_flags,
            const ftpool_glyph *&out) const noexcept {
    const ftpool_glyph *glyph;
    ftpool_status status =
        ftpool_font_glyph(font_, face_, glyph_index, load_flags, &glyph);
    if (status == FTPOOL_OK)
      out = glyph;
    return status;
  }
  // The same under a transform (ftpool_font_glyph_transformed): as
  // FT_Set_Transform(face, matrix, delta) would render it; each distinct
  // transform is its own entry. nullptr: the identity, no shift.
  [[nodiscard]] ftpool_status
  try_glyph(FT_UInt glyph_index, FT_Int32 load_flags, const FT_Matrix *matrix,
            const FT_Vector *delta, const ftpool_glyph *&out) const noexcept {
    const ftpool_glyph *glyph;
    ftpool_status status = ftpool_font_glyph_transformed(
        font_, face_, glyph_index, load_flags, matrix, delta, &glyph);
    if (status == FTPOOL_OK)
      out = glyph;
    return status;
  }
  // The advance as FT_Get_Advance gives it (16.16 pixels; font units with
  // FT_LOAD_NO_SCALE), from the cache (ftpool_font_advance): layout without
  // rendering. Every load flag is accepted; otherwise try_glyph's statuses.
  [[nodiscard]] ftpool_status try_advance(FT_UInt glyph_index,
                                          FT_Int32 load_flags,
                                          FT_Fixed &out) const noexcept {
    FT_Fixed advance;
    ftpool_status status =
        ftpool_font_advance(font_, face_, glyph_index, load_flags, &advance);
    if (status == FTPOOL_OK)
      out = advance;
    return status;
  }
#if defined(__cpp_exceptions)
  [[nodiscard]] const ftpool_glyph &
  glyph(FT_UInt glyph_index, FT_Int32 load_flags = FT_LOAD_DEFAULT) const {
    const ftpool_glyph *glyph = nullptr;
    detail::check("ftpool_font_glyph",
                  try_glyph(glyph_index, load_flags, glyph));
    return *glyph;
  }
  [[nodiscard]] const ftpool_glyph &glyph(FT_UInt glyph_index,
                                          FT_Int32 load_flags,
                                          const FT_Matrix *matrix,
                                          const FT_Vector *delta) const {
    const ftpool_glyph *glyph = nullptr;
    detail::check("ftpool_font_glyph_transformed",
                  try_glyph(glyph_index, load_flags, matrix, delta, glyph));
    return *glyph;
  }
  [[nodiscard]] FT_Fixed advance(FT_UInt glyph_index,
                                 FT_Int32 load_flags = FT_LOAD_DEFAULT) const {
    FT_Fixed advance = 0;
    detail::check("ftpool_font_advance",
                  try_advance(glyph_index, load_flags, advance));
    return advance;
  }
#endif

private:
  friend class Font;
  FontFace(ftpool_font *font, FT_Face face) noexcept
      : font_(font), face_(face) {}

  ftpool_font *font_ = nullptr;
  FT_Face face_ = nullptr;
};

// One reference to a shared font, which any number of threads may acquire
// at once, each getting its own face. Move-only, like Blob, with share() for
// another reference: copies stay explicit because the last release does
// work on the releasing thread (it closes that thread's instance at once and
// runs its data destructor there).
class Font {
public:
  Font() noexcept = default;
  // Adopts one reference.
  explicit Font(ftpool_font *font) noexcept : font_(font) {}
  Font(Font &&other) noexcept : font_(std::exchange(other.font_, nullptr)) {}
  Font &operator=(Font &&other) noexcept {
    if (this != &other)
      ftpool_font_release(std::exchange(font_, other.release()));
    return *this;
  }
  Font(const Font &) = delete;
  Font &operator=(const Font &) = delete;
  ~Font() { ftpool_font_release(font_); }

  ftpool_font *get() const noexcept { return font_; }
  explicit operator bool() const noexcept { return font_ != nullptr; }

  // Another reference to the same font, for another owner or thread.
  Font share() const noexcept {
    if (font_)
      ftpool_font_retain(font_);
    return Font(font_);
  }
  void reset() noexcept { ftpool_font_release(std::exchange(font_, nullptr)); }
  // Gives the reference up to the caller (ftpool_font_release).
  ftpool_font *release() noexcept { return std::exchange(font_, nullptr); }

  // The calling thread's face, set as the description says.
  [[nodiscard]] ftpool_status try_acquire(FontFace &out) const noexcept {
    FT_Face face;
    ftpool_status status = ftpool_font_acquire(font_, &face);
    if (status == FTPOOL_OK)
      out = FontFace(font_, face);
    return status;
  }
#if defined(__cpp_exceptions)
  [[nodiscard]] FontFace acquire() const {
    FontFace face;
    detail::check("ftpool_font_acquire", try_acquire(face));
    return face;
  }
#endif

private:
  ftpool_font *font_ = nullptr;
};

class Pool {
public:
  Pool() noexcept = default;
  // Takes ownership of a pool from ftpool_create.
  explicit Pool(ftpool *pool) noexcept : pool_(pool), owned_(true) {}
  // Refers to a pool that someone else destroys.
  static Pool borrow(ftpool *pool) noexcept {
    Pool borrowed;
    borrowed.pool_ = pool;
    return borrowed;
  }
  Pool(Pool &&other) noexcept
      : pool_(std::exchange(other.pool_, nullptr)),
        owned_(std::exchange(other.owned_, false)) {}
  Pool &operator=(Pool &&other) noexcept {
    if (this != &other) {
      if (owned_)
        ftpool_destroy(pool_);
      pool_ = std::exchange(other.pool_, nullptr);
      owned_ = std::exchange(other.owned_, false);
    }
    return *this;
  }
  Pool(const Pool &) = delete;
  Pool &operator=(const Pool &) = delete;
  ~Pool() {
    if (owned_)
      ftpool_destroy(pool_);
  }

  // config may be null for the defaults.
  [[nodiscard]] static ftpool_status try_create(const ftpool_config *config,
                                                Pool &out) noexcept {
    ftpool *pool;
    ftpool_status status = ftpool_create(config, &pool);
    if (status == FTPOOL_OK)
      out = Pool(pool);
    return status;
  }
  // The process-wide pool of ftpool_default, which is never destroyed.
  [[nodiscard]] static ftpool_status try_default_pool(Pool &out) noexcept {
    ftpool *pool;
    ftpool_status status = ftpool_default(&pool);
    if (status == FTPOOL_OK)
      out = borrow(pool);
    return status;
  }

  ftpool *get() const noexcept { return pool_; }
  bool owns() const noexcept { return owned_; }
  explicit operator bool() const noexcept { return pool_ != nullptr; }

  [[nodiscard]] ftpool_status try_open_file(const char *path,
                                            FT_Long face_index,
                                            Face &out) const noexcept {
    FT_Face face;
    ftpool_status status = ftpool_open_file(pool_, path, face_index, &face);
    if (status == FTPOOL_OK)
      out = Face(pool_, face);
    return status;
  }
  // The bytes must stay alive and unchanged until the face is closed.
  [[nodiscard]] ftpool_status try_open_memory(const void *data,
                                              std::size_t size,
                                              FT_Long face_index,
                                              Face &out) const noexcept {
    FT_Face face;
    ftpool_status status =
        ftpool_open_memory(pool_, data, size, face_index, &face);
    if (status == FTPOOL_OK)
      out = Face(pool_, face);
    return status;
  }
  // The face holds its own reference to the blob.
  [[nodiscard]] ftpool_status try_open_blob(const Blob &blob,
                                            FT_Long face_index,
                                            Face &out) const noexcept {
    FT_Face face;
    ftpool_status status =
        ftpool_open_blob(pool_, blob.get(), face_index, &face);
    if (status == FTPOOL_OK)
      out = Face(pool_, face);
    return status;
  }
  [[nodiscard]] ftpool_status try_blob_from_file(const char *path,
                                                 Blob &out) const noexcept {
    ftpool_blob *blob;
    ftpool_status status = ftpool_blob_from_file(pool_, path, &blob);
    if (status == FTPOOL_OK)
      out = Blob(blob);
    return status;
  }
  [[nodiscard]] ftpool_status try_blob_copy(const void *data, std::size_t size,
                                            Blob &out) const noexcept {
    ftpool_blob *blob;
    ftpool_status status = ftpool_blob_copy(pool_, data, size, &blob);
    if (status == FTPOOL_OK)
      out = Blob(blob);
    return status;
  }
  // A shared font; desc may be a FontDesc. A bad description fails here.
  [[nodiscard]] ftpool_status try_font(const ftpool_font_desc &desc,
                                       Font &out) const noexcept {
    ftpool_font *font;
    ftpool_status status = ftpool_font_create(pool_, &desc, &font);
    if (status == FTPOOL_OK)
      out = Font(font);
    return status;
  }

#if defined(__cpp_exceptions)
  static Pool create(const ftpool_config *config = nullptr) {
    Pool pool;
    detail::check("ftpool_create", try_create(config, pool));
    return pool;
  }
  static Pool default_pool() {
    Pool pool;
    detail::check("ftpool_default", try_default_pool(pool));
    return pool;
  }
  [[nodiscard]] Face open_file(const char *path, FT_Long face_index = 0) const {
    Face face;
    detail::check("ftpool_open_file", try_open_file(path, face_index, face));
    return face;
  }
  [[nodiscard]] Face open_memory(const void *data, std::size_t size,
                                 FT_Long face_index = 0) const {
    Face face;
    detail::check("ftpool_open_memory",
                  try_open_memory(data, size, face_index, face));
    return face;
  }
  [[nodiscard]] Face open_blob(const Blob &blob, FT_Long face_index = 0) const {
    Face face;
    detail::check("ftpool_open_blob", try_open_blob(blob, face_index, face));
    return face;
  }
  [[nodiscard]] Blob blob_from_file(const char *path) const {
    Blob blob;
    detail::check("ftpool_blob_from_file", try_blob_from_file(path, blob));
    return blob;
  }
  [[nodiscard]] Blob blob_copy(const void *data, std::size_t size) const {
    Blob blob;
    detail::check("ftpool_blob_copy", try_blob_copy(data, size, blob));
    return blob;
  }
  [[nodiscard]] Font font(const ftpool_font_desc &desc) const {
    Font font;
    detail::check("ftpool_font_create", try_font(desc, font));
    return font;
  }
#endif

  // Carries out the closes other threads handed to the calling thread.
  void collect() const noexcept { ftpool_collect(pool_); }
  // A quiescent point (ftpool_quiescent): the calling thread reads no glyph
  // it got before. A no-op on an empty handle.
  void quiescent() const noexcept {
    if (pool_)
      ftpool_quiescent(pool_);
  }
  // All zero for an empty handle.
  ftpool_stats stats() const noexcept {
    ftpool_stats stats{};
    ftpool_get_stats(pool_, &stats);
    return stats;
  }

private:
  ftpool *pool_ = nullptr;
  bool owned_ = false;
};

} // namespace ftpool_cpp

#endif // FTPOOL_HPP
