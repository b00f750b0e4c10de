/* ompcl runtime: pointer trees (double **m with rows allocated one by one, double ***u) as
 * the kernel sees them: one staging block of rows of fixed width, which it indexes as
 * double (*)[w1]...[wn] (ir.Tree in the compiler).
 *
 * ompcl_rt_tree (an array argument's address) allocates the block and records the tree; once
 * the device is chosen, ompcl_trees_gather checks it and copies the leaf rows in: every
 * pointer array it reads and every row it copies must lie inside the process's writable
 * memory, the written rows must not overlap each other, and no row may overlap another array
 * argument where either is written; else the host runs the original loop. After a launch that succeeded, ompcl_trees_finish copies the written rows back (the
 * host copies of device-resident rows kept right through ompcl_host_range) and forgets the
 * block, whose mapping never stays on the device. A tree whose leaf rows lie back to back in
 * one object (rows cut from one allocation) needs no staging block: the kernel indexes that
 * memory, mapped and kept like any array. */

#include "ompcl_rt_internal.h"

typedef struct ompcl_tree {
  struct ompcl_tree *next;
  const void *root;
  int depth, mode;
  long lo, hi;           /* rows of the root */
  long widths[2];        /* elements gathered at each level below the root: [0, width) */
  unsigned long esize;
  char *staging;
  size_t rows, row_bytes; /* leaf rows, bytes of each */
  char **segs;           /* each leaf row's host address */
  int direct;            /* the rows lie back to back in one object: the kernel reads them
                            there (no staging block) */
  int found;             /* segs holds the rows, each inside writable memory (find_rows) */
  int arg;               /* its array argument's index (the next ompcl_rt_arg_array's) */
  long elo, ehi;         /* the elements its argument may reach (see ompcl_tree_clamp) */
} ompcl_tree;

/* Largest staging block (bytes): a bound from a wrong analysis never allocates the machine. */
#define OMPCL_TREE_MAX ((size_t)1 << 40)

/* Staging blocks kept for the next launches: a fresh block of many megabytes costs a page
 * fault per page, more than the copy. */
#define OMPCL_TREE_POOL 8
#define OMPCL_TREE_POOL_BYTES ((size_t)1 << 28)
static struct { char *p; size_t bytes; } pool[OMPCL_TREE_POOL];
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

static char *staging_alloc(size_t bytes) {
  char *p = 0;
  pthread_mutex_lock(&pool_lock);
  for (int k = 0; k < OMPCL_TREE_POOL && !p; k++)
    if (pool[k].p && pool[k].bytes >= bytes && pool[k].bytes / 2 <= bytes) {
      p = pool[k].p;
      pool[k].p = 0;
    }
  pthread_mutex_unlock(&pool_lock);
  return p ? p : malloc(bytes ? bytes : 1);
}

static void staging_free(char *p, size_t bytes) {
  size_t held = 0;
  int slot = -1;
  pthread_mutex_lock(&pool_lock);
  for (int k = 0; k < OMPCL_TREE_POOL; k++) {
    if (pool[k].p) held += pool[k].bytes;
    else if (slot < 0) slot = k;
  }
  if (p && slot >= 0 && held + bytes <= OMPCL_TREE_POOL_BYTES) {
    pool[slot].p = p;
    pool[slot].bytes = bytes;
    p = 0;
  }
  pthread_mutex_unlock(&pool_lock);
  free(p);
}

static void tree_decline(ompcl_launch *L, const char *why) {
  if (ompcl_decline(L, &L->r->check_declines))
    ompcl_log("%s:%d: host: %s", L->r->file, L->r->line, why);
}

static int find_rows(ompcl_tree *t);
static void fresh_areas(void);

/* Whether the tree's leaf rows lie back to back, in order, inside one heap block or array
 * (k-means' feature[i] = feature[0] + i * n): the kernel then indexes that memory itself,
 * which stays mapped like any array, instead of a staging block gathered at each launch. */
static int back_to_back(ompcl_tree *t) {
  uintptr_t s, e, first;
  fresh_areas();
  if (!t->rows || !(t->found = find_rows(t))) return 0;
  first = (uintptr_t)t->segs[0];
  for (size_t r = 1; r < t->rows; r++)
    if ((uintptr_t)t->segs[r] != first + r * t->row_bytes) return 0;
  return ompcl_find_object(first, &s, &e) && first + t->rows * t->row_bytes <= e;
}

/* The root's rows [*lo, *hi] cut to the pointer array the root points into, when the
 * runtime knows its block: a subscript outside it (a neighbour's row under a guard, i + d with
 * 0 <= i + d < m tested) is one the original never reads, as reading it would read outside an
 * object. */
