#include "interp/hook_names.hpp"

#include <algorithm>
#include <vector>

namespace attnlab {

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string did_you_mean(std::string_view name, std::span<const std::string> candidates) {
  std::string nearest;
  std::size_t best = name.size() + 1;
  for (const std::string& candidate : candidates) {
    const std::size_t distance = edit_distance(name, candidate);
    if (distance < best) best = distance, nearest = candidate;
  }
  return best <= std::max<std::size_t>(3, name.size() / 3) ? " — did you mean \"" + nearest + "\"?" : std::string();
}

}  // namespace attnlab
