/* ompcl runtime: one launch: kernel arguments, arrays mapped, the ND-range sized for the
 * device's shape, the kernel enqueued, reduction results read, the bounds check reported,
 * written mappings marked. */

#include "ompcl_rt_internal.h"

/* exit status of a program stopped by the bounds checker (EX_SOFTWARE) */
#define OMPCL_BOUNDS_EXIT 70

static struct {
  cl_mem dummy;         /* bound to array parameters whose range is empty */
  cl_mem err;           /* bounds-check report buffer: flag, site, index (low, high word) */
  cl_mem copy[OMPCL_MAX_COPIES]; /* private copies' slices, kept for the next launch */
  size_t copy_bytes[OMPCL_MAX_COPIES];
} bufs;

/* bytes of one array's private copies (all work-items) at most */
#define OMPCL_COPY_BYTES (64UL << 20)

void ompcl_set_arg(ompcl_launch *L, int index, size_t size, const void *value) {
  cl_int err;
  if (!L->ok) return;
  err = ompcl_cl.SetKernelArg((cl_kernel)L->r->kernel_handle, (cl_uint)index, size, value);
  if (err == CL_SUCCESS && L->r->variant_handle) /* the variant takes the same arguments */
    err = ompcl_cl.SetKernelArg((cl_kernel)L->r->variant_handle, (cl_uint)index, size, value);
  if (err != CL_SUCCESS) ompcl_launch_fail(L, "setting a kernel argument failed", err);
}

static cl_mem dummy_buffer(ompcl_launch *L) {
  if (!bufs.dummy) bufs.dummy = ompcl_create_buffer_for(L, 64, 0);
  return bufs.dummy;
}

