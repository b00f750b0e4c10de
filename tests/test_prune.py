"""Pruning unused system-header declarations before parsing: what it keeps, what it drops,
and that every translation is the same with and without it."""
from __future__ import annotations

import glob
import os
import subprocess
from pathlib import Path

import pytest

from ompcl.frontend import parse as parse_mod
from ompcl.frontend import program
from ompcl.frontend.parse import parse
from ompcl.frontend.preprocess import CppOptions, preprocess
from ompcl.frontend.prune import prune
from ompcl.pipeline import Options, translate

ROOT = Path(__file__).resolve().parents[1]
NAS = ROOT / "nas_benchmarks"


def _names(ast) -> set[str]:
    out = set()
    for ext in ast.ext:
        name = getattr(ext, "name", None) or getattr(getattr(ext, "decl", None), "name", None)
        if name:
            out.add(name)
        t = getattr(ext, "type", None)
        if getattr(t, "name", None) and getattr(t, "decls", None) is not None:
            out.add(f"struct {t.name}")
    return out


def _src(tmp_path: Path, body: str) -> str:
    p = tmp_path / "p.c"
    p.write_text(body)
    return str(p)


def test_keeps_what_the_file_names_and_what_that_needs(tmp_path):
    path = _src(tmp_path, "#include <stdio.h>\n#include <math.h>\n#include <stdlib.h>\n"
                "int main(void) { FILE *f = stdout; double *x = malloc(8);\n"
                "  fprintf(f, \"%f\\n\", sqrt(2.0)); free(x); return 0; }\n")
    full = preprocess(path)
    pruned = prune(full)
    names = _names(parse(pruned, path))
    assert {"fprintf", "sqrt", "malloc", "free", "stdout", "FILE", "size_t"} <= names
    assert "struct _IO_FILE" in names          # the typedef FILE names it: its body is kept
    assert not {"fscanf", "cos", "qsort", "atexit"} & names
    main, full_main = ([e for e in parse(t, path).ext
                        if getattr(getattr(e, "decl", None), "name", "") == "main"]
                       for t in (pruned, full))
    assert _coords(main[0], []) == _coords(full_main[0], [])  # every line stays in place
    assert len(pruned.splitlines()) * 10 < len(full.splitlines())  # runs of blanks collapsed


def test_enumerators_and_function_pointers_keep_their_declarations(tmp_path):
    path = _src(tmp_path, "#include <math.h>\n#include <stdlib.h>\n#include <signal.h>\n"
                "int cmp(const void *a, const void *b) { return 0; }\n"
                "int main(void) { int c = FP_NAN; int x[2] = {1, 0};\n"
                "  qsort(x, 2, sizeof x[0], cmp); signal(SIGINT, SIG_IGN); return c; }\n")
    ast = parse(prune(preprocess(path)), path)
    names = _names(ast)
    assert {"qsort", "signal", "__sighandler_t"} <= names


def test_user_headers_are_never_pruned(tmp_path):
    (tmp_path / "mine.h").write_text("int never_used(int);\ntypedef int unused_t;\n")
    path = _src(tmp_path, '#include "mine.h"\n#include <stdio.h>\nint main(void) { return 0; }\n')
    names = _names(parse(prune(preprocess(path)), path))
    assert {"never_used", "unused_t"} <= names and "printf" not in names


def test_a_pruned_text_that_does_not_parse_falls_back_to_the_full_one(tmp_path, monkeypatch):
    path = _src(tmp_path, "#include <stdio.h>\nint main(void) { printf(\"hi\\n\"); return 0; }\n")
    monkeypatch.setattr(parse_mod, "prune", lambda text: text.replace("int main", "int int main"))
    prog = program.load_program(path)
    assert "main" in _names(prog.ast)


def _translations(files, opts_for):
    out = {}
    for f in files:
        u = translate(f, opts_for(f))
        out[f] = (u.host_source, u.kernel_source, [r.format() for r in u.remarks])
    return out


@pytest.mark.parametrize("which", ["corpus", "nas"])
def test_translation_is_the_same_without_pruning(which, monkeypatch):
    if which == "corpus":
        files = sorted(glob.glob(str(ROOT / "tests" / "corpus" / "*.c")))

        def opts_for(f):
            return Options(check=False)
    else:
        files = sorted(glob.glob(str(NAS / "*" / "*.c")))

        def opts_for(f):
            return Options(cpp=CppOptions((str(NAS / "common"), os.path.dirname(f)),
                                          ("CLASS_S", "NPB_CLASS='S'")), check=False)
    pruned = _translations(files, opts_for)
    monkeypatch.setattr(parse_mod, "prune", lambda text: text)
    assert _translations(files, opts_for) == pruned


