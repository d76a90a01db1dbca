#include "parallel.hpp"

#include <algorithm>
#include <cstdint>
#include <exception>

#include "attnlab/error.hpp"
#include "attnlab/threads.hpp"
#include "checks.hpp"

#if !defined(__EMSCRIPTEN__) || defined(__EMSCRIPTEN_PTHREADS__)
#define ATTNLAB_HAS_THREADS 1
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>
#endif

namespace attnlab {

namespace {
// Work below this many multiply-adds stays on one thread: waking a sleeping thread and waiting for
// it costs some 10–50 µs natively and more in a browser, about what one core does in 2^20 of them.
constexpr double kMinParallelWork = 1 << 20;

#if ATTNLAB_HAS_THREADS

// Beyond this the per-task overheads and memory bandwidth win (and the wasm build starts one worker
// per thread when the module loads: web/lib/ asks for the same number).
constexpr int kThreadCap = 8;

int hardware_threads() {
  const unsigned cores = std::thread::hardware_concurrency();
  return std::clamp(static_cast<int>(cores), 1, kThreadCap);
}

// threads − 1 workers that sleep until a loop is posted, then take its tasks alongside the caller.
class Pool {
 public:
  ~Pool() { stop(); }

  // Runs body(0 … tasks − 1) on the caller and `workers` pool threads (started or joined first). One
  // loop at a time: a second caller waits, so resizing never meets a loop under way.
  void run(int workers, int tasks, const std::function<void(int)>& body) {
    std::lock_guard one_loop_at_a_time(run_mutex_);
    resize(workers);
    {
      std::lock_guard lock(mutex_);
      body_ = &body;
      tasks_ = tasks;
      next_ = 0;
      error_ = nullptr;
      busy_workers_ = static_cast<int>(threads_.size());
      ++generation_;
    }
    wake_.notify_all();
    take_tasks();
    std::unique_lock lock(mutex_);
    finished_.wait(lock, [this] { return busy_workers_ == 0; });
    body_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

  // Joins every thread (at exit).
  void stop() {
    std::lock_guard one_loop_at_a_time(run_mutex_);
    resize(0);
  }

 private:
  // Keeps `workers` threads, joining the extra ones or starting new ones; only between loops.
  void resize(int workers) {
    if (workers < static_cast<int>(threads_.size())) {
      {
        std::lock_guard lock(mutex_);
        stop_above_ = workers;
        ++generation_;
      }
      wake_.notify_all();
      while (static_cast<int>(threads_.size()) > workers) {
        threads_.back().join();
        threads_.pop_back();
      }
      std::lock_guard lock(mutex_);
      stop_above_ = kThreadCap;
    }
    while (static_cast<int>(threads_.size()) < workers) {
      const int index = static_cast<int>(threads_.size());
      threads_.emplace_back([this, index] { work(index); });
    }
  }

  void work(int index) {
    std::uint64_t seen = 0;
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return generation_ != seen; });
      seen = generation_;
      if (index >= stop_above_) return;
      if (!body_) continue;
      lock.unlock();
      take_tasks();
      lock.lock();
      if (--busy_workers_ == 0) finished_.notify_one();
    }
  }

  // Runs tasks until none is left; the first exception is kept and the remaining tasks skipped.
  void take_tasks() {
    inside_task() = true;
    for (;;) {
      int task;
      {
        std::lock_guard lock(mutex_);
        if (next_ >= tasks_ || error_) break;
        task = next_++;
      }
      try {
        (*body_)(task);
      } catch (...) {
        std::lock_guard lock(mutex_);
        if (!error_) error_ = std::current_exception();
      }
    }
    inside_task() = false;
  }

 public:
  static bool& inside_task() {
    thread_local bool inside = false;
    return inside;
  }

 private:
  std::vector<std::thread> threads_;
  std::mutex run_mutex_, mutex_;
  std::condition_variable wake_, finished_;
  std::uint64_t generation_ = 0;
  int stop_above_ = kThreadCap;
  const std::function<void(int)>* body_ = nullptr;
  int tasks_ = 0, next_ = 0, busy_workers_ = 0;
  std::exception_ptr error_;
};

int& thread_setting() {
  static int threads = hardware_threads();
  return threads;
}

Pool& pool() {
  static Pool instance;
  return instance;
}

#endif  // ATTNLAB_HAS_THREADS
}  // namespace

#if ATTNLAB_HAS_THREADS

int max_threads() { return hardware_threads(); }
int num_threads() { return thread_setting(); }
void set_num_threads(int threads) {
  if (threads < 1 || threads > max_threads())
    detail::fail("set_num_threads", "threads must be 1 … ", max_threads(), " (this machine's cores, at most ",
                 kThreadCap, "), got ", threads);
  thread_setting() = threads;
}

namespace detail {
void parallel_for(int tasks, const std::function<void(int)>& body) {
  if (tasks <= 1 || thread_setting() == 1 || Pool::inside_task()) {
    for (int task = 0; task < tasks; ++task) body(task);
    return;
  }
  pool().run(thread_setting() - 1, tasks, body);
}
}  // namespace detail

#else  // a single-threaded wasm build

int max_threads() { return 1; }
int num_threads() { return 1; }
void set_num_threads(int threads) {
  if (threads != 1)
    detail::fail("set_num_threads", "this build is single-threaded (threads must be 1), got ", threads);
}

namespace detail {
void parallel_for(int tasks, const std::function<void(int)>& body) {
  for (int task = 0; task < tasks; ++task) body(task);
}
}  // namespace detail

#endif

namespace detail {

int task_count(double multiply_adds, std::ptrdiff_t max_tasks) {
  if (multiply_adds < kMinParallelWork) return 1;
  return static_cast<int>(std::clamp<std::ptrdiff_t>(max_tasks, 1, num_threads()));
}

void parallel_for(int tasks, double multiply_adds, const std::function<void(int)>& body) {
  if (task_count(multiply_adds, tasks) == 1) {
    for (int task = 0; task < tasks; ++task) body(task);
  } else {
    parallel_for(tasks, body);
  }
}

RowRange task_rows(std::ptrdiff_t rows, int tasks, int task, std::ptrdiff_t multiple) {
  const std::ptrdiff_t per_task = (rows + tasks - 1) / tasks;
  const std::ptrdiff_t step = (per_task + multiple - 1) / multiple * multiple;
  const std::ptrdiff_t begin = std::min(rows, step * task);
  return {begin, std::min(rows, begin + step)};
}

}  // namespace detail

}  // namespace attnlab
