/* ompcl runtime: the present table: host byte ranges and their device buffers, which copy is
 * valid, uploads when a launch maps a range, read-backs when a mapping goes. */

#include "ompcl_rt_internal.h"

struct ompcl_present_state ompcl_present;

void ompcl_release_mapping(mapping *m) {
  while (m->shadows) {
    shadow *sh = m->shadows;
    m->shadows = sh->next;
    ompcl_cl.ReleaseMemObject(sh->mem);
    free(sh);
  }
  if (m->mem) ompcl_cl.ReleaseMemObject(m->mem);
  free(m);
}

/* Map and unmap a zero-copy buffer: the OpenCL way to hand its memory to the host (read)
 * or back to the device (write); nothing is copied when the device uses the host memory.
 * Each is a round trip through the device's queue (tens of microseconds on PoCL, more than
 * many kernels), so a coherent mapping skips them: every launch has finished before the host
 * runs on (enqueue waits), the device reads and writes the host's own bytes, and the CPU's
 * caches are coherent. */
static cl_int map_unmap(mapping *m, cl_map_flags flags) {
  cl_int err;
  void *p;
  if (m->coherent) return CL_SUCCESS;
  ompcl_present.map_round_trips++;
  p = ompcl_cl.EnqueueMapBuffer(ompcl_dev.queue, m->mem, CL_TRUE, flags, 0, m->end - m->start,
                                0, 0, 0, &err);
  if (err != CL_SUCCESS) return err;
  err = ompcl_cl.EnqueueUnmapMemObject(ompcl_dev.queue, m->mem, p, 0, 0, 0);
  return err == CL_SUCCESS ? ompcl_cl.Finish(ompcl_dev.queue) : err;
}

/* Copy the whole of `m` to the device (`to_device`) or back, blocking; with zero-copy
   buffers map and unmap it instead, and set `*bytes` to 0 (nothing moved). */
static cl_int copy_mapping(mapping *m, int to_device, size_t *bytes, cl_event *ev) {
  if (m->zero_copy) {
    *bytes = 0;
    return map_unmap(m, to_device ? CL_MAP_WRITE : CL_MAP_READ);
  }
  return to_device ? ompcl_cl.EnqueueWriteBuffer(ompcl_dev.queue, m->mem, CL_TRUE, 0, *bytes,
                                                 (void *)m->start, 0, 0, ev)
                   : ompcl_cl.EnqueueReadBuffer(ompcl_dev.queue, m->mem, CL_TRUE, 0, *bytes,
                                                (void *)m->start, 0, 0, ev);
}

/* Make the host copy of `m` valid (reads back a device-only copy). */

void ompcl_sync_mapping(mapping *m) {
  size_t bytes = m->end - m->start;
  cl_event ev = 0;
  double dt;
  cl_int err;
  if (m->host_valid) return;
  if (m->nhv && !m->zero_copy) { /* host code read parts of it: only the rest comes back */
    ompcl_read_gaps(m);
    return;
  }
  /* the host's writes reach the device before it comes back */
  ompcl_push_spans(m, m->start, m->end);
  err = copy_mapping(m, 0, &bytes, &ev);
  dt = ompcl_event_seconds(ev);
  if (err != CL_SUCCESS)
    fprintf(stderr, "ompcl: warning: reading %zu bytes back from the device failed (CL error "
                    "%d); host data may be stale\n", bytes, (int)err);
  if (m->owner && bytes) { /* charged to the region whose kernel wrote it */
    m->owner->bytes_to_host += (long)bytes;
    m->owner->transfers_to_host++;
    m->owner->transfer_seconds += dt;
    if (m->owner->t_start > 0) { /* read back within that region's entry */
      m->owner->b_to_host += (long)bytes;
      m->owner->t_transfer += dt;
    }
  }
  m->host_valid = 1;
  m->nhv = 0;
  ompcl_log("download %zu bytes", bytes);
}

