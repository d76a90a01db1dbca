// A Llama-family checkpoint as Hugging Face's save_pretrained writes it, read and written.
//
// Read: config.json, then the weights from model.safetensors, or from the shards that
// model.safetensors.index.json's weight_map names. Every tensor is checked against the config before
// the model is allocated: a tensor the config needs and no file holds, one no layer of this config has,
// one whose shape differs (name and both shapes), one the index maps to a shard that was not given or
// that does not hold it. Tolerated as HF's loader tolerates them: the rotary_emb.inv_freq buffers older
// checkpoints saved (RoPE's frequencies come from the config), and an lm_head.weight when the config
// ties it to embed_tokens (HF overwrites it with embed_tokens on load; so does this).
#include <algorithm>

#include <nlohmann/json.hpp>

#include "attnlab/llama/llama.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

namespace {

struct Located {
  std::size_t file = 0;
  const SafetensorInfo* info = nullptr;
};

}  // namespace

Llama Llama::from_safetensors(const LlamaConfig& config, std::span<const std::span<const std::uint8_t>> files) {
  const char* fn = "Llama::from_safetensors";
  check_llama_config(fn, config);
  std::vector<SafetensorsHeader> headers;
  for (const auto& file : files) headers.push_back(parse_safetensors(file));

  // Every tensor in the files, by name; a name in two files is refused (which one would win?).
  std::map<std::string, Located, std::less<>> found;
  for (std::size_t f = 0; f < headers.size(); ++f) {
    for (const SafetensorInfo& info : headers[f].tensors) {
      if (info.name.ends_with("rotary_emb.inv_freq")) continue;
      if (config.tie_word_embeddings && info.name == "lm_head.weight") continue;
      if (!found.emplace(info.name, Located{f, &info}).second)
        detail::fail(fn, "tensor '", info.name, "' is in two of the files");
    }
  }
  // The layout alone (no weights yet) to check the files against.
  Llama model(config);
  for (const LlamaTensorSlot& slot : model.slots_) {
    const auto it = found.find(slot.name);
    if (it == found.end()) {
      detail::fail(fn, "the checkpoint has no tensor '", slot.name, "', which a ", config.model_type(), " with num_hidden_layers = ",
                   config.num_layers, " needs");
    }
    if (it->second.info->shape != slot.shape)
      detail::fail(fn, "tensor '", slot.name, "' has shape ", header_shape_text(it->second.info->shape), " but this config needs ",
                   header_shape_text(slot.shape));
  }
  if (found.size() != model.slots_.size()) {
    for (const auto& [name, located] : found) {
      bool known = false;
      for (const LlamaTensorSlot& slot : model.slots_) known = known || slot.name == name;
      if (!known)
        detail::fail(fn, "the checkpoint's tensor '", name, "' is not part of a ", config.model_type(), " with this config (num_hidden_layers = ",
                     config.num_layers, config.qkv_bias ? ", q/k/v biases" : ", no q/k/v biases",
                     config.tie_word_embeddings ? ", tied embeddings)" : ")");
    }
  }
  for (const LlamaTensorSlot& slot : model.slots_) {
    const Located& at = found.find(slot.name)->second;
    float* out = model.values_.data() + slot.offset;
    read_tensor(files[at.file], headers[at.file], *at.info, out);
    if (!detail::all_finite(out, static_cast<Eigen::Index>(slot.size)))
      detail::fail(fn, "tensor '", slot.name, "' has a NaN or infinite value");
  }
  return model;
}

Llama Llama::from_files(const std::map<std::string, std::span<const std::uint8_t>>& files) {
  const char* fn = "Llama::from_files";
  const auto file = [&](const std::string& name) -> std::span<const std::uint8_t> {
    const auto it = files.find(name);
    return it == files.end() ? std::span<const std::uint8_t>() : it->second;
  };
  std::string given;
  for (const auto& [name, bytes] : files) given += (given.empty() ? "" : ", ") + name;
  if (!files.contains("config.json")) detail::fail(fn, "no config.json among the files (given: ", given, ")");
  const std::span<const std::uint8_t> config_bytes = file("config.json");
  const LlamaConfig config =
      llama_config_from_json(std::string_view(reinterpret_cast<const char*>(config_bytes.data()), config_bytes.size()));

  std::vector<std::span<const std::uint8_t>> weights;
  if (files.contains("model.safetensors.index.json")) {
    const std::span<const std::uint8_t> index_bytes = file("model.safetensors.index.json");
    nlohmann::json index;
    try {
      index = nlohmann::json::parse(index_bytes.begin(), index_bytes.end());
    } catch (const nlohmann::json::exception& e) {
      detail::fail(fn, "model.safetensors.index.json is not JSON: ", e.what());
    }
    if (!index.is_object() || !index.contains("weight_map") || !index.at("weight_map").is_object())
      detail::fail(fn, "model.safetensors.index.json has no \"weight_map\" object");
    std::vector<std::string> shards;
    for (const auto& [tensor, shard] : index.at("weight_map").items()) {
      if (!shard.is_string()) detail::fail(fn, "model.safetensors.index.json maps '", tensor, "' to ", shard.dump(), ", not a file name");
      const std::string name = shard.get<std::string>();
      if (!files.contains(name))
        detail::fail(fn, "model.safetensors.index.json puts '", tensor, "' in ", name, ", which is not among the files (given: ", given, ")");
      if (std::find(shards.begin(), shards.end(), name) == shards.end()) shards.push_back(name);
    }
    std::sort(shards.begin(), shards.end());
    for (const std::string& name : shards) weights.push_back(file(name));
    Llama model = from_safetensors(config, weights);
    // The index must say where each tensor is: one it maps to a shard that lacks it is a broken folder.
    std::map<std::string, SafetensorsHeader> headers;
    for (const std::string& name : shards) headers.emplace(name, parse_safetensors(file(name)));
    for (const auto& [tensor, shard] : index.at("weight_map").items()) {
      if (tensor.ends_with("rotary_emb.inv_freq")) continue;
      if (!headers.at(shard.get<std::string>()).find(tensor))
        detail::fail(fn, "model.safetensors.index.json puts '", tensor, "' in ", shard.get<std::string>(), ", which does not hold it");
    }
    return model;
  }
  if (!files.contains("model.safetensors"))
    detail::fail(fn, "neither model.safetensors nor model.safetensors.index.json among the files (given: ", given, ")");
  weights.push_back(file("model.safetensors"));
  return from_safetensors(config, weights);
}

std::vector<std::uint8_t> Llama::to_safetensors(DType dtype) const {
  std::vector<TensorToWrite> tensors;
  for (const LlamaTensorSlot& slot : slots_) tensors.push_back({slot.name, slot.shape, values_.data() + slot.offset});
  return write_safetensors(tensors, dtype, {{"format", "pt"}});
}

}  // namespace attnlab
