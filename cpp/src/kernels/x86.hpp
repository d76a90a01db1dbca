// x86-64 kernels picked at run time (x86.cpp): AVX-512 and AVX2 + FMA builds of the same GEMM and
// online-softmax step, compiled with function target attributes so the rest of the core keeps the
// default flags. dispatch.cpp checks what this CPU supports and calls one set through kernels.hpp.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__EMSCRIPTEN__)
#define ATTNLAB_X86_KERNELS 1

#include "kernels.hpp"

namespace attnlab::kernels::x86 {

// Whether this CPU (and the OS, which must save the wider registers) can run each set.
bool cpu_has_avx512();  // AVX-512 F, VL, DQ and BW, with AVX2 and FMA
bool cpu_has_avx2();    // AVX2 and FMA

// Each set as in kernels.hpp; pack (as pack_into) lays op(B) out in the panel width that set's GEMM
// needs, and its gemm expects a matrix packed by the same set.
namespace avx512 {
void pack(MatrixView b, bool transposed, PackedMatrix& packed);
void gemm(MatrixView a, const PackedMatrix& b, Eigen::Index k0, Eigen::Index n0, Eigen::Index nc, float alpha,
          bool accumulate, float* c, Eigen::Index ldc);
void online_softmax_step(MatrixSpan s, float* row_max, float* row_sum, float* rescale);
}  // namespace avx512

namespace avx2 {
void pack(MatrixView b, bool transposed, PackedMatrix& packed);
void gemm(MatrixView a, const PackedMatrix& b, Eigen::Index k0, Eigen::Index n0, Eigen::Index nc, float alpha,
          bool accumulate, float* c, Eigen::Index ldc);
void online_softmax_step(MatrixSpan s, float* row_max, float* row_sum, float* rescale);
}  // namespace avx2

}  // namespace attnlab::kernels::x86

namespace attnlab::kernels::for_testing {
// The variant() that ATTNLAB_KERNELS=`setting` selects (nullptr or "": unset); throws Error for a name
// that is not a kernel set.
const char* variant_for_setting(const char* setting);
}  // namespace attnlab::kernels::for_testing

#endif
