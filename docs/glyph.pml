/* SPDX-License-Identifier: MIT */
/*
 * docs/glyph.pml: a Promela model of the glyph cache's reclamation
 * (docs/design.md, "The glyph cache's reclamation"), as lib/glyph_cache.c
 * (the pin, the acquires' looked_up flags and the reader's count of them,
 * ftpool__glyph_hold_end: the unpin, the quiescent point), lib/glyph_evict.c,
 * lib/instance.c (put_down: an acquire's last give-back), lib/per_thread.c
 * (oldest_pin, ftpool_quiescent, on_thread_exit) and lib/fork.c (classify:
 * the pins of gone threads cleared) implement it for the per-thread
 * backend. Checked by scripts/model_check.sh:
 *
 *   spin -a glyph.pml
 *   gcc -O2 -DSAFETY -DCOLLAPSE -DMEMLIM=2048 -o pan pan.c && ./pan -m100000
 *
 * (exhaustive: COLLAPSE compresses stored states without loss). Add -DNAME
 * to spin's command line for a negative control below, or -DPROBE=n to
 * check that probe n (REACH) is reached.
 *
 * One Promela step is one atomic operation on shared state, as in the other
 * models: a load or store of a bucket's head, of an entry's `next`, of the
 * epoch, of a reader's pin, of the token; a CAS. Spin's interleavings are
 * sequentially consistent: the seq_cst fences (the pin's, between its store
 * and the reader's first load of a chain; reclamation's, between the
 * retirement and the loads of the pins) are what make that sound for the
 * store-buffer pattern between a pinning reader and the evictor, so the
 * pin is two steps, the load of the epoch and the store of the pin, with
 * any other thread's steps in between. Reads of an entry's immutable fields
 * (its key) go with the load of its `next`. Accesses to data that is
 * private at that moment (a new entry before its CAS, the token holder's
 * queue, batch and the fields of its retired entries) are folded into the
 * neighbouring step. So are loads whose value no other thread can change
 * in between (the victim's `next`, with the token's exchange: only the
 * holder writes a link inside a chain; the holder's own pin, and
 * `awaiting`, with the first step of a reclaim), and, where no outcome can
 * differ, take_token's load with its exchange, the clearing of
 * reclaim_wanted with the take before it, give_token's load of
 * reclaim_wanted with its take_token, and `awaiting`'s increment with the
 * epoch's. The ghost variables observe; they change inside the step they
 * describe.
 *
 * What is modelled: NT threads, each with its own context (a reader), one
 * bucket whose chain starts as entry 0 (key 0) -> entry 1 (key 1); key 2 is
 * not cached, and misses on it may make two copies.
 *
 * Pins are per acquire. A thread holds up to two fonts, nested: the outer,
 * held from its start (having looked nothing up; once given back, acquired
 * again by the next lookup), and an inner one, acquired and given back
 * while the outer is held. Each acquire has a
 * looked_up flag; a lookup under one whose flag is clear sets it and counts
 * it in the context's `holds`, then pins if the context is not pinned (the
 * epoch's load, then the pin's store). The last give-back of an acquire
 * whose flag is set clears it and counts it out; at 0 the context unpins
 * (the pin's store of 0, then, if anything awaits, a reclaim: ask for it,
 * and take the token or leave it to the holder). A give-back of an acquire
 * that looked nothing up changes no pin, so an outer font that looks
 * nothing up keeps no pin past its inner fonts' give-backs. A quiescent
 * point (ftpool_quiescent, by a thread that holds fonts) unpins as a
 * give-back does and clears every flag and `holds`; the next lookup pins
 * again, at the then-current epoch. The glyphs got under an acquire are
 * read until its give-back or the thread's next quiescent point, whichever
 * comes first: the model keeps them per acquire and reads each (asserting
 * it is not freed) at that point, in the step of the unpin's store when
 * there is one. A read any earlier would check less: a freed entry stays
 * freed. Give-backs are last in, first out: with two acquires, which of
 * them is the outer is only a name.
 *
 * Thread t makes OPSt calls, each a nondeterministic choice among MENUt
 * of: a hit on key 0 or 1 (under the outer or the inner font, when it
 * holds both; when it holds none, it acquires the outer first: pin if not
 * pinned, load the head, walk); a miss on key 2 (likewise; pin if not
 * pinned, search, publish by CAS, search again after a failed CAS); an
 * eviction, while pinned as make_room is inside a miss (take the token;
 * unlink any linked entry, at the head by CAS or inside the chain by a
 * store; retire it with the epoch; reclaim; give the token back, serving a
 * request); a give-back (of the inner font if it holds one, else of the
 * outer, if it looked something up: else it changes nothing); the acquire
 * of the inner font, while it holds the outer only; a quiescent point,
 * while pinned (else it changes nothing). Then it exits: on_thread_exit
 * gives its fonts back, the inner first. Between its calls a thread may
 * fork (once in all): every other thread is gone at once, the child
 * handler clears the pins of their contexts, and the forking thread goes
 * on. After every thread has ended or is gone,
 * `init` checks that nothing retired is left (in a fork child, after one
 * more reclaim: the survivor's next), then runs ftpool_destroy's
 * ftpool__glyph_cache_fini, which frees the chain and the retired list.
 *
 * Abstracted away: bytes and the budget (reserve), the evictor's incoming
 * stack, queue and SIEVE marks (the victim is any linked entry: a
 * superset), uncached glyphs (each acquire's own, freed at its give-back),
 * more buckets (each has its own chain and head), more fonts than two at
 * once and an acquire of a font already held (its give-backs but the last
 * change nothing), the claim of contexts (each thread holds its own from
 * start to exit), and the reuse of freed memory: an entry is never
 * reallocated, so a use after free shows as FREED; instead each publishing
 * CAS asserts that the head it compares is not freed, so no freed address
 * can come back as a head (no ABA).
 *
 * The shared-mutex backend is this protocol with one acquire per reader:
 * its readers are fonts, each pinned (under the font's lock) from the first
 * lookup under its acquire to that acquire's last give-back, or to its
 * thread's quiescent point, which unpins each font the thread holds; its
 * glyphs are read until then. A model thread whose menu has no ACQ is such
 * a reader (`holds` is 0 or 1): a font given back by one thread and
 * acquired by another, under its lock, is one reader whose steps come one
 * after another, as a model thread's do; and the model's threads
 * interleave every way, so the readers one thread holds at once, which
 * take their steps in turn, are covered too. The backend's locks (the
 * fonts', and the pool's mutex around the walk of pins) only remove
 * interleavings.
 *
 * Negative controls (each must make spin break the assertion that
 * scripts/model_check.sh names; see design.md):
 *   -DFREE_AT_ONCE    retire frees the victims at once, waiting for no pin
 *   -DPIN_AFTER_READ  a pinning lookup walks the chain first, then pins
 *   -DOFF_BY_ONE      reclamation frees what was retired up to oldest + 1
 *   -DNO_FORGET       the fork child handler leaves gone threads' pins
 *   -DNO_RECHECK      a publish whose CAS failed retries the CAS on the new
 *                     head without searching it again
 *   -DEPOCH_FIRST     the eviction bumps the epoch (and takes retired_at)
 *                     before it unlinks the victim, not after
 *   -DHEAD_STORE      the evictor unlinks a head with a store, not a CAS
 *   -DNO_REQUEST      the code before da0aeaf: a reclaim that finds the
 *                     token taken gives up, and give_token is a store
 *   -DFREE_BEFORE_UNLIST  the code before da0aeaf: reclamation frees an
 *                     entry before it takes it off the retired list
 *   -DQUIESCENT_STAYS_PINNED  the quiescent point stores 0 to the pin but
 *                     leaves the context's `pinned` set, so the next lookup
 *                     walks unpinned
 *   -DUNPIN_PER_GIVEBACK  the give-back of any acquire that looked something
 *                     up unpins, whatever `holds` says, while another
 *                     acquire that looked something up still reads its
 *                     glyphs
 */

