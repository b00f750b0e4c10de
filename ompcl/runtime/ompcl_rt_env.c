/* ompcl runtime: the environment, read once at the first region entry, and the exit handler
 * (statistics written, device copies read back and released). */

#include "ompcl_rt_internal.h"

#define OMPCL_CHECK_OPTION "-DOMPCL_BOUNDS_CHECK"

struct ompcl_env_state ompcl_env;

static void finish(void);

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

/* The first of `names` that is set to a number: its value (else `fallback`), *which its name. */
static int int_var(const char *const *names, const char **which, int fallback) {
  for (; *names; names++) {
    const char *v = getenv(*names);
    char *end;
    long n;
    if (!v || !*v) continue;
    n = strtol(v, &end, 10);
    if (end == v || n < 0 || n > 1000000) continue; /* SLURM_TASKS_PER_NODE: "2(x3)" -> 2 */
    *which = *names;
    return (int)n;
  }
  *which = 0;
  return fallback;
}

/* What the MPI launcher says about this process (Open MPI, MPICH's hydra, PMI, Slurm): its
 * rank, its rank on its node and the ranks on its node, which choose its device
 * (ompcl_rt_device.c) and name its statistics file. */
static void read_launcher(void) {
  static const char *const ranks[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                      "SLURM_PROCID", 0};
  static const char *const local_ranks[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                            "PMI_LOCAL_RANK", "SLURM_LOCALID", 0};
  static const char *const local_sizes[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS",
                                            "PMI_LOCAL_SIZE", "SLURM_NTASKS_PER_NODE",
                                            "SLURM_TASKS_PER_NODE", 0};
  ompcl_env.rank = int_var(ranks, &ompcl_env.rank_var, -1);
  ompcl_env.local_rank = int_var(local_ranks, &ompcl_env.local_rank_var, -1);
  ompcl_env.local_size = int_var(local_sizes, &ompcl_env.local_size_var, 0);
  if (ompcl_env.local_rank >= 0 && ompcl_env.local_size <= ompcl_env.local_rank)
    ompcl_env.local_size = ompcl_env.local_rank + 1; /* at least this many */
}

/* OMPCL_STATS with %r replaced by the rank (the process id where no launcher gives one), %p
 * by the process id and %% by %: one file per rank of an MPI job. */
static const char *stats_path(const char *spec) {
  size_t n = 0, cap = sizeof ompcl_env.stats_path;
  if (!spec || !strchr(spec, '%')) return spec;
  for (const char *p = spec; *p && n + 1 < cap; p++) {
    if (*p != '%' || !p[1]) {
      ompcl_env.stats_path[n++] = *p;
    } else if (*++p == 'r' || *p == 'p') {
      long v = *p == 'r' && ompcl_env.rank >= 0 ? ompcl_env.rank : (long)getpid();
      n += (size_t)snprintf(ompcl_env.stats_path + n, cap - n, "%ld", v);
    } else {
      if (*p != '%' && n + 2 < cap) ompcl_env.stats_path[n++] = '%'; /* %x stays as it is */
      ompcl_env.stats_path[n++] = *p;
    }
    n = OMPCL_MIN(n, cap - 1);
  }
  ompcl_env.stats_path[n] = 0;
  return ompcl_env.stats_path;
}

static void set_cache_dir(void) {
  const char *dir = getenv("OMPCL_CACHE_DIR"), *base;
  if (dir && !strcmp(dir, "off")) return;
  if (dir && *dir)
    snprintf(ompcl_env.cache_dir, sizeof ompcl_env.cache_dir, "%s", dir);
  else if ((base = getenv("XDG_CACHE_HOME")) && *base)
    snprintf(ompcl_env.cache_dir, sizeof ompcl_env.cache_dir, "%s/ompcl", base);
  else if ((base = getenv("HOME")) && *base)
    snprintf(ompcl_env.cache_dir, sizeof ompcl_env.cache_dir, "%s/.cache/ompcl", base);
}

