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

/* Shims: as in context_harness.c. */
void ftpool__fork_stamp(struct context *c) { (void)c; }
void ftpool__fork_unstamp(struct context *c) { (void)c; }
void ftpool__glyph_reader_init(struct glyph_reader *r) { (void)r; }
void ftpool__glyph_counts_init(struct glyph_counts *c) { (void)c; }
void ftpool__blob_drop(ftpool_blob *b) { assert(!b); }

struct fake_library {
  int edits; /* plain: only the holder touches it */
};

struct close_note {
  struct mail mail;
  int payload; /* written by the poster before posting */
  int done;
};

static ftpool_blob *close_inside(struct context *c, struct mail *m) {
  struct close_note *note = (struct close_note *)m;
  ((struct fake_library *)(void *)c->library)->edits++;
  assert(note->payload == 7);
  note->done++;
  return NULL;
}

static const struct mail_kind close_kind = {NULL, close_inside, NULL, true};

static struct context context;
static struct fake_library library;
static struct close_note notes[2] = {{{NULL, &close_kind}, 0, 0},
                                     {{NULL, &close_kind}, 0, 0}};

static void *thread(void *arg) {
  intptr_t i = (intptr_t)arg;
  if (i == 0) { /* the holder: an edit, a drain, an edit, the release */
    library.edits++;
    ftpool__context_drain(&context);
    library.edits++;
    ftpool__context_release(&context);
  } else { /* a closer */
    notes[i - 1].payload = 7;
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
