// Fuzz target: what a learner hands the GPT module — .safetensors files (arbitrary bytes, and valid
// GPT checkpoints with bytes changed, cut short or headers replaced), GPT-2 tokenizer files, text to
// encode and decode. Every call returns a result with its properties or throws attnlab::Error.
#include <optional>

#include "attnlab/text/bpe.hpp"
#include "attnlab/gpt/gpt.hpp"
#include "attnlab/io/safetensors.hpp"
#include "fuzz_input.hpp"

namespace attnlab::fuzz {
namespace {

std::span<const std::uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

// A parsed header's promises: ranges inside the data, in order, disjoint; readable tensors read.
void check_parsed(std::span<const std::uint8_t> file, const SafetensorsHeader& header) {
  std::size_t previous_end = 0;
  for (const SafetensorInfo& info : header.tensors) {
    require(info.begin <= info.end && header.data_start + info.end <= file.size(), "a tensor's range is outside the file");
    require(info.begin >= previous_end || info.begin == info.end, "tensor ranges overlap");
    previous_end = std::max(previous_end, info.end);
    if (header.unreadable.contains(info.name)) continue;
    std::vector<float> values(static_cast<std::size_t>(info.element_count()));
    read_tensor(file, header, info, values.data());
  }
}

void fuzz_raw_file(FuzzInput& in) {
  const std::string bytes = in.text(1 << 14);
  std::optional<SafetensorsHeader> header;
  if (!accepted([&] { header = parse_safetensors(as_bytes(bytes)); })) return;
  check_parsed(as_bytes(bytes), *header);
  accepted([&] { GPT::from_safetensors(as_bytes(bytes), in.size(8)); });
}

void fuzz_damaged_checkpoint(FuzzInput& in) {
  // small models only: a checkpoint's size is not what this target is after (a 40,000-layer model
  // within the budget is slow to write and load, not wrong)
  const GPTConfig config{1 + in.choice(24), 1 + in.choice(8), 1 + in.choice(12), in.flag() ? 2 : 1, 1 + in.choice(3)};
  std::optional<GPT> model;
  if (!accepted([&] { model.emplace(config, in.seed()); })) return;
  const DType dtype = in.flag() ? DType::F32 : (in.flag() ? DType::F16 : DType::BF16);
  std::vector<std::uint8_t> file = model->to_safetensors(dtype);
  for (int edits = in.choice(4); edits > 0 && !file.empty(); --edits) {
    switch (in.choice(3)) {
      case 0: file[static_cast<std::size_t>(in.size(1 << 20)) % file.size()] = static_cast<std::uint8_t>(in.choice(256)); break;
      case 1: file.resize(static_cast<std::size_t>(in.size(1 << 20)) % (file.size() + 1)); break;
      default: {  // a header of the fuzzer's own, keeping the data
        const std::string header = in.text(512);
        std::vector<std::uint8_t> replaced(8);
        for (int b = 0; b < 8; ++b) replaced[static_cast<std::size_t>(b)] = static_cast<std::uint8_t>(static_cast<std::uint64_t>(header.size()) >> (8 * b));
        replaced.insert(replaced.end(), header.begin(), header.end());
        replaced.insert(replaced.end(), file.begin() + std::min<std::ptrdiff_t>(64, static_cast<std::ptrdiff_t>(file.size())), file.end());
        file = std::move(replaced);
      }
    }
  }
  std::optional<GPT> loaded;
  if (!accepted([&] { loaded.emplace(GPT::from_safetensors(file, in.flag() ? 0 : in.size(4))); })) return;
  std::vector<int> ids;
  for (int i = 1 + in.choice(loaded->config().context_length); i > 0; --i) ids.push_back(in.choice(loaded->config().vocab_size));
  GPTOutput out;
  if (accepted([&] { out = loaded->forward(ids, {.attention = true}); }))
    require(finite(out.logits) && out.logits.rows() == static_cast<Eigen::Index>(ids.size()) &&
                out.logits.cols() == loaded->config().vocab_size,
            "a loaded GPT's logits are not finite or not n×V");
}

void fuzz_tokenizer_files(FuzzInput& in) {
  const std::string vocab = in.text(2048), merges = in.text(1024), text = in.text(256);
  std::optional<BpeTokenizer> t;
  if (!accepted([&] { t.emplace(BpeTokenizer::from_gpt2(vocab, merges)); })) return;
  const std::vector<int> ids = t->encode(text);
  require(t->decode(ids) == text, "decode(encode(text)) is not the text");
}

void fuzz_trained_tokenizer(FuzzInput& in) {
  const std::string corpus = in.text(2048), text = in.text(512);
  std::optional<BpeTokenizer> t;
  if (!accepted([&] { t.emplace(BpeTokenizer::train(corpus, {.vocab_size = 250 + in.choice(80), .min_count = in.size(3)})); }))
    return;
  std::size_t covered = 0;
  for (std::string_view piece : BpeTokenizer::pretokenize(text)) covered += piece.size();
  require(covered == text.size(), "the pieces do not cover the text");
  const std::vector<int> ids = t->encode(text);
  for (int id : ids) require(id >= 0 && id < t->vocab_size(), "encode gave an id outside the vocabulary");
  require(t->decode(ids) == text, "decode(encode(text)) is not the text");
  std::optional<BpeTokenizer> read;
  require(accepted([&] { read.emplace(BpeTokenizer::from_gpt2(t->vocab_json(), t->merges_text())); }) &&
              read->encode(text) == ids,
          "a trained tokenizer's own files do not read back to the same encoding");
}

}  // namespace
}  // namespace attnlab::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab::fuzz;
  static const FuzzCase cases[] = {fuzz_raw_file, fuzz_damaged_checkpoint, fuzz_tokenizer_files, fuzz_trained_tokenizer};
  return run_one_case(data, size, cases);
}
