// GPT checkpoints: round trips through .safetensors, Hugging Face's naming variants, and every kind of
// bad file with its exact message. (Loading PyTorch-made files is in gpt_test.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "attnlab/gpt/gpt.hpp"
#include "expect_error.hpp"

namespace attnlab {
namespace {

const GPTConfig kConfig{.vocab_size = 13, .context_length = 6, .d_model = 8, .num_heads = 2, .num_layers = 2};

// The model's tensors as a file, after `edit` may rename, reshape, drop or add entries.
struct Tensors {
  std::vector<TensorToWrite> list;
  std::map<std::string, std::string> metadata{{"n_head", "2"}};
  std::vector<std::uint8_t> file() const { return write_safetensors(list, DType::F32, metadata); }
  TensorToWrite& operator[](std::string_view name) {
    for (TensorToWrite& t : list)
      if (t.name == name) return t;
    throw std::runtime_error("no tensor " + std::string(name));
  }
};

Tensors tensors_of(const GPT& model) {
  Tensors t;
  for (const GPTTensorSlot& slot : model.tensors())
    t.list.push_back({slot.name, slot.shape, model.values().data() + slot.offset});
  return t;
}

// A path loads what its bytes load; a path that is not there is an Error naming it.
TEST(GPTCheckpoint, LoadsFromAPathOnDisk) {
  const GPT model(kConfig, 3);
  const std::vector<std::uint8_t> bytes = model.to_safetensors();
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "attnlab-gpt-path-test.safetensors";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  const GPT loaded = GPT::from_safetensors(path);
  std::filesystem::remove(path);
  EXPECT_TRUE(std::equal(loaded.values().begin(), loaded.values().end(), model.values().begin()));
  EXPECT_EQ(loaded.config().num_heads, 2);
  expect_error([&] { GPT::from_safetensors(std::filesystem::path("/no/such/model.safetensors")); },
               "GPT::from_safetensors: cannot open '/no/such/model.safetensors'");
}

TEST(GPTCheckpoint, RoundTripsInF32AndRoundsInF16AndBF16) {
  const GPT model(kConfig, 3);
  const GPT loaded = GPT::from_safetensors(model.to_safetensors());
  EXPECT_EQ(loaded.config().num_heads, 2);
  EXPECT_EQ(loaded.config().num_layers, 2);
  EXPECT_EQ(loaded.config().context_length, 6);
  ASSERT_EQ(loaded.values().size(), model.values().size());
  EXPECT_TRUE(std::equal(loaded.values().begin(), loaded.values().end(), model.values().begin()));
  // F16 and BF16: each value is the float nearest-even-rounded to that format and widened back.
  const GPT half = GPT::from_safetensors(model.to_safetensors(DType::F16));
  const GPT brain = GPT::from_safetensors(model.to_safetensors(DType::BF16));
  for (std::size_t i = 0; i < model.values().size(); ++i) {
    EXPECT_EQ(half.values()[i], half_to_float(float_to_half(model.values()[i])));
    EXPECT_EQ(brain.values()[i], bfloat16_to_float(float_to_bfloat16(model.values()[i])));
    EXPECT_NEAR(half.values()[i], model.values()[i], 1e-3 * std::abs(model.values()[i]) + 1e-7);
  }
  // the same logits from the same weights
  const std::vector<int> ids = {1, 5, 12, 0};
  EXPECT_EQ(loaded.forward(ids).logits, model.forward(ids).logits);
}

TEST(GPTCheckpoint, AcceptsTheLMHeadModelsNames) {
  // GPT2LMHeadModel: "transformer." prefixes, the tied lm_head.weight, and the mask buffers.
  const GPT model(kConfig, 4);
  Tensors t = tensors_of(model);
  for (TensorToWrite& tensor : t.list) tensor.name = "transformer." + tensor.name;
  const std::vector<float> mask(36, 1.0f);
  t.list.push_back({"lm_head.weight", {13, 8}, model.values().data()});
  t.list.push_back({"transformer.h.0.attn.bias", {1, 1, 6, 6}, mask.data()});
  t.list.push_back({"h.1.attn.masked_bias", {}, mask.data()});
  t.metadata.clear();
  const GPT loaded = GPT::from_safetensors(t.file(), 2);  // the head count from the argument
  EXPECT_TRUE(std::equal(loaded.values().begin(), loaded.values().end(), model.values().begin()));
}

TEST(GPTCheckpoint, AHeadCountThatDiffersFromTheFilesLoadsOnlyWhenOverridden) {
  const GPT model(kConfig, 6);  // 2 heads: its file's metadata says n_head = 2
  const std::vector<std::uint8_t> file = model.to_safetensors();
  EXPECT_EQ(GPT::from_safetensors(file, 2).config().num_heads, 2);  // agreeing with the file is fine
  EXPECT_THROW(GPT::from_safetensors(file, 4), Error);
  const GPT four = GPT::from_safetensors(file, 4, /*override_n_head=*/true);
  EXPECT_EQ(four.config().num_heads, 4);
  EXPECT_TRUE(std::equal(four.values().begin(), four.values().end(), model.values().begin()));
}

TEST(GPTCheckpoint, BadFilesSayWhatIsWrong) {
  const GPT model(kConfig, 5);
  const std::string fn = "GPT::from_safetensors: ";
  auto expect_refused = [&](auto edit, const std::string& message, int num_heads = 0) {
    Tensors t = tensors_of(model);
    edit(t);
    expect_error([&] { GPT::from_safetensors(t.file(), num_heads); }, fn + message);
  };
  expect_refused([](Tensors& t) { t.metadata.clear(); },
                 "the number of heads is not in the file's metadata (n_head): pass it (num_heads)");
  expect_refused([](Tensors& t) { t.metadata["n_head"] = "two"; }, "the metadata's n_head = 'two' is not a positive integer");
  expect_refused([](Tensors& t) { t.metadata["n_head"] = "3"; },
                 "d_model = 8 (from wte.weight) is not divisible by the metadata's n_head = 3");
  // A head count passed by the caller is named as the argument, not as the file's metadata.
  expect_refused([](Tensors& t) { t.metadata.clear(); },
                 "d_model = 8 (from wte.weight) is not divisible by num_heads = 5 (as passed)", 5);
  // One that differs from the file's n_head (2) would load a model that computes nonsense.
  expect_refused([](Tensors&) {},
                 "num_heads = 4 (as passed) differs from the metadata n_head = 2 of the file: leave num_heads out to "
                 "take the count from the file, or override it (override_n_head)", 4);
  expect_refused([](Tensors& t) { std::erase_if(t.list, [](auto& x) { return x.name == "h.1.mlp.c_fc.bias"; }); },
                 "the file has no tensor 'h.1.mlp.c_fc.bias'");
  expect_refused([](Tensors& t) { std::erase_if(t.list, [](auto& x) { return x.name == "wte.weight"; }); },
                 "the file has no tensor 'wte.weight'");
  expect_refused([](Tensors& t) { t["h.0.attn.c_attn.weight"].shape = {24, 8}; },
                 "tensor 'h.0.attn.c_attn.weight' is [24, 8] but a GPT with 2 layers, d_model 8, vocab_size 13 and "
                 "context_length 6 needs [8, 24]");
  expect_refused([](Tensors& t) { t["wpe.weight"].shape = {8, 6}; },
                 "wte.weight is [13, 8] and wpe.weight is [8, 6]: they must be [vocab_size, d_model] and "
                 "[context_length, d_model]");
  const std::vector<float> extra(8, 0.0f);
  expect_refused([&](Tensors& t) { t.list.push_back({"h.0.attn.c_proj.scale", {8}, extra.data()}); },
                 "tensor 'h.0.attn.c_proj.scale' is not part of GPT-2's architecture");
  // a third block's tensor makes the model 3 layers deep, whose other tensors are then missing
  expect_refused([&](Tensors& t) { t.list.push_back({"h.2.ln_1.weight", {8}, extra.data()}); },
                 "the file has no tensor 'h.2.ln_1.bias'");
  expect_refused([&](Tensors& t) { t.list.push_back({"lm_head.weight", {13, 8}, model.values().data() + 1}); },
                 "lm_head.weight differs from wte.weight: GPT-2 ties them, and attnlab's GPT does too");
  std::vector<float> with_nan(model.values().begin(), model.values().end());
  with_nan[model.tensor("ln_f.bias").offset + 3] = NAN;
  expect_refused([&](Tensors& t) { t["ln_f.bias"].values = with_nan.data() + model.tensor("ln_f.bias").offset; },
                 "tensor 'ln_f.bias' has a NaN or infinite value");
}

TEST(GPTCheckpoint, ParameterCountOfGPT2Small) {
  // GPT-2 small: 124,439,808 parameters (wte 50257×768, wpe 1024×768, 12 blocks, ln_f).
  const GPTConfig gpt2{.vocab_size = 50257, .context_length = 1024, .d_model = 768, .num_heads = 12, .num_layers = 12};
  EXPECT_EQ(gpt2.parameter_count(), 124439808);
  EXPECT_EQ(GPT(kConfig, 0).parameter_count(), kConfig.parameter_count());
}

}  // namespace
}  // namespace attnlab
