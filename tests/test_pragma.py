"""OpenMP directive grammar (ompcl.frontend.pragma) and directive binding in the front end."""
from __future__ import annotations

import pytest
from pycparser import c_ast

from ompcl.diagnostics import OmpclError, PragmaSyntaxError, SourceLoc
from ompcl.frontend.pragma import parse_directive
from ompcl.frontend.program import load_program

LINE = 7


def parse_line(line: str, file: str = "t.c"):
    """Parse a user's pragma line the way the binder does: loc at '#', text after 'pragma'."""
    text = line[line.index("pragma") + len("pragma"):]
    return parse_directive(text, SourceLoc(file, LINE, line.index("#") + 1), line)


def proj(d):
    return d.kind, [(c.name, c.args, c.op) for c in d.clauses]


# -- accepted directives ---------------------------------------------------------------------

VALID = [
    ("#pragma omp parallel", ("parallel", [])),
    ("#pragma omp for", ("for", [])),
    ("#pragma omp parallel for", ("parallel for", [])),
    ("#pragma omp sections", ("sections", [])),
    ("#pragma omp section", ("section", [])),
    ("#pragma omp single", ("single", [])),
    ("#pragma omp master", ("master", [])),
    ("#pragma omp critical", ("critical", [])),
    ("#pragma omp critical(lock)", ("critical", [("critical", ("lock",), None)])),
    ("#pragma omp barrier", ("barrier", [])),
    ("#pragma omp taskwait", ("taskwait", [])),
    ("#pragma omp atomic", ("atomic", [])),
    ("#pragma omp atomic read", ("atomic", [("read", (), None)])),
    ("#pragma omp atomic write", ("atomic", [("write", (), None)])),
    ("#pragma omp atomic update", ("atomic", [("update", (), None)])),
    ("#pragma omp atomic capture", ("atomic", [("capture", (), None)])),
    ("#pragma omp flush", ("flush", [])),
    ("#pragma omp flush(a, b)", ("flush", [("flush", ("a", "b"), None)])),
    ("#pragma omp ordered", ("ordered", [])),
    ("#pragma omp task", ("task", [])),
    ("#pragma omp task if(n > 1) untied firstprivate(x) shared(y) default(shared)",
     ("task", [("if", ("n > 1",), None), ("untied", (), None), ("firstprivate", ("x",), None),
               ("shared", ("y",), None), ("default", ("shared",), None)])),
    ("#pragma omp threadprivate(x, y)", ("threadprivate", [("threadprivate", ("x", "y"), None)])),
    # data-sharing clauses, multi-variable lists
    ("#pragma omp parallel for private(a, b, c) firstprivate(d) lastprivate(e,f) shared(g)",
     ("parallel for", [("private", ("a", "b", "c"), None), ("firstprivate", ("d",), None),
                       ("lastprivate", ("e", "f"), None), ("shared", ("g",), None)])),
    ("#pragma omp parallel default(none) shared(a)",
     ("parallel", [("default", ("none",), None), ("shared", ("a",), None)])),
    ("#pragma omp parallel for default(shared)",
     ("parallel for", [("default", ("shared",), None)])),
    # reductions: every operator
    *[(f"#pragma omp parallel for reduction({op}:s, t)",
       ("parallel for", [("reduction", ("s", "t"), op)]))
      for op in ("+", "-", "*", "&", "|", "^", "&&", "||", "max", "min")],
    # schedules, with and without chunk
    *[(f"#pragma omp for schedule({k})", ("for", [("schedule", (k,), None)]))
      for k in ("static", "dynamic", "guided", "auto", "runtime")],
    ("#pragma omp for schedule(static, 16)", ("for", [("schedule", ("static", "16"), None)])),
    ("#pragma omp for schedule(dynamic,n/4)", ("for", [("schedule", ("dynamic", "n/4"), None)])),
    ("#pragma omp parallel for schedule(guided, (n + 1) * 2)",
     ("parallel for", [("schedule", ("guided", "(n + 1) * 2"), None)])),
    # collapse / nowait / ordered / num_threads / if / copyin / copyprivate
    ("#pragma omp parallel for collapse(2)", ("parallel for", [("collapse", ("2",), None)])),
    ("#pragma omp for collapse(3) nowait",
     ("for", [("collapse", ("3",), None), ("nowait", (), None)])),
    ("#pragma omp for ordered schedule(static)",
     ("for", [("ordered", (), None), ("schedule", ("static",), None)])),
    ("#pragma omp parallel num_threads(4) if(n > 100)",
     ("parallel", [("num_threads", ("4",), None), ("if", ("n > 100",), None)])),
    ("#pragma omp parallel for num_threads(nt*2) if(use_par)",
     ("parallel for", [("num_threads", ("nt*2",), None), ("if", ("use_par",), None)])),
    ("#pragma omp parallel copyin(tp, tq)", ("parallel", [("copyin", ("tp", "tq"), None)])),
    ("#pragma omp single copyprivate(x) nowait",
     ("single", [("copyprivate", ("x",), None), ("nowait", (), None)])),
    ("#pragma omp sections private(a) reduction(+:s) nowait",
     ("sections", [("private", ("a",), None), ("reduction", ("s",), "+"), ("nowait", (), None)])),
    ("#pragma omp parallel sections lastprivate(k)",
     ("parallel sections", [("lastprivate", ("k",), None)])),
    # OpenMP 4.x/5.x: memory orders and atomic clauses in any order, clause modifiers,
    # clauses kept as written, constructs ompcl leaves to OpenMP
    ("#pragma omp atomic read seq_cst", ("atomic", [("read", (), None), ("seq_cst", (), None)])),
    ("#pragma omp atomic hint(1) acq_rel, capture",
     ("atomic", [("hint", ("1",), None), ("acq_rel", (), None), ("capture", (), None)])),
    ("#pragma omp parallel for if(parallel: n > 1) linear(j:2) proc_bind(spread)",
     ("parallel for", [("if", ("n > 1",), None), ("linear", ("j:2",), None),
                       ("proc_bind", ("spread",), None)])),
    ("#pragma omp for lastprivate(conditional: x) schedule(nonmonotonic: dynamic, 4)",
     ("for", [("lastprivate", ("x",), None), ("schedule", ("dynamic", "4"), None)])),
    ("#pragma omp simd aligned(a, b: 64) nontemporal(a) order(concurrent) safelen(8)",
     ("simd", [("aligned", ("a, b: 64",), None), ("nontemporal", ("a",), None),
               ("order", ("concurrent",), None), ("safelen", ("8",), None)])),
    ("#pragma omp for reduction(inscan, +: s)", ("for", [("reduction", ("s",), "+")])),
    ("#pragma omp target teams distribute parallel for map(tofrom: a[0:n]) num_teams(4)",
     ("target teams distribute parallel for", [("map", ("tofrom: a[0:n]",), None),
                                               ("num_teams", ("4",), None)])),
    ("#pragma omp taskloop grainsize(strict: 8) nogroup",
     ("taskloop", [("grainsize", ("8",), None), ("nogroup", (), None)])),
    ("#pragma omp cancel for if(cancel: e)", ("cancel", [("for", (), None), ("if", ("e",), None)])),
    ("#pragma omp declare reduction(m : int : omp_out += omp_in)", ("declare reduction", [])),
    # clause separators: commas between clauses are allowed
    ("#pragma omp parallel for private(i), shared(a)",
     ("parallel for", [("private", ("i",), None), ("shared", ("a",), None)])),
]


