/* ompcl-expect: device=1 host=0 tolerance=1e-3 */
/* Mandelbrot set: while loop inside the body, collapse(2), int iteration counts on a global array.
   Totals are printed as floating-point with a loose tolerance: a fused multiply-add on the device
   may change the escape iteration of a few boundary points. */
#include <stdio.h>

#define H 61
#define W 83
#define MAXIT 200

int iters[H][W];

int main(void)
{
    int i, j;
    long total = 0, inside = 0;

#pragma omp parallel for collapse(2) schedule(dynamic, 4)
    for (i = 0; i < H; i++)
        for (j = 0; j < W; j++) {
            double cr = -2.1 + 2.8 * j / (W - 1);
            double ci = -1.2 + 2.4 * i / (H - 1);
            double zr = 0.0, zi = 0.0;
            int k = 0;
            while (k < MAXIT && zr * zr + zi * zi <= 4.0) {
                double tmp = zr * zr - zi * zi + cr;
                zi = 2.0 * zr * zi + ci;
                zr = tmp;
                k++;
            }
            iters[i][j] = k;
        }

    for (i = 0; i < H; i++)
        for (j = 0; j < W; j++) {
            total += iters[i][j];
            inside += iters[i][j] == MAXIT;
        }
    printf("%.10e %.10e\n", (double)total, (double)inside);
    return 0;
}
