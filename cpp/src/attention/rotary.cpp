#include "attnlab/attention/rotary.hpp"

#include <cmath>
#include <numbers>

#include "tensor/checks.hpp"

namespace attnlab {

std::vector<double> rope_frequencies(const RopeConfig& c) {
  const char* fn = "rope_frequencies";
  if (c.head_dim <= 0 || c.head_dim % 2 != 0) detail::fail(fn, "head_dim must be even and positive, got ", c.head_dim);
  if (!(c.theta > 1.0) || !std::isfinite(c.theta)) detail::fail(fn, "rope_theta must be finite and > 1, got ", c.theta);
  const RopeScaling& s = c.scaling;
  if (s.llama3 && !(s.factor > 0 && s.low_freq_factor > 0 && s.high_freq_factor > s.low_freq_factor &&
                    s.original_max_position_embeddings > 0))
    detail::fail(fn, "rope_scaling (llama3) needs factor > 0, 0 < low_freq_factor < high_freq_factor and "
                 "original_max_position_embeddings > 0; got factor ", s.factor, ", low_freq_factor ", s.low_freq_factor,
                 ", high_freq_factor ", s.high_freq_factor, ", original_max_position_embeddings ",
                 s.original_max_position_embeddings);
  const int half = c.head_dim / 2;
  std::vector<double> theta(static_cast<std::size_t>(half));
  for (int i = 0; i < half; ++i) {
    double f = 1.0 / std::pow(c.theta, 2.0 * i / c.head_dim);
    if (s.llama3) {
      // Hugging Face's _compute_llama3_parameters, pair by pair.
      const double wavelength = 2.0 * std::numbers::pi / f;
      const double long_wave = s.original_max_position_embeddings / s.low_freq_factor;
      const double short_wave = s.original_max_position_embeddings / s.high_freq_factor;
      if (wavelength > long_wave) {
        f /= s.factor;
      } else if (wavelength >= short_wave) {
        const double smooth = (s.original_max_position_embeddings / wavelength - s.low_freq_factor) /
                              (s.high_freq_factor - s.low_freq_factor);
        f = (1.0 - smooth) * f / s.factor + smooth * f;
      }
    }
    theta[static_cast<std::size_t>(i)] = f;
  }
  return theta;
}

RotaryTable rotary_table(std::span<const int> positions, std::span<const double> frequencies) {
  // positions [T], θ [hd/2] → cos, sin [T × hd/2]
  const auto T = static_cast<Eigen::Index>(positions.size()), half = static_cast<Eigen::Index>(frequencies.size());
  RotaryTable table{Matrix(T, half), Matrix(T, half)};
  for (Eigen::Index t = 0; t < T; ++t) {
    for (Eigen::Index i = 0; i < half; ++i) {
      const double angle = static_cast<double>(positions[static_cast<std::size_t>(t)]) * frequencies[static_cast<std::size_t>(i)];
      table.cos(t, i) = static_cast<float>(std::cos(angle));
      table.sin(t, i) = static_cast<float>(std::sin(angle));
    }
  }
  return table;
}

void apply_rotary_half(Eigen::Ref<Matrix> x, int head_dim, const RotaryTable& table) {
  // x [T × heads·hd], table [T × hd/2] → x turned in place
  const char* fn = "apply_rotary_half";
  const Eigen::Index half = head_dim / 2;
  if (head_dim <= 0 || head_dim % 2 != 0 || x.cols() % head_dim != 0 || table.cos.cols() != half ||
      table.cos.rows() != x.rows())
    detail::fail(fn, "x is ", x.rows(), "×", x.cols(), " with head_dim ", head_dim, " but the table is ",
                 shape_of(table.cos), " (wanted ", x.rows(), "×", half, ")");
  const Eigen::Index heads = x.cols() / head_dim;
  for (Eigen::Index t = 0; t < x.rows(); ++t) {
    for (Eigen::Index h = 0; h < heads; ++h) {
      float* v = x.data() + t * x.outerStride() + h * head_dim;
      for (Eigen::Index i = 0; i < half; ++i) {
        const float c = table.cos(t, i), s = table.sin(t, i), a = v[i], b = v[i + half];
        v[i] = a * c - b * s;
        v[i + half] = b * c + a * s;
      }
    }
  }
}

}  // namespace attnlab