static void root_rows(const void *root, long *lo, long *hi) {
  uintptr_t s, e, a = (uintptr_t)root;
  const long ps = (long)sizeof(void *);
  if (!ompcl_find_object(a, &s, &e) || (a - s) % ps) return;
  if (*lo < -(long)((a - s) / ps)) *lo = -(long)((a - s) / ps);
  if (*hi > (long)((e - a) / ps) - 1) *hi = (long)((e - a) / ps) - 1;
}

/* The range [*lo, *hi] of the array argument about to be added, when it is a tree's block, cut
 * to the rows the tree holds (``root_rows``); 1 when it is one. */
int ompcl_tree_clamp(const ompcl_launch *L, long *lo, long *hi) {
  for (const ompcl_tree *t = L->trees; t; t = t->next)
    if (t->arg == L->narrays) {
      if (*lo < t->elo) *lo = t->elo;
      if (*hi > t->ehi) *hi = t->ehi;
      return 1;
    }
  return 0;
}

static void *tree_base(ompcl_tree *t, void *base, size_t per_root) {
  const long leaf = (long)(t->row_bytes / t->esize) * (long)per_root;
  t->elo = t->lo * leaf;
  t->ehi = (t->hi + 1) * leaf - 1;
  return base;
}

void *ompcl_rt_tree(ompcl_launch *L, const void *root, int depth, long lo, long hi,
                    const long *los, const long *widths, unsigned long esize, int mode) {
  ompcl_tree *t;
  size_t per_root = 1, rows;
  if (L->ok && hi >= lo) root_rows(root, &lo, &hi);
  if (!L->ok || hi < lo || depth < 2 || depth > 3) return (void *)root;
  for (int k = 0; k < depth - 1; k++) {
    if (widths[k] <= 0) return (void *)root; /* nothing is touched: an empty range */
    if (los[k] < 0) {
      tree_decline(L, "a pointer tree's subscript is negative");
      return (void *)root;
    }
  }
  for (int k = 0; k < depth - 2; k++) per_root *= (size_t)widths[k];
  rows = (size_t)(hi - lo + 1) * per_root;
  t = calloc(1, sizeof *t);
  if (!t) {
    tree_decline(L, "no memory for a pointer tree's staging block");
    return (void *)root;
  }
  t->root = root;
  t->arg = L->narrays; /* the host code passes the tree's block as the next argument */
  t->elo = 0;
  t->ehi = -1;
  t->depth = depth;
  t->mode = mode;
  t->lo = lo;
  t->hi = hi;
  for (int k = 0; k < depth - 1; k++) t->widths[k] = widths[k];
  t->esize = esize;
  t->rows = rows;
  t->row_bytes = (size_t)widths[depth - 2] * esize;
  if (t->row_bytes && rows > OMPCL_TREE_MAX / t->row_bytes) {
    free(t);
    tree_decline(L, "a pointer tree's staging block would be too large");
    return (void *)root;
  }
  t->segs = malloc(rows * sizeof *t->segs);
  t->next = (ompcl_tree *)L->trees;
  L->trees = t;
  if (t->segs && back_to_back(t)) {
    t->direct = 1;
    return tree_base(t, (void *)((uintptr_t)t->segs[0] - (uintptr_t)lo * per_root * t->row_bytes),
                     per_root);
  }
  t->staging = staging_alloc(rows * t->row_bytes);
  if (!t->staging || !t->segs) {
    tree_decline(L, "no memory for a pointer tree's staging block");
    return (void *)root;
  }
  /* the kernel indexes rows from the root's row `lo` on */
  return tree_base(t, (void *)((uintptr_t)t->staging - (uintptr_t)lo * per_root * t->row_bytes),
                   per_root);
}

/* The process's readable and writable memory, from /proc/self/maps: read again when a
 * lookup misses, at most once per gather. A row inside it can be copied in, and the same
 * bytes back, without a fault, whatever object it belongs to (rows below OMPCL_HEAP_MIN
 * bytes are in no table of the runtime, but in the allocator's arena); the overlap checks
 * see every row the kernel may write. */
static struct { uintptr_t a, b; } *areas;
static size_t nareas, cap_areas;
static int areas_fresh;
static uintptr_t last_a, last_b; /* the area found last: rows of one arena */

static void read_areas(void);

/* The next lookup may read the areas again (memory may have been mapped or unmapped). */
static void fresh_areas(void) {
  areas_fresh = 0;
  last_a = last_b = 0;
}

