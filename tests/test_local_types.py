"""Types declared inside functions (``analysis.localtypes``): structs, typedefs, unions and
enums local to the function of an OpenMP loop are declared at file scope under unique names,
in the kernel program and before the host code outlined from the function, so the loops
using them offload. Each program runs on every path against gcc's build, and its statistics
show the kernels launched; two functions with one tag, and a local type hiding a file-scope
one, keep their own types. A type whose copy would not mean the same at file scope (a size
known at run time, attributes) keeps its loops on the host, with the reason."""
from __future__ import annotations

import subprocess
import sys

import pytest

from ompcl.analysis.localtypes import call_cast, lifted_program, source_lines
from ompcl.frontend.program import load_program
from ompcl.pipeline import translate

from conftest import build_both, every_path, kernels_launched, report_lines

HEAD = "#include <stdio.h>\n#include <stdlib.h>\n"

#: a local struct, a local struct read by value, a team with two loops on it
STRUCT = HEAD + r"""
int main(void) {
  int n = 20000, i;
  struct q { double w; int k; };
  struct q scale = { 0.5, 3 };
  struct q *qs = malloc(n * sizeof(struct q));
  double s = 0;
  for (i = 0; i < n; i++) { qs[i].w = i * 0.25; qs[i].k = i % 7; }
#pragma omp parallel for
  for (i = 0; i < n; i++) qs[i].w = qs[i].w * qs[i].k * scale.w + scale.k;
#pragma omp parallel
  {
#pragma omp for
    for (int j = 0; j < n; j++) qs[j].k += 1;
#pragma omp for
    for (int j = 0; j < n; j++) qs[j].w -= qs[j].k;
  }
  for (i = 0; i < n; i++) s += qs[i].w + qs[i].k;
  printf("%.6f\n", s);
  free(qs);
  return 0;
}
"""

#: a typedef of an unnamed struct, of a pointer to it, of a scalar
TYPEDEF = HEAD + r"""
int main(void) {
  typedef double real;
  typedef struct { real x, y; int id; } vec, *vecp;
  int n = 30000, i;
  vecp v = malloc(n * sizeof(vec));
  real *len = malloc(n * sizeof(real));
  for (i = 0; i < n; i++) { v[i].x = i; v[i].y = n - i; v[i].id = i % 5; }
#pragma omp parallel for
  for (i = 0; i < n; i++) {
    vec t = v[i];
    t.x += t.id;
    len[i] = t.x * t.x + t.y * t.y;
  }
  real s = 0;
  for (i = 0; i < n; i++) s += len[i];
  printf("%.3f\n", s);
  return 0;
}
"""

#: a local union (the device lays its members over each other as the host does)
UNION = HEAD + r"""
int main(void) {
  union u { double d; long l; };
  int n = 25000, i;
  union u *us = malloc(n * sizeof(union u));
  long *bits = malloc(n * sizeof(long));
  for (i = 0; i < n; i++) us[i].d = i * 0.5 + 1.0;
#pragma omp parallel for
  for (i = 0; i < n; i++) bits[i] = us[i].l >> 52;
  long s = 0;
  for (i = 0; i < n; i++) s += bits[i];
  printf("%ld\n", s);
  return 0;
}
"""

#: a local enum: its type for an array, its enumerators in the loop and in a switch
ENUM = HEAD + r"""
int main(void) {
  enum color { RED, GREEN = 4, BLUE };
  int n = 20000, i;
  enum color *cs = malloc(n * sizeof(enum color));
  double *out = malloc(n * sizeof(double));
  for (i = 0; i < n; i++) cs[i] = i % 3 == 0 ? RED : i % 3 == 1 ? GREEN : BLUE;
#pragma omp parallel for
  for (i = 0; i < n; i++) {
    enum color c = cs[i];
    switch (c) {
    case RED: out[i] = 1.0; break;
    case GREEN: out[i] = 2.0 * i; break;
    default: out[i] = c == BLUE ? -1.0 : 0.0;
    }
  }
  double s = 0;
  for (i = 0; i < n; i++) s += out[i];
  printf("%.1f\n", s);
  return 0;
}
"""

