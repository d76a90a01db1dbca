// Threads (threads.hpp): every threaded path gives exactly the single-threaded result, and the pool
// itself runs each task once, passes errors on and never nests. The same tests run under
// ThreadSanitizer (scripts/test.sh builds them with ATTNLAB_SANITIZE=thread).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

#include "attnlab/attention/attention.hpp"
#include "attnlab/gpt/gpt.hpp"
#include "attnlab/layers/multi_head_attention.hpp"
#include "attnlab/tensor/rng.hpp"
#include "attnlab/tensor/threads.hpp"
#include "expect_error.hpp"
#include "kernels/kernels.hpp"
#include "tensor/parallel.hpp"

namespace attnlab {
namespace {

// Restores the thread count a test changed.
class ThreadsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = num_threads();
    if (max_threads() < 2) GTEST_SKIP() << "one core: nothing to compare";
  }
  void TearDown() override { set_num_threads(saved_); }

  // f() with 1 thread and with every thread the machine has.
  template <typename F>
  auto one_and_all(F f) {
    set_num_threads(1);
    auto one = f();
    set_num_threads(max_threads());
    return std::make_pair(std::move(one), f());
  }

 private:
  int saved_ = 1;
};

void expect_identical(const Matrix& a, const Matrix& b) {
  ASSERT_EQ(a.rows(), b.rows());
  ASSERT_EQ(a.cols(), b.cols());
  EXPECT_TRUE(std::equal(a.data(), a.data() + a.size(), b.data())) << "results differ between thread counts";
}

TEST(Threads, CountIsCheckedAndNamed) {
  EXPECT_GE(max_threads(), 1);
  const int saved = num_threads();
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
  EXPECT_EQ(max_threads(), 1);
  expect_error([] { set_num_threads(2); }, "set_num_threads: this build is single-threaded (threads must be 1), got 2");
#else
  expect_error([] { set_num_threads(0); },
               "set_num_threads: threads must be 1 … " + std::to_string(max_threads()) +
                   " (this machine's cores, at most 8), got 0");
  expect_error([] { set_num_threads(max_threads() + 1); },
               "set_num_threads: threads must be 1 … " + std::to_string(max_threads()) +
                   " (this machine's cores, at most 8), got " + std::to_string(max_threads() + 1));
#endif
  set_num_threads(1);  // always allowed
  EXPECT_EQ(num_threads(), 1);
  set_num_threads(saved);
  EXPECT_EQ(num_threads(), saved);
}

TEST(Threads, TaskRowsCoverEveryRowOnceInWholeTiles) {
  for (int rows : {1, 15, 16, 17, 100, 1000})
    for (int tasks : {1, 2, 3, 7}) {
      std::ptrdiff_t next = 0;
      for (int t = 0; t < tasks; ++t) {
        const detail::RowRange r = detail::task_rows(rows, tasks, t, 16);
        ASSERT_EQ(r.begin, next) << rows << " rows, task " << t << " of " << tasks;
        ASSERT_LE(r.begin, r.end);
        if (r.end < rows) {
          EXPECT_EQ((r.end - r.begin) % 16, 0);
        }
        next = r.end;
      }
      EXPECT_EQ(next, rows);
    }
}

TEST_F(ThreadsTest, EveryTaskRunsOnceAndSeveralThreadsTakePart) {
  set_num_threads(max_threads());
  std::vector<std::atomic<int>> runs(1000);
  std::atomic<int> nested_calls{0};
  detail::parallel_for(1000, [&](int task) {
    runs[static_cast<std::size_t>(task)]++;
    // A loop inside a task runs in order on the same thread.
    int order = 0;
    detail::parallel_for(3, [&](int inner) { EXPECT_EQ(inner, order++); });
    nested_calls++;
  });
  for (const auto& r : runs) EXPECT_EQ(r.load(), 1);
  EXPECT_EQ(nested_calls.load(), 1000);
}

TEST_F(ThreadsTest, AnErrorInATaskReachesTheCallerAndThePoolStaysUsable) {
  set_num_threads(max_threads());
  EXPECT_THROW(detail::parallel_for(64, [](int task) {
                 if (task == 17) throw std::runtime_error("task 17");
               }),
               std::runtime_error);
  std::atomic<int> sum{0};
  detail::parallel_for(64, [&](int task) { sum += task; });
  EXPECT_EQ(sum.load(), 63 * 64 / 2);
}

TEST_F(ThreadsTest, TwoCallersAtOnceEachGetTheirOwnResult) {
  set_num_threads(max_threads());
  const Matrix a = randn(400, 96, 8), b = randn(96, 300, 9), c = randn(300, 96, 10);
  set_num_threads(1);
  const Matrix ab = kernels::matmul(a, b), ca = kernels::matmul(c, a.transpose());
  set_num_threads(max_threads());
  Matrix ab_threaded, ca_threaded;
  std::thread first([&] { for (int i = 0; i < 20; ++i) ab_threaded = kernels::matmul(a, b); });
  std::thread second([&] { for (int i = 0; i < 20; ++i) ca_threaded = kernels::matmul(c, a.transpose()); });
  first.join();
  second.join();
  expect_identical(ab_threaded, ab);
  expect_identical(ca_threaded, ca);
}

