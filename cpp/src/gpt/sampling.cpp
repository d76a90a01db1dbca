#include "attnlab/gpt/sampling.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>

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
    if (context[i] < 0 || context[i] >= V) detail::fail(fn, "context[", i, "] = ", context[i], " is not a token id in 0 … ", V - 1);
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

namespace {

// A token and its (unnormalised) probability, side by side so that ranking compares values in one
// array rather than chasing ids into p.
struct Ranked {
  double p;
  std::uint32_t id;
};

// The order top-k and top-p rank tokens in: the more probable first, ties to the smaller id (the order
// a stable sort of the ids 0, 1, …, V − 1 by descending probability gives). A strict total order, so
// std::nth_element, the heap and std::sort need no stability to agree with it.
bool more_likely(const Ranked& a, const Ranked& b) { return a.p > b.p || (a.p == b.p && a.id < b.id); }

// A top-k this small against V (40 of 50,257) is found with a heap of the best so far: nearly every
// token is turned away by one comparison with the heap's least likely.
bool few_of(std::size_t keep, std::size_t V) { return keep * 16 < V; }

// The `keep` most likely of the tokens with p > 0 and p ≥ floor (all of them if fewer), in no order:
// a heap when few (see few_of), else gathered and partially selected (std::nth_element). O(V) either way.
std::vector<Ranked> best_tokens(const std::vector<double>& p, double floor, std::size_t keep) {
  // p [V] → [≤ keep]
  std::vector<Ranked> best;
  const bool few = few_of(keep, p.size());
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (!(p[i] > 0.0 && p[i] >= floor)) continue;
    const Ranked token{p[i], static_cast<std::uint32_t>(i)};
    if (!few || best.size() < keep) {
      best.push_back(token);
      if (few) std::push_heap(best.begin(), best.end(), more_likely);  // front: the least likely kept
    } else if (more_likely(token, best.front())) {
      std::pop_heap(best.begin(), best.end(), more_likely);
      best.back() = token;
      std::push_heap(best.begin(), best.end(), more_likely);
    }
  }
  if (best.size() > keep) {
    std::nth_element(best.begin(), best.begin() + static_cast<std::ptrdiff_t>(keep), best.end(), more_likely);
    best.resize(keep);
  }
  return best;
}

// A floor under the nucleus: the largest threshold such that the tokens with p ≥ it hold at least
// `target` of the (unnormalised) mass. From a histogram of the mass by p's leading bits (its binary
// exponent and 3 more: steps of an eighth of an octave, 6–12%), so the tokens at or above the floor are
// the nucleus and those in the step of its least likely. O(V), nothing sorted. 0 when no step but the
// lowest reaches target: every token may be needed.
double nucleus_floor(const std::vector<double>& p, double target) {
  // p [V] → floor ≥ 0
  // A positive double's bits order as its value: bits >> 49 (exponent, 3 mantissa bits) is a monotone
  // step number; p ≤ 1 tops out at step 8184 (2^0), and steps below 7672 (2^−64) share step 0.
  // (std::memcpy for the bits: Emscripten 3.1.6's libc++ has no std::bit_cast.)
  static constexpr std::int64_t kLowest = 7672, kSteps = 8184 - kLowest;
  const auto step = [](double x) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &x, sizeof bits);
    return std::clamp<std::int64_t>(static_cast<std::int64_t>(bits >> 49) - kLowest, 0, kSteps);
  };
  const auto least_of_step = [](std::int64_t s) {
    const std::uint64_t bits = static_cast<std::uint64_t>(s + kLowest) << 49;
    double x = 0.0;
    std::memcpy(&x, &bits, sizeof x);
    return x;
  };
  std::array<double, kSteps + 1> mass{};  // [steps]
  for (const double x : p) mass[static_cast<std::size_t>(step(x))] += x;
  double above = 0.0;  // the mass at or above step s
  for (std::int64_t s = kSteps; s > 0; --s) {
    above += mass[static_cast<std::size_t>(s)];
    if (above >= target) return least_of_step(s);
  }
  return 0.0;
}

