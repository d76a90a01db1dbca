#include "fuzz_batched.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <optional>
#include <vector>

namespace attnlab::fuzz {
namespace {

constexpr float kMinusInf = -std::numeric_limits<float>::infinity();

std::int64_t count(const Shape& shape) {
  std::int64_t n = 1;
  for (std::int64_t size : shape) n *= size;
  return n;
}

// The index of element number `flat` of `shape` in row-major order, and back. Written here rather than
// taken from the core (batched_attention.cpp has the same few lines): the reference must not share the
// index arithmetic it checks.
Shape unravel(std::int64_t flat, const Shape& shape) {
  Shape index(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return index;
}
std::int64_t ravel(const Shape& index, const Shape& shape) {
  std::int64_t flat = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + index[d];
  return flat;
}

// The element of a `from`-shaped array that index (of the `to` shape it broadcasts to) reads:
// aligned from the right, a dim of size 1 reads index 0.
std::int64_t broadcast_source(const Shape& index, const Shape& from, const Shape& to) {
  Shape source(from.size());
  for (std::size_t d = 0; d < from.size(); ++d) source[d] = from[d] == 1 ? 0 : index[to.size() - from.size() + d];
  return ravel(source, from);
}

// PyTorch's broadcasting, written out here: nullopt where the shapes do not broadcast.
std::optional<Shape> reference_broadcast(const Shape& a, const Shape& b) {
  const std::size_t rank = std::max(a.size(), b.size());
  if (rank > static_cast<std::size_t>(kMaxTensorRank)) return std::nullopt;
  Shape result(rank);
  for (std::size_t i = 1; i <= rank; ++i) {
    const std::int64_t x = i <= a.size() ? a[a.size() - i] : 1, y = i <= b.size() ? b[b.size() - i] : 1;
    if (x < 1 || y < 1 || (x != y && x != 1 && y != 1)) return std::nullopt;
    result[rank - i] = std::max(x, y);
  }
  return result;
}
bool reference_broadcasts_to(const Shape& from, const Shape& to) {
  const std::optional<Shape> both = reference_broadcast(from, to);
  return from.size() <= to.size() && both && *both == to;
}

// A dim 1–4; with `invalid`, sometimes 0 or −1.
std::int64_t random_dim(FuzzInput& in, bool invalid = false) {
  if (invalid && in.choice(16) == 0) return in.flag() ? 0 : -1;
  return 1 + in.choice(4);
}
Shape random_shape(FuzzInput& in, int min_rank, int max_rank, bool invalid = false) {
  Shape shape(static_cast<std::size_t>(min_rank + in.choice(max_rank - min_rank + 1)));
  for (std::int64_t& size : shape) size = random_dim(in, invalid);
  return shape;
}

// ---------------------------------------------------------------------------------------------
// Tensor

// The data in row-major order under a shape: what every Tensor operation is checked against.
struct Reference {
  Shape shape;
  std::vector<float> data;
};

void print(const char* name, const Shape& shape) { std::cerr << name << " " << shape_text(shape) << "\n"; }

// t must hold the reference's elements: through at(), contiguous(), to_vector() and matrix().
void check_tensor(const Tensor& t, const Reference& ref, const char* operation) {
  const auto check = [&](bool ok, const char* property) {
    if (!ok) {
      std::cerr << "after " << operation << "\n";
      print("shape", t.shape());
      print("strides", t.strides());
      print("expected shape", ref.shape);
    }
    require(ok, property);
  };
  check(t.shape() == ref.shape, "a Tensor operation gave the wrong shape");
  check(t.numel() == static_cast<std::int64_t>(ref.data.size()), "numel");
  for (std::int64_t flat = 0; flat < t.numel(); ++flat)
    check(t.at(unravel(flat, ref.shape)) == ref.data[static_cast<std::size_t>(flat)], "at() differs from the reference");
  const Tensor c = t.contiguous();
  check(c.is_contiguous() && c.shape() == ref.shape, "contiguous() is not contiguous or changed the shape");
  check(c.to_vector() == ref.data && t.to_vector() == ref.data, "contiguous()/to_vector() differ from at()");
  if (t.rank() < 2) return;
  const std::int64_t rows = ref.shape[ref.shape.size() - 2], cols = ref.shape.back();
  check(t.matrix_count() == count(ref.shape) / (rows * cols), "matrix_count");
  for (std::int64_t m = 0; m < t.matrix_count(); ++m) {
    const Matrix slice = t.matrix(m);
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j)
        check(slice(i, j) == ref.data[static_cast<std::size_t>((m * rows + i) * cols + j)], "matrix(m) differs from at()");
  }
}

// A shape for view/reshape: mostly one with the same element count (one dim sometimes −1), sometimes any.
Shape view_target(FuzzInput& in, std::int64_t numel) {
  if (in.choice(6) == 0) return random_shape(in, 0, 6, true);
  Shape shape;
  std::int64_t left = numel;
  const int rank = 1 + in.choice(kMaxTensorRank);
  for (int d = 0; d + 1 < rank; ++d) {
    std::vector<std::int64_t> divisors;
    for (std::int64_t k = 1; k <= left; ++k)
      if (left % k == 0) divisors.push_back(k);
    const std::int64_t size = divisors[static_cast<std::size_t>(in.choice(static_cast<int>(divisors.size())))];
    shape.push_back(size);
    left /= size;
  }
  shape.push_back(left);
  if (in.choice(3) == 0) shape[static_cast<std::size_t>(in.choice(rank))] = -1;
  return shape;
}

// The shape view/reshape must give, written out: nullopt where it must refuse.
std::optional<Shape> reference_view_shape(Shape shape, std::int64_t numel) {
  if (shape.empty() || shape.size() > static_cast<std::size_t>(kMaxTensorRank)) return std::nullopt;
  std::int64_t known = 1;
  int inferred = -1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1 && inferred < 0) inferred = static_cast<int>(d);
    else if (shape[d] < 1) return std::nullopt;
    else known *= shape[d];
  }
  if (inferred >= 0) {
    if (numel % known != 0) return std::nullopt;
    shape[static_cast<std::size_t>(inferred)] = numel / known;
  }
  return count(shape) == numel ? std::optional<Shape>(shape) : std::nullopt;
}

