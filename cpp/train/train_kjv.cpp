// Trains attnlab's own GPT on the King James Bible, start to finish, with nothing but attnlab:
//
//   train_kjv --config training-config.json --listing kjv.txt --out DIR
//       corpus → train/held-out split → BPE vocabulary → GPT → AdamW steps, evaluating as it goes →
//       DIR/model.safetensors (F16, the lowest held-out loss seen), vocab.json, merges.txt and
//       training-log.jsonl (one JSON object per line: the setup, every step, every evaluation, the
//       summary with baselines and samples).
//   train_kjv --config … --listing … --check-log training-log.jsonl --steps N
//       reruns the first N steps and compares each loss with the log's (the reproducibility test).
//
// Options: --threads N (default every core; the results are the same bit for bit whatever N),
// --checkpoint FILE (saved at every evaluation: weights, AdamW state, data position, RNG),
// --resume (continue from FILE: the log is cut back to the checkpoint's step and continued, and the
// run computes exactly what the uninterrupted one would), --stop-after S (stop after step S's
// checkpoint, as an interruption would; the resume test uses it).
//
// scripts/train-model.sh installs the corpus and runs the first form; everything that decides the
// result (sizes, seeds, schedule) is in the config file.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "attnlab/text/bpe.hpp"
#include "attnlab/gpt/gpt_session.hpp"
#include "attnlab/gpt/gpt_training.hpp"
#include "attnlab/gpt/head_scores.hpp"
#include "attnlab/tensor/rng.hpp"
#include "attnlab/tensor/threads.hpp"
#include "kjv_corpus.hpp"
#include "ngram_baselines.hpp"
#include "training_checkpoint.hpp"

namespace {

using json = nlohmann::json;
using namespace attnlab;

struct Arguments {
  std::string config, listing, out, check_log, checkpoint;
  int steps = -1;       // -1: the config's
  int threads = 0;      // 0: every core
  bool resume = false;
  int stop_after = -1;  // -1: run to the end
};

Arguments parse_arguments(int argc, char** argv) {
  Arguments args;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--resume") {
      args.resume = true;
      continue;
    }
    if (i + 1 >= argc) throw std::runtime_error("missing a value after " + flag);
    const std::string value = argv[++i];
    if (flag == "--config") args.config = value;
    else if (flag == "--listing") args.listing = value;
    else if (flag == "--out") args.out = value;
    else if (flag == "--check-log") args.check_log = value;
    else if (flag == "--steps") args.steps = std::stoi(value);
    else if (flag == "--threads") args.threads = std::stoi(value);
    else if (flag == "--checkpoint") args.checkpoint = value;
    else if (flag == "--stop-after") args.stop_after = std::stoi(value);
    else throw std::runtime_error("unknown flag " + flag);
  }
  if (args.config.empty() || args.listing.empty() || (args.out.empty() == args.check_log.empty())) {
    throw std::runtime_error("usage: train_kjv --config FILE --listing FILE (--out DIR | --check-log FILE --steps N)"
                             " [--threads N] [--checkpoint FILE [--resume] [--stop-after STEP]]");
  }
  if ((args.resume || args.stop_after >= 0) && args.checkpoint.empty()) {
    throw std::runtime_error("--resume and --stop-after need --checkpoint FILE");
  }
  return args;
}


void write_file(const std::string& path, const void* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) throw std::runtime_error("cannot write " + path);
}

