"""Analysis: canonical loops, affine subscripts and per-region offloading verdicts."""
from __future__ import annotations

import re

import pytest
from pycparser import c_ast, c_parser

from ompcl.analysis.index import expr_symbol, form
from ompcl.analysis.ctypes_ import c_text
from ompcl.analysis.loops import NotCanonical, canonical_loop, loop_nest
from ompcl.codegen import names
from ompcl.diagnostics import SourceLoc
from ompcl.ir import Affine, Sym
from ompcl.pipeline import translate

_PARSER = c_parser.CParser()


def _for(header: str) -> c_ast.For:
    ast = _PARSER.parse("void f(int n, int m){ int i; int j; for (%s) ; }" % header)
    loop = ast.ext[0].body.block_items[-1]
    assert isinstance(loop, c_ast.For)
    return loop


# -- canonical_loop --------------------------------------------------------------------------

CANONICAL = [
    # header -> (var, lb, op, ub, step, declares_var)
    ("i = 0; i < n; i++", ("i", "0", "<", "n", "1", False)),
    ("i = 0; i <= n; ++i", ("i", "0", "<=", "n", "1", False)),
    ("i = n; i > 0; i--", ("i", "n", ">", "0", "-1", False)),
    ("i = n - 1; i >= 0; --i", ("i", "n - 1", ">=", "0", "-1", False)),
    ("i = 0; n > i; i++", ("i", "0", "<", "n", "1", False)),
    ("i = 0; n >= i; i++", ("i", "0", "<=", "n", "1", False)),
    ("i = n; 0 < i; i--", ("i", "n", ">", "0", "-1", False)),
    ("i = n; 0 <= i; i--", ("i", "n", ">=", "0", "-1", False)),
    ("i = 0; i < n; i += 2", ("i", "0", "<", "n", "2", False)),
    ("i = 1; i < n; i += m", ("i", "1", "<", "n", "m", False)),
    ("i = n; i > 0; i -= 3", ("i", "n", ">", "0", "-3", False)),
    ("i = n; i > 0; i += -1", ("i", "n", ">", "0", "-1", False)),
    ("i = 0; i < n; i = i + 2", ("i", "0", "<", "n", "2", False)),
    ("i = 0; i < n; i = 2 + i", ("i", "0", "<", "n", "2", False)),
    ("i = n; i >= 1; i = i - 1", ("i", "n", ">=", "1", "-1", False)),
    ("i = m; i < n * m; i++", ("i", "m", "<", "n * m", "1", False)),
    ("int k = 0; k < n; k++", ("k", "0", "<", "n", "1", True)),
]


@pytest.mark.parametrize("header,expected", CANONICAL, ids=[c[0] for c in CANONICAL])
def test_canonical_loops(header, expected):
    loop = _for(header)
    d = canonical_loop(loop)
    assert (d.var, c_text(d.lb), d.op, c_text(d.ub), c_text(d.step), d.declares_var) == expected
    assert d.loop is loop
    assert d.var_type == "int"


NOT_CANONICAL = [
    ("i = 1; i < n; i *= 2", "loop increment is not 'i++', 'i--', 'i += c' or 'i -= c'"),
    ("i = 0; i < n; i = i * 2", "loop increment is not"),
    ("i = 0; i < n; i = 1 - i", "loop increment is not"),
    ("i = 0; i < n; j++", "loop increment is not"),
    ("i = 0; j < n; i++", "loop test does not compare the loop variable 'i'"),
    ("i = 0; i != n; i += 2", "a loop test 'var != bound' needs a step of 1 or -1"),
    ("i = 0; i == n; i++", "loop test is not 'var < | <= | > | >= | != bound'"),
    ("i = 0; i < n && i < m; i++", "loop test is not"),
    ("; i < n; i++", "loop has an empty initialisation, test or increment"),
    ("i = 0; ; i++", "loop has an empty initialisation, test or increment"),
    ("i = 0; i < n; ", "loop has an empty initialisation, test or increment"),
    ("i = 0, j = 0; i < n; i++", "loop initialisation is not 'var = lb'"),
    ("i += 1; i < n; i++", "loop initialisation is not 'var = lb'"),
    ("i = 0; i < n; i--", "loop test and increment go in opposite directions"),
    ("i = n; i > 0; i++", "loop test and increment go in opposite directions"),
    ("i = 0; i < n; i -= 1", "loop test and increment go in opposite directions"),
    ("i = 0; i < n; i += -1", "loop test and increment go in opposite directions"),
    ("i = 0; i < n; i += 0", "loop step is zero"),
]