// The reference with its dims reordered: result dim n is dim dims[n] (already in 0 … rank−1).
Reference reference_permute(const Reference& ref, const std::vector<int>& dims) {
  Reference out{Shape(dims.size()), std::vector<float>(ref.data.size())};
  for (std::size_t n = 0; n < dims.size(); ++n) out.shape[n] = ref.shape[static_cast<std::size_t>(dims[n])];
  for (std::int64_t flat = 0; flat < count(out.shape); ++flat) {
    const Shape index = unravel(flat, out.shape);
    Shape source(index.size());
    for (std::size_t n = 0; n < dims.size(); ++n) source[static_cast<std::size_t>(dims[n])] = index[n];
    out.data[static_cast<std::size_t>(flat)] = ref.data[static_cast<std::size_t>(ravel(source, ref.shape))];
  }
  return out;
}

// One random operation applied to t and, independently, to ref. Returns false when it was (rightly) refused.
bool step(FuzzInput& in, Tensor& t, Reference& ref) {
  const int rank = t.rank();
  const auto normalised = [](std::int64_t dim, int count) -> std::optional<int> {
    if (dim < -count || dim >= count) return std::nullopt;
    return static_cast<int>(dim < 0 ? dim + count : dim);
  };
  Tensor next;
  switch (in.choice(7)) {
    case 0:
    case 1: {  // view or reshape
      const bool view = in.flag();
      const Shape target = view_target(in, t.numel());
      const std::optional<Shape> expected = reference_view_shape(target, t.numel());
      const bool ok = accepted([&] { next = view ? t.view(target) : t.reshape(target); });
      require(!ok || expected, "view/reshape accepted an impossible shape");
      if (!ok) {
        // A contiguous tensor can always be viewed; reshape never refuses a possible shape.
        require(!expected || (view && !t.is_contiguous()), "view/reshape refused a possible shape");
        return false;
      }
      ref.shape = *expected;
      check_tensor(next, ref, view ? "view" : "reshape");
      break;
    }
    case 2: {  // permute: a permutation, its dims sometimes counted from the end, sometimes broken
      Shape dims(static_cast<std::size_t>(rank));
      for (int d = 0; d < rank; ++d) dims[static_cast<std::size_t>(d)] = d;
      for (int d = rank - 1; d > 0; --d) std::swap(dims[static_cast<std::size_t>(d)], dims[static_cast<std::size_t>(in.choice(d + 1))]);
      for (std::int64_t& d : dims)
        if (in.choice(4) == 0) d -= rank;
      bool valid = true;
      switch (in.choice(10)) {
        case 0: dims[static_cast<std::size_t>(in.choice(rank))] = rank + in.choice(2); valid = false; break;
        case 1: if (rank > 1) { dims[0] = dims[1]; valid = false; } break;
        case 2: dims.push_back(0); valid = false; break;
        default: break;
      }
      const bool ok = accepted([&] { next = t.permute(dims); });
      require(ok == valid, "permute accepted a non-permutation or refused a permutation");
      if (!ok) return false;
      std::vector<int> order;
      for (std::int64_t d : dims) order.push_back(*normalised(d, rank));
      ref = reference_permute(ref, order);
      check_tensor(next, ref, "permute");
      break;
    }
    case 3: {  // transpose(d0, d1), each in −rank−1 … rank
      const std::int64_t d0 = in.choice(2 * rank + 2) - rank - 1, d1 = in.choice(2 * rank + 2) - rank - 1;
      const std::optional<int> a = normalised(d0, rank), b = normalised(d1, rank);
      const bool ok = accepted([&] { next = t.transpose(static_cast<int>(d0), static_cast<int>(d1)); });
      require(ok == (a && b), "transpose accepted a dim out of range or refused one in range");
      if (!ok) return false;
      std::vector<int> order;
      for (int d = 0; d < rank; ++d) order.push_back(d);
      std::swap(order[static_cast<std::size_t>(*a)], order[static_cast<std::size_t>(*b)]);
      ref = reference_permute(ref, order);
      check_tensor(next, ref, "transpose");
      break;
    }
    case 4: {  // unsqueeze(dim), dim in −rank−2 … rank+1
      const std::int64_t dim = in.choice(2 * rank + 4) - rank - 2;
      const std::optional<int> d = normalised(dim, rank + 1);
      const bool ok = accepted([&] { next = t.unsqueeze(static_cast<int>(dim)); });
      require(ok == (d && rank < kMaxTensorRank), "unsqueeze accepted a bad dim or refused a good one");
      if (!ok) return false;
      ref.shape.insert(ref.shape.begin() + *d, 1);
      check_tensor(next, ref, "unsqueeze");
      break;
    }
    case 5: {  // expand: dims of size 1 to 1–3, sometimes a new leading dim, sometimes a size that cannot be
      Shape target = ref.shape;
      for (std::int64_t& size : target)
        if (size == 1) size = 1 + in.choice(3);
      if (in.flag()) target.insert(target.begin(), 1 + in.choice(3));
      if (in.choice(6) == 0) target[static_cast<std::size_t>(in.choice(static_cast<int>(target.size())))] = random_dim(in, true);
      if (in.choice(10) == 0) target.erase(target.begin());
      const bool valid = target.size() <= static_cast<std::size_t>(kMaxTensorRank) &&
                         reference_broadcasts_to(ref.shape, target);
      const bool ok = accepted([&] { next = t.expand(target); });
      require(ok == valid, "expand accepted a shape the tensor does not broadcast to, or refused one it does");
      if (!ok) return false;
      Reference out{target, std::vector<float>(static_cast<std::size_t>(count(target)))};
      for (std::int64_t flat = 0; flat < count(target); ++flat)
        out.data[static_cast<std::size_t>(flat)] =
            ref.data[static_cast<std::size_t>(broadcast_source(unravel(flat, target), ref.shape, target))];
      ref = std::move(out);
      check_tensor(next, ref, "expand");
      break;
    }
    default:
      next = t.contiguous();
      check_tensor(next, ref, "contiguous");
      break;
  }
  t = next;
  return true;
}

}  // namespace

