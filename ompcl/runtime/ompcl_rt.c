/* ompcl runtime: the implementation of ompcl_rt.h.
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

/* Every OpenCL entry point used; each is looked up with dlsym, none is linked. */
#define OMPCL_CL_FUNCS(X)                                                                     \
  X(GetPlatformIDs) X(GetPlatformInfo) X(GetDeviceIDs) X(GetDeviceInfo) X(CreateContext)      \
  X(CreateCommandQueue) X(CreateProgramWithSource) X(CreateProgramWithBinary) X(BuildProgram) \
  X(GetProgramBuildInfo) X(GetProgramInfo) X(CreateKernel) X(GetKernelWorkGroupInfo)         \
  X(SetKernelArg) X(CreateBuffer) X(EnqueueWriteBuffer) X(EnqueueReadBuffer)                  \
  X(EnqueueNDRangeKernel) X(Finish) X(ReleaseMemObject) X(ReleaseKernel) X(ReleaseProgram)   \
  X(ReleaseCommandQueue) X(ReleaseContext) X(EnqueueMapBuffer) X(EnqueueUnmapMemObject)       \
  X(GetEventProfilingInfo) X(ReleaseEvent) X(WaitForEvents)

typedef struct cl_api {
#define OMPCL_FIELD(f) __typeof__(&cl##f) f;
  OMPCL_CL_FUNCS(OMPCL_FIELD)
#undef OMPCL_FIELD
} cl_api;

enum { MODE_AUTO, MODE_OPENCL, MODE_OPENMP };
static const char *const mode_names[] = {"auto", "opencl", "openmp"};
static const char *build_options = "";
#define OMPCL_CHECK_OPTION "-DOMPCL_BOUNDS_CHECK"
/* exit status of a program stopped by the bounds checker (EX_SOFTWARE) */
#define OMPCL_BOUNDS_EXIT 70

#define OMPCL_MAX_DIMS 7  /* of an array the variant kernels read permuted */
/* A byte range [a, b) of host memory. */
typedef struct span {
  uintptr_t a, b;
} span;
#define OMPCL_SPANS 16

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
                           (rt.coherent): map/unmap would move and synchronise nothing */
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

static struct {
  pthread_mutex_t lock;
  int started;          /* environment read, exit handler registered */
  int mode, log;
  const char *fault;    /* OMPCL_FAULT, "" if unset */
  const char *stats;    /* OMPCL_STATS, 0 if unset */
  int bounds_check;     /* OMPCL_BOUNDS_CHECK: kernels check every access */
  cl_mem err;           /* bounds-check report buffer: flag, site, index (low, high word) */
  char cache_dir[1024]; /* "" = no binary cache */
  int cl_state;         /* 0 = not tried, 1 = device ready, -1 = no device */
  int team_depth;       /* device versions of parallel regions running (their loops: device) */
  int no_residency;     /* OMPCL_RESIDENCY=0: every region copies in and out (for measuring) */
  long launches;        /* kernels launched so far */
  double setup_seconds; /* making the device ready: OpenCL set-up, program and kernel builds */
  double probe_budget;   /* auto mode: OMPCL_PROBE (probe_due) */
  double probe_start;    /* ... OMPCL_PROBE_START */
  double start_seconds;  /* what starting OpenCL took in this process */
  double start_estimate; /* ... at its last start (start_estimate) */
  double startup_budget; /* auto mode: host seconds in loops the model sends to the device
                            before OpenCL is started for them (OMPCL_STARTUP) */
  double wanted_seconds; /* ... spent so far */
  long startup_deferred; /* entries the model sent to the device that ran on the host */
  double team_setup;    /* setup_seconds when the outermost device team began */
  void *lib;
  cl_api cl;
  cl_device_id device;
  cl_context ctx;
  cl_command_queue queue;
  char platform_name[256], device_name[256], device_version[256], driver_version[256];
  size_t max_wg, max_items[3];
  int zero_copy;        /* device shares host memory: buffers use the host pointer */
  int coherent;         /* a CPU device (cache-coherent with the host) whose zero-copy buffers
                           are the host memory itself (reads_host_memory): no map/unmap around
                           host accesses (OMPCL_COHERENT=0: always) */
  long map_round_trips; /* map/unmap pairs of zero-copy buffers for host accesses */
  long coherent_buffers; /* zero-copy buffers created coherent (no map/unmap) */
  size_t max_groups;    /* work-groups per launch at most (kernels use grid strides) */
  int warned_no_device;
  const char *warned[16]; /* failure reasons already reported */
  int nwarned;
  ompcl_region *regions, **regions_tail;
  mapping *maps;
  cl_mem dummy;         /* bound to array parameters whose range is empty */
  struct model *model;  /* OMPCL_MODEL, replacing every compiled-in model; 0 if unset */
  unsigned long epoch;  /* mapping versions (shadow) */
  int relayout;         /* OMPCL_DYNLAYOUT: -1 never, 1 always, 0 the cost model */
  int layout_env;       /* OMPCL_LAYOUT_COST replaces every program's coefficients: */
  double layout_cost[3];
  void *permute[4];     /* cl_kernels of the runtime's transposition, by element size 1 2 4 8 */
  int permute_state;    /* 0 not built, 1 ready, -1 failed */
  double layout_build;  /* OMPCL_LAYOUT_BUILD (want_variant) */
  double permute_rate;  /* seconds per byte of the last transposition (profiling events;
                           the first fill of a copy also pays for its pages: not counted) */
  const char *model_path;
} rt = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* ---- helpers of generated region code (ompcl_rt.h) ---------------------------------- */

long ompcl_lmin(long a, long b) { return a < b ? a : b; }
long ompcl_lmax(long a, long b) { return a > b ? a : b; }
long ompcl_skip_lo(long end, long value) { return end == value ? end + 1 : end; }
long ompcl_skip_hi(long end, long value) { return end == value ? end - 1 : end; }

/* Iteration count of a canonical loop; op: 0 '<', 1 '<=', 2 '>', 3 '>='. */
long ompcl_trip(long lb, long ub, long step, int op) {
  long n;
  if (step == 0) return 0;
  switch (op) {
    case 0: n = ub > lb ? (ub - lb + step - 1) / step : 0; break;
    case 1: n = ub >= lb ? (ub - lb) / step + 1 : 0; break;
    case 2: n = lb > ub ? (lb - ub + (-step) - 1) / (-step) : 0; break;
    default: n = lb >= ub ? (lb - ub) / (-step) + 1 : 0; break;
  }
  return n;
}

/* ---- small helpers ------------------------------------------------------------------ */

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Seconds between an event's start and end (0 when the device does not say); releases it. */
static double event_seconds(cl_event ev) {
  cl_ulong t0 = 0, t1 = 0;
  if (!ev) return 0.0;
  if (rt.cl.WaitForEvents(1, &ev) != CL_SUCCESS ||
      rt.cl.GetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, 0) !=
          CL_SUCCESS ||
      rt.cl.GetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, 0) !=
          CL_SUCCESS)
    t0 = t1 = 0;
  rt.cl.ReleaseEvent(ev);
  return t1 > t0 ? 1e-9 * (double)(t1 - t0) : 0.0;
}