#: a struct holding another local struct, one defined inside it, arrays of them
NESTED = HEAD + r"""
int main(void) {
  struct inner { int a; double b; };
  struct outer { struct inner in[2]; struct deep { float z; } d; double w; };
  int n = 15000, i;
  struct outer *os = malloc(n * sizeof(struct outer));
  for (i = 0; i < n; i++) {
    os[i].in[0].a = i; os[i].in[1].a = -i; os[i].in[0].b = 0.5; os[i].in[1].b = 1.5;
    os[i].d.z = 0.25f; os[i].w = 0;
  }
#pragma omp parallel for
  for (i = 0; i < n; i++) {
    struct deep d = os[i].d;
    os[i].w = os[i].in[0].a * os[i].in[0].b + os[i].in[1].a * os[i].in[1].b + d.z;
  }
  double s = 0;
  for (i = 0; i < n; i++) s += os[i].w;
  printf("%.3f\n", s);
  return 0;
}
"""

#: two functions, one tag, two types; main's hides the file-scope one
SAME_TAG = HEAD + r"""
struct q { int a; };
static double first(int n) {
  struct q { double w; int k; } *p = malloc(n * sizeof(struct q));
  double s = 0;
  int i;
  for (i = 0; i < n; i++) { p[i].w = i; p[i].k = 2; }
#pragma omp parallel for
  for (i = 0; i < n; i++) p[i].w *= p[i].k;
  for (i = 0; i < n; i++) s += p[i].w;
  free(p);
  return s;
}
static double second(int n) {
  struct q { char c; double d[3]; };
  struct q *p = malloc(n * sizeof(struct q));
  double s = 0;
  int i;
  for (i = 0; i < n; i++) { p[i].c = (char)(i % 100); p[i].d[0] = p[i].d[1] = p[i].d[2] = 1; }
#pragma omp parallel for
  for (i = 0; i < n; i++) p[i].d[i % 3] = p[i].c + 0.5;
  for (i = 0; i < n; i++) s += p[i].d[0] + p[i].d[1] + p[i].d[2];
  free(p);
  return s;
}
static long global_q(int n) {
  struct q *p = malloc(n * sizeof(struct q));
  long s = 0;
  int i;
  for (i = 0; i < n; i++) p[i].a = i;
#pragma omp parallel for
  for (i = 0; i < n; i++) p[i].a = 3 * p[i].a + 1;
  for (i = 0; i < n; i++) s += p[i].a;
  free(p);
  return s;
}
int main(void) {
  struct q { float f; short h; };
  int n = 20000, i;
  struct q *p = malloc(n * sizeof(struct q));
  for (i = 0; i < n; i++) { p[i].f = 0.5f * i; p[i].h = (short)(i % 9); }
#pragma omp parallel for
  for (i = 0; i < n; i++) p[i].f += p[i].h;
  double s = 0;
  for (i = 0; i < n; i++) s += p[i].f;
  printf("%.3f %.3f %.3f %ld\n", s, first(n), second(n), global_q(n));
  return 0;
}
"""

#: block scopes: a block's own struct (sized by an unnamed enum, which stays) hiding the
#: function's, a variable hiding an enumerator and another a file-scope typedef, a typedef of
#: a local struct holding a pointer (passed by value to the outlined code)
SCOPES = HEAD + r"""typedef int T;
int main(void) {
  int n = 5000, i;
  struct s { double *p; int n; } st;
  st.p = malloc(n * sizeof(double)); st.n = n;
  enum { K = 3 };
  enum e { RED = 1, BLUE = 7 };
  typedef struct s S;
  double acc = 0;
  {
    struct s { float f[K]; } *fs = malloc(n * sizeof(struct s));
    for (i = 0; i < n; i++) fs[i].f[0] = fs[i].f[1] = fs[i].f[2] = i;
#pragma omp parallel for
    for (i = 0; i < n; i++) fs[i].f[i % K] += BLUE;
    for (i = 0; i < n; i++) acc += fs[i].f[0] + fs[i].f[1] + fs[i].f[2];
  }
  {
    int RED = 2;   /* hides the enumerator */
    T T = 4;       /* hides the file-scope typedef */
#pragma omp parallel for
    for (i = 0; i < st.n; i++) st.p[i] = i * RED + T;
  }
  S cp = st;
#pragma omp parallel for reduction(+:acc)
  for (i = 0; i < n; i++) acc += cp.p[i] * RED;
  printf("%.1f\n", acc);
  return 0;
}
"""

