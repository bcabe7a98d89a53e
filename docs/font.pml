/* SPDX-License-Identifier: MIT */
/*
 * docs/font.pml: a Promela model of a shared font's instance lifetime with
 * the per-thread backend (docs/design.md, "Shared fonts"), as lib/font.c,
 * lib/instance.c, lib/context.c and lib/per_thread.c implement it: the
 * font's reference count; its instance record in each context; acquire
 * (make or reuse), give-back, and eviction by the context's holder only; a
 * thread's exit (what it still holds is given back, the context released
 * with its warm instances for a new thread to recycle); the last release,
 * from any thread, dropping its own context's instance at once and handing
 * each other record to its context's mailbox as a font-gone mail (font_gone_mail) (posted,
 * or the context adopted if FREE); the font struct freed right after that
 * walk, the bytes (blob) when the font and every font face have dropped
 * their references; and ftpool_destroy. Checked by scripts/model_check.sh:
 *
 *   spin -a font.pml
 *   gcc -O2 -DSAFETY -DCOLLAPSE -DMEMLIM=2048 -o pan pan.c && ./pan -m100000
 *
 * Conventions as in design.pml: one Promela step is one atomic operation on
 * shared state (the font's `refs`, a context's `mail`), accesses to data
 * private at that moment are folded into a neighbouring step, and the ghost
 * variables observe. The mailbox is design.pml's, checked there; here a
 * context's mailbox holds at most this font's one record, so it is a bit
 * (POSTED) above HELD, and the CAS loops are single steps that decide.
 *
 * Negative controls (each must make spin report an error; see
 * scripts/model_check.sh and design.md's "The font model"):
 *   -DEVICT_IN_USE        is_idle ignores `uses`: the budget may evict an
 *                         acquired instance
 *   -DCLOSE_IN_RELEASER   the last release drops another context's instance
 *                         itself instead of handing it over
 *   -DSKIP_FREE_CONTEXTS  the last release hands over only to held contexts
 *                         (a context whose owner exited is skipped)
 *   -DGONE_IGNORES_USES   the font-gone mail frees the record even if acquired
 *                         (no `gone` flag)
 *   -DEXIT_KEEPS_ACQUIRED a thread's exit does not give back what it holds
 *                         (no ftpool__fonts_thread_gone)
 *   -DMAIL_READS_FONT     the mail frees the record through inst->font (as
 *                         new_record allocates it: font->pool->memory)
 *                         instead of the context's pool_memory
 *   -DFACE_NO_BLOB_REF    a font face does not take its own blob reference
 *   -DDEAD_TWICE          ftpool__fonts_destroy does not mark the font
 *                         `dying`: two contexts' records list it twice
 *   -DGIVE_BACK_READS_FACE a give-back finds its instance through the face
 *                         (face->generic), which eviction may have closed
 *                         (issue 20's use after free)
 */

#define NT 3            /* threads; thread 0 created the font and may end
                           holding its context, as the destroyer */
#define NC 3            /* room for contexts (one per thread at most, since
                           a thread's context is recycled after its exit) */
#define NONE 255

#define FREE   0        /* the `mail` word */
#define HELD   1
#define POSTED 2        /* bit: this font's record is in the mailbox */

#define NOREC   0       /* instance record of context c (ghost of the slot) */
#define EVICTED 1       /* record, no face (inst->face == NULL) */
#define WARM    2       /* record with a face and a size */
#define FREED   3       /* free_record ran */

byte refs;              /* font->refs */
bool slot[NC];          /* font->instances[c] != NULL: set by the holder of
                           c under a reference, never cleared */
byte rec[NC];           /* the record's state */
bool uses[NC];          /* inst->uses != 0 (acquired; 0 or 1 here) */
bool gone[NC];          /* inst->gone */
bool dying;             /* font->dying */
byte mail[NC];          /* struct context.mail */
byte nctx;              /* contexts made */
byte blobrefs;          /* the blob's references: the font's, each face's */

/* ghost */
bool font_freed;
byte font_frees;        /* ftpool__font_free calls */
bool blob_freed;
byte holder[NC];        /* thread + 1 holding the context; 0: none */
byte busy[NC];          /* threads inside FreeType on the context's library */
bool hasref[NT];        /* the thread owns one font reference */
bool acq[NT];           /* the thread has the font acquired */
bool alive[NT];         /* the thread ended holding its context (thread 0) */

