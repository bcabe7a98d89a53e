/* SPDX-License-Identifier: MIT */
/*
 * The mailbox (lib/context.c; docs/design.md's state machine, design.pml):
 * a context's holder edits its library, drains its mailbox and releases it,
 * while two other threads each hand it a close, posting it to the holder or,
 * if they find it free, claiming it and carrying the close out themselves.
 * The library is a plain counter: two holders at once are a data race; a
 * close's fields are plain too, written by its poster before it posts.
 * Asserted, as design.pml does: every close carried out exactly once, with
 * what its poster wrote; none lost in a release; the context FREE at the
 * end.
 *
 * Checks: context.c
 */
#include "test/genmc/harness.h"

#include "lib/context.c"

#include "test/genmc/context_shims.h"

static struct context context;
static struct fake_library library;
static struct close_note notes[2] = {{{NULL, &close_kind}, 0, 0},
                                     {{NULL, &close_kind}, 0, 0}};

static void *thread(void *arg) {
  intptr_t i = (intptr_t)arg;
  if (i == 0) { /* the holder: an edit, a drain, an edit, the release */
    edit(&context);
    ftpool__context_drain(&context);
    edit(&context);
    ftpool__context_release(&context);
  } else { /* a closer */
    notes[i - 1].payload = CLOSE_PAYLOAD;
    ftpool__context_hand_over(&context, &notes[i - 1].mail);
  }
  return NULL;
}

int main(void) {
  /* Made HELD, as a thread's first call makes its context. */
  ftpool__context_init(&context, NULL, 0, (FT_Library)(void *)&library);
  harness_run(3, thread);
  assert(word_load_relaxed(&context.mail) == CONTEXT_FREE);
  assert(notes[0].done == 1 && notes[1].done == 1);
  assert(library.edits == 4);
  return 0;
}
