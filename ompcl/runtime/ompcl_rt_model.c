/* ompcl runtime: the device/host decision: entry features, the dispatch model (compiled in,
 * or OMPCL_MODEL), decisions cached per size class and checked by measurement (probes), and
 * OpenCL's start-up deferred while the model would not use it. */

#include "ompcl_rt_internal.h"

struct ompcl_dispatch_state ompcl_dispatch;

/* Feature names, in the order of ompcl.predict.schema.FEATURES. */
const char *const ompcl_feature_names[OMPCL_NFEATURES] = {
    "comp", "mem", "localmem", "coalesced", "atomic", "branches", "transfer", "work_items",
    "wgsize", "transfer_per_op", "coalesced_per_mem", "localmem_wgsize", "comp_per_mem"};

/* The features of one entry: static counts, dynamic values, combined features (Grewe et al.
 * F1-F4; a zero denominator counts as one), then the load features (OMPCL_NALL in all). */
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
  ompcl_load_features(f + OMPCL_NFEATURES);
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
  int nfeatures;  /* OMPCL_NFEATURES, or OMPCL_NALL with the load features */
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

static int read_tree(char **cur, model_tree *t, int nfeatures) {
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
    if (t->feature[k] >= nfeatures ||
        (t->feature[k] >= 0 && (t->left[k] <= k || t->right[k] <= k || t->left[k] >= t->n ||
                                t->right[k] >= t->n)))
      return 0;
  }
  return 1;
}

/* The name of feature k of the whole vector (the model's, then the load features). */
static const char *feature_name(int k) {
  return k < OMPCL_NFEATURES ? ompcl_feature_names[k] : ompcl_load_names[k - OMPCL_NFEATURES];
}

/* Parse the runtime text of a model:
 *   ompcl-model 1 / features N name... / combine mean|logit BASE / trees K / tree N, N lines
 *   "feature threshold left right value".  The feature names must be this runtime's: its
 *   OMPCL_NFEATURES, or those and its load features (a load-aware model). */
static int parse_model(char *text, model *m) {
  char word[64], kind[16];
  int version, n, used;
  char *cur = text;
  if (sscanf(cur, " ompcl-model %d features %d%n", &version, &n, &used) != 2 || version != 1 ||
      (n != OMPCL_NFEATURES && n != OMPCL_NALL))
    return 0;
  m->nfeatures = n;
  cur += used;
  for (int k = 0; k < n; k++) {
    if (sscanf(cur, " %63s%n", word, &used) != 1 || strcmp(word, feature_name(k))) return 0;
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
    if (!read_tree(&cur, &m->trees[i], n)) return 0;
  return 1;
}

/* OMPCL_MODEL: a model file written by 'ompcl train' replaces the compiled-in models. */
void ompcl_model_load(void) {
  const char *path = getenv("OMPCL_MODEL");
  size_t len;
  char *json, *text = 0;
  model *m;
  if (!path || !*path) return;
  json = ompcl_read_file(path, &len);
  m = calloc(1, sizeof *m);
  if (json && m && (text = json_runtime_text(json)) && parse_model(text, m)) {
    ompcl_dispatch.model = m;
    ompcl_dispatch.model_path = path;
    ompcl_dispatch.load_aware = m->nfeatures == OMPCL_NALL;
    ompcl_log("dispatch model from %s (%d trees%s)", path, m->ntrees,
              ompcl_dispatch.load_aware ? ", load features" : "");
  } else {
    fprintf(stderr, "ompcl: warning: OMPCL_MODEL=%s is not a readable ompcl model (written by "
                    "'ompcl train' for these %d features); using the compiled-in model\n",
            path, OMPCL_NFEATURES);
    free(m); /* (a partly read model's trees are left to the process exit) */
  }
  free(text);
  free(json);
}

ompcl_size_stats *ompcl_size_class(ompcl_region *r, long items) {
  int k = 0;
  while (k < OMPCL_MAX_SIZES - 1 && (1L << (k + 1)) <= items) k++;
  return &r->sizes[k];
}

static void log_decision(const ompcl_region *r, const double *f, int dev, int cached) {
  char buf[768];
  size_t n = 0;
  if (!ompcl_env.log) return;
  for (int k = 0; k < OMPCL_NALL && n < sizeof buf; k++)
    n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s=%g", k ? " " : "", feature_name(k),
                          f[k]);
  ompcl_log("%s:%d: %s for %.0f work-items (%s; %s)", r->file, r->line, dev ? "device" : "host",
           f[7], cached ? "cached decision" : "model", buf);
}

/* Auto mode checks the model by measurement: once a size class has spent OMPCL_PROBE seconds
 * (and OMPCL_PROBE_ENTRIES entries) on the side the model chose, its next OMPCL_PROBE_RUNS
 * entries run on the other side, and from then on the side with fewer seconds per work-item
 * runs the class (the probe's first entry, which pays first-run costs such as the device's
 * kernel specialisation, is not counted). A class the model keeps on the host while OpenCL
 * is not started must first have spent OMPCL_PROBE_START (20) times what starting it costs
 * (ompcl_device_start_estimate), so the start a probe pays is a small part of the time. A
 * model that is right loses one short probe of a long-running loop; one that is wrong is
 * corrected. */
