// The King James Bible as a training corpus, from Debian's bible-kjv package: `bible -f
// "Gen1:1-Rev22:21"` prints one verse per line, "Ge1:1 In the beginning God created …".
//
// Each chapter becomes one passage: its verses, one per line, the references dropped, and a blank
// line after it. Every `heldout_every`-th chapter (counting from 1 through the whole Bible, so the
// held-out chapters are spread over every part of it, law, poetry, prophets, gospels, letters) goes
// to the held-out text; the rest is the training text. Whole chapters, so no held-out verse sits in
// a training window.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attnlab::train {

struct Chapter {
  std::string reference;  // "Ge1", "SSol3", "Rev22"
  std::string text;       // its verses, one per line, each ending in '\n'
  int verses = 0;
};

// The `bible -f` listing → chapters in order. Error (naming the line) for a line without a
// "Book<chapter>:<verse> " reference.
std::vector<Chapter> parse_bible_listing(std::string_view listing);

struct CorpusSplit {
  std::string train;    // the training chapters' passages, in order
  std::string heldout;  // the held-out chapters' passages, in order
  int train_chapters = 0, heldout_chapters = 0;
};

CorpusSplit split_chapters(const std::vector<Chapter>& chapters, int heldout_every);

// A whole file's bytes (the listing, a config, a vocabulary); std::runtime_error naming it if unreadable.
std::string read_file(const std::string& path);

}  // namespace attnlab::train