static void read_areas(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  char line[512], perms[8];
  unsigned long a, b;
  nareas = 0;
  areas_fresh = 1;
  if (!f) return;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "%lx-%lx %7s", &a, &b, perms) == 3 && perms[0] == 'r' && perms[1] == 'w') {
      if (nareas && areas[nareas - 1].b == a) { /* adjacent areas join */
        areas[nareas - 1].b = b;
        continue;
      }
      if (nareas == cap_areas) {
        size_t cap = cap_areas ? 2 * cap_areas : 64;
        void *grown = realloc(areas, cap * sizeof *areas);
        if (!grown) break;
        areas = grown;
        cap_areas = cap;
      }
      areas[nareas].a = a;
      areas[nareas++].b = b;
    }
  fclose(f);
}

/* [p, p + bytes) inside the process's writable memory. */
static int known(const void *p, size_t bytes) {
  uintptr_t a = (uintptr_t)p, b = a + bytes;
  if (!p || b < a) return 0;
  if (last_a <= a && b <= last_b) return 1;
  for (int pass = 0; pass < 2; pass++) {
    for (size_t k = 0; k < nareas; k++)
      if (areas[k].a <= a && b <= areas[k].b) {
        last_a = areas[k].a;
        last_b = areas[k].b;
        return 1;
      }
    if (areas_fresh) return 0;
    read_areas();
  }
  return 0;
}

/* Each leaf row's address, following pointers only inside known objects. */
static int find_rows(ompcl_tree *t) {
  char *const *root = (char *const *)t->root;
  size_t r = 0;
  if (!known(root + t->lo, (size_t)(t->hi - t->lo + 1) * sizeof *root)) return 0;
  for (long i = t->lo; i <= t->hi; i++) {
    if (t->depth == 2) {
      t->segs[r++] = root[i];
      continue;
    }
    char *const *mid = (char *const *)root[i];
    if (!known(mid, (size_t)t->widths[0] * sizeof *mid)) return 0;
    for (long j = 0; j < t->widths[0]; j++) t->segs[r++] = mid[j];
  }
  for (r = 0; r < t->rows; r++)
    if (!known(t->segs[r], t->row_bytes)) return 0;
  return 1;
}

typedef struct {
  uintptr_t a, b;
  int owner, writes;
} interval;

static int by_start(const void *x, const void *y) {
  uintptr_t a = ((const interval *)x)->a, b = ((const interval *)y)->a;
  return a < b ? -1 : a > b;
}

/* Whether two of the intervals overlap where one is a tree's row (owner >= 0) and either is
 * written (rows of one tree count as different owners); also 1 when telling would cost more
 * than a few passes over them. */
static int rows_overlap(interval *v, size_t n) {
  size_t budget = 8 * n + 64;
  qsort(v, n, sizeof *v, by_start);
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n && v[j].a < v[i].b; j++) {
      if ((v[i].owner >= 0 || v[j].owner >= 0) && (v[i].writes || v[j].writes)) return 1;
      if (!budget--) return 1;
    }
  return 0;
}

/* The tree's rows and the launch's other arrays, as intervals. */
static interval *intervals(ompcl_launch *L, size_t *n) {
  size_t total = 0, k = 0;
  int owner = 0;
  interval *v;
  for (ompcl_tree *t = L->trees; t; t = t->next) total += t->rows;
  v = malloc((total + (size_t)L->narrays) * sizeof *v);
  if (!v) return 0;
  for (ompcl_tree *t = L->trees; t; t = t->next, owner++)
    for (size_t r = 0; r < t->rows; r++)
      v[k++] = (interval){(uintptr_t)t->segs[r], (uintptr_t)t->segs[r] + t->row_bytes, owner,
                          !!(t->mode & OMPCL_WRITE)};
  for (int a = 0; a < L->narrays; a++) {
    const ompcl_array_arg *x = &L->arrays[a];
    int staging = 0;
    for (ompcl_tree *t = L->trees; t; t = t->next) /* a tree's own argument: its rows */
      staging |= t->arg == a;
    if (staging || x->hi < x->lo) continue;
    v[k++] = (interval){ompcl_arg_start(x), ompcl_arg_end(x), -1, !!(x->mode & OMPCL_WRITE)};
  }
  *n = k;
  return v;
}

