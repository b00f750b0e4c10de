/* ompcl runtime: small helpers every file uses (clock, log, fault hooks, files, hashing),
 * and the helpers of generated region code declared in ompcl_rt.h. */

#include "ompcl_rt_internal.h"

/* ---- helpers of generated region code (ompcl_rt.h) ---------------------------------- */

long ompcl_lmin(long a, long b) { return a < b ? a : b; }
long ompcl_lmax(long a, long b) { return a > b ? a : b; }
long ompcl_skip_lo(long end, long value) { return end == value ? end + 1 : end; }
long ompcl_skip_hi(long end, long value) { return end == value ? end - 1 : end; }
long ompcl_row_lo(long lo, long hi, long row) { return hi < lo ? 0 : lo * row; }
long ompcl_row_hi(long lo, long hi, long row) { return hi < lo ? -1 : (hi + 1) * row - 1; }

/* Iteration count of a canonical loop; op: 0 '<', 1 '<=', 2 '>', 3 '>='. */
long ompcl_trip(long lb, long ub, long step, int op) {
  long n;
  if (step == 0) return 0;
  switch (op) {
    case 0: n = ub > lb ? (ub - lb + step - 1) / step : 0; break;
    case 1: n = ub >= lb ? (ub - lb) / step + 1 : 0; break;
    case 2: n = lb > ub ? (lb - ub + (-step) - 1) / (-step) : 0; break;
    default: n = lb >= ub ? (lb - ub) / (-step) + 1 : 0; break;
  }
  return n;
}

/* ---- small helpers ------------------------------------------------------------------ */

double ompcl_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Seconds between an event's start and end (0 when the device does not say); releases it. */
double ompcl_event_seconds(cl_event ev) {
  cl_ulong t0 = 0, t1 = 0;
  if (!ev) return 0.0;
  if (ompcl_cl.WaitForEvents(1, &ev) != CL_SUCCESS ||
      ompcl_cl.GetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, 0) !=
          CL_SUCCESS ||
      ompcl_cl.GetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, 0) !=
          CL_SUCCESS)
    t0 = t1 = 0;
  ompcl_cl.ReleaseEvent(ev);
  return t1 > t0 ? 1e-9 * (double)(t1 - t0) : 0.0;
}

__attribute__((format(printf, 1, 2))) void ompcl_log(const char *fmt, ...) {
  va_list ap;
  if (!ompcl_env.log) return;
  va_start(ap, fmt);
  fputs("ompcl: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

int ompcl_fault(const char *what) { return strcmp(ompcl_env.fault, what) == 0; }

int ompcl_contains_nocase(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (; *hay; hay++) {
    size_t i = 0;
    while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
      i++;
    if (i == n) return 1;
  }
  return n == 0;
}

size_t ompcl_pow2_floor(size_t x) {
  size_t p = 1;
  while (p * 2 <= x) p *= 2;
  return p;
}

size_t ompcl_pow2_ceil(long x) {
  size_t p = 1;
  while ((long)p < x) p *= 2;
  return p;
}

/* 64-bit FNV-1a of a string including its terminator (so fields stay separate). */
uint64_t ompcl_fnv1a(uint64_t h, const char *s) {
  do {
    h ^= (unsigned char)*s;
    h *= 0x100000001b3ULL;
  } while (*s++);
  return h;
}

char *ompcl_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *buf = 0;
  long size;
  if (!f) return 0;
  if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
      (buf = malloc((size_t)size + 1)) && fread(buf, 1, (size_t)size, f) == (size_t)size) {
    buf[size] = 0; /* text files are used as C strings */
    *len = (size_t)size;
  } else {
    free(buf);
    buf = 0;
  }
  fclose(f);
  return buf;
}

/* Write through a temporary file and rename, so readers never see a partial file. */
int ompcl_write_file_atomic(const char *path, const void *data, size_t len) {
  char tmp[1100];
  FILE *f;
  int ok;
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  if (!(f = fopen(tmp, "wb"))) return 0;
  ok = fwrite(data, 1, len, f) == len;
  ok = (fclose(f) == 0) && ok;
  if (ok && rename(tmp, path) == 0) return 1;
  remove(tmp);
  return 0;
}

void ompcl_mkdir_p(const char *dir) {
  char path[1024];
  snprintf(path, sizeof path, "%s", dir);
  for (char *p = path + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    mkdir(path, 0777);
    *p = '/';
  }
  mkdir(path, 0777);
}