// Everything in the config file that decides the run.
struct RunConfig {
  int heldout_every = 20;
  int bpe_vocab_size = 4096;
  GPTConfig model;
  std::uint64_t init_seed = 1, data_seed = 2;
  int batch = 16, steps = 6000;
  // The steps the learning rate's cosine and the repeated-window share run over (default: steps). A run
  // with more steps than this keeps min_lr and the final share after it, and computes for its first
  // schedule_steps steps exactly what the run of schedule_steps computes: a finished run can be
  // extended from its last checkpoint (tests/tools/check-training-resume.sh).
  int schedule_steps = 6000;
  GPTTrainerConfig trainer;
  int eval_every = 250;
  // The share of training windows that are one passage read twice (see training_window):
  // repeat_fraction until repeat_decay_start (a share of the steps), then falling linearly to
  // repeat_fraction_final at the last step.
  double repeat_fraction = 0.0, repeat_fraction_final = 0.0, repeat_decay_start = 1.0;
  int repeat_min = 8, repeat_max = 64;
  // Of those, the share whose passage is random learned tokens instead of corpus text.
  double repeat_random_fraction = 0.0;
  std::vector<std::string> sample_prompts;
  int sample_tokens = 60;
  SamplingOptions sampling;
};

RunConfig read_config(const json& j) {
  RunConfig c;
  c.heldout_every = j.at("corpus").at("heldout_every_nth_chapter");
  c.bpe_vocab_size = j.at("tokenizer").at("vocab_size");
  const json& m = j.at("model");
  c.model = {.vocab_size = c.bpe_vocab_size, .context_length = m.at("context_length"), .d_model = m.at("d_model"),
             .num_heads = m.at("num_heads"), .num_layers = m.at("num_layers")};
  const json& t = j.at("training");
  c.init_seed = t.at("init_seed");
  c.data_seed = t.at("data_seed");
  c.batch = t.at("batch");
  c.steps = t.at("steps");
  c.schedule_steps = t.value("schedule_steps", c.steps);
  if (c.schedule_steps < 1 || c.schedule_steps > c.steps) {
    throw std::runtime_error("training.schedule_steps must be in 1 … steps (" + std::to_string(c.steps) + "), got " +
                             std::to_string(c.schedule_steps));
  }
  c.trainer.schedule = {.max_lr = t.at("max_lr"), .min_lr = t.at("min_lr"), .warmup_steps = t.at("warmup_steps"),
                        .total_steps = c.schedule_steps};
  c.trainer.weight_decay = t.at("weight_decay");
  c.trainer.beta1 = t.at("beta1");
  c.trainer.beta2 = t.at("beta2");
  c.trainer.clip_norm = t.at("clip_norm");
  c.trainer.dropout = t.value("dropout", 0.0f);  // GPT-2's dropout (GPTDropout); absent in the runs before it
  c.trainer.dropout_seed = t.value("dropout_seed", std::uint64_t{0});
  c.eval_every = t.at("eval_every");
  if (t.contains("repeat_fraction")) {
    c.repeat_fraction = t.at("repeat_fraction");
    c.repeat_min = t.at("repeat_min_tokens");
    c.repeat_max = t.at("repeat_max_tokens");
    c.repeat_random_fraction = t.value("repeat_random_fraction", 0.0);
    c.repeat_fraction_final = t.value("repeat_fraction_final", c.repeat_fraction);
    c.repeat_decay_start = t.value("repeat_decay_start", 1.0);
  }
  const json& s = j.at("samples");
  c.sample_prompts = s.at("prompts").get<std::vector<std::string>>();
  c.sample_tokens = s.at("tokens");
  c.sampling = {.temperature = s.at("temperature"), .top_k = s.at("top_k"), .top_p = s.at("top_p")};
  return c;
}