/* Every read of the font struct (its slots, pool, blob, `dying`). */
#define USE_FONT assert(!font_freed)

#define FT_ENTER(cc) \
    assert(holder[cc] == me + 1);  /* only the holder edits a library */ \
    busy[cc]++;                                                         \
    assert(busy[cc] <= 1)

inline blob_drop() {
  blobrefs--;
  if
  :: blobrefs == 0 -> assert(!blob_freed); blob_freed = true
  :: else
  fi
}

/* unmake_instance: FT_Done_Size, and FT_Done_Face when the face has no
 * other instance (always, with one font); the face's blob reference goes
 * after the bracket, folded in. */
inline unmake(cc) {
  assert(!uses[cc]);              /* never closed while acquired */
  assert(rec[cc] == WARM);
  assert(!blob_freed);            /* an open face's bytes are alive */
  rec[cc] = EVICTED;
#ifndef FACE_NO_BLOB_REF
  blob_drop()
#endif
}

/* free_record: unlink, free with c->memory.pool_memory. */
inline free_record(cc) {
  assert(!uses[cc]);
  assert(rec[cc] == EVICTED);     /* freed once, its face closed first */
#ifdef MAIL_READS_FONT
  USE_FONT;
#endif
  rec[cc] = FREED
}

/* make_instance inside ready_instance's busy bracket: open the face (its
 * own blob reference) and a size, from the font's description. */
inline make_instance(cc) {
  atomic { FT_ENTER(cc); USE_FONT }
  atomic {
    assert(!blob_freed);
#ifndef FACE_NO_BLOB_REF
    blobrefs++;
#endif
    rec[cc] = WARM;
    slot[cc] = true;              /* a fresh record: *slot = inst */
    busy[cc]--
  }
}

/* evict: the holder, an idle instance (is_idle: a face, no uses). */
inline evict(cc) {
  atomic { FT_ENTER(cc) }
  atomic { unmake(cc); busy[cc]-- }
}

/* fit_budget after a give-back (of this font or another), a prepare or a
 * thread's exit: the limits are abstracted, so an idle instance may or may
 * not be over them. */
inline fit_budget(cc) {
  if
#ifdef EVICT_IN_USE
  :: rec[cc] == WARM -> evict(cc)
#else
  :: rec[cc] == WARM && !uses[cc] -> evict(cc)
#endif
  :: true
  fi
}

/* drop_record, for a record whose font went while it was acquired (put
 * down by its holder). */
inline drop_record(cc) {
  atomic { FT_ENTER(cc) }
  atomic {
    if
    :: rec[cc] == WARM -> unmake(cc)
    :: else
    fi;
    free_record(cc);
    busy[cc]--
  }
}

/* put_down: the last give-back of an acquire. */
inline put_down(cc) {
  atomic { assert(uses[cc] && acq[me]); uses[cc] = false; acq[me] = false }
  if
  :: gone[cc] -> drop_record(cc)
  :: else
  fi
}

/* carry_out of a font-gone mail by cc's holder: instance_gone_before (the
 * data destructor, outside the bracket: a ghost-free step here), then
 * instance_gone inside the bracket. */
inline carry_out(cc) {
  atomic { FT_ENTER(cc) }
  atomic {
    assert(rec[cc] == WARM || rec[cc] == EVICTED);   /* a live record */
    if
#ifndef GONE_IGNORES_USES
    :: uses[cc] -> gone[cc] = true
#endif
    :: else ->
       if
       :: rec[cc] == WARM -> unmake(cc)
       :: else
       fi;
       free_record(cc)
    fi;
    busy[cc]--
  }
}

/* context_drain: the exchange takes the mailbox (here: the one record). */
inline drain(cc) {
  atomic {
    assert(holder[cc] == me + 1);
    if
    :: mail[cc] & POSTED -> mail[cc] = HELD; took = true
    :: else -> took = false
    fi
  }
  if
  :: took -> took = false; carry_out(cc)
  :: else
  fi
}

/* context_release: drain, CAS HELD -> FREE, retry if mail came. */
inline release(cc) {
  do
  :: drain(cc);
     atomic {
       if
       :: mail[cc] == HELD -> mail[cc] = FREE; holder[cc] = 0; took = true
       :: else
       fi
     };
     if
     :: took -> took = false; break
     :: else
     fi
  od
}

