/* The native `ompcl` command: `ompcl cc ...` handed to the compile server without starting
 * Python (a build's compiler commands then start in about a millisecond, as gcc's do).
 *
 * Does what ompcl/driver/client.py does: finds this ompcl installation's server socket (the
 * same name: a digest of the interpreter, the package's location, the package's files'
 * names, sizes and modification times, and PYTHONPATH), sends the command line with the
 * working directory, environment, umask and standard streams, relays signals to the worker
 * and exits with its status (dying of the compiler's signal). Everything else, and every
 * case it does not handle (no server answers, the server is off, an unusual directory),
 * goes to the Python entry point, exactly as the Python command would run it. When no
 * server answers, it starts one (as the Python client does) and waits for it
 * (OMPCL_SERVER_WAIT seconds, default 5), so that the first commands of a parallel build
 * share one translator instead of each loading its own.
 *
 * Built by ompcl/driver/launcher.py with OMPCL_PYTHON and OMPCL_PACKAGE (C string
 * literals) defined in launcher_config.h. OMPCL_LAUNCHER_DEBUG=1 says on stderr which
 * socket it asked and whether the server ran the command.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launcher_config.h"

extern char **environ;

/* ---- SHA-256 (FIPS 180-4) ------------------------------------------------------------ */
typedef struct { uint32_t h[8]; uint64_t len; unsigned char buf[64]; size_t fill; } sha256;

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha_block(sha256 *s, const unsigned char *p) {
    uint32_t w[64], a, b, c, d, e, f, g, h;
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    a = s->h[0]; b = s->h[1]; c = s->h[2]; d = s->h[3];
    e = s->h[4]; f = s->h[5]; g = s->h[6]; h = s->h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
        uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
    }
    s->h[0] += a; s->h[1] += b; s->h[2] += c; s->h[3] += d;
    s->h[4] += e; s->h[5] += f; s->h[6] += g; s->h[7] += h;
}

static void sha_init(sha256 *s) {
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, h0, sizeof h0);
    s->len = 0;
    s->fill = 0;
}

static void sha_update(sha256 *s, const void *data, size_t n) {
    const unsigned char *p = data;
    s->len += n;
    while (n) {
        size_t k = 64 - s->fill < n ? 64 - s->fill : n;
        memcpy(s->buf + s->fill, p, k);
        s->fill += k; p += k; n -= k;
        if (s->fill == 64) { sha_block(s, s->buf); s->fill = 0; }
    }
}

static void sha_hex(sha256 *s, char out[65]) {
    uint64_t bits = s->len * 8;
    unsigned char pad = 0x80, zero = 0, len[8];
    sha_update(s, &pad, 1);
    while (s->fill != 56) sha_update(s, &zero, 1);
    for (int i = 0; i < 8; i++) len[i] = (unsigned char)(bits >> (56 - 8 * i));
    sha_update(s, len, 8);
    for (int i = 0; i < 8; i++) sprintf(out + 8 * i, "%08x", s->h[i]);
}

/* ---- growable buffers ---------------------------------------------------------------- */
typedef struct { char *p; size_t n, cap; } buf;

static void put(buf *b, const void *data, size_t n) {
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 256;
        b->p = realloc(b->p, b->cap);
        if (!b->p) { perror("ompcl"); exit(3); }
    }
    memcpy(b->p + b->n, data, n);
    b->n += n;
}

static void put_i32(buf *b, int32_t v) {   /* little-endian, as marshal writes */
    unsigned char x[4] = {v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, (v >> 24) & 0xff};
    put(b, x, 4);
}

/* marshal's bytes ('s'), int ('i') and list ('['); a dict is '{' ... '0' */
static void m_bytes(buf *b, const char *s, size_t n) { put(b, "s", 1); put_i32(b, (int32_t)n); put(b, s, n); }
static void m_str(buf *b, const char *s) { m_bytes(b, s, strlen(s)); }
static void m_int(buf *b, int v) { put(b, "i", 1); put_i32(b, v); }