__attribute__((format(printf, 1, 2))) static void log_line(const char *fmt, ...) {
  va_list ap;
  if (!rt.log) return;
  va_start(ap, fmt);
  fputs("ompcl: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static int fault(const char *what) { return strcmp(rt.fault, what) == 0; }

static int contains_nocase(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (; *hay; hay++) {
    size_t i = 0;
    while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
      i++;
    if (i == n) return 1;
  }
  return n == 0;
}

static size_t pow2_floor(size_t x) {
  size_t p = 1;
  while (p * 2 <= x) p *= 2;
  return p;
}

static size_t pow2_ceil(long x) {
  size_t p = 1;
  while ((long)p < x) p *= 2;
  return p;
}

/* 64-bit FNV-1a of a string including its terminator (so fields stay separate). */
static uint64_t fnv1a(uint64_t h, const char *s) {
  do {
    h ^= (unsigned char)*s;
    h *= 0x100000001b3ULL;
  } while (*s++);
  return h;
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *buf = 0;
  long size;
  if (!f) return 0;
  if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
      (buf = malloc((size_t)size + 1)) && fread(buf, 1, (size_t)size, f) == (size_t)size) {
    buf[size] = 0; /* text files are used as C strings */
    *len = (size_t)size;
  } else {
    free(buf);
    buf = 0;
  }
  fclose(f);
  return buf;
}

/* Write through a temporary file and rename, so readers never see a partial file. */
static int write_file_atomic(const char *path, const void *data, size_t len) {
  char tmp[1100];
  FILE *f;
  int ok;
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  if (!(f = fopen(tmp, "wb"))) return 0;
  ok = fwrite(data, 1, len, f) == len;
  ok = (fclose(f) == 0) && ok;
  if (ok && rename(tmp, path) == 0) return 1;
  remove(tmp);
  return 0;
}

static void mkdir_p(const char *dir) {
  char path[1024];
  snprintf(path, sizeof path, "%s", dir);
  for (char *p = path + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    mkdir(path, 0777);
    *p = '/';
  }
  mkdir(path, 0777);
}

/* ---- environment and exit ----------------------------------------------------------- */

static void finish(void);
static int on_stack(uintptr_t a);
static void load_model(void);
static double transfer_bytes(const ompcl_launch *L);

static int parse_mode(const char *s) {
  if (!s || !*s || !strcmp(s, "auto")) return MODE_AUTO;
  if (!strcmp(s, "opencl")) return MODE_OPENCL;
  if (!strcmp(s, "openmp")) return MODE_OPENMP;
  fprintf(stderr, "ompcl: warning: OMPCL_DEVICE=%s is not auto, opencl or openmp; using auto\n", s);
  return MODE_AUTO;
}

/* OMPCL_DYNLAYOUT: 0/off never runs a variant kernel over permuted copies, 1/on always
 * where it can, anything else (auto, unset) asks the cost model. */
static int parse_relayout(const char *s) {
  if (!s) return 0;
  if (!strcmp(s, "0") || !strcmp(s, "off") || !strcmp(s, "no")) return -1;
  if (!strcmp(s, "1") || !strcmp(s, "on") || !strcmp(s, "force")) return 1;
  return 0;
}

static void set_cache_dir(void) {
  const char *dir = getenv("OMPCL_CACHE_DIR"), *base;
  if (dir && !strcmp(dir, "off")) return;
  if (dir && *dir)
    snprintf(rt.cache_dir, sizeof rt.cache_dir, "%s", dir);
  else if ((base = getenv("XDG_CACHE_HOME")) && *base)
    snprintf(rt.cache_dir, sizeof rt.cache_dir, "%s/ompcl", base);
  else if ((base = getenv("HOME")) && *base)
    snprintf(rt.cache_dir, sizeof rt.cache_dir, "%s/.cache/ompcl", base);
}

static void start(void) {
  const char *log;
  if (rt.started) return; /* every region entry comes here: nothing before this test */
  rt.started = 1;
  log = getenv("OMPCL_LOG");
  rt.mode = parse_mode(getenv("OMPCL_DEVICE"));
  rt.log = log && *log && strcmp(log, "0") != 0;
  rt.fault = getenv("OMPCL_FAULT") ? getenv("OMPCL_FAULT") : "";
  rt.stats = getenv("OMPCL_STATS");
  rt.bounds_check = getenv("OMPCL_BOUNDS_CHECK") && strcmp(getenv("OMPCL_BOUNDS_CHECK"), "") &&
                    strcmp(getenv("OMPCL_BOUNDS_CHECK"), "0");
  if (rt.bounds_check) build_options = OMPCL_CHECK_OPTION;
  /* test hook: build as for a device without 64-bit atomics */
  if (fault("int64"))
    build_options = rt.bounds_check ? OMPCL_CHECK_OPTION " -DOMPCL_NO_INT64" : "-DOMPCL_NO_INT64";
  rt.regions_tail = &rt.regions;
  rt.no_residency = getenv("OMPCL_RESIDENCY") && !strcmp(getenv("OMPCL_RESIDENCY"), "0");
  rt.relayout = parse_relayout(getenv("OMPCL_DYNLAYOUT"));
  rt.layout_build = getenv("OMPCL_LAYOUT_BUILD") ? atof(getenv("OMPCL_LAYOUT_BUILD"))
                                                 : OMPCL_LAYOUT_BUILD_FACTOR;
  rt.layout_env = getenv("OMPCL_LAYOUT_COST") &&
                  sscanf(getenv("OMPCL_LAYOUT_COST"), "%lf,%lf,%lf", &rt.layout_cost[0],
                         &rt.layout_cost[1], &rt.layout_cost[2]) == 3;
  rt.startup_budget = getenv("OMPCL_STARTUP") ? atof(getenv("OMPCL_STARTUP"))
                                              : OMPCL_STARTUP_SECONDS;
  rt.probe_budget = getenv("OMPCL_PROBE") ? atof(getenv("OMPCL_PROBE")) : OMPCL_PROBE_SECONDS;
  rt.probe_start = getenv("OMPCL_PROBE_START") ? atof(getenv("OMPCL_PROBE_START"))
                                               : OMPCL_PROBE_START_FACTOR;
  set_cache_dir();
  load_model();
  atexit(finish);
}

static void register_region(ompcl_region *r) {
  if (r->registered) return;
  r->registered = 1;
  r->next = 0;
  *rt.regions_tail = r;
  rt.regions_tail = &r->next;
}

/* ---- OpenCL: library, device, context ----------------------------------------------- */

/* PoCL's CPU device pins its worker threads one per core when POCL_AFFINITY=1; unpinned, the
 * scheduler often wakes both on one core between launches, and kernels ran at one core's
 * speed in about half of the processes (a 4M-element reduction: 0.55 ms against 0.27 ms; SP.W
 * on the device 1.27-1.79 s against 1.26-1.31 s pinned).  Set unless the user chose. */
static void pocl_defaults(void) { setenv("POCL_AFFINITY", "1", 0); }

static int load_library(void) {
  static const char *const names[] = {"libOpenCL.so.1", "libOpenCL.so"};
  void *sym;
  pocl_defaults();
  for (size_t i = 0; i < 2 && !rt.lib; i++) rt.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  if (!rt.lib) {
    log_line("no OpenCL library: %s", dlerror());
    return 0;
  }
  /* memcpy: ISO C has no cast from object pointer to function pointer */
#define OMPCL_LOAD(f)                                       \
  if (!(sym = dlsym(rt.lib, "cl" #f))) {                    \
    log_line("OpenCL library lacks cl" #f);                \
    return 0;                                               \
  }                                                         \
  memcpy(&rt.cl.f, &sym, sizeof sym);
  OMPCL_CL_FUNCS(OMPCL_LOAD)
#undef OMPCL_LOAD
  return 1;
}

static void platform_string(cl_platform_id p, cl_platform_info what, char *buf, size_t size) {
  buf[0] = 0;
  if (rt.cl.GetPlatformInfo(p, what, size - 1, buf, 0) != CL_SUCCESS) buf[0] = 0;
  buf[size - 1] = 0;
}

static void device_string(cl_device_info what, char *buf, size_t size) {
  buf[0] = 0;
  if (rt.cl.GetDeviceInfo(rt.device, what, size - 1, buf, 0) != CL_SUCCESS) buf[0] = 0;
  buf[size - 1] = 0;
}

static int platform_matches(cl_platform_id p) {
  const char *want = getenv("OMPCL_PLATFORM");
  char name[256], vendor[256];
  if (!want || !*want) return 1;
  platform_string(p, CL_PLATFORM_NAME, name, sizeof name);
  platform_string(p, CL_PLATFORM_VENDOR, vendor, sizeof vendor);
  return contains_nocase(name, want) || contains_nocase(vendor, want);
}

/* OMPCL_DEVICE_TYPE as an OpenCL type; 0 = prefer a GPU, else anything. */
static cl_device_type wanted_type(void) {
  const char *s = getenv("OMPCL_DEVICE_TYPE");
  if (!s || !*s) return 0;
  if (!strcmp(s, "gpu")) return CL_DEVICE_TYPE_GPU;
  if (!strcmp(s, "cpu")) return CL_DEVICE_TYPE_CPU;
  if (!strcmp(s, "accelerator")) return CL_DEVICE_TYPE_ACCELERATOR;
  if (strcmp(s, "all") != 0)
    fprintf(stderr, "ompcl: warning: OMPCL_DEVICE_TYPE=%s is not gpu, cpu, accelerator or all; "
                    "using all\n", s);
  return CL_DEVICE_TYPE_ALL;
}

static int pick_device(const cl_platform_id *plats, cl_uint np, cl_device_type type,
                       cl_platform_id *chosen) {
  for (cl_uint i = 0; i < np; i++) {
    cl_uint nd = 0;
    if (!platform_matches(plats[i])) continue;
    if (rt.cl.GetDeviceIDs(plats[i], type, 1, &rt.device, &nd) == CL_SUCCESS && nd > 0) {
      *chosen = plats[i];
      return 1;
    }
  }
  return 0;
}

static int find_device(cl_platform_id *chosen) {
  cl_platform_id plats[16];
  cl_uint np = 0;
  cl_device_type type = wanted_type();
  if (fault("platform") || rt.cl.GetPlatformIDs(16, plats, &np) != CL_SUCCESS || np == 0)
    return 0;
  np = OMPCL_MIN(np, 16u);
  if (type) return pick_device(plats, np, type, chosen);
  return pick_device(plats, np, CL_DEVICE_TYPE_GPU, chosen) ||
         pick_device(plats, np, CL_DEVICE_TYPE_ALL, chosen);
}

static int create_context(cl_platform_id p) {
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p, 0};
  cl_int err;
  rt.ctx = rt.cl.CreateContext(props, 1, &rt.device, 0, 0, &err);
  if (err != CL_SUCCESS) return 0;
  /* profiling: kernel and transfer times in the statistics come from the device's events */
  rt.queue = rt.cl.CreateCommandQueue(rt.ctx, rt.device, CL_QUEUE_PROFILING_ENABLE, &err);
  return err == CL_SUCCESS;
}

/* On a device that shares the host's memory (a CPU device, an integrated GPU), buffers are
 * created over the host data itself (CL_MEM_USE_HOST_PTR) and map/unmap replaces copies;
 * OMPCL_ZERO_COPY=0 or 1 overrides the device's answer. */
static int use_zero_copy(void) {
  cl_bool unified = CL_FALSE;
  const char *env = getenv("OMPCL_ZERO_COPY");
  if (env && *env) return strcmp(env, "0") != 0;
  rt.cl.GetDeviceInfo(rt.device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, 0);
  return unified == CL_TRUE;
}

/* ---- launch shapes ------------------------------------------------------------------ */

/* How kernels run on the device, chosen once per device (kernels.cl.j2 prints both shapes):
 * - blocked (CPU devices): the program is built with -DOMPCL_BLOCKED and launched over a 1-D
 *   range of work-groups of one work-item; work-item w runs the w-th contiguous chunk of the
 *   iterations, whose innermost loop the device compiler vectorises, and writes one partial
 *   result per reduction.  A work-group's work-items run one after another on one core, so a
 *   grid stride there sweeps the arrays with a stride of the whole launch.
 * - grid (GPUs and other devices): an ND-range of work-groups of the device's size, each
 *   work-item striding over the iterations by the global size (neighbouring work-items touch
 *   neighbouring elements), reductions combined per work-group in local memory.
 * Kernels written for the grid shape alone are correct under a blocked launch too (their
 * strides then cover each outer dimension in one work-item).  OMPCL_SHAPE=blocked|grid
 * overrides the device's shape (tests run the GPU shape on a CPU device). */
static struct {
  int blocked;
  size_t units;            /* compute units */
  char options[96];        /* build options: the bounds checker's and the shape's */
} shape;

/* Whether the device's zero-copy buffers are the host memory itself rather than a copy the
 * device keeps and refreshes at map/unmap (OpenCL allows both): a buffer over our own memory,
 * page-aligned and then only 8-byte aligned, is read once (the device has its bytes), the host
 * changes them without mapping, and a second read must see the change. */
static int reads_host_memory(void) {
  unsigned char *mem = 0;
  int direct = 1;
  if (posix_memalign((void **)&mem, 4096, 8192)) return 0;
  for (int k = 0; k < 2 && direct; k++) {
    uint64_t *host = (uint64_t *)(mem + (k ? 4096 + 8 : 0)), seen = 0;
    cl_int err;
    cl_mem buf;
    *host = 0x6f6d70636c000001ULL;
    buf = rt.cl.CreateBuffer(rt.ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, sizeof *host,
                             host, &err);
    if (err != CL_SUCCESS) {
      direct = 0;
      break;
    }
    err = rt.cl.EnqueueReadBuffer(rt.queue, buf, CL_TRUE, 0, sizeof seen, &seen, 0, 0, 0);
    *host = 0x6f6d70636c000002ULL;
    if (err == CL_SUCCESS)
      err = rt.cl.EnqueueReadBuffer(rt.queue, buf, CL_TRUE, 0, sizeof seen, &seen, 0, 0, 0);
    direct = err == CL_SUCCESS && seen == 0x6f6d70636c000002ULL;
    rt.cl.ReleaseMemObject(buf);
  }
  free(mem);
  return direct;
}

static int device_is_cpu(void) {
  cl_device_type type = CL_DEVICE_TYPE_GPU;
  rt.cl.GetDeviceInfo(rt.device, CL_DEVICE_TYPE, sizeof type, &type, 0);
  return (type & CL_DEVICE_TYPE_CPU) != 0;
}

/* Work-groups per launch at most: 32 per compute unit on a CPU device (chunks small enough
 * for the cores to balance a shared machine; measured on PoCL's 2 cores here, 16 chunks ran
 * the 2-D stencil at one core's speed, 64 at two, the other kernel shapes alike), 1024 on a
 * GPU; OMPCL_MAX_GROUPS overrides. */
static size_t group_cap(void) {
  cl_uint units = 1;
  const char *env = getenv("OMPCL_MAX_GROUPS");
  rt.cl.GetDeviceInfo(rt.device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, 0);
  shape.units = OMPCL_MAX(units, 1u);
  if (env && atol(env) > 0) return (size_t)atol(env);
  return shape.units * (device_is_cpu() ? 32 : 1024);
}

/* The device's shape and the build options that select it in the kernels. */
static void choose_shape(void) {
  const char *env = getenv("OMPCL_SHAPE");
  if (env && !strcmp(env, "blocked"))
    shape.blocked = 1;
  else if (env && !strcmp(env, "grid"))
    shape.blocked = 0;
  else
    shape.blocked = device_is_cpu();
  snprintf(shape.options, sizeof shape.options, "%s%s%s", build_options,
           *build_options && shape.blocked ? " " : "", shape.blocked ? "-DOMPCL_BLOCKED" : "");
  build_options = shape.options;
  log_line("kernel shape: %s", shape.blocked ? "blocked (a contiguous chunk per work-item)"
                                             : "grid (a coalesced grid stride)");
}

static void describe_device(cl_platform_id p) {
  platform_string(p, CL_PLATFORM_NAME, rt.platform_name, sizeof rt.platform_name);
  device_string(CL_DEVICE_NAME, rt.device_name, sizeof rt.device_name);
  device_string(CL_DEVICE_VERSION, rt.device_version, sizeof rt.device_version);
  device_string(CL_DRIVER_VERSION, rt.driver_version, sizeof rt.driver_version);
  rt.max_wg = 1;
  rt.max_items[0] = rt.max_items[1] = rt.max_items[2] = 1;
  rt.cl.GetDeviceInfo(rt.device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof rt.max_wg, &rt.max_wg, 0);
  rt.cl.GetDeviceInfo(rt.device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof rt.max_items,
                      rt.max_items, 0);
  rt.zero_copy = use_zero_copy();
  rt.coherent = rt.zero_copy && device_is_cpu() &&
                !(getenv("OMPCL_COHERENT") && !strcmp(getenv("OMPCL_COHERENT"), "0")) &&
                reads_host_memory();
  rt.max_groups = group_cap();
  choose_shape();
  if (rt.zero_copy)
    log_line("zero-copy buffers: %s", rt.coherent ? "the host memory itself (no map/unmap)"
                                                  : "mapped for every host access");
}

/* What the last process that started OpenCL found (shape, buffer mode), kept in the cache
 * directory under the variables that choose the device, so that auto mode can ask the model
 * before it starts OpenCL itself (only the decision depends on it, never a result). */
static void device_memo_path(char *path, size_t size) {
  static const char *const vars[] = {"OMPCL_PLATFORM", "OMPCL_DEVICE_TYPE", "OMPCL_SHAPE",
                                     "OMPCL_ZERO_COPY", "OCL_ICD_VENDORS"};
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t k = 0; k < sizeof vars / sizeof *vars; k++) {
    const char *v = getenv(vars[k]);
    h = fnv1a(fnv1a(h, vars[k]), v ? v : "");
  }
  snprintf(path, size, "%s/device-%016llx.txt", rt.cache_dir, (unsigned long long)h);
}

static void remember_device(void) {
  char path[1100], text[64];
  int n;
  if (!rt.cache_dir[0]) return;
  device_memo_path(path, sizeof path);
  n = snprintf(text, sizeof text, "blocked %d zero_copy %d start %.4f\n", shape.blocked,
               rt.zero_copy, rt.start_seconds);
  mkdir_p(rt.cache_dir);
  write_file_atomic(path, text, (size_t)n);
}

/* 1 when a memo was found: *blocked and *zero_copy as the device had them, and *start the
 * seconds its start took (0 in a memo written before they were noted). */
static int recall_device(int *blocked, int *zero_copy, double *start) {
  char path[1100];
  FILE *f;
  int n;
  *start = 0;
  if (!rt.cache_dir[0]) return 0;
  device_memo_path(path, sizeof path);
  if (!(f = fopen(path, "r"))) return 0;
  n = fscanf(f, "blocked %d zero_copy %d start %lf", blocked, zero_copy, start);
  fclose(f);
  if (n < 3) *start = 0;
  return n >= 2;
}

/* Seconds starting OpenCL took at its last start (the device note), else a guess: what a
 * probe of the device (probe_due) must be able to pay for. */
static double start_estimate(void) {
  int blocked, zero_copy;
  double start;
  if (rt.start_estimate > 0) return rt.start_estimate;
  recall_device(&blocked, &zero_copy, &start);
  rt.start_estimate = start > 0 ? start : OMPCL_START_GUESS;
  return rt.start_estimate;
}

/* Find and open the device once per process; 1 when a device is ready. */
static int init_opencl(void) {
  cl_platform_id p = 0;
  double t0 = now();
  if (rt.cl_state) return rt.cl_state > 0;
  rt.cl_state = -1;
  if (!load_library() || !find_device(&p) || !create_context(p)) {
    log_line("no OpenCL device available");
    return 0;
  }
  describe_device(p);
  rt.cl_state = 1;
  rt.start_seconds = now() - t0;
  remember_device();
  log_line("device: %s (%s, %s)", rt.device_name, rt.platform_name, rt.driver_version);
  return 1;
}

/* ---- programs and kernels ----------------------------------------------------------- */

static uint64_t program_key(const char *src) {
  uint64_t h = 0xcbf29ce484222325ULL;
  h = fnv1a(h, src);
  h = fnv1a(h, rt.device_name);
  h = fnv1a(h, rt.device_version);
  h = fnv1a(h, rt.driver_version);
  return fnv1a(h, build_options);
}

static cl_program build_from_binary(const char *path) {
  size_t len = 0;
  unsigned char *bin = (unsigned char *)read_file(path, &len);
  const unsigned char *bins[1] = {bin};
  cl_int status = CL_SUCCESS, err;
  cl_program p;
  if (!bin) return 0;
  p = rt.cl.CreateProgramWithBinary(rt.ctx, 1, &rt.device, &len, bins, &status, &err);
  free(bin);
  if (err != CL_SUCCESS || status != CL_SUCCESS) {
    if (p) rt.cl.ReleaseProgram(p);
    return 0;
  }
  if (rt.cl.BuildProgram(p, 1, &rt.device, build_options, 0, 0) != CL_SUCCESS) {
    rt.cl.ReleaseProgram(p);
    return 0;
  }
  utime(path, 0); /* used now: the last to go when the cache is pruned */
  return p;
}

typedef struct { time_t when; off_t size; char name[64]; } cached_file;

static int older_first(const void *a, const void *b) {
  time_t x = ((const cached_file *)a)->when, y = ((const cached_file *)b)->when;
  return x < y ? -1 : x > y;
}

/* Keep the kernel binaries under OMPCL_CACHE_MB megabytes (default OMPCL_CACHE_MB_DEFAULT):
 * past it, the least recently used go until three quarters of it are left. */
static void prune_cache(void) {
  const char *env = getenv("OMPCL_CACHE_MB");
  double mb = env && *env ? atof(env) : OMPCL_CACHE_MB_DEFAULT;
  DIR *d = opendir(rt.cache_dir);
  cached_file *files = 0;
  size_t n = 0, cap = 0;
  long long total = 0, limit = (long long)(mb * 1048576.0);
  struct dirent *e;
  char path[1200];
  if (!d) return;
  while ((e = readdir(d))) {
    struct stat st;
    size_t len = strlen(e->d_name);
    if (len < 5 || len >= sizeof files[0].name || strcmp(e->d_name + len - 4, ".bin")) continue;
    snprintf(path, sizeof path, "%s/%s", rt.cache_dir, e->d_name);
    if (stat(path, &st) || !S_ISREG(st.st_mode)) continue;
    if (n == cap) {
      cached_file *more = realloc(files, (cap = cap ? 2 * cap : 256) * sizeof *files);
      if (!more) break;
      files = more;
    }
    files[n].when = st.st_mtime;
    files[n].size = st.st_size;
    memcpy(files[n].name, e->d_name, len + 1);
    total += st.st_size;
    n++;
  }
  closedir(d);
  if (total > limit) {
    qsort(files, n, sizeof *files, older_first);
    for (size_t k = 0; k < n && total > limit / 4 * 3; k++) {
      snprintf(path, sizeof path, "%s/%s", rt.cache_dir, files[k].name);
      if (!unlink(path)) total -= files[k].size;
    }
    log_line("pruned the kernel cache %s to %.1f MB", rt.cache_dir, total / 1048576.0);
  }
  free(files);
}

static void save_binary(cl_program p, const char *path) {
  size_t len = 0;
  unsigned char *bins[1];
  if (rt.cl.GetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof len, &len, 0) != CL_SUCCESS ||
      !len || !(bins[0] = malloc(len)))
    return;
  if (rt.cl.GetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bins, bins, 0) == CL_SUCCESS) {
    mkdir_p(rt.cache_dir);
    if (write_file_atomic(path, bins[0], len)) log_line("cached binary %s", path);
    prune_cache();
  }
  free(bins[0]);
}

static char *build_log(cl_program p) {
  size_t len = 0;
  char *log;
  if (!p || rt.cl.GetProgramBuildInfo(p, rt.device, CL_PROGRAM_BUILD_LOG, 0, 0, &len) !=
                CL_SUCCESS || !(log = calloc(len + 1, 1)))
    return 0;
  rt.cl.GetProgramBuildInfo(p, rt.device, CL_PROGRAM_BUILD_LOG, len, log, 0);
  return log;
}