/* context_hand_over of cc's record: FREE: claim, carry out, release
 * (adopt); else post (CAS). */
inline hand_over(cc) {
  do
  :: atomic {
       mail[cc] == FREE ->
#ifdef SKIP_FREE_CONTEXTS
       took = false; break
#else
       mail[cc] = HELD; assert(holder[cc] == 0); holder[cc] = me + 1
#endif
     };
     carry_out(cc);
     release(cc);
     break
  :: atomic {
       mail[cc] != FREE ->
       assert(!(mail[cc] & POSTED));  /* one mail per record */
       mail[cc] = mail[cc] | POSTED
     };
     break
  od
}

/* attach: claim_or_create. Claim any FREE context (registry_claim_free
 * walks them all, newest first: any order is a superset), else make one. */
inline attach() {
  i = 0;
  do
  :: i < nctx ->
     atomic {
       if
       :: mail[i] == FREE ->
          mail[i] = HELD; assert(holder[i] == 0); holder[i] = me + 1;
          c = i; i = NC
       :: else -> i++
       fi
     }
  :: i == NC -> break
  :: i < NC && i == nctx ->       /* none FREE: new_context, published */
     atomic {
       c = nctx; nctx++;
       mail[c] = HELD; holder[c] = me + 1;
       i = NC
     }
  od;
  i = 0
}

/* ftpool_font_release, the last one: pt_font_gone (drain our own context,
 * walk the slots: ours at once, the others handed over), then font_free. */
inline font_gone() {
  if
  :: c != NONE -> drain(c)
  :: else
  fi;
  i = 0;
  do
  :: i < NC ->
     atomic {
       USE_FONT;
       s = slot[i];
       assert(!s || rec[i] != FREED)  /* the walk meets no freed record */
     };
     if
     :: s && i == c -> carry_out(c)
#ifdef CLOSE_IN_RELEASER
     :: s && i != c ->                /* closes it as if it held i */
        atomic { busy[i]++; assert(busy[i] <= 1) }
        atomic {
          assert(rec[i] == WARM || rec[i] == EVICTED);
          if
          :: uses[i] -> gone[i] = true
          :: else ->
             if :: rec[i] == WARM -> unmake(i) :: else fi;
             free_record(i)
          fi;
          busy[i]--
        }
#else
     :: s && i != c -> hand_over(i)
#endif
     :: else
     fi;
     s = false;
     i++
  :: else -> break
  od;
  i = 0;
  atomic {                          /* ftpool__font_free */
    assert(font_frees == 0);        /* freed once */
    font_frees++;
    font_freed = true;
    blob_drop()
  }
}

proctype thread(byte me) {
  byte c = NONE;                    /* the held context (the key's value) */
  bool exited = false;              /* the key destructor ran */
  byte i;
  bool s, took;
  if
  :: me == 0 -> c = 0               /* the creator: its context from init */
  :: else
  fi;
  do
  /* ftpool_font_acquire: font_context (own_context: attach, drain; after
   * the destructor a borrowed context is refused), ready_instance (the
   * record found, or made; a face made if evicted), the acquire. */
  :: hasref[me] && !acq[me] && !exited ->
     if
     :: c == NONE -> attach()
     :: else
     fi;
     drain(c);
     if
     :: rec[c] == NOREC || rec[c] == EVICTED -> make_instance(c)
     :: else
     fi;
     atomic {
       USE_FONT;
       assert(rec[c] == WARM && !blob_freed);
       uses[c] = true; acq[me] = true
     }
  /* ftpool_font_give_back: held_context, drain, put_down, fit_budget. */
  :: hasref[me] && acq[me] && c != NONE ->
     drain(c);
     atomic { USE_FONT };
     put_down(c);
     fit_budget(c)
  /* a give-back of a face the thread does not hold: given back already
   * (its instance evicted since, maybe, and the face closed) or another
   * thread's. acquired_instance compares the face's address with those of
   * the caller's own acquired instances, reading only those, and finds
   * none: refused, nothing changed. */
  :: hasref[me] && !acq[me] && c != NONE ->
     atomic {
       USE_FONT;
       if                              /* whichever context's face it was */
       :: i = 0 :: i = 1 :: i = 2
       fi;
#ifdef GIVE_BACK_READS_FACE
       assert(!slot[i] || rec[i] == WARM);
#else
       assert(!uses[c]);               /* the chain has none of this font */
#endif
       i = 0
     }
  /* a give-back of another font (or its prepare): drain, and the budget
   * may evict this font's idle instance, whatever this thread holds. */
  :: c != NONE -> drain(c); fit_budget(c)
  /* ftpool_font_release; while acquired is against the contract (the
   * thread may then only exit), and the code copes: `gone`. */
  :: hasref[me] ->
     atomic {
       hasref[me] = false;
       refs--;
       took = (refs == 0)
     };
     if
     :: took -> took = false; font_gone()
     :: else
     fi
  /* thread exit: on_thread_exit (fonts_thread_gone, context_release). */
  :: c != NONE && !exited ->
#ifndef EXIT_KEEPS_ACQUIRED
     if
     :: acq[me] -> put_down(c)
     :: else
     fi;
     fit_budget(c);
#endif
     release(c);
     c = NONE;
     exited = true
  /* end: a thread that holds a context ends through its exit, except
   * thread 0, which may end holding it (it calls ftpool_destroy) */
  :: c == NONE || me == 0 -> break
  od;
  if
  :: c != NONE -> alive[me] = true
  :: else
  fi
}

