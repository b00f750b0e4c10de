"""Driver stage 2: run a compiler command with its OpenMP C sources translated.

Consumes a classified ``Command`` and the driver's options; produces what the compiler
produces (objects, executables, dependency files, messages, exit status). Each C source with
an OpenMP directive is translated on its own into a temporary file of the same base name;
the compiler runs on those in their place. A translated file that fails to compile is an
ompcl bug: the user's original is compiled instead (the safety net), unless strict mode asks
for an error.
"""
from __future__ import annotations

import functools
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from ..diagnostics import FALLBACK_TAG, OmpclError
from ..frontend.preprocess import reuse_preprocessed
from ..frontend.sourcemap import inlined_files
from . import cache, deps, split
from .args import (Command, DriverOptions, cpp_options, quote_response_arg,
                   sources_to_translate, translated_flags)
from .runtime import (RUNTIME_DIR, RuntimeBuildError, abi_flags, embed_runtime, link_tail,
                      other_interface, relocatable, runtime_library, weak_runtime)

_QUOTED_INCLUDE = re.compile(r'^([ \t]*#[ \t]*include[ \t]*)"([^"\n]+)"', re.M)
_COMPUTED_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include[ \t]+[A-Za-z_]", re.M)


class NoCompiler(Exception):
    """The compiler command cannot be run."""


@dataclass
class Unit:
    """One C source operand of the command and what became of it."""

    index: int                 # position in Command.args
    path: str                  # as the user wrote it
    translated: str | None = None   # temporary file compiled in its place
    error: str = ""            # why translation failed (a traceback for ompcl bugs)
    summary: str = ""          # one-line form of ``error``
    renames: dict[str, str] = field(default_factory=dict)   # include spellings, for deps
    inlined: list[str] = field(default_factory=list)   # sources inlined, for deps
    iquote: bool = False       # has a computed #include: needs its directory on -iquote


