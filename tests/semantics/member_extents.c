/* Row lengths and loop bounds read from struct members: a pointer to variable-length rows
 * whose lengths are members (double (*u)[g->ny][g->nz], a grid struct's fields), inner
 * collapsed loops bounded by members (their trip counts computed before the members are
 * hoisted), and loops in functions that change such a member (they stay on the host: C fixes
 * a row length where the pointer is declared). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct { int nx, ny, nz; double h; } grid_t;
typedef struct { grid_t g; int steps; } model_t;

static void init3(const grid_t *g, double (*u)[g->ny][g->nz])
{
#pragma omp parallel for collapse(3)
    for (int i = 0; i < g->nx; i++)
        for (int j = 0; j < g->ny; j++)
            for (int k = 0; k < g->nz; k++)
                u[i][j][k] = sin(g->h * i) + cos(g->h * j) * k;
}

static void smooth(const model_t *m, double (*u)[m->g.ny][m->g.nz],
                   double (*v)[m->g.ny][m->g.nz])
{
#pragma omp parallel for
    for (int i = 1; i < m->g.nx - 1; i++)
        for (int j = 1; j < m->g.ny - 1; j++)
            for (int k = 0; k < m->g.nz; k++)
                v[i][j][k] = 0.25 * (u[i - 1][j][k] + u[i + 1][j][k] + u[i][j - 1][k]
                                     + u[i][j + 1][k]) + v[i][j][k];
}

static void flat(grid_t g, double *w)
{
#pragma omp parallel for collapse(2)
    for (int i = 0; i < g.nx; i++)
        for (int j = 0; j < g.ny; j++)
            w[i * g.ny + j] = i - 0.5 * j;
}

static void rescale(grid_t *g, double (*u)[g->ny][g->nz])
{
    /* writes a member a row length reads: stays on the host */
#pragma omp parallel for
    for (int i = 0; i < g->nx; i++) {
        u[i][0][0] *= 2.0;
        if (i == g->nx) g->nz = 1;
    }
}

static void widen(grid_t *g) { g->ny += 1; }

static void after_call(grid_t *g, double (*u)[g->ny][g->nz])
{
    /* the row length was fixed at entry; a callee then changes the member: host */
    widen(g);
#pragma omp parallel for
    for (int i = 0; i < g->nx; i++)
        u[i][g->ny - 2][1] += i;
    g->ny -= 1;
}

int main(int argc, char **argv)
{
    model_t m = {{23 + argc, 19, 17, 0.05}, 2};
    grid_t *g = &m.g;
    double (*u)[g->ny][g->nz] = malloc(sizeof(double) * g->nx * g->ny * g->nz);
    double (*v)[g->ny][g->nz] = calloc((size_t)g->nx * g->ny * g->nz, sizeof(double));
    double *w = malloc(sizeof(double) * g->nx * g->ny);
    double s = 0.0;
    init3(g, u);
    for (int t = 0; t < m.steps; t++)
        smooth(&m, u, v);
    flat(*g, w);
    rescale(g, u);
    after_call(g, u);
    for (int i = 0; i < g->nx; i++)
        for (int j = 0; j < g->ny; j++)
            for (int k = 0; k < g->nz; k++)
                s += w[i * g->ny + j] * (j + 1) + u[i][j][k] + v[i][j][k] * (i % 3 + k);
    printf("%.9f %.17g\n", s, u[7][5][3] + v[9][4][2]);
    free(u);
    free(v);
    free(w);
    return 0;
}