/* ---- the package fingerprint (client.package_fingerprint) ---------------------------- */
static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* os.walk order: a directory's files (sorted), then its subdirectories (sorted, no
 * __pycache__, symbolic links to directories listed but not entered); 0 on success */
static int walk(sha256 *s, const char *root, const char *rel) {
    char path[4096];
    snprintf(path, sizeof path, "%s%s%s", root, *rel ? "/" : "", rel);
    DIR *d = opendir(path);
    if (!d) return -1;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (n == cap) names = realloc(names, (cap = cap * 2 + 32) * sizeof *names);
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    /* one stat per entry: its line for a file (hashed now, in order), or whether it is a
     * directory to enter afterwards (marked by keeping its name) */
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        char sub[4096], full[4096], line[4200];
        struct stat st, lst;
        snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", names[i]);
        snprintf(full, sizeof full, "%s/%s", root, sub);
        if (stat(full, &st) != 0) { rc = -1; break; }
        if (S_ISDIR(st.st_mode)) {
            if (!strcmp(names[i], "__pycache__") || lstat(full, &lst) != 0 || S_ISLNK(lst.st_mode))
                names[i][0] = 0;   /* listed by os.walk but not entered */
            continue;
        }
        int k = snprintf(line, sizeof line, "%s:%lld:%lld", sub, (long long)st.st_size,
                         (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec);
        sha_update(s, line, (size_t)k + 1);   /* with its NUL, as the "\0" there */
        names[i][0] = 0;
    }
    for (size_t i = 0; i < n && !rc; i++) {
        char sub[4096];
        if (!names[i][0]) continue;
        snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", names[i]);
        rc = walk(s, root, sub);
    }
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    return rc;
}

/* ---- the socket (client.server_dir, client.socket_path) ------------------------------ */
static int enabled(void) {
    const char *v = getenv("OMPCL_SERVER");
    if (!v) return 1;
    char low[16] = {0};
    while (*v == ' ' || *v == '\t') v++;
    size_t n = 0;
    for (; v[n] && n < sizeof low - 1; n++) low[n] = (char)(v[n] >= 'A' && v[n] <= 'Z' ? v[n] + 32 : v[n]);
    while (n && (low[n - 1] == ' ' || low[n - 1] == '\t' || low[n - 1] == '\n')) low[--n] = 0;
    return strcmp(low, "0") && strcmp(low, "off") && strcmp(low, "no") && strcmp(low, "false");
}

static int socket_path(char *out, size_t size) {
    char dir[4096];
    const char *explicit = getenv("OMPCL_SERVER_DIR"), *xdg = getenv("XDG_RUNTIME_DIR");
    if (explicit && *explicit) snprintf(dir, sizeof dir, "%s", explicit);
    else if (xdg && *xdg) snprintf(dir, sizeof dir, "%s/ompcl", xdg);
    else snprintf(dir, sizeof dir, "/tmp/ompcl-%u", (unsigned)getuid());
    struct stat st;
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
        (st.st_mode & 077))
        return -1;   /* the Python command creates it, or finds it unsafe */
    sha256 s;
    char fingerprint[65], key[65];
    sha_init(&s);
    if (walk(&s, OMPCL_PACKAGE, "") != 0) return -1;
    sha_hex(&s, fingerprint);
    const char *pythonpath = getenv("PYTHONPATH");
    sha_init(&s);
    sha_update(&s, OMPCL_PYTHON, strlen(OMPCL_PYTHON) + 1);
    sha_update(&s, OMPCL_PACKAGE, strlen(OMPCL_PACKAGE) + 1);
    sha_update(&s, fingerprint, 65);   /* 64 digits and the separator */
    sha_update(&s, pythonpath ? pythonpath : "", pythonpath ? strlen(pythonpath) : 0);
    sha_hex(&s, key);
    key[20] = 0;
    int n = snprintf(out, size, "%s/cc-%s.sock", dir, key);
    return n > 0 && (size_t)n < sizeof(((struct sockaddr_un *)0)->sun_path) && n < 104 ? 0 : -1;
}

