/* 2-D heat diffusion over MPI ranks: the grid is split by rows, each rank sweeps its rows
 * with OpenMP (5-point Jacobi stencil) and exchanges one halo row with each neighbour
 * (MPI_Sendrecv) between sweeps; the largest change is combined with MPI_Allreduce.
 *
 * The hybrid example of ompcl (docs/driver.md, "MPI"): built with
 *   OMPI_CC="ompcl cc" mpicc -fopenmp -O2 heat2d_mpi.c -o heat2d_mpi -lm
 * each rank's loops run on its OpenCL device and the grids stay there for all steps: per step
 * only the halo rows cross between host and device (the rows a rank sends are read back,
 * the rows it receives are written to the device), not the arrays.
 * Usage: mpirun -np R heat2d_mpi [steps]; the grid is NX x NY (-DNX=... -DNY=...).
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef NX
#define NX 256
#endif
#ifndef NY
#define NY 256
#endif
#define ALPHA 0.2

/* this rank's rows, with one halo row above (row 0) and one below (row rows + 1) */
static double (*u)[NY], (*unew)[NY];

static double initial(int gi, int j)
{
    double x = (double)gi / (NX - 1), y = (double)j / (NY - 1);
    return sin(M_PI * x) * sin(M_PI * y)
           + 0.5 * exp(-40.0 * ((x - 0.3) * (x - 0.3) + (y - 0.6) * (y - 0.6)));
}

int main(int argc, char **argv)
{
    int rank, size, steps, rows, first, up, down, lo, hi, t, i, j;
    double change = 0.0, local, total = 0.0, sum, t0, elapsed;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    steps = argc > 1 ? atoi(argv[1]) : 100;
    /* rows [first, first + rows) of the global grid are this rank's */
    rows = NX / size + (rank < NX % size);
    first = rank * (NX / size) + (rank < NX % size ? rank : NX % size);
    up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    /* the local rows the stencil updates: not the global grid's first and last rows */
    lo = first == 0 ? 2 : 1;
    hi = first + rows == NX ? rows : rows + 1;
    u = malloc((size_t)(rows + 2) * sizeof *u);
    unew = malloc((size_t)(rows + 2) * sizeof *unew);

#pragma omp parallel for private(j)
    for (i = 0; i < rows + 2; i++)
        for (j = 0; j < NY; j++) {
            u[i][j] = first + i - 1 >= 0 && first + i - 1 < NX ? initial(first + i - 1, j) : 0.0;
            unew[i][j] = u[i][j];
        }

    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (t = 0; t < steps; t++) {
        /* halo exchange: first row up and last row down, then the other way */
        MPI_Sendrecv(u[1], NY, MPI_DOUBLE, up, 0, u[rows + 1], NY, MPI_DOUBLE, down, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(u[rows], NY, MPI_DOUBLE, down, 1, u[0], NY, MPI_DOUBLE, up, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
#pragma omp parallel for collapse(2)
        for (i = lo; i < hi; i++)
            for (j = 1; j < NY - 1; j++)
                unew[i][j] = u[i][j] + ALPHA * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1]
                                                + u[i][j + 1] - 4.0 * u[i][j]);
        local = 0.0;
#pragma omp parallel for collapse(2) reduction(max:local)
        for (i = lo; i < hi; i++)
            for (j = 1; j < NY - 1; j++) {
                double d = fabs(unew[i][j] - u[i][j]);
                local = d > local ? d : local;
                u[i][j] = unew[i][j];
            }
        MPI_Allreduce(&local, &change, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    elapsed = MPI_Wtime() - t0;

    sum = 0.0;
#pragma omp parallel for private(j) reduction(+:sum)
    for (i = 1; i < rows + 1; i++)
        for (j = 0; j < NY; j++)
            sum += u[i][j];
    MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("grid %dx%d, %d steps, %d ranks\n", NX, NY, steps, size);
        printf("last max change = %.12e\n", change);
        printf("heat content    = %.12e\n", total);
        fprintf(stderr, "time per step: %.6f s\n", elapsed / (steps > 0 ? steps : 1));
    }
    free(u);
    free(unew);
    MPI_Finalize();
    return 0;
}