/* Bounds (scripts/model_check.sh searches four sets): threads, and for
 * each thread t the calls it makes (OPSt) and what they may be (MENUt). The
 * defaults are the first set: two threads that may make any call. */
#ifndef NT
#define NT 2            /* threads, each with its own context: a reader */
#endif
#define NE 4            /* entries: 0 and 1 cached at the start, 2 and 3 the
                           copies of key 2 that misses may make */
/* The calls, a bit set for MENUt: */
#define HIT   1         /* a hit on key 0 or 1, under a font it holds */
#define MISS  2         /* a miss on key 2, under a font it holds */
#define EVICT 4         /* an eviction (while pinned: inside a miss) */
#define GIVE  8         /* a give-back: of the inner font if it holds one,
                           else of the outer (if it looked something up) */
#define ACQ   16        /* the acquire of an inner font, while it holds the
                           outer only */
#define QUIESCENT 32    /* ftpool_quiescent (while pinned) */
#define ANY   63
#ifndef OPS0
#define OPS0 3          /* calls (its exit and a fork aside) */
#endif
#ifndef OPS1
#define OPS1 2
#endif
#ifndef OPS2
#define OPS2 2
#endif
#ifndef MENU0
#define MENU0 ANY
#endif
#ifndef MENU1
#define MENU1 ANY
#endif
#ifndef MENU2
#define MENU2 ANY
#endif
#define OPS(t)  ((t) == 0 -> OPS0 : ((t) == 1 -> OPS1 : OPS2))
#define MENU(t) ((t) == 0 -> MENU0 : ((t) == 1 -> MENU1 : MENU2))
#define INIT NT         /* init, in its final reclaim */
#define OUTER 0         /* a thread's acquires: the outer font, */
#define INNER 1         /* and the inner, acquired while the outer is held */
#define NOPIN 255       /* oldest_pin's UINT64_MAX: no reader pinned */

