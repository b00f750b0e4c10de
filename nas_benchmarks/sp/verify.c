/*
 * verify.c - SP: verification against the NPB reference values.
 *
 * xce = RMS norms of the error of the final solution, xcr = RMS norms of the
 * steady-state residual divided by dt; each must agree with its reference
 * value to a relative error of SP_EPSILON, and dt must be the reference dt.
 */
#include <stdio.h>
#include <math.h>
#include "header.h"

/* Returns 1 when the run verifies. */
int verify(int no_time_steps)
{
    const double xcrref[5] = {NPB_REF(XCRREF_1), NPB_REF(XCRREF_2), NPB_REF(XCRREF_3),
                              NPB_REF(XCRREF_4), NPB_REF(XCRREF_5)};
    const double xceref[5] = {NPB_REF(XCEREF_1), NPB_REF(XCEREF_2), NPB_REF(XCEREF_3),
                              NPB_REF(XCEREF_4), NPB_REF(XCEREF_5)};
    const double dtref = DT_REF;
    const double epsilon = SP_EPSILON;
    double xce[5], xcr[5], xcedif[5], xcrdif[5];
    int m, verified = 1;

    /* error norms of the solution, then the norms of the residual */
    error_norm(xce);
    compute_rhs();
    rhs_norm(xcr);
    for (m = 0; m < 5; m++)
        xcr[m] = xcr[m] / dt;

    for (m = 0; m < 5; m++) {
        xcrdif[m] = fabs((xcr[m] - xcrref[m]) / xcrref[m]);
        xcedif[m] = fabs((xce[m] - xceref[m]) / xceref[m]);
    }

    printf(" Verification being performed for class %c\n", NPB_CLASS);
    printf(" accuracy setting for epsilon = %20.13E\n", epsilon);
    if (!(fabs(dt - dtref) <= epsilon) || no_time_steps != NITER_DEFAULT) {
        verified = 0;
        printf(" DT or the number of time steps does not match the reference"
               " (dt %15.8E, %d steps)\n", dtref, NITER_DEFAULT);
    }

    printf(" Comparison of RMS-norms of residual\n");
    for (m = 0; m < 5; m++) {
        if (xcrdif[m] <= epsilon) {
            printf("          %2d%20.13E%20.13E%20.13E\n", m + 1, xcr[m], xcrref[m], xcrdif[m]);
        } else {
            verified = 0;
            printf(" FAILURE: %2d%20.13E%20.13E%20.13E\n", m + 1, xcr[m], xcrref[m], xcrdif[m]);
        }
    }

    printf(" Comparison of RMS-norms of solution error\n");
    for (m = 0; m < 5; m++) {
        if (xcedif[m] <= epsilon) {
            printf("          %2d%20.13E%20.13E%20.13E\n", m + 1, xce[m], xceref[m], xcedif[m]);
        } else {
            verified = 0;
            printf(" FAILURE: %2d%20.13E%20.13E%20.13E\n", m + 1, xce[m], xceref[m], xcedif[m]);
        }
    }

    if (verified)
        printf(" Verification Successful\n");
    else
        printf(" Verification failed\n");
    return verified;
}
