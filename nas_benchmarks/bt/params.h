/*
 * NPB BT problem classes (NPB 3 specification): grid size (a cube of
 * PROBLEM_SIZE points per dimension, boundaries included), number of
 * time steps, time step, and the verification reference values: the RMS
 * norms of the final residual divided by dt (XCRREF) and of the error
 * against the exact solution (XCEREF), five components each.
 * Select a class at compile time with -DCLASS_S, -DCLASS_W, -DCLASS_A,
 * -DCLASS_B or -DCLASS_C.  Written from npb-reference.json (NPB 3.3).
 */
#ifndef BT_PARAMS_H
#define BT_PARAMS_H

#if defined(CLASS_S)
#define PROBLEM_SIZE   12
#define NITER_DEFAULT  60
#define DT_DEFAULT     0.01
#define XCRREF_0       0.17034283709541312
#define XCRREF_1       0.012975252070034096
#define XCRREF_2       0.032527926989486054
#define XCRREF_3       0.0264364212751668
#define XCRREF_4       0.1921178413174443
#define XCEREF_0       0.0004997691334581158
#define XCEREF_1       4.519566678296193e-05
#define XCEREF_2       7.397376517292135e-05
#define XCEREF_3       7.382123863243973e-05
#define XCEREF_4       0.0008926963098749145
#elif defined(CLASS_W)
#define PROBLEM_SIZE   24
#define NITER_DEFAULT  200
#define DT_DEFAULT     0.0008
#define XCRREF_0       112.5590409344
#define XCRREF_1       11.80007595731
#define XCRREF_2       27.10329767846
#define XCRREF_3       24.69174937669
#define XCRREF_4       263.8427874317
#define XCEREF_0       4.419655736008
#define XCEREF_1       0.4638531260002
#define XCEREF_2       1.011551749967
#define XCEREF_3       0.9235878729944
#define XCEREF_4       10.18045837718
#elif defined(CLASS_A)
#define PROBLEM_SIZE   64
#define NITER_DEFAULT  200
#define DT_DEFAULT     0.0008
#define XCRREF_0       108.06346714637264
#define XCRREF_1       11.319730901220813
#define XCRREF_2       25.974354511582465
#define XCRREF_3       23.66562254467891
#define XCRREF_4       252.78963211748345
#define XCEREF_0       4.2348416040525025
#define XCEREF_1       0.443902824969957
#define XCEREF_2       0.9669248013634565
#define XCEREF_3       0.8830206303976548
#define XCEREF_4       9.737990177082928
#elif defined(CLASS_B)
#define PROBLEM_SIZE   102
#define NITER_DEFAULT  200
#define DT_DEFAULT     0.0003
#define XCRREF_0       1423.3597229287254
#define XCRREF_1       99.33052259015024
#define XCRREF_2       356.46025644535285
#define XCRREF_3       324.8544795908409
#define XCRREF_4       3270.7541254659363
#define XCEREF_0       52.96984714093686
#define XCEREF_1       4.463289611567067
#define XCEREF_2       13.122573342210174
#define XCEREF_3       12.006925323559145
#define XCEREF_4       124.59576151035986
#elif defined(CLASS_C)
#define PROBLEM_SIZE   162
#define NITER_DEFAULT  200
#define DT_DEFAULT     0.0001
#define XCRREF_0       6239.8116551764615
#define XCRREF_1       507.93239190423964
#define XCRREF_2       1542.3530093013596
#define XCRREF_3       1330.238792929119
#define XCRREF_4       11604.087428436455
#define XCEREF_0       164.62008369091265
#define XCEREF_1       11.497107903824313
#define XCEREF_2       41.20744620746151
#define XCEREF_3       37.08765105969417
#define XCEREF_4       362.11053051841265
#else
#error "BT: no problem class given; compile with -DCLASS_S, -DCLASS_W, -DCLASS_A, -DCLASS_B or -DCLASS_C"
#endif

/* reference time step and relative tolerance of the verification test */
#define DT_REF          DT_DEFAULT
#define VERIFY_EPSILON  1.0e-8

#endif /* BT_PARAMS_H */
