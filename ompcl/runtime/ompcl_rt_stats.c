/* ompcl runtime: the regions entered, and the JSON statistics report written at exit
 * (OMPCL_STATS). */

#include "ompcl_rt_internal.h"

static const char *const mode_names[] = {"auto", "opencl", "openmp"};

struct ompcl_stats_state ompcl_stats;

void ompcl_register_region(ompcl_region *r) {
  if (r->registered) return;
  r->registered = 1;
  r->next = 0;
  *ompcl_stats.regions_tail = r;
  ompcl_stats.regions_tail = &r->next;
}

/* ---- the statistics report ---------------------------------------------------------- */

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
    fputs("], \"load\": [", f); /* ompcl_load_names, at the last decision */
    for (int s = 0; s < OMPCL_NLOAD; s++) fprintf(f, "%s%.6g", s ? ", " : "", z->load[s]);
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
             "\"alias_declines\": %ld, \"block_declines\": %ld, \"result_bytes\": %ld, "
             "\"relayout_runs\": %ld, "
             "\"relayout_copies\": %ld, "
             "\"relayout_seconds\": %.6f, \"relayout_accesses\": %.1f, "
             "\"fallback\": ",
          r->entries, r->device_runs, r->host_runs, r->kernels_launched, r->bytes_to_device,
          r->bytes_to_host, r->transfers_to_device, r->transfers_to_host, r->seconds_device,
          r->seconds_host, r->kernel_seconds, r->transfer_seconds, r->decisions_device,
          r->decisions_host, r->check_runs, r->check_hits, r->check_declines,
          r->alias_declines, r->block_declines, r->result_bytes, r->relayout_runs,
          r->relayout_copies,
          r->relayout_seconds,
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
    fputs("], \"load\": [", f);
    for (int k = OMPCL_NFEATURES; k < OMPCL_NALL; k++)
      fprintf(f, "%s%.6g", k > OMPCL_NFEATURES ? ", " : "", r->last_features[k]);
    fputs("]", f);
    json_sizes(f, r);
  }
  fputs(", \"host_threads\": [", f); /* host entries with 1, 2, ... threads */
  for (int k = 0; k < OMPCL_LOAD_MAX_THREADS; k++)
    fprintf(f, "%s%ld", k ? ", " : "", r->host_threads[k]);
  fputs("]", f);
  fputc('}', f);
}

/* The load other processes put on this process's cores, over the samples taken. */
static void json_load(FILE *f) {
  long n = ompcl_load.samples;
  fprintf(f, ", \"load\": {\"cores\": %d, \"samples\": %ld, \"runnable_mean\": %.4f, "
             "\"runnable_max\": %.4f, \"busy_mean\": %.4f, \"load_aware\": %s, "
             "\"threads\": \"%s\"}",
          ompcl_load.cores, n, n ? ompcl_load.sum_runnable / (double)n : 0.0,
          ompcl_load.max_runnable, n ? ompcl_load.sum_busy / (double)n : 0.0,
          ompcl_dispatch.load_aware ? "true" : "false",
          ompcl_load.threads_mode ? "load" : "max");
}

/* Totals over loop regions. */
static void json_totals(FILE *f) {
  long b_dev = 0, b_host = 0, n_dev = 0, n_host = 0, results = 0;
  double kernel = 0, transfer = 0;
  for (ompcl_region *r = ompcl_stats.regions; r; r = r->next) {
    b_dev += r->bytes_to_device;
    b_host += r->bytes_to_host;
    n_dev += r->transfers_to_device;
    n_host += r->transfers_to_host;
    results += r->result_bytes;
    kernel += r->kernel_seconds;
    transfer += r->transfer_seconds;
  }
  fprintf(f, ", \"totals\": {\"bytes_to_device\": %ld, \"bytes_to_host\": %ld, "
             "\"transfers_to_device\": %ld, \"transfers_to_host\": %ld, \"result_bytes\": %ld, "
             "\"kernel_seconds\": %.6f, \"transfer_seconds\": %.6f, \"setup_seconds\": %.6f, "
             "\"map_round_trips\": %ld, \"coherent_buffers\": %ld, \"startup_deferred\": %ld, "
             "\"startup_wanted_seconds\": %.6f, \"data_bytes\": %ld",
          b_dev, b_host, n_dev, n_host, results, kernel, transfer, ompcl_stats.setup_seconds,
          ompcl_present.map_round_trips, ompcl_present.coherent_buffers,
          ompcl_stats.startup_deferred, ompcl_stats.wanted_seconds, ompcl_data_bytes());
  json_load(f);
  fputc('}', f);
}

/* Loop regions (with a kernel) or parallel regions run as teams of one. */
static void json_regions(FILE *f, const char *key, int loops) {
  int first = 1;
  fprintf(f, ", \"%s\": [", key);
  for (ompcl_region *r = ompcl_stats.regions; r; r = r->next) {
    if ((r->kernel != 0) != loops) continue;
    fputs(first ? "\n  " : ",\n  ", f);
    first = 0;
    json_region(f, r);
  }
  fputs("]", f);
}

