/* SPDX-License-Identifier: MIT */
/* A program that uses an installed ftpool: threads open and render a face
 * each, the main thread closes them all, and any failure exits non-zero.
 * CI builds it through find_package (CMakeLists.txt) and pkg-config
 * (Makefile). Usage: consumer [font.ttf] */
#define _POSIX_C_SOURCE 200809L /* pthreads under -std=c11 */

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "ftpool.h"

enum { THREADS = 4 };

static ftpool *pool;
static const char *font_path =
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

struct job {
  FT_Face face;
  int failed;
};

static void *open_and_render(void *arg) {
  struct job *job = arg;
  ftpool_status s = ftpool_open_file(pool, font_path, 0, &job->face);
  if (s != FTPOOL_OK) {
    fprintf(stderr, "open %s: %s\n", font_path, ftpool_strerror(s));
    job->failed = 1;
    return NULL;
  }
  if (FT_Set_Pixel_Sizes(job->face, 0, 32) ||
      FT_Load_Char(job->face, 'g', FT_LOAD_RENDER) ||
      job->face->glyph->bitmap.rows == 0) {
    fprintf(stderr, "cannot render 'g' from %s\n", font_path);
    job->failed = 1;
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1)
    font_path = argv[1];
  /* The header this was compiled with against the library it runs with. */
  printf("ftpool %s (header %s)\n", ftpool_version(), FTPOOL_VERSION_STRING);
  if (strcmp(ftpool_version(), FTPOOL_VERSION_STRING) != 0)
    return 1;

  ftpool_status s = ftpool_create(NULL, &pool);
  if (s != FTPOOL_OK) {
    fprintf(stderr, "ftpool_create: %s\n", ftpool_strerror(s));
    return 1;
  }
  struct job jobs[THREADS] = {0};
  pthread_t threads[THREADS];
  int failed = 0;
  for (int t = 0; t < THREADS; t++)
    if (pthread_create(&threads[t], NULL, open_and_render, &jobs[t]) != 0)
      return 1;
  for (int t = 0; t < THREADS; t++)
    pthread_join(threads[t], NULL);
  /* Faces outlive their openers and close from any thread. */
  for (int t = 0; t < THREADS; t++) {
    failed |= jobs[t].failed;
    if (jobs[t].face && ftpool_close(pool, jobs[t].face) != FTPOOL_OK)
      failed = 1;
  }
  ftpool_stats stats;
  if (ftpool_get_stats(pool, &stats) != FTPOOL_OK || stats.faces_open != 0 ||
      stats.faces_opened != THREADS)
    failed = 1;
  ftpool_destroy(pool);
  printf("%d threads opened, rendered and handed over a face: %s\n", THREADS,
         failed ? "FAILED" : "ok");
  return failed;
}