@dataclass
class Driver:
    """Runs one ``ompcl cc`` command line."""

    opts: DriverOptions
    env: dict[str, str] = field(default_factory=lambda: dict(os.environ))
    tmp: Path | None = None     # this command's temporary directory
    sources: tuple[str, ...] = ()  # the command's C sources (where callees may be defined)
    later: list = field(default_factory=list)   # cache writes, done while the compiler runs

    def run(self, cmd: Command, todo: list[int] | None = None) -> int:
        """Run ``cmd``; ``todo``: the indexes of the sources to translate, if known."""
        if cmd.mode == "query":
            return self.exec(list(cmd.raw))
        if todo is None:
            todo = sources_to_translate(cmd)
        if not todo and not cmd.links:
            return self.exec(list(cmd.raw))
        tmp = self.tmp = Path(tempfile.mkdtemp(prefix="ompcl-cc-"))
        try:
            link = self.link_args(cmd, tmp) if cmd.links else []
            if link is None or cmd.links and _refused(cmd.args):
                return 1
            if not todo and not any(a.startswith(str(tmp)) for a in link):
                shutil.rmtree(tmp, ignore_errors=True)
                return self.exec([*cmd.raw, *link])
            if not todo:
                return self.call([*cmd.raw, *link], capture=False).returncode
            cpp = cpp_options(cmd.args)
            self.sources = tuple(a for a in cmd.args if a.endswith(".c") and os.path.isfile(a))
            with reuse_preprocessed():   # a source is also its siblings' sibling: once each
                if split.separable(cmd) and jobs() > 1:
                    return self.run_split(cmd, todo, link, tmp, cpp)
                units = [self.translate(cmd.args[k], k, tmp / str(k), cpp) for k in todo]
            return self.compile(cmd, units, link, tmp)
        finally:
            self.catch_up()
            shutil.rmtree(tmp, ignore_errors=True)

    def catch_up(self) -> None:
        """Do the work put off until the compiler runs (cache writes: never an error)."""
        while self.later:
            try:
                self.later.pop(0)()
            except Exception:
                pass

    # -- running the compiler ---------------------------------------------------------------
    def exec(self, args: list[str]) -> int:
        """Replace this process by the compiler (nothing left to do afterwards)."""
        from . import _exec
        return _exec(self.opts.compiler, args)

    def call(self, args: list[str], capture: bool = True) -> subprocess.CompletedProcess:
        """Run the compiler, its messages captured (the driver decides what the user sees);
        the work put off (``later``) is done meanwhile."""
        argv = [*self.opts.compiler, *args]
        try:
            proc = subprocess.Popen(argv, text=True, errors="replace",
                                    stderr=subprocess.PIPE if capture else None)
        except OSError as e:
            raise NoCompiler(e) from None
        with proc:
            self.catch_up()
            _, err = proc.communicate()
        return subprocess.CompletedProcess(argv, proc.returncode, None, err)

    def link_args(self, cmd: Command, scratch: Path) -> list[str] | None:
        """The runtime library and its libraries, appended to every linking command but a
        relocatable one (``runtime.link_tail``, ``runtime.relocatable``)."""
        if relocatable(cmd.args):
            return []
        try:
            lib = runtime_library(self.opts.compiler, abi_flags(cmd.args), str(scratch))
        except RuntimeBuildError as e:
            where = self.save_report({"runtime-build.txt": f"{e}\n{e.log}"})
            kind = "error" if self.opts.strict else "warning"
            print(f"ompcl: {kind}: cannot build the ompcl runtime ({e}; messages saved in "
                  f"{where}); linking without it [ompcl-runtime]", file=sys.stderr)
            return None if self.opts.strict else []
        return link_tail(str(lib))

    def carry_runtime(self, cmd: Command, done: list[Unit]) -> None:
        """The objects ``-c`` writes of translated sources carry the runtime, weak: a link by
        another command (a C++ compiler, a Makefile's own linker variable) works too."""
        if not done or "-c" not in cmd.args or cmd.mode != "compile" or any(
                a in ("-S", "-E") or a.startswith("-flto") for a in cmd.args):
            return
        out = _output(cmd.args)
        objects = [o for o in (out or os.path.splitext(os.path.basename(u.path))[0] + ".o"
                               for u in done) if _elf_object(o)]
        try:
            lib = runtime_library(self.opts.compiler, abi_flags(cmd.args), None) \
                if objects else None
        except RuntimeBuildError:
            return
        weak = weak_runtime(self.opts.compiler, lib) if lib else None
        for obj in objects if weak else ():
            embed_runtime(self.opts.compiler, obj, weak)

    # -- translation ------------------------------------------------------------------------
    def translate(self, path: str, index: int, outdir: Path, cpp) -> Unit:
        """Translate one source into ``outdir``; any failure leaves the original in place."""
        unit = Unit(index, path)
        try:
            original, encoding = _read_text(path)
            with reuse_preprocessed():
                host, remarks = cache.cached(
                    path, cpp, functools.partial(_translate_file, model=self.opts.model),
                    self.sources, self.opts.model, self.later)
            fault, _, only = self.env.get("OMPCL_FAULT", "").partition(":")
            if only and only != os.path.basename(path):
                fault = ""
            if fault == "cc-crash":
                raise RuntimeError("fault injected (OMPCL_FAULT=cc-crash)")
            if fault == "cc-translation":
                host += "\nint ompcl_fault_injected = ;  /* OMPCL_FAULT=cc-translation */\n"
            if host != original:   # else nothing was offloaded: compile the original
                outdir.mkdir()
                text, unit.renames, unit.iquote = _anchor_includes(host, path)
                unit.inlined = inlined_files(host)
                target = str(outdir / os.path.basename(path))
                with open(target, "w", encoding=encoding, errors="surrogateescape") as fh:
                    fh.write(text)
                unit.translated = target
        except Exception as e:  # any failure here is ompcl's: the original is compiled
            unit.summary = e.format() if isinstance(e, OmpclError) else \
                f"internal error: {type(e).__name__}: {e}"
            unit.error = unit.summary + "\n\n" + traceback.format_exc()
            if self.opts.debug:
                traceback.print_exc()
            return unit
        self.print_remarks(remarks)
        if unit.translated and self.opts.keep:
            Path(self.opts.keep).mkdir(parents=True, exist_ok=True)
            shutil.copy(unit.translated, Path(self.opts.keep) / os.path.basename(path))
        return unit

    def print_remarks(self, remarks: list[tuple[str, str]]) -> None:
        shown = {"": ("warning",), "missed": ("warning", "missed"),
                 "all": ("warning", "missed", "passed")}[self.opts.remarks]
        for category, line in remarks:
            if category in shown:
                print(line, file=sys.stderr)

    # -- several sources: compiled one by one, side by side -----------------------------------
    def run_split(self, cmd: Command, todo: list[int], link: list[str], tmp: Path, cpp) -> int:
        """Run ``cmd`` (``split.separable``) as one compile per source and a link: each
        source's compile starts as soon as it is translated (or at once: nothing to
        translate), beside the translation of the next one. Anything unusual (a compiler
        error, a message of the compiler's driver, a failed link) and the command runs again
        as one compiler command (``compile``), which has the compiler's own messages and the
        safety net."""
        limit = jobs()
        running = _Compiles(self.opts.compiler)
        units: dict[int, Unit] = {}
        objects = {k: str(tmp / f"{k}.o") for k in cmd.sources} if cmd.links else {}
        order = [k for k in cmd.sources if k not in todo] + [k for k in cmd.sources if k in todo]
        for k in order:
            if k in todo:
                running.pump(max(1, limit - 1))   # this process translates meanwhile
                units[k] = self.translate(cmd.args[k], k, tmp / str(k), cpp)
            u = units.get(k)
            front = ["-idirafter", RUNTIME_DIR] if u and u.translated else []
            if u and u.translated and u.iquote:
                front += ["-iquote", os.path.dirname(u.path) or "."]
            source = u.translated if u and u.translated else cmd.args[k]
            late = translated_flags(cmd.args) if u and u.translated else []
            running.add(k, [*front, *split.compile_args(cmd, k, source, objects.get(k)), *late],
                        tmp / f"{k}.err")
        running.pump(limit)
        self.catch_up()
        results = running.finish(limit)
        done = [units[k] for k in todo]
        messages = "".join(results[k][1] for k in cmd.sources)
        if any(rc != 0 for rc, _ in results.values()) or \
                split.driver_message(self.opts.compiler, messages):
            return self.compile(cmd, done, link, tmp)
        if cmd.links:
            res = self.call([*split.link_args(cmd, objects), *link])
            if res.returncode != 0 or split.driver_message(self.opts.compiler, res.stderr):
                return self.compile(cmd, done, link, tmp)
            messages += res.stderr
        sys.stderr.write(messages)
        self.carry_runtime(cmd, [u for u in done if u.translated])
        failed = [u for u in done if u.error]
        return self.fall_back(failed, {}, 0) if failed else 0

    # -- compiling, with the safety net -----------------------------------------------------
    def compile(self, cmd: Command, units: list[Unit], link: list[str], tmp: Path) -> int:
        done = [u for u in units if u.translated]
        failed = [u for u in units if u.error]
        original = [*cmd.raw, *link]
        if not done:
            res = self.call(original)
            sys.stderr.write(res.stderr)
            if res.returncode != 0 and "ompcl_rt_abi_" in res.stderr:
                print("ompcl: note: an object was translated by another version of ompcl, "
                      "whose runtime interface differs (OMPCL_RT_ABI); rebuild it (for "
                      "example 'make clean')", file=sys.stderr)
            if res.returncode != 0 or not failed:
                return res.returncode    # the compiler rejects the user's own file
            return self.fall_back(failed, {}, res.returncode)
        res = self.call(self.translated_args(cmd, done, link, tmp))
        if res.returncode == 0:
            sys.stderr.write(res.stderr)
            self.fix_deps(cmd, done, tmp)
            self.carry_runtime(cmd, done)
            return self.fall_back(failed, {}, 0) if failed else 0
        orig = self.call(original)
        if orig.returncode != 0:
            sys.stderr.write(orig.stderr)   # the user's error: the compiler's own messages
            return orig.returncode
        if not self.opts.strict:
            sys.stderr.write(orig.stderr)
        else:
            sys.stderr.write(res.stderr)
        report = {"compiler-messages.txt": f"$ {shlex.join(res.args)}\n{res.stderr}"}
        for u in done:
            report[_report_name(report, u, "")] = Path(u.translated).read_text(
                errors="surrogateescape")
        return self.fall_back(failed + _culprits(done, res.stderr), report, orig.returncode)

    def translated_args(self, cmd: Command, done: list[Unit], link: list[str],
                        tmp: Path) -> list[str]:
        """The user's arguments with each translated source in place of its original."""
        args = list(cmd.args)
        for u in done:
            args[u.index] = u.translated
        front = ["-idirafter", RUNTIME_DIR]   # ompcl_rt.h, found after everything else
        for u in done:
            if u.iquote:
                front += ["-iquote", os.path.dirname(u.path) or "."]
        args += translated_flags(cmd.args)
        if cmd.expanded:  # keep long command lines short: a response file, as the user did
            rsp = tmp / "args.rsp"
            rsp.write_text(" ".join(quote_response_arg(a) for a in args) + "\n",
                           errors="surrogateescape")
            args = [f"@{rsp}"]
        return [*front, *args, *link]

    def fix_deps(self, cmd: Command, done: list[Unit], tmp: Path) -> None:
        if not deps.wants_deps(cmd.args):
            return
        renames: dict[str, str] = {}
        for u in done:
            renames[u.translated] = u.path
            renames.update(u.renames)
        drop = {os.path.join(RUNTIME_DIR, "ompcl_rt.h")}
        deps.rewrite(deps.candidates(cmd.args, [u.path for u in done]), renames, drop, str(tmp),
                     {u.translated: u.inlined for u in done}, "-MP" in cmd.args)

    def fall_back(self, units: list[Unit], report: dict[str, str], rc: int) -> int:
        """The originals were built because translation failed: say so once per file."""
        for u in units:
            if u.error:
                report[_report_name(report, u, ".translation-error.txt")] = u.error
        where = self.save_report(report)
        for u in units:
            what = (f"cannot translate this file ({u.summary})" if u.error else
                    "translated file failed to compile")
            if self.opts.strict:
                print(f"{u.path}: error: ompcl: {what} (strict mode; translation and compiler "
                      f"messages saved in {where}) {FALLBACK_TAG}", file=sys.stderr)
            else:
                print(f"{u.path}: warning: ompcl: {what}; built the original instead "
                      f"(translation and compiler messages saved in {where}) {FALLBACK_TAG}",
                      file=sys.stderr)
        return 1 if self.opts.strict else rc

    def save_report(self, files: dict[str, str]) -> str:
        """Write a failure report; the same failure again (a rebuild) reuses its folder."""
        if self.opts.keep:
            d = Path(self.opts.keep)
        else:
            import hashlib
            text = repr(sorted(files.items()))
            text = text.replace(str(self.tmp), "") if self.tmp else text
            digest = hashlib.sha256(text.encode("utf-8", "surrogateescape"))
            d = Path(tempfile.gettempdir()) / f"ompcl-fallback-{digest.hexdigest()[:12]}"
        d.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            (d / name).write_text(text, errors="surrogateescape")
        return str(d)