// 2–3. The tokens a cut keeps, most likely first: the `keep` best (top-k; keep ≤ the tokens with p > 0),
// then of those the smallest prefix whose mass reaches top_p (top-p; top_p = 1: none). Ranks only what
// it must: partial selection finds the keep best, and a nucleus needs only the tokens above its floor;
// only those are sorted. The prefix walked, and so every sum (in rank order, as always) and the cut,
// are the full ranking's.
std::vector<Ranked> kept_tokens(const std::vector<double>& p, double total, std::size_t keep, float top_p,
                                bool exhaustive = false) {
  // p [V] (unnormalised, summing to total) → [≤ keep]
  const bool nucleus = top_p < 1.0f;
  // the mass to reach, within 1e-6: top_p arrives as a float, and 0.4f > 0.4
  const double reach = static_cast<double>(top_p) - 1e-6;
  // The floor's own sums round differently from the walk below: a margin of 1e-9 of the mass over that.
  // (A small top-k is sorted whole: a floor would save little.)
  const double floor = nucleus && !exhaustive && !few_of(keep, p.size()) ? nucleus_floor(p, (reach + 1e-9) * total) : 0.0;
  std::vector<Ranked> ranked = best_tokens(p, floor, keep);  // a prefix of the ranking
  std::sort(ranked.begin(), ranked.end(), more_likely);
  if (!nucleus) return ranked;
  double mass = 0.0;  // the ranking's running share, summed in rank order
  for (std::size_t rank = 0; rank < ranked.size(); ++rank) {
    mass += ranked[rank].p / total;
    if (mass >= reach) {  // the smallest prefix whose mass reaches top_p
      ranked.resize(rank + 1);
      return ranked;
    }
  }
  // Not reached: the top k hold less than top_p, and are all kept; unless the floor (only rounding past
  // its margin could) dropped some of the top k: then rank every token.
  if (!exhaustive && ranked.size() < keep) return kept_tokens(p, total, keep, top_p, true);
  return ranked;
}

}  // namespace

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
  // 1. p ∝ exp((logit − max) / temperature) in double (−∞ → 0; a far smaller logit underflows to 0 too),
  // their total (summed in id order) and how many are open (p > 0), in one pass
  std::vector<double> p(V);
  const double max = *std::max_element(logits.begin(), logits.end());  // finite: check_logits
  double total = 0.0;
  std::size_t open = 0;
  for (std::size_t i = 0; i < V; ++i) {
    p[i] = std::exp((logits[i] - max) / options.temperature);
    total += p[i];
    open += p[i] > 0.0 ? 1 : 0;
  }
  // 2. top-k keeps this many of the ranking, never a blocked token, never none (open ≥ 1: the maximum's p is 1)
  const std::size_t keep = std::max<std::size_t>(1, std::min(open, options.top_k > 0 ? static_cast<std::size_t>(options.top_k) : V));
  std::vector<float> out(V, 0.0f);
  // 3. top_p = 1 is no nucleus at all (as Hugging Face's): with the 1e-6 of kept_tokens it would cut the
  // rarest tokens, together under a millionth of the mass, from a distribution said to be uncut.
  if (keep == open && options.top_p == 1.0f) {
    // No cut: every open token is kept and no ranking is needed, O(V). The renormalising sum is the
    // total: the terms the sorting implementation summed most likely first, here in id order, which can
    // round a probability to the next float (3 of 36 million at V = 50,257 moved by that one ulp).
    for (std::size_t i = 0; i < V; ++i) out[i] = static_cast<float>(p[i] / total);
    return out;
  }
  // 4. renormalise the kept tokens (summed in rank order)
  const std::vector<Ranked> ranked = kept_tokens(p, total, keep, options.top_p);
  double kept = 0.0;
  for (const Ranked& token : ranked) kept += token.p;
  for (const Ranked& token : ranked) out[token.id] = static_cast<float>(token.p / kept);
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