/* One warning per program: error code, saved source, build log. */
static void report_build_failure(const ompcl_program *prog, cl_program p, cl_int err) {
  const char *tmpdir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  char path[1100];
  char *log = build_log(p);
  snprintf(path, sizeof path, "%s/ompcl-%016llx.cl", tmpdir,
           (unsigned long long)fnv1a(0xcbf29ce484222325ULL, prog->source));
  if (!write_file_atomic(path, prog->source, strlen(prog->source)))
    snprintf(path, sizeof path, "(could not save the source)");
  fprintf(stderr, "ompcl: warning: %s: OpenCL program build failed (CL error %d); running its "
                  "loops with OpenMP; source: %s\n", prog->file, (int)err, path);
  if (log && *log) fprintf(stderr, "  build log:\n%s\n", log);
  free(log);
}

static cl_program build_from_source(const char *src, cl_int *err) {
  cl_program p = rt.cl.CreateProgramWithSource(rt.ctx, 1, &src, 0, err);
  if (*err != CL_SUCCESS) return 0;
  *err = fault("build") ? CL_BUILD_PROGRAM_FAILURE
                        : rt.cl.BuildProgram(p, 1, &rt.device, build_options, 0, 0);
  return p;
}

/* Kernel source kept in a file next to the program (translated with --no-embed). */
static int load_kernel_file(ompcl_program *prog) {
  char path[4096], exe[4096];
  const char *dirs[3] = {getenv("OMPCL_KERNEL_DIR"), 0, "."};
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  size_t len;
  int k;
  if (n > 0) {
    exe[n] = 0;
    if (strrchr(exe, '/')) *strrchr(exe, '/') = 0;
    dirs[1] = exe;
  }
  for (k = 0; k < 3; k++) {
    char *text;
    if (!dirs[k]) continue;
    if (prog->kernel_path[0] == '/')
      snprintf(path, sizeof path, "%s", prog->kernel_path);
    else
      snprintf(path, sizeof path, "%s/%s", dirs[k], prog->kernel_path);
    if ((text = read_file(path, &len)) != 0) {
      prog->source = text;
      log_line("read kernels of %s from %s", prog->file, path);
      return 1;
    }
  }
  fprintf(stderr, "ompcl: warning: %s: cannot read kernel file '%s'; running its loops with "
          "OpenMP\n", prog->file, prog->kernel_path);
  return 0;
}

/* Structs cross the host-device boundary only if both lay them out alike: the program's
 * ompcl_layout kernel writes the device's sizes and offsets, compared with the host's. */
static int check_layout(ompcl_program *prog) {
  size_t bytes = sizeof(long) * (size_t)prog->nlayout, one = 1;
  long *dev = calloc((size_t)prog->nlayout, sizeof(long));
  long *host = calloc((size_t)prog->nlayout, sizeof(long));
  cl_int err;
  cl_kernel k = rt.cl.CreateKernel((cl_program)prog->handle, "ompcl_layout", &err);
  cl_mem out = err == CL_SUCCESS ? rt.cl.CreateBuffer(rt.ctx, CL_MEM_WRITE_ONLY, bytes, 0, &err)
                                 : 0;
  int same = 0;
  if (out && dev && host && rt.cl.SetKernelArg(k, 0, sizeof out, &out) == CL_SUCCESS &&
      rt.cl.EnqueueNDRangeKernel(rt.queue, k, 1, 0, &one, &one, 0, 0, 0) == CL_SUCCESS &&
      rt.cl.EnqueueReadBuffer(rt.queue, out, CL_TRUE, 0, bytes, dev, 0, 0, 0) == CL_SUCCESS) {
    prog->layout(host);
    same = !memcmp(dev, host, bytes);
  }
  if (!same)
    fprintf(stderr, "ompcl: warning: %s: the OpenCL device lays out this file's structs "
                    "differently from the host; running its loops with OpenMP\n", prog->file);
  if (out) rt.cl.ReleaseMemObject(out);
  if (k) rt.cl.ReleaseKernel(k);
  free(dev);
  free(host);
  return same;
}

/* Build `prog` once per process, from the binary cache when possible. */
static int ensure_program(ompcl_program *prog) {
  char path[1100];
  const char *how = "cache";
  double t0;
  cl_int err = CL_SUCCESS;
  cl_program p = 0;
  if (prog->state) return prog->state > 0; /* every device-ready entry: nothing before this */
  path[0] = 0;
  t0 = now();
  if ((!prog->source || !prog->source[0]) && prog->kernel_path && !load_kernel_file(prog)) {
    prog->state = -1;
    return 0;
  }
  if (rt.cache_dir[0] && !fault("build"))
    snprintf(path, sizeof path, "%s/%016llx.bin", rt.cache_dir,
             (unsigned long long)program_key(prog->source));
  if (path[0]) p = build_from_binary(path);
  if (!p) {
    how = "source";
    p = build_from_source(prog->source, &err);
    if (err != CL_SUCCESS) {
      report_build_failure(prog, p, err);
      if (p) rt.cl.ReleaseProgram(p);
      prog->state = -1;
      return 0;
    }
    if (path[0]) save_binary(p, path);
  }
  prog->handle = p;
  prog->state = 1;
  prog->build_seconds = now() - t0;
  log_line("built %s from %s in %.3f s", prog->file, how, prog->build_seconds);
  if (prog->nlayout && (fault("layout") || !check_layout(prog))) {
    if (fault("layout"))
      fprintf(stderr, "ompcl: warning: %s: the OpenCL device lays out this file's structs "
                      "differently from the host; running its loops with OpenMP\n", prog->file);
    prog->state = -1;
    return 0;
  }
  return 1;
}

/* A region's device attempt failed: warn once per kind of failure in the process (the first
 * region that meets it is named); every region's reason stays in the statistics. */
static void region_fail(ompcl_region *r, const char *reason, cl_int err) {
  int k;
  for (k = 0; k < rt.nwarned && strcmp(rt.warned[k], reason); k++) {
  }
  if (k == rt.nwarned && rt.nwarned < (int)(sizeof rt.warned / sizeof rt.warned[0])) {
    rt.warned[rt.nwarned++] = reason;
    fprintf(stderr, "ompcl: warning: %s:%d: %s (CL error %d); running this loop with OpenMP "
            "(later failures of this kind: see OMPCL_STATS)\n", r->file, r->line, reason,
            (int)err);
  }
  r->fallback = reason;
}

static int ensure_kernel(ompcl_region *r) {
  cl_int err;
  if (r->kernel_handle) return 1;
  r->kernel_handle = rt.cl.CreateKernel((cl_program)r->prog->handle, r->kernel, &err);
  if (err == CL_SUCCESS) return 1;
  r->kernel_handle = 0;
  region_fail(r, "OpenCL kernel creation failed", err);
  return 0;
}

/* ---- present table ------------------------------------------------------------------ */

static void release_mapping(mapping *m) {
  while (m->shadows) {
    shadow *sh = m->shadows;
    m->shadows = sh->next;
    rt.cl.ReleaseMemObject(sh->mem);
    free(sh);
  }
  if (m->mem) rt.cl.ReleaseMemObject(m->mem);
  free(m);
}

/* Map and unmap a zero-copy buffer: the OpenCL way to hand its memory to the host (read)
 * or back to the device (write); nothing is copied when the device uses the host memory.
 * Each is a round trip through the device's queue (tens of microseconds on PoCL, more than
 * many kernels), so a coherent mapping skips them: every launch has finished before the host
 * runs on (enqueue waits), the device reads and writes the host's own bytes, and the CPU's
 * caches are coherent. */
static cl_int map_unmap(mapping *m, cl_map_flags flags) {
  cl_int err;
  void *p;
  if (m->coherent) return CL_SUCCESS;
  rt.map_round_trips++;
  p = rt.cl.EnqueueMapBuffer(rt.queue, m->mem, CL_TRUE, flags, 0, m->end - m->start, 0, 0, 0,
                             &err);
  if (err != CL_SUCCESS) return err;
  err = rt.cl.EnqueueUnmapMemObject(rt.queue, m->mem, p, 0, 0, 0);
  return err == CL_SUCCESS ? rt.cl.Finish(rt.queue) : err;
}

/* Make the host copy of `m` valid (reads back a device-only copy). */
static void push_dirty(mapping *m, ompcl_region *r);
static void push_spans(mapping *m, uintptr_t a, uintptr_t b);

static void sync_mapping(mapping *m) {
  size_t bytes = m->end - m->start;
  cl_event ev = 0;
  double dt;
  cl_int err;
  if (m->host_valid) return;
  push_spans(m, m->start, m->end); /* the host's writes reach the device before it comes back */
  if (m->zero_copy) {
    err = map_unmap(m, CL_MAP_READ);
    bytes = 0;  /* nothing moved */
  } else {
    err = rt.cl.EnqueueReadBuffer(rt.queue, m->mem, CL_TRUE, 0, bytes, (void *)m->start, 0, 0,
                                  &ev);
  }
  dt = event_seconds(ev);
  if (err != CL_SUCCESS)
    fprintf(stderr, "ompcl: warning: reading %zu bytes back from the device failed (CL error "
                    "%d); host data may be stale\n", bytes, (int)err);
  if (m->owner && bytes) { /* charged to the region whose kernel wrote it */
    m->owner->bytes_to_host += (long)bytes;
    m->owner->transfers_to_host++;
    m->owner->transfer_seconds += dt;
    if (m->owner->t_start > 0) { /* read back within that region's entry */
      m->owner->b_to_host += (long)bytes;
      m->owner->t_transfer += dt;
    }
  }
  m->host_valid = 1;
  m->nhv = 0;
  log_line("download %zu bytes", bytes);
}

static int used_by(const ompcl_launch *L, const mapping *m) {
  for (int i = 0; i < L->nmaps; i++)
    if (L->maps[i] == m) return 1;
  return 0;
}

/* Sync and release every mapping that `keep` does not use (all of them when keep is 0). */
static void release_unused(const ompcl_launch *keep) {
  mapping **link = &rt.maps;
  while (*link) {
    mapping *m = *link;
    if (keep && used_by(keep, m)) {
      link = &m->next;
      continue;
    }
    sync_mapping(m);
    *link = m->next;
    release_mapping(m);
  }
}

static mapping *find_containing(uintptr_t a, uintptr_t b) {
  for (mapping *m = rt.maps; m; m = m->next)
    if (m->start <= a && b <= m->end) return m;
  return 0;
}

static mapping **find_overlap(uintptr_t a, uintptr_t b) {
  for (mapping **link = &rt.maps; *link; link = &(*link)->next)
    if ((*link)->start < b && a < (*link)->end) return link;
  return 0;
}

static void launch_fail(ompcl_launch *L, const char *reason, cl_int err) {
  L->ok = 0;
  L->r->last_decision = 0;
  region_fail(L->r, reason, err);
}

/* Widen [*a, *b) over every partially overlapping mapping, which is synced and released. */
static int absorb_overlaps(ompcl_launch *L, uintptr_t *a, uintptr_t *b) {
  mapping **link;
  while ((link = find_overlap(*a, *b))) {
    mapping *m = *link;
    if (used_by(L, m)) {
      launch_fail(L, "two array arguments overlap partially", CL_INVALID_VALUE);
      return 0;
    }
    *a = OMPCL_MIN(*a, m->start);
    *b = OMPCL_MAX(*b, m->end);
    sync_mapping(m);
    *link = m->next;
    release_mapping(m);
  }
  return 1;
}

static cl_mem create_buffer(size_t bytes, void *host, cl_int *err) {
  cl_mem mem;
  if (fault("alloc")) {
    *err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    return 0;
  }
  mem = rt.cl.CreateBuffer(rt.ctx, CL_MEM_READ_WRITE | (host ? CL_MEM_USE_HOST_PTR : 0), bytes,
                           host, err);
  return *err == CL_SUCCESS ? mem : 0;
}

/* A device buffer for `L` (over `host` when zero-copy); on failure, frees what `L` does not
 * use and retries once. */
static cl_mem create_buffer_for(ompcl_launch *L, size_t bytes, void *host) {
  cl_int err;
  cl_mem mem = create_buffer(bytes, host, &err);
  if (!mem) {
    release_unused(L);
    mem = create_buffer(bytes, host, &err);
  }
  if (!mem) launch_fail(L, "device allocation failed", err);
  return mem;
}

static mapping *new_mapping(ompcl_launch *L, uintptr_t a, uintptr_t b) {
  mapping *m;
  cl_mem mem = create_buffer_for(L, b - a, rt.zero_copy ? (void *)a : 0);
  if (!mem) return 0;
  if (!(m = calloc(1, sizeof *m))) {
    rt.cl.ReleaseMemObject(mem);
    launch_fail(L, "out of host memory", CL_OUT_OF_HOST_MEMORY);
    return 0;
  }
  m->start = a;
  m->end = b;
  m->mem = mem;
  m->zero_copy = rt.zero_copy;
  m->coherent = m->zero_copy && rt.coherent;
  rt.coherent_buffers += m->coherent;
  m->stack = on_stack(a);
  m->version = ++rt.epoch;
  m->host_valid = 1;
  m->next = rt.maps;
  rt.maps = m;
  return m;
}

static int upload(ompcl_launch *L, mapping *m) {
  size_t bytes = m->end - m->start;
  cl_event ev = 0;
  double dt;
  cl_int err;
  if (m->zero_copy) {
    err = map_unmap(m, CL_MAP_WRITE);
    bytes = 0;  /* nothing moved */
  } else {
    err = rt.cl.EnqueueWriteBuffer(rt.queue, m->mem, CL_TRUE, 0, bytes, (void *)m->start, 0, 0,
                                   &ev);
  }
  if (err != CL_SUCCESS) {
    launch_fail(L, "copy to the device failed", err);
    return 0;
  }
  m->dev_valid = 1;
  m->ndirty = 0;
  m->version = ++rt.epoch;
  if (bytes) {
    L->r->bytes_to_device += (long)bytes;
    L->r->b_to_device += (long)bytes;
    L->r->transfers_to_device++;
    dt = event_seconds(ev);
    L->r->transfer_seconds += dt;
    L->r->t_transfer += dt;
  }
  log_line("%s:%d: upload %zu bytes", L->r->file, L->r->line, bytes);
  return 1;
}

/* The mapping holding host bytes [a, b), created or widened as needed, device copy valid. */
static mapping *map_range(ompcl_launch *L, uintptr_t a, uintptr_t b) {
  mapping *m = find_containing(a, b);
  if (!m && (!absorb_overlaps(L, &a, &b) || !(m = new_mapping(L, a, b)))) return 0;
  if (!m->dev_valid && !upload(L, m)) return 0;
  push_dirty(m, L->r);
  return m;
}


/* ---- host accesses ------------------------------------------------------------------ */

/* Whether [a, b) lies inside one span of v. */
static int covered(const span *v, int n, uintptr_t a, uintptr_t b) {
  for (int i = 0; i < n; i++)
    if (v[i].a <= a && b <= v[i].b) return 1;
  return 0;
}

/* Add [a, b) to v, merging what it overlaps or touches; 0 when v is full. */
static int add_span(span *v, int *n, uintptr_t a, uintptr_t b) {
  int k = 0;
  for (int i = 0; i < *n; i++) {
    if (v[i].b < a || b < v[i].a) {
      v[k++] = v[i];
    } else {
      a = OMPCL_MIN(a, v[i].a);
      b = OMPCL_MAX(b, v[i].b);
    }
  }
  *n = k;
  if (k == OMPCL_SPANS) return 0;
  v[(*n)++] = (span){a, b};
  return 1;
}

static void charge(ompcl_region *r, int to_device, size_t bytes, double dt) {
  if (!r || !bytes) return;
  if (to_device) {
    r->bytes_to_device += (long)bytes;
    r->transfers_to_device++;
    if (r->t_start > 0) r->b_to_device += (long)bytes;
  } else {
    r->bytes_to_host += (long)bytes;
    r->transfers_to_host++;
    if (r->t_start > 0) r->b_to_host += (long)bytes;
  }
  r->transfer_seconds += dt;
  if (r->t_start > 0) r->t_transfer += dt;
}

/* Copy the parts of `m` host code wrote to the device copy (charged to `r`, else to the
 * mapping's owner). */