/* ---- running the command in the server ----------------------------------------------- */
static int debug(void) {
    const char *v = getenv("OMPCL_LAUNCHER_DEBUG");
    return v && *v && strcmp(v, "0");
}

static volatile sig_atomic_t worker, pending;

static void relay(int sig) {
    if (worker) killpg(worker, sig);
    else pending = sig;
}

static int read_full(int fd, void *p, size_t n) {   /* 1: done, 0: closed, -1: error */
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(fd, (char *)p + got, n - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return k == 0 && got == 0 ? 0 : -1;
        got += (size_t)k;
    }
    return 1;
}

static int connect_to(const char *path) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0) return fd;
    if (fd >= 0) close(fd);
    return -1;
}

/* client.start_server: python -m ompcl.driver.server PATH, detached (its own session, no
 * inherited streams or descriptors, in /); its pid, or -1 */
static pid_t start_server(const char *path) {
    pid_t child = fork();
    if (child != 0) return child;
    setsid();
    int null = open("/dev/null", O_RDWR);
    for (int k = 0; k < 3; k++) dup2(null, k);
    long most = sysconf(_SC_OPEN_MAX);
    for (long k = 3; k < (most > 0 && most < 65536 ? most : 65536); k++) close((int)k);
    if (chdir("/") != 0) _exit(1);
    char *args[] = {OMPCL_PYTHON, "-m", "ompcl.driver.server", (char *)path, NULL};
    execv(OMPCL_PYTHON, args);
    _exit(127);
}

/* a connection to the server, starting it when none answers; -1 when none came up: the
 * wait ends early when the server failed (exit status not 0; 0 means another server had
 * the socket's lock, and that one is still coming up) */
static int connect_or_start(const char *path) {
    int fd = connect_to(path);
    if (fd >= 0) return fd;
    const char *v = getenv("OMPCL_SERVER_WAIT");
    double wait = v && *v ? atof(v) : 5.0;
    if (wait <= 0) return -1;
    pid_t server = start_server(path);
    if (server < 0) return -1;
    if (debug()) fprintf(stderr, "ompcl-launcher: started a server\n");
    for (double waited = 0; waited < wait; waited += 0.01) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
        if ((fd = connect_to(path)) >= 0) return fd;
        int status;
        if (server > 0 && waitpid(server, &status, WNOHANG) == server) {
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
            server = 0;
        }
    }
    return -1;
}

