"""Bad input through the real command line: one gcc-style diagnostic, exit code, no output."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from ompcl.runtime import RUNTIME_FILES

ROOT = Path(__file__).resolve().parents[1]


def ompcl(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ompcl.cli", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)


LOOP = "  for (i = 0; i < n; i++) a[i] = 0;\n"

# (id, file name, content (str, bytes or None = do not create), line, col, message)
# line None: a diagnostic without location ("ompcl: error: ...")
BAD = [
    ("c_syntax", "syn.c", "int main(void){ int x = ; return 0; }\n",
     1, 25, "syntax error: Invalid expression near ';'"),
    ("c_syntax_line3", "syn3.c", "int f(int n) {\n  int i\n  return n;\n}\n",
     3, 3, "syntax error before 'return'"),
    ("unknown_clause", "clause.c",
     "void f(int n, double *a) {\n  int i;\n  #pragma omp parallel for privat(i)\n" + LOOP + "}\n",
     3, 28, "unknown clause 'privat' on '#pragma omp parallel for'; did you mean 'private'?"),
    ("unknown_reduction_op", "red.c",
     "double f(int n, double *a) {\n  int i; double s = 0;\n"
     "#pragma omp parallel for reduction(%:s)\n" + LOOP + "  return s;\n}\n",
     3, 36, "unknown reduction operator '%' (expected one of +, -, *, &, |, ^, &&, ||, max, min)"),
    ("nowait_on_parallel_for", "nowait.c",
     "void f(int n, double *a) {\n  int i;\n#pragma omp parallel for nowait\n" + LOOP + "}\n",
     3, 26, "clause 'nowait' is not valid on '#pragma omp parallel for'"),
    ("directive_without_statement", "nostmt.c",
     "void f(int n, double *a) {\n  int i;\n  if (n) {\n    a[0] = 1;\n"
     "    #pragma omp parallel for\n  }\n}\n",
     5, 5, "'#pragma omp parallel for' must be followed by a statement"),
    ("undeclared_reduction_variable", "undecl.c",
     "double f(int n, double *a) {\n  int i; double s = 0;\n"
     "#pragma omp parallel for reduction(+:sum)\n" + LOOP + "  return s;\n}\n",
     3, 26, "'sum' in 'reduction' clause is not a declared variable"),
    ("unbalanced_clause_parenthesis", "paren.c",
     "void f(int n, double *a) {\n  int i;\n#pragma omp parallel for if(n > (2)\n" + LOOP + "}\n",
     3, 29, "unbalanced parentheses in directive"),
    ("parallel_for_without_for", "nofor.c",
     "void f(int n, double *a) {\n  int i = 0;\n#pragma omp parallel for\n"
     "  while (i < n) a[i++] = 0;\n}\n",
     3, 1, "'#pragma omp parallel for' must be followed by a 'for' loop"),
    ("missing_header", "inc.c", "#include \"no_such_header.h\"\nint x;\n",
     1, 10, "no_such_header.h: No such file or directory"),
    ("missing_input", "missing.c", None, None, None, "{path}: No such file or directory"),
    ("binary_file", "bin.c", b"\x7fELF\x00\x01\x02\x00\xff", 1, 1,
     "not a C source file (binary data)"),
]


def _make(tmp_path: Path, name: str, content) -> str:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    return str(path)


def _expected_line(path: str, line, col, message: str) -> str:
    message = message.format(path=path)
    if line is None:
        return f"ompcl: error: {message}"
    return f"{path}:{line}:{col}: error: {message}"


def _no_output(outdir: Path) -> None:
    assert not outdir.exists() or list(outdir.iterdir()) == []


@pytest.mark.parametrize("name,fname,content,line,col,message", BAD, ids=[b[0] for b in BAD])
def test_translate_bad_input(tmp_path, name, fname, content, line, col, message):
    path = _make(tmp_path, fname, content)
    outdir = tmp_path / "out"
    res = ompcl("translate", path, "-o", str(outdir))
    assert res.returncode == 1, res.stderr
    assert res.stderr.splitlines() == [_expected_line(path, line, col, message)]
    if line is not None:
        assert re.match(rf"^{re.escape(path)}:{line}:{col}: error: ", res.stderr)
    assert "Traceback" not in res.stderr
    assert res.stdout == ""
    _no_output(outdir)


def test_directory_as_input(tmp_path):
    d = tmp_path / "adir.c"
    d.mkdir()
    outdir = tmp_path / "out"
    res = ompcl("translate", str(d), "-o", str(outdir))
    assert res.returncode == 1
    assert res.stderr.splitlines() == [f"ompcl: error: {d}: is a directory"]
    _no_output(outdir)


def test_empty_file_is_valid(tmp_path):
    path = _make(tmp_path, "empty.c", "")
    outdir = tmp_path / "out"
    res = ompcl("translate", path, "-o", str(outdir))
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""
    assert sorted(p.name for p in outdir.iterdir()) == sorted(
        ["empty_host.c", "empty_kernel.cl", *RUNTIME_FILES])


def test_error_in_second_file_writes_nothing(tmp_path):
    good = _make(tmp_path, "good.c", "double a[10];\nvoid f(void) {\n  int i;\n"
                 "#pragma omp parallel for\n  for (i = 0; i < 10; i++) a[i] = 0;\n}\n")
    bad = _make(tmp_path, "bad.c", "int main(void){ int x = ; return 0; }\n")
    outdir = tmp_path / "out"
    res = ompcl("translate", good, bad, "-o", str(outdir))
    assert res.returncode == 1
    assert res.stderr.splitlines() == [
        f"{bad}:1:25: error: syntax error: Invalid expression near ';'"]
    _no_output(outdir)


@pytest.mark.parametrize("args,fragment", [
    (("translate",), "Error: Missing argument 'FILES...'."),
    (("build",), "Error: Missing argument 'FILE.c... [GCC OPTIONS]'."),
    (("translate", "x.c", "--emit", "bogus"), "Error: Invalid value for '--emit'"),
    (("frobnicate",), "Error: No such command 'frobnicate'."),
])
def test_usage_errors(args, fragment):
    res = ompcl(*args)
    assert res.returncode == 2
    lines = res.stderr.splitlines()
    assert lines[0].startswith("Usage: ")
    assert lines[-1].startswith(fragment)
    assert "Traceback" not in res.stderr


def test_debug_shows_traceback(tmp_path):
    path = _make(tmp_path, "syn.c", "int main(void){ int x = ; return 0; }\n")
    outdir = tmp_path / "out"
    res = ompcl("translate", path, "-o", str(outdir), "--debug")
    assert res.returncode == 1
    assert "Traceback (most recent call last)" in res.stderr
    assert "CSyntaxError" in res.stderr
    assert res.stderr.splitlines()[-1] == (
        f"{path}:1:25: error: syntax error: Invalid expression near ';'")
    _no_output(outdir)


def test_build_syntax_error(tmp_path):
    path = _make(tmp_path, "syn.c", "int main(void){ int x = ; return 0; }\n")
    exe = tmp_path / "prog"
    keep = tmp_path / "keep"
    res = ompcl("build", path, "-o", str(exe), "--keep", str(keep))
    assert res.returncode == 1
    assert res.stderr.splitlines() == [
        f"{path}:1:25: error: syntax error: Invalid expression near ';'"]
    assert "Traceback" not in res.stderr
    assert not exe.exists()
    _no_output(keep)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["syn.c"]


def test_valid_gnu_c_stays_on_host_with_a_warning(tmp_path):
    """Valid C that ompcl cannot parse (GNU's typeof, __auto_type) is never rejected: a
    file-scope declaration is set aside with a warning (a loop using it stays on the host);
    in a function, a loop declaring a variable of a typeof whose type ompcl does not work
    out (a pointer's, ``analysis.typeofs``) stays on the host with a remark that says why,
    and the file's other loops are translated."""
    src = tmp_path / "gnu.c"

    def translated(text: str):
        src.write_text(text)
        res = ompcl("translate", str(src), "-o", str(tmp_path / "out"), "--report")
        assert res.returncode == 0, res.stderr
        return res
    res = translated("typeof(1) a[10];\nint main(void){ int i;\n#pragma omp parallel for\n"
                     "for (i = 0; i < 10; i++) { a[i] = i * 2; }\nreturn a[3]; }\n")
    assert re.search(rf"^{re.escape(str(src))}:1:\d+: warning: ompcl cannot parse the "
                     r"declaration of 'a'.*\[declaration-fallback\]", res.stderr, re.M), res.stderr
    assert re.search(r"gnu\.c:3:\d+: host .*cannot resolve 'a'", res.stdout), res.stdout
    res = translated("int a[10];\nint f(void){ int i;\n#pragma omp parallel for\n"
                     "for (i = 0; i < 10; i++) { typeof(i ? a : a) t = a; t[i] = i * 2; }\n"
                     "return a[3]; }\nint main(void){ int i;\n#pragma omp parallel for\n"
                     "for (i = 0; i < 10; i++) a[i] = i;\nreturn f(); }\n")
    assert re.search(r"gnu\.c:3:\d+: host .*'t' is declared with GNU's typeof or __auto_type"
                     r".*\[local-type\]", res.stdout), res.stdout
    assert re.search(r"gnu\.c:7:\d+: offloaded", res.stdout), res.stdout
    # what has no stand-in (a case range of over 256 values): the function is left as written
    res = translated("int a[10];\nint f(int k){ int i;\n#pragma omp parallel for\n"
                     "for (i = 0; i < 10; i++) a[i] = i;\nswitch (k) { case 1 ... 300: return 1; }"
                     "\nreturn a[3]; }\nint main(void){ int i;\n#pragma omp parallel for\n"
                     "for (i = 0; i < 10; i++) a[i] = i;\nreturn f(2); }\n")
    assert re.search(r"gnu\.c:5:\d+: host .*cannot parse function 'f'.*\[function-fallback\]",
                     res.stdout), res.stdout
    assert re.search(r"gnu\.c:8:\d+: offloaded", res.stdout), res.stdout


def test_huge_file_translates_quickly(tmp_path):
    """A 40,000-line file with 2,000 loops translates in reasonable time and offloads all."""
    parts = ["double a[100], b[100];"]
    for k in range(2000):
        parts.append(f"void f{k}(double s) {{\n  int i;\n#pragma omp parallel for\n"
                     f"  for (i = 0; i < 100; i++)\n    a[i] = s * b[i] + {k};\n"
                     + "\n" * 12 + "}")
    src = tmp_path / "huge.c"
    src.write_text("\n".join(parts) + "\n")
    outdir = tmp_path / "out"
    res = ompcl("translate", str(src), "-o", str(outdir), "--report")
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.count("offloaded  ompcl_k") == 2000
