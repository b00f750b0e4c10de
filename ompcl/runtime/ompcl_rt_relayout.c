/* ompcl runtime: dynamic index reordering: a region's variant kernel runs over permuted device
 * copies of its arrays (shadows), made and written back by the runtime's transposition
 * kernels, when the cost model (or OMPCL_DYNLAYOUT) says it pays. */

#include "ompcl_rt_internal.h"

static struct {
  void *permute[4];     /* cl_kernels of the runtime's transposition, by element size 1 2 4 8 */
  int permute_state;    /* 0 not built, 1 ready, -1 failed */
  double permute_rate;  /* seconds per byte of the last transposition (profiling events;
                           the first fill of a copy also pays for its pages: not counted) */
} transpose;

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
  if (transpose.permute_state) return transpose.permute_state > 0;
  transpose.permute_state = -1;
  if (!ompcl_ensure_program(&permute_program)) return 0;
  for (int k = 0; k < 4; k++) {
    cl_int err;
    transpose.permute[k] =
        ompcl_cl.CreateKernel((cl_program)permute_program.handle, names[k], &err);
    if (err != CL_SUCCESS) return 0;
  }
  transpose.permute_state = 1;
  return 1;
}

static long elements_of(const ompcl_array_arg *a) {
  long n = 1;
  for (int k = 0; k < a->nd; k++) n *= a->dims[k];
  return n;
}

/* The mapping holding the whole of permuted array a, if any. */
static mapping *whole_mapping(const ompcl_array_arg *a) {
  return ompcl_find_containing((uintptr_t)a->ptr,
                         (uintptr_t)a->ptr + (uintptr_t)elements_of(a) * a->esize);
}

/* The region's variant kernel for the device's shape (0: none). */
static const char *variant_of(const ompcl_region *r) {
  return ompcl_shape.blocked ? r->variant : r->variant_grid;
}

/* One transposition: dst (at element dst_off) gets src (from src_off) in the layout of
 * dimensions dd, whose source strides are ss (elements of esize bytes). */
