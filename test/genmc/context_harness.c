/* SPDX-License-Identifier: MIT */
/*
 * Contexts and the registry (lib/context.c, lib/registry.c; the protocol of
 * docs/design.md, modelled in docs/design.pml): a thread makes a context,
 * edits its library, publishes it and releases it; a second thread adopts
 * it from the registry once it is free (as a new thread adopts an
 * abandoned one) and edits the library; a third finds it in the registry
 * and hands it a close, which its holder, whoever that is by then, or the
 * closer itself, carries out. The library is a plain counter: two holders
 * at once are a data race. Asserted, as design.pml does: every close
 * carried out exactly once with what its poster wrote, every edit counted,
 * the context FREE at the end.
 *
 * Checks: context.c registry.c
 */
#include "test/genmc/harness.h"

#include "lib/context.c"
#include "lib/registry.c"

/* Shims: the fork stamps (fork_harness.c checks them), the glyph reader
 * (glyph_harness.c) and blobs (blob_harness.c), which a close here has
 * none of. */
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
  assert(note->payload == 42);
  note->done++;
  return NULL;
}

static const struct mail_kind close_kind = {NULL, close_inside, NULL, true};

static struct registry registry;
static struct context context;
static struct fake_library library;
static struct close_note note = {{NULL, &close_kind}, 0, 0};
static int adopted, posted;

static void edit(struct context *c) {
  ((struct fake_library *)(void *)c->library)->edits++;
}

static void *thread(void *arg) {
  switch ((intptr_t)arg) {
  case 0: /* makes, edits, publishes, releases */
    ftpool__context_init(&context, NULL, 0, (FT_Library)(void *)&library);
    edit(&context);
    ftpool__registry_publish(&registry, &context);
    ftpool__context_release(&context);
    break;
  case 1: { /* adopts a free one */
    struct context *c = ftpool__registry_claim_free(&registry);
    if (c) {
      edit(c);
      adopted = 1;
      ftpool__context_release(c);
    }
    break;
  }
  case 2: { /* hands a close to whoever holds it */
    struct context *c = ftpool__registry_first(&registry);
    if (c) {
      note.payload = 42;
      posted = 1;
      ftpool__context_hand_over(c, &note.mail);
    }
    break;
  }
  }
  return NULL;
}

int main(void) {
  ftpool__registry_init(&registry);
  harness_run(3, thread);
  assert(word_load_relaxed(&context.mail) == CONTEXT_FREE);
  assert(note.done == posted);
  assert(library.edits == 1 + adopted + posted);
  return 0;
}
