// x86-64 kernels for AVX-512 and for AVX2 + FMA, chosen at run time by dispatch.cpp (see x86.hpp).
//
// This file is compiled with the default flags. Each instruction set's code lives in functions marked
// with its target attribute (ATTNLAB_AVX512, ATTNLAB_AVX2), so the binary runs on any x86-64 CPU and
// only a set the CPU supports is ever called. Here: the CPU checks, the 8×8 transpose both sets pack
// Kᵀ with, and each set's vector traits (the only per-set code); the kernels themselves are
// x86_kernels.inl, included once per set.
#include "x86.hpp"

#if defined(ATTNLAB_X86_KERNELS)

// GCC 12's AVX-512 intrinsics start from `__m512 __Y = __Y;` (_mm512_undefined_ps), which its own
// -Wmaybe-uninitialized then reports wherever they are inlined (GCC bug 105593, fixed in GCC 13).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#else
#include <immintrin.h>
#endif

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <utility>

#include "pack_panels.hpp"

#define ATTNLAB_AVX512 __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,fma")))
#define ATTNLAB_AVX2 __attribute__((target("avx2,fma")))

namespace attnlab::kernels::x86 {

bool cpu_has_avx2() {
  __builtin_cpu_init();  // may run before the CPU model is initialised (a static initialiser)
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

bool cpu_has_avx512() {
  return cpu_has_avx2() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw");
}

namespace {

// dst[i][j] = src[j][i] for an 8×8 block (row strides lds, ldd): the unpack / shuffle / lane-swap
// transpose. AVX2, so both sets (AVX-512 CPUs have AVX2 too) pack Kᵀ with it.
ATTNLAB_AVX2 void transpose_8x8(const float* src, Eigen::Index lds, float* dst, Eigen::Index ldd) {
  __m256 r[8], t[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(src + i * lds);
  for (int i = 0; i < 8; i += 2) t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]), t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  for (int i = 0; i < 8; i += 4) {
    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int i = 0; i < 4; ++i) {
    _mm256_storeu_ps(dst + i * ldd, _mm256_permute2f128_ps(r[i], r[i + 4], 0x20));
    _mm256_storeu_ps(dst + (i + 4) * ldd, _mm256_permute2f128_ps(r[i], r[i + 4], 0x31));
  }
}

}  // namespace

// Each set: its vector traits (what x86_kernels.inl calls Vec), then the kernels compiled for it.
namespace avx512 {
namespace {
struct Vec {  // 16 floats in a zmm register; partial vectors through the mask registers
  using V = __m512;
  static constexpr int kLanes = 16;
  static constexpr int kMr = 14;
  ATTNLAB_AVX512 static V zero() { return _mm512_setzero_ps(); }
  ATTNLAB_AVX512 static V set1(float x) { return _mm512_set1_ps(x); }
  ATTNLAB_AVX512 static V broadcast(const float* p) { return _mm512_set1_ps(*p); }
  ATTNLAB_AVX512 static V load(const float* p) { return _mm512_loadu_ps(p); }
  ATTNLAB_AVX512 static void store(float* p, V v) { _mm512_storeu_ps(p, v); }
  ATTNLAB_AVX512 static __mmask16 first(int n) { return _cvtu32_mask16((1u << n) - 1u); }
  ATTNLAB_AVX512 static V load_first(const float* p, int n, float fill) {
    return _mm512_mask_loadu_ps(_mm512_set1_ps(fill), first(n), p);
  }
  ATTNLAB_AVX512 static void store_first(float* p, V v, int n) { _mm512_mask_storeu_ps(p, first(n), v); }
  ATTNLAB_AVX512 static V fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  ATTNLAB_AVX512 static V add(V a, V b) { return _mm512_add_ps(a, b); }
  ATTNLAB_AVX512 static V sub(V a, V b) { return _mm512_sub_ps(a, b); }
  ATTNLAB_AVX512 static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
  ATTNLAB_AVX512 static V max(V a, V b) { return _mm512_max_ps(a, b); }
  ATTNLAB_AVX512 static V exponent_bits(V v) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_castps_si512(v), 23));
  }
  ATTNLAB_AVX512 static V zero_below(V x, V limit, V y) {
    return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, limit, _CMP_GE_OQ), y);
  }
  ATTNLAB_AVX512 static float reduce_add(V v) { return _mm512_reduce_add_ps(v); }
  ATTNLAB_AVX512 static float reduce_max(V v) { return _mm512_reduce_max_ps(v); }
};
}  // namespace
#define ATTNLAB_X86_TARGET ATTNLAB_AVX512
#include "x86_kernels.inl"
#undef ATTNLAB_X86_TARGET
}  // namespace avx512

namespace avx2 {
namespace {
struct Vec {  // 8 floats in a ymm register; partial vectors through maskload / maskstore
  using V = __m256;
  static constexpr int kLanes = 8;
  static constexpr int kMr = 6;
  ATTNLAB_AVX2 static V zero() { return _mm256_setzero_ps(); }
  ATTNLAB_AVX2 static V set1(float x) { return _mm256_set1_ps(x); }
  ATTNLAB_AVX2 static V broadcast(const float* p) { return _mm256_broadcast_ss(p); }
  ATTNLAB_AVX2 static V load(const float* p) { return _mm256_loadu_ps(p); }
  ATTNLAB_AVX2 static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
  ATTNLAB_AVX2 static __m256i first(int n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  ATTNLAB_AVX2 static V load_first(const float* p, int n, float fill) {
    const __m256i lanes = first(n);
    return _mm256_blendv_ps(_mm256_set1_ps(fill), _mm256_maskload_ps(p, lanes), _mm256_castsi256_ps(lanes));
  }
  ATTNLAB_AVX2 static void store_first(float* p, V v, int n) { _mm256_maskstore_ps(p, first(n), v); }
  ATTNLAB_AVX2 static V fmadd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  ATTNLAB_AVX2 static V add(V a, V b) { return _mm256_add_ps(a, b); }
  ATTNLAB_AVX2 static V sub(V a, V b) { return _mm256_sub_ps(a, b); }
  ATTNLAB_AVX2 static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  ATTNLAB_AVX2 static V max(V a, V b) { return _mm256_max_ps(a, b); }
  ATTNLAB_AVX2 static V exponent_bits(V v) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(v), 23));
  }
  ATTNLAB_AVX2 static V zero_below(V x, V limit, V y) { return _mm256_and_ps(_mm256_cmp_ps(x, limit, _CMP_GE_OQ), y); }
  ATTNLAB_AVX2 static float reduce_add(V v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
  }
  ATTNLAB_AVX2 static float reduce_max(V v) {
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_max_ss(s, _mm_movehdup_ps(s)));
  }
};
}  // namespace
#define ATTNLAB_X86_TARGET ATTNLAB_AVX2
#include "x86_kernels.inl"
#undef ATTNLAB_X86_TARGET
}  // namespace avx2

}  // namespace attnlab::kernels::x86

#endif  // ATTNLAB_X86_KERNELS