int ompcl_probe_due(const ompcl_size_stats *z, int dev) {
  double need = ompcl_env.probe_budget;
  if (ompcl_env.probe_budget <= 0 || z->probe || (!dev && ompcl_dev.cl_state < 0)) return 0;
  if (dev) return z->device_runs >= OMPCL_PROBE_ENTRIES && z->seconds_device >= need;
  if (ompcl_dev.cl_state == 0 && need < ompcl_env.probe_start * ompcl_device_start_estimate())
    need = ompcl_env.probe_start * ompcl_device_start_estimate(); /* the probe starts OpenCL */
  return z->host_runs >= OMPCL_PROBE_ENTRIES && z->seconds_host >= need;
}

/* A probing class's side for the next entry (-1: the probe is over, decide by measurement). */
static int probe_side(const ompcl_size_stats *z) {
  return z->probe == 1 && z->probe_runs < OMPCL_PROBE_RUNS ? z->probe_device : -1;
}

/* The end of a probe: the measured side per work-item, cached for the class.  A device that
 * several ranks of the node share (ompcl_dev.sharers) is a loaded device: its seconds count
 * that many times, since this rank's few measured entries may have had it to themselves
 * while the other ranks' kernels will compete for it all run long. */
static int measured(ompcl_region *r, ompcl_size_stats *z) {
  double probe = z->probe_items > 0 ? z->probe_seconds / z->probe_items : 0;
  double dev_rate = z->probe_device ? probe : z->seconds_device / z->items_device;
  double host_rate = z->probe_device ? z->seconds_host / z->items_host : probe;
  int dev;
  dev_rate *= OMPCL_MAX(ompcl_dev.sharers, 1);
  dev = dev_rate < host_rate;
  z->probe = 2;
  z->decision[0] = z->decision[1] = dev ? 1 : 2;
  z->load_level = ompcl_load_level();
  ompcl_log("%s:%d: %s for %ld work-items (measured: %.3g s per million work-items on the "
           "device%s, %.3g on the host)", r->file, r->line, dev ? "device" : "host",
           z->work_items, dev_rate * 1e6, ompcl_dev.sharers > 1 ? ", times the ranks sharing it"
           : "", host_rate * 1e6);
  return dev;
}

/* The pointer trees' staging copies (rows gathered in, written rows back: host memcpy work
 * whatever the buffers, from rows scattered over the heap) move more than a quarter of the
 * bytes the loop itself reads and writes (`f`: its features, mem = memory operations per
 * work-item, taken as 8 bytes each): then the host runs the loop in about the time the
 * copies take (Rodinia's backprop: a million rows of 17 floats gathered for a loop that
 * reads each element a few times). The model's training rows rarely show such copies, so
 * this is checked apart from it; a wrong "host" here costs speed, never an answer. */
static int trees_outweigh(const ompcl_launch *L, const double *f) {
  double trees = ompcl_tree_bytes(L);
  if (trees <= 0 || trees <= 0.25 * 8.0 * f[1] * (f[7] > 1 ? f[7] : 1.0)) return 0;
  ompcl_log("%s:%d: host: its pointer trees would copy %.0f bytes, more than the loop moves",
            L->r->file, L->r->line, trees);
  return 1;
}

/* The device/host choice for a launch, once the device is ready and the launch sized: 1 for
 * the device.  Forced modes and programs without a model take the device; in auto mode the
 * model decides once per problem-size class (and whether data has to move), and measurement
 * checks it (ompcl_probe_due). */
int ompcl_decide(ompcl_launch *L) {
  ompcl_region *r = L->r;
  ompcl_size_stats *z = ompcl_size_class(r, L->iters);
  long wg = 1;
  double transfer = ompcl_transfer_bytes(L);
  int moves = transfer > 0, dev, cached;
  for (int d = 0; d < L->ndim; d++) wg *= (long)L->local[d];
  entry_features(L, transfer, wg, r->last_features);
  memcpy(z->statics, r->last_features, sizeof z->statics);
  memcpy(z->load, r->last_features + OMPCL_NFEATURES, sizeof z->load);
  ompcl_load_stale(z);
  z->transfer = transfer;
  z->wgsize = wg;
  if (ompcl_env.mode != MODE_AUTO || (!ompcl_dispatch.model && !r->predict)) return 1;
  if (z->probe == 1) {
    dev = probe_side(z);
    if (dev < 0) dev = measured(r, z);
    return dev ? (r->decisions_device++, 1) : (r->decisions_host++, 0);
  }
  cached = z->decision[moves] != 0;
  if (cached)
    dev = z->decision[moves] == 1;
  else
    dev = (ompcl_dispatch.model ? model_predict(ompcl_dispatch.model, r->last_features)
                    : r->predict(r->last_features, OMPCL_NFEATURES)) &&
          !trees_outweigh(L, r->last_features);
  if (cached && ompcl_probe_due(z, dev)) {
    z->probe = 1;
    z->probe_device = (signed char)!dev;
    ompcl_log("%s:%d: %s for %ld work-items (probe: measuring the side the model did not "
             "choose)", r->file, r->line, dev ? "host" : "device", L->iters);
    return dev ? (r->decisions_host++, 0) : (r->decisions_device++, 1);
  }
  z->decision[moves] = dev ? 1 : 2;
  z->load_level = ompcl_load_level();
  if (dev)
    r->decisions_device++;
  else
    r->decisions_host++;
  log_decision(r, r->last_features, dev, cached);
  return dev;
}

