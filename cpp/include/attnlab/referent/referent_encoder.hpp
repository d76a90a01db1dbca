// The "it" sentence, trained: a small bidirectional encoder that reads a sentence such as
//   "the animal didn't cross the street because it was too tired"
// and, at the position of "it" only, predicts which noun of the sentence "it" stands for.
//
//   token embedding + learned positions → num_layers encoder layers (pre-norm, NO causal mask: "it"
//   also sees the adjective after it) → h[it] → LayerNorm → Linear to the vocabulary → logits
//
// The loss is the cross-entropy of the referent noun's id: a fill-in ("what does it stand for?").
// Nothing supervises the attention. The answer is a word present in the sentence and the nouns vary
// (dozens of them, in either order), so the cheapest solution is to copy the right noun's identity
// into the "it" position through attention, chosen by the adjective: that attention emerges.
//
// The sentences come from four frames (two noun orders for each of two situations) filled with every
// combination of the word lists below; a fixed rule splits them into training and held-out sentences
// (referent_sentences()).
#pragma once

#include "attnlab/tensor/api.hpp"
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>
#include "attnlab/layers/embedding.hpp"
#include "attnlab/layers/encoder_layer.hpp"
#include "attnlab/layers/linear.hpp"
#include "attnlab/training/models.hpp"
#include "attnlab/layers/norm.hpp"
#include "attnlab/tensor/parameter.hpp"
#include "attnlab/tensor/rng.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

// ---- The sentences ----

// One frame: its words with slots "<1>", "<2>" (the two nouns, in reading order) and "<adj>"; which
// word lists fill the slots; and which adjectives make "it" the first or the second noun.
struct ReferentFrame {
  std::string name;                        // "cross", "cross-reversed", "fit", "fit-reversed"
  std::vector<std::string> words;          // e.g. the <1> didn't cross the <2> because it was too <adj>
  std::vector<std::string> first_nouns, second_nouns;
  std::vector<std::string> first_adjectives;   // "it" = the first noun  (tired: the animal)
  std::vector<std::string> second_adjectives;  // "it" = the second noun (wide: the street)
};

struct ReferentSentence {
  int frame = 0;                 // index into ReferentData::frames
  std::string first, second, adjective;
  std::vector<std::string> words;
  std::vector<int> tokens;       // ids in ReferentData::vocabulary
  int it_position = 0;           // where "it" is
  int first_position = 0, second_position = 0;  // where the two nouns are
  int answer_slot = 0;           // 0: "it" is the first noun, 1: the second
  int answer_position = 0;       // first_position or second_position
  int answer = 0;                // the referent noun's id (the training target)
  bool held_out = false;
};

struct ReferentData {
  std::vector<std::string> vocabulary;  // every word of every frame, in first-seen order
  std::vector<ReferentFrame> frames;
  std::vector<ReferentSentence> train, held_out;
  int max_len = 0;                      // the longest sentence
};

// The split: a sentence is held out when its (noun, noun, adjective) combination is, whichever frame
// and order it appears in (so the same three words never appear together in training):
//   • the lesson's own pair "animal" + "street" with every adjective, and
//   • every other combination whose FNV-1a hash of "<the noun of the animate/object kind>|<the other
//     noun>|<adjective>" is 0 mod 5 (about a fifth).
// Each held-out sentence's words all occur in training sentences, only never together.
bool referent_held_out(const std::string& kind_a_noun, const std::string& kind_b_noun, const std::string& adjective);
ReferentData referent_sentences();
// The sentence of frame `frame` with these words; Error if a word does not fit its slot.
ReferentSentence make_referent_sentence(const ReferentData& data, int frame, const std::string& first,
                                        const std::string& second, const std::string& adjective);

// ---- The model ----

struct ReferentEncoderConfig {
  int vocab_size = 0;
  int max_len = 0;
  int d_model = 32;
  int num_heads = 4;
  int num_layers = 2;
  int d_ff = 64;
  std::uint64_t seed = 0;
};

struct ReferentOutput {
  Matrix logits;                               // [1×vocab_size], read at the "it" position
  float loss = 0.0f;                           // cross-entropy against the target (0 without one)
  int prediction = 0;                          // argmax of logits
  std::vector<std::vector<Matrix>> attention;  // [layer][head] → [n×n]: every head's weights
};

class ReferentEncoder {
 public:
  explicit ReferentEncoder(const ReferentEncoderConfig& config);
  // tokens [n ≤ max_len], it_position in 0 … n−1; target ≥ 0 (a vocabulary id) also gives the loss.
  ReferentOutput forward(const std::vector<int>& tokens, int it_position, int target = -1);
  // The same, then adds ∂(loss · scale)/∂parameters to the gradients (scale = 1/batch for a mean).
  ReferentOutput accumulate_gradients(const std::vector<int>& tokens, int it_position, int target, float scale);
  // embedding.weight, positions.weight, layers.<i>.self_attn.q_proj.weight …, norm.*, head.*
  std::vector<ParameterRef> parameters();
  void zero_grad();
  std::int64_t parameter_count() const;
  const ReferentEncoderConfig& config() const { return config_; }

  // A .safetensors file (F32) of parameters() by name, the config in "__metadata__" (plus `metadata`).
  std::vector<std::uint8_t> to_safetensors(const std::map<std::string, std::string>& metadata = {});
  // The model a to_safetensors file describes: config from the metadata, every tensor by name and shape.
  static ReferentEncoder from_safetensors(std::span<const std::uint8_t> file);

 private:
  ReferentOutput run(const std::vector<int>& tokens, int it_position, int target, float scale, bool backward);
  ReferentEncoderConfig config_;
  TransformerStack stack_;  // models.hpp: embedding, positions, layers, norm, head
};

// Which noun a head's weights from "it" favour: the position of the largest weight in row it_position.
int top_key(const Matrix& weights, int it_position);

}  // namespace attnlab
ATTNLAB_API_END
