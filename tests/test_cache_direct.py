"""Direct mode of the translation cache (``ompcl/driver/manifest.py``): a rebuild of an
unchanged file finds its translation without running the preprocessor, and every change the
preprocessor would see (a header's text, a new header that shadows an old one in the search
path, a computed include) makes it preprocess and translate again. The builds run the
programs and compare their answers."""
from __future__ import annotations

import os
from pathlib import Path

from conftest import device_output, load_stats, run
from test_cc import ompcl_cc

from ompcl.driver import manifest


#: the header's SCALE is folded into the kernel: a stale translation would run the old one
PROGRAM = """#include <stdio.h>
#include "defs.h"
double x[1000];
int main(void) {
  int i;
#pragma omp parallel for
  for (i = 0; i < 1000; i++) x[i] = SCALE * i;
  printf("%.1f\\n", x[999]);
  return 0;
}
"""


def logging_cpp(tmp_path: Path) -> tuple[Path, Path]:
    """A preprocessor (gcc) that logs each command line: OMPCL_CPP for these builds."""
    exe, log = tmp_path / "cpp.sh", tmp_path / "cpp.log"
    exe.write_text(f'#!/bin/sh\necho "$@" >> "{log}"\nexec gcc "$@"\n')
    exe.chmod(0o755)
    return exe, log


def build(tmp_path: Path, cpp: Path, log: Path, *flags: str, **env: str) -> tuple[str, int]:
    """Build and run the program; its output and how many times the preprocessor ran."""
    before = len(log.read_text().splitlines()) if log.exists() else 0
    res = ompcl_cc(tmp_path, "-fopenmp", *flags, "off.c", "-o", "app", OMPCL_CPP=str(cpp),
                   **env)
    assert res.returncode == 0, res.stderr
    ran = len(log.read_text().splitlines()) - before if log.exists() else 0
    stats = tmp_path / "stats.json"
    out = run(tmp_path / "app", OMPCL_DEVICE="opencl", OMPCL_STATS=str(stats))
    assert out.returncode == 0, out.stderr
    if load_stats(stats)["device"]["available"]:   # else a stale kernel would go unseen
        assert [r["device_runs"] for r in load_stats(stats)["regions"]] == [1]
    return out.stdout, ran


def test_unchanged_rebuild_skips_the_preprocessor_and_changes_are_seen(tmp_path,
                                                                      opencl_available):
    cpp, log = logging_cpp(tmp_path)
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "defs.h").write_text("#define SCALE 2\n")
    (tmp_path / "off.c").write_text(PROGRAM)
    out, ran = build(tmp_path, cpp, log, "-Iinc")
    assert out == "1998.0\n" and ran >= 1
    assert build(tmp_path, cpp, log, "-Iinc") == ("1998.0\n", 0)      # direct hit
    (tmp_path / "inc" / "defs.h").write_text("#define SCALE 3\n")        # a header's text
    assert build(tmp_path, cpp, log, "-Iinc")[0] == "2997.0\n"
    assert build(tmp_path, cpp, log, "-Iinc") == ("2997.0\n", 0)
    (tmp_path / "defs.h").write_text("#define SCALE 4\n")   # shadows inc/defs.h ("..." search)
    assert build(tmp_path, cpp, log, "-Iinc")[0] == "3996.0\n"
    assert build(tmp_path, cpp, log, "-Iinc") == ("3996.0\n", 0)
    assert build(tmp_path, cpp, log, "-Iinc", "-DEXTRA")[1] >= 1     # other options


def test_a_new_header_earlier_in_the_angle_search_is_seen(tmp_path, opencl_available):
    cpp, log = logging_cpp(tmp_path)
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
    (tmp_path / "b" / "size.h").write_text("#define SCALE 2\n")
    (tmp_path / "off.c").write_text(PROGRAM.replace('"defs.h"', "<size.h>"))
    assert build(tmp_path, cpp, log, "-Ia", "-Ib")[0] == "1998.0\n"
    assert build(tmp_path, cpp, log, "-Ia", "-Ib") == ("1998.0\n", 0)
    (tmp_path / "a" / "size.h").write_text("#define SCALE 3\n")
    assert build(tmp_path, cpp, log, "-Ia", "-Ib")[0] == "2997.0\n"


def test_computed_includes_and_direct_mode_off_always_preprocess(tmp_path):
    cpp, log = logging_cpp(tmp_path)
    (tmp_path / "defs.h").write_text("#define SCALE 2\n")
    (tmp_path / "off.c").write_text(PROGRAM.replace('#include "defs.h"',
                                                        '#define HDR "defs.h"\n#include HDR'))
    assert build(tmp_path, cpp, log)[0] == "1998.0\n"
    out, ran = build(tmp_path, cpp, log)
    assert out == "1998.0\n" and ran >= 1      # no manifest: gcc -E again, cache entry hit
    (tmp_path / "off.c").write_text(PROGRAM)
    build(tmp_path, cpp, log, OMPCL_CACHE_DIRECT="0")
    assert build(tmp_path, cpp, log, OMPCL_CACHE_DIRECT="0")[1] >= 1
    assert build(tmp_path, cpp, log)[1] >= 1   # direct mode back on: records the manifest
    assert build(tmp_path, cpp, log)[1] == 0


