/* ompcl runtime: the machine's load from other processes, measured cheaply at region entries
 * (the load features of the dispatch model), and the host path's thread count chosen from it
 * (num_threads for that region only, the user's OMP_NUM_THREADS the upper bound). */

#include "ompcl_rt_internal.h"

#include <sched.h>

/* OpenMP's routines, weak: a program linked without OpenMP keeps its thread count. */
extern int omp_get_max_threads(void) __attribute__((weak));
extern void omp_set_num_threads(int n) __attribute__((weak));
extern int omp_get_num_procs(void) __attribute__((weak));

struct ompcl_load_state ompcl_load;

/* Per thread: the user's thread count where ompcl_load_threads_set (a loop's host path) or
 * ompcl_load_team_set (a parallel region's original) changed it, restored at that region's
 * end (0: nothing to restore).  Two, since a loop of a team's original region ends inside it,
 * where setting the count would change the team's threads' own, not the program's. */
static __thread int saved_threads, saved_team_threads;

const char *const ompcl_load_names[OMPCL_NLOAD] = {"load_runnable", "load_busy", "load_device",
                                                   "host_threads", "cores"};

/* The CPUs this process may run on (sched_getaffinity), as a mask over CPU numbers. */
static int read_affinity(void) {
  cpu_set_t set;
  int n = 0;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  for (int c = 0; c < OMPCL_LOAD_MAX_CPUS && c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, &set)) {
      ompcl_load.allowed_cpu[c] = 1;
      n++;
    }
  return n;
}

/* OMPCL_THREADS: "auto" (the load chooses), "max" (the user's count, also when unset), a count
 * N, or a list of the counts allowed ("1,2,4": the load chooses among them). */
static int parse_threads(const char *s) {
  char *end;
  if (!s || !*s) return 0;
  if (!strcmp(s, "auto")) return 1;
  if (!strcmp(s, "max")) return 0;
  ompcl_load.nallowed = 0;
  while (*s && ompcl_load.nallowed < OMPCL_LOAD_MAX_COUNTS) {
    long n = strtol(s, &end, 10);
    if (end == s || n < 1) break;
    ompcl_load.allowed[ompcl_load.nallowed++] = (int)n;
    s = *end == ',' ? end + 1 : end;
  }
  if (ompcl_load.nallowed == 0 || *s) {
    fprintf(stderr, "ompcl: warning: OMPCL_THREADS=%s is not auto, max, a count or a list of "
                    "counts; using the user's thread count\n", getenv("OMPCL_THREADS"));
    ompcl_load.nallowed = 0;
    return 0;
  }
  return 1;
}

/* The cores this process may use.  OMP_PROC_BIND binds the initial thread to one of them
 * before any region runs, so its affinity may be one core: OpenMP's count of the process's
 * processors (taken before it bound the thread) is the larger, and then every online CPU
 * counts in /proc/stat's sums. */
static void count_cores(void) {
  int procs = omp_get_num_procs ? omp_get_num_procs() : 0;
  ompcl_load.online = (int)OMPCL_MAX(sysconf(_SC_NPROCESSORS_ONLN), 1L);
  ompcl_load.cores = read_affinity();
  if (procs > ompcl_load.cores) {
    ompcl_load.cores = procs;
    for (int c = 0; c < OMPCL_LOAD_MAX_CPUS && c < ompcl_load.online; c++)
      ompcl_load.allowed_cpu[c] = 1;
  }
  if (ompcl_load.cores < 1) ompcl_load.cores = ompcl_load.online;
}

/* Read once, at the first region entry (ompcl_env_start). */
void ompcl_load_start(void) {
  const char *iv = getenv("OMPCL_LOAD_INTERVAL"), *stat = getenv("OMPCL_LOAD_STAT");
  if (stat && *stat) /* test hook: a file in /proc/stat's format read instead */
    snprintf(ompcl_load.stat_path, sizeof ompcl_load.stat_path, "%s", stat);
  count_cores();
  ompcl_load.interval = iv && *iv ? atof(iv) / 1000.0 : OMPCL_LOAD_INTERVAL_MS / 1000.0;
  ompcl_load.threads_mode = parse_threads(getenv("OMPCL_THREADS"));
  ompcl_load.device = -1;
}