void ompcl_arg_array(ompcl_launch *L, void *ptr, long lo, long hi, unsigned long esize,
                      int mode) {
  ompcl_array_arg *a;
  if (!L->ok) return;
  if (L->narrays >= OMPCL_MAX_ARGS) {
    ompcl_launch_fail(L, "too many arrays", CL_INVALID_VALUE);
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

/* The bytes [*a, *b) of array argument k widened over every argument whose bytes overlap
 * them, through one another (one array passed as two, read over different ranges): one
 * mapping then holds them all, where two would overlap partially. */
static void joined_range(const ompcl_launch *L, int k, uintptr_t *a, uintptr_t *b) {
  int grown = 1;
  while (grown) {
    grown = 0;
    for (int j = 0; j < L->narrays; j++) {
      const ompcl_array_arg *x = &L->arrays[j];
      uintptr_t xa = ompcl_arg_start(x), xb = ompcl_arg_end(x);
      if (j == k || x->hi < x->lo || (L->variant && x->nd) || xb <= *a || *b <= xa ||
          (xa >= *a && xb <= *b))
        continue;
      *a = OMPCL_MIN(*a, xa);
      *b = OMPCL_MAX(*b, xb);
      grown = 1;
    }
  }
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
  if (a->hi < a->lo) { /* nothing is accessed: bind a placeholder, or null for a null
                          * pointer (OpenCL's null buffer: the kernel's tests of it read as
                          * the original's, a dereference faults as the original's would) */
    mem = a->ptr ? dummy_buffer(L) : 0;
    checked_lo = 0;
    checked_hi = -1;
  } else {
    uintptr_t from = ompcl_arg_start(a), to = ompcl_arg_end(a);
    joined_range(L, k, &from, &to);
    if (!(m = ompcl_map_range(L, from, to))) return;
    delta = (intptr_t)(base - m->start);
    if (delta % (intptr_t)a->esize) {
      ompcl_launch_fail(L, "array is misaligned within its mapping", CL_INVALID_VALUE);
      return;
    }
    offset = delta / (intptr_t)a->esize;
    mem = m->mem;
    L->maps[L->nmaps] = m;
    L->modes[L->nmaps++] = a->mode;
  }
  /* test hook: the checker must catch an extent one element too short */
  if (ompcl_fault("extent") && checked_hi >= checked_lo) checked_hi--;
  L->lo[k] = checked_lo;
  L->hi[k] = checked_hi;
  ompcl_set_arg(L, a->arg, sizeof mem, &mem);
  ompcl_set_arg(L, a->arg + 1, sizeof offset, &offset);
  ompcl_set_arg(L, a->arg + 2, sizeof checked_lo, &checked_lo);
  ompcl_set_arg(L, a->arg + 3, sizeof checked_hi, &checked_hi);
}

void ompcl_rt_arg_scalar(ompcl_launch *L, const void *value, unsigned long size) {
  if (L->deferred && L->ok) { /* no kernel yet: kept until the device is chosen */
    void *copy = L->npending < OMPCL_MAX_ARGS ? malloc(size) : 0;
    if (!copy) {
      ompcl_launch_fail(L, "too many arguments", CL_OUT_OF_HOST_MEMORY);
      return;
    }
    memcpy(copy, value, size);
    L->pending[L->npending].arg = L->nargs++;
    L->pending[L->npending].size = size;
    L->pending[L->npending++].value = copy;
    return;
  }
  ompcl_set_arg(L, L->nargs++, size, value);
}

void ompcl_drop_pending(ompcl_launch *L) {
  for (int k = 0; k < L->npending; k++) free(L->pending[k].value);
  L->npending = 0;
}

void ompcl_rt_arg_result(ompcl_launch *L, unsigned long esize, int per_group) {
  ompcl_result *res;
  if (!L->ok) return;
  if (L->nresults >= OMPCL_MAX_RESULTS) {
    ompcl_launch_fail(L, "too many results", CL_INVALID_VALUE);
    return;
  }
  res = &L->results[L->nresults];
  res->buffer = res->host = 0;
  res->esize = esize;
  res->count = per_group ? -1 : 1; /* -1: one per work-group, known at launch */
  L->result_arg[L->nresults++] = L->nargs++;
}

void ompcl_rt_arg_copy(ompcl_launch *L, int k, unsigned long esize) {
  if (!L->ok) return;
  if (L->ncopies >= OMPCL_MAX_COPIES) {
    ompcl_launch_fail(L, "too many private copies", CL_INVALID_VALUE);
    return;
  }
  L->copies[L->ncopies].array = k;
  L->copies[L->ncopies].arg = L->nargs;
  L->copies[L->ncopies++].esize = esize;
  L->nargs += 2; /* the slices' buffer, the elements of a slice */
}

/* Elements of private copy c's slice in this launch (0: the kernel's direct atomics): only
 * in the blocked shape (the grid shape's work-items are too many), unchecked (the checker
 * tests the user's buffers), with the array's range as mapped, when no other argument's
 * range overlaps it, the slices fit their budget and zeroing and merging them costs less
 * than the launch's iterations. */
static cl_long copy_elements(const ompcl_launch *L, int c) {
  int k = L->copies[c].array;
  cl_long n;
  if (!ompcl_shape.blocked || ompcl_env.bounds_check || L->variant || k >= L->narrays ||
      L->hi[k] < L->lo[k])
    return 0;
  for (int j = 0; j < L->narrays; j++) /* another argument's memory: its reads see updates */
    if (j != k && ompcl_args_overlap(&L->arrays[j], &L->arrays[k])) return 0;
  n = L->hi[k] - L->lo[k] + 1;
  if (n > L->iters / OMPCL_MAX(L->groups, 1L) ||
      (unsigned long)n * L->copies[c].esize > OMPCL_COPY_BYTES / (unsigned long)L->groups)
    return 0;
  return n;
}

/* Bind each private copy's two parameters, its slices' buffer grown to what it needs. */
static void bind_copies(ompcl_launch *L) {
  for (int c = 0; c < L->ncopies && L->ok; c++) {
    cl_long n = copy_elements(L, c);
    size_t bytes = (size_t)n * L->copies[c].esize * (size_t)L->groups;
    cl_mem mem;
    if (n && bytes > bufs.copy_bytes[c]) {
      if (bufs.copy[c]) ompcl_cl.ReleaseMemObject(bufs.copy[c]);
      bufs.copy_bytes[c] = 0;
      if (!(bufs.copy[c] = ompcl_create_buffer_for(L, bytes, 0))) return;
      bufs.copy_bytes[c] = bytes;
    }
    mem = n ? bufs.copy[c] : dummy_buffer(L);
    ompcl_set_arg(L, L->copies[c].arg, sizeof mem, &mem);
    ompcl_set_arg(L, L->copies[c].arg + 1, sizeof n, &n);
    if (n)
      ompcl_log("%s:%d: array argument %d: a private copy of %ld elements per work-item",
                L->r->file, L->r->line, L->copies[c].array, (long)n);
  }
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
  size_t groups = 1, cap = ompcl_dev.max_groups;
  if (has_partials(L) && !getenv("OMPCL_MAX_GROUPS")) cap = OMPCL_MIN(cap, 16 * ompcl_shape.units);
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
  size_t kwg = 0, budget = OMPCL_MIN((size_t)(has_partials(L) ? 128 : 256), ompcl_dev.max_wg);
  ompcl_cl.GetKernelWorkGroupInfo((cl_kernel)L->r->kernel_handle, ompcl_dev.device,
                               CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg, &kwg, 0);
  if (kwg) budget = OMPCL_MIN(budget, kwg);
  return ompcl_pow2_floor(budget);
}

/* Grid shape: work-group sizes are powers of two, innermost loop first (dimension 0), their
 * product the group size; the range covers every iteration unless capped. */
static void size_grid(ompcl_launch *L, int ndim, const long n[]) {
  size_t budget = group_size(L);
  L->ndim = ndim;
  for (int d = 0; d < ndim; d++) {
    long nd = OMPCL_MAX(n[ndim - 1 - d], 1L);
    size_t l = OMPCL_MIN(OMPCL_MIN(ompcl_pow2_ceil(nd), budget),
                         ompcl_pow2_floor(ompcl_dev.max_items[d]));
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
  L->global[0] = (size_t)OMPCL_MAX(1L, OMPCL_MIN(L->iters, (long)ompcl_dev.max_groups));
}

static void size_launch(ompcl_launch *L, int ndim, const long n[]) {
  if (ompcl_shape.blocked)
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
    if (!(mem = ompcl_create_buffer_for(L, res->esize * (size_t)res->count, 0))) return;
    res->buffer = mem;
    ompcl_set_arg(L, L->result_arg[k], sizeof mem, &mem);
  }
}

static void read_results(ompcl_launch *L) {
  for (int k = 0; k < L->nresults && L->ok; k++) {
    ompcl_result *res = &L->results[k];
    size_t bytes = res->esize * (size_t)res->count;
    cl_int err;
    if (!(res->host = malloc(bytes))) {
      ompcl_launch_fail(L, "out of host memory", CL_OUT_OF_HOST_MEMORY);
      return;
    }
    err = ompcl_cl.EnqueueReadBuffer(ompcl_dev.queue, (cl_mem)res->buffer, CL_TRUE, 0, bytes,
                                     res->host, 0, 0, 0);
    if (err != CL_SUCCESS)
      ompcl_launch_fail(L, "reading results failed", err);
    else
      L->r->result_bytes += (long)bytes;
  }
}

/* Whether a region's kernel checks asserts: ompcl lowers assert() in a loop body to a check
 * that reports the first failure in the bounds-check report buffer, its site one of buffer
 * -1 (the assertion's text as `array`, "file:line: function" as `where`). */
static int checks_asserts(const ompcl_region *r) {
  for (int i = 0; i < r->nsites; i++)
    if (r->sites[i].buffer < 0) return 1;
  return 0;
}

/* The bounds-check report buffer (zeroed) in check mode or for a kernel that checks asserts,
 * a placeholder otherwise; bound as the kernel's last argument. */
static void bind_check_buffer(ompcl_launch *L) {
  static const cl_int zero[4] = {0, 0, 0, 0};
  cl_mem mem;
  cl_int err;
  if (!L->ok) return;
  if (!ompcl_env.bounds_check && !checks_asserts(L->r)) {
    if ((mem = dummy_buffer(L))) ompcl_set_arg(L, L->nargs, sizeof mem, &mem);
    return;
  }
  if (!bufs.err && !(bufs.err = ompcl_create_buffer_for(L, sizeof zero, 0))) return;
  err = ompcl_cl.EnqueueWriteBuffer(ompcl_dev.queue, bufs.err, CL_TRUE, 0, sizeof zero, zero, 0,
                                    0, 0);
  if (err != CL_SUCCESS)
    ompcl_launch_fail(L, "copy to the device failed", err);
  else
    ompcl_set_arg(L, L->nargs, sizeof bufs.err, &bufs.err);
}

#ifdef __GLIBC__
extern char *__progname;
#define OMPCL_PROGNAME __progname
#else
#define OMPCL_PROGNAME "ompcl"
#endif

/* A failed assert of a kernel: the program stops as the original does, with glibc's message
 * and abort(). The host version of the region is not run again: the failed kernel may have
 * written part of its arrays where the host copy is the device's (zero-copy buffers) or
 * where the device held the only valid copy, so a run from the region's entry data is not
 * possible in general; the original program would stop at this assertion. */
static void assert_failed(const ompcl_site *s) {
  fprintf(stderr, "%s: %s: Assertion `%s' failed.\n", OMPCL_PROGNAME, s->where, s->array);
  abort();
}

/* After a checked launch: stop the program at the first out-of-bounds access or failed
 * assert found. */
static void check_report(ompcl_launch *L) {
  cl_int rep[4] = {0, 0, 0, 0};
  const ompcl_region *r = L->r;
  const ompcl_site *s;
  long index;
  if ((!ompcl_env.bounds_check && !checks_asserts(r)) || !L->ok ||
      ompcl_cl.EnqueueReadBuffer(ompcl_dev.queue, bufs.err, CL_TRUE, 0, sizeof rep, rep, 0, 0, 0) !=
          CL_SUCCESS || !rep[0])
    return;
  index = (long)(((unsigned long)(unsigned)rep[3] << 32) | (unsigned)rep[2]);
  s = rep[1] >= 0 && rep[1] < r->nsites ? &r->sites[rep[1]] : 0;
  if (s && s->buffer < 0) assert_failed(s);
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
  err = ompcl_fault("launch") ? CL_OUT_OF_RESOURCES
                        : ompcl_cl.EnqueueNDRangeKernel(ompcl_dev.queue, (cl_kernel)(L->variant
                                                     ? L->r->variant_handle : L->r->kernel_handle),
                                                     (cl_uint)L->ndim, 0, global, local, 0, 0,
                                                     &ev);
  if (err == CL_SUCCESS) err = ompcl_cl.Finish(ompcl_dev.queue);
  if (ev) {
    double dt = ompcl_event_seconds(ev);
    L->r->kernel_seconds += dt;
    L->r->t_kernel += dt;
    L->kernel_dt = dt;
  }
  if (err != CL_SUCCESS) ompcl_launch_fail(L, "OpenCL launch failed", err);
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
      m->version = ++ompcl_present.epoch;
      m->owner = L->r;
    } else if (m->host_valid) {
      m->dev_valid = 0;
    }
  }
}

