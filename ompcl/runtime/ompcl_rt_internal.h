/* ompcl runtime, internal: what the runtime's files share (never included by generated code).
 *
 * The types of the present table, the OpenCL entry points, the state each file owns and
 * others read, and the functions one file calls in another.  Every name with external
 * linkage starts with ompcl_ (the runtime is linked into the user's program) and is hidden
 * from a shared object's exports.  Which file holds what: README.md in this directory.
 */
#ifndef OMPCL_RT_INTERNAL_H
#define OMPCL_RT_INTERNAL_H

#define _GNU_SOURCE /* pthread_getattr_np: the bounds of a thread's stack */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include "ompcl_rt.h"

#pragma GCC visibility push(hidden)

/* Every OpenCL entry point used; each is looked up with dlsym, none is linked. */
#define OMPCL_CL_FUNCS(X)                                                                     \
  X(GetPlatformIDs) X(GetPlatformInfo) X(GetDeviceIDs) X(GetDeviceInfo) X(CreateContext)      \
  X(CreateCommandQueue) X(CreateProgramWithSource) X(CreateProgramWithBinary) X(BuildProgram) \
  X(GetProgramBuildInfo) X(GetProgramInfo) X(CreateKernel) X(GetKernelWorkGroupInfo)         \
  X(SetKernelArg) X(CreateBuffer) X(EnqueueWriteBuffer) X(EnqueueReadBuffer)                  \
  X(EnqueueNDRangeKernel) X(Finish) X(ReleaseMemObject) X(ReleaseKernel) X(ReleaseProgram)   \
  X(ReleaseCommandQueue) X(ReleaseContext) X(EnqueueMapBuffer) X(EnqueueUnmapMemObject)       \
  X(GetEventProfilingInfo) X(ReleaseEvent) X(WaitForEvents) X(EnqueueCopyBuffer)

typedef struct cl_api {
#define OMPCL_FIELD(f) __typeof__(&cl##f) f;
  OMPCL_CL_FUNCS(OMPCL_FIELD)
#undef OMPCL_FIELD
} cl_api;

enum { MODE_AUTO, MODE_OPENCL, MODE_OPENMP };

#define OMPCL_MAX_DIMS 7  /* of an array the variant kernels read permuted */
/* A byte range [a, b) of host memory. */
typedef struct span {
  uintptr_t a, b;
} span;
#define OMPCL_SPANS 64

/* One entry of the present table: host bytes [start, end) and their device buffer.  Besides
 * the whole-range validity flags, parts of a copy may be valid on their own: `hv`, the parts
 * read back for host code while the device holds the newer copy (host_valid 0), and `dirty`,
 * the parts host code wrote since the device copy was made valid (copied before the device
 * copy is used or read back). */
typedef struct mapping {
  uintptr_t start, end;
  cl_mem mem;
  int host_valid, dev_valid;
  int zero_copy;        /* the buffer is the host memory (CL_MEM_USE_HOST_PTR) */
  int coherent;         /* zero-copy on a device that reads the host's bytes in place
                           (ompcl_dev.coherent): map/unmap would move and synchronise nothing */
  int stack;            /* it lies on a thread's stack: released when its function returns */
  int nhv, ndirty;
  span hv[OMPCL_SPANS], dirty[OMPCL_SPANS];
  ompcl_region *owner;  /* region whose launch last wrote the device copy */
  unsigned long version; /* changes whenever the device copy's bytes may change */
  struct shadow *shadows; /* permuted device copies of arrays inside it */
  struct mapping *next;
} mapping;

/* A permuted device copy of the array at `base` (inside a mapping), current while `version`
 * is the mapping's. */
typedef struct shadow {
  uintptr_t base;
  int nd;
  long dims[OMPCL_MAX_DIMS];
  int perm[OMPCL_MAX_DIMS];
  size_t esize;
  cl_mem mem;
  unsigned long version;
  struct shadow *next;
} shadow;

/* ---- state, by the file that owns it -------------------------------------------------- */

