#include "kjv_corpus.hpp"

#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "attnlab/tensor/error.hpp"

namespace attnlab::train {

std::vector<Chapter> parse_bible_listing(std::string_view listing) {
  std::vector<Chapter> chapters;
  int line_number = 0;
  while (!listing.empty()) {
    const std::size_t end = listing.find('\n');
    const std::string_view line = listing.substr(0, end);
    listing.remove_prefix(end == std::string_view::npos ? listing.size() : end + 1);
    ++line_number;
    if (line.empty()) continue;
    // "SSol3:12 text": the reference runs to the first space; the chapter is the part before ':'.
    const std::size_t space = line.find(' ');
    const std::size_t colon = line.find(':');
    if (space == std::string_view::npos || colon == std::string_view::npos || colon > space || colon == 0 ||
        !std::isdigit(static_cast<unsigned char>(line[colon - 1]))) {
      throw Error("parse_bible_listing: line " + std::to_string(line_number) +
                  " has no \"Book<chapter>:<verse> \" reference: \"" + std::string(line.substr(0, 40)) + "\"");
    }
    const std::string_view reference = line.substr(0, colon);
    if (chapters.empty() || chapters.back().reference != reference) chapters.push_back({std::string(reference), "", 0});
    chapters.back().text.append(line.substr(space + 1)).push_back('\n');
    ++chapters.back().verses;
  }
  return chapters;
}

CorpusSplit split_chapters(const std::vector<Chapter>& chapters, int heldout_every) {
  if (heldout_every < 2) throw Error("split_chapters: heldout_every must be at least 2, got " + std::to_string(heldout_every));
  CorpusSplit split;
  for (std::size_t i = 0; i < chapters.size(); ++i) {
    const bool heldout = (i + 1) % static_cast<std::size_t>(heldout_every) == 0;
    std::string& text = heldout ? split.heldout : split.train;
    text.append(chapters[i].text).push_back('\n');
    ++(heldout ? split.heldout_chapters : split.train_chapters);
  }
  return split;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace attnlab::train
