"""``ompcl cc``'s command line: gcc's argument forms go to the compiler verbatim and in order.

In-process tables for the classifier (which operands are C sources, compile or link or pass
through) and response files; then the exact command a fake compiler receives."""
from __future__ import annotations

import re

import pytest

from ompcl.driver.args import (UsageError, classify, expand_response_files, quote_response_arg,
                               split_own_options, split_response_text)
from ompcl.runtime import LINK_FLAGS
from test_cc import RUNTIME_DIR, fake_calls, fake_compiler, ompcl_cc, write_project

# (argv, C source operands, mode)
CLASSIFY = [
    (["-c", "a.c"], ["a.c"], "compile"),
    (["-I", "inc", "-c", "a.c"], ["a.c"], "compile"),
    (["-Iinc", "-c", "a.c"], ["a.c"], "compile"),
    (["-I/home/me/include", "-c", "a.c"], ["a.c"], "compile"),
    (["-isystem", "sys.c", "-iquote", "q.c", "-c", "a.c"], ["a.c"], "compile"),
    (["-D", "X=1", "-DY", "-D", "S=\"a b\"", "-UZ", "-U", "W", "-c", "a.c"], ["a.c"], "compile"),
    (["-Wl,-rpath,/x.c", "-Wp,-MD,a.d", "a.c"], ["a.c"], "link"),
    (["-MD", "-MF", "f.c", "-MT", "t.c", "-MQ", "q.c", "-c", "a.c"], ["a.c"], "compile"),
    (["-MMD", "-std=c99", "-c", "a.c"], ["a.c"], "compile"),
    (["-x", "c", "a.inc", "-x", "none", "b.inc"], ["a.inc"], "link"),
    (["-xc", "a.inc", "-xnone", "b.c"], ["a.inc", "b.c"], "link"),
    (["-x", "c++", "a.c"], [], "link"),
    (["-o", "app", "a.c", "b.c"], ["a.c", "b.c"], "link"),
    (["a.c", "b.c", "-o", "app.c"], ["a.c", "b.c"], "link"),
    (["-c", "a.c", "b.c", "c.c"], ["a.c", "b.c", "c.c"], "compile"),
    (["a.o", "b.a", "-o", "app", "-lm", "-l", "gomp"], [], "link"),
    (["x.s", "y.o", "z.a", "w.cpp", "v.C", "u.c"], ["u.c"], "link"),
    (["-include", "pre.c", "-imacros", "m.c", "-c", "a.c"], ["a.c"], "compile"),
    (["-Xlinker", "map.c", "-Xpreprocessor", "p.c", "a.c"], ["a.c"], "link"),
    (["-E", "a.c"], ["a.c"], "query"),
    (["-S", "a.c"], ["a.c"], "query"),
    (["-M", "a.c"], ["a.c"], "query"),
    (["-MM", "a.c"], ["a.c"], "query"),
    (["-fsyntax-only", "a.c"], ["a.c"], "query"),
    (["--version"], [], "query"),
    (["-dumpversion"], [], "query"),
    (["-print-file-name=libgomp.so"], [], "query"),
    (["-x", "c", "-c", "-"], [], "query"),
    (["-c", "a.c", "-o", "-"], ["a.c"], "compile"),
]


@pytest.mark.parametrize("argv,sources,mode", CLASSIFY, ids=[" ".join(c[0]) for c in CLASSIFY])
def test_classify(argv, sources, mode):
    cmd = classify(argv)
    assert [cmd.args[k] for k in cmd.sources] == sources
    assert cmd.mode == mode
    assert cmd.args == tuple(argv)   # nothing is rewritten, dropped or reordered


@pytest.mark.parametrize("argv,openmp", [
    (["-c", "a.c"], False), (["-fopenmp", "-c", "a.c"], True),
    (["-fopenmp=libomp", "a.c"], True), (["-fopenmp", "-fno-openmp", "a.c"], False),
    (["-fopenmp-simd", "a.c"], False)])
def test_openmp_flag(argv, openmp):
    assert classify(argv).openmp is openmp


