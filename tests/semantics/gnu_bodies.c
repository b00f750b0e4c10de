/* GNU C in function bodies that hold OpenMP loops: statement expressions (literal and from
 * kernel-style min/max macros), typeof and __auto_type locals, asm barriers and _Generic.
 * Loops using typeof locals and statement expressions run on the device (their types worked
 * out), a loop using _Generic stays on the host; host code between them that writes arrays
 * inside a statement expression is seen. */
#include <stdio.h>
#include <stdlib.h>

#define min(x, y) ({ typeof(x) _a = (x); typeof(y) _b = (y); (void)(&_a == &_b); _a < _b ? _a : _b; })
#define swap(a, b) do { typeof(a) __t = (a); (a) = (b); (b) = __t; } while (0)
#define barrier() __asm__ __volatile__("" : : : "memory")
#define absval(x) _Generic((x), int: abs, default: labs)(x)

static double step(double *u, double *v, int n, int steps)
{
    int i, t;
    for (t = 0; t < steps; t++) {
#pragma omp parallel for
        for (i = 1; i < n - 1; i++)
            v[i] = 0.25 * (u[i - 1] + 2.0 * u[i] + u[i + 1]);
        v[0] = v[1];
        ({ v[n - 1] = v[n - 2] + 0.5; u[0] += 1.0; 0; });  /* host writes, hidden in one */
        swap(u, v);
        barrier();
    }
    __auto_type total = 0.0;
#pragma omp parallel for reduction(+:total)
    for (i = 0; i < n; i++)
        total += u[i];
    return total;
}

/* no macros: instrumented host code (a statement expression as an operand is read as a
 * stand-in, an unknown call) */
static double step_literal(double *u, double *v, int n, int steps)
{
    int i, t;
    double edge = 0.0;
    for (t = 0; t < steps; t++) {
#pragma omp parallel for
        for (i = 1; i < n - 1; i++)
            v[i] = 0.25 * (u[i - 1] + 2.0 * u[i] + u[i + 1]);
        edge = edge + ({ v[0] = v[1]; v[n - 1] = v[n - 2] + 0.5; u[3] += 1.0; v[0]; });
        ({ double *tmp = u; u = v; v = tmp; });
    }
    double total = 0.0;
#pragma omp parallel for reduction(+:total)
    for (i = 0; i < n; i++)
        total += u[i];
    return total + edge;
}

int main(void)
{
    int n = 2000, i, lo = 1 << 30;
    double *u = malloc(n * sizeof *u), *v = malloc(n * sizeof *v);
    int *w = malloc(n * sizeof *w);
    for (i = 0; i < n; i++) {
        u[i] = (double)(i % 17);
        v[i] = 0.0;
        w[i] = (i * 37) % 101 - 50;
    }
    double s = step(u, v, n, 7);
    for (i = 0; i < n; i++) {
        u[i] = (double)(i % 13);
        v[i] = 1.0;
    }
    s += step_literal(u, v, n, 5);
#pragma omp parallel for reduction(min:lo)
    for (i = 0; i < n; i++)
        lo = min(lo, w[i] * 3);  /* a statement expression with typeof locals */
    long acc = 0;
#pragma omp parallel for reduction(+:acc)
    for (i = 0; i < n; i++)
        acc += absval(w[i]);  /* _Generic: stays on the host */
#pragma omp parallel for
    for (i = 0; i < n; i++)
        w[i] = w[i] * 2 + 1;
    long check = 0;
    for (i = 0; i < n; i++)
        check += w[i];
    printf("%.6f %d %ld %ld\n", s, lo, acc, check);
    free(u);
    free(v);
    free(w);
    return 0;
}