@pytest.mark.parametrize("header,fragment", NOT_CANONICAL, ids=[c[0] for c in NOT_CANONICAL])
def test_non_canonical_loops(header, fragment):
    with pytest.raises(NotCanonical) as ei:
        canonical_loop(_for(header))
    assert fragment in str(ei.value)


def test_not_equal_tests_with_unit_steps_run_as_less_or_greater():
    """OpenMP 5.0's 'var != bound' with a step of 1 or -1."""
    up = canonical_loop(_for("i = 0; i != n; i++"))
    down = canonical_loop(_for("i = n; 0 != i; i--"))
    assert (up.op, c_text(up.ub), down.op, c_text(down.ub)) == ("<", "n", ">", "0")


def test_double_negated_step_is_increasing():
    d = canonical_loop(_for("i = 0; i < n; i -= -1"))
    assert (d.var, d.op, c_text(d.ub)) == ("i", "<", "n")


def test_loop_nest_collapse():
    ast = _PARSER.parse("void f(int n){int i,j,k; for(i=0;i<n;i++){ for(j=0;j<n;j++) "
                        "for(k=0;k<n;k++) ; } }")
    outer = ast.ext[0].body.block_items[-1]
    nest = loop_nest(outer, 3)
    assert [canonical_loop(f).var for f in nest] == ["i", "j", "k"]
    ast = _PARSER.parse("void f(int n){int i,j; for(i=0;i<n;i++){ j = 0; for(j=0;j<n;j++) ; } }")
    with pytest.raises(NotCanonical, match=r"collapse\(2\) needs 2 perfectly nested loops"):
        loop_nest(ast.ext[0].body.block_items[-1], 2)


# -- index forms -----------------------------------------------------------------------------

def _expr(text: str) -> c_ast.Node:
    ast = _PARSER.parse("void f(int n, int i, int j, int *idx){ x = %s; }" % text)
    return ast.ext[0].body.block_items[0].rvalue


_LOOPS = {"i": Sym("dim", "i", 0), "j": Sym("dim", "j", 1)}


def _form(text: str, variant: frozenset[str] = frozenset()):
    def resolve(name):
        if name in _LOOPS:
            return Affine.of(_LOOPS[name])
        return None if name in variant else Affine.of(Sym("var", name, name))
    return form(_expr(text), resolve,
                lambda e: expr_symbol(e, lambda n: n not in _LOOPS and n not in variant))


def _projection(f):
    """{monomial names: coefficient}, constant."""
    return {tuple(s.name for s in m): c for m, c in f.terms}, f.const


AFFINE = [
    ("i", ({("i",): 1}, 0)),
    ("2*i+1", ({("i",): 2}, 1)),
    ("i*n+j", ({("i", "n"): 1, ("j",): 1}, 0)),
    ("n*(i+1)", ({("i", "n"): 1, ("n",): 1}, 0)),
    ("i - j", ({("i",): 1, ("j",): -1}, 0)),
    ("-i + 3", ({("i",): -1}, 3)),
    ("(long)i * 4", ({("i",): 4}, 0)),
    ("4*(i-1) - 2*(i-2)", ({("i",): 2}, 0)),
    ("0x10 + i", ({("i",): 1}, 16)),
    ("010 + i", ({("i",): 1}, 8)),
    ("3", ({}, 3)),
    ("n", ({("n",): 1}, 0)),
    ("n / 2 + i", ({("i",): 1, ("n / 2",): 1}, 0)),
    ("idx[i]", None),
    ("i*i", None),
    ("i*j", None),
    ("i/2", ({("i / 2",): 1}, 0)),  # a 'div' symbol, ranged by i's range
    ("i % n", None),
    ("(i+1)*(j+1)", None),
    ("i + idx[0]", None),
    ("(int)(0.5 * i)", None),
]


@pytest.mark.parametrize("text,expected", AFFINE, ids=[a[0] for a in AFFINE])
def test_index_forms(text, expected):
    f = _form(text)
    assert (None if f is None else _projection(f)) == expected


def test_index_form_rejects_variant_symbols():
    assert _form("i + n", frozenset({"n"})) is None
    f = _form("i + n")
    assert f.coef(_LOOPS["i"]) == Affine.constant(1) and f.coef(_LOOPS["j"]) == Affine()


# -- region verdicts through the pipeline ----------------------------------------------------

HDR = "#include <stdio.h>\n#include <stdlib.h>\n#include <omp.h>\n"

