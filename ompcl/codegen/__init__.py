"""Code generation: ``Region`` records -> OpenCL kernel source, spliced host C, report."""
