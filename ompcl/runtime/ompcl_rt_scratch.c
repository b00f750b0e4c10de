/* ompcl runtime: run-time scratch checks (see ompcl_rt.h): whether a loop's scratch arrays
 * are written before they are read, with results cached per input. */

#include "ompcl_rt_internal.h"

ompcl_sc *ompcl_sc_cur;

void ompcl_sc_begin(ompcl_sc *s) {
  s->nkey = 0;
  s->uncacheable = 0;
}

void ompcl_sc_key(ompcl_sc *s, const void *p, unsigned long n) {
  if (s->nkey + n > OMPCL_SC_KEY) {
    s->uncacheable = 1;
    return;
  }
  memcpy(s->key + s->nkey, p, n);
  s->nkey += n;
}

/* Replayed in the order recorded: each address was computed from the key and the values
 * before it, so while those match it is an address the loop reads now. */
static int sc_replay(const ompcl_sc_entry *e) {
  for (unsigned long k = 0; k < e->nrecs; k++)
    if (memcmp(e->recs[k].p, e->recs[k].v, e->recs[k].n)) return 0;
  return 1;
}

int ompcl_sc_cached(ompcl_sc *s, ompcl_region *r, int *ok) {
  if (!s->uncacheable)
    for (int k = 0; k < OMPCL_SC_CACHE; k++) {
      const ompcl_sc_entry *e = &s->cache[k];
      if (e->used && e->nkey == s->nkey && !memcmp(e->key, s->key, s->nkey) && sc_replay(e)) {
        *ok = e->result;
        r->check_hits++;
        return 1;
      }
    }
  s->narrays = s->failed = 0;
  s->nrecs = 0;
  memset(s->hash, 0, sizeof s->hash);
  r->check_runs++;
  return 0;
}

void ompcl_sc_array(ompcl_sc *s, const void *base, unsigned long size, unsigned long esize) {
  int k = s->narrays;
  unsigned long n = esize ? (size + esize - 1) / esize : 0;
  if (k >= OMPCL_SC_ARRAYS || !n) {
    s->failed = 1;
    return;
  }
  if (s->a[k].nstamps < n) {
    free(s->a[k].stamps);
    s->a[k].stamps = calloc(n, sizeof(unsigned long));
    s->a[k].nstamps = s->a[k].stamps ? n : 0;
    if (!s->a[k].stamps) {
      s->failed = 1;
      return;
    }
  }
  s->a[k].base = (const char *)base;
  s->a[k].size = size;
  s->a[k].esize = esize;
  s->a[k].shift = -1;
  for (int b = 0; b < 16; b++)
    if ((1ul << b) == esize) s->a[k].shift = b;
  s->narrays++;
}

void ompcl_sc_apart(ompcl_sc *s, const void *a, unsigned long na, const void *b, long nb) {
  const char *x = (const char *)a, *y = (const char *)b;
  if (nb > 0 && x < y + nb && y < x + na) s->failed = 1; /* the loop may write what it reads */
}

const void *ompcl_sc_input(ompcl_sc *s, const void *p, unsigned long n) {
  unsigned long h = ((uintptr_t)p >> 3) % 1024, k;
  if (s->uncacheable) return p;
  if (n > sizeof s->recs[0].v) {
    s->uncacheable = 1;
    return p;
  }
  k = (unsigned long)s->hash[h];
  if (k && s->recs[k - 1].p == p && s->recs[k - 1].n == n) return p;
  if (s->nrecs == s->caprecs) {
    unsigned long cap = s->caprecs ? 2 * s->caprecs : 64;
    ompcl_sc_rec *more = cap <= 65536 ? realloc(s->recs, cap * sizeof *more) : 0;
    if (!more) {
      s->uncacheable = 1;
      return p;
    }
    s->recs = more;
    s->caprecs = cap;
  }
  s->recs[s->nrecs].p = p;
  s->recs[s->nrecs].n = n;
  memcpy(s->recs[s->nrecs].v, p, n);
  s->hash[h] = (long)++s->nrecs;
  return p;
}

int ompcl_sc_store(ompcl_sc *s) {
  int ok = !s->failed;
  if (!s->uncacheable) {
    ompcl_sc_entry *e = &s->cache[s->next];
    s->next = (s->next + 1) % OMPCL_SC_CACHE;
    free(e->recs);
    e->recs = malloc((s->nrecs ? s->nrecs : 1) * sizeof *e->recs);
    if (e->recs) {
      memcpy(e->recs, s->recs, s->nrecs * sizeof *e->recs);
      memcpy(e->key, s->key, s->nkey);
      e->nkey = s->nkey;
      e->nrecs = s->nrecs;
      e->result = ok;
      e->used = 1;
    } else {
      e->used = 0;
    }
  }
  return ok;
}
