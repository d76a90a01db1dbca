// The model's parameters as PyTorch's state_dict, and as a .safetensors file of it.
#include <string>

#include "attnlab/seq2seq/seq2seq.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

namespace {

void add_matrix(std::vector<Seq2SeqTensor>& out, std::string name, const Matrix& m) {
  out.push_back({std::move(name), {m.rows(), m.cols()}, std::vector<float>(m.data(), m.data() + m.size())});
}
void add_vector(std::vector<Seq2SeqTensor>& out, std::string name, const Vector& v) {
  out.push_back({std::move(name), {v.size()}, std::vector<float>(v.data(), v.data() + v.size())});
}
void add_attention(std::vector<Seq2SeqTensor>& out, const std::string& prefix, const MultiHeadAttentionWeights& w) {
  add_matrix(out, prefix + ".in_proj_weight", w.in_proj_weight);
  add_vector(out, prefix + ".in_proj_bias", w.in_proj_bias);
  add_matrix(out, prefix + ".out_proj.weight", w.out_proj_weight);
  add_vector(out, prefix + ".out_proj.bias", w.out_proj_bias);
}
void add_linear(std::vector<Seq2SeqTensor>& out, const std::string& prefix, const LinearWeights& w) {
  add_matrix(out, prefix + ".weight", w.weight);
  add_vector(out, prefix + ".bias", w.bias);
}
void add_norm(std::vector<Seq2SeqTensor>& out, const std::string& prefix, const Vector& weight, const Vector& bias) {
  add_vector(out, prefix + ".weight", weight);
  add_vector(out, prefix + ".bias", bias);
}

// Reads named tensors of known shapes out of one .safetensors file.
class StateReader {
 public:
  explicit StateReader(std::span<const std::uint8_t> file) : file_(file), header_(parse_safetensors(file)) {}

  Matrix matrix(const std::string& name, Eigen::Index rows, Eigen::Index cols) const {
    Matrix m(rows, cols);
    read(name, {rows, cols}, m.data());
    return m;
  }
  // The first of `names` the file has (the same tensor under another model's name), else the first.
  std::string present(std::initializer_list<std::string> names) const {
    for (const std::string& name : names)
      if (header_.find(name)) return name;
    return *names.begin();
  }
  Vector vector(const std::string& name, Eigen::Index size) const {
    Vector v(size);
    read(name, {size}, v.data());
    return v;
  }
  MultiHeadAttentionWeights attention(const std::string& prefix, Eigen::Index d) const {
    return {matrix(prefix + ".in_proj_weight", 3 * d, d), vector(prefix + ".in_proj_bias", 3 * d),
            matrix(prefix + ".out_proj.weight", d, d), vector(prefix + ".out_proj.bias", d)};
  }
  LinearWeights linear(const std::string& prefix, Eigen::Index out, Eigen::Index in) const {
    return {matrix(prefix + ".weight", out, in), vector(prefix + ".bias", out)};
  }

 private:
  void read(const std::string& name, const std::vector<std::int64_t>& shape, float* out) const {
    constexpr const char* fn = "Seq2SeqTransformer::load_safetensors";
    const SafetensorInfo* info = header_.find(name);
    if (!info) detail::fail(fn, "the file has no tensor '", name, "' (", header_shape_text(shape), " for this config)");
    if (info->shape != shape)
      detail::fail(fn, "'", name, "' is ", header_shape_text(info->shape), " in the file but ", header_shape_text(shape),
                   " for this config");
    read_tensor(file_, header_, *info, out);
    const std::int64_t count = info->element_count();
    if (!detail::all_finite(out, static_cast<Eigen::Index>(count)))
      detail::fail(fn, "'", name, "' has a NaN or infinite value");
  }
  std::span<const std::uint8_t> file_;
  SafetensorsHeader header_;
};

}  // namespace

