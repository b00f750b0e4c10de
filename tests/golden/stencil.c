#define N 64
double u[N][N], v[N][N];

void sweep(double w)
{
    int i, j;
#pragma omp parallel for collapse(2)
    for (i = 1; i < N - 1; i++)
        for (j = 1; j < N - 1; j++)
            v[i][j] = w * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
}