REGIONS = [
    # (id, program, offload, reason fragment)
    ("shared_scalar_write", "double a[100]; double s;\nvoid f(int n){ int i;\n"
     "#pragma omp parallel for\nfor(i=0;i<n;i++) s = s + a[i];\n}\n",
     False, "shared variable 's' is written in the loop"),
    ("printf", "double a[100];\nvoid f(int n){ int i;\n#pragma omp parallel for\n"
     "for(i=0;i<n;i++) printf(\"%f\\n\", a[i]);\n}\n",
     False, "calls 'printf', which has no OpenCL device version"),
    ("malloc", "double a[100];\nvoid f(int n){ int i;\n#pragma omp parallel for\n"
     "for(i=0;i<n;i++) { double *p = malloc(8); a[i] = 0; free(p); }\n}\n",
     False, "calls 'malloc'"),
    ("critical", "double a[100]; double s;\nvoid f(int n){ int i;\n#pragma omp parallel for\n"
     "for(i=0;i<n;i++) {\n#pragma omp critical\n  s += a[i];\n}\n}\n",
     False, "contains '#pragma omp critical' (line 8)"),
    ("atomic", "double a[100]; double s;\nvoid f(int n){ int i;\n#pragma omp parallel for\n"
     "for(i=0;i<n;i++) {\n#pragma omp atomic\n  s += a[i];\n}\n}\n",
     True, None),
    ("atomic_capture", "double a[100]; double s;\nvoid f(int n){ int i; double v;\n"
     "#pragma omp parallel for private(v)\nfor(i=0;i<n;i++) {\n#pragma omp atomic capture\n"
     "  v = s += a[i];\n a[i] = v; }\n}\n",
     True, None),
    ("atomic_compare", "double a[100]; double s;\nvoid f(int n){ int i; double v;\n"
     "#pragma omp parallel for private(v)\nfor(i=0;i<n;i++) {\n"
     "#pragma omp atomic compare capture\n"
     "  { v = s; if (s < a[i]) s = a[i]; }\n a[i] = v; }\n}\n",
     False, "contains '#pragma omp atomic compare'"),
    ("omp_get_thread_num", "int a[100];\nvoid f(int n){ int i;\n#pragma omp parallel for\n"
     "for(i=0;i<n;i++) a[i] = omp_get_thread_num();\n}\n",
     False, "calls the OpenMP runtime function 'omp_get_thread_num'"),
    # a plain pointer: its extent is the block it points into, found at run time (issue 37)
    ("indirect_store", "void f(int n, double *a, int *idx){ int i;\n#pragma omp parallel for\n"
     "for(i=0;i<n;i++) a[idx[i]] = 1.0;\n}\n",
     True, None),
    ("indirect_store_rows", "void f(int n, double (*a)[8], int *idx){ int i;\n"
     "#pragma omp parallel for\nfor(i=0;i<n;i++) a[idx[i]][0] = 1.0;\n}\n",
     True, None),  # the object a points into, found at entry (block_extent)
    ("struct_member_write", "struct P { double x; };\nstruct P p[100];\nvoid f(int n){ int i;\n"
     "#pragma omp parallel for\nfor(i=0;i<n;i++) p[i].x = 1.0;\n}\n",
     True, None),
    ("struct_member_read", "struct P { double x; };\nstruct P p[100]; double a[100];\n"
     "void f(int n){ int i;\n#pragma omp parallel for\nfor(i=0;i<n;i++) a[i] = p[i].x;\n}\n",
     True, None),
    ("struct_through_pointer", "struct P { double x; };\nstruct P *p; double a[100];\n"
     "void f(int n){ int i;\n#pragma omp parallel for\nfor(i=0;i<n;i++) a[i] = (p+i)->x;\n}\n",
     False, "through a pointer"),
    ("function_pointer_deref", "double a[100];\nvoid f(int n, double (*g)(double)){ int i;\n"
     "#pragma omp parallel for\nfor(i=0;i<n;i++) a[i] = (*g)(a[i]);\n}\n",
     False, "calls through function pointer '*g'"),
    ("function_pointer_call", "double a[100];\nvoid f(int n, double (*g)(double)){ int i;\n"
     "#pragma omp parallel for\nfor(i=0;i<n;i++) a[i] = g(a[i]);\n}\n",
     False, "calls 'g'"),
    ("ordered", "double a[100];\nvoid f(int n){ int i;\n#pragma omp parallel for ordered\n"
     "for(i=0;i<n;i++) {\n#pragma omp ordered\n  a[i] = 1;\n}\n}\n",
     False, "the loop has an 'ordered' clause"),
    ("collapse4", "double a[4][4][4][4];\nvoid f(void){ int i,j,k,l;\n"
     "#pragma omp parallel for collapse(4)\nfor(i=0;i<4;i++) for(j=0;j<4;j++) for(k=0;k<4;k++) "
     "for(l=0;l<4;l++) a[i][j][k][l]=0;\n}\n",
     False, "collapse(4) has more than 3 loops"),
    ("non_canonical", "double a[100];\nvoid f(int n){ int i;\n#pragma omp parallel for\n"
     "for(i=1;i<n;i*=2) a[i]=0;\n}\n",
     False, "loop increment is not 'i++'"),
    ("bound_written", "double a[100];\nvoid f(int n){ int i;\n#pragma omp parallel for\n"
     "for(i=0;i<n;i++) { a[i]=0; n = 3; }\n}\n",
     False, "bound 'n' of loop 'i' is not loop-invariant"),
    ("float_loop_var", "double a[100];\nvoid f(int n){ double x;\n#pragma omp parallel for\n"
     "for(x=0;x<n;x++) a[0]=0;\n}\n",
     False, "loop variable 'x' is not of integer type"),
    # each thread reads its own copy (the device would read the team thread's for all)
    ("threadprivate", "double a[100]; int tp;\n#pragma omp threadprivate(tp)\n"
     "void f(int n){ int i;\n#pragma omp parallel for\nfor(i=0;i<n;i++) a[i]=tp;\n}\n",
     False, "reads threadprivate 'tp', whose copy differs from thread to thread"),
    ("threadprivate_carried", "double a[100]; int tp;\n#pragma omp threadprivate(tp)\n"
     "void f(int n){ int i;\n#pragma omp parallel for\nfor(i=0;i<n;i++) { tp += i; a[i]=tp; }\n}\n",
     False, "'tp' is private to each thread and carries a value between iterations"),
    ("threadprivate_array_carried", "double a[100]; long pos[8];\n#pragma omp threadprivate(pos)\n"
     "void f(int n){ int i;\n#pragma omp parallel for\n"
     "for(i=0;i<n;i++) a[pos[i % 8]++] = i;\n}\n",
     False, "'pos' is private to each thread and an iteration may read what an earlier one"),
    ("threadprivate_array_partly_set", "double a[100]; double w[8];\n#pragma omp threadprivate(w)\n"
     "void f(int n){ int i, q;\n#pragma omp parallel for private(q)\n"
     "for(i=0;i<n;i++) { for(q=0;q<4;q++) w[q]=i; a[i]=w[7]; }\n}\n",
     False, "'w' is private to each thread and an iteration may read what an earlier one"),
    ("threadprivate_array_scratch", "double a[100]; double w[2][4];\n#pragma omp threadprivate(w)\n"
     "void f(int n){ int i;\n#pragma omp parallel for\n"
     "for(i=0;i<n;i++) { w[0][i % 4] = 1; for(int p=0;p<2;p++) for(int q=0;q<=3;q++) "
     "w[p][q]=i*q; a[i]=w[1][3] + w[0][1]; }\n}\n",
     True, None),
    ("bitwise_reduction_on_double", "double a[100];\ndouble f(int n){ int i; double s = 0;\n"
     "#pragma omp parallel for reduction(^:s)\nfor(i=0;i<n;i++) s += a[i];\nreturn s;}\n",
     False, "bitwise reduction on floating-point 's'"),
    ("not_a_for", "double a[100];\nvoid f(int n){ int i;\n#pragma omp parallel for\n"
     "{ for(i=0;i<n;i++) a[i]=0; }\n}\n",
     None, None),  # no region at all; see test_remarks_without_regions
    ("pointer_affine", "void f(int n, double *a, double *b){ int i;\n#pragma omp parallel for\n"
     "for(i=1;i<n;i++) a[2*i+1] = b[i-1];\n}\n",
     True, None),
    ("static_2d", "double a[10][20];\nvoid f(void){ int i,j;\n#pragma omp parallel for private(j)\n"
     "for(i=0;i<10;i++) for(j=0;j<20;j++) a[i][j]=i+j;\n}\n",
     True, None),
    ("triangular_collapse", "double a[50][50];\nvoid f(int n){ int i,j,k;\n"
     "#pragma omp parallel for collapse(3)\nfor(i=0;i<n;i++) for(j=0;j<n;j++) "
     "for(k=j;k<n;k++) a[j][k]=i;\n}\n",
     True, None),
    ("triangular_lastprivate", "double a[50][50], x;\nvoid f(int n){ int i,j;\n"
     "#pragma omp parallel for collapse(2) lastprivate(x)\nfor(i=0;i<n;i++) for(j=i;j<n;j++) "
     "x=a[i][j];\n}\n",
     False, "bound 'i' of loop 'j' is not loop-invariant"),
    ("reduction_max", "double a[100];\ndouble f(int n){ int i; double x = 0;\n"
     "#pragma omp parallel for reduction(max:x)\nfor(i=0;i<n;i++) x = x > a[i] ? x : a[i];\n"
     "return x;}\n",
     True, None),
    ("lastprivate", "double a[100];\nint f(int n){ int i; int k = 0;\n"
     "#pragma omp parallel for lastprivate(k)\nfor(i=0;i<n;i++) { k = i; a[i] = k; }\nreturn k;}\n",
     True, None),
    ("private_array", "double a[100];\nvoid f(int n){ int i; double t[4];\n"
     "#pragma omp parallel for private(t)\nfor(i=0;i<n;i++) { t[0] = i; a[i] = t[0]; }\n}\n",
     True, None),
    ("user_function", "double a[100];\ndouble sq(double x, int k){ return x*x + k; }\n"
     "void f(int n){ int i;\n#pragma omp parallel for\nfor(i=0;i<n;i++) a[i] = sq(a[i], i);\n}\n",
     True, None),
    ("recursive_function", "double a[100];\nint fib(int k){ int r; if (k < 2) r = k; "
     "else r = fib(k-1) + fib(k-2); return r; }\nvoid f(int n){ int i;\n"
     "#pragma omp parallel for\nfor(i=0;i<n;i++) a[i] = fib(i);\n}\n",
     False, "function 'fib' is recursive"),
    ("function_uses_global", "double a[100]; double scale;\n"
     "double g(double x){ double r; r = x*scale; return r; }\nvoid f(int n){ int i;\n"
     "#pragma omp parallel for\nfor(i=0;i<n;i++) a[i] = g(a[i]);\n}\n",
     True, None),
    ("function_writes_global", "double a[100]; double scale;\n"
     "double g(double x){ scale = x; return x; }\nvoid f(int n){ int i;\n"
     "#pragma omp parallel for\nfor(i=0;i<n;i++) a[i] = g(a[i]);\n}\n",
     False, "function 'g' writes global variable 'scale'"),
    ("parallel_with_single_for", "double a[100];\nvoid f(int n){ int i;\n#pragma omp parallel\n{\n"
     "#pragma omp for\nfor(i=0;i<n;i++) a[i]=0;\n}\n}\n",
     True, None),
    ("loop_from_macro", "#define LOOP for(i=0;i<n;i++) a[i]=0;\ndouble a[100];\n"
     "void f(int n){ int i;\n#pragma omp parallel for\nLOOP\n}\n",
     False, "the loop comes from a macro expansion"),
]
REGIONS = [r for r in REGIONS if r[2] is not None]
#: the stable id of the reason each host-only case must report
REASON_IDS = {
    'shared_scalar_write': 'shared-write',
    'printf': 'host-only-call',
    'malloc': 'host-only-call',
    'critical': 'omp-construct',
    'atomic_compare': 'omp-construct',
    'omp_get_thread_num': 'omp-runtime-call',
    'struct_through_pointer': 'struct-member',
    'function_pointer_deref': 'function-pointer',
    'function_pointer_call': 'host-only-call',
    'ordered': 'ordered',
    'collapse4': 'collapse-depth',
    'non_canonical': 'not-canonical',
    'bound_written': 'bound-variant',
    'triangular_lastprivate': 'bound-variant',
    'float_loop_var': 'loop-var-type',
    'threadprivate': 'thread-dependent',
    'threadprivate_carried': 'thread-private',
    'threadprivate_array_carried': 'thread-private',
    'threadprivate_array_partly_set': 'thread-private',
    'bitwise_reduction_on_double': 'clause-type',
    'recursive_function': 'recursion',
    'function_writes_global': 'callee-global',
    'loop_from_macro': 'macro-expansion'}