init {
  byte me = 0, c, i;
  bool took, warm;
  /* ftpool_font_create on thread 0: attach (context 0), new_font, then
   * pt_font_prepare: the record, warm; its references handed to each
   * thread before it starts. */
  atomic {
    nctx = 1; mail[0] = HELD; holder[0] = 1;
    rec[0] = WARM; slot[0] = true;
#ifdef FACE_NO_BLOB_REF
    blobrefs = 1;
#else
    blobrefs = 2;                   /* the font's, the face's */
#endif
    refs = NT;
    i = 0;
    do
    :: i < NT -> hasref[i] = true; i++
    :: else -> break
    od;
    i = 0;
    run thread(0); run thread(1); run thread(2)
  }
  (_nr_pr == 1);

  /* Before destroy, what the code guarantees: every context is FREE or
   * held by the destroyer; a font released is freed, and each of its
   * records is freed, or waits in the destroyer's mailbox, or is still
   * acquired there (released too early); a font not released is still
   * referenced. */
  c = 0;
  do
  :: c < NC ->
     assert(mail[c] == FREE || (holder[c] == 1 && alive[0]));
     assert(!font_freed || !slot[c] || rec[c] == FREED ||
            (holder[c] == 1 && ((mail[c] & POSTED) || (gone[c] && uses[c]))));
     c++
  :: else -> break
  od;
  assert(font_freed || refs > 0);

  /* pt_destroy: each context drained (the destroyer holds them all now),
   * ftpool__fonts_destroy (records freed, fonts still referenced listed
   * once), FT_Done_Library and fonts_destroy_faces (faces closed, their
   * blob references dropped); then the listed fonts freed. */
  c = 0;
  do
  :: c < nctx ->
     atomic { holder[c] = me + 1; mail[c] = mail[c] | HELD };
     drain(c);
     atomic {
       warm = (rec[c] == WARM);
       if
       :: rec[c] == WARM || rec[c] == EVICTED ->
          if
          :: !gone[c] ->
             USE_FONT;                /* inst->font->dying */
#ifdef DEAD_TWICE
             dying = false;
#endif
             if
             :: !dying -> dying = true; i++   /* on the dead list */
             :: else
             fi
          :: else
          fi;
          rec[c] = FREED; uses[c] = false
       :: else
       fi;
       if
       :: warm -> assert(!blob_freed); blob_drop()   /* FT_Done_Library */
       :: else
       fi
     };
     c++
  :: else -> break
  od;
  do
  :: i > 0 ->                         /* the dead list: ftpool__font_free */
     atomic {
       assert(font_frees == 0); font_frees++;
       font_freed = true; blob_drop(); i--
     }
  :: else -> break
  od;
  /* Nothing leaked: every record freed, the font and its bytes freed. */
  c = 0;
  do
  :: c < NC -> assert(rec[c] == NOREC || rec[c] == FREED); c++
  :: else -> break
  od;
  assert(font_freed && blob_freed)
}
