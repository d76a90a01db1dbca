// Writes the King James corpus as token ids, for a trainer outside the core (scripts/train-llama.py):
//
//   kjv_tokens --listing kjv.txt --vocab web/models/kjv --heldout-every 20 --out DIR
//       → DIR/train.u16 and DIR/heldout.u16 (little-endian uint16 ids, one per token) and
//         DIR/tokens.json (their counts and the vocabulary size)
//
// The split is train_kjv's (kjv_corpus.hpp: every 20th chapter held out) and the tokenizer is
// attnlab-kjv's own vocab.json + merges.txt, so a model trained on these streams is scored on the
// same held-out tokens as attnlab-kjv.
#include <cstdint>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "attnlab/text/bpe.hpp"
#include "kjv_corpus.hpp"

namespace {


void write_ids(const std::string& path, const std::vector<int>& ids) {
  std::vector<std::uint8_t> bytes;
  bytes.reserve(ids.size() * 2);
  for (int id : ids) {
    if (id < 0 || id > 0xFFFF) throw std::runtime_error("token id " + std::to_string(id) + " does not fit 16 bits");
    bytes.push_back(static_cast<std::uint8_t>(id & 0xFF));
    bytes.push_back(static_cast<std::uint8_t>(id >> 8));
  }
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string listing, vocab, out;
    int heldout_every = 20;
    for (int i = 1; i + 1 < argc; i += 2) {
      const std::string flag = argv[i], value = argv[i + 1];
      if (flag == "--listing") listing = value;
      else if (flag == "--vocab") vocab = value;
      else if (flag == "--out") out = value;
      else if (flag == "--heldout-every") heldout_every = std::stoi(value);
      else throw std::runtime_error("unknown flag " + flag);
    }
    if (listing.empty() || vocab.empty() || out.empty())
      throw std::runtime_error("usage: kjv_tokens --listing FILE --vocab DIR --out DIR [--heldout-every N]");
    const auto split = attnlab::train::split_chapters(attnlab::train::parse_bible_listing(attnlab::train::read_file(listing)), heldout_every);
    const auto tokenizer =
        attnlab::BpeTokenizer::from_gpt2(attnlab::train::read_file(vocab + "/vocab.json"), attnlab::train::read_file(vocab + "/merges.txt"));
    const std::vector<int> train = tokenizer.encode(split.train), heldout = tokenizer.encode(split.heldout);
    write_ids(out + "/train.u16", train);
    write_ids(out + "/heldout.u16", heldout);
    const nlohmann::json summary = {{"train_tokens", train.size()},       {"heldout_tokens", heldout.size()},
                                    {"vocab_size", tokenizer.vocab_size()}, {"train_chapters", split.train_chapters},
                                    {"heldout_chapters", split.heldout_chapters}};
    std::ofstream(out + "/tokens.json") << summary.dump(2) << "\n";
    std::cout << summary.dump() << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "kjv_tokens: " << e.what() << "\n";
    return 1;
  }
}