/* Threads of this process in state R (running or runnable): they are in procs_running too. */
static int own_running(void) {
  DIR *d = opendir("/proc/self/task");
  struct dirent *e;
  char path[64], buf[256], *p;
  int n = 0;
  if (!d) return 1;
  while ((e = readdir(d))) {
    FILE *f;
    if (e->d_name[0] == '.') continue;
    snprintf(path, sizeof path, "/proc/self/task/%.20s/stat", e->d_name);
    if (!(f = fopen(path, "r"))) continue;
    if (fgets(buf, sizeof buf, f) && (p = strrchr(buf, ')')) && p[1] == ' ' && p[2] == 'R') n++;
    fclose(f);
  }
  closedir(d);
  return n ? n : 1; /* the thread measuring runs */
}

/* /proc/stat: runnable tasks (procs_running) and the busy and total jiffies of the CPUs this
 * process may use.  0 if it cannot be read. */
static int read_proc_stat(long *running, unsigned long long *busy, unsigned long long *total) {
  char line[512];
  FILE *f = fopen(ompcl_load.stat_path[0] ? ompcl_load.stat_path : "/proc/stat", "r");
  int got = 0;
  *running = 0;
  *busy = *total = 0;
  if (!f) return 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long long v[8] = {0};
    int cpu;
    if (!strncmp(line, "procs_running ", 14)) {
      *running = atol(line + 14);
      got = 1;
    } else if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1],
                      &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 9 &&
               cpu >= 0 && cpu < OMPCL_LOAD_MAX_CPUS && ompcl_load.allowed_cpu[cpu]) {
      /* user nice system idle iowait irq softirq steal: idle and iowait are not busy */
      unsigned long long all = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
      *total += all;
      *busy += all - v[3] - v[4];
    }
  }
  fclose(f);
  return got;
}