/* An entry's life (ghost) */
#define UNUSED   0
#define PRIVATE  1      /* made by a miss, not published yet */
#define LINKED   2      /* in the chain */
#define UNLINKED 3      /* out of the chain, not yet retired */
#define RETIRED  4      /* on the token holder's retired list */
#define FREED    5      /* freed (or a miss's copy dropped, never published) */

/* A thread (ghost) */
#define LIVE 0
#define DONE 1          /* exited: it gave its fonts back, so unpinned */
#define GONE 2          /* left behind by a fork: no further step */

/* ------------------------------------------------------ program state */
byte head;              /* the bucket's atomic head: entry + 1, 0 = NULL */
byte next[NE];          /* glyph_entry.next: entry + 1, 0 = NULL */
byte key[NE];           /* what an entry is for (hash, key, index, flags) */
byte rat[NE];           /* glyph_entry.retired_at */
byte epoch = 1;         /* cache->epoch */
byte pin[NT];           /* each context's glyph_reader.pin: 0 or an epoch */
byte tok;               /* cache->evicting; its holder + 1 (ghost: who) */
bit  wanted;            /* cache->reclaim_wanted */
byte awaiting;          /* cache->awaiting, counted in entries */
byte nalloc;            /* entries made */

/* ------------------------------------------------------------- ghost */
byte es[NE];            /* each entry's UNUSED .. FREED */
bit  lst[NE];           /* on the retired list (cache->retired_head on) */
byte st[NT];            /* each thread's LIVE, DONE, GONE */
bit  forked;
byte dying;             /* gone threads that have not stopped yet */
byte gonepin = NOPIN;   /* the oldest pin a gone thread had at the fork */
byte gc, gseen, gvis, gn, gr; /* scratch: 0 between steps */
#ifdef PROBE
byte opin[NT];          /* each thread's first pin since it last held no
                           font: its pin under the old rule */
#endif

/* Probes, that a run with -DPROBE=n must find reached (the model is not
 * vacuous; scripts/model_check.sh): 1 a hit past the head; 2 an unlink
 * inside the chain; 3 an unlink's head CAS lost to an inserter; 4 a
 * re-check after a failed CAS that finds the other copy; 5 a read of a
 * retired entry at a give-back or a quiescent point; 6 a free while a
 * reader is pinned (at a newer epoch); 7 a free, in a fork child, of an
 * entry retired after a gone thread's pin; 8 a gone thread holding the
 * token; 9 a reclaim asked for while the token was taken, carried out by
 * its holder at give_token; 10 two pinned threads gone at one fork (in the
 * second bounds); 11 an unpin at an inner font's give-back while the outer
 * is held; 12 a pin after a quiescent point, at a newer epoch than the pin
 * that point ended; 13 a free of an entry retired after the pin that a
 * thread still holding fonts took first since it last held none: one the
 * rule before (a pin from the first lookup to the give-back of the last
 * font) would have kept. */
