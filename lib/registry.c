/* SPDX-License-Identifier: MIT */
#include "registry.h"

void ftpool__registry_init(struct registry *r) {
  ptr_init(&r->head, NULL);
  word_init(&r->orphans, 0);
}

void ftpool__registry_publish(struct registry *r, struct context *c) {
  void *head = ptr_load_relaxed(&r->head);
  do {
    c->next = head;
    /* Release pairs with registry_first's acquire: a reader that finds c
     * sees it fully built, its library included. */
  } while (!ptr_cas_release(&r->head, &head, c));
}

struct context *ftpool__registry_first(struct registry *r) {
  return ptr_load_acquire(&r->head);
}

struct context *ftpool__registry_claim_free(struct registry *r) {
  for (struct context *c = ftpool__registry_first(r); c; c = c->next) {
    if (ftpool__context_is_held(c))
      continue;
    if (ftpool__context_try_claim(c))
      return c;
  }
  return NULL;
}