def _translate(tmp_path, name: str, src: str):
    path = tmp_path / f"{name}.c"
    text = HDR + src
    path.write_text(text)
    return str(path), text, translate(str(path))


def _pragma_line(text: str, after: int = 0) -> int:
    lines = text.splitlines()
    return next(k + 1 for k, l in enumerate(lines) if k >= after and l.startswith("#pragma omp par"))


def _check_remarks(t, path: str, text: str) -> None:
    nlines = len(text.splitlines())
    for m in t.remarks:
        assert m.loc.file == path and 1 <= m.loc.line <= nlines and m.loc.col >= 1
        assert re.match(rf"^{re.escape(path)}:\d+:\d+: (remark|warning): ", m.format())


@pytest.mark.parametrize("name,src,offload,fragment", REGIONS, ids=[r[0] for r in REGIONS])
def test_region_verdicts(tmp_path, name, src, offload, fragment):
    path, text, t = _translate(tmp_path, name, src)
    assert len(t.regions) == 1
    r = t.regions[0]
    assert r.offload is offload, r.reasons
    assert r.loc == SourceLoc(path, _pragma_line(text), 1)
    if fragment is not None:
        assert any(fragment in why.message for why in r.reasons), r.reasons
        assert REASON_IDS[name] in {why.id for why in r.reasons}, r.reasons
    _check_remarks(t, path, text)
    # the verdict is also a remark at the directive (beside those of the kernel's variants)
    msgs = [m.message for m in t.remarks if m.loc == r.loc
            and not m.id.startswith("dynreorder")]
    if offload:
        assert msgs == [f"loop offloaded to OpenCL as kernel 'ompcl_k0' ({len(r.loops)}-D range, "
                        f"{len(r.arrays)} buffers)"]
        assert "ompcl_k0" in t.kernel_source
    else:
        assert msgs == ["loop not offloaded: " + "; ".join(x.message for x in r.reasons)]
        assert [m.id for m in t.remarks if m.loc == r.loc] == [r.reasons[0].id]
        assert "ompcl_k0" not in t.kernel_source


