// A Hugging Face checkpoint folder read a file at a time, and each file a piece at a time: the memory a
// load needs is the model's weights (allocated from config.json, within the memory budget, before any
// weight is read) plus one piece — never the weights plus the files. Llama::from_files and
// Llama::from_folder read through it; so does the npm package's loadModel, which streams each
// .safetensors file from the learner's disk straight into the model.
//
//   LlamaLoader loader(config_json, index_json);   // index_json empty: the weights are model.safetensors
//   for (const std::string& name : loader.weight_files()) {
//     loader.begin_file(name, size_of(name));
//     while (…) loader.feed(piece);                 // the file's bytes in order, pieces of any size
//   }
//   Llama model = loader.finish();
//
// What is checked, and when: the config when the loader is made (and the model's size against the
// memory budget); a file's tensors as soon as its header is in — a tensor no layer of this config has,
// a shape that differs (the tensor's name and both shapes), a tensor in two files, one the index maps to
// another file, one the index maps here that the file lacks; at finish(), a file not read to its end or
// not read at all, a tensor the config needs that no file held, a NaN or infinite weight. Tolerated as
// Hugging Face's loader tolerates them: the rotary_emb.inv_freq buffers older checkpoints saved (RoPE's
// frequencies come from the config), and an lm_head.weight when the config ties it to embed_tokens (HF
// overwrites it with embed_tokens on load; so does this).
#pragma once

#include "attnlab/tensor/api.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attnlab/io/safetensors_stream.hpp"
#include "attnlab/llama/llama.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

class LlamaLoader {
 public:
  // config.json's text, and model.safetensors.index.json's when the weights are in shards.
  explicit LlamaLoader(std::string_view config_json, std::string_view index_json = {});
  // A config already parsed, the weights in the files named (no index: any tensor may be in any of them).
  LlamaLoader(const LlamaConfig& config, std::vector<std::string> weight_files);
  LlamaLoader(const LlamaLoader&) = delete;  // the stream under way points back at its loader
  LlamaLoader& operator=(const LlamaLoader&) = delete;

  const LlamaConfig& config() const { return model_->config(); }
  // The files to feed, in the order to feed them: model.safetensors, or the index's shards (sorted).
  const std::vector<std::string>& weight_files() const { return files_; }

  // The next file, `size` bytes long. Error for a name weight_files() does not list or one begun before,
  // and when the file before it was not fed to its end.
  void begin_file(std::string_view name, std::uint64_t size);
  // The current file's next bytes (SafetensorsStream checks them; the tensors are checked at its header).
  void feed(std::span<const std::uint8_t> bytes);
  // The model, once every file has been fed whole and every tensor was found. The loader is spent.
  Llama finish();

 private:
  void check_header(std::size_t file, const SafetensorsHeader& header);
  std::vector<TensorDestination> destinations(std::size_t file, const SafetensorsHeader& header);
  void require_current_file_complete() const;

  std::unique_ptr<Llama> model_;
  std::vector<std::string> files_;
  std::map<std::string, std::string, std::less<>> index_;  // tensor → shard (empty without an index)
  std::map<std::string, int, std::less<>> slot_of_;        // Hugging Face's name → the model's slot
  std::vector<int> found_in_;                               // slot → the file that held it (−1: none yet)
  std::vector<bool> begun_;                                 // per files_ entry
  int current_ = -1;                                        // the file being fed
  std::unique_ptr<SafetensorsStream> stream_;
};

}  // namespace attnlab
ATTNLAB_API_END