def jobs() -> int:
    """How many compiler processes one command may run at once: ``OMPCL_JOBS``, else the
    CPUs this process may use (1: a command's sources are compiled by one compiler command,
    after all of them are translated)."""
    try:
        return max(1, int(os.environ.get("OMPCL_JOBS", "")))
    except ValueError:
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
            os.cpu_count() or 1


class _Compiles:
    """Compiler processes started in the order given, at most so many at a time, each one's
    messages kept in a file of its own (the compiler's output is read when all are done,
    in the order of the sources). A thread waits for each one, and starts the next queued
    one as soon as it ends: the compilers keep their share of the CPUs while this process
    translates (it hands them work between translations, ``pump``)."""

    def __init__(self, compiler: tuple[str, ...]):
        import threading
        self.compiler = compiler
        self.queue: list[tuple[int, list[str], Path]] = []
        self.running: set[int] = set()
        self.results: dict[int, tuple[int, str]] = {}
        self.limit = 1
        self.error: OSError | None = None   # a compiler that could not be started
        self.changed = threading.Condition()

    def add(self, key: int, args: list[str], messages: Path) -> None:
        with self.changed:
            self.queue.append((key, args, messages))
            self._start_more()
        self._raise()

    def pump(self, limit: int) -> None:
        """Start queued ones while fewer than ``limit`` run (and, from now on, whenever one
        ends)."""
        with self.changed:
            self.limit = limit
            self._start_more()
        self._raise()

    def finish(self, limit: int) -> dict[int, tuple[int, str]]:
        """Run the rest, ``limit`` at a time; every one's (exit status, messages)."""
        with self.changed:
            self.limit = limit
            self._start_more()
            while self.running or (self.queue and self.error is None):
                self.changed.wait()
        self._raise()
        return self.results

    def _raise(self) -> None:
        """NoCompiler when a compiler could not be started, once the ones started ended."""
        if self.error is not None:
            with self.changed:
                while self.running:
                    self.changed.wait()
            raise NoCompiler(self.error) from None

    def _start_more(self) -> None:
        """(Holding ``changed``.)"""
        import threading
        while self.queue and len(self.running) < self.limit and self.error is None:
            key, args, messages = self.queue.pop(0)
            with open(messages, "wb") as err:
                try:
                    proc = subprocess.Popen([*self.compiler, *args], stderr=err)
                except OSError as e:
                    self.queue.clear()
                    self.error = e
                    return
            self.running.add(key)
            threading.Thread(target=self._wait, args=(key, proc, messages), daemon=True).start()

    def _wait(self, key: int, proc: subprocess.Popen, messages: Path) -> None:
        status = proc.wait()
        text = messages.read_text(errors="replace")
        with self.changed:
            self.results[key] = status, text
            self.running.discard(key)
            self._start_more()
            self.changed.notify_all()


