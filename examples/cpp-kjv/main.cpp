// attnlab-kjv from C++: load the model and its tokenizer, continue a verse, and read the logit lens —
// which word each layer's residual stream already favours for the next token.
//   kjv <folder with model.safetensors, vocab.json and merges.txt>   (web/models/kjv in this repository)
#include <attnlab/attnlab.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The text in quotes on one line, its line breaks written \n (verses end in them).
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) out += c == '\n' ? std::string("\\n") : std::string(1, c);
  return out + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <folder with model.safetensors, vocab.json, merges.txt>\n", argv[0]);
    return 2;
  }
  const std::filesystem::path folder = argv[1];
  try {
    const attnlab::GPT model = attnlab::GPT::from_safetensors(folder / "model.safetensors");
    const attnlab::BpeTokenizer tokenizer =
        attnlab::BpeTokenizer::from_gpt2(read_text(folder / "vocab.json"), read_text(folder / "merges.txt"));
    const std::vector<int> prompt = tokenizer.encode("Thou shalt love thy neighbour as");
    std::printf("%d layers, %d heads, %lld parameters; the prompt is %zu tokens\n", model.config().num_layers,
                model.config().num_heads, static_cast<long long>(model.parameter_count()), prompt.size());

    // Greedy continuation (temperature 0): the same words on every machine.
    attnlab::GenerateOptions options;
    options.max_tokens = 8;
    options.sampling.temperature = 0.0f;
    const attnlab::Generation generated = attnlab::generate(model, prompt, options);
    std::printf("continued: %s\n", quoted(tokenizer.decode(generated.tokens)).c_str());

    // The logit lens at the prompt's last token: the top token read at each point of the residual stream.
    const int last = static_cast<int>(prompt.size()) - 1;
    const attnlab::LogitLens lens = attnlab::logit_lens(attnlab::HookedGPT(model), prompt, std::vector<int>{last}, 1);
    for (std::size_t i = 0; i < lens.points.size(); ++i) {
      const attnlab::LensCell& cell = lens.cells[i][0];
      std::printf("%-26s %4d %-12s %.3f\n", lens.points[i].c_str(), cell.top_ids[0], quoted(tokenizer.decode(cell.top_ids)).c_str(),
                  static_cast<double>(cell.top_probabilities[0]));
    }
  } catch (const attnlab::Error& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
}
