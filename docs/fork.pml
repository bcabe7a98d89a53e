/* SPDX-License-Identifier: MIT */
/*
 * docs/fork.pml: a Promela model of ftpool's fork() recovery (docs/design.md,
 * "fork()" and "The fork model"), as lib/fork.c, lib/context.c and
 * lib/per_thread.c implement it: a fork at any step of any thread, between
 * its calls or from a release callback (in a drain, between two records; in
 * an adoption; at exit); the child handler's marks; new threads born in the
 * child; the lazy take-over of orphans by whichever thread of the child
 * needs one, concurrent with claims, posts and adoptions; a second fork
 * (grandchild); the drain's `pending` list and `draining` flag, with a
 * release callback that closes another face of the context being drained.
 * docs/design.pml checks the context protocol without fork; this model keeps
 * its conventions (ghost `holder`, one step per atomic operation, -D
 * controls). Checked by scripts/model_check.sh, for each set of bounds:
 *
 *   spin -a -DNP=2 -DNK=1 -DNF=2 fork.pml
 *   cc -O0 -DSAFETY -DCOLLAPSE -DMEMLIM=2048 -o pan pan.c && ./pan -m100000
 *
 * (exhaustive: COLLAPSE compresses stored states without loss). Add -DNAME
 * to spin's command line for a negative control below, or -DPROBE=n to
 * check that probe n (REACH) is reached.
 *
 * One Promela step is one atomic operation on shared state. A fork is one
 * step too: the forking thread's fork() and, in the child, the child
 * handler, which runs while the child has one thread. Every other thread is
 * gone: its process ends at its next step (the `unless` escape), before
 * anything else runs in the child, and its local state goes with it; its
 * contexts keep whatever it had written.
 *
 * Negative controls (each must make spin break the assertion that
 * scripts/model_check.sh names; see design.md):
 *   -DLAZY_RECOVERY     the old design: the handler only counts forks; the
 *                       first thread of the child that needs another's
 *                       context wins an election and judges each HELD
 *                       context by its stamp (fork generation, holder token)
 *   -DTLS_TOKENS        a thread born in a child may get the id of a thread
 *                       the fork left behind (ids were TLS addresses)
 *   -DLOCAL_DRAIN       the drain takes the mailbox into a local list
 *   -DEXCHANGE_NOT_BUSY the drain's exchange into `pending` is outside the
 *                       busy bracket
 *   -DUNSTAMP_EARLY     context_release unstamps before it drains
 *   -DKEEP_DRAINING     take_orphan does not reset the gone holder's
 *                       `draining` flag
 *   -DNO_QUARANTINE     the child handler ignores `busy`: a context left
 *                       half-edited is orphaned like any other
 *   -DHINT_AFTER_WALK   fork_recover clears the registry's `orphans` hint
 *                       after its walk instead of before
 */

#ifndef NP
#define NP 2            /* threads running before the first fork */
#endif
#ifndef NK
#define NK 1            /* threads that may be born in a child */
#endif
#define NT (NP + NK)
#ifndef NF
#define NF 2            /* face records */
#endif
#ifndef MAXFORK
#define MAXFORK 2       /* forks, one after the other: a child, a grandchild */
#endif
#define NC NT           /* contexts: each thread attaches at most once */
#define DESTROYER NT    /* init, the thread that calls ftpool_destroy */
#define NONE 255

/* The `mail` word, as in design.pml: FREE, or HELD with the list of posted
 * records above the HELD bit; a record's "address" is 2 * (face + 1). */
#define FREE 0
#define HELD 1
#define REC(f)  (2 * ((f) + 1))
#define HEAD(m) ((m) / 2)            /* the list head as face + 1; 0: empty */

/* Faces (ghost) */
#define UNUSED  0
#define OPEN    1       /* open in the library inlib[f] - 1 */
#define CLOSING 2       /* ftpool_close was called; FT_Done_Face not yet */
#define CLOSED  3

/* Threads (ghost) */
#define UNBORN   0      /* not created yet (only threads born in a child) */
#define LIVE     1
#define GONE     2      /* left behind by a fork: it no longer exists */
#define DONE     3      /* exited; its key destructor released its context */
#define LIVES_ON 4      /* ended holding its context: lives on, never calls */
#define ALIVE(t) (st[t] == LIVE || st[t] == LIVES_ON)

