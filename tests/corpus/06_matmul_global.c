/* ompcl-expect: device=3 host=0 */
/* Matrix multiply on global file-scope 2-D arrays: C(37x29) = A(37x41) * B(41x29). */
#include <stdio.h>

#define M 37
#define K 41
#define N 29

double A[M][K], B[K][N], C[M][N];

int main(void)
{
    int i, j, k;
    double s = 0.0;

#pragma omp parallel for collapse(2)
    for (i = 0; i < M; i++)
        for (j = 0; j < K; j++)
            A[i][j] = (double)((i + 2 * j) % 13) - 6.0;

#pragma omp parallel for private(j)
    for (i = 0; i < K; i++)
        for (j = 0; j < N; j++)
            B[i][j] = 0.5 * ((i * j) % 7) + 0.25;

#pragma omp parallel for private(j, k)
    for (i = 0; i < M; i++) {
        for (j = 0; j < N; j++) {
            double t = 0.0;
            for (k = 0; k < K; k++)
                t += A[i][k] * B[k][j];
            C[i][j] = t;
        }
    }

    for (i = 0; i < M; i++)
        for (j = 0; j < N; j++)
            s += C[i][j] * (1 + (i + j) % 3);
    printf("%.10e\n%.10e %.10e %.10e\n", s, C[0][0], C[M / 2][N / 3], C[M - 1][N - 1]);
    return 0;
}