/* Copy the host-written parts of `m` that overlap [a, b) to the device (charged to `r`,
 * else to the mapping's owner); `why` ends the log line. */
static void copy_spans(mapping *m, uintptr_t a, uintptr_t b, ompcl_region *r, const char *why) {
  for (int i = 0; i < m->ndirty; i++) {
    uintptr_t lo = OMPCL_MAX(a, m->dirty[i].a), hi = OMPCL_MIN(b, m->dirty[i].b);
    cl_event ev = 0;
    cl_int err;
    if (lo >= hi) continue;
    m->version = ++rt.epoch;
    err = rt.cl.EnqueueWriteBuffer(rt.queue, m->mem, CL_TRUE, lo - m->start, hi - lo,
                                   (void *)lo, 0, 0, &ev);
    if (err != CL_SUCCESS)
      fprintf(stderr, "ompcl: warning: copying %zu bytes to the device failed (CL error %d); "
                      "device data may be stale\n", (size_t)(hi - lo), (int)err);
    charge(r ? r : m->owner, 1, hi - lo, event_seconds(ev));
    log_line("upload %zu bytes written by host code%s", (size_t)(hi - lo), why);
  }
}

/* Copy the parts of `m` host code wrote to the device copy (charged to `r`, else to the
 * mapping's owner); they are clean then. */
static void push_dirty(mapping *m, ompcl_region *r) {
  copy_spans(m, m->start, m->end, r, "");
  m->ndirty = 0;
}

/* Copy the host-written parts of `m` that overlap [a, b) to the device before [a, b) comes
 * back, so the read keeps them. They stay marked: a probe runs before its statement, so a
 * write another probe of the same statement announced has not happened yet (the next launch
 * copies it again, written). */
static void push_spans(mapping *m, uintptr_t a, uintptr_t b) {
  copy_spans(m, a, b, 0, " (before a read)");
}

/* Read [a, b) of `m` back for host code (the rest stays on the device). */
static void read_part(mapping *m, uintptr_t a, uintptr_t b) {
  cl_event ev = 0;
  cl_int err;
  if (covered(m->hv, m->nhv, a, b)) return;
  push_spans(m, a, b);
  err = rt.cl.EnqueueReadBuffer(rt.queue, m->mem, CL_TRUE, a - m->start, b - a, (void *)a, 0,
                                0, &ev);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "ompcl: warning: reading %zu bytes back from the device failed (CL error "
                    "%d); host data may be stale\n", (size_t)(b - a), (int)err);
    return;
  }
  charge(m->owner, 0, b - a, event_seconds(ev));
  log_line("download %zu bytes read by host code", (size_t)(b - a));
  if (!add_span(m->hv, &m->nhv, a, b)) sync_mapping(m);
}

/* Host code is about to touch [a, b) of `m`: its host copy valid there first; a write makes
 * that part of the device copy stale (copied at the next use). */
static void host_touch(mapping *m, uintptr_t a, uintptr_t b, int mode) {
  a = OMPCL_MAX(a, m->start);
  b = OMPCL_MIN(b, m->end);
  if (m->zero_copy) { /* the host and the device share the memory: map it for the host */
    sync_mapping(m);
    if (mode & OMPCL_WRITE) m->dev_valid = 0;
    return;
  }
  if (!m->host_valid) read_part(m, a, b);
  if ((mode & OMPCL_WRITE) && m->dev_valid && !add_span(m->dirty, &m->ndirty, a, b)) {
    sync_mapping(m);
    m->dev_valid = 0;
    m->ndirty = 0;
  }
}

static void host_range(const void *addr, unsigned long bytes, int mode) {
  uintptr_t a = (uintptr_t)addr, b = a + bytes;
  for (mapping *m = rt.maps; m; m = m->next)
    if (m->start < b && a < m->end) host_touch(m, a, b, mode);
}

/* Host code may touch any memory: every host copy valid; a write: every device copy stale. */
static void host_all(int mode) {
  for (mapping *m = rt.maps; m; m = m->next) {
    sync_mapping(m);
    if (mode & OMPCL_WRITE) {
      m->dev_valid = 0;
      m->ndirty = 0;
    }
  }
}

/* The calling thread's stack, [lo, hi). */
static __thread uintptr_t stack_lo, stack_hi;

static int on_stack(uintptr_t a) {
  if (!stack_hi) {
    pthread_attr_t attr;
    void *base = 0;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      if (pthread_attr_getstack(&attr, &base, &size) == 0) {
        stack_lo = (uintptr_t)base;
        stack_hi = (uintptr_t)base + size;
      }
      pthread_attr_destroy(&attr);
    }
    if (!stack_hi) stack_hi = 1; /* unknown: no mapping counts as on the stack */
  }
  return stack_lo <= a && a < stack_hi;
}

/* A function returns: mappings of its frame (below `frame` on this thread's stack, where its
 * locals and those of the functions it called lived) are read back and released. */
static void release_frame(uintptr_t frame) {
  mapping **link = &rt.maps;
  while (*link) {
    mapping *m = *link;
    if (m->stack && on_stack(m->start) && m->start < frame) {
      sync_mapping(m);
      *link = m->next;
      release_mapping(m);
    } else {
      link = &m->next;
    }
  }
}

/* Calls between instrumented functions: the caller announces, the callee takes it at entry. */
static __thread int announced;

/* ---- dispatch model ----------------------------------------------------------------- */

/* Feature names, in the order of ompcl.predict.schema.FEATURES. */
static const char *const feature_names[OMPCL_NFEATURES] = {
    "comp", "mem", "localmem", "coalesced", "atomic", "branches", "transfer", "work_items",
    "wgsize", "transfer_per_op", "coalesced_per_mem", "localmem_wgsize", "comp_per_mem"};

/* The features of one entry: static counts, dynamic values, combined features (Grewe et al.
 * F1-F4; a zero denominator counts as one). */
static void entry_features(const ompcl_launch *L, double transfer, long wg, double *f) {
  const ompcl_region *r = L->r;
  const double *stat = L->nstatic ? L->features : r->features;
  int nstat = L->nstatic ? L->nstatic : r->nfeatures;
  long items = L->iters;
  double comp, mem;
  for (int k = 0; k < OMPCL_NSTATIC; k++) f[k] = k < nstat ? stat[k] : 0.0;
  f[6] = transfer;
  f[7] = (double)items;
  f[8] = (double)wg;
  comp = f[0];
  mem = f[1] > 0 ? f[1] : 1.0;
  f[9] = transfer / (comp + f[1] > 0 ? comp + f[1] : 1.0);
  f[10] = f[3] / mem;
  f[11] = f[2] / mem * (double)wg;
  f[12] = comp / mem;
}

/* A tree ensemble read from OMPCL_MODEL: node k tests (float)f[feature[k]] <= threshold[k]
 * (single precision, as scikit-learn and the compiled-in models compare; then
 * left[k], else right[k]); a leaf (feature -1) holds value[k].  combine 0: the device when the
 * mean leaf value exceeds `base` (class probability); 1: when base + the sum exceeds 0
 * (boosting's log-odds). */
typedef struct model_tree {
  int n;
  int *feature, *left, *right;
  double *threshold, *value;
} model_tree;

typedef struct model {
  int combine;
  double base;
  int ntrees;
  model_tree *trees;
} model;

static double tree_value(const model_tree *t, const double *f) {
  int k = 0;
  for (int steps = 0; steps < t->n && t->feature[k] >= 0; steps++)
    k = (double)(float)f[t->feature[k]] <= t->threshold[k] ? t->left[k] : t->right[k];
  return t->value[k];
}

static int model_predict(const model *m, const double *f) {
  double sum = 0;
  for (int i = 0; i < m->ntrees; i++) sum += tree_value(&m->trees[i], f);
  return m->combine ? m->base + sum > 0 : sum / (m->ntrees ? m->ntrees : 1) > m->base;
}

/* The string value of "runtime" in a model's JSON, unescaped (\n, \t, \", \\, \/). */
static char *json_runtime_text(const char *json) {
  const char *p = strstr(json, "\"runtime\"");
  char *out, *q;
  if (!p) return 0;
  p += 9;
  while (isspace((unsigned char)*p)) p++;
  if (*p++ != ':') return 0;
  while (isspace((unsigned char)*p)) p++;
  if (*p++ != '"' || !(out = q = malloc(strlen(p) + 1))) return 0;
  for (; *p && *p != '"'; p++) {
    if (*p != '\\') {
      *q++ = *p;
      continue;
    }
    switch (*++p) {
      case 'n': *q++ = '\n'; break;
      case 't': *q++ = '\t'; break;
      case '"': case '\\': case '/': *q++ = *p; break;
      default: free(out); return 0;
    }
  }
  *q = 0;
  return *p == '"' ? out : (free(out), (char *)0);
}

static int read_tree(char **cur, model_tree *t) {
  char word[16];
  int used;
  if (sscanf(*cur, " %15s %d%n", word, &t->n, &used) != 2 || strcmp(word, "tree") || t->n < 1 ||
      t->n > 1000000)
    return 0;
  *cur += used;
  t->feature = calloc((size_t)t->n, sizeof(int));
  t->left = calloc((size_t)t->n, sizeof(int));
  t->right = calloc((size_t)t->n, sizeof(int));
  t->threshold = calloc((size_t)t->n, sizeof(double));
  t->value = calloc((size_t)t->n, sizeof(double));
  if (!t->feature || !t->left || !t->right || !t->threshold || !t->value) return 0;
  for (int k = 0; k < t->n; k++) {
    if (sscanf(*cur, " %d %lf %d %d %lf%n", &t->feature[k], &t->threshold[k], &t->left[k],
               &t->right[k], &t->value[k], &used) != 5)
      return 0;
    *cur += used;
    if (t->feature[k] >= OMPCL_NFEATURES ||
        (t->feature[k] >= 0 && (t->left[k] <= k || t->right[k] <= k || t->left[k] >= t->n ||
                                t->right[k] >= t->n)))
      return 0;
  }
  return 1;
}

/* Parse the runtime text of a model:
 *   ompcl-model 1 / features N name... / combine mean|logit BASE / trees K / tree N, N lines
 *   "feature threshold left right value".  The feature names must be this runtime's. */
static int parse_model(char *text, model *m) {
  char word[64], kind[16];
  int version, n, used;
  char *cur = text;
  if (sscanf(cur, " ompcl-model %d features %d%n", &version, &n, &used) != 2 || version != 1 ||
      n != OMPCL_NFEATURES)
    return 0;
  cur += used;
  for (int k = 0; k < n; k++) {
    if (sscanf(cur, " %63s%n", word, &used) != 1 || strcmp(word, feature_names[k])) return 0;
    cur += used;
  }
  if (sscanf(cur, " combine %15s %lf trees %d%n", kind, &m->base, &m->ntrees, &used) != 3 ||
      m->ntrees < 1 || m->ntrees > 100000)
    return 0;
  cur += used;
  m->combine = !strcmp(kind, "logit");
  if (!m->combine && strcmp(kind, "mean")) return 0;
  if (!(m->trees = calloc((size_t)m->ntrees, sizeof *m->trees))) return 0;
  for (int i = 0; i < m->ntrees; i++)
    if (!read_tree(&cur, &m->trees[i])) return 0;
  return 1;
}

/* OMPCL_MODEL: a model file written by 'ompcl train' replaces the compiled-in models. */
static void load_model(void) {
  const char *path = getenv("OMPCL_MODEL");
  size_t len;
  char *json, *text = 0;
  model *m;
  if (!path || !*path) return;
  json = read_file(path, &len);
  m = calloc(1, sizeof *m);
  if (json && m && (text = json_runtime_text(json)) && parse_model(text, m)) {
    rt.model = m;
    rt.model_path = path;
    log_line("dispatch model from %s (%d trees)", path, m->ntrees);
  } else {
    fprintf(stderr, "ompcl: warning: OMPCL_MODEL=%s is not a readable ompcl model (written by "
                    "'ompcl train' for these %d features); using the compiled-in model\n",
            path, OMPCL_NFEATURES);
    free(m); /* (a partly read model's trees are left to the process exit) */
  }
  free(text);
  free(json);
}

static ompcl_size_stats *size_class(ompcl_region *r, long items) {
  int k = 0;
  while (k < OMPCL_MAX_SIZES - 1 && (1L << (k + 1)) <= items) k++;
  return &r->sizes[k];
}

static void log_decision(const ompcl_region *r, const double *f, int dev, int cached) {
  char buf[512];
  size_t n = 0;
  if (!rt.log) return;
  for (int k = 0; k < OMPCL_NFEATURES && n < sizeof buf; k++)
    n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s=%g", k ? " " : "", feature_names[k],
                          f[k]);
  log_line("%s:%d: %s for %.0f work-items (%s; %s)", r->file, r->line, dev ? "device" : "host",
           f[7], cached ? "cached decision" : "model", buf);
}

/* Auto mode checks the model by measurement: once a size class has spent OMPCL_PROBE seconds
 * (and OMPCL_PROBE_ENTRIES entries) on the side the model chose, its next OMPCL_PROBE_RUNS
 * entries run on the other side, and from then on the side with fewer seconds per work-item
 * runs the class (the probe's first entry, which pays first-run costs such as the device's
 * kernel specialisation, is not counted). A class the model keeps on the host while OpenCL
 * is not started must first have spent OMPCL_PROBE_START (20) times what starting it costs
 * (start_estimate), so the start a probe pays is a small part of the time. A model that is
 * right loses one short probe of a long-running loop; one that is wrong is corrected. */
static int probe_due(const ompcl_size_stats *z, int dev) {
  double need = rt.probe_budget;
  if (rt.probe_budget <= 0 || z->probe || (!dev && rt.cl_state < 0)) return 0;
  if (dev) return z->device_runs >= OMPCL_PROBE_ENTRIES && z->seconds_device >= need;
  if (rt.cl_state == 0 && need < rt.probe_start * start_estimate())
    need = rt.probe_start * start_estimate(); /* the probe starts OpenCL */
  return z->host_runs >= OMPCL_PROBE_ENTRIES && z->seconds_host >= need;
}

/* A probing class's side for the next entry (-1: the probe is over, decide by measurement). */
static int probe_side(const ompcl_size_stats *z) {
  return z->probe == 1 && z->probe_runs < OMPCL_PROBE_RUNS ? z->probe_device : -1;
}

/* The end of a probe: the measured side per work-item, cached for the class. */
static int measured(ompcl_region *r, ompcl_size_stats *z) {
  double probe = z->probe_items > 0 ? z->probe_seconds / z->probe_items : 0;
  double dev_rate = z->probe_device ? probe : z->seconds_device / z->items_device;
  double host_rate = z->probe_device ? z->seconds_host / z->items_host : probe;
  int dev = dev_rate < host_rate;
  z->probe = 2;
  z->decision[0] = z->decision[1] = dev ? 1 : 2;
  log_line("%s:%d: %s for %ld work-items (measured: %.3g s per million work-items on the "
           "device, %.3g on the host)", r->file, r->line, dev ? "device" : "host",
           z->work_items, dev_rate * 1e6, host_rate * 1e6);
  return dev;
}

/* The device/host choice for a launch, once the device is ready and the launch sized: 1 for
 * the device.  Forced modes and programs without a model take the device; in auto mode the
 * model decides once per problem-size class (and whether data has to move), and measurement
 * checks it (probe_due). */
