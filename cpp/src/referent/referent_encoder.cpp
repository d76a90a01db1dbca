#include "attnlab/referent/referent_encoder.hpp"

#include <algorithm>
#include <charconv>

#include "attnlab/training/loss.hpp"
#include "attnlab/io/safetensors.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

namespace {

// The word lists. Two situations, each in both noun orders, so neither position nor frame alone
// says which noun "it" is: only the adjective, read together with the kinds of the two nouns, does.
const std::vector<std::string> kAnimals{"animal", "dog", "cat", "horse", "cow", "fox", "goat", "sheep", "rabbit", "deer",
                                        "pig", "duck", "mouse", "wolf", "bear", "lamb", "donkey", "camel", "tiger", "lion"};
const std::vector<std::string> kPlaces{"street", "road", "river", "bridge", "field", "hill", "valley", "path",
                                       "stream", "lane", "canal", "track", "highway", "ditch", "pond", "square"};
const std::vector<std::string> kAnimalAdjectives{"tired", "scared", "sleepy", "lazy", "weak", "slow"};
const std::vector<std::string> kPlaceAdjectives{"wide", "busy", "long", "icy", "steep", "muddy"};
const std::vector<std::string> kObjects{"trophy", "ball", "book", "lamp", "chair", "guitar", "bottle", "clock",
                                        "vase", "pillow", "kettle", "helmet", "jacket", "globe", "drum", "statue"};
const std::vector<std::string> kContainers{"suitcase", "bag", "box", "drawer", "basket", "cupboard", "backpack",
                                           "crate", "closet", "bucket", "trunk", "locker", "carton", "sack"};
const std::vector<std::string> kObjectAdjectives{"big", "large", "tall", "heavy", "bulky"};
const std::vector<std::string> kContainerAdjectives{"small", "narrow", "tiny", "full", "shallow"};

std::vector<ReferentFrame> make_frames() {
  return {
      {"cross", {"the", "<1>", "didn't", "cross", "the", "<2>", "because", "it", "was", "too", "<adj>"},
       kAnimals, kPlaces, kAnimalAdjectives, kPlaceAdjectives},
      {"cross-reversed", {"the", "<1>", "was", "hard", "for", "the", "<2>", "to", "cross", "because", "it", "was", "too", "<adj>"},
       kPlaces, kAnimals, kPlaceAdjectives, kAnimalAdjectives},
      {"fit", {"the", "<1>", "doesn't", "fit", "in", "the", "<2>", "because", "it", "is", "too", "<adj>"},
       kObjects, kContainers, kObjectAdjectives, kContainerAdjectives},
      {"fit-reversed", {"the", "<1>", "can't", "hold", "the", "<2>", "because", "it", "is", "too", "<adj>"},
       kContainers, kObjects, kContainerAdjectives, kObjectAdjectives},
  };
}

// Frames 1 and 3 name the place / container first: the animal / object noun is then the second.
bool reversed(const ReferentFrame& frame) { return frame.name.ends_with("-reversed"); }

void add_unique_except_specials(std::vector<std::string>& vocabulary, const std::vector<std::string>& words) {
  for (const std::string& w : words)
    if (w.front() != '<' && std::find(vocabulary.begin(), vocabulary.end(), w) == vocabulary.end())
      vocabulary.push_back(w);
}

int index_of(const std::vector<std::string>& list, const std::string& word) {
  const auto at = std::find(list.begin(), list.end(), word);
  return at == list.end() ? -1 : static_cast<int>(at - list.begin());
}

}  // namespace

bool referent_held_out(const std::string& kind_a_noun, const std::string& kind_b_noun, const std::string& adjective) {
  if (kind_a_noun == "animal" && kind_b_noun == "street") return true;  // the lesson's own sentences
  std::uint64_t hash = 14695981039346656037ULL;  // FNV-1a
  for (const std::string* part : {&kind_a_noun, &kind_b_noun, &adjective}) {
    for (unsigned char c : *part) hash = (hash ^ c) * 1099511628211ULL;
    hash = (hash ^ static_cast<unsigned char>('|')) * 1099511628211ULL;
  }
  return hash % 5 == 0;
}

