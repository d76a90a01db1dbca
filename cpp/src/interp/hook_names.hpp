// "Did you mean": the nearest of a model's hook names to one it does not have.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace attnlab {

// ' — did you mean "blocks.0.attn.hook_z"?' for the candidate nearest `name` (Levenshtein distance: names
// differ in a word or a digit, not in order), or "" when none is within a third of the name's length.
std::string did_you_mean(std::string_view name, std::span<const std::string> candidates);

}  // namespace attnlab
