// GPT checkpoints in Hugging Face GPT-2's .safetensors layout (format in safetensors.hpp).
#include <charconv>
#include <map>
#include <set>

#include "attnlab/gpt/gpt.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

namespace {

constexpr const char* kLoad = "GPT::from_safetensors";

// "transformer.h.0.ln_1.weight" → "h.0.ln_1.weight" (GPT2LMHeadModel's names → GPT2Model's).
std::string_view without_prefix(std::string_view name) {
  constexpr std::string_view prefix = "transformer.";
  return name.starts_with(prefix) ? name.substr(prefix.size()) : name;
}

// "h.12.attn.bias" → 12 and "attn.bias"; false for names that are not a block's.
bool split_block_name(std::string_view name, int& layer, std::string_view& rest) {
  if (!name.starts_with("h.")) return false;
  const std::size_t dot = name.find('.', 2);
  if (dot == std::string_view::npos) return false;
  const auto [end, error] = std::from_chars(name.data() + 2, name.data() + dot, layer);
  if (error != std::errc() || end != name.data() + dot || layer < 0) return false;
  rest = name.substr(dot + 1);
  return true;
}

// The file's tensors by their GPT2Model name, without the mask buffers; Error on a name twice.
std::map<std::string, const SafetensorInfo*, std::less<>> index_tensors(const SafetensorsHeader& header) {
  std::map<std::string, const SafetensorInfo*, std::less<>> by_name;
  for (const SafetensorInfo& info : header.tensors) {
    const std::string_view name = without_prefix(info.name);
    int layer = 0;
    std::string_view rest;
    if (split_block_name(name, layer, rest) && (rest == "attn.bias" || rest == "attn.masked_bias")) continue;
    if (!by_name.emplace(std::string(name), &info).second)
      detail::fail(kLoad, "tensor '", name, "' appears twice (with and without the 'transformer.' prefix)");
  }
  return by_name;
}

const SafetensorInfo& require_tensor(const std::map<std::string, const SafetensorInfo*, std::less<>>& tensors,
                                     std::string_view name) {
  const auto it = tensors.find(name);
  if (it == tensors.end()) detail::fail(kLoad, "the file has no tensor '", name, "'");
  return *it->second;
}

// The model's sizes from wte [V×d], wpe [C×d] and the highest block index; the head count from the
// argument or the metadata.
GPTConfig config_from(const SafetensorsHeader& header,
                      const std::map<std::string, const SafetensorInfo*, std::less<>>& tensors, int num_heads,
                      bool override_n_head) {
  const SafetensorInfo& wte = require_tensor(tensors, "wte.weight");
  const SafetensorInfo& wpe = require_tensor(tensors, "wpe.weight");
  if (wte.shape.size() != 2 || wpe.shape.size() != 2 || wte.shape[1] != wpe.shape[1])
    detail::fail(kLoad, "wte.weight is ", header_shape_text(wte.shape), " and wpe.weight is ", header_shape_text(wpe.shape),
                 ": they must be [vocab_size, d_model] and [context_length, d_model]");
  int layers = 0;
  for (const auto& [name, info] : tensors) {
    int layer = 0;
    std::string_view rest;
    if (split_block_name(name, layer, rest)) layers = std::max(layers, layer + 1);
  }
  const bool heads_passed = num_heads > 0;
  const auto it = header.metadata.find("n_head");
  if (!heads_passed && it == header.metadata.end())
    detail::fail(kLoad, "the number of heads is not in the file's metadata (n_head): pass it (num_heads)");
  if (it != header.metadata.end() && !(heads_passed && override_n_head)) {
    const std::string& text = it->second;
    int file_heads = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), file_heads);
    if (error != std::errc() || end != text.data() + text.size() || file_heads <= 0)
      detail::fail(kLoad, "the metadata's n_head = '", text, "' is not a positive integer");
    if (heads_passed && num_heads != file_heads)
      // (no apostrophes: the package renames num_heads outside quotes, toJsOptionNames in web/lib/call.js)
      detail::fail(kLoad, "num_heads = ", num_heads, " (as passed) differs from the metadata n_head = ", file_heads,
                   " of the file: leave num_heads out to take the count from the file, or override it (override_n_head)");
    num_heads = file_heads;
  }
  const auto fits_int = [](std::int64_t v) { return v > 0 && v <= 0x7fffffff; };
  if (!fits_int(wte.shape[0]) || !fits_int(wte.shape[1]) || !fits_int(wpe.shape[0]))
    detail::fail(kLoad, "wte.weight ", header_shape_text(wte.shape), " or wpe.weight ", header_shape_text(wpe.shape),
                 " has a size that is 0 or too large");
  GPTConfig config{static_cast<int>(wte.shape[0]), static_cast<int>(wpe.shape[0]), static_cast<int>(wte.shape[1]),
                   num_heads, layers};
  if (layers == 0) detail::fail(kLoad, "the file has no blocks (no tensor named h.0.…)");
  if (config.d_model % num_heads != 0)
    detail::fail(kLoad, "d_model = ", config.d_model, " (from wte.weight) is not divisible by ",
                 heads_passed ? "num_heads = " : "the metadata's n_head = ", num_heads, heads_passed ? " (as passed)" : "");
  check_gpt_config(kLoad, config);
  return config;
}

}  // namespace

