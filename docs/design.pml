/* SPDX-License-Identifier: MIT */
/*
 * docs/design.pml: a Promela model of ftpool's per-thread context life cycle
 * and its cross-thread close protocol (docs/design.md, "A context" to
 * "Thread-specific data and exit"), as lib/context.c, lib/registry.c and
 * lib/per_thread.c implement it. Checked by scripts/model_check.sh:
 *
 *   spin -a design.pml
 *   gcc -O2 -DSAFETY -DCOLLAPSE -DMEMLIM=2048 -o pan pan.c && ./pan -m100000
 *
 * (exhaustive: COLLAPSE compresses stored states without loss). Add -DNAME
 * to spin's command line for a negative control below.
 *
 * One Promela step is one C11 atomic operation on shared state: a load, a
 * store, a CAS (success or failure) or an exchange of a context's `mail`
 * word or of the registry head. Accesses to data that is private at that
 * moment (a record's `next` after the exchange took it, a new context before
 * publication, `rec->owner` after the face was handed over) are folded into
 * the neighbouring step. The `ghost` variables are the model's observers, not
 * program state; they are updated inside the step they describe.
 *
 * Negative controls (each must make spin report an error; see
 * scripts/model_check.sh and design.md's last section):
 *   -DRELEASE_STORE      context_release stores FREE instead of its CAS loop
 *   -DPOST_ALWAYS        context_hand_over posts even when it finds FREE
 *   -DCLAIM_LOAD_STORE   context_try_claim is a load, then a store
 *   -DDRAIN_LOAD_STORE   context_drain_mail is a load, then a store of HELD
 *   -DLINK_AFTER_POST    hand_over sets rec->next after its CAS, not before
 *   -DRELEASE_ONCE       context_release tries its CAS once and gives up
 *   -DCLOSE_IN_OWNER     pt_close closes directly in the owner's library
 *                        without holding it (only the busy counter watches)
 *   -DLATE_ATTACH        a call after the thread's key destructor attaches
 *                        again instead of borrowing
 *   -DLATE_FIRST_CALL    (not a mutation: the real code) a thread that never
 *                        called the pool makes its first call from another
 *                        key's destructor in libc's last destructor round
 */

#define NT 3            /* threads */
#define NF 2            /* faces (face_rec records) */
#define NC 4            /* room for contexts; new_context asserts it is enough:
                           3 attaches plus 1 borrowed open is the most */

#define NONE 255        /* no context */

/* The `mail` word: FREE, or HELD with the list of posted records above the
 * HELD bit. A record's "address" is 2 * (face + 1): even, so bit 0 is free,
 * as a face_rec's pointer alignment leaves it in the C code. */
#define FREE 0
#define HELD 1
#define REC(f)  (2 * ((f) + 1))
#define HEAD(m) ((m) / 2)            /* the list head as face + 1; 0: empty */

/* Faces (ghost) */
#define UNUSED  0
#define OPEN    1       /* open in the library inlib[f] - 1 */
#define CLOSING 2       /* ftpool_close was called; FT_Done_Face not yet */
#define CLOSED  3

byte mail[NC];          /* struct context.mail */
byte rhead;             /* struct registry.head: context + 1, 0 = NULL */
byte rnext[NC];         /* struct context.next: context + 1, 0 = NULL */
byte fnext[NF];         /* struct face_rec.next: face + 1, 0 = NULL */
byte fowner[NF];        /* struct face_rec.owner */

byte nalloc;            /* contexts allocated (the allocator) */
byte nfaces;            /* face records allocated (the allocator) */

/* ghost */
byte holder[NC];        /* thread + 1 that holds the context; 0: none */
byte busy[NC];          /* threads inside FreeType on this context's library */
byte fstate[NF];        /* UNUSED, OPEN, CLOSING, CLOSED */
byte inlib[NF];         /* context + 1 whose FreeType library has the face */
bool alive[NT];         /* the thread ended holding its context (the thread
                           that will call ftpool_destroy: no destructor) */

/* ---------------------------------------------------------------- context.c */

/* ftpool__context_try_claim: CAS 0 -> HELD (acquire). The weak CAS's
 * spurious failures are retried by the C loop, so it is a strong CAS here. */
inline try_claim(cc, ok) {
#ifdef CLAIM_LOAD_STORE
  if
  :: mail[cc] == FREE -> ok = true
  :: else -> ok = false
  fi;
  if
  :: ok ->
     atomic { mail[cc] = HELD; assert(holder[cc] == 0); holder[cc] = me + 1 }
  :: else
  fi
#else
  atomic {
    if
    :: mail[cc] == FREE ->
       mail[cc] = HELD;
       assert(holder[cc] == 0);            /* never two holders */
       holder[cc] = me + 1;
       ok = true
    :: else -> ok = false
    fi
  }
#endif
}