/* ------------------------------------------------------ program state */
byte mail[NC];          /* struct context.mail */
byte stamp[NC];         /* struct context.holder: the holder's id, 0: none */
bit  busy[NC];          /* struct context.busy */
bit  orph[NC];          /* struct context.orphaned */
bit  quar[NC];          /* struct context.quarantined */
byte pend[NC];          /* struct context.pending: face + 1, 0 = NULL */
bit  drng[NC];          /* struct context.draining */
byte rnext[NC];         /* struct context.next: context + 1, 0 = NULL */
byte rhead;             /* struct registry.head: context + 1, 0 = NULL */
bit  hint;              /* struct registry.orphans */
byte fnext[NF];         /* struct face_rec.next: face + 1, 0 = NULL */
byte fowner[NF];        /* struct face_rec.owner */
byte tid[NT + 1];       /* each thread's thread_id (fork.c) */
#ifdef LAZY_RECOVERY
byte sgen[NC];          /* the old struct context.holder_generation */
byte pgen;              /* the old per_thread_pool.fork_generation */
byte surv;              /* the old `survivor` token */
#endif

byte nalloc;            /* contexts allocated */
byte nfaces;            /* face records allocated */
byte forks;             /* forks so far: the fork generation */
byte running = NP;      /* threads started and not ended (nor gone) */
byte dying;             /* threads a fork left behind that have not stopped */

/* ------------------------------------------------------------- ghost */
byte holder[NC];        /* thread + 1 that holds the context; 0: none */
byte st[NT + 1];        /* each thread's UNBORN, LIVE, GONE, DONE, LIVES_ON */
byte fstate[NF];        /* UNUSED, OPEN, CLOSING, CLOSED */
byte inlib[NF];         /* context + 1 whose library has the face open */
bit  posted[NF];        /* the close was posted to the face's context */
bit  closing;           /* every thread has ended: init destroys the pool */

/* Every way to become a context's holder (a claim, an adoption, a take-over,
 * a new context) goes through this: nobody alive holds it. */
#define BECOME_HOLDER(cc) \
    assert(holder[cc] == 0 || !ALIVE(holder[cc] - 1)); \
    holder[cc] = me + 1

/* Probes, that a run with -DPROBE=n must find reached (the model is not
 * vacuous): see scripts/model_check.sh. */
#ifdef PROBE
#define REACH(n, cond) assert(!(PROBE == (n) && (cond)))
#else
#define REACH(n, cond) skip
#endif

/* ftpool__fork_stamp */
#ifdef LAZY_RECOVERY
#define STAMP(cc) stamp[cc] = tid[me]; sgen[cc] = forks
#else
#define STAMP(cc) stamp[cc] = tid[me]
#endif

/* context_enter: only the holder edits its library, and never one that
 * another thread left in the middle of an edit. */
#define ENTER(cc) \
    assert(holder[cc] == me + 1); \
    assert(busy[cc] == 0); \
    busy[cc] = 1
#define LEAVE(cc) busy[cc] = 0

/* FT_Done_Face: the face is open in this library and its close asked for. */
#define FT_DONE_FACE(cc, ff) \
    assert(inlib[ff] == cc + 1 && fstate[ff] == CLOSING); \
    inlib[ff] = 0; \
    fstate[ff] = CLOSED

/* The thread's own context `ctx` needs no drain: it has none, nothing is
 * posted to it, or a drain of it runs already on this thread (a callback
 * called in): ftpool__context_drain is then one load, or a no-op. */
#define NODRAIN(x) ((x) == NONE || mail[x] == HELD || drng[x])

/* fork_recover's first load and exchange of the hint; with LAZY_RECOVERY,
 * the old election. A hint of 0 stays 0 while this thread lives: only a
 * fork sets it, and a fork by another thread ends this one. So its load,
 * when it finds 0, is folded into the next step. */
#ifdef LAZY_RECOVERY
#define JUDGED_GONE(x) \
    (mail[x] != FREE && !quar[x] && sgen[x] != forks && stamp[x] != surv)
#define NO_RECOVERY (pgen == forks)
#define START_RECOVERY pgen != forks -> pgen = forks
#elif defined(HINT_AFTER_WALK)
#define NO_RECOVERY (hint == 0)
#define START_RECOVERY hint == 1 -> skip
#else
#define NO_RECOVERY (hint == 0)
#define START_RECOVERY hint == 1 -> hint = 0
#endif

/* -------------------------------------------------------------- fork.c */

