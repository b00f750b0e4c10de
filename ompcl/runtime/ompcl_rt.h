/* ompcl runtime: the C library every translated program links with.
 *
 * Consumes: region descriptors and kernel sources emitted by ompcl into host files.
 * Provides: OpenCL device selection (loaded with dlopen, so programs run without OpenCL),
 * program build with an on-disk binary cache, a present table mapping host address ranges
 * to device buffers with per-mapping validity, kernel launches, reductions, statistics,
 * and fallback to the OpenMP host version on any OpenCL failure.
 *
 * This header includes no system header on purpose: it is included at the top of user
 * files, before their own feature-test macros take effect.
 */
#ifndef OMPCL_RT_H
#define OMPCL_RT_H

#ifdef __cplusplus
extern "C" {
#endif

/* The interface between translated files and this runtime; bumped at every change of this
 * header (tests/test_rt_abi.py holds the header's hash for each number). Every translated
 * file refers to the symbol named after it, which only a runtime of the same number defines:
 * an object translated by another ompcl fails to link instead of running with a runtime
 * whose records it misreads. (An object `ompcl cc -c` writes carries its own runtime, weak,
 * so that other commands can link it; `ompcl cc` links refuse one of another number.) */
#define OMPCL_RT_ABI 10
#define OMPCL_ABI_CAT3(a, b, c) a##b##c
#define OMPCL_ABI_CAT(a, b, c) OMPCL_ABI_CAT3(a, b, c)
/* (the name is the linker's message: "undefined reference to ompcl_rt_abi_6_...") */
#define OMPCL_RT_ABI_SYMBOL \
  OMPCL_ABI_CAT(ompcl_rt_abi_, OMPCL_RT_ABI, _rebuild_objects_translated_by_another_ompcl)
extern const int OMPCL_RT_ABI_SYMBOL;
#define OMPCL_READ 1
#define OMPCL_WRITE 2
#define OMPCL_READWRITE 3
#define OMPCL_MAX_ARGS 128
#define OMPCL_MAX_RESULTS 16
#define OMPCL_MAX_COPIES 4

/* A region function that only hands arguments to the runtime (no inspection or scratch
 * check loops) is compiled without optimisation: it costs a build more than it saves a run
 * (a few nanoseconds per call). */
#if defined(__clang__)
#define OMPCL_GLUE __attribute__((optnone, noinline))
#elif defined(__GNUC__)
#define OMPCL_GLUE __attribute__((optimize("O0")))
#else
#define OMPCL_GLUE
#endif
#define OMPCL_MIN(a, b) ((a) < (b) ? (a) : (b))
#define OMPCL_MAX(a, b) ((a) > (b) ? (a) : (b))

/* Bounds of mapped ranges in generated code: functions, so nested bounds stay linear in size
 * after preprocessing. skip_lo / skip_hi: a range end that a guard 'v != value' excludes.
 * Defined in the runtime, not inline here: region functions call them once per entry, and
 * their inline copies, compiled into every translated file, cost each build of one ~4 ms. */
long ompcl_lmin(long a, long b);
long ompcl_lmax(long a, long b);
long ompcl_skip_lo(long end, long value);
long ompcl_skip_hi(long end, long value);
/* The ends of an access's range when it never executes (a guard or an inner loop left an
 * index's range empty): neutral in the min and max over accesses, and an empty range when
 * every access is; row_lo / row_hi scale a range by its row length, an empty one to [0, -1]. */
#define OMPCL_EMPTY_LO ((long)(~0UL >> 2))
#define OMPCL_EMPTY_HI (-(long)(~0UL >> 2))
long ompcl_row_lo(long lo, long hi, long row);
long ompcl_row_hi(long lo, long hi, long row);

/* One OpenCL program: all kernels generated from one source file. */
typedef struct ompcl_program {
  const char *source;      /* OpenCL C source, or "" to read kernel_path */
  const char *file;        /* user's file, for messages */
  const char *kernel_path; /* kernel file (searched in $OMPCL_KERNEL_DIR, the executable's
                              directory, the working directory) when source is "" */
  int nlayout;             /* struct sizes and member offsets the device must agree on: */
  void (*layout)(long *out); /* writes the host's (the kernel ompcl_layout the device's) */
  double layout_cost[3];   /* dynamic reordering's cost model (models/layout-cost.json):
                              seconds saved per access, seconds per transposition and per
                              byte; zeros: OMPCL_LAYOUT_* defaults */
  /* runtime state (zero-initialised) */
  int state;               /* 0 = not built, 1 = built, -1 = failed */
  void *handle;            /* cl_program */
  double build_seconds;    /* what making it ready took (from source or the binary cache) */
} ompcl_program;

/* A checked array access of a kernel (reported when OMPCL_BOUNDS_CHECK=1 finds it out of
 * the range mapped for its buffer), or an assert of its loop body (buffer -1: a kernel with
 * one always has the report buffer bound, and a failure stops the program as glibc's
 * assert does). */
typedef struct ompcl_site {
  int buffer;              /* index of the kernel's array argument; -1: an assert */
  const char *array;       /* the user's array name; the assertion's text */
  const char *where;       /* file:line:col of the access; "file:line: function" */
} ompcl_site;

/* The features a dispatch model sees, in this order (ompcl.predict.schema.FEATURES): the
 * kernel's static per-work-item counts, what the runtime knows when the region starts, and the
 * combined features of Grewe et al. computed from them. */
#define OMPCL_NSTATIC 6        /* comp, mem, localmem, coalesced, atomic, branches */
#define OMPCL_NRAW 9           /* ... transfer (bytes to move), work_items, wgsize */
#define OMPCL_NFEATURES 13     /* ... transfer/(comp+mem), coalesced/mem,
                                  localmem/mem*wgsize, comp/mem */
/* The load features after them (ompcl.predict.schema.LOAD, ompcl_rt_load.c), read only by a
 * model that names them (compiled-in models see the first OMPCL_NFEATURES): other processes'
 * runnable tasks per core, their busy share of the cores, the device's load, the host path's
 * thread count, the cores this process may use. */
#define OMPCL_NLOAD 5
#define OMPCL_NALL (OMPCL_NFEATURES + OMPCL_NLOAD)
#define OMPCL_LOAD_MAX_THREADS 16 /* host entries are counted per thread count up to this */
/* Auto mode starts OpenCL once the host has spent this long (seconds) in loops the model
 * sends to the device: about what starting it costs on a CPU device with cached kernel
 * binaries (OMPCL_STARTUP overrides; 0 starts it at the first such loop). */
#define OMPCL_STARTUP_SECONDS 0.03
/* auto mode: seconds a size class spends on the side the model chose (OMPCL_PROBE) before
   the other side is measured on it */
#define OMPCL_PROBE_SECONDS 0.25
#define OMPCL_PROBE_ENTRIES 10   /* ... and entries it has run there at least */
#define OMPCL_PROBE_RUNS 2       /* entries on the other side that the measurement takes */
#define OMPCL_PROBE_START_FACTOR 20 /* ... times OpenCL's start-up when the probe starts it */
#define OMPCL_START_GUESS 0.4    /* seconds starting OpenCL takes, until one start is measured */
/* Host seconds per counted operation (comp + mem) of a work-item, for guessing an entry's
 * length before it first runs: 2 OpenMP threads here, a sin/cos map (0.24 ns measured). */
#define OMPCL_HOST_OP_SECONDS 0.25e-9
/* Dynamic index reordering's cost model where the program has none compiled in (measured on
 * a 2-core CPU OpenCL device, python -m ompcl.bench.layout_cost): seconds an access to a
 * permuted array saves, seconds a transposition costs and per byte it moves. */
#define OMPCL_LAYOUT_GAIN 2e-10
#define OMPCL_LAYOUT_COPY 5e-5
#define OMPCL_LAYOUT_BYTE 3e-11
/* auto mode builds a region's reordered variants once its kernel has run this many times as
   long as building the kernels' program took (the variants' program costs about as much;
   OMPCL_LAYOUT_BUILD overrides) */
#define OMPCL_LAYOUT_BUILD_FACTOR 4
/* Megabytes of kernel binaries the cache keeps (OMPCL_CACHE_MB overrides). */
#define OMPCL_CACHE_MB_DEFAULT 256
#define OMPCL_MAX_SIZES 32     /* problem-size classes per region (log2 of the work-items) */

/* What happened at one problem size (a power-of-two class of work-items) of a region. */
typedef struct ompcl_size_stats {
  long work_items;         /* of the last entry in this class */
  long entries, device_runs, host_runs;
  double seconds_device, seconds_host, kernel_seconds, transfer_seconds;
  long bytes_to_device, bytes_to_host;
  double statics[OMPCL_NSTATIC]; /* features at the last device-ready entry: static counts */
  double transfer;         /* ... and the dynamic ones */
  long wgsize;
  signed char decision[2]; /* cached model decisions (0 none, 1 device, 2 host), without and
                              with data to move */
  /* auto mode's check of the model by measurement (ompcl_probe_due in ompcl_rt_model.c) */
  double items_device, items_host;  /* work-items run on each side */
  signed char probe;       /* 0 not checked, 1 probing the other side, 2 measured */
  signed char probe_device; /* the side being probed: 1 the device */
  int probe_runs;          /* entries of the probe so far */
  double probe_seconds, probe_items; /* of those after the first (which pays first-run costs) */
  double load[OMPCL_NLOAD]; /* the load features at the last decision */
  int load_level;          /* other processes' busy cores when the decision was cached (a
                              model with load features decides again when it changes) */
} ompcl_size_stats;

/* One offloadable region (an OpenMP loop) of a translated file. */
typedef struct ompcl_region {
  ompcl_program *prog;
  const char *file;
  int line;
  const char *kernel;      /* kernel name in prog */
  int nfeatures;           /* static features, in the model's order */
  const double *features;
  int (*predict)(const double *features, int n); /* compiled-in model over the OMPCL_NFEATURES
                                                     features: 1 = device, 0 = host; may be 0 */
  int nsites;              /* checked accesses of the kernel, by site number */
  const ompcl_site *sites;
  int keep;                /* a team whose device version is probed: data stays on the device
                              at its entry and exit */
  int serial;              /* a team's loops left on the host, each a parallel loop of its
                              own in the team of one: its device version only when the
                              device is forced */
  ompcl_program *vprog;    /* the program of the variants (built when one is wanted): */
  const char *variant;     /* kernel over permuted copies of some arrays, or 0: for the
                              blocked shape (CPUs) */
  const char *variant_grid; /* ... for the grid shape (GPUs) */
  int nloops;              /* a team's own loops that are kernels (auto mode: none, the
                              original region runs) */
  int idle;                /* runtime: a team whose device version launched no kernel (auto
                              mode then runs the original region) */
  long launch_mark;        /* runtime: kernels launched when the team's entry began */
  /* runtime state (zero-initialised) */
  int registered;
  struct ompcl_region *next;
  void *kernel_handle;     /* cl_kernel */
  void *variant_handle;    /* cl_kernel of the variant of the device's shape (0: none) */
  int variant_state;       /* 0 not created, 1 created, -1 failed */
  long relayout_runs, relayout_copies; /* launches of the variant; transpositions they made */
  double relayout_seconds; /* of those transpositions (profiling events) */
  double relayout_accesses; /* the variant's accesses to permuted arrays per work-item (last
                               device entry) */
  double rate_kernel, rate_variant; /* kernel seconds per work-item, the fastest launch of
                               each (use_variant measures the variant against the kernel) */
  long entries, device_runs, host_runs, kernels_launched;
  long bytes_to_device, bytes_to_host;
  long transfers_to_device, transfers_to_host;
  long result_bytes;        /* read back after launches: reductions' partial results and
                               lastprivate values (not counted in bytes_to_host) */
  long decisions_device, decisions_host;  /* of the dispatch model (auto mode) */
  long check_runs, check_hits, check_declines; /* run-time scratch checks (ompcl_sc) */
  long alias_declines;      /* entries on the host: two arrays the kernel assumes distinct overlap */
  long block_declines;      /* entries on the host: an array argument in no known object */
  int check_warned;
  int wanting;             /* this entry: the model chose the device before OpenCL started */
  double seconds_device, seconds_host, t_start;
  double kernel_seconds, transfer_seconds; /* from OpenCL profiling events */
  const char *fallback;    /* why the last device attempt failed, or 0 */
  long last_iters;
  int last_decision;
  double last_features[OMPCL_NALL]; /* the model's features, then the load features */
  int last_threads;        /* the host path's thread count at its last entry */
  long host_threads[OMPCL_LOAD_MAX_THREADS]; /* host entries per thread count (1, 2, ...) */
  double t_kernel, t_transfer;      /* of the entry in progress */
  long b_to_device, b_to_host;
  ompcl_size_stats sizes[OMPCL_MAX_SIZES];
} ompcl_region;

/* Argument of a launch being prepared. */
typedef struct ompcl_result {
  void *buffer;            /* cl_mem */
  unsigned long esize;
  long count;
  void *host;              /* host copy after the launch */
} ompcl_result;

/* An array argument of a launch: mapped (and copied) only once the device is chosen. */
typedef struct ompcl_array_arg {
  void *ptr;
  long lo, hi;             /* element range the kernel may touch */
  unsigned long esize;
  int mode;
  int arg;                 /* index of its first kernel parameter */
  int ndims;               /* > 0: the variant kernels read copies of the whole array, of
                              dimensions `dims`, permuted by perms[0] (the blocked shape's
                              variant) or perms[1] (the grid shape's): new position ->
                              dimension; 0 where that variant reads the array as it is */
  const long *dims;
  const int *perms[2];
  int nd;                  /* launch: ndims where the variant run permutes it, else 0 */
  const int *perm;
  void *shadow;            /* the permuted copy bound for this launch */
} ompcl_array_arg;

typedef struct ompcl_launch {
  /* zeroed at every entry (ompcl_rt_begin): everything up to `maps` */
  ompcl_region *r;
  int ok;                  /* 0 once anything failed */
  int declined;            /* the dispatch model chose the host: no failure */
  int nargs;
  int nmaps;
  int narrays;                    /* array arguments, with the ranges the checker allows */
  long iters;                     /* work-items (iterations) of this entry */
  int nstatic;                    /* > 0: static features computed at entry (run-time trip
                                     counts of inner loops), replacing the region's */
  double features[OMPCL_NSTATIC];
  int nresults;
  unsigned long local[3];
  unsigned long global[3];
  long groups;
  int ndim;
  int deferred;            /* auto mode before OpenCL is started: scalar arguments kept in
                              `pending` until the model wants the device */
  int npending;
  int settled;             /* the device/host decision is made (ompcl_rt_decide) */
  int variant;             /* the launch runs the region's variant kernel */
  double kernel_dt;        /* seconds of the launch's kernel (profiling event) */
  double relayout_accesses[2]; /* the variants' accesses to permuted arrays per work-item
                                  (blocked, grid) */
  void *trees;             /* pointer trees gathered into staging blocks (ompcl_rt_tree.c) */
  int ncopies;             /* arrays with a private copy per work-item (ompcl_rt_arg_copy) */
  /* filled up to their counts before they are read (not zeroed: a host entry of a region
     pays for the counts only) */
  void *maps[OMPCL_MAX_ARGS];     /* mappings used (for marking writes) */
  int modes[OMPCL_MAX_ARGS];
  ompcl_array_arg arrays[OMPCL_MAX_ARGS];
  long lo[OMPCL_MAX_ARGS], hi[OMPCL_MAX_ARGS];
  ompcl_result results[OMPCL_MAX_RESULTS];
  int result_arg[OMPCL_MAX_RESULTS];
  struct { int array, arg; unsigned long esize; } copies[OMPCL_MAX_COPIES];
  struct { int arg; unsigned long size; void *value; } pending[OMPCL_MAX_ARGS];
} ompcl_launch;

/* Iteration count of a canonical loop; op: 0 '<', 1 '<=', 2 '>', 3 '>='. */
long ompcl_trip(long lb, long ub, long step, int op);

/* Region entry: counts, timers and the device/host decision.  Returns 1 when the caller
 * should try the device path (then fill `L` with args and call ompcl_rt_launch), 0 for the
 * host path.  `iters` is the total iteration count. */
int ompcl_rt_begin(ompcl_region *r, ompcl_launch *L, long iters);

/* Arguments, in kernel parameter order. */
void ompcl_rt_arg_array(ompcl_launch *L, void *ptr, long lo, long hi, unsigned long esize, int mode);
void ompcl_rt_arg_scalar(ompcl_launch *L, const void *value, unsigned long size);
/* The array argument just added is one the region's variant kernels read through a copy
 * whose dimensions (of sizes dims[0..nd-1]) are permuted: new position k holds dimension
 * perm[k], `blocked` for the blocked shape's variant, `grid` for the grid shape's (0: that
 * variant reads it as it is). */
void ompcl_rt_arg_layout(ompcl_launch *L, int nd, const long *dims, const int *blocked,
                         const int *grid);
/* A result buffer: per_group != 0 -> one element per work-group (reduction partials),
 * else a single element (lastprivate). */
void ompcl_rt_arg_result(ompcl_launch *L, unsigned long esize, int per_group);
/* Array argument k (in ompcl_rt_arg_array order), which the kernel only updates with
 * operations that may be grouped, gets a private copy per work-item in the blocked shape
 * where that pays (a global buffer, a slice per work-item, merged at the work-item's end);
 * two parameters: the buffer and the elements of a slice (0: none, direct atomics). */
void ompcl_rt_arg_copy(ompcl_launch *L, int k, unsigned long esize);

/* Decide (in auto mode, the dispatch model on the static and dynamic features), map the
 * arrays (copying what is stale), enqueue over ndim loops with trip counts n[0] (outermost)
 * ... n[ndim-1] (innermost, ND dimension 0), wait, read results back.  Returns 1 on success;
 * 0 means nothing was changed on the host and the caller must run the host version (the
 * model chose the host, or the device failed). */
int ompcl_rt_launch(ompcl_launch *L, int ndim, const long n[]);

/* The decision of ompcl_rt_launch made early (it then only launches): 1 when the device is
 * chosen and ready.  ompcl_rt_decline: the host after all (a run-time check failed). */
int ompcl_rt_decide(ompcl_launch *L, int ndim, const long n[]);
void ompcl_rt_decline(ompcl_launch *L, const char *why);

/* A pointer tree (depth 2: T **root, 3: T ***root) whose leaf rows the kernel reads as one
 * block: rows [lo, hi] of the root and elements [0, widths[k]) of each level k below it
 * (los[k]: the lowest subscript the loop uses there; a negative one declines). Returns the
 * address to pass as the array argument that follows: the staging block, less `lo` rows.
 * The rows are copied in once the device is chosen, and the written ones back after the
 * launch; the host runs the original loop when they are not all inside writable memory or
 * overlap where one is written. */
void *ompcl_rt_tree(ompcl_launch *L, const void *root, int depth, long lo, long hi,
                    const long *los, const long *widths, unsigned long esize, int mode);

/* The width of level `level` (1: the rows below the root) of a pointer tree whose subscripts
 * there the compiler cannot bound: the elements (esize bytes) from each of the level's
 * pointers -- root[lo..hi], or their rows' pointers in [los[0], widths[0]) -- to the end of
 * the heap block or array it points into, at most the distance to the next one where they
 * share a block at one stride. 0 and a decline (the host runs the loop) when a pointer is
 * null, points into no known object, or shares one unevenly. */
long ompcl_rt_tree_width(ompcl_launch *L, const void *root, int level, long lo, long hi,
                         const long *los, const long *widths, unsigned long esize);

/* The kernel was transformed assuming array arguments a and b (indexes among the launch's
 * array arguments) are different memory: when the ranges they touch overlap, the host runs
 * the original loop (no failure). */
void ompcl_rt_distinct(ompcl_launch *L, int a, int b);

/* Run-time check that an iteration writes the elements of a thread's scratch arrays before
 * it reads them (codegen.scratchcheck): a slice of the loop marks each access; an element
 * read in an iteration (ompcl_sc_next) that has not written it fails the check.  Values the
 * slice reads (OMPCL_SC_IN) and the key (entry values) are recorded, so the answer is reused
 * while they stay the same.  One check runs at a time (region functions run outside parallel
 * regions). */
#define OMPCL_SC_ARRAYS 8
#define OMPCL_SC_KEY 256
#define OMPCL_SC_CACHE 4
typedef struct { const void *p; unsigned long n; unsigned char v[16]; } ompcl_sc_rec;
typedef struct {
  unsigned char key[OMPCL_SC_KEY];
  unsigned long nkey, nrecs;
  ompcl_sc_rec *recs;
  int result, used;
} ompcl_sc_entry;
typedef struct ompcl_sc {
  struct { const char *base; unsigned long size, esize, nstamps; unsigned long *stamps;
           int shift; /* log2 of esize, or -1 */ } a[OMPCL_SC_ARRAYS];
  int narrays, failed, uncacheable;
  unsigned long epoch;
  unsigned char key[OMPCL_SC_KEY];
  unsigned long nkey, nrecs, caprecs;
  ompcl_sc_rec *recs;
  long hash[1024];          /* record index + 1 by address */
  ompcl_sc_entry cache[OMPCL_SC_CACHE];
  int next;
} ompcl_sc;
extern ompcl_sc *ompcl_sc_cur;
void ompcl_sc_begin(ompcl_sc *s);
void ompcl_sc_key(ompcl_sc *s, const void *p, unsigned long n);
int ompcl_sc_cached(ompcl_sc *s, ompcl_region *r, int *ok);
void ompcl_sc_array(ompcl_sc *s, const void *base, unsigned long size, unsigned long esize);
void ompcl_sc_apart(ompcl_sc *s, const void *a, unsigned long na, const void *b, long nb);
static inline void ompcl_sc_next(ompcl_sc *s) { s->epoch++; }

/* A read of n bytes at p: every element it touches of a checked array must carry this
 * iteration's stamp (a read partly inside an array is not an element access: it fails). */
static inline void ompcl_sc_read(ompcl_sc *s, const void *p, unsigned long n) {
  const char *c = (const char *)p;
  for (int k = 0; k < s->narrays; k++) {
    const char *b = s->a[k].base;
    unsigned long e0, e1, e;
    if (c >= b + s->a[k].size || c + n <= b) continue;
    if (c < b || c + n > b + s->a[k].size) {
      s->failed = 1;
      return;
    }
    if (n == s->a[k].esize && s->a[k].shift >= 0 &&
        !((unsigned long)(c - b) & (n - 1))) { /* one whole element */
      if (s->a[k].stamps[(unsigned long)(c - b) >> s->a[k].shift] != s->epoch) s->failed = 1;
      return;
    }
    e0 = (unsigned long)(c - b) / s->a[k].esize;
    e1 = (unsigned long)(c + n - 1 - b) / s->a[k].esize;
    for (e = e0; e <= e1; e++)
      if (s->a[k].stamps[e] != s->epoch) s->failed = 1;
    return;
  }
}

/* A write of n bytes at p: the elements it covers whole get this iteration's stamp. */
static inline void ompcl_sc_write(ompcl_sc *s, const void *p, unsigned long n) {
  const char *c = (const char *)p;
  for (int k = 0; k < s->narrays; k++) {
    const char *b = s->a[k].base, *lo = c > b ? c : b;
    const char *hi = c + n < b + s->a[k].size ? c + n : b + s->a[k].size;
    unsigned long es = s->a[k].esize, e;
    if (lo >= hi) continue;
    if (n == es && c == lo && s->a[k].shift >= 0 && !((unsigned long)(c - b) & (es - 1))) {
      s->a[k].stamps[(unsigned long)(c - b) >> s->a[k].shift] = s->epoch;
      return;
    }
    for (e = ((unsigned long)(lo - b) + es - 1) / es; e < (unsigned long)(hi - b) / es; e++)
      s->a[k].stamps[e] = s->epoch;
  }
}
const void *ompcl_sc_input(ompcl_sc *s, const void *p, unsigned long n);
int ompcl_sc_store(ompcl_sc *s);
#define OMPCL_SC_R(lv) ompcl_sc_read(ompcl_sc_cur, (const void *)&(lv), sizeof(lv))
#define OMPCL_SC_W(lv) ompcl_sc_write(ompcl_sc_cur, (const void *)&(lv), sizeof(lv))
#define OMPCL_SC_IN(lv) \
  (*(const __typeof__(lv) *)ompcl_sc_input(ompcl_sc_cur, (const void *)&(lv), sizeof(lv)))

/* Host copy of result k (in ompcl_rt_arg_result order) and its element count. */
const void *ompcl_rt_result(ompcl_launch *L, int k, long *count);

/* Release temporaries of a launch (result buffers). Safe after a failed launch. */
void ompcl_rt_launch_release(ompcl_launch *L);

/* Device seconds of every kernel launched so far (from profiling events). */
double ompcl_rt_kernel_seconds(void);

/* The host path is about to run: make host copies of every mapping valid. */
void ompcl_rt_host(ompcl_region *r);

/* Region exit: stats; unless keep_resident, make host copies valid and mark device
 * copies stale (host code follows and may read or write any of them). */
void ompcl_rt_end(ompcl_region *r, int keep_resident);

/* Make every host copy valid and every device copy stale. */
void ompcl_rt_sync_host(void);

/* Host code of an instrumented function is about to read (mode OMPCL_READ) or write
 * (OMPCL_WRITE) `bytes` bytes at `addr`: the part of a newer device copy is read back first,
 * a write makes that part of the device copy stale.  ompcl_rt_host_all: any memory. */
void ompcl_rt_host_range(const void *addr, unsigned long bytes, int mode);
void ompcl_rt_host_all(int mode);
/* The same for elements [lo, hi) of `esize` bytes from `base` (a callee's accesses through a
 * pointer argument; an empty range touches nothing). */
void ompcl_rt_host_index(const void *base, unsigned long esize, long lo, long hi, int mode);

/* The program's objects as translated files know them (their file-scope arrays, registered
 * before main), so host code that touches memory through a pointer can be charged the object
 * the pointer points into: ompcl_rt_host_object touches that object whole (and, where the
 * pointer is one past an object's end, that object too), or any memory when no known object
 * holds it. */
typedef struct ompcl_object {
  const void *addr;
  unsigned long bytes;
} ompcl_object;
void ompcl_rt_objects(const ompcl_object *table, int n);
void ompcl_rt_host_object(const void *p, int mode);

/* A region's array argument whose extent is the object it points into (a heap block or a
 * registered array): its elements [*lo, *hi] relative to p; none (*lo > *hi) for a null
 * pointer, which the kernel then sees as null; 0, and the launch declined (the original loop
 * runs), when no known object holds p. */
int ompcl_rt_block(ompcl_launch *L, const void *p, unsigned long esize, long *lo, long *hi);

/* Instrumented functions (their host code probed, data left on the device across calls):
 * the caller announces a call to one, the callee's entry takes the announcement (1 when its
 * caller is instrumented) and passes it to ompcl_rt_leave on every return with its frame
 * address; leaving for a caller that is not instrumented makes every host copy valid and
 * every device copy stale, and the frame's stack mappings are released in any case. */
void ompcl_rt_announce(void);
int ompcl_rt_enter(void);
void ompcl_rt_leave(int caller_instrumented, const void *frame);

/* A parallel region's entry, outside any parallel region: 1 when its device version (the
 * region run by a team of one thread, each work-sharing loop a kernel launch) should run;
 * then every offloadable loop until ompcl_rt_team_end goes to the device.  `t` describes the
 * region (kernel 0). */
int ompcl_rt_team_begin(ompcl_region *t);

/* End of a region begun by ompcl_rt_team_begin, on either path: host copies made valid
 * (device version), timers (seconds_device or seconds_host). */
void ompcl_rt_team_end(ompcl_region *t);

#ifdef __cplusplus
}
#endif
#endif
