// The one place the core runs work on several threads (threads.hpp says how many).
#pragma once

#include <cstddef>
#include <functional>

namespace attnlab::detail {

// Runs body(task) for every task in 0 … tasks − 1 and returns when all have finished. The calling
// thread takes tasks too, and the pool's threads take the rest in order. Inside a task (or with one
// thread, or one task) the tasks simply run in order on the calling thread: nested loops do not
// multiply threads. The first exception a task throws is rethrown here once every task has ended.
void parallel_for(int tasks, const std::function<void(int task)>& body);

// The same, for a loop whose whole work is `multiply_adds`: on one thread when that is too little to
// share (see task_count).
void parallel_for(int tasks, double multiply_adds, const std::function<void(int task)>& body);

// How many tasks `multiply_adds` of work should be split into, at most `max_tasks`: 1 on one thread or
// below the size at which waking another thread costs more than it saves, otherwise a few per thread.
int task_count(double multiply_adds, std::ptrdiff_t max_tasks);

// Rows [begin, end) of task `task` when `rows` rows are split into `tasks` runs whose sizes are
// multiples of `multiple` (the GEMM's register tile) except the last.
struct RowRange {
  std::ptrdiff_t begin, end;
};
RowRange task_rows(std::ptrdiff_t rows, int tasks, int task, std::ptrdiff_t multiple);

}  // namespace attnlab::detail
