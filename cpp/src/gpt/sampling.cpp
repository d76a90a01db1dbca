#include "attnlab/gpt/sampling.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "tensor/checks.hpp"

namespace attnlab {

namespace {
void check_options(const char* fn, std::span<const float> logits, const SamplingOptions& o) {
  if (logits.empty()) detail::fail(fn, "logits is empty");
  if (!detail::all_finite(logits.data(), static_cast<Eigen::Index>(logits.size())))
    detail::fail(fn, "logits has a NaN or infinite value");
  if (!(o.temperature >= 0.0f) || !std::isfinite(o.temperature))
    detail::fail(fn, "temperature must be finite and ≥ 0 (0 = greedy), got ", o.temperature);
  if (o.top_k < 0) detail::fail(fn, "top_k must be ≥ 0 (0 = no limit), got ", o.top_k);
  if (!(o.top_p > 0.0f && o.top_p <= 1.0f)) detail::fail(fn, "top_p must be in (0, 1], got ", o.top_p);
}
}  // namespace

std::vector<float> sampling_distribution(std::span<const float> logits, const SamplingOptions& options) {
  // logits [V] → probabilities [V]
  check_options("sampling_distribution", logits, options);
  const std::size_t V = logits.size();
  // 1. temperature 0: greedy, all the mass on the first maximum (top-k and top-p keep it; no sort needed)
  if (options.temperature == 0.0f) {
    std::vector<float> out(V, 0.0f);
    out[static_cast<std::size_t>(std::max_element(logits.begin(), logits.end()) - logits.begin())] = 1.0f;
    return out;
  }
  std::vector<double> p(V, 0.0);
  const double max = *std::max_element(logits.begin(), logits.end());
  for (std::size_t i = 0; i < V; ++i) p[i] = std::exp((logits[i] - max) / options.temperature);
  // 2–3. order by probability (ties: smaller id first); keep the top k, then the nucleus
  std::vector<std::size_t> order(V);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] > p[b]; });
  const double total = std::accumulate(p.begin(), p.end(), 0.0);
  std::size_t keep = options.top_k > 0 ? std::min(V, static_cast<std::size_t>(options.top_k)) : V;
  double mass = 0.0;
  for (std::size_t rank = 0; rank < keep; ++rank) {
    mass += p[order[rank]] / total;
    // the smallest prefix whose mass reaches top_p (within 1e-6: top_p arrives as a float, 0.4f > 0.4)
    if (mass >= static_cast<double>(options.top_p) - 1e-6) keep = rank + 1;
  }
  // 4. renormalise the kept tokens
  double kept = 0.0;
  for (std::size_t rank = 0; rank < keep; ++rank) kept += p[order[rank]];
  std::vector<float> out(V, 0.0f);
  for (std::size_t rank = 0; rank < keep; ++rank) out[order[rank]] = static_cast<float>(p[order[rank]] / kept);
  return out;
}

SampledToken sample(std::span<const float> logits, const SamplingOptions& options, Rng& rng) {
  SampledToken result;
  result.probabilities = sampling_distribution(logits, options);
  const double u = rng.uniform_double();
  double cumulative = 0.0;
  int last_kept = 0;
  for (std::size_t i = 0; i < result.probabilities.size(); ++i) {
    if (result.probabilities[i] == 0.0f) continue;
    last_kept = static_cast<int>(i);
    cumulative += result.probabilities[i];
    if (u < cumulative) {
      result.token = last_kept;
      return result;
    }
  }
  result.token = last_kept;  // u within rounding of 1: the last kept token
  return result;
}

}  // namespace attnlab