int ompcl_trees_gather(ompcl_launch *L) {
  size_t n;
  interval *v;
  int overlap;
  if (!L->trees || !L->ok) return L->ok;
  for (ompcl_tree *t = L->trees; t; t = t->next) /* rows found when the tree was set up */
    if (!t->found) {
      tree_decline(L, "a pointer tree's row is not inside the program's writable memory");
      return 0;
    }
  if (!(v = intervals(L, &n))) {
    tree_decline(L, "no memory to check a pointer tree's rows");
    return 0;
  }
  overlap = rows_overlap(v, n);
  free(v);
  if (overlap) {
    tree_decline(L, "a pointer tree's rows overlap each other or another array");
    return 0;
  }
  for (ompcl_tree *t = L->trees; t; t = t->next)
    for (size_t r = 0; r < t->rows && !t->direct; r++) {
      ompcl_host_range(t->segs[r], t->row_bytes, OMPCL_READ);
      memcpy(t->staging + r * t->row_bytes, t->segs[r], t->row_bytes);
    }
  return 1;
}

/* Forget the staging block's mapping: `copy_back` first reads it back. */
static void drop_staging(ompcl_launch *L, ompcl_tree *t, int copy_back) {
  uintptr_t a = (uintptr_t)t->staging, b = a + t->rows * t->row_bytes;
  mapping **link = &ompcl_present.maps;
  while (*link) {
    mapping *m = *link;
    if (m->start < b && a < m->end) {
      if (copy_back) ompcl_sync_mapping(m);
      for (int k = 0; k < L->nmaps; k++)
        if (L->maps[k] == m) L->maps[k] = 0;
      *link = m->next;
      ompcl_release_mapping(m);
    } else {
      link = &m->next;
    }
  }
}

void ompcl_trees_finish(ompcl_launch *L, int ok) {
  for (ompcl_tree *t = L->trees; t; t = t->next) {
    int back = ok && (t->mode & OMPCL_WRITE);
    if (!t->staging) continue;
    drop_staging(L, t, back);
    if (back)
      for (size_t r = 0; r < t->rows; r++) {
        ompcl_host_range(t->segs[r], t->row_bytes, OMPCL_WRITE);
        memcpy(t->segs[r], t->staging + r * t->row_bytes, t->row_bytes);
      }
  }
  ompcl_trees_free(L);
}

void ompcl_trees_free(ompcl_launch *L) {
  while (L->trees) {
    ompcl_tree *t = L->trees;
    L->trees = t->next;
    staging_free(t->staging, t->rows * t->row_bytes);
    free(t->segs);
    free(t);
  }
}

/* The pointers of a tree level, one after another: the fewest elements between one and the
 * end of its object, at most the stride between consecutive ones that share an object. */
typedef struct {
  unsigned long esize;
  uintptr_t prev_start, prev; /* the previous pointer and the start of its object */
  long stride, best;          /* the distance kept between pointers of one object; -1: none */
} row_walk;

/* One more pointer of the level: 0 when it cannot be bounded (null, in no known object, or
 * sharing one unevenly). */
static int take_row(row_walk *w, uintptr_t p) {
  uintptr_t s, e;
  long room;
  if (!p || !ompcl_find_object(p, &s, &e)) return 0;
  room = (long)((e - p) / w->esize);
  if (w->prev && s == w->prev_start) {
    long d = (long)p - (long)w->prev;
    if (d <= 0 || (w->stride && d != w->stride) || d % (long)w->esize) return 0;
    w->stride = d;
  }
  w->prev_start = s;
  w->prev = p;
  w->best = w->best < 0 || room < w->best ? room : w->best;
  return 1;
}

long ompcl_rt_tree_width(ompcl_launch *L, const void *root, int level, long lo, long hi,
                         const long *los, const long *widths, unsigned long esize) {
  void *const *top = (void *const *)root;
  row_walk w = {esize, 0, 0, 0, -1};
  if (!L->ok || !esize) return 0;
  for (long i = lo; i <= hi; i++) {
    void *const *mid = (void *const *)top[i];
    if (level == 1 ? !take_row(&w, (uintptr_t)mid) : !mid) goto fail;
    for (long j = los[0]; level > 1 && j < widths[0]; j++)
      if (!take_row(&w, (uintptr_t)mid[j])) goto fail;
  }
  if (w.stride && w.stride / (long)esize < w.best) w.best = w.stride / (long)esize;
  return w.best < 0 ? 0 : w.best;
fail:
  tree_decline(L, "a pointer tree's row is null, in no object the runtime knows, or shares "
               "one unevenly with another");
  return 0;
}

/* Bytes the launch's pointer trees move through their staging blocks on the host: every
 * gathered row in, the written ones back (a transfer, also with zero-copy buffers). */
double ompcl_tree_bytes(const ompcl_launch *L) {
  double bytes = 0;
  for (const ompcl_tree *t = (const ompcl_tree *)L->trees; t; t = t->next)
    if (!t->direct)
      bytes += (double)t->rows * (double)t->row_bytes * ((t->mode & OMPCL_WRITE) ? 2 : 1);
  return bytes;
}
