/* ompcl runtime: parallel regions whose device version runs as a team of one (its loops
 * launch kernels), or as the original OpenMP region. */

#include "ompcl_rt_internal.h"

static struct {
  int depth;            /* device versions of parallel regions running (their loops: device) */
  double setup;         /* setup_seconds when the outermost device team began */
} team;

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
int ompcl_team_begin(ompcl_region *t) {
  int dev;
  double t0;
  ompcl_env_start();
  ompcl_register_region(t);
  t0 = ompcl_now();
  t->last_iters = 0;
  if (ompcl_env.mode == MODE_OPENMP) {
    dev = 0;
  } else if (ompcl_env.mode == MODE_AUTO) { /* its loops start the device if they want it */
    dev = !t->serial && !t->idle && t->nloops > 0 &&
          (!t->predict || t->predict(t->features, t->nfeatures));
    if (!t->nloops)
      t->fallback = "no loop of its own is a kernel";
    else if (t->serial)
      t->fallback = "some of its loops stay on the host (each a parallel loop of its own in its device version)";
    else if (t->idle)
      t->fallback = "its device version launched no kernel";
    else if (dev && t->device_runs > 0)
      dev = team_measured(t);
  } else if (!ompcl_device_init()) {
    if (!ompcl_dev.warned_no_device++)
      fprintf(stderr, "ompcl: warning: no OpenCL device available; running loops with OpenMP\n");
    t->fallback = "no OpenCL device available";
    dev = 0;
  } else {
    dev = 1;
  }
  t->launch_mark = ompcl_stats.launches;
  t->last_decision = dev;
  t->entries++;
  t->t_start = ompcl_now();
  ompcl_stats.setup_seconds += t->t_start - t0;
  if (!dev || !t->keep) ompcl_release_unused(0); /* unprobed host code may touch anything */
  if (dev) {
    if (!team.depth) team.setup = ompcl_stats.setup_seconds;
    team.depth++;
    t->device_runs++;
  } else {
    t->host_runs++;
    ompcl_load_team_set(t); /* its thread count for this entry, undone at its end */
  }
  ompcl_log("%s:%d: parallel region: %s", t->file, t->line,
           dev ? "device (a team of one)" : "host");
  return dev;
}

/* Either path's end: the device version (a team of one) or the original region, which is
 * only timed (its data movement is the host code's). */
void ompcl_team_end(ompcl_region *t) {
  ompcl_load_team_restore();
  if (!t->last_decision) {
    t->seconds_host += ompcl_now() - t->t_start;
    return;
  }
  if (team.depth > 0) team.depth--;
  if (ompcl_stats.launches == t->launch_mark) t->idle = 1; /* no loop wanted the device */
  if (!t->keep || ompcl_env.no_residency) ompcl_release_unused(0);
  t->seconds_device += ompcl_now() - t->t_start;
  /* the outermost team leaves out the set-up its loops did, as loops do themselves */
  if (!team.depth) t->seconds_device -= ompcl_stats.setup_seconds - team.setup;
}
