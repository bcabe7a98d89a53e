/* SPDX-License-Identifier: MIT */
/* Renders a glyph from four threads through ftpool's default pool; exits
 * non-zero on any failure. Usage: consumer [font.ttf] */
#define _POSIX_C_SOURCE 200809L /* pthreads under -std=c11 */

#include <pthread.h>
#include <stdio.h>

#include "ftpool.h"

enum { THREADS = 4 };

static const char *font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

static void *render(void *failed) {
  ftpool *pool;
  FT_Face face;
  ftpool_status s = ftpool_default(&pool);
  if (s == FTPOOL_OK)
    s = ftpool_open_file(pool, font, 0, &face);
  if (s != FTPOOL_OK) {
    fprintf(stderr, "%s: %s\n", font, ftpool_strerror(s));
    *(int *)failed = 1;
    return NULL;
  }
  if (FT_Set_Pixel_Sizes(face, 0, 32) ||
      FT_Load_Char(face, 'g', FT_LOAD_RENDER) || face->glyph->bitmap.rows == 0)
    *(int *)failed = 1;
  ftpool_close(pool, face);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1)
    font = argv[1];
  pthread_t threads[THREADS];
  int failed[THREADS] = {0};
  for (int i = 0; i < THREADS; i++)
    if (pthread_create(&threads[i], NULL, render, &failed[i]) != 0)
      return 1;
  int failures = 0;
  for (int i = 0; i < THREADS; i++) {
    pthread_join(threads[i], NULL);
    failures += failed[i];
  }
  printf("ftpool %s: %d threads rendered, %d failed\n", ftpool_version(),
         THREADS, failures);
  return failures != 0;
}
