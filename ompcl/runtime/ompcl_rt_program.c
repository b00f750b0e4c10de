/* ompcl runtime: OpenCL programs built once per process (from the binary cache in the cache
 * directory when possible, which is kept under a size limit), their kernels, and the warning
 * a region's first device failure gives. */

#include "ompcl_rt_internal.h"

/* failure reasons already reported */
static struct {
  const char *warned[16];
  int nwarned;
} failures;

static uint64_t program_key(const char *src) {
  uint64_t h = 0xcbf29ce484222325ULL;
  h = ompcl_fnv1a(h, src);
  h = ompcl_fnv1a(h, ompcl_dev.device_name);
  h = ompcl_fnv1a(h, ompcl_dev.device_version);
  h = ompcl_fnv1a(h, ompcl_dev.driver_version);
  return ompcl_fnv1a(h, ompcl_dev.build_options);
}

static cl_program build_from_binary(const char *path) {
  size_t len = 0;
  unsigned char *bin = (unsigned char *)ompcl_read_file(path, &len);
  const unsigned char *bins[1] = {bin};
  cl_int status = CL_SUCCESS, err;
  cl_program p;
  if (!bin) return 0;
  p = ompcl_cl.CreateProgramWithBinary(ompcl_dev.ctx, 1, &ompcl_dev.device, &len, bins, &status,
                                       &err);
  free(bin);
  if (err != CL_SUCCESS || status != CL_SUCCESS) {
    if (p) ompcl_cl.ReleaseProgram(p);
    return 0;
  }
  if (ompcl_cl.BuildProgram(p, 1, &ompcl_dev.device, ompcl_dev.build_options, 0, 0) != CL_SUCCESS) {
    ompcl_cl.ReleaseProgram(p);
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
  DIR *d = opendir(ompcl_env.cache_dir);
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
    snprintf(path, sizeof path, "%s/%s", ompcl_env.cache_dir, e->d_name);
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
      snprintf(path, sizeof path, "%s/%s", ompcl_env.cache_dir, files[k].name);
      if (!unlink(path)) total -= files[k].size;
    }
    ompcl_log("pruned the kernel cache %s to %.1f MB", ompcl_env.cache_dir, total / 1048576.0);
  }
  free(files);
}

static void save_binary(cl_program p, const char *path) {
  size_t len = 0;
  unsigned char *bins[1];
  if (ompcl_cl.GetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof len, &len, 0) != CL_SUCCESS ||
      !len || !(bins[0] = malloc(len)))
    return;
  if (ompcl_cl.GetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bins, bins, 0) == CL_SUCCESS) {
    ompcl_mkdir_p(ompcl_env.cache_dir);
    if (ompcl_write_file_atomic(path, bins[0], len)) ompcl_log("cached binary %s", path);
    prune_cache();
  }
  free(bins[0]);
}

static char *build_log(cl_program p) {
  size_t len = 0;
  char *log;
  if (!p || ompcl_cl.GetProgramBuildInfo(p, ompcl_dev.device, CL_PROGRAM_BUILD_LOG, 0, 0, &len) !=
                CL_SUCCESS || !(log = calloc(len + 1, 1)))
    return 0;
  ompcl_cl.GetProgramBuildInfo(p, ompcl_dev.device, CL_PROGRAM_BUILD_LOG, len, log, 0);
  return log;
}

/* One warning per program: error code, saved source, build log. */
static void report_build_failure(const ompcl_program *prog, cl_program p, cl_int err) {
  const char *tmpdir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  char path[1100];
  char *log = build_log(p);
  snprintf(path, sizeof path, "%s/ompcl-%016llx.cl", tmpdir,
           (unsigned long long)ompcl_fnv1a(0xcbf29ce484222325ULL, prog->source));
  if (!ompcl_write_file_atomic(path, prog->source, strlen(prog->source)))
    snprintf(path, sizeof path, "(could not save the source)");
  fprintf(stderr, "ompcl: warning: %s: OpenCL program build failed (CL error %d); running its "
                  "loops with OpenMP; source: %s\n", prog->file, (int)err, path);
  if (log && *log) fprintf(stderr, "  build log:\n%s\n", log);
  free(log);
}