static double process_cpu_seconds(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The busy share of the allowed cores that other processes took since the window began:
 * (busy jiffies - this process's CPU time) over the window's jiffies, once the window has
 * lasted OMPCL_LOAD_WINDOW (jiffies are 10 ms: shorter windows are noise). */
static void update_busy(double now, unsigned long long busy, unsigned long long total) {
  double hz = (double)sysconf(_SC_CLK_TCK), cpu = process_cpu_seconds();
  if (ompcl_load.w_time > 0 && now - ompcl_load.w_time >= OMPCL_LOAD_WINDOW &&
      total > ompcl_load.w_total) {
    double all = (double)(total - ompcl_load.w_total) / hz;
    double other = (double)(busy - ompcl_load.w_busy) / hz - (cpu - ompcl_load.w_cpu);
    ompcl_load.busy = OMPCL_MIN(OMPCL_MAX(other / all, 0.0), 1.0);
  } else if (ompcl_load.w_time > 0) {
    return;
  }
  ompcl_load.w_time = now;
  ompcl_load.w_busy = busy;
  ompcl_load.w_total = total;
  ompcl_load.w_cpu = cpu;
}

/* One sample, at most every OMPCL_LOAD_INTERVAL milliseconds: the runnable tasks of other
 * processes per core (procs_running counts every CPU's: taken as spread evenly over them),
 * smoothed, and the busy share of the allowed cores. */
void ompcl_load_sample(void) {
  double now = ompcl_now(), raw;
  long running;
  unsigned long long busy, total;
  if (ompcl_load.t_sample > 0 && now - ompcl_load.t_sample < ompcl_load.interval) return;
  if (!read_proc_stat(&running, &busy, &total)) return;
  raw = (double)OMPCL_MAX(running - own_running(), 0L) / ompcl_load.online; /* spread evenly */
  ompcl_load.runnable = ompcl_load.samples ? OMPCL_LOAD_SMOOTH * raw +
                                              (1 - OMPCL_LOAD_SMOOTH) * ompcl_load.runnable : raw;
  update_busy(now, busy, total);
  if (ompcl_load.samples == 0) ompcl_load.busy = OMPCL_MIN(raw, 1.0); /* until a window ends */
  ompcl_load.t_sample = now;
  ompcl_load.samples++;
  ompcl_load.sum_runnable += ompcl_load.runnable;
  ompcl_load.sum_busy += ompcl_load.busy;
  ompcl_load.max_runnable = OMPCL_MAX(ompcl_load.max_runnable, ompcl_load.runnable);
}

/* The load as other processes' whole cores busy: the larger of the two measures. */
static double busy_cores(void) {
  return OMPCL_MAX(ompcl_load.runnable, ompcl_load.busy) * ompcl_load.cores;
}

/* The largest allowed count not above n (the smallest allowed when none is). */
static int allowed_at_most(int n) {
  int best = 0, least = 0;
  for (int k = 0; k < ompcl_load.nallowed; k++) {
    int c = ompcl_load.allowed[k];
    if (!least || c < least) least = c;
    if (c <= n && c > best) best = c;
  }
  return best ? best : least;
}

/* The user's thread count: omp_get_max_threads() outside any region this changed. */
static int user_threads(void) {
  if (saved_threads) return saved_threads;
  if (saved_team_threads) return saved_team_threads;
  return omp_get_max_threads ? omp_get_max_threads() : 1;
}

/* The thread count the host path of a region would run with now: the user's count unless
 * OMPCL_THREADS lets the load choose; then the cores other processes leave free (at least
 * one), among the allowed counts, never above the user's.  Unset, a model with load features
 * does not choose it either: measured (ompcl bench load, NAS W, one or two busy cores), the
 * user's two threads beat one on a free core by 1.6-2x, since a thread sharing a busy core
 * still gets half of it (and one bound thread may be the one on the busy core). */
int ompcl_load_threads(void) {
  int user = user_threads(), n;
  if (!ompcl_load.threads_mode) return user;
  if (ompcl_load.nallowed == 1) return OMPCL_MIN(ompcl_load.allowed[0], user); /* a count */
  n = ompcl_load.cores - (int)(busy_cores() + 0.5);
  n = OMPCL_MIN(OMPCL_MAX(n, 1), user);
  if (ompcl_load.nallowed) n = OMPCL_MIN(allowed_at_most(n), user);
  return n;
}

/* The load features, in the order of ompcl_load_names (and ompcl.predict.schema.LOAD). */
void ompcl_load_features(double *f) {
  ompcl_load_sample();
  f[0] = ompcl_load.runnable;
  f[1] = ompcl_load.busy;
  /* a CPU device (or one not started yet, PoCL here) computes on these cores; OpenCL has no
   * query for another device's load: -1, not known */
  f[2] = ompcl_dev.cl_state > 0 && !ompcl_shape.blocked ? -1.0 : ompcl_load.busy;
  f[3] = (double)ompcl_load_threads();
  f[4] = (double)ompcl_load.cores;
}

/* The host path of a region: its thread count for this entry (omp_set_num_threads, undone by
 * ompcl_load_threads_restore at the region's end). */
static int choose_for(ompcl_region *r, int *saved) {
  int user, n;
  if (ompcl_load.threads_mode)
    ompcl_load_sample(); /* else the user's count, whatever the load */
  user = user_threads();
  n = ompcl_load_threads();
  r->last_threads = n;
  if (n >= 1 && n <= OMPCL_LOAD_MAX_THREADS) r->host_threads[n - 1]++;
  if (n != user && omp_set_num_threads) {
    *saved = user;
    omp_set_num_threads(n);
    ompcl_log("%s:%d: host with %d of %d threads (load: %.2f runnable, %.2f busy per core)",
              r->file, r->line, n, user, ompcl_load.runnable, ompcl_load.busy);
  }
  return n;
}

int ompcl_load_threads_set(ompcl_region *r) { return choose_for(r, &saved_threads); }

/* A parallel region that runs its original (a team whose device version exists: its code
 * cannot tell its team's size, ompcl.analysis.teams), with the count chosen as for a loop. */
int ompcl_load_team_set(ompcl_region *t) { return choose_for(t, &saved_team_threads); }

static void restore(int *saved) {
  if (!*saved) return;
  if (omp_set_num_threads) omp_set_num_threads(*saved);
  *saved = 0;
}

void ompcl_load_threads_restore(void) { restore(&saved_threads); }
void ompcl_load_team_restore(void) { restore(&saved_team_threads); }

/* The load level a cached decision was made at: other processes' busy cores, rounded. */
int ompcl_load_level(void) { return (int)(busy_cores() + 0.5); }
