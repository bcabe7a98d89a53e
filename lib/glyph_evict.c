/* SPDX-License-Identifier: MIT */
/*
 * The glyph cache's eviction and reclamation, by the holder of the token
 * alone: SIEVE over the entries in publication order, victims unlinked
 * from their chains and retired with an epoch, retired entries freed once
 * no reader's pin is older (glyph_cache.h).
 */
#include "glyph_cache.h"
#include "memory.h"
#include "test_hooks.h"

#ifdef FTPOOL_TSAN
atomic_word ftpool__fence_word;
#endif

void ftpool__glyph_entry_free(struct glyph_cache *cache,
                              struct glyph_entry *e) {
  ftpool__glyph_key_release(cache->memory, e->key);
  ftpool__memory_free(cache->memory, e);
}

/* A thread that finds the token taken does not wait: it inserts nothing. */
static bool take_token(struct glyph_cache *cache) {
  /* Acquire pairs with give_token: the last holder's queue and retired
   * list are this one's. The load first keeps a busy token's line shared. */
  return !word_load_relaxed(&cache->evicting) &&
         !word_exchange_acquire(&cache->evicting, 1);
}

static void reclaim_held(struct glyph_cache *cache);

/* Gives the token back, then carries out a reclamation that a thread asked
 * for while it was held (ftpool__glyph_reclaim): so that glyphs evicted
 * before every reader unpinned do not wait for the next miss. */
static void give_token(struct glyph_cache *cache) {
  for (;;) {
    word_store_release(&cache->evicting, 0);
    /* Pairs with the fence in ftpool__glyph_reclaim: the asker took the
     * token, or this sees the request. */
    fence_seq_cst();
    if (!word_load_relaxed(&cache->reclaim_wanted) || !take_token(cache))
      return;
    word_store_relaxed(&cache->reclaim_wanted, 0);
    reclaim_held(cache);
  }
}

/* An entry taken in: its key's charge stays with the key while any entry
 * taken in holds it, once; the entry's other copy is given back. */
static void charge_key(struct glyph_cache *cache, struct glyph_entry *e) {
  e->bytes -= e->key->bytes;
  if (e->key->cached++)
    counter_sub_relaxed(&cache->bytes, e->key->bytes);
}

/* The last entry taken in that held the key is freed: so is its charge. */
static void uncharge_key(struct glyph_cache *cache, struct glyph_key *key) {
  if (--key->cached == 0)
    counter_sub_relaxed(&cache->bytes, key->bytes);
}

/* Moves what inserters published since the last run to the queue's head:
 * the stack is newest first, as the queue is. */
static void take_incoming(struct glyph_cache *cache) {
  /* Acquire pairs with the inserters' release CAS: their entries' fields. */
  struct glyph_entry *first = ptr_exchange_acquire(&cache->incoming, NULL);
  if (!first)
    return;
  struct glyph_entry *last = first;
  first->queue_prev = NULL;
  charge_key(cache, first);
  for (; last->queue_next; last = last->queue_next) {
    last->queue_next->queue_prev = last;
    charge_key(cache, last->queue_next);
  }
  last->queue_next = cache->queue_head;
  if (cache->queue_head)
    cache->queue_head->queue_prev = last;
  else
    cache->queue_tail = last;
  cache->queue_head = first;
}

/* SIEVE's hand, from the oldest toward the newest, wrapping: a visited
 * entry is spared once (its mark cleared), the first unvisited one is the
 * victim. Every entry is spared at most once per call, so the walk ends
 * even while readers keep marking. */
static struct glyph_entry *next_victim(struct glyph_cache *cache) {
  size_t spared = 0, limit = counter_load_relaxed(&cache->entries) + 1;
  for (;;) {
    struct glyph_entry *e = cache->hand ? cache->hand : cache->queue_tail;
    if (!e)
      return NULL;
    /* Relaxed, as the readers' marks: a hint. */
    if (spared++ < limit && word_load_relaxed(&e->visited)) {
      word_store_relaxed(&e->visited, 0);
      cache->hand = e->queue_prev;
      continue;
    }
    return e;
  }
}

static void dequeue(struct glyph_cache *cache, struct glyph_entry *e) {
  cache->hand = e->queue_prev;
  if (e->queue_prev)
    e->queue_prev->queue_next = e->queue_next;
  else
    cache->queue_head = e->queue_next;
  if (e->queue_next)
    e->queue_next->queue_prev = e->queue_prev;
  else
    cache->queue_tail = e->queue_prev;
}

/* Takes e out of its chain. Inserters only ever change a bucket's head, so
 * a link inside a chain has one writer, the token holder; the head is
 * changed by CAS, against them. Readers on e keep following e->next,
 * which stays as it was. The links, and the head's CAS here, are relaxed:
 * a link only ever points to an older entry, and every write of a head is
 * a read-modify-write, so the head's acquire load (below, and a reader's)
 * synchronises with the inserter of every entry the chain reaches (each
 * is in the release sequence of the CAS that published it). Nothing
 * written here is read through a link: an unlink reaches readers through
 * the epoch and the fences. */
