// TransformerLens's ActivationCache methods (transformer_lens/ActivationCache.py), each written as its
// method is: the same components in the same order under the same labels. Sums and products in double.
#include "attnlab/interp/cache_algebra.hpp"

#include <algorithm>
#include <cctype>

#include "gpt/gpt_ops.hpp"
#include "interp/hook_names.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

namespace {

using AlgebraRows = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

int stack_layer(const char* fn, int layer, int L) {
  if (layer == -1) return L;
  if (layer < 0 || layer > L) detail::fail(fn, "layer must be in 0 … ", L, " (or −1 for ", L, ", the unembed), got ", layer);
  return layer;
}

// The rows a position option chooses: every one, or the one it names (−1 the last).
std::vector<int> stack_rows(const char* fn, int position, int T) {
  std::vector<int> rows;
  if (position == kAllPositions) {
    for (int i = 0; i < T; ++i) rows.push_back(i);
    return rows;
  }
  const int p = position < 0 ? position + T : position;
  if (p < 0 || p >= T) detail::fail(fn, "position ", position, " is outside the sequence 0 … ", T - 1, " (or −1 … −", T, ")");
  return {p};
}

std::span<const float> slot_values(const GPT& model, std::string_view name) {
  const GPTTensorSlot& slot = model.tensor(name);
  return model.values().subspan(slot.offset, slot.size);
}

// Components [P×d] each → (n, P, d), or (n, d) for one chosen position.
Tensor pack_stack(const std::vector<AlgebraRows>& parts, int d, bool one_position, std::int64_t P) {
  std::vector<float> data;
  data.reserve(parts.size() * static_cast<std::size_t>(P * d));
  for (const AlgebraRows& part : parts)
    for (Eigen::Index i = 0; i < part.size(); ++i) data.push_back(static_cast<float>(part.data()[i]));
  const auto n = static_cast<std::int64_t>(parts.size());
  return one_position ? Tensor({n, d}, std::move(data)) : Tensor({n, P, d}, std::move(data));
}

// A stack back to components [P×d]: (n, P, d) with every position, or (n, d) with one.
std::vector<AlgebraRows> unpack_stack(const char* fn, const Tensor& stack, int d, int P, bool one_position) {
  const Shape expected = one_position ? Shape{stack.rank() > 0 ? stack.size(0) : 0, d} : Shape{stack.rank() > 0 ? stack.size(0) : 0, P, d};
  if (stack.empty() || stack.shape() != expected)
    detail::fail(fn, "stack must be (components, ", one_position ? "" : std::to_string(P) + ", ", d, ")",
                 one_position ? " (one position was given)" : " (every position: give position for a stack of one)",
                 ", got ", stack.empty() ? std::string("no tensor") : shape_text(stack.shape()));
  const std::vector<float> values = stack.contiguous().to_vector();
  std::vector<AlgebraRows> parts;
  const std::int64_t n = stack.size(0), per = static_cast<std::int64_t>(P) * d;
  for (std::int64_t c = 0; c < n; ++c)
    parts.push_back(Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
                        values.data() + c * per, P, d).cast<double>());
  return parts;
}

AlgebraRows point_rows(const ActivationCache& cache, HookPoint point, const std::vector<int>& rows) {
  const Matrix& m = cache.at(point);
  AlgebraRows out(static_cast<Eigen::Index>(rows.size()), m.cols());
  for (std::size_t i = 0; i < rows.size(); ++i) out.row(static_cast<Eigen::Index>(i)) = m.row(rows[i]).cast<double>();
  return out;
}

// Head h's z·W_O rows [P×d] at the chosen rows.
AlgebraRows head_result_rows(const GPT& model, const ActivationCache& cache, int layer, int head, const std::vector<int>& rows) {
  const GPTConfig& c = model.config();
  const int d = c.d_model, d_head = c.head_dim();
  const Eigen::Map<const Matrix> W_O(slot_values(model, "h." + std::to_string(layer) + ".attn.c_proj.weight").data(), d, d);
  const AlgebraRows z = point_rows(cache, {Hook::z, layer}, rows);
  return z.middleCols(head * d_head, d_head) * W_O.middleRows(head * d_head, d_head).cast<double>();
}