/* The holder enters FreeType on cc's library (context_enter): */
#define FT_ENTER(cc) \
    assert(holder[cc] == me + 1);         /* only the holder edits a library */ \
    busy[cc]++;                                                              \
    assert(busy[cc] <= 1)                 /* nothing else inside it */

inline ft_enter(cc) {
  atomic { FT_ENTER(cc) }
}

/* ftpool__context_close: FT_Done_Face on the holder's library. The C code
 * reads rec->next before this (context_drain_mail), as the record is freed
 * by FT_Done_Face's finalizer. */
#define FT_DONE_FACE(cc, ff) \
    assert(inlib[ff] == cc + 1);          /* open, in this library */       \
    assert(fstate[ff] == CLOSING);        /* closed once, and only if asked */ \
    inlib[ff] = 0;                                                           \
    fstate[ff] = CLOSED;                                                     \
    busy[cc]--

inline context_close(cc, ff) {
  ft_enter(cc);
  atomic { FT_DONE_FACE(cc, ff) }
}

/* The same, for a record taken from the mailbox: its `next` is read first
 * (the record is private to the holder since the exchange). */
inline context_close_next(cc, ff) {
  atomic { dr = fnext[ff]; assert(fowner[ff] == cc); FT_ENTER(cc) }
  atomic { FT_DONE_FACE(cc, ff) }
}

/* ftpool__context_drain_mail: exchange mail -> HELD (acquire), then close
 * every record of the list it took. */
inline drain_mail(cc) {
#ifdef DRAIN_LOAD_STORE
  dr = HEAD(mail[cc]);
  mail[cc] = HELD;
#else
  atomic { assert(holder[cc] == me + 1); dr = HEAD(mail[cc]); mail[cc] = HELD }
#endif
  do
  :: dr != 0 ->
     df = dr - 1;
     context_close_next(cc, df);
     df = 0
  :: else -> break
  od
}

/* ftpool__context_drain: one relaxed load; the slow path if mail arrived. */
inline drain(cc) {
  if
  :: mail[cc] != HELD -> drain_mail(cc)
  :: else
  fi
}

/* ftpool__context_release: CAS HELD -> 0 (release); on failure, mail
 * arrived: drain it and try again. */
inline release(cc) {
#if defined(RELEASE_STORE)
  atomic { assert(holder[cc] == me + 1); mail[cc] = FREE; holder[cc] = 0 }
#elif defined(RELEASE_ONCE)
  if
  :: atomic {
       mail[cc] == HELD -> assert(holder[cc] == me + 1);
       mail[cc] = FREE; holder[cc] = 0
     }
  :: else
  fi
#else
  do
  :: atomic {
       mail[cc] == HELD -> assert(holder[cc] == me + 1);
       mail[cc] = FREE; holder[cc] = 0
     };
     break
  :: atomic { mail[cc] != HELD -> assert(holder[cc] == me + 1) };
     drain(cc)
  od
#endif
}

/* ftpool__context_hand_over: a closer that does not hold cc. Relaxed load;
 * FREE: claim, close, release (adopt); else push the record by CAS (release),
 * retrying with the value the failed CAS saw. */
inline hand_over(cc, ff) {
  hm = mail[cc];
  do
#ifndef POST_ALWAYS
  :: hm == FREE ->
     try_claim(cc, ok);
     if
     :: ok ->
        ok = false;
        context_close(cc, ff);
        release(cc);
        break
     :: else -> hm = mail[cc]
     fi
#endif
#ifdef POST_ALWAYS
  :: true ->
#else
  :: hm != FREE ->
#endif
     atomic {
#ifndef LINK_AFTER_POST
       fnext[ff] = HEAD(hm);              /* rec->next: private until posted */
#endif
       if
       :: mail[cc] == hm -> mail[cc] = REC(ff) | HELD; ok = true
       :: else -> hm = mail[cc]; ok = false
       fi
     }
     if
     :: ok ->
#ifdef LINK_AFTER_POST
        fnext[ff] = HEAD(hm);
#endif
        ok = false;
        break
     :: else
     fi
  od;
  hm = 0
}

/* --------------------------------------------------------------- registry.c */

/* ftpool__registry_claim_free: walk from the head (acquire load); skip a
 * held context (relaxed load), else try to claim it. cc = NONE if none. */
