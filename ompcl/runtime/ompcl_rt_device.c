/* ompcl runtime: the OpenCL library (dlopen), the device and its context, and how kernels
 * run on it (the launch shape); a note of the device in the cache directory for auto mode. */

#include "ompcl_rt_internal.h"

cl_api ompcl_cl;
struct ompcl_device_state ompcl_dev = {.build_options = ""};

/* PoCL's CPU device pins its worker threads one per core when POCL_AFFINITY=1; unpinned, the
 * scheduler often wakes both on one core between launches, and kernels ran at one core's
 * speed in about half of the processes (a 4M-element reduction: 0.55 ms against 0.27 ms; SP.W
 * on the device 1.27-1.79 s against 1.26-1.31 s pinned).  Set unless the user chose. */
static void pocl_defaults(void) { setenv("POCL_AFFINITY", "1", 0); }

/* The dynamic section: absent (null) in a statically linked program, which cannot safely
 * dlopen a library that needs libc's dynamic parts (clGetPlatformIDs crashed): such a
 * program runs every loop on the host. */
extern char _DYNAMIC[] __attribute__((weak));

static int load_library(void) {
  static const char *const names[] = {"libOpenCL.so.1", "libOpenCL.so"};
  void *sym;
  if (!_DYNAMIC) {
    ompcl_log("a statically linked program cannot load the OpenCL library");
    return 0;
  }
  pocl_defaults();
  for (size_t i = 0; i < 2 && !ompcl_dev.lib; i++)
    ompcl_dev.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  if (!ompcl_dev.lib) {
    ompcl_log("no OpenCL library: %s", dlerror());
    return 0;
  }
  /* memcpy: ISO C has no cast from object pointer to function pointer */
#define OMPCL_LOAD(f)                                       \
  if (!(sym = dlsym(ompcl_dev.lib, "cl" #f))) {                    \
    ompcl_log("OpenCL library lacks cl" #f);                \
    return 0;                                               \
  }                                                         \
  memcpy(&ompcl_cl.f, &sym, sizeof sym);
  OMPCL_CL_FUNCS(OMPCL_LOAD)
#undef OMPCL_LOAD
  return 1;
}

static void platform_string(cl_platform_id p, cl_platform_info what, char *buf, size_t size) {
  buf[0] = 0;
  if (ompcl_cl.GetPlatformInfo(p, what, size - 1, buf, 0) != CL_SUCCESS) buf[0] = 0;
  buf[size - 1] = 0;
}

static void device_string(cl_device_info what, char *buf, size_t size) {
  buf[0] = 0;
  if (ompcl_cl.GetDeviceInfo(ompcl_dev.device, what, size - 1, buf, 0) != CL_SUCCESS) buf[0] = 0;
  buf[size - 1] = 0;
}

static int platform_matches(cl_platform_id p) {
  const char *want = getenv("OMPCL_PLATFORM");
  char name[256], vendor[256];
  if (!want || !*want) return 1;
  platform_string(p, CL_PLATFORM_NAME, name, sizeof name);
  platform_string(p, CL_PLATFORM_VENDOR, vendor, sizeof vendor);
  return ompcl_contains_nocase(name, want) || ompcl_contains_nocase(vendor, want);
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

#define OMPCL_MAX_DEVICES 64

/* The devices of `type` on the platforms OMPCL_PLATFORM allows, in the loader's order; their
 * number (at most OMPCL_MAX_DEVICES). */
static int list_devices(const cl_platform_id *plats, cl_uint np, cl_device_type type,
                        cl_device_id *devs, cl_platform_id *owner) {
  int n = 0;
  for (cl_uint i = 0; i < np && n < OMPCL_MAX_DEVICES; i++) {
    cl_uint nd = 0;
    if (!platform_matches(plats[i]) ||
        ompcl_cl.GetDeviceIDs(plats[i], type, (cl_uint)(OMPCL_MAX_DEVICES - n), devs + n, &nd) !=
            CL_SUCCESS)
      continue;
    for (cl_uint k = 0; k < nd && n < OMPCL_MAX_DEVICES; k++) owner[n++] = plats[i];
  }
  return n;
}

/* Which of `count` candidate devices this process takes: OMPCL_DEVICE_INDEX (modulo the
 * count), else under an MPI launcher the rank on this node modulo the count (one device per
 * rank, round robin), else the first. ompcl_dev.sharers counts the ranks of the node that
 * take the same device: all of them with OMPCL_DEVICE_INDEX (every rank is taken to have
 * the same value), those of the same residue with the local rank. */
static int choose_index(int count) {
  const char *env = getenv("OMPCL_DEVICE_INDEX");
  int ranks = OMPCL_MAX(ompcl_env.local_size, 1), index = 0;
  ompcl_dev.count = count;
  if (env && *env) {
    char *end;
    long k = strtol(env, &end, 10);
    if (end == env || *end || k < 0)
      fprintf(stderr, "ompcl: warning: OMPCL_DEVICE_INDEX=%s is not a device number; using "
                      "device 0\n", env);
    else
      index = (int)(k % count);
    ompcl_dev.index_rule = "OMPCL_DEVICE_INDEX";
    ompcl_dev.sharers = ranks;
  } else if (ompcl_env.local_rank >= 0) {
    index = ompcl_env.local_rank % count;
    ompcl_dev.index_rule = ompcl_env.local_rank_var;
    ompcl_dev.sharers = ranks / count + (index < ranks % count);
  } else {
    ompcl_dev.index_rule = "first";
    ompcl_dev.sharers = 1;
  }
  ompcl_dev.sharers = OMPCL_MAX(ompcl_dev.sharers, 1);
  ompcl_dev.index = index;
  return index;
}

/* The wanted type's devices (unset: the GPUs, else every device) and the one this process
 * takes among them (choose_index). */
static int find_device(cl_platform_id *chosen) {
  cl_platform_id plats[16], owner[OMPCL_MAX_DEVICES];
  cl_device_id devs[OMPCL_MAX_DEVICES];
  cl_uint np = 0;
  cl_device_type type = wanted_type();
  int n, k;
  if (ompcl_fault("platform") || ompcl_cl.GetPlatformIDs(16, plats, &np) != CL_SUCCESS || np == 0)
    return 0;
  np = OMPCL_MIN(np, 16u);
  n = list_devices(plats, np, type ? type : CL_DEVICE_TYPE_GPU, devs, owner);
  if (!type && n == 0) n = list_devices(plats, np, CL_DEVICE_TYPE_ALL, devs, owner);
  if (n == 0) return 0;
  k = choose_index(n);
  ompcl_dev.device = devs[k];
  *chosen = owner[k];
  return 1;
}

static int create_context(cl_platform_id p) {
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p, 0};
  cl_int err;
  ompcl_dev.ctx = ompcl_cl.CreateContext(props, 1, &ompcl_dev.device, 0, 0, &err);
  if (err != CL_SUCCESS) return 0;
  /* profiling: kernel and transfer times in the statistics come from the device's events */
  ompcl_dev.queue = ompcl_cl.CreateCommandQueue(ompcl_dev.ctx, ompcl_dev.device,
                                                CL_QUEUE_PROFILING_ENABLE, &err);
  return err == CL_SUCCESS;
}

/* On a device that shares the host's memory (a CPU device, an integrated GPU), buffers are
 * created over the host data itself (CL_MEM_USE_HOST_PTR) and map/unmap replaces copies;
 * OMPCL_ZERO_COPY=0 or 1 overrides the device's answer. */
static int use_zero_copy(void) {
  cl_bool unified = CL_FALSE;
  const char *env = getenv("OMPCL_ZERO_COPY");
  if (env && *env) return strcmp(env, "0") != 0;
  ompcl_cl.GetDeviceInfo(ompcl_dev.device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified,
                         &unified, 0);
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
struct ompcl_shape_state ompcl_shape;

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
    buf = ompcl_cl.CreateBuffer(ompcl_dev.ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                                sizeof *host, host, &err);
    if (err != CL_SUCCESS) {
      direct = 0;
      break;
    }
    err = ompcl_cl.EnqueueReadBuffer(ompcl_dev.queue, buf, CL_TRUE, 0, sizeof seen, &seen, 0, 0, 0);
    *host = 0x6f6d70636c000002ULL;
    if (err == CL_SUCCESS)
      err = ompcl_cl.EnqueueReadBuffer(ompcl_dev.queue, buf, CL_TRUE, 0, sizeof seen, &seen, 0, 0,
                                       0);
    direct = err == CL_SUCCESS && seen == 0x6f6d70636c000002ULL;
    ompcl_cl.ReleaseMemObject(buf);
  }
  free(mem);
  return direct;
}

static int device_is_cpu(void) {
  cl_device_type type = CL_DEVICE_TYPE_GPU;
  ompcl_cl.GetDeviceInfo(ompcl_dev.device, CL_DEVICE_TYPE, sizeof type, &type, 0);
  return (type & CL_DEVICE_TYPE_CPU) != 0;
}

/* Work-groups per launch at most: 32 per compute unit on a CPU device (chunks small enough
 * for the cores to balance a shared machine; measured on PoCL's 2 cores here, 16 chunks ran
 * the 2-D stencil at one core's speed, 64 at two, the other kernel shapes alike), 1024 on a
 * GPU; OMPCL_MAX_GROUPS overrides. */
static size_t group_cap(void) {
  cl_uint units = 1;
  const char *env = getenv("OMPCL_MAX_GROUPS");
  ompcl_cl.GetDeviceInfo(ompcl_dev.device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, 0);
  ompcl_shape.units = OMPCL_MAX(units, 1u);
  if (env && atol(env) > 0) return (size_t)atol(env);
  return ompcl_shape.units * (device_is_cpu() ? 32 : 1024);
}

/* Accumulators per floating-point reduction and work-item in the blocked shape
 * (kernels.cl.j2's lanes, at most 8): the device's preferred vector width for doubles (enough
 * independent chains to hide an addition's latency and fill a vector), at least 4;
 * OMPCL_LANES overrides (1: one accumulator, one chain). */
static int reduction_lanes(void) {
  cl_uint width = 0;
  const char *env = getenv("OMPCL_LANES");
  if (env && atoi(env) > 0) return OMPCL_MIN(atoi(env), 8);
  ompcl_cl.GetDeviceInfo(ompcl_dev.device, CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE,
                         sizeof width, &width, 0);
  return OMPCL_MIN(OMPCL_MAX((int)width, 4), 8);
}

/* The device's shape and the build options that select it in the kernels. */
static void choose_shape(void) {
  const char *env = getenv("OMPCL_SHAPE");
  char lanes[32] = "";
  if (env && !strcmp(env, "blocked"))
    ompcl_shape.blocked = 1;
  else if (env && !strcmp(env, "grid"))
    ompcl_shape.blocked = 0;
  else
    ompcl_shape.blocked = device_is_cpu();
  if (ompcl_shape.blocked) snprintf(lanes, sizeof lanes, "-DOMPCL_BLOCKED -DOMPCL_LANES=%d",
                                    reduction_lanes());
  snprintf(ompcl_shape.options, sizeof ompcl_shape.options, "%s%s%s", ompcl_dev.build_options,
           *ompcl_dev.build_options && ompcl_shape.blocked ? " " : "", lanes);
  ompcl_dev.build_options = ompcl_shape.options;
  ompcl_log("kernel shape: %s", ompcl_shape.blocked ? "blocked (a contiguous chunk per work-item)"
                                             : "grid (a coalesced grid stride)");
}

static void describe_device(cl_platform_id p) {
  platform_string(p, CL_PLATFORM_NAME, ompcl_dev.platform_name, sizeof ompcl_dev.platform_name);
  device_string(CL_DEVICE_NAME, ompcl_dev.device_name, sizeof ompcl_dev.device_name);
  device_string(CL_DEVICE_VERSION, ompcl_dev.device_version, sizeof ompcl_dev.device_version);
  device_string(CL_DRIVER_VERSION, ompcl_dev.driver_version, sizeof ompcl_dev.driver_version);
  ompcl_dev.max_wg = 1;
  ompcl_dev.max_items[0] = ompcl_dev.max_items[1] = ompcl_dev.max_items[2] = 1;
  ompcl_cl.GetDeviceInfo(ompcl_dev.device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof ompcl_dev.max_wg,
                         &ompcl_dev.max_wg, 0);
  ompcl_cl.GetDeviceInfo(ompcl_dev.device, CL_DEVICE_MAX_WORK_ITEM_SIZES,
                         sizeof ompcl_dev.max_items,
                      ompcl_dev.max_items, 0);
  ompcl_dev.zero_copy = use_zero_copy();
  ompcl_dev.coherent = ompcl_dev.zero_copy && device_is_cpu() &&
                !(getenv("OMPCL_COHERENT") && !strcmp(getenv("OMPCL_COHERENT"), "0")) &&
                reads_host_memory();
  ompcl_dev.max_groups = group_cap();
  choose_shape();
  if (ompcl_dev.zero_copy)
    ompcl_log("zero-copy buffers: %s", ompcl_dev.coherent ? "the host memory itself (no map/unmap)"
                                                  : "mapped for every host access");
}

/* What the last process that started OpenCL found (shape, buffer mode), kept in the cache
 * directory under the variables that choose the device, so that auto mode can ask the model
 * before it starts OpenCL itself (only the decision depends on it, never a result). */
static void device_memo_path(char *path, size_t size) {
  static const char *const vars[] = {"OMPCL_PLATFORM", "OMPCL_DEVICE_TYPE", "OMPCL_SHAPE",
                                     "OMPCL_ZERO_COPY", "OCL_ICD_VENDORS", "OMPCL_DEVICE_INDEX"};
  uint64_t h = 0xcbf29ce484222325ULL;
  char local[16];
  for (size_t k = 0; k < sizeof vars / sizeof *vars; k++) {
    const char *v = getenv(vars[k]);
    h = ompcl_fnv1a(ompcl_fnv1a(h, vars[k]), v ? v : "");
  }
  if (ompcl_env.local_rank > 0) { /* (rank 0's note is the note of a process alone) */
    snprintf(local, sizeof local, "%d", ompcl_env.local_rank); /* it may take another device */
    h = ompcl_fnv1a(ompcl_fnv1a(h, "local rank"), local);
  }
  snprintf(path, size, "%s/device-%016llx.txt", ompcl_env.cache_dir, (unsigned long long)h);
}

static void remember_device(void) {
  char path[1100], text[64];
  int n;
  if (!ompcl_env.cache_dir[0]) return;
  device_memo_path(path, sizeof path);
  n = snprintf(text, sizeof text, "blocked %d zero_copy %d start %.4f\n", ompcl_shape.blocked,
               ompcl_dev.zero_copy, ompcl_dev.start_seconds);
  ompcl_mkdir_p(ompcl_env.cache_dir);
  ompcl_write_file_atomic(path, text, (size_t)n);
}

/* 1 when a memo was found: *blocked and *zero_copy as the device had them, and *start the
 * seconds its start took (0 in a memo written before they were noted). */
int ompcl_device_recall(int *blocked, int *zero_copy, double *start) {
  char path[1100];
  FILE *f;
  int n;
  *start = 0;
  if (!ompcl_env.cache_dir[0]) return 0;
  device_memo_path(path, sizeof path);
  if (!(f = fopen(path, "r"))) return 0;
  n = fscanf(f, "blocked %d zero_copy %d start %lf", blocked, zero_copy, start);
  fclose(f);
  if (n < 3) *start = 0;
  return n >= 2;
}

/* Seconds starting OpenCL took at its last start (the device note), else a guess: what a
 * probe of the device (ompcl_probe_due) must be able to pay for. */
double ompcl_device_start_estimate(void) {
  int blocked, zero_copy;
  double start;
  if (ompcl_dev.start_estimate > 0) return ompcl_dev.start_estimate;
  ompcl_device_recall(&blocked, &zero_copy, &start);
  ompcl_dev.start_estimate = start > 0 ? start : OMPCL_START_GUESS;
  return ompcl_dev.start_estimate;
}

/* Find and open the device once per process; 1 when a device is ready. */
int ompcl_device_init(void) {
  cl_platform_id p = 0;
  double t0 = ompcl_now();
  if (ompcl_dev.cl_state) return ompcl_dev.cl_state > 0;
  ompcl_dev.cl_state = -1;
  if (!load_library() || !find_device(&p) || !create_context(p)) {
    ompcl_log("no OpenCL device available");
    return 0;
  }
  describe_device(p);
  ompcl_dev.cl_state = 1;
  ompcl_dev.start_seconds = ompcl_now() - t0;
  remember_device();
  ompcl_log("device: %s (%s, %s)", ompcl_dev.device_name, ompcl_dev.platform_name,
            ompcl_dev.driver_version);
  ompcl_log("device %d of %d (%s); %d rank%s of this node share%s it", ompcl_dev.index,
            ompcl_dev.count, ompcl_dev.index_rule, ompcl_dev.sharers,
            ompcl_dev.sharers == 1 ? "" : "s", ompcl_dev.sharers == 1 ? "s" : "");
  return 1;
}

/* The queue and context (at exit). */
void ompcl_device_release(void) {
  if (ompcl_dev.queue) ompcl_cl.ReleaseCommandQueue(ompcl_dev.queue);
  if (ompcl_dev.ctx) ompcl_cl.ReleaseContext(ompcl_dev.ctx);
  ompcl_dev.queue = 0;
  ompcl_dev.ctx = 0;
}
