"""Code generation: ``Region`` s -> kernel specs, OpenCL kernel source, spliced host C; the
generated-name contract (``names``) and static features counted on the kernels."""