#ifdef PROBE
#define REACH(n, cond) assert(!(PROBE == (n) && (cond)))
#else
#define REACH(n, cond) skip
#endif

/* Every dereference of an entry: never a freed one (one assertion text for
 * every site: `gr`, the entry read, is 0 between steps). */
#define READ(e) gr = (e); assert(es[gr] != FREED); gr = 0

/* After every write to the chain: it holds exactly the linked entries,
 * with no cycle, and no two equal entries. */
#define CHAIN_OK \
  gc = head; \
  do \
  :: gc != 0 -> \
     assert(!(gvis & (1 << (gc - 1))));        /* no cycle */ \
     assert(es[gc - 1] == LINKED);              /* nothing unlinked in it */ \
     assert(!(gseen & (1 << key[gc - 1])));     /* no two equal entries */ \
     gvis = gvis | (1 << (gc - 1)); \
     gseen = gseen | (1 << key[gc - 1]); \
     gc = next[gc - 1] \
  :: else -> break \
  od; \
  gc = 0; \
  do \
  :: gc < NE -> \
     assert(es[gc] != LINKED || (gvis & (1 << gc))); /* every linked one in it */ \
     gc++ \
  :: else -> break \
  od; \
  gc = 0; gseen = 0; gvis = 0

/* ------------------------------------------------------ glyph_cache.c */

/* ftpool__glyph_pin: p = u64_load_acquire(&cache->epoch); then
 * u64_store_relaxed(&reader->pin, p), fence_seq_cst(). */
inline pin_if_needed() {
  if
  :: !pinned ->
     p = epoch;
     atomic {
       pin[me] = p; pinned = 1;
#ifdef PROBE
       REACH(12, qpin != 0 && p > qpin); qpin = 0;
       if
       :: opin[me] == 0 -> opin[me] = p
       :: else
       fi;
#endif
       p = 0
     }
  :: else
  fi
}

/* search(): from cur on, to the entry equal to k (cur), or to the end (0).
 * Each step reads an entry (its key) and loads its next (acquire). */
inline search() {
  do
  :: cur == 0 -> break
  :: atomic { cur != 0 && key[cur - 1] == k -> READ(cur - 1) }; break
  :: atomic {
       cur != 0 && key[cur - 1] != k -> READ(cur - 1);
       cur = next[cur - 1]; deep = 1
     }
  od
}

/* ftpool__glyph_hit: pin, load the head (acquire), walk. */
inline hit() {
#ifndef PIN_AFTER_READ
  pin_if_needed();
#endif
  cur = head;
  search();
#ifdef PIN_AFTER_READ
  pin_if_needed();
#endif
  if
  :: cur != 0 -> gotv[a] = gotv[a] | (1 << (cur - 1)); REACH(1, deep)
  :: else
  fi;
  cur = 0; deep = 0
}

/* ftpool__glyph_miss on key k: load() makes the entry (private); reserve()
 * only counts (its make_room is the eviction call below); publish(): load
 * the head (acquire), search; an equal entry found: free the copy, use
 * that; else e->next = head, CAS (acq_rel), and on failure search again
 * from the head the CAS saw. The push on the evictor's incoming stack is
 * not modelled (any linked entry may be the victim). */