static void unlink_entry(struct glyph_cache *cache, struct glyph_entry *e) {
  atomic_ptr *bucket = ftpool__glyph_bucket(cache, e->hash);
  void *next = ptr_load_relaxed(&e->next);
  for (;;) {
    /* Acquire: the walk below reads entries inserted after this evictor
     * took e in, and their links. */
    void *head = ptr_load_acquire(bucket);
    if (head == e) {
      if (ptr_cas_relaxed(bucket, &head, next))
        return;
      continue; /* an inserter pushed in front of e */
    }
    struct glyph_entry *pred = head, *after;
    while ((after = ptr_load_relaxed(&pred->next)) != e)
      pred = after;
    ptr_store_relaxed(&pred->next, next);
    return;
  }
}

/* Frees the retired entries older than every pin. */
static void reclaim_held(struct glyph_cache *cache) {
  if (!cache->retired_head)
    return;
  /* Pairs with the readers' pin fence: a reader whose pin this walk misses
   * pinned after every unlink was visible to it. */
  fence_seq_cst();
  uint64_t oldest = cache->oldest_pin(cache->oldest_pin_arg, NULL);
  FTPOOL_TEST_HOOK(FTPOOL_HOOK_GLYPH_SCANNED);
  /* Each entry leaves the list before it is freed: a fork() child whose
   * parent was in this loop finds the list whole, for ftpool_destroy. */
  struct glyph_entry *e;
  while ((e = cache->retired_head) && e->retired_at <= oldest) {
    cache->retired_head = e->queue_next;
    if (!e->queue_next)
      cache->retired_tail = NULL;
    counter_sub_relaxed(&cache->awaiting, e->bytes);
    uncharge_key(cache, e->key);
    ftpool__glyph_entry_free(cache, e);
  }
}

/* Hands the victims, unlinked, to reclamation. */
static void retire(struct glyph_cache *cache, struct glyph_entry *batch,
                   size_t bytes, size_t count) {
  FTPOOL_TEST_HOOK(FTPOOL_HOOK_GLYPH_EVICTING);
  counter_add_relaxed(&cache->evictions, count);
#ifdef FTPOOL_CONTROL_GLYPH_FREE_AT_ONCE
  /* test/glyph_evicted_read_test.cc's negative control: AddressSanitizer must
   * catch a reader of an evicted glyph. */
  (void)bytes;
  for (struct glyph_entry *next; batch; batch = next) {
    next = batch->queue_next;
    uncharge_key(cache, batch->key);
    ftpool__glyph_entry_free(cache, batch);
  }
#else
  counter_add_relaxed(&cache->awaiting, bytes);
  /* Release pairs with a pinning reader's acquire: one that pins this
   * epoch or later sees the unlinks above. */
  uint64_t epoch = u64_add_release(&cache->epoch, 1);
  for (struct glyph_entry *next; batch; batch = next) {
    next = batch->queue_next;
    batch->retired_at = epoch;
    batch->queue_next = NULL;
    if (cache->retired_tail)
      cache->retired_tail->queue_next = batch;
    else
      cache->retired_head = batch;
    cache->retired_tail = batch;
  }
#endif
  reclaim_held(cache);
}

enum glyph_room ftpool__glyph_make_room(struct glyph_cache *cache,
                                        size_t need) {
  if (!take_token(cache))
    return GLYPH_ROOM_NONE;
  take_incoming(cache);
  reclaim_held(cache);
  struct glyph_entry *batch = NULL;
  size_t bytes = 0, count = 0;
  size_t awaiting = counter_load_relaxed(&cache->awaiting);
  /* Why, if no room is made: every byte reserved by misses in progress,
   * unless what awaits reclamation stopped the eviction. */
  enum glyph_room short_of = GLYPH_ROOM_NONE;
  while (counter_load_relaxed(&cache->bytes) + need > cache->budget) {
    struct glyph_entry *e = next_victim(cache);
    if (!e)
      break;
    /* What awaits reclamation stays within the budget too. */
    if (awaiting + bytes + e->bytes > cache->budget) {
      short_of = GLYPH_ROOM_STALLED;
      break;
    }
    dequeue(cache, e);
    unlink_entry(cache, e);
    counter_sub_relaxed(&cache->bytes, e->bytes);
    counter_sub_relaxed(&cache->entries, 1);
    e->queue_next = batch;
    batch = e;
    bytes += e->bytes;
    count++;
  }
  if (batch)
    retire(cache, batch, bytes, count);
  /* Read after retiring, whose reclaim may have freed keys' charges. */
  enum glyph_room room =
      counter_load_relaxed(&cache->bytes) + need <= cache->budget ? GLYPH_ROOM
                                                                  : short_of;
  give_token(cache);
  return room;
}

void ftpool__glyph_reclaim(struct glyph_cache *cache) {
  word_store_relaxed(&cache->reclaim_wanted, 1);
  fence_seq_cst(); /* pairs with give_token's */
  if (!take_token(cache))
    return; /* its holder will */
  word_store_relaxed(&cache->reclaim_wanted, 0);
  reclaim_held(cache);
  give_token(cache);
}
