/*
 * NPB LU problem classes (NPB 3.3 specification): grid size, number of
 * SSOR iterations, norm interval, time step, and the verification
 * reference values (RMS norms of the final residual xcr, NOT divided by
 * dt; RMS norms of the error against the exact solution xce; surface
 * integral xci).  Written from npb-reference.json (benchmarks.LU).
 * Select a class at compile time with -DCLASS_S, -DCLASS_W, -DCLASS_A,
 * -DCLASS_B or -DCLASS_C.
 */
#ifndef LU_PARAMS_H
#define LU_PARAMS_H

#if defined(CLASS_S)
#define ISIZ1          12
#define ISIZ2          12
#define ISIZ3          12
#define ITMAX_DEFAULT  50
#define INORM_DEFAULT  50
#define DT_DEFAULT     0.5
#define XCRREF0        1.6196343210976703e-02
#define XCRREF1        2.197674516482132e-03
#define XCRREF2        1.5179927653399185e-03
#define XCRREF3        1.5029584435994323e-03
#define XCRREF4        3.426407315589646e-02
#define XCEREF0        6.422331995796092e-04
#define XCEREF1        8.414434204734792e-05
#define XCEREF2        5.8588269616485187e-05
#define XCEREF3        5.847422259515735e-05
#define XCEREF4        1.3103347914111294e-03
#define XCIREF         7.841892886593708
#define DTREF          0.5
#elif defined(CLASS_W)
#define ISIZ1          33
#define ISIZ2          33
#define ISIZ3          33
#define ITMAX_DEFAULT  300
#define INORM_DEFAULT  300
#define DT_DEFAULT     1.5e-03
#define XCRREF0        1.236511638192e+01
#define XCRREF1        1.317228477799e+00
#define XCRREF2        2.550120713095e+00
#define XCRREF3        2.326187750252e+00
#define XCRREF4        2.826799444189e+01
#define XCEREF0        4.867877144216e-01
#define XCEREF1        5.064652880982e-02
#define XCEREF2        9.281818101960e-02
#define XCEREF3        8.570126542733e-02
#define XCEREF4        1.084277417792e+00
#define XCIREF         1.161399311023e+01
#define DTREF          1.5e-03
#elif defined(CLASS_A)
#define ISIZ1          64
#define ISIZ2          64
#define ISIZ3          64
#define ITMAX_DEFAULT  250
#define INORM_DEFAULT  250
#define DT_DEFAULT     2.0
#define XCRREF0        7.790210760668937e+02
#define XCRREF1        6.340276525969287e+01
#define XCRREF2        1.949924972729248e+02
#define XCRREF3        1.7845301160418538e+02
#define XCRREF4        1.8384760349464248e+03
#define XCEREF0        2.9964085685471943e+01
#define XCEREF1        2.819457636500335e+00
#define XCEREF2        7.347341269877474e+00
#define XCEREF3        6.713922568777705e+00
#define XCEREF4        7.071531568839258e+01
#define XCIREF         2.6030925604886278e+01
#define DTREF          2.0
#elif defined(CLASS_B)
#define ISIZ1          102
#define ISIZ2          102
#define ISIZ3          102
#define ITMAX_DEFAULT  250
#define INORM_DEFAULT  250
#define DT_DEFAULT     2.0
#define XCRREF0        3.5532672969982737e+03
#define XCRREF1        2.621475079531069e+02
#define XCRREF2        8.833372185095219e+02
#define XCRREF3        7.781277473942527e+02
#define XCRREF4        7.308796959254531e+03
#define XCEREF0        1.1401176380212709e+02
#define XCEREF1        8.109896365542157e+00
#define XCEREF2        2.8480597317698308e+01
#define XCEREF3        2.590539456783294e+01
#define XCEREF4        2.6054907504857414e+02
#define XCIREF         4.788716270330823e+01
#define DTREF          2.0
#elif defined(CLASS_C)
#define ISIZ1          162
#define ISIZ2          162
#define ISIZ3          162
#define ITMAX_DEFAULT  250
#define INORM_DEFAULT  250
#define DT_DEFAULT     2.0
#define XCRREF0        1.0376698032353785e+04
#define XCRREF1        8.922124588010086e+02
#define XCRREF2        2.5623881458266087e+03
#define XCRREF3        2.1919434385783143e+03
#define XCRREF4        1.780780572610612e+04
#define XCEREF0        2.1598639971694928e+02
#define XCEREF1        1.557895592398636e+01
#define XCEREF2        5.413188630772078e+01
#define XCEREF3        4.822626431540454e+01
#define XCEREF4        4.5590291004325036e+02
#define XCIREF         6.664045535721813e+01
#define DTREF          2.0
#else
#error "LU: no problem class given; compile with -DCLASS_S, -DCLASS_W, -DCLASS_A, -DCLASS_B or -DCLASS_C"
#endif

/* same for every class */
#define OMEGA_DEFAULT  1.2
#define TOLRSD_DEFAULT 1.0e-08
#define VERIFY_EPSILON 1.0e-08

#endif /* LU_PARAMS_H */