def _rows(decls):
    return [(d.start, d.end, d.system, d.declares, d.mentions) for d in decls]


def test_system_headers_are_split_once_for_every_file_that_includes_them(tmp_path, monkeypatch):
    """The split of an included system header comes from the cache for the next file (and
    the next process) that includes the same text; it is the split a full scan gives."""
    from ompcl.frontend import prune as pr
    monkeypatch.setenv("OMPCL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(pr, "_blocks", {})
    heads = "#include <stdio.h>\n#include <stdlib.h>\n#include <math.h>\n"
    texts = [preprocess(_src(tmp_path, heads + f"int f{i}(double x) {{ return (int) sqrt(x)"
                                       f" + {i}; }}\n"), CppOptions()) for i in range(2)]
    scanned = []
    real_scan = pr._scan
    monkeypatch.setattr(pr, "_scan", lambda t, a, b: scanned.append((a, b)) or real_scan(t, a, b))
    blocks = pr._system_blocks(texts[0])
    assert len(blocks) == 3 and sum(b - a for a, b in blocks) > 0.9 * len(texts[0])
    assert _rows(pr._split(texts[0])) == _rows(real_scan(texts[0], 0, len(texts[0]))[0])
    assert set(blocks) <= set(scanned)          # first file: every header scanned
    assert len(list((tmp_path / "cache" / "cc-prune").rglob("*"))) > 3
    for memo in (True, False):                  # same process; a new one (from the disk)
        if not memo:
            monkeypatch.setattr(pr, "_blocks", {})
        scanned.clear()
        assert _rows(pr._split(texts[1])) == _rows(real_scan(texts[1], 0, len(texts[1]))[0])
        assert not set(pr._system_blocks(texts[1])) & set(scanned)


def test_a_declaration_open_across_a_system_include_is_scanned_whole(tmp_path, monkeypatch):
    from ompcl.frontend import prune as pr
    monkeypatch.setenv("OMPCL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(pr, "_blocks", {})
    (tmp_path / "sys").mkdir()
    (tmp_path / "sys" / "vals.h").write_text(", ".join(map(str, range(3000))) + "\n")
    src = _src(tmp_path, "int vals[] = {\n#include <vals.h>\n};\nint main(void) "
                         "{ return vals[2]; }\n")
    text = subprocess.run(["gcc", "-E", "-isystem", str(tmp_path / "sys"), src],
                          capture_output=True, text=True, check=True).stdout
    assert pr._system_blocks(text)
    assert _rows(pr._split(text)) == _rows(pr._scan(text, 0, len(text))[0])
    assert not (tmp_path / "cache" / "cc-prune").exists()
    assert "vals" in prune(text)


def _coords(node, acc):
    acc.append((type(node).__name__, str(node.coord)))
    for _, child in node.children():
        _coords(child, acc)
    return acc


def test_compacted_text_keeps_every_coordinate():
    """Runs of blank lines and line markers (what dropped declarations leave) become one
    marker; pragmas stay lines; every node keeps its file, line and column."""
    from ompcl.frontend.prune import compact
    text = ('# 1 "p.c"\n# 1 "/usr/include/x.h" 1 3 4\n\n\n\n# 5 "p.c" 2\n\n'
            "int a;\n\n\n"
            "int f(int n) {\n# 1 \"inc.h\" 1\n  int s = 0;\n# 9 \"p.c\" 2\n"
            "#pragma omp parallel for reduction(+:s)\n"
            "  for (int i = 0; i < n; i++)\n\n    s += i;\n  return s;\n}\n")
    small = compact(text)
    assert small.count("\n") < text.count("\n")
    assert "#pragma omp parallel for reduction(+:s)" in small
    assert _coords(parse(small, "p.c"), []) == _coords(parse(text, "p.c"), [])
    assert "p.c:6:5" in str(_coords(parse(small, "p.c"), []))


def test_a_pruned_file_parses_with_the_same_coordinates(tmp_path, monkeypatch):
    """A file with system headers: pruned and compacted, every coordinate as pruning alone
    gives it."""
    import ompcl.frontend.prune as prune_mod
    src = _src(tmp_path, "#include <stdio.h>\n#include <stdlib.h>\n#include <math.h>\n"
                         "static double a[64];\nint main(void) {\n  int i;\n"
                         "#pragma omp parallel for\n  for (i = 0; i < 64; i++)\n"
                         "    a[i] = sqrt((double)i);\n  printf(\"%f\\n\", a[7]);\n"
                         "  return 0;\n}\n")
    text = preprocess(src, CppOptions())
    new = prune(text)
    monkeypatch.setattr(prune_mod, "compact", lambda t: t)
    old = prune(text)
    assert new.count("\n") * 5 < old.count("\n")
    assert _coords(parse(new, src), []) == _coords(parse(old, src), [])