/* the command's exit status, or -1000 when the server did not take it (run it in Python) */
static int run_remote(const char *path, int argc, char **argv) {
    int fd = connect_or_start(path);
    if (fd < 0) return -1000;

    int fds[3], nfds = 0;
    for (int k = 0; k < 3; k++)
        if (fcntl(k, F_GETFD) != -1) fds[nfds++] = k;
    char cwd[8192];
    if (!getcwd(cwd, sizeof cwd)) return -1000;
    mode_t mask = umask(022);
    umask(mask);

    buf body = {0}, msg = {0};
    put(&body, "{", 1);
    m_str(&body, "op"); m_str(&body, "cc");
    m_str(&body, "native"); m_int(&body, 1);
    m_str(&body, "argv"); put(&body, "[", 1); put_i32(&body, argc);
    for (int k = 0; k < argc; k++) m_str(&body, argv[k]);
    m_str(&body, "cwd"); m_str(&body, cwd);
    m_str(&body, "umask"); m_int(&body, (int)mask);
    m_str(&body, "fds"); put(&body, "[", 1); put_i32(&body, nfds);
    for (int k = 0; k < nfds; k++) m_int(&body, fds[k]);
    m_str(&body, "env"); put(&body, "{", 1);
    for (char **e = environ; *e; e++) {
        char *eq = strchr(*e, '=');
        if (!eq || eq == *e) continue;
        m_bytes(&body, *e, (size_t)(eq - *e));
        m_str(&body, eq + 1);
    }
    put(&body, "0", 1);
    put(&body, "0", 1);
    unsigned char head[4] = {body.n >> 24, (body.n >> 16) & 0xff, (body.n >> 8) & 0xff, body.n & 0xff};
    put(&msg, head, 4);
    put(&msg, body.p, body.n);

    struct msghdr mh = {0};
    struct iovec iov = {msg.p, msg.n};
    char control[CMSG_SPACE(sizeof fds)];
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    if (nfds) {
        memset(control, 0, sizeof control);
        mh.msg_control = control;
        mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
        memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
    }
    ssize_t sent = sendmsg(fd, &mh, MSG_NOSIGNAL);
    if (sent <= 0) return -1000;
    while ((size_t)sent < msg.n) {
        ssize_t k = send(fd, msg.p + sent, msg.n - (size_t)sent, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1000;
        sent += k;
    }

    struct sigaction sa = {0};
    sa.sa_handler = relay;   /* no SA_RESTART: a read returns to look at what came */
    int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (int k = 0; k < 4; k++) sigaction(forwarded[k], &sa, NULL);
    for (;;) {
        unsigned char h[4];
        char reply[64];
        int r = read_full(fd, h, 4);
        if (r <= 0) break;
        uint32_t n = (uint32_t)h[0] << 24 | h[1] << 16 | h[2] << 8 | h[3];
        if (n >= sizeof reply || read_full(fd, reply, n) <= 0) break;
        reply[n] = 0;
        if (!strncmp(reply, "pid=", 4)) {
            worker = atoi(reply + 4);
            if (pending) killpg(worker, pending);
        } else if (!strncmp(reply, "status=", 7)) {
            return atoi(reply + 7);
        }
    }
    if (pending) return 128 + pending;
    if (!worker) return -1000;
    fprintf(stderr, "ompcl: error: the compile server ended the command without an exit "
                    "status (OMPCL_SERVER=0 runs commands without it)\n");
    return 3;
}

/* ---- the Python command, for everything else ----------------------------------------- */
static void run_python(int argc, char **argv, int cc) {
    char **args = calloc((size_t)argc + 5, sizeof *args);
    int n = 0;
    args[n++] = OMPCL_PYTHON;
    args[n++] = "-c";
    /* -c puts the working directory first on the module path: take it off again, so that
     * an ompcl/ folder there is never imported in place of this installation */
    args[n++] = "import sys; del sys.path[0]; sys.argv[0] = 'ompcl'; "
                "from ompcl.__main__ import main; main()";
    if (cc) args[n++] = "cc";
    for (int k = 1; k < argc; k++) args[n++] = argv[k];
    execv(OMPCL_PYTHON, args);
    fprintf(stderr, "ompcl: error: cannot run %s: %s\n", OMPCL_PYTHON, strerror(errno));
    exit(127);
}

int main(int argc, char **argv) {
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    int as_cc = !strcmp(base, "ompcl-cc");
    int first = as_cc ? 1 : 2;   /* the first argument of the compiler command */
    if (!as_cc && (argc < 2 || strcmp(argv[1], "cc"))) run_python(argc, argv, 0);
    char path[200];
    if (!enabled() || socket_path(path, sizeof path) != 0) {
        if (debug()) fprintf(stderr, "ompcl-launcher: no socket: python\n");
        run_python(argc - (as_cc ? 0 : 1), argv + (as_cc ? 0 : 1), 1);
    }
    int status = run_remote(path, argc - first, argv + first);
    if (debug()) fprintf(stderr, "ompcl-launcher: socket %s: %s\n", path,
                         status == -1000 ? "python" : "served");
    if (status == -1000) run_python(argc - (as_cc ? 0 : 1), argv + (as_cc ? 0 : 1), 1);
    if (status < 0) {
        fflush(NULL);
        signal(-status, SIG_DFL);
        kill(getpid(), -status);
        return 128 - status;
    }
    return status;
}