/* A model with load features decides again, and measures again, where the load changed
 * since its cached decision (other processes' busy cores, rounded): a choice right on a quiet
 * machine may be wrong with a busy core.  1 when the class's decisions were dropped. */
int ompcl_load_stale(ompcl_size_stats *z) {
  int level;
  if (!ompcl_dispatch.load_aware || (!z->decision[0] && !z->decision[1])) return 0;
  if ((level = ompcl_load_level()) == z->load_level) return 0;
  z->decision[0] = z->decision[1] = 0;
  z->probe = z->probe_device = 0;
  z->probe_runs = 0;
  z->probe_seconds = z->probe_items = 0;
  z->load_level = level;
  return 1;
}

/* The work-group size a grid-shape launch of `n` would have, before the device is known
 * (the group-size budget without the device's and the kernel's limits). */
static long grid_guess(const ompcl_launch *L, int ndim, const long n[]) {
  long budget = 256, wg = 1;
  for (int k = 0; k < L->nresults; k++)
    if (L->results[k].count < 0) budget = 128;  /* per-group partial results */
  for (int d = 0; d < ndim; d++) {
    long l = (long)OMPCL_MIN(ompcl_pow2_ceil(OMPCL_MAX(n[ndim - 1 - d], 1L)), (size_t)budget);
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
  double f[OMPCL_NALL], transfers[2] = {0, 0};
  long wgs[2] = {1, grid_guess(L, ndim, n)};
  int saved = ompcl_dev.zero_copy, blocked, zero_copy, nt = 2, nw = 2, t0 = 0, w0 = 0;
  double start;
  ompcl_dev.zero_copy = 0;
  transfers[1] = ompcl_transfer_bytes(L);
  ompcl_dev.zero_copy = saved;
  if (ompcl_device_recall(&blocked, &zero_copy, &start)) {
    w0 = blocked ? 0 : 1;
    nw = w0 + 1;
    t0 = zero_copy ? 0 : 1;
    nt = t0 + 1;
  }
  for (int t = t0; t < nt; t++)
    for (int w = w0; w < nw; w++) {
      entry_features(L, transfers[t], wgs[w], f);
      if ((ompcl_dispatch.model ? model_predict(ompcl_dispatch.model, f)
                                : r->predict(f, OMPCL_NFEATURES)) && !trees_outweigh(L, f))
        return 0;
    }
  memcpy(r->last_features, f, sizeof f);
  return 1;
}

/* A guess at the host seconds of an entry before it runs: its recorded seconds per
 * work-item if it ran on the host before, else its operations per work-item (comp + mem)
 * at OMPCL_HOST_OP_SECONDS each. */
static double host_guess(const ompcl_launch *L) {
  const ompcl_region *r = L->r;
  double f[OMPCL_NALL];
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
int ompcl_undefer(ompcl_launch *L, int ndim, const long n[]) {
  ompcl_region *r = L->r;
  ompcl_size_stats *z = ompcl_size_class(r, L->iters);
  int probing = z->probe == 1 || ompcl_probe_due(z, 0); /* the device is measured: start it */
  L->deferred = 0;
  if (!probing && host_whatever_device(L, ndim, n)) {
    z->decision[0] = z->decision[1] = 2;
    z->load_level = ompcl_load_level();
    r->decisions_host++;
    log_decision(r, r->last_features, 0, 0);
    ompcl_drop_pending(L);
    L->declined = 1;
    return 0;
  }
  if (!probing && ompcl_dev.cl_state == 0 &&
      ompcl_stats.wanted_seconds < ompcl_env.startup_budget &&
      host_guess(L) < ompcl_env.startup_budget) {
    /* OpenCL is not started: that costs about the budget, so it pays only once the host
     * has spent as long in loops the model sends to the device (a short program never
     * pays it; many short entries pay it at most twice over); an entry that looks as
     * long as the start-up by itself starts it at once */
    r->wanting = 1;
    ompcl_stats.startup_deferred++;
    ompcl_log("%s:%d: host (OpenCL start-up deferred: %.3f of %.3f s)", r->file, r->line,
             ompcl_stats.wanted_seconds, ompcl_env.startup_budget);
    ompcl_drop_pending(L);
    L->declined = 1;
    return 0;
  }
  if (!ompcl_ready_device(r, L->iters)) {
    ompcl_drop_pending(L);
    return 0;
  }
  r->t_start = ompcl_now(); /* keeps the device's start-up out of seconds_device */
  for (int k = 0; k < L->npending; k++)
    ompcl_set_arg(L, L->pending[k].arg, L->pending[k].size, L->pending[k].value);
  ompcl_drop_pending(L);
  return L->ok;
}
