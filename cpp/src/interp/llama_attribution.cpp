// Direct logit attribution on a Llama: the final residual stream's parts through the frozen final RMSNorm.
#include "attnlab/interp/llama_interp.hpp"

#include "tensor/checks.hpp"

namespace attnlab {

Attribution direct_logit_attribution(const Llama& model, std::span<const int> ids, int position, int target, int baseline) {
  // ids [T] → one term per part; each in double
  const char* fn = "direct_logit_attribution";
  const LlamaConfig& c = model.config();
  const int T = static_cast<int>(ids.size()), d = c.hidden_size, hd = c.head_dim;
  if (target < 0 || target >= c.vocab_size) detail::fail(fn, "target ", target, " is outside the vocabulary 0 … ", c.vocab_size - 1);
  if (baseline < -1 || baseline >= c.vocab_size)
    detail::fail(fn, "baseline ", baseline, " is outside the vocabulary 0 … ", c.vocab_size - 1);
  if (position < 0 || position >= T) detail::fail(fn, "position ", position, " is outside the prompt's positions 0 … ", T - 1);
  // The rows the parts are read from, at `position`, as the forward passes them.
  std::map<std::string, Eigen::RowVectorXd> row;
  LlamaForwardOptions options;
  options.hook_fn = [&](const std::string& name, Matrix& value) {
    if (name == "hook_embed" || name == "ln_final.hook_scale" || name.ends_with("attn.hook_z") || name.ends_with("hook_mlp_out"))
      row[name] = value.row(position).cast<double>();
  };
  const Matrix logits = model.forward(ids, options).logits;  // throws for bad ids

  // The direction read: W_U[target] − W_U[baseline], times the norm's weight, over its frozen scale.   [d]
  const auto vector_of = [&](const std::string& name) -> Eigen::RowVectorXd {
    return model.tensor_matrix(name).row(0).cast<double>();
  };
  const auto unembedding = model.tensor_values(c.tie_word_embeddings ? "model.embed_tokens.weight" : "lm_head.weight");
  const auto unembedding_row = [&](int id) {
    return Eigen::Map<const Eigen::RowVectorXf>(unembedding.data() + static_cast<std::size_t>(id) * static_cast<std::size_t>(d), d).cast<double>();
  };
  Eigen::RowVectorXd direction = unembedding_row(target);
  if (baseline >= 0) direction -= unembedding_row(baseline);
  const Eigen::RowVectorXd read = direction.cwiseProduct(vector_of("model.norm.weight")) / row.at("ln_final.hook_scale")(0);

  Attribution out;
  const auto add = [&](AttributionPart part, int layer, int head, std::string label, const Eigen::RowVectorXd& written) {
    const double value = written.dot(read);
    out.terms.push_back({part, layer, head, std::move(label), value});
    out.sum += value;
  };
  add(AttributionPart::embed, -1, -1, "embed", row.at("hook_embed"));
  for (int l = 0; l < c.num_layers; ++l) {
    const std::string block = "blocks." + std::to_string(l) + ".", layer = "L" + std::to_string(l);
    const std::string weights = "model.layers." + std::to_string(l) + ".self_attn.o_proj.";
    const auto o_proj = model.tensor_values(weights + "weight");  // [d × H·hd]: head h in columns h·hd …
    const Eigen::Map<const Matrix> W_O(o_proj.data(), d, static_cast<Eigen::Index>(c.num_heads) * hd);
    const Eigen::RowVectorXd& z = row.at(block + "attn.hook_z");
    for (int h = 0; h < c.num_heads; ++h)
      add(AttributionPart::head, l, h, layer + "H" + std::to_string(h),
          z.segment(h * hd, hd) * W_O.middleCols(h * hd, hd).transpose().cast<double>());
    if (c.o_bias) add(AttributionPart::attn_bias, l, -1, layer + " b_O", vector_of(weights + "bias"));
    add(AttributionPart::mlp, l, -1, layer + " mlp_out", row.at(block + "hook_mlp_out"));
  }
  out.logit = static_cast<double>(logits(position, target)) - (baseline >= 0 ? static_cast<double>(logits(position, baseline)) : 0.0);
  return out;
}

}  // namespace attnlab