@pytest.mark.parametrize("line,expected", VALID, ids=[v[0][12:] for v in VALID])
def test_valid_directives(line, expected):
    d = parse_line(line)
    assert proj(d) == expected
    assert d.loc == SourceLoc("t.c", LINE, 1)


WHITESPACE = [
    "#pragma omp parallel for private(a,b) reduction(+:s) schedule(static,4)",
    "#pragma omp parallel for private( a , b ) reduction( + : s ) schedule( static , 4 )",
    "#pragma   omp   parallel    for\tprivate(a,b)\treduction(+:s)  schedule(static,4)  ",
    "   #  pragma omp parallel for private (a, b) reduction (+: s) schedule (static, 4)",
    "#pragma omp parallel for private(a,b) reduction(+:s) schedule(static,4) \\",
]


@pytest.mark.parametrize("line", WHITESPACE)
def test_whitespace_variants(line):
    kind, clauses = proj(parse_line(line))
    assert kind == "parallel for"
    assert [(n, tuple(a.replace(" ", "") for a in args), op) for n, args, op in clauses] == [
        ("private", ("a", "b"), None), ("reduction", ("s",), "+"),
        ("schedule", ("static", "4"), None)]


def test_clause_locations_are_user_columns():
    line = "  #pragma omp parallel for private(a) reduction(max:m) collapse(2)"
    d = parse_line(line, "u.c")
    assert d.loc == SourceLoc("u.c", LINE, 3)
    assert [(c.name, c.loc) for c in d.clauses] == [
        ("private", SourceLoc("u.c", LINE, 28)),
        ("reduction", SourceLoc("u.c", LINE, 39)),
        ("collapse", SourceLoc("u.c", LINE, 56)),
    ]