static int decide(ompcl_launch *L) {
  ompcl_region *r = L->r;
  ompcl_size_stats *z = size_class(r, L->iters);
  long wg = 1;
  double transfer = transfer_bytes(L);
  int moves = transfer > 0, dev, cached;
  for (int d = 0; d < L->ndim; d++) wg *= (long)L->local[d];
  entry_features(L, transfer, wg, r->last_features);
  memcpy(z->statics, r->last_features, sizeof z->statics);
  z->transfer = transfer;
  z->wgsize = wg;
  if (rt.mode != MODE_AUTO || (!rt.model && !r->predict)) return 1;
  if (z->probe == 1) {
    dev = probe_side(z);
    if (dev < 0) dev = measured(r, z);
    return dev ? (r->decisions_device++, 1) : (r->decisions_host++, 0);
  }
  cached = z->decision[moves] != 0;
  if (cached)
    dev = z->decision[moves] == 1;
  else
    dev = rt.model ? model_predict(rt.model, r->last_features)
                   : r->predict(r->last_features, OMPCL_NFEATURES);
  if (cached && probe_due(z, dev)) {
    z->probe = 1;
    z->probe_device = (signed char)!dev;
    log_line("%s:%d: %s for %ld work-items (probe: measuring the side the model did not "
             "choose)", r->file, r->line, dev ? "host" : "device", L->iters);
    return dev ? (r->decisions_host++, 0) : (r->decisions_device++, 1);
  }
  z->decision[moves] = dev ? 1 : 2;
  if (dev)
    r->decisions_device++;
  else
    r->decisions_host++;
  log_decision(r, r->last_features, dev, cached);
  return dev;
}

/* ---- launches ----------------------------------------------------------------------- */

static void set_arg(ompcl_launch *L, int index, size_t size, const void *value) {
  cl_int err;
  if (!L->ok) return;
  err = rt.cl.SetKernelArg((cl_kernel)L->r->kernel_handle, (cl_uint)index, size, value);
  if (err == CL_SUCCESS && L->r->variant_handle) /* the variant takes the same arguments */
    err = rt.cl.SetKernelArg((cl_kernel)L->r->variant_handle, (cl_uint)index, size, value);
  if (err != CL_SUCCESS) launch_fail(L, "setting a kernel argument failed", err);
}

static cl_mem dummy_buffer(ompcl_launch *L) {
  if (!rt.dummy) rt.dummy = create_buffer_for(L, 64, 0);
  return rt.dummy;
}

/* The device/host decision for one entry; 1 when the region's kernel is ready to launch. */
static int choose_device(ompcl_region *r, long iters) {
  if (iters <= 0 || rt.mode == MODE_OPENMP) {
    log_line("%s:%d: host (%s)", r->file, r->line, iters <= 0 ? "no iterations" : "openmp mode");
    return 0;
  }
  if (!init_opencl()) {
    if (rt.mode == MODE_OPENCL && !rt.warned_no_device++)
      fprintf(stderr, "ompcl: warning: no OpenCL device available; running loops with OpenMP\n");
    r->fallback = "no OpenCL device available";
    return 0;
  }
  if (!ensure_program(r->prog)) {
    r->fallback = "OpenCL program build failed";
    return 0;
  }
  return ensure_kernel(r);
}

/* choose_device, its time counted as set-up (kept out of every region's device seconds). */
static int ready_device(ompcl_region *r, long iters) {
  double t0 = now();
  int ok = choose_device(r, iters);
  rt.setup_seconds += now() - t0;
  return ok;
}

/* Fast path of auto mode: the model already chose the host for this size class whatever data
 * would move (zero-copy buffers move none), so the entry skips argument set-up, launch sizing
 * and the decision (decide() caches per size class and data movement). */
static int cached_host(ompcl_region *r, long iters) {
  const ompcl_size_stats *z;
  if (rt.mode != MODE_AUTO || (!rt.model && !r->predict)) return 0;
  z = size_class(r, iters);
  if (z->probe == 1 || probe_due(z, 0)) return 0; /* decide() probes or measures */
  return z->decision[0] == 2 && (rt.zero_copy || z->decision[1] == 2);
}

/* An entry the cached decision sends to the host: counted as a host decision, not run. */
static int decline_cached(ompcl_region *r, ompcl_launch *L) {
  r->decisions_host++;
  r->last_decision = L->ok = 0;
  L->declined = 1;
  return 0;
}

static int begin(ompcl_region *r, ompcl_launch *L, long iters) {
  start();
  register_region(r);
  memset(L, 0, offsetof(ompcl_launch, maps)); /* the arrays are filled up to their counts */
  L->r = r;
  L->iters = iters;
  r->t_start = now();
  r->t_kernel = r->t_transfer = 0;
  r->b_to_device = r->b_to_host = 0;
  r->last_iters = iters;
  if (rt.mode == MODE_AUTO && (rt.model || r->predict) && rt.cl_state == 0 && iters > 0) {
    if (cached_host(r, iters)) return decline_cached(r, L); /* host whatever the device */
    L->deferred = 1;  /* OpenCL starts only if the model wants the device (launch) */
    r->last_decision = L->ok = 1;
    return 1;
  }
  r->last_decision = L->ok = ready_device(r, iters);
  if (L->ok && cached_host(r, iters)) return decline_cached(r, L);
  if (L->ok) r->t_start = now(); /* keeps program build time out of seconds_device */
  return L->ok;
}

static void arg_array(ompcl_launch *L, void *ptr, long lo, long hi, unsigned long esize,
                      int mode) {
  ompcl_array_arg *a;
  if (!L->ok) return;
  if (L->narrays >= OMPCL_MAX_ARGS) {
    launch_fail(L, "too many arrays", CL_INVALID_VALUE);
    return;
  }
  a = &L->arrays[L->narrays++];
  a->ptr = ptr;
  a->lo = lo;
  a->hi = hi;
  a->esize = esize;
  a->mode = mode;
  a->arg = L->nargs;
  a->ndims = a->nd = 0;
  a->shadow = 0;
  L->nargs += 4; /* buffer, offset, checked low and high element */
}

/* Map array argument k (copying what is stale) and bind its four kernel parameters. */
static void bind_array(ompcl_launch *L, int k) {
  const ompcl_array_arg *a = &L->arrays[k];
  uintptr_t base = (uintptr_t)a->ptr;
  mapping *m;
  intptr_t delta;
  cl_long offset = 0, checked_lo = a->lo, checked_hi = a->hi;
  cl_mem mem;
  if (!L->ok) return;
  if (a->hi < a->lo) { /* nothing is accessed: bind a placeholder */
    mem = dummy_buffer(L);
    checked_lo = 0;
    checked_hi = -1;
  } else {
    if (!(m = map_range(L, base + (uintptr_t)a->lo * a->esize,
                        base + (uintptr_t)(a->hi + 1) * a->esize)))
      return;
    delta = (intptr_t)(base - m->start);
    if (delta % (intptr_t)a->esize) {
      launch_fail(L, "array is misaligned within its mapping", CL_INVALID_VALUE);
      return;
    }
    offset = delta / (intptr_t)a->esize;
    mem = m->mem;
    L->maps[L->nmaps] = m;
    L->modes[L->nmaps++] = a->mode;
  }
  /* test hook: the checker must catch an extent one element too short */
  if (fault("extent") && checked_hi >= checked_lo) checked_hi--;
  L->lo[k] = checked_lo;
  L->hi[k] = checked_hi;
  set_arg(L, a->arg, sizeof mem, &mem);
  set_arg(L, a->arg + 1, sizeof offset, &offset);
  set_arg(L, a->arg + 2, sizeof checked_lo, &checked_lo);
  set_arg(L, a->arg + 3, sizeof checked_hi, &checked_hi);
}

/* ---- dynamic index reordering: permuted device copies -------------------------------- */

/* dst (from dst_off) in runs of `run` elements contiguous in both layouts; the run with
 * coordinates c in the dimensions d of the runs (dst's layout) is the run of src at src_off +
 * sum_k c_k * s_k, s the source's strides of those dimensions. Work-item x copies the x-th
 * block of OMPCL_PERMUTE_ROWS rows of runs along the last of d, a column of the block at a
 * time (the reads of a column are near each other where the rows are, the block's rows stay
 * in cache while the columns advance); no division inside a row. One kernel per element
 * size (other sizes: bytes, with the element as an innermost dimension). */
#define OMPCL_PERMUTE_KERNEL(T) \
  "__kernel void ompcl_permute_" #T "(__global const " #T " *src, const long src_off,\n" \
  "    __global " #T " *dst, const long dst_off, const long n, const long run, const int nd,\n" \
  "    const long d0, const long d1, const long d2, const long d3, const long d4,\n" \
  "    const long d5, const long d6, const long d7, const long s0, const long s1,\n" \
  "    const long s2, const long s3, const long s4, const long s5, const long s6,\n" \
  "    const long s7)\n" \
  "{\n" \
  "  const long d[8] = {d0, d1, d2, d3, d4, d5, d6, d7};\n" \
  "  const long s[8] = {s0, s1, s2, s3, s4, s5, s6, s7};\n" \
  "  const long last = d[nd - 1], sl = s[nd - 1];\n" \
  "  long offs[OMPCL_PERMUTE_ROWS];\n" \
  "  for (long x = get_global_id(0); x * OMPCL_PERMUTE_ROWS < n; x += get_global_size(0)) {\n" \
  "    const long r0 = x * OMPCL_PERMUTE_ROWS, nr = min((long)OMPCL_PERMUTE_ROWS, n - r0);\n" \
  "    __global " #T " *out = dst + dst_off + r0 * last * run;\n" \
  "    for (long q = 0; q < nr; q++) {\n" \
  "      long r = r0 + q, off = src_off;\n" \
  "      for (int k = nd - 2; k >= 0; k--) {\n" \
  "        off += (r % d[k]) * s[k];\n" \
  "        r /= d[k];\n" \
  "      }\n" \
  "      offs[q] = off;\n" \
  "    }\n" \
  "    for (long c = 0; c < last; c++)\n" \
  "      for (long q = 0; q < nr; q++)\n" \
  "        for (long t = 0; t < run; t++)\n" \
  "          out[(q * last + c) * run + t] = src[offs[q] + c * sl + t];\n" \
  "  }\n" \
  "}\n"
#define OMPCL_PERMUTE_ROWS 16
#define OMPCL_STR2(x) #x
#define OMPCL_STR(x) OMPCL_STR2(x)
static const char permute_source[] =
    "#define OMPCL_PERMUTE_ROWS " OMPCL_STR(OMPCL_PERMUTE_ROWS) "\n"
    OMPCL_PERMUTE_KERNEL(uchar) OMPCL_PERMUTE_KERNEL(ushort) OMPCL_PERMUTE_KERNEL(uint)
    OMPCL_PERMUTE_KERNEL(ulong);
static ompcl_program permute_program = {.source = permute_source, .file = "ompcl runtime",
                                        .kernel_path = ""};

/* The transposition kernels, built once (with the binary cache). */
static int ensure_permute(void) {
  static const char *const names[4] = {"ompcl_permute_uchar", "ompcl_permute_ushort",
                                       "ompcl_permute_uint", "ompcl_permute_ulong"};
  if (rt.permute_state) return rt.permute_state > 0;
  rt.permute_state = -1;
  if (!ensure_program(&permute_program)) return 0;
  for (int k = 0; k < 4; k++) {
    cl_int err;
    rt.permute[k] = rt.cl.CreateKernel((cl_program)permute_program.handle, names[k], &err);
    if (err != CL_SUCCESS) return 0;
  }
  rt.permute_state = 1;
  return 1;
}

static long elements_of(const ompcl_array_arg *a) {
  long n = 1;
  for (int k = 0; k < a->nd; k++) n *= a->dims[k];
  return n;
}

/* The mapping holding the whole of permuted array a, if any. */
static mapping *whole_mapping(const ompcl_array_arg *a) {
  return find_containing((uintptr_t)a->ptr,
                         (uintptr_t)a->ptr + (uintptr_t)elements_of(a) * a->esize);
}

/* The region's variant kernel for the device's shape (0: none). */
static const char *variant_of(const ompcl_region *r) {
  return shape.blocked ? r->variant : r->variant_grid;
}

/* One transposition: dst (at element dst_off) gets src (from src_off) in the layout of
 * dimensions dd, whose source strides are ss (elements of esize bytes). */
static int permute(ompcl_launch *L, cl_mem src, long src_off, cl_mem dst, long dst_off,
                   int nd, const long *dd, const long *ss, size_t esize, int first) {
  long d[8] = {1, 1, 1, 1, 1, 1, 1, 1}, st[8] = {0}, n = 1, run = 1;
  int which = esize == 8 ? 3 : esize == 4 ? 2 : esize == 2 ? 1 : 0, m = 0;
  size_t unit = (size_t)1 << which, global;
  cl_kernel k = (cl_kernel)rt.permute[which];
  cl_event ev = 0;
  cl_int err = CL_SUCCESS;
  for (int j = 0; j < nd; j++) { /* dimensions adjacent in both layouts merge */
    long sj = ss[j] * (long)(esize / unit);
    if (m && st[m - 1] == sj * dd[j]) {
      d[m - 1] *= dd[j];
      st[m - 1] = sj;
    } else {
      d[m] = dd[j];
      st[m++] = sj;
    }
  }
  if (esize != unit) { /* bytes: the element is the innermost dimension */
    if (st[m - 1] == (long)esize) {
      d[m - 1] *= (long)esize;
      st[m - 1] = 1;
    } else {
      d[m] = (long)esize;
      st[m++] = 1;
    }
  }
  if (st[m - 1] == 1) { /* contiguous in both: copied as runs */
    run = d[--m];
    d[m] = 1;
    st[m] = 0;
  }
  if (!m) m = 1;           /* one run */
  for (int j = 0; j < m - 1; j++) n *= d[j]; /* rows along the last dimension */
  src_off *= (long)(esize / unit);
  dst_off *= (long)(esize / unit);
  err |= rt.cl.SetKernelArg(k, 0, sizeof src, &src);
  err |= rt.cl.SetKernelArg(k, 1, sizeof src_off, &src_off);
  err |= rt.cl.SetKernelArg(k, 2, sizeof dst, &dst);
  err |= rt.cl.SetKernelArg(k, 3, sizeof dst_off, &dst_off);
  err |= rt.cl.SetKernelArg(k, 4, sizeof n, &n);
  err |= rt.cl.SetKernelArg(k, 5, sizeof run, &run);
  err |= rt.cl.SetKernelArg(k, 6, sizeof m, &m);
  for (int j = 0; j < 8; j++) {
    err |= rt.cl.SetKernelArg(k, 7 + j, sizeof d[j], &d[j]);
    err |= rt.cl.SetKernelArg(k, 15 + j, sizeof st[j], &st[j]);
  }
  global = (size_t)OMPCL_MAX(1L, OMPCL_MIN((n + OMPCL_PERMUTE_ROWS - 1) / OMPCL_PERMUTE_ROWS,
                                           1L << 20)); /* blocks of rows */
  if (err == CL_SUCCESS && !fault("permute"))
    err = rt.cl.EnqueueNDRangeKernel(rt.queue, k, 1, 0, &global, 0, 0, 0, &ev);
  else if (err == CL_SUCCESS)
    err = CL_OUT_OF_RESOURCES;
  if (err == CL_SUCCESS) err = rt.cl.Finish(rt.queue);
  if (ev) {
    double dt = event_seconds(ev);
    L->r->relayout_seconds += dt;
    L->r->t_kernel += dt;
    if (dt > 0 && !first)
      rt.permute_rate = dt / ((double)(n * d[m - 1] * run) * (double)unit);
  }
  L->r->relayout_copies++;
  log_line("%s:%d: transposed %ld elements of %zu bytes", L->r->file, L->r->line,
           n * d[m - 1] * run, unit);
  if (err != CL_SUCCESS) { /* this entry runs on the host, later ones without the variant */
    launch_fail(L, "transposing an array on the device failed", err);
    L->r->variant_state = -1;
  }
  return err == CL_SUCCESS;
}

/* Strides (in elements) of the original layout's dimensions and of the permuted one's. */
static void strides(const ompcl_array_arg *a, long *orig, long *perm) {
  long so = 1, sp = 1;
  for (int k = a->nd - 1; k >= 0; k--) {
    orig[k] = so;
    so *= a->dims[k];
    perm[k] = sp;
    sp *= a->dims[a->perm[k]];
  }
}

