# Sourced by make_bundle.sh and bundle_check.sh: which shared libraries the
# bundle leaves to the target machine, one list for both, so the check tests
# what the packer does.
#
# glibc's family and the C++ runtime: the target's own are used (the binary is
# built for Debian 12's glibc 2.36, which the target's newer one runs).
target_system_libraries='linux-vdso|ld-linux-x86-64|libc|libm|libdl|libpthread|librt|libresolv|libutil|libstdc\+\+|libgcc_s'
# What PyTorch brings (libtorch, c10, CUDA's libraries): the target's wheel's.
# Spelled out: a wider pattern (libcu.*) once took libcurl for CUDA's.
target_torch_libraries='libtorch.*|libc10.*|libcaffe2.*|libcuda|libcudart|libcublas.*|libcufft|libcurand|libcusolver|libcusparse.*|libcudnn.*|libcupti|libcufile.*|libnv.*|libnccl|libshm'