/* fork() by thread `me`: every other thread is gone; then, in the child, the
 * handler (in_child, classify) marks each HELD context whose stamp is not
 * the survivor's: quarantined if busy, else orphaned (and the hint set). The
 * registry's contexts are 0 .. nalloc - 1: a context is published in the
 * step that allocates it (an unpublished one is leaked, and invisible). */
inline fork_body() {
  forks++;
  t = 0;
  do
  :: t < NT ->
     if
     :: t != me && st[t] == LIVE -> st[t] = GONE; dying++
     :: t != me && st[t] == LIVES_ON -> st[t] = GONE
     :: else
     fi;
     t++
  :: else -> break
  od;
#ifdef LAZY_RECOVERY
  surv = tid[me];
#else
  t = 0;
  do
  :: t < nalloc ->
     REACH(5, holder[t] == me + 1 && pend[t] != 0);
     if
     :: mail[t] != FREE && !quar[t] && stamp[t] != tid[me] ->
        if
#ifndef NO_QUARANTINE
        :: busy[t] -> quar[t] = 1; REACH(2, true)
        :: else ->
#else
        :: true ->
#endif
           orph[t] = 1; hint = 1
        fi
     :: else
     fi;
     t++
  :: else -> break
  od;
#endif
  t = 0
}

/* A fork, where `cond` holds. The threads left behind stop before anything
 * else runs in the child (each process ends at its next step, through the
 * `unless` escape: the model's bookkeeping, not a step of C). */
#define FORK_STEP(cond) \
  atomic { (cond) && forks < MAXFORK && me != DESTROYER -> cb = 0; fork_body() }; \
  dying == 0

/* A callback's user picks an open face of context cc to close, where G
 * holds: ftpool_close's contract, a face is closed once, after its last use. */
inline pick_face_of(ff, cc, G) {
  atomic {
    if
    :: G && fstate[0] == OPEN && fowner[0] == cc -> ff = 0
#if NF > 1
    :: G && fstate[1] == OPEN && fowner[1] == cc -> ff = 1
#endif
#if NF > 2
    :: G && fstate[2] == OPEN && fowner[2] == cc -> ff = 2
#endif
    fi;
    fstate[ff] = CLOSING;
    cb = 0
  }
}

/* ftpool__context_hand_over's post (CAS old -> rec | HELD). */
#define POST(cc, ff) \
    fnext[ff] = HEAD(mail[cc]);          /* rec->next: private until posted */ \
    mail[cc] = REC(ff) | HELD; \
    posted[ff] = 1

/* The callback of a close made from a callback: it may fork. */
inline callback_fork() {
  if
  :: skip
  :: FORK_STEP(true)
  fi
}

/* A blob's release callback, run after a close in context cc (held by this
 * thread), outside the busy bracket. It may fork; or close (ftpool_close)
 * another face of cc, the case the `draining` flag is for. The destroyer's
 * may do neither. The nested close is bounded: its own drain is a no-op and
 * no orphan waits (otherwise it is not offered), its callback may fork.
 * A close sets `cb`; these are then alternatives of the loop the close is
 * in (a drain, or the release after an adoption), offered before its other
 * alternatives, all of which clear `cb`: so the callback runs right after
 * the close, or does nothing, at no cost of a step. (The direct close of a
 * face of the thread's own context, at the end of ftpool_close, has none:
 * its callback could only do what the thread's next call does.) */
#ifdef NO_NESTED_CLOSE
#define CALLBACKS(cc) \
  :: FORK_STEP(cb)
#else
#define CALLBACKS(cc) \
  :: FORK_STEP(cb) \
  /* cc is the thread's own context, being drained: the nested drain finds \
   * `draining` set; the face is the thread's own, closed directly. */ \
  :: atomic { \
       pick_face_of(g, cc, cb && me != DESTROYER && cc == ctx && NODRAIN(ctx)); \
       REACH(3, drng[cc]); \
       ENTER(cc) \
     }; \
     atomic { FT_DONE_FACE(cc, g); LEAVE(cc); g = 0 }; \
     callback_fork() \
  /* cc is another context (adopted, taken over as an orphan, or being \
   * released at exit): the close finds it HELD and posts to it. */ \
  :: atomic { \
       pick_face_of(g, cc, cb && me != DESTROYER && cc != ctx && \
                           NODRAIN(ctx) && NO_RECOVERY); \
       assert(mail[cc] != FREE); \
       POST(cc, g); \
       REACH(4, true); \
       g = 0 \
     }