ReferentSentence make_referent_sentence(const ReferentData& data, int frame_index, const std::string& first,
                                        const std::string& second, const std::string& adjective) {
  constexpr const char* fn = "make_referent_sentence";
  if (frame_index < 0 || frame_index >= static_cast<int>(data.frames.size()))
    detail::fail(fn, "frame ", frame_index, " is not one of 0 … ", data.frames.size() - 1);
  const ReferentFrame& frame = data.frames[static_cast<std::size_t>(frame_index)];
  if (index_of(frame.first_nouns, first) < 0) detail::fail(fn, "'", first, "' is not a first noun of frame ", frame.name);
  if (index_of(frame.second_nouns, second) < 0) detail::fail(fn, "'", second, "' is not a second noun of frame ", frame.name);
  const bool about_first = index_of(frame.first_adjectives, adjective) >= 0;
  if (!about_first && index_of(frame.second_adjectives, adjective) < 0)
    detail::fail(fn, "'", adjective, "' is not an adjective of frame ", frame.name);
  ReferentSentence s;
  s.frame = frame_index;
  s.first = first;
  s.second = second;
  s.adjective = adjective;
  for (std::size_t i = 0; i < frame.words.size(); ++i) {
    const std::string& w = frame.words[i];
    const int at = static_cast<int>(i);
    if (w == "<1>") {
      s.words.push_back(first);
      s.first_position = at;
    } else if (w == "<2>") {
      s.words.push_back(second);
      s.second_position = at;
    } else if (w == "<adj>") {
      s.words.push_back(adjective);
    } else {
      if (w == "it") s.it_position = at;
      s.words.push_back(w);
    }
  }
  for (const std::string& w : s.words) s.tokens.push_back(index_of(data.vocabulary, w));
  s.answer_slot = about_first ? 0 : 1;
  s.answer_position = about_first ? s.first_position : s.second_position;
  s.answer = s.tokens[static_cast<std::size_t>(s.answer_position)];
  s.held_out = reversed(frame) ? referent_held_out(second, first, adjective) : referent_held_out(first, second, adjective);
  return s;
}

ReferentData referent_sentences() {
  ReferentData data;
  data.frames = make_frames();
  for (const ReferentFrame& f : data.frames) add_unique_except_specials(data.vocabulary, f.words);
  for (const ReferentFrame& f : data.frames)
    for (const auto* list : {&f.first_nouns, &f.second_nouns, &f.first_adjectives, &f.second_adjectives})
      add_unique_except_specials(data.vocabulary, *list);
  for (int fi = 0; fi < static_cast<int>(data.frames.size()); ++fi) {
    const ReferentFrame& f = data.frames[static_cast<std::size_t>(fi)];
    data.max_len = std::max(data.max_len, static_cast<int>(f.words.size()));
    for (const std::string& a : f.first_nouns)
      for (const std::string& b : f.second_nouns)
        for (const auto* adjectives : {&f.first_adjectives, &f.second_adjectives})
          for (const std::string& adj : *adjectives) {
            ReferentSentence s = make_referent_sentence(data, fi, a, b, adj);
            (s.held_out ? data.held_out : data.train).push_back(std::move(s));
          }
  }
  return data;
}

int top_key(const Matrix& weights, int it_position) {
  Eigen::Index best = 0;
  weights.row(it_position).maxCoeff(&best);
  return static_cast<int>(best);
}

// ---- ReferentEncoder ----

ReferentEncoder::ReferentEncoder(const ReferentEncoderConfig& c)
    : config_(c), stack_("ReferentEncoder", c.vocab_size, c.max_len, c.d_model, c.num_heads, c.num_layers, c.d_ff, c.seed) {}

ReferentOutput ReferentEncoder::forward(const std::vector<int>& tokens, int it_position, int target) {
  return run(tokens, it_position, target, 0.0f, false);
}

ReferentOutput ReferentEncoder::accumulate_gradients(const std::vector<int>& tokens, int it_position, int target,
                                                     float scale) {
  return run(tokens, it_position, target, scale, true);
}

ReferentOutput ReferentEncoder::run(const std::vector<int>& tokens, int it_position, int target, float scale,
                                    bool backward) {
  // tokens [n] → logits [1×vocab] at the "it" position
  constexpr const char* fn = "ReferentEncoder";
  if (tokens.empty()) detail::fail(fn, "tokens is empty");
  if (static_cast<int>(tokens.size()) > config_.max_len)
    detail::fail(fn, "tokens has ", tokens.size(), " ids but the model takes at most max_len = ", config_.max_len);
  for (std::size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i] < 0 || tokens[i] >= config_.vocab_size)
      detail::fail(fn, "tokens[", i, "] = ", tokens[i], " is outside the vocabulary 0 … ", config_.vocab_size - 1);
  const int n = static_cast<int>(tokens.size());
  if (it_position < 0 || it_position >= n) detail::fail(fn, "it_position ", it_position, " is not in 0 … ", n - 1);
  if (target >= config_.vocab_size || (backward && target < 0))
    detail::fail(fn, "target ", target, " is not a vocabulary id 0 … ", config_.vocab_size - 1);
  ReferentOutput out;
  // h = embedding(tokens) + positions(n); h = layer(h) for each layer, every token seeing every token
  std::vector<TransformerEncoderLayerCache> caches(stack_.layers.size());
  Matrix h = stack_.embedding.forward(tokens) + stack_.positions.forward(n);
  for (std::size_t i = 0; i < stack_.layers.size(); ++i) {
    h = stack_.layers[i].forward(h, {}, {}, &caches[i]);
    std::vector<Matrix> heads;
    for (const AttentionResult& head : caches[i].attention.heads) heads.push_back(head.weights);
    out.attention.push_back(std::move(heads));
  }
  // logits = head(norm(h[it]))
  const Matrix h_it = h.row(it_position);
  const Matrix normed = stack_.norm.forward(h_it);
  out.logits = stack_.head.forward(normed);
  Eigen::Index best = 0;
  out.logits.row(0).maxCoeff(&best);
  out.prediction = static_cast<int>(best);
  if (target < 0) return out;
  const CrossEntropyResult ce = cross_entropy(out.logits, {target});
  out.loss = ce.loss;
  if (!backward) return out;

  // Undo "h_it = h.row(it)": the gradient reaches only that row of the last layer's output.
  Matrix d_h = Matrix::Zero(n, config_.d_model);
  d_h.row(it_position) = stack_.norm.backward(h_it, stack_.head.backward(normed, ce.d_logits * scale));
  for (std::size_t i = stack_.layers.size(); i-- > 0;) d_h = stack_.layers[i].backward(caches[i], d_h);
  stack_.embedding.backward(tokens, d_h);
  stack_.positions.backward(d_h);
  return out;
}