inline claim_free(cc) {
  rr = rhead;
  do
  :: rr == 0 -> cc = NONE; break
  :: rr != 0 ->
     cc = rr - 1;
     if
     :: mail[cc] != FREE -> rr = rnext[cc]
     :: else ->
        try_claim(cc, ok);
        if
        :: ok -> ok = false; rr = 0; break
        :: else -> rr = rnext[cc]
        fi
     fi
  od
}

/* new_context (per_thread.c): allocate, FT_New_Library, configure callback,
 * context_init (mail = HELD), all private; then ftpool__registry_publish:
 * relaxed load of the head, CAS (release) until it takes. */
inline new_context(cc) {
  atomic {
    assert(nalloc < NC);                  /* the model's bound, see design.md */
    cc = nalloc;
    nalloc++;
    mail[cc] = HELD;
    holder[cc] = me + 1;
    rr = rhead                            /* the relaxed load of the head */
  }
  do
  :: atomic {
       rnext[cc] = rr;                    /* c->next: private until published */
       if
       :: rhead == rr -> rhead = cc + 1; rr = 0; break
       :: else -> rr = rhead
       fi
     }
  od
}

/* claim_or_create (per_thread.c). Fork recovery is not modelled. */
inline claim_or_create(cc) {
  claim_free(cc);
  if
  :: cc == NONE -> new_context(cc)
  :: else
  fi
}

/* -------------------------------------------------------------- per_thread.c */

/* own_context: the thread's held context (drained), or attach, or, after
 * the key destructor ran, a borrowed one. */
inline own_context(cc) {
  borrowed = false;
  if
  :: ctx != NONE -> drain(ctx); cc = ctx
#ifdef LATE_ATTACH
  :: ctx == NONE -> claim_or_create(cc); ctx = cc       /* attach */
#else
  :: ctx == NONE && exiting -> claim_or_create(cc); borrowed = true
  :: ctx == NONE && !exiting -> claim_or_create(cc); ctx = cc  /* attach */
#endif
  fi
}

/* pt_open on face record ff. */
inline pt_open(ff) {
  own_context(c);
  ft_enter(c);
  atomic {                                /* FT_Open_Face; rec->owner = c */
    inlib[ff] = c + 1;
    fowner[ff] = c;
    fstate[ff] = OPEN;
    busy[c]--
  }
  if
  :: borrowed -> borrowed = false; release(c)
  :: else
  fi;
  c = 0
}

/* pt_close on face record ff: drain our own context (if we hold one), then
 * close directly if the face is ours, else hand it over. o is rec->owner,
 * read in TAKE_FACE: it is fixed once the face is open. */
inline pt_close(ff) {
  if
  :: ctx != NONE -> drain(ctx)
  :: else
  fi;
  if
#ifdef CLOSE_IN_OWNER
  :: true ->
     atomic { busy[o]++; assert(busy[o] <= 1) }
     atomic {
       assert(inlib[ff] == o + 1); assert(fstate[ff] == CLOSING);
       inlib[ff] = 0; fstate[ff] = CLOSED; busy[o]--
     }
#else
  :: o == ctx -> context_close(o, ff)
  :: else -> hand_over(o, ff)
#endif
  fi;
  o = 0
}

/* The user's side of ftpool_close's contract: a face is closed once, by any
 * thread, after the thread that used it last handed it over. */
#define TAKE_FACE(i) \
  atomic { fstate[i] == OPEN -> fstate[i] = CLOSING; f = i; o = fowner[i] }