# (argv, environment, options, compiler arguments left)
OWN = [
    (["-c", "a.c"], {}, dict(compiler=("gcc",), strict=False, remarks=""), ["-c", "a.c"]),
    (["--ompcl-compiler=clang-15", "-c", "a.c"], {}, dict(compiler=("clang-15",)), ["-c", "a.c"]),
    (["-c", "a.c"], {"OMPCL_CC": "ccache gcc"}, dict(compiler=("ccache", "gcc")), ["-c", "a.c"]),
    (["--ompcl-strict", "a.c"], {}, dict(strict=True), ["a.c"]),
    (["a.c"], {"OMPCL_STRICT": "1"}, dict(strict=True), ["a.c"]),
    (["a.c"], {"OMPCL_STRICT": "0"}, dict(strict=False), ["a.c"]),
    (["-Rompcl-missed", "a.c"], {}, dict(remarks="missed"), ["a.c"]),
    (["-Rompcl", "-Rompcl-missed", "a.c"], {}, dict(remarks="all"), ["a.c"]),
    (["a.c"], {"OMPCL_REMARKS": "all"}, dict(remarks="all"), ["a.c"]),
    (["--ompcl-keep=k", "--ompcl-debug", "a.c"], {}, dict(keep="k", debug=True), ["a.c"]),
    (["-Rpass=loop", "--debug", "-h", "a.c"], {}, {}, ["-Rpass=loop", "--debug", "-h", "a.c"]),
]


@pytest.mark.parametrize("argv,env,want,rest", OWN, ids=[" ".join(o[0]) for o in OWN])
def test_own_options(argv, env, want, rest):
    opts, left = split_own_options(argv, env)
    assert left == rest
    for k, v in want.items():
        assert getattr(opts, k) == v


@pytest.mark.parametrize("argv,env", [(["--ompcl-bogus"], {}), (["--ompcl-compiler="], {}),
                                      (["a.c"], {"OMPCL_REMARKS": "some"})])
def test_own_option_errors(argv, env):
    with pytest.raises(UsageError):
        split_own_options(argv, env)


# response files: gcc's (libiberty's) quoting
RESPONSE = [
    ("-c a.c", ["-c", "a.c"]),
    ("  -c\n\ta.c  \n", ["-c", "a.c"]),
    ("'-DX=a b' \"-DY=c d\"", ["-DX=a b", "-DY=c d"]),
    ("-DS=\\\"q\\\" a\\ b.c", ["-DS=\"q\"", "a b.c"]),
    ("'it''s' \"\"", ["its", ""]),
    ("'a\\'b'", ["a'b"]),
    ("", []),
]


@pytest.mark.parametrize("text,args", RESPONSE, ids=[r[0] for r in RESPONSE])
def test_response_file_splitting(text, args):
    assert split_response_text(text) == args


@pytest.mark.parametrize("arg", ["a b", "x\"y", "it's", "back\\slash", "", "tab\there", "plain"])
def test_response_quoting_round_trips(arg):
    assert split_response_text(quote_response_arg(arg) + " next") == [arg, "next"]


def test_response_files_nest_and_unreadable_stay(tmp_path):
    (tmp_path / "inner.rsp").write_text("-DINNER 'b c.c'")
    (tmp_path / "outer.rsp").write_text(f"-c @{tmp_path / 'inner.rsp'} a.c")
    args = expand_response_files([f"@{tmp_path / 'outer.rsp'}", "@missing.rsp", "-o", "x.o"])
    assert args == ["-c", "-DINNER", "b c.c", "a.c", "@missing.rsp", "-o", "x.o"]
    cmd = classify([f"@{tmp_path / 'outer.rsp'}"])
    assert [cmd.args[k] for k in cmd.sources] == ["b c.c", "a.c"] and cmd.expanded


# -- the exact command the compiler gets ----------------------------------------------------
LIB = "<runtime>"
# (arguments; the compiler's arguments, with LIB for the runtime library): plain.c has no
# OpenMP directive and off.c needs -fopenmp to be translated, so all of these go verbatim
VERBATIM = [
    ["-I", "/home/me/include", "-c", "plain.c"],
    ["-I/home/me/include", "-O2", "-c", "plain.c"],
    ["-isystem", "/opt/inc", "-iquote", "q", "-idirafter", "d", "-c", "plain.c"],
    ["-D", "X=1", "-DY", "-DS=\"a b\"", "-D'Q=x'", "-UZ", "-U", "W", "-c", "plain.c"],
    ["-Wp,-MD,plain.d", "-Wl,-rpath,/opt/lib", "-c", "plain.c"],
    ["-MD", "-MF", "deps.d", "-MT", "tgt", "-c", "plain.c"],
    ["-MMD", "-std=c99", "-c", "plain.c", "-o", "obj.o"],
    ["-o", "obj.o", "-c", "-x", "c", "plain.c"],
    ["-c", "plain.c", "off.c"],
    ["-c", "off.c"],                      # no -fopenmp: its pragmas mean nothing
    ["-fopenmp", "-E", "off.c"],
    ["-fopenmp", "-S", "off.c", "-o", "off.s"],
    ["-fopenmp", "-M", "off.c"],
    ["-fopenmp", "-fsyntax-only", "off.c"],
    ["-fopenmp", "-x", "c", "-c", "-", "-o", "stdin.o"],
    ["-fopenmp", "-c", "x.s", "y.cpp"],
    ["--version"],
    ["-h", "-I/h/e/l/p", "-c", "plain.c"],
    ["-o", "app", "plain.c", "-lm"],
    ["plain.c", "-o", "app", "-Wl,--as-needed"],
    ["-fopenmp", "a.o", "b.a", "-o", "app", "-lm"],
]


