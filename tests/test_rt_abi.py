"""The runtime's interface number (``OMPCL_RT_ABI`` in ompcl_rt.h) changes with the header:
every translated file refers to the symbol named after the number, so an object translated
by an older ompcl fails to link with a newer runtime instead of misreading its records (a
rebuild that reused such objects crashed writing the statistics). A change of the header
must come with a new number and its hash here."""
from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from pathlib import Path

from ompcl.runtime import RUNTIME_DIR

#: interface number -> hash of ompcl_rt.h without its number line
KNOWN = {7: "46d0bedb7e4feeca", 8: "e04a8cd2327f007b", 9: "b2fac7dcc4c3d861",
         10: "de61f11f88f01832"}


def _number_and_hash() -> tuple[int, str]:
    text = (Path(RUNTIME_DIR) / "ompcl_rt.h").read_text()
    m = re.search(r"^#define OMPCL_RT_ABI (\d+)\n", text, re.M)
    assert m, "ompcl_rt.h lost its OMPCL_RT_ABI line"
    body = text[:m.start()] + text[m.end():]
    return int(m.group(1)), hashlib.sha256(body.encode()).hexdigest()[:16]


def test_the_interface_number_changes_with_the_header():
    number, digest = _number_and_hash()
    assert KNOWN.get(number) == digest, (
        f"ompcl_rt.h changed (hash {digest}): raise OMPCL_RT_ABI above {max(KNOWN)} and add "
        f"the new number with this hash to KNOWN")


PROG = r"""
#include <stdio.h>
double a[1000];
int main(void) {
  int i;
#pragma omp parallel for
  for (i = 0; i < 1000; i++) a[i] = i * 0.5;
  printf("%.1f\n", a[999]);
  return 0;
}
"""


def test_an_object_of_another_interface_does_not_link(tmp_path):
    """An object whose translated code names another interface number (as one translated by
    an older ompcl does) is refused by the linker, naming the symbol."""
    src = tmp_path / "p.c"
    src.write_text(PROG)
    cc = [sys.executable, "-m", "ompcl", "cc"]
    res = subprocess.run(cc + ["-fopenmp", "-c", str(src), "-o", str(tmp_path / "p.o")],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    number, _ = _number_and_hash()
    obj = (tmp_path / "p.o").read_bytes()
    old = f"ompcl_rt_abi_{number}".encode()
    assert old in obj
    stale = obj.replace(old, f"ompcl_rt_abi_{number - 1}".encode()[:len(old)].ljust(len(old),
                                                                                 b"0"))
    (tmp_path / "old.o").write_bytes(stale)
    res = subprocess.run(cc + ["-fopenmp", str(tmp_path / "old.o"), "-o", str(tmp_path / "x")],
                         capture_output=True, text=True)
    assert res.returncode != 0
    assert "rebuild_objects_translated_by_another_ompcl" in res.stderr
    res = subprocess.run(cc + ["-fopenmp", str(tmp_path / "p.o"), "-o", str(tmp_path / "y")],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