def test_directive_helpers():
    d = parse_line("#pragma omp parallel for private(a, b) private(c) collapse(3)")
    assert d.names_in("private") == ("a", "b", "c")
    assert d.collapse == 3
    assert parse_line("#pragma omp parallel for").collapse == 1


# -- errors: message and exact column in the user's line ------------------------------------

ERRORS = [
    # unknown directive, with a hint
    ("#pragma omp paralel for", 13,
     "unknown OpenMP directive 'paralel'; did you mean 'parallel'?"),
    ("#pragma omp barier", 13, "unknown OpenMP directive 'barier'; did you mean 'barrier'?"),
    ("  #pragma omp  criticl", 16, "unknown OpenMP directive 'criticl'; did you mean 'critical'?"),
    ("#pragma omp frobnicate", 13, "unknown OpenMP directive 'frobnicate'"),
    ("#pragma omp 42", 13, "expected an OpenMP directive name after 'omp'"),
    # unknown clause, with a hint drawn from the clauses allowed on the directive
    ("#pragma omp parallel for privat(a)", 26,
     "unknown clause 'privat' on '#pragma omp parallel for'; did you mean 'private'?"),
    ("#pragma omp for shedule(static)", 17,
     "unknown clause 'shedule' on '#pragma omp for'; did you mean 'schedule'?"),
    ("#pragma omp parallel for private(a) xyzzy", 37,
     "unknown clause 'xyzzy' on '#pragma omp parallel for'"),
    # clause not valid on the directive
    ("#pragma omp parallel for nowait", 26,
     "clause 'nowait' is not valid on '#pragma omp parallel for'"),
    ("#pragma omp parallel schedule(static)", 22,
     "clause 'schedule' is not valid on '#pragma omp parallel'"),
    ("#pragma omp for num_threads(4)", 17,
     "clause 'num_threads' is not valid on '#pragma omp for'"),
    ("#pragma omp single lastprivate(x)", 20,
     "clause 'lastprivate' is not valid on '#pragma omp single'"),
    ("#pragma omp barrier nowait", 21, "clause 'nowait' is not valid on '#pragma omp barrier'"),
    # reduction operator
    ("#pragma omp parallel for reduction(%:s)", 36, "unknown reduction operator '%'"),
    ("#pragma omp parallel for reduction(avg:s)", 36, "unknown reduction operator 'avg'"),
    ("#pragma omp parallel for reduction(+ s)", 38, "expected ':', found 's'"),
    # collapse argument
    ("#pragma omp parallel for collapse(0)", 26, "collapse() needs a positive integer constant"),
    ("#pragma omp parallel for collapse(x)", 26, "collapse() needs a positive integer constant"),
    ("#pragma omp for collapse(-1)", 17, "collapse() needs a positive integer constant"),
    # bad schedule / default arguments
    ("#pragma omp for schedule(bogus)", 26, "unknown schedule kind 'bogus'"),
    ("#pragma omp parallel default(foo)", 30, "invalid argument 'foo' to 'default'"),
    # unbalanced parentheses (reported at the end of the line) and empty lists
    ("#pragma omp parallel for private(a", 35, "expected ')', found end of directive"),
    ("#pragma omp parallel for num_threads(4", 38, "unbalanced parentheses in directive"),
    ("#pragma omp parallel for if(n)) ", 31, "unknown clause ')'"),
    ("#pragma omp parallel for private()", 34, "expected a variable name, found ')'"),
    ("#pragma omp parallel for private(a,)", 36, "expected a variable name, found ')'"),
    ("#pragma omp parallel for num_threads()", 38, "expected an expression"),
    ("#pragma omp for schedule(static,)", 33, "expected an expression"),
    # duplicates: reported at the second one
    ("#pragma omp parallel for collapse(2) collapse(2)", 38,
     "too many 'collapse' clauses on '#pragma omp parallel for'"),
    ("#pragma omp for schedule(static) private(i) schedule(dynamic)", 45,
     "too many 'schedule' clauses on '#pragma omp for'"),
    ("#pragma omp parallel num_threads(2) num_threads(3)", 37, "too many 'num_threads' clauses"),
    ("#pragma omp atomic read write", 25, "too many atomic clauses"),
    ("#pragma omp atomic seq_cst relaxed", 28, "too many memory-order clauses"),
    ("#pragma omp parallel if(a) if(parallel: b)", 28, "too many 'if' clauses"),
    ("#pragma omp for nontemporal(a)", 17, "clause 'nontemporal' is not valid on '#pragma omp for'"),
    ("#pragma omp simd order(serial)", 24, "invalid argument 'serial' to 'order'"),
]


