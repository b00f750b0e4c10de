/* ompcl-expect: device=8 host=0 tolerance=1e-6 */
/* fuzz seed 341087: bounds:opencl-copy: register promotion loaded p7[i], read only under "if (i + 1 < n2 && ...)" in the inner loop, before that loop, one element past what the original reads */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

extern double gs0[4];
extern double gp1;
struct st35 {
    double x;
    int c;
    double v[2];
    float f;
};

static struct st35 sa3[11];

static double fd0(double x, double y)
{
    return 0.375 * x / (1.0 + fabs(y)) + 0.125;
}

static int fi0(int a, int b)
{
    return a > b ? (a - b) % 1009 : (b - a) % 1009;
}

int main(void)
{
    int i, j, k, t, h0, h1, h2;
    double cd = 0.0, hs = 0.0;
    unsigned long cu = 0UL;
    long hl = 0;
    int n0 = 93;
    int n1 = 117;
    int n2 = 11;
    int n3 = 11;
    int n4 = 7;
    double c5 = 0.692;
    int c6 = 6;
    int c7 = 7;
    double tp8 = 0.0;
    double r9 = 1.0;
    int r10 = 0;
    double r11 = -1e30;
    unsigned int r12 = 0u;
    static int s1[117];
    static int s4[11][7];
    double (*w0)[117] = malloc((size_t)93 * sizeof *w0);
    unsigned char *p2 = malloc((size_t)117 * sizeof(unsigned char));
    float *p3 = malloc((size_t)93 * sizeof(float));
    int *p5 = calloc((size_t)11 * 7, sizeof(int));
    double *p6 = malloc((size_t)11 * 7 * sizeof(double));
    signed char *p7 = calloc((size_t)11, sizeof(signed char));
    signed char *p8 = calloc((size_t)11, sizeof(signed char));
    int *p9 = calloc((size_t)7, sizeof(int));
    struct st35 *sa2 = malloc((size_t)117 * sizeof *sa2);
    (void)i; (void)j; (void)k; (void)t; (void)h0; (void)h1; (void)h2; (void)cd;
    (void)cu; (void)n0; (void)n1; (void)n2; (void)n3; (void)n4; (void)c5; (void)c6;
    (void)c7; (void)tp8; (void)r9; (void)r10; (void)r11; (void)r12; (void)fd0; (void)fi0;
    for (h0 = 0; h0 < 93; h0++)
        for (h1 = 0; h1 < 117; h1++)
            w0[h0][h1] = 2.0 * cos(0.01 * (h0 * 7 + h1 * 5 + 0)) - 0.25;
    for (h0 = 0; h0 < 117; h0++)
        s1[h0] = (h0 * 6 + 1) % 1009 - 500;
    for (h0 = 0; h0 < 117; h0++)
        p2[h0] = (unsigned char)(h0 * 10 + 2);
    for (h0 = 0; h0 < 93; h0++)
        p3[h0] = (float)(2.0 * sin(0.1 * (h0 * 1 + 3)) + 0.5);
    for (h0 = 0; h0 < 11; h0++)
        for (h1 = 0; h1 < 7; h1++)
            s4[h0][h1] = (h0 * 7 + h1 * 1 + 4) % 1009 - 500;
    for (h0 = 0; h0 < 11; h0++)
        for (h1 = 0; h1 < 7; h1++)
            p5[h0 * 7 + h1] = (h0 * 7 + h1 * 9 + 5) % 1009 - 500;
    for (h0 = 0; h0 < 11; h0++)
        for (h1 = 0; h1 < 7; h1++)
            p6[h0 * 7 + h1] = 2.0 * cos(0.01 * (h0 * 1 + h1 * 8 + 6)) - 0.25;
    for (h0 = 0; h0 < 11; h0++)
        p7[h0] = (signed char)((h0 * 9 + 7) % 200 - 100);
    for (h0 = 0; h0 < 11; h0++)
        p8[h0] = (signed char)((h0 * 12 + 8) % 200 - 100);
    for (h0 = 0; h0 < 7; h0++)
        p9[h0] = (h0 * 5 + 9) % 1009 - 500;
    for (h0 = 0; h0 < 117; h0++) {
        sa2[h0].x = 0.5 * cos(0.1 * h0);
        sa2[h0].c = (h0 * 7 + 3) % 1009;
        for (h1 = 0; h1 < 2; h1++)
            sa2[h0].v[h1] = 0.25 * h1 - 0.01 * h0;
        sa2[h0].f = (float)(0.125 * (h0 % 9));
    }
    for (h0 = 0; h0 < 11; h0++) {
        sa3[h0].x = 0.5 * cos(0.1 * h0);
        sa3[h0].c = (h0 * 7 + 4) % 1009;
        for (h1 = 0; h1 < 2; h1++)
            sa3[h0].v[h1] = 0.25 * h1 - 0.01 * h0;
        sa3[h0].f = (float)(0.125 * (h0 % 9));
    }
    /* -- body -- */
    for (h0 = 0; h0 < 7; h0 += 2)
        p9[h0] = ((p9[h0]) + 9 * (p9[h0])) % 1009;
    r9 = 1.0;
    r10 = 0;
/* ompcl-loop: map,reduction */
#pragma omp parallel for reduction(||:r10) reduction(*:r9) private(j) private(tp8)
    for (i = n0 - 92; i <= n0 - 1; ++i)
        for (j = 0; j <= 116; j += 2) {
            tp8 = 0.581 + -0.25 * (0.0625) + 0.25 * (p3[i]) + 0.0625 * (w0[i][j]);
            w0[i][j] = -0.117 + 0.5 * c5;
            r9 *= 1.0 + 1e-6 * (-0.298 + -0.25 * (fd0(fd0(w0[i][j], p3[i]), fd0(p3[i], tp8))) + 0.0625 * (w0[i][j]));
            r10 = r10 || (i == 1);
        }
    printf("r9 %.9e\n", (double)r9);
    printf("r10 %d\n", r10);
#pragma omp parallel private(gs0, gp1) default(shared) firstprivate(c5) private(i)
    {
        gp1 = 0.741 + 0.25 * (fd0(-0.375, c5)) + -0.5 * c5;
/* ompcl-loop: parallel_region,team1,team_sharing */
#pragma omp for
        for (i = -1; i <= n3 - 4; i += 2) {
            for (int q = 0; q < 4; q++)
                gs0[q] = -0.671 + 0.0625 * (0.001 * (p8[i + 1])) + 0.25 * (0.001 * (p8[i + 1]));
            double ts = 0.0;
            for (int q = 1; q < 4; q++)
                ts += gs0[q] - 0.5 * gs0[q - 1];
            p8[i + 1] = (signed char)((c6 / 8 + (fi0(c6, (int)(100.0 * ts)))) % 100);
        }
#pragma omp flush
/* ompcl-loop: parallel_region,struct,team1,team_sharing */
#pragma omp for
        for (i = 2; i < n1; i++) {
            for (int q = 0; q < 2; q++)
                sa2[i].v[q] = 0.5 * sa2[i].v[q] + 0.25 * (0.001 * (sa2[i].c));
            sa2[i].x = -0.62 + 0.125 * (fabs((double)sa2[i].f)) + -0.25 * (0.001 * i) + -0.5 * c5;
            sa2[i].f = (float)(-0.408 + 0.5 * ((double)sa2[i].f));
            p2[i] = (unsigned char)((i & 255) ^ (p2[i]));
        }
#pragma omp barrier
/* ompcl-loop: guarded,parallel_region,team1,team_sharing */
#pragma omp for firstprivate(c6) nowait
        for (i = 0; i < 117; i += 1) {
            if (i < n1 - 2 && s1[i + 2] > 0)
                p2[i] = (unsigned char)((i % 3 == 0 ? c6 : s1[i + 2]));
            else
                p2[i] = (unsigned char)((p2[i]) * (p2[i]));
        }
    }
    for (t = 0; t < 2; t++) {
#pragma omp parallel firstprivate(c6)
        {
/* ompcl-loop: map,parallel_region,reduction,region_reduction,team2 */
#pragma omp for collapse(2) reduction(max:r11)
            for (i = 3; i <= n2; i += 1)
                for (j = -1; j <= 5; ++j) {
                    s4[i - 1][j + 1] = ((s4[i - 1][j + 1]) / 1 + c6) % 1009;
                    r11 = fmax(r11, -0.648 + 0.3 * (0.1 * t) + -0.25 * (p6[(i - 1) * 7 + j + 1]));
                }
#pragma omp flush
/* ompcl-loop: guarded,parallel_region,team2 */
#pragma omp for
            for (i = 10; i > n2 - 12; --i)
                for (int j = 0; j < 7; j += 1) {
                    if (i + 1 < n2 && s4[i + 1][j] > 0)
                        p5[i * 7 + j] = ((p7[i]) - (s4[i + 1][j]) + 57) % 1009;
                    else
                        p5[i * 7 + j] = ((p8[i]) / 8 + 28) % 1009;
                }
#pragma omp single
            printf("single %d\n", 28);
/* ompcl-loop: parallel_region,struct,team2 */
#pragma omp for nowait
            for (i = n2 - 2; i >= 0; i--) {
                for (int q = 0; q < 2; q++)
                    sa3[i].v[q] = 0.5 * sa3[i].v[q] + 0.25 * (sa3[i].x);
                sa3[i].x = -0.54 + 0.5 * (0.1 * t);
                sa3[i].c = (((p8[i]) & 255) ^ c6) % 1009;
                p8[i] = (signed char)(((i % 4 == 0 ? p8[i] : p8[i])) % 100);
            }
        }
        printf("r11 %.9e\n", (double)r11);
        r12 = 0u;
/* ompcl-loop: map,reduction */
#pragma omp parallel for collapse(2) reduction(|:r12)
        for (int i = n2 - 12; i <= 8; i += 3)
            for (int j = 6; j > -1; j -= 1) {
                p5[(i + 1) * 7 + j] = (((s4[i + 1][j]) & 255) ^ t) % 1009;
                s4[i + 1][j] = ((s4[i + 1][j]) / 3 + j) % 1009;
                r12 |= 1u << ((unsigned int)(p8[i + 1]) & 31u);
            }
        printf("r12 %u\n", r12);
        c5 = 0.5 * c5 + 0.0625 * t;
    }
    /* -- checksums -- */
    cd = 0.0;
    for (h0 = 0; h0 < 93; h0++)
        for (h1 = 0; h1 < 117; h1++)
            cd += fabs((double)w0[h0][h1]) * (1.0 + 0.125 * ((h0 + h1) % 8));
    printf("w0 %.9e\n", cd);
    cu = 0UL;
    for (h0 = 0; h0 < 117; h0++)
        cu = cu * 1000003UL + (unsigned long)(long)s1[h0];
    printf("s1 %lu\n", cu);
    cu = 0UL;
    for (h0 = 0; h0 < 117; h0++)
        cu = cu * 1000003UL + (unsigned long)(long)p2[h0];
    printf("p2 %lu\n", cu);
    cd = 0.0;
    for (h0 = 0; h0 < 93; h0++)
        cd += fabs((double)p3[h0]) * (1.0 + 0.125 * ((h0) % 8));
    printf("p3 %.9e\n", cd);
    cu = 0UL;
    for (h0 = 0; h0 < 11; h0++)
        for (h1 = 0; h1 < 7; h1++)
            cu = cu * 1000003UL + (unsigned long)(long)s4[h0][h1];
    printf("s4 %lu\n", cu);
    cu = 0UL;
    for (h0 = 0; h0 < 11; h0++)
        for (h1 = 0; h1 < 7; h1++)
            cu = cu * 1000003UL + (unsigned long)(long)p5[h0 * 7 + h1];
    printf("p5 %lu\n", cu);
    cd = 0.0;
    for (h0 = 0; h0 < 11; h0++)
        for (h1 = 0; h1 < 7; h1++)
            cd += fabs((double)p6[h0 * 7 + h1]) * (1.0 + 0.125 * ((h0 + h1) % 8));
    printf("p6 %.9e\n", cd);
    cu = 0UL;
    for (h0 = 0; h0 < 11; h0++)
        cu = cu * 1000003UL + (unsigned long)(long)p7[h0];
    printf("p7 %lu\n", cu);
    cu = 0UL;
    for (h0 = 0; h0 < 11; h0++)
        cu = cu * 1000003UL + (unsigned long)(long)p8[h0];
    printf("p8 %lu\n", cu);
    cu = 0UL;
    for (h0 = 0; h0 < 7; h0++)
        cu = cu * 1000003UL + (unsigned long)(long)p9[h0];
    printf("p9 %lu\n", cu);
    cd = 0.0;
    cu = 0UL;
    for (h0 = 0; h0 < 117; h0++) {
        cd += fabs(sa2[h0].x) + fabs((double)sa2[h0].f);
        for (h1 = 0; h1 < 2; h1++)
            cd += fabs(sa2[h0].v[h1]) * (1.0 + 0.125 * h1);
        cu = cu * 1000003UL + (unsigned long)(long)sa2[h0].c;
    }
    printf("sa2 %.9e %lu\n", cd, cu);
    cd = 0.0;
    cu = 0UL;
    for (h0 = 0; h0 < 11; h0++) {
        cd += fabs(sa3[h0].x) + fabs((double)sa3[h0].f);
        for (h1 = 0; h1 < 2; h1++)
            cd += fabs(sa3[h0].v[h1]) * (1.0 + 0.125 * h1);
        cu = cu * 1000003UL + (unsigned long)(long)sa3[h0].c;
    }
    printf("sa3 %.9e %lu\n", cd, cu);
    printf("hs %.9e hl %ld\n", hs, hl);
    free(w0);
    free(p2);
    free(p3);
    free(p5);
    free(p6);
    free(p7);
    free(p8);
    free(p9);
    free(sa2);
    return 0;
}

/* ompcl-file: second.c */
double gs0[4];
double gp1;