/* The statistics' part of the environment, once (ompcl_env_start, ompcl_env_note): the
 * launcher's rank, OMPCL_STATS, the list of regions and the exit handler that writes it. */
static void start_statistics(void) {
  if (ompcl_env.noted) return;
  ompcl_env.noted = 1;
  read_launcher();
  ompcl_env.stats = stats_path(getenv("OMPCL_STATS"));
  ompcl_stats.regions_tail = &ompcl_stats.regions;
  atexit(finish);
}

void ompcl_env_start(void) {
  const char *log;
  if (ompcl_env.started) return; /* every region entry comes here: nothing before this test */
  ompcl_env.started = 1;
  log = getenv("OMPCL_LOG");
  ompcl_env.mode = parse_mode(getenv("OMPCL_DEVICE"));
  ompcl_env.log = log && *log && strcmp(log, "0") != 0;
  ompcl_env.fault = getenv("OMPCL_FAULT") ? getenv("OMPCL_FAULT") : "";
  start_statistics();
  ompcl_env.bounds_check = getenv("OMPCL_BOUNDS_CHECK") &&
                           strcmp(getenv("OMPCL_BOUNDS_CHECK"), "") &&
                           strcmp(getenv("OMPCL_BOUNDS_CHECK"), "0");
  if (ompcl_env.bounds_check) ompcl_dev.build_options = OMPCL_CHECK_OPTION;
  /* test hook: build as for a device without 64-bit atomics */
  if (ompcl_fault("int64"))
    ompcl_dev.build_options = ompcl_env.bounds_check ? OMPCL_CHECK_OPTION " -DOMPCL_NO_INT64"
                                                     : "-DOMPCL_NO_INT64";
  ompcl_env.no_residency = getenv("OMPCL_RESIDENCY") && !strcmp(getenv("OMPCL_RESIDENCY"), "0");
  ompcl_env.relayout = parse_relayout(getenv("OMPCL_DYNLAYOUT"));
  ompcl_env.layout_build = getenv("OMPCL_LAYOUT_BUILD") ? atof(getenv("OMPCL_LAYOUT_BUILD"))
                                                        : OMPCL_LAYOUT_BUILD_FACTOR;
  ompcl_env.layout_env = getenv("OMPCL_LAYOUT_COST") &&
                         sscanf(getenv("OMPCL_LAYOUT_COST"), "%lf,%lf,%lf",
                                &ompcl_env.layout_cost[0], &ompcl_env.layout_cost[1],
                                &ompcl_env.layout_cost[2]) == 3;
  ompcl_env.startup_budget = getenv("OMPCL_STARTUP") ? atof(getenv("OMPCL_STARTUP"))
                                                     : OMPCL_STARTUP_SECONDS;
  ompcl_env.probe_budget = getenv("OMPCL_PROBE") ? atof(getenv("OMPCL_PROBE"))
                                                : OMPCL_PROBE_SECONDS;
  ompcl_env.probe_start = getenv("OMPCL_PROBE_START") ? atof(getenv("OMPCL_PROBE_START"))
                                                      : OMPCL_PROBE_START_FACTOR;
  set_cache_dir();
  ompcl_load_start();
  ompcl_model_load();
}

/* A region entered only by host paths inside parallel regions (ompcl_region_end), which need
 * nothing else of the runtime: the statistics still list it, so OMPCL_STATS and the exit
 * handler are set up (OpenCL, the model and the cache wait for a region that can use them). */
void ompcl_env_note(void) {
  if (!ompcl_env.started) start_statistics();
}

/* Releases device objects; the library stays loaded (its own exit handlers may still run). */
static void release_opencl(void) {
  ompcl_present_release();
  ompcl_program_release();
  ompcl_launch_release_buffers();
  ompcl_device_release();
}

static void finish(void) {
  if (ompcl_dev.cl_state > 0) ompcl_release_unused(0); /* later exit handlers may read the data */
  ompcl_stats_write();
  if (ompcl_dev.cl_state > 0) release_opencl();
}
