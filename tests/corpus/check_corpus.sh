#!/bin/sh
# Checks every tests/corpus/*.c with gcc: metadata line, warning-free build with and without
# -fopenmp, and identical output with OMP_NUM_THREADS=1 and 2 (within the file's tolerance).
# Exits non-zero on any problem.
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
CC=${CC:-gcc}

# compare two outputs token by token: integers exactly, floats with relative tolerance $3
cmp_out() {
    python3 - "$1" "$2" "$3" <<'PY'
import re, sys
a = open(sys.argv[1]).read().split()
b = open(sys.argv[2]).read().split()
tol = float(sys.argv[3])
isint = re.compile(r'^[-+]?\d+$')
if len(a) != len(b):
    sys.exit("token count differs: %d vs %d" % (len(a), len(b)))
for x, y in zip(a, b):
    if x == y:
        continue
    if isint.match(x) or isint.match(y):
        sys.exit("integer token differs: %s vs %s" % (x, y))
    try:
        fx, fy = float(x), float(y)
    except ValueError:
        sys.exit("token differs: %s vs %s" % (x, y))
    if abs(fx - fy) > tol * max(abs(fx), abs(fy)):
        sys.exit("float token differs beyond %g: %s vs %s" % (tol, x, y))
PY
}

for f in "$dir"/*.c; do
    name=$(basename "$f" .c)
    first=$(head -n 1 "$f")
    if ! echo "$first" | grep -Eq '^/\* ompcl-expect: device=[0-9]+ host=[0-9]+( tolerance=[0-9.eE+-]+)? \*/$'; then
        echo "FAIL $name: bad metadata line: $first"; fail=1; continue
    fi
    tol=$(echo "$first" | sed -n 's/.*tolerance=\([0-9.eE+-]*\).*/\1/p')
    [ -n "$tol" ] || tol=1e-9
    if ! $CC -std=gnu99 -O2 -Wall -Wextra -Werror -fopenmp "$f" -o "$tmp/$name.omp" -lm 2>"$tmp/err"; then
        echo "FAIL $name: build with -fopenmp"; cat "$tmp/err"; fail=1; continue
    fi
    if ! $CC -std=gnu99 -O2 -Wall -Wextra -Wno-unknown-pragmas -Werror "$f" -o "$tmp/$name.seq" -lm 2>"$tmp/err"; then
        echo "FAIL $name: build without -fopenmp"; cat "$tmp/err"; fail=1; continue
    fi
    ok=1
    for v in omp:1 omp:2 omp:3 seq:1; do
        exe=${v%%:*}; nt=${v##*:}
        if ! OMP_NUM_THREADS=$nt timeout 10 "$tmp/$name.$exe" >"$tmp/$name.$exe.$nt.out" 2>"$tmp/err"; then
            echo "FAIL $name: run $exe OMP_NUM_THREADS=$nt"; cat "$tmp/err"; ok=0; continue
        fi
        if [ -s "$tmp/err" ]; then
            echo "FAIL $name: stderr output ($exe $nt)"; ok=0
        fi
        if [ "$v" != omp:1 ]; then
            if ! msg=$(cmp_out "$tmp/$name.omp.1.out" "$tmp/$name.$exe.$nt.out" "$tol" 2>&1); then
                echo "FAIL $name: output omp:1 vs $v: $msg"; ok=0
            fi
        fi
    done
    if [ ! -s "$tmp/$name.omp.1.out" ]; then
        echo "FAIL $name: no output"; ok=0
    fi
    if [ $ok = 1 ]; then echo "ok   $name"; else fail=1; fi
done
exit $fail