#endif

/* ----------------------------------------------------------- context.c */

/* The exchange that moves the mailbox into `pending`, inside the busy
 * bracket (its ENTER is the step before). */
#if defined(EXCHANGE_NOT_BUSY)
#define EXCHANGE(cc) \
  atomic { LEAVE(cc); dl = HEAD(mail[cc]); mail[cc] = HELD }; \
  atomic { pend[cc] = dl; dl = 0 }
#elif defined(LOCAL_DRAIN)
#define EXCHANGE(cc) \
  atomic { dl = HEAD(mail[cc]); mail[cc] = HELD; LEAVE(cc) }; \
  local_records(cc)
#else
#define EXCHANGE(cc) \
  atomic { pend[cc] = HEAD(mail[cc]); mail[cc] = HELD; LEAVE(cc) }
#endif

/* LOCAL_DRAIN: the records taken are closed from a local list. */
inline local_records(cc) {
  do
  CALLBACKS(cc)
  :: atomic { dl != 0 -> cb = 0; df = dl - 1; dl = fnext[df]; ENTER(cc) };
     atomic {
       assert(fowner[df] == cc); FT_DONE_FACE(cc, df); LEAVE(cc); df = 0; cb = 1
     }
  :: atomic { dl == 0 -> cb = 0; break }
  od
}

/* ftpool__context_drain_mail's loop, once `draining` is set: close the
 * pending records, each in a busy bracket that also moves `pending` past
 * it, the callback after it; when none is pending, take the mailbox (the
 * ENTER, then EXCHANGE); when the mailbox is empty too, clear `draining`. */
inline drain_loop(cc) {
  do
  CALLBACKS(cc)
  :: atomic { pend[cc] != 0 -> cb = 0; df = pend[cc] - 1; ENTER(cc) };
     atomic {
       assert(fowner[df] == cc);
       pend[cc] = fnext[df];
       FT_DONE_FACE(cc, df);
       LEAVE(cc);
       df = 0;
       cb = 1
     }
  :: atomic { pend[cc] == 0 && mail[cc] != HELD -> cb = 0; ENTER(cc) };
     EXCHANGE(cc)
  :: atomic { pend[cc] == 0 && mail[cc] == HELD -> cb = 0; drng[cc] = 0; break }
  od
}

/* ftpool__context_release: drain; unstamp; CAS HELD -> 0; if it fails, mail
 * arrived: stamp again and retry. The drain's last load (HELD) and the
 * unstamp are one step: nothing runs between them. */
inline release(cc) {
#ifdef UNSTAMP_EARLY
  do
  CALLBACKS(cc)
  :: atomic { cb = 0; stamp[cc] = 0 }; break
  od;
#endif
  do
  CALLBACKS(cc)
  :: atomic { mail[cc] != HELD && !drng[cc] -> cb = 0; drng[cc] = 1; ENTER(cc) };
     EXCHANGE(cc);
     drain_loop(cc)
#ifdef UNSTAMP_EARLY
  :: atomic { mail[cc] == HELD -> cb = 0; mail[cc] = FREE; holder[cc] = 0 };
     break
#else
  :: atomic { mail[cc] == HELD -> cb = 0; stamp[cc] = 0 };
     if
     :: atomic { mail[cc] == HELD -> mail[cc] = FREE; holder[cc] = 0 };
        break
     :: atomic { mail[cc] != HELD -> STAMP(cc) }
     fi
#endif
  od
}

/* ftpool__context_close in an adoption: the bracket; then the blob's
 * release callback (CALLBACKS, in the release that follows). */
inline close_face(cc, ff) {
  atomic { ENTER(cc) };
  atomic { FT_DONE_FACE(cc, ff); LEAVE(cc); cb = 1 }
}

/* ftpool__context_hand_over, where G holds, for pt_close (which it ends:
 * fstate, dd, rc): the relaxed load only picks the CAS to try, so it is
 * folded into it. FREE: claim (CAS 0 -> HELD), stamp, close, release
 * (adopt); else post (CAS). */
inline hand_over(cc, ff, G) {
  if
  :: atomic {
       G && mail[cc] == FREE ->
       fstate[ff] = CLOSING; dd = 0; rc = 0;
       mail[cc] = HELD; BECOME_HOLDER(cc)
     };
     atomic { STAMP(cc) };
     close_face(cc, ff);
     release(cc)
  :: atomic {
       G && mail[cc] != FREE ->
       fstate[ff] = CLOSING; dd = 0; rc = 0;
       REACH(7, orph[cc]);
       POST(cc, ff)
     }
  fi
}