def no_compiler(compiler: tuple[str, ...], e: OSError) -> int:
    print(f"ompcl: error: cannot run the compiler '{compiler[0]}': {e.strerror} "
          "(set OMPCL_CC or --ompcl-compiler=)", file=sys.stderr)
    return 1


def _culprits(done: list[Unit], messages: str) -> list[Unit]:
    """The translated files the compiler's errors point into (its messages name the user's
    files: translations carry #line directives); all of them when none is named."""
    lines = [m for m in messages.splitlines() if "error" in m]
    named = [u for u in done if any(m.startswith(f"{u.path}:") for m in lines)]
    return named or done


def _report_name(report: dict[str, str], unit: Unit, suffix: str) -> str:
    name = os.path.basename(unit.path) + suffix
    return f"{unit.index}-{name}" if name in report else name


def _refused(args: tuple[str, ...]) -> bool:
    """Whether the link has an object or archive of another runtime interface
    (``runtime.other_interface``); says so."""
    other = other_interface(args)
    if other is not None:
        print(f"ompcl: error: {other[0]} was translated by another version of ompcl, whose "
              f"runtime interface differs ({other[1]}); rebuild it (for example 'make "
              f"clean')", file=sys.stderr)
    return other is not None


def _elf_object(path: str) -> bool:
    """Whether ``path`` is an ELF relocatable object (what ``ld -r`` can extend)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(18)
    except OSError:
        return False
    order = "little" if head[5:6] == b"\x01" else "big"
    return head[:4] == b"\x7fELF" and len(head) == 18 and int.from_bytes(head[16:18], order) == 1


def _output(args: tuple[str, ...]) -> str | None:
    """The ``-o`` operand of a command's arguments, if any."""
    for k, a in enumerate(args):
        if a == "-o" and k + 1 < len(args):
            return args[k + 1]
        if a.startswith("-o") and len(a) > 2:
            return a[2:]
    return None