#: a typedef of a variable-length array: its loop stays on the host
VLA = HEAD + r"""
void run(int n, int m) {
  typedef double row[m];
  row *a = malloc(n * sizeof(row));
  int i, j;
  for (i = 0; i < n; i++) for (j = 0; j < m; j++) a[i][j] = i + j;
#pragma omp parallel for private(j)
  for (i = 0; i < n; i++) for (j = 0; j < m; j++) a[i][j] *= 2;
  printf("%.1f\n", a[n - 1][m - 1]);
  free(a);
}
int main(void) { run(100, 7); return 0; }
"""

#: a packed struct: the parser drops the attribute, so no copy of it; its loop stays on the host
PACKED = HEAD + r"""
int main(void) {
  struct __attribute__((packed)) pk { char c; double d; };
  int n = 1000, i;
  struct pk *p = malloc(n * sizeof(struct pk));
  for (i = 0; i < n; i++) { p[i].c = (char)i; p[i].d = i; }
#pragma omp parallel for
  for (i = 0; i < n; i++) p[i].d += p[i].c;
  double s = 0;
  for (i = 0; i < n; i++) s += p[i].d;
  printf("%.1f %d\n", s, (int)sizeof(struct pk));
  return 0;
}
"""

OFFLOADED = [("struct.c", STRUCT, 1e-12, [1, 1, 1]), ("typedef.c", TYPEDEF, 1e-12, [1]),
             ("union.c", UNION, 0.0, [1]), ("enum.c", ENUM, 0.0, [1]),
             ("nested.c", NESTED, 1e-12, [1]), ("same_tag.c", SAME_TAG, 1e-9, [1, 1, 1, 1]),
             ("scopes.c", SCOPES, 1e-12, [1, 1, 1])]


@pytest.mark.parametrize("name,text,rtol,launched", OFFLOADED, ids=[o[0] for o in OFFLOADED])
def test_loops_using_local_types_run_on_the_device(tmp_path, name, text, rtol, launched):
    lines = report_lines(tmp_path, text, name)
    assert lines and all(" offloaded " in ln for ln in lines), lines
    ref, exe = build_both(tmp_path, text, name)
    every_path(ref, exe, rtol)
    assert kernels_launched(exe) in (None, launched)
    assert kernels_launched(exe, OMPCL_ZERO_COPY="1") in (None, launched)


def test_each_function_and_file_scope_keep_their_own_type(tmp_path):
    src = tmp_path / "same_tag.c"
    src.write_text(SAME_TAG)
    u = translate(str(src))
    kernel = u.kernel_source
    assert "struct ompcl_lt_first_q" in kernel and "struct ompcl_lt_second_q" in kernel
    assert "struct ompcl_lt_main_q" in kernel
    assert "struct q\n" in kernel  # global_q's loop: the file-scope type, as it is
    host = u.host_source
    for f in ("first", "second", "main"):  # copies before their functions, for the host
        assert f"struct __attribute__((may_alias)) ompcl_lt_{f}_q" in host
    assert "(void *)(p)" in host  # the user's pointers passed to the copies' types


@pytest.mark.parametrize("name,text,why", [
    ("vla.c", VLA, "its size is known only at run time"),
    ("packed.c", PACKED, "cannot copy its declaration"),
    ("pack.c", "#pragma pack(1)\n" + PACKED.replace("__attribute__((packed)) ", ""),
     "cannot copy its declaration")])
