// A Llama-family checkpoint as Hugging Face's save_pretrained writes it, read and written. Reading goes
// through LlamaLoader (llama_loader.hpp says what it checks): bytes already in memory are fed whole, a
// folder on disk a piece at a time, so reading a folder needs the weights' memory and not the files'.
#include <algorithm>
#include <fstream>

#include "attnlab/llama/llama.hpp"
#include "attnlab/llama/llama_loader.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

namespace {

std::string_view as_text(std::span<const std::uint8_t> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

}  // namespace

Llama Llama::from_safetensors(const LlamaConfig& config, std::span<const std::span<const std::uint8_t>> files) {
  std::vector<std::string> names;
  for (std::size_t f = 0; f < files.size(); ++f) names.push_back("files[" + std::to_string(f) + "]");
  LlamaLoader loader(config, names);
  for (std::size_t f = 0; f < files.size(); ++f) {
    loader.begin_file(names[f], files[f].size());
    loader.feed(files[f]);
  }
  return loader.finish();
}

Llama Llama::from_files(const std::map<std::string, std::span<const std::uint8_t>>& files) {
  const char* fn = "Llama::from_files";
  std::string given;
  for (const auto& [name, bytes] : files) given += (given.empty() ? "" : ", ") + name;
  const auto file = [&](const std::string& name) { return files.find(name)->second; };
  if (!files.contains("config.json")) detail::fail(fn, "no config.json among the files (given: ", given, ")");
  const bool sharded = files.contains("model.safetensors.index.json");
  if (!sharded && !files.contains("model.safetensors"))
    detail::fail(fn, "neither model.safetensors nor model.safetensors.index.json among the files (given: ", given, ")");
  LlamaLoader loader(as_text(file("config.json")), sharded ? as_text(file("model.safetensors.index.json")) : std::string_view());
  for (const std::string& name : loader.weight_files()) {
    if (!files.contains(name))
      detail::fail(fn, "model.safetensors.index.json names ", name, ", which is not among the files (given: ", given, ")");
  }
  for (const std::string& name : loader.weight_files()) {
    loader.begin_file(name, file(name).size());
    loader.feed(file(name));
  }
  return loader.finish();
}

Llama Llama::from_folder(const std::filesystem::path& folder) {
  const char* fn = "Llama::from_folder";
  const auto read_text = [&](const std::filesystem::path& path) {
    const std::vector<std::uint8_t> bytes = read_file_bytes(fn, path);
    return std::string(bytes.begin(), bytes.end());
  };
  const std::filesystem::path index = folder / "model.safetensors.index.json";
  const bool sharded = std::filesystem::exists(index);
  if (!std::filesystem::exists(folder / "config.json")) detail::fail(fn, "'", folder.string(), "' holds no config.json");
  if (!sharded && !std::filesystem::exists(folder / "model.safetensors"))
    detail::fail(fn, "'", folder.string(), "' holds neither model.safetensors nor model.safetensors.index.json");
  LlamaLoader loader(read_text(folder / "config.json"), sharded ? read_text(index) : std::string());
  // A piece at a time: the largest buffer a load holds besides the weights.
  std::vector<std::uint8_t> piece(std::size_t{4} << 20);
  for (const std::string& name : loader.weight_files()) {
    const std::filesystem::path path = folder / name;
    std::ifstream in(path, std::ios::binary);
    if (!in) detail::fail(fn, "cannot open '", path.string(), "'");
    loader.begin_file(name, std::filesystem::file_size(path));
    while (in) {
      in.read(reinterpret_cast<char*>(piece.data()), static_cast<std::streamsize>(piece.size()));
      loader.feed(std::span<const std::uint8_t>(piece.data(), static_cast<std::size_t>(in.gcount())));
    }
    if (in.bad()) detail::fail(fn, "cannot read '", path.string(), "'");
  }
  return loader.finish();
}

std::vector<std::uint8_t> Llama::to_safetensors(DType dtype) const {
  // Every tensor as float32 (one at a time would need the writer to take them one at a time): a BF16
  // model's save holds its weights in float32 meanwhile.
  std::vector<std::vector<float>> values;
  std::vector<TensorToWrite> tensors;
  for (const LlamaTensorSlot& slot : slots_) {
    values.push_back(tensor_values(slot.name));
    tensors.push_back({slot.name, slot.shape, values.back().data()});
  }
  return write_safetensors(tensors, dtype, {{"format", "pt"}});
}

}  // namespace attnlab