static cl_program build_from_source(const char *src, cl_int *err) {
  cl_program p = ompcl_cl.CreateProgramWithSource(ompcl_dev.ctx, 1, &src, 0, err);
  if (*err != CL_SUCCESS) return 0;
  *err = ompcl_fault("build") ? CL_BUILD_PROGRAM_FAILURE
                        : ompcl_cl.BuildProgram(p, 1, &ompcl_dev.device, ompcl_dev.build_options,
                                                0, 0);
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
    if ((text = ompcl_read_file(path, &len)) != 0) {
      prog->source = text;
      ompcl_log("read kernels of %s from %s", prog->file, path);
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
  cl_kernel k = ompcl_cl.CreateKernel((cl_program)prog->handle, "ompcl_layout", &err);
  cl_mem out = err == CL_SUCCESS
                   ? ompcl_cl.CreateBuffer(ompcl_dev.ctx, CL_MEM_WRITE_ONLY, bytes, 0, &err)
                   : 0;
  int same = 0;
  if (out && dev && host && ompcl_cl.SetKernelArg(k, 0, sizeof out, &out) == CL_SUCCESS &&
      ompcl_cl.EnqueueNDRangeKernel(ompcl_dev.queue, k, 1, 0, &one, &one, 0, 0, 0) == CL_SUCCESS &&
      ompcl_cl.EnqueueReadBuffer(ompcl_dev.queue, out, CL_TRUE, 0, bytes, dev, 0, 0, 0) ==
          CL_SUCCESS) {
    prog->layout(host);
    same = !memcmp(dev, host, bytes);
  }
  if (!same)
    fprintf(stderr, "ompcl: warning: %s: the OpenCL device lays out this file's structs "
                    "differently from the host; running its loops with OpenMP\n", prog->file);
  if (out) ompcl_cl.ReleaseMemObject(out);
  if (k) ompcl_cl.ReleaseKernel(k);
  free(dev);
  free(host);
  return same;
}

/* Build `prog` once per process, from the binary cache when possible. */
int ompcl_ensure_program(ompcl_program *prog) {
  char path[1100];
  const char *how = "cache";
  double t0;
  cl_int err = CL_SUCCESS;
  cl_program p = 0;
  if (prog->state) return prog->state > 0; /* every device-ready entry: nothing before this */
  path[0] = 0;
  t0 = ompcl_now();
  if ((!prog->source || !prog->source[0]) && prog->kernel_path && !load_kernel_file(prog)) {
    prog->state = -1;
    return 0;
  }
  if (ompcl_env.cache_dir[0] && !ompcl_fault("build"))
    snprintf(path, sizeof path, "%s/%016llx.bin", ompcl_env.cache_dir,
             (unsigned long long)program_key(prog->source));
  if (path[0]) p = build_from_binary(path);
  if (!p) {
    how = "source";
    p = build_from_source(prog->source, &err);
    if (err != CL_SUCCESS) {
      report_build_failure(prog, p, err);
      if (p) ompcl_cl.ReleaseProgram(p);
      prog->state = -1;
      return 0;
    }
    if (path[0]) save_binary(p, path);
  }
  prog->handle = p;
  prog->state = 1;
  prog->build_seconds = ompcl_now() - t0;
  ompcl_log("built %s from %s in %.3f s", prog->file, how, prog->build_seconds);
  if (prog->nlayout && (ompcl_fault("layout") || !check_layout(prog))) {
    if (ompcl_fault("layout"))
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
  for (k = 0; k < failures.nwarned && strcmp(failures.warned[k], reason); k++) {
  }
  if (k == failures.nwarned &&
      failures.nwarned < (int)(sizeof failures.warned / sizeof failures.warned[0])) {
    failures.warned[failures.nwarned++] = reason;
    fprintf(stderr, "ompcl: warning: %s:%d: %s (CL error %d); running this loop with OpenMP "
            "(later failures of this kind: see OMPCL_STATS)\n", r->file, r->line, reason,
            (int)err);
  }
  r->fallback = reason;
}

int ompcl_ensure_kernel(ompcl_region *r) {
  cl_int err;
  if (r->kernel_handle) return 1;
  r->kernel_handle = ompcl_cl.CreateKernel((cl_program)r->prog->handle, r->kernel, &err);
  if (err == CL_SUCCESS) return 1;
  r->kernel_handle = 0;
  region_fail(r, "OpenCL kernel creation failed", err);
  return 0;
}

void ompcl_launch_fail(ompcl_launch *L, const char *reason, cl_int err) {
  L->ok = 0;
  L->r->last_decision = 0;
  region_fail(L->r, reason, err);
}

/* Every region's kernel and program (at exit). */
void ompcl_program_release(void) {
  for (ompcl_region *r = ompcl_stats.regions; r; r = r->next) {
    if (r->kernel_handle) ompcl_cl.ReleaseKernel((cl_kernel)r->kernel_handle);
    r->kernel_handle = 0;
    if (r->prog->handle) ompcl_cl.ReleaseProgram((cl_program)r->prog->handle);
    r->prog->handle = 0;
    r->prog->state = 0;
  }
}
