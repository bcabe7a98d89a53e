/* SPDX-License-Identifier: MIT */
/*
 * Shared fonts (lib/font.c; docs/design.md, "Shared fonts" and "A font's
 * last release", modelled in docs/font.pml): a font made on the main thread
 * with two references, one for each of two threads. Each thread attaches
 * (its context made, HELD), acquires the font (its instance record made and
 * written into the font's slot for its context, through the font's chunked
 * array, as instance.c's ready_instance does), uses the face, gives it
 * back, releases its reference, and exits (releases its context). Whichever
 * release is the last runs font_gone, as pt_font_gone does: it walks the
 * font's slots, drops its own context's record at once and hands the
 * other's to that context (context.c): posted, if its thread still holds
 * it (which drains it at its release), or, if it is free, claimed and
 * carried out there; then ftpool_font_release frees the font. The font's
 * fields, its slots and the records are plain: a last release that does
 * not see another holder's use of the font is a data race, or an access
 * to freed memory.
 *
 * Asserted, as font.pml does: the font goes once, after its last release
 * (a use after it is an access to freed memory); each record is dropped
 * once, by its context's holder, not acquired, with what its acquire
 * wrote; the blob gets back the font's reference; each context is FREE at
 * the end.
 *
 * instance.c itself (records with faces and sizes, font_face.c) is a shim
 * here: GenMC 0.11 cannot run it. Its take_data and the font-gone mail's
 * `before` return a two-pointer struct by value, which the interpreter
 * loads as one 128-bit access of a local written as two 64-bit fields:
 * "Error: Mixed-size accesses!" on any path that drops a record (clang
 * -O1 would fold it, but leaves llvm.umax, which GenMC cannot run). The
 * shim keeps what font.c's order protects: each slot and record written by
 * its holder before that thread's release, read and freed after the last.
 *
 * GenMC options: --disable-estimation
 *
 * Checks: font.c
 */
#include "test/genmc/harness.h"

#include <stddef.h>
#include <string.h>

/* Shim: thread cancellation (no_cancel.h), which GenMC's pthread.h lacks;
 * no thread here is cancelled. */
#ifndef PTHREAD_CANCEL_DISABLE
#define PTHREAD_CANCEL_DISABLE 1
static int pthread_setcancelstate(int state, int *old) {
  (void)state;
  *old = 0;
  return 0;
}
#endif

#include "lib/chunked.c"
#include "lib/context.c"
#include "lib/errors.c"
#include "lib/font.c"

/* Shim: an instance record (instance.c's struct instance, as far as the
 * font's last release reads it). */
struct record {
  struct mail mail;        /* the font-gone mail */
  struct context *context; /* whose record it is */
  FT_F26Dot6 size;         /* the face: the size its acquire set on it */
  size_t uses;             /* acquires not given back */
};

/* Shims: the pool's allocator (memory.c, which GenMC cannot compile):
 * malloc and free, zeroed as the types allocated here, told apart by their
 * sizes. */
typedef void *chunk_of_slots[CHUNKED_FIRST];
_Static_assert(sizeof(ftpool_font) != sizeof(struct record) &&
                   sizeof(ftpool_font) != sizeof(chunk_of_slots) &&
                   sizeof(ftpool_font) != sizeof(struct context) &&
                   sizeof(struct record) != sizeof(chunk_of_slots) &&
                   sizeof(struct record) != sizeof(struct context) &&
                   sizeof(chunk_of_slots) != sizeof(struct context),
               "the allocator shim tells the types apart by size");
void *ftpool__memory_alloc_raw(FT_Memory memory, size_t size) {
  (void)memory;
  return malloc(size);
}
void *ftpool__memory_alloc(FT_Memory memory, size_t size) {
  void *p = ftpool__memory_alloc_raw(memory, size);
  if (size == sizeof(ftpool_font))
    ZERO(ftpool_font, p);
  else if (size == sizeof(struct record))
    ZERO(struct record, p);
  else if (size == sizeof(chunk_of_slots))
    ZERO(chunk_of_slots, p);
  else if (size == sizeof(struct context))
    ZERO(struct context, p);
  else
    assert(0);
  return p;
}
void ftpool__memory_free(FT_Memory memory, void *block) {
  (void)memory;
  free(block);
}

/* Shims: blobs (blob_harness.c checks them) count the references taken
 * here, the harness's own first; the glyph cache's keys and readers
 * (the glyph harnesses), which a font that renders nothing only makes and
 * frees; the fork stamps (fork_harness.c). */
static atomic_refcount blob_refs;
void ftpool__blob_retain(ftpool_blob *blob) {
  (void)blob;
  refcount_add_relaxed(&blob_refs);
}
void ftpool__blob_drop(ftpool_blob *blob) {
  if (!blob)
    return;
  size_t left = refcount_sub_acq_rel(&blob_refs);
  assert(left > 0); /* the harness keeps one */
}
ftpool_status ftpool_blob_from_file(ftpool *pool, const char *path,
                                    ftpool_blob **blob) {
  (void)pool;
  (void)path;
  (void)blob;
  assert(0); /* made from a blob */
  return FTPOOL_ERR_CANNOT_OPEN;
}
struct glyph_key *ftpool__glyph_key_new(const ftpool_font *font) {
  (void)font;
  struct glyph_key *key = malloc(sizeof *key);
  ZERO(struct glyph_key, key);
  return key;
}
void ftpool__glyph_key_release(FT_Memory memory, struct glyph_key *key) {
  (void)memory;
  free(key);
}
void ftpool__glyph_reader_init(struct glyph_reader *r) { (void)r; }
void ftpool__glyph_counts_init(struct glyph_counts *c) { (void)c; }
void ftpool__fork_stamp(struct context *c) { (void)c; }
void ftpool__fork_unstamp(struct context *c) { (void)c; }