inline miss() {
  pin_if_needed();
  if
  :: atomic {
       nalloc < NE -> mine = nalloc + 1; nalloc++;
       key[mine - 1] = k; es[mine - 1] = PRIVATE;
       hd = head                          /* publish: ptr_load_acquire */
     };
     do
     :: true ->
#ifdef NO_RECHECK
        if
        :: !retried -> cur = hd; search()
        :: else -> cur = 0
        fi;
#else
        cur = hd;
        search();
#endif
        if
        :: cur != 0 ->                    /* another copy won */
           atomic {
             es[mine - 1] = FREED;        /* never published */
             gotv[a] = gotv[a] | (1 << (cur - 1));
             REACH(4, retried)
           };
           break
        :: else
        fi;
        atomic {
          /* The head it compares is not freed, so no freed entry's address
           * can come back as the head (no ABA). */
          assert(hd == 0 || es[hd - 1] != FREED);
          next[mine - 1] = hd;            /* private until the CAS */
          if
          :: head == hd ->
             head = mine; es[mine - 1] = LINKED; CHAIN_OK;
             gotv[a] = gotv[a] | (1 << (mine - 1)); ok = 1
          :: else -> hd = head; retried = 1
          fi
        };
        if
        :: ok -> break
        :: else
        fi
     od
  :: else                                 /* no copy left in the model */
  fi;
  mine = 0; hd = 0; cur = 0; ok = 0; retried = 0; deep = 0
}

/* ------------------------------------------------------- glyph_evict.c */

/* reclaim_held, by the token holder: if its retired list is not empty
 * (awaiting counts it, and only the token holder changes it),
 * fence_seq_cst(), then oldest_pin: one acquire load per context (its own
 * with the first step); then, while the list's head (the oldest retired)
 * has retired_at <= oldest: take it off the list (and off `awaiting`), then
 * free it, two steps, between which a fork may leave the list to the
 * child's ftpool_destroy. */
inline reclaim_held() {
  if
  :: atomic {
       awaiting != 0 ->
       oldest = NOPIN;
       if                                 /* its own pin: only it writes it */
       :: me < NT && pin[me] != 0 -> oldest = pin[me]
       :: else
       fi;
       t = 0
     };
     do
     :: t == me -> t++
     :: t < NT && t != me ->
        atomic {
          if
          :: pin[t] != 0 && pin[t] < oldest -> oldest = pin[t]
          :: else
          fi;
          t++
        }
     :: else -> break
     od;
     do
     :: atomic {
          /* e = cache->retired_head: the listed entry retired first */
          t = 0; fe = 0;
          do
          :: t < NE ->
             if
             :: lst[t] && (fe == 0 || rat[t] < rat[fe - 1]) -> fe = t + 1
             :: else
             fi;
             t++
          :: else -> break
          od;
          t = 0;
          if
#ifdef OFF_BY_ONE
          :: fe != 0 && rat[fe - 1] <= oldest + 1 ->
#else
          :: fe != 0 && rat[fe - 1] <= oldest ->
#endif
#ifdef FREE_BEFORE_UNLIST
             es[fe - 1] = FREED            /* the loop before da0aeaf */
#else
             lst[fe - 1] = 0; awaiting--   /* off the list first */
#endif
          :: else -> fe = 0
          fi
        };
        if
        :: fe == 0 -> break
        :: else
        fi;
        atomic {
#ifdef FREE_BEFORE_UNLIST
          lst[fe - 1] = 0; awaiting--;
#else
          es[fe - 1] = FREED;              /* ftpool__glyph_entry_free */
#endif
          REACH(6, oldest != NOPIN);
          REACH(7, forked && me != INIT && rat[fe - 1] > gonepin);
#ifdef PROBE
          t = 0;
          do
          :: t < NT -> REACH(13, opin[t] != 0 && opin[t] < rat[fe - 1]); t++
          :: else -> break
          od;
          t = 0;
#endif
          fe = 0
        }
     od;
     t = 0; oldest = 0; fe = 0
  :: else
  fi
}

/* give_token: store_release(evicting, 0), fence_seq_cst(); then if a
 * reclamation was asked for (load of reclaim_wanted) and the token can be
 * taken again (take_token), clear the request, reclaim, and give it back
 * again. */
inline give_token() {
#ifdef NO_REQUEST
  tok = 0                                 /* before da0aeaf: a store */
#else
  do
  :: tok = 0;
     if
     :: atomic { wanted && tok == 0 -> tok = me + 1; wanted = 0; REACH(9, me < NT) };
        reclaim_held()
     :: else -> break
     fi
  od
#endif
}

/* ftpool__glyph_reclaim: store_relaxed(reclaim_wanted, 1), fence_seq_cst();
 * take_token; taken: return (its holder will); else clear the request,
 * reclaim, give the token back. */