TEST_F(ThreadsTest, ProductsAndSoftmaxAreBitIdenticalOnEveryKernelSet) {
  const Matrix a = randn(301, 190, 1), b = randn(190, 517, 2);  // ragged: tails in every direction
  const Matrix wide = randn(190, 1500, 3);  // more columns than rows: split by op(B)'s panels
  const Eigen::MatrixXd wide_product = a.topRows(61).cast<double>() * wide.cast<double>();
  for (const std::string& variant : kernels::for_testing::variants()) {
    kernels::for_testing::set_variant(variant);
    SCOPED_TRACE(variant);
    const auto [one, all] = one_and_all([&] { return kernels::matmul(a, b); });
    expect_identical(one, all);
    const auto [one_w, all_w] = one_and_all([&] { return kernels::matmul(a.topRows(61), wide); });
    expect_identical(one_w, all_w);
    EXPECT_LT((all_w.cast<double>() - wide_product).cwiseAbs().maxCoeff(), 1e-3);
    const auto [one_t, all_t] = one_and_all([&] { return kernels::matmul_transposed(b.transpose(), a); });
    expect_identical(one_t, all_t);
    const auto [s1, s2] = one_and_all([&] {
      Matrix x = kernels::matmul(a, b);
      kernels::softmax_rows(x);
      return x;
    });
    expect_identical(s1, s2);
  }
  kernels::for_testing::set_variant(kernels::for_testing::variants().front());
}

TEST_F(ThreadsTest, AttentionIsBitIdentical) {
  const Matrix q = randn(333, 64, 3), k = randn(333, 64, 4), v = randn(333, 48, 5);
  for (bool causal : {false, true}) {
    const AttentionOptions options{.causal = causal};
    const auto [out1, out2] = one_and_all([&] { return attention_output(q, k, v, options); });
    expect_identical(out1, out2);
    const auto [full1, full2] = one_and_all([&] { return scaled_dot_product_attention(q, k, v, options); });
    expect_identical(full1.weights, full2.weights);
    expect_identical(full1.output, full2.output);
  }
}

TEST_F(ThreadsTest, MultiHeadAttentionIsBitIdenticalWithAndWithoutWeights) {
  // 8 heads over the threads; RoPE and ALiBi give each head its own inputs or bias.
  const Matrix x = randn(160, 128, 6);
  for (PositionalScheme positions : {PositionalScheme::none, PositionalScheme::rotary, PositionalScheme::alibi})
    for (bool need_weights : {false, true}) {
      SCOPED_TRACE(std::to_string(static_cast<int>(positions)) + (need_weights ? " with weights" : " output only"));
      const auto [one, all] = one_and_all([&] {
        MultiHeadAttention mha({.d_model = 128, .num_heads = 8, .positions = positions, .seed = 3});
        return mha.forward(x, {.causal = true, .need_weights = need_weights});
      });
      expect_identical(one.output, all.output);
      ASSERT_EQ(one.head_weights.size(), need_weights ? 8u : 0u);
      ASSERT_EQ(all.head_weights.size(), one.head_weights.size());
      for (std::size_t h = 0; h < one.head_weights.size(); ++h) expect_identical(one.head_weights[h], all.head_weights[h]);
      if (need_weights) expect_identical(one.average_weights, all.average_weights);
    }
}

TEST_F(ThreadsTest, GPTForwardAndGradientsAreBitIdentical) {
  const GPTConfig config{.vocab_size = 97, .context_length = 64, .d_model = 64, .num_heads = 4, .num_layers = 2};
  std::vector<int> ids(4 * 64), targets(ids.size());
  Rng rng(7);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    ids[i] = static_cast<int>(rng.next_u32() % 97);
    targets[i] = static_cast<int>(rng.next_u32() % 97);
  }
  const auto [run1, run2] = one_and_all([&] {
    GPT model(config, 11);
    float loss = model.forward_backward(ids, targets, 4);
    loss += model.forward_backward(ids, targets, 4, {.p = 0.1f, .seed = 3});  // dropout's masks: drawn on one thread
    const std::vector<float> grads(model.grads().begin(), model.grads().end());
    const GPTOutput out = model.forward(std::span<const int>(ids).first(64), {.attention = true});
    return std::make_tuple(loss, grads, out.logits, out.attention);
  });
  EXPECT_EQ(std::get<0>(run1), std::get<0>(run2));
  EXPECT_TRUE(std::get<1>(run1) == std::get<1>(run2)) << "gradients differ between thread counts";
  expect_identical(std::get<2>(run1), std::get<2>(run2));
  for (std::size_t l = 0; l < std::get<3>(run1).size(); ++l)
    for (std::size_t h = 0; h < std::get<3>(run1)[l].size(); ++h) expect_identical(std::get<3>(run1)[l][h], std::get<3>(run2)[l][h]);
}

}  // namespace
}  // namespace attnlab