std::vector<Seq2SeqTensor> Seq2SeqTransformer::state_dict() const {
  std::vector<Seq2SeqTensor> out;
  add_matrix(out, "src_tok_emb.weight", src_tok_emb_.table());
  add_matrix(out, "tgt_tok_emb.weight", tgt_tok_emb_.table());
  for (std::size_t i = 0; i < encoder_layers_.size(); ++i) {
    const std::string p = "transformer.encoder.layers." + std::to_string(i);
    const TransformerEncoderLayerWeights w = encoder_layers_[i].weights();
    add_attention(out, p + ".self_attn", w.self_attn);
    add_linear(out, p + ".linear1", w.linear1);
    add_linear(out, p + ".linear2", w.linear2);
    add_norm(out, p + ".norm1", w.norm1_weight, w.norm1_bias);
    add_norm(out, p + ".norm2", w.norm2_weight, w.norm2_bias);
  }
  add_norm(out, "transformer.encoder.norm", encoder_norm_.weight(), encoder_norm_.bias());
  for (std::size_t i = 0; i < decoder_layers_.size(); ++i) {
    const std::string p = "transformer.decoder.layers." + std::to_string(i);
    const TransformerDecoderLayerWeights w = decoder_layers_[i].weights();
    add_attention(out, p + ".self_attn", w.self_attn);
    add_attention(out, p + ".multihead_attn", w.multihead_attn);
    add_linear(out, p + ".linear1", w.linear1);
    add_linear(out, p + ".linear2", w.linear2);
    add_norm(out, p + ".norm1", w.norm1_weight, w.norm1_bias);
    add_norm(out, p + ".norm2", w.norm2_weight, w.norm2_bias);
    add_norm(out, p + ".norm3", w.norm3_weight, w.norm3_bias);
  }
  add_norm(out, "transformer.decoder.norm", decoder_norm_.weight(), decoder_norm_.bias());
  add_linear(out, "generator", generator_.weights());
  return out;
}

std::vector<std::uint8_t> Seq2SeqTransformer::save_safetensors(DType dtype,
                                                               const std::map<std::string, std::string>& metadata) const {
  const std::vector<Seq2SeqTensor> state = state_dict();
  std::vector<TensorToWrite> tensors;
  for (const Seq2SeqTensor& t : state) tensors.push_back({t.name, t.shape, t.values.data()});
  return write_safetensors(tensors, dtype, metadata);
}

void Seq2SeqTransformer::load_safetensors(std::span<const std::uint8_t> file) {
  const StateReader in(file);
  const Eigen::Index d = config_.d_model, ff = config_.d_ff;
  // Every tensor is read and every layer loaded into a copy first, so a bad file changes nothing.
  Embedding src = src_tok_emb_, tgt = tgt_tok_emb_;
  // PyTorch's translation tutorial wraps each nn.Embedding in a TokenEmbedding module: its state_dict
  // names them src_tok_emb.embedding.weight; both spellings load.
  src.load(in.matrix(in.present({"src_tok_emb.weight", "src_tok_emb.embedding.weight"}), config_.source_vocab_size, d));
  tgt.load(in.matrix(in.present({"tgt_tok_emb.weight", "tgt_tok_emb.embedding.weight"}), config_.target_vocab_size, d));
  std::vector<TransformerEncoderLayer> encoders = encoder_layers_;
  for (std::size_t i = 0; i < encoders.size(); ++i) {
    const std::string p = "transformer.encoder.layers." + std::to_string(i);
    encoders[i].load({in.attention(p + ".self_attn", d), in.linear(p + ".linear1", ff, d), in.linear(p + ".linear2", d, ff),
                      in.vector(p + ".norm1.weight", d), in.vector(p + ".norm1.bias", d),
                      in.vector(p + ".norm2.weight", d), in.vector(p + ".norm2.bias", d)});
  }
  LayerNorm encoder_norm = encoder_norm_, decoder_norm = decoder_norm_;
  encoder_norm.load(in.vector("transformer.encoder.norm.weight", d), in.vector("transformer.encoder.norm.bias", d));
  std::vector<TransformerDecoderLayer> decoders = decoder_layers_;
  for (std::size_t i = 0; i < decoders.size(); ++i) {
    const std::string p = "transformer.decoder.layers." + std::to_string(i);
    decoders[i].load({in.attention(p + ".self_attn", d), in.attention(p + ".multihead_attn", d),
                      in.linear(p + ".linear1", ff, d), in.linear(p + ".linear2", d, ff),
                      in.vector(p + ".norm1.weight", d), in.vector(p + ".norm1.bias", d),
                      in.vector(p + ".norm2.weight", d), in.vector(p + ".norm2.bias", d),
                      in.vector(p + ".norm3.weight", d), in.vector(p + ".norm3.bias", d)});
  }
  decoder_norm.load(in.vector("transformer.decoder.norm.weight", d), in.vector("transformer.decoder.norm.bias", d));
  Linear generator = generator_;
  generator.load(in.linear("generator", config_.target_vocab_size, d), "Seq2SeqTransformer::load_safetensors (generator)");
  // Copied in, not moved, so ParameterRefs taken before the load stay valid.
  src_tok_emb_ = src;
  tgt_tok_emb_ = tgt;
  for (std::size_t i = 0; i < encoders.size(); ++i) encoder_layers_[i] = encoders[i];
  encoder_norm_ = encoder_norm;
  for (std::size_t i = 0; i < decoders.size(); ++i) decoder_layers_[i] = decoders[i];
  decoder_norm_ = decoder_norm;
  generator_ = generator;
}

}  // namespace attnlab
