/* SPDX-License-Identifier: MIT */
/*
 * The pool's contexts: a push-only singly linked list. A context is
 * published once and freed only by ftpool_destroy, so readers walk it with no
 * hazard pointers and a push cannot suffer ABA.
 */
#ifndef FTPOOL_REGISTRY_H
#define FTPOOL_REGISTRY_H

#include "atomics.h"
#include "context.h"

struct registry {
  atomic_ptr head;
  atomic_word orphans; /* set in a fork() child while it has orphans */
};

void ftpool__registry_init(struct registry *r);

/* Adds a fully built context. */
void ftpool__registry_publish(struct registry *r, struct context *c);

/* The newest context; follow ->next for the rest. */
struct context *ftpool__registry_first(struct registry *r);

/* Claims a FREE context for reuse, or returns NULL if none is FREE. */
struct context *ftpool__registry_claim_free(struct registry *r);

#endif /* FTPOOL_REGISTRY_H */