def _read_text(path: str) -> tuple[str, str]:
    """The file's text and the encoding it was read with (as the translator reads it)."""
    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"


def _anchor_includes(text: str, path: str) -> tuple[str, dict[str, str], bool]:
    """Make the quoted includes of a file that now lives elsewhere find what they found
    beside the original (gcc looks in the including file's directory first). Returns the
    text, the new spellings (for dependency files) and whether a computed include remains."""
    src_dir = os.path.dirname(path)
    renames: dict[str, str] = {}

    def anchor(m: re.Match) -> str:
        name = m[2]
        if os.path.isabs(name) or not os.path.isfile(os.path.join(src_dir, name)):
            return m[0]
        spelled = os.path.abspath(os.path.join(src_dir, name))   # relative would be to tmp
        renames[spelled] = os.path.join(src_dir, name)
        return f'{m[1]}"{spelled}"'

    return _QUOTED_INCLUDE.sub(anchor, text), renames, bool(_COMPUTED_INCLUDE.search(text))


def _translate_file(path: str, cpp, sources: tuple[str, ...] = (), model: str = ""
                    ) -> tuple[str, list[tuple[str, str]]]:
    """The one call into the translator: host text and remarks as (category, line) with
    category ``warning``, ``missed`` (loop not offloaded) or ``passed`` (offloaded)."""
    import gc
    from ..pipeline import Options, translate
    gc.disable()   # the parser allocates ~10^6 acyclic objects: collections only cost time
    try:
        u = translate(path, Options(cpp, sources=tuple(s for s in sources if s != path),
                                    model=model))
    finally:
        gc.enable()
    out = []
    for m in u.remarks:
        category = "warning" if m.kind != "remark" else "missed" if m.missed else "passed"
        if m.id == "unknown-pragma":
            category = "compiler"  # the compiler says it (-Wunknown-pragmas), never shown
        out.append((category, m.format()))
    return u.host_source, out
