#include "training_checkpoint.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <span>
#include <stdexcept>

#include "attnlab/io/safetensors.hpp"

namespace attnlab::train {

namespace {

std::string moment_name(const char* which, std::size_t index) { return std::string("adam.") + which + "." + std::to_string(index); }

// The metadata values are strings (the format says so); integers are written exactly, doubles as
// hexadecimal floats so that they read back to the same bits.
std::string hex_double(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%a", value);
  return text;
}

const std::string& metadata_value(const SafetensorsHeader& header, const std::string& key, const std::string& path) {
  const auto found = header.metadata.find(key);
  if (found == header.metadata.end()) throw std::runtime_error(path + ": the checkpoint has no " + key);
  return found->second;
}

std::vector<float> read_named(std::span<const std::uint8_t> file, const SafetensorsHeader& header, const std::string& name,
                              std::size_t expected_size, const std::string& path) {
  const SafetensorInfo* info = header.find(name);
  if (info == nullptr) throw std::runtime_error(path + ": the checkpoint has no tensor " + name);
  if (static_cast<std::size_t>(info->element_count()) != expected_size) {
    throw std::runtime_error(path + ": " + name + " has " + std::to_string(info->element_count()) + " values, the model " +
                             std::to_string(expected_size));
  }
  std::vector<float> values(expected_size);
  read_tensor(file, header, *info, values.data());
  return values;
}

}  // namespace

void save_checkpoint(const std::string& path, const GPT& model, const GPTTrainer& trainer, const CheckpointState& state) {
  const AdamState adam = trainer.optimizer().state();
  std::vector<TensorToWrite> tensors;
  // The best values are the current ones while the held-out loss keeps falling: then not written twice.
  const bool best_is_current = state.best_step == state.step;
  for (const GPTTensorSlot& slot : model.tensors()) {
    tensors.push_back({"model." + slot.name, slot.shape, model.values().data() + slot.offset});
    if (!best_is_current) tensors.push_back({"best." + slot.name, slot.shape, state.best_values.data() + slot.offset});
  }
  for (std::size_t i = 0; i < adam.exp_avg.size(); ++i) {
    const auto size = static_cast<std::int64_t>(adam.exp_avg[i].size());
    tensors.push_back({moment_name("exp_avg", i), {size}, adam.exp_avg[i].data()});
    tensors.push_back({moment_name("exp_avg_sq", i), {size}, adam.exp_avg_sq[i].data()});
  }
  const std::map<std::string, std::string> metadata = {
      {"step", std::to_string(state.step)},
      {"adam_step", std::to_string(adam.step)},
      {"data_rng_state", std::to_string(state.data_rng.state)},
      {"data_rng_increment", std::to_string(state.data_rng.increment)},
      {"best_heldout", hex_double(state.best_heldout)},
      {"best_step", std::to_string(state.best_step)},
      {"training_seconds", hex_double(state.training_seconds)},
      {"log_lines", std::to_string(state.log_lines)}};
  const std::vector<std::uint8_t> bytes = write_safetensors(tensors, DType::F32, metadata);
  const std::string temporary = path + ".partial";
  {
    std::ofstream out(temporary, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw std::runtime_error("cannot write " + temporary);
  }
  std::filesystem::rename(temporary, path);
}

CheckpointState load_checkpoint(const std::string& path, GPT& model, GPTTrainer& trainer) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read the checkpoint " + path);
  const std::vector<std::uint8_t> file{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const SafetensorsHeader header = parse_safetensors(file);
  const auto integer = [&](const std::string& key) { return std::stoll(metadata_value(header, key, path)); };
  const auto real = [&](const std::string& key) { return std::strtod(metadata_value(header, key, path).c_str(), nullptr); };

  CheckpointState state;
  state.best_values.assign(model.values().size(), 0.0f);
  const bool best_is_current = integer("best_step") == integer("step");
  for (const GPTTensorSlot& slot : model.tensors()) {
    const auto size = static_cast<std::size_t>(slot.size);
    const std::vector<float> values = read_named(file, header, "model." + slot.name, size, path);
    model.load_tensor(slot.name, values);
    const std::vector<float> best = best_is_current ? values : read_named(file, header, "best." + slot.name, size, path);
    std::copy(best.begin(), best.end(), state.best_values.begin() + static_cast<std::ptrdiff_t>(slot.offset));
  }
  AdamState adam = trainer.optimizer().state();
  adam.step = integer("adam_step");
  for (std::size_t i = 0; i < trainer.optimizer().parameters().size(); ++i) {
    const auto size = static_cast<std::size_t>(trainer.optimizer().parameters()[i].size);
    adam.exp_avg.resize(i + 1);
    adam.exp_avg_sq.resize(i + 1);
    adam.exp_avg[i] = read_named(file, header, moment_name("exp_avg", i), size, path);
    adam.exp_avg_sq[i] = read_named(file, header, moment_name("exp_avg_sq", i), size, path);
  }
  trainer.optimizer().load_state(adam);

  state.step = integer("step");
  state.data_rng = {.state = std::stoull(metadata_value(header, "data_rng_state", path)),
                    .increment = std::stoull(metadata_value(header, "data_rng_increment", path))};
  state.best_heldout = real("best_heldout");
  state.best_step = integer("best_step");
  state.training_seconds = real("training_seconds");
  state.log_lines = integer("log_lines");
  return state;
}

}  // namespace attnlab::train
