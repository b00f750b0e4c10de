/* ompcl runtime: the program's objects, so that a pointer can be charged the object it points
 * into: the file-scope arrays each translated file registers before main (ompcl_rt_objects),
 * and the heap blocks the program allocates, seen through the linker's --wrap of malloc,
 * calloc, realloc, free, aligned_alloc and posix_memalign (ompcl cc links with it). A heap
 * block is remembered from OMPCL_HEAP_MIN bytes on, in a hash table by its start, until it is
 * freed or reallocated; without --wrap nothing is remembered and every lookup of a heap
 * pointer fails (its loops then stay on the host). */

#include "ompcl_rt_internal.h"

#define OMPCL_HEAP_MIN 512

/* The real allocator: the linker binds __real_X to X under --wrap=X; weak, so a program
 * linked without --wrap (the __wrap_ functions then unused) still links. */
extern void *__real_malloc(size_t) __attribute__((weak));
extern void *__real_calloc(size_t, size_t) __attribute__((weak));
extern void *__real_realloc(void *, size_t) __attribute__((weak));
extern void __real_free(void *) __attribute__((weak));
extern void *__real_aligned_alloc(size_t, size_t) __attribute__((weak));
extern int __real_posix_memalign(void **, size_t, size_t) __attribute__((weak));

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
static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;

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

static void forget(uintptr_t start) {
  size_t i, j;
  if (!capacity) return;
  for (i = slot_of(start); blocks[i].start != start; i = (i + 1) & (capacity - 1))
    if (!blocks[i].start) return;
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
}

static void note(void *p, size_t bytes) {
  if (!p || bytes < OMPCL_HEAP_MIN) return;
  pthread_mutex_lock(&heap_lock);
  put((uintptr_t)p, (uintptr_t)p + bytes);
  pthread_mutex_unlock(&heap_lock);
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

void __wrap_free(void *p) {
  if (p) {
    pthread_mutex_lock(&heap_lock);
    forget((uintptr_t)p);
    pthread_mutex_unlock(&heap_lock);
  }
  __real_free(p);
}

void *__wrap_realloc(void *q, size_t n) {
  void *p;
  /* under the lock: the old block's address cannot be remembered again for another
   * allocation before it is forgotten */
  pthread_mutex_lock(&heap_lock);
  p = __real_realloc(q, n);
  if (q && (p || !n)) forget((uintptr_t)q);
  if (p && n >= OMPCL_HEAP_MIN) put((uintptr_t)p, (uintptr_t)p + n);
  pthread_mutex_unlock(&heap_lock);
  return p;
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
  pthread_mutex_lock(&heap_lock);
  if (capacity) /* a block's start (a row malloc'd on its own): one probe */
    for (size_t i = slot_of(a); blocks[i].start; i = (i + 1) & (capacity - 1))
      if (blocks[i].start == a) {
        *start = a;
        *end = blocks[i].end;
        pthread_mutex_unlock(&heap_lock);
        return 1;
      }
  for (size_t i = 0; i < capacity; i++)
    if (blocks[i].start && blocks[i].start <= a && a < blocks[i].end) {
      *start = blocks[i].start;
      *end = blocks[i].end;
      found = 1;
      break;
    }
  pthread_mutex_unlock(&heap_lock);
  return found;
}