/* ------------------------------------------------ fork.c: fork_recover */

/* ftpool__fork_recover's walk, after the exchange of the hint (rr is the
 * registry head): for each context, ftpool__context_take_orphan (exchange
 * its mark to 0: whoever gets 1 is the holder; stamp; reset `draining`;
 * drain_mail, which finishes the gone holder's `pending` first), then
 * ftpool__context_release. The loads of marks that are 0 are folded into
 * the next exchange: a mark only goes from 1 to 0 while this thread lives
 * (as the hint). */
inline walk() {
  do
  :: atomic {
       w = NONE;
       do
       :: rr == 0 -> break
#ifdef LAZY_RECOVERY
       /* The old judgement: HELD, not quarantined, stamped before this
        * fork, by another token than the survivor's. */
       :: rr != 0 && !JUDGED_GONE(rr - 1) -> rr = rnext[rr - 1]
       :: rr != 0 && JUDGED_GONE(rr - 1) && busy[rr - 1] ->
          quar[rr - 1] = 1; rr = rnext[rr - 1]
       :: rr != 0 && JUDGED_GONE(rr - 1) && !busy[rr - 1] ->
          w = rr - 1; rr = rnext[w]; BECOME_HOLDER(w); break
#else
       :: rr != 0 && orph[rr - 1] == 0 -> rr = rnext[rr - 1]
       :: rr != 0 && orph[rr - 1] == 1 ->
          w = rr - 1; rr = rnext[w]; orph[w] = 0; BECOME_HOLDER(w);
          REACH(1, pend[w] != 0);
          REACH(6, forks == 2);
          break
#endif
       od;
       if
#ifdef HINT_AFTER_WALK
       :: w == NONE -> w = 0; hint = 0; break
#else
       :: w == NONE -> w = 0; break
#endif
       :: else
       fi
     };
#ifdef KEEP_DRAINING
     if
     :: atomic { drng[w] -> STAMP(w) }            /* drain_mail returns */
     :: atomic { !drng[w] -> STAMP(w); drng[w] = 1 };
        drain_loop(w)
     fi;
#else
     atomic { STAMP(w); drng[w] = 1 };            /* draining = false, then
                                                     drain_mail sets it */
     drain_loop(w);
#endif
     release(w)
  od
}

/* ftpool__fork_recover. */
inline recover() {
  if
  :: atomic { START_RECOVERY; rr = rhead };
     walk()
  :: atomic { NO_RECOVERY }
  fi
}

/* --------------------------------------------------------- per_thread.c */

/* pt_close of face i (a constant; its owner fowner[i] is fixed while it is
 * open): drain the thread's own context (if it has one, and no drain of it
 * runs already on this thread), then close directly if the face is its
 * own, else recover and hand it over. The user's ftpool_close (the ghost
 * CLOSING) is folded into the first step; the drain's load, when it finds
 * nothing, into the step after it. dd: past the drain; rc: past the
 * recovery. */
#define FIRST(i) (dd || fstate[i] == OPEN)
inline pt_close(i) {
  do
  :: atomic {
       FIRST(i) && !dd && !NODRAIN(ctx) ->
       fstate[i] = CLOSING; drng[ctx] = 1; ENTER(ctx); dd = 1
     };
     EXCHANGE(ctx);
     drain_loop(ctx)
  :: atomic {
       FIRST(i) && (dd || NODRAIN(ctx)) && fowner[i] == ctx ->
       fstate[i] = CLOSING; ENTER(ctx)
     };
     atomic { FT_DONE_FACE(ctx, i); LEAVE(ctx); dd = 0 };
     break
  :: atomic {
       FIRST(i) && (dd || NODRAIN(ctx)) && fowner[i] != ctx && !rc &&
       START_RECOVERY;
       fstate[i] = CLOSING; rr = rhead; dd = 1; rc = 1
     };
     walk()
  :: hand_over(fowner[i], i, FIRST(i) && (dd || NODRAIN(ctx)) &&
                             fowner[i] != ctx && (rc || NO_RECOVERY));
     break
  od
}

/* new_context: build privately (context_init stamps it), publish. The
 * allocation, the build and the publishing CAS are one step: a context a
 * fork catches unpublished is leaked and seen by nobody. */