GPT GPT::from_safetensors(std::span<const std::uint8_t> file, int num_heads, bool override_n_head) {
  return load(file, num_heads, override_n_head, 0);
}

GPT GPT::from_safetensors(const std::filesystem::path& path, int num_heads, bool override_n_head) {
  const std::vector<std::uint8_t> bytes = read_file_bytes(kLoad, path);
  return load(bytes, num_heads, override_n_head, 0);
}

GPT GPT::load(std::span<const std::uint8_t> file, int num_heads, bool override_n_head, std::size_t copy_bytes) {
  const SafetensorsHeader header = parse_safetensors(file);
  const auto tensors = index_tensors(header);
  GPTConfig config = config_from(header, tensors, num_heads, override_n_head);
  detail::require_within_budget(kLoad, 1, static_cast<double>(config.parameter_count()) + static_cast<double>(copy_bytes) / 4.0, 1,
                                "the parameters, and the file's copy");

  // Every tensor the layout needs, with its shape, before allocating the model.
  const GPT layout(config, LayoutOnly{});
  std::set<std::string, std::less<>> used;
  for (const GPTTensorSlot& slot : layout.slots_) {
    const SafetensorInfo& info = require_tensor(tensors, slot.name);
    if (info.shape != slot.shape)
      detail::fail(kLoad, "tensor '", slot.name, "' is ", header_shape_text(info.shape), " but a GPT with ",
                   config.num_layers, " layers, d_model ", config.d_model, ", vocab_size ", config.vocab_size,
                   " and context_length ", config.context_length, " needs ", header_shape_text(slot.shape));
    used.insert(slot.name);
  }
  for (const auto& [name, info] : tensors)
    if (!used.contains(name) && name != "lm_head.weight")
      detail::fail(kLoad, "tensor '", info->name, "' is not part of GPT-2's architecture");

  GPT model(config);
  for (const GPTTensorSlot& slot : model.slots_) {
    float* values = model.values_.data() + slot.offset;
    read_tensor(file, header, require_tensor(tensors, slot.name), values);
    if (!detail::all_finite(values, static_cast<Eigen::Index>(slot.size)))
      detail::fail(kLoad, "tensor '", slot.name, "' has a NaN or infinite value");
  }
  // GPT2LMHeadModel saves the tied output layer too: it must be wte (attnlab has no untied head).
  if (const auto it = tensors.find("lm_head.weight"); it != tensors.end()) {
    const SafetensorInfo& head = *it->second;
    const GPTTensorSlot& wte = model.slots_[static_cast<std::size_t>(model.wte_)];
    if (head.shape != wte.shape)
      detail::fail(kLoad, "lm_head.weight is ", header_shape_text(head.shape), " but wte.weight is ", header_shape_text(wte.shape));
    std::vector<float> values(wte.size);
    read_tensor(file, header, head, values.data());
    if (!std::equal(values.begin(), values.end(), model.values_.begin() + static_cast<std::ptrdiff_t>(wte.offset)))
      detail::fail(kLoad, "lm_head.weight differs from wte.weight: GPT-2 ties them, and attnlab's GPT does too");
  }
  model.weights_changed();  // written directly, not through load_tensor
  return model;
}

std::vector<std::uint8_t> GPT::to_safetensors(DType dtype) const {
  std::vector<TensorToWrite> tensors;
  for (const GPTTensorSlot& slot : slots_) tensors.push_back({slot.name, slot.shape, values_.data() + slot.offset});
  return write_safetensors(tensors, dtype, {{"n_head", std::to_string(config_.num_heads)}, {"format", "pt"}});
}

}  // namespace attnlab