// apply_ln_to_stack on components [P×d] (rows are the positions `rows`).
void apply_ln_rows(const char* fn, const HookedGPT& hooked, const ActivationCache& cache, std::vector<AlgebraRows>& parts, int layer,
              bool mlp_input, bool recompute, const std::vector<int>& rows) {
  const GPT& model = hooked.model();
  const int L = model.config().num_layers;
  if (mlp_input && layer == L) detail::fail(fn, "mlp_input reads a block's ln2: the unembed (layer ", L, ") has none");
  if (recompute && layer == L) {  // ln_final itself, with each component's own mean and variance
    const gpt_ops::ConstRow w(slot_values(model, "ln_f.weight").data(), model.config().d_model);
    const gpt_ops::ConstRow b(slot_values(model, "ln_f.bias").data(), model.config().d_model);
    for (AlgebraRows& part : parts) {
      Matrix y;
      Eigen::VectorXf mean, rstd;
      gpt_ops::layer_norm(part.cast<float>(), w, b, y, mean, rstd);
      part = y.cast<double>();
    }
    return;
  }
  const HookPoint scale_point = layer == L ? HookPoint{Hook::ln_final_scale} : HookPoint{mlp_input ? Hook::ln2_scale : Hook::ln1_scale, layer};
  if (!cache.has(scale_point))
    detail::fail(fn, "applying the LayerNorm needs \"", hook_name(scale_point), "\", which this run did not keep");
  const AlgebraRows scale = point_rows(cache, scale_point, rows);
  for (AlgebraRows& part : parts) {
    part.colwise() -= part.rowwise().mean();
    part.array().colwise() /= scale.col(0).array();
  }
}

const char* kActShortNames[] = {"embed", "pos_embed", "resid_pre", "scale", "normalized", "q", "k", "v", "attn_scores",
                             "pattern", "z", "result", "attn_out", "resid_mid", "pre", "post", "mlp_out", "resid_post"};

}  // namespace

std::string act_name(std::string_view name_in, int layer_in, std::string_view layer_type_in) {
  std::string name(name_in), layer_type(layer_type_in);
  int layer = layer_in;
  if ((name.find('.') != std::string::npos || name.starts_with("hook_")) && layer < 0 && layer_type.empty()) return name;
  // re.match(r"([a-z]+)(\d+)([a-z]?.*)", name): letters, digits, then the layer type
  std::size_t letters = 0;
  while (letters < name.size() && std::islower(static_cast<unsigned char>(name[letters]))) ++letters;
  std::size_t digits = letters;
  while (digits < name.size() && std::isdigit(static_cast<unsigned char>(name[digits]))) ++digits;
  if (letters > 0 && digits > letters && digits - letters < 9) {
    layer = std::stoi(name.substr(letters, digits - letters));
    layer_type = name.substr(digits);
    name = name.substr(0, letters);
  }
  static const std::pair<std::string_view, std::string_view> kLayerTypes[] = {
      {"a", "attn"}, {"m", "mlp"}, {"b", ""}, {"block", ""}, {"blocks", ""}, {"attention", "attn"}};
  static const std::pair<std::string_view, std::string_view> kAliases[] = {
      {"attn", "pattern"}, {"attn_logits", "attn_scores"}, {"key", "k"}, {"query", "q"}, {"value", "v"},
      {"mlp_pre", "pre"}, {"mlp_mid", "mid"}, {"mlp_post", "post"}};
  for (const auto& [alias, actual] : kAliases)
    if (name == alias) name = actual;
  std::string full = layer >= 0 ? "blocks." + std::to_string(layer) + "." : "";
  static const std::string_view kAttn[] = {"k", "v", "q", "z", "rot_k", "rot_q", "result", "pattern", "attn_scores"};
  static const std::string_view kMlp[] = {"pre", "post", "mid", "pre_linear"};
  if (std::find(std::begin(kAttn), std::end(kAttn), name) != std::end(kAttn)) layer_type = "attn";
  else if (std::find(std::begin(kMlp), std::end(kMlp), name) != std::end(kMlp)) layer_type = "mlp";
  else
    for (const auto& [alias, actual] : kLayerTypes)
      if (layer_type == alias) layer_type = actual;
  if (!layer_type.empty()) full += layer_type + ".";
  full += "hook_" + name;
  if ((name == "scale" || name == "normalized") && layer < 0) full = "ln_final." + full;
  return full;
}