def _one(tmp_path, name):
    src = dict((r[0], r[1]) for r in REGIONS)[name]
    return _translate(tmp_path, name, src)[2].regions[0]


def test_pointer_extents(tmp_path):
    r = _one(tmp_path, "pointer_affine")
    arrays = {a.name: a for a in r.arrays}
    assert sorted(arrays) == ["a", "b"]
    assert (arrays["a"].mode, arrays["b"].mode) == ("w", "r")
    lo, hi = names.extent(arrays["a"].extent, ())
    # a[2*i+1]: lower bound 2*min(i)+1, upper bound 2*max(i)+1
    assert lo.startswith("(long)(2)*(ompcl_lmin(ompcl_lb[0]") and lo.endswith("+ (long)(1)")
    assert hi.startswith("(long)(2)*(ompcl_lmax(ompcl_lb[0]") and hi.endswith("+ (long)(1)")
    assert names.extent(arrays["b"].extent, ())[0].endswith("+ (long)(-1)")


def test_static_array_whole(tmp_path):
    r = _one(tmp_path, "static_2d")
    assert [(a.name, a.mode, a.extent, a.var.ctype.dims) for a in r.arrays] == [
        ("a", "w", None, ("10", "20"))]
    assert [v.name for v in r.privates] == ["j"]
    assert [(d.var, d.op) for d in r.loops] == [("i", "<")]