proctype thread(byte me) {
  byte ctx = NONE;      /* the key's value (and last_used's mirror of it) */
  bool exiting;         /* ftpool__platform_exiting(): our key destructor ran */
  bool borrowed;
  byte c;               /* the context of one open */
  byte f;               /* the face record of one open or close */
  byte o;               /* rec->owner in a close */
  byte hm;              /* hand_over's `seen` */
  bool ok;              /* a CAS's result */
  byte dr, df;          /* drain: the list taken, the record being closed */
  byte rr;              /* the registry cursor, or the head seen by publish */

  do
  /* ftpool_open_*: a new face record, opened on our context. */
  :: atomic { nfaces < NF -> f = nfaces; nfaces++ };
     pt_open(f);
     f = 0

  /* ftpool_close of any open face, ours or another thread's. */
  :: TAKE_FACE(0); pt_close(f); f = 0
#if NF > 1
  :: TAKE_FACE(1); pt_close(f); f = 0
#endif
#if NF > 2
  :: TAKE_FACE(2); pt_close(f); f = 0
#endif

  /* ftpool_library before any open: attaches without opening a face. */
  :: ctx == NONE && !exiting -> own_context(c); c = 0

  /* ftpool_collect: drain our mailbox. */
  :: ctx != NONE -> drain(ctx)

  /* The thread exits; the key's destructor, on_thread_exit, releases the
   * context. The thread may call in again from another key's destructor. */
  :: ctx != NONE && !exiting ->
     exiting = true;
     release(ctx);
     ctx = NONE

  /* The thread ends for good. A thread that never attached runs no
   * destructor of ours. */
  :: ctx == NONE ->
#ifdef LATE_FIRST_CALL
     if
     :: atomic { !exiting && nfaces < NF -> f = nfaces; nfaces++ };
        /* never attached, so not exiting: a first call made
         * from another library's destructor in libc's last round attaches,
         * and no round follows to run our destructor. */
        pt_open(f);
        f = 0
     :: true
     fi;
#endif
     break

  /* Thread 0 ends holding its context: it goes on to call ftpool_destroy
   * (or lives on and never calls again). */
  :: me == 0 && ctx != NONE && !exiting -> alive[me] = true; break

  /* Only with LATE_ATTACH: a context attached after the key destructor ran;
   * no destructor round follows. */
  :: ctx != NONE && exiting -> break
  od
}

/* Is face ff in the mailbox of context cc? */
inline in_mailbox(cc, ff, found) {
  found = false;
  r = HEAD(mail[cc]);
  do
  :: r == 0 -> break
  :: r != 0 && r - 1 == ff -> found = true; break
  :: r != 0 && r - 1 != ff -> r = fnext[r - 1]
  od
}

init {
  byte i, r, c, d;
  bool found;

  atomic {
    i = 0;
    do
    :: i < NT -> run thread(i); i++
    :: else -> break
    od
  }
  (_nr_pr == 1);                          /* every thread has ended */

  /* Before ftpool_destroy: no context is held by a thread that is gone
   * (or by none), so every posted close will be carried out; every close
   * asked for is done or waits in the mailbox of a live holder. */
  d_step {
    c = 0;
    do
    :: c < nalloc ->
       assert(mail[c] == FREE || (holder[c] != 0 && alive[holder[c] - 1]));
       assert(mail[c] != FREE || holder[c] == 0);
       c++
    :: else -> break
    od;
    i = 0;
    do
    :: i < nfaces ->
       if
       :: fstate[i] == CLOSING ->
          c = fowner[i];
          assert(mail[c] != FREE && holder[c] != 0 && alive[holder[c] - 1]);
          in_mailbox(c, i, found);
          assert(found)                   /* otherwise the close is lost */
       :: else
       fi;
       i++
    :: else -> break
    od;
    i = 0; c = 0; r = 0; found = false
  }

  /* pt_destroy: no other call overlaps it. Drain every context, then
   * FT_Done_Library closes the faces still open: only faces nobody asked
   * to close (a close it carries out was lost on the way). */
  r = rhead;
  do
  :: r != 0 ->
     c = r - 1;
     d = HEAD(mail[c]);
     mail[c] = HELD;
     do
     :: d != 0 ->
        i = d - 1;
        d = fnext[i];
        atomic { busy[c]++; assert(busy[c] == 1) }
        atomic {
          assert(fowner[i] == c && inlib[i] == c + 1 && fstate[i] == CLOSING);
          inlib[i] = 0; fstate[i] = CLOSED; busy[c]--
        }
     :: else -> break
     od;
     atomic {                             /* FT_Done_Library */
       assert(busy[c] == 0);
       i = 0;
       do
       :: i < nfaces ->
          if
          :: inlib[i] == c + 1 ->
             assert(fstate[i] == OPEN);   /* never asked to be closed */
             inlib[i] = 0; fstate[i] = CLOSED
          :: else
          fi;
          i++
       :: else -> break
       od
     }
     r = rnext[c]
  :: else -> break
  od;

  /* After destroy: every face opened was closed exactly once (FT_Done_Face
   * asserts it was open in that library), and the registry holds every
   * context that was made. */
  atomic {
    i = 0;
    do
    :: i < nfaces -> assert(fstate[i] == CLOSED && inlib[i] == 0); i++
    :: else -> break
    od;
    c = 0; r = rhead;
    do
    :: r != 0 -> c++; r = rnext[r - 1]
    :: else -> break
    od;
    assert(c == nalloc)
  }
}