namespace {

std::vector<std::string> every_hook_name(const GPTConfig& config) {
  std::vector<std::string> names;
  for (int i = 0; i < hook_count(config.num_layers); ++i) names.push_back(hook_name(hook_at(i, config.num_layers)));
  return names;
}

bool is_hook_name(std::string_view full, const GPTConfig& config) {
  const auto names = every_hook_name(config);
  return std::find(names.begin(), names.end(), full) != names.end();
}

[[noreturn]] void fail_unknown_hook(const char* fn, std::string_view name, const GPTConfig& config) {
  std::vector<std::string> candidates = every_hook_name(config);
  candidates.insert(candidates.end(), std::begin(kActShortNames), std::end(kActShortNames));
  detail::fail(fn, "unknown hook name \"", name, "\"", did_you_mean(name, candidates),
               " Give a full name (blocks.0.attn.hook_pattern) or TransformerLens's short form with a layer "
               "(get('pattern', 0), 'pattern0'); short forms: embed, pos_embed, resid_pre, scale, normalized, q, k, v, "
               "attn_scores, pattern, z, result, attn_out, resid_mid, pre, post, mlp_out, resid_post (layers 0 … ",
               config.num_layers - 1, ")");
}

}  // namespace

HookPoint resolve_hook(const char* fn, std::string_view name, int layer, std::string_view layer_type, const GPTConfig& config) {
  const std::string full = act_name(name, layer, layer_type);
  if (is_hook_name(full, config)) return find_hook(fn, full, config);
  if (layer < 0 && layer_type.empty() && name.find('.') == std::string_view::npos)
    for (const std::string& candidate : every_hook_name(config))
      if (candidate.ends_with("." + full))
        detail::fail(fn, "\"", name, "\" is a point in every block: give its layer (get('", name, "', 0) is \"",
                     act_name(name, 0), "\"), or stack them all with stackActivation('", name, "')");
  if (layer >= config.num_layers)  // a short form with a layer the model has not
    detail::fail(fn, "\"", full, "\": layer ", layer, " is outside the model's layers 0 … ", config.num_layers - 1);
  fail_unknown_hook(fn, name, config);
}

std::vector<HookPoint> expand_hook_names(const char* fn, std::span<const std::string> names, const GPTConfig& config) {
  std::vector<HookPoint> points;
  const std::vector<std::string> all = every_hook_name(config);
  for (const std::string& name : names) {
    if (name.find('.') != std::string::npos) {  // a full name: find_hook's own message for a misspelt one
      points.push_back(find_hook(fn, name, config));
      continue;
    }
    const std::string full = act_name(name);
    if (is_hook_name(full, config)) {
      points.push_back(find_hook(fn, full, config));
      continue;
    }
    std::size_t before = points.size();
    if (full.starts_with("hook_") || full.starts_with("attn.") || full.starts_with("mlp."))
      for (const std::string& candidate : all)
        if (candidate.ends_with("." + full)) points.push_back(find_hook(fn, candidate, config));
    if (points.size() == before) fail_unknown_hook(fn, name, config);
  }
  return points;
}

Tensor head_results(const HookedGPT& hooked, const ActivationCache& cache, int layer) {
  // z [T × heads·d_head] → (T, heads, d_model)
  const char* fn = "head_results";
  const GPTConfig& c = hooked.config();
  if (layer < 0 || layer >= c.num_layers) detail::fail(fn, "layer ", layer, " is outside the model's layers 0 … ", c.num_layers - 1);
  const int T = cache.seq_len(), d = c.d_model, H = c.num_heads;
  std::vector<int> rows(static_cast<std::size_t>(T));
  for (int i = 0; i < T; ++i) rows[static_cast<std::size_t>(i)] = i;
  std::vector<float> data(static_cast<std::size_t>(T) * H * d);
  for (int h = 0; h < H; ++h) {
    const AlgebraRows result = head_result_rows(hooked.model(), cache, layer, h, rows);
    for (int t = 0; t < T; ++t)
      for (int j = 0; j < d; ++j) data[(static_cast<std::size_t>(t) * H + h) * d + j] = static_cast<float>(result(t, j));
  }
  return Tensor({T, H, d}, std::move(data));
}

