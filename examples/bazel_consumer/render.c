/* SPDX-License-Identifier: MIT */
/* A consumer of @ftpool//:ftpool: four threads each open a font through one
 * pool and render a glyph; the main thread closes their faces after they
 * have exited. Exits non-zero on any failure. Usage: render [font.ttf] */
#include <pthread.h>
#include <stdio.h>

#include "ftpool.h"

enum { THREADS = 4 };

static ftpool *pool;
static const char *font_path =
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

struct job {
  char glyph;
  FT_Face face;
  int ok;
};

static void *render(void *arg) {
  struct job *job = arg;
  ftpool_status s = ftpool_open_file(pool, font_path, 0, &job->face);
  if (s != FTPOOL_OK) {
    fprintf(stderr, "open %s: %s\n", font_path, ftpool_strerror(s));
    return NULL;
  }
  job->ok = FT_Set_Pixel_Sizes(job->face, 0, 32) == 0 &&
            FT_Load_Char(job->face, job->glyph, FT_LOAD_RENDER) == 0 &&
            job->face->glyph->bitmap.rows > 0;
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1)
    font_path = argv[1];
  ftpool_status s = ftpool_create(NULL, &pool);
  if (s != FTPOOL_OK) {
    fprintf(stderr, "ftpool_create: %s\n", ftpool_strerror(s));
    return 1;
  }
  struct job jobs[THREADS] = {{'f'}, {'t'}, {'p'}, {'l'}};
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; t++)
    if (pthread_create(&threads[t], NULL, render, &jobs[t]) != 0) {
      fprintf(stderr, "pthread_create failed\n");
      return 1;
    }
  int failures = 0;
  for (int t = 0; t < THREADS; t++) {
    pthread_join(threads[t], NULL);
    if (!jobs[t].ok) {
      fprintf(stderr, "rendering '%c' failed\n", jobs[t].glyph);
      failures++;
    }
    /* The opener has exited: the pool closes its face here all the same. */
    if (jobs[t].face && ftpool_close(pool, jobs[t].face) != FTPOOL_OK)
      failures++;
  }
  ftpool_stats stats;
  ftpool_get_stats(pool, &stats);
  if (stats.faces_open != 0)
    failures++;
  printf("ftpool %s: %zu faces opened in %d threads, %zu still open\n",
         ftpool_version(), stats.faces_opened, THREADS, stats.faces_open);
  ftpool_destroy(pool);
  return failures ? 1 : 0;
}