// One training window of T + 1 tokens from the training stream (ids = window[0 … T), targets =
// window[1 … T]). Usually T + 1 consecutive tokens from a random start. With probability
// repeat_fraction it is instead a passage of L tokens (L uniform in [repeat_min, repeat_max]) read
// again and again until the window is full: the second reading can be predicted by looking back at
// the first. Natural text rewards that too (Numbers 7 repeats one offering twelve times; names and
// refrains recur within a chapter) but rarely inside 128 tokens, and the heads that do it (induction
// heads) are what the lessons show; the held-out text is never repeated. With probability
// repeat_random_fraction the repeated passage is random learned tokens (ids 256 … V−2) rather than
// text: there nothing but an exact copy predicts the second reading, which sharpens the heads that
// copy (a passage of text can half be guessed from its words alone).
void training_window(const std::vector<int>& tokens, int T, int vocab_size, const RunConfig& config, double repeat_fraction,
                     Rng& rng, int* ids, int* targets) {
  std::vector<int> window(static_cast<std::size_t>(T) + 1);
  const bool repeat = repeat_fraction > 0 && rng.uniform_double() < repeat_fraction;
  if (repeat) {
    const int length = config.repeat_min + static_cast<int>(rng.next_u32() % static_cast<std::uint32_t>(config.repeat_max - config.repeat_min + 1));
    std::vector<int> passage(static_cast<std::size_t>(length));
    if (config.repeat_random_fraction > 0 && rng.uniform_double() < config.repeat_random_fraction) {
      const auto learned = static_cast<std::uint32_t>(vocab_size - 1 - 256);
      for (int& id : passage) id = 256 + static_cast<int>(rng.next_u32() % learned);
    } else {
      const std::size_t start = rng.next_u32() % (tokens.size() - static_cast<std::size_t>(length));
      std::copy_n(tokens.begin() + static_cast<std::ptrdiff_t>(start), length, passage.begin());
    }
    for (std::size_t i = 0; i < window.size(); ++i) window[i] = passage[i % passage.size()];
  } else {
    const std::size_t start = rng.next_u32() % (tokens.size() - static_cast<std::size_t>(T));
    std::copy_n(tokens.begin() + static_cast<std::ptrdiff_t>(start), T + 1, window.begin());
  }
  std::copy_n(window.begin(), T, ids);
  std::copy_n(window.begin() + 1, T, targets);
}

// The repeated-window share at `step` (0-based) of a schedule of `steps`. Copying is learned early (the
// induction heads form in the first third of a run); late in the run fewer repeated windows let the
// model spend its steps on text, so that it copies less eagerly when it samples. Past the schedule's
// last step the share stays at its final value.
double repeat_fraction_at(const RunConfig& config, int step, int steps) {
  const double progress = std::min(1.0, static_cast<double>(step) / static_cast<double>(std::max(1, steps - 1)));
  if (progress <= config.repeat_decay_start) return config.repeat_fraction;
  const double t = (progress - config.repeat_decay_start) / (1.0 - config.repeat_decay_start);
  return config.repeat_fraction + t * (config.repeat_fraction_final - config.repeat_fraction);
}

// Mean cross-entropy over the held-out stream cut into windows of T + 1 tokens (stride T, so each
// held-out token after the first is scored exactly once).
double heldout_loss(const GPT& model, const std::vector<int>& tokens, int batch) {
  const int T = model.config().context_length;
  double sum = 0.0;
  std::int64_t scored = 0;
  std::vector<int> ids, targets;
  const auto flush = [&] {
    if (ids.empty()) return;
    const int rows = static_cast<int>(ids.size()) / T;
    sum += static_cast<double>(model.loss(ids, targets, rows)) * static_cast<double>(ids.size());
    scored += static_cast<std::int64_t>(ids.size());
    ids.clear();
    targets.clear();
  };
  for (std::size_t start = 0; start + T + 1 <= tokens.size(); start += T) {
    ids.insert(ids.end(), tokens.begin() + static_cast<std::ptrdiff_t>(start), tokens.begin() + static_cast<std::ptrdiff_t>(start) + T);
    targets.insert(targets.end(), tokens.begin() + static_cast<std::ptrdiff_t>(start) + 1,
                   tokens.begin() + static_cast<std::ptrdiff_t>(start) + T + 1);
    if (static_cast<int>(ids.size()) == batch * T) flush();
  }
  flush();
  return sum / static_cast<double>(scored);
}

