// The program that loads the plugin (plugin.cpp) as any shared library and checks what it computed.
#include <cmath>
#include <cstdio>

extern "C" double plugin_first_weight();

int main() {
  const double expected = std::exp(1 / std::sqrt(2.0)) / (std::exp(1 / std::sqrt(2.0)) + 2);
  const double got = plugin_first_weight();
  const bool ok = std::abs(got - expected) < 1e-6;
  std::printf("%s plugin: first weight %.7f (expected %.7f)\n", ok ? "ok  " : "FAIL", got, expected);
  return ok ? 0 : 1;
}