/* ompcl_rt_env.c: the environment, read once at the first region entry. */
extern struct ompcl_env_state {
  int started;          /* environment read */
  int noted;            /* OMPCL_STATS read, the regions' list begun, the exit handler
                           registered (by the first region entry, or ompcl_env_note) */
  int mode, log;
  const char *fault;    /* OMPCL_FAULT, "" if unset */
  const char *stats;    /* OMPCL_STATS, 0 if unset */
  int bounds_check;     /* OMPCL_BOUNDS_CHECK: kernels check every access */
  char cache_dir[1024]; /* "" = no binary cache */
  int no_residency;     /* OMPCL_RESIDENCY=0: every region copies in and out (for measuring) */
  double probe_budget;   /* auto mode: OMPCL_PROBE (ompcl_probe_due) */
  double probe_start;    /* ... OMPCL_PROBE_START */
  double startup_budget; /* auto mode: host seconds in loops the model sends to the device
                            before OpenCL is started for them (OMPCL_STARTUP) */
  int relayout;         /* OMPCL_DYNLAYOUT: -1 never, 1 always, 0 the cost model */
  int layout_env;       /* OMPCL_LAYOUT_COST replaces every program's coefficients: */
  double layout_cost[3];
  double layout_build;  /* OMPCL_LAYOUT_BUILD (want_variant) */
  /* under an MPI launcher (read_launcher): this process's rank, its rank among the ranks of
   * its node and their number, and the variables that said so; -1, -1, 0 when none does */
  int rank, local_rank, local_size;
  const char *rank_var, *local_rank_var, *local_size_var;
  char stats_path[1100]; /* OMPCL_STATS with %r (rank) and %p (process id) replaced */
} ompcl_env;

/* ompcl_rt_device.c: the OpenCL library, device, context and queue. */
extern cl_api ompcl_cl;
extern struct ompcl_device_state {
  int cl_state;         /* 0 = not tried, 1 = device ready, -1 = no device */
  void *lib;
  cl_device_id device;
  cl_context ctx;
  cl_command_queue queue;
  char platform_name[256], device_name[256], device_version[256], driver_version[256];
  size_t max_wg, max_items[3];
  int zero_copy;        /* device shares host memory: buffers use the host pointer */
  int coherent;         /* a CPU device (cache-coherent with the host) whose zero-copy buffers
                           are the host memory itself (reads_host_memory): no map/unmap around
                           host accesses (OMPCL_COHERENT=0: always) */
  size_t max_groups;    /* work-groups per launch at most (kernels use grid strides) */
  double start_seconds;  /* what starting OpenCL took in this process */
  double start_estimate; /* ... at its last start (ompcl_device_start_estimate) */
  int warned_no_device;
  int index, count;     /* the chosen device among the `count` candidates (choose_index) */
  int sharers;          /* ranks of this node that take the same device (1 when alone) */
  const char *index_rule; /* how `index` was chosen, for the log and the statistics */
  const char *build_options; /* every program's: the bounds checker's, the shape's */
} ompcl_dev;
/* How kernels run on the device (ompcl_rt_device.c says how it is chosen). */
extern struct ompcl_shape_state {
  int blocked;
  size_t units;            /* compute units */
  char options[128];       /* build options: the bounds checker's and the shape's */
} ompcl_shape;

/* ompcl_rt_present.c: the present table. */
extern struct ompcl_present_state {
  mapping *maps;
  unsigned long epoch;  /* mapping versions (shadow) */
  long map_round_trips; /* map/unmap pairs of zero-copy buffers for host accesses */
  long coherent_buffers; /* zero-copy buffers created coherent (no map/unmap) */
} ompcl_present;

/* ompcl_rt_model.c: the dispatch model read from OMPCL_MODEL. */
extern struct ompcl_dispatch_state {
  struct model *model;  /* OMPCL_MODEL, replacing every compiled-in model; 0 if unset */
  int load_aware;       /* that model reads the load features (ompcl_rt_load.c) */
  const char *model_path;
} ompcl_dispatch;
extern const char *const ompcl_feature_names[OMPCL_NFEATURES];

/* ompcl_rt_load.c: the load other processes put on the machine (sampled at region entries)
 * and the host path's thread count chosen from it. */
