/* ompcl runtime: host code touches mapped memory: the part it reads made valid on the host, the
 * part it writes marked for the device (spans), and mappings on a returning function's stack
 * frame released. */

#include "ompcl_rt_internal.h"

/* Whether [a, b) lies inside one span of v. */
static int covered(const span *v, int n, uintptr_t a, uintptr_t b) {
  for (int i = 0; i < n; i++)
    if (v[i].a <= a && b <= v[i].b) return 1;
  return 0;
}

/* Take out of v the spans [a, b) overlaps or touches, widening [a, b) over them. */
void ompcl_merge_span(span *v, int *n, uintptr_t *a, uintptr_t *b) {
  int k = 0;
  for (int i = 0; i < *n; i++) {
    if (v[i].b < *a || *b < v[i].a) {
      v[k++] = v[i];
    } else {
      *a = OMPCL_MIN(*a, v[i].a);
      *b = OMPCL_MAX(*b, v[i].b);
    }
  }
  *n = k;
}

/* Add [a, b) to v, merging what it overlaps or touches; 0 when v is full. */
static int add_span(span *v, int *n, uintptr_t a, uintptr_t b) {
  ompcl_merge_span(v, n, &a, &b);
  if (*n == OMPCL_SPANS) return 0;
  v[(*n)++] = (span){a, b};
  return 1;
}

static void charge(ompcl_region *r, int to_device, size_t bytes, double dt) {
  if (!r || !bytes) return;
  if (to_device) {
    r->bytes_to_device += (long)bytes;
    r->transfers_to_device++;
    if (r->t_start > 0) r->b_to_device += (long)bytes;
  } else {
    r->bytes_to_host += (long)bytes;
    r->transfers_to_host++;
    if (r->t_start > 0) r->b_to_host += (long)bytes;
  }
  r->transfer_seconds += dt;
  if (r->t_start > 0) r->t_transfer += dt;
}

/* Copy the parts of `m` host code wrote to the device copy (charged to `r`, else to the
 * mapping's owner). */
/* Copy the host-written parts of `m` that overlap [a, b) to the device (charged to `r`,
 * else to the mapping's owner); `why` ends the log line. */
static void copy_spans(mapping *m, uintptr_t a, uintptr_t b, ompcl_region *r, const char *why) {
  for (int i = 0; i < m->ndirty; i++) {
    uintptr_t lo = OMPCL_MAX(a, m->dirty[i].a), hi = OMPCL_MIN(b, m->dirty[i].b);
    cl_event ev = 0;
    cl_int err;
    if (lo >= hi) continue;
    m->version = ++ompcl_present.epoch;
    err = ompcl_cl.EnqueueWriteBuffer(ompcl_dev.queue, m->mem, CL_TRUE, lo - m->start, hi - lo,
                                   (void *)lo, 0, 0, &ev);
    if (err != CL_SUCCESS)
      fprintf(stderr, "ompcl: warning: copying %zu bytes to the device failed (CL error %d); "
                      "device data may be stale\n", (size_t)(hi - lo), (int)err);
    charge(r ? r : m->owner, 1, hi - lo, ompcl_event_seconds(ev));
    ompcl_log("upload %zu bytes written by host code%s", (size_t)(hi - lo), why);
  }
}

/* Copy the parts of `m` host code wrote to the device copy (charged to `r`, else to the
 * mapping's owner); they are clean then. */
void ompcl_push_dirty(mapping *m, ompcl_region *r) {
  copy_spans(m, m->start, m->end, r, "");
  m->ndirty = 0;
}

/* Copy the host-written parts of `m` that overlap [a, b) to the device before [a, b) comes
 * back, so the read keeps them. They stay marked: a probe runs before its statement, so a
 * write another probe of the same statement announced has not happened yet (the next launch
 * copies it again, written). */
void ompcl_push_spans(mapping *m, uintptr_t a, uintptr_t b) {
  copy_spans(m, a, b, 0, " (before a read)");
}

/* Read [a, b) of `m` back from the device (host code's writes there first); `why` ends the
 * log line. */