def _runtime_free(call: list[str]) -> list[str]:
    return [LIB if re.search(r"cc-runtime/\w+/libompcl_rt\.a$", a) else a for a in call]


@pytest.mark.parametrize("args", VERBATIM, ids=[" ".join(a) for a in VERBATIM])
def test_arguments_go_verbatim(tmp_path, args):
    write_project(tmp_path)
    fake, log = fake_compiler(tmp_path)
    res = ompcl_cc(tmp_path, *args, OMPCL_CC=str(fake), FAKECC_LOG=str(log))
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""
    links = classify(args).mode == "link"
    assert [_runtime_free(c) for c in fake_calls(log)] == [
        args + (["-x", "none", LIB, *LINK_FLAGS] if links else [])]


def test_response_file_goes_verbatim(tmp_path):
    write_project(tmp_path)
    (tmp_path / "args.rsp").write_text("-O2 '-DMSG=\"hi there\"' -c plain.c")
    fake, log = fake_compiler(tmp_path)
    res = ompcl_cc(tmp_path, "@args.rsp", OMPCL_CC=str(fake), FAKECC_LOG=str(log))
    assert res.returncode == 0, res.stderr
    assert fake_calls(log) == [["@args.rsp"]]


@pytest.mark.parametrize("args,translated", [
    (["-fopenmp", "-c", "off.c"], "off.c"),
    (["-O2", "-fopenmp", "-c", "off.c", "-o", "obj.o", "-DX"], "off.c"),
    (["-fopenmp", "-c", "plain.c", "off.c", "-MMD"], "off.c"),
    (["-fopenmp", "-o", "app", "off.c", "plain.c", "-lm"], "off.c"),
    (["-fopenmp", "-x", "c", "off.c", "-o", "app"], "off.c"),
])
def test_translated_source_replaces_its_operand(tmp_path, args, translated):
    """Only the translated operand changes (to a file of the same base name); ompcl adds
    its runtime header's directory at the end of the search path, and the runtime library
    when linking. (One compiler command: OMPCL_JOBS=1; split commands are test_cc_split's.)"""
    write_project(tmp_path)
    fake, log = fake_compiler(tmp_path)
    res = ompcl_cc(tmp_path, *args, OMPCL_CC=str(fake), FAKECC_LOG=str(log), OMPCL_JOBS="1")
    assert res.returncode == 0, res.stderr
    (call,) = fake_calls(log)
    k = args.index(translated)
    head = ["-idirafter", str(RUNTIME_DIR)]
    tail = ["-x", "none", LIB, *LINK_FLAGS] if "-c" not in args else []
    call = _runtime_free(call)
    assert call[:2] == head and call[len(call) - len(tail):] == tail
    body = call[2:len(call) - len(tail)]
    assert body[:k] == args[:k] and body[k + 1:] == args[k + 1:]
    assert re.search(rf"/ompcl-cc-\w+/{k}/{re.escape(translated)}$", body[k])


def test_translated_command_with_response_file(tmp_path):
    """A command given in a response file runs, translated, from a response file."""
    write_project(tmp_path)
    (tmp_path / "args.rsp").write_text("-fopenmp -c off.c '-DNAME=\"a b\"'")
    fake, log = fake_compiler(tmp_path)
    res = ompcl_cc(tmp_path, "@args.rsp", OMPCL_CC=str(fake), FAKECC_LOG=str(log))
    assert res.returncode == 0, res.stderr
    (call,) = fake_calls(log)
    assert call[:2] == ["-idirafter", str(RUNTIME_DIR)] and len(call) == 3
    assert call[2].startswith("@") and call[2].endswith("args.rsp")


