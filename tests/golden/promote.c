#define N 64
/* register promotion: C[i][j] kept across the k loop (loaded before, stored after, both
 * guarded by the loop's first test); vector access: the five components of u[i][j] are read
 * twice each (kept, loaded as a vload4 and a scalar), the row r[i][j] is stored as a vstore4
 * and a scalar */
double A[N][N], B[N][N], C[N][N];
double u[N][N][5], r[N][N][5];

void gemm(int n, double alpha)
{
    int i, j, k;
#pragma omp parallel for private(j, k)
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            for (k = 0; k < n; k++)
                C[i][j] += alpha * A[i][k] * B[k][j];
}

void rows(double c, int n)
{
    int i, j;
#pragma omp parallel for private(j)
    for (i = 0; i < n; i++)
        for (j = 1; j < n; j++) {
            double t = c * u[i][j][1];
            r[i][j][0] = u[i][j][0] * t + u[i][j][1];
            r[i][j][1] = u[i][j][1] * u[i][j][2] + t;
            r[i][j][2] = u[i][j][2] * u[i][j][3];
            r[i][j][3] = u[i][j][3] * u[i][j][4] - u[i][j][0];
            r[i][j][4] = u[i][j][4] + u[i][j - 1][4];
        }
}