ResidualStack accumulated_resid(const HookedGPT& hooked, const ActivationCache& cache, const StackOptions& o) {
  const char* fn = "accumulated_resid";
  const int L = hooked.config().num_layers, layer = stack_layer(fn, o.layer, L);
  const std::vector<int> rows = stack_rows(fn, o.position, cache.seq_len());
  ResidualStack out;
  std::vector<AlgebraRows> parts;
  for (int l = 0; l <= layer; ++l) {
    if (l == L) {
      parts.push_back(point_rows(cache, {Hook::resid_post, L - 1}, rows));
      out.labels.push_back("final_post");
      continue;
    }
    parts.push_back(point_rows(cache, {Hook::resid_pre, l}, rows));
    out.labels.push_back(std::to_string(l) + "_pre");
    if ((o.incl_mid && l < layer) || (o.mlp_input && l == layer)) {
      parts.push_back(point_rows(cache, {Hook::resid_mid, l}, rows));
      out.labels.push_back(std::to_string(l) + "_mid");
    }
  }
  if (o.apply_ln) apply_ln_rows(fn, hooked, cache, parts, layer, o.mlp_input, layer == L, rows);
  out.stack = pack_stack(parts, hooked.config().d_model, o.position != kAllPositions, static_cast<std::int64_t>(rows.size()));
  return out;
}

ResidualStack decompose_resid(const HookedGPT& hooked, const ActivationCache& cache, const StackOptions& o) {
  const char* fn = "decompose_resid";
  const int L = hooked.config().num_layers, layer = stack_layer(fn, o.layer, L);
  const std::vector<int> rows = stack_rows(fn, o.position, cache.seq_len());
  const bool attn = o.mode != DecomposeMode::mlp, mlp = o.mode != DecomposeMode::attn;
  ResidualStack out;
  std::vector<AlgebraRows> parts;
  const auto add = [&](HookPoint point, std::string label) {
    parts.push_back(point_rows(cache, point, rows));
    out.labels.push_back(std::move(label));
  };
  if (o.incl_embeds) add({Hook::embed}, "embed"), add({Hook::pos_embed}, "pos_embed");
  for (int l = 0; l < layer; ++l) {
    if (attn) add({Hook::attn_out, l}, std::to_string(l) + "_attn_out");
    if (mlp) add({Hook::mlp_out, l}, std::to_string(l) + "_mlp_out");
  }
  if (o.mlp_input && attn) {
    if (layer == L) detail::fail(fn, "mlp_input adds layer ", layer, "'s attn_out, but the model's layers are 0 … ", L - 1);
    add({Hook::attn_out, layer}, std::to_string(layer) + "_attn_out");
  }
  if (parts.empty()) detail::fail(fn, "nothing to stack: layer 0 without the embeddings has no components");
  if (o.apply_ln) apply_ln_rows(fn, hooked, cache, parts, layer, o.mlp_input, false, rows);
  out.stack = pack_stack(parts, hooked.config().d_model, o.position != kAllPositions, static_cast<std::int64_t>(rows.size()));
  return out;
}

ResidualStack stack_head_results(const HookedGPT& hooked, const ActivationCache& cache, const StackOptions& o) {
  const char* fn = "stack_head_results";
  const GPTConfig& c = hooked.config();
  const int L = c.num_layers, layer = stack_layer(fn, o.layer, L);
  const std::vector<int> rows = stack_rows(fn, o.position, cache.seq_len());
  ResidualStack out;
  std::vector<AlgebraRows> parts;
  for (int l = 0; l < layer; ++l)
    for (int h = 0; h < c.num_heads; ++h) {
      parts.push_back(head_result_rows(hooked.model(), cache, l, h, rows));
      out.labels.push_back("L" + std::to_string(l) + "H" + std::to_string(h));
    }
  if (o.incl_remainder) {
    if (layer == 0) detail::fail(fn, "incl_remainder reads resid_post of layer − 1: give a layer ≥ 1");
    AlgebraRows remainder = point_rows(cache, {Hook::resid_post, layer - 1}, rows);
    for (const AlgebraRows& part : parts) remainder -= part;
    parts.push_back(std::move(remainder));
    out.labels.push_back("remainder");
  }
  if (parts.empty()) detail::fail(fn, "nothing to stack: layer 0 has no heads before it");
  if (o.apply_ln) apply_ln_rows(fn, hooked, cache, parts, layer, false, false, rows);
  out.stack = pack_stack(parts, c.d_model, o.position != kAllPositions, static_cast<std::int64_t>(rows.size()));
  return out;
}

