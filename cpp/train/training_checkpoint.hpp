// A resumable training checkpoint for train_kjv: everything the next step depends on, so that a run
// stopped after step S and resumed from its checkpoint computes exactly what the uninterrupted run
// would have computed from step S + 1 on (tests/tools/check-training-resume.sh checks it).
//
// Saved as one .safetensors file (F32): the model's parameters ("model.<name>"), AdamW's moments
// ("adam.exp_avg.<i>", "adam.exp_avg_sq.<i>", one per parameter in optimizer order), the values of the
// best evaluation so far ("best.<name>", left out when that is the checkpoint's own step), and in "__metadata__" the step, the data RNG's state, the best
// held-out loss and its step, the training seconds so far and how many lines of the log belong to
// steps ≤ step (a resumed run cuts the log back to them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attnlab/gpt/gpt_training.hpp"
#include "attnlab/tensor/rng.hpp"

namespace attnlab::train {

struct CheckpointState {
  std::int64_t step = 0;
  Rng::State data_rng;
  double best_heldout = 0.0;
  std::int64_t best_step = 0;
  std::vector<float> best_values;  // the flat parameter buffer at best_step
  double training_seconds = 0.0;
  std::int64_t log_lines = 0;
};

// Writes model, trainer and state to path (through a temporary file renamed into place, so a run
// killed while writing leaves the previous checkpoint whole).
void save_checkpoint(const std::string& path, const GPT& model, const GPTTrainer& trainer, const CheckpointState& state);

// Loads path into model (whose config must match) and trainer; returns the rest. Throws
// std::runtime_error naming the file for a missing tensor or a shape that does not match.
CheckpointState load_checkpoint(const std::string& path, GPT& model, GPTTrainer& trainer);

}  // namespace attnlab::train