static int used_by(const ompcl_launch *L, const mapping *m) {
  for (int i = 0; i < L->nmaps; i++)
    if (L->maps[i] == m) return 1;
  return 0;
}

/* Sync and release every mapping that `keep` does not use (all of them when keep is 0). */
void ompcl_release_unused(const ompcl_launch *keep) {
  mapping **link = &ompcl_present.maps;
  while (*link) {
    mapping *m = *link;
    if (keep && used_by(keep, m)) {
      link = &m->next;
      continue;
    }
    ompcl_sync_mapping(m);
    *link = m->next;
    ompcl_release_mapping(m);
  }
}

/* Release the mappings overlapping [a, b), a block being freed: read back only those that
 * reach beyond it, or all of them when `keep`. */
void ompcl_present_forget(uintptr_t a, uintptr_t b, int keep) {
  mapping **link = &ompcl_present.maps;
  while (*link) {
    mapping *m = *link;
    if (m->start < b && a < m->end) {
      if (keep || m->start < a || b < m->end) ompcl_sync_mapping(m);
      *link = m->next;
      ompcl_release_mapping(m);
    } else {
      link = &m->next;
    }
  }
}

mapping *ompcl_find_containing(uintptr_t a, uintptr_t b) {
  for (mapping *m = ompcl_present.maps; m; m = m->next)
    if (m->start <= a && b <= m->end) return m;
  return 0;
}

static mapping **find_overlap(uintptr_t a, uintptr_t b) {
  for (mapping **link = &ompcl_present.maps; *link; link = &(*link)->next)
    if ((*link)->start < b && a < (*link)->end) return link;
  return 0;
}

/* Widen [*a, *b) over every partially overlapping mapping, which is synced and released. */
static int absorb_overlaps(ompcl_launch *L, uintptr_t *a, uintptr_t *b) {
  mapping **link;
  while ((link = find_overlap(*a, *b))) {
    mapping *m = *link;
    if (used_by(L, m)) {
      ompcl_launch_fail(L, "two array arguments overlap partially", CL_INVALID_VALUE);
      return 0;
    }
    *a = OMPCL_MIN(*a, m->start);
    *b = OMPCL_MAX(*b, m->end);
    ompcl_sync_mapping(m);
    *link = m->next;
    ompcl_release_mapping(m);
  }
  return 1;
}

static cl_mem create_buffer(size_t bytes, void *host, cl_int *err) {
  cl_mem mem;
  if (ompcl_fault("alloc")) {
    *err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    return 0;
  }
  mem = ompcl_cl.CreateBuffer(ompcl_dev.ctx, CL_MEM_READ_WRITE | (host ? CL_MEM_USE_HOST_PTR : 0),
                              bytes, host, err);
  return *err == CL_SUCCESS ? mem : 0;
}

/* A device buffer for `L` (over `host` when zero-copy); on failure, frees what `L` does not
 * use and retries once. */
cl_mem ompcl_create_buffer_for(ompcl_launch *L, size_t bytes, void *host) {
  cl_int err;
  cl_mem mem = create_buffer(bytes, host, &err);
  if (!mem) {
    ompcl_release_unused(L);
    mem = create_buffer(bytes, host, &err);
  }
  if (!mem) ompcl_launch_fail(L, "device allocation failed", err);
  return mem;
}

/* The distinct host memory ever mapped (statistics: bytes moved over the data's bytes). */
static span *seen;
static int nseen, capseen;

static void note_seen(uintptr_t a, uintptr_t b) {
  ompcl_merge_span(seen, &nseen, &a, &b);
  if (nseen == capseen) {
    int cap = capseen ? 2 * capseen : 64;
    span *grown = realloc(seen, (size_t)cap * sizeof *seen);
    if (!grown) return; /* statistics only */
    seen = grown;
    capseen = cap;
  }
  seen[nseen++] = (span){a, b};
}

long ompcl_data_bytes(void) {
  long n = 0;
  for (int i = 0; i < nseen; i++) n += (long)(seen[i].b - seen[i].a);
  return n;
}