static int permute(ompcl_launch *L, cl_mem src, long src_off, cl_mem dst, long dst_off,
                   int nd, const long *dd, const long *ss, size_t esize, int first) {
  long d[8] = {1, 1, 1, 1, 1, 1, 1, 1}, st[8] = {0}, n = 1, run = 1;
  int which = esize == 8 ? 3 : esize == 4 ? 2 : esize == 2 ? 1 : 0, m = 0;
  size_t unit = (size_t)1 << which, global;
  cl_kernel k = (cl_kernel)transpose.permute[which];
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
  err |= ompcl_cl.SetKernelArg(k, 0, sizeof src, &src);
  err |= ompcl_cl.SetKernelArg(k, 1, sizeof src_off, &src_off);
  err |= ompcl_cl.SetKernelArg(k, 2, sizeof dst, &dst);
  err |= ompcl_cl.SetKernelArg(k, 3, sizeof dst_off, &dst_off);
  err |= ompcl_cl.SetKernelArg(k, 4, sizeof n, &n);
  err |= ompcl_cl.SetKernelArg(k, 5, sizeof run, &run);
  err |= ompcl_cl.SetKernelArg(k, 6, sizeof m, &m);
  for (int j = 0; j < 8; j++) {
    err |= ompcl_cl.SetKernelArg(k, 7 + j, sizeof d[j], &d[j]);
    err |= ompcl_cl.SetKernelArg(k, 15 + j, sizeof st[j], &st[j]);
  }
  global = (size_t)OMPCL_MAX(1L, OMPCL_MIN((n + OMPCL_PERMUTE_ROWS - 1) / OMPCL_PERMUTE_ROWS,
                                           1L << 20)); /* blocks of rows */
  if (err == CL_SUCCESS && !ompcl_fault("permute"))
    err = ompcl_cl.EnqueueNDRangeKernel(ompcl_dev.queue, k, 1, 0, &global, 0, 0, 0, &ev);
  else if (err == CL_SUCCESS)
    err = CL_OUT_OF_RESOURCES;
  if (err == CL_SUCCESS) err = ompcl_cl.Finish(ompcl_dev.queue);
  if (ev) {
    double dt = ompcl_event_seconds(ev);
    L->r->relayout_seconds += dt;
    L->r->t_kernel += dt;
    if (dt > 0 && !first)
      transpose.permute_rate = dt / ((double)(n * d[m - 1] * run) * (double)unit);
  }
  L->r->relayout_copies++;
  ompcl_log("%s:%d: transposed %ld elements of %zu bytes", L->r->file, L->r->line,
           n * d[m - 1] * run, unit);
  if (err != CL_SUCCESS) { /* this entry runs on the host, later ones without the variant */
    ompcl_launch_fail(L, "transposing an array on the device failed", err);
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
  cl_mem mem = ompcl_create_buffer_for(L, (size_t)elements_of(a) * a->esize, 0);
  shadow *sh;
  if (!mem) return 0;
  if (!(sh = calloc(1, sizeof *sh))) {
    ompcl_cl.ReleaseMemObject(mem);
    ompcl_launch_fail(L, "out of host memory", CL_OUT_OF_HOST_MEMORY);
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
  double t0 = ompcl_now(), dt;
  cl_int err;
  if (r->variant_state || !name || !r->vprog) return 0;
  r->variant_state = -1;
  if (ompcl_ensure_program(r->vprog)) {
    r->variant_handle = ompcl_cl.CreateKernel((cl_program)r->vprog->handle, name, &err);
    if (err == CL_SUCCESS) r->variant_state = 1;
    else r->variant_handle = 0;
  }
  dt = ompcl_now() - t0;
  ompcl_stats.setup_seconds += dt;
  r->t_start += dt;
  return 0;
}

/* The arrays the variant of the device's shape permutes (nd, perm), for this launch. */
static void resolve_layouts(ompcl_launch *L) {
  for (int k = 0; k < L->narrays; k++) {
    ompcl_array_arg *a = &L->arrays[k];
    a->perm = a->ndims ? a->perms[!ompcl_shape.blocked] : 0;
    a->nd = a->perm ? a->ndims : 0;
  }
}

/* The variant is wanted: 1 when it can run now (its kernel and the transpositions ready).
 * Unless forced, its program is built only once the kernel has run for a few times as long
 * as the kernels' program took to build: a short run never pays for it. */
static int want_variant(ompcl_launch *L) {
  const ompcl_region *r = L->r;
  if (r->variant_handle) return ensure_permute();
  if (ompcl_env.relayout <= 0 &&
      r->kernel_seconds < ompcl_env.layout_build * r->prog->build_seconds) {
    ompcl_log("%s:%d: variant wanted; built after %.3f s of kernels (%.3f so far)", r->file,
             r->line, ompcl_env.layout_build * r->prog->build_seconds, r->kernel_seconds);
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
int ompcl_use_variant(ompcl_launch *L) {
  const ompcl_region *r = L->r;
  const double *c = ompcl_env.layout_env ? ompcl_env.layout_cost : r->prog->layout_cost;
  int have = ompcl_env.layout_env || c[0] > 0;
  double gain = have ? c[0] : OMPCL_LAYOUT_GAIN, copy = have ? c[1] : OMPCL_LAYOUT_COPY;
  double byte = have ? c[2] : OMPCL_LAYOUT_BYTE, bytes = 0, again = 0, saved, cost;
  int any = 0, copies = 0, tried = 0;
  double accesses = L->relayout_accesses[!ompcl_shape.blocked];
  if (!variant_of(r) || r->variant_state < 0 || ompcl_env.relayout < 0) return 0;
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
  if (ompcl_env.relayout > 0) return want_variant(L);
  if (r->rate_kernel <= 0) return 0; /* the kernel's own speed is measured first */
  if (transpose.permute_rate > 0) byte = transpose.permute_rate;
  cost = copies * copy + bytes * byte;
  if (r->rate_variant > 0) {
    saved = (r->rate_kernel - r->rate_variant) * (double)L->iters;
  } else {
    saved = gain * accesses * (double)L->iters;
    /* a try costs at most about the kernel itself each time it repeats: tried */
    tried = copy + again * byte <= r->rate_kernel * (double)L->iters;
  }
  ompcl_log("%s:%d: variant: saves %.6f s (%s), transpositions cost %.6f s%s", r->file,
           r->line, saved, r->rate_variant > 0 ? "measured" : "model", cost,
           tried ? ": tried" : "");
  return (tried || saved > cost) && want_variant(L);
}

/* The kernel seconds per work-item of the launch, for ompcl_use_variant (the fastest so far). */
void ompcl_measure_variant(ompcl_launch *L) {
  /* test hook: the variant looks a second slower to the measurement */
  double dt = L->kernel_dt + (L->variant && ompcl_fault("slow-variant") ? 1.0 : 0.0);
  double rate = dt / (double)OMPCL_MAX(L->iters, 1L);
  if (!variant_of(L->r) || L->kernel_dt <= 0) return;
  /* the best of each: a launch slowed by other work on the machine moves neither */
  if (L->variant)
    L->r->rate_variant = L->r->rate_variant > 0 ? OMPCL_MIN(L->r->rate_variant, rate) : rate;
  else
    L->r->rate_kernel = L->r->rate_kernel > 0 ? OMPCL_MIN(L->r->rate_kernel, rate) : rate;
}

/* Map the whole of permuted array k, make its permuted copy current and bind that copy. */
void ompcl_bind_permuted(ompcl_launch *L, int k) {
  ompcl_array_arg *a = &L->arrays[k];
  long n = elements_of(a);
  uintptr_t base = (uintptr_t)a->ptr;
  cl_long zero = 0, top = n - 1;
  intptr_t delta;
  mapping *m;
  shadow *sh;
  if (!(m = ompcl_map_range(L, base, base + (uintptr_t)n * a->esize))) return;
  delta = (intptr_t)(base - m->start);
  if (delta % (intptr_t)a->esize) {
    ompcl_launch_fail(L, "array is misaligned within its mapping", CL_INVALID_VALUE);
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
  ompcl_set_arg(L, a->arg, sizeof sh->mem, &sh->mem);
  ompcl_set_arg(L, a->arg + 1, sizeof zero, &zero);
  ompcl_set_arg(L, a->arg + 2, sizeof zero, &zero);
  ompcl_set_arg(L, a->arg + 3, sizeof top, &top);
}

/* After the variant ran: what it wrote goes back to the original layout. */
void ompcl_permute_back(ompcl_launch *L) {
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
void ompcl_shadows_current(ompcl_launch *L) {
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
