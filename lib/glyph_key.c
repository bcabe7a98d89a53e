/* SPDX-License-Identifier: MIT */
/* A font's identity in the glyph cache. */
#include <string.h>

#include "font.h"
#include "glyph_cache.h"
#include "memory.h"
#include "pool.h"

/* splitmix64's finaliser: every input bit reaches every output bit. */
static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9u;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebu;
  return h ^ (h >> 31);
}

struct glyph_key *ftpool__glyph_key_new(const ftpool_font *font) {
  size_t bytes =
      sizeof(struct glyph_key) + font->num_coords * sizeof *font->coords;
  struct glyph_key *k = ftpool__memory_alloc(font->pool->memory, bytes);
  if (!k)
    return NULL;
  k->bytes = bytes;
  k->cached = 0;
  refcount_init(&k->refs);
  refcount_add_relaxed(&k->refs);
  const ftpool_blob *blob = font->blob;
  /* A file's bytes are known by its version, so that two blobs read from
   * it (file cache off) share entries; other bytes by their blob. */
  if (blob->identity.size != 0)
    k->file = blob->identity;
  else
    k->blob_serial = blob->serial;
  k->face_index = font->face_index;
  k->char_width = font->char_width;
  k->char_height = font->char_height;
  k->horz_resolution = font->horz_resolution;
  k->vert_resolution = font->vert_resolution;
  k->pixel_width = font->pixel_width;
  k->pixel_height = font->pixel_height;
  k->colour = font->colour;
  k->num_coords = font->num_coords;
  if (font->num_coords)
    memcpy(k->coords, font->coords, font->num_coords * sizeof *font->coords);
  uint64_t h = mix(k->blob_serial, k->file.device);
  h = mix(h, k->file.inode);
  h = mix(h, k->file.size);
  h = mix(h, (uint64_t)k->file.mtime_sec);
  h = mix(h, (uint64_t)k->file.mtime_nsec);
  h = mix(h, (uint64_t)k->file.ctime_sec);
  h = mix(h, (uint64_t)k->file.ctime_nsec);
  h = mix(h, (uint64_t)k->face_index);
  h = mix(h, (uint64_t)k->char_width);
  h = mix(h, (uint64_t)k->char_height);
  h = mix(h, ((uint64_t)k->horz_resolution << 32) | k->vert_resolution);
  h = mix(h, ((uint64_t)k->pixel_width << 32) | k->pixel_height);
  for (FT_UInt i = 0; i < k->num_coords; i++)
    h = mix(h, (uint64_t)k->coords[i]);
  k->hash = h;
  return k;
}

void ftpool__glyph_key_release(FT_Memory memory, struct glyph_key *key) {
  /* acq_rel: the last holder frees it after every other's use. */
  if (key && refcount_sub_acq_rel(&key->refs) == 0)
    ftpool__memory_free(memory, key);
}

uint64_t ftpool__glyph_transform_hash(const struct glyph_transform *t) {
  uint64_t h = mix(1, (uint64_t)t->matrix.xx);
  h = mix(h, (uint64_t)t->matrix.xy);
  h = mix(h, (uint64_t)t->matrix.yx);
  h = mix(h, (uint64_t)t->matrix.yy);
  h = mix(h, (uint64_t)t->delta.x);
  return mix(h, (uint64_t)t->delta.y);
}