void fuzz_tensor(FuzzInput& in) {
  if (in.choice(4) == 0) {
    const Shape a = random_shape(in, 0, 6, true), b = random_shape(in, 0, 6, true);
    const std::optional<Shape> expected = reference_broadcast(a, b);
    Shape result;
    const bool ok = accepted([&] { result = broadcast_shapes(a, b); });
    require(ok == expected.has_value(), "broadcast_shapes accepted shapes that do not broadcast, or refused ones that do");
    if (ok) require(result == *expected, "broadcast_shapes gave the wrong shape");
    if (ok) require(broadcasts_to(a, result) && broadcasts_to(b, result), "the operands do not broadcast to the result");
    return;
  }
  // Distinct values (1, 2, 3, …: exact in float32), so any misplaced element shows.
  Reference ref{random_shape(in, 1, kMaxTensorRank), {}};
  for (std::int64_t i = 0; i < count(ref.shape); ++i) ref.data.push_back(static_cast<float>(i + 1));
  Tensor t(ref.shape, ref.data);
  check_tensor(t, ref, "construction");
  for (int n = 1 + in.choice(4); n > 0; --n)
    if (!step(in, t, ref)) return;
}

// ---------------------------------------------------------------------------------------------
// Batched scaled dot-product attention

namespace {

// The leading dims of an operand, from the batch: the same, a suffix of it, some dims set to 1, or any.
Shape operand_lead(FuzzInput& in, const Shape& batch) {
  Shape lead = batch;
  switch (in.choice(8)) {
    case 0: lead.erase(lead.begin(), lead.begin() + in.choice(static_cast<int>(batch.size()) + 1)); break;
    case 1: for (std::int64_t& size : lead) if (in.flag()) size = 1; break;
    case 2: lead = random_shape(in, 0, 3); break;
    default: break;
  }
  return lead;
}

Shape with_matrix(Shape lead, std::int64_t rows, std::int64_t cols) {
  lead.push_back(rows);
  lead.push_back(cols);
  return lead;
}

// Values: mostly quarters in [−4, 4]; one operand in four drawn by FuzzInput::value (sometimes NaN,
// ±Inf or enormous). `moderate` stays true while every value is within [−8, 8].
Tensor random_values(FuzzInput& in, const Shape& shape, bool& moderate) {
  const bool wild = in.choice(4) == 0;
  std::vector<float> values(static_cast<std::size_t>(count(shape)));
  for (float& x : values) {
    x = wild ? in.value() : static_cast<float>(in.choice(33) - 16) / 4.0f;
    moderate = moderate && std::abs(x) <= 8.0f;
  }
  return Tensor(shape, values);
}

// A mask for `scores`: a broadcastable shape (a suffix with some dims 1) or any; values 1/0 (binary),
// finite or −∞ (additive), sometimes a value neither allows.
Tensor random_mask(FuzzInput& in, const Shape& scores, MaskKind kind, bool& valid_values) {
  Shape shape;
  if (in.choice(4) == 0) {
    shape = random_shape(in, 1, kMaxTensorRank);
  } else {
    shape.assign(scores.begin() + in.choice(static_cast<int>(scores.size())), scores.end());
    for (std::int64_t& size : shape)
      if (in.choice(3) == 0) size = 1;
  }
  const int pattern = in.choice(4);  // all attend, random, all blocked, random
  std::vector<float> values(static_cast<std::size_t>(count(shape)));
  for (float& x : values) {
    const bool keep = pattern == 0 || (pattern != 2 && in.flag());
    if (kind == MaskKind::binary) x = keep ? 1.0f : 0.0f;
    else x = keep ? static_cast<float>(in.choice(17) - 8) / 2.0f : kMinusInf;
  }
  if (in.choice(8) == 0) {  // one value neither convention allows
    values[static_cast<std::size_t>(in.choice(static_cast<int>(values.size())))] =
        kind == MaskKind::binary ? 0.5f : (in.flag() ? std::numeric_limits<float>::quiet_NaN() : -kMinusInf);
    valid_values = false;
  }
  return Tensor(shape, values);
}

}  // namespace