static mapping *new_mapping(ompcl_launch *L, uintptr_t a, uintptr_t b) {
  mapping *m;
  cl_mem mem = ompcl_create_buffer_for(L, b - a, ompcl_dev.zero_copy ? (void *)a : 0);
  if (!mem) return 0;
  if (!(m = calloc(1, sizeof *m))) {
    ompcl_cl.ReleaseMemObject(mem);
    ompcl_launch_fail(L, "out of host memory", CL_OUT_OF_HOST_MEMORY);
    return 0;
  }
  m->start = a;
  m->end = b;
  m->mem = mem;
  note_seen(a, b);
  m->zero_copy = ompcl_dev.zero_copy;
  m->coherent = m->zero_copy && ompcl_dev.coherent;
  ompcl_present.coherent_buffers += m->coherent;
  m->stack = ompcl_on_stack(a);
  m->version = ++ompcl_present.epoch;
  m->host_valid = 1;
  m->next = ompcl_present.maps;
  ompcl_present.maps = m;
  return m;
}

/* An upload of `bytes` (event `ev`) charged to the launch's region; 0 (the launch failed)
 * when `err` says it did not happen. */
static int charged_upload(ompcl_launch *L, cl_int err, size_t bytes, cl_event ev,
                          const char *why) {
  double dt;
  if (err != CL_SUCCESS) {
    ompcl_launch_fail(L, "copy to the device failed", err);
    return 0;
  }
  if (bytes) {
    L->r->bytes_to_device += (long)bytes;
    L->r->b_to_device += (long)bytes;
    L->r->transfers_to_device++;
    dt = ompcl_event_seconds(ev);
    L->r->transfer_seconds += dt;
    L->r->t_transfer += dt;
  }
  ompcl_log("%s:%d: upload %zu bytes%s", L->r->file, L->r->line, bytes, why);
  return 1;
}

static int upload(ompcl_launch *L, mapping *m) {
  size_t bytes = m->end - m->start;
  cl_event ev = 0;
  cl_int err = copy_mapping(m, 1, &bytes, &ev); /* sets bytes and ev */
  if (!charged_upload(L, err, bytes, ev, "")) return 0;
  m->dev_valid = 1;
  m->ndirty = 0;
  m->version = ++ompcl_present.epoch;
  return 1;
}

/* Upload host bytes [a, b) into `m`'s device buffer (a part of it). */
static int upload_part(ompcl_launch *L, mapping *m, uintptr_t a, uintptr_t b) {
  cl_event ev = 0;
  cl_int err;
  if (a >= b) return 1;
  err = ompcl_cl.EnqueueWriteBuffer(ompcl_dev.queue, m->mem, CL_TRUE, a - m->start, b - a,
                                    (void *)a, 0, 0, &ev); /* sets ev */
  return charged_upload(L, err, b - a, ev, " (growing a mapping)");
}

/* The device copy of the new mapping `m` from the mappings it absorbs (`old`, by address):
 * their device copies move on the device, the gaps between them come from the host. The
 * host copy stays valid where every absorbed one had it. 0 on a failure (`old` untouched
 * but for host writes pushed to their device copies). */
static int fill_from(ompcl_launch *L, mapping *m, mapping **old, int n) {
  uintptr_t p = m->start;
  for (int i = 0; i < n; i++) {
    mapping *o = old[i];
    if (!o->dev_valid) continue; /* its host copy is the valid one: a gap */
    ompcl_push_spans(o, o->start, o->end); /* host writes reach its device copy first */
    if (!upload_part(L, m, p, o->start) ||
        ompcl_cl.EnqueueCopyBuffer(ompcl_dev.queue, o->mem, m->mem, 0, o->start - m->start,
                                   o->end - o->start, 0, 0, 0) != CL_SUCCESS)
      return 0;
    p = o->end;
  }
  if (!upload_part(L, m, p, m->end) || ompcl_cl.Finish(ompcl_dev.queue) != CL_SUCCESS)
    return 0;
  for (int i = 0; i < n; i++) {
    if (old[i]->dev_valid && !old[i]->host_valid) m->host_valid = 0;
    if (old[i]->dev_valid && old[i]->owner) m->owner = old[i]->owner;
  }
  m->dev_valid = 1;
  m->ndirty = 0;
  m->version = ++ompcl_present.epoch;
  return 1;
}

