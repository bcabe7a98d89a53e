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

#include "test/genmc/context_shims.h"

static struct registry registry;
static struct context context;
static struct fake_library library;
static struct close_note note = {{NULL, &close_kind}, 0, 0};
static int adopted, posted;

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
      note.payload = CLOSE_PAYLOAD;
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