json matrix_json(const Matrix& m) {
  json rows = json::array();
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    json row = json::array();
    for (Eigen::Index c = 0; c < m.cols(); ++c) row.push_back(std::round(m(r, c) * 1000.0) / 1000.0);
    rows.push_back(row);
  }
  return rows;
}

// Every head's four scores: previous-token and first-token on the first held-out window, induction
// and duplicate-token on repeated random tokens drawn from the learned tokens (ids 256 … V−2: not
// the raw bytes or <|endoftext|>, which the text never shows the model on their own).
json head_scores_json(const GPT& model, const std::vector<int>& heldout) {
  const int T = model.config().context_length;
  const std::vector<int> text(heldout.begin(), heldout.begin() + T);
  const HeadScores scores = head_scores(model, text, {.samples = 8, .seed = 0, .token_low = 256,
                                                      .token_high = model.config().vocab_size - 1});
  return {{"previous_token", matrix_json(scores.previous_token)},
          {"first_token", matrix_json(scores.first_token)},
          {"induction", matrix_json(scores.induction)},
          {"duplicate_token", matrix_json(scores.duplicate_token)},
          {"max_previous_token", scores.previous_token.maxCoeff()},
          {"max_induction", scores.induction.maxCoeff()}};
}

std::vector<float> step_losses_from_log(const std::string& path) {
  std::vector<float> losses;
  std::istringstream lines(train::read_file(path));
  for (std::string line; std::getline(lines, line);) {
    const json record = json::parse(line);
    if (record.value("kind", "") == "step") losses.push_back(record.at("loss"));
  }
  return losses;
}

// The log, one JSON object per line. A resumed run keeps the lines its checkpoint counted (the
// setup, the steps and evaluations up to the checkpoint's step) and appends after them.
class TrainingLog {
 public:
  TrainingLog(const std::string& path, bool enabled, std::int64_t keep_lines) : enabled_(enabled) {
    if (!enabled_) return;
    std::vector<std::string> kept;
    if (keep_lines > 0) {
      std::istringstream old(train::read_file(path));
      for (std::string line; static_cast<std::int64_t>(kept.size()) < keep_lines && std::getline(old, line);) kept.push_back(line);
      if (static_cast<std::int64_t>(kept.size()) < keep_lines) throw std::runtime_error(path + " is shorter than the checkpoint's log");
    }
    out_.open(path, std::ios::trunc);
    if (!out_) throw std::runtime_error("cannot write " + path);
    for (const std::string& line : kept) out_ << line << '\n';
    lines_ = keep_lines;
  }
  void write(const json& record) {
    if (!enabled_) return;
    // A sample can end inside a multi-byte character (byte-level tokens): written as U+FFFD.
    out_ << record.dump(-1, ' ', false, json::error_handler_t::replace) << '\n';
    out_.flush();
    ++lines_;
  }
  std::int64_t lines() const { return lines_; }

 private:
  bool enabled_;
  std::ofstream out_;
  std::int64_t lines_ = 0;
};

