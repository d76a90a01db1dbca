// A seeded random number generator whose streams are bit-identical on every platform and compiler,
// natively and in WebAssembly, so a lesson's "random" matrices are the same everywhere.
//
// Bits: PCG32 (XSH RR, O'Neill 2014), seeded exactly like the reference pcg32_srandom_r(seed, stream).
// Uniform floats take the top 24 bits of one draw. Normals use Marsaglia's polar method in double
// precision with a logarithm built from +, −, ×, ÷ only (IEEE-exact everywhere), never the platform's
// libm, whose last bits differ between glibc and Emscripten's musl.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <cstdint>

#include "attnlab/tensor/matrix.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

class Rng {
 public:
  static constexpr std::uint64_t kDefaultStream = 54;  // the PCG reference demo's stream

  explicit Rng(std::uint64_t seed, std::uint64_t stream = kDefaultStream);

  std::uint32_t next_u32();
  // Uniform on [0, 1): top 24 bits of one draw, so every value is exact in float32.
  float uniform();
  float uniform(float low, float high);
  // Uniform on [0, 1) with 53 random bits (two draws).
  double uniform_double();
  // Normal(mean, stddev): one value per accepted polar pair (the partner is discarded, so the stream
  // position never depends on hidden cached state).
  float normal(float mean = 0.0f, float stddev = 1.0f);

  Matrix uniform_matrix(int rows, int cols, float low, float high);  // row-major fill order
  Matrix normal_matrix(int rows, int cols, float mean = 0.0f, float stddev = 1.0f);

  // The generator's whole state, for training checkpoints: Rng::from_state(rng.state()) continues
  // the same stream draw for draw. from_state throws Error for an even increment (no PCG stream has one).
  struct State {
    std::uint64_t state = 0, increment = 0;
  };
  State state() const { return {state_, increment_}; }
  static Rng from_state(const State& state);

 private:
  Rng() = default;

  std::uint64_t state_ = 0;
  std::uint64_t increment_ = 0;
};

// The lessons' "random matrix": rows×cols standard normals from Rng(seed).
Matrix randn(int rows, int cols, std::uint64_t seed);

// ln(x) for x > 0 from basic IEEE arithmetic only (frexp + atanh series), so it is bit-identical on
// every platform. Accurate to a few ulp in double precision. Exposed for tests and the polar method.
double portable_log(double x);

}  // namespace attnlab
ATTNLAB_API_END
