// LlamaLoader: config.json → the model's layout and its (zeroed) weights; then each file's header is
// checked against that layout the moment it is in, and its tensors stream into their slots.
#include "attnlab/llama/llama_loader.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "tensor/checks.hpp"

namespace attnlab {

namespace {

constexpr const char* kLoader = "LlamaLoader";

// model.safetensors.index.json's weight_map: tensor → shard file.
std::map<std::string, std::string, std::less<>> read_index(std::string_view index_json) {
  nlohmann::json index;
  try {
    index = nlohmann::json::parse(index_json.begin(), index_json.end());
  } catch (const nlohmann::json::exception& e) {
    detail::fail(kLoader, "model.safetensors.index.json is not JSON: ", e.what());
  }
  if (!index.is_object() || !index.contains("weight_map") || !index.at("weight_map").is_object())
    detail::fail(kLoader, "model.safetensors.index.json has no \"weight_map\" object");
  std::map<std::string, std::string, std::less<>> map;
  for (const auto& [tensor, shard] : index.at("weight_map").items()) {
    if (!shard.is_string()) detail::fail(kLoader, "model.safetensors.index.json maps '", tensor, "' to ", shard.dump(), ", not a file name");
    map.emplace(tensor, shard.get<std::string>());
  }
  return map;
}

// Buffers Hugging Face's loader ignores, and so may a checkpoint hold without saying anything.
bool ignored(const LlamaConfig& config, std::string_view name) {
  return name.ends_with("rotary_emb.inv_freq") || (config.tie_word_embeddings && name == "lm_head.weight");
}

}  // namespace

LlamaLoader::LlamaLoader(std::string_view config_json, std::string_view index_json)
    : LlamaLoader(llama_config_from_json(config_json), {"model.safetensors"}) {
  if (index_json.empty()) return;
  index_ = read_index(index_json);
  files_.clear();
  for (const auto& [tensor, shard] : index_)
    if (std::find(files_.begin(), files_.end(), shard) == files_.end()) files_.push_back(shard);
  std::sort(files_.begin(), files_.end());
  begun_.assign(files_.size(), false);
}

LlamaLoader::LlamaLoader(const LlamaConfig& config, std::vector<std::string> weight_files)
    : model_(new Llama(config, Llama::Unallocated{})), files_(std::move(weight_files)), begun_(files_.size(), false) {
  for (std::size_t s = 0; s < model_->slots_.size(); ++s) slot_of_.emplace(model_->slots_[s].name, static_cast<int>(s));
  found_in_.assign(model_->slots_.size(), -1);
}

void LlamaLoader::require_current_file_complete() const {
  if (stream_ && !stream_->complete())
    detail::fail(kLoader, files_[static_cast<std::size_t>(current_)], " was fed ", stream_->received(), " of its ",
                 stream_->file_size(), " bytes");
}

void LlamaLoader::begin_file(std::string_view name, std::uint64_t size) {
  if (!model_) detail::fail(kLoader, "finish() has made the model already: this loader is spent");
  require_current_file_complete();
  const auto it = std::find(files_.begin(), files_.end(), name);
  if (it == files_.end()) {
    std::string listed;
    for (const std::string& f : files_) listed += (listed.empty() ? "" : ", ") + f;
    detail::fail(kLoader, "'", name, "' is not one of the weight files (", listed, ")");
  }
  const std::size_t file = static_cast<std::size_t>(it - files_.begin());
  if (begun_[file]) detail::fail(kLoader, name, " was begun before");
  begun_[file] = true;
  current_ = static_cast<int>(file);
  stream_ = std::make_unique<SafetensorsStream>(size, [this, file](const SafetensorsHeader& header) { return destinations(file, header); });
}

void LlamaLoader::feed(std::span<const std::uint8_t> bytes) {
  if (!stream_) detail::fail(kLoader, "feed() before begin_file(): which file are these bytes of?");
  stream_->feed(bytes);
}

// The header against the layout: every error a checkpoint can have that its header shows.
void LlamaLoader::check_header(std::size_t file, const SafetensorsHeader& header) {
  const LlamaConfig& config = model_->config();
  const std::string& name = files_[file];
  std::vector<std::string> extra;
  for (const SafetensorInfo& info : header.tensors) {
    if (ignored(config, info.name)) continue;
    if (!index_.empty()) {
      const auto mapped = index_.find(info.name);
      if (mapped != index_.end() && mapped->second != name)
        detail::fail(kLoader, "model.safetensors.index.json puts '", info.name, "' in ", mapped->second, ", but it is in ", name);
    }
    const auto slot = slot_of_.find(info.name);
    if (slot == slot_of_.end()) {
      extra.push_back(info.name);
      continue;
    }
    const LlamaTensorSlot& s = model_->slots_[static_cast<std::size_t>(slot->second)];
    if (info.shape != s.shape)
      detail::fail(kLoader, "tensor '", s.name, "' has shape ", header_shape_text(info.shape), " but this config needs ",
                   header_shape_text(s.shape));
    if (const int before = found_in_[static_cast<std::size_t>(slot->second)]; before >= 0)
      detail::fail(kLoader, "tensor '", s.name, "' is in two of the files (", files_[static_cast<std::size_t>(before)], " and ", name, ")");
    found_in_[static_cast<std::size_t>(slot->second)] = static_cast<int>(file);
  }
  if (!extra.empty()) {  // the first by name: the same message whatever order the file lists them in
    detail::fail(kLoader, "the checkpoint's tensor '", *std::min_element(extra.begin(), extra.end()), "' is not part of a ",
                 config.model_type(), " with this config (num_hidden_layers = ", config.num_layers,
                 config.qkv_bias ? ", q/k/v biases" : ", no q/k/v biases", config.tie_word_embeddings ? ", tied embeddings)" : ")");
  }
  for (const auto& [tensor, shard] : index_) {
    if (shard == name && !ignored(config, tensor) && !header.find(tensor))
      detail::fail(kLoader, "model.safetensors.index.json puts '", tensor, "' in ", name, ", which does not hold it");
  }
}

std::vector<TensorDestination> LlamaLoader::destinations(std::size_t file, const SafetensorsHeader& header) {
  check_header(file, header);
  std::vector<TensorDestination> out;
  for (const SafetensorInfo& info : header.tensors) {
    const auto slot = slot_of_.find(info.name);
    if (ignored(model_->config(), info.name) || slot == slot_of_.end()) {
      out.emplace_back();
      continue;
    }
    // A BF16 matrix is copied as it is and kept so; anything else is widened to float32.
    const bool keep_bf16 = info.dtype == DType::BF16 && info.shape.size() == 2;
    std::uint8_t* bytes = model_->allocate(slot->second, keep_bf16 ? DType::BF16 : DType::F32);
    out.push_back(keep_bf16 ? TensorDestination{.bytes = bytes} : TensorDestination{.floats = reinterpret_cast<float*>(bytes)});
  }
  return out;
}

Llama LlamaLoader::finish() {
  if (!model_) detail::fail(kLoader, "finish() has made the model already: this loader is spent");
  require_current_file_complete();
  for (std::size_t f = 0; f < files_.size(); ++f)
    if (!begun_[f]) detail::fail(kLoader, files_[f], " was not fed (weight_files() lists it)");
  const LlamaConfig& config = model_->config();
  for (std::size_t s = 0; s < model_->slots_.size(); ++s) {
    const LlamaTensorSlot& slot = model_->slots_[s];
    if (found_in_[s] < 0)
      detail::fail(kLoader, "the checkpoint has no tensor '", slot.name, "', which a ", config.model_type(), " with num_hidden_layers = ",
                   config.num_layers, " needs");
    const Llama::Storage& values = model_->storage_[s];
    const bool finite = slot.stored == DType::BF16
                            ? std::none_of(values.bf16.begin(), values.bf16.end(), [](std::uint16_t h) { return (h & 0x7F80u) == 0x7F80u; })
                            : detail::all_finite(values.f32.data(), static_cast<Eigen::Index>(slot.size));
    if (!finite) detail::fail(kLoader, "tensor '", slot.name, "' has a NaN or infinite value");
  }
  stream_.reset();
  Llama model = std::move(*model_);
  model_.reset();
  return model;
}

}  // namespace attnlab
