// The training module's Embind declarations: TaskModelHandle, as web/lib/task-model.js calls it.
// Its own module (attnlab-train-*.wasm), loaded by lab.loadTraining(), so that pages that never train
// do not download the models, backward passes, optimizer and tasks.
#include <emscripten/bind.h>

#include "training.hpp"

using namespace emscripten;
using namespace attnlab::wasm;

EMSCRIPTEN_BINDINGS(attnlab_training) {
  class_<TaskModelHandle>("TaskModelHandle")
      .class_function("create", &TaskModelHandle::create, allow_raw_pointers())
      .function("info", &TaskModelHandle::info)
      .function("examples", &TaskModelHandle::examples)
      .function("split", &TaskModelHandle::split)
      .function("trainStep", &TaskModelHandle::train_step)
      .function("evaluate", &TaskModelHandle::evaluate)
      .function("inspect", &TaskModelHandle::inspect)
      .function("inductionScores", &TaskModelHandle::induction_scores)
      .function("snapshot", &TaskModelHandle::snapshot)
      .function("restore", &TaskModelHandle::restore)
      .function("steps", &TaskModelHandle::steps);
}
