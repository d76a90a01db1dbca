// The generation loop GPT's and the Llama family's generate() share: check the options, read the
// prompt, then draw max_tokens tokens (one Rng(seed) stream), each fed back, with the penalties seeing
// the prompt and everything drawn so far.
#pragma once

#include <algorithm>
#include <span>
#include <vector>

#include "attnlab/gpt/gpt_session.hpp"
#include "tensor/checks.hpp"

namespace attnlab::detail {

// Session: `Matrix read_prompt(std::span<const int>)` → the logits [1×V] after the prompt,
// `Matrix append(int)` → the logits after one more token, `bool full()` → no room for another token.
template <typename Session>
Generation generation_loop(const char* fn, Session& session, int vocab_size, std::span<const int> prompt,
                           const GenerateOptions& options) {
  if (prompt.empty()) fail(fn, "the prompt is empty (give at least one token)");
  if (options.max_tokens < 0) fail(fn, "max_tokens must be ≥ 0, got ", options.max_tokens);
  sampling_distribution(std::vector<float>{0.0f}, options.sampling);  // the options' errors before any work
  for (std::size_t i = 0; i < options.stop_tokens.size(); ++i) {
    if (options.stop_tokens[i] < 0 || options.stop_tokens[i] >= vocab_size)
      fail(fn, "stop_tokens[", i, "] = ", options.stop_tokens[i], " is not a token id in [0, ", vocab_size, ")");
  }
  const auto is_stop = [&](int token) {
    return token == options.stop_token ||
           std::find(options.stop_tokens.begin(), options.stop_tokens.end(), token) != options.stop_tokens.end();
  };
  Matrix logits = session.read_prompt(prompt);
  std::vector<int> context(prompt.begin(), prompt.end());  // what the penalties see
  Rng rng(options.seed);
  Generation out;
  while (static_cast<int>(out.tokens.size()) < options.max_tokens) {
    if (!out.tokens.empty()) {  // feed the last token back, if the context has room for it
      if (session.full()) {
        out.stopped = StopReason::context_full;
        break;
      }
      logits = session.append(out.tokens.back());
    }
    const SampledToken next = sample(std::span<const float>(logits.data(), static_cast<std::size_t>(logits.size())),
                                     context, options.sampling, rng);
    out.tokens.push_back(next.token);
    out.probabilities.push_back(next.probabilities[static_cast<std::size_t>(next.token)]);
    context.push_back(next.token);
    if (is_stop(next.token)) {
      out.stopped = StopReason::stop_token;
      break;
    }
  }
  return out;
}

}  // namespace attnlab::detail
