#define K 24
#define J 20
#define I 16
/* a line solver along k inside (j, i) work-items: the kernel's variant 'ompcl_k0r' reads
 * and writes copies ordered u[j][i][k][m], q[j][i][k]; the host and 'add' keep the order */
double u[K][J][I][5], q[K][J][I];

void solve(void)
{
    int i, j, k, m;
#pragma omp parallel for private(k, m) collapse(2)
    for (j = 0; j < J; j++)
        for (i = 0; i < I; i++)
            for (k = 1; k < K; k++)
                for (m = 0; m < 5; m++)
                    u[k][j][i][m] = 0.5 * u[k - 1][j][i][m] + q[k][j][i];
}

void add(double w)
{
    int i, j, k, m;
#pragma omp parallel for private(j, i, m)
    for (k = 0; k < K; k++)
        for (j = 0; j < J; j++)
            for (i = 0; i < I; i++)
                for (m = 0; m < 5; m++)
                    u[k][j][i][m] += w * q[k][j][i];
}