static void read_range(mapping *m, uintptr_t a, uintptr_t b, const char *why) {
  cl_event ev = 0;
  cl_int err;
  ompcl_push_spans(m, a, b);
  err = ompcl_cl.EnqueueReadBuffer(ompcl_dev.queue, m->mem, CL_TRUE, a - m->start, b - a,
                                   (void *)a, 0, 0, &ev);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "ompcl: warning: reading %zu bytes back from the device failed (CL error "
                    "%d); host data may be stale\n", (size_t)(b - a), (int)err);
    return;
  }
  charge(m->owner, 0, b - a, ompcl_event_seconds(ev));
  ompcl_log("download %zu bytes%s", (size_t)(b - a), why);
}

/* Read [a, b) of `m` back for host code (the rest stays on the device). */
static void read_part(mapping *m, uintptr_t a, uintptr_t b) {
  if (covered(m->hv, m->nhv, a, b)) return;
  read_range(m, a, b, " read by host code");
  if (!add_span(m->hv, &m->nhv, a, b)) {
    ompcl_sync_mapping(m);
  } else if (covered(m->hv, m->nhv, m->start, m->end)) {
    m->host_valid = 1;
    m->nhv = 0;
  }
}

/* Make the whole host copy of `m` valid by reading back only what host code has not read
 * already (the gaps between its spans). */
void ompcl_read_gaps(mapping *m) {
  uintptr_t p = m->start;
  while (p < m->end) {
    uintptr_t next = m->end;
    int inside = 0;
    for (int i = 0; i < m->nhv && !inside; i++)
      if (m->hv[i].a <= p && p < m->hv[i].b) {
        p = m->hv[i].b;
        inside = 1;
      }
    if (inside) continue;
    for (int i = 0; i < m->nhv; i++)
      if (p < m->hv[i].a && m->hv[i].a < next) next = m->hv[i].a;
    read_range(m, p, next, "");
    p = next;
  }
  m->host_valid = 1;
  m->nhv = 0;
}

/* Host code is about to touch [a, b) of `m`: its host copy valid there first; a write makes
 * that part of the device copy stale (copied at the next use). */
static void host_touch(mapping *m, uintptr_t a, uintptr_t b, int mode) {
  a = OMPCL_MAX(a, m->start);
  b = OMPCL_MIN(b, m->end);
  if (m->zero_copy) { /* the host and the device share the memory: map it for the host */
    ompcl_sync_mapping(m);
    if (mode & OMPCL_WRITE) m->dev_valid = 0;
    return;
  }
  if (!m->host_valid) read_part(m, a, b);
  if ((mode & OMPCL_WRITE) && m->dev_valid && !add_span(m->dirty, &m->ndirty, a, b)) {
    ompcl_sync_mapping(m);
    m->dev_valid = 0;
    m->ndirty = 0;
  }
}

void ompcl_host_range(const void *addr, unsigned long bytes, int mode) {
  uintptr_t a = (uintptr_t)addr, b = a + bytes;
  for (mapping *m = ompcl_present.maps; m; m = m->next)
    if (m->start < b && a < m->end) host_touch(m, a, b, mode);
}

/* Host code may touch any memory: every host copy valid; a write: every device copy stale. */
void ompcl_host_all(int mode) {
  for (mapping *m = ompcl_present.maps; m; m = m->next) {
    ompcl_sync_mapping(m);
    if (mode & OMPCL_WRITE) {
      m->dev_valid = 0;
      m->ndirty = 0;
    }
  }
}

/* The calling thread's stack, [lo, hi). */
static __thread uintptr_t stack_lo, stack_hi;

int ompcl_on_stack(uintptr_t a) {
  if (!stack_hi) {
    pthread_attr_t attr;
    void *base = 0;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      if (pthread_attr_getstack(&attr, &base, &size) == 0) {
        stack_lo = (uintptr_t)base;
        stack_hi = (uintptr_t)base + size;
      }
      pthread_attr_destroy(&attr);
    }
    if (!stack_hi) stack_hi = 1; /* unknown: no mapping counts as on the stack */
  }
  return stack_lo <= a && a < stack_hi;
}

/* A function returns: mappings of its frame (below `frame` on this thread's stack, where its
 * locals and those of the functions it called lived) are read back and released. */
void ompcl_release_frame(uintptr_t frame) {
  mapping **link = &ompcl_present.maps;
  while (*link) {
    mapping *m = *link;
    if (m->stack && ompcl_on_stack(m->start) && m->start < frame) {
      ompcl_sync_mapping(m);
      *link = m->next;
      ompcl_release_mapping(m);
    } else {
      link = &m->next;
    }
  }
}