@pytest.mark.parametrize("line,col,message", ERRORS, ids=[e[0][12:] for e in ERRORS])
def test_errors_at_exact_column(line, col, message):
    with pytest.raises(PragmaSyntaxError) as ei:
        parse_line(line, "e.c")
    err = ei.value
    assert message in err.message
    assert (err.loc.file, err.loc.line, err.loc.col) == ("e.c", LINE, col)
    assert err.format().startswith(f"e.c:{LINE}:{col}: error: ")


@pytest.mark.parametrize("line,col", [
    ("#pragma omp parallel for private(i) priv(a)", 37),
    ("#pragma omp for private(sum) reduction(+ s)", 42),
])
def test_error_column_not_confused_by_substring(line, col):
    with pytest.raises(PragmaSyntaxError) as ei:
        parse_line(line)
    assert ei.value.loc.col == col


# -- through the whole front end ------------------------------------------------------------

def _write(tmp_path, src: str, name: str = "p.c") -> str:
    p = tmp_path / name
    p.write_text(src)
    return str(p)


BIND_SRC = """\
#define C 2
#define NT 4
void f(int n, double *a) {
  int i, j;
  #pragma omp parallel for collapse(C) num_threads(NT)
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      a[i*n+j] = 0;
  {
#pragma omp parallel
    {
    #pragma omp for nowait
      for (i = 0; i < n; i++) a[i] = 1;
    }
  }
  #pragma omp barrier
}
"""


def test_pragma_binds_to_following_statement_and_macros_expand(tmp_path):
    path = _write(tmp_path, BIND_SRC)
    prog = load_program(path)
    got = [(b.directive.kind, [(c.name, c.args) for c in b.directive.clauses],
            type(b.stmt).__name__, b.stmt.coord.line, b.directive.loc, b.func.decl.name)
           for b in prog.constructs]
    assert got == [
        ("parallel for", [("collapse", ("2",)), ("num_threads", ("4",))], "For", 6,
         SourceLoc(path, 5, 3), "f"),
        ("parallel", [], "Compound", 11, SourceLoc(path, 10, 1), "f"),
        ("for", [("nowait", ())], "For", 13, SourceLoc(path, 12, 5), "f"),
    ]
    assert prog.constructs[0].directive.collapse == 2
    # the inner 'for' is bound inside the 'parallel' region's statement
    assert any(n is prog.constructs[1].stmt for n in prog.constructs[2].path)
    assert [(d.kind, f.decl.name) for d, _, f in prog.standalone] == [("barrier", "f")]


def test_file_scope_threadprivate(tmp_path):
    prog = load_program(_write(tmp_path, "int tp, tq;\n#pragma omp threadprivate(tp, tq)\n"
                                         "int main(void) { return tp; }\n"))
    assert prog.threadprivate() == {"tp", "tq"}


