#include "attnlab/gpt/sampling.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "tensor/checks.hpp"

namespace attnlab {

namespace {

void check_options(const char* fn, const SamplingOptions& o) {
  if (!(o.temperature >= 0.0f) || !std::isfinite(o.temperature))
    detail::fail(fn, "temperature must be finite and ≥ 0 (0 = greedy), got ", o.temperature);
  if (o.top_k < 0) detail::fail(fn, "top_k must be ≥ 0 (0 = no limit), got ", o.top_k);
  if (!(o.top_p > 0.0f && o.top_p <= 1.0f)) detail::fail(fn, "top_p must be in (0, 1], got ", o.top_p);
  if (!(o.repetition_penalty > 0.0f) || !std::isfinite(o.repetition_penalty))
    detail::fail(fn, "repetition_penalty must be finite and > 0 (1 = off), got ", o.repetition_penalty);
  if (o.no_repeat_ngram_size < 0) detail::fail(fn, "no_repeat_ngram_size must be ≥ 0 (0 = off), got ", o.no_repeat_ngram_size);
  if (!std::isfinite(o.presence_penalty)) detail::fail(fn, "presence_penalty must be finite, got ", o.presence_penalty);
  if (!std::isfinite(o.frequency_penalty)) detail::fail(fn, "frequency_penalty must be finite, got ", o.frequency_penalty);
}

// Logits may hold −∞ (blocked), never NaN or +∞, and not only −∞.
void check_logits(const char* fn, std::span<const float> logits) {
  if (logits.empty()) detail::fail(fn, "logits is empty");
  bool any_open = false;
  for (std::size_t i = 0; i < logits.size(); ++i) {
    const float x = logits[i];
    if (std::isnan(x) || x == std::numeric_limits<float>::infinity())
      detail::fail(fn, "logits[", i, "] is ", std::isnan(x) ? "NaN" : "+∞", " (only −∞, a blocked token, may be non-finite)");
    any_open = any_open || x != -std::numeric_limits<float>::infinity();
  }
  if (!any_open) detail::fail(fn, "every one of the ", logits.size(), " logits is −∞: no token may be drawn");
}

}  // namespace

std::vector<float> penalized_logits(std::span<const float> logits, std::span<const int> context, const SamplingOptions& o) {
  // logits [V], context [n] → logits [V]
  const char* fn = "penalized_logits";
  check_options(fn, o);
  check_logits(fn, logits);
  const auto V = static_cast<int>(logits.size());
  std::map<int, int> counts;  // token → occurrences in the context
  for (std::size_t i = 0; i < context.size(); ++i) {
    if (context[i] < 0 || context[i] >= V) detail::fail(fn, "context[", i, "] = ", context[i], " is not a token id in [0, ", V, ")");
    ++counts[context[i]];
  }
  std::vector<float> out(logits.begin(), logits.end());
  // a. repetition penalty, once per distinct token of the context (HF gathers and scatters by id)
  if (o.repetition_penalty != 1.0f) {
    for (const auto& [token, count] : counts) {
      float& x = out[static_cast<std::size_t>(token)];
      x = x < 0.0f ? x * o.repetition_penalty : x / o.repetition_penalty;
    }
  }
  // b. presence and frequency penalties
  if (o.presence_penalty != 0.0f || o.frequency_penalty != 0.0f) {
    for (const auto& [token, count] : counts) {
      out[static_cast<std::size_t>(token)] -= o.frequency_penalty * static_cast<float>(count) + o.presence_penalty;
    }
  }
  // A penalty cannot push a finite logit past float32's range silently: not to +∞, nor to −∞ (which
  // would read as a blocked token). Checked before the bans below block tokens on purpose.
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (std::isfinite(logits[i]) && !std::isfinite(out[i])) detail::fail(fn, "a penalty pushed logits[", i, "] past float32's range");
  }
  // c. no repeated n-gram: the last n − 1 tokens, wherever they occurred before, ban what followed them
  const auto n = static_cast<std::size_t>(o.no_repeat_ngram_size);
  if (n > 0 && context.size() + 1 >= n) {
    const std::span<const int> prefix = context.subspan(context.size() + 1 - n);
    for (std::size_t start = 0; start + n <= context.size(); ++start) {
      if (std::equal(prefix.begin(), prefix.end(), context.begin() + static_cast<std::ptrdiff_t>(start))) {
        out[static_cast<std::size_t>(context[start + n - 1])] = -std::numeric_limits<float>::infinity();
      }
    }
  }
  check_logits(fn, out);  // every token banned is an error
  return out;
}

std::vector<float> sampling_distribution(std::span<const float> logits, const SamplingOptions& options) {
  // logits [V] → probabilities [V]
  const char* fn = "sampling_distribution";
  check_options(fn, options);
  check_logits(fn, logits);
  const std::size_t V = logits.size();
  // 1. temperature 0: greedy, all the mass on the first maximum (top-k and top-p keep it; no sort needed)
  if (options.temperature == 0.0f) {
    std::vector<float> out(V, 0.0f);
    out[static_cast<std::size_t>(std::max_element(logits.begin(), logits.end()) - logits.begin())] = 1.0f;
    return out;
  }
  std::vector<double> p(V, 0.0);
  const double max = *std::max_element(logits.begin(), logits.end());  // finite: check_logits
  for (std::size_t i = 0; i < V; ++i) p[i] = std::exp((logits[i] - max) / options.temperature);  // −∞ → 0
  // 2–3. order by probability (ties: smaller id first); keep the top k, then the nucleus; a blocked
  // token (p = 0) is never kept
  std::vector<std::size_t> order(V);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] > p[b]; });
  const double total = std::accumulate(p.begin(), p.end(), 0.0);
  const auto open = static_cast<std::size_t>(std::count_if(p.begin(), p.end(), [](double x) { return x > 0.0; }));
  std::size_t keep = std::max<std::size_t>(1, std::min(open, options.top_k > 0 ? static_cast<std::size_t>(options.top_k) : V));
  // top_p = 1 is no nucleus at all (as Hugging Face's): with the 1e-6 below it would cut the rarest
  // tokens, together under a millionth of the mass, from a distribution said to be uncut.
  double mass = 0.0;
  for (std::size_t rank = 0; options.top_p < 1.0f && rank < keep; ++rank) {
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

std::vector<float> sampling_distribution(std::span<const float> logits, std::span<const int> context,
                                         const SamplingOptions& options) {
  if (!options.has_penalties()) return sampling_distribution(logits, options);
  return sampling_distribution(penalized_logits(logits, context, options), options);
}

namespace {
SampledToken draw(std::vector<float> probabilities, Rng& rng) {
  SampledToken result{.token = 0, .probabilities = std::move(probabilities)};
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
}  // namespace

SampledToken sample(std::span<const float> logits, const SamplingOptions& options, Rng& rng) {
  return draw(sampling_distribution(logits, options), rng);
}

SampledToken sample(std::span<const float> logits, std::span<const int> context, const SamplingOptions& options, Rng& rng) {
  return draw(sampling_distribution(logits, context, options), rng);
}

}  // namespace attnlab
