#include "tensor/parallel.hpp"

#include <algorithm>
#include <cstdint>
#include <exception>

#include "attnlab/tensor/error.hpp"
#include "attnlab/tensor/threads.hpp"
#include "tensor/checks.hpp"

#if !defined(__EMSCRIPTEN__) || defined(__EMSCRIPTEN_PTHREADS__)
#define ATTNLAB_HAS_THREADS 1
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>
#endif

namespace attnlab {

namespace {
// Work below this many multiply-adds stays on one thread: handing tasks to a spinning thread and
// waiting for it costs some microseconds (and a sleeping one far more, see kSpinTime), while one core
// does 2^20 of them in some tens of microseconds.
constexpr double kMinParallelWork = 1 << 20;

// A shared loop is cut into this many tasks per thread, handed out as threads ask for them: a thread
// that starts late (woken from sleep, or preempted by the browser's own threads) takes fewer, instead
// of the others waiting for its one large share.
constexpr int kTasksPerThread = 8;

#if ATTNLAB_HAS_THREADS

// Beyond this the per-task overheads and memory bandwidth win (and the wasm build starts one worker
// per thread when the module loads: web/lib/ asks for the same number).
constexpr int kThreadCap = 8;

// How long a thread that has run out of work keeps checking for more before it sleeps. Waking a
// sleeping thread is slow on this project's 2-vCPU machine: natively ~0.16 ms on average, and in
// Chromium, where Atomics.notify from the page's thread wakes a worker's Atomics.wait, 0.9–1.9 ms on
// average and up to 17 ms (measured with 20 wakes after 5 ms idle) — longer than a whole seq-512
// attention call. A model's forward posts dozens of loops microseconds apart, a training step
// hundreds, and in a lesson the next input event (a slider drag sends one per frame) comes within
// 20 ms: threads that spin that long start each of those loops at once, and after it they sleep and
// cost nothing. (onnxruntime-web's threads spin after a run too.)
#if defined(__EMSCRIPTEN__)
constexpr auto kSpinTime = std::chrono::milliseconds(20);
#else
constexpr auto kSpinTime = std::chrono::milliseconds(2);
#endif

int hardware_threads() {
  const unsigned cores = std::thread::hardware_concurrency();
  return std::clamp(static_cast<int>(cores), 1, kThreadCap);
}

// One turn of a busy wait: natively it offers the core to whoever else wants it (another process, or
// a thread of ours that was preempted); in wasm there is nothing to yield to.
void relax() {
#if !defined(__EMSCRIPTEN__)
  std::this_thread::yield();
#endif
}

// Checks `ready()` for up to kSpinTime; true as soon as it holds.
template <typename Ready>
bool spin_until(Ready ready) {
  const auto deadline = std::chrono::steady_clock::now() + kSpinTime;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (ready()) return true;
      relax();
    }
    if (std::chrono::steady_clock::now() > deadline) return false;
  }
}

// One parallel_for: lives on the caller's stack while the caller runs and waits for it.
struct Loop {
  const std::function<void(int)>* body;
  int tasks;
  std::atomic<int> next{0};      // the next task to hand out
  std::atomic<int> finished{0};  // tasks run (or skipped after an error)
  std::atomic<bool> failed{false};
  std::exception_ptr error;      // the first task's exception: written once, by whoever set `failed`
};

// threads − 1 workers that take the posted loop's tasks alongside the caller. After a loop they spin
// for kSpinTime, waiting for the next one, then sleep on a condition variable until a loop is posted.
// A worker reaches a loop only through `loop_` while it is counted in `attached_`; the caller clears
// `loop_` and waits for `attached_` to drop to 0 before its Loop leaves the stack.
class Pool {
 public:
  ~Pool() { stop(); }

  // Runs body(0 … tasks − 1) on the caller and `workers` pool threads (started or joined first). One
  // loop at a time: a second caller waits, so resizing never meets a loop under way.
  void run(int workers, int tasks, const std::function<void(int)>& body) {
    std::lock_guard one_loop_at_a_time(run_mutex_);
    resize(workers);
    Loop loop{.body = &body, .tasks = tasks};
    loop_.store(&loop);
    {
      std::lock_guard lock(mutex_);
      ++generation_;
    }
    wake_.notify_all();
    take_tasks(loop);
    const auto all_finished = [&] { return loop.finished.load() == tasks; };
    if (!spin_until(all_finished)) {
      std::unique_lock lock(mutex_);
      finished_.wait(lock, all_finished);
    }
    loop_.store(nullptr);
    while (attached_.load() != 0) relax();  // a worker between seeing the loop and leaving it
    if (loop.error) std::rethrow_exception(loop.error);
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
        stop_above_.store(workers);
        ++generation_;
      }
      wake_.notify_all();
      while (static_cast<int>(threads_.size()) > workers) {
        threads_.back().join();
        threads_.pop_back();
      }
      stop_above_.store(kThreadCap);
    }
    while (static_cast<int>(threads_.size()) < workers) {
      const int index = static_cast<int>(threads_.size());
      threads_.emplace_back([this, index] { work(index); });
    }
  }

  void work(int index) {
    std::uint64_t seen = 0;
    for (;;) {
      const auto posted = [&] { return generation_.load() != seen; };
      if (!spin_until(posted)) {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, posted);
      }
      seen = generation_.load();
      if (index >= stop_above_.load()) return;
      attached_.fetch_add(1);
      if (Loop* loop = loop_.load()) take_tasks(*loop);
      attached_.fetch_sub(1);
    }
  }

  // Runs the loop's tasks until none is left; after an exception the rest are skipped (but counted).
  void take_tasks(Loop& loop) {
    inside_task() = true;
    for (int task; (task = loop.next.fetch_add(1)) < loop.tasks;) {
      if (!loop.failed.load()) {
        try {
          (*loop.body)(task);
        } catch (...) {
          if (!loop.failed.exchange(true)) loop.error = std::current_exception();
        }
      }
      if (loop.finished.fetch_add(1) + 1 == loop.tasks) {
        std::lock_guard lock(mutex_);  // the caller may be checking under the lock before it sleeps
        finished_.notify_one();
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
  std::atomic<std::uint64_t> generation_{0};  // bumped (under mutex_) for each loop and each resize
  std::atomic<Loop*> loop_{nullptr};
  std::atomic<int> attached_{0};
  std::atomic<int> stop_above_{kThreadCap};  // workers from this index on leave at their next wake
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
  if (multiply_adds < kMinParallelWork || num_threads() == 1) return 1;
  return static_cast<int>(std::clamp<std::ptrdiff_t>(max_tasks, 1, kTasksPerThread * num_threads()));
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
