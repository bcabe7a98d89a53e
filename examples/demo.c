/* SPDX-License-Identifier: MIT */
/* Eight threads open, render and close faces through one pool; every other
 * face is closed by the next thread instead of its opener. Prints the pool's
 * statistics. Usage: demo [font.ttf] */
#include <pthread.h>
#include <stdio.h>

#include "ftpool.h"

enum { THREADS = 8, FACES = 200 };

static ftpool *pool;
static const char *font_path =
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
static FT_Face handed[THREADS][FACES]; /* closed by the next thread */

static void *worker(void *arg) {
  int id = (int)(size_t)arg;
  for (int i = 0; i < FACES; i++) {
    FT_Face face;
    ftpool_status s = ftpool_open_file(pool, font_path, 0, &face);
    if (s != FTPOOL_OK) {
      fprintf(stderr, "open %s: %s\n", font_path, ftpool_strerror(s));
      return NULL;
    }
    FT_Set_Pixel_Sizes(face, 0, 24);
    FT_Load_Char(face, 'A' + i % 26, FT_LOAD_RENDER);
    if (i % 2)
      handed[id][i] = face;
    else
      ftpool_close(pool, face);
  }
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
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; t++)
    pthread_create(&threads[t], NULL, worker, (void *)(size_t)t);
  for (int t = 0; t < THREADS; t++)
    pthread_join(threads[t], NULL);
  /* The openers have exited: these closes adopt their contexts. */
  for (int t = 0; t < THREADS; t++)
    for (int i = 0; i < FACES; i++)
      if (handed[t][i])
        ftpool_close(pool, handed[t][i]);
  ftpool_stats st;
  ftpool_get_stats(pool, &st);
  printf("faces opened %zu, closed %zu, still open %zu\n", st.faces_opened,
         st.faces_closed, st.faces_open);
  printf("contexts %zu (recycled %zu, adopted %zu), closes deferred %zu, "
         "drained %zu\n",
         st.contexts, st.contexts_recycled, st.contexts_adopted,
         st.closes_deferred, st.closes_drained);
  ftpool_destroy(pool);
  return st.faces_open == 0 ? 0 : 1;
}