inline new_context(cc) {
  assert(nalloc < NC);
  cc = nalloc;
  nalloc++;
  mail[cc] = HELD;
  BECOME_HOLDER(cc);
  STAMP(cc);
  rnext[cc] = rhead;
  rhead = cc + 1
}

/* attach / claim_or_create, where G holds (and, if ALLOC, for an open: the
 * face record is allocated in the first step): recover; then
 * ftpool__registry_claim_free, whose load of `mail` only picks the CAS to
 * try, so each context is one step (skip it or claim it), then the stamp;
 * or, when no context is FREE, new_context (the configure callback, which
 * runs first, may fork). */
inline attach(G, ALLOC) {
  if
  :: atomic {
       G && START_RECOVERY; rr = rhead;
       if :: ALLOC -> f = nfaces; nfaces++ :: else fi
     };
     walk();
     atomic { rr = rhead }
  :: atomic {
       G && NO_RECOVERY -> rr = rhead;
       if :: ALLOC -> f = nfaces; nfaces++ :: else fi
     }
  fi;
  do
  :: atomic { rr != 0 && mail[rr - 1] != FREE -> rr = rnext[rr - 1] }
  :: atomic {
       rr != 0 && mail[rr - 1] == FREE ->
       c = rr - 1; mail[c] = HELD; BECOME_HOLDER(c); rr = 0
     };
     atomic { STAMP(c); ctx = c; c = 0 };
     break
  :: atomic { rr == 0 -> new_context(c); ctx = c; c = 0 };
     break
  :: FORK_STEP(rr == 0);
     atomic { new_context(c); ctx = c; c = 0 };
     break
  od
}

/* FT_Open_Face on the thread's context, the bracket's second step. */
#define OPEN_FACE \
  atomic { \
    inlib[f] = ctx + 1; fowner[f] = ctx; fstate[f] = OPEN; LEAVE(ctx); f = 0 \
  }

proctype thread(byte me) {
  byte ctx = NONE;      /* the key's value: the thread's own context */
  byte c;               /* a context being claimed or built, or released */
  byte f;               /* a face being opened */
  bit dd, rc;           /* pt_close: past the drain, past the recovery */
  byte g;               /* a face closed from a callback */
  bit cb;               /* a close just ended: its callback may run */
  byte rr;              /* a registry cursor */
  byte w;               /* an orphan being taken over */
  byte df, dl;          /* drain: the record being closed, a local list */
  byte t;               /* the fork handler's loops */

  if
  :: me < NP
  :: else ->
end_unborn:
     atomic {
       forks > 0 && dying == 0 && !closing ->
       st[me] = LIVE;
       running++;
#ifdef TLS_TOKENS
       /* glibc gives the new thread the stack, so the TLS address, of a
        * thread the fork left behind */
       t = 0;
       do
       :: t < NT && st[t] == GONE -> tid[me] = tid[t]; break
       :: t < NT -> t++
       :: else -> break
       od;
       t = 0
#endif
     }
  fi;

  {
    do
    /* ftpool_open_*: a new face record, opened on the thread's context,
     * attaching on its first call. When something is posted, the open
     * drains first: the same as a collect (below), then the open. */
    :: atomic {
         nfaces < NF && ctx != NONE && mail[ctx] == HELD ->
         f = nfaces; nfaces++; ENTER(ctx)
       };
       OPEN_FACE
    :: attach(nfaces < NF && ctx == NONE, true);
       atomic { ENTER(ctx) };
       OPEN_FACE

    /* ftpool_close of any open face, the thread's or another's. */
    :: pt_close(0)
#if NF > 1
    :: pt_close(1)
#endif
#if NF > 2
    :: pt_close(2)
#endif

    /* ftpool_library before any open: attach without opening a face. */
    :: attach(ctx == NONE, false)

    /* ftpool_collect (or the drain that starts an open), when something
     * is posted. */
    :: atomic { ctx != NONE && mail[ctx] != HELD -> drng[ctx] = 1; ENTER(ctx) };
       EXCHANGE(ctx);
       drain_loop(ctx)

    /* fork(), between two calls into the pool. */
    :: FORK_STEP(true)

    /* The thread exits: the key's value is cleared, then its destructor
     * releases the context (a callback's close then finds no own context). */
    :: atomic { ctx != NONE -> c = ctx; ctx = NONE };
       release(c);
       atomic { c = 0; st[me] = DONE; running-- };
       break
    :: atomic { ctx == NONE -> st[me] = DONE; running-- };
       break

    /* The thread ends holding its context: it lives on and never calls
     * again (or it is the thread that goes on to call ftpool_destroy). */
    :: atomic { ctx != NONE -> st[me] = LIVES_ON; running-- };
       break
    od
  } unless {
    /* Left behind by a fork: this thread no longer exists. */
    atomic {
      st[me] == GONE ->
      running--; dying--;
      ctx = 0; c = 0; f = 0; dd = 0; rc = 0; g = 0; cb = 0;
      rr = 0; w = 0; df = 0; dl = 0; t = 0
    }
  }
}