inline reclaim() {
#ifndef NO_REQUEST
  wanted = 1;
#endif
  if
  :: atomic { tok == 0 -> tok = me + 1; wanted = 0 };
     reclaim_held();
     give_token()
  :: else
  fi
}

/* ftpool__glyph_hold, at the start of a lookup: the acquire it is made
 * under (when the thread holds none, it acquires the outer font first: the
 * lookup after a give-back of its last font), whose looked_up flag, if
 * clear, it sets, counting it in the context's `holds`. */
inline under() {
  atomic {
    if
    :: held == 0 -> held = 1 << OUTER; a = OUTER
    :: held & (1 << OUTER) -> a = OUTER
    :: held & (1 << INNER) -> a = INNER
    fi;
    if
    :: !(looked & (1 << a)) -> looked = looked | (1 << a); holds++
    :: else
    fi
  }
}

/* The last reads of the entries in the set s, which is then empty. */
inline read_got(s) {
  t = 0;
  do
  :: t < NE ->
     if
     :: s & (1 << t) -> READ(t); REACH(5, es[t] == RETIRED)
     :: else
     fi;
     t++
  :: else -> break
  od;
  t = 0; s = 0
}

/* The end of glyph_cache.c's unpin, after u64_store_release(&reader->pin,
 * 0): fence_seq_cst(); then, if anything awaits (counter_load_relaxed),
 * reclaim. `unp` says the step before stored the 0. */
inline unpin_rest() {
  if
  :: unp && awaiting != 0 -> unp = 0; reclaim()
  :: unp && awaiting == 0 -> unp = 0
  :: !unp
  fi
}

/* put_down's ftpool__glyph_hold_end, at an acquire's last give-back (and
 * so at thread exit, for each font held): the inner font's if it holds
 * one, else the outer's. The last reads of what was got under it; then,
 * if a lookup was made under it, clear its flag and count it out of
 * `holds`; at 0, unpin: store_release(pin, 0) (with the reads: the reads
 * happen before it), then unpin_rest. */
inline give_back() {
  atomic {
    if
    :: held & (1 << INNER) -> a = INNER
    :: else -> a = OUTER
    fi;
    read_got(gotv[a]);
    held = held & ~(1 << a);
    if
    :: looked & (1 << a) ->
       looked = looked & ~(1 << a); holds--;
       if
#ifdef UNPIN_PER_GIVEBACK
       :: pinned -> unp = 1                /* whatever `holds` says */
#else
       :: holds == 0 && pinned -> unp = 1
#endif
       :: else
       fi
    :: else                               /* nothing looked up: no pin */
    fi;
    if
    :: unp ->
       pin[me] = 0; pinned = 0;
       REACH(11, a == INNER && (held & (1 << OUTER)))
    :: else
    fi;
#ifdef PROBE
    if
    :: held == 0 -> opin[me] = 0
    :: else
    fi;
#endif
    a = 0
  };
  unpin_rest()
}

/* ftpool_quiescent, by a thread that holds fonts, while pinned (else it
 * changes nothing): the last reads of every glyph got under any acquire
 * (none is read after it); every held acquire's flag cleared, and
 * `holds`; the unpin: store_release(pin, 0), then unpin_rest. The next
 * lookup pins again. */
inline quiescent() {
  atomic {
    read_got(gotv[OUTER]);
    read_got(gotv[INNER]);
    looked = 0; holds = 0;
#ifdef PROBE
    qpin = pin[me];
#endif
    pin[me] = 0;
#ifndef QUIESCENT_STAYS_PINNED
    pinned = 0;
#endif
    unp = 1
  };
  unpin_rest()
}

/* unlink_entry(v): the head by CAS (release), retried on failure (an
 * inserter pushed in front); else the walk to the predecessor, over links
 * that only the token holder writes, and ptr_store_release(&pred->next). */