ResidualStack stack_activation(const HookedGPT& hooked, const ActivationCache& cache, std::string_view name, int layer_in,
                               std::string_view layer_type) {
  const char* fn = "stack_activation";
  const GPTConfig& c = hooked.config();
  const int layer = stack_layer(fn, layer_in, c.num_layers);
  if (layer == 0) detail::fail(fn, "layer 0 stacks nothing (the points of layers before it)");
  ResidualStack out;
  std::vector<float> data;
  Shape shape;
  for (int l = 0; l < layer; ++l) {
    const std::string full = act_name(name, l, layer_type);
    Tensor value;
    if (full == "blocks." + std::to_string(l) + ".attn.hook_result") value = head_results(hooked, cache, l);
    else value = cache.get(hook_name(resolve_hook(fn, name, l, layer_type, c)));
    shape = value.shape();
    const std::vector<float> values = value.contiguous().to_vector();
    data.insert(data.end(), values.begin(), values.end());
    out.labels.push_back(full);
  }
  shape.insert(shape.begin(), layer);
  out.stack = Tensor(shape, std::move(data));
  return out;
}

Tensor apply_ln_to_stack(const HookedGPT& hooked, const ActivationCache& cache, const Tensor& stack, const LnOptions& o) {
  const char* fn = "apply_ln_to_stack";
  const GPTConfig& c = hooked.config();
  const int layer = stack_layer(fn, o.layer, c.num_layers);
  const std::vector<int> rows = stack_rows(fn, o.position, cache.seq_len());
  const bool one = o.position != kAllPositions;
  std::vector<AlgebraRows> parts = unpack_stack(fn, stack, c.d_model, static_cast<int>(rows.size()), one);
  apply_ln_rows(fn, hooked, cache, parts, layer, o.mlp_input, o.recompute_ln, rows);
  return pack_stack(parts, c.d_model, one, static_cast<std::int64_t>(rows.size()));
}

Tensor logit_attrs(const HookedGPT& hooked, const ActivationCache& cache, const Tensor& stack, std::span<const int> tokens,
                   std::span<const int> incorrect, int position) {
  // stack (n, P, d) → (n, P): ((c − mean c) / scale) · (ln_f.w ⊙ (wte[token] − wte[incorrect]))
  const char* fn = "logit_attrs";
  const GPT& model = hooked.model();
  const GPTConfig& c = model.config();
  const int d = c.d_model;
  const std::vector<int> rows = stack_rows(fn, position, cache.seq_len());
  const auto P = static_cast<int>(rows.size());
  const bool one = position != kAllPositions;
  if (tokens.size() != 1 && tokens.size() != static_cast<std::size_t>(P))
    detail::fail(fn, "tokens must be one id or one per position (", P, "), got ", tokens.size());
  if (!incorrect.empty() && incorrect.size() != tokens.size())
    detail::fail(fn, "incorrect_tokens must have as many ids as tokens (", tokens.size(), "), got ", incorrect.size());
  for (const auto list : {tokens, incorrect})
    for (const int id : list)
      if (id < 0 || id >= c.vocab_size) detail::fail(fn, "token ", id, " is outside the vocabulary 0 … ", c.vocab_size - 1);
  std::vector<AlgebraRows> parts = unpack_stack(fn, stack, d, P, one);
  apply_ln_rows(fn, hooked, cache, parts, c.num_layers, false, false, rows);

  const std::span<const float> wte = slot_values(model, "wte.weight");
  const Eigen::Map<const Eigen::RowVectorXf> ln_w(slot_values(model, "ln_f.weight").data(), d);
  AlgebraRows directions(P, d);  // one per position
  for (int p = 0; p < P; ++p) {
    const auto pick = [&](std::span<const int> list) { return list[list.size() == 1 ? 0 : static_cast<std::size_t>(p)]; };
    Eigen::RowVectorXd direction = Eigen::Map<const Eigen::RowVectorXf>(wte.data() + static_cast<std::size_t>(pick(tokens)) * d, d).cast<double>();
    if (!incorrect.empty())
      direction -= Eigen::Map<const Eigen::RowVectorXf>(wte.data() + static_cast<std::size_t>(pick(incorrect)) * d, d).cast<double>();
    directions.row(p) = direction.cwiseProduct(ln_w.cast<double>());
  }
  std::vector<float> data;
  for (const AlgebraRows& part : parts)
    for (int p = 0; p < P; ++p) data.push_back(static_cast<float>(part.row(p).dot(directions.row(p))));
  const auto n = static_cast<std::int64_t>(parts.size());
  return one ? Tensor({n}, std::move(data)) : Tensor({n, P}, std::move(data));
}

}  // namespace attnlab