/* The device/host decision of a launch, once (ompcl_rt_decide may make it early). */
int ompcl_settle(ompcl_launch *L, int ndim, const long n[]) {
  if (L->settled) return L->ok;
  L->settled = 1;
  if (!L->ok) return 0;
  if (ndim < 1 || ndim > 3) {
    ompcl_launch_fail(L, "unsupported number of loop dimensions", CL_INVALID_WORK_DIMENSION);
    return 0;
  }
  if (L->deferred && !ompcl_undefer(L, ndim, n)) {
    L->ok = 0;
    L->r->last_decision = 0;
    return 0;
  }
  size_launch(L, ndim, n);
  if (!ompcl_decide(L)) { /* the model chose the host: not a failure */
    L->ok = 0;
    L->declined = 1;
    L->r->last_decision = 0;
    return 0;
  }
  return 1;
}

int ompcl_launch_run(ompcl_launch *L, int ndim, const long n[]) {
  if (!ompcl_settle(L, ndim, n) || !ompcl_trees_gather(L)) return 0;
  L->variant = ompcl_use_variant(L);
  L->r->relayout_accesses = L->relayout_accesses[!ompcl_shape.blocked];
  for (int k = 0; k < L->narrays && L->ok; k++) {
    if (L->variant && L->arrays[k].nd)
      ompcl_bind_permuted(L, k);
    else
      bind_array(L, k);
  }
  create_results(L);
  bind_copies(L);
  enqueue(L);
  check_report(L);
  read_results(L);
  if (L->ok) ompcl_measure_variant(L);
  if (L->variant && L->ok) ompcl_permute_back(L);
  mark_written(L, L->ok);
  if (L->variant && L->ok) {
    ompcl_shadows_current(L);
    L->r->relayout_runs++;
  } else if (L->variant) { /* a failed variant may have half-written its copies */
    for (int k = 0; k < L->narrays; k++)
      if (L->arrays[k].shadow && (L->arrays[k].mode & OMPCL_WRITE))
        ((shadow *)L->arrays[k].shadow)->version = 0;
  }
  if (!L->ok) return 0;
  L->r->kernels_launched++;
  L->r->device_runs++;
  ompcl_stats.launches++;
  ompcl_log("%s:%d: launched %s over %ld work-groups", L->r->file, L->r->line, L->r->kernel,
           L->groups);
  return 1;
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
  ompcl_drop_pending(L);
  ompcl_trees_free(L); /* a launch never run: nothing of them was mapped */
  for (int k = 0; k < L->nresults; k++) {
    ompcl_result *res = &L->results[k];
    if (res->buffer) ompcl_cl.ReleaseMemObject((cl_mem)res->buffer);
    free(res->host);
    res->buffer = res->host = 0;
  }
}

/* The placeholder and the bounds-check buffers (at exit). */
void ompcl_launch_release_buffers(void) {
  if (bufs.dummy) ompcl_cl.ReleaseMemObject(bufs.dummy);
  if (bufs.err) ompcl_cl.ReleaseMemObject(bufs.err);
  for (int c = 0; c < OMPCL_MAX_COPIES; c++) {
    if (bufs.copy[c]) ompcl_cl.ReleaseMemObject(bufs.copy[c]);
    bufs.copy[c] = 0;
    bufs.copy_bytes[c] = 0;
  }
  bufs.err = 0;
  bufs.dummy = 0;
}
