/* ompcl runtime: the program's objects, so that a pointer can be charged the object it points
 * into: the file-scope arrays each translated file registers before main (ompcl_rt_objects),
 * and the heap blocks the program allocates, seen through the linker's --wrap of malloc,
 * calloc, realloc, reallocarray, free, aligned_alloc, posix_memalign, memalign, valloc,
 * pvalloc, strdup and strndup (ompcl cc links with it: WRAPPED in __init__.py). A heap
 * block is remembered from OMPCL_HEAP_MIN bytes on, in a hash table by its start, until it is
 * freed or reallocated, a smaller one in a ring of the latest small allocations and frees;
 * without --wrap nothing is remembered and every lookup of a heap pointer fails (its loops
 * then stay on the host). */

#include "ompcl_rt_internal.h"

#include <errno.h>
#include <malloc.h> /* malloc_usable_size */
#include <string.h>
#include <unistd.h> /* sysconf */

#define OMPCL_HEAP_MIN 512

/* The real allocator: the linker binds __real_X to X under --wrap=X; weak, so a program
 * linked without --wrap (the __wrap_ functions then unused) still links. */
extern void *__real_malloc(size_t) __attribute__((weak));
extern void *__real_calloc(size_t, size_t) __attribute__((weak));
extern void *__real_realloc(void *, size_t) __attribute__((weak));
extern void __real_free(void *) __attribute__((weak));
extern void *__real_aligned_alloc(size_t, size_t) __attribute__((weak));
extern int __real_posix_memalign(void **, size_t, size_t) __attribute__((weak));
extern void *__real_memalign(size_t, size_t) __attribute__((weak));
extern void *__real_valloc(size_t) __attribute__((weak));
extern void *__real_pvalloc(size_t) __attribute__((weak));
/* null where nothing else linked them (a static link takes no archive member for a weak
 * reference): the wrappers then do their work themselves, through malloc */
extern char *__real_strdup(const char *) __attribute__((weak));
extern char *__real_strndup(const char *, size_t) __attribute__((weak));

/* ---- file-scope arrays ------------------------------------------------------------------ */

static struct objects {
  const ompcl_object *table;
  int n;
  struct objects *next;
} *objects;
static pthread_mutex_t objects_lock = PTHREAD_MUTEX_INITIALIZER;

void ompcl_rt_objects(const ompcl_object *table, int n) {
  struct objects *o = malloc(sizeof *o);
  if (!o) return; /* its pointers then touch any memory */
  o->table = table;
  o->n = n;
  pthread_mutex_lock(&objects_lock);
  o->next = objects;
  objects = o;
  pthread_mutex_unlock(&objects_lock);
}

/* ---- heap blocks: open addressing by start, linear probing, backward-shift deletion ------ */

typedef struct block {
  uintptr_t start, end; /* start 0: an empty slot */
} block;
static block *blocks;
static size_t capacity, used; /* capacity: a power of two */
/* a spin lock: held for a few probes of the table, on every allocation of the program */
static volatile int heap_lock;

static void heap_acquire(void) {
  while (__atomic_exchange_n(&heap_lock, 1, __ATOMIC_ACQUIRE))
    while (__atomic_load_n(&heap_lock, __ATOMIC_RELAXED)) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
}

static void heap_release(void) { __atomic_store_n(&heap_lock, 0, __ATOMIC_RELEASE); }

static size_t slot_of(uintptr_t start) {
  return (size_t)((start >> 4) * 0x9E3779B97F4A7C15ull) & (capacity - 1);
}

static void put(uintptr_t start, uintptr_t end);

static int grow(void) {
  size_t old = capacity;
  block *was = blocks;
  size_t cap = capacity ? 2 * capacity : 1024;
  block *fresh = __real_calloc(cap, sizeof *fresh);
  if (!fresh) return 0;
  blocks = fresh;
  capacity = cap;
  used = 0;
  for (size_t i = 0; i < old; i++)
    if (was[i].start) put(was[i].start, was[i].end);
  __real_free(was);
  return 1;
}

static void put(uintptr_t start, uintptr_t end) {
  size_t i;
  if (2 * (used + 1) > capacity && !grow()) return; /* not remembered: lookups fail */
  for (i = slot_of(start); blocks[i].start && blocks[i].start != start; i = (i + 1) & (capacity - 1))
    ;
  if (!blocks[i].start) used++;
  blocks[i] = (block){start, end};
}