FRONT_END_ERRORS = [
    # directive at the end of a block
    ("void f(int n, double *a) {\n  if (n) {\n    a[0] = 1;\n    #pragma omp parallel for\n  }\n}\n",
     4, 5, "'#pragma omp parallel for' must be followed by a statement"),
    ("void f(void) {\n#pragma omp critical\n}\n",
     2, 1, "'#pragma omp critical' must be followed by a statement"),
    # directive followed by another directive with no statement (with one, the second
    # directive and its statement are the first one's statement, as gcc reads it)
    ("void f(int n, double *a) {\n  int i;\n  #pragma omp parallel\n  #pragma omp single\n"
     "}\n",
     3, 3, "'#pragma omp parallel' must be followed by a statement"),
    # grammar errors point at the token in the user's (unexpanded, indented) line
    ("void f(int n, double *a) {\n  int i;\n  #  pragma   omp parallel for privat(i)\n"
     "  for (i = 0; i < n; i++) a[i] = 0;\n}\n",
     3, 32, "unknown clause 'privat' on '#pragma omp parallel for'; did you mean 'private'?"),
    ("#define K 0\nvoid f(int n, double *a) {\n  int i;\n\t#pragma omp parallel for collapse(K)\n"
     "  for (i = 0; i < n; i++) a[i] = 0;\n}\n",
     4, 27, "collapse() needs a positive integer constant"),
]


def test_unknown_directive_is_a_warning_at_its_name(tmp_path):
    path = _write(tmp_path, "void f(int n, double *a) {\n  int i;\n#pragma omp paralell for\n"
                            "  for (i = 0; i < n; i++) a[i] = 0;\n}\n")
    prog = load_program(path)
    assert prog.constructs == []
    (w,) = prog.warnings
    assert (w.loc, w.kind, w.id) == (SourceLoc(path, 3, 13), "warning", "unknown-pragma")
    assert "unknown OpenMP directive 'paralell'; did you mean 'parallel'?" in w.message


@pytest.mark.parametrize("src,line,col,message", FRONT_END_ERRORS)
def test_front_end_errors(tmp_path, src, line, col, message):
    path = _write(tmp_path, src)
    with pytest.raises(OmpclError) as ei:
        load_program(path)
    assert isinstance(ei.value, PragmaSyntaxError)
    assert ei.value.loc == SourceLoc(path, line, col)
    assert message in ei.value.message


def test_non_omp_pragmas_are_ignored(tmp_path):
    prog = load_program(_write(tmp_path, "void f(int n, double *a) {\n  int i;\n"
                                         "#pragma once_more something\n#pragma GCC ivdep\n"
                                         "  for (i = 0; i < n; i++) a[i] = 0;\n}\n"))
    assert prog.constructs == [] and prog.standalone == []
    assert not any(isinstance(n, c_ast.Pragma) and n.string.startswith("omp")
                   for n in prog.ast.ext)


@pytest.mark.parametrize("second,line,col,message", [
    ("    privat(i)", 4, 5, "unknown clause 'privat'"),
    ("    private(i) reduction(%:s)", 4, 26, "unknown reduction operator '%'"),
])
def test_error_on_continuation_line(tmp_path, second, line, col, message):
    path = _write(tmp_path, "void f(int n, double *a) {\n  int i;\n#pragma omp parallel for \\\n"
                  f"{second}\n  for (i = 0; i < n; i++) a[i] = 0;\n}}\n")
    with pytest.raises(PragmaSyntaxError) as ei:
        load_program(path)
    assert message in ei.value.message
    assert ei.value.loc == SourceLoc(path, line, col)


def test_continued_pragma_parses(tmp_path):
    path = _write(tmp_path, "void f(int n, double *a) {\n  int i;\n#pragma omp parallel for \\\n"
                  "    private(i) \\\n    schedule(static)\n  for (i = 0; i < n; i++) a[i] = 0;\n}\n")
    (b,) = load_program(path).constructs
    assert proj(b.directive) == ("parallel for", [("private", ("i",), None),
                                                  ("schedule", ("static",), None)])
    assert b.directive.loc == SourceLoc(path, 3, 1)


def test_duplicate_nowait_rejected():
    with pytest.raises(PragmaSyntaxError) as ei:
        parse_line("#pragma omp for private(i) nowait nowait")
    assert "too many 'nowait' clauses" in ei.value.message
    assert ei.value.loc.col == 35