def test_line_markers_give_the_files_read_and_those_forced_in(tmp_path):
    text = ('# 1 "main.c"\n# 1 "<built-in>"\n# 1 "<command-line>"\n'
            '# 1 "/usr/include/stdc-predef.h" 1 3 4\n# 1 "<command-line>" 2\n'
            '# 1 "main.c"\n# 1 "sub dir/a\\"b.h" 1\n# 2 "main.c" 2\n')
    files, forced = manifest._included(text)
    assert files == [os.path.abspath("main.c"), "/usr/include/stdc-predef.h",
                     os.path.abspath('sub dir/a"b.h')]
    assert forced == {"/usr/include/stdc-predef.h"}


def test_include_next_searches_after_the_includers_directory(tmp_path):
    for d in ("one", "two", "three"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "x.h").write_text("")
    angle = [str(tmp_path / d) for d in ("one", "two", "three")]
    assert manifest._resolve("angle", "", "x.h", [], angle) == angle[0] + "/x.h"
    assert manifest._resolve("next", angle[0] + "/x.h", "x.h", [], angle) == angle[1] + "/x.h"
    assert manifest._resolve("next", angle[2] + "/x.h", "x.h", [], angle) is None
    assert manifest._resolve("quote", str(tmp_path / "two"), "x.h", [], angle) == \
        angle[1] + "/x.h"


def test_programs_in_sibling_directories_share_a_shared_files_manifest(tmp_path,
                                                                       opencl_available):
    """PolyBench's layout: a/ and b/ both compile ../shared/s.c with -I../inc; the second
    program finds s.c's translation without preprocessing it. A program elsewhere whose
    same spelled -I../inc leads to another header preprocesses and gets its own answer."""
    cpp, log = logging_cpp(tmp_path)
    for d in ("shared", "inc", "a", "b", "deep/inc", "deep/c", "deep/shared"):
        (tmp_path / d).mkdir(parents=True)
    shared = ('#include "defs.h"\ndouble x[1000];\ndouble total(void) {\n  int i;\n'
              '#pragma omp parallel for\n  for (i = 0; i < 1000; i++) x[i] = SCALE * i;\n'
              '  return x[999];\n}\n')
    main = '#include <stdio.h>\ndouble total(void);\nint main(void) { printf("%.1f\\n", total()); }\n'
    for d in ("shared", "deep/shared"):
        (tmp_path / d / "s.c").write_text(shared)
    (tmp_path / "inc" / "defs.h").write_text("#define SCALE 2\n")
    (tmp_path / "deep" / "inc" / "defs.h").write_text("#define SCALE 5\n")

    def build_in(prog: str) -> tuple[str, list[str]]:
        (tmp_path / prog / "main.c").write_text(main)
        before = len(log.read_text().splitlines()) if log.exists() else 0
        res = ompcl_cc(tmp_path, "-fopenmp", "-I../inc", "main.c", "../shared/s.c", "-o", "app",
                       cwd=tmp_path / prog, OMPCL_CPP=str(cpp))
        assert res.returncode == 0, res.stderr
        ran = log.read_text().splitlines()[before:]
        out = device_output(tmp_path / prog / "app")
        return out, [c for c in ran if "s.c" in c and "-v" not in c.split()]

    out, ran = build_in("a")
    assert out == "1998.0\n" and ran
    assert build_in("b") == ("1998.0\n", [])          # a's manifest of ../shared/s.c holds
    out, ran = build_in("deep/c")                     # ../inc and ../shared lead elsewhere
    assert out == "4995.0\n" and ran


def test_programs_with_their_own_folder_on_the_search_path_share_the_manifest(
        tmp_path, opencl_available):
    """PolyBench's command line: every program compiles ../shared/s.c with ``-I.`` (its own
    folder) and ``-I../inc``. The second program finds s.c's translation without running
    the preprocessor at all; a third whose own folder holds a defs.h (found through -I.
    before ../inc) preprocesses and gets that header's answer."""
    cpp, log = logging_cpp(tmp_path)
    for d in ("shared", "inc", "a", "b", "c"):
        (tmp_path / d).mkdir()
    (tmp_path / "shared" / "s.c").write_text(
        '#include <defs.h>\ndouble x[1000];\ndouble total(void) {\n  int i;\n'
        '#pragma omp parallel for\n  for (i = 0; i < 1000; i++) x[i] = SCALE * i;\n'
        '  return x[999];\n}\n')
    (tmp_path / "inc" / "defs.h").write_text("#define SCALE 2\n")
    (tmp_path / "c" / "defs.h").write_text("#define SCALE 7\n")
    main = ('#include <stdio.h>\ndouble total(void);\n'
            'int main(void) { printf("%.1f\\n", total()); }\n')

    def build_in(prog: str) -> tuple[str, list[str]]:
        (tmp_path / prog / f"{prog}.c").write_text(main)
        before = len(log.read_text().splitlines()) if log.exists() else 0
        res = ompcl_cc(tmp_path, "-fopenmp", "-I.", "-I../inc", "../shared/s.c", f"{prog}.c",
                       "-o", "app", cwd=tmp_path / prog, OMPCL_CPP=str(cpp))
        assert res.returncode == 0, res.stderr
        out = device_output(tmp_path / prog / "app")
        return out, log.read_text().splitlines()[before:]

    out, ran = build_in("a")
    assert out == "1998.0\n" and any("s.c" in c for c in ran)
    out, ran = build_in("b")    # s.c's manifest and the search lists hold (b.c, which calls
    assert out == "1998.0\n" and not any("s.c" in c for c in ran)   # total(), is translated)
    out, ran = build_in("c")                    # c/defs.h comes first through -I.
    assert out == "6993.0\n" and any("s.c" in c for c in ran)