/* A mapping over [a, b) widened over the mappings it partly overlaps, on a copying device:
 * their device copies stay on the device (fill_from), where the general way (absorb_overlaps)
 * reads each back and sends the whole range again. */
static mapping *grow_mapping(ompcl_launch *L, uintptr_t a, uintptr_t b) {
  mapping *old[32], **link, *m;
  int n = 0;
  uintptr_t lo = a, hi = b;
  while (n < 32 && (link = find_overlap(lo, hi)) && !used_by(L, *link)) {
    mapping *o = *link;
    int i = n++;
    *link = o->next;
    while (i > 0 && old[i - 1]->start > o->start) old[i] = old[i - 1], i--;
    old[i] = o;
    lo = OMPCL_MIN(lo, o->start);
    hi = OMPCL_MAX(hi, o->end);
  }
  m = n && !find_overlap(lo, hi) ? new_mapping(L, lo, hi) : 0;
  if (m && fill_from(L, m, old, n)) {
    for (int i = 0; i < n; i++) ompcl_release_mapping(old[i]);
    return m;
  }
  if (m) { /* new_mapping put it first */
    ompcl_present.maps = m->next;
    ompcl_release_mapping(m);
  }
  for (int i = 0; i < n; i++) { /* back in the table: the general way takes them */
    old[i]->next = ompcl_present.maps;
    ompcl_present.maps = old[i];
  }
  if (!L->ok) return 0;
  if (!absorb_overlaps(L, &a, &b) || !(m = new_mapping(L, a, b))) return 0;
  return m->dev_valid || upload(L, m) ? m : 0;
}

/* The mapping holding host bytes [a, b), created or widened as needed, device copy valid. */
mapping *ompcl_map_range(ompcl_launch *L, uintptr_t a, uintptr_t b) {
  mapping *m = ompcl_find_containing(a, b);
  if (!m && !ompcl_dev.zero_copy && find_overlap(a, b))
    return (m = grow_mapping(L, a, b)) ? (ompcl_push_dirty(m, L->r), m) : 0;
  if (!m && (!absorb_overlaps(L, &a, &b) || !(m = new_mapping(L, a, b)))) return 0;
  if (!m->dev_valid && !upload(L, m)) return 0;
  ompcl_push_dirty(m, L->r);
  return m;
}

/* Bytes a launch would move: the array ranges no valid device copy holds (the mapping they
 * would join is taken whole), and what the kernel writes, which the host reads back unless it
 * stays resident (zero-copy buffers move none of those), and the rows its pointer trees
 * gather and scatter. */
double ompcl_transfer_bytes(const ompcl_launch *L) {
  double bytes = ompcl_tree_bytes(L); /* the trees' staging copies, whatever the buffers */
  if (ompcl_dev.zero_copy) return bytes;
  for (int k = 0; k < L->narrays; k++) {
    const ompcl_array_arg *a = &L->arrays[k];
    uintptr_t lo = ompcl_arg_start(a), hi = ompcl_arg_end(a);
    mapping *m;
    if (a->hi < a->lo) continue;
    m = ompcl_find_containing(lo, hi);
    if (!m || !m->dev_valid) bytes += (double)(m ? m->end - m->start : hi - lo);
    if (a->mode & OMPCL_WRITE) bytes += (double)(hi - lo);
  }
  return bytes;
}

/* Every mapping, without reading anything back (at exit, after ompcl_release_unused). */
void ompcl_present_release(void) {
  while (ompcl_present.maps) {
    mapping *m = ompcl_present.maps;
    ompcl_present.maps = m->next;
    ompcl_release_mapping(m);
  }
}