def test_triangular_collapse_distributes_the_outer_loops(tmp_path):
    """collapse(3) whose third loop starts at the second's variable: the device distributes
    (i, j), each work-item runs k's loop; k, declared outside, is private by the construct."""
    r = _one(tmp_path, "triangular_collapse")
    assert [d.var for d in r.loops] == ["i", "j"]
    assert [v.name for v in r.privates] == ["k"]


@pytest.mark.parametrize("name,check", [
    ("reduction_max", lambda r: [(x.name, x.op, x.ctype) for x in r.reductions]
     == [("x", "max", "double")]),
    ("lastprivate", lambda r: [v.name for v in r.lastprivates] == ["k"]),
    ("private_array", lambda r: [(v.name, v.ctype.dims) for v in r.privates] == [("t", ("4",))]),
    ("user_function", lambda r: r.functions == ("sq",)),
])
def test_offloaded_region_details(tmp_path, name, check):
    assert check(_one(tmp_path, name))


def test_minus_reduction_combines_as_plus(tmp_path):
    src = ("double a[100];\ndouble f(int n){ int i; double s = 0;\n"
           "#pragma omp parallel for reduction(-:s)\nfor(i=0;i<n;i++) s -= a[i];\nreturn s;}\n")
    r = _translate(tmp_path, "minus", src)[2].regions[0]
    assert r.offload and [(x.name, x.op) for x in r.reductions] == [("s", "+")]