/* Bytes as a person reads them. */
static const char *human(double b, char *buf, size_t n) {
  const char *unit[] = {"B", "KB", "MB", "GB", "TB"};
  int k = 0;
  while (b >= 1000.0 && k < 4) {
    b /= 1000.0;
    k++;
  }
  snprintf(buf, n, k ? "%.1f %s" : "%.0f %s", b, unit[k]);
  return buf;
}

static double region_seconds(const ompcl_region *r) { return r->seconds_device + r->seconds_host; }

static int slower_first(const void *a, const void *b) {
  double x = region_seconds(*(ompcl_region *const *)a), y = region_seconds(*(ompcl_region *const *)b);
  return (x < y) - (x > y);
}

/* OMPCL_STATS=summary: what `ompcl stats` prints, on stderr at exit, the slowest region first:
 * where it is, entries on the device and on the host, seconds, bytes each way. */
static void write_summary(FILE *f) {
  int n = 0, k = 0;
  long to_dev = 0, to_host = 0, data = ompcl_data_bytes();
  char a[32], b[32], c[32];
  for (ompcl_region *r = ompcl_stats.regions; r; r = r->next) n++;
  ompcl_region **v = calloc((size_t)(n ? n : 1), sizeof *v);
  if (!v) return;
  for (ompcl_region *r = ompcl_stats.regions; r; r = r->next) {
    v[k++] = r;
    to_dev += r->bytes_to_device;
    to_host += r->bytes_to_host;
  }
  qsort(v, (size_t)n, sizeof *v, slower_first);
  fprintf(f, "ompcl: statistics (mode %s, OpenCL device: %s)\n", mode_names[ompcl_env.mode],
          ompcl_dev.cl_state > 0 ? ompcl_dev.device_name : "none started");
  fprintf(f, "ompcl: %s to the device, %s back", human((double)to_dev, a, sizeof a),
          human((double)to_host, b, sizeof b));
  if (data)
    fprintf(f, "; data on the device %s: moved %.2fx to it, %.2fx back", human((double)data, c, sizeof c),
            (double)to_dev / (double)data, (double)to_host / (double)data);
  fprintf(f, "\nompcl: %10s %7s %7s %10s %10s  %s\n", "seconds", "device", "host", "to device",
          "to host", "region");
  for (k = 0; k < n; k++) {
    ompcl_region *r = v[k];
    fprintf(f, "ompcl: %10.6f %7ld %7ld %10s %10s  %s:%d %s\n", region_seconds(r), r->device_runs,
            r->host_runs, human((double)r->bytes_to_device, a, sizeof a),
            human((double)r->bytes_to_host, b, sizeof b), r->file, r->line,
            r->kernel ? r->kernel : "(parallel region)");
  }
  free(v);
}

void ompcl_stats_write(void) {
  FILE *f;
  if (!ompcl_env.stats || !*ompcl_env.stats) return;
  if (!strcmp(ompcl_env.stats, "summary")) {
    write_summary(stderr);
    return;
  }
  f = strcmp(ompcl_env.stats, "-") ? fopen(ompcl_env.stats, "w") : stderr;
  if (!f) {
    fprintf(stderr, "ompcl: warning: cannot write statistics to %s: %s\n", ompcl_env.stats,
            strerror(errno));
    return;
  }
  fprintf(f, "{\"mode\": \"%s\", \"device\": {\"available\": %s, \"platform\": ",
          mode_names[ompcl_env.mode], ompcl_dev.cl_state > 0 ? "true" : "false");
  json_string(f, ompcl_dev.platform_name);
  fputs(", \"name\": ", f);
  json_string(f, ompcl_dev.device_name);
  fprintf(f, ", \"zero_copy\": %s, \"index\": %d, \"devices\": %d, \"chosen_by\": ",
          ompcl_dev.zero_copy ? "true" : "false", ompcl_dev.index, ompcl_dev.count);
  json_string(f, ompcl_dev.index_rule ? ompcl_dev.index_rule : "");
  fprintf(f, ", \"ranks_sharing\": %d}, \"launcher\": {\"rank\": %d, \"local_rank\": %d, "
             "\"local_size\": %d}, \"model\": ",
          OMPCL_MAX(ompcl_dev.sharers, 1), ompcl_env.rank, ompcl_env.local_rank,
          ompcl_env.local_size);
  if (ompcl_dispatch.model)
    json_string(f, ompcl_dispatch.model_path);
  else
    fputs("\"compiled-in\"", f);
  fputs(", \"feature_names\": [", f);
  for (int k = 0; k < OMPCL_NFEATURES; k++) {
    if (k) fputs(", ", f);
    json_string(f, ompcl_feature_names[k]);
  }
  fputs("], \"load_feature_names\": [", f);
  for (int k = 0; k < OMPCL_NLOAD; k++) {
    if (k) fputs(", ", f);
    json_string(f, ompcl_load_names[k]);
  }
  fputs("]", f);
  json_totals(f);
  json_regions(f, "regions", 1);
  json_regions(f, "teams", 0);
  fputs("}\n", f);
  if (f != stderr) fclose(f);
}