void fuzz_batched_attention(FuzzInput& in) {
  const Shape batch = random_shape(in, 0, 3);
  const std::int64_t n_q = random_dim(in), n_k = random_dim(in), d_k = random_dim(in), d_v = random_dim(in);
  const bool off_d = in.choice(16) == 0, off_n = in.choice(16) == 0;
  const Shape q_shape = with_matrix(operand_lead(in, batch), n_q, d_k);
  const Shape k_shape = with_matrix(operand_lead(in, batch), n_k, d_k + (off_d ? 1 : 0));
  const Shape v_shape = with_matrix(operand_lead(in, batch), n_k + (off_n ? 1 : 0), d_v);
  bool moderate = true;
  const Tensor q = random_values(in, q_shape, moderate), k = random_values(in, k_shape, moderate),
               v = random_values(in, v_shape, moderate);

  // What must happen, worked out here: the batch the leading dims broadcast to, and the scores.
  std::optional<Shape> lead = Shape(q_shape.begin(), q_shape.end() - 2);
  for (const Shape* s : {&k_shape, &v_shape})
    if (lead) lead = reference_broadcast(*lead, Shape(s->begin(), s->end() - 2));
  bool valid = lead && !off_d && !off_n;
  const Shape scores = with_matrix(lead.value_or(batch), n_q, n_k);

  BatchedAttentionOptions options;
  Tensor mask, padding;
  bool valid_values = true;
  if (in.flag()) {
    options.mask_kind = in.flag() ? MaskKind::binary : MaskKind::additive;
    mask = random_mask(in, scores, options.mask_kind, valid_values);
    options.mask = &mask;
    valid = valid && reference_broadcasts_to(mask.shape(), scores);
  }
  options.causal = in.flag();
  if (in.choice(3) == 0) {
    // (batch, n_k) in PyTorch's 1 = pad; sometimes a dim of 1, sometimes another shape.
    Shape shape{scores.size() >= 3 ? scores.front() : 1, n_k};
    if (in.choice(6) == 0) shape[static_cast<std::size_t>(in.choice(2))] = 1;
    if (in.choice(6) == 0) shape = random_shape(in, 1, 3);
    std::vector<float> values(static_cast<std::size_t>(count(shape)));
    for (float& x : values) x = in.choice(3) == 0 ? 1.0f : 0.0f;
    if (in.choice(8) == 0) {  // neither pad nor token
      values[static_cast<std::size_t>(in.choice(static_cast<int>(values.size())))] = 2.0f;
      valid_values = false;
    }
    padding = Tensor(shape, values);
    options.key_padding_mask = &padding;
    valid = valid && scores.size() >= 3 && shape.size() == 2 && (shape[0] == 1 || shape[0] == scores.front()) &&
            (shape[1] == 1 || shape[1] == n_k);
  }
  if (in.choice(4) == 0) {
    options.scale = in.value();
    moderate = moderate && std::abs(*options.scale) <= 8.0f;
  }

  BatchedAttentionResult r;
  const bool ok = accepted([&] { r = scaled_dot_product_attention(q, k, v, options); });
  const auto check = [&](bool property_holds, const char* property) {
    if (!property_holds) {
      print("Q", q.shape());
      print("K", k.shape());
      print("V", v.shape());
      if (options.mask) print(options.mask_kind == MaskKind::binary ? "binary mask" : "additive mask", mask.shape());
      if (options.key_padding_mask) print("key_padding_mask", padding.shape());
      std::cerr << "causal " << options.causal << ", scale " << options.scale.value_or(NAN) << "\n";
    }
    require(property_holds, property);
  };
  check(ok || !(valid && valid_values && moderate), "batched SDPA refused valid arguments");
  if (!ok) return;
  check(valid && valid_values, "batched SDPA accepted shapes or mask values it must refuse");

  const Shape& b = *lead;
  check(r.weights.shape() == scores && r.output.shape() == with_matrix(b, n_q, d_v), "batched SDPA result shapes");
  const std::vector<float> weights = r.weights.to_vector(), output = r.output.to_vector();
  check(std::all_of(weights.begin(), weights.end(), [](float x) { return std::isfinite(x); }) &&
            std::all_of(output.begin(), output.end(), [](float x) { return std::isfinite(x); }),
        "batched SDPA returned NaN or Inf");
  // Every row: blocked keys (by the mask, causality or padding, read here by broadcasting each) get
  // weight 0; the row sums to 1, or to 0 when every key is blocked.
  const std::vector<float> mask_values = mask.empty() ? std::vector<float>{} : mask.to_vector(),
                           padding_values = padding.empty() ? std::vector<float>{} : padding.to_vector();
  for (std::int64_t row = 0; row < count(scores) / n_k; ++row) {
    bool any_visible = false;
    double sum = 0.0;
    for (std::int64_t j = 0; j < n_k; ++j) {
      const std::int64_t flat = row * n_k + j;
      const Shape index = unravel(flat, scores);
      const std::int64_t i = index[index.size() - 2];
      bool visible = !options.causal || j <= i + n_k - n_q;
      if (!mask.empty()) {
        const float m = mask_values[static_cast<std::size_t>(broadcast_source(index, mask.shape(), scores))];
        visible = visible && (options.mask_kind == MaskKind::binary ? m == 1.0f : m != kMinusInf);
      }
      if (!padding.empty()) {
        const Shape pad_index{padding.size(0) == 1 ? 0 : index.front(), padding.size(1) == 1 ? 0 : j};
        visible = visible && padding_values[static_cast<std::size_t>(ravel(pad_index, padding.shape()))] == 0.0f;
      }
      const float w = weights[static_cast<std::size_t>(flat)];
      if (!visible) check(w == 0.0f, "a blocked key got a non-zero weight");
      any_visible = any_visible || visible;
      sum += w;
    }
    check(any_visible ? std::abs(sum - 1.0) < 1e-4 : sum == 0.0, "a weight row does not sum to 1 (or 0 when blocked)");
  }
}

}  // namespace attnlab::fuzz
