/* ompcl runtime: the public entry points of ompcl_rt.h that take the lock; the rest of the
 * runtime lives in ompcl_rt_*.c by concern (README.md here draws a region through them).
 *
 * Consumes: region descriptors, kernel sources and launch arguments from ompcl-generated host
 * code; the environment (OMPCL_DEVICE, OMPCL_PLATFORM, OMPCL_DEVICE_TYPE, OMPCL_CACHE_DIR,
 * OMPCL_STATS, OMPCL_LOG, OMPCL_BOUNDS_CHECK, OMPCL_FAULT, OMPCL_SHAPE, OMPCL_MAX_GROUPS,
 * OMPCL_ZERO_COPY, OMPCL_COHERENT, ...); an
 * OpenCL ICD loader found with dlopen at run time.
 * Produces: kernel launches on the chosen device over a present table (host ranges -> device
 * buffers, with host/device validity), program binaries in the cache directory, warnings and
 * log lines on stderr, and a JSON statistics report at exit.  Any OpenCL failure makes the
 * caller run its OpenMP loop instead.  Entry points take one lock: host paths of a region may
 * run on every thread of an enclosing parallel region at once.
 */
#include "ompcl_rt_internal.h"

/* the interface number translated files refer to (ompcl_rt.h) */
const int OMPCL_RT_ABI_SYMBOL = OMPCL_RT_ABI;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* this thread holds `lock`: a free() it makes (the runtime's own) is no user block's */
static __thread int holding;
#define LOCK() (pthread_mutex_lock(&lock), holding = 1)
#define UNLOCK() (holding = 0, pthread_mutex_unlock(&lock))

/* Calls between instrumented functions: the caller announces, the callee takes it at entry. */
static __thread int announced;

int ompcl_rt_decide(ompcl_launch *L, int ndim, const long n[]) {
  int ok;
  LOCK();
  ok = ompcl_settle(L, ndim, n);
  UNLOCK();
  return ok;
}

/* The launch runs the original loop instead, counted in `counter`; 0 when it had declined
 * already. Under the lock. */
int ompcl_decline(ompcl_launch *L, long *counter) {
  if (!L->ok) return 0;
  L->ok = 0;
  L->declined = 1;
  L->r->last_decision = 0;
  (*counter)++;
  return 1;
}

void ompcl_rt_decline(ompcl_launch *L, const char *why) {
  LOCK();
  if (ompcl_decline(L, &L->r->check_declines)) {
    ompcl_log("%s:%d: host: %s", L->r->file, L->r->line, why);
    if (L->r->device_runs > 0 && !L->r->check_warned++)
      /* what the original reads here was left by iterations that ran on the device */
      fprintf(stderr, "ompcl: warning: %s:%d: %s after the loop ran on the device; what it "
              "reads there may differ from the OpenMP original's\n", L->r->file, L->r->line, why);
  }
  UNLOCK();
}

void ompcl_rt_distinct(ompcl_launch *L, int a, int b) {
  if (!L->ok || a >= L->narrays || b >= L->narrays ||
      !ompcl_args_overlap(&L->arrays[a], &L->arrays[b]))
    return;
  LOCK();
  if (ompcl_decline(L, &L->r->alias_declines))
    ompcl_log("%s:%d: host: array arguments %d and %d overlap (the kernel assumes distinct "
              "memory)", L->r->file, L->r->line, a, b);
  UNLOCK();
}

/* Device seconds of every kernel launched so far (profiling events), for benchmarks that time
 * single calls. */
double ompcl_rt_kernel_seconds(void) {
  double s = 0;
  LOCK();
  for (const ompcl_region *r = ompcl_stats.regions; r; r = r->next) s += r->kernel_seconds;
  UNLOCK();
  return s;
}

/* Device copies are stale from here on, so their buffers are released: a later region maps
 * again, and no buffer outlives the host memory it mirrors. */
void ompcl_rt_sync_host(void) {
  LOCK();
  ompcl_release_unused(0);
  UNLOCK();
}

int ompcl_rt_team_begin(ompcl_region *t) {
  int ok;
  LOCK();
  ok = ompcl_team_begin(t);
  UNLOCK();
  return ok;
}

void ompcl_rt_team_end(ompcl_region *t) {
  LOCK();
  ompcl_team_end(t);
  UNLOCK();
}

int ompcl_rt_begin(ompcl_region *r, ompcl_launch *L, long iters) {
  int ok;
  LOCK();
  ok = ompcl_region_begin(r, L, iters);
  UNLOCK();
  return ok;
}

void ompcl_rt_arg_array(ompcl_launch *L, void *ptr, long lo, long hi, unsigned long esize,
                        int mode) {
  LOCK();
  int tree = L->trees && ompcl_tree_clamp(L, &lo, &hi);
  /* a null pointer (an optional array this run leaves out): the loop reaches it only on a
   * path the original never takes (a guard, or a test of the pointer), so nothing is copied
   * and the kernel's parameter is null too; a pointer tree's staging block is never null */
  if (!ptr && lo <= hi) {
    if (!tree)
      hi = lo - 1;
    else if (ompcl_decline(L, &L->r->block_declines))
      ompcl_log("%s:%d: host: an array argument is a null pointer", L->r->file, L->r->line);
  }
  ompcl_arg_array(L, ptr, lo, hi, esize, mode);
  UNLOCK();
}

int ompcl_rt_launch(ompcl_launch *L, int ndim, const long n[]) {
  int ok;
  LOCK();
  ok = ompcl_launch_run(L, ndim, n);
  if (L->trees) ompcl_trees_finish(L, ok);
  UNLOCK();
  return ok;
}

void ompcl_rt_host_range(const void *addr, unsigned long bytes, int mode) {
  /* nothing is on the device */
  if (!__atomic_load_n(&ompcl_present.maps, __ATOMIC_ACQUIRE)) return;
  LOCK();
  ompcl_host_range(addr, bytes, mode);
  UNLOCK();
}

void ompcl_rt_host_index(const void *base, unsigned long esize, long lo, long hi, int mode) {
  uintptr_t a, b;
  if (hi <= lo || !__atomic_load_n(&ompcl_present.maps, __ATOMIC_ACQUIRE)) return;
  /* address arithmetic on integers: a range a callee may not reach is never a pointer */
  a = (uintptr_t)base + (uintptr_t)lo * (uintptr_t)esize;
  b = (uintptr_t)base + (uintptr_t)hi * (uintptr_t)esize;
  if (b <= a) return; /* wrapped around: nothing the host could reach */
  LOCK();
  ompcl_host_range((const void *)a, (unsigned long)(b - a), mode);
  UNLOCK();
}

void ompcl_rt_host_object(const void *p, int mode) {
  uintptr_t a = (uintptr_t)p, s, e;
  if (!__atomic_load_n(&ompcl_present.maps, __ATOMIC_ACQUIRE)) return;
  /* an object holding p, or ending at p (a pointer one past an object's end): both */
  int inside = ompcl_find_object(a, &s, &e);
  uintptr_t s2 = 0, e2 = 0;
  int ending = a > 0 && ompcl_find_object(a - 1, &s2, &e2) && e2 == a;
  LOCK();
  if (inside) ompcl_host_range((const void *)s, (unsigned long)(e - s), mode);
  if (ending) ompcl_host_range((const void *)s2, (unsigned long)(e2 - s2), mode);
  if (!inside && !ending) ompcl_host_all(mode);
  UNLOCK();
}

int ompcl_rt_block(ompcl_launch *L, const void *p, unsigned long esize, long *lo, long *hi) {
  uintptr_t a = (uintptr_t)p, s, e;
  if (!p) { /* no block: nothing the loop may reach (ompcl_rt_arg_array) */
    *lo = 0;
    *hi = -1;
    return 1;
  }
  if (esize && ompcl_find_object(a, &s, &e)) {
    *lo = -(long)((a - s) / esize);
    *hi = (long)((e - a) / esize) - 1;
    return 1;
  }
  *lo = 0;
  *hi = -1;
  LOCK();
  if (ompcl_decline(L, &L->r->block_declines))
    ompcl_log("%s:%d: host: an array argument points into no object the runtime knows (a "
              "heap block of a program linked without ompcl cc, or stack memory)",
              L->r->file, L->r->line);
  UNLOCK();
  return 0;
}

void ompcl_rt_host_all(int mode) {
  if (!__atomic_load_n(&ompcl_present.maps, __ATOMIC_ACQUIRE)) return;
  LOCK();
  ompcl_host_all(mode);
  UNLOCK();
}

void ompcl_rt_announce(void) { announced = 1; }

int ompcl_rt_enter(void) {
  int k = announced;
  announced = 0;
  return k;
}

void ompcl_rt_leave(int caller_instrumented, const void *frame) {
  announced = 0;
  if (!__atomic_load_n(&ompcl_present.maps, __ATOMIC_ACQUIRE)) return;
  LOCK();
  if (!caller_instrumented) ompcl_host_all(OMPCL_READWRITE); /* the caller may touch anything */
  ompcl_release_frame((uintptr_t)frame);
  UNLOCK();
}

void ompcl_rt_host(ompcl_region *r) {
  LOCK();
  ompcl_region_host(r);
  UNLOCK();
}

void ompcl_rt_end(ompcl_region *r, int keep_resident) {
  LOCK();
  ompcl_region_end(r, keep_resident);
  UNLOCK();
}

/* A heap block [a, b) is about to be freed (keep 0) or moved by realloc (keep 1): mappings of
 * it go, read back first where its bytes still matter (a move copies them; a mapping reaching
 * beyond the block holds other data too), so no later read-back writes into memory the
 * allocator has handed out again. Called before the block is released, by any thread. */
void ompcl_rt_block_freed(uintptr_t a, uintptr_t b, int keep) {
  if (holding || !__atomic_load_n(&ompcl_present.maps, __ATOMIC_ACQUIRE)) return;
  LOCK();
  ompcl_present_forget(a, b, keep);
  UNLOCK();
}