def test_types_that_cannot_move_keep_their_loops_on_the_host(tmp_path, name, text, why):
    (line,) = report_lines(tmp_path, text, name)
    assert " host " in line and "[local-type]" in line and why in line, line
    ref, exe = build_both(tmp_path, text, name)
    every_path(ref, exe, 0.0)


def _lifted(tmp_path, text: str):
    src = tmp_path / "p.c"
    src.write_text(text)
    prog = load_program(str(src))
    return lifted_program(prog.ast, source_lines(prog.path, prog.source))


def test_shared_specifiers_are_defined_once(tmp_path):
    """``typedef struct {...} T, *PT`` and ``struct s {...} a, *b``: one definition each,
    the other declarators naming it."""
    from ompcl.analysis.ctypes_ import C_PRINTER
    ast = _lifted(tmp_path, r"""
void f(int n, double *x) {
  typedef struct { double v; } T, *PT;
  struct s { int k; } a, *b;
  enum { A = 2 };
  struct r { double d[A]; };
#pragma omp parallel for
  for (int i = 0; i < n; i++) x[i] = i;
}
""")
    text = C_PRINTER.visit(ast)
    assert text.count("double v;") == 1 and text.count("int k;") == 1
    assert "ompcl_lt_f_T *ompcl_lt_f_PT" in text.replace("struct ", "")
    assert "struct ompcl_lt_f_s a" in text and "struct ompcl_lt_f_s *b" in text
    # sized by an enumerator of an unnamed enum (which stays): the copy holds its value
    assert "struct ompcl_lt_f_r" in text and "double d[2];" in text


def test_call_casts():
    from pycparser import c_parser
    decls = c_parser.CParser().parse(
        "struct ompcl_lt_f_q { int a; }; typedef double ompcl_lt_f_r;"
        "void g(struct ompcl_lt_f_q *p, struct ompcl_lt_f_q v, ompcl_lt_f_r r, int n);"
    ).ext[2].type.args.params
    p, v, r, n = decls
    assert call_cast(p, False, "p", pointer=True) == "(void *)(p)"
    assert call_cast(v, False, "v") == "*(struct ompcl_lt_f_q *)(void *)&v"
    assert call_cast(r, False, "r", arithmetic=True) == "r"
    assert call_cast(n, False, "n") == "n"
    assert call_cast(p, True, "x") == "(void *)(&x)"


#: the attribute behind a macro: the parser (and the preprocessed text it reads) never sees
#: it, so the copy is made; the compile-time check at the call finds the layouts differ
PACKED_BY_MACRO = PACKED.replace("int main(void) {\n  struct __attribute__((packed)) pk",
                                 "#define PACKED __attribute__((packed))\n"
                                 "int main(void) {\n  struct PACKED pk")


def test_a_copy_with_another_layout_fails_to_compile(tmp_path):
    src = tmp_path / "macro.c"
    src.write_text(PACKED_BY_MACRO)
    out = tmp_path / "out"
    res = subprocess.run([sys.executable, "-m", "ompcl.cli", "translate", str(src), "-o",
                          str(out)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    host = out / "macro_host.c"
    assert "ompcl_layout_" in host.read_text()
    cc = subprocess.run(["gcc", "-fopenmp", "-fsyntax-only", f"-I{out}", str(host)],
                        capture_output=True, text=True)
    assert cc.returncode != 0 and "ompcl_layout_" in cc.stderr, cc.stderr
    # the same check passes where the layouts agree (the copy of an unpacked struct)
    plain = tmp_path / "plain.c"
    plain.write_text(PACKED_BY_MACRO.replace("__attribute__((packed))", ""))
    res = subprocess.run([sys.executable, "-m", "ompcl.cli", "translate", str(plain), "-o",
                          str(out)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    cc = subprocess.run(["gcc", "-fopenmp", "-fsyntax-only", f"-I{out}",
                         str(out / "plain_host.c")], capture_output=True, text=True)
    assert cc.returncode == 0, cc.stderr