#define OMPCL_LOAD_MAX_CPUS 1024
#define OMPCL_LOAD_MAX_COUNTS 16     /* thread counts OMPCL_THREADS may list */
#define OMPCL_LOAD_INTERVAL_MS 5.0   /* at most one sample per this many ms (OMPCL_LOAD_INTERVAL) */
#define OMPCL_LOAD_WINDOW 0.05       /* seconds of /proc/stat's jiffies per busy-share window */
#define OMPCL_LOAD_SMOOTH 0.3        /* weight of a new runnable-tasks sample (moving average) */
extern struct ompcl_load_state {
  int cores, online;    /* CPUs this process may use (sched_getaffinity), CPUs online */
  char allowed_cpu[OMPCL_LOAD_MAX_CPUS];
  double interval;      /* seconds between samples at least */
  int threads_mode;     /* OMPCL_THREADS: 0 the user's count (also unset), 1 chosen by the
                           load (among `allowed` if listed) */
  int allowed[OMPCL_LOAD_MAX_COUNTS], nallowed;
  char stat_path[512];  /* OMPCL_LOAD_STAT (test hook), "" for /proc/stat */
  double t_sample;      /* when the last sample was taken */
  double runnable;      /* other processes' runnable tasks per allowed core (smoothed) */
  double busy;          /* the busy share of the allowed cores other processes took */
  double device;        /* the device's load from other processes; -1 not known */
  double w_time, w_cpu; /* the busy-share window: its start, this process's CPU seconds then */
  unsigned long long w_busy, w_total; /* ... and the allowed CPUs' jiffies then */
  long samples;
  double sum_runnable, sum_busy, max_runnable; /* over the samples, for the statistics */
} ompcl_load;
extern const char *const ompcl_load_names[OMPCL_NLOAD];

/* ompcl_rt_stats.c: every region entered, and what the statistics report totals. */
extern struct ompcl_stats_state {
  ompcl_region *regions, **regions_tail;
  long launches;        /* kernels launched so far */
  double setup_seconds; /* making the device ready: OpenCL set-up, program and kernel builds */
  double wanted_seconds; /* host seconds in loops the model sends to the device before
                            OpenCL is started (ompcl_env.startup_budget) */
  long startup_deferred; /* entries the model sent to the device that ran on the host */
} ompcl_stats;

/* ---- functions, by the file that defines them ---------------------------------------- */

/* ompcl_rt_device.c */
int ompcl_device_recall(int *blocked, int *zero_copy, double *start);
double ompcl_device_start_estimate(void);
int ompcl_device_init(void);
void ompcl_device_release(void);

/* ompcl_rt_env.c */
void ompcl_env_start(void);
void ompcl_env_note(void);

/* ompcl_rt_objects.c: the known object (registered array, heap block) holding address a */
int ompcl_find_object(uintptr_t a, uintptr_t *start, uintptr_t *end);

/* ompcl_rt_present.c: bytes of distinct host memory ever mapped */
long ompcl_data_bytes(void);

/* ompcl_rt_hostaccess.c */
void ompcl_push_dirty(mapping *m, ompcl_region *r);
void ompcl_push_spans(mapping *m, uintptr_t a, uintptr_t b);
void ompcl_read_gaps(mapping *m);
void ompcl_merge_span(span *v, int *n, uintptr_t *a, uintptr_t *b);
void ompcl_host_range(const void *addr, unsigned long bytes, int mode);
void ompcl_host_all(int mode);
int ompcl_on_stack(uintptr_t a);
void ompcl_release_frame(uintptr_t frame);

/* ompcl_rt.c: the launch runs the original loop instead, counted in `counter` (0: it had
 * declined already). Under the lock. */
int ompcl_decline(ompcl_launch *L, long *counter);

/* ompcl_rt_tree.c: pointer trees' rows copied in once the device is chosen (0: declined),
 * and out after a launch (ok), their staging blocks forgotten */
int ompcl_trees_gather(ompcl_launch *L);
void ompcl_trees_finish(ompcl_launch *L, int ok);
double ompcl_tree_bytes(const ompcl_launch *L);
int ompcl_tree_clamp(const ompcl_launch *L, long *lo, long *hi);
void ompcl_trees_free(ompcl_launch *L);