inline unlink() {
  hd = head;
  do
  :: hd == v ->
     atomic {
       if
#ifdef HEAD_STORE
       :: true ->
#else
       :: head == hd ->
#endif
          head = nx; es[v - 1] = UNLINKED; CHAIN_OK; ok = 1
       :: else -> hd = head; REACH(3, true)
       fi
     };
     if
     :: ok -> ok = 0; break
     :: else
     fi
  :: hd != v ->
     atomic {
       cur = hd;
       do
       :: next[cur - 1] != v -> cur = next[cur - 1]; assert(cur != 0)
       :: else -> break
       od;
       next[cur - 1] = nx; es[v - 1] = UNLINKED; CHAIN_OK; REACH(2, true);
       cur = 0
     };
     break
  od;
  hd = 0
}

/* ftpool__glyph_make_room's eviction of one victim. take_token: exchange
 * (acquire); taken: insert nothing. The victim is any linked entry (a
 * superset of SIEVE's choice over the queue); its next is loaded with the
 * choice (only the token holder writes a link inside a chain). retire():
 * awaiting += its bytes, R = fetch_add(epoch, 1) + 1 (release), retired_at
 * = R, appended to the retired list; then reclaim_held; give_token. (The
 * reclaim that make_room runs first is not modelled: a reclaim call then
 * an eviction.) */
inline evict() {
  if
  :: atomic {
       tok == 0 -> tok = me + 1;
       if
       :: es[0] == LINKED -> v = 1
       :: es[1] == LINKED -> v = 2
       :: es[2] == LINKED -> v = 3
       :: es[3] == LINKED -> v = 4
       :: else -> v = 0
       fi;
       if
       :: v != 0 -> nx = next[v - 1]
       :: else
       fi
     };
     if
     :: v != 0 ->
#ifdef EPOCH_FIRST
        atomic { epoch++; rat[v - 1] = epoch };
#endif
        unlink();
        atomic {
#if defined(FREE_AT_ONCE)
          es[v - 1] = FREED;
#elif defined(EPOCH_FIRST)
          awaiting++; es[v - 1] = RETIRED; lst[v - 1] = 1;
#else
          awaiting++; epoch++; rat[v - 1] = epoch;
          es[v - 1] = RETIRED; lst[v - 1] = 1;
#endif
          v = 0; nx = 0
        };
        reclaim_held()
     :: else
     fi;
     give_token()
  :: else                                 /* the token is taken */
  fi
}

/* -------------------------------------------------------------- fork.c */

/* fork() by thread `me`: every other live thread is gone; in the child, the
 * handler (in_child, classify) clears the pin of every held context whose
 * holder is not the survivor (ftpool__glyph_reader_forget). A context whose
 * thread exited is FREE: classify skips it, and its pin is 0 already. */
inline fork_body() {
  forked = 1;
  t = 0;
  do
  :: t < NT ->
     if
     :: t != me && st[t] == LIVE ->
        st[t] = GONE; dying++;
        if
        :: pin[t] != 0 && pin[t] < gonepin -> gonepin = pin[t]
        :: else
        fi;
        REACH(8, tok == t + 1);
        if
        :: pin[t] != 0 -> gn++            /* gone, pinned (ghost) */
        :: else
        fi;
#ifdef PROBE
        opin[t] = 0;
#endif
#ifndef NO_FORGET
        pin[t] = 0
#endif
     :: t != me && st[t] == DONE -> assert(pin[t] == 0)
     :: else
     fi;
     t++
  :: else -> break
  od;
  REACH(10, gn == 2);
  t = 0; gn = 0
}