/* The original (at element off of m) into the permuted copy sh. */
static int permute_in(ompcl_launch *L, const ompcl_array_arg *a, mapping *m, long off,
                      shadow *sh) {
  long so[OMPCL_MAX_DIMS], sp[OMPCL_MAX_DIMS], dd[OMPCL_MAX_DIMS], ss[OMPCL_MAX_DIMS];
  strides(a, so, sp);
  for (int k = 0; k < a->nd; k++) {
    dd[k] = a->dims[a->perm[k]];
    ss[k] = so[a->perm[k]];
  }
  return permute(L, m->mem, off, sh->mem, 0, a->nd, dd, ss, a->esize, !sh->version);
}

/* The permuted copy sh back into the original (at element off of m). */
static int permute_out(ompcl_launch *L, const ompcl_array_arg *a, mapping *m, long off,
                       shadow *sh) {
  long so[OMPCL_MAX_DIMS], sp[OMPCL_MAX_DIMS], ss[OMPCL_MAX_DIMS];
  strides(a, so, sp);
  for (int k = 0; k < a->nd; k++) ss[a->perm[k]] = sp[k];
  return permute(L, sh->mem, 0, m->mem, off, a->nd, a->dims, ss, a->esize, 0);
}

static shadow *find_shadow(const mapping *m, const ompcl_array_arg *a) {
  for (shadow *sh = m ? m->shadows : 0; sh; sh = sh->next) {
    int same = sh->base == (uintptr_t)a->ptr && sh->nd == a->nd && sh->esize == a->esize;
    for (int k = 0; same && k < a->nd; k++)
      same = sh->dims[k] == a->dims[k] && sh->perm[k] == a->perm[k];
    if (same) return sh;
  }
  return 0;
}

static shadow *new_shadow(ompcl_launch *L, mapping *m, const ompcl_array_arg *a) {
  cl_mem mem = create_buffer_for(L, (size_t)elements_of(a) * a->esize, 0);
  shadow *sh;
  if (!mem) return 0;
  if (!(sh = calloc(1, sizeof *sh))) {
    rt.cl.ReleaseMemObject(mem);
    launch_fail(L, "out of host memory", CL_OUT_OF_HOST_MEMORY);
    return 0;
  }
  sh->base = (uintptr_t)a->ptr;
  sh->nd = a->nd;
  sh->esize = a->esize;
  for (int k = 0; k < a->nd; k++) {
    sh->dims[k] = a->dims[k];
    sh->perm[k] = a->perm[k];
  }
  sh->mem = mem;
  sh->next = m->shadows;
  m->shadows = sh;
  return sh;
}

void ompcl_rt_arg_layout(ompcl_launch *L, int nd, const long *dims, const int *blocked,
                         const int *grid) {
  ompcl_array_arg *a;
  if (!L->ok || !L->narrays) return;
  a = &L->arrays[L->narrays - 1];
  if (nd < 1 || nd > OMPCL_MAX_DIMS) return;
  for (int k = 0; k < nd; k++)
    if (dims[k] < 1) return;
  a->ndims = nd;
  a->dims = dims;
  a->perms[0] = blocked;
  a->perms[1] = grid;
}

/* The variant kernel of the device's shape, its program built on first use (device set-up,
 * kept out of the region's seconds); 0 where there is none. Kernel arguments are set on it
 * from the next launch on, so a launch that creates it does not run it. */
static int ensure_variant(ompcl_launch *L) {
  ompcl_region *r = L->r;
  const char *name = variant_of(r);
  double t0 = now(), dt;
  cl_int err;
  if (r->variant_state || !name || !r->vprog) return 0;
  r->variant_state = -1;
  if (ensure_program(r->vprog)) {
    r->variant_handle = rt.cl.CreateKernel((cl_program)r->vprog->handle, name, &err);
    if (err == CL_SUCCESS) r->variant_state = 1;
    else r->variant_handle = 0;
  }
  dt = now() - t0;
  rt.setup_seconds += dt;
  r->t_start += dt;
  return 0;
}

/* The arrays the variant of the device's shape permutes (nd, perm), for this launch. */
static void resolve_layouts(ompcl_launch *L) {
  for (int k = 0; k < L->narrays; k++) {
    ompcl_array_arg *a = &L->arrays[k];
    a->perm = a->ndims ? a->perms[!shape.blocked] : 0;
    a->nd = a->perm ? a->ndims : 0;
  }
}

/* The variant is wanted: 1 when it can run now (its kernel and the transpositions ready).
 * Unless forced, its program is built only once the kernel has run for a few times as long
 * as the kernels' program took to build: a short run never pays for it. */
static int want_variant(ompcl_launch *L) {
  const ompcl_region *r = L->r;
  if (r->variant_handle) return ensure_permute();
  if (rt.relayout <= 0 && r->kernel_seconds < rt.layout_build * r->prog->build_seconds) {
    log_line("%s:%d: variant wanted; built after %.3f s of kernels (%.3f so far)", r->file,
             r->line, rt.layout_build * r->prog->build_seconds, r->kernel_seconds);
    return 0;
  }
  return ensure_variant(L);
}

/* Whether a launch runs the variant kernel: OMPCL_DYNLAYOUT, else the cost model: the
 * accesses to permuted arrays save `gain` seconds each; a transposition (to a copy that is
 * not current, and back when the kernel writes the array) costs `copy` + `byte` per byte
 * (`byte` as measured on this device once a transposition has run). The model's guess is
 * checked by measurement: the kernel runs first, then the variant once, where the model says
 * it pays or where the transpositions that repeat (first fills aside) cost no more than the
 * kernel itself; from then on the seconds per work-item measured for each replace the
 * model's saving. */
static int use_variant(ompcl_launch *L) {
  const ompcl_region *r = L->r;
  const double *c = rt.layout_env ? rt.layout_cost : r->prog->layout_cost;
  int have = rt.layout_env || c[0] > 0;
  double gain = have ? c[0] : OMPCL_LAYOUT_GAIN, copy = have ? c[1] : OMPCL_LAYOUT_COPY;
  double byte = have ? c[2] : OMPCL_LAYOUT_BYTE, bytes = 0, again = 0, saved, cost;
  int any = 0, copies = 0, tried = 0;
  double accesses = L->relayout_accesses[!shape.blocked];
  if (!variant_of(r) || r->variant_state < 0 || rt.relayout < 0) return 0;
  resolve_layouts(L);
  for (int k = 0; k < L->narrays; k++) {
    const ompcl_array_arg *a = &L->arrays[k];
    long n;
    mapping *m;
    shadow *sh;
    int back, fill;
    if (!a->nd) continue;
    n = elements_of(a);
    if (a->lo < 0 || a->hi >= n) return 0; /* the kernel may touch more than the array */
    m = whole_mapping(a);
    sh = find_shadow(m, a);
    back = (a->mode & OMPCL_WRITE) != 0;
    fill = !(m && m->dev_valid && !m->ndirty && sh && sh->version == m->version);
    copies += back + fill;
    bytes += (back + fill) * (double)n * (double)a->esize;
    /* what later launches will likely pay again: the write-back, and the refill of a copy
       that went stale since it was made (a first fill is paid once) */
    again += (back + (fill && sh)) * (double)n * (double)a->esize;
    any = 1;
  }
  if (!any) return 0;
  if (rt.relayout > 0) return want_variant(L);
  if (r->rate_kernel <= 0) return 0; /* the kernel's own speed is measured first */
  if (rt.permute_rate > 0) byte = rt.permute_rate;
  cost = copies * copy + bytes * byte;
  if (r->rate_variant > 0) {
    saved = (r->rate_kernel - r->rate_variant) * (double)L->iters;
  } else {
    saved = gain * accesses * (double)L->iters;
    /* a try costs at most about the kernel itself each time it repeats: tried */
    tried = copy + again * byte <= r->rate_kernel * (double)L->iters;
  }
  log_line("%s:%d: variant: saves %.6f s (%s), transpositions cost %.6f s%s", r->file,
           r->line, saved, r->rate_variant > 0 ? "measured" : "model", cost,
           tried ? ": tried" : "");
  return (tried || saved > cost) && want_variant(L);
}

/* The kernel seconds per work-item of the launch, for use_variant (the fastest so far). */
static void measure_variant(ompcl_launch *L) {
  /* test hook: the variant looks a second slower to the measurement */
  double dt = L->kernel_dt + (L->variant && fault("slow-variant") ? 1.0 : 0.0);
  double rate = dt / (double)OMPCL_MAX(L->iters, 1L);
  if (!variant_of(L->r) || L->kernel_dt <= 0) return;
  /* the best of each: a launch slowed by other work on the machine moves neither */
  if (L->variant)
    L->r->rate_variant = L->r->rate_variant > 0 ? OMPCL_MIN(L->r->rate_variant, rate) : rate;
  else
    L->r->rate_kernel = L->r->rate_kernel > 0 ? OMPCL_MIN(L->r->rate_kernel, rate) : rate;
}

/* Map the whole of permuted array k, make its permuted copy current and bind that copy. */
static void bind_permuted(ompcl_launch *L, int k) {
  ompcl_array_arg *a = &L->arrays[k];
  long n = elements_of(a);
  uintptr_t base = (uintptr_t)a->ptr;
  cl_long zero = 0, top = n - 1;
  intptr_t delta;
  mapping *m;
  shadow *sh;
  if (!(m = map_range(L, base, base + (uintptr_t)n * a->esize))) return;
  delta = (intptr_t)(base - m->start);
  if (delta % (intptr_t)a->esize) {
    launch_fail(L, "array is misaligned within its mapping", CL_INVALID_VALUE);
    return;
  }
  L->maps[L->nmaps] = m;
  L->modes[L->nmaps++] = a->mode;
  if (!(sh = find_shadow(m, a)) && !(sh = new_shadow(L, m, a))) return;
  if (sh->version != m->version) {
    if (!permute_in(L, a, m, (long)(delta / (intptr_t)a->esize), sh)) return;
    sh->version = m->version;
  }
  a->shadow = sh;
  L->lo[k] = 0;
  L->hi[k] = n - 1;
  set_arg(L, a->arg, sizeof sh->mem, &sh->mem);
  set_arg(L, a->arg + 1, sizeof zero, &zero);
  set_arg(L, a->arg + 2, sizeof zero, &zero);
  set_arg(L, a->arg + 3, sizeof top, &top);
}

/* After the variant ran: what it wrote goes back to the original layout. */
static void permute_back(ompcl_launch *L) {
  for (int k = 0; k < L->narrays && L->ok; k++) {
    ompcl_array_arg *a = &L->arrays[k];
    mapping *m;
    if (!a->nd || !(a->mode & OMPCL_WRITE)) continue;
    m = whole_mapping(a);
    permute_out(L, a, m, (long)(((uintptr_t)a->ptr - m->start) / a->esize),
                (shadow *)a->shadow);
  }
}

/* After mark_written: a written permuted copy holds what its original now holds, unless
 * another written argument of the launch shares the mapping. */
static void shadows_current(ompcl_launch *L) {
  for (int k = 0; k < L->narrays; k++) {
    ompcl_array_arg *a = &L->arrays[k];
    mapping *m;
    int writers = 0;
    if (!a->nd || !(a->mode & OMPCL_WRITE) || !a->shadow) continue;
    m = whole_mapping(a);
    for (int i = 0; i < L->nmaps; i++) writers += L->maps[i] == m && (L->modes[i] & OMPCL_WRITE);
    if (m && writers == 1) ((shadow *)a->shadow)->version = m->version;
  }
}

/* Bytes a launch would move: the array ranges no valid device copy holds (the mapping they
 * would join is taken whole), and what the kernel writes, which the host reads back unless it
 * stays resident.  Zero-copy buffers move nothing. */
static double transfer_bytes(const ompcl_launch *L) {
  double bytes = 0;
  if (rt.zero_copy) return 0;
  for (int k = 0; k < L->narrays; k++) {
    const ompcl_array_arg *a = &L->arrays[k];
    uintptr_t lo = (uintptr_t)a->ptr + (uintptr_t)a->lo * a->esize;
    uintptr_t hi = (uintptr_t)a->ptr + (uintptr_t)(a->hi + 1) * a->esize;
    mapping *m;
    if (a->hi < a->lo) continue;
    m = find_containing(lo, hi);
    if (!m || !m->dev_valid) bytes += (double)(m ? m->end - m->start : hi - lo);
    if (a->mode & OMPCL_WRITE) bytes += (double)(hi - lo);
  }
  return bytes;
}

void ompcl_rt_arg_scalar(ompcl_launch *L, const void *value, unsigned long size) {
  if (L->deferred && L->ok) { /* no kernel yet: kept until the device is chosen */
    void *copy = L->npending < OMPCL_MAX_ARGS ? malloc(size) : 0;
    if (!copy) {
      launch_fail(L, "too many arguments", CL_OUT_OF_HOST_MEMORY);
      return;
    }
    memcpy(copy, value, size);
    L->pending[L->npending].arg = L->nargs++;
    L->pending[L->npending].size = size;
    L->pending[L->npending++].value = copy;
    return;
  }
  set_arg(L, L->nargs++, size, value);
}

static void drop_pending(ompcl_launch *L) {
  for (int k = 0; k < L->npending; k++) free(L->pending[k].value);
  L->npending = 0;
}

/* The work-group size a grid-shape launch of `n` would have, before the device is known
 * (the group-size budget without the device's and the kernel's limits). */
static long grid_guess(const ompcl_launch *L, int ndim, const long n[]) {
  long budget = 256, wg = 1;
  for (int k = 0; k < L->nresults; k++)
    if (L->results[k].count < 0) budget = 128;  /* per-group partial results */
  for (int d = 0; d < ndim; d++) {
    long l = (long)OMPCL_MIN(pow2_ceil(OMPCL_MAX(n[ndim - 1 - d], 1L)), (size_t)budget);
    budget /= l;
    wg *= l;
  }
  return wg;
}

/* Before OpenCL has started: whether the model chooses the host for every work-group size
 * and data movement the launch may have (those the last start found, when it is
 * remembered; else blocked or grid shape, copying or zero-copy buffers), so the device is
 * never needed. */
static int host_whatever_device(ompcl_launch *L, int ndim, const long n[]) {
  ompcl_region *r = L->r;
  double f[OMPCL_NFEATURES], transfers[2] = {0, 0};
  long wgs[2] = {1, grid_guess(L, ndim, n)};
  int saved = rt.zero_copy, blocked, zero_copy, nt = 2, nw = 2, t0 = 0, w0 = 0;
  double start;
  rt.zero_copy = 0;
  transfers[1] = transfer_bytes(L);
  rt.zero_copy = saved;
  if (recall_device(&blocked, &zero_copy, &start)) {
    w0 = blocked ? 0 : 1;
    nw = w0 + 1;
    t0 = zero_copy ? 0 : 1;
    nt = t0 + 1;
  }
  for (int t = t0; t < nt; t++)
    for (int w = w0; w < nw; w++) {
      entry_features(L, transfers[t], wgs[w], f);
      if (rt.model ? model_predict(rt.model, f) : r->predict(f, OMPCL_NFEATURES)) return 0;
    }
  memcpy(r->last_features, f, sizeof f);
  return 1;
}

/* A guess at the host seconds of an entry before it runs: its recorded seconds per
 * work-item if it ran on the host before, else its operations per work-item (comp + mem)
 * at OMPCL_HOST_OP_SECONDS each. */
static double host_guess(const ompcl_launch *L) {
  const ompcl_region *r = L->r;
  double f[OMPCL_NFEATURES];
  long runs = 0, items = 0;
  double secs = 0;
  for (int k = 0; k < OMPCL_MAX_SIZES; k++) {
    const ompcl_size_stats *z = &r->sizes[k];
    if (z->host_runs > 0 && z->work_items > 0) {
      runs += z->host_runs;
      items += z->host_runs * z->work_items;
      secs += z->seconds_host;
    }
  }
  if (runs > 0 && items > 0) return secs / (double)items * (double)L->iters;
  entry_features(L, 0, 1, f);
  return (double)L->iters * (f[0] + f[1] > 1 ? f[0] + f[1] : 1.0) * OMPCL_HOST_OP_SECONDS;
}

