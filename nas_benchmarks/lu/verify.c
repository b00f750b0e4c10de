/*
 * verify.c - verification of NPB LU against the reference values of the
 * compiled class: the RMS norms of the residual xcr (not divided by dt),
 * of the solution error xce, and the surface integral xci must match to
 * a relative VERIFY_EPSILON, and dt must be the reference time step.
 */
#include <stdio.h>
#include <math.h>
#include "applu.h"

void verify(const double xcr[5], const double xce[5], double xci, int *verified)
{
    const double xcrref[5] = { NPB_REF(XCRREF0), NPB_REF(XCRREF1), NPB_REF(XCRREF2),
                               NPB_REF(XCRREF3), NPB_REF(XCRREF4) };
    const double xceref[5] = { NPB_REF(XCEREF0), NPB_REF(XCEREF1), NPB_REF(XCEREF2),
                               NPB_REF(XCEREF3), NPB_REF(XCEREF4) };
    const double xciref = NPB_REF(XCIREF);
    const double dtref = NPB_REF(DTREF);
    const double epsilon = VERIFY_EPSILON;
    double xcrdif[5], xcedif[5], xcidif;
    int m, ok = 1;

    for (m = 0; m < 5; m++) {
        xcrdif[m] = fabs((xcr[m] - xcrref[m]) / xcrref[m]);
        xcedif[m] = fabs((xce[m] - xceref[m]) / xceref[m]);
    }
    xcidif = fabs((xci - xciref) / xciref);

    printf("\n Verification being performed for class %c\n", NPB_CLASS);
    printf(" Accuracy setting for epsilon = %20.13E\n", epsilon);
    if (fabs(dt - dtref) > epsilon) {
        ok = 0;
        printf(" DT does not match the reference value of %15.8E\n", dtref);
    }

    printf(" Comparison of RMS-norms of residual\n");
    for (m = 0; m < 5; m++) {
        if (xcrdif[m] <= epsilon) {
            printf("          %2d  %20.13E%20.13E%20.13E\n", m + 1, xcr[m], xcrref[m], xcrdif[m]);
        } else {
            ok = 0;
            printf(" FAILURE: %2d  %20.13E%20.13E%20.13E\n", m + 1, xcr[m], xcrref[m], xcrdif[m]);
        }
    }

    printf(" Comparison of RMS-norms of solution error\n");
    for (m = 0; m < 5; m++) {
        if (xcedif[m] <= epsilon) {
            printf("          %2d  %20.13E%20.13E%20.13E\n", m + 1, xce[m], xceref[m], xcedif[m]);
        } else {
            ok = 0;
            printf(" FAILURE: %2d  %20.13E%20.13E%20.13E\n", m + 1, xce[m], xceref[m], xcedif[m]);
        }
    }

    printf(" Comparison of surface integral\n");
    if (xcidif <= epsilon) {
        printf("              %20.13E%20.13E%20.13E\n", xci, xciref, xcidif);
    } else {
        ok = 0;
        printf(" FAILURE:     %20.13E%20.13E%20.13E\n", xci, xciref, xcidif);
    }

    printf(" Verification %s\n", ok ? "Successful" : "failed");
    *verified = ok;
}