/* Shim: instance.c's part. The acquire finds or makes the context's record
 * in the font's slot and sets the size; the give-back finds it there; the
 * font-gone mail, carried out by the record's context's holder, frees it. */
static atomic_counter records_dropped;

static ftpool_blob *gone_inside(struct context *c, struct mail *m) {
  struct record *r = (struct record *)m;
  assert(r->context == c && r->uses == 0 && r->size == 12 * 64);
  ftpool__memory_free(c->pool->memory, r);
  counter_add_relaxed(&records_dropped, 1);
  return NULL;
}
static const struct mail_kind font_gone_mail = {NULL, gone_inside, NULL, false};

static ftpool_status instance_acquire(struct context *c, ftpool_font *font,
                                      FT_Face *face) {
  struct record **slot = ftpool__chunked_get(
      &font->instances, font->pool->memory, sizeof *slot, c->index, NULL);
  struct record *r = *slot;
  if (!r) {
    r = ftpool__memory_alloc(font->pool->memory, sizeof *r);
    r->mail.kind = &font_gone_mail;
    r->context = c;
    *slot = r;
  }
  r->size = font->char_height; /* FT_Set_Char_Size */
  r->uses++;
  *face = (FT_Face)(void *)&r->size;
  return FTPOOL_OK;
}

static ftpool_status instance_give_back(struct context *c, ftpool_font *font,
                                        FT_Face face) {
  struct record **slot =
      ftpool__chunked_find(&font->instances, sizeof *slot, c->index);
  struct record *r = slot ? *slot : NULL;
  assert(r && face == (FT_Face)(void *)&r->size && r->uses);
  r->uses--;
  return FTPOOL_OK;
}

/* ftpool__instance_post_gone */
static void post_record(void *element, void *self) {
  struct record *r = *(struct record **)element;
  if (!r)
    return;
  if (r->context == self)
    ftpool__context_carry_out(self, &r->mail);
  else
    ftpool__context_hand_over(r->context, &r->mail);
}

/* Shim: the per-thread backend (per_thread.c, which needs a pthread key):
 * the thread's context is a thread-local; each function does what its pt_
 * counterpart does with it. */
static ftpool pool;
static _Thread_local struct context *held;
static atomic_counter fonts_gone;

static ftpool_status h_prepare(ftpool_font *font) {
  (void)font; /* the creator has no context: its instance comes later */
  return FTPOOL_OK;
}
static ftpool_status h_acquire(ftpool_font *font, FT_Face *face) {
  ftpool__context_drain(held);
  return instance_acquire(held, font, face);
}
static ftpool_status h_give_back(ftpool_font *font, FT_Face face) {
  ftpool__context_drain(held);
  return instance_give_back(held, font, face);
}
static struct instance_data *h_data(ftpool_font *font, FT_Face face) {
  (void)font;
  (void)face;
  return NULL;
}
static void h_gone(ftpool_font *font) {
  counter_add_relaxed(&fonts_gone, 1);
  struct context *self = held;
  if (self)
    ftpool__context_drain(self);
  ftpool__chunked_each(&font->instances, sizeof(struct record *), post_record,
                       self);
}
static const struct backend harness_backend = {
    .font_prepare = h_prepare,
    .font_acquire = h_acquire,
    .font_give_back = h_give_back,
    .font_data = h_data,
    .font_gone = h_gone,
};

static ftpool_font *font;
static struct context *contexts[2];
static char libraries[2];

static void *thread(void *arg) {
  int i = (int)(intptr_t)arg;
  /* new_context: made HELD by its thread */
  struct context *c = ftpool__memory_alloc(pool.memory, sizeof *c);
  ftpool__context_init(c, &pool, (size_t)i, (FT_Library)&libraries[i]);
  held = contexts[i] = c;
  FT_Face face;
  ftpool_status status = ftpool_font_acquire(font, &face);
  assert(status == FTPOOL_OK);
  assert(*(FT_F26Dot6 *)(void *)face == 12 * 64); /* uses it */
  status = ftpool_font_give_back(font, face);
  assert(status == FTPOOL_OK);
  ftpool_font_release(font);
  ftpool__context_release(c); /* on_thread_exit */
  return NULL;
}

static const unsigned char bytes[4] = {0, 1, 0, 0};

int main(void) {
  pool.backend = &harness_backend;
  pool.memory = NULL; /* the allocator shim's */
  pool.font_idle_instances = 32;
  pool.font_idle_bytes = 1u << 20;
  counter_init(&pool.fonts);
  static ftpool_blob blob;
  blob.pool = &pool;
  blob.bytes = bytes;
  blob.size = sizeof bytes;
  refcount_init(&blob_refs);
  refcount_add_relaxed(&blob_refs); /* the harness's */
  ftpool_font_desc desc = {0}; /* ftpool_font_desc_init's memset: see ZERO */
  desc.blob = &blob;
  desc.char_height = 12 * 64;
  ftpool_status status = ftpool_font_create(&pool, &desc, &font);
  assert(status == FTPOOL_OK);
  status = ftpool_font_retain(font); /* the second thread's */
  assert(status == FTPOOL_OK);
  harness_run(2, thread);
  assert(counter_load_relaxed(&fonts_gone) == 1);
  assert(counter_load_relaxed(&pool.fonts) == 0);
  assert(counter_load_relaxed(&records_dropped) == 2);
  for (int i = 0; i < 2; i++)
    assert(word_load_relaxed(&contexts[i]->mail) == CONTEXT_FREE);
  assert(refcount_load_relaxed(&blob_refs) == 1); /* the harness's */
  return 0;
}