/* A deferred entry at its launch: the host if the model says so whatever the device, else
 * the device made ready and the kept arguments set. */
static int undefer(ompcl_launch *L, int ndim, const long n[]) {
  ompcl_region *r = L->r;
  ompcl_size_stats *z = size_class(r, L->iters);
  int probing = z->probe == 1 || probe_due(z, 0); /* the device is measured: start it */
  L->deferred = 0;
  if (!probing && host_whatever_device(L, ndim, n)) {
    z->decision[0] = z->decision[1] = 2;
    r->decisions_host++;
    log_decision(r, r->last_features, 0, 0);
    drop_pending(L);
    L->declined = 1;
    return 0;
  }
  if (!probing && rt.cl_state == 0 && rt.wanted_seconds < rt.startup_budget &&
      host_guess(L) < rt.startup_budget) {
    /* OpenCL is not started: that costs about the budget, so it pays only once the host
     * has spent as long in loops the model sends to the device (a short program never
     * pays it; many short entries pay it at most twice over); an entry that looks as
     * long as the start-up by itself starts it at once */
    r->wanting = 1;
    rt.startup_deferred++;
    log_line("%s:%d: host (OpenCL start-up deferred: %.3f of %.3f s)", r->file, r->line,
             rt.wanted_seconds, rt.startup_budget);
    drop_pending(L);
    L->declined = 1;
    return 0;
  }
  if (!ready_device(r, L->iters)) {
    drop_pending(L);
    return 0;
  }
  r->t_start = now(); /* keeps the device's start-up out of seconds_device */
  for (int k = 0; k < L->npending; k++)
    set_arg(L, L->pending[k].arg, L->pending[k].size, L->pending[k].value);
  drop_pending(L);
  return L->ok;
}

void ompcl_rt_arg_result(ompcl_launch *L, unsigned long esize, int per_group) {
  ompcl_result *res;
  if (!L->ok) return;
  if (L->nresults >= OMPCL_MAX_RESULTS) {
    launch_fail(L, "too many results", CL_INVALID_VALUE);
    return;
  }
  res = &L->results[L->nresults];
  res->buffer = res->host = 0;
  res->esize = esize;
  res->count = per_group ? -1 : 1; /* -1: one per work-group, known at launch */
  L->result_arg[L->nresults++] = L->nargs++;
}

/* True when the launch has per-work-group results (reduction partials). */
static int has_partials(const ompcl_launch *L) {
  for (int k = 0; k < L->nresults; k++)
    if (L->results[k].count < 0) return 1;
  return 0;
}

/* Grid-stride kernels loop over their iterations, so fewer work-groups than iterations is
 * correct; the count is capped (a GPU's reductions at 16 groups per compute unit: enough to
 * fill it, few partial results): outer dimensions shrink first, keeping dimension 0 wide for
 * contiguous accesses. */
static void cap_groups(ompcl_launch *L) {
  size_t groups = 1, cap = rt.max_groups;
  if (has_partials(L) && !getenv("OMPCL_MAX_GROUPS")) cap = OMPCL_MIN(cap, 16 * shape.units);
  for (int d = 0; d < L->ndim; d++) groups *= L->global[d] / L->local[d];
  for (int d = L->ndim - 1; d >= 0 && groups > cap; d--) {
    size_t mine = L->global[d] / L->local[d], others = groups / mine;
    size_t keep = OMPCL_MAX((size_t)1, cap / others);
    if (keep < mine) {
      L->global[d] = keep * L->local[d];
      groups = others * keep;
    }
  }
}

/* Work-items per work-group in the grid shape: 256 (128 with a reduction's tree, the size
 * of the kernels' local arrays, OMPCL_WG: a multiple of every GPU's warp or wavefront),
 * within the kernel's (registers) and the device's limits; a power of two. */
static size_t group_size(const ompcl_launch *L) {
  size_t kwg = 0, budget = OMPCL_MIN((size_t)(has_partials(L) ? 128 : 256), rt.max_wg);
  rt.cl.GetKernelWorkGroupInfo((cl_kernel)L->r->kernel_handle, rt.device,
                               CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg, &kwg, 0);
  if (kwg) budget = OMPCL_MIN(budget, kwg);
  return pow2_floor(budget);
}

/* Grid shape: work-group sizes are powers of two, innermost loop first (dimension 0), their
 * product the group size; the range covers every iteration unless capped. */
static void size_grid(ompcl_launch *L, int ndim, const long n[]) {
  size_t budget = group_size(L);
  L->ndim = ndim;
  for (int d = 0; d < ndim; d++) {
    long nd = OMPCL_MAX(n[ndim - 1 - d], 1L);
    size_t l = OMPCL_MIN(OMPCL_MIN(pow2_ceil(nd), budget), pow2_floor(rt.max_items[d]));
    budget /= l;
    L->local[d] = l;
    L->global[d] = ((size_t)nd + l - 1) / l * l;
  }
  cap_groups(L);
}

/* Blocked shape: a 1-D range of work-groups of one work-item, one per chunk: as many chunks
 * as the group cap allows, at most one per iteration. */
static void size_blocked(ompcl_launch *L) {
  L->ndim = 1;
  L->local[0] = 1;
  L->global[0] = (size_t)OMPCL_MAX(1L, OMPCL_MIN(L->iters, (long)rt.max_groups));
}

static void size_launch(ompcl_launch *L, int ndim, const long n[]) {
  if (shape.blocked)
    size_blocked(L);
  else
    size_grid(L, ndim, n);
  L->groups = 1;
  for (int d = 0; d < L->ndim; d++) L->groups *= (long)(L->global[d] / L->local[d]);
}

static void create_results(ompcl_launch *L) {
  for (int k = 0; k < L->nresults && L->ok; k++) {
    ompcl_result *res = &L->results[k];
    cl_mem mem;
    if (res->count < 0) res->count = L->groups;
    if (!(mem = create_buffer_for(L, res->esize * (size_t)res->count, 0))) return;
    res->buffer = mem;
    set_arg(L, L->result_arg[k], sizeof mem, &mem);
  }
}

static void read_results(ompcl_launch *L) {
  for (int k = 0; k < L->nresults && L->ok; k++) {
    ompcl_result *res = &L->results[k];
    size_t bytes = res->esize * (size_t)res->count;
    cl_int err;
    if (!(res->host = malloc(bytes))) {
      launch_fail(L, "out of host memory", CL_OUT_OF_HOST_MEMORY);
      return;
    }
    err = rt.cl.EnqueueReadBuffer(rt.queue, (cl_mem)res->buffer, CL_TRUE, 0, bytes, res->host,
                                  0, 0, 0);
    if (err != CL_SUCCESS) launch_fail(L, "reading results failed", err);
  }
}

/* The bounds-check report buffer (zeroed) in check mode, a placeholder otherwise; bound as
 * the kernel's last argument. */
static void bind_check_buffer(ompcl_launch *L) {
  static const cl_int zero[4] = {0, 0, 0, 0};
  cl_mem mem;
  cl_int err;
  if (!L->ok) return;
  if (!rt.bounds_check) {
    if ((mem = dummy_buffer(L))) set_arg(L, L->nargs, sizeof mem, &mem);
    return;
  }
  if (!rt.err && !(rt.err = create_buffer_for(L, sizeof zero, 0))) return;
  err = rt.cl.EnqueueWriteBuffer(rt.queue, rt.err, CL_TRUE, 0, sizeof zero, zero, 0, 0, 0);
  if (err != CL_SUCCESS)
    launch_fail(L, "copy to the device failed", err);
  else
    set_arg(L, L->nargs, sizeof rt.err, &rt.err);
}

/* After a checked launch: stop the program at the first out-of-bounds access found. */
static void check_report(ompcl_launch *L) {
  cl_int rep[4] = {0, 0, 0, 0};
  const ompcl_region *r = L->r;
  const ompcl_site *s;
  long index;
  if (!rt.bounds_check || !L->ok ||
      rt.cl.EnqueueReadBuffer(rt.queue, rt.err, CL_TRUE, 0, sizeof rep, rep, 0, 0, 0) !=
          CL_SUCCESS || !rep[0])
    return;
  index = (long)(((unsigned long)(unsigned)rep[3] << 32) | (unsigned)rep[2]);
  s = rep[1] >= 0 && rep[1] < r->nsites ? &r->sites[rep[1]] : 0;
  fprintf(stderr, "ompcl: error: out-of-bounds access in kernel '%s' (%s:%d): array '%s' "
                  "element %ld outside the mapped range [%ld, %ld] at %s\n",
          r->kernel, r->file, r->line, s ? s->array : "?", index,
          s && s->buffer < L->narrays ? L->lo[s->buffer] : 0,
          s && s->buffer < L->narrays ? L->hi[s->buffer] : -1, s ? s->where : "?");
  exit(OMPCL_BOUNDS_EXIT);
}

static void enqueue(ompcl_launch *L) {
  size_t global[3], local[3];
  cl_event ev = 0;
  cl_int err;
  bind_check_buffer(L);
  if (!L->ok) return;
  for (int d = 0; d < L->ndim; d++) {
    global[d] = L->global[d];
    local[d] = L->local[d];
  }
  err = fault("launch") ? CL_OUT_OF_RESOURCES
                        : rt.cl.EnqueueNDRangeKernel(rt.queue, (cl_kernel)(L->variant
                                                     ? L->r->variant_handle : L->r->kernel_handle),
                                                     (cl_uint)L->ndim, 0, global, local, 0, 0,
                                                     &ev);
  if (err == CL_SUCCESS) err = rt.cl.Finish(rt.queue);
  if (ev) {
    double dt = event_seconds(ev);
    L->r->kernel_seconds += dt;
    L->r->t_kernel += dt;
    L->kernel_dt = dt;
  }
  if (err != CL_SUCCESS) launch_fail(L, "OpenCL launch failed", err);
}

/* After the launch: written mappings are valid on the device only; after a failure, drop
 * device copies that may be half-written (unless they hold the only valid copy). */
static void mark_written(ompcl_launch *L, int ok) {
  for (int i = 0; i < L->nmaps; i++) {
    mapping *m = (mapping *)L->maps[i];
    if (!(L->modes[i] & OMPCL_WRITE)) continue;
    if (ok) {
      m->host_valid = 0;
      m->nhv = 0;
      m->dev_valid = 1;
      m->version = ++rt.epoch;
      m->owner = L->r;
    } else if (m->host_valid) {
      m->dev_valid = 0;
    }
  }
}

/* The device/host decision of a launch, once (ompcl_rt_decide may make it early). */
static int settle(ompcl_launch *L, int ndim, const long n[]) {
  if (L->settled) return L->ok;
  L->settled = 1;
  if (!L->ok) return 0;
  if (ndim < 1 || ndim > 3) {
    launch_fail(L, "unsupported number of loop dimensions", CL_INVALID_WORK_DIMENSION);
    return 0;
  }
  if (L->deferred && !undefer(L, ndim, n)) {
    L->ok = 0;
    L->r->last_decision = 0;
    return 0;
  }
  size_launch(L, ndim, n);
  if (!decide(L)) { /* the model chose the host: not a failure */
    L->ok = 0;
    L->declined = 1;
    L->r->last_decision = 0;
    return 0;
  }
  return 1;
}

static int launch(ompcl_launch *L, int ndim, const long n[]) {
  if (!settle(L, ndim, n)) return 0;
  L->variant = use_variant(L);
  L->r->relayout_accesses = L->relayout_accesses[!shape.blocked];
  for (int k = 0; k < L->narrays && L->ok; k++) {
    if (L->variant && L->arrays[k].nd)
      bind_permuted(L, k);
    else
      bind_array(L, k);
  }
  create_results(L);
  enqueue(L);
  check_report(L);
  read_results(L);
  if (L->ok) measure_variant(L);
  if (L->variant && L->ok) permute_back(L);
  mark_written(L, L->ok);
  if (L->variant && L->ok) {
    shadows_current(L);
    L->r->relayout_runs++;
  } else if (L->variant) { /* a failed variant may have half-written its copies */
    for (int k = 0; k < L->narrays; k++)
      if (L->arrays[k].shadow && (L->arrays[k].mode & OMPCL_WRITE))
        ((shadow *)L->arrays[k].shadow)->version = 0;
  }
  if (!L->ok) return 0;
  L->r->kernels_launched++;
  L->r->device_runs++;
  rt.launches++;
  log_line("%s:%d: launched %s over %ld work-groups", L->r->file, L->r->line, L->r->kernel,
           L->groups);
  return 1;
}

int ompcl_rt_decide(ompcl_launch *L, int ndim, const long n[]) {
  int ok;
  pthread_mutex_lock(&rt.lock);
  ok = settle(L, ndim, n);
  pthread_mutex_unlock(&rt.lock);
  return ok;
}

void ompcl_rt_decline(ompcl_launch *L, const char *why) {
  pthread_mutex_lock(&rt.lock);
  if (L->ok) {
    L->ok = 0;
    L->declined = 1;
    L->r->last_decision = 0;
    L->r->check_declines++;
    log_line("%s:%d: host: %s", L->r->file, L->r->line, why);
    if (L->r->device_runs > 0 && !L->r->check_warned++)
      /* what the original reads here was left by iterations that ran on the device */
      fprintf(stderr, "ompcl: warning: %s:%d: %s after the loop ran on the device; what it "
              "reads there may differ from the OpenMP original's\n", L->r->file, L->r->line, why);
  }
  pthread_mutex_unlock(&rt.lock);
}

void ompcl_rt_distinct(ompcl_launch *L, int a, int b) {
  const ompcl_array_arg *x = &L->arrays[a], *y = &L->arrays[b];
  uintptr_t x0 = (uintptr_t)x->ptr + (uintptr_t)(x->lo * (long)x->esize);
  uintptr_t x1 = (uintptr_t)x->ptr + (uintptr_t)((x->hi + 1) * (long)x->esize);
  uintptr_t y0 = (uintptr_t)y->ptr + (uintptr_t)(y->lo * (long)y->esize);
  uintptr_t y1 = (uintptr_t)y->ptr + (uintptr_t)((y->hi + 1) * (long)y->esize);
  if (!L->ok || a >= L->narrays || b >= L->narrays || x->lo > x->hi || y->lo > y->hi ||
      x1 <= y0 || y1 <= x0)
    return;
  pthread_mutex_lock(&rt.lock);
  L->ok = 0;
  L->declined = 1;
  L->r->last_decision = 0;
  L->r->alias_declines++;
  log_line("%s:%d: host: array arguments %d and %d overlap (the kernel assumes distinct "
           "memory)", L->r->file, L->r->line, a, b);
  pthread_mutex_unlock(&rt.lock);
}

/* ---- run-time scratch checks (see ompcl_rt.h) ---- */
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

const void *ompcl_rt_result(ompcl_launch *L, int k, long *count) {
  if (k < 0 || k >= L->nresults || !L->results[k].host) {
    *count = 0;
    return 0;
  }
  *count = L->results[k].count;
  return L->results[k].host;
}

void ompcl_rt_launch_release(ompcl_launch *L) {
  drop_pending(L);
  for (int k = 0; k < L->nresults; k++) {
    ompcl_result *res = &L->results[k];
    if (res->buffer) rt.cl.ReleaseMemObject((cl_mem)res->buffer);
    free(res->host);
    res->buffer = res->host = 0;
  }
}

/* Device seconds of every kernel launched so far (profiling events), for benchmarks that time
 * single calls. */
double ompcl_rt_kernel_seconds(void) {
  double s = 0;
  pthread_mutex_lock(&rt.lock);
  for (const ompcl_region *r = rt.regions; r; r = r->next) s += r->kernel_seconds;
  pthread_mutex_unlock(&rt.lock);
  return s;
}