/* Is face ff in the list that starts at face + 1 == r? */
inline in_list(r, ff, found) {
  do
  :: r == 0 -> break
  :: r != 0 && r - 1 == ff -> found = true; break
  :: r != 0 && r - 1 != ff -> r = fnext[r - 1]
  od
}

init {
  byte me = DESTROYER;
  byte ctx = NONE, c, f, g, rr, w, df, dl, t, r;
  bit cb;
  bool found;

  atomic {
    st[DESTROYER] = LIVE;
    tid[DESTROYER] = NT + 1;
    t = 0;
    do
    :: t < NT ->
       tid[t] = t + 1;                    /* ids are never reused */
       if
       :: t < NP -> st[t] = LIVE
       :: else
       fi;
       run thread(t);
       t++
    :: else -> break
    od;
    t = 0
  }

  /* Every thread has ended or is gone; those not born stay so. */
  atomic { running == 0 -> closing = 1 }

  /* ftpool_destroy: untrack (no fork can mark this pool now), recover. */
  recover();
  t = 0;                                  /* (spin: no jump into a d_step) */

  /* Now every context is FREE, quarantined, or held by a thread that lives
   * on (it will never call again; its closes wait for the drain below):
   * never held by a thread that is gone. And every close that was posted is
   * done, or waits in the mailbox or `pending` list of such a live holder,
   * or its context is quarantined. */
  d_step {
    c = 0;
    do
    :: c < nalloc ->
       assert(quar[c] || mail[c] == FREE ||
              (holder[c] != 0 && ALIVE(holder[c] - 1)));
       c++
    :: else -> break
    od;
    f = 0;
    do
    :: f < nfaces ->
       if
       :: posted[f] && fstate[f] != CLOSED ->
          c = fowner[f];
          found = false;
          r = HEAD(mail[c]);
          in_list(r, f, found);
          r = pend[c];
          in_list(r, f, found);
          assert(quar[c] || (mail[c] != FREE && holder[c] != 0 &&
                             ALIVE(holder[c] - 1) && found))
       :: else
       fi;
       f++
    :: else -> break
    od;
    c = 0; f = 0; r = 0; found = false
  }

  /* pt_destroy: for each context not quarantined, drain (its pending list,
   * then its mailbox), then FT_Done_Library closes the faces still open:
   * only faces whose close was never posted. */
  d_step {
    c = 0;
    do
    :: c < nalloc ->
       if
       :: !quar[c] ->
          assert(busy[c] == 0);
          if
          :: mail[c] != HELD && !drng[c] ->
             do
             :: pend[c] != 0 ->
                df = pend[c] - 1;
                assert(fowner[df] == c);
                pend[c] = fnext[df];
                FT_DONE_FACE(c, df)
             :: pend[c] == 0 && mail[c] != HELD ->
                pend[c] = HEAD(mail[c]); mail[c] = HELD
             :: pend[c] == 0 && mail[c] == HELD -> break
             od
          :: else
          fi;
          f = 0;
          do                              /* FT_Done_Library */
          :: f < nfaces ->
             if
             :: inlib[f] == c + 1 ->
                assert(!posted[f]);       /* else that close was lost */
                inlib[f] = 0; fstate[f] = CLOSED
             :: else
             fi;
             f++
          :: else -> break
          od
       :: else
       fi;
       c++
    :: else -> break
    od;

    /* After destroy: no face left open outside a quarantined library. */
    f = 0;
    do
    :: f < nfaces ->
       assert(fstate[f] == UNUSED || fstate[f] == CLOSED ||
              (inlib[f] != 0 && quar[inlib[f] - 1]));
       f++
    :: else -> break
    od;
    c = 0; f = 0; df = 0
  }
}
