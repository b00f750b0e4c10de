/*
 * verify.c - BT verification: the RMS norms of the final residual
 * (divided by dt) and of the final error must match the class reference
 * values within a relative VERIFY_EPSILON, and dt must be the reference dt.
 */
#include <stdio.h>
#include <math.h>
#include "header.h"

void verify(int no_time_steps, int *verified)
{
    const double xcrref[5] = { NPB_REF(XCRREF_0), NPB_REF(XCRREF_1), NPB_REF(XCRREF_2),
                               NPB_REF(XCRREF_3), NPB_REF(XCRREF_4) };
    const double xceref[5] = { NPB_REF(XCEREF_0), NPB_REF(XCEREF_1), NPB_REF(XCEREF_2),
                               NPB_REF(XCEREF_3), NPB_REF(XCEREF_4) };
    const double epsilon = VERIFY_EPSILON;
    double xcr[5], xce[5], xcrdif[5], xcedif[5];
    int m, ok = 1;

    /* error against the exact solution, then the residual of the final u */
    error_norm(xce);
    compute_rhs();
    rhs_norm(xcr);
    for (m = 0; m < 5; m++)
        xcr[m] = xcr[m] / dt;

    for (m = 0; m < 5; m++) {
        xcrdif[m] = fabs((xcr[m] - xcrref[m]) / xcrref[m]);
        xcedif[m] = fabs((xce[m] - xceref[m]) / xceref[m]);
        /* the negated test also rejects NaN */
        if (!(xcrdif[m] <= epsilon) || !(xcedif[m] <= epsilon))
            ok = 0;
    }
    if (!(fabs(dt - DT_REF) <= epsilon))
        ok = 0;

    printf("\n Verification being performed for class %c (%d time steps)\n",
           NPB_CLASS, no_time_steps);
    printf(" accuracy setting for epsilon = %20.13E\n", epsilon);
    printf(" dt = %20.13E, reference dt = %20.13E\n", dt, DT_REF);
    printf(" Comparison of RMS-norms of residual\n");
    for (m = 0; m < 5; m++)
        printf("          %2d %20.13E %20.13E %20.13E%s\n", m + 1, xcr[m], xcrref[m], xcrdif[m],
               xcrdif[m] <= epsilon ? "" : " FAILURE");
    printf(" Comparison of RMS-norms of solution error\n");
    for (m = 0; m < 5; m++)
        printf("          %2d %20.13E %20.13E %20.13E%s\n", m + 1, xce[m], xceref[m], xcedif[m],
               xcedif[m] <= epsilon ? "" : " FAILURE");
    printf(" Verification %s\n", ok ? "Successful" : "failed");

    *verified = ok;
}
