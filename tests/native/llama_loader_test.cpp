// LlamaLoader: a checkpoint fed a file at a time and a piece at a time gives the model Llama::from_files
// gives from whole files (itself checked against the float64 reference in llama_test.cpp), and every
// way a folder can be fed wrong is refused by name, before or after the header, with nothing kept.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "attnlab/llama/llama_loader.hpp"
#include "expect_error.hpp"
#include "fixture.hpp"
#include "llama_fixture.hpp"

namespace attnlab {
namespace {

std::string config_text(const LlamaFolder& folder) {
  const std::vector<std::uint8_t>& bytes = folder.bytes.at("config.json");
  return {bytes.begin(), bytes.end()};
}

// The folder's weight files fed in pieces of `piece` bytes.
Llama load_in_pieces(const LlamaFolder& folder, std::size_t piece) {
  const auto index = folder.bytes.find("model.safetensors.index.json");
  const std::string index_text = index == folder.bytes.end() ? "" : std::string(index->second.begin(), index->second.end());
  LlamaLoader loader(config_text(folder), index_text);
  for (const std::string& name : loader.weight_files()) {
    const std::vector<std::uint8_t>& file = folder.bytes.at(name);
    loader.begin_file(name, file.size());
    for (std::size_t at = 0; at < file.size(); at += piece)
      loader.feed(std::span<const std::uint8_t>(file).subspan(at, std::min(piece, file.size() - at)));
  }
  return loader.finish();
}

TEST(LlamaLoader, PiecesOfAnySizeGiveTheWholeFilesModel) {
  // F32 one file, F32 in two shards, and BF16 (values of 2 bytes split between pieces of 1 and 3).
  for (const char* name : {"llama_gqa", "llama_mha_sharded", "kjv_vocab_folder"}) {
    const LlamaFolder folder = read_llama_folder(name);
    const Llama whole = Llama::from_files(folder.files());
    for (const std::size_t piece : {1, 3, 4096}) EXPECT_TRUE(same_weights(load_in_pieces(folder, piece), whole)) << name << ", pieces of " << piece;
  }
}

TEST(LlamaLoader, FromFolderReadsTheFolderOnDisk) {
  for (const char* name : {"llama_gqa", "llama_mha_sharded", "kjv_vocab_folder"}) {
    const Llama from_disk = Llama::from_folder(std::string(ATTNLAB_FIXTURE_DIR) + "/llama/" + name);
    EXPECT_TRUE(same_weights(from_disk, Llama::from_files(read_llama_folder(name).files()))) << name;
  }
  const std::string missing = std::string(ATTNLAB_FIXTURE_DIR) + "/llama/no_such_folder";
  expect_error([&] { Llama::from_folder(missing); }, "Llama::from_folder: '" + missing + "' holds no config.json");
}

TEST(LlamaLoader, FeedingItWrongIsRefusedByName) {
  const LlamaFolder folder = read_llama_folder("llama_gqa");
  const std::vector<std::uint8_t>& file = folder.bytes.at("model.safetensors");
  const std::string config = config_text(folder);
  {
    LlamaLoader loader(config);
    EXPECT_EQ(loader.weight_files(), std::vector<std::string>{"model.safetensors"});
    expect_error([&] { loader.feed(file); }, "LlamaLoader: feed() before begin_file(): which file are these bytes of?");
    expect_error([&] { loader.begin_file("model-00001.safetensors", 10); },
                 "LlamaLoader: 'model-00001.safetensors' is not one of the weight files (model.safetensors)");
    expect_error([&] { loader.finish(); }, "LlamaLoader: model.safetensors was not fed (weight_files() lists it)");
    loader.begin_file("model.safetensors", file.size());
    loader.feed(std::span<const std::uint8_t>(file).first(1000));
    expect_error([&] { loader.finish(); },
                 "LlamaLoader: model.safetensors was fed 1000 of its " + std::to_string(file.size()) + " bytes");
    expect_error([&] { loader.begin_file("model.safetensors", file.size()); },
                 "LlamaLoader: model.safetensors was fed 1000 of its " + std::to_string(file.size()) + " bytes");
    loader.feed(std::span<const std::uint8_t>(file).subspan(1000));
    const Llama model = loader.finish();
    EXPECT_TRUE(same_weights(model, Llama::from_files(folder.files())));
    expect_error([&] { loader.finish(); }, "LlamaLoader: finish() has made the model already: this loader is spent");
  }
  // The same file twice: its tensors are in two of the files.
  const std::vector<std::span<const std::uint8_t>> twice{file, file};
  expect_error([&] { Llama::from_safetensors(llama_config_from_json(config), twice); },
               "LlamaLoader: tensor 'model.embed_tokens.weight' is in two of the files (files[0] and files[1])");
  // A shard the index maps a tensor to, holding another file's tensors.
  LlamaFolder sharded = read_llama_folder("llama_mha_sharded");
  std::swap(sharded.bytes.at("model-00001-of-00002.safetensors"), sharded.bytes.at("model-00002-of-00002.safetensors"));
  expect_error_containing([&] { Llama::from_files(sharded.files()); }, "LlamaLoader: model.safetensors.index.json puts '");
  expect_error_containing([&] { Llama::from_files(sharded.files()); }, "in model-00002-of-00002.safetensors, but it is in model-00001-of-00002.safetensors");
  // A truncated weight file: the header says how long it should be.
  const std::vector<std::uint8_t> cut(file.begin(), file.end() - 4);
  expect_error_containing([&] { Llama::from_files({{"config.json", folder.files().at("config.json")}, {"model.safetensors", cut}}); },
                          "parse_safetensors: the file is cut short: its header describes");
}

}  // namespace
}  // namespace attnlab
