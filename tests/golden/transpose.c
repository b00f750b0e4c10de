/* B = A^T: a write that strides along the inner loop of a collapse(2) nest, so the blocked
 * (CPU) shape runs it in tiles */
#define N 500

double A[N][N], B[N][N];

void transpose(void)
{
    int i, j;
#pragma omp parallel for collapse(2)
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            B[j][i] = A[i][j];
}
