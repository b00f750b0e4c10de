/*
 * NPB SP problem classes (NPB 3 specification): grid size, number of time
 * steps, time step, and the verification reference values (RMS norms of the
 * steady-state residual divided by dt, and of the error against the exact
 * solution), transcribed from npb-reference.json (not generated at build
 * time; tools/gen_params.py does not cover SP).  Select a class at
 * compile time with -DCLASS_S, -DCLASS_W, -DCLASS_A, -DCLASS_B or -DCLASS_C.
 */
#ifndef SP_PARAMS_H
#define SP_PARAMS_H

#if defined(CLASS_S)
#define PROBLEM_SIZE   12
#define NITER_DEFAULT  100
#define DT_DEFAULT     0.015
#define DT_REF         0.015
#define XCRREF_1   0.02747031545133948
#define XCRREF_2   0.010360746705285417
#define XCRREF_3   0.016235745065095532
#define XCRREF_4   0.015840557224455615
#define XCRREF_5   0.03484904060936246
#define XCEREF_1   2.7289258557377225e-05
#define XCEREF_2   1.0364446640837285e-05
#define XCEREF_3   1.615479828716647e-05
#define XCEREF_4   1.57507049944801e-05
#define XCEREF_5   3.417766618339053e-05
#elif defined(CLASS_W)
#define PROBLEM_SIZE   36
#define NITER_DEFAULT  400
#define DT_DEFAULT     0.0015
#define DT_REF         0.0015
#define XCRREF_1   0.001893253733584
#define XCRREF_2   0.0001717075447775
#define XCRREF_3   0.0002778153350936
#define XCRREF_4   0.0002887475409984
#define XCRREF_5   0.003143611161242
#define XCEREF_1   7.542088599534e-05
#define XCEREF_2   6.512852253086e-06
#define XCEREF_3   1.049092285688e-05
#define XCEREF_4   1.128838671535e-05
#define XCEREF_5   0.0001212845639773
#elif defined(CLASS_A)
#define PROBLEM_SIZE   64
#define NITER_DEFAULT  400
#define DT_DEFAULT     0.0015
#define DT_REF         0.0015
#define XCRREF_1   2.4799822399300195
#define XCRREF_2   1.1276337964368832
#define XCRREF_3   1.5028977888770492
#define XCRREF_4   1.421781621169518
#define XCRREF_5   2.129211303513828
#define XCEREF_1   0.0001090014029782055
#define XCEREF_2   3.734395176928209e-05
#define XCEREF_3   5.009278540654163e-05
#define XCEREF_4   4.767109393952825e-05
#define XCEREF_5   0.00013621613399213
#elif defined(CLASS_B)
#define PROBLEM_SIZE   102
#define NITER_DEFAULT  400
#define DT_DEFAULT     0.001
#define DT_REF         0.001
#define XCRREF_1   69.03293579998
#define XCRREF_2   30.95134488084
#define XCRREF_3   41.03336647017
#define XCRREF_4   38.64769009604
#define XCRREF_5   56.43482272596
#define XCEREF_1   0.009810006190188
#define XCEREF_2   0.00102282790567
#define XCEREF_3   0.001720597911692
#define XCEREF_4   0.001694479428231
#define XCEREF_5   0.01847456263981
#elif defined(CLASS_C)
#define PROBLEM_SIZE   162
#define NITER_DEFAULT  400
#define DT_DEFAULT     0.00067
#define DT_REF         0.00067
#define XCRREF_1   588.1691581829
#define XCRREF_2   245.4417603569
#define XCRREF_3   329.3829191851
#define XCRREF_4   308.1924971891
#define XCRREF_5   459.7223799176
#define XCEREF_1   0.2598120500183
#define XCEREF_2   0.02590888922315
#define XCEREF_3   0.0513288641632
#define XCEREF_4   0.04806073419454
#define XCEREF_5   0.5483377491301
#else
#error "SP: no problem class given; compile with -DCLASS_S, -DCLASS_W, -DCLASS_A, -DCLASS_B or -DCLASS_C"
#endif

/* relative tolerance of the verification test */
#define SP_EPSILON     1.0e-8

#endif /* SP_PARAMS_H */
