/* SPDX-License-Identifier: MIT */
/*
 * HarfBuzz on faces from a pool: 8 threads shape the same paragraph, each on
 * a face of its own, and each thread's glyphs and positions are checked
 * against a single-threaded run. Every thread then hands its face to the next
 * thread, which closes it while the opener is still alive: the pool passes
 * that close back to the opener, which carries it out (ftpool_collect).
 *
 * The two rules for HarfBuzz on pool faces:
 *   - Make the font with hb_ft_font_create_referenced. Never use
 *     hb_ft_face_create_cached: it overwrites face->generic, which the pool
 *     uses to find the face's owner.
 *   - hb_font_destroy before the face leaves the thread that uses it. The
 *     font holds an FT_Reference_Face, and the FT_Done_Face that drops it
 *     edits the face, so it belongs to the face's current thread. The last
 *     reference is the pool's: ftpool_close, from any thread.
 *
 * Build and run: bazel run //examples/harfbuzz:shape
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <hb-ft.h>
#include <hb.h>

#include "ftpool.h"

#define THREADS 8
#define MAX_GLYPHS 512

static const char font_path[] =
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

/* Ligature and kerning candidates (fi, ffl, AV, To, Ty) and accents. */
static const char paragraph[] =
    "The office staff affirmed that the final workflow was efficient. "
    "AVATAR WAVE: To Tyre, Ty Yoke, LT VA. "
    "Caf\u00e9 na\u00efve fa\u00e7ade, r\u00e9sum\u00e9, \u00c5ngstr\u00f6m.";

struct glyph {
  unsigned id, cluster;
  int x_advance, y_advance, x_offset, y_offset;
};

struct run {
  unsigned count;
  struct glyph glyphs[MAX_GLYPHS];
};

/* Shapes the paragraph on face at 16 px; returns 0 on success. */
static int shape(FT_Face face, struct run *run) {
  /* HarfBuzz takes its scale from the face's size, so set it first. */
  if (FT_Set_Pixel_Sizes(face, 0, 16))
    return -1;
  hb_font_t *font = hb_ft_font_create_referenced(face);
  hb_buffer_t *buffer = hb_buffer_create();
  hb_buffer_add_utf8(buffer, paragraph, -1, 0, -1);
  hb_buffer_guess_segment_properties(buffer);
  hb_shape(font, buffer, NULL, 0);

  unsigned count;
  const hb_glyph_info_t *info = hb_buffer_get_glyph_infos(buffer, &count);
  const hb_glyph_position_t *pos = hb_buffer_get_glyph_positions(buffer, NULL);
  int ok = count <= MAX_GLYPHS;
  for (unsigned i = 0; ok && i < count; i++)
    run->glyphs[i] =
        (struct glyph){info[i].codepoint, info[i].cluster, pos[i].x_advance,
                       pos[i].y_advance,  pos[i].x_offset, pos[i].y_offset};
  run->count = count;
  hb_buffer_destroy(buffer);
  /* Drops HarfBuzz's reference to the face, here, on the face's thread. */
  hb_font_destroy(font);
  return ok ? 0 : -1;
}

static int same_run(const struct run *a, const struct run *b) {
  return a->count == b->count &&
         memcmp(a->glyphs, b->glyphs, a->count * sizeof a->glyphs[0]) == 0;
}

struct worker {
  pthread_t thread;
  int index;
  struct run run;
  int ok;
  FT_Face handed; /* a face the previous worker opened, for us to close */
};

static ftpool *pool;
static struct worker workers[THREADS];
/* Also orders each handed face's last use before its close. */
static pthread_barrier_t barrier;

static void *work(void *arg) {
  struct worker *self = arg;
  FT_Face face = NULL;
  self->ok = ftpool_open_file(pool, font_path, 0, &face) == FTPOOL_OK &&
             shape(face, &self->run) == 0;
  workers[(self->index + 1) % THREADS].handed = face;
  pthread_barrier_wait(&barrier);

  if (self->handed)
    ftpool_close(pool, self->handed);
  /* Stay alive until every face is closed, so each close above goes back to
   * the face's opener... */
  pthread_barrier_wait(&barrier);
  /* ...which carries out the closes handed to it. */
  ftpool_collect(pool);
  return NULL;
}

static void print_run(const struct run *run) {
  for (unsigned i = 0; i < run->count && i < 12; i++) {
    const struct glyph *g = &run->glyphs[i];
    printf("%sgid%u=%u+%d", i ? "|" : "[", g->id, g->cluster, g->x_advance);
    if (g->x_offset || g->y_offset)
      printf("@%d,%d", g->x_offset, g->y_offset);
  }
  printf("|...] (%u glyphs)\n", run->count);
}

int main(void) {
  if (ftpool_create(NULL, &pool) != FTPOOL_OK)
    return 1;

  static struct run reference;
  FT_Face face;
  ftpool_status status = ftpool_open_file(pool, font_path, 0, &face);
  if (status != FTPOOL_OK) {
    fprintf(stderr, "%s: %s\n", font_path, ftpool_strerror(status));
    return 1;
  }
  int failed = shape(face, &reference) != 0;
  ftpool_close(pool, face);
  print_run(&reference);

  pthread_barrier_init(&barrier, NULL, THREADS);
  for (int i = 0; i < THREADS; i++) {
    workers[i].index = i;
    pthread_create(&workers[i].thread, NULL, work, &workers[i]);
  }
  for (int i = 0; i < THREADS; i++) {
    pthread_join(workers[i].thread, NULL);
    if (!workers[i].ok || !same_run(&workers[i].run, &reference)) {
      fprintf(stderr, "thread %d: glyphs differ from the reference\n", i);
      failed = 1;
    }
  }
  pthread_barrier_destroy(&barrier);

  ftpool_stats stats;
  ftpool_get_stats(pool, &stats);
  printf("%d threads: %s; faces opened %zu, closed %zu, closes handed back "
         "to their opener %zu\n",
         THREADS, failed ? "MISMATCH" : "same glyphs and positions",
         stats.faces_opened, stats.faces_closed, stats.closes_deferred);
  ftpool_destroy(pool);
  return failed;
}