# Helper functions whose only statement is 'return <expr>': the return expression is not
# scanned, so calls and globals in it are missed.
RETURN_ONLY = [
    ("recursive_in_return", "double a[100];\nint fib(int k){ return k < 2 ? k : fib(k-1) + fib(k-2); }\n"
     "void f(int n){ int i;\n#pragma omp parallel for\nfor(i=0;i<n;i++) a[i] = fib(i);\n}\n",
     "function 'fib' is recursive"),
    ("global_in_return", "double a[100]; double last;\ndouble g(double x){ return last = x; }\n"
     "void f(int n){ int i;\n#pragma omp parallel for\nfor(i=0;i<n;i++) a[i] = g(a[i]);\n}\n",
     "function 'g' writes global variable 'last'"),
    ("printf_in_return", "double a[100];\nint g(double x){ return printf(\"%f\", x); }\n"
     "void f(int n){ int i;\n#pragma omp parallel for\nfor(i=0;i<n;i++) a[i] = g(a[i]);\n}\n",
     "function 'g'"),
]


@pytest.mark.parametrize("name,src,fragment", RETURN_ONLY, ids=[r[0] for r in RETURN_ONLY])
def test_callee_return_expression_is_analysed(tmp_path, name, src, fragment):
    r = _translate(tmp_path, name, src)[2].regions[0]
    assert not r.offload
    assert any(fragment in why.message for why in r.reasons), r.reasons


# -- remarks for loops that are not candidates ------------------------------------------------

REMARK_ONLY = [
    ("nested_parallel_for", "double a[100][100];\nvoid f(int n){ int i,j;\n"
     "#pragma omp parallel for private(j)\nfor(i=0;i<n;i++) {\n"
     "  #pragma omp parallel for\n  for(j=0;j<n;j++) a[i][j]=0;\n}\n}\n",
     [(6, 1, False, "contains '#pragma omp parallel' (line 8)")],
     [(8, 3, "loop not offloaded: nested inside another parallel region")]),
    ("omp_for_in_region", "double a[100];\nvoid f(int n){ int i;\n#pragma omp parallel\n{\n"
     "  a[0] = 1;\n  #pragma omp for\n  for(i=0;i<n;i++) a[i]=0;\n}\n}\n",
     [(9, 3, True, "")],
     [(9, 3, "loop offloaded to OpenCL as kernel 'ompcl_k0'"),
      (6, 1, "parallel region runs as a team of one on the device path")]),
    ("orphaned_for", "double a[100];\nvoid f(int n){ int i;\n#pragma omp for\n"
     "for(i=0;i<n;i++) a[i]=0;\n}\n",
     [(6, 1, True, "")],
     [(6, 1, "loop offloaded to OpenCL as kernel 'ompcl_k0'")]),
    ("region_loop_on_host", "double a[100];\nvoid f(int n){ int i;\n#pragma omp parallel\n{\n"
     "  a[0] = 1;\n  #pragma omp for\n  for(i=0;i<n;i++) printf(\"%d\", i);\n}\n}\n",
     [(9, 3, False, "calls 'printf'")],
     [(6, 1, "parallel region not run on the device: its loop at line 9 stays on the host")]),
    ("thread_pointer_scratch", "double a[100];\nvoid work(double *w, int n){ int i;\n"
     "#pragma omp for\n  for(i=0;i<n;i++) { w[0] = i; a[i] = w[0] * 2; }\n}\n"
     "void f(int n){\n#pragma omp parallel\n{ double w[2]; work(w, n); }\n}\n",
     [(6, 1, False, "'w' is each thread's pointer and the loop writes through it")],
     []),
    ("threadprivate_scratch_twice", "double a[100], w[4];\n#pragma omp threadprivate(w)\n"
     "void f(int n){ int i, q;\n#pragma omp parallel for private(q)\n"
     "for(i=0;i<n;i++) { for(q=0;q<4;q++) w[q]=i; a[i]=w[3]; }\n"
     "#pragma omp parallel for private(q)\n"
     "for(i=0;i<n;i++) { for(q=0;q<4;q++) w[q]=a[i]; a[i]+=w[2]; }\n}\n",
     [(7, 1, True, ""), (9, 1, True, "")],
     []),
    ("region_one_loop_on_host", "double a[100], b[100];\nvoid f(int n){ int i;\n"
     "#pragma omp parallel\n{\n  #pragma omp for\n  for(i=0;i<n;i++) a[i]=i;\n"
     "  double *mine = b + 8;\n"
     "  #pragma omp for ordered\n  for(i=0;i<n;i++) mine[i % 8] = a[i];\n}\n}\n",
     [(8, 3, True, ""), (11, 3, False, "'ordered'")],
     [(6, 1, "parallel region runs as a team of one on the device path (1 work-sharing loops "
       "offloaded, 1 stays on the host as a parallel loop of its own")]),
    ("region_asks_its_team", "double a[100], b[100];\nvoid f(int n){ int i;\n"
     "#pragma omp parallel\n{\n  #pragma omp for\n  for(i=0;i<n;i++) a[i]=i;\n"
     "  double *mine = b + 8 * omp_get_thread_num();\n"
     "  #pragma omp for\n  for(i=0;i<n;i++) mine[i % 8] += a[i];\n}\n}\n",
     [(8, 3, False, "calls 'omp_get_thread_num', whose answer differs in a team of one"),
      (11, 3, False, "'mine' depends on the thread number")],
     [(6, 1, "parallel region not run on the device: the parallel region calls "
       "'omp_get_thread_num'")]),
    ("thread_private_carried", "double a[100];\nvoid f(int n){ int i; double t;\n"
     "#pragma omp parallel private(t)\n{\n  t = 0;\n  #pragma omp for\n"
     "  for(i=0;i<n;i++) { t += a[i]; a[i] = t; }\n}\n}\n",
     [(9, 3, False, "'t' is private to each thread and carries a value between iterations")],
     []),
    ("thread_dependent", "double a[100];\nvoid f(int n){ int i; int id;\n"
     "#pragma omp parallel private(id)\n{\n  id = omp_get_thread_num();\n  #pragma omp for\n"
     "  for(i=0;i<n;i++) a[i] = id;\n}\n}\n",
     [(9, 3, False, "'id' depends on the thread number or team size")],
     []),
    ("team_of_callee_loops", "double a[100];\nvoid g(int n){ int i;\n#pragma omp for\n"
     "for(i=0;i<n;i++) a[i]=0;\n}\nvoid f(int n){\n#pragma omp parallel\n{ g(n); }\n}\n",
     [(6, 1, True, "")],
     [(10, 1, "parallel region runs as a team of one on the device path (its work-sharing "
       "loops are in the functions it calls)")]),
]


