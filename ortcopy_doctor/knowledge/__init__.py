"""What is known about ONNX Runtime without running it: provider names, the kernel tables, which kernels copy
between host and device themselves, reading ONNX files, and the static placement prediction built on them."""