def test_compiler_status_is_passed_on(tmp_path):
    write_project(tmp_path)
    fake, log = fake_compiler(tmp_path)
    res = ompcl_cc(tmp_path, "-c", "plain.c", OMPCL_CC=str(fake), FAKECC_LOG=str(log),
                   FAKECC_RC="4")
    assert res.returncode == 4


@pytest.mark.parametrize("entry", [["-m", "ompcl"], ["-m", "ompcl.cli"]],
                         ids=["ompcl", "ompcl.cli"])
def test_include_path_with_h_is_not_help(tmp_path, entry):
    """Issue regression: '-I/home/...' once reached an option parser that found '-h' in it
    and printed help. Both entry points hand everything to the driver untouched."""
    import subprocess
    import sys

    from test_cc import cc_env
    write_project(tmp_path)
    fake, log = fake_compiler(tmp_path)
    args = ["-I/home/me/include", "-h", "--help", "--", "--debug", "-c", "plain.c"]
    res = subprocess.run([sys.executable, *entry, "cc", *args], cwd=tmp_path,
                         capture_output=True, text=True,
                         env=cc_env(tmp_path, OMPCL_CC=str(fake), FAKECC_LOG=str(log)))
    assert res.returncode == 0 and res.stdout == "", res.stdout + res.stderr
    expected = [a for a in args if entry[1] == "ompcl" or a != "--"]  # click eats a '--'
    assert fake_calls(log) == [expected]


def test_ompcl_cc_executable_entry(tmp_path):
    """The `ompcl-cc` console script (setup.cfg) is ompcl.driver:entry with sys.argv."""
    import subprocess
    import sys

    from test_cc import cc_env
    write_project(tmp_path)
    fake, log = fake_compiler(tmp_path)
    code = ("import sys; from ompcl.driver import entry; "
            "sys.argv = ['ompcl-cc', '-I/h', '-c', 'plain.c']; entry()")
    res = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, env=cc_env(tmp_path, OMPCL_CC=str(fake),
                                               FAKECC_LOG=str(log)))
    assert res.returncode == 0, res.stderr
    assert fake_calls(log) == [["-I/h", "-c", "plain.c"]]


ONLY_SYNCHRONISATION = """#include <stdio.h>
#include <omp.h>
static int calls;
#pragma omp threadprivate(calls)
double total;
void add(double v) {
#pragma omp critical (sum)
  total += v;
#pragma omp atomic update
  calls++;
#pragma omp barrier
#pragma omp master
  printf("%d\\n", omp_get_thread_num());
#pragma omp masked
  total *= 1.0;
#pragma omp flush
#pragma omp taskwait
#pragma omp taskyield
}
"""


@pytest.mark.parametrize("text, acted_on", [
    (ONLY_SYNCHRONISATION, False),
    ("int f(void) { return 0; }\n", False),
    ("#pragma omp parallel\n{ }\n", True),                 # a parallel region (team)
    ("#pragma omp for\nfor (;;) ;\n", True),
    ("#pragma omp critical\n#pragma omp parallel for\n", True),
    ("#  pragma  omp  master taskloop\n", True),           # a loop
    ("#pragma omp masked\\\n taskloop\n", True),            # continued
    ("#pragma omp target\n", True),
    ("#pragma omp declare target\n", True),
    ("#pragma omp single\n", True),
    ("#pragma omp\n", True),
    ("#pragma omp frobnicate\n", True),                    # its remark is the translator's
    ('OMP("omp parallel for reduction(+:s)")\n', True),    # graph500's macro
    ('_Pragma("omp for")\n', True),
    ("PRAGMA(omp parallel for)\n", True),                   # PRK's
    ('_Pragma("omp critical")\n', False),
    ('char *s = "compare";\n', False),
])
def test_directives_translation_acts_on(tmp_path, text, acted_on):
    """Only files whose directives translation acts on are translated: one with only
    synchronisation directives (in functions that parallel regions elsewhere call) costs
    what the compiler costs."""
    from ompcl.driver.args import has_directive
    (tmp_path / "f.c").write_text(text)
    assert has_directive(str(tmp_path / "f.c")) is acted_on


def test_synchronisation_directives_translate_to_themselves(tmp_path):
    """What makes skipping them safe: the translator leaves such a file as it is."""
    from ompcl.driver.cc import _translate_file
    from ompcl.frontend.preprocess import CppOptions
    (tmp_path / "f.c").write_text(ONLY_SYNCHRONISATION)
    host, remarks = _translate_file(str(tmp_path / "f.c"), CppOptions())
    assert host == ONLY_SYNCHRONISATION and remarks == []