/* ompcl_rt_launch.c */
void ompcl_set_arg(ompcl_launch *L, int index, size_t size, const void *value);
void ompcl_arg_array(ompcl_launch *L, void *ptr, long lo, long hi, unsigned long esize, int mode);
/* The bytes [start, end) of an array argument's range of elements. */
static inline uintptr_t ompcl_arg_start(const ompcl_array_arg *x) {
  return (uintptr_t)x->ptr + (uintptr_t)x->lo * x->esize;
}
static inline uintptr_t ompcl_arg_end(const ompcl_array_arg *x) {
  return (uintptr_t)x->ptr + (uintptr_t)(x->hi + 1) * x->esize;
}
/* Whether array arguments x and y both access memory and their bytes overlap. */
static inline int ompcl_args_overlap(const ompcl_array_arg *x, const ompcl_array_arg *y) {
  return x->lo <= x->hi && y->lo <= y->hi && ompcl_arg_start(x) < ompcl_arg_end(y) &&
         ompcl_arg_start(y) < ompcl_arg_end(x);
}
void ompcl_drop_pending(ompcl_launch *L);
int ompcl_settle(ompcl_launch *L, int ndim, const long n[]);
int ompcl_launch_run(ompcl_launch *L, int ndim, const long n[]);
void ompcl_launch_release_buffers(void);

/* ompcl_rt_load.c */
void ompcl_load_start(void);
void ompcl_load_sample(void);
void ompcl_load_features(double *f);
int ompcl_load_threads(void);
int ompcl_load_threads_set(ompcl_region *r);
void ompcl_load_threads_restore(void);
int ompcl_load_team_set(ompcl_region *t);
void ompcl_load_team_restore(void);
int ompcl_load_level(void);

/* ompcl_rt_model.c */
void ompcl_model_load(void);
ompcl_size_stats *ompcl_size_class(ompcl_region *r, long items);
int ompcl_probe_due(const ompcl_size_stats *z, int dev);
int ompcl_decide(ompcl_launch *L);
int ompcl_load_stale(ompcl_size_stats *z);
int ompcl_undefer(ompcl_launch *L, int ndim, const long n[]);

/* ompcl_rt_present.c */
void ompcl_release_mapping(mapping *m);
void ompcl_sync_mapping(mapping *m);
void ompcl_release_unused(const ompcl_launch *keep);
void ompcl_present_forget(uintptr_t a, uintptr_t b, int keep);
void ompcl_rt_block_freed(uintptr_t a, uintptr_t b, int keep);
mapping *ompcl_find_containing(uintptr_t a, uintptr_t b);
cl_mem ompcl_create_buffer_for(ompcl_launch *L, size_t bytes, void *host);
mapping *ompcl_map_range(ompcl_launch *L, uintptr_t a, uintptr_t b);
double ompcl_transfer_bytes(const ompcl_launch *L);
void ompcl_present_release(void);

/* ompcl_rt_program.c */
int ompcl_ensure_program(ompcl_program *prog);
int ompcl_ensure_kernel(ompcl_region *r);
void ompcl_launch_fail(ompcl_launch *L, const char *reason, cl_int err);
void ompcl_program_release(void);

/* ompcl_rt_region.c */
int ompcl_ready_device(ompcl_region *r, long iters);
int ompcl_region_begin(ompcl_region *r, ompcl_launch *L, long iters);
void ompcl_region_host(ompcl_region *r);
void ompcl_region_end(ompcl_region *r, int keep_resident);

/* ompcl_rt_relayout.c */
int ompcl_use_variant(ompcl_launch *L);
void ompcl_measure_variant(ompcl_launch *L);
void ompcl_bind_permuted(ompcl_launch *L, int k);
void ompcl_permute_back(ompcl_launch *L);
void ompcl_shadows_current(ompcl_launch *L);

/* ompcl_rt_stats.c */
void ompcl_register_region(ompcl_region *r);
void ompcl_stats_write(void);

/* ompcl_rt_team.c */
int ompcl_team_begin(ompcl_region *t);
void ompcl_team_end(ompcl_region *t);

/* ompcl_rt_util.c */
double ompcl_now(void);
double ompcl_event_seconds(cl_event ev);
__attribute__((format(printf, 1, 2))) void ompcl_log(const char *fmt, ...);
int ompcl_fault(const char *what);
int ompcl_contains_nocase(const char *hay, const char *needle);
size_t ompcl_pow2_floor(size_t x);
size_t ompcl_pow2_ceil(long x);
uint64_t ompcl_fnv1a(uint64_t h, const char *s);
char *ompcl_read_file(const char *path, size_t *len);
int ompcl_write_file_atomic(const char *path, const void *data, size_t len);
void ompcl_mkdir_p(const char *dir);

#pragma GCC visibility pop

#endif /* OMPCL_RT_INTERNAL_H */