std::vector<ParameterRef> ReferentEncoder::parameters() { return stack_.parameters(); }

void ReferentEncoder::zero_grad() { stack_.zero_grad(); }

std::int64_t ReferentEncoder::parameter_count() const { return stack_.parameter_count(); }

namespace {

constexpr const char* kConfigKeys[] = {"vocab_size", "max_len", "d_model", "num_heads", "num_layers", "d_ff"};

int* config_field(ReferentEncoderConfig& c, std::string_view key) {
  if (key == "vocab_size") return &c.vocab_size;
  if (key == "max_len") return &c.max_len;
  if (key == "d_model") return &c.d_model;
  if (key == "num_heads") return &c.num_heads;
  if (key == "num_layers") return &c.num_layers;
  return &c.d_ff;
}

}  // namespace

std::vector<std::uint8_t> ReferentEncoder::to_safetensors(const std::map<std::string, std::string>& metadata) {
  std::map<std::string, std::string> meta = metadata;
  meta["model"] = "attnlab.ReferentEncoder";
  for (const char* key : kConfigKeys) meta[key] = std::to_string(*config_field(config_, key));
  const std::vector<ParameterRef> refs = parameters();
  std::vector<TensorToWrite> tensors;
  for (const ParameterRef& ref : refs)
    tensors.push_back({ref.name, std::vector<std::int64_t>(ref.shape.begin(), ref.shape.end()), ref.value});
  return write_safetensors(tensors, DType::F32, meta);
}

ReferentEncoder ReferentEncoder::from_safetensors(std::span<const std::uint8_t> file) {
  constexpr const char* fn = "ReferentEncoder::from_safetensors";
  const SafetensorsHeader header = parse_safetensors(file);
  ReferentEncoderConfig config;
  for (const char* key : kConfigKeys) {
    const auto at = header.metadata.find(key);
    if (at == header.metadata.end()) detail::fail(fn, "the file's metadata has no '", key, "'");
    int value = 0;
    const auto [end, error] = std::from_chars(at->second.data(), at->second.data() + at->second.size(), value);
    if (error != std::errc() || end != at->second.data() + at->second.size() || value < 1 || value > 100000)
      detail::fail(fn, "metadata '", key, "' = '", at->second, "' is not a size 1 … 100000");
    *config_field(config, key) = value;
  }
  if (config.d_model % config.num_heads != 0)
    detail::fail(fn, "num_heads ", config.num_heads, " does not divide d_model ", config.d_model);
  ReferentEncoder model(config);
  const std::vector<ParameterRef> refs = model.parameters();
  if (header.tensors.size() != refs.size())
    detail::fail(fn, "the file has ", header.tensors.size(), " tensors, the model ", refs.size());
  for (const ParameterRef& ref : refs) {
    const SafetensorInfo* info = header.find(ref.name);
    if (info == nullptr) detail::fail(fn, "the file has no tensor '", ref.name, "'");
    if (info->shape.size() != ref.shape.size() ||
        !std::equal(ref.shape.begin(), ref.shape.end(), info->shape.begin(),
                    [](Eigen::Index a, std::int64_t b) { return static_cast<std::int64_t>(a) == b; }))
      detail::fail(fn, "tensor '", ref.name, "' has the wrong shape for this config");
    read_tensor(file, header, *info, ref.value);
    if (!detail::all_finite(ref.value, ref.size)) detail::fail(fn, "tensor '", ref.name, "' holds NaN or Inf");
  }
  return model;
}

}  // namespace attnlab
