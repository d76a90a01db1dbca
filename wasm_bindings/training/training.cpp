#include "training.hpp"

#include <string>

#include "attnlab/tensor/error.hpp"
#include "attnlab/training/induction_scores.hpp"
#include "shared/convert.hpp"

namespace attnlab::wasm {

namespace {

using emscripten::vecFromJSArray;

TaskKind task_kind(const std::string& name) {
  if (name == "copy") return TaskKind::copy;
  if (name == "reverse") return TaskKind::reverse;
  if (name == "sort") return TaskKind::sort;
  if (name == "coreference") return TaskKind::coreference;
  if (name == "sentiment") return TaskKind::sentiment;
  if (name == "repeat") return TaskKind::repeat;
  throw Error("TaskModel: task must be 'copy', 'reverse', 'sort', 'coreference', 'sentiment' or 'repeat', got '" + name +
              "'");
}

// The JS layer has checked that tokens and targets are arrays of integers.
TaskExample example_from_js(const val& e) {
  return {vecFromJSArray<int>(e["tokens"]), vecFromJSArray<int>(e["targets"])};
}

std::vector<TaskExample> examples_from_js(const val& list) {
  std::vector<TaskExample> out;
  const auto n = list["length"].as<unsigned>();
  out.reserve(n);
  for (unsigned i = 0; i < n; ++i) out.push_back(example_from_js(list[i]));
  return out;
}

val ints_to_js(const std::vector<int>& ids) {
  val out = val::array();
  for (int id : ids) out.call<void>("push", id);
  return out;
}

val examples_to_js(const std::vector<TaskExample>& examples) {
  val out = val::array();
  for (const TaskExample& e : examples) {
    val js = val::object();
    js.set("tokens", ints_to_js(e.tokens));
    js.set("targets", ints_to_js(e.targets));
    out.call<void>("push", js);
  }
  return out;
}

val floats_to_js(const std::vector<float>& values) {
  return val::global("Float32Array").new_(val(emscripten::typed_memory_view(values.size(), values.data())));
}

val float_lists_to_js(const std::vector<std::vector<float>>& lists) {
  val out = val::array();
  for (const std::vector<float>& l : lists) out.call<void>("push", floats_to_js(l));
  return out;
}

std::vector<std::vector<float>> float_lists_from_js(const val& lists) {
  std::vector<std::vector<float>> out;
  const auto n = lists["length"].as<unsigned>();
  for (unsigned i = 0; i < n; ++i) out.push_back(vecFromJSArray<float>(lists[i]));
  return out;
}

}  // namespace

TaskModelHandle* TaskModelHandle::create(const val& config) {
  return catching<TaskModelHandle*>([&] {
    const auto get = [&](const char* name, double fallback) {
      const val v = config[name];
      return v.isUndefined() ? fallback : v.as<double>();
    };
    const Task task(task_kind(config["task"].as<std::string>()), static_cast<int>(get("length", 0)));
    return new TaskModelHandle(task, {.d_model = static_cast<int>(get("dModel", 32)),
                                      .num_heads = static_cast<int>(get("numHeads", 2)),
                                      .num_layers = static_cast<int>(get("layers", 1)),
                                      .d_ff = static_cast<int>(get("dFF", 64)),
                                      .positions = config["positions"].isUndefined() || config["positions"].as<bool>(),
                                      .lr = get("lr", 1e-3),
                                      .seed = seed_from_js(get("seed", 0))});
  }, nullptr);
}

val TaskModelHandle::info() const {
  return guarded([&] {
    const Task& t = trainer_.task();
    val out = val::object();
    out.set("task", t.name());
    out.set("seqLen", t.seq_len());
    out.set("vocabulary", strings_to_js(t.vocabulary()));
    out.set("classNames", strings_to_js(t.class_names()));
    out.set("sequence", t.is_sequence());
    out.set("parameterCount", static_cast<double>(trainer_.parameter_count()));
    return out;
  });
}

val TaskModelHandle::examples(int count, double seed) const {
  return guarded([&] { return examples_to_js(trainer_.task().examples(count, seed_from_js(seed))); });
}

val TaskModelHandle::split(int train_count, int test_count, double seed) const {
  return guarded([&] {
    const Task::Split s = trainer_.task().split(train_count, test_count, seed_from_js(seed));
    val out = val::object();
    out.set("train", examples_to_js(s.train));
    out.set("test", examples_to_js(s.test));
    return out;
  });
}

val TaskModelHandle::train_step(const val& batch) {
  return guarded([&] { return val(trainer_.train_step(examples_from_js(batch))); });
}

val TaskModelHandle::evaluate(const val& examples) {
  return guarded([&] {
    const Evaluation e = trainer_.evaluate(examples_from_js(examples));
    val out = val::object();
    out.set("loss", e.loss);
    out.set("accuracy", e.accuracy);
    out.set("sequenceAccuracy", e.sequence_accuracy);
    return out;
  });
}

val TaskModelHandle::inspect(const val& example) {
  return guarded([&] {
    const ModelOutput m = trainer_.inspect(example_from_js(example));
    val out = val::object();
    out.set("logits", matrix_to_js(m.logits));
    out.set("loss", m.loss);
    val layers = val::array();
    for (const std::vector<Matrix>& heads : m.attention) {
      val js = val::array();
      for (const Matrix& h : heads) js.call<void>("push", matrix_to_js(h));
      layers.call<void>("push", js);
    }
    out.set("attention", layers);
    return out;
  });
}

val TaskModelHandle::induction_scores(const val& examples) {
  return guarded([&] {
    const InductionScores s = attnlab::induction_scores(trainer_, examples_from_js(examples));
    val out = val::object();
    out.set("previousToken", floats_to_js(s.previous_token));
    out.set("induction", floats_to_js(s.induction));
    return out;
  });
}

val TaskModelHandle::snapshot() const {
  return guarded([&] {
    const TrainerSnapshot s = trainer_.snapshot();
    val out = val::object();
    out.set("parameters", float_lists_to_js(s.parameters));
    out.set("adamStep", static_cast<double>(s.adam.step));
    out.set("expAvg", float_lists_to_js(s.adam.exp_avg));
    out.set("expAvgSq", float_lists_to_js(s.adam.exp_avg_sq));
    out.set("steps", s.steps);
    return out;
  });
}

val TaskModelHandle::restore(const val& s) {
  return guarded([&] {
    TrainerSnapshot snapshot{float_lists_from_js(s["parameters"]),
                             {static_cast<std::int64_t>(s["adamStep"].as<double>()), float_lists_from_js(s["expAvg"]),
                              float_lists_from_js(s["expAvgSq"]), {}},
                             s["steps"].as<int>()};
    trainer_.restore(snapshot);
    return val(true);
  });
}

}  // namespace attnlab::wasm
