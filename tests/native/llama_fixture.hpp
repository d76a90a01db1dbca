// The Llama fixtures' folders (tests/fixtures/make_llama_fixtures.py) read as a learner's folder pick
// gives them, for the Llama tests.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "attnlab/llama/llama.hpp"
#include "fixture.hpp"

namespace attnlab {

// A fixture folder's files as a learner's folder pick gives them: name → bytes.
struct LlamaFolder {
  std::map<std::string, std::vector<std::uint8_t>> bytes;
  std::map<std::string, std::span<const std::uint8_t>> files() const {
    std::map<std::string, std::span<const std::uint8_t>> out;
    for (const auto& [name, data] : bytes) out.emplace(name, data);
    return out;
  }
};

inline LlamaFolder read_llama_folder(const std::string& name, const std::string& sub = "") {
  const std::string dir = "llama/" + name + (sub.empty() ? "" : "/" + sub) + "/";
  LlamaFolder folder;
  folder.bytes["config.json"] = testing::fixture_bytes(dir + "config.json");
  if (name == "llama_mha_sharded" && sub.empty()) {
    folder.bytes["model.safetensors.index.json"] = testing::fixture_bytes(dir + "model.safetensors.index.json");
    for (const char* shard : {"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"})
      folder.bytes[shard] = testing::fixture_bytes(dir + shard);
  } else {
    folder.bytes["model.safetensors"] = testing::fixture_bytes(dir + "model.safetensors");
  }
  return folder;
}

// Every tensor the same: how each is kept (F32 or BF16) and its values to the bit.
inline bool same_weights(const Llama& a, const Llama& b) {
  if (a.tensors().size() != b.tensors().size()) return false;
  for (std::size_t i = 0; i < a.tensors().size(); ++i) {
    const LlamaTensorSlot &x = a.tensors()[i], &y = b.tensors()[i];
    if (x.name != y.name || x.stored != y.stored || a.tensor_values(x.name) != b.tensor_values(y.name)) return false;
  }
  return true;
}

inline Llama load_llama(const std::string& name, const std::string& sub = "") { return Llama::from_files(read_llama_folder(name, sub).files()); }

}  // namespace attnlab
