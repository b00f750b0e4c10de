/* ompcl runtime: a loop region's entry (device made ready, or the cached host decision) and
 * exit (timed per size class), and its host path. */

#include "ompcl_rt_internal.h"

/* The device/host decision for one entry; 1 when the region's kernel is ready to launch. */
static int choose_device(ompcl_region *r, long iters) {
  if (iters <= 0 || ompcl_env.mode == MODE_OPENMP) {
    ompcl_log("%s:%d: host (%s)", r->file, r->line, iters <= 0 ? "no iterations" : "openmp mode");
    return 0;
  }
  if (!ompcl_device_init()) {
    if (ompcl_env.mode == MODE_OPENCL && !ompcl_dev.warned_no_device++)
      fprintf(stderr, "ompcl: warning: no OpenCL device available; running loops with OpenMP\n");
    r->fallback = "no OpenCL device available";
    return 0;
  }
  if (!ompcl_ensure_program(r->prog)) {
    r->fallback = "OpenCL program build failed";
    return 0;
  }
  return ompcl_ensure_kernel(r);
}

/* choose_device, its time counted as set-up (kept out of every region's device seconds). */
int ompcl_ready_device(ompcl_region *r, long iters) {
  double t0 = ompcl_now();
  int ok = choose_device(r, iters);
  ompcl_stats.setup_seconds += ompcl_now() - t0;
  return ok;
}

/* Fast path of auto mode: the model already chose the host for this size class whatever data
 * would move (zero-copy buffers move none), so the entry skips argument set-up, launch sizing
 * and the decision (ompcl_decide() caches per size class and data movement). */
static int cached_host(ompcl_region *r, long iters) {
  ompcl_size_stats *z;
  if (ompcl_env.mode != MODE_AUTO || (!ompcl_dispatch.model && !r->predict)) return 0;
  z = ompcl_size_class(r, iters);
  if (ompcl_dispatch.load_aware) ompcl_load_sample();
  if (ompcl_load_stale(z)) return 0; /* ompcl_decide() decides at this load */
  if (z->probe == 1 || ompcl_probe_due(z, 0)) return 0; /* ompcl_decide() probes or measures */
  return z->decision[0] == 2 && (ompcl_dev.zero_copy || z->decision[1] == 2);
}

/* An entry the cached decision sends to the host: counted as a host decision, not run. */
static int decline_cached(ompcl_region *r, ompcl_launch *L) {
  r->decisions_host++;
  r->last_decision = L->ok = 0;
  L->declined = 1;
  return 0;
}

int ompcl_region_begin(ompcl_region *r, ompcl_launch *L, long iters) {
  ompcl_env_start();
  ompcl_register_region(r);
  memset(L, 0, offsetof(ompcl_launch, maps)); /* the arrays are filled up to their counts */
  L->r = r;
  L->iters = iters;
  r->t_start = ompcl_now();
  r->t_kernel = r->t_transfer = 0;
  r->b_to_device = r->b_to_host = 0;
  r->last_iters = iters;
  if (ompcl_env.mode == MODE_AUTO && (ompcl_dispatch.model || r->predict) &&
      ompcl_dev.cl_state == 0 && iters > 0) {
    if (cached_host(r, iters)) return decline_cached(r, L); /* host whatever the device */
    L->deferred = 1;  /* OpenCL starts only if the model wants the device (launch) */
    r->last_decision = L->ok = 1;
    return 1;
  }
  r->last_decision = L->ok = ompcl_ready_device(r, iters);
  if (L->ok && cached_host(r, iters)) return decline_cached(r, L);
  if (L->ok) r->t_start = ompcl_now(); /* keeps program build time out of seconds_device */
  return L->ok;
}

void ompcl_region_host(ompcl_region *r) {
  ompcl_env_start();
  ompcl_register_region(r);
  r->host_runs++;
  r->last_decision = 0;
  ompcl_release_unused(0);
  ompcl_load_threads_set(r); /* this entry's thread count (num_threads), undone at its end */
}

/* Times the entry begun by ompcl_rt_begin; host paths run inside an enclosing parallel
 * region call no ompcl_rt_begin (t_start is 0) and are counted but not timed. */
void ompcl_region_end(ompcl_region *r, int keep_resident) {
  ompcl_size_stats *z;
  double dt;
  ompcl_load_threads_restore();
  ompcl_env_note(); /* (a host path inside a parallel region began nothing) */
  ompcl_register_region(r);
  r->entries++;
  if (!keep_resident || ompcl_env.no_residency) ompcl_release_unused(0);
  if (r->t_start <= 0) return;
  dt = ompcl_now() - r->t_start;
  r->t_start = 0;
  /* test hooks: one side looks slower to the measurement of the model (ompcl_probe_due) */
  if ((ompcl_fault("slow-device") && r->last_decision) ||
      (ompcl_fault("slow-host") && !r->last_decision))
    dt += 0.05;
  z = ompcl_size_class(r, r->last_iters);
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
    if (r->wanting) ompcl_stats.wanted_seconds += dt;
  }
  r->wanting = 0;
}