@pytest.mark.parametrize("name,src,regions,remarks", REMARK_ONLY, ids=[r[0] for r in REMARK_ONLY])
def test_remarks(tmp_path, name, src, regions, remarks):
    path, text, t = _translate(tmp_path, name, src)
    assert [(r.loc.line, r.loc.col, r.offload) for r in t.regions] == [x[:3] for x in regions]
    for r, (_, _, offload, frag) in zip(t.regions, regions):
        assert offload or any(frag in why.message for why in r.reasons), r.reasons
    _check_remarks(t, path, text)
    for line, col, frag in remarks:
        assert any(m.loc == SourceLoc(path, line, col) and m.message.startswith(frag)
                   for m in t.remarks), [m.format() for m in t.remarks]


def test_macro_loop_remark_points_at_directive(tmp_path):
    path, text, t = _translate(tmp_path, "macro", dict((r[0], r[1]) for r in REGIONS)["loop_from_macro"])
    line = _pragma_line(text)
    assert [m.format() for m in t.remarks] == [
        f"{path}:{line}:1: remark: loop not offloaded: cannot find the loop's extent in the "
        "source text (the loop comes from a macro expansion) [macro-expansion]"]
    # the user's text is kept: the host file still has the macro use and no kernel launch
    assert "LOOP" in t.host_source and "ompcl_k0" not in t.host_source


def test_regions_in_source_order_with_ids(tmp_path):
    src = ("double a[100]; double s;\nvoid f(int n){ int i;\n#pragma omp parallel for\n"
           "for(i=0;i<n;i++) a[i]=i;\n#pragma omp parallel for\nfor(i=0;i<n;i++) s = a[i];\n"
           "#pragma omp parallel for\nfor(i=0;i<n;i++) a[i]*=2;\n}\n")
    path, text, t = _translate(tmp_path, "three", src)
    assert [(r.id, r.loc.line, r.offload) for r in t.regions] == [
        (0, 6, True), (1, 8, False), (2, 10, True)]
    assert [r.id for r in t.offloaded] == [0, 2]
    assert [m.loc.line for m in t.remarks] == [6, 8, 10]


def test_ir_kinds_are_named_once_and_checked():
    from ompcl.ir import CType, Storage, SymKind, Var
    assert Sym(SymKind.DIM, "i", 0) == Sym("dim", "i", 0)   # the constants are the strings
    assert Sym(SymKind.MOD, "i % 2", "i % 2").is_loop and not Sym(SymKind.LAST, "i", 0).is_loop
    with pytest.raises(ValueError, match="symbol kind 'loop'"):
        Sym("loop", "i", 0)
    with pytest.raises(ValueError, match="storage 'heap'"):
        Var("a", CType("double"), "heap")
    assert Var("a", CType("double"), Storage.PARAM).storage == "param"