static void host(ompcl_region *r) {
  start();
  register_region(r);
  r->host_runs++;
  r->last_decision = 0;
  release_unused(0);
}

/* Times the entry begun by ompcl_rt_begin; host paths run inside an enclosing parallel
 * region call no ompcl_rt_begin (t_start is 0) and are counted but not timed. */
static void end(ompcl_region *r, int keep_resident) {
  ompcl_size_stats *z;
  double dt;
  r->entries++;
  if (!keep_resident || rt.no_residency) release_unused(0);
  if (r->t_start <= 0) return;
  dt = now() - r->t_start;
  r->t_start = 0;
  /* test hooks: one side looks slower to the measurement of the model (probe_due) */
  if ((fault("slow-device") && r->last_decision) || (fault("slow-host") && !r->last_decision))
    dt += 0.05;
  z = size_class(r, r->last_iters);
  z->work_items = r->last_iters;
  z->entries++;
  if (z->probe == 1 && (r->last_decision != 0) != z->probe_device)
    z->probe = 2; /* the probed side declined the entry (a check, a failure): the model's */
  else if (z->probe == 1 && ++z->probe_runs > 1) {
    z->probe_seconds += dt;
    z->probe_items += (double)r->last_iters;
  }
  if (r->last_decision) {
    z->items_device += (double)r->last_iters;
    r->seconds_device += dt;
    z->device_runs++;
    z->seconds_device += dt;
    z->kernel_seconds += r->t_kernel;
    z->transfer_seconds += r->t_transfer;
    z->bytes_to_device += r->b_to_device;
    z->bytes_to_host += r->b_to_host;
  } else {
    z->items_host += (double)r->last_iters;
    r->seconds_host += dt;
    z->host_runs++;
    z->seconds_host += dt;
    if (r->wanting) rt.wanted_seconds += dt;
  }
  r->wanting = 0;
}

/* Device copies are stale from here on, so their buffers are released: a later region maps
 * again, and no buffer outlives the host memory it mirrors. */
void ompcl_rt_sync_host(void) {
  pthread_mutex_lock(&rt.lock);
  release_unused(0);
  pthread_mutex_unlock(&rt.lock);
}

/* Auto mode, a team whose device version has run: the model decides loops, not the team
 * of one around them (its host code, its loops' own parallel regions when they decline), so
 * the original is timed once and then the faster version runs. */
static int team_measured(ompcl_region *t) {
  if (t->host_runs == 0) {
    t->fallback = "its original is timed once against its device version";
    return 0;
  }
  if (t->seconds_host / t->host_runs < t->seconds_device / t->device_runs) {
    t->fallback = "its original ran faster than its device version";
    return 0;
  }
  return 1;
}

/* The device/host decision for a parallel region: the device version needs a device. */
static int team_begin(ompcl_region *t) {
  int dev;
  double t0;
  start();
  register_region(t);
  t0 = now();
  t->last_iters = 0;
  if (rt.mode == MODE_OPENMP) {
    dev = 0;
  } else if (rt.mode == MODE_AUTO) { /* its loops start the device if they want it */
    dev = !t->serial && !t->idle && t->nloops > 0 &&
          (!t->predict || t->predict(t->features, t->nfeatures));
    if (!t->nloops)
      t->fallback = "no loop of its own is a kernel";
    else if (t->serial)
      t->fallback = "some of its loops would run on one thread in its device version";
    else if (t->idle)
      t->fallback = "its device version launched no kernel";
    else if (dev && t->device_runs > 0)
      dev = team_measured(t);
  } else if (!init_opencl()) {
    if (!rt.warned_no_device++)
      fprintf(stderr, "ompcl: warning: no OpenCL device available; running loops with OpenMP\n");
    t->fallback = "no OpenCL device available";
    dev = 0;
  } else {
    dev = 1;
  }
  t->launch_mark = rt.launches;
  t->last_decision = dev;
  t->entries++;
  t->t_start = now();
  rt.setup_seconds += t->t_start - t0;
  if (!dev || !t->keep) release_unused(0); /* unprobed host code may touch anything */
  if (dev) {
    if (!rt.team_depth) rt.team_setup = rt.setup_seconds;
    rt.team_depth++;
    t->device_runs++;
  } else {
    t->host_runs++;
  }
  log_line("%s:%d: parallel region: %s", t->file, t->line,
           dev ? "device (a team of one)" : "host");
  return dev;
}

/* Either path's end: the device version (a team of one) or the original region, which is
 * only timed (its data movement is the host code's). */
static void team_end(ompcl_region *t) {
  if (!t->last_decision) {
    t->seconds_host += now() - t->t_start;
    return;
  }
  if (rt.team_depth > 0) rt.team_depth--;
  if (rt.launches == t->launch_mark) t->idle = 1; /* no loop wanted the device */
  if (!t->keep || rt.no_residency) release_unused(0);
  t->seconds_device += now() - t->t_start;
  /* the outermost team leaves out the set-up its loops did, as loops do themselves */
  if (!rt.team_depth) t->seconds_device -= rt.setup_seconds - rt.team_setup;
}

/* ---- locked entry points ------------------------------------------------------------ */

int ompcl_rt_team_begin(ompcl_region *t) {
  int ok;
  pthread_mutex_lock(&rt.lock);
  ok = team_begin(t);
  pthread_mutex_unlock(&rt.lock);
  return ok;
}

void ompcl_rt_team_end(ompcl_region *t) {
  pthread_mutex_lock(&rt.lock);
  team_end(t);
  pthread_mutex_unlock(&rt.lock);
}

int ompcl_rt_begin(ompcl_region *r, ompcl_launch *L, long iters) {
  int ok;
  pthread_mutex_lock(&rt.lock);
  ok = begin(r, L, iters);
  pthread_mutex_unlock(&rt.lock);
  return ok;
}

void ompcl_rt_arg_array(ompcl_launch *L, void *ptr, long lo, long hi, unsigned long esize,
                        int mode) {
  pthread_mutex_lock(&rt.lock);
  arg_array(L, ptr, lo, hi, esize, mode);
  pthread_mutex_unlock(&rt.lock);
}

int ompcl_rt_launch(ompcl_launch *L, int ndim, const long n[]) {
  int ok;
  pthread_mutex_lock(&rt.lock);
  ok = launch(L, ndim, n);
  pthread_mutex_unlock(&rt.lock);
  return ok;
}

void ompcl_rt_host_range(const void *addr, unsigned long bytes, int mode) {
  if (!__atomic_load_n(&rt.maps, __ATOMIC_ACQUIRE)) return; /* nothing is on the device */
  pthread_mutex_lock(&rt.lock);
  host_range(addr, bytes, mode);
  pthread_mutex_unlock(&rt.lock);
}

void ompcl_rt_host_all(int mode) {
  if (!__atomic_load_n(&rt.maps, __ATOMIC_ACQUIRE)) return;
  pthread_mutex_lock(&rt.lock);
  host_all(mode);
  pthread_mutex_unlock(&rt.lock);
}

void ompcl_rt_announce(void) { announced = 1; }

int ompcl_rt_enter(void) {
  int k = announced;
  announced = 0;
  return k;
}

void ompcl_rt_leave(int caller_instrumented, const void *frame) {
  announced = 0;
  if (!__atomic_load_n(&rt.maps, __ATOMIC_ACQUIRE)) return;
  pthread_mutex_lock(&rt.lock);
  if (!caller_instrumented) host_all(OMPCL_READWRITE); /* the caller may touch anything */
  release_frame((uintptr_t)frame);
  pthread_mutex_unlock(&rt.lock);
}

void ompcl_rt_host(ompcl_region *r) {
  pthread_mutex_lock(&rt.lock);
  host(r);
  pthread_mutex_unlock(&rt.lock);
}

void ompcl_rt_end(ompcl_region *r, int keep_resident) {
  pthread_mutex_lock(&rt.lock);
  end(r, keep_resident);
  pthread_mutex_unlock(&rt.lock);
}

/* ---- statistics and exit ------------------------------------------------------------ */

static void json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

static void json_sizes(FILE *f, const ompcl_region *r) {
  static const char *const decisions[] = {"null", "\"device\"", "\"host\""};
  int first = 1;
  fputs(", \"sizes\": [", f);
  for (int k = 0; k < OMPCL_MAX_SIZES; k++) {
    const ompcl_size_stats *z = &r->sizes[k];
    if (!z->entries && !z->decision[0] && !z->decision[1]) continue;
    fprintf(f, "%s{\"work_items\": %ld, \"entries\": %ld, \"device_runs\": %ld, "
               "\"host_runs\": %ld, \"seconds_device\": %.6f, \"seconds_host\": %.6f, "
               "\"kernel_seconds\": %.6f, \"transfer_seconds\": %.6f, \"bytes_to_device\": %ld, "
               "\"bytes_to_host\": %ld, \"transfer\": %.0f, \"wgsize\": %ld, "
               "\"decision\": [%s, %s], \"measured\": %s",
            first ? "" : ", ", z->work_items, z->entries, z->device_runs, z->host_runs,
            z->seconds_device, z->seconds_host, z->kernel_seconds, z->transfer_seconds,
            z->bytes_to_device, z->bytes_to_host, z->transfer, z->wgsize,
            decisions[z->decision[0]], decisions[z->decision[1]],
            z->probe == 2 ? "true" : z->probe == 1 ? "\"probing\"" : "false");
    fputs(", \"static\": [", f);
    for (int s = 0; s < OMPCL_NSTATIC; s++) fprintf(f, "%s%.17g", s ? ", " : "", z->statics[s]);
    fputs("]}", f);
    first = 0;
  }
  fputs("]", f);
}

static void json_region(FILE *f, const ompcl_region *r) {
  fputs("{\"file\": ", f);
  json_string(f, r->file);
  fprintf(f, ", \"line\": %d, \"kernel\": ", r->line);
  if (r->kernel)
    json_string(f, r->kernel);
  else
    fputs("null", f);
  fprintf(f, ", \"entries\": %ld, \"device_runs\": %ld, \"host_runs\": %ld, "
             "\"kernels_launched\": %ld, \"bytes_to_device\": %ld, \"bytes_to_host\": %ld, "
             "\"transfers_to_device\": %ld, \"transfers_to_host\": %ld, "
             "\"seconds_device\": %.6f, \"seconds_host\": %.6f, \"kernel_seconds\": %.6f, "
             "\"transfer_seconds\": %.6f, \"decisions_device\": %ld, \"decisions_host\": %ld, "
             "\"check_runs\": %ld, \"check_hits\": %ld, \"check_declines\": %ld, "
             "\"alias_declines\": %ld, \"relayout_runs\": %ld, \"relayout_copies\": %ld, "
             "\"relayout_seconds\": %.6f, \"relayout_accesses\": %.1f, "
             "\"fallback\": ",
          r->entries, r->device_runs, r->host_runs, r->kernels_launched, r->bytes_to_device,
          r->bytes_to_host, r->transfers_to_device, r->transfers_to_host, r->seconds_device,
          r->seconds_host, r->kernel_seconds, r->transfer_seconds, r->decisions_device,
          r->decisions_host, r->check_runs, r->check_hits, r->check_declines,
          r->alias_declines, r->relayout_runs, r->relayout_copies, r->relayout_seconds,
          r->relayout_accesses);
  if (r->fallback)
    json_string(f, r->fallback);
  else
    fputs("null", f);
  if (r->kernel) {
    fputs(", \"static\": [", f);
    for (int k = 0; k < r->nfeatures; k++) fprintf(f, "%s%.17g", k ? ", " : "", r->features[k]);
    fputs("], \"features\": [", f);
    for (int k = 0; k < OMPCL_NFEATURES; k++)
      fprintf(f, "%s%.17g", k ? ", " : "", r->last_features[k]);
    fputs("]", f);
    json_sizes(f, r);
  }
  fputc('}', f);
}

/* Totals over loop regions. */
static void json_totals(FILE *f) {
  long b_dev = 0, b_host = 0, n_dev = 0, n_host = 0;
  double kernel = 0, transfer = 0;
  for (ompcl_region *r = rt.regions; r; r = r->next) {
    b_dev += r->bytes_to_device;
    b_host += r->bytes_to_host;
    n_dev += r->transfers_to_device;
    n_host += r->transfers_to_host;
    kernel += r->kernel_seconds;
    transfer += r->transfer_seconds;
  }
  fprintf(f, ", \"totals\": {\"bytes_to_device\": %ld, \"bytes_to_host\": %ld, "
             "\"transfers_to_device\": %ld, \"transfers_to_host\": %ld, "
             "\"kernel_seconds\": %.6f, \"transfer_seconds\": %.6f, \"setup_seconds\": %.6f, "
             "\"map_round_trips\": %ld, \"coherent_buffers\": %ld, \"startup_deferred\": %ld, "
             "\"startup_wanted_seconds\": %.6f}",
          b_dev, b_host, n_dev, n_host, kernel, transfer, rt.setup_seconds, rt.map_round_trips,
          rt.coherent_buffers, rt.startup_deferred, rt.wanted_seconds);
}

/* Loop regions (with a kernel) or parallel regions run as teams of one. */
static void json_regions(FILE *f, const char *key, int loops) {
  int first = 1;
  fprintf(f, ", \"%s\": [", key);
  for (ompcl_region *r = rt.regions; r; r = r->next) {
    if ((r->kernel != 0) != loops) continue;
    fputs(first ? "\n  " : ",\n  ", f);
    first = 0;
    json_region(f, r);
  }
  fputs("]", f);
}

static void write_stats(void) {
  FILE *f;
  if (!rt.stats || !*rt.stats) return;
  f = strcmp(rt.stats, "-") ? fopen(rt.stats, "w") : stderr;
  if (!f) {
    fprintf(stderr, "ompcl: warning: cannot write statistics to %s: %s\n", rt.stats,
            strerror(errno));
    return;
  }
  fprintf(f, "{\"mode\": \"%s\", \"device\": {\"available\": %s, \"platform\": ",
          mode_names[rt.mode], rt.cl_state > 0 ? "true" : "false");
  json_string(f, rt.platform_name);
  fputs(", \"name\": ", f);
  json_string(f, rt.device_name);
  fprintf(f, ", \"zero_copy\": %s}, \"model\": ", rt.zero_copy ? "true" : "false");
  if (rt.model)
    json_string(f, rt.model_path);
  else
    fputs("\"compiled-in\"", f);
  fputs(", \"feature_names\": [", f);
  for (int k = 0; k < OMPCL_NFEATURES; k++) {
    if (k) fputs(", ", f);
    json_string(f, feature_names[k]);
  }
  fputs("]", f);
  json_totals(f);
  json_regions(f, "regions", 1);
  json_regions(f, "teams", 0);
  fputs("}\n", f);
  if (f != stderr) fclose(f);
}

/* Releases device objects; the library stays loaded (its own exit handlers may still run). */
static void release_opencl(void) {
  while (rt.maps) {
    mapping *m = rt.maps;
    rt.maps = m->next;
    release_mapping(m);
  }
  for (ompcl_region *r = rt.regions; r; r = r->next) {
    if (r->kernel_handle) rt.cl.ReleaseKernel((cl_kernel)r->kernel_handle);
    r->kernel_handle = 0;
    if (r->prog->handle) rt.cl.ReleaseProgram((cl_program)r->prog->handle);
    r->prog->handle = 0;
    r->prog->state = 0;
  }
  if (rt.dummy) rt.cl.ReleaseMemObject(rt.dummy);
  if (rt.err) rt.cl.ReleaseMemObject(rt.err);
  rt.err = 0;
  if (rt.queue) rt.cl.ReleaseCommandQueue(rt.queue);
  if (rt.ctx) rt.cl.ReleaseContext(rt.ctx);
  rt.dummy = 0;
  rt.queue = 0;
  rt.ctx = 0;
}

static void finish(void) {
  if (rt.cl_state > 0) release_unused(0); /* later exit handlers may read the data */
  write_stats();
  if (rt.cl_state > 0) release_opencl();
}