int run(const Arguments& args) {
  using Clock = std::chrono::steady_clock;
  const json config_json = json::parse(train::read_file(args.config));
  const RunConfig config = read_config(config_json);
  const bool checking = !args.check_log.empty();
  const int steps = args.steps >= 0 ? args.steps : config.steps;
  if (args.threads > 0) set_num_threads(args.threads);
  // The output folder is made before an hour of training, not after it.
  if (!checking) std::filesystem::create_directories(args.out);

  // 1. The corpus, split by chapters.
  const std::vector<train::Chapter> chapters = train::parse_bible_listing(train::read_file(args.listing));
  const train::CorpusSplit split = train::split_chapters(chapters, config.heldout_every);

  // 2. The tokenizer, learned on the training text only (deterministic: a resumed run learns it again).
  const auto bpe_start = Clock::now();
  const BpeTokenizer tokenizer = BpeTokenizer::train(split.train, {.vocab_size = config.bpe_vocab_size});
  const double bpe_seconds = std::chrono::duration<double>(Clock::now() - bpe_start).count();
  if (tokenizer.vocab_size() != config.model.vocab_size) {
    throw std::runtime_error("the BPE vocabulary stopped at " + std::to_string(tokenizer.vocab_size()) + " tokens");
  }
  const std::vector<int> train_tokens = tokenizer.encode(split.train);
  const std::vector<int> heldout_tokens = tokenizer.encode(split.heldout);

  // 3. What a model with no attention gets: unigram and bigram counts.
  const train::NgramBaselines baselines = train::ngram_baselines(train_tokens, heldout_tokens, tokenizer.vocab_size());

  // 4. The model and its optimiser: fresh, or as the checkpoint left them.
  GPT model(config.model, config.init_seed);
  GPTTrainer trainer(model, config.trainer);
  train::CheckpointState state{.data_rng = Rng(config.data_seed).state(), .best_heldout = INFINITY};
  if (args.resume) {
    state = train::load_checkpoint(args.checkpoint, model, trainer);
    std::fprintf(stderr, "resuming after step %lld\n", static_cast<long long>(state.step));
  }
  TrainingLog log(args.out + "/training-log.jsonl", !checking, state.log_lines);
  if (!args.resume) {
    log.write({{"kind", "setup"},
               {"config", config_json},
               {"threads", num_threads()},
               {"corpus", {{"verses", std::count(split.train.begin(), split.train.end(), '\n') +
                                          std::count(split.heldout.begin(), split.heldout.end(), '\n') -
                                          split.train_chapters - split.heldout_chapters},
                           {"chapters", chapters.size()},
                           {"train_chapters", split.train_chapters},
                           {"heldout_chapters", split.heldout_chapters},
                           {"train_bytes", split.train.size()},
                           {"heldout_bytes", split.heldout.size()},
                           {"train_tokens", train_tokens.size()},
                           {"heldout_tokens", heldout_tokens.size()}}},
               {"bpe_seconds", bpe_seconds},
               {"parameters", model.parameter_count()},
               {"baselines", {{"unigram", baselines.unigram}, {"bigram", baselines.bigram},
                              {"bigram_alpha", baselines.bigram_alpha}}}});
  }

  // 5. Training: random windows of T + 1 training tokens (training_window), a batch at a time.
  const int T = config.model.context_length;
  Rng data_rng = Rng::from_state(state.data_rng);
  std::vector<int> ids(static_cast<std::size_t>(config.batch) * T), targets(ids.size());
  const std::vector<float> expected = checking ? step_losses_from_log(args.check_log) : std::vector<float>{};
  if (checking && static_cast<int>(expected.size()) < steps) throw std::runtime_error("the log has fewer steps than --steps");

  const auto evaluate = [&](std::int64_t step) {
    const auto start = Clock::now();
    const double loss = heldout_loss(model, heldout_tokens, config.batch);
    json record = {{"kind", "eval"}, {"step", step}, {"heldout_loss", loss}, {"heads", head_scores_json(model, heldout_tokens)}};
    record["seconds"] = std::chrono::duration<double>(Clock::now() - start).count();
    log.write(record);
    std::fprintf(stderr, "step %lld: held-out %.4f, induction max %.3f, previous-token max %.3f\n",
                 static_cast<long long>(step), loss, record["heads"]["max_induction"].get<double>(),
                 record["heads"]["max_previous_token"].get<double>());
    if (loss < state.best_heldout) {
      state.best_heldout = loss;
      state.best_step = step;
      state.best_values.assign(model.values().begin(), model.values().end());
    }
  };

  int mismatches = 0;
  auto segment_start = Clock::now();
  for (int step = static_cast<int>(state.step); step < steps; ++step) {
    // The config's schedule, as the learning rate's: a shorter --steps run (the first-steps check) draws
    // the same windows as the full run.
    const double repeat_fraction = repeat_fraction_at(config, step, config.schedule_steps);
    for (int b = 0; b < config.batch; ++b) {
      training_window(train_tokens, T, config.model.vocab_size, config, repeat_fraction, data_rng,
                      &ids[static_cast<std::size_t>(b) * T], &targets[static_cast<std::size_t>(b) * T]);
    }
    const auto start = Clock::now();
    const GPTStepResult result = trainer.step(ids, targets, config.batch);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    log.write({{"kind", "step"}, {"step", step + 1}, {"loss", result.loss}, {"lr", result.lr},
               {"grad_norm", result.grad_norm}, {"ms", std::round(ms * 10.0) / 10.0}});
    if (checking) {
      const double difference = std::abs(result.loss - expected[step]);
      const bool ok = difference <= 1e-4 * std::max(1.0f, std::abs(expected[step]));
      std::printf("step %d: loss %.6f, log %.6f%s\n", step + 1, result.loss, expected[step], ok ? "" : "  MISMATCH");
      mismatches += ok ? 0 : 1;
    } else if ((step + 1) % config.eval_every == 0 || step + 1 == steps) {
      evaluate(step + 1);
      if (!args.checkpoint.empty()) {
        const auto now = Clock::now();
        state.training_seconds += std::chrono::duration<double>(now - segment_start).count();
        segment_start = now;
        state.step = step + 1;
        state.data_rng = data_rng.state();
        state.log_lines = log.lines();
        train::save_checkpoint(args.checkpoint, model, trainer, state);
        if (step + 1 == args.stop_after) {
          std::fprintf(stderr, "stopped after step %d; continue with --resume\n", step + 1);
          return 0;
        }
      }
    }
  }
  if (checking) return mismatches == 0 ? 0 : 1;
  state.training_seconds += std::chrono::duration<double>(Clock::now() - segment_start).count();

  // 6. The shipped model: the evaluation with the lowest held-out loss, in F16.
  for (const GPTTensorSlot& slot : model.tensors()) {
    model.load_tensor(slot.name, std::span<const float>(state.best_values).subspan(slot.offset, slot.size));
  }
  const std::vector<std::uint8_t> file = model.to_safetensors(DType::F16);
  write_file(args.out + "/model.safetensors", file.data(), file.size());
  const std::string vocab = tokenizer.vocab_json(), merges = tokenizer.merges_text();
  write_file(args.out + "/vocab.json", vocab.data(), vocab.size());
  write_file(args.out + "/merges.txt", merges.data(), merges.size());
  const GPT shipped = GPT::from_safetensors(file);

  json samples = json::array();
  for (std::size_t i = 0; i < config.sample_prompts.size(); ++i) {
    const std::vector<int> prompt = tokenizer.encode(config.sample_prompts[i]);
    const Generation generation = generate(shipped, prompt, {.max_tokens = config.sample_tokens,
                                                             .sampling = config.sampling, .seed = i});
    samples.push_back({{"prompt", config.sample_prompts[i]}, {"seed", i},
                       {"text", config.sample_prompts[i] + tokenizer.decode(generation.tokens)}});
  }
  log.write({{"kind", "summary"},
             {"best_step", state.best_step},
             {"heldout_loss_f32", state.best_heldout},
             {"heldout_loss_f16", heldout_loss(shipped, heldout_tokens, config.batch)},
             {"baselines", {{"unigram", baselines.unigram}, {"bigram", baselines.bigram}}},
             {"heads", head_scores_json(shipped, heldout_tokens)},
             {"training_seconds", state.training_seconds},
             {"tokens_per_second", static_cast<double>(steps) * config.batch * T / state.training_seconds},
             {"file_bytes", file.size()},
             {"samples", samples}});
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse_arguments(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "train_kjv: %s\n", e.what());
    return 2;
  }
}
