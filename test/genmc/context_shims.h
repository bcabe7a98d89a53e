/* SPDX-License-Identifier: MIT */
/*
 * What context_harness.c and mailbox_harness.c share, after lib/context.c:
 * shims for the fork stamps (fork_harness.c checks them), the glyph reader
 * (the glyph harnesses) and blobs (blob_harness.c), which a close here has
 * none of; a library that is a plain counter, so that two holders at once
 * are a data race; and a close whose fields its poster writes before
 * posting, checked by whoever carries it out.
 */
#ifndef FTPOOL_GENMC_CONTEXT_SHIMS_H
#define FTPOOL_GENMC_CONTEXT_SHIMS_H

#define CLOSE_PAYLOAD 7

void ftpool__fork_stamp(struct context *c) { (void)c; }
void ftpool__fork_unstamp(struct context *c) { (void)c; }
void ftpool__glyph_reader_init(struct glyph_reader *r) { (void)r; }
void ftpool__glyph_counts_init(struct glyph_counts *c) { (void)c; }
void ftpool__blob_drop(ftpool_blob *b) { assert(!b); }

struct fake_library {
  int edits; /* plain: only the holder touches it */
};

static void edit(struct context *c) {
  ((struct fake_library *)(void *)c->library)->edits++;
}

struct close_note {
  struct mail mail;
  int payload; /* written by the poster before posting */
  int done;
};

static ftpool_blob *close_inside(struct context *c, struct mail *m) {
  struct close_note *note = (struct close_note *)m;
  edit(c);
  assert(note->payload == CLOSE_PAYLOAD);
  note->done++;
  return NULL;
}

static const struct mail_kind close_kind = {NULL, close_inside, NULL, true};

#endif /* FTPOOL_GENMC_CONTEXT_SHIMS_H */