proctype thread(byte me; byte menu) {
  byte ops;             /* calls made */
  bit  pinned;          /* glyph_reader.pinned */
  byte p;               /* the epoch the pin loaded */
  byte held = 1 << OUTER; /* the acquires it holds: a set (the outer font,
                           from the start) */
  byte looked;          /* those whose glyph_hold.looked_up is set: a set */
  byte holds;           /* glyph_reader.holds: how many */
  byte gotv[2];         /* the entries got under each acquire: sets */
  byte a;               /* the acquire a lookup is under, or given back */
  bit  unp;             /* the step before unpinned: unpin_rest to run */
#ifdef PROBE
  byte qpin;            /* the pin its last quiescent point ended (ghost) */
#endif
  byte k;               /* the key of a lookup */
  byte cur;             /* a walk's cursor: entry + 1 */
  byte hd;              /* a head seen */
  byte mine;            /* a miss's copy: entry + 1 */
  byte v, nx;           /* the victim + 1, its next */
  byte oldest, t, fe;   /* a reclaim's oldest pin, a cursor, the entry + 1 */
  bit  ok, retried, deep;

  {
  do
  :: ops < OPS(me) ->
     ops++;
     if
     :: atomic { menu & HIT -> k = 0; under() }; hit()
     :: atomic { menu & HIT -> k = 1; under() }; hit()
     :: atomic { menu & MISS -> k = 2; under() }; miss()
     :: menu & EVICT && pinned -> evict()
     :: menu & GIVE && (looked != 0 || (held & (1 << INNER))) -> give_back()
     :: menu & ACQ && held == (1 << OUTER) -> held = held | (1 << INNER)
     :: menu & QUIESCENT && pinned && held != 0 -> quiescent()
     fi;
     atomic { k = 0; a = 0 }

  /* fork() between two calls (once in all); the gone threads stop before
   * the child goes on. */
  :: atomic { !forked -> fork_body() };
     dying == 0

  /* The thread exits: on_thread_exit gives its fonts back, the inner
   * first (the give-back of an outer font that looked nothing up, which
   * changes nothing, is left out). */
  :: ops == OPS(me) ->
     do
     :: looked != 0 || (held & (1 << INNER)) -> give_back()
     :: else -> break
     od;
     st[me] = DONE;
     break
  od
  } unless {
    atomic {
      st[me] == GONE ->
      dying--;
      ops = 0; pinned = 0; p = 0; held = 0; looked = 0; holds = 0;
      gotv[0] = 0; gotv[1] = 0; a = 0; unp = 0;
#ifdef PROBE
      qpin = 0;
#endif
      k = 0; cur = 0; hd = 0; mine = 0;
      v = 0; nx = 0; oldest = 0; t = 0; fe = 0; ok = 0; retried = 0; deep = 0
    }
  }
}

init {
  byte me = INIT;
  byte oldest, t, fe;
  bit stuck;

  atomic {
    head = 1; next[0] = 2;
    key[0] = 0; key[1] = 1;
    es[0] = LINKED; es[1] = LINKED;
    nalloc = 2;
    t = 0;
    do
    :: t < NT -> run thread(t, MENU(t)); t++
    :: else -> break
    od;
    t = 0
  }

  (_nr_pr == 1);                          /* every thread ended or is gone */

  /* Progress. With no fork, every thread gave its fonts back and nothing
   * retired may be left: each retirement reclaims, and each unpin that
   * finds something awaiting reclaims or has the token's holder reclaim.
   * In a fork child, the survivor's next reclaim (the next give-back that
   * finds something awaiting, or make_room) frees it, the gone threads'
   * pins being cleared; unless a gone thread holds the token, which then
   * stays taken in the child (no eviction there again). */
  if
  :: !forked -> assert(tok == 0 && !wanted)
  :: forked && tok == 0 -> reclaim()
  :: forked && tok != 0 -> assert(st[tok - 1] == GONE); stuck = 1
  fi;
  t = 0;
  d_step {
    t = 0;
    do
    :: t < NE ->
       assert(stuck || es[t] != RETIRED);  /* retired, never freed */
       assert(stuck || es[t] != UNLINKED);
       t++
    :: else -> break
    od;
    t = 0
  }

  /* ftpool_destroy's ftpool__glyph_cache_fini, single-threaded: frees the
   * chain's entries and the retired list's, each once; what is left is a
   * gone thread's (its unpublished copy, its unlinked victims, the entry
   * its reclaim had taken off the list). */
  d_step {
    t = head;
    do
    :: t != 0 -> assert(es[t - 1] == LINKED); es[t - 1] = FREED; t = next[t - 1]
    :: else -> break
    od;
    t = 0;
    do
    :: t < NE ->
       if
       :: lst[t] -> assert(es[t] != FREED); es[t] = FREED; lst[t] = 0
       :: else
       fi;
       t++
    :: else -> break
    od;
    t = 0;
    do
    :: t < NE ->
       assert(es[t] == UNUSED || es[t] == FREED || forked);
       t++
    :: else -> break
    od;
    t = 0
  }
}