/* Forget the block starting at start; 0 when the table did not hold it. */
static int forget(uintptr_t start) {
  size_t i, j;
  if (!capacity) return 0;
  for (i = slot_of(start); blocks[i].start != start; i = (i + 1) & (capacity - 1))
    if (!blocks[i].start) return 0;
  /* backward shift: move later members of the probe run into the hole */
  for (j = (i + 1) & (capacity - 1); blocks[j].start; j = (j + 1) & (capacity - 1)) {
    size_t home = slot_of(blocks[j].start);
    if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
      blocks[i] = blocks[j];
      i = j;
    }
  }
  blocks[i] = (block){0, 0};
  used--;
  return 1;
}

/* ---- small blocks: a ring of the latest allocations and frees ---------------------------
 * Blocks below OMPCL_HEAP_MIN bytes (a dozen counts, a small table of a struct) are written
 * to a ring, one atomic increment each, without the table's lock: a lookup that misses the
 * table reads it from the newest entry back. A block whose entry was overwritten since (more
 * than OMPCL_RING small allocations and frees later) is not found: its loop stays on the
 * host. A free is an entry with end 0. */
#define OMPCL_RING (1 << 16)
static block *ring;
static unsigned long ring_next; /* entries ever written */

static void ring_note(uintptr_t start, uintptr_t end) {
  block *r = __atomic_load_n(&ring, __ATOMIC_ACQUIRE);
  if (!r) {
    block *fresh = __real_calloc(OMPCL_RING, sizeof *fresh), *none = 0;
    if (!fresh) return;
    if (!__atomic_compare_exchange_n(&ring, &none, fresh, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
      __real_free(fresh);
    r = __atomic_load_n(&ring, __ATOMIC_ACQUIRE);
  }
  unsigned long k = __atomic_fetch_add(&ring_next, 1, __ATOMIC_ACQ_REL);
  block *e = &r[k & (OMPCL_RING - 1)];
  __atomic_store_n(&e->end, end, __ATOMIC_RELAXED);
  __atomic_store_n(&e->start, start, __ATOMIC_RELEASE);
}

/* The small block holding a, from the newest entry back: one not freed after it (the entries
 * newer than the block are searched for its free only once the block is found: a program
 * freeing many small blocks after allocating it leaves it findable). */
static int ring_find(uintptr_t a, uintptr_t *start, uintptr_t *end) {
  block *r = __atomic_load_n(&ring, __ATOMIC_ACQUIRE);
  unsigned long n = __atomic_load_n(&ring_next, __ATOMIC_ACQUIRE), k, j;
  if (!r) return 0;
  for (k = n; k > 0 && n - k < OMPCL_RING; k--) {
    uintptr_t s = __atomic_load_n(&r[(k - 1) & (OMPCL_RING - 1)].start, __ATOMIC_ACQUIRE);
    uintptr_t e = __atomic_load_n(&r[(k - 1) & (OMPCL_RING - 1)].end, __ATOMIC_RELAXED);
    if (!s || s > a || !e || a >= e) continue;
    for (j = k; j < n; j++) /* freed since: gone (its address may be another block's now) */
      if (__atomic_load_n(&r[j & (OMPCL_RING - 1)].start, __ATOMIC_ACQUIRE) == s &&
          !__atomic_load_n(&r[j & (OMPCL_RING - 1)].end, __ATOMIC_RELAXED))
        return 0;
    *start = s;
    *end = e;
    return 1;
  }
  return 0;
}

static void note(void *p, size_t bytes) {
  if (p && bytes && bytes < OMPCL_HEAP_MIN) ring_note((uintptr_t)p, (uintptr_t)p + bytes);
  if (!p || bytes < OMPCL_HEAP_MIN) return;
  heap_acquire();
  put((uintptr_t)p, (uintptr_t)p + bytes);
  heap_release();
}

void *__wrap_malloc(size_t n) {
  void *p = __real_malloc(n);
  note(p, n);
  return p;
}

void *__wrap_calloc(size_t k, size_t n) {
  void *p = __real_calloc(k, n);
  if (p && (!n || k <= (size_t)-1 / n)) note(p, k * n);
  return p;
}

void *__wrap_aligned_alloc(size_t align, size_t n) {
  void *p = __real_aligned_alloc(align, n);
  note(p, n);
  return p;
}

int __wrap_posix_memalign(void **out, size_t align, size_t n) {
  int err = __real_posix_memalign(out, align, n);
  if (!err) note(*out, n);
  return err;
}

void *__wrap_memalign(size_t align, size_t n) {
  void *p = __real_memalign(align, n);
  note(p, n);
  return p;
}

void *__wrap_valloc(size_t n) {
  void *p = __real_valloc(n);
  note(p, n);
  return p;
}

/* pvalloc allocates n rounded up to whole pages: no more than the block holds is noted */
void *__wrap_pvalloc(size_t n) {
  void *p = __real_pvalloc(n);
  long page = sysconf(_SC_PAGESIZE);
  size_t ps = page > 0 ? (size_t)page : 1, usable = p ? malloc_usable_size(p) : 0;
  size_t whole = n <= (size_t)-1 - ps ? (n + ps - 1) / ps * ps : n;
  note(p, whole < usable ? whole : usable);
  return p;
}

/* the program's strdup and strndup: the copy is a heap block the program may index and free */
char *__wrap_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = __real_strdup ? __real_strdup(s) : __real_malloc(n);
  if (p && !__real_strdup) memcpy(p, s, n);
  note(p, n);
  return p;
}

char *__wrap_strndup(const char *s, size_t k) {
  size_t n = strnlen(s, k);
  char *p = __real_strndup ? __real_strndup(s, k) : __real_malloc(n + 1);
  if (p && !__real_strndup) {
    memcpy(p, s, n);
    p[n] = 0;
  }
  note(p, n + 1);
  return p;
}

void __wrap_free(void *p) {
  size_t usable = p ? malloc_usable_size(p) : 0;
  if (usable) ompcl_rt_block_freed((uintptr_t)p, (uintptr_t)p + usable, 0);
  /* a block too small for the table (its usable size is at least what was asked) */
  if (p && usable < OMPCL_HEAP_MIN) {
    if (__atomic_load_n(&ring, __ATOMIC_RELAXED)) ring_note((uintptr_t)p, 0);
  } else if (p) {
    int held;
    heap_acquire();
    held = forget((uintptr_t)p);
    heap_release();
    /* asked below the table's minimum, rounded up past it by the allocator: in the ring */
    if (!held && __atomic_load_n(&ring, __ATOMIC_RELAXED)) ring_note((uintptr_t)p, 0);
  }
  __real_free(p);
}

/* The end of the table's block starting at q (0: none). Under the lock. */
static uintptr_t end_of(uintptr_t q) {
  if (!capacity) return 0;
  for (size_t i = slot_of(q); blocks[i].start; i = (i + 1) & (capacity - 1))
    if (blocks[i].start == q) return blocks[i].end;
  return 0;
}

void *__wrap_realloc(void *q, size_t n) {
  void *p;
  uintptr_t was = 0;
  /* the old block is forgotten before it may be freed (its address could be another
   * thread's block at once), and remembered again if it stays */
  if (q) {
    ompcl_rt_block_freed((uintptr_t)q, (uintptr_t)q + malloc_usable_size(q), 1);
    heap_acquire();
    was = end_of((uintptr_t)q);
    if (was) forget((uintptr_t)q);
    heap_release();
    if (!was && __atomic_load_n(&ring, __ATOMIC_RELAXED)) ring_note((uintptr_t)q, 0);
  }
  p = __real_realloc(q, n);
  if (!p && n && was) { /* failed: q is as it was */
    heap_acquire();
    put((uintptr_t)q, was);
    heap_release();
  }
  note(p, n);
  return p;
}

/* reallocarray is realloc of k * n bytes, refused (ENOMEM) where the product overflows: done
 * here, so it needs no libc member a static link would leave out */
void *__wrap_reallocarray(void *q, size_t k, size_t n) {
  if (n && k > (size_t)-1 / n) {
    errno = ENOMEM;
    return 0;
  }
  return __wrap_realloc(q, k * n);
}

/* ---- lookups ---------------------------------------------------------------------------- */

/* The known object holding address a: its [start, end); 0 when none. */
int ompcl_find_object(uintptr_t a, uintptr_t *start, uintptr_t *end) {
  int found = 0;
  pthread_mutex_lock(&objects_lock);
  for (struct objects *o = objects; o && !found; o = o->next)
    for (int i = 0; i < o->n; i++) {
      uintptr_t s = (uintptr_t)o->table[i].addr, e = s + o->table[i].bytes;
      if (s <= a && a < e) {
        *start = s;
        *end = e;
        found = 1;
        break;
      }
    }
  pthread_mutex_unlock(&objects_lock);
  if (found) return 1;
  heap_acquire();
  if ((*end = end_of(a))) { /* a block's start (a row malloc'd on its own): one probe */
    *start = a;
    heap_release();
    return 1;
  }
  for (size_t i = 0; i < capacity; i++)
    if (blocks[i].start && blocks[i].start <= a && a < blocks[i].end) {
      *start = blocks[i].start;
      *end = blocks[i].end;
      found = 1;
      break;
    }
  heap_release();
  return found || ring_find(a, start, end);
}
